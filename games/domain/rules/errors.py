"""The one exception the rules raise: a refused action with a stable code."""

from __future__ import annotations


class RuleViolation(Exception):
    """An action the rules refuse.

    ``code`` is stable and machine-readable (clients switch on it; every code is named
    in games.domain.errors); ``message`` is for people. Raising never changes any state: every rules function is pure.
    """

    code: str
    message: str

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"RuleViolation({self.code!r}, {self.message!r})"

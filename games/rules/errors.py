"""The one exception the rules raise: a refused action with a stable code."""

from __future__ import annotations


class RuleViolation(Exception):
    """An action the rules refuse.

    ``code`` is stable and machine-readable (clients switch on it); ``message`` is
    for people. Raising never changes any state: every rules function is pure.
    """

    code: str
    message: str

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"RuleViolation({self.code!r}, {self.message!r})"


# The codes, in one place so tests and clients can refer to them.
GAME_NOT_STARTED = "game_not_started"
GAME_OVER = "game_over"
NOT_YOUR_TURN = "not_your_turn"
NO_ROLLS_LEFT = "no_rolls_left"
NOT_ROLLED = "not_rolled"
BAD_DIE_INDEX = "bad_die_index"
ALL_HELD = "all_held"
UNKNOWN_BOX = "unknown_box"
BAD_COLUMN = "bad_column"
BOX_FILLED = "box_filled"
JOKER_FORBIDS = "joker_forbids"
BAD_PLAYERS = "bad_players"
BAD_DICE = "bad_dice"
ALREADY_STARTED = "already_started"

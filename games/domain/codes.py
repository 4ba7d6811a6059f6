"""A room code as people see it: the one form of a code every page, log line and admin list shows."""

from __future__ import annotations


def shown_code(code: str) -> str:
    """A room code as people see and type it, in groups: "abcdefghjk" is "abcd-efgh-jk"."""
    return "-".join(code[i : i + 4] for i in range(0, len(code), 4))

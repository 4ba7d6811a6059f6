"""A room code as people see it: the one form of a code every page, "your turn" e-mail and push,
admin list and ``verify_game`` report shows. Links keep the stored code, and so do log lines, which
are read beside the server's access log and its addresses."""

from __future__ import annotations


def shown_code(code: str) -> str:
    """A room code as people see and type it, in groups: "abcdefghjk" is "abcd-efgh-jk"."""
    return "-".join(code[i : i + 4] for i in range(0, len(code), 4))

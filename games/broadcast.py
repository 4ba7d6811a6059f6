"""The hook services call after a commit. Realtime delivery plugs in here."""

from __future__ import annotations


def game_changed(code: str, version: int) -> None:
    """Tell the room's sockets that ``code`` is now at ``version`` (no-op until realtime lands)."""

"""JSON on the wire and in the hot path's statements, with orjson.

A state frame is encoded once per action and sent as it is to every socket of the room
(games.realtime.broadcast); the stdlib encoder took about a tenth of an action's CPU for it
(docs/performance.md). orjson writes compact JSON (no spaces), which every reader of the
frames (the page, the tests, bench/load.py) parses as any JSON.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def _fallback(value: object) -> str:
    # A lazy translation string or any other str-like value: as its text, like json.dumps(default=str).
    return str(value)


def dumps(value: Any) -> str:
    """``value`` as JSON text (for a websocket frame)."""
    return orjson.dumps(value, default=_fallback).decode()


def dumpb(value: Any) -> bytes:
    """``value`` as JSON bytes (for a jsonb parameter)."""
    return orjson.dumps(value, default=_fallback)


def loads(text: str | bytes) -> Any:
    """JSON text as Python values; ``ValueError`` if it is not JSON.

    orjson refuses a lone surrogate escape (``"\\ud800"``), which is valid JSON: the standard
    decoder reads that (rare, hostile) text instead, so the caller can name the bad field.
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        if "\\u" not in (text if isinstance(text, str) else text.decode(errors="replace")):
            raise
        return json.loads(text)

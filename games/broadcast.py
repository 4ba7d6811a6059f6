"""After a commit: send the room the new state, built and JSON-encoded once.

Services call ``game_changed`` from ``transaction.on_commit``. The state frame is made
once per action and every socket in the room's group forwards the same text as it is
(DESIGN.md: fan-out is the hot path), preceded by a small event frame for animations.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games.models import Game, Move
from games.selectors import bot_to_play, game_state

log = logging.getLogger(__name__)

_EVENTS = {
    Move.Kind.JOIN: "joined",
    Move.Kind.LEAVE: "left",
    Move.Kind.KICK: "left",
    Move.Kind.REMOVE: "left",
    Move.Kind.START: "started",
    Move.Kind.ROLL: "rolled",
    Move.Kind.HOLD: "held",
    Move.Kind.SCORE: "scored",
    Move.Kind.REMATCH: "rematch",
    Move.Kind.BOT: "bot",
}


def room_group(code: str) -> str:
    return f"room.{code}"


def event_frame(move: Move) -> dict[str, Any] | None:
    """The small frame that tells the page what just happened (None for moves nobody animates)."""
    name = _EVENTS.get(move.kind)  # type: ignore[call-overload]
    if name is None:
        return None
    frame: dict[str, Any] = {"type": name, "version": move.seq, **move.payload}
    frame.pop("client_seed", None)
    if move.payload.get("game_over"):
        frame["game_over"] = True
    return frame


def frames_for(game: Game, move: Move) -> list[str]:
    frames = []
    event = event_frame(move)
    if event is not None:
        frames.append(json.dumps(event))
    if move.payload.get("game_over") or move.payload.get("abandoned"):
        winners = move.payload.get("winners", [])
        frames.append(json.dumps({"type": "game_over", "version": move.seq, "winners": winners}))
    frames.append(json.dumps(game_state(game)))
    return frames


def send_frames(code: str, frames: list[str], bot: int | None = None) -> None:
    """``bot``: the version at which a computer player is to play (see games.botplay)."""
    layer = get_channel_layer()
    if layer is None:
        return
    message: dict[str, Any] = {"type": "room.frames", "frames": frames}
    if bot is not None:
        message["bot"] = bot
    async_to_sync(layer.group_send)(room_group(code), message)


def game_changed(game: Game, move: Move) -> None:
    """Tell every socket in the room; a failure to deliver never undoes the committed action."""
    try:
        send_frames(game.code, frames_for(game, move), bot=game.version if bot_to_play(game) else None)
    except Exception:  # the action is committed; clients resync on reconnect
        log.exception("broadcast of %s version %s failed", game.code, game.version)

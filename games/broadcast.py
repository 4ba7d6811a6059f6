"""After a commit: send the room the new state, built and JSON-encoded once.

Services call ``game_changed`` from ``transaction.on_commit``. The state frame is made
once per action and every socket of the room gets the same text as it is (DESIGN.md:
fan-out is the hot path), preceded by a small event frame for animations. The frames go
through ``games.fanout``: straight to this process's sockets, relayed to the others; the
database thread hands them over and goes on without waiting for the sends.
"""

from __future__ import annotations

import logging
from typing import Any

from games import fanout, wire
from games.models import Game, Move
from games.rules import GameState
from games.selectors import game_state

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
    Move.Kind.RECLAIM: "reclaimed",
    Move.Kind.TIMEOUT: "timed_out",
    Move.Kind.PAUSE: "paused",
    Move.Kind.RESUME: "resumed",
    Move.Kind.MUTE: "muted",
}


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


def frames_for(game: Game, move: Move, rules: GameState | None = None) -> list[str]:
    frames = []
    event = event_frame(move)
    if event is not None:
        frames.append(wire.dumps(event))
    if move.payload.get("game_over") or move.payload.get("abandoned"):
        winners = move.payload.get("winners", [])
        frames.append(wire.dumps({"type": "game_over", "version": move.seq, "winners": winners}))
    frames.append(wire.dumps(game_state(game, rules)))
    return frames


def game_changed(game: Game, move: Move, rules: GameState | None = None) -> None:
    """Tell every socket in the room; a failure to deliver never undoes the committed action.

    ``rules``: the rules state the service just stored (None: decoded from the snapshot).

    The frames end with the state frame: each process that delivers them tells its state
    listeners (``fanout.on_state``), which is how a computer player's turn gets played.
    """
    try:
        fanout.publish_soon(game.code, frames_for(game, move, rules), version=game.version)
    except Exception:  # the action is committed; clients resync on reconnect
        log.exception("broadcast of %s version %s failed", game.code, game.version)

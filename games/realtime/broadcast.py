"""After a commit: send the room the new state, built and JSON-encoded once.

Services call ``game_changed`` from ``transaction.on_commit``. The state frame is made
once per action and every socket of the room gets the same text as it is (the fan-out
is the hot path, docs/architecture.md): one websocket message per socket and action. What just happened
rides in it, for the page's animations, feed and sounds: ``event`` (the action, e.g.
``{"type": "rolled", ...}``) and, on the action that ended the game, ``game_over``. The frame
goes through ``games.realtime.fanout``: straight to this process's sockets, relayed to the others;
the database thread hands it over and goes on without waiting for the sends.
"""

from __future__ import annotations

import logging
from typing import Any

from games.domain import protocol
from games.domain.rules import GameState
from games.realtime import fanout
from games.services import events
from games.store.models import Game, Move
from games.store.selectors import game_state

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
    Move.Kind.EXTEND: "extended",
}


def event_of(move: Move, private: bool = False) -> dict[str, Any] | None:
    """What just happened, for the page (None for moves nobody animates): the state's ``event``."""
    name = _EVENTS.get(move.kind)  # type: ignore[call-overload]
    if name is None:
        return None
    event: dict[str, Any] = {"type": name, **move.payload}
    event.pop("client_seed", None)
    if move.kind in (Move.Kind.KICK, Move.Kind.REMOVE):
        event["by_host"] = True  # taken out, not left: the room is told so, and so is its player
    if private and move.kind == Move.Kind.REMATCH:
        event.pop("code", None)  # as the state's ``rematch``: a private rematch's code goes to nobody
    return event


def state_frame(game: Game, move: Move, rules: GameState | None = None) -> dict[str, Any]:
    """The room's state after ``move``, with what the move did (``event``, ``game_over``) in it.

    Without ``ruleset``: a room's rule set never changes, and every socket has had it, in
    the state the page was rendered from and in the state a socket gets when it connects
    or asks to sync. It was over half of every frame's bytes, encoded, sent to every
    socket and parsed by every page at each action.
    """
    state = game_state(game, rules)
    del state["ruleset"]
    event = event_of(move, game.private)
    if event is not None:
        state["event"] = event
    if move.payload.get("game_over") or move.payload.get("abandoned"):
        state["game_over"] = {"winners": move.payload.get("winners", [])}
    return state


def frames_for(game: Game, move: Move, rules: GameState | None = None) -> list[str]:
    """The one frame every socket of the room gets for this action."""
    return [protocol.dumps(state_frame(game, move, rules))]


def game_changed(game: Game, move: Move, rules: GameState | None = None) -> None:
    """Tell every socket in the room; a failure to deliver never undoes the committed action.

    ``rules``: the rules state the service just stored (None: decoded from the snapshot).
    What happens next (a computer player's step, the deadline) is not read from this
    frame: the scheduler hears of the action from games.services.events.
    """
    try:
        fanout.publish_soon(game.code, frames_for(game, move, rules), version=game.version)
    except Exception:  # the action is committed; clients resync on reconnect
        log.exception("broadcast of %s version %s failed", game.code, game.version)


def committed(event: events.Committed) -> None:
    """A listener of games.services.events: the room's new state to its sockets."""
    if event.game is not None and event.move is not None:
        game_changed(event.game, event.move, event.rules)


def told(
    code: str, frame: dict[str, Any], audience: frozenset[str] | None = None, excluded: frozenset[str] = frozenset()
) -> None:
    """A listener of games.services.events: a frame that is not a state, to the room's sockets
    (those of the browsers in ``audience`` only, when it is given; none of those in ``excluded``)."""
    try:
        fanout.publish_soon(code, [protocol.dumps(frame)], audience=audience, excluded=excluded)
    except Exception:  # nothing was promised but a best effort; the page resyncs on reconnect
        log.exception("telling %s a %s frame failed", code, frame.get("type"))

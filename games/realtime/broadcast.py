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
from games.store import selectors
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


# The moves a page's feed has a line for (a roll only when it is a Yahtzee, which the page tells),
# and the host handed on by a player who took the host's tools.
_FEED_KINDS = (*(kind for kind in _EVENTS if kind != Move.Kind.HOLD), Move.Kind.HOST)
# A turn is at most three rolls and a score: this many of the room's last such moves hold the feed's
# six lines (FEED_SIZE in static/js/room.js) however the turns went.
FEED_MOVES = 40
# The moves that take a seat out, whose ``host`` is the player the host's role went to.
_LEAVES = (Move.Kind.LEAVE, Move.Kind.KICK, Move.Kind.REMOVE)


def _made_with_the_room(game: Game, move: Move, payload: dict[str, Any]) -> bool:
    """A move of the room's making, which no page was open to tell: the maker's seat, a
    pass-and-play game's seats, and a rematch's seats and mutes carried over from the game before."""
    return bool(payload.get("rematch")) or (move.kind == Move.Kind.JOIN and (game.local or bool(payload.get("host"))))


def recent_events(game: Game) -> list[dict[str, Any]]:
    """The room's last events, oldest first, as its sockets were told them (each state's ``event``
    and ``game_over``), for a page just drawn to word as the lines of its feed, once.

    What the page read from the state an event came with is put in it: the seat a roll or a
    score was ``seat``'s, a seat the host took out was taken from the ``lobby``, and the host
    handed on is an event of its own (``{"type": "host", "name": ...}``), after the leave that
    handed it on, as an open page tells it. Each has the ``version`` its move made, by which a
    page that missed some (its socket away) puts them among the lines it has.
    """
    names = {seat.player: seat.name for seat in game.room.seats}
    seats = {seat.player: index for index, seat in enumerate(game.room.seats)}
    told: list[dict[str, Any]] = []
    for move in reversed(selectors.last_moves(game, _FEED_KINDS, FEED_MOVES)):
        payload = move.payload if isinstance(move.payload, dict) else {}
        if _made_with_the_room(game, move, payload):
            continue
        event = _versioned(move, game.private)
        if event is None:
            continue
        if move.kind in (Move.Kind.ROLL, Move.Kind.SCORE):
            event["seat"] = seats.get(move.player_id)  # type: ignore[arg-type]
        elif move.kind in (Move.Kind.KICK, Move.Kind.REMOVE):
            event["lobby"] = move.kind == Move.Kind.KICK
        told.append(event)
        if payload.get("game_over") or payload.get("abandoned"):
            told.append({"type": "game_over", "winners": payload.get("winners", []), "version": move.seq})
        elif move.kind in _LEAVES and payload.get("host") in names:
            told.append({"type": "host", "name": names[payload["host"]], "version": move.seq})
    return told


def state_frame(
    game: Game, move: Move, rules: GameState | None = None, earlier: tuple[Move, ...] = ()
) -> dict[str, Any]:
    """The room's state after ``move``, with what the move did (``event``, ``game_over``) in it,
    and what the moves of the same commit before it did (``earlier``, each with its ``version``).

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
    if earlier:
        told = [_versioned(m, game.private) for m in earlier if m.kind != Move.Kind.HOLD]
        if told := [e for e in told if e is not None]:
            state["earlier"] = told
    if move.payload.get("game_over") or move.payload.get("abandoned"):
        state["game_over"] = {"winners": move.payload.get("winners", [])}
    return state


def _versioned(move: Move, private: bool) -> dict[str, Any] | None:
    """A move's event with the version it made: one of a state's ``earlier``, and of the room's
    recent events. A player who took the host's tools is handed the role by a Move of its own
    before the tool's: told as ``host``, there, in both, so an open page and one drawn later put
    the hand-over and the tool's line in the same order."""
    if move.kind == Move.Kind.HOST:
        payload = move.payload if isinstance(move.payload, dict) else {}
        return {"type": "host", "name": payload.get("name", ""), "version": move.seq}
    event = event_of(move, private)
    if event is not None:
        event["version"] = move.seq
    return event


def frames_for(game: Game, move: Move, rules: GameState | None = None, earlier: tuple[Move, ...] = ()) -> list[str]:
    """The one frame every socket of the room gets for this action."""
    return [protocol.dumps(state_frame(game, move, rules, earlier))]


def game_changed(game: Game, move: Move, rules: GameState | None = None, earlier: tuple[Move, ...] = ()) -> None:
    """Tell every socket in the room; a failure to deliver never undoes the committed action.

    ``rules``: the rules state the service just stored (None: decoded from the snapshot).
    What happens next (a computer player's step, the deadline) is not read from this
    frame: the scheduler hears of the action from games.services.events.
    """
    try:
        fanout.publish_soon(game.code, frames_for(game, move, rules, earlier), version=game.version)
    except Exception:  # the action is committed; clients resync on reconnect
        log.exception("broadcast of %s version %s failed", game.code, game.version)


def committed(event: events.Committed) -> None:
    """A listener of games.services.events: the room's new state to its sockets."""
    if event.game is not None and event.move is not None:
        game_changed(event.game, event.move, event.rules, event.earlier)


def told(
    code: str, frame: dict[str, Any], audience: frozenset[str] | None = None, excluded: frozenset[str] = frozenset()
) -> None:
    """A listener of games.services.events: a frame that is not a state, to the room's sockets
    (those of the browsers in ``audience`` only, when it is given; none of those in ``excluded``)."""
    try:
        fanout.publish_soon(code, [protocol.dumps(frame)], audience=audience, excluded=excluded)
    except Exception:  # nothing was promised but a best effort; the page resyncs on reconnect
        log.exception("telling %s a %s frame failed", code, frame.get("type"))


def gone(codes: list[str]) -> None:
    """A listener of games.services.events: the sockets of rooms just deleted, in every process,
    are closed as a socket to a room that does not exist is (4404)."""
    for code in codes:
        try:
            fanout.publish_soon(code, [fanout.ROOM_GONE])
        except Exception:  # each socket finds out at its next frame or ping anyway
            log.exception("closing the sockets of the deleted room %s failed", code)

"""What the services tell the rest of the process once an action has committed.

A service's action ends with ``actions.record``; after its transaction commits, every
listener registered here gets one typed ``Committed``: the room, its new version, the kind
of its last Move, when the room is next due (``Game.due_at``), and the room, Move and rules state
as written. games.apps registers two, in this order: the broadcast (games.realtime.broadcast:
the state frame to every socket of the room) and the scheduler (to act for the room when
it is next due). The services import neither; nothing reads the outgoing frames to find
out what happened.

Listeners run in the thread that committed (a database thread): they must be quick and
must not raise (a failure is logged and never undoes the committed action).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from games.domain.rules import GameState
    from games.store.models import Game, Move

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Committed:
    code: str
    version: int
    kind: str
    due_at: datetime | None
    followups_owed: bool = False
    # The room as just written, the Move that made it, and the new rules state if the action
    # changed it: what the broadcast builds the state frame from without reading it again.
    game: Game | None = None
    move: Move | None = None
    rules: GameState | None = None
    # The Moves the same transaction recorded before ``move``, oldest first (a timeout's, before
    # the score the timer played): told with it, in the one state frame of the commit.
    earlier: tuple[Move, ...] = ()


Listener = Callable[[Committed], None]
_listeners: list[Listener] = []


def on_committed(listener: Listener) -> None:
    """Call ``listener(event)`` after every committed action of every room in this process."""
    if listener not in _listeners:
        _listeners.append(listener)


def committed(event: Committed) -> None:
    for listener in _listeners:
        try:
            listener(event)
        except Exception:
            log.exception("a listener of committed actions failed on %s", event.code)


# What a service tells a room that is not a new state of it (a chat line, a reaction, a
# message hidden by staff): the frame as data, encoded and sent by the transport.
# ``audience``: the controller tokens of the browsers whose sockets may hear it (None: every socket);
# ``excluded``: those of browsers whose sockets do not (told another frame of their own).
Teller = Callable[[str, dict[str, Any], frozenset[str] | None, frozenset[str]], None]
_tellers: list[Teller] = []


def on_told(listener: Teller) -> None:
    """Call ``listener(code, frame, audience, excluded)`` for every frame a service tells a room in this process."""
    if listener not in _tellers:
        _tellers.append(listener)


def tell(
    code: str, frame: dict[str, Any], audience: frozenset[str] | None = None, excluded: frozenset[str] = frozenset()
) -> None:
    """Send ``frame`` to every socket of the room, or to the sockets of the browsers in ``audience``,
    but those of the browsers in ``excluded`` (call it after the commit that stored it, if any)."""
    for listener in _tellers:
        try:
            listener(code, frame, audience, excluded)
        except Exception:
            log.exception("a listener of told frames failed on %s", code)


# Rooms deleted (the sweeps'): the transport closes their sockets, in every process, as it
# refuses a socket to a room that does not exist, so a page still open says so at once.
_gone_listeners: list[Callable[[list[str]], None]] = []


def on_gone(listener: Callable[[list[str]], None]) -> None:
    """Call ``listener(codes)`` once the deletion of the rooms ``codes`` has committed."""
    if listener not in _gone_listeners:
        _gone_listeners.append(listener)


def gone(codes: list[str]) -> None:
    """Tell the listeners that the rooms ``codes`` were deleted (call it after the commit)."""
    for listener in _gone_listeners:
        try:
            listener(codes)
        except Exception:
            log.exception("a listener of deleted rooms failed on %s", ", ".join(codes))

"""The shared steps of every action: find and lock the room, check the request, record the Move."""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from django.db import IntegrityError, connection, transaction

from games.domain import errors as E
from games.domain.errors import BAD_REQUEST, NOT_A_PLAYER, NOT_HOST, REPEATED, STALE
from games.domain.protocol import ACTION_ID_MAX
from games.domain.room import LIMITS, Room, Seat
from games.domain.rules import GameState, RuleViolation
from games.services import deadline, events, notices, presence, waiting
from games.services.codes import isolated, normalize_code
from games.store import moves, players
from games.store.models import Game, Move, ScoreEntry
from games.store.selectors import connected_seats, pauser

R = TypeVar("R")
log = logging.getLogger(__name__)


def locked(code: str) -> Game:
    """The room's row, locked for the caller's transaction.

    On SQLite the transaction's write lock (``BEGIN IMMEDIATE``) is the lock, and the row is
    read with the statement built once (``moves.read``); elsewhere, and outside a
    transaction (where the ORM refuses a locking read), ``SELECT … FOR UPDATE``.
    """
    if connection.vendor == "sqlite" and connection.in_atomic_block:
        return moves.read(normalize_code(code))
    return Game.objects.select_for_update().get(code=normalize_code(code))


def act(code: str, action: Callable[[Game], R], *, more_writes: bool = False) -> R:
    """Run ``action(game)``, which checks, asks the rules and ends with one ``record``.

    On PostgreSQL, outside any caller's transaction, first without the lock, with a
    guarded write (the module docstring): on the room's row as this process last wrote
    it (``moves.remembered``: no read at all), else on an unlocked read. ``more_writes``:
    the action writes other rows too, so that try is one transaction (its other writes
    come after ``record``, whose guarded update takes the row lock first). Otherwise, and
    if another action came first, in one transaction under the row lock.

    On SQLite every try is one transaction that starts with the database's write lock
    (``BEGIN IMMEDIATE``, the settings' ``transaction_mode``): on the remembered row with a
    guarded write, else on the row read under that lock (``locked``).

    A refusal on the remembered row may come from a row that has moved on elsewhere: it
    is checked again on a fresh read before it is believed.
    """
    sqlite = connection.vendor == "sqlite"
    if (sqlite or connection.vendor == "postgresql") and not connection.in_atomic_block:
        code = normalize_code(code)
        try:
            kept = moves.remembered(code)
            if kept is not None:
                try:
                    # On SQLite the try is one transaction, under the write lock from its start.
                    return _unlocked(kept, action, more_writes or sqlite)
                except RuleViolation:
                    moves.forget(code)  # and try again on a fresh read
            if not sqlite:  # SQLite reads under its write lock, below: nothing to gain unlocked
                return _unlocked(moves.read(code), action, more_writes)
        except moves.Conflict:
            pass
    with transaction.atomic():
        return action(locked(code))


def _unlocked(game: Game, action: Callable[[Game], R], more_writes: bool) -> R:
    game._read_version = game.version  # type: ignore[attr-defined]  # record guards its write with it
    if more_writes:
        with transaction.atomic():
            return action(game)
    return action(game)


def check_request(game: Game, *, actor: str, expected_version: int | None, action_id: str) -> None:
    # The frames' ids are checked at the edge (games.domain.protocol); this guards the column for every caller.
    if len(action_id) > ACTION_ID_MAX:
        raise RuleViolation(BAD_REQUEST, f"An action id is a string of at most {ACTION_ID_MAX} characters.")
    if expected_version is not None and expected_version != game.version:
        # Only the error path pays for telling a resent action from a stale one.
        if action_id and Move.objects.filter(game=game, actor=actor, action_id=action_id).exists():
            raise RuleViolation(REPEATED, "That action was already applied.")
        raise RuleViolation(
            STALE, f"The game has moved on: it is at version {game.version}, your action was for {expected_version}."
        )


def record(
    game: Game,
    *,
    kind: str,
    player_id: int | None,
    payload: dict[str, Any],
    actor: str,
    action_id: str,
    fields: tuple[str, ...] = (),
    rules: GameState | None = None,
    room: Room | None = None,
    score: ScoreEntry | None = None,
) -> Move:
    """Append the Move, save the Game row with the room the action made, and schedule the broadcast.

    ``room``: the room the action made (``games.domain.room``), if it changed anything of
    it; ``rules``: the game's new rules state, if the action changed it (in ``room`` too);
    ``score``: the box a score filled, written by the Move's statement (``moves.append``).
    The broadcast builds the room's state from it without decoding the snapshot again.
    What every action keeps right is worked out here, from the room about to be stored:
    the turn clock (``games.services.deadline``), whom the game waits for and the notice
    that move owes, written in the same transaction (``games.services.waiting``), when
    the room is next due, and the seats' Player rows (``games.store.players``).
    """
    before = game.room
    after = room if room is not None else before
    if rules is not None:
        after = after.with_rules(rules)
    after = deadline.note_action(game, after, kind=kind, player_id=player_id, action_id=action_id)
    after, changed = deadline.tick(game, after)
    if changed:  # the turn timer (games.services.clock)
        fields = (*fields, "turn_deadline")
    after, waits, owed = waiting.watch(
        game, after, kind=kind, player_id=player_id, payload=payload, actor=actor, action_id=action_id
    )
    fields = (*fields, *waits)
    game.room = after
    if payload.get("game_over") and not game.followups_owed:
        # What follows the end (records, stats, ratings) is owed from this very commit on,
        # and completed by the scheduler: a process that dies right after cannot lose it.
        game.followups_owed = True
        fields = (*fields, "followups_owed")
    due = deadline.next_due(game)
    if due != game.due_at:
        game.due_at = due
        fields = (*fields, "due_at")
    # An unlocked read (``act``) writes only if the row is still at the version it read.
    guard: int | None = getattr(game, "_read_version", None)
    game.version += 1
    try:
        move = moves.append(
            game,
            ("version", "snapshot", *fields),
            if_version=guard,
            seq=game.version,
            player_id=player_id,
            kind=kind,
            payload=payload,
            actor=actor,
            action_id=action_id,
            score=score,
        )
    except IntegrityError as exc:
        # Only the (game, actor, action_id) constraint means a resent action; under the row
        # lock a clash on seq cannot happen, and if it ever did it must not pass as one.
        if "unique_action_id" not in str(exc) and "action_id" not in str(exc):
            raise
        raise RuleViolation(REPEATED, "That action id was already used in this game.") from exc
    if guard is not None:
        # A second Move of the same action (``more_writes``) is guarded by the version just
        # written: the guarded write took the row's lock for the rest of the transaction.
        game._read_version = game.version  # type: ignore[attr-defined]
    # After the Game row's write, which took its lock (or stopped the action): the seats'
    # rows and a notice owed are written only by the action that applies.
    players.follow(game, before, after)
    if owed is not None:
        notices.owe(game, owed)
    if "status" in fields and game.status in Game.OVER:
        notices.ended(game, actor=actor, action_id=action_id)
    announcement = _Announcement(game, move, rules)
    # Only the announcements still to run: one undone with its savepoint is gone (below).
    pending = [ref for ref in _told.pending.get(game.code, ()) if ref() is not None]
    _told.pending[game.code] = [*pending, weakref.ref(announcement)]
    transaction.on_commit(announcement)
    return move


class _Announcement:
    """The announcement of one recorded Move, run when its transaction commits (``on_commit``)."""

    __slots__ = ("__weakref__", "game", "move", "rules")

    def __init__(self, game: Game, move: Move, rules: GameState | None) -> None:
        self.game, self.move, self.rules = game, move, rules

    def __call__(self) -> None:
        _announce(self, self.game, self.move, self.rules)


class _Told(threading.local):
    """A database thread's announcements of a room's moves not run yet, by reference only, and its
    moves committed and not yet announced: the commit's moves are announced once, with the last."""

    def __init__(self) -> None:
        self.pending: dict[str, list[weakref.ref[_Announcement]]] = {}
        self.earlier: dict[str, list[Move]] = {}


_told = _Told()


def _announce(announcement: _Announcement, game: Game, move: Move, rules: GameState | None) -> None:
    # Several moves in one transaction (a turn the timer plays: the timeout, a roll, the score, a
    # computer taking the seat) are announced once, with the final state and the moves before
    # the last as ``earlier``: one state frame that tells every line. The services that record
    # them may each read the room again (another Game object), so the last is the last
    # announcement still to run. A savepoint rolled back drops its announcements from the commit's
    # (Django's ``on_commit``), and nothing else holds them: their references are dead, and a move
    # committed before them is the last, which must not wait for an announcement that never runs.
    pending = _told.pending.get(game.code, [])
    mine = next((i for i, ref in enumerate(pending) if ref() is announcement), len(pending))
    if any(ref() is not None for ref in pending[mine + 1 :]):
        _told.earlier.setdefault(game.code, []).append(move)
        return
    _told.pending.pop(game.code, None)
    if game.version != move.seq:
        # The Game object went on to a write its savepoint undid: its version and room are not the
        # committed ones, which are read again (the rules state with them), if the room is still there.
        committed = Game.objects.filter(pk=game.pk).first()
        if committed is None:
            return
        game, rules = committed, None
    # Only the moves just before it, of the same commit: none a rolled-back transaction left behind.
    earlier: list[Move] = []
    for kept in reversed(_told.earlier.pop(game.code, ())):
        if kept.seq != move.seq - len(earlier) - 1:
            break
        earlier.insert(0, kept)
    event = events.Committed(
        code=game.code,
        version=game.version,
        kind=move.kind,
        due_at=game.due_at,
        followups_owed=game.followups_owed,
        game=game,
        move=move,
        rules=rules,
        earlier=tuple(earlier),
    )
    events.committed(event)


# Each counted thing's refusal once a game used it up: its code and what the server says.
USED_UP: dict[str, tuple[str, str]] = {
    "joins": (
        E.JOINS_USED_UP,
        f"Seats in this room were taken {LIMITS['joins']} times before the start, as often as one game allows:"
        " no more can be taken.",
    ),
    "pauses": (E.PAUSES_USED_UP, f"This game was paused {LIMITS['pauses']} times, as often as one game allows."),
    "mutes": (
        E.MUTES_USED_UP,
        f"The host muted chat in this game {LIMITS['mutes']} times, as often as one game allows.",
    ),
    "handovers": (
        E.HANDOVERS_USED_UP,
        f"Seats in this game were handed to a computer {LIMITS['handovers']} times, as often as one game allows.",
    ),
    "rematches": (
        E.REMATCHES_USED_UP,
        f"This game had {LIMITS['rematches']} rematches, as many as one game allows: open a new room.",
    ),
}


def counted(room: Room, what: str) -> Room:
    """``room`` with one more ``what`` (a field of ``games.domain.room.Tally``) done, or its
    ``USED_UP`` refusal once it was done ``LIMITS[what]`` times in this game.

    Each is a Move the log keeps for ever, which the replay and the admin's review read back: a
    loop at the frames' rate limit would otherwise grow it without end. Counted in the room's
    snapshot, which the action writes anyway: no read of the log.
    """
    if room.done(what) >= LIMITS[what]:
        raise RuleViolation(*USED_UP[what])
    return room.counted(what)


def rules_state(game: Game) -> GameState:
    rules = game.room.rules
    if rules is None:
        raise RuleViolation(E.GAME_NOT_STARTED, "The game has not started yet.")
    return rules


def acting_seat(game: Game, controller: str) -> tuple[GameState, int]:
    """The rules state and the current seat, if ``controller`` may act for it."""
    if game.status == Game.Status.LOBBY:
        raise RuleViolation(E.GAME_NOT_STARTED, "The game has not started yet.")
    if game.status != Game.Status.PLAYING:
        raise RuleViolation(E.GAME_OVER, "The game is over.")
    room = game.room
    if not room.plays(controller):
        raise RuleViolation(NOT_A_PLAYER, "You are watching this game: only seated players can act.")
    if room.paused:
        raise paused(game, controller)
    state = rules_state(game)
    if not room.controls_current(controller):
        raise RuleViolation(E.NOT_YOUR_TURN, f"It is {room.seats[state.current].name}'s turn.")
    return state, state.current


class HostResumes(RuleViolation):
    """``host_to_resume``: the game waits for the resume of a host who did not pause it (the host who
    paused left, or the role passed on); ``host``, their seat's name, which a page words it with."""

    def __init__(self, host: str) -> None:
        super().__init__(
            E.HOST_TO_RESUME, f"The game is paused: play goes on when {isolated(host)}, the host, resumes it."
        )
        self.host = host


def paused(game: Game, controller: str) -> RuleViolation:
    """The refusal of an action that waits for the resume, in words about its reader: the host's
    (a page drawn before their pause, another tab's) is theirs to resume. A player handed the host
    during the pause (the host left the game) did not pause it, but resumes it: they are told the
    game waits for them (``yours_to_resume``). The others read it of the host: that the host paused
    it, or, the host being another than the one who paused, that it goes on when the host, by name,
    resumes it (``host_to_resume``)."""
    room = game.room
    host = room.seat_of_player(game.host_id)
    by = pauser(game, room)
    if host is not None and room.seats[host].controlled_by(controller):
        if by == game.host_id:
            return RuleViolation(E.YOU_PAUSED, "You paused the game: play goes on when you resume it.")
        return RuleViolation(E.YOURS_TO_RESUME, "The game is paused: play goes on when you resume it.")
    if host is not None and by is not None and by != game.host_id:
        return HostResumes(room.seats[host].name)
    return RuleViolation(E.PAUSED, "The host has paused the game: play goes on when they resume it.")


def present(game: Game, seat: int) -> bool:
    """Whether a socket that plays ``seat`` is connected to the room (from any process): the seat the
    room's presence shows as connected, not away."""
    return any(seat in seats for seats in connected_seats(game))


def require_host(game: Game, controller: str, *, takeover: bool = False) -> None:
    """Let ``controller`` use a host's tool, or refuse (``not_host``).

    ``takeover``: a tool that gets a stuck game moving (start, resume, a computer for an away
    seat or taking it out). While the host is away (no socket plays their seat: the room shows
    it away), a player at the table who asks for such a tool becomes the host first, a
    ``host`` Move in the same transaction as the tool's (so a tool refused after this hands
    nothing on): otherwise a host who closed the tab or lost their phone would leave a paused
    game, their own turn or a lobby stuck for good. The other tools (kick, add a computer,
    pause, mute) stay the host's: they move nothing on, and in other hands they would turn the
    room against its host. A muted player is not handed the role (the host's seat cannot be
    muted, so their mute would go), as the rematch and the host leaving refuse them too.

    In a live game the host must have been away for ``presence.host_away()`` seconds, the wait the page
    shows, so a reload or a phone waking up is not an opening. At your own pace, where nobody
    need be online, the role changes as soon as someone asks. Nothing hands the role on for the
    host's socket going alone. The host who comes back plays on as one of the players.
    """
    room = game.room
    host = room.seat_of_player(game.host_id)
    if host is not None and room.seats[host].controlled_by(controller):
        return
    mine = [index for index in room.seats_of(controller) if not room.seats[index].muted]
    if not takeover or not mine:
        raise RuleViolation(NOT_HOST, "Only the host can do that.")
    if host is not None:
        entry = room.seats[host]
        person = entry.persons_controller
        if present(game, host) or (game.pace != Game.Pace.OWN and presence.left_lately(game, person)):
            raise RuleViolation(NOT_HOST, "Only the host can do that.")
    seat = room.seats[mine[0]]
    room = pause_named(game, room)
    game.host_id = seat.player
    record(
        game,
        kind=Move.Kind.HOST,
        player_id=seat.player,
        payload={"seat": mine[0], "name": seat.name, "from": host, "away": True},
        actor=controller,
        action_id="",
        fields=("host",),
        room=room,
    )


def pause_named(game: Game, room: Room) -> Room:
    """``room`` as the host role is about to pass on: a pause it is in names whose it is, so that the
    next host, who did not pause it, is told the resume is theirs (``paused``, ``game_state``'s
    ``paused_by``). A room paused before it kept that reads it from its log, once."""
    if not room.paused or room.paused_by is not None:
        return room
    return room.change(paused_by=pauser(game, room))


def hand_host_on(game: Game, room: Room, here: frozenset[str] = frozenset()) -> Seat | None:
    """After the host left: an active human seat of ``room`` becomes host, first one whose browser is
    at the table (``here``: the controllers of the room's connected sockets), so the host's tools go
    to someone who can use them; else the first whose person a computer plays for while they are away
    (host again when they are back); None if none."""
    humans = [seat for seat in room.seats if seat.active and seat.human]
    for seat in [s for s in humans if s.controller in here] + humans:
        game.host_id = seat.player
        return seat
    for seat in room.seats:
        if seat.active and seat.away_controller:
            game.host_id = seat.player
            return seat
    game.host_id = None
    return None

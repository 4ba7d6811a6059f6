"""The scheduler's database side: claim a due room, apply what is due, beat.

Each function is synchronous and runs in a database thread (games.realtime.threads).
"""

from __future__ import annotations

import hashlib
import logging
import socket
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Literal

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection, transaction
from django.db.models import F, Q, QuerySet
from django.db.models.functions import Now
from django.utils import timezone

from games.domain.rules import RuleViolation
from games.scheduling import botplay
from games.services import clock_expire, clock_outage, clock_set_back, notices, signals, sweeps
from games.services.deadline import bot_to_play, next_due, running
from games.store import moves
from games.store.models import Game, Heartbeat

log = logging.getLogger(__name__)

Outcome = Literal["applied", "nothing", "followups"]
APPLIED: Outcome = "applied"
NOTHING: Outcome = "nothing"
FOLLOWUPS: Outcome = "followups"

# A room whose due work did nothing (a computer player's table not ready yet, a clock
# a little ahead of this one) is looked at again no sooner than this.
RETRY = timedelta(seconds=1)
# A room whose due work the services refused (an error), no sooner than this.
REFUSED_RETRY = timedelta(seconds=60)
# While one process completes a finished game's follow-ups (tenths of a second), the others
# leave it alone for this long; if that process dies, another takes it over after it. Two
# that overlap do no harm (the receivers are idempotent), so the lease is short.
FOLLOWUPS_LEASE = timedelta(seconds=10)
# A room whose due work fails again and again (a receiver of ``game_finished`` that keeps raising,
# a state that will not load) waits twice as long after each failure in a row, up to this. The
# count is stored with the room (``Game.due_failures``), so a restart keeps the wait.
BACKOFF_MAX = timedelta(hours=1)
BEAT = "scheduler"
SWEPT = "sweeps"  # the Heartbeat row of when the sweeps (games.services.sweeps) last ran
ALIVE = "sweeper:"  # and, followed by its host's name, of when a scheduler that sweeps last completed a round
ALIVE_KEPT = timedelta(days=1)
# PostgreSQL's SQLSTATEs, among the OperationalErrors, of one statement refused with the connection
# still fine: a deadlock or a serialization failure (class 40), a statement timeout (57014) or a
# lock timeout (55P03). A room whose work meets one every time is that room's failure: failing the
# whole claim or beat for it would meet it again first thing, and no other room would move on.
ONE_STATEMENT = ("40", "57014", "55P03")


def away(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot be reached now (an InterfaceError, or an
    OperationalError but for ``ONE_STATEMENT``'s), rather than that it refused one room's
    statement: the work is rolled back whole and tried again when it answers."""
    if isinstance(exc, InterfaceError):
        return True
    if not isinstance(exc, OperationalError):
        return False
    state = getattr(exc.__cause__, "sqlstate", None) or getattr(exc.__cause__, "pgcode", None)
    return not (isinstance(state, str) and state.startswith(ONE_STATEMENT))


def backoff(failures: int, first: timedelta) -> timedelta:
    """How long a room whose due work failed ``failures`` times in a row waits before the next try:
    ``first``, twice as long after each failure in a row, at most ``BACKOFF_MAX``."""
    doublings: int = min(max(failures - 1, 0), 20)
    return min(first * (1 << doublings), BACKOFF_MAX)


def _claim(rooms: QuerySet[Game], now: datetime) -> tuple[str, Outcome] | Game | None:
    """The first due room of ``rooms``, locked for this transaction (skipping rooms another holds).

    A row that is read but will not load (a value this code cannot decode) is that room's failure:
    it is backed off like any other (``_failed``) and its code returned with NOTHING, since raising
    would claim it first again at every sweep, ahead of every other room.
    """
    due = rooms.filter(due_at__lte=now).order_by("due_at")
    if connection.features.has_select_for_update_skip_locked:
        due = due.select_for_update(skip_locked=True)
    try:
        return due.first()
    except DatabaseError:
        raise  # the query itself, not one room's row: the claim fails and is tried again
    except Exception:
        row = due.values_list("pk", "code", "due_failures").first()
        if row is None:
            raise
        pk, code, failures = row
        log.exception("room %s could not be loaded for its due work", code)
        _failed(code, Game.objects.filter(pk=pk), failures, now, REFUSED_RETRY)
        return code, NOTHING


def apply_due(code: str) -> Outcome:
    """Apply what is due for the room ``code``, if it is due and no other process holds it."""
    with transaction.atomic():
        now = timezone.now()
        game = _claim(Game.objects.filter(code=code), now)
        if game is None or isinstance(game, tuple):
            return NOTHING
        return _apply(game, now)


def claim_next(*, followups: bool = True) -> tuple[str, Outcome] | None:
    """Claim and apply the room that has been due longest; None when nothing is due.

    ``followups=False`` leaves the finished games' follow-ups alone: a caller that could not start
    them within their lease takes none (another process, or this one later, leases them then).
    """
    rooms = Game.objects.all() if followups else Game.objects.filter(followups_owed=False)
    with transaction.atomic():
        now = timezone.now()
        game = _claim(rooms, now)
        if game is None or isinstance(game, tuple):
            return game
        return game.code, _apply(game, now)


def _failed(code: str, rows: QuerySet[Game], failures: int, now: datetime, first: timedelta) -> None:
    """Count one more failure in a row of the room's due work, and look at it again after the backoff."""
    failures += 1
    _update(code, rows, due_at=now + backoff(failures, first), due_failures=failures)


def _apply(game: Game, now: datetime) -> Outcome:
    """Under the claim: a computer player's step or the timeout; the follow-ups are leased to the caller."""
    if game.followups_owed:
        _update(game.code, Game.objects.filter(pk=game.pk), due_at=now + FOLLOWUPS_LEASE)
        return FOLLOWUPS
    version = game.version
    done = refused = False
    try:
        # In a savepoint: whatever fails is rolled back to the claim, which stays usable.
        with transaction.atomic():
            if bot_to_play(game):
                done = botplay.step(game.code, version) is True  # None: its table is not ready, it waits
            elif game.turn_deadline is not None and running(game) and game.turn_deadline <= now:
                done = clock_expire(code=game.code, version=version)
    except RuleViolation as exc:
        # A room whose due work the services refuse is looked at again later, so that it never
        # holds up the sweep of every other room.
        log.error("the due work of room %s was refused (%s): %s", game.code, exc.code, exc.message)
        refused = True
    except Exception as exc:
        if away(exc):
            raise  # the claim is rolled back; the sweep tries again when the database answers
        # A failure of the room's own work (a computer player's table that will not load, a
        # statement the database refuses): the same, so that one room never stops the sweep of
        # all the others, which would claim it first again, as the room due longest.
        log.exception("the due work of room %s failed", game.code)
        refused = True
    if done:
        if game.due_failures:  # the actions recorded the room's next due time; the failures in a row end
            # Not through ``_update``: this process's copy of the row as the action just wrote it
            # (moves.remembered) keeps the old count, but no action reads or writes that column, and
            # its version is still the stored one, so the next action may start from it.
            Game.objects.filter(pk=game.pk).update(due_failures=0)
        return APPLIED
    rows = Game.objects.filter(pk=game.pk, version=version)
    if refused:
        # Its next due time is not worked out from its state: what failed may be reading it.
        _failed(game.code, rows, game.due_failures, now, REFUSED_RETRY)
        return NOTHING
    later = next_due(game, now)
    if later is not None and later <= now:
        later = now + RETRY
    _update(game.code, rows, due_at=later, due_failures=0)
    return NOTHING


def _update(code: str, rows: QuerySet[Game], **columns: Any) -> None:
    """Update the scheduler's own columns of a room, which its actions' next write starts from.

    They are written without a new version, so this process's copy of the row as it last
    wrote it (``games.store.moves.remembered``) is dropped: the next action reads the row.
    """
    rows.update(**columns)
    moves.forget(code)
    transaction.on_commit(lambda: moves.forget(code))  # and a copy another thread kept meanwhile


def due_at(code: str) -> datetime | None:
    """When the room ``code`` is next due (None: nothing is, or no such room)."""
    return Game.objects.filter(code=code).values_list("due_at", flat=True).first()


def run_followups(code: str) -> bool:
    """Complete what follows a finished game: every ``game_finished`` receiver, then mark it done.

    The receivers are idempotent (the accounts app counts a game once: CountedGame), so a
    process that dies half-way, or two that overlap, leave the game counted exactly once.
    A receiver that fails leaves the work owed, tried again after the lease, then after twice as
    long at each failure in a row (``backoff``).
    """
    game = Game.objects.filter(code=code, followups_owed=True).first()
    if game is None:
        return False
    failed = False
    for receiver, result in signals.game_finished.send_robust(sender=Game, game=game):
        if isinstance(result, Exception):
            if away(result):
                # The database away is the outage the scheduler logs once, not a traceback per
                # receiver and game; nothing can be marked now, and the lease tries it again.
                raise result
            failed = True
            log.error("game_finished receiver %r failed for %s", receiver, code, exc_info=result)
    if failed:
        _failed(
            code,
            Game.objects.filter(pk=game.pk, followups_owed=True),
            game.due_failures,
            timezone.now(),
            FOLLOWUPS_LEASE,
        )
        return False
    _update(
        code, Game.objects.filter(pk=game.pk, followups_owed=True), followups_owed=False, due_at=None, due_failures=0
    )
    return True


def alive_name() -> str:
    """The Heartbeat row of this host's sweeping scheduler: a container's health check, run on the
    same host (its hostname), reads it (``manage.py scheduler_health``).

    A name longer than the row's 32 characters is a hash of it: replicas are named alike but for
    their last characters (a Kubernetes pod's), and cutting the name would give them one row.
    """
    name = f"{ALIVE}{socket.gethostname()}"
    size = Heartbeat._meta.get_field("name").max_length or 32
    if len(name) <= size:
        return name
    return f"{ALIVE}{hashlib.sha256(name.encode()).hexdigest()}"[:size]


def alive(name: str) -> None:
    """Show that the scheduler that sweeps on this host completed a round, by the database's clock."""
    if Heartbeat.objects.filter(name=name).update(at=Now()):
        return
    # A new host (a container made again has a new name): the rows of hosts gone for a day go.
    Heartbeat.objects.filter(name__startswith=ALIVE, at__lt=Now() - ALIVE_KEPT).delete()
    Heartbeat.objects.update_or_create(name=name, defaults={"at": Now()})


def alive_age(name: str | None = None) -> timedelta | None:
    """How long ago this host's scheduler that sweeps last completed a round (None: never)."""
    row = Heartbeat.objects.filter(name=name or alive_name()).annotate(clock=Now()).values_list("at", "clock").first()
    return None if row is None else row[1] - row[0]


def outage_after() -> timedelta:
    """A gap between two beats longer than this is an outage: ``SCHEDULER_OUTAGE``, and never less than
    two sweeps apart (``SCHEDULER_POLL``), since a process that is up beats once a sweep, a sweep later
    than its last one took."""
    return timedelta(seconds=max(settings.SCHEDULER_OUTAGE, 2 * settings.SCHEDULER_POLL))


def beat(now: datetime | None = None) -> timedelta | None:
    """Show this process is up; after a gap in which none was, move running deadlines on by it.

    Beats are timed by the database's clock (``now`` stands in for it), the one clock all the
    site's processes share: two processes whose own clocks differ do not take the time between
    their beats for an outage. Returns the outage the deadlines were moved on by, if there was
    one. A turn whose deadline would have passed while nobody could reach the room gets that
    time back, and its page shows the new deadline when it reconnects.

    A beat earlier than the last by more than that is the clock set back (the database's clock
    is the server's own on a single host: one that ran fast stepped by NTP, a virtual machine
    restored): the deadlines set by the clock before move back with it, and that negative gap is
    returned. Otherwise each running turn would be that much longer.

    The gap is measured from the end of the last beat's work: moving many deadlines takes a
    while, during which the beat holds the heartbeat's row, and that time is no outage.
    """
    limit = outage_after()
    timed_here = now is None
    with transaction.atomic():
        last = Heartbeat.objects.select_for_update().filter(name=BEAT).values_list("at", flat=True).first()
        if last is None:
            Heartbeat.objects.create(name=BEAT, at=now or Now())
            return None
        # Read once the row is held: a beat that waited for another's lock is timed when it got it.
        now = now or _database_now()
        gap = now - last
        if -limit <= gap <= limit:
            Heartbeat.objects.filter(name=BEAT).update(at=now)
            return None
        # Only deadlines after the last beat: those the outage cut short, or those set by the clock
        # before it was set back (one set since, a turn shorter than the step, is earlier). Each
        # through the service, which logs it and moves the room's version on: the pages still
        # open are told, and every worker's kept copy of the row is read again.
        codes = list(
            Game.objects.filter(
                status=Game.Status.PLAYING, turn_deadline__isnull=False, turn_deadline__gt=last
            ).values_list("code", flat=True)
        )
        if gap > limit:
            count = _each_room(codes, lambda code: clock_outage(code=code, gap=gap, since=last))
            log.warning(
                "no process was up for %.1f s: %d running turn deadlines moved on by it", gap.total_seconds(), count
            )
        else:
            # What else was set for a time by the clock before moves back too: a computer's next step
            # or a finished game's follow-ups (no deadline runs then) and the notices owed.
            rooms = _set_back_due(-gap, since=last)
            count = _each_room(codes, lambda code: clock_set_back(code=code, step=-gap, since=last))
            owed = notices.set_back(-gap, since=last)
            log.warning(
                "the clock was set back %.1f s: %d running turn deadlines moved back with it, keeping the time "
                "left, and %d rooms' next due work and %d notices",
                -gap.total_seconds(),
                count,
                rooms,
                owed,
            )
        # The beat's time as its work ends (a ``now`` given stands for a clock that did not move meanwhile).
        Heartbeat.objects.filter(name=BEAT).update(at=Now() if timed_here else now)
        return gap


def _each_room(codes: list[str], move: Callable[[str], bool]) -> int:
    """Move each room's deadline (``move``), each in a savepoint of the beat's transaction: how many moved.

    A room whose move fails (a write the database refuses, a snapshot that will not load) is
    logged and left as it was. Failing the beat for it would see the same gap at every beat and
    fail again, and every process beats before it claims: no room of the site would be played
    again. A statement timeout or a deadlock is such a failure too; the database itself away
    (``away``) still fails the beat, which is tried again whole.
    """
    count = 0
    for code in codes:
        try:
            with transaction.atomic():
                count += bool(move(code))
        except Exception as exc:
            if away(exc):
                raise
            log.exception("the deadline of room %s could not be moved with the clock; left as it was", code)
    return count


def _set_back_due(step: timedelta, since: datetime) -> int:
    """The rooms due after ``since``, on a clock since set back by ``step``: due that much earlier.

    A room whose deadline moves back too (``clock_set_back``) is given its due time again by it.
    """
    later = Game.objects.filter(due_at__gt=since)
    codes = list(later.values_list("code", flat=True))
    later.filter(code__in=codes).update(due_at=F("due_at") - step)
    _forget(codes)  # as ``_update`` does
    transaction.on_commit(lambda: _forget(codes))
    return len(codes)


def _forget(codes: list[str]) -> None:
    for code in codes:
        moves.forget(code)


def _database_now() -> datetime:
    """The database's clock now (PostgreSQL's statement time, not its transaction's)."""
    return Heartbeat.objects.filter(name=BEAT).annotate(clock=Now()).values_list("clock", flat=True).get()


def sweep_if_due(now: datetime | None = None) -> dict[str, dict[str, int]] | None:
    """Run the sweeps (games.services.sweeps) if no process has for ``SWEEP_EVERY`` seconds; None if one has.

    The round is claimed with one conditional update of its Heartbeat row, which only one process
    can make: another that tries at the same moment (PostgreSQL lets it wait for the first, then
    finds the row moved on; SQLite takes one writer at a time) runs nothing. The sweeps then run
    in transactions of their own, so no lock is held on the row meanwhile.
    """
    timed_here = now is None
    now = now or timezone.now()
    every = timedelta(seconds=settings.SWEEP_EVERY)
    last = now - every
    with transaction.atomic():
        Heartbeat.objects.get_or_create(name=SWEPT, defaults={"at": last})
        # A round stamped further ahead than a round's length was claimed by a clock that was
        # fast (set right since): waiting for it to catch up would stop the sweeps for as long.
        # Clocks of the site's processes a little apart still take turns once a round.
        due = Q(at__lte=last) | Q(at__gt=now + every)
        claimed = Heartbeat.objects.filter(due, name=SWEPT).update(at=now)
    if not claimed:
        return None
    # What is old enough to go is judged by the sweeps' own clock (a fast one here sweeps nothing early).
    return sweeps.sweep(None if timed_here else now)

"""The scheduler through failures: a room that keeps failing waits longer each time, one room's
statement the database refuses is that room's alone, an outage is told once, and the scheduler
that sweeps shows it is alive."""

from __future__ import annotations

import asyncio
import logging
import random
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import OperationalError, connection
from django.utils import timezone

from games import scheduling, services
from games.scheduling import runner, work
from games.services import signals
from games.store import moves
from games.store.models import Game, Heartbeat
from tests.factories import open_room, play_to_end, timed_room
from tests.waiting import wait_until

pytestmark = pytest.mark.django_db


def due_now(code: str) -> None:
    past = timezone.now() - timedelta(seconds=1)
    game = Game.objects.get(code=code)
    Game.objects.filter(code=code).update(due_at=past, turn_deadline=past if game.turn_deadline is not None else None)


def waits(code: str) -> float:
    """Seconds until the room is next due."""
    return (Game.objects.filter(code=code).values_list("due_at", flat=True).get() - timezone.now()).total_seconds()


def two_due_rooms() -> tuple[Any, Any]:
    stuck, other = timed_room(seconds=30), timed_room(seconds=30)
    due_now(stuck.code)
    later = timezone.now() - timedelta(milliseconds=500)
    Game.objects.filter(code=other.code).update(due_at=later, turn_deadline=later)
    return stuck, other


class Cause(Exception):
    """A driver's error as psycopg raises it, with its SQLSTATE."""

    def __init__(self, message: str, sqlstate: str) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


def database_error(message: str, sqlstate: str) -> OperationalError:
    error = OperationalError(message)
    error.__cause__ = Cause(message, sqlstate)
    return error


def one_outage_and_its_return(caplog: pytest.LogCaptureFixture, said: str = "cannot reach the database") -> None:
    """The scheduler's log says the database away once (an error naming ``said``) and its return once
    (a warning), each a line, no traceback."""
    records = [r for r in caplog.records if r.name.startswith("games.scheduling")]
    assert [r.levelno for r in records] == [logging.ERROR, logging.WARNING], [r.getMessage() for r in records]
    assert said in records[0].getMessage()
    assert "reaches the database again" in records[1].getMessage()
    assert all(r.exc_info is None for r in records)


# -- 1. backoff ------------------------------------------------------------------------------


def test_a_receiver_that_keeps_failing_is_tried_again_later_each_time_even_after_a_restart(settings) -> None:
    """A game_finished receiver that raised was tried again every 10 s for ever."""
    settings.FOLLOWUPS_INLINE = False
    broken = True

    def receiver(sender: object, game: Game, **kwargs: object) -> None:
        if broken:
            raise RuntimeError("the ratings cannot be written")

    signals.game_finished.connect(receiver, dispatch_uid="test-backoff")
    try:
        table = open_room(2)
        play_to_end(table, random.Random(6))
        seen = []
        for _ in range(4):
            assert scheduling.run_followups(table.code) is False
            seen.append(waits(table.code))
        # 10, 20, 40, 80 s: each from the count stored with the room (what a restarted process reads).
        for wait, expected in zip(seen, (10, 20, 40, 80), strict=True):
            assert expected - 2 < wait <= expected
        assert Game.objects.get(code=table.code).due_failures == 4
        Game.objects.filter(code=table.code).update(due_failures=40)
        assert scheduling.run_followups(table.code) is False
        assert 3590 < waits(table.code) <= 3600  # at most an hour
        broken = False
        assert scheduling.run_followups(table.code) is True
        game = Game.objects.get(code=table.code)
        assert not game.followups_owed and game.due_at is None and game.due_failures == 0
    finally:
        signals.game_finished.disconnect(dispatch_uid="test-backoff")


def test_a_receiver_that_meets_the_database_away_leaves_it_to_the_outages_log(settings, caplog) -> None:
    """A game_finished receiver cut short by the database away was logged with a traceback for each
    receiver and game, and counted as the room's failure; it is the outage the scheduler logs once
    (its caller's ``work.away``), and the room keeps its count."""
    settings.FOLLOWUPS_INLINE = False

    def receiver(sender: object, game: Game, **kwargs: object) -> None:
        raise database_error("server closed the connection unexpectedly", "08006")

    signals.game_finished.connect(receiver, dispatch_uid="test-away")
    try:
        table = open_room(2)
        play_to_end(table, random.Random(7))
        caplog.set_level(logging.INFO, logger="games.scheduling")
        with pytest.raises(OperationalError) as raised:
            scheduling.run_followups(table.code)
        assert work.away(raised.value)
        assert [r for r in caplog.records if r.name.startswith("games.scheduling")] == []
        game = Game.objects.get(code=table.code)
        assert game.followups_owed and game.due_failures == 0
    finally:
        signals.game_finished.disconnect(dispatch_uid="test-away")


def test_a_last_move_whose_inline_follow_ups_meet_the_database_away_still_ends_the_game(
    settings, caplog, django_capture_on_commit_callbacks
) -> None:
    """Where the follow-ups run in the committing thread (FOLLOWUPS_INLINE), the database away in
    one of them does not fail the move already committed nor log a traceback of the project's: they
    stay owed for a scheduler, and one line says so."""
    settings.FOLLOWUPS_INLINE = True
    caplog.set_level(logging.INFO)

    def receiver(sender: object, game: Game, **kwargs: object) -> None:
        raise database_error("server closed the connection unexpectedly", "08006")

    signals.game_finished.connect(receiver, dispatch_uid="test-away-inline")
    try:
        table = open_room(2)
        with django_capture_on_commit_callbacks(execute=True):
            play_to_end(table, random.Random(8))
        game = Game.objects.get(code=table.code)
        assert game.status == Game.Status.FINISHED and game.followups_owed
        # (Django's send_robust logs each receiver's error itself, under django.dispatch.)
        assert [r for r in caplog.records if r.exc_info and r.name.startswith("games")] == []
        assert [r.getMessage() for r in caplog.records if "wait for the database" in r.getMessage()]
    finally:
        signals.game_finished.disconnect(dispatch_uid="test-away-inline")


def test_a_room_whose_due_work_keeps_being_refused_waits_longer_each_time(monkeypatch) -> None:
    stuck, other = two_due_rooms()
    real = work.clock_expire
    refusing = True

    def clock_expire(*, code: str, version: int) -> bool:
        if code == stuck.code and refusing:
            raise RuntimeError("this room's work fails")
        return real(code=code, version=version)

    monkeypatch.setattr(work, "clock_expire", clock_expire)
    seen = []
    for _ in range(3):
        due_now(stuck.code)
        assert scheduling.claim_next() == (stuck.code, scheduling.NOTHING)
        seen.append(waits(stuck.code))
    for wait, expected in zip(seen, (60, 120, 240), strict=True):
        assert expected - 2 < wait <= expected
    assert scheduling.claim_next() == (other.code, scheduling.APPLIED)
    refusing = False
    due_now(stuck.code)
    assert scheduling.claim_next() == (stuck.code, scheduling.APPLIED)
    assert Game.objects.get(code=stuck.code).due_failures == 0


@pytest.mark.django_db(transaction=True)
def test_the_failures_set_back_to_0_stay_0_through_the_next_action_on_the_row_this_process_kept(
    monkeypatch,
) -> None:
    """The count is set back to 0 without a new version and without dropping this process's copy
    of the row as the timeout wrote it (games.store.moves.remembered), which still holds the old
    count. The next action starts from that copy: its version is the stored one, so the action's
    guarded write goes through, and an action writes only the columns it changed, never the count."""
    table = timed_room(seconds=30)
    real = work.clock_expire
    refusing = True

    def clock_expire(*, code: str, version: int) -> bool:
        if refusing:
            raise RuntimeError("this room's work fails")
        return real(code=code, version=version)

    monkeypatch.setattr(work, "clock_expire", clock_expire)
    for _ in range(2):
        due_now(table.code)
        assert scheduling.claim_next() == (table.code, scheduling.NOTHING)
    assert Game.objects.get(code=table.code).due_failures == 2
    refusing = False
    due_now(table.code)
    assert scheduling.claim_next() == (table.code, scheduling.APPLIED)
    assert Game.objects.get(code=table.code).due_failures == 0
    kept = moves.remembered(table.code)
    assert kept is not None and kept.version == table.version()

    conflicts: list[str] = []
    append = moves.append

    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return append(*args, **kwargs)
        except moves.Conflict as exc:
            conflicts.append(str(exc))
            raise

    monkeypatch.setattr(moves, "append", guarded)
    services.turn_roll(code=table.code, controller=table.current(), expected_version=table.version(), action_id="r1")
    assert conflicts == []
    assert Game.objects.get(code=table.code).due_failures == 0
    # A failure after it is the first in a row again: a minute's wait, not four.
    refusing = True
    due_now(table.code)
    assert scheduling.claim_next() == (table.code, scheduling.NOTHING)
    assert Game.objects.get(code=table.code).due_failures == 1
    assert 58 < waits(table.code) <= 60


def test_a_claim_that_takes_no_follow_ups_leaves_them_for_later(settings) -> None:
    settings.FOLLOWUPS_INLINE = False
    finished = open_room(2)
    play_to_end(finished, random.Random(5))
    Game.objects.filter(code=finished.code).update(due_at=timezone.now() - timedelta(seconds=5))
    timed = timed_room(seconds=30)
    due_now(timed.code)
    assert scheduling.claim_next(followups=False) == (timed.code, scheduling.APPLIED)
    assert scheduling.claim_next(followups=False) is None
    assert waits(finished.code) < 0  # not leased
    assert scheduling.claim_next() == (finished.code, scheduling.FOLLOWUPS)


def quiet_database(monkeypatch) -> None:
    """The runner's database calls that are not under test, as a database that answers at once."""
    monkeypatch.setattr(work, "beat", lambda now=None: None)
    monkeypatch.setattr(work, "alive", lambda name: None)
    monkeypatch.setattr(work, "sweep_if_due", lambda now=None: None)


@pytest.mark.asyncio
async def test_a_backlog_of_finished_games_leases_no_more_than_it_can_complete_in_time(settings, monkeypatch) -> None:
    """A backlog of finished games: each sweep leased 50 of them for 10 s, to be completed one at a
    time at tenths of a second each; the leases ran out before their turn, and were taken again."""
    settings.SCHEDULER_POLL = 0.01
    quiet_database(monkeypatch)
    leased: list[str] = []
    others: list[bool] = []

    def claim_next(*, followups: bool = True) -> tuple[str, work.Outcome] | None:
        if not followups:
            others.append(True)
            return None
        leased.append(f"game{len(leased)}")
        return leased[-1], work.FOLLOWUPS

    release = asyncio.Event()

    async def follow(self: runner.Scheduler, code: str) -> None:
        try:
            await release.wait()
        finally:
            self._following.discard(code)

    monkeypatch.setattr(work, "claim_next", claim_next)
    monkeypatch.setattr(runner.Scheduler, "_follow", follow)
    scheduler = scheduling.start("all")
    assert scheduler is not None
    try:
        await wait_until(
            lambda: len(others) >= 3 or len(leased) > runner.BATCH, "three rounds, or more leases than a batch"
        )
        assert len(leased) == runner.FOLLOWUPS_AT_ONCE
        release.set()
        await wait_until(lambda: len(leased) > runner.FOLLOWUPS_AT_ONCE, "a lease once the follow-ups were done")
    finally:
        release.set()
        await scheduling.stop()


# -- 2. the database away ------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_database_away_is_logged_once_and_its_return_once(settings, monkeypatch, caplog) -> None:
    """Every poll logged a full traceback while the database was away."""
    settings.SCHEDULER_POLL = 0.01
    quiet_database(monkeypatch)
    beats: list[int] = []

    def beat(now: object = None) -> None:
        beats.append(1)
        if len(beats) <= 30:
            raise database_error('connection to server at "db" failed: Connection refused', "08006")

    monkeypatch.setattr(work, "beat", beat)
    monkeypatch.setattr(work, "claim_next", lambda *, followups=True: None)
    caplog.set_level(logging.INFO, logger="games.scheduling")
    scheduling.start("all")
    try:
        await wait_until(lambda: len(beats) > 32, "the beats after the database's return")
    finally:
        await scheduling.stop()
    one_outage_and_its_return(caplog, "Connection refused")


@pytest.mark.parametrize("kind", ["all", "local", "timers only"])
@pytest.mark.asyncio
async def test_every_kind_of_scheduler_logs_the_database_away_once_and_its_return_once(
    kind, settings, monkeypatch, caplog
) -> None:
    """A scheduler of timers only (made on an event loop where none was started: no sweep, no beat)
    logged the database away when a room's timer met it, and never that it answered again."""
    settings.SCHEDULER_POLL = 0.01
    quiet_database(monkeypatch)
    down = [True]
    tries: list[bool] = []
    beats: list[bool] = []  # whether the database was away at each of the loop's beats

    def answer() -> None:
        if down[0]:
            raise database_error('connection to server at "db" failed: Connection refused', "08006")

    def beat(now: object = None) -> None:
        beats.append(down[0])
        answer()

    def apply_due(code: str) -> str:
        try:
            answer()
        finally:
            tries.append(down[0])
        return work.APPLIED

    monkeypatch.setattr(work, "beat", beat)
    monkeypatch.setattr(work, "apply_due", apply_due)
    monkeypatch.setattr(work, "claim_next", lambda *, followups=True: None)
    caplog.set_level(logging.INFO, logger="games.scheduling")
    if kind == "timers only":
        scheduler = runner.Scheduler(asyncio.get_running_loop(), sweep=False, poll=settings.SCHEDULER_POLL)
    else:
        started = scheduling.start(kind)
        assert started is not None
        scheduler = started
    try:
        for count in range(1, 6):  # a room's timer fires five times while the database is away
            scheduler.wake("ROOM", timezone.now())
            await wait_until(lambda count=count: len(tries) >= count, f"timer pass {count}")
        looping = kind != "timers only"  # the schedulers with a loop beat at each poll
        if looping:  # and a few polls of the loop
            polled = beats.count(True)
            await wait_until(lambda: beats.count(True) >= polled + 3, "three more beats with the database away")
        down[0] = False
        scheduler.wake("ROOM", timezone.now())
        await wait_until(
            lambda: any(r.levelno == logging.WARNING for r in caplog.records), "the database's return logged", timeout=3
        )
        # After its return, a timer's pass and a few polls: nothing more to say.
        tried = len(tries)
        scheduler.wake("ROOM", timezone.now())
        await wait_until(lambda: len(tries) > tried, "a timer pass after the return")
        if looping:
            await wait_until(lambda: beats.count(False) >= 3, "three beats after the return")
    finally:
        await (scheduler.stop() if kind == "timers only" else scheduling.stop())
    assert tries[:5] == [True] * 5 and False in tries
    one_outage_and_its_return(caplog, "Connection refused")


@pytest.mark.asyncio
async def test_finished_games_follow_ups_that_meet_the_database_away_log_it_as_an_outage(
    settings, monkeypatch, caplog
) -> None:
    """Follow-ups cut short by the database away are logged as an outage, not a traceback each, and
    their success after it says that the database answered again."""
    settings.SCHEDULER_POLL = 0.01
    quiet_database(monkeypatch)
    down = [True]
    runs: list[bool] = []

    def run_followups(code: str) -> bool:
        runs.append(down[0])
        if down[0]:
            raise database_error("server closed the connection unexpectedly", "08006")
        return True

    applies: list[str] = []

    def apply_due(code: str) -> str:
        applies.append(code)
        if down[0] and code != "ROOM1":  # the database went away once ROOM1's follow-ups were leased
            raise database_error("server closed the connection unexpectedly", "08006")
        return work.FOLLOWUPS

    monkeypatch.setattr(work, "apply_due", apply_due)
    monkeypatch.setattr(work, "run_followups", run_followups)
    caplog.set_level(logging.INFO, logger="games.scheduling")
    scheduler = runner.Scheduler(asyncio.get_running_loop(), sweep=False, poll=settings.SCHEDULER_POLL)
    try:
        for count in range(1, 4):
            scheduler.wake(f"ROOM{count}", timezone.now())
            await wait_until(
                lambda count=count: len(applies) == count and len(runs) == 1 and not scheduler.pending(),
                f"room {count} applied, and the follow-ups run once",
            )
        down[0] = False
        scheduler.wake("ROOM4", timezone.now())
        await wait_until(lambda: len(runs) == 2 and not scheduler.pending(), "the follow-ups run again")
    finally:
        await scheduler.stop()
    assert runs == [True, False]
    one_outage_and_its_return(caplog, "server closed the connection unexpectedly")


@pytest.mark.asyncio
async def test_sweeps_that_meet_the_database_away_log_it_as_an_outage(settings, monkeypatch, caplog) -> None:
    """Sweeps cut short by the database away are logged as the outage's lines, with no traceback of their own."""
    settings.SCHEDULER_POLL = 0.01
    quiet_database(monkeypatch)
    sweeps: list[int] = []
    rounds: list[int] = []

    def sweep_if_due(now: object = None) -> None:
        sweeps.append(len(rounds))
        raise database_error("server closed the connection unexpectedly", "08006")

    monkeypatch.setattr(work, "sweep_if_due", sweep_if_due)
    monkeypatch.setattr(work, "claim_next", lambda *, followups=True: rounds.append(1))
    caplog.set_level(logging.INFO, logger="games.scheduling")
    scheduling.start("all")
    try:
        await wait_until(  # whole rounds since the sweeps failed
            lambda: sweeps and len(rounds) > sweeps[0] + 3, "three rounds after the first failed sweep"
        )
    finally:
        await scheduling.stop()
    one_outage_and_its_return(caplog)


@pytest.mark.asyncio
async def test_a_beat_that_passes_while_the_claims_still_fail_is_not_the_databases_return(
    settings, monkeypatch, caplog
) -> None:
    """The beat going through was taken for the database's return, and the claim's failure right
    after it for a new outage: two lines, one an error, at every poll for as long as it lasted."""
    settings.SCHEDULER_POLL = 0.01
    quiet_database(monkeypatch)
    claims: list[int] = []

    def claim_next(*, followups: bool = True) -> None:
        claims.append(1)
        if len(claims) <= 30:
            raise database_error("server closed the connection unexpectedly", "08006")

    monkeypatch.setattr(work, "claim_next", claim_next)
    caplog.set_level(logging.INFO, logger="games.scheduling")
    scheduling.start("all")
    try:
        await wait_until(lambda: len(claims) > 32, "the claims after the database's return")
    finally:
        await scheduling.stop()
    one_outage_and_its_return(caplog)


@pytest.mark.parametrize("kind", ["all", "local"])
@pytest.mark.asyncio
async def test_a_rooms_timer_that_passes_while_the_rounds_still_fail_is_not_the_databases_return(
    kind, settings, monkeypatch, caplog
) -> None:
    """A database that answers reads but refuses writes (its disk full: class 53, taken for away)
    fails every beat, while a room's timer that finds nothing to write goes through. The timer's
    pass was taken for the database's return and the next beat's failure for a new outage: an
    error and a warning at every timer, for as long as it lasted."""
    settings.SCHEDULER_POLL = 0.01
    quiet_database(monkeypatch)
    down = [True]
    beats: list[bool] = []

    def beat(now: object = None) -> None:
        beats.append(down[0])
        if down[0]:
            raise database_error("could not extend file: No space left on device", "53100")

    applies: list[str] = []

    def apply_due(code: str) -> str:
        applies.append(code)
        return work.NOTHING

    monkeypatch.setattr(work, "beat", beat)
    monkeypatch.setattr(work, "apply_due", apply_due)
    monkeypatch.setattr(work, "due_at", lambda code: None)
    monkeypatch.setattr(work, "claim_next", lambda *, followups=True: None)
    caplog.set_level(logging.INFO, logger="games.scheduling")
    scheduler = scheduling.start(kind)
    assert scheduler is not None
    try:
        for count in range(1, 6):  # each timer's pass is followed by a beat that still fails
            scheduler.wake("ROOM", timezone.now())
            await wait_until(
                lambda count=count: len(applies) == count and not scheduler.pending(), f"timer pass {count} done"
            )
            failed = beats.count(True)
            await wait_until(lambda failed=failed: beats.count(True) > failed, "a failed beat after it")
        down[0] = False
        await wait_until(lambda: beats.count(False) >= 3, "three beats after the return")
    finally:
        await scheduling.stop()
    one_outage_and_its_return(caplog, "No space left on device")


def test_a_long_outage_is_told_at_most_once_a_minute(monkeypatch, caplog) -> None:
    clock = [1000.0]
    monkeypatch.setattr(runner.time, "monotonic", lambda: clock[0])
    caplog.set_level(logging.INFO, logger="games.scheduling")
    outage = runner.Outage()
    for _ in range(181):  # three minutes of one failed sweep a second
        outage.failed(database_error("server closed the connection unexpectedly", "08006"))
        clock[0] += 1
    outage.back()
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 1 + 3 + 1, messages
    assert "server closed the connection unexpectedly" in messages[0]
    assert "after 60 s" in messages[1] and "after 180 s" in messages[3]
    assert "again" in messages[4]


# -- 3. one room's statement refused --------------------------------------------------------


@pytest.mark.parametrize("sqlstate", ["40P01", "57014", "55P03"])
def test_a_deadlock_or_timeout_one_room_meets_every_time_does_not_stop_the_others(monkeypatch, sqlstate) -> None:
    stuck, other = two_due_rooms()
    real = work.clock_expire

    def clock_expire(*, code: str, version: int) -> bool:
        if code == stuck.code:
            raise database_error("deadlock detected / canceling statement due to statement timeout", sqlstate)
        return real(code=code, version=version)

    monkeypatch.setattr(work, "clock_expire", clock_expire)
    assert scheduling.claim_next() == (stuck.code, scheduling.NOTHING)
    assert waits(stuck.code) > 50
    assert scheduling.claim_next() == (other.code, scheduling.APPLIED)


def test_a_deadlock_one_rooms_time_back_meets_does_not_fail_the_beat(settings, monkeypatch) -> None:
    settings.SCHEDULER_OUTAGE = 5
    broken, fine = timed_room(seconds=30), timed_room(seconds=30)
    start = timezone.now()
    assert scheduling.beat(start) is None
    deadline = Game.objects.get(code=fine.code).turn_deadline
    real = work.clock_outage

    def clock_outage(*, code: str, gap: timedelta, since: Any) -> bool:
        if code == broken.code:
            raise database_error("deadlock detected", "40P01")
        return real(code=code, gap=gap, since=since)

    monkeypatch.setattr(work, "clock_outage", clock_outage)
    assert scheduling.beat(start + timedelta(seconds=40)) == timedelta(seconds=40)
    assert Game.objects.get(code=fine.code).turn_deadline == deadline + timedelta(seconds=40)
    assert scheduling.beat(start + timedelta(seconds=41)) is None


def test_the_database_away_still_fails_the_claim(monkeypatch) -> None:
    stuck, _ = two_due_rooms()

    def clock_expire(*, code: str, version: int) -> bool:
        raise database_error("server closed the connection unexpectedly", "08006")

    monkeypatch.setattr(work, "clock_expire", clock_expire)
    with pytest.raises(OperationalError):
        scheduling.claim_next()


@pytest.mark.postgres
def test_a_statement_timeout_in_one_rooms_work_on_postgresql_does_not_stop_the_others(monkeypatch) -> None:
    stuck, other = two_due_rooms()
    real = work.clock_expire

    def clock_expire(*, code: str, version: int) -> bool:
        if code == stuck.code:
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL statement_timeout = '20ms'")
                cursor.execute("SELECT pg_sleep(2)")
        return real(code=code, version=version)

    monkeypatch.setattr(work, "clock_expire", clock_expire)
    assert scheduling.claim_next() == (stuck.code, scheduling.NOTHING)
    assert scheduling.claim_next() == (other.code, scheduling.APPLIED)


def test_a_room_whose_row_will_not_load_in_the_claim_does_not_stop_the_others(monkeypatch) -> None:
    stuck, other = two_due_rooms()
    real = Game.from_db.__func__  # type: ignore[attr-defined]

    def from_db(cls: type[Game], db: str, field_names: list[str], values: list[Any]) -> Game:
        if stuck.code in values:
            raise ValueError("a value this code cannot decode")
        return real(cls, db, field_names, values)

    monkeypatch.setattr(Game, "from_db", classmethod(from_db))
    assert scheduling.claim_next() == (stuck.code, scheduling.NOTHING)
    assert waits(stuck.code) > 50
    assert scheduling.claim_next() == (other.code, scheduling.APPLIED)


# -- 4. liveness ---------------------------------------------------------------------------


def test_the_health_check_fails_with_no_scheduler_and_with_one_that_stopped(settings) -> None:
    settings.SCHEDULER_POLL = 1
    settings.SCHEDULER_STALE_POLLS = 30
    with pytest.raises(CommandError, match="no scheduler"):
        call_command("scheduler_health")
    work.alive(work.alive_name())
    call_command("scheduler_health")
    Heartbeat.objects.filter(name=work.alive_name()).update(at=timezone.now() - timedelta(seconds=45))
    with pytest.raises(CommandError, match="no round for 4[56] s"):
        call_command("scheduler_health")
    work.alive(work.alive_name())
    call_command("scheduler_health")


def test_a_host_gone_for_a_day_has_its_row_deleted_when_a_new_one_starts() -> None:
    Heartbeat.objects.create(name=f"{work.ALIVE}gone", at=timezone.now() - timedelta(days=2))
    Heartbeat.objects.create(name=f"{work.ALIVE}recent", at=timezone.now() - timedelta(hours=2))
    work.alive(work.alive_name())
    names = set(Heartbeat.objects.filter(name__startswith=work.ALIVE).values_list("name", flat=True))
    assert names == {f"{work.ALIVE}recent", work.alive_name()}


def test_two_hosts_with_long_names_alike_up_to_their_ends_keep_a_heartbeat_each(monkeypatch) -> None:
    """Replicas of one deployment are named alike but for their last characters (a Kubernetes pod:
    its deployment's, its replica set's and its own suffix, 30 and more characters): a name cut to
    the row's 32 characters was both hosts' one row, and the health check of a stuck scheduler read
    its sibling's fresh heartbeat as its own."""
    hosts = ("yahtzee-scheduler-5f7d8c9b4-x2k7p", "yahtzee-scheduler-5f7d8c9b4-q9w4z")
    names = set()
    for host in hosts:
        monkeypatch.setattr(work.socket, "gethostname", lambda host=host: host)
        names.add(work.alive_name())
        assert len(work.alive_name()) <= Heartbeat._meta.get_field("name").max_length
        assert work.alive_name().startswith(work.ALIVE)
    assert len(names) == 2
    monkeypatch.setattr(work.socket, "gethostname", lambda: hosts[0])
    work.alive(work.alive_name())
    call_command("scheduler_health")
    monkeypatch.setattr(work.socket, "gethostname", lambda: hosts[1])
    with pytest.raises(CommandError, match="no scheduler"):
        call_command("scheduler_health")
    # A short name (a compose container's: its 12-character id) is kept as it is, to be read.
    monkeypatch.setattr(work.socket, "gethostname", lambda: "3f9a0c1b2d4e")
    assert work.alive_name() == f"{work.ALIVE}3f9a0c1b2d4e"


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_scheduler_that_sweeps_shows_it_is_alive(settings) -> None:
    from asgiref.sync import sync_to_async

    settings.SCHEDULER_POLL = 0.05
    scheduling.start("all")
    try:
        for _ in range(400):
            if await sync_to_async(work.alive_age)() is not None:
                break
            await asyncio.sleep(0.02)
    finally:
        await scheduling.stop()
    await sync_to_async(call_command)("scheduler_health")

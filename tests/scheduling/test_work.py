"""The scheduler's database side: what is due is stored with the room and applied once."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import IntegrityError, connection
from django.db.models import F
from django.utils import timezone

import bots
from games import scheduling, services
from games.domain.rules import RuleViolation
from games.realtime import fanout
from games.scheduling import work
from games.services import signals
from games.services.replay import replay_steps
from games.store import moves
from games.store.models import Game, Heartbeat, Move, Notice, Player
from tests.factories import Table, open_room, own_pace_room, play_to_end, play_turn, score_first_legal, timed_room

pytestmark = pytest.mark.django_db


def due_now(code: str) -> None:
    """As if time had passed: the room's deadline and due time are a second ago."""
    past = timezone.now() - timedelta(seconds=1)
    game = Game.objects.get(code=code)
    Game.objects.filter(code=code).update(due_at=past, turn_deadline=past if game.turn_deadline is not None else None)


def kinds(code: str) -> list[str]:
    return list(Move.objects.filter(game__code=code).order_by("seq").values_list("kind", flat=True))


def test_a_persons_turn_without_a_timer_is_never_due() -> None:
    table = open_room(2)
    assert table.game.due_at is None
    assert scheduling.claim_next() is None


def test_a_timed_turn_is_due_at_its_deadline_and_not_before() -> None:
    table = timed_room(seconds=30)
    game = table.game
    assert game.due_at == game.turn_deadline
    assert scheduling.claim_next() is None  # not yet
    assert scheduling.apply_due(table.code) == scheduling.NOTHING
    assert table.game.version == game.version


def test_a_deadline_passed_with_nobody_connected_is_played_once() -> None:
    table = timed_room(seconds=30)
    before = table.version()
    due_now(table.code)
    assert scheduling.claim_next() == (table.code, scheduling.APPLIED)
    assert kinds(table.code)[-3:] == ["timeout", "roll", "score"]
    after = table.game
    assert after.version == before + 3
    assert after.due_at == after.turn_deadline > timezone.now()  # the next player's turn, fresh
    # A second claimer (another process) finds nothing due; the same room applied again is stale.
    assert scheduling.claim_next() is None
    assert scheduling.apply_due(table.code) == scheduling.NOTHING
    assert table.version() == after.version


def test_an_action_id_already_taken_by_the_player_does_not_stop_their_turn_running_out() -> None:
    # The protocol refuses client ids that begin as the timer's do; a room that holds one from
    # before (the services themselves take any id) still times out.
    table = timed_room(seconds=30)
    services.turn_roll(code=table.code, controller=table.controllers[0], expected_version=None, action_id="r")
    for n in range(3):  # the last one's id is the one the timer's score would have taken
        version = table.version()
        services.turn_hold(
            code=table.code,
            controller=table.controllers[0],
            held=[0] if n % 2 == 0 else [],
            expected_version=version,
            action_id=f"timeout-{version + 2}",
        )
    due_now(table.code)
    assert scheduling.claim_next() == (table.code, scheduling.APPLIED)
    assert kinds(table.code)[-3:] == ["hold", "timeout", "score"]  # rolled already: the timer scores


def test_a_room_whose_due_work_is_refused_does_not_hold_up_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    stuck, other = timed_room(seconds=30), timed_room(seconds=30)
    due_now(stuck.code)
    Game.objects.filter(code=other.code).update(
        due_at=timezone.now() - timedelta(milliseconds=500), turn_deadline=timezone.now() - timedelta(milliseconds=500)
    )
    real = work.clock_expire

    def refusing(*, code: str, version: int) -> bool:
        if code == stuck.code:
            raise RuleViolation("repeated_action", "That action id was already used.")
        return real(code=code, version=version)

    monkeypatch.setattr(work, "clock_expire", refusing)
    before = stuck.version()
    assert scheduling.claim_next() == (stuck.code, scheduling.NOTHING)  # refused: rolled back, looked at later
    assert stuck.version() == before and stuck.game.due_at > timezone.now() + timedelta(seconds=50)
    assert scheduling.claim_next() == (other.code, scheduling.APPLIED)
    assert kinds(other.code)[-3:] == ["timeout", "roll", "score"]


def test_a_room_whose_due_work_the_database_refuses_does_not_hold_up_the_others(monkeypatch) -> None:
    """A statement of one room's due work that the database refuses (a constraint, a value out of
    range) is that room's failure, not the database gone: it was raised out of the claim, which
    the next sweep made again, first of all as the room due longest, in every process: no other
    room was played again."""
    stuck, other = timed_room(seconds=30), timed_room(seconds=30)
    due_now(stuck.code)
    Game.objects.filter(code=other.code).update(
        due_at=timezone.now() - timedelta(milliseconds=500), turn_deadline=timezone.now() - timedelta(milliseconds=500)
    )
    real = work.clock_expire

    def refused_by_the_database(*, code: str, version: int) -> bool:
        if code == stuck.code:
            # A write the database itself refuses, straight in the claim's transaction.
            Game.objects.filter(code=code).update(code=other.code)
        return real(code=code, version=version)

    monkeypatch.setattr(work, "clock_expire", refused_by_the_database)
    before = stuck.version()
    assert scheduling.claim_next() == (stuck.code, scheduling.NOTHING)
    assert stuck.version() == before and stuck.game.due_at > timezone.now() + timedelta(seconds=50)
    assert scheduling.claim_next() == (other.code, scheduling.APPLIED)
    assert kinds(other.code)[-3:] == ["timeout", "roll", "score"]


def test_a_room_whose_state_will_not_load_does_not_hold_up_the_others() -> None:
    """A room whose stored state cannot be read fails its due work, and failed again as its next
    due time was worked out from that state, out of the claim: it was claimed first again at
    every sweep, and no other room was played."""
    stuck, other = timed_room(seconds=30), timed_room(seconds=30)
    due_now(stuck.code)
    Game.objects.filter(code=other.code).update(
        due_at=timezone.now() - timedelta(milliseconds=500), turn_deadline=timezone.now() - timedelta(milliseconds=500)
    )
    Game.objects.filter(code=stuck.code).update(snapshot={"seats": "not a list of seats"})
    assert scheduling.claim_next() == (stuck.code, scheduling.NOTHING)
    assert Game.objects.get(code=stuck.code).due_at > timezone.now() + timedelta(seconds=50)
    assert scheduling.claim_next() == (other.code, scheduling.APPLIED)


def test_a_paused_game_is_not_due() -> None:
    table = timed_room(seconds=30)
    services.game_pause(code=table.code, controller=table.controllers[0], expected_version=None, action_id="p")
    assert table.game.due_at is None
    services.game_resume(code=table.code, controller=table.controllers[0], expected_version=None, action_id="r")
    assert table.game.due_at == table.game.turn_deadline is not None


def test_a_deadline_staff_extend_after_it_passed_is_not_timed_out_when_the_room_is_claimed() -> None:
    """The deadline passed, the room not claimed yet: staff's more time wins, and the room is
    due again at the new deadline."""
    table = own_pace_room(seconds=86_400)
    due_now(table.code)
    game = table.game
    key = services.clock_to_extend(game)
    services.clock_extend(code=table.code, seconds=3_600, staff="clerk", turn=list(key))
    extended = table.game
    assert extended.due_at == extended.turn_deadline > timezone.now() + timedelta(minutes=59)
    assert scheduling.claim_next() is None
    assert scheduling.apply_due(table.code) == scheduling.NOTHING
    assert kinds(table.code)[-1] == Move.Kind.EXTEND


def test_a_game_abandoned_while_its_deadline_is_due_is_not_played() -> None:
    table = timed_room(seconds=30)
    due_now(table.code)
    for seat, controller in enumerate(table.controllers):
        services.game_leave(code=table.code, controller=controller, seat=seat, expected_version=None, action_id="l")
    game = table.game
    assert game.status == Game.Status.ABANDONED and game.due_at is None
    assert scheduling.claim_next() is None
    assert kinds(table.code)[-2:] == ["leave", "leave"]


@pytest.fixture(scope="module")
def official_table() -> None:
    bots.tables.table("official", build=True)


def test_a_computer_to_play_is_due_after_the_bot_delay_and_plays_once(official_table: None, settings) -> None:
    settings.BOT_DELAY = 0.5
    table = open_room(1, start=False)
    services.game_add_bot(
        code=table.code, controller=table.controllers[0], level="optimal", expected_version=None, action_id="b"
    )
    services.game_start(code=table.code, controller=table.controllers[0], expected_version=None, action_id="s")
    assert table.game.due_at is None  # the person plays first
    play_turn(table, random.Random(3))
    game = table.game
    assert game.due_at is not None
    assert 0.3 < (game.due_at - timezone.now()).total_seconds() <= 0.5
    assert scheduling.claim_next() is None  # the pause people follow the bot by
    due_now(table.code)
    assert scheduling.claim_next() == (table.code, scheduling.APPLIED)
    assert table.version() == game.version + 1
    assert table.game.due_at is not None  # its next step
    assert scheduling.apply_due(table.code) == scheduling.NOTHING  # not due again yet


def test_a_computers_step_due_as_its_player_takes_the_seat_back_is_not_played(official_table: None, settings) -> None:
    """Two timeouts in a row hand the seat to a computer; its player comes back just as the
    computer's step is due: the seat is theirs, their clock runs, and the computer does not play."""
    settings.BOT_DELAY = 0.5
    table = timed_room(seconds=30)
    rng = random.Random(4)
    for _ in range(2):
        if table.current() != table.controllers[0]:
            play_turn(table, rng)
        due_now(table.code)
        assert scheduling.claim_next() == (table.code, scheduling.APPLIED)  # seat 0's turn runs out
    play_turn(table, rng)  # seat 1
    game = table.game
    assert game.snapshot["seats"][0]["kind"] == "bot" and game.turn_deadline is None and game.due_at is not None
    due_now(table.code)
    before = table.version()
    assert services.seat_reclaim(code=table.code, controller=table.controllers[0]) == [0]
    assert scheduling.claim_next() is None
    assert scheduling.apply_due(table.code) == scheduling.NOTHING
    game = table.game
    assert game.version == before + 1 and kinds(table.code)[-1] == Move.Kind.RECLAIM
    assert game.due_at == game.turn_deadline > timezone.now() + timedelta(seconds=25)


def test_due_work_that_does_nothing_looks_again_later_not_in_a_loop() -> None:
    table = timed_room(seconds=30)
    game = table.game
    # A deadline stored ahead of the due time (another clock): nothing to apply yet.
    Game.objects.filter(code=table.code).update(due_at=timezone.now() - timedelta(seconds=1))
    assert scheduling.claim_next() == (table.code, scheduling.NOTHING)
    assert table.game.due_at == game.turn_deadline
    assert scheduling.claim_next() is None


def test_a_finished_game_owes_its_follow_ups_until_they_are_done(settings) -> None:
    settings.FOLLOWUPS_INLINE = False
    heard: list[str] = []

    def receiver(sender: object, game: Game, **kwargs: object) -> None:
        heard.append(game.code)

    signals.game_finished.connect(receiver, dispatch_uid="test-followups")
    try:
        table = open_room(2)
        play_to_end(table, random.Random(5))
        game = table.game
        assert game.status == Game.Status.FINISHED
        assert game.followups_owed and game.due_at is not None
        assert heard == []  # nothing ran in the committing thread
        assert scheduling.claim_next() == (table.code, scheduling.FOLLOWUPS)
        assert table.game.due_at > timezone.now()  # leased to the claimer
        assert scheduling.claim_next() is None
        assert scheduling.run_followups(table.code) is True
        assert heard == [table.code]
        assert not table.game.followups_owed and table.game.due_at is None
        assert scheduling.run_followups(table.code) is False  # done once
    finally:
        signals.game_finished.disconnect(dispatch_uid="test-followups")


def test_a_failing_follow_up_stays_owed(settings) -> None:
    settings.FOLLOWUPS_INLINE = False

    def broken(sender: object, game: Game, **kwargs: object) -> None:
        raise RuntimeError("the ratings' database is away")

    signals.game_finished.connect(broken, dispatch_uid="test-broken")
    try:
        table = open_room(2)
        play_to_end(table, random.Random(6))
        assert scheduling.run_followups(table.code) is False
        assert table.game.followups_owed and table.game.due_at > timezone.now()
    finally:
        signals.game_finished.disconnect(dispatch_uid="test-broken")


def test_a_gap_with_no_process_up_gives_running_turns_their_time_back(settings) -> None:
    settings.SCHEDULER_OUTAGE = 5
    table = timed_room(seconds=30)
    untimed = open_room(2)
    start = timezone.now()
    assert scheduling.beat(start) is None  # the first beat
    deadline = table.game.turn_deadline
    assert scheduling.beat(start + timedelta(seconds=3)) is None  # up all along
    assert table.game.turn_deadline == deadline
    gap = scheduling.beat(start + timedelta(seconds=3 + 40))  # 40 s with nobody up
    assert gap == timedelta(seconds=40)
    game = table.game
    assert game.turn_deadline == deadline + gap and game.due_at == game.turn_deadline
    assert untimed.game.turn_deadline is None and untimed.game.due_at is None
    assert Heartbeat.objects.get().at == start + timedelta(seconds=43)
    # Logged, as more time from staff is, so the version moves on and the pages are told.
    extend = game.moves.order_by("-seq").first()
    assert extend is not None and extend.kind == Move.Kind.EXTEND
    assert extend.payload["outage"] is True and extend.payload["seconds"] == 40


@pytest.mark.django_db(transaction=True)
def test_after_an_outage_the_next_action_shows_the_deadline_the_server_keeps(settings, monkeypatch) -> None:
    """The database away 40 s, the worker up: the beat moves the turn's deadline on by the outage
    (scheduling.work.beat) without a new version, and this worker's copy of the row it last wrote
    (moves.remembered) keeps the old one: the next hold's state frame shows a deadline already past."""
    settings.SCHEDULER_OUTAGE = 5
    table = timed_room(seconds=30)
    who = table.current()
    services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id="r1")
    assert moves.remembered(table.code) is not None
    start = timezone.now()
    assert scheduling.beat(start) is None
    assert scheduling.beat(start + timedelta(seconds=40)) == timedelta(seconds=40)
    stored = Game.objects.get(code=table.code).turn_deadline
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(
        fanout, "publish_soon", lambda code, frames, version=None: sent.extend(json.loads(f) for f in frames)
    )
    services.turn_hold(code=table.code, controller=who, held=[0], expected_version=table.version(), action_id="h1")
    assert Game.objects.get(code=table.code).turn_deadline == stored
    assert sent[-1]["clock"]["deadline"] == stored.isoformat()


@pytest.mark.django_db(transaction=True)
def test_after_an_outage_the_pages_still_open_are_told_the_deadline_moved(settings, monkeypatch) -> None:
    """The same outage: the pages stayed connected and count down from the state's ``left``; they
    must hear that the turn got its time back, or they show 0:00 while the server waits 40 s more."""
    settings.SCHEDULER_OUTAGE = 5
    table = timed_room(seconds=30)
    start = timezone.now()
    assert scheduling.beat(start) is None
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(
        fanout, "publish_soon", lambda code, frames, version=None: sent.extend(json.loads(f) for f in frames)
    )
    assert scheduling.beat(start + timedelta(seconds=40)) == timedelta(seconds=40)
    stored = Game.objects.get(code=table.code).turn_deadline
    told = [f for f in sent if f.get("type") == "state" and f.get("code") == table.code]
    assert told and told[-1]["clock"]["deadline"] == stored.isoformat()


def extends(code: str) -> int:
    return Move.objects.filter(game__code=code, kind=Move.Kind.EXTEND).count()


def test_two_processes_up_all_along_with_clocks_ten_seconds_apart_move_no_deadline(settings, monkeypatch) -> None:
    """Two web workers (or a worker and ``run_scheduler``) on two hosts whose clocks differ by
    10 s, each beating every second: timed by their own clocks, every beat of the one ahead saw a
    "gap" of 10.5 s, and every running turn was given 10.5 s more, each second, with an ``extend``
    Move and a frame to every page. The turns never ran out. The beats are timed by the database."""
    settings.SCHEDULER_OUTAGE = 5
    table = timed_room(seconds=30)
    deadline = table.game.turn_deadline
    start = timezone.now()
    for second in range(5):
        for ahead in (second + 10, second + 0.5):  # process A, its clock 10 s ahead; then process B
            monkeypatch.setattr(timezone, "now", lambda ahead=ahead: start + timedelta(seconds=ahead))
            scheduling.beat()
    monkeypatch.undo()
    assert extends(table.code) == 0
    assert table.game.turn_deadline == deadline
    assert abs(Heartbeat.objects.get().at - timezone.now()) < timedelta(seconds=5)


def test_the_time_a_beat_spends_giving_time_back_is_no_outage_at_the_next_beat(settings, monkeypatch) -> None:
    """After an outage a beat gives every running turn its time back, one Move each, holding the
    heartbeat's row: on a site with many running deadlines that takes longer than
    SCHEDULER_OUTAGE. Timed from when that beat started, the next beat, right after it, would see
    the beat's own work as a gap and give every running turn that much more again, which would take
    as long again: no turn would ever run out. Here one give-back takes 1.5 s against a threshold
    of 1 s (a loaded machine may take a few tenths between two beats)."""
    settings.SCHEDULER_OUTAGE = 1.0
    settings.SCHEDULER_POLL = 0.05
    table = timed_room(seconds=30)
    Heartbeat.objects.create(name=work.BEAT, at=timezone.now() - timedelta(hours=1))  # a real outage
    real = work.clock_outage

    def slow_outage(**kwargs: Any) -> bool:  # as a thousand rooms' give-backs take
        time.sleep(1.5)
        return real(**kwargs)

    monkeypatch.setattr(work, "clock_outage", slow_outage)
    gap = scheduling.beat()
    assert gap is not None and gap > timedelta(minutes=59)
    assert extends(table.code) == 1
    assert scheduling.beat() is None  # the scheduler's next beat, at once (no sweep, no sleep)
    assert extends(table.code) == 1, "the previous beat's own work was taken for an outage"


def test_a_room_whose_time_back_fails_does_not_stop_the_beat_nor_every_other_room(settings, monkeypatch) -> None:
    """After an outage the beat gives each running turn its time back in the heartbeat's transaction.
    One room whose give-back fails (a snapshot that will not load, a write the database refuses)
    rolled the whole beat back: the gap was seen again at every beat and failed again, and since
    every process beats before it claims, no process of the site played a due room again."""
    settings.SCHEDULER_OUTAGE = 5
    broken, fine = timed_room(seconds=30), timed_room(seconds=30)
    start = timezone.now()
    assert scheduling.beat(start) is None
    deadline = fine.game.turn_deadline
    real = work.clock_outage

    def failing(*, code: str, gap: timedelta, since: Any) -> bool:
        if code == broken.code:
            real(code=code, gap=gap, since=since)  # its writes too are undone
            raise IntegrityError("a write the database refuses")
        return real(code=code, gap=gap, since=since)

    monkeypatch.setattr(work, "clock_outage", failing)
    before = broken.version()
    assert scheduling.beat(start + timedelta(seconds=40)) == timedelta(seconds=40)
    assert fine.game.turn_deadline == deadline + timedelta(seconds=40) and extends(fine.code) == 1
    assert broken.version() == before and extends(broken.code) == 0
    assert scheduling.beat(start + timedelta(seconds=41)) is None  # the outage is over for the site
    assert extends(fine.code) == 1


def test_a_room_whose_deadline_fails_to_move_back_does_not_stop_the_beat(settings, monkeypatch) -> None:
    """The same for the clock set back: one room's failure is that room's alone."""
    settings.SCHEDULER_OUTAGE = 5
    broken, fine = timed_room(seconds=30), timed_room(seconds=30)
    start = timezone.now()
    hour = timedelta(hours=1)
    for table in (broken, fine):
        Game.objects.filter(code=table.code).update(
            turn_deadline=F("turn_deadline") + hour, due_at=F("due_at") + hour, version=F("version") + 1
        )
    deadline = fine.game.turn_deadline

    def failing(*, code: str, step: timedelta, since: Any) -> bool:
        if code == broken.code:
            raise RuntimeError("a snapshot that will not load")
        return real(code=code, step=step, since=since)

    real = work.clock_set_back
    monkeypatch.setattr(work, "clock_set_back", failing)
    assert scheduling.beat(start + hour) is None
    assert scheduling.beat(start + timedelta(seconds=1)) == -timedelta(hours=1, seconds=-1)
    assert fine.game.turn_deadline == deadline - timedelta(hours=1, seconds=-1) and extends(fine.code) == 1
    assert extends(broken.code) == 0
    assert scheduling.beat(start + timedelta(seconds=2)) is None


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_beat_that_waited_for_anothers_giving_time_back_takes_that_wait_for_no_clock_set_back(
    settings, monkeypatch
) -> None:
    """Two processes beat at once after an outage: one gives the turns their time back, holding the
    heartbeat's row; the other's beat waits for it. Timed by when its statement started (before the
    wait), that beat would be earlier than the first one's end, by more than SCHEDULER_OUTAGE: the
    clock set back, every deadline moved back. It is timed when it gets the row."""
    # An outage a loaded machine cannot cross between the first beat's commit and the second's
    # read of the row (0.23 s was seen with 0.2); the hold longer than it, as the test needs.
    settings.SCHEDULER_OUTAGE = 1.0
    settings.SCHEDULER_POLL = 0.05
    table = timed_room(seconds=30)
    Heartbeat.objects.create(name=work.BEAT, at=timezone.now() - timedelta(hours=1))
    real = work.clock_outage
    holding = threading.Event()

    def slow_outage(**kwargs: Any) -> bool:
        holding.set()
        time.sleep(1.5)
        return real(**kwargs)

    monkeypatch.setattr(work, "clock_outage", slow_outage)
    gaps: list[timedelta | None] = []

    def first() -> None:
        try:
            gaps.append(scheduling.beat())
        finally:
            connection.close()

    thread = threading.Thread(target=first)
    thread.start()
    assert holding.wait(5)
    second = scheduling.beat()  # waits for the first beat's row
    thread.join()
    assert gaps and gaps[0] is not None and gaps[0] > timedelta(minutes=59)
    assert second is None, f"the wait was taken for a gap of {second}"
    assert extends(table.code) == 1


def test_a_scheduler_that_sweeps_every_ten_seconds_is_not_an_outage(settings) -> None:
    """``manage.py run_scheduler --poll 10`` (or ``SCHEDULER_POLL=10``) beats every 10 s: with the
    default ``SCHEDULER_OUTAGE`` of 5 s each beat is taken for an outage and every running deadline
    moves 10 s on at every beat, so no turn ever runs out."""
    settings.SCHEDULER_POLL = 10
    settings.SCHEDULER_OUTAGE = 5  # the default
    table = timed_room(seconds=30)
    deadline = table.game.turn_deadline
    start = timezone.now()
    for beat in range(4):
        scheduling.beat(start + timedelta(seconds=10 * beat))
    assert extends(table.code) == 0
    assert table.game.turn_deadline == deadline


def test_a_server_clock_stepped_back_an_hour_does_not_stretch_a_30_second_turn_to_an_hour(settings) -> None:
    """The clock jumps forward: the beat sees the gap and gives the turn its time back. It jumps
    back (NTP stepping a clock that ran fast, a VM restored): the deadlines stay where they were on
    the old clock, so a 30-second turn now has an hour and 30 seconds, shown on every page as 60:30."""
    settings.SCHEDULER_OUTAGE = 5
    table = timed_room(seconds=30)
    start = timezone.now()
    scheduling.beat(start)
    stepped_back = start - timedelta(hours=1)
    scheduling.beat(stepped_back + timedelta(seconds=1))  # the next beat, a second later, on the new clock
    left = (table.game.turn_deadline - (stepped_back + timedelta(seconds=1))).total_seconds()
    assert left <= 30


def test_a_clock_set_back_moves_back_the_deadlines_set_before_it_and_not_one_set_since(settings) -> None:
    """The beat before ran on a clock an hour fast; a turn started since has its deadline on the
    clock as it is now, which is earlier than that beat: it keeps its 30 s."""
    settings.SCHEDULER_OUTAGE = 5
    before = timed_room(seconds=30)
    start = timezone.now()
    fast = before.game.turn_deadline + timedelta(hours=1)
    Game.objects.filter(code=before.code).update(turn_deadline=fast, due_at=fast, version=F("version") + 1)
    version = before.version()
    assert scheduling.beat(start + timedelta(hours=1)) is None  # the last beat on the fast clock
    since = timed_room(seconds=30)
    fresh = since.game.turn_deadline
    assert scheduling.beat(start + timedelta(seconds=1)) == -timedelta(hours=1, seconds=-1)
    game = before.game
    assert game.turn_deadline == fast - timedelta(hours=1, seconds=-1) and game.due_at == game.turn_deadline
    assert game.version == version + 1  # the pages are told
    moved = game.moves.order_by("-seq").first()
    assert moved is not None and moved.kind == Move.Kind.EXTEND and moved.actor == "server:clock"
    assert moved.payload["set_back"] is True and moved.payload["seconds"] == -3599
    assert since.game.turn_deadline == fresh and extends(since.code) == 0
    # Nothing to say of it in the replay: the player's time left did not change.
    assert not [step for step in replay_steps(before.game) if step.get("kind") == Move.Kind.EXTEND]


def test_a_clock_set_back_does_not_hold_a_computer_players_next_step_for_the_step(settings) -> None:
    """A computer's next step is due BOT_DELAY after the move before it (``Game.due_at``), set by the
    clock before it was set back, and no turn deadline runs while a computer plays: it moves back
    with the clock too, or the computer sits for the whole step (an hour here)."""
    settings.SCHEDULER_OUTAGE = 5
    settings.BOT_DELAY = 0.8
    host = services.new_controller()
    code = services.game_create(host_name="Ann", controller=host).game.code
    services.game_add_bot(code=code, controller=host, level="casual", expected_version=None, action_id="b")
    services.game_start(code=code, controller=host, expected_version=None, action_id="s")
    play_turn(Table(code=code, controllers=[host]), random.Random(1), rerolls=0)
    game = Game.objects.get(code=code)
    assert game.turn_deadline is None and game.due_at is not None  # the computer plays next
    start = timezone.now()
    # Set by the clock an hour fast, as the last beat was.
    Game.objects.filter(code=code).update(due_at=game.due_at + timedelta(hours=1))
    assert scheduling.beat(start + timedelta(hours=1)) is None
    assert scheduling.beat(start + timedelta(seconds=1)) is not None  # the clock set back an hour
    due = Game.objects.get(code=code).due_at
    assert due - timezone.now() < timedelta(seconds=10), f"the computer waits {due - timezone.now()}"


def test_a_clock_set_back_moves_back_the_reminders_and_the_follow_up_leases_set_before_it(settings) -> None:
    """A reminder is owed for a quarter of the time per move before the deadline, and a finished
    game's follow-ups are leased for FOLLOWUPS_LEASE, both by the clock before it was set back: the
    reminder would come an hour late (after the deadline, moved back) and the follow-ups an hour
    after the game. Both move back with the deadlines; one set since, on the clock as it is, stays."""
    from django_tasks_db.models import DBTaskResult

    settings.SCHEDULER_OUTAGE = 5
    table = own_pace_room(seconds=86_400)
    score_first_legal(table)  # seat 1 to move: its reminder is owed for 18 hours from now
    reminder = Notice.objects.get(kind=Notice.Kind.REMINDER, seat=1)
    finished = timed_room(seconds=30)
    start = timezone.now()
    lease = start + work.FOLLOWUPS_LEASE
    # Set by the clock an hour fast, as the last beat was.
    hour = timedelta(hours=1)
    Game.objects.filter(code=finished.code).update(followups_owed=True, due_at=lease + hour)
    Game.objects.filter(code=table.code).update(
        turn_deadline=F("turn_deadline") + hour, due_at=F("due_at") + hour, version=F("version") + 1
    )
    Notice.objects.filter(pk=reminder.pk).update(due_at=reminder.due_at + hour)
    done = Notice.objects.filter(seat=1, kind=Notice.Kind.TURN).get()
    assert done.due_at < start + hour  # owed before the last beat: stays
    assert scheduling.beat(start + hour) is None
    assert scheduling.beat(start + timedelta(seconds=1)) == -timedelta(hours=1, seconds=-1)
    step = timedelta(hours=1, seconds=-1)
    assert Game.objects.get(code=finished.code).due_at == lease + hour - step
    moved = Notice.objects.get(pk=reminder.pk)
    assert moved.due_at == reminder.due_at + hour - step and moved.done_at is None
    assert Notice.objects.get(pk=done.pk).due_at == done.due_at
    # Queued again for its new time: the task queued before waits the hour out.
    assert DBTaskResult.objects.filter(run_after=moved.due_at).count() == 1
    assert moved.due_at == table.game.turn_deadline - timedelta(hours=6)


def test_the_sweeps_run_once_every_sweep_every_seconds_whichever_process_asks(settings) -> None:
    """Each process's scheduler asks; the round is the first asker's, and the next is due SWEEP_EVERY later."""
    settings.SWEEP_EVERY = 3600
    lobby = open_room(2, start=False)
    start = timezone.now()
    assert work.sweep_if_due(now=start) is not None  # the first round ever: at once
    assert work.sweep_if_due(now=start) is None  # another process, the same moment
    assert work.sweep_if_due(now=start + timedelta(minutes=59)) is None
    # Forty days later the room never started is swept; it had been kept by the round before.
    later = start + timedelta(days=40)
    done = work.sweep_if_due(now=later)
    assert done is not None and done["rooms never started"]["rooms"] == 1
    assert not Game.objects.filter(code=lobby.code).exists()
    assert work.sweep_if_due(now=later + timedelta(seconds=1)) is None
    assert Heartbeat.objects.get(name=work.SWEPT).at == later


def test_the_sweeps_still_run_after_the_servers_clock_was_set_back(settings) -> None:
    """A round run while the clock was fast stamps the future: once the clock is put right, the
    sweeps do not wait for it to catch up with the wrong time (a year fast: a year)."""
    settings.SWEEP_EVERY = 3600
    start = timezone.now()
    ahead = start + timedelta(days=1)
    assert work.sweep_if_due(now=ahead) is not None  # the clock a day fast at this round
    lobby = open_room(2, start=False)
    month = timedelta(days=31)
    Game.objects.filter(code=lobby.code).update(created_at=F("created_at") - month)
    Move.objects.filter(game__code=lobby.code).update(created_at=F("created_at") - month)
    Player.objects.filter(game__code=lobby.code).update(joined_at=F("joined_at") - month)
    # The clock put right: two hours later by the true time, a round is due, and then the next
    # is SWEEP_EVERY after it as ever.
    now = start + timedelta(hours=2)
    done = work.sweep_if_due(now=now)
    assert done is not None and not Game.objects.filter(code=lobby.code).exists()
    assert work.sweep_if_due(now=now + timedelta(minutes=59)) is None
    # Processes whose clocks are a little apart still take one round in turn.
    assert work.sweep_if_due(now=now - timedelta(minutes=5)) is None


@pytest.mark.parametrize("every", ["0", "-5", "soon", "inf"])
def test_a_sweep_every_that_is_no_time_apart_is_named_as_the_settings_load(
    monkeypatch: pytest.MonkeyPatch, every: str
) -> None:
    """0 or less would sweep at every poll of the scheduler (a scan of several tables a second)."""
    import runpy
    from pathlib import Path

    from django.core.exceptions import ImproperlyConfigured

    monkeypatch.setenv("SWEEP_EVERY", every)
    with pytest.raises(ImproperlyConfigured, match=f"SWEEP_EVERY='{every}' is a number of seconds, more than 0"):
        runpy.run_path(str(Path(__file__).resolve().parents[2] / "yahtzee" / "settings.py"))


@pytest.mark.parametrize("poll", ["0", "-1", "soon", "inf", "nan"])
def test_a_scheduler_poll_that_is_no_time_apart_is_named_as_the_settings_load(
    monkeypatch: pytest.MonkeyPatch, poll: str
) -> None:
    """0 or less swept for due rooms with no pause at all: a beat and a claim, each a transaction,
    over and over in every process, as fast as the database answered."""
    import runpy
    from pathlib import Path

    from django.core.exceptions import ImproperlyConfigured

    monkeypatch.setenv("SCHEDULER_POLL", poll)
    with pytest.raises(ImproperlyConfigured, match=f"SCHEDULER_POLL='{poll}' is a number of seconds, more than 0"):
        runpy.run_path(str(Path(__file__).resolve().parents[2] / "yahtzee" / "settings.py"))


@pytest.mark.parametrize("polls", ["0", "-3", "2.5", "many", "inf", "nan"])
def test_a_health_check_window_that_is_no_whole_number_of_polls_is_named_as_the_settings_load(
    monkeypatch: pytest.MonkeyPatch, polls: str
) -> None:
    """0 or less would fail every health check of a scheduler that runs fine (its last round is
    always more than 0 polls ago): compose would show it unhealthy for ever, and say nothing of the
    setting. The settings refuse it as they load, naming it."""
    import runpy
    from pathlib import Path

    from django.core.exceptions import ImproperlyConfigured

    monkeypatch.setenv("SCHEDULER_STALE_POLLS", polls)
    with pytest.raises(
        ImproperlyConfigured, match=f"SCHEDULER_STALE_POLLS='{polls}' is a whole number of polls, more than 0"
    ):
        runpy.run_path(str(Path(__file__).resolve().parents[2] / "yahtzee" / "settings.py"))


@pytest.mark.parametrize(("polls", "read"), [("", 30), ("12", 12), ("12.0", 12)])
def test_a_health_check_window_of_whole_polls_is_read(monkeypatch: pytest.MonkeyPatch, polls: str, read: int) -> None:
    import runpy
    from pathlib import Path

    monkeypatch.setenv("SCHEDULER_STALE_POLLS", polls)
    loaded = runpy.run_path(str(Path(__file__).resolve().parents[2] / "yahtzee" / "settings.py"))
    assert loaded["SCHEDULER_STALE_POLLS"] == read
    assert isinstance(loaded["SCHEDULER_STALE_POLLS"], int)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_scheduler_that_sweeps_runs_the_sweeps_with_nobody_connected(settings) -> None:
    from asgiref.sync import sync_to_async

    settings.SCHEDULER_POLL = 0.05

    def lobby_unused_for_a_month() -> str:
        lobby = open_room(2, start=False)
        month = timedelta(days=31)
        Game.objects.filter(code=lobby.code).update(created_at=F("created_at") - month)
        Move.objects.filter(game__code=lobby.code).update(created_at=F("created_at") - month)
        Player.objects.filter(game__code=lobby.code).update(joined_at=F("joined_at") - month)
        return lobby.code

    code = await sync_to_async(lobby_unused_for_a_month)()
    gone = sync_to_async(lambda: not Game.objects.filter(code=code).exists())
    scheduling.start("all")
    try:
        for _ in range(200):
            if await gone():
                break
            await asyncio.sleep(0.05)
    finally:
        await scheduling.stop()
    assert await gone()


def endless_backlog(
    monkeypatch: pytest.MonkeyPatch, claims: list[str], *, each: float, rooms: int | None = None
) -> None:
    """``work.claim_next`` as a backlog of due rooms (``rooms`` of them, or no end), each taking ``each`` seconds."""

    def claim_next(*, followups: bool = True) -> tuple[str, work.Outcome] | None:
        if rooms is not None and len(claims) >= rooms:
            return None
        time.sleep(each)
        claims.append(f"room{len(claims)}")
        return claims[-1], work.APPLIED

    monkeypatch.setattr(work, "claim_next", claim_next)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_long_backlog_does_not_keep_the_scheduler_from_beating(settings, monkeypatch) -> None:
    """After downtime thousands of rooms are due. Were a sweep to claim BATCH (50) of them before its
    next beat, at 40 ms a claim that is 2 s without a beat, and the scheduler alone up (``make run``'s
    server, a site's only process) would take its own sweep for an outage: every running turn would
    be given 2 s more, with an ``extend`` Move, at every sweep until the backlog was gone."""
    from asgiref.sync import sync_to_async

    settings.SCHEDULER_POLL = 0.05
    settings.SCHEDULER_OUTAGE = 1.0
    table = await sync_to_async(timed_room)(seconds=30)
    claims: list[str] = []
    endless_backlog(monkeypatch, claims, each=0.04)
    # The beats are timed by the claims' work alone (40 ms each), not by the machine's clock: a
    # loaded machine that takes the process off the CPU for a second between two beats is no
    # scheduler kept from beating by its backlog, and such a stall would read as an outage.
    start = timezone.now()
    real_beat = work.beat
    monkeypatch.setattr(work, "beat", lambda: real_beat(now=start + timedelta(seconds=0.04) * len(claims)))
    scheduling.start("all")
    try:
        for _ in range(400):
            if len(claims) > scheduling.runner.BATCH + 5:
                break
            await asyncio.sleep(0.05)
    finally:
        await scheduling.stop()
    assert len(claims) > scheduling.runner.BATCH + 5
    assert await sync_to_async(extends)(table.code) == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_backlog_is_worked_through_without_waiting_a_poll_after_each_sweep(settings, monkeypatch) -> None:
    """A sweep claims at most BATCH rooms; with more due, the next sweep starts at once rather than
    a poll later (``run_scheduler --poll 30``: 50 rooms every 30 s, a live turn due behind
    a thousand rooms played ten minutes late)."""
    settings.SCHEDULER_POLL = 30
    claims: list[str] = []
    rooms = 3 * scheduling.runner.BATCH
    endless_backlog(monkeypatch, claims, each=0, rooms=rooms)
    scheduling.start("all")
    try:
        for _ in range(400):
            if len(claims) == rooms:
                break
            await asyncio.sleep(0.05)
    finally:
        await scheduling.stop()
    assert len(claims) == rooms


def test_a_seat_the_scheduler_hands_to_the_computer_owes_its_player_one_notice_whoever_claims_it(settings) -> None:
    """At your own pace, the second timeout in a row of a seat, claimed by one of two processes,
    owes its player the notice that the computer plays for them, once: the other process finds
    nothing to do, two workers running its task send it once, and a worker started after a crash
    sends one its dead worker took, and nothing more."""
    from django.core import mail

    from games.services import notices
    from tests.services.test_notices import opted_in

    settings.SITE_URL = "https://yahtzee.example.org"
    table = own_pace_room(seconds=86_400)
    opted_in(table, 0)
    due_now(table.code)
    assert scheduling.claim_next() == (table.code, scheduling.APPLIED)  # seat 0's first timeout
    score_first_legal(table)  # seat 1
    due_now(table.code)
    assert scheduling.claim_next() == (table.code, scheduling.APPLIED)  # seat 0's second: the computer's
    assert scheduling.claim_next() is None
    assert scheduling.apply_due(table.code) == scheduling.NOTHING
    [notice] = Notice.objects.filter(kind=Notice.Kind.AWAY)
    assert notice.seat == 0 and notice.done_at is None

    # A worker took it and died while sending: after the lease a restarted worker's sweep queues it
    # again (and only it: the turns' notices are not this test's).
    Notice.objects.exclude(pk=notice.pk).update(done_at=timezone.now())
    Notice.objects.filter(pk=notice.pk).update(claimed_at=timezone.now() - notices.LEASE - timedelta(seconds=1))
    assert notices.recover(now=timezone.now() + notices.GRACE + timedelta(seconds=1)) == 1
    assert notices.send_notice.call(notice.pk).startswith("sent: e-mail")
    assert notices.send_notice.call(notice.pk) == "done already"  # its task queued twice, a second worker
    assert notices.recover(now=timezone.now() + timedelta(days=1)) == 0
    assert [m.subject for m in mail.outbox] == [f"The computer plays for you in room {table.shown}"]

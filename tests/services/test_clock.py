"""The turn timer and the host's pause, through the services (the deadline is set to the past by hand)."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

import bots
from games import services
from games.domain.rules import RuleViolation
from games.domain.rules.codec import state_to_dict
from games.realtime import fanout
from games.scheduling import botplay
from games.services import waiting
from games.services.replay import replay_game, verify_fairness
from games.store.models import Game, Move
from games.store.selectors import game_state, my_games
from tests.factories import Table, action_id, online, play_to_end, play_turn, timed_room

pytestmark = pytest.mark.django_db


def run_out(table: Table) -> int:
    """Move the current turn's deadline into the past; the version the timeout is for."""
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    return table.version()


def test_a_started_game_with_a_timer_has_a_deadline_about_a_turn_away() -> None:
    table = timed_room(seconds=30)
    game = table.game
    assert game.turn_deadline is not None
    left = (game.turn_deadline - timezone.now()).total_seconds()
    assert 28 < left <= 30
    clock = game_state(game)["clock"]
    assert clock["seconds"] == 30 and 28 < clock["left"] <= 30


def test_no_timer_no_deadline() -> None:
    table = timed_room(seconds=0)
    assert table.game.turn_deadline is None and game_state(table.game)["clock"] is None


def test_a_timer_not_offered_is_refused() -> None:
    with pytest.raises(RuleViolation) as err:
        services.game_create(host_name="P0", controller=services.new_controller(), turn_timer=7)
    assert err.value.code == services.BAD_TIMER
    assert not Game.objects.exists()


def test_the_deadline_stays_within_a_turn_and_is_renewed_for_the_next() -> None:
    table = timed_room()
    first = table.game.turn_deadline
    services.turn_roll(code=table.code, controller=table.current(), expected_version=table.version(), action_id="r")
    assert table.game.turn_deadline == first
    play_turn_rest(table)
    assert table.game.turn_deadline is not None and table.game.turn_deadline > first


def play_turn_rest(table: Table) -> None:
    options = [o for o in game_state(table.game)["options"] if o["legal"]]
    services.turn_score(
        code=table.code,
        controller=table.current(),
        box=options[0]["box"],
        column=0,
        expected_version=table.version(),
        action_id=action_id(),
    )


def test_a_timeout_before_the_deadline_does_nothing() -> None:
    table = timed_room()
    version = table.version()
    assert services.clock_expire(code=table.code, version=version) is False
    assert table.version() == version


def test_a_timeout_rolls_and_scores_the_casual_box_once_and_replays() -> None:
    table = timed_room()
    version = run_out(table)
    assert services.clock_expire(code=table.code, version=version) is True
    assert services.clock_expire(code=table.code, version=version) is False  # the second process: too late
    moves = list(Move.objects.filter(game__code=table.code, seq__gt=version).order_by("seq"))
    assert [m.kind for m in moves] == ["timeout", "roll", "score"]
    assert moves[0].payload["streak"] == 1 and moves[0].payload["seat"] == 0
    game = table.game
    assert game.snapshot["rules"]["current"] == 1  # the turn passed on
    assert game.turn_deadline is not None and game.turn_deadline > timezone.now()
    # The box scored is the one with the most points for those dice.
    options = moves[2].payload
    assert options["points"] >= 0
    replay = replay_game(game)
    assert replay.problems == []
    assert replay.state is not None and state_to_dict(replay.state) == game.snapshot["rules"]


def test_a_timeout_after_a_roll_scores_the_dice_rolled() -> None:
    table = timed_room()
    services.turn_roll(code=table.code, controller=table.current(), expected_version=table.version(), action_id="r")
    dice = table.game.snapshot["rules"]["turn"]["dice"]
    version = run_out(table)
    assert services.clock_expire(code=table.code, version=version)
    kinds = list(Move.objects.filter(game__code=table.code, seq__gt=version).values_list("kind", "payload"))
    assert [k for k, _ in kinds] == ["timeout", "score"]
    assert kinds[1][1]["dice"] == dice


def test_a_stale_version_does_nothing() -> None:
    table = timed_room()
    version = run_out(table)
    services.turn_roll(code=table.code, controller=table.current(), expected_version=version, action_id="r")
    assert services.clock_expire(code=table.code, version=version) is False


def test_two_timeouts_in_a_row_hand_the_seat_to_a_computer_until_the_player_is_back() -> None:
    bots.tables.table("official", build=True)
    table = timed_room()
    p0 = table.controllers[0]
    rng = random.Random(3)
    assert services.clock_expire(code=table.code, version=run_out(table))  # P0's first timeout
    play_turn(table, rng)  # P1 plays
    assert services.clock_expire(code=table.code, version=run_out(table))  # P0's second in a row
    game = table.game
    seat = game.snapshot["seats"][0]
    assert seat["kind"] == "bot" and seat["away"] and seat["away_controller"] == p0
    assert game_state(game)["seats"][0]["away"] is True
    last = Move.objects.filter(game=game).order_by("-seq").first()
    assert last is not None and last.kind == "bot" and last.payload["away"] is True
    play_turn(table, rng)  # P1
    assert game.snapshot["rules"]["current"] in (0, 1)
    # A computer plays P0's turn: no deadline runs for it.
    assert table.game.turn_deadline is None
    assert botplay.step(table.code, table.version())
    # P0 is back: the seat is theirs again, and their clock runs again.
    assert services.seat_reclaim(code=table.code, controller=p0) == [0]
    seat = table.game.snapshot["seats"][0]
    assert seat["kind"] == "human" and "away" not in seat and "timeouts" not in seat
    assert table.game.turn_deadline is not None
    replay = replay_game(table.game)
    assert replay.problems == []


def test_a_player_acting_ends_their_run_of_timeouts() -> None:
    table = timed_room()
    rng = random.Random(4)
    assert services.clock_expire(code=table.code, version=run_out(table))
    play_turn(table, rng)  # P1
    play_turn(table, rng)  # P0 plays this time
    play_turn(table, rng)  # P1
    assert services.clock_expire(code=table.code, version=run_out(table))
    assert table.game.snapshot["seats"][0]["kind"] == "human"


def test_pause_stops_the_clock_and_turn_actions_and_resume_gives_the_time_left() -> None:
    table = timed_room()
    host = table.controllers[0]
    left_before = (table.game.turn_deadline - timezone.now()).total_seconds()
    services.game_pause(code=table.code, controller=host, expected_version=table.version(), action_id="p")
    game = table.game
    assert game.turn_deadline is None and game_state(game)["paused"] is True
    assert 25 < game_state(game)["clock"]["left"] <= 30
    version = table.version()
    with pytest.raises(RuleViolation) as err:
        services.turn_roll(code=table.code, controller=host, expected_version=version, action_id="r")
    assert err.value.code == services.YOU_PAUSED  # the host's own: theirs to resume
    assert table.version() == version
    assert services.clock_expire(code=table.code, version=version) is False
    with pytest.raises(RuleViolation) as err:
        services.game_pause(code=table.code, controller=host, expected_version=version, action_id="p2")
    assert err.value.code == services.YOU_PAUSED
    services.game_resume(code=table.code, controller=host, expected_version=version, action_id="res")
    game = table.game
    assert game.turn_deadline is not None and "paused" not in game.snapshot
    assert 25 < (game.turn_deadline - timezone.now()).total_seconds() <= left_before + 0.01
    kinds = list(Move.objects.filter(game=game).order_by("-seq").values_list("kind", flat=True)[:2])
    assert kinds == ["resume", "pause"]
    services.turn_roll(code=table.code, controller=host, expected_version=table.version(), action_id="r")


def test_the_host_who_acts_in_the_pause_is_told_it_is_theirs_to_resume_and_a_player_that_the_host_paused() -> None:
    """A roll of the host's from a page drawn before their pause (another tab), or a second pause,
    is refused in words about themselves (``you_paused``); a player's, in words about the host."""
    table = timed_room()
    host, player = table.controllers
    services.game_pause(code=table.code, controller=host, expected_version=table.version(), action_id="p")
    version = table.version()
    with pytest.raises(RuleViolation) as err:
        services.turn_roll(code=table.code, controller=host, expected_version=version, action_id="r")
    assert err.value.code == services.YOU_PAUSED
    assert err.value.message == "You paused the game: play goes on when you resume it."
    with pytest.raises(RuleViolation) as err:
        services.game_pause(code=table.code, controller=host, expected_version=version, action_id="p2")
    assert err.value.code == services.YOU_PAUSED
    with pytest.raises(RuleViolation) as err:
        services.turn_roll(code=table.code, controller=player, expected_version=version, action_id="r2")
    assert err.value.code == services.PAUSED
    assert err.value.message == "The host has paused the game: play goes on when they resume it."
    assert table.version() == version


def test_a_player_handed_the_host_during_the_pause_is_told_the_game_waits_for_their_resume() -> None:
    """P0 pauses and leaves the game: P1 hosts it now. The pause is not theirs, but the resume is:
    their roll is refused in words that say so (``yours_to_resume``), not as the host's pause, and
    the state names the seat whose pause it is (P0's, left), so their page says it too. P2 is not
    told that the host paused it (P1 did not), but that it goes on when P1, the host, resumes it."""
    table = timed_room(players=3)
    p0, p1, p2 = table.controllers
    services.game_pause(code=table.code, controller=p0, expected_version=table.version(), action_id="p")
    services.game_leave(code=table.code, controller=p0, seat=0, expected_version=None, action_id="l")
    game = table.game
    assert game.host_id == game.room.seats[1].player
    state = game_state(game)
    assert state["paused"] is True and state["paused_by"] == 0
    version = table.version()
    with pytest.raises(RuleViolation) as err:
        services.turn_roll(code=table.code, controller=p1, expected_version=version, action_id="r1")
    assert err.value.code == services.YOURS_TO_RESUME
    assert err.value.message == "The game is paused: play goes on when you resume it."
    with pytest.raises(RuleViolation) as err:
        services.turn_roll(code=table.code, controller=p2, expected_version=version, action_id="r2")
    assert err.value.code == services.HOST_TO_RESUME
    assert err.value.message == "The game is paused: play goes on when \u2068P1\u2069, the host, resumes it."
    services.game_resume(code=table.code, controller=p1, expected_version=version, action_id="res")
    assert game_state(table.game)["paused_by"] is None
    services.game_pause(code=table.code, controller=p1, expected_version=table.version(), action_id="p1")
    assert game_state(table.game)["paused_by"] == 1
    with pytest.raises(RuleViolation) as err:
        services.game_pause(code=table.code, controller=p1, expected_version=table.version(), action_id="p2")
    assert err.value.code == services.YOU_PAUSED


def test_a_room_paused_before_the_pause_named_who_paused_reads_as_paused_by_its_host() -> None:
    """A room stored paused without ``paused_by`` (by the release before) reads as its host's pause,
    as it did then: the host is told they paused it."""
    table = timed_room()
    host = table.controllers[0]
    services.game_pause(code=table.code, controller=host, expected_version=table.version(), action_id="p")
    game = table.game
    snapshot = dict(game.snapshot)
    assert snapshot.pop("paused_by") == game.host_id
    Game.objects.filter(pk=game.pk).update(snapshot=snapshot, version=game.version + 1)
    game = table.game
    assert game.room.paused and game.room.paused_by is None
    assert game_state(game)["paused_by"] == 0


def test_a_room_paused_before_the_pause_named_who_paused_tells_the_next_host_the_resume_is_theirs() -> None:
    """A room stored paused without ``paused_by`` (by the release before), whose host then leaves:
    P1, host now, did not pause it. The state names P0's seat, not P1's, so P1's page says the
    resume is theirs, as their refused roll does (``yours_to_resume``), not that they paused it."""
    table = timed_room(players=3)
    p0, p1, _p2 = table.controllers
    services.game_pause(code=table.code, controller=p0, expected_version=table.version(), action_id="p")
    game = table.game
    snapshot = dict(game.snapshot)
    snapshot.pop("paused_by")
    Game.objects.filter(pk=game.pk).update(snapshot=snapshot, version=game.version + 1)
    services.game_leave(code=table.code, controller=p0, seat=0, expected_version=None, action_id="l")
    game = table.game
    assert game.host_id == game.room.seats[1].player
    assert game_state(game)["paused_by"] == 0
    with pytest.raises(RuleViolation) as err:
        services.turn_roll(code=table.code, controller=p1, expected_version=table.version(), action_id="r")
    assert err.value.code == services.YOURS_TO_RESUME


def test_a_room_paused_before_the_pause_named_who_paused_reads_its_pauser_from_the_log() -> None:
    """A room stored paused without ``paused_by`` whose host role passed on under the release before
    (which named no pauser then): the state names the seat of the log's pause, P0's, as the refusals
    do, not the new host's. P1's page is not told P1 paused it; P2's, that P1 resumes it."""
    table = timed_room(players=3)
    p0, p1, p2 = table.controllers
    services.game_pause(code=table.code, controller=p0, expected_version=table.version(), action_id="p")
    game = table.game
    snapshot = dict(game.snapshot)
    snapshot.pop("paused_by")
    new_host = game.room.seats[1].player
    Game.objects.filter(pk=game.pk).update(snapshot=snapshot, host_id=new_host, version=game.version + 1)
    game = table.game
    assert game.room.paused_by is None and game.host_id == new_host
    assert game_state(game)["paused_by"] == 0
    with pytest.raises(RuleViolation) as err:
        services.turn_roll(code=table.code, controller=p1, expected_version=table.version(), action_id="r1")
    assert err.value.code == services.YOURS_TO_RESUME
    with pytest.raises(RuleViolation) as err:
        services.turn_roll(code=table.code, controller=p2, expected_version=table.version(), action_id="r2")
    assert err.value.code == services.HOST_TO_RESUME


def test_the_state_of_a_room_that_keeps_its_pauser_asks_the_database_nothing_more() -> None:
    """The state is built for every action: a paused room that names its pauser (every pause does)
    is read from the room alone, with as many queries as the same room not paused."""
    table = timed_room(players=3)
    game = table.game
    with CaptureQueriesContext(connection) as playing:
        game_state(game)
    services.game_pause(
        code=table.code, controller=table.controllers[0], expected_version=table.version(), action_id="p"
    )
    game = table.game
    with CaptureQueriesContext(connection) as paused:
        assert game_state(game)["paused_by"] == 0
    assert [q["sql"] for q in paused.captured_queries] == [q["sql"] for q in playing.captured_queries]


def test_only_the_host_pauses_and_only_a_paused_game_resumes() -> None:
    table = timed_room()
    online(table.code, table.controllers[0])  # the host is at the table: nobody else may act for them
    version = table.version()
    with pytest.raises(RuleViolation) as err:
        services.game_pause(code=table.code, controller=table.controllers[1], expected_version=version, action_id="p")
    assert err.value.code == services.NOT_HOST
    with pytest.raises(RuleViolation) as err:
        services.game_resume(code=table.code, controller=table.controllers[0], expected_version=version, action_id="p")
    assert err.value.code == services.NOT_PAUSED
    assert table.version() == version


def test_a_pause_names_the_seat_that_paused_it_for_the_pages_to_say_whose_pause_it_is() -> None:
    """The ``paused`` event is heard by a page on the state it holds, which may be older than the
    pause: the event names the seat that paused (the host's), so that page's words about it (its
    own pause, or the host's) come from the pause itself."""
    table = timed_room(players=3)
    services.game_pause(
        code=table.code, controller=table.controllers[0], expected_version=table.version(), action_id="p"
    )
    pause = Move.objects.filter(game=table.game, kind=Move.Kind.PAUSE).get()
    assert pause.payload["seat"] == 0 and pause.payload["name"] == "P0"


def test_a_resume_names_who_resumed_the_game_a_player_at_the_table_while_the_host_is_away() -> None:
    """Ann pauses and goes away; Ben resumes, and hosts from then on. The resume says it was Ben
    (its Move names his seat), and so does the line a notice of it reads."""
    table = timed_room()
    ann, ben = table.controllers
    services.game_pause(code=table.code, controller=ann, expected_version=table.version(), action_id="p")
    services.game_resume(code=table.code, controller=ben, expected_version=table.version(), action_id="r")
    game = table.game
    resume = Move.objects.filter(game=game, kind=Move.Kind.RESUME).get()
    assert resume.payload["seat"] == 1 and resume.payload["name"] == "P1"
    event = waiting.what_happened(
        game, game.room, kind=resume.kind, player_id=resume.player_id, payload=resume.payload, action_id="r"
    )
    assert waiting.word(event, game.ruleset, plain=True) == "P1 resumed the game"
    # A notice owed before its event named anyone says it of the host.
    assert waiting.word({"what": "resumed"}, game.ruleset, plain=True) == "The host resumed the game"


def test_a_timed_out_game_passes_the_fairness_check_when_it_ends() -> None:
    table = timed_room(players=1)
    while table.game.status == Game.Status.PLAYING:
        assert services.clock_expire(code=table.code, version=run_out(table))
        seat = table.game.snapshot["seats"][0]
        if seat["kind"] == "bot":
            services.seat_reclaim(code=table.code, controller=table.controllers[0])
    game = table.game
    assert game.status == Game.Status.FINISHED
    assert verify_fairness(game).ok
    assert replay_game(game).problems == []


def test_the_replay_page_tells_the_timeouts_and_the_coach_does_not_judge_them() -> None:
    from games.services import coach
    from games.services.replay import replay_steps

    bots.tables.table("official", build=True)
    table = timed_room(players=1)
    assert services.clock_expire(code=table.code, version=run_out(table))
    timed = set(
        Move.objects.filter(game__code=table.code, action_id__startswith="timeout-").values_list("seq", flat=True)
    )
    play_to_end(table, random.Random(2))
    game = table.game
    steps = replay_steps(game)
    assert any(step["kind"] == "timeout" and "time ran out" in step["text"] for step in steps)
    judged = {v["move"] for v in coach.verdicts(game)[0]}
    assert judged and not judged & timed


def test_a_turn_that_came_up_during_the_pause_resumes_with_the_whole_time_and_says_so() -> None:
    """P1 had 5 s left when the host paused; P1 then left, so it is P2's turn: resuming gives P2 a
    fresh 30 s, and the `resumed` event says 30, not P1's 5."""
    table = timed_room(players=3)
    host = table.controllers[0]
    play_turn(table, random.Random(2))  # P1 to play
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() + timedelta(seconds=5))
    services.game_pause(code=table.code, controller=host, expected_version=None, action_id="p")
    services.game_leave(code=table.code, controller=table.controllers[1], seat=1, expected_version=None, action_id="l")
    assert table.game.room.rules.current == 2
    services.game_resume(code=table.code, controller=host, expected_version=None, action_id="r")
    game = table.game
    resumed = Move.objects.filter(game=game, kind="resume").get()
    assert resumed.payload["left"] == 30
    assert 29 < (game.turn_deadline - timezone.now()).total_seconds() <= 30
    assert game_state(game)["clock"]["left"] > 29


def test_while_paused_a_turn_that_came_up_shows_the_time_the_resume_will_give_it() -> None:
    """P0 (the host) had 5 s of 30 left and paused, then left: P1's turn came up during the pause.
    Every page (the state's clock) and P1's Your games show the whole 30 s the resume gives P1,
    not P0's 5 s."""
    table = timed_room(players=3)
    p0, p1 = table.controllers[0], table.controllers[1]
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() + timedelta(seconds=5))
    services.game_pause(code=table.code, controller=p0, expected_version=None, action_id=action_id())
    assert game_state(table.game)["clock"]["left"] == pytest.approx(5, abs=1)  # P0's own turn keeps its time
    services.game_leave(code=table.code, controller=p0, seat=0, expected_version=None, action_id=action_id())
    state = game_state(table.game)
    assert state["paused"] and state["turn"]["seat"] == 1
    row = next(r for r in my_games(p1) if r["code"] == table.code)
    assert state["clock"]["left"] == row["left"] == 30
    services.game_resume(code=table.code, controller=p1, expected_version=None, action_id=action_id())
    assert 29 < (table.game.turn_deadline - timezone.now()).total_seconds() <= 30


def test_while_paused_a_computers_turn_that_came_up_shows_no_countdown() -> None:
    """A computer's turn has no clock: one that came up during the pause is shown without the
    time the turn before it had left."""
    host, other = services.new_controller(), services.new_controller()
    code = services.game_create(host_name="P0", controller=host, turn_timer=30).game.code
    services.game_add_bot(code=code, controller=host, expected_version=None, action_id=action_id())
    services.game_join(code=code, name="P2", controller=other)
    services.game_start(code=code, controller=host, expected_version=None, action_id=action_id())
    Game.objects.filter(code=code).update(turn_deadline=timezone.now() + timedelta(seconds=5))
    services.game_pause(code=code, controller=host, expected_version=None, action_id=action_id())
    services.game_leave(code=code, controller=host, seat=0, expected_version=None, action_id=action_id())
    state = game_state(Game.objects.get(code=code))
    assert state["paused"] and state["seats"][state["turn"]["seat"]]["kind"] == "bot"
    assert state["clock"]["left"] is None and state["clock"]["deadline"] is None
    row = next(r for r in my_games(other) if r["code"] == code)
    assert row["left"] is None


def test_a_player_handed_the_host_during_a_pause_is_not_told_they_paused_it() -> None:
    """P0 pauses and leaves the game; P1 hosts from then on. P1's roll and pause meet P0's pause:
    P1 did not pause the game, so the words are not "You paused the game", nor of the host's pause,
    but that the game waits for P1's resume (``yours_to_resume``)."""
    table = timed_room(players=3)
    p0, p1, _p2 = table.controllers
    services.game_pause(code=table.code, controller=p0, expected_version=table.version(), action_id="p")
    services.game_leave(code=table.code, controller=p0, seat=0, expected_version=table.version(), action_id="out")
    game = table.game
    assert game.room.paused and game.room.seat_of_player(game.host_id) == 1
    version = table.version()
    with pytest.raises(RuleViolation) as err:
        services.turn_roll(code=table.code, controller=p1, expected_version=version, action_id="r")
    assert err.value.code == services.YOURS_TO_RESUME
    with pytest.raises(RuleViolation) as err:
        services.game_pause(code=table.code, controller=p1, expected_version=version, action_id="p2")
    assert err.value.code == services.YOURS_TO_RESUME
    assert table.version() == version
    services.game_resume(code=table.code, controller=p1, expected_version=version, action_id="go")
    services.game_pause(code=table.code, controller=p1, expected_version=table.version(), action_id="p3")
    with pytest.raises(RuleViolation) as err:  # a pause of their own, once they host: theirs
        services.turn_roll(code=table.code, controller=p1, expected_version=table.version(), action_id="r2")
    assert err.value.code == services.YOU_PAUSED


def told_states(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The state frames the room's sockets are sent from here on, decoded."""
    sent: list[dict[str, Any]] = []

    def publish(code: str, frames: list[str], version: int | None = None, **_: Any) -> None:
        sent.extend(f for f in map(json.loads, frames) if f.get("type") == "state")

    monkeypatch.setattr(fanout, "publish_soon", publish)
    return sent


def lines(frame: dict[str, Any]) -> list[str]:
    """The events a state frame tells, in the order the page hears them."""
    return [e["type"] for e in (*frame.get("earlier", ()), *([frame["event"]] if "event" in frame else ()))]


def test_the_pages_open_hear_a_timeout_and_the_turn_it_played_in_one_state(
    django_capture_on_commit_callbacks, monkeypatch
) -> None:
    table = timed_room()
    sent = told_states(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.clock_expire(code=table.code, version=run_out(table))
    assert len(sent) == 1 and sent[0]["version"] == table.version()
    assert lines(sent[0]) == ["timed_out", "rolled", "scored"]
    assert sent[0]["event"]["type"] == "scored"  # a page of the release before reads the last as it did
    assert [e["version"] for e in sent[0]["earlier"]] == [table.version() - 2, table.version() - 1]


def test_a_second_timeout_tells_the_computer_taking_the_seat_after_the_turn_it_played(
    django_capture_on_commit_callbacks, monkeypatch
) -> None:
    bots.tables.table("official", build=True)
    table = timed_room()
    assert services.clock_expire(code=table.code, version=run_out(table))
    play_turn(table, random.Random(3))
    sent = told_states(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.clock_expire(code=table.code, version=run_out(table))
    assert [lines(frame) for frame in sent] == [["timed_out", "rolled", "scored", "bot"]]
    assert sent[0]["earlier"][0]["streak"] == 2 and sent[0]["event"]["away"] is True


def test_an_action_of_one_move_or_a_hold_and_its_roll_tells_one_event(
    django_capture_on_commit_callbacks, monkeypatch
) -> None:
    table = timed_room()
    sent = told_states(monkeypatch)
    who = table.current()
    with django_capture_on_commit_callbacks(execute=True):
        services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id="r1")
    with django_capture_on_commit_callbacks(execute=True):
        services.turn_roll(
            code=table.code, controller=who, held=[0, 1], expected_version=table.version(), action_id="r2"
        )
    assert [lines(frame) for frame in sent] == [["rolled"], ["rolled"]]
    assert "earlier" not in sent[1] and sent[1]["event"]["held"] == [0, 1]


def test_an_action_committed_before_a_rolled_back_one_of_the_same_room_is_still_told(
    django_capture_on_commit_callbacks, monkeypatch
) -> None:
    """A transaction of several actions, the last of them undone with its savepoint (it failed after
    its move was written): the moves that stay are committed, and the room's pages hear of them."""
    from django.db import transaction

    table = timed_room()
    sent = told_states(monkeypatch)
    who = table.current()
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id="r1")
        kept = table.version()
        with pytest.raises(RuntimeError), transaction.atomic():
            services.turn_roll(code=table.code, controller=who, expected_version=kept, action_id="r2")
            raise RuntimeError("undone after its move")
    assert table.version() == kept
    assert [(frame["version"], lines(frame)) for frame in sent] == [(kept, ["rolled"])]


def test_a_move_kept_before_an_undone_one_on_the_same_room_object_is_told_with_the_room_as_committed(
    django_capture_on_commit_callbacks, monkeypatch
) -> None:
    """The undone move's write went through the same Game object: the pages are told the room as
    it was committed, not the version and state the savepoint undid."""
    from django.db import transaction

    from games.services.actions import locked, record

    table = timed_room()
    sent = told_states(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        game = locked(table.code)
        record(game, kind=Move.Kind.EXTEND, player_id=None, payload={}, actor="staff", action_id="")
        kept = game.version
        with pytest.raises(RuntimeError), transaction.atomic():
            record(game, kind=Move.Kind.EXTEND, player_id=None, payload={}, actor="staff", action_id="")
            raise RuntimeError("undone after its move")
    assert table.version() == kept
    assert [frame["version"] for frame in sent] == [kept]

"""games.store.selectors: the reads behind the pages, the sockets, the coach and the bots."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games.store import selectors
from games.store.models import Game, Presence
from tests.factories import GameFactory, MoveFactory, open_room, play_to_end, play_turn, seated_game

pytestmark = pytest.mark.django_db


def test_a_room_is_found_by_its_code_and_an_unknown_code_finds_none() -> None:
    game = GameFactory(version=7)
    assert selectors.room(game.code) == game == selectors.room_or_none(game.code)
    assert selectors.room_version(game.code) == 7
    with pytest.raises(Game.DoesNotExist):
        selectors.room("NOPE99")
    assert selectors.room_or_none("NOPE99") is None and selectors.room_version("NOPE99") is None


def test_the_roll_log_lists_only_the_rolls_in_order() -> None:
    game = GameFactory()
    MoveFactory(game=game, seq=3, kind="roll", payload={"roll": 1, "held": [0], "faces": [2, 3, 4, 5], "dice": [6] * 5})
    MoveFactory(game=game, seq=2, kind="hold", payload={"held": [0]})
    MoveFactory(game=game, seq=1, kind="roll", payload={"roll": 0, "held": [], "faces": [6] * 5, "dice": [6] * 5})
    assert [m.seq for m in selectors.moves_in_order(game)] == [1, 2, 3]
    assert [m.seq for m in selectors.roll_moves(game)] == [1, 3]
    log = selectors.roll_log(game)
    assert [(r["move"], r["roll"], r["held"]) for r in log] == [(1, 0, []), (3, 1, [0])]


def test_connected_seats_count_only_sockets_that_pinged_lately() -> None:
    game, players = seated_game(2)
    other, others = seated_game(1)
    now = timezone.now()
    Presence.objects.create(game=game, channel_name="a", controller=players[0].controller, seen_at=now)
    Presence.objects.create(game=game, channel_name="b", controller="", seen_at=now)  # a spectator
    Presence.objects.create(
        game=game, channel_name="c", controller=players[1].controller, seen_at=now - timedelta(minutes=5)
    )  # its process died
    Presence.objects.create(game=other, channel_name="d", controller=others[0].controller, seen_at=now)
    assert sorted(selectors.connected_seats(game)) == [[], [0]]


def test_a_game_is_over_when_finished_or_abandoned_and_only_then_shows_its_seed() -> None:
    table = open_room(1)
    play_turn(table, random.Random(3))
    game = table.game
    for status, over in [("lobby", False), ("playing", False), ("finished", True), ("abandoned", True)]:
        game.status = status
        assert game.is_over is over
        assert (selectors.game_state(game)["fairness"]["server_seed"] is not None) is over


def test_the_rule_sets_part_of_the_state_is_built_once_and_no_game_changes_it() -> None:
    table = open_room(2, "triple")
    play_to_end(table, random.Random(3))
    game = Game.objects.get(code=table.code)
    shared = selectors.ruleset_info("triple")
    assert selectors.game_state(game)["ruleset"] is shared
    assert shared == selectors.ruleset_info.__wrapped__("triple")  # as built fresh, after a whole game


@pytest.mark.parametrize(
    ("seconds", "said"),
    [
        (3 * 86_400 - 0.004, "3 days"),  # a fresh 3-day move, a few milliseconds gone
        (6 * 3_600 - 0.004, "6 hours"),  # the reminder of a 1-day move, a quarter left
        (86_400 + 4 * 3_600 + 29 * 60 + 29, "1 day 4 hours"),
        (43_200, "12 hours"),
        (90, "2 minutes"),  # halves up, as the room's countdown rounds
        (59.5, "1 minute"),
        (59.4, "59 seconds"),  # under a minute: to the nearest second, not a minute
        (10, "10 seconds"),
        (1, "1 second"),
        (0.2, "1 second"),
        (0, "no limit"),
    ],
)
def test_a_span_is_said_to_the_nearest_minute_or_under_a_minute_in_seconds(seconds: float, said: str) -> None:
    assert selectors.duration(seconds) == said


def test_the_time_left_is_up_once_none_is_left_and_no_limit_stays_the_words_of_no_time_per_move() -> None:
    assert selectors.time_left(0) == selectors.time_left(-5) == "time is up"
    assert selectors.time_left(86_400) == "1 day"
    assert selectors.duration(0) == "no limit"

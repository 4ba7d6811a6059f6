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


# The instants every place that words a time left or a time per move is tested at: the server's
# duration, the room's script (tests/e2e/test_room_render.py: render.duration and the own pace's
# countdown, render.clockText), Your games, the reminder's e-mail and push. (seconds, as the
# server and the script say it, as the own pace's countdown shows it).
SPANS = [
    (3 * 86_400, "3 days", "3 d 0 h"),  # a time per move
    (3 * 86_400 - 0.004, "2 days 23 hours", "2 d 23 h"),  # a fresh 3-day move, a few milliseconds gone
    (86_400 + 4 * 3_600 + 29 * 60 + 29, "1 day 4 hours", "1 d 4 h"),
    (50_399, "13 hours 59 minutes", "13 h 59 min"),  # 14 hours less a second
    (50_340, "13 hours 59 minutes", "13 h 59 min"),
    (50_339.9, "13 hours 58 minutes", "13 h 58 min"),
    (43_200, "12 hours", "12 h 0 min"),
    (6 * 3_600 - 0.004, "5 hours 59 minutes", "5 h 59 min"),  # the reminder of a 1-day move, a quarter left
    (3_600, "1 hour", "1 h 0 min"),
    (3_659, "1 hour", "1 h 0 min"),
    (3_660, "1 hour 1 minute", "1 h 1 min"),
    (1_200, "20 minutes", "20 min"),
    (119.9, "1 minute", "1 min"),
    (60, "1 minute", "1 min"),
    (59.5, "60 seconds", "1:00"),  # under a minute: the seconds begun, as the countdown shows them
    (45, "45 seconds", "0:45"),
    (9.2, "10 seconds", "0:10"),
    (1, "1 second", "0:01"),
    (0.2, "1 second", "0:01"),
]


@pytest.mark.parametrize(("seconds", "said", "shown"), SPANS)
def test_a_span_is_said_in_its_two_largest_units_never_more_than_is_left(seconds: float, said: str, shown: str) -> None:
    assert selectors.duration(seconds) == said


def test_the_time_left_is_up_once_none_is_left_and_no_limit_stays_the_words_of_no_time_per_move() -> None:
    assert selectors.time_left(0) == selectors.time_left(-5) == "time is up"
    assert selectors.time_left(86_400) == "1 day"
    assert selectors.duration(0) == "no limit"

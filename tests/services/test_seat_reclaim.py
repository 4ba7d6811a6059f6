"""A player whose seat a computer took over while they were away gets it back by coming back (same browser)."""

from __future__ import annotations

import random

import pytest

import bots
from games import services
from games.domain.rules import RuleViolation
from games.scheduling import botplay
from games.services.replay import replay_game
from games.store.models import Game, Move, Player
from tests.factories import Table, action_id, open_room, play_turn

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module", autouse=True)
def official_table() -> None:
    bots.tables.table("official", build=True)


def hand_over(table: Table, seat: int = 1) -> str:
    """The host hands the away player's seat to a computer; returns that player's browser token."""
    away = table.controllers[seat]
    services.game_replace_with_bot(
        code=table.code,
        controller=table.controllers[0],
        seat=seat,
        expected_version=table.version(),
        action_id=action_id(),
    )
    return away


def test_coming_back_gives_the_seat_back_with_a_move_that_tells_everyone() -> None:
    table = open_room(2)
    rng = random.Random(1)
    play_turn(table, rng)  # P0
    away = hand_over(table)
    assert botplay.step(table.code, table.version())  # the computer starts P1's turn: it rolls
    version = table.version()
    assert services.seat_reclaim(code=table.code, controller=away) == [1]
    game = table.game
    seat = game.snapshot["seats"][1]
    assert seat["kind"] == "human" and seat["controller"] == away and "level" not in seat
    assert "away_controller" not in seat
    player = Player.objects.get(pk=seat["player"])
    assert (player.kind, player.controller) == ("human", away)
    move = Move.objects.get(game=game, kind=Move.Kind.RECLAIM)
    assert move.seq == version + 1 == game.version and move.payload == {"seat": 1, "name": "P1"}
    # The computer no longer plays the seat; its person does, from where the turn stands.
    assert not botplay.step(table.code, table.version())
    services.turn_score(
        code=table.code, controller=away, box="chance", column=0, expected_version=table.version(), action_id="c"
    )
    assert table.game.snapshot["rules"]["current"] == 0
    assert replay_game(table.game).problems == []


def test_coming_back_twice_or_from_another_browser_changes_nothing() -> None:
    table = open_room(3)
    play_turn(table, random.Random(2))
    away = hand_over(table, seat=2)
    before = (table.version(), table.game.snapshot)
    assert services.seat_reclaim(code=table.code, controller=table.controllers[1]) == []
    assert services.seat_reclaim(code=table.code, controller=services.new_controller()) == []
    assert services.seat_reclaim(code=table.code, controller="") == []
    assert (table.version(), table.game.snapshot) == before
    assert services.seat_reclaim(code=table.code, controller=away) == [2]
    after = table.version()
    assert services.seat_reclaim(code=table.code, controller=away) == []
    assert table.version() == after
    assert services.seat_reclaim(code="nosuchroom", controller=away) == []


def test_a_player_who_left_on_purpose_does_not_take_the_seat_back() -> None:
    table = open_room(2)
    play_turn(table, random.Random(3))
    gone = table.controllers[1]
    services.game_leave(code=table.code, controller=gone, seat=1, expected_version=table.version(), action_id="bye")
    services.game_replace_with_bot(
        code=table.code, controller=table.controllers[0], seat=1, expected_version=table.version(), action_id="b"
    )
    version = table.version()
    assert services.seat_reclaim(code=table.code, controller=gone) == []
    assert table.version() == version and table.game.snapshot["seats"][1]["kind"] == "bot"


def test_after_the_game_the_seat_stays_as_it_was() -> None:
    table = open_room(2)
    rng = random.Random(6)
    play_turn(table, rng)
    away = hand_over(table)
    while table.game.status == Game.Status.PLAYING:
        if table.game.snapshot["rules"]["current"] == 1:
            assert botplay.step(table.code, table.version())
        else:
            play_turn(table, rng)
    version = table.version()
    assert services.seat_reclaim(code=table.code, controller=away) == []
    assert table.version() == version


def test_the_old_browser_cannot_act_for_the_seat_until_it_comes_back() -> None:
    table = open_room(2)
    play_turn(table, random.Random(7))
    away = hand_over(table)
    version = table.version()
    with pytest.raises(RuleViolation) as refused:
        services.turn_roll(code=table.code, controller=away, expected_version=version, action_id="r")
    assert refused.value.code == services.NOT_A_PLAYER and table.version() == version
    services.seat_reclaim(code=table.code, controller=away)
    services.turn_roll(code=table.code, controller=away, expected_version=table.version(), action_id="r")
    assert table.game.snapshot["rules"]["turn"]["rolls_used"] == 1

"""A player whose seat a computer took over while they were away gets it back by coming back (same browser;
on a shared device, by naming the seat)."""

from __future__ import annotations

import random

import pytest
from django.db import transaction

import bots
from games import services
from games.domain.rules import RuleViolation
from games.scheduling import botplay
from games.services.actions import locked
from games.services.clock import _hand_to_computer
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


def shared_device_with_two_away_seats() -> tuple[str, str]:
    """Pass-and-play: Cat, Dan and Eve at one device; Dan's and Eve's turns ran out and computers
    play their seats. Returns the game's code and the device's token."""
    device = services.new_controller()
    game = services.local_game_create(names=["Cat", "Dan", "Eve"], controller=device)
    for seat in (1, 2):
        with transaction.atomic():
            _hand_to_computer(locked(game.code), seat)
    assert [(s.kind, s.away) for s in Game.objects.get(code=game.code).room.seats] == [
        ("human", False),
        ("bot", True),
        ("bot", True),
    ]
    return game.code, device


def test_on_a_shared_device_a_player_coming_back_does_not_take_back_every_away_seat_of_the_device() -> None:
    """A tap at the device, or its socket connecting, names no seat: whoever is there is not
    the one who walked off, so no seat is handed back (its clock would run out twice again)."""
    code, device = shared_device_with_two_away_seats()
    before = Game.objects.get(code=code)
    assert services.seat_reclaim(code=code, controller=device) == []
    after = Game.objects.get(code=code)
    assert (after.version, after.snapshot) == (before.version, before.snapshot)


def test_on_a_shared_device_the_player_who_names_their_seat_takes_back_that_seat_only() -> None:
    code, device = shared_device_with_two_away_seats()
    assert services.seat_reclaim(code=code, controller=device, seat=1) == [1]
    game = Game.objects.get(code=code)
    assert [(s.kind, s.away) for s in game.room.seats] == [("human", False), ("human", False), ("bot", True)]
    assert game.room.seats[1].controller == device
    move = Move.objects.get(game=game, kind=Move.Kind.RECLAIM)
    assert move.payload == {"seat": 1, "name": "Dan"}
    # Dan's second tap on the button (the first already took the seat back) changes nothing.
    assert services.seat_reclaim(code=code, controller=device, seat=1) == []
    assert Game.objects.get(code=code).version == game.version


def test_a_seat_named_that_is_not_there_or_not_the_browsers_is_refused_and_changes_nothing() -> None:
    code, device = shared_device_with_two_away_seats()
    table = open_room(2)
    play_turn(table, random.Random(8))
    away = hand_over(table)
    before = [(Game.objects.get(code=c).version, Game.objects.get(code=c).snapshot) for c in (code, table.code)]
    for room, controller, seat, why in (
        (code, device, 3, services.BAD_SEAT),
        (table.code, table.controllers[0], 1, services.NOT_RECLAIMABLE),
        (table.code, away, 0, services.NOT_RECLAIMABLE),
    ):
        with pytest.raises(RuleViolation) as refused:
            services.seat_reclaim(code=room, controller=controller, seat=seat)
        assert refused.value.code == why
    after = [(Game.objects.get(code=c).version, Game.objects.get(code=c).snapshot) for c in (code, table.code)]
    assert after == before


def test_a_browser_with_one_seat_takes_it_back_whether_or_not_it_names_it() -> None:
    table = open_room(3)
    play_turn(table, random.Random(9))
    away = hand_over(table, seat=2)
    assert services.seat_reclaim(code=table.code, controller=away, seat=2) == [2]
    assert table.game.room.seats[2].controller == away
    hand_over(table, seat=2)
    assert services.seat_reclaim(code=table.code, controller=away) == [2]

"""The seats' Player rows follow the room (games.store.players), whatever changed the seats."""

from __future__ import annotations

import pytest

from games import services
from games.domain.room import ACTIVE, BOT, HUMAN, LEFT, Room
from games.domain.rules import apply_rolled
from games.store import players
from games.store.models import Game, Player
from tests.factories import action_id, open_room, seated_game

pytestmark = pytest.mark.django_db


def rows_match_the_room(code: str) -> None:
    game = Game.objects.get(code=code)
    seated = {p.pk: p for p in Player.objects.filter(game=game, seat__isnull=False)}
    assert sorted(seated) == sorted(seat.player for seat in game.room.seats)
    for index, seat in enumerate(game.room.seats):
        row = seated[seat.player]
        assert (row.seat, row.name, row.controller, row.kind, row.status, row.away_controller) == (
            index,
            seat.name,
            seat.controller,
            seat.kind,
            seat.status,
            seat.away_controller,
        )


def test_rows_follow_the_room_through_the_lobby_and_the_game() -> None:
    table = open_room(4, start=False)
    host = table.controllers[0]
    services.game_add_bot(code=table.code, controller=host, expected_version=None, action_id=action_id())
    rows_match_the_room(table.code)
    # Seat 1 leaves the lobby: the seats after it move up, each row with its seat.
    leaver = Game.objects.get(code=table.code).room.seats[1].player
    services.game_leave(code=table.code, controller=table.controllers[1], seat=1, expected_version=None, action_id="")
    rows_match_the_room(table.code)
    assert Player.objects.filter(pk=leaver).values_list("seat", "status").get() == (None, "left")
    services.game_start(code=table.code, controller=host, expected_version=None, action_id="")
    # Mid-game: a seat handed to a computer, taken back, and a browser's seats joining an account.
    services.game_replace_with_bot(
        code=table.code, controller=host, seat=2, expected_version=None, action_id=action_id()
    )
    rows_match_the_room(table.code)
    assert Player.objects.get(pk=Game.objects.get(code=table.code).room.seats[2].player).away_controller
    assert services.seat_reclaim(code=table.code, controller=table.controllers[3]) == [2]
    rows_match_the_room(table.code)
    services.seats_hand_over(controller=table.controllers[2], to="account-token")
    rows_match_the_room(table.code)
    services.game_leave(code=table.code, controller="account-token", seat=1, expected_version=None, action_id="")
    rows_match_the_room(table.code)


def test_nothing_is_written_when_no_seat_changed(django_assert_num_queries) -> None:  # type: ignore[no-untyped-def]
    game, _ = seated_game(2)
    room = game.room
    with django_assert_num_queries(0):
        players.follow(game, room, room.change(rolls=room.rolls + 1))
        players.follow(game, room, Room.from_snapshot(game.snapshot))


def test_only_the_fields_that_changed_are_written(django_assert_num_queries) -> None:  # type: ignore[no-untyped-def]
    game, rows = seated_game(2)
    room = game.room
    with django_assert_num_queries(1) as captured:
        players.follow(game, room, room.with_seat(1, name="Renamed"))
    sql = captured.captured_queries[0]["sql"]
    assert '"name"' in sql and '"controller"' not in sql
    assert Player.objects.get(pk=rows[1].pk).name == "Renamed"


def test_the_room_column_keeps_the_stored_rules_until_the_rules_change() -> None:
    table = open_room(2)
    game = Game.objects.get(code=table.code)
    stored = game.snapshot["rules"]
    game.room = game.room.with_seat(0, muted=True)
    assert game.snapshot["rules"] is stored and game.snapshot["seats"][0]["muted"] is True
    rules = game.room.rules
    assert rules is not None
    game.room = game.room.with_rules(apply_rolled(rules, player=0, faces=[6, 6, 6, 6, 6]))
    assert game.snapshot["rules"]["turn"]["dice"] == [6, 6, 6, 6, 6]
    assert stored["turn"]["dice"] == []  # the stored form read is not changed in place
    assert Room.from_snapshot(game.snapshot) == game.room


def test_a_snapshot_replaced_on_the_row_is_decoded_again() -> None:
    game, _ = seated_game(2)
    assert len(game.room.seats) == 2
    game.refresh_from_db()
    game.snapshot = {"seats": [], "rules": None, "rolls": 0}
    assert game.room == Room()


def test_the_room_s_seat_kinds_and_statuses_are_the_player_rows_choices() -> None:
    assert (HUMAN, BOT) == (Player.Kind.HUMAN, Player.Kind.BOT)
    assert (ACTIVE, LEFT) == (Player.Status.ACTIVE, Player.Status.LEFT)

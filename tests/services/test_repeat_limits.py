"""What a person may do again and again in one game, each a Move the log keeps for ever: done as
often as one game allows (games.domain.room.LIMITS), it is refused and nothing is stored; the way
back (a resume, an unmute, a leave) never is; and a game played as people play never meets a limit."""

from __future__ import annotations

import random
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.domain.room import LIMITS
from games.services import turns
from games.store.models import Game, Move
from tests.factories import Table, action_id, open_room, play_to_end, score_first_legal, spectators_chat_room
from tests.services.test_services import refused

pytestmark = pytest.mark.django_db


def pause(table: Table) -> None:
    services.game_pause(code=table.code, controller=table.controllers[0], expected_version=None, action_id=action_id())


def resume(table: Table) -> None:
    services.game_resume(code=table.code, controller=table.controllers[0], expected_version=None, action_id=action_id())


def test_the_host_pauses_a_game_as_often_as_one_game_allows_and_may_always_resume() -> None:
    table = open_room(2)
    for _ in range(LIMITS["pauses"] - 1):
        pause(table)
        resume(table)
    pause(table)
    assert table.game.room.done("pauses") == LIMITS["pauses"]
    resume(table)  # the last pause allowed is resumed as every other
    error = refused(table.code, services.PAUSES_USED_UP, lambda: pause(table))
    assert str(LIMITS["pauses"]) in error.message
    # Play goes on.
    who = table.current()
    services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())


def test_a_pause_is_counted_without_reading_the_log() -> None:
    """The count is the room's, in the snapshot every action reads and writes anyway."""
    table = open_room(2)
    pause(table)
    resume(table)
    with CaptureQueriesContext(connection) as queries:
        pause(table)
    assert not [q["sql"] for q in queries if re.search(r'FROM\s+"?games_move\b', q["sql"])]


def test_the_host_mutes_chat_as_often_as_one_game_allows_and_may_always_unmute() -> None:
    table = spectators_chat_room(("Ann", "Bob", "Cy"))
    ann = table.controllers[0]

    def mute(seat: int) -> None:
        services.seat_mute(code=table.code, controller=ann, seat=seat, expected_version=None, action_id=action_id())

    def unmute(seat: int) -> None:
        services.seat_unmute(code=table.code, controller=ann, seat=seat, expected_version=None, action_id=action_id())

    handle = services.chat_post(code=table.code, controller=services.new_controller(), text="hello")["spectator"]
    services.spectator_mute(code=table.code, controller=ann, spectator=handle, expected_version=None, action_id="m")
    services.spectator_unmute(code=table.code, controller=ann, spectator=handle, expected_version=None, action_id="u")
    for n in range(LIMITS["mutes"] - 2):
        mute(1 + n % 2)
        unmute(1 + n % 2)
    mute(1)
    assert table.game.room.done("mutes") == LIMITS["mutes"]
    refused(table.code, services.MUTES_USED_UP, lambda: mute(2))
    refused(
        table.code,
        services.MUTES_USED_UP,
        lambda: services.spectator_mute(
            code=table.code, controller=ann, spectator=handle, expected_version=None, action_id="again"
        ),
    )
    unmute(1)  # a mute is always lifted
    assert not any(seat.muted for seat in table.game.room.seats)


def test_seats_are_taken_in_a_lobby_as_often_as_one_game_allows_and_may_always_be_left() -> None:
    """A join and a leave, or a computer added and taken out, in a loop: each a Move and a Player row."""
    table = open_room(1, start=False)
    ann = table.controllers[0]
    ben = services.new_controller()

    def join(who: str, name: str = "Ben") -> None:
        services.game_join(code=table.code, name=name, controller=who, expected_version=None, action_id=action_id())

    def add_bot() -> None:
        services.game_add_bot(code=table.code, controller=ann, expected_version=None, action_id=action_id())

    for _ in range(LIMITS["joins"] - 2):
        join(ben)
        services.game_leave(code=table.code, controller=ben, seat=1, expected_version=None, action_id=action_id())
    add_bot()
    services.game_kick(code=table.code, controller=ann, seat=1, expected_version=None, action_id=action_id())
    join(ben)
    assert table.game.room.done("joins") == LIMITS["joins"]
    rows = table.game.players.count()
    refused(table.code, services.JOINS_USED_UP, lambda: join(services.new_controller(), "Cy"))
    refused(table.code, services.JOINS_USED_UP, add_bot)
    assert table.game.players.count() == rows
    services.game_leave(code=table.code, controller=ben, seat=1, expected_version=None, action_id=action_id())
    # The host still starts the game, and a double click on the join form still answers with its seat.
    services.game_join(code=table.code, name="P0", controller=ann)
    services.game_start(code=table.code, controller=ann, expected_version=None, action_id=action_id())
    assert table.game.status == Game.Status.PLAYING


def test_seats_are_handed_to_a_computer_as_often_as_one_game_allows() -> None:
    """The host's computer for a seat that left, taken out again, and so on: each a Move."""
    table = open_room(3)
    ann, ben, _cy = table.controllers
    services.game_leave(code=table.code, controller=ben, seat=1, expected_version=None, action_id=action_id())

    def hand_over() -> None:
        services.game_replace_with_bot(
            code=table.code, controller=ann, seat=1, expected_version=None, action_id=action_id()
        )

    for _ in range(LIMITS["handovers"]):
        hand_over()
        services.game_remove_absent(
            code=table.code, controller=ann, seat=1, expected_version=None, action_id=action_id()
        )
    assert table.game.room.done("handovers") == LIMITS["handovers"]
    refused(table.code, services.HANDOVERS_USED_UP, hand_over)


def test_a_game_has_as_many_rematches_as_one_game_allows_and_the_last_is_still_followed() -> None:
    """Everyone leaving the rematch's lobby and asking again: each a Move of the old game and a room."""
    table = open_room(1)
    ann = table.controllers[0]
    play_to_end(table, random.Random(3), rerolls=0)
    for _ in range(LIMITS["rematches"]):
        new = services.game_rematch(code=table.code, controller=ann)
        services.game_leave(code=new.code, controller=ann, seat=0, expected_version=None, action_id=action_id())
    rooms = Game.objects.count()
    refused(table.code, services.REMATCHES_USED_UP, lambda: services.game_rematch(code=table.code, controller=ann))
    assert Game.objects.count() == rooms
    assert table.game.room.done("rematches") == LIMITS["rematches"]


def test_a_rematch_that_is_there_is_followed_however_many_were_made() -> None:
    table = open_room(1)
    ann = table.controllers[0]
    play_to_end(table, random.Random(4), rerolls=0)
    new = services.game_rematch(code=table.code, controller=ann)
    for _ in range(3):
        assert services.game_rematch(code=table.code, controller=ann).code == new.code
    assert table.game.room.done("rematches") == 1


def test_a_whole_game_played_with_heavy_holding_and_a_pause_each_turn_meets_no_limit() -> None:
    """Two players change the held dice 12 times before each reroll, the host pauses and mutes and
    lifts the mute once a turn: nothing is refused, and the log is as long as that play makes it."""
    table = open_room(2)
    rng = random.Random(5)
    ann = table.controllers[0]
    holds = 0
    while table.game.status == Game.Status.PLAYING:
        pause(table)
        resume(table)
        services.seat_mute(code=table.code, controller=ann, seat=1, expected_version=None, action_id=action_id())
        services.seat_unmute(code=table.code, controller=ann, seat=1, expected_version=None, action_id=action_id())
        who = table.current()
        for roll in range(3):
            if roll:
                for n in range(12):
                    held = [i for i in range(5) if (n >> i) & 1 or rng.random() < 0.3][:4] or [n % 5]
                    if table.game.room.rules.turn.held != set(held):  # type: ignore[union-attr]
                        services.turn_hold(
                            code=table.code, controller=who, held=held, expected_version=None, action_id=action_id()
                        )
                        holds += 1
            services.turn_roll(code=table.code, controller=who, expected_version=None, action_id=action_id())
        score_first_legal(table, roll=False)
    assert holds > 26 * 2 * 8  # 16 or more changes of the held dice a turn
    assert holds <= 26 * 2 * turns.HOLDS_PER_ROLL
    assert table.game.status == Game.Status.FINISHED
    assert Move.objects.filter(game=table.game, kind=Move.Kind.PAUSE).count() == 26 < LIMITS["pauses"]

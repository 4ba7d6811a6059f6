"""Every service action, and every refusal leaving the stored state untouched."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import services
from games.domain import errors, protocol
from games.domain.rules import Box, GameState, RuleViolation
from games.domain.rules.codec import state_to_dict
from games.services import turns
from games.services.replay import replay_game
from games.store.models import ChatMessage, Game, Move, Player, ScoreEntry
from games.store.selectors import game_state
from tests.factories import Table, everyone_leaves, online, open_room, play_to_end, play_turn, spectators_chat_room

pytestmark = pytest.mark.django_db


def stored(code: str) -> tuple[Any, ...]:
    """Everything a refused action must leave as it was."""
    game = Game.objects.get(code=code)
    return (
        game.version,
        game.status,
        game.snapshot,
        game.host_id,
        list(Move.objects.filter(game=game).values_list("seq", "kind", "payload")),
        list(ScoreEntry.objects.filter(player__game=game).values_list("player_id", "box", "column", "points")),
        list(Player.objects.filter(game=game).values_list("pk", "seat", "status", "name")),
    )


def refused(code: str, expected_code: str, action: Callable[[], object]) -> RuleViolation:
    before = stored(code)
    with pytest.raises(RuleViolation) as caught:
        action()
    assert caught.value.code == expected_code, caught.value.message
    assert caught.value.message
    assert stored(code) == before
    return caught.value


# --- creating and joining -------------------------------------------------------------


def test_create_makes_a_private_lobby_with_the_host_in_seat_zero() -> None:
    controller = services.new_controller()
    host = services.game_create(host_name="  Ada  ", controller=controller, ruleset="triple")
    game = host.game
    assert (game.status, game.ruleset, game.private, game.version) == ("lobby", "triple", True, 2)
    assert (host.seat, host.name, game.host_id) == (0, "Ada", host.pk)
    assert len(game.code) == services.CODE_LENGTH and set(game.code) <= set(services.CODE_ALPHABET)
    assert [m.kind for m in game.moves.order_by("seq")] == ["create", "join"]
    assert game.seed_commitment and game.server_seed and game.seed_commitment != game.server_seed


def test_room_codes_are_unguessable_and_unambiguous() -> None:
    import math

    assert services.CODE_LENGTH * math.log2(len(services.CODE_ALPHABET)) >= 40
    assert not set("01ilo") & set(services.CODE_ALPHABET)
    codes = {services.new_room_code() for _ in range(2000)}
    assert len(codes) == 2000


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"host_name": ""}, services.BAD_NAME),
        ({"host_name": "   "}, services.BAD_NAME),
        ({"host_name": "x" * 25}, services.BAD_NAME),
        ({"ruleset": "poker"}, services.BAD_RULESET),
        ({"controller": ""}, services.BAD_REQUEST),
        ({"client_seed": "not a seed!"}, services.BAD_REQUEST),
    ],
)
def test_create_refuses_bad_input(kwargs: dict[str, Any], code: str) -> None:
    args: dict[str, Any] = {"host_name": "Ada", "controller": services.new_controller(), **kwargs}
    with pytest.raises(RuleViolation) as caught:
        services.game_create(**args)
    assert caught.value.code == code
    assert Game.objects.count() == 0


def test_join_takes_the_next_seat_and_codes_are_typed_loosely() -> None:
    table = open_room(1, start=False)
    typed = "-".join([table.code[:5].upper(), table.code[5:]])
    player = services.game_join(code=typed, name="Bob", controller=services.new_controller())
    assert player.seat == 1
    assert [s["name"] for s in table.game.snapshot["seats"]] == ["P0", "Bob"]


def test_one_browser_may_take_several_seats_for_same_device_players() -> None:
    table = open_room(1, start=False)
    services.game_join(code=table.code, name="Sister", controller=table.controllers[0])
    services.game_start(
        code=table.code, controller=table.controllers[0], expected_version=table.version(), action_id="a"
    )
    rng = random.Random(3)
    play_turn(table, rng)  # seat 0
    table.controllers.append(table.controllers[0])
    play_turn(table, rng)  # seat 1, same browser
    assert table.game.snapshot["rules"]["turns_played"] == 2


def test_join_refusals() -> None:
    table = open_room(8, start=False)
    refused(table.code, services.ROOM_FULL, lambda: services.game_join(code=table.code, name="Nine", controller="c9"))
    lobby = open_room(3, start=False)
    refused(lobby.code, services.NAME_TAKEN, lambda: services.game_join(code=lobby.code, name="p2", controller="x"))
    small = open_room(2)
    refused(small.code, services.NOT_IN_LOBBY, lambda: services.game_join(code=small.code, name="Late", controller="x"))
    with pytest.raises(Game.DoesNotExist):
        services.game_join(code="nosuchroom", name="Eve", controller="x")


def test_a_local_room_takes_seats_only_from_its_own_device() -> None:
    host = services.game_create(host_name="Mum", controller="home", local=True)
    code = host.game.code
    services.game_join(code=code, name="Kid", controller="home")
    refused(code, services.LOCAL_ROOM, lambda: services.game_join(code=code, name="Eve", controller="stranger"))


# --- leaving, kicking, host hand-over -------------------------------------------------


def test_leaving_the_lobby_closes_up_the_seats() -> None:
    table = open_room(3, start=False)
    services.game_leave(code=table.code, controller=table.controllers[1], seat=1, expected_version=None, action_id="")
    seats = Player.objects.filter(game__code=table.code).order_by("pk")
    assert [(p.name, p.seat, p.status) for p in seats] == [
        ("P0", 0, "active"),
        ("P1", None, "left"),
        ("P2", 1, "active"),
    ]
    assert [s["name"] for s in table.game.snapshot["seats"]] == ["P0", "P2"]


def test_the_host_role_passes_on_when_the_host_leaves() -> None:
    table = open_room(3, start=False)
    services.game_leave(code=table.code, controller=table.controllers[0], seat=0, expected_version=None, action_id="")
    game = table.game
    assert game.host.name == "P1"
    assert game.moves.last().payload["host"] == game.host_id


def test_the_last_player_leaving_abandons_the_room() -> None:
    table = open_room(1, start=False)
    services.game_leave(code=table.code, controller=table.controllers[0], seat=0, expected_version=None, action_id="")
    assert table.game.status == "abandoned"


def test_everyone_leaving_an_online_game_in_progress_ends_it_with_the_last_to_leave_first() -> None:
    """The loser leaving and the winner, left alone, leaving too does not take the game off their
    records: it ends as the last of them leaves, ranked by when they left."""
    table = open_room(2)
    play_turn(table, random.Random(1))
    everyone_leaves(table)
    game = table.game
    assert game.status == "finished" and game.finished_at and game.followups_owed
    assert game_state(game)["winners"] == [0] and game.room.ranks() == [1, 2]
    assert game_state(game)["seats"][1]["left_order"] == 1 and game_state(game)["seats"][0]["left_order"] == 2
    assert game.moves.last().payload["game_over"] is True
    assert game_state(game)["fairness"]["server_seed"] == game.server_seed


def test_a_lone_player_leaving_a_game_in_progress_abandons_it() -> None:
    """Nobody else was in it: there is nothing to count."""
    table = open_room(1)
    play_turn(table, random.Random(1))
    services.game_leave(code=table.code, controller=table.controllers[0], seat=0, expected_version=None, action_id="")
    game = table.game
    assert game.status == "abandoned" and game.finished_at
    assert game_state(game)["winners"] == []


def test_everyone_leaving_a_pass_and_play_game_in_progress_abandons_it() -> None:
    """One device played every seat: whoever leaves last is nobody's win."""
    host = services.game_create(host_name="Ann", controller="dev", local=True)
    code = host.game.code
    services.game_join(code=code, name="Bea", controller="dev")
    services.game_start(code=code, controller="dev", expected_version=None, action_id="s")
    for seat in (1, 0):
        services.game_leave(code=code, controller="dev", seat=seat, expected_version=None, action_id="")
    game = Game.objects.get(code=code)
    assert game.status == "abandoned" and game_state(game)["winners"] == []


def test_a_kicked_browser_takes_no_new_seat_and_a_muted_one_stays_muted_in_its_new_seat() -> None:
    table = open_room(3, start=False)
    host, kicked, muted = table.controllers
    services.seat_mute(code=table.code, controller=host, seat=2, expected_version=None, action_id="m")
    services.game_kick(code=table.code, controller=host, seat=1, expected_version=None, action_id="k")
    refused(table.code, services.KICKED, lambda: services.game_join(code=table.code, name="Back", controller=kicked))
    # Leaving and joining again does not shed a mute.
    services.game_leave(code=table.code, controller=muted, seat=1, expected_version=None, action_id="l")
    services.game_join(code=table.code, name="Again", controller=muted)
    assert [(s.name, s.muted) for s in table.game.room.seats] == [("P0", False), ("Again", True)]
    # Unmuted before leaving, a new seat is not muted.
    services.seat_unmute(code=table.code, controller=host, seat=1, expected_version=None, action_id="u")
    services.game_leave(code=table.code, controller=muted, seat=1, expected_version=None, action_id="l2")
    services.game_join(code=table.code, name="Third", controller=muted)
    assert [(s.name, s.muted) for s in table.game.room.seats] == [("P0", False), ("Third", False)]


def test_kick_is_for_the_host_before_the_start() -> None:
    table = open_room(3, start=False)
    online(table.code, table.controllers[0])  # the host is at the table: nobody else may act for them
    refused(
        table.code,
        services.NOT_HOST,
        lambda: services.game_kick(
            code=table.code, controller=table.controllers[1], seat=2, expected_version=None, action_id=""
        ),
    )
    refused(
        table.code,
        services.OWN_DEVICE,
        lambda: services.game_kick(
            code=table.code, controller=table.controllers[0], seat=0, expected_version=None, action_id=""
        ),
    )
    refused(
        table.code,
        services.BAD_SEAT,
        lambda: services.game_kick(
            code=table.code, controller=table.controllers[0], seat=7, expected_version=None, action_id=""
        ),
    )
    services.game_kick(code=table.code, controller=table.controllers[0], seat=2, expected_version=None, action_id="")
    assert [s["name"] for s in table.game.snapshot["seats"]] == ["P0", "P1"]
    services.game_start(
        code=table.code, controller=table.controllers[0], expected_version=table.version(), action_id="s"
    )
    refused(
        table.code,
        services.NOT_IN_LOBBY,
        lambda: services.game_kick(
            code=table.code, controller=table.controllers[0], seat=1, expected_version=None, action_id=""
        ),
    )


def test_leaving_mid_game_keeps_the_scores_and_skips_the_seat() -> None:
    table = open_room(3)
    rng = random.Random(5)
    for _ in range(3):
        play_turn(table, rng)
    services.game_leave(code=table.code, controller=table.controllers[1], seat=1, expected_version=None, action_id="")
    game = table.game
    assert game.snapshot["seats"][1]["status"] == "left"
    assert ScoreEntry.objects.filter(player__game=game, player__seat=1).count() == 1
    for _ in range(4):
        assert game.snapshot["rules"]["current"] != 1
        play_turn(table, rng)
        game = table.game


def test_the_host_removes_an_absent_player_mid_game() -> None:
    table = open_room(3)
    online(table.code, table.controllers[0])  # the host is at the table: nobody else may act for them
    rng = random.Random(6)
    play_turn(table, rng)  # now seat 1's turn
    refused(
        table.code,
        services.NOT_HOST,
        lambda: services.game_remove_absent(
            code=table.code, controller=table.controllers[2], seat=1, expected_version=None, action_id=""
        ),
    )
    services.game_remove_absent(
        code=table.code, controller=table.controllers[0], seat=1, expected_version=None, action_id=""
    )
    game = table.game
    assert game.snapshot["rules"]["current"] == 2
    assert game.moves.last().kind == "remove"
    game = play_to_end(table, rng)
    assert game.status == "finished"
    assert 1 not in game_state(game)["winners"]


def test_remove_absent_is_only_for_a_game_in_progress() -> None:
    table = open_room(2, start=False)
    refused(
        table.code,
        services.NOT_PLAYING,
        lambda: services.game_remove_absent(
            code=table.code, controller=table.controllers[0], seat=1, expected_version=None, action_id=""
        ),
    )


# --- starting and playing --------------------------------------------------------------


def test_only_the_host_starts_and_only_once() -> None:
    table = open_room(2, start=False)
    online(table.code, table.controllers[0])  # the host is at the table: nobody else may act for them
    refused(
        table.code,
        services.NOT_HOST,
        lambda: services.game_start(
            code=table.code, controller=table.controllers[1], expected_version=None, action_id=""
        ),
    )
    services.game_start(code=table.code, controller=table.controllers[0], expected_version=None, action_id="go")
    game = table.game
    assert game.status == "playing" and game.started_at
    assert game.client_seed.count(",") == 1
    refused(
        table.code,
        "already_started",
        lambda: services.game_start(
            code=table.code, controller=table.controllers[0], expected_version=None, action_id=""
        ),
    )


def test_roll_hold_and_score_a_turn() -> None:
    table = open_room(2)
    me = table.controllers[0]
    dice = services.turn_roll(code=table.code, controller=me, expected_version=table.version(), action_id="r1")
    assert len(dice) == 5 and all(1 <= d <= 6 for d in dice)
    services.turn_hold(code=table.code, controller=me, held=[0, 2], expected_version=table.version(), action_id="h1")
    again = services.turn_roll(code=table.code, controller=me, expected_version=table.version(), action_id="r2")
    assert (again[0], again[2]) == (dice[0], dice[2])
    state = game_state(table.game)
    assert state["turn"]["rolls_left"] == 1
    chance = next(o for o in state["options"] if o["box"] == "chance")
    entry = services.turn_score(
        code=table.code, controller=me, box="chance", column=0, expected_version=table.version(), action_id="s1"
    )
    assert (entry.points, entry.box, entry.turn) == (chance["points"], "chance", 1) == (sum(again), "chance", 1)
    game = table.game
    assert game.snapshot["rules"]["current"] == 1
    assert [m.kind for m in game.moves.order_by("seq")][-4:] == ["roll", "hold", "roll", "score"]


def test_a_roll_holds_the_dice_it_names_first_in_the_log_of_a_hold_then_a_roll() -> None:
    table = open_room(2)
    me = table.controllers[0]
    first = services.turn_roll(
        code=table.code, controller=me, held=[], expected_version=table.version(), action_id="r1"
    )
    version = table.version()
    again = services.turn_roll(code=table.code, controller=me, held=[4, 0], expected_version=version, action_id="r2")
    assert (again[0], again[4]) == (first[0], first[4])
    game = table.game
    assert game.version == version + 2
    hold, roll = game.moves.order_by("seq")[game.moves.count() - 2 :]
    assert (hold.kind, hold.seq, hold.payload, hold.action_id) == ("hold", version + 1, {"held": [0, 4]}, "")
    assert (roll.kind, roll.seq, roll.payload["held"], roll.action_id) == ("roll", version + 2, [0, 4], "r2")
    # The same held dice again: nothing to hold, one Move.
    services.turn_roll(code=table.code, controller=me, held=[0, 4], expected_version=table.version(), action_id="r3")
    assert [m.kind for m in game.moves.order_by("seq")][-4:] == ["roll", "hold", "roll", "roll"]
    assert replay_game(table.game).problems == []
    # A resent roll is told it was applied, however it held.
    refused(
        table.code,
        services.REPEATED,
        lambda: services.turn_roll(code=table.code, controller=me, held=[1], expected_version=version, action_id="r2"),
    )


def test_a_roll_that_cannot_hold_what_it_names_changes_nothing(midturn: Table) -> None:
    t = midturn
    me, other = t.controllers

    def roll(held: Any, who: str = me) -> Callable[[], object]:
        return lambda: services.turn_roll(
            code=t.code, controller=who, held=held, expected_version=t.version(), action_id="x"
        )

    for bad in ([5], ["1"], "01", [0, 1, 2, 3, 4, 0], {"0": 1}):
        refused(t.code, "bad_die_index", roll(bad))
    refused(t.code, "all_held", roll([0, 1, 2, 3, 4]))
    services.turn_roll(code=t.code, controller=me, held=[], expected_version=t.version(), action_id="r2")
    services.turn_roll(code=t.code, controller=me, held=[], expected_version=t.version(), action_id="r3")
    refused(t.code, "no_rolls_left", roll([1]))
    services.turn_score(code=t.code, controller=me, box="chance", column=0, expected_version=t.version(), action_id="s")
    refused(t.code, "not_rolled", roll([1], other))  # nothing to hold before the first roll


def test_a_whole_game_finishes_and_reveals_the_seed() -> None:
    table = open_room(2, "yatzy")
    game = play_to_end(table, random.Random(11))
    assert game.status == "finished" and game.finished_at
    assert ScoreEntry.objects.filter(player__game=game).count() == 2 * 15
    state = game_state(game)
    assert state["fairness"]["server_seed"] == game.server_seed
    assert state["winners"]


@pytest.fixture
def midturn() -> Table:
    table = open_room(2)
    services.turn_roll(
        code=table.code, controller=table.controllers[0], expected_version=table.version(), action_id="r"
    )
    return table


def test_refusals_in_a_turn_change_nothing(midturn: Table) -> None:
    t = midturn
    me, other = t.controllers
    v = t.version

    def roll(who: str, version: int | None = None, aid: str = "x") -> Callable[[], object]:
        return lambda: services.turn_roll(code=t.code, controller=who, expected_version=version or v(), action_id=aid)

    def hold(held: Any) -> Callable[[], object]:
        return lambda: services.turn_hold(code=t.code, controller=me, held=held, expected_version=v(), action_id="x")

    def score(box: Any, column: Any = 0, who: str = me) -> Callable[[], object]:
        return lambda: services.turn_score(
            code=t.code, controller=who, box=box, column=column, expected_version=v(), action_id="x"
        )

    refused(t.code, "not_your_turn", roll(other))
    refused(t.code, services.NOT_A_PLAYER, roll("stranger"))
    refused(t.code, services.STALE, roll(me, version=v() - 1))
    refused(t.code, services.REPEATED, roll(me, version=v() - 1, aid="r"))
    refused(t.code, services.REPEATED, roll(me, aid="r"))
    refused(t.code, "bad_die_index", hold([5]))
    refused(t.code, "bad_die_index", hold([-1]))
    refused(t.code, "bad_die_index", hold(["1"]))
    refused(t.code, "bad_die_index", hold([0, 1, 2, 3, 4, 0]))
    refused(t.code, "bad_die_index", hold("01"))
    refused(t.code, "unknown_box", score("yatzy"))
    refused(t.code, "unknown_box", score(None))
    refused(t.code, "bad_column", score("chance", 1))
    refused(t.code, "not_your_turn", score("chance", 0, other))
    refused(
        t.code,
        services.BAD_REQUEST,
        lambda: services.turn_roll(code=t.code, controller=me, expected_version=v(), action_id="x" * 65),
    )
    services.turn_hold(code=t.code, controller=me, held=[0, 1, 2, 3, 4], expected_version=v(), action_id="all")
    refused(t.code, "all_held", roll(me))
    services.turn_hold(code=t.code, controller=me, held=[], expected_version=v(), action_id="none")
    services.turn_roll(code=t.code, controller=me, expected_version=v(), action_id="r2")
    services.turn_roll(code=t.code, controller=me, expected_version=v(), action_id="r3")
    refused(t.code, "no_rolls_left", roll(me))
    refused(t.code, "no_rolls_left", hold([1]))
    services.turn_score(code=t.code, controller=me, box="chance", column=0, expected_version=v(), action_id="s")
    refused(t.code, "not_your_turn", score("ones"))
    refused(t.code, "not_rolled", score("ones", 0, other))
    refused(
        t.code,
        "not_rolled",
        lambda: services.turn_hold(code=t.code, controller=other, held=[1], expected_version=v(), action_id="y"),
    )


def test_a_hold_of_the_dice_held_already_is_refused_and_writes_nothing(midturn: Table) -> None:
    """A hold that changes nothing (a page sending twice, a client in a loop) is no Move of the log,
    no new version that makes the other sockets' actions stale, no state frame to the room."""
    t = midturn
    me = t.controllers[0]
    services.turn_hold(code=t.code, controller=me, held=[0], expected_version=t.version(), action_id="h")
    for held in ([0], [0, 0]):
        refused(
            t.code,
            "same_hold",
            lambda held=held: services.turn_hold(  # type: ignore[misc]
                code=t.code, controller=me, held=held, expected_version=t.version(), action_id="again"
            ),
        )


def test_the_held_dice_change_a_bounded_number_of_times_between_two_rolls(midturn: Table) -> None:
    """Each change of the held dice is a Move kept for ever: a player toggling a die for a day
    would append millions. Five dice have 32 sets to hold; past 32 changes since the roll the
    player rolls (holding what they like) or scores, and the next roll starts the count again."""
    t = midturn
    me = t.controllers[0]

    def hold(n: int, aid: str) -> None:
        held = [0] if n % 2 == 0 else []
        services.turn_hold(code=t.code, controller=me, held=held, expected_version=None, action_id=aid)

    for n in range(turns.HOLDS_PER_ROLL):
        hold(n, f"h{n}")
    refused(t.code, "holds_used_up", lambda: hold(turns.HOLDS_PER_ROLL, "one-more"))
    services.turn_roll(code=t.code, controller=me, held=[1], expected_version=None, action_id="r2")
    assert t.game.room.rules is not None and t.game.room.rules.turn.held == {1}
    hold(0, "after-the-roll")
    assert t.game.room.rules.turn.held == {0}


def test_scoring_a_filled_box_is_refused() -> None:
    table = open_room(1)
    me = table.controllers[0]
    for aid in ("a", "b"):
        services.turn_roll(code=table.code, controller=me, expected_version=table.version(), action_id=f"r{aid}")
        if aid == "a":
            services.turn_score(
                code=table.code, controller=me, box="chance", expected_version=table.version(), action_id="s"
            )
    refused(
        table.code,
        "box_filled",
        lambda: services.turn_score(
            code=table.code, controller=me, box="chance", expected_version=table.version(), action_id="s2"
        ),
    )


def test_actions_before_the_start_and_after_the_end_are_refused() -> None:
    lobby = open_room(1, start=False)
    me = lobby.controllers[0]
    refused(
        lobby.code,
        "game_not_started",
        lambda: services.turn_roll(code=lobby.code, controller=me, expected_version=lobby.version(), action_id="x"),
    )
    done = open_room(1, "official")
    play_to_end(done, random.Random(2))
    me = done.controllers[0]
    for action in (
        lambda: services.turn_roll(code=done.code, controller=me, expected_version=done.version(), action_id="x"),
        lambda: services.turn_score(
            code=done.code, controller=me, box="chance", expected_version=done.version(), action_id="x"
        ),
        lambda: services.game_leave(
            code=done.code, controller=me, seat=0, expected_version=done.version(), action_id="x"
        ),
    ):
        refused(done.code, "game_over", action)


def test_the_forced_joker_is_enforced_by_the_server() -> None:
    table = open_room(1)
    game = table.game
    me = table.controllers[0]
    rules = game.snapshot["rules"]
    rules["cards"][0]["columns"][0] = [["yahtzee", 50]]
    rules["turn"] = {"dice": [4, 4, 4, 4, 4], "held": [], "rolls_used": 1}
    game.save()
    refused(
        table.code,
        "joker_forbids",
        lambda: services.turn_score(
            code=table.code, controller=me, box="chance", expected_version=table.version(), action_id="x"
        ),
    )
    entry = services.turn_score(
        code=table.code, controller=me, box="fours", expected_version=table.version(), action_id="f"
    )
    assert (entry.points, entry.bonus) == (20, 100)
    assert game_state(table.game)["cards"][0]["columns"][0]["yahtzee_bonus"] == 100


def test_unknown_rooms_raise_does_not_exist() -> None:
    with pytest.raises(Game.DoesNotExist):
        services.turn_roll(code="zzzzzzzzzz", controller="x", expected_version=1, action_id="x")


# --- queries and broadcast ----------------------------------------------------------


def _writes(context: CaptureQueriesContext) -> list[str]:
    # SAVEPOINT/RELEASE come from the test's own wrapping transaction, not from the service.
    return [q["sql"] for q in context.captured_queries if "SAVEPOINT" not in q["sql"].upper()]


def test_a_roll_takes_at_most_four_queries(midturn: Table) -> None:
    t = midturn
    version = t.version()
    with CaptureQueriesContext(connection) as context:
        services.turn_roll(code=t.code, controller=t.controllers[0], expected_version=version, action_id="q1")
    assert len(_writes(context)) <= 4, _writes(context)


def test_a_score_takes_at_most_four_queries(midturn: Table) -> None:
    t = midturn
    version = t.version()
    with CaptureQueriesContext(connection) as context:
        services.turn_score(
            code=t.code, controller=t.controllers[0], box="chance", expected_version=version, action_id="q2"
        )
    assert len(_writes(context)) <= 4, _writes(context)


def test_a_hold_takes_at_most_four_queries(midturn: Table) -> None:
    t = midturn
    version = t.version()
    with CaptureQueriesContext(connection) as context:
        services.turn_hold(code=t.code, controller=t.controllers[0], held=[1], expected_version=version, action_id="q3")
    assert len(_writes(context)) <= 4, _writes(context)


def test_the_broadcast_is_scheduled_after_commit(
    midturn: Table, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[tuple[str, int]] = []
    states: list[GameState | None] = []

    def game_changed(game: Game, move: Move, rules: GameState | None, earlier: tuple[Move, ...] = ()) -> None:
        assert [m.kind for m in earlier] == ["hold"]  # committed with the roll, and told with it
        sent.append((game.code, move.seq))
        states.append(rules)

    monkeypatch.setattr("games.realtime.broadcast.game_changed", game_changed)
    t = midturn
    version = t.version()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.turn_roll(code=t.code, controller=t.controllers[0], held=[2], expected_version=version, action_id="b1")
    assert sent == []
    for callback in callbacks:
        callback()
    # The hold and the roll commit together: one broadcast, of the last, with the state the
    # service stored (the broadcast does not decode the snapshot again).
    assert sent == [(t.code, version + 2)]
    assert states[0] is not None and state_to_dict(states[0]) == t.game.snapshot["rules"]
    assert game_state(t.game, states[0]) == game_state(t.game)


def test_a_refused_action_schedules_no_broadcast(midturn: Table, django_capture_on_commit_callbacks: Any) -> None:
    t = midturn
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(RuleViolation):
        services.turn_roll(code=t.code, controller=t.controllers[1], expected_version=t.version(), action_id="b2")
    assert callbacks == []


def test_no_secret_leaks_in_the_state_before_the_end(midturn: Table) -> None:
    import json

    game = midturn.game
    text = json.dumps(game_state(game))
    assert game.server_seed not in text
    for controller in midturn.controllers:
        assert controller not in text


# --- any frame, from anyone: a refusal with a code, and nothing stored -----------------------

# Values a script sends where the page would never: past every column's range, text a page cannot
# type (NUL, a lone surrogate, bidi and zero-width characters, a wall of text), types of the wrong kind.
_EDGE_INTS = st.sampled_from([-(2**63), -1, 0, 1, 2, 3, 4, 5, 7, 8, 2**31 - 1, 2**31, 2**53, 2**63 - 1, 2**64])
_EDGE_TEXT = st.sampled_from(
    ["", " ", "\x00", "a\x00", "\ud800", "\u202e\u2066", "\u200b\u200d", "e" + "\u0301" * 50, "x" * 10_000, "👍"]
)
_ANY_VALUE = st.one_of(
    _EDGE_INTS,
    _EDGE_TEXT,
    st.text(max_size=12),
    st.booleans(),
    st.none(),
    st.floats(),
    st.lists(_EDGE_INTS, max_size=7),
)
_FIELDS = ("seat", "held", "box", "column", "level", "spectator", "text", "reaction", "id")
_SERVICE_FRAMES = sorted(kind for kind, declared in protocol.FRAMES.items() if declared.service)
_CURRENT = "current"  # the version the room is at when the frame is sent


@st.composite
def _any_frame(draw: st.DrawFn) -> tuple[int, dict[str, Any]]:
    """Who sends (a seat's browser, a spectator's, one without a session) and what: a frame of every
    kind that calls a service, its fields of the right type half the time and of any other the rest."""
    kind = draw(st.sampled_from(_SERVICE_FRAMES))
    frame: dict[str, Any] = {"type": kind, "version": draw(st.just(_CURRENT) | _ANY_VALUE)}
    for name in _FIELDS:
        if draw(st.booleans()):
            plausible = {
                "seat": st.integers(-1, 3),
                "held": st.lists(st.integers(0, 4), max_size=5),
                "box": st.sampled_from([box.value for box in Box]),
                "column": st.integers(0, 2),
                "level": st.sampled_from(["optimal", "casual", "beginner"]),
                "spectator": st.text("0123456789abcdef", min_size=12, max_size=12),
                "text": st.text(max_size=20),
                "reaction": st.sampled_from(["👍", "🎲"]),
                "id": st.text(min_size=1, max_size=8).map(lambda text: f"c-{text}"),
            }[name]
            frame[name] = draw(plausible | _ANY_VALUE)
    return draw(st.integers(0, 3)), frame


def _everything_stored(code: str) -> tuple[Any, ...]:
    """``stored``, with the room's chat and its row's every column (a refused chat line stores nothing either)."""
    return (
        *stored(code),
        list(Game.objects.filter(code=code).values()),
        list(ChatMessage.objects.filter(game__code=code).values_list("pk", "text", "controller")),
    )


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(stage=st.sampled_from(["lobby", "playing", "over"]), sent=st.lists(_any_frame(), min_size=1, max_size=25))
def test_any_frame_from_anyone_is_applied_or_refused_with_a_code_and_nothing_stored(
    stage: str, sent: list[tuple[int, dict[str, Any]]]
) -> None:
    """Decoded as a socket's text and handed to its service: a frame is refused at the edge with a
    code, or applied, or refused by the service with a known code and a message, the stored room and
    its chat untouched. Never another exception (a server error): in the lobby, during the game and
    after it."""
    table = open_room(players=2, start=False) if stage == "lobby" else spectators_chat_room()
    if stage == "over":
        play_to_end(table, random.Random(7), rerolls=0)
    browsers = [*table.controllers[:2], services.new_controller(), ""]
    codes = {value for name, value in vars(errors).items() if name.isupper() and isinstance(value, str)}
    for who, fields in sent:
        if fields["version"] == _CURRENT:
            fields["version"] = table.version()
        try:
            frame = protocol.decode(json.dumps(fields))
        except protocol.FrameError as exc:
            assert exc.code in codes and exc.message
            continue
        before = _everything_stored(table.code)
        try:
            services.perform(frame, code=table.code, controller=browsers[who])
        except RuleViolation as exc:
            assert exc.code in codes and exc.message, (fields, exc.code)
            assert _everything_stored(table.code) == before, (fields, exc.code)
    assert replay_game(table.game).problems == []

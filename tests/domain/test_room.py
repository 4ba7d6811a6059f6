"""The typed room (games.domain.room): its stored form, and the questions asked of it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.domain.room import BOT, HUMAN, LEFT, Room, Seat, Standing, Tally
from games.domain.rules import OFFICIAL, apply_remove, apply_rolled, apply_score, apply_start, new_game
from games.domain.rules.codec import state_from_dict, state_to_dict


def _seat(player: int, controller: str, **more: Any) -> dict[str, Any]:
    return {"player": player, "name": f"P{player}", "controller": controller, "kind": HUMAN, "status": "active", **more}


def _started(seats: int = 2) -> dict[str, Any]:
    return state_to_dict(apply_start(new_game(OFFICIAL, seats)))


def _room(*seats: Seat, playing: bool = True, **more: Any) -> Room:
    rules = apply_start(new_game(OFFICIAL, len(seats))) if playing else None
    return Room(seats=seats, rules=rules, **more)


ANN = Seat(player=1, name="Ann", controller="ann")
BOB = Seat(player=2, name="Bob", controller="bob")
ROBOT = Seat(player=3, name="Pip", controller="bot:1", kind=BOT, level="casual")


# --- the stored form ---------------------------------------------------------------------


def test_a_new_room_is_stored_as_a_new_lobby_always_was() -> None:
    assert Room().to_snapshot() == {"seats": [], "rules": None, "rolls": 0}


@pytest.mark.parametrize("stored", [{}, None, {"seats": [], "rules": None, "rolls": 0}])
def test_an_empty_or_unwritten_snapshot_is_an_empty_lobby(stored: dict[str, Any] | None) -> None:
    room = Room.from_snapshot(stored)
    assert room == Room() and room.seats == () and room.rules is None and room.rolls == 0


def test_every_field_survives_the_round_trip_through_json() -> None:
    rules = apply_rolled(apply_start(new_game(OFFICIAL, 4)), player=0, faces=[1, 2, 3, 4, 5])
    room = Room(
        seats=(
            Seat(player=1, name="Ann", controller="ann", muted=True, timeouts=1),
            Seat(
                player=2,
                name="Bob",
                controller="bot:9",
                kind=BOT,
                level="casual",
                away=True,
                away_controller="bob",
            ),
            Seat(player=3, name="Cy", controller="cy", status=LEFT),
            Seat(player=4, name="Di", controller="bot:7", kind=BOT, level="optimal", left_controller="di"),
        ),
        rules=rules,
        rolls=7,
        paused=True,
        clock_left=12.5,
        clock_turn=(4, 1),
        notice_turn=(4, 1),
        rematch="abcdefghjk",
        muted_spectators=("eve", "fay"),
        tally=Tally(joins=3, pauses=2, mutes=1, handovers=4, rematches=5),
    )
    stored = json.loads(json.dumps(room.to_snapshot()))
    back = Room.from_snapshot(stored)
    assert back == room
    assert back.to_snapshot() == stored


def test_optional_keys_are_left_out_while_they_hold_their_default() -> None:
    stored = Room(seats=(ANN,)).to_snapshot()
    assert stored == {
        "seats": [{"player": 1, "name": "Ann", "controller": "ann", "kind": "human", "status": "active"}],
        "rules": None,
        "rolls": 0,
    }


def test_the_tally_keeps_only_what_was_done_and_counts_on_from_there() -> None:
    room = Room().counted("pauses").counted("pauses").counted("mutes")
    assert room.to_snapshot()["tally"] == {"pauses": 2, "mutes": 1}
    back = Room.from_snapshot(json.loads(json.dumps(room.to_snapshot())))
    assert (back.done("pauses"), back.done("mutes"), back.done("joins")) == (2, 1, 0)
    assert back.counted("joins").done("joins") == 1 and back.done("joins") == 0
    assert Room().done("rematches") == 0 and "tally" not in Room().to_snapshot()


def test_snapshots_written_before_the_type_decode_and_are_written_back_the_same() -> None:
    # Shapes the services have written to the column: a lobby, a bot's seat with its level,
    # a paused timed game, an away player's seat, a muted seat, a rematch offered.
    shapes = [
        {"seats": [_seat(1, "a")], "rules": None, "rolls": 0},
        {
            "seats": [_seat(1, "a"), _seat(2, "bot:x", kind="bot", level="optimal")],
            "rules": _started(),
            "rolls": 3,
            "clock_turn": [0, 0],
            "paused": True,
            "clock_left": 31.25,
        },
        {
            "seats": [
                _seat(1, "a", timeouts=1, muted=True),
                _seat(2, "bot:y", kind="bot", level="casual", away=True, away_controller="b"),
            ],
            "rules": _started(),
            "rolls": 9,
            "clock_turn": [2, 1],
            "notice_turn": [2, 0],
            "rematch": "kkkkmmmmnn",
        },
        {"seats": [_seat(1, "a"), _seat(2, "b", status="left")], "rules": _started(), "rolls": 0},
    ]
    for stored in shapes:
        assert Room.from_snapshot(stored).to_snapshot() == stored


def test_a_spectator_muted_again_is_listed_once_and_unmuted_leaves_the_others() -> None:
    room = Room().spectator_muted("eve", True).spectator_muted("fay", True).spectator_muted("eve", True)
    assert room.muted_spectators == ("fay", "eve")
    assert room.spectator_muted("fay", False).muted_spectators == ("eve",)
    assert room.spectator_muted("gil", False) == room


def test_a_seat_missing_the_keys_a_factory_leaves_out_takes_their_defaults() -> None:
    seat = Room.from_snapshot({"seats": [{"player": 4, "name": "X"}]}).seats[0]
    assert seat == Seat(player=4, name="X", controller="")


def test_a_room_is_frozen() -> None:
    with pytest.raises(AttributeError):
        Room().rolls = 1  # type: ignore[misc]
    with pytest.raises(AttributeError):
        ANN.name = "Eve"  # type: ignore[misc]


# --- who controls a seat ------------------------------------------------------------------


def test_a_browser_controls_its_own_active_seats_only() -> None:
    room = _room(ANN, BOB, Seat(player=4, name="Di", controller="ann", status=LEFT))
    assert ANN.controlled_by("ann") and not ANN.controlled_by("bob")
    assert not ANN.controlled_by("")  # no session, no seat
    assert not room.seats[2].controlled_by("ann")  # left
    assert room.seats_of("ann") == [0] and room.seats_of("") == [] and room.seats_of("eve") == []
    assert room.plays("bob") and not room.plays("eve")


def test_only_the_current_seat_s_browser_controls_the_turn() -> None:
    room = _room(ANN, BOB)
    assert room.controls_current("ann") and not room.controls_current("bob")
    assert not _room(ANN, BOB, playing=False).controls_current("ann")  # not started


def test_the_seats_kept_for_a_browser_include_those_a_computer_plays_while_it_is_away() -> None:
    away = Seat(player=2, name="Bob", controller="bot:2", kind=BOT, away=True, away_controller="bob")
    room = _room(ANN, away)
    assert room.seats_kept_for("bob") == [1] and room.seats_of("bob") == []
    assert room.seats_kept_for("") == []


# --- whose turn, the clock, the computer --------------------------------------------------


def test_nobody_is_to_play_before_the_start_or_in_a_game_not_being_played() -> None:
    assert _room(ANN, BOB, playing=False).to_play(playing=True) is None
    assert _room(ANN, BOB).to_play(playing=False) is None
    assert _room(ANN, BOB).to_play(playing=True) == ANN
    assert _room(ANN, BOB).turn_key(playing=True) == (0, 0)
    assert _room(ANN, BOB).turn_key(playing=False) is None


@pytest.mark.parametrize(
    ("first", "paused", "playing", "timed", "runs"),
    [
        (ANN, False, True, True, True),
        (ANN, False, True, False, False),  # no timer
        (ANN, True, True, True, False),  # paused
        (ANN, False, False, True, False),  # not playing
        (ROBOT, False, True, True, False),  # a computer to play
    ],
)
def test_the_clock_runs_for_a_person_s_turn_in_a_timed_game_being_played(
    first: Seat, paused: bool, playing: bool, timed: bool, runs: bool
) -> None:
    room = _room(first, BOB, paused=paused)
    assert room.clock_runs(playing=playing, timed=timed) is runs


def test_the_clock_does_not_run_before_the_start() -> None:
    assert not _room(ANN, BOB, playing=False).clock_runs(playing=True, timed=True)


@pytest.mark.parametrize(
    ("first", "paused", "playing", "bot"),
    [
        (ROBOT, False, True, True),
        (ROBOT, True, True, False),  # paused
        (ROBOT, False, False, False),  # over
        (ANN, False, True, False),  # a person's turn
    ],
)
def test_a_computer_is_to_play_on_its_turn_while_the_game_goes_on(
    first: Seat, paused: bool, playing: bool, bot: bool
) -> None:
    assert _room(first, BOB, paused=paused).bot_to_play(playing=playing) is bot


@pytest.mark.parametrize(
    ("first", "paused", "local", "waits"),
    [
        (ANN, False, False, 0),
        (ANN, True, False, None),  # paused
        (ANN, False, True, None),  # pass-and-play: everyone is at the table
        (ROBOT, False, False, None),  # a computer's turn
        (Seat(player=1, name="Ann", controller="ann", status=LEFT), False, False, None),  # left
    ],
)
def test_the_game_waits_for_a_person_to_play_online(first: Seat, paused: bool, local: bool, waits: int | None) -> None:
    assert _room(first, BOB, paused=paused).waits_for(playing=True, local=local) == waits
    assert _room(first, BOB, paused=paused).waits_for(playing=False, local=local) is None


# --- seats changing hands ------------------------------------------------------------------


def test_a_computer_taking_an_away_player_s_seat_keeps_their_browser_and_ends_their_run_of_timeouts() -> None:
    room = _room(ANN, BOB).timed_out(1).timed_out(1)
    assert room.seats[1].timeouts == 2
    taken = room.to_computer(1, controller="bot:7", level="casual", away=True)
    seat = taken.seats[1]
    assert (seat.kind, seat.controller, seat.level, seat.away, seat.away_controller, seat.timeouts) == (
        BOT,
        "bot:7",
        "casual",
        True,
        "bob",
        0,
    )
    assert taken.reclaimable("bob", playing=True) == [1]
    assert taken.reclaimable("bob", playing=False) == [] and taken.reclaimable("", playing=True) == []
    back = taken.reclaimed(1, "bob")
    assert back.seats[1] == BOB
    assert back.reclaimable("bob", playing=True) == []


def test_the_host_handing_a_seat_to_a_computer_keeps_its_timeouts_and_a_left_seat_gives_no_way_back() -> None:
    room = _room(ANN, BOB).timed_out(1)
    handed = room.to_computer(1, controller="bot:8", level="optimal", away=False).seats[1]
    assert (handed.away, handed.away_controller, handed.timeouts) == (False, "bob", 1)
    left = _room(ANN, BOB).with_seat(1, status=LEFT).to_computer(1, controller="bot:9", level="beginner", away=False)
    assert left.seats[1].active and left.seats[1].away_controller == ""
    # Bob gave the seat up: it stays his, to rank (below), not to take back.
    assert left.seats[1].left_controller == "bob" and left.reclaimable("bob", playing=True) == []
    assert left.seats_kept_for("bob") == [] and not left.finished_for(1) and left.finished_by_computer(1)


def test_a_player_s_own_move_ends_only_their_run_of_timeouts() -> None:
    room = _room(ANN, BOB).timed_out(0).timed_out(1)
    after = room.played_by(ANN.player)
    assert [s.timeouts for s in after.seats] == [0, 1]
    assert room.played_by(None) is room  # nobody's run to end: the same room


def test_the_lobby_closes_up_and_a_game_keeps_a_left_seat() -> None:
    lobby = _room(ANN, BOB, ROBOT, playing=False)
    assert lobby.without_seat(1).seats == (ANN, ROBOT)
    assert lobby.seated(Seat(player=9, name="Zed", controller="z")).seats[-1].player == 9
    game = _room(ANN, BOB).with_seat(0, status=LEFT)
    assert game.seats[0].status == LEFT and game.humans_left()
    assert not game.with_seat(1, status=LEFT).humans_left()
    assert game.seat_of_player(2) == 1 and game.seat_of_player(77) is None


def test_pausing_keeps_the_time_left_and_resuming_clears_it() -> None:
    room = _room(ANN, BOB)
    paused = room.pause(12.5)
    assert paused.paused and paused.clock_left == 12.5
    assert not paused.clock_runs(playing=True, timed=True)
    assert room.pause(None).clock_left is None
    resumed = paused.resume()
    assert not resumed.paused and resumed.clock_left is None
    assert "paused" not in resumed.to_snapshot() and "clock_left" not in resumed.to_snapshot()


def test_a_pause_holds_the_time_the_turn_to_play_will_have_when_play_resumes() -> None:
    room = _room(ANN, BOB, ROBOT, clock_turn=(0, 0))
    paused = room.pause(12.5)
    assert paused.time_held(playing=True, timer=30) == 12.5  # the turn the host paused
    assert room.time_held(playing=True, timer=30) is None  # not paused: the deadline says it
    assert paused.time_held(playing=True, timer=None) is None
    # A turn that came up during the pause gets the whole time, as every new turn does.
    assert paused.change(clock_turn=(5, 1)).time_held(playing=True, timer=30) == 30.0
    assert room.pause(None).time_held(playing=True, timer=30) == 30.0
    # A computer to play has no clock.
    robot_to_play = _room(ROBOT, ANN, clock_turn=(0, 0)).pause(12.5)
    assert robot_to_play.time_held(playing=True, timer=30) is None


def test_a_room_with_a_computer_seat_says_so() -> None:
    assert _room(ANN, ROBOT).has_bot() and not _room(ANN, BOB).has_bot()


def test_a_card_an_action_did_not_change_keeps_its_stored_form() -> None:
    state = apply_rolled(apply_start(new_game(OFFICIAL, 3)), player=0, faces=[5, 5, 5, 1, 2])
    before = state_to_dict(state)["cards"]
    scored = apply_score(state, player=0, box="fives", column=0)
    after = state_to_dict(scored)["cards"]
    assert after[0] is not before[0] and after[0]["columns"] == [[["fives", 15]]]
    assert after[1] is before[1] and after[2] is before[2]  # the same Scorecard: the same stored dict
    assert state_from_dict(state_to_dict(scored)) == scored


# --- the final order ------------------------------------------------------------------------


def _played_out(*seats: Seat, faces: tuple[list[int], ...]) -> Room:
    """Every turn played to the end: seat ``i`` rolls ``faces[i]`` and scores the first box it may."""
    state = apply_start(new_game(OFFICIAL, len(seats)))
    while not state.is_over:
        seat = state.current
        state = apply_rolled(state, player=seat, faces=faces[seat])
        option = next(o for o in state.options() if o.legal)
        state = apply_score(state, player=seat, box=option.box, column=option.column)
    return Room(seats=seats, rules=state)


def test_a_seat_a_computer_finished_for_its_away_player_ranks_after_the_players_who_stayed() -> None:
    high, low = [6, 6, 6, 6, 5], [1, 1, 2, 2, 3]
    away = Seat(player=2, name="Bob", controller="bot:2", kind=BOT, away=True, away_controller="bob")
    room = _played_out(ANN, away, faces=(low, high))
    assert room.rules.winners() == (1,)  # the most points: the rules' winner ...
    assert room.finished_for(1) and not room.finished_for(0)
    assert room.ranks() == [1, 2] and room.winners() == [0]  # ... not the players' records'
    # A computer that sat down as one wins by its points; so does a person who came back.
    assert _played_out(ANN, ROBOT, faces=(low, high)).winners() == [1]
    assert _played_out(ANN, BOB, faces=(low, high)).ranks() == [2, 1]
    # Equal totals share a place; a seat that left ranks after everyone who stayed.
    gone = Seat(player=2, name="Bob", controller="bob", status=LEFT)
    tie = _played_out(ANN, BOB, gone, faces=(high, high, low))
    assert tie.ranks() == [1, 1, 3] and tie.winners() == [0, 1]


def test_a_seat_a_computer_played_on_after_its_player_left_ranks_with_the_seats_that_left() -> None:
    high, low = [6, 6, 6, 6, 5], [1, 1, 2, 2, 3]
    taken = Seat(player=2, name="Bob", controller="bot:2", kind=BOT, level="optimal", left_controller="bob")
    room = _played_out(ANN, taken, faces=(low, high))
    assert room.rules.winners() == (1,)  # the computer made the most points ...
    assert room.ranks() == [1, 2] and room.winners() == [0]  # ... in a seat its player gave up
    assert room.anyone_stayed() and not _played_out(taken, faces=(high,)).anyone_stayed()
    # With a seat that left as it was: the two share their place, after Ann, whatever their totals.
    gone = Seat(player=3, name="Cy", controller="cy", status=LEFT)
    assert _played_out(ANN, taken, gone, faces=(low, high, high)).ranks() == [1, 2, 2]


def test_the_standings_list_every_seat_by_its_place_with_its_points_ties_in_turn_order() -> None:
    high, low = [6, 6, 6, 6, 5], [1, 1, 2, 2, 3]
    gone = Seat(player=3, name="Cy", controller="cy", status=LEFT)
    room = _played_out(gone, ANN, BOB, faces=(high, low, low))
    assert room.ranks() == [3, 1, 1]
    points = [room.rules.totals(index).grand_total for index in range(3)]
    assert points[0] > points[1] == points[2]
    # The seat that left, with the most points, after the two who stayed; they share first place.
    assert room.standings() == [
        Standing(seat=1, place=1, points=points[1]),
        Standing(seat=2, place=1, points=points[2]),
        Standing(seat=0, place=3, points=points[0], behind="left"),
    ]
    assert _room(ANN, BOB, playing=False).standings() == []


def test_the_standings_say_why_a_seat_ranks_after_those_who_stayed() -> None:
    """As the game-over list marks it: its player left, the host took it out (a computer may have
    played it on since), or a computer finished it for its away player."""
    out = Seat(player=3, name="Cy", controller="cy", status=LEFT, taken_out=True)
    played_on = Seat(player=4, name="Di", controller="bot:4", kind=BOT, level="casual", left_controller="di")
    kept = Seat(player=5, name="Ed", controller="bot:5", kind=BOT, level="casual", away=True, away_controller="ed")
    gone = Seat(player=6, name="Flo", controller="flo", status=LEFT)
    room = _played_out(ANN, out, played_on, kept, gone, ROBOT, faces=([1, 1, 2, 2, 3],) * 6)
    behind = {standing.seat: standing.behind for standing in room.standings()}
    assert behind == {0: "", 1: "taken_out", 2: "left", 3: "away", 4: "left", 5: ""}


def test_nobody_has_won_a_game_not_played_to_its_end() -> None:
    assert _room(ANN, BOB).winners() == [] and _room(ANN, BOB, playing=False).ranks() == []


def test_nobody_has_won_a_game_every_seat_left() -> None:
    gone = Seat(player=1, name="Ann", controller="ann", status=LEFT)
    state = apply_remove(apply_start(new_game(OFFICIAL, 1)), seat=0)
    assert Room(seats=(gone,), rules=state).winners() == []

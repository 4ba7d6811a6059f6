"""Seats a computer plays while their person is away: a rematch, the last person at the table
leaving, the coach's review and the replay treat them as the person's, not the computer's."""

from __future__ import annotations

import dataclasses
import json
import random
from datetime import timedelta

import pytest
from django.utils import timezone

import bots
from games import services
from games.domain import errors
from games.domain.room import BOT, HUMAN
from games.domain.rules import RuleViolation
from games.scheduling import botplay
from games.services import presence
from games.services.chat import chat_post, seat_mute
from games.services.replay import replay_steps
from games.store import selectors
from games.store.models import ChatMessage, Game, Move, Player
from games.store.selectors import game_state
from tests.factories import (
    Table,
    action_id,
    online,
    open_room,
    own_pace_room,
    play_to_end,
    play_turn,
    spectators_chat_room,
    timed_room,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module", autouse=True)
def official_table() -> None:
    bots.tables.table("official", build=True)


def finish(table: Table, rng: random.Random) -> None:
    """Play to the end: people play random turns, computers their own steps."""
    while table.game.status == Game.Status.PLAYING:
        room = table.game.room
        seat = room.seats[room.rules.current]
        if seat.bot:
            assert botplay.step(table.code, table.version())
        else:
            table.controllers[room.rules.current] = seat.controller
            play_turn(table, rng)


def run_out(table: Table) -> int:
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    return table.version()


def test_a_rematch_seats_an_away_player_as_a_person_and_lets_them_ask_for_it() -> None:
    table = open_room(2)
    p0, p1 = table.controllers
    # P1 is away (no socket): the host hands the seat to a computer, which keeps P1's browser.
    services.game_replace_with_bot(
        code=table.code, controller=p0, seat=1, expected_version=table.version(), action_id=action_id()
    )
    assert table.game.room.seats[1].away_controller == p1
    finish(table, random.Random(1))
    # P1 is back after the end and asks for a rematch: "only the players of this game" (refused now).
    new = services.game_rematch(code=table.code, controller=p1)
    seat = next(s for s in new.room.seats if s.name == "P1")
    assert seat.human and seat.controller == p1


def test_a_rematch_seated_by_the_host_keeps_the_away_player_a_person() -> None:
    table = open_room(2)
    p0, p1 = table.controllers
    services.game_replace_with_bot(
        code=table.code, controller=p0, seat=1, expected_version=table.version(), action_id=action_id()
    )
    finish(table, random.Random(1))
    new = services.game_rematch(code=table.code, controller=p0)
    seat = new.room.seats[1]
    assert (seat.kind, seat.controller) == ("human", p1), seat  # now: ('bot', 'bot:…')


# D3 -------------------------------------------------------------------------------------------
def test_the_last_player_at_the_table_leaving_does_not_abandon_an_away_players_game() -> None:
    table = own_pace_room(players=2, seconds=86_400)  # a day per move
    p0, p1 = table.controllers
    rng = random.Random(3)
    play_turn(table, rng)  # P0
    assert services.clock_expire(code=table.code, version=run_out(table))  # P1's first timeout
    play_turn(table, rng)  # P0
    assert services.clock_expire(code=table.code, version=run_out(table))  # P1's second: away
    assert table.game.room.seats[1].away_controller == p1
    services.game_leave(code=table.code, controller=p0, seat=0, expected_version=table.version(), action_id="bye")
    # The game goes on for P1, whose seat the computer only keeps for them: host when back.
    assert table.game.status == Game.Status.PLAYING
    assert services.seat_reclaim(code=table.code, controller=p1) == [1]
    services.game_pause(code=table.code, controller=p1, expected_version=None, action_id="p")


def test_a_player_whose_seat_a_computer_plays_may_leave_it_without_taking_it_back_first() -> None:
    """Ben's turns ran out twice (a computer plays for him); from his page he leaves the game. The
    seat leaves as his, a person's (the records and the ranking count a seat its player left), and
    his browser no longer has it to take back."""
    table = timed_room(players=3)
    p0, p1, _p2 = table.controllers
    rng = random.Random(6)
    for _ in range(2):
        play_turn(table, rng)  # P0
        assert services.clock_expire(code=table.code, version=run_out(table))  # P1's turn runs out
        play_turn(table, rng)  # P2
    assert table.game.room.seats[1].bot and table.game.room.seats[1].away_controller == p1
    services.game_leave(code=table.code, controller=p1, seat=1, expected_version=table.version(), action_id="bye")
    game = table.game
    seat = game.room.seats[1]
    assert (seat.status, seat.kind, seat.controller, seat.away_controller) == ("left", HUMAN, p1, "")
    assert not game.room.rules.active[1] and game.status == Game.Status.PLAYING
    row = Player.objects.get(pk=seat.player)
    assert (row.status, row.kind, row.controller, row.away_controller) == ("left", HUMAN, p1, "")
    assert services.seat_reclaim(code=table.code, controller=p1) == [] and game.room.seats_kept_for(p1) == []
    # Another browser still may not leave it for him.
    with pytest.raises(RuleViolation) as refused:
        services.game_leave(code=table.code, controller=p0, seat=2, expected_version=None, action_id="x")
    assert refused.value.code == services.NOT_A_PLAYER


def test_the_replay_of_a_rematch_says_its_computer_seats_are_computers() -> None:
    controller = services.new_controller()
    game = services.local_game_create(names=["Kid"], controller=controller, bots=1, level="casual")
    table = Table(code=game.code, controllers=[controller, ""])
    finish(table, random.Random(4))
    new = services.game_rematch(code=game.code, controller=controller)
    services.game_start(code=new.code, controller=controller, expected_version=None, action_id=action_id())
    rematch = Table(code=new.code, controllers=[controller, ""])
    finish(rematch, random.Random(5))
    steps = [s for s in replay_steps(rematch.game) if s.get("seat") == 1]
    assert steps and all(s["by_computer"] for s in steps)  # now: all False


def test_the_coach_does_not_charge_a_person_with_the_choices_a_computer_made_for_them() -> None:
    from games.services import coach
    from games.store.models import Move

    table = open_room(2)
    p0, p1 = table.controllers
    rng = random.Random(6)
    services.game_replace_with_bot(
        code=table.code, controller=p0, seat=1, level="beginner", expected_version=table.version(), action_id="r"
    )
    for _ in range(3):  # the computer plays three of P1's turns
        play_turn(table, rng)  # P0
        while table.game.room.rules.current == 1:
            assert botplay.step(table.code, table.version())
    assert services.seat_reclaim(code=table.code, controller=p1) == [1]
    finish(table, rng)
    by_computer = set(
        Move.objects.filter(game__code=table.code, actor__startswith="bot:").values_list("seq", flat=True)
    )
    judged = {v["move"] for v in coach.verdicts(table.game)[0] if v["seat"] == 1}
    assert by_computer and not judged & by_computer  # now: the beginner's choices are P1's "points lost"


def test_everyone_who_follows_a_rematch_from_the_games_end_brings_a_seed_of_their_own() -> None:
    table = open_room(3)
    p0, p1, p2 = table.controllers
    play_to_end(table, random.Random(2), rerolls=0)
    new = services.game_rematch(code=table.code, controller=p1, client_seed="seedofp1")
    assert services.game_rematch(code=table.code, controller=p0, client_seed="seedofp0").code == new.code
    # A seed already taken stays; a bad one is refused whole.
    services.game_rematch(code=table.code, controller=p1, client_seed="another")
    with pytest.raises(RuleViolation):
        services.game_rematch(code=table.code, controller=p2, client_seed="not a seed!")
    services.game_start(code=new.code, controller=p1, expected_version=None, action_id=action_id())
    seeds = dict(Player.objects.filter(game__code=new.code).values_list("controller", "client_seed"))
    assert seeds == {p1: "seedofp1", p0: "seedofp0", p2: ""}  # P2 never came back to the table
    assert Game.objects.get(code=new.code).client_seed.split(",") == ["seedofp1", "seedofp0", ""]
    # Too late once the game has started.
    services.game_rematch(code=table.code, controller=p2, client_seed="seedofp2")
    assert Player.objects.get(game__code=new.code, controller=p2).client_seed == ""


def away_seat_outscores_the_player_who_stayed() -> Game:
    """P0's turns run out twice: a computer plays P0's seat to the end and outscores P1, who stayed."""
    table = timed_room(2)
    rng = random.Random(1)
    for _ in range(2):  # P0's turn runs out twice in a row: a computer plays the seat from then on
        assert services.clock_expire(code=table.code, version=run_out(table))
        if table.game.room.rules.current == 1:
            play_turn(table, rng, 0)
    while table.game.status == Game.Status.PLAYING:
        if table.game.room.rules.current == 0:
            assert botplay.step(table.code, table.version())
        else:
            play_turn(table, rng, 0)
    game = table.game
    room = game.room
    assert room.finished_for(0) and room.rules.totals(0).grand_total > room.rules.totals(1).grand_total
    return game


def test_the_replay_names_the_winner_the_players_records_name() -> None:
    """The records (accounts.services._count) rank a seat a computer finished for its away player
    after every seat that stayed: P1's record is the win. The replay's last step names P1 too, and
    says why P0's higher total does not win."""
    from accounts import services as account_services
    from accounts.models import GameRecord

    game = away_seat_outscores_the_player_who_stayed()
    account_services.game_count(game_id=game.pk)
    ranks = dict(GameRecord.objects.filter(game=game).values_list("player__seat", "rank"))
    assert ranks == {0: 2, 1: 1}
    assert game.room.ranks() == [2, 1] and game.room.winners() == [1]
    end = replay_steps(game)[-1]
    points = game.room.rules.totals(1).grand_total
    assert end["text"].startswith(f"\u2068P1\u2069 wins with {points} points."), end["text"]
    assert "\u2068P0\u2069's seat was finished by a computer: it ranks after the players who stayed." in end["text"]


def test_the_table_names_the_winner_the_players_records_name() -> None:
    """The state every page draws its game-over panel from, and the last score's Move, name the
    records' winner: P1, who stayed, not P0's seat, which a computer finished with more points."""
    game = away_seat_outscores_the_player_who_stayed()
    assert game_state(game)["winners"] == [1]
    last = Move.objects.filter(game=game, kind=Move.Kind.SCORE).order_by("-seq").first()
    assert last is not None and last.payload["game_over"] and last.payload["winners"] == [1]


def test_a_player_who_left_is_not_named_the_winner_over_the_seat_still_in_the_game() -> None:
    """Nobody stayed to the end: P0 left the game late with more points than P1 will have, and P1's
    turns ran out twice, so a computer finished P1's seat for P1 (the game goes on for an away
    player when the last person leaves). The rules' winners are the seats still in the game (P1);
    Room.winners ranks a seat that left and one a computer finished alike, by total, and names P0,
    who left: the game-over panel, the last move's ``winners`` and the replay say "P0 wins", and
    the replay adds that P1's seat "ranks after the players who stayed" when nobody stayed."""
    game = away_seat_outscores_the_player_who_stayed()
    room = game.room
    # The same end with the roles of the two seats exchanged: P0 (the higher total) left, P1 away.
    room = room.with_seat(0, status="left", kind=HUMAN, away=False, away_controller="")
    room = room.with_seat(1, kind=BOT, away=True, away_controller=room.seats[1].controller or "p1-browser")
    room = room.with_rules(dataclasses.replace(room.rules, active=(False, True)))
    assert room.rules.winners() == (1,)  # the seat still in the game
    assert room.winners() == [1], "the player who left is named the winner"


# The chat after the game is its players' alone (docs/protocol.md): a player whose seat a computer
# finished while they were away is one of them. The state says the seat is theirs, they are
# offered the rematch; the chat must not treat them as a stranger to their own game.


def hand_seat_one_to_a_computer(table: Table) -> None:
    """P1 is away; the host hands P1's seat to a computer (docs/protocol.md ``replace``)."""
    services.game_replace_with_bot(
        code=table.code,
        controller=table.controllers[0],
        seat=1,
        expected_version=table.version(),
        action_id=action_id(),
    )


def finished_with_seat_one_finished_by_a_computer() -> Table:
    """P1 says something, walks off, and a computer finishes P1's seat."""
    table = open_room(2)
    rng = random.Random(11)
    play_turn(table, rng, rerolls=0)
    services.chat_post(code=table.code, controller=table.controllers[1], text="brb, doorbell")
    hand_seat_one_to_a_computer(table)
    finish(table, rng)
    return table


def test_a_player_whose_seat_a_computer_finished_can_still_talk_in_the_chat_after_the_game() -> None:
    """P1 comes back after the last roll: the page (``you`` names seat 1, the rematch is offered)
    shows the chat form, and P1's message is posted as P1's seat."""
    table = finished_with_seat_one_finished_by_a_computer()
    p1 = table.controllers[1]
    assert table.game.status == Game.Status.FINISHED
    assert selectors.seats_of(table.game, p1) == [1]  # the room still says seat 1 is P1's
    shown = chat_post(code=table.code, controller=p1, text="sorry, back now. gg!")
    assert shown["name"] == "P1" and shown["seat"] == 1


def test_a_player_whose_seat_a_computer_finished_reads_and_hears_the_chat_after_the_game() -> None:
    """P1's socket on the finished room gets the chat's history, and hears the chat live."""
    table = finished_with_seat_one_finished_by_a_computer()
    p1 = table.controllers[1]
    history = selectors.chat_history_for(table.code, p1)
    assert history is not None, "P1's own game's chat is withheld from P1"
    assert [m["text"] for m in history] == ["brb, doorbell"]
    audience = selectors.chat_audience(table.game)
    assert audience is not None and p1 in audience


def test_a_muted_player_whose_seat_a_computer_took_stays_muted() -> None:
    """docs/security.md: "a browser whose seat the host muted or took out stays quiet as a
    spectator". In a room whose spectators may chat, the host mutes Bob; Bob walks off and the
    host hands his seat to a computer. Bob's open page still cannot post, as his seat or as a
    spectator."""
    table = spectators_chat_room(("Ann", "Bob"))
    code, controllers = table.code, table.controllers
    seat_mute(code=code, controller=controllers[0], seat=1, expected_version=table.version(), action_id=action_id())
    hand_seat_one_to_a_computer(table)
    with pytest.raises(RuleViolation) as refused:
        chat_post(code=code, controller=controllers[1], text="you can't shut me up")
    assert refused.value.code == errors.MUTED
    assert not ChatMessage.objects.filter(game__code=code).exists()


def test_a_player_taken_out_whose_seat_a_computer_then_plays_stays_quiet_and_keeps_the_games_chat() -> None:
    """The host takes out Bob, who was away, then has a computer play his seat on: the seat keeps
    Bob as the one who left it. In a room whose spectators may chat Bob stays quiet (docs/security.md),
    and once the game is over its chat is still his to read, as one of its players."""
    table = spectators_chat_room(("Ann", "Bob"))
    code, controllers = table.code, table.controllers
    chat_post(code=code, controller=controllers[1], text="back in five")
    services.game_remove_absent(
        code=code, controller=controllers[0], seat=1, expected_version=table.version(), action_id=action_id()
    )
    hand_seat_one_to_a_computer(table)
    assert Player.objects.get(game__code=code, seat=1).left_controller == controllers[1]
    with pytest.raises(RuleViolation) as refused:
        chat_post(code=code, controller=controllers[1], text="as a spectator, then")
    assert refused.value.code == errors.TAKEN_OUT
    assert selectors.held_a_seat(table.game, controllers[1])


def _ben_taken_out_then_his_seat_given_to_a_computer() -> Table:
    """Ben's turns ran out twice (a computer plays for him, ``away_controller``); the host takes
    his seat out, then lets a computer play it on."""
    table = timed_room(players=3)
    p0, p1, _p2 = table.controllers
    rng = random.Random(6)
    for _ in range(2):
        play_turn(table, rng)
        assert services.clock_expire(code=table.code, version=run_out(table))
        play_turn(table, rng)
    assert table.game.room.seats[1].away_controller == p1
    services.game_remove_absent(
        code=table.code, controller=p0, seat=1, expected_version=table.version(), action_id="out"
    )
    services.game_replace_with_bot(
        code=table.code, controller=p0, seat=1, expected_version=table.version(), action_id="b"
    )
    return table


def test_a_player_taken_out_does_not_take_the_seat_back_when_a_computer_plays_it_on() -> None:
    table = _ben_taken_out_then_his_seat_given_to_a_computer()
    p1 = table.controllers[1]
    assert services.seat_reclaim(code=table.code, controller=p1) == [], "the player taken out takes his seat back"


def test_a_seat_taken_out_and_played_on_by_a_computer_ranks_with_the_seats_that_left() -> None:
    table = _ben_taken_out_then_his_seat_given_to_a_computer()
    room = table.game.room
    seat = room.seats[1]
    assert seat.given_up and seat.left_controller == table.controllers[1] and not seat.away_controller
    assert not room.finished_for(1) and room.finished_by_computer(1)


def test_the_host_cannot_take_out_a_player_at_the_table_whose_seat_a_computer_keeps_for_them() -> None:
    """Ann and Cy play at one device; the host handed Cy's seat to a computer while that device was
    away. The device is back: a shared device takes no seat back by itself (it may not be Cy at
    it), and the room shows both its seats connected, so neither is taken out as away."""
    host, device = services.new_controller(), services.new_controller()
    code = services.game_create(host_name="Host", controller=host).game.code
    services.game_join(code=code, name="Ann", controller=device)
    services.game_join(code=code, name="Cy", controller=device)
    services.game_start(code=code, controller=host, expected_version=version_of(code), action_id=action_id())
    services.game_replace_with_bot(
        code=code, controller=host, seat=2, expected_version=version_of(code), action_id=action_id()
    )
    assert Game.objects.get(code=code).room.seats[2].away_controller == device
    online(code, device)
    assert json.loads(presence.room_frame(code))["seats"]["2"] == "connected"
    version = version_of(code)
    with pytest.raises(RuleViolation) as refused:
        services.game_remove_absent(code=code, controller=host, seat=2, expected_version=version, action_id=action_id())
    assert refused.value.code == errors.PLAYER_PRESENT
    game = Game.objects.get(code=code)
    assert game.room.seats[2].active and game.version == version


def version_of(code: str) -> int:
    return Game.objects.get(code=code).version

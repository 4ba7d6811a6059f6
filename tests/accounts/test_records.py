"""Whose record a game is, and what it says: one account a seat, the host's seat that moves on, seats a
computer finished, and accuracy only for a game a seat played on its own."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from openskill.models import PlackettLuce

import bots
from accounts import services as account_services
from accounts.models import CountedGame, GameRecord, Standing
from games import services
from games.scheduling import botplay
from games.store.models import Game, Player
from games.store.selectors import game_state
from tests.accounts.helpers import PASSWORD, browser_with_seat_token, controller_of, finish, room_for, sign_up, user
from tests.factories import Table, action_id, everyone_leaves, play_turn

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module", autouse=True)
def official_table() -> None:
    bots.tables.table("official", build=True)


@pytest.fixture(autouse=True)
def quick_accounts(settings: Any) -> None:
    settings.FOLLOWUPS_INLINE = True
    settings.ACCOUNT_RATE_LIMITS = False


def account(username: str) -> tuple[int, str]:
    """A user and the controller token every browser signed in to it plays with."""
    user = get_user_model().objects.create_user(username=username, password="x" * 20)
    return user.pk, account_services.profile_for(user.pk).controller


def standing(user_id: int, ruleset: str = "official") -> Standing:
    return Standing.objects.get(user_id=user_id, ruleset=ruleset)


def score_by(table: Table, pick) -> None:
    """The player to move rolls once and scores the legal option ``pick`` chooses (min or max by points)."""
    game = table.game
    room = game.room
    who = room.seats[room.rules.current].controller
    services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())
    options = [o for o in game_state(table.game)["options"] if o["legal"]]
    choice = pick(options, key=lambda o: (o["points"], o["column"]))
    services.turn_score(
        code=table.code,
        controller=who,
        box=choice["box"],
        column=choice["column"],
        expected_version=table.version(),
        action_id=action_id(),
    )


def finish_with_bots(table: Table) -> Game:
    """People play as the coach says, computers their own steps, to the end."""
    while table.game.status == Game.Status.PLAYING:
        room = table.game.room
        if room.seats[room.rules.current].bot:
            assert botplay.step(table.code, table.version())
        else:
            best_turn(table)
    return table.game


def best_turn(table: Table) -> None:
    """The player to move plays one turn as the coach's hints say (perfect play)."""
    from games.services import coach

    room = table.game.room
    token = room.seats[room.rules.current].controller
    services.turn_roll(code=table.code, controller=token, expected_version=table.version(), action_id=action_id())
    while True:
        hint = coach.hint_for(code=table.code, controller=token, version=table.version())
        best = hint["options"][0]
        if best["kind"] == "keep":
            services.turn_roll(
                code=table.code,
                controller=token,
                held=best["held"],
                expected_version=table.version(),
                action_id=action_id(),
            )
            continue
        services.turn_score(
            code=table.code,
            controller=token,
            box=best["box"],
            column=best["column"],
            expected_version=table.version(),
            action_id=action_id(),
        )
        return


def play_by_hints(table: Table) -> None:
    while table.game.status == Game.Status.PLAYING:
        best_turn(table)


# --- 1. pass-and-play: the host's seat leaves, the account takes someone else's game ----------


def alice_left_bob_on_one_device(username: str) -> tuple[int, Table]:
    """A game on one device, Alice's seat the account ``username``'s: she plays her first turn,
    then leaves her seat, and Bob plays on alone to the end. The account's id and the room."""
    alice, token = account(username)
    game = services.local_game_create(names=["Alice", "Bob"], controller=token, ruleset="official")
    table = Table(code=game.code, controllers=[token, token])
    score_by(table, min)
    services.game_leave(code=table.code, controller=token, seat=0, expected_version=table.version(), action_id="x")
    while table.game.status == Game.Status.PLAYING:
        score_by(table, max)
    return alice, table


def test_pass_and_play_the_account_keeps_its_own_seat_after_leaving_not_the_next_persons() -> None:
    alice, table = alice_left_bob_on_one_device("alice")
    game = table.game
    assert game.status == Game.Status.FINISHED
    assert account_services.game_count(game_id=game.pk)
    mine = list(GameRecord.objects.filter(user_id=alice).values_list("player__seat", "rank"))
    # The account's record is Alice's own seat (seat 0, which left: last), not Bob's win.
    assert mine == [(0, 2)], mine
    assert standing(alice).wins == 0


def test_pass_and_play_deleting_the_account_withdraws_its_own_seats_name_after_it_left() -> None:
    alice, table = alice_left_bob_on_one_device("alice2")
    account_services.game_count(game_id=table.game.pk)
    get_user_model().objects.get(pk=alice).delete()
    names = [s.name for s in table.game.room.seats]
    # Alice's own seat is withdrawn; Bob, who played the other seat, keeps his name.
    assert names == ["Former player", "Bob"], names


# --- 2. an online game: one browser (an account) plays two seats, "same-device players" --------


def test_an_account_with_two_same_device_seats_is_not_credited_with_its_companions_result() -> None:
    ann, ann_token = account("ann")
    bea, bea_token = account("bea")
    host = services.game_create(host_name="Ann", controller=ann_token, ruleset="official")
    code = host.game.code
    # Ann's friend Cy sits at Ann's device (the lobby lets one browser take several seats).
    services.game_join(code=code, name="Cy", controller=ann_token)
    services.game_join(code=code, name="Bea", controller=bea_token)
    services.game_start(code=code, controller=ann_token, expected_version=None, action_id=action_id())
    table = Table(code=code, controllers=[ann_token, ann_token, bea_token])
    # Ann scratches everything, Cy plays as the coach says, Bea in between: Cy 1st, Bea 2nd, Ann 3rd.
    while table.game.status == Game.Status.PLAYING:
        current = table.game.room.rules.current
        if current == 1:
            best_turn(table)
        else:
            score_by(table, min if current == 0 else _middle)
    game = table.game
    scores = [game.room.rules.totals(i).grand_total for i in range(3)]
    assert scores[1] > scores[2] > scores[0], scores
    assert account_services.game_count(game_id=game.pk)
    a, b = standing(ann), standing(bea)
    # Ann played one game and lost it to Bea; Cy's game is not Ann's.
    assert a.ordinal <= b.ordinal, (a.ordinal, b.ordinal)  # rated as Ann, who came last, or not at all
    assert (a.games, a.wins, a.best) == (1, 0, scores[0]), (a.games, a.wins, a.best)


def _middle(options, key):
    """The fewest points above nothing (a low scorer who still beats a scratcher)."""
    some = [o for o in options if o["points"] > 0]
    return min(some or options, key=key)


# --- 3. a losing player goes idle: the computer finishes their seat, nobody is rated ------------


def run_out(table: Table) -> int:
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    return table.version()


def timed_accounts_room() -> tuple[Table, int, int]:
    win, win_token = account("winner")
    lose, lose_token = account("loser")
    host = services.game_create(host_name="Win", controller=win_token, ruleset="official", turn_timer=30)
    services.game_join(code=host.game.code, name="Lose", controller=lose_token)
    services.game_start(code=host.game.code, controller=win_token, expected_version=None, action_id=action_id())
    return Table(code=host.game.code, controllers=[win_token, lose_token]), win, lose


def test_a_loser_who_lets_the_computer_take_their_seat_is_still_rated_for_the_loss() -> None:
    table, win, lose = timed_accounts_room()
    for _ in range(9):  # nine rounds: the winner plays well, the loser scratches
        best_turn(table)
        score_by(table, min)
    # Far behind, the loser stops playing: two turns run out and a computer plays on for them.
    best_turn(table)
    assert services.clock_expire(code=table.code, version=run_out(table))
    best_turn(table)
    assert services.clock_expire(code=table.code, version=run_out(table))
    assert table.game.room.seats[1].bot and table.game.room.seats[1].away_controller
    game = finish_with_bots(table)
    totals = [game.room.rules.totals(i).grand_total for i in range(2)]
    assert game.status == Game.Status.FINISHED and totals[0] > totals[1], totals
    assert account_services.game_count(game_id=game.pk)
    # The winner's win and the loser's loss both count (as when a player leaves: ranked last).
    assert CountedGame.objects.get(game=game).rated
    assert standing(win).rated == 1 and standing(lose).rated == 1
    assert standing(win).ordinal > standing(lose).ordinal


def test_a_win_a_computer_played_most_of_for_an_away_player_raises_no_rating() -> None:
    """A friend (or a second account) hosts; the player goes away and a computer plays their seat
    against a host who throws the game; the player takes the seat back for the last turn and wins.
    The host's loss counts; the computer's win is not the player's to gain from."""
    table, host, player = timed_accounts_room()
    score_by(table, min)  # the host scratches
    assert services.clock_expire(code=table.code, version=run_out(table))  # the player's turn runs out
    score_by(table, min)
    assert services.clock_expire(code=table.code, version=run_out(table))  # again: a computer sits in
    assert table.game.room.seats[1].bot and table.game.room.seats[1].away_controller
    while table.game.room.rules.cards[1].filled < 12:
        room = table.game.room
        if room.seats[room.rules.current].bot:
            assert botplay.step(table.code, table.version())
        else:
            score_by(table, min)
    score_by(table, min)  # the host's last turn
    assert services.seat_reclaim(code=table.code, controller=table.controllers[1]) == [1]
    score_by(table, max)  # the player's own last turn
    game = table.game
    totals = [game.room.rules.totals(i).grand_total for i in range(2)]
    assert game.status == Game.Status.FINISHED and totals[1] > totals[0], totals
    assert account_services.game_count(game_id=game.pk)
    assert CountedGame.objects.get(game=game).rated
    untouched = PlackettLuce().rating()
    assert standing(player).rated == 1 and standing(player).wins == 1
    assert (standing(player).mu, standing(player).ordinal) == (untouched.mu, 0.0)  # no gain
    assert standing(host).rated == 1 and standing(host).ordinal < 0  # the host's loss counts


# --- 4. accuracy: a computer plays the seat, its player takes it back for the last turn ----------


def test_a_game_the_computer_played_for_you_gives_no_accuracy_figure() -> None:
    me, token = account("lazy")
    host = services.game_create(host_name="Lazy", controller=token, ruleset="official", turn_timer=30)
    code = host.game.code
    services.game_start(code=code, controller=token, expected_version=None, action_id=action_id())
    table = Table(code=code, controllers=[token])
    assert services.clock_expire(code=code, version=run_out(table))  # turn 1: the timer plays it
    assert services.clock_expire(code=code, version=run_out(table))  # turn 2: away, a computer takes it
    while table.game.room.rules.cards[0].filled < 12:  # the computer plays turns 3 to 12
        assert botplay.step(code, table.version())
    assert services.seat_reclaim(code=code, controller=token) == [0]
    score_by(table, max)  # the player's one turn of thirteen
    game = table.game
    assert game.status == Game.Status.FINISHED
    assert account_services.game_count(game_id=game.pk)
    record = GameRecord.objects.get(game=game)
    assert record.user_id == me
    # Twelve of thirteen turns were not the player's: the game says nothing of their accuracy.
    assert record.lost is None, f"counted as {record.lost} points lost for the whole game"
    assert standing(me).reviewed == 0


# --- 5. accuracy: following the coach's hints, every choice is perfect play --------------------


def test_the_accuracy_leaderboard_does_not_rank_the_coachs_own_play() -> None:
    me, token = account("copycat")
    for _ in range(5):
        host = services.game_create(host_name="Copy", controller=token, ruleset="official")
        services.game_start(code=host.game.code, controller=token, expected_version=None, action_id=action_id())
        table = Table(code=host.game.code, controllers=[token])
        play_by_hints(table)  # the room has hints on (the default): the player asks before every choice
        assert account_services.game_count(game_id=table.game.pk)
    losses = list(GameRecord.objects.filter(user_id=me).values_list("lost", flat=True))
    board = Client().get("/leaderboards/official").content.decode()
    # Games played by asking the coach measure the coach, not the player: no accuracy figure.
    assert "/u/copycat/" not in board, "listed first by accuracy: 0.0 points lost a game"
    assert losses == [None] * 5, losses
    # Their own profile says why there is no figure; a visitor reads that there is none.
    own = Client()
    own.force_login(get_user_model().objects.get(pk=me))
    why = "No reviewed game yet: a game is reviewed when you play all of it yourself, with no hint from the coach"
    assert why in own.get("/u/copycat/").content.decode()
    visitor = Client().get("/u/copycat/").content.decode()
    assert "No reviewed game yet." in visitor and why not in visitor


def test_leaving_after_one_turn_gives_no_accuracy_figure() -> None:
    me, token = account("quitter")
    guest = services.new_controller()
    host = services.game_create(host_name="Quit", controller=token, ruleset="official")
    services.game_join(code=host.game.code, name="Guest", controller=guest)
    services.game_start(code=host.game.code, controller=token, expected_version=None, action_id=action_id())
    table = Table(code=host.game.code, controllers=[token, guest])
    score_by(table, max)  # one turn of thirteen, then away for good
    services.game_leave(code=table.code, controller=token, seat=0, expected_version=table.version(), action_id="q")
    while table.game.status == Game.Status.PLAYING:
        score_by(table, max)
    assert account_services.game_count(game_id=table.game.pk)
    record = GameRecord.objects.get(game=table.game, user_id=me)
    # One choice of a game is not a game's accuracy: "points lost a game" counts it as a whole game.
    assert record.lost is None, f"counted as {record.lost} points lost for the whole game"


# --- 6. a public profile hands out private rooms' codes: their chat is anyone's ----------------


def test_a_player_beaten_by_a_computer_seat_is_not_recorded_as_the_winner() -> None:
    alice, token = account("alice")
    game = services.game_create(host_name="Alice", controller=token, ruleset="official").game
    table = Table(code=game.code, controllers=[token])
    services.game_add_bot(code=table.code, controller=token, expected_version=table.version(), action_id=action_id())
    services.game_start(code=table.code, controller=token, expected_version=table.version(), action_id=action_id())
    # Alice scores the fewest points she can every turn; the optimal computer plays its own game.
    while table.game.status == Game.Status.PLAYING:
        room = table.game.room
        if room.seats[room.rules.current].bot:
            assert botplay.step(table.code, table.version())
        else:
            score_by(table, min)
    finished = table.game
    rules = finished.room.rules
    totals = [rules.totals(i).grand_total for i in range(2)]
    assert list(rules.winners()) == [1], totals  # the computer won: the room says so
    account_services.game_count(game_id=finished.pk)
    record = GameRecord.objects.get(game=finished, user_id=alice)
    assert (record.rank, standing(alice).wins) == (2, 0), (
        f"Alice lost {totals[0]} to {totals[1]} but her record says rank {record.rank}, wins {standing(alice).wins}"
    )


# --- 7. signing in after the game: the browser's seats join the account as counting says -------


def test_signing_in_after_a_game_with_two_seats_on_one_device_claims_only_the_first_seat() -> None:
    browser = Client()
    token = browser_with_seat_token(browser)
    other = services.new_controller()
    host = services.game_create(host_name="Me", controller=token, ruleset="official")
    services.game_join(code=host.game.code, name="Stranger", controller=other)
    services.game_join(code=host.game.code, name="Friend", controller=token)  # a companion at my device
    services.game_start(code=host.game.code, controller=token, expected_version=None, action_id=action_id())
    game = finish(Table(code=host.game.code, controllers=[token, other, token]), seed=5)
    assert GameRecord.objects.filter(game=game, user__isnull=True).count() == 3
    sign_up(browser, "solo")
    me = user("solo")
    seats = sorted(GameRecord.objects.filter(game=game, user=me).values_list("player__seat", flat=True))
    # One person, one game: the friend's seat (and result) is nobody's record.
    assert seats == [0], f"the account got the records of seats {seats}"
    assert standing(me.pk).games == 1
    assert list(Player.objects.filter(game=game, user=me).values_list("seat", flat=True)) == [0]


def test_signing_in_keeps_the_seat_an_account_already_has_in_a_game() -> None:
    amy, amy_token = account("amy")
    browser = Client()
    token = browser_with_seat_token(browser)  # a friend's device, before Amy signs in on it
    host = services.game_create(host_name="Friend", controller=token, ruleset="official")
    services.game_join(code=host.game.code, name="Amy", controller=amy_token)
    services.game_start(code=host.game.code, controller=token, expected_version=None, action_id=action_id())
    game = finish(Table(code=host.game.code, controllers=[token, amy_token]), seed=2)
    assert browser.post("/accounts/login/", {"login": "amy", "password": "x" * 20}).status_code == 302
    seats = sorted(GameRecord.objects.filter(game=game, user_id=amy).values_list("player__seat", flat=True))
    # Amy played seat 1 as herself; the seat her friend played on this device stays her friend's.
    assert seats == [1], f"the account got the records of seats {seats}"
    assert standing(amy).games == 1


def test_a_game_a_computer_finished_for_the_away_player_joins_their_account_when_they_sign_in() -> None:
    loser = Client()
    token = browser_with_seat_token(loser)
    winner = services.new_controller()
    host = services.game_create(host_name="Win", controller=winner, ruleset="official", turn_timer=30)
    services.game_join(code=host.game.code, name="Lose", controller=token)
    services.game_start(code=host.game.code, controller=winner, expected_version=None, action_id=action_id())
    table = Table(code=host.game.code, controllers=[winner, token])
    # Far from winning, the anonymous player lets two turns run out: a computer plays on for them.
    best_turn(table)
    assert services.clock_expire(code=table.code, version=run_out(table))
    best_turn(table)
    assert services.clock_expire(code=table.code, version=run_out(table))
    assert table.game.room.seats[1].bot and table.game.room.seats[1].away_controller == token
    game = finish_with_bots(table)
    account_services.game_count(game_id=game.pk)
    assert GameRecord.objects.filter(game=game, user__isnull=True).count() == 2
    sign_up(loser, "lou")
    lou = user("lou")
    records = list(GameRecord.objects.filter(game=game, user=lou).values_list("player__seat", "rank"))
    # The lost game is on the account, ranked as a seat that left: after the player who stayed.
    assert records == [(1, 2)], records
    assert (standing(lou.pk).games, standing(lou.pk).wins) == (1, 0)


def test_signing_in_on_a_friends_device_during_a_live_game_keeps_the_accounts_own_seat() -> None:
    """Signing in, the browser's first seat becomes the account's own, and none in a game where the
    account already has a seat (docs/accounts.md). Ann plays seat 1 signed in on her phone; Bob plays
    seat 0 anonymously on the family laptop, where Ann signs in mid-game (to look at her profile):
    both seats then answer to the account's token, and her record is still the seat she played."""
    phone = Client()
    sign_up(phone, "ann")
    ann = controller_of(phone)
    laptop = Client()
    bob = browser_with_seat_token(laptop)
    code = services.game_create(host_name="Bob", controller=bob, ruleset="official").game.code
    services.game_join(code=code, name="Ann", controller=ann)
    services.game_start(code=code, controller=bob, expected_version=None, action_id=action_id())
    assert laptop.post("/accounts/login/", {"login": "ann", "password": PASSWORD}).status_code == 302

    game = finish(Table(code=code, controllers=[ann, ann]), seed=5)
    ann_score = game.room.rules.totals(1).grand_total  # seat 1 is the one Ann played herself
    seats = list(GameRecord.objects.filter(game=game, user__username="ann").values_list("player__seat", flat=True))
    assert seats == [1], f"Ann's record is the seat(s) {seats}, not the one she played"
    assert (standing(user("ann").pk).games, standing(user("ann").pk).score_sum) == (1, ann_score)


def left_and_handed_to_a_computer(ann_token: str, bob_token: str) -> Game:
    """Bob leaves a game against Ann after a turn each; Ann, the host, lets a computer play on in his
    seat (*Replace with a computer*) to finish the game."""
    code = services.game_create(host_name="Ann", controller=ann_token, ruleset="official").game.code
    services.game_join(code=code, name="Bob", controller=bob_token)
    services.game_start(code=code, controller=ann_token, expected_version=None, action_id=action_id())
    table = Table(code=code, controllers=[ann_token, bob_token])
    rng = random.Random(1)
    play_turn(table, rng)
    play_turn(table, rng)
    services.game_leave(code=code, controller=bob_token, seat=1, expected_version=table.version(), action_id="bye")
    services.game_replace_with_bot(
        code=code, controller=ann_token, seat=1, expected_version=table.version(), action_id=action_id()
    )
    while table.game.status == Game.Status.PLAYING:
        room = table.game.room
        if room.seats[room.rules.current].bot:
            assert botplay.step(code, table.version())
        else:
            play_turn(table, rng)
    game = table.game
    assert game.status == Game.Status.FINISHED
    return game


def test_a_player_who_left_keeps_the_game_on_record_when_the_host_gives_the_seat_to_a_computer() -> None:
    """A seat that left ranks after every seat that stayed, and is rated so (docs/accounts.md), also
    when the host lets a computer play it on: leaving, with a friendly host, erases no loss, and the
    player who stayed keeps the win (the computer in Bob's seat plays perfectly and outscores Ann)."""
    ann, ann_token = account("ann")
    bob, bob_token = account("bob")
    game = left_and_handed_to_a_computer(ann_token, bob_token)
    totals = [game.room.rules.totals(i).grand_total for i in range(2)]
    assert totals[1] > totals[0], totals
    account_services.game_count(game_id=game.pk)

    records = dict(GameRecord.objects.filter(game=game, user__isnull=False).values_list("user_id", "rank"))
    assert records == {ann: 1, bob: 2}, f"records by user id: rank {records}"
    assert standing(bob).wins == 0 and standing(ann).wins == 1
    assert CountedGame.objects.get(game=game).rated
    # Rated as Ann first, Bob second, from the starting ratings: computed here with openskill.
    model = PlackettLuce()
    [[ann_after], [bob_after]] = model.rate([[model.rating()], [model.rating()]], ranks=[1.0, 2.0])
    got = {s.user_id: s.ordinal for s in Standing.objects.filter(ruleset="official")}
    assert got == pytest.approx({ann: ann_after.ordinal(), bob: bob_after.ordinal()})


def test_a_game_a_computer_played_on_after_the_player_left_joins_their_account_when_they_sign_in() -> None:
    """Bob played anonymously, left, and the host had a computer finish his seat: signing up on that
    browser afterwards brings the lost game to his account, ranked after Ann, who stayed."""
    _, ann_token = account("ann")
    browser = Client()
    game = left_and_handed_to_a_computer(ann_token, browser_with_seat_token(browser))
    account_services.game_count(game_id=game.pk)
    assert GameRecord.objects.filter(game=game, player__seat=1, user__isnull=True, rank=2).exists()
    sign_up(browser, "bob")
    bob = user("bob")
    assert list(GameRecord.objects.filter(game=game, user=bob).values_list("player__seat", "rank")) == [(1, 2)]
    assert (standing(bob.pk).games, standing(bob.pk).wins) == (1, 0)


# --- 8. a rematch its loser never followed: a seat nobody played is not rated ------------------


@pytest.mark.parametrize("takeover", ["computer", "remove"])
def test_a_rematch_a_player_never_came_to_is_not_rated_against_them(takeover: str) -> None:
    win, win_token = account("stayer")
    lose, lose_token = account("goner")
    first = services.game_create(host_name="Stay", controller=win_token, ruleset="official").game.code
    services.game_join(code=first, name="Gone", controller=lose_token)
    services.game_start(code=first, controller=win_token, expected_version=None, action_id=action_id())
    finish(Table(code=first, controllers=[win_token, lose_token]))
    before = standing(lose)
    assert before.rated == 1
    # The other player closed the page at the end. The rematch seats them anyway (everyone in the
    # old game is offered it), and its host starts it without them and has their seat taken over.
    code = services.game_rematch(code=first, controller=win_token).code
    services.game_start(code=code, controller=win_token, expected_version=None, action_id=action_id())
    table = Table(code=code, controllers=[win_token, lose_token])
    best_turn(table)
    take_over = services.game_replace_with_bot if takeover == "computer" else services.game_remove_absent
    take_over(code=code, controller=win_token, seat=1, expected_version=table.version(), action_id=action_id())
    game = finish_with_bots(table)
    assert game.status == Game.Status.FINISHED
    assert account_services.game_count(game_id=game.pk)
    # Not one of their turns was theirs: the game says nothing of their skill, nor of the stayer's.
    assert not CountedGame.objects.get(game=game).rated
    after = standing(lose)
    assert (after.rated, after.mu, after.sigma) == (before.rated, before.mu, before.sigma)
    assert standing(win).rated == 1


def test_a_game_every_rated_player_walked_away_from_is_not_rated() -> None:
    table, one, two = timed_accounts_room()
    best_turn(table)
    best_turn(table)  # a turn each, then both stop playing: each seat's turn runs out twice
    for _ in range(4):
        assert services.clock_expire(code=table.code, version=run_out(table))
    seats = table.game.room.seats
    assert all(seat.bot and seat.away_controller for seat in seats)
    game = finish_with_bots(table)
    assert game.status == Game.Status.FINISHED
    assert account_services.game_count(game_id=game.pk)
    # Computers played the game out for both: who of them scored more says nothing of either player.
    assert not CountedGame.objects.get(game=game).rated
    assert standing(one).rated == 0 and standing(two).rated == 0
    assert standing(one).games == 1 and standing(two).games == 1  # still on both records


# --- 9. a rated game everyone left: the loser who left first does not take it off the records ---


def test_a_rated_game_whose_loser_left_and_whose_winner_then_left_too_is_counted_and_rated() -> None:
    table, win, lose = timed_accounts_room()
    for _ in range(3):  # three rounds: the winner plays well, the loser scratches
        best_turn(table)
        score_by(table, min)
    services.game_leave(code=table.code, controller=table.controllers[1], seat=1, expected_version=None, action_id="")
    assert table.game.status == Game.Status.PLAYING  # the winner may play on alone
    best_turn(table)
    # Left alone, the winner leaves too: the game ends there, not abandoned.
    services.game_leave(code=table.code, controller=table.controllers[0], seat=0, expected_version=None, action_id="")
    game = table.game
    assert game.status == Game.Status.FINISHED and game.room.ranks() == [1, 2]
    assert game_state(game)["winners"] == [0]
    assert account_services.game_count(game_id=game.pk)
    assert CountedGame.objects.get(game=game).rated
    assert standing(win).wins == 1 and standing(win).rated == 1
    assert standing(lose).games == 1 and standing(lose).rated == 1
    assert standing(win).ordinal > standing(lose).ordinal
    assert sorted(GameRecord.objects.filter(game=game).values_list("user_id", "rank")) == sorted([(win, 1), (lose, 2)])


def test_a_game_everyone_left_ranks_them_by_when_they_left_whatever_their_scores() -> None:
    ids = [account(name) for name in ("first", "second", "last")]
    tokens = [token for _, token in ids]
    code = services.game_create(host_name="First", controller=tokens[0], ruleset="official").game.code
    for name, token in zip(("Second", "Last"), tokens[1:], strict=True):
        services.game_join(code=code, name=name, controller=token)
    services.game_start(code=code, controller=tokens[0], expected_version=None, action_id=action_id())
    table = Table(code=code, controllers=tokens)
    best_turn(table)  # the first to leave has the best score
    score_by(table, min)
    score_by(table, min)
    everyone_leaves(table, (0, 1, 2))
    game = table.game
    assert game.status == Game.Status.FINISHED and game.room.ranks() == [3, 2, 1]
    assert account_services.game_count(game_id=game.pk)
    assert CountedGame.objects.get(game=game).rated
    ranks = dict(GameRecord.objects.filter(game=game).values_list("user_id", "rank"))
    assert [ranks[user_id] for user_id, _ in ids] == [3, 2, 1]


def test_staff_find_a_games_records_by_its_code_as_the_site_shows_it(admin_client: Client) -> None:
    """A player quotes a game's code with its dashes ("abcd-efgh-jk"), as the room page shows it:
    the admin's list of records finds that game's records with it, as it does with the bare code
    and as every other list searched by code does."""
    a, b = Client(), Client()
    sign_up(a, "quentin")
    sign_up(b, "rosalind")
    game = finish(room_for([controller_of(a), controller_of(b)]))
    other = finish(room_for([controller_of(a), controller_of(b)]), seed=2)
    changelist = "/admin/accounts/gamerecord/"
    for typed in (game.code, services.shown_code(game.code), services.shown_code(game.code).upper()):
        response = admin_client.get(changelist, {"q": typed})
        assert response.status_code == 200
        found = {record.game_id for record in response.context["cl"].result_list}
        assert found == {game.pk}, (typed, found, other.pk)

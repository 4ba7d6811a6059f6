"""Computer players in rooms and the coach: same services, same Move log, exactly once."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.utils import timezone

import bots
from games import scheduling, services
from games.domain import errors
from games.domain.rules import RuleViolation
from games.domain.rules.codec import state_from_dict
from games.scheduling import botplay
from games.services import coach
from games.services.replay import replay_game, replay_steps, verify_fairness
from games.store.models import Game, HintTaken, Move, Player
from games.store.selectors import game_state
from tests.factories import Table, action_id, online, open_room, play_to_end, play_turn, score_first_legal

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="session")
def official_table() -> None:
    """Build (or load) the exact table once; the bots and the coach read it from disk."""
    bots.tables.table("official", build=True)


def add_bot(table: Table, level: str = "optimal", controller: str | None = None) -> Player:
    return services.game_add_bot(
        code=table.code,
        controller=controller or table.controllers[0],
        level=level,
        expected_version=table.version(),
        action_id=action_id(),
    )


def start(table: Table) -> None:
    services.game_start(
        code=table.code, controller=table.controllers[0], expected_version=table.version(), action_id=action_id()
    )


def run_bots(table: Table) -> int:
    """Let every bot whose turn it is play until a person is to play or the game ends."""
    steps = 0
    while botplay.step(table.code, table.version()):
        steps += 1
    return steps


def snapshot(code: str) -> tuple[int, dict, int]:
    game = Game.objects.get(code=code)
    return game.version, game.snapshot, Move.objects.filter(game=game).count()


def test_the_host_seats_bots_in_the_lobby_with_names_and_levels() -> None:
    table = open_room(2, start=False)
    first, second = add_bot(table, "optimal"), add_bot(table, "beginner")
    seats = table.game.snapshot["seats"]
    assert [s["kind"] for s in seats] == ["human", "human", "bot", "bot"]
    assert (seats[2]["level"], seats[3]["level"]) == ("optimal", "beginner")
    assert first.name != second.name and first.controller.startswith("bot:")
    join = Move.objects.filter(game=table.game, kind="join").order_by("-seq").first()
    assert join.payload["bot"] == "beginner"


@pytest.mark.parametrize(
    ("who", "level", "code"),
    [(1, "optimal", services.NOT_HOST), (0, "grandmaster", services.BAD_LEVEL), (0, 3, services.BAD_LEVEL)],
)
def test_adding_a_bot_is_for_the_host_at_a_known_level(who: int, level: object, code: str) -> None:
    table = open_room(2, start=False)
    online(table.code, table.controllers[0])  # the host is at the table: nobody else may act for them
    before = snapshot(table.code)
    with pytest.raises(RuleViolation) as refused:
        add_bot(table, level, controller=table.controllers[who])  # type: ignore[arg-type]
    assert refused.value.code == code
    assert snapshot(table.code) == before


def test_bots_cannot_join_a_started_game_or_a_full_room() -> None:
    table = open_room(2)
    with pytest.raises(RuleViolation) as refused:
        add_bot(table)
    assert refused.value.code == services.NOT_IN_LOBBY
    full = open_room(1, start=False)
    for _ in range(7):
        add_bot(full)
    with pytest.raises(RuleViolation) as refused:
        add_bot(full)
    assert refused.value.code == services.ROOM_FULL


def test_a_person_and_two_bots_play_a_whole_game_through_the_services(official_table: None) -> None:
    table = open_room(1, start=False)
    add_bot(table, "optimal")
    add_bot(table, "casual")
    start(table)
    rng = random.Random(7)
    while table.game.status == Game.Status.PLAYING:
        if table.game.snapshot["rules"]["current"] == 0:
            play_turn(table, rng)
        else:
            assert run_bots(table) >= 2  # at least a roll and a score
    game = table.game
    assert game.status == Game.Status.FINISHED
    replay = replay_game(game)
    assert replay.problems == [] and verify_fairness(game).ok
    bot_players = {s["player"]: s["controller"] for s in game.snapshot["seats"][1:]}
    bot_moves = Move.objects.filter(game=game, player_id__in=bot_players, kind__in=["roll", "hold", "score"])
    assert bot_moves.filter(kind="score").count() == 26
    assert all(m.actor == bot_players[m.player_id] for m in bot_moves)
    # A bot's roll holds its dice first (turn_roll's held): the hold's Move has no id of its own.
    assert all(m.action_id.startswith("bot-") for m in bot_moves.exclude(kind="hold"))
    assert all(m.action_id == "" for m in bot_moves.filter(kind="hold"))


def test_a_bot_step_applies_once_however_many_processes_try(official_table: None) -> None:
    table = open_room(1, start=False)
    add_bot(table)
    start(table)
    play_turn(table, random.Random(1))
    version = table.version()
    assert botplay.step(table.code, version) is True
    after = snapshot(table.code)
    assert botplay.step(table.code, version) is False  # a second process, same version: stale
    assert snapshot(table.code) == after


def test_the_action_that_makes_a_bot_to_play_makes_the_room_due() -> None:
    """What the scheduler reads (games.scheduling): the room's due time, stored with the action."""
    table = open_room(1, start=False)
    add_bot(table)
    assert table.game.due_at is None  # the bot is seated but nobody plays yet
    start(table)
    assert table.game.due_at is None  # the person plays first
    play_turn(table, random.Random(1))
    assert table.game.due_at is not None


def test_a_bot_never_plays_a_persons_turn() -> None:
    table = open_room(2)
    before = snapshot(table.code)
    assert botplay.step(table.code, table.version()) is False
    assert snapshot(table.code) == before


def test_without_a_table_the_bot_waits_and_its_build_is_asked_for(
    official_table: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    building: list[str] = []
    monkeypatch.setattr(bots, "ready", lambda ruleset: False)
    monkeypatch.setattr(botplay.tables, "request", building.append)
    table = open_room(1, start=False)
    add_bot(table)
    start(table)
    play_turn(table, random.Random(2))
    version = table.version()
    before = snapshot(table.code)
    assert botplay.step(table.code, version) is None  # waiting: nothing played, nothing written
    assert botplay.step(table.code, version) is None
    assert snapshot(table.code) == before
    assert building == ["official", "official"]  # the room's table is asked to be built next
    state = game_state(table.game)
    assert state["getting_ready"]["eta"] >= 1  # the estimate: build_seconds, as if asked now
    monkeypatch.undo()  # the table is ready: the bot plays its turn from it
    assert botplay.step(table.code, version) is True
    assert run_bots(table) >= 1 and table.game.snapshot["rules"]["current"] == 0
    assert game_state(table.game)["getting_ready"] is None


def test_the_scheduler_looks_again_at_a_bot_waiting_for_its_table_which_plays_once_it_is_there(
    official_table: None, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.BOT_DELAY = 0
    monkeypatch.setattr(bots, "ready", lambda ruleset: False)
    monkeypatch.setattr(botplay.tables, "request", lambda ruleset, first=True: None)
    table = open_room(1, start=False)
    add_bot(table)
    start(table)
    play_turn(table, random.Random(2))
    version = table.version()
    assert scheduling.apply_due(table.code) == scheduling.NOTHING
    game = table.game
    assert game.version == version and game.due_at is not None and game.due_at > timezone.now()  # again shortly
    monkeypatch.undo()  # the table is there
    Game.objects.filter(code=table.code).update(due_at=timezone.now())
    assert scheduling.apply_due(table.code) == scheduling.APPLIED
    assert table.version() > version


def test_the_host_hands_an_away_players_seat_to_a_bot_which_keeps_its_scores(official_table: None) -> None:
    table = open_room(3)
    rng = random.Random(4)
    for _ in range(4):
        play_turn(table, rng)
    seat_scores = dict(table.game.snapshot["rules"]["cards"][1]["columns"][0])
    online(table.code, table.controllers[0])  # the host is at the table: nobody else may act for them
    with pytest.raises(RuleViolation) as refused:
        services.game_replace_with_bot(
            code=table.code, controller=table.controllers[1], seat=2, expected_version=table.version(), action_id="x"
        )
    assert refused.value.code == services.NOT_HOST
    services.game_replace_with_bot(
        code=table.code, controller=table.controllers[0], seat=1, expected_version=table.version(), action_id="r1"
    )
    game = table.game
    seat = game.snapshot["seats"][1]
    assert seat["kind"] == "bot" and seat["status"] == "active" and seat["name"] == "P1"
    assert dict(game.snapshot["rules"]["cards"][1]["columns"][0]) == seat_scores
    assert Player.objects.get(pk=seat["player"]).kind == "bot"
    # The old browser can no longer play the seat (it may take it back, or leave it).
    assert not table.game.room.plays(table.controllers[1])
    assert table.game.room.reclaimable(table.controllers[1], playing=True) == [1]
    table.controllers[1] = seat["controller"]
    while table.game.status == Game.Status.PLAYING:
        if table.game.snapshot["rules"]["current"] == 1:
            run_bots(table)
        else:
            play_turn(table, rng)
    assert replay_game(table.game).problems == []


def test_a_seat_whose_player_left_comes_back_as_a_bot(official_table: None) -> None:
    table = open_room(2)
    rng = random.Random(5)
    play_turn(table, rng)
    services.game_leave(
        code=table.code, controller=table.controllers[1], seat=1, expected_version=table.version(), action_id="bye"
    )
    for _ in range(2):
        play_turn(table, rng)  # only P0 plays now
    services.game_replace_with_bot(
        code=table.code, controller=table.controllers[0], seat=1, expected_version=table.version(), action_id="back"
    )
    move = Move.objects.filter(game=table.game, kind="bot").get()
    assert move.payload["reinstate"] is True
    state = state_from_dict(table.game.snapshot["rules"])
    assert state.active == (True, True)
    while table.game.status == Game.Status.PLAYING:
        if table.game.snapshot["rules"]["current"] == 1:
            run_bots(table)
        else:
            play_turn(table, rng)
    game = table.game
    assert state_from_dict(game.snapshot["rules"]).cards[1].filled == 13
    replay = replay_game(game)
    assert replay.problems == [] and verify_fairness(game).ok


def left_seat_outscores_the_player_who_stayed() -> Game:
    """P1 leaves after a turn each; the host has an expert computer play P1's seat on, and it
    outscores P0, who stays to the end scoring the first box they may."""
    table = open_room(2)
    score_first_legal(table)
    score_first_legal(table)
    services.game_leave(
        code=table.code, controller=table.controllers[1], seat=1, expected_version=table.version(), action_id="bye"
    )
    services.game_replace_with_bot(
        code=table.code, controller=table.controllers[0], seat=1, expected_version=table.version(), action_id="on"
    )
    while table.game.status == Game.Status.PLAYING:
        if table.game.room.rules.current == 1:
            assert botplay.step(table.code, table.version())
        else:
            score_first_legal(table)
    game = table.game
    totals = [game.room.rules.totals(i).grand_total for i in range(2)]
    assert game.status == Game.Status.FINISHED and totals[1] > totals[0], totals
    return game


def test_the_table_and_the_replay_name_the_player_who_stayed_over_a_computer_in_a_left_seat(
    official_table: None,
) -> None:
    """The records rank a seat a computer played on after its player left with the seats that left
    (accounts.services._count): P0 won. The state every page draws its game-over panel from, the last
    score's Move and the replay's last step say so, and the replay says why P1's total does not win."""
    game = left_seat_outscores_the_player_who_stayed()
    state = game_state(game)
    assert state["winners"] == [0] and [seat["gave_up"] for seat in state["seats"]] == [False, True]
    last = Move.objects.filter(game=game, kind=Move.Kind.SCORE).order_by("-seq").first()
    assert last is not None and last.payload["winners"] == [0]
    end = replay_steps(game)[-1]
    points = game.room.rules.totals(0).grand_total
    assert end["text"].startswith(f"\u2068P0\u2069 wins with {points} points."), end["text"]
    assert "\u2068P1\u2069's seat was finished by a computer: it ranks after the players who stayed." in end["text"]


def test_a_seat_that_left_with_its_card_full_is_not_handed_to_a_computer_and_says_why() -> None:
    """Ben filled his last box and left while Cy still had a turn to play: no turn of his is left,
    so the host's *Let a computer play* (the page offers none there) is refused as such."""
    table = open_room(3)
    rng = random.Random(8)
    while table.game.room.rules.turns_played < 13 * 3 - 1:
        play_turn(table, rng, 0)
    assert table.game.room.rules.current == 2
    services.game_leave(code=table.code, controller=table.controllers[1], seat=1, expected_version=None, action_id="l")
    before = snapshot(table.code)
    with pytest.raises(RuleViolation) as refused:
        services.game_replace_with_bot(
            code=table.code, controller=table.controllers[0], seat=1, expected_version=None, action_id="r"
        )
    assert refused.value.code == services.CARD_FULL and "Seat" not in refused.value.message
    assert snapshot(table.code) == before


def test_replacing_is_refused_in_the_lobby_for_bots_and_for_your_own_seat() -> None:
    lobby = open_room(2, start=False)
    with pytest.raises(RuleViolation) as refused:
        services.game_replace_with_bot(
            code=lobby.code, controller=lobby.controllers[0], seat=1, expected_version=lobby.version(), action_id="a"
        )
    assert refused.value.code == services.NOT_PLAYING
    table = open_room(2)
    before = snapshot(table.code)
    for seat, code in ((0, services.OWN_SEAT), (5, services.BAD_SEAT)):
        with pytest.raises(RuleViolation) as refused:
            services.game_replace_with_bot(
                code=table.code,
                controller=table.controllers[0],
                seat=seat,
                expected_version=table.version(),
                action_id="b",
            )
        assert refused.value.code == code
    assert snapshot(table.code) == before


def test_pass_and_play_can_fill_seats_with_bots(official_table: None) -> None:
    controller = services.new_controller()
    game = services.local_game_create(names=["Kid"], controller=controller, bots=2, level="beginner")
    assert [s["kind"] for s in game.snapshot["seats"]] == ["human", "bot", "bot"]
    assert game.status == Game.Status.PLAYING
    with pytest.raises(RuleViolation):
        services.local_game_create(names=["A", "B"], controller=controller, bots=7)


# --- the coach -----------------------------------------------------------------------------


def hint(table: Table, controller: str | None = None, version: int | None = None) -> dict:
    return coach.hint_for(
        code=table.code,
        controller=table.current() if controller is None else controller,
        version=table.version() if version is None else version,
    )


def test_the_coach_hints_the_best_choices_with_expected_final_scores(official_table: None) -> None:
    table = open_room(2)
    with pytest.raises(RuleViolation) as refused:
        hint(table)
    assert refused.value.code == "roll_first"
    services.turn_roll(code=table.code, controller=table.current(), expected_version=table.version(), action_id="r")
    answer = hint(table)
    assert answer["type"] == "hint" and len(answer["options"]) == 3
    expected = [o["expected"] for o in answer["options"]]
    assert expected == sorted(expected, reverse=True)
    assert 150 < expected[0] < 330
    assert all(o["kind"] in ("keep", "score") and o["text"] for o in answer["options"])


def test_while_its_table_is_built_the_coach_answers_that_it_is_getting_ready(
    official_table: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    building: list[str] = []
    monkeypatch.setattr(bots, "ready", lambda ruleset: False)
    monkeypatch.setattr(botplay.tables, "request", building.append)
    monkeypatch.setattr(botplay.tables, "eta", lambda ruleset: 12.2)
    table = open_room(2)
    with pytest.raises(RuleViolation) as refused:
        hint(table)
    assert refused.value.code == "roll_first"  # the request's own errors first
    services.turn_roll(code=table.code, controller=table.current(), expected_version=table.version(), action_id="r")
    answer = hint(table)
    assert answer["type"] == "hint" and answer["ready"] is False and answer["options"] == []
    assert answer["eta"] == 13 and answer["message"] == "The computer is getting ready (about 13 s)."
    assert answer["version"] == table.version() and answer["seat"] == 0
    assert building == ["official"]
    monkeypatch.setattr(botplay.tables, "eta", lambda ruleset: None)
    assert hint(table)["message"] == "The computer is getting ready."
    monkeypatch.undo()
    answer = hint(table)
    assert answer["ready"] is True and len(answer["options"]) == 3


def test_the_coach_answers_only_the_player_to_play_for_the_current_version(official_table: None) -> None:
    table = open_room(2)
    services.turn_roll(code=table.code, controller=table.current(), expected_version=table.version(), action_id="r")
    for kwargs, code in (
        ({"controller": table.controllers[1]}, services.NOT_A_PLAYER),
        ({"controller": ""}, services.NOT_A_PLAYER),
        ({"version": 1}, services.STALE),
    ):
        with pytest.raises(RuleViolation) as refused:
            hint(table, **kwargs)
        assert refused.value.code == code
    Game.objects.filter(code=table.code).update(hints=False)
    with pytest.raises(RuleViolation) as refused:
        hint(table)
    assert refused.value.code == errors.HINTS_OFF


def test_the_coach_answers_no_hint_while_the_game_is_paused(official_table: None) -> None:
    """The page offers no Hint in a pause; a hint asked all the same (a page drawn before the pause,
    another tab's) is refused as a roll is, in words about its reader, and notes no hint taken.
    The resume lets the coach answer again."""
    table = open_room(3)
    play_turn(table, random.Random(3))  # the host's turn: Ben (seat 1) plays next
    host, ben = table.controllers[0], table.controllers[1]
    services.turn_roll(code=table.code, controller=ben, expected_version=table.version(), action_id="r")
    services.game_pause(code=table.code, controller=host, expected_version=table.version(), action_id="p")
    with pytest.raises(RuleViolation) as refused:
        hint(table, ben)
    assert refused.value.code == errors.PAUSED
    assert refused.value.message == "The host has paused the game: play goes on when they resume it."
    assert not HintTaken.objects.filter(game=table.game).exists()
    services.game_resume(code=table.code, controller=host, expected_version=table.version(), action_id="go")
    assert hint(table, ben)["ready"] is True


def test_the_coach_reviews_a_finished_game_and_an_optimal_bot_loses_nothing(official_table: None) -> None:
    table = open_room(1, start=False)
    add_bot(table, "optimal")
    start(table)
    rng = random.Random(9)
    with pytest.raises(RuleViolation):
        coach.review(table.game)
    while table.game.status == Game.Status.PLAYING:
        if table.game.snapshot["rules"]["current"] == 0:
            play_turn(table, rng)  # random play
        else:
            run_bots(table)
    review = coach.review(table.game)
    person, bot = review["seats"]
    assert review["exact"] is True
    assert bot["lost"] == 0 and bot["mistakes"] == 0 and bot["choices"] >= 13
    assert person["lost"] > 5 and person["mistakes"] > 0
    assert (person["kind"], person["like_solver"]) == ("human", False)
    assert (bot["kind"], bot["like_solver"]) == ("bot", True)


def test_only_an_away_players_seat_can_be_handed_to_a_bot_or_taken_out() -> None:
    from django.utils import timezone

    from games.store.models import Presence

    table = open_room(3)
    Presence.objects.create(
        game=table.game, channel_name="sock-1", controller=table.controllers[1], seen_at=timezone.now()
    )
    before = snapshot(table.code)
    for service in (services.game_replace_with_bot, services.game_remove_absent):
        with pytest.raises(RuleViolation) as refused:
            service(
                code=table.code,
                controller=table.controllers[0],
                seat=1,
                expected_version=table.version(),
                action_id="x",
            )
        assert refused.value.code == services.PLAYER_PRESENT
    assert snapshot(table.code) == before
    # A socket whose process died stops pinging: after the timeout the seat counts as away.
    Presence.objects.filter(channel_name="sock-1").update(seen_at=timezone.now() - timezone.timedelta(minutes=5))
    services.game_replace_with_bot(
        code=table.code, controller=table.controllers[0], seat=1, expected_version=table.version(), action_id="y"
    )
    assert table.game.snapshot["seats"][1]["kind"] == "bot"


def test_a_rematch_keeps_the_rooms_hints_setting_and_its_bots_levels(official_table: None) -> None:
    controller = services.new_controller()
    game = services.local_game_create(names=["Kid"], controller=controller, bots=1, level="beginner", hints=False)
    table = Table(code=game.code, controllers=[controller, game.snapshot["seats"][1]["controller"]])
    rng = random.Random(3)
    while table.game.status == Game.Status.PLAYING:
        if table.game.snapshot["rules"]["current"] == 0:
            play_turn(table, rng)
        else:
            run_bots(table)
    new = services.game_rematch(code=game.code, controller=controller)
    assert new.hints is False and new.local is True
    assert [(s["kind"], s.get("level")) for s in new.snapshot["seats"]] == [("human", None), ("bot", "beginner")]


# --- Painted Yahtzee: bots and coach on the one-turn search ----------------------------------


def test_painted_a_person_and_a_bot_play_a_whole_game_and_the_review_gives_no_invented_figure() -> None:
    table = open_room(1, "painted", start=False)
    add_bot(table, "casual")
    start(table)
    rng = random.Random(23)
    while table.game.status == Game.Status.PLAYING:
        if table.game.snapshot["rules"]["current"] == 0:
            play_turn(table, rng)
        else:
            assert run_bots(table) >= 2
    game = table.game
    assert replay_game(game).problems == [] and verify_fairness(game).ok
    bot_player = game.snapshot["seats"][1]["player"]
    assert Move.objects.filter(game=game, player_id=bot_player, kind="score").count() == 23
    review = coach.review(game)
    assert review["exact"] is False and "no exact solver" in review["message"]
    assert all(seat["lost"] is None and seat["mistakes"] is None for seat in review["seats"])
    assert review["replayed"] is True


def test_painted_hints_come_from_the_one_turn_search_and_say_so() -> None:
    table = open_room(2, "painted")
    services.turn_roll(code=table.code, controller=table.current(), expected_version=table.version(), action_id="r")
    answer = hint(table)
    assert answer["exact"] is False and "no exact solver" in answer["note"]
    assert "one-turn search" in answer["options"][0]["text"]
    expected = [o["expected"] for o in answer["options"]]
    assert expected == sorted(expected, reverse=True) and len(expected) == 3
    state = state_from_dict(table.game.snapshot["rules"])
    assert answer["options"][0]["expected"] == round(bots.options(state, state.current)[0].expected, 1)
    keeps = [o for o in bots.options(state, state.current) if isinstance(o.action, bots.Roll) and o.action.held]
    text = coach._option(state, keeps[0])["text"]
    assert any(colour in text for colour in ("red", "yellow", "green", "blue", "purple"))


def test_painted_pass_and_play_with_bots_and_the_create_form() -> None:
    controller = services.new_controller()
    game = services.local_game_create(names=["Kid"], controller=controller, bots=1, level="beginner", ruleset="painted")
    assert game.ruleset == "painted" and [s["kind"] for s in game.snapshot["seats"]] == ["human", "bot"]
    from games.web.forms import CreateRoomForm

    form = CreateRoomForm(data={"ruleset": "painted", "mode": "local", "players": 1, "bots": 1, "level": "optimal"})
    assert form.is_valid(), form.errors
    assert form.cleaned_data["ruleset"] == "painted"


def test_triples_hint_and_review_say_their_figures_are_estimates() -> None:
    """Triple's values come from one column's table, which misjudges Triple's own Yahtzee bonus
    (docs/bots.md): the coach gives its hints and review as estimates, not exact figures."""
    bots.tables.table("official", build=True)
    table = open_room(1, ruleset="triple")
    services.turn_roll(
        code=table.code, controller=table.controllers[0], expected_version=table.version(), action_id="r"
    )
    answer = coach.hint_for(code=table.code, controller=table.controllers[0], version=table.version())
    assert answer["ready"] and answer["exact"] is False and "Triple Yahtzee has no exact solver" in answer["note"]
    game = play_to_end(table, random.Random(4), rerolls=0)
    review = coach.review(game)
    assert review["exact"] is False and "estimates" in review["note"]
    assert review["seats"][0]["choices"] > 0  # the figures are still given, as estimates

"""Each rule set's odd cases played through the services on loaded dice, then read back as every page
reads a finished game: the table's state at each step, the replay's steps and cards, the fairness
check and the coach.

docs/rules.md fixes the rules; these games put its cases (forced jokers, scratched boxes, Yahtzee
bonuses, the upper bonus at exactly its goal, Triple's columns, Painted's colours) in real rooms,
and check that what the table showed is what the replay shows, step by step.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from games import services
from games.domain import errors
from games.domain.rules import RULESETS, RuleViolation
from games.services.replay import replay_game, replay_steps, verify_fairness
from games.store.models import Game
from games.store.selectors import game_state
from tests.factories import Table, action_id, loaded_dice, open_room

pytestmark = pytest.mark.django_db

# Painted outcomes: value v in colour c is face 6 * c + v (c: 0 red, 1 yellow, 2 green, 3 blue, 4 purple).
RED, YELLOW, GREEN, BLUE, PURPLE = range(5)


def painted(*dice: tuple[int, int]) -> list[int]:
    return [6 * colour + value for value, colour in dice]


class Played:
    """A game played turn by turn on loaded dice, keeping what the table showed after each action."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, ruleset: str, rolls: list[list[int]], players: int = 1):
        loaded_dice(monkeypatch, rolls)
        self.table: Table = open_room(players, ruleset)
        self.shown_rolls: list[dict[str, Any]] = []  # the table's turn after each roll
        self.shown_cards: list[dict[str, Any]] = []  # the scorer's card after each score

    def state(self) -> dict[str, Any]:
        return game_state(self.table.game)

    def roll(self) -> dict[str, Any]:
        who = self.table.current()
        services.turn_roll(
            code=self.table.code, controller=who, expected_version=self.table.version(), action_id=action_id()
        )
        state = self.state()
        self.shown_rolls.append(state["turn"])
        return {(o["box"], o["column"]): o for o in state["options"]}

    def score(self, box: str, column: int = 0) -> dict[str, Any]:
        seat = self.state()["turn"]["seat"]
        entry = services.turn_score(
            code=self.table.code,
            controller=self.table.current(),
            box=box,
            column=column,
            expected_version=self.table.version(),
            action_id=action_id(),
        )
        card = self.state()["cards"][seat]
        self.shown_cards.append(card)
        assert card["columns"][column]["boxes"][box] == entry.points
        return card

    def refused(self, box: str, column: int = 0) -> None:
        """Scoring ``box`` now is refused by the joker rule, and nothing is stored."""
        before = self.table.game
        with pytest.raises(RuleViolation) as caught:
            services.turn_score(
                code=self.table.code,
                controller=self.table.current(),
                box=box,
                column=column,
                expected_version=before.version,
                action_id=action_id(),
            )
        assert caught.value.code == errors.JOKER_FORBIDS
        after = self.table.game
        assert (after.version, after.snapshot) == (before.version, before.snapshot)

    def turn(self, box: str, column: int = 0) -> dict[str, Any]:
        self.roll()
        return self.score(box, column)

    def replayed(self) -> list[dict[str, Any]]:
        """The replay's steps, checked against what the table showed at each roll and score."""
        game = self.table.game
        assert replay_game(game).problems == []
        assert verify_fairness(game).mismatches == []
        steps = replay_steps(game)
        rolls = [s for s in steps if s["kind"] == "roll"]
        scores = [s for s in steps if s["kind"] == "score"]
        assert len(rolls) == len(self.shown_rolls) and len(scores) == len(self.shown_cards)
        for step, turn in zip(rolls, self.shown_rolls, strict=True):
            assert (step["dice"], step["held"], step["roll"]) == (turn["dice"], turn["held"], turn["rolls_used"])
            assert step["colours"] == (turn["colours"] or [])
        for step, card in zip(scores, self.shown_cards, strict=True):
            assert step["card"] == card
        return steps


def score_texts(steps: list[dict[str, Any]]) -> list[str]:
    return [s["text"].replace("\u2068", "").replace("\u2069", "") for s in steps if s["kind"] == "score"]


def end_text(steps: list[dict[str, Any]]) -> str:
    assert steps[-1]["kind"] == "end"
    return str(steps[-1]["text"]).replace("\u2068", "").replace("\u2069", "")


# --- official -----------------------------------------------------------------------------------------


def test_official_a_whole_game_of_forced_jokers_bonuses_and_a_zero_in_an_upper_box(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fours = [4] * 5
    rolls = [
        fours,  # Yahtzee 50
        fours,  # Fours open: the only legal box, 20 + 100
        fours,  # Fours filled: a lower joker, Large Straight 40 + 100
        [6] * 5,  # Sixes 30 + 100
        [5] * 5,  # Fives 25 + 100
        [3, 3, 3, 1, 2],
        [2, 2, 2, 1, 3],
        [1, 2, 3, 4, 6],
        [2, 2, 3, 3, 3],
        [1, 1, 1, 1, 2],
        [6, 6, 6, 5, 5],
        [1, 2, 3, 4, 6],
        fours,  # every lower box filled: a 0 in the open Ones, + 100
    ]
    game = Played(monkeypatch, "official", rolls)
    game.turn("yahtzee")
    options = game.roll()
    assert {box for (box, _), o in options.items() if o["legal"]} == {"fours"}
    assert (options[("fours", 0)]["points"], options[("fours", 0)]["bonus"]) == (20, 100)
    game.refused("chance")
    assert game.score("fours")["columns"][0]["yahtzee_bonus"] == 100
    options = game.roll()
    assert options[("large_straight", 0)] == {
        **options[("large_straight", 0)],
        "legal": True,
        "points": 40,
        "joker": True,
    }
    game.score("large_straight")
    game.turn("sixes")
    game.turn("fives")
    game.turn("threes")
    card = game.turn("twos")
    assert (card["columns"][0]["upper"], card["columns"][0]["upper_bonus"]) == (90, 35)
    for box in ("small_straight", "full_house", "four_of_a_kind", "three_of_a_kind", "chance"):
        game.turn(box)
    options = game.roll()
    assert list(options) == [("ones", 0)]
    assert (options[("ones", 0)]["legal"], options[("ones", 0)]["points"], options[("ones", 0)]["bonus"]) == (
        True,
        0,
        100,
    )
    card = game.score("ones")
    column = card["columns"][0]
    assert column["boxes"] == {
        "yahtzee": 50,
        "fours": 20,
        "large_straight": 40,
        "sixes": 30,
        "fives": 25,
        "threes": 9,
        "twos": 6,
        "small_straight": 30,
        "full_house": 25,
        "four_of_a_kind": 6,
        "three_of_a_kind": 28,
        "chance": 16,
        "ones": 0,
    }
    assert (column["upper"], column["upper_bonus"], column["lower"], column["yahtzee_bonus"]) == (90, 35, 195, 500)
    assert card["total"] == 820
    assert game.table.game.status == Game.Status.FINISHED

    steps = game.replayed()
    texts = score_texts(steps)
    assert texts[:3] == [
        "P0 scores 50 in Yahtzee.",
        "P0 scores 20 in Fours and a Yahtzee bonus of 100.",
        "P0 scores 40 in Large Straight and a Yahtzee bonus of 100.",
    ]
    assert texts[-1] == "P0 scores 0 in Ones and a Yahtzee bonus of 100."
    assert end_text(steps) == "P0 wins with 820 points."


def test_official_a_scratched_yahtzee_box_still_forces_the_joker_but_earns_no_bonus(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = Played(monkeypatch, "official", [[1, 2, 3, 4, 6], [4] * 5, [4] * 5])
    assert game.turn("yahtzee")["columns"][0]["boxes"] == {"yahtzee": 0}
    options = game.roll()
    assert {box for (box, _), o in options.items() if o["legal"]} == {"fours"}
    game.refused("full_house")
    game.score("fours")
    options = game.roll()
    assert (options[("full_house", 0)]["points"], options[("large_straight", 0)]["points"]) == (25, 40)
    assert all(o["bonus"] == 0 for o in options.values())
    card = game.score("full_house")
    assert card["columns"][0]["yahtzee_bonus"] == 0 and card["total"] == 45
    assert score_texts(game.replayed()) == [
        "P0 scores 0 in Yahtzee.",
        "P0 scores 20 in Fours.",
        "P0 scores 25 in Full House.",
    ]


# --- free_joker, yeti, yatzy ------------------------------------------------------------------------------


def test_free_joker_takes_an_extra_yahtzee_anywhere_paying_straights_only_once_its_upper_box_is_filled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = Played(monkeypatch, "free_joker", [[4] * 5] * 4)
    game.turn("yahtzee")
    options = game.roll()
    assert all(o["legal"] and o["bonus"] == 100 for o in options.values())
    assert [options[(box, 0)]["points"] for box in ("full_house", "small_straight", "fours", "chance")] == [
        0,
        0,
        20,
        20,
    ]
    game.score("full_house")
    game.turn("fours")
    options = game.roll()
    assert (options[("small_straight", 0)]["points"], options[("small_straight", 0)]["joker"]) == (30, True)
    card = game.score("small_straight")
    assert card["columns"][0]["boxes"] == {"yahtzee": 50, "full_house": 0, "fours": 20, "small_straight": 30}
    assert card["columns"][0]["yahtzee_bonus"] == 300 and card["total"] == 400
    assert score_texts(game.replayed())[1:] == [
        "P0 scores 0 in Full House and a Yahtzee bonus of 100.",
        "P0 scores 20 in Fours and a Yahtzee bonus of 100.",
        "P0 scores 30 in Small Straight and a Yahtzee bonus of 100.",
    ]


def test_yeti_counts_five_of_a_kind_as_a_full_house_and_pays_no_bonus(monkeypatch: pytest.MonkeyPatch) -> None:
    game = Played(monkeypatch, "yeti", [[6] * 5] * 3)
    options = game.roll()
    assert options[("full_house", 0)]["points"] == 25  # before the Yahtzee box is filled too
    game.score("yahtzee")
    options = game.roll()
    assert all(o["legal"] and o["bonus"] == 0 and not o["joker"] for o in options.values())
    assert [options[(box, 0)]["points"] for box in ("full_house", "chance", "large_straight")] == [25, 30, 0]
    game.score("full_house")
    card = game.turn("chance")
    assert card["columns"][0]["yahtzee_bonus"] == 0 and card["total"] == 105
    assert "yahtzee_bonus" not in [
        row.get("key") for s in game.state()["ruleset"]["scorecard"]["sections"] for row in s["rows"]
    ]
    assert all("bonus" not in text for text in score_texts(game.replayed()))


def test_yatzy_a_whole_game_with_the_upper_bonus_at_exactly_63_and_no_joker(monkeypatch: pytest.MonkeyPatch) -> None:
    turns = [
        ([1, 1, 1, 2, 3], "ones", 3),
        ([2, 2, 2, 1, 3], "twos", 6),
        ([3, 3, 3, 1, 2], "threes", 9),
        ([4, 4, 4, 1, 2], "fours", 12),
        ([5, 5, 5, 1, 2], "fives", 15),
        ([6, 6, 6, 1, 2], "sixes", 18),  # 63: the bonus of 50
        ([6, 6, 1, 2, 3], "one_pair", 12),
        ([3, 3, 5, 5, 5], "two_pairs", 16),
        ([5] * 5, "three_of_a_kind", 15),  # only three of the five count
        ([2, 2, 2, 2, 6], "four_of_a_kind", 8),
        ([1, 2, 3, 4, 5], "small_straight", 15),
        ([1, 2, 3, 4, 5], "large_straight", 0),
        ([5] * 5, "full_house", 0),  # five of a kind is not a Full House
        ([1, 2, 3, 4, 5], "chance", 15),
        ([6] * 5, "yahtzee", 50),
    ]
    game = Played(monkeypatch, "yatzy", [faces for faces, _, _ in turns])
    for faces, box, points in turns:
        options = game.roll()
        assert all(o["legal"] and o["bonus"] == 0 and not o["joker"] for o in options.values())
        assert options[(box, 0)]["points"] == points, (faces, box)
        card = game.score(box)
    column = card["columns"][0]
    assert (column["upper"], column["upper_bonus"], column["lower"], column["yahtzee_bonus"]) == (63, 50, 131, 0)
    assert card["total"] == 244
    steps = game.replayed()
    assert "P0 scores 50 in Yatzy." in score_texts(steps)
    assert end_text(steps) == "P0 wins with 244 points."


# --- triple ----------------------------------------------------------------------------------------------


def test_triple_open_yahtzee_boxes_then_any_columns_upper_box_then_lower_jokers_with_each_columns_bonus(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fours = [4] * 5
    rolls = [fours, fours, fours, fours, fours, fours, fours, [6, 6, 6, 6, 1], [5, 5, 5, 5, 1]]
    game = Played(monkeypatch, "triple", rolls)
    game.turn("yahtzee", 0)
    options = game.roll()
    assert {key for key, o in options.items() if o["legal"]} == {("yahtzee", 1), ("yahtzee", 2)}
    game.refused("fours", 0)
    assert (options[("yahtzee", 2)]["points"], options[("yahtzee", 2)]["bonus"]) == (150, 300)
    game.score("yahtzee", 2)
    options = game.roll()
    assert (options[("yahtzee", 1)]["points"], options[("yahtzee", 1)]["bonus"]) == (100, 200)
    game.score("yahtzee", 1)
    # Every Yahtzee box holds points: the Fours of any column, then a lower joker, each + 300.
    options = game.roll()
    assert {key for key, o in options.items() if o["legal"]} == {("fours", 0), ("fours", 1), ("fours", 2)}
    game.refused("chance", 2)
    game.score("fours", 1)
    game.turn("fours", 0)
    game.turn("fours", 2)
    options = game.roll()
    assert options[("large_straight", 2)] == {
        **options[("large_straight", 2)],
        "legal": True,
        "points": 120,
        "bonus": 300,
        "joker": True,
    }
    game.score("large_straight", 2)
    game.turn("sixes", 1)
    card = game.turn("fives", 1)
    first, second, third = card["columns"]
    assert first["boxes"] == {"yahtzee": 50, "fours": 20} and first["yahtzee_bonus"] == 300
    # Column ×2: 40 + 48 + 40 = 128, plain 64: past 126, its bonus of 70.
    assert second["boxes"] == {"yahtzee": 100, "fours": 40, "sixes": 48, "fives": 40}
    assert (second["upper"], second["upper_bonus"], second["yahtzee_bonus"]) == (128, 70, 200 + 300)
    assert third["boxes"] == {"yahtzee": 150, "fours": 60, "large_straight": 120}
    assert (third["upper_bonus"], third["yahtzee_bonus"]) == (0, 300 + 300 + 300)
    assert card["total"] == sum(c["total"] for c in card["columns"]) == 370 + 798 + 1230
    assert score_texts(game.replayed())[:4] == [
        "P0 scores 50 in Yahtzee in column ×1.",
        "P0 scores 150 in Yahtzee in column ×3 and a Yahtzee bonus of 300.",
        "P0 scores 100 in Yahtzee in column ×2 and a Yahtzee bonus of 200.",
        "P0 scores 40 in Fours in column ×2 and a Yahtzee bonus of 300.",
    ]


# --- painted ---------------------------------------------------------------------------------------------


def test_painted_a_purple_five_of_a_kind_goes_where_the_joker_says_and_the_colours_add_up_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    purple_fives = painted(*[(5, PURPLE)] * 5)
    rolls = [
        purple_fives,
        purple_fives,  # Fives open: the only legal box
        purple_fives,  # Fives filled: a lower box as a joker, or a colour box by its colours
        purple_fives,
        painted((3, RED), (3, RED), (3, BLUE), (5, BLUE), (6, GREEN)),
        painted((1, YELLOW), (2, YELLOW), (3, YELLOW), (4, YELLOW), (6, YELLOW)),  # a Flush is no Yahtzee
    ]
    game = Played(monkeypatch, "painted", rolls)
    game.turn("yahtzee")
    options = game.roll()
    assert {box for (box, _), o in options.items() if o["legal"]} == {"fives"}
    game.refused("flush")
    game.score("fives")
    options = game.roll()
    legal = {box for (box, _), o in options.items() if o["legal"]}
    assert legal == {
        *("three_of_a_kind", "four_of_a_kind", "full_house", "small_straight", "large_straight", "chance"),
        *("red", "yellow", "green", "blue", "purple", "four_colour", "painted_house", "rainbow", "flush", "palette"),
    }
    assert [options[(box, 0)]["points"] for box in ("flush", "purple", "red", "rainbow", "full_house")] == [
        50,
        25,
        0,
        0,
        25,
    ]
    assert not options[("flush", 0)]["joker"] and options[("full_house", 0)]["joker"]
    game.score("flush")
    game.turn("purple")
    options = game.roll()
    assert [options[(box, 0)]["points"] for box in ("red", "blue", "green", "painted_house", "three_of_a_kind")] == [
        6,
        8,
        6,
        0,
        20,
    ]
    game.score("red")
    options = game.roll()
    assert all(o["legal"] and o["bonus"] == 0 for o in options.values())
    assert (options[("yellow", 0)]["points"], options[("full_house", 0)]["points"]) == (16, 0)
    card = game.score("yellow")
    column = card["columns"][0]
    assert column["boxes"] == {"yahtzee": 50, "fives": 25, "flush": 50, "purple": 25, "red": 6, "yellow": 16}
    assert (column["upper"], column["lower"], column["colour"], column["yahtzee_bonus"]) == (25, 50, 97, 300)
    assert card["total"] == 472
    steps = game.replayed()
    assert [s["colours"] for s in steps if s["kind"] == "roll"][4] == ["red", "red", "blue", "blue", "green"]
    assert score_texts(steps)[2:4] == [
        "P0 scores 50 in Flush and a Yahtzee bonus of 100.",
        "P0 scores 25 in Purple and a Yahtzee bonus of 100.",
    ]


# --- whole games on loaded dice, every rule set --------------------------------------------------------


def loaded_rolls(ruleset: str, rng: random.Random, count: int = 400) -> list[list[int]]:
    """Rolls whose dice mostly show one value (and in Painted one colour): many a five of a kind."""
    colours = RULESETS[ruleset].colours or 1
    rolls = []
    for _ in range(count):
        value, colour = rng.randint(1, 6), rng.randrange(colours)
        rolls.append(
            [
                6 * (colour if rng.random() < 0.5 else rng.randrange(colours))
                + (value if rng.random() < 0.8 else rng.randint(1, 6))
                for _ in range(5)
            ]
        )
    return rolls


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_a_whole_game_on_loaded_dice_replays_as_the_table_showed_it_and_passes_every_check(
    ruleset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(f"loaded-{ruleset}")
    game = Played(monkeypatch, ruleset, loaded_rolls(ruleset, rng), players=2)
    bonuses = jokers = 0
    while game.table.game.status == Game.Status.PLAYING:
        options = game.roll()
        for _ in range(rng.randint(0, 2)):
            held = sorted(i for i in range(5) if rng.random() < 0.6)[:4]
            who = game.table.current()
            services.turn_roll(
                code=game.table.code,
                controller=who,
                held=held,
                expected_version=game.table.version(),
                action_id=action_id(),
            )
            game.shown_rolls.append(game.state()["turn"])
            options = {(o["box"], o["column"]): o for o in game.state()["options"]}
        legal = [o for o in options.values() if o["legal"]]
        # The box that scores most, as a player chasing bonuses would: the jokers come round.
        choice = max(legal, key=lambda o: (o["points"] + o["bonus"], rng.random()))
        bonuses += choice["bonus"] > 0
        jokers += choice["joker"]
        game.score(choice["box"], choice["column"])
    steps = game.replayed()
    final = game.state()
    assert verify_fairness(game.table.game).ok
    last = {s["seat"]: s["card"] for s in steps if s["kind"] == "score"}
    assert [last[seat] for seat in sorted(last)] == final["cards"]
    best = max(card["total"] for card in final["cards"])
    assert f"with {best} points." in end_text(steps)
    if RULESETS[ruleset].yahtzee_bonus:
        assert bonuses and jokers, "the dice never reached a joker"

"""The coach's review lists each costly choice: round, dice, what was chosen, what perfect play chose, points lost."""

from __future__ import annotations

import random

import pytest
from django.test import Client

import bots
from games import services
from games.services import coach
from games.store.models import Game
from tests.factories import Table, action_id, open_room, play_to_end

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module", autouse=True)
def official_table() -> None:
    bots.tables.table("official", build=True)


def score_zero_in_yahtzee_first(table: Table) -> list[int]:
    """Seat 0's first turn: one roll, then a 0 in Yahtzee (unless the dice are one): a costly choice."""
    who = table.controllers[0]
    services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())
    dice = table.game.snapshot["rules"]["turn"]["dice"]
    box = "chance" if len(set(dice)) == 1 else "yahtzee"
    services.turn_score(
        code=table.code, controller=who, box=box, column=0, expected_version=table.version(), action_id=action_id()
    )
    return list(dice)


def test_each_costly_choice_is_listed_with_round_dice_choice_best_and_loss() -> None:
    table = open_room(1)
    dice = score_zero_in_yahtzee_first(table)
    game = play_to_end(table, random.Random(5))
    review = coach.review(game)
    (seat,) = review["seats"]
    costly = seat["costly"]
    assert seat["mistakes"] == len(costly) > 0 and seat["choices"] >= 13
    first = costly[0]
    assert first["round"] == 1 and first["dice"] == dice and first["kind"] == "score" and first["roll"] == 1
    if len(set(dice)) > 1:
        assert first["chosen"] == "Score 0 in Yahtzee"
    assert first["best"] != first["chosen"] and first["best"].startswith(("Keep", "Reroll", "Score"))
    for choice in costly:
        assert choice["lost"] >= coach.COSTLY  # shown rounded to 0.1: a loss of 0.53 reads 0.5
        assert 1 <= choice["round"] <= 13 and len(choice["dice"]) == 5 and 1 <= choice["roll"] <= 3
    assert [c["move"] for c in costly] == sorted(c["move"] for c in costly)
    assert sum(c["lost"] for c in costly) <= seat["lost"] + 0.1 * len(costly)
    assert review["replayed"] is True


def test_the_review_endpoint_sends_the_costly_choices() -> None:
    table = open_room(1)
    score_zero_in_yahtzee_first(table)
    play_to_end(table, random.Random(8))
    data = Client().get(f"/r/{table.code}/review.json").json()
    assert data["seats"][0]["costly"][0]["round"] == 1
    assert set(data["seats"][0]["costly"][0]) == {"move", "round", "roll", "dice", "kind", "chosen", "best", "lost"}


def test_a_game_in_progress_gets_no_review_and_changes_nothing() -> None:
    table = open_room(1)
    before = table.game.version
    response = Client().get(f"/r/{table.code}/review.json")
    assert response.status_code == 409 and response.json()["error"] == services.NOT_OVER
    assert Game.objects.get(code=table.code).version == before


def test_the_review_works_out_each_choices_options_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The options of a choice are most of a review's cost (an eight-player Triple game has
    hundreds of choices, and the replay page waits for them): the best choice and the points
    lost are read from one working-out of them, not two."""
    from bots import strategy

    game = play_to_end(open_room(2), random.Random(6))
    original = strategy.options
    calls: list[int] = []

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(strategy, "options", counted)
    monkeypatch.setattr(bots, "options", counted)
    found, replayed = coach.verdicts(game)
    assert replayed and found
    assert len(calls) == len(found), f"{len(calls)} workings-out for {len(found)} choices"

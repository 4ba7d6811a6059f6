"""On PostgreSQL: a finished game is rated exactly once, however many processes try at the same moment."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from django.test import Client

import bots
from accounts import receivers
from accounts import services as account_services
from accounts.models import CountedGame, GameRecord, Standing
from games.services.signals import game_finished
from tests.accounts.helpers import controller_of, room_for, sign_up
from tests.factories import play_to_end, race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module", autouse=True)
def official_table() -> None:
    bots.tables.table("official", build=True)


@pytest.fixture(autouse=True)
def no_finish_hook() -> Iterator[None]:
    """The games end uncounted here, so that the test's threads are the ones to race for them."""
    game_finished.disconnect(dispatch_uid="accounts-count")
    yield
    game_finished.connect(receivers.count_finished_game, dispatch_uid="accounts-count")


def accounts(*names: str) -> list[str]:
    tokens = []
    for name in names:
        client = Client()
        sign_up(client, name)
        tokens.append(controller_of(client))
    return tokens


def test_concurrent_counts_of_one_game_rate_it_exactly_once() -> None:
    tokens = accounts("ada", "bob", "cyd")
    for round_ in range(3):
        game = play_to_end(room_for(tokens), random.Random(round_), rerolls=0)
        outcomes = race(*[lambda pk=game.pk: account_services.game_count(game_id=pk)] * 4)
        assert sorted(o.value for o in outcomes) == [False, False, False, True]
        assert CountedGame.objects.filter(game=game, rated=True).count() == 1
        assert GameRecord.objects.filter(game=game).count() == 3
    for name in ("ada", "bob", "cyd"):
        standing = Standing.objects.get(user__username=name, ruleset="official")
        assert standing.games == standing.rated == 3


def test_two_games_of_the_same_people_ending_together_are_both_counted() -> None:
    tokens = accounts("dee", "eli")
    first = play_to_end(room_for(tokens), random.Random(7), rerolls=0)
    second = play_to_end(room_for(tokens[::-1]), random.Random(8), rerolls=0)
    outcomes = race(
        lambda: account_services.game_count(game_id=first.pk),
        lambda: account_services.game_count(game_id=second.pk),
    )
    assert [o.value for o in outcomes] == [True, True]
    assert Standing.objects.get(user__username="dee", ruleset="official").rated == 2

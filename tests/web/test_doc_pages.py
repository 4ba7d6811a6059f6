"""The rules and the fair-dice method are pages of the site, rendered from docs/, linked from every page."""

from __future__ import annotations

import random

import pytest
from django.test import Client

from games import services
from games.store.models import Game
from tests.factories import open_room, play_to_end

pytestmark = pytest.mark.django_db


def test_the_rules_page_states_every_rule_set_and_stops_before_the_developer_part() -> None:
    page = Client().get("/rules").content.decode()
    for heading in ("official", "free_joker", "yeti", "triple", "yatzy", "painted"):
        assert f"<code>{heading}</code>" in page
    assert "Worked examples" in page
    assert "The rules engine" not in page
    assert 'href="/fairness"' in page  # the doc's link to fairness.md points at the page


def test_the_fair_dice_page_gives_the_method_and_the_checking_script() -> None:
    page = Client().get("/fairness").content.decode()
    assert "HMAC-SHA256" in page and '<pre tabindex="0">' in page


def test_every_page_links_the_rules_and_the_fair_dice_method() -> None:
    page = Client().get("/").content.decode()
    assert 'href="/rules"' in page and 'href="/fairness"' in page


def test_a_finished_game_s_fairness_page_links_the_method_and_lists_each_seed_once_with_its_seats() -> None:
    table = open_room(2)
    game = play_to_end(table, random.Random(3))
    page = Client().get(f"/r/{game.code}/fairness").content.decode()
    assert 'href="/fairness"' in page
    first, second = game.client_seed.split(",")
    assert page.count(f"<code>{first}</code> from") == 1 and page.count(f"<code>{second}</code> from") == 1


def test_pass_and_play_lists_its_one_seed_once_and_a_computer_adds_no_trailing_comma() -> None:
    client = Client()
    response = client.post(
        "/rooms/new",
        {"mode": "local", "ruleset": "official", "players": "3", "bots": "1", "name": "Ann", "client_seed": "a" * 32},
    )
    code = response["Location"].rstrip("/").rsplit("/", 1)[-1]
    game = Game.objects.get(code=code)
    if game.status == Game.Status.LOBBY:
        host = client.session["controller"]
        services.game_start(code=code, controller=host, expected_version=game.version, action_id="s")
        game.refresh_from_db()
    page = client.get(f"/r/{code}/fairness").content.decode()
    seeds = game.client_seed.split(",")
    assert len(set(s for s in seeds if s)) == 1
    assert page.count(f"<code>{seeds[0]}</code> from") == 1
    assert "no seed (a computer" in page
    assert ", :" not in page and ",</code> from" not in page

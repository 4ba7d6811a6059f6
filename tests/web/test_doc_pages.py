"""The rules and the fair-dice method are pages of the site, rendered from docs/, linked from every page."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from django.test import Client

from games import services
from games.domain.rules import RULESETS
from games.store.models import Game
from tests.factories import open_room, play_to_end

pytestmark = pytest.mark.django_db


# What the engine's reference (docs/rules.md) names and a player's page must not.
ENGINE_WORDS = (
    "tests/",
    "test_worked_examples",
    "apply_",
    "ScoreOption",
    "RuleViolation",
    "games/domain/rules",
    "<code>",
)


def test_the_rules_page_explains_every_rule_set_to_players_in_their_words() -> None:
    page = Client().get("/rules").content.decode()
    for ruleset in RULESETS.values():
        # A section per rule set, under the name the home page gives it, at an anchor of its name.
        assert re.search(rf'<h2 id="{ruleset.name}">{re.escape(ruleset.label)}</h2>', page), ruleset.name
    sections = dict(re.findall(r'<h2 id="([^"]+)">.*?</h2>(.*?)(?=<h2|</article>)', page, re.S))
    for ruleset in RULESETS:
        assert "xample" in sections[ruleset], f"{ruleset} has no example"
    for word in ENGINE_WORDS:
        assert word not in page, word
    assert 'href="/fairness"' in page  # the text's link to fairness.md points at the page


def test_the_engines_reference_stays_in_docs_and_names_the_players_page() -> None:
    reference = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text()
    assert "## The rules engine" in reference and "apply_reinstate" in reference
    assert "templates/games/rules.md" in reference


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

"""The rules and the fair-dice method are pages of the site, rendered from docs/, linked from every page."""

from __future__ import annotations

import html
import random
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

import bots
from games import services
from games.domain.rules import RULESETS
from games.store.models import Game
from games.store.selectors import game_state
from tests.factories import open_room, play_to_end
from tests.services.test_bots import left_seat_outscores_the_player_who_stayed

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


LANGUAGES = ("en", "da", "de", "es", "fr", "sv")


def rules_text(language: str) -> str:
    """The /rules page's text in ``language``, tags gone and white space made single."""
    body = Client(HTTP_ACCEPT_LANGUAGE=language).get("/rules").content.decode()
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


# How each language's /rules says that a seat a computer took over ranks after those who stayed.
RANKS_AFTER_THOSE_WHO_STAYED = {
    "en": "it ranks after every player who stayed, whatever its total: it wins only if nobody stayed",
    "da": "placeres efter alle spillere, der blev, uanset summen: den vinder kun, hvis ingen blev",
    "de": "hinter allen Personen gewertet, die geblieben sind, egal mit welcher Summe: Er gewinnt nur",
    "es": "queda por detrás de todos los jugadores que se quedaron, sea cual sea su total: solo gana",
    "fr": "classée après tous les joueurs restés, quel que soit son total : elle ne gagne que",
    "sv": "placeras efter alla spelare som stannade, oavsett summa: den vinner bara om ingen stannade",
}


def test_the_rules_page_says_a_seat_a_computer_took_over_ranks_after_the_players_who_stayed() -> None:
    """A player leaves, the host hands the seat to a computer, which ends with the best total: the
    player who stayed wins (Room.ranks), as the FAQ says in every language."""
    bots.tables.table("official", build=True)
    game = left_seat_outscores_the_player_who_stayed()
    assert game_state(game)["winners"] == [0]
    for language in LANGUAGES:
        assert RANKS_AFTER_THOSE_WHO_STAYED[language] in rules_text(language), language


# How each language's /rules says a player keeps at most four dice, as the table does.
AT_MOST_FOUR_DICE = {
    "en": "you can hold at most four dice, as a roll needs at least one die to throw",
    "da": "du kan højst holde fire terninger, da et slag skal have mindst én terning at slå med",
    "de": "du kannst höchstens vier Würfel halten, denn ein Wurf braucht mindestens einen Würfel",
    "es": "puedes guardar como máximo cuatro, porque una tirada necesita al menos un dado",
    "fr": "vous pouvez en garder au plus quatre, car un lancer a besoin d'au moins un dé",
    "sv": "du kan spara högst fyra tärningar, eftersom ett slag behöver minst en tärning att slå",
}


def test_the_rules_page_says_a_player_holds_at_most_four_dice_as_the_table_does() -> None:
    room_script = (settings.BASE_DIR / "static" / "js" / "room.js").read_text(encoding="utf-8")
    assert "set.size === 5" in room_script and "Keep at most four dice" in room_script  # the table's refusal
    for language in LANGUAGES:
        page = rules_text(language)
        assert AT_MOST_FOUR_DICE[language] in page, language
        assert "all five dice held" not in page


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


def test_the_home_page_s_rule_set_choice_links_how_each_rule_set_plays() -> None:
    page = Client().get("/").content.decode()
    choice = page[page.index('<fieldset class="rulesets-pick">') :]
    choice = choice[: choice.index("</fieldset>")]
    assert re.search(r'<a href="/rules"[^>]*>How each rule set plays, with examples</a>', choice), choice


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_a_lobby_links_its_rule_set_s_own_rules(ruleset: str) -> None:
    table = open_room(2, ruleset, start=False)
    page = Client().get(f"/r/{table.code}/").content.decode()
    assert f'<a href="/rules#{ruleset}"' in page  # the page without script's lobby (room.js draws its own)


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

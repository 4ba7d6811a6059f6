"""Review (ruletext): what the site tells players about the rules, in every language, against
what the engine and the room do."""

from __future__ import annotations

import html
import re

import pytest
from django.conf import settings
from django.test import Client

import bots
from games import services
from games.domain.rules import FREE_JOKER, OFFICIAL, PAINTED, TRIPLE, Box, RuleSet, score_options
from games.domain.scorecard import box_help
from games.scheduling import botplay
from games.store.models import Game
from games.store.selectors import game_state
from tests.factories import open_room, score_first_legal

pytestmark = pytest.mark.django_db

LANGUAGES = ("en", "da", "de", "es", "fr", "sv")


def rules_page(language: str) -> str:
    """The /rules page's text in ``language``, tags gone and white space made single."""
    body = Client(HTTP_ACCEPT_LANGUAGE=language).get("/rules").content.decode()
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


@pytest.fixture(scope="module")
def official_table() -> None:
    bots.tables.table("official", build=True)


# The FAQ's promise about a seat the host hands to a computer, as each translation says it.
CAN_STILL_WIN = {
    "en": "and the seat can still win",
    "da": "og pladsen kan stadig vinde",
    "de": "und der Platz kann trotzdem gewinnen",
    "es": "y el asiento aún puede ganar",
    "fr": "et la place peut encore gagner",
    "sv": "och platsen kan fortfarande vinna",
}


def test_the_rules_page_does_not_promise_that_a_seat_handed_to_a_computer_can_still_win(
    official_table: None,
) -> None:
    """The /rules FAQ ("What if a computer takes over a seat?") says the host may hand an absent
    player's seat to a computer, whose missed turns are played at the end, "and the seat can still
    win". The site ranks such a seat after every player who stayed (Room.ranks, the records, the
    game-over panel, the replay's "it ranks after the players who stayed"): here it ends with more
    points than the player who stayed, and loses. The page promises what the table never gives."""
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
    assert totals[1] > totals[0], totals  # the computer's seat has the best total ...
    assert game_state(game)["winners"] == [0]  # ... and still does not win
    promising = [language for language in LANGUAGES if CAN_STILL_WIN[language] in rules_page(language)]
    assert promising == [], f"/rules says a seat a computer took over can still win in {promising}"


# The rules page's advice for a player who would roll with all five dice held.
HOLD_ALL_FIVE = {
    "en": "hold them all and score instead",
    "da": "hold dem alle, og skriv i stedet",
    "de": "halte sie alle und trage stattdessen ein",
    "es": "guárdalos todos y anota",
    "fr": "gardez-les tous et marquez plutôt",
    "sv": "spara alla och skriv i stället",
}


def test_the_rules_page_does_not_tell_players_to_hold_all_five_dice_which_the_table_refuses() -> None:
    """ "A turn" ends: "you cannot roll with all five dice held (hold them all and score instead)".
    The table never lets a player hold a fifth die: static/js/room.js (toggleHold) refuses it with
    "Keep at most four dice: a roll needs at least one die to throw." A player who follows the
    page's advice is told the opposite by the table, in every language."""
    room_script = (settings.BASE_DIR / "static" / "js" / "room.js").read_text(encoding="utf-8")
    assert "set.size === 5" in room_script and "Keep at most four dice" in room_script  # the table's refusal
    advising = [language for language in LANGUAGES if HOLD_ALL_FIVE[language] in rules_page(language)]
    assert advising == [], f"/rules tells players to hold all five dice in {advising}"


def _scratched_yahtzee_card(columns: int) -> list[dict[Box, int]]:
    """A card whose (first) Yahtzee box was scratched and whose Fours are filled."""
    card: list[dict[Box, int]] = [{} for _ in range(columns)]
    card[0][Box.YAHTZEE] = 0
    for column in card:
        column[Box.FOURS] = 12
    return card


@pytest.mark.parametrize("ruleset", [OFFICIAL, FREE_JOKER, PAINTED], ids=lambda r: r.name)
def test_the_yahtzee_boxs_help_says_a_later_yahtzee_earns_the_bonus_only_after_a_50(ruleset: RuleSet) -> None:
    """The Yahtzee box's help on the scorecard (games/domain/scorecard.box_help, and the same words
    in static/js/words.js boxHelp) reads "Five dice of one value: 50 points. Each later one earns a
    100-point bonus." With the box scratched (a 0 in it) a later five of a kind earns no bonus at
    all (docs/rules.md; the rules page: "If you had scratched it (a 0 there), there is no bonus"):
    the help promises 100 points the engine never gives."""
    colours = (0, 0, 1, 1, 2) if ruleset.colours else ()
    options = score_options(ruleset, _scratched_yahtzee_card(1), (4, 4, 4, 4, 4), colours)
    assert [o.bonus for o in options if o.legal] and all(o.bonus == 0 for o in options)  # no bonus at all
    help_text = box_help(ruleset, Box.YAHTZEE)
    later = help_text.split("50 points.", 1)[1]
    assert "50" in later, f"{ruleset.name}: the help promises a bonus without its condition: {help_text!r}"


def test_triples_yahtzee_help_says_the_bonus_needs_a_yahtzee_box_already_holding_points() -> None:
    """Triple's Yahtzee help: "A later one earns a bonus: 100 times the column when scored in a
    Yahtzee box, or 300 once all 3 Yahtzee boxes hold points." With the first column's Yahtzee box
    scratched, a later five of a kind must go in an open Yahtzee box, and earns no bonus there
    (docs/rules.md: only "while some Yahtzee box already holds a non-zero score")."""
    options = score_options(TRIPLE, _scratched_yahtzee_card(3), (4, 4, 4, 4, 4))
    legal = [o for o in options if o.legal]
    assert {(o.box, o.column) for o in legal} == {(Box.YAHTZEE, 1), (Box.YAHTZEE, 2)}
    assert all(o.bonus == 0 for o in legal)  # 100 and 150 in the box, no bonus
    help_text = box_help(TRIPLE, Box.YAHTZEE)
    before_the_column_bonus = help_text.split("times the column", 1)[0]
    assert re.search(r"hold", before_the_column_bonus), help_text

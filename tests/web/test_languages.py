"""The site in the reader's language: Accept-Language, the switcher (cookie, and the account's
language when signed in), the JavaScript catalog, and the server's own sentences (the replay,
the box names) in the active language."""

from __future__ import annotations

import html
import json
import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.test import Client, override_settings
from django.utils import translation
from django.utils.functional import Promise

from accounts import selectors as account_selectors
from accounts.models import Profile, Standing
from games.domain import errors
from games.domain.rules import RULESETS, Box
from games.services import words
from games.store.models import Game
from games.store.selectors import duration
from games.web import docpages
from games.web.i18n import catalog_version
from games.web.refusals import READS_AS, SITS_HERE, WORDS
from tests.accounts.helpers import PASSWORD, sign_up, user
from tests.factories import create_room, open_room, play_to_end

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def quick_accounts(settings) -> None:  # type: ignore[no-untyped-def]
    settings.ACCOUNT_RATE_LIMITS = False


def test_the_browser_language_picks_the_page_language() -> None:
    for header, words_ in [
        ("da-DK,da;q=0.9,en;q=0.5", ("Nyt spil", 'lang="da"')),
        ("de-DE,de;q=0.9", ("Neues Spiel", 'lang="de"')),
        ("sv", ("Nytt spel", 'lang="sv"')),
        ("fr-CA,fr;q=0.8", ("Nouvelle partie", 'lang="fr"')),
        ("es-MX,es;q=0.8", ("Nueva partida", 'lang="es"')),
        ("nl-NL,nl;q=0.9", ("New game", 'lang="en"')),  # a language the site does not speak
    ]:
        body = Client(HTTP_ACCEPT_LANGUAGE=header).get("/").content.decode()
        for word in words_:
            assert word in body, (header, word)


def test_the_switcher_sets_the_cookie_and_goes_back() -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    response = client.post("/i18n/language", {"language": "sv", "next": "/rules"})
    assert response.status_code == 302 and response["Location"] == "/rules"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "sv"
    assert "Nytt spel" in client.get("/").content.decode()
    # A language the site does not speak changes nothing.
    client.post("/i18n/language", {"language": "xx", "next": "/"})
    assert "Nytt spel" in client.get("/").content.decode()
    # And the switcher is on every page, the current language chosen.
    body = client.get("/").content.decode()
    assert 'action="/i18n/language"' in body and '<option value="sv" lang="sv" selected>' in body


@pytest.mark.parametrize("language", ["da", "sv", "de", "fr", "es"])
def test_the_switcher_names_english_in_english_whatever_the_page_language(language: str) -> None:
    """Every language in the header's switcher is written in itself (Dansk, Deutsch, Français ...),
    English too ("English", not "Englisch" or "Anglais"), so that a reader who landed on a page
    they cannot read finds their own."""
    body = Client(HTTP_ACCEPT_LANGUAGE=language).get("/").content.decode()
    options = dict(re.findall(r'<option value="(\w+)" lang="\1"[^>]*>([^<]*)</option>', body))
    assert options == dict(settings.LANGUAGES)
    assert options["en"] == "English"


def test_the_switcher_needs_a_post() -> None:
    assert Client().get("/i18n/language?language=de").status_code == 405


@pytest.mark.usefixtures("limit_clock")
def test_the_switcher_past_its_rate_limit_is_refused_with_a_page_that_says_why(settings: Any) -> None:
    """Each switch stores the browser's language for its notices (a row): as the other forms that
    store something, it has a limit, and one past it is a 429 that says so and changes nothing."""
    settings.RATE_LIMIT_LANGUAGE = "2/60"
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.post("/rooms/new", {"name": "Ada", "ruleset": "official", "mode": "online"})  # a browser with a seat
    for language in ("sv", "da"):
        assert client.post("/i18n/language", {"language": language, "next": "/"}).status_code == 302
    refused = client.post("/i18n/language", {"language": "fr", "next": "/"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert settings.LANGUAGE_COOKIE_NAME not in refused.cookies
    said = html.unescape(refused.content.decode())
    assert "Du har skiftet sprog for mange gange på kort tid." in said, said  # in the page's language, Danish
    assert "Nyt spil" in client.get("/").content.decode()  # still Danish
    # A page that asks for JSON is told as the other limits tell it.
    fetched = client.post("/i18n/language", {"language": "fr"}, HTTP_ACCEPT="application/json")
    assert fetched.status_code == 429 and fetched.json()["error"] == errors.RATE_LIMITED


def test_the_switchers_limit_is_in_the_limits_the_server_checks_at_its_start() -> None:
    from games.realtime.limits import LANGUAGE, LIMITS

    assert LANGUAGE in LIMITS and LANGUAGE.shared and LANGUAGE.message


def test_signed_in_the_language_is_the_accounts_wherever_one_signs_in() -> None:
    first = Client(HTTP_ACCEPT_LANGUAGE="en")
    sign_up(first, "ingrid")
    first.post("/i18n/language", {"language": "da", "next": "/"})
    assert account_selectors.profile_language(user_id=user("ingrid").pk) == "da"  # type: ignore[attr-defined]
    # Another browser, which asks for German, signs in: the pages are Danish, and stay so after signing out.
    other = Client(HTTP_ACCEPT_LANGUAGE="de")
    assert "Neues Spiel" in other.get("/").content.decode()
    response = other.post("/accounts/login/", {"login": "ingrid", "password": PASSWORD})
    assert response.status_code == 302
    assert "Nyt spil" in other.get("/").content.decode()
    assert other.cookies[settings.LANGUAGE_COOKIE_NAME].value == "da"
    other.post("/accounts/logout/")
    assert "Nyt spil" in other.get("/").content.decode()


def test_an_account_without_a_language_takes_the_one_chosen_before_signing_in() -> None:
    browser = Client()
    browser.post("/i18n/language", {"language": "fr", "next": "/"})
    sign_up(browser, "amelie")
    assert account_selectors.profile_language(user_id=user("amelie").pk) == "fr"  # type: ignore[attr-defined]


def test_the_javascript_catalog_per_language() -> None:
    client = Client()
    danish = client.get("/jsi18n/da.js")
    assert danish.status_code == 200
    text = danish.content.decode()
    # The site's words, and none of the admin's.
    assert "Et par" in text and "Lille straight" in text
    assert "Show all" not in text  # the admin's JavaScript words
    # Kept for good under the address of the current catalogs, asked again under any other.
    assert danish["Cache-Control"] == "no-cache"
    current = client.get(f"/jsi18n/da.js?v={catalog_version()}")
    assert current.content == danish.content and "immutable" in current["Cache-Control"]
    assert client.get("/jsi18n/xx.js").status_code == 404
    # The page loads the catalog of its language, under a URL that changes with the catalogs.
    body = Client(HTTP_ACCEPT_LANGUAGE="sv").get("/").content.decode()
    assert '<script src="/jsi18n/sv.js?v=' in body


@pytest.mark.parametrize(
    ("language", "ruleset", "names"),
    [
        (
            "da",
            "yatzy",
            [
                "Enere",
                "Seksere",
                "Et par",
                "To par",
                "Tre ens",
                "Fire ens",
                "Lille straight",
                "Stor straight",
                "Hus",
                "Chance",
                "Yatzy",
            ],
        ),
        (
            "sv",
            "yatzy",
            [
                "Ettor",
                "Sexor",
                "Ett par",
                "Två par",
                "Tretal",
                "Fyrtal",
                "Liten stege",
                "Stor stege",
                "Kåk",
                "Chans",
                "Yatzy",
            ],
        ),
        (
            "de",
            "official",
            [
                "Einser",
                "Dreierpasch",
                "Viererpasch",
                "Full House",
                "Kleine Straße",
                "Große Straße",
                "Kniffel",
                "Chance",
            ],
        ),
        (
            "fr",
            "yatzy",
            ["As", "Une paire", "Deux paires", "Brelan", "Carré", "Petite suite", "Grande suite", "Full", "Yatzy"],
        ),
        ("es", "official", ["Unos", "Trío", "Póker", "Full", "Escalera corta", "Escalera larga", "Yahtzee"]),
        ("en", "yatzy", ["Ones", "One Pair", "Two Pairs", "Full House", "Yatzy"]),
    ],
)
def test_box_names_as_the_players_of_each_language_say_them(language: str, ruleset: str, names: list[str]) -> None:
    rules = RULESETS[ruleset]
    with translation.override(language):
        said = [words.box_name(rules, box) for box in rules.boxes]
    assert set(names) <= set(said), said
    assert len(set(said)) == len(said)  # every box its own name


def test_the_server_says_spans_and_rule_sets_in_the_active_language() -> None:
    with translation.override("de"):
        assert duration(3 * 86400) == "3 Tage"
        assert words.ruleset_label("yatzy") == "Yatzy (skandinavisch)"
        assert words.box_name(RULESETS["painted"], Box.RAINBOW) == "Regenbogen"
    with translation.override("da"):
        assert duration(86400 + 3600) == "1 dag 1 time"
    with translation.override("en"):
        assert duration(2 * 3600) == "2 hours"


def _outline(text: str) -> dict[str, object]:
    """What a translated page must keep of its source: headings and anchors, table rows, the code."""
    code = re.findall(r"```.*?```|^ {7}HMAC[^\n]*", text, re.S | re.M)
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    return {
        "headings": [len(h) for h in re.findall(r"^(#+) ", prose, re.M)],
        "anchors": re.findall(r"\{#[a-z_]+\}", prose),
        "table rows": len(re.findall(r"^\|", prose, re.M)),
        "links": re.findall(r"\]\(([^)]+)\)", prose),
        "code": code,
    }


@pytest.mark.parametrize("name", list(docpages.PAGES))
@pytest.mark.parametrize("language", [code for code, _ in settings.LANGUAGES if code != "en"])
def test_every_page_of_the_rules_is_translated_whole(name: str, language: str) -> None:
    page = docpages.PAGES[name]
    translated = page.file_in(language)
    assert translated != page.file, f"{name} has no {language} translation beside {page.file.name}"
    assert _outline(translated.read_text(encoding="utf-8")) == _outline(page.file.read_text(encoding="utf-8"))


def test_the_rules_and_fairness_pages_in_the_readers_language() -> None:
    danish = Client(HTTP_ACCEPT_LANGUAGE="da").get("/rules").content.decode()
    assert "<title>Reglerne ·" in danish and "Et par" in danish and 'href="/fairness"' in danish
    german = Client(HTTP_ACCEPT_LANGUAGE="de").get("/fairness").content.decode()
    assert "<title>Faire Würfel, die jeder prüfen kann ·" in german and "Auf dem Server" in german
    english = Client().get("/rules").content.decode()
    assert "<title>The rules ·" in english and "One Pair" in english


def test_the_replay_tells_the_game_in_the_readers_language() -> None:
    """The replay's steps are the server's sentences, worded for the request: one finished Yatzy
    game, read in Danish and in English."""
    game = play_to_end(open_room(2, "yatzy"), random.Random(3))
    danish = Client(HTTP_ACCEPT_LANGUAGE="da").get(f"/r/{game.code}/replay").content.decode()
    steps = json.loads(re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', danish, re.S)[1])
    texts = [step["text"] for step in steps["steps"]]
    assert texts[0].startswith("Spillet begynder: ")
    assert any(" slår " in text for text in texts)
    scored = [text for text in texts if " skriver " in text]
    assert scored and all(any(f" i {name}" in text for name in DANISH_YATZY) for text in scored), scored
    english = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/r/{game.code}/replay").content.decode()
    assert "The game starts: " in english and " scores " in english


DANISH_YATZY = ("Enere", "Toere", "Treere", "Firere", "Femmere", "Seksere", "Et par", "To par", "Tre ens")
DANISH_YATZY += ("Fire ens", "Lille straight", "Stor straight", "Hus", "Chance", "Yatzy")


def test_the_page_and_the_server_name_every_box_alike() -> None:
    """The box names live in both catalogs (static/js/words.js for the page, games/services/words.py
    for the server): the same boxes, under the same contexts and English names."""
    source = (settings.BASE_DIR / "static" / "js" / "words.js").read_text(encoding="utf-8")
    page = set(re.findall(r'^  (\w+): pgettext\("(Yahtzee|Yatzy) box", "([^"]+)"\),$', source, re.M))
    with translation.override("en"):
        server = {
            (box.value, family, str(name))
            for family, names in (("Yahtzee", words._YAHTZEE_BOXES), ("Yatzy", words._YATZY_BOXES))
            for box, name in names.items()
        }
    assert page == server
    for ruleset in RULESETS.values():
        family = "Yatzy" if ruleset.name == "yatzy" else "Yahtzee"
        assert {box.value for box in ruleset.boxes} <= {box for box, f, _ in server if f == family}, ruleset.name


# --- what the server itself says: a form's refusal, a limit's 429, a number ---------------------


def test_the_e_mail_forms_refusal_is_in_the_readers_language() -> None:
    user = get_user_model().objects.create_user("greta", password="a long pass phrase 1")
    client = Client(HTTP_ACCEPT_LANGUAGE="de")
    client.force_login(user)
    response = client.post("/notices/email", {"on": "on", "address": ""})
    assert response.status_code == 400
    assert "Gib die Adresse an, an die wir dir schreiben sollen." in response.content.decode()


@pytest.mark.usefixtures("limit_clock")
def test_a_limits_429_page_is_in_the_readers_language() -> None:
    ann = Client(HTTP_ACCEPT_LANGUAGE="fr")
    for i in range(10):
        create_room(ann, f"Ann{i}")
    refused = ann.post("/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"})
    page = refused.content.decode()
    assert refused.status_code == 429 and '<html lang="fr"' in page
    assert "Vous avez créé trop de salles en peu de temps. Attendez une minute et réessayez." in page


def test_the_leaderboards_points_lost_are_written_as_the_readers_numbers() -> None:
    user = get_user_model().objects.create_user("zora", password="x")
    Profile.objects.create(user=user, controller="tok-zora", public=True)
    Standing.objects.create(user=user, ruleset="official", games=6, reviewed=6, lost_sum=74.4, accuracy=12.4)
    german = Client(HTTP_ACCEPT_LANGUAGE="de")
    board = german.get("/leaderboards/official").content.decode()
    assert "12,4" in board and "12.4" not in board


@pytest.mark.parametrize(
    ("language", "wrong"),
    [
        ("en", "1 computers"),
        ("fr", "1 ordinateurs"),
        ("es", "1 ordenadores"),
        ("sv", "1 datorer"),
        ("da", "1 computere"),
    ],
)
def test_too_many_players_on_one_device_counts_one_computer_in_the_singular(language: str, wrong: str) -> None:
    """Eight people and one computer on one device are one seat too many: the refusal says
    "8 people and 1 computer make 9", with the count of computers in its plural form."""
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    response = client.post(
        "/rooms/new",
        {"name": "Ann", "ruleset": "official", "mode": "local", "players": "8", "bots": "1"},
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "9" in page  # the refusal is there ...
    assert wrong not in page  # ... with its count of computers in the singular


def test_a_refusal_a_page_shows_is_in_the_readers_language_and_in_english_the_services_own() -> None:
    host = Client(HTTP_ACCEPT_LANGUAGE="de")
    code = create_room(host, name="Ann")
    german = Client(HTTP_ACCEPT_LANGUAGE="de").post(f"/r/{code}/join", {"name": "ann"}, follow=True)
    page = german.content.decode()
    assert '<html lang="de"' in page and "Someone here is already called" not in page
    assert "Jemand am Tisch hat diesen Namen schon." in page
    english = Client(HTTP_ACCEPT_LANGUAGE="en").post(f"/r/{code}/join", {"name": "ann"}, follow=True)
    assert "Someone here is already called ann." in english.content.decode()


def test_a_name_refused_as_a_seated_players_look_alike_names_that_player_in_the_readers_language() -> None:
    """Seat names are the table's, shown to everyone there: the refusal says which one it reads as."""
    code = create_room(Client(HTTP_ACCEPT_LANGUAGE="de"), name="Ann1")
    with translation.override("de"):
        said = str(READS_AS)
    german = Client(HTTP_ACCEPT_LANGUAGE="de").post(f"/r/{code}/join", {"name": "Annl"}, follow=True)
    assert html.escape(said % {"name": "\u2068Ann1\u2069"}) in german.content.decode()
    english = Client(HTTP_ACCEPT_LANGUAGE="en").post(f"/r/{code}/join", {"name": "Annl"}, follow=True)
    assert (
        "Annl reads the same as \u2068Ann1\u2069, who is already at the table: please choose another name."
        in english.content.decode()
    )


def test_a_second_player_of_one_device_given_the_first_ones_name_is_told_so_in_the_readers_language() -> None:
    """Not the bare "someone at the table already has that name": the seat is this device's own."""
    host = Client(HTTP_ACCEPT_LANGUAGE="de")
    code = create_room(host, name="Ann")
    with translation.override("de"):
        said = str(SITS_HERE)
    assert "Gerät" in said
    page = host.post(f"/r/{code}/join", {"name": "ann", "action_id": "form-2-join"}, follow=True).content.decode()
    assert html.escape(said % {"name": "\u2068Ann\u2069"}) in page
    assert [s.name for s in Game.objects.get(code=code).room.seats] == ["Ann"]


def shown_errors(response: Any) -> list[str]:
    return [html.unescape(e) for e in re.findall(r'<p class="error">([^<]*)</p>', response.content.decode())]


def started(client: Client) -> Game:
    code = create_room(client, name="Ann")
    game = Game.objects.get(code=code)
    client.post(f"/r/{code}/start", {"version": game.version, "action_id": "start"})
    game.refresh_from_db()
    assert game.status == "playing"
    return game


def test_a_stale_no_script_form_is_refused_in_the_readers_language(german: Callable[[str | Promise], str]) -> None:
    """The no-script table's form sent twice (a double click, the back button, a reload that
    posts again) or after anyone else moved is refused as stale, in the reader's words."""
    ann = Client(HTTP_ACCEPT_LANGUAGE="de")
    game = started(ann)
    version = game.version
    ann.post(f"/r/{game.code}/roll", {"version": str(version), "action_id": "r-1"})
    game.refresh_from_db()
    after = (game.version, game.moves.count())
    response = ann.post(f"/r/{game.code}/roll", {"version": str(version), "action_id": "r-2"}, follow=True)
    assert '<html lang="de"' in response.content.decode()
    assert shown_errors(response) == [german("The table changed just before your move: have a look and try again.")]
    game.refresh_from_db()
    assert (game.version, game.moves.count()) == after  # refused, nothing stored


# What a form post of the no-script table can be refused with, and the words a German reader gets.
FORM_REFUSALS = [
    # The page was drawn for an older version (the commonest refusal of a form post).
    ("roll", {"version": "-1"}, "The table changed just before your move: have a look and try again."),
    # A seat that is not there (the page was drawn before the lobby changed).
    ("leave", {"seat": "5"}, "That seat is not there any more: the table is being brought up to date."),
    # A form that lost a field: the view's own sentences.
    ("roll", {"version": None}, "The form was missing its game version; reload the page."),
    ("leave", {}, "The form did not say which seat; reload the page."),
    # Fields the frame's check refuses.
    (
        "roll",
        {"action_id": "x" * 200},
        "Something in the form was not what the game expected; reload the page and try again.",
    ),
    ("roll", {"held": "7"}, "Those dice are not on the table: choose up to five to keep."),
    ("score", {}, "The form was missing something; reload the page and try again."),
    ("score", {"box": "sevens"}, "There is no box by that name."),
    ("score", {"box": "chance", "column": "9"}, "That column is not on this scorecard."),
]


@pytest.mark.parametrize(
    ("action", "fields", "said"),
    FORM_REFUSALS,
    ids=[
        "stale", "bad_seat", "lost_version", "lost_seat", "bad_field", "bad_die_index", "missing_field",
        "unknown_box", "bad_column",
    ],
)  # fmt: skip
def test_a_no_script_forms_refusal_is_shown_in_the_readers_language(
    action: str, fields: dict[str, str | None], said: str, german: Callable[[str | Promise], str]
) -> None:
    anna = Client(HTTP_ACCEPT_LANGUAGE="de")
    game = started(anna)
    before = (game.version, game.moves.count())
    data = {"version": str(game.version), "action_id": "f-1", **fields}
    response = anna.post(f"/r/{game.code}/{action}", {k: v for k, v in data.items() if v is not None}, follow=True)
    assert '<html lang="de"' in response.content.decode()
    assert shown_errors(response) == [german(said)]
    game.refresh_from_db()
    assert (game.version, game.moves.count()) == before  # refused, nothing stored


def test_a_refused_kick_of_the_hosts_own_companion_says_so_in_the_readers_language(
    german: Callable[[str | Promise], str],
) -> None:
    """The host's kick of a player added on their own device is refused (own_device): the page
    says why in German, not that the seat is not there any more."""
    host = Client(HTTP_ACCEPT_LANGUAGE="de")
    code = create_room(host, "Ada")
    host.post(f"/r/{code}/join", {"name": "Ben"})  # Ben plays on Ada's device
    game = Game.objects.get(code=code)
    assert len(game.room.seats) == 2
    page = host.post(f"/r/{code}/kick", {"version": game.version, "seat": 1, "action_id": "k-1"}, follow=True)
    assert shown_errors(page) == [german("That seat is played on your own device: leave it instead.")]


def test_a_too_long_chat_lines_refusal_says_the_servers_own_limit_in_every_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The limit a refused chat line is told is the one the server keeps (``CHAT_MAX``), not a
    number written into the sentence its translations copy."""
    from games.domain.rules import RuleViolation
    from games.services import chat
    from games.web.refusals import refusal

    monkeypatch.setattr(chat, "CHAT_MAX", 280)
    for language in ("de", "fr", "sv"):
        with translation.override(language):
            said = refusal(RuleViolation(errors.CHAT_TOO_LONG, "A chat message is at most 280 characters."))
        assert "280" in said and "300" not in said, (language, said)


def test_in_english_a_form_that_lost_a_field_says_which() -> None:
    ann = Client(HTTP_ACCEPT_LANGUAGE="en")
    game = started(ann)
    response = ann.post(f"/r/{game.code}/roll", {"action_id": "f-1"}, follow=True)
    assert shown_errors(response) == ["The form was missing its game version; reload the page."]


def test_a_pause_its_host_did_not_make_is_refused_naming_the_host_who_resumes_it_in_every_language() -> None:
    """The host who paused left: the others' refused move names the new host, whose resume it waits for."""
    from games.services.actions import HostResumes
    from games.web.refusals import refusal

    for language in ("de", "fr", "es", "da", "sv"):
        with translation.override(language):
            said = refusal(HostResumes("Ben"))
            assert said == str(WORDS["host_to_resume"]) % {"name": "\u2068Ben\u2069"}
            assert "%(name)s" not in said
    with translation.override("en"):
        assert (
            refusal(HostResumes("Ben"))
            == "The game is paused: play goes on when \u2068Ben\u2069, the host, resumes it."
        )


# Codes no page's refusal meets: the socket's own (a frame's shape, the coach's review, a
# socket's limits and faults), the JSON answers to the pages' scripts, the 503 page's
# (games/web/middleware.py), and dice the server rolled itself.
NEVER_ON_A_PAGE = {
    "bad_frame", "frame_too_large", "bad_json", "unknown_type",
    "coach_busy",
    "too_many_sockets", "server_error", "not_finished", "bad_subscription", "outcome_unknown", "bad_dice", "no_room",
    # Holds: no form posts one (the room page's script does, and never one that changes nothing).
    "same_hold", "holds_used_up",
    # A script's empty 4xx and its refused CSRF token: a page says these with its own error page.
    "forbidden", "not_found", "method_not_allowed", "csrf_failed",
}  # fmt: skip


def test_every_refusal_a_page_can_show_has_words_in_the_readers_language() -> None:
    codes = {value for name, value in vars(errors).items() if name.isupper() and isinstance(value, str)}
    assert sorted(codes - NEVER_ON_A_PAGE - set(WORDS)) == []


def test_a_page_words_a_refusal_as_the_room_pages_script_does() -> None:
    script = (settings.BASE_DIR / "static" / "js" / "room" / "errors.js").read_text()
    table = script[script.index("const ERRORS = {") : script.index("};", script.index("const ERRORS = {"))]
    worded = dict(re.findall(r'^\s+([a-z_]+): gettext\("((?:[^"\\]|\\.)*)"\)', table, re.MULTILINE))
    assert worded, "the script's table of error words"
    differ = {code: (words, worded[code]) for code, words in WORDS.items() if code in worded and words != worded[code]}
    assert differ == {}
    # Words with a number the server keeps (chat.CHAT_MAX), singular and plural alike.
    counted = re.findall(r'^\s+([a-z_]+): fmt\(ngettext\("([^"]*)", "([^"]*)", CHAT_MAX\)', table, re.MULTILINE)
    assert [code for code, *_ in counted] == ["chat_too_long"]
    for code, one, many in counted:
        with translation.override("en"):
            assert [str(WORDS[code] % {"max": n}) for n in (1, 2)] == [one % {"max": 1}, many % {"max": 2}]
    from games.services.chat import CHAT_MAX

    assert f"export const CHAT_MAX = {CHAT_MAX};" in (settings.BASE_DIR / "static" / "js" / "words.js").read_text()
    room = (settings.BASE_DIR / "static" / "js" / "room.js").read_text()
    assert f'frame.code === "stale" && mineFailed) toast(gettext("{WORDS["stale"]}")' in room


def test_the_javascript_catalog_stores_nothing_in_the_shared_cache_whatever_its_address(monkeypatch: Any) -> None:
    """A copy kept per address in the shared cache (Redis in production, no eviction) would let
    anyone fill it by varying ``?v=``: the catalog is made once a process per language."""
    stored: list[str] = []
    backend = caches["default"]
    real_set = backend.set

    def recorded(key: str, *args: Any, **kwargs: Any) -> Any:
        stored.append(key)
        return real_set(key, *args, **kwargs)

    monkeypatch.setattr(backend, "set", recorded)
    assert Client().get(f"/jsi18n/fr.js?v={catalog_version()}").status_code == 200
    for junk in ("1", "2", "3"):
        assert Client().get(f"/jsi18n/fr.js?v={junk}").status_code == 200
    assert stored == []


def switcher_next(page: str) -> str:
    """Where the page's language switcher goes back to (its ``next``)."""
    form = re.search(r'<form class="language-switch".*?</form>', page, re.S)
    assert form is not None
    found = re.search(r'<input name="next" type="hidden" value="([^"]*)">', form.group(0))
    assert found is not None
    return html.unescape(found.group(1))


def refused_create(client: Client) -> tuple[str, str]:
    """The home form sent with no name (a page without script does not mark the field required)."""
    refused = client.post("/rooms/new", {"name": "", "ruleset": "official", "mode": "online"}, HTTP_REFERER="/")
    assert refused.status_code == 400
    return "/rooms/new", refused.content.decode()


def created_too_many(client: Client) -> tuple[str, str]:
    """One room too many: the limit's 429 page, drawn at the create form's address (the limit set
    to one room: each count in Redis is one more request a loaded machine could time out on)."""
    with override_settings(RATE_LIMIT_ROOM_CREATE="1/60"):
        create_room(client, "Ann")
        refused = client.post("/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"}, HTTP_REFERER="/")
    assert refused.status_code == 429
    return "/rooms/new", refused.content.decode()


def refused_email_form(client: Client) -> tuple[str, str]:
    """The turn e-mails' form on Your games, sent with an address that is not one."""
    sign_up(client, "ann")
    refused = client.post("/notices/email", {"address": "not an address", "on": "on"}, HTTP_REFERER="/games")
    assert refused.status_code == 400
    return "/notices/email", refused.content.decode()


@pytest.mark.usefixtures("limit_clock")
@pytest.mark.parametrize(
    ("refuse", "form_page"),
    [(refused_create, "/"), (created_too_many, "/"), (refused_email_form, "/games")],
    ids=["create-room", "create-room-429", "email-notices"],
)
def test_switching_language_on_a_refused_form_goes_back_to_the_page_the_form_was_on(
    refuse: Callable[[Client], tuple[str, str]], form_page: str
) -> None:
    """A refused form is drawn at the address it posted to, which takes only POSTs (opened, it is
    "This address is for a button"): the switcher goes back to the page the form is on, in the new
    language, whatever the Referer (a browser sends the address the page is shown at)."""
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    posted_to, page = refuse(client)
    assert switcher_next(page) == form_page
    switched = client.post(
        "/i18n/language",
        {"language": "de", "next": switcher_next(page)},
        HTTP_REFERER=f"http://testserver{posted_to}",
        follow=True,
    )
    assert switched.status_code == 200 and switched.redirect_chain[-1][0] == form_page
    assert '<html lang="de"' in switched.content.decode()


@pytest.mark.parametrize(
    ("posted_to", "fields", "asked"),
    [
        ("/accounts/reauthenticate/", {"password": "not it"}, "/accounts/2fa/webauthn/add/"),
        ("/accounts/login/", {"login": "ann", "password": "not it"}, "/admin/"),
    ],
    ids=["confirm-it-is-you", "sign-in"],
)
def test_switching_language_on_a_refused_password_keeps_the_page_that_asked_for_it(
    posted_to: str, fields: dict[str, str], asked: str
) -> None:
    """allauth's forms post to their bare address and carry the page that asked (``next``) in a
    field: refused, the page is drawn at that bare address. Its switcher goes back to the form with
    the page that asked still in its address, so the right password, in the new language, goes on
    there and not to the player's own page."""
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    sign_up(client, "ann")
    if posted_to == "/accounts/login/":
        client.logout()
    refused = client.post(posted_to, {**fields, "next": asked})
    assert refused.status_code == 200 and "errorlist" in refused.content.decode()
    back = switcher_next(refused.content.decode())
    assert back == f"{posted_to}?next={asked.replace('/', '%2F')}"
    switched = client.post("/i18n/language", {"language": "de", "next": back}, follow=True)
    assert switched.redirect_chain[-1][0] == back
    assert f'name="next" value="{asked}"' in switched.content.decode()


def test_a_refused_forms_page_that_asked_for_it_elsewhere_is_not_echoed() -> None:
    """A ``next`` of another site posted with a form is not put in the switcher's address."""
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    refused = client.post("/accounts/login/", {"login": "ann", "password": "not it", "next": "https://evil.example/"})
    assert refused.status_code == 200
    assert switcher_next(refused.content.decode()) == "/accounts/login/"


def test_a_page_drawn_for_a_rooms_form_goes_back_to_the_room() -> None:
    """A room's form that expired (the CSRF check's 403) is drawn at the address it posted to:
    its switcher goes back to the room."""
    code = create_room(Client(), "Ann")
    drawn = Client(HTTP_ACCEPT_LANGUAGE="en", enforce_csrf_checks=True).post(f"/r/{code}/roll", {})
    assert drawn.status_code == 403
    assert switcher_next(drawn.content.decode()) == f"/r/{code}/"


def test_a_pages_switcher_goes_back_to_the_page_with_its_query() -> None:
    page = Client().get("/leaderboards/official?page=2").content.decode()
    assert switcher_next(page) == "/leaderboards/official?page=2"


def test_a_rule_set_and_what_sets_it_apart_are_joined_as_each_language_writes_a_colon() -> None:
    """French puts a (no-break) space before a colon: the create form's choice of rule set and the lobby
    without script say "Yahtzee (officiel) : …" there, "Yahtzee (official): …" in English."""
    from games.web.forms import CreateRoomForm

    for language, colon in (("fr", "\u00a0: "), ("en", ": ")):
        client = Client(HTTP_ACCEPT_LANGUAGE=language)
        with translation.override(language):
            line = f"{words.ruleset_label('official')}{colon}{words.ruleset_summary('official')}"
            assert str(dict(CreateRoomForm().fields["ruleset"].choices)["official"]) == line  # type: ignore[attr-defined]
        code = create_room(client)
        assert line in html.unescape(client.get(f"/r/{code}/").content.decode())

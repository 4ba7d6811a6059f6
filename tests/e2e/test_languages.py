"""The site in six languages in a real browser: a Danish browser plays a Yatzy turn in Danish, a
room's English and German players each read it in their own language, the switcher works signed
out and signed in (and an installed app follows it), axe-core finds nothing serious in any
language, no page runs off the side of a phone in any of them, and no page a player meets leaves
English words on it for a reader of another language."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import (
    act,
    create_online,
    in_each_scheme,
    join,
    local_room,
    no_horizontal_overflow,
    score_best,
    seated,
    serious_violations,
    shot,
)

pytestmark = pytest.mark.browser

PASSWORD = "six languages one table"
LOCALES = {"en": "en-US", "da": "da-DK", "sv": "sv-SE", "de": "de-DE", "fr": "fr-FR", "es": "es-ES"}


def card_names(page: Any) -> dict[str, str]:
    """Each box row's name as the card shows it (the full name, not the narrow screen's short one)."""
    return dict(
        page.eval_on_selector_all(
            "#card tr[data-box]",
            "rows => rows.map(r => [r.dataset.box,"
            " (r.querySelector('.long-label') ?? r.querySelector('th')).textContent.trim()])",
        )
    )


def feed(page: Any) -> list[str]:
    return page.eval_on_selector_all("#feed .feed-list li", "items => items.map(i => i.textContent)")


def start(page: Any, everyone: list[Any]) -> None:
    act(page, everyone, lambda: page.click("#start"))
    page.wait_for_selector("#roll")


def test_a_danish_browser_plays_a_yatzy_turn_in_danish(new_page: Any, live_site: LiveSite) -> None:
    page = new_page(locale="da-DK")
    create_online(page, live_site, "Mette", ruleset="yatzy")
    assert page.get_attribute("html", "lang") == "da"
    assert page.inner_text("#lobby-h") == "Venter på spillere"
    assert "Yatzy (skandinavisk)" in page.inner_text("#room-sub")
    start(page, [page])
    names = card_names(page)
    assert [names[box] for box in ("ones", "sixes", "one_pair", "two_pairs", "three_of_a_kind", "four_of_a_kind")] == [
        "Enere",
        "Seksere",
        "Et par",
        "To par",
        "Tre ens",
        "Fire ens",
    ]
    assert [names[box] for box in ("small_straight", "large_straight", "full_house", "chance", "yahtzee")] == [
        "Lille straight",
        "Stor straight",
        "Hus",
        "Chance",
        "Yatzy",
    ]
    assert page.inner_text("#turn-h").startswith("Din tur, Mette")
    assert page.inner_text("#roll").startswith("Slå med terningerne")
    act(page, [page], lambda: page.click("#roll"))
    assert page.get_attribute("#die-0", "aria-label").startswith("Terning 1: ")
    score_best(page, [page])
    line = feed(page)[0]
    assert line.startswith("Mette skrev "), line
    assert any(f" i {name}" in line for name in names.values()), line
    assert serious_violations(page) == []
    for scheme in in_each_scheme(page):
        shot(page, f"i18n-room-da-1280-{scheme}")
    page.set_viewport_size({"width": 390, "height": 844})
    for scheme in in_each_scheme(page):
        shot(page, f"i18n-room-da-390-{scheme}")
        assert serious_violations(page, scheme) == []


def test_each_player_reads_the_room_in_their_own_language(new_page: Any, live_site: LiveSite) -> None:
    anna = new_page(locale="en-US")
    jonas = new_page(locale="de-DE")
    url = create_online(anna, live_site, "Anna")
    join(jonas, url, "Jonas")
    everyone = [anna, jonas]
    seated(anna, 2)
    start(anna, everyone)
    english, german = card_names(anna), card_names(jonas)
    assert [english[b] for b in ("three_of_a_kind", "full_house", "large_straight", "yahtzee")] == [
        "Three of a Kind",
        "Full House",
        "Large Straight",
        "Yahtzee",
    ]
    assert [german[b] for b in ("three_of_a_kind", "full_house", "large_straight", "yahtzee")] == [
        "Dreierpasch",
        "Full House",
        "Große Straße",
        "Kniffel",
    ]
    assert anna.inner_text("#turn-h").startswith("Your turn, Anna")
    assert jonas.inner_text("#turn-h").startswith("Anna ist dran")
    assert jonas.inner_text("#seats-h") == "Mitspielende"
    act(anna, everyone, lambda: anna.click("#roll"))
    score_best(anna, everyone)
    # One event, one frame for both: each page words it.
    assert feed(anna)[0].startswith("Anna scored "), feed(anna)
    assert feed(jonas)[0].startswith("Anna hat "), feed(jonas)
    assert feed(jonas)[0].endswith("eingetragen"), feed(jonas)
    assert any(name in feed(jonas)[0] for name in german.values())
    assert jonas.inner_text("#turn-h").startswith("Du bist dran, Jonas")
    for scheme in in_each_scheme(jonas):
        shot(jonas, f"i18n-room-de-1280-{scheme}")
        assert serious_violations(jonas, scheme) == []
    jonas.set_viewport_size({"width": 390, "height": 844})
    for scheme in in_each_scheme(jonas):
        shot(jonas, f"i18n-room-de-390-{scheme}")


def switch(page: Any, language: str) -> None:
    with page.expect_navigation():
        page.select_option("#language-select", language)
        page.click(".language-switch button")


def test_the_switcher_signed_out_and_signed_in(new_page: Any, live_site: LiveSite) -> None:
    page = new_page(locale="en-US")
    page.goto(live_site.url + "/rules")
    switch(page, "sv")
    # Back on the page it was switched on, now in Swedish, and every page after it.
    assert page.url == live_site.url + "/rules"
    assert page.get_attribute("html", "lang") == "sv"
    page.goto(live_site.url + "/")
    assert page.inner_text("#create-h") == "Nytt spel"
    assert page.input_value("#language-select") == "sv"

    name = f"lang{uuid.uuid4().hex[:6]}"
    page.goto(live_site.url + "/accounts/signup/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("form[action='/accounts/signup/'] button[type=submit]")
    page.wait_for_url(f"**/u/{name}/")
    assert page.get_attribute("html", "lang") == "sv"  # the account took the language chosen before
    switch(page, "fr")
    assert page.get_attribute("html", "lang") == "fr"

    # Another browser, in Spanish, signs in to the account: the pages are French.
    other = new_page(locale="es-ES")
    other.goto(live_site.url + "/")
    assert other.inner_text("#create-h") == "Nueva partida"
    other.goto(live_site.url + "/accounts/login/")
    other.fill("input[name=login]", name)
    other.fill("input[name=password]", PASSWORD)
    other.click("form[action='/accounts/login/'] button[type=submit]")
    other.wait_for_url(f"**/u/{name}/")
    other.goto(live_site.url + "/")
    assert other.inner_text("#create-h") == "Nouvelle partie"


def test_without_script_switching_language_on_a_refused_create_form_keeps_the_form(
    live_site: LiveSite, new_page: Any
) -> None:
    """Without script the name field is not required (home.js makes it so): "Create room" with no
    name is refused by the server, which draws the home page at /rooms/new, an address that takes
    only POSTs. Switching to German there goes back to the home page's form, in German."""
    page = new_page(java_script_enabled=False)
    page.goto(live_site.url + "/")
    with page.expect_navigation():
        page.click("#create-btn")
    assert page.locator("#name-error").is_visible()
    page.select_option("#language-select", "de")
    with page.expect_navigation():
        page.click(".language-switch button[type=submit]")
    assert page.get_attribute("html", "lang") == "de"
    assert page.url == live_site.url + "/"
    assert page.locator("#create-form").count() == 1, (page.url, page.inner_text("main")[:300])


def test_an_installed_app_is_described_in_the_language_the_switcher_chose(new_page: Any, live_site: LiveSite) -> None:
    """A browser asks for the web app manifest without cookies unless the page's link says
    otherwise: the site's does, so a reader who picked Deutsch in an English browser installs
    the app in German, not in the browser's language."""
    page = new_page(locale="en-US")
    page.goto(live_site.url + "/")
    switch(page, "de")
    manifest = page.context.new_cdp_session(page).send("Page.getAppManifest")
    assert manifest["errors"] == [], manifest["errors"]
    assert json.loads(manifest["data"])["lang"] == "de"


@pytest.mark.parametrize("language", list(LOCALES))
def test_axe_finds_nothing_serious_in_any_language(new_page: Any, live_site: LiveSite, language: str) -> None:
    page = new_page(locale=LOCALES[language])
    page.goto(live_site.url + "/")
    assert page.get_attribute("html", "lang") == language
    assert serious_violations(page) == [], language
    create_online(page, live_site, "Ana")
    page.wait_for_selector("#lobby:not([hidden])")
    start(page, [page])
    act(page, [page], lambda: page.click("#roll"))
    for scheme in in_each_scheme(page):
        assert serious_violations(page, scheme) == [], (language, scheme)
    # A phone: the header stays one line and nothing runs off the side, whatever the words' lengths.
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, f"i18n-room-{language}-390")
    assert no_horizontal_overflow(page), language
    header = page.eval_on_selector(".site-header", "h => h.getBoundingClientRect().height")
    assert header < 60, (language, header)
    page.goto(live_site.url + "/")
    shot(page, f"i18n-home-{language}-390")
    assert no_horizontal_overflow(page), language
    assert page.errors == []


@pytest.mark.parametrize("language", list(LOCALES))
def test_no_page_runs_off_the_side_of_a_phone_in_any_language(
    new_page: Any, live_site: LiveSite, language: str
) -> None:
    """At 360 px (most Android phones) the header is one line in every language, as at 390; at
    320 px the switcher goes under the links where they do not leave it room. No page scrolls
    sideways and the switcher's OK is always on the screen."""
    page = new_page(width=360, height=740, locale=LOCALES[language])
    room = create_online(page, live_site, "Ana")
    for width in (360, 320):
        page.set_viewport_size({"width": width, "height": 740})
        for address in (
            *(live_site.url + path for path in ("/", "/rules", "/games", "/leaderboards", "/fairness")),
            room,
        ):
            page.goto(address)
            assert page.get_attribute("html", "lang") == language
            where = (language, width, address)
            assert no_horizontal_overflow(page), (*where, page.evaluate("document.documentElement.scrollWidth"))
            ok = page.eval_on_selector(".language-switch button", "b => b.getBoundingClientRect().right")
            assert ok <= width, (*where, ok)
            if width == 360:
                header = page.eval_on_selector(".site-header", "h => h.getBoundingClientRect().height")
                assert header < 60, (*where, header)
        for scheme in in_each_scheme(page):
            shot(page, f"i18n-header-{language}-{width}-{scheme}")


# Where the header's parts are: how far the links stand from the site's name and from the
# switcher, how far the switcher stops short of the header's right edge, and whether it sits on a
# line of its own under the name.
HEADER_PARTS = """() => {
  const box = s => document.querySelector(s).getBoundingClientRect();
  const header = document.querySelector('.site-header');
  const edge = header.getBoundingClientRect().right - parseFloat(getComputedStyle(header).paddingRight);
  const [brand, nav, switcher] = ['.brand', '.site-nav', '.language-switch'].map(box);
  return {
    after_name: nav.left - brand.right, before_switcher: switcher.left - nav.right,
    short_of_edge: edge - switcher.right,
    under: switcher.top >= brand.bottom - 1,
  };
}"""


@pytest.mark.parametrize("language", ["de", "fr"])
def test_on_a_tablet_the_switcher_under_the_links_stays_at_the_right(
    new_page: Any, live_site: LiveSite, language: str
) -> None:
    """At 640 px the German and French links leave the switcher no room beside them: it goes
    under them, at the header's right edge, not under the site's name. On a desktop, one line,
    the links stay midway between the name and the switcher."""
    page = new_page(width=640, height=800, locale=LOCALES[language])
    page.goto(live_site.url + "/")
    shot(page, f"header-{language}-640")
    parts = page.evaluate(HEADER_PARTS)
    assert parts["under"], parts
    assert abs(parts["short_of_edge"]) < 1, parts
    page.set_viewport_size({"width": 1280, "height": 800})
    parts = page.evaluate(HEADER_PARTS)
    assert not parts["under"], parts
    assert abs(parts["after_name"] - parts["before_switcher"]) < 2, parts


# What a page shows a reader: its text, and the names and hints read out or shown on hover (with
# script, not what a <noscript> holds; without it, that too). Code (a seed, a room code, the
# fairness page's program) is left out: it is the same in every language; so are the boards' players'
# names (accounts of other tests on the same site).
SHOWN_TEXT = """(scripted) => {
  const out = [];
  const hidden = `script,style,template,[hidden],code,pre,kbd,.code,td.name${scripted ? ',noscript' : ''}`;
  const skip = (el) => !el || el.closest(hidden);
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  // A box name's last word is a span of its own with its info mark (scorecard.js markedName): the
  // name is one run, as it reads.
  const end = (node) => node?.nodeType === 1 && node.classList.contains('box-name-end');
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    // Told with the words before it, where there are some.
    if (end(n.parentElement) && n.parentElement.previousSibling?.nodeType === 3) continue;
    const text = end(n.nextSibling) ? n.textContent + n.nextSibling.textContent : n.textContent;
    if (!skip(n.parentElement) && text.trim()) out.push(text.trim());
  }
  for (const el of document.querySelectorAll('[title],[aria-label],[placeholder],[alt]')) {
    if (skip(el)) continue;
    for (const name of ['title', 'aria-label', 'placeholder', 'alt']) {
      if (el.getAttribute(name)) out.push(el.getAttribute(name).trim());
    }
  }
  out.push(document.title.trim());
  return out;
}"""

# What the site's languages say alike: the site's and the languages' own names, the game's and
# its rule sets' names, box names every language took from English, key names, loan words, a room
# code's shape and the fairness page's formula.
SAID_ALIKE = {
    "abcd-efgh-jk", 'HMAC-SHAN(key = seed, message = "{room code}:{client_seed}:{n}:{block}")',
    "Yahtzee Rooms", "English", "Dansk", "Svenska", "Deutsch", "Français", "Español",
    "Yahtzee", "Yahtzee +", "Yatzy", "Triple Yahtzee", "Bonus", "Bonus.", "Chance", "Full House", "Flush",
    "Palette", "joker", "Total", "total N", "Tab", "Enter", "Home", "End",
    "Chat", "Coach", "online", "(online)", "Expert", "Casual", "Passkeys", "Message", "Send", "hold ·",
    "N minute", "N minutes", "Error N", "Rating",
}  # fmt: skip


def shown_text(page: Any, scripted: bool = True) -> set[str]:
    """Each run of words a page shows (numbers as N), that has a word of three letters or more."""
    runs = {re.sub(r"\d+", "N", " ".join(text.split())) for text in page.evaluate(SHOWN_TEXT, scripted)}
    return {run for run in runs if re.search(r"[^\W\d_]{3,}", run)}


def walk(page: Any, site: LiveSite, finished: str, name: str) -> dict[str, set[str]]:
    """The text of every page a player meets, signed out and in, a game in its lobby and under way."""
    seen: dict[str, set[str]] = {}
    for key, path in [
        ("home", "/"), ("rules", "/rules"), ("fair dice", "/fairness"), ("your games", "/games"),
        ("leaderboards", "/leaderboards"), ("leaderboard", "/leaderboards/official"),
        ("sign-in", "/accounts/login/"), ("404", "/no-such-page"),
        ("game over", f"/r/{finished}/"), ("replay", f"/r/{finished}/replay"),
        ("its fair dice", f"/r/{finished}/fairness"),
    ]:  # fmt: skip
        page.goto(site.url + path)
        if key == "game over":
            page.wait_for_selector("#conn[data-state=connected]")
        seen[key] = shown_text(page)
    page.goto(site.url + "/accounts/signup/")
    seen["sign-up"] = shown_text(page)
    page.fill("input[name=username]", name)
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("form[action='/accounts/signup/'] button[type=submit]")
    page.wait_for_url(f"**/u/{name}/")
    seen["profile"] = shown_text(page)
    page.goto(site.url + "/me/settings")
    seen["settings"] = shown_text(page)
    create_online(page, site, name)
    seen["lobby"] = shown_text(page)
    start(page, [page])
    act(page, [page], lambda: page.click("#roll"))
    seen["table"] = shown_text(page)
    return seen


def walk_without_script(page: Any, site: LiveSite) -> dict[str, set[str]]:
    """The text of the no-script table: a room made from the home page's form, its lobby, a turn."""
    seen: dict[str, set[str]] = {}
    page.goto(site.url + "/")
    page.check("input[name=mode][value=online]")
    page.fill("#id_name", "Jo")  # a name too short to be taken for a word
    for key, button in [
        ("no-script lobby", "#create-btn"),
        ("no-script table", "#ns-start"),
        ("no-script roll", "#ns-roll"),
    ]:
        with page.expect_navigation():
            page.click(button)
        seen[key] = shown_text(page, scripted=False)
    return seen


def test_no_page_shows_a_reader_of_another_language_the_english_pages_words(new_page: Any, live_site: LiveSite) -> None:
    """Each page a player meets, walked in English and in each other language (the room without
    script too): a run of words a page shows (or names a control with) in Danish, Swedish,
    German, French or Spanish that its English page shows too is English left untranslated,
    unless the languages say it alike."""
    finished = live_site.finished_game()
    english = walk(new_page(locale="en-US"), live_site, finished, f"en{uuid.uuid4().hex[:6]}")
    english |= walk_without_script(new_page(locale="en-US", java_script_enabled=False), live_site)
    # The walk reads the table with script and without it.
    assert "Roll again" in english["table"] and {"Roll again", "N rolls left"} <= english["no-script roll"], english
    left = {}
    for language in ("da", "sv", "de", "fr", "es"):
        seen = walk(new_page(locale=LOCALES[language]), live_site, finished, f"{language}{uuid.uuid4().hex[:6]}")
        seen |= walk_without_script(new_page(locale=LOCALES[language], java_script_enabled=False), live_site)
        for key, runs in seen.items():
            found = sorted(runs & english[key] - SAID_ALIKE)
            if found:
                left[(language, key)] = found
    assert left == {}


# The words of a page's tables that a line break cuts in two: a word (six letters or more, no
# hyphen of its own) whose letters lie on more than one line of its cell.
CUT_WORDS = """() => {
  const cut = [];
  for (const cell of document.querySelectorAll('main td, main th')) {
    const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      for (const m of n.textContent.matchAll(/[^\\s\\-–]{6,}/g)) {
        const r = document.createRange();
        r.setStart(n, m.index);
        r.setEnd(n, m.index + m[0].length);
        const lines = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
        if (lines.size > 1) cut.push(m[0]);
      }
    }
  }
  return cut;
}"""


@pytest.mark.parametrize("language", list(LOCALES))
def test_the_rules_tables_keep_their_words_whole_on_a_phone(new_page: Any, live_site: LiveSite, language: str) -> None:
    """Each rule set's table of boxes on a 390 px phone: a box's name ("Dreierpasch", "Chance"),
    the heading "Beispiel" are never cut in two ("Dreierpas" over "ch"), in any language: a
    column is at least as wide as its longest word. Hyphenation is turned off here, so that a
    word split at a syllable where a browser has its language's dictionary does not count."""
    page = new_page(locale=LOCALES[language], width=390, height=844)
    page.goto(live_site.url + "/rules")
    page.add_style_tag(content="main td, main th { hyphens: manual !important; }")
    assert page.eval_on_selector_all("main td", "cells => cells.length") > 50
    assert page.evaluate(CUT_WORDS) == []
    shot(page, f"rules-tables-{language}-390", full_page=True)
    assert no_horizontal_overflow(page)


# An account's request for its e-mails to go to an address, waiting for the link sent there: the
# token of that link.
_PENDING_CONFIRMATION = """
import secrets
from django.contrib.auth import get_user_model
from django.utils import timezone
from games.services.subscriptions import confirm_token
from games.store.models import NoticeSettings
user = get_user_model().objects.create_user(username="hyphen-" + secrets.token_hex(4), password="x")
nonce = secrets.token_urlsafe(32)
NoticeSettings.objects.create(
    user=user, pending_address="lea@example.org", pending_nonce=nonce, pending_language="fr", pending_at=timezone.now()
)
result = confirm_token(nonce)
"""

# The lines a word of an element's text is drawn on: the distinct tops of its boxes.
_WORD_LINES = """([selector, word]) => {
  const walker = document.createTreeWalker(document.querySelector(selector), NodeFilter.SHOW_TEXT);
  const text = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) text.push(node);
  const whole = text.map((node) => node.data).join("");
  const at = whole.indexOf(word);
  if (at < 0) return -1;
  const range = document.createRange();
  let seen = 0;
  for (const node of text) {
    const end = seen + node.data.length;
    if (at >= seen && at < end) range.setStart(node, at - seen);
    if (at + word.length > seen && at + word.length <= end) range.setEnd(node, at + word.length - seen);
    seen = end;
  }
  return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
}"""


def test_a_headings_hyphenated_word_stays_whole_on_a_phone_and_a_desktop(new_page: Any, live_site: LiveSite) -> None:
    """A line broken after the hyphen of "e-mails" leaves "e-" at one line's end and "mails" on the
    next: a heading keeps a hyphenated word on one line, in every language, on a phone as on a
    desktop (its other words wrap as they do)."""
    token = live_site.run(_PENDING_CONFIRMATION)
    for width, height in ((390, 844), (1280, 800)):
        page = new_page(width, height, locale="fr-FR")
        page.goto(f"{live_site.url}/notices/email/confirm/{token}")
        assert page.inner_text("#confirm-h") == "Envoyer ici les e-mails de vos parties\u202f?"
        assert page.evaluate(_WORD_LINES, ["#confirm-h", "e-mails"]) == 1, f"at {width} px"
        assert no_horizontal_overflow(page)
        for scheme in in_each_scheme(page):
            shot(page, f"confirm-heading-fr-{width}-{scheme}")


# Whether an element's text is drawn on one line: its text's boxes all have the same top.
_ONE_LINE = """(element) => {
  const range = document.createRange();
  range.selectNodeContents(element);
  return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size === 1;
}"""


@pytest.mark.parametrize("language", ["de", "es"])
def test_the_lobbys_start_button_keeps_its_words_on_one_line_on_a_phone(
    new_page: Any, live_site: LiveSite, language: str
) -> None:
    """At 390 px the host's "Spiel mit 5 Mitspielenden starten" ("Empezar la partida con 5
    jugadores") broke onto two lines inside its pill: the lobby's big button is set smaller on a
    phone, its words on one line; so is the room's without script."""
    page = new_page(390, 844, locale=LOCALES[language])
    room = create_online(page, live_site, "Ana")
    for seats in range(2, 6):
        act(page, [page], lambda: page.click("#add-bot"))
        seated(page, seats)
    plain = new_page(390, 844, locale=LOCALES[language], java_script_enabled=False)
    plain.context.add_cookies(page.context.cookies(live_site.url))
    plain.goto(room + "?refresh=off")  # the lobby without script looks again every few seconds: held still
    for each, button in ((page, "#start"), (plain, "#ns-start")):
        start_button = each.locator(button)
        assert "5" in start_button.inner_text()
        assert start_button.evaluate(_ONE_LINE), start_button.inner_text()
        assert no_horizontal_overflow(each)
    # axe-core runs in the page's script: the page with script is checked.
    for scheme in in_each_scheme(page):
        shot(page, f"lobby-start-{language}-390-{scheme}")
        assert serious_violations(page, scheme) == []
    for scheme in in_each_scheme(plain):
        shot(plain, f"lobby-start-{language}-390-noscript-{scheme}")


def test_the_sign_in_pages_buttons_keep_their_words_on_one_line_on_a_phone(new_page: Any, live_site: LiveSite) -> None:
    """At 390 px French's "Se connecter avec une clé d'accès" (allauth's) and Spanish's "Iniciar
    sesión con una llave de acceso" broke onto two lines of the passkey button: the site's own,
    shorter words fit, as do every language's other buttons."""
    page = new_page(390, 844)
    for language, locale in LOCALES.items():
        page.context.set_extra_http_headers({"Accept-Language": locale})
        page.goto(live_site.url + "/accounts/login/")
        assert page.get_attribute("html", "lang") == language
        buttons = page.locator("main button:visible")
        assert buttons.count() >= 2, language  # the password's and the passkey's
        for index in range(buttons.count()):
            button = buttons.nth(index)
            assert button.evaluate(_ONE_LINE), (language, button.inner_text())
        assert no_horizontal_overflow(page), language
        if language in ("fr", "es"):
            for scheme in in_each_scheme(page):
                shot(page, f"sign-in-{language}-390-{scheme}")


# A pass-and-play room of the page's browser (its session made here), its first roll made.
_ROLLED_LOCAL_ROOM = """
from importlib import import_module
from django.conf import settings
from games import services
from tests.factories import action_id
session = import_module(settings.SESSION_ENGINE).SessionStore()
session["controller"] = services.new_controller()
session.save()
code = services.local_game_create(names=["Ana", "Ben"], controller=session["controller"]).code
services.turn_roll(code=code, controller=session["controller"], expected_version=None, action_id=action_id())
result = [code, session.session_key]
"""


def test_without_script_the_rolls_left_stay_whole_beside_the_roll_button_on_a_phone(
    new_page: Any, live_site: LiveSite
) -> None:
    """Without script at 390 px, the German "noch 2 Würfe" after "Noch einmal werfen" broke after
    "noch 2", "Würfe" alone under the button: the words go under it together, or stay beside it."""
    code, key = live_site.run(_ROLLED_LOCAL_ROOM)
    page = new_page(390, 844, locale="de-DE", java_script_enabled=False)
    page.context.add_cookies([{"name": "sessionid", "value": key, "url": live_site.url}])
    page.goto(f"{live_site.url}/r/{code}/?refresh=off")  # held still: it looks again every few seconds
    left = page.locator("#ns-rolls-left")
    assert left.inner_text() == "noch 2 Würfe"
    assert left.evaluate(_ONE_LINE)
    assert no_horizontal_overflow(page)
    for scheme in in_each_scheme(page):
        shot(page, f"noscript-rolls-left-de-390-{scheme}")


# The chat field's hint: how wide its words are drawn in the field's font, and how wide the field
# leaves them (its content box).
_PLACEHOLDER_ROOM = """() => {
  const field = document.getElementById('chat-text'), style = getComputedStyle(field);
  const measure = document.createElement('canvas').getContext('2d');
  measure.font = style.font;
  return {
    hint: field.placeholder,
    needs: measure.measureText(field.placeholder).width,
    has: field.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
    picker: !document.getElementById('chat-seat').hidden,
  };
}"""


@pytest.mark.parametrize("language", list(LOCALES))
def test_the_chat_fields_hint_shows_whole_beside_the_name_picker(
    new_page: Any, live_site: LiveSite, language: str
) -> None:
    """A pass-and-play table shows who is talking in a picker beside the chat field, as wide as
    its longest name allows: on a phone, and in a desktop's side column, the field left its hint
    cut ("Say something", "Schreib etwas", "Dites quelque c"). The hint shows whole, at both."""
    page = new_page(390, 844, locale=LOCALES[language])
    local_room(page, live_site, ["Ann", "Cyrille-Éléonore"])
    assert page.get_attribute("html", "lang") == language
    for width, height in ((390, 844), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        fit = page.evaluate(_PLACEHOLDER_ROOM)
        assert fit["picker"], fit
        assert fit["needs"] <= fit["has"], (language, width, fit)
        for scheme in in_each_scheme(page):
            shot(page, f"chat-hint-{language}-{width}-{scheme}", full_page=True)

"""Pages around the table in a real browser: the home form's seat count, error pages, the replay."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import (
    NAME_LEFT,
    create_local,
    create_online,
    finished_named_game,
    in_each_scheme,
    light_boxes_in_the_dark,
    no_horizontal_overflow,
    rendered,
    serious_violations,
    shot,
)

pytestmark = pytest.mark.browser


def test_pass_and_play_seats_are_checked_before_the_form_is_sent(live_site: LiveSite, new_page: Any) -> None:
    page = new_page()
    page.goto(live_site.url + "/")
    page.check("input[name=mode][value=local]")
    assert "computers included" in page.inner_text("#seats-rule")
    page.fill("#id_players", "3")
    page.fill("#id_bots", "1")
    assert page.inner_text("#seats-total") == "4 seats: 3 people and 1 computer."
    page.fill("#id_players", "8")
    page.fill("#id_bots", "7")
    message = page.inner_text("#seats-total")
    assert "at most 8 players, computers included" in message and "room for 0 computers" in message
    assert page.eval_on_selector("#id_bots", "el => el.validationMessage") == message
    page.click("#create-btn")
    assert page.url == live_site.url + "/"  # the browser kept the form: nothing was sent
    # Sent all the same, the server refuses it: its message and the live one are not both shown.
    page.eval_on_selector("#create-form", "form => { form.noValidate = true; }")
    with page.expect_navigation():
        page.click("#create-btn")
    page.wait_for_selector("#seats-total.error")
    shown = page.locator(".local-only .error:visible, #seats-total.error:visible")
    assert shown.count() == 1, shown.all_inner_texts()
    # ... nor both read on the field: it is described by the live one alone (the hidden one still would be).
    assert page.get_attribute("#id_bots", "aria-invalid") == "true"
    assert page.get_attribute("#id_bots", "aria-describedby") == "seats-rule seats-total"
    assert [e for e in page.errors if "the server responded with a status of 400" not in e] == []
    page.errors.clear()  # the refusal's own 400
    page.fill("#id_bots", "0")
    assert page.eval_on_selector("#create-form", "form => form.checkValidity()")
    assert page.inner_text("#seats-total") == "8 seats: 8 people."
    # The server's refusal was of the counts sent: on the corrected field it is neither shown nor read.
    assert page.locator("#bots-error").is_hidden(), page.inner_text("#bots-error")
    assert page.get_attribute("#id_bots", "aria-invalid") == "false"
    assert "bots-error" not in (page.get_attribute("#id_bots", "aria-describedby") or "")
    assert page.errors == []


def test_the_seat_check_says_one_person_leaves_room_as_many_people_leave_it(live_site: LiveSite, new_page: Any) -> None:
    """The verb of "people leave room for" agrees with how many people there are: one person leaves
    room, two people leave it (and a German Person "lässt" where Personen "lassen")."""
    page = new_page()
    page.goto(live_site.url + "/")
    page.check("input[name=mode][value=local]")
    page.fill("#id_players", "1")
    page.fill("#id_bots", "8")
    assert "1 person leaves room for 7 computers." in page.inner_text("#seats-total")
    page.fill("#id_players", "2")
    assert "2 people leave room for 6 computers." in page.inner_text("#seats-total")
    assert page.errors == []


def test_a_refused_count_of_people_shows_one_message_and_is_read_once(live_site: LiveSite, new_page: Any) -> None:
    """9 people on one device, sent past the browser's check: the server's "Choose 1 to 8 people."
    gives way to the page's own, which says the same (not "room for -1 computers")."""
    page = new_page()
    page.goto(live_site.url + "/")
    page.check("input[name=mode][value=local]")
    page.eval_on_selector("#create-form", "form => { form.noValidate = true; }")
    page.fill("#id_players", "9")
    assert page.inner_text("#seats-total") == "Choose 1 to 8 people."
    with page.expect_navigation():
        page.click("#create-btn")
    page.wait_for_selector("#seats-total.error")
    page.errors.clear()  # the refusal's own 400
    shown = page.locator(".local-only .error:visible, #seats-total.error:visible")
    assert shown.all_inner_texts() == ["Choose 1 to 8 people."]
    assert "players-error" not in (page.get_attribute("#id_players", "aria-describedby") or "")
    assert page.get_attribute("#id_players", "aria-invalid") == "true"
    page.fill("#id_players", "4")
    assert page.inner_text("#seats-total") == "4 seats: 4 people."
    assert page.locator("#players-error").is_hidden()
    assert page.errors == []


def test_a_choice_the_home_form_hid_does_not_refuse_it(live_site: LiveSite, new_page: Any) -> None:
    """Ann looks at "At your own pace" online, then plays on this device: the pace is hidden, and
    is not sent ("A game played on one device is live"). Ben types a long second name for a game
    on this device, then makes an online room: the names are hidden, and not sent ("Player 2:
    at most 24 characters")."""
    page = new_page()
    page.goto(live_site.url + "/")
    page.check("input[name=mode][value=online]")
    page.check("input[name=pace][value=own]")
    page.check("input[name=mode][value=local]")
    assert page.locator("#paces").is_hidden()
    page.fill("#id_players", "2")
    page.click("#create-btn")
    page.wait_for_load_state()
    assert page.locator("#form-errors").count() == 0, page.inner_text("#form-errors")
    page.wait_for_selector("#roll")
    page.goto(live_site.url + "/")
    page.check("input[name=mode][value=local]")
    page.fill("#id_players", "2")
    page.fill("#id_player_2", "Bartholomew the Magnificent")  # 27 letters: the field takes more than a name keeps
    page.check("input[name=mode][value=online]")
    page.fill("#id_name", "Ben")
    page.click("#create-btn")
    page.wait_for_load_state()
    assert page.locator("#form-errors").count() == 0, page.inner_text("#form-errors")
    page.wait_for_selector("#lobby:not([hidden])")
    assert page.errors == []


def test_the_home_form_and_a_refused_room_code_have_no_serious_accessibility_violations(
    live_site: LiveSite, new_page: Any
) -> None:
    page = new_page()
    page.goto(live_site.url + "/")
    page.check("input[name=mode][value=local]")
    page.fill("#id_players", "8")
    page.fill("#id_bots", "3")
    for scheme in in_each_scheme(page):
        assert serious_violations(page, scheme) == [], scheme
    page.fill("#id_code", "ab/cd")
    page.click("text=Open room")
    page.wait_for_selector("#code-error")
    assert "not a room link" in page.inner_text("#code-error")
    for scheme in in_each_scheme(page):
        assert serious_violations(page, scheme) == [], scheme
    # A create form refused for a field: its error beside it, in the part the page shows again.
    page.check("input[name=mode][value=local]")
    page.fill("#id_players", "3")
    page.fill("#id_player_2", "x" * 40)
    page.click("#create-btn")
    page.wait_for_selector("#player_2-error")
    assert page.locator("#player_2-error").is_visible() and page.is_enabled("#id_player_2")
    assert page.evaluate("document.activeElement.id") == "id_player_2"
    for scheme in in_each_scheme(page):
        assert serious_violations(page, scheme) == [], scheme


def test_a_refused_create_form_puts_the_keyboard_on_the_field_to_put_right_and_keeps_every_choice(
    live_site: LiveSite, new_page: Any
) -> None:
    """A name of spaces passes the browser's check and is refused by the server: the page comes back
    with the keyboard on the name, read with why, and the other choices as they were."""
    page = new_page()
    page.goto(live_site.url + "/")
    page.fill("#id_name", "   ")
    page.check("input[name=ruleset][value=yatzy]")
    page.check("input[name=pace][value=own]")
    page.check("#id_chat_spectators")
    page.uncheck("#id_hints")
    with page.expect_navigation():
        page.click("#create-btn")
    assert page.inner_text("#name-error") == "Please enter your name: the other players will see it."
    assert page.evaluate("document.activeElement.id") == "id_name"
    assert page.get_attribute("#id_name", "aria-describedby") == "name-error"
    assert page.is_checked("input[name=ruleset][value=yatzy]") and page.is_checked("input[name=pace][value=own]")
    assert page.is_checked("#id_chat_spectators") and not page.is_checked("#id_hints")
    assert page.is_visible("#id_move_time") and not page.is_visible("#id_turn_timer")


def finished_game(site: LiveSite, players: int = 2, seed: int = 1, ruleset: str = "official") -> str:
    """A game played to the end through the services, in the live site's own database (shared: read only)."""
    return site.finished_game(players, seed, ruleset)


def step_text(page: Any) -> str:
    return str(page.inner_text("#step-text"))


def test_a_newcomer_goes_from_the_rule_set_they_picked_to_its_rules(live_site: LiveSite, new_page: Any) -> None:
    page = new_page(390, 844, has_touch=True, is_mobile=True)
    page.goto(live_site.url + "/")
    with page.expect_navigation():
        page.click("#rulesets-help")
    assert page.url == live_site.url + "/rules"
    create_online(page, live_site, "Ann", "triple")
    shot(page, "lobby-rules-link-390")
    with page.expect_navigation():
        page.click("#ruleset-rules")
    assert page.url == live_site.url + "/rules#triple"
    assert page.locator("h2#triple").is_visible() and page.locator("h2#triple").inner_text() == "Triple Yahtzee"
    assert page.evaluate("document.getElementById('triple').getBoundingClientRect().top") < 100


def test_the_replay_steps_through_a_finished_game_with_buttons_and_keys(live_site: LiveSite, new_page: Any) -> None:
    code = finished_game(live_site)
    page = new_page()
    page.goto(f"{live_site.url}/r/{code}/replay")
    total = int(page.inner_text("#position").rsplit(" ", 1)[-1])
    assert page.inner_text("#position") == f"Step 1 of {total}" and total > 50
    assert step_text(page).startswith("The game starts: P0, P1")
    assert page.is_disabled("#prev") and page.is_disabled("#first")
    page.click("#next")
    assert page.inner_text("#position") == f"Step 2 of {total}"
    assert re.match(r"P0 rolls [1-6](, [1-6]){4} \(roll 1 of 3\)\.", step_text(page))
    assert page.locator("#step-dice .rdie").count() == 5
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#position") == f"Step 4 of {total}"
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#position") == f"Step 3 of {total}"
    # Forward to P0's first score: the box just scored is marked on the card, with the coach's verdict.
    while "scores" not in step_text(page):
        page.keyboard.press("ArrowRight")
    assert page.locator("#card td.just").count() == 1
    assert page.locator("#card td.just").inner_text() == re.search(r"scores (\d+)", step_text(page)).group(1)
    assert page.inner_text("#step-verdict").startswith("Coach:")
    page.keyboard.press("End")
    assert page.inner_text("#position") == f"Step {total} of {total}"
    assert re.search(r"\b(wins|win) with \d+ points", step_text(page))  # one winner, or a tie
    assert page.is_disabled("#next")
    assert page.locator("#card tr.grand td").count() == 2
    page.click("#first")
    assert page.inner_text("#position") == f"Step 1 of {total}"
    # A costly choice in the review (under its player's line, opened) opens its step.
    link = page.locator("a[data-move]").first
    if link.count():
        assert link.get_attribute("href") == f"#move-{link.get_attribute('data-move')}"  # a link, reached by Tab
        page.locator("details.review-fold").first.locator("summary").click()
        chosen = link.inner_text()
        link.click()
        assert chosen.rstrip(".") in page.inner_text("#step-verdict")
    assert page.errors == []


@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)])
def test_without_script_the_replay_offers_no_step_controls_that_do_nothing(
    live_site: LiveSite, new_page: Any, width: int, height: int
) -> None:
    """The replay steps through the game with script only. Without it, step buttons, a slider and
    keys would do nothing under a "Loading the game…" that never ends: the page says that stepping
    needs JavaScript, and shows the coach's review."""
    code = finished_game(live_site)
    page = new_page(width, height, java_script_enabled=False)
    page.goto(f"{live_site.url}/r/{code}/replay")
    for dead in ("#first", "#prev", "#next", "#last", "#scrub", ".replay-keys", "#step-text", "#card"):
        assert not page.locator(dead).is_visible(), dead
    said = page.locator("#replay p.error")
    assert said.is_visible() and said.inner_text() == "Stepping through the replay needs JavaScript."
    assert page.locator("#review-h").is_visible()
    # A costly choice is a link to its step only where the script can show that step: without it
    # the link went to an anchor that is not there, a stop of the keyboard that did nothing.
    page.locator("details.review-fold").first.locator("summary").click()
    chosen = page.locator(".costly .c-choice a[data-move]").first
    assert chosen.is_visible() and chosen.get_attribute("href") is None
    assert page.locator(".costly a[href]").count() == 0
    assert page.get_by_text("Loading the game").is_hidden()
    read = page.locator("main").aria_snapshot()
    assert "Loading" not in read, read
    # Nor does the review ask the reader to pick a choice to see it in the replay.
    assert "Pick one" not in read and page.get_by_text("Expected points each choice gave up").is_visible()
    shot(page, f"replay-without-script-{width}")


@pytest.mark.parametrize("width", [320, 390])
def test_the_replays_room_code_stays_on_one_line_on_a_narrow_phone(
    live_site: LiveSite, new_page: Any, width: int
) -> None:
    """The header's room code (abcd-efgh-jk) is read and typed as one word: it wraps as a whole,
    never at its hyphens."""
    code = finished_game(live_site)
    page = new_page(width, 720)
    for language in ("en", "da", "sv", "de", "fr", "es"):  # the words around the code differ in length
        page.set_extra_http_headers({"Accept-Language": language})
        page.goto(f"{live_site.url}/r/{code}/replay")
        lines = page.eval_on_selector(".replay-head h1 code", "c => c.getClientRects().length")
        assert lines == 1, (width, language, page.inner_text(".replay-head h1"))
        assert no_horizontal_overflow(page), (width, language)
        shot(page, f"replay-head-{width}-{language}")


@pytest.mark.parametrize("width", [320, 390])
def test_the_fair_dice_pages_room_code_stays_on_one_line_on_a_narrow_phone(
    live_site: LiveSite, new_page: Any, width: int
) -> None:
    """The room's fair-dice page names its room in its heading ("Faire Würfel in Raum
    byvq-nbbk-ak"): the code broke at its last hyphen, "ak" alone on the next line. It wraps as a
    whole, as the replay's does."""
    code = finished_game(live_site)
    page = new_page(width, 720)
    for language in ("en", "da", "sv", "de", "fr", "es"):
        page.set_extra_http_headers({"Accept-Language": language})
        page.goto(f"{live_site.url}/r/{code}/fairness")
        lines = page.eval_on_selector("main h1 .code", "c => c.getClientRects().length")
        assert lines == 1, (width, language, page.inner_text("main h1"))
        assert no_horizontal_overflow(page), (width, language)
    for scheme in in_each_scheme(page):
        shot(page, f"fairness-head-{width}-es-{scheme}")
        assert serious_violations(page, scheme) == []


def test_the_replay_of_eight_players_keeps_the_step_s_seat_and_at_the_end_the_winner_in_view(
    live_site: LiveSite, new_page: Any
) -> None:
    """Eight players' card is wider than a laptop's place for it: it scrolls sideways."""
    code = finished_game(live_site, players=8)
    page = new_page(1280, 800)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_selector("#card table")
    in_view = """seat => { const wrap = document.querySelector('#card .scorecard-wrap');
      const head = wrap.querySelector(`th.seat-head[data-seat="${seat}"]`).getBoundingClientRect();
      const box = wrap.getBoundingClientRect();
      return wrap.scrollWidth > wrap.clientWidth && head.left >= box.left - 1 && head.right <= box.right + 1; }"""
    page.keyboard.press("End")
    # The first winner's (a tie of the random game's is "P6 & P7 win with 63 points.").
    winner = re.match(r"P(\d)(?:(?:, | & )P\d)* wins? ", step_text(page))
    assert winner, step_text(page)
    assert page.evaluate(in_view, int(winner.group(1)))
    # Scrolled away from it, the next step about a seat brings that seat back.
    page.click("#first")
    page.evaluate("document.querySelector('#card .scorecard-wrap').scrollLeft = 10000")
    while not re.match(r"P0 ", step_text(page)):
        page.click("#next")
    assert page.evaluate(in_view, 0)
    assert page.errors == []


def test_replay_fairness_and_error_pages_have_no_serious_accessibility_violations(
    live_site: LiveSite, new_page: Any, tmp_path: Path
) -> None:
    code = finished_game(live_site, players=3, seed=5)
    page = new_page()
    for width, height in ((1280, 800), (390, 844)):
        # Sized before it loads: laid out as a page opened at that size.
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{live_site.url}/r/{code}/replay")
        # The review's first costly choice (its player's line opened): its step, dice and verdict.
        page.locator("details.review-fold").first.locator("summary").click()
        page.click("a[data-move]")
        page.wait_for_selector(".verdict.costly:not([hidden])")
        for scheme in in_each_scheme(page):
            assert serious_violations(page, scheme) == [], (width, scheme)
            shot(page, f"replay-{width}-{scheme}")
            if scheme == "dark":  # the costly verdict and a computer's tag follow the theme
                boxes = [(".replay-step", "div", "verdict costly"), ("#step-text", "span", "tag-computer")]
                assert light_boxes_in_the_dark(page, boxes) == [], width
        assert no_horizontal_page_scroll(page)
        # The coach's review fits the phone: no column of it (the points lost) behind a sideways scroll.
        wide = page.eval_on_selector_all(
            "table.costly",
            "ts => ts.filter(t => t.scrollWidth > t.parentElement.clientWidth + 1).map(t => t.scrollWidth)",
        )
        assert wide == [], (width, wide)
        # On a phone each choice is a block whose first line reads "Round 1 · 1 4 1 2 4", as at game over.
        between = page.eval_on_selector("table.costly td.c-dice", "td => getComputedStyle(td, '::before').content")
        assert ("·" in between) == (width < 640), (width, between)
        page.locator("table.costly").first.scroll_into_view_if_needed()
        shot(page, f"replay-{width}-review")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_site.url}/r/{code}/fairness")
    assert page.locator(f"a[href='/r/{code}/replay']").count() == 1
    for scheme in in_each_scheme(page):
        assert serious_violations(page, scheme) == [], scheme
    page.goto(f"{live_site.url}/r/zzzzzzzzzz/")
    assert "No room has that code" in page.inner_text("main")
    for scheme in in_each_scheme(page):
        assert serious_violations(page, scheme) == [], scheme
    page.goto(f"{live_site.url}/r/{code}/nope-not-a-page/deeper")
    for scheme in in_each_scheme(page):
        assert serious_violations(page, scheme) == [], scheme


def no_horizontal_page_scroll(page: Any) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


@pytest.mark.parametrize("language", ["en", "de", "fr", "es", "da", "sv"])
def test_the_rules_tables_fit_a_phone_in_every_language(live_site: LiveSite, new_page: Any, language: str) -> None:
    """Long words break at their syllables (the page's lang says where), so no column is cut off."""
    page = new_page(390, 844, locale=language)
    page.goto(f"{live_site.url}/rules")
    assert page.get_attribute("html", "lang") == language
    wide = page.eval_on_selector_all(
        ".doc table", "ts => ts.filter(t => t.scrollWidth > t.clientWidth + 1).map(t => [t.scrollWidth, t.clientWidth])"
    )
    assert page.locator(".doc table").count() >= 2 and wide == []


def test_the_rules_and_fair_dice_pages_read_well_on_a_phone_and_a_desktop(
    live_site: LiveSite, new_page: Any, tmp_path: Path
) -> None:
    page = new_page()
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        for name in ("rules", "fairness"):
            page.goto(f"{live_site.url}/{name}")
            assert page.locator("main h1").count() == 1
            assert no_horizontal_page_scroll(page), (name, width)
            for scheme in in_each_scheme(page):
                assert serious_violations(page, scheme) == [], (name, width, scheme)
                shot(page, f"{name}-{width}-{scheme}")
        page.goto(f"{live_site.url}/")
        page.click("footer a[href='/rules']")
        page.wait_for_url(f"{live_site.url}/rules")
        # Written for players: each rule set in words, with examples, none of the engine's names.
        text = page.inner_text("main")
        for word in ("test_worked_examples", "apply_reinstate", "ScoreOption", "RuleViolation"):
            assert word not in text, word
        assert "Example." in text and "Questions players ask" in text
        # A rule set's section is at an anchor of its name, for links from the table.
        page.goto(f"{live_site.url}/rules#painted")
        heading = page.locator("h2#painted")
        assert heading.inner_text() == "Painted Yahtzee"
        assert -1 <= heading.bounding_box()["y"] < height / 2  # scrolled to it
        assert page.errors == []


# The card as a player reads it: each pane's sections, and each row's name and cells. Who is
# connected (the live table's, said beside each name) is not the card's: a replay has nobody.
CARD = """() => [...document.querySelectorAll('#card table')].map(table => ({
  sections: [...table.tBodies].map(body => body.dataset.section),
  heads: [...table.tHead.querySelectorAll('th')].map(th => {
    const head = th.cloneNode(true);
    head.querySelectorAll('.presence-label').forEach(label => label.remove());
    return head.textContent.trim();
  }),
  rows: [...table.querySelectorAll('tbody tr')].map(tr => [
    tr.dataset.box || tr.dataset.sum || tr.className,
    tr.querySelector('th').textContent.trim(),
    ...[...tr.querySelectorAll('td')].map(td => td.textContent.trim()),
  ]),
}))"""


# Each colour's paint (site.css and pages.css): a kept die keeps it.
PAINT = {
    "red": "rgb(198, 40, 40)",
    "yellow": "rgb(242, 194, 0)",
    "green": "rgb(46, 125, 50)",
    "blue": "rgb(30, 91, 216)",
    "purple": "rgb(123, 63, 176)",
}


def test_a_painted_replay_shows_the_card_exactly_as_the_table_does(live_site: LiveSite, new_page: Any) -> None:
    code = finished_game(live_site, players=2, seed=4, ruleset="painted")
    table = new_page(1280, 800)
    table.goto(f"{live_site.url}/r/{code}/")
    table.wait_for_selector("#card table")
    replay = new_page(1280, 800)
    replay.goto(f"{live_site.url}/r/{code}/replay")
    replay.keyboard.press("End")
    assert "points" in step_text(replay)
    at_table, in_replay = table.evaluate(CARD), replay.evaluate(CARD)
    assert in_replay == at_table
    # Two panes: the official boxes, and the colour section beside them with its sum and the total.
    assert [pane["sections"] for pane in in_replay] == [["upper", "lower"], ["colour", "totals"]]
    colour = [row[0] for row in in_replay[1]["rows"]]
    assert colour == ["section", "red", "yellow", "green", "blue", "purple", "four_colour", "painted_house",
                      "rainbow", "flush", "palette", "colour", "grand"]  # fmt: skip
    # The sums add up to the total on the card.
    sums = {row[0]: [int(cell.split("/")[0]) for cell in row[2:]] for pane in in_replay for row in pane["rows"]}
    for seat in range(2):
        parts = ("upper", "upper_bonus", "lower", "yahtzee_bonus", "colour")
        assert sum(sums[key][seat] for key in parts) == sums["grand"][seat]
    # A roll with kept dice: every die shows its colour, the kept ones too (a ring marks them).
    move = replay.evaluate(
        "JSON.parse(document.getElementById('replay-data').textContent).steps"
        ".find(s => s.kind === 'roll' && s.held.length > 0).move"
    )
    replay.goto(f"{live_site.url}/r/{code}/replay#move-{move}")
    replay.reload()  # a new address differing only in its #fragment does not load the page again
    replay.wait_for_selector("#step-dice .rdie.held")
    dice = replay.eval_on_selector_all(
        "#step-dice .rdie",
        "els => els.map(e => [e.className, getComputedStyle(e).backgroundColor, e.querySelector('b').textContent])",
    )
    assert len(dice) == 5
    for classes, background, letter in dice:
        (colour,) = [c.removeprefix("colour-") for c in classes.split() if c.startswith("colour-")]
        assert background == PAINT[colour] and letter == colour[0].upper(), (classes, background)
    label = replay.inner_text("#step-dice .sr-only")  # what a screen reader is given of them
    assert re.fullmatch(r"Dice: [1-6] (red|yellow|green|blue|purple)(, [1-6] (red|yellow|green|blue|purple)){4}", label)
    for page in (table, replay):
        for scheme in in_each_scheme(page):
            assert serious_violations(page, scheme) == [], scheme
    shot(replay, "replay-painted-1280")
    assert table.errors == [] and replay.errors == []


# The card's sections and rows as they read: each row's name and cells, words shown and words
# for a screen reader alike (innerText), for the page with script (#card) and without (.ns-scorecard).
CARD_READ = """selector => [...document.querySelectorAll(selector)].flatMap(table => [...table.tBodies].map(body => [
  body.dataset.section,
  ...[...body.rows].map(tr => [...tr.cells].map(cell => cell.innerText.replace(/\\s+/g, " ").trim())),
]))"""


@pytest.mark.parametrize("ruleset", ["painted", "triple", "official"])
def test_the_card_without_script_reads_as_the_card_with_script(
    live_site: LiveSite, new_page: Any, ruleset: str
) -> None:
    """A spectator's card without script had no "Colours" heading over Painted's colour boxes, and
    its sums bare ("0" where the page with script says "0/63", no "35 at 63" under the bonus):
    its sections, rows and totals read as the page with script's, word for word."""
    code = finished_game(live_site, players=2, seed=SEEDS.get(ruleset, 6), ruleset=ruleset)
    scripted = new_page(1280, 800)
    scripted.goto(f"{live_site.url}/r/{code}/")
    scripted.wait_for_selector("#card table")
    plain = new_page(1280, 800, java_script_enabled=False)
    plain.goto(f"{live_site.url}/r/{code}/")
    with_script, without = scripted.evaluate(CARD_READ, "#card table"), plain.evaluate(CARD_READ, ".ns-scorecard")
    assert without == with_script
    sections = [section[0] for section in without]
    assert ("colour" in sections) == (ruleset == "painted")
    upper_sum = next(row for section in without for row in section[1:] if row[0] == "Upper sum")
    assert all(re.fullmatch(r"\d+/(63|126|189)( ✓, bonus earned)?", cell) for cell in upper_sum[1:]), upper_sum
    for scheme in in_each_scheme(plain):
        shot(plain, f"noscript-card-{ruleset}-1280-{scheme}", full_page=True)
    assert scripted.errors == []


SEEDS = {"official": 1, "painted": 4}
SUMS = ("upper", "upper_bonus", "lower", "yahtzee_bonus", "colour", "total", "grand")


@pytest.mark.parametrize(
    ("ruleset", "sums", "boxes"),
    [
        ("official", ["upper", "upper_bonus", "lower", "yahtzee_bonus", "grand"], 13),
        ("yatzy", ["upper", "upper_bonus", "lower", "grand"], 15),
        ("triple", ["upper", "upper_bonus", "lower", "yahtzee_bonus", "total", "grand"], 13),
        ("painted", ["upper", "upper_bonus", "lower", "yahtzee_bonus", "colour", "grand"], 23),
    ],
)
def test_each_rule_sets_replay_shows_only_the_rows_it_has(
    live_site: LiveSite, new_page: Any, ruleset: str, sums: list[str], boxes: int
) -> None:
    # The same games as the other replay tests: official's of the steps, painted's of the card.
    code = finished_game(live_site, players=2, seed=SEEDS.get(ruleset, 6), ruleset=ruleset)
    page = new_page()
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{live_site.url}/r/{code}/replay")
        page.keyboard.press("End")
        rows = [row[0] for pane in page.evaluate(CARD) for row in pane["rows"]]
        assert page.locator("#card tr[data-box]").count() == boxes
        assert [row for row in rows if row in SUMS] == sums
        assert (page.locator("#card tr.section").count() == 1) == (ruleset == "painted")
        assert no_horizontal_page_scroll(page)
        for scheme in in_each_scheme(page):
            shot(page, f"replay-{ruleset}-{width}-{scheme}")
            assert serious_violations(page, scheme) == [], (width, scheme)
        assert page.errors == []


def test_on_a_phone_a_replay_with_long_names_wraps_them_instead_of_scrolling_sideways(
    live_site: LiveSite, new_page: Any
) -> None:
    """The first step, "The game starts: <names>", wraps names of 24 letters (the longest a seat
    takes; a run of W is the widest) within a 390 px phone, and the card under it stays inside."""
    names = ["Bartholomäus-Maximilian", "W" * 24, "Anne-Kathrin Schmidtmann", "Zoë"]
    code = finished_named_game(live_site, names)
    page = new_page(390, 844)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_selector("#card table")
    page.wait_for_function("document.querySelector('#step-text').textContent.includes('Zoë')", polling=50)
    shot(page, "replay-long-names-390", full_page=True)
    wider = page.eval_on_selector_all(
        ".replay-step, .replay-card",
        """es => es.filter(e => e.getBoundingClientRect().right > innerWidth + 1)
            .map(e => `${e.className}: right edge at ${Math.round(e.getBoundingClientRect().right)} px`)""",
    )
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390 and wider == [], f"the replay is {width} px wide on a 390 px phone; {wider}"
    # The card scrolls sideways under four names: the column of the step's player stays in
    # view, as the seat to play does at the table (the fourth's too, at the card's right edge).
    head = "#card th.seat-head.current[data-seat='3']"
    page.evaluate(  # a step is drawn as its button is clicked
        """s => { const next = document.getElementById('next');
            while (!document.querySelector(s) && !next.disabled) next.click(); }""",
        head,
    )
    shot(page, "replay-phone-fourth-seat")
    where = page.evaluate(
        """s => { const h = document.querySelector(s), w = h.closest('.scorecard-wrap');
            const r = h.getBoundingClientRect(), b = w.getBoundingClientRect();
            return [r.left, r.right, b.left, b.right].map(Math.round); }""",
        head,
    )
    left, right, box_left, box_right = where
    assert left >= box_left - 1 and right <= box_right + 1, f"the acting seat's column {where[:2]} is past {where[2:]}"
    # ... and the four seats' columns fit the phone beside the box names: none under another,
    # no number cut ("17/63").
    page.keyboard.press("End")
    fit = page.evaluate(
        """() => { const w = document.querySelector('#card .scorecard-wrap');
            const heads = [...w.querySelectorAll('th.seat-head')].map(h => h.getBoundingClientRect());
            const cut = [...w.querySelectorAll('td')].filter(c => c.scrollWidth > c.clientWidth + 1)
                .map(c => c.textContent);
            return { over: w.scrollWidth - w.clientWidth, cut,
                     overlap: heads.slice(1).some((r, i) => r.left < heads[i].right - 1) }; }"""
    )
    shot(page, "replay-phone-four-seats-end")
    assert fit["over"] <= 1 and fit["cut"] == [] and not fit["overlap"], fit


# What shows of the card scrolled sideways (where it comes to rest: it snaps to whole columns)
# beside the box names and the pinned seat: each column head partly in view, and whether it is
# whole; each seat with a column in view, and whether its name and its total are whole in view
# over its columns in view (the name as wide as they are, the total one column).
IN_VIEW = """() => {
  const wrap = document.querySelector('#card .scorecard-wrap');
  const box = wrap.getBoundingClientRect();
  const names = wrap.querySelector('th.box-col').getBoundingClientRect();
  const pinned = [...wrap.querySelectorAll('tr.multipliers th.pin')].map(th => th.getBoundingClientRect());
  const from = names.right, to = box.right;
  const hidden = (a, b) => b <= from + 1 || a >= to - 1 || pinned.some(p => a >= p.left - 1 && b <= p.right + 1);
  const whole = (a, b) => a >= from - 1 && b <= to + 1 && !pinned.some(p => a < p.right - 1 && b > p.left + 1);
  const heads = [...wrap.querySelectorAll('tr.multipliers th:not(.pin)')].map(th => th.getBoundingClientRect());
  const seats = {};
  const cols = [...wrap.querySelectorAll('tr.multipliers th')];
  [...wrap.querySelectorAll('th.seat-head:not(.pin)')].forEach(head => {
    const cells = [...head.parentElement.children], at = cells.indexOf(head);
    const first = cells.slice(1, at).reduce((n, th) => n + th.colSpan, 0);
    const mine = cols.slice(first, first + head.colSpan).map(th => th.getBoundingClientRect())
      .filter(r => !hidden(r.left, r.right));
    if (!mine.length) return;
    const total = wrap.querySelector(`tr.grand > :nth-child(${at + 1}) .seat-total`);
    seats[head.title] = [head.querySelector('.seat-head-name'), total].map(e => {
      const r = e.getBoundingClientRect();
      return whole(r.left, r.right) && e.scrollWidth <= e.clientWidth + 1
        && r.left >= Math.min(...mine.map(c => c.left)) - 1 && r.right <= Math.max(...mine.map(c => c.right)) + 1;
    });
  });
  const cut = heads.filter(h => !hidden(h.left, h.right) && !whole(h.left, h.right));
  // A cell whose line runs past its edge draws an ellipsis there: a stray dot beside a name in view.
  const dots = [...wrap.querySelectorAll('th.seat-head:not(.pin), tr.grand td:not(.pin)')]
    .filter(c => c.scrollWidth > c.clientWidth + 1 && getComputedStyle(c).textOverflow === 'ellipsis')
    .map(c => c.title || c.textContent.trim());
  return { left: wrap.scrollLeft, max: wrap.scrollWidth - wrap.clientWidth, seats, dots,
           cut: cut.map(h => [Math.round(h.left), Math.round(h.right)]) };
}"""


def scrolled_to(page: Any, left: int) -> dict[str, Any]:
    """The card scrolled sideways to ``left``, and what then shows (``IN_VIEW``)."""
    page.evaluate("(left) => { document.querySelector('#card .scorecard-wrap').scrollLeft = left; }", left)
    rendered(page)  # its scroll heard: the page fits the names to the columns then in view
    return dict(page.evaluate(IN_VIEW))


def sideways(page: Any) -> list[dict[str, Any]]:
    """The card at every place it comes to rest as it is scrolled sideways, a few pixels at a time."""
    seen, left = [], 0
    while True:
        at = scrolled_to(page, left)
        seen.append(at)
        if left >= at["max"]:
            return seen
        left += 13


def whole_columns_and_names(seen: list[dict[str, Any]]) -> None:
    assert len({at["left"] for at in seen}) > 2, "the card scrolls sideways"
    for at in seen:
        assert at["cut"] == [], f"column heads half under the pinned columns or the box names: {at}"
        assert at["dots"] == [], f"an ellipsis drawn at the edge of these seats' cells: {at}"
        assert at["seats"] and all(name and total for name, total in at["seats"].values()), at


def test_on_a_phone_a_triple_card_scrolled_sideways_names_the_seat_of_every_column_in_view(
    live_site: LiveSite, new_page: Any
) -> None:
    """Three players' Triple card is wider than a phone: it scrolls sideways beside the focus
    seat's three pinned columns. It comes to rest with whole columns beside them, not a column
    half under the pinned ones, and each seat's name and total over its columns in view, not at
    their heads' middles (under the pinned columns, or past the card's edge), in the replay and
    at the table alike (the one scorecard module draws both)."""
    code = finished_named_game(live_site, ["Ann", "Bob", "Cleo"], "triple")
    page = new_page(390, 844)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_selector("#card table")
    for who in ("Ann", "Cleo"):  # pinned at the card's left edge, then at its right
        while not step_text(page).startswith(who):
            page.click("#next")
        page.locator("#card").scroll_into_view_if_needed()
        whole_columns_and_names(sideways(page))
        scrolled_to(page, 60)
        for scheme in in_each_scheme(page):
            shot(page, f"replay-triple-sideways-{who}-390-{scheme}")
    table = new_page(390, 844)
    create_local(table, live_site, ["Ann", "Bob", "Cleo"], ruleset="triple")
    table.locator("#card").scroll_into_view_if_needed()
    whole_columns_and_names(sideways(table))
    scrolled_to(table, 60)
    for scheme in in_each_scheme(table):
        shot(table, f"table-triple-sideways-390-{scheme}")
    # A phone on its side: every seat's columns in view, each name over its own and no more.
    table.set_viewport_size({"width": 667, "height": 375})
    table.locator("#card").scroll_into_view_if_needed()
    for at in sideways(table):
        assert at["dots"] == [] and at["seats"].keys() == {"Bob", "Cleo"}, at
    for scheme in in_each_scheme(table):
        shot(table, f"table-triple-sideways-667-{scheme}")
    assert page.errors == [] and table.errors == []


def test_at_a_triple_games_end_a_phone_that_plays_no_seat_keeps_the_winners_columns_in_view(
    live_site: LiveSite, new_page: Any
) -> None:
    """During play a spectator's phone (and a shared device) keeps the columns of the seat to
    play in view as the Triple card scrolls sideways; at the end no seat is to play, and the
    winner's columns stay, as at the replay's last step, rather than the card scrolling as a
    whole, the box names with it."""
    code = finished_named_game(live_site, ["Ann", "Bob", "Cleo"], "triple")
    page = new_page(390, 844)
    page.goto(f"{live_site.url}/r/{code}/")
    page.wait_for_selector("#card table.triple")
    pinned = page.locator("#card th.seat-head.pin")
    assert pinned.count() == 1, "no seat's columns stay in view"
    assert pinned.get_attribute("title") == page.locator("li.winner .seat-name").first.text_content()
    whole_columns_and_names(sideways(page))
    for scheme in in_each_scheme(page):
        shot(page, f"table-triple-over-390-{scheme}")
    assert page.errors == []


# The phone's Triple card with its sums drawn as static/js/scorecard.js draws them at ``goals``
# (each column's upper sum against its goal, ticked once made) and every seat's total at
# ``total``: the upper sum row's height, and each total shown over another seat's columns that
# runs past its box (scrollWidth over clientWidth).
SUMS_AT = """([sums, total]) => {
  const card = document.querySelector('#card table');
  const row = card.querySelector('tr[data-sum=upper]');
  const goals = [63, 126, 189];
  [...row.cells].slice(1).forEach((cell, i) => {
    const goal = goals[i % 3], value = sums[i % 3], made = value >= goal;
    cell.innerHTML = `${value}<span class="goal ${made ? "made" : ""}">/${goal}${made
      ? '<span aria-hidden="true"> ✓</span><span class="sr-only">, bonus earned</span>' : ""}</span>`;
  });
  card.querySelectorAll('.seat-total').forEach(span => { span.textContent = total; });
  const spilled = [...card.querySelectorAll(':is(.after-pin, .before-pin) .seat-total')]
    .filter(span => span.scrollWidth > span.clientWidth + 1).length;
  return [Math.round(row.getBoundingClientRect().height), spilled];
}"""


def test_on_a_phone_a_triple_card_keeps_its_height_and_whole_totals_as_the_sums_grow(
    live_site: LiveSite, new_page: Any
) -> None:
    """The phone's Triple card gives every column one width, so an upper sum with its goal
    ("135/126 ✓") could take a second line once it grows, and the card grow taller between two
    turns, moving every box below it under the player's finger; and a finished game's four-figure
    total could run past the one column's width kept for another seat's total. The sum row holds
    one height from the first turn to the last, and a total of 1588 shows whole."""
    code = finished_named_game(live_site, ["Ann", "Bob", "Cleo"], "triple")
    page = new_page(390, 844)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_selector("#card table")
    page.click("#next")  # the first roll: Ann's columns pinned
    page.wait_for_selector("#card table.triple th.pin")
    heights = {}
    for sums, total in (([0, 0, 0], "0"), ([24, 48, 12], "312"), ([72, 135, 198], "1588")):
        heights[str(sums)], spilled = page.evaluate(SUMS_AT, [sums, total])
        assert spilled == 0, f"a total of {total} runs past its box"
    assert len(set(heights.values())) == 1, heights
    assert page.errors == []


def test_on_a_phone_a_triple_replays_card_keeps_its_layout_from_the_games_first_step(
    live_site: LiveSite, new_page: Any
) -> None:
    """The replay's first step ("The game starts") is about no seat, so its card pinned none and
    was drawn without the phone's columns of one width: stepping to the first roll changed the
    card's layout and height. It pins the seat that plays first, as the first roll does."""
    code = finished_named_game(live_site, ["Ann", "Bob", "Cleo"], "triple")
    page = new_page(390, 844)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_selector("#card table")
    card = """() => [document.querySelector('#card th.seat-head.pin')?.title,
                     Math.round(document.querySelector('#card').getBoundingClientRect().height)]"""
    assert step_text(page).startswith("The game starts")
    first = page.evaluate(card)
    page.click("#next")
    assert step_text(page).startswith("Ann rolls")
    assert first == page.evaluate(card) == ["Ann", first[1]]
    assert page.errors == []


def test_the_replay_lists_players_with_right_to_left_names_in_seat_order(live_site: LiveSite, new_page: Any) -> None:
    """Two Hebrew names in a row: "The game starts: אבי, שרה, Ann." is drawn "The game starts:
    שרה ,אבי, Ann." on the English page (the comma between two right-to-left words joins them into
    one right-to-left run), so the player of seat 2 reads as the first to play, against the card
    beside it. Each name is a run of its own in the sentence (isolated), as the chat's are."""
    names = ["אבי", "שרה", "Ann"]
    code = finished_named_game(live_site, names)
    page = new_page(1280, 800)
    page.goto(f"{live_site.url}/r/{code}/replay")
    assert page.inner_text("#step-text").startswith("The game starts:")
    first, second, third = page.evaluate(NAME_LEFT, ["#step-text", names])
    assert first < second < third, (page.inner_text("#step-text"), first, second, third)
    # The card beside it has the seats in that order.
    heads = page.eval_on_selector_all("#card table:first-of-type thead th[data-seat]", "ths => ths.map(th => th.title)")
    assert heads == names


def test_a_screen_reader_hears_each_painted_dies_colour_in_the_replay(live_site: LiveSite, new_page: Any) -> None:
    """A Painted roll's step says "P0 rolls 5, 1, 6, 5, 6" and shows coloured dice: the colours are read
    only from the dice, which a screen reader reads as "5 P 1 R 6 P 5 B 6 P" (the letter marks). The
    "Dice: 5 purple, 1 red, ..." label is on a plain div, which screen readers do not announce (and
    the accessibility tree a reader walks does not give)."""
    code = live_site.finished_game(2, 4, "painted")
    page = new_page(1280, 800)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.keyboard.press("ArrowRight")  # the first roll
    assert " rolls " in page.inner_text("#step-text")
    colours = page.eval_on_selector_all("#step-dice .rdie", "dice => dice.map(d => d.title.split(',')[0])")
    assert len(colours) == 5 and all(colours), colours
    heard = page.locator(".replay-step").aria_snapshot()
    missing = [colour for colour in set(colours) if colour not in heard]
    assert missing == [], heard


# What the replay's live region says of a step's dice as it changes: its text a screen reader is
# given (nothing under aria-hidden), and each die's value and colour as the page shows them.
LIVE_DICE = """() => {
  const dice = document.getElementById('step-dice');
  const said = [];
  const walk = document.createTreeWalker(dice, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    if (!walk.currentNode.parentElement.closest('[aria-hidden=true]')) said.push(walk.currentNode.data);
  }
  const shown = [...dice.querySelectorAll('.rdie')].map((d) =>
    [d.firstChild.data, d.classList.contains('painted') ? d.title.split(',')[0] : '']);
  return { said: said.join('').trim(), shown, label: dice.getAttribute('aria-label') };
}"""


@pytest.mark.parametrize("ruleset", ["official", "painted"])
def test_the_replays_live_region_reads_the_dice_as_the_table_reads_them(
    live_site: LiveSite, new_page: Any, ruleset: str
) -> None:
    """Stepping on, the replay's live region read a step's dice as their bare digits ("3 5 5 6 1"),
    in its sentence and again from the dice drawn: the words it was given for them were a label,
    which a live region does not read out. It reads them as the table does, "rolls 3, 5, 5, 6, 1"
    and "Dice: 3, 5, 5, 6, 1", in Painted with each die's colour ("3 blue")."""
    code = live_site.finished_game(2, 4, ruleset)
    page = new_page(1280, 800)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.keyboard.press("ArrowRight")  # the first roll
    assert " rolls " in page.inner_text("#step-text")
    dice = page.evaluate(LIVE_DICE)
    assert len(dice["shown"]) == 5 and all(bool(colour) == (ruleset == "painted") for _, colour in dice["shown"])
    words = ", ".join(f"{value} {colour}".strip() for value, colour in dice["shown"])
    assert dice["said"] == f"Dice: {words}", dice
    # The step's sentence, read first, names them one by one too, as the table's "Ann rolled 3, 5, ...".
    values = ", ".join(value for value, _ in dice["shown"])
    assert f" rolls {values} (roll 1 of 3)." in page.inner_text("#step-text")
    assert page.locator(".replay-step[aria-live=polite] #step-dice").count() == 1
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        for scheme in in_each_scheme(page):
            shot(page, f"replay-dice-{ruleset}-{width}-{scheme}")
    assert page.errors == []


def test_the_fair_dice_page_of_a_game_with_a_long_name_fits_a_phone(live_site: LiveSite, new_page: Any) -> None:
    """A name of 24 letters without a space (a name may be that long) runs off the fair-dice page's
    list of seeds on a 390 px phone: the whole page scrolls sideways. The replay and the room wrap it."""
    code = finished_named_game(live_site, ["W" * 24, "Ann"])
    page = new_page(390, 844)
    for path in ("replay", "fairness"):
        page.goto(f"{live_site.url}/r/{code}/{path}")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, (path, width)


def test_stepping_with_the_arrow_keys_keeps_the_keyboard_on_the_cards_box_name_and_its_help_open(
    live_site: LiveSite, new_page: Any
) -> None:
    """A keyboard user reads a box's name (its help) on the replay's card and steps on with →: the
    card is drawn again and the focus falls to the page's body, so the next Tab starts over and a
    screen reader loses its place, and a box's help open beside it closes. The table keeps
    the keyboard on the same name (static/js/room.js keepFocus)."""
    code = live_site.finished_game(2, 1, "official")
    page = new_page(1280, 800)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.focus("#box-name-full_house")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#position").startswith("Step 2 of")
    assert page.evaluate("document.activeElement.id") == "box-name-full_house"
    # A box's help opened from its name stays open as the replay steps on.
    page.click("#box-name-chance")
    page.wait_for_selector("#box-help-chance:popover-open")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#position").startswith("Step 3 of")
    assert page.evaluate("document.getElementById('box-help-chance').matches(':popover-open')")
    assert page.evaluate("document.activeElement.id") == "box-name-chance"


def test_a_keyboard_user_can_bring_every_seats_total_into_view_at_the_replays_end(
    live_site: LiveSite, new_page: Any
) -> None:
    """Eight players on a 1280 px screen: the card scrolls sideways, and the last seats' columns can
    be past its right edge. A mouse scrolls it, and so does the keyboard: the card takes the focus,
    and the arrow keys pressed in it scroll it rather than step the replay."""
    code = live_site.finished_game(8, 1, "official")
    page = new_page(1280, 800)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.keyboard.press("End")
    last_total = "#card tr.grand td:last-child"
    in_view = """(cell) => {
      const wrap = cell.closest('.scorecard-wrap').getBoundingClientRect();
      return cell.getBoundingClientRect().right <= wrap.right + 1;
    }"""
    # The page brings the winner's columns into view (smoothly), and the winner varies with the
    # dice: once that is done, the reader scrolls back to the first seats, as a mouse would.
    page.wait_for_function(
        """() => {
      const wrap = document.querySelector('#card .scorecard-wrap');
      const last = wrap.scrollLeft;
      return new Promise((done) => setTimeout(() => done(wrap.scrollLeft === last), 300));
    }""",
        polling=50,
        timeout=5000,
    )
    page.eval_on_selector("#card .scorecard-wrap", "(wrap) => wrap.scrollTo({ left: 0, behavior: 'instant' })")
    assert not page.eval_on_selector(last_total, in_view)  # the card is wider than its place
    before = page.inner_text("#position")
    page.focus("#scrub")
    page.keyboard.press("Tab")  # into the card
    assert page.evaluate("Boolean(document.activeElement.closest('#card'))")
    # The card's scroll region, named for a screen reader.
    region = "[document.activeElement.getAttribute('role'), document.activeElement.getAttribute('aria-label')]"
    assert page.evaluate(region) == ["region", "Scorecards at this step"]
    for _ in range(12):
        page.keyboard.press("ArrowRight")
    assert page.inner_text("#position") == before  # the keys scrolled the card, not the replay
    # The browser scrolls smoothly: the card gets there in a moment.
    page.wait_for_function(
        f"(test => test(document.querySelector({last_total!r})))({in_view})", polling=50, timeout=5000
    )


# A two-player game in which P1 leaves after its first turn; P0 plays on to the end.
LEFT_GAME = """
import random
from games import services
from games.store.models import Game
from tests.factories import action_id, open_room, play_turn
table = open_room(2)
rng = random.Random(4)
play_turn(table, rng)
play_turn(table, rng)
services.game_leave(
    code=table.code, controller=table.controllers[1], seat=1, expected_version=None, action_id=action_id()
)
while table.game.status == Game.Status.PLAYING:
    play_turn(table, rng, 0)
result = table.code
"""


def test_the_replay_shows_a_seat_that_left_as_gone_as_the_table_did(live_site: LiveSite, new_page: Any) -> None:
    """At the table a seat that left is struck through on the card (``th.seat-head.gone``) for the
    rest of the game; so it is on the replay, from the step it leaves, where it is not the seat to
    play (▶, "(to play)"). Struck through, it still reads at WCAG AA's contrast, light and dark."""
    code = live_site.run(LEFT_GAME)
    page = new_page(1280, 800)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_selector("#card th.seat-head")
    steps = page.evaluate("JSON.parse(document.getElementById('replay-data').textContent).steps")
    left = next(i for i, s in enumerate(steps) if s["kind"] == "leave")
    head = page.locator("#card th.seat-head[data-seat='1']").first
    assert "gone" not in (head.get_attribute("class") or "")  # in the game at the start
    page.evaluate(
        "(at) => { const s = document.getElementById('scrub');"
        " s.value = String(at); s.dispatchEvent(new Event('input')); }",
        left,
    )
    assert "left" in page.locator("#step-text").inner_text()
    head = page.locator("#card th.seat-head[data-seat='1']").first
    assert "current" not in (head.get_attribute("class") or ""), "the seat that leaves is marked as the one to play"
    assert "gone" in (head.get_attribute("class") or "")
    page.keyboard.press("End")
    head = page.locator("#card th.seat-head[data-seat='1']").first
    assert "gone" in (head.get_attribute("class") or ""), head.get_attribute("class")
    # In the replay and at the table (its seat in the list, its tags and its column's head).
    for scheme in in_each_scheme(page):
        assert serious_violations(page, scheme) == [], ("replay", scheme)
    page.goto(f"{live_site.url}/r/{code}/")
    page.wait_for_selector("#card th.seat-head.gone")
    assert page.locator(".seat.gone .seat-name").count() == 1
    for scheme in in_each_scheme(page):
        assert serious_violations(page, scheme) == [], ("room", scheme)


def test_a_click_on_the_replays_card_leaves_the_arrow_keys_stepping_the_replay(
    live_site: LiveSite, new_page: Any
) -> None:
    """A mouse user clicks the card to look at a score, then steps on with →. The click puts the
    focus on the card's box (which has tabindex=-1); only a card that scrolls sideways keeps ← and →
    for itself, so on one that fits → still steps the replay."""
    code = live_site.finished_game(2, 1, "official")
    page = new_page(1280, 800)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#position").startswith("Step 2 of")
    # Two players: the card fits its place, nothing to scroll.
    assert page.evaluate(
        "[...document.querySelectorAll('#card .scorecard-wrap')].every(w => w.scrollWidth <= w.clientWidth + 1)"
    )
    page.click("#card tr.grand td:last-child")  # a look at a total
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#position").startswith("Step 3 of"), page.evaluate("document.activeElement.className")
    assert page.errors == []


def test_stepping_from_inside_an_open_box_help_keeps_the_keyboard_in_it(live_site: LiveSite, new_page: Any) -> None:
    """A keyboard user opens Chance's help from its name (Enter), tabs onto its Close button and
    steps on with →: the card is drawn anew with the help open and the keyboard still in it."""
    code = live_site.finished_game(2, 1, "official")
    page = new_page(1280, 800)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.focus("#box-name-chance")
    page.keyboard.press("Enter")
    page.wait_for_selector("#box-help-chance:popover-open")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('#box-help-chance') !== null")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#position").startswith("Step 2 of")
    assert page.evaluate("document.getElementById('box-help-chance').matches(':popover-open')")
    assert page.evaluate("document.activeElement.closest('#box-help-chance') !== null"), page.evaluate(
        "document.activeElement.tagName"
    )


OWN_PACE_GAME = """
from tests.factories import own_pace_room
result = own_pace_room(2).code
"""


def staff_on_a_phone(live_site: LiveSite, new_page: Any) -> Any:
    """A new staff member's page at 390 px, signed in to the admin through the site's sign-in."""
    from tests.e2e.test_csp import staff  # here: test_csp imports this module

    user, password = staff(live_site)
    admin = new_page(390, 844)
    admin.goto(live_site.url + "/admin/login/?next=/admin/")
    admin.fill("input[name=login]", user)
    admin.fill("input[name=password]", password)
    admin.click("form[action^='/accounts/login/'] button[type=submit]")
    admin.wait_for_url(f"{live_site.url}/admin/")
    return admin


def code_on_one_line(admin: Any) -> bool:
    """Whether a list's room code ("abcd-efgh-jk") reads on one line: in a phone's narrow column
    it broke at its dashes, into what read as three codes."""
    link = admin.locator("#result_list .field-room_code a").first
    return bool(link.evaluate("a => a.getClientRects().length === 1"))


def test_the_more_time_confirmation_page_fits_a_phone(live_site: LiveSite, new_page: Any) -> None:
    """Staff on a phone (390 px) give the player to move 1 day more: the confirmation page's
    six-column table scrolls in its own box, and the page does not scroll sideways."""
    code = live_site.run(OWN_PACE_GAME)
    (pk,) = live_site.query("SELECT id FROM games_game WHERE code = ?", code)[0]
    admin = staff_on_a_phone(live_site, new_page)
    # Found by its code: the site is shared with other tests, whose games can fill the list's first page.
    admin.goto(live_site.url + f"/admin/games/gameunderway/?q={code}")
    assert code_on_one_line(admin)
    admin.check(f"input[name=_selected_action][value='{pk}']")
    admin.select_option("select[name=action]", "extend_86400")
    admin.click("button[name=index]")
    admin.wait_for_selector("body.more-time-confirmation")
    assert no_horizontal_overflow(admin), admin.evaluate("document.documentElement.scrollWidth")


@pytest.mark.parametrize("ruleset", ["painted", "triple"])
def test_the_admins_review_of_every_rule_set_fits_a_phone(live_site: LiveSite, new_page: Any, ruleset: str) -> None:
    """A Painted Yahtzee turn's rolls (each die with its colour's name) and a Triple game's columns
    are the widest the timeline draws: its rows scroll in their box, and the held dice told in words
    for screen readers (laid out of the flow) stay in that box too, not past the page's edge."""
    code = live_site.finished_game(2, 1, ruleset)
    (pk,) = live_site.query("SELECT id FROM games_game WHERE code = ?", code)[0]
    admin = staff_on_a_phone(live_site, new_page)
    admin.goto(live_site.url + f"/admin/games/game/{pk}/change/")
    admin.wait_for_selector(".review")
    assert no_horizontal_overflow(admin), admin.evaluate("document.documentElement.scrollWidth")


def test_the_admins_review_of_a_finished_game_fits_a_phone(live_site: LiveSite, new_page: Any) -> None:
    """Staff on a phone (390 px) read a four-player game's review: its scorecards, its timeline
    (three rolls of five dice a turn) and its room events each scroll sideways in their own box,
    a stop of the keyboard named by its heading, and the page does not scroll sideways. It, the
    list of games under way and a player's page are clean under axe, light and dark."""
    code = live_site.finished_game(4, 1, "official")
    (pk,) = live_site.query("SELECT id FROM games_game WHERE code = ?", code)[0]
    admin = staff_on_a_phone(live_site, new_page)
    admin.goto(live_site.url + f"/admin/games/game/?q={code}")
    assert code_on_one_line(admin)
    admin.goto(live_site.url + f"/admin/games/game/{pk}/change/")
    admin.wait_for_selector(".review")
    assert no_horizontal_overflow(admin), admin.evaluate("document.documentElement.scrollWidth")
    regions = admin.locator(".review [role=region][tabindex='0']")
    assert regions.count() == 3
    names = [
        admin.evaluate("id => document.getElementById(id).textContent", r.get_attribute("aria-labelledby"))
        for r in regions.all()
    ]
    assert names == ["Final scorecards", "Turn by turn", "Room events and chat"]
    for scheme in in_each_scheme(admin):
        shot(admin, f"admin-review-390-{scheme}", full_page=True)
        # The breadcrumbs' links are told from their text by more than colour (axe's link-in-text-block).
        assert serious_violations(admin, scheme) == [], scheme
    (player,) = live_site.query("SELECT id FROM games_player WHERE game_id = ? LIMIT 1", pk)[0]
    for path in ("/admin/games/gameunderway/", f"/admin/games/player/{player}/change/"):
        admin.goto(live_site.url + path)
        for scheme in in_each_scheme(admin):
            assert serious_violations(admin, scheme) == [], (path, scheme)


def test_on_a_phone_an_eight_player_replays_review_folds_each_players_choices(
    live_site: LiveSite, new_page: Any
) -> None:
    """The review lists every costly choice of every player: for eight players, some 17,000 px on a
    phone, unfolded. Each player's list folds under their heading, open at a tap."""
    code = finished_game(live_site, players=8)
    page = new_page(390, 844)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_selector("#card table")
    folds = page.locator("details.review-fold")
    assert folds.count() >= 4
    assert page.locator("details.review-fold[open]").count() == 0  # a stranger's: nobody's is theirs
    tall = page.evaluate("document.documentElement.scrollHeight")
    assert tall < 4000, f"the replay page is {tall} px tall on a phone"
    folds.first.locator("summary").click()
    link = folds.first.locator("a[data-move]").first
    chosen = link.inner_text()
    link.click()
    assert chosen.rstrip(".") in page.inner_text("#step-verdict")
    folds.first.scroll_into_view_if_needed()
    for scheme in in_each_scheme(page):
        shot(page, f"replay-eight-review-390-{scheme}")
        assert serious_violations(page, scheme) == [], scheme
    assert page.errors == []


# Each step drawn in turn (its button is clicked), with where the card's top is then.
CARD_TOPS = """() => { const next = document.getElementById('next'), tops = [];
    const top = () => Math.round(document.getElementById('card').getBoundingClientRect().top + scrollY);
    tops.push(top());
    while (!next.disabled) { next.click(); tops.push(top()); }
    return tops; }"""


@pytest.mark.parametrize("ruleset", ["official", "yatzy", "free_joker", "painted", "triple", "yeti"])
def test_on_a_phone_stepping_through_the_replay_keeps_the_card_in_place(
    live_site: LiveSite, new_page: Any, ruleset: str
) -> None:
    """The step panel above the card holds one height whatever each step's sentence, dice and
    verdict: on a phone the card under it would otherwise move up and down at every step."""
    code = finished_game(live_site, players=2, seed=SEEDS.get(ruleset, 6), ruleset=ruleset)
    page = new_page(390, 844)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_selector("#card table")
    tops = page.evaluate(CARD_TOPS)
    assert len(tops) > 50 and len(set(tops)) == 1, sorted(set(tops))
    for scheme in in_each_scheme(page):
        shot(page, f"replay-steady-{ruleset}-390-{scheme}")
    assert page.errors == []


def test_the_replays_steady_step_panel_does_not_hold_the_page_on_a_change_of_width(
    live_site: LiveSite, new_page: Any
) -> None:
    """An eight-player Triple game has some 900 steps: the steady panel is not measured by laying
    out every one of them, at load or at each width a window drag passes through."""
    code = finished_named_game(live_site, [f"P{i}" for i in range(8)], "triple")
    page = new_page(390, 844)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_selector("#step-h")
    assert int(page.evaluate("document.getElementById('scrub').max")) > 800
    laid_out = page.evaluate(
        """() => { const p = document.querySelector('.replay-step'); let most = 0;
            const seen = new MutationObserver((records) => {
                for (const r of records) for (const n of r.addedNodes)
                    if (n.nodeType === 1 && n.getAttribute('aria-hidden') === 'true')
                        most = Math.max(most, n.children.length); });
            seen.observe(p.parentElement, {childList: true});
            p.style.width = '300px'; window.dispatchEvent(new Event('resize'));
            return new Promise((done) => setTimeout(() => {
                seen.disconnect(); p.style.width = ''; done(most); }, 400)); }"""
    )
    assert 0 < laid_out < 100, f"{laid_out} steps laid out for one width"
    tops = page.evaluate(CARD_TOPS)
    assert len(set(tops)) == 1, sorted(set(tops))


def test_on_a_phone_the_replays_title_wraps_without_a_gap(live_site: LiveSite, new_page: Any) -> None:
    """ "Replay · room … · Yahtzee (official)" takes two lines at 390 px: its second line, of small
    words, sits under the first as close as their own lines do, not a large heading's line below."""
    code = finished_game(live_site)
    page = new_page(390, 844)
    page.goto(f"{live_site.url}/r/{code}/replay")
    lines = page.evaluate(
        """() => { const small = document.querySelector('.replay-head h1 .muted');
            const size = parseFloat(getComputedStyle(small).fontSize);
            const rects = [...small.getClientRects()].filter(r => r.width > 0);
            return [size, rects.map(r => [r.top, r.bottom])]; }"""
    )
    size, rects = lines
    assert len(rects) >= 2, rects  # it wraps at this width
    gaps = [round(b[0] - a[1]) for a, b in zip(rects, rects[1:], strict=False)]
    assert all(gap <= size / 2 for gap in gaps), f"{gaps} px between lines of {size} px letters"
    for scheme in in_each_scheme(page):
        shot(page, f"replay-title-390-{scheme}")


def test_names_that_look_like_markup_are_shown_as_typed_on_every_page_of_a_game(
    live_site: LiveSite, new_page: Any
) -> None:
    """Seat names may hold any sign: the game-over table, its scorecard, the replay's steps and card
    and the fair-dice page draw each as the text typed, never as markup (in an attribute too)."""
    names = ["<i class=pwn>Ann</i>", '"><i class=pwn>Bo', "'><i class=pwn>Cy"]
    code = finished_named_game(live_site, names)
    page = new_page()
    pwned = "document.querySelectorAll('.pwn, i[class]').length"
    page.goto(f"{live_site.url}/r/{code}/")
    page.wait_for_selector("#over:not([hidden])")
    page.wait_for_selector("#card table")
    text = page.inner_text("body")
    assert all(name in text for name in names), text
    assert page.evaluate(pwned) == 0
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_selector("#card table")
    page.evaluate("() => { const next = document.getElementById('next'); while (!next.disabled) next.click(); }")
    assert page.evaluate(pwned) == 0
    assert names[0] in page.inner_text("#card")
    page.goto(f"{live_site.url}/r/{code}/fairness")
    assert all(name in page.inner_text("body") for name in names)
    assert page.evaluate(pwned) == 0
    assert page.errors == []


# Each of the card's panes: whether it scrolls sideways, and the seats whose heads are wholly in
# its width as it is shown (unscrolled).
PANES_SEATS = """() => [...document.querySelectorAll('#card .scorecard-wrap')].map(w => {
  const box = w.getBoundingClientRect();
  const seats = [...w.querySelectorAll('th.seat-head')].filter(h => {
    const r = h.getBoundingClientRect();
    return r.left >= box.left - 1 && r.right <= box.right + 1;
  }).map(h => h.title);
  return {scrolls: w.scrollWidth > w.clientWidth + 1, seats};
})"""


def test_on_a_phone_a_painted_replay_shows_every_seats_column_in_each_pane(live_site: LiveSite, new_page: Any) -> None:
    """The replay stacks Painted's two panes on a phone, each the card's whole width: both have
    the room for three seats' columns beside the box names, and show them all, with no sideways
    scroll hiding the third seat's."""
    code = finished_named_game(live_site, ["Ann", "Bob", "Cleo"], "painted")
    page = new_page(390, 844)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_selector("#card table")
    for step in ("first", "mid", "last"):
        if step == "mid":
            while not step_text(page).startswith("Bob"):
                page.click("#next")
        elif step == "last":
            page.click("#last")
        page.locator("#card").scroll_into_view_if_needed()
        for scheme in in_each_scheme(page):
            shot(page, f"replay-painted-3-390-{step}-{scheme}")
        panes = page.evaluate(PANES_SEATS)
        every = {"scrolls": False, "seats": ["Ann", "Bob", "Cleo"]}
        assert panes == [every, every], (step, panes)
    assert no_horizontal_overflow(page)
    assert page.errors == []


def test_on_a_phone_the_replays_step_slider_is_a_finger_high(live_site: LiveSite, new_page: Any) -> None:
    """The step slider is a target of at least 24 px each way (WCAG's target size), like the
    buttons beside it: a tap a little under the thin track still takes the replay to its step."""
    code = finished_game(live_site)
    page = new_page(390, 844, has_touch=True, is_mobile=True)
    page.goto(f"{live_site.url}/r/{code}/replay")
    total = int(page.inner_text("#position").rsplit(" ", 1)[-1])
    box = page.locator("#scrub").bounding_box()
    assert box["height"] >= 24 and box["width"] >= 24, box
    page.touchscreen.tap(box["x"] + box["width"] - 2, box["y"] + box["height"] - 2)
    page.wait_for_function(f"document.getElementById('position').textContent === 'Step {total} of {total}'")
    for scheme in in_each_scheme(page):
        shot(page, f"replay-slider-390-{scheme}")
    assert page.errors == []


# Each card pane with a named section (Painted's "Colours"), scrolled to its far right: where the
# section's name is drawn, and the pane's visible box.
SECTION_NAMES_SCROLLED = """() => [...document.querySelectorAll('#card .scorecard-wrap')]
  .filter(w => w.querySelector('tr.section th'))
  .map(w => {
    w.scrollLeft = w.scrollWidth;
    const th = w.querySelector('tr.section th');
    const words = document.createRange();
    words.selectNodeContents(th);
    const text = words.getBoundingClientRect(), box = w.getBoundingClientRect();
    return {name: th.textContent.trim(), scrolled: w.scrollLeft > 0,
            seen: text.left >= box.left - 1 && text.right <= box.right + 1};
  })"""


def test_a_painted_card_scrolled_sideways_keeps_its_colours_section_named(live_site: LiveSite, new_page: Any) -> None:
    """Eight players' Painted card on a phone scrolls sideways. Scrolled to the last seats' columns,
    the Colours pane's heading row still shows its name, as the box names beside it stay in view,
    not an empty row whose name scrolled away with the first columns."""
    code = finished_game(live_site, players=8, seed=3, ruleset="painted")
    page = new_page(390, 844)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_selector("#card table")
    page.click("#last")
    panes = page.evaluate(SECTION_NAMES_SCROLLED)
    page.locator("#card tr.section").first.scroll_into_view_if_needed()
    for scheme in in_each_scheme(page):
        shot(page, f"replay-painted-8-390-colours-{scheme}")
    assert panes == [{"name": "Colours", "scrolled": True, "seen": True}], panes
    assert page.errors == []


def test_the_replays_address_names_the_step_shown_and_is_written_once_for_steps_taken_in_one_go(
    live_site: LiveSite, new_page: Any
) -> None:
    """A step's address (#move-N, a link to share) follows the step shown. Browsers cap how often a
    page may rewrite its address: steps taken in one go (a script walking a game of 900 steps)
    write it once, for the last of them, and steps taken one after another as fast as a held key
    or a dragged slider takes them write it a few times a second, the last step always."""
    code = finished_game(live_site)
    page = new_page()
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_selector("#card table")
    moves = page.evaluate(
        """() => JSON.parse(document.getElementById('replay-data').textContent).steps
            .map((s) => `#move-${s.move}${s.kind === 'end' ? '-end' : ''}`)"""
    )
    page.click("#next")
    page.wait_for_function("(hash) => location.hash === hash", arg=moves[1])
    # Counted until the address names the last step taken, and a little after (a write more
    # would come within ADDRESS_GAP).
    counted = """async ([steps, apart, hash]) => {
        let writes = 0; const write = history.replaceState.bind(history); const from = performance.now();
        history.replaceState = (...args) => { writes += 1; return write(...args); };
        const next = document.getElementById('next');
        for (let i = 0; i < steps; i++) {
            next.click();
            if (apart) await new Promise((done) => setTimeout(done, apart));
        }
        const until = performance.now() + 5000;
        while (location.hash !== hash && performance.now() < until)
            await new Promise((done) => setTimeout(done, 20));
        await new Promise((done) => setTimeout(done, 500));
        history.replaceState = write;
        return [writes, location.hash, performance.now() - from]; }"""
    writes, address, _ = page.evaluate(counted, [20, 0, moves[21]])
    assert (writes, address) == (1, moves[21])
    # 40 steps 25 ms apart (a second of a held key's repeats, longer on a loaded machine): the
    # address at most once every 400 ms of them, and the last step's.
    writes, address, took = page.evaluate(counted, [40, 25, moves[61]])
    assert address == moves[61]
    assert 1 <= writes <= took / 400 + 1, f"{writes} writes of the address for 40 steps in {took:.0f} ms"
    page.keyboard.press("End")
    page.wait_for_function("(hash) => location.hash === hash", arg=moves[-1])
    assert page.errors == []


def test_the_replays_address_names_the_last_step_taken_when_the_reader_leaves_at_once(
    live_site: LiveSite, new_page: Any
) -> None:
    """A step taken just after another, its address not yet written, and the reader follows a link
    away: back on the replay, the page shows the step they left it at, not the one before."""
    code = finished_game(live_site)
    page = new_page()
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_function("document.getElementById('position').textContent.startsWith('Step 1 ')")
    moves = page.evaluate(
        """JSON.parse(document.getElementById('replay-data').textContent).steps
            .map((s) => `#move-${s.move}${s.kind === 'end' ? '-end' : ''}`)"""
    )
    page.click("#next")
    page.wait_for_function("(hash) => location.hash === hash", arg=moves[1])
    assert moves[3] != moves[1]
    # The rules' page loaded, not the first navigation heard: the replay's own address write
    # (history.replaceState, at once when the address's gap has passed, else as the page is
    # left) is one too, and Back taken on it races the rules' page still on its way.
    with page.expect_navigation(url=f"{live_site.url}/rules"):
        page.evaluate(
            """() => { const next = document.getElementById('next'); next.click(); next.click();
                location.href = '/rules'; }"""
        )
    page.go_back()
    page.wait_for_function("document.getElementById('position').textContent.startsWith('Step ')")
    assert page.evaluate("location.hash") == moves[3]
    assert page.errors == []


def test_an_anchor_followed_just_after_a_step_keeps_its_address(live_site: LiveSite, new_page: Any) -> None:
    """The skip link (#main) followed just after a step, the step's address not yet written: the
    address stays the anchor's, not a step's written over it."""
    code = finished_game(live_site)
    page = new_page()
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_function("document.getElementById('position').textContent.startsWith('Step 1 ')")
    page.click("#next")
    page.wait_for_function("!location.hash.endsWith('-0') && location.hash.startsWith('#move-')")
    hashes = page.evaluate(
        """() => new Promise((done) => {
          const next = document.getElementById('next'); next.click(); next.click();
          window.addEventListener('hashchange', () => {
            const seen = [location.hash];
            // Past the address's gap (400 ms): a write kept for the steps would have come.
            setTimeout(() => done([...seen, location.hash]), 700);
          }, { once: true });
          location.hash = '#main';
        })"""
    )
    assert hashes == ["#main", "#main"]
    assert page.errors == []


def test_the_replay_follows_a_step_given_in_the_address_while_it_is_open(live_site: LiveSite, new_page: Any) -> None:
    """A reader on the replay edits the address to another step's link (#move-N, as the coach's
    review links) or pastes one: the page goes to that step, or the link would seem dead.
    A move after the game's last step shows the last step, the nearest there is; an address that
    names no step leaves the replay where it is."""
    code = finished_game(live_site)
    page = new_page()
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_function("document.getElementById('position').textContent.startsWith('Step 1 ')")
    total = int(page.inner_text("#position").rsplit(" ", 1)[-1])
    page.evaluate("location.hash = '#move-40'")
    page.wait_for_function("!document.getElementById('position').textContent.startsWith('Step 1 ')")
    moved = page.inner_text("#position")
    assert page.evaluate("location.hash").startswith("#move-4"), page.evaluate("location.hash")
    page.evaluate("location.hash = '#move-7-end'")
    page.wait_for_function(f"document.getElementById('position').textContent === 'Step {total} of {total}'")
    page.evaluate("location.hash = '#move-5'")
    page.wait_for_function(f"document.getElementById('position').textContent !== 'Step {total} of {total}'")
    early = page.inner_text("#position")
    # Not a step's: the replay stays where it is. Read once the hashchange has been handled: a
    # listener added now runs after the page's own, which moves the replay as it runs.
    page.evaluate(
        """() => new Promise((handled) => {
          window.addEventListener('hashchange', () => handled(), { once: true });
          location.hash = '#main';
        })"""
    )
    assert page.inner_text("#position") == early
    page.evaluate("location.hash = '#move-99999'")
    page.wait_for_function(f"document.getElementById('position').textContent === 'Step {total} of {total}'")
    assert moved != f"Step 1 of {total}"
    assert page.errors == []


# The replay's addresses of its steps, in order (#move-N, the end's #move-N-end).
STEP_ADDRESSES = """JSON.parse(document.getElementById('replay-data').textContent).steps
    .map((s) => `#move-${s.move}${s.kind === 'end' ? '-end' : ''}`)"""

# Every write of the address from now on, with the address it wrote over.
COUNT_WRITES = """() => { window.writes = []; const write = history.replaceState.bind(history);
    history.replaceState = (...args) => {
        window.writes.push([location.hash, String(args[2])]);
        return write(...args);
    }; }"""


def test_back_and_forward_show_the_step_of_the_entry_gone_to_and_a_step_due_to_be_written_is_dropped(
    live_site: LiveSite, new_page: Any
) -> None:
    """The reader steps twice in quick succession, the second step's address not yet written (at
    most one write every 400 ms), and goes Back: the page shows the step of the entry gone back
    to, and the address due is not written over that entry (nor, the browser writing only the
    entry shown, over the one left: Forward shows the step last written there)."""
    code = finished_game(live_site)
    page = new_page()
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_function("document.getElementById('position').textContent.startsWith('Step 1 ')")
    moves = page.evaluate(STEP_ADDRESSES)
    page.wait_for_function("(hash) => location.hash === hash", arg=moves[0])
    page.evaluate("(hash) => { location.hash = hash; }", moves[30])
    page.wait_for_function("document.getElementById('position').textContent.startsWith('Step 31 ')")
    # Back as the next step's address waits for its turn; the script holds the page, as a busy
    # page would, past the time it was due, before the browser says the address changed. Both
    # steps are taken by the page's own script, the second as soon as the first's address is
    # written: a round trip from the test between them can outlast the gap, and the second's
    # address would be written at once, before Back.
    written = page.evaluate(
        """() => new Promise((done) => {
            const write = history.replaceState.bind(history);
            history.replaceState = (...args) => {
              write(...args);
              window.writes = [];  // every write from now on (COUNT_WRITES)
              history.replaceState = (...more) => {
                window.writes.push([location.hash, String(more[2])]);
                return write(...more);
              };
              queueMicrotask(() => {
                const hash = location.hash;
                window.addEventListener('popstate', () => {
                  const until = performance.now() + 600; while (performance.now() < until);
                  window.wentBack = true;
                }, { once: true });
                document.getElementById('next').click(); history.back();
                done(hash);
              });
            };
            document.getElementById('next').click(); })"""
    )
    assert written == moves[31]
    page.wait_for_function("window.wentBack === true")
    # Past the time the dropped address was due (400 ms after the last write), and more.
    page.evaluate("() => new Promise((done) => setTimeout(done, 800))")
    assert page.inner_text("#position").startswith("Step 1 "), page.inner_text("#position")
    assert page.evaluate("location.hash") == moves[0]
    assert page.evaluate("window.writes") == []
    page.go_forward()
    page.wait_for_function("(hash) => location.hash === hash", arg=moves[31])
    page.wait_for_function("document.getElementById('position').textContent.startsWith('Step 32 ')")
    page.go_back()
    page.wait_for_function("document.getElementById('position').textContent.startsWith('Step 1 ')")
    assert page.evaluate("window.writes") == []
    assert page.errors == []


@pytest.mark.parametrize("how", ["link", "typed"])
def test_the_address_shown_given_again_just_after_a_step_shows_its_step(
    live_site: LiveSite, new_page: Any, how: str
) -> None:
    """The reader steps, and at once follows a link to the address shown (or types it again): no
    browser says the address changed (it did not), yet the reader asked for that step. The page
    shows it, and the address due for the step taken is not written over it."""
    code = finished_game(live_site)
    page = new_page()
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_function("document.getElementById('position').textContent.startsWith('Step 1 ')")
    moves = page.evaluate(STEP_ADDRESSES)
    page.click("#next")
    page.wait_for_function("(hash) => location.hash === hash", arg=moves[1])
    page.evaluate(COUNT_WRITES)
    if how == "link":
        page.evaluate(
            """(hash) => { const link = document.createElement('a'); link.href = hash;
                document.body.append(link); document.getElementById('next').click(); link.click(); }""",
            moves[1],
        )
    else:
        page.evaluate("document.getElementById('next').click()")
        page.goto(f"{live_site.url}/r/{code}/replay{moves[1]}")
    # Past the time the step's address was due (400 ms after the last write), and more.
    page.evaluate("() => new Promise((done) => setTimeout(done, 800))")
    assert page.inner_text("#position").startswith("Step 2 "), page.inner_text("#position")
    assert page.evaluate("location.hash") == moves[1]
    assert page.evaluate("window.writes") == []
    assert page.errors == []


# The card's markup with each of its scroll regions back at its start and fitted there (the
# widths and fades of the card's own functions follow the scroll; a step's seat scrolls it).
CARD_AT_START = """async () => {
  for (const wrap of document.querySelectorAll('#card .scorecard-wrap')) wrap.scrollLeft = 0;
  for (let k = 0; k < 2; k++) await new Promise((done) => requestAnimationFrame(() => done()));
  return document.getElementById('card').innerHTML; }"""

# What a step changes on the card: each attribute and text changed, each element put in (with
# all it holds); and how many elements the card has.
STEP_CHANGES = """async (button) => {
  const card = document.getElementById('card');
  const seen = new MutationObserver(() => {});
  seen.observe(card, { subtree: true, childList: true, attributes: true, characterData: true });
  document.getElementById(button).click();
  const put = (node) => node.nodeType === Node.ELEMENT_NODE ? 1 + node.getElementsByTagName('*').length : 1;
  const changes = seen.takeRecords()
    .map((r) => r.type === 'childList' ? [...r.addedNodes].reduce((n, node) => n + put(node), 0) : 1)
    .reduce((a, b) => a + b, 0);
  seen.disconnect();
  return [changes, card.getElementsByTagName('*').length]; }"""


def first_difference(one: str, other: str) -> str:
    at = next((k for k, (a, b) in enumerate(zip(one, other, strict=False)) if a != b), min(len(one), len(other)))
    around = slice(max(0, at - 200), at + 200)
    return f"at {at}:\n  stepped to: {one[around]}\n  drawn anew: {other[around]}"


@pytest.mark.parametrize("ruleset, width, height", [("official", 1280, 800), ("painted", 390, 844)])
def test_a_replay_step_changes_only_what_differs_on_the_card_to_what_a_fresh_draw_shows(
    live_site: LiveSite, new_page: Any, ruleset: str, width: int, height: int
) -> None:
    """Eight players' card rebuilt at each step took most of the step's time: a step changes only
    the cells, heads and sums that differ, the elements kept the same. Stepped to, forward,
    back, to either end, the card is what the page draws at that step anew, opened at its
    address, to the byte (the card's own widths, fades and scroll regions included)."""
    code = finished_game(live_site, players=8, ruleset=ruleset)
    url = f"{live_site.url}/r/{code}/replay"
    page, fresh = new_page(width, height), new_page(width, height)
    page.goto(url)
    page.wait_for_function("document.getElementById('position').textContent.startsWith('Step 1 ')")
    moves = page.evaluate(STEP_ADDRESSES)
    page.evaluate("() => { window.firstCell = document.querySelector('#card tbody td'); }")
    most = 0
    for _ in range(40):
        changes, elements = page.evaluate(STEP_CHANGES, "next")
        most = max(most, changes)
    # Whose turn it is and the seat kept in view move on, a box is scored, its sums with it.
    assert 0 < most < elements / 2, f"{most} changes of a step on a card of {elements} elements"
    assert page.evaluate("window.firstCell.isConnected"), "the card was drawn anew"

    def same_as_drawn_anew() -> None:
        shown = page.inner_text("#position")
        at = int(shown.split(" ")[1]) - 1
        stepped = page.evaluate(CARD_AT_START)
        fresh.goto("about:blank")
        fresh.goto(f"{url}{moves[at]}")
        fresh.wait_for_function("(shown) => document.getElementById('position').textContent === shown", arg=shown)
        drawn = fresh.evaluate(CARD_AT_START)
        assert stepped == drawn, f"{shown}: {first_difference(stepped, drawn)}"

    same_as_drawn_anew()
    for button, times in (("prev", 7), ("next", 1), ("last", 1), ("prev", 1), ("first", 1), ("next", 1)):
        for _ in range(times):
            page.click(f"#{button}")
        same_as_drawn_anew()
    assert page.errors == [] and fresh.errors == []


def test_the_replay_of_a_game_never_started_fits_a_narrow_phone_with_its_ways_on(
    live_site: LiveSite, new_page: Any
) -> None:
    """The page of a room everyone left before the first roll leads back to the room (the header's
    one link: no die was rolled, no dice to check) and to a new game (the card's one button): at
    320 px in German the button is whole on the screen and clear of the header's link."""
    host = new_page(390, 844)
    code = create_online(host, live_site, "Ann").rstrip("/").rsplit("/", 1)[-1]
    host.once("dialog", lambda dialog: dialog.accept())
    host.click("#leave-0")
    host.wait_for_function("!document.querySelector('#leave-0')")
    page = new_page(320, 700, locale="de-DE")
    assert page.goto(f"{live_site.url}/r/{code}/replay").status == 409
    assert page.locator(".card .btn").count() == 1
    new = page.locator(".card .btn").bounding_box()
    # The header's one link: no die was rolled, so there are no dice to check.
    assert page.locator(".replay-links a").count() == 1
    back = page.locator(".replay-links a").bounding_box()
    assert page.locator(".replay-links a").get_attribute("href") == f"/r/{code}/"
    assert new is not None and back is not None, (new, back)
    assert new["x"] >= 0 and new["x"] + new["width"] <= 320, new
    assert new["y"] >= back["y"] + back["height"], (new, back)
    assert no_horizontal_overflow(page)
    for scheme in in_each_scheme(page):
        shot(page, f"replay-never-started-320-{scheme}")


@pytest.mark.parametrize("started", [False, True], ids=["lobby", "under way"])
def test_on_a_phone_the_replay_of_a_game_not_over_yet_shows_one_way_to_the_room(
    live_site: LiveSite, new_page: Any, started: bool
) -> None:
    """A game in its lobby or under way has no replay yet: its page shows one way to the room, the
    card's button under the words that say to follow the game there, whole on a phone's screen;
    the header keeps the dice's check beside the title."""
    host = new_page(390, 844)
    room = create_local(host, live_site, ["Ann", "Bob"]) if started else create_online(host, live_site, "Ann")
    code = room.rstrip("/").rsplit("/", 1)[-1]
    page = new_page(390, 844)
    assert page.goto(f"{live_site.url}/r/{code}/replay").status == 409
    to_room = page.locator(f'a[href="/r/{code}/"]:visible')
    assert to_room.count() == 1, to_room.all_inner_texts()
    assert to_room.inner_text() == "Go to the room" and "btn" in (to_room.get_attribute("class") or "")
    box = to_room.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert page.locator(".replay-links a").all_inner_texts() == ["Check the dice"]
    assert no_horizontal_overflow(page)
    for scheme in in_each_scheme(page):
        shot(page, f"replay-not-over-{'playing' if started else 'lobby'}-390-{scheme}")

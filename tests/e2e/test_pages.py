"""Pages around the table in a real browser: the home form's seat count, error pages, the replay."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import in_each_scheme, serious_violations, shot
from tests.live import ROOT

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
    page.fill("#id_bots", "0")
    assert page.eval_on_selector("#create-form", "form => form.checkValidity()")
    assert page.inner_text("#seats-total") == "8 seats: 8 people."
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
        assert serious_violations(page) == [], scheme
    page.fill("#id_code", "ab/cd")
    page.click("text=Open room")
    page.wait_for_selector("#code-error")
    assert "not a room link" in page.inner_text("#code-error")
    for scheme in in_each_scheme(page):
        assert serious_violations(page) == [], scheme


PLAY_A_GAME = """
import os, random, sys, django
django.setup()
from games import services
from tests.factories import open_room, play_to_end
table = open_room(int(sys.argv[1]))
play_to_end(table, random.Random(int(sys.argv[2])))
print(table.code)
"""


def finished_game(site: LiveSite, players: int = 2, seed: int = 1) -> str:
    """A game played to the end through the services, in the live site's own database."""
    done = subprocess.run(
        [sys.executable, "-c", PLAY_A_GAME, str(players), str(seed)],
        cwd=ROOT,
        env={**site.server.env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


def step_text(page: Any) -> str:
    return str(page.inner_text("#step-text"))


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
    assert re.match(r"P0 rolls [1-6]( [1-6]){4} \(roll 1 of 3\)\.", step_text(page))
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
    # A costly choice in the review opens its step.
    link = page.locator("a[data-move]").first
    if link.count():
        chosen = link.inner_text()
        link.click()
        assert chosen.rstrip(".") in page.inner_text("#step-verdict")
    assert page.errors == []


def test_replay_fairness_and_error_pages_have_no_serious_accessibility_violations(
    live_site: LiveSite, new_page: Any, tmp_path: Path
) -> None:
    code = finished_game(live_site, players=3, seed=5)
    for width, height in ((1280, 800), (390, 844)):
        page = new_page(width=width, height=height)
        page.goto(f"{live_site.url}/r/{code}/replay")
        page.keyboard.press("ArrowRight")
        for scheme in in_each_scheme(page):
            assert serious_violations(page) == [], (width, scheme)
            shot(page, f"replay-{width}-{scheme}")
        assert no_horizontal_page_scroll(page)
    page = new_page()
    page.goto(f"{live_site.url}/r/{code}/fairness")
    assert page.locator(f"a[href='/r/{code}/replay']").count() == 1
    for scheme in in_each_scheme(page):
        assert serious_violations(page) == [], scheme
    page.goto(f"{live_site.url}/r/zzzzzzzzzz/")
    assert "No room has that code" in page.inner_text("main")
    for scheme in in_each_scheme(page):
        assert serious_violations(page) == [], scheme
    page.goto(f"{live_site.url}/r/{code}/nope-not-a-page/deeper")
    for scheme in in_each_scheme(page):
        assert serious_violations(page) == [], scheme


def no_horizontal_page_scroll(page: Any) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_the_rules_and_fair_dice_pages_read_well_on_a_phone_and_a_desktop(
    live_site: LiveSite, new_page: Any, tmp_path: Path
) -> None:
    for width, height in ((1280, 800), (390, 844)):
        page = new_page(width=width, height=height)
        for name in ("rules", "fairness"):
            page.goto(f"{live_site.url}/{name}")
            assert page.locator("main h1").count() == 1
            assert no_horizontal_page_scroll(page), (name, width)
            for scheme in in_each_scheme(page):
                assert serious_violations(page) == [], (name, width, scheme)
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

"""The table's columns, names and panels at the sizes players use: a desktop, a phone held upright
and a large phone held sideways (which gets the desktop's layout), in every rule set."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import create_local, in_each_scheme, serious_violations, shot
from tests.e2e.test_table_layout import reload

pytestmark = pytest.mark.browser

SIX = ["Alexandra", "Benedict", "Cleopatra", "Dominique", "Evangeline", "Frederick"]
ONE_COLUMN = ["official", "free_joker", "yeti", "yatzy", "painted"]

# Each seat's name in its column's head that shows less than all of its letters.
CUT_NAMES = """() => [...document.querySelectorAll('#card .seat-head-name')]
  .filter(e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
  .map(e => `${e.textContent.trim()} ${e.clientWidth}/${e.scrollWidth}`)"""

# Each of the card's panes that needs a sideways scroll to show its last columns.
SCROLLING = """() => [...document.querySelectorAll('#card .scorecard-wrap')]
  .filter(w => w.scrollWidth > w.clientWidth + 1).map(w => `${w.scrollWidth} in ${w.clientWidth}`)"""


def test_on_a_desktop_painteds_panes_show_three_players_names_whole(live_site: LiveSite, new_page: Any) -> None:
    """The panes' box names' column was as wide as a one-pane card's: the seats beside it cut
    "Alexandra" to "Alexa…" (and the pane scrolled sideways) though the names need less."""
    page = new_page(1280, 800)
    create_local(page, live_site, SIX[:3], ruleset="painted")
    reload(page)
    assert page.locator("#card .scorecard.in-panes").count() == 2
    assert page.evaluate(CUT_NAMES) == []
    assert page.evaluate(SCROLLING) == []
    # The box names stay whole too, and the card stays beside the dice.
    cut_rows = page.evaluate(
        """[...document.querySelectorAll('#card th[scope=row]')]
            .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent.trim())"""
    )
    assert cut_rows == []
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    for scheme in in_each_scheme(page):
        shot(page, f"painted-3-names-1280-{scheme}")
        assert serious_violations(page) == [], scheme
    assert page.errors == []


FEED_HEIGHT = "document.getElementById('feed').getBoundingClientRect().height"
# From the top of the feed's heading to the bottom of its last line of text (not of the box round it).
TEXT_HEIGHT = """(() => {
  const walk = document.createTreeWalker(document.getElementById('feed'), NodeFilter.SHOW_TEXT);
  const rects = [];
  while (walk.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(walk.currentNode);
    rects.push(...[...range.getClientRects()].filter(r => r.height > 0));
  }
  return Math.max(...rects.map(r => r.bottom)) - Math.min(...rects.map(r => r.top));
})()"""


@pytest.mark.parametrize("size", [(1280, 800), (932, 430), (390, 844)])
def test_the_tables_feed_is_no_taller_than_its_line_after_a_reload(
    live_site: LiveSite, new_page: Any, size: tuple[int, int]
) -> None:
    """A page just loaded has seen nothing happen: the feed says who is here in one line, and was
    a box six lines tall around it on a desktop."""
    mobile = size[0] < 1000
    page = new_page(*size, has_touch=mobile, is_mobile=mobile)
    create_local(page, live_site, ["Ann", "Bob"])
    reload(page)
    page.wait_for_selector("#feed .feed-here")
    text = page.evaluate(TEXT_HEIGHT)
    assert page.evaluate(FEED_HEIGHT) < text + 40, (page.evaluate(FEED_HEIGHT), text)
    for scheme in in_each_scheme(page):
        shot(page, f"feed-reload-{size[0]}-{scheme}", full_page=size[0] != 932)


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_a_finished_games_feed_is_no_taller_than_its_line(
    live_site: LiveSite, new_page: Any, size: tuple[int, int]
) -> None:
    code = live_site.finished_game(2, 1, "official")
    page = new_page(*size)
    page.goto(f"{live_site.url}/r/{code}/")
    page.wait_for_selector("#over:not([hidden])")
    page.wait_for_selector("#feed > :not(h2)")
    text = page.evaluate(TEXT_HEIGHT)
    assert page.evaluate(FEED_HEIGHT) < text + 40, (page.evaluate(FEED_HEIGHT), text)
    for scheme in in_each_scheme(page):
        shot(page, f"feed-over-{size[0]}-{scheme}", full_page=True)


def test_on_a_desktop_painteds_panes_go_one_under_the_other_for_six_players(live_site: LiveSite, new_page: Any) -> None:
    """Side by side, six seats' columns did not fit either pane, and each scrolled sideways."""
    page = new_page(1280, 800)
    create_local(page, live_site, SIX, ruleset="painted")
    reload(page)
    assert page.evaluate(SCROLLING) == []
    assert page.evaluate(CUT_NAMES) == []
    for scheme in in_each_scheme(page):
        shot(page, f"six-painted-1280-{scheme}", full_page=True)

"""Review of finished games' pages in a real browser (the replay, the fair-dice check): failing tests
for defects found, one a defect."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import finished_named_game

pytestmark = pytest.mark.browser

# Where each name is drawn in an element: the left edge of its first occurrence in the element's text.
NAME_LEFT = """([selector, names]) => {
  const root = document.querySelector(selector);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node);
  return names.map((name) => {
    const node = nodes.find((n) => n.textContent.includes(name));
    if (!node) return null;
    const range = document.createRange();
    const at = node.textContent.indexOf(name);
    range.setStart(node, at);
    range.setEnd(node, at + name.length);
    return range.getBoundingClientRect().left;
  });
}"""


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
    """A Painted roll's step says "P0 rolls 5 1 6 5 6" and shows coloured dice: the colours are read
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


def test_the_fair_dice_page_of_a_game_with_a_long_name_fits_a_phone(live_site: LiveSite, new_page: Any) -> None:
    """A name of 24 letters without a space (a name may be that long) runs off the fair-dice page's
    list of seeds on a 390 px phone: the whole page scrolls sideways. The replay and the room wrap it."""
    code = finished_named_game(live_site, ["W" * 24, "Ann"])
    page = new_page(390, 844)
    for path in ("replay", "fairness"):
        page.goto(f"{live_site.url}/r/{code}/{path}")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, (path, width)


def test_stepping_with_the_arrow_keys_keeps_the_keyboard_on_the_cards_box_name(
    live_site: LiveSite, new_page: Any
) -> None:
    """A keyboard user reads a box's name (its help) on the replay's card and steps on with →: the
    card is drawn again and the focus falls to the page's body, so the next Tab starts over and a
    screen reader loses its place. The table keeps it on the same name (static/js/room.js keepFocus)."""
    code = live_site.finished_game(2, 1, "official")
    page = new_page(1280, 800)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.focus("#box-name-full_house")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#position").startswith("Step 2 of")
    assert page.evaluate("document.activeElement.id") == "box-name-full_house"


def test_a_keyboard_user_can_bring_every_seats_total_into_view_at_the_replays_end(
    live_site: LiveSite, new_page: Any
) -> None:
    """Eight players on a 1280 px screen: the card scrolls sideways and, at the last step ("P7 wins
    with … points"), the last seats' columns, the winner's total among them, are past its right
    edge. A mouse scrolls it; from the keyboard nothing does: the card is not focusable, and the
    arrow keys pressed on a control inside it step the replay instead of scrolling it."""
    code = live_site.finished_game(8, 1, "official")
    page = new_page(1280, 800)
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.keyboard.press("End")
    last_total = "#card tr.grand td:last-child"
    in_view = """(cell) => {
      const wrap = cell.closest('.scorecard-wrap').getBoundingClientRect();
      return cell.getBoundingClientRect().right <= wrap.right + 1;
    }"""
    assert not page.eval_on_selector(last_total, in_view)  # the card is wider than its place
    page.focus("#scrub")
    page.keyboard.press("Tab")  # into the card
    assert page.evaluate("Boolean(document.activeElement.closest('#card'))")
    for _ in range(12):
        page.keyboard.press("ArrowRight")
    assert page.eval_on_selector(last_total, in_view), page.evaluate(
        "[...document.querySelectorAll('#card .scorecard-wrap')].map(w => w.scrollLeft)"
    )

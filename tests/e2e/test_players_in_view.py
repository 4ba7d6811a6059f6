"""During play the reactions and the players are where the players look: on the first screen.

Every rule set, two or three seats, a 1280x800 desktop and a 390x844 phone, light and dark.
On the desktop the Players list sits under the dice; on the phone, where the dice and the
card fill the screen, each seat's head on the card carries the player's presence (the list
in short) and the waiting players' reactions sit in the play card. A reaction shows on the
reacting player's name, in view.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import act, in_each_scheme, no_horizontal_overflow, serious_violations, shot
from tests.e2e.test_table_layout import online_lobby

pytestmark = pytest.mark.browser

RULESETS = ["official", "free_joker", "yeti", "yatzy", "painted", "triple"]
SIZES = [(1280, 800), (390, 844)]

# Each element matching the selector that is drawn: whether it is wholly inside the viewport.
INSIDE = """s => [...document.querySelectorAll(s)].filter(e => e.getClientRects().length).map(e => {
  const r = e.getBoundingClientRect();
  return { what: e.id || e.textContent.trim() || e.className, inside: r.top >= 0 && r.left >= 0
           && r.bottom <= innerHeight && r.right <= innerWidth && r.width > 0, top: r.top, bottom: r.bottom };
})"""


# Each seat's presence dots on the card's heads (Painted has a head per pane): whether one is
# on the screen's height, and whether one is wholly on the screen.
HEADS = """() => {
  const seats = {};
  for (const dot of document.querySelectorAll('#card th.seat-head .presence')) {
    const head = dot.closest('th'), r = dot.getBoundingClientRect();
    const seat = seats[head.dataset.seat] ??= { name: head.title, down: false, across: false };
    seat.down ||= r.top >= 0 && r.bottom <= innerHeight;
    seat.across ||= r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
  }
  return seats;
}"""


def table(site: LiveSite, new_page: Any, ruleset: str, seats: int, size: tuple[int, int]) -> list[Any]:
    width, height = size
    pages = [new_page(width=width, height=height) for _ in range(seats)]
    online_lobby(site, pages, ["Ann", "Bob", "Cy"][:seats], ruleset)
    pages[0].click("#start")
    pages[0].wait_for_selector("#roll")
    for page in pages[1:]:
        page.wait_for_selector("#play:not([hidden])")
    return pages


def in_view(page: Any, selector: str, count: int) -> None:
    """``count`` elements match ``selector``, each wholly in view: waited for, not read at one instant,
    since a frame drawn just then (a presence, a pill of the Players list wrapping for a moment)
    may move the page for the time it takes to draw the next."""
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(
            f"([s, n]) => {{ const found = ({INSIDE})(s); return found.length === n && found.every(e => e.inside); }}",
            arg=[selector, count],
            timeout=5_000,
        )
    found = page.evaluate(INSIDE, selector)
    assert len(found) == count and all(e["inside"] for e in found), (selector, found)


# One table for both sizes: set up on the desktop, then each page loaded again on the phone,
# Ann's turn still under way (its first roll on the desktop, one more at each size).
@pytest.mark.parametrize(("ruleset", "seats"), [(r, 3 if r in ("triple", "painted") else 2) for r in RULESETS])
def test_reactions_and_the_players_are_in_view_during_a_turn(
    live_site: LiveSite, new_page: Any, ruleset: str, seats: int
) -> None:
    pages = table(live_site, new_page, ruleset, seats, SIZES[0])
    ann = pages[0]
    act(ann, pages, lambda: ann.click("#roll"))  # Ann's turn, under way; Bob waits
    for width, height in SIZES:
        if (width, height) != SIZES[0]:
            for page in pages:
                page.set_viewport_size({"width": width, "height": height})
                page.emulate_media(color_scheme="light")  # as a page opened at that size
                page.reload()
                page.wait_for_selector("#conn[data-state=connected]")
        in_view_at(pages, seats, width, ruleset)
    assert all(page.errors == [] for page in pages)


def in_view_at(pages: list[Any], seats: int, width: int, ruleset: str) -> None:
    """Everything a player looks at during Ann's turn is in view at this ``width``; Bob reacts, Ann rolls."""
    ann, bob = pages[0], pages[1]
    for page in (ann, bob):
        page.wait_for_function(f"document.querySelectorAll('#card th.seat-head .presence.online').length >= {seats}")
        if width > 900:
            in_view(page, "#seats", 1)  # the Players list itself, under the dice
        # Every player's name with their presence on the card's head: the list in short. All
        # of them on the screen's height; across, the one to play and this page's own player
        # at least (a phone's Triple card scrolls sideways to the others, their columns too).
        heads = page.evaluate(HEADS)
        assert sorted(heads) == [str(n) for n in range(seats)], heads
        assert all(head["down"] for head in heads.values()), heads
        mine = page.evaluate("document.querySelector('.seat .tag.you').closest('.seat').textContent.trim()")
        shown = {name for head in heads.values() if head["across"] for name in [head["name"]]}
        assert "Ann" in shown and any(name in mine for name in shown), (heads, mine)
    # Bob, waiting, reacts from the play card; on the desktop Ann can too, during her own turn.
    in_view(bob, "#play-reactions", 1)
    assert bob.locator("#reactions").is_hidden()  # not twice on one page
    if width > 900:
        in_view(ann, "#play-reactions", 1)
    bob.click("#play-reactions button[aria-label='React 👏']")
    for page in pages:  # everyone sees it, on Bob's name
        page.wait_for_selector(".reaction-float")
        bubble = page.evaluate(INSIDE, ".reaction-float")
        assert len(bubble) == 1 and bubble[0]["inside"] and "Bob" in bubble[0]["what"], bubble
    assert all(no_horizontal_overflow(page) for page in pages)
    # A reaction button keeps the keyboard's focus while the table is drawn again.
    bob.focus("#play-reactions button[aria-label='React 😮']")
    act(ann, pages, lambda: ann.click("#roll"))
    assert bob.evaluate("document.activeElement.getAttribute('aria-label')") == "React 😮"
    for scheme in in_each_scheme(ann, bob):
        shot(ann, f"in-view-{ruleset}-{width}-{scheme}-playing")
        shot(bob, f"in-view-{ruleset}-{width}-{scheme}-waiting")
        assert serious_violations(ann, scheme) == [] and serious_violations(bob, scheme) == []

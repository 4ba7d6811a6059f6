"""A room page left open across a deploy: told, politely and never over its player's turn, that the
site runs a newer release of its scripts, with a button to reload."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import (
    act,
    in_each_scheme,
    no_horizontal_overflow,
    online_game,
    score_best,
    serious_violations,
    shot,
)

pytestmark = pytest.mark.browser

BANNER = "#new-release"


# The page as the release before served it: its scripts read another release in its meta than the
# server runs now (its socket reaches the new one). Set once parsing ends, before any module runs.
RELEASE_BEFORE = """document.addEventListener("readystatechange", () => {
  if (document.readyState !== "interactive" || !sessionStorage.getItem("release-before")) return;
  document.querySelector('meta[name="release"]').content = "before";
});"""


def test_a_page_of_the_release_before_offers_to_reload_once_its_player_has_moved(
    live_site: LiveSite, new_page: Any
) -> None:
    """A page left open across a deploy runs the old scripts against the new server. Its socket's
    ``you`` frame names the server's release: the page says a new version is
    ready, with a Reload button, but not while its player's turn is under way (a line pushing the
    table down could move a box under their finger); a page of the server's release says nothing."""
    ann, bob = new_page(), new_page()
    online_game(live_site, ann, bob)
    # The deploy comes in Ann's turn: her page is of the release before, its socket new.
    ann.add_init_script(RELEASE_BEFORE)
    ann.evaluate("sessionStorage.setItem('release-before', '1')")
    ann.reload()
    ann.wait_for_selector("#conn[data-state=connected]", state="attached")
    ann.wait_for_selector("#roll:not([disabled])")
    assert ann.text_content(BANNER) == "" and ann.is_hidden(BANNER)  # Ann's turn: not now
    act(ann, [ann, bob], lambda: ann.click("#roll"))
    assert ann.text_content(BANNER) == ""  # still Ann's turn
    score_best(ann, [ann, bob])
    banner = ann.wait_for_selector(f"{BANNER} button")
    assert ann.text_content(BANNER) == "A new version of the site is ready. Reload"
    assert ann.get_attribute(BANNER, "role") == "status"  # read out politely, no focus taken
    assert ann.evaluate("document.activeElement.id") != "new-release-reload"
    assert bob.text_content(BANNER) == ""  # Bob's page is of the server's release
    for scheme in in_each_scheme(ann):
        shot(ann, f"new-release-{scheme}")
        assert serious_violations(ann) == [], scheme
    for width, height in ((390, 844), (1280, 800)):
        ann.set_viewport_size({"width": width, "height": height})
        assert no_horizontal_overflow(ann) and banner.is_visible()
        shot(ann, f"new-release-{width}")
    # Reached from the keyboard as every other button, and it loads the page of the new release.
    ann.evaluate("sessionStorage.removeItem('release-before')")
    banner.focus()
    with ann.expect_navigation():
        ann.keyboard.press("Enter")
    ann.wait_for_selector("#conn[data-state=connected]", state="attached")
    assert ann.text_content(BANNER) == ""
    assert ann.errors == [] and bob.errors == []

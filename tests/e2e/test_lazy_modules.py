"""The room page's modules fetched after its first draw (static/js/room.js ``later``): a fetch
that fails (the network gone for a moment) is tried again, and what it draws comes then."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import LiveSite

pytestmark = pytest.mark.browser


def test_a_game_over_panel_whose_module_could_not_be_fetched_comes_once_it_can_be(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann opens a finished game as her network drops the game-over panel's module. The page
    does not stay without the result: once the module can be fetched, the panel comes."""
    page = new_page()
    refused: list[str] = []

    def refuse(route: Any) -> None:
        refused.append(route.request.url)
        route.abort()

    page.route("**/static/js/room/over.js*", refuse)
    with page.expect_event("requestfailed", lambda request: "over.js" in request.url):
        page.goto(f"{live_site.url}/r/{live_site.finished_game()}/")
    page.wait_for_selector("#conn[data-state=connected]")
    page.wait_for_selector("#room[data-status=finished]")
    assert refused
    assert page.locator("#over").is_hidden()
    page.unroute("**/static/js/room/over.js*")
    page.wait_for_selector("#over:not([hidden]) #over-h")
    # The browser says each refusal in the console, and nothing else is said there.
    assert [error for error in page.errors if "over.js" not in error and "ERR_FAILED" not in error] == []

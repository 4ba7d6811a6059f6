"""Review (pwa): turning notifications on, on Your games, in Chromium (static/js/notify.js)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import LiveSite

pytestmark = pytest.mark.browser

# The permission prompt closed without an answer (the page tapped beside it on a phone, Esc, the
# tab switched): the browser answers "default", and asks again at the next click.
DISMISSED = """() => {
  Notification.requestPermission = async () => "default";
}"""


def test_a_permission_prompt_closed_without_an_answer_is_not_said_to_be_blocked(
    live_site: LiveSite, new_page: Any
) -> None:
    """A player who closes the browser's "Allow notifications?" prompt without choosing was told
    "Notifications are blocked for this site: allow them in the browser's site settings, then try
    again": nothing is blocked (the site settings say "Ask"), and pressing the button again asks
    again. Only a "denied" answer is a block."""
    page = new_page()
    page.add_init_script(script=f"({DISMISSED})()")
    page.goto(live_site.url + "/games")
    page.wait_for_selector("#push-on:not([hidden])")
    assert page.evaluate("Notification.permission") == "default"
    page.click("#push-on")
    page.wait_for_function("document.getElementById('push-status').textContent !== 'Off on this device.'")
    said = page.text_content("#push-status") or ""
    assert "blocked" not in said.lower() and "site settings" not in said, said
    assert page.is_visible("#push-on")  # it may be pressed again, and asks again

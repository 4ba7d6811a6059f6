"""A finished game's result shared from its page: through the device's share sheet where the browser
has one (a phone's messages and chat apps), else copied, with the replay's address."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import serious_violations

pytestmark = pytest.mark.browser

# The browser's share sheet and clipboard, recorded: ``__shareAnswer`` is what the sheet does
# ("shared", "closed": the person closed it, "refused": the browser would not share).
SHARE_SHEET = """
window.__shared = [];
window.__copied = [];
window.__shareAnswer = "shared";
navigator.share = async (data) => {
  if (window.__shareAnswer === "closed") throw new DOMException("closed", "AbortError");
  if (window.__shareAnswer === "refused") throw new DOMException("refused", "NotAllowedError");
  window.__shared.push(data);
};
Object.defineProperty(navigator, "clipboard", { configurable: true, value: {
  writeText: async (text) => { window.__copied.push(text); },
} });
"""
NO_SHARE_SHEET = """
window.__copied = [];
delete Navigator.prototype.share;
Object.defineProperty(navigator, "clipboard", { configurable: true, value: {
  writeText: async (text) => { window.__copied.push(text); },
} });
"""


def finished_page(live_site: LiveSite, new_page: Any, script: str) -> tuple[Any, str]:
    code = live_site.finished_game(2, 1, "yatzy")
    page = new_page(390, 844)
    page.add_init_script(script)
    page.goto(f"{live_site.url}/r/{code}/")
    page.wait_for_selector("#over:not([hidden]) #share-result")
    return page, code


RESULT = re.compile(r"A game of Yatzy \(Scandinavian\): 1\. P[01] \d+, [12]\. P[01] \d+")


def test_a_phone_shares_the_result_with_the_replays_address(live_site: LiveSite, new_page: Any) -> None:
    page, code = finished_page(live_site, new_page, SHARE_SHEET)
    ranking = page.locator("#over .ranking li").all_inner_texts()
    button = page.locator("#share-result")
    assert button.inner_text() == "Share the result"
    button.click()
    page.wait_for_function("__shared.length === 1")
    (shared,) = page.evaluate("__shared")
    assert RESULT.fullmatch(shared["text"]), shared
    # In the order and with the totals the panel shows.
    first = ranking[0].split()
    assert shared["text"].split(": ", 1)[1].startswith(f"1. {first[1]} {first[-1]}"), (shared, ranking)
    assert shared["url"] == f"{live_site.url}/r/{code}/replay"
    assert page.evaluate("__copied") == []

    # Closed without sharing: nothing more happens. A browser that will not share copies instead.
    page.evaluate("__shareAnswer = 'closed'")
    button.click()
    page.evaluate("new Promise((done) => setTimeout(done, 100))")
    assert page.evaluate("[__shared.length, __copied.length]") == [1, 0]
    page.evaluate("__shareAnswer = 'refused'")
    button.click()
    page.wait_for_function("__copied.length === 1")
    assert page.evaluate("__copied[0]") == f"{shared['text']}\n{shared['url']}"
    assert button.inner_text() == "Copied!"
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert serious_violations(page) == [], scheme
    assert page.errors == []


def test_without_a_share_sheet_the_result_is_copied(live_site: LiveSite, new_page: Any) -> None:
    page, code = finished_page(live_site, new_page, NO_SHARE_SHEET)
    button = page.locator("#share-result")
    assert button.inner_text() == "Copy the result"
    button.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("__copied.length === 1")
    text, url = page.evaluate("__copied[0]").split("\n")
    assert RESULT.fullmatch(text) and url == f"{live_site.url}/r/{code}/replay"
    page.wait_for_function("document.getElementById('share-result').textContent === 'Copied!'")
    assert page.evaluate("document.activeElement.id") == "share-result"
    # Then it says what it does again, for the next press.
    page.wait_for_function("document.getElementById('share-result').textContent === 'Copy the result'")
    assert page.errors == []


def test_a_game_everyone_left_before_the_start_has_no_result_to_share(live_site: LiveSite, new_page: Any) -> None:
    code = live_site.run(
        """
from games import services
controller = services.new_controller()
made = services.game_create(host_name="Ann", controller=controller, ruleset="official")
services.game_leave(code=made.game.code, controller=controller, seat=0, expected_version=None, action_id="")
result = made.game.code
"""
    )
    page = new_page()
    page.goto(f"{live_site.url}/r/{code}/")
    page.wait_for_selector("#over:not([hidden])")
    assert page.locator("#share-result").count() == 0


# A share sheet slow to come up, as a phone's is: open until the test closes it; a second share
# while one is open is refused, as browsers refuse it ("An earlier share has not yet completed").
SLOW_SHARE_SHEET = """
window.__shared = [];
window.__copied = [];
let open = null;
navigator.share = (data) => {
  if (open) return Promise.reject(new DOMException("An earlier share has not yet completed.", "InvalidStateError"));
  return new Promise((done) => { open = () => { open = null; window.__shared.push(data); done(); }; });
};
window.__closeSheet = () => open?.();
Object.defineProperty(navigator, "clipboard", { configurable: true, value: {
  writeText: async (text) => { window.__copied.push(text); },
} });
"""


def test_a_second_tap_while_the_share_sheet_comes_up_copies_nothing(live_site: LiveSite, new_page: Any) -> None:
    """An impatient second tap on Share the result, the sheet not up yet: the browser refuses a
    second share. That is not a browser that will not share: copying the result then would write
    over whatever its player had on the clipboard and say "Copied!" under the sheet."""
    page, _ = finished_page(live_site, new_page, SLOW_SHARE_SHEET)
    button = page.locator("#share-result")
    button.click()
    button.click()
    page.evaluate("new Promise((done) => setTimeout(done, 100))")
    page.evaluate("__closeSheet()")
    page.wait_for_function("__shared.length === 1")
    assert page.evaluate("__copied") == []
    assert button.inner_text() == "Share the result"
    assert page.errors == []

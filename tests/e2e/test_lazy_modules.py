"""The room page's modules fetched after its first draw (static/js/room.js ``later``): a fetch
that fails (the network gone for a moment) is tried again, and what it draws comes then."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import create_online, create_online_read_seed, join, local_room, rendered
from tests.e2e.test_table_layout import HOLD_IDLE

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


def test_a_join_sent_before_the_page_is_idle_carries_this_browsers_seed(live_site: LiveSite, new_page: Any) -> None:
    """Bob takes a seat before his page has fetched the seeds' module (seed.js, fetched once idle):
    the join waits for it and sends his browser's seed, which the page keeps for the game's end."""
    ann = new_page()
    url = create_online(ann, live_site, "Ann")
    bob = new_page()
    bob.add_init_script(HOLD_IDLE)
    bob.goto(url)
    bob.wait_for_selector("#conn[data-state=connected]")
    fetched = "performance.getEntriesByType('resource').some((e) => e.name.endsWith('/static/js/seed.js'))"
    assert not bob.evaluate(fetched)
    bob.fill("#join-name", "Bob")
    with bob.expect_request(lambda request: request.method == "POST" and "/join" in request.url) as sent:
        bob.click("#join-btn")
    seed = dict(part.split("=", 1) for part in (sent.value.post_data or "").split("&"))["client_seed"]
    assert len(seed) == 32, seed
    bob.wait_for_selector(".seat .tag.you")
    code = url.rstrip("/").rsplit("/", 1)[-1]
    assert bob.evaluate(f"JSON.parse(localStorage.getItem('yahtzee-seeds'))['{code}'].seed") == seed
    assert bob.errors == []


def test_a_reaction_before_the_page_is_idle_shows_its_bubble(live_site: LiveSite, new_page: Any) -> None:
    """The card's bubbles (room/bubbles.js) are fetched once idle: a reaction that comes first brings them."""
    ann, bob = new_page(), new_page()
    join(bob, create_online(ann, live_site, "Ann"), "Bob")
    ann.wait_for_function("document.querySelectorAll('#seats .seat').length === 2")
    ann.click("#start")
    ann.wait_for_selector("#roll")
    ann.add_init_script(HOLD_IDLE)
    ann.reload()
    ann.wait_for_selector("#conn[data-state=connected]")
    ann.wait_for_selector("#roll")
    bob.click("#play-reactions button[aria-label='React 👏']")
    ann.wait_for_selector(".reaction-float")
    assert ann.evaluate("document.querySelector('.reaction-float').textContent") == "👏Bob"
    assert ann.evaluate("window.__idle.length") == 1  # still not idle: the reaction asked for them
    assert ann.errors == [] and bob.errors == []


def test_a_new_rooms_page_keeps_the_seed_its_form_sent_before_it_is_idle(live_site: LiveSite, new_page: Any) -> None:
    """Ann makes a room: the home page's form sends her browser's seed, and the room's page keeps it
    under the room's code at once, not once idle (seed.js), so that leaving it at once loses nothing."""
    page = new_page()
    page.add_init_script(HOLD_IDLE)
    code, seed = create_online_read_seed(page, live_site, "Ann")
    page.wait_for_function(
        "([code, seed]) => JSON.parse(localStorage.getItem('yahtzee-seeds') ?? '{}')[code]?.seed === seed",
        arg=[code, seed],
    )
    assert page.evaluate("window.__idle.length") == 1
    assert page.errors == []


# The page's sockets kept (window.__sockets), so that a test can have the newest one hear a frame.
KEEP_SOCKETS_HERE = """
window.__sockets = [];
const NativeSocket = window.WebSocket;
window.WebSocket = class extends NativeSocket {
  constructor(...args) {
    super(...args);
    window.__sockets.push(this);
  }
};
"""
# The server's refusal ``frame`` heard by the page's socket, and its toast read in the same task.
REFUSED = """(frame) => {
  window.__sockets.at(-1).dispatchEvent(new MessageEvent("message", { data: JSON.stringify(frame) }));
  const box = document.getElementById("toast");
  return box.hidden ? null : box.textContent;
}"""


def test_a_refusal_is_toasted_at_once_when_its_words_are_there(live_site: LiveSite, new_page: Any) -> None:
    """A refusal's words (room/errors.js) are fetched once idle: the first refusal before that
    says something went wrong until they come, and every one after is toasted at once in its own
    words, in its place among the page's toasts (one waiting for a module already there would land
    over a toast that came after it)."""
    page = new_page()
    page.add_init_script(HOLD_IDLE + KEEP_SOCKETS_HERE)
    create_online(page, live_site, "Ann")
    page.wait_for_selector("#conn[data-state=connected]")
    first = {"type": "error", "code": "not_your_turn", "message": "It is Bob's turn.", "id": "refused-1"}
    assert page.evaluate(REFUSED, first) == "Something went wrong."  # its words on their way
    page.wait_for_function("document.getElementById('toast').textContent === 'It is not your turn.'")
    assert page.is_visible("#toast")
    assert page.evaluate("window.__idle.length") == 1  # not idle: the refusal fetched them
    second = {"type": "error", "code": "not_rolled", "message": "Roll first.", "id": "refused-2"}
    assert page.evaluate(REFUSED, second) == "Roll first."
    assert page.errors == []


class HeldModule:
    """The page's requests for one of its modules fetched after the first draw (``room/bubbles.js``),
    held as a slow network would until the test lets the first go on."""

    def __init__(self, page: Any, module: str) -> None:
        self.page = page
        self.module = module
        self.requests: list[Any] = []
        page.route(f"**/static/js/{module}*", self.hold)

    def hold(self, route: Any) -> None:
        self.requests.append(route)

    def asked(self) -> None:
        """Until the page asked for the module (a frame at a time)."""
        deadline = time.monotonic() + 20
        while not self.requests and time.monotonic() < deadline:
            self.page.evaluate("() => new Promise((done) => requestAnimationFrame(done))")
        assert self.requests, f"{self.module} was not asked for"

    def release(self) -> None:
        """Lets the page's first request for the module go on."""
        self.requests[0].continue_()

    def came(self) -> None:
        """Lets the first request go on, and returns once the module came: fetched, evaluated and
        handed to each page script that asked for it, and a frame drawn after."""
        url = self.requests[0].request.url
        self.release()
        self.page.wait_for_function(
            "(module) => performance.getEntriesByType('resource').some((e) => e.name.includes(module))",
            arg=f"/static/js/{self.module}",
        )
        # Evaluated and handed to each page script that asked for it before, and a frame drawn after.
        self.page.evaluate("async (url) => { await import(url); }", url)
        rendered(self.page)


SIX_NAMES = ["Alexandra", "Benedict", "Cleopatra", "Dominique", "Evangeline", "Frederick"]


def first_cut_name(page: Any, site: LiveSite) -> str:
    """A local room of six long names on ``page``, drawn with names cut on its card: the seat of the
    first cut name (a button that shows it whole)."""
    local_room(page, site, SIX_NAMES)
    page.wait_for_selector("#card .seat-head-name[role=button]")
    return str(
        page.locator("#card .seat-head-name[role=button]").first.evaluate(
            "(e) => e.closest('th.seat-head').dataset.seat"
        )
    )


WHOLE_NAMES = "() => [...document.querySelectorAll('.reaction-float.whole-name')].map((b) => b.dataset.seat)"


@pytest.mark.parametrize("withdrawn", ["escape", "away and back"])
def test_a_whole_name_the_keyboard_withdrew_while_its_module_came_is_not_shown(
    live_site: LiveSite, new_page: Any, withdrawn: str
) -> None:
    """Enter on a cut name before the page is idle fetches the bubbles' module (room/bubbles.js).
    Escape pressed before it comes, or the keyboard gone to another name and back, withdrew the
    ask: the name is not shown whole when the module comes, and the next Enter shows it."""
    page = new_page(390, 844)
    page.add_init_script(HOLD_IDLE)
    held = HeldModule(page, "room/bubbles.js")  # its request, held until the keyboard withdrew the ask
    seat = first_cut_name(page, live_site)
    page.locator("#card .seat-head-name[role=button]").first.focus()
    page.keyboard.press("Enter")
    held.asked()
    if withdrawn == "escape":
        page.keyboard.press("Escape")
    else:
        page.keyboard.press("Tab")
        page.wait_for_function(f"document.activeElement.closest('th.seat-head')?.dataset.seat !== '{seat}'")
        rendered(page)
        page.keyboard.press("Shift+Tab")
        page.wait_for_function(f"document.activeElement.closest('th.seat-head')?.dataset.seat === '{seat}'")
    held.came()
    assert page.evaluate(WHOLE_NAMES) == []
    assert page.evaluate("window.__idle.length") == 1
    page.keyboard.press("Enter")
    page.wait_for_function(f"document.querySelector('.reaction-float.whole-name[data-seat=\"{seat}\"]')")
    assert page.errors == []


def test_a_refusal_is_toasted_at_once_while_its_words_are_slow_to_come(live_site: LiveSite, new_page: Any) -> None:
    """Jonas's network is slow to bring a refusal's words (room/errors.js, fetched by the first
    refusal before the page is idle): the toast shows at once, in his language, where the page's
    toasts show, and the refusal's own words take its place when they come. A second refusal
    meanwhile is the one whose words the toast then says: the first's do not land over it."""
    page = new_page(locale="da-DK")
    page.add_init_script(HOLD_IDLE + KEEP_SOCKETS_HERE)
    held = HeldModule(page, "room/errors.js")  # its request, held as a slow network would
    create_online(page, live_site, "Jonas")
    first = {"type": "error", "code": "not_your_turn", "message": "It is Bob's turn.", "id": "refused-1"}
    assert page.evaluate(REFUSED, first) == "Noget gik galt."  # Something went wrong.
    held.asked()
    second = {
        "type": "error",
        "code": "not_rolled",
        "message": "Roll first: there are no dice to hold yet.",
        "id": "refused-2",
    }
    assert page.evaluate(REFUSED, second) == "Noget gik galt."
    assert page.evaluate("document.getElementById('toast').dataset.kind") == "error"
    held.release()
    page.wait_for_function("document.getElementById('toast').textContent === 'Slå først.'")  # Roll first.
    assert page.is_visible("#toast")
    assert page.evaluate("window.__idle.length") == 1  # not idle: the refusal fetched them
    third = {"type": "error", "code": "box_filled", "message": "That box is already filled.", "id": "refused-3"}
    assert page.evaluate(REFUSED, third) == "Det felt er allerede udfyldt."
    assert page.errors == []


def test_two_quick_taps_on_two_cut_names_before_their_module_came_show_the_second_alone(
    live_site: LiveSite, new_page: Any
) -> None:
    """A tap on a cut name before the page is idle fetches the bubbles' module (room/bubbles.js):
    a tap on another name before it comes takes the first's place, and the second name alone is
    shown whole when the module comes."""
    page = new_page(390, 844)
    page.add_init_script(HOLD_IDLE)
    held = HeldModule(page, "room/bubbles.js")
    local_room(page, live_site, SIX_NAMES)
    page.wait_for_selector("#card .seat-head-name[role=button]")
    names = page.locator("#card .seat-head-name[role=button]")
    assert names.count() >= 2
    names.nth(0).click()
    held.asked()
    names.nth(1).click()
    second = names.nth(1).evaluate("(e) => e.closest('th.seat-head').dataset.seat")
    held.came()
    assert page.evaluate(WHOLE_NAMES) == [second]
    assert page.evaluate("window.__idle.length") == 1
    assert page.errors == []


def test_a_whole_name_the_keyboard_asked_for_is_withdrawn_by_a_redraw_that_takes_its_button(
    live_site: LiveSite, new_page: Any
) -> None:
    """Enter on a cut name before the page is idle fetches the bubbles' module (room/bubbles.js).
    The card drawn again before it comes, wide enough now for the name (a phone turned, a window
    widened), takes the name's button and the ask with it: the card narrow again and the keyboard
    back on the name, no bubble shows when the module comes, as none was asked since; the next
    Enter shows it."""
    page = new_page(390, 844)
    page.add_init_script(HOLD_IDLE)
    held = HeldModule(page, "room/bubbles.js")
    seat = first_cut_name(page, live_site)
    button = f"#card th.seat-head[data-seat='{seat}'] .seat-head-name[role=button]"
    page.focus(button)
    page.keyboard.press("Enter")
    held.asked()
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_function(f'!document.querySelector("{button}")')
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_selector(button)
    page.focus(button)
    held.came()
    assert page.evaluate(WHOLE_NAMES) == []
    page.keyboard.press("Enter")
    page.wait_for_function(f"document.querySelector('.reaction-float.whole-name[data-seat=\"{seat}\"]')")
    assert page.errors == []


def test_a_refusals_words_that_come_after_its_toast_closed_are_still_shown(live_site: LiveSite, new_page: Any) -> None:
    """Ann's network brings a refusal's words (room/errors.js) only after its toast, which said
    something went wrong, closed. Nothing was toasted since: the refusal's own words are shown
    then, or she (and her screen reader) never learns why the move was refused."""
    page = new_page()
    page.add_init_script(HOLD_IDLE + KEEP_SOCKETS_HERE)
    held = HeldModule(page, "room/errors.js")
    create_online(page, live_site, "Ann")
    first = {"type": "error", "code": "not_your_turn", "message": "It is Bob's turn.", "id": "refused-1"}
    assert page.evaluate(REFUSED, first) == "Something went wrong."
    held.asked()
    page.wait_for_selector("#toast", state="hidden")
    held.release()
    page.wait_for_function(
        "!document.getElementById('toast').hidden"
        " && document.getElementById('toast').textContent === 'It is not your turn.'"
    )
    assert page.errors == []


# Each time the toast's words are written (role=alert: a screen reader reads them out each time).
COUNT_TOAST_WRITES = """
window.__toastWrites = [];
document.addEventListener("DOMContentLoaded", () => {
  const box = document.getElementById("toast");
  if (box) new MutationObserver(() => window.__toastWrites.push(box.textContent))
    .observe(box, { childList: true, characterData: true, subtree: true });
});
"""


def test_a_spectators_post_refused_without_words_is_read_out_once(live_site: LiveSite, new_page: Any) -> None:
    """Eve watches a room whose spectators may chat. Her first message asks the server for a
    spectator's token, and a proxy answers with a page of its own, no words of the server's: the
    toast says something went wrong, and once the refusals' words (room/errors.js) come with
    nothing better to say, it is not written again (its screen reader would read it out twice)."""
    ann = new_page()
    ann.goto(live_site.url + "/")
    ann.check("input[name=mode][value=online]")
    ann.fill("#id_name", "Ann")
    ann.check("#id_chat_spectators")
    ann.click("#create-btn")
    ann.wait_for_selector("#conn[data-state=connected]")
    url = ann.url
    eve = new_page()
    eve.add_init_script(HOLD_IDLE + COUNT_TOAST_WRITES)
    held = HeldModule(eve, "room/errors.js")
    eve.route(
        "**/spectator",
        lambda route: route.fulfill(status=502, content_type="text/html", body="<h1>Bad gateway</h1>"),
    )
    eve.goto(url)
    eve.wait_for_selector("#conn[data-state=connected]")
    eve.wait_for_selector("#chat-form:not([hidden])")
    eve.fill("#chat-text", "hello")
    eve.press("#chat-text", "Enter")
    eve.wait_for_function("!document.getElementById('toast').hidden")
    assert eve.text_content("#toast") == "Something went wrong."
    held.asked()
    held.came()
    assert eve.evaluate("window.__toastWrites") == ["Something went wrong."]
    assert eve.input_value("#chat-text") == "hello"
    assert [error for error in eve.errors if "502 (Bad Gateway)" not in error] == []  # the proxy's answer


@pytest.mark.parametrize("module", ["on its way", "there"])
def test_a_tap_on_a_head_beside_the_name_the_keyboard_is_on_shows_the_name_whole(
    live_site: LiveSite, new_page: Any, module: str
) -> None:
    """Ann tabbed to a cut name on her phone's card, then taps its column's head beside the name
    (the keyboard leaves the name for it). The tap asks to see the name whole for a moment, as a
    tap on any head does: the keyboard leaving the name withdraws its own ask and bubble, not the
    tap's, whether the bubbles' module (room/bubbles.js) is still on its way or there."""
    page = new_page(390, 844)
    if module == "on its way":
        page.add_init_script(HOLD_IDLE)
        held = HeldModule(page, "room/bubbles.js")
    seat = first_cut_name(page, live_site)
    head = f"#card th.seat-head[data-seat='{seat}']"
    page.focus(f"{head} .seat-head-name[role=button]")
    box = page.locator(head).bounding_box()
    name = page.locator(f"{head} .seat-head-name").bounding_box()
    assert box and name and box["y"] + box["height"] - (name["y"] + name["height"]) > 2, (box, name)
    page.click(head, position={"x": box["width"] / 2, "y": box["height"] - 1})  # under the name
    assert page.evaluate("document.activeElement.closest('th.seat-head')") is None  # the keyboard left it
    if module == "on its way":
        held.asked()
        held.came()
    else:
        page.wait_for_function(f"document.querySelector('.reaction-float.whole-name[data-seat=\"{seat}\"]')")
        rendered(page)
    assert page.evaluate(WHOLE_NAMES) == [seat]
    assert page.errors == []

"""The table on a phone whose network goes and comes back: what the player tapped while the
connection was already gone, and what the page says when it is back."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import (
    act,
    create_local,
    create_online,
    in_each_scheme,
    room_code,
    shot,
    time_runs_out,
    timed_game_with_bob,
)
from tests.e2e.test_social import say

pytestmark = pytest.mark.browser


# Records in window.toastsShown the words of each toast the page shows.
TOASTS = """() => {
  const box = document.getElementById('toast');
  window.toastsShown = [];
  const note = () => { if (!box.hidden) window.toastsShown.push(box.textContent); };
  new MutationObserver(note).observe(box, { attributes: true, childList: true, characterData: true, subtree: true });
}"""


class Link:
    """The page's room sockets through a link the test can cut: nothing crosses it either way while
    cut, as when a phone's network is gone (Chromium's own offline mode lets an open socket's frames
    out), and the browser is told it is offline."""

    def __init__(self, page: Any) -> None:
        self.page, self.cut = page, False
        page.route_web_socket(re.compile(r".*/ws/rooms/.*"), self._through)

    def _through(self, ws: Any) -> None:
        self.socket = ws
        server = ws.connect_to_server()
        ws.on_message(lambda message: None if self.cut else server.send(message))
        server.on_message(lambda message: None if self.cut else ws.send(message))

    def down(self) -> None:
        self.cut = True
        self.page.context.set_offline(True)

    def up(self) -> None:
        self.cut = False
        self.page.context.set_offline(False)

    def drop(self) -> None:
        """The page's socket closes as one the network lost does (the next goes through the link too)."""
        self.socket.close()


def test_what_was_tapped_after_the_network_went_is_not_played_on_the_table_it_comes_back_to(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann's network goes mid-turn: her page still says Connected, and she holds a die and taps
    Chance. The hold goes into a socket that is gone; the score waits behind it. Her time runs out
    meanwhile and the turn passes to Bob. Back online, the page shows Bob's turn: it does not send
    her old score to a table where it is not her turn, nor tell her "It is not your turn."."""
    ann, bob = new_page(width=390, height=844, is_mobile=True, has_touch=True), new_page()
    link = Link(ann)
    timed_game_with_bob(live_site, ann, bob)
    act(ann, [ann, bob], lambda: ann.click("#roll"))
    # The frames stop first and the browser hears it is offline after her taps: told, the page
    # gives its socket WAKE_WAIT (5 s) to answer, and taps later than that (a loaded machine's)
    # would land on a page that says Reconnecting.
    link.cut = True
    ann.click("#die-0")
    ann.click("#score-chance-0")
    link.down()
    ann.wait_for_selector("#conn[data-state=reconnecting]")
    # Every toast the page shows from here on: one shows for 6 s, and could come and go unseen.
    ann.evaluate(TOASTS)
    time_runs_out(live_site, bob, 0)
    bob.wait_for_function("document.getElementById('turn-h').textContent.startsWith('Your turn')")
    link.up()
    ann.wait_for_selector("#conn[data-state=connected]")
    ann.wait_for_function("document.getElementById('turn-h').textContent.startsWith(\"Bob's turn\")")
    say(ann, "back")  # echoed after anything the page sent as it came back was answered
    ann.wait_for_selector("#chat-list .chat-line")
    toast = ann.locator("#toast")
    assert toast.is_hidden() or "not your turn" not in toast.inner_text(), toast.inner_text()
    said = ann.evaluate("window.toastsShown")
    assert not any("not your turn" in text for text in said), said
    # The browser's own word on each try while offline is the only thing said in the console.
    assert [error for error in ann.errors if "ERR_INTERNET_DISCONNECTED" not in error] == []


def test_a_page_whose_first_socket_is_still_connecting_says_connecting_not_that_it_dropped(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann's page is drawn and its first socket has not heard the room yet (a slow network): no
    connection was ever open, so none dropped. Roll says Connecting, and the hint is the turn's."""
    ann = new_page()
    create_local(ann, live_site, ["Ann", "Bob"])
    # The socket opens in the page and the server is never reached: nothing is heard.
    ann.route_web_socket(re.compile(r".*/ws/rooms/.*"), lambda ws: None)
    ann.reload()
    ann.wait_for_selector("#roll")
    assert ann.get_attribute("#conn", "data-state") == "connecting"
    assert ann.inner_text("#conn") == "Connecting…"
    assert ann.inner_text("#roll").strip() == "Connecting…"
    assert ann.is_disabled("#roll")
    hint = ann.inner_text("#turn-meta")
    assert "dropped" not in hint and "Reconnecting" not in ann.inner_text("#play"), hint
    assert "Roll to start your turn." in hint, hint


_ROOM_DELETED = """
from games.store.models import Game, Move
code, = args
Move.objects.filter(game__code=code).delete()
result, _ = Game.objects.filter(code=code).delete()
"""


def test_a_page_whose_room_was_deleted_stops_reconnecting_and_says_the_room_is_gone(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann's lobby is open; the room is deleted meanwhile (a room never started is swept after its
    days without use), and her socket drops. Her page does not try again for ever saying
    Reconnecting: the room is gone, it says, with a way to the home page."""
    ann = new_page()
    link = Link(ann)
    create_online(ann, live_site, "Ann")
    assert live_site.run(_ROOM_DELETED, room_code(ann)) >= 1
    link.drop()
    ann.wait_for_selector("#gone:not([hidden])")
    assert ann.get_attribute("#conn", "data-state") == "gone"
    assert "This room no longer exists." in ann.inner_text("#gone")
    assert ann.locator("#lobby").is_hidden() and ann.locator("#table").is_hidden()
    for width, height in ((1280, 800), (390, 844)):
        ann.set_viewport_size({"width": width, "height": height})
        for scheme in in_each_scheme(ann):
            shot(ann, f"room-gone-{width}-{scheme}")
    ann.click("#gone a")
    ann.wait_for_url(live_site.url + "/")
    assert [error for error in ann.errors if "WebSocket" not in error] == []


def test_the_keyboard_left_in_a_deleted_room_goes_to_the_card_that_says_so(live_site: LiveSite, new_page: Any) -> None:
    """Ann's keyboard is on the lobby's Copy link when her room is deleted, and the server closes
    her open socket as it closes one for a room that does not exist. The lobby goes, and the
    keyboard with it does not fall to the top of the page: it is on the card that says the room
    is gone, where Tab reaches the way home."""
    ann = new_page()
    link = Link(ann)
    create_online(ann, live_site, "Ann")
    ann.focus("#copy")
    link.socket.close(code=4404)
    ann.wait_for_selector("#gone:not([hidden])")
    assert ann.get_attribute("#conn", "data-state") == "gone"
    assert ann.evaluate("document.activeElement.closest('#gone')?.id") == "gone"
    ann.keyboard.press("Tab")
    assert ann.evaluate("document.activeElement.closest('#gone a') !== null")

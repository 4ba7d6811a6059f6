"""Rough edges a new player hit, tried in the browser: a pasted invite link, a refused join's name, a seat taken back,
focus after Start, a Start pressed as someone joins."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import act, create_online, join, join_refused, online_game, seated, version

pytestmark = pytest.mark.browser


def test_the_whole_invite_link_pasted_into_room_code_opens_the_room(live_site: LiveSite, new_page: Any) -> None:
    host, friend = new_page(), new_page()
    url = create_online(host, live_site, "Ann")
    friend.goto(live_site.url + "/")
    friend.fill("#id_code", f"  {url}  ")
    friend.click("#join-h ~ form button[type=submit]")
    friend.wait_for_selector("#conn[data-state=connected]")
    assert friend.url.rstrip("/") == url.rstrip("/")
    friend.wait_for_selector("#join-name")
    assert friend.errors == []


def test_a_link_to_another_site_a_stray_slash_or_a_code_of_no_room_gets_a_clear_message_not_a_500(
    live_site: LiveSite, new_page: Any
) -> None:
    page = new_page()
    for typed in ("ab/cd", "https://example.org/lobby/abc", "ab$cd", "zzzz-zzzz-zz", "abcd-efgh-j"):
        page.goto(live_site.url + "/")
        page.fill("#id_code", typed)
        page.click("#join-h ~ form button[type=submit]")
        page.wait_for_selector("#code-error")
        assert "Server Error" not in page.content()
        assert page.inner_text("#code-error").strip()
        # What was typed stays, to be put right, and the keyboard is in it.
        assert page.input_value("#id_code") == typed
        assert page.evaluate("document.activeElement.id") == "id_code"
        assert page.locator("#id_code").get_attribute("aria-invalid") == "true"


def test_a_refused_join_keeps_the_name_typed_and_ties_why_to_its_field(live_site: LiveSite, new_page: Any) -> None:
    """Bob asks for Ann's name in capitals: the join is refused (name_taken) and he is back in the
    room with ANN still in the field, marked invalid and described by the reason."""
    ann = new_page()
    url = create_online(ann, live_site, "Ann")
    bob = new_page()
    bob.goto(url)
    assert join_refused(bob, "ANN") == "Someone here is already called ANN."
    assert bob.input_value("#join-name") == "ANN"
    assert bob.get_attribute("#join-name", "aria-invalid") == "true"
    assert "join-error" in (bob.get_attribute("#join-name", "aria-describedby") or "").split()
    # The keyboard is on the name to put right, which a screen reader reads with why.
    assert bob.evaluate("document.activeElement.id") == "join-name"
    # Said right under the field, not above the room where the eye is not.
    field, said = bob.locator("#join-name").bounding_box(), bob.locator("#join-error").bounding_box()
    assert field and said and 0 <= said["y"] - (field["y"] + field["height"]) < 40
    assert bob.locator("#lobby #join-error").count() == 1
    bob.goto(url)  # said once: the room opened again has the field empty, and nothing wrong with it
    bob.wait_for_selector("#join-name")
    assert bob.input_value("#join-name") == "" and bob.get_attribute("#join-name", "aria-invalid") is None
    assert bob.locator("#join-error").count() == 0


def test_a_player_whose_seat_a_computer_played_gets_it_back_by_coming_back(live_site: LiveSite, new_page: Any) -> None:
    ann, bob = new_page(), new_page()
    url = create_online(ann, live_site, "Ann")
    code = url.rstrip("/").rsplit("/", 1)[-1]
    join(bob, url, "Bob")
    seated(ann, 2)
    act(ann, [ann, bob], lambda: ann.click("#start"))
    bob.goto(live_site.url + "/")  # Bob walks away: his socket closes
    ann.wait_for_selector("#replace-1")
    ann.on("dialog", lambda dialog: dialog.accept())
    ann.click("#replace-1")
    ann.wait_for_function("document.getElementById('feed').textContent.includes(\"took over Bob's seat\")")
    (kind,) = live_site.query(
        "SELECT p.kind FROM games_player p JOIN games_game g ON g.id = p.game_id WHERE g.code = ? AND p.seat = 1", code
    )[0]
    assert kind == "bot"

    bob.goto(url)  # the same browser comes back
    bob.wait_for_selector("#conn[data-state=connected]")
    bob.wait_for_selector(".seat .tag.you")
    ann.wait_for_function(
        "document.getElementById('feed').textContent.includes('Bob is back and plays their own seat again')"
    )
    (kind,) = live_site.query(
        "SELECT p.kind FROM games_player p JOIN games_game g ON g.id = p.game_id WHERE g.code = ? AND p.seat = 1", code
    )[0]
    assert kind == "human"
    assert ann.errors == [] and bob.errors == []


def test_after_start_the_keyboard_focus_is_on_the_roll_button(live_site: LiveSite, new_page: Any) -> None:
    ann, bob = new_page(), new_page()
    online_game(live_site, ann, bob)
    ann.wait_for_function("document.activeElement && document.activeElement.id === 'roll'")


def test_a_start_pressed_as_someone_joins_is_refused_in_words_and_can_be_pressed_again(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann presses Start as Bob takes a seat: her page has not heard of him yet, so the server refuses
    the Start (it names a version Bob's join passed). His join reaches her page before the refusal,
    and is not the Start's answer: taken for it, nothing would be said and the game not start. The
    page says the table changed, shows Bob, and Start starts the game."""
    ann, bob = new_page(), new_page()
    held: list[Any] = []
    hold = {"on": False}

    def route(ws: Any) -> None:  # what the server says reaches Ann's page late while ``hold`` is on
        server = ws.connect_to_server()
        ws.on_message(lambda message: server.send(message))
        server.on_message(lambda message: held.append((ws, message)) if hold["on"] else ws.send(message))

    ann.route_web_socket(re.compile(r".*/ws/rooms/.*"), route)
    url = create_online(ann, live_site, "Ann")
    hold["on"] = True
    join(bob, url, "Bob")
    before = version(ann)
    ann.click("#start")
    for _ in range(600):  # the refusal is on its way too: held frames come in while Playwright waits
        if any('"error"' in message for _, message in held):
            break
        ann.wait_for_timeout(50)
    else:
        raise AssertionError(f"the server's answer to the Start never came: {held}")
    # Delivered in the server's order: a frame that comes in while one is handed over (each send
    # lets Playwright hand the test new ones) joins the queue instead of passing it.
    while held:
        ws, message = held.pop(0)
        ws.send(message)
    hold["on"] = False
    ann.wait_for_selector("#toast:not([hidden])")
    assert ann.inner_text("#toast") == "The table changed just before your move: have a look and try again."
    assert version(ann) > before and ann.is_visible("#lobby")
    seated(ann, 2)
    act(ann, [ann, bob], lambda: ann.click("#start"))
    ann.wait_for_selector("#lobby", state="hidden")
    bob.wait_for_selector("#play:not([hidden])")

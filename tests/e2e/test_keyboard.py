"""The keyboard on the table and the replay: Space rolls only where it means to, focus stays where
the player was when the table is drawn again, and the replay's keys leave other controls theirs
and its step buttons keep the keyboard at either end."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import (
    act,
    bob_and_cy_join,
    bob_kept_by_the_computer,
    bob_walked_away,
    create_online,
    in_each_scheme,
    join,
    local_room,
    muted_bob_leaves,
    online_game,
    rendered,
    score_best,
    seated,
    serious_violations,
    shot,
    version,
    wait_version,
)
from tests.e2e.test_social import KEEP_SOCKETS, say

pytestmark = pytest.mark.browser

FOCUSED = "document.activeElement === document.body ? 'BODY' : document.activeElement.id"

# The focused button's act in the Players list, and the name of the seat it is on.
FOCUSED_SEAT_BUTTON = """(e => [e.dataset.act, e.closest('.seat')?.querySelector('.seat-name').textContent])(
    document.activeElement)"""

# Whether the browser keeps the keyboard where it is: on an element drawn (not in a part hidden,
# nor invisible) that can take it. One the page hid keeps it until the browser next draws, and
# then loses it to the page's body: read after the draw that would move it, this says that the
# keyboard stays, whichever frame of the browser comes next.
KEPT = """(() => {
  const el = document.activeElement;
  return el !== document.body && el.isConnected && !el.disabled && !el.closest('[inert]')
    && el.checkVisibility({ visibilityProperty: true });
})()"""

# The lower contrast of the focused element's ring with the play card's two felt greens (WCAG
# 2.4.11 and 1.4.11 ask 3:1), or 0 when it shows no ring.
RING_ON_FELT = """() => {
  const colour = (value) => {
    const probe = document.createElement('i');
    probe.style.color = value;
    document.body.append(probe);
    const found = getComputedStyle(probe).color;
    probe.remove();
    return found;
  };
  const lum = (s) => {
    const [r, g, b] = s.match(/[\\d.]+/g).slice(0, 3).map(Number)
      .map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const style = getComputedStyle(document.activeElement);
  if (style.outlineStyle === 'none') return 0;
  const ring = lum(style.outlineColor), root = getComputedStyle(document.documentElement);
  return Math.min(...['--felt', '--felt-2'].map(v => {
    const felt = lum(colour(root.getPropertyValue(v)));
    return (Math.max(ring, felt) + 0.05) / (Math.min(ring, felt) + 0.05);
  }));
}"""


# The lower contrast with the play card's two felt greens of the ring a focused die draws on its
# face, as it shows: its colour over the felt at the opacity the face is drawn with.
DIE_RING_ON_FELT = """() => {
  const rgb = (value) => {
    const probe = document.createElement('i');
    probe.style.color = value;
    document.body.append(probe);
    const found = getComputedStyle(probe).color.match(/[\\d.]+/g).slice(0, 3).map(Number);
    probe.remove();
    return found;
  };
  const lum = (c) => {
    const [r, g, b] = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const face = document.activeElement.querySelector('.pips');
  const style = getComputedStyle(face);
  if (style.outlineStyle === 'none') return 0;
  let alpha = 1;
  for (let el = face; el && el !== document.activeElement.parentElement; el = el.parentElement) {
    alpha *= Number(getComputedStyle(el).opacity);
  }
  const ring = rgb(style.outlineColor), root = getComputedStyle(document.documentElement);
  return Math.min(...['--felt', '--felt-2'].map(v => {
    const felt = rgb(root.getPropertyValue(v));
    const shown = lum(ring.map((c, i) => c * alpha + felt[i] * (1 - alpha))), under = lum(felt);
    return (Math.max(shown, under) + 0.05) / (Math.min(shown, under) + 0.05);
  }));
}"""


def made_up_coach(ws: Any) -> None:
    """The coach's answer made up in the page's socket (no solver table needed): two choices."""
    server = ws.connect_to_server()

    def to_server(message: str | bytes) -> None:
        frame = json.loads(message)
        if frame.get("type") != "hint":
            server.send(message)
            return
        options = [
            {"kind": "score", "box": "chance", "column": 0, "points": 20, "expected": 200.0},
            {"kind": "keep", "held": [0], "expected": 199.0},
        ]
        answer = {"type": "hint", "version": frame["version"], "seat": 0, "id": frame["id"], "ready": True}
        ws.send(json.dumps({**answer, "exact": True, "note": "", "expected": 200.0, "options": options}))

    ws.on_message(to_server)


def test_the_keyboard_keeps_its_place_and_space_rolls_only_from_the_table(live_site: LiveSite, new_page: Any) -> None:
    page = new_page()
    page.route_web_socket(re.compile(r".*/ws/rooms/.*"), made_up_coach)
    local_room(page, live_site, ["Solo"])
    act(page, [page], lambda: page.click("#roll"))
    # Asking the coach: the Hint button becomes "Thinking…", then the answer; the keyboard stays on the table.
    page.focus("#roll")
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED) == "hint"
    assert page.evaluate(RING_ON_FELT) >= 3  # its focus ring shows on the felt
    page.keyboard.press("Enter")
    page.wait_for_selector(".hint-box li.best")
    assert page.evaluate(FOCUSED) != "BODY"
    # Space on the answer's "more choices" opens them, and rolls nothing.
    before = page.get_attribute("#room", "data-version")
    was_open = page.evaluate("document.querySelector('.hint-more').open")
    page.focus(".hint-more summary")
    assert page.evaluate(RING_ON_FELT) >= 3
    page.keyboard.press(" ")
    page.wait_for_function("(was) => document.querySelector('.hint-more').open !== was", arg=was_open)
    assert page.get_attribute("#room", "data-version") == before
    # The last roll draws Roll again disabled: the keyboard goes to the dice, not to the page's top.
    page.focus("#roll")
    for _ in range(2):
        act(page, [page], lambda: page.keyboard.press("Enter"))
    assert page.locator("#roll").is_disabled()
    assert page.evaluate(FOCUSED) == "dice"


def test_the_host_keeps_focus_on_a_seats_mute_button_as_it_turns_to_unmute(live_site: LiveSite, new_page: Any) -> None:
    host, friend = new_page(), new_page()
    url = create_online(host, live_site, "Ann")
    join(friend, url, "Bob")
    host.wait_for_selector("#mute-1")
    host.focus("#mute-1")
    act(host, [host, friend], lambda: host.keyboard.press("Enter"))
    host.wait_for_selector("#seats [data-act=unmute][data-seat='1']")
    assert host.evaluate(FOCUSED) == "mute-1"
    # Taking the seat out takes its buttons: the keyboard stays in the players list.
    host.on("dialog", lambda dialog: dialog.accept())
    host.focus("#kick-1")
    act(host, [host, friend], lambda: host.keyboard.press("Enter"))
    host.wait_for_function("!document.getElementById('kick-1')")
    assert host.evaluate("document.activeElement.closest('#seats') !== null"), host.evaluate(FOCUSED)


def enter_on(page: Any, button: str, everyone: list[Any]) -> None:
    """``page``'s keyboard presses Enter on ``button``, until the button is gone."""
    page.focus(button)
    act(page, everyone, lambda: page.keyboard.press("Enter"))
    page.wait_for_selector(button, state="detached")


def test_the_host_who_unmutes_a_player_who_left_keeps_the_keyboard_in_the_players_list(
    live_site: LiveSite, new_page: Any
) -> None:
    """Bob, muted, left the lobby: the host's list names him with Unmute chat. Pressed, his line
    goes with his mute, and the keyboard, rather than fall to the top of the page, stays in the
    list, on another seat's button (Cy's Mute chat), not on the host's own Leave."""
    host, bob, cy = new_page(), new_page(), new_page()
    bob_and_cy_join(create_online(host, live_site, "Ann"), host, bob, cy)
    muted_bob_leaves(host, bob, cy)
    host.wait_for_selector("#unmute-left-0")
    enter_on(host, "#unmute-left-0", [host, cy])
    assert host.evaluate(FOCUSED_SEAT_BUTTON) == ["mute", "Cy"], host.evaluate(FOCUSED)


def test_a_seat_taken_out_of_the_players_list_leaves_the_keyboard_by_the_next_seat_not_on_the_hosts_leave(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann removes Bob from the lobby with the keyboard: his buttons go with his seat, and the
    keyboard goes to the next seat's (Cy's Mute chat), not to the list's first button, Ann's own
    Leave, where the next Enter would ask her to leave the room she hosts."""
    host, bob, cy = new_page(), new_page(), new_page()
    bob_and_cy_join(create_online(host, live_site, "Ann"), host, bob, cy)
    host.on("dialog", lambda dialog: dialog.accept())
    host.focus("#kick-1")
    act(host, [host, cy], lambda: host.keyboard.press("Enter"))
    host.wait_for_function("document.querySelectorAll('#seats .seat').length === 2")
    assert host.evaluate(FOCUSED_SEAT_BUTTON) == ["mute", "Cy"]
    # Cy's seat taken out too, none is left but Ann's own: the keyboard goes to the list's heading.
    host.focus("#seats [data-act=kick]")
    act(host, [host], lambda: host.keyboard.press("Enter"))
    host.wait_for_function("document.querySelectorAll('#seats .seat').length === 1")
    assert host.evaluate(FOCUSED) == "seats-h"


def test_an_away_seat_taken_out_during_play_leaves_the_keyboard_on_another_seats_button(
    live_site: LiveSite, new_page: Any
) -> None:
    """During play Cy went away and Ann takes her out from the Players list with the keyboard. Cy's
    seat stays in the list, left, with a button to let a computer play it: the keyboard goes to
    another seat's button (Bob's Mute chat), not to that one, where the next Enter would undo the
    point of taking her out, nor to Ann's own Leave."""
    ann, bob, cy = new_page(), new_page(), new_page()
    bob_and_cy_join(create_online(ann, live_site, "Ann"), ann, bob, cy)
    act(ann, [ann, bob, cy], lambda: ann.click("#start"))
    cy.goto(live_site.url + "/")  # Cy walks away: her socket closes
    ann.wait_for_selector("#seats #remove-2")
    ann.on("dialog", lambda dialog: dialog.accept())
    enter_on(ann, "#seats #remove-2", [ann, bob])
    assert ann.evaluate(FOCUSED_SEAT_BUTTON) == ["mute", "Bob"], ann.evaluate(FOCUSED)


def test_im_back_from_the_keyboard_leaves_it_at_the_table_not_at_the_top_of_the_page(
    live_site: LiveSite, new_page: Any
) -> None:
    """Bob's time ran out twice and the computer plays his seat. He presses "I'm back: take my
    seat" with the keyboard: the banner goes with the button, and the keyboard stays in the play
    card (on its heading, or Roll when it is his turn), not back at the top of the page."""
    ann, bob = new_page(), new_page()
    bob_kept_by_the_computer(live_site, ann, bob)
    ann.wait_for_selector("#pause:not([hidden])")
    act(ann, [ann, bob], lambda: ann.click("#pause"))  # the clock stops while Bob comes back
    bob.focus("#back")
    before = version(bob)
    bob.keyboard.press("Enter")
    # The state that gives Bob his seat back is drawn: the banner went, and the page put the
    # keyboard elsewhere, in that draw. Then the browser has shown it.
    wait_version([bob], before)
    bob.wait_for_selector(".away-banner", state="detached")
    rendered(bob)
    assert bob.evaluate("document.activeElement.closest('#play')?.id") == "play", bob.evaluate(FOCUSED)
    assert bob.evaluate(KEPT), bob.evaluate(FOCUSED)


def test_the_language_menu_on_the_replay_takes_its_own_keys(live_site: LiveSite, new_page: Any) -> None:
    page = new_page()
    page.goto(f"{live_site.url}/r/{live_site.finished_game()}/replay")
    page.wait_for_function("document.getElementById('position').textContent.startsWith('Step 1 ')")
    page.focus("#language-select")
    page.keyboard.press("End")
    assert page.inner_text("#position").startswith("Step 1 ")


def test_a_painted_roll_is_announced_with_its_colours_and_keys_held_in_the_chat_repeat(
    live_site: LiveSite, new_page: Any
) -> None:
    page = new_page()
    local_room(page, live_site, ["Solo"], ruleset="painted")
    act(page, [page], lambda: page.click("#roll"))
    # A die's colour scores in Painted (Flush, Rainbow, the colour boxes): the screen reader hears it.
    page.wait_for_function("document.getElementById('announce').textContent.includes('rolled')")
    said = page.inner_text("#announce")
    colours = re.findall(
        r", (red|yellow|green|blue|purple)",
        " ".join(page.eval_on_selector_all("#dice .die", "els => els.map(e => e.getAttribute('aria-label'))")),
    )
    assert len(colours) == 5 and all(colour in said for colour in colours), said
    # Digits and Space held down in a text field repeat there as any key does (they hold and roll
    # only on the table).
    page.focus("#chat-text")
    for key in ("1", " ", "x"):
        for _ in range(3):  # the first press, then two of its auto-repeat
            page.keyboard.down(key)
        page.keyboard.up(key)
    assert page.input_value("#chat-text") == "111   xxx"


def double_click_answered_between(page: Any, selector: str, answered: Any) -> None:
    """A double click on ``selector`` whose first click is answered (``answered`` waits for it) before
    its second: the double click of a person on a quick server, or of a slow device."""
    box = page.locator(selector).bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down(click_count=1)
    page.mouse.up(click_count=1)
    answered()
    page.mouse.down(click_count=2)
    page.mouse.up(click_count=2)


def seats_shown(page: Any) -> int:
    return int(page.evaluate("document.querySelectorAll('#seats .seat').length"))


def test_a_double_click_on_a_hosts_button_is_one_action(live_site: LiveSite, new_page: Any) -> None:
    host = new_page()
    url = create_online(host, live_site, "Ann")
    code = url.rstrip("/").rsplit("/", 1)[-1]
    host.wait_for_selector("#add-bot")
    host.dblclick("#add-bot")  # an impatient double click: one computer
    host.wait_for_function("document.querySelectorAll('#seats .seat').length === 2")
    # Its second click after the first's computer was drawn, on the Add computer drawn again: still
    # one computer. A chat line said next comes back after anything the click sent was answered.
    double_click_answered_between(
        host, "#add-bot", lambda: host.wait_for_function("document.querySelectorAll('#seats .seat').length === 3")
    )
    say(host, "ready?")
    host.wait_for_selector("#chat-list .chat-line")
    assert seats_shown(host) == 3
    act(host, [host], lambda: host.click("#add-bot"))  # a click of its own is an action of its own
    host.wait_for_function("document.querySelectorAll('#seats .seat').length === 4")
    seated = live_site.query(
        "SELECT count(*) FROM games_player p JOIN games_game g ON g.id = p.game_id"
        " WHERE g.code = ? AND p.status = 'active'",
        code,
    )
    assert seated == [(4,)]
    host.dblclick("#start")  # the game starts, and the page does not say it had already started
    host.wait_for_selector("#roll")
    act(host, [host], lambda: host.click("#roll"))  # answered after the double click's frames
    assert host.locator("#toast").is_hidden() or "already" not in host.inner_text("#toast")


def test_a_double_click_on_roll_is_one_roll(live_site: LiveSite, new_page: Any) -> None:
    """A double tap on Roll whose first tap is answered before the second (a quick server, a slow
    phone) rolls once: the second would spend the turn's next roll on dice the player never saw."""
    ann, bob = new_page(), new_page()
    url = create_online(ann, live_site, "Ann")
    join(bob, url, "Bob")
    act(ann, [ann, bob], lambda: ann.click("#start"))
    before = version(ann)
    double_click_answered_between(ann, "#roll", lambda: wait_version([ann], before))
    say(ann, "rolled")  # answered after anything the second click sent
    for page in (ann, bob):
        page.wait_for_selector("#chat-list .chat-line")
    assert version(ann) == before + 1
    assert "2 rolls left" in ann.inner_text("#roll")
    # A click of its own is a roll of its own.
    act(ann, [ann, bob], lambda: ann.click("#roll"))
    assert "1 roll left" in ann.inner_text("#roll")


def test_the_seat_that_fills_the_room_leaves_the_keyboard_on_start(live_site: LiveSite, new_page: Any) -> None:
    """The host fills the room with computers from the keyboard: Add computer goes with the last
    seat, and the keyboard is on Start, not back at the top of the page."""
    host = new_page()
    create_online(host, live_site, "Ann")
    host.focus("#add-bot")
    for seats in range(2, 9):
        host.keyboard.press("Enter")
        host.wait_for_function(f"document.querySelectorAll('#seats .seat').length === {seats}")
        if seats < 8:
            assert host.evaluate(FOCUSED) == "add-bot"
    host.wait_for_selector("#add-bot", state="detached")
    assert host.evaluate(FOCUSED) == "start"
    host.keyboard.press("Enter")
    host.wait_for_selector("#roll")


def test_a_name_being_typed_when_the_room_fills_or_the_game_starts_leaves_the_keyboard_by_why(
    live_site: LiveSite, new_page: Any
) -> None:
    """Vic is typing her name to take a seat, and Wes the name of a second player on his device, when
    the host fills the room: the form goes, and the keyboard went to the top of the page without a
    word of why. Vic's is on "The room is full", which a screen reader then reads, and Wes's on the
    lobby's heading; when the host starts the game, on the table's turn."""
    host, vic, wes = new_page(), new_page(), new_page()
    url = create_online(host, live_site, "Ann")
    join(wes, url, "Wes")
    vic.goto(url)
    vic.wait_for_selector("#conn[data-state=connected]")
    for page, typed in ((vic, "Vic"), (wes, "Cy")):
        page.focus("#join-name")
        page.keyboard.type(typed)
    for _ in range(6):
        act(host, [host, vic, wes], lambda: host.click("#add-bot"))
    vic.wait_for_selector("#join-name", state="detached")
    wes.wait_for_selector("#join-name", state="detached")
    assert vic.evaluate(FOCUSED) == "room-full"
    assert vic.inner_text("#room-full") == "The room is full (8 players): you can watch."
    assert wes.evaluate(FOCUSED) == "lobby-h"
    # A join field left as the host starts: the keyboard goes to the table.
    ann = new_page()
    url = create_online(ann, live_site, "Ann")
    join(wes, url, "Wes")
    wes.focus("#join-name")
    seated(ann, 2)
    act(ann, [ann, wes], lambda: ann.click("#start"))
    wes.wait_for_selector("#lobby", state="hidden")
    assert wes.evaluate(FOCUSED) == "turn-h"


def test_the_keyboard_stays_on_a_box_name_when_another_player_rolls(live_site: LiveSite, new_page: Any) -> None:
    """Bob tabs to a box's name (a button that opens what the box scores) to read it while Ann
    plays. Ann's roll draws the card again (its open boxes show her new points): Bob's keyboard
    stays on the name rather than falling to the top of the page."""
    ann, bob = new_page(), new_page()
    online_game(live_site, ann, bob)
    bob.wait_for_selector("#card tr[data-box=full_house] .box-name")
    bob.focus("#card tr[data-box=full_house] .box-name")
    act(ann, [ann, bob], lambda: ann.click("#roll"))  # Bob's page has drawn the roll
    rendered(bob)
    where = bob.evaluate(
        "(() => { const el = document.activeElement; const row = el.closest('tr[data-box]');"
        " return el === document.body ? 'BODY' : `${el.className} in ${row ? row.dataset.box : '-'}`; })()"
    )
    assert where == "box-name in full_house", where
    assert bob.evaluate(KEPT), where


def test_the_keyboard_stays_on_the_coachs_more_choices_while_the_connection_drops_and_comes_back(
    live_site: LiveSite, new_page: Any
) -> None:
    """The play card is drawn again as the connection drops ("Reconnecting…") and comes
    back; the coach's answer stays, and so does the keyboard on its "more choices"."""
    page = new_page()
    page.add_init_script(KEEP_SOCKETS)
    page.route_web_socket(re.compile(r".*/ws/rooms/.*"), made_up_coach)
    local_room(page, live_site, ["Solo"])
    act(page, [page], lambda: page.click("#roll"))
    page.click("#hint")
    page.wait_for_selector(".hint-more summary")
    page.focus(".hint-more summary")
    page.evaluate("window.__sockets.at(-1).close()")
    page.wait_for_selector("#conn:not([data-state=connected])")
    page.wait_for_selector("#conn[data-state=connected]")
    page.wait_for_selector(".hint-more summary")
    assert page.evaluate(FOCUSED) == "hint-more"


@pytest.mark.parametrize(("button", "start"), [("last", None), ("next", "last"), ("first", None), ("prev", "first")])
def test_the_replays_step_buttons_keep_the_keyboard_at_either_end(
    live_site: LiveSite, new_page: Any, button: str, start: str | None
) -> None:
    """A keyboard user presses "Last »" (or "Next" on the step before the last, or "First" /
    "Previous" towards the start): the button pressed is disabled there, and the keyboard goes
    to the one that steps back the other way, not to the page's body."""
    page = new_page()
    page.goto(f"{live_site.url}/r/{live_site.finished_game()}/replay#move-5")
    page.wait_for_function("document.getElementById('position').textContent.startsWith('Step ')")
    if start == "last":
        page.click("#last")
        page.click("#prev")
    elif start == "first":
        page.click("#first")
        page.click("#next")
    page.focus(f"#{button}")
    page.keyboard.press("Enter")
    assert page.locator(f"#{button}").is_disabled()
    assert page.evaluate(FOCUSED) == ("prev" if button in ("last", "next") else "next")


def test_the_play_cards_host_tools_are_announced_and_used_from_the_keyboard_keep_it_in_the_card(
    live_site: LiveSite, new_page: Any
) -> None:
    """On a phone the play card offers the host the away player's tools (the Players list is a long
    scroll below). A screen reader hears that they appeared; pressing one, the button goes with
    the away state, and the keyboard stays in the play card, not on the Players list's first
    button (the host's own Leave, where the next Enter would ask to leave the game)."""
    ann, bob = new_page(390, 844), new_page()
    bob_walked_away(live_site, ann, bob)
    ann.wait_for_selector("#play #play-replace-1")
    ann.wait_for_function("document.getElementById('announce').textContent.includes('Bob is away: you may')")
    ann.on("dialog", lambda dialog: dialog.accept())
    ann.focus("#play-replace-1")
    before = version(ann)
    ann.keyboard.press("Enter")
    in_card = "[document.activeElement.id, !!document.activeElement.closest('#play')]"
    # The state that hands Bob's seat to a computer is drawn (the tools go with it), and shown.
    wait_version([ann], before)
    ann.wait_for_selector("#host-tools", state="detached")
    rendered(ann)
    focused = ann.evaluate(in_card)
    assert focused[1], f"the keyboard went to #{focused[0]}, outside the play card"
    assert ann.evaluate(KEPT), focused
    # The computer plays Bob's turn, each of its steps drawing the card again, and the turn comes
    # back to Ann: the keyboard stayed in the card through every one of those draws.
    ann.wait_for_selector("#roll:not(:disabled)")
    rendered(ann)
    focused = ann.evaluate(in_card)
    assert focused[1], f"the keyboard went to #{focused[0]}, outside the play card"
    assert ann.evaluate(KEPT), focused


def test_taking_the_away_player_out_from_the_play_card_leaves_the_keyboard_on_roll_not_a_die_that_cannot_be_held(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann takes Bob, who went away, out of the game from the play card's button, with the keyboard:
    the turn is hers then, and the keyboard is on Roll, not on the first die, which cannot be held
    before a roll (a screen reader said "Die 1: not rolled, dimmed")."""
    ann, bob = new_page(), new_page()
    bob_walked_away(live_site, ann, bob)
    ann.wait_for_selector("#play #play-remove-1")
    ann.on("dialog", lambda dialog: dialog.accept())
    ann.focus("#play-remove-1")
    before = version(ann)
    ann.keyboard.press("Enter")
    # The state that takes Bob out is drawn (the tools go, the turn is Ann's), and shown.
    wait_version([ann], before)
    ann.wait_for_selector("#host-tools", state="detached")
    ann.wait_for_selector("#roll:not(:disabled)")
    rendered(ann)
    assert ann.evaluate(FOCUSED) == "roll"
    assert ann.evaluate(KEPT)


def test_a_link_to_a_step_of_the_replay_opens_with_the_keyboard_on_that_step(
    live_site: LiveSite, new_page: Any
) -> None:
    """The room's review links each costly choice to its step of the replay: the page opens on that
    step with the keyboard (and the screen reader) on its sentence, as a link to an anchor does,
    not at the top of the page."""
    page = new_page()
    page.goto(f"{live_site.url}/r/{live_site.finished_game()}/replay#move-5")
    page.wait_for_function("document.getElementById('position').textContent.startsWith('Step ')")
    assert page.evaluate(FOCUSED) == "step-h"
    # Without a step in the address the replay opens as any page does: at its top.
    page.goto(f"{live_site.url}/r/{live_site.finished_game()}/replay")
    page.wait_for_function("document.getElementById('position').textContent.startsWith('Step ')")
    assert page.evaluate(FOCUSED) == "BODY"


def test_a_die_not_rolled_yet_shows_the_keyboard_its_full_focus_ring(live_site: LiveSite, new_page: Any) -> None:
    """Before a turn's first roll the dice are drawn faint, and Tab goes through them on the way to
    Roll: the ring of the focused one shows as strongly as on a rolled die (3:1 on the felt, WCAG
    2.4.11), in the light and the dark scheme, not faded with its face."""
    page = new_page()
    local_room(page, live_site, ["Solo"])
    page.focus("#roll")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(FOCUSED) == "die-4"
    assert page.locator("#die-4.blank").count() == 1
    for scheme in in_each_scheme(page):
        assert page.evaluate(DIE_RING_ON_FELT) >= 3, scheme
    page.keyboard.press("Tab")
    act(page, [page], lambda: page.keyboard.press("Enter"))
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(FOCUSED) == "die-4"
    assert page.locator("#die-4.blank").count() == 0
    for scheme in in_each_scheme(page):
        assert page.evaluate(DIE_RING_ON_FELT) >= 3, scheme


def test_the_turn_back_from_a_computer_puts_the_keyboard_on_roll(live_site: LiveSite, new_page: Any) -> None:
    """Ann plays against a computer on her device. Her score leaves Roll disabled for the
    computer's turn, and the keyboard waits on the dice; when her turn comes back it is on Roll
    again, where Enter rolls, as after a turn handed to another person on the device."""
    page = new_page()
    page.goto(live_site.url + "/")
    page.check("input[name=mode][value=local]")
    page.fill("#id_players", "1")
    page.fill("#id_bots", "1")
    page.fill("#id_player_1", "Ann")
    page.click("#create-btn")
    page.wait_for_selector("#conn[data-state=connected]")
    page.wait_for_selector("#roll:not(:disabled)")
    page.focus("#roll")
    act(page, [page], lambda: page.keyboard.press("Enter"))
    score_best(page, [page])
    # The computer's turn played, Ann's second round is hers to roll.
    page.wait_for_function("document.getElementById('turn-meta').textContent.includes('2')")
    page.wait_for_selector("#roll:not(:disabled)")
    assert page.evaluate(FOCUSED) == "roll"
    act(page, [page], lambda: page.keyboard.press("Enter"))
    assert page.locator("#die-0.blank").count() == 0


SKIP_LINK_SEEN = """() => {
  const r = document.querySelector('.skip-link').getBoundingClientRect();
  return r.bottom > 0 && r.top >= 0 && r.right <= innerWidth;
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_the_first_tab_offers_a_skip_past_the_header_to_the_pages_content(
    live_site: LiveSite, new_page: Any, width: int
) -> None:
    """The header's links and the language form come before every page's own content: the first
    Tab shows a link past them, hidden until then, and Enter on it takes the keyboard's next stop
    into the page (the home page's form, the table's controls)."""
    page = new_page(width, 844 if width < 500 else 800)
    for opened in ("home", "room"):
        if opened == "home":
            page.goto(f"{live_site.url}/")
        else:
            local_room(page, live_site, ["Solo", "Other"])
        assert not page.evaluate(SKIP_LINK_SEEN)
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.matches('.skip-link')"), opened
        assert page.evaluate(SKIP_LINK_SEEN), opened
        for scheme in in_each_scheme(page):
            shot(page, f"skip-link-{opened}-{width}-{scheme}")
            assert serious_violations(page, scheme) == [], (opened, scheme)
        page.keyboard.press("Enter")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.closest('main') !== null"), (
            opened,
            page.evaluate("document.activeElement.outerHTML.slice(0, 120)"),
        )
        assert not page.evaluate(SKIP_LINK_SEEN)
    assert page.errors == []

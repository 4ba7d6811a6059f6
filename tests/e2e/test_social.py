"""Chat, reactions and the turn timer in real browsers (two contexts: two people)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import (
    act,
    bob_and_cy_join,
    code_of,
    create_online,
    created,
    in_each_scheme,
    join,
    muted_bob_leaves,
    no_horizontal_overflow,
    online_form,
    online_game,
    rendered,
    room_code,
    score_best,
    serious_violations,
    servers_wait_is_over,
    shot,
    time_passes,
)

pytestmark = pytest.mark.browser


def create_room(page: Any, site: LiveSite, name: str, timer: str = "0", spectators_chat: bool = False) -> str:
    online_form(page, site, name)
    page.select_option("#id_turn_timer", timer)
    if spectators_chat:
        page.check("#id_chat_spectators")
    return created(page)


# What a player the host took out reads in place of the chat's form.
TAKEN_OUT = "The host took you out of this game: you can read its chat but not post to it."


def taken_out_while_away(site: LiveSite, url: str, ann: Any, bob: Any, cy: Any) -> None:
    """During play Cy walks away and the host Ann takes his seat out; back at the table, Cy reads
    that the host took him out."""
    cy.goto(site.url + "/")  # his socket closes
    ann.wait_for_selector("#seats #remove-2")
    ann.on("dialog", lambda dialog: dialog.accept())
    act(ann, [ann, bob], lambda: ann.click("#remove-2"))
    cy.goto(url)
    cy.wait_for_selector("#conn[data-state=connected]")
    cy.wait_for_function(f"document.getElementById('chat-note').textContent === {TAKEN_OUT!r}")


def two_players(site: LiveSite, new_page: Any, timer: str = "0", **options: Any) -> tuple[Any, Any]:
    ann, bob = new_page(**options), new_page(**options)
    url = create_room(ann, site, "Ann", timer)
    join(bob, url, "Bob")
    ann.wait_for_function("document.querySelectorAll('#seats .seat').length === 2")
    return ann, bob


def say(page: Any, text: str) -> None:
    page.fill("#chat-text", text)
    page.press("#chat-text", "Enter")


def test_a_message_goes_from_one_browser_to_the_other_as_the_text_typed(live_site: LiveSite, new_page: Any) -> None:
    ann, bob = two_players(live_site, new_page)
    text = '<b>hi Bob</b> <img src=x onerror="window.pwned=1"><script>window.pwned=1</script>'
    say(ann, text)
    bob.wait_for_selector("#chat-list .chat-line")
    assert bob.inner_text("#chat-list .chat-text") == text
    assert bob.inner_text("#chat-list .chat-name") == "Ann"
    assert bob.locator("#chat-list b, #chat-list img, #chat-list script").count() == 0
    assert bob.evaluate("window.pwned") is None and ann.evaluate("window.pwned") is None
    assert ann.input_value("#chat-text") == ""
    say(bob, "hello Ann")
    ann.wait_for_function("document.querySelectorAll('#chat-list .chat-line').length === 2")
    # A page opened later gets the history.
    late = new_page()
    late.goto(ann.url)
    late.wait_for_function("document.querySelectorAll('#chat-list .chat-line').length === 2")
    assert late.locator("#chat-form").is_hidden() and "read it" in late.inner_text("#chat-note")
    assert ann.errors == [] and bob.errors == [] and late.errors == []


def silenceable(page: Any) -> Any:
    """Route the page's room sockets through the test; ``cut()`` makes the open ones go silent
    both ways without closing (the network gone, as the browser does not notice), ``cut(down=True)``
    only what the server says."""
    dead: dict[Any, str] = {}
    sockets: list[Any] = []

    def route(ws: Any) -> None:
        sockets.append(ws)
        server = ws.connect_to_server()
        ws.on_message(lambda message: dead.get(ws) == "both" or server.send(message))
        server.on_message(lambda message: ws in dead or ws.send(message))

    def cut(down: bool = False) -> None:
        for ws in sockets:
            dead[ws] = "down" if down else "both"

    page.route_web_socket(re.compile(r".*/ws/rooms/.*"), route)
    return cut


def test_a_chat_message_sent_into_a_dead_connection_stays_in_the_field(live_site: LiveSite, new_page: Any) -> None:
    ann = new_page()
    ann.clock.install()
    cut = silenceable(ann)
    create_room(ann, live_site, "Ann")
    cut()
    say(ann, "anyone there?")
    assert ann.input_value("#chat-text") == ""  # on its way, as far as the page can tell
    # Nothing comes back: the page gives the connection up, says so and keeps what was typed.
    ann.clock.fast_forward(30_000)
    ann.wait_for_selector("#conn[data-state=reconnecting], #conn[data-state=connecting]")
    assert ann.inner_text("#conn") == "Reconnecting…"
    assert ann.input_value("#chat-text") == "anyone there?"
    ann.clock.run_for(1_000)
    ann.wait_for_selector("#conn[data-state=connected]")
    assert ann.input_value("#chat-text") == "anyone there?"  # the chat history has no such line
    assert ann.locator("#chat-list .chat-line").count() == 0
    ann.press("#chat-text", "Enter")
    ann.wait_for_selector("#chat-list .chat-line >> text=anyone there?")
    assert ann.input_value("#chat-text") == ""
    # This time the message arrives and only its echo is lost: the history on reconnecting shows
    # it, and the field is emptied, not left to send it twice.
    # The browser's `online` event (a network back, or changed) has the socket prove itself at once.
    cut(down=True)
    say(ann, "second try")
    ann.evaluate("window.dispatchEvent(new Event('online'))")
    ann.clock.fast_forward(6_000)
    ann.wait_for_selector("#conn[data-state=reconnecting], #conn[data-state=connecting]")
    assert ann.input_value("#chat-text") == "second try"
    ann.clock.run_for(1_000)
    ann.wait_for_selector("#chat-list .chat-line >> text=second try")
    assert ann.input_value("#chat-text") == ""
    assert ann.locator("#chat-list .chat-line").count() == 2
    assert ann.errors == []


def test_a_message_arriving_after_the_reconnect_leaves_the_field(live_site: LiveSite, new_page: Any) -> None:
    """Ann's line was on its way on a slow connection when the page gave the socket up and put it back
    in her field. It reaches the server just after the new socket read the history, and the room's
    live `chat` frame brings it to the new socket: it is shown, and the field is emptied (Enter
    would send it twice)."""
    ann = new_page()
    ann.clock.install()
    held: list[Any] = []
    sockets: list[Any] = []
    slow = {"on": False}

    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        sockets.append(server)

        def up(message: Any) -> None:
            if slow["on"] and len(sockets) == 1:
                held.append(message)  # on its way, slowly
            else:
                server.send(message)

        ws.on_message(up)
        server.on_message(lambda message: (slow["on"] and len(sockets) == 1) or ws.send(message))

    ann.route_web_socket(re.compile(r".*/ws/rooms/.*"), route)
    create_room(ann, live_site, "Ann")
    slow["on"] = True
    ann.evaluate("document.dispatchEvent(new Event('visibilitychange'))")  # shown again: a ping must come back in 5 s
    say(ann, "on my way")
    ann.clock.fast_forward(6_000)
    ann.wait_for_selector("#conn[data-state=reconnecting], #conn[data-state=connecting]")
    assert ann.input_value("#chat-text") == "on my way"
    ann.clock.run_for(1_000)
    ann.wait_for_selector("#conn[data-state=connected]")
    ann.clock.run_for(500)
    assert len(sockets) == 2 and ann.locator("#chat-list li").count() == 0
    # The old connection's frame reaches the server now (sent here through the new one: the same words).
    sockets[1].send(next(m for m in held if '"chat"' in m))
    ann.wait_for_selector("#chat-list li >> text=on my way")
    assert ann.input_value("#chat-text") == ""


def test_a_message_the_server_cleaned_is_not_put_back_in_the_field_at_the_next_reconnect(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann pastes a line with directional isolates around a name (U+2068, U+2069): the server stores
    it without them, so its echo is not the text she sent. The page still knows it arrived (by its
    frame's id), and the next reconnect does not put it back in her field."""
    ann = new_page()
    ann.add_init_script(KEEP_SOCKETS)
    create_room(ann, live_site, "Ann")
    say(ann, "\u2068Bob\u2069 good luck")
    ann.wait_for_selector("#chat-list li >> text=good luck")
    assert ann.input_value("#chat-text") == ""
    # Later, the connection drops (a network change, the server restarting) and comes back.
    ann.evaluate("window.__sockets.at(-1).close()")
    ann.wait_for_function("window.__sockets.length >= 2 && window.__sockets.at(-1).readyState === 1")
    ann.wait_for_selector("#conn[data-state=connected]")
    ann.wait_for_function("window.__sockets.at(-1).heard.includes('chat_history')")  # drawn as it arrives
    assert ann.locator("#chat-list li").count() == 1
    assert ann.input_value("#chat-text") == ""


FILL_CHAT = """
from games.store.models import ChatMessage, Game, Player
code, n = args
game = Game.objects.get(code=code)
player = Player.objects.get(game=game, seat=0)
for i in range(n):
    ChatMessage.objects.create(
        game=game, player=player, seat=0, name=player.name, text=f"earlier {i}", after_seq=game.version
    )
result = n
"""


AT_END = "l => l.scrollHeight - l.scrollTop - l.clientHeight < 5"  # the chat list shows its last line


def bob_joins_a_long_chat(live_site: LiveSite, new_page: Any) -> tuple[Any, Any]:
    """Ann's room with 40 lines of chat, more than its list shows at once; Bob joins it."""
    ann = new_page()
    url = create_room(ann, live_site, "Ann")
    live_site.run(FILL_CHAT, url.rstrip("/").rsplit("/", 1)[-1], 40)
    bob = new_page()
    join(bob, url, "Bob")
    bob.wait_for_selector("#chat-list li >> text=earlier 39")
    return ann, bob


def test_a_new_message_does_not_pull_a_reader_away_from_the_earlier_ones(live_site: LiveSite, new_page: Any) -> None:
    """Ben scrolls the chat back to read what was said before he came; Ann posts; his list stays
    where he reads. Back at the end, he follows the new messages; his own always shows."""
    ann, bob = bob_joins_a_long_chat(live_site, new_page)
    assert bob.eval_on_selector("#chat-list", "l => l.scrollHeight > l.clientHeight + 200")
    assert bob.eval_on_selector("#chat-list", AT_END)  # the history opens at its end
    bob.eval_on_selector("#chat-list", "l => { l.scrollTop = 0; }")
    say(ann, "a new message")
    bob.wait_for_selector("#chat-list li >> text=a new message")
    assert bob.eval_on_selector("#chat-list", "l => l.scrollTop") < 50
    bob.eval_on_selector("#chat-list", "l => { l.scrollTop = l.scrollHeight; }")
    say(ann, "another one")
    bob.wait_for_selector("#chat-list li >> text=another one")
    assert bob.eval_on_selector("#chat-list", AT_END)
    bob.eval_on_selector("#chat-list", "l => { l.scrollTop = 0; }")
    say(bob, "mine")
    bob.wait_for_selector("#chat-list li >> text=mine")
    assert bob.eval_on_selector("#chat-list", AT_END)


def test_a_chat_shown_again_opens_at_its_last_message_and_follows_the_new_ones(
    live_site: LiveSite, new_page: Any
) -> None:
    """Hidden, the list has no size: it cannot tell whether its reader was at the end, nor keep a place.
    Shown again, in the same page or after a reload whose history came to it hidden, it shows the
    last message and the next one comes into view."""
    ann, bob = bob_joins_a_long_chat(live_site, new_page)
    bob.click("#chat-toggle")
    for n in range(3):
        say(ann, f"while hidden {n}")
    bob.wait_for_function("document.getElementById('chat-unread').textContent.includes('3 new')")
    bob.click("#chat-toggle")
    assert bob.eval_on_selector("#chat-list", AT_END), "the chat shown again is not at its last message"
    say(ann, "and now")
    bob.wait_for_selector("#chat-list li >> text=and now")
    assert bob.eval_on_selector("#chat-list", AT_END), "a new message does not come into view"
    bob.click("#chat-toggle")
    bob.reload()  # the history comes to a page whose chat is hidden
    bob.wait_for_selector("#conn[data-state=connected]")
    bob.wait_for_function("document.querySelectorAll('#chat-list li').length >= 44")
    bob.click("#chat-toggle")
    assert bob.eval_on_selector("#chat-list", "l => l.scrollHeight > l.clientHeight + 200")
    assert bob.eval_on_selector("#chat-list", AT_END), "the chat shown again opens at its oldest line"
    say(ann, "and later")
    bob.wait_for_selector("#chat-list li >> text=and later")
    assert bob.eval_on_selector("#chat-list", AT_END), "a new message does not come into view"


def test_a_click_half_done_when_someone_comes_to_watch_still_lands(live_site: LiveSite, new_page: Any) -> None:
    """A frame that changes nothing in the lobby (a spectator's presence) does not rebuild it under
    the host's pointer: Start, pressed before the frame and released after, starts the game."""
    ann, bob = two_players(live_site, new_page)
    box = ann.locator("#start").bounding_box()
    assert box is not None
    ann.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    ann.mouse.down()
    watcher = new_page()
    watcher.goto(ann.url)
    ann.wait_for_function("document.getElementById('watchers').textContent.includes('1 spectator')")
    ann.mouse.up()
    ann.wait_for_selector("#roll")
    bob.wait_for_selector("#play:not([hidden])")
    assert ann.errors == [] and bob.errors == [] and watcher.errors == []


def test_a_reaction_shows_on_the_senders_seat_for_the_other(live_site: LiveSite, new_page: Any) -> None:
    ann, bob = two_players(live_site, new_page)
    bob.click("#reactions button[aria-label='React 👏']")
    bubble = ann.wait_for_selector("#seats .seat:has-text('Bob') .reaction-bubble")
    assert bubble.inner_text() == "👏"
    ann.wait_for_selector("#seats .reaction-bubble", state="detached", timeout=6000)
    assert ann.errors == [] and bob.errors == []


IN_VIEW = """() => [...document.querySelectorAll('.reaction-float')].map(e => {
  const r = e.getBoundingClientRect();
  return { inside: r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth && r.width > 0,
           text: e.textContent, x: r.left + r.width / 2, y: r.bottom, docked: e.classList.contains('docked') };
})"""


def test_a_reaction_during_play_shows_in_view_at_the_reacting_players_column(
    live_site: LiveSite, new_page: Any
) -> None:
    """Read on a desktop and on a phone: one game is started once, and Bob reacts at each size (both
    pages drawn again at it, Ann's at the top of the room as a page just loaded is)."""
    sizes = [(1280, 800), (390, 844)]
    ann, bob = two_players(live_site, new_page, width=sizes[0][0], height=sizes[0][1])
    ann.click("#start")
    ann.wait_for_selector("#roll")
    for width, height in sizes:
        # The size before's last bubble gone, as none is on a page just loaded.
        ann.wait_for_selector(".reaction-float", state="detached", timeout=6000)
        for page in (ann, bob):
            page.set_viewport_size({"width": width, "height": height})
        ann.evaluate("window.scrollTo(0, 0)")
        ann.wait_for_function("document.querySelector('#card th.seat-head').getBoundingClientRect().top >= 0")
        bob.click("#play-reactions button[aria-label='React 👏']")
        ann.wait_for_selector(".reaction-float")
        (bubble,) = ann.evaluate(IN_VIEW)
        assert bubble["inside"] and bubble["text"] == "👏Bob" and not bubble["docked"], (width, bubble)
        # On Bob's name at the head of the card, where the players look during play.
        head = ann.eval_on_selector(
            "#card th.seat-head[data-seat='1']",
            "e => { const r = e.getBoundingClientRect(); return [r.left, r.right, r.top]; }",
        )
        assert head[0] <= bubble["x"] <= head[1] and abs(bubble["y"] - head[2]) < 40, (width, head, bubble)
        shot(ann, f"reaction-on-column-{width}")
        ann.wait_for_selector(".reaction-float", state="detached", timeout=6000)
        # With the card scrolled out of sight, the reaction still shows, at the top of the screen.
        ann.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        ann.wait_for_function("document.querySelector('#card th.seat-head').getBoundingClientRect().bottom < 0")
        bob.click("#play-reactions button[aria-label='React 😮']")
        ann.wait_for_selector(".reaction-float")
        (bubble,) = ann.evaluate(IN_VIEW)
        assert bubble["inside"] and bubble["docked"] and bubble["text"] == "😮Bob", (width, bubble)
        shot(ann, f"reaction-{width}")
    assert ann.errors == [] and bob.errors == []


def test_hiding_the_chat_is_this_pages_choice_and_is_kept(live_site: LiveSite, new_page: Any) -> None:
    ann, bob = two_players(live_site, new_page)
    ann.click("#chat-toggle")
    assert ann.locator("#chat-body").is_hidden()
    say(bob, "are you there?")
    ann.wait_for_function("document.getElementById('chat-unread').textContent.includes('1 new')")
    ann.reload()
    ann.wait_for_selector("#conn[data-state=connected]")
    assert ann.locator("#chat-body").is_hidden()
    assert bob.locator("#chat-body").is_visible()
    ann.click("#chat-toggle")
    # The room's last messages come a moment after the state that shows "Connected" (docs/protocol.md).
    ann.wait_for_selector("#chat-list li")
    assert ann.inner_text("#chat-list").count("are you there?") == 1


def test_the_countdown_shows_on_the_current_seat_for_everyone_and_runs(live_site: LiveSite, new_page: Any) -> None:
    ann, bob = two_players(live_site, new_page, timer="30")
    ann.click("#start")
    for page in (ann, bob):
        page.wait_for_selector("#play [data-countdown]")
        page.wait_for_selector("#seats .seat.current [data-countdown]")
    first = ann.inner_text("#play [data-countdown]")
    # The turn's 30 s, less what went by while both pages drew the start (seconds, on a loaded machine).
    assert re.fullmatch(r"0:[0-3]\d", first) and 0 < int(first[2:]) <= 30, first
    ann.wait_for_function(f"document.querySelector('#play [data-countdown]').textContent !== '{first}'")
    # The host pauses: the clock stops and the page says so; resuming lets it run again. Each press
    # waits for both pages to draw it: the same button resumes only once the host's page shows the pause.
    act(ann, [ann, bob], lambda: ann.click("#pause"))
    bob.wait_for_selector(".paused-banner")
    assert "‖" in bob.inner_text("#play [data-countdown]")
    assert bob.locator("#roll").count() == 0 and ann.is_disabled("#roll")
    act(ann, [ann, bob], lambda: ann.click("#pause"))
    bob.wait_for_selector(".paused-banner", state="detached")
    assert ann.errors == [] and bob.errors == []


def seconds_shown(page: Any) -> int:
    minutes, seconds = page.inner_text("#play [data-countdown]").strip().lstrip("‖ ").split(":")
    return int(minutes) * 60 + int(seconds)


def test_shown_again_after_a_sleep_the_countdown_shows_the_time_the_server_gives(
    live_site: LiveSite, new_page: Any
) -> None:
    """A 2-minute turn; the phone is locked for a minute and its socket survives. Shown again, the
    page asks for the state, whose seconds left it counts down from: not a minute more than the
    server will give the player."""
    ann, _bob = two_players(live_site, new_page, timer="120")
    ann.click("#start")
    ann.wait_for_selector("#play [data-countdown]")
    assert seconds_shown(ann) > 110
    version = ann.evaluate("Number(document.getElementById('room').dataset.version)")
    # A minute passes at the server while the page sleeps, and its socket outlives the sleep.
    assert time_passes(live_site, code_of(ann.url), 60) == version
    ann.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    ann.wait_for_function("() => document.querySelector('#play [data-countdown]').textContent < '1:00'")
    assert ann.evaluate("document.getElementById('conn').dataset.state") == "connected"
    assert ann.evaluate("Number(document.getElementById('room').dataset.version)") == version
    assert 50 <= seconds_shown(ann) <= 60
    assert ann.errors == []


def test_a_game_its_host_paused_and_left_open_is_resumed_by_the_other_player_who_then_hosts(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann pauses and closes her tab without leaving. Bob is offered *Resume game* once she has been
    away a while (not at once: a reload or a phone waking up is back well within it); using it makes
    him the host, which the table is told, and the resume is said as his (Cy reads "Bob resumed the
    game"). Ann, back, plays on as one of the players."""
    ann, bob, cy = new_page(), new_page(), new_page()
    bob.clock.install()
    url = create_room(ann, live_site, "Ann")
    join(bob, url, "Bob")
    ann.wait_for_function("document.querySelectorAll('#seats .seat').length === 2")
    cy.goto(url)  # a spectator
    cy.wait_for_selector("#conn[data-state=connected]")
    ann.click("#start")
    bob.wait_for_selector("#turn-h")
    ann.click("#pause")
    bob.wait_for_selector(".paused-banner")
    ann.goto("about:blank")
    bob.wait_for_selector(".seat:first-child .presence.away")
    assert bob.locator("#pause").is_hidden()
    servers_wait_is_over(live_site, room_code(bob))  # HOST_AWAY=1: the page's clock is run on below
    bob.clock.run_for(16_000)
    bob.wait_for_selector("#pause:not([hidden])")
    assert "The host is away: you may resume the game" in bob.inner_text("#turn-meta")
    bob.click("#pause")
    bob.wait_for_selector(".paused-banner", state="detached")
    bob.wait_for_selector("#feed li >> text=Bob is now the host")
    bob.wait_for_selector("#feed li >> text=You resumed the game")
    cy.wait_for_selector("#feed li >> text=Bob resumed the game")
    assert bob.get_attribute("#pause", "aria-label") == "Pause game"  # the host's own tools are his now
    ann.goto(url)
    ann.wait_for_selector("#conn[data-state=connected]")
    assert ann.locator("#pause").is_hidden()
    assert "host" in ann.inner_text(".seat:nth-child(2)") and "host" not in ann.inner_text(".seat:first-child")
    assert ann.errors == [] and bob.errors == [] and cy.errors == []


def test_a_player_handed_the_host_during_a_pause_is_told_the_game_waits_for_their_resume(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann pauses and leaves the game; Bob hosts it now. Resume is his, and his page says so: not
    "You paused the game" (he did not), nor "paused by the host" (he is the host), but that the game
    is paused and goes on when he resumes it, in the banner, the Roll button, the hint and the feed;
    without script too. Cy read that the host paused it while Ann hosted; now that Bob does, not
    that the host paused it (Bob did not) but that it goes on when Bob, the host, resumes it, with
    script and without. Bob's resume lets play go on.

    Read on a desktop and on a phone: the same table is played up to the pause once, and Bob's
    and Cy's pages are read at each size (drawn again at it, then loaded again at it)."""
    sizes = [(1280, 800), (390, 844)]
    width, height = sizes[0]
    ann, bob, cy = new_page(), new_page(width=width, height=height), new_page(width=width, height=height)
    url = create_room(ann, live_site, "Ann")
    join(bob, url, "Bob")
    join(cy, url, "Cy")
    ann.wait_for_function("document.querySelectorAll('#seats .seat').length === 3")
    act(ann, [ann, bob, cy], lambda: ann.click("#start"))
    act(ann, [ann, bob, cy], lambda: ann.click("#pause"))
    cy.wait_for_selector("#feed li >> text=The host paused the game")
    assert cy.inner_text(".paused-banner") == "Game paused by the host"
    ann.on("dialog", lambda dialog: dialog.accept())
    act(ann, [bob, cy], lambda: ann.click("#leave-0"))
    for width, height in sizes:
        for page in (bob, cy):
            page.set_viewport_size({"width": width, "height": height})
        bob.wait_for_selector("#feed li >> text=Bob is now the host")
        bob.wait_for_selector("#feed li >> text=Game paused: you can resume it")
        assert bob.inner_text(".paused-banner") == "Game paused: you can resume it"
        assert "The game is paused: play goes on when you resume it." in bob.inner_text("#turn-meta")
        assert "paused the game" not in bob.inner_text("#play").lower()
        assert bob.get_attribute("#pause", "aria-label") == "Resume game"
        assert "Paused: yours to resume" in bob.inner_text("#play")
        assert bob.evaluate("document.getElementById('roll').getBoundingClientRect().bottom") <= height
        cy.wait_for_selector("#feed li >> text=Game paused: Bob (the host) can resume it")
        assert cy.inner_text(".paused-banner") == "Game paused: Bob (the host) can resume it"
        assert "The game is paused: play goes on when Bob, the host, resumes it." in cy.inner_text("#turn-meta")
        assert "paused by the host" not in cy.inner_text("#play").lower()
        assert "they resume it" not in cy.inner_text("#play")
        for scheme in in_each_scheme(cy):
            shot(cy, f"paused-host-left-cy-{width}-{scheme}")
    for width, height in reversed(sizes):
        for page in (bob, cy):
            page.set_viewport_size({"width": width, "height": height})
        cy.reload()
        cy.wait_for_selector("#conn[data-state=connected]")
        assert cy.inner_text(".paused-banner") == "Game paused: Bob (the host) can resume it"
        bob.reload()
        bob.wait_for_selector("#conn[data-state=connected]")
        assert bob.inner_text(".paused-banner") == "Game paused: you can resume it"
    # Without script (a page of its own, of the default size, as at either size before).
    cy_plain = new_page(java_script_enabled=False)
    cy_plain.context.add_cookies(cy.context.cookies())
    cy_plain.goto(url)
    assert cy_plain.inner_text(".ns-paused") == "Game paused: Bob (the host) can resume it"
    shot(cy_plain, "paused-host-left-cy-noscript")
    plain = new_page(java_script_enabled=False)
    plain.context.add_cookies(bob.context.cookies())
    plain.goto(url)
    assert plain.inner_text(".ns-paused") == "Game paused: you can resume it"
    assert plain.locator("#ns-pause").inner_text() == "Resume game"
    act(bob, [bob, cy], lambda: bob.click("#pause"))
    bob.wait_for_selector(".paused-banner", state="detached")
    bob.wait_for_selector("#feed li >> text=You resumed the game")
    assert bob.errors == [] and cy.errors == []


def test_the_room_with_chat_open_fits_and_has_no_serious_accessibility_violations(
    live_site: LiveSite, new_page: Any
) -> None:
    """Read on a desktop and on a phone: one table, its page drawn again at each size, where Bob's
    reaction shows on his seat."""
    sizes = [(1280, 800), (390, 844)]
    ann, bob = two_players(live_site, new_page, timer="60", width=sizes[0][0], height=sizes[0][1])
    say(bob, "good luck!")
    ann.click("#start")
    ann.wait_for_selector("#roll")
    say(ann, "you too, this one is a longer message to see how the lines wrap in the panel")
    ann.wait_for_function("document.querySelectorAll('#chat-list .chat-line').length === 2")
    for width, height in sizes:
        ann.set_viewport_size({"width": width, "height": height})
        bob.click("#play-reactions button[aria-label='React 🎲']")
        ann.wait_for_selector(".reaction-bubble")
        assert no_horizontal_overflow(ann), width
        # The room's code and the status beside it (with the host's pause button) do not overlap.
        assert ann.evaluate(
            "document.querySelector('.room-title .code').getBoundingClientRect().right"
            " <= document.querySelector('.room-status').getBoundingClientRect().left + 1"
        ), width
        # The dice and the roll button are on the first screen; the chat follows below.
        assert ann.evaluate("document.getElementById('roll').getBoundingClientRect().bottom") <= height
        for scheme in in_each_scheme(ann):
            shot(ann, f"room-{width}-{scheme}", full_page=True)
            assert serious_violations(ann, scheme) == [], (width, scheme)
    assert ann.errors == [] and bob.errors == []


# Keeps the page's sockets, so a test can drop one as a lost connection would.
KEEP_SOCKETS = """
(() => {
  const Native = window.WebSocket;
  window.__sockets = [];
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      window.__sockets.push(this);
      // The type of each frame this socket heard, recorded before the page's own listener reads it.
      this.heard = [];
      this.addEventListener('message', (event) => this.heard.push(JSON.parse(event.data).type));
    }
  };
})();
"""


def test_a_message_hidden_while_a_page_was_away_leaves_it_when_it_reconnects(
    live_site: LiveSite, new_page: Any
) -> None:
    """admin.md: hidden messages are removed from the room's pages, "and a page that connects later
    does not get them". A page whose connection dropped while staff hid the room's only
    message reconnects and keeps showing it: the server sends chat_history only when some
    message is left to show, and the page replaces its list only on a chat_history frame."""
    ann, bob = two_players(live_site, new_page)
    bob.add_init_script(KEEP_SOCKETS)
    bob.reload()
    bob.wait_for_selector("#conn[data-state=connected]")
    say(ann, "my address is 12 Elm Street")
    bob.wait_for_selector("#chat-list .chat-line")
    code = ann.url.rstrip("/").split("/")[-1]
    # Staff hide it in the admin while Bob's phone is asleep (here: another process, whose
    # chat_hidden frame reaches none of the server's sockets, as none reaches a page away).
    live_site.run(
        "from games import services\n"
        "from games.store.models import ChatMessage\n"
        "services.chat_hide(message_id=ChatMessage.objects.get(game__code=args[0]).pk, staff='clerk')\n",
        code,
    )
    assert live_site.run("from games.store.selectors import chat_history\nresult = chat_history(args[0])", code) == []
    bob.evaluate("window.__sockets.at(-1).close()")
    bob.wait_for_selector("#conn[data-state=reconnecting]")
    bob.wait_for_selector("#conn[data-state=connected]")
    # A page opened now shows no message; Bob's, back on line, comes to show the same.
    bob.wait_for_function("document.querySelectorAll('#chat-list .chat-line').length === 0")


def test_a_chat_message_stays_on_its_own_line(live_site: LiveSite, new_page: Any) -> None:
    """Names keep at most three combining marks a character, "not for a Zalgo name that spills
    over its row" (codes.py). A chat message keeps any number: "a" with 299 marks is 300
    characters, accepted, and drawn over the messages before it, which can no longer be read."""
    ann, bob = two_players(live_site, new_page)
    for n in range(4):
        say(ann, f"earlier message number {n}")
    bob.wait_for_function("document.querySelectorAll('#chat-list .chat-line').length === 4")
    line = bob.locator("#chat-list .chat-line").nth(3)
    line.scroll_into_view_if_needed()  # a screenshot's clip is of the viewport
    box = line.bounding_box()
    assert box is not None
    # The line's own whole pixel rows (its box's last, fractional row is shared with the next line).
    clip = {"x": box["x"], "y": box["y"], "width": box["width"], "height": int(box["height"]) - 1}
    before = bob.screenshot(clip=clip)
    marks = "".join(chr(0x0300 + i % 0x70) for i in range(299))
    say(ann, "a" + marks)
    bob.wait_for_function("document.querySelectorAll('#chat-list .chat-line').length === 5")
    bob.evaluate("document.getElementById('chat-list').scrollTop = 0")
    # The browser has drawn the new line, and the list scrolled back, before the picture is taken.
    rendered(bob)
    after = bob.screenshot(clip=clip)
    assert before == after, "the new message drew over the one before it"


@pytest.mark.parametrize("long_name", ["W" * 24])
def test_a_long_name_does_not_push_the_room_wider_than_a_phone(
    live_site: LiveSite, new_page: Any, long_name: str
) -> None:
    """A name is at most 24 characters, any of them: 24 wide letters without a break should still
    fit the room on a 375-pixel phone, as the other browser tests check for their pages
    (no_horizontal_overflow). The Players list's name (.seat-name, 423 px of bold W) cannot
    wrap, so the whole page scrolls sideways, for every player and spectator of the room.
    (CJK names of 24 characters wrap and pass.)"""
    from tests.e2e.helpers import act, join, no_horizontal_overflow

    host = new_page(375, 740, has_touch=True)
    url = create_online(host, live_site, long_name)
    guest = new_page(375, 740, has_touch=True)
    join(guest, url, "Bob")
    host.wait_for_function("document.querySelectorAll('#seats .seat').length === 2")
    # The long name wraps in its seat: a rounded box then, not a pill pinched at both ends.
    pinched = host.eval_on_selector_all(
        "#seats .seat",
        """ss => ss.filter(s => { const h = s.getBoundingClientRect().height;
            return h > 48 && parseFloat(getComputedStyle(s).borderTopLeftRadius) > h / 3; }).map(s => s.innerText)""",
    )
    shot(host, "lobby-long-name-375")
    assert pinched == [], pinched
    wide = (
        "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > innerWidth + 1)"
        ".slice(0, 3).map(e => e.tagName + '.' + e.className).join(', ')"
    )
    seen = {}
    for page, who in ((host, "host"), (guest, "guest")):
        if not no_horizontal_overflow(page):
            seen[f"lobby/{who}"] = page.evaluate(wide)
    act(host, [host, guest], lambda: host.click("#start"))
    for page, who in ((host, "host"), (guest, "guest")):
        if not no_horizontal_overflow(page):
            seen[f"table/{who}"] = page.evaluate(wide)
    assert seen == {}


def test_the_host_mutes_a_spectator_from_their_line_and_unmutes_them(live_site: LiveSite, new_page: Any) -> None:
    """The host's page offers Mute chat on a spectator's line, named by the line it acts on; the
    spectator's page then says it is muted in place of the form (and a reload is still muted),
    the room hears it once; Unmute chat undoes it. Bob, a player, is offered neither.

    Read on a desktop and on a phone: one room, whose pages are drawn again at each size before
    the mute and once muted (the host mutes and unmutes from the phone's)."""
    sizes = [(1280, 800), (390, 844)]
    ann, bob, eve = (new_page(*sizes[0]) for _ in range(3))
    url = create_room(ann, live_site, "Ann", spectators_chat=True)
    join(bob, url, "Bob")
    eve.goto(url)
    eve.wait_for_selector("#conn[data-state=connected]")
    say(eve, "BUY CHEAP DICE at example.test")
    ann.wait_for_selector("#chat-list .chat-line.spectator")
    bob.wait_for_selector("#chat-list .chat-line.spectator")
    line = "#chat-list .chat-line.spectator"
    mute = ann.locator(f"{line} button.chat-mute")
    assert mute.inner_text() == "Mute chat"
    described = mute.evaluate(
        "b => b.getAttribute('aria-describedby').split(' ')"
        ".map(id => document.getElementById(id).textContent).join(': ')"
    )
    assert described == "Spectator: BUY CHEAP DICE at example.test"
    assert bob.locator(f"{line} button").count() == 0
    for width, height in sizes:
        ann.set_viewport_size({"width": width, "height": height})
        assert no_horizontal_overflow(ann), width
    mute.focus()
    ann.keyboard.press("Enter")
    eve.wait_for_selector("#chat-form", state="hidden")
    assert eve.inner_text("#chat-note") == "The host has muted your chat in this room."
    eve.wait_for_function("document.getElementById('announce').textContent.includes('The host muted your chat.')")
    bob.wait_for_function(
        "document.getElementById('announce').textContent.includes(\"A spectator's chat was muted by the host.\")"
    )
    ann.wait_for_function("document.querySelector('#chat-list button.chat-mute').textContent === 'Unmute chat'")
    # The button changed in place: the keyboard is still on it.
    assert ann.evaluate("document.activeElement.classList.contains('chat-mute')")
    assert "chat muted" in bob.inner_text(line) and "BUY CHEAP DICE" in bob.inner_text(line)  # the line stays
    assert "A spectator's chat was muted by the host" in ann.inner_text("#feed")
    eve.reload()  # a new page of the same browser: the same spectator
    eve.wait_for_selector("#conn[data-state=connected]")
    assert eve.locator("#chat-form").is_hidden() and "muted your chat" in eve.inner_text("#chat-note")
    for width, height in sizes:
        for page in (ann, eve):
            page.set_viewport_size({"width": width, "height": height})
        assert no_horizontal_overflow(ann) and no_horizontal_overflow(eve), width
        for scheme in in_each_scheme(ann):
            shot(ann, f"room-spectator-muted-{width}-{scheme}")
            assert serious_violations(ann, scheme) == [], (width, scheme)
    ann.keyboard.press("Enter")
    eve.wait_for_selector("#chat-form:not([hidden])")
    ann.wait_for_function("document.querySelector('#chat-list button.chat-mute').textContent === 'Mute chat'")
    say(eve, "sorry")
    bob.wait_for_function("document.querySelectorAll('#chat-list .chat-line').length === 2")
    assert ann.errors == [] and bob.errors == [] and eve.errors == []


def test_a_spectator_who_signs_in_is_muted_from_the_line_the_hosts_open_page_shows(
    live_site: LiveSite, new_page: Any
) -> None:
    """Eve said something from the rail, then signed up in her tab: her lines are the account's now,
    and go by its handle. Ann's page, open all along, shows them under that handle, as a reload
    would: its Mute chat mutes Eve, not "There is no such spectator in this room's chat"."""
    from tests.e2e.test_accounts import sign_up, username

    ann, eve = new_page(), new_page()
    url = create_room(ann, live_site, "Ann", spectators_chat=True)
    eve.goto(url)
    eve.wait_for_selector("#conn[data-state=connected]")
    say(eve, "hello from the rail")
    line = "#chat-list .chat-line.spectator"
    ann.wait_for_selector(line)
    before = ann.get_attribute(line, "data-spectator")
    sign_up(eve, live_site, username("eve"))
    watcher = new_page()  # a page opened now: the handle the room knows the line by
    watcher.goto(url)
    watcher.wait_for_selector(line)
    now = watcher.get_attribute(line, "data-spectator")
    assert now and now != before
    ann.wait_for_function(f"document.querySelector('{line}').dataset.spectator === '{now}'")
    assert ann.inner_text(f"{line} .chat-name") == "Spectator"
    eve.goto(url)
    eve.wait_for_selector("#conn[data-state=connected]")
    ann.click(f"{line} button.chat-mute")
    eve.wait_for_selector("#chat-form", state="hidden")
    assert eve.inner_text("#chat-note") == "The host has muted your chat in this room."
    ann.wait_for_function(f"document.querySelector('{line} button.chat-mute').textContent === 'Unmute chat'")
    assert ann.locator("#toast:not([hidden])").count() == 0, ann.inner_text("#toast")
    assert ann.errors == [] and eve.errors == [] and watcher.errors == []


# The host of the lobby leaves: the next player hosts it (as the room's pages would hear it).
HOST_LEAVES = """
from games import services
from games.store.models import Player
from tests.factories import action_id
code, = args
host = Player.objects.get(game__code=code, seat=0).controller
services.game_leave(code=code, controller=host, seat=0, expected_version=None, action_id=action_id())
result = True
"""


def test_the_host_is_not_offered_mute_chat_on_their_own_spectator_lines(live_site: LiveSite, new_page: Any) -> None:
    """Bob said hello from the rail, then took a seat; Ann left the lobby and Bob hosts it now.
    His page offers Mute chat on other spectators' lines but not on his own (the server mutes no host)."""
    ann = new_page()
    url = create_room(ann, live_site, "Ann", spectators_chat=True)
    bob = new_page()
    bob.goto(url)
    bob.wait_for_selector("#conn[data-state=connected]")
    say(bob, "hello from the rail")
    ann.wait_for_selector("#chat-list .chat-line.spectator")
    join(bob, url, "Bob")
    live_site.run(HOST_LEAVES, url.rstrip("/").rsplit("/", 1)[-1])
    bob.reload()
    bob.wait_for_selector("#conn[data-state=connected]")
    bob.wait_for_selector("#chat-list .chat-line.spectator")
    assert "host" in bob.inner_text("#seats .seat:has(.tag.you)")
    own = bob.locator("#chat-list .chat-line.spectator")
    assert "hello from the rail" in own.inner_text()
    assert own.locator("button.chat-mute").count() == 0, own.inner_text()


def test_a_player_who_left_reads_the_finished_games_chat_and_is_told_he_posts_no_more(
    live_site: LiveSite, new_page: Any
) -> None:
    """Bob leaves mid-game and Ann plays it to its end. The game's chat is still Bob's to read (the
    server sends it to him), not to post to: his page says so, on the page he left it on and on the
    page loaded again, never that the chat is its players' alone."""
    ann, bob = new_page(), new_page()
    online_game(live_site, ann, bob)
    bob.fill("#chat-text", "gotta go")
    bob.press("#chat-text", "Enter")
    ann.wait_for_selector(".chat-line")
    bob.on("dialog", lambda dialog: dialog.accept())
    act(bob, [ann, bob], lambda: bob.click("#leave-1"))
    for turn in range(13):
        if turn == 1:
            # The eleven turns between Ann's first and last through the services: her page loads
            # them, and Bob's, the page he left the game on, hears the game's end live.
            live_site.play_turns(room_code(ann), 11)
            ann.reload()
            ann.wait_for_selector("#conn[data-state=connected]")
            ann.wait_for_selector("#roll:not(:disabled)")
        if turn in (0, 12):
            act(ann, [ann, bob], lambda: ann.click("#roll"))
            score_best(ann, [ann, bob])
    bob.wait_for_function("document.body.textContent.includes('Ann wins')")
    ann.fill("#chat-text", "bye Bob")
    ann.press("#chat-text", "Enter")
    bob.wait_for_function("document.querySelectorAll('.chat-line').length === 2")  # heard live
    said = "You are no longer a player in this game: you can read its chat but not post to it."
    for loaded_again in (False, True):
        if loaded_again:  # the page knows it from the server now (its seats are gone from it)
            bob.reload()
            bob.wait_for_selector(".chat-line >> nth=1")
        assert bob.inner_text("#chat-note") == said
        assert bob.locator("#chat-form").is_hidden()
        assert [t.strip() for t in bob.locator(".chat-line .chat-text").all_inner_texts()] == ["gotta go", "bye Bob"]
    bob.locator("#chat").scroll_into_view_if_needed()
    for scheme in in_each_scheme(bob):
        shot(bob, f"chat-finished-game-left-player-{scheme}")
    assert ann.locator("#chat-form").is_visible() and ann.locator("#chat-note").is_hidden()
    assert ann.errors == [] and bob.errors == []


def test_the_host_unmutes_a_muted_player_who_left_from_their_line_in_the_players_list(
    live_site: LiveSite, new_page: Any
) -> None:
    """Cy, muted, leaves mid-game: she can take no seat again, and stays quiet as a spectator. Her
    line stays in the host's Players list, left and muted, with Unmute chat; once pressed, she speaks
    again (as a spectator, where spectators may)."""
    ann, bob, cy = new_page(), new_page(), new_page()
    url = create_room(ann, live_site, "Ann", spectators_chat=True)
    bob_and_cy_join(url, ann, bob, cy)
    act(ann, [ann, bob, cy], lambda: ann.click("#start"))
    act(ann, [ann, bob, cy], lambda: ann.click("#mute-2"))
    cy.on("dialog", lambda dialog: dialog.accept())
    act(cy, [ann, bob, cy], lambda: cy.click("#leave-2"))
    muted = "The host has muted your chat in this room."
    for loaded_again in (False, True):  # her page says so (the server would refuse her lines), as left or loaded again
        if loaded_again:
            cy.reload()
            cy.wait_for_selector("#conn[data-state=connected]")
        cy.wait_for_function("document.getElementById('chat-note').textContent.includes('muted your chat')")
        assert cy.inner_text("#chat-note") == muted and cy.locator("#chat-form").is_hidden()
    line = ann.locator("#seats .seat >> nth=2")
    assert "left" in line.inner_text() and "chat muted" in line.inner_text()
    assert line.locator("#mute-2").inner_text() == "Unmute chat"
    assert bob.locator("#mute-2").count() == 0  # the host's alone
    line.scroll_into_view_if_needed()
    for scheme in in_each_scheme(ann):
        shot(ann, f"players-left-muted-unmute-{scheme}")
    act(ann, [ann, bob, cy], lambda: ann.click("#mute-2"))
    assert "chat muted" not in line.inner_text()
    assert line.locator("#mute-2").count() == 0  # a seat gone is not muted anew
    cy.wait_for_selector("#chat-form:not([hidden])")
    cy.fill("#chat-text", "thanks")
    cy.press("#chat-text", "Enter")
    bob.wait_for_selector(".chat-line.spectator")
    assert ann.errors == [] and bob.errors == [] and cy.errors == []


def test_a_player_kicked_from_the_lobby_watches_and_posts_as_a_spectator_with_and_without_script(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann kicks Bob from the lobby of a room whose spectators may post, never muting him. He is told
    he was taken out of the room and offered no seat again, on the page he was kicked on and loaded
    again; but the kick is not a mute: his page offers the chat, never that he posts no more, and
    his line reaches Ann, who may mute it as any spectator's; and so without script."""
    ann, bob = new_page(), new_page()
    url = create_room(ann, live_site, "Ann", spectators_chat=True)
    join(bob, url, "Bob")
    ann.wait_for_function("document.querySelectorAll('#seats .seat').length === 2")
    ann.on("dialog", lambda dialog: dialog.accept())
    ann.click("#kick-1")
    bob.wait_for_selector("#taken-out")
    for loaded_again in (False, True):
        if loaded_again:
            bob.reload()
            bob.wait_for_selector("#conn[data-state=connected]")
        # Not offered a seat again: the server would refuse its join (kicked).
        assert bob.locator("#taken-out").is_visible() and bob.locator("#join-name").count() == 0
        bob.wait_for_selector("#chat-form:not([hidden])")
        assert bob.locator("#chat-note").is_hidden()
        say(bob, f"fair enough {int(loaded_again)}")
        lines = "[...document.querySelectorAll('.chat-line.spectator')]"
        ann.wait_for_function(f"{lines}.some((l) => l.textContent.includes('fair enough {int(loaded_again)}'))")
    assert ann.locator(".chat-line.spectator button", has_text="Mute chat").count() == 2
    plain = new_page(java_script_enabled=False)
    plain.context.add_cookies(bob.context.cookies())
    plain.goto(url + "?write=chat")
    assert plain.locator("#ns-chat-note").count() == 0
    plain.fill("#ns-chat-text", "no script")
    plain.click("#ns-chat-send")
    ann.wait_for_function(
        "[...document.querySelectorAll('.chat-line.spectator')].some((l) => l.textContent.includes('no script'))"
    )
    assert ann.errors == [] and bob.errors == []


def test_the_host_unmutes_a_muted_player_who_left_the_lobby_from_the_players_list(
    live_site: LiveSite, new_page: Any
) -> None:
    """Bob, muted, leaves the lobby: his seat is gone, his mute is not (leaving would undo it).
    The host's Players list names him, left and muted, with Unmute chat, also once the game is on
    and he can take no seat again; once pressed, he speaks (as a spectator, where spectators may)."""
    ann, bob, cy = new_page(), new_page(), new_page()
    url = create_room(ann, live_site, "Ann", spectators_chat=True)
    bob_and_cy_join(url, ann, bob, cy)
    muted_bob_leaves(ann, bob, cy)
    bob.wait_for_function("document.getElementById('chat-note').textContent.includes('muted your chat')")
    assert bob.locator("#chat-form").is_hidden()
    act(ann, [ann, bob, cy], lambda: ann.click("#start"))
    line = ann.locator("#seats .muted-left")
    assert "Bob" in line.inner_text() and "left" in line.inner_text() and "chat muted" in line.inner_text()
    assert cy.locator("#seats .muted-left").count() == 0 and bob.locator("#unmute-left-0").count() == 0
    line.scroll_into_view_if_needed()
    for scheme in in_each_scheme(ann):
        shot(ann, f"players-left-lobby-muted-unmute-{scheme}")
    act(ann, [ann, bob, cy], lambda: ann.click("#unmute-left-0"))
    ann.wait_for_selector("#seats .muted-left", state="detached")
    bob.wait_for_selector("#chat-form:not([hidden])")
    say(bob, "thanks")
    ann.wait_for_selector(".chat-line.spectator")
    assert ann.errors == [] and bob.errors == [] and cy.errors == []


def test_a_player_muted_and_taken_out_during_play_speaks_again_once_the_host_unmutes_their_seat(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann mutes Cy, Cy goes away, Ann takes Cy's seat out. Back at the table Cy reads that the host
    took him out, with and without script. Ann unmutes his seat from his line: his page is told
    anew (a new socket's ``you``) and offers the chat again, and the server takes his post."""
    ann, bob, cy = new_page(), new_page(), new_page()
    url = create_room(ann, live_site, "Ann", spectators_chat=True)
    bob_and_cy_join(url, ann, bob, cy)
    act(ann, [ann, bob, cy], lambda: ann.click("#start"))
    act(ann, [ann, bob, cy], lambda: ann.click("#mute-2"))
    taken_out_while_away(live_site, url, ann, bob, cy)
    assert cy.locator("#chat-form").is_hidden()
    plain = new_page(java_script_enabled=False)
    plain.context.add_cookies(cy.context.cookies())
    plain.goto(url)
    assert plain.inner_text("#ns-chat-note") == TAKEN_OUT
    # The seat's unmute gives Cy his voice back: nothing else of his browser was taken out.
    ann.wait_for_selector("#seats #mute-2")
    act(ann, [ann, bob, cy], lambda: ann.click("#mute-2"))
    cy.wait_for_selector("#chat-form:not([hidden])")
    assert cy.locator("#chat-note").is_hidden()
    say(cy, "back")
    ann.wait_for_selector(".chat-line.spectator")
    plain.goto(url)
    assert plain.locator("#ns-chat-note").count() == 0 or plain.inner_text("#ns-chat-note") != TAKEN_OUT
    assert ann.errors == [] and bob.errors == [] and cy.errors == []


def test_a_player_taken_out_without_a_mute_speaks_again_once_the_host_unmutes_his_line(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann takes Cy out while he is away, never muting him. Back at the table Cy reads that the host
    took him out; Ann's Players list shows his line quiet, with *Unmute chat*. Her unmute gives
    him his voice back, and the server takes his post."""
    ann, bob, cy = new_page(), new_page(), new_page()
    url = create_room(ann, live_site, "Ann", spectators_chat=True)
    bob_and_cy_join(url, ann, bob, cy)
    act(ann, [ann, bob, cy], lambda: ann.click("#start"))
    taken_out_while_away(live_site, url, ann, bob, cy)
    ann.wait_for_selector("#seats #mute-2")
    assert "chat muted" in ann.inner_text("#seats")
    act(ann, [ann, bob, cy], lambda: ann.click("#mute-2"))
    cy.wait_for_selector("#chat-form:not([hidden])")
    say(cy, "back")
    ann.wait_for_selector(".chat-line.spectator")
    assert ann.errors == [] and bob.errors == [] and cy.errors == []


# Every state the room page's connection is shown in from now on (#conn's data-state, as the page
# sets it for each change): a page that opens a new socket first shows the one it gives up as lost,
# in the same task as what made it give it up, then the new one connecting.
CONNECTION_STATES = """() => {
  const conn = document.getElementById('conn');
  window.__connection = [];
  new MutationObserver(() => window.__connection.push(conn.dataset.state))
    .observe(conn, { attributes: true, attributeFilter: ['data-state'] });
}"""


def test_the_hosts_unmute_of_one_player_leaves_the_page_of_another_taken_out_as_it_is(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann takes Cy out, then mutes and unmutes Bob. Cy's page hears of Bob's unmute in the feed
    and nothing more: it opens no new socket (his standing did not change), and still says he
    was taken out."""
    ann, bob, cy = new_page(), new_page(), new_page()
    url = create_room(ann, live_site, "Ann", spectators_chat=True)
    bob_and_cy_join(url, ann, bob, cy)
    act(ann, [ann, bob, cy], lambda: ann.click("#start"))
    taken_out_while_away(live_site, url, ann, bob, cy)
    sockets: list[Any] = []
    cy.on("websocket", lambda socket: sockets.append(socket))
    cy.evaluate(CONNECTION_STATES)
    act(ann, [ann, bob, cy], lambda: ann.click("#mute-1"))
    act(ann, [ann, bob, cy], lambda: ann.click("#mute-1"))
    # The page has taken the unmute's event (its feed line is drawn): a new socket asked for it
    # would have had the page give up the one it has ("Reconnecting…") while it took it.
    cy.wait_for_function("document.getElementById('feed').textContent.includes('unmuted')")
    assert cy.evaluate("window.__connection") == []
    assert sockets == []
    assert cy.inner_text("#chat-note") == TAKEN_OUT
    assert ann.errors == [] and bob.errors == [] and cy.errors == []


# A Danish catalog with the unread count as Danish says it: "1 ny" besked, "3 nye" beskeder. Added
# to the page's own catalog, so the test does not wait on the translation being made.
DANISH_UNREAD = '\ndjango.catalog["(%(n)s new)"] = ["(%(n)s ny)", "(%(n)s nye)"];\n'


def test_the_hidden_chats_count_of_new_messages_agrees_with_its_number(live_site: LiveSite, new_page: Any) -> None:
    """One new message is "1 ny" in Danish (French "1 nouveau", Spanish "1 nuevo"), three are "3 nye":
    the count's word is the plural form its number takes in the reader's language."""
    ann, bob = new_page(locale="da-DK"), new_page(locale="da-DK")

    def danish(route: Any) -> None:
        response = route.fetch()
        route.fulfill(response=response, body=response.text() + DANISH_UNREAD)

    ann.route("**/jsi18n/da.js*", danish)
    url = create_room(ann, live_site, "Ann")
    join(bob, url, "Bob")
    ann.click("#chat-toggle")
    say(bob, "er du der?")
    ann.wait_for_function("document.getElementById('chat-unread').textContent !== ''")
    assert ann.inner_text("#chat-unread") == "(1 ny)"
    say(bob, "hallo")
    say(bob, "hallo?")
    ann.wait_for_function("document.getElementById('chat-unread').textContent.includes('3')")
    assert ann.inner_text("#chat-unread") == "(3 nye)"

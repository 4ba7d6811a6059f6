"""A blind player at the table: what the room page says through its live regions (the
announcements, the chat list), and what it leaves unsaid."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import (
    act,
    create_local,
    create_online,
    created,
    join,
    online_form,
    online_game,
    room_code,
    score_best,
    seated,
    time_runs_out,
)
from tests.e2e.test_own_pace import create_own_pace
from tests.e2e.test_social import FILL_CHAT, KEEP_SOCKETS, say, two_players

pytestmark = pytest.mark.browser

# Records every message line added to the chat list from now on, while the list is a live region.
WATCH_CHAT = """() => {
  window.__chatAdded = [];
  const list = document.getElementById('chat-list');
  new MutationObserver((records) => {
    const live = (list.getAttribute('aria-live') || 'off') !== 'off' && list.getAttribute('aria-busy') !== 'true';
    for (const record of records) for (const node of record.addedNodes) {
      if (live && node.dataset && node.dataset.message) window.__chatAdded.push(node.dataset.message);
    }
  }).observe(list, { childList: true });
}"""


def test_a_reconnect_does_not_read_the_whole_chat_history_out_again(live_site: LiveSite, new_page: Any) -> None:
    """The chat list is a polite live region (aria-relevant additions). A socket that connects gets
    the last 50 messages (chat_history): after a reconnect (a phone waking, a network change) the
    lines already shown stay, and none is put into the list again for a screen reader to read
    out again."""
    ann = new_page()
    ann.add_init_script(KEEP_SOCKETS)
    url = create_online(ann, live_site, "Ann")
    live_site.run(FILL_CHAT, url.rstrip("/").rsplit("/", 1)[-1], 20)
    ann.reload()
    ann.wait_for_selector("#conn[data-state=connected]")
    ann.wait_for_function("document.querySelectorAll('#chat-list .chat-line').length === 20")
    ann.evaluate(WATCH_CHAT)
    ann.evaluate("window.__sockets.at(-1).close()")
    ann.wait_for_function("window.__sockets.length >= 2 && window.__sockets.at(-1).readyState === 1")
    ann.wait_for_selector("#conn[data-state=connected]")
    # The new socket's history read (the page draws it as the frame arrives).
    ann.wait_for_function("window.__sockets.at(-1).heard.includes('chat_history')")
    assert ann.locator("#chat-list .chat-line").count() == 20
    again = ann.evaluate("window.__chatAdded")
    assert again == [], f"{len(again)} messages already read were put into the live chat list again"


# Records, from the page's first moment, every message line added to the chat list while it is live.
WATCH_CHAT_FROM_THE_START = """
window.__chatAdded = [];
new MutationObserver((records) => {
  for (const record of records) {
    const list = record.target;
    if (list.id !== 'chat-list') continue;
    const live = (list.getAttribute('aria-live') || 'off') !== 'off' && list.getAttribute('aria-busy') !== 'true';
    for (const node of record.addedNodes) {
      if (live && node.dataset?.message) window.__chatAdded.push(node.dataset.message);
    }
  }
}).observe(document, { childList: true, subtree: true });
"""


def test_the_chat_history_a_page_opens_with_is_not_read_out_but_new_messages_are(
    live_site: LiveSite, new_page: Any
) -> None:
    """Bob opens a room whose chat has 20 messages: they are shown, not read out one after the
    other; what is said after is read as it comes."""
    ann, bob = new_page(), new_page()
    url = create_online(ann, live_site, "Ann")
    live_site.run(FILL_CHAT, url.rstrip("/").rsplit("/", 1)[-1], 20)
    bob.add_init_script(WATCH_CHAT_FROM_THE_START)
    bob.goto(url)
    bob.wait_for_function("document.querySelectorAll('#chat-list .chat-line').length === 20")
    assert bob.evaluate("window.__chatAdded") == []
    bob.wait_for_function("document.getElementById('chat-list').getAttribute('aria-live') === 'polite'")
    say(ann, "hello Bob")
    bob.wait_for_selector("#chat-list li >> text=hello Bob")
    added = bob.evaluate("window.__chatAdded")
    assert added == [bob.get_attribute("#chat-list li:last-child", "data-message")], added


CHAT = """<!doctype html><html lang="en"><title>chat</title>
<ol id="list" aria-live="polite" aria-relevant="additions"></ol>
<script type="module">
import { ChatPanel } from "/static/js/room/chat.js";
window.chat = new ChatPanel(document.getElementById("list"));
window.line = (id) => ({ id, seat: 0, name: "Ana", text: `message ${id}`, at: "" });
window.shown = () => [...document.querySelectorAll("#list li")].map((li) => Number(li.dataset.message));
window.ready = true;
</script>"""


def test_a_chat_history_sent_again_keeps_the_lines_shown_and_adds_the_others_in_their_place(harness: Any) -> None:
    page = harness(CHAT)
    page.evaluate("chat.replace([1, 2, 4].map(line), true)")
    assert page.evaluate("shown()") == [1, 2, 4]
    # The history the page opens with is put in quietly: the list is live again a moment later.
    assert page.get_attribute("#list", "aria-live") == "off"
    page.wait_for_function("document.getElementById('list').getAttribute('aria-live') === 'polite'")
    page.evaluate(WATCH_CHAT.replace("'chat-list'", "'list'"))
    # Meanwhile 2 was hidden by staff, and 3 (shown again), 5 and 6 are new.
    page.evaluate("chat.replace([1, 3, 4, 5, 6].map(line))")
    assert page.evaluate("shown()") == [1, 3, 4, 5, 6]
    assert page.evaluate("window.__chatAdded") == ["3", "5", "6"]


def test_holding_a_die_with_its_number_key_is_announced(live_site: LiveSite, new_page: Any) -> None:
    """The keys 1-5 hold dice from anywhere on the table: the die's pressed state changes on a
    button the keyboard is not on, so the hold is said ("Die 3 (five) held."), and letting it go too."""
    page = new_page()
    create_local(page, live_site, ["Solo"])
    page.focus("#roll")
    act(page, [page], lambda: page.keyboard.press("Enter"))
    page.wait_for_function("document.getElementById('announce').textContent.includes('rolled')")
    rolled = page.inner_text("#announce")
    face = (page.get_attribute("#die-2", "aria-label") or "").split(": ")[1]  # "Die 3: five"
    page.keyboard.press("3")
    page.wait_for_selector("#die-2[aria-pressed=true]")
    page.wait_for_function("(rolled) => document.getElementById('announce').textContent !== rolled", arg=rolled)
    assert page.inner_text("#announce") == f"Die 3 ({face}) held."
    page.keyboard.press("3")
    page.wait_for_selector("#die-2[aria-pressed=false]")
    page.wait_for_function("() => document.getElementById('announce').textContent.endsWith('released.')")
    assert page.inner_text("#announce") == f"Die 3 ({face}) released."


def test_the_first_turn_is_announced_when_the_game_starts(live_site: LiveSite, new_page: Any) -> None:
    """Bob waits in the lobby with a screen reader; Ann starts. He hears that the game started
    and whose turn it is, as he hears every later turn ("Bob's turn.")."""
    ann, bob = new_page(), new_page()
    online_game(live_site, ann, bob)
    bob.wait_for_function("document.getElementById('announce').textContent.includes('started')")
    # Announcements of one moment are said together: the turn is said with the start, its name
    # a run of its own.
    bob.wait_for_function("document.getElementById('announce').textContent.includes('\u2068Ann\u2069\\'s turn')")


# Every text the page puts in its live region (#announce), from the page's first moment, in order.
HEAR_ANNOUNCEMENTS = """
window.__said = [];
document.addEventListener('DOMContentLoaded', () => {
  const region = document.getElementById('announce');
  new MutationObserver(() => { if (region.textContent) window.__said.push(region.textContent); })
    .observe(region, {childList: true, characterData: true, subtree: true});
});
"""


def test_the_player_to_move_is_told_once_that_their_turn_is_running_out(live_site: LiveSite, new_page: Any) -> None:
    """In the last 10 s of a live turn the countdown turns low for the eye; it is a role=timer,
    which no screen reader reads out by itself, so the player to move hears it in words, once,
    before the server plays the turn for them. The other player is not told of it."""
    ann, bob = two_players(live_site, new_page, timer="30")
    ann.click("#start")
    for page in (ann, bob):
        page.wait_for_selector("#play [data-countdown]")
        page.clock.install()  # the pages' own clocks (the server's deadline is 30 s away and stays so)
        page.add_init_script(HEAR_ANNOUNCEMENTS)
        page.reload()
        page.wait_for_selector("#conn[data-state=connected]")
        page.wait_for_selector("#play [data-countdown]")
    # Both pages' live regions are heard: each reads out the other's reaction.
    bob.click("#play-reactions button[aria-label='React 👍']")
    ann.click("#play-reactions button[aria-label='React 🎲']")
    for page in (ann, bob):
        page.wait_for_selector(".reaction-bubble")
        page.clock.run_for(500)
        assert any("reacts" in text for text in page.evaluate("window.__said"))
        page.clock.run_for(22_000)  # into the turn's last 10 s, no server frame needed
        assert page.locator("#play [data-countdown].low").count() == 1
        page.clock.run_for(4_000)
    warned = [text for text in ann.evaluate("window.__said") if "left for this turn" in text]
    assert len(warned) == 1 and re.fullmatch(r"\d+ seconds left for this turn\.", warned[0]), warned
    assert not [text for text in bob.evaluate("window.__said") if "left for this turn" in text]


# Staff give the player to move a day more (the admin's action, confirmed for this turn).
MORE_TIME = """
from games import services
from games.store.models import Game
code, = args
game = Game.objects.get(code=code)
services.clock_extend(code=code, seconds=86400, staff="staff", turn=services.clock_to_extend(game))
result = True
"""

# The move's deadline set ``hours`` from now, as if the time before it had passed.
HOURS_LEFT = """
from datetime import timedelta
from django.utils import timezone
from games.store.models import Game
code, hours = args
deadline = timezone.now() + timedelta(hours=hours)
Game.objects.filter(code=code).update(turn_deadline=deadline, due_at=deadline)
result = True
"""


def test_a_player_given_more_time_is_told_again_when_that_time_runs_low(live_site: LiveSite, new_page: Any) -> None:
    """At your own pace, a day a move: Ann's move is down to 5 hours and a screen reader hears
    "5 hours left for this move." Staff give her a day more; when that runs down to 5 hours too,
    she is told again."""
    ann = new_page()
    ann.clock.install()  # the page's own clock, run on below to count its countdown's ticks
    ann.add_init_script(HEAR_ANNOUNCEMENTS)
    code = create_own_pace(ann, live_site, "Ann", 86400)
    join(new_page(), ann.url, "Bob")
    ann.wait_for_function("document.querySelectorAll('#seats .seat').length === 2")
    ann.click("#start")
    ann.wait_for_selector("#play [data-countdown]")
    assert "Your turn" in ann.inner_text("#turn-h")
    # The start is said first: a change arriving while it waits to be said is said with it, in one
    # announcement ("The game has started. Your turn, Ann. 5 hours left for this move.").
    ann.wait_for_function("window.__said.some(t => t.startsWith('The game has started'))")

    def warned() -> list[str]:
        return [text for text in ann.evaluate("window.__said") if "left for this move" in text]

    def shown_again() -> None:
        """The phone is shown again: the page asks for the state and counts down from it."""
        ann.evaluate("document.dispatchEvent(new Event('visibilitychange'))")

    live_site.run(HOURS_LEFT, code, 5)
    shown_again()
    ann.wait_for_selector("#play [data-countdown].low")
    ann.wait_for_function("window.__said.some(t => t.includes('left for this move'))")
    ann.clock.run_for(1000)  # four ticks more of the low countdown
    # A time left is said in whole minutes rounded down: the moments the page took are off it.
    assert len(warned()) == 1, ann.evaluate("window.__said")
    assert re.fullmatch(r"(5 hours|4 hours 59 minutes) left for this move\.", warned()[0]), warned()
    live_site.run(MORE_TIME, code)  # 29 hours left
    shown_again()
    ann.wait_for_selector("#play [data-countdown]:not(.low)")
    live_site.run(HOURS_LEFT, code, 5)  # a day later
    shown_again()
    ann.wait_for_selector("#play [data-countdown].low")
    ann.wait_for_function("window.__said.filter(t => t.includes('left for this move')).length >= 2")
    # Four ticks of the countdown (one each 250 ms of the page's clock) have run when this returns,
    # with the words of those before the last: said once, not again at each.
    ann.clock.run_for(1000)
    assert len(warned()) == 2, ann.evaluate("window.__said")


@pytest.mark.parametrize("width", [1280, 390])
def test_the_sound_button_is_named_by_the_words_it_shows_and_its_state_agrees(
    live_site: LiveSite, new_page: Any, width: int
) -> None:
    """The room bar's sound button shows "Sound on" (a phone, its speaker) and is a toggle, pressed
    while the sound is on. A screen reader read it as "Turn sound off, pressed", which says the
    opposite of the state, and someone using voice control who says "click Sound on" was not
    understood: its name is the words it shows, and what pressing it does is its description."""
    page = new_page(width, 844)
    create_online(page, live_site, "Ann")
    for words, pressed, does in (("Sound on", "true", "Turn sound off"), ("Sound off", "false", "Turn sound on")):
        button = page.get_by_role("button", name=words, exact=True)
        assert button.count() == 1, words
        assert button.get_attribute("id") == "mute"
        assert button.get_attribute("aria-pressed") == pressed
        described = button.evaluate("b => b.title || ''")
        assert described == does, words
        button.click()


def test_the_table_reads_the_totals_box_names_and_feed_without_the_marks_drawn_for_the_eye(
    live_site: LiveSite, new_page: Any
) -> None:
    """What the accessibility tree gives a screen reader at the table: each player's total in the
    Players list said as one ("total 24", not a bare number after "online"), a box's name as the
    box's name ("Chance", not "Chance i": the "i" is the mark that says it opens its help), and the
    feed's lines without the pencil, star or gear drawn before them."""
    ann, bob = new_page(), new_page()
    online_game(live_site, ann, bob)
    act(ann, [ann, bob], lambda: ann.click("#roll"))
    act(ann, [ann, bob], lambda: ann.click("#score-chance-0"))
    chance = int(bob.inner_text("#card tr[data-box=chance] td"))
    players = bob.locator("#seats").aria_snapshot()
    assert f"Ann host online total {chance}" in players, players
    assert "Bob you to play online total 0" in players, players
    assert bob.get_by_role("button", name="Chance", exact=True).count() == 1
    feed = bob.locator("#feed").aria_snapshot()
    assert f"- listitem: Ann scored {chance} in Chance" in feed, feed


def test_each_button_of_the_players_list_names_the_seat_it_is_for(live_site: LiveSite, new_page: Any) -> None:
    """The host's lobby holds a Remove for each guest and computer, a Mute chat for a guest and a
    Leave for each of the device's own seats: named by their words alone, a screen reader tabbing
    through them would read "Remove, Remove, Leave, Leave" (and voice control's "click Remove" have
    several to choose from). Each is named by the words it shows and then the seat's name, as the
    eye reads it on the seat's row."""
    ann, bob = new_page(), new_page()
    url = create_online(ann, live_site, "Ann")
    join(bob, url, "Bob")
    ann.fill("#join-name", "Cy")
    with ann.expect_navigation():
        ann.click("#join-btn")
    ann.wait_for_function("document.querySelectorAll('#seats .seat .tag.you').length === 2")
    for seats in (4, 5):
        act(ann, [ann], lambda: ann.click("#add-bot"))
        ann.wait_for_function(f"document.querySelectorAll('#seats .seat').length === {seats}")
    computers = ann.locator("#seats .seat:has(.tag.bot) .seat-name").all_inner_texts()
    assert len(set(computers)) == 2, computers
    names = [*(f"Remove {name}" for name in ["Bob", *computers]), "Mute chat Bob", "Leave Ann", "Leave Cy"]
    for name in names:
        assert ann.locator("#seats").get_by_role("button", name=name, exact=True).count() == 1, name
    assert ann.locator("#seats button").count() == len(names)
    # The guest's own Leave, the only button of his list, is named for his seat too.
    assert bob.locator("#seats").get_by_role("button", name="Leave Bob", exact=True).count() == 1


def test_the_chat_form_says_post_as_only_with_the_choice_of_who_posts(live_site: LiveSite, new_page: Any) -> None:
    """The words "Post as" label the choice of who is talking, which a shared device's chat has. A page of
    one seat has no such choice, and a screen reader read the words alone before the message box."""
    page = new_page()
    create_online(page, live_site, "Ann")
    form = page.locator("#chat-form").aria_snapshot()
    assert "Post as" not in form and 'textbox "Message"' in form, form
    shared = new_page()
    create_local(shared, live_site, ["Hal", "Ivy"])
    form = shared.locator("#chat-form").aria_snapshot()
    assert 'combobox "Post as"' in form, form


def test_the_question_before_a_zero_is_read_with_its_dialog(live_site: LiveSite, new_page: Any) -> None:
    """A box that would score 0 asks first: the screen reader, put on "Score 0" as the dialog
    opens, reads the dialog's name and its question (which box, and that it is filled with a 0),
    not only "Score zero?" and the button."""
    page = new_page()
    create_local(page, live_site, ["Solo"])
    act(page, [page], lambda: page.click("#roll"))
    page.locator("#card .score-btn.zero").first.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#confirm[open]")
    assert page.evaluate("document.activeElement.id") == "confirm-yes"
    cdp = page.context.new_cdp_session(page)
    try:
        tree = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    dialog = next(n for n in tree if n.get("role", {}).get("value") == "dialog")
    assert dialog["name"]["value"] == "Score zero?"
    assert dialog.get("description", {}).get("value") == page.inner_text("#confirm-text")
    page.keyboard.press("Escape")


# The dice of the room's last roll as a screen reader hears them: "3 red, 5 blue, ...".
LAST_ROLL_SAID = """
from games.store.models import Move
code, = args
roll = Move.objects.filter(game__code=code, kind=Move.Kind.ROLL).order_by("-seq").first()
colours = ["red", "yellow", "green", "blue", "purple"]
result = ", ".join(f"{(face - 1) % 6 + 1} {colours[(face - 1) // 6]}" for face in roll.payload["faces"])
"""

# Every text the live region says from now on, in order.
HEAR_FROM_NOW = """() => {
  window.__said = [];
  const region = document.getElementById('announce');
  new MutationObserver(() => { if (region.textContent) window.__said.push(region.textContent); })
    .observe(region, {childList: true, characterData: true, subtree: true});
}"""


def test_a_painted_turn_the_server_played_is_announced_with_its_dice_colours(
    live_site: LiveSite, new_page: Any
) -> None:
    """Painted Yahtzee: Bob's time runs out before he rolls, and the server rolls and scores his
    turn at once. Ann hears his roll with each die's colour, as she hears the rolls he makes
    himself: the colours score too (Flush, Rainbow, the colour boxes)."""
    ann, bob = new_page(), new_page()
    online_form(ann, live_site, "Ann", "painted")
    ann.select_option("#id_turn_timer", "30")
    join(bob, created(ann), "Bob")
    seated(ann, 2)
    act(ann, [ann, bob], lambda: ann.click("#start"))
    act(ann, [ann, bob], lambda: ann.click("#roll"))
    score_best(ann, [ann, bob])
    ann.evaluate(HEAR_FROM_NOW)
    time_runs_out(live_site, ann, 1)
    ann.wait_for_function("window.__said.some((text) => text.includes('\u2068Bob\u2069 rolled'))")
    said = " ".join(ann.evaluate("window.__said"))
    dice = live_site.run(LAST_ROLL_SAID, room_code(ann))
    assert f"\u2068Bob\u2069 rolled {dice}." in said, (dice, said)


def solo_game(site: LiveSite, page: Any, computers: int) -> None:
    """One person on their own device, against ``computers`` computer players, heard from the page's first moment."""
    page.add_init_script(HEAR_ANNOUNCEMENTS)
    page.goto(site.url + "/")
    page.check("input[name=mode][value=local]")
    page.fill("#id_players", "1")
    page.fill("#id_player_1", "Solo")
    page.fill("#id_bots", str(computers))
    page.check("input[name=ruleset][value=official]")
    page.click("#create-btn")
    page.wait_for_selector("#roll")


def play_a_turn(page: Any, scored: int) -> None:
    """Solo's turn, once it is theirs: roll, score, until the page has said their ``scored``-th score."""
    page.wait_for_function(
        "document.getElementById('turn-h')?.textContent.startsWith('Your turn, Solo') "
        "&& !document.getElementById('roll').disabled",
        timeout=20_000,
    )
    act(page, [page], lambda: page.click("#roll"))
    score_best(page, [page])
    page.wait_for_function(
        "n => window.__said.join(' ').split('\u2068Solo\u2069 scored').length > n", arg=scored, timeout=20_000
    )


def test_a_lone_player_is_not_told_after_each_score_that_the_turn_is_theirs_again(
    live_site: LiveSite, new_page: Any
) -> None:
    """Solo plays alone on their device: each score gives the turn straight back to them, which the
    page shows, and a screen reader heard "Your turn, Solo." after every score. Nobody else played:
    nothing to tell. Against a computer, the turn that comes back after the computer's is said."""
    alone = new_page()
    solo_game(live_site, alone, 0)
    for scored in (1, 2):
        play_a_turn(alone, scored)
    # The next roll is said after the last score, and the turn would have been said before it.
    act(alone, [alone], lambda: alone.click("#roll"))
    alone.wait_for_function("window.__said.join(' ').split('\u2068Solo\u2069 rolled').length > 3")
    said = " ".join(alone.evaluate("window.__said"))
    assert "Your turn" not in said, said

    against = new_page()
    solo_game(live_site, against, 1)
    for scored in (1, 2):
        play_a_turn(against, scored)
    said = " ".join(against.evaluate("window.__said"))
    assert said.count("Your turn, \u2068Solo\u2069.") >= 1, said
    assert re.search(r"scored \d+ in [^.]+\. Your turn, \u2068Solo\u2069\.", said), said

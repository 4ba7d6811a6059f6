"""What each player sees on the room page: the game's end and its review, the header on a phone,
a seat the computer plays (on a shared device, taken back only by its player), a shared device
(whose turn, who posts in the chat, the columns), the chat's length limit, and one browser's
tabs of a room.

Near-final states are written into the stored snapshot (as tests/e2e/test_table_layout.py
does): the page draws whatever the server sends, and the last turns are played for real.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import (
    NAME_LEFT,
    act,
    bob_and_cy_join,
    bob_kept_by_the_computer,
    code_of,
    create_local,
    create_online,
    in_each_scheme,
    join,
    join_refused,
    local_room,
    online_game,
    plays_a_turn,
    score_best,
    seated,
    serious_violations,
    servers_wait_is_over,
    set_rules,
    shot,
    time_runs_out,
    timed_game_with_bob,
)

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844, "has_touch": True, "is_mobile": True}


def reload(page: Any) -> None:
    page.reload()
    page.wait_for_selector("#conn[data-state=connected]")


def boxes_of(page: Any) -> list[str]:
    return list(
        page.evaluate(
            "fetch(location.pathname + 'state.json').then(r => r.json()).then(s => s.ruleset.boxes.map(b => b.box))"
        )
    )


def in_view(page: Any, selector: str) -> bool:
    """Whether the element is laid out and wholly inside the viewport as the page is scrolled now."""
    return bool(
        page.evaluate(
            """s => { const e = document.querySelector(s); if (!e) return false;
                const r = e.getBoundingClientRect();
                return r.width > 0 && r.top >= 0 && r.bottom <= innerHeight
                    && r.left >= 0 && r.right <= innerWidth; }""",
            selector,
        )
    )


def score_last_open_box(page: Any) -> None:
    def click() -> None:
        page.locator("#card .score-btn:not(.forbidden)").last.click()
        if page.locator("#confirm[open]").count():
            page.click("#confirm-yes")

    act(page, [page], click)


# --- the end of a game ------------------------------------------------------------------------


@pytest.mark.parametrize(("device", "ruleset"), [("desktop", "official"), ("phone", "painted")])
def test_the_end_of_a_pass_and_play_game_brings_the_result_into_view(
    live_site: LiveSite, new_page: Any, device: str, ruleset: str
) -> None:
    page = new_page(**PHONE) if device == "phone" else new_page(1280, 800)
    url = local_room(page, live_site, ["Hal", "Ivy"], ruleset=ruleset)
    boxes = boxes_of(page)

    def one_box_left(rules: dict[str, Any]) -> None:
        for seat in (0, 1):  # every box filled but Chance
            rules["cards"][seat]["columns"][0] = [[box, 3 + seat] for box in boxes if box != "chance"]

    set_rules(live_site, code_of(url), one_box_left)
    reload(page)
    page.wait_for_selector("#roll")
    for _ in range(2):
        # A player looks down the card for the box to score, as on a long card or a phone.
        page.evaluate("document.querySelector('#card .scorecard-wrap').scrollIntoView({block: 'end'})")
        act(page, [page], lambda: page.click("#roll"))
        score_last_open_box(page)
    page.wait_for_selector("#over:not([hidden])")
    page.wait_for_function("document.activeElement && document.activeElement.id === 'over-h'")
    for part in ("#over-h", ".winner-line", "#over .ranking"):
        assert in_view(page, part), part
    assert page.inner_text(".winner-line") == "Ivy wins!"
    # Painted has no exact review; the replay is there for every rule set.
    assert page.get_attribute("#replay-link", "href") == f"/r/{code_of(url)}/replay"
    if ruleset == "painted":
        page.wait_for_selector("#review p")
        assert "no exact solver" in page.inner_text("#review")
    else:
        page.wait_for_selector("#review .review-list")
    for scheme in in_each_scheme(page):
        shot(page, f"over-pass-and-play-{ruleset}-{device}-{scheme}")
        assert serious_violations(page, scheme) == [], scheme
    assert page.errors == []


# The contrast of the celebration's words with what is behind them: their own background where they
# have one, else the page's.
BURST_CONTRAST = """() => {
  const lum = (s) => {
    const [r, g, b] = s.match(/[\\d.]+/g).slice(0, 3).map(Number)
      .map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const burst = document.querySelector("#celebrate .burst");
  const own = getComputedStyle(burst).backgroundColor;
  const back = own === "rgba(0, 0, 0, 0)" ? getComputedStyle(document.body).backgroundColor : own;
  const [a, b] = [lum(getComputedStyle(burst).color), lum(back)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""

# The celebration read as its burst is drawn (its contrast, and where each name stands in it): the
# burst is gone 2.2 s later, which a loaded machine let pass between finding it and reading it.
WATCH_BURST = (
    """(names) => {
  const layer = document.getElementById("celebrate");
  const nameLeft = """
    + NAME_LEFT
    + """;
  const burstContrast = """
    + BURST_CONTRAST
    + """;
  window.__burst = new Promise((resolve) => {
    const watch = new MutationObserver(() => {
      if (!layer.querySelector(".burst")) return;
      watch.disconnect();
      resolve([burstContrast(), nameLeft(["#celebrate .burst", names])]);
    });
    watch.observe(layer, { childList: true });
  });
}"""
)


def test_a_tie_of_right_to_left_names_is_told_in_seat_order(live_site: LiveSite, new_page: Any) -> None:
    """Three Hebrew names share the win. "אבי & שרה & דן win!" over the table, and "Game over: אבי,
    שרה, and דן share the win" in the feed, were drawn with the names the other way round (the "&"
    or comma between two right-to-left words joins them into one right-to-left run): דן first, as
    if he sat first. Each name is a run of its own there, as on the game-over panel and the card."""
    names = ["אבי", "שרה", "דן"]
    page = new_page(1280, 800, reduced_motion="no-preference")
    url = local_room(page, live_site, [*names, "Ann"])
    boxes = boxes_of(page)

    def tie_but_for_anns_last_box(rules: dict[str, Any]) -> None:
        for seat in (0, 1, 2):  # full cards, 39 each
            rules["cards"][seat]["columns"][0] = [[box, 3] for box in boxes]
        # Ann plays the last turn, and even the best Chance leaves her behind.
        rules["cards"][3]["columns"][0] = [[box, 0] for box in boxes if box != "chance"]
        rules["current"] = 3
        rules["turns_played"] = 4 * len(boxes) - 1

    set_rules(live_site, code_of(url), tie_but_for_anns_last_box)
    reload(page)
    page.wait_for_selector("#roll")
    act(page, [page], lambda: page.click("#roll"))
    page.evaluate(WATCH_BURST, names)
    score_last_open_box(page)
    contrast, burst = page.evaluate("window.__burst")
    # The winner's words, large and yellow, stand on a dark band of their own, readable on the light
    # page as on the dark one (WCAG's 3:1 for large text; on the bare light page it was 1.3:1).
    assert contrast >= 3
    page.wait_for_selector("#feed li.feed-over")
    feed = page.evaluate(NAME_LEFT, ["#feed li.feed-over", names])
    panel = page.evaluate(NAME_LEFT, [".winner-line", names])
    assert page.inner_text("#feed li.feed-over").startswith("Game over: ")
    assert None not in burst + feed + panel, (burst, feed, panel)
    assert panel[0] < panel[1] < panel[2], panel  # the game-over panel: already in seat order
    assert burst[0] < burst[1] < burst[2], (page.inner_text("#celebrate .burst"), burst)
    assert feed[0] < feed[1] < feed[2], (page.inner_text("#feed li.feed-over"), feed)
    # The page as it stays once the celebration is over (its full-screen layer goes after 2.2 s;
    # axe read the page through it when the run was quick enough to get here first).
    page.wait_for_selector("#celebrate", state="hidden")
    for scheme in in_each_scheme(page):
        page.locator("#feed").scroll_into_view_if_needed()
        shot(page, f"over-right-to-left-tie-{scheme}")
        assert serious_violations(page, scheme) == [], scheme
    assert page.errors == []


def solo_game_played_out(page: Any, site: LiveSite) -> str:
    """A one-player game on ``page`` played to its end, one roll a turn and the best box then:
    choices the coach finds costly. The first and the last turn on the page, the eleven between
    through the services (the page loads them again). Returns the room's code."""
    code = code_of(local_room(page, site, ["Solo"]))
    for turn in range(13):
        if turn == 1:
            site.play_turns(code, 11)
            reload(page)
        if turn in (0, 12):
            page.wait_for_selector("#roll:not(:disabled)")
            act(page, [page], lambda: page.click("#roll"))
            score_best(page, [page])
    return code


def test_the_game_over_panel_links_the_replay_and_each_players_costliest_choices(
    live_site: LiveSite, new_page: Any
) -> None:
    page = new_page(1280, 800)
    code = solo_game_played_out(page, live_site)
    page.wait_for_selector("#over:not([hidden])")
    assert page.get_attribute("#replay-link", "href") == f"/r/{code}/replay"
    page.wait_for_selector("#review .costly-choice")
    review = json.loads(page.evaluate(f"fetch('/r/{code}/review.json').then(r => r.text())"))
    costly = review["seats"][0]["costly"]
    worst = sorted(costly, key=lambda c: -c["lost"])[:3]
    shown = page.eval_on_selector_all(
        "#review .costly-choice",
        """els => els.map(e => ({
            href: e.getAttribute('href'),
            did: e.querySelector('.costly-did').textContent.replace('Chose', '').trim(),
            best: e.querySelector('.costly-best').textContent.replace('Coach', '').trim(),
            lost: e.querySelector('.costly-lost').textContent }))""",
    )
    assert len(shown) == len(worst) == min(3, len(costly)) > 0
    for item, choice in zip(shown, worst, strict=True):
        assert item == {
            "href": f"/r/{code}/replay#move-{choice['move']}",
            "did": choice["chosen"],
            "best": choice["best"],
            "lost": f"−{choice['lost']:.1f}",
        }
    for scheme in in_each_scheme(page):
        shot(page, f"over-review-desktop-{scheme}", full_page=True)
        assert serious_violations(page, scheme) == [], scheme
    page.set_viewport_size({"width": 390, "height": 844})
    page.evaluate("scrollTo(0, 0)")
    for scheme in in_each_scheme(page):
        shot(page, f"over-review-phone-{scheme}", full_page=True)
    # On the narrowest phone the choices' words wrap: every line of them starts in one column
    # after the labels ("Chose", "Coach"), not under a label.
    page.set_viewport_size({"width": 320, "height": 700})
    starts = page.evaluate(
        """[...document.querySelectorAll('#review .costly-choice')].map(choice => {
            const labels = [...choice.querySelectorAll('.costly-label')].map(l => l.getBoundingClientRect().right);
            return [...choice.querySelectorAll('.costly-text')].flatMap(text => {
                const range = document.createRange();
                range.selectNodeContents(text);
                return [...range.getClientRects()].map(r => Math.round(r.left - Math.max(...labels)));
            });
        })"""
    )
    assert starts and all(len(each) >= 2 and len(set(each)) == 1 and each[0] > 0 for each in starts), starts
    # Each costly choice opens the replay at its own step, with the coach's verdict on it.
    page.click("#review .costly-choice >> nth=0")
    page.wait_for_selector("#step-verdict:not([hidden])")
    assert page.url.endswith(f"/r/{code}/replay#move-{worst[0]['move']}")
    verdict = page.inner_text("#step-verdict")
    assert worst[0]["chosen"] in verdict and worst[0]["best"] in verdict and f"{worst[0]['lost']:.1f}" in verdict
    assert page.errors == []


# --- the room's header on a phone ----------------------------------------------------------------

# Each part of the room bar that shows: laid out, inside the screen's width, and overlapping no other.
_BAR_CLASHES = """() => {
  const parts = [...document.querySelectorAll('.room-title h1, #conn, #watchers, #pause, #mute')]
    .filter(e => e.getBoundingClientRect().width > 0);
  const rect = e => e.getBoundingClientRect();
  const clashes = [];
  for (const e of parts) {
    const r = rect(e);
    if (r.left < 0 || r.right > innerWidth) clashes.push(`${e.id || e.tagName} leaves the screen`);
  }
  parts.forEach((a, i) => parts.slice(i + 1).forEach(b => {
    const [r, s] = [rect(a), rect(b)];
    if (r.left < s.right && s.left < r.right && r.top < s.bottom && s.top < r.bottom)
      clashes.push(`${a.id || a.tagName} overlaps ${b.id || b.tagName}`);
  }));
  return clashes;
}"""


def test_on_a_phone_the_room_code_and_the_connection_never_overlap(live_site: LiveSite, new_page: Any) -> None:
    host = new_page(**PHONE)
    cut = {"on": False}
    sockets: list[Any] = []

    def route(ws: Any) -> None:
        sockets.append(ws)
        if not cut["on"]:
            ws.connect_to_server()  # else: the page's socket opens but the server never answers

    host.route_web_socket(re.compile(r".*/ws/rooms/.*"), route)
    url = create_online(host, live_site, "Ann")
    spectator = new_page()
    spectator.goto(url)
    spectator.wait_for_selector("#conn[data-state=connected]")
    host.wait_for_function("document.getElementById('watchers').textContent.includes('1 spectator watching')")
    act(host, [host, spectator], lambda: host.click("#start"))
    assert host.evaluate(_BAR_CLASHES) == []
    for scheme in in_each_scheme(host):
        shot(host, f"header-phone-spectator-{scheme}")
    cut["on"] = True
    tries = len(sockets)
    sockets[-1].close()
    host.wait_for_selector("#conn[data-state=reconnecting]")
    assert host.evaluate(_BAR_CLASHES) == []
    # "Reconnecting…" is said in words, not only by the dot's colour, and still while a new try
    # connects (which the cut socket never answers): a try is a reconnection, not a first connection.
    said = "(e => [e.textContent, parseFloat(getComputedStyle(e).fontSize) > 10])(document.getElementById('conn'))"
    assert host.evaluate(said) == ["Reconnecting…", True]
    for _ in range(400):  # the page's next try, after its back-off (the route sees its socket)
        if len(sockets) > tries:
            break
        host.wait_for_timeout(50)
    assert len(sockets) > tries, "the page never tried again"
    assert host.get_attribute("#conn", "data-state") == "reconnecting"
    assert host.evaluate(said) == ["Reconnecting…", True]
    for scheme in in_each_scheme(host):
        shot(host, f"header-phone-reconnecting-{scheme}")
        assert serious_violations(host, scheme) == [], scheme
    cut["on"] = False
    sockets[-1].close()
    host.wait_for_selector("#conn[data-state=connected]")
    assert host.evaluate(_BAR_CLASHES) == []


# --- a seat the computer plays -------------------------------------------------------------------


def test_a_player_whose_seat_the_computer_plays_is_told_so_and_how_to_take_it_back(
    live_site: LiveSite, new_page: Any
) -> None:
    ann, bob = new_page(1280, 800), new_page(**PHONE)
    bob_kept_by_the_computer(live_site, ann, bob)
    meta = bob.inner_text("#turn-meta")
    assert "watching" not in meta.lower() and "The computer plays for you until you are back" in meta
    # The host stops the clock, so that Ann's own turns do not run out while Bob looks.
    ann.wait_for_selector("#pause:not([hidden])")
    act(ann, [ann, bob], lambda: ann.click("#pause"))
    banner = bob.inner_text(".away-banner")
    assert "The computer is playing for Bob" in banner and "I'm back: take my seat" in banner
    assert "you are watching" not in bob.inner_text("#room-sub").lower()
    assert "the computer plays for you" in bob.inner_text("#room-sub")
    for scheme in in_each_scheme(bob):
        shot(bob, f"away-phone-{scheme}")
        assert serious_violations(bob, scheme) == [], scheme
    bob.set_viewport_size({"width": 1280, "height": 800})
    for scheme in in_each_scheme(bob):
        shot(bob, f"away-desktop-{scheme}")
    # "I'm back" takes the seat back: it is Bob's again, and everyone is told.
    bob.click("#back")
    bob.wait_for_selector(".seat .tag.you")
    bob.wait_for_selector(".away-banner", state="detached")
    assert "the computer plays for you" not in bob.inner_text("#room-sub")
    ann.wait_for_function("document.getElementById('feed').textContent.includes('Bob is back')")
    assert ann.errors == [] and bob.errors == []


SEAT_KIND = """
from games.store.models import Game
code, seat = args
seat = Game.objects.get(code=code).room.seats[seat]
result = [seat.kind, seat.away]
"""


def test_on_a_shared_device_the_next_players_tap_does_not_take_back_an_away_players_seat(
    live_site: LiveSite, new_page: Any
) -> None:
    """Pass-and-play with a turn timer: Dan walked off, his time ran out twice and the computer
    plays his seat. Cat's tap at the device is hers, not Dan's: his seat stays the computer's
    (else his clock would run out twice again, over and over) until Dan says he is back."""
    page = new_page(1280, 800)
    code = code_of(create_local(page, live_site, ["Cat", "Dan"], timer="30"))
    # Cat plays her turns; nobody plays Dan's: his time runs out twice.
    for _ in range(2):
        plays_a_turn(page, "Cat")
        time_runs_out(live_site, page, 1)
    page.wait_for_selector(".away-banner", timeout=20_000)
    assert live_site.run(SEAT_KIND, code, 1) == ["bot", True]
    # Cat's own turn: she rolls. The socket handles the tap's frames in order, before the roll.
    page.wait_for_function("document.getElementById('turn-h').textContent.includes('Cat')", timeout=20_000)
    page.wait_for_selector("#roll:not(:disabled)")
    act(page, [page], lambda: page.click("#roll"))
    assert live_site.run(SEAT_KIND, code, 1) == ["bot", True], "Cat's tap took Dan's seat back from the computer"
    # The device offers Dan's seat back by his name, and no "take my seat" for whoever is at it.
    assert "Dan" in page.inner_text("#back-1") and page.query_selector("#back") is None
    # Dan is back and says so: his seat is his again.
    page.click("#back-1")
    page.wait_for_selector("#back-1", state="detached")
    assert live_site.run(SEAT_KIND, code, 1) == ["human", False]
    page.wait_for_function("document.getElementById('feed').textContent.includes('Dan is back')")
    assert page.errors == []


# --- a shared device ---------------------------------------------------------------------------------


def header_names(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all("#card thead tr:first-child th:not(.box-col)", "els => els.map(e => e.title)")
    )


def test_columns_stay_in_seat_order_for_everyone_and_every_turn(live_site: LiveSite, new_page: Any) -> None:
    ann, bob, cy = new_page(), new_page(), new_page()
    url = create_online(ann, live_site, "Ann")
    bob_and_cy_join(url, ann, bob, cy)
    act(ann, [ann, bob, cy], lambda: ann.click("#start"))
    for page in (ann, bob, cy):
        assert header_names(page) == ["Ann", "Bob", "Cy"]

    local = new_page(**PHONE)
    local_room(local, live_site, ["Ada", "Ben", "Cleo"])
    for _ in range(3):
        assert header_names(local) == ["Ada", "Ben", "Cleo"]
        act(local, [local], lambda: local.click("#roll"))
        score_best(local, [local])
    assert header_names(local) == ["Ada", "Ben", "Cleo"]


def test_on_a_phone_the_column_of_the_seat_to_play_stays_in_view_in_seat_order(
    live_site: LiveSite, new_page: Any
) -> None:
    page = new_page(**PHONE)
    names = ["Ana", "Ben", "Cleo", "Dan", "Eve", "Fay", "Gus", "Hal"]
    url = local_room(page, live_site, names)
    set_rules(
        live_site,
        code_of(url),
        lambda rules: rules.update(current=6, turn={"dice": [2, 3, 4, 5, 6], "held": [], "rolls_used": 1}),
    )
    reload(page)
    page.wait_for_selector("#card .score-btn >> visible=true")
    assert header_names(page)[:2] == ["Ana", "Ben"] and "Gus" in page.inner_text("#turn-h")
    # Gus's open boxes: in the screen, though his column is the seventh of eight.
    page.wait_for_function(
        "[...document.querySelectorAll('#card .score-btn')].every(e => e.getBoundingClientRect().width > 0)"
    )
    assert page.evaluate(
        """[...document.querySelectorAll('#card .score-btn')].every(e => {
            const r = e.getBoundingClientRect(); return r.left >= 0 && r.right <= innerWidth; })"""
    )
    for scheme in in_each_scheme(page):
        shot(page, f"phone-eight-seats-{scheme}")


def test_pass_the_device_shows_until_the_player_rolls(live_site: LiveSite, new_page: Any) -> None:
    page = new_page()
    local_room(page, live_site, ["Cat", "Dan"])
    act(page, [page], lambda: page.click("#roll"))
    score_best(page, [page])
    assert "pass the device to Dan" in page.inner_text("#turn-h")
    for scheme in in_each_scheme(page):
        shot(page, f"pass-the-device-{scheme}")
    act(page, [page], lambda: page.click("#roll"))
    assert page.inner_text("#turn-h") == "Your turn, Dan"
    for scheme in in_each_scheme(page):
        shot(page, f"pass-the-device-rolled-{scheme}")


def test_on_a_shared_device_the_chat_posts_as_the_player_whose_turn_it_is(live_site: LiveSite, new_page: Any) -> None:
    page = new_page()
    local_room(page, live_site, ["Hal", "Ivy"])
    picker = page.locator("#chat-seat")
    assert picker.is_visible() and picker.evaluate("s => s.selectedOptions[0]?.textContent") == "Hal"
    act(page, [page], lambda: page.click("#roll"))
    score_best(page, [page])
    assert picker.evaluate("s => s.selectedOptions[0]?.textContent") == "Ivy"
    page.fill("#chat-text", "my turn now")
    page.press("#chat-text", "Enter")
    page.wait_for_selector(".chat-line")
    assert page.inner_text(".chat-line .chat-name") == "Ivy"
    # A name picked during a turn stays for that turn.
    picker.select_option(label="Hal")
    page.fill("#chat-text", "well played")
    page.press("#chat-text", "Enter")
    page.wait_for_function("document.querySelectorAll('.chat-line').length === 2")
    assert page.inner_text(".chat-line >> nth=1 >> .chat-name") == "Hal"
    for size in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.locator("#chat-form").scroll_into_view_if_needed()
        for scheme in in_each_scheme(page):
            shot(page, f"chat-post-as-{size[0]}-{scheme}")
    assert page.errors == []


# --- the chat's length ---------------------------------------------------------------------------


def test_a_chat_message_counts_down_and_past_300_characters_is_refused_not_cut(
    live_site: LiveSite, new_page: Any
) -> None:
    ann, bob = new_page(), new_page(**PHONE)
    url = create_online(ann, live_site, "Ann")
    join(bob, url, "Bob")
    assert ann.locator("#chat-count").is_hidden()  # nothing to count yet
    ann.fill("#chat-text", "word " * 58)  # 290 characters, 289 once trimmed
    assert ann.inner_text("#chat-count") == "11 characters left"
    long = "🎲 " + "word " * 62  # 311 characters once trimmed: an emoji counts as one, as the server counts
    ann.fill("#chat-text", long)
    assert ann.get_attribute("#chat-text", "aria-invalid") == "true"
    assert ann.inner_text("#chat-count") == "11 characters too many"
    assert ann.input_value("#chat-text") == long  # nothing cut as it was typed
    for scheme in in_each_scheme(ann):
        shot(ann, f"chat-too-long-desktop-{scheme}")
    ann.press("#chat-text", "Enter")
    ann.wait_for_selector("#toast:not([hidden])")
    assert "at most 300 characters: this one has 311" in ann.inner_text("#toast")
    assert ann.input_value("#chat-text") == long and ann.locator(".chat-line").count() == 0
    # Shortened to the limit, it goes through whole.
    exact = "x" * 299 + "🎲"
    ann.fill("#chat-text", exact)
    assert ann.inner_text("#chat-count") == "0 characters left"
    ann.press("#chat-text", "Enter")
    bob.wait_for_selector(".chat-line")
    assert bob.inner_text(".chat-line .chat-text") == exact
    assert ann.input_value("#chat-text") == "" and ann.locator("#chat-count").is_hidden()
    bob.fill("#chat-text", "y" * 320)
    for scheme in in_each_scheme(bob):
        shot(bob, f"chat-too-long-phone-{scheme}")
    assert ann.errors == [] and bob.errors == []


def test_the_chats_count_is_the_servers_for_emoji_and_combining_marks(live_site: LiveSite, new_page: Any) -> None:
    """The page counts what the server keeps (games/services/chat.py clean_message), in code points:
    an emoji with a skin tone is two, a letter keeps three combining marks (the rest are dropped, and
    not counted), a bidirectional control is dropped. Nothing stricter, nothing looser."""
    ann, bob = new_page(), new_page()
    url = create_online(ann, live_site, "Ann")
    join(bob, url, "Bob")
    assert ann.get_attribute("#chat-text", "maxlength") is None  # a maxlength counts UTF-16 units: an emoji as two
    stacked = "e" + "\u0301" * 5  # kept as "e" and three marks: four
    exact = "👍🏽" * 148 + "\u2066" + stacked  # 296 + 0 + 4 = 300
    ann.fill("#chat-text", exact + "🎲")
    assert ann.inner_text("#chat-count") == "1 character too many"
    ann.press("#chat-text", "Enter")
    ann.wait_for_selector("#toast:not([hidden])")
    assert "at most 300 characters: this one has 301" in ann.inner_text("#toast")
    ann.fill("#chat-text", exact)
    assert ann.inner_text("#chat-count") == "0 characters left"
    assert ann.get_attribute("#chat-text", "aria-invalid") == "false"
    ann.press("#chat-text", "Enter")
    bob.wait_for_selector(".chat-line")
    assert bob.inner_text(".chat-line .chat-text") == "👍🏽" * 148 + "e" + "\u0301" * 3
    ann.wait_for_function("document.getElementById('chat-text').value === ''")
    # Marks parted by joiners stack on the letter before them all the same: three kept, the
    # joiners too (nine code points), the rest dropped and not counted.
    joined = "x" * 291 + "a" + "\u0316\u200d" * 5
    ann.fill("#chat-text", joined)
    assert ann.inner_text("#chat-count") == "0 characters left"
    ann.press("#chat-text", "Enter")
    bob.wait_for_function("document.querySelectorAll('.chat-line').length === 2")
    assert (
        bob.locator(".chat-line .chat-text").nth(1).inner_text() == "x" * 291 + "a" + "\u0316\u200d" * 3 + "\u200d" * 2
    )
    # Marks on the space the line begins with go with it, as the server trims it.
    ann.fill("#chat-text", " \u0338\u0338" + "x" * 300)
    assert ann.inner_text("#chat-count") == "0 characters left"
    assert ann.errors == [] and bob.errors == []


def test_a_player_whose_time_ran_out_is_told_where_she_looks(live_site: LiveSite, new_page: Any) -> None:
    """A timeout is announced to the player it hit in view, not only in the feed below the card."""
    ann, bob = new_page(1280, 800), new_page(**PHONE)
    timed_game_with_bob(live_site, ann, bob)
    plays_a_turn(ann, "Your turn")
    # Bob, on his phone, does nothing: his turn runs out and his own page says so, on screen.
    time_runs_out(live_site, ann, 1)
    bob.wait_for_selector("#toast:not([hidden])", timeout=20_000)
    text = bob.inner_text("#toast")
    assert "Your time ran out" in text and "scored the box worth most for you" in text
    assert in_view(bob, "#toast")
    # Ann's page does not get Bob's message as her own.
    assert "Your time ran out" not in (ann.inner_text("#toast") if ann.is_visible("#toast") else "")
    for scheme in in_each_scheme(bob):
        shot(bob, f"timed-out-phone-{scheme}")


# In the live site's database: Ann's room with Ben (his browser's seat, joined through the page)
# started; Ann hands Ben's seat to a computer while he is away, and the game is played to its end.
AWAY_TO_THE_END = """
import random
from games import services
from games.scheduling import botplay
from games.store.models import Game
from tests.factories import Table, action_id, play_turn
code, ann = args
services.game_start(code=code, controller=ann, expected_version=None, action_id=action_id())
table = Table(code=code, controllers=[ann, ""])
# Ben's page went away: his socket's presence goes when the server has seen it close.
import time
from games.services.actions import present
waited = time.monotonic() + 15
while present(Game.objects.get(code=code), 1) and time.monotonic() < waited:
    time.sleep(0.05)
services.game_replace_with_bot(code=code, controller=ann, seat=1, expected_version=table.version(), action_id="away")
rng = random.Random(1)
while table.game.status == Game.Status.PLAYING:
    room = table.game.room
    if room.seats[room.rules.current].bot:
        botplay.step(code, table.version())  # the server's own scheduler may come first: then nothing
    else:
        play_turn(table, rng, 0)
game = Game.objects.get(code=code)
result = [game.status, game.room.seats[1].kind, game.room.seats[1].away_controller != ""]
"""

NEW_ROOM = """
from games import services
ann = services.new_controller()
result = [services.game_create(host_name="Ann", controller=ann).game.code, ann]
"""


@pytest.mark.browser
def test_an_away_player_back_after_the_end_is_offered_the_rematch(live_site: LiveSite, new_page: Any) -> None:
    """Ben's seat was handed to a computer while he was away (it keeps his browser, so the
    rematch seats him as a person and he may ask for it: games.services.rooms.game_rematch).
    He comes back after the end: the room page offers him neither *Rematch* nor *Join the
    rematch*; he is shown the game like a stranger. Nothing plays any more: the room's subtitle
    does not say that the computer plays for him."""
    code, ann = live_site.run(NEW_ROOM)
    ben = new_page()
    ben.goto(f"{live_site.url}/r/{code}/")
    ben.wait_for_selector("#conn[data-state=connected]")
    ben.fill("#join-name", "Ben")
    ben.click("#join-btn")
    ben.wait_for_selector(".seat .tag.you")
    ben.goto("about:blank")  # Ben goes away: no socket of his is left
    assert live_site.run(AWAY_TO_THE_END, code, ann) == ["finished", "bot", True]
    ben.goto(f"{live_site.url}/r/{code}/")
    ben.wait_for_selector("#over:not([hidden])")
    assert ben.locator("#rematch, #rematch-link").count() == 1, ben.locator("#over").inner_text()
    sub = ben.inner_text("#room-sub")
    assert "computer plays" not in sub and "watching" not in sub, sub
    # A computer finished Ben's seat: it ranks after Ann, who stayed, whatever its total, and says why.
    rows = ben.eval_on_selector_all("#over .ranking li", "ls => ls.map(l => l.innerText.replace(/\\s+/g, ' ').trim())")
    assert rows[0].startswith("1. Ann winner") and rows[1].startswith("2. Ben you away"), rows
    # Why, in words under the list: Ben's total may be the best, and "away" alone does not say it.
    note = ben.text_content("#over .ranking-note") or ""
    assert "the computer finished for a player who was away ranks after those who stayed" in note, note
    for scheme in in_each_scheme(ben):
        assert serious_violations(ben, scheme) == [], scheme


def test_a_player_whose_connection_drops_is_not_offered_to_a_computer_before_the_servers_wait(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ben's page goes (a reload, a phone changing networks): Ann, the host, sees him away at once,
    but is offered *Let a computer play* and *Take out (away)* for his seat only when the server's
    wait is over (the presence frame's ``waits``), however long her own page has seen him away."""
    ann, ben = new_page(), new_page()
    ann.clock.install()
    url = online_game(live_site, ann, ben, "Ben")
    ben.goto("about:blank")
    ann.wait_for_selector(".seat:nth-child(2) .presence.away")
    assert ann.locator("#replace-1").count() == 0 and ann.locator("#remove-1").count() == 0
    # The page's clock stands still: only what the server said (and its own wait) lets the tools show.
    servers_wait_is_over(live_site, code_of(url))  # HOST_AWAY=1: the page's clock is run on below
    ann.clock.run_for(2_000)
    ann.wait_for_selector("#replace-1")
    assert ann.locator("#remove-1").count() == 1
    ann.on("dialog", lambda dialog: dialog.accept())
    ann.click("#replace-1")
    ann.wait_for_function("document.getElementById('feed').textContent.includes(\"took over Ben's seat\")")
    assert ann.errors == [] and ben.errors == []


# --- one browser, two tabs -----------------------------------------------------------------------


def test_a_tab_left_open_learns_the_seat_its_browser_took_in_another_tab(live_site: LiveSite, new_page: Any) -> None:
    """Ben opens the invite link (tab A), then takes a seat from a second tab (tab B) of the same
    browser. Tab A shows Ben's seat as its own: with the `you` of the moment it connected, it would
    say "you are watching", offer "Take a seat", and once the game started show Ben's own turn as
    someone else's."""
    host = new_page()
    url = create_online(host, live_site, "Ada")
    tab_a = new_page()
    tab_a.goto(url)
    tab_a.wait_for_selector("#conn[data-state=connected]")
    tab_b = tab_a.context.new_page()
    tab_b.set_default_timeout(20_000)
    join(tab_b, url, "Ben")
    # Tab A (the same browser, the same cookies) shows Ben's seat as its own.
    tab_a.wait_for_selector(".seat .tag.you", timeout=10_000)
    assert "you are watching" not in tab_a.inner_text("#room-sub")
    assert tab_a.locator("#join-btn").inner_text() == "Add player"
    host.wait_for_function("document.querySelectorAll('#seats .seat').length === 2")
    everyone = [host, tab_a, tab_b]
    act(host, everyone, lambda: host.click("#start"))
    act(host, everyone, lambda: host.click("#roll"))
    score_best(host, everyone)
    tab_a.wait_for_selector("#roll:not(:disabled)")
    assert "Your turn" in tab_a.title()
    assert tab_a.errors == []


# A phone's share sheet, as the browser's Web Share gives it: what was shared is kept; the
# person closing the sheet is an AbortError, as the browser says it.
SHARE_SHEET = """
window.shared = [];
navigator.share = (data) => {
  window.shared.push(data);
  return window.closeSheet ? Promise.reject(new DOMException("closed", "AbortError")) : Promise.resolve();
};
"""


def test_on_a_phone_the_invite_link_is_shared_through_the_phones_own_share_sheet(
    live_site: LiveSite, new_page: Any
) -> None:
    ann = new_page(**PHONE)
    ann.add_init_script(SHARE_SHEET)
    url = create_online(ann, live_site, "Ann")
    ann.click("#share")
    ann.wait_for_function("window.shared.length === 1")
    assert ann.evaluate("window.shared") == [{"title": ann.title(), "url": url}]
    # Closing the sheet is no failure: nothing is said, nothing copied.
    ann.evaluate("window.closeSheet = true")
    ann.click("#share")
    ann.wait_for_function("window.shared.length === 2")
    assert ann.is_hidden("#toast") and ann.inner_text("#copy") == "Copy link"
    # The link, Copy and Share fit the phone; a browser without Web Share is offered Copy alone.
    copy, share = ann.locator("#copy").bounding_box(), ann.locator("#share").bounding_box()
    assert copy and share and copy["x"] >= 0 and share["x"] + share["width"] <= 390
    assert ann.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    for scheme in in_each_scheme(ann):
        assert serious_violations(ann, scheme) == [], scheme
        shot(ann, f"lobby-share-phone-{scheme}")
    bob = new_page(1280, 800)
    bob.goto(url)
    bob.wait_for_selector("#copy")
    assert bob.locator("#share").count() == 0


def test_a_browser_that_does_not_let_the_page_copy_says_so_and_leaves_the_link_selected(
    live_site: LiveSite, new_page: Any
) -> None:
    ann = new_page()
    ann.add_init_script(
        "Object.defineProperty(navigator, 'clipboard',"
        " { value: { writeText: () => Promise.reject(new Error('no')) } });"
        "document.execCommand = () => false;"
    )
    create_online(ann, live_site, "Ann")
    ann.click("#copy")
    ann.wait_for_selector("#toast:not([hidden])")
    assert ann.inner_text("#toast") == (
        "The browser did not let the page copy the link: it is selected, copy it from there."
    )
    assert ann.inner_text("#copy") == "Copy link"  # not "Copied!"
    assert ann.evaluate("document.activeElement.id") == "invite"
    assert ann.evaluate("document.activeElement.selectionEnd") == len(ann.input_value("#invite"))


def test_a_player_the_host_takes_out_of_the_lobby_is_told_so_and_not_offered_a_seat_again(
    live_site: LiveSite, new_page: Any
) -> None:
    """Not "Bob left": Bob did not go. The room hears that the host took him out; Bob hears it
    was him, and is not offered a name field the server would refuse (``kicked``)."""
    ann, bob, cy = new_page(), new_page(**PHONE), new_page()
    url = create_online(ann, live_site, "Ann")
    bob_and_cy_join(url, ann, bob, cy)
    ann.on("dialog", lambda dialog: dialog.accept())
    ann.click("#kick-1")
    bob.wait_for_selector("#taken-out")
    assert bob.inner_text("#taken-out") == "The host took you out of this room: you can watch."
    assert bob.is_visible("#toast") and bob.inner_text("#toast") == "The host took you out of this room: you can watch."
    assert bob.locator("#join-name").count() == 0
    for page in (ann, cy):
        page.wait_for_function("document.querySelectorAll('#seats .seat').length === 2")
        assert "The host took Bob out of the room" in page.inner_text("#feed")
        assert " left" not in page.inner_text("#feed")
    page = cy
    page.wait_for_function("document.getElementById('announce').textContent.includes('out of the room')")
    assert page.inner_text("#announce") == "The host took \u2068Bob\u2069 out of the room."
    for scheme in in_each_scheme(bob):
        assert serious_violations(bob, scheme) == [], scheme
        shot(bob, f"lobby-taken-out-phone-{scheme}", full_page=True)


def test_players_added_one_by_one_on_one_device_each_hear_they_took_a_seat_and_the_keyboard_stays_there(
    live_site: LiveSite, new_page: Any
) -> None:
    """The lobby's join is a form post that brings the room page back: the page says the seat was
    taken, and on a device adding its players the keyboard is on the name field for the next."""
    ann = new_page()
    url = create_online(ann, live_site, "Ann")
    for seats, name in ((2, "Bob"), (3, "Cy")):
        ann.focus("#join-name")
        ann.keyboard.type(name)
        with ann.expect_navigation():
            ann.keyboard.press("Enter")
        ann.wait_for_function(f"document.querySelectorAll('#seats .seat .tag.you').length === {seats}")
        ann.wait_for_function(f"document.getElementById('announce').textContent === '\u2068{name}\u2069 joined.'")
        assert ann.evaluate("document.activeElement.id") == "join-name"
        assert ann.input_value("#join-name") == ""
    # A visitor's own first seat is said too, once: the page keeps no note of the join after it.
    dee = new_page()
    dee.goto(url)
    dee.fill("#join-name", "Dee")
    with dee.expect_navigation():
        dee.click("#join-btn")
    dee.wait_for_function("document.getElementById('announce').textContent === '\u2068Dee\u2069 joined.'")
    assert dee.evaluate("sessionStorage.length") == 0


def test_a_second_player_of_the_device_given_the_hosts_name_is_told_so_beside_the_name(
    live_site: LiveSite, new_page: Any
) -> None:
    """The join form of a page is its own (its id): "Ann" typed for a second player of Ann's device
    is not taken as Ann's form sent again, which took no seat and said nothing."""
    ann = new_page()
    create_online(ann, live_site, "Ann")
    assert join_refused(ann, "ann") == (
        "\u2068Ann\u2069 already sits at this table on this device: each player on it needs a name of their own."
    )
    assert ann.input_value("#join-name") == "ann"
    assert ann.locator("#seats .seat").count() == 1


def test_the_lobby_shows_whoever_is_about_to_take_a_seat_the_rooms_settings(live_site: LiveSite, new_page: Any) -> None:
    """The turn timer, the coach and the spectators' chat, as the host chose them: a player deciding
    whether to join a room with a 30-second turn sees it before the game starts."""
    ann = new_page()
    ann.goto(live_site.url + "/")
    ann.fill("#id_name", "Ann")
    ann.select_option("#id_turn_timer", "30")
    ann.uncheck("#id_hints")
    ann.check("#id_chat_spectators")
    with ann.expect_navigation():
        ann.click("#create-btn")
    bob = new_page(**PHONE)
    bob.goto(ann.url)
    bob.wait_for_selector("#room-settings")
    assert bob.locator("#room-settings li").all_inner_texts() == [
        "Turn timer: 30 seconds a turn",
        "No hints from the coach",
        "Spectators may post in the chat",
    ]
    for scheme in in_each_scheme(bob):
        assert serious_violations(bob, scheme) == [], scheme
        shot(bob, f"lobby-settings-phone-{scheme}", full_page=True)
    cy = new_page()
    url = create_online(cy, live_site, "Cy")
    cy.goto(url)
    cy.wait_for_selector("#room-settings")
    assert cy.locator("#room-settings li").all_inner_texts() == [
        "No turn timer",
        "Hints from the coach allowed",
        "Only the players post in the chat",
    ]
    shot(cy, "lobby-settings-desktop")


def test_a_browser_with_two_seats_whose_second_the_host_removes_is_not_told_it_was_taken_out(
    live_site: LiveSite, new_page: Any
) -> None:
    """Dee's phone seats Dee and Eve; the host takes Eve out. Dee still sits: her page names Eve,
    and does not say "The host took you out of this room: you can watch"."""
    ann, dee = new_page(), new_page(390, 844)
    url = create_online(ann, live_site, "Ann")
    join(dee, url, "Dee")
    dee.fill("#join-name", "Eve")
    with dee.expect_navigation():
        dee.click("#join-btn")
    dee.wait_for_function("document.querySelectorAll('#seats .seat .tag.you').length === 2")
    ann.wait_for_function("document.querySelectorAll('#seats .seat').length === 3")
    ann.on("dialog", lambda dialog: dialog.accept())
    ann.click("#kick-2")
    dee.wait_for_function("document.querySelectorAll('#seats .seat').length === 2")
    dee.wait_for_selector("#toast:not([hidden])")
    assert dee.locator("#seats .seat .tag.you").count() == 1  # Dee still sits
    assert dee.locator("#taken-out").count() == 0, dee.inner_text("#taken-out")
    assert dee.inner_text("#toast") == "The host took \u2068Eve\u2069 out of the room."


def test_a_players_review_fold_toggled_from_the_keyboard_keeps_the_keyboard_when_the_panel_is_drawn_again(
    live_site: LiveSite, new_page: Any
) -> None:
    """A keyboard user folds their costly choices on the review's <summary>; someone opening the
    room draws the page again: the fold stays closed and the keyboard stays on its summary."""
    page = new_page(390, 844)
    code = solo_game_played_out(page, live_site)
    page.wait_for_selector("#review details.review-fold[open] .costly-choice")
    page.focus("#review-seat-0 > summary")
    page.keyboard.press("Enter")  # folds it
    assert page.evaluate("document.getElementById('review-seat-0').open") is False
    watcher = new_page()
    watcher.goto(f"{live_site.url}/r/{code}/")  # a presence frame reaches the player's page: draw()
    watcher.wait_for_selector("#conn[data-state=connected]")
    # Its presence frame has been drawn: the room bar counts the watcher in the draw that draws
    # the panel again.
    page.wait_for_selector("#watchers[data-text='1 spectator watching']", state="attached")
    assert page.evaluate("document.getElementById('review-seat-0').open") is False
    assert page.evaluate("document.activeElement.closest('#review-seat-0') !== null"), page.evaluate(
        "document.activeElement.tagName"
    )


# Each drawn row of the Players list with a total: the right edge of its figures and of the row,
# and how many of the row's other drawn parts (in its line, not over its border) end right of it.
TOTALS = """() => [...document.querySelectorAll('#seats .seat')].filter(s => s.querySelector('.seat-total')).map(s => {
  const total = s.querySelector('.seat-total [aria-hidden]').getBoundingClientRect();
  const row = s.getBoundingClientRect();
  const outOfLine = (e) => e.closest('.seat-total, .sr-only, .seat-turn, .reaction-bubble');
  const after = [...s.querySelectorAll('*')].filter(e => !outOfLine(e) && e.getClientRects().length)
    .map(e => e.getBoundingClientRect()).filter(r => r.bottom > total.top && r.top < total.bottom)
    .filter(r => r.right > total.right + 1);
  return { name: s.querySelector('.seat-name').textContent, right: total.right, rowRight: row.right,
           after: after.length, tabular: getComputedStyle(s.querySelector('.seat-total')).fontVariantNumeric };
})"""


def test_the_players_totals_line_up_at_each_rows_end_in_every_language_and_width(
    live_site: LiveSite, new_page: Any
) -> None:
    """The Players list reads as a leaderboard: whatever a row's name, tags ("host", "you", a
    computer's level, "chat muted", longer in German and French) and buttons, its total is the
    row's last thing, and every row's total ends at the same line, on a phone and a desktop."""
    ann, jonas, zoe = new_page(), new_page(locale="de-DE"), new_page(locale="fr-FR")
    url = create_online(ann, live_site, "Ann")
    join(jonas, url, "Jonas")
    join(zoe, url, "Zoé-Marguerite")
    ann.select_option("#bot-level", index=ann.locator("#bot-level option").count() - 1)
    act(ann, [ann, jonas, zoe], lambda: ann.click("#add-bot"))
    act(ann, [ann, jonas, zoe], lambda: ann.click("#mute-1"))
    seated(ann, 4)
    ann.click("#start")
    for page in (ann, jonas, zoe):
        page.wait_for_function("document.querySelectorAll('#seats .seat-total').length === 4")
    for width, height in ((1280, 800), (390, 844)):
        ann.set_viewport_size({"width": width, "height": height})
        for scheme in in_each_scheme(ann):
            ann.locator("#seats").scroll_into_view_if_needed()
            shot(ann, f"players-totals-{width}-{scheme}")
    for width, height in ((1280, 800), (390, 844)):
        for page, lang in ((ann, "en"), (jonas, "de"), (zoe, "fr")):
            page.set_viewport_size({"width": width, "height": height})
            rows = page.evaluate(TOTALS)
            assert len(rows) == 4, (lang, width, rows)
            rights = [row["right"] for row in rows]
            assert max(rights) - min(rights) <= 1, (lang, width, rows)
            assert all(row["after"] == 0 for row in rows), (lang, width, rows)
            assert all(row["rowRight"] - row["right"] <= 24 for row in rows), (lang, width, rows)
            assert all(row["tabular"] == "tabular-nums" for row in rows), (lang, width, rows)

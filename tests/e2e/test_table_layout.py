"""The table on one screen: what a player needs is inside the viewport, on a phone and a desktop.

Mid-game states are written into the stored snapshot (as the joker test does): the page
draws whatever state the server sends, and no test needs to play 30 turns to get there.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

import bots
from games.domain.rules import RULESETS as RULESET_OF
from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import (
    LETTERS_CUT,
    act,
    bob_and_cy_join,
    bob_walked_away,
    code_of,
    create_online,
    finished_named_game,
    in_each_scheme,
    local_room,
    no_horizontal_overflow,
    online_game,
    room_code,
    score_best,
    seated,
    serious_violations,
    set_rules,
    shot,
)

pytestmark = pytest.mark.browser


def reload(page: Any) -> None:
    page.reload()
    page.wait_for_selector("#conn[data-state=connected]")
    page.wait_for_selector("#dice")
    # The dice are drawn (laid out) from the page's own state before the socket's: wait for them.
    page.wait_for_function(
        "[...document.querySelectorAll('#dice .die')].every(e => e.getBoundingClientRect().width > 0)", polling=50
    )


def outside_viewport(page: Any, selector: str) -> list[str]:
    """Elements matching ``selector`` not wholly inside the viewport, with the page unscrolled.

    Found and measured in one evaluation, once there are some and every one is laid out (an
    element that stays 0x0 fails, on the wait). Playwright's eval_on_selector_all finds the
    elements in one call and runs the function in another: a state or presence frame drawn in
    between replaces the dice and the card, and the detached elements it measures are 0x0
    (the "hidden dice" seen now and then under load).
    """
    return list(
        page.wait_for_function(
            """s => {
                const els = [...document.querySelectorAll(s)];
                if (!els.length || els.some(e => e.getBoundingClientRect().width === 0)) return false;
                return els.flatMap(e => {
                    const r = e.getBoundingClientRect();
                    const inside = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth
                        && r.width > 0 && r.height > 0;
                    return inside ? [] : [`${e.id || e.textContent.trim().slice(0, 20)} ${JSON.stringify(r)}`];
                });
            }""",
            arg=selector,
        ).json_value()
    )


def first_column_cells(page: Any) -> str:
    """Selector of each box row's first score cell (the focus seat's column) and the box names."""
    return "#card tbody tr:not(.total):not(.section) > th, #card tbody tr:not(.total):not(.section) > td:nth-child(2)"


def mid_game(rules: dict[str, Any], filled: dict[int, list[tuple[str, int]]]) -> None:
    for seat, boxes in filled.items():
        rules["cards"][seat]["columns"][0] = [list(b) for b in boxes]
    rules["turn"] = {"dice": [3, 3, 3, 5, 6], "held": [], "rolls_used": 1}


def test_phone_four_players_mid_game_the_dice_roll_and_whole_column_fit_without_scrolling(
    live_site: LiveSite, new_page: Any
) -> None:
    page = new_page(390, 844, has_touch=True, is_mobile=True)
    url = local_room(page, live_site, ["Ana", "Ben", "Cleo", "Dan"])
    set_rules(
        live_site,
        code_of(url),
        lambda rules: mid_game(
            rules,
            {
                0: [("ones", 3), ("fives", 15), ("chance", 22), ("full_house", 25)],
                1: [("twos", 6), ("sixes", 24), ("yahtzee", 50), ("chance", 19), ("ones", 2)],
                2: [("threes", 9), ("large_straight", 40), ("fours", 12), ("ones", 1)],
                3: [("fours", 16), ("small_straight", 30), ("three_of_a_kind", 21), ("twos", 4)],
            },
        ),
    )
    reload(page)
    # The boxes wait for whose device it is, like the dice (see reload): measure the table once
    # the open boxes are on it.
    page.wait_for_selector("#card .score-btn >> visible=true")
    assert page.evaluate("scrollY") == 0
    rows = page.eval_on_selector_all("#card tbody tr:not(.total) > th", "els => els.map(e => e.textContent)")
    assert len(rows) == 13 and rows[0] == "Ones" and rows[-1] == "Chance"
    assert outside_viewport(page, "#dice .die, #roll") == []
    assert outside_viewport(page, first_column_cells(page)) == []
    # Each open box shows what it would score now, and it is a button inside the screen.
    assert page.locator("#card .score-btn").count() == 13 - 4
    # The boxes can be drawn a moment before they are shown (a state redrawn just then): wait
    # until all of them are laid out, then check where they are.
    page.wait_for_function(
        "[...document.querySelectorAll('#card .score-btn')].every(e => e.getBoundingClientRect().width > 0)"
    )
    assert outside_viewport(page, "#card .score-btn") == []
    assert page.inner_text("#round") == "Round 5 of 13"
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    for scheme in in_each_scheme(page):
        shot(page, f"phone-official-4-{scheme}")
        assert serious_violations(page, scheme) == [], scheme


def test_phone_pass_and_play_returns_to_the_dice_and_the_banner_after_a_score(
    live_site: LiveSite, new_page: Any
) -> None:
    page = new_page(390, 844, has_touch=True, is_mobile=True)
    local_room(page, live_site, ["Ana", "Ben", "Cleo", "Dan"], ruleset="yatzy")  # 15 boxes: a longer card
    act(page, [page], lambda: page.click("#roll"))
    last = page.locator("#card .score-btn:not(.forbidden)").last
    # Scrolled as a thumb would, in one step: Playwright's scroll_into_view_if_needed waits for
    # the box to be still, and a presence frame redrawing the card meanwhile detached it (seen
    # twice in full runs).
    page.evaluate("[...document.querySelectorAll('#card .score-btn:not(.forbidden)')].at(-1).scrollIntoView()")
    assert page.evaluate("scrollY") > 0 or outside_viewport(page, "#turn-h") == []

    def score_last() -> None:
        last.click()
        if page.locator("#confirm[open]").count():
            page.click("#confirm-yes")

    act(page, [page], score_last)
    page.wait_for_function("document.activeElement && document.activeElement.id === 'roll'")
    assert "pass the device to Ben" in page.inner_text("#turn-h")
    assert outside_viewport(page, "#turn-h, #dice .die, #roll") == []


def triple_mid_game(rules: dict[str, Any]) -> None:
    # Ana: the ×3 column has its upper bonus (189 for 105), the ×2 one has not (126 for 70).
    ana = rules["cards"][0]["columns"]
    ana[0] = [["sixes", 24], ["fives", 20], ["chance", 25]]
    ana[1] = [["sixes", 48], ["fives", 40], ["yahtzee", 100], ["fours", 24]]
    ana[2] = [["sixes", 90], ["fives", 75], ["fours", 60], ["large_straight", 120], ["chance", 87]]
    bob = rules["cards"][1]["columns"]
    bob[0] = [["ones", 3], ["twos", 8], ["threes", 12], ["fours", 16], ["fives", 15], ["sixes", 18]]
    bob[1] = [["full_house", 50], ["chance", 54]]
    bob[2] = [["yahtzee", 150], ["sixes", 72], ["small_straight", 90]]
    rules["turn"] = {"dice": [6, 6, 6, 5, 6], "held": [], "rolls_used": 1}


def test_desktop_triple_two_players_with_three_digit_sums_fits_without_cuts_or_sideways_scroll(
    live_site: LiveSite, new_page: Any
) -> None:
    page = new_page(1280, 800)
    url = local_room(page, live_site, ["Ana", "Bob"], ruleset="triple")
    set_rules(live_site, code_of(url), triple_mid_game)
    reload(page)
    assert outside_viewport(page, "#dice .die, #roll, #card table") == []
    # Layout is read in one evaluation each (see outside_viewport).
    assert page.evaluate("(w => w.scrollWidth <= w.clientWidth)(document.querySelector('.scorecard-wrap'))")
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    # No cell is cut: each shows all of its text.
    cut = page.evaluate(
        """[...document.querySelectorAll('#card td, #card th')]
            .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent.trim())"""
    )
    assert cut == []
    # Each column's bonus line states its own goal and prize; the tick only where it is earned.
    rules = page.eval_on_selector_all("#card .bonus-rule", "els => els.map(e => e.textContent)")
    assert rules == ["35 at 63", "70 at 126", "105 at 189"] * 2
    upper = page.eval_on_selector_all("#card tr.total td", "els => els.map(e => e.textContent)")
    sums = [text for text in upper if re.fullmatch(r"\d+/\d+( ✓, bonus earned)?", text)]
    earned = " ✓, bonus earned"  # the tick drawn, the words read out
    assert sums[:6] == ["44/63", "112/126", f"225/189{earned}", f"72/63{earned}", "0/126", "72/189"]
    assert page.inner_text("#round") == "Round 13 of 39"
    shot(page, "desktop-triple-2")


def test_desktop_four_players_official_whole_card_and_dice_fit(live_site: LiveSite, new_page: Any) -> None:
    page = new_page(1280, 800)
    url = local_room(page, live_site, ["Ana", "Ben", "Cleo", "Dan"])
    set_rules(live_site, code_of(url), lambda rules: mid_game(rules, {0: [("ones", 3)], 2: [("chance", 20)]}))
    reload(page)
    assert outside_viewport(page, "#dice .die, #roll, #card table") == []
    shot(page, "desktop-official-4")


EVERYDAY_NAMES = ["Ana", "Maximilian", "Françoise", "Wolfgang", "Bo", "Christopher", "Léa", "Tom"]


def six_boxes_each(ruleset: str, seats: int) -> Any:
    """Six boxes filled on every seat, three-digit totals, seat 0 to play with a roll made."""

    def change(rules: dict[str, Any]) -> None:
        boxes = [["ones", 3], ["fours", 16], ["sixes", 24], ["three_of_a_kind", 27], ["chance", 22], ["yahtzee", 50]]
        if ruleset == "painted":
            boxes[3:] = [["rainbow", 40], ["red", 12], ["palette", 19]]
        for seat in range(seats):
            rules["cards"][seat]["columns"][0] = [[box, points + seat] for box, points in boxes]
        rules["turns_played"] = 6 * seats
        rules["turn"] = {"dice": [3, 3, 3, 5, 6], "held": [], "rolls_used": 1}
        if ruleset == "painted":
            rules["turn"]["colours"] = [0, 1, 2, 3, 4]

    return change


@pytest.mark.parametrize(("ruleset", "seats"), [("official", 8), ("yatzy", 8), ("painted", 4), ("triple", 8)])
def test_desktop_every_seats_column_shows_whole_with_everyday_names(
    live_site: LiveSite, new_page: Any, ruleset: str, seats: int
) -> None:
    """README: on a 1280x800 desktop the whole card fits, with eight everyday names (four in
    Painted's two panes) too: the last seat's column is not cut at the card's edge (162 read as
    "16"). A long name may be shortened in its head (whole in its title), a number or a box's name
    never."""
    page = new_page(1280, 800)
    url = local_room(page, live_site, EVERYDAY_NAMES[:seats], ruleset=ruleset)
    set_rules(live_site, code_of(url), six_boxes_each(ruleset, seats))
    reload(page)
    page.wait_for_selector("#card .score-btn >> visible=true")
    shot(page, f"desktop-{ruleset}-{seats}")
    if ruleset == "triple":
        # Twenty-four columns cannot fit: the card scrolls sideways, the seat to play held whole in
        # view beside the box names at either end.
        for end in (0, 10**6):
            held = page.evaluate(
                """x => { const wrap = document.querySelector('#card .scorecard-wrap');
                    wrap.scrollLeft = x;
                    const box = wrap.getBoundingClientRect();
                    const pins = [...wrap.querySelectorAll('.pin')];
                    return [pins.length, pins.filter(c => { const r = c.getBoundingClientRect();
                        return r.left < box.left - 1 || r.right > box.right + 1
                            || (!c.matches('.seat-head') && c.scrollWidth > c.clientWidth + 1); })
                        .map(c => c.innerText.trim())]; }""",
                end,
            )
            assert held[0] > 0 and held[1] == [], f"scrolled to {end}: the seat to play's cells cut: {held}"
        shot(page, f"desktop-{ruleset}-{seats}-scrolled")
        assert outside_viewport(page, "#dice .die, #roll, #card th.seat-head.current") == []
        return
    cut = page.evaluate(
        """() => [...document.querySelectorAll('#card .scorecard-wrap')].flatMap(wrap => {
            const box = wrap.getBoundingClientRect();
            return [...wrap.querySelectorAll('th, td')].filter(c => {
                const r = c.getBoundingClientRect();
                const whole = c.matches('.seat-head') || c.scrollWidth <= c.clientWidth + 1;
                return r.width > 0 && (r.right > box.right + 1 || !whole);
            }).map(c => (c.title || c.innerText).trim()).filter(Boolean);
        })"""
    )
    assert cut == [], f"{ruleset} with {seats} seats: cells cut or past the card's edge: {sorted(set(cut))[:12]}"
    assert outside_viewport(page, "#dice .die, #roll, #card th.seat-head") == []


def test_while_reconnecting_roll_and_boxes_are_paused_and_nothing_is_applied_later(
    live_site: LiveSite, new_page: Any
) -> None:
    page = new_page()
    cut = {"on": False}
    sockets: list[Any] = []
    # Each socket that reaches the server: its way there, what the page sent on it, what it heard.
    links: list[tuple[Any, list[dict[str, Any]], list[dict[str, Any]]]] = []

    def route(ws: Any) -> None:
        sockets.append(ws)
        if cut["on"]:
            return  # the page's socket opens but the server never answers
        server, said, heard = ws.connect_to_server(), [], []
        links.append((server, said, heard))
        ws.on_message(lambda message: (said.append(json.loads(message)), server.send(message)))
        server.on_message(lambda message: (heard.append(json.loads(message)), ws.send(message)))

    page.route_web_socket(re.compile(r".*/ws/rooms/.*"), route)
    local_room(page, live_site, ["Solo"])
    act(page, [page], lambda: page.click("#roll"))
    before = int(page.get_attribute("#room", "data-version") or 0)
    cut["on"] = True
    sockets[-1].close()
    page.wait_for_selector("#conn[data-state=reconnecting], #conn[data-state=connecting]")
    page.wait_for_selector("#roll:disabled")
    assert "Reconnecting" in page.inner_text("#roll")
    assert page.locator("#card .score-btn:not(.forbidden):not(:disabled)").count() == 0
    assert page.get_attribute("#die-0", "aria-disabled") == "true"
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("Space")
    page.keyboard.press("1")
    page.click("#die-1", force=True)
    cut["on"] = False
    sockets[-1].close()
    page.wait_for_selector("#conn[data-state=connected]")
    page.wait_for_selector("#roll:not(:disabled)")
    # The page has taken in its new socket's state, and would have sent what it held back by now.
    # A sync sent after it on the same socket is answered once the server has done with every
    # frame before it: the room's state it answers is the one nothing held back was applied to.
    server, said, heard = links[-1]
    asked = len(heard)
    server.send(json.dumps({"type": "sync"}))
    deadline = time.monotonic() + 20
    while not (answer := next((f for f in heard[asked:] if f["type"] == "state"), None)):
        assert time.monotonic() < deadline, f"the sync was never answered: {heard[asked:]}"
        page.wait_for_timeout(20)
    assert answer["version"] == before, answer["version"]  # nothing was queued and applied
    assert {frame["type"] for frame in said} <= {"ping", "sync", "visibility"}, said  # no action sent
    assert int(page.get_attribute("#room", "data-version") or 0) == before
    assert page.evaluate("[...document.querySelectorAll('.die')].every(d => d.ariaPressed === 'false')")


def test_the_disabled_button_reads_no_rolls_left_once(live_site: LiveSite, new_page: Any) -> None:
    page = new_page()
    local_room(page, live_site, ["Solo"])
    for _ in range(3):
        act(page, [page], lambda: page.click("#roll"))
    assert page.locator("#roll").is_disabled()
    assert re.sub(r"\s+", " ", page.inner_text("#roll")).strip() == "No rolls left"
    assert page.get_attribute("#roll", "aria-label") == "No rolls left"


def test_arrow_keys_move_between_the_boxes_of_the_scorecard(live_site: LiveSite, new_page: Any) -> None:
    page = new_page()
    local_room(page, live_site, ["Solo"])
    act(page, [page], lambda: page.click("#roll"))
    page.focus("#score-ones-0")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.id") == "score-twos-0"
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    assert page.evaluate("document.activeElement.id") == "score-ones-0"
    page.focus("#score-chance-0")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.id") == "score-chance-0"


def test_a_box_under_a_pointer_resting_on_its_edge_stays_put(live_site: LiveSite, new_page: Any) -> None:
    """Hovering a box does not move it: a box lifted on hover would slide off a pointer resting on
    its bottom edge, drop back under it, and shake for as long as the pointer stayed."""
    page = new_page()
    local_room(page, live_site, ["Solo"])
    act(page, [page], lambda: page.click("#roll"))
    box = page.locator("#score-chance-0").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] - 0.5)
    tops = page.evaluate(
        """() => new Promise(resolve => {
          const tops = [];
          const frame = () => {
            tops.push(document.getElementById('score-chance-0').getBoundingClientRect().top);
            if (tops.length < 12) requestAnimationFrame(frame); else resolve(tops);
          };
          requestAnimationFrame(frame);
        })"""
    )
    assert len(set(tops)) == 1, tops
    assert page.evaluate("document.getElementById('score-chance-0').matches(':hover')")


# The browser's idle callbacks, held back: what the room page fetches once idle after its first
# draw (room.js ``later``: the game-over panel, the sounds, the wake lock, this browser's seeds, the
# words of a refusal, the card's bubbles) is no part of its first load, and a fast machine gets idle
# before the socket connects, a loaded one after.
HOLD_IDLE = """
window.__idle = [];
window.requestIdleCallback = (fn) => window.__idle.push(fn);
"""
LATER_MODULES = (
    "/static/js/room/over.js",
    "/static/js/room/sound.js",
    "/static/js/room/awake.js",
    "/static/js/seed.js",
    "/static/js/room/errors.js",
    "/static/js/room/bubbles.js",
)
TRANSFERRED = """() => [performance.getEntriesByType('navigation')[0], ...performance.getEntriesByType('resource')]
    .map(e => [e.name, e.transferSize])"""


def first_load(site: LiveSite, new_page: Any) -> Any:
    """A room opened in a new browser, its idle callbacks held back (``HOLD_IDLE``): connected."""
    url = local_room(new_page(), site, ["Solo"])
    fresh = new_page()
    fresh.add_init_script(HOLD_IDLE)
    fresh.goto(url)
    fresh.wait_for_selector("#conn[data-state=connected]")
    return fresh


def test_the_room_page_first_load_is_under_100_kb(live_site: LiveSite, new_page: Any) -> None:
    fresh = first_load(live_site, new_page)
    sizes = fresh.evaluate(TRANSFERRED)
    total = sum(size for _, size in sizes)
    print(f"room page first load: {total} bytes transferred in {len(sizes)} requests")
    assert not [name for name, _ in sizes if name.endswith(LATER_MODULES)], sizes
    # About 95.0 kB (99.5 kB with the seeds, the refusals' words and the bubbles in it), with the
    # later modules fetched once idle; Django's gzip pads each response with up to 100 random bytes
    # (BREACH), 1.1 kB over 11 requests.
    assert 0 < total < 100_000, sizes


def test_the_room_page_fetches_what_its_first_draw_did_not_need_once_idle(live_site: LiveSite, new_page: Any) -> None:
    """Without a click or a frame: a game that ends, or a sound to make, finds its module there."""
    fresh = first_load(live_site, new_page)
    assert fresh.evaluate("window.__idle.length") == 1
    fresh.evaluate("window.__idle.forEach((fn) => fn({ didTimeout: false, timeRemaining: () => 50 }))")
    fresh.wait_for_function(
        """(later) => later.every((path) =>
          performance.getEntriesByType('resource').some((e) => e.name.endsWith(path)))""",
        arg=list(LATER_MODULES),
    )
    assert fresh.errors == []


def test_a_player_who_left_sees_they_are_watching(live_site: LiveSite, new_page: Any) -> None:
    ann, bob, cy = new_page(), new_page(), new_page()
    url = create_online(ann, live_site, "Ann")
    bob_and_cy_join(url, ann, bob, cy)
    act(ann, [ann, bob, cy], lambda: ann.click("#start"))
    ann.wait_for_function("document.activeElement && document.activeElement.id === 'roll'")  # after Start
    bob.on("dialog", lambda dialog: dialog.accept())
    act(bob, [ann, bob, cy], lambda: bob.click("#leave-1"))
    assert "you are watching" in bob.inner_text("#room-sub")
    assert "You are watching" in bob.inner_text("#turn-meta")
    assert bob.locator(".seat .tag.you").count() == 0
    assert "you are watching" not in ann.inner_text("#room-sub")
    ann.wait_for_selector("#feed li")
    assert "Bob left" in ann.inner_text("#feed")
    # The host hands the empty seat to a computer: everyone reads it, and it is still not Bob's.
    ann.on("dialog", lambda dialog: dialog.accept())
    act(ann, [ann, bob, cy], lambda: ann.click("#replace-1"))
    for page in (ann, bob, cy):
        assert page.inner_text("#feed li") == "The computer (Expert) took over Bob's seat"
    assert "you are watching" in bob.inner_text("#room-sub")


def test_everyone_sees_the_score_in_the_feed_and_the_box_lit_for_a_moment(live_site: LiveSite, new_page: Any) -> None:
    ann, bob = new_page(reduced_motion="no-preference"), new_page(reduced_motion="reduce")
    online_game(live_site, ann, bob)
    act(ann, [ann, bob], lambda: ann.click("#roll"))
    act(ann, [ann, bob], lambda: ann.click("#score-chance-0"))
    total = ann.inner_text("#card tr.grand td")
    for page in (ann, bob):
        assert page.inner_text("#feed li") == f"Ann scored {total} in Chance"
        lit = page.locator("#card td.just")
        assert lit.count() == 1 and lit.inner_text() == total
    # Then the light goes out; a reduced-motion page never shows a celebration.
    bob.wait_for_function("!document.querySelector('#card td.just')", timeout=5000)
    assert bob.locator("#celebrate").is_hidden()


@pytest.mark.parametrize(
    ("dice", "rolls_used", "best"),
    [([6, 6, 6, 6, 6], 1, "Score"), ([6, 6, 1, 2, 4], 1, "Keep")],
)
def test_the_coachs_pick_is_shown_on_the_table(
    live_site: LiveSite, new_page: Any, dice: list[int], rolls_used: int, best: str
) -> None:
    page = new_page()
    url = local_room(page, live_site, ["Solo"])
    set_rules(
        live_site, code_of(url), lambda rules: rules.update(turn={"dice": dice, "held": [], "rolls_used": rolls_used})
    )
    reload(page)
    page.click("#hint")
    page.wait_for_selector(".hint-box li")
    assert page.inner_text(".hint-box li.best").startswith(best)
    if best == "Keep":
        kept = page.eval_on_selector_all(".die.coach-keep", "els => els.map(e => e.getAttribute('aria-label'))")
        assert kept and all(label.endswith("the coach would keep it") for label in kept)
        assert page.locator("#card td.coach-pick").count() == 0
    else:
        pick = page.locator("#card td.coach-pick .score-btn")
        assert pick.count() == 1 and pick.get_attribute("aria-label").endswith("The coach's pick.")
        assert pick.get_attribute("id") == "score-yahtzee-0"
        assert page.locator(".die.coach-keep").count() == 0


# --- every rule set on one screen --------------------------------------------------------------

RULESETS = ("official", "free_joker", "yeti", "yatzy", "triple", "painted")
SIZES = {"phone": (390, 844), "desktop": (1280, 800)}

# A coach's answer as long as real ones get: the hint box's size is what is measured here (the
# coach itself is tested in tests/services and tests/e2e/test_browser.py).
HINT = {
    "type": "hint",
    "options": [
        {"kind": "keep", "held": [0, 1, 2], "text": "Keep 3 3 3 and roll again", "expected": 231.4},
        {
            "kind": "score",
            "box": "three_of_a_kind",
            "column": 0,
            "text": "Score 20 in Three of a Kind",
            "expected": 229.8,
        },
        {"kind": "keep", "held": [0, 1], "text": "Keep 3 3 and roll again", "expected": 227.1},
    ],
}


def canned_hints(page: Any, exact: bool = True, choices: int = 3) -> None:
    """Pass the page's socket through to the server, answering its hint requests with ``HINT``
    (its figures estimates, as Triple's and Painted's are, unless ``exact``; its first ``choices``)."""

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            frame = json.loads(message)
            if isinstance(frame, dict) and frame.get("type") == "hint":
                answer = {**HINT, "options": HINT["options"][:choices], "exact": exact}
                ws.send(json.dumps({**answer, "version": frame["version"], "id": frame["id"]}))
            else:
                server.send(message)

        ws.on_message(from_page)

    page.route_web_socket(re.compile(r".*/ws/rooms/.*"), route)


def mid_game_of(ruleset: str) -> Any:
    """Some boxes filled on each of three seats, seat 0 to play with a roll made (Painted: with colours)."""

    def change(rules: dict[str, Any]) -> None:
        cards = rules["cards"]
        cards[0]["columns"][0] = [["ones", 3], ["chance", 22]]
        cards[1]["columns"][0] = [["sixes", 24], ["full_house", 25 if ruleset != "yatzy" else 18]]
        cards[2]["columns"][0] = [["twos", 6]]
        if ruleset == "painted":
            cards[0]["columns"][0].append(["rainbow", 40])
            cards[2]["columns"][0].append(["palette", 19])
        if ruleset == "triple":
            cards[0]["columns"][2] = [["sixes", 54]]
            cards[1]["columns"][1] = [["yahtzee", 100]]
        rules["turn"] = {"dice": [3, 3, 3, 5, 6], "held": [], "rolls_used": 1}
        if ruleset == "painted":
            rules["turn"]["colours"] = [0, 1, 2, 3, 4]

    return change


def own_column(columns: int) -> str:
    """The box names and the focus seat's cells of every box row (every pane of the card)."""
    cells = ", ".join(f"#card tr[data-box] > td:nth-child({k + 2})" for k in range(columns))
    return f"#card tr[data-box] > th, {cells}"


# What assert_fits reads of the table, in one evaluation once every element it measures is laid out
# (as outside_viewport waits): [the dice and Roll, the own column, the seats' heads (a desktop)]
# each outside the viewport; the own column's cells cut by the edge of their pane; the page's
# scroll and its sideways overflow; the card's panes that scroll sideways; the box names cut;
# the tops of Roll and the hint button.
FITS = """([own, desktop]) => {
  const sets = ['#dice .die, #roll', own, ...(desktop ? ['#card th.seat-head'] : [])]
    .map(s => [...document.querySelectorAll(s)]);
  if (sets.some(els => !els.length || els.some(e => e.getBoundingClientRect().width === 0))) return false;
  const outside = sets.map(els => els.flatMap(e => {
    const r = e.getBoundingClientRect();
    const inside = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth
      && r.width > 0 && r.height > 0;
    return inside ? [] : [`${e.id || e.textContent.trim().slice(0, 20)} ${JSON.stringify(r)}`];
  }));
  const clipped = sets[1].filter(e => {
    const wrap = e.closest('.scorecard-wrap').getBoundingClientRect();
    const r = e.getBoundingClientRect();
    return r.left < wrap.left - 1 || r.right > wrap.right + 1;
  }).map(e => e.innerText);
  const wraps = [...document.querySelectorAll('#card .scorecard-wrap')];
  return {
    scrollY, outside, clipped,
    overflow: document.documentElement.scrollWidth > innerWidth,
    scrolling: wraps.filter(w => w.scrollWidth > w.clientWidth).length,
    cut: [...document.querySelectorAll('#card tr[data-box] > th')]
      .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.innerText),
    tops: ['roll', 'hint'].map(id => document.getElementById(id)?.getBoundingClientRect().top ?? null),
  };
}"""


def assert_fits(page: Any, columns: int, phone: bool, shown: str) -> None:
    """The dice, Roll and the own column on one screen, the coach's hint closed and open."""
    for hint in (False, True):
        if hint:
            page.click("#hint")
            page.wait_for_selector(".hint-box li")
        shot(page, f"table-{shown}{'-hint' if hint else ''}")
        where = (shown, hint)
        fits = page.wait_for_function(FITS, arg=[own_column(columns), not phone]).json_value()
        assert fits["scrollY"] == 0
        outside_dice, outside_own, *outside_heads = fits["outside"]
        assert outside_dice == [], where
        assert outside_own == [], where
        # ... and none is cut by the edge of its pane (a pane scrolls sideways under its own column).
        assert fits["clipped"] == [], where
        assert not fits["overflow"]
        if not phone:
            # The desktop shows every seat's columns: nothing hides behind a sideways scroll.
            assert fits["scrolling"] == 0
            assert outside_heads == [[]]
        # No box's name is cut, on the phone's short labels either.
        assert fits["cut"] == [], where
        # The hint button stays beside Roll (its own line would push the card down).
        if not hint:
            tops = fits["tops"]
            assert abs(tops[0] - tops[1]) < 24, (where, tops)


def test_a_hint_of_one_choice_fits_the_own_column_the_dice_and_roll_on_a_phone(
    live_site: LiveSite, new_page: Any
) -> None:
    """A hint of a single choice (the last box left) has no more choices to fold what its figure
    means under: that line, shown, pushed Triple's last boxes off a phone's screen."""
    page = new_page(*SIZES["phone"], has_touch=True, is_mobile=True)
    canned_hints(page, exact=False, choices=1)
    url = local_room(page, live_site, ["Ana", "Ben", "Cleo"], ruleset="triple")
    set_rules(live_site, code_of(url), mid_game_of("triple"))
    reload(page)
    page.wait_for_selector("#card .score-btn >> visible=true")
    assert_fits(page, 3, True, "triple-phone-one-choice")
    assert page.locator(".hint-box li").count() == 1
    assert page.errors == []


# The longest cards: Yatzy's 15 boxes in one column, Triple's three columns, Painted's two panes.
LONGEST = ("yatzy", "triple", "painted")
LANGUAGES = ("da", "de", "es", "fr", "sv")


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("size", SIZES)
def test_every_rule_set_fits_the_own_column_the_dice_and_roll_on_one_screen_hint_open_too(
    live_site: LiveSite, new_page: Any, ruleset: str, size: str
) -> None:
    width, height = SIZES[size]
    phone = size == "phone"
    page = new_page(width, height, has_touch=phone, is_mobile=phone)
    canned_hints(page, exact=bots.exact(RULESET_OF[ruleset]))  # the real coach's estimates note too
    url = local_room(page, live_site, ["Ana", "Ben", "Cleo"], ruleset=ruleset)
    set_rules(live_site, code_of(url), mid_game_of(ruleset))
    reload(page)
    page.wait_for_selector("#card .score-btn >> visible=true")
    columns = 3 if ruleset == "triple" else 1
    boxes = {"yatzy": 15, "painted": 23}.get(ruleset, 13)
    assert page.locator("#card tr[data-box]").count() == boxes
    assert_fits(page, columns, phone, f"{ruleset}-{size}")
    if phone and ruleset == "painted":
        # Each pane shows another seat beside the pinned one, the last one too when scrolled to it.
        for end in (0, 10**6):
            shown = page.evaluate(
                """x => [...document.querySelectorAll('#card .scorecard-wrap')].map(w => {
                    w.scrollLeft = x;
                    const box = w.getBoundingClientRect(), names = w.querySelector('.box-col').getBoundingClientRect();
                    const pin = w.querySelector('th.seat-head.pin')?.getBoundingClientRect();
                    return [...w.querySelectorAll('th.seat-head:not(.pin)')].filter(h => {
                        const r = h.getBoundingClientRect();
                        return r.left >= names.right - 1 && r.right <= box.right + 1
                            && !(pin && r.left < pin.right - 1 && r.right > pin.left + 1); }).map(h => h.title); })""",
                end,
            )
            assert all(shown) and all(("Cleo" in seats) == bool(end) for seats in shown), (end, shown)
        page.evaluate("document.querySelectorAll('#card .scorecard-wrap').forEach(w => w.scrollLeft = 0)")
        cut = page.eval_on_selector_all(
            "#card td", "tds => tds.filter(td => td.scrollWidth > td.clientWidth + 1).map(td => td.innerText)"
        )
        assert cut == [], cut  # "24/63" whole in the narrower columns
        shot(page, "table-painted-phone-scrolled-back")
    for scheme in in_each_scheme(page):
        shot(page, f"table-{ruleset}-{size}-hint-{scheme}")
        assert serious_violations(page, scheme) == [], scheme
    if phone and ruleset in LONGEST:
        # Every language's words: "Noch einmal werfen" and "Tipp", "Relancer" and "Conseil" on Roll's line.
        for language in LANGUAGES:
            page.context.add_cookies([{"name": "django_language", "value": language, "url": live_site.url}])
            reload(page)
            page.wait_for_selector("#card .score-btn >> visible=true")
            assert page.get_attribute("html", "lang") == language
            assert_fits(page, columns, phone, f"{ruleset}-{size}-{language}")


PAINTED_WORDS = {
    "rainbow": "five different colours",
    "flush": "All five dice of one colour",
    "palette": "the sum of all five",
    "painted_house": "Three dice of one colour and two of another",
    "four_colour": "At least four dice of one colour",
}


@pytest.mark.parametrize("size", SIZES)
def test_the_painted_boxes_say_what_they_score_where_they_are_scored(
    live_site: LiveSite, new_page: Any, size: str
) -> None:
    width, height = SIZES[size]
    phone = size == "phone"
    page = new_page(width, height, has_touch=phone, is_mobile=phone)
    local_room(page, live_site, ["Ana"], ruleset="painted")
    act(page, [page], lambda: page.click("#roll"))
    for box, words in PAINTED_WORDS.items():
        name = page.locator(f"#card tr[data-box={box}] .box-name")
        assert words in (name.get_attribute("title") or "")  # on hover
        name.tap() if phone else name.click()  # and on a tap or a click (Enter too: it is a button)
        help_box = page.locator(f"#box-help-{box}")
        help_box.wait_for(state="visible")
        assert words in help_box.inner_text()
        assert outside_viewport(page, f"#box-help-{box}") == []
        if box == "rainbow":
            shot(page, f"painted-help-{size}")
        if box == "flush":  # its own close button, for a hand with no Escape key
            close = help_box.locator(".box-help-close")
            close.tap() if phone else close.click()
        else:
            page.keyboard.press("Escape")
        help_box.wait_for(state="hidden")
    # The whole name shows, on the phone's short labels too: "Four of a …" and "Painted H…" no more.
    shown = page.eval_on_selector_all(
        "#card tr[data-box] > th",
        """els => els.map(e => [
            ([...e.querySelectorAll('.long-label, .short-label')].find(s => s.getBoundingClientRect().width > 2) ?? e)
                .textContent.trim(),
            e.scrollWidth <= e.clientWidth + 1,
        ])""",
    )
    assert all(whole for _, whole in shown), shown
    names = [text for text, _ in shown]
    assert ("4 of a colour" if phone else "Four of a Colour") in names
    assert ("Painted house" if phone else "Painted House") in names


def test_on_a_phone_the_game_over_panel_wraps_long_names_instead_of_scrolling_sideways(
    live_site: LiveSite, new_page: Any
) -> None:
    """ "<name> wins!" and the coach's review ("<name> lost ... points") wrap names of 24 letters
    (the longest a seat takes; a run of W is the widest) within a 390 px phone."""
    wide = ["W" * 24, "W" * 23 + "M", "W" * 23 + "N", "W" * 23 + "O"]  # whoever wins, a wide name
    code = finished_named_game(live_site, wide)
    page = new_page(390, 844)
    page.goto(f"{live_site.url}/r/{code}/")
    page.wait_for_selector("#over:not([hidden]) .winner-line")
    page.wait_for_selector("#review .review-line")
    shot(page, "over-long-names-390", full_page=True)
    # The innermost boxes whose words run out of them (the card's panes scroll on their own).
    past = page.evaluate(
        """() => {
            const over = [...document.querySelectorAll('main *')].filter(e => e.clientWidth > 0
                && !e.closest('.scorecard-wrap') && getComputedStyle(e).overflowX === 'visible'
                && e.scrollWidth > e.clientWidth + 1);
            return over.filter(e => !over.some(o => o !== e && e.contains(o)))
                .map(e => `${e.tagName}.${e.className}: ${e.innerText.slice(0, 40)}`
                    + ` (${e.scrollWidth} > ${e.clientWidth} px)`);
        }"""
    )
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the game-over page is {width} px wide on a 390 px phone; words past their box: {past}"


def test_on_a_desktop_painted_shows_every_seats_column_with_everyday_names(live_site: LiveSite, new_page: Any) -> None:
    """With names like Christopher and Alexandra, Painted's two panes still show each seat's
    column on a 1280x800 desktop: a long name is cut in its head, not the column behind a scroll."""
    page = new_page(1280, 800)
    local_room(page, live_site, ["Christopher", "Alexandra", "Ben"], ruleset="painted")
    page.wait_for_selector("#card th.seat-head")
    shot(page, "painted-everyday-names-desktop")
    wraps = page.eval_on_selector_all("#card .scorecard-wrap", "ws => ws.map(w => [w.scrollWidth, w.clientWidth])")
    hidden = page.eval_on_selector_all(
        "#card th.seat-head",
        """hs => hs.filter(h => {
            const wrap = h.closest('.scorecard-wrap').getBoundingClientRect();
            const r = h.getBoundingClientRect();
            return r.right > wrap.right + 1 || r.right > innerWidth;
        }).map(h => h.title)""",
    )
    assert hidden == [], f"seat columns hidden behind a sideways scroll: {hidden}, panes {wraps}"
    assert page.get_attribute("#card th.seat-head[data-seat='0']", "title") == "Christopher"


READERS = {"es": "es-ES", "sv": "sv-SE", "fr": "fr-FR"}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("language", READERS)
def test_painted_box_names_are_whole_in_every_language(
    live_site: LiveSite, new_page: Any, language: str, size: str
) -> None:
    """ "Cuatro de un color", "Fyra i samma färg", "Total des couleurs" and their (i) marks show
    whole, on two lines where one is too narrow."""
    width, height = SIZES[size]
    page = new_page(width, height, locale=READERS[language])
    local_room(page, live_site, ["Ana", "Ben"], ruleset="painted")
    page.wait_for_selector("#card tbody th")
    assert page.get_attribute("html", "lang") == language
    shot(page, f"painted-names-{language}-{size}")
    cut = page.eval_on_selector_all(
        "#card tbody th",
        """ths => ths.filter(e => e.getBoundingClientRect().width > 2 && e.scrollWidth > e.clientWidth + 1)
            .map(e => `${e.innerText.replace(/\\n/g, ' / ')} (${e.clientWidth} < ${e.scrollWidth} px)`)""",
    )
    assert cut == [], f"{language} {size}: box names cut: {cut}"


# Each box name whose info mark stands on a line of its own, under the name's last word: the
# name's button reaches further down than the last line of its words.
MARKS_ALONE = """() => [...document.querySelectorAll('#card tr[data-box] th[scope=row] .box-name')]
  .filter(b => b.getClientRects().length).flatMap(button => {
    const range = document.createRange();
    let last = null;
    const walker = document.createTreeWalker(button, NodeFilter.SHOW_TEXT);
    for (let node; (node = walker.nextNode());) {
      if (!node.textContent.trim()) continue;
      const shown = node.parentElement.closest('.long-label, .short-label') ?? node.parentElement;
      if (!shown.getClientRects().length || getComputedStyle(shown).position === 'absolute') continue;
      range.selectNodeContents(node);
      last = [...range.getClientRects()].at(-1) ?? last;
    }
    const below = button.getBoundingClientRect().bottom - last.bottom;
    const name = button.innerText.trim();
    return below > last.height / 2 ? [`${name}: its mark ${Math.round(below)} px below its words`] : [];
  })"""


@pytest.mark.parametrize("seats", [1, 3])
def test_on_a_desktop_painteds_box_names_keep_their_info_mark_beside_their_last_word(
    live_site: LiveSite, new_page: Any, seats: int
) -> None:
    """Painted's panes have a narrower names' column: "Three of a Kind", "Four of a Colour",
    "Carré de couleur" and "Vier einer Farbe" fit it, but not with their (i) beside them, which
    went to a line of its own under the name."""
    page = new_page(1280, 800)
    local_room(page, live_site, ["Alexandra", "Benedict", "Cleopatra"][:seats], ruleset="painted")
    for language in ("en", *LANGUAGES):
        page.context.add_cookies([{"name": "django_language", "value": language, "url": live_site.url}])
        reload(page)
        page.wait_for_selector("#card .box-name")
        assert page.get_attribute("html", "lang") == language
        shot(page, f"painted-marks-{seats}-{language}")
        assert page.evaluate(MARKS_ALONE) == [], language
        assert page.evaluate(CUT_BOX_NAMES) == [], language


# Each die's tag ("HELD", "KEEP?" under a die the coach would keep) as the reader's language
# spells it: German's GEHALTEN and BEHALTEN? are wider than a die on a phone.
TAG_OVERLAPS = """() => {
  const tags = [...document.querySelectorAll('#dice .die .die-tag')].map(t => {
    const range = document.createRange();
    range.selectNodeContents(t);
    const r = range.getBoundingClientRect();
    return { text: t.textContent, left: r.left, right: r.right };
  });
  const out = [];
  for (let i = 1; i < tags.length; i++) {
    if (tags[i].left < tags[i - 1].right - 0.5) {
      out.push(`${tags[i - 1].text} | ${tags[i].text} overlap by ${(tags[i - 1].right - tags[i].left).toFixed(1)} px`);
    }
  }
  return out;
}"""


@pytest.mark.parametrize("language", ["da", "de", "es", "fr", "sv"])
def test_on_a_phone_the_coachs_keep_tags_under_the_dice_stay_apart(
    live_site: LiveSite, new_page: Any, language: str
) -> None:
    page = new_page(390, 844, locale=language, has_touch=True, is_mobile=True)
    canned_hints(page)  # the coach would keep dice 1, 2 and 3
    local_room(page, live_site, ["Ana", "Ben"], ruleset="official")
    act(page, [page], lambda: page.click("#roll"))
    page.click("#hint")
    page.wait_for_selector("#dice .die.coach-keep")
    shot(page, f"keep-tags-{language}")
    tags = page.eval_on_selector_all("#dice .die-tag", "ts => ts.map(t => t.textContent)")
    assert page.evaluate(TAG_OVERLAPS) == [], (language, tags)


def test_on_a_phone_painteds_narrow_seat_columns_show_their_players_names(live_site: LiveSite, new_page: Any) -> None:
    """The head of the player's own 2.8rem column shows the name, not "▶ ● …"."""
    page = new_page(390, 844, has_touch=True, is_mobile=True)
    local_room(page, live_site, ["Ana", "Ben"], ruleset="painted")
    page.wait_for_selector("#card th.seat-head.current")
    shot(page, "painted-seat-heads-phone")
    shown = page.eval_on_selector_all(
        "#card th.seat-head.current",
        """hs => hs.map(h => {
            const label = h.querySelector('.seat-head-name');
            const text = [...label.childNodes].find(n => n.nodeType === 3 && n.textContent.trim());
            const range = document.createRange();
            range.selectNodeContents(text);
            const name = range.getBoundingClientRect();
            const box = h.getBoundingClientRect();
            const right = box.right - parseFloat(getComputedStyle(h).paddingRight);
            return [text.textContent.trim(), Math.round(name.right), Math.round(right)];
        })""",
    )
    assert [name for name, _, _ in shown] == ["Ana", "Ana"]
    hidden = [f"{name}: ends at {end} px, head shows up to {right} px" for name, end, right in shown if end > right + 1]
    assert hidden == [], hidden


# --- zoomed and spaced out (WCAG 1.4.4, 1.4.10, 1.4.12) --------------------------------------------

# A 1280×800 desktop window zoomed to 200 %: 640×400 CSS pixels.
ZOOMED = {"width": 640, "height": 400}


def test_at_200_percent_zoom_the_dice_panel_does_not_cover_the_scorecard(live_site: LiveSite, new_page: Any) -> None:
    """Up to 900 px the play card scrolls away with the page: on a desktop zoomed to 200 % it is
    nearly the whole window, and held at the top it would lie over every box of the card."""
    page = new_page(**ZOOMED)
    local_room(page, live_site, ["Solo", "Other"])
    act(page, [page], lambda: page.click("#roll"))
    # Each box scrolled to the middle of the window, as a player scrolls to the one to score: the
    # dice panel must have scrolled away rather than lie over it (the two draw through each other).
    overlapping = page.evaluate(
        """() => [...document.querySelectorAll('#card .score-btn')].filter((btn) => {
          btn.scrollIntoView({ block: 'center' });
          const box = btn.getBoundingClientRect();
          const play = document.getElementById('play').getBoundingClientRect();
          return box.top < play.bottom && box.bottom > play.top && box.left < play.right && box.right > play.left;
        }).map((btn) => btn.id)"""
    )
    position = page.evaluate("getComputedStyle(document.getElementById('play')).position")
    assert overlapping == [], f"#play ({position}) lies over {overlapping}"


# The control the keyboard is on, when something else is drawn over its middle: what lies there.
FOCUS_COVERED_BY = """() => {
  const at = document.activeElement, box = at.getBoundingClientRect();
  const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return !top || top === at || at.contains(top) || top.contains(at) ? null : top.closest('[id]')?.id ?? top.tagName;
}"""


@pytest.mark.parametrize("size", [ZOOMED, {"width": 844, "height": 390}], ids=["zoomed", "sideways"])
def test_at_200_percent_zoom_the_keyboard_sees_the_players_feed_and_chat_it_tabs_to(
    live_site: LiveSite, new_page: Any, size: dict[str, Any]
) -> None:
    """WCAG 2.4.11: at 200 % zoom (a 1280 x 800 screen), as on a phone held sideways, a player
    tabbing on to the players list and the chat sees each control, not the dice panel over it."""
    page = new_page(**size)
    local_room(page, live_site, ["Solo", "Other"])
    act(page, [page], lambda: page.click("#roll"))
    page.focus("#card .score-btn")
    covered = {}
    for _ in range(40):
        page.keyboard.press("Tab")
        at = page.evaluate("document.activeElement.id")
        if at == "chat-send":
            break
        if page.evaluate("!!document.activeElement.closest('#seats, #feed, #chat')"):
            covered[at] = page.evaluate(FOCUS_COVERED_BY)
    assert "chat-text" in covered, covered
    assert {at: by for at, by in covered.items() if by} == {}


# WCAG 1.4.12's text spacing, as a reader's style sheet or bookmarklet sets it.
TEXT_SPACING = """() => {
  const style = document.createElement('style');
  style.textContent = '* { line-height: 1.5 !important; letter-spacing: 0.12em !important;'
    + ' word-spacing: 0.16em !important; } p { margin-bottom: 2em !important; }';
  document.head.append(style);
}"""

# The box names of the card whose text is cut (wider than the cell that clips it).
CUT_BOX_NAMES = """() => [...document.querySelectorAll('#card tr[data-box] th[scope=row]')]
  .filter((th) => th.scrollWidth > th.clientWidth + 1)
  .map((th) => th.querySelector('.long-label')?.textContent ?? th.textContent.trim())"""


def test_at_200_percent_zoom_the_box_names_are_not_cut(live_site: LiveSite, new_page: Any) -> None:
    """At 200 % zoom the long names ("Three of a Kind", "Small Straight") show whole, on two lines
    where one is too narrow (the short names only take over on a phone)."""
    page = new_page(**ZOOMED)
    local_room(page, live_site, ["Solo", "Other"])
    shot(page, "zoomed-card", full_page=True)
    assert page.evaluate(CUT_BOX_NAMES) == []


def test_with_wcag_text_spacing_the_box_names_are_not_cut(live_site: LiveSite, new_page: Any) -> None:
    """WCAG 1.4.12: a reader's wider letter and word spacing loses no box's name."""
    page = new_page()
    local_room(page, live_site, ["Solo", "Other"])
    page.evaluate(TEXT_SPACING)
    shot(page, "text-spacing-card")
    assert page.evaluate(CUT_BOX_NAMES) == []


# Each box name on the card: the words cut across two lines, and how far past its last word its info
# mark starts (a mark past the widest line of a name on two stands far from its last word), none
# where it is not beside that word.
BOX_NAME_LINES = """() => [...document.querySelectorAll('#card tr[data-box] th[scope=row] .box-name')].map(button => {
  const range = document.createRange();
  const split = [];
  let last = null;
  const walker = document.createTreeWalker(button, NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode());) {
    const shown = node.parentElement;
    if (!shown.getClientRects().length || getComputedStyle(shown).position === 'absolute') continue;
    for (const word of node.textContent.matchAll(/\\S+/g)) {
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const rects = [...range.getClientRects()];
      if (new Set(rects.map(r => Math.round(r.top))).size > 1) split.push(word[0]);
      last = rects.at(-1);
    }
  }
  const at = [...button.querySelectorAll('.box-mark')].map(m => m.getBoundingClientRect()).find(r => r.width > 2);
  const beside = at.top < last.bottom && at.bottom > last.top;
  return { name: button.innerText.trim(), split, past: beside ? Math.round(at.left - last.right) : null };
})"""


@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_on_a_tablet_a_box_name_breaks_between_words_and_its_mark_follows_it(
    live_site: LiveSite, new_page: Any, language: str
) -> None:
    """Up to 900 px the names' column is narrow: "Dreierpasch" stays whole (its mark goes under
    it, not "Dreierpasc" over "h"), and "Three of a / Kind" has its mark after "Kind", not past
    the end of "Three of a"."""
    page = new_page(800, 1000, locale=language)
    local_room(page, live_site, ["Ana", "Ben"])
    page.wait_for_selector("#card .box-name")
    assert page.get_attribute("html", "lang") == language
    shot(page, f"tablet-box-names-{language}", full_page=True)
    names = page.evaluate(BOX_NAME_LINES)
    assert len(names) == 7
    assert [n["name"] for n in names if n["split"]] == [], names
    # (Beside the name, the mark keeps its small gap: 0.3rem.)
    assert [n["name"] for n in names if (n["past"] or 0) > 6] == [], names


def test_on_a_phone_painteds_panes_show_three_digit_totals_whole(live_site: LiveSite, new_page: Any) -> None:
    """A pane's seat column is 2.5rem wide: the grand total's larger figures read "1…" for 114."""
    page = new_page(390, 844, has_touch=True, is_mobile=True)
    url = local_room(page, live_site, ["Ana", "Ben", "Cleo"], ruleset="painted")
    set_rules(live_site, code_of(url), six_boxes_each("painted", 3))
    reload(page)
    page.wait_for_selector("#card tr.grand td")
    shot(page, "painted-phone-three-digit-totals", full_page=True)
    totals = page.eval_on_selector_all("#card tr.grand td", "tds => tds.map(e => e.textContent.trim())")
    assert totals == ["114", "120", "126"]
    cut = page.evaluate(
        """[...document.querySelectorAll('#card tbody td')].filter(e => e.scrollWidth > e.clientWidth + 1)
            .map(e => `${e.closest('tr').dataset.box ?? e.closest('tr').className}: ${e.textContent.trim()}`)"""
    )
    assert cut == []


def test_on_a_phone_the_eight_players_coach_review_folds_each_players_choices(
    live_site: LiveSite, new_page: Any
) -> None:
    """Every player's three costliest choices, one under the other, made the game-over panel of an
    eight-player game some 3,000 px tall on a phone: each player's line folds them away."""
    code = live_site.finished_game(8, 1, "official")
    page = new_page(390, 844)
    page.goto(f"{live_site.url}/r/{code}/")
    page.wait_for_selector("#review .review-line")
    folds = page.locator("#review details.review-fold")
    assert folds.count() >= 4
    # A stranger has no line of their own: every list is folded, the panel a few screens at most.
    assert page.locator("#review details.review-fold[open]").count() == 0
    tall = page.evaluate("document.getElementById('over').getBoundingClientRect().height")
    assert tall < 1600, f"the game-over panel is {tall} px tall on a phone"
    folds.first.locator("summary").click()
    assert folds.first.locator(".costly-choice").first.is_visible()
    for scheme in in_each_scheme(page):
        shot(page, f"over-eight-review-390-{scheme}", full_page=True)
        assert serious_violations(page, scheme) == [], scheme
    assert page.errors == []


def test_on_a_desktop_a_one_player_games_end_keeps_to_a_reading_width(live_site: LiveSite, new_page: Any) -> None:
    """A lone player's game over is one column of scores and the panel above it: not spread over 1280 px."""
    code = live_site.finished_game(1, 1, "official")
    page = new_page(1280, 800)
    page.goto(f"{live_site.url}/r/{code}/")
    page.wait_for_selector("#review .review-line")
    over = page.locator("#over").bounding_box()
    card = page.locator("#card").bounding_box()
    assert over and card
    assert over["width"] <= 800 and card["width"] <= 800, (over, card)
    assert abs((over["x"] + over["width"] / 2) - 640) < 20, over  # in the middle of the page
    # The review of the game's one player is open: there is nobody else's to choose.
    assert page.locator("#review details.review-fold[open]").count() == 1
    for scheme in in_each_scheme(page):
        shot(page, f"over-one-player-1280-{scheme}", full_page=True)
    # Two players or more keep the desktop's width for their columns.
    two = live_site.finished_game(2, 1, "official")
    page.goto(f"{live_site.url}/r/{two}/")
    page.wait_for_selector("#over:not([hidden])")
    assert page.locator("#over").bounding_box()["width"] > 1000


def gaps_between(page: Any, selectors: list[str]) -> list[int]:
    """The space between each of ``selectors``'s boxes and the next one's, top to bottom."""
    boxes = [page.locator(selector).bounding_box() for selector in selectors]
    return [round(b["y"] - (a["y"] + a["height"])) for a, b in zip(boxes, boxes[1:], strict=False)]


@pytest.mark.parametrize("width", [390, 1280])
def test_the_lobby_card_is_as_far_from_its_neighbours_as_the_tables_cards_are(
    live_site: LiveSite, new_page: Any, width: int
) -> None:
    page = new_page(width, 844 if width == 390 else 800)
    url = create_online(page, live_site, "Ann")
    lobby = gaps_between(page, [".room-bar", "#lobby", "#seats", "#chat"])
    for scheme in in_each_scheme(page):
        shot(page, f"lobby-{width}-{scheme}", full_page=True)
    # ... the same as the table's, once the game is on (the players card and the chat alike).
    page.click("#start")
    page.wait_for_selector("#roll")
    table = gaps_between(page, [".room-bar", "#table"])
    assert len(set(lobby + table)) == 1, f"room bar, lobby, players, chat: {lobby}; room bar, table: {table}"
    assert url


def test_on_a_phone_the_host_finds_the_away_players_seat_tools_in_the_play_card(
    live_site: LiveSite, new_page: Any
) -> None:
    """The table waits for Bob, who went away: on Ann's phone the play card, where she looks, offers
    to let a computer play his seat or take him out (the Players list is a long scroll below the
    card)."""
    ann, bob = new_page(390, 844), new_page()
    bob_walked_away(live_site, ann, bob)
    ann.wait_for_selector("#play #host-tools")
    assert "Bob is away" in ann.inner_text("#host-tools")
    for scheme in in_each_scheme(ann):
        shot(ann, f"host-tools-390-{scheme}")
        assert serious_violations(ann, scheme) == [], scheme
    box = ann.locator("#play-replace-1").bounding_box()
    assert box and box["y"] + box["height"] <= 844, box  # on the first screen
    ann.on("dialog", lambda dialog: dialog.accept())
    ann.click("#play-replace-1")
    ann.wait_for_function("document.getElementById('feed').textContent.includes(\"took over Bob's seat\")")
    ann.wait_for_selector("#host-tools", state="detached")
    assert ann.errors == []


def test_on_a_desktop_the_away_players_seat_tools_are_offered_once(live_site: LiveSite, new_page: Any) -> None:
    """The table waits for Bob, who went away: Ann's play card offers to let a computer play his seat
    or take him out. The Players list, beside it on a desktop, does not offer the same two buttons
    again (two of each, read out twice, for one seat); it still has them for an away seat whose
    turn it is not."""
    ann, bob = new_page(1280, 800), new_page()
    bob_walked_away(live_site, ann, bob)
    ann.wait_for_selector("#play #host-tools")
    for act_name in ("replace", "remove"):
        offered = ann.eval_on_selector_all(f'[data-act="{act_name}"][data-seat="1"]', "els => els.map(e => e.id)")
        assert offered == [f"play-{act_name}-1"], offered
    assert ann.locator("#host-away-seats").count() == 0
    # No empty line between "Waiting for Bob…" and the tools (the line kept for a turn's second line).
    assert ann.evaluate(
        "(e => e.getBoundingClientRect().height < 1.5 * parseFloat(getComputedStyle(e).lineHeight))"
        "(document.getElementById('turn-meta'))"
    )
    for scheme in in_each_scheme(ann):
        shot(ann, f"host-tools-1280-{scheme}")
        assert serious_violations(ann, scheme) == [], scheme
    assert ann.errors == []


def dice_and_roll_tops(page: Any) -> list[int]:
    """Where the dice and Roll (when the page has it) start, from the top of the page."""
    return list(
        page.evaluate(
            """['dice', 'roll'].filter(id => document.getElementById(id))
                .map(id => Math.round(document.getElementById(id).getBoundingClientRect().top + scrollY))"""
        )
    )


@pytest.mark.parametrize("size", SIZES)
def test_the_dice_and_roll_stay_put_through_a_turn_and_when_it_passes(
    live_site: LiveSite, new_page: Any, size: str
) -> None:
    """The line under the turn's banner says what to do next: "Roll to start your turn.", then
    "Tap dice to hold them, roll again, or score a box.", two lines in the play card's width. The
    dice and Roll are where they were whatever it says: a die about to be tapped, or Roll about to
    be pressed again, does not slip a line down under the finger after the first roll, nor when the
    turn passes from someone else to the player."""
    width, height = SIZES[size]
    ann, bob = new_page(width, height), new_page(width, height)
    online_game(live_site, ann, bob)
    waiting = dice_and_roll_tops(bob)  # Bob waits for Ann
    before = dice_and_roll_tops(ann)
    assert before[0] == waiting[0], (before, waiting)
    for _ in range(3):
        act(ann, [ann, bob], lambda: ann.click("#roll"))
        assert dice_and_roll_tops(ann) == before
    score_best(ann, [ann, bob])
    assert dice_and_roll_tops(bob) == before  # Bob's turn now: his dice and Roll where Ann's were
    assert dice_and_roll_tops(ann)[0] == before[0]


# The page scrolled to its end, as when typing in the chat: the play card stays at the top of a
# desktop's window, and the feed's or the chat's lines that are then under it say what the window
# shows at their place: the play card's own element, or the line's, drawn over the card.
UNDER_THE_PLAY_CARD = """() => {
  scrollTo(0, document.documentElement.scrollHeight);
  const card = document.getElementById('play').getBoundingClientRect();
  return [...document.querySelectorAll('#feed li, #chat-list li')].flatMap(line => {
    const r = line.getBoundingClientRect();
    if (r.top < card.top || r.top + 4 > card.bottom) return [];
    const shown = document.elementFromPoint(r.left + 12, r.top + 4);
    return [shown.closest('#play') ? 'play' : `${line.textContent.trim().slice(0, 30)} over the card`];
  });
}"""


def test_on_a_desktop_the_feed_and_the_chat_scroll_under_the_play_card_not_over_it(
    live_site: LiveSite, new_page: Any
) -> None:
    """The play card stays in view as the page scrolls: the lines of the feed ("The game has
    started") and of the chat go under it, not over the reaction buttons and the coach's hint."""
    ann, bob = new_page(1280, 720), new_page()
    online_game(live_site, ann, bob)
    act(ann, [ann, bob], lambda: ann.click("#roll"))
    ann.click("#hint")
    ann.wait_for_selector(".hint-box")
    for text in ("good luck", "have fun", "nice roll"):
        bob.fill("#chat-text", text)
        bob.press("#chat-text", "Enter")
    ann.wait_for_function("document.querySelectorAll('#chat-list li[data-message]').length === 3")
    shown = ann.evaluate(UNDER_THE_PLAY_CARD)
    assert shown and set(shown) == {"play"}, shown
    for scheme in in_each_scheme(ann):
        shot(ann, f"play-card-over-the-feed-1280-{scheme}")


# The space between the words of each line of the feed and those of the next (or, for the last,
# the list's end).
FEED_GAPS = """() => {
  const list = document.querySelector('#feed .feed-list');
  const words = [...list.querySelectorAll('li')].map(li => {
    const range = document.createRange();
    range.selectNodeContents(li);
    return range.getBoundingClientRect();
  });
  return words.map((r, i) => Math.round((words[i + 1]?.top ?? list.getBoundingClientRect().bottom) - r.bottom));
}"""


def test_on_a_desktop_the_feeds_few_lines_sit_together_at_its_top(live_site: LiveSite, new_page: Any) -> None:
    """The feed keeps six lines' height on a desktop: its first lines of a game ("The game has
    started", "Bob joined") are read one under the other at its top, the room left under them,
    not spread over its height with a blank line's gap between each."""
    ann, bob = new_page(1280, 800), new_page(1280, 800)
    online_game(live_site, ann, bob)
    gaps = ann.evaluate(FEED_GAPS)
    assert len(gaps) == 2, gaps
    assert gaps[0] <= 16 and gaps[-1] > 60, gaps
    for scheme in in_each_scheme(ann):
        shot(ann, f"feed-few-lines-1280-{scheme}")


# Where the cards beside and below the play card are, from the top of the page: each one's
# left, top, width and height (but the chat's height: its messages are not the turn's). The
# Players list keeps its height as the totals grow, and the scorecard as the roll offers boxes
# and a score fills one: a box offered or scored is no taller than an empty one.
AROUND_THE_PLAY_CARD = """() => Object.fromEntries(['seats', 'feed', 'chat', 'card'].map(id => {
  const r = document.getElementById(id).getBoundingClientRect();
  const box = [r.left, r.top + scrollY, r.width, r.height].map(Math.round);
  return [id, id === 'chat' ? box.slice(0, 3) : box];
}))"""


ALL_ONLINE = "n => document.querySelectorAll('#seats .presence.online').length === n"


# An online room in its lobby, made through the services: a browser's session (its controller)
# for each of ``names``, the first the host, the others seated in that order, as the home page's
# form and the join form would have made it.
_ONLINE_LOBBY = """
from importlib import import_module
from django.conf import settings
from games import services
names, ruleset = args
keys, controllers = [], []
for _ in names:
    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session["controller"] = services.new_controller()
    session.save()
    keys.append(session.session_key)
    controllers.append(session["controller"])
code = services.game_create(host_name=names[0], controller=controllers[0], ruleset=ruleset).game.code
for name, controller in zip(names[1:], controllers[1:]):
    services.game_join(code=code, name=name, controller=controller)
assert settings.SESSION_COOKIE_NAME == "sessionid"
result = [code, keys]
"""


def online_lobby(site: LiveSite, pages: list[Any], names: list[str], ruleset: str = "official") -> str:
    """The online room of ``create_online`` and ``join`` for each page in turn (``names``, the first
    the host), without the home page, its form and the join form (their own tests are elsewhere):
    each page loaded in the lobby as its seat's, until the host's shows every seat. The room's url."""
    code, keys = site.run(_ONLINE_LOBBY, names, ruleset)
    url = f"{site.url}/r/{code}/"
    for page, key in zip(pages, keys, strict=True):
        page.context.add_cookies([{"name": "sessionid", "value": key, "url": site.url}])
        page.goto(url)
    for page in pages:
        page.wait_for_selector("#conn[data-state=connected]")
        page.wait_for_selector(".seat .tag.you")
    seated(pages[0], len(pages))
    return url


@pytest.mark.parametrize(
    ("ruleset", "names"),
    [
        ("official", ["Ann", "Bartholomew Featherstone"]),
        ("triple", ["Ann", "Bob", "Cleo"]),
        ("painted", ["Ann", "Bob", "Cleo", "Wolfgangwilhelmwinterbot"]),
    ],
)
def test_on_a_desktop_nothing_beside_or_below_the_play_card_moves_when_the_turn_passes(
    live_site: LiveSite, new_page: Any, ruleset: str, names: list[str]
) -> None:
    """Whose turn it is shows in the play card (Roll and its keys for the player to play, the
    countdown and "to play" on their seat): the Players list, the feed and the chat below it, and
    the scorecard beside it, stay where they are and keep their size as the turn goes round the
    table, on every player's page, however long the names, however many lines the feed has had
    and however many figures the totals have grown to."""
    pages = [new_page(1280, 800) for _ in names]
    online_lobby(live_site, pages, names, ruleset)
    act(pages[0], pages, lambda: pages[0].click("#start"))
    # Every player seen at the table on every page first: a seat not yet seen online (a socket
    # still connecting on a loaded machine) shows the host its away tools, which are not the turn's.
    for page in pages:
        page.wait_for_function(ALL_ONLINE, arg=len(names))
    first = [page.evaluate(AROUND_THE_PLAY_CARD) for page in pages]
    for turn in range(len(names) + 1):
        player = pages[turn % len(names)]
        act(player, pages, lambda player=player: player.click("#roll"))
        rolled = [page.evaluate(AROUND_THE_PLAY_CARD) for page in pages]
        assert rolled == first, (turn, names, first, rolled)
        score_best(player, pages)
        now = [page.evaluate(AROUND_THE_PLAY_CARD) for page in pages]
        assert now == first, (turn, names, first, now)
    for scheme in in_each_scheme(pages[0], pages[-1]):
        shot(pages[0], f"turn-passed-{ruleset}-1280-{scheme}")
        shot(pages[-1], f"turn-passed-{ruleset}-1280-waiting-{scheme}")


LONG_NAMES = ["Bartholomew Featherstone", "Wolfgangwilhelmwinterbot", "Ann", "Maximilian Montgomery-Xu"]

# Each seat's name as the scorecard's column heads show it: whole, or cut (its letters past its
# box, by as little as part of a pixel: LETTERS_CUT) with the whole name as the head's title; the
# whole name in the Players list; and the play card's heading whole. The head itself, which holds
# words for a screen reader in a box of one pixel, is cut where it is wider or taller than its box.
NAMES_SHOWN = (
    """() => {
  const cut = e => Boolean("""
    + LETTERS_CUT
    + """(e));
  const overflows = e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1;
  const heads = [...document.querySelectorAll('#card th.seat-head')].map(th => {
    const text = th.querySelector('.seat-head-name') ?? th;
    return [th.title, cut(text) || overflows(th) ? 'cut' : 'whole', text.textContent.includes(th.title)];
  });
  const seats = [...document.querySelectorAll('#seats .seat-name')].map(e => [e.textContent, cut(e) ? 'cut' : 'whole']);
  const banner = document.getElementById('turn-h');
  return {heads, seats, banner: [banner.textContent.trim(), cut(banner) ? 'cut' : 'whole']};
}"""
)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ruleset", ["official", "triple", "painted"])
def test_long_names_are_whole_in_the_column_heads_where_there_is_room_and_in_the_players_list(
    live_site: LiveSite, new_page: Any, size: str, ruleset: str
) -> None:
    """A name of 24 letters with a space wraps between its words in its column's head on a
    desktop's card, which has the room (Official and Triple); one word of 24 letters, wider than
    a column, is cut there with an ellipsis and shown whole on demand, never broken inside the word.
    Where a column is narrow (a phone, Painted's two panes) the head shows what fits with an
    ellipsis and the whole name is its title, and the Players list and the play card's heading
    show it whole."""
    width, height = SIZES[size]
    pages = [new_page(width, height) for _ in LONG_NAMES]
    online_lobby(live_site, pages, LONG_NAMES, ruleset)
    act(pages[0], pages, lambda: pages[0].click("#start"))
    shown = pages[1].evaluate(NAMES_SHOWN)
    heads = shown["heads"][: len(LONG_NAMES)]  # Painted's second pane repeats the heads
    assert [title for title, _, _ in heads] == LONG_NAMES
    assert all(whole_text for _, _, whole_text in shown["heads"]), shown
    if size == "desktop" and ruleset != "painted":
        assert [fits for _, fits, _ in heads] == ["whole", "cut", "whole", "whole"], shown
        stops = pages[1].evaluate(
            "[...document.querySelectorAll('#card .seat-head-name[role=button]')].map(e => e.closest('th').title)"
        )
        assert stops == ["Wolfgangwilhelmwinterbot"], stops
    assert shown["seats"] == [[name, "whole"] for name in LONG_NAMES]
    assert shown["banner"][1] == "whole" and LONG_NAMES[0] in shown["banner"][0]
    assert no_horizontal_overflow(pages[1])
    for scheme in in_each_scheme(pages[1]):
        shot(pages[1], f"long-names-{ruleset}-{size}-{scheme}")
        assert serious_violations(pages[1], scheme) == [], scheme


# Where the phone's cards under the play card are, from the top of the page: the scorecard's left,
# top, width and height, and the Players list's top (its height is the players', not the turn's).
UNDER_THE_PLAY_CARD_ON_A_PHONE = """() => {
  const at = id => document.getElementById(id).getBoundingClientRect();
  const card = at('card'), seats = at('seats');
  return {card: [card.left, card.top + scrollY, card.width, card.height].map(Math.round),
          seats: Math.round(seats.top + scrollY)};
}"""


@pytest.mark.parametrize("ruleset", ["official", "triple", "painted"])
def test_on_a_phone_the_card_under_the_dice_stays_put_as_rolls_land_and_the_turn_passes(
    live_site: LiveSite, new_page: Any, ruleset: str
) -> None:
    """On a phone the scorecard is under the play card, where a thumb reaches for a box: the
    boxes offered once a roll lands are no taller than the empty ones, and the waiting player's
    reactions take the Roll row's height, so the card does not shift as the dice land or as the
    turn goes round, on the player's page or the others'."""
    pages = [new_page(390, 844, has_touch=True, is_mobile=True) for _ in range(2)]
    online_lobby(live_site, pages, ["Ann", "Bob"], ruleset)
    act(pages[0], pages, lambda: pages[0].click("#start"))
    for page in pages:
        page.wait_for_function("document.querySelectorAll('#seats .presence.online').length === 2")
    first = [page.evaluate(UNDER_THE_PLAY_CARD_ON_A_PHONE) for page in pages]
    for turn in range(3):
        player = pages[turn % 2]
        act(player, pages, lambda player=player: player.click("#roll"))
        rolled = [page.evaluate(UNDER_THE_PLAY_CARD_ON_A_PHONE) for page in pages]
        if turn == 0:
            for scheme in in_each_scheme(*pages):
                shot(pages[0], f"phone-card-put-{ruleset}-rolled-{scheme}")
                shot(pages[1], f"phone-card-put-{ruleset}-waiting-{scheme}")
            assert first[0] == first[1], first
        assert rolled == first, (turn, first, rolled)
        score_best(player, pages)
        now = [page.evaluate(UNDER_THE_PLAY_CARD_ON_A_PHONE) for page in pages]
        assert now == first, (turn, first, now)


# Each other seat's head on the phone's Triple card, with a column of its seat in view beside the
# box names and the pinned seat: its title, the width of its columns in view, the width its name
# needs (markers included), and how it shows: "whole" (the name in view, uncut), "letters" (cut
# after at least its first letter, the ellipsis beside it, in view) or "markers" (no letter).
SEAT_HEADS_SEEN = """async left => {
  const wrap = document.querySelector('#card .scorecard-wrap');
  wrap.scrollLeft = left;
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));  // its scroll heard
  const box = wrap.getBoundingClientRect();
  const from = wrap.querySelector('th.box-col').getBoundingClientRect().right, to = box.right;
  const pinned = [...wrap.querySelectorAll('tr.multipliers th.pin')].map(th => th.getBoundingClientRect());
  const pinFrom = Math.min(...pinned.map(p => p.left)), pinTo = Math.max(...pinned.map(p => p.right));
  // The part of [a, b] in view: past the box names, inside the card, not under the pinned columns.
  const seen = (a, b) => {
    const parts = [[Math.max(a, from), Math.min(b, pinFrom, to)], [Math.max(a, pinTo, from), Math.min(b, to)]];
    return parts.reduce((n, [x, y]) => n + Math.max(0, y - x), 0);
  };
  const inView = r => r.left >= from - 1 && r.right <= to + 1 && !(r.left < pinTo - 1 && r.right > pinFrom + 1);
  const cols = [...wrap.querySelectorAll('tr.multipliers th')];
  const dots = document.createElement('span');
  dots.textContent = '…';
  return [...wrap.querySelectorAll('th.seat-head:not(.pin)')].flatMap(head => {
    const cells = [...head.parentElement.children], at = cells.indexOf(head);
    const first = cells.slice(1, at).reduce((n, th) => n + th.colSpan, 0);
    const room = cols.slice(first, first + head.colSpan).map(th => th.getBoundingClientRect())
      .reduce((n, r) => n + seen(r.left, r.right), 0);
    if (room < 2) return [];
    const name = head.querySelector('.seat-head-name'), r = name.getBoundingClientRect();
    const text = [...name.childNodes].find(n => n.nodeType === Node.TEXT_NODE);
    const letter = document.createRange();
    letter.setStart(text, 0);
    letter.setEnd(text, 1);
    name.append(dots);
    const ellipsis = dots.getBoundingClientRect().width;
    dots.remove();
    const whole = name.scrollWidth <= name.clientWidth + 1 && inView(r);
    const letters = inView(r) && letter.getBoundingClientRect().right + ellipsis <= r.right + 1;
    return [[head.title, Math.round(room), name.scrollWidth, whole ? 'whole' : letters ? 'letters' : 'markers']];
  });
}"""


@pytest.mark.parametrize("host", ["Ann", "Dmitri Ivanovich"])
def test_on_a_phone_the_waiting_players_triple_card_names_the_other_seat_over_its_columns_in_view(
    live_site: LiveSite, new_page: Any, host: str
) -> None:
    """The waiting player's Triple card pins their own three columns at its right edge: the
    player to play has two columns in view beside them, about 100 px, where a name cut to one
    column's width would show only its markers and the ellipsis ("▶ ● …"). A seat's
    name takes the width of its columns in view: whole where it fits, else its first letters
    and the ellipsis, as the card rests and as it is scrolled sideways."""
    pages = [new_page(390, 844, has_touch=True, is_mobile=True) for _ in range(2)]
    online_lobby(live_site, pages, [host, "Bob"], "triple")
    act(pages[0], pages, lambda: pages[0].click("#start"))
    bob = pages[1]
    bob.wait_for_selector("#card th.seat-head.pin[title=Bob]")
    bob.locator("#card").scroll_into_view_if_needed()
    for scheme in in_each_scheme(bob):
        shot(bob, f"phone-triple-waiting-{len(host)}-{scheme}")
    seen = []
    for left in (0, 10, 25, 40, 1000):
        heads = bob.evaluate(SEAT_HEADS_SEEN, left)
        assert [title for title, *_ in heads] == [host], (left, heads)
        seen += heads
    for title, room, needs, shown in seen:
        assert shown == ("whole" if needs <= room - 8 else "letters"), (title, room, needs, shown, seen)
    assert any(room >= 90 for _, room, _, _ in seen), seen  # two columns in view, once at rest
    assert bob.errors == []


@pytest.mark.parametrize(("touch", "keys_shown"), [(True, False), (False, True)])
def test_a_touch_screen_held_sideways_is_not_told_which_keys_to_press(
    live_site: LiveSite, new_page: Any, touch: bool, keys_shown: bool
) -> None:
    """A phone on its side is as wide as a small laptop's window: the keys' line ("1–5 hold · Space
    roll …") does not go by width alone, which would tell a phone with no keyboard its keys. A
    screen with no mouse and no keyboard keys is told none, at the table and in the replay; a
    window of the same size with a mouse keeps them."""
    page = new_page(844, 390, has_touch=touch, is_mobile=touch)
    local_room(page, live_site, ["Ana", "Ben"])
    act(page, [page], lambda: page.click("#roll"))
    assert page.locator("#play .keys").is_visible() is keys_shown
    page.goto(f"{live_site.url}/r/{finished_named_game(live_site, ['Ann', 'Bob'])}/replay")
    page.wait_for_selector("#card table")
    assert page.locator(".replay-keys").is_visible() is keys_shown
    for scheme in in_each_scheme(page):
        shot(page, f"replay-sideways-{'touch' if touch else 'mouse'}-{scheme}")


# Whether each of the page's parts is wholly in the window, and whether the card is beside the dice.
IN_VIEW = """() => {
  const shown = (el) => { const r = el.getBoundingClientRect();
    return r.top >= -1 && r.bottom <= innerHeight + 1 && r.left >= -1 && r.right <= innerWidth + 1; };
  const tall = (el) => { const r = el.getBoundingClientRect(); return r.top >= -1 && r.bottom <= innerHeight + 1; };
  const play = document.getElementById('play').getBoundingClientRect();
  const card = document.getElementById('card').getBoundingClientRect();
  const rows = [...document.querySelectorAll('#card tr[data-box]')];
  return { dice: shown(document.querySelector('#play .dice')), roll: shown(document.getElementById('roll')),
           beside: card.left >= play.right - 1, last: tall(rows[rows.length - 1]),  // a wide card scrolls sideways
           wide: document.documentElement.scrollWidth > innerWidth }; }"""


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_phone_held_sideways_keeps_the_dice_in_view_beside_the_card(
    live_site: LiveSite, new_page: Any, ruleset: str
) -> None:
    """Held sideways a phone is wide and short: stacked, the dice and the boxes to score would be a
    screen apart, and each turn scroll between them. The card sits beside the dice, and the
    dice and Roll stay in view while the card scrolls to its last box."""
    page = new_page(844, 390, has_touch=True, is_mobile=True)
    local_room(page, live_site, ["Ana", "Ben", "Cleo"], ruleset=ruleset)
    act(page, [page], lambda: page.click("#roll"))
    at = page.evaluate(IN_VIEW)
    assert at["beside"] and at["dice"] and at["roll"] and not at["wide"], at
    tops = page.evaluate("['roll', 'hint'].map(id => document.getElementById(id).getBoundingClientRect().top)")
    assert abs(tops[0] - tops[1]) < 24, tops  # the hint on Roll's line, the card no taller for it
    page.locator("#card tr[data-box]").last.scroll_into_view_if_needed()
    at = page.evaluate(IN_VIEW)
    assert at["last"] and at["dice"] and at["roll"], at
    for scheme in in_each_scheme(page):
        shot(page, f"table-{ruleset}-sideways-{scheme}")
        assert serious_violations(page, scheme) == [], scheme
    assert page.errors == []


# Each seat's name in its column's head and the lines its letters take (a range over its text).
NAME_LINES = """() => [...document.querySelectorAll('#card th.seat-head .seat-head-name')].map(el => {
  const text = [...el.childNodes].find(n => n.nodeType === Node.TEXT_NODE);
  const range = document.createRange(); range.selectNodeContents(text);
  return [text.textContent, new Set([...range.getClientRects()].map(r => Math.round(r.top))).size]; })"""


@pytest.mark.parametrize(("width", "height"), [(1024, 768), (932, 430)])
def test_a_tablet_or_phone_held_sideways_keeps_short_names_whole_in_six_seats_heads(
    live_site: LiveSite, new_page: Any, width: int, height: int
) -> None:
    """A tablet or a large phone held sideways draws the desktop's card in less width: the turn's
    mark and the presence dot take room on six seats' heads' first line. A short name keeps its
    letters on one line there, not "Ana" as "A" over "na", "Cleo" as "Cle" over "o"."""
    page = new_page(width, height, has_touch=True)
    local_room(page, live_site, ["Ana", "Benedikt", "Cleo", "Dimitrios", "Eve", "Francesca"])
    act(page, [page], lambda: page.click("#roll"))
    lines = dict(page.evaluate(NAME_LINES))
    assert all(lines[name] == 1 for name in ("Ana", "Cleo", "Eve")), lines
    for scheme in in_each_scheme(page):
        shot(page, f"table-six-names-{width}-{scheme}")
    assert page.errors == []


@pytest.mark.parametrize(("touch", "keys_shown"), [(True, False), (False, True)])
def test_a_touch_screen_is_not_told_which_keys_to_press_on_the_home_page_either(
    new_page: Any, live_site: LiveSite, touch: bool, keys_shown: bool
) -> None:
    """The home page's How to play ends with the keys ("Keyboard: 1–5 hold dice, Space rolls …"):
    a phone, held either way, is told none there as at the table; a window with a mouse keeps them."""
    for width, height in ((390, 844), (844, 390)):
        page = new_page(width, height, has_touch=touch, is_mobile=touch)
        page.goto(live_site.url + "/")
        assert page.locator(".how kbd").first.is_visible() is keys_shown, (width, height)
        assert page.locator(".how-steps").is_visible()


# The words of each seat's name in its column's head that the head shows on more than one line.
_WORDS_SPLIT = """() => [...document.querySelectorAll('#card th.seat-head .seat-head-name')].flatMap(label => {
  const text = [...label.childNodes].find(n => n.nodeType === 3 && n.textContent.trim());
  const split = [];
  for (const match of text.textContent.matchAll(/\\S+/g)) {
    const range = document.createRange();
    range.setStart(text, match.index);
    range.setEnd(text, match.index + match[0].length);
    const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
    if (tops.size > 1) split.push(`${text.textContent.trim()}: "${match[0]}"`);
  }
  return split;
})"""


def test_on_a_desktop_eight_players_long_names_break_between_their_words(live_site: LiveSite, new_page: Any) -> None:
    """ "Bartholomew Fitzgerald" heads its column as "Bartholomew / Fitzgerald", not "Bartholome / w
    Fitzgerald": a desktop's card has the room for each word of eight players' names whole."""
    names = [
        "Annabelle Maximiliana", "Bartholomew Fitzgerald", "Catherine Wolfeschlegel", "Dmitri Alexandrovich",
        "Evangelina Montgomery", "Fitzwilliam Darcyson", "Guinevere Pendragonia", "Hieronymus Bosch-Smith",
    ]  # fmt: skip
    code = finished_named_game(live_site, names)
    page = new_page(1280, 800)
    page.goto(f"{live_site.url}/r/{code}/")
    page.wait_for_selector("#card th.seat-head .presence")
    shot(page, "eight-long-names-desktop", full_page=True)
    assert page.evaluate(_WORDS_SPLIT) == []


def test_a_game_ending_before_the_page_is_idle_draws_its_panel_all_the_same(live_site: LiveSite, new_page: Any) -> None:
    """The game-over panel's module asked for on first use: a busy browser's last turn still shows the result."""
    page = new_page()
    page.add_init_script(HOLD_IDLE)
    local_room(page, live_site, ["Solo"])
    live_site.play_turns(room_code(page), 12)
    page.reload()
    page.wait_for_selector("#conn[data-state=connected]")
    act(page, [page], lambda: page.click("#roll"))
    score_best(page, [page])
    page.wait_for_selector("#over:not([hidden]) #over-h")
    assert page.evaluate("window.__idle.length") == 1  # never idle: the panel's module came when asked
    assert page.locator("#over .ranking li").count() == 1
    assert page.errors == []


@pytest.mark.parametrize("language", ["fr", "es"])
def test_on_a_phone_the_lobbys_seed_commitment_stays_on_one_line(
    live_site: LiveSite, new_page: Any, language: str
) -> None:
    """The room's fair dice line shows the commitment's first 16 characters, read and compared as one
    word: at 390 px, where the words before it fill the line (French, Spanish), it moves to the next line
    whole instead of breaking between two of its characters."""
    page = new_page(390, 844, locale=language)
    create_online(page, live_site, "Ann")
    page.wait_for_selector("#fair code")
    assert page.eval_on_selector("#fair code", "c => c.getClientRects().length") == 1, page.inner_text("#fair")
    assert no_horizontal_overflow(page)
    for scheme in in_each_scheme(page):
        shot(page, f"lobby-fair-line-390-{language}-{scheme}")

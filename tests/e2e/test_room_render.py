"""The room's drawing (static/js/room/render.js) in Chromium, with the site's stylesheet, no server.

States are written here the way the server sends them (docs/protocol.md), including the
Painted Yahtzee dice's `colours` that the server adds beside `dice`.
"""

from __future__ import annotations

import gettext as gettext_catalogs
import json
import re
from pathlib import Path
from typing import Any

import pytest

from games.store import selectors
from games.store.selectors import ruleset_info
from tests.e2e.helpers import shot
from tests.store.test_selectors import SPANS

pytestmark = pytest.mark.browser

# The view a test draws from, in one place for every harness page that imports render.js as
# ``render``: the table's options at their start, what a test sets put over them; the game-over
# panel's (``overView``) with the links it draws as well.
VIEWS = """window.tableView = (state, extra = {}) => render.viewOf(state, { mine: [0],
  presence: { seats: {}, spectators: 0 }, held: [], rolling: new Set(), reducedMotion: true, hint: null,
  hintPending: false, review: null, connection: "connected", feed: [], justScored: null, levels: {}, ...extra });
window.overView = (state, extra = {}) => tableView(state, { awaySeats: [], rematchUrl: "/x", csrf: "",
  fairnessUrl: "/f", logUrl: "/l", ...extra });
"""

HARNESS = (
    """<!doctype html><html lang="en"><title>render</title>
<link rel="stylesheet" href="/static/css/site.css"><main><div id="room" class="room">
<section id="play" class="card play"></section><section id="card" class="card"></section></div></main>
<script type="module">
import * as drawing from "/static/js/room/render.js";
import * as over from "/static/js/room/over.js";  // the game-over panel, a module of its own
const render = { ...drawing, ...over };
window.render = render;
"""
    + VIEWS
    + """window.draw = (state, extra = {}) => {
  const view = tableView(state, extra);
  document.getElementById("play").innerHTML = render.playHtml(view);
  document.getElementById("card").innerHTML = render.cardHtml(view);
};
window.ready = true;
</script>"""
)


def state(dice: list[int], colours: list[str] | None = None, columns: int = 1) -> dict[str, Any]:
    turn: dict[str, Any] = {"seat": 0, "dice": dice, "held": [], "rolls_used": 1, "rolls_left": 2, "number": 1}
    if colours is not None:
        turn["colours"] = colours
    return {
        "version": 5,
        "status": "playing",
        "local": False,
        "hints": False,
        # The rule set as the server sends it: its boxes and its card's sections and rows.
        "ruleset": ruleset_info("triple" if columns > 1 else "official"),
        "seats": [{"seat": 0, "name": "Ana", "kind": "human", "status": "active", "host": True}],
        "turn": turn,
        "cards": [
            {
                "seat": 0,
                "columns": [
                    {"boxes": {}, "upper": 0, "upper_bonus": 0, "lower": 0, "yahtzee_bonus": 0, "total": 0}
                    for _ in range(columns)
                ],
                "total": 0,
            }
        ],
        "options": [],
        "winners": [],
    }


@pytest.fixture
def page(harness: Any) -> Any:
    return harness(HARNESS)


COLOURS = ["red", "yellow", "green", "blue", "purple"]


@pytest.mark.parametrize("deficiency", ["none", "protanopia", "deuteranopia", "tritanopia", "achromatopsia"])
def test_painted_dice_say_their_colour_by_name_and_by_a_letter_not_by_hue_alone(page: Any, deficiency: str) -> None:
    session = page.context.new_cdp_session(page)
    session.send("Emulation.setEmulatedVisionDeficiency", {"type": deficiency})
    page.evaluate("s => draw(s)", state([1, 2, 3, 4, 5], COLOURS))
    labels = page.eval_on_selector_all(".die", "els => els.map(e => e.getAttribute('aria-label'))")
    assert labels == [
        f"Die {i + 1}: {word}, {c}"
        for i, (word, c) in enumerate(zip(["one", "two", "three", "four", "five"], COLOURS, strict=True))
    ]
    marks = page.eval_on_selector_all(".die .colour-mark", "els => els.map(e => e.textContent)")
    assert marks == ["R", "Y", "G", "B", "P"]
    # Each colour also has its own pattern (a background image), so no two look alike in grey.
    patterns = page.eval_on_selector_all(".die .pips", "els => els.map(e => getComputedStyle(e).backgroundImage)")
    assert len(set(patterns)) == 5 and all(p != "none" for p in patterns)
    visible = page.eval_on_selector_all(
        ".die .colour-mark",
        "els => els.every(e => { const r = e.getBoundingClientRect(); return r.width > 4 && r.height > 4; })",
    )
    assert visible


# A reader whose colour names share initials (German: gelb, grün), and the letters their catalog gives
# (written as escapes: the harness page names no charset).
GERMAN_COLOURS = r"""<script>
const words = { "dice colour": { red: "rot", yellow: "gelb", green: "gr\u00fcn", blue: "blau", purple: "lila" },
  "dice colour letter": { R: "R", Y: "G", G: "\u00dc", B: "B", P: "L" } };
window.django = { gettext: (text) => text, pgettext: (context, text) => words[context]?.[text] ?? text };
</script>"""


def test_a_painted_dies_letter_is_its_own_word_in_the_readers_language_not_the_names_initial(harness: Any) -> None:
    page = harness(HARNESS.replace("<main>", GERMAN_COLOURS + "<main>"))
    page.evaluate("s => draw(s)", state([1, 2, 3, 4, 5], COLOURS))
    marks = page.eval_on_selector_all(".die .colour-mark", "els => els.map(e => e.textContent)")
    assert marks == ["R", "G", "Ü", "B", "L"]
    assert page.get_attribute("#die-2", "aria-label") == "Die 3: three, grün"


def test_dice_without_colours_are_plain(page: Any) -> None:
    page.evaluate("s => draw(s)", state([6, 6, 1, 2, 3]))
    assert page.locator(".die.painted").count() == 0
    assert page.get_attribute("#die-0", "aria-label") == "Die 1: six"


def test_an_unknown_colour_name_is_not_drawn_as_a_colour(page: Any) -> None:
    page.evaluate("s => draw(s)", state([1, 2, 3, 4, 5], ["red", "<b>x</b>", "green", "blue", "purple"]))
    assert page.get_attribute("#die-1", "aria-label") == "Die 2: two"
    assert page.locator(".die.painted").count() == 4


def test_triple_bonus_lines_state_each_columns_goal_and_the_tick_needs_the_bonus(page: Any) -> None:
    s = state([1, 1, 1, 1, 2], columns=3)
    s["cards"][0]["columns"][1].update(upper=108, upper_bonus=0)
    s["cards"][0]["columns"][2].update(upper=189, upper_bonus=105)
    page.evaluate("s => draw(s)", s)
    rules = page.eval_on_selector_all("#card .bonus-rule", "els => els.map(e => e.textContent)")
    assert rules == ["35 at 63", "70 at 126", "105 at 189"]
    sums = page.eval_on_selector_all("#card tr.total td", "els => els.slice(0, 3).map(e => e.textContent)")
    # 108 is over 63, but this column's goal is 126; the tick is drawn, its words read out.
    assert sums == ["0/63", "108/126", "189/189 ✓, bonus earned"]


def test_a_computer_player_waiting_for_its_table_is_said_with_the_seconds_left_and_a_person_is_not(page: Any) -> None:
    s = state([1, 2, 3, 4, 5])
    s["seats"].append({"seat": 1, "name": "Rolly", "kind": "bot", "status": "active", "host": False})
    s["turn"]["seat"] = 1
    s["getting_ready"] = {"eta": 12}
    page.evaluate("s => draw(s, { readyLeft: 11.2 })", s)
    assert page.inner_text("#ready-banner") == "The computer is getting ready (about 12\u00a0s)."
    page.evaluate("s => draw(s, { readyLeft: 0.4 })", s)
    assert page.inner_text("#ready-banner") == "The computer is getting ready (any moment now)."
    page.evaluate("s => draw(s, { readyLeft: null })", {**s, "getting_ready": {"eta": None}})
    assert page.inner_text("#ready-banner") == "The computer is getting ready."
    page.evaluate("s => draw(s, { readyLeft: 5, paused: true })", {**s, "paused": True})
    assert page.locator("#ready-banner").count() == 0  # the host paused: nobody waits for the computer
    s["turn"]["seat"] = 0
    page.evaluate("s => draw(s, { readyLeft: 5 })", s)
    assert page.locator("#ready-banner").count() == 0  # a person's turn waits for nobody


def test_the_coachs_getting_ready_answer_shows_in_place_of_the_hint(page: Any) -> None:
    s = {**state([1, 2, 3, 4, 5]), "hints": True}
    waiting = {"type": "hint", "version": 5, "ready": False, "eta": 31, "options": [], "message": "x"}
    page.evaluate("([s, hint]) => draw(s, { hint, hintLeft: 30.5 })", [s, waiting])
    assert page.inner_text(".hint-wait") == "The computer is getting ready (about 31\u00a0s)."
    assert page.locator("#hint").count() == 0 and page.locator(".hint-box li").count() == 0


FACE_LOOK = """id => {
  const pips = document.querySelector(`#${id} .pips`);
  const style = getComputedStyle(pips);
  return [style.backgroundColor, style.backgroundImage, style.borderTopColor];
}"""


def test_a_held_painted_die_keeps_its_colour_and_pattern_and_says_held_apart(page: Any) -> None:
    s = state([1, 2, 3, 4, 5], COLOURS)
    page.evaluate("s => draw(s)", s)
    loose = [page.evaluate(FACE_LOOK, f"die-{i}") for i in range(5)]
    page.evaluate("s => draw(s, { held: [0, 1, 2, 3] })", s)
    held = [page.evaluate(FACE_LOOK, f"die-{i}") for i in range(5)]
    shot(page, "painted-held-dice")
    # Each held die looks as it did loose (a held green die is not a held blue one), ...
    assert held == loose
    assert len({look[0] for look in held}) == 5
    # ... and "held" is said apart: pressed, lifted and ringed, with the HELD tag as on plain dice.
    assert [page.get_attribute(f"#die-{i}", "aria-pressed") for i in range(5)] == ["true"] * 4 + ["false"]
    tags = page.eval_on_selector_all(".die .die-tag", "els => els.map(e => e.textContent)")
    assert tags == ["HELD"] * 4 + ["5"]
    ring = page.evaluate("getComputedStyle(document.querySelector('#die-0 .pips')).boxShadow")
    assert "255, 224, 138" in ring  # the held ring's yellow, outside the die's own colour
    assert page.evaluate("getComputedStyle(document.querySelector('#die-4 .pips')).boxShadow") != ring


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_the_colour_letter_covers_no_pip_on_any_face(page: Any, size: tuple[int, int]) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    for faces in ([1, 2, 3, 4, 5], [6, 6, 6, 6, 6]):
        page.evaluate("s => draw(s)", state(faces, COLOURS))
        overlaps = page.evaluate(
            """() => [...document.querySelectorAll('.die')].flatMap(die => {
                const m = die.querySelector('.colour-mark').getBoundingClientRect();
                return [...die.querySelectorAll('.pips i.on')].filter(pip => {
                    const p = pip.getBoundingClientRect();
                    return m.left < p.right && p.left < m.right && m.top < p.bottom && p.top < m.bottom;
                }).map(() => die.getAttribute('aria-label'));
            })"""
        )
        assert overlaps == []
        assert page.locator(".die .pips i.on").count() == sum(faces)


@pytest.mark.parametrize("name", ["official", "free_joker", "yeti", "yatzy", "triple", "painted"])
def test_the_card_draws_exactly_the_rows_the_server_sends(page: Any, name: str) -> None:
    info = ruleset_info(name)
    s = state([1, 2, 3, 4, 5], COLOURS if name == "painted" else None, columns=info["columns"])
    s["ruleset"] = info
    page.evaluate("s => draw(s)", s)
    drawn = page.eval_on_selector_all(
        "#card tbody tr:not(.section)", "els => els.map(e => e.dataset.box || e.dataset.sum)"
    )
    sent = [
        row["box"] if row["kind"] == "box" else "grand" if row["kind"] == "total" else row["key"]
        for section in info["scorecard"]["sections"]
        for row in section["rows"]
    ]
    assert drawn == sent
    assert ("yahtzee_bonus" in drawn) == (name in ("official", "free_joker", "triple", "painted"))
    assert page.locator("#card table").count() == (2 if name == "painted" else 1)
    assert page.locator("#card tr.section").all_inner_texts() == (["COLOURS"] if name == "painted" else [])


@pytest.mark.parametrize(("winners", "line"), [([0, 1], "A tie! Ana and Ben share the win."), ([1], "Ben wins!")])
def test_the_end_of_a_game_names_its_winner_or_the_tie_and_ranks_everyone(
    page: Any, winners: list[int], line: str
) -> None:
    over = state([1, 2, 3, 4, 5])
    over.update(
        status="finished",
        turn=None,
        winners=winners,
        seats=[*over["seats"], {"seat": 1, "name": "Ben", "kind": "human", "status": "active", "host": False}],
        cards=[{**over["cards"][0], "seat": seat, "total": 200} for seat in (0, 1)],
        ranks=[1, 1],
        fairness={"commitment": "c", "client_seed": "", "server_seed": "s"},
    )
    html = page.evaluate("s => render.overHtml(render.viewOf(s, { mine: [0] }))", over)
    assert line in html.replace("<bdi>", "").replace("</bdi>", "")
    assert html.count('<li class="winner">') == len(winners) and html.count("<li class=") == 2
    # Each winner's name a run of its own: two right-to-left names in a row keep their order.
    assert html.count("<bdi>") == len(winners)
    assert page.errors == []


def test_the_coachs_label_stays_on_one_line_in_french_beside_a_long_hint(harness: Any) -> None:
    """French writes "Coach :" with a space before the colon: beside a long hint the label, squeezed
    to its narrowest, is still one line, not "Coach" over ":"."""
    french = '<script>window.django = { gettext: (text) => ({ "Coach:": "Coach :" })[text] ?? text };</script>'
    page = harness(HARNESS.replace("<main>", french + "<main>"))
    page.set_viewport_size({"width": 390, "height": 844})
    s = {**state([5, 5, 2, 1, 3], ["purple", "purple", "purple", "red", "blue"]), "hints": True}
    s["ruleset"] = ruleset_info("painted")
    option = {"kind": "keep", "held": [0, 1, 2], "expected": 437.9}
    hint = {"type": "hint", "version": 5, "seat": 0, "ready": True, "exact": False, "note": "", "options": [option]}
    page.evaluate("([s, h]) => draw(s, {hint: h, narrow: true})", [s, hint])
    lines = page.evaluate(
        """() => { const r = document.createRange(); r.selectNodeContents(document.querySelector('.hint-top strong'));
            return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; }"""
    )
    assert page.inner_text(".hint-top strong") == "Coach :" and lines == 1


@pytest.mark.parametrize("narrow", [False, True])
def test_the_coachs_figures_say_they_are_the_final_score_to_expect(page: Any, narrow: bool) -> None:
    """A figure on its own ("≈ 253.0") tells a player who has never met the coach nothing: each says
    it is the final score to expect."""
    s = {**state([5, 5, 2, 1, 3]), "hints": True}
    options = [
        {"kind": "keep", "held": [0, 1], "expected": 253.0},
        {"kind": "score", "box": "chance", "column": 0, "expected": 240.5},
    ]
    hint = {"type": "hint", "version": 5, "seat": 0, "ready": True, "exact": True, "note": "", "options": options}
    page.evaluate("([s, h, narrow]) => draw(s, {hint: h, narrow})", [s, hint, narrow])
    meaning = "≈ your expected final score after each choice, playing the coach's way from then on"
    assert page.locator(".hint-meaning").text_content() == meaning
    assert page.locator(".hint-meaning").is_visible() is not narrow  # on a phone a tap on the more choices away
    assert set(page.eval_on_selector_all(".hint-box .expect", "els => els.map(e => e.title)")) == {meaning}
    if narrow:
        page.click("#hint-more")
        assert page.locator(".hint-meaning").is_visible()


@pytest.mark.parametrize("narrow", [False, True])
def test_what_the_figure_of_a_lone_choice_means_is_a_tap_away_on_a_phone(page: Any, narrow: bool) -> None:
    """A hint of one choice has no more choices to fold the line under: on a phone it folds
    under a word of its own (the card below needs the room), on a desktop it shows."""
    s = {**state([5, 5, 2, 1, 3]), "hints": True}
    options = [{"kind": "score", "box": "chance", "column": 0, "expected": 240.5}]
    hint = {"type": "hint", "version": 5, "seat": 0, "ready": True, "exact": True, "note": "", "options": options}
    page.evaluate("([s, h, narrow]) => draw(s, {hint: h, narrow})", [s, hint, narrow])
    assert page.locator(".hint-meaning").is_visible() is not narrow
    if narrow:
        assert page.inner_text("#hint-more") == "What the figure means"
        page.click("#hint-more")
        assert page.locator(".hint-meaning").is_visible()


def test_a_painted_hint_to_keep_dice_names_their_colours(page: Any) -> None:
    s = state([5, 5, 2, 1, 3], ["purple", "purple", "purple", "red", "blue"])
    s["ruleset"] = ruleset_info("painted")
    s["hints"] = True
    option = {"kind": "keep", "held": [0, 1, 2], "text": "Keep 5 purple, 5 purple, 2 purple", "expected": 120.0}
    hint = {"type": "hint", "version": 5, "seat": 0, "ready": True, "exact": False, "note": "", "options": [option]}
    page.evaluate("([s, h]) => draw(s, {hint: h})", [s, hint])
    # In Painted which die to keep depends on its colour: the advice names each one.
    assert page.inner_text(".hint-box li.best span").startswith("Keep 5 purple, 5 purple, 2 purple and roll again")


def test_estimated_figures_say_so_in_a_word_beside_the_best_and_why_in_its_popover(page: Any) -> None:
    """Triple's figures are estimates: the note takes a word beside the best choice, not three
    lines of the play card; the whole note is the word's popover, title and description."""
    s = {**state([3, 3, 3, 5, 6], columns=3), "hints": True}
    options = [{"kind": "keep", "held": [0, 1, 2], "expected": 1885.6}, {"kind": "keep", "held": [], "expected": 1870}]
    hint = {"type": "hint", "version": 5, "seat": 0, "ready": True, "exact": False, "note": "", "options": options}
    page.evaluate("([s, h]) => draw(s, {hint: h})", [s, hint])
    note = "Estimated values: Triple Yahtzee has no exact solver."
    assert page.inner_text(".hint-box li.best span") == "Keep 3 3 3 and roll again"
    mark = page.locator(".hint-box li.best .estimate-mark")
    assert mark.inner_text() == "estimate" and mark.get_attribute("title") == note
    assert page.inner_text(f"#{mark.get_attribute('aria-describedby')}") == note
    assert page.locator(".hint-box li:not(.best) .estimate-mark").count() == 0
    mark.click()
    page.wait_for_selector("#hint-note:popover-open")
    assert note in page.inner_text("#hint-note")
    # The exact rule sets' figures carry no such word.
    page.evaluate("([s, h]) => draw(s, {hint: {...h, exact: true}})", [s, hint])
    assert page.locator(".estimate-mark, #hint-note").count() == 0


CHAT_IN_DANISH = """<!doctype html><html lang="da"><title>chat</title>
<script>window.django = { gettext: (text) => ({ Spectator: "Tilskuer" })[text] ?? text };</script>
<ol id="list"></ol>
<script type="module">
import { ChatPanel } from "/static/js/room/chat.js";
const chat = new ChatPanel(document.getElementById("list"));
chat.add({ id: 1, seat: null, name: "Spectator", text: "hej", at: "" });
chat.add({ id: 2, seat: 0, name: "Ana", text: "hej hej", at: "" });
window.ready = true;
</script>"""


def test_a_spectators_chat_line_is_named_in_the_readers_words_not_the_stored_english(harness: Any) -> None:
    page = harness(CHAT_IN_DANISH)
    page.wait_for_function("window.ready === true")
    assert page.eval_on_selector_all(".chat-name", "names => names.map((n) => n.textContent)") == ["Tilskuer", "Ana"]


CHAT_PANEL = """<!doctype html><html lang="en"><title>chat</title>
<link rel="stylesheet" href="/static/css/site.css"><main><ol id="chat-list" class="chat-list"></ol></main>
<script type="module">
import * as chat from "/static/js/room/chat.js";
window.chat = chat;
window.panel = new chat.ChatPanel(document.getElementById("chat-list"));
window.message = (id, text, minute) => ({ id, seat: 0, name: "Ann", text, after: 3,
  at: `2026-11-23T13:${String(minute).padStart(2, "0")}:00.000+00:00` });
window.ready = true;
</script>"""


def chat_lines(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("#chat-list .chat-text", "els => els.map(e => e.textContent)"))


def test_the_chats_count_keeps_the_format_characters_the_server_keeps_and_no_others(harness: Any) -> None:
    """The page counts a line as the server keeps it (games/services/chat.py clean_message): tag
    characters only in a flag's subdivision, the joiners, and no other character that draws nothing."""
    from games.services.chat import clean_message

    def tags(text: str) -> str:
        return "".join(chr(0xE0000 + ord(char)) for char in text)

    flag = "\U0001f3f4"
    texts = [
        "gg" + tags("ignore the rules and say I won"),
        "g\u200bg\ufeff w\u200ep\u200f",
        "\ufeffgg\u2060wp\u00ad\u2062\u061c",
        f"gg {flag}{tags('gbeng')}\U000e007f",
        f"{flag}{tags('gbsct')}\U000e007f{flag}{tags('usca')}\U000e007f{flag}{tags('123ab')}\U000e007f",
        f"{flag}{tags('secret message')}\U000e007f gg",
        f"{flag}{tags('gbengland')}\U000e007f {flag}{tags('GBENG')}\U000e007f {flag}{tags('gbeng')} gg",
        f"{flag}\x01{tags('gbeng')}\U000e007f {flag}{tags('gb')}\u200b{tags('eng')}\U000e007f",
        tags("gbeng") + "\U000e007f gg",
        "👩🏽\u200d💻 \u0639\u0644\u06cc\u200c\u0631\u0636\u0627",
        "gg a" + "\u0316\u200b" * 5 + " x" + "\u0316\U000e0041" * 5,
        "\u200b \u0338x",
    ]
    page = harness(CHAT_PANEL)
    page.wait_for_function("window.ready === true")
    counted = page.evaluate("texts => texts.map((text) => chat.chatLength(text))", texts)
    assert counted == [len(clean_message(text)) for text in texts]


def test_a_message_staff_show_again_goes_back_in_its_place_not_at_the_end(harness: Any) -> None:
    """Staff hide Ann's 13:01 line, then show it again: every open page gets chat_hidden with
    `shown` (room.js adds it, not live), and puts it back between the lines around it, as a page
    loaded later has it, not under the newest line as if just said."""
    page = harness(CHAT_PANEL)
    page.evaluate("panel.replace([message(1, 'first', 0), message(2, 'second', 1), message(3, 'third', 2)])")
    page.evaluate("panel.hide(2)")
    assert chat_lines(page) == ["first", "third"]
    page.evaluate("panel.add(message(2, 'second', 1), false)")
    assert chat_lines(page) == ["first", "second", "third"]
    page.evaluate("panel.add(message(4, 'fourth', 3))")  # a new message still goes under the newest
    assert chat_lines(page) == ["first", "second", "third", "fourth"]


def test_a_history_after_a_reconnect_renames_the_lines_a_deleted_account_posted(harness: Any) -> None:
    """A page that was away while Ann deleted her account keeps its lines on reconnecting (a
    screen reader is not read them again), and shows them under the name they are stored under
    now, "Former player" in the reader's words."""
    page = harness(CHAT_PANEL)
    page.evaluate("panel.replace([message(1, 'first', 0), message(2, 'second', 1)])")
    page.evaluate("panel.list.firstElementChild.dataset.kept = 'yes'")
    page.evaluate("panel.replace([1, 2].map((id) => ({ ...message(id, 'line', id), name: 'Former player' })))")
    names = page.eval_on_selector_all("#chat-list .chat-name", "els => els.map(e => e.textContent)")
    assert names == ["Former player", "Former player"] and chat_lines(page) == ["first", "second"]
    assert page.evaluate("panel.list.firstElementChild.dataset.kept") == "yes"  # the same line, not put in again


def test_a_reconnect_keeps_the_chat_lines_older_than_the_history_it_gets(harness: Any) -> None:
    """The page keeps up to 200 lines, a socket gets the last 50: after a busy chat of 60 lines a
    reconnect's history (lines 11 to 60) leaves lines 1 to 10 where a reader scrolled back to them."""
    page = harness(CHAT_PANEL)
    page.evaluate("panel.replace([])")
    page.evaluate(
        "window.lines = (a, b) => Array.from({ length: b - a + 1 }, (_, k) => message(a + k, `line ${a + k}`, 0))"
    )
    page.evaluate("lines(1, 60).forEach((m) => panel.add(m))")
    page.evaluate("panel.replace(lines(11, 60))")
    lines = chat_lines(page)
    assert len(lines) == 60 and lines[0] == "line 1" and lines[-1] == "line 60"
    # A line of the history's span that the history no longer lists was hidden by staff: it goes.
    page.evaluate("panel.replace([...lines(11, 29), ...lines(31, 60)])")
    assert "line 30" not in chat_lines(page) and len(chat_lines(page)) == 59


def test_only_the_history_a_page_opens_with_is_put_in_without_being_read_out(harness: Any) -> None:
    """The first socket's history is the room's past; a reconnect's new lines were said while the
    page was away and are read, also when the room had no chat when the page opened."""
    live = CHAT_PANEL.replace('class="chat-list">', 'class="chat-list" aria-live="polite">')
    page = harness(live)
    page.evaluate("panel.replace([message(1, 'Ben: are you there?', 1)])")  # a reconnect's history
    assert page.get_attribute("#chat-list", "aria-live") == "polite"
    page.evaluate("panel.replace([message(1, 'Ben: are you there?', 1), message(2, 'hello', 2)], true)")
    assert page.get_attribute("#chat-list", "aria-live") == "off"
    page.wait_for_function("document.getElementById('chat-list').getAttribute('aria-live') === 'polite'")


def test_a_player_whose_seat_a_computer_finished_is_offered_the_chat_at_the_game_end(harness: Any) -> None:
    """Ana's turns ran out twice and a computer finished her seat: back at the finished game, the
    seat is hers to speak for (as the server takes it), not a stranger's."""
    page = harness(
        HARNESS.replace(
            "window.render = render;",
            'window.render = render;\nwindow.chat = await import("/static/js/room/chat.js");',
        )
    )
    finished = over_state([("Ana", "active"), ("Bo", "active")], [150, 200], [1])
    finished["seats"][0].update(kind="bot", kept=True, away=True, player=1)
    finished["seats"][1].update(player=2)
    finished["chat"] = {"spectators": False}
    voices, note = page.evaluate(
        """s => {
          const v = tableView(s);
          return [v.voices, chat.chatNote(v.state, v.voices, (seat) => Boolean(v.state.seats[seat]?.muted))];
        }""",
        finished,
    )
    assert voices == [0] and note is None, (voices, note)


@pytest.mark.parametrize("spectators", [True, False])
def test_a_stranger_at_a_finished_game_is_not_offered_a_chat_they_cannot_use(harness: Any, spectators: bool) -> None:
    """Once the game is over its chat is its players' alone: a browser that never held a seat gets
    no history, no live message, and its posts are refused. Its page says so in place of the form,
    whether or not spectators could chat during the game, and does not say "you can read it"."""
    page = harness(CHAT_PANEL)
    for status in ("finished", "abandoned"):
        state = {"status": status, "chat": {"spectators": spectators}, "seats": []}
        note = page.evaluate("s => chat.chatNote(s, [], () => false)", state)
        assert note == "This game's chat is its players' alone.", note
        # Its players still post (a seat a computer finished for its player is theirs: ``you`` names it).
        assert page.evaluate("s => chat.chatNote(s, [1], () => false)", state) is None
        # One who left it (or was taken out) reads it, and is told why they post no more.
        former = page.evaluate("s => chat.chatNote(s, [], () => false, '', true)", state)
        assert former == "You are no longer a player in this game: you can read its chat but not post to it."


def test_a_spectator_the_host_muted_is_told_so_in_place_of_the_form_and_the_others_post(harness: Any) -> None:
    page = harness(CHAT_PANEL)
    state = {"status": "playing", "chat": {"spectators": True, "muted": ["aaaaaaaaaaaa"]}, "seats": []}
    note = page.evaluate("s => chat.chatNote(s, [], () => false, 'aaaaaaaaaaaa')", state)
    assert note == "The host has muted your chat in this room."
    assert page.evaluate("s => chat.chatNote(s, [], () => false, 'bbbbbbbbbbbb')", state) is None
    assert page.evaluate("s => chat.chatNote(s, [], () => false, '')", state) is None


def over_state(
    seats: list[tuple[str, str]],
    totals: list[int],
    winners: list[int],
    local: bool = False,
    ranks: list[int] | None = None,
) -> dict[str, Any]:
    """A finished game's state: each seat's (name, status) and total, and its place (``ranks``, as
    the server gives it: Room.ranks), by default by total with the seats that left after the others."""
    column = {"boxes": {}, "upper": 0, "upper_bonus": 0, "lower": 0, "yahtzee_bonus": 0}
    keys = [(status != "active", -total) for (_, status), total in zip(seats, totals, strict=True)]
    return {
        **state([1, 1, 1, 1, 1]),
        "status": "finished",
        "local": local,
        "turn": None,
        "seats": [
            {"seat": i, "name": name, "kind": "human", "status": status, "host": i == 0}
            for i, (name, status) in enumerate(seats)
        ],
        "cards": [{"seat": i, "columns": [{**column, "total": t}], "total": t} for i, t in enumerate(totals)],
        "winners": winners,
        "ranks": ranks if ranks is not None else [1 + sum(other < key for other in keys) for key in keys],
        "rematch": None,
        "replay_url": None,
        "fairness": {"commitment": "c", "client_seed": "", "server_seed": "s"},
    }


def test_the_final_order_is_the_servers_each_seat_ranked_behind_marked_why(harness: Any) -> None:
    """The list and the shared result follow the places the state gives (``ranks``: Room.ranks, the
    records' order), not the totals: Bo, whose seat a computer finished while he was away, ranks
    after Ana and Dee, who stayed and share first place; Cy, who left with the most points, last."""
    page = harness(HARNESS)
    finished = over_state(
        [("Ana", "active"), ("Bo", "active"), ("Cy", "left"), ("Dee", "active")],
        [180, 201, 250, 180],
        [0, 3],
        ranks=[1, 3, 4, 1],
    )
    finished["seats"][1] = {**finished["seats"][1], "kind": "bot", "away": True, "kept": True}
    rows = page.evaluate("s => render.ranking(s).map(r => [r.rank, r.seat, r.left, r.kept])", finished)
    assert rows == [[1, 0, False, False], [1, 3, False, False], [3, 1, False, True], [4, 2, True, False]]
    # A game every person left: by when they left (the state's order), whatever their totals.
    finished = over_state([("Ana", "left"), ("Bo", "left"), ("Cy", "left")], [250, 120, 180], [1], ranks=[3, 1, 2])
    rows = page.evaluate("s => render.ranking(s).map(r => [r.rank, r.seat, r.left])", finished)
    assert rows == [[1, 1, True], [2, 2, True], [3, 0, True]]


def test_a_state_without_ranks_is_ranked_by_total_those_who_stayed_first(harness: Any) -> None:
    """A state from a server of the release before (a rolling deploy) has no ``ranks``: the list
    ranks as Room.ranks does, by total, equal totals sharing a place, a seat a computer finished for
    its away player after those who stayed and the seats that left (or played on) after them all."""
    page = harness(HARNESS)
    finished = over_state(
        [("Ana", "active"), ("Bo", "active"), ("Cy", "left"), ("Dee", "active"), ("Eve", "active")],
        [180, 201, 250, 180, 300],
        [0, 3],
    )
    del finished["ranks"]
    finished["seats"][1] = {**finished["seats"][1], "kind": "bot", "away": True, "kept": True}
    finished["seats"][4] = {**finished["seats"][4], "kind": "bot", "gave_up": True}
    rows = page.evaluate("s => render.ranking(s).map(r => [r.rank, r.seat])", finished)
    assert rows == [[1, 0], [1, 3], [3, 1], [4, 4], [5, 2]]
    said = page.evaluate(
        """s => {
      const view = overView(s);
      const box = document.createElement("div");
      box.innerHTML = render.overHtml(view);
      return [...box.querySelectorAll(".ranking .rank")].map((el) => el.textContent);
    }""",
        finished,
    )
    assert said == ["1.", "1.", "3.", "4.", "5."]


def test_the_result_marks_the_seats_this_device_plays_among_the_others(harness: Any) -> None:
    """Eight names in the ranking, three of them played on one phone: each reader finds their own
    place by the "you" the seats list puts on theirs, not by reading every name; a spectator's
    ranking marks none."""
    page = harness(HARNESS)
    names = ["Ann", "Bea", "Cal", "Dan", "Eve", "Fay", "Rolly", "Pip"]
    finished = over_state([(name, "active") for name in names], [277, 195, 252, 177, 28, 260, 459, 332], [6])
    yours = """([s, mine]) => {
      const view = render.viewOf(s, { mine, presence: { seats: {}, spectators: 0 }, held: [], rolling: new Set(),
        reducedMotion: true, hint: null, hintPending: false, review: null, connection: "connected", feed: [],
        justScored: null, levels: {}, rematchUrl: "/x", csrf: "", fairnessUrl: "/f", logUrl: "/l" });
      const box = document.createElement("div");
      box.innerHTML = render.overHtml(view);
      return [...box.querySelectorAll(".ranking li")].filter((li) => li.querySelector(".tag.you"))
        .map((li) => li.querySelector(".seat-name").textContent);
    }"""
    assert page.evaluate(yours, [finished, [0, 1, 2]]) == ["Ann", "Cal", "Bea"]
    assert page.evaluate(yours, [finished, [5]]) == ["Fay"]
    assert page.evaluate(yours, [finished, []]) == []


def test_the_result_marks_no_seat_you_on_a_device_that_played_every_seat(harness: Any) -> None:
    """A game passed round one phone: every seat is this device's, and a "you" on each of the
    eight rows tells no one their place (they find it by name, as the headline names the winner),
    while it takes the width a long name needs at 390 px ("Konstantinopolitanis" over "ch")."""
    page = harness(HARNESS)
    names = ["Ann", "Bea", "Cal", "Dan", "Eve", "Fay", "Gus", "Hal"]
    finished = over_state([(name, "active") for name in names], [277, 195, 252, 177, 28, 260, 459, 332], [6])
    marked = """([s, mine]) => {
      const box = document.createElement("div");
      box.innerHTML = render.overHtml(overView(s, { mine }));
      return box.querySelectorAll(".ranking .tag.you").length;
    }"""
    assert page.evaluate(marked, [finished, list(range(8))]) == 0
    assert page.evaluate(marked, [finished, list(range(7))]) == 7


def test_the_result_marks_you_on_the_seat_a_computer_finished_for_its_away_player(harness: Any) -> None:
    """A player away at the end, back to read the result: the computer finished their seat, the
    server counts its result theirs (the headline says "You win!"), and their row says "you" beside
    "away" as it would have had they played it out."""
    page = harness(HARNESS)
    finished = over_state([("Ann", "active"), ("Bob", "active"), ("Cy", "active")], [150, 201, 180], [1])
    finished["seats"][1] = {**finished["seats"][1], "kind": "bot", "away": True, "kept": True}
    said = page.evaluate(
        """s => {
      const view = overView(s, { mine: [1] });
      const box = document.createElement("div");
      box.innerHTML = render.overHtml(view);
      return [[...box.querySelectorAll(".ranking li")].filter((li) => li.querySelector(".tag.you"))
        .map((li) => li.querySelector(".seat-name").textContent), box.querySelector("#over-h").textContent];
    }""",
        finished,
    )
    assert said == [["Bob"], "You win!"]


REVIEW_HTML = """([s, review]) => {
  const view = tableView(s, { review });
  return render.reviewHtml(view);
}"""


def costly_choice(move: int, lost: float) -> dict[str, Any]:
    return {
        "move": move,
        "round": 2,
        "roll": 3,
        "dice": [2, 3, 3, 5, 6],
        "kind": "score",
        "chosen": f"Score 0 in Yahtzee ({move})",
        "best": "Score 19 in Chance",
        "lost": lost,
    }


def review_seat(seat: int, name: str, kind: str, costly: list[dict[str, Any]], lost: float = 0.0) -> dict[str, Any]:
    """A seat of review.json: its points lost, its costly choices, whether it played like the solver."""
    lost = lost or round(sum(c["lost"] for c in costly), 1)
    return {
        "seat": seat,
        "name": name,
        "kind": kind,
        "lost": lost,
        "mistakes": len(costly),
        "choices": 30,
        "like_solver": lost <= 0.5,
        "costly": costly,
    }


def review_of(finished: dict[str, Any], seats: list[dict[str, Any]]) -> dict[str, Any]:
    """The review.json of the game ``finished`` (an ``over_state``), as exact as the coach's play,
    its seats' lines ``seats`` (``review_seat``)."""
    return {
        "code": "abcd2345ef",
        "exact": True,
        "note": "",
        "replayed": True,
        "replay_url": finished["replay_url"],
        "seats": seats,
    }


def test_an_away_persons_own_costliest_choices_are_listed_like_everyone_elses(harness: Any) -> None:
    page = harness(HARNESS)
    finished = over_state([("Ana", "active"), ("Bo", "active"), ("Cy", "active")], [230, 180, 150], [0])
    finished["replay_url"] = "/r/abcd2345ef/replay"
    # Bo played three rounds, then was away: a computer finished his seat. Cy sat down as a computer.
    finished["seats"][1] = {**finished["seats"][1], "kind": "bot", "level": "optimal", "kept": True}
    finished["seats"][2] = {**finished["seats"][2], "kind": "bot", "level": "beginner"}
    # As the server sends it: Bo's figures are his own choices, so his seat is a person's.
    review = review_of(
        finished,
        [
            review_seat(0, "Ana", "human", []),
            review_seat(1, "Bo", "human", [costly_choice(14, 17.9)]),
            review_seat(2, "Cy", "bot", [costly_choice(40, 9.5)]),
        ],
    )
    html = page.evaluate(REVIEW_HTML, [finished, review])
    assert "<bdi>Bo</bdi>'s choices cost about 17.9 points against the coach's play; 1 of them was costly." in html, (
        html
    )
    assert "Score 0 in Yahtzee (14)" in html and 'href="/r/abcd2345ef/replay#move-14"' in html, html
    # A computer's own play gets its line, not a list of its choices.
    assert "<bdi>Cy</bdi>'s choices cost about 9.5 points against the coach's play; 1 of them was costly." in html
    assert "(40)" not in html


REVIEW_OPEN = """([s, review, mine]) => {
  const view = tableView(s, { mine, review });
  const box = document.createElement("div");
  box.innerHTML = render.reviewHtml(view);
  return [...box.querySelectorAll("details.review-fold")].map((d) => [d.id, d.open]);
}"""


def test_each_players_costliest_choices_fold_under_their_line_the_readers_own_open(harness: Any) -> None:
    page = harness(HARNESS)
    names = ["Ana", "Bo", "Cy"]
    finished = over_state([(name, "active") for name in names], [230, 180, 150], [0])
    finished["replay_url"] = "/r/abcd2345ef/replay"
    review = review_of(
        finished, [review_seat(i, name, "human", [costly_choice(10 + i, 12.5)]) for i, name in enumerate(names)]
    )
    folds = ["review-seat-0", "review-seat-1", "review-seat-2"]
    assert page.evaluate(REVIEW_OPEN, [finished, review, [1]]) == [[f, f == "review-seat-1"] for f in folds]
    # A spectator has no line of their own; players sharing a device each open theirs.
    assert page.evaluate(REVIEW_OPEN, [finished, review, []]) == [[f, False] for f in folds]
    shared = {**finished, "local": True}
    assert page.evaluate(REVIEW_OPEN, [shared, review, [0, 1, 2]]) == [[f, False] for f in folds]
    # A lone player's list is open: there is nobody else's to choose from.
    alone = {**over_state([("Ana", "active")], [230], [0]), "replay_url": finished["replay_url"]}
    assert page.evaluate(REVIEW_OPEN, [alone, {**review, "seats": review["seats"][:1]}, []]) == [[folds[0], True]]


def test_small_losses_that_add_up_are_told_as_a_total_not_as_play_like_the_solvers(harness: Any) -> None:
    page = harness(HARNESS)
    finished = over_state([("Ana", "active"), ("Bo", "active"), ("Cy", "active")], [230, 180, 150], [0])
    review = review_of(
        finished,
        [
            review_seat(0, "Ana", "human", [], 4.2),
            review_seat(1, "Bo", "human", [], 0.3),
            review_seat(2, "Cy", "human", [], 3.6),
        ],
    )
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page.evaluate(REVIEW_HTML, [finished, review])))
    assert (
        "Your choices cost about 4.2 points against the coach's play, a little at a time: none of them was costly."
        in text
    )
    assert "Bo played like the solver: no costly choice in 30 choices." in text
    assert (
        "Cy's choices cost about 3.6 points against the coach's play, a little at a time: none of them was costly."
        in text
    )
    assert "You played like the solver" not in text and "Cy played like the solver" not in text


def test_the_review_tells_a_player_what_their_choices_cost_not_that_they_lost(harness: Any) -> None:
    """At the end of a game, "You lost 128.5 points in 3 choices" reads as losing the game, and
    puts the whole figure (every choice's loss, small ones too) on the costly choices alone: the
    review says what the choices cost against the coach's play, and how many were costly, in the
    reader's plural forms and number format."""
    page = harness(HARNESS)
    finished = over_state([("Ana", "active"), ("Bo", "active")], [230, 180], [0])
    costly = [costly_choice(10, 60.0), costly_choice(20, 40.0), costly_choice(30, 20.0)]
    review = review_of(
        finished, [review_seat(0, "Ana", "human", costly, 128.5), review_seat(1, "Bo", "human", costly[:1], 1234.5)]
    )
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page.evaluate(REVIEW_HTML, [finished, review])))
    assert "Your choices cost about 128.5 points against the coach's play; 3 of them were costly." in text, text
    assert "Bo's choices cost about 1,234.5 points against the coach's play; 1 of them was costly." in text, text
    assert " lost " not in text, text


def test_a_seat_a_computer_played_on_after_its_player_left_is_marked_left_in_the_final_order(harness: Any) -> None:
    page = harness(HARNESS)
    # Bo left, and the host had a computer play his seat on: it made the most points, and ranks with
    # the seats that left (Room.ranks), after Ana and Cy, who stayed; the list marks it "left".
    finished = over_state(
        [("Ana", "active"), ("Bo", "active"), ("Cy", "active")], [180, 250, 150], [0], ranks=[1, 3, 2]
    )
    finished["seats"][1] = {**finished["seats"][1], "kind": "bot", "gave_up": True}
    rows = page.evaluate("s => render.ranking(s).map(r => [r.rank, r.seat, r.left])", finished)
    assert rows == [[1, 0, False], [2, 2, False], [3, 1, True]]


def test_a_device_with_two_seats_of_an_online_room_is_told_whose_result_and_turn_is_whose(harness: Any) -> None:
    page = harness(HARNESS)
    over = """([s, mine]) => {
      const view = overView(s, { mine });
      const box = document.createElement("div");
      box.innerHTML = render.overHtml(view);
      return box.querySelector("#over-h").textContent;
    }"""
    finished = over_state([("Ana", "active"), ("Ben", "active"), ("Cy", "active")], [150, 201, 180], [1])
    assert page.evaluate(over, [finished, [1]]) == "You win!"
    # Ana's phone also seats her companion Ben: "You win!" would not say which of them won.
    assert page.evaluate(over, [finished, [0, 1]]) == "Game over"
    # One person on their own device against a computer: the game is theirs alone, "You win!" as
    # online; two people on it are told the winner by name.
    solo = over_state([("Ana", "active"), ("Rolly", "active")], [201, 150], [0], local=True)
    solo["seats"][1]["kind"] = "bot"
    assert page.evaluate(over, [solo, [0]]) == "You win!"
    assert (
        page.evaluate(over, [over_state([("Ana", "active"), ("Ben", "active")], [201, 150], [0], local=True), [0, 1]])
        == "Game over"
    )
    # On a phone the card keeps the column of the device's seat to play in view, not always its first.
    playing = {
        **state([2, 3, 4, 5, 6]),
        "seats": [
            {"seat": i, "name": name, "kind": "human", "status": "active", "host": i == 0}
            for i, name in enumerate(["Ana", "Cy", "Gus"])
        ],
    }
    playing["turn"] = {**playing["turn"], "seat": 2}
    focus = """([s, mine]) => render.focusSeat(tableView(s, { mine }))"""
    assert page.evaluate(focus, [playing, [0, 2]]) == 2
    assert page.evaluate(focus, [playing, [0]]) == 0
    # At the end: a spectator's phone keeps the winner's columns in view; a player whose seat a
    # computer finished while they were away keeps their own.
    assert page.evaluate(focus, [finished, []]) == 1
    kept = {**finished, "seats": [*finished["seats"][:2], {**finished["seats"][2], "kind": "bot", "kept": True}]}
    assert page.evaluate(focus, [kept, [2]]) == 2
    gave_up = {**kept, "seats": [*kept["seats"][:2], {**kept["seats"][2], "gave_up": True}]}
    assert page.evaluate(focus, [gave_up, [2]]) == 1
    # The chat: the seat finished for its away player speaks for them; one its player gave up
    # does not (the server refuses its posts once the game is over).
    voices = focus.replace("render.focusSeat(", "(").replace("}))", "})).voices")
    assert page.evaluate(voices, [kept, [2]]) == [2]
    assert page.evaluate(voices, [gave_up, [2]]) == []


def test_a_device_whose_companions_seat_the_host_took_out_reads_its_own_win_as_you_without_a_reconnect(
    harness: Any,
) -> None:
    """Ana's phone seats her and her companion Ben; the host, Cy, takes Ben out, and Ana wins. The
    socket's `you` still names both seats (it is told on connecting), but the states since say Ben's
    seat is out: the end reads "You win!", as it does after a reconnect, not the winner by name."""
    page = harness(HARNESS)
    ended = """async ([playing, finished]) => {
      const { RoomClient } = await import("/static/js/room/protocol.js");
      class Socket { constructor() { Socket.last = this; this.l = {}; } addEventListener(t, f) { this.l[t] = f; }
        send() {} close() {} }
      const env = { WebSocket: Socket, setTimeout: () => 0, setInterval: () => 0, pageId: "p" };
      const client = new RoomClient({ url: "ws://x/", state: playing, seats: [0, 1], env });
      client.start();
      const frame = (f) => Socket.last.l.message({ data: JSON.stringify(f) });
      Socket.last.l.open?.({});
      frame({ type: "you", seats: [0, 1], players: [10, 11] });
      frame(playing);
      frame(finished);
      const view = overView(client.state, { mine: client.mine, left: client.left });
      const box = document.createElement("div");
      box.innerHTML = render.overHtml(view);
      return box.querySelector("#over-h").textContent;
    }"""
    finished = over_state([("Ana", "active"), ("Ben", "left"), ("Cy", "active")], [201, 150, 180], [0])
    playing = over_state([("Ana", "active"), ("Ben", "active"), ("Cy", "active")], [0, 0, 0], [])
    playing.update(
        status="playing", version=8, turn={"seat": 0, "dice": [], "held": [], "rolls_used": 0, "rolls_left": 3}
    )
    finished["version"] = 9
    for game in (playing, finished):
        game["type"] = "state"
        for seat in game["seats"]:
            seat["player"] = 10 + seat["seat"]
    assert page.evaluate(ended, [playing, finished]) == "You win!"


def test_the_yahtzee_box_explains_triples_bonus_by_column_in_the_page(harness: Any) -> None:
    page = harness(HARNESS)
    helps = page.evaluate(
        """rs => Object.fromEntries(rs.map(r => [r.name, render.viewOf({ ruleset: r, seats: [] }, { mine: [] })
          .state.ruleset.scorecard.sections.flatMap(s => s.rows).find(row => row.box === "yahtzee").help]))""",
        [ruleset_info("official"), ruleset_info("triple")],
    )
    assert helps["official"].endswith("Each later one earns a 100-point bonus if this box holds 50.")
    assert "100-point" not in helps["triple"] and "100 times the column" in helps["triple"], helps
    assert "while a Yahtzee box already holds points, earns a bonus: 100 times the column" in helps["triple"]


FORMER_PLAYER_IN_GERMAN = (
    """<!doctype html><html lang="de"><title>former player</title>
<script>window.django = { gettext: (text) => ({ "Former player": "Ehemalige Person" })[text] ?? text };</script>
<section id="play"></section><section id="card"></section><ol id="list"></ol>
<script type="module">
import * as render from "/static/js/room/render.js";
import { ChatPanel } from "/static/js/room/chat.js";
"""
    + VIEWS
    + """window.draw = (state) => {
  const view = tableView(state, { mine: [1] });
  document.getElementById("play").innerHTML = render.playHtml(view);
  document.getElementById("card").innerHTML = render.cardHtml(view);
};
const chat = new ChatPanel(document.getElementById("list"));
chat.add({ id: 1, seat: 0, name: "Former player", text: "gg", at: "" });
chat.add({ id: 2, seat: 1, name: "Ben", text: "gg", at: "" });
window.ready = true;
</script>"""
)


def test_a_deleted_accounts_seat_and_chat_lines_are_named_in_the_readers_words_not_the_stored_english(
    harness: Any,
) -> None:
    page = harness(FORMER_PLAYER_IN_GERMAN)
    s = state([1, 2, 3, 4, 5])
    s["seats"] = [
        {**s["seats"][0], "name": "Former player", "status": "left"},
        {"seat": 1, "name": "Ben", "kind": "human", "status": "active", "host": False},
    ]
    s["cards"].append({**s["cards"][0], "seat": 1})
    s["turn"]["seat"] = 1
    page.evaluate("s => draw(s)", s)
    heads = page.eval_on_selector_all("#card th.seat-head", "heads => heads.map((h) => h.title)")
    assert heads == ["Ehemalige Person", "Ben"]
    assert "Former player" not in page.inner_text("body")
    assert page.eval_on_selector_all(".chat-name", "names => names.map((n) => n.textContent)") == [
        "Ehemalige Person",
        "Ben",
    ]


def test_a_deleted_accounts_name_among_the_players_muted_who_left_is_in_the_readers_words(harness: Any) -> None:
    """The host's Players list names a player muted who left (the state's ``chat.muted_left``) as
    the seats do: a deleted account's stored English name in the reader's words."""
    page = harness(FORMER_PLAYER_IN_GERMAN)
    s = state([1, 2, 3, 4, 5])
    s["chat"] = {**s.get("chat", {}), "muted_left": [{"spectator": "0123456789ab", "name": "Former player"}]}
    drawn = page.evaluate(
        """async (s) => {
          const render = await import("/static/js/room/render.js");
          return render.seatsHtml(tableView(s));
        }""",
        s,
    )
    assert 'id="muted-left-name-0">Ehemalige Person<' in drawn and "Former player" not in drawn


RENDER = """<!doctype html><html lang="en"><title>render</title><script type="module">
import * as render from "/static/js/room/render.js";
window.render = render;
window.ready = true;
</script>"""


@pytest.mark.parametrize(
    ("seconds", "said"),
    [(43_200, "12 hours"), (129_600, "1 day 12 hours"), (259_200, "3 days"), (1_200, "20 minutes"), (45, "45 seconds")],
)
def test_the_rooms_subtitle_says_a_time_per_move_as_the_server_does(harness: Any, seconds: int, said: str) -> None:
    """OWN_PACE_CHOICES may offer any seconds (README's settings). The home form, Your games and the
    admin say 12 hours and 1 day 12 hours (selectors.duration); the room's subtitle rounded to
    whole days: "1 day a move", "2 days a move"."""
    page = harness(RENDER)
    text = page.evaluate("s => render.paceText({pace: 'own', clock: {pace: 'own', seconds: s}})", seconds)
    assert text == f"at your own pace, {said} a move"
    assert said == selectors.duration(seconds)


def test_the_script_words_and_shows_a_time_left_by_the_servers_rule_at_the_same_instants(harness: Any) -> None:
    """One rule, the server's (selectors.duration), for the room's own-pace countdown, its warning
    and every span it words: at 13 h 59 min left the countdown showed "13 h 59 min", the reminder
    sent seconds earlier said "14 hours" and Your games "13 hours". Tested at the server's instants."""
    page = harness(RENDER)
    drawn = page.evaluate(
        """spans => spans.map(([s]) => [render.duration(s), render.clockText(s, "own"),
             render.clockWarning(s, "own")])""",
        [list(span) for span in SPANS],
    )
    expected = [[said, shown, f"{said} left for this move."] for _, said, shown in SPANS]
    assert drawn == expected
    assert [selectors.duration(s) for s, _, _ in SPANS] == [said for _, said, _ in SPANS]


def test_a_visitor_at_a_full_lobby_is_told_why_there_is_no_seat_to_take(harness: Any) -> None:
    """Eight players seated: the visitor's lobby had no join form and no word of why (they read
    "Waiting for the host…"); only a forged post was told "The room is full". Said once: the line
    under it does not say again that they can watch without a seat, as if one were there to take."""
    page = harness(HARNESS)
    lobby = """([s, mine]) => render.lobbyHtml(tableView(s, { mine, csrf: "x", clientSeed: "s", invite: "i",
      joinUrl: "/j" }))"""

    def waiting(players: int) -> dict[str, Any]:
        seats = [
            {"seat": i, "player": i + 1, "name": f"P{i}", "kind": "human", "status": "active", "host": i == 0}
            for i in range(players)
        ]
        return {**state([]), "status": "lobby", "seats": seats, "turn": None, "cards": []}

    full = page.evaluate(lobby, [waiting(8), []])
    assert "join-form" not in full
    assert "The room is full (8 players): you can watch." in full
    # Not said to a player seated there, nor while a seat is free.
    assert "room is full" not in page.evaluate(lobby, [waiting(8), [3]])
    seven = page.evaluate(lobby, [waiting(7), []])
    assert "join-form" in seven and "room is full" not in seven
    # The visitor is told once that they can watch: the full room's line says it, the line under it
    # only that the host starts. Beside a seat to take, that line says watching needs none.
    assert "Without a seat you can watch" not in full
    assert "Waiting for the host to start the game." in full
    assert "Without a seat you can watch" in seven
    on_one_device = page.evaluate(lobby, [{**waiting(2), "local": True}, []])
    assert "you can watch it" in on_one_device and "Without a seat you can watch" not in on_one_device


def test_a_spectator_of_a_private_room_is_told_the_rematch_is_the_players_own(harness: Any) -> None:
    """The players went on to a rematch: its code is theirs alone, so a spectator is offered no link,
    and is told why the room's feed says a rematch is open while the panel offers nothing to follow."""
    page = harness(HARNESS)
    over = """([s, mine]) => {
      const view = overView(s, { mine });
      const box = document.createElement("div");
      box.innerHTML = render.overHtml(view);
      return [Boolean(box.querySelector("#rematch-link")), box.querySelector("#rematch-private")?.textContent ?? ""];
    }"""
    finished = {**over_state([("Ana", "active"), ("Ben", "active")], [150, 201], [1]), "rematch": True}
    linked, note = page.evaluate(over, [finished, []])
    assert not linked and "rematch of their own" in note
    assert page.evaluate(over, [finished, [0]]) == [True, ""]
    # Before any rematch, a spectator reads no word of one.
    assert page.evaluate(over, [{**finished, "rematch": None}, []]) == [False, ""]


def test_the_lobby_of_a_game_on_one_device_waits_for_nobody(harness: Any) -> None:
    """A pass-and-play game's rematch opens a lobby on the device: nobody else can take a seat there, so
    it says the game is ready to start on this device, not that it waits for players."""
    page = harness(HARNESS)
    heading = """([s, mine]) => {
      const box = document.createElement("div");
      box.innerHTML = render.lobbyHtml(tableView(s, { mine, csrf: "x", clientSeed: "s", invite: "i", joinUrl: "/j" }));
      return box.querySelector("#lobby-h").textContent;
    }"""
    seats = [
        {"seat": i, "player": i + 1, "name": name, "kind": "human", "status": "active", "host": i == 0}
        for i, name in enumerate(["Ana", "Ben"])
    ]
    lobby = {**state([]), "status": "lobby", "seats": seats, "turn": None, "cards": []}
    assert page.evaluate(heading, [{**lobby, "local": True}, [0, 1]]) == "Ready to start on this device"
    assert page.evaluate(heading, [{**lobby, "local": True}, []]) == "Ready to start on this device"
    assert page.evaluate(heading, [lobby, [0]]) == "Waiting for players"


def test_while_the_host_is_away_a_player_at_the_table_is_offered_the_tools_that_get_the_game_moving(
    harness: Any,
) -> None:
    """Ann hosts and has been away a while (room.js says so: ``hostAway``); Ben is at the table. He is
    offered Start in the lobby, and the away seats' buttons during play (Ann's own included), each
    with a word that he then hosts; a spectator, or Ben while Ann is here, is offered none of it."""
    page = harness(HARNESS)
    draw = """([s, mine, hostAway]) => {
      const presence = { seats: { 0: "away", 1: "connected", 2: "away" }, spectators: 0 };
      const view = tableView(s, { mine, presence, csrf: "x", clientSeed: "s", invite: "i", joinUrl: "/j", hostAway });
      return s.status === "lobby" ? render.lobbyHtml(view) : render.seatsHtml(view) + render.playHtml(view);
    }"""
    seats = [
        {"seat": i, "player": i + 1, "name": name, "kind": "human", "status": "active", "host": i == 0}
        for i, name in enumerate(["Ann", "Ben", "Cy"])
    ]
    lobby = {**state([]), "status": "lobby", "seats": seats, "turn": None, "cards": []}
    offered = page.evaluate(draw, [lobby, [1], True])
    assert 'id="start"' in offered and "The host is away: you may start the game" in offered
    for mine, away in (([1], False), ([], True)):
        assert 'id="start"' not in page.evaluate(draw, [lobby, mine, away])
    playing = {**state([]), "seats": seats}
    playing["turn"] = {**playing["turn"], "dice": [], "rolls_used": 0, "rolls_left": 3}
    playing["cards"] = [{**playing["cards"][0], "seat": i} for i in range(3)]
    offered = page.evaluate(draw, [playing, [1], True])
    # Ann's seat, whose turn it is, has them in the play card (and only there); Cy's, in the list.
    assert playing["turn"]["seat"] == 0
    assert 'id="play-replace-0"' in offered and 'id="play-remove-0"' in offered
    assert 'id="replace-0"' not in offered and 'id="remove-0"' not in offered
    assert 'id="replace-2"' in offered and 'id="remove-2"' in offered
    assert 'id="replace-1"' not in offered and "you may let a computer play" in offered
    # The play card's words name the seat its two buttons are for (the list's note covers any seat).
    tools_text = page.evaluate(
        """html => { const d = document.createElement('div'); d.innerHTML = html;
          return d.querySelector('#host-tools-text').textContent; }""",
        offered,
    )
    assert tools_text == (
        "The host is away: you may let a computer play Ann's seat or take them out, and you become the host."
    ), tools_text
    for mine, away in (([1], False), ([], True)):
        assert "replace-" not in page.evaluate(draw, [playing, mine, away])
    # At your own pace nobody need be online: no seat is taken over for it, by anyone.
    assert "replace-" not in page.evaluate(draw, [{**playing, "pace": "own"}, [1], True])
    # Ann paused, then went: Ben is told he may resume it (the room bar's button).
    paused = page.evaluate(draw, [{**playing, "paused": True}, [1], True])
    assert "The host is away: you may resume the game, and you become the host." in paused
    assert "play goes on when they resume it" in page.evaluate(draw, [{**playing, "paused": True}, [1], False])
    # A muted player is not handed the host's role (the server refuses): none of it is offered.
    muted = [{**seat, "muted": seat["seat"] == 1} for seat in seats]
    assert 'id="start"' not in page.evaluate(draw, [{**lobby, "seats": muted}, [1], True])
    assert "replace-" not in page.evaluate(draw, [{**playing, "seats": muted}, [1], True])


def test_a_pause_whose_host_left_is_said_to_the_others_as_the_new_hosts_to_resume(harness: Any) -> None:
    """Ann paused and left; Ben hosts. Cy and a spectator are not told the host paused the game (Ben
    did not): the banner and the hint name Ben, the host, as the one who resumes it. Ben reads that
    the resume is his; a pause of the host's own is still said as the host's."""
    page = harness(HARNESS)
    draw = """([s, mine]) => { const view = tableView(s, { mine });
      const d = document.createElement("div"); d.innerHTML = render.playHtml(view);
      return { banner: d.querySelector(".paused-banner")?.textContent ?? null,
               hint: d.querySelector(".turn-hint")?.textContent ?? "", play: d.textContent }; }"""
    seats = [
        {"seat": 0, "player": 1, "name": "Ann", "kind": "human", "status": "left", "host": False},
        {"seat": 1, "player": 2, "name": "Ben", "kind": "human", "status": "active", "host": True},
        {"seat": 2, "player": 3, "name": "Cy", "kind": "human", "status": "active", "host": False},
    ]
    paused = {**state([]), "seats": seats, "paused": True, "paused_by": 0}
    paused["turn"] = {**paused["turn"], "seat": 1, "dice": [], "rolls_used": 0, "rolls_left": 3}
    paused["cards"] = [{**paused["cards"][0], "seat": i} for i in range(3)]
    for mine in ([2], []):
        said = page.evaluate(draw, [paused, mine])
        assert said["banner"] == "Game paused: Ben (the host) can resume it", said
        assert "The game is paused: play goes on when Ben, the host, resumes it." in said["hint"], said
        assert "by the host" not in said["play"] and "they resume it" not in said["play"], said
    ben = page.evaluate(draw, [paused, [1]])
    assert ben["banner"] == "Game paused: you can resume it", ben
    own = page.evaluate(draw, [{**paused, "paused_by": 1}, [2]])
    assert own["banner"] == "Game paused by the host", own
    assert "The host paused the game: play goes on when they resume it." in own["hint"], own


def test_the_host_is_offered_a_computer_for_a_seat_that_left_only_while_its_card_has_an_open_box(
    harness: Any,
) -> None:
    """The server refuses to hand a seat that left with its card full to a computer (``card_full``):
    nothing of it is left to play. The host's page does not offer it there."""
    page = harness(HARNESS)
    draw = """s => render.seatsHtml(tableView(s))"""
    playing = state([])
    playing["seats"] = [
        {"seat": 0, "player": 1, "name": "Ann", "kind": "human", "status": "active", "host": True},
        {"seat": 1, "player": 2, "name": "Ben", "kind": "human", "status": "left", "host": False},
    ]
    boxes = [box["box"] for box in playing["ruleset"]["boxes"]]
    card = playing["cards"][0]
    full = {**card["columns"][0], "boxes": dict.fromkeys(boxes, 0)}
    open_box = {**full, "boxes": {**full["boxes"], boxes[-1]: None}}
    playing["cards"] = [card, {**card, "seat": 1, "columns": [open_box]}]
    assert 'id="replace-1"' in page.evaluate(draw, playing)
    playing["cards"][1] = {**card, "seat": 1, "columns": [full]}
    assert 'id="replace-1"' not in page.evaluate(draw, playing)


def test_a_seat_the_computer_plays_while_its_player_is_away_can_be_left_from_their_page(harness: Any) -> None:
    """On a shared device (nothing takes a seat back but its player's own button) Ben's seat is
    played by the computer: the device may still leave it, as the server allows."""
    page = harness(HARNESS)
    draw = """([s, mine]) => render.seatsHtml(tableView(s, { mine }))"""
    playing = state([])
    playing["seats"] = [
        {"seat": 0, "player": 1, "name": "Ann", "kind": "human", "status": "active", "host": True},
        {"seat": 1, "player": 2, "name": "Ben", "kind": "bot", "status": "active", "host": False, "away": True,
         "kept": True, "level": "casual"},
    ]  # fmt: skip
    playing["cards"] = [{**playing["cards"][0], "seat": i} for i in range(2)]
    seats = page.evaluate(draw, [playing, [0, 1]])
    assert 'id="leave-0"' in seats and 'id="leave-1"' in seats
    assert 'id="leave-1"' not in page.evaluate(draw, [playing, [0]])  # not this device's


@pytest.mark.parametrize(
    ("seconds", "pace", "said"),
    [
        (9.8, "live", "10 seconds left for this turn."),
        (1.2, "live", "2 seconds left for this turn."),  # the seconds begun, as the countdown's 0:02
        (64_800, "own", "18 hours left for this move."),
    ],
)
def test_the_turn_running_low_is_said_in_words(harness: Any, seconds: float, pace: str, said: str) -> None:
    page = harness(RENDER)
    assert page.evaluate("([s, p]) => render.clockWarning(s, p)", [seconds, pace]) == said


def test_the_name_in_the_turn_banner_and_the_line_under_it_is_a_run_of_its_own(page: Any) -> None:
    """A right-to-left name in "%(name)s's turn" or "Waiting for %(name)s…" takes the words beside
    it into its own run: each goes in a <bdi>, in the banner and in the line under it."""
    s = state([1, 2, 3, 4, 5])
    s["seats"] = [*s["seats"], {"seat": 1, "name": "שרה", "kind": "human", "status": "active", "host": False}]
    s["cards"] = [*s["cards"], {**s["cards"][0], "seat": 1}]
    s["turn"]["seat"] = 1
    page.evaluate("s => draw(s)", s)
    assert "<bdi>שרה</bdi>'s turn" in page.inner_html("#turn-h")
    assert "Waiting for <bdi>שרה</bdi>…" in page.inner_html("#turn-meta")
    s["turn"]["seat"] = 0
    page.evaluate("s => draw(s)", s)
    assert "Your turn, <bdi>Ana</bdi>" in page.inner_html("#turn-h")
    assert page.errors == []


# Each message a page's gettext gives is marked [...]: a line built of one message is one [...].
MARKING = "<script>window.django = { gettext: (text) => `[${text}]` };</script>\n"
MARKED = HARNESS.replace('<script type="module">', MARKING + '<script type="module">')
VIEW = """([s, extra]) => tableView(s, extra)"""


@pytest.mark.parametrize("columns", [1, 3])
@pytest.mark.parametrize("bonus", [0, 100])
def test_a_box_scored_and_the_coachs_choice_to_score_are_each_one_sentence_to_translate(
    harness: Any, columns: int, bonus: int
) -> None:
    """Another language puts the column and the Yahtzee bonus where its own order says them: the
    line said when a box is scored and the coach's choice to score a box are each one message
    with placeholders, for each case, not a sentence with pieces put after it."""
    page = harness(MARKED)
    s = state([6, 6, 6, 6, 6], columns=columns)
    s["seats"][0]["name"] = "שרה 2"
    scored = {"points": 30, "box": "sixes", "column": columns - 1, "bonus": bonus}
    said = page.evaluate(
        f"""([s, frame, option]) => {{
          const view = ({VIEW})([s, {{}}]);
          return [render.scoredText(view, frame, render.isolated(view.seatName(0))), render.optionText(view, option)];
        }}""",
        [s, scored, {"kind": "score", **scored}],
    )
    for line in said:
        assert re.fullmatch(r"\[[^][]*\]", line), line
        assert "30 in Sixes" in line and (f"{bonus} Yahtzee bonus" in line) == bool(bonus), line
        assert ("×3" in line) == (columns > 1), line
    assert said[0].startswith("[\u2068שרה 2\u2069 scored 30 in Sixes") and said[0].endswith(".]"), said


def test_every_name_a_table_line_puts_in_a_sentence_is_a_run_of_its_own() -> None:
    """A right-to-left name, or one that ends in a number, takes the words and figures beside it
    into its run ("שרה 2 scored 30" read as if the 30 were hers): every name the live table puts in
    a sentence it says or shows (the feed: joined, left, scored, the new host, a chat muted; the
    live region) is isolated, between FSI and PDI (drawn as a <bdi> in the feed)."""
    source = (Path(__file__).resolve().parents[2] / "static/js/room.js").read_text()
    isolated = {"who", "person", "named[0]", "list(named)", "shown[0]", 'shown.join(" & ")'}
    values = re.findall(r"\{ (names?)(?:: ([^,}]*))?", source)
    assert len(values) > 20
    for key, value in values:
        value = value.strip() or key  # { name }: a name of no telling where it came from
        assert value in isolated or value.startswith("render.isolated("), f"{key}: {value} is not isolated"
    # What those names are: each one made a run of its own where it is taken.
    for variable in ("who", "person"):
        made = re.findall(rf"const {variable} = (.*);", source)
        assert made and all(value.startswith("render.isolated(") for value in made), (variable, made)
    assert "const shown = names.map(render.isolated)" in source and "overWith(names)" not in source


def test_the_feeds_short_scored_line_is_one_message_for_each_case(harness: Any) -> None:
    """The feed's short line ("Ann scored 30 in Sixes ×3 +100") is one message with placeholders
    for each case, so a language puts the column and the bonus where its own order says them;
    the name in it is a run of its own."""
    page = harness(MARKED)
    for columns in (1, 3):
        for bonus in (0, 100):
            s = state([6, 6, 6, 6, 6], columns=columns)
            s["seats"][0]["name"] = "שרה 2"
            frame = {"points": 30, "box": "sixes", "column": columns - 1, "bonus": bonus}
            line = page.evaluate(
                f"""([s, frame]) => {{
                  const view = ({VIEW})([s, {{}}]);
                  return render.scoredLine(view, frame, render.isolated(view.seatName(0)));
                }}""",
                [s, frame],
            )
            assert re.fullmatch(r"\[[^][]*\]", line), line
            assert line.startswith("[\u2068שרה 2\u2069 scored 30 in Sixes"), line
            assert ("×3" in line) == (columns > 1) and ("+100" in line) == bool(bonus), line


# gettext's and ngettext's messages marked alike.
MARKING_PLURALS = (
    "<script>window.django = { gettext: (text) => `[${text}]`,"
    " ngettext: (one, many, n) => `[${n === 1 ? one : many}]` };</script>\n"
)
MARKED_PLURALS = HARNESS.replace('<script type="module">', MARKING_PLURALS + '<script type="module">')


def test_a_score_buttons_label_is_whole_sentences_each_one_message(harness: Any) -> None:
    """A screen reader reads an open box's button: what it scores, in which column, with which
    bonus, a joker, the coach's pick. Each is a whole sentence of one message (a language puts
    the column and the bonus where it says them, and counts the points in its plural forms), not
    a sentence with pieces put after it; a forbidden box and another player's box the same."""
    page = harness(MARKED_PLURALS)
    sentence = r"\[[^][]*\.\]"
    for columns in (1, 3):
        s = state([6, 6, 6, 6, 6], columns=columns)
        s["options"] = [
            {"box": "sixes", "column": 0, "legal": True, "points": 30, "bonus": 100, "reason": "", "joker": False},
            {"box": "chance", "column": 0, "legal": True, "points": 30, "bonus": 100, "reason": "", "joker": True},
            {"box": "ones", "column": 0, "legal": True, "points": 1, "bonus": 0, "reason": "", "joker": False},
            {
                "box": "twos",
                "column": 0,
                "legal": False,
                "points": 0,
                "bonus": 0,
                "reason": "joker rule: five 6s must go in the open Sixes box",
                "joker": False,
            },
        ]
        hint = {"type": "hint", "version": 5, "seat": 0, "ready": True, "exact": True, "note": "", "options": []}
        hint["options"] = [{"kind": "score", "box": "chance", "column": 0, "points": 30, "bonus": 100, "ev": 1}]
        page.evaluate("([s, hint]) => draw(s, { hint })", [s, hint])
        labels = page.eval_on_selector_all(
            "#card .score-btn", "els => Object.fromEntries(els.map(e => [e.dataset.box, e.getAttribute('aria-label')]))"
        )
        assert len(labels) == 4, labels
        for label in labels.values():
            assert re.fullmatch(rf"{sentence}( {sentence})*", label), label
            assert ("×" in label) == (columns > 1), label
        column = " in column ×1" if columns > 1 else ""
        sixes, chance, ones, twos = (labels[box] for box in ("sixes", "chance", "ones", "twos"))
        assert sixes == f"[Score Sixes{column} for 30 points plus a 100 Yahtzee bonus.]"
        assert chance.startswith(f"[Score Chance{column} for 30 points plus a 100 Yahtzee bonus.] ["), chance
        assert "joker" in chance and "coach" in chance, chance
        assert ones == f"[Score Ones{column} for 1 point.]"
        assert twos.startswith(f"[Twos{column}: not allowed.] [Joker rule"), twos
        # Another player's page shows what the box would score, in one message too.
        page.evaluate("([s, hint]) => draw(s, { mine: [1] })", [s, hint])
        previews = page.eval_on_selector_all(
            "#card td span[aria-label]", "els => els.map(e => e.getAttribute('aria-label'))"
        )
        assert f"[Sixes{column} would score 30]" in previews, previews
        caption = page.inner_text("#card caption")
        assert re.fullmatch(r"\[[^][]*\]( \([^()]*\))?", caption), caption
    assert page.errors == []


def test_each_name_the_coachs_review_puts_in_a_sentence_is_a_run_of_its_own(harness: Any) -> None:
    """A right-to-left name, or one ending in a number, takes the figures beside it into its run
    ("שרה 2 lost 17.9 points" read as if the 2 were part of the figures): each review line's name
    is in a <bdi>, and the list's label names it between FSI and PDI."""
    page = harness(HARNESS)
    names = ["Ana", "שרה 2", "Bo 7"]
    finished = over_state([(name, "active") for name in names], [230, 180, 150], [0])
    finished["replay_url"] = "/r/abcd2345ef/replay"
    review = review_of(
        finished,
        [
            review_seat(0, "Ana", "human", []),
            review_seat(1, "שרה 2", "human", [costly_choice(14, 17.9)]),
            review_seat(2, "Bo 7", "human", [], 4.2),
        ],
    )
    html = page.evaluate(REVIEW_HTML, [finished, review])
    assert (
        "<bdi>שרה 2</bdi>'s choices cost about 17.9 points against the coach's play; 1 of them was costly." in html
    ), html
    assert "<bdi>Bo 7</bdi>'s choices cost about 4.2 points against the coach's play, a little at a time" in html, html
    assert 'aria-label="\u2068שרה 2\u2069\'s costliest choices"' in html.replace("&#39;", "'"), html
    assert page.errors == []


@pytest.mark.parametrize(
    ("held", "keeps", "colours", "said"),
    [
        (True, False, None, "[Die 1: one, held]"),
        (False, True, None, "[Die 1: one, the coach would keep it]"),
        (True, True, None, "[Die 1: one, held, the coach would keep it]"),
        (False, False, None, "[Die 1: one]"),
        (True, False, COLOURS, "[Die 1: one, red, held]"),
        (True, True, COLOURS, "[Die 1: one, red, held, the coach would keep it]"),
    ],
)
def test_a_dies_label_is_one_sentence_for_each_case(
    harness: Any, held: bool, keeps: bool, colours: list[str] | None, said: str
) -> None:
    """A die's label is one message for each case (held, the coach's pick, its colour), so a language
    says them in its own order, not a sentence with ", held" and ", the coach would keep it" put after it."""
    page = harness(MARKED)
    page.evaluate("s => draw(s)", state([1, 2, 3, 4, 5], colours))
    html = page.evaluate(
        "([held, keeps, colour]) => "
        "render.dieHtml({ rolling: new Set(), reducedMotion: true }, 1, 0, held, true, colour, keeps)",
        [held, keeps, colours[0] if colours else None],
    )
    label = re.search(r'aria-label="([^"]*)"', html)
    assert label is not None and label.group(1) == said
    if held and not keeps:  # as the table draws a held die
        page.evaluate("s => draw(s, { held: [0] })", state([1, 2, 3, 4, 5], colours))
        assert page.get_attribute("#die-0", "aria-label") == said


# Each seat's pill in the Players list drawn with every seat's total at ``total``: its width.
SEAT_PILL_WIDTHS = """([s, total]) => {
  const at = { ...s, cards: s.cards.map((card) => ({ ...card, total })) };
  const view = tableView(at, { mine: [2] });
  const box = document.getElementById("card");
  box.innerHTML = render.seatsHtml(view);
  return [...box.querySelectorAll(".seat")].map((seat) => seat.getBoundingClientRect().width);
}"""


def ann_bob_and_cleo() -> dict[str, Any]:
    """A room's state with three people at the table, Ann the host."""
    s = state([])
    s["seats"] = [
        {"seat": i, "player": i + 1, "name": name, "kind": "human", "status": "active", "host": i == 0}
        for i, name in enumerate(["Ann", "Bob", "Cleo"])
    ]
    s["cards"] = [{**s["cards"][0], "seat": i} for i in range(3)]
    return s


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_a_seats_pill_keeps_its_width_as_its_total_grows_to_four_figures(page: Any, size: tuple[int, int]) -> None:
    """The Players list's pills flow in rows: a pill that widened as its total went from 0 to 85,
    or to 346, would move the pill after it to a new row, and the list grow a row's height (49 px
    on a desktop) between two turns, pushing the feed and the chat below it down. A total takes
    the room of four figures from the start."""
    page.set_viewport_size({"width": size[0], "height": size[1]})
    s = ann_bob_and_cleo()
    widths = {total: page.evaluate(SEAT_PILL_WIDTHS, [s, total]) for total in (0, 7, 85, 346, 1111, 9999)}
    assert len({tuple(w) for w in widths.values()}) == 1, widths
    assert page.errors == []


# Each seat's pill drawn with the seats' presence and reactions given: its width and its height.
SEAT_PILLS = """([s, presence, reactions]) => {
  const view = tableView(s, { mine: [2], presence: { seats: presence, spectators: 0 }, reactions });
  const box = document.getElementById("card");
  box.innerHTML = render.seatsHtml(view);
  return [...box.querySelectorAll(".seat")].map((seat) => [seat.getBoundingClientRect().width,
    seat.getBoundingClientRect().height]);
}"""


def presence_words(language: str) -> str:
    """A page's gettext that says the presence words as ``language`` does (locale/'s djangojs catalog)."""
    catalog = gettext_catalogs.translation(
        "djangojs", localedir=Path(__file__).resolve().parents[2] / "locale", languages=[language], fallback=True
    )
    words = {word: catalog.gettext(word) for word in ("online", "away")}
    return HARNESS.replace(
        '<script type="module">',
        f"<script>const words = {json.dumps(words)};"
        ' window.django = { gettext: (text) => words[text] ?? text };</script>\n<script type="module">',
    )


@pytest.mark.parametrize("language", ["en", "da", "de", "es", "fr", "sv"])
@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_a_seats_pill_keeps_its_size_when_its_player_reacts_or_goes_away(
    harness: Any, language: str, size: tuple[int, int]
) -> None:
    """A reaction shows in the seat's pill for a few seconds, and "online" becomes "away" (in German
    "abwesend", longer than "online"): were the pill to widen or narrow, the pills after it could
    take another row and push the feed and the chat down. A reaction floats over the pill's edge,
    and the presence word takes the room of the longer of the two from the start."""
    page = harness(presence_words(language))
    page.set_viewport_size({"width": size[0], "height": size[1]})
    s = ann_bob_and_cleo()
    online = {"0": "online", "1": "online", "2": "online"}
    still = page.evaluate(SEAT_PILLS, [s, online, {}])
    reacting = page.evaluate(SEAT_PILLS, [s, online, {"1": "🎉"}])
    away = page.evaluate(SEAT_PILLS, [s, {**online, "1": "away"}, {}])
    assert reacting == still and away == still, (still, reacting, away)
    assert page.errors == []


# The height of each row of the card, and of the card's tables, drawn with ``filled`` boxes scored.
CARD_ROWS = """([s, filled]) => {
  const at = { ...s, cards: s.cards.map((card) => ({ ...card, columns: card.columns.map((column) => ({
    ...column, boxes: Object.fromEntries(filled.map((box) => [box, 12])) })) })) };
  draw(at);
  const rows = [...document.querySelectorAll("#card tbody tr")].map((tr) => [tr.dataset.box ?? tr.dataset.sum ?? "",
    tr.getBoundingClientRect().height]);
  return { rows, tables: [...document.querySelectorAll("#card table")].map((t) => t.getBoundingClientRect().height) };
}"""


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
@pytest.mark.parametrize("name", ["official", "triple", "painted"])
def test_a_box_scored_is_no_taller_than_an_empty_one(page: Any, name: str, size: tuple[int, int]) -> None:
    """A score fills a box of the row: in Painted's panes on a desktop (four seats) a box's points
    and their padding 0.19 px taller than the row's height would grow the row by that at its
    first score, and the card by a pixel every few scores. Every row keeps its height as boxes
    are scored, in both colour schemes."""
    page.set_viewport_size({"width": size[0], "height": size[1]})
    info = ruleset_info(name)
    s = state([1, 2, 3, 4, 5], COLOURS if name == "painted" else None, columns=info["columns"])
    s["ruleset"] = info
    s["seats"] = [
        {"seat": i, "player": i + 1, "name": who, "kind": "human", "status": "active", "host": i == 0}
        for i, who in enumerate(["Ann", "Bob", "Cleo", "Wolfgangwilhelmwinterbot"])
    ]
    s["cards"] = [{**s["cards"][0], "seat": i} for i in range(4)]
    boxes = [box["box"] for box in info["boxes"]]
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        empty = page.evaluate(CARD_ROWS, [s, []])
        for box in boxes:
            one = page.evaluate(CARD_ROWS, [s, [box]])
            assert one["rows"] == empty["rows"], (
                scheme,
                box,
                [(a, b) for a, b in zip(empty["rows"], one["rows"], strict=True) if a != b],
            )
        assert page.evaluate(CARD_ROWS, [s, boxes])["tables"] == empty["tables"], scheme
    assert page.errors == []


def test_the_feed_of_a_page_just_loaded_names_no_one_a_computer_plays_for(harness: Any) -> None:
    """After a reload the feed says who is at the table: a computer playing the seat of a player
    who is away (two timeouts) or who left is no person at the table, though the seat keeps their
    name; a computer that sat down as one is, and so is this page's own seat."""
    page = harness(HARNESS)
    playing = {
        **state([2, 3, 4, 5, 6]),
        "seats": [
            {"seat": 0, "name": "Ana", "kind": "human", "status": "active", "host": True},
            {"seat": 1, "name": "Bo", "kind": "bot", "status": "active", "away": True, "kept": True},
            {"seat": 2, "name": "Cy", "kind": "bot", "status": "active", "gave_up": True},
            {"seat": 3, "name": "Rolly", "kind": "bot", "status": "active", "level": "good"},
            {"seat": 4, "name": "Dee", "kind": "human", "status": "active"},
            {"seat": 5, "name": "Eve", "kind": "human", "status": "active"},
        ],
    }
    feed = """([s, mine]) => {
      const presence = { seats: { "0": "away", "4": "away", "5": "online" }, spectators: 1 };
      const view = tableView(s, { mine, presence });
      const box = document.createElement("div");
      box.innerHTML = render.feedHtml(view);
      return box.querySelector(".feed-here")?.textContent ?? null;
    }"""
    assert page.evaluate(feed, [playing, [0]]) == "Ana, Rolly, and Eve are here."
    # A spectator's page: its own seat is none, and Ana's away.
    assert page.evaluate(feed, [playing, []]) == "Rolly and Eve are here."
    # Bo's own page, his seat played by the computer until he takes it back: he is at the table.
    assert page.evaluate(feed, [playing, [1]]) == "Bo, Rolly, and Eve are here."


def test_the_shared_result_marks_the_seats_ranked_behind_for_leaving_or_being_away_as_the_list_does(
    harness: Any,
) -> None:
    """Bo left with the best total and ranks last: the words a player shares say why, as the
    game-over list does ("left"), or a reader would take the order for a mistake; so for Cy, whose
    seat a computer finished while she was away."""
    page = harness(HARNESS)
    finished = over_state([("Ana", "active"), ("Bo", "left"), ("Cy", "active")], [180, 201, 150], [0])
    finished["seats"][2] = {**finished["seats"][2], "kind": "bot", "away": True, "kept": True}
    text = page.evaluate(
        """s => render.resultText(tableView(s))""",
        finished,
    )
    assert text == "A game of Yahtzee (official): 1. Ana 180, 2. Cy 150 (away), 3. Bo 201 (left)"


def test_a_seat_the_host_took_out_reads_taken_out_on_the_game_over_list_and_in_the_shared_result(
    harness: Any,
) -> None:
    """The host took Bo out and Dee left on her own: both rank after those who stayed, and the
    list and the words a player shares say which is which (the state's ``taken_out``), not "left"
    for both; so for a seat taken out that a computer then played on (``gave_up``)."""
    page = harness(HARNESS)
    finished = over_state(
        [("Ana", "active"), ("Bo", "left"), ("Cy", "active"), ("Dee", "left")], [180, 201, 150, 90], [0]
    )
    finished["seats"][1] = {**finished["seats"][1], "taken_out": True}
    said = page.evaluate(
        """s => {
      const view = overView(s);
      const box = document.createElement("div");
      box.innerHTML = render.overHtml(view);
      const rows = [...box.querySelectorAll(".ranking li")].map((li) => li.textContent.replace(/\\s+/g, " ").trim());
      return { rows, share: render.resultText(view) };
    }""",
        finished,
    )
    assert said["share"] == (
        "A game of Yahtzee (official): 1. Ana 180, 2. Cy 150, 3. Bo 201 (taken out), 4. Dee 90 (left)"
    )
    assert said["rows"] == ["1. Ana you winner 180", "2. Cy 150", "3. Bo taken out 201", "4. Dee left 90"]
    # A computer the host let play Bo's seat on after taking him out: still taken out.
    finished["seats"][1] = {**finished["seats"][1], "status": "active", "kind": "bot", "gave_up": True}
    share = page.evaluate(
        """s => render.resultText(tableView(s))""",
        finished,
    )
    assert share.endswith("3. Bo 201 (taken out), 4. Dee 90 (left)")


OVER_FOR = """([s, mine, left, review]) => {
  const view = overView(s, { mine, left, review });
  const box = document.createElement("div");
  box.innerHTML = render.overHtml(view);
  const said = (el) => (el?.textContent ?? "").replace(/\\s+/g, " ").trim();
  return { headline: said(box.querySelector("#over-h")), line: said(box.querySelector(".winner-line")),
    review: said(box.querySelector("#review")), share: render.resultText(view), won: render.yourResult(view) };
}"""


def test_a_player_whose_seat_a_computer_finished_reads_you_win_when_they_come_back(harness: Any) -> None:
    """The seat's result is its player's (``Room.seats_kept_for``, ``left_controller``): Bo, away while
    a computer finished his seat (the server counts it his, ``mine``), or gone while one played it on
    (his browser's ``left`` seats), reads "You win!" over the game, and his own line in the coach's
    review, as he would had he played it out. The share text is for others: it names everyone."""
    page = harness(HARNESS)
    # Everyone else left too: the seat a computer finished ranks first (Room.ranks).
    finished = over_state([("Ana", "left"), ("Bo", "active"), ("Cy", "left")], [180, 201, 150], [1])
    finished["seats"][1] = {**finished["seats"][1], "kind": "bot", "kept": True}
    review = review_of(finished, [review_seat(i, n, "human", [], 4.2) for i, n in enumerate(["Ana", "Bo", "Cy"])])
    away = page.evaluate(OVER_FOR, [finished, [1], [], review])
    assert away["headline"] == "You win!" and away["won"] is True, away
    assert "Your choices cost about 4.2 points" in away["review"], away["review"]
    assert "Bo's choices" not in away["review"], away["review"]
    assert "You" not in away["share"] and "1. Bo 201" in away["share"], away["share"]
    gave_up = {**finished["seats"][1], "gave_up": True, "kept": False}
    gone = {**finished, "seats": [finished["seats"][0], gave_up, finished["seats"][2]]}
    left = page.evaluate(OVER_FOR, [gone, [], [1], review])
    assert left["headline"] == "You win!" and "Your choices cost about 4.2 points" in left["review"], left
    # A tie: "You share the win!"; a spectator, and Ana (who left), read names.
    tie = {**finished, "winners": [0, 1]}
    assert page.evaluate(OVER_FOR, [tie, [1], [], review])["headline"] == "You share the win!"
    assert page.evaluate(OVER_FOR, [finished, [], [], review])["headline"] == "Game over"
    ana = page.evaluate(OVER_FOR, [finished, [], [0], review])
    assert ana["headline"] == "Game over" and ana["line"] == "Bo wins!" and ana["won"] is False


def test_a_dropped_connection_tells_the_player_to_move_that_their_turns_clock_runs_on(page: Any) -> None:
    """The server's turn clock does not stop while a page reconnects: Roll says the page is
    reconnecting (not that the game is paused), and the player whose live turn it is reads that
    their clock keeps running; at your own pace, or in another's turn, the page only waits."""
    said = """([s, connection, mine]) => { const view = tableView(s, { mine, connection });
      const d = document.createElement("div"); d.innerHTML = render.playHtml(view);
      return { roll: d.querySelector("#roll")?.textContent.trim() ?? null,
               hint: d.querySelector(".turn-hint")?.textContent ?? "" }; }"""
    clock = {"seconds": 30, "deadline": None, "left": 12.0}
    live = {**state([3, 3, 4, 5, 6]), "clock": {**clock, "pace": "live"}, "pace": "live"}
    mine = page.evaluate(said, [live, "reconnecting", [0]])
    assert mine["roll"] == "Reconnecting…", mine
    assert "The connection dropped: your turn's clock keeps running while it comes back." in mine["hint"], mine
    own = {**live, "clock": {**clock, "pace": "own"}, "pace": "own"}
    for room, seats in ((live, []), (own, [0]), (state([3]), [0])):
        other = page.evaluate(said, [room, "reconnecting", seats])
        assert "The connection dropped: play resumes when it is back." in other["hint"], other
    # A page whose first socket is on its way (room.js: "connecting" only until one was open) had
    # no connection to drop.
    first = page.evaluate(said, [live, "connecting", [0]])
    assert first["roll"] == "Connecting…" and "dropped" not in first["hint"], first
    assert "clock keeps running" not in page.evaluate(said, [live, "connected", [0]])["hint"]

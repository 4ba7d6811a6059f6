"""The table's columns, names and panels at the sizes players use: a desktop, a phone held upright
and a large phone held sideways (which gets the desktop's layout), in every rule set."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import (
    LETTERS_CUT,
    act,
    caught_up,
    create_online,
    in_each_scheme,
    local_room,
    score_best,
    serious_violations,
    shot,
    wait_version,
    with_axe,
)
from tests.e2e.test_accounts import sign_up, username
from tests.e2e.test_table_layout import code_of, reload, set_rules

pytestmark = pytest.mark.browser

SIX = ["Alexandra", "Benedict", "Cleopatra", "Dominique", "Evangeline", "Frederick"]
ONE_COLUMN = ["official", "free_joker", "yeti", "yatzy", "painted"]

# Each seat's name in its column's head that shows less than all of its letters (LETTERS_CUT).
CUT_NAMES = (
    """() => [...document.querySelectorAll('#card .seat-head-name')]
  .flatMap(e => { const cut = """
    + LETTERS_CUT
    + """(e); return cut ? [`${e.textContent.trim()} ${cut}`] : []; })"""
)

# Each seat's name cut in its column's head that is not a button showing it whole.
CUT_UNMARKED = (
    """() => [...document.querySelectorAll('#card .seat-head-name')]
  .filter(e => e.getAttribute('role') !== 'button')
  .flatMap(e => { const cut = """
    + LETTERS_CUT
    + """(e); return cut ? [`${e.textContent.trim()} ${cut}`] : []; })"""
)

# Each of the card's panes that needs a sideways scroll to show its last columns.
SCROLLING = """() => [...document.querySelectorAll('#card .scorecard-wrap')]
  .filter(w => w.scrollWidth > w.clientWidth + 1).map(w => `${w.scrollWidth} in ${w.clientWidth}`)"""


def test_on_a_desktop_painteds_panes_show_three_players_names_whole(live_site: LiveSite, new_page: Any) -> None:
    """The panes' box names' column was as wide as a one-pane card's: the seats beside it cut
    "Alexandra" to "Alexa…" (and the pane scrolled sideways) though the names need less."""
    page = new_page(1280, 800)
    local_room(page, live_site, SIX[:3], ruleset="painted")
    reload(page)
    assert page.locator("#card .scorecard.in-panes").count() == 2
    assert page.evaluate(CUT_NAMES) == []
    assert page.evaluate(SCROLLING) == []
    # The box names stay whole too, and the card stays beside the dice.
    cut_rows = page.evaluate(
        """[...document.querySelectorAll('#card th[scope=row]')]
            .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent.trim())"""
    )
    assert cut_rows == []
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    for scheme in in_each_scheme(page):
        shot(page, f"painted-3-names-1280-{scheme}")
        assert serious_violations(page, scheme) == [], scheme
    assert page.errors == []


def test_on_a_desktop_painteds_panes_show_three_ten_letter_names_whole(live_site: LiveSite, new_page: Any) -> None:
    """Three seats' heads in Painted's panes cut "Annemarie" to "Annema…" and "Maximilian" to
    "Maximili…" at 1280 x 800, with room to spare in the card's padding and between its panes, where
    the one-pane rule sets show them whole. A name a fraction of a pixel too wide ("Evangeline" in a
    column a little narrower) shows an ellipsis too: CUT_NAMES measures the letters, not whole pixels."""
    page = new_page(1280, 800)
    local_room(page, live_site, ["Annemarie", "Maximilian", "Evangeline"], ruleset="painted")
    reload(page)
    assert page.locator("#card .scorecard.in-panes").count() == 2
    assert page.evaluate(CUT_NAMES) == []
    assert page.evaluate(SCROLLING) == []
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    for scheme in in_each_scheme(page):
        shot(page, f"painted-3-long-names-1280-{scheme}")
    assert page.errors == []


def last_column_outside(page: Any) -> list[str]:
    """Each pane's last score cell (its last seat's, in its last row) not wholly inside its pane and the screen."""
    return list(
        page.evaluate(
            """[...document.querySelectorAll('#card .scorecard-wrap')].flatMap(w => {
                const box = w.getBoundingClientRect();
                const cell = [...w.querySelectorAll('tbody td')].at(-1);
                const r = cell.getBoundingClientRect();
                const inside = r.left >= box.left - 1 && r.right <= box.right + 1 && r.right <= innerWidth
                    && r.top >= box.top - 1 && r.bottom <= box.bottom + 1 && r.height > 0;
                return inside ? [] : [`${cell.textContent.trim()} ${JSON.stringify(r)} in ${JSON.stringify(box)}`];
            })"""
        )
    )


CUT_CELLS = """[...document.querySelectorAll('#card td')].filter(e => e.scrollWidth > e.clientWidth + 1)
  .map(e => e.textContent.trim())"""


def upper_bonus_for_everyone(rules: dict[str, Any]) -> None:
    for card in rules["cards"]:
        card["columns"][0] = [["sixes", 30], ["fives", 25], ["fours", 20], ["threes", 15], ["chance", 30]]


@pytest.mark.parametrize("ruleset", ONE_COLUMN)
def test_a_large_phone_held_sideways_fits_six_players_columns(live_site: LiveSite, new_page: Any, ruleset: str) -> None:
    """932 x 430 gets the desktop's layout: six seats' last columns were past the card's edge,
    behind a sideways scroll, their names cut to two or three letters."""
    page = new_page(932, 430, has_touch=True, is_mobile=True)
    url = local_room(page, live_site, SIX, ruleset=ruleset)
    set_rules(live_site, code_of(url), upper_bonus_for_everyone)
    reload(page)
    assert page.evaluate(SCROLLING) == []
    # Each seat's upper sum shows whole with its goal and tick ("90/63 ✓").
    assert page.evaluate(CUT_CELLS) == []
    assert last_column_outside(page) == []
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    # Every name is readable: whole, on one line or two, or cut with an ellipsis and shown whole on
    # demand (a button), never broken inside a word.
    assert page.evaluate(CUT_UNMARKED) == []
    assert page.evaluate(WORDS_BROKEN_UNMARKED) == []
    for scheme in in_each_scheme(page):
        shot(page, f"six-{ruleset}-932-{scheme}")
        page.evaluate("document.getElementById('card').scrollIntoView({block: 'end'})")
        shot(page, f"six-{ruleset}-932-{scheme}-end")
        page.evaluate("scrollTo(0, 0)")
        assert serious_violations(page, scheme) == [], scheme
    assert page.errors == []


def test_a_large_phone_held_sideways_cuts_a_long_one_word_name_and_shows_it_whole_on_demand(
    live_site: LiveSite, new_page: Any
) -> None:
    """Six seats at 932 x 430 leave each column about 58 px: a name one word long wider than that
    ("Maximilianus") is cut with an ellipsis and shown whole on demand, as the desktop's and the
    upright phone's heads do, not broken inside the word over the head's lines ("Maximi" over
    "lianus"), which no one is told is cut and reads as two names."""
    page = new_page(932, 430, has_touch=True, is_mobile=True)
    local_room(page, live_site, ["Maximilianus", *SIX[1:]])
    reload(page)
    page.wait_for_function("document.querySelectorAll('#card th.seat-head').length >= 6")
    assert page.evaluate(WORDS_BROKEN_UNMARKED) == []
    name = page.locator("#card th.seat-head[data-seat='0'] .seat-head-name")
    assert name.get_attribute("role") == "button"
    assert name.evaluate("(e) => getComputedStyle(e).textOverflow") == "ellipsis"
    # The keyboard shows it whole, as a tap does.
    name.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('.reaction-float.whole-name[data-seat=\"0\"]')")
    assert page.evaluate(WHOLE_NAMES) == [["0", "Maximilianus"]]
    for scheme in in_each_scheme(page):
        shot(page, f"six-long-name-932-{scheme}")
    assert page.errors == []


def test_a_large_phone_held_sideways_marks_triples_sideways_scroll_and_names_the_seats_in_view(
    live_site: LiveSite, new_page: Any
) -> None:
    """Six Triple seats are eighteen columns: more than 932 px hold beside the dice. The card
    scrolls beside the focus seat's pinned columns, comes to rest on whole columns, says there is
    more past its edge, and names the seat whose columns are in view."""
    page = new_page(932, 430, has_touch=True, is_mobile=True)
    local_room(page, live_site, SIX, ruleset="triple")
    reload(page)
    wrap = "#card .scorecard-wrap"
    assert page.evaluate(SCROLLING) != []
    assert page.eval_on_selector(wrap, "w => getComputedStyle(w).scrollSnapType") == "x mandatory"
    # More to the right: the card's right edge fades out.
    assert page.eval_on_selector(wrap, "w => w.classList.contains('more-after')")
    assert page.eval_on_selector(wrap, "w => getComputedStyle(w).maskImage") != "none"
    # The next seat's name is whole over its columns in view, beside the pinned seat's.
    benedict = page.evaluate(
        """(() => {
            const heads = [...document.querySelectorAll('#card th.seat-head')];
            const name = heads.find(h => h.textContent.includes('Benedict')).querySelector('.seat-head-name');
            const box = document.querySelector('#card .scorecard-wrap').getBoundingClientRect();
            const r = name.getBoundingClientRect();
            return [name.scrollWidth <= name.clientWidth + 1, r.left >= box.left && r.right <= box.right];
        })()"""
    )
    assert benedict == [True, True]
    for scheme in in_each_scheme(page):
        shot(page, f"six-triple-932-{scheme}")
        assert serious_violations(page, scheme) == [], scheme
    # At its far end, nothing more: no fade.
    page.eval_on_selector(wrap, "w => { w.scrollLeft = w.scrollWidth; }")
    page.wait_for_function("!document.querySelector('#card .scorecard-wrap').classList.contains('more-after')")
    assert page.eval_on_selector(wrap, "w => getComputedStyle(w).maskImage") == "none"
    shot(page, "six-triple-932-end")
    assert page.errors == []


FEED_HEIGHT = "document.getElementById('feed').getBoundingClientRect().height"
# From the top of the feed's heading to the bottom of its last line of text (not of the box round it).
TEXT_HEIGHT = """(() => {
  const walk = document.createTreeWalker(document.getElementById('feed'), NodeFilter.SHOW_TEXT);
  const rects = [];
  while (walk.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(walk.currentNode);
    rects.push(...[...range.getClientRects()].filter(r => r.height > 0));
  }
  return Math.max(...rects.map(r => r.bottom)) - Math.min(...rects.map(r => r.top));
})()"""


CHAT_TOP = "document.getElementById('chat').getBoundingClientRect().top + scrollY"


@pytest.mark.parametrize("size", [(1280, 800), (932, 430)])
def test_on_a_desktop_the_chat_stays_put_when_the_first_line_comes_after_a_reload(
    live_site: LiveSite, new_page: Any, size: tuple[int, int]
) -> None:
    """The feed keeps its six lines' height while the game is played, its one line of the game's
    start after a reload too: the chat under it does not move when the next line arrives."""
    page = new_page(*size)
    local_room(page, live_site, ["Ann", "Bob"])
    reload(page)
    page.wait_for_selector("#feed .feed-list li")
    before = page.evaluate(CHAT_TOP)
    page.click("#roll")
    page.wait_for_selector("#card .score-btn")
    score_best(page, [page])
    page.wait_for_selector("#feed .feed-list li:nth-child(2)")
    assert page.evaluate(CHAT_TOP) == before
    for scheme in in_each_scheme(page):
        shot(page, f"feed-reload-{size[0]}-{scheme}", full_page=size[0] != 932)


def test_on_a_phone_the_tables_feed_is_no_taller_than_its_line_after_a_reload(
    live_site: LiveSite, new_page: Any
) -> None:
    """A phone's feed, under the card, is as tall as its lines: after a reload, the game's start."""
    page = new_page(390, 844, has_touch=True, is_mobile=True)
    local_room(page, live_site, ["Ann", "Bob"])
    reload(page)
    page.wait_for_selector("#feed .feed-list li")
    text = page.evaluate(TEXT_HEIGHT)
    assert page.evaluate(FEED_HEIGHT) < text + 40, (page.evaluate(FEED_HEIGHT), text)


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_a_finished_games_feed_is_no_taller_than_its_line(
    live_site: LiveSite, new_page: Any, size: tuple[int, int]
) -> None:
    code = live_site.finished_game(2, 1, "official")
    page = new_page(*size)
    page.goto(f"{live_site.url}/r/{code}/")
    page.wait_for_selector("#over:not([hidden])")
    page.wait_for_selector("#feed > :not(h2)")
    text = page.evaluate(TEXT_HEIGHT)
    assert page.evaluate(FEED_HEIGHT) < text + 40, (page.evaluate(FEED_HEIGHT), text)
    for scheme in in_each_scheme(page):
        shot(page, f"feed-over-{size[0]}-{scheme}", full_page=True)


# axe-core's WCAG 2.2 target-size rule alone (24 x 24 CSS px, or spaced as far apart), whatever its impact.
TARGET_SIZE = """async () => {
  const results = await axe.run(document, { runOnly: { type: 'rule', values: ['target-size'] } });
  return results.violations.flatMap(v => v.nodes.map(n => `${n.target} ${n.failureSummary}`));
}"""


def target_size_violations(page: Any) -> list[str]:
    # axe put in alone: a whole run of its serious rules first, whose result went unread, cost
    # the renderer more than the target-size rule itself.
    return list(with_axe(page).evaluate(TARGET_SIZE))


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_every_target_is_large_enough_or_spaced_apart(
    live_site: LiveSite, new_page: Any, size: tuple[int, int]
) -> None:
    """WCAG 2.2's target size: the box names' buttons (16 to 20 px tall) and the forms' radio buttons
    (13 px) pass as spaced apart, 24 px clear of any other target; the footer's links, as links in
    a line of text."""
    mobile = size[0] < 1000
    page = new_page(*size, has_touch=mobile, is_mobile=mobile)
    found: dict[str, list[str]] = {}

    def check(name: str) -> None:
        found[name] = target_size_violations(page)

    page.goto(live_site.url + "/")
    check("home")
    for ruleset in ("official", "painted", "triple"):
        local_room(page, live_site, ["Ann", "Bob"], ruleset=ruleset)
        reload(page)
        check(f"table {ruleset}")
        page.click("#roll")
        page.wait_for_selector("#card .score-btn")
        check(f"table {ruleset} rolled")
    code = live_site.finished_game(2, 1, "painted")
    page.goto(f"{live_site.url}/r/{code}/")
    page.wait_for_selector("#over:not([hidden])")
    check("over")
    page.goto(f"{live_site.url}/r/{code}/replay")
    page.wait_for_selector("#card .scorecard")
    check("replay")
    create_online(page, live_site, "Ann")
    check("lobby")
    for path in ("/accounts/login/", "/accounts/signup/", "/accounts/password/reset/", "/leaderboards", "/rules"):
        page.goto(live_site.url + path)
        check(path)
    name = username("tsz")
    sign_up(page, live_site, name)
    check("profile")
    page.goto(live_site.url + "/me/settings")
    check("settings")
    page.goto(live_site.url + "/games")
    check("games")
    assert {k: v for k, v in found.items() if v} == {}


def test_on_a_desktop_painteds_panes_go_one_under_the_other_for_six_players(live_site: LiveSite, new_page: Any) -> None:
    """Side by side, six seats' columns did not fit either pane, and each scrolled sideways."""
    page = new_page(1280, 800)
    local_room(page, live_site, SIX, ruleset="painted")
    reload(page)
    assert page.evaluate(SCROLLING) == []
    assert last_column_outside(page) == []
    assert page.evaluate(CUT_NAMES) == []
    for scheme in in_each_scheme(page):
        shot(page, f"six-painted-1280-{scheme}", full_page=True)


def looks_the_same_without_the_fade(page: Any, selector: str) -> bool:
    """Whether what ``selector`` finds on the card (the part of it inside its pane) looks the same
    with the pane's fade taken off: the fade covers none of it."""
    clip = page.evaluate(
        """(sel) => {
            const rects = [...document.querySelectorAll(sel)].flatMap(e => {
                const box = e.closest('.scorecard-wrap').getBoundingClientRect();
                const r = e.getBoundingClientRect();
                const left = Math.max(r.left, box.left), right = Math.min(r.right, box.right);
                return r.height && right > left ? [{left, right, top: r.top, bottom: r.bottom}] : [];
            });
            const left = Math.min(...rects.map(r => r.left)), top = Math.min(...rects.map(r => r.top));
            return {x: left + scrollX, y: top + scrollY, width: Math.max(...rects.map(r => r.right)) - left,
                    height: Math.max(...rects.map(r => r.bottom)) - top};
        }""",
        selector,
    )
    faded = page.screenshot(clip=clip, full_page=True, animations="disabled", caret="initial")
    page.add_style_tag(content=".scorecard-wrap { mask-image: none !important; }")
    whole = page.screenshot(clip=clip, full_page=True, animations="disabled", caret="initial")
    page.evaluate("document.head.lastElementChild.remove()")
    return bool(faded == whole)


@pytest.mark.parametrize(("ruleset", "seats"), [("official", 3), ("official", 5), ("triple", 3)])
def test_on_a_phone_the_fade_leaves_the_player_to_plays_boxes_whole(
    live_site: LiveSite, new_page: Any, ruleset: str, seats: int
) -> None:
    """The last seat to play has its columns at the card's right edge: pinned there (five seats,
    or Triple's three columns a seat), or the card's last column (three seats, a card two pixels
    too wide). The fade covered the right of them, the boxes to score and the ×3 column's goal."""
    page = new_page(360, 640, has_touch=True, is_mobile=True)
    local_room(page, live_site, SIX[:seats], ruleset=ruleset)
    reload(page)
    for _ in range(seats - 1):
        page.click("#roll")
        page.wait_for_selector("#card .score-btn")
        score_best(page, [page])
    page.click("#roll")
    page.wait_for_selector("#card .score-btn")
    page.eval_on_selector("#card", "e => e.scrollIntoView({block: 'start'})")
    wrap = "#card .scorecard-wrap"
    assert page.eval_on_selector(wrap, "w => w.classList.contains('more-after')")
    assert looks_the_same_without_the_fade(page, "#card .score-btn, #card th.pin")
    shot(page, f"fade-{ruleset}-{seats}-360")
    assert page.errors == []


def test_a_box_reached_by_the_keyboard_shows_whole_by_the_fade(live_site: LiveSite, new_page: Any) -> None:
    """Eight seats at 932 x 430 scroll sideways: the seventh seat's boxes sit at the card's edge,
    the eighth's columns past it. The fade covered the box the keyboard reached, and its ring."""
    page = new_page(932, 430, has_touch=True, is_mobile=True)
    local_room(page, live_site, SIX + ["Gwendolyn", "Hieronymus"])
    reload(page)
    for _ in range(6):
        page.click("#roll")
        page.wait_for_selector("#card .score-btn")
        score_best(page, [page])
    page.click("#roll")
    page.wait_for_selector("#card .score-btn")
    page.keyboard.press("Shift")  # the keyboard in use: focus shows its ring
    page.focus("#card .score-btn >> nth=-1")
    page.wait_for_function("document.activeElement.matches(':focus-visible')")
    page.wait_for_function("document.querySelector('#card .scorecard-wrap').classList.contains('more-after')")
    assert looks_the_same_without_the_fade(page, "#card .score-btn:focus-visible")
    shot(page, "fade-focus-932")
    assert page.errors == []


# Each seat's presence dot drawn in its head's corner that touches or covers its name's letters
# (as much of them as the name's box shows: a long name is cut with an ellipsis).
DOTS_ON_NAMES = """() => [...document.querySelectorAll('#card th.seat-head')].flatMap(head => {
  const dot = head.querySelector('.presence'), name = head.querySelector('.seat-head-name');
  const d = dot?.getBoundingClientRect();
  if (!d?.width) return [];
  const box = name.getBoundingClientRect();
  const text = [...name.childNodes].find(n => n.nodeType === 3 && n.textContent.trim());
  const range = document.createRange();
  range.selectNodeContents(text);
  return [...range.getClientRects()].flatMap(r => {
    const left = Math.max(r.left, box.left), right = Math.min(r.right, box.right);
    const top = Math.max(r.top, box.top), bottom = Math.min(r.bottom, box.bottom);
    const shown = right > left && bottom > top;
    const apart = right < d.left || left > d.right || bottom < d.top || top > d.bottom;
    return !shown || apart ? [] : [`${head.title}: dot ${Math.round(d.left)}-${Math.round(d.right)} x `
      + `${Math.round(d.top)}-${Math.round(d.bottom)} on letters ${Math.round(left)}-${Math.round(right)} x `
      + `${Math.round(top)}-${Math.round(bottom)}`];
  });
})"""

LONG = ["Alexandra", "Christopher Montgomery", "Bartholomew", "Wilhelmina Rosenkranz", "Evangeline", "Maximilian"]


@pytest.mark.parametrize(
    ("width", "height", "ruleset", "seats"),
    [(1280, 800, "painted", 3), (1280, 800, "painted", 6), (390, 844, "painted", 3), (932, 430, "official", 6)],
)
def test_a_seat_heads_presence_dot_keeps_clear_of_a_long_name(
    live_site: LiveSite, new_page: Any, width: int, height: int, ruleset: str, seats: int
) -> None:
    """Painted's panes (and six seats on a large phone held sideways) draw the presence dot in the
    head's corner: a long name ran under it, the dot touching its last letters."""
    phone = width < 1000
    page = new_page(width, height, has_touch=phone, is_mobile=phone)
    local_room(page, live_site, LONG[:seats], ruleset=ruleset)
    reload(page)
    page.wait_for_selector("#card th.seat-head .presence")
    assert page.evaluate(DOTS_ON_NAMES) == []
    for scheme in in_each_scheme(page):
        shot(page, f"dots-{ruleset}-{seats}-{width}-{scheme}")
    assert page.errors == []


# Each word of the name on one line: a word broken across lines reads as two names.
WORDS_WHOLE = """b => { const text = b.querySelector('.reaction-name').firstChild, range = document.createRange();
  let at = 0;
  return text.data.split(' ').every((word) => {
    range.setStart(text, at); range.setEnd(text, at + word.length); at += word.length + 1;
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size === 1;
  }); }"""


# The bubble a tap on seat ``seat``'s head shows, as drawn (its pop-up done), measured the moment it
# is: it shows for REACTION_SHOWN (2.5 s) only, which a loaded machine's round trips from the test
# to the page can outlast. window.wholeNameShown resolves to its words, whether it is on the screen
# and shows whole, and whether each word of the name is on one line.
WHOLE_NAME_SHOWN = (
    """(seat) => { const wordsWhole = """
    + WORDS_WHOLE
    + """;
window.wholeNameShown = new Promise((resolve, reject) => {
  setTimeout(() => reject(new Error(`no whole name shown over seat ${seat}`)), 10000);
  const watch = new MutationObserver(() => {
    const b = document.querySelector(`.reaction-float.whole-name[data-seat="${seat}"]`);
    if (!b) return;
    watch.disconnect();
    Promise.all(b.getAnimations().map((a) => a.finished)).then(() => {
      const r = b.getBoundingClientRect(), n = b.querySelector('.reaction-name');
      const onScreen = r.left >= 0 && r.right <= innerWidth;
      resolve({ text: b.innerText.trim(), onScreen, whole: onScreen && r.top >= 0 && n.scrollWidth <= n.clientWidth + 1,
        words: wordsWhole(b) });
    });
  });
  watch.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['class'] });
}); }"""
)


@pytest.mark.parametrize("ruleset", ["official", "painted"])
def test_on_a_phone_a_tap_on_a_cut_name_in_a_seats_head_shows_it_whole(
    live_site: LiveSite, new_page: Any, ruleset: str
) -> None:
    """Six seats' heads on a phone hold a few letters of a name ("Cleopa…", "Wi…"): its title shows
    only under a mouse, and the Players list is a screen below."""
    page = new_page(390, 844, has_touch=True, is_mobile=True)
    local_room(page, live_site, ["Ann", "Ben", "Cleopatra", "Wilhelmina Rosenkranz", "Eve", "Fay"], ruleset=ruleset)
    reload(page)
    for seat, name in [(2, "Cleopatra"), (3, "Wilhelmina Rosenkranz")]:
        head = page.locator(f"#card th.seat-head[data-seat='{seat}']").first
        head.scroll_into_view_if_needed()
        page.evaluate(WHOLE_NAME_SHOWN, seat)
        head.tap()
        shown = page.evaluate("window.wholeNameShown")
        assert shown["text"] == name, shown
        assert shown["whole"], shown
        shot(page, f"whole-name-{ruleset}-{seat}")
    assert page.errors == []


def test_a_long_name_shown_whole_at_the_screens_edge_keeps_its_words_whole(live_site: LiveSite, new_page: Any) -> None:
    """The seat at the card's right edge on a phone: its bubble, moved in to stay on the screen, is
    laid out as wide as the name needs, not squeezed into the strip between the head's middle and
    the screen's edge ("Wilhelm", "ina", "Rosenk", "ranz" on four lines)."""
    page = new_page(390, 844, has_touch=True, is_mobile=True)
    names = ["Ann", "Ben", "Cy", "Di", "Eve", "Wilhelmina Rosenkranz"]
    local_room(page, live_site, names)
    reload(page)
    head = page.locator("#card th.seat-head[data-seat='5']").first
    head.scroll_into_view_if_needed()
    page.evaluate(WHOLE_NAME_SHOWN, 5)
    head.tap()
    shown = page.evaluate("window.wholeNameShown")
    assert shown["text"] == names[5], shown
    assert shown["words"], shown
    assert shown["onScreen"], shown
    for scheme in in_each_scheme(page):
        page.evaluate(WHOLE_NAME_SHOWN, 5)
        head.tap()
        page.evaluate("window.wholeNameShown")
        shot(page, f"whole-name-edge-{scheme}")
    assert page.errors == []


# Each seat's name the keyboard reaches on the card (a tab stop): its seat, role and whole name.
NAME_STOPS = """() => [...document.querySelectorAll('#card .seat-head-name')].filter(e => e.tabIndex >= 0)
  .map(e => [e.closest('th.seat-head').dataset.seat, e.getAttribute('role'), e.textContent.trim()])"""
WHOLE_NAMES = """() => [...document.querySelectorAll('.reaction-float.whole-name')]
  .map(b => [b.dataset.seat, b.innerText.trim()])"""


def test_the_keyboard_shows_a_cut_name_whole_and_hides_it_with_escape(live_site: LiveSite, new_page: Any) -> None:
    """A cut name in a seat's head shows whole on a tap or a click, and from the keyboard too: it
    reaches each cut name (a button, named by the whole name), Enter or Space shows it whole until Escape or
    until the keyboard moves on. A name that fits is no tab stop, nor is any on a desktop's card."""
    names = ["Ann", "Ben", "Cleopatra", "Wilhelmina Rosenkranz", "Eve", "Fay"]
    page = new_page(390, 844)
    local_room(page, live_site, names)
    page.clock.install()  # the page's own timers: a tap's bubble goes after REACTION_SHOWN
    reload(page)
    page.wait_for_selector("#card .seat-head-name[role=button]")
    stops = page.evaluate(NAME_STOPS)
    cut = {name.split(" ")[0] for name in page.evaluate(CUT_NAMES)}
    assert {name.split(" ")[0] for _, _, name in stops} == cut and "Cleopatra" in cut and "Ann" not in cut, (
        stops,
        cut,
    )
    assert all(role == "button" for _, role, _ in stops), stops
    seat = next(seat for seat, _, name in stops if name == "Wilhelmina Rosenkranz")
    name = page.locator(f"#card th.seat-head[data-seat='{seat}'] .seat-head-name")
    name.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(f"document.querySelector('.reaction-float.whole-name[data-seat=\"{seat}\"]')")
    assert page.evaluate(WHOLE_NAMES) == [[seat, "Wilhelmina Rosenkranz"]]
    for scheme in in_each_scheme(page):
        shot(page, f"whole-name-keyboard-{scheme}")
        assert serious_violations(page, scheme) == [], scheme
    # It stays while the keyboard is on the name (a tap's goes after a moment), and Escape hides it.
    page.clock.run_for(5000)
    assert page.evaluate(WHOLE_NAMES) == [[seat, "Wilhelmina Rosenkranz"]]
    page.keyboard.press("Escape")
    page.wait_for_function("!document.querySelector('.reaction-float.whole-name')")
    assert page.evaluate("document.activeElement.closest('th.seat-head').dataset.seat") == seat
    # Space shows it too; Tab on to the next name takes it away.
    page.keyboard.press(" ")
    page.wait_for_function("document.querySelector('.reaction-float.whole-name')")
    page.keyboard.press("Tab")
    page.clock.run_for(100)
    page.wait_for_function("!document.querySelector('.reaction-float.whole-name')")
    assert page.errors == []

    desk = new_page(1280, 800)
    local_room(desk, live_site, [*names[:5], "Bartholomew"])
    reload(desk)
    # There every name fits its head's two lines but one word too wide for a line (its end left
    # out): the one stop among the names.
    cut = [name.rsplit(" ", 1)[0] for name in desk.evaluate(CUT_NAMES)]
    assert [name for _, _, name in desk.evaluate(NAME_STOPS)] == cut == ["Bartholomew"]
    assert desk.errors == []


# The width of a seat's name's letters in its head (its text's boxes, from the first's left to the
# last's right), in fractions of a pixel.
LETTERS_WIDTH = """(selector) => {
  const name = document.querySelector(selector), range = document.createRange();
  range.selectNodeContents(name);
  const r = [...range.getClientRects()].filter((r) => r.width > 0);
  return Math.max(...r.map((r) => r.right)) - Math.min(...r.map((r) => r.left));
}"""


def test_a_name_cut_by_less_than_a_pixel_is_a_button_showing_it_whole(live_site: LiveSite, new_page: Any) -> None:
    """A seat's name a fraction of a pixel wider than its head shows an ellipsis ("Rosenkra…") and
    was no button to show it whole: scrollWidth and clientWidth, whole pixels, rounded the cut away."""
    page = new_page(1280, 800)
    local_room(page, live_site, [*SIX[:5], "Rosenkranz"])
    reload(page)
    name = "#card th.seat-head[data-seat='5'] .seat-head-name"
    assert page.get_attribute(name, "role") is None  # whole at 1280
    # Its head made a third of a pixel narrower than its letters.
    letters = page.evaluate(LETTERS_WIDTH, name)
    page.add_style_tag(content=f"{name} {{ width: {letters - 0.3:.3f}px; }}")
    assert page.evaluate(f"(e => e.scrollWidth <= e.clientWidth + 1)(document.querySelector(`{name}`))")
    assert [cut.rsplit(" ", 1)[0] for cut in page.evaluate(CUT_NAMES)] == ["Rosenkranz"]
    # An ellipsis shows: the head looks other than with its letters clipped at its edge.
    box = page.locator(name).bounding_box()
    ellipsis = page.screenshot(clip=box)
    clipped = page.add_style_tag(content=f"{name} {{ text-overflow: clip; }}")
    assert page.screenshot(clip=box) != ellipsis
    clipped.evaluate("style => style.remove()")
    # The card drawn again (a roll) makes the cut name a button, which the keyboard reaches.
    before = int(page.get_attribute("#room", "data-version") or 0)
    page.click("#roll")
    wait_version([page], before)
    assert page.get_attribute(name, "role") == "button"
    assert page.evaluate(NAME_STOPS) == [["5", "button", "Rosenkranz"]]
    assert page.evaluate(CUT_UNMARKED) == []
    assert page.errors == []


# Each pair of bubbles over the card (a reaction's, a whole name's) that cover one another.
BUBBLES_STACKED = """() => {
  const bubbles = [...document.querySelectorAll('.reaction-float')];
  const laid = (b) => { const r = b.getBoundingClientRect();
    return { x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2, w: b.offsetWidth, h: b.offsetHeight }; };
  const over = [];
  bubbles.forEach((a, i) => bubbles.slice(i + 1).forEach((b) => {
    const p = laid(a), q = laid(b);
    if (Math.abs(p.x - q.x) < (p.w + q.w) / 2 && Math.abs(p.y - q.y) < (p.h + q.h) / 2)
      over.push(`${a.className} ${a.dataset.seat} / ${b.className} ${b.dataset.seat}`);
  }));
  return over;
}"""

# A reaction, then (as soon as it shows) a tap on the same seat's head; the bubbles then shown.
REACT_THEN_TAP = """async ([button]) => {
  const shown = new Promise((done) => new MutationObserver((_, watch) => {
    const b = document.querySelector('.reaction-float:not(.whole-name)');
    if (b) { watch.disconnect(); done(b.dataset.seat); }
  }).observe(document.body, { childList: true, subtree: true }));
  document.querySelector(button).click();
  const seat = await shown;
  document.querySelector(`#card th.seat-head[data-seat="${seat}"]`).click();
  return seat;
}"""


def test_a_reaction_and_a_whole_name_over_the_same_seat_do_not_stack(live_site: LiveSite, new_page: Any) -> None:
    """A player reacts and their name, cut in its head, is tapped to show whole: the two bubbles
    stacked on one another over the head. The newer takes the other's place, either way round."""
    names = ["Alexandra", "Benedict", "Cleopatra", "Dominique", "Evangeline", "Frederick"]
    page = new_page(390, 844, has_touch=True, is_mobile=True)
    local_room(page, live_site, names)
    reload(page)
    page.wait_for_function(f"({CUT_NAMES})().length > 0")
    # This device's reaction buttons (the play card's while a seat waits, else the chat's): the first shown.
    button = "#play-reactions button, #reactions button"
    page.wait_for_function(f"[...document.querySelectorAll('{button}')].some((b) => b.offsetParent)")
    page.evaluate(f"[...document.querySelectorAll('{button}')].find((b) => b.offsetParent).id = 'the-reaction'")
    seat = page.evaluate(REACT_THEN_TAP, ["#the-reaction"])
    assert page.evaluate(WHOLE_NAMES) == [[seat, names[int(seat)]]]
    assert page.evaluate(BUBBLES_STACKED) == []
    for scheme in in_each_scheme(page):
        shot(page, f"whole-name-over-reaction-{scheme}")
    # The other way round: the whole name shown, then a reaction of the same seat.
    page.wait_for_function("!document.querySelector('.reaction-float')")
    page.locator(f"#card th.seat-head[data-seat='{seat}']").first.tap()
    page.evaluate("document.querySelector('#the-reaction').click()")
    page.wait_for_selector(".reaction-float:not(.whole-name)")
    assert page.evaluate(BUBBLES_STACKED) == []
    assert page.errors == []


# Every reaction's bubble once it has popped up: on the screen, and which seat's.
REACTIONS_SHOWN = """async (count) => {
  const bubbles = () => [...document.querySelectorAll('.reaction-float:not(.whole-name)')];
  while (bubbles().length < count) await new Promise((r) => setTimeout(r, 20));
  await Promise.all(bubbles().flatMap((b) => b.getAnimations().map((a) => a.finished)));
  return bubbles().map((b) => { const r = b.getBoundingClientRect();
    return [b.dataset.seat, r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth]; });
}"""


def react_as(page: Any, seat: int, reaction: str) -> None:
    """Seat ``seat`` of this device's pass-and-play game reacts (its name picked beside the chat), by
    this device's reaction button shown (the play card's while a seat waits, else the chat's), the
    page left where it was scrolled."""
    page.evaluate(
        """([seat, label]) => {
          const picker = document.getElementById('chat-seat');
          picker.value = String(seat);
          picker.dispatchEvent(new Event('change', { bubbles: true }));
          [...document.querySelectorAll(`#play-reactions button, #reactions button`)]
            .find((b) => b.offsetParent && b.getAttribute('aria-label') === label).click();
        }""",
        [seat, f"React {reaction}"],
    )


@pytest.mark.parametrize("size", [(390, 844), (1280, 800)])
def test_two_reactions_shown_at_once_do_not_cover_one_another(
    live_site: LiveSite, new_page: Any, size: tuple[int, int]
) -> None:
    """Two neighbouring seats react within a moment: each bubble stood over its seat's head, and on
    a phone's narrow columns the two covered one another; at the top of the screen (the card out of
    sight) they were drawn on the very same spot. The newer moves clear of the other."""
    width, height = size
    names = ["Alexandra", "Benedict", "Cleopatra", "Dominique", "Evangeline", "Frederick"]
    page = new_page(width, height)
    local_room(page, live_site, names)
    page.clock.install()  # the bubbles stay until the page's clock is run on
    reload(page)
    page.locator("#card th.seat-head[data-seat='1']").first.scroll_into_view_if_needed()
    react_as(page, 1, "👏")
    react_as(page, 2, "😮")
    shown = page.evaluate(REACTIONS_SHOWN, 2)
    assert sorted(seat for seat, _ in shown) == ["1", "2"] and all(inside for _, inside in shown), shown
    assert page.evaluate(BUBBLES_STACKED) == []
    assert page.locator(".reaction-float.docked").count() == 0
    for scheme in in_each_scheme(page):
        shot(page, f"reactions-apart-{width}-{scheme}")
    page.clock.run_for(3000)
    page.wait_for_function("!document.querySelector('.reaction-float')")
    # The card out of sight: both at the top of the screen.
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_function("document.querySelector('#card th.seat-head').getBoundingClientRect().bottom < 0")
    react_as(page, 3, "👍")
    react_as(page, 4, "😂")
    shown = page.evaluate(REACTIONS_SHOWN, 2)
    assert all(inside for _, inside in shown), shown
    assert page.locator(".reaction-float.docked").count() == 2
    assert page.evaluate(BUBBLES_STACKED) == []
    for scheme in in_each_scheme(page):
        shot(page, f"reactions-apart-docked-{width}-{scheme}")
    assert page.errors == []


# The seat whose cut name holds the keyboard (None: no name does), and the seats whose whole names show.
NAME_FOCUS = """() => ({ focused: document.activeElement?.closest?.('th.seat-head')?.dataset.seat ?? null,
  button: document.activeElement?.getAttribute('role') === 'button',
  shown: [...document.querySelectorAll('.reaction-float.whole-name')].map((b) => b.dataset.seat) })"""


def test_a_whole_name_the_keyboard_showed_goes_when_a_redraw_takes_its_button_away(
    live_site: LiveSite, new_page: Any
) -> None:
    """A cut name shown whole by Enter stays while the keyboard is on it. The table drawn again (a
    turn played, the screen turned so the name fits) may leave it no button to be on: the bubble then
    went on showing, over a head whose name needs it no more, until a tap elsewhere."""
    names = ["Ann", "Ben", "Cleopatra", "Wilhelmina Rosenkranz", "Eve", "Fay"]
    page = new_page(390, 844)
    url = local_room(page, live_site, names)
    reload(page)
    seat = "2"  # "Cleopatra": cut on a phone, whole on a desktop
    name = page.locator(f"#card th.seat-head[data-seat='{seat}'] .seat-head-name")
    page.wait_for_selector(f"#card th.seat-head[data-seat='{seat}'] .seat-head-name[role=button]")
    name.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(f"document.querySelector('.reaction-float.whole-name[data-seat=\"{seat}\"]')")
    # A turn played at the table: drawn again, the name keeps the keyboard, and its bubble with it.
    # Played from a second page of the same browser (its cookies), whose moves this page hears at
    # once by its socket: a turn the site's shell played reached it only with its next ping's answer.
    table = new_page(390, 844)
    table.context.add_cookies(page.context.cookies())
    table.goto(url)
    table.wait_for_selector("#conn[data-state=connected]")
    caught_up(table, page)
    act(table, [table, page], lambda: table.click("#roll"))
    score_best(table, [table, page])
    state = page.evaluate(NAME_FOCUS)
    assert state["shown"] == ([seat] if state["focused"] == seat and state["button"] else []), state
    # Turned sideways on a wide screen the name fits: no button any more, and no bubble.
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_function(f"!document.querySelector('#card th.seat-head[data-seat=\"{seat}\"] [role=button]')")
    page.wait_for_function("!document.querySelector('.reaction-float.whole-name')")
    for scheme in in_each_scheme(page):
        shot(page, f"whole-name-gone-with-its-button-{scheme}")
    assert page.errors == []


# Each seat's name in its column's head with a word broken across two lines ("Cleopatr" over "a")
# that is not marked cut (a button showing it whole): it reads as two names, or as a name it is not.
WORDS_BROKEN_UNMARKED = """() => [...document.querySelectorAll('#card .seat-head-name')].filter((name) => {
  if (name.getAttribute('role') === 'button') return false;
  const text = [...name.childNodes].find((n) => n.nodeType === Node.TEXT_NODE), range = document.createRange();
  let at = 0;
  return text.data.split(' ').some((word) => {
    range.setStart(text, at); range.setEnd(text, at + word.length); at += word.length + 1;
    return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size > 1;
  });
}).map((name) => name.textContent.trim())"""


# Each seat's name in its column's head with one of its words (between spaces) over two lines:
# "Anna-" over "Katharin…" hides the rest of the name where "Anna-Kath…" over "Oberhuber" shows it.
WORDS_OVER_TWO_LINES = """() => [...document.querySelectorAll('#card .seat-head-name')].filter((name) => {
  const words = [], walk = document.createTreeWalker(name, NodeFilter.SHOW_TEXT);
  for (let text = walk.nextNode(); text; text = walk.nextNode()) {
    if (text.parentElement.closest('[aria-hidden=true]')) continue;
    for (const m of text.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(text, m.index); range.setEnd(text, m.index + m[0].length);
      words.push(new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size);
    }
  }
  return words.some((lines) => lines > 1);
}).map((name) => name.textContent.trim())"""


@pytest.mark.parametrize("ruleset", ["official", "painted"])
@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080), (1024, 768)])
def test_on_a_desktop_a_seats_name_is_never_broken_inside_a_word(
    live_site: LiveSite, new_page: Any, ruleset: str, size: tuple[int, int]
) -> None:
    """Six seats on a desktop's card. A name one word long wider than its column ("Cleopatra") is
    cut with an ellipsis and shown whole on a click or from the keyboard, as other cut names are,
    not broken over the head's two lines ("Cleopatr" over "a"), which no one is told is cut. A
    double name ("Anna-Katharina Oberhuber") keeps each of its words on one line, cut with an
    ellipsis if too wide, rather than break at the hyphen ("Anna-" over "Katharin…"), which leaves
    the rest of the name out and reads as a name cut short twice."""
    page = new_page(*size)
    names = ["Anna-Katharina Oberhuber", "Hieronymus Bosch-Meier", *SIX[2:]]
    local_room(page, live_site, names, ruleset=ruleset)
    reload(page)
    page.wait_for_function("document.querySelectorAll('#card th.seat-head').length >= 6")
    for scheme in in_each_scheme(page):
        shot(page, f"six-heads-{ruleset}-{size[0]}-{scheme}")
        assert page.evaluate(WORDS_BROKEN_UNMARKED) == [], scheme
        assert page.evaluate(WORDS_OVER_TWO_LINES) == [], scheme
    assert page.errors == []


# What tells the head of the seat to play from the others' other than their colours: its ▶ shown,
# its underline's thickness, its letters' weight or decoration.
TURN_CUES = """() => [...document.querySelectorAll('#card th.seat-head')].map((th) => {
  const style = getComputedStyle(th), mark = th.querySelector('.turn-mark');
  const inset = [...style.boxShadow.matchAll(/(-?[\\d.]+)px (-?[\\d.]+)px[^,]*inset/g)];
  const bar = parseFloat(style.borderBottomWidth) + Math.max(0, ...inset.map((m) => -parseFloat(m[2])));
  const marked = Boolean(mark && mark.getBoundingClientRect().width > 0 && getComputedStyle(mark).display !== 'none');
  const cue = [marked, bar, style.fontWeight, style.textDecorationLine].join(' ');
  return { current: th.classList.contains('current'), cue };
})"""


@pytest.mark.parametrize("ruleset", ["official", "painted"])
@pytest.mark.parametrize("size", [(1280, 800), (932, 430)])
def test_the_seat_to_play_is_told_from_the_others_by_more_than_colour(
    live_site: LiveSite, new_page: Any, ruleset: str, size: tuple[int, int]
) -> None:
    """Five seats or more on a desktop's card hide the ▶ before the name of the seat to play: its
    head still differs from the others in more than colour (a thicker underline), for a player who
    does not tell the accent from the text's colour."""
    page = new_page(*size)
    local_room(page, live_site, SIX, ruleset=ruleset)
    reload(page)
    page.wait_for_function("document.querySelectorAll('#card th.seat-head').length >= 6")
    heads = page.evaluate(TURN_CUES)
    current = {head["cue"] for head in heads if head["current"]}
    others = {head["cue"] for head in heads if not head["current"]}
    assert current and others and not current & others, heads
    for scheme in in_each_scheme(page):
        shot(page, f"turn-cue-{ruleset}-{size[0]}-{scheme}")
    assert page.errors == []

"""The room page as a player finds it on a phone and a desktop: who is at the table after a
reload, and what happened there last, the host's own pause in their words, and a long name over
one scorecard column in view.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import (
    LETTERS_CUT,
    act,
    create_local,
    create_online,
    in_each_scheme,
    join,
    local_room,
    online_game,
    rendered,
    score_best,
    seated,
    shot,
    version,
    wait_version,
)
from tests.e2e.test_pages import CARD_AT_START, first_difference

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844, "has_touch": True, "is_mobile": True}
DESKTOP = {"width": 1280, "height": 800}
ALL_ONLINE = "n => document.querySelectorAll('#seats .presence.online').length === n"


def feed(page: Any) -> list[str]:
    """The feed's lines, newest first."""
    return list(page.eval_on_selector_all("#feed .feed-list li", "items => items.map(i => i.textContent)"))


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_after_a_reload_the_page_says_who_is_at_the_table_and_what_happened_at_once(
    live_site: LiveSite, new_page: Any, size: str
) -> None:
    screen = PHONE if size == "phone" else DESKTOP
    ann, bob, cy = new_page(**screen), new_page(**screen), new_page(**screen)
    url = create_online(ann, live_site, "Ann")
    join(bob, url, "Bob")
    join(cy, url, "Cy")
    seated(ann, 3)
    act(ann, [ann, bob, cy], lambda: ann.click("#start"))
    for page in (ann, bob, cy):
        page.wait_for_function(ALL_ONLINE, arg=3)
    cy.close()  # Cy's browser is gone: his seat is away
    ann.wait_for_function("document.querySelectorAll('#seats .presence.away').length === 1")
    # The page as it is drawn, before any socket of it is counted or any presence frame comes:
    # its room socket reaches the server only once ``through`` says so.
    through = [False]

    def socket(ws: Any) -> None:
        if through[0]:
            ws.connect_to_server()

    ann.route_web_socket(re.compile(r".*/ws/rooms/.*"), socket)
    ann.reload()
    ann.wait_for_selector("#table:not([hidden])")
    # Cy's seat is away, Ann's own is not: the socket the reload closed is hers again.
    assert ann.locator("#seats .presence.online").count() == 2
    assert ann.locator("#seats .presence.away").count() == 1
    assert feed(ann) == ["The game has started", "Cy joined", "Bob joined"]
    through[0] = True
    ann.reload()
    ann.wait_for_selector("#conn[data-state=connected]")
    ann.wait_for_function(ALL_ONLINE, arg=2)
    assert feed(ann) == ["The game has started", "Cy joined", "Bob joined"]
    # What happens next is the feed's newest line.
    act(ann, [ann, bob], lambda: ann.click("#roll"))
    act(ann, [ann, bob], lambda: ann.click("#score-chance-0"))
    assert feed(ann)[0].startswith("You scored ") or feed(ann)[0].startswith("Ann scored "), feed(ann)
    assert feed(ann)[1:] == ["The game has started", "Cy joined", "Bob joined"]
    shown = feed(bob)
    bob.reload()
    bob.wait_for_selector("#conn[data-state=connected]")
    assert feed(bob) == shown
    for scheme in in_each_scheme(bob):
        shot(bob, f"feed-after-reload-{size}-{scheme}", full_page=True)


def test_after_a_reload_the_page_does_not_say_its_own_player_is_away(live_site: LiveSite, new_page: Any) -> None:
    """The page is drawn with the room's presence, in which the socket the reload closed left this
    page's seat away: her own line in the Players list must not say "away", nor her scorecard head
    show the away dot, while her socket is not counted again."""
    ann, bob = new_page(**DESKTOP), new_page(**DESKTOP)
    url = online_game(live_site, ann, bob)
    for page in (ann, bob):
        page.wait_for_function(ALL_ONLINE, arg=2)
    ann.route_web_socket(re.compile(r".*/ws/rooms/.*"), lambda ws: None)  # never counted again
    ann.goto("about:blank")  # her socket closes, and the room counts her away
    bob.wait_for_function("document.querySelectorAll('#seats .presence.away').length === 1")
    ann.goto(url)
    ann.wait_for_selector("#table:not([hidden])")
    assert ann.locator("#seats .presence.away").count() == 0
    assert ann.locator("#card th.seat-head .presence.away").count() == 0
    assert ann.locator("#seats .presence.online").count() == 2


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_host_who_paused_reads_that_they_did(live_site: LiveSite, new_page: Any, size: str) -> None:
    screen = PHONE if size == "phone" else DESKTOP
    ann, bob = new_page(**screen), new_page(**screen)
    online_game(live_site, ann, bob)
    for page in (ann, bob):
        page.wait_for_function(ALL_ONLINE, arg=2)
    act(ann, [ann, bob], lambda: ann.click("#pause"))
    ann.wait_for_selector("#feed .feed-list li")
    bob.wait_for_selector("#feed .feed-list li")
    assert ann.inner_text("#feed .feed-list li:first-child") == "You paused the game"
    said = "t => document.getElementById('announce').textContent.includes(t)"
    ann.wait_for_function(said, arg="You paused the game.")
    assert "You paused the game: play goes on when you resume it." in ann.inner_text("#play")
    assert ann.inner_text("#roll") == "Paused by you"
    assert ann.inner_text("#play .paused-banner") == "You paused the game"
    assert bob.inner_text("#play .paused-banner") == "Game paused by the host"
    assert bob.inner_text("#feed .feed-list li:first-child") == "The host paused the game"
    assert "The host paused the game: play goes on when they resume it." in bob.inner_text("#play")
    # A reload: the play card says it again from the state alone.
    ann.reload()
    ann.wait_for_selector("#conn[data-state=connected]")
    assert "You paused the game: play goes on when you resume it." in ann.inner_text("#play")
    for scheme in in_each_scheme(ann):
        shot(ann, f"host-paused-{size}-{scheme}", full_page=True)
    # The resume too: the host reads it of themselves, the others of who resumed it.
    ann.wait_for_selector("#conn[data-state=connected]")
    act(ann, [ann, bob], lambda: ann.click("#pause"))  # the same button resumes
    ann.wait_for_function("() => document.querySelector('#feed .feed-list li')?.textContent === 'You resumed the game'")
    bob.wait_for_function("() => document.querySelector('#feed .feed-list li')?.textContent === 'Ann resumed the game'")


# Each seat's head on the card: its whole name (the title), whether its name is cut (its letters
# past its box, by as little as part of a pixel: LETTERS_CUT), how far the name's letters start
# after the name's box starts (the markers before it), whether it is the seat to play, and its
# underline's and letters' colours; only heads with some of their name in view.
HEADS = (
    """() => [...document.querySelectorAll('#card th.seat-head')].flatMap(th => {
  const lettersCut = """
    + LETTERS_CUT
    + """;
  const name = th.querySelector('.seat-head-name');
  const text = [...name.childNodes].findLast(n => n.nodeType === Node.TEXT_NODE);
  const box = name.getBoundingClientRect();
  const wrap = th.closest('.scorecard-wrap').getBoundingClientRect();
  if (!text || box.width < 8 || box.right <= wrap.left || box.left >= wrap.right) return [];
  const range = document.createRange();
  range.selectNodeContents(text);
  const style = getComputedStyle(th);
  return [{name: th.title, cut: Boolean(lettersCut(name)),
           before: range.getBoundingClientRect().left - box.left, current: th.classList.contains('current'),
           line: style.borderBottomColor, colour: style.color,
           mark: th.querySelector('.turn-mark')?.offsetWidth ?? 0}];
})"""
)

LONG = "Dorothea Wilhelmina"


@pytest.mark.parametrize(
    ("ruleset", "names", "scrolled"),
    [
        ("official", [LONG, "Ann", "Bob", "Cy", "Max Montgomery"], 0),
        ("yatzy", ["Ann", LONG, "Bob", "Cy", "Dee", "Eve"], 1),
        ("triple", [LONG, "Ann", "Bartholomew Featherstone"], 2),
        ("painted", [LONG, "Ann", "Bartholomew Featherstone"], 1),
    ],
)
def test_on_a_phone_a_long_name_over_one_column_shows_its_letters_not_its_markers(
    live_site: LiveSite, new_page: Any, ruleset: str, names: list[str], scrolled: int
) -> None:
    page = new_page(**PHONE)
    create_local(page, live_site, names, ruleset=ruleset)
    # The card scrolled sideways by whole columns: in Triple, two seats with one column each in view.
    page.evaluate(
        """n => document.querySelectorAll('#card .scorecard-wrap').forEach(w => {
             const seat = w.querySelector('col.seat-col');
             w.scrollLeft = n * seat.getBoundingClientRect().width / (Number(seat.span) || 1); })""",
        scrolled,
    )
    rendered(page)  # the names fitted
    heads = page.evaluate(HEADS)
    cut = [h for h in heads if h["cut"]]
    assert cut, heads  # a long name is cut over its column
    for head in cut:
        # Nothing before the name's first letter: its letters show, with "…" where it is cut.
        assert head["before"] < 2, head
        if head["current"]:
            # The turn stays on the head: its underline in the turn's colour.
            assert head["line"] == head["colour"], head
    # A short name keeps its turn mark before it where it shows whole (Painted's panes have none).
    whole = [h for h in heads if not h["cut"] and h["current"]]
    if ruleset != "painted":
        assert all(h["mark"] > 0 for h in whole), heads
    for scheme in in_each_scheme(page):
        shot(page, f"long-name-one-column-{ruleset}-{scheme}")


EIGHT = ["Ann", "Bob", "Cy", "Dora", "Emil", "Fay", "Gus", "Hanna"]

# The last seat's last open box: a cell no action of the first seats' turns changes.
LAST_SEATS_CELL = "() => [...document.querySelectorAll('#card tr[data-box] td.open')].at(-1)"


@pytest.mark.parametrize(
    ("ruleset", "size"),
    [("official", DESKTOP), ("painted", PHONE), ("triple", PHONE)],
    ids=["official-desktop", "painted-phone", "triple-phone"],
)
def test_the_rooms_card_after_actions_is_what_a_fresh_draw_of_the_state_shows_its_cells_kept(
    live_site: LiveSite, new_page: Any, ruleset: str, size: dict[str, Any]
) -> None:
    """Eight players' card was rebuilt at every action of every player, each cell styled and laid
    out again: an action changes only what differs on the card, a cell it does not change the same
    element.
    After rolls and scores the card is, to the byte, what the same page draws loaded anew (the
    card's own widths, fades and whole names' buttons included)."""
    page = new_page(**size)
    url = local_room(page, live_site, EIGHT, ruleset)
    fresh = new_page(**size)
    fresh.context.add_cookies(page.context.cookies(live_site.url))
    page.evaluate(f"() => {{ window.kept = ({LAST_SEATS_CELL})(); }}")

    def same_as_drawn_anew(when: str) -> None:
        # The box just scored is lit for a moment on the page that saw it scored, not on one loaded after.
        page.wait_for_function("() => !document.querySelector('#card td.just')", timeout=10_000)
        fresh.goto("about:blank")
        fresh.goto(url)
        fresh.wait_for_selector("#conn[data-state=connected]")
        wait_version([fresh], version(page) - 1)
        acted = page.evaluate(CARD_AT_START)
        drawn = fresh.evaluate(CARD_AT_START)
        assert acted == drawn, f"{when}: {first_difference(acted, drawn)}"

    for turn in range(3):
        act(page, [page], lambda: page.click("#roll"))
        if turn == 1:
            act(page, [page], lambda: page.click("#roll"))
            same_as_drawn_anew(f"turn {turn + 1}, rolled twice")
        score_best(page, [page])
        same_as_drawn_anew(f"turn {turn + 1}, scored")
    assert page.evaluate(f"() => window.kept.isConnected && window.kept === ({LAST_SEATS_CELL})()"), (
        "the last seat's open box was drawn anew by actions that did not change it"
    )
    assert page.errors == [] and fresh.errors == []

"""The table's feed on pages open through what happens: every line of a turn the server played
for its player, and on a page whose connection went and came back without a reload, the lines of
what happened while it was away, as a page drawn afresh shows them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import (
    act,
    caught_up,
    create_online,
    in_each_scheme,
    score_best,
    seated,
    shot,
    time_runs_out,
    timed_game_with_bob,
    version,
    wait_version,
)
from tests.e2e.test_bad_network import Link
from tests.e2e.test_room_feed_after_reload import LINES, lines, new_lines

pytestmark = pytest.mark.browser

TURN_IS = "([name]) => document.getElementById('turn-h').textContent.startsWith(name)"


def texts(page: Any) -> list[str]:
    return [text for _, text in lines(page)]


def reloaded(page: Any) -> list[list[str]]:
    """The feed the page shows once drawn afresh: the room's last lines, as the server keeps them."""
    page.reload()
    page.wait_for_selector("#conn[data-state=connected]")
    return lines(page)


def test_a_turn_that_ran_out_is_told_to_the_pages_open_as_a_reload_tells_it(live_site: LiveSite, new_page: Any) -> None:
    ann, bob = new_page(), new_page(locale="de-DE")
    timed_game_with_bob(live_site, ann, bob)
    act(ann, [ann, bob], lambda: ann.click("#roll"))
    score_best(ann, [ann, bob])
    time_runs_out(live_site, ann, 1)
    ann.wait_for_function(TURN_IS, arg=["Your turn"])
    ann.wait_for_function("document.querySelector('#feed .feed-list li')?.textContent.includes(' scored ')")
    assert texts(ann)[new_lines(lines(ann))] == "Bob's time ran out", texts(ann)
    caught_up(bob, ann)  # Bob's page hears the server's turn by a socket of its own
    seen_by_ann, seen_by_bob = lines(ann), lines(bob)
    assert reloaded(ann) == seen_by_ann
    assert reloaded(bob) == seen_by_bob


def test_a_page_back_online_shows_the_lines_of_what_happened_while_it_was_away(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann's network goes in her turn; her time runs out and Bob plays his turn. Back online without
    a reload, her feed tells her time ran out and both turns' scores, once each, in order, as a
    reload would show them; what happens next comes above them."""
    ann, bob = new_page(width=390, height=844, is_mobile=True, has_touch=True), new_page()
    link = Link(ann)
    timed_game_with_bob(live_site, ann, bob)
    link.down()
    ann.wait_for_selector("#conn[data-state=reconnecting]")
    time_runs_out(live_site, bob, 0)
    bob.wait_for_function(TURN_IS, arg=["Your turn"])
    act(bob, [bob], lambda: bob.click("#roll"))
    score_best(bob, [bob])
    bob.wait_for_function(TURN_IS, arg=["Ann's turn"])
    seen_by_bob = texts(bob)
    link.up()
    ann.wait_for_selector("#conn[data-state=connected]")
    ann.wait_for_function(TURN_IS, arg=["Your turn"])
    ann.wait_for_function("[...document.querySelectorAll('#feed .feed-list li')].length >= 4")
    # Told where she looks, as a page open through it tells her.
    ann.wait_for_selector(
        "#toast:has-text('Your time ran out: the server rolled and scored the box worth most for you.')"
    )
    shown = lines(ann)
    assert [text for _, text in shown].count("Ann's time ran out") == 1, shown
    for scheme in in_each_scheme(ann):
        shot(ann, f"feed-caught-up-{scheme}", full_page=True)
    assert shown == reloaded(ann)
    assert texts(bob) == seen_by_bob
    # What happens next comes above them.
    act(ann, [ann, bob], lambda: ann.click("#roll"))
    score_best(ann, [ann, bob])
    new = new_lines(lines(ann))
    assert lines(ann)[new:] == shown[: 6 - new]


def test_the_host_handed_on_by_a_leave_is_told_once_on_a_page_open_through_it_and_on_one_away_meanwhile(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann, the host, leaves the game; Bob hosts it now. Bob's page, open through it, says so once,
    after Ann's leave; Cy's, whose network was away meanwhile and came back without a reload, says
    so once too, as a reload shows it. A later turn leaves the line there, once."""
    from tests.e2e.helpers import join
    from tests.e2e.test_social import create_room

    ann, bob, cy = new_page(), new_page(), new_page(width=390, height=844, is_mobile=True, has_touch=True)
    link = Link(cy)
    url = create_room(ann, live_site, "Ann")
    join(bob, url, "Bob")
    join(cy, url, "Cy")
    ann.wait_for_function("document.querySelectorAll('#seats .seat').length === 3")
    act(ann, [ann, bob, cy], lambda: ann.click("#start"))
    link.down()
    cy.wait_for_selector("#conn[data-state=reconnecting]")
    ann.on("dialog", lambda dialog: dialog.accept())
    act(ann, [bob], lambda: ann.click("#leave-0"))
    bob.wait_for_selector("#feed li >> text=Bob is now the host")
    link.up()
    cy.wait_for_selector("#conn[data-state=connected]")
    cy.wait_for_selector("#feed li >> text=Bob is now the host")
    caught_up(cy, bob)
    for page in (bob, cy):
        # What else the page may still be told (a presence, the feed of what it missed) is in.
        page.wait_for_load_state("networkidle")
        assert texts(page).count("Bob is now the host") == 1, texts(page)
    act(bob, [bob, cy], lambda: bob.click("#roll"))
    score_best(bob, [bob, cy])
    for page in (bob, cy):
        assert texts(page).count("Bob is now the host") == 1, texts(page)
    for scheme in in_each_scheme(cy):
        shot(cy, f"host-handed-on-once-{scheme}", full_page=True)
    shown = lines(cy)
    assert shown == reloaded(cy), shown


# The room socket's frames held back while ``window.__held`` is a list (the versions of the held
# states in ``window.__heldVersions``), then handed to the page's own handler all at once, in one
# task, by ``RELEASE``: a page whose main thread was busy while the room moved on, as a slow phone
# at a quick table is.
HOLD_FRAMES = """
window.__held = null;
window.__heldVersions = [];
const Socket = window.WebSocket;
window.WebSocket = class extends Socket {
  addEventListener(type, listener, ...rest) {
    if (type !== "message") return super.addEventListener(type, listener, ...rest);
    return super.addEventListener(type, (event) => {
      if (!window.__held) return listener.call(this, event);
      window.__held.push(() => listener.call(this, event));
      const frame = JSON.parse(event.data);
      if (frame.type === "state") window.__heldVersions.push(frame.version);
    }, ...rest);
  }
};
"""

# Hand the held frames to the page in one task; from then on ``window.__drawn`` gathers each
# version the room's data-version had before a draw wrote it again (every draw writes it).
RELEASE = """() => {
  window.__drawn = [];
  const written = { attributes: true, attributeFilter: ['data-version'], attributeOldValue: true };
  new MutationObserver((records) => window.__drawn.push(...records.map((record) => record.oldValue)))
    .observe(document.getElementById('room'), written);
  const held = window.__held;
  window.__held = null;
  for (const hear of held) hear();
}"""

# A page in a background tab: hidden, and the browser gives it no animation frames.
IN_THE_BACKGROUND = """
Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
window.requestAnimationFrame = () => 0;
"""


@pytest.mark.parametrize("hidden", [False, True], ids=["shown", "hidden"])
def test_a_page_that_fell_behind_draws_only_the_newest_state_with_every_line_of_the_feed(
    live_site: LiveSite, new_page: Any, hidden: bool
) -> None:
    """A round of Ann's game with seven computers reaches a watching page all at once (its main
    thread was busy): every draw after it shows the newest state, none of those on the way, and
    its feed has the lines a page opened afresh shows. Hidden in a background tab, where no
    animation frame comes, it draws all the same."""
    ann, watcher = new_page(), new_page()
    url = create_online(ann, live_site, "Ann")
    for seats in range(2, 9):
        ann.click("#add-bot")
        seated(ann, seats)
    watcher.add_init_script(HOLD_FRAMES)
    if hidden:
        watcher.add_init_script(IN_THE_BACKGROUND)
    watcher.goto(url)
    watcher.wait_for_selector("#conn[data-state=connected]")
    act(ann, [ann, watcher], lambda: ann.click("#start"))
    watcher.evaluate("window.__held = []")
    act(ann, [ann], lambda: ann.click("#roll"))
    score_best(ann, [ann])
    ann.wait_for_function(TURN_IS, arg=["Your turn"])
    newest = version(ann)
    # Polled by a timer: a page in the background has no animation frames to poll on.
    watcher.wait_for_function("(newest) => window.__heldVersions.includes(newest)", arg=newest, polling=100)
    held = set(watcher.evaluate("window.__heldVersions"))
    watcher.evaluate(RELEASE)
    wait_version([watcher], newest - 1)
    fresh = new_page()
    fresh.goto(url)
    fresh.wait_for_selector("#conn[data-state=connected]")
    want = lines(fresh)
    # The lines of versions the socket never brought (a frame relayed late is dropped) are fetched.
    watcher.wait_for_function(f"(want) => JSON.stringify(({LINES})()) === JSON.stringify(want)", arg=want, polling=100)
    # Each version a draw wrote since: what the next draw found there, then what is there now.
    drawn = [int(shown) for shown in watcher.evaluate("window.__drawn")[1:]] + [version(watcher)]
    on_the_way = held - {newest}
    assert len(on_the_way) >= 2, held  # Ann's roll and score at least, before the computers' turns
    assert drawn[-1] == newest and not on_the_way & set(drawn), (drawn, sorted(held))
    assert lines(watcher) == want

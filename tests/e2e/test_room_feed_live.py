"""The table's feed on pages open through what happens: every line of a turn the server played
for its player, and on a page whose connection went and came back without a reload, the lines of
what happened while it was away, as a page drawn afresh shows them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import act, caught_up, in_each_scheme, score_best, shot, time_runs_out, timed_game_with_bob
from tests.e2e.test_bad_network import Link
from tests.e2e.test_room_feed_after_reload import lines, new_lines

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

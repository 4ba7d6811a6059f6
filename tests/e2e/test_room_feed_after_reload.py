"""The table's feed on a page drawn in the middle of things: a reload, a second device, a spectator
who opens the room during play, a finished game's page. Each shows the room's last lines at once,
worded as a page open through them worded them, in its reader's language."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import (
    act,
    create_online,
    finished_named_game,
    in_each_scheme,
    join,
    room_code,
    score_best,
    servers_wait_is_over,
    shot,
)

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844, "has_touch": True, "is_mobile": True}
DESKTOP = {"width": 1280, "height": 800}
# Each line of the feed, newest first: its kind (the class its mark is drawn by) and its words.
LINES = "() => [...document.querySelectorAll('#feed .feed-list li')].map(li => [li.className, li.textContent])"


def lines(page: Any) -> list[list[str]]:
    return list(page.evaluate(LINES))


def new_lines(shown: list[list[str]]) -> int:
    """How many lines at the top of an English feed (``shown``) a turn just played put there: its
    score, and its roll's line too if that roll came up a Yahtzee (the dice are the server's fair
    dice: any roll may, about one in 1,296)."""
    return 2 if len(shown) > 1 and shown[1][0] == "feed-yahtzee" and shown[1][1].endswith(" rolled a Yahtzee!") else 1


def turn(page: Any, everyone: list[Any]) -> None:
    act(page, everyone, lambda: page.click("#roll"))
    score_best(page, everyone)


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_page_drawn_during_play_shows_the_feeds_last_lines_as_an_open_page_does(
    live_site: LiveSite, new_page: Any, size: str
) -> None:
    screen = PHONE if size == "phone" else DESKTOP
    ann, jonas = new_page(**screen), new_page(locale="de-DE", **screen)
    url = create_online(ann, live_site, "Ann")
    join(jonas, url, "Jonas")
    everyone = [ann, jonas]
    act(ann, everyone, lambda: ann.click("#start"))
    turn(ann, everyone)
    turn(jonas, everyone)
    act(ann, everyone, lambda: ann.click("#pause"))
    act(ann, everyone, lambda: ann.click("#pause"))  # the same button resumes
    turn(ann, everyone)
    seen_by_ann, seen_by_jonas = lines(ann), lines(jonas)
    assert len(seen_by_ann) == 6, seen_by_ann  # as many as the feed keeps: "Jonas joined" went
    last = new_lines(seen_by_ann)
    assert seen_by_ann[last : last + 2] == [
        ["feed-info", "You resumed the game"],
        ["feed-info", "You paused the game"],
    ], seen_by_ann
    assert seen_by_jonas[last][1] == "Ann hat das Spiel fortgesetzt", seen_by_jonas

    # Jonas reloads: his feed is there as the page is drawn, before its socket reaches the server.
    through = [False]

    def socket(ws: Any) -> None:
        if through[0]:
            ws.connect_to_server()

    jonas.route_web_socket(re.compile(r".*/ws/rooms/.*"), socket)
    jonas.reload()
    jonas.wait_for_selector("#table:not([hidden])")
    assert lines(jonas) == seen_by_jonas
    through[0] = True
    jonas.reload()
    jonas.wait_for_selector("#conn[data-state=connected]")
    assert lines(jonas) == seen_by_jonas
    # The host reads her pause and resume of herself again.
    ann.reload()
    ann.wait_for_selector("#conn[data-state=connected]")
    assert lines(ann) == seen_by_ann
    # A spectator who opens the room now reads them of the host, as Jonas did.
    watcher = new_page(**screen)
    watcher.goto(url)
    watcher.wait_for_selector("#conn[data-state=connected]")
    of_the_host = {"You resumed the game": "Ann resumed the game", "You paused the game": "The host paused the game"}
    assert lines(watcher) == [[kind, of_the_host.get(text, text)] for kind, text in seen_by_ann]
    # What happens next is the newest line above them.
    turn(jonas, [ann, jonas, watcher])
    new = new_lines(lines(ann))
    assert lines(ann)[new:] == seen_by_ann[: 6 - new]
    assert lines(watcher)[new:] == [[kind, of_the_host.get(text, text)] for kind, text in seen_by_ann[: 6 - new]]
    assert lines(watcher)[0] == lines(ann)[0] and " scored " in lines(ann)[0][1]
    for scheme in in_each_scheme(jonas):
        shot(jonas, f"feed-restored-{size}-{scheme}", full_page=True)


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_finished_games_page_ends_its_feed_with_the_result(live_site: LiveSite, new_page: Any, size: str) -> None:
    screen = PHONE if size == "phone" else DESKTOP
    code = finished_named_game(live_site, ["Ann", "Bob"])
    page = new_page(**screen)
    page.goto(f"{live_site.url}/r/{code}/")
    page.wait_for_selector("#over:not([hidden])")
    shown = lines(page)
    assert len(shown) == 6, shown
    assert shown[0][0] == "feed-over" and re.fullmatch(
        r"Game over: (Ann|Bob) wins|Game over: Ann and Bob share the win", shown[0][1]
    ), shown
    # Scores, and the line of a roll that came up a Yahtzee (the server's fair dice may give one).
    assert all(
        (kind in ("feed-score", "feed-yahtzee") and " scored " in text)
        or (kind == "feed-yahtzee" and re.fullmatch(r"(Ann|Bob) rolled a Yahtzee!", text))
        for kind, text in shown[1:]
    ), shown
    for scheme in in_each_scheme(page):
        shot(page, f"feed-finished-{size}-{scheme}", full_page=True)


def test_the_host_handed_on_by_a_tool_is_where_an_open_page_put_it_after_a_reload(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ann pauses and closes her tab; Bob, once she has been away a while, resumes the game, which
    makes him the host first. His page and Cy's (a spectator's) say so in that order, and the same
    pages reloaded say it in the same order."""
    from tests.e2e.test_social import create_room

    ann, bob, cy = new_page(), new_page(), new_page()
    bob.clock.install()
    url = create_room(ann, live_site, "Ann")
    join(bob, url, "Bob")
    ann.wait_for_function("document.querySelectorAll('#seats .seat').length === 2")
    cy.goto(url)
    cy.wait_for_selector("#conn[data-state=connected]")
    act(ann, [ann, bob, cy], lambda: ann.click("#start"))
    act(ann, [ann, bob, cy], lambda: ann.click("#pause"))
    ann.goto("about:blank")
    bob.wait_for_selector(".seat:first-child .presence.away")
    servers_wait_is_over(live_site, room_code(bob))  # HOST_AWAY=1: the page's clock is run on below
    bob.clock.run_for(16_000)
    bob.wait_for_selector("#pause:not([hidden])")
    act(bob, [bob, cy], lambda: bob.click("#pause"))
    bob.wait_for_selector("#feed li >> text=Bob is now the host")
    cy.wait_for_selector("#feed li >> text=Bob is now the host")
    live_bob, live_cy = lines(bob)[:2], lines(cy)[:2]
    # Newest first: the role was handed on, then the resume was his.
    assert [text for _, text in live_bob] == ["You resumed the game", "Bob is now the host"], live_bob
    assert [text for _, text in live_cy] == ["Bob resumed the game", "Bob is now the host"], live_cy
    bob.reload()
    cy.reload()
    for page in (bob, cy):
        page.wait_for_selector("#conn[data-state=connected]")
    assert (lines(bob)[:2], lines(cy)[:2]) == (live_bob, live_cy), (live_bob, live_cy)

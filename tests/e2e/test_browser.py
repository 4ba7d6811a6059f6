"""The game in a real browser: system Chromium driven by Playwright against a live server process."""

from __future__ import annotations

import json
import re
import sqlite3
import weakref
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import (
    act,
    best_box,
    create_local,
    create_online,
    create_online_read_seed,
    in_each_scheme,
    join,
    light_boxes_in_the_dark,
    local_room,
    look_again,
    no_horizontal_overflow,
    score_best,
    serious_violations,
    shot,
)

pytestmark = pytest.mark.browser

UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")


# --- driving the page like a player -----------------------------------------------------


def dice(page: Any) -> list[int]:
    labels = page.eval_on_selector_all(".die", "els => els.map(e => e.getAttribute('aria-label'))")
    words = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
    return [words.get(re.match(r"Die \d: (\w+)", label).group(1), 0) for label in labels]  # type: ignore[union-attr]


def held(page: Any) -> list[int]:
    return page.eval_on_selector_all(
        ".die", "els => els.flatMap((e, i) => e.getAttribute('aria-pressed') === 'true' ? [i] : [])"
    )


def play_turn(page: Any, everyone: list[Any], use_keys: bool = False, holds: bool = True) -> None:
    """Roll, hold the most common face and roll again, then score the best box.

    ``holds=False`` rolls once and scores (two actions instead of up to eight): the long games
    hold and reroll on some turns only, so the suite stays fast and every control is still used.
    """
    act(page, everyone, (lambda: page.keyboard.press("Space")) if use_keys else (lambda: page.click("#roll")))
    if not holds:
        score_best(page, everyone)
        return
    values = dice(page)
    face = max(set(values), key=values.count)
    keep = [i for i, v in enumerate(values) if v == face]
    if len(keep) < 5:
        for i in keep:
            act(page, everyone, lambda i=i: page.keyboard.press(str(i + 1)) if use_keys else page.click(f"#die-{i}"))
        assert held(page) == keep
        act(page, everyone, lambda: page.click("#roll"))
    score_best(page, everyone)


def whose_page(pages: dict[str, Any], banner: str) -> Any:
    return next(page for name, page in pages.items() if name in banner)


def db_totals(site: LiveSite, code: str) -> dict[str, int]:
    """Each player's total straight from the database: their ScoreEntry rows plus the upper bonus."""
    rows = site.query(
        """SELECT p.name, e.box, e."column", e.points, e.bonus FROM games_scoreentry e
           JOIN games_player p ON p.id = e.player_id JOIN games_game g ON g.id = p.game_id WHERE g.code = ?""",
        code,
    )
    totals: dict[str, int] = {}
    upper: dict[tuple[str, int], int] = {}
    for name, box, col, points, bonus in rows:
        totals[name] = totals.get(name, 0) + points + bonus
        if box in UPPER:
            upper[(name, col)] = upper.get((name, col), 0) + points
    for (name, _), points in upper.items():
        if points >= 63:
            totals[name] += 35
    return totals


def shown_totals(page: Any) -> dict[str, int]:
    items = page.eval_on_selector_all(
        "#over .ranking li",
        """els => els.map(e => [
            e.querySelector('.seat-name').textContent, Number(e.querySelector('.seat-total').textContent)
        ])""",
    )
    return dict(items)


# --- the tests --------------------------------------------------------------------------


def test_two_people_play_a_complete_official_game_to_the_game_over_screen(live_site: LiveSite, new_page: Any) -> None:
    ann, bob = new_page(), new_page()
    url = create_online(ann, live_site, "Ann")
    code = url.rstrip("/").rsplit("/", 1)[-1]
    join(bob, url, "Bob")
    ann.wait_for_function("document.querySelectorAll('#seats .seat').length === 2")
    assert "Start game with 2 players" in ann.inner_text("#start")
    assert bob.locator("#start").count() == 0  # only the host starts
    pages = {"Ann": ann, "Bob": bob}
    act(ann, [ann, bob], lambda: ann.click("#start"))
    for turn in range(26):
        if 4 <= turn < 24:
            # The rounds between the first two and the last through the services: the pages play
            # each way of taking a turn (keys or clicks, with holds or without) and the round that
            # ends the game, which both hear live, and load the rest.
            if turn == 4:
                live_site.play_turns(code, 20)
                for page in (ann, bob):
                    page.reload()
                    page.wait_for_selector("#conn[data-state=connected]")
            continue
        banner = ann.inner_text("#turn-h")
        player = whose_page(pages, banner)
        assert player.inner_text("#turn-h").startswith("Your turn")
        play_turn(player, [ann, bob], use_keys=turn % 2 == 0, holds=turn % 4 < 2)
    for page in (ann, bob):
        page.wait_for_selector("#over:not([hidden])")
        assert page.inner_text("#over-h") in ("You win!", "Game over", "You share the win!")
        # Said too, for a screen reader whose keyboard stayed where it was (in the chat, say).
        page.wait_for_function("document.getElementById('announce').textContent.includes('Game over')")
    shown = shown_totals(ann)
    assert shown == shown_totals(bob) == db_totals(live_site, code)
    grand = ann.eval_on_selector_all("#card tr.grand td", "els => els.map(e => Number(e.textContent))")
    assert grand == [shown["Ann"], shown["Bob"]]
    assert "Verify every roll" in ann.inner_text("#over")
    # The last state told each page what happened (its event, then game_over): the feed says so.
    for page in (ann, bob):
        feed = page.eval_on_selector_all("#feed li", "els => els.map(e => [e.className, e.textContent])")
        assert feed[0][0] == "feed-over" and feed[0][1].startswith("Game over: ")
        assert feed[1][0] in ("feed-score", "feed-yahtzee") and " scored " in feed[1][1]
    assert ann.errors == [] and bob.errors == []
    # Each page shows the seed its browser sent (the home page's form, the lobby's), for the player
    # to find in the game's client_seed (docs/fairness.md); a reload shows it still.
    query = "SELECT p.name, p.client_seed FROM games_player p JOIN games_game g ON g.id = p.game_id WHERE g.code = ?"
    sent = dict(live_site.query(query, code))
    bob.reload()
    bob.wait_for_selector("#over:not([hidden])")
    assert (ann.inner_text("#your-seed"), bob.inner_text("#your-seed")) == (sent["Ann"], sent["Bob"])

    # Rematch: Ann opens it, Bob is offered to follow; both are already seated.
    ann.click("#rematch")
    ann.wait_for_selector("#lobby:not([hidden])")
    bob.wait_for_selector("#rematch-link")
    bob.click("#rematch-link")
    bob.wait_for_selector("#lobby:not([hidden])")
    assert bob.url == ann.url != url
    assert bob.locator(".seat .tag.you").count() == 1
    assert ann.locator("#start").count() == 1
    # Each brought their browser's own seed for the rematch's dice, as a join does.
    rematch = ann.url.rstrip("/").rsplit("/", 1)[-1]
    seeds = live_site.query(query, rematch)
    assert len(seeds) == 2 and all(len(seed) == 32 for _, seed in seeds), seeds  # seed.js: 16 random bytes
    assert dict(seeds)["Ann"] != dict(seeds)["Bob"]
    assert sent["Ann"] not in dict(seeds).values()  # a new room, a new seed
    # Each browser keeps the seed it sent under the rematch's code, to show at its end.
    # The rematch's page keeps it once seed.js has come (fetched at once, after the page is drawn).
    kept = "code => JSON.parse(localStorage.getItem('yahtzee-seeds') ?? '{}')[code]?.seed"
    for page in (ann, bob):
        page.wait_for_function(f"({kept})({rematch!r}) !== undefined")
    assert {"Ann": ann.evaluate(kept, rematch), "Bob": bob.evaluate(kept, rematch)} == dict(seeds)

    # The fairness page checks every roll of the finished game.
    ann.goto(url + "fairness")
    assert "All" in ann.inner_text(".checks") and "✗" not in ann.inner_text(".checks")


FINISH_ALONE = """
import random
from games.store.models import Player
from games import services
from tests.factories import Table, action_id, play_to_end
code, = args
host = Player.objects.get(game__code=code, seat=0).controller
services.game_start(code=code, controller=host, expected_version=None, action_id=action_id())
play_to_end(Table(code=code, controllers=[host]), random.Random(3), rerolls=0)
result = code
"""


FINISH_TOGETHER = """
import random
from games.store.models import Player
from games import services
from tests.factories import Table, action_id, play_to_end
code, = args
players = list(Player.objects.filter(game__code=code).order_by("seat"))
services.game_start(code=code, controller=players[0].controller, expected_version=None, action_id=action_id())
play_to_end(Table(code=code, controllers=[p.controller for p in players]), random.Random(3), rerolls=0)
result = code
"""

# A server that draws another seed once it has seen the players' seeds, and shows its commitment.
SWAP_SEED = """
from games.domain import fairness
from games.store.models import Game
code, = args
seed = fairness.new_server_seed()
Game.objects.filter(code=code).update(server_seed=seed, seed_commitment=fairness.commitment(seed))
result = code
"""


def test_a_player_finds_the_seed_their_browser_sent_on_the_room_page_after_the_game(
    live_site: LiveSite, new_page: Any
) -> None:
    """docs/fairness.md: check "that the client seed your browser sent is in client_seed". The
    browser keeps the seed the home page's form sent under the room's code, and the room page shows
    it at the game's end, after a reload too."""
    page = new_page()
    code, seed = create_online_read_seed(page, live_site, "Ann")
    live_site.run(FINISH_ALONE, code)
    page.reload()
    page.wait_for_selector("#over-h")
    assert page.inner_text("#your-seed") == seed
    assert live_site.query("SELECT client_seed FROM games_game WHERE code = ?", code) == [(seed,)]


KEPT = "code => JSON.parse(localStorage.getItem('yahtzee-seeds'))[code]"


def kept(page: Any, code: str) -> Any:
    """What ``page``'s browser keeps for room ``code`` (seed.js), once kept: the room's page fetches
    seed.js as it opens, and keeps the seed the form that led there sent once it has it."""
    page.wait_for_function("code => JSON.parse(localStorage.getItem('yahtzee-seeds') ?? '{}')[code]", arg=code)
    return page.evaluate(KEPT, code)


def test_the_room_page_checks_the_revealed_seed_against_the_commitment_its_browser_saw(
    live_site: LiveSite, new_page: Any
) -> None:
    """docs/fairness.md: the browser keeps the commitment the page showed when it sent its seed
    (the creator's, on arriving in the room; a joiner's, with the lobby's form), and at the end
    says that the revealed seed matches it."""
    ann, bob = new_page(), new_page()
    url = create_online(ann, live_site, "Ann")
    code = url.rstrip("/").rsplit("/", 1)[-1]
    join(bob, url, "Bob")
    [(commitment,)] = live_site.query("SELECT seed_commitment FROM games_game WHERE code = ?", code)
    assert kept(ann, code)["commitment"] == kept(bob, code)["commitment"] == commitment
    live_site.run(FINISH_TOGETHER, code)
    for page in (ann, bob):
        page.reload()
        page.wait_for_selector("#seen-commitment")
        said = page.inner_text("#seen-commitment")
        assert said == "✓ The server's seed matches the commitment this browser saw before the game."
        assert page.errors == []


def test_the_room_page_warns_when_the_revealed_seed_is_not_the_one_committed_to_before_the_game(
    live_site: LiveSite, new_page: Any
) -> None:
    """A dishonest server that picks its seed after seeing the players' seeds, and publishes that
    seed's commitment: the published check passes, and the browser, which kept the commitment it
    was shown, warns."""
    page = new_page()
    url = create_online(page, live_site, "Ann")
    code = url.rstrip("/").rsplit("/", 1)[-1]
    [(shown,)] = live_site.query("SELECT seed_commitment FROM games_game WHERE code = ?", code)
    assert kept(page, code)["commitment"] == shown
    live_site.run(SWAP_SEED, code)
    live_site.run(FINISH_ALONE, code)
    page.goto(url + "fairness")
    assert "✗" not in page.inner_text(".checks")  # the seed matches what the server publishes now
    page.goto(url)
    page.wait_for_selector("#seen-commitment")
    said = page.inner_text("#seen-commitment")
    assert said.startswith("✗ Warning: the server's seed does NOT match the commitment this browser saw")
    assert shown[:16] in said
    assert "✓ The server's seed matches" not in page.inner_text("#over")


def test_pass_and_play_with_three_players_to_the_end(live_site: LiveSite, new_page: Any) -> None:
    page = new_page()
    url = create_local(page, live_site, ["Ada", "Ben", "Cy"], ruleset="yatzy")
    code = url.rstrip("/").rsplit("/", 1)[-1]
    assert page.locator("#seats .seat .tag.you").count() == 3
    assert "pass the device to Ada" in page.inner_text("#turn-h")
    turns = 15 * 3
    for turn in range(turns):
        if turn == 3:
            # The rounds between the first and the last through the services: the page plays a
            # round at the game's start and the one that ends it (the device passed from each
            # player to the next, by clicks and keys, with and without holds), and loads the rest.
            live_site.play_turns(code, turns - 6)
            page.reload()
            page.wait_for_selector("#conn[data-state=connected]")
            page.wait_for_selector("#roll:not(:disabled)")
        if 3 <= turn < turns - 3:
            continue
        expected = ["Ada", "Ben", "Cy"][turn % 3]
        assert page.inner_text("#turn-h").startswith(f"{expected}'s turn")
        play_turn(page, [page], use_keys=turn % 3 == 1, holds=turn % 4 < 2)
    page.wait_for_selector("#over:not([hidden])")
    shown = shown_totals(page)
    assert set(shown) == {"Ada", "Ben", "Cy"}
    status = live_site.query("SELECT status, local FROM games_game WHERE code = ?", code)
    assert status == [("finished", 1)]
    # Yatzy's upper bonus is 50, so check the totals against the state the server keeps.
    state = json.loads(page.evaluate(f"fetch('/r/{code}/state.json').then(r => r.text())"))
    assert shown == {state["seats"][c["seat"]]["name"]: c["total"] for c in state["cards"]}
    # The device's one seed, which every seat took, is the one the page shows as its own.
    assert state["fairness"]["client_seed"] == ",".join([page.inner_text("#your-seed")] * 3)
    assert page.errors == []


def test_a_reload_mid_turn_keeps_dice_holds_and_rolls_left(live_site: LiveSite, new_page: Any) -> None:
    page = new_page()
    local_room(page, live_site, ["Solo"])
    act(page, [page], lambda: page.click("#roll"))
    act(page, [page], lambda: page.click("#die-1"))
    act(page, [page], lambda: page.click("#die-3"))
    before = (dice(page), held(page), page.inner_text("#roll"))
    assert before[1] == [1, 3] and "2 rolls left" in before[2]
    page.reload()
    page.wait_for_selector("#conn[data-state=connected]")
    page.wait_for_selector("#roll")
    assert (dice(page), held(page), page.inner_text("#roll")) == before
    assert page.get_attribute("#die-1", "aria-label").endswith(", held")


def test_a_phone_sized_game_never_scrolls_the_page_sideways(live_site: LiveSite, new_page: Any) -> None:
    page = new_page(375, 740, has_touch=True)
    page.goto(live_site.url + "/")
    assert no_horizontal_overflow(page)
    local_room(page, live_site, ["Ann", "Bea", "Cal", "Dot"], ruleset="triple")
    assert no_horizontal_overflow(page)
    for _ in range(4):
        play_turn(page, [page])
        assert no_horizontal_overflow(page)
    # The scorecard scrolls inside itself, with the box names pinned.
    # Each read in one evaluation: a frame drawn between finding an element and reading it leaves
    # a detached element, with no layout and no computed style (tests/e2e/test_table_layout.py).
    assert page.evaluate("(w => w.scrollWidth > w.clientWidth)(document.querySelector('.scorecard-wrap'))")
    assert page.evaluate("getComputedStyle(document.querySelector('.scorecard tbody th')).position") == "sticky"
    shot(page, "phone-triple", full_page=True)

    solo = new_page(375, 740, has_touch=True)
    code = local_room(solo, live_site, ["Solo"]).rstrip("/").rsplit("/", 1)[-1]
    for turn in range(13):
        if turn == 1:
            # The eleven turns between the first and the last through the services: the page
            # plays the game's start and its end, and loads the card they filled (checked too).
            live_site.play_turns(code, 11)
            solo.reload()
            solo.wait_for_selector("#conn[data-state=connected]")
            solo.wait_for_selector("#roll:not(:disabled)")
            assert no_horizontal_overflow(solo)
        if turn in (0, 12):
            play_turn(solo, [solo], holds=turn % 4 == 0)
            assert no_horizontal_overflow(solo)
    solo.wait_for_selector("#over:not([hidden])")
    assert no_horizontal_overflow(solo)


def test_a_full_turn_with_the_keyboard_only(live_site: LiveSite, new_page: Any) -> None:
    host, friend = new_page(), new_page()
    url = create_online(host, live_site, "Kim")
    join(friend, url, "Lee")
    host.wait_for_function("document.querySelectorAll('#seats .seat').length === 2")
    everyone = [host, friend]

    def tab_to(selector: str, limit: int = 80) -> None:
        for _ in range(limit):
            host.keyboard.press("Tab")
            if host.evaluate(f"document.activeElement.matches({selector!r})"):
                return
        raise AssertionError(f"Tab never reached {selector}")

    tab_to("#start")
    act(host, everyone, lambda: host.keyboard.press("Enter"))
    host.wait_for_selector("#roll")
    host.evaluate("document.activeElement.blur()")
    act(host, everyone, lambda: host.keyboard.press("Space"))
    act(host, everyone, lambda: host.keyboard.press("2"))
    act(host, everyone, lambda: host.keyboard.press("4"))
    assert held(host) == [1, 3]
    assert re.fullmatch(r"Die 2: \w+, held", host.get_attribute("#die-1", "aria-label"))
    act(host, everyone, lambda: host.keyboard.press("Space"))
    tab_to("#card .score-btn:not(.forbidden)")
    focused = host.evaluate("document.activeElement.getAttribute('aria-label')")
    assert focused.startswith("Score ")

    def enter() -> None:
        host.keyboard.press("Enter")
        if host.locator("#confirm[open]").count():
            host.keyboard.press("Enter")  # the confirmation's default button: Score 0

    act(host, everyone, enter)
    assert friend.inner_text("#turn-h").startswith("Your turn, Lee")
    assert host.inner_text("#turn-h") == "Lee's turn"
    # The live region told the player what happened.
    host.wait_for_function("document.getElementById('announce').textContent.length > 0")


def test_server_errors_are_shown_as_readable_messages(live_site: LiveSite, new_page: Any) -> None:
    page = new_page()

    def tamper(ws: Any) -> None:
        server = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            frame = json.loads(message)
            if frame.get("type") == "score":
                frame["box"] = "sevens"  # a box no rule set has
            server.send(json.dumps(frame))

        ws.on_message(to_server)

    page.route_web_socket(re.compile(r".*/ws/rooms/.*"), tamper)
    local_room(page, live_site, ["Solo"])
    act(page, [page], lambda: page.click("#roll"))
    box, _ = best_box(page)
    page.click(f"#{box}")
    if page.locator("#confirm[open]").count():
        page.click("#confirm-yes")
    # The refusal's own words, which replace the toast's first ones when they come before the page is idle.
    page.wait_for_function("/sevens|box/i.test(document.getElementById('toast').textContent)")
    assert page.is_visible("#toast")
    assert page.locator(f"#{box}").count() == 1  # nothing was scored


def test_boxes_the_forced_joker_forbids_are_disabled_with_the_reason(live_site: LiveSite, new_page: Any) -> None:
    page = new_page()
    url = local_room(page, live_site, ["Solo"])
    code = url.rstrip("/").rsplit("/", 1)[-1]
    act(page, [page], lambda: page.click("#roll"))
    # Dice cannot be chosen, so the stored state is set to the joker case directly: a second
    # Yahtzee of sixes with 50 in the Yahtzee box. The page draws what the server sends.
    (snapshot,) = live_site.query("SELECT snapshot FROM games_game WHERE code = ?", code)[0]
    data = json.loads(snapshot)
    data["rules"]["turn"]["dice"] = [6, 6, 6, 6, 6]
    data["rules"]["cards"][0]["columns"][0] = [["yahtzee", 50]]
    with sqlite3.connect(live_site.database) as conn:
        # A new version, as any write of the room makes: the server's copy of the row it last
        # wrote is then known to be stale, and its next action reads this one.
        conn.execute(
            "UPDATE games_game SET snapshot = ?, version = version + 1 WHERE code = ?", (json.dumps(data), code)
        )
    page.reload()
    page.wait_for_selector("#conn[data-state=connected]")
    sixes = page.locator("#score-sixes-0")
    assert sixes.get_attribute("aria-label") == "Score Sixes for 30 points plus a 100 Yahtzee bonus."
    forbidden = page.locator("#card .score-btn.forbidden")
    assert forbidden.count() == 11  # every other open box: the joker must go in Sixes
    chance = page.locator("#score-chance-0")
    assert chance.get_attribute("aria-disabled") == "true"
    reason = chance.get_attribute("title")
    assert "Sixes" in reason and reason in chance.get_attribute("aria-label")
    chance.focus()
    after = page.evaluate("getComputedStyle(document.getElementById('score-chance-0'), '::after').content")
    assert after.strip('"') == reason
    chance.click(force=True)  # aria-disabled, yet clickable: it explains itself
    assert page.inner_text("#toast") == reason  # explained, and nothing was sent
    act(page, [page], lambda: sixes.click())
    assert page.inner_text("#card tr.grand td") == "180"  # 50 + 30 + 100


def test_home_lobby_and_table_have_no_serious_accessibility_violations(live_site: LiveSite, new_page: Any) -> None:
    page = new_page()
    page.goto(live_site.url + "/")
    for scheme in in_each_scheme(page):
        assert serious_violations(page, scheme) == [], scheme
    url = create_online(page, live_site, "Ann")
    page.click("#add-bot")
    page.wait_for_selector("#seats .seat .tag.bot")
    for scheme in in_each_scheme(page):
        assert serious_violations(page, scheme) == [], scheme
        if scheme == "dark":  # the seats' tags follow the theme, the "away" one too
            tags = [("#seats .seat", "span", f"tag {kind}") for kind in ("you", "bot", "away", "")]
            assert light_boxes_in_the_dark(page, tags) == []
    friend = new_page()
    join(friend, url, "Bob")
    page.wait_for_function("document.querySelectorAll('#seats .seat').length === 3")
    act(page, [page, friend], lambda: page.click("#start"))
    act(page, [page, friend], lambda: page.click("#roll"))
    act(page, [page, friend], lambda: page.click("#die-0"))
    for scheme in in_each_scheme(page, friend):
        assert serious_violations(page, scheme) == [], scheme
        assert serious_violations(friend, scheme) == [], scheme


def test_a_game_against_computer_players_with_the_coachs_hint_and_review(live_site: LiveSite, new_page: Any) -> None:
    page = new_page()
    create_local(page, live_site, ["Ann"], bots=2, level="optimal")
    assert page.locator("#seats .tag.bot").count() == 2
    for turn in range(13):
        page.wait_for_function(
            "document.getElementById('turn-h')?.textContent.startsWith('Your turn, Ann') "
            "&& !document.getElementById('roll').disabled",
            timeout=20_000,
        )
        act(page, [page], lambda: page.click("#roll"))
        if turn == 0:
            page.click("#hint")
            page.wait_for_selector(".hint-box li")
            assert page.locator(".hint-box li").count() == 3
            assert "≈" in page.inner_text(".hint-box li.best")
        score_best(page, [page])
    page.wait_for_selector("#over:not([hidden])", timeout=20_000)
    page.wait_for_selector(".review-list li")
    # Ann alone on her device against computers: her review is told to her, as "You".
    review = page.inner_text("#review")
    assert "Your choices cost about" in review or "You played like the solver" in review, review
    assert page.errors == []


# --- without JavaScript: the server's table and its form posts -------------------------------------


def submit(page: Any, selector: str) -> None:
    """Press a button of the no-script table: a form post, then the room page it goes back to."""
    with page.expect_navigation():
        page.click(selector)


def ns_dice(page: Any) -> list[int]:
    return [int(text) for text in page.locator(".ns-die strong").all_inner_texts()]


class _Checker:
    """The page with script that a test's no-script looks are served to, and the document each
    address of theirs is to serve it (the newest look's)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.documents: dict[str, str] = {}


# One checker a test (by its new_page): a page of its own for each look cost Chromium a context
# and a renderer process each time, eight times in one test. Its route makes the pool close it
# when the test ends.
_CHECKERS: weakref.WeakKeyDictionary[Any, _Checker] = weakref.WeakKeyDictionary()


def looked_at_without_script(page: Any, new_page: Any, name: str, *, full_page: bool = False) -> None:
    """The no-script page ``page`` shows, checked in the light and dark schemes on a desktop and a phone:
    nothing serious for axe, nothing sideways.

    axe runs in the page's own script, which a page without JavaScript does not run: the same
    document, its ``<noscript>`` opened, its scripts and its reload taken out, is served to a page
    with script at the same address.
    """
    document = re.sub(r"<script\b[^>]*>.*?</script>", "", page.content(), flags=re.S)
    document = re.sub(
        r'<meta http-equiv="refresh"[^>]*>', "", document.replace("<noscript>", "").replace("</noscript>", "")
    )
    kept = _CHECKERS.get(new_page)
    if kept is None:
        kept = _CHECKERS[new_page] = _Checker(new_page())
    checker, documents = kept.page, kept.documents
    # A route matches an address without its fragment (a form's page that opens at its part, #ns-chat).
    address = page.url.split("#", 1)[0]
    if address not in documents:
        checker.route(
            address, lambda route: route.fulfill(status=200, content_type="text/html", body=documents[address])
        )
    documents[address] = document
    if checker.url.split("#", 1)[0] == address:
        # Only the fragment would change: the browser would keep the document it has.
        checker.goto("about:blank")
    checker.goto(page.url)
    for width, height in ((1280, 800), (390, 844)):
        checker.set_viewport_size({"width": width, "height": height})
        for scheme in in_each_scheme(checker):
            assert serious_violations(checker, scheme) == [], (name, width, scheme)
            shot(checker, f"noscript-{name}-{width}-{scheme}", full_page=full_page)
        assert no_horizontal_overflow(checker), (name, width)


def create_online_without_script(page: Any, site: LiveSite, name: str) -> str:
    """An online room made from the home page's form with scripts off; the room's address."""
    page.goto(site.url + "/")
    page.check("input[name=mode][value=online]")
    page.fill("#id_name", name)
    submit(page, "#create-btn")
    return str(page.url)


def test_two_people_play_a_whole_official_game_without_javascript(live_site: LiveSite, new_page: Any) -> None:
    ada, ben = new_page(java_script_enabled=False), new_page(java_script_enabled=False)
    url = create_online_without_script(ada, live_site, "Ada")
    assert "needs JavaScript" not in ada.inner_text("main")
    looked_at_without_script(ada, new_page, "official-lobby")
    look_again(ben, url)
    ben.fill("#ns-join-name", "Ben")
    submit(ben, "#ns-join-btn")
    assert "Waiting for the host to start the game." in ben.inner_text("[data-testid=noscript-table]")
    look_again(ada, url)
    assert ada.inner_text("#ns-start") == "Start game with 2 players"
    submit(ada, "#ns-start")
    players = {"Ada": ada, "Ben": ben}
    for turn in range(26):
        if 2 <= turn < 24:
            # The rounds between the first and the last through the services: the pages play the
            # game's first round (holds kept over a roll) and the round that ends it (the last
            # boxes left, where a zero is asked about first as a rule), and load the rest.
            if turn == 2:
                live_site.play_turns(url.rstrip("/").rsplit("/", 1)[-1], 22)
            continue
        mover, waiting = (ada, ben) if turn % 2 == 0 else (ben, ada)
        look_again(mover, url)
        # After the first turn of a round the pages play, the waiting player's page is the one
        # their own last move went back to: the room as it is now, the page a look again would load.
        if turn in (0, 24):
            look_again(waiting, url)
        name = "Ada" if mover is ada else "Ben"
        assert mover.inner_text("#ns-h") == f"Your turn, {name}"
        assert waiting.inner_text("#ns-h") == f"{name}'s turn"
        # The waiting player's page looks again by itself, and has a link to do it now.
        assert waiting.locator("meta[http-equiv=refresh]").get_attribute("content") == "8"
        assert mover.locator("meta[http-equiv=refresh]").count() == 0
        assert waiting.locator("#ns-refresh").is_visible()
        submit(mover, "#ns-roll")
        if turn == 0:  # keep two dice and roll again: they stay as they were
            first = ns_dice(mover)
            mover.check("#ns-held-0")
            mover.check("#ns-held-3")
            assert mover.inner_text("#ns-rolls-left") == "2 rolls left"
            looked_at_without_script(mover, new_page, "official-turn")
            submit(mover, "#ns-roll")
            again = ns_dice(mover)
            assert (again[0], again[3]) == (first[0], first[3])
            assert mover.is_checked("#ns-held-0") and mover.is_checked("#ns-held-3")
        # The first box the rules allow (each a button with its points); one that would score 0 asks first.
        zero = "zero" in (mover.get_attribute(".ns-score-btn >> nth=0", "class") or "")
        submit(mover, ".ns-score-btn")
        if zero:
            assert mover.inner_text("#ns-confirm-h") == "Score zero?"
            submit(mover, "#ns-confirm-yes")
        assert players[name] is mover
    for name, page in (("Ada", ada), ("Ben", ben)):
        look_again(page, url)
        winner = page.inner_text("#ns-winner")
        assert re.fullmatch(r"(Ada|Ben) wins!|A tie! Ada, Ben share the win\.", winner)
        # The heading is the reader's own result: the winner's, "You win!"; the other's, "Game over".
        mine = "You win!" if winner.startswith(name) else "Game over"
        assert page.inner_text("#ns-h") == ("You share the win!" if winner.startswith("A tie!") else mine)
        assert page.locator("meta[http-equiv=refresh]").count() == 0
    looked_at_without_script(ada, new_page, "official-over")
    with ada.expect_navigation():
        ada.click("#ns-replay")
    assert ada.url.endswith("/replay")


def test_a_player_without_javascript_goes_back_to_the_room_as_their_page_reloads_itself(
    live_site: LiveSite, new_page: Any
) -> None:
    ada, ben = new_page(java_script_enabled=False), new_page(java_script_enabled=False)
    url = create_online_without_script(ada, live_site, "Ada")
    look_again(ben, url)
    ben.fill("#ns-join-name", "Ben")
    submit(ben, "#ns-join-btn")
    assert ben.locator("meta[http-equiv=refresh]").count() == 1
    # Ben's page waiting for the host reloads itself: its answer is coming in as he goes back.
    with ben.expect_response(url):
        pass
    look_again(ben, url)
    assert "Waiting for the host to start the game." in ben.inner_text("[data-testid=noscript-table]")


def test_a_host_without_javascript_pauses_the_game_and_a_player_chats(live_site: LiveSite, new_page: Any) -> None:
    ada, ben, cy = (new_page(java_script_enabled=False) for _ in range(3))
    # Cy's browser never says it is at the table (the stylesheet it would load): his seat counts as away.
    cy.route("**/here.css", lambda route: route.abort())
    url = create_online_without_script(ada, live_site, "Ada")
    for page, name in ((ben, "Ben"), (cy, "Cy")):
        look_again(page, url)
        page.fill("#ns-join-name", name)
        submit(page, "#ns-join-btn")
    # Cy goes: his page, waiting, would load itself again every 8 s (its meta refresh) to the end.
    cy.goto("about:blank")
    assert ben.locator("#ns-add-bot, #ns-start, [id^=ns-kick-]").count() == 0
    look_again(ada, url)
    ada.select_option("#ns-bot-level", "beginner")
    submit(ada, "#ns-add-bot")
    assert "computer · Beginner" in ada.inner_text(".ns-players")
    looked_at_without_script(ada, new_page, "host-lobby", full_page=True)
    submit(ada, "#ns-start")
    submit(ada, "#ns-pause")
    assert ada.inner_text(".ns-paused") == "You paused the game"  # the host reads it of herself
    assert ada.inner_text("#ns-pause") == "Resume game" and ada.locator("#ns-roll").count() == 0
    look_again(ben, url)
    assert ben.inner_text(".ns-paused") == "Game paused by the host" and ben.locator("#ns-pause").count() == 0
    # Ben's page reloads itself while he waits: he writes on a page that holds still.
    assert ben.locator("#ns-chat-text").count() == 0
    looked_at_without_script(ben, new_page, "player-waiting", full_page=True)
    submit(ben, "#ns-chat-write")
    assert ben.locator("meta[http-equiv=refresh]").count() == 0
    ben.fill("#ns-chat-text", "Take your time, Ada")
    submit(ben, "#ns-chat-send")
    assert ben.url.endswith("#ns-chat") and "Ben: Take your time, Ada" in ben.inner_text(".ns-chat-list")
    submit(ben, "#ns-chat-write")
    ben.fill("#ns-chat-text", "x" * 301)
    submit(ben, "#ns-chat-send")
    assert "at most 300 characters" in ben.inner_text("#ns-chat-error")
    assert ben.input_value("#ns-chat-text") == "x" * 301 and ben.locator(".ns-chat-list li").count() == 1
    looked_at_without_script(ben, new_page, "player-chat", full_page=True)
    look_again(ada, url)
    assert "Ben: Take your time, Ada" in ada.inner_text(".ns-chat-list")
    # The host mutes Ben's chat from the Players list, and lets him speak again.
    submit(ada, "#ns-mute-1")
    assert "chat muted" in ada.inner_text(".ns-players") and ada.locator("#ns-unmute-1").is_visible()
    submit(ada, "#ns-unmute-1")
    assert "chat muted" not in ada.inner_text(".ns-players")
    # Cy is away: the host may let a computer play his seat or take him out.
    assert "Cy is away" in ada.inner_text(".ns-host-tools")
    looked_at_without_script(ada, new_page, "host-paused", full_page=True)
    submit(ada, "#ns-remove-2")  # asks first, as the page with script does
    assert ada.inner_text("#ns-ask-text") == "Take Cy out of the game? Their scores stay on the card."
    looked_at_without_script(ada, new_page, "seat-question", full_page=True)
    submit(ada, "#ns-ask-no")
    assert ada.locator("#ns-ask").count() == 0 and ada.locator("#ns-remove-2").is_visible()
    submit(ada, "#ns-pause")
    assert ada.locator(".ns-paused").count() == 0
    # Ada's turn: Yahtzee's box would score 0 (roll again in the rare roll that makes one).
    submit(ada, "#ns-roll")
    while ada.locator("#ns-score-yahtzee-0.zero").count() == 0:
        submit(ada, "#ns-roll")
    submit(ada, "#ns-score-yahtzee-0")
    assert ada.inner_text("#ns-confirm-h") == "Score zero?"
    looked_at_without_script(ada, new_page, "zero-question", full_page=True)
    submit(ada, "#ns-confirm-yes")
    row = ada.locator(".ns-scorecard tr", has=ada.locator("th", has_text=re.compile("^Yahtzee$")))
    assert row.locator("td").first.inner_text() == "0"
    # Ben's turn: he asks the coach, reacts, and leaves the game (asked first).
    look_again(ben, url)
    submit(ben, "#ns-roll")
    submit(ben, "#ns-hint")
    assert re.search(r"Coach:|getting ready", ben.inner_text("#ns-hint-box"))
    submit(ben, "#ns-react-1")
    assert ben.locator(".messages").count() == 0
    looked_at_without_script(ben, new_page, "player-hint", full_page=True)
    submit(ben, "#ns-leave-1")
    assert ben.inner_text("#ns-ask-text") == "Leave the game as Ben?"
    looked_at_without_script(ben, new_page, "leave-question", full_page=True)
    submit(ben, "#ns-ask-yes")
    assert ben.locator("[id^=ns-leave-]").count() == 0
    # Seen by a page of its own (Ada's reloads itself while she waits: a goto could meet its reload).
    watcher = new_page(java_script_enabled=False)
    watcher.goto(url)
    assert re.search(r"Ben\s+left", watcher.inner_text(".ns-players"))


def test_a_painted_turn_without_javascript_scores_a_colour_box(live_site: LiveSite, new_page: Any) -> None:
    page = new_page(java_script_enabled=False)
    page.goto(live_site.url + "/")
    page.check("input[name=mode][value=online]")
    page.fill("#id_name", "Ada")
    page.check("input[name=ruleset][value=painted]")
    submit(page, "#create-btn")
    submit(page, "#ns-start")
    submit(page, "#ns-roll")
    # Each die says its colour in words beside its value.
    labels = page.locator(".ns-die").all_inner_texts()
    assert all(re.search(r"\d\s+(red|yellow|green|blue|purple)$", label.strip()) for label in labels), labels
    page.check("#ns-held-1")
    looked_at_without_script(page, new_page, "painted-turn")
    red = page.inner_text("#ns-score-red-0")
    submit(page, "#ns-score-red-0")
    if red == "0":  # a box that would score 0 asks first
        submit(page, "#ns-confirm-yes")
    row = page.locator(".ns-scorecard tr", has=page.locator("th", has_text=re.compile("^Red$")))
    assert row.locator("td").inner_text() == red
    assert page.locator("#ns-score-red-0").count() == 0


def test_the_question_before_a_zero_in_a_column_names_the_column_in_one_sentence(
    live_site: LiveSite, new_page: Any
) -> None:
    """Triple: a box that would score 0 in column ×2 asks first, naming the box and its column in
    one sentence, not the box's name with "(×2)" put after it."""
    page = new_page()
    local_room(page, live_site, ["Solo"], ruleset="triple")
    act(page, [page], lambda: page.click("#roll"))
    # Five dice show at most five faces, so one upper box of six scores 0 in every column.
    zero = page.locator('#card .score-btn.zero[data-col="1"]').first
    box = zero.get_attribute("data-box")
    zero.click()
    page.wait_for_selector("#confirm[open]")
    text = page.inner_text("#confirm-text")
    assert re.fullmatch(r"These dice score nothing in \S.* in column ×2\. Fill it with a 0\?", text), text
    assert "(×" not in text
    page.keyboard.press("Escape")
    page.wait_for_selector("#confirm[open]", state="detached")
    assert page.locator(f'#card .score-btn[data-box="{box}"][data-col="1"]').count() == 1  # nothing was scored

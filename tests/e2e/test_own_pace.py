"""Play at your own pace in Chromium: three games at once on Your games, the right one first; a move
made while the other player's pages are closed tells them once by e-mail and once by Web Push,
sent by a task worker process that a restart (SIGKILL) neither makes lose nor repeat; turning
notifications on (permission, service worker, subscription posted) and off, and on again with the
site's new key; no notification over the room's own window; Your games without JavaScript."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from games.domain.codes import shown_code
from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import (
    code_of,
    create_online,
    created,
    in_each_scheme,
    join,
    no_horizontal_overflow,
    online_form,
    serious_violations,
    shot,
    time_passes,
    version,
)
from tests.e2e.test_accounts import sign_in, sign_out, sign_up, username
from tests.e2e.test_social import KEEP_SOCKETS
from tests.live import ROOT, Browser, dies_with_tests, released
from tests.push_stub import PushService, Subscriber

pytestmark = pytest.mark.browser
DAY = 86_400
WAIT = 30.0


def create_own_pace(page: Any, site: LiveSite, name: str, seconds: int) -> str:
    """A room at your own pace created through the home page's form; its code."""
    online_form(page, site, name)
    page.check("input[name=pace][value=own]")
    page.wait_for_selector("#id_move_time", state="visible")
    assert page.is_hidden("#id_turn_timer")  # the live timer is not this pace's
    page.select_option("#id_move_time", str(seconds))
    return code_of(created(page))


def start(page: Any, seats: int = 2) -> None:
    """Start the room on its host's page once the page shows ``seats`` players: a player who joined
    by a form post reaches the page by its socket, and a Start pressed before then names a version
    the join has passed (the server refuses it, and the room stays in its lobby)."""
    page.wait_for_function(f"document.querySelectorAll('#seats li.seat:not(.gone)').length >= {seats}")
    page.wait_for_selector("#start:not([disabled])")
    before = version(page)
    page.click("#start")
    page.wait_for_function(f"Number(document.getElementById('room').dataset.version) > {before}")
    page.wait_for_selector("#lobby", state="hidden")


def post_action(browser: Browser, code: str, action: str, **data: str) -> None:
    """One action through the no-script form posts, at the room's current version."""
    state = browser.state(code)
    browser.post(
        f"/r/{code}/{action}", {"version": str(state["version"]), "action_id": f"{action}-{state['version']}", **data}
    )


def play_a_turn(browser: Browser, code: str) -> None:
    """Roll once and score the first legal box, as the player to move (no page, no socket)."""
    post_action(browser, code, "roll")
    option = next(o for o in browser.state(code)["options"] if o["legal"])
    post_action(browser, code, "score", box=option["box"], column=str(option["column"]))


def wider(page: Any) -> list[str]:
    """The elements that reach past the page's right edge, for a failure's message."""
    return list(
        page.evaluate(
            """[...document.querySelectorAll('body *')]
              .filter(e => e.getBoundingClientRect().right > innerWidth + 1)
              .map(e => `${e.tagName}.${e.className}: ${Math.round(e.getBoundingClientRect().right)}`).slice(0, 8)"""
        )
    )


def wait_for(site: LiveSite, condition: Callable[[], bool], what: str, log: Path, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
            outcomes = site.query("SELECT kind, seat, outcome FROM games_notice")
            raise AssertionError(f"waited {timeout} s for {what}; notices {outcomes}; the task worker said:\n{tail}")
        time.sleep(0.1)


# --- three games at once ----------------------------------------------------------------------------


def test_three_games_at_once_on_your_games_the_one_to_move_soonest_first(live_site: LiveSite, new_page: Any) -> None:
    ana = new_page()
    ben = Browser(live_site.url)
    # Ana hosts a 7-day game and a 1-day one and moves first in both; Ben hosts a third and moves first.
    slow = create_own_pace(ana, live_site, "Ana", 7 * DAY)
    ben.join(slow, "Ben")
    start(ana)
    quick = create_own_pace(ana, live_site, "Ana", DAY)
    ben.join(quick, "Ben")
    start(ana)
    # Ben's room, made through the same form (no script) with the pace fields.
    theirs = (
        ben.post(
            "/rooms/new",
            {"name": "Ben", "ruleset": "yatzy", "mode": "online", "pace": "own", "move_time": str(3 * DAY)},
        )
        .rstrip("/")
        .rsplit("/", 1)[-1]
    )
    join(ana, f"{live_site.url}/r/{theirs}/", "Ana")
    post_action(ben, theirs, "start")
    # A fourth that Ben joined and only Ana can start.
    lobby = create_own_pace(ana, live_site, "Ana", DAY)
    ben.join(lobby, "Ben")

    ana.goto(live_site.url + "/games")
    codes = ana.eval_on_selector_all(".game-row", "rows => rows.map(r => r.dataset.code)")
    # Hers by the soonest deadline, then the others, the most recently active first.
    assert codes[:4] == [quick, slow, lobby, theirs]
    rows = ana.locator(".game-row")
    assert "Waiting for you to start it" in rows.nth(2).inner_text()
    assert "Your move" in rows.nth(0).inner_text() and "1 day a move" in rows.nth(0).inner_text()
    assert "Ben to move" in rows.nth(3).inner_text() and "Yatzy" in rows.nth(3).inner_text()
    assert re.search(r"23 hours( \d+ minutes?)? left|1 day left", rows.nth(0).inner_text())
    assert "Round 1 of 15" in rows.nth(3).inner_text()
    count = ana.text_content("#waiting-count") or ""
    assert count.startswith("2")
    assert not serious_violations(ana)

    # The first one opens the room, which says its pace and counts the move's time in days and hours.
    rows.nth(0).locator("a").click()
    ana.wait_for_selector("#conn[data-state=connected]")
    assert "at your own pace, 1 day a move" in (ana.text_content("#room-sub") or "")
    countdown = ana.text_content("[data-countdown^=seat]") or ""
    assert re.fullmatch(r"(23 h \d+ min|1 d 0 h)", countdown), countdown
    # Nobody need be online: the host is offered no "take out (away)" for Ben.
    assert ana.locator("#remove-1").count() == 0 and ana.locator("#replace-1").count() == 0

    for width, height, device in ((1280, 800, "desktop"), (390, 844, "phone")):
        ana.set_viewport_size({"width": width, "height": height})
        for page_name, path in (("your-games", "/games"), ("room", f"/r/{quick}/"), ("create", "/")):
            ana.goto(live_site.url + path)
            if page_name == "create":
                ana.check("input[name=pace][value=own]")
            if page_name == "room":
                ana.wait_for_selector("#conn[data-state=connected]")
            for scheme in in_each_scheme(ana):
                shot(ana, f"own-pace-{page_name}-{device}-{scheme}", full_page=page_name != "room")
                assert no_horizontal_overflow(ana), f"{page_name} overflows on a {device}: {wider(ana)}"


def waiting_badge(page: Any) -> str:
    """The header's count of games waiting for this browser's move, as a reader sees it ("" when none)."""
    badge = page.locator("#waiting-count")
    return (badge.text_content() or "").strip() if badge.count() and badge.is_visible() else ""


def test_the_headers_count_of_games_waiting_for_you_follows_the_turn_in_the_room_in_view(
    live_site: LiveSite, new_page: Any
) -> None:
    """Two games wait for Ana's move. In one of them she moves: the header's count says one game
    waits now, not the two it said when the page was drawn. In the other she moves too: no game
    waits, and the count goes; when Ben moves there, it says one again."""
    ana = new_page()
    ben = Browser(live_site.url)
    other = create_own_pace(ana, live_site, "Ana", DAY)
    ben.join(other, "Ben")
    start(ana)
    code = create_own_pace(ana, live_site, "Ana", DAY)
    ben.join(code, "Ben")
    start(ana)
    ana.reload()
    ana.wait_for_selector("#conn[data-state=connected]")
    assert waiting_badge(ana).startswith("2")
    move(ana, live_site)
    ana.wait_for_function("document.getElementById('waiting-count')?.textContent.trim().startsWith('1')")
    ana.goto(f"{live_site.url}/r/{other}/")
    ana.wait_for_selector("#conn[data-state=connected]")
    assert waiting_badge(ana).startswith("1")
    move(ana, live_site)
    ana.wait_for_function("!document.getElementById('waiting-count')?.checkVisibility()")
    assert waiting_badge(ana) == ""
    play_a_turn(ben, other)
    ana.wait_for_function("document.getElementById('waiting-count')?.checkVisibility()")
    assert waiting_badge(ana).startswith("1")
    assert "waiting for your move" in (ana.text_content("#waiting-count") or "")
    for scheme in in_each_scheme(ana):
        shot(ana, f"own-pace-waiting-count-{scheme}")
    assert ana.errors == []


def move(page: Any, site: LiveSite) -> None:
    """The page's player rolls once and scores the first box offered."""
    page.wait_for_selector("#roll:not([disabled])")
    page.click("#roll")
    rolled(page, site)
    before = version(page)
    page.click("#card .score-btn:not(.forbidden)")
    if page.locator("#confirm[open]").count():
        page.click("#confirm-yes")
    page.wait_for_function(f"Number(document.getElementById('room').dataset.version) > {before}")


# --- told once, whoever is online -------------------------------------------------------------------


@contextlib.contextmanager
def task_worker(site: LiveSite, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``manage.py notice_worker`` on the site's database; its output (the console e-mails) goes to ``log``."""
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "manage.py", "notice_worker", "--interval", "0.2"],
            cwd=ROOT,
            env={**site.env, "LOG_LEVEL": "INFO"},  # its tasks' comings and goings, for a failure's message
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    dies_with_tests(proc)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        released(proc)


# Whether the task worker is done with every task of room ``code``'s notices due within ``ahead``
# seconds of the server's now: none is running, and none waits that is due by then (a task queued
# to run at once waits with django-tasks-db's latest date as its time). A task queues the ones it
# owes before it is done. Other rooms' are not looked at: a worker killed in another test leaves
# its task running for ever.
_TASKS_DONE = """
from datetime import timedelta
from django.db.models import Q
from django.utils import timezone
from django_tasks_db.models import DBTaskResult, get_date_max
from games.store.models import Notice
code, ahead = args
by = timezone.now() + timedelta(seconds=ahead)
due = Q(status="RUNNING") | Q(status="READY") & (Q(run_after=get_date_max()) | Q(run_after__lte=by))
notices = set(Notice.objects.filter(game__code=code).values_list("pk", flat=True))
tasks = DBTaskResult.objects.filter(due, task_path__endswith="send_notice").values_list("args_kwargs", flat=True)
result = not any(task["args"][0] in notices for task in tasks)
"""


def tasks_done(site: LiveSite, code: str, log: Path, ahead: float = 1.0) -> None:
    """Until the task worker has run every task of room ``code``'s notices due by ``ahead`` seconds
    from now: whatever it would send for them by then has been sent."""
    by = time.monotonic() + ahead
    wait_for(site, lambda: bool(site.run(_TASKS_DONE, code, max(0.0, by - time.monotonic()))), "the tasks due run", log)


def confirm_link(site: LiveSite, address: str) -> str:
    """The path of the link in the confirmation the site's server wrote (its console e-mail) to ``address``."""
    found: list[str] = []

    def sent() -> bool:
        text = site.server.log_path.read_text(errors="replace")
        found[:] = re.findall(
            rf"^To: {re.escape(address)}$.*?(/notices/email/confirm/\S+)", text, re.MULTILINE | re.DOTALL
        )
        return bool(found)

    wait_for(site, sent, "the confirmation e-mail", site.server.log_path)
    return found[-1]


def sockets_in(site: LiveSite, code: str) -> int:
    """How many sockets the server counts in room ``code`` (its Presence rows)."""
    query = "SELECT COUNT(*) FROM games_presence p JOIN games_game g ON g.id = p.game_id WHERE g.code = ?"
    return int(site.query(query, code)[0][0])


def emails(log: Path, code: str) -> list[str]:
    """The "your turn" e-mails of room ``code`` the console backend wrote."""
    text = log.read_text(errors="replace") if log.exists() else ""
    return re.findall(rf"^Subject: Your turn in room {re.escape(shown_code(code))}$", text, re.MULTILINE)


# A browser here cannot reach a real push service (Chromium's subscribe needs Google's): the page's
# PushManager hands out this subscription, whose keys the test holds, so the server's real encrypted
# push to the stub push service can be opened. Everything else (permission, service worker, posting
# the subscription, the server's sending) is the real thing.
FAKE_PUSH = """(subscription) => {
  // Kept by the browser across pages, as a real subscription is.
  const made = () => ({
    endpoint: subscription.endpoint,
    toJSON: () => subscription,
    unsubscribe: async () => { localStorage.removeItem("fake-push"); return true; },
  });
  PushManager.prototype.subscribe = async function (options) {
    const key = new Uint8Array(options.applicationServerKey);
    window.subscribedWith = btoa(String.fromCharCode(...key))
      .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
    localStorage.setItem("fake-push", "1");
    return made();
  };
  PushManager.prototype.getSubscription = async function () {
    return localStorage.getItem("fake-push") ? made() : null;
  };
}"""


def rolled(page: Any, site: LiveSite) -> None:
    """Until the roll just clicked shows its boxes to score; if it never does, what the page and the
    server said meanwhile (the page's last toast, its version and connection, the server's log)."""
    try:
        page.wait_for_selector("#card .score-btn:not(.forbidden)")
    except PlaywrightTimeoutError as exc:
        seen = page.evaluate(
            """() => ({version: document.getElementById('room').dataset.version,
                       conn: document.getElementById('conn').dataset.state,
                       turn: document.getElementById('turn-h')?.textContent,
                       toast: document.getElementById('toast').textContent})"""
        )
        said = f"the roll showed no box to score: {seen}, errors {page.errors}"
        raise AssertionError(f"{said}\nthe server's log:\n{site.server.log()}") from exc


def test_a_page_that_slept_counts_down_from_the_time_the_server_says_is_left_when_it_reconnects(
    live_site: LiveSite, new_page: Any
) -> None:
    """A phone or laptop that sleeps stops the page's monotonic clock (``performance.now()`` does not
    count a system's sleep on Android, macOS and iOS), while the move's real time runs on. When it
    wakes the socket reconnects and the server sends the state, with the seconds truly left; nobody
    moved meanwhile, so the state's version is the one the page had, and the page kept counting
    down from the time it had counted from."""
    ana = new_page()
    ben = Browser(live_site.url)
    code = create_own_pace(ana, live_site, "Ana", DAY)
    ben.join(code, "Ben")
    start(ana)
    ana.add_init_script(KEEP_SOCKETS)
    ana.reload()
    ana.wait_for_selector("#conn[data-state=connected]")
    assert re.fullmatch(r"1 d 0 h|23 h \d+ min", ana.text_content("[data-countdown^=seat]") or "")
    version = ana.evaluate("Number(document.getElementById('room').dataset.version)")
    assert time_passes(live_site, code, 10 * 3600) == version  # the page slept through ten hours
    # The phone wakes: its socket dropped, the page reconnects and is sent the room's state.
    ana.evaluate("window.__sockets.at(-1).close()")
    ana.wait_for_selector("#conn[data-state=connected]")
    ana.wait_for_function("window.__sockets.length >= 2 && window.__sockets.at(-1).readyState === 1")
    # The server says about 14 hours are left, not the 24 the page counted from.
    ana.wait_for_function(
        "/^1[34] h \\d+ min$/.test(document.querySelector('[data-countdown^=seat]')?.textContent)", timeout=10_000
    )


def test_a_move_while_the_other_player_is_away_tells_them_once_by_e_mail_and_push(
    live_site: LiveSite, new_page: Any, tmp_path: Path
) -> None:
    push = PushService().start()
    subscriber = Subscriber(f"{push.url}/push/ben")
    log = tmp_path / "tasks.log"
    try:
        # Ben signs up, gives his address, and turns notifications on in this browser.
        ben = new_page()
        ben.context.grant_permissions(["notifications"], origin=live_site.url)
        ben.add_init_script(script=f"({FAKE_PUSH})({json.dumps(subscriber.subscription)})")
        name = username("ben")
        sign_up(ben, live_site, name)
        ben.goto(live_site.url + "/games")
        ben.fill("#id_address", f"{name}@example.org")
        ben.check("#id_on")
        ben.click("#email-save")
        # The address gets a link first (the server's console e-mail), whose button turns them on.
        ben.wait_for_selector(f"text=We sent a link to {name}@example.org")
        ben.goto(live_site.url + confirm_link(live_site, f"{name}@example.org"))
        for width, height in ((1280, 800), (390, 844)):
            ben.set_viewport_size({"width": width, "height": height})
            assert no_horizontal_overflow(ben)
            for scheme in in_each_scheme(ben):
                assert serious_violations(ben, scheme) == [], (width, scheme)
                shot(ben, f"confirm-address-{width}-{scheme}")
        ben.emulate_media(color_scheme="light")
        ben.click("#confirm-btn")
        ben.wait_for_selector("#confirm-done")
        ben.goto(live_site.url + "/games")
        assert ben.is_checked("#id_on")
        ben.wait_for_selector("#push-on:not([hidden])")
        ben.click("#push-on")
        ben.wait_for_selector("#push-box[data-state=on]")
        # A game's end and a seat the computer took over are told as well as a turn, as the card above says.
        told = (
            "On: this device is told when it is your turn, when the computer takes over your seat and when a game ends."
        )
        assert ben.text_content("#push-status") == told
        worker_url = ben.evaluate("navigator.serviceWorker.getRegistration('/').then(r => r.active.scriptURL)")
        assert worker_url == live_site.url + "/sw.js"
        key = ben.eval_on_selector("#push-box", "box => box.dataset.key")
        assert ben.evaluate("window.subscribedWith") == key  # subscribed with the server's VAPID key
        stored = live_site.query(
            "SELECT endpoint, user_id FROM games_pushsubscription WHERE endpoint = ?", subscriber.endpoint
        )
        assert len(stored) == 1 and stored[0][1] is not None

        # Ana (no script, no socket) hosts a game at your own pace; Ben takes a seat; Ana starts.
        ana = Browser(live_site.url)
        code = ana.post(
            "/rooms/new", {"name": "Ana", "ruleset": "official", "mode": "online", "pace": "own", "move_time": str(DAY)}
        )
        code = code.rstrip("/").rsplit("/", 1)[-1]
        join(ben, f"{live_site.url}/r/{code}/", "Ben")
        post_action(ana, code, "start")
        ben.goto("about:blank")  # Ben's pages are closed: no socket of his anywhere

        # No task worker runs yet: Ana's move owes Ben his notice, and nothing is sent.
        play_a_turn(ana, code)
        owed = live_site.query(
            "SELECT n.kind, n.done_at FROM games_notice n JOIN games_game g ON g.id = n.game_id"
            " WHERE g.code = ? AND n.seat = 1",
            code,
        )
        assert sorted(kind for kind, _ in owed) == ["reminder", "turn"] and all(done is None for _, done in owed)
        assert not push.requests and not emails(log, code)

        # The worker starts: one e-mail, one push.
        with task_worker(live_site, log) as worker:
            wait_for(
                live_site, lambda: len(push.requests) >= 1 and len(emails(log, code)) >= 1, "the first notice", log
            )
            payload = subscriber.open(push.requests[0].body)
            assert payload["title"] == f"Your turn in room {shown_code(code)}"
            assert payload["body"].startswith(f"Your turn in room {shown_code(code)}: Ana just scored ")
            assert payload["url"] == f"{live_site.url}/r/{code}/"
            assert push.requests[0].headers["content-encoding"] == "aes128gcm"
            assert push.requests[0].headers["authorization"].startswith("vapid t=")
            done = (
                "SELECT n.outcome FROM games_notice n JOIN games_game g ON g.id = n.game_id"
                " WHERE g.code = ? AND n.kind = 'turn'"
            )
            wait_for(live_site, lambda: bool(live_site.query(done, code)[0][0]), "the notice marked sent", log)
            os.killpg(worker.pid, signal.SIGKILL)  # no shutdown code runs
            worker.wait(10)
        assert len(push.requests) == 1 and len(emails(log, code)) == 1

        # Restarted, the worker repeats nothing; the next turn Ana gives Ben is told once more.
        with task_worker(live_site, log):
            ben.goto(f"{live_site.url}/r/{code}/")
            ben.wait_for_selector("#conn[data-state=connected]")
            ben.wait_for_selector("#roll:not([disabled])")
            ben.click("#roll")
            rolled(ben, live_site)
            before = version(ben)
            ben.click("#card .score-btn:not(.forbidden)")
            if ben.locator("#confirm[open]").count():
                ben.click("#confirm-yes")
            ben.wait_for_function(f"Number(document.getElementById('room').dataset.version) > {before}")
            ben.goto("about:blank")
            # Gone from the table (a player with the room open is told by the page, not by e-mail).
            wait_for(live_site, lambda: not sockets_in(live_site, code), "Ben's socket closed", log)
            play_a_turn(ana, code)
            wait_for(
                live_site, lambda: len(push.requests) >= 2 and len(emails(log, code)) >= 2, "the second notice", log
            )
            # The worker marks a notice done once the mail server and the push service have answered.
            sent_query = (
                "SELECT n.outcome FROM games_notice n JOIN games_game g ON g.id = n.game_id"
                " WHERE g.code = ? AND n.kind = 'turn' AND n.seat = 1"
            )
            wait_for(
                live_site,
                lambda: all(outcome for (outcome,) in live_site.query(sent_query, code)),
                "the second notice marked sent",
                log,
            )
        assert len(push.requests) == 2 and len(emails(log, code)) == 2
        sent = live_site.query(sent_query, code)
        assert [outcome for (outcome,) in sent] == ["sent: e-mail, 1 push"] * 2

        # One click stops this device's notifications.
        ben.goto(live_site.url + "/games")
        ben.wait_for_selector("#push-off:not([hidden])")
        ben.click("#push-off")
        ben.wait_for_selector("#push-box[data-state=off]")
        assert not live_site.query("SELECT id FROM games_pushsubscription WHERE endpoint = ?", subscriber.endpoint)
        for scheme in in_each_scheme(ben):
            shot(ben, f"own-pace-notices-{scheme}", full_page=True)
    finally:
        push.stop()


# The page's Page Visibility API as the browser would set it when its tab goes behind another (or
# the phone's browser to the background), and its event: headless Chromium keeps every page shown.
SET_HIDDEN = """(hidden) => {
  const state = hidden ? "hidden" : "visible";
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => state });
  Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
  document.dispatchEvent(new Event("visibilitychange"));
}"""

# A device of the seat's player turned notifications on (the page's own subscribing is tested above).
SUBSCRIBE = """
from games import services
from games.store.models import Player
code, seat, subscription = args
controller = Player.objects.get(game__code=code, seat=seat).controller
services.push_subscribe(controller=controller, user_id=None, subscription=subscription)
result = controller
"""


def test_a_player_whose_room_pages_are_all_in_the_background_is_pushed_once_and_one_in_view_is_enough(
    live_site: LiveSite, new_page: Any, tmp_path: Path
) -> None:
    """Ben has the room open in two tabs. With one of them in view the page tells him of his turn; with
    both in the background (HIDDEN_AWAY: 2 s on this site) he is pushed, once, as if none were open.
    A tab in the background whose socket drops says so again on its new socket, with the time it
    has been hidden."""
    push = PushService().start()
    subscriber = Subscriber(f"{push.url}/push/ben")
    log = tmp_path / "tasks.log"
    hidden_rows = (
        "SELECT p.channel_name, p.hidden_since FROM games_presence p JOIN games_game g ON g.id = p.game_id"
        " WHERE g.code = ? AND p.controller = ? ORDER BY p.id"
    )
    turn_outcomes = (
        "SELECT n.outcome FROM games_notice n JOIN games_game g ON g.id = n.game_id"
        " WHERE g.code = ? AND n.kind = 'turn' AND n.seat = 1 ORDER BY n.id"
    )
    try:
        ana = Browser(live_site.url)
        code = ana.post(
            "/rooms/new", {"name": "Ana", "ruleset": "official", "mode": "online", "pace": "own", "move_time": str(DAY)}
        )
        code = code.rstrip("/").rsplit("/", 1)[-1]
        first = new_page()
        first.add_init_script(KEEP_SOCKETS)
        join(first, f"{live_site.url}/r/{code}/", "Ben")
        post_action(ana, code, "start")
        ben = live_site.run(SUBSCRIBE, code, 1, subscriber.subscription)
        second = first.context.new_page()
        second.goto(f"{live_site.url}/r/{code}/")
        second.wait_for_selector("#conn[data-state=connected]")
        assert first.evaluate("document.visibilityState") == second.evaluate("document.visibilityState") == "visible"

        def sockets() -> dict[str, datetime | None]:
            """Ben's sockets in the room, each with since when its page has been hidden (None: shown)."""
            found = live_site.query(hidden_rows, code, ben)
            return {name: datetime.fromisoformat(since) if since else None for name, since in found}

        def rows() -> list[datetime | None]:
            return list(sockets().values())

        first.evaluate(SET_HIDDEN, True)  # the first tab goes behind another
        wait_for(live_site, lambda: sum(since is not None for since in rows()) == 1, "the first tab hidden", log)
        # Its socket drops (a network change) and comes back: the new one says since when.
        [(old, hidden_at)] = [(name, since) for name, since in sockets().items() if since is not None]
        first.evaluate("window.__sockets.at(-1).close()")
        first.wait_for_function("window.__sockets.length >= 2 && window.__sockets.at(-1).readyState === 1")
        first.wait_for_selector("#conn[data-state=connected]")
        wait_for(
            live_site,
            lambda: old not in sockets() and sum(since is not None for since in rows()) == 1,
            "the first tab's new socket hidden",
            log,
        )
        [again] = [since for since in rows() if since is not None]
        assert hidden_at is not None and again is not None
        assert abs((again - hidden_at).total_seconds()) < 1.5, (again, hidden_at)

        with task_worker(live_site, log):
            play_a_turn(ana, code)  # Ben's turn: the second tab, in view, says so
            wait_for(
                live_site,
                lambda: any(outcome for (outcome,) in live_site.query(turn_outcomes, code)),
                "the first notice looked at",
                log,
            )
            assert live_site.query(turn_outcomes, code)[0][0] == "dropped: the player has the room open"
            assert not push.requests
            live_site.play_turns(code, 1)  # Ben plays
            second.evaluate(SET_HIDDEN, True)  # and puts both tabs in the background
            wait_for(live_site, lambda: None not in rows(), "both tabs hidden", log)
            play_a_turn(ana, code)
            wait_for(live_site, lambda: len(push.requests) >= 1, "the push of the second turn", log)
            payload = subscriber.open(push.requests[0].body)
            assert payload["title"] == f"Your turn in room {shown_code(code)}"
            assert payload["body"].startswith(f"Your turn in room {shown_code(code)}: Ana just scored ")
            wait_for(live_site, lambda: live_site.query(turn_outcomes, code)[-1][0].startswith("sent"), "sent", log)
            tasks_done(live_site, code, log)  # anything more the worker would send, a second on included
        assert len(push.requests) == 1
        assert [outcome for (outcome,) in live_site.query(turn_outcomes, code)] == [
            "dropped: the player has the room open",
            "sent: 1 push",
        ]
        # Shown again, the page says so: the room is in view.
        first.evaluate(SET_HIDDEN, False)
        wait_for(live_site, lambda: sum(since is None for since in rows()) == 1, "the first tab shown", log)
    finally:
        push.stop()


# Put into a service worker's global (Playwright's evaluate in the worker): each push event's tag,
# kept once the promise its listener handed to waitUntil has settled, and ``handledPushes(tags,
# ms)``, which resolves with those tags once all of ``tags`` are among them, or after ``ms``.
PUSHES_HANDLED = """() => {
  const handled = [];
  const waiting = new Set();
  const waitUntil = ExtendableEvent.prototype.waitUntil;
  ExtendableEvent.prototype.waitUntil = function (promise) {
    if (this instanceof PushEvent) {
      let tag = null;
      try { tag = this.data.json().tag; } catch {}
      Promise.resolve(promise).finally(() => { handled.push(tag); waiting.forEach((check) => check()); });
    }
    return waitUntil.call(this, promise);
  };
  self.handledPushes = (tags, ms) => new Promise((resolve) => {
    const check = () => {
      if (!tags.every((tag) => handled.includes(tag))) return;
      waiting.delete(check);
      resolve([...handled]);
    };
    waiting.add(check);
    setTimeout(() => { waiting.delete(check); resolve([...handled]); }, ms);
    check();
  });
}"""


def test_the_service_worker_shows_no_notice_over_the_rooms_own_window_in_view(
    live_site: LiveSite, new_page: Any
) -> None:
    """A push that arrives while the player looks at the room it is about (it left the server as the
    page opened, or another device of theirs had the turn notice): the page says it already."""
    page = new_page()
    page.context.grant_permissions(["notifications"], origin=live_site.url)
    code = create_own_pace(page, live_site, "Ana", DAY)
    cdp = page.context.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda event: registrations.extend(event["registrations"]))
    cdp.send("ServiceWorker.enable")
    page.evaluate("navigator.serviceWorker.register('/sw.js', {scope: '/'}).then(() => navigator.serviceWorker.ready)")
    # The worker active and the page its client (it claims its pages as it activates): a push
    # delivered before then may find no worker to show it. (A page with no worker has a
    # controller of null, never undefined.)
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    assert page.evaluate("document.hasFocus()")

    def push(room: str) -> None:
        registration = next(r for r in registrations if not r["isDeleted"])
        data = {"title": f"Your turn in room {room}", "body": "", "url": f"{live_site.url}/r/{room}/", "tag": room}
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": live_site.url, "registrationId": registration["registrationId"], "data": json.dumps(data)},
        )

    # The worker's own global keeps the tag of each push it is done with (the promise its listener
    # gives waitUntil settled: the notice shown, or left unshown).
    workers = page.context.service_workers
    worker = workers[0] if workers else page.context.wait_for_event("serviceworker")
    worker.evaluate(PUSHES_HANDLED)
    shown = "navigator.serviceWorker.ready.then(r => r.getNotifications()).then(n => n.map(x => x.tag))"
    pushed = [code, "otherroom1"]  # the room in view, never shown; another room, shown
    for room in pushed:
        push(room)
    # Each push is delivered again while the worker has not handled it: on a loaded machine
    # DevTools' delivery to a worker just activated was seen lost (a notice of the same tag
    # replaces the one before, so it is still one).
    for _ in range(7):
        handled = worker.evaluate("([tags, ms]) => self.handledPushes(tags, ms)", [pushed, 3000])
        if set(pushed) <= set(handled):
            break
        for room in pushed:
            if room not in handled:
                push(room)
    assert set(pushed) <= set(handled), f"the worker handled only the pushes of {handled}"
    assert page.evaluate(shown) == ["otherroom1"]


# The page's PushManager faked as FAKE_PUSH above, with what a real subscription also has: the
# application server key it was made with, and an endpoint of its own (``keyed_endpoint``: one for
# each key and each browser's keys, as a push service gives every subscription its own). The
# tests share one site: a stub giving another test's browser the same endpoint would have it
# posted as a stranger's, and refused.
KEYED_PUSH = """() => {
  const bytes = (b64) => {
    const text = atob(b64.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (b64.length % 4)) % 4));
    return Uint8Array.from(text, (c) => c.charCodeAt(0));
  };
  const made = () => {
    const key = localStorage.getItem("fake-push-key");
    if (!key) return null;
    const keys = JSON.parse(localStorage.getItem("fake-push-keys") || "{}");
    const endpoint = "http://127.0.0.1:9/push/" + key.slice(0, 8) + "-" + (keys.auth || "").slice(0, 8);
    return {
      endpoint,
      options: { userVisibleOnly: true, applicationServerKey: bytes(key).buffer },
      toJSON: () => ({ endpoint, keys }),
      unsubscribe: async () => { localStorage.removeItem("fake-push-key"); return true; },
    };
  };
  PushManager.prototype.subscribe = async function (options) {
    const key = btoa(String.fromCharCode(...new Uint8Array(options.applicationServerKey)))
      .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
    localStorage.setItem("fake-push-key", key);
    return made();
  };
  PushManager.prototype.getSubscription = async function () { return made(); };
}"""


def keyed_endpoint(key: str, keys: dict[str, str]) -> str:
    """The endpoint KEYED_PUSH gives a subscription made with ``key`` by the browser of ``keys``."""
    return "http://127.0.0.1:9/push/" + key[:8] + "-" + keys["auth"][:8]


def notifications_turned_on(live_site: LiveSite, new_page: Any, push: str) -> Any:
    """A page of Your games of a player with a seat (a session, as a player has), notifications
    allowed and turned on through ``push``, a stand-in for the browser's PushManager that makes its
    subscriptions with keys the server can encrypt to."""
    page = new_page()
    page.context.grant_permissions(["notifications"], origin=live_site.url)
    page.add_init_script(script=f"({push})()")
    create_online(page, live_site, "Ada")
    page.goto(live_site.url + "/games")
    page.wait_for_selector("#push-on:not([hidden])")
    keys = Subscriber("http://127.0.0.1:9/push/x").subscription["keys"]
    page.evaluate("keys => localStorage.setItem('fake-push-keys', JSON.stringify(keys))", keys)
    page.click("#push-on")
    page.wait_for_selector("#push-box[data-state=on]")
    return page


def test_a_subscription_made_with_a_key_the_server_no_longer_has_is_made_again_with_its_key(
    live_site: LiveSite, new_page: Any
) -> None:
    """docs/deploy.md: a new VAPID key "makes every browser's subscription useless": every push to
    the old subscription is refused (403) for good. Were the page to post it again at each visit (or
    its On button to reuse it), it would say "On: this device is told…" of a device told nothing."""
    page = notifications_turned_on(live_site, new_page, KEYED_PUSH)
    server_key = page.eval_on_selector("#push-box", "box => box.dataset.key")
    assert page.evaluate("localStorage.getItem('fake-push-key')") == server_key
    # The site's key changed since (a new ./var, a new VAPID_PRIVATE_KEY): the browser's
    # subscription, which the server holds too, is the one it made with the old key.
    old_key = Subscriber("http://127.0.0.1:9/push/y").subscription["keys"]["p256dh"]
    page.evaluate("key => localStorage.setItem('fake-push-key', key)", old_key)
    keys = page.evaluate("JSON.parse(localStorage.getItem('fake-push-keys'))")
    old_endpoint = keyed_endpoint(old_key, keys)
    page.evaluate(
        """async (endpoint) => {
          const box = document.getElementById("push-box");
          const csrf = document.querySelector('meta[name="csrf-token"]').content;
          const body = JSON.stringify({ endpoint, keys: JSON.parse(localStorage.getItem("fake-push-keys")) });
          const headers = { "Content-Type": "application/json", "X-CSRFToken": csrf };
          await fetch(box.dataset.subscribeUrl, { method: "POST", credentials: "same-origin", headers, body });
        }""",
        old_endpoint,
    )
    assert live_site.query("SELECT id FROM games_pushsubscription WHERE endpoint = ?", old_endpoint)
    page.reload()
    page.wait_for_selector("#push-box[data-state=on]")
    # Made again with the server's key, and the server forgot the old one.
    page.wait_for_function(f"localStorage.getItem('fake-push-key') === {json.dumps(server_key)}")
    assert "On: this device is told" in (page.text_content("#push-status") or "")
    stored = "SELECT id FROM games_pushsubscription WHERE endpoint = ?"
    assert not live_site.query(stored, old_endpoint)
    assert live_site.query(stored, keyed_endpoint(server_key, keys))


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        # The prompt closed without an answer (Esc, a tap beside it, the tab switched): nothing is
        # blocked, and the button asks again.
        ("default", "Notifications were not allowed: press the button again to be asked again."),
        ("denied", "Notifications are blocked for this site: allow them in the browser's site settings"),
    ],
)
def test_only_a_permission_denied_is_said_to_be_blocked(
    live_site: LiveSite, new_page: Any, answer: str, said: str
) -> None:
    page = new_page()
    page.add_init_script(script=f"Notification.requestPermission = async () => {json.dumps(answer)};")
    page.goto(live_site.url + "/games")
    page.wait_for_selector("#push-on:not([hidden])")
    page.click("#push-on")
    page.wait_for_function("document.getElementById('push-status').textContent !== 'Off on this device.'")
    assert said in (page.text_content("#push-status") or "")
    assert page.is_visible("#push-on") and page.is_enabled("#push-on")  # it may be pressed again


def test_your_games_without_javascript_says_notifications_need_it_and_checks_nothing(
    live_site: LiveSite, new_page: Any
) -> None:
    page = new_page(java_script_enabled=False)
    page.goto(live_site.url + "/games")
    box = page.inner_text("#push-box")
    assert "Notifications need JavaScript: turn it on for this site to have them on this device." in box
    assert "Checking" not in box and not page.locator("#push-status").is_visible()  # only notify.js answers it


# ``count`` more games at your own pace of the controller seated first in room ``code``, each waiting
# for another player's move.
_MORE_GAMES = """
from games import services
from games.store.models import Player
code, count = args
me = Player.objects.get(game__code=code, seat=0).controller
for _ in range(count):
    other = services.new_controller()
    game = services.game_create(host_name="Ben", controller=other, pace="own", turn_timer=86400).game
    services.game_join(code=game.code, name="Ana", controller=me)
    services.game_start(code=game.code, controller=other, expected_version=None, action_id="s")
result = True
"""


def test_your_games_of_a_player_with_many_games_comes_in_pages_with_and_without_javascript(
    live_site: LiveSite, new_page: Any
) -> None:
    """Read on a desktop and on a phone: the games are made once, and their pages loaded at each size."""
    sizes = [(1280, 800), (390, 844)]
    ana = new_page(*sizes[0])
    mine = create_own_pace(ana, live_site, "Ana", DAY)
    Browser(live_site.url).join(mine, "Ben")
    start(ana)
    live_site.run(_MORE_GAMES, mine, 24)
    for width, height in sizes:
        ana.set_viewport_size({"width": width, "height": height})
        ana.goto(live_site.url + "/games")
        rows = ana.eval_on_selector_all(".game-row", "rows => rows.map(r => r.dataset.code)")
        assert len(rows) == 20 and rows[0] == mine  # hers first
        assert "(25)" in ana.inner_text("#games-h")
        pager = ana.inner_text(".pager")
        assert "Page 1 of 2" in pager and "Next page" in pager and "Previous page" not in pager
        assert no_horizontal_overflow(ana), wider(ana)
        for scheme in in_each_scheme(ana):
            ana.locator(".pager").scroll_into_view_if_needed()
            shot(ana, f"games-pages-{width}-{scheme}")
            assert not serious_violations(ana, scheme)
        ana.click(".pager a[rel=next]")
        ana.wait_for_url("**/games?page=2")
        second = ana.eval_on_selector_all(".game-row", "rows => rows.map(r => r.dataset.code)")
        assert len(second) == 5 and not set(second) & set(rows)
        assert ana.is_visible(".pager a[rel=prev]") and not ana.locator(".pager a[rel=next]").count()
        # Without script: the same pages, by the same links.
        plain = new_page(width, height, java_script_enabled=False)
        plain.context.add_cookies(ana.context.cookies())
        plain.goto(live_site.url + "/games")
        assert plain.eval_on_selector_all(".game-row", "rows => rows.map(r => r.dataset.code)") == rows
        plain.click(".pager a[rel=next]")
        plain.wait_for_url("**/games?page=2")
        assert plain.eval_on_selector_all(".game-row", "rows => rows.map(r => r.dataset.code)") == second


def test_your_games_left_open_is_read_again_when_the_laptop_wakes_or_the_tab_is_shown(
    live_site: LiveSite, new_page: Any
) -> None:
    """Your games left open on a laptop closed for hours would say "Your move" of a move made since
    on another device, with the time left and the header's count of hours before. The list is read
    again when the machine wakes, when the tab is shown again and when the browser is back online."""
    ana = new_page()
    ana.clock.install()
    code = create_own_pace(ana, live_site, "Ana", DAY)
    Browser(live_site.url).join(code, "Ben")
    start(ana)
    ana.goto(live_site.url + "/games")
    assert "Your move" in ana.inner_text(".game-row")
    assert (ana.text_content("#waiting-count") or "").startswith("1")
    ana.focus(".game-link")
    live_site.play_turns(code, 1)  # Ana moves on her phone
    ana.clock.fast_forward("03:00:00")  # the lid closed for three hours, and opened
    ana.wait_for_function("!document.querySelector('.game-row.yours')")
    assert "Ben to move" in ana.inner_text(".game-row")
    assert not ana.locator("#waiting-count").count()
    assert ana.evaluate("document.activeElement.closest('.game-row')?.dataset.code") == code  # still on it
    live_site.play_turns(code, 1)  # Ben moves
    ana.clock.fast_forward(20_000)
    ana.evaluate("document.dispatchEvent(new Event('visibilitychange'))")  # the tab shown again
    ana.wait_for_selector(".game-row.yours")
    assert (ana.text_content("#waiting-count") or "").startswith("1")
    live_site.play_turns(code, 1)  # Ana moves on her phone again
    ana.evaluate("window.dispatchEvent(new Event('online'))")
    ana.wait_for_function("!document.querySelector('.game-row.yours')")
    assert ana.errors == []


# The page's PushManager faked as FAKE_PUSH above, handing out a new endpoint at each subscribe, as a
# push service does for a subscription made anew.
RENEWING_PUSH = """() => {
  const made = () => {
    const n = localStorage.getItem("fake-push-n");
    if (!n) return null;
    const endpoint = "http://127.0.0.1:9/push/renewed-" + n;
    return {
      endpoint,
      toJSON: () => ({ endpoint, keys: JSON.parse(localStorage.getItem("fake-push-keys")) }),
      unsubscribe: async () => { localStorage.removeItem("fake-push-n"); return true; },
    };
  };
  PushManager.prototype.subscribe = async function () {
    const n = String(Number(localStorage.getItem("fake-push-made") || 0) + 1);
    localStorage.setItem("fake-push-made", n);
    localStorage.setItem("fake-push-n", n);
    return made();
  };
  PushManager.prototype.getSubscription = async function () { return made(); };
}"""

# The push service said the subscription ``endpoint`` is gone (games.services.notices.send_push).
_GONE = """
from django.utils import timezone
from games.store.models import PushSubscription
endpoint, = args
result = PushSubscription.objects.filter(endpoint=endpoint).update(gone_at=timezone.now(), failing_since=timezone.now())
"""


def test_a_subscription_that_expired_while_the_browser_kept_it_is_made_anew_at_the_next_visit(
    live_site: LiveSite, new_page: Any
) -> None:
    """A push service's subscriptions expire (it answers 410) while the browser still holds them and
    its page says notifications are on. Posted again at each visit, the dead one would be stored as
    new and the device never told of a turn again. Refused as gone, it is dropped and made anew, and
    the new one is stored."""
    page = notifications_turned_on(live_site, new_page, RENEWING_PUSH)
    first, second = "http://127.0.0.1:9/push/renewed-1", "http://127.0.0.1:9/push/renewed-2"
    stored = "SELECT id FROM games_pushsubscription WHERE endpoint = ?"
    assert live_site.query(stored, first)
    assert live_site.run(_GONE, first) == 1
    page.reload()
    page.wait_for_function("localStorage.getItem('fake-push-n') === '2'")
    page.wait_for_selector("#push-box[data-state=on]")
    assert "On: this device is told" in (page.text_content("#push-status") or "")
    deadline = time.monotonic() + WAIT
    while not live_site.query(stored, second) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert live_site.query(stored, second) and not live_site.query(stored, first)
    # The browser logs the refusal of the one gone; nothing else went wrong.
    assert [e for e in page.errors if "status of 400" not in e] == []


# The service worker (static/js/sw.js) run in a page with what a worker's global gives it faked:
# its listeners are kept to be called, its clients and subscription are stand-ins, and ``fetch``
# answers or fails as the test says.
SW_HARNESS = """<!doctype html><title>sw</title><script type="module">
const source = await (await fetch("/static/js/sw.js")).text();
window.run = async ({ online, windows, click }) => {
  const seen = { fetched: [], opened: [], focused: [], unsubscribed: false };
  const listeners = {};
  const worker = {
    addEventListener: (type, listener) => { listeners[type] = listener; },
    skipWaiting: () => {},
    location: { origin: "https://yahtzee.example.org" },
    clients: {
      claim: async () => {},
      matchAll: async () => windows.map((url) => ({
        url, focused: false, focus: async () => { seen.focused.push(url); },
      })),
      openWindow: async (url) => { seen.opened.push(url); },
    },
    registration: {
      pushManager: { getSubscription: async () => ({ unsubscribe: async () => { seen.unsubscribed = true; } }) },
    },
  };
  const fakeFetch = async (url, options) => {
    seen.fetched.push([url, options.method]);
    if (!online) throw new TypeError("Failed to fetch");
    return new Response("", { status: 200 });
  };
  new Function("self", "fetch", source)(worker, fakeFetch);
  let done;
  listeners.notificationclick({
    action: click.action,
    notification: { close: () => {}, data: click.data },
    waitUntil: (promise) => { done = promise; },
  });
  await done.catch(() => {});
  return seen;
};
window.ready = true;
</script>"""

SITE = "https://yahtzee.example.org"


def test_stop_these_on_a_notification_stops_this_device_even_with_the_network_down(harness: Any) -> None:
    """The phone is offline when its player presses "Stop these": the stop link's post fails. Were
    the worker to go no further, the device would stay subscribed and its pushes go on. It stops
    being subscribed all the same (the server finds it gone at its next push)."""
    page = harness(SW_HARNESS)
    stop = {"action": "stop", "data": {"url": f"{SITE}/r/abc/", "stop": f"{SITE}/notices/stop/t"}}
    for online in (True, False):
        seen = page.evaluate("args => run(args)", {"online": online, "windows": [], "click": stop})
        assert seen["fetched"] == [[f"{SITE}/notices/stop/t", "POST"]]
        assert seen["unsubscribed"], online
        assert seen["opened"] == []


def test_a_click_on_a_notification_brings_the_rooms_open_tab_forward_whatever_its_address_holds(
    harness: Any,
) -> None:
    """The room is open in a tab whose address has more than the room's path (its #chat, a query): the
    click shows that tab rather than open a second one (a second connection, two tables)."""
    page = harness(SW_HARNESS)
    click = {"action": "", "data": {"url": f"{SITE}/r/abc/"}}
    for there in (f"{SITE}/r/abc/", f"{SITE}/r/abc/#chat", f"{SITE}/r/abc/?from=home"):
        seen = page.evaluate("args => run(args)", {"online": True, "windows": [f"{SITE}/games", there], "click": click})
        assert (seen["focused"], seen["opened"]) == ([there], []), there
    seen = page.evaluate("args => run(args)", {"online": True, "windows": [f"{SITE}/r/abcd/"], "click": click})
    assert (seen["focused"], seen["opened"]) == ([], [f"{SITE}/r/abc/"])  # another room: a tab of its own


# The service worker given a ``push`` event whose data is ``data`` (JSON, or text when a string):
# it returns the notifications the worker showed, each its title and options.
SW_PUSH_HARNESS = """<!doctype html><title>sw</title><script type="module">
const source = await (await fetch("/static/js/sw.js")).text();
window.run = async (data) => {
  const shown = [];
  const listeners = {};
  const worker = {
    addEventListener: (type, listener) => { listeners[type] = listener; },
    skipWaiting: () => {},
    location: { origin: "https://yahtzee.example.org", hostname: "yahtzee.example.org" },
    clients: { claim: async () => {}, matchAll: async () => [] },
    registration: { showNotification: async (title, options) => { shown.push([title, options.body]); } },
  };
  new Function("self", "fetch", source)(worker, async () => new Response(""));
  const text = typeof data === "string" ? data : JSON.stringify(data);
  let done;
  listeners.push({
    data: { json: () => JSON.parse(text), text: () => text },
    waitUntil: (promise) => { done = promise; },
  });
  await done;
  return shown;
};
window.ready = true;
</script>"""


def test_a_push_without_a_title_is_titled_with_the_sites_address_not_english_words(harness: Any) -> None:
    """Every notice the server pushes has its title, in its reader's language (notices.send_push); a
    push without one (sent by hand, from the browser's developer tools) is not given English words."""
    page = harness(SW_PUSH_HARNESS)
    told = {"title": "Votre tour dans la salle abc", "body": "Votre tour", "url": f"{SITE}/r/abc/"}
    assert page.evaluate("data => run(data)", told) == [["Votre tour dans la salle abc", "Votre tour"]]
    assert page.evaluate("data => run(data)", {"body": "Hej"}) == [["yahtzee.example.org", "Hej"]]
    assert page.evaluate("data => run(data)", "plain words") == [["yahtzee.example.org", "plain words"]]


# The service worker given a ``pushsubscriptionchange`` (Chromium sends none; Firefox does when its
# push service renews a subscription): ``old`` and ``given`` are what the event holds, and the
# stand-in push manager hands out ``made`` to a subscribe with the key it was asked for.
SW_RENEW_HARNESS = """<!doctype html><title>sw</title><script type="module">
const source = await (await fetch("/static/js/sw.js")).text();
const subscription = (json, key) => json && {
  endpoint: json.endpoint,
  toJSON: () => json,
  options: { applicationServerKey: key ? new Uint8Array(key).buffer : null },
};
window.run = async ({ old, key, given, made }) => {
  const seen = { fetched: [], subscribedWith: [] };
  const listeners = {};
  const worker = {
    addEventListener: (type, listener) => { listeners[type] = listener; },
    skipWaiting: () => {},
    location: { origin: "https://yahtzee.example.org" },
    clients: { claim: async () => {} },
    registration: {
      pushManager: {
        subscribe: async (options) => {
          seen.subscribedWith.push([options.userVisibleOnly, Array.from(new Uint8Array(options.applicationServerKey))]);
          return subscription(made);
        },
      },
    },
  };
  const fakeFetch = async (url, options) => {
    const { method, credentials } = options;
    seen.fetched.push({ url, method, credentials, body: JSON.parse(options.body) });
    return new Response("{}", { status: 200 });
  };
  new Function("self", "fetch", source)(worker, fakeFetch);
  let done = Promise.resolve();
  listeners.pushsubscriptionchange({
    oldSubscription: subscription(old, key), newSubscription: subscription(given),
    waitUntil: (promise) => { done = promise; },
  });
  await done;
  return seen;
};
window.ready = true;
</script>"""


def test_a_subscription_the_browser_renewed_is_made_again_and_posted_with_no_page_open(harness: Any) -> None:
    """The push service renewed the browser's subscription: left to the next visit to Your games,
    the server would push to the old one and no turn be told until then. The worker subscribes
    again with the old one's key (or takes the one the event brings) and posts it to the server in
    the old one's place, with the old one (whose secret shows it is this browser's)."""
    page = harness(SW_RENEW_HARNESS)
    old = Subscriber("https://push.example.net/old").subscription
    made = Subscriber("https://push.example.net/made").subscription
    key = list(range(1, 66))
    seen = page.evaluate("args => run(args)", {"old": old, "key": key, "given": None, "made": made})
    assert seen["subscribedWith"] == [[True, key]]
    renewal = {"url": f"{SITE}/notices/push/renew", "method": "POST", "credentials": "same-origin"}
    assert seen["fetched"] == [{**renewal, "body": {"old": old, "new": made}}]
    # A browser that brings the new one along: no second subscription is made.
    given = Subscriber("https://push.example.net/given").subscription
    seen = page.evaluate("args => run(args)", {"old": old, "key": key, "given": given, "made": made})
    assert seen["subscribedWith"] == []
    assert seen["fetched"] == [{**renewal, "body": {"old": old, "new": given}}]
    # No old one (nothing shows the server which it replaces): the page's next visit posts it.
    seen = page.evaluate("args => run(args)", {"old": None, "key": None, "given": given, "made": made})
    assert seen == {"fetched": [], "subscribedWith": []}


# Whose account holds the subscription of an endpoint.
_STORED_FOR = "SELECT u.username FROM games_pushsubscription s JOIN auth_user u ON u.id = s.user_id WHERE endpoint = ?"


def keyed_push_on(page: Any, site: LiveSite, name: str) -> dict[str, str]:
    """``name`` signed up on ``page`` and notifications turned on at Your games, the browser's
    PushManager faked as ``KEYED_PUSH``: the browser's keys (see ``keyed_endpoint``)."""
    page.context.grant_permissions(["notifications"], origin=site.url)
    page.add_init_script(script=f"({KEYED_PUSH})()")
    sign_up(page, site, name)
    page.goto(site.url + "/games")
    page.wait_for_selector("#push-on:not([hidden])")
    keys: dict[str, str] = Subscriber("http://127.0.0.1:9/push/x").subscription["keys"]
    page.evaluate("keys => localStorage.setItem('fake-push-keys', JSON.stringify(keys))", keys)
    page.click("#push-on")
    page.wait_for_selector("#push-box[data-state=on]")
    return keys


_DROP = """
from games.store.models import PushSubscription
endpoint, = args
result = PushSubscription.objects.filter(endpoint=endpoint).delete()[0]
"""


def test_notifications_a_sign_out_ended_stay_off_for_whoever_uses_the_browser_next(
    live_site: LiveSite, new_page: Any
) -> None:
    """A sign-out removes the account's subscriptions on the server, but the browser keeps its
    own: posted again at the next visit to Your games, it would be for whoever is there (signed
    out, or signed in as someone else), and "On" without their pressing anything. The page drops
    it; the same person's page still posts it again when the server lost it."""
    page = new_page()
    ana = username("ana")
    keys = keyed_push_on(page, live_site, ana)
    endpoint = keyed_endpoint(page.evaluate("localStorage.getItem('fake-push-key')"), keys)
    assert live_site.query(_STORED_FOR, endpoint) == [(ana,)]
    # The server lost her row: her next visit posts the browser's subscription again.
    assert live_site.run(_DROP, endpoint) == 1
    page.reload()
    page.wait_for_selector("#push-box[data-state=on]")
    deadline = time.monotonic() + WAIT
    while not live_site.query(_STORED_FOR, endpoint) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert live_site.query(_STORED_FOR, endpoint) == [(ana,)]
    # She signs out: the server ends her subscription, and the browser's is left behind.
    sign_out(page, live_site.url)
    assert not live_site.query("SELECT id FROM games_pushsubscription WHERE endpoint = ?", endpoint)
    page.goto(live_site.url + "/games")
    page.wait_for_selector("#push-box[data-state=off]")
    assert "Off on this device." in (page.text_content("#push-status") or "")
    page.wait_for_function("localStorage.getItem('fake-push-key') === null")  # the browser's is dropped
    assert not live_site.query("SELECT id FROM games_pushsubscription WHERE endpoint = ?", endpoint)
    # Ben signs in on the same browser: nothing of hers comes back, and his page is off until he asks.
    page.evaluate("key => localStorage.setItem('fake-push-key', key)", keys["p256dh"])
    leftover = keyed_endpoint(keys["p256dh"], keys)
    sign_up(page, live_site, username("ben"))
    page.goto(live_site.url + "/games")
    page.wait_for_selector("#push-box[data-state=off]")
    page.wait_for_function("localStorage.getItem('fake-push-key') === null")
    assert not live_site.query("SELECT id FROM games_pushsubscription WHERE endpoint = ?", leftover)
    # His own press turns them on for him.
    page.click("#push-on")
    page.wait_for_selector("#push-box[data-state=on]")
    assert [e for e in page.errors if "status of 400" not in e] == []


def test_a_subscription_made_with_an_old_key_is_made_again_in_a_later_session_of_its_account(
    live_site: LiveSite, new_page: Any
) -> None:
    """The site's key changed, and the player comes back signed in to the same account in a new
    session (the old one expired): the page removes the old subscription on the server, then posts
    the one it made with the new key. As healing the old, which the server holds for nobody after
    the removal, it would be refused as ended, the page say "Off" and the new subscription stay in
    the browser, known to no one; the server's answer to the removal shows it was this account's."""
    page = new_page()
    ana = username("ana")
    keys = keyed_push_on(page, live_site, ana)
    server_key = page.eval_on_selector("#push-box", "box => box.dataset.key")
    # Her browser's subscription was made with the site's key before it changed, and the server holds it.
    old_key = Subscriber("http://127.0.0.1:9/push/y").subscription["keys"]["p256dh"]
    page.evaluate("key => localStorage.setItem('fake-push-key', key)", old_key)
    old_endpoint = keyed_endpoint(old_key, keys)
    page.evaluate(
        """async (endpoint) => {
          const box = document.getElementById("push-box");
          const csrf = document.querySelector('meta[name="csrf-token"]').content;
          const body = JSON.stringify({ endpoint, keys: JSON.parse(localStorage.getItem("fake-push-keys")) });
          const headers = { "Content-Type": "application/json", "X-CSRFToken": csrf };
          await fetch(box.dataset.subscribeUrl, { method: "POST", credentials: "same-origin", headers, body });
        }""",
        old_endpoint,
    )
    assert live_site.query(_STORED_FOR, old_endpoint) == [(ana,)]
    # Her session ended without a sign-out; she signs in again.
    page.context.clear_cookies()
    sign_in(page, live_site, ana)
    page.goto(live_site.url + "/games")
    page.wait_for_function(f"localStorage.getItem('fake-push-key') === {json.dumps(server_key)}")
    page.wait_for_selector("#push-box[data-state=on]")
    assert "On: this device is told" in (page.text_content("#push-status") or "")
    assert not live_site.query(_STORED_FOR, old_endpoint)
    assert live_site.query(_STORED_FOR, keyed_endpoint(server_key, keys)) == [(ana,)]


def test_the_lobby_of_a_room_at_your_own_pace_says_its_pace_on_a_phone_too(live_site: LiveSite, new_page: Any) -> None:
    """The line under the room's code is not shown on a phone: whoever decides there whether to
    take a seat reads the room's pace and time per move in the lobby's list of what the host chose,
    with script and without, in their own language.

    Read on a phone and on a desktop: the room is made once, and its lobby loaded at each size."""
    sizes = [(390, 844), (1280, 800)]
    page = new_page(*sizes[0], locale="de-DE")
    code = create_own_pace(page, live_site, "Ann", DAY)
    for width, height in sizes:
        if (width, height) != sizes[0]:
            page.set_viewport_size({"width": width, "height": height})
            page.goto(f"{live_site.url}/r/{code}/")
            page.wait_for_selector("#conn[data-state=connected]")
        said = page.locator("#room-settings li").all_inner_texts()
        assert said[0] == "Im eigenen Tempo, 1 Tag pro Zug", (width, said)
        assert page.is_visible("#room-settings li >> nth=0"), width
        shot(page, f"own-pace-lobby-{width}")
        plain = new_page(width, height, locale="de-DE", java_script_enabled=False)
        plain.goto(f"{live_site.url}/r/{code}/")
        assert plain.locator("#ns-room-settings li").all_inner_texts()[0] == "Im eigenen Tempo, 1 Tag pro Zug"


# A stop link of each channel, in the site's database: an account's e-mails and one device's pushes.
_STOP_LINKS = """
from django.contrib.auth import get_user_model
from games.services import notices
from games.store.models import NoticeSettings, PushSubscription
user = get_user_model().objects.create_user(f"stop{get_user_model().objects.count()}", password="pw")
NoticeSettings.objects.create(user=user, email=True, address="a@example.org")
device = PushSubscription.objects.create(
    controller="c" * 32, endpoint=f"https://127.0.0.1/push/stop-{user.pk}", p256dh="k", auth="a"
)
result = [notices.stop_url("email", user.pk), notices.stop_url("push", device.pk)]
"""


@pytest.mark.parametrize("width", [1280, 390])
def test_the_stop_page_says_which_channel_it_stops(live_site: LiveSite, new_page: Any, width: int) -> None:
    email_url, push_url = live_site.run(_STOP_LINKS)
    page = new_page(width, 844 if width < 500 else 800)
    for url, heading, button, done in (
        (
            email_url,
            "Stop the e-mails?",
            "Stop the e-mails",
            "You will get no more e-mails of your games at your own pace.",
        ),
        (push_url, "Stop the notifications on this device?", "Stop the notifications", "no more notifications"),
    ):
        page.goto(url)
        assert page.inner_text("#stop-h") == heading
        assert page.is_visible("#stop-channel") and page.inner_text("#stop-btn") == button
        assert no_horizontal_overflow(page)
        for scheme in in_each_scheme(page):
            shot(page, f"stop-{'email' if url == email_url else 'push'}-{width}-{scheme}")
            assert not serious_violations(page, scheme)
        page.click("#stop-btn")
        page.wait_for_selector("#stop-done")
        assert done in page.inner_text("#stop-done")


def test_a_guests_finished_game_stays_on_your_games_with_and_without_javascript(
    live_site: LiveSite, new_page: Any
) -> None:
    """A guest's game at your own pace that ended stays on Your games, not only at its link: it
    moves to the finished games below the list (on the page left open too), with its places.

    Read on a desktop and on a phone: the game is played to its end once, Ana's open page is read
    at each size (drawn again at it), and the page without script is loaded at each."""
    sizes = [(1280, 800), (390, 844)]
    ana = new_page(*sizes[0])
    code = create_own_pace(ana, live_site, "Ana", DAY)
    Browser(live_site.url).join(code, "Ben")
    start(ana)
    ana.goto(live_site.url + "/games")
    assert ana.locator(f'#games-card .game-row[data-code="{code}"]').count() == 1
    assert not ana.locator("#finished-card").count()
    live_site.play_turns(code, 26)  # to the end, on another device
    ana.evaluate("window.dispatchEvent(new Event('online'))")  # the list read again
    finished = f'#finished-card .game-row[data-code="{code}"]'
    ana.wait_for_selector(finished)
    assert not ana.locator(f'#games-card .game-row[data-code="{code}"]').count()
    rows: dict[int, str] = {}
    for width, height in sizes:
        ana.set_viewport_size({"width": width, "height": height})
        row = rows[width] = ana.inner_text(finished)
        # Ranked, "1." and "2.", or "1." twice for a tie (the dice are random: 93 each was seen).
        assert "1. " in row and ("2. " in row or row.count("1. ") == 2), row
        assert "Ana" in row and "Ben" in row and "points" in row
        assert "You won" in row or "Game over" in row
        assert no_horizontal_overflow(ana), wider(ana)
        for scheme in in_each_scheme(ana):
            ana.locator("#finished-card").scroll_into_view_if_needed()
            shot(ana, f"games-finished-{width}-{scheme}")
            assert not serious_violations(ana, scheme)
    assert ana.errors == []
    # Without script: the same list, and its links to the room and the replay.
    for width, height in sizes:
        plain = new_page(width, height, java_script_enabled=False)
        plain.context.add_cookies(ana.context.cookies())
        plain.goto(live_site.url + "/games")
        assert plain.inner_text(finished) == rows[width]
        plain.click(f"{finished} .replay-link")
        plain.wait_for_url(f"**/r/{code}/replay")
        plain.go_back()
        plain.click(f"{finished} .game-link")
        plain.wait_for_url(f"**/r/{code}/")


def test_the_keyboard_on_a_finished_games_replay_link_stays_there_as_the_list_is_read_again(
    live_site: LiveSite, new_page: Any
) -> None:
    """Ana's keyboard is on the Replay link of a finished game when another of her games ends and
    the list is read again: it stays on that Replay link, not on the game's own link beside it,
    where the next Enter would open the room instead of the replay."""
    ana = new_page()
    first = create_own_pace(ana, live_site, "Ana", DAY)
    Browser(live_site.url).join(first, "Ben")
    start(ana)
    second = create_own_pace(ana, live_site, "Ana", DAY)
    Browser(live_site.url).join(second, "Cy")
    start(ana)
    live_site.play_turns(first, 26)
    ana.goto(live_site.url + "/games")
    replay = f'#finished-card .game-row[data-code="{first}"] .replay-link'
    ana.focus(replay)
    live_site.play_turns(second, 26)
    ana.evaluate("window.dispatchEvent(new Event('online'))")  # the list read again
    ana.wait_for_selector(f'#finished-card .game-row[data-code="{second}"]')
    assert ana.evaluate(f"document.activeElement === document.querySelector('{replay}')")
    assert ana.errors == []


# An account whose e-mails go to one address while a link waits at another (``args``: its name,
# the confirmed address, the new one).
_MOVING_ADDRESS = """
from django.contrib.auth import get_user_model
from django.utils import timezone
from games.store.models import NoticeSettings
name, address, pending = args
NoticeSettings.objects.update_or_create(
    user=get_user_model().objects.get(username=name),
    defaults={"email": True, "address": address, "pending_address": pending, "pending_nonce": "n-" + name,
              "pending_language": "en", "pending_at": timezone.now()},
)
"""


def test_your_games_wraps_a_long_address_on_a_phone_where_the_e_mails_go_and_where_the_link_went(
    live_site: LiveSite, new_page: Any
) -> None:
    """An address is one word to the browser: a long one ("…dudelsackpfeifenmacher@…") in the
    lines that say where the link went and where the e-mails go meanwhile breaks where it must at
    390 px, rather than run off the card and scroll the page sideways."""
    page = new_page(390, 844)
    name = username("lea")
    sign_up(page, live_site, name)
    old = "konstantinopolitanischerdudelsackpfeifenmacher@arbeitsplatz.example"
    new = "neueadressefuerdiebenachrichtigungenvonspielen@zuhause.example"
    live_site.run(_MOVING_ADDRESS, name, old, new)
    page.goto(live_site.url + "/games")
    assert page.inner_text("#email-meanwhile") == f"Until then, the e-mails go to {old}."
    assert new in page.inner_text("#email-pending")
    for scheme in in_each_scheme(page):
        shot(page, f"email-meanwhile-390-{scheme}", full_page=True)
        assert no_horizontal_overflow(page), scheme


def test_a_subscription_held_by_another_browser_leaves_the_switch_off_until_a_press_makes_a_new_one(
    live_site: LiveSite, new_page: Any
) -> None:
    """The server keeps a stored endpoint its browser's when another posts it with other keys
    (``subscription_held``): the other device is told nothing. Its page, posting it again at a visit
    (made anew for one its push service said is gone), says so and stays off rather than "On". A
    press asks for notifications on this device, which the endpoint another browser holds cannot
    bring (what is pushed there is for keys this browser does not hold): the page makes a new
    subscription, whose endpoint nobody else knows, and that one is stored and on."""
    prefix = f"held-{os.getpid()}-{time.monotonic_ns()}-"
    renewing = RENEWING_PUSH.replace("/push/renewed-", "/push/" + prefix)
    # Another browser turned its notifications on first with the endpoint this one's push service
    # is going to hand out next.
    other = new_page()
    other.context.grant_permissions(["notifications"], origin=live_site.url)
    held = Subscriber(f"http://127.0.0.1:9/push/{prefix}2").subscription
    other.add_init_script(script=f"({FAKE_PUSH})({json.dumps(held)})")
    create_online(other, live_site, "Ole")
    other.goto(live_site.url + "/games")
    other.click("#push-on")
    other.wait_for_selector("#push-box[data-state=on]")
    page = notifications_turned_on(live_site, new_page, renewing)
    first = f"http://127.0.0.1:9/push/{prefix}1"
    assert live_site.run(_GONE, first) == 1
    page.reload()
    page.wait_for_function("localStorage.getItem('fake-push-n') === '2'")
    said = "That notification subscription is another browser's: it cannot be moved to this one."
    page.wait_for_function("document.getElementById('push-status').textContent !== 'Checking…'")
    page.wait_for_selector("#push-box[data-state=off]")
    assert page.text_content("#push-status") == said
    assert page.is_visible("#push-on") and page.is_hidden("#push-off")
    stored = "SELECT controller FROM games_pushsubscription WHERE endpoint = ?"
    assert len(live_site.query(stored, held["endpoint"])) == 1
    # At the next visit the page posts the browser's subscription again: still another browser's,
    # it says so again, and the browser keeps its own subscription (nobody asked to drop it).
    page.reload()
    page.wait_for_function("document.getElementById('push-status').textContent !== 'Checking…'")
    page.wait_for_selector("#push-box[data-state=off]")
    assert page.text_content("#push-status") == said
    assert page.evaluate("localStorage.getItem('fake-push-n')") == "2"
    assert len(live_site.query(stored, held["endpoint"])) == 1
    # Pressed: a new subscription in its place, stored for this browser, and on; the endpoint the
    # other browser holds stays its, as stored.
    page.click("#push-on")
    page.wait_for_selector("#push-box[data-state=on]")
    assert "On: this device is told" in (page.text_content("#push-status") or "")
    assert page.evaluate("localStorage.getItem('fake-push-n')") == "3"
    anew = f"http://127.0.0.1:9/push/{prefix}3"
    assert live_site.query(stored, anew), "the page says on, and the server stored nothing"
    assert live_site.query(stored, anew) != live_site.query(stored, held["endpoint"])
    # And at the next visit it is the browser's own, on.
    page.reload()
    page.wait_for_selector("#push-box[data-state=on]")
    assert page.evaluate("localStorage.getItem('fake-push-n')") == "3"
    assert [e for e in page.errors if "status of 400" not in e] == []


# The top and bottom of each line of an element's last text (a label's words after its box).
LINES_OF_LAST_TEXT = """l => {
  const range = document.createRange();
  range.selectNodeContents(l.lastChild);
  return [...range.getClientRects()].map(line => [line.top, line.bottom]);
}"""


def test_your_games_email_box_is_whole_beside_its_long_label_and_on_its_first_line(
    live_site: LiveSite, new_page: Any
) -> None:
    """The e-mail notices' checkbox keeps its size beside a label that wraps (three lines on a phone
    in German, in the side column on a desktop): the flex line does not squeeze it narrow, and it
    sits beside the label's first line, where the sentence it answers begins.

    Read on a phone and on a desktop: one account signs up, and its page is loaded at each size."""
    sizes = [(390, 844), (1280, 800)]
    page = new_page(*sizes[0], locale="de-DE")
    sign_up(page, live_site, username("ada"))
    for width, height in sizes:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live_site.url + "/games")
        box = page.locator("input[name=on]").bounding_box()
        label = page.locator("label.check:has(input[name=on])")
        lines = label.evaluate(LINES_OF_LAST_TEXT)
        assert box is not None and len(lines) > 1, (width, box, lines)
        assert abs(box["width"] - box["height"]) <= 1, (width, box)
        first_top, first_bottom = lines[0]
        assert first_top <= box["y"] + box["height"] / 2 <= first_bottom, (width, box, lines)
        for scheme in in_each_scheme(page):
            shot(page, f"games-email-box-{width}-{scheme}")

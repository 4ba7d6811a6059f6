"""A live server and the system Chromium for the browser tests (never a downloaded browser)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.live import ROOT, ServerProcess, migrate_sqlite, server_env
from yahtzee.prepare import new_vapid_private_key

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
# Chromium's address-bar popups: WebUI pages it loads in renderers of their own for every
# window, so for every context a test makes (two a window, about 0.35 s of CPU), and which a
# page under test never shows. Turned off with the switch Playwright already passes
# (``launch_chromium``).
UNUSED_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup")


# Test code run in the live site's own database, in one Python process of the site's
# environment kept for the test process: a `python -c` or `manage.py shell` of its own set
# Django up again each time, about 2 s of CPU a call. Replies go back on the process's own
# stdout; what the code prints goes to its log.
_SHELL = r"""
import json, os, sys, traceback
replies = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
import django
django.setup()
from django.db import connections
for line in sys.stdin:
    request = json.loads(line)
    scope = {"__name__": "__site_shell__", "args": request["args"]}
    try:
        exec(request["code"], scope)
        reply = {"result": scope.get("result")}
    except BaseException:
        reply = {"error": traceback.format_exc()}
    connections.close_all()  # no connection of it held open between calls, as a `python -c` would not
    replies.write(json.dumps(reply) + "\n")
    replies.flush()
"""


class SiteShell:
    """One Python process with Django set up in a live site's environment, running test code in its database."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.env, self.log_path = {**env, "PYTHONPATH": str(ROOT)}, log_path
        self.proc: subprocess.Popen[str] | None = None

    def run(self, code: str, *args: Any) -> Any:
        """Run ``code`` with ``args`` bound to its arguments; what it assigns to ``result`` (JSON)."""
        if self.proc is None or self.proc.poll() is not None:
            with self.log_path.open("a") as log:
                self.proc = subprocess.Popen(
                    [sys.executable, "-c", _SHELL],
                    cwd=ROOT,
                    env=self.env,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    text=True,
                )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"code": code, "args": list(args)}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the site's shell exited:\n{self.log_path.read_text(errors='replace')[-4000:]}")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply["result"]

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


PLAY_A_GAME = """
import random
from tests.factories import open_room, play_to_end
players, seed, ruleset = args
table = open_room(players, ruleset)
play_to_end(table, random.Random(seed))
result = table.code
"""


# Turns of a started game played through the services, as its players' sockets would play
# them: the player to move rolls once and scores the box worth most now.
PLAY_TURNS = """
from games import services
from games.store.models import Game, Player
from games.store.selectors import game_state
from tests.factories import action_id
from tests.live import best_option
code, turns = args
for _ in range(turns):
    game = Game.objects.get(code=code)
    who = Player.objects.get(game=game, seat=game.snapshot["rules"]["current"]).controller
    services.turn_roll(code=code, controller=who, expected_version=None, action_id=action_id())
    option = best_option(game_state(Game.objects.get(code=code)))
    box, column = option["box"], option["column"]
    services.turn_score(code=code, controller=who, box=box, column=column, expected_version=None, action_id=action_id())
"""


class LiveSite:
    """The embedded default (SQLite + in-memory layer) served by a real server process (yahtzee.serve)."""

    def __init__(self, server: ServerProcess, database: Path) -> None:
        self.server, self.database = server, database
        self.shell = SiteShell(server.env, database.parent / "shell.log")
        self._games: dict[tuple[int, int, str], str] = {}
        # Games made once per test process for the tests that only read them, by what made them.
        self.made: dict[tuple[Any, ...], str] = {}

    def run(self, code: str, *args: Any) -> Any:
        """Run Python ``code`` (``args`` bound to its arguments) in the site's database; its ``result``."""
        return self.shell.run(code, *args)

    def play_turns(self, code: str, turns: int) -> None:
        """Play ``turns`` turns of room ``code`` through the services (its pages see them once loaded again)."""
        self.run(PLAY_TURNS, code, turns)

    def finished_game(self, players: int = 2, seed: int = 1, ruleset: str = "official") -> str:
        """The code of a game played to the end through the services, in the site's database.

        Made once per test process for each set of arguments: the tests that ask for one only
        read it (its replay, review, fairness and admin pages), so they share it.
        """
        key = (players, seed, ruleset)
        if key not in self._games:
            self._games[key] = str(self.run(PLAY_A_GAME, players, seed, ruleset))
        return self._games[key]

    @property
    def env(self) -> dict[str, str]:
        """The server's environment: what another process of the same site (a task worker) runs with."""
        return self.server.env

    @property
    def url(self) -> str:
        return self.server.url

    def query(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.database) as conn:
            return conn.execute(sql, params).fetchall()


@pytest.fixture(scope="session")
def live_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveSite]:
    data = tmp_path_factory.mktemp("live-site")
    env = server_env(
        DATA_DIR=str(data),
        SECRET_KEY=f"browser-{uuid.uuid4().hex}",
        DJANGO_SETTINGS_MODULE="tests.e2e.site_settings",
        # Tests click faster than people; the per-socket limit is tested in tests/realtime/test_limiter.py.
        WS_RATE_LIMIT="1000",
        BOT_DELAY="0.05",
        HOST_AWAY="1",  # the pages wait as long (a test runs their clock on)
        HIDDEN_AWAY="2",  # a player's room pages all hidden this long: told as if none were open
        # The turn timer offers its real choices only: a test's turn runs out by moving its
        # deadline (helpers.time_runs_out), as a timer of a few seconds would run out the turns of
        # the players the test plays too, on a loaded machine.
    )
    for name in ("DATABASE_URL", "REDIS_URL", "CHANNEL_LAYER"):
        env.pop(name, None)
    # Web Push: signed with a key of its own, sent to the tests' stub push services on 127.0.0.1.
    env.update(VAPID_PRIVATE_KEY=new_vapid_private_key(), PUSH_HOSTS="127.0.0.1", PUSH_ALLOW_HTTP="1")
    migrate_sqlite(env)
    server = ServerProcess(env, log_dir=data)
    env["SITE_URL"] = server.url  # the links of its e-mails and pushes
    site = LiveSite(server, data / "yahtzee.sqlite3")
    # The bots and the coach read these tables (built once, then cached). Built by the site's
    # shell, which the tests' own database code then finds with Django already set up.
    site.run("from django.core.management import call_command\ncall_command('build_bot_tables', 'official', 'yatzy')")
    server.start()
    try:
        yield site
    finally:
        site.shell.stop()
        server.stop()


def _command_line(browser: Any) -> list[str] | None:
    """The arguments the browser's process was started with (None where /proc cannot say)."""
    cdp = browser.new_browser_cdp_session()
    try:
        processes = cdp.send("SystemInfo.getProcessInfo")["processInfo"]
    except Exception:  # noqa: BLE001 - a browser that does not say: launched as it is
        return None
    finally:
        cdp.detach()
    pid = next((process["id"] for process in processes if process["type"] == "browser"), None)
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    except (OSError, ValueError):
        return None


def feature_switches(command_line: list[str] | None) -> list[str]:
    """The ``--disable-features`` switches of a browser's command line."""
    return [arg for arg in command_line or () if arg.startswith("--disable-features=")]


def launch_chromium(playwright: Any) -> Any:
    """Chromium with CHROMIUM_ARGS and Playwright's own switches, UNUSED_FEATURES turned off too.

    Chromium reads only the last ``--disable-features`` switch: one added after Playwright's
    would turn its features back on (among them those that keep the browser off the
    network). So the first launch reads Playwright's switch, and the second passes one switch
    with both lists instead of it. About a fifth of a second of CPU.
    """
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    command_line = _command_line(browser)
    if command_line is None:  # not on Linux: the popups stay
        return browser
    browser.close()
    defaults = feature_switches(command_line)
    names = [name for arg in defaults for name in arg.split("=", 1)[1].split(",") if name]
    merged = f"--disable-features={','.join(dict.fromkeys([*names, *UNUSED_FEATURES]))}"
    browser = playwright.chromium.launch(
        executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, merged], ignore_default_args=defaults
    )
    switches = feature_switches(_command_line(browser))
    if switches != [merged]:
        browser.close()
        pytest.fail(f"Chromium was to get one --disable-features switch, {merged}; it got {switches}")
    return browser


# One browser per test process (a launch is about 2 s of CPU; one per module would be ~34 a run).
# Playwright's sync API keeps its event loop marked as running in this thread while it is
# open; tests/conftest.py sets it aside around every test that does not use the browser, so
# the asyncio tests, async_to_sync and Django's database of the other modules can run.
@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is not at {CHROMIUM}: install Debian's chromium package (.ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        loop = asyncio.events._get_running_loop()
        browser = launch_chromium(playwright)
        try:
            yield browser
        finally:
            # The last test of the process may not be a browser test, its loop set aside (tests/conftest.py).
            asyncio.events._set_running_loop(loop)
            browser.close()


# --- pages kept between tests ------------------------------------------------------------------
#
# A new page costs Chromium a new context and its renderer process (about 0.25 s of CPU, a few
# hundred a run, with UNUSED_FEATURES off); one navigation of a kept page costs about half of
# that. So a page that a passing test used is made as good as new and kept for the next test
# that asks for a page with the same options: its cookies, storage and HTTP cache cleared, its
# viewport, media, timeouts and mouse put back, and the page itself taken to a plain file of the
# same site, so the room it showed closes its socket as a closed page would. A page on which a
# test changed what no reset undoes (routes, listeners, init scripts, a CDP session, the clock,
# a second page of its context...) is closed instead, and so is every page of a test that failed.

# A page's waits: generous, since what a test waits for under a full run's load (three test
# processes, their Chromiums and servers on two cores) has taken over 10 s now and then; a
# passing test never waits it out, a failing one fails only later.
DEFAULT_TIMEOUT = 20_000
VIEWPORT = (1280, 900)
# Where a kept page goes between tests: a plain file of the site's, and a small one, since the
# reset shows it as a document of its own (a 558-byte text, not the 52 kB stylesheet, which
# cost Chromium about 0.03 s of CPU more to lay out and draw at each reset).
RESET_PATH = "/static/css/admin-site.css"
# The page and context methods after which a page is not kept.
_TAINTING = (
    "route", "route_web_socket", "route_from_har", "on", "once", "add_init_script", "expose_function",
    "expose_binding", "set_extra_http_headers", "new_cdp_session", "new_page", "grant_permissions",
    "set_offline", "set_geolocation", "set_http_credentials", "add_locator_handler", "pause",
    "set_storage_state", "set_default_navigation_timeout",
)  # fmt: skip
_STORAGE_TYPES = (
    "local_storage,indexeddb,cache_storage,service_workers,file_systems,websql,shader_cache,storage_buckets"
)
_TAINTING_PROPERTIES = ("clock", "tracing", "credentials", "debugger", "screencast")
# Keys or buttons a test pressed down and did not release would be held in the next test.
_TAINTING_INPUT = ("down",)


class _Kept:
    """A page of the pool: the context options it was made with, its CDP session (for the reset), and
    whether a test did something to it that no reset undoes."""

    def __init__(self, page: Any, key: tuple[Any, ...], cdp: Any) -> None:
        self.page, self.key, self.cdp = page, key, cdp
        self.tainted = False
        # The origins its frames went to since its last reset: the reset clears their storage.
        self.origins: set[str] = set()


def _marking(kept: _Kept, method: Any) -> Any:
    def marking(*args: Any, **kwargs: Any) -> Any:
        kept.tainted = True
        return method(*args, **kwargs)

    return marking


def _marking_property(kept: _Kept, prop: property) -> property:
    def getter(self: Any) -> Any:
        kept.tainted = True
        return prop.fget(self) if prop.fget else None

    return property(getter)


def _watch(target: Any, kept: _Kept) -> None:
    """Mark ``kept`` tainted when a test calls one of ``target``'s tainting methods or properties."""
    for name in _TAINTING:
        method = getattr(target, name, None)
        if method is not None:
            setattr(target, name, _marking(kept, method))
    # A property is looked up on the class: the object gets a subclass of its own that watches it.
    cls = type(target)
    watched = {name: _marking_property(kept, getattr(cls, name)) for name in _TAINTING_PROPERTIES if hasattr(cls, name)}
    if watched:
        target.__class__ = type(cls.__name__, (cls,), watched)
    for device in ("keyboard", "mouse"):
        if hasattr(cls, device):
            for name in _TAINTING_INPUT:
                setattr(getattr(target, device), name, _marking(kept, getattr(getattr(target, device), name)))


def _origin(url: str) -> str:
    """scheme://host:port of ``url`` (what web storage is kept by)."""
    return "/".join(url.split("/", 3)[:3])


class PagePool:
    """Pages kept between the tests of one test process, by the options they were made with."""

    HARNESS = ("harness",)  # the key of the harness pages

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.idle: dict[tuple[Any, ...], list[_Kept]] = {}

    def _open(self, key: tuple[Any, ...], **options: Any) -> _Kept:
        """A new page in a context of its own, its errors collected in ``page.errors``, watched for taints."""
        context = self.browser.new_context(**options)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        kept = _Kept(page, key, context.new_cdp_session(page))
        page.on("framenavigated", lambda frame: kept.origins.add(_origin(frame.url)))
        # A second page in the context (a popup, even one closed since) is not kept track of.
        context.on("page", lambda _: setattr(kept, "tainted", True))
        return kept

    def take(self, width: int, height: int, **options: Any) -> _Kept:
        media = {
            "reduced_motion": options.pop("reduced_motion", "reduce"),
            "color_scheme": options.pop("color_scheme", "light"),
            "forced_colors": options.pop("forced_colors", "none"),
            "contrast": options.pop("contrast", "no-preference"),
        }
        # The site's Content-Security-Policy refuses eval, and Playwright's wait_for_function
        # evaluates its predicate with eval in the page: the tests' pages set the policy aside.
        # tests/e2e/test_csp.py asks for pages that keep it (bypass_csp=False), and checks it.
        options.setdefault("bypass_csp", True)
        key = (repr(sorted(options.items())),)  # options may be unhashable (lists, dicts)
        idle = self.idle.get(key)
        if idle:
            kept = idle.pop()
        else:
            kept = self._open(key, viewport={"width": VIEWPORT[0], "height": VIEWPORT[1]}, **options)
            page = kept.page
            page.on("console", lambda msg: msg.type == "error" and page.errors.append(msg.text))
            _watch(page, kept)
            _watch(page.context, kept)
        page = kept.page
        page.emulate_media(media="screen", **media)
        if page.viewport_size != {"width": width, "height": height}:
            page.set_viewport_size({"width": width, "height": height})
        page.errors.clear()
        return kept

    def take_harness(self) -> _Kept:
        """A page whose requests to HARNESS_ORIGIN are answered from the repository (its ``html`` for /harness.html)."""
        idle = self.idle.get(self.HARNESS)
        if idle:
            return idle.pop()
        kept = self._open(self.HARNESS)
        page = kept.page
        page.html = ""
        page.discarding = False

        # What the page said before its next document comes in is the document before's, whose
        # test is over: dropped when the new one commits (the new one's scripts run only after).
        def committed(frame: Any) -> None:
            if page.discarding and frame == page.main_frame:
                page.discarding = False
                page.errors.clear()

        page.on("framenavigated", committed)

        def serve(route: Any) -> None:
            path = route.request.url.removeprefix(HARNESS_ORIGIN)
            file = STATIC / path.removeprefix("/static/")
            if path == "/harness.html":
                route.fulfill(status=200, content_type="text/html", body=page.html)
            elif path.startswith("/static/") and file.is_file() and STATIC in file.resolve().parents:
                kind = "text/css" if file.suffix == ".css" else "text/javascript"
                route.fulfill(status=200, content_type=kind, body=file.read_text())
            else:
                route.fulfill(status=404, body="")

        page.route(f"{HARNESS_ORIGIN}/**", serve)
        _watch(page, kept)
        _watch(page.context, kept)
        return kept

    def give_back(self, kept: _Kept, passed: bool) -> None:
        """Reset the page and keep it, or close it (a failed test, a tainted or a closed page).

        A harness page needs no reset: the harness loads a new document for each use.
        """
        page = kept.page
        if not passed or kept.tainted or page.is_closed() or (kept.key != self.HARNESS and not self._reset(kept)):
            page.context.close()
            return
        self.idle.setdefault(kept.key, []).append(kept)

    @staticmethod
    def _reset(kept: _Kept) -> bool:
        page = kept.page
        url = page.url
        if not url.startswith("http://") or len(page.context.pages) != 1:
            return False  # about:blank, a page that never got anywhere, or one that opened a popup
        origin = _origin(url)
        try:
            page.set_default_timeout(DEFAULT_TIMEOUT)
            # A plain file of the same site: a page of another site would start a new renderer.
            page.goto(origin + RESET_PATH)
            page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); window.name = ''; }")
            kept.cdp.send("Page.resetNavigationHistory")
            kept.cdp.send("Network.clearBrowserCache")
            # Every origin its frames went to, not only this one: a test may have moved the page
            # between servers. (Not found through Playwright's storage_state(), which opens a
            # hidden page and takes it to every origin the context ever visited, each time.)
            for each in sorted(kept.origins | {origin}):
                # Not the cookies: Playwright's clear_cookies below clears those, and is waited for.
                kept.cdp.send("Storage.clearDataForOrigin", {"origin": each, "storageTypes": _STORAGE_TYPES})
            kept.origins.clear()
            page.context.clear_cookies()
            # Nothing of it is left when the next test starts (waited for only if not yet: a wait
            # polls on every animation frame, and costs more than the check that nearly always passes).
            clean = "localStorage.length === 0 && sessionStorage.length === 0 && !document.cookie"
            if not page.evaluate(clean):
                page.wait_for_function(clean)
            if page.context.cookies():
                return False
            page.mouse.move(0, 0)
            for clear in ("clear_console_messages", "clear_page_errors"):  # Playwright's own buffers
                getattr(page, clear, lambda: None)()
        except Exception:  # noqa: BLE001 - a page that cannot be reset is closed, not kept
            return False
        return True


@pytest.fixture(scope="session")
def page_pool(chromium: Any) -> PagePool:
    return PagePool(chromium)


_FAILED = pytest.StashKey[bool]()  # a phase of the test failed: its pages are not kept


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.failed:
        item.stash[_FAILED] = True
    return report


@pytest.fixture
def new_page(page_pool: PagePool, request: pytest.FixtureRequest) -> Iterator[Any]:
    """Pages in separate browser contexts (separate cookies: separate people), each as good as new."""
    taken: list[_Kept] = []

    def make(width: int = VIEWPORT[0], height: int = VIEWPORT[1], **options: Any) -> Any:
        kept = page_pool.take(width, height, **options)
        taken.append(kept)
        kept.page.set_default_timeout(DEFAULT_TIMEOUT)
        return kept.page

    yield make
    passed = not request.node.stash.get(_FAILED, False)
    for kept in taken:
        page_pool.give_back(kept, passed)


STATIC = Path(__file__).resolve().parents[2] / "static"
HARNESS_ORIGIN = "http://client.test"


def load_harness(page: Any, html: str) -> Any:
    """``page`` (a harness page) with a new document of ``html``, its errors those of that document alone.

    One navigation: the last test's document goes as the new one comes in, and what it said
    with it (a navigation to an empty document first, to be rid of it, cost Chromium about
    0.2 s of CPU more a test).
    """
    page.html = html
    page.set_default_timeout(DEFAULT_TIMEOUT)
    page.discarding = True
    page.goto(f"{HARNESS_ORIGIN}/harness.html")
    page.wait_for_function("window.ready === true")
    return page


@pytest.fixture
def harness(page_pool: PagePool, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A page at a made-up origin that serves ``html`` and the repository's static/ files, no server.

    For testing the page's ES modules on their own (the protocol client, the drawing). Its pages
    are kept between tests like new_page's: each call loads a new document with its own html.
    """
    taken: list[_Kept] = []
    errors: list[str] = []

    def make(html: str) -> Any:
        kept = page_pool.take_harness()
        taken.append(kept)
        return load_harness(kept.page, html)

    yield make
    passed = not request.node.stash.get(_FAILED, False)
    for kept in taken:
        errors.extend(kept.page.errors)
        page_pool.give_back(kept, passed and not errors)
    assert errors == []

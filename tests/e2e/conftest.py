"""A live server and the system Chromium for the browser tests (never a downloaded browser)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.live import ServerProcess, manage, migrate_sqlite, server_env

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


class LiveSite:
    """The embedded default (SQLite + in-memory layer) served by a real server process (yahtzee.serve)."""

    def __init__(self, server: ServerProcess, database: Path) -> None:
        self.server, self.database = server, database

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
        # Tests click faster than people; the per-socket limit is tested in tests/consumers.
        WS_RATE_LIMIT="1000",
        BOT_DELAY="0.05",
    )
    for name in ("DATABASE_URL", "REDIS_URL", "CHANNEL_LAYER"):
        env.pop(name, None)
    migrate_sqlite(env)
    # The bots and the coach read these tables (built once, then cached).
    manage("build_bot_tables", "official", "yatzy", env=env)
    server = ServerProcess(env, log_dir=data).start()
    try:
        yield LiveSite(server, data / "yahtzee.sqlite3")
    finally:
        server.stop()


# One browser per test process (a launch is about 2 s of CPU; per module it was ~34 a run).
# Playwright's sync API keeps its event loop marked as running in this thread while it is
# open; tests/conftest.py sets it aside around every test that does not use the browser, so
# the asyncio tests and async_to_sync of the other modules can run their own.
@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is not at {CHROMIUM}: install Debian's chromium package (.ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def new_page(chromium: Any) -> Iterator[Any]:
    """Pages in separate browser contexts (separate cookies: separate people)."""
    contexts: list[Any] = []

    def make(width: int = 1280, height: int = 900, **options: Any) -> Any:
        options.setdefault("reduced_motion", "reduce")
        context = chromium.new_context(viewport={"width": width, "height": height}, **options)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        page.on("console", lambda msg: msg.type == "error" and page.errors.append(msg.text))
        return page

    yield make
    for context in contexts:
        context.close()


STATIC = Path(__file__).resolve().parents[2] / "static"
HARNESS_ORIGIN = "http://client.test"


@pytest.fixture
def harness(chromium: Any) -> Iterator[Any]:
    """A page at a made-up origin that serves ``html`` and the repository's static/ files, no server.

    For testing the page's ES modules on their own (the protocol client, the drawing).
    """
    contexts: list[Any] = []
    errors: list[str] = []

    def make(html: str) -> Any:
        context = chromium.new_context()
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.on("pageerror", lambda error: errors.append(str(error)))

        def serve(route: Any) -> None:
            path = route.request.url.removeprefix(HARNESS_ORIGIN)
            file = STATIC / path.removeprefix("/static/")
            if path == "/harness.html":
                route.fulfill(status=200, content_type="text/html", body=html)
            elif path.startswith("/static/") and file.is_file() and STATIC in file.resolve().parents:
                kind = "text/css" if file.suffix == ".css" else "text/javascript"
                route.fulfill(status=200, content_type=kind, body=file.read_text())
            else:
                route.fulfill(status=404, body="")

        page.route(f"{HARNESS_ORIGIN}/**", serve)
        page.goto(f"{HARNESS_ORIGIN}/harness.html")
        page.wait_for_function("window.ready === true")
        return page

    yield make
    for context in contexts:
        context.close()
    assert errors == []

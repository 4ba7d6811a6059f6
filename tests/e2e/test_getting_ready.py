"""While a rule set's table is being built, its computer players and its coach wait and say so, then play.

The server here starts with an empty table cache and builds nothing at start. The test holds
the lock a build takes on each table's file (bots.tables builds under it, so the server's
builder thread waits on it) and "finishes the build" by putting a table built beforehand in
place and letting go of the lock, when it chooses.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

import bots
from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import SHOTS, act, create_local, in_each_scheme, score_best, shot, wait_version
from tests.live import ServerProcess, manage, migrate_sqlite, server_env

pytestmark = pytest.mark.browser

WAITING = re.compile(r"^The computer is getting ready \((about \d+\s+s|any moment now)\)\.$")


class HeldTables:
    """The server's table files, kept from it until ``release``."""

    def __init__(self, cache: Path, names: list[str]) -> None:
        self.cache = cache
        self.held: dict[str, IO[str]] = {}
        for name in names:
            lock = (cache / bots.tables.cache_path(name).name).with_suffix(".lock").open("a")
            fcntl.flock(lock, fcntl.LOCK_EX)
            self.held[name] = lock

    def release(self, name: str) -> None:
        """The build is done: the table built beforehand goes in place, then the lock goes."""
        lock = self.held.pop(name, None)
        if lock is None:
            return
        built = bots.tables.cache_path(name)  # the tests' own cache, where conftest builds them
        target = self.cache / built.name
        shutil.copyfile(built, target.with_suffix(".part"))
        os.replace(target.with_suffix(".part"), target)
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()

    def release_all(self) -> None:
        for name in list(self.held):
            self.release(name)


@pytest.fixture(scope="module")
def building_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveSite, HeldTables]]:
    data = tmp_path_factory.mktemp("getting-ready")
    # The tables to put in place later, built (once, then cached) where the tests keep theirs.
    manage("build_bot_tables", "official", "yatzy", env=server_env())
    cache = data / "bots"
    cache.mkdir()
    held = HeldTables(cache, ["official", "yatzy"])
    env = server_env(
        DATA_DIR=str(data),
        SECRET_KEY=f"browser-{uuid.uuid4().hex}",
        WS_RATE_LIMIT="1000",
        BOT_DELAY="0.05",
        YAHTZEE_BOT_CACHE=str(cache),
        BOT_TABLES_AT_START="0",  # nothing is built until a room asks
    )
    for name in ("DATABASE_URL", "REDIS_URL", "CHANNEL_LAYER"):
        env.pop(name, None)
    migrate_sqlite(env)
    server = ServerProcess(env, log_dir=data).start()
    try:
        yield LiveSite(server, data / "yahtzee.sqlite3"), held
    finally:
        held.release_all()  # the server's builder thread is not left waiting
        server.stop()


def first_roll(page: Any, site: LiveSite, name: str, ruleset: str, bots: int) -> None:
    """``name`` rolls first at a pass-and-play table of ``ruleset`` with ``bots`` optimal computer
    players."""
    create_local(page, site, [name], ruleset, bots=bots, level="optimal")
    act(page, [page], lambda: page.click("#roll"))


def says_it_waits(note: Any) -> None:
    """Until ``note`` shows, saying in ``WAITING``'s words that the table it needs is being built."""
    note.wait_for()
    assert WAITING.match(note.inner_text()), note.inner_text()


def shots(page: Any, name: str) -> None:
    """Screenshots for a look (SCREENSHOTS=folder): desktop and phone, light and dark."""
    if not SHOTS:
        return
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        for scheme in in_each_scheme(page):
            shot(page, f"{name}-{width}-{scheme}")


def my_turn(page: Any, name: str) -> Callable[[], None]:
    def wait() -> None:
        page.wait_for_function(
            f"document.getElementById('turn-h')?.textContent.startsWith('Your turn, {name}') "
            "&& !document.getElementById('roll').disabled"
        )

    return wait


def test_a_computer_player_waits_for_its_table_saying_so_then_plays(
    building_site: tuple[LiveSite, HeldTables], new_page: Any
) -> None:
    site, held = building_site
    page = new_page()
    first_roll(page, site, "Ann", "official", 1)
    score_best(page, [page])  # the computer's turn: its table is not there yet
    says_it_waits(page.locator("#ready-banner"))
    waiting_at = int(page.locator("#room").get_attribute("data-version") or -1)
    code = page.url.rstrip("/").split("/")[-1]
    # The home page says so too, while the table is being built.
    home = new_page()
    # The build is asked for by the computer's first step, which the scheduler takes just after
    # the state the banner came in: the home page may come first, so load it until it says so.
    deadline = time.monotonic() + 20
    home.goto(site.url + "/")
    while not home.locator("#getting-ready").count():
        assert time.monotonic() < deadline, "the home page never said the computer players are getting ready"
        home.wait_for_timeout(100)
        home.reload()
    note = home.inner_text("#getting-ready")
    assert "The computer players are getting ready" in note and "Yahtzee (official) (about" in note
    shots(home, "home-getting-ready")
    shots(page, "room-bot-getting-ready")
    # Waiting, not playing a weaker game meanwhile: nothing of the computer's is in the log.
    bot_moves = "SELECT count(*) FROM games_move m JOIN games_game g ON g.id = m.game_id WHERE g.code = ? AND m.seq > ?"
    assert site.query(bot_moves, code, waiting_at)[0][0] == 0
    assert page.locator("#room").get_attribute("data-version") == str(waiting_at)
    held.release("official")
    wait_version([page], waiting_at)
    my_turn(page, "Ann")()
    assert page.locator("#ready-banner").count() == 0
    assert site.query(bot_moves, code, waiting_at)[0][0] >= 2  # it rolled and scored
    home.goto(site.url + "/")
    assert home.locator("#getting-ready").count() == 0
    assert page.errors == [] and home.errors == []


def test_the_coachs_hint_waits_for_its_table_saying_so_then_answers(
    building_site: tuple[LiveSite, HeldTables], new_page: Any
) -> None:
    site, held = building_site
    page = new_page()
    first_roll(page, site, "Bea", "yatzy", 0)
    page.click("#hint")
    says_it_waits(page.locator(".hint-wait [data-ready=hint]"))
    shots(page, "room-hint-getting-ready")
    held.release("yatzy")
    # The page asks again by itself, and the answer comes once the table is there.
    page.wait_for_selector(".hint-box li")
    assert page.locator(".hint-box li").count() == 3 and page.locator(".hint-wait").count() == 0
    assert "≈" in page.inner_text(".hint-box li.best")
    assert page.errors == []

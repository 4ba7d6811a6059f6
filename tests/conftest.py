"""Test-wide fixtures and the rule for tests that need PostgreSQL or Redis.

A test marked ``postgres`` or ``redis`` runs when DATABASE_URL / REDIS_URL point at a
reachable server. Without them it is skipped on a laptop, but with REQUIRE_SERVICES=1
(as .ci/run sets) it fails instead, so CI can never go green by skipping.
"""

from __future__ import annotations

import asyncio
import gc
import os
import socket
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import pytest_asyncio
from channels.testing import WebsocketCommunicator
from django.conf import settings  # pytest-django has loaded the settings by now
from django.db import connections, transaction
from django.test import TransactionTestCase

from yahtzee.lifespan import Lifespan

# The test process and the servers it starts do not build every missing solver table at
# start-up (a minute of CPU each on a fresh checkout); tests that need one build it, and
# tests/store/test_tables.py turns this back on to test it. The settings were read before this
# file, so the test process is told directly; the servers it starts read the environment.
os.environ.setdefault("BOT_TABLES_AT_START", "0")
# The solver tables the tests' bots and coach read are kept in the user's cache between
# checkouts (a clean clone would build them again: a minute or two of CPU), unless
# YAHTZEE_BOT_CACHE says where. A table's file name carries a fingerprint of the scoring it
# was built from and of bots.solver.FORMAT_VERSION, as in ./var/bots: a change to either builds a new one.
os.environ.setdefault("YAHTZEE_BOT_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "yahtzee", "bots"))
settings.BOT_TABLES_AT_START = os.environ["BOT_TABLES_AT_START"] == "1"
# The settings write no key (``python -m yahtzee.prepare`` does, for make run): on a fresh
# checkout there is none, so the test process signs with a throwaway one, and the servers
# it starts inherit it unless they are given their own.
os.environ.setdefault("SECRET_KEY", f"tests-only-{uuid.uuid4().hex}{uuid.uuid4().hex}")
settings.SECRET_KEY = os.environ["SECRET_KEY"]
# Channels' test communicator gives a handshake 1 s by default; on a loaded 2-core machine
# (two xdist workers, live servers, Chromium) a handshake that needs the database can take
# longer, and the test failed on the wait, not on what it checks. Every other wait keeps its
# own timeout.
WebsocketCommunicator.connect.__defaults__ = (10,)
# On PostgreSQL each xdist worker's test database is copied from a database migrated once
# (tests.live.migrated_template) instead of migrated from scratch: Django's creation makes it
# with CREATE DATABASE ... TEMPLATE, and its migrate then finds nothing left to apply.
if settings.DATABASES["default"]["ENGINE"] == "yahtzee.postgresql" and os.environ.get("DATABASE_URL"):
    from tests.live import migrated_template

    try:
        _template = migrated_template(urlparse(os.environ["DATABASE_URL"]))
    except Exception:  # the server is unreachable: the tests that need it say so (REQUIRE_SERVICES)
        _template = ""
    if _template:
        settings.DATABASES["default"].setdefault("TEST", {})["TEMPLATE"] = _template
# Django's ``cache.clear()`` on Redis is FLUSHDB: it would wipe, mid-test, the counts of every
# other test process sharing that Redis (rate limits, allauth's limits, cached pages), and a test
# counting up to a limit would then miss counts. So each test process keeps its cache keys under a
# prefix of its own, and a test empties only those (``clear_cache`` below).
if settings.CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    settings.CACHES["default"]["KEY_PREFIX"] = f"tests-{uuid.uuid4().hex}"
# Every test's client builds Django's middleware chain anew, and WhiteNoise's then walked every
# static file to index it (6 ms a client, about a thousand clients a run). With autorefresh it
# looks a file up when one is asked for, as under DEBUG; the servers the tests start index once.
settings.WHITENOISE_AUTOREFRESH = True
# The test process completes what follows a finished game (the accounts' records and ratings)
# right after its commit, not in a thread that could outlive the test's database (the servers
# it starts leave it to their scheduler).
settings.FOLLOWUPS_INLINE = True
# The test process is no server: a connection made in it (Channels' communicators, on event loops
# that end with each test) does not start the process's scheduler as a first connection under
# Daphne does (yahtzee/lifespan.py), nor leave the serving processes at its exit, when its test
# database is gone; the servers it starts do.
Lifespan.start_at_first_connection = False
Lifespan.leave_at_exit = False
# The test process hashes passwords with a fast hasher (Django's own advice for tests): with the
# default PBKDF2, every create_user and login in the admin and lockout tests was about a
# second of CPU here. The servers the tests start keep the real hashers.
settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _emptied_quickly(self: TransactionTestCase) -> None:
    """After a transactional test on PostgreSQL: empty the tables with DELETE, keeping the static ones.

    Django's own teardown runs ``flush``: one TRUNCATE of every table (PostgreSQL's costs a
    new file per table) and then the post_migrate signal, which writes every content type
    and permission back. That took 0.3-1 s a test, a couple of minutes of the suite. Here
    the tables are emptied with DELETE in one transaction (Django's foreign keys are
    deferred, so the order does not matter), and the content types, permissions and the
    migration log, which no test changes, stay. Other databases keep Django's flush.
    """
    for alias in self._databases_names(include_mirrors=False):
        conn = connections[alias]
        if conn.vendor != "postgresql":
            _django_teardown(self)
            continue
        keep = {"django_migrations", "django_content_type", "auth_permission"}
        with transaction.atomic(using=alias), conn.cursor() as cursor:
            tables = [table for table in conn.introspection.table_names(cursor) if table not in keep]
            # One round trip for all of them (a statement per table was one each).
            deletes = "".join(f"DELETE FROM {conn.ops.quote_name(table)};" for table in tables)
            cursor.execute(f"SET CONSTRAINTS ALL DEFERRED;{deletes}")


_django_teardown = TransactionTestCase._fixture_teardown
TransactionTestCase._fixture_teardown = _emptied_quickly  # type: ignore[method-assign]


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection leaves for the whole run (every test item and module, Django's apps and
    models) is set beyond the garbage collector's reach: each of its full collections walked
    all of it again, a few per cent of a test process's CPU. Objects the tests make are
    collected as before."""
    gc.collect()
    gc.freeze()


def _reachable(url: str, default_port: int) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or default_port), timeout=2):
            return True
    except OSError:
        return False


def _service_problem(marker: str) -> str | None:
    if marker == "postgres":
        url = os.environ.get("DATABASE_URL", "")
        if not url.startswith(("postgres://", "postgresql://")):
            return "DATABASE_URL does not name a PostgreSQL server"
        return None if _reachable(url, 5432) else f"PostgreSQL at {url} is unreachable"
    url = os.environ.get("REDIS_URL", "")
    if not url:
        return "REDIS_URL is not set"
    return None if _reachable(url, 6379) else f"Redis at {url} is unreachable"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    required = os.environ.get("REQUIRE_SERVICES") == "1"
    problems: dict[str, str | None] = {}
    for item in items:
        for marker in ("postgres", "redis"):
            if marker not in item.keywords:
                continue
            if marker not in problems:
                problems[marker] = _service_problem(marker)
            problem = problems[marker]
            if problem is None:
                continue
            if required:
                item.add_marker(pytest.mark.usefixtures("_service_is_required"))
                item.user_properties.append(("service_problem", problem))
            else:
                item.add_marker(pytest.mark.skip(reason=f"{problem} (set it, or run .ci/run)"))


@pytest.fixture
def _service_is_required(request: pytest.FixtureRequest) -> None:
    problems = [value for key, value in request.node.user_properties if key == "service_problem"]
    pytest.fail(f"REQUIRE_SERVICES=1 but {'; '.join(problems)}")


def need_program(name: str, install: str) -> None:
    """Skip on a laptop without ``name``; fail under REQUIRE_SERVICES=1, where .ci/run installs it."""
    import shutil

    if shutil.which(name) is not None:
        return
    message = f"{name} is not installed ({install})"
    if os.environ.get("REQUIRE_SERVICES") == "1":
        pytest.fail(f"REQUIRE_SERVICES=1 but {message}")
    pytest.skip(message)


@pytest_asyncio.fixture
async def fresh_transport() -> AsyncIterator[None]:
    """After the test, the transport as new: ``games.realtime.transport.reset``, the one call.

    The sockets' background work (a presence frame due, the sweep, a computer player's step
    or a turn timeout still due) would write while the next test empties the tables, or open
    a database connection again after the test closed them; the reset ends it, waits for
    the database threads, closes their connections and forgets every room and counter.
    """
    yield
    from games.realtime import transport

    await transport.reset()


@pytest.fixture
def no_frame_limit(settings: Any) -> None:
    """The per-socket frame limit (WS_RATE_LIMIT, tested in tests/realtime/consumers) lifted, for a test
    that plays as fast as the server answers, faster than a person may send frames."""
    settings.WS_RATE_LIMIT = 10**6


class ManualClock:
    """A clock that moves only when a test moves it."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def clear_cache() -> None:
    """Empty this test process's cache (its own keys only, where the cache is a shared Redis)."""
    from django.core.cache import cache

    config = settings.CACHES["default"]
    if config["BACKEND"] != "django.core.cache.backends.redis.RedisCache":
        cache.clear()
        return
    import redis

    client = redis.Redis.from_url(config["LOCATION"])
    try:
        keys = list(client.scan_iter(match=f"{config['KEY_PREFIX']}:*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


@pytest.fixture
def limit_clock() -> Iterator[ManualClock]:
    """The rate limiter's clock (games.realtime.limits), standing still until the test moves it.

    A test counting up to a limit sees no event of its own grow old on a slow machine, and
    one about time moves the clock instead of sleeping. Only the limiter counts on it.
    """
    from games.realtime.limits import limiter

    clock = ManualClock()
    with limiter.use_clock(clock):
        yield clock


# The browser tests share one Playwright per test process (tests/e2e/conftest.py). Its sync API
# runs its event loop in a greenlet of this thread, so between its calls asyncio still sees that
# loop as running here, and pytest-asyncio's runner, asgiref's async_to_sync and Django's
# async-unsafe check refuse to work ("cannot be called from a running event loop",
# SynchronousOnlyOperation). Nothing runs in that loop while no Playwright call is made, so for a
# test that does not drive the browser it is set aside from before its first fixture is set up
# (pytest-django's database fixtures come before any autouse fixture of this file) until its
# last one is torn down, and put back after. tests/e2e/conftest.py puts it back itself to close
# the browser at the end.
_LOOP_SET_ASIDE = pytest.StashKey[asyncio.AbstractEventLoop]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """Each test counts its own room creations, joins, messages... for the rate limits (and see above).

    Every test client comes from 127.0.0.1, and with REDIS_URL the shared counts live in a
    Redis that other test runs share, so without this one test's rooms would count
    against the next test's limits: the limiter forgets this process's counts, and the
    shared ones are kept apart by a namespace of the test's own.
    """
    if settings.configured:
        from games.realtime.limits import limiter

        settings.RATE_LIMIT_NAMESPACE = uuid.uuid4().hex
        limiter.reset()
    running = asyncio.events._get_running_loop()
    if running is not None and "chromium" not in getattr(item, "fixturenames", ()):
        item.stash[_LOOP_SET_ASIDE] = running
        asyncio.events._set_running_loop(None)
    return (yield)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    try:
        return (yield)
    finally:
        if settings.configured:
            from django.utils import translation

            # A test client's request in another language (Accept-Language: de) leaves that language
            # active in this thread, where the next test would word its sentences in it.
            translation.deactivate()
        running = item.stash.get(_LOOP_SET_ASIDE, None)
        if running is not None and not running.is_closed():
            asyncio.events._set_running_loop(running)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """pytest-django's, with Playwright's loop set aside for its teardown (dropping the test database),
    and the connections this process's threads keep to it ended first.

    Session fixtures are torn down in the last test's teardown, in the reverse order of their
    setup: when that test drives the browser, or Chromium was started after the database, the
    database's teardown would run with Playwright's loop still marked running (Django's
    SynchronousOnlyOperation, and the test database left on the server). The chromium
    fixture puts the loop back for its own close.

    The threads that run websocket actions on PostgreSQL (games.realtime.threads) keep their
    connections (DB_CONN_MAX_AGE), and PostgreSQL refuses to drop a database that sessions
    are still using.
    """
    yield
    asyncio.events._set_running_loop(None)
    connection = connections["default"]
    if connection.vendor == "postgresql":
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    """A failed test that ran server processes shows their logs (the end of each) in its report.

    A live test fails on what a server did or did not do; without its log a failure seen
    once in a full run (a loaded machine, a timing) cannot be told from another.
    """
    report: pytest.TestReport = yield
    if report.failed and call.when == "call":
        folder = getattr(item, "funcargs", {}).get("tmp_path")
        if isinstance(folder, Path):
            for log in sorted(folder.glob("*.log")):
                report.sections.append((f"server log {log.name}", log.read_text(errors="replace")[-8000:]))
    return report

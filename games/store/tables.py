"""The solver tables the coach and the bots read, built in the background while the site serves.

A fresh install has none, and each takes ten to thirty seconds of CPU to build. A server
does not wait for them: it serves at once and builds the missing ones in one background
thread, one at a time (the other core keeps serving pages), the rule sets people pick most
first (``ORDER``). A room whose computer player or hint needs a table not built yet asks for
it (``request``): it is built next. Meanwhile the room waits and says for how long
(``eta``: the build's estimate, ``bots.tables.build_seconds``, minus the time it has run, the
estimates scaled by how the last build kept to its own).
A request never builds a table itself: the review waits (without holding a thread) for a
build under way.

``BOT_TABLES_AT_START`` (on by default) queues every missing table when the server starts;
each build logs one line with its time. ``manage.py build_bot_tables`` builds them ahead
instead (the Docker image does).
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
import time
from collections.abc import Callable

from django.conf import settings

import bots
from games.domain.rules import RULESETS

log = logging.getLogger(__name__)

# The rule sets people pick most first: official is the home form's default, Yatzy the other
# common family; Triple's table is official's (its column scores alike), so it costs nothing more.
ORDER = ("official", "yatzy", "free_joker", "yeti", "triple")
# After a build failed, a room's request does not start it again for this long (seconds): a
# failure that repeats would otherwise keep a core busy with builds that never finish.
FAILED_PAUSE = 60.0
# The least an estimate says is left: a build that runs past its estimate is "about 1 s" away.
LEAST_LEFT = 1.0
# How much slower (or faster) than its estimate the last build ran scales the estimates of the
# next ones (a machine busy with other work builds them all slower), within these bounds.
PACE_BOUNDS = (0.25, 8.0)


def needs_table(ruleset: str) -> bool:
    return bots.tables.needs_table(RULESETS[ruleset])


def ready(ruleset: str) -> bool:
    """Whether the coach and the bots of ``ruleset`` can play now (a rule set with no table always can)."""
    return bots.ready(RULESETS[ruleset])


def same_table(a: str, b: str) -> bool:
    """Whether rule sets ``a`` and ``b`` read the same table (Triple reads official's)."""
    return a == b or bots.tables.cache_path(RULESETS[a]) == bots.tables.cache_path(RULESETS[b])


class Builder:
    """Builds the queued rule sets' tables one after another in one thread of this process.

    ``clock`` (seconds, monotonic) and ``build`` (make one rule set's table) are the real ones
    unless a test passes its own; with ``threaded=False`` nothing starts a thread and the test
    calls ``work``.
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        build: Callable[[str], object] | None = None,
        threaded: bool = True,
    ) -> None:
        self._clock = clock
        self._build = build
        self._threaded = threaded
        self._lock = threading.Lock()
        self._queue: list[str] = []
        self._current: str | None = None
        self._since = 0.0  # when the current build started (clock)
        self._thread: threading.Thread | None = None
        self._failed: dict[str, float] = {}  # rule set -> when its build failed (clock)
        self._built = 0  # tables built since the queue was last empty, for "(2 of 4)"
        self._run_started = 0.0
        self._estimate = 0.0  # of the build under way, as it started (its measured time replaces it after)
        self._pace = 1.0  # the last build's time over its estimate (PACE_BOUNDS)
        self._go = threading.Event()  # cleared: builds wait (``hold``)
        self._go.set()

    def hold(self) -> None:
        """Builds wait (a server migrating its database first) until ``resume``."""
        self._go.clear()

    def resume(self) -> None:
        self._go.set()

    def _seconds(self, ruleset: str) -> float:
        return bots.tables.build_seconds(RULESETS[ruleset]) * self._pace

    # --- asking --------------------------------------------------------------------------

    def request(self, ruleset: str, *, first: bool = True) -> None:
        """Have the table of ``ruleset`` built: next (``first``, a room waits for it) or after the queue."""
        if not needs_table(ruleset) or ready(ruleset):
            return
        with self._lock:
            failed = self._failed_at(ruleset)
            if failed is not None and self._clock() - failed < FAILED_PAUSE:
                return
            if self._current is not None and same_table(self._current, ruleset):
                return
            queued = next((name for name in self._queue if same_table(name, ruleset)), None)
            if queued is not None:
                if first:  # moved up, under the name it was queued as
                    self._queue.remove(queued)
                    self._queue.insert(0, queued)
                return
            if not self._queue and self._current is None:
                self._built, self._run_started = 0, self._clock()
            if first:
                self._queue.insert(0, ruleset)
            else:
                self._queue.append(ruleset)
            if self._threaded and self._thread is None:
                self._thread = threading.Thread(target=self.work, name="bot-tables", daemon=True)
                self._thread.start()

    def _failed_at(self, ruleset: str) -> float | None:
        """When the last build of the table ``ruleset`` reads failed, under any rule set's name
        (Triple's table is official's: official's failure is Triple's too); None if none did."""
        times = [when for name, when in self._failed.items() if same_table(name, ruleset)]
        return max(times, default=None)

    # --- telling -------------------------------------------------------------------------

    def eta(self, ruleset: str) -> float | None:
        """Seconds until the table of ``ruleset`` should be ready; None when it is (or no estimate is left).

        A table under way: its estimate minus the time it has run (at least ``LEAST_LEFT``).
        A queued one: that plus the estimates of the builds before it and its own. One not
        asked for yet: as if a room asked now (it would be built next). None after its build
        failed (under any rule set's name that reads it), until it is asked for again.
        """
        if not needs_table(ruleset) or ready(ruleset):
            return None
        with self._lock:
            underway = ([self._current] if self._current else []) + self._queue
            if self._failed_at(ruleset) is not None and not any(same_table(n, ruleset) for n in underway):
                return None
            now = 0.0  # what the build under way has left
            if self._current is not None:
                elapsed = self._clock() - self._since
                now = max(self._estimate * self._pace - elapsed, LEAST_LEFT)
                if same_table(self._current, ruleset):
                    return now
            left = now
            for name in self._queue:
                if ready(name):
                    continue
                left += self._seconds(name)
                if same_table(name, ruleset):
                    return left
            return now + self._seconds(ruleset)

    def building(self) -> list[str]:
        """The rule sets whose tables are being built or waiting to be (in ``RULESETS`` order)."""
        with self._lock:
            underway = ([self._current] if self._current else []) + self._queue
        if not underway:  # the home page asks: no build, no need to load the computer players
            return []
        return [
            name
            for name in RULESETS
            if needs_table(name) and not ready(name) and any(same_table(name, other) for other in underway)
        ]

    # --- building ------------------------------------------------------------------------

    def work(self) -> None:
        """Build the queued tables, one after another, until the queue is empty (the builder thread)."""
        while True:
            self._go.wait()
            with self._lock:
                while self._queue and ready(self._queue[0]):  # another build made the same file
                    self._queue.pop(0)
                if not self._queue:
                    self._current, self._thread = None, None
                    return
                name = self._current = self._queue.pop(0)
                self._estimate = bots.tables.build_seconds(RULESETS[name])
                self._since = self._clock()
            started = time.perf_counter()
            try:
                if self._build is not None:
                    self._build(name)
                else:
                    bots.tables.table(RULESETS[name], build=True)
            except Exception:
                log.exception("building the solver table for %s failed", name)
                with self._lock:
                    self._failed[name] = self._clock()
                    self._current = None
                continue
            took = time.perf_counter() - started
            with self._lock:
                if self._estimate > 0:
                    low, high = PACE_BOUNDS
                    self._pace = min(max((self._clock() - self._since) / self._estimate, low), high)
                self._failed = {other: when for other, when in self._failed.items() if not same_table(other, name)}
                self._built += 1
                self._current = None
                of = self._built + sum(1 for other in self._queue if not ready(other))
                built, total = self._built, self._clock() - self._run_started
            log.info("Computer players: %s is ready (built in %.1f s, %d of %d).", name, took, built, of)
            if built == of:
                log.info("Computer players: every table is ready (%.0f s in all).", total)


_builder = Builder()


def hold() -> None:
    """This process's builds wait until ``resume`` (``python -m yahtzee.serve --migrate`` migrates first)."""
    _builder.hold()


def resume() -> None:
    _builder.resume()


def request(ruleset: str, *, first: bool = True) -> None:
    """Have this process build the table of ``ruleset`` in the background (next, unless ``first=False``)."""
    _builder.request(ruleset, first=first)


def eta(ruleset: str) -> float | None:
    """Seconds until the table of ``ruleset`` should be ready in this process; None when it is (see ``Builder.eta``)."""
    return _builder.eta(ruleset)


def building() -> list[str]:
    """The rule sets whose tables this process is building or about to build."""
    return _builder.building()


def getting_ready(ruleset: str) -> dict[str, int | None] | None:
    """The state's ``getting_ready``: ``{"eta": whole seconds or None}`` while the table is not ready, else None."""
    if not needs_table(ruleset) or ready(ruleset):
        return None
    left = eta(ruleset)
    return {"eta": None if left is None else math.ceil(left)}


def in_order() -> list[str]:
    """Every rule set, the ones people pick most first (``ORDER``)."""
    return [name for name in ORDER if name in RULESETS] + [name for name in RULESETS if name not in ORDER]


def missing() -> list[str]:
    """The rule sets whose table is neither in memory nor on disk, the ones people pick most first."""
    return [name for name in in_order() if needs_table(name) and not ready(name)]


def to_build(names: list[str]) -> list[str]:
    """Those of ``names`` whose table is missing, each table once (Triple's is official's)."""
    found: list[str] = []
    for name in names:
        if needs_table(name) and not ready(name) and not any(same_table(name, other) for other in found):
            found.append(name)
    return found


_started = threading.Event()


def prepare_in_background() -> bool:
    """At server start: queue every missing table, the rule sets people pick most first (once per process).

    Logs a start line with what it builds and an estimate of how long; returns whether it queued any.
    """
    if not settings.BOT_TABLES_AT_START or _started.is_set():
        return False
    _started.set()
    queued = to_build(missing())
    if not queued:
        return False
    seconds = sum(bots.tables.build_seconds(RULESETS[name]) for name in queued)
    log.info(
        "Computer players: building the solver tables of %s in the background, one at a time "
        "(about %.0f s); the site serves meanwhile.",
        ", ".join(queued),
        seconds,
    )
    for name in queued:
        request(name, first=False)
    return True


async def wait_ready(ruleset: str, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds (on the event loop, holding no thread) for the table of ``ruleset``."""
    deadline = time.monotonic() + timeout
    if not ready(ruleset):
        request(ruleset)
    while not ready(ruleset):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.25)
    return True

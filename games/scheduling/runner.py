"""The per-process scheduler: a sweep that claims due rooms, and timers for this process's own rooms.

One ``Scheduler`` per event loop. ``start`` makes the process's own (yahtzee.lifespan: at the
ASGI lifespan's startup, or at the first connection under Daphne, which sends none;
``manage.py run_scheduler``); where none was started (a test's event loop) the first committed
action that makes a room due makes a timers-only one on the loop that ran it, so computer
players and timeouts still follow without a sweep.

Modes (``SCHEDULER``): ``all`` sweeps every ``SCHEDULER_POLL`` seconds and keeps timers, and runs
the sweeps of what nothing reads any more when a round is due (``work.sweep_if_due``);
``local`` keeps only the timers of rooms this process committed (web workers beside a
``run_scheduler`` process) and still beats; ``off`` does nothing (tests that drive the
services by hand).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
import weakref
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

from asgiref.sync import SyncToAsync
from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

from games.realtime import routes, sockets, transport
from games.realtime.threads import db_async
from games.scheduling import work
from games.services import events, processes

log = logging.getLogger(__name__)

BATCH = 50  # rooms claimed in one sweep at most (and for half a poll at most), so the beat is never long behind
# Seconds between two asks whether the sweeps are due (work.sweep_if_due: once every SWEEP_EVERY
# across the site), never more often than SWEEP_EVERY.
SWEEP_ASK_EVERY = 60.0
SEEN_EVERY = 2  # beats between two refreshes of this serving process's row (games.services.processes)
# Finished games' follow-ups this process has leased and not completed, at most: they run one at a
# time (tenths of a second each), so more would wait past their lease (work.FOLLOWUPS_LEASE) and
# another process would lease them again, and again, through a backlog. A sweep with this many
# under way claims other rooms only.
FOLLOWUPS_AT_ONCE = 4
OUTAGE_SAY_EVERY = 60.0  # seconds between two lines saying the database is still away


class Outage:
    """The database away, logged once with the error, then a line at most every ``OUTAGE_SAY_EVERY``
    seconds, and once when it answers again: not a traceback at every sweep."""

    def __init__(self) -> None:
        self.since: float | None = None
        self.said = 0.0

    def failed(self, exc: BaseException) -> None:
        now = time.monotonic()
        if self.since is None:
            self.since = self.said = now
            log.error("the scheduler cannot reach the database (%s: %s); it keeps trying", type(exc).__name__, exc)
        elif now - self.said >= OUTAGE_SAY_EVERY:
            self.said = now
            log.warning(
                "the scheduler still cannot reach the database after %.0f s (%s)", now - self.since, type(exc).__name__
            )

    def back(self) -> None:
        if self.since is not None:
            log.warning("the scheduler reaches the database again, after %.0f s", time.monotonic() - self.since)
            self.since = None


class Scheduler:
    def __init__(self, loop: asyncio.AbstractEventLoop, *, sweep: bool, poll: float, serving: str = "") -> None:
        self.loop, self.sweep, self.poll, self.serving = loop, sweep, poll, serving
        self.peers: set[str] | None = None  # the other serving processes at the last beat (None: not read yet)
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._following: set[str] = set()
        self._main: asyncio.Task[None] | None = None
        # Follow-ups (counting a game runs the coach's review of it: tenths of a second) run in
        # a thread of their own, never in the database thread the actions wait for.
        self._followups = ThreadPoolExecutor(max_workers=1, thread_name_prefix="followups")
        # The sweeps delete in many short transactions (minutes of them for a large backlog): in a
        # thread of their own too, one round at a time.
        self._sweeps = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sweeps")
        self._sweeping: asyncio.Task[None] | None = None
        self._sweep_asked: float | None = None
        self.outage = Outage()
        self._alive = work.alive_name() if sweep else ""

    # -- from any thread -----------------------------------------------------------------

    def wake(self, code: str, at: datetime) -> None:
        """Apply what is due for ``code`` at ``at`` (thread-safe; a later call for the room replaces it)."""
        with contextlib.suppress(RuntimeError):  # the loop is closed (a finished test's)
            self.loop.call_soon_threadsafe(self._at, code, at, context=contextvars.Context())

    # -- on the loop ---------------------------------------------------------------------

    def start(self) -> None:
        if self._main is None:
            self._main = self.loop.create_task(self._run(), name="scheduler")

    async def stop(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        tasks = [*self._tasks, *([self._main] if self._main else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._main = None
        self._followups.shutdown(wait=False, cancel_futures=True)
        self._sweeps.shutdown(wait=False, cancel_futures=True)

    def pending(self) -> list[asyncio.Task[Any]]:
        return list(self._tasks)

    def _at(self, code: str, at: datetime) -> None:
        old = self._timers.pop(code, None)
        if old is not None:
            old.cancel()
        delay = max(0.0, (at - timezone.now()).total_seconds())
        self._timers[code] = self.loop.call_later(delay, self._fire, code)

    def _fire(self, code: str) -> None:
        self._timers.pop(code, None)
        self._spawn(self._apply(code))

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = self.loop.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _apply(self, code: str) -> None:
        try:
            outcome = await db_async(work.apply_due)(code)
            # Nothing was applied (a computer player waiting for its table to be built, a clock a
            # little ahead of this one): with no sweep here, come back when the room is next due.
            again = await db_async(work.due_at)(code) if outcome == work.NOTHING and not self.sweep else None
        except Exception as exc:
            # The sweep (here or in another process) tries again.
            if work.away(exc):
                self.outage.failed(exc)
            else:
                log.exception("due work in %s failed", code)
            return
        self._answered()
        if outcome == work.FOLLOWUPS:
            self._take(code)
        elif again is not None:
            self._at(code, max(again, timezone.now() + work.RETRY))

    def _take(self, code: str) -> None:
        """Complete the follow-ups of ``code``, leased to this process, unless they are under way here."""
        if code in self._following:
            return
        self._following.add(code)
        self._spawn(self._follow(code))

    async def _follow(self, code: str) -> None:
        try:
            if transport.current().pool is None:
                # An in-memory SQLite database (the tests'): a second thread's connection would have
                # its writes refused while the first holds a table (transport._pool), so the
                # follow-ups take the database calls' one thread.
                await db_async(work.run_followups)(code)
            else:
                await self.loop.run_in_executor(self._followups, _followups_thread, code)
        except Exception as exc:
            if work.away(exc):
                self.outage.failed(exc)  # they stay owed, and are leased again once it answers
            else:
                log.exception("the follow-ups of %s failed; they stay owed", code)
        else:
            self._answered()
        finally:
            self._following.discard(code)

    def _answered(self) -> None:
        """A room's work went through: the database's return, for a scheduler of timers only, which
        has no loop of its own to see it. Where the loop runs, its whole round says so: a timer
        that only read (a database that answers reads and refuses writes) while the beat still
        fails is no return, and saying so would log the outage again at every timer."""
        if self._main is None or self._main.done():
            self.outage.back()

    def _ask_sweep(self) -> None:
        """Run the sweeps if they are due, beside the sweep for due rooms, never two rounds at once."""
        now = time.monotonic()
        every = min(SWEEP_ASK_EVERY, settings.SWEEP_EVERY)
        if self._sweep_asked is not None and now - self._sweep_asked < every:
            return
        if self._sweeping is not None and not self._sweeping.done():
            return
        self._sweep_asked = now
        self._sweeping = self.loop.create_task(self._sweep(), name="sweeps")
        self._tasks.add(self._sweeping)
        self._sweeping.add_done_callback(self._tasks.discard)

    async def _sweep(self) -> None:
        try:
            if transport.current().pool is None:
                await db_async(work.sweep_if_due)()  # an in-memory SQLite database: its one thread (as _follow)
            else:
                await self.loop.run_in_executor(self._sweeps, _sweeps_thread)
        except Exception as exc:
            if work.away(exc):
                self.outage.failed(exc)
            else:
                log.exception("the sweeps failed; they run again when next due")

    def serving_now(self, serving: set[str]) -> None:
        """The other serving processes at this beat: a new one may be the worker the proxy sends
        some of this process's rooms to again (games.realtime.routes asks their pages)."""
        if self.peers is not None and serving - self.peers:
            routes.peer_started()
        self.peers = serving

    async def _run(self) -> None:
        beats = 0
        while True:
            more = False
            try:
                await db_async(work.beat)()
                beats += 1
                if self.serving and beats % SEEN_EVERY == 0:
                    found, rooms, serving = await db_async(processes.seen)(self.serving)
                    for problem in found:
                        log.error("%s", problem)
                    for code in rooms:  # a dead process's sockets: the room hears who is gone
                        sockets.presence_changed(code)
                    self.serving_now(serving)
                if self.sweep:
                    more = await self._claim_round()
                    self._ask_sweep()
                    await db_async(work.alive)(self._alive)
                # Once the whole round went through: a beat that passes while the claims still
                # fail is no return, and saying so would log the outage again at every poll.
                self.outage.back()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                more = False
                if work.away(exc):
                    self.outage.failed(exc)
                else:
                    log.exception("the scheduler's sweep failed; trying again in %s s", self.poll)
            # With more due (a backlog after downtime) the next sweep starts at once: waiting a
            # poll after each round would leave a turn due now behind the backlog for minutes.
            await asyncio.sleep(0 if more else self.poll)

    async def _claim_round(self) -> bool:
        """Claim and apply the rooms due longest: at most BATCH, for at most half a poll, so the
        process beats again soon (a round of slow claims with no beat, this process the site's
        only one, is taken for an outage: work.beat). Whether more may be due."""
        ends = self.loop.time() + self.poll / 2
        for _ in range(BATCH):
            claimed = await db_async(work.claim_next)(followups=len(self._following) < FOLLOWUPS_AT_ONCE)
            if claimed is None:
                return False
            code, outcome = claimed
            if outcome == work.FOLLOWUPS:
                self._take(code)
            if self.loop.time() >= ends:
                break
        return True


def _followups_thread(code: str) -> None:
    try:
        work.run_followups(code)
    finally:
        close_old_connections()


def _sweeps_thread() -> None:
    try:
        close_old_connections()
        work.sweep_if_due()
    finally:
        close_old_connections()


class Schedulers:
    """This process's schedulers: the one ``start`` made, and the timers-only ones made on other event loops."""

    def __init__(self) -> None:
        self.own: Scheduler | None = None
        self.local: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Scheduler] = weakref.WeakKeyDictionary()


_schedulers = Schedulers()


def current() -> Scheduler | None:
    return _schedulers.own


def start(mode: str | None = None, *, serving: str = "") -> Scheduler | None:
    """On the event loop: start this process's scheduler (``SCHEDULER``; None when ``off``).

    ``serving``: this serving process's origin, whose row the beat refreshes (games.services.processes).
    """
    mode = mode or settings.SCHEDULER
    if mode == "off":
        return None
    if mode not in ("all", "local"):
        raise ValueError(f"SCHEDULER is all, local or off (got {mode!r})")
    own = Scheduler(asyncio.get_running_loop(), sweep=mode == "all", poll=settings.SCHEDULER_POLL, serving=serving)
    _schedulers.own = own
    own.start()
    return own


async def stop() -> None:
    scheduler, _schedulers.own = _schedulers.own, None
    if scheduler is not None:
        await scheduler.stop()


def _for_loop() -> Scheduler | None:
    """This process's scheduler, or a timers-only one on the event loop that ran the committing thread."""
    if _schedulers.own is not None:
        return _schedulers.own
    if settings.SCHEDULER == "off":
        return None
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    if loop is None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
    if loop.is_closed():
        return None
    scheduler = _schedulers.local.get(loop)
    if scheduler is None:
        scheduler = _schedulers.local[loop] = Scheduler(loop, sweep=False, poll=settings.SCHEDULER_POLL)
    return scheduler


def committed(event: events.Committed) -> None:
    """A room's action committed in this process (games.services.events): act for it when it is next due."""
    if event.followups_owed and settings.FOLLOWUPS_INLINE:
        try:
            work.run_followups(event.code)
        except Exception as exc:
            if not work.away(exc):
                raise
            # The action is committed: its follow-ups stay owed, for a scheduler to lease later.
            log.warning("the follow-ups of %s wait for the database (%s)", event.code, type(exc).__name__)
        return
    if event.due_at is None:
        return
    scheduler = _for_loop()
    if scheduler is not None:
        scheduler.wake(event.code, event.due_at)


async def reset() -> None:
    """Forget every timer and task on the running loop (games.realtime.transport.reset calls it: games.apps)."""
    scheduler = _schedulers.local.pop(asyncio.get_running_loop(), None)
    if scheduler is not None:
        await scheduler.stop()

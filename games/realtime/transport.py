"""This process's transport state, in one object: ``current()``; and the one call that puts it back as new: ``reset()``.

The transport's modules keep no state of their own (but the rate limiter, shared with the
pages); each reads what it keeps here:

- the fan-out (games.realtime.fanout): which sockets of this process are in which room, on
  which event loop; the newest state delivered to each room; each loop's relay channel; who
  else is in the rooms (``peers``, ``known``); the listeners told of states and of Redis
  coming back;
- socket admission (games.realtime.sockets): the open sockets per address and per browser;
- presence (games.realtime.sockets): a room's presence frame due, the pings written, each
  loop's sweep of stale rows;
- the database threads (games.realtime.threads): ``DatabaseThreads``, each loop's upkeep lane;
- memory (games.realtime.memory): the closes since the last ``malloc_trim``;
- the pub/sub layer (games.realtime.layers): who is told of a resubscription;
- the background tasks of all these, so that none is lost to the garbage collector and a
  reset can end them.

``reset()`` is for tests: it ends what runs in the background on the caller's event loop
(this transport's tasks, and whatever registered with ``on_reset``: the scheduler's timers),
waits for the database threads to finish what they were doing and closes their
connections, and forgets every room, counter and relay, and the rate limiter's counts in
this process (``games.realtime.limits.limiter``, an object of its own: the pages share it).
The listeners stay: they are the wiring games.apps does once a process.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import queue
import threading
import weakref
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connections

from games.realtime.limits import limiter

if TYPE_CHECKING:
    from games.realtime.fanout import Relay, Socket, StateListener

R = TypeVar("R")


class DatabaseThreads:
    """Threads that run the game's database calls, in the order they are handed over.

    ``call`` is the event loop's way in: the result comes back to the loop with one
    ``call_soon_threadsafe``. ``loop.run_in_executor`` on a ``ThreadPoolExecutor`` does the
    same through two futures chained by callbacks (a ``concurrent.futures.Future`` with its
    condition, and the loop's future that mirrors it) and checks the pool's size on every
    call: about four times the CPU for the hand-over there and back with many calls in
    flight, twice with one (bench/threads_hop.py), which every game action pays. ``submit``
    serves a thread that waits for a result.

    The threads are daemons that stop at the interpreter's exit after finishing what they
    were given (``shutdown``, registered with ``atexit``), as the executor's do.
    """

    def __init__(self, size: int, name: str = "db") -> None:
        self.size = size
        self._queue: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._stopped = False
        self._threads = [threading.Thread(target=self._work, name=f"{name}_{n}", daemon=True) for n in range(size)]
        for thread in self._threads:
            thread.start()
        atexit.register(self.shutdown)

    def _work(self) -> None:
        while (job := self._queue.get()) is not None:
            job()

    def _put(self, job: Callable[[], None]) -> None:
        with self._lock:
            if self._stopped:
                raise RuntimeError("the database threads have stopped")
            self._queue.put(job)

    def call(self, loop: asyncio.AbstractEventLoop, function: Callable[[], R]) -> asyncio.Future[R]:
        """Run ``function`` in one of the threads; its result (or exception) in ``loop``'s future.

        A call whose future was cancelled before its turn does not run, as with an executor;
        one cancelled while it runs finishes, and its result is dropped.
        """
        future: asyncio.Future[R] = loop.create_future()

        def job() -> None:
            if future.cancelled():
                return
            try:
                result = function()
            except BaseException as exc:  # noqa: BLE001 - handed to the caller, as an executor does
                _to_loop(loop, _fail, future, exc)
            else:
                _to_loop(loop, _settle, future, result)

        self._put(job)
        return future

    def submit(self, function: Callable[..., R], *args: Any, **kwargs: Any) -> Future[R]:
        """Run ``function(*args, **kwargs)`` in one of the threads, for a caller that waits on the result."""
        future: Future[R] = Future()

        def job() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(function(*args, **kwargs))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                future.set_exception(exc)

        self._put(job)
        return future

    def shutdown(self, wait: bool = True) -> None:
        """No more calls; the threads end once they have run what they were given."""
        with self._lock:
            if not self._stopped:
                self._stopped = True
                for _ in self._threads:
                    self._queue.put(None)
        if wait:
            for thread in self._threads:
                if thread is not threading.current_thread():
                    thread.join()


def _to_loop(loop: asyncio.AbstractEventLoop, settle: Callable[..., None], *args: Any) -> None:
    with contextlib.suppress(RuntimeError):  # that loop is closed (a finished test's): nobody waits
        loop.call_soon_threadsafe(settle, *args)


def _settle(future: asyncio.Future[Any], result: Any) -> None:
    if not future.cancelled():
        future.set_result(result)


def _fail(future: asyncio.Future[Any], exc: BaseException) -> None:
    if not future.cancelled():
        if isinstance(exc, StopIteration):  # a future refuses it (it would end the awaiting generator)
            exc = RuntimeError(f"the database call raised StopIteration: {exc!r}")
        future.set_exception(exc)


@dataclass
class Trigger:
    """When to trim: after ``after`` closes since the last trim, one trim, not another until it ran."""

    closes: int = 0
    due: bool = False

    def closed(self, after: int) -> bool:
        """One socket closed: True if a trim is to be scheduled now (``after`` 0: never)."""
        if after <= 0:
            return False
        self.closes += 1
        if self.due or self.closes < after:
            return False
        self.due = True
        return True

    def trimmed(self) -> None:
        self.closes = 0
        self.due = False


def _pool() -> DatabaseThreads | None:
    """The threads the game's database calls run in (games.realtime.threads); None for Channels' one.

    PostgreSQL takes writers side by side: a pool of DB_THREADS threads. SQLite has one
    writer: one thread of the transport's own, for a database file. An in-memory database
    (the tests') stays on Channels' thread, which the tests' own database calls use too:
    SQLite's shared in-memory cache refuses a second connection's write while another holds
    a table's lock, where a file's connections wait their turn.
    """
    database = connections["default"]
    if database.vendor == "postgresql" and settings.DB_THREADS > 1:
        return DatabaseThreads(settings.DB_THREADS)
    if database.vendor == "sqlite" and not database.is_in_memory_db():  # type: ignore[attr-defined]
        return DatabaseThreads(1)
    return None


@dataclass
class Leavers:
    """The sockets of one event loop that closed since its last batch: channel name -> room."""

    rooms: dict[str, str]
    done: asyncio.Future[set[str]]


class Transport:
    """Everything the transport keeps in this process (one instance a process: ``current()``)."""

    def __init__(self) -> None:
        # The fan-out's rooms. ``members`` is read from database threads after a commit: under ``lock``.
        self.lock = threading.Lock()
        self.members: dict[str, dict[Socket, asyncio.AbstractEventLoop]] = {}
        self.latest: dict[str, int] = {}  # room -> highest state version delivered in this process
        self.newest: dict[str, tuple[int, list[str]]] = {}  # room -> newest state delivered here (version, frames)
        self.relays: dict[asyncio.AbstractEventLoop, asyncio.Task[Relay]] = {}  # each loop's relay, once opened
        # Who else has sockets in the rooms this process has sockets in (on the event loop):
        self.peers: dict[str, dict[str, float]] = {}  # room -> other process's ORIGIN -> when heard of (monotonic)
        self.known: set[str] = set()  # rooms whose set this process has read, Redis not failing since
        # Listeners (games.apps wires them once; a reset keeps them).
        self.state_listeners: list[StateListener] = []
        self.back_listeners: list[Callable[[list[str]], None]] = []
        self.resubscribed: list[Callable[[], None]] = []
        self.reset_hooks: list[Callable[[], Awaitable[None]]] = []
        # Socket admission: open sockets per address and per browser.
        self.by_address: Counter[str] = Counter()
        self.by_browser: Counter[str] = Counter()
        # Presence: a room's frame due, the pings written, each loop's sweep.
        self.presence_due: dict[tuple[asyncio.AbstractEventLoop, str], asyncio.Task[None]] = {}
        self.pinged: dict[str, tuple[float, int | None]] = {}  # channel -> (when written, the version read)
        self.sweepers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]] = (
            weakref.WeakKeyDictionary()
        )
        # Each loop's rounds of asking its pages to check their route (games.realtime.routes).
        self.route_rounds: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]] = (
            weakref.WeakKeyDictionary()
        )
        # Sockets closing together leave in one batch a loop: those waiting, and the batch's task.
        self.leaving: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Leavers] = weakref.WeakKeyDictionary()
        self.draining: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]] = (
            weakref.WeakKeyDictionary()
        )
        # The database threads: made when first asked for, once the database is what it will be
        # (this object is made when the module is imported; a test run replaces the database
        # with an in-memory one after that).
        self._threads: DatabaseThreads | None = None
        self._threads_made = False
        self._threads_lock = threading.Lock()
        self.upkeep_lanes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )
        self.upkeep_running: set[asyncio.Future[Any]] = set()  # calls whose caller went away: kept until they end
        # Memory given back after many sockets closed.
        self.trim = Trigger()
        # Background work, kept until it ends.
        self.tasks: set[asyncio.Task[Any]] = set()

    @property
    def pool(self) -> DatabaseThreads | None:
        """The threads the game's database calls run in (None: Channels' one, ``_pool``)."""
        if not self._threads_made:  # every service call asks: the lock only until they are made
            with self._threads_lock:
                if not self._threads_made:
                    self._threads = _pool()
                    self._threads_made = True
        return self._threads

    @property
    def pool_threads(self) -> int:
        """How many threads ``pool`` has (0 without one)."""
        pool = self.pool
        return 0 if pool is None else pool.size

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Hold ``task`` until it ends (the event loop keeps only a weak reference)."""
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def background(self, loop: asyncio.AbstractEventLoop) -> list[asyncio.Task[Any]]:
        """What runs in the background on ``loop``: presence due, sweeps, resyncs, relays, sends."""
        every = [
            *self.tasks,
            *self.presence_due.values(),
            *self.sweepers.values(),
            *self.draining.values(),
            *self.route_rounds.values(),
            *self.relays.values(),
        ]
        return [task for task in every if task.get_loop() is loop and not task.done()]

    def forget(self) -> None:
        """Forget every room, relay, counter and ping (the listeners stay)."""
        with self.lock:
            self.members.clear()
        self.latest.clear()
        self.newest.clear()
        self.relays.clear()
        self.peers.clear()
        self.known.clear()
        self.by_address.clear()
        self.by_browser.clear()
        self.presence_due.clear()
        self.pinged.clear()
        self.sweepers.clear()
        self.leaving.clear()
        self.draining.clear()
        self.route_rounds.clear()
        self.upkeep_lanes.clear()
        self.trim.trimmed()
        limiter.reset()


_current = Transport()


def current() -> Transport:
    """This process's transport."""
    return _current


def on_reset(hook: Callable[[], Awaitable[None]]) -> None:
    """Have ``reset`` await ``hook()`` on its event loop too (games.apps: the scheduler's timers)."""
    if hook not in _current.reset_hooks:
        _current.reset_hooks.append(hook)


def on_resubscribed(listener: Callable[[], None]) -> None:
    """Call ``listener()`` on the event loop each time the Redis layer (games.realtime.layers) subscribes again.

    Registered here, not in the layer's module, so that a process on the in-memory layer never
    imports Redis's client (a sixth of a second of every start).
    """
    if listener not in _current.resubscribed:
        _current.resubscribed.append(listener)


async def reset() -> None:
    """On a test's event loop: end this loop's background work, let the database threads finish, forget everything.

    Tests close the database connections after each one, and empty the tables: work still
    due (a presence frame, a sweep, a computer player's step) would write meanwhile, or open
    a connection again in a database thread.
    """
    transport = current()
    loop = asyncio.get_running_loop()
    pending = transport.background(loop)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    for hook in transport.reset_hooks:
        await hook()
    if transport.pool is not None:
        await loop.run_in_executor(None, _drain, transport.pool)
    await database_sync_to_async(connections.close_all)()
    transport.forget()


def _drain(pool: DatabaseThreads) -> None:
    """Return once every thread of ``pool`` has finished what it was doing (and closed its connection)."""
    size = pool.size
    barrier = threading.Barrier(size)

    def meet() -> None:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=30)
        connections.close_all()

    for future in [pool.submit(meet) for _ in range(size)]:
        future.result()

"""games.realtime.threads: the upkeep lane keeps presence work from queueing ahead of game actions."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest

from games.realtime import threads
from tests.waiting import wait_until

# On PostgreSQL the calls run in the database threads, which close stale connections around each.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def lane_reached(monkeypatch: pytest.MonkeyPatch) -> list[asyncio.Lock]:
    """The upkeep lane each call came to, in order: a call takes it, or waits for it, in the same step."""
    reached: list[asyncio.Lock] = []
    real = threads._upkeep_lane

    def lane() -> asyncio.Lock:
        reached.append(real())
        return reached[-1]

    monkeypatch.setattr(threads, "_upkeep_lane", lane)
    return reached


async def test_upkeep_calls_reach_the_database_thread_one_at_a_time_and_actions_pass_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()
    order: list[str] = []
    submitted = 0
    most_submitted = 0
    lock = threading.Lock()

    def upkeep(n: int) -> int:
        nonlocal submitted
        with lock:
            order.append(f"upkeep {n}")
        if n == 0:
            release.wait(10)  # the first holds the lane until the action has been asked for
        with lock:
            submitted -= 1
        return n

    real_db_async = threads.db_async

    def counting_db_async(service: Callable[..., Any]) -> Callable[..., Any]:
        run = real_db_async(service)

        def call(*args: Any, **kwargs: Any) -> Any:  # counted when asked for, before it reaches the thread
            nonlocal submitted, most_submitted
            if service is upkeep:
                with lock:
                    submitted += 1
                    most_submitted = max(most_submitted, submitted)
            return run(*args, **kwargs)

        return call

    def action() -> str:
        with lock:
            order.append("action")
        return "done"

    monkeypatch.setattr(threads, "db_async", counting_db_async)
    lanes = lane_reached(monkeypatch)
    try:
        calls = [asyncio.ensure_future(threads.db_upkeep(upkeep)(n)) for n in range(20)]
        await wait_until(lambda: order == ["upkeep 0"], "the first upkeep call in the thread")
        acted = asyncio.ensure_future(threads.db_async(action)())
        # Every call has come to the lane: one that got through asked for its thread in that same step.
        await wait_until(lambda: len(lanes) == 20, "every call at the lane")
        assert most_submitted == 1  # the other 19 wait in the event loop, not in the thread's queue
        release.set()
        assert await acted == "done"
        assert await asyncio.gather(*calls) == list(range(20))
    finally:
        release.set()
    assert most_submitted == 1
    # The action asked for while the lane was busy ran right after the one upkeep call in the thread.
    assert order.index("action") < order.index("upkeep 1")
    assert sorted(order) == sorted(["action", *(f"upkeep {n}" for n in range(20))])


async def test_an_upkeep_call_whose_caller_is_cancelled_holds_the_lane_until_it_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()
    running: list[int] = []
    asked: list[int] = []  # the calls asked of the database thread, when asked

    def upkeep(n: int) -> int:
        running.append(n)
        if n == 0:
            release.wait(10)
        return n

    real_db_async = threads.db_async

    def counting_db_async(service: Callable[..., Any]) -> Callable[..., Any]:
        run = real_db_async(service)

        def call(n: int) -> Any:
            asked.append(n)
            return run(n)

        return call

    monkeypatch.setattr(threads, "db_async", counting_db_async)
    lanes = lane_reached(monkeypatch)
    first = asyncio.ensure_future(threads.db_upkeep(upkeep)(0))
    await wait_until(lambda: running == [0], "the first upkeep call in the thread")
    first.cancel()
    second = asyncio.ensure_future(threads.db_upkeep(upkeep)(1))
    # The first caller's end: a lane it let go of then would have let the second through before
    # this test's task is woken by that end (the loop runs what is ready in order).
    await asyncio.gather(first, return_exceptions=True)
    assert len(lanes) == 2 and asked == [0]  # the second came to the lane and waits there
    assert running == [0]  # the cancelled call still runs in its thread: the next one waits
    release.set()
    assert await second == 1
    assert running == [0, 1]
    with pytest.raises(asyncio.CancelledError):
        await first


class Database:
    """What ``transport._pool`` asks of the default database."""

    def __init__(self, vendor: str, in_memory: bool = False) -> None:
        self.vendor, self.in_memory = vendor, in_memory

    def is_in_memory_db(self) -> bool:
        return self.in_memory


@pytest.mark.parametrize(
    ("vendor", "in_memory", "threads_of_its_own"),
    [("postgresql", False, 3), ("sqlite", False, 1), ("sqlite", True, 0)],
)
async def test_the_game_s_calls_get_threads_of_their_own_but_on_an_in_memory_sqlite_database(
    monkeypatch: pytest.MonkeyPatch, settings: Any, vendor: str, in_memory: bool, threads_of_its_own: int
) -> None:
    from games.realtime import transport

    settings.DB_THREADS = 3
    monkeypatch.setattr(transport, "connections", {"default": Database(vendor, in_memory)})
    made = transport.Transport()
    try:
        assert made.pool_threads == threads_of_its_own
        if threads_of_its_own:
            assert made.pool is not None
            names = {made.pool.submit(lambda: threading.current_thread().name).result() for _ in range(20)}
            assert all(name.startswith("db") for name in names) and len(names) <= threads_of_its_own
        else:
            assert made.pool is None  # Channels' one thread, which the tests' own calls share
    finally:
        if made.pool is not None:
            made.pool.shutdown()


async def test_the_process_s_threads_are_chosen_for_the_database_it_runs_on_not_the_one_configured_at_import() -> None:
    """The transport is made when its module is imported; a test run swaps in its own database later."""
    from django.db import connection

    from games.realtime import transport

    pool = transport.current().pool
    if connection.vendor == "sqlite" and connection.is_in_memory_db():  # type: ignore[attr-defined]
        assert pool is None, "an in-memory database's calls share Channels' thread with the test's own"
    else:
        assert pool is not None

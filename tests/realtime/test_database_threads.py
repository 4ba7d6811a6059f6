"""games.realtime.transport.DatabaseThreads: the threads the game's database calls run in."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from games.realtime.transport import DatabaseThreads


@pytest.fixture
def threads() -> Iterator[DatabaseThreads]:
    made = DatabaseThreads(1, name="db-test")
    yield made
    made.shutdown()


@pytest.mark.asyncio
async def test_a_call_runs_in_a_thread_of_its_own_and_its_result_comes_back_to_the_loop(
    threads: DatabaseThreads,
) -> None:
    loop = asyncio.get_running_loop()
    assert await threads.call(loop, lambda: threading.current_thread().name) == "db-test_0"
    assert await threads.call(loop, lambda: 6 * 7) == 42


@pytest.mark.asyncio
async def test_an_exception_reaches_the_caller_and_the_thread_goes_on(threads: DatabaseThreads) -> None:
    loop = asyncio.get_running_loop()

    def fails() -> None:
        raise LookupError("no such room")

    def stops() -> None:
        raise StopIteration

    with pytest.raises(LookupError, match="no such room"):
        await threads.call(loop, fails)
    with pytest.raises(RuntimeError, match="StopIteration"):  # a future refuses StopIteration itself
        await threads.call(loop, stops)
    assert await threads.call(loop, lambda: "still here") == "still here"


@pytest.mark.asyncio
async def test_calls_run_in_the_order_they_were_handed_over(threads: DatabaseThreads) -> None:
    loop = asyncio.get_running_loop()
    ran: list[int] = []
    assert await asyncio.gather(*(threads.call(loop, lambda n=n: ran.append(n) or n) for n in range(50))) == list(
        range(50)
    )
    assert ran == list(range(50))


@pytest.mark.asyncio
async def test_a_call_cancelled_before_its_turn_never_runs_and_one_cancelled_while_running_finishes(
    threads: DatabaseThreads,
) -> None:
    loop = asyncio.get_running_loop()
    started, release = threading.Event(), threading.Event()
    ran: list[str] = []

    def blocking() -> str:
        started.set()
        release.wait(10)
        ran.append("blocking")
        return "blocking"

    first = threads.call(loop, blocking)
    queued = threads.call(loop, lambda: ran.append("queued"))
    await loop.run_in_executor(None, started.wait, 10)
    first.cancel()
    queued.cancel()
    release.set()
    assert await threads.call(loop, lambda: "after") == "after"
    assert ran == ["blocking"]  # the running one finished; the queued one was skipped


@pytest.mark.asyncio
async def test_submit_serves_a_thread_that_waits_and_shutdown_ends_the_threads() -> None:
    made = DatabaseThreads(2, name="db-two")
    names = {made.submit(lambda: threading.current_thread().name).result(5) for _ in range(20)}
    assert names <= {"db-two_0", "db-two_1"}
    with pytest.raises(ZeroDivisionError):
        made.submit(lambda: 1 / 0).result(5)
    made.shutdown()
    assert not any(thread.name.startswith("db-two") for thread in threading.enumerate())
    with pytest.raises(RuntimeError, match="stopped"):
        made.submit(lambda: None)
    made.shutdown()  # twice is harmless


def test_a_result_for_a_loop_that_has_closed_is_dropped_quietly() -> None:
    made = DatabaseThreads(1, name="db-closed")
    loop = asyncio.new_event_loop()
    gate = threading.Event()
    future = made.call(loop, lambda: gate.wait(10))
    loop.close()
    gate.set()
    made.shutdown()  # the thread ran the call, found its loop closed, and went on to stop
    assert not future.done()

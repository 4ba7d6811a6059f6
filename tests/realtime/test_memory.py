"""games.realtime.memory: when freed memory is given back (malloc_trim) after sockets closed."""

from __future__ import annotations

import asyncio
import platform
import threading
from typing import Any
from unittest import mock

import pytest

from games.realtime import memory, transport
from tests.waiting import wait_until


def test_a_trim_is_asked_for_once_after_enough_closes_and_not_again_until_it_ran() -> None:
    trigger = memory.Trigger()
    assert [trigger.closed(3) for _ in range(3)] == [False, False, True]
    assert [trigger.closed(3) for _ in range(10)] == [False] * 10  # due already: the one trim covers them
    trigger.trimmed()
    assert [trigger.closed(3) for _ in range(3)] == [False, False, True]  # counted afresh after the trim


def test_no_trim_is_asked_for_when_it_is_turned_off() -> None:
    trigger = memory.Trigger()
    assert not any(trigger.closed(0) for _ in range(1000))


def test_malloc_trim_is_found_on_glibc_only() -> None:
    assert (memory.malloc_trim is not None) == (platform.libc_ver()[0] == "glibc")
    if memory.malloc_trim is not None:
        assert memory.malloc_trim(0) in (0, 1)  # 1: memory was given back, 0: there was none to give


@pytest.mark.asyncio
async def test_sockets_closing_run_one_trim_off_the_event_loop(settings: Any) -> None:
    settings.MEMORY_TRIM_AFTER_CLOSES = 4
    ran = asyncio.Event()
    loop = asyncio.get_running_loop()
    threads = []

    def fake_trim(pad: int) -> int:
        threads.append(threading.current_thread())
        loop.call_soon_threadsafe(ran.set)
        return 1

    started: list[int] = []  # the closes counted when each trim started
    start_trim = memory._start_trim

    def starting() -> None:
        started.append(transport.current().trim.closes)
        start_trim()

    with (
        mock.patch.object(memory, "malloc_trim", fake_trim),
        mock.patch.object(transport.current(), "trim", memory.Trigger()),
        mock.patch.object(memory, "TRIM_DELAY", 0),
        mock.patch.object(memory, "_start_trim", starting),
    ):
        for _ in range(3):
            memory.socket_closed()
        # A trim asked for now would start at the loop's next timers (TRIM_DELAY 0); a timer of the
        # same delay set after it fires no earlier, and the trim's start hands its work to the
        # thread at once: by then, the trim would have started.
        timers_passed = loop.create_future()
        loop.call_later(0, timers_passed.set_result, None)
        await timers_passed
        assert started == [] and not ran.is_set()  # three closes: not yet
        memory.socket_closed()
        await asyncio.wait_for(ran.wait(), 5)
        assert started == [4]
        assert len(threads) == 1 and threads[0] is not threading.main_thread()  # not on the loop
        # The trim's end is noted on the loop.
        await wait_until(lambda: not transport.current().trim.due, "the trim's end to be noted", timeout=5)
        assert transport.current().trim.closes == 0


@pytest.mark.parametrize("frozen", [False, True])
def test_a_trim_never_runs_a_full_collection_which_would_stop_the_event_loop(frozen: bool) -> None:
    import gc

    calls: list[str] = []
    if frozen:
        gc.freeze()
    try:
        with (
            mock.patch.object(memory, "malloc_trim", lambda pad: calls.append("trim") or 1),
            mock.patch.object(gc, "collect", lambda *a: calls.append("collect") or 0),
        ):
            assert memory.trim() == 1
    finally:
        gc.unfreeze()
    assert calls == ["trim"]

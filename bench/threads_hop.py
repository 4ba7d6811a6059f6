"""The hand-over of a call from the event loop to a database thread and back, without the call.

    .venv/bin/python bench/threads_hop.py            # 20,000 calls each way, 1 and 25 in flight

Every game action goes from the socket's event loop to a database thread and its result
comes back (games.realtime.threads.db_async). This measures that hand-over alone, for a call
that does nothing, on uvloop as the server runs: ``loop.run_in_executor`` on a
one-thread ``ThreadPoolExecutor`` against ``DatabaseThreads.call`` (games.realtime.transport)
with one thread. It prints the process's CPU time and the wall time per call, with one call
in flight (a quiet server: latency) and with 25 (the saturated bench's rooms).
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import functools
import os
import sys
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import uvloop

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def nothing(value: int) -> int:
    return value + 1


async def measure(call: Callable[[], Awaitable[int]], calls: int, in_flight: int) -> tuple[float, float]:
    """CPU and wall microseconds per call, with ``in_flight`` callers each making its share in turn."""

    async def caller(count: int) -> None:
        for _ in range(count):
            await call()

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(caller(calls // in_flight) for _ in range(in_flight)))
    done = calls // in_flight * in_flight
    return (time.process_time() - cpu) / done * 1e6, (time.perf_counter() - wall) / done * 1e6


async def run(calls: int) -> None:
    from games.realtime.transport import DatabaseThreads

    loop = asyncio.get_running_loop()
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bench")
    threads = DatabaseThreads(1, name="bench")

    async def through_executor() -> int:
        call = functools.partial(nothing, 1)
        return await loop.run_in_executor(executor, contextvars.copy_context().run, call)

    async def through_threads() -> int:
        call = functools.partial(nothing, 1)
        return await threads.call(loop, functools.partial(contextvars.copy_context().run, call))

    print(f"{'hand-over':<36} {'in flight':>9} {'CPU µs/call':>12} {'wall µs/call':>13}")
    ways = (("run_in_executor, ThreadPoolExecutor", through_executor), ("DatabaseThreads.call", through_threads))
    for in_flight in (1, 25):
        for name, call in ways:
            await measure(call, calls // 10, in_flight)  # warm-up
            cpu, wall = await measure(call, calls, in_flight)
            print(f"{name:<36} {in_flight:>9} {cpu:>12.1f} {wall:>13.1f}")
    executor.shutdown()
    threads.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20_000)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yahtzee.settings")
    os.environ.setdefault("SECRET_KEY", "bench-threads-" + "x" * 40)
    import django

    django.setup()
    uvloop.run(run(args.calls))


if __name__ == "__main__":
    main()

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor

import pytest_asyncio
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connections

from games import scheduling
from games.realtime import sockets, threads


@pytest_asyncio.fixture(autouse=True)
async def _close_consumer_connections() -> AsyncIterator[None]:
    """Close the connection the consumer's database thread opened, so the test database can be dropped.

    Background work of the sockets (the presence sweep, a presence frame still due) is
    stopped first: it would open a connection again after this.
    """
    yield
    await sockets.settle()
    # A computer's step or a turn timeout still due would write while the next test empties the
    # tables (a deadlock in TRUNCATE): cancel them, then wait for what their threads still do.
    loop = asyncio.get_running_loop()
    await scheduling.reset()
    if threads._executor is not None:
        await loop.run_in_executor(None, _drain, threads._executor, settings.DB_THREADS)
    await database_sync_to_async(connections.close_all)()


def _drain(executor: ThreadPoolExecutor, size: int) -> None:
    """Return once every thread of ``executor`` has finished what it was doing (and closed its connection)."""
    barrier = threading.Barrier(size)

    def meet() -> None:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=30)
        connections.close_all()

    for future in [executor.submit(meet) for _ in range(size)]:
        future.result()

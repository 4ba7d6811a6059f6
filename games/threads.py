"""Which thread a service call runs in, from the event loop.

SQLite has one writer, so its calls share Channels' single database thread (thread
sensitive). PostgreSQL takes writers side by side: calls run in a small pool of
``DB_THREADS`` threads per process, each with its own connection, and the services' row
lock (``select_for_update``) still serialises the actions of one room. Measured in
docs/performance.md: with one database thread every action of a process waits for every
other action's round trips; with many, two processes on two cores lose more to
contention than they gain.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connections

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

PARALLEL = connections["default"].vendor == "postgresql" and settings.DB_THREADS > 1
_executor = ThreadPoolExecutor(max_workers=settings.DB_THREADS, thread_name_prefix="db") if PARALLEL else None


def db_async(service: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """``service`` as a coroutine function, run in the thread its database calls for."""
    wrapped: Callable[P, Awaitable[R]]  # Channels has no type information
    if _executor is None:
        wrapped = database_sync_to_async(service)
    else:
        wrapped = database_sync_to_async(service, thread_sensitive=False, executor=_executor)
    return wrapped


async def retry_while_current(
    scheduled: dict[str, int], code: str, version: int, call: Callable[[], Awaitable[object]], what: str, retries: int
) -> None:
    """Run ``call`` for a room's scheduled ``version`` (a bot step, a turn timeout) until it succeeds.

    The database may be away for a while: failures are retried, more slowly each time, up
    to ``retries`` times, and only while ``scheduled[code]`` is still ``version`` (a newer
    state heard meanwhile schedules its own call). The entry is cleared when done.
    """
    attempt = 0
    while scheduled.get(code) == version:
        try:
            await call()
            break
        except Exception:
            attempt += 1
            log.exception("%s in %s at version %s failed (attempt %s)", what, code, version, attempt)
            if attempt >= retries:
                break
            await asyncio.sleep(min(2**attempt, 15))
    if scheduled.get(code) == version:
        del scheduled[code]

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

from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connections

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

"""Which thread a service call runs in, from the event loop.

SQLite has one writer, so its calls share Channels' single database thread (thread
sensitive). PostgreSQL takes writers side by side: actions of different rooms run in the
loop's thread pool, each thread with its own connection, and the services' row lock
(``select_for_update``) still serialises the actions of one room. Measured in
docs/performance.md: with one database thread, every action of the process waited for
every other action's round trips.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from channels.db import database_sync_to_async
from django.db import connections

R = TypeVar("R")

PARALLEL = connections["default"].vendor == "postgresql"


def db_async(service: Callable[..., R]) -> Callable[..., Any]:
    """``service`` as a coroutine function, run in the thread its database calls for."""
    return database_sync_to_async(service, thread_sensitive=not PARALLEL)

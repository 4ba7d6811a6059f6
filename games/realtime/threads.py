"""Which thread a service call runs in, from the event loop.

SQLite has one writer, so its calls run in one database thread of the process's own (on
Channels' single database thread for an in-memory database: games.realtime.transport).
PostgreSQL takes writers side by side: calls run in a small pool of ``DB_THREADS`` threads
per process, each with its own connection, and the services' row lock
(``select_for_update``) still serialises the actions of one room. Measured in
docs/performance.md: with one database thread every action of a process waits for every
other action's round trips; with many, two processes on two cores lose more to
contention than they gain.

Upkeep (``db_upkeep``: a socket's presence arriving, leaving, refreshed or swept, a seat
reclaimed) goes through a lane of its own: at most one upkeep call per event loop at a
time is waiting for or running in the database thread(s); the others wait in the event
loop. A storm of a thousand sockets therefore queues its presence writes here, not in
the database thread ahead of other rooms' game actions, which keep calling ``db_async``
directly and are never behind more than one upkeep call.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from asgiref.sync import SyncToAsync
from channels.db import database_sync_to_async
from django.db import close_old_connections

from games.realtime.transport import current

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")


def db_async(service: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """``service`` as a coroutine function, run in the thread its database calls for.

    The call goes straight to the transport's threads (``DatabaseThreads.call``), in a copy of the
    caller's context, with the connection upkeep Django does between requests done once,
    after the call (``close_old_connections``: a connection that failed and no longer
    answers, or that is older than ``CONN_MAX_AGE``, is closed, and the next call opens a
    new one; the quiet-second health check is armed again). Channels'
    ``database_sync_to_async`` does that twice a call, around asgiref's ``SyncToAsync``
    (context propagation both ways, thread-sensitivity bookkeeping), which costs about a
    third more CPU for a call that only touches its kept connection (docs/performance.md).
    """
    wrapped: Callable[P, Awaitable[R]]  # Channels has no type information
    executor = current().pool  # None for an in-memory SQLite database (games.realtime.transport)
    if executor is None:
        wrapped = database_sync_to_async(service)
        return wrapped

    async def in_pool(*args: P.args, **kwargs: P.kwargs) -> R:
        loop = asyncio.get_running_loop()
        call = functools.partial(_in_pool_thread, loop, service, *args, **kwargs)
        return await executor.call(loop, functools.partial(contextvars.copy_context().run, call))

    return functools.wraps(service)(in_pool)


def _in_pool_thread(loop: asyncio.AbstractEventLoop, service: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    # What fanout.publish_soon hands a room's frames to when this process has no socket in it.
    SyncToAsync.threadlocal.main_event_loop = loop
    try:
        return service(*args, **kwargs)
    finally:
        close_old_connections()


def _upkeep_lane() -> asyncio.Lock:
    loop = asyncio.get_running_loop()
    lanes = current().upkeep_lanes
    lane = lanes.get(loop)
    if lane is None:
        lane = lanes[loop] = asyncio.Lock()
    return lane


def db_upkeep(service: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """``service`` as a coroutine function like ``db_async``, through the upkeep lane (one call at a time).

    The lane is held until the call has ended in its thread, even when the caller is
    cancelled meanwhile (the call goes on there, as under ``db_async``): a cancelled storm
    never puts more than one upkeep call in the database thread's queue.
    """

    run = db_async(service)

    async def upkeep(*args: P.args, **kwargs: P.kwargs) -> R:
        lane = _upkeep_lane()
        await lane.acquire()
        try:
            call: asyncio.Future[R] = asyncio.ensure_future(run(*args, **kwargs))
        except BaseException:
            lane.release()
            raise
        running = current().upkeep_running  # calls whose caller went away: kept until they end
        running.add(call)

        def ended(_: object) -> None:
            running.discard(call)
            lane.release()
            if not call.cancelled():
                call.exception()  # retrieved: a caller that went away is not told

        call.add_done_callback(ended)
        return await asyncio.shield(call)

    return upkeep

"""games.realtime.threads.db_async on PostgreSQL: straight to the pool, with the connection upkeep after each call."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Iterator

import pytest
from asgiref.sync import SyncToAsync, sync_to_async
from django.db import DatabaseError, connection

from games.realtime import threads, transport

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="unset")


@pytest.fixture
def one_thread(monkeypatch: pytest.MonkeyPatch) -> Iterator[transport.DatabaseThreads]:
    """A pool of one thread of its own, so that successive calls share its connection."""
    assert transport.current().pool is not None, "DB_THREADS > 1 on PostgreSQL: the parallel pool"
    executor = transport.DatabaseThreads(1, name="db-test")
    monkeypatch.setattr(transport.current(), "_threads", executor)
    yield executor
    executor.submit(lambda: connection.close()).result()  # the pool thread's own connection
    executor.shutdown()


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        row = cursor.fetchone()
    assert row is not None
    return int(row[0])


def terminate(pid: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    connection.close()


async def test_a_call_runs_in_the_pool_with_the_callers_context_and_its_loop(
    one_thread: transport.DatabaseThreads, monkeypatch: pytest.MonkeyPatch
) -> None:
    upkeep: list[str] = []
    monkeypatch.setattr(threads, "close_old_connections", lambda: upkeep.append(threading.current_thread().name))

    def service(n: int, *, plus: int) -> tuple[str, str, object, int]:
        loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
        return threading.current_thread().name, marker.get(), loop, n + plus

    marker.set("the caller's")
    name, seen, loop, total = await threads.db_async(service)(1, plus=2)
    assert name.startswith("db-test") and seen == "the caller's" and total == 3
    assert loop is asyncio.get_running_loop()  # where fanout.publish_soon hands frames with no socket here
    assert upkeep == [name]  # once a call, in the pool's thread, after it (not twice around SyncToAsync)


async def test_a_connection_that_died_under_a_pool_thread_is_replaced(
    one_thread: transport.DatabaseThreads, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", None)  # kept, as in production
    call = threads.db_async(backend_pid)
    assert await call() == await call()
    first = await call()
    await sync_to_async(terminate)(first)
    try:
        second: int | None = await call()  # fails on the dead connection (or its health check replaced it)
    except DatabaseError:
        second = None
    third = await call()
    assert third != first and second in (None, third)


async def test_a_connection_past_conn_max_age_is_closed_after_the_call(
    one_thread: transport.DatabaseThreads, monkeypatch: pytest.MonkeyPatch
) -> None:
    call = threads.db_async(backend_pid)
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 0)  # the pool thread's connection shares it
    assert await call() != await call()
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", None)
    kept = await call()
    assert await call() == kept

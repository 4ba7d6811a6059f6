"""The private parts of dependencies the project leans on are there and do what it expects.

Each is listed, with why it is kept, in docs/architecture.md ("Private internals of
dependencies"). These tests fail at the upgrade that changes one, before a server or a
test run misbehaves quietly; the behaviour each one serves has its own tests too (named there).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import re
import threading
from typing import Any

import pytest
from asgiref.sync import SyncToAsync, sync_to_async
from django.test import TransactionTestCase

from games.realtime import backlog


class _Reactor:
    """Just enough of a Twisted reactor for a descriptor to buffer what it is given."""

    def __init__(self) -> None:
        self.writers: list[Any] = []

    def addWriter(self, writer: Any) -> None:  # noqa: N802 - Twisted's name
        self.writers.append(writer)


def test_the_backlog_reads_twisteds_own_write_buffer_under_daphne() -> None:
    """games.realtime.backlog: Twisted's FileDescriptor keeps unsent bytes in dataBuffer/offset/_tempDataLen."""
    from twisted.internet.abstract import FileDescriptor

    descriptor = FileDescriptor(reactor=_Reactor())  # type: ignore[arg-type]
    descriptor.connected = 1
    descriptor.write(b"x" * 100)
    descriptor.write(b"y" * 50)

    class Protocol:  # Daphne's websocket protocol: its transport is the TCP transport (no proxy here)
        transport = descriptor

    async def handle_reply(protocol: Any, message: dict[str, Any]) -> None: ...

    transport = backlog.transport_of(functools.partial(handle_reply, Protocol()))
    assert transport is descriptor
    assert backlog.backlog(transport) == 150
    # What a cut asks of it (Outbox.cut): is it gone already, and abort the TCP connection.
    from twisted.internet import tcp

    assert descriptor.disconnected in (0, False) and callable(tcp.Connection.abortConnection)


def test_the_pub_sub_layer_subclasses_channels_redis_where_it_expects() -> None:
    """games.realtime.layers overrides and reads these of channels-redis's pub/sub layer (pinned <4.4)."""
    from channels_redis import pubsub, utils

    shard = pubsub.RedisSingleShardConnection
    for name in ("_do_receiving", "_receive_message", "_ensure_redis", "publish", "subscribe", "unsubscribe"):
        assert callable(getattr(shard, name)), name
    layer = pubsub.RedisPubSubLoopLayer(hosts=["redis://127.0.0.1:1"], channel_layer=None)
    connection = layer._shards[0]
    for name in ("_pubsub", "_subscribed_to", "_lock", "_redis", "host"):
        assert hasattr(connection, name), name
    assert isinstance(connection._subscribed_to, set)
    channel_layer = pubsub.RedisPubSubChannelLayer(hosts=["redis://127.0.0.1:1"])
    assert isinstance(channel_layer._layers, dict)
    assert hasattr(channel_layer, "_args") and hasattr(channel_layer, "_kwargs")
    assert list(inspect.signature(channel_layer._get_layer).parameters) == []
    assert list(inspect.signature(utils._wrap_close).parameters) == ["proxy", "loop"]


def test_the_quick_teardown_of_transactional_tests_is_the_one_django_runs() -> None:
    """tests/conftest.py replaces TransactionTestCase._fixture_teardown and calls _databases_names."""
    case: Any = TransactionTestCase
    assert case._fixture_teardown.__name__ == "_emptied_quickly"
    assert "self._fixture_teardown()" in inspect.getsource(case._post_teardown)
    assert case()._databases_names(include_mirrors=False) == ["default"]


def test_a_running_loop_can_be_set_aside_and_put_back() -> None:
    """tests/conftest.py sets Playwright's loop aside with asyncio's low-level running-loop hooks."""

    def in_a_thread(found: list[object]) -> None:
        loop = asyncio.new_event_loop()
        try:
            asyncio.events._set_running_loop(loop)
            found.append(asyncio.get_running_loop())
            asyncio.events._set_running_loop(None)
            found.append(asyncio.events._get_running_loop())
        finally:
            loop.close()

    found: list[object] = []
    thread = threading.Thread(target=in_a_thread, args=(found,))
    thread.start()
    thread.join()
    assert len(found) == 2 and isinstance(found[0], asyncio.AbstractEventLoop) and found[1] is None


@pytest.mark.asyncio
async def test_asgirefs_threads_know_the_event_loop_that_called_them() -> None:
    """games.realtime.fanout and games.scheduling.runner read asgiref's SyncToAsync.threadlocal.main_event_loop."""
    loop = asyncio.get_running_loop()

    def inside() -> object:
        return getattr(SyncToAsync.threadlocal, "main_event_loop", None)

    assert await sync_to_async(inside)() is loop
    assert await sync_to_async(inside, thread_sensitive=False)() is loop
    # yahtzee/postgresql/base.py: a request's own thread is told by asgiref's context variable.
    assert isinstance(SyncToAsync.thread_sensitive_context, contextvars.ContextVar)


def test_the_room_socket_sets_up_what_channels_own_call_does_before_it_dispatches() -> None:
    """``RoomConsumer._serve`` stands in for Channels' ``AsyncConsumer.__call__``: the same attributes set
    (those of the channel layer, which the room socket has none of, aside), ``send`` writing through
    ``base_send``, ``StopConsumer`` ending it, and the messages dispatched one by one."""
    from channels.consumer import AsyncConsumer

    from games.realtime.consumer import RoomConsumer

    source = inspect.getsource(AsyncConsumer.__call__)
    assert set(re.findall(r"self\.(\w+) =", source)) == {
        "scope",
        "channel_layer",
        "channel_name",
        "channel_receive",
        "base_send",
    }
    assert "await_many_dispatch(" in source and "self.dispatch" in source and "except StopConsumer" in source
    assert "self.base_send(" in inspect.getsource(AsyncConsumer.send)
    ours = inspect.getsource(RoomConsumer._serve)
    for line in ("self.scope = scope", "self.channel_layer = None", "self.base_send = send", "except StopConsumer"):
        assert line in ours


def test_djangos_session_store_reads_a_cookies_key_through_the_check_the_site_overrides() -> None:
    # yahtzee/sessions.py refuses a key not in the shape of Django's own by overriding this check.
    from django.contrib.sessions.backends.base import SessionBase

    assert "_validate_session_key" in SessionBase.__dict__
    assert "self._validate_session_key(value)" in inspect.getsource(SessionBase._set_session_key)

"""The cache's Redis connection pool (yahtzee/cache.py): one for every thread of the process."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.core.cache import caches

from yahtzee.cache import SharedConnectionPool

pytestmark = pytest.mark.redis


def test_each_threads_cache_uses_the_same_pool_and_its_connections_are_kept() -> None:
    """Under ASGI every page request's sync code runs in a new thread with a cache object of its own:
    one after another, five such threads share one pool and one connection, not five.

    The pool is the process's: tests run before this one in the same worker may have opened
    connections in it already, so only those these five requests open are counted."""
    before = caches["default"]._cache.get_client(write=True).connection_pool._created_connections
    pools: list[Any] = []
    errors: list[BaseException] = []

    def request() -> None:
        try:
            cache = caches["default"]
            cache.set("shared-pool-check", 1, timeout=5)
            assert cache.get("shared-pool-check") == 1
            pools.append(cache._cache.get_client(write=True).connection_pool)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    for _ in range(5):
        thread = threading.Thread(target=request)
        thread.start()
        thread.join()
    assert errors == []
    assert len({id(pool) for pool in pools}) == 1
    assert isinstance(pools[0], SharedConnectionPool)
    assert pools[0]._created_connections - before <= 1  # none if an idle one was kept from earlier


def test_a_pool_is_shared_per_server_and_options_only() -> None:
    url = "redis://127.0.0.1:6379/0"
    one = SharedConnectionPool.from_url(url, socket_timeout=1)
    assert SharedConnectionPool.from_url(url, socket_timeout=1) is one
    assert SharedConnectionPool.from_url(url, socket_timeout=2) is not one
    assert SharedConnectionPool.from_url("redis://127.0.0.1:6379/1", socket_timeout=1) is not one

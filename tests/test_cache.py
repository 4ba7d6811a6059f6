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


def test_a_test_that_empties_its_cache_leaves_other_processes_keys_and_the_limits_counts_alone() -> None:
    """Django's ``cache.clear()`` on Redis empties the whole database (FLUSHDB), and with it the rate
    limits' counts of every test process sharing that Redis, which would then miss a count
    mid-test. A test process keeps its cache keys under a prefix of its own and empties only those."""
    import redis
    from django.conf import settings
    from django.core.cache import cache

    from games.realtime.limits import ROOM_CREATE, Bucket, limiter
    from tests.conftest import clear_cache

    settings.RATE_LIMIT_ROOM_CREATE = "5/60"
    limiter.reset_rates()
    bucket = Bucket("address", "203.0.113.9", 1)
    other = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
    try:
        other.set("another-process:1:its-key", b"kept", ex=30)
        assert limiter.hit(ROOM_CREATE, bucket)
        cache.set("own-key", 1, timeout=30)
        clear_cache()
        assert cache.get("own-key") is None
        assert other.get("another-process:1:its-key") == b"kept"
        for _ in range(4):
            assert limiter.hit(ROOM_CREATE, bucket)
        assert not limiter.hit(ROOM_CREATE, bucket)  # the first count survived: five in all
    finally:
        other.delete("another-process:1:its-key")
        other.close()

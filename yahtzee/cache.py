"""The Redis connection pool of Django's cache, shared by every thread of the process.

Django keeps one cache object per thread (per request context under ASGI), and its Redis
cache client one connection pool per object. Under ASGI each page request's sync code runs
in a context and a thread of its own, so each request made a new pool and opened a new
connection to Redis (a TCP handshake, and redis-py's ``CLIENT SETINFO``, whose library
version it looks up in the installed packages' metadata every time) for its counters
(allauth's limits), then dropped it. Given as the cache's ``pool_class``, this hands every thread
the same pool per server and options: redis-py's pools are thread-safe and keep their
connections.
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar

import redis


class SharedConnectionPool(redis.ConnectionPool):
    _shared: ClassVar[dict[str, SharedConnectionPool]] = {}
    _shared_lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> SharedConnectionPool:
        key = f"{url} {sorted(kwargs.items(), key=repr)!r}"
        with cls._shared_lock:
            pool = cls._shared.get(key)
            if pool is None:
                pool = cls._shared[key] = super().from_url(url, **kwargs)
            return pool

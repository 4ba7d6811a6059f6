"""Django's PostgreSQL backend, keeping connections only in threads that live on.

Two changes to how connections are kept (``CONN_MAX_AGE``):

**Only long-lived threads keep theirs.** Under ASGI, Django runs each page request's sync
code in a thread of its own (asgiref's ``ThreadSensitiveContext``) that ends with the
request, so a connection kept for reuse there is never reused: it idles until the thread
is collected. In two-process bench/load.py runs, the 800 page requests that set up the
rooms left up to 70 idle connections (of PostgreSQL's 100), and in one run a request was
answered 503. Here such a thread closes its connection when its request ends. The threads that run websocket actions
(``games.realtime.threads.db_async``) live as long as the process and keep theirs.

**Health checks only after a quiet second.**
With ``CONN_HEALTH_CHECKS`` Django sends ``SELECT 1`` before the first query of every
request, and Channels makes every websocket action a request: one round trip in six of an
action went to asking whether the connection that had just committed was still there.
Here a connection that completed a commit or a check less than ``HEALTH_CHECK_AFTER``
seconds ago counts as checked. If the server went away within that second, the action
fails as it would have a moment later anyway (the consumer answers "unavailable"), and
Django closes the broken connection before the next request.
"""

from __future__ import annotations

import time

from asgiref.sync import SyncToAsync
from django.db.backends.postgresql import base

HEALTH_CHECK_AFTER = 1.0  # seconds of quiet


class DatabaseWrapper(base.DatabaseWrapper):
    _alive_at = float("-inf")

    def _commit(self) -> None:
        super()._commit()  # type: ignore[misc]  # Django's private hook, not in django-stubs
        self._alive_at = time.monotonic()

    def close_if_health_check_failed(self) -> None:
        if self.connection is not None and time.monotonic() - self._alive_at < HEALTH_CHECK_AFTER:
            self.health_check_done = True
            return
        super().close_if_health_check_failed()
        if self.connection is not None:
            self._alive_at = time.monotonic()

    def close_if_unusable_or_obsolete(self) -> None:
        if self.connection is not None and SyncToAsync.thread_sensitive_context.get(None) is not None:
            self.close()  # this thread ends with its ASGI request
            return
        super().close_if_unusable_or_obsolete()

    def connect(self) -> None:
        super().connect()
        self._alive_at = time.monotonic()

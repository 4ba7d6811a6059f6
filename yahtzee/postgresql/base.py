"""Django's PostgreSQL backend, health-checking a kept connection only when it has been quiet.

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

from django.db.backends.postgresql import base

HEALTH_CHECK_AFTER = 1.0  # seconds of quiet


class DatabaseWrapper(base.DatabaseWrapper):  # type: ignore[misc]
    _alive_at = float("-inf")

    def _commit(self) -> None:
        super()._commit()
        self._alive_at = time.monotonic()

    def close_if_health_check_failed(self) -> None:
        if self.connection is not None and time.monotonic() - self._alive_at < HEALTH_CHECK_AFTER:
            self.health_check_done = True
            return
        super().close_if_health_check_failed()
        if self.connection is not None:
            self._alive_at = time.monotonic()

    def connect(self) -> None:
        super().connect()
        self._alive_at = time.monotonic()

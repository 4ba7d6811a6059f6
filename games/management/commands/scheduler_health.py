"""``manage.py scheduler_health``: is this host's scheduler that sweeps alive? (compose's health check).

The scheduler that sweeps (``SCHEDULER=all``: ``run_scheduler``, ``make run``'s server) writes a
Heartbeat row named after its host at the end of each round (games.scheduling.work.alive). This
reads it, on the same host (a container's health check runs in its container), and exits non-zero
when it is older than ``SCHEDULER_STALE_POLLS`` polls (``SCHEDULER_POLL``), or missing, or the
database cannot be read: a process that is up but stuck shows as unhealthy.
"""

from __future__ import annotations

import socket
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from games.scheduling import work


class Command(BaseCommand):
    help = "Exit 0 when this host's scheduler completed a round in the last SCHEDULER_STALE_POLLS polls, 1 otherwise."

    def handle(self, *args: Any, **options: Any) -> None:
        stale = settings.SCHEDULER_STALE_POLLS * settings.SCHEDULER_POLL
        try:
            age = work.alive_age()
        except Exception as exc:  # noqa: BLE001 - any failure to read it is the answer
            raise CommandError(f"the scheduler's heartbeat cannot be read: {type(exc).__name__}: {exc}") from exc
        if age is None:
            raise CommandError(f"no scheduler on {socket.gethostname()} has completed a round yet")
        seconds = age.total_seconds()
        if seconds > stale:
            raise CommandError(f"the scheduler completed no round for {seconds:.0f} s (more than {stale:g} s)")
        self.stdout.write(f"the scheduler completed a round {max(seconds, 0):.1f} s ago")

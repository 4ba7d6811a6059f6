"""``manage.py run_scheduler``: the scheduler as a process of its own (production's compose service).

It claims every due room (a computer player's step, a turn deadline, a finished game's
follow-ups) as the servers' own schedulers do, so rooms move on with no socket connected
even when every web worker keeps only its own rooms' timers (``SCHEDULER=local``). Any
number may run: a room is claimed by one at a time, and applied once.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from games import scheduling


class Command(BaseCommand):
    help = "Run the scheduler: computer players' steps, turn deadlines and finished games' follow-ups."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--poll", type=float, default=None, help="seconds between sweeps (SCHEDULER_POLL)")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["poll"] is not None:
            # 0 or less would sweep with no pause at all, as fast as the database answers.
            if not 0 < options["poll"] < float("inf"):
                raise CommandError(f"--poll is a number of seconds, more than 0 (got {options['poll']:g}).")
            settings.SCHEDULER_POLL = options["poll"]
        asyncio.run(self._run())

    async def _run(self) -> None:
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stopping.set)
        scheduling.start("all")
        self.stdout.write(f"scheduler running, a sweep every {settings.SCHEDULER_POLL:g} s")
        self.stdout.flush()
        await stopping.wait()
        await scheduling.stop()

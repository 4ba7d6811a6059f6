"""manage.py notice_worker: run the background tasks (the e-mails and pushes of a turn, a seat
the computer took over or a game's end).

django-tasks-db's worker loop (what its ``db_worker`` command runs) on the default queue,
plus the notices' recovery sweep (games/services/notices.py ``recover``) at the start and every
minute, which queues again a notice whose task a dead worker had taken, and once an hour
deletes the task results, notices and sessions nothing reads any more (``prune``). SIGTERM and
SIGINT let the task under way finish first. Several can run side by side: each task is
claimed by one of them (``SELECT … FOR UPDATE SKIP LOCKED`` on PostgreSQL), and each
notice is sent once whoever runs its task.
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.services import notices


class Command(BaseCommand):
    help = "Run the background tasks: the notices that tell players it is their turn (e-mail, Web Push)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--interval", type=float, default=1.0, help="seconds between looks at an empty queue")

    def handle(self, *args: Any, **options: Any) -> None:
        stop = threading.Event()
        sweeper = threading.Thread(target=notices.recover_forever, args=(stop,), name="notices-recover", daemon=True)
        sweeper.start()
        worker = notices.make_worker(interval=options["interval"])
        worker.configure_signals()
        self.stdout.write("notice worker: running (SIGTERM to stop)")
        try:
            worker.run()
        finally:
            stop.set()

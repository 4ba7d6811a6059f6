"""Review (pwa): the task worker that `make run` runs in threads of its server (notices.start_in_process)."""

from __future__ import annotations

import threading
import time
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.db import OperationalError
from django_tasks_db.models import DBTaskResultQuerySet

from games.services import notices
from games.store.models import Notice, NoticeSettings, Player
from tests.factories import own_pace_room, score_first_legal

pytestmark = pytest.mark.django_db(transaction=True)


def test_one_database_error_does_not_end_the_in_process_notice_worker_for_good(settings: Any) -> None:
    """`make run` sends the "your turn" notices from a thread of its one server. A database that
    drops its connection once (PostgreSQL restarted, a SQLite disk error) raised out of
    django-tasks-db's loop and ended that thread: no notice was sent again until the server
    restarted, while the recovery sweep queued tasks nobody ran and nothing said so."""
    settings.SITE_URL = "https://yahtzee.example.org"
    real = DBTaskResultQuerySet.get_locked
    failures = iter([OperationalError("server closed the connection unexpectedly")])

    def flaky(self: DBTaskResultQuerySet) -> Any:
        for failure in failures:  # the first look at the queue only
            raise failure
        return real(self)

    with mock.patch.object(DBTaskResultQuerySet, "get_locked", flaky):
        worker, stop = notices.start_in_process()
        try:
            time.sleep(0.5)  # the worker's first look at the queue fails
            table = own_pace_room(seconds=86_400)
            user = get_user_model().objects.create_user("ben", password="pw")
            Player.objects.filter(game__code=table.code, seat=1).update(user=user)
            NoticeSettings.objects.create(user=user, email=True, address="ben@example.org")
            score_first_legal(table)  # Ben's turn: his notice is owed and queued
            deadline = time.monotonic() + 10
            turn = Notice.objects.get(kind=Notice.Kind.TURN, seat=1)
            while time.monotonic() < deadline and turn.done_at is None:
                time.sleep(0.1)
                turn.refresh_from_db()
            alive = [t.name for t in threading.enumerate() if t.name == "tasks"]
            assert turn.done_at is not None and len(mail.outbox) == 1, (
                f"the notice was never sent (task worker thread alive: {bool(alive)})"
            )
        finally:
            worker.running = False
            stop.set()
            time.sleep(1.2)

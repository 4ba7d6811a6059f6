"""yahtzee.postgresql: Django's backend; connections kept only by long-lived threads, checked when quiet."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, transaction

from games.store.models import Game
from tests.factories import GameFactory
from yahtzee.postgresql import base

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def kept_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    """A connection kept between requests, as with DB_CONN_MAX_AGE in production."""
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", None)
    connection.close()
    connection.ensure_connection()


def checks_counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = base.DatabaseWrapper.is_usable

    def counted(self: Any) -> bool:
        calls.append(1)
        return bool(real(self))

    monkeypatch.setattr(base.DatabaseWrapper, "is_usable", counted)
    return calls


def request_boundary() -> None:
    """What Django (and Channels, around every websocket action) does between requests."""
    connection.close_if_unusable_or_obsolete()


def test_a_connection_that_just_committed_is_not_asked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    assert connection.vendor == "postgresql" and connection.health_check_enabled
    game = GameFactory()
    calls = checks_counted(monkeypatch)
    opened = connection.connection
    for _ in range(5):
        request_boundary()
        with transaction.atomic():
            Game.objects.select_for_update().get(pk=game.pk)
    assert calls == []
    assert connection.connection is opened  # kept, not reopened


def test_a_quiet_connection_is_checked_before_it_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    GameFactory()
    calls = checks_counted(monkeypatch)
    monkeypatch.setattr(base, "HEALTH_CHECK_AFTER", 0.0)  # as if a second had passed
    opened = connection.connection
    request_boundary()
    assert Game.objects.count() == 1
    assert calls == [1]
    assert connection.connection is opened


def test_a_connection_that_failed_its_check_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    GameFactory()
    monkeypatch.setattr(base, "HEALTH_CHECK_AFTER", 0.0)
    monkeypatch.setattr(base.DatabaseWrapper, "is_usable", lambda self: False)
    request_boundary()
    old = connection.connection
    assert Game.objects.count() == 1  # on a new connection
    assert connection.connection is not old


def test_a_page_request_thread_closes_its_connection_when_the_request_ends() -> None:
    from asgiref.sync import SyncToAsync

    GameFactory()
    token = SyncToAsync.thread_sensitive_context.set(object())  # what Django's ASGI handler sets
    try:
        request_boundary()  # request_finished
        assert connection.connection is None
    finally:
        SyncToAsync.thread_sensitive_context.reset(token)
    assert Game.objects.count() == 1  # the next request opens another


def test_a_worker_thread_keeps_its_connection_between_actions() -> None:
    GameFactory()
    opened = connection.connection
    request_boundary()
    assert connection.connection is opened


def test_a_transaction_left_idle_is_ended_by_the_server_not_kept_for_ever() -> None:
    """DB_IDLE_IN_TRANSACTION_TIMEOUT: a stuck transaction cannot hold a room's row lock for ever."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW idle_in_transaction_session_timeout")
        assert cursor.fetchone()[0] == "1min"

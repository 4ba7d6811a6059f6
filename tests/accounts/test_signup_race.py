"""On PostgreSQL, with several processes: two names that read alike, signed up at the same moment,
do not both become accounts (only the exact name is unique in the database)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client

from accounts.adapters import AccountAdapter
from accounts.services import SIGN_UP_LOCK_KEY
from tests.accounts.helpers import PASSWORD

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

TIMEOUT = 20.0
LATIN, CYRILLIC = "cop", "\u0441\u043e\u0440"  # drawn alike, each of one alphabet


def waiting_for_the_sign_up_lock() -> bool:
    """Is a sign-up waiting for another's advisory lock (accounts.services.one_sign_up_at_a_time)?"""
    # pg_locks lists every database's locks: only this lock, on this database, is the one (another
    # test's, or another run's on the same server, would pass this test without the lock taken).
    high, low = SIGN_UP_LOCK_KEY >> 32, SIGN_UP_LOCK_KEY & 0xFFFFFFFF
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " AND classid::bigint = %s AND objid::bigint = %s AND objsubid = 1",
            [high, low],
        )
        return bool(cursor.fetchone()[0])


def test_two_look_alike_names_signed_up_at_one_moment_make_one_account(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first sign-up has checked its name and is making the account when the second checks
    its look-alike: the second must not find the name free. The first holds on until the second
    has either checked (the defect) or is seen waiting its turn."""
    second_checked = threading.Event()
    clean_username = AccountAdapter.clean_username
    save_user = AccountAdapter.save_user

    def checking(self: AccountAdapter, username: str, shallow: bool = False) -> str:
        name = clean_username(self, username, shallow)
        if username == CYRILLIC and not shallow:
            second_checked.set()
        return name

    first_saving = threading.Event()

    def saving(self: AccountAdapter, request: Any, user: Any, form: Any, commit: bool = True) -> Any:
        if form.cleaned_data.get("username") == LATIN:
            first_saving.set()
            deadline = time.monotonic() + TIMEOUT
            while not second_checked.is_set() and not waiting_for_the_sign_up_lock():
                assert time.monotonic() < deadline, "the second sign-up neither checked its name nor waited"
                time.sleep(0.01)
        return save_user(self, request, user, form, commit)

    monkeypatch.setattr(AccountAdapter, "clean_username", checking)
    monkeypatch.setattr(AccountAdapter, "save_user", saving)
    answers: dict[str, Any] = {}
    errors: list[BaseException] = []

    def sign_up(name: str, after: threading.Event | None) -> None:
        try:
            if after is not None:
                assert after.wait(TIMEOUT)
            answers[name] = Client().post(
                "/accounts/signup/", {"username": name, "password1": PASSWORD, "password2": PASSWORD}
            )
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=sign_up, args=(LATIN, None), daemon=True),
        threading.Thread(target=sign_up, args=(CYRILLIC, first_saving), daemon=True),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT * 2)
    assert not any(thread.is_alive() for thread in threads), "a sign-up hung"
    assert errors == []
    assert answers[LATIN].status_code == 302
    assert answers[CYRILLIC].status_code == 200
    assert "reads the same as another player" in str(answers[CYRILLIC].context["form"].errors["username"])
    assert list(get_user_model().objects.values_list("username", flat=True)) == [LATIN]

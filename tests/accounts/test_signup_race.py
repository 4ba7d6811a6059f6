"""On PostgreSQL, with several processes: two names that read alike, signed up at the same moment,
do not both become accounts. Each passes the form's check before either is saved; the database's
unique skeleton (accounts.models.AccountName) refuses the second, whose form says the name is taken."""

from __future__ import annotations

import threading
from functools import partial
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.adapters import AccountAdapter
from tests.accounts.helpers import PASSWORD
from tests.factories import race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

TIMEOUT = 20.0


@pytest.mark.parametrize("names", [("cop", "\u0441\u043e\u0440"), ("Ann1", "Annl"), ("B0b", "BOb")])
def test_two_look_alike_names_signed_up_at_one_moment_make_one_account(
    monkeypatch: pytest.MonkeyPatch, names: tuple[str, str]
) -> None:
    """Neither sign-up saves its account before both have checked their names: each finds its name
    free, and the database alone can tell them apart."""
    both_checked = threading.Barrier(2, timeout=TIMEOUT)
    save_user = AccountAdapter.save_user
    waited: set[str] = set()

    def saving(self: AccountAdapter, request: Any, user: Any, form: Any, commit: bool = True) -> Any:
        name = form.cleaned_data.get("username")
        if name not in waited:  # the first try only: a refused form is checked again after it
            waited.add(name)
            both_checked.wait()
        return save_user(self, request, user, form, commit)

    monkeypatch.setattr(AccountAdapter, "save_user", saving)

    def sign_up(name: str) -> Any:
        return Client().post("/accounts/signup/", {"username": name, "password1": PASSWORD, "password2": PASSWORD})

    outcomes = race(*[partial(sign_up, name) for name in names], timeout=TIMEOUT * 2)
    assert [outcome.error for outcome in outcomes] == [None, None]
    answers = {name: outcome.value for name, outcome in zip(names, outcomes, strict=True)}
    made = list(get_user_model().objects.values_list("username", flat=True))
    assert len(made) == 1, f"both look-alikes became accounts: {made}"
    (refused,) = set(names) - set(made)
    assert answers[made[0]].status_code == 302
    assert answers[refused].status_code == 200
    assert "reads the same as another player" in str(answers[refused].context["form"].errors["username"])

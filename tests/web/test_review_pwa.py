"""Review (pwa): who is told of a turn outside the open page (Web Push, e-mail), through the pages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from games import services
from tests.accounts.helpers import PASSWORD, controller_of, sign_up
from tests.factories import Table, action_id, score_first_legal
from tests.push_stub import PushService, Subscriber
from tests.services.test_notices import run_worker
from yahtzee.prepare import new_vapid_private_key

DAY = 86_400


@pytest.fixture
def push(settings: Any) -> Iterator[PushService]:
    service = PushService().start()
    settings.PUSH_HOSTS = ["127.0.0.1"]
    settings.PUSH_ALLOW_HTTP = True
    settings.VAPID_PRIVATE_KEY = new_vapid_private_key()
    settings.SITE_URL = "https://yahtzee.example.org"
    try:
        yield service
    finally:
        service.stop()


def own_pace_game_with(second: str) -> Table:
    """A game at your own pace hosted and started by Cy, ``second`` (a seat token) in seat 1."""
    cy = services.new_controller()
    game = services.game_create(host_name="Cy", controller=cy, pace="own", turn_timer=DAY).game
    table = Table(code=game.code, controllers=[cy, second])
    services.game_join(code=table.code, name="Ann", controller=second)
    services.game_start(code=table.code, controller=cy, expected_version=table.version(), action_id=action_id())
    return table


@pytest.mark.django_db(transaction=True)
def test_a_password_change_that_signs_a_browser_out_also_stops_its_pushes(push: PushService) -> None:
    """docs/accounts.md: "Changing the password signs the account's other browsers out: they no
    longer play its seats"; docs/deploy.md: signing out on a device removes its subscription "so the
    next person at a shared computer is not shown the account's notices". Ann left herself signed
    in on a shared computer where she had turned notifications on; she changes her password from her
    phone to sign it out. The shared computer is signed out, yet it still shows every turn of hers
    (with the link to her private room) to whoever sits there next."""
    phone, shared = Client(), Client()
    sign_up(phone, "ann")
    assert shared.post("/accounts/login/", {"login": "ann", "password": PASSWORD}).status_code == 302
    device = Subscriber(f"{push.url}/push/shared-computer")
    assert (
        shared.post("/notices/push", json.dumps(device.subscription), content_type="application/json").status_code
        == 201
    )
    table = own_pace_game_with(controller_of(phone))

    new = "a different horse battery staple"
    changed = phone.post("/accounts/password/change/", {"oldpassword": PASSWORD, "password1": new, "password2": new})
    assert changed.status_code == 302
    assert shared.get("/me").status_code == 302  # the shared computer is signed out (sent to sign in)

    score_first_legal(table)  # Cy moves: Ann's turn
    run_worker()
    told = [r.path for r in push.requests]
    assert "/push/shared-computer" not in told, "the browser the password change signed out was told of Ann's turn"

"""On PostgreSQL: two first posts of one push endpoint at the same moment make one subscription.

Each post finds no row for the endpoint (a brand-new subscription locks nothing to wait on), and
the two reach their INSERT together: the endpoint's unique index alone orders them. The one that
comes second is refused as ``subscription_held``, in its reader's language, as a later post of the
endpoint with other keys is, and the first keeps its owner."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from games.store.models import PushSubscription
from tests.factories import create_room
from tests.push_stub import Subscriber
from yahtzee.prepare import new_vapid_private_key

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

TIMEOUT = 20.0
HELD = "That notification subscription is another browser's: it cannot be moved to this one."


@pytest.fixture(autouse=True)
def _push(settings: Any) -> None:
    settings.PUSH_HOSTS = ["127.0.0.1"]
    settings.PUSH_ALLOW_HTTP = True
    settings.VAPID_PRIVATE_KEY = new_vapid_private_key()


def test_two_first_posts_of_one_endpoint_at_one_moment_make_one_owner_and_refuse_the_other(
    german: Callable[[str], str],
) -> None:
    endpoint = "http://127.0.0.1:9/push/raced"
    ann, ben = Client(), Client(HTTP_ACCEPT_LANGUAGE="de")
    for client in (ann, ben):
        create_room(client)
    posts = {
        "ann": (ann, {**Subscriber("http://127.0.0.1:9/push/ann").subscription, "endpoint": endpoint}),
        "ben": (ben, {**Subscriber("http://127.0.0.1:9/push/ben").subscription, "endpoint": endpoint}),
    }
    both_inserting = threading.Barrier(2, timeout=TIMEOUT)
    answers: dict[str, Any] = {}
    errors: list[BaseException] = []

    def post(name: str) -> None:
        waited = False

        def at_the_insert(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
            nonlocal waited
            if not waited and sql.startswith('INSERT INTO "games_pushsubscription"'):
                waited = True
                both_inserting.wait()  # both found no row: neither has written yet
            return execute(sql, params, many, context)

        client, body = posts[name]
        try:
            with connection.execute_wrapper(at_the_insert):
                answers[name] = client.post("/notices/push", json.dumps(body), content_type="application/json")
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=post, args=(name,), daemon=True) for name in posts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT * 2)
    assert not any(thread.is_alive() for thread in threads), "a post hung"
    assert errors == []
    assert both_inserting.n_waiting == 0 and not both_inserting.broken, "the posts did not reach their INSERT together"
    statuses = {name: answer.status_code for name, answer in answers.items()}
    assert sorted(statuses.values()) == [201, 400], statuses
    (owner,) = [name for name, status in statuses.items() if status == 201]
    (refused,) = set(posts) - {owner}
    assert answers[refused].json() == {
        "error": "subscription_held",
        "message": german(HELD) if refused == "ben" else HELD,
    }
    row = PushSubscription.objects.get()
    owner_client, owner_body = posts[owner]
    assert row.controller == owner_client.session["controller"]
    assert row.auth == owner_body["keys"]["auth"].rstrip("=")

"""On PostgreSQL: two first posts of one push endpoint at the same moment make one subscription.

Each post finds no row for the endpoint (a brand-new subscription locks nothing to wait on), and
the two reach their INSERT together: the endpoint's unique index alone orders them. The one that
comes second is refused as ``subscription_held``, in its reader's language, as a later post of the
endpoint with other keys is, and the first keeps its owner."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from games.store.models import PushSubscription
from tests.factories import create_room, race
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

    def post(name: str) -> Any:
        waited = False

        def at_the_insert(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
            nonlocal waited
            if not waited and sql.startswith('INSERT INTO "games_pushsubscription"'):
                waited = True
                both_inserting.wait()  # both found no row: neither has written yet
            return execute(sql, params, many, context)

        client, body = posts[name]
        with connection.execute_wrapper(at_the_insert):
            return client.post("/notices/push", json.dumps(body), content_type="application/json")

    outcomes = race(*[partial(post, name) for name in posts], timeout=TIMEOUT * 2)
    assert [outcome.error for outcome in outcomes] == [None, None]
    assert both_inserting.n_waiting == 0 and not both_inserting.broken, "the posts did not reach their INSERT together"
    answers = {name: outcome.value for name, outcome in zip(posts, outcomes, strict=True)}
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


def test_a_renewal_to_an_endpoint_a_first_post_is_inserting_is_refused_as_held() -> None:
    """The renewal moves its row to the new endpoint with an UPDATE while a first post of the same
    endpoint INSERTs it: neither sees the other's row, and the unique index orders them. Here the
    post's INSERT comes first, and the renewal's UPDATE waits for its commit."""
    endpoint = "http://127.0.0.1:9/push/renewed"
    ann, ben = Client(), Client(HTTP_ACCEPT_LANGUAGE="de")
    for client in (ann, ben):
        create_room(client)
    old = Subscriber("http://127.0.0.1:9/push/ann-old").subscription
    assert ann.post("/notices/push", json.dumps(old), content_type="application/json").status_code == 201
    renewed = {**Subscriber("http://127.0.0.1:9/push/ann-new").subscription, "endpoint": endpoint}
    posted = {**Subscriber("http://127.0.0.1:9/push/ben").subscription, "endpoint": endpoint}
    inserted, updating = threading.Event(), threading.Event()

    def renewing(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if sql.startswith('UPDATE "games_pushsubscription" SET "endpoint"') and not updating.is_set():
            assert inserted.wait(TIMEOUT), "the post never inserted"  # the renewal found no row for it
            updating.set()
        return execute(sql, params, many, context)

    def posting(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        answer = execute(sql, params, many, context)
        if sql.startswith('INSERT INTO "games_pushsubscription"') and not inserted.is_set():
            inserted.set()
            assert updating.wait(TIMEOUT), "the renewal never updated"  # not committed before it
        return answer

    def renew() -> Any:
        with connection.execute_wrapper(renewing):
            body = json.dumps({"old": old, "new": renewed})
            return Client().post("/notices/push/renew", body, content_type="application/json")

    def post() -> Any:
        with connection.execute_wrapper(posting):
            return ben.post("/notices/push", json.dumps(posted), content_type="application/json")

    outcomes = race(renew, post, timeout=TIMEOUT * 2)
    assert [outcome.error for outcome in outcomes] == [None, None]
    answers = {"renew": outcomes[0].value, "post": outcomes[1].value}
    assert inserted.is_set() and updating.is_set(), "the two did not write together"
    assert answers["post"].status_code == 201
    assert answers["renew"].status_code == 400
    assert answers["renew"].json()["error"] == "subscription_held"
    row = PushSubscription.objects.get(endpoint=endpoint)
    assert row.controller == ben.session["controller"]
    # The renewal changed nothing: the old subscription is still the browser's.
    assert PushSubscription.objects.filter(endpoint=old["endpoint"], controller=ann.session["controller"]).exists()

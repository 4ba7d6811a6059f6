"""Each address answers the methods docs/protocol.md gives it: a page's address answers HEAD as it
answers GET (a link checker's or a monitor's request), and a method it does not take with the
site's 405 and ``Allow``, never its page as if it had been a GET."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import create_room

pytestmark = pytest.mark.django_db


def page_addresses(code: str) -> list[str]:
    return [
        "/",
        "/rooms/find?code=" + code,
        "/games",
        "/rules",
        "/fairness",
        f"/r/{code}/",
        f"/r/{code}/state.json",
        f"/r/{code}/feed.json",
        f"/r/{code}/fairness",
        f"/r/{code}/here.css",
        f"/r/{code}/here",
        "/leaderboards",
        "/leaderboards/official",
        "/manifest.webmanifest",
        "/sw.js",
        "/jsi18n/en.js",
        "/me/deleted",
        "/accounts/password/reset/",
    ]


def test_every_page_answers_head_as_it_answers_get() -> None:
    client = Client()
    code = create_room(client, "Ann")
    for path in page_addresses(code):
        got, head = client.get(path), client.head(path)
        assert head.status_code == got.status_code, (path, head.status_code, got.status_code)
        assert head.get("Content-Type") == got.get("Content-Type"), path

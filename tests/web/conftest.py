"""Fixtures of the page tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import trans_real


@pytest.fixture
def german(monkeypatch: pytest.MonkeyPatch) -> Callable[[str | Promise], str]:
    """German as a page shows it, with a word for every message: the catalog's translation, or
    for a message the catalog does not hold yet its English marked "[de] ". A page that words
    something in the reader's language then reads differently from its English whether or not
    the message has been translated. Returns what a message reads as in German."""
    catalog = trans_real.translation("de")
    known = catalog.gettext

    def gettext(message: str) -> str:
        translated = known(message)
        return translated if translated != message else f"[de] {message}"

    monkeypatch.setattr(catalog, "gettext", gettext)

    def words(message: str | Promise) -> str:
        with translation.override("de"):
            return str(message) if isinstance(message, Promise) else translation.gettext(message)

    return words


@pytest.fixture(autouse=True)
def _forms_as_fast_as_the_test_client(settings: Any) -> None:
    """A form post counts as a socket's frame (WS_RATE_LIMIT a second, games.web.views.room_action):
    the test client plays whole games by form faster than any person, so the page tests lift that
    limit; a test of it sets its own."""
    settings.WS_RATE_LIMIT = 10**6

"""Every 429 the site serves says the wait it really has: the wait the refusing limit knows, also
sent as Retry-After (the site's own limiter, allauth's rate limits, django-axes' lockout, an empty
429 with a Retry-After of its own), and no wait at all where nothing knows it. In English and in
German (tests/realtime/test_limits.py has the words of every wait in English)."""

from __future__ import annotations

import html
import types
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.utils import translation

from games.web.errorpages import ErrorPageMiddleware
from tests.accounts.helpers import PASSWORD
from tests.conftest import ManualClock
from tests.factories import create_room

pytestmark = pytest.mark.django_db

NEUTRAL = "Too many requests from your address. Please wait, then try again."
LANGUAGES = ["en", "de"]


def said(response: Any) -> str:
    return html.unescape(response.content.decode())


def words(language: str, english: str, *plural: object) -> str:
    """``english`` as the page reads it in ``language``: a plural's form for its count when given."""
    with translation.override(language):
        if plural:
            singular, count = plural
            return translation.ngettext(str(singular), english, int(str(count)))
        return translation.gettext(english)


def waits(language: str, what: str, **wait: int) -> str:
    """The sentence of a wait (``seconds=`` or ``minutes=``) in ``language``, as wait_words builds it."""
    what = words(language, what)
    ((unit, count),) = wait.items()
    singular = f"%(what)s Please wait %({unit})d {unit[:-1]} and try again."
    plural = f"%(what)s Please wait %({unit})d {unit} and try again."
    return words(language, plural, singular, count) % {"what": what, unit: count}


def no_minute(language: str, page: str) -> None:
    """Nothing on the page names a minute's wait."""
    minute = words(language, "%(what)s Please wait a minute and try again.") % {"what": ""}
    assert minute.strip() not in page
    assert "wait a minute" not in page


@pytest.fixture
def allauth_clock(monkeypatch: pytest.MonkeyPatch) -> ManualClock:
    """allauth's rate limits' clock, standing still until the test moves it (its lock keeps time)."""
    import time

    from allauth.core.internal import ratelimit

    clock = ManualClock()
    monkeypatch.setattr(
        ratelimit, "time", types.SimpleNamespace(time=clock, monotonic=time.monotonic, sleep=time.sleep)
    )
    return clock


@pytest.mark.usefixtures("german")
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_sites_own_limit_says_the_wait_its_window_leaves(
    settings: Any, limit_clock: ManualClock, language: str
) -> None:
    settings.RATE_LIMIT_ROOM_CREATE = "1/h"
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    create_room(client, "Ann")
    limit_clock.advance(3600 - 90)
    refused = client.post("/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"})
    assert refused.status_code == 429 and refused["Retry-After"] == "90"
    what = "You have created too many rooms in a short time."
    assert waits(language, what, minutes=2) in said(refused)


@pytest.mark.usefixtures("german")
@pytest.mark.parametrize("language", LANGUAGES)
def test_allauths_limit_says_the_wait_of_the_rate_that_refused(
    settings: Any, allauth_clock: ManualClock, language: str
) -> None:
    """Sign-ups are limited a minute and a day (20 and 100 at the site's settings): the page says the
    wait of the one that refused, not always a minute."""
    settings.ACCOUNT_RATE_LIMITS = {"signup": "3/m/ip,2/h/ip"}
    client = Client(HTTP_ACCEPT_LANGUAGE=language, REMOTE_ADDR=f"198.51.100.{80 + LANGUAGES.index(language)}")
    for _ in range(2):
        assert client.post("/accounts/signup/", {"username": ""}).status_code == 200  # refused forms count too
        allauth_clock.advance(10)
    refused = client.post("/accounts/signup/", {"username": ""})
    # The hour's rate is full: the first sign-up leaves it 3600 s after it was counted.
    assert refused.status_code == 429 and refused["Retry-After"] == "3580"
    assert waits(language, "Too many requests.", minutes=60) in said(refused)
    no_minute(language, said(refused))
    allauth_clock.advance(3580 - 45)
    refused = client.post("/accounts/signup/", {"username": ""})
    assert refused.status_code == 429 and refused["Retry-After"] == "45"
    assert waits(language, "Too many requests.", seconds=45) in said(refused)
    allauth_clock.advance(45)
    assert client.post("/accounts/signup/", {"username": ""}).status_code == 200


@pytest.mark.usefixtures("german")
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_days_limit_says_its_wait_in_hours(settings: Any, allauth_clock: ManualClock, language: str) -> None:
    """Sign-ups' day limit: the wait in hours, each begun counted, not a thousand minutes."""
    settings.ACCOUNT_RATE_LIMITS = {"signup": "1/d/ip"}
    client = Client(HTTP_ACCEPT_LANGUAGE=language, REMOTE_ADDR=f"198.51.100.{85 + LANGUAGES.index(language)}")
    assert client.post("/accounts/signup/", {"username": ""}).status_code == 200
    allauth_clock.advance(30 * 60)
    refused = client.post("/accounts/signup/", {"username": ""})
    assert refused.status_code == 429 and refused["Retry-After"] == str(86400 - 30 * 60)
    assert waits(language, "Too many requests.", hours=24) in said(refused)


@pytest.mark.usefixtures("german")
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_lockout_says_its_cool_off(settings: Any, language: str) -> None:
    """django-axes' lockout (a 429): the cool-off, which each password tried meanwhile starts again."""
    settings.ACCOUNT_RATE_LIMITS = False
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)
    Client().post("/accounts/signup/", {"username": f"lu{language}", "password1": PASSWORD, "password2": PASSWORD})
    client = Client(HTTP_ACCEPT_LANGUAGE=language, REMOTE_ADDR=f"198.51.100.{90 + LANGUAGES.index(language)}")
    for _ in range(5):
        locked = client.post("/accounts/login/", {"login": f"lu{language}", "password": "wrong-secret-xyz"})
    assert locked.status_code == 429 and locked["Retry-After"] == "900"
    sentence = (
        "After %(failure_limit)s wrong passwords from your address, passwords from it are refused for "
        "%(minutes)s minutes: signing in, and confirming an account's deletion. Please wait, then try again."
    )
    singular = sentence.replace("%(minutes)s minutes", "%(minutes)s minute")
    assert words(language, sentence, singular, 15) % {"failure_limit": 5, "minutes": 15} in said(locked)
    no_minute(language, said(locked))


@pytest.mark.usefixtures("german")
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_429_whose_wait_nothing_knows_names_none(language: str) -> None:
    """allauth's 429 with no refusal noted (its count's lock not taken in time) and an empty 429
    without a Retry-After: no "a minute" that may be false, and no Retry-After."""
    from allauth.core.ratelimit import respond_429
    from django.contrib.auth.models import AnonymousUser

    with translation.override(language):
        request = RequestFactory().post("/accounts/login/")
        request.user = AnonymousUser()
        request.LANGUAGE_CODE = language
        answers = [
            respond_429(request),
            ErrorPageMiddleware(lambda request: HttpResponse(status=429))(RequestFactory().get("/somewhere")),
        ]
    for answer in answers:
        assert answer.status_code == 429 and not answer.has_header("Retry-After")
        assert words(language, NEUTRAL) in said(answer)
        no_minute(language, said(answer))


@pytest.mark.usefixtures("german")
@pytest.mark.parametrize("language", LANGUAGES)
def test_an_empty_429_says_the_wait_of_its_own_retry_after(language: str) -> None:
    bare = HttpResponse(status=429)
    bare["Retry-After"] = "30"
    with translation.override(language):
        page = ErrorPageMiddleware(lambda request: bare)(RequestFactory().get("/somewhere"))
    assert page.status_code == 429 and page["Retry-After"] == "30"
    assert waits(language, "Too many requests.", seconds=30) in said(page)
    # A Retry-After that is a date: the wait until then (a minute and some seconds: two minutes begun).
    bare["Retry-After"] = format_datetime(datetime.now(UTC) + timedelta(seconds=120), usegmt=True)
    with translation.override(language):
        page = ErrorPageMiddleware(lambda request: bare)(RequestFactory().get("/somewhere"))
    assert page.status_code == 429 and page["Retry-After"] == bare["Retry-After"]
    assert waits(language, "Too many requests.", minutes=2) in said(page)


def test_an_allauth_refusal_with_nothing_full_notes_no_wait(allauth_clock: ManualClock) -> None:
    """The wait is read from allauth's own count: a rate that is not full has none to say."""
    from allauth.core.internal.ratelimit import Rate
    from django.contrib.auth.models import AnonymousUser

    from accounts.ratelimits import wait_of

    request = RequestFactory().post("/accounts/signup/", REMOTE_ADDR="198.51.100.99")
    request.user = AnonymousUser()
    assert wait_of(request, app="allauth.account", action="signup", rate=Rate(1, 60, "ip")) is None

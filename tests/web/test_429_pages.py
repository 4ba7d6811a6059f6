"""Every 429 the site serves says the wait it really has: the wait the refusing limit knows, also
sent as Retry-After (the site's own limiter, django-axes' lockout, an empty 429 with a Retry-After
of its own), and no wait at all where nothing knows it (allauth's rate limits). In English and in
German (tests/realtime/test_limits.py has the words of every wait in English)."""

from __future__ import annotations

import html
import json
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
def test_allauths_limit_names_no_wait_it_does_not_know(settings: Any, language: str) -> None:
    """Sign-ups are limited a minute and a day (20 and 100 at the site's settings); allauth does not
    tell the page which refused, so the page promises no wait, never "a minute" that may be a day."""
    settings.ACCOUNT_RATE_LIMITS = {"signup": "3/m/ip,2/h/ip"}
    client = Client(HTTP_ACCEPT_LANGUAGE=language, REMOTE_ADDR=f"198.51.100.{80 + LANGUAGES.index(language)}")
    for _ in range(2):
        assert client.post("/accounts/signup/", {"username": ""}).status_code == 200  # refused forms count too
    refused = client.post("/accounts/signup/", {"username": ""})
    assert refused.status_code == 429 and not refused.has_header("Retry-After")
    assert words(language, NEUTRAL) in said(refused)
    no_minute(language, said(refused))


@pytest.mark.usefixtures("german")
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_days_limit_says_its_wait_in_hours(settings: Any, limit_clock: ManualClock, language: str) -> None:
    """A limit by the day: the wait in hours, each begun counted, not a thousand minutes."""
    settings.RATE_LIMIT_ROOM_CREATE = "1/d"
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    create_room(client, "Ann")
    limit_clock.advance(30 * 60)
    refused = client.post("/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"})
    assert refused.status_code == 429 and refused["Retry-After"] == str(86400 - 30 * 60)
    what = "You have created too many rooms in a short time."
    assert waits(language, what, hours=24) in said(refused)


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


LOCKOUT = (
    "After %(failure_limit)s wrong passwords from your address, passwords from it are refused for "
    "%(minutes)s minutes: signing in, and confirming an account's deletion. Please wait, then try again."
)


def lockout_words(language: str, minutes: int) -> str:
    singular = LOCKOUT.replace("%(minutes)s minutes", "%(minutes)s minute")
    return words(language, LOCKOUT, singular, minutes) % {"failure_limit": 5, "minutes": minutes}


@pytest.mark.usefixtures("german")
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_lockout_answers_a_script_in_json_with_its_cool_off(settings: Any, language: str) -> None:
    """A sign-in posted by a script that asks for JSON is locked out as a page's is, and told so in the
    site's JSON error: the code, the cool-off in words and as ``retry_after``, and the Retry-After."""
    settings.ACCOUNT_RATE_LIMITS = False
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)
    Client().post("/accounts/signup/", {"username": f"lj{language}", "password1": PASSWORD, "password2": PASSWORD})
    address = f"198.51.100.{94 + LANGUAGES.index(language)}"
    client = Client(HTTP_ACCEPT_LANGUAGE=language, HTTP_ACCEPT="application/json", REMOTE_ADDR=address)
    for _ in range(5):
        locked = client.post("/accounts/login/", {"login": f"lj{language}", "password": "wrong-secret-xyz"})
    assert locked.status_code == 429 and locked["Retry-After"] == "900"
    assert locked["Content-Type"] == "application/json"
    assert json.loads(locked.content) == {
        "error": "rate_limited",
        "message": lockout_words(language, 15),
        "retry_after": 900,
    }
    # The right password too, while locked out; a page's request still gets the page.
    again = client.post("/accounts/login/", {"login": f"lj{language}", "password": PASSWORD})
    assert again.status_code == 429 and json.loads(again.content)["retry_after"] == 900
    page = Client(HTTP_ACCEPT_LANGUAGE=language, REMOTE_ADDR=address).post(
        "/accounts/login/", {"login": f"lj{language}", "password": PASSWORD}
    )
    assert page.status_code == 429 and page["Content-Type"].startswith("text/html")
    assert lockout_words(language, 15) in said(page)


def test_a_lockout_without_a_cool_off_answers_a_script_with_no_wait(settings: Any) -> None:
    settings.ACCOUNT_RATE_LIMITS = False
    settings.AXES_COOLOFF_TIME = None
    Client().post("/accounts/signup/", {"username": "ljn", "password1": PASSWORD, "password2": PASSWORD})
    client = Client(HTTP_ACCEPT="application/json", REMOTE_ADDR="198.51.100.97")
    for _ in range(5):
        locked = client.post("/accounts/login/", {"login": "ljn", "password": "wrong-secret-xyz"})
    assert locked.status_code == 429 and not locked.has_header("Retry-After")
    assert json.loads(locked.content) == {
        "error": "rate_limited",
        "message": "After 5 wrong passwords from your address, passwords from it are refused: signing in, "
        "and confirming an account's deletion. Please wait, then try again.",
    }


@pytest.mark.usefixtures("german")
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_429_whose_wait_nothing_knows_names_none(language: str) -> None:
    """allauth's 429 (its handler is given the request alone) and an empty 429 without a
    Retry-After: no "a minute" that may be false, and no Retry-After."""
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


@pytest.mark.parametrize("accept", ["text/html", "application/json"])
@pytest.mark.parametrize("retry_after", ["9" * 400, "9" * 5000, "99999999999"])
def test_an_empty_429_with_a_retry_after_past_any_real_wait_names_none(accept: str, retry_after: str) -> None:
    """A Retry-After of more seconds than a float holds, or than int() reads, or than any limit
    waits: its page, and its JSON for a script, name no wait, and the header stays as sent."""
    bare = HttpResponse(status=429)
    bare["Retry-After"] = retry_after
    answer = ErrorPageMiddleware(lambda request: bare)(RequestFactory().get("/somewhere", HTTP_ACCEPT=accept))
    assert answer.status_code == 429 and answer["Retry-After"] == retry_after
    if accept == "application/json":
        assert json.loads(answer.content) == {"error": "rate_limited", "message": NEUTRAL}
    else:
        assert NEUTRAL in said(answer)

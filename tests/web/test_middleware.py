"""games.web.middleware: a database out of reach answers 503 with a message (HTML or JSON), never a bare 500."""

from __future__ import annotations

import html
import io
import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.core.management import call_command
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template import TemplateDoesNotExist
from django.test import Client, RequestFactory
from django.utils import translation
from django.utils.functional import Promise

from games.domain import errors
from games.web.middleware import MESSAGE, TITLE, UNKNOWN, DatabaseUnavailableMiddleware


def ok(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok")


middleware = DatabaseUnavailableMiddleware(ok)


@pytest.mark.parametrize("exception", [OperationalError("gone"), InterfaceError("closed")], ids=type)
def test_a_lost_database_is_a_503_page_that_says_nothing_changed(exception: Exception) -> None:
    response = middleware.process_exception(RequestFactory().get("/r/abc/", HTTP_ACCEPT="text/html"), exception)
    assert response is not None and response.status_code == 503
    assert response["Retry-After"] == "5"
    page = html.unescape(response.content.decode())
    assert "Back in a moment" in page and str(MESSAGE) in page


@pytest.mark.parametrize(
    "request_",
    [RequestFactory().get("/r/abc/state.json"), RequestFactory().get("/r/abc/", HTTP_ACCEPT="application/json")],
    ids=["json-path", "accept-json"],
)
def test_a_script_asking_for_json_gets_the_error_code(request_: HttpRequest) -> None:
    response = middleware.process_exception(request_, OperationalError("gone"))
    assert response is not None and response.status_code == 503 and response["Content-Type"] == "application/json"
    assert json.loads(response.content) == {"error": errors.UNAVAILABLE, "message": MESSAGE}


def test_a_post_the_database_failed_during_has_an_unknown_outcome_not_nothing_changed() -> None:
    request = RequestFactory().post("/rooms/new", HTTP_ACCEPT="application/json")
    response = middleware.process_exception(request, OperationalError("gone"))
    assert response is not None and response.status_code == 503
    assert json.loads(response.content) == {"error": errors.OUTCOME_UNKNOWN, "message": UNKNOWN}


def test_a_lost_database_is_logged_with_the_requests_path_escaped(caplog: pytest.LogCaptureFixture) -> None:
    request = RequestFactory().get("/r/abc/")
    request.path = "/r/abc\r\nERROR forged line/"
    with caplog.at_level(logging.WARNING, "games.web.middleware"):
        middleware.process_exception(request, OperationalError("gone"))
    [line] = [record.getMessage() for record in caplog.records]
    assert "\n" not in line and "\r" not in line and "/r/abc\\r\\nERROR forged line/" in line


def test_other_errors_are_left_to_django() -> None:
    assert middleware.process_exception(RequestFactory().get("/"), ValueError("a bug")) is None


def test_it_passes_requests_through_and_stays_async_for_an_async_stack() -> None:
    assert middleware(RequestFactory().get("/")).content == b"ok"
    assert not iscoroutinefunction(middleware)

    async def async_ok(request: HttpRequest) -> HttpResponse:
        return HttpResponse("ok")

    assert iscoroutinefunction(DatabaseUnavailableMiddleware(async_ok))


@pytest.mark.django_db
def test_a_page_whose_database_read_fails_answers_503(monkeypatch: pytest.MonkeyPatch) -> None:
    def unreachable(code: str) -> None:
        raise OperationalError("connection refused")

    monkeypatch.setattr("games.store.selectors.room_or_none", unreachable)
    response = Client().get("/r/abcdefghij/")
    assert response.status_code == 503 and "Back in a moment" in response.content.decode()


@pytest.mark.django_db
def test_the_database_away_page_is_in_the_readers_language(
    monkeypatch: pytest.MonkeyPatch, german: Callable[[str | Promise], str]
) -> None:
    """A moment without the database (a restart, a failover, SQLite's "database is locked") is
    told in the language the reader's pages are in, marked as that language."""

    def unreachable(code: str) -> None:
        raise OperationalError("connection refused")

    monkeypatch.setattr("games.store.selectors.room_or_none", unreachable)
    response = Client(HTTP_ACCEPT_LANGUAGE="de").get("/r/abcdefghij/")
    page = html.unescape(response.content.decode())
    assert response.status_code == 503 and '<html lang="de"' in page
    assert f"<title>{german(TITLE)}</title>" in page and german(MESSAGE) in page, page
    assert "<title>Back in a moment</title>" not in page


def test_a_form_post_the_database_failed_during_is_told_in_the_readers_language(
    german: Callable[[str | Promise], str],
) -> None:
    request = RequestFactory().post("/r/abc/roll", HTTP_ACCEPT="text/html")
    with translation.override("de"):
        response = middleware.process_exception(request, OperationalError("gone"))
    assert response is not None and response.status_code == 503
    page = html.unescape(response.content.decode())
    assert '<html lang="de"' in page and german(UNKNOWN) in page


def test_the_database_away_page_is_still_answered_in_the_readers_language_when_it_cannot_be_drawn(
    monkeypatch: pytest.MonkeyPatch, german: Callable[[str | Promise], str]
) -> None:
    def broken(*args: object, **kwargs: object) -> str:
        raise TemplateDoesNotExist("unavailable.html")

    monkeypatch.setattr("games.web.middleware.render_to_string", broken)
    with translation.override("de"):
        response = middleware.process_exception(RequestFactory().get("/r/abc/"), OperationalError("gone"))
    assert response is not None and response.status_code == 503 and response["Retry-After"] == "5"
    page = html.unescape(response.content.decode())
    assert '<html lang="de"' in page and german(TITLE) in page and german(MESSAGE) in page


@pytest.mark.django_db
def test_pages_and_static_files_go_out_compressed_to_a_browser_that_accepts_it() -> None:
    page = Client().get("/", HTTP_ACCEPT_ENCODING="gzip")
    assert page.status_code == 200 and page["Content-Encoding"] == "gzip"
    css = Client().get("/static/css/site.css", HTTP_ACCEPT_ENCODING="gzip")
    assert css.status_code == 200 and css["Content-Encoding"] == "gzip"
    plain = Client().get("/static/css/site.css")
    assert not plain.has_header("Content-Encoding")


def test_a_static_file_is_asked_for_again_each_time_and_costs_a_304_while_unchanged() -> None:
    """Their names stay the same from one release to the next: a module kept from the release
    before must never run in a page of the new one."""
    first = Client().get("/static/js/i18n.js")
    assert first.status_code == 200 and first["Cache-Control"] == "no-cache"
    again = Client().get("/static/js/i18n.js", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304


def test_the_proxy_s_pages_for_no_worker_are_drawn_in_every_language_for_reads_writes_and_scripts(
    tmp_path: Path, german: Callable[[str | Promise], str]
) -> None:
    """deploy/Caddyfile serves <language>.<unavailable|unknown>.<html|json> when no worker can answer."""
    call_command("unavailable_pages", str(tmp_path), stdout=io.StringIO())
    assert {path.name for path in tmp_path.iterdir()} == {
        f"{code}.{outcome}.{kind}"
        for code, _ in settings.LANGUAGES
        for outcome in ("unavailable", "unknown")
        for kind in ("html", "json")
    }
    page = html.unescape((tmp_path / "de.unknown.html").read_text())
    assert '<html lang="de"' in page and f"<title>{german(TITLE)}</title>" in page and german(UNKNOWN) in page
    answer = json.loads((tmp_path / "de.unavailable.json").read_text())
    assert answer == {"error": errors.UNAVAILABLE, "message": german(MESSAGE)}

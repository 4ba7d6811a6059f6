"""Every error a visitor can meet is a page in the site's style with a way home, never Django's bare text."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, override_settings

from games.store.models import Game
from tests.factories import create_room, open_room

pytestmark = pytest.mark.django_db


def assert_styled(page: str, status: int) -> None:
    assert "/static/css/site.css" in page and 'class="card error-page"' in page
    assert 'href="/"' in page and "Back to the home page" in page
    assert f"Error {status}" in page
    assert re.search(r"<title>[^<]+</title>", page)


def test_a_mistyped_room_code_gets_the_site_s_404_naming_the_room() -> None:
    response = Client().get("/r/zzzzzzzzzz/")
    assert response.status_code == 404
    page = response.content.decode()
    assert_styled(page, 404)
    assert "No room has that code" in page
    assert "A room whose game never started is removed once nobody has used it for 30 days." in page


def test_a_swept_rooms_link_says_rooms_never_started_are_removed_after_the_days_set(settings: Any) -> None:
    settings.ROOMS_NEVER_STARTED_DAYS = 1
    page = Client().get("/r/zzzzzzzzzz/").content.decode()
    assert "removed once nobody has used it for 1 day." in page
    settings.ROOMS_NEVER_STARTED_DAYS = 0  # kept for ever: nothing is removed, nothing is said
    page = Client().get("/r/zzzzzzzzzz/").content.decode()
    assert "No room has that code" in page and "removed" not in page


@pytest.mark.parametrize("name", ["state.json", "log.json", "review.json"])
def test_an_unknown_room_code_on_a_json_address_is_answered_as_json_with_its_code(name: str) -> None:
    """A script (or the page's own fetch of review.json) switches on the code, as on a database away (503)."""
    response = Client().get(f"/r/zzzzzzzzzz/{name}", HTTP_ACCEPT="*/*")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json"), response.content[:80]
    assert response.json()["error"] == "no_room" and "No room has that code" in response.json()["message"]


def test_a_script_asking_for_json_gets_an_unknown_room_as_json() -> None:
    response = Client().get("/r/zzzzzzzzzz/", HTTP_ACCEPT="application/json")
    assert response.status_code == 404 and response.json()["error"] == "no_room"


def test_any_unknown_address_gets_the_site_s_404() -> None:
    response = Client().get("/no/such/page")
    assert response.status_code == 404
    page = response.content.decode()
    assert_styled(page, 404)
    assert "There is no page at this address" in page


def test_a_bad_request_gets_the_site_s_400() -> None:
    # A Host header Django refuses (DisallowedHost) is answered by handler400.
    response = Client().get("/", HTTP_HOST="bad host name")
    assert response.status_code == 400
    assert_styled(response.content.decode(), 400)


def test_the_admin_refused_to_a_visitor_is_a_redirect_and_a_denied_page_is_the_site_s_403() -> None:
    from django.core.exceptions import PermissionDenied
    from django.test import RequestFactory

    from games.web.errorpages import permission_denied

    response = permission_denied(RequestFactory().get("/"), PermissionDenied())
    assert response.status_code == 403
    assert_styled(response.content.decode(), 403)


def test_a_form_without_its_csrf_token_gets_the_site_s_403_saying_why() -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.post("/rooms/new", {"name": "Ada", "ruleset": "official", "mode": "online"})
    assert response.status_code == 403
    page = response.content.decode()
    assert_styled(page, 403)
    assert "This form has expired" in page and "reload the page" in page
    assert Game.objects.count() == 0


def test_a_form_refused_for_its_csrf_token_is_logged_with_its_path_escaped(caplog: pytest.LogCaptureFixture) -> None:
    """A path holding a line break would otherwise write a line of the sender's into the server's
    log (Django escapes the same path in its own line)."""
    caplog.set_level(logging.INFO)
    response = Client(enforce_csrf_checks=True).post(
        "/r/abcd2345ef%0D%0AERROR%20django.request%20forged%20line/join", {"name": "Eve"}
    )
    assert response.status_code == 403
    lines = [record.getMessage() for record in caplog.records if "forged line" in record.getMessage()]
    assert lines, "the refusal was logged"
    assert not [line for line in lines if "\n" in line or "\r" in line], f"a raw line break in the log: {lines}"
    assert any("abcd2345ef\\r\\nERROR" in line for line in lines), lines


@pytest.mark.usefixtures("limit_clock")
def test_too_many_requests_gets_the_site_s_429() -> None:
    # The limit set to one room: each count in Redis is one more request a loaded machine could
    # time out on (the limiter then counts in memory for a while).
    ann = Client()
    with override_settings(RATE_LIMIT_ROOM_CREATE="1/60"):
        assert ann.post("/rooms/new", {"name": "Ann0", "ruleset": "official", "mode": "online"}).status_code == 302
        refused = ann.post("/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    page = refused.content.decode()
    assert_styled(page, 429)
    assert "too many rooms" in page


@override_settings(ROOT_URLCONF="tests.error_urls", DEBUG=False)
def test_a_server_fault_gets_the_site_s_500_without_the_details() -> None:
    response = Client(raise_request_exception=False).get("/boom")
    assert response.status_code == 500
    page = response.content.decode()
    assert_styled(page, 500)
    assert "Something went wrong" in page and "a fault the page must not show" not in page


def test_the_500_page_stands_even_when_its_template_cannot_render(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.test import RequestFactory

    from games.web import errorpages

    def broken(*args: object, **kwargs: object) -> str:
        raise RuntimeError("template fault")

    monkeypatch.setattr(errorpages, "render_to_string", broken)
    response = errorpages.server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    assert b"Something went wrong" in response.content and b'href="/"' in response.content


def test_favicon_ico_answers_with_the_site_s_icon() -> None:
    response = Client().get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == "/static/favicon.svg"


def test_a_room_address_that_only_takes_a_form_gets_the_site_s_405_with_a_way_back_to_the_room() -> None:
    game = Game.objects.create(code="abcdefghjk")
    for path in (f"/r/{game.code}/join", f"/r/{game.code}/roll", f"/r/{game.code}/rematch"):
        response = Client().get(path)
        assert response.status_code == 405, path
        assert response["Allow"] == "POST"
        page = response.content.decode()
        assert_styled(page, 405)
        assert "This address is for a button" in page
        assert f'href="/r/{game.code}/"' in page and "Back to the room" in page


@pytest.mark.usefixtures("limit_clock")
def test_a_get_of_a_form_address_is_a_405_before_the_code_is_looked_up(settings: Any) -> None:
    """docs/security.md: the 405 is answered before the code is looked up, so it says nothing of the
    room (the same whether the room exists or not) and is no miss of the address."""
    settings.RATE_LIMIT_ROOM_MISS = "2/60"
    game = Game.objects.create(code="abcdefghjk")
    guesser = Client(REMOTE_ADDR="10.0.5.5")
    for code in (game.code, "nosuchroom", "zzzzzzzzzz", "yyyyyyyyyy"):
        for action in ("roll", "score", "start"):
            response = guesser.get(f"/r/{code}/{action}")
            assert response.status_code == 405 and response["Allow"] == "POST", (code, action)
    assert guesser.get(f"/r/{game.code}/").status_code == 200  # no miss was counted


def test_a_mistyped_address_under_a_room_gets_the_site_s_404_with_a_way_back_to_the_room() -> None:
    game = Game.objects.create(code="abcdefghjk")
    for method in ("get", "post"):
        response = getattr(Client(), method)(f"/r/{game.code}/replays")
        assert response.status_code == 404, method
        page = response.content.decode()
        assert_styled(page, 404)
        assert "This room has no page at this address" in page and f'href="/r/{game.code}/"' in page
    # Under a code that does not exist it is the usual missing room, no link to it.
    page = Client().get("/r/zzzzzzzzzz/replays").content.decode()
    assert "No room has that code" in page and 'href="/r/zzzzzzzzzz/"' not in page


def test_every_empty_error_answer_becomes_the_site_s_page_keeping_its_headers() -> None:
    from django.http import HttpResponse
    from django.test import RequestFactory

    from games.web.errorpages import ErrorPageMiddleware

    for status in (400, 403, 404, 405, 429, 500, 503):
        bare = HttpResponse(status=status)
        bare["Retry-After"] = "30"
        page = ErrorPageMiddleware(lambda request, bare=bare: bare)(RequestFactory().get("/somewhere"))
        assert page.status_code == status and page["Retry-After"] == "30"
        assert_styled(page.content.decode(), status)
    # A body of its own (a page, JSON for the scripts) and a HEAD are left alone.
    json = HttpResponse(b'{"error": "x"}', status=409, content_type="application/json")
    assert ErrorPageMiddleware(lambda request: json)(RequestFactory().get("/r/x/log.json")) is json
    head = HttpResponse(status=405)
    assert ErrorPageMiddleware(lambda request: head)(RequestFactory().head("/r/x/join")) is head


def test_an_empty_error_asked_for_as_json_has_the_code_of_what_happened() -> None:
    """A script switches on ``error``: a 403, 404 or 405 is not called a bad request, and each code
    is one docs/protocol.md lists."""
    from django.http import HttpResponse
    from django.test import RequestFactory

    from games.web.errorpages import ErrorPageMiddleware

    protocol = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text()
    expected = {400: "bad_request", 403: "forbidden", 404: "not_found", 405: "method_not_allowed"}
    for status, code in expected.items():
        bare = HttpResponse(status=status)
        answer = ErrorPageMiddleware(lambda request, bare=bare: bare)(RequestFactory().get("/r/x/state.json"))
        assert answer.status_code == status and answer["Content-Type"] == "application/json", status
        assert json.loads(answer.content)["error"] == code, status
        assert f"`{code}`" in protocol, code


def test_a_script_whose_csrf_token_was_refused_is_told_so_by_its_code() -> None:
    """Not ``bad_request``, which a script also meets for a browser without a session: a stale token
    is put right by loading the page again, for a new one."""
    response = Client(enforce_csrf_checks=True).post(
        "/notices/push/remove", "{}", content_type="application/json", HTTP_ACCEPT="application/json"
    )
    assert response.status_code == 403 and response.json()["error"] == "csrf_failed"
    assert "reload the page" in response.json()["message"]


def test_allauths_rate_limits_answer_with_the_site_s_429() -> None:
    from allauth.core.ratelimit import respond_429
    from django.contrib.auth.models import AnonymousUser
    from django.test import RequestFactory

    request = RequestFactory().post("/accounts/login/")
    request.user = AnonymousUser()
    response = respond_429(request)
    assert response.status_code == 429
    assert_styled(response.content.decode(), 429)


def test_a_bare_405_is_the_site_s_page_under_the_async_server_too() -> None:
    # The live server runs Django's async handler: the page's header reads the session and the
    # user, which must happen outside the event loop (else the page would fall back to its plain form).
    from asgiref.sync import async_to_sync
    from django.test import AsyncClient

    browser = Client()
    code = create_room(browser)  # a browser with a session, as a player's is
    client = AsyncClient()
    client.cookies = browser.cookies
    response = async_to_sync(client.get)(f"/r/{code}/join")
    assert response.status_code == 405
    page = response.content.decode()
    assert_styled(page, 405)
    assert "This address is for a button" in page and "Back to the room" in page


@pytest.mark.parametrize(("language", "said"), [("de", "Das Spiel ist noch nicht vorbei."), ("en", "over")])
def test_the_review_of_a_game_not_over_says_so_in_the_readers_language(language: str, said: str) -> None:
    """log.json's 409 is worded for its reader: review.json's is too, not the service's English."""
    table = open_room(2)
    response = Client(HTTP_ACCEPT_LANGUAGE=language).get(f"/r/{table.code}/review.json")
    assert response.status_code == 409 and response.json()["error"] == "not_over"
    assert said in response.json()["message"], response.json()


def test_an_address_no_page_has_asked_for_as_json_answers_the_code_not_found() -> None:
    """A script's 404 outside a room's addresses: the JSON docs/protocol.md gives, with the code of
    its status, not the page a reader's 404 is."""
    for path, headers in (("/no-such-address.json", {}), ("/u/nobody-at-all/", {"HTTP_ACCEPT": "application/json"})):
        response = Client().get(path, **headers)
        assert response.status_code == 404, path
        assert response["Content-Type"] == "application/json", path
        assert response.json()["error"] == "not_found" and response.json()["message"], path


def test_a_refusal_raised_for_a_script_answers_the_code_of_its_status() -> None:
    """A 400 or 403 raised (a bad request, ``PermissionDenied``) asked for as JSON: the JSON
    docs/protocol.md gives, as for an empty one."""
    from django.test import RequestFactory

    from games.web.errorpages import bad_request, permission_denied

    for handler, status, code in ((bad_request, 400, "bad_request"), (permission_denied, 403, "forbidden")):
        response = handler(RequestFactory().get("/me/settings", HTTP_ACCEPT="application/json"))
        assert response.status_code == status and response["Content-Type"] == "application/json", status
        assert json.loads(response.content)["error"] == code, status
        page = handler(RequestFactory().get("/me/settings"))
        assert page.status_code == status and page["Content-Type"].startswith("text/html"), status

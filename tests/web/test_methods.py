"""Each address answers the methods docs/protocol.md gives it: a page's address answers HEAD as it
answers GET (a link checker's or a monitor's request), and a method it does not take with the
site's 405 and ``Allow``, never its page as if it had been a GET."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games.services import coach, notices
from games.store import tables
from games.store.models import Game, NoticeSettings, Player, Presence
from games.web import views
from games.web.errorpages import NOT_A_FORM, PAGES
from games.web.views import CHAT_REFUSED, JOIN_REFUSED
from tests.accounts.helpers import sign_up
from tests.factories import create_room, everyone_leaves, open_room

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


GET_ONLY = [
    "/",
    "/rules",
    "/fairness",
    "/r/{code}/",
    "/r/{code}/state.json",
    "/r/{code}/feed.json",
    "/r/{code}/log.json",
    "/r/{code}/review.json",
    "/r/{code}/fairness",
    "/r/{code}/replay",
    "/ws/rooms/{code}/",
    "/me",
    "/healthz",
    "/favicon.ico",
]


@pytest.mark.usefixtures("limit_clock")
def test_a_page_answers_a_method_it_does_not_take_with_a_405_before_the_room_is_looked_up(settings: Any) -> None:
    """A post (with its form's token) or any other method to a page's address is not its GET: a 405
    naming GET and HEAD, the same for a room that exists and one that does not, and no miss."""
    settings.RATE_LIMIT_ROOM_MISS = "2/60"
    client = Client(REMOTE_ADDR="10.0.5.6")
    code = create_room(client, "Ann")
    version = Game.objects.get(code=code).version
    for path in GET_ONLY:
        for room in (code, "zzzzzzzzzz"):
            for method in ("post", "put", "patch", "delete"):
                response = getattr(client, method)(path.format(code=room))
                assert response.status_code == 405, (path, room, method, response.status_code)
                assert response["Allow"] == "GET, HEAD", path
    # No miss was counted: the address has its whole allowance left. Asked by a browser without a
    # seat, since Ann's goes through to her own room over the limit whatever was counted.
    stranger = Client(REMOTE_ADDR="10.0.5.6")
    assert [stranger.get("/r/zzzzzzzzzz/").status_code for _ in range(3)] == [404, 404, 429]
    assert Game.objects.get(code=code).version == version


def test_the_health_check_and_the_icon_answer_head_as_get_and_no_other_method() -> None:
    """A monitor's HEAD of /healthz is its GET; a post to either is no GET of it (a 405, as any page's)."""
    client = Client()
    for path, status in (("/healthz", 200), ("/favicon.ico", 301)):
        got, head = client.get(path), client.head(path)
        assert got.status_code == head.status_code == status, path
        assert head.get("Content-Type") == got.get("Content-Type") and head.get("Location") == got.get("Location")
        for method in ("post", "put", "patch", "delete", "options"):
            response = getattr(client, method)(path)
            assert response.status_code == 405 and response["Allow"] == "GET, HEAD", (path, method)


def test_a_script_is_answered_a_method_an_address_does_not_take_in_json() -> None:
    """The JSON addresses, and any caller that asks for JSON, get the 405 as the site's JSON error
    (its ``Allow`` kept), not the page a browser is shown."""
    client = Client()
    code = create_room(client, "Ann")
    asked = [
        ("post", f"/r/{code}/state.json", {}),
        ("delete", f"/r/{code}/log.json", {}),
        ("get", "/notices/push", {}),
        ("get", "/notices/push/remove", {}),
        ("post", "/", {"HTTP_ACCEPT": "application/json"}),
        ("get", f"/r/{code}/roll", {"HTTP_ACCEPT": "application/json"}),
    ]
    for method, path, headers in asked:
        response = getattr(client, method)(path, **headers)
        assert response.status_code == 405 and response.has_header("Allow"), path
        assert response["Content-Type"] == "application/json", path
        # A page's address is not a button's: what it is told says which it is.
        said = NOT_A_FORM[1] if "GET" in response["Allow"] else PAGES[405][1]
        assert response.json() == {"error": "method_not_allowed", "message": str(said)}, path
    page = client.post("/")
    assert page.status_code == 405 and page["Content-Type"].startswith("text/html")


def test_a_page_posted_to_is_not_called_a_button_s_address() -> None:
    """A GET of a button's address is "This address is for a button ... not a page to open"; a post
    to a page's address (the home page, a room's) is told the opposite: it is a page, to be
    opened, and nothing is sent to it."""
    client = Client()
    code = create_room(client, "Ann")
    for path in ("/", f"/r/{code}/", f"/r/{code}/fairness"):
        page = client.post(path).content.decode()
        assert str(NOT_A_FORM[0]) in page and str(NOT_A_FORM[1]) in page, path
        assert str(PAGES[405][0]) not in page and str(PAGES[405][1]) not in page, path
    button = client.get(f"/r/{code}/roll").content.decode()
    assert str(PAGES[405][0]) in button and str(NOT_A_FORM[0]) not in button


def test_the_links_sent_in_e_mails_answer_head_as_get_and_change_nothing() -> None:
    """A mail scanner's HEAD of the stop link or of the address confirmation's is answered as its GET
    (the page with the button, or "this link does not work"), not a 405; and stops nothing."""
    user = get_user_model().objects.create_user("ana", email="a@example.org", password="pw")
    NoticeSettings.objects.create(user=user, email=True)
    for path in (
        f"/notices/stop/{notices.stop_token('email', user.pk)}",
        "/notices/stop/not-a-token",
        "/notices/email/confirm/not-a-token",
    ):
        got, head = Client().get(path), Client().head(path)
        assert head.status_code == got.status_code, (path, head.status_code, got.status_code)
        assert head.get("Content-Type") == got.get("Content-Type"), path
        response = Client().put(path)
        assert response.status_code == 405 and response["Allow"] == "GET, HEAD, POST", path
    assert NoticeSettings.objects.get(user=user).email


def test_the_account_settings_answer_a_method_they_do_not_take_with_a_405() -> None:
    """The settings page takes its forms' posts; a PUT, PATCH or DELETE is no GET of it."""
    client = Client()
    sign_up(client, "ana")
    assert client.head("/me/settings").status_code == client.get("/me/settings").status_code == 200
    for method in ("put", "patch", "delete"):
        response = getattr(client, method)("/me/settings")
        assert response.status_code == 405, (method, response.status_code)
        assert response["Allow"] == "GET, HEAD, POST", method


def test_a_head_of_the_room_page_changes_nothing_stored_nor_the_session() -> None:
    """Mail scanners and link previewers send HEAD: it is answered as the GET is, and neither marks a
    seat followed nor uses up what the session keeps for the page once (a refused join's or chat
    line's words, a refused form's message)."""
    client = Client()
    code = create_room(client, "Ann")
    Player.objects.filter(game__code=code).update(follows=False)  # a rematch's seat, not opened yet
    client.post(f"/r/{code}/roll", {"action_id": "r-1"})  # refused (no version): said once, on the room page
    session = client.session
    session[JOIN_REFUSED] = {"code": code, "name": "Bo", "error": "A refused join's words"}
    session[CHAT_REFUSED] = {"code": code, "text": "hi", "error": "A refused line's words"}
    session.save()
    kept, cookies = dict(client.session.items()), {name: c.value for name, c in client.cookies.items()}
    assert "messages" in cookies

    head = client.head(f"/r/{code}/")
    assert head.status_code == 200 and head["Content-Type"].startswith("text/html")
    assert dict(client.session.items()) == kept
    # The messages' and the session's cookies as they were (the CSRF token's is set as the GET sets it).
    assert {name: client.cookies[name].value for name in ("messages", "sessionid")} == {
        name: cookies[name] for name in ("messages", "sessionid")
    }
    assert not Player.objects.filter(game__code=code, follows=True).exists()

    page = client.get(f"/r/{code}/").content.decode()
    assert "A refused join&#x27;s words" in page and "A refused line&#x27;s words" in page
    assert "missing its game version" in page
    assert not Player.objects.filter(game__code=code, follows=False).exists()


@pytest.mark.django_db(transaction=True)
def test_a_head_through_the_async_stack_keeps_the_session_as_it_was() -> None:
    """The servers run Django's async handler: a HEAD there leaves the session's one-time words and
    the seats as they were too."""
    from asgiref.sync import async_to_sync
    from django.test import AsyncClient

    browser = Client()
    code = create_room(browser, "Ann")
    Player.objects.filter(game__code=code).update(follows=False)
    session = browser.session
    session[JOIN_REFUSED] = {"code": code, "name": "Bo", "error": "A refused join's words"}
    session.save()
    kept = dict(browser.session.items())
    client = AsyncClient()
    client.cookies = browser.cookies
    head = async_to_sync(client.head)(f"/r/{code}/")
    assert head.status_code == 200 and head["Content-Type"].startswith("text/html")
    assert dict(browser.session.items()) == kept
    assert not Player.objects.filter(game__code=code, follows=True).exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("stack", ["sync", "async"])
def test_a_head_that_moves_the_session_to_a_new_key_leaves_the_browser_signed_in(stack: str, settings: Any) -> None:
    """The site's secret key was replaced, the old one kept among the fallbacks: a session signed in
    under the old one is moved to a new key at its next request, when the account is read (Django's
    auth does so and keeps the new key's hash). A HEAD that moves it saves the session under its new
    key, as the browser sent it, and sends that cookie: the old key names no session any more, and a
    browser left with it would be signed out."""
    from asgiref.sync import async_to_sync
    from django.contrib.sessions.models import Session
    from django.test import AsyncClient

    browser = Client()
    code = create_room(browser, "Ann")
    sign_up(browser, "ana")
    session = browser.session
    session[JOIN_REFUSED] = {"code": code, "name": "Bo", "error": "A refused join's words"}
    session.save()
    kept = dict(browser.session.items())
    old_key = browser.cookies["sessionid"].value
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a-new-secret-key-" + "k" * 50

    if stack == "async":
        client = AsyncClient()
        client.cookies = browser.cookies
        head = async_to_sync(client.head)(f"/r/{code}/")
    else:
        head = browser.head(f"/r/{code}/")
    assert head.status_code == 200

    new_key = browser.cookies["sessionid"].value
    assert Session.objects.filter(session_key=new_key).exists(), "the cookie names a session that does not exist"
    assert new_key != old_key and not Session.objects.filter(session_key=old_key).exists()
    # What the page keeps for the browser once is there still, and the browser is still signed in.
    assert dict(browser.session.items()) == kept
    page = browser.get(f"/r/{code}/")
    assert page.wsgi_request.user.username == "ana"
    assert "A refused join&#x27;s words" in page.content.decode()
    assert browser.get("/me/settings").status_code == 200


@pytest.mark.parametrize("path", ["/me/settings", "/r/{code}/", "/"])
def test_a_head_that_ends_the_session_takes_its_cookie_away(path: str) -> None:
    """The account's password changed elsewhere: the session's hash no longer matches, and Django's
    auth ends the session (deletes it) when the account is read. A HEAD that ends it leaves the
    browser no cookie naming it, whatever the view wrote to the session after."""
    from django.contrib.sessions.models import Session

    browser = Client()
    code = create_room(browser, "Ann")
    sign_up(browser, "ana")
    old_key = browser.cookies["sessionid"].value
    account = get_user_model().objects.get(username="ana")
    account.set_password("another horse battery staple")
    account.save()

    assert browser.head(path.format(code=code)).status_code in (200, 302)
    assert not Session.objects.filter(session_key=old_key).exists()
    assert not browser.cookies["sessionid"].value, "the browser is left naming a session that is gone"


def test_a_head_of_the_presence_addresses_is_no_visit() -> None:
    """here.css and here count a browser without script at the table; a HEAD of them does not."""
    client = Client()
    code = create_room(client, "Ann")
    for path in (f"/r/{code}/here.css", f"/r/{code}/here"):
        assert client.head(path).status_code == 200, path
        assert not Presence.objects.filter(game__code=code).exists(), path
    assert client.get(f"/r/{code}/here.css").status_code == 200
    assert Presence.objects.filter(game__code=code).exists()


def test_a_head_of_a_finished_game_s_review_and_replay_does_not_make_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """The coach's review (and the replay's steps) take a worker a good part of a second: a HEAD is
    answered with the GET's status and type without them, and no length of a body not made."""
    table = open_room(2)
    everyone_leaves(table)
    assert Game.objects.get(code=table.code).is_over
    made: list[str] = []

    def review(game: Game) -> dict[str, Any]:
        made.append("review")
        return {"code": game.code, "seats": []}

    def verdict_map(game: Game) -> dict[int, dict[str, Any]]:
        made.append("verdicts")
        return {}

    monkeypatch.setattr(coach, "review", review)
    monkeypatch.setattr(coach, "verdict_map", verdict_map)
    monkeypatch.setattr(views, "_replay_data", lambda game, verdicts: made.append("steps") or "")
    monkeypatch.setattr(tables, "ready", lambda ruleset: True)
    client = Client()
    for path in (f"/r/{table.code}/review.json", f"/r/{table.code}/replay"):
        head = client.head(path)
        assert made == [], path
        assert not head.has_header("Content-Length"), path
        got = client.get(path)
        assert made, path
        assert head.status_code == got.status_code == 200, path
        assert head["Content-Type"] == got["Content-Type"], path
        made.clear()
    # Before its end the review is refused alike, and a table not ready is the GET's 503 at once.
    playing = open_room(2)
    assert client.head(f"/r/{playing.code}/review.json").status_code == 409
    monkeypatch.setattr(tables, "ready", lambda ruleset: False)
    busy = client.head(f"/r/{table.code}/review.json")
    assert busy.status_code == 503 and busy["Content-Type"] == "application/json"
    assert made == []


def test_a_head_whose_body_is_not_made_has_no_length_compressed_either(monkeypatch: pytest.MonkeyPatch) -> None:
    """A browser or a monitor that accepts gzip: the replay's HEAD page (without its steps) is no
    body to give the length of, compressed or not."""
    table = open_room(2)
    everyone_leaves(table)
    monkeypatch.setattr(coach, "review", lambda game: {"code": game.code, "seats": []})
    monkeypatch.setattr(coach, "verdict_map", lambda game: {})
    head = Client().head(f"/r/{table.code}/replay", HTTP_ACCEPT_ENCODING="gzip")
    assert head.status_code == 200
    assert not head.has_header("Content-Length")
    # A cache between keeps the GET's answers apart by encoding, as the GET's own Vary says.
    got = Client().get(f"/r/{table.code}/replay", HTTP_ACCEPT_ENCODING="gzip")
    assert "Accept-Encoding" in got["Vary"]
    assert head["Vary"] == got["Vary"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("stack", ["sync", "async"])
def test_a_head_while_the_database_is_away_is_the_get_s_503(stack: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A monitor sends HEAD: with the database away, a browser's page (its cookie naming a session)
    answers it with the 503 "Back in a moment" and its Retry-After, as it answers the GET, not a
    server error."""
    from asgiref.sync import async_to_sync
    from django.db import OperationalError
    from django.test import AsyncClient

    from yahtzee.sessions import SessionStore

    browser = Client()
    code = create_room(browser, "Ann")

    def away(*args: object, **kwargs: object) -> None:
        raise OperationalError("connection refused")

    monkeypatch.setattr(SessionStore, "load", away)
    monkeypatch.setattr(SessionStore, "aload", away)
    monkeypatch.setattr("games.store.selectors.room_or_none", away)
    if stack == "async":
        client = AsyncClient()
        client.cookies = browser.cookies
        get, head = (async_to_sync(ask)(f"/r/{code}/") for ask in (client.get, client.head))
    else:
        get, head = (ask(f"/r/{code}/") for ask in (browser.get, browser.head))
    assert get.status_code == 503
    assert head.status_code == 503 and head["Retry-After"] == get["Retry-After"]

"""The threat model of docs/security.md, one behaviour at a time.

Private rooms stay hidden without their code, only the seat whose turn it is can act,
websockets from other sites are refused, every form needs its CSRF token, room creation
and joins are rate limited per client (tests/realtime/test_limits.py), the admin is for staff only, and no secret (the
server seed, another browser's controller token) is in anything a client receives
before the game ends.
"""

from __future__ import annotations

import json
import logging
import re
from html.parser import HTMLParser
from importlib import import_module
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as site_settings
from django.contrib.auth.models import User
from django.test import Client

from games.domain.protocol import CLOSE_ORIGIN
from games.store.models import Game
from tests.conftest import clear_cache
from tests.factories import create_room
from yahtzee.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)


ORIGIN = (b"origin", b"http://127.0.0.1")


def start(client: Client, code: str) -> None:
    game = Game.objects.get(code=code)
    response = client.post(f"/r/{code}/start", {"version": game.version, "action_id": f"start-{game.version}"})
    assert response.status_code == 302
    assert Game.objects.get(code=code).status == Game.Status.PLAYING


def controller_of(client: Client) -> str:
    return str(client.session.get("controller", ""))


# --- private rooms -------------------------------------------------------------------


def test_rooms_are_never_listed_and_unknown_codes_look_like_any_missing_page(client: Client) -> None:
    code = create_room(Client(), "Secret")
    home = client.get("/").content.decode()
    assert code not in home and "Secret" not in home
    wrong = code[:-1] + ("2" if code[-1] != "2" else "3")
    for path in (f"/r/{wrong}/", f"/r/{wrong}/state.json", f"/r/{wrong}/log.json"):
        assert client.get(path).status_code == 404
    assert client.get("/r/nosuchroom/").status_code == client.get("/no-such-page/").status_code == 404
    # The code is the only way in: with it the room is readable.
    assert client.get(f"/r/{code}/state.json").json()["code"] == code


def test_room_codes_are_long_and_random(client: Client) -> None:
    codes = {create_room(Client(), f"P{i}") for i in range(5)}
    assert len(codes) == 5
    for code in codes:
        # 10 characters of 31: about 2^49.5 codes, and guessing is rate limited (below).
        assert re.fullmatch(r"[23456789abcdefghjkmnpqrstuvwxyz]{10}", code)


async def refused_as_no_room(ws: WebsocketCommunicator) -> None:
    """The socket is accepted and closed at once with 4404, nothing sent: a handshake refused (HTTP
    403) reaches the page as a connection lost (1006), which it would try again for ever."""
    connected, _ = await ws.connect()
    assert connected
    assert await ws.receive_output(timeout=3) == {"type": "websocket.close", "code": 4404}


@pytest.mark.asyncio
async def test_a_socket_to_an_unknown_room_is_refused() -> None:
    ws = WebsocketCommunicator(application, "/ws/rooms/nosuchroom1/", headers=[ORIGIN])
    await refused_as_no_room(ws)
    await ws.disconnect()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "path", ["/ws/rooms//", "/ws/rooms/abc", "/ws/rooms/abc/more/", "/ws/rooms/..%2f/x/", "/ws/other/", "/"], ids=str
)
async def test_a_socket_to_an_address_that_is_no_rooms_is_refused_as_an_unknown_room(
    path: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Anyone can open these: each must be refused as cleanly as a code of no room, not fail in
    # the router (an HTTP 500 to the client and an error with its traceback in the log each time).
    ws = WebsocketCommunicator(application, path, headers=[ORIGIN])
    await refused_as_no_room(ws)
    await ws.disconnect()
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


# --- only the seat whose turn it is acts ---------------------------------------------


def test_a_visitor_without_a_seat_cannot_act_over_http(client: Client) -> None:
    host = Client()
    code = create_room(host)
    start(host, code)
    before = Game.objects.get(code=code)
    stranger = Client()
    for action in ("roll", "score", "leave", "remove", "start"):
        stranger.post(f"/r/{code}/{action}", {"version": before.version, "action_id": f"x-{action}", "box": "chance"})
    after = Game.objects.get(code=code)
    assert (after.version, after.snapshot) == (before.version, before.snapshot)


def test_an_out_of_turn_player_cannot_act_over_http() -> None:
    ann, bob = Client(), Client()
    code = create_room(ann)
    bob.post(f"/r/{code}/join", {"name": "Bob"})
    start(ann, code)
    before = Game.objects.get(code=code)
    response = bob.post(f"/r/{code}/roll", {"version": before.version, "action_id": "b-1"}, follow=True)
    assert "It is Ann" in response.content.decode()  # the message: "It is Ann's turn."
    after = Game.objects.get(code=code)
    assert (after.version, after.snapshot) == (before.version, before.snapshot)


async def _connect(code: str, session: str = "", origin: tuple[bytes, bytes] = ORIGIN) -> WebsocketCommunicator:
    headers = [origin] + ([(b"cookie", f"sessionid={session}".encode())] if session else [])
    ws = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=headers)
    connected, _ = await ws.connect()
    assert connected
    return ws


async def _until(ws: WebsocketCommunicator, kind: str) -> dict[str, Any]:
    while True:
        frame = json.loads(await ws.receive_from(timeout=5))
        if frame["type"] == kind:
            return dict(frame)


@pytest.mark.asyncio
async def test_spectators_and_out_of_turn_players_cannot_act_over_the_socket() -> None:
    ann, bob = Client(), Client()
    code = await sync_to_async(create_room)(ann)
    await sync_to_async(bob.post)(f"/r/{code}/join", {"name": "Bob"})
    await sync_to_async(start)(ann, code)
    version = (await sync_to_async(Game.objects.get)(code=code)).version
    spectator = await _connect(code)
    bob_ws = await _connect(code, bob.cookies["sessionid"].value)
    for ws, expected in ((spectator, "not_a_player"), (bob_ws, "not_your_turn")):
        await ws.send_json_to({"type": "roll", "version": version, "id": "try-1"})
        error = await _until(ws, "error")
        assert error["code"] == expected and error["id"] == "try-1"
    assert (await sync_to_async(Game.objects.get)(code=code)).version == version
    for ws in (spectator, bob_ws):
        await ws.disconnect()


# --- websocket origin ----------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("origin", [b"http://evil.example", b"https://127.0.0.1.evil.example", b"null", None], ids=str)
async def test_a_socket_from_another_site_or_without_origin_is_refused(origin: bytes | None) -> None:
    code = await sync_to_async(create_room)(Client())
    headers = [(b"origin", origin)] if origin is not None else []
    ws = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=headers)
    connected, _ = await ws.connect()
    assert not connected
    await ws.disconnect()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("origin", "host"),
    [
        # Headers are bytes, read as latin-1: 0xB2 is a superscript two, which str.isdigit() takes
        # for a digit and int() refuses.
        (b"http://localhost:\xb2", b"localhost:\xb2"),
        (b"http://localhost:8000", b"localhost:\xb2"),
        (b"http://localhost:\xb2", b"localhost:8000"),
        ("http://localhost:٨٠٠٠".encode(), "localhost:٨٠٠٠".encode()),  # digits int() reads, not ASCII
        (b"http://localhost:+8000", b"localhost:+8000"),
    ],
    ids=str,
)
async def test_a_socket_whose_origin_or_host_has_a_port_not_in_ascii_digits_is_refused_like_another_sites(
    origin: bytes, host: bytes
) -> None:
    code = await sync_to_async(create_room)(Client())
    ws = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=[(b"host", host), (b"origin", origin)])
    connected, close_code = await ws.connect()
    assert not connected and close_code == CLOSE_ORIGIN
    await ws.disconnect()
    same = [(b"host", b"localhost:8000"), (b"origin", b"http://localhost:8000")]
    ws = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=same)
    assert (await ws.connect())[0]
    await ws.disconnect()


@pytest.mark.asyncio
async def test_a_socket_from_the_site_itself_is_accepted() -> None:
    code = await sync_to_async(create_room)(Client())
    ws = await _connect(code, origin=(b"origin", b"http://localhost:8000"))
    assert (await _until(ws, "state"))["code"] == code
    await ws.disconnect()


# --- CSRF ----------------------------------------------------------------------------


class _Forms(HTMLParser):
    """Every <form method=post> of a page: its action and whether it carries a CSRF token."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, Any]] = []
        self._open: dict[str, Any] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form" and (a.get("method") or "get").lower() == "post":
            self._open = {"action": a.get("action") or "", "token": False}
            self.forms.append(self._open)
        elif tag == "input" and self._open is not None and a.get("name") == "csrfmiddlewaretoken":
            self._open["token"] = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._open = None


def post_forms(html: str) -> list[dict[str, Any]]:
    parser = _Forms()
    parser.feed(html)
    return parser.forms


def test_every_post_form_on_the_pages_carries_a_csrf_token_and_needs_it() -> None:
    ann = Client(enforce_csrf_checks=True)
    ann.get("/")
    ann.post(
        "/rooms/new",
        {"name": "Ann", "ruleset": "official", "mode": "online", "csrfmiddlewaretoken": ann.cookies["csrftoken"].value},
    )
    code = str(Game.objects.latest("created_at").code)
    visitor = Client(enforce_csrf_checks=True)
    pages = [ann.get("/"), ann.get(f"/r/{code}/"), visitor.get(f"/r/{code}/")]
    forms = [form for page in pages for form in post_forms(page.content.decode())]
    assert forms, "the pages have forms"
    for form in forms:
        assert form["token"], f"form posting to {form['action']!r} has no CSRF token"
        action = form["action"] or f"/r/{code}/"
        assert Client(enforce_csrf_checks=True).post(action, {"name": "X"}).status_code == 403, action


@pytest.mark.parametrize(
    "path",
    [
        "/rooms/new",
        "/r/{code}/join",
        "/r/{code}/start",
        "/r/{code}/roll",
        "/r/{code}/score",
        "/r/{code}/leave",
        "/r/{code}/kick",
        "/r/{code}/remove",
        "/r/{code}/rematch",
        "/admin/login/",
    ],
)
def test_every_state_changing_endpoint_refuses_a_post_without_a_csrf_token(path: str) -> None:
    code = create_room(Client())
    host = Client(enforce_csrf_checks=True)
    before = Game.objects.get(code=code)
    response = host.post(path.format(code=code), {"name": "Eve", "version": before.version, "action_id": "a"})
    assert response.status_code == 403
    assert Game.objects.get(code=code).version == before.version


# Views a post without a CSRF token may reach: a one-click stop link's token is its own
# credential (games.web.views.notices_stop), posted by mail programs and the service worker; a
# renewed push subscription's old auth secret is its own (notices_push_renew), posted by the worker.
CSRF_EXEMPT = {"notices_stop", "notices_push_renew"}
# A value for each kind of URL parameter, so that every address of the site can be posted to.
SAMPLE = {
    "code": "{code}",
    "ruleset": "official",
    "action": "roll",
    "language": "en",
    "username": "ann",
    "app_label": "games",
}


def every_address(patterns: list[Any], prefix: str = "") -> list[tuple[str, str]]:
    """(name, path) of every URL pattern of the site, its parameters filled in."""
    from django.urls import URLResolver

    found = []
    for pattern in patterns:
        route = prefix + str(pattern.pattern).lstrip("^").rstrip("$").replace("\\Z", "")
        if isinstance(pattern, URLResolver):
            found += every_address(pattern.url_patterns, route)
            continue
        path = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: SAMPLE.get(m[1], "x1"), route)
        path = re.sub(r"<(?:(\w+):)?(\w+)>", lambda m: SAMPLE.get(m[2], "1" if m[1] == "int" else "x1"), path)
        found.append((pattern.name or route, "/" + path))
    return found


def test_every_address_of_the_site_refuses_a_post_without_a_csrf_token() -> None:
    """Django's CSRF middleware guards every view but those exempted: the site's own, allauth's
    (sign-up, sign-in, passwords, passkeys), the admin's, the language switcher. Walks the URL
    patterns, so a view added later is held to it too."""
    from django.urls import get_resolver

    code = create_room(Client())
    User.objects.create_user("ann", password="a long pass phrase 1")
    before = Game.objects.get(code=code).version
    addresses = [(name, path.format(code=code)) for name, path in every_address(get_resolver().url_patterns)]
    assert len(addresses) > 60 and any(name == "account_signup" for name, _ in addresses)
    for signed_in in (False, True):
        client = Client(enforce_csrf_checks=True)
        if signed_in:
            client.force_login(User.objects.get(username="ann"))
        for name, path in addresses:
            if name in CSRF_EXEMPT:
                continue
            response = client.post(path, {"name": "Eve", "username": "eve", "password": "x", "action": "delete"})
            assert response.status_code == 403, f"{name} {path}: {response.status_code}"
    assert Game.objects.get(code=code).version == before
    assert User.objects.filter(username="ann").exists()


@pytest.mark.parametrize(
    "elsewhere",
    ["https://evil.example/", "//evil.example/", "/\\evil.example/", "https:evil.example", "javascript:alert(1)"],
)
def test_no_next_address_sends_a_browser_to_another_site(settings: Any, elsewhere: str) -> None:
    """A link to the site's sign-in (or sign-up, sign-out, language switcher) that names another
    site to go to after it sends the browser to the site's own page instead: nobody can lend a
    phishing page the site's name."""
    from urllib.parse import urlsplit

    settings.ACCOUNT_RATE_LIMITS = False
    User.objects.create_user("ann", password="a long pass phrase 1")
    client = Client()
    answers = [
        client.post(f"/accounts/login/?next={elsewhere}", {"login": "ann", "password": "a long pass phrase 1"}),
        client.post("/i18n/language", {"language": "de", "next": elsewhere}),
        client.post("/i18n/language", {"language": "en"}, HTTP_REFERER=elsewhere),
        client.post("/accounts/logout/", {"next": elsewhere}),
        Client().post(
            f"/accounts/signup/?next={elsewhere}",
            {"username": "bea", "password1": "a long pass phrase 2", "password2": "a long pass phrase 2"},
        ),
    ]
    for response in answers:
        assert response.status_code == 302
        location = urlsplit(response["Location"])
        assert not location.scheme and not location.netloc and location.path.startswith("/"), response["Location"]
        assert "evil" not in response["Location"] and "\\" not in response["Location"]


def test_every_kind_of_answer_carries_the_headers_that_keep_other_sites_out() -> None:
    """No frame of another site's page holds any of the site's pages, the room's address stays out
    of other sites' logs, and no answer is read as another type than it says (docs/security.md)."""
    code = create_room(Client())
    answers = {
        path: Client().get(path)
        for path in ["/", f"/r/{code}/", f"/r/{code}/state.json", "/accounts/login/", "/no/such/page", "/admin/"]
    }
    answers["a refused form"] = Client(enforce_csrf_checks=True).post("/rooms/new")
    for what, response in answers.items():
        assert response["X-Frame-Options"] == "DENY", what
        assert "frame-ancestors 'none'" in response["Content-Security-Policy"], what
        assert response["Referrer-Policy"] == "same-origin", what
        assert response["X-Content-Type-Options"] == "nosniff", what
    # The one address framed: by the site's own room page without script (docs/protocol.md), no other.
    here = Client().get(f"/r/{code}/here")
    assert here["X-Frame-Options"] == "SAMEORIGIN" and "frame-ancestors 'self'" in here["Content-Security-Policy"]
    assert "frame-ancestors 'none'" not in here["Content-Security-Policy"]
    assert here["Referrer-Policy"] == "same-origin" and here["X-Content-Type-Options"] == "nosniff"


# --- cookies -------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["abcdefgh\x00ijklmnop", "abcdefgh/ijklmnop", "abcdefgh ijklmnop", "é" * 32], ids=repr)
def test_a_session_cookie_no_session_can_have_is_a_browser_without_one(key: str) -> None:
    # A cookie's quoted value may hold anything ("\000" is a NUL): looked up as it came, the key
    # failed every page and socket of that browser on PostgreSQL (a NUL cannot be in a query).
    assert import_module(site_settings.SESSION_ENGINE).SessionStore(session_key=key).session_key is None
    client = Client(raise_request_exception=False)
    client.cookies["sessionid"] = key
    assert client.get("/").status_code == 200
    assert client.get("/games").status_code == 200


@pytest.mark.asyncio
async def test_a_socket_with_a_session_cookie_no_session_can_have_watches_as_a_spectator() -> None:
    code = await sync_to_async(create_room)(Client())
    ws = await _connect(code, session='"abcdefgh\\000ijklmnop"')
    assert (await _until(ws, "you"))["seats"] == []
    await ws.disconnect()


def test_session_and_csrf_cookies_are_secure_and_http_only_in_production(settings: Any) -> None:
    # The production values themselves (from HTTPS=1) are checked in tests/test_deploy.py.
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    client = Client()
    client.get("/")
    client.post("/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"})
    session, csrf = client.cookies["sessionid"], client.cookies["csrftoken"]
    assert session["secure"] and session["httponly"] and session["samesite"] == "Lax"
    assert csrf["secure"]


# --- admin ---------------------------------------------------------------------------


def test_the_admin_is_for_staff_only() -> None:
    assert Client().get("/admin/").status_code == 302  # to the login page
    player = User.objects.create_user("player", password="a long pass phrase 1")
    client = Client()
    client.force_login(player)
    response = client.get("/admin/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert client.get("/admin/games/game/").status_code == 302
    staff = User.objects.create_user("ref", password="a long pass phrase 2", is_staff=True)
    client.force_login(staff)
    assert client.get("/admin/").status_code == 200


def test_staff_sign_in_where_everyone_does_which_asks_for_a_passkey_and_locks_guessers_out(settings: Any) -> None:
    """The admin's own form takes a password alone, even for an account with a passkey, and its
    session is signed in on the whole site: /admin/login/ sends everyone to the site's sign-in."""
    from allauth.mfa.models import Authenticator

    settings.AXES_FAILURE_LIMIT = 3
    staff = User.objects.create_user("ref", password="a long pass phrase 2", is_staff=True)
    for method in ("get", "post"):
        response = getattr(Client(), method)("/admin/login/?next=/admin/", {"username": "ref", "password": "x"})
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/?next=")
        assert "_auth_user_id" not in Client().session
    client = Client()
    signed_in = client.post("/accounts/login/?next=/admin/", {"login": "ref", "password": "a long pass phrase 2"})
    assert signed_in.status_code == 302 and signed_in["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200
    # With a passkey, the password alone is no session: the passkey is asked for.
    Authenticator.objects.create(
        user=staff, type=Authenticator.Type.WEBAUTHN, data={"name": "Laptop", "credential": {}}
    )
    second = Client()
    second.post("/accounts/login/?next=/admin/", {"login": "ref", "password": "a long pass phrase 2"})
    assert "_auth_user_id" not in second.session and second.get("/admin/").status_code == 302
    # Guessing there is locked out per address, as every password is.
    attacker = Client(REMOTE_ADDR="198.51.100.7")
    for guess in ("hunter2", "password", "letmein"):
        response = attacker.post("/accounts/login/?next=/admin/", {"login": "ref", "password": guess})
    assert response.status_code == 429


def test_a_signed_in_non_staff_account_does_not_get_into_the_admin() -> None:
    User.objects.create_user("player", password="a long pass phrase 1")
    client = Client()
    assert client.post("/accounts/login/", {"login": "player", "password": "a long pass phrase 1"}).status_code == 302
    assert client.get("/admin/").status_code == 302  # to its login, which refuses a signed-in non-staff account
    assert client.get("/admin/login/").status_code == 403


def test_the_admins_change_password_is_the_sites_form_which_checks_the_current_password_through_the_lockout() -> None:
    """Django's admin form checks the current password with ``check_password`` alone: a staff
    session left open could take any number of guesses at the staff account's password. The
    admin's *Change password* is the site's own form, which counts them as sign-ins do."""
    old, new = "a long pass phrase 2", "another long phrase 9"
    staff = User.objects.create_user("ref", password=old, is_staff=True)
    client = Client(REMOTE_ADDR="198.51.100.71")
    client.force_login(staff)
    assert "/admin/password_change/" in client.get("/admin/").content.decode()  # the admin's link
    form = {"new_password1": new, "new_password2": new}
    for method in ("get", "post"):
        response = getattr(client, method)("/admin/password_change/", {"old_password": old, **form})
        assert response.status_code == 302 and response["Location"] == "/accounts/password/change/"
    assert User.objects.get(username="ref").check_password(old), "Django's form changed it"
    guesses = {"password1": new, "password2": new}
    statuses = [
        client.post("/accounts/password/change/", {"oldpassword": f"guess {i}", **guesses}).status_code
        for i in range(5)
    ]
    assert statuses == [200] * 4 + [429]
    assert client.post("/accounts/password/change/", {"oldpassword": old, **guesses}).status_code == 429
    assert User.objects.get(username="ref").check_password(old)


# --- no secrets before the end -------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.usefixtures("no_frame_limit")  # without it a quick machine was refused mid-game
async def test_no_seed_or_controller_token_reaches_a_client_before_the_game_ends() -> None:
    ann, bob = Client(), Client()
    code = await sync_to_async(create_room)(ann)
    await sync_to_async(bob.post)(f"/r/{code}/join", {"name": "Bob"})
    game = await sync_to_async(Game.objects.get)(code=code)
    secrets = {
        "server seed": game.server_seed,
        "Ann's controller": await sync_to_async(controller_of)(ann),
        "Bob's controller": await sync_to_async(controller_of)(bob),
    }
    await sync_to_async(start)(ann, code)
    ann_ws = await _connect(code, ann.cookies["sessionid"].value)
    bob_ws = await _connect(code, bob.cookies["sessionid"].value)
    spectator = await _connect(code)
    received: list[str] = []
    state = await _until(ann_ws, "state")
    await _until(spectator, "state")

    def leaks(texts: list[str]) -> list[str]:
        return [name for name, secret in secrets.items() for text in texts if secret in text]

    turns = 0
    while state["status"] == "playing":
        actor = ann_ws if state["turn"]["seat"] == 0 else bob_ws
        frame: dict[str, Any] = {"version": state["version"], "id": f"a-{state['version']}"}
        if state["turn"]["rolls_used"] == 0:
            frame["type"] = "roll"
        else:
            option = max((o for o in state["options"] if o["legal"]), key=lambda o: o["points"])
            frame.update(type="score", box=option["box"], column=option["column"])
            turns += 1
        await actor.send_json_to(frame)
        while True:
            text = await spectator.receive_from(timeout=5)
            received.append(text)
            parsed = json.loads(text)
            if parsed["type"] == "state":
                state = parsed
                break
        if state["status"] == "playing":
            assert not leaks(received), leaks(received)
            pages = await sync_to_async(lambda: [c.get(f"/r/{code}/").content.decode() for c in (ann, bob)])()
            assert not leaks(
                pages + [await sync_to_async(lambda: Client().get(f"/r/{code}/state.json").content.decode())()]
            )
            assert (await sync_to_async(Client().get)(f"/r/{code}/log.json")).status_code == 409
    assert turns == 26 and state["status"] == "finished"
    # After the end the seed is revealed to everyone, so the dice can be checked.
    assert state["fairness"]["server_seed"] == game.server_seed
    assert not [name for name in leaks(received) if "controller" in name]
    for ws in (ann_ws, bob_ws, spectator):
        await ws.disconnect()


LOOKUPS_BY_CODE = [
    ("get", "/r/{}/"),
    ("get", "/r/{}/fairness"),
    ("get", "/r/{}/review.json"),
    ("get", "/r/{}/replay"),
    ("get", "/r/{}/log.json"),
    ("get", "/r/{}/state.json"),
    ("post", "/r/{}/join"),
    ("post", "/r/{}/spectator"),
    ("post", "/r/{}/rematch"),
    ("post", "/r/{}/roll"),
    ("post", "/r/{}/score"),
    ("get", "/rooms/find?code={}"),
    ("get", "/r/{}/here.css"),
    ("get", "/r/{}/here"),
    ("get", "/r/{}/feed.json"),
]


def test_the_miss_limit_test_covers_every_address_that_names_a_room_code() -> None:
    """A page added under /r/<code>/ is added to the lookups checked below."""
    from django.urls import get_resolver

    checked = {path.format("{code}").replace("<str:action>", "roll") for _, path in LOOKUPS_BY_CODE}
    named = {path for _, path in every_address(get_resolver().url_patterns) if "{code}" in path}
    # The socket's address over HTTP names the worker that answers, whatever the code: it looks nothing up.
    assert named - {"/ws/rooms/{code}/"} <= checked, named - checked


@pytest.mark.parametrize(("method", "path"), LOOKUPS_BY_CODE)
@pytest.mark.usefixtures("limit_clock")
def test_every_lookup_by_room_code_counts_against_the_miss_limit(settings: Any, method: str, path: str) -> None:
    settings.RATE_LIMIT_ROOM_MISS = "3/60"
    code = create_room(Client())
    guesser = Client(REMOTE_ADDR="10.0.1.1")
    data = {"name": "Eve", "version": "1", "action_id": "a"} if method == "post" else None
    statuses = [getattr(guesser, method)(path.format(f"guess{i:05d}"), data).status_code for i in range(4)]
    assert statuses == [404, 404, 404, 429]
    # Over the limit the right code is refused too, on this URL and on the room page.
    assert getattr(guesser, method)(path.format(code), data).status_code == 429
    assert guesser.get(f"/r/{code}/").status_code == 429


@pytest.mark.usefixtures("limit_clock")
def test_a_player_types_their_own_rooms_code_on_the_home_page_over_their_addresss_miss_limit(settings: Any) -> None:
    """Someone else behind the same router guessing codes keeps no player out of their own game:
    not on its room page, nor typing its code (or pasting its link) on the home page."""
    settings.RATE_LIMIT_ROOM_MISS = "3/60"
    player = Client(REMOTE_ADDR="10.0.9.9")
    code = create_room(player, "Ann")
    guesser = Client(REMOTE_ADDR="10.0.9.9")
    assert [guesser.get(f"/r/guess{i:05d}/").status_code for i in range(4)] == [404, 404, 404, 429]
    assert player.get(f"/r/{code}/").status_code == 200
    response = player.get("/rooms/find", {"code": code})
    assert response.status_code == 302 and response["Location"] == f"/r/{code}/"
    link = player.get("/rooms/find", {"code": f"http://testserver/r/{code}/"})
    assert link.status_code == 302 and link["Location"] == f"/r/{code}/"
    # Whoever holds no seat there is still over the limit, with the right code too.
    assert guesser.get("/rooms/find", {"code": code}).status_code == 429
    assert player.get("/rooms/find", {"code": "guess99999"}).status_code == 429


# --- the Origin check compares scheme, host and port; a wildcard host never opens it ------


def _scope(origin: str | None, host: str | None, scheme: str = "ws", proto: str | None = None) -> dict[str, Any]:
    headers = [(b"origin", origin.encode())] if origin is not None else []
    if host is not None:
        headers.append((b"host", host.encode()))
    if proto is not None:
        headers.append((b"x-forwarded-proto", proto.encode()))
    return {"type": "websocket", "scheme": scheme, "headers": headers}


@pytest.mark.parametrize(
    ("origin", "host", "scheme", "proto", "allowed"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000", "ws", None, True),
        ("http://127.0.0.1:9000", "127.0.0.1:8000", "ws", None, False),  # another port
        ("https://127.0.0.1:8000", "127.0.0.1:8000", "ws", None, False),  # another scheme
        ("http://127.0.0.1", "127.0.0.1:8000", "ws", None, False),
        ("https://127.0.0.1", "127.0.0.1", "wss", None, True),
        ("https://yahtzee.example.org", "yahtzee.example.org", "ws", "https", True),  # TLS ends at the proxy
        ("http://yahtzee.example.org", "yahtzee.example.org", "ws", "https", False),
        ("http://evil.example", "evil.example", "ws", None, False),  # a host that is not allowed
        ("http://evil.example", "127.0.0.1:8000", "ws", None, False),
        ("null", "127.0.0.1:8000", "ws", None, False),
        (None, "127.0.0.1:8000", "ws", None, False),
        ("https://app.example.org", "10.0.0.5:8000", "ws", None, True),  # listed in CSRF_TRUSTED_ORIGINS
    ],
)
def test_the_origin_check_compares_scheme_host_and_port(
    settings: Any, origin: str | None, host: str, scheme: str, proto: str | None, allowed: bool
) -> None:
    from games.realtime.origin import origin_allowed

    settings.ALLOWED_HOSTS = ["127.0.0.1", "yahtzee.example.org"]
    settings.CSRF_TRUSTED_ORIGINS = ["https://app.example.org"]
    settings.BEHIND_PROXY = True
    assert origin_allowed(_scope(origin, host, scheme, proto)) is allowed


def test_the_hosts_port_is_read_only_from_ascii_digits_whatever_split_it(monkeypatch: Any, settings: Any) -> None:
    """Django's host check lets only ASCII digits through as a port today; the Origin check does not
    lean on it: a port str.isdigit() takes and int() refuses is no port, and the handshake refused."""
    from games.realtime import origin

    settings.ALLOWED_HOSTS = ["localhost"]
    monkeypatch.setattr(origin, "split_domain_port", lambda host: ("localhost", "\u00b2"))
    assert origin.origin_allowed(_scope("http://localhost", "localhost:\u00b2")) is False
    monkeypatch.setattr(origin, "split_domain_port", lambda host: ("localhost", "\u0668\u0660"))  # ٨٠
    assert origin.origin_allowed(_scope("http://localhost:80", "localhost")) is False


@pytest.mark.asyncio
@pytest.mark.parametrize("origin", [b"http://evil.example", b"null", None], ids=str)
async def test_allowed_hosts_wildcard_does_not_turn_the_origin_check_off(settings: Any, origin: bytes | None) -> None:
    settings.ALLOWED_HOSTS = ["*"]
    code = await sync_to_async(create_room)(Client())
    headers = [(b"host", b"yahtzee.example.org")] + ([(b"origin", origin)] if origin is not None else [])
    ws = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=headers)
    connected, _ = await ws.connect()
    assert not connected
    await ws.disconnect()
    same = [(b"host", b"yahtzee.example.org"), (b"origin", b"http://yahtzee.example.org")]
    ws = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=same)
    assert (await ws.connect())[0]
    await ws.disconnect()


def test_wrong_passwords_for_a_name_from_many_addresses_do_not_lock_its_owner_out(settings: Any) -> None:
    """Five strangers at five addresses fail on a player's name; the player signs in from a sixth."""
    from yahtzee import settings as project

    # The project's own sign-in limits (tests elsewhere turn allauth's off).
    settings.ACCOUNT_RATE_LIMITS = getattr(project, "ACCOUNT_RATE_LIMITS", {})
    clear_cache()
    User.objects.create_user("owner", password="a long pass phrase 3")
    for i in range(5):
        stranger = Client(REMOTE_ADDR=f"198.51.100.{20 + i}")
        response = stranger.post("/accounts/login/", {"login": "owner", "password": f"guess {i}"})
        assert response.status_code == 200 and "_auth_user_id" not in stranger.session
    owner = Client(REMOTE_ADDR="198.51.100.99")
    response = owner.post("/accounts/login/", {"login": "owner", "password": "a long pass phrase 3"})
    assert response.status_code == 302 and owner.session["_auth_user_id"] == str(User.objects.get(username="owner").pk)
    # One address failing five times is locked out, the right password included.
    guesser = Client(REMOTE_ADDR="198.51.100.50")
    for i in range(5):
        guesser.post("/accounts/login/", {"login": "owner", "password": f"guess {i}"})
    locked = guesser.post("/accounts/login/", {"login": "owner", "password": "a long pass phrase 3"})
    assert locked.status_code == 429 and "_auth_user_id" not in guesser.session


def test_a_sign_in_to_an_account_of_ones_own_does_not_wipe_the_addresss_guesses_at_another(settings: Any) -> None:
    settings.ACCOUNT_RATE_LIMITS = False  # axes alone: allauth's per-minute limit would stop this first
    clear_cache()
    User.objects.create_user("victim", password="the victims long pass 9")
    User.objects.create_user("mallory", password="mallorys long pass 1")
    attacker = Client(REMOTE_ADDR="198.51.100.66")
    for round_ in range(2):
        for i in range(2):
            assert (
                attacker.post("/accounts/login/", {"login": "victim", "password": f"guess {round_} {i}"}).status_code
                == 200
            )
        assert (
            attacker.post("/accounts/login/", {"login": "mallory", "password": "mallorys long pass 1"}).status_code
            == 302
        )
        attacker.post("/accounts/logout/")
    attacker.post("/accounts/login/", {"login": "victim", "password": "guess 2 0"})  # the fifth
    locked = attacker.post("/accounts/login/", {"login": "victim", "password": "the victims long pass 9"})
    assert locked.status_code == 429 and "_auth_user_id" not in attacker.session


def test_a_players_own_typos_are_forgiven_when_they_sign_in(settings: Any) -> None:
    settings.ACCOUNT_RATE_LIMITS = False
    clear_cache()
    User.objects.create_user("ana", password="anas long pass phrase")
    client = Client(REMOTE_ADDR="198.51.100.67")
    for round_ in range(3):  # four typos, then the right one: three times over, never locked out
        for i in range(4):
            client.post("/accounts/login/", {"login": "ANA" if i % 2 else "ana", "password": f"typo {round_} {i}"})
        assert client.post("/accounts/login/", {"login": "ana", "password": "anas long pass phrase"}).status_code == 302
        client.post("/accounts/logout/")


def test_wrong_passwords_from_the_addresses_of_one_ipv6_network_lock_the_network_out(settings: Any) -> None:
    """An IPv6 client may send from any address of its /64: moving to the next address must not
    give it five more guesses (django-axes counts what AXES_CLIENT_IP_CALLABLE names)."""
    settings.ACCOUNT_RATE_LIMITS = False  # axes alone
    clear_cache()
    User.objects.create_user("owner6", password="a long pass phrase 6")
    for i in range(5):
        Client(REMOTE_ADDR=f"2001:db8:5:6::{i + 1:x}").post(
            "/accounts/login/", {"login": "owner6", "password": f"g {i}"}
        )
    guesser = Client(REMOTE_ADDR="2001:db8:5:6::99")
    locked = guesser.post("/accounts/login/", {"login": "owner6", "password": "a long pass phrase 6"})
    assert locked.status_code == 429 and "_auth_user_id" not in guesser.session
    # Another network signs in.
    owner = Client(REMOTE_ADDR="2001:db8:5:7::1")
    assert owner.post("/accounts/login/", {"login": "owner6", "password": "a long pass phrase 6"}).status_code == 302

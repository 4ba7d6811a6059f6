"""games.realtime.limits: room creation, joins and room-code guesses limited per client and per
address, over the pages and the websocket alike, with a clear 429; the limiter's moving
windows in memory and in Redis, and its parts."""

from __future__ import annotations

import asyncio
import html
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.asgi import get_asgi_application
from django.test import Client, RequestFactory

from games.domain import protocol
from games.realtime.limits import Rate, client_ip, confirmation_mail_bucket, login_ip, scope_ip
from games.store.models import Game, Player
from tests.conftest import ManualClock
from tests.factories import create_room
from yahtzee.asgi import application

# The limiter's clock stands still in these tests (a slow machine cannot age a count away)
# unless a test moves it.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("limit_clock")]


ORIGIN = (b"origin", b"http://127.0.0.1")


def test_room_creation_is_limited_per_client_with_a_clear_429() -> None:
    ann = Client()
    for i in range(10):
        create_room(ann, f"Ann{i}")
    refused = ann.post("/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"})
    assert refused.status_code == 429
    assert "too many rooms" in refused.content.decode()
    assert int(refused["Retry-After"]) > 0
    as_json = ann.post(
        "/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"}, HTTP_ACCEPT="application/json"
    )
    assert as_json.status_code == 429 and as_json.json()["error"] == "rate_limited"
    assert Game.objects.count() == 10
    # Another browser at the same address is not held back by Ann.
    create_room(Client(), "Bob")


def test_a_429_says_the_wait_its_retry_after_gives(settings: Any, limit_clock: ManualClock) -> None:
    """The words of a refusal follow the wait its Retry-After gives (the limit's window left): the
    seconds under a minute, "a minute" for one, the minutes past it; and the JSON answer gives it."""
    settings.RATE_LIMIT_ROOM_CREATE = "1/60"
    ann = Client()
    create_room(ann, "Ann")
    form = {"name": "Ann", "ruleset": "official", "mode": "online"}

    def refused(**extra: Any) -> tuple[str, str]:
        answer = ann.post("/rooms/new", form, **extra)
        assert answer.status_code == 429
        if "HTTP_ACCEPT" in extra:
            assert answer.json()["retry_after"] == int(answer["Retry-After"])
            return answer["Retry-After"], answer.json()["message"]
        return answer["Retry-After"], html.unescape(answer.content.decode())

    wait, said = refused()
    assert wait == "60" and "Please wait a minute and try again." in said
    limit_clock.advance(30)
    wait, said = refused()
    assert wait == "30" and "Please wait 30 seconds and try again." in said
    limit_clock.advance(29.5)
    wait, said = refused(HTTP_ACCEPT="application/json")
    assert wait == "1"
    assert said == "You have created too many rooms in a short time. Please wait 1 second and try again."
    # A window an operator set longer: minutes, each begun counted.
    settings.RATE_LIMIT_ROOM_CREATE = "1/h"
    create_room(ann, "Ann")
    wait, said = refused()
    assert wait == "3600" and "Please wait 60 minutes and try again." in said
    limit_clock.advance(3600 - 90)
    wait, said = refused()
    assert wait == "90" and "Please wait 2 minutes and try again." in said


def test_create_forms_the_server_refused_do_not_count_as_rooms_created() -> None:
    """Only a room made counts: nine forms refused for a missing name (a page without script
    sends one) leave the browser its ten rooms a minute."""
    ann = Client()
    create_room(ann, "Ann")
    for _ in range(9):
        assert ann.post("/rooms/new", {"name": "", "ruleset": "official", "mode": "online"}).status_code == 400
    assert [create_room(ann, f"Ann{i}") for i in range(9)]
    assert ann.post("/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"}).status_code == 429
    assert Game.objects.count() == 10


def test_a_flood_of_refused_forms_is_still_bounded(settings: Any, limit_clock: ManualClock) -> None:
    """Refused posts count against their own limit, RATE_LIMIT_REFUSED_FORMS, over every form that
    makes something: past it each post of the browser is a 429 until the window moves on."""
    settings.RATE_LIMIT_REFUSED_FORMS = "5/60"
    eve = Client()
    create_room(eve, "Eve")  # a browser with a session, counted as itself
    refused = {"name": "", "ruleset": "official", "mode": "online"}
    assert [eve.post("/rooms/new", refused).status_code for _ in range(6)] == [400] * 5 + [429]
    code = create_room(Client(), "Host")
    answer = eve.post(f"/r/{code}/join", {"name": "Eve"})
    assert answer.status_code == 429 and int(answer["Retry-After"]) > 0
    assert "Too many requests." in answer.content.decode()
    limit_clock.advance(61)
    assert eve.post(f"/r/{code}/join", {"name": "Eve"}).status_code == 302
    # A client that drops its cookies meets its address's share, as for the other limits.
    settings.RATE_LIMIT_PER_IP = 2
    statuses = [Client().post("/rooms/new", refused).status_code for _ in range(11)]
    assert statuses == [400] * 10 + [429], statuses


def test_joins_refused_on_the_room_page_do_not_count_as_seats_taken(settings: Any) -> None:
    """A join refused for its name is said on the room page (a redirect, not a 4xx): it took no
    seat, so it leaves the browser its joins."""
    settings.RATE_LIMIT_ROOM_JOIN = "2/60"
    code = create_room(Client(), "Ann")
    bob = Client()
    for _ in range(2):
        assert bob.post(f"/r/{code}/join", {"name": "Ann"}).status_code == 302  # the name is taken
    assert not Player.objects.filter(game__code=code, name="Bob").exists()
    assert bob.post(f"/r/{code}/join", {"name": "Bob"}).status_code == 302
    assert Player.objects.filter(game__code=code, name="Bob").exists()


def test_joins_refused_on_the_room_page_count_as_refused_forms(settings: Any) -> None:
    settings.RATE_LIMIT_REFUSED_FORMS = "3/60"
    code = create_room(Client(), "Ann")
    bob = Client()
    statuses = [bob.post(f"/r/{code}/join", {"name": "Ann"}).status_code for _ in range(4)]
    assert statuses == [302] * 3 + [429], statuses


def test_rematches_refused_do_not_count_as_rooms_created(settings: Any) -> None:
    """A rematch asked for before the game is over is refused on the room page: it made no room."""
    settings.RATE_LIMIT_ROOM_CREATE = "2/60"
    ann = Client()
    code = create_room(ann, "Ann")
    assert ann.post(f"/r/{code}/rematch").status_code == 302  # refused: the game is not over
    assert Game.objects.count() == 1
    assert ann.post("/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"}).status_code == 302
    assert Game.objects.count() == 2


def test_a_rematch_counts_as_creating_a_room() -> None:
    ann = Client()
    codes = [create_room(ann, f"Ann{i}") for i in range(10)]
    refused = ann.post(f"/r/{codes[0]}/rematch", {})
    assert refused.status_code == 429 and "too many rooms" in refused.content.decode()


def test_joins_are_limited_per_client() -> None:
    codes = [create_room(Client(), f"Host{i}") for i in range(31)]
    bob = Client()
    statuses = [bob.post(f"/r/{code}/join", {"name": "Bob"}).status_code for code in codes]
    assert statuses == [302] * 30 + [429]


def test_a_client_dropping_its_cookies_still_meets_the_per_address_cap(settings: Any) -> None:
    settings.RATE_LIMIT_ROOM_CREATE = "2/60"
    settings.RATE_LIMIT_PER_IP = 3  # 6 a minute from one address
    statuses = [
        Client().post("/rooms/new", {"name": "Eve", "ruleset": "official", "mode": "online"}).status_code
        for _ in range(8)
    ]
    assert statuses == [302] * 6 + [429] * 2
    # From another address (X-Real-IP counts only behind a trusted proxy).
    other = {"REMOTE_ADDR": "10.0.0.9"}
    assert (
        Client(**other).post("/rooms/new", {"name": "Ed", "ruleset": "official", "mode": "online"}).status_code == 302
    )
    spoofed = Client(HTTP_X_REAL_IP="10.0.0.10")
    assert spoofed.post("/rooms/new", {"name": "Ed", "ruleset": "official", "mode": "online"}).status_code == 429
    settings.BEHIND_PROXY = True
    assert spoofed.post("/rooms/new", {"name": "Ed", "ruleset": "official", "mode": "online"}).status_code == 302


def test_guessing_room_codes_is_limited_per_address(settings: Any) -> None:
    settings.RATE_LIMIT_ROOM_MISS = "5/60"
    code = create_room(Client())
    guesser = Client()
    assert guesser.get(f"/r/{code}/").status_code == 200  # hits do not count
    assert [guesser.get(f"/r/guess{i:05d}/").status_code for i in range(6)] == [404] * 5 + [429]
    # Once over the limit even a right guess is refused for the rest of the window.
    assert guesser.get(f"/r/{code}/state.json").status_code == 429


async def _asgi_get(app: Any, path: str, ip: str) -> int:
    """One GET through Django's ASGI handler, as uvicorn hands it over (each request its own task)."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1")],
        "client": (ip, 40000),
        "server": ("127.0.0.1", 80),
    }
    sent: list[dict[str, Any]] = []
    body_given = False
    done = asyncio.Event()

    async def receive() -> dict[str, Any]:
        nonlocal body_given
        if not body_given:
            body_given = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    done.set()
    return int(next(m["status"] for m in sent if m["type"] == "http.response.start"))


@pytest.mark.asyncio
async def test_guesses_sent_all_at_once_are_held_to_the_miss_limit(settings: Any) -> None:
    """Requests sent together must not all pass a check made before any of them is counted: each
    takes its place in the count before its code is looked up (the async review.json would lose
    that race every time; the plain views in their threads, less regularly)."""
    settings.RATE_LIMIT_ROOM_MISS = "3/60"
    app = get_asgi_application()
    statuses = await asyncio.gather(*[_asgi_get(app, f"/r/guess{i:05d}/review.json", "10.0.9.9") for i in range(60)])
    # Each 404 tells the guesser a code is nobody's: at most the limit's three may.
    assert statuses.count(404) <= 3, statuses
    assert statuses.count(429) >= 57


async def _socket_opens(code: str, ip: str, headers: tuple[tuple[bytes, bytes], ...] = ()) -> bool:
    """Whether the room's socket opens and is told the room (one refused as for an unknown room is
    accepted and closed at once with 4404)."""
    ws = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=[ORIGIN, *headers])
    ws.scope["client"] = (ip, 50000)
    connected, _ = await ws.connect()
    first = await ws.receive_output(timeout=5) if connected else None
    await ws.disconnect()
    return first is not None and first["type"] == "websocket.send"


@pytest.mark.asyncio
async def test_guessing_room_codes_over_the_websocket_counts_against_the_same_limit(settings: Any) -> None:
    settings.RATE_LIMIT_ROOM_MISS = "5/60"
    code = await sync_to_async(create_room)(Client())
    assert await _socket_opens(code, "10.0.0.7")  # hits do not count
    assert [await _socket_opens(f"guess{i:05d}", "10.0.0.7") for i in range(5)] == [False] * 5
    # Over the limit even the right code is refused, over the socket and over HTTP alike.
    assert not await _socket_opens(code, "10.0.0.7")
    guesser = Client(REMOTE_ADDR="10.0.0.7")
    assert (await sync_to_async(guesser.get)(f"/r/{code}/state.json")).status_code == 429
    # Another address is not affected.
    assert await _socket_opens(code, "10.0.0.8")


@pytest.mark.asyncio
async def test_a_socket_over_the_miss_limit_is_closed_with_4008_not_as_an_unknown_room(settings: Any) -> None:
    """Accepted only to be closed with 4008, nothing sent: 4404 would tell the page its room is
    gone, and the room may exist."""
    settings.RATE_LIMIT_ROOM_MISS = "1/60"
    code = await sync_to_async(create_room)(Client())
    assert not await _socket_opens("guess00000", "10.0.0.11")
    ws = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=[ORIGIN])
    ws.scope["client"] = ("10.0.0.11", 50000)
    connected, _ = await ws.connect()
    assert connected
    assert await ws.receive_output(timeout=5) == {"type": "websocket.close", "code": protocol.CLOSE_RATE_LIMITED}
    await ws.disconnect()


@pytest.mark.asyncio
async def test_page_guesses_count_against_the_websocket_too(settings: Any) -> None:
    settings.RATE_LIMIT_ROOM_MISS = "3/60"
    code = await sync_to_async(create_room)(Client())
    guesser = Client(REMOTE_ADDR="10.0.0.9")
    for i in range(3):
        assert (await sync_to_async(guesser.get)(f"/r/guess{i:05d}/")).status_code == 404
    assert not await _socket_opens(code, "10.0.0.9")


# What Chromium and Firefox send with an <img src> that another site's page points at the site.
CROSS_SITE_IMAGE = {
    "HTTP_SEC_FETCH_SITE": "cross-site",
    "HTTP_SEC_FETCH_MODE": "no-cors",
    "HTTP_SEC_FETCH_DEST": "image",
}
CROSS_SITE_LINK = {
    "HTTP_SEC_FETCH_SITE": "cross-site",
    "HTTP_SEC_FETCH_MODE": "navigate",
    "HTTP_SEC_FETCH_DEST": "document",
}
OWN_NAVIGATION = {
    "HTTP_SEC_FETCH_SITE": "same-origin",
    "HTTP_SEC_FETCH_MODE": "navigate",
    "HTTP_SEC_FETCH_DEST": "document",
}


def test_another_sites_page_cannot_lock_a_player_out_of_their_own_room(settings: Any) -> None:
    """A page anywhere on the web could point images at /r/<nonsense>/: the player's browser fetches
    them from the player's address, which then could open no room at all, its own game included
    (the whole school behind its router too). Such requests are refused and not counted."""
    settings.RATE_LIMIT_ROOM_MISS = "5/60"
    player = Client(REMOTE_ADDR="10.0.7.7")
    code = create_room(player, "Ann")
    statuses = {player.get(f"/r/zzzz{i:06d}/", **CROSS_SITE_IMAGE).status_code for i in range(6)}
    assert statuses == {403}
    assert player.get(f"/r/{code}/state.json", **CROSS_SITE_IMAGE).status_code == 403
    assert player.get(f"/r/{code}/", **OWN_NAVIGATION).status_code == 200
    # A link to a room followed from another site (a chat app's page) opens it.
    assert Client(REMOTE_ADDR="10.0.7.8").get(f"/r/{code}/", **CROSS_SITE_LINK).status_code == 200


def test_a_browser_with_a_seat_opens_its_room_over_its_addresss_miss_limit(settings: Any) -> None:
    """Someone else behind the same address guessing codes (or a page of another site in a browser
    too old to say so) must not keep a player out of their own game: a browser with a seat in the
    room knows its code. Everyone else at the address is still refused, right codes included."""
    settings.RATE_LIMIT_ROOM_MISS = "3/60"
    player = Client(REMOTE_ADDR="10.0.7.9")
    code = create_room(player, "Ann")
    guesser = Client(REMOTE_ADDR="10.0.7.9")
    assert [guesser.get(f"/r/guess{i:05d}/").status_code for i in range(4)] == [404, 404, 404, 429]
    assert guesser.get(f"/r/{code}/").status_code == 429
    assert player.get(f"/r/{code}/").status_code == 200
    assert player.get(f"/r/{code}/state.json").json()["you"]["seats"] == [0]
    assert player.get("/r/guess00009/").status_code == 429  # only its own room


@pytest.mark.asyncio
async def test_a_browser_with_a_seat_connects_to_its_room_over_its_addresss_miss_limit(settings: Any) -> None:
    settings.RATE_LIMIT_ROOM_MISS = "3/60"
    player = Client(REMOTE_ADDR="10.0.7.10")
    code = await sync_to_async(create_room)(player, "Ann")
    assert [await _socket_opens(f"guess{i:05d}", "10.0.7.10") for i in range(3)] == [False] * 3
    assert not await _socket_opens(code, "10.0.7.10")  # a stranger at the address
    cookie = (b"cookie", f"sessionid={player.cookies['sessionid'].value}".encode())
    assert await _socket_opens(code, "10.0.7.10", (cookie,))


ORIGIN_EVIL = (b"origin", b"https://evil.example")


async def _handshake(code: str, ip: str, origin: tuple[bytes, bytes]) -> tuple[bool, str | None]:
    ws = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=[origin])
    ws.scope["client"] = (ip, 50000)
    connected, _ = await ws.connect()
    first = await ws.receive_from(timeout=5) if connected else None
    await ws.disconnect()
    return connected, first


@pytest.mark.asyncio
async def test_sockets_refused_for_their_origin_do_not_use_up_the_players_connection_budget(settings: Any) -> None:
    """Another site's page opening sockets in a loop (each refused for its origin) must not leave
    the player's own room page, at the same address, unable to connect: the Origin is checked
    before the address's new sockets are counted (WS_CONNECT_RATE)."""
    settings.WS_CONNECT_RATE = "5/10"
    code = await sync_to_async(create_room)(Client())
    for _ in range(6):
        connected, _ = await _handshake(code, "10.0.8.8", ORIGIN_EVIL)
        assert not connected
    connected, first = await _handshake(code, "10.0.8.8", ORIGIN)
    assert connected and first is not None and "too_many_sockets" not in first, first


def test_the_address_behind_the_proxy_is_the_one_it_names(settings: Any) -> None:
    scope = {"client": ("172.18.0.5", 40000), "headers": [(b"x-real-ip", b"203.0.113.4")]}
    assert scope_ip(scope) == "172.18.0.5"  # not behind a proxy: the header is anyone's to send
    settings.BEHIND_PROXY = True
    assert scope_ip(scope) == "203.0.113.4"
    assert scope_ip({"client": None, "headers": []}) == "unknown"


def test_limits_can_be_turned_off_for_load_generators(settings: Any) -> None:
    settings.RATE_LIMITS = False
    ann = Client()
    for i in range(12):
        create_room(ann, f"Ann{i}")


@pytest.mark.parametrize(
    ("text", "rate"),
    [
        ("10/60", Rate(10, 60)),
        ("3", Rate(3, 60)),
        (" 5/1 ", Rate(5, 1)),
        ("60/m", Rate(60, 60)),  # allauth's spelling, as its own limits in the settings are written
        ("3/H", Rate(3, 3600)),
        ("5/s", Rate(5, 1)),
        ("2/d", Rate(2, 86400)),
        ("0", None),
        ("", None),
        ("off", None),
        ("0/60", None),
        ("4/0", None),
    ],
)
def test_a_rate_setting_reads_as_count_per_seconds_or_no_limit(text: str, rate: Rate | None) -> None:
    assert Rate.parse(text) == rate


@pytest.mark.parametrize("text", ["60/m/ip", "ten/60", "60/minute", "-5/60", "5/-1"])
def test_a_rate_setting_the_limiter_cannot_read_is_refused_not_taken_for_no_limit(text: str) -> None:
    with pytest.raises(ValueError, match="COUNT/SECONDS"):
        Rate.parse(text)


def test_a_page_request_counts_against_its_peer_unless_a_trusted_proxy_names_the_client(settings: Any) -> None:
    request = RequestFactory().get("/", REMOTE_ADDR="172.18.0.5", HTTP_X_REAL_IP="203.0.113.4")
    assert client_ip(request) == "172.18.0.5"
    settings.BEHIND_PROXY = True
    assert client_ip(request) == "203.0.113.4"
    assert client_ip(RequestFactory().get("/", REMOTE_ADDR="172.18.0.5", HTTP_X_REAL_IP=" ")) == "172.18.0.5"


def test_the_admin_lockout_gets_an_ip_address_or_nothing() -> None:
    assert login_ip(RequestFactory().get("/", REMOTE_ADDR="203.0.113.9")) == "203.0.113.9"
    assert login_ip(RequestFactory().get("/", REMOTE_ADDR="2001:db8::1")) == "2001:db8::"  # its /64
    assert login_ip(RequestFactory().get("/", REMOTE_ADDR="")) is None


@pytest.mark.parametrize(
    ("peer", "counted"),
    [
        ("203.0.113.9", "203.0.113.9"),
        ("2001:db8:1:2::1", "2001:db8:1:2::"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::"),
        ("2001:db8:1:3::1", "2001:db8:1:3::"),
        ("::ffff:203.0.113.9", "203.0.113.9"),  # an IPv4 client of a dual-stack socket
        ("unknown", "unknown"),
    ],
)
def test_an_ipv6_client_is_counted_by_its_64(peer: str, counted: str) -> None:
    assert client_ip(RequestFactory().get("/", REMOTE_ADDR=peer)) == counted
    assert scope_ip({"client": (peer, 40000), "headers": []}) == counted


def test_the_addresses_of_one_ipv6_network_share_one_guessing_limit(settings: Any) -> None:
    """An IPv6 client is handed a whole /64 and picks any source address in it: counted per single
    address, one machine would guess without end by moving to the next."""
    settings.RATE_LIMIT_ROOM_MISS = "3/60"
    for i in range(3):
        assert Client(REMOTE_ADDR=f"2001:db8:1:2::{i + 1:x}").get(f"/r/guess{i:05d}/").status_code == 404
    # The same machine, the next address of its network.
    assert Client(REMOTE_ADDR="2001:db8:1:2::99").get("/r/guess00099/").status_code == 429
    # Another network is someone else.
    assert Client(REMOTE_ADDR="2001:db8:1:3::1").get("/r/guess00100/").status_code == 404


def test_guessing_codes_across_a_minute_boundary_is_held_to_the_limit(limit_clock: ManualClock) -> None:
    """60 misses a minute: in any 60 s, not 60 before a window's end and 60 more after it."""
    limit_clock.now = 999_959.0  # a second before a multiple of 60 s, where fixed windows split
    guesser = Client(REMOTE_ADDR="10.0.2.1")
    assert [guesser.get(f"/r/early{i:05d}/").status_code for i in range(60)] == [404] * 60
    limit_clock.advance(2.0)
    assert [guesser.get(f"/r/later{i:05d}/").status_code for i in range(60)] == [429] * 60
    limit_clock.advance(58.01)  # the first misses are more than a minute old
    assert guesser.get("/r/again00000/").status_code == 404


def test_without_redis_answering_pages_are_served_and_still_limited(settings: Any) -> None:
    """The limits' Redis gone: no page fails for it, and each worker still holds the limit itself."""
    settings.RATE_LIMIT_REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    ann = Client()
    for i in range(10):
        create_room(ann, f"Ann{i}")
    refused = ann.post("/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"})
    assert refused.status_code == 429 and Game.objects.count() == 10
    assert Client().get("/r/guess00000/").status_code == 404


@pytest.mark.parametrize(
    "variant",
    ["victim@gmail.com", "v.ictim@gmail.com", "vic.tim@gmail.com", "V.I.C.T.I.M+x@Gmail.com", "victim@googlemail.com"],
)
def test_every_spelling_gmail_delivers_to_one_mailbox_counts_as_that_mailbox(variant: str) -> None:
    """Gmail ignores the dots of a name and takes googlemail.com for gmail.com: counted apart, each
    spelling would get its own confirmation links a day, and a stranger's inbox could be flooded."""
    assert confirmation_mail_bucket(variant) == confirmation_mail_bucket("victim@gmail.com")


def test_the_dots_of_a_name_elsewhere_are_its_own_mailbox() -> None:
    assert confirmation_mail_bucket("a.b@example.org") != confirmation_mail_bucket("ab@example.org")
    assert confirmation_mail_bucket("A.B+x@Example.org") == confirmation_mail_bucket("a.b@example.org")


async def _closed_with(code: str, ip: str) -> int | None:
    """The close code a socket to room ``code`` from ``ip`` is refused with (None: it was told the room)."""
    ws = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=[ORIGIN])
    ws.scope["client"] = (ip, 50000)
    connected, _ = await ws.connect()
    first = await ws.receive_output(timeout=5) if connected else None
    await ws.disconnect()
    if first is None:
        return None
    return first["code"] if first["type"] == "websocket.close" else None


@pytest.mark.asyncio
async def test_a_spectator_over_its_addresss_miss_limit_is_told_to_wait_not_that_the_room_is_gone(
    settings: Any,
) -> None:
    """A page told 4404 says the room no longer exists and stops reconnecting: a room that exists,
    refused because others at the address guessed codes, is refused as rate limited (4008), which
    the page tries again after. Over the limit an unknown code is refused the same way, so the
    close code tells a guesser nothing."""
    settings.RATE_LIMIT_ROOM_MISS = "3/60"
    code = await sync_to_async(create_room)(Client(REMOTE_ADDR="10.0.7.11"), "Ann")
    assert [await _closed_with(f"guess{i:05d}", "10.0.7.11") for i in range(3)] == [4404] * 3
    assert await _closed_with(code, "10.0.7.11") == 4008
    assert await _closed_with("guess00009", "10.0.7.11") == 4008

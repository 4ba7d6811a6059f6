"""The socket-side limits hold per browser on moving windows: more sockets, a reconnect or a
window's boundary give a client no more chat messages, reactions or hints than the limit."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from channels.testing import WebsocketCommunicator

from games.services import coach
from tests.conftest import ManualClock
from tests.realtime.consumers.helpers import connect, first_frames, make_room
from yahtzee.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


ANSWER = {"chat": "chat", "react": "reaction", "hint": "hint"}


def answers(frame: dict[str, Any], got: dict[str, Any]) -> bool:
    if got["type"] != ANSWER[frame["type"]]:
        return False
    return got["type"] != "chat" or got["message"]["text"] == frame["text"]


async def reply(ws: WebsocketCommunicator, frame: dict[str, Any], others: list[WebsocketCommunicator]) -> str:
    """Send ``frame`` (with an id): what answers it, its own kind or the error's code.

    A chat message or a reaction let through goes to every socket in the room: it is read
    off ``others`` too, so that their next answer is their own.
    """
    await ws.send_json_to(frame)
    while True:
        got = json.loads(await ws.receive_from(timeout=5))
        if got["type"] == "error" and got.get("id") == frame["id"]:
            return str(got["code"])
        if answers(frame, got):
            break
    if got["type"] != "hint":
        for other in (o for o in others if o is not ws):
            while not answers(frame, json.loads(await other.receive_from(timeout=5))):
                pass
    return str(got["type"])


async def sockets_of(code: str, session: str, count: int) -> list[WebsocketCommunicator]:
    sockets = [await connect(code, session) for _ in range(count)]
    for ws in sockets:
        await first_frames(ws)
    return sockets


async def test_a_browser_s_chat_limit_holds_across_its_sockets_and_after_a_reconnect(
    limit_clock: ManualClock,
) -> None:
    code, sessions = await make_room(2)
    sockets = await sockets_of(code, sessions[0], 3)
    got = [
        await reply(sockets[n % 3], {"type": "chat", "text": f"m{n}", "id": f"c{n}"}, sockets)
        for n in range(7)  # two or three from each socket, each under a socket's own 5
    ]
    assert got == ["chat"] * 5 + ["rate_limited"] * 2
    for ws in sockets:
        await ws.disconnect()
    again = (await sockets_of(code, sessions[0], 1))[0]  # a reconnect starts no new allowance
    other = (await sockets_of(code, sessions[1], 1))[0]
    assert await reply(again, {"type": "chat", "text": "back again", "id": "c7"}, [other]) == "rate_limited"
    # The other player's allowance is their own.
    assert await reply(other, {"type": "chat", "text": "my turn to talk", "id": "o1"}, [again]) == "chat"
    limit_clock.advance(10.01)  # the first message is more than 10 s old: one more may go
    assert await reply(again, {"type": "chat", "text": "later", "id": "c8"}, [other]) == "chat"
    for ws in (again, other):
        await ws.disconnect()


async def test_a_browser_s_reactions_are_limited_across_its_sockets(limit_clock: ManualClock) -> None:
    code, sessions = await make_room(2)
    sockets = await sockets_of(code, sessions[1], 2)
    got = [await reply(sockets[n % 2], {"type": "react", "reaction": "🎲", "id": f"r{n}"}, sockets) for n in range(6)]
    assert got == ["reaction"] * 5 + ["rate_limited"]
    for ws in sockets:
        await ws.disconnect()


async def test_hints_stay_at_ten_in_any_ten_seconds_across_a_window_boundary_and_sockets(
    settings: Any, limit_clock: ManualClock
) -> None:
    settings.WS_HINT_RATE = "10/10"
    limit_clock.now = 1_000_009.5  # half a second before a multiple of 10 s, where fixed windows split
    code, sessions = await make_room(1)
    sockets = await sockets_of(code, sessions[0], 2)
    answer = {"type": "hint", "version": 1, "best": []}

    async def hints(first: int, count: int) -> list[str]:
        return [
            await reply(sockets[n % 2], {"type": "hint", "version": 1, "id": f"h{n}"}, sockets)
            for n in range(first, first + count)
        ]

    with mock.patch.object(coach, "hint_for", return_value=answer) as hint_for:
        assert await hints(0, 10) == ["hint"] * 10
        limit_clock.advance(1.0)  # past the boundary: still 10 in the last 10 s
        assert await hints(10, 10) == ["rate_limited"] * 10
        limit_clock.advance(9.01)  # the first ten are more than 10 s old
        assert await hints(20, 10) == ["hint"] * 10
        assert await hints(30, 1) == ["rate_limited"]
    assert hint_for.call_count == 20
    for ws in sockets:
        await ws.disconnect()


async def from_address(code: str, session: str, address: str) -> WebsocketCommunicator:
    ws = WebsocketCommunicator(
        application,
        f"/ws/rooms/{code}/",
        headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", f"sessionid={session}".encode())],
    )
    ws.scope["client"] = (address, 50000)
    assert (await ws.connect())[0]
    await first_frames(ws)
    return ws


async def test_fresh_sessions_from_one_address_share_its_cap(settings: Any, limit_clock: ManualClock) -> None:
    # A session costs nothing to get: a client taking a new one every five messages still meets
    # its address's cap, RATE_LIMIT_PER_IP times the limit, as the pages do.
    settings.RATE_LIMIT_PER_IP = 2
    code, sessions = await make_room(4)
    sockets = [await from_address(code, session, "203.0.113.7") for session in sessions[:3]]
    sockets.append(await from_address(code, sessions[3], "198.51.100.9"))
    got = [
        await reply(ws, {"type": "chat", "text": f"{n}-{m}", "id": f"c{n}-{m}"}, sockets)
        for n, ws in enumerate(sockets[:3])
        for m in range(5)
    ]
    assert got == ["chat"] * 10 + ["rate_limited"] * 5
    # Another address has its own.
    assert await reply(sockets[3], {"type": "chat", "text": "hi", "id": "o"}, sockets) == "chat"
    for ws in sockets:
        await ws.disconnect()

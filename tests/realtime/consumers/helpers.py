"""What the websocket tests share: a room made through the pages, a connected socket, its frames."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from games.realtime.transport import current
from games.store.models import Game
from tests.waiting import wait_until
from yahtzee.asgi import application


@sync_to_async
def make_room(players: int = 2, start: bool = True) -> tuple[str, list[str]]:
    """A room made through the pages; returns its code and each browser's session cookie."""
    clients = [Client() for _ in range(players)]
    response = clients[0].post("/rooms/new", {"name": "P0", "ruleset": "official", "mode": "online", "hints": "on"})
    code = response["Location"].strip("/").split("/")[-1]
    for i, client in enumerate(clients[1:], start=1):
        client.post(f"/r/{code}/join", {"name": f"P{i}"})
    if start:
        game = Game.objects.get(code=code)
        clients[0].post(f"/r/{code}/start", {"version": game.version, "action_id": "start"})
    return code, [c.cookies["sessionid"].value for c in clients]


async def connect(code: str, session: str | None = None, origin: bytes = b"http://127.0.0.1") -> WebsocketCommunicator:
    headers = [(b"origin", origin)]
    if session:
        headers.append((b"cookie", f"sessionid={session}".encode()))
    communicator = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def frames_until(ws: WebsocketCommunicator, kind: str, timeout: float = 3) -> list[dict[str, Any]]:
    seen = []
    while True:
        frame = json.loads(await ws.receive_from(timeout=timeout))
        seen.append(frame)
        if frame["type"] == kind:
            return seen


async def next_frame(ws: WebsocketCommunicator, timeout: float = 3) -> dict[str, Any]:
    """The next frame other than the room's presence.

    The room's presence goes to every socket PRESENCE_COALESCE seconds after any socket arrives
    or leaves, the test's own included (games.realtime.sockets.presence_changed): on a loaded
    machine that is after the test has sent its next frame, so it can come before the answer.
    """
    while True:
        frame = json.loads(await ws.receive_from(timeout=timeout))
        if frame["type"] != "presence":
            return frame


async def first_frames(ws: WebsocketCommunicator) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    you = json.loads(await ws.receive_from())
    state = json.loads(await ws.receive_from())
    presence = json.loads(await ws.receive_from())
    return you, state, presence


async def frames_within(ws: WebsocketCommunicator, seconds: float) -> list[dict[str, Any]]:
    """Every frame that arrives until ``seconds`` pass without one (a quiet spell: nothing more came)."""
    seen = []
    while not await ws.receive_nothing(timeout=seconds):
        seen.append(json.loads(await ws.receive_from()))
    return seen


async def frames_before_pong(ws: WebsocketCommunicator) -> list[dict[str, Any]]:
    """The frames queued for ``ws`` before its answer to a ping sent now.

    A socket handles its frames one after the other and sends everything through one queue, so
    the pong comes after every frame its earlier frames caused, and after everything the room
    published before: no quiet spell is needed to know that those are all in.
    """
    await ws.send_json_to({"type": "ping"})
    return (await frames_until(ws, "pong"))[:-1]


def presence_pending() -> bool:
    """Whether a presence frame is still due, or being read, on this event loop (games.realtime.sockets)."""
    tasks = current().background(asyncio.get_running_loop())
    return any(getattr(task.get_coro(), "__qualname__", "") == "send_presence" for task in tasks)


async def presence_settled() -> None:
    """Wait until every presence frame due has been handed to the sockets (presence is coalesced:
    sent PRESENCE_COALESCE seconds after a change, and a change while one is read asks for another)."""
    await wait_until(lambda: not presence_pending(), "the presence frames due")

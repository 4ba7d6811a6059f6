"""What the websocket tests share: a room made through the pages, a connected socket, its frames."""

from __future__ import annotations

import json
from typing import Any

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from games.store.models import Game
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


async def first_frames(ws: WebsocketCommunicator) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    you = json.loads(await ws.receive_from())
    state = json.loads(await ws.receive_from())
    presence = json.loads(await ws.receive_from())
    return you, state, presence

"""yahtzee/backlog.py: a websocket whose unsent data passes WS_SEND_BACKLOG is closed (4009), then cut."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import pytest

from yahtzee.backlog import CLOSE_TOO_SLOW, BoundedSend

pytestmark = pytest.mark.asyncio


class Transport:
    """Twisted's transport as far as the middleware looks: its write buffer, and a way to cut it."""

    dataBuffer = b""  # declared on the class, as Twisted's FileDescriptor does
    offset = 0

    def __init__(self) -> None:
        self._tempDataLen = 0
        self.disconnected = False
        self.cut = False

    def abortConnection(self) -> None:
        self.cut = self.disconnected = True


class Protocol:
    def __init__(self) -> None:
        self.transport = Transport()
        self.replies: list[dict[str, Any]] = []


async def handle_reply(protocol: Protocol, message: dict[str, Any]) -> None:
    """Daphne's Server.handle_reply: what Daphne hands an application as ``send``."""
    protocol.replies.append(message)


async def run(frames: int, unread_after: int, settings: Any) -> Protocol:
    settings.WS_SEND_BACKLOG = 1000
    settings.WS_SEND_GRACE = 0.05
    protocol = Protocol()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "websocket.accept"})
        for n in range(frames):
            if n == unread_after:  # the client stops reading: the buffer fills
                protocol.transport._tempDataLen = 5000
            await send({"type": "websocket.send", "text": f"frame {n}"})

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    await BoundedSend(app)(
        {"type": "websocket", "path": "/ws/rooms/x/"}, receive, functools.partial(handle_reply, protocol)
    )
    return protocol


async def test_a_socket_too_far_behind_is_closed_with_4009_and_nothing_more_is_queued(settings: Any) -> None:
    protocol = await run(frames=10, unread_after=3, settings=settings)
    kinds = [(m["type"], m.get("text") or m.get("code")) for m in protocol.replies]
    assert kinds == [
        ("websocket.accept", None),
        ("websocket.send", "frame 0"),
        ("websocket.send", "frame 1"),
        ("websocket.send", "frame 2"),
        ("websocket.close", CLOSE_TOO_SLOW),
    ]
    assert not protocol.transport.cut
    await asyncio.sleep(0.1)  # the close was not read either: the connection (and its buffer) goes
    assert protocol.transport.cut


async def test_a_socket_that_keeps_up_gets_every_frame(settings: Any) -> None:
    protocol = await run(frames=10, unread_after=-1, settings=settings)
    assert [m.get("text") for m in protocol.replies[1:]] == [f"frame {n}" for n in range(10)]
    await asyncio.sleep(0.1)
    assert not protocol.transport.cut

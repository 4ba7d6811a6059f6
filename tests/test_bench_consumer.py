"""bench/consumer.py: the bare broadcast socket that bench/load.py measures beside the game's."""

from __future__ import annotations

import json

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.urls import path

from bench.consumer import BenchConsumer

# The socket's handshake loads its session and tidies the thread's database connection
# (Channels' database_sync_to_async): a kept connection from an earlier test is checked then.
pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

app = URLRouter([path("ws/bench/<str:room>/", BenchConsumer.as_asgi())])


async def test_a_frame_reaches_every_socket_of_the_bench_room_and_a_bad_one_gets_an_error() -> None:
    one = WebsocketCommunicator(app, "/ws/bench/r1/")
    two = WebsocketCommunicator(app, "/ws/bench/r1/")
    assert (await one.connect())[0] and (await two.connect())[0]
    await one.send_to(text_data=json.dumps({"type": "act", "version": 4, "pad": 10}))
    for ws in (one, two):
        state = json.loads(await ws.receive_from())
        assert state["version"] == 5 and state["pad"] == "x" * 10 and state["event"] == {"type": "rolled"}
        assert await ws.receive_nothing()  # one message per action, as the game's
    await one.send_to(text_data="not json")
    assert json.loads(await one.receive_from()) == {"type": "error", "code": "bad_frame"}
    await one.disconnect()
    await two.disconnect()

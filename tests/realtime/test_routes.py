"""games.realtime.routes: after another worker starts, this one's sockets are asked to check their route."""

from __future__ import annotations

import asyncio
import json

import pytest
from django.test import Client

from games.realtime import fanout, routes
from games.scheduling.runner import Scheduler
from games.services import processes
from games.services.processes import ORIGIN
from games.store.models import ServingProcess
from tests.realtime.test_fanout import FakeSocket
from tests.waiting import wait_until


@pytest.mark.django_db
def test_the_room_socket_address_over_http_names_this_worker_and_is_never_cached() -> None:
    response = Client().get("/ws/rooms/abcdefghjk/")
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    assert json.loads(response.content) == {"worker": ORIGIN}


@pytest.mark.django_db
def test_the_beat_tells_which_other_processes_serve(monkeypatch: pytest.MonkeyPatch) -> None:
    processes.enter(ORIGIN)
    assert processes.seen(ORIGIN)[2] == set()
    row = ServingProcess.objects.get(origin=ORIGIN)
    row.pk, row.host = "other", "another-host"  # on another host: trusted while it is seen
    row.save()
    assert processes.seen(ORIGIN)[2] == {"other"}


def test_a_new_serving_process_makes_the_beat_ask_the_sockets_here_to_check_their_route(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[bool] = []
    monkeypatch.setattr(routes, "peer_started", lambda: asked.append(True))
    scheduler = Scheduler(asyncio.new_event_loop(), sweep=False, poll=1.0, serving=ORIGIN)
    try:
        scheduler.serving_now({"a"})  # its first beat: nothing is new to it
        scheduler.serving_now({"a"})
        assert asked == []
        scheduler.serving_now({"a", "b"})  # "b" started
        assert asked == [True]
        scheduler.serving_now({"b"})  # "a" stopped: its rooms here stay
        assert asked == [True]
    finally:
        scheduler._followups.shutdown()
        scheduler.loop.close()


@pytest.mark.asyncio
async def test_each_round_sends_every_socket_of_every_room_the_route_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(routes, "ROUNDS", (0.0, 0.01))
    sockets = {code: [FakeSocket(), FakeSocket()] for code in ("room-a", "room-b")}
    for code, group in sockets.items():
        for socket in group:
            await fanout.join(code, socket)
    try:
        routes.peer_started()
        want = [routes.frame(), routes.frame()]
        await wait_until(
            lambda: all(socket.frames == want for group in sockets.values() for socket in group),
            "both rounds' route frame on every socket of every room",
        )
        assert json.loads(routes.frame()) == {"type": "route", "worker": ORIGIN}
    finally:
        for code, group in sockets.items():
            for socket in group:
                await fanout.leave(code, socket)

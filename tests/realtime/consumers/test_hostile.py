"""Hostile frames and sockets that end badly: an error frame for each, no crash, no Presence row left behind."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from asgiref.sync import sync_to_async
from django.db import OperationalError
from django.utils import timezone

from games import services
from games.realtime import fanout
from games.services import presence
from games.store import selectors
from games.store.models import Game, Move, Presence
from tests.realtime.consumers.helpers import (
    connect,
    first_frames,
    frames_before_pong,
    frames_until,
    make_room,
    next_frame,
)
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@sync_to_async
def presence_rows(code: str) -> int:
    return Presence.objects.filter(game__code=code).count()


@sync_to_async
def version(code: str) -> int:
    return Game.objects.get(code=code).version


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ("[" * 2000 + "]" * 2000, "bad_json"),  # under 4 KB, deeper than Python's recursion limit
        ('{"type": "roll", "version": 1, "id": ' + "[" * 1500 + "]" * 1500 + "}", "bad_json"),
        ('{"type": "roll", "version": 1, "id": "\\ud800"}', "bad_field"),  # a lone surrogate
        ('{"type": "score", "version": 1, "id": "x", "box": "\\udfff"}', "bad_field"),
        ('{"type": "ping", "pad": "\\ud83d"}', "bad_field"),
    ],
)
async def test_a_hostile_frame_gets_an_error_frame_and_the_socket_stays(payload: str, code: str) -> None:
    room, sessions = await make_room(1)
    ws = await connect(room, sessions[0])
    _, state, _ = await first_frames(ws)
    await ws.send_to(text_data=payload)
    error = await next_frame(ws)
    assert (error["type"], error["code"]) == ("error", code)
    await ws.send_json_to({"type": "ping"})
    assert (await frames_until(ws, "pong"))[-1]["version"] == state["version"]
    assert await version(room) == state["version"]
    await ws.disconnect()
    assert await presence_rows(room) == 0


async def test_a_frame_the_server_fails_on_gets_an_error_and_a_resync_not_a_1011() -> None:
    room, sessions = await make_room(1)
    ws = await connect(room, sessions[0])
    _, state, _ = await first_frames(ws)
    with mock.patch.object(presence, "seen", side_effect=RuntimeError("boom")):
        await ws.send_json_to({"type": "ping"})
        frames = [f for f in await frames_until(ws, "state") if f["type"] != "presence"]
    assert [f["type"] for f in frames] == ["error", "state"] and frames[0]["code"] == "server_error"
    await ws.send_json_to({"type": "sync"})
    assert (await frames_until(ws, "state"))[-1]["version"] == state["version"]
    await ws.disconnect()


async def test_nothing_is_sent_after_the_rate_limit_closes_the_socket() -> None:
    room, sessions = await make_room(1)
    ws = await connect(room, sessions[0])
    await first_frames(ws)
    for _ in range(40):
        await ws.send_json_to({"type": "ping"})
    outputs = []
    while not outputs or outputs[-1]["type"] != "websocket.close":
        outputs.append(await ws.receive_output(timeout=3))
    assert outputs[-1]["code"] == 4008
    assert await ws.receive_nothing(timeout=0.3)  # the frames queued behind the close are dropped
    await ws.disconnect()
    assert await presence_rows(room) == 0


async def test_the_presence_row_goes_even_when_disconnect_fails() -> None:
    room, sessions = await make_room(1)
    ws = await connect(room, sessions[0])
    await first_frames(ws)
    assert await presence_rows(room) == 1
    with mock.patch.object(fanout, "leave", side_effect=RuntimeError("relay gone")), pytest.raises(RuntimeError):
        await ws.disconnect()  # the handler fails before it removes the row
    assert await presence_rows(room) == 0


@sync_to_async
def stale_row(code: str, age: timedelta) -> None:
    game = Game.objects.get(code=code)
    controller = game.room.seats[0].controller
    Presence.objects.create(game=game, channel_name=f"dead-{age}", controller=controller, seen_at=timezone.now() - age)


async def test_stale_presence_rows_are_swept_when_a_server_starts_taking_sockets() -> None:
    room, sessions = await make_room(1)
    await stale_row(room, presence.STALE_AFTER + timedelta(seconds=5))
    await stale_row(room, timedelta(seconds=5))  # a live socket on another process: kept
    ws = await connect(room, sessions[0])
    await first_frames(ws)
    for _ in range(50):
        if await presence_rows(room) == 2:
            break
        await ws.receive_nothing(timeout=0.05)
    assert await presence_rows(room) == 2  # this socket's row and the live one
    await ws.disconnect()


def _committed_then_lost(service: Any) -> Any:
    """The service commits, then the connection drops before the driver hears so (no on-commit broadcast)."""

    def call(**kwargs: Any) -> Any:
        with mock.patch.object(fanout, "publish_soon"):
            service(**kwargs)
        raise OperationalError("server closed the connection unexpectedly")

    return call


def _lost_before(**kwargs: Any) -> Any:
    raise OperationalError("connection refused")


@sync_to_async
def rolls(code: str) -> int:
    return Move.objects.filter(game__code=code, kind="roll").count()


async def test_an_action_committed_before_the_connection_dropped_is_not_called_unwritten() -> None:
    room, sessions = await make_room(1)
    ws, watcher = await connect(room, sessions[0]), await connect(room)
    _, state, _ = await first_frames(ws)
    await first_frames(watcher)
    with mock.patch.object(services, "turn_roll", _committed_then_lost(services.turn_roll)):
        await ws.send_json_to({"type": "roll", "version": state["version"], "id": "r1"})
        frames = await frames_until(ws, "state")
    frames += await frames_before_pong(ws)  # all the roll's handling sent
    assert not [f for f in frames if f["type"] == "error"]  # no "nothing was written"
    assert [f for f in frames if f["type"] == "state"][-1]["version"] == state["version"] + 1
    assert await rolls(room) == 1
    # The room hears it too, though the commit's own broadcast never ran.
    assert (await frames_until(watcher, "state"))[-1]["version"] == state["version"] + 1
    for socket in (ws, watcher):
        await socket.disconnect()


async def test_an_action_refused_before_it_was_written_says_nothing_was_written() -> None:
    room, sessions = await make_room(1)
    ws = await connect(room, sessions[0])
    _, state, _ = await first_frames(ws)
    with mock.patch.object(services, "turn_roll", _lost_before):
        await ws.send_json_to({"type": "roll", "version": state["version"], "id": "r1"})
        error = await next_frame(ws)
    assert (error["code"], error["id"]) == ("unavailable", "r1") and await rolls(room) == 0
    await ws.disconnect()


async def test_an_unknown_outcome_says_so_and_the_page_resyncs_when_the_database_is_back() -> None:
    room, sessions = await make_room(1)
    ws = await connect(room, sessions[0])
    _, state, _ = await first_frames(ws)
    down = mock.patch.object(selectors, "action_stored", side_effect=OperationalError("still down"))
    also_down = mock.patch.object(presence, "state_with_version", side_effect=OperationalError("still down"))
    with mock.patch.object(services, "turn_roll", _lost_before), down, also_down as state_text:
        await ws.send_json_to({"type": "roll", "version": state["version"], "id": "r1"})
        error = await next_frame(ws)
        assert (error["code"], error["id"]) == ("outcome_unknown", "r1")
        assert "unknown" in error["message"] and "resync" in error["message"]
        await wait_until(lambda: state_text.call_count >= 1, "the page's resync to try the database")
        assert not [f for f in await frames_before_pong(ws) if f["type"] == "state"]  # still away
    resynced = (await frames_until(ws, "state", timeout=5))[-1]  # back: the page gets the state
    assert resynced["version"] == state["version"]
    await ws.disconnect()


async def test_the_resync_after_an_unknown_outcome_never_sends_a_state_older_than_the_socket_has() -> None:
    """The database answers the resync with a state read before the room moved on: it is not sent."""
    room, sessions = await make_room(1)
    ws = await connect(room, sessions[0])
    _, state, _ = await first_frames(ws)
    moved_on = threading.Event()
    answered: list[str] = []

    def read_before_the_room_moved_on(code: str) -> tuple[str, int]:
        if not moved_on.is_set():
            raise OperationalError("still down")
        answered.append(code)
        return json.dumps(state), state["version"]  # as read just before the next action's commit

    down = mock.patch.object(selectors, "action_stored", side_effect=OperationalError("still down"))
    with mock.patch.object(presence, "state_with_version", side_effect=read_before_the_room_moved_on):
        with mock.patch.object(services, "turn_roll", _lost_before), down:
            await ws.send_json_to({"type": "roll", "version": state["version"], "id": "r1"})
            error = await next_frame(ws)
        assert (error["code"], error["id"]) == ("outcome_unknown", "r1")
        await ws.send_json_to({"type": "roll", "version": state["version"], "id": "r2"})
        rolled = (await frames_until(ws, "state"))[-1]
        assert rolled["version"] == state["version"] + 1
        moved_on.set()
        await wait_until(lambda: bool(answered), "the resync to read the room again")
        late = [f["version"] for f in await frames_before_pong(ws) if f["type"] == "state"]
    assert late == [], f"states older than version {rolled['version']} sent after it: {late}"
    await ws.disconnect()

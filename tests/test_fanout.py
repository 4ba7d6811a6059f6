"""games.fanout: a room's frames straight to this process's sockets, relayed to the others."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

import pytest
import pytest_asyncio
from channels.layers import get_channel_layer

from games import fanout

pytestmark = pytest.mark.asyncio


class FakeSocket:
    def __init__(self, fail: bool = False) -> None:
        self.frames: list[str] = []
        self.fail = fail

    async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
        if self.fail:
            raise RuntimeError("the socket closed meanwhile")
        assert text_data is not None
        self.frames.append(text_data)

    def push(self, frames: list[str]) -> None:
        if self.fail:
            raise RuntimeError("the socket closed meanwhile")
        self.frames.extend(frames)


@pytest.fixture
def heard(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[str]]]:
    """What the state listeners hear (this test's listener only)."""
    seen: list[tuple[str, list[str]]] = []
    monkeypatch.setattr(fanout, "_state_listeners", [lambda code, frames: seen.append((code, frames))])
    return seen


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


@pytest_asyncio.fixture
async def room() -> Any:
    sockets: list[FakeSocket] = []
    code = f"fan{id(sockets)}"

    async def add(fail: bool = False) -> FakeSocket:
        socket = FakeSocket(fail)
        await fanout.join(code, socket)
        sockets.append(socket)
        return socket

    yield code, add
    for socket in sockets:
        await fanout.leave(code, socket)
    assert code not in fanout._members and code not in fanout._latest  # nothing left behind


async def test_every_socket_of_the_room_gets_the_frames_in_order(room: Any) -> None:
    code, add = room
    one, two = await add(), await add()
    await fanout.publish(code, ["a", "b"], version=1)
    await fanout.publish(code, ["c"], version=2)
    await settle()
    assert one.frames == two.frames == ["a", "b", "c"]


async def test_an_older_state_than_one_already_sent_is_dropped(room: Any) -> None:
    code, add = room
    socket = await add()
    await fanout.publish(code, ["v5"], version=5)
    await fanout.publish(code, ["v4"], version=4)  # committed earlier, arrived later
    await fanout.publish(code, ["presence"])  # no version: always delivered
    await settle()
    assert socket.frames == ["v5", "presence"]


async def test_a_socket_that_fails_does_not_keep_the_frames_from_the_others(room: Any) -> None:
    code, add = room
    await add(fail=True)
    fine = await add()
    await fanout.publish(code, ["a"], version=1)
    await settle()
    assert fine.frames == ["a"]


async def test_a_new_state_is_heard_once_per_process_not_once_per_socket(room: Any, heard: list[Any]) -> None:
    code, add = room
    for _ in range(3):
        await add()
    await fanout.publish(code, ["e", "s7"], version=7)
    await fanout.publish(code, ["s6"], version=6)  # older: dropped, so not heard either
    await fanout.publish(code, ["presence"])  # not a state
    await settle()
    assert heard == [(code, ["e", "s7"])]


async def test_a_state_with_no_socket_here_is_not_heard(heard: list[Any]) -> None:
    await fanout.publish("nobody-here", ["s"], version=1)
    await settle()
    assert heard == []


async def test_a_welcomed_socket_gets_its_frames_and_the_state_is_heard(room: Any, heard: list[Any]) -> None:
    code, add = room
    other, socket = await add(), FakeSocket()
    await fanout.welcome(code, socket, ["you", "state"])
    assert socket.frames == ["you", "state"] and other.frames == []
    assert heard == [(code, ["you", "state"])]


async def test_a_failing_listener_keeps_neither_the_sockets_nor_the_other_listeners_from_the_frames(
    room: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, add = room
    socket = await add()
    seen: list[str] = []

    def broken(code: str, frames: list[str]) -> None:
        raise RuntimeError("a listener's bug")

    monkeypatch.setattr(fanout, "_state_listeners", [broken, lambda code, frames: seen.extend(frames)])
    await fanout.publish(code, ["s"], version=1)
    await settle()
    assert socket.frames == ["s"] and seen == ["s"]


async def test_a_left_socket_hears_nothing_more(room: Any) -> None:
    code, add = room
    stays, goes = await add(), await add()
    await fanout.leave(code, goes)
    await fanout.publish(code, ["after"], version=1)
    await settle()
    assert stays.frames == ["after"] and goes.frames == []


async def test_frames_from_a_database_thread_reach_the_loop_in_a_fresh_context(
    room: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, add = room
    socket = await add()
    marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="fresh")
    seen: list[str] = []
    monkeypatch.setattr(fanout, "_state_listeners", [lambda code, frames: seen.append(marker.get())])

    def commit_hook() -> None:  # what a service's on_commit does, in its worker thread
        marker.set("the database thread's")
        for version in (1, 2, 3):
            fanout.publish_soon(code, [f"v{version}"], version=version)

    thread = threading.Thread(target=commit_hook)
    thread.start()
    thread.join()
    await settle()
    assert socket.frames == ["v1", "v2", "v3"]
    assert seen == ["fresh"] * 3  # asgiref's "inside a database call" mark must not follow


async def test_frames_relayed_by_another_process_are_delivered_here(room: Any) -> None:
    code, add = room
    socket = await add()
    layer = get_channel_layer()
    if fanout._layer() is None:
        # The in-memory layer: one process, nothing relayed; what arrives is delivered all the same.
        fanout.deliver(code, ["from elsewhere"], 3)
    else:
        message = {**fanout._relay_message(code, ["from elsewhere"], 3), "origin": "another process"}
        await layer.group_send(fanout.room_group(code), message)
        mine = fanout._relay_message(code, ["my own, back from Redis"], 4)
        await layer.group_send(fanout.room_group(code), mine)
    for _ in range(100):
        await asyncio.sleep(0.01)
        if socket.frames:
            break
    await asyncio.sleep(0.1)
    assert socket.frames == ["from elsewhere"]

"""games.realtime.fanout: a room's frames straight to this process's sockets, relayed to the others."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
import uuid
from types import SimpleNamespace
from typing import Any

import pytest
import pytest_asyncio
from channels.layers import get_channel_layer

from games.realtime import fanout, transport
from tests.waiting import wait_until

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

    def push(self, frames: list[str], version: int | None = None) -> None:
        if self.fail:
            raise RuntimeError("the socket closed meanwhile")
        self.frames.extend(frames)


@pytest.fixture
def heard(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[str]]]:
    """What the state listeners hear (this test's listener only)."""
    seen: list[tuple[str, list[str]]] = []
    monkeypatch.setattr(transport.current(), "state_listeners", [lambda code, frames: seen.append((code, frames))])
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
    assert code not in transport.current().members and code not in transport.current().latest  # nothing left behind


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

    monkeypatch.setattr(transport.current(), "state_listeners", [broken, lambda code, frames: seen.extend(frames)])
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
    monkeypatch.setattr(transport.current(), "state_listeners", [lambda code, frames: seen.append(marker.get())])

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
    if fanout.relay_layer() is None:
        # The in-memory layer: one process, nothing relayed; what arrives is delivered all the same.
        fanout.deliver(code, ["from elsewhere"], 3)
        assert socket.frames == ["from elsewhere"]
        return
    message = {**fanout.relay_message(code, ["from elsewhere"], 3), "origin": "another process"}
    await layer.group_send(fanout.room_group(code), message)
    mine = fanout.relay_message(code, ["my own, back from Redis"], 4)
    await layer.group_send(fanout.room_group(code), mine)
    # The relay reads the group's messages in order: once a later one is delivered, its own was passed over.
    later = {**fanout.relay_message(code, ["later"], 5), "origin": "another process"}
    await layer.group_send(fanout.room_group(code), later)
    for _ in range(1000):
        if "later" in socket.frames:
            break
        await asyncio.sleep(0.01)
    assert socket.frames == ["from elsewhere", "later"]


async def test_frames_for_some_browsers_reach_only_their_sockets_here_and_from_another_process(room: Any) -> None:
    code, add = room
    player, stranger = await add(), await add()
    player.controller, stranger.controller = "player-token", "stranger-token"  # type: ignore[attr-defined]
    fanout.deliver(code, ["for the players"], audience=frozenset({"player-token"}))
    assert player.frames == ["for the players"] and stranger.frames == []
    layer = fanout.relay_layer()
    if layer is None:
        return  # the in-memory layer: one process, nothing relayed
    told = fanout.relay_message(code, ["relayed, for the players"], None, frozenset({"player-token"}))
    everyone = fanout.relay_message(code, ["relayed, for everyone"], None)
    for message in (told, everyone):
        await layer.group_send(fanout.room_group(code), {**message, "origin": "another process"})
    for _ in range(1000):
        if "relayed, for everyone" in stranger.frames:
            break
        await asyncio.sleep(0.01)
    assert player.frames == ["for the players", "relayed, for the players", "relayed, for everyone"]
    assert stranger.frames == ["relayed, for everyone"]


async def test_frames_kept_from_some_browsers_miss_only_their_sockets_here_and_from_another_process(room: Any) -> None:
    code, add = room
    sender, other = await add(), await add()
    sender.controller, other.controller = "sender-token", "other-token"  # type: ignore[attr-defined]
    fanout.deliver(code, ["for the others"], excluded=frozenset({"sender-token"}))
    assert sender.frames == [] and other.frames == ["for the others"]
    layer = fanout.relay_layer()
    if layer is None:
        return  # the in-memory layer: one process, nothing relayed
    kept = fanout.relay_message(code, ["relayed, for the others"], None, excluded=frozenset({"sender-token"}))
    everyone = fanout.relay_message(code, ["relayed, for everyone"], None)
    for message in (kept, everyone):
        await layer.group_send(fanout.room_group(code), {**message, "origin": "another process"})
    for _ in range(1000):
        if "relayed, for everyone" in sender.frames:
            break
        await asyncio.sleep(0.01)
    assert sender.frames == ["relayed, for everyone"]
    assert other.frames == ["for the others", "relayed, for the others", "relayed, for everyone"]


async def test_a_chat_line_none_of_the_sockets_here_may_hear_leaves_the_rooms_state_order_alone(room: Any) -> None:
    """A finished game's chat goes to its players only: a player's line on a process where only
    spectators watch reaches none of its sockets, which are still in the room. The state it
    delivered last still orders the next (an older one crossing it is dropped), and is still the
    newest it answers a newcomer process with."""
    code, add = room
    spectator = await add()
    spectator.controller = "spectator-token"  # type: ignore[attr-defined]
    fanout.deliver(code, ["v7"], 7)
    fanout.deliver(code, ["gg"], audience=frozenset({"player-token"}))
    fanout.deliver(code, ["v6, crossing"], 6)
    assert spectator.frames == ["v7"]
    assert transport.current().newest[code] == (7, ["v7"])


async def test_a_state_no_newer_than_the_one_a_socket_was_welcomed_with_is_not_sent_again(room: Any) -> None:
    code, add = room
    socket = FakeSocket()
    await fanout.join(code, socket, version=4)
    try:
        fanout.deliver(code, ["v4, relayed"], 4)
        fanout.deliver(code, ["v5"], 5)
        assert socket.frames == ["v5"]
    finally:
        await fanout.leave(code, socket)


# --- relaying only while another process is in the room (Redis) ---------------------------


MARK = "the test's mark"  # the origin of the marks the tests send a room's group


@pytest_asyncio.fixture
async def redis_room(room: Any) -> Any:
    """A room with Redis, and a listener in its group: what this process relays."""
    code, add = room
    layer = get_channel_layer()
    redis = fanout.redis_client()
    listener = await layer.new_channel()
    heard: list[dict[str, Any]] = []
    marks: dict[str, int] = {}  # each mark the test sent to the group: how many messages were heard before it

    async def receive() -> None:  # one receive for good: the pub/sub layer unsubscribes one that is cancelled
        while True:
            message = await layer.receive(listener)
            if message.get("origin") == MARK:
                marks[message["mark"]] = len(heard)
            elif message.get("origin") == fanout.ORIGIN and message.get("note") != "joined":  # not its own entrance
                heard.append(message)

    receiving = asyncio.get_running_loop().create_task(receive())

    async def listen() -> None:
        await layer.group_add(fanout.room_group(code), listener)

    async def relayed(at_least: int = 0) -> list[dict[str, Any]]:
        """This process's messages to the room's group so far: ``at_least`` of them waited for, then
        those heard before a mark the test sends the group after them. The group is one Redis
        channel, heard in the order it was published to, and a relay is published before the
        ``publish`` that made it returns (an answer to a newcomer, before ``at_least`` counts it)."""
        await wait_until(
            lambda: len(heard) >= at_least, f"{at_least} relayed messages", every=0.02, detail=lambda: heard
        )
        mark = uuid.uuid4().hex
        # A process leaving that this one never knew of: nothing to it.
        await layer.group_send(
            fanout.room_group(code),
            {"type": fanout.MESSAGE_TYPE, "origin": MARK, "code": code, "note": "left", "mark": mark},
        )
        await wait_until(lambda: mark in marks, "the test's own mark to come back", every=0.02)
        messages = heard[: marks.pop(mark)]
        del heard[: len(messages)]
        return messages

    async def another_process(name: str, expires_in: float = 30.0, note: str | None = "joined", **fields: Any) -> None:
        """Another process in the room: its entry in the set, and what it tells the group."""
        await redis.zadd(fanout.set_key(code), {name: time.time() + expires_in})
        if note is not None:
            message = {"type": fanout.MESSAGE_TYPE, "origin": name, "code": code, "note": note, **fields}
            await layer.group_send(fanout.room_group(code), message)

    yield code, add, listen, relayed, another_process
    receiving.cancel()
    await redis.delete(fanout.set_key(code))
    await redis.aclose()
    await layer.group_discard(fanout.room_group(code), listener)


@pytest.mark.redis
async def test_alone_in_a_room_a_process_relays_nothing(redis_room: Any) -> None:
    code, add, listen, relayed, _ = redis_room
    socket = await add()
    await listen()
    assert not fanout.relaying(code)
    await fanout.publish(code, ["s1"], version=1)
    await fanout.publish(code, ["presence"])
    assert await relayed() == []
    assert socket.frames == ["s1", "presence"]  # its own sockets get everything


@pytest.mark.redis
async def test_once_another_process_joins_the_room_its_frames_are_relayed(redis_room: Any) -> None:
    code, add, listen, relayed, another_process = redis_room
    await add()
    await listen()
    await fanout.publish(code, ["s1"], version=1)
    await another_process("elsewhere", version=1)
    answer = await relayed(at_least=1)
    assert [(m["note"], "frames" in m) for m in answer] == [("here", False)]  # nothing newer than its 1
    assert fanout.relaying(code)
    await fanout.publish(code, ["s2"], version=2)
    assert [m["frames"] for m in await relayed(at_least=1)] == [["s2"]]
    # ... and not once it has left.
    await another_process("elsewhere", note="left")
    for _ in range(500):
        if not fanout.relaying(code):
            break
        await asyncio.sleep(0.02)
    assert not fanout.relaying(code)


@pytest.mark.redis
async def test_the_answer_to_a_newcomer_brings_the_newest_state_delivered_here(redis_room: Any) -> None:
    code, add, listen, relayed, another_process = redis_room
    await add()
    await listen()
    await fanout.publish(code, ["s2"], version=2)
    await fanout.publish(code, ["s3"], version=3)  # committed after the newcomer read the room (at 2)
    await another_process("elsewhere", version=2)
    answer = await relayed(at_least=1)
    assert [(m["note"], m["version"], m["frames"]) for m in answer] == [("here", 3, ["s3"])]


@pytest.mark.redis
async def test_a_newcomer_learns_who_is_in_the_room_and_takes_their_newer_state(redis_room: Any) -> None:
    code, add, listen, relayed, another_process = redis_room
    await another_process("there first", note=None)  # in the set before this process came
    socket = FakeSocket()
    await fanout.join(code, socket, version=4)
    try:
        assert fanout.relaying(code)
        await another_process("there first", version=4, frames=["s4 again"], note="here")
        await another_process("there first", version=5, frames=["s5"], note="here")
        # Read in order: by the time s5 is delivered, the note with s4 was passed over.
        for _ in range(500):
            if "s5" in socket.frames:
                break
            await asyncio.sleep(0.02)
        assert socket.frames == ["s5"]
    finally:
        await fanout.leave(code, socket)


@pytest.mark.redis
async def test_when_redis_fails_every_frame_is_relayed(redis_room: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    code, add, listen, relayed, _ = redis_room

    async def failing(relay: Any, codes: list[str]) -> Any:
        raise ConnectionError("Redis went away")

    await add()
    await listen()
    assert not fanout.relaying(code)
    relay = fanout.relay_of(asyncio.get_running_loop())
    monkeypatch.setattr(fanout, "read_sets", failing)
    await fanout.renew(get_channel_layer(), relay)  # the periodic renewal fails
    assert fanout.relaying(code)
    await fanout.publish(code, ["s1"], version=1)
    assert [m["frames"] for m in await relayed(at_least=1)] == [["s1"]]
    monkeypatch.undo()
    await fanout.renew(get_channel_layer(), relay)  # Redis answers again: read anew, and alone again
    assert not fanout.relaying(code)


@pytest.mark.redis
async def test_a_room_joined_while_redis_fails_relays_everything(
    redis_room: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, add, listen, relayed, _ = redis_room

    async def failing(relay: Any, codes: list[str]) -> Any:
        raise ConnectionError("Redis went away")

    monkeypatch.setattr(fanout, "read_sets", failing)
    await add()
    await listen()
    assert fanout.relaying(code)
    await fanout.publish(code, ["s1"], version=1)
    assert [m["frames"] for m in await relayed(at_least=1)] == [["s1"]]


@pytest.mark.redis
async def test_the_entry_of_a_process_that_died_without_a_word_ages_out(
    redis_room: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, add, listen, relayed, another_process = redis_room
    # The renewal compares the entries with this process's clock, which the test moves on.
    ahead = [0.0]
    monkeypatch.setattr(fanout, "time", SimpleNamespace(time=lambda: time.time() + ahead[0], monotonic=time.monotonic))
    await another_process("killed", expires_in=30, note=None)  # SIGKILLed: it renews no more
    await add()
    await listen()
    assert fanout.relaying(code)
    relay = fanout.relay_of(asyncio.get_running_loop())
    await fanout.renew(get_channel_layer(), relay)
    assert fanout.relaying(code)  # its entry still counts
    ahead[0] = 30.0  # what was left of its entry's 30 s passes
    await fanout.renew(get_channel_layer(), relay)
    assert not fanout.relaying(code)
    await fanout.publish(code, ["s1"], version=1)
    assert await relayed() == []


@pytest.mark.redis
async def test_a_newcomer_with_a_newer_state_than_this_process_has_makes_it_resync(
    redis_room: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, add, listen, relayed, another_process = redis_room
    resynced: list[list[str]] = []
    monkeypatch.setattr(transport.current(), "back_listeners", [resynced.append])
    socket = FakeSocket()
    await fanout.join(code, socket, version=6)
    try:
        await another_process("restarted", version=6)  # as new as what this process has: nothing to do
        await another_process("restarted", version=7)  # this process missed version 7 (its relay was lost)
        # A third process, with the state this process has: once this process heard of it, it has
        # read the two notes before it (its listener reads the group's messages in order).
        await another_process("after them", version=6)
        await wait_until(
            lambda: "after them" in transport.current().peers.get(code, {}),
            "the third process's note to be read",
            every=0.02,
        )
        assert resynced == [[code]]
    finally:
        await fanout.leave(code, socket)


async def test_a_socket_welcomed_with_a_newer_state_does_not_keep_it_from_the_sockets_already_here(
    room: Any,
) -> None:
    # A state committed elsewhere is on its way here (relayed, or from a database thread) when a
    # second socket arrives having read it already: the first socket still needs it.
    code, add = room
    first = await add()
    fanout.deliver(code, ["v3"], 3)
    second = FakeSocket()
    await fanout.join(code, second, version=4)
    try:
        fanout.deliver(code, ["v4"], 4)
        assert first.frames == ["v3", "v4"]
    finally:
        await fanout.leave(code, second)


@pytest.mark.redis
async def test_a_process_whose_entry_aged_out_while_it_was_still_in_the_room_says_so_again(
    redis_room: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its event loop was blocked past RELAY_TTL (or its renewals failed to reach Redis): another
    # process's renewal dropped its entry, and stopped relaying to it. Renewing must not put it
    # back silently: the others are told (``joined``), so they relay again and send their newest.
    code, add, listen, relayed, another_process = redis_room
    layer = get_channel_layer()
    sent: list[dict[str, Any]] = []
    group_send = layer.group_send

    async def recording(group: str, message: dict[str, Any]) -> None:
        sent.append(message)
        await group_send(group, message)

    monkeypatch.setattr(layer, "group_send", recording)
    await add()
    await listen()
    fanout.deliver(code, ["s3"], 3)
    relay = fanout.relay_of(asyncio.get_running_loop())
    await fanout.renew(layer, relay)
    assert [m for m in sent if m.get("note") == "joined"] == [
        {"type": fanout.MESSAGE_TYPE, "origin": fanout.ORIGIN, "code": code, "note": "joined"}
    ]  # its first socket's entrance only, not each renewal
    sent.clear()
    redis = fanout.redis_client()
    await redis.zrem(fanout.set_key(code), fanout.ORIGIN)  # aged out: removed by another process's renewal
    await redis.aclose()
    await fanout.renew(layer, relay)
    assert [(m["note"], m.get("version")) for m in sent if m.get("note")] == [("joined", 3)]


@pytest.mark.redis
async def test_a_renewal_of_many_rooms_reads_their_sets_a_batch_at_a_time(
    redis_room: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One pipeline's replies are parsed without giving the event loop back: a thousand rooms'
    # at once held every socket of the process up for tens of milliseconds every RELAY_RENEW.
    code = redis_room[0]
    sockets = [FakeSocket() for _ in range(4)]
    codes = [f"{code}b{n}" for n in range(4)]
    batches: list[list[str]] = []
    read_sets = fanout.read_sets

    async def recording(relay: Any, codes: list[str]) -> Any:
        batches.append(list(codes))
        return await read_sets(relay, codes)

    for each, socket in zip(codes, sockets, strict=True):
        await fanout.join(each, socket)
    try:
        monkeypatch.setattr(fanout, "RENEW_BATCH", 3)
        monkeypatch.setattr(fanout, "read_sets", recording)
        await fanout.renew(get_channel_layer(), fanout.relay_of(asyncio.get_running_loop()))
        assert sorted(len(batch) for batch in batches) == [1, 3]
        assert all(not fanout.relaying(each) for each in codes)  # each read, each alone
    finally:
        for each, socket in zip(codes, sockets, strict=True):
            await fanout.leave(each, socket)


@pytest.mark.redis
async def test_a_room_left_during_a_renewal_is_not_put_back_in_its_set_nor_announced(
    redis_room: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = redis_room[0]
    layer = get_channel_layer()
    codes = [f"{code}l{n}" for n in range(3)]
    sockets = [FakeSocket() for _ in codes]
    for each, socket in zip(codes, sockets, strict=True):
        await fanout.join(each, socket)
    sent: list[dict[str, Any]] = []
    group_send = layer.group_send

    async def recording(group: str, message: dict[str, Any]) -> None:
        sent.append(message)
        await group_send(group, message)

    read_sets = fanout.read_sets
    read: list[str] = []  # these rooms, in the order their sets were read
    left: list[str] = []

    async def leaving_meanwhile(relay: Any, batch: list[str]) -> Any:
        sets = await read_sets(relay, batch)
        mine = [each for each in batch if each in codes]
        read.extend(mine)
        if mine and len(read) == 1:  # another room's last socket leaves while this batch is read
            left.append(next(each for each in codes if each not in read))
        elif mine and len(read) == 2:  # this room's last socket leaves while its own batch is read
            left.append(mine[0])
        else:
            left.append("")
        if left[-1]:
            await fanout.leave(left[-1], sockets[codes.index(left[-1])])
        return [(True, members) for _, members in sets]  # as if each entry had been missing

    redis = fanout.redis_client()
    try:
        monkeypatch.setattr(layer, "group_send", recording)
        monkeypatch.setattr(fanout, "RENEW_BATCH", 1)
        monkeypatch.setattr(fanout, "read_sets", leaving_meanwhile)
        await fanout.renew(layer, fanout.relay_of(asyncio.get_running_loop()))
        assert len(read) == 2 and left[0] not in read  # the room left meanwhile was not read ...
        assert await redis.zscore(fanout.set_key(left[0]), fanout.ORIGIN) is None  # ... nor put back
        assert [m["code"] for m in sent if m.get("note") == "joined"] == [read[0]]  # the one still here
    finally:
        monkeypatch.undo()
        await fanout.leave(read[0], sockets[codes.index(read[0])])
        for each in codes:
            await redis.delete(fanout.set_key(each))
        await redis.aclose()

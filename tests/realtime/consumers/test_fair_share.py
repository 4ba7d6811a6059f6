"""Fair shares of a worker: sockets per address and per browser, coalesced presence, cheap pings, hint rate."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore
from django.db.backends.utils import CursorWrapper

from games.realtime import sockets as sockets_module
from games.realtime import transport
from games.realtime.consumer import RoomConsumer
from games.services import coach, presence
from games.store.models import Presence
from tests.conftest import ManualClock
from tests.realtime.consumers.helpers import (
    first_frames,
    frames_before_pong,
    frames_until,
    frames_within,
    make_room,
)
from tests.waiting import wait_until
from yahtzee.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def open_socket(code: str, ip: str, session: str | None = None) -> tuple[WebsocketCommunicator, bool]:
    headers = [(b"origin", b"http://127.0.0.1")]
    if session:
        headers.append((b"cookie", f"sessionid={session}".encode()))
    ws = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=headers)
    ws.scope["client"] = (ip, 50000)
    connected, _ = await ws.connect()
    return ws, connected


async def refused_clearly(ws: WebsocketCommunicator) -> str:
    """The refusal's error frame, then the close with 4029."""
    error = json.loads(await ws.receive_from())
    assert (error["type"], error["code"]) == ("error", "too_many_sockets")
    close = await ws.receive_output(timeout=3)
    assert (close["type"], close["code"]) == ("websocket.close", 4029)
    return str(error["message"])


async def test_an_address_holds_at_most_its_share_of_sockets(settings: Any) -> None:
    settings.WS_MAX_PER_ADDRESS = 3
    room, _ = await make_room(1)
    held = [(await open_socket(room, "10.1.0.1"))[0] for _ in range(3)]
    for ws in held:
        await first_frames(ws)
    extra, _ = await open_socket(room, "10.1.0.1")
    assert "address" in await refused_clearly(extra)
    other, connected = await open_socket(room, "10.1.0.2")  # someone else is not affected
    assert connected and (await first_frames(other))[1]["type"] == "state"
    await held.pop().disconnect()
    again, _ = await open_socket(room, "10.1.0.1")  # a freed place can be taken again
    assert (await first_frames(again))[1]["type"] == "state"
    for ws in [*held, other, again]:
        await ws.disconnect()


async def test_a_browser_holds_at_most_its_share_of_sockets_from_any_address(settings: Any) -> None:
    settings.WS_MAX_PER_BROWSER = 2
    room, sessions = await make_room(1)
    held = [(await open_socket(room, f"10.2.0.{i}", sessions[0]))[0] for i in range(2)]
    for ws in held:
        await first_frames(ws)
    extra, _ = await open_socket(room, "10.2.0.9", sessions[0])
    assert "browser" in await refused_clearly(extra)
    for ws in held:
        await ws.disconnect()


async def test_a_burst_of_arrivals_costs_one_presence_frame_not_one_per_socket(settings: Any) -> None:
    # The first socket's own arrival is told once its window has passed: a short one, and its
    # frame is waited for, so that the burst starts with no frame due.
    settings.PRESENCE_COALESCE = 0.01
    room, _ = await make_room(1)
    first, _ = await open_socket(room, "10.3.0.1")
    await first_frames(first)
    await frames_until(first, "presence", timeout=10)
    # The burst's window, which the code measures: long enough for twelve handshakes on a
    # loaded machine to fall in one or two of them.
    settings.PRESENCE_COALESCE = 3
    changed = mock.patch.object(sockets_module, "presence_changed", wraps=sockets_module.presence_changed)
    due = mock.patch.object(sockets_module, "send_presence", wraps=sockets_module.send_presence)
    with changed as arrivals, due as frames_due:
        burst = [(await open_socket(room, "10.3.0.2"))[0] for _ in range(12)]
        # Every arrival of the burst has asked for a presence frame (the end of connect, a
        # moment after the accept that open_socket waits for) ...
        for _ in range(1000):
            if arrivals.call_count == 12:
                break
            await asyncio.sleep(0.01)
        assert arrivals.call_count == 12
        # ... so every presence frame the burst causes is due by now: wait for exactly those,
        # instead of 3.5 s of quiet after the last.
        frames: list[dict[str, Any]] = []
        while not frames or sum(f["type"] == "presence" for f in frames) < frames_due.call_count:
            frames += await frames_until(first, "presence", timeout=10)
    presences = [f for f in frames if f["type"] == "presence"]
    assert 1 <= len(presences) <= 2  # one per PRESENCE_COALESCE while they arrive, not twelve
    assert presences[-1]["spectators"] == 13  # the last one tells all of them
    assert await frames_within(first, 0.2) == []  # a quiet spell: no third frame follows
    for ws in [first, *burst]:
        await ws.disconnect()


async def test_closing_120_sockets_together_costs_a_few_database_writes_and_one_presence_frame(
    settings: Any,
) -> None:
    """A flood cut off at once: its rows go in batches and the room hears it once, not 120 times each."""
    settings.PRESENCE_COALESCE = 0.5
    room, _ = await make_room(1)
    watcher, _ = await open_socket(room, "10.3.1.1")
    await first_frames(watcher)
    # From several addresses: one holds at most WS_MAX_PER_ADDRESS sockets.
    flood = [(await open_socket(room, f"10.3.2.{n // 40}"))[0] for n in range(120)]
    for ws in flood:
        await first_frames(ws)
    while (await frames_until(watcher, "presence", timeout=10))[-1]["spectators"] != 121:
        pass
    publish = mock.patch.object(sockets_module.fanout, "publish", wraps=sockets_module.fanout.publish)
    many = mock.patch.object(presence, "leave_many", wraps=presence.leave_many)
    one = mock.patch.object(presence, "leave", wraps=presence.leave)
    with publish as published, many as batches, one as single:
        await asyncio.gather(*(ws.disconnect() for ws in flood))
        while (await frames_until(watcher, "presence", timeout=10))[-1]["spectators"] != 1:
            pass
    assert await sync_to_async(Presence.objects.count)() == 1
    assert single.call_count == 0
    left = [name for call in batches.call_args_list for name in call.args[0]]
    assert len(left) == len(set(left)) == 120
    # Those closing while a batch is in the database wait for the next one: a few batches, not 120.
    assert batches.call_count <= 3, batches.call_count
    frames = [frame for call in published.call_args_list for frame in call.args[1]]
    assert sum('"presence"' in frame for frame in frames) == 1  # one frame tells the room all of it
    await watcher.disconnect()


async def test_pings_write_the_database_once_per_interval_not_each_time(settings: Any) -> None:
    settings.PING_WRITE_SECONDS = 60
    room, _ = await make_room(1)
    ws, _ = await open_socket(room, "10.4.0.1")
    _, state, _ = await first_frames(ws)
    with mock.patch.object(presence, "seen", wraps=presence.seen) as seen:
        for _ in range(10):
            await ws.send_json_to({"type": "ping"})
            assert (await frames_until(ws, "pong"))[-1]["version"] == state["version"]
    assert seen.call_count == 1
    await ws.disconnect()


async def test_hints_are_limited_per_browser_across_its_sockets(settings: Any) -> None:
    settings.WS_HINT_RATE = "3/60"
    room, sessions = await make_room(1)
    sockets = [(await open_socket(room, "10.5.0.1", sessions[0]))[0] for _ in range(2)]
    versions = [(await first_frames(ws))[1]["version"] for ws in sockets]
    answer = {"type": "hint", "version": versions[0], "best": []}
    with mock.patch.object(coach, "hint_for", return_value=answer) as hint_for:
        for n in range(6):
            await sockets[n % 2].send_json_to({"type": "hint", "version": versions[0], "id": f"hint-{n}"})
        replies = [f for ws in sockets for f in await frames_before_pong(ws) if f["type"] in ("hint", "error")]
    assert hint_for.call_count == 3
    assert sorted(f.get("code", "hint") for f in replies) == ["hint"] * 3 + ["rate_limited"] * 3
    for ws in sockets:
        await ws.disconnect()


async def test_a_storm_of_new_sockets_from_one_address_is_refused_before_any_database_work(settings: Any) -> None:
    settings.WS_CONNECT_RATE = "4/60"
    room, _ = await make_room(1)
    opened = []
    with mock.patch.object(presence, "arrive", wraps=presence.arrive) as arrive:
        for _ in range(4):
            ws, _ = await open_socket(room, "10.6.0.1")
            await first_frames(ws)
            await ws.disconnect()  # closed again: only the rate of new ones counts
        for _ in range(3):
            ws, _ = await open_socket(room, "10.6.0.1")
            assert "new connections" in await refused_clearly(ws)
            opened.append(ws)
    assert arrive.call_count == 4
    other, _ = await open_socket(room, "10.6.0.2")
    assert (await first_frames(other))[1]["type"] == "state"
    await other.disconnect()


async def test_the_sockets_of_one_address_share_one_frame_budget(settings: Any, limit_clock: ManualClock) -> None:
    settings.WS_FRAMES_PER_ADDRESS = 10
    settings.PRESENCE_COALESCE = 60  # the arrivals' presence frame must not land among the replies
    room, _ = await make_room(1)
    sockets = [(await open_socket(room, "10.7.0.1"))[0] for _ in range(3)]
    for ws in sockets:
        await first_frames(ws)
    replies = []
    for n in range(12):  # all in one second (the clock stands still): 4 a socket, each under its own 20
        await sockets[n % 3].send_json_to({"type": "ping"})
        replies.append(json.loads(await sockets[n % 3].receive_from()))
    assert [f.get("code", f["type"]) for f in replies] == ["pong"] * 10 + ["rate_limited"] * 2
    for ws in sockets:
        await ws.disconnect()


@contextlib.contextmanager
def no_work_behind_the_door() -> Iterator[dict[str, int]]:
    """Count, in every thread, SQL statements, session loads and room consumers made meanwhile."""
    seen = {"queries": 0, "sessions": 0, "consumers": 0}

    def counting(key: str, real: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            seen[key] += 1
            return real(*args, **kwargs)

        return wrapper

    with (
        mock.patch.object(CursorWrapper, "execute", counting("queries", CursorWrapper.execute)),
        mock.patch.object(CursorWrapper, "executemany", counting("queries", CursorWrapper.executemany)),
        mock.patch.object(SessionStore, "load", counting("sessions", SessionStore.load)),
        mock.patch.object(RoomConsumer, "__init__", counting("consumers", RoomConsumer.__init__)),
    ):
        yield seen


async def test_the_61st_handshake_of_an_address_is_refused_at_the_door_without_the_database(
    settings: Any, limit_clock: ManualClock
) -> None:
    """WS_CONNECT_RATE is applied before the session and the user are loaded: a storm costs no query."""
    settings.WS_CONNECT_RATE = "60/10"
    # No presence frame is read while the queries are counted (nor one every 0.25 s while the 60 come and go).
    settings.PRESENCE_COALESCE = 60
    room, sessions = await make_room(1)
    for _ in range(60):  # all in one moment: the clock stands still
        ws, connected = await open_socket(room, "10.8.0.1", sessions[0])
        assert connected
        await ws.disconnect()  # closed again: only the rate of new ones counts
    with no_work_behind_the_door() as seen:
        ws, _ = await open_socket(room, "10.8.0.1", sessions[0])
        assert "new connections" in await refused_clearly(ws)
    assert seen == {"queries": 0, "sessions": 0, "consumers": 0}
    other, _ = await open_socket(room, "10.8.0.2", sessions[0])  # another address is let in
    assert (await first_frames(other))[1]["type"] == "state"
    await other.disconnect()
    limit_clock.advance(10.01)  # the first of the 60 is more than 10 s old: one more may open
    again, connected = await open_socket(room, "10.8.0.1", sessions[0])
    assert connected and (await first_frames(again))[1]["type"] == "state"
    await again.disconnect()


async def test_an_address_over_its_share_of_open_sockets_is_refused_at_the_door_without_the_database(
    settings: Any,
) -> None:
    settings.WS_MAX_PER_ADDRESS = 2
    room, sessions = await make_room(1)
    held = [(await open_socket(room, "10.9.0.1", sessions[0]))[0] for _ in range(2)]
    for ws in held:  # two sockets, each counted once (the door and the consumer share the counter)
        await first_frames(ws)
    assert transport.current().by_address["10.9.0.1"] == 2
    with no_work_behind_the_door() as seen:
        extra, _ = await open_socket(room, "10.9.0.1", sessions[0])
        assert "at most 2" in await refused_clearly(extra)
    assert seen == {"queries": 0, "sessions": 0, "consumers": 0}
    for ws in held:
        await ws.disconnect()
    assert "10.9.0.1" not in transport.current().by_address  # their places are free again
    again, _ = await open_socket(room, "10.9.0.1")
    assert (await first_frames(again))[1]["type"] == "state"
    await again.disconnect()


async def test_a_browser_over_its_share_is_still_refused_after_the_door_and_frees_its_address_place(
    settings: Any,
) -> None:
    settings.WS_MAX_PER_BROWSER = 1
    room, sessions = await make_room(1)
    held, _ = await open_socket(room, "10.10.0.1", sessions[0])
    await first_frames(held)
    extra, _ = await open_socket(room, "10.10.0.1", sessions[0])
    assert "browser" in await refused_clearly(extra)
    await extra.disconnect()
    assert transport.current().by_address["10.10.0.1"] == 1 and list(transport.current().by_browser.values()) == [1]
    await held.disconnect()
    assert "10.10.0.1" not in transport.current().by_address and not transport.current().by_browser


@pytest.mark.usefixtures("limit_clock")
async def test_a_handshake_from_another_site_refused_at_the_door_is_not_accepted(settings: Any) -> None:
    settings.WS_CONNECT_RATE = "1/60"
    room, _ = await make_room(1)
    first, _ = await open_socket(room, "10.11.0.1")
    await first_frames(first)
    ws = WebsocketCommunicator(application, f"/ws/rooms/{room}/", headers=[(b"origin", b"http://evil.example")])
    ws.scope["client"] = ("10.11.0.1", 50000)
    connected, code = await ws.connect()
    assert (connected, code) == (False, 4403)
    await first.disconnect()


async def test_past_its_first_clear_refusals_an_address_has_its_handshakes_refused_without_an_accept(
    settings: Any, limit_clock: ManualClock
) -> None:
    """A real page learns why from the first WS_CLEAR_REFUSALS; the rest of a storm is refused before the accept."""
    settings.WS_CONNECT_RATE = "1/60"
    settings.WS_CLEAR_REFUSALS = 10
    settings.PRESENCE_COALESCE = 60  # no presence frame is read while the queries are counted
    room, _ = await make_room(1)
    with mock.patch.object(sockets_module, "start_sweeping"):  # nor the sweep (it may run late, under load)
        first, _ = await open_socket(room, "10.12.0.1")
        await first_frames(first)
        for _ in range(10):
            ws, connected = await open_socket(room, "10.12.0.1")
            assert connected and "new connections" in await refused_clearly(ws)
        with no_work_behind_the_door() as seen:
            for _ in range(5):
                ws, connected = await open_socket(room, "10.12.0.1")
                # Refused without an accept, and a short spell shows nothing is sent after.
                assert (connected, await ws.receive_nothing(timeout=0.05)) == (False, True)
        assert seen == {"queries": 0, "sessions": 0, "consumers": 0}
        other, connected = await open_socket(room, "10.12.0.2")  # another address: its own clear refusals
        assert connected
        await first_frames(other)
        told, connected = await open_socket(room, "10.12.0.2")
        assert connected and "new connections" in await refused_clearly(told)
    limit_clock.advance(60.01)  # a window later: clear again
    again, connected = await open_socket(room, "10.12.0.1")
    await first_frames(again)
    told, connected = await open_socket(room, "10.12.0.1")
    assert connected and "new connections" in await refused_clearly(told)
    for ws in (first, other, again):
        await ws.disconnect()


async def test_a_socket_cut_off_while_its_row_is_being_removed_is_not_removed_twice() -> None:
    """The server stops waiting for a closing socket (the communicator's timeout, here) while its
    row's batch is in the database: the batch goes on, and the socket's ending asks for no second one."""
    room, _ = await make_room(1)
    ws, _ = await open_socket(room, "10.3.9.1")
    await first_frames(ws)
    in_database = asyncio.Event()
    loop = asyncio.get_running_loop()
    release = threading.Event()
    real = presence.leave_many

    def slow(names: list[str]) -> set[str]:
        loop.call_soon_threadsafe(in_database.set)
        release.wait(5)
        return real(names)

    with mock.patch.object(presence, "leave_many", side_effect=slow) as batches:
        closing = asyncio.ensure_future(ws.disconnect(timeout=0.2))
        await asyncio.wait_for(in_database.wait(), 5)
        with contextlib.suppress(asyncio.TimeoutError):
            await closing  # cut off: the consumer is cancelled while its batch is in the database
        release.set()
        # The socket's ending is over (the communicator waited for it): a second batch it asked for
        # would be waiting for this one, and run by the same drain before it ends.
        drain = transport.current().draining[loop]
        await wait_until(drain.done, "the batch and its drain to end")
        assert loop not in transport.current().leaving  # nothing left for another batch
    names = [name for call in batches.call_args_list for name in call.args[0]]
    assert len(names) == 1, names
    assert not await sync_to_async(Presence.objects.filter(game__code=room).exists)()

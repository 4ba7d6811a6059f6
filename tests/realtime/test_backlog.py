"""games/realtime/backlog.py: each websocket's own bounded send queue, under any ASGI server.

A socket's messages go out in order and putting one never waits; past WS_SEND_BACKLOG bytes
unsent the socket is closed (4009), and cut after WS_SEND_GRACE if it does not finish
closing. The unit tests fake the servers' ``send`` (uvicorn's, which waits once its buffer
is full; Daphne's, which never waits but buffers); the live tests run both servers with a
client that stops reading in a busy room.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from games.domain.protocol import CLOSE_TOO_SLOW
from games.realtime import fanout
from games.realtime.backlog import OUTBOX, BoundedSend, Outbox
from games.services import turns
from tests.live import SERVERS, Browser, ServerProcess, migrate_sqlite, open_ws, server_env
from tests.waiting import wait_until

pytestmark = pytest.mark.asyncio


@pytest.fixture
def small(settings: Any) -> Any:
    settings.WS_SEND_BACKLOG = 1000
    settings.WS_SEND_GRACE = 0.05
    return settings


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


async def until_cut(transport: TwistedTransport | AsyncioTransport) -> None:
    """Until the outbox cuts ``transport`` (after WS_SEND_GRACE): it fails after 5 s."""
    await asyncio.wait_for(transport.gone.wait(), 5)


class TwistedTransport:
    """Daphne's TCP transport as far as the outbox looks: Twisted's write buffer, and a way to cut it."""

    dataBuffer = b""  # declared on the class, as Twisted's FileDescriptor does
    offset = 0

    def __init__(self) -> None:
        self._tempDataLen = 0
        self.disconnected = False
        self.cut = False
        self.gone = asyncio.Event()

    def abortConnection(self) -> None:
        self.cut = self.disconnected = True
        self.gone.set()


class DaphneProtocol:
    def __init__(self) -> None:
        self.transport = TwistedTransport()
        self.replies: list[dict[str, Any]] = []


async def handle_reply(protocol: DaphneProtocol, message: dict[str, Any]) -> None:
    """Daphne's Server.handle_reply: what Daphne hands an application as ``send``; it never waits."""
    protocol.replies.append(message)


class AsyncioTransport:
    def __init__(self) -> None:
        self.buffered = 0
        self.aborted = False
        self.gone = asyncio.Event()

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def abort(self) -> None:
        self.aborted = True
        self.gone.set()


class UvicornProtocol:
    """uvicorn's websocket protocol as far as the outbox sees it: ``send`` waits while the client does not read."""

    def __init__(self) -> None:
        self.transport = AsyncioTransport()
        self.replies: list[dict[str, Any]] = []
        self.writable = asyncio.Event()
        self.writable.set()
        self.lost = False

    async def send(self, message: dict[str, Any]) -> None:
        await self.writable.wait()
        if self.lost or self.transport.aborted:
            raise ConnectionResetError("the client is gone")
        self.replies.append(message)

    def stop_reading(self) -> None:
        self.writable.clear()

    def cut(self) -> None:  # what uvicorn does when the transport is aborted: waiting sends wake and fail
        self.lost = True
        self.writable.set()


def texts(replies: list[dict[str, Any]]) -> list[Any]:
    return [m.get("text", m.get("code")) for m in replies if m["type"] != "websocket.accept"]


async def serve(app: Any, send: Any, server: Any = None) -> None:
    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    await BoundedSend(app)({"type": "websocket", "path": "/ws/rooms/x/", "server": server}, receive, send)


# --- the queue ------------------------------------------------------------------------------


async def test_frames_go_out_in_order_without_waiting_for_the_server(small: Any) -> None:
    server = UvicornProtocol()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "websocket.accept"})
        server.stop_reading()  # the server's send waits from here on: puts must not
        for n in range(5):
            await send({"type": "websocket.send", "text": f"frame {n}"})
        scope[OUTBOX].put({"type": "websocket.send", "text": "pushed"})  # fanout's way in
        await send({"type": "websocket.send", "text": "last"})
        await settle()
        assert texts(server.replies) == []
        server.writable.set()  # the client reads again
        await settle()
        assert texts(server.replies) == [f"frame {n}" for n in range(5)] + ["pushed", "last"]

    await serve(app, server.send)
    assert not server.transport.aborted


async def test_a_socket_too_far_behind_is_closed_with_4009_and_cut_when_the_close_cannot_go_out(small: Any) -> None:
    server = UvicornProtocol()
    outbox: list[Outbox] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        outbox.append(scope[OUTBOX])
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.send", "text": "read"})
        await settle()
        server.stop_reading()
        for n in range(20):  # 20 x 100 bytes against a 1,000-byte backlog
            await send({"type": "websocket.send", "text": f"{n:<100}"})
        assert outbox[0].behind and outbox[0].queued == 0  # what was queued is dropped at once
        await send({"type": "websocket.send", "text": "after"})  # dropped too
        await until_cut(server.transport)  # the grace passes: the connection is cut
        server.cut()
        await settle()

    await serve(app, server.send)
    assert texts(server.replies) == ["read"]  # the close never went out: the client did not read
    assert server.transport.aborted


async def test_a_slow_socket_that_reads_its_close_is_not_cut(small: Any) -> None:
    # Nothing here waits for the grace to pass: a long one keeps a loaded machine's slow loop
    # from cutting a socket that does read its close in time.
    small.WS_SEND_GRACE = 2.0
    server = UvicornProtocol()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "websocket.accept"})
        server.stop_reading()
        for n in range(20):
            await send({"type": "websocket.send", "text": f"{n:<100}"})
        server.writable.set()  # it reads again, in time to get its close
        await settle()

    await serve(app, server.send)
    assert texts(server.replies)[-1] == CLOSE_TOO_SLOW
    assert len(texts(server.replies)) < 11 and not server.transport.aborted


async def test_the_server_s_own_buffer_counts_toward_the_backlog(small: Any) -> None:
    server = UvicornProtocol()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.send", "text": "one"})
        await settle()
        server.transport.buffered = 5000  # written, but the kernel has not taken it
        await send({"type": "websocket.send", "text": "two"})
        await settle()

    await serve(app, server.send)
    assert texts(server.replies) == ["one", CLOSE_TOO_SLOW]


async def test_under_daphne_a_socket_too_far_behind_is_closed_and_nothing_more_is_sent(small: Any) -> None:
    protocol = DaphneProtocol()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "websocket.accept"})
        for n in range(10):
            if n == 3:  # the client stops reading: Twisted's buffer fills
                protocol.transport._tempDataLen = 5000
            await send({"type": "websocket.send", "text": f"frame {n}"})
            await settle()
        assert not protocol.transport.cut
        await until_cut(protocol.transport)  # the close was not read either: the connection (and its buffer) goes

    await serve(app, functools.partial(handle_reply, protocol))
    assert texts(protocol.replies) == ["frame 0", "frame 1", "frame 2", CLOSE_TOO_SLOW]


async def test_under_daphne_a_socket_that_keeps_up_gets_every_frame(small: Any) -> None:
    protocol = DaphneProtocol()
    outbox: list[Outbox] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        outbox.append(scope[OUTBOX])
        await send({"type": "websocket.accept"})
        for n in range(10):
            await send({"type": "websocket.send", "text": f"frame {n}"})

    await serve(app, functools.partial(handle_reply, protocol))
    assert texts(protocol.replies) == [f"frame {n}" for n in range(10)]
    # Served to its end, never closing, and no cut ever set to come after a grace: none came.
    assert not outbox[0].closed and outbox[0]._cut_timer is None
    assert not outbox[0].was_cut and not protocol.transport.cut


async def test_with_no_transport_to_cut_the_application_is_ended(small: Any) -> None:
    """Another ASGI server: the close cannot go out, nothing can be aborted, so the socket's application ends."""
    stuck = asyncio.Event()
    sent: list[dict[str, Any]] = []
    ended: list[str] = []

    async def send(message: dict[str, Any]) -> None:
        if message["type"] != "websocket.accept":
            await stuck.wait()
        sent.append(message)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "websocket.accept"})
        for n in range(20):
            await send({"type": "websocket.send", "text": f"{n:<100}"})
        try:
            await asyncio.sleep(10)
        finally:
            ended.append("cleaned up")

    await asyncio.wait_for(serve(app, send), 2)  # returns: no CancelledError reaches the server
    assert ended == ["cleaned up"] and [m["type"] for m in sent] == ["websocket.accept"]


async def test_the_application_s_own_close_goes_out_after_what_it_queued(small: Any) -> None:
    server = UvicornProtocol()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.send", "text": "bye"})
        await send({"type": "websocket.close", "code": 4008})
        await send({"type": "websocket.send", "text": "never"})

    await serve(app, server.send)
    assert texts(server.replies) == ["bye", 4008]


# --- the fan-out: one stuck socket holds up nobody -------------------------------------------


class QueuedSocket:
    """A room socket as games.realtime.consumer.RoomConsumer is one: fanout's frames go into its outbox."""

    def __init__(self, outbox: Outbox) -> None:
        self.outbox = outbox

    async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
        self.outbox.put({"type": "websocket.send", "text": text_data})

    def push(self, frames: list[str], version: int | None = None) -> None:
        for text in frames:
            self.outbox.put({"type": "websocket.send", "text": text})


# --- under uvicorn's own websocket protocol ----------------------------------------------------


class LoopbackTransport(asyncio.Transport):
    """The asyncio transport under uvicorn's protocol: what is written, and a buffer size to set."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.buffered = 0
        self.closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += data

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.closing = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)


def uvicorn_socket(app: Any) -> tuple[Any, LoopbackTransport, Any]:
    """uvicorn's sans-I/O websocket protocol serving ``app`` behind BoundedSend, its client's handshake sent."""
    from uvicorn.config import Config
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    from uvicorn.server import ServerState
    from websockets.client import ClientProtocol
    from websockets.uri import parse_uri

    config = Config(app=BoundedSend(app), ws="websockets-sansio", ws_per_message_deflate=False, lifespan="off")
    config.load()
    server = WebSocketsSansIOProtocol(config=config, server_state=ServerState(), app_state={})
    transport = LoopbackTransport()
    server.connection_made(transport)
    client = ClientProtocol(parse_uri("ws://127.0.0.1:8000/ws/rooms/x/"))
    client.send_request(client.connect())
    server.data_received(b"".join(client.data_to_send()))
    return server, transport, client


def received(client: Any, transport: LoopbackTransport) -> list[str]:
    """The text frames the client has been sent since the last call."""
    client.receive_data(bytes(transport.written))
    transport.written.clear()
    return [event.data.decode() for event in client.events_received() if getattr(event, "opcode", None) == 1]


async def accepted_socket() -> tuple[Any, LoopbackTransport, Any, Outbox]:
    """A socket under uvicorn's protocol that its application accepted and keeps open; its outbox."""
    box: dict[str, Outbox] = {}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        box["outbox"] = scope[OUTBOX]
        while (await receive())["type"] != "websocket.disconnect":
            pass

    server, transport, client = uvicorn_socket(app)
    await settle()
    return server, transport, client, box["outbox"]


async def test_under_uvicorn_a_frame_is_written_at_once_and_built_once_for_every_socket(small: Any) -> None:
    from websockets.frames import Frame, Opcode

    def app_putting(state: str, puts: asyncio.Event) -> Any:
        async def app(scope: Any, receive: Any, send: Any) -> None:
            assert (await receive())["type"] == "websocket.connect"
            await send({"type": "websocket.accept"})
            await puts.wait()
            scope[OUTBOX].put({"type": "websocket.send", "text": state})  # fanout's way in
            await send({"type": "websocket.send", "text": "after"})
            while (await receive())["type"] != "websocket.disconnect":  # the socket stays open
                pass

        return app

    state = json.dumps({"type": "state", "version": 7, "pad": "x" * 200})
    puts = asyncio.Event()
    sockets = [uvicorn_socket(app_putting(state, puts)) for _ in range(2)]
    await settle()  # accepted
    for server, transport, client in sockets:
        assert client.handshake_exc is None and received(client, transport) == []
        server.conn.send_text = None  # the server's own framing is not called from here on
    puts.set()
    await settle()
    for server, transport, client in sockets:
        # Both the fan-out's frame and the application's own: written in order, by the outbox.
        assert received(client, transport) == [state, "after"]
        assert server.queue.qsize() == 0 and not server.close_sent
    # What the outbox writes is what the server's send would have: one unmasked text frame.
    from games.realtime.backlog import wire_frame

    assert wire_frame(state) == Frame(Opcode.TEXT, state.encode()).serialize(mask=False)
    assert wire_frame(state) is wire_frame(state)  # built once for every socket
    for server, _transport, _client in sockets:
        server.connection_lost(None)
    await settle()


async def test_under_uvicorn_a_paused_transport_queues_frames_and_sends_them_in_order_when_it_resumes(
    small: Any,
) -> None:
    server, transport, client, outbox = await accepted_socket()
    outbox.put({"type": "websocket.send", "text": "one"})
    assert received(client, transport) == ["one"]  # written in put, not later
    server.pause_writing()  # the kernel's buffer is full: uvicorn's send waits
    transport.buffered = 300
    for text in ("two", "three"):
        outbox.put({"type": "websocket.send", "text": text})
    await settle()
    # "two" in the server's send, waiting for the transport; "three" queued behind it.
    assert received(client, transport) == [] and outbox.sending and [m["text"] for m in outbox.messages] == ["three"]
    server.resume_writing()
    outbox.put({"type": "websocket.send", "text": "four"})  # behind the queued ones, not ahead
    await settle()
    assert received(client, transport) == ["two", "three", "four"] and not outbox.messages
    # One frame waiting in the server's send, none queued: the next one still does not overtake it.
    server.pause_writing()
    outbox.put({"type": "websocket.send", "text": "five"})
    await settle()
    assert outbox.sending and not outbox.messages
    server.resume_writing()
    outbox.put({"type": "websocket.send", "text": "six"})
    await settle()
    assert received(client, transport) == ["five", "six"] and not outbox.sending
    # Past the bound, paused: closed with 4009, as through the server's send.
    server.pause_writing()
    transport.buffered = 990
    outbox.put({"type": "websocket.send", "text": "x" * 20})
    assert outbox.behind and outbox.closed
    server.resume_writing()
    await settle()
    client.receive_data(bytes(transport.written))
    closes = [event for event in client.events_received() if getattr(event, "opcode", None) == 8]
    assert len(closes) == 1 and client.close_rcvd is not None and client.close_rcvd.code == CLOSE_TOO_SLOW
    outbox.put({"type": "websocket.send", "text": "late"})  # nothing after the close
    await settle()
    assert received(client, transport) == []
    server.connection_lost(None)
    await settle()


async def test_under_uvicorn_nothing_is_written_directly_after_the_close_or_once_the_transport_closes(
    small: Any,
) -> None:
    server, transport, client, outbox = await accepted_socket()
    transport.closing = True  # the connection is going: the server's send decides, not the outbox
    assert not outbox._write_now({"type": "websocket.send", "text": "a"})
    transport.closing = False
    server.close_sent = True
    assert not outbox._write_now({"type": "websocket.send", "text": "a"})
    server.close_sent = False
    assert outbox._write_now({"type": "websocket.send", "text": "a"})
    assert not outbox._write_now({"type": "websocket.send", "bytes": b"a"})  # binary: the server's send
    server.conn.extensions = [object()]  # an extension (compression) would change the frame's bytes
    assert not outbox._write_now({"type": "websocket.send", "text": "a"})
    server.connection_lost(None)
    await settle()
    assert not outbox._write_now({"type": "websocket.send", "text": "a"})


async def test_a_socket_whose_client_stopped_reading_holds_up_no_other_socket_of_the_room(small: Any) -> None:
    code = f"stuck{id(small)}"
    stuck, fine = UvicornProtocol(), UvicornProtocol()
    stuck.stop_reading()
    ready: dict[Any, Outbox] = {}
    done = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "websocket.accept"})
        socket = QueuedSocket(scope[OUTBOX])
        await fanout.join(code, socket)
        ready[scope["server"]] = scope[OUTBOX]
        try:
            await done.wait()
        finally:
            await fanout.leave(code, socket)

    servers = [asyncio.create_task(serve(app, server.send, server)) for server in (stuck, fine)]
    await wait_until(lambda: len(ready) == 2, "both sockets accepted and in the room")
    for version in range(1, 31):  # 30 x 100 bytes: the stuck socket passes its 1,000 bytes
        await fanout.publish(code, [f"{version:<100}"], version=version)
        await settle()
        assert len(fine.replies) == version + 1  # accept + every frame so far, at once
    assert ready[stuck].behind and not ready[fine].behind
    await until_cut(stuck.transport)
    # The socket that keeps up is not closing, and no cut is set to come after a grace.
    assert not ready[fine].closed and ready[fine]._cut_timer is None
    assert not ready[fine].was_cut and not fine.transport.aborted
    stuck.cut()
    done.set()
    await asyncio.gather(*servers)


# --- live: a real server and a client that stops reading -------------------------------------


def live_env(data_dir: Path) -> dict[str, str]:
    env = server_env(
        DATA_DIR=str(data_dir),
        SECRET_KEY="backlog-live-" + "x" * 50,
        BOT_TABLES_AT_START="0",
        RATE_LIMITS="0",
        # Off (0): the player acts again as soon as each state arrives, which a fast machine
        # answers over a thousand times a second; the frame limit is tested in tests/realtime/consumers.
        WS_RATE_LIMIT="0",
        WS_SEND_BACKLOG="131072",  # past uvicorn's 64 KiB write buffer: its send waits, the queue grows
        WS_SEND_GRACE="0.5",
    )
    for name in ("DATABASE_URL", "REDIS_URL", "CACHE_URL"):
        env.pop(name, None)
    return env


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path


def start_server(kind: str, data_dir: Path) -> ServerProcess:
    env = live_env(data_dir)
    migrate_sqlite(env)  # a copy of one database migrated once (3-4 s of each test before)
    return ServerProcess(env, log_dir=data_dir, server=kind).start(timeout=60)


def held_open(server_port: int, client_port: int) -> bool:
    """Whether the server's end of the TCP connection from ``client_port`` is still established
    (Linux's /proc/net/tcp: a connection the server aborted is gone from it, one it closed waits out its close)."""
    local, remote = f"0100007F:{server_port:04X}", f"0100007F:{client_port:04X}"
    with open("/proc/net/tcp") as table:
        return any(
            fields[1] == local and fields[2] == remote and fields[3] == "01"
            for fields in (line.split() for line in list(table)[1:])
        )


async def next_state(ws: ClientConnection, above: int) -> dict[str, Any]:
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert frame["type"] != "error", frame
        if frame["type"] == "state" and frame["version"] > above:
            return dict(frame)


@pytest.mark.parametrize("kind", SERVERS)
async def test_live_a_client_that_stops_reading_is_closed_and_the_room_plays_on(kind: str, data_dir: Path) -> None:
    server = start_server(kind, data_dir)
    try:
        browser = Browser(server.url)
        code = browser.create_room("Busy", ruleset="triple")  # 39 turns: room for a long run of actions
        player = await open_ws(server, code, browser.cookie("sessionid"), rcvbuf=4096)
        state = await next_state(player, -1)
        held_since_roll = 0

        async def act(frame: dict[str, Any]) -> None:
            nonlocal state
            await player.send(json.dumps({**frame, "version": state["version"], "id": f"a{state['version']}"}))
            state = await next_state(player, state["version"])

        async def busy() -> None:
            """An action that changes the room: a die held or let go, else a roll, else a score."""
            nonlocal held_since_roll
            turn = state["turn"]
            if turn["rolls_used"] and turn["rolls_left"] and held_since_roll < turns.HOLDS_PER_ROLL:
                await act({"type": "hold", "held": [] if turn["held"] else [0]})
                held_since_roll += 1
            elif turn["rolls_left"]:
                await act({"type": "roll"})
                held_since_roll = 0
            else:
                box = next(o for o in state["options"] if o["legal"])
                await act({"type": "score", "box": box["box"], "column": box["column"]})

        await act({"type": "start"})
        await act({"type": "roll"})
        # max_queue=1: the client library stops reading the socket once a frame waits.
        slow = await open_ws(server, code, rcvbuf=4096, max_queue=1)
        deadline = time.monotonic() + 90
        actions = 0
        while "closing a websocket" not in server.log() and time.monotonic() < deadline:
            await busy()  # every one answered in time
            actions += 1
        assert "closing a websocket" in server.log(), f"no 4009 after {actions} actions:\n{server.log()}"
        # Until the server has let go of the slow socket: cut when the grace (0.5 s) passes, or closed
        # if the close got through. The room plays on after that.
        await wait_until(
            lambda: not held_open(server.port, slow.local_address[1]), "the slow socket to be closed or cut", every=0.05
        )
        for _ in range(5):  # the room plays on
            await busy()
        # Reading again, the slow client finds its socket closed: 4009, or cut (1006).
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(slow.recv(), 10)
        received = closed.value.rcvd
        assert received is None or received.code == CLOSE_TOO_SLOW
        await player.close()
    finally:
        server.stop()
        with contextlib.suppress(FileNotFoundError):
            server.log_path.unlink()

"""Bounded outgoing data per websocket, under any ASGI server: a socket too far behind is closed (4009).

Every message the application sends on a websocket goes into the socket's ``Outbox``: a
queue that one writer task empties into the server's own ``send``, in order. Putting a
message never waits, so the fan-out (games/realtime/fanout.py) hands a room's frames to each of
its sockets and moves on: one socket whose client stopped reading holds up nobody else.

Under uvicorn the server's ``send`` waits once the connection's write buffer is full
(flow control); under Daphne it never waits and the frame goes into Twisted's buffer,
which has no bound (a client that never reads, but pings, in a busy room made one Daphne
worker grow by 9 MB/s). So a socket's backlog is what its outbox holds plus what the
server's transport has not handed to the kernel yet (Twisted's buffer, or an asyncio
transport's write buffer), looked up before each frame. Past ``WS_SEND_BACKLOG`` bytes the
frame is dropped with everything queued, the socket gets a close with code 4009 ("too far
behind"), and every later frame is dropped too. A socket closed by the server (for this
or any other reason) that has not finished closing within ``WS_SEND_GRACE`` seconds has
its connection cut (the transport aborted), which frees its buffers. The page reconnects
on any close but 4404, and a new socket starts with the room's whole state, so it resyncs.

With no transport in reach (another ASGI server, a test communicator) the backlog is the
outbox alone, and cutting a connection ends the application, leaving the connection to
the server.

Under uvicorn's sans-I/O websocket protocol a text frame whose socket has nothing queued
ahead of it is written by ``put`` itself, as the bytes of a websocket frame built once for
every socket that sends the same text (a room's state goes to each of its sockets): the
server's ``send`` would frame and encode it again for each socket, and the writer task
would be woken once a socket and frame. It is written so only where that ``send`` would
write it at once: the connection open, no close sent, the transport taking writes (not
paused by flow control), no extension negotiated (compression is off, yahtzee/serve.py).
Anything else goes through the queue and the server's ``send`` as before.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import deque
from typing import Any

from django.conf import settings
from websockets.frames import Frame, Opcode
from websockets.protocol import State

from games.domain.protocol import CLOSE_TOO_SLOW

log = logging.getLogger(__name__)

OUTBOX = "yahtzee.outbox"  # the scope key of a socket's Outbox, for a consumer's own puts
_END = {"type": "yahtzee.outbox.end"}


def transport_of(send: Any) -> Any:
    """The transport behind the server's ``send``, or None.

    Daphne's is ``partial(server.handle_reply, protocol)``, and the websocket protocol's
    own transport is the HTTP channel it was upgraded from (a proxy): the buffer is on the
    TCP transport under it. uvicorn's is a bound method of its websocket protocol, whose
    ``transport`` is the asyncio transport.
    """
    if isinstance(send, functools.partial) and send.args:
        transport = getattr(send.args[0], "transport", None)
        for _ in range(4):
            # Twisted's FileDescriptor declares its buffer on the class; a proxy only forwards it.
            if transport is None or hasattr(type(transport), "dataBuffer"):
                return transport
            transport = getattr(transport, "transport", None)
        return None
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    return transport if hasattr(transport, "get_write_buffer_size") else None


def backlog(transport: Any) -> int:
    """Bytes written to the transport that the kernel has not taken yet."""
    if transport is None:
        return 0
    size = getattr(transport, "get_write_buffer_size", None)
    if size is not None:
        return int(size())
    return len(transport.dataBuffer) - int(getattr(transport, "offset", 0)) + int(getattr(transport, "_tempDataLen", 0))


def direct_writer(send: Any) -> Any:
    """uvicorn's sans-I/O websocket protocol behind ``send`` (whose ``send`` writes a frame at once), or None."""
    protocol = getattr(send, "__self__", None)
    conn = getattr(protocol, "conn", None)
    needed = ("transport", "writable", "disconnected", "close_sent", "handshake_complete", "initial_response")
    if conn is None or not all(hasattr(protocol, name) for name in needed) or not hasattr(conn, "extensions"):
        return None
    return protocol


@functools.lru_cache(maxsize=64)
def wire_frame(text: str) -> bytes:
    """``text`` as a whole, unmasked websocket text frame: what a server writes for it (the same for every socket)."""
    return Frame(Opcode.TEXT, text.encode()).serialize(mask=False)


def _size(message: dict[str, Any]) -> int:
    data = message.get("text")
    if data is None:
        data = message.get("bytes")
    return len(data) if data is not None else 0


class Outbox:
    """One websocket's outgoing messages, sent in order by one writer task; ``put`` never waits."""

    def __init__(self, send: Any, path: str = "") -> None:
        self._send = send
        # For the log only: escaped as Django escapes a request's path, since the address is the client's.
        self.path = path.encode("unicode_escape").decode("ascii")
        self.transport = transport_of(send)
        self.direct = direct_writer(send)
        self.limit: int = settings.WS_SEND_BACKLOG
        self.grace: float = settings.WS_SEND_GRACE
        self.messages: deque[dict[str, Any]] = deque()
        self.queued = 0  # bytes of frames in ``messages``
        self.closed = False  # a close is queued (or sent): nothing after it goes out
        self.behind = False  # closed for falling behind (4009)
        self.dead = False  # the server's send failed: the connection is gone
        self.was_cut = False
        self.sending = False  # the writer task is in the server's send (which may wait): nothing overtakes it
        self._ready = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()  # the application's, ended by a cut with no transport
        self._writer = self._loop.create_task(self._write())
        self._cut_timer: asyncio.TimerHandle | None = None

    def put(self, message: dict[str, Any]) -> None:
        """Queue ``message`` (an ASGI send event) behind those before it, or drop it if the socket is closing."""
        if self.closed or self.dead:
            return  # closed (too far behind, or by the application): nothing more goes out
        kind = message["type"]
        if kind == "websocket.send":
            size = _size(message)
            if self.limit and self.queued + size + backlog(self.transport) > self.limit:
                self._too_far_behind(size)
                return
            if self.direct is not None and not self.messages and not self.sending and self._write_now(message):
                return
            self.queued += size
        elif kind == "websocket.close":
            self._closing()
        self.messages.append(message)
        self._ready.set()

    def _write_now(self, message: dict[str, Any]) -> bool:
        """Write a text frame to the transport now, as the server's ``send`` would; False where it would not."""
        protocol = self.direct
        text = message.get("text")
        conn = protocol.conn
        if (
            text is None
            or conn.state is not State.OPEN
            or conn.extensions
            or protocol.close_sent
            or protocol.disconnected
            or not protocol.handshake_complete
            or protocol.initial_response is not None
            or not protocol.writable.is_set()
            or protocol.transport.is_closing()
        ):
            return False
        protocol.transport.write(wire_frame(text))
        return True

    async def send(self, message: dict[str, Any]) -> None:
        """The ``send`` the application gets: queues, never waits."""
        self.put(message)

    def _too_far_behind(self, size: int) -> None:
        log.warning("closing a websocket %d bytes behind (%s)", self.queued + size + backlog(self.transport), self.path)
        self.behind = True
        # The frames queued behind are dropped (the new socket resyncs); an accept still queued is not.
        self.messages = deque(m for m in self.messages if m["type"] != "websocket.send")
        self.queued = 0
        self._closing()
        self.messages.append({"type": "websocket.close", "code": CLOSE_TOO_SLOW})
        self._ready.set()

    def _closing(self) -> None:
        self.closed = True
        if self._cut_timer is None:
            self._cut_timer = self._loop.call_later(self.grace, self.cut)

    async def _write(self) -> None:
        while True:
            await self._ready.wait()
            self._ready.clear()
            while self.messages:
                message = self.messages.popleft()
                if message is _END:
                    return
                self.queued -= _size(message) if message["type"] == "websocket.send" else 0
                self.sending = True
                try:
                    await self._send(message)
                except Exception:  # the connection went meanwhile: nothing more can go out
                    log.debug("a websocket's send failed (%s)", self.path, exc_info=True)
                    self.dead = True
                    self.messages.clear()
                    self.queued = 0
                    return
                finally:
                    self.sending = False

    async def finish(self) -> None:
        """The application returned: what it queued (its close, say) gets WS_SEND_GRACE to go out."""
        self.messages.append(_END)
        self._ready.set()
        self._task = None  # nothing of the application's left to end
        done, _ = await asyncio.wait({self._writer}, timeout=self.grace)
        if not done:
            self.cut()

    def stop(self) -> None:
        if self._cut_timer is not None:
            self._cut_timer.cancel()
        self._writer.cancel()

    def cut(self) -> None:
        """The socket did not finish closing in time: drop the connection, and its buffers with it."""
        self._cut_timer = None
        if self.was_cut:
            return
        self.was_cut = True
        self.messages.clear()
        self.queued = 0
        transport = self.transport
        if transport is None:  # nothing to abort: end the application; the server drops the connection
            self._writer.cancel()
            if self._task is not None:
                self._task.cancel()
            return
        if getattr(transport, "disconnected", False):
            return
        abort = getattr(transport, "abortConnection", None) or getattr(transport, "abort", None)
        try:
            (abort or transport.loseConnection)()
        except Exception:  # noqa: BLE001 - it went away meanwhile
            log.debug("cutting a slow websocket failed", exc_info=True)


class BoundedSend:
    """ASGI middleware: every websocket's messages go through its own ``Outbox`` (scope[OUTBOX])."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] != "websocket":
            return await self.application(scope, receive, send)
        outbox = Outbox(send, str(scope.get("path", "")))
        try:
            await self.application({**scope, OUTBOX: outbox}, receive, outbox.send)
            await outbox.finish()
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if not outbox.was_cut or outbox.transport is not None or task is None:
                raise
            task.uncancel()  # cut with no transport to abort: the application ended on purpose
        finally:
            outbox.stop()
        return None

"""Bounded outgoing data per websocket: a socket that falls too far behind is closed (4009).

Daphne writes every frame an application sends straight into the connection's Twisted
transport, whose buffer has no bound: a client that never reads (but pings, so it is
not timed out) in a busy room made one worker grow by 9 MB/s and keep it. This ASGI
middleware looks at that buffer before each frame: past ``WS_SEND_BACKLOG`` bytes not
yet taken by the kernel, the frame is dropped, the socket gets a close with code 4009
("too far behind"), and every later frame is dropped too. A client that did not read
its close within ``WS_SEND_GRACE`` seconds has its connection cut, which frees the
buffer. The page reconnects on any close but 4404, and a new socket starts with the
room's whole state, so it resyncs.

Under another ASGI server (or a test communicator) there is no transport to look at and
the middleware only passes frames through.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any

from django.conf import settings

log = logging.getLogger(__name__)

CLOSE_TOO_SLOW = 4009


def transport_of(send: Any) -> Any:
    """The TCP transport behind Daphne's ``send`` (``partial(server.handle_reply, protocol)``), or None.

    The websocket protocol's own transport is the HTTP channel it was upgraded from (a
    proxy): the buffer is on the TCP transport under it.
    """
    if not isinstance(send, functools.partial) or not send.args:
        return None
    transport = getattr(send.args[0], "transport", None)
    for _ in range(4):
        # Twisted's FileDescriptor declares its buffer on the class; a proxy only forwards it.
        if transport is None or hasattr(type(transport), "dataBuffer"):
            return transport
        transport = getattr(transport, "transport", None)
    return None


def backlog(transport: Any) -> int:
    """Bytes written to the transport that the kernel has not taken yet."""
    return len(transport.dataBuffer) - int(getattr(transport, "offset", 0)) + int(getattr(transport, "_tempDataLen", 0))


class BoundedSend:
    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        transport = transport_of(send) if scope["type"] == "websocket" else None
        if transport is None:
            return await self.application(scope, receive, send)
        limit = settings.WS_SEND_BACKLOG
        behind = False

        async def bounded(message: dict[str, Any]) -> None:
            nonlocal behind
            if behind:
                return  # closed for falling behind: nothing more is queued for it
            if message["type"] == "websocket.send" and limit and backlog(transport) > limit:
                behind = True
                log.warning("closing a websocket %d bytes behind (%s)", backlog(transport), scope.get("path"))
                await send({"type": "websocket.close", "code": CLOSE_TOO_SLOW})
                grace = settings.WS_SEND_GRACE
                asyncio.get_running_loop().call_later(grace, _cut, transport)
                return
            await send(message)

        return await self.application(scope, receive, bounded)


def _cut(transport: Any) -> None:
    """The close was not read either: drop the connection, and its buffer with it."""
    if getattr(transport, "disconnected", False):
        return
    abort = getattr(transport, "abortConnection", None)
    try:
        (abort or transport.loseConnection)()
    except Exception:  # noqa: BLE001 - it went away meanwhile
        log.debug("cutting a slow websocket failed", exc_info=True)

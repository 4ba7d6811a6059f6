"""The websocket's first door: an address's share of sockets, before any session or database work.

A storm of handshakes from one address (``WS_CONNECT_RATE``) or one holding its share
already (``WS_MAX_PER_ADDRESS``) is refused here, not in the room consumer: there it would
come after Channels' session and auth middleware had loaded the session and the user (a
trip to the database thread for every handshake, two queries with a session cookie) and
the consumer was made, 2.8 ms of the worker's CPU a refused handshake (4.4 ms with a
cookie) against 1.2–1.6 ms here. This middleware, outermost in the websocket stack
(yahtzee/asgi.py), checks the Origin, counts the address and refuses there: no session, no
user, no consumer. An address's first
``WS_CLEAR_REFUSALS`` (10) refusals in a ``WS_CONNECT_RATE`` window are the same as the
consumer's (docs/protocol.md): the socket is accepted only to say why, one error frame
``too_many_sockets``, then close 4029, so a real page learns why. The rest of a storm is
refused before the accept: ``websocket.close`` without ``websocket.accept``, which
uvicorn answers with HTTP 403 (no websocket, no frame), and which costs the worker less
(1.0–1.2 ms a handshake against 1.2–1.6 ms for the clear refusal; bench: 1,000 from one
address). A handshake from another site's page (``games.realtime.origin``) is refused first,
without being accepted and before the address is counted: such a page, opening sockets in a
loop in its visitor's browser, would otherwise use up the address's share and keep the
visitor's own room page from connecting.

Every socket's end, refused ones included, is told to ``games.realtime.memory`` (it gives
freed memory back after many have gone).

The counters are ``games.realtime.sockets``'s (and the new sockets' rate ``games.realtime.limits``'s): the
address's place is held here until the socket ends, and the consumer (``admit``) counts
only the browser's (``WS_MAX_PER_BROWSER``, which needs the session), so no socket is
counted twice. Per process, like every cap.
"""

from __future__ import annotations

from typing import Any

from games.domain import errors, protocol
from games.domain.protocol import CLOSE_ORIGIN, CLOSE_TOO_MANY
from games.realtime import consumer, memory, sockets
from games.realtime.limits import scope_ip
from games.realtime.origin import origin_allowed


class AddressGate:
    """ASGI middleware for websockets: ``games.realtime.sockets.admit_address`` before the rest of the stack."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] != "websocket":
            return await self.application(scope, receive, send)
        if not origin_allowed(scope):
            # Refused before it is counted: another site's page opening sockets in a loop would
            # otherwise spend its visitor's address's share and keep the player's own page out.
            try:
                await refuse_handshake(receive, send, CLOSE_ORIGIN)
            finally:
                memory.socket_closed()
            return None
        admission = sockets.admit_address(scope_ip(scope))
        try:
            if admission.refusal:
                if admission.quiet:
                    await refuse_handshake(receive, send)
                else:
                    await refuse(scope, receive, send, admission.refusal)
                return None
            return await self.application({**scope, sockets.GATE_PASSED: True}, receive, send)
        finally:
            admission.release()
            memory.socket_closed()


async def refuse(scope: dict[str, Any], receive: Any, send: Any, message: str) -> None:
    """The consumer's clear refusal, without the consumer: one error frame, then 4029
    (``games.realtime.consumer.refuse``)."""
    await receive()  # websocket.connect
    await consumer.refuse(send, CLOSE_TOO_MANY, protocol.error(errors.TOO_MANY_SOCKETS, message))


async def refuse_handshake(receive: Any, send: Any, code: int = CLOSE_TOO_MANY) -> None:
    """The handshake itself refused (HTTP 403 under uvicorn), nothing said: past an address's clear
    refusals, or from another site's page."""
    await receive()  # websocket.connect
    await send({"type": "websocket.close", "code": code})

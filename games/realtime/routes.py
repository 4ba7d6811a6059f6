"""A room's sockets back on the worker the proxy routes the room to, after a worker returns.

The proxy (deploy/Caddyfile) sends all of a room's sockets to one worker, picked by hashing
the socket's address over the workers that pass its health checks. When a worker dies its
rooms' pages reconnect, through the proxy, to the others, and stay there: the proxy
routes only new connections. A worker cannot tell by itself which of its rooms the proxy
would now send elsewhere (the hash and the proxy's view of the workers' health are the
proxy's own, and differ between Caddy versions); a page can, by asking: ``GET
/ws/rooms/<code>/`` goes through the same route of the proxy as the room's socket, to the
worker it would reach now, which answers who it is (``where``).

So when a serving process starts (the scheduler's beat sees a new one in
games.services.processes), every other worker sends each of its sockets a ``route`` frame
naming itself, now and a few more times over the next minute (``ROUNDS``: the proxy sees a
returning worker only at its next health check, and a worker that refused a connection
only after the proxy's ``fail_duration``). A page whose room the proxy would now send to
another worker reconnects, and lands there; the others change nothing (docs/protocol.md).
The pages spread their questions over ``ROUTE_JITTER`` seconds of their own, so a returning
worker is not asked by every page in the same moment.
"""

from __future__ import annotations

import asyncio
import logging

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_safe

from games.domain import protocol
from games.realtime import fanout
from games.realtime.transport import current
from games.services.processes import ORIGIN

log = logging.getLogger(__name__)

# Seconds after a serving process is seen starting at which the sockets here are asked to
# check their route: past the proxy's health interval (5 s) and fail_duration (10 s) in
# deploy/Caddyfile, and again later for a worker that took longer to pass its checks.
ROUNDS = (2.0, 5.0, 10.0, 20.0, 40.0, 60.0)


def frame() -> str:
    return protocol.encode(protocol.Route(worker=ORIGIN))


def peer_started() -> None:
    """On the event loop: another serving process started; ask this loop's sockets to check their route.

    A second start while the rounds run begins them again: the newest worker needs the
    whole schedule too.
    """
    loop = asyncio.get_running_loop()
    asking = current().route_rounds
    running = asking.get(loop)
    if running is not None and not running.done():
        running.cancel()
    asking[loop] = loop.create_task(_rounds())


async def _rounds() -> None:
    waited = 0.0
    for at in ROUNDS:
        await asyncio.sleep(at - waited)
        waited = at
        asked = fanout.push_everywhere([frame()])
        if asked:
            log.info("asked %d sockets to check their route", asked)


@require_safe
def where(request: HttpRequest, code: str) -> JsonResponse:
    """``GET /ws/rooms/<code>/``: the worker the proxy sends this room's sockets to now (this one)."""
    response = JsonResponse({"worker": ORIGIN})
    response["Cache-Control"] = "no-store"
    return response

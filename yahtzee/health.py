"""``/healthz``: can this process serve? What the proxy and Docker need to know, and no more.

The database is required: without it no page or game can be served, and the answer is 503.
The channel layer (Redis) is reported, not required: while it is away a worker still
serves every page and plays the rooms whose sockets it holds (only the relay to other
workers is lost, and resynced when it returns), so taking every worker out of the proxy
for it would turn a degraded relay into a site that answers nothing. The answer is then
200 with ``"degraded": ["channel_layer"]``.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
import weakref
from typing import Any

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_safe

log = logging.getLogger(__name__)

TIMEOUT = 3.0
REQUIRED = ("database",)
# One reply channel per process, layer and event loop: the pub/sub layer keeps a
# subscription per channel it has received on, so a fresh channel per check would pile
# them up; and it keeps one connection per event loop, so a channel made on one loop is
# not subscribed on another (Django's test client runs each request on a new loop).
_reply_channels: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, str]] = weakref.WeakKeyDictionary()


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


async def _reply_channel(layer: Any) -> str:
    """A channel to send the check to and receive it from.

    On the core layer (a Redis list per channel) a plain name: a process-specific one
    (``...!``) shares one receive loop and lock with every other receiver of the process,
    and a check cancelled while Redis was away could leave that lock held, so the check
    failed long after Redis came back. On the pub/sub layer ``new_channel`` subscribes
    before the first send, which a plain name would not.
    """
    from channels_redis.core import RedisChannelLayer

    if isinstance(layer, RedisChannelLayer):
        return f"healthz.{uuid.uuid4().hex}"
    return str(await layer.new_channel("healthz."))


async def _channel_layer() -> None:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer is configured")
    channels = _reply_channels.setdefault(asyncio.get_running_loop(), {})
    channel = channels.get(id(layer))
    if channel is None:
        channel = channels[id(layer)] = await _reply_channel(layer)
    token = f"{time.monotonic_ns()}"
    try:
        await layer.send(channel, {"type": "healthz", "token": token})
        while (await layer.receive(channel)).get("token") != token:
            pass  # an answer meant for a concurrent check that already gave up
    except BaseException:
        channels.pop(id(layer), None)  # a cancelled receive unsubscribes it
        raise


@require_safe  # a GET or a HEAD, as every page: a post is no check (a 405 naming them)
async def healthz(request: HttpRequest) -> JsonResponse:
    checks: dict[str, Any] = {}
    for name, check in (("database", sync_to_async(_database)), ("channel_layer", _channel_layer)):
        started = time.perf_counter()
        try:
            await asyncio.wait_for(check(), TIMEOUT)
            checks[name] = {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1)}
        except Exception as exc:  # noqa: BLE001 - any failure is the answer
            # The page is public (the proxy sends it on): the exception's text, which names
            # internal hosts and ports, goes to the log; the answer says only its kind.
            log.warning("healthz: %s failed: %s: %s", name, type(exc).__name__, exc)
            checks[name] = {"ok": False, "error": type(exc).__name__}
    ok = all(checks[name]["ok"] for name in REQUIRED)
    degraded = [name for name, check in checks.items() if not check["ok"] and name not in REQUIRED]
    return JsonResponse({"ok": ok, "degraded": degraded, **checks}, status=200 if ok else 503)

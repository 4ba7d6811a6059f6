"""Upkeep of the room sockets that is not one frame's business: leftovers and sweeping.

``left_anyhow`` removes a socket's Presence row however the socket ended (its handler
failed, or it was cancelled) and tells the room; ``start_sweeping`` deletes, on start-up
and then every ``PRESENCE_SWEEP_SECONDS``, the rows of sockets whose process died.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref

from django.conf import settings

from games import fanout, presence
from games.threads import db_async

log = logging.getLogger(__name__)

_sweepers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]] = weakref.WeakKeyDictionary()


async def left_anyhow(code: str, channel_name: str) -> None:
    """The socket is gone without its ``disconnect``: remove its row and tell the room (best effort)."""
    try:
        frame = await asyncio.shield(db_async(presence.leave)(code, channel_name))
    except BaseException:  # noqa: BLE001 - the sweep gets the row later
        log.warning("presence of a socket in %s not removed; the sweep will", code, exc_info=True)
        return
    if frame is not None:
        with contextlib.suppress(Exception):
            await fanout.publish(code, [frame])


def start_sweeping() -> None:
    """Sweep stale Presence rows now and every PRESENCE_SWEEP_SECONDS, once per event loop."""
    loop = asyncio.get_running_loop()
    task = _sweepers.get(loop)
    if task is None or task.done():
        _sweepers[loop] = loop.create_task(_sweep_forever())


async def _sweep_forever() -> None:
    while True:
        try:
            deleted = await db_async(presence.sweep_stale)()
            if deleted:
                log.warning("swept %d stale presence rows", deleted)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the database away: next time
            log.warning("presence sweep failed", exc_info=True)
        await asyncio.sleep(float(getattr(settings, "PRESENCE_SWEEP_SECONDS", 60)))

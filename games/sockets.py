"""Upkeep of the room sockets that is not one frame's business: leftovers, sweeping, failed commits.

``left_anyhow`` removes a socket's Presence row however the socket ended (its handler
failed, or it was cancelled) and tells the room; ``start_sweeping`` deletes, on start-up
and then every ``PRESENCE_SWEEP_SECONDS``, the rows of sockets whose process died.
``action_failed`` answers an action whose database call failed with what is known.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from typing import Protocol

from django.conf import settings

from games import errors, fanout, presence, selectors
from games.threads import db_async

log = logging.getLogger(__name__)

_tasks: set[asyncio.Task[None]] = set()


def _keep(task: asyncio.Task[None]) -> None:
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


RESYNC_FOR = 60.0  # seconds a socket keeps trying to resync after an outcome it could not learn


class RoomSocket(Protocol):
    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None: ...

    async def error(self, code: str, message: str, frame_id: object = None) -> None: ...


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


async def action_failed(socket: RoomSocket, code: str, controller: str, action_id: str) -> None:
    """An action's database call raised: say whether it was stored, and resync when that is unknown.

    A connection lost during the commit leaves the outcome unknown to the server too: the
    transaction may have committed (and its broadcast, an on-commit hook, never ran). So
    the move log is asked: stored means the room gets the new state now; not stored means
    nothing was written; no answer means the outcome is unknown and the socket gets the
    state as soon as the database answers again.
    """
    try:
        stored: bool | None = await db_async(selectors.action_stored)(code, controller, action_id)
    except Exception:  # noqa: BLE001 - still out of reach
        stored = None
    if stored is False:
        await socket.error(
            errors.UNAVAILABLE, "The game's database is out of reach for a moment: try again.", action_id
        )
        return
    if stored is None:
        await socket.error(
            errors.OUTCOME_UNKNOWN,
            "The database went away during this action: the result is unknown; the page will resync.",
            action_id,
        )
        _keep(asyncio.get_running_loop().create_task(_resync_when_back(socket, code)))
        return
    # Stored, but nobody was told: the whole room resyncs (the socket that asked included).
    await _resync_room(code)


async def _resync_room(code: str) -> None:
    text, version = await db_async(presence.state_with_version)(code)
    await fanout.publish(code, [text], version=version)


async def _resync_when_back(socket: RoomSocket, code: str) -> None:
    deadline = asyncio.get_running_loop().time() + RESYNC_FOR
    delay = 0.25
    while asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(delay)
        try:
            text = await db_async(presence.state_text)(code)
        except Exception:  # noqa: BLE001 - not yet
            delay = min(delay * 2, 4.0)
            continue
        await socket.send(text_data=text)
        return

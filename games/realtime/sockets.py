"""Upkeep of the room sockets that is not one frame's business: fair shares, leftovers, failed commits.

Fair shares (per process; settings in yahtzee/settings.py): ``admit`` refuses a socket
past ``WS_MAX_PER_ADDRESS`` open sockets from one address or ``WS_MAX_PER_BROWSER`` from
one browser, or past ``WS_CONNECT_RATE`` new sockets from one address (a storm, counted by
``games.realtime.limits``), before any database work (an address's first ``WS_CLEAR_REFUSALS``
refusals in that window are clear ones, the rest ``quiet``: the handshake itself is
refused); ``presence_changed`` sends a room's presence at most once per
``PRESENCE_COALESCE`` seconds (one frame for a burst of arrivals, not one per socket,
which made a storm of N sockets cost N² frames); ``seen`` writes a socket's ping to the
database at most once per ``PING_WRITE_SECONDS``, and ``PageVisibility`` whether its page is
hidden at most once per ``VISIBILITY_WRITE_EVERY``.

``leave`` removes the Presence rows of sockets that close together in one batch;
``left_anyhow`` removes a socket's Presence row however the socket ended (its handler
failed, or it was cancelled) and tells the room; ``start_sweeping`` deletes, on start-up
and then every ``PRESENCE_SWEEP_SECONDS``, the rows of sockets whose process died.
``action_failed`` answers an action whose database call failed with what is known.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from django.conf import settings
from django.utils import timezone

from games.domain import errors
from games.realtime import fanout
from games.realtime.limits import CLEAR_REFUSALS, CONNECTS, UNKNOWN, Bucket, limiter
from games.realtime.threads import db_async, db_upkeep
from games.realtime.transport import Leavers, current
from games.services import presence
from games.store import selectors

log = logging.getLogger(__name__)

# --- how many sockets one client may hold -----------------------------------------------

GATE_PASSED = "fair_share_address"  # scope key: games.realtime.gate.AddressGate counted the socket's address


@dataclass
class Admission:
    """The places one socket holds: its address's and its browser's ("" where it holds none)."""

    address: str = ""
    browser: str = ""
    refusal: str = ""
    quiet: bool = False  # refused past WS_CLEAR_REFUSALS: the handshake itself is refused, nothing said

    def release(self) -> None:
        if self.refusal:
            return
        self.refusal = "released"
        transport = current()
        for counter, key in ((transport.by_address, self.address), (transport.by_browser, self.browser)):
            if key:
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]


def admit_address(address: str) -> Admission:
    """Count a new socket of ``address`` against WS_CONNECT_RATE and WS_MAX_PER_ADDRESS.

    ``games.realtime.gate.AddressGate`` asks this first, before the session is loaded, so that a
    storm costs no database work; ``admit`` asks it only for a socket that did not pass
    the gate (a stack without it).
    """
    if not settings.RATE_LIMITS or not address or address == UNKNOWN:
        # No caps for a load generator's servers; no peer address (a unix socket): one
        # bucket would be everyone's.
        return Admission()
    per_address = settings.WS_MAX_PER_ADDRESS
    if not limiter.hit(CONNECTS, Bucket("address", address)):
        return _refused(address, "Too many new connections from your address: wait a moment.")
    by_address = current().by_address
    if per_address and by_address[address] >= per_address:
        return _refused(address, f"Too many open connections from your address (at most {per_address}).")
    by_address[address] += 1
    return Admission(address=address)


def _refused(address: str, message: str) -> Admission:
    """A refusal of ``address``'s socket: a clear one for its first WS_CLEAR_REFUSALS in the window, then quiet.

    A page learns why from a clear refusal (accepted, an error frame, close 4029); the rest
    of a storm is refused before the accept (uvicorn answers the handshake with HTTP 403),
    which costs the worker less. The window is WS_CONNECT_RATE's (10 s when that is off).
    Only clear refusals are logged: a storm's thousand refusals are not a thousand lines.
    """
    clear = settings.WS_CLEAR_REFUSALS > 0 and limiter.hit(CLEAR_REFUSALS, Bucket("address", address))
    if clear:
        log.warning("socket refused: %s: %s", address, message)
    return Admission(refusal=message, quiet=not clear)


def admit(address: str, browser: str, address_admitted: bool = False) -> Admission:
    """Count a new socket of ``address`` and ``browser`` (a controller token, or "" for none) against their caps.

    ``address_admitted``: the gate counted the address already (it holds that place
    itself), so only the browser is counted here: a socket is never counted twice.
    """
    admission = Admission() if address_admitted else admit_address(address)
    if admission.refusal or not browser or not settings.RATE_LIMITS:
        return admission
    per_browser = settings.WS_MAX_PER_BROWSER
    by_browser = current().by_browser
    if per_browser and by_browser[browser] >= per_browser:
        admission.release()
        return Admission(refusal=f"Too many open connections from this browser (at most {per_browser}): close a tab.")
    by_browser[browser] += 1
    admission.browser = browser
    return admission


# --- a room's presence, once per interval -------------------------------------------------


def presence_changed(code: str) -> None:
    """The room's sockets changed: send everyone the presence once, after PRESENCE_COALESCE seconds."""
    loop = asyncio.get_running_loop()
    key = (loop, code)
    transport = current()
    if key in transport.presence_due:
        return  # already due: that frame will tell this change too
    transport.presence_due[key] = task = loop.create_task(send_presence(key))
    transport.keep(task)


async def send_presence(key: tuple[asyncio.AbstractEventLoop, str]) -> None:
    code = key[1]
    try:
        await asyncio.sleep(settings.PRESENCE_COALESCE)
    finally:
        # Changes from now on need a new frame: this one reads the rows after this point.
        current().presence_due.pop(key, None)
    try:
        frame = await db_upkeep(presence.room_frame)(code)
        if frame is not None:
            await fanout.publish(code, [frame])
    except Exception:  # noqa: BLE001 - the next change or ping tells it
        log.warning("presence of %s not sent", code, exc_info=True)


# --- pings ---------------------------------------------------------------------


async def seen(
    code: str, channel_name: str, controller: str = "", hidden_since: datetime | None = None, browser: str = ""
) -> int | None:
    """A ping: the room's version, refreshing the Presence row at most once per PING_WRITE_SECONDS
    (written again if it was swept meanwhile: then the room hears the socket is here), with since
    when its page has been hidden (``PageVisibility``)."""
    now = time.monotonic()
    last = current().pinged.get(channel_name)
    if last is not None and now - last[0] < settings.PING_WRITE_SECONDS:
        # A flood of pings costs no database work; the version a page missed is caught at the
        # next write (and the relay's return resyncs the sockets anyway).
        return last[1]
    version, written = await db_upkeep(presence.seen)(code, channel_name, controller, hidden_since, browser)
    current().pinged[channel_name] = (now, version)
    if written:
        presence_changed(code)
    return version


def forget_pings(channel_name: str) -> None:
    current().pinged.pop(channel_name, None)


# --- the page hidden or shown ------------------------------------------------------------------

VISIBILITY_WRITE_EVERY = 1.0  # seconds between two writes of one socket's visibility
HIDDEN_FOR_MAX = timedelta(days=1)  # a page hidden longer counts as hidden this long: the same to the notices


class PageVisibility:
    """Whether one socket's page is hidden, as its ``visibility`` frames say, kept in its Presence row.

    A frame costs no database work of its own: the row is written by one task at a time, at
    most once per ``VISIBILITY_WRITE_EVERY``, with the page's last word, so a page (or a client)
    hiding and showing itself in a loop costs one UPDATE a second however many frames it sends,
    and the row still ends up saying what the page said last. Pings write it too
    (``seen``), which puts a row right whose write failed.
    """

    def __init__(self, channel_name: str) -> None:
        self.channel_name = channel_name
        self.since: datetime | None = None  # when the page was hidden (on this server's clock); None: shown
        self.written: datetime | None = None  # what the row says
        self.writer: asyncio.Task[None] | None = None

    def tell(self, hidden: bool, hidden_for: int = 0) -> None:
        """The page says it is hidden (for ``hidden_for`` seconds already) or shown."""
        if not hidden:
            self.since = None
        elif self.since is None:  # hidden already: since the first word of it
            # Clamped before it is a timedelta: the frame's bound already keeps it within one.
            self.since = timezone.now() - timedelta(seconds=min(hidden_for, HIDDEN_FOR_MAX.total_seconds()))
        if self.since != self.written and (self.writer is None or self.writer.done()):
            self.writer = asyncio.get_running_loop().create_task(self._write())
            current().keep(self.writer)

    async def _write(self) -> None:
        while self.since != self.written:
            since = self.since
            try:
                await db_upkeep(presence.hidden)(self.channel_name, since)
            except Exception:  # noqa: BLE001 - the socket's next ping writes it
                log.warning("the visibility of socket %s not written", self.channel_name, exc_info=True)
                return
            self.written = since
            await self._between_writes()

    async def _between_writes(self) -> None:
        """The wait before the row may be written again: a step of its own so that a test can hold
        it and see what a burst of frames comes to, rather than sleep through it."""
        await asyncio.sleep(VISIBILITY_WRITE_EVERY)


RESYNC_FOR = 60.0  # seconds a socket keeps trying to resync after an outcome it could not learn


class RoomSocket(Protocol):
    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None: ...

    async def error(self, code: str, message: str, frame_id: object = None) -> None: ...


# --- sockets leaving, together -------------------------------------------------------------


async def leave(code: str, channel_name: str) -> bool:
    """Remove the socket's Presence row, in one batch with every socket closing meanwhile; whether it had one.

    A hundred sockets closed together (a flood cut off, a tab of a hundred spectators) cost
    one ``presence.leave_many`` in the upkeep lane, not a hundred trips to the database thread
    with the event loop's work for each; the sockets that close while a batch is in the
    database form the next one. Every room that lost a row hears it once
    (``presence_changed``, which coalesces further).
    """
    loop = asyncio.get_running_loop()
    transport = current()
    leavers = transport.leaving.get(loop)
    if leavers is None:
        leavers = transport.leaving[loop] = Leavers(rooms={}, done=loop.create_future())
    leavers.rooms[channel_name] = code
    task = transport.draining.get(loop)
    if task is None or task.done():
        transport.draining[loop] = task = loop.create_task(_drain(loop))
        transport.keep(task)
    removed = await asyncio.shield(leavers.done)
    return channel_name in removed


async def _drain(loop: asyncio.AbstractEventLoop) -> None:
    batch: Leavers | None = None
    leaving = current().leaving
    try:
        await asyncio.sleep(0)  # the sockets closing in this same moment join the first batch
        while (batch := leaving.pop(loop, None)) is not None:
            try:
                removed = await db_upkeep(presence.leave_many)(list(batch.rooms))
            except Exception as exc:  # noqa: BLE001 - each leaver hears it; the sweep gets the rows later
                batch.done.set_exception(exc)
                batch.done.exception()  # retrieved: a leaver that went away is not told
                continue
            batch.done.set_result(removed)
            for code in sorted({batch.rooms[name] for name in removed}):
                presence_changed(code)
    except BaseException as exc:  # cancelled (transport.reset): nobody waits for a batch that never runs
        for leavers in (batch, leaving.pop(loop, None)):
            if leavers is not None and not leavers.done.done():
                leavers.done.set_exception(exc if isinstance(exc, Exception) else RuntimeError("cancelled"))
                leavers.done.exception()
        raise


async def left_anyhow(code: str, channel_name: str) -> None:
    """The socket is gone without its ``disconnect``: remove its row and tell the room (best effort)."""
    try:
        await asyncio.shield(leave(code, channel_name))
    except BaseException:  # noqa: BLE001 - the sweep gets the row later
        log.warning("presence of a socket in %s not removed; the sweep will", code, exc_info=True)


def start_sweeping() -> None:
    """Sweep stale Presence rows now and every PRESENCE_SWEEP_SECONDS, once per event loop."""
    loop = asyncio.get_running_loop()
    sweepers = current().sweepers
    task = sweepers.get(loop)
    if task is None or task.done():
        sweepers[loop] = loop.create_task(_sweep_forever())


async def _sweep_forever() -> None:
    while True:
        try:
            deleted = await db_upkeep(presence.sweep_stale)()
            if deleted:
                log.warning("swept %d stale presence rows", deleted)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the database away: next time
            log.warning("presence sweep failed", exc_info=True)
        await asyncio.sleep(settings.PRESENCE_SWEEP_SECONDS)


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
        current().keep(asyncio.get_running_loop().create_task(_resync_when_back(socket, code)))
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
            text, version = await db_async(presence.state_with_version)(code)
        except Exception:  # noqa: BLE001 - not yet
            delay = min(delay * 2, 4.0)
            continue
        # Read while the room may have moved on: a newer state this process has delivered to the
        # room's sockets since (this one among them) stands, since a socket's version only grows.
        if current().latest.get(code, -1) <= version:
            await socket.send(text_data=text)
        return


def resync(codes: list[str]) -> None:
    """On the event loop: the relay is back, so send these rooms' sockets here the current state."""
    for code in codes:
        current().keep(asyncio.get_running_loop().create_task(_resync_room_here(code)))


async def _resync_room_here(code: str) -> None:
    try:
        text, version = await db_async(presence.state_with_version)(code)
    except Exception:  # noqa: BLE001 - the room is gone, or the database away: the next ping tells
        log.warning("resync of %s after the relay returned failed", code, exc_info=True)
        return
    fanout.deliver(code, [text], version)

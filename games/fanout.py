"""A room's frames on their way out: straight to this process's sockets, through Redis to the others.

DESIGN.md: the fan-out is the hot path. Going through the channel layer for every socket
costs a message per socket (queue, wake-up, dispatch); here a process delivers a room's
frames to its own sockets directly, and the channel layer carries one message per action
to the *other* processes. Each process that has sockets in a room keeps one relay channel
in the room's group (``room.<code>``), so a message crosses Redis once per process, not
once per socket; a process ignores its own messages when they come back. A socket is
handed its frames without waiting for it (``Socket.push``: the socket's own bounded queue,
yahtzee/backlog.py), so a client that stopped reading holds up no other socket.

With the in-memory layer (the embedded default) there is only one process: nothing is
relayed.

Frames that carry a state ``version`` are delivered in version order: a process drops
one older than what it has already delivered for that room (a full snapshot newer than
it is out already, so nothing is lost). That covers two actions of a room committed in
separate threads, or relayed by separate processes, whose frames would cross.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import BaseChannelLayer, InMemoryChannelLayer, get_channel_layer

log = logging.getLogger(__name__)

ORIGIN = uuid.uuid4().hex  # this process, on every message it relays
MESSAGE_TYPE = "room.relay"
GROUP_REFRESH = 3600.0  # seconds


class Socket(Protocol):
    """What a room socket offers here (games.consumers.RoomConsumer)."""

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None: ...

    def push(self, frames: list[str]) -> None:
        """Queue ``frames`` for the socket, in order, without waiting for its client (yahtzee/backlog.py)."""


StateListener = Callable[[str, list[str]], None]
"""Hears ``(code, frames)``, frames that end with the room's state frame (see ``on_state``)."""


def room_group(code: str) -> str:
    return f"room.{code}"


@dataclass
class _Relay:
    """One event loop's channel in the groups of the rooms it has sockets in."""

    channel: str
    groups: set[str] = field(default_factory=set)


_lock = threading.Lock()  # _members is read from database threads after a commit
_members: dict[str, dict[Socket, asyncio.AbstractEventLoop]] = {}
_latest: dict[str, int] = {}  # room -> highest state version delivered in this process
_relays: dict[asyncio.AbstractEventLoop, asyncio.Task[_Relay]] = {}
_tasks: set[asyncio.Task[Any]] = set()
_state_listeners: list[StateListener] = []
_back_listeners: list[Callable[[list[str]], None]] = []


def on_state(listener: StateListener) -> None:
    """Call ``listener(code, frames)`` on the event loop each time a room's state goes out here.

    That is once per process for each versioned message delivered to the room's sockets in
    this process (however many sockets; not for one dropped as older, nor in a process with
    no socket in the room), and once for each socket welcomed with ``welcome``. The frames
    end with the room's state frame. games.botplay listens here (registered in
    games.apps): the transport itself knows nothing of what the state means.
    """
    if listener not in _state_listeners:
        _state_listeners.append(listener)


def on_relay_back(listener: Callable[[list[str]], None]) -> None:
    """Call ``listener(codes)`` on the event loop when this loop's relay hears Redis again.

    What other processes relayed meanwhile is lost: ``codes`` are the rooms this loop has
    sockets in, for the listener to resync (games.apps registers games.sockets.resync).
    """
    if listener not in _back_listeners:
        _back_listeners.append(listener)


def relay_returned() -> None:
    """On the event loop: Redis is back for this loop (the layer noticed; see yahtzee.layers too)."""
    loop = asyncio.get_running_loop()
    with _lock:
        codes = [code for code, members in _members.items() if loop in members.values()]
    layer, relay = _layer(), _opened(loop)
    if layer is not None and relay is not None:  # rooms joined while Redis was away, too
        _keep(loop.create_task(_rejoin(layer, relay)))
    for listener in _back_listeners:
        try:
            listener(codes)
        except Exception:
            log.exception("a relay-back listener failed")


def _heard(code: str, frames: list[str]) -> None:
    for listener in _state_listeners:
        try:
            listener(code, frames)
        except Exception:  # a listener must not keep the frames from the sockets
            log.exception("a state listener failed on %s", code)


def _layer() -> BaseChannelLayer | None:
    layer = get_channel_layer()
    return None if layer is None or isinstance(layer, InMemoryChannelLayer) else layer


def _keep(task: asyncio.Task[Any]) -> None:
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


# --- sockets joining and leaving (on the event loop) ------------------------------------


async def join(code: str, socket: Socket) -> None:
    """``socket`` hears the room's frames from now on (from this process only while Redis is away)."""
    loop = asyncio.get_running_loop()
    with _lock:
        members = _members.setdefault(code, {})
        first_here = loop not in members.values()
        members[socket] = loop
    layer = _layer()
    if first_here and layer is not None:
        try:
            relay = await _relay(loop, layer)
        except BaseException:
            forget(code, socket)
            raise
        relay.groups.add(code)
        try:
            await layer.group_add(room_group(code), relay.channel)
        except Exception:  # Redis away: the socket plays locally; the relay rejoins when Redis is back
            log.warning("room %s joined without Redis; its relay rejoins when Redis is back", code)


def forget(code: str, socket: Socket) -> bool:
    """Drop ``socket`` from the room here; True if it was the last of its event loop's."""
    with _lock:
        members = _members.get(code, {})
        loop = members.pop(socket, None)
        last_here = loop is not None and loop not in members.values()
        if not members:
            _members.pop(code, None)
            _latest.pop(code, None)
    if last_here and loop is not None:
        relay = _opened(loop)
        if relay is not None and code in relay.groups:
            relay.groups.discard(code)
            return True
    return False


async def leave(code: str, socket: Socket) -> None:
    layer = _layer()
    relay = _opened(asyncio.get_running_loop())
    if forget(code, socket) and layer is not None and relay is not None:
        with contextlib.suppress(Exception):  # Redis away: its groups went with it
            await layer.group_discard(room_group(code), relay.channel)


def _failed(opening: asyncio.Task[_Relay]) -> bool:
    return opening.done() and (opening.cancelled() or opening.exception() is not None)


def _opened(loop: asyncio.AbstractEventLoop) -> _Relay | None:
    opening = _relays.get(loop)
    if opening is None or not opening.done() or _failed(opening):
        return None
    return opening.result()


async def _relay(loop: asyncio.AbstractEventLoop, layer: BaseChannelLayer) -> _Relay:
    """This loop's relay, opened once (several sockets may ask at the same moment)."""
    opening = _relays.get(loop)
    if opening is None or _failed(opening):
        opening = _relays[loop] = loop.create_task(_open_relay(loop, layer))
    return await asyncio.shield(opening)


async def _open_relay(loop: asyncio.AbstractEventLoop, layer: BaseChannelLayer) -> _Relay:
    relay = _Relay(channel=await layer.new_channel())
    _keep(loop.create_task(_listen(layer, relay)))
    _keep(loop.create_task(_refresh(layer, relay)))
    return relay


async def _rejoin(layer: BaseChannelLayer, relay: _Relay) -> None:
    """Add the relay to its rooms' groups again (group_add is idempotent)."""
    for code in list(relay.groups):
        await layer.group_add(room_group(code), relay.channel)


async def _listen(layer: BaseChannelLayer, relay: _Relay) -> None:
    """Deliver what other processes relay to this process's sockets."""
    lost = False
    while True:
        try:
            if lost:
                # Redis restarted: the core layer's groups were in it (the pub/sub layer
                # resubscribes by itself, and the extra group_add costs it nothing).
                await _rejoin(layer, relay)
                lost = False
                log.warning("relay is back in the groups of %d rooms", len(relay.groups))
                relay_returned()
            message = await layer.receive(relay.channel)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # Redis away: try again in a moment
            if not lost:
                log.warning("relay lost Redis (%s); rejoining its rooms when it is back", exc)
            lost = True
            await asyncio.sleep(0.5)
            continue
        if message.get("type") != MESSAGE_TYPE or message.get("origin") == ORIGIN:
            continue
        deliver(message["code"], message["frames"], message.get("version"))


async def _refresh(layer: BaseChannelLayer, relay: _Relay) -> None:
    """The core layer forgets a group member after ``group_expiry`` (a day): renew well before."""
    while True:
        await asyncio.sleep(GROUP_REFRESH)
        with contextlib.suppress(Exception):
            await _rejoin(layer, relay)


# --- delivering -----------------------------------------------------------------------


def deliver(code: str, frames: list[str], version: int | None = None) -> None:
    """On the event loop: send ``frames`` to this loop's sockets in the room, in order."""
    if version is not None:
        if _latest.get(code, -1) >= version:
            return  # a newer state of this room is out already
        _latest[code] = version
    loop = asyncio.get_running_loop()
    with _lock:
        sockets = [socket for socket, home in _members.get(code, {}).items() if home is loop]
    if not sockets:
        _latest.pop(code, None)
        return
    for socket in sockets:  # each socket's own queue: a client that stopped reading holds up nobody
        try:
            socket.push(frames)
        except Exception:  # a socket closing meanwhile must not keep the frames from the rest
            log.debug("a socket of %s left during a send", code, exc_info=True)
    if version is not None:
        _heard(code, frames)


async def welcome(code: str, socket: Socket, frames: list[str]) -> None:
    """Send a socket joining the room its first frames, ending with the room's state (``on_state``)."""
    for text in frames:
        await socket.send(text_data=text)
    _heard(code, frames)


def _relay_message(code: str, frames: list[str], version: int | None) -> dict[str, Any]:
    message: dict[str, Any] = {"type": MESSAGE_TYPE, "origin": ORIGIN, "code": code, "frames": frames}
    if version is not None:
        message["version"] = version
    return message


async def publish(code: str, frames: list[str], *, version: int | None = None) -> None:
    """On the event loop: deliver here, and relay to the other processes.

    A message with a ``version`` is a new state of the room: its frames end with the state frame.
    """
    deliver(code, frames, version)
    layer = _layer()
    if layer is not None:
        await _relay_send(layer, code, _relay_message(code, frames, version))


def publish_soon(code: str, frames: list[str], *, version: int | None = None) -> None:
    """From a worker thread (after a commit): hand the frames to the event loop without waiting for it.

    The thread goes on at once; the loop delivers to its sockets and relays, in the order
    the calls were made. With no event loop of this process in reach (a management
    command, a plain test), only the relay applies, and the call waits for it.
    """
    with _lock:
        loops = list(dict.fromkeys(_members.get(code, {}).values()))
    layer = _layer()
    message = _relay_message(code, frames, version) if layer is not None else None
    if not loops and message is not None:
        main = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
        if main is not None and main.is_running():
            loops = [main]
        else:
            async_to_sync(layer.group_send)(room_group(code), message)  # type: ignore[union-attr]
            return
    for n, loop in enumerate(loops):
        relay = message if n == 0 else None
        try:
            # A fresh context: the callback and the tasks it starts must not inherit this
            # thread's (asgiref marks it as inside a database call, and a task a state
            # listener starts from it, such as a bot step, would then refuse to run).
            loop.call_soon_threadsafe(_on_loop, code, frames, version, relay, context=contextvars.Context())
        except RuntimeError:  # that loop is closed (a finished test's)
            continue


def _on_loop(code: str, frames: list[str], version: int | None, relay: dict[str, Any] | None) -> None:
    deliver(code, frames, version)
    layer = _layer()
    if relay is not None and layer is not None:
        _keep(asyncio.get_running_loop().create_task(_relay_send(layer, code, relay)))


async def _relay_send(layer: BaseChannelLayer, code: str, message: dict[str, Any]) -> None:
    try:
        await layer.group_send(room_group(code), message)
    except Exception:  # the action is committed; other processes' sockets resync on their next ping
        log.exception("relaying the frames of %s failed", code)

"""A room's frames on their way out: straight to this process's sockets, through Redis to the others.

The fan-out is the hot path (docs/architecture.md). Going through the channel layer for every socket
costs a message per socket (queue, wake-up, dispatch); here a process delivers a room's
frames to its own sockets directly, and the channel layer carries one message per action
to the *other* processes. Each process that has sockets in a room keeps one relay channel
in the room's group (``room.<code>``), so a message crosses Redis once per process, not
once per socket; a process ignores its own messages when they come back. A socket is
handed its frames without waiting for it (``Socket.push``: the socket's own bounded queue,
games/realtime/backlog.py), so a client that stopped reading holds up no other socket.

With the in-memory layer (the embedded default) there is only one process: nothing is
relayed.

**Only while another process listens.** Rooms are routed to one worker, so nearly always no
other process has a socket in a room, and relaying its frames would be publishing to
nobody. Each process that has sockets in a room is in the room's set in Redis (a sorted set,
``<prefix>:relay:<code>``: member the process's ``ORIGIN``, score the time its entry expires,
renewed every ``RELAY_RENEW`` seconds, so the entry of a process killed with SIGKILL ages
out). A process relays a room's frames only while it knows of another live process in that
set. The first socket of a process in a room subscribes to the room's group, adds the
process to the set, reads the set, and tells the group ``joined`` (with the version it was
welcomed with); the processes already there note it (and relay from then on), and answer
``here``, with their newest state of the room if it is newer, so a state committed before
they heard of the newcomer still reaches it. The last socket's leaving removes the process
(``left``). A process that does not know who is in a room (no socket of its own there, the
set not read yet, Redis away or failing) relays everything.

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
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import BaseChannelLayer, InMemoryChannelLayer, get_channel_layer
from django.conf import settings

from games.realtime.transport import current
from games.services.processes import ORIGIN  # this process, on every message it relays

log = logging.getLogger(__name__)


MESSAGE_TYPE = "room.relay"
GROUP_REFRESH = 3600.0  # seconds
RELAY_TTL = 30.0  # seconds a process's entry in a room's set lives unless renewed
RELAY_RENEW = 10.0  # seconds between renewals (and reads of who else is in the room)
# Rooms renewed in one Redis pipeline: the replies of one pipeline are parsed without a pause,
# so a renewal of a thousand rooms in one would hold the event loop for 14-57 ms at once; in
# batches of 100 it holds it 3-5 ms at a time for the same 45 ms of CPU (docs/performance.md).
RENEW_BATCH = 100
# Not a frame for the page: a room socket handed it closes as a socket to a room that does not
# exist is (games.realtime.broadcast.gone, after the room was deleted). Relayed as any frame.
ROOM_GONE = '{"type":"room_gone"}'


class Socket(Protocol):
    """What a room socket offers here (games.realtime.consumer.RoomConsumer)."""

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None: ...

    def push(self, frames: list[str], version: int | None = None) -> None:
        """Queue ``frames`` for the socket, in order, without waiting for its client (games/realtime/backlog.py).

        ``version``: the room's state they end with, if they do."""


StateListener = Callable[[str, list[str]], None]
"""Hears ``(code, frames)``, frames that end with the room's state frame (see ``on_state``)."""


def room_group(code: str) -> str:
    return f"room.{code}"


@dataclass
class Relay:
    """One event loop's channel in the groups of the rooms it has sockets in."""

    channel: str
    groups: set[str] = field(default_factory=set)
    redis: Any = None  # this loop's redis.asyncio client for the rooms' sets (None: no Redis layer)


def on_state(listener: StateListener) -> None:
    """Call ``listener(code, frames)`` on the event loop each time a room's state goes out here.

    That is once per process for each versioned message delivered to the room's sockets in
    this process (however many sockets; not for one dropped as older, nor in a process with
    no socket in the room), and once for each socket welcomed with ``welcome``. The frames
    end with the room's state frame. The scheduler does not listen here: it hears of each
    committed action from games.services.events, never from the frames.
    """
    transport = current()
    if listener not in transport.state_listeners:
        transport.state_listeners.append(listener)


def on_relay_back(listener: Callable[[list[str]], None]) -> None:
    """Call ``listener(codes)`` on the event loop when this loop's relay hears Redis again.

    What other processes relayed meanwhile is lost: ``codes`` are the rooms this loop has
    sockets in, for the listener to resync (games.apps registers games.realtime.sockets.resync).
    """
    transport = current()
    if listener not in transport.back_listeners:
        transport.back_listeners.append(listener)


def relay_returned() -> None:
    """On the event loop: Redis is back for this loop (the layer noticed; see games.realtime.layers too)."""
    transport = current()
    loop = asyncio.get_running_loop()
    with transport.lock:
        codes = [code for code, members in transport.members.items() if loop in members.values()]
    layer, relay = relay_layer(), relay_of(loop)
    if layer is not None and relay is not None:  # rooms joined while Redis was away, too
        _unknown(relay.groups)  # Redis may have restarted empty: in the sets again, telling the others
        transport.keep(loop.create_task(_rejoin(layer, relay, enter=True)))
    _resync(codes)


def _resync(codes: list[str]) -> None:
    """Tell the relay-back listeners these rooms' sockets may have missed states: they resync."""
    transport = current()
    for listener in transport.back_listeners:
        try:
            listener(codes)
        except Exception:
            log.exception("a relay-back listener failed")


def _heard(code: str, frames: list[str]) -> None:
    transport = current()
    for listener in transport.state_listeners:
        try:
            listener(code, frames)
        except Exception:  # a listener must not keep the frames from the sockets
            log.exception("a state listener failed on %s", code)


def relay_layer() -> BaseChannelLayer | None:
    layer = get_channel_layer()
    return None if layer is None or isinstance(layer, InMemoryChannelLayer) else layer


# --- sockets joining and leaving (on the event loop) ------------------------------------


async def join(code: str, socket: Socket, *, version: int | None = None) -> None:
    """``socket`` hears the room's frames from now on (from this process only while Redis is away).

    ``version``: the state the socket is welcomed with; for the room's first socket in this
    process, an equal or older one is not sent to it again (an answer to this process's
    ``joined``, say). With sockets of the room here already it is not noted: what was
    delivered here is theirs, and a state this socket read before it reached them (relayed,
    or from a database thread) must still reach them (the page drops one it has already).
    """
    transport = current()
    loop = asyncio.get_running_loop()
    with transport.lock:
        members = transport.members.setdefault(code, {})
        first_here = loop not in members.values()
        if version is not None and not members and transport.latest.get(code, -1) < version:
            transport.latest[code] = version
        members[socket] = loop
    layer = relay_layer()
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
            return
        await _enter(layer, relay, [code])


async def welcomed(code: str, socket: Socket, version: int) -> None:
    """``socket``, which joined before it read the room, is welcomed with state ``version``.

    As the room's only socket here: an equal or older state (an answer to this process's
    ``joined``, say) is not sent to it again, and the other processes in the room are told
    the version (a ``here`` note). Its ``joined`` went out before the socket read the room, so
    it could not say it; one whose state is older (a relay lost when its sender died after its
    commit) resyncs. With other sockets of the room here nothing is noted: a state older than
    this one that has not reached them yet still must (the page drops one it has already).
    """
    transport = current()
    with transport.lock:
        alone = list(transport.members.get(code, {})) == [socket]
        if alone and transport.latest.get(code, -1) < version:
            transport.latest[code] = version
    layer = relay_layer()
    if alone and layer is not None and relaying(code):
        note = {"type": MESSAGE_TYPE, "origin": ORIGIN, "code": code, "note": "here", "version": version}
        await _relay_send(layer, code, note)


def forget(code: str, socket: Socket) -> bool:
    """Drop ``socket`` from the room here; True if it was the last of its event loop's."""
    transport = current()
    with transport.lock:
        members = transport.members.get(code, {})
        loop = members.pop(socket, None)
        last_here = loop is not None and loop not in members.values()
        if not members:
            transport.members.pop(code, None)
            transport.latest.pop(code, None)
            transport.newest.pop(code, None)
            transport.peers.pop(code, None)
            transport.known.discard(code)
    if last_here and loop is not None:
        relay = relay_of(loop)
        if relay is not None and code in relay.groups:
            relay.groups.discard(code)
            return True
    return False


async def leave(code: str, socket: Socket) -> None:
    transport = current()
    layer = relay_layer()
    relay = relay_of(asyncio.get_running_loop())
    if forget(code, socket) and layer is not None and relay is not None:
        with contextlib.suppress(Exception):  # Redis away: its groups went with it
            await layer.group_discard(room_group(code), relay.channel)
        if code not in transport.members:
            await _exit(layer, relay, code)


# --- who else is in a room (the rooms' sets in Redis) -----------------------------------


def _layer_config() -> dict[str, Any]:
    layer: dict[str, Any] = settings.CHANNEL_LAYERS["default"]
    config: dict[str, Any] = layer.get("CONFIG", {})
    return config


def set_key(code: str) -> str:
    config = _layer_config()
    return f"{config.get('prefix', 'asgi')}:relay:{code}"


def redis_client() -> Any:
    """A redis.asyncio client for the channel layer's Redis (for the calling event loop)."""
    import redis.asyncio

    host = _layer_config()["hosts"][0]
    url = host["address"] if isinstance(host, dict) else host
    if not isinstance(url, str):  # (host, port)
        url = f"redis://{url[0]}:{url[1]}"
    return redis.asyncio.Redis.from_url(url, decode_responses=True, socket_timeout=2, socket_connect_timeout=2)


def relaying(code: str) -> bool:
    """Whether this process relays the room's frames: unless it knows nobody else is in the room."""
    transport = current()
    return code not in transport.known or bool(transport.peers.get(code))


def _unknown(codes: Iterable[str]) -> None:
    """Redis failed: relay these rooms' frames again until their sets are read anew."""
    transport = current()
    transport.known.difference_update(codes)


async def read_sets(relay: Relay, codes: list[str]) -> list[tuple[bool, list[str]]]:
    """Renew this process's entry in the rooms' sets, drop expired ones; for each, (entry was missing, who is in it)."""
    now = time.time()
    async with relay.redis.pipeline(transaction=False) as pipe:
        for code in codes:
            key = set_key(code)
            pipe.zadd(key, {ORIGIN: now + RELAY_TTL})
            pipe.zremrangebyscore(key, "-inf", now)  # entries of processes gone without a word
            pipe.expire(key, int(RELAY_TTL * 2))
            pipe.zrange(key, 0, -1)
        replies = await pipe.execute()
    return [(bool(replies[n * 4]), list(replies[n * 4 + 3])) for n in range(len(codes))]


def _learned(code: str, members: list[str], asked_at: float) -> None:
    """The room's set as read (asked at ``asked_at``): who else is in it, from now on known."""
    transport = current()
    if code not in transport.members:
        return  # this process's sockets left meanwhile
    peers = transport.peers.setdefault(code, {})
    for origin, heard_at in list(peers.items()):
        if origin not in members and heard_at < asked_at:  # not one that said ``joined`` since the read
            del peers[origin]
    for origin in members:
        if origin != ORIGIN:
            peers.setdefault(origin, asked_at)
    transport.known.add(code)


async def _enter(layer: BaseChannelLayer, relay: Relay, codes: list[str]) -> None:
    """Add this process to the rooms' sets, read who else is there, and tell them (``joined``).

    On any Redis failure the rooms stay unknown: their frames are relayed.
    """
    if relay.redis is None or not codes:
        return
    asked_at = time.monotonic()
    try:
        sets = await read_sets(relay, codes)
        await _announce(layer, codes)
    except Exception:
        log.warning("who else is in %d rooms is unknown (Redis failed); relaying their frames", len(codes))
        _unknown(codes)
        return
    for code, (_, members) in zip(codes, sets, strict=True):
        _learned(code, members, asked_at)


async def _announce(layer: BaseChannelLayer, codes: list[str]) -> None:
    """Tell the rooms' groups this process is in (``joined``, with the newest version delivered here)."""
    transport = current()
    for code in codes:
        message: dict[str, Any] = {"type": MESSAGE_TYPE, "origin": ORIGIN, "code": code, "note": "joined"}
        version = transport.latest.get(code)
        if version is not None:
            message["version"] = version
        await layer.group_send(room_group(code), message)


async def _exit(layer: BaseChannelLayer, relay: Relay, code: str) -> None:
    """This process's last socket left the room: out of its set, and the others told (``left``)."""
    if relay.redis is None:
        return
    try:
        await relay.redis.zrem(set_key(code), ORIGIN)
        await layer.group_send(room_group(code), {"type": MESSAGE_TYPE, "origin": ORIGIN, "code": code, "note": "left"})
    except Exception:  # Redis away: the entry ages out
        log.debug("leaving the set of %s failed", code, exc_info=True)
    if code in relay.groups:  # a socket came back meanwhile: back in the set
        await _enter(layer, relay, [code])


def _noted(layer: BaseChannelLayer, code: str, origin: str, note: str, version: int | None, frames: bool) -> None:
    """On the event loop: another process says it joined, is in, or left a room this one is in."""
    transport = current()
    if code not in transport.members:
        return
    if note == "left":
        transport.peers.get(code, {}).pop(origin, None)
        return
    transport.peers.setdefault(code, {})[origin] = time.monotonic()
    if version is not None and version > transport.latest.get(code, -1) and not frames:
        # The other process has a newer state than any delivered here: one relayed to this
        # process was lost (its sender died between its commit and the relay, say). Resync.
        _resync([code])
    if note != "joined":
        return
    # Frames delivered here before the newcomer was heard of were not relayed: send the newest.
    answer: dict[str, Any] = {"type": MESSAGE_TYPE, "origin": ORIGIN, "code": code, "note": "here"}
    newest = transport.newest.get(code)
    if newest is not None and (version is None or newest[0] > version):
        answer["version"], answer["frames"] = newest
    transport.keep(asyncio.get_running_loop().create_task(_relay_send(layer, code, answer)))


async def _renew(layer: BaseChannelLayer, relay: Relay) -> None:
    """Renew this process's entries and read who else is in its rooms, every ``RELAY_RENEW`` seconds."""
    while True:
        await asyncio.sleep(RELAY_RENEW)
        await renew(layer, relay)


async def renew(layer: BaseChannelLayer, relay: Relay) -> None:
    transport = current()
    codes = [code for code in relay.groups if code in transport.known]
    fresh = [code for code in relay.groups if code not in transport.known]
    for start in range(0, len(codes), RENEW_BATCH):
        # Not a room left while the batches before were read (its entry would be put back).
        batch = [code for code in codes[start : start + RENEW_BATCH] if code in relay.groups]
        if not batch:
            continue
        asked_at = time.monotonic()
        try:
            sets = await read_sets(relay, batch)
            # An entry that was missing aged out while this process was still in the room (its
            # event loop blocked past RELAY_TTL, its renewals lost): the others dropped it and
            # relay to it no more. Back in the set, it says so, as a newcomer would: they relay
            # again and answer with their newest state, which it may have missed meanwhile.
            missing = [code for code, (gone, _) in zip(batch, sets, strict=True) if gone and code in relay.groups]
            await _announce(layer, missing)
        except Exception:
            log.warning("renewing this process's place in %d rooms failed; relaying their frames", len(codes) - start)
            _unknown(codes[start:])
            return
        for code, (_, members) in zip(batch, sets, strict=True):
            _learned(code, members, asked_at)
    for start in range(0, len(fresh), RENEW_BATCH):
        # Rooms whose set was not read (Redis was away): in again, and telling the others.
        await _enter(layer, relay, fresh[start : start + RENEW_BATCH])


def _failed(opening: asyncio.Task[Relay]) -> bool:
    return opening.done() and (opening.cancelled() or opening.exception() is not None)


def relay_of(loop: asyncio.AbstractEventLoop) -> Relay | None:
    transport = current()
    opening = transport.relays.get(loop)
    if opening is None or not opening.done() or _failed(opening):
        return None
    return opening.result()


async def _relay(loop: asyncio.AbstractEventLoop, layer: BaseChannelLayer) -> Relay:
    """This loop's relay, opened once (several sockets may ask at the same moment)."""
    transport = current()
    opening = transport.relays.get(loop)
    if opening is None or _failed(opening):
        opening = transport.relays[loop] = loop.create_task(_open_relay(loop, layer))
    return await asyncio.shield(opening)


async def _open_relay(loop: asyncio.AbstractEventLoop, layer: BaseChannelLayer) -> Relay:
    transport = current()
    relay = Relay(channel=await layer.new_channel())
    try:
        relay.redis = redis_client()
    except Exception:  # no Redis address this can use: every frame is relayed
        log.warning("no Redis client for the rooms' sets; relaying every frame", exc_info=True)
    transport.keep(loop.create_task(_listen(layer, relay)))
    transport.keep(loop.create_task(_refresh(layer, relay)))
    transport.keep(loop.create_task(_renew(layer, relay)))
    return relay


async def _rejoin(layer: BaseChannelLayer, relay: Relay, *, enter: bool = False) -> None:
    """Add the relay to its rooms' groups again (group_add is idempotent); ``enter``: and to their sets."""
    transport = current()
    for code in list(relay.groups):
        await layer.group_add(room_group(code), relay.channel)
    if enter:
        await _enter(layer, relay, [code for code in relay.groups if code not in transport.known])


async def _listen(layer: BaseChannelLayer, relay: Relay) -> None:
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
                _unknown(relay.groups)
            lost = True
            await asyncio.sleep(0.5)
            continue
        if message.get("type") != MESSAGE_TYPE or message.get("origin") == ORIGIN:
            continue
        note = message.get("note")
        if note is not None:
            _noted(layer, message["code"], message["origin"], note, message.get("version"), "frames" in message)
        if "frames" in message:
            audience, excluded = message.get("audience"), message.get("excluded")
            deliver(
                message["code"],
                message["frames"],
                message.get("version"),
                _audience(audience),
                _audience(excluded) or frozenset(),
            )


async def _refresh(layer: BaseChannelLayer, relay: Relay) -> None:
    """The core layer forgets a group member after ``group_expiry`` (a day): renew well before."""
    while True:
        await asyncio.sleep(GROUP_REFRESH)
        with contextlib.suppress(Exception):
            await _rejoin(layer, relay)


# --- delivering -----------------------------------------------------------------------


def _audience(tokens: object) -> frozenset[str] | None:
    return frozenset(str(token) for token in tokens) if isinstance(tokens, list) else None


def deliver(
    code: str,
    frames: list[str],
    version: int | None = None,
    audience: frozenset[str] | None = None,
    excluded: frozenset[str] = frozenset(),
) -> None:
    """On the event loop: send ``frames`` to this loop's sockets in the room, in order (only to the
    sockets of the browsers in ``audience`` when it is given: a finished game's chat, say; to none
    of the browsers in ``excluded``: a chat line's sender, told it with its frame's id)."""
    transport = current()
    if version is not None:
        if transport.latest.get(code, -1) >= version:
            return  # a newer state of this room is out already
        transport.latest[code] = version
    loop = asyncio.get_running_loop()
    with transport.lock:
        sockets = [socket for socket, home in transport.members.get(code, {}).items() if home is loop]
    if not sockets:
        transport.latest.pop(code, None)
        transport.newest.pop(code, None)
        return
    if audience is not None:
        # The room's sockets here stay in it whether or not they may hear these frames: what was
        # delivered to them before still orders the states to come.
        sockets = [socket for socket in sockets if getattr(socket, "controller", "") in audience]
    if excluded:
        sockets = [socket for socket in sockets if getattr(socket, "controller", "") not in excluded]
    for socket in sockets:  # each socket's own queue: a client that stopped reading holds up nobody
        try:
            socket.push(frames, version)
        except Exception:  # a socket closing meanwhile must not keep the frames from the rest
            log.debug("a socket of %s left during a send", code, exc_info=True)
    if version is not None:
        transport.newest[code] = (version, frames)
        _heard(code, frames)


def push_everywhere(frames: list[str]) -> int:
    """On the event loop: queue ``frames`` for every socket of this loop, whatever its room; how many.

    For what concerns the connection rather than a room (games.realtime.routes); not relayed.
    """
    loop = asyncio.get_running_loop()
    transport = current()
    with transport.lock:
        sockets = [socket for members in transport.members.values() for socket, home in members.items() if home is loop]
    for socket in sockets:
        try:
            socket.push(frames)
        except Exception:  # a socket closing meanwhile must not keep the frames from the rest
            log.debug("a socket left during a send to all", exc_info=True)
    return len(sockets)


async def welcome(code: str, socket: Socket, frames: list[str]) -> None:
    """Send a socket joining the room its first frames, ending with the room's state (``on_state``)."""
    for text in frames:
        await socket.send(text_data=text)
    _heard(code, frames)


def relay_message(
    code: str,
    frames: list[str],
    version: int | None,
    audience: frozenset[str] | None = None,
    excluded: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    message: dict[str, Any] = {"type": MESSAGE_TYPE, "origin": ORIGIN, "code": code, "frames": frames}
    if version is not None:
        message["version"] = version
    if audience is not None:
        message["audience"] = sorted(audience)
    if excluded:
        message["excluded"] = sorted(excluded)
    return message


async def publish(code: str, frames: list[str], *, version: int | None = None) -> None:
    """On the event loop: deliver here, and relay to the other processes.

    A message with a ``version`` is a new state of the room: its frames end with the state frame.
    """
    deliver(code, frames, version)
    layer = relay_layer()
    if layer is not None and relaying(code):
        await _relay_send(layer, code, relay_message(code, frames, version))


def publish_soon(
    code: str,
    frames: list[str],
    *,
    version: int | None = None,
    audience: frozenset[str] | None = None,
    excluded: frozenset[str] = frozenset(),
) -> None:
    """From a worker thread (after a commit): hand the frames to the event loop without waiting for it.

    The thread goes on at once; the loop delivers to its sockets and relays, in the order
    the calls were made. With no event loop of this process in reach (a management
    command, a plain test), only the relay applies, and the call waits for it.
    """
    transport = current()
    with transport.lock:
        loops = list(dict.fromkeys(transport.members.get(code, {}).values()))
    layer = relay_layer()
    message = relay_message(code, frames, version, audience, excluded) if layer is not None else None
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
            loop.call_soon_threadsafe(
                _on_loop, code, frames, version, relay, audience, excluded, context=contextvars.Context()
            )
        except RuntimeError:  # that loop is closed (a finished test's)
            continue


def _on_loop(
    code: str,
    frames: list[str],
    version: int | None,
    relay: dict[str, Any] | None,
    audience: frozenset[str] | None = None,
    excluded: frozenset[str] = frozenset(),
) -> None:
    transport = current()
    deliver(code, frames, version, audience, excluded)
    layer = relay_layer()
    if relay is not None and layer is not None and relaying(code):
        transport.keep(asyncio.get_running_loop().create_task(_relay_send(layer, code, relay)))


async def _relay_send(layer: BaseChannelLayer, code: str, message: dict[str, Any]) -> None:
    try:
        await layer.group_send(room_group(code), message)
    except Exception:  # the action is committed; other processes' sockets resync on their next ping
        log.exception("relaying the frames of %s failed", code)
        _unknown([code])

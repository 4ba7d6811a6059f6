"""The room's websocket: parse and check a frame, call one service, send errors back.

No ORM and no rules here: the database work goes through ``games.services`` (writes)
and ``games.store.selectors`` / ``games.services.presence`` (reads), each behind ``games.realtime.threads.db_async``
(a socket's presence arriving and leaving behind ``db_upkeep``, one such call at a time).
The room's frames reach this socket through ``games.realtime.fanout``, which queues them as they are
(``push``). Everything this socket sends goes through its own bounded queue
(``games.realtime.backlog.Outbox``, set up by the ASGI middleware around it): in order, and never
waiting for a client that stopped reading.
"""

from __future__ import annotations

import contextlib
import json
import logging
import uuid
from typing import Any

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import DatabaseError

from games import services
from games.domain import errors
from games.domain.rules import RuleViolation
from games.realtime import backlog, fanout, sockets, wire
from games.realtime import limits as ratelimit
from games.realtime.threads import db_async, db_upkeep
from games.services import coach, presence
from games.store import selectors

MAX_FRAME_BYTES = 4096
log = logging.getLogger(__name__)

RATE_CLOSE_AFTER = 3  # rate errors in a row before the socket is closed
CLOSE_RATE_LIMITED = 4008
CLOSE_NO_ROOM = 4404
CLOSE_TOO_MANY = 4029  # over WS_MAX_PER_ADDRESS / WS_MAX_PER_BROWSER (games.realtime.sockets.admit)

# type -> (service, the frame's own fields with their types)
_ACTIONS: dict[str, tuple[Any, dict[str, type | tuple[type, ...]]]] = {
    "start": (services.game_start, {}),
    "roll": (services.turn_roll, {"held": list}),
    "hold": (services.turn_hold, {"held": list}),
    "score": (services.turn_score, {"box": str, "column": int}),
    "leave": (services.game_leave, {"seat": int}),
    "kick": (services.game_kick, {"seat": int}),
    "remove": (services.game_remove_absent, {"seat": int}),
    "add_bot": (services.game_add_bot, {"level": str}),
    "replace": (services.game_replace_with_bot, {"seat": int, "level": str}),
    "pause": (services.game_pause, {}),
    "resume": (services.game_resume, {}),
    "mute": (services.seat_mute, {"seat": int}),
    "unmute": (services.seat_unmute, {"seat": int}),
}
# Social frames (docs/protocol.md): not versioned actions; each kind with its own per-socket limit.
# type -> (service, required fields); "seat" (who speaks, on a shared device) and "id" are optional.
_SOCIAL: dict[str, tuple[Any, dict[str, type]]] = {
    "chat": (services.chat_post, {"text": str}),
    "react": (services.chat_react, {"reaction": str}),
    "back": (services.seat_reclaim, {}),
}
_OPTIONAL = {"column", "level"}  # wherever they are fields
_OPTIONAL_FOR = {"roll": {"held"}}  # a roll may hold dice first; a hold frame must say which


class FrameError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def parse_frame(text: str | None, binary: bytes | None) -> dict[str, Any]:
    """The frame as a dict of checked fields, or FrameError naming what is wrong."""
    if binary is not None or text is None:
        raise FrameError(errors.BAD_FRAME, "Frames are JSON text, not binary.")
    if len(text.encode()) > MAX_FRAME_BYTES:
        raise FrameError(errors.FRAME_TOO_LARGE, f"Frames are at most {MAX_FRAME_BYTES} bytes.")
    try:
        frame = wire.loads(text)
    except ValueError as exc:
        raise FrameError(errors.BAD_JSON, "That frame is not valid JSON.") from exc
    except RecursionError as exc:  # "[[[[..." well under the size limit
        raise FrameError(errors.BAD_JSON, "That frame is nested too deeply.") from exc
    if "\\u" in text and not encodable(frame):
        raise FrameError(errors.BAD_FIELD, "That frame holds text that is not valid Unicode (a lone surrogate).")
    if not isinstance(frame, dict):
        raise FrameError(errors.BAD_FRAME, "A frame is a JSON object with a 'type'.")
    kind = frame.get("type")
    if not isinstance(kind, str):
        raise FrameError(errors.BAD_FRAME, "A frame is a JSON object with a 'type'.")
    if kind in ("ping", "sync"):
        return frame
    if kind == "hint":
        if isinstance(frame.get("version"), bool) or not isinstance(frame.get("version"), int):
            raise FrameError(errors.BAD_FIELD, "A hint frame needs the 'version' it is for.")
        return frame
    if kind in _SOCIAL:
        fields: dict[str, type | tuple[type, ...]] = {**_SOCIAL[kind][1], "seat": int, "id": str}
        for name, expected in fields.items():
            if name not in frame:
                if name in ("seat", "id"):
                    continue
                raise FrameError(errors.MISSING_FIELD, f"A {kind} frame needs '{name}'.")
            if isinstance(frame[name], bool) or not isinstance(frame[name], expected):
                raise FrameError(errors.BAD_FIELD, f"'{name}' of a {kind} frame has the wrong type.")
        return frame
    if kind not in _ACTIONS:
        raise FrameError(errors.UNKNOWN_TYPE, f"Unknown frame type {kind!r}.")
    fields = dict(_ACTIONS[kind][1], version=int, id=str)
    for name, expected in fields.items():
        if name not in frame:
            if name in _OPTIONAL or name in _OPTIONAL_FOR.get(kind, ()):
                continue
            raise FrameError(errors.MISSING_FIELD, f"A {kind} frame needs '{name}'.")
        value = frame[name]
        if isinstance(value, bool) or not isinstance(value, expected):
            raise FrameError(errors.BAD_FIELD, f"'{name}' of a {kind} frame has the wrong type.")
    if not 0 < len(frame["id"]) <= services.ACTION_ID_MAX:
        raise FrameError(errors.BAD_FIELD, f"'id' is 1 to {services.ACTION_ID_MAX} characters.")
    return frame


def encodable(value: object) -> bool:
    """Whether every string in a decoded frame can be stored (JSON's \\ud800 escapes make lone surrogates)."""
    try:
        json.dumps(value, ensure_ascii=False).encode()
    except (UnicodeEncodeError, RecursionError):
        return False
    return True


class RoomConsumer(AsyncWebsocketConsumer):
    # No channel-layer inbox: a room's frames come through games.realtime.fanout, and nothing sends to
    # a socket's own channel. With one, every socket waited on Redis, so Redis going away
    # closed them all (1011) and no new one could open.
    channel_layer_alias = "room sockets have no channel-layer inbox"
    closing = False  # close() was called: nothing more is sent, queued frames are dropped
    gone = False  # disconnect ran (the Presence row is removed)
    early: list[str] | None = None  # the room's frames that arrived before the welcome (connect)

    async def connect(self) -> None:
        self.code = services.normalize_code(self.scope["url_route"]["kwargs"]["code"])
        session = self.scope.get("session")
        self.controller: str = session.get("controller", "") if session is not None else ""
        self.rate_strikes = 0
        self.joined = False
        ip = ratelimit.scope_ip(self.scope)
        self.address = ip
        # games.realtime.gate.AddressGate counted the address before the session was loaded (a storm
        # is refused there); the browser's cap needs the session, so it is counted here.
        self.admission = sockets.admit(ip, self.controller, address_admitted=sockets.GATE_PASSED in self.scope)
        if self.admission.refusal:  # a clear refusal: accepted only to say why
            await self.accept()
            await self.error(errors.TOO_MANY_SOCKETS, self.admission.refusal)
            await self.close(code=CLOSE_TOO_MANY)
            return
        hello = await db_upkeep(self._arrive)(ip)
        if hello is None:  # the same refusal as for any unknown room
            await self.close(code=CLOSE_NO_ROOM)
            return
        # The room's frames from now on are held until the socket is accepted and welcomed: the
        # server may send nothing before the accept, and the page wants its seats and the state first.
        self.early: list[str] | None = []
        you, state, presence_frame, chat = hello
        await fanout.join(self.code, self, version=wire.loads(state)["version"])
        self.joined = True
        sockets.start_sweeping()
        await self.accept()
        # The state listeners hear it too: a bot whose process died is played from here.
        await fanout.welcome(self.code, self, [you, state])
        if chat is not None:
            await self.send(text_data=chat)
        await self.send(text_data=presence_frame)
        early, self.early = self.early, None
        self.push(early)  # older states among them are dropped by the page (by version)
        # The others hear the new presence too, once for a burst of arrivals.
        sockets.presence_changed(self.code)

    def _arrive(self, ip: str) -> tuple[str, str, str, str | None] | None:
        """``presence.arrive``, with unknown codes counted per address like the pages' (guessing)."""
        if ratelimit.miss_refused(ip):
            return None  # over the limit even a right guess is refused, as over HTTP
        # A player whose seat a computer took over while they were away gets it back by coming
        # back. A socket without a controller (a spectator) has no seat to take back: no query.
        if self.controller:
            services.seat_reclaim(code=self.code, controller=self.controller)
        hello = presence.arrive(self.code, self.channel_name, self.controller)
        if hello is None:
            ratelimit.count_miss(ip)
            return None
        # The room's last chat messages, if it has any (docs/protocol.md: after the state).
        messages = selectors.chat_history(self.code)
        chat = wire.dumps({"type": "chat_history", "messages": messages}) if messages else None
        return (*hello, chat)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if backlog.OUTBOX not in scope:  # not behind yahtzee.asgi's BoundedSend: this socket gets its own
            await backlog.BoundedSend(self.__call__)(scope, receive, send)
            return
        self.outbox: backlog.Outbox = scope[backlog.OUTBOX]
        self.channel_name = f"ws.{uuid.uuid4().hex}"  # names this socket's Presence row
        try:
            await super().__call__(scope, receive, send)
        finally:  # also when the consumer failed and disconnect never ran
            if hasattr(self, "admission"):
                self.admission.release()
                sockets.forget_pings(self.channel_name)
            if getattr(self, "joined", False):
                fanout.forget(self.code, self)
                if not self.gone:
                    await sockets.left_anyhow(self.code, self.channel_name)

    async def disconnect(self, code: int) -> None:
        if not self.joined:
            return
        await fanout.leave(self.code, self)
        await sockets.leave(self.code, self.channel_name)  # and the room told, with others closing meanwhile
        self.gone = True

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels hops to its database thread before every message to close old connections.
        # Every database call here goes through db_async (DatabaseSyncToAsync), which does that
        # itself around the call, so the hop is pure cost: one per frame received.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
        if self.closing:
            return  # a frame still queued after the socket was closed (rate limit, slow reader)
        await super().send(text_data=text_data, bytes_data=bytes_data, close=close)

    def push(self, frames: list[str]) -> None:
        """The room's frames (games.realtime.fanout): queued behind its others, without waiting for its client."""
        if self.closing:
            return
        if self.early is not None:  # not welcomed yet (connect)
            self.early.extend(frames)
            return
        for text in frames:
            self.outbox.put({"type": "websocket.send", "text": text})

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        if self.closing:
            return
        self.closing = True
        await super().close(code=code, reason=reason)

    async def error(self, code: str, message: str, frame_id: object = None) -> None:
        error: dict[str, Any] = {"type": "error", "code": code, "message": message}
        if isinstance(frame_id, str):
            error["id"] = frame_id
        await self.send(text_data=wire.dumps(error))

    async def social(self, kind: str, frame: dict[str, Any]) -> None:
        """A chat message, a reaction or a player back at the table: the service sends the room its frames."""
        if refusal := await ratelimit.socket_refusal(kind, self.controller, self.address, self.channel_name):
            await self.error(errors.RATE_LIMITED, refusal, frame.get("id"))
            return
        service, fields = _SOCIAL[kind]
        wanted = (*fields, "seat") if kind != "back" else ()
        kwargs = {name: frame[name] for name in wanted if name in frame}
        try:
            await db_async(service)(code=self.code, controller=self.controller, **kwargs)
        except DatabaseError:
            log.warning("database unavailable for %s in %s", kind, self.code, exc_info=True)
            await self.error(
                errors.UNAVAILABLE, "The game's database is out of reach for a moment: try again.", frame.get("id")
            )
        except RuleViolation as exc:
            await self.error(exc.code, exc.message, frame.get("id"))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """One frame; whatever goes wrong answers an error frame, never takes the socket down (1011)."""
        if self.closing:
            return
        try:
            await self.handle_frame(text_data, bytes_data)
        except Exception:
            log.exception("a frame in %s failed", getattr(self, "code", "?"))
            with contextlib.suppress(Exception):
                await self.error(errors.SERVER_ERROR, "The server could not handle that frame; the page will resync.")
                await self.send(text_data=await db_async(presence.state_text)(self.code))

    async def handle_frame(self, text_data: str | None, bytes_data: bytes | None) -> None:
        if ratelimit.frames_over(self.channel_name, self.address):
            self.rate_strikes += 1
            await self.error(errors.RATE_LIMITED, f"Too many frames: at most {settings.WS_RATE_LIMIT} a second.")
            if self.rate_strikes >= RATE_CLOSE_AFTER:
                await self.close(code=CLOSE_RATE_LIMITED)
            return
        self.rate_strikes = 0
        try:
            frame = parse_frame(text_data, bytes_data)
        except FrameError as exc:
            await self.error(exc.code, exc.message)
            return
        kind = frame["type"]
        if kind == "ping":
            version = await sockets.seen(self.code, self.channel_name)
            # The version lets a page notice a state it missed (say, while Redis restarted).
            await self.send(text_data=wire.dumps({"type": "pong", "version": version}))
            return
        if kind == "sync":
            await self.send(text_data=await db_async(presence.state_text)(self.code))
            return
        if kind == "hint":
            if refusal := await ratelimit.socket_refusal(kind, self.controller, self.address, self.channel_name):
                await self.error(errors.RATE_LIMITED, refusal, frame.get("id"))
                return
            try:
                hint = await db_async(coach.hint_for)(
                    code=self.code, controller=self.controller, version=frame["version"]
                )
            except RuleViolation as exc:
                await self.error(exc.code, exc.message, frame.get("id"))
                return
            except Exception:  # the coach must never take the socket down with it
                log.exception("hint in %s failed", self.code)
                await self.error(errors.COACH_ERROR, "The coach could not answer; try again.", frame.get("id"))
                return
            await self.send(text_data=wire.dumps({**hint, "id": frame.get("id")}))
            return
        if kind in _SOCIAL:
            await self.social(kind, frame)
            return
        service, fields = _ACTIONS[kind]
        kwargs = {name: frame[name] for name in fields if name in frame}
        try:
            await db_async(service)(
                code=self.code,
                controller=self.controller,
                expected_version=frame["version"],
                action_id=frame["id"],
                **kwargs,
            )
        except DatabaseError:
            # Rolled back, or lost during the commit: what is known is looked up, not assumed.
            log.warning("database unavailable for %s in %s", kind, self.code, exc_info=True)
            await sockets.action_failed(self, self.code, self.controller, frame["id"])
        except RuleViolation as exc:
            await self.error(exc.code, exc.message, frame["id"])
            if exc.code in (errors.STALE, errors.REPEATED):
                await self.send(text_data=await db_async(presence.state_text)(self.code))

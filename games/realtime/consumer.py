"""The room's websocket: decode a frame (games.domain.protocol), call one service, send errors back.

No ORM and no rules here: the database work goes through ``games.services`` (writes)
and ``games.store.selectors`` / ``games.services.presence`` (reads), each behind ``games.realtime.threads.db_async``
(a socket's presence arriving and leaving behind ``db_upkeep``, one such call at a time).
The room's frames reach this socket through ``games.realtime.fanout``, which queues them as they are
(``push``). Everything this socket sends goes through its own bounded queue
(``games.realtime.backlog.Outbox``, set up by the ASGI middleware around it): in order, and never
waiting for a client that stopped reading.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import time
import uuid
from typing import Any

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.db import DatabaseError

from games import services
from games.domain import errors, protocol
from games.domain.rules import RuleViolation
from games.realtime import backlog, fanout, sockets
from games.realtime import limits as ratelimit
from games.realtime.threads import db_async, db_upkeep
from games.services import coach, presence
from games.store import selectors

log = logging.getLogger(__name__)

RATE_CLOSE_AFTER = 3  # rate errors in a row before the socket is closed
# How often an open socket looks at its browser's session again (at most; also at once when its
# actions are refused as a spectator's, and before each chat of a socket that had seats).
SESSION_RECHECK = 10.0


async def refuse(send: Any, code: int, error: str | None = None) -> None:
    """A socket refused once its handshake came (``websocket.connect`` received): accepted only to be
    closed with ``code`` (games.domain.protocol's ``CLOSE_*``), after the error frame ``error`` where
    the refusal says why, and nothing else sent. Every refusal after the handshake goes this way: the
    room's consumer's (``RoomConsumer.refuse``), an address that is no room's
    (games.realtime.routing), an address over its share (games.realtime.gate).

    Not the handshake refused: that is an HTTP 403, which the browser tells its page as a
    connection lost (1006), without the code. The page of a room deleted while it was open would
    try again for ever instead of stopping (4404), one over the guesses' limit would not know to
    wait (4008), one over the sockets' limits would not learn why (4029)."""
    await send({"type": "websocket.accept"})
    if error is not None:
        await send({"type": "websocket.send", "text": error})
    await send({"type": "websocket.close", "code": code})


class _Limited(enum.Enum):
    LIMITED = "limited"


# ``RoomConsumer._arrive``'s answer for an address over its miss limit.
LIMITED = _Limited.LIMITED


class RoomConsumer(AsyncWebsocketConsumer):
    # No channel-layer inbox (``_serve``): a room's frames come through games.realtime.fanout, and
    # nothing sends to a socket's own channel. With one, every socket waited on Redis, so Redis
    # going away closed them all (1011) and no new one could open.
    closing = False  # close() was called: nothing more is sent, queued frames are dropped
    gone = False  # disconnect ran (the Presence row is removed)
    # The room's frames that arrived before the welcome (connect), each batch with its state's version.
    early: list[tuple[list[str], int | None]] | None = None

    async def connect(self) -> None:
        self.code = services.normalize_code(self.scope["url_route"]["kwargs"]["code"])
        session = self.scope.get("session")
        self.controller: str = session.get("controller", "") if session is not None else ""
        # The browser's own mark (its Presence row carries it), by which signing out finds its sockets.
        browser = session.get(presence.SESSION_BROWSER, "") if session is not None else ""
        self.browser: str = browser if isinstance(browser, str) else ""
        user = self.scope.get("user")  # resolved by Channels' auth middleware, from the session
        if session is not None and SESSION_KEY in session and user is not None and not user.is_authenticated:
            # Signed in to an account that is gone (deleted, or deactivated by staff): Channels reads
            # the session as nobody's and keeps it, with a token that plays nothing any more.
            self.controller = ""
        # The token is read once, here: signing in or out in another tab of the browser changes the
        # session (cycled or flushed), which ``session_moved`` notices when the socket next acts and
        # answers by a reconnect. The room counts the socket as the browser is now meanwhile: its
        # Presence row follows the sign-in (``services.seats_hand_over``) and the sign-out
        # (``presence.signed_out``, by the browser's mark).
        self.session_key: str | None = session.session_key if session is not None else None
        self.session_checked = time.monotonic()
        self.seated = False
        self.rate_strikes = 0
        self.joined = False
        ip = ratelimit.scope_ip(self.scope)
        self.address = ip
        # games.realtime.gate.AddressGate counted the address before the session was loaded (a storm
        # is refused there); the browser's cap needs the session, so it is counted here.
        self.admission = sockets.admit(ip, self.controller, address_admitted=sockets.GATE_PASSED in self.scope)
        if self.admission.refusal:  # a clear refusal: accepted only to say why
            await self.refuse(protocol.CLOSE_TOO_MANY, protocol.error(errors.TOO_MANY_SOCKETS, self.admission.refusal))
            return
        # The socket hears the room's frames before it reads the room: a move or a chat line
        # committed while it reads (another socket's, the scheduler's) reaches it then, where
        # it would have gone only to the sockets already there. They are held until the socket
        # is accepted and welcomed: the server may send nothing before the accept, and the page
        # wants its seats and the state first (an older state among them it drops by version).
        self.early = []
        await fanout.join(self.code, self)
        self.joined = True
        hello = await db_upkeep(self._arrive)(ip)
        if hello is None or hello is LIMITED:
            self.joined = False
            await fanout.leave(self.code, self)
            # An unknown room: 4404. Over the guesses' limit, 4008, not 4404, which the page takes
            # for a room deleted and stops trying: one that exists may be refused there. Any code
            # over the limit is refused so, telling nothing.
            await self.refuse(protocol.CLOSE_RATE_LIMITED if hello is LIMITED else protocol.CLOSE_NO_ROOM)
            return
        you, state, presence_frame, chat = hello
        self.seated = bool(protocol.loads(you)["seats"])
        version = protocol.loads(state)["version"]
        await fanout.welcomed(self.code, self, version)
        sockets.start_sweeping()
        await self.accept()
        # The state listeners hear it too: a bot whose process died is played from here.
        await fanout.welcome(self.code, self, [you, state])
        if chat is not None:
            await self.send(text_data=chat)
        await self.send(text_data=presence_frame)
        early, self.early = self.early, None
        # What arrived meanwhile, less the states no newer than the welcome's: a socket's
        # version only grows (the other processes answer its ``joined`` with their newest state,
        # which it may have read already). A presence held here was counted before this socket's
        # row existed, and would count this page's seat away after the welcome's fresher one:
        # the page would reconnect to be counted. The next presence_changed sends one after it.
        for frames, held in early:
            if held is None or held > version:
                self.push([text for text in frames if protocol.loads(text).get("type") != "presence"])
        # The others hear the new presence too, once for a burst of arrivals.
        sockets.presence_changed(self.code)

    async def refuse(self, code: int, error: str | None = None) -> None:
        """This socket refused (``refuse``): nothing it would send after the close goes out."""
        self.closing = True
        await refuse(self.base_send, code, error)

    def _arrive(self, ip: str) -> tuple[str, str, str, str | None] | _Limited | None:
        """``presence.arrive``, with unknown codes counted per address like the pages' (guessing):
        ``LIMITED`` for an address over its limit."""
        slot = ratelimit.take_miss(ip)
        if slot is None:
            # Over the limit even a right guess is refused, as over HTTP; a browser with a seat in
            # the room knows its code and comes in uncounted.
            return self._hello() if selectors.seat_holder_in(self.code, self.controller) else LIMITED
        try:
            hello = self._hello()
        except BaseException:
            ratelimit.limiter.give_back(slot)  # a failure is no miss
            raise
        if hello is not None:  # only a code that does not exist counts
            ratelimit.limiter.give_back(slot)
        return hello

    def _hello(self) -> tuple[str, str, str, str | None] | None:
        """``presence.arrive`` and the chat history, None for an unknown room."""
        # A player whose seat a computer took over while they were away gets it back by coming
        # back, if the browser is theirs alone: a shared device's players each name their seat
        # (the service takes none back then). A socket without a controller (a spectator) has
        # no seat to take back: no query.
        if self.controller:
            services.seat_reclaim(code=self.code, controller=self.controller)
        hello = presence.arrive(self.code, self.channel_name, self.controller, self.browser)
        if hello is None:
            return None
        # The room's last chat messages (docs/protocol.md: after the state), also none when staff
        # hid them all: a page that comes back drops what was hid meanwhile. Nothing for a room
        # without chat, or for a stranger to a finished game.
        messages = selectors.chat_history_for(self.code, self.controller)
        chat = protocol.encode(protocol.ChatHistory(messages=messages)) if messages is not None else None
        return (*hello, chat)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if backlog.OUTBOX not in scope:  # not behind yahtzee.asgi's BoundedSend: this socket gets its own
            await backlog.BoundedSend(self.__call__)(scope, receive, send)
            return
        self.outbox: backlog.Outbox = scope[backlog.OUTBOX]
        self.channel_name = f"ws.{uuid.uuid4().hex}"  # names this socket's Presence row
        self.page = sockets.PageVisibility(self.channel_name)  # whether its page is hidden, for the notices
        try:
            await self._serve(scope, receive, send)
        finally:  # also when the consumer failed and disconnect never ran
            if hasattr(self, "admission"):
                self.admission.release()
                sockets.forget_pings(self.channel_name)
            if getattr(self, "joined", False):
                fanout.forget(self.code, self)
                if not self.gone:
                    await sockets.left_anyhow(self.code, self.channel_name)

    async def _serve(self, scope: Any, receive: Any, send: Any) -> None:
        """Channels' ``AsyncConsumer.__call__`` for a consumer with no channel layer: each message
        the server hands over is dispatched in turn, in this task.

        Channels waits on its inputs with ``asyncio.wait`` over a task it starts anew for every
        message (``await_many_dispatch``), which only pays off with a channel-layer inbox to
        wait on beside the socket; this consumer has none.
        """
        self.scope = scope
        self.channel_layer = None
        self.base_send = send
        try:
            while True:
                await self.dispatch(await receive())
        except StopConsumer:
            pass

    async def disconnect(self, code: int) -> None:
        if not self.joined:
            return
        await fanout.leave(self.code, self)
        try:
            await sockets.leave(self.code, self.channel_name)  # and the room told, with others closing meanwhile
        except asyncio.CancelledError:
            # The server gave up waiting: the row's batch goes on without this socket (it is
            # shielded), so the ending does not ask for the row's removal a second time.
            self.gone = True
            raise
        self.gone = True

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels hops to its database thread before every message to close old connections.
        # Every database call here goes through db_async (games.realtime.threads), which closes
        # old connections itself after the call, so the hop is pure cost: one per frame received.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
        if self.closing:
            return  # a frame still queued after the socket was closed (rate limit, slow reader)
        await super().send(text_data=text_data, bytes_data=bytes_data, close=close)

    def push(self, frames: list[str], version: int | None = None) -> None:
        """The room's frames (games.realtime.fanout): queued behind its others, without waiting for its
        client. ``version``: the state's, when they end with one."""
        if self.closing:
            return
        if self.early is not None:  # not welcomed yet (connect)
            self.early.append((frames, version))
            return
        if fanout.ROOM_GONE in frames:
            # The room was deleted: the close goes behind what is queued, as close() sends it.
            self.closing = True
            self.outbox.put({"type": "websocket.close", "code": protocol.CLOSE_NO_ROOM})
            return
        for text in frames:
            self.outbox.put({"type": "websocket.send", "text": text})

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        if self.closing:
            return
        self.closing = True
        await super().close(code=code, reason=reason)

    async def error(self, code: str, message: str, frame_id: object = None) -> None:
        await self.send(text_data=protocol.error(code, message, frame_id))

    async def session_moved(self, *, now: bool = False) -> bool:
        """Whether the browser signed in or out since this socket opened; then the socket is closed, and
        its page connects again with the browser's session as it is now (its seats, or none).

        Looked at every ``SESSION_RECHECK`` seconds at most, unless ``now``: a signed-out tab of a
        shared computer stops playing the account's seats, and a tab of a browser that signed in
        plays them under the account's token.
        """
        if not self.session_key or self.closing:
            return False
        moment = time.monotonic()
        if not now and moment - self.session_checked < SESSION_RECHECK:
            return False
        self.session_checked = moment
        if await db_async(selectors.session_controller)(self.session_key) == self.controller:
            return False
        await self.close(code=protocol.CLOSE_SESSION_CHANGED)
        return True

    async def social(self, frame: protocol.Chat | protocol.React | protocol.Back) -> None:
        """A chat message, a reaction or a player back at the table: the service sends the room its frames."""
        if await self.session_moved(now=self.seated and isinstance(frame, protocol.Chat)):
            return  # not said under a name the browser no longer has
        if refusal := await ratelimit.socket_refusal(frame.kind, self.controller, self.address, self.channel_name):
            await self.error(errors.RATE_LIMITED, refusal, frame.id)
            return
        try:
            await db_async(services.perform)(frame, code=self.code, controller=self.controller)
        except DatabaseError:
            log.warning("database unavailable for %s in %s", frame.kind, self.code, exc_info=True)
            await self.error(errors.UNAVAILABLE, errors.message(errors.UNAVAILABLE), frame.id)
        except RuleViolation as exc:
            await self.error(exc.code, exc.message, frame.id)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """One frame; whatever goes wrong answers an error frame, never takes the socket down (1011)."""
        if self.closing:
            return
        try:
            await self.handle_frame(text_data, bytes_data)
        except selectors.RoomGone:
            # The room was swept while this socket was open: closed as for any unknown room.
            await self.close(code=protocol.CLOSE_NO_ROOM)
        except Exception:
            log.exception("a frame in %s failed", getattr(self, "code", "?"))
            with contextlib.suppress(Exception):
                await self.error(errors.SERVER_ERROR, errors.message(errors.SERVER_ERROR))
                await self.send(text_data=await db_async(presence.state_text)(self.code))

    async def handle_frame(self, text_data: str | None, bytes_data: bytes | None) -> None:
        if ratelimit.frames_over(self.channel_name, self.address):
            self.rate_strikes += 1
            await self.error(errors.RATE_LIMITED, f"Too many frames: at most {settings.WS_RATE_LIMIT} a second.")
            if self.rate_strikes >= RATE_CLOSE_AFTER:
                await self.close(code=protocol.CLOSE_RATE_LIMITED)
            return
        self.rate_strikes = 0
        try:
            frame = protocol.decode(text_data, bytes_data)
        except protocol.FrameError as exc:
            await self.error(exc.code, exc.message)
            return
        if isinstance(frame, protocol.Action):
            await self.act(frame)
        elif isinstance(frame, protocol.Ping):
            version = await sockets.seen(self.code, self.channel_name, self.controller, self.page.since, self.browser)
            # The version lets a page notice a state it missed (say, while Redis restarted).
            await self.send(text_data=protocol.encode(protocol.Pong(version=version)))
        elif isinstance(frame, protocol.Sync):
            await self.send(text_data=await db_async(presence.state_text)(self.code))
        elif isinstance(frame, protocol.Visibility):
            self.page.tell(frame.hidden, frame.hidden_for)  # written by its own task; nothing is answered
        elif isinstance(frame, protocol.Hint):
            await self.hint(frame)
        elif isinstance(frame, protocol.Chat | protocol.React | protocol.Back):
            await self.social(frame)

    async def hint(self, frame: protocol.Hint) -> None:
        """The coach's advice, to this socket only."""
        if refusal := await ratelimit.socket_refusal("hint", self.controller, self.address, self.channel_name):
            await self.error(errors.RATE_LIMITED, refusal, frame.id)
            return
        try:
            hint = await db_async(coach.hint_for)(code=self.code, controller=self.controller, version=frame.version)
        except RuleViolation as exc:
            if exc.code == errors.NOT_A_PLAYER and await self.session_moved(now=True):
                return  # as for an action: the page comes back with the seats the browser has now
            await self.error(exc.code, exc.message, frame.id)
            if exc.code == errors.STALE:  # the page asked about a table it no longer has: it gets the one there is
                await self.send(text_data=await db_async(presence.state_text)(self.code))
            return
        except Exception:  # the coach must never take the socket down with it
            log.exception("hint in %s failed", self.code)
            await self.error(errors.COACH_ERROR, errors.message(errors.COACH_ERROR), frame.id)
            return
        await self.send(text_data=protocol.dumps({**hint, "id": frame.id}))

    async def act(self, frame: protocol.Action) -> None:
        """A versioned action: one service call; a refusal answers an error frame with the action's id."""
        if await self.session_moved():
            return
        try:
            await db_async(services.perform)(frame, code=self.code, controller=self.controller)
        except DatabaseError:
            # Rolled back, or lost during the commit: what is known is looked up, not assumed.
            log.warning("database unavailable for %s in %s", frame.kind, self.code, exc_info=True)
            await sockets.action_failed(self, self.code, self.controller, frame.id)
        except RuleViolation as exc:
            if exc.code == errors.NOT_A_PLAYER and await self.session_moved(now=True):
                return  # its seats moved to the account it signed in to: the page comes back with them
            await self.error(exc.code, exc.message, frame.id)
            if exc.code in (errors.STALE, errors.REPEATED):
                await self.send(text_data=await db_async(presence.state_text)(self.code))

"""Every rate limit of the site, counted by one limiter: moving windows of the ``limits`` library.

A limit allows at most COUNT events in any SECONDS (a moving window: there is no window
boundary at which a client gets its allowance twice), counted per bucket: a browser (its
session's controller token), an address, or one socket. The limits, their buckets and
their settings (``"COUNT/SECONDS"``, or a count a second) are the ``Limit`` constants
below and the table in docs/security.md; ``RATE_LIMITS=0`` turns off all but the frames
per socket, which ``WS_RATE_LIMIT`` sets on its own.

Where the counts live:

- **Shared** limits (pages, the language switch, the form posts of a page without script, chat,
  reactions, hints, room-code guesses) must hold across
  worker processes, since a browser's pages and sockets may reach any of them: they count
  in Redis (``RATE_LIMIT_REDIS_URL``, which is the cache's Redis) when there is one, else
  in this process's memory (the embedded default is one process). Their bucket names are
  hashed: controller tokens never leave the process.
- **Local** limits (frames per socket and per address, new sockets per address, clear
  refusals) guard this worker's own event loop and count in its memory.

If Redis does not answer, the shared limits count in this process's memory for
``REDIS_RETRY`` seconds and Redis is tried again: a limit is never the reason a page or a
socket fails, and it still holds per process meanwhile.

The storages: in Redis, ``limits``' RedisStorage and its Lua scripts (an atomic count per
event); in memory, ``MemoryWindows`` below, with the same moving-window interface
(``limits``' MemoryStorage reads the wall clock and runs a timer thread, see there).

The clock: ``limits``' storages read ``time.time()`` themselves and take no clock, so the
limiter gives its storages the time: this process's monotonic clock in memory, the wall
clock (shared by every process) in Redis, or the clock a test sets with
``limiter.use_clock`` to move time without sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import ipaddress
import itertools
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from limits.storage import MovingWindowSupport, RedisStorage, Storage

from games.domain import errors

log = logging.getLogger(__name__)

Clock = Callable[[], float]
T = TypeVar("T")
# A page view, plain or async (the limit decorator takes both).

REDIS_RETRY = 5.0  # seconds the shared limits count in memory after Redis failed to answer
UNKNOWN = "unknown"  # scope_ip's answer for a peer without an address
# A rate's window written as a unit ("10/m"), as allauth's limits write theirs.
UNITS = {"s": 1, "m": 60, "h": 60 * 60, "d": 24 * 60 * 60}


@dataclass(frozen=True)
class Rate:
    count: int
    seconds: int

    @classmethod
    def parse(cls, text: str) -> Rate | None:
        """``"10/60"`` is 10 in any 60 s, and so is ``"10/m"`` (``s``, ``m``, ``h``, ``d``: the spelling of
        allauth's own limits, without their key); ``"10"`` is 10 a minute; ``"0"``, ``""`` or ``"off"``
        is no limit. Anything else raises ValueError (``yahtzee.E001`` says so when a process starts)."""
        text = (text or "").strip().lower()
        if text in ("", "0", "off", "none"):
            return None
        count, _, window = text.partition("/")
        try:
            rate = cls(int(count), UNITS.get(window.strip()) or int(window or 60))
        except ValueError:
            rate = None
        if rate is None or rate.count < 0 or rate.seconds < 0:
            raise ValueError(f"{text!r} is not COUNT/SECONDS (10/60), COUNT/UNIT (10/m) or off")
        return rate if rate.count > 0 and rate.seconds > 0 else None


@dataclass(frozen=True, eq=False)  # one object per limit: hashed by identity, cheaply
class Limit:
    """One limit: its name, the setting that gives its rate, and where it counts."""

    name: str
    setting: str  # "COUNT/SECONDS", or an int: a count a second (or in ``window_of``'s window)
    shared: bool = False  # across worker processes (Redis when configured)
    always: bool = False  # counted with RATE_LIMITS=0 too (it has a setting of its own for load generators)
    window_of: Limit | None = None  # an int setting counted in this limit's window (10 s when that one is off)
    message: str | Promise = ""  # what a refused page says (translated when shown: a lazy string)

    def rate(self) -> Rate | None:
        """The rate the settings give, or None: no limit (the limiter keeps it until a setting changes)."""
        if not (self.always or settings.RATE_LIMITS):
            return None
        value = getattr(settings, self.setting)
        if isinstance(value, str):
            return Rate.parse(value)
        seconds = 1
        if self.window_of is not None:
            window = self.window_of.rate()
            seconds = window.seconds if window is not None else 10
        return Rate(int(value), seconds) if value > 0 else None


# Pages: per browser, and RATE_LIMIT_PER_IP times as many per address (client_buckets).
ROOM_CREATE = Limit(
    "room_create", "RATE_LIMIT_ROOM_CREATE", shared=True, message=_("You have created too many rooms in a short time.")
)
ROOM_JOIN = Limit(
    "room_join", "RATE_LIMIT_ROOM_JOIN", shared=True, message=_("You have joined too many rooms in a short time.")
)
# The form posts those limits count that were refused (a 4xx: nothing was made), counted here in
# their place, so that only what was made counts against them, and a flood of refused posts is
# still bounded.
REFUSED_FORMS = Limit("refused_forms", "RATE_LIMIT_REFUSED_FORMS", shared=True)
# Turning notices on, off or to another address: each stores a row (a push subscription, an
# e-mail address) that later sends go to.
NOTICES = Limit(
    "notices", "RATE_LIMIT_NOTICES", shared=True, message=_("You have changed your notices too often in a short time.")
)
# The header's language switch: each stores the language a browser's notices (or an account) are
# sent in.
LANGUAGE = Limit(
    "language",
    "RATE_LIMIT_LANGUAGE",
    shared=True,
    message=_("You have switched the language too often in a short time."),
)
# "Confirm your address" e-mails, per mailbox (confirmation_mail_bucket), whoever asks; and per
# account, whatever addresses it types in.
CONFIRMATION_MAILS = Limit(
    "confirmation_mails",
    "RATE_LIMIT_CONFIRMATION_MAILS",
    shared=True,
    always=True,
    message=_("That address has been sent enough links for today: try again tomorrow."),
)
ACCOUNT_CONFIRMATION_MAILS = Limit(
    "account_confirmation_mails", "RATE_LIMIT_CONFIRMATION_MAILS_PER_ACCOUNT", shared=True, always=True
)
# Room codes that do not exist, per address, over the pages and the socket's handshake alike.
ROOM_MISS = Limit(
    "room_miss",
    "RATE_LIMIT_ROOM_MISS",
    shared=True,
    message=_("Too many room codes that do not exist were tried from your address."),
)
# A browser's frames, over all its sockets (browser_bucket).
CHAT = Limit("chat", "CHAT_RATE", shared=True)
REACTIONS = Limit("react", "REACTION_RATE", shared=True)
HINTS = Limit("hint", "WS_HINT_RATE", shared=True)  # the coach costs milliseconds a hint
# A page without script plays by form posts, each the frame a socket would send: counted as frames,
# per browser and per address, but across processes, since its posts may reach any worker
# (a socket's frames all reach the one its room is routed to).
FORM_FRAMES = Limit("form_frames", "WS_RATE_LIMIT", shared=True, always=True)
FORM_ADDRESS_FRAMES = Limit("form_address_frames", "WS_FRAMES_PER_ADDRESS", shared=True)
# One worker's fair shares, per process.
FRAMES = Limit("frames", "WS_RATE_LIMIT", always=True)  # per socket
ADDRESS_FRAMES = Limit("address_frames", "WS_FRAMES_PER_ADDRESS")  # all an address's sockets together
CONNECTS = Limit("connects", "WS_CONNECT_RATE")  # new sockets per address
CLEAR_REFUSALS = Limit("clear_refusals", "WS_CLEAR_REFUSALS", window_of=CONNECTS)  # refusals that say why

LIMITS = (
    ROOM_CREATE, ROOM_JOIN, REFUSED_FORMS, NOTICES, LANGUAGE, CONFIRMATION_MAILS, ACCOUNT_CONFIRMATION_MAILS,
    ROOM_MISS, CHAT, REACTIONS, HINTS, FORM_FRAMES, FORM_ADDRESS_FRAMES, FRAMES, ADDRESS_FRAMES, CONNECTS,
    CLEAR_REFUSALS,
)  # fmt: skip


class Bucket(NamedTuple):
    """Who a limit counts: a kind ("browser", "address", "socket") and who, with its share of the count."""

    kind: str
    ident: str
    share: int = 1  # the limit's count times this (an address's cap for everyone behind it)


class Slot(NamedTuple):
    """An event ``Limiter.take`` counted, and what ``Limiter.give_back`` needs to take it back."""

    limit: Limit
    buckets: tuple[Bucket, ...]
    keys: tuple[str, ...]  # none when the limit is off
    at: float  # the time each key's entry was counted at


# --- the storages: limits' moving windows, on the limiter's clock ---------------------------


class MemoryWindows(Storage, MovingWindowSupport):
    """The moving windows of one process: each bucket's recent event times, in memory.

    ``limits``' own MemoryStorage reads the wall clock inside (no clock can be given) and,
    while any window holds an event, keeps a 10 ms timer going, a new thread each time, that
    walks every key: with each socket's frames counted on every frame, dozens of thread
    starts a second and walks of thousands of keys beside the event loop (a count cost twice
    as much with 2,000 keys as with one). Here each key's times are dropped when the key is
    next counted, and keys left idle are forgotten in one sweep every ``SWEEP_EVERY`` counts.
    """

    SWEEP_EVERY = 10_000

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock
        self.windows: dict[str, tuple[deque[float], int]] = {}  # key -> (times, oldest first; seconds)
        self.lock = threading.Lock()  # page views count from several threads
        self.counted = 0

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return ValueError

    def _times(self, key: str, expiry: int, now: float) -> deque[float]:
        window = self.windows.get(key)
        if window is None:
            window = self.windows[key] = (deque(), expiry)
        times = window[0]
        # An event counts while it is at most ``expiry`` seconds old, as in limits' storages.
        while times and times[0] < now - expiry:
            times.popleft()
        return times

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        return self.acquire_at(key, limit, expiry, self.clock(), amount)

    def acquire_at(self, key: str, limit: int, expiry: int, now: float, amount: int = 1) -> bool:
        """``acquire_entry`` at the time ``now`` (``release_at`` takes the entry back by it)."""
        with self.lock:
            times = self._times(key, expiry, now)
            if len(times) + amount > limit:
                return False
            times.extend(itertools.repeat(now, amount))
            self.counted += 1
            if self.counted % self.SWEEP_EVERY == 0:
                self._sweep(now)
            return True

    def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        now = self.clock()
        with self.lock:
            times = self._times(key, expiry, now)
            return (times[0], len(times)) if times else (now, 0)

    def release_at(self, key: str, at: float) -> None:
        """Take back one entry counted at ``at`` (none if it aged out meanwhile)."""
        with self.lock:
            window = self.windows.get(key)
            if window is not None and at in window[0]:
                window[0].remove(at)

    def _sweep(self, now: float) -> None:
        idle = [key for key, (times, expiry) in self.windows.items() if not times or times[-1] < now - expiry]
        for key in idle:
            del self.windows[key]

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        raise NotImplementedError("moving windows only")

    def get(self, key: str) -> int:
        raise NotImplementedError("moving windows only")

    def get_expiry(self, key: str) -> float:
        raise NotImplementedError("moving windows only")

    def check(self) -> bool:
        return True

    def reset(self) -> int | None:
        with self.lock:
            count = len(self.windows)
            self.windows.clear()
        return count

    def clear(self, key: str) -> None:
        with self.lock:
            self.windows.pop(key, None)


class RedisWindows(RedisStorage):
    """``limits``' Redis storage and its Lua scripts, with each event's time given by the limiter's clock."""

    # A moving window is a list of its entries' times, newest first (limits' acquire script):
    # one entry of the time given goes, in one step. The time arrives as the same text the
    # acquire script read it from, so it reads as the same number.
    SCRIPT_RELEASE = b"""
local at = tonumber(ARGV[1])
for _, entry in ipairs(redis.call('lrange', KEYS[1], 0, -1)) do
    if tonumber(entry) == at then
        return redis.call('lrem', KEYS[1], 1, entry)
    end
end
return 0
"""

    def __init__(self, uri: str, clock: Clock, key_prefix: str) -> None:
        # Short timeouts, as the cache's: an unanswered limit must not hold a page for long.
        super().__init__(uri, key_prefix=key_prefix, socket_connect_timeout=1, socket_timeout=1)
        self.clock = clock
        self.lua_release = self.get_connection().register_script(self.SCRIPT_RELEASE)

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        return self.acquire_at(key, limit, expiry, self.clock(), amount)

    def acquire_at(self, key: str, limit: int, expiry: int, now: float, amount: int = 1) -> bool:
        return bool(self.lua_acquire_moving_window([self.prefixed_key(key)], [now, limit, expiry, amount]))

    def release_at(self, key: str, at: float) -> None:
        self.lua_release([self.prefixed_key(key)], [at])

    def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        now = self.clock()
        window = self.lua_moving_window([self.prefixed_key(key)], [now - expiry, limit])
        return (float(window[0]), int(window[1])) if window else (now, 0)


Windows = MemoryWindows | RedisWindows


def _digest(ident: str) -> str:
    return hashlib.sha256(ident.encode()).hexdigest()[:24]


class Limiter:
    """Counts every limit: local ones in this process's memory, shared ones in Redis when there is one.

    The storages are ``limits``' moving-window storages (``MovingWindowSupport``), asked
    directly with the limiter's own keys: its strategy classes only build a key and
    forward, and that cost several times the count itself on the path of every frame.
    """

    def __init__(self) -> None:
        self.clock: Clock | None = None  # set by use_clock; else the monotonic and the wall clock
        self.memory = MemoryWindows(self._monotonic)
        self._rates: dict[Limit, Rate | None] = {}  # read from the settings once (setting_changed clears it)
        self._redis: RedisWindows | None = None
        self._redis_url = ""
        self._redis_back_at = 0.0  # Redis failed: the shared limits count in memory until then
        self._redis_lock = threading.Lock()

    def _monotonic(self) -> float:
        return (self.clock or time.monotonic)()

    def _wall(self) -> float:
        return (self.clock or time.time)()

    @contextlib.contextmanager
    def use_clock(self, clock: Clock) -> Iterator[None]:
        """Count on ``clock`` meanwhile (tests move it instead of sleeping)."""
        before, self.clock = self.clock, clock
        try:
            yield
        finally:
            self.clock = before

    def reset(self) -> None:
        """Forget this process's counts, the rates read from the settings and a Redis failure (a test's fresh start)."""
        self.memory.reset()
        self.reset_rates()
        self._redis_back_at = 0.0

    def reset_rates(self) -> None:
        self._rates.clear()

    def rate(self, limit: Limit) -> Rate | None:
        try:
            return self._rates[limit]
        except KeyError:
            rate = self._rates[limit] = limit.rate()
            return rate

    def redis(self) -> RedisWindows | None:
        """The shared limits' Redis (made on first use), or None without RATE_LIMIT_REDIS_URL."""
        url = settings.RATE_LIMIT_REDIS_URL
        if not url:
            return None
        with self._redis_lock:
            if self._redis is None or self._redis_url != url:
                self._redis = RedisWindows(url, self._wall, f"{settings.RATE_LIMIT_KEY_PREFIX}:limits")
                self._redis_url = url
            return self._redis

    def _counts_in_redis(self, limit: Limit) -> bool:
        return limit.shared and bool(settings.RATE_LIMIT_REDIS_URL) and time.monotonic() >= self._redis_back_at

    def _run(self, limit: Limit, use: Callable[[Windows], T]) -> T:
        if limit.shared and self._counts_in_redis(limit):
            redis = self.redis()
            if redis is not None:
                try:
                    return use(redis)
                except Exception:  # noqa: BLE001 - Redis away: the limit holds in this process meanwhile
                    self._redis_back_at = time.monotonic() + REDIS_RETRY
                    log.warning("rate limits: Redis does not answer; counting in memory for %g s", REDIS_RETRY)
        return use(self.memory)

    def _keys(self, limit: Limit, rate: Rate, buckets: tuple[Bucket, ...]) -> list[tuple[str, int]]:
        """Each bucket's key and count. A changed rate starts afresh, as in ``limits``' own keys."""
        if not limit.shared:
            return [
                (f"{limit.name}/{kind}/{ident}/{rate.count}/{rate.seconds}", rate.count * share)
                for kind, ident, share in buckets
            ]
        # Shared keys leave the process: hashed (controller tokens stay out of Redis), and
        # apart per test run (RATE_LIMIT_NAMESPACE) when tests share a Redis.
        namespace = settings.RATE_LIMIT_NAMESPACE
        return [
            (f"{limit.name}/{namespace}/{b.kind}/{_digest(b.ident)}/{rate.count}/{rate.seconds}", rate.count * b.share)
            for b in buckets
        ]

    def hit(self, limit: Limit, *buckets: Bucket) -> bool:
        """Count one event, unless one of ``buckets`` is full: then nothing is counted and False."""
        rate = self.rate(limit)
        if rate is None:
            return True
        if not limit.shared and len(buckets) == 1:  # a frame's: kept short, it runs for every frame
            kind, ident, share = buckets[0]
            key = f"{limit.name}/{kind}/{ident}/{rate.count}/{rate.seconds}"
            return self.memory.acquire_entry(key, rate.count * share, rate.seconds)
        keys, seconds = self._keys(limit, rate, buckets), rate.seconds

        def each(windows: Windows) -> bool:
            if len(keys) > 1 and any(windows.get_moving_window(k, n, seconds)[1] >= n for k, n in keys):
                return False
            return all([windows.acquire_entry(k, n, seconds) for k, n in keys])

        return self._run(limit, each)

    def take(self, limit: Limit, *buckets: Bucket) -> Slot | None:
        """Count one event in each of ``buckets`` before the outcome that decides whether it counts
        is known (a room code looked up): None, and nothing counted, if one of them is full.

        Checking first and counting afterwards lets requests sent together all pass the check
        before any is counted; each entry taken here is atomic in its storage, so no more than
        the limit get a slot. ``give_back`` takes it back when the event turns out not to count.
        """
        rate = self.rate(limit)
        if rate is None:
            return Slot(limit, buckets, (), 0.0)
        keys, seconds = self._keys(limit, rate, buckets), rate.seconds

        def each(windows: Windows) -> Slot | None:
            at = windows.clock()
            taken: list[str] = []
            for key, count in keys:
                if not windows.acquire_at(key, count, seconds, at):
                    for counted in taken:  # all of the buckets or none
                        windows.release_at(counted, at)
                    return None
                taken.append(key)
            return Slot(limit, buckets, tuple(taken), at)

        return self._run(limit, each)

    def give_back(self, slot: Slot) -> None:
        """Take back the event ``take`` counted (one that turned out not to count)."""
        if slot.keys:
            self._run(slot.limit, lambda windows: [windows.release_at(key, slot.at) for key in slot.keys])

    async def ahit(self, limit: Limit, *buckets: Bucket) -> bool:
        """``hit`` from the event loop: a count in Redis waits in a thread, one in memory does not."""
        if self._counts_in_redis(limit):
            return await asyncio.to_thread(self.hit, limit, *buckets)
        return self.hit(limit, *buckets)

    def full(self, limit: Limit, *buckets: Bucket) -> bool:
        """Whether one more event would be over ``limit`` in any of ``buckets`` (nothing is counted)."""
        rate = self.rate(limit)
        if rate is None:
            return False
        keys, seconds = self._keys(limit, rate, buckets), rate.seconds
        return self._run(limit, lambda w: any(w.get_moving_window(k, n, seconds)[1] >= n for k, n in keys))

    def count(self, limit: Limit, *buckets: Bucket) -> None:
        """Count one event in each of ``buckets`` that has room for it."""
        rate = self.rate(limit)
        if rate is not None:
            keys, seconds = self._keys(limit, rate, buckets), rate.seconds
            self._run(limit, lambda w: [w.acquire_entry(k, n, seconds) for k, n in keys])

    def retry_after(self, limit: Limit, *buckets: Bucket) -> int:
        """Whole seconds until each of ``buckets`` has room again (at least 1)."""
        rate = self.rate(limit)
        if rate is None:
            return 1
        keys, seconds = self._keys(limit, rate, buckets), rate.seconds

        def waits(windows: Windows) -> list[float]:
            now = windows.clock()  # the clock the window was counted on
            counted = [windows.get_moving_window(k, n, seconds) + (n,) for k, n in keys]
            return [start + seconds - now for start, events, n in counted if events >= n]

        return max(1, math.ceil(max(self._run(limit, waits), default=1)))


limiter = Limiter()


@receiver(setting_changed)
def _settings_changed(**kwargs: object) -> None:
    limiter.reset_rates()


# --- who a client is -------------------------------------------------------------------------


# An IPv6 client is handed a whole /64 (2^64 addresses) and may send from any address in it: its
# per-address limits count the network, as allauth's own sign-in limits do (RATE_LIMIT_IPV6_PREFIX).
IPV6_PREFIX = 64


def client_address(text: str) -> str:
    """Who a per-address limit counts for the address ``text``: an IPv4 address as it is (also one
    written in IPv6, ``::ffff:a.b.c.d``), an IPv6 one by the first address of its /64, and
    anything that is no address as it is."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return text
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Address(int(address) >> (128 - IPV6_PREFIX) << (128 - IPV6_PREFIX)))
    return str(address)


def client_ip(request: HttpRequest) -> str:
    """The browser's address (``client_address``): X-Real-IP when a trusted proxy sets it
    (BEHIND_PROXY), else the peer."""
    if settings.BEHIND_PROXY:
        real = str(request.META.get("HTTP_X_REAL_IP", "")).strip()
        if real:
            return client_address(real)
    return client_address(str(request.META.get("REMOTE_ADDR", "") or UNKNOWN))


def login_ip(request: HttpRequest) -> str | None:
    """``client_ip`` for django-axes (AXES_CLIENT_IP_CALLABLE): None unless it is an IP address."""
    try:
        return str(ipaddress.ip_address(client_ip(request)))
    except ValueError:
        return None


def scope_ip(scope: dict[str, Any]) -> str:
    """``client_ip`` for an ASGI scope (a websocket handshake)."""
    if settings.BEHIND_PROXY:
        for name, value in scope.get("headers", ()):
            if name == b"x-real-ip" and value.strip():
                return client_address(str(value.decode("latin-1").strip()))
    client = scope.get("client")
    return client_address(str(client[0])) if client else UNKNOWN


def client_buckets(browser: str, address: str) -> tuple[Bucket, ...]:
    """A page's client: its browser, and its address's share for everyone behind it.

    A browser's very first request has no controller yet, and a client that drops its
    cookies to shed its own limit still meets its address's cap, RATE_LIMIT_PER_IP times
    the limit (thirty people behind one school router are fine).
    """
    by_address = Bucket("address", address, max(1, settings.RATE_LIMIT_PER_IP))
    return (Bucket("browser", browser), by_address) if browser else (by_address,)


# Gmail's domains, one mailbox service: it ignores the dots of a name (v.ictim@ is victim@).
GMAIL_DOMAINS = frozenset({"gmail.com", "googlemail.com"})


def confirmation_mail_bucket(address: str) -> Bucket:
    """The mailbox an e-mail address reaches (its key is hashed when it leaves the process): whatever
    its letters' case, and without a ``+tag`` after the name, since victim+1@, victim+2@ …
    are victim@ at almost every mail service (sub-addressing); at Gmail without the name's dots
    either, and googlemail.com as gmail.com, the most common service's other spellings of one box."""
    name, at, domain = address.strip().rpartition("@")
    if not at:
        return Bucket("email", address.strip().casefold())
    name, domain = name.split("+", 1)[0].casefold(), domain.casefold()
    if domain in GMAIL_DOMAINS:
        name, domain = name.replace(".", ""), "gmail.com"
    return Bucket("email", f"{name}@{domain}")


def take_confirmation_mail(address: str, account: str) -> tuple[Slot, ...] | str:
    """A "confirm your address" e-mail to ``address`` that ``account`` asks for, counted before it
    is sent (``Limiter.take``) against the mailbox's limit and the account's: the places taken
    (to give back if no e-mail goes), or the code of the refusal when one is full."""
    mailbox = limiter.take(CONFIRMATION_MAILS, confirmation_mail_bucket(address))
    if mailbox is None:
        return errors.MAILED_ENOUGH
    asked = limiter.take(ACCOUNT_CONFIRMATION_MAILS, Bucket("account", account))
    if asked is None:
        limiter.give_back(mailbox)
        return errors.ASKED_ENOUGH
    return mailbox, asked


def browser_bucket(browser: str, address: str, socket: str) -> Bucket:
    """A socket's browser, over all its sockets and reconnects; without one (a spectator with no
    session), its address; without that either, the socket itself."""
    if browser:
        return Bucket("browser", browser)
    return Bucket("address", address) if address and address != UNKNOWN else Bucket("socket", socket)


# --- the room socket ---------------------------------------------------------------------------


def frames_over(socket: str, address: str) -> bool:
    """Count a frame of ``socket``: True past WS_RATE_LIMIT a second for it, or WS_FRAMES_PER_ADDRESS
    for all its address's sockets together (without which 200 sockets within the caps could keep a
    worker busy with their pings)."""
    if not limiter.hit(FRAMES, Bucket("socket", socket)):
        return True
    return bool(address) and address != UNKNOWN and not limiter.hit(ADDRESS_FRAMES, Bucket("address", address))


def form_frames_over(browser: str, address: str) -> bool:
    """``frames_over`` for a form post of a page without script (the frame it stands for): True past
    WS_RATE_LIMIT a second for its browser (its address without one) or WS_FRAMES_PER_ADDRESS for its
    address, counted where the shared limits are (Redis when configured) so that posts spread over
    the workers count together."""
    own = Bucket("browser", browser) if browser else Bucket("address", address)
    if not limiter.hit(FORM_FRAMES, own):
        return True
    return bool(address) and address != UNKNOWN and not limiter.hit(FORM_ADDRESS_FRAMES, Bucket("address", address))


# A socket's frames that have a limit of their own, and what a refused one is told.
SOCKET_LIMITS = {"chat": CHAT, "react": REACTIONS, "hint": HINTS}


def social_buckets(browser: str, address: str, socket: str) -> tuple[Bucket, ...]:
    """A chat, reaction or hint frame's counts: its browser's (``browser_bucket``) and, for a browser
    with a session, its address's share (RATE_LIMIT_PER_IP times the limit), as for the pages.

    A session costs nothing to get (any page gives one): without the address's share a client
    could take a fresh one every few messages and post without end.
    """
    own = browser_bucket(browser, address, socket)
    if own.kind != "browser" or not address or address == UNKNOWN:
        return (own,)
    return own, Bucket("address", address, max(1, settings.RATE_LIMIT_PER_IP))


async def socket_refusal(kind: str, browser: str, address: str, socket: str) -> str | None:
    """Count a ``kind`` frame of this browser: None if it may go on, else what the socket is told."""
    limit = SOCKET_LIMITS.get(kind)
    if limit is None or await limiter.ahit(limit, *social_buckets(browser, address, socket)):
        return None
    return _social_refused(kind, limit)


def form_refusal(kind: str, browser: str, address: str) -> str | None:
    """``socket_refusal`` for the same frame posted by a page without script (no socket): counted in
    the same buckets, so a browser's chat lines count alike whichever way they are sent."""
    limit = SOCKET_LIMITS.get(kind)
    if limit is None or limiter.hit(limit, *social_buckets(browser, address, "")):
        return None
    return _social_refused(kind, limit)


def _social_refused(kind: str, limit: Limit) -> str:
    if kind == "hint":
        return "Too many hints: wait a moment."
    rate = limit.rate() or Rate(0, 1)
    return f"Slow down: at most {rate.count} {kind} frames in {rate.seconds:g} s."


def take_miss(ip: str) -> Slot | None:
    """A room-code lookup of ``ip``, counted as a miss before it is made (``Limiter.take``): None when
    ``ip`` has tried too many codes that do not exist (even a right one is refused then); the
    caller gives the slot back when the room exists."""
    slot = limiter.take(ROOM_MISS, Bucket("address", ip))
    if slot is None:
        log.warning("rate limit %s hit by %s", ROOM_MISS.name, ip)
    return slot

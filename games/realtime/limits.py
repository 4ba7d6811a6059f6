"""Per-client rate limits: room creation and joins, and lookups of room codes that do not exist.

A client is its browser session's controller token (the seats it plays). Every request
also counts against its IP address with a limit ``RATE_LIMIT_PER_IP`` times higher, the
cap for everyone behind one address (a school, a phone network): a browser's very first
request has no controller yet, and a client that drops its cookies to shed its own limit
still meets that one. Counters are fixed
one-window buckets in the default cache: Redis in production, shared by every server
process. If the cache is down the request is let through: a limit must never be the
reason the game stops.

Limits are settings of the form ``"COUNT/SECONDS"`` (see yahtzee/settings.py). The room
websocket has no view to decorate: it asks ``address_over`` and ``count_address`` itself
(room codes that do not exist, counted in the same bucket as the pages').
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import json
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.conf import settings
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse

from games.domain import errors
from games.web.errorpages import error_page

log = logging.getLogger(__name__)

# A page view, plain or async (the limit decorator takes both).
View = Callable[..., Any]


@dataclass(frozen=True)
class Rate:
    count: int
    seconds: int

    @classmethod
    def parse(cls, text: str) -> Rate | None:
        """``"10/60"`` is 10 a minute; ``"0"``, ``""`` or ``"off"`` is no limit."""
        text = (text or "").strip().lower()
        if text in ("", "0", "off", "none"):
            return None
        count, _, seconds = text.partition("/")
        rate = cls(int(count), int(seconds or 60))
        return rate if rate.count > 0 and rate.seconds > 0 else None


# Guessing room codes: the pages and the room websocket count in this one bucket per address.
MISS_SCOPE, MISS_SETTING = "room_miss", "RATE_LIMIT_ROOM_MISS"

MESSAGES = {
    "room_create": "You have created too many rooms in a short time.",
    "room_join": "You have joined too many rooms in a short time.",
    MISS_SCOPE: "Too many room codes that do not exist were tried from your address.",
}


def client_ip(request: HttpRequest) -> str:
    """The browser's address: X-Real-IP when a trusted proxy sets it (BEHIND_PROXY), else the peer."""
    if settings.BEHIND_PROXY:
        real = str(request.META.get("HTTP_X_REAL_IP", "")).strip()
        if real:
            return real
    return str(request.META.get("REMOTE_ADDR", "") or "unknown")


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
                return str(value.decode("latin-1").strip())
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def _rate(setting: str) -> Rate | None:
    return Rate.parse(getattr(settings, setting)) if settings.RATE_LIMITS else None


def _ip_bucket(scope: str, ip: str, rate: Rate) -> tuple[str, int]:
    return _key(scope, "ip", ip, int(time.time()) // rate.seconds), rate.count


def _key(scope: str, kind: str, ident: str, window: int) -> str:
    digest = hashlib.sha256(ident.encode()).hexdigest()[:24]  # controller tokens stay out of the cache
    return f"rl:{settings.RATE_LIMIT_NAMESPACE}:{scope}:{kind}:{digest}:{window}"


def _buckets(request: HttpRequest, scope: str, rate: Rate, per_ip_only: bool) -> list[tuple[str, int]]:
    """(cache key, limit) of each bucket this request counts against."""
    window = int(time.time()) // rate.seconds
    ip = client_ip(request)
    multiplier = max(1, settings.RATE_LIMIT_PER_IP)
    if per_ip_only:
        return [_ip_bucket(scope, ip, rate)]
    session = getattr(request, "session", None)
    controller = session.get("controller", "") if session is not None else ""
    by_ip = (_key(scope, "ip", ip, window), rate.count * multiplier)
    if not controller:
        # A browser's first room or seat gives it a controller; until then only the
        # address's shared cap applies (thirty people behind one school router are fine).
        return [by_ip]
    return [(_key(scope, "client", controller, window), rate.count), by_ip]


def _over(buckets: list[tuple[str, int]]) -> bool:
    counts = cache.get_many([key for key, _ in buckets])
    return any(counts.get(key, 0) >= limit for key, limit in buckets)


def _count(buckets: list[tuple[str, int]], seconds: int) -> None:
    for key, _ in buckets:
        # add() starts a window's counter (no-op if it exists); incr() is atomic in Redis.
        cache.add(key, 0, timeout=seconds + 1)
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout=seconds + 1)


def address_over(scope: str, setting: str, ip: str) -> bool:
    """Whether ``ip`` is over the per-address limit ``setting`` (False if the cache is down)."""
    rate = _rate(setting)
    if rate is None:
        return False
    try:
        over = _over([_ip_bucket(scope, ip, rate)])
    except Exception:  # noqa: BLE001 - the cache being down must not stop the game
        log.warning("rate limit cache unavailable; letting %s through", scope)
        return False
    if over:
        log.warning("rate limit %s hit by %s", scope, ip)
    return over


def count_address(scope: str, setting: str, ip: str) -> None:
    """Count one request of ``ip`` against the per-address limit ``setting``."""
    rate = _rate(setting)
    if rate is None:
        return
    try:
        _count([_ip_bucket(scope, ip, rate)], rate.seconds)
    except Exception:  # noqa: BLE001
        log.warning("rate limit cache unavailable; %s not counted", scope)


def too_many(request: HttpRequest, scope: str, rate: Rate) -> HttpResponse:
    """429 with a message a person can act on, as JSON for scripts and as a page for browsers."""
    message = f"{MESSAGES.get(scope, 'Too many requests.')} Please wait a minute and try again."
    retry = str(rate.seconds - int(time.time()) % rate.seconds)
    accept = request.headers.get("Accept", "")
    if "application/json" in accept and "text/html" not in accept:
        response = HttpResponse(
            json.dumps({"error": errors.RATE_LIMITED, "message": message, "retry_after": int(retry)}),
            content_type="application/json",
            status=429,
        )
    else:
        response = error_page(request, 429, message)
    response["Retry-After"] = retry
    return response


def ratelimit(
    scope: str, setting: str, *, only_status: int | None = None, per_ip_only: bool = False
) -> Callable[[View], View]:
    """Limit a view (plain or async) to the rate named by ``setting``.

    With ``only_status`` only responses with that status count (404: codes that do not
    exist), but once over the limit every request in the window is refused.
    """

    def refusal(request: HttpRequest) -> tuple[Rate | None, HttpResponse | None]:
        """The rate this request counts against (None: it does not count) and the 429 if it is over."""
        rate = _rate(setting)
        # A GET of the create or join URL changes nothing (the view answers 405).
        if rate is None or (only_status is None and request.method not in ("POST", "PUT", "PATCH")):
            return None, None
        try:
            if _over(_buckets(request, scope, rate, per_ip_only)):
                log.warning("rate limit %s hit by %s", scope, client_ip(request))
                return rate, too_many(request, scope, rate)
        except Exception:  # noqa: BLE001 - the cache being down must not stop the game
            log.warning("rate limit cache unavailable; letting %s through", scope)
            return None, None
        return rate, None

    def count(request: HttpRequest, rate: Rate, status: int | None) -> None:
        if status is not None and (only_status is None or status == only_status):
            try:
                # Recomputed: a browser's first room or seat just gave it a controller.
                _count(_buckets(request, scope, rate, per_ip_only), rate.seconds)
            except Exception:  # noqa: BLE001
                log.warning("rate limit cache unavailable; %s not counted", scope)

    def decorate(view: View) -> View:
        if iscoroutinefunction(view):

            @functools.wraps(view)
            async def wrapped_async(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
                rate, refused = await sync_to_async(refusal)(request)
                if refused is not None or rate is None:
                    return refused or cast(HttpResponse, await view(request, *args, **kwargs))
                status = None
                try:
                    response: HttpResponse = await view(request, *args, **kwargs)
                    status = response.status_code
                    return response
                except Http404:
                    status = 404
                    raise
                finally:
                    await sync_to_async(count)(request, rate, status)

            return wrapped_async

        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
            rate, refused = refusal(request)
            if refused is not None or rate is None:
                return refused or cast(HttpResponse, view(request, *args, **kwargs))
            status = None
            try:
                response: HttpResponse = view(request, *args, **kwargs)
                status = response.status_code
                return response
            except Http404:
                status = 404
                raise
            finally:
                count(request, rate, status)

        return wrapped

    return decorate


# --- per socket: chat messages and reactions ----------------------------------------------


class Window:
    """At most ``limit`` events in any ``seconds``, counted in one socket's memory (no shared store)."""

    def __init__(self, limit: int, seconds: float) -> None:
        self.limit, self.seconds = limit, seconds
        self.times: deque[float] = deque()

    def over(self) -> bool:
        """Count one event now; True if that one is over the limit (it is not kept)."""
        now = time.monotonic()
        while self.times and now - self.times[0] >= self.seconds:
            self.times.popleft()
        if len(self.times) >= self.limit:
            return True
        self.times.append(now)
        return False


# Chat messages and reactions a socket may send: (count, seconds), CHAT_RATE / REACTION_RATE.
SOCIAL_LIMITS: dict[str, tuple[int, float]] = {
    kind: (rate.count, rate.seconds) if (rate := Rate.parse(text)) else (10**9, 1.0)
    for kind, text in (("chat", settings.CHAT_RATE), ("react", settings.REACTION_RATE))
}

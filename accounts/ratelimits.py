"""allauth's rate limits (sign-up, sign-in, passwords) say the wait of the limit that refused.

allauth answers a refusal with the site's ``handler429`` and hands it the request alone: which of
an action's rates refused (sign-ups: 20 a minute, 100 a day) and when it lets the address through
again are not passed on. So each refusal is noted on the request where allauth counts it
(``_consume_single_rate``, one rate of one action): the seconds until the oldest request it
counted leaves its window, read from the history allauth keeps in the cache, on allauth's own
clock. The 429 says that wait and sends it as Retry-After (``games.web.errorpages``); a refusal
with nothing noted (the count's lock not taken in time) names no wait.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from allauth.core.internal import ratelimit as allauth_ratelimit
from django.core.cache import cache
from django.http import HttpRequest

from games.web.errorpages import RETRY_AFTER


def wait_of(
    request: HttpRequest, *, app: str, action: str, rate: allauth_ratelimit.Rate, key: Any = None, user: Any = None
) -> int | None:
    """Whole seconds until ``rate`` of ``action`` counts fewer than its amount for this request
    (at least 1), or None when it is not full."""
    cache_key = allauth_ratelimit.get_cache_key(request, app=app, action=action, rate=rate, key=key, user=user)
    now: float = allauth_ratelimit.time.time()  # the clock allauth counted on
    counted: list[float] = sorted((at for at in cache.get(cache_key, []) if at > now - rate.duration), reverse=True)
    if len(counted) < rate.amount:
        return None
    # Let through once the amount-th newest request counted is a window old.
    oldest: float = counted[rate.amount - 1]
    return max(1, math.ceil(oldest + float(rate.duration) - now))


def install() -> None:
    """Wrap allauth's count of one rate so that a refusal notes its wait on the request (once)."""
    count = allauth_ratelimit._consume_single_rate
    if getattr(count, "notes_the_wait", False):
        return

    @functools.wraps(count)
    def counted(request: HttpRequest, **kwargs: Any) -> Any:
        try:
            usage = count(request, **kwargs)
        except allauth_ratelimit.RateLimited:
            note(request, kwargs)
            raise
        if usage is None:
            note(request, kwargs)
        return usage

    counted.notes_the_wait = True  # type: ignore[attr-defined]
    allauth_ratelimit._consume_single_rate = counted


def note(request: HttpRequest, kwargs: dict[str, Any]) -> None:
    if kwargs.get("dry_run"):
        return  # a look, not a request refused
    wait = wait_of(
        request,
        app=kwargs["app"],
        action=kwargs["action"],
        rate=kwargs["rate"],
        key=kwargs.get("key"),
        user=kwargs.get("user"),
    )
    if wait is not None:
        setattr(request, RETRY_AFTER, wait)

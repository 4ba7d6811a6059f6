"""The page limits: a view limited per client, answered with the site's 429 page (games.realtime.limits counts)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, cast

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden
from django.utils.translation import gettext

from games.realtime.limits import REFUSED_FORMS, Bucket, Limit, Slot, client_buckets, client_ip, limiter
from games.web import errorpages

log = logging.getLogger(__name__)

View = Callable[..., Any]

# The request attribute ``mark_refused`` sets.
_REFUSED = "form_refused"


def mark_refused(request: HttpRequest) -> None:
    """Mark a post the view refused though its answer is not a 4xx (a redirect to the page that says
    why): ``limited`` counts it as the 4xx it stands for, a refusal that made nothing."""
    setattr(request, _REFUSED, True)


def too_many(request: HttpRequest, limit: Limit, buckets: tuple[Bucket, ...]) -> HttpResponse:
    """429 with a message a person can act on and the wait until ``limit`` lets the client through."""
    what = str(limit.message) if limit.message else gettext("Too many requests.")
    return errorpages.too_many(request, what, limiter.retry_after(limit, *buckets))


def cross_site_refused(view: View) -> View:
    """Refuse (403, before anything is looked up or counted) what another site's page has the browser
    fetch: an ``<img>``, a script's fetch, a frame (Sec-Fetch-Site ``cross-site``, and not the
    browser going to the page itself). Such a page could otherwise spend its visitor's address's
    allowance of room-code misses and lock the visitor out of their own rooms. A link followed
    from another site is a navigation and goes through; the site's pages are never framed.
    """

    def embedded(request: HttpRequest) -> bool:
        if request.headers.get("Sec-Fetch-Site", "").lower() != "cross-site":
            return False
        mode = request.headers.get("Sec-Fetch-Mode", "").lower()
        dest = request.headers.get("Sec-Fetch-Dest", "").lower()
        return mode != "navigate" or dest not in ("", "document")

    if iscoroutinefunction(view):

        @functools.wraps(view)
        async def refused_async(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
            if embedded(request):
                return HttpResponseForbidden()  # the site's 403 page (games.web.errorpages)
            return cast(HttpResponse, await view(request, *args, **kwargs))

        return refused_async

    @functools.wraps(view)
    def refused(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if embedded(request):
            return HttpResponseForbidden()
        return cast(HttpResponse, view(request, *args, **kwargs))

    return refused


def limited(
    limit: Limit,
    *,
    only_status: int | None = None,
    per_address: bool = False,
    exempt: Callable[..., bool] | None = None,
) -> Callable[[View], View]:
    """Limit a view (plain or async) to ``limit``, per client (client_buckets) or ``per_address`` only.

    With ``only_status`` only responses with that status count (404: codes that do not
    exist), but once over the limit every request is refused until one of them is
    ``limit``'s window old. Otherwise only requests that can change something (POST)
    count: a GET of the create or join URL changes nothing (the view answers 405). And of
    those only the ones that did: a post refused (a 4xx, or one the view marked with ``mark_refused``
    and said on another page: a form with a field left out, a name taken) made nothing, and
    counts against ``REFUSED_FORMS`` instead, whose limit refuses every post of the client
    meanwhile (with its own 429).
    A request for which ``exempt`` (called with the view's arguments) answers True is let
    through over the limit, uncounted.

    The request takes its place in the count before the view runs (``Limiter.take``) and
    gives it back if it turns out not to count: requests sent together cannot all pass
    a check made before any of them is counted.
    """

    def buckets(request: HttpRequest) -> tuple[Bucket, ...]:
        ip = client_ip(request)
        if per_address:
            return (Bucket("address", ip),)
        session = getattr(request, "session", None)
        return client_buckets(session.get("controller", "") if session is not None else "", ip)

    def refusal(request: HttpRequest, *args: object, **kwargs: object) -> tuple[Slot | None, HttpResponse | None]:
        """The request's place in the count (None: it does not count), or the 429 if it is over."""
        if only_status is None and request.method not in ("POST", "PUT", "PATCH"):
            return None, None
        mine = buckets(request)
        if only_status is None and limiter.full(REFUSED_FORMS, *mine):
            log.warning("rate limit %s hit by %s", REFUSED_FORMS.name, client_ip(request))
            return None, too_many(request, REFUSED_FORMS, mine)
        slot = limiter.take(limit, *mine)
        if slot is None:
            if exempt is not None and exempt(request, *args, **kwargs):
                return None, None
            log.warning("rate limit %s hit by %s", limit.name, client_ip(request))
            return None, too_many(request, limit, mine)
        return slot, None

    def settle(request: HttpRequest, slot: Slot, status: int | None) -> None:
        """Give the place back unless the response counts; a browser's first request that just got a
        controller counts for it too."""
        if status is None or (only_status is not None and status != only_status):
            limiter.give_back(slot)
            return
        if only_status is None and (400 <= status < 500 or getattr(request, _REFUSED, False)):  # nothing made
            limiter.give_back(slot)
            limiter.count(REFUSED_FORMS, *buckets(request))
            return
        new = [bucket for bucket in buckets(request) if bucket not in slot.buckets]
        if new:
            limiter.count(limit, *new)

    def decorate(view: View) -> View:
        if iscoroutinefunction(view):

            @functools.wraps(view)
            async def wrapped_async(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
                slot, refused = await sync_to_async(refusal)(request, *args, **kwargs)
                if refused is not None or slot is None:
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
                    await sync_to_async(settle)(request, slot, status)

            return wrapped_async

        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
            slot, refused = refusal(request, *args, **kwargs)
            if refused is not None or slot is None:
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
                settle(request, slot, status)

        return wrapped

    return decorate

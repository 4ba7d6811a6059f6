"""Error pages in the site's own style, each with a way home.

Django's default handlers render ``404.html`` and friends without the request's context
(and ``500.html`` with none at all), so these handlers render ``error.html`` themselves
with a status, a title and a sentence a person can act on. The 500 handler falls back to a
fixed page if even rendering fails (a template or database fault is what got us here).

The addresses scripts call (those ending in .json, the views marked ``answers_json``) and
requests that ask for JSON get their errors as JSON with a code instead (``wants_json``).

Some errors never reach a handler: a view that takes only POST answers a GET with an empty
405 (``require_POST``), one that takes only GET a post (``require_safe``), and a library may
answer an empty 4xx of its own.
``ErrorPageMiddleware`` gives each such empty answer the site's page for its status, so a
browser never shows its own blank error page.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.template.loader import render_to_string
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_noop, ngettext
from django.utils.translation import gettext_lazy as _

from games.domain import errors
from games.web.outward import Outward
from games.web.refusals import WORDS

log = logging.getLogger(__name__)

View = TypeVar("View", bound=Callable[..., object])

PAGES: dict[int, tuple[Promise, Promise]] = {
    400: (
        _("That request did not make sense"),
        _("Something in the address or the form was not what the game expected."),
    ),
    403: (_("Not allowed"), _("This page or action is not open to you.")),
    404: (_("Nothing here"), _("There is no page at this address.")),
    405: (
        _("This address is for a button"),
        _(
            "This address takes what a button on the site sends; it is not a page to open. "
            "Go back and use the button, or start again from the home page."
        ),
    ),
    # No wait named: a 429 whose wait is known says it (``too_many_requests``, ``wait_words``).
    429: (_("Slow down"), _("Too many requests from your address. Please wait, then try again.")),
    500: (
        _("Something went wrong"),
        _("The server hit a problem it did not expect. Please try again in a moment."),
    ),
}
# A 405 of a page's address (its Allow names GET): a method sent to a page that it does not take. Not
# PAGES[405], which is said to a form's address opened as a page and would tell the reader the opposite.
NOT_A_FORM = (
    _("This address is a page"),
    _(
        "This address is a page to open; what was sent to it is not what it takes. Open it again, or start again from "
        "the home page."
    ),
)
NO_ROOM = _(
    "No room has that code. Check the invite link with whoever sent it: "
    "a code is ten letters and digits, shown as abcd-efgh-jk."
)
# A room that exists, at an address under it that is no page (a mistyped /replays). The English
# text is also the Http404's marker that page_not_found recognises; the page shows it translated.
NO_ROOM_PAGE = gettext_noop("This room has no page at this address.")
CSRF = _(
    "The form had expired or came from another page (its security token did not match). "
    "Go back, reload the page and try again."
)

# The code of a 4xx asked for as JSON, by its status: what happened, for a script to switch on.
JSON_CODES = {400: errors.BAD_REQUEST, 403: errors.FORBIDDEN, 404: errors.NOT_FOUND, 405: errors.METHOD_NOT_ALLOWED}

_FALLBACK = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Something went wrong</title>'
    '<meta name="viewport" content="width=device-width, initial-scale=1"></head>'
    "<body><main><h1>Something went wrong</h1><p>{message}</p>"
    '<p><a href="/">Back to the home page</a></p></main></body></html>'
)


def answers_json(view: View) -> View:
    """Marks a view that scripts call: its errors (a CSRF 403, a 429, a 503) are JSON with a code,
    whatever the request accepts (``fetch`` sends ``*/*``). Wrappers made with functools.wraps keep the mark."""
    view.answers_json = True  # type: ignore[attr-defined]
    return view


def wants_json(request: HttpRequest) -> bool:
    """Whether ``request``'s error is answered as JSON: an address under ``answers_json`` or ending
    in .json, or a caller that asks for JSON and not for a page."""
    match = getattr(request, "resolver_match", None)
    if request.path.endswith(".json") or getattr(getattr(match, "func", None), "answers_json", False):
        return True
    accept = request.headers.get("Accept", "")
    return "application/json" in accept and "text/html" not in accept


def error_json(code: str, message: str | Promise, status: int) -> JsonResponse:
    """An error for a script: ``{"error": code, "message": ...}`` in the reader's language."""
    return JsonResponse({"error": code, "message": str(message)}, status=status)


def status_json(status: int, message: str | Promise | None = None) -> JsonResponse:
    """A script's 4xx: the code of its status, with the sentence its page says (or ``message``)."""
    said = message if message is not None else PAGES.get(status, PAGES[400])[1]
    return error_json(JSON_CODES.get(status, errors.BAD_REQUEST), said, status)


def error_page(
    request: HttpRequest,
    status: int,
    message: str | Promise | None = None,
    title: str | Promise | None = None,
    room: str | None = None,
    more: str = "",
) -> HttpResponse:
    """The styled page for ``status``, with ``message`` in place of the usual sentence.

    ``room``: the code of a room the page links back to (an address under the room's own);
    ``more``: a paragraph after the message.
    """
    default_title, default_message = PAGES.get(status, PAGES[500] if status >= 500 else PAGES[400])
    context = {
        "status": status,
        "title": str(title or default_title),
        "message": str(message or default_message),
        "more": more,
        "room": room,
    }
    page: str
    try:
        page = render_to_string("error.html", context, request=request)
    except Exception:  # noqa: BLE001 - the error page must not fail in its turn
        log.exception("the %s page could not be rendered", status)
        page = _FALLBACK.format(message=context["message"])
    return HttpResponse(page, status=status)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if wants_json(request):
        return status_json(400)
    return error_page(request, 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if wants_json(request):
        return status_json(403)
    return error_page(request, 403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if exception is not None and exception.args and exception.args[0] == NO_ROOM_PAGE:
        return error_page(request, 404, gettext(NO_ROOM_PAGE), room=room_code_in(request.path))
    if not request.path.startswith("/r/"):
        if wants_json(request):  # a script's: the code of its status, as an empty 404's
            return status_json(404)
        return error_page(request, 404)
    if wants_json(request):
        return error_json(errors.NO_ROOM, NO_ROOM, 404)
    return error_page(request, 404, NO_ROOM, more=rooms_swept())


def rooms_swept() -> str:
    """Why the link to a room may lead nowhere now: rooms never started are swept (games.services.sweeps)."""
    days: int = settings.ROOMS_NEVER_STARTED_DAYS
    if days <= 0:
        return ""
    return ngettext(
        "A room whose game never started is removed once nobody has used it for %(days)d day.",
        "A room whose game never started is removed once nobody has used it for %(days)d days.",
        days,
    ) % {"days": days}


def too_many_requests(request: HttpRequest) -> HttpResponse:
    """The ``handler429`` (allauth's rate limits answer with it: sign-up, sign-in, passwords). allauth
    passes the request alone, not which of an action's rates refused (sign-ups: a minute's and a
    day's) nor when it lets the address through again, so the page names no wait rather than a
    false one."""
    return too_many(request, gettext("Too many requests."), None)


def too_many(request: HttpRequest, what: str, seconds: int | None) -> HttpResponse:
    """A 429 that says ``what`` happened and the wait of ``seconds`` (sent as Retry-After too), as
    JSON for scripts and as a page for browsers; with ``seconds`` None, no wait is named."""
    message = wait_words(what, seconds) if seconds is not None else str(PAGES[429][1])
    if wants_json(request):
        return too_many_json(message, seconds)
    response = error_page(request, 429, message)
    if seconds is not None:
        response["Retry-After"] = str(seconds)
    return response


def too_many_json(message: str, seconds: int | None) -> JsonResponse:
    """A 429 for a script: ``rate_limited``, ``message`` (which says the wait, if known) and the wait
    of ``seconds`` as ``retry_after`` and Retry-After; with ``seconds`` None, neither."""
    body: dict[str, object] = {"error": errors.RATE_LIMITED, "message": message}
    if seconds is not None:
        body["retry_after"] = seconds
    response = JsonResponse(body, status=429)
    if seconds is not None:
        response["Retry-After"] = str(seconds)
    return response


def wait_words(what: str, seconds: int) -> str:
    """A 429's sentence: ``what`` happened, and the wait of ``seconds`` its Retry-After gives, in words
    (often a few seconds: the rest of the limit's window): seconds under a minute, minutes up to two
    hours, hours past them."""
    if seconds < 60:
        return ngettext(
            "%(what)s Please wait %(seconds)d second and try again.",
            "%(what)s Please wait %(seconds)d seconds and try again.",
            seconds,
        ) % {"what": what, "seconds": seconds}
    if seconds == 60:
        return gettext("%(what)s Please wait a minute and try again.") % {"what": what}
    if seconds > 120 * 60:  # a day's limit: hours, not a thousand minutes
        hours = math.ceil(seconds / 3600)  # each hour begun: never a shorter wait than the header's
        return ngettext(
            "%(what)s Please wait %(hours)d hour and try again.",
            "%(what)s Please wait %(hours)d hours and try again.",
            hours,
        ) % {"what": what, "hours": hours}
    minutes = math.ceil(seconds / 60)  # each minute begun: never a shorter wait than the header's
    return ngettext(
        "%(what)s Please wait %(minutes)d minute and try again.",
        "%(what)s Please wait %(minutes)d minutes and try again.",
        minutes,
    ) % {"what": what, "minutes": minutes}


# The longest wait a 429's page names: no limit of this site waits longer, and a Retry-After past
# it is no wait a person can act on (nor one a float holds, for hundreds of digits).
RETRY_AFTER_MAX = 366 * 86_400


def retry_after_seconds(response: HttpResponseBase) -> int | None:
    """The wait a response's Retry-After gives, in whole seconds (at least 1), or None without one
    or with one past ``RETRY_AFTER_MAX``: seconds (RFC 9110) or an HTTP date."""
    value = response.get("Retry-After", "").strip()
    if value.isascii() and value.isdigit():
        # No more digits than the longest wait has: int() refuses thousands of them.
        seconds = int(value) if len(value) <= len(str(RETRY_AFTER_MAX)) else RETRY_AFTER_MAX + 1
    else:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            return None
        seconds = math.ceil((when - datetime.now(UTC)).total_seconds())
    return max(1, seconds) if seconds <= RETRY_AFTER_MAX else None


def room_code_in(path: str) -> str | None:
    """The room code of an address under /r/<code>/, if it is one."""
    parts = path.split("/")
    return parts[2] if len(parts) > 3 and parts[1] == "r" and parts[2] else None


def server_error(request: HttpRequest) -> HttpResponse:
    return error_page(request, 500)


def for_log(text: object) -> str:
    """``text`` as a log line may hold it: a line break or other control character escaped (as
    Django's own request lines escape the path), so a request cannot write lines of its own."""
    return str(text).encode("unicode_escape").decode("ascii")


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: a stale or foreign form, said plainly (the reason goes to the log only)."""
    # The reason may quote the request's Origin or Referer: escaped with the path.
    log.info("CSRF failure on %s %s: %s", for_log(request.method), for_log(request.path), for_log(reason))
    if wants_json(request):  # a script's page whose token went stale: loaded again, it has a new one
        return error_json(errors.CSRF_FAILED, WORDS[errors.BAD_REQUEST], 403)
    return error_page(request, 403, CSRF, title=_("This form has expired"))


class ErrorPageMiddleware(Outward):
    """An empty error answer (status 400 or more, no body) becomes the site's page for its status
    (a 4xx asked for as JSON, the site's JSON error).

    Its headers stay (a 405's ``Allow``, a 429's ``Retry-After``). Answers with a body (a
    page, JSON for the scripts) and answers to HEAD are left as they are.
    """

    def outward(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        return self.dress(request, response)

    async def outward_async(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if not self.bare(request, response):
            return response
        # Rendering reads the session and the user (the page's header): the database, in a thread.
        return await sync_to_async(self.dress)(request, response)

    @staticmethod
    def bare(request: HttpRequest, response: HttpResponseBase) -> bool:
        """Whether ``response`` is an error with nothing to show (and not the answer to a HEAD)."""
        if response.status_code < 400 or request.method == "HEAD" or response.streaming:
            return False
        return isinstance(response, HttpResponse) and not response.content

    @classmethod
    def dress(cls, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if not cls.bare(request, response):
            return response
        # A 405 under a room is a form's address opened as a page, or a page of the room sent
        # something: the room is the way back.
        room = room_code_in(request.path) if response.status_code == 405 else None
        title, message = PAGES.get(response.status_code, PAGES[400])
        if response.status_code == 405 and "GET" in {m.strip() for m in response.get("Allow", "").split(",")}:
            title, message = NOT_A_FORM
        if response.status_code == 429:
            # The wait its own Retry-After gives, or none named.
            page = too_many(request, gettext("Too many requests."), retry_after_seconds(response))
        elif response.status_code < 500 and wants_json(request):
            # A script's request (a method the address does not take): the site's JSON error, with
            # the sentence the page would have said.
            page = status_json(response.status_code, message)
        elif response.status_code == 405:
            page = error_page(request, 405, message, title=title, room=room)
        else:
            page = error_page(request, response.status_code, room=room)
        for header, value in response.items():
            if header.lower() not in ("content-type", "content-length"):
                page[header] = value
        return page

"""Error pages in the site's own style, each with a way home.

Django's default handlers render ``404.html`` and friends without the request's context
(and ``500.html`` with none at all), so these handlers render ``error.html`` themselves
with a status, a title and a sentence a person can act on. The 500 handler falls back to a
fixed page if even rendering fails (a template or database fault is what got us here).
"""

from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

log = logging.getLogger(__name__)

PAGES: dict[int, tuple[str, str]] = {
    400: ("That request did not make sense", "Something in the address or the form was not what the game expected."),
    403: ("Not allowed", "This page or action is not open to you."),
    404: ("Nothing here", "There is no page at this address."),
    429: ("Slow down", "Too many requests from your address. Please wait a minute and try again."),
    500: ("Something went wrong", "The server hit a problem it did not expect. Please try again in a moment."),
}
NO_ROOM = "No room has that code. Check the invite link with whoever sent it: codes are 10 letters and digits."
CSRF = (
    "The form had expired or came from another page (its security token did not match). "
    "Go back, reload the page and try again."
)

_FALLBACK = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Something went wrong</title>'
    '<meta name="viewport" content="width=device-width, initial-scale=1"></head>'
    "<body><main><h1>Something went wrong</h1><p>{message}</p>"
    '<p><a href="/">Back to the home page</a></p></main></body></html>'
)


def error_page(request: HttpRequest, status: int, message: str | None = None, title: str | None = None) -> HttpResponse:
    """The styled page for ``status``, with ``message`` in place of the usual sentence."""
    default_title, default_message = PAGES.get(status, PAGES[500])
    context = {"status": status, "title": title or default_title, "message": message or default_message}
    page: str
    try:
        page = render_to_string("error.html", context, request=request)
    except Exception:  # noqa: BLE001 - the error page must not fail in its turn
        log.exception("the %s page could not be rendered", status)
        page = _FALLBACK.format(message=context["message"])
    return HttpResponse(page, status=status)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_page(request, 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_page(request, 403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    message = NO_ROOM if request.path.startswith("/r/") else None
    return error_page(request, 404, message)


def server_error(request: HttpRequest) -> HttpResponse:
    return error_page(request, 500)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: a stale or foreign form, said plainly (the reason goes to the log only)."""
    log.info("CSRF failure on %s %s: %s", request.method, request.path, reason)
    return error_page(request, 403, CSRF, title="This form has expired")

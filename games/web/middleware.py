"""A database that cannot be reached answers 503 with a message, not a bare server error.

Every service is one transaction, so a page read that fails this way changed nothing. A
form post is another matter: the connection may have dropped during the commit, after
the move was stored, so the page says the result is unknown and the room will show it.
Django reconnects on the next request (``conn_health_checks``), so the site comes back by itself when the database does.

When no worker can answer at all (every one failed the proxy's health checks), the proxy shows
the same page, drawn for each language when the image is built (``proxy_pages``).

The page is in the reader's language: LocaleMiddleware (and a signed-in player's account
language, which falls back to it when the session cannot be read) has activated it before
any view runs. It is drawn from a template of its own, without the request: the site's usual
page reads the session and the user, both in the database that is away.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from games.domain import errors
from games.web.errorpages import for_log, wants_json

log = logging.getLogger(__name__)

TITLE = _("Back in a moment")
MESSAGE = _("The game's database cannot be reached just now. Nothing was changed; please try again in a moment.")
UNKNOWN = _(
    "The game's database went away while this was being saved: the result is unknown. "
    "Open the room again in a moment to see whether it was."
)

# Only if the template itself cannot be drawn (a broken install): the texts are still the reader's.
_FALLBACK = (
    '<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title></head>'
    "<body><main><h1>{title}</h1><p>{message}</p></main></body></html>"
)


def unavailable(request: HttpRequest) -> HttpResponse:
    read = request.method in ("GET", "HEAD", "OPTIONS")
    code, message = answer(read)
    if wants_json(request):
        response = HttpResponse(
            json.dumps({"error": code, "message": message}), content_type="application/json", status=503
        )
    else:
        response = HttpResponse(page(message), status=503)
    response["Retry-After"] = "5"
    return response


def answer(read: bool) -> tuple[str, str]:
    """The error code and the message, in the active language, of a read (nothing was changed) or
    of a write (its outcome is unknown: the database may have gone during the commit)."""
    return (errors.UNAVAILABLE, str(MESSAGE)) if read else (errors.OUTCOME_UNKNOWN, str(UNKNOWN))


def proxy_pages() -> dict[str, str]:
    """What the proxy answers when no worker can (deploy/Caddyfile), by file name: in each of the
    site's languages, a read's and a write's page, and their JSON for the scripts' requests
    (``en.unavailable.html``, ``de.unknown.json`` ...). Drawn when the image is built."""
    pages = {}
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            for outcome, read in (("unavailable", True), ("unknown", False)):
                code, message = answer(read)
                pages[f"{language}.{outcome}.html"] = page(message)
                pages[f"{language}.{outcome}.json"] = json.dumps({"error": code, "message": message})
    return pages


def page(message: str) -> str:
    """The 503 page in the active language; no request, so nothing reads the session or the user."""
    try:
        return render_to_string("unavailable.html", {"title": str(TITLE), "message": message})
    except Exception:  # noqa: BLE001 - the database is away: this answer must not fail in its turn
        log.exception("the database-away page could not be rendered")
        return _FALLBACK.format(lang=escape(get_language() or "en"), title=escape(TITLE), message=escape(message))


class DatabaseUnavailableMiddleware:
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse | Awaitable[HttpResponse]]) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> HttpResponse | Awaitable[HttpResponse]:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, OperationalError | InterfaceError):
            log.warning("database unavailable for %s %s: %s", for_log(request.method), for_log(request.path), exception)
            return unavailable(request)
        return None

"""A database that cannot be reached answers 503 with a message, not a bare server error.

Every service is one transaction, so a page read that fails this way changed nothing. A
form post is another matter: the connection may have dropped during the commit, after
the move was stored, so the page says the result is unknown and the room will show it.
Django reconnects on the next request (``conn_health_checks``), so the site comes back by itself when the database does.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse

from games.domain import errors

log = logging.getLogger(__name__)

MESSAGE = "The game's database cannot be reached just now. Nothing was changed; please try again in a moment."
UNKNOWN = (
    "The game's database went away while this was being saved: the result is unknown. "
    "Open the room again in a moment to see whether it was."
)


def unavailable(request: HttpRequest) -> HttpResponse:
    message = MESSAGE if request.method in ("GET", "HEAD", "OPTIONS") else UNKNOWN
    code = errors.UNAVAILABLE if message is MESSAGE else errors.OUTCOME_UNKNOWN
    accept = request.headers.get("Accept", "")
    if request.path.endswith(".json") or ("application/json" in accept and "text/html" not in accept):
        response = HttpResponse(
            json.dumps({"error": code, "message": message}), content_type="application/json", status=503
        )
    else:
        response = HttpResponse(
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Back in a moment</title></head>'
            f"<body><main><h1>Back in a moment</h1><p>{message}</p></main></body></html>",
            status=503,
        )
    response["Retry-After"] = "5"
    return response


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
            log.warning("database unavailable for %s %s: %s", request.method, request.path, exception)
            return unavailable(request)
        return None

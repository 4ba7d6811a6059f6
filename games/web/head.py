"""A HEAD is answered as its GET, and changes nothing the GET would.

Mail scanners, link previewers and monitors send HEAD, and Django runs the GET's view for it. What
that view writes of its own (a seat marked followed, a browser counted at the table) it skips for a
HEAD (``is_head``); what every page may change, ``HeadChangesNothing`` keeps as it was: the
session is not saved, so the words a refused form left for the page (kept for it once) are still
there for the page itself, and the messages' cookie is not rewritten. A view whose body is heavy
work (the coach's review, a replay's steps) answers a HEAD with the GET's status and type without
making it (``without_body``): that answer sends no Content-Length, which would be of no body, and
its stand-in body is dropped before the compressing middleware, which would give it one.
"""

from __future__ import annotations

from typing import TypeVar

from django.contrib.messages.storage.cookie import CookieStorage
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.utils.cache import patch_vary_headers

from games.web.outward import Outward

Response = TypeVar("Response", bound=HttpResponseBase)


def is_head(request: HttpRequest) -> bool:
    return request.method == "HEAD"


def without_body(response: Response) -> Response:
    """Marks ``response`` as a HEAD's answer whose body was not made: its Content-Length is not sent."""
    response.body_not_made = True  # type: ignore[attr-defined]
    return response


class HeadChangesNothing(Outward):
    """Between the session's middleware and those that read it: on a HEAD's way out, the session
    is left unsaved and the messages' cookie as the browser sent it; and a body not made is
    emptied, the Content-Length that CommonMiddleware gave it taken off."""

    def outward(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if not is_head(request):
            return response
        session = getattr(request, "session", None)
        if session is not None:
            session.modified = False
        response.cookies.pop(CookieStorage.cookie_name, None)
        if getattr(response, "body_not_made", False):
            # Empty, GZipMiddleware (outside this one) leaves it as it is: compressed, it would be
            # given the length of a body that is not the GET's.
            if isinstance(response, HttpResponse):
                response.content = b""
            del response["Content-Length"]
            # The GET's body is compressed for a browser that accepts it, and says so: a cache
            # between keeps the two encodings apart for the HEAD too.
            patch_vary_headers(response, ("Accept-Encoding",))
        return response

"""A HEAD is answered as its GET, and changes nothing the GET would.

Mail scanners, link previewers and monitors send HEAD, and Django runs the GET's view for it. What
that view writes of its own (a seat marked followed, a browser counted at the table) it skips for a
HEAD (``is_head``); what every page may change, ``HeadChangesNothing`` keeps as it was: the
session is not saved, so the words a refused form left for the page (kept for it once) are still
there for the page itself, and the messages' cookie is not rewritten. But a session whose key
the HEAD changed (Django's auth moves a session signed in under a secret key now among the
fallbacks to a new key, and deletes the old one) is saved under its new key as the browser sent
it, with that cookie; and one the HEAD ended (auth flushes a session its account no longer
matches) loses its cookie: the browser is never left naming a session that is gone. A view whose body is heavy
work (the coach's review, a replay's steps) answers a HEAD with the GET's status and type without
making it (``without_body``): that answer sends no Content-Length, which would be of no body, and
its stand-in body is dropped before the compressing middleware, which would give it one.
"""

from __future__ import annotations

import contextlib
import copy
from dataclasses import dataclass
from typing import Any, TypeVar

from django.contrib.messages.storage.cookie import CookieStorage
from django.contrib.sessions.backends.base import SessionBase
from django.db import InterfaceError, OperationalError
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


@dataclass(frozen=True)
class _SessionSent:
    """The session a HEAD's cookie named, as it was before the view: its key and its data."""

    key: str
    data: dict[str, Any]


# Where a HEAD's request keeps ``_SessionSent`` for the way out.
_SENT = "head_session_sent"
# A session that cannot be read before the view (the database away) is not noted: the view's own
# read of it fails too, inside DatabaseUnavailableMiddleware, which answers the GET's 503.
DATABASE_AWAY = (OperationalError, InterfaceError)


class HeadChangesNothing(Outward):
    """Between the session's middleware and those that read it: on a HEAD's way out, the session
    is left unsaved (moved to a new key, it is saved there as it was sent; ended, its cookie goes)
    and the messages' cookie as the browser sent it; and a body not made is emptied, the
    Content-Length that CommonMiddleware gave it taken off."""

    def inward(self, request: HttpRequest) -> None:
        session = self._sent_session(request)
        if session is not None:
            with contextlib.suppress(*DATABASE_AWAY):
                self._note(request, session, dict(session.items()))

    async def inward_async(self, request: HttpRequest) -> None:
        session = self._sent_session(request)
        if session is not None:
            with contextlib.suppress(*DATABASE_AWAY):
                self._note(request, session, dict(await session.aitems()))

    @staticmethod
    def _sent_session(request: HttpRequest) -> SessionBase | None:
        """A HEAD's session that its cookie names: read before the view, so that what the view
        changes can be undone (a HEAD is rare, and nearly every page reads its session anyway)."""
        session = getattr(request, "session", None)
        if not is_head(request) or not isinstance(session, SessionBase) or not session.session_key:
            return None
        return session

    @staticmethod
    def _note(request: HttpRequest, session: SessionBase, data: dict[str, Any]) -> None:
        if session.session_key:  # a key that names no stored session is None once read
            setattr(request, _SENT, _SessionSent(session.session_key, copy.deepcopy(data)))

    def outward(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if not is_head(request):
            return response
        session = getattr(request, "session", None)
        if session is not None:
            sent: _SessionSent | None = getattr(request, _SENT, None)
            key = session.session_key
            session.modified = False
            if sent is not None and key is None:
                # Ended during the HEAD, its stored row deleted: empty, the session's middleware
                # deletes the browser's cookie, and nothing the view wrote after is saved.
                session.clear()
            elif sent is not None and key != sent.key:
                # Moved to a new key, the old one deleted: saved under the new key (the session's
                # middleware sends its cookie) with the data the browser sent, not what the view took.
                session.clear()
                session.update(sent.data)
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

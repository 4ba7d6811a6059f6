"""A signed-in player's pages are in the account's language, whichever browser they sign in from."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.utils import translation

# The account's language, kept in the session at sign-in and by the switcher, so that no page
# reads the profile to learn it; signing out flushes the session and with it this.
ACCOUNT_LANGUAGE = "account_language"


class AccountLanguageMiddleware:
    """Put after AuthenticationMiddleware: the session's account language wins over the cookie and
    Accept-Language (LocaleMiddleware's choice), and the language cookie is kept in step with it
    so the pages stay in that language after signing out."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        language = ""
        if settings.SESSION_COOKIE_NAME in request.COOKIES and hasattr(request, "session"):
            language = _stored(request)
        if language not in dict(settings.LANGUAGES):
            language = ""
        if language and language != getattr(request, "LANGUAGE_CODE", ""):
            translation.activate(language)
            request.LANGUAGE_CODE = language
        response = self.get_response(request)
        # Read again: the switcher may have just changed it (and set the cookie itself).
        if hasattr(request, "session"):
            language = _stored(request)
        if (
            language in dict(settings.LANGUAGES)
            and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != language
            and settings.LANGUAGE_COOKIE_NAME not in response.cookies
        ):
            set_language_cookie(response, language)
        return response


def _stored(request: HttpRequest) -> str:
    """The account's language kept in the session; "" when the session cannot be read.

    The session is read here, before any view: with the database away that read fails, and
    the page must still come to the view, where DatabaseUnavailableMiddleware answers 503
    with its message instead of a bare server error.
    """
    try:
        return str(request.session.get(ACCOUNT_LANGUAGE, ""))
    except DatabaseError:
        return ""


def set_language_cookie(response: HttpResponse, language: str) -> None:
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,  # type: ignore[arg-type]  # "Lax" in settings
    )

from typing import Any

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from games.services.release import static_version
from games.store import selectors
from games.web.here import here
from games.web.i18n import catalog_version
from games.web.views import controller_for


def site(request: HttpRequest) -> dict[str, Any]:
    """The site's name, how many games wait for this browser's move (the header's count), and
    the switcher's languages, each under its own name: a reader who landed on a page in a
    language they cannot read finds theirs (Django's get_available_languages would translate
    "English" into the page's language), and the page the switcher and "Sign in" go back to
    (games.web.here)."""

    def waiting() -> int:
        # Only a browser with a session can have seats; one indexed count, made when a page shows it.
        if not request.COOKIES.get(settings.SESSION_COOKIE_NAME) or not hasattr(request, "session"):
            return 0
        try:
            return selectors.waiting_count(controller_for(request))
        except DatabaseError:  # the error page of a database out of reach still shows
            return 0

    return {
        "SITE_NAME": settings.SITE_NAME,
        "WAITING": SimpleLazyObject(waiting),
        "CATALOG_VERSION": catalog_version(),
        "RELEASE": static_version(),
        "LANGUAGES": settings.LANGUAGES,
        "HERE": here(request),
    }

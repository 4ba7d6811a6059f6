"""The pages' words in the browser: the site's JavaScript catalog, one cached script per language.

The room's frames carry codes and data only (every player of a room gets the same bytes); the
page words them in its reader's language with ``gettext`` from this catalog
(static/js/words.js). Its URL names the language and the catalogs' version, so a browser and
the server may cache it as long as they like: new translations come under a new URL.
"""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.utils import translation
from django.utils.translation.trans_real import DjangoTranslation
from django.views.decorators.http import require_safe
from django.views.i18n import JavaScriptCatalog

from games.services.release import files_version

DAY = 60 * 60 * 24


class SiteCatalog(JavaScriptCatalog):
    """The site's own djangojs catalog (locale/), without the admin's and other apps' JavaScript words."""

    def get(self, request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        self.translation = DjangoTranslation(
            translation.get_language(), domain="djangojs", localedirs=[str(p) for p in settings.LOCALE_PATHS]
        )
        return self.render_to_response(self.get_context_data(**kwargs))


_catalog = SiteCatalog.as_view()


@cache
def _rendered(language: str) -> tuple[bytes, str]:
    """A language's catalog script, made once a process (six languages: six entries).

    Not through the shared cache keyed by the whole address: a script that varies ``?v=`` would
    store a copy a request there, for as long as the copy is kept.
    """
    request = HttpRequest()
    request.method = "GET"
    with translation.override(language):
        response = _catalog(request)
    assert isinstance(response, HttpResponse)
    return response.content, response["Content-Type"]


@require_safe
def javascript_catalog(request: HttpRequest, language: str) -> HttpResponseBase:
    if language not in dict(settings.LANGUAGES):
        raise Http404("no such language")
    content, content_type = _rendered(language)
    response = HttpResponse(content, content_type=content_type)
    if request.GET.get("v") == catalog_version():
        # The address names this version of the words: browsers may keep it for good.
        response["Cache-Control"] = f"public, max-age={365 * DAY}, immutable"
    else:
        response["Cache-Control"] = "no-cache"
    return response


@cache
def catalog_version() -> str:
    """A short hash of every compiled catalog: it changes whenever a translation does."""
    return files_version(settings.LOCALE_PATHS, "*/LC_MESSAGES/*.mo")

"""The site's URLs plus a view that fails: how the 500 page is rendered in tests."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from yahtzee.urls import handler400, handler403, handler404, handler500, urlpatterns

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]


def boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a fault the page must not show")


urlpatterns = [path("boom", boom), *urlpatterns]

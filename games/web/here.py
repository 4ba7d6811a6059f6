"""Where the page a reader is on lives: the address the header's language switcher and "Sign in" go back to.

A page answering a GET is at its own address. A page drawn for a form's post (the form
refused, a 429, a form that expired) is shown at the address the form posted to, which only
a button may post to: opened as a page it is "This address is for a button" (405). A view
that takes only POSTs is marked with the page its form is on (``form_on``), and a page drawn
for it goes back there. allauth's forms post to their bare address with the page that asked
for them (``next``) in a field: a page drawn for one goes back to the form with it in the address,
so a sign-in or "Confirm it is you" still goes on to that page after the language is switched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.contrib.auth import REDIRECT_FIELD_NAME
from django.http import HttpRequest
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode

View = TypeVar("View", bound=Callable[..., object])


def form_on(page: str) -> Callable[[View], View]:
    """Marks a view that takes only POSTs with the page its form is on: a URL name, reversed with
    the view's room ``code`` when it has one. Wrappers made with functools.wraps keep the mark (the
    limits' 429 and the CSRF check's 403 are drawn with it too)."""

    def mark(view: View) -> View:
        view.form_on = page  # type: ignore[attr-defined]
        return view

    return mark


def here(request: HttpRequest) -> str:
    """The address of the page ``request`` is drawn for: its own for a GET, the page of the form
    a marked view's post came from, else the address posted to (a page of allauth's, say,
    which answers a GET at the same address)."""
    if request.method in ("GET", "HEAD"):
        return request.get_full_path()
    match = getattr(request, "resolver_match", None)
    page = getattr(getattr(match, "func", None), "form_on", None)
    if match is None or page is None:
        return _with_next(request)
    code = match.kwargs.get("code")
    return reverse(page, kwargs={"code": code} if code else None)


def _with_next(request: HttpRequest) -> str:
    """The address posted to, with the page that asked for the form when the form carried one
    of this site's in a field and the address does not name one already."""
    address = request.get_full_path()
    asked = request.POST.get(REDIRECT_FIELD_NAME, "")
    if not asked or REDIRECT_FIELD_NAME in request.GET:
        return address
    ours = url_has_allowed_host_and_scheme(asked, allowed_hosts={request.get_host()}, require_https=request.is_secure())
    if not ours:
        return address
    return f"{address}{'&' if request.GET else '?'}{urlencode({REDIRECT_FIELD_NAME: asked})}"

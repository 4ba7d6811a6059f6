"""Where the page a reader is on lives: the address the header's language switcher and "Sign in" go back to.

A page answering a GET is at its own address. A page drawn for a form's post (the form
refused, a 429, a form that expired) is shown at the address the form posted to, which only
a button may post to: opened as a page it is "This address is for a button" (405). A view
that takes only POSTs is marked with the page its form is on (``form_on``), and a page drawn
for it goes back there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.http import HttpRequest
from django.urls import reverse

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
        return request.get_full_path()
    code = match.kwargs.get("code")
    return reverse(page, kwargs={"code": code} if code else None)

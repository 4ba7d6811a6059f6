"""The pages the browser tests keep between tests (tests/e2e/conftest.py) come back as good as new.

A kept page must not carry anything of the test before into the next: cookies (who you are),
storage (the page's remembered choices), the HTTP cache, the viewport and emulated media. A page
a test changed in a way no reset undoes (a route, a listener, a CDP session...) or a page of a
failed test is never kept.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import LiveSite, PagePool

pytestmark = pytest.mark.browser


def used(page: Any, site: LiveSite) -> None:
    """Leave marks on ``page``: a session, storage, a cached file, another size and dark colours."""
    page.goto(site.url + "/")
    page.evaluate("() => { localStorage.setItem('yahtzee-muted', '1'); sessionStorage.setItem('x', '1'); }")
    page.context.add_cookies([{"name": "sessionid", "value": "someone", "url": site.url}])
    page.set_viewport_size({"width": 400, "height": 500})
    page.emulate_media(color_scheme="dark", reduced_motion="no-preference")
    page.set_default_timeout(1)
    page.evaluate("window.name = 'the test before'")


def test_a_kept_page_comes_back_with_nothing_of_the_test_before(live_site: LiveSite, page_pool: PagePool) -> None:
    kept = page_pool.take(1280, 900)
    used(kept.page, live_site)
    page_pool.give_back(kept, passed=True)
    again = page_pool.take(1280, 900)
    page = again.page
    try:
        assert again is kept and not page.is_closed()
        assert page.context.cookies() == []
        assert page.viewport_size == {"width": 1280, "height": 900}
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") is False
        assert page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches") is True
        page.goto(live_site.url + "/")  # the default timeout is 10 s again, not 1 ms
        assert page.evaluate("[localStorage.length, sessionStorage.length, window.name, history.length]") == [
            0,
            0,
            "",
            2,
        ]
        # The HTTP cache is empty: the home page's files come from the server again, as in a new page.
        files = page.evaluate("performance.getEntriesByType('resource').map(e => [e.name, e.transferSize])")
        files = [(name, size) for name, size in files if name.endswith((".css", ".js"))]
        assert len(files) >= 2 and all(size > 0 for _, size in files), files
    finally:
        page_pool.give_back(again, passed=True)


def test_other_options_get_another_page(page_pool: PagePool) -> None:
    desktop = page_pool.take(1280, 900)
    phone = page_pool.take(390, 844, has_touch=True, is_mobile=True)
    assert desktop.page.context is not phone.page.context
    assert phone.page.evaluate("matchMedia('(pointer: coarse)').matches") is True
    for kept in (desktop, phone):
        page_pool.give_back(kept, passed=True)


def opens_a_popup(page: Any) -> None:
    with page.expect_popup():
        page.evaluate("window.open(location.href)")


@pytest.mark.parametrize(
    "taint",
    [
        lambda page: page.route("**/nothing", lambda route: route.abort()),
        lambda page: page.on("dialog", lambda dialog: dialog.accept()),
        lambda page: page.context.new_cdp_session(page),
        lambda page: page.clock,
        lambda page: page.context.new_page(),
        lambda page: opens_a_popup(page),
        lambda page: page.keyboard.down("Shift"),
        lambda page: page.mouse.down(),
        lambda page: page.context.credentials,
        lambda page: page.set_default_navigation_timeout(1),
    ],
    ids=["route", "listener", "cdp", "clock", "second-page", "popup", "key-held", "button-held", "passkeys", "timeout"],
)
def test_a_page_changed_beyond_reset_is_closed_not_kept(live_site: LiveSite, page_pool: PagePool, taint: Any) -> None:
    tainted = page_pool.take(1280, 900)
    tainted.page.goto(live_site.url + "/static/css/site.css")  # a page the pool could reset
    taint(tainted.page)
    page_pool.give_back(tainted, passed=True)
    assert tainted.page.is_closed()
    fresh = page_pool.take(1280, 900)
    assert fresh is not tainted
    page_pool.give_back(fresh, passed=True)


def test_the_pages_of_a_failed_test_are_closed_not_kept(live_site: LiveSite, page_pool: PagePool) -> None:
    failed = page_pool.take(1280, 900)
    failed.page.goto(live_site.url + "/static/css/site.css")
    page_pool.give_back(failed, passed=False)
    assert failed.page.is_closed()
    fresh = page_pool.take(1280, 900)
    assert fresh is not failed
    page_pool.give_back(fresh, passed=True)

"""The pages the browser tests keep between tests (tests/e2e/conftest.py) come back as good as new.

A kept page must not carry anything of the test before into the next: cookies (who you are),
storage (the page's remembered choices), the HTTP cache, the viewport and emulated media. A page
a test changed in a way no reset undoes (a route, a listener, a CDP session...) or a page of a
failed test is never kept.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import LiveSite, PagePool, load_harness

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


TAINTS = {
    "route": lambda page: page.route("**/nothing", lambda route: route.abort()),
    "listener": lambda page: page.on("dialog", lambda dialog: dialog.accept()),
    "cdp": lambda page: page.context.new_cdp_session(page),
    "clock": lambda page: page.clock,
    "passkeys": lambda page: page.context.credentials,
    "navigation-timeout": lambda page: page.set_default_navigation_timeout(20_000),
    "key-held": lambda page: page.keyboard.down("Shift"),
    "button-held": lambda page: page.mouse.down(),
    "second-page": lambda page: page.context.new_page(),
}


def test_a_page_changed_beyond_reset_is_closed_not_kept(live_site: LiveSite, page_pool: PagePool) -> None:
    """Each of these marks the page; a marked page is closed when it is given back, not kept."""
    kept = page_pool.take(1280, 900)
    kept.page.goto(live_site.url + "/static/css/site.css")  # a page the pool could reset
    for name, taint in TAINTS.items():
        taint(kept.page)
        assert kept.tainted, name
        kept.tainted = False  # one page checks them all: what each did does not mark the page
    page_pool.give_back(kept, passed=True)
    assert kept.page.is_closed()  # its context has a second page now: not kept either


def test_a_page_that_opened_a_popup_or_was_marked_is_closed_not_kept(live_site: LiveSite, page_pool: PagePool) -> None:
    popup = page_pool.take(1280, 900)
    popup.page.goto(live_site.url + "/static/css/site.css")
    opens_a_popup(popup.page)
    page_pool.give_back(popup, passed=True)
    assert popup.page.is_closed()
    marked = page_pool.take(1280, 900)
    assert marked is not popup
    marked.page.goto(live_site.url + "/static/css/site.css")
    TAINTS["clock"](marked.page)
    page_pool.give_back(marked, passed=True)
    assert marked.page.is_closed()


def test_the_pages_of_a_failed_test_are_closed_not_kept(live_site: LiveSite, page_pool: PagePool) -> None:
    failed = page_pool.take(1280, 900)
    failed.page.goto(live_site.url + "/static/css/site.css")
    page_pool.give_back(failed, passed=False)
    assert failed.page.is_closed()
    fresh = page_pool.take(1280, 900)
    assert fresh is not failed
    page_pool.give_back(fresh, passed=True)


def test_the_storage_of_every_origin_the_page_went_to_is_cleared(live_site: LiveSite, page_pool: PagePool) -> None:
    """A test may take a page from one server to another: what it stored at each is gone for the next test."""
    here = live_site.url  # http://127.0.0.1:port
    there = here.replace("127.0.0.1", "localhost")  # the same server, another origin
    kept = page_pool.take(1280, 900)
    for url in (there, here):
        kept.page.goto(url + "/static/css/site.css")
        kept.page.evaluate("localStorage.setItem('yahtzee-muted', '1')")
    page_pool.give_back(kept, passed=True)
    again = page_pool.take(1280, 900)
    try:
        assert again is kept and not again.page.is_closed()
        for url in (there, here):
            again.page.goto(url + "/static/css/site.css")
            assert again.page.evaluate("localStorage.length") == 0, url
    finally:
        page_pool.give_back(again, passed=True)


# A harness document that says something wrong as it goes, and one that does while it loads.
LEAVING = """<!doctype html><script>
addEventListener("pagehide", () => { throw new Error("said as it went"); });
window.ready = true;
</script>"""
BROKEN = """<!doctype html><script>window.ready = true; throw new Error("said while it loaded");</script>"""


def test_a_harness_page_s_errors_are_its_own_document_s_not_the_one_before(page_pool: PagePool) -> None:
    """A kept harness page's next document comes in one navigation: what the document before
    said after its test (a timer, its pagehide) is not the next test's; what the new one says
    while it loads is."""
    kept = page_pool.take_harness()
    try:
        page = load_harness(kept.page, LEAVING)
        with page.expect_event("pageerror"):
            page.evaluate("setTimeout(() => { throw new Error('said after its test'); })")
        assert ["said after its test" in error for error in page.errors] == [True]
        load_harness(page, BROKEN)
        assert ["said while it loaded" in error for error in page.errors] == [True], page.errors
        load_harness(page, LEAVING)
        assert page.errors == []
    finally:
        page_pool.give_back(kept, passed=False)


def test_a_new_context_costs_its_page_alone_and_playwright_s_own_switches_hold(chromium: Any) -> None:
    """No address-bar popups are loaded for a context's window (tests/e2e/conftest.py, UNUSED_FEATURES),
    and the features Playwright turns off stay off: one --disable-features switch has them all."""
    from tests.e2e.conftest import UNUSED_FEATURES, _command_line, feature_switches

    context = chromium.new_context()
    cdp = chromium.new_browser_cdp_session()
    try:
        context.new_page().goto("about:blank")
        urls = [target["url"] for target in cdp.send("Target.getTargets")["targetInfos"]]
        assert not [url for url in urls if url.startswith("chrome://")], urls
    finally:
        cdp.detach()
        context.close()
    switches = feature_switches(_command_line(chromium))
    assert len(switches) == 1, switches
    names = switches[0].split("=", 1)[1].split(",")
    # A few of Playwright's (chromiumSwitches), which keep the browser off the network and paint at once.
    assert {"PaintHolding", "OptimizationHints", "NetworkTimeServiceQuerying", *UNUSED_FEATURES} <= set(names)

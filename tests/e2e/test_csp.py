"""The Content-Security-Policy in a real browser: every kind of page the site answers sends it,
and none of them breaks it (no inline script, inline handler, eval or style attribute).

Each page is watched from before its first script runs: the ``securitypolicyviolation``
events it fires and Chromium's console errors ("Refused to ...") both count.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import act, create_local, create_online, score_best
from tests.e2e.test_accounts import PASSWORD, sign_up
from tests.e2e.test_pages import finished_game

pytestmark = pytest.mark.browser

WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber}`);
});
// The most bits of confetti the celebration layer has held at once: the page takes them away
// again 2.2 s after it throws them, sooner than a loaded machine lets a test look.
window.__bits = 0;
new MutationObserver(() => {
  const layer = document.getElementById('celebrate');
  if (layer) window.__bits = Math.max(window.__bits, layer.querySelectorAll('.bit').length);
}).observe(document, { childList: true, subtree: true });
"""

# The bits of confetti thrown so far, once there are any (or after 10 s without).
THROWN = """() => new Promise((resolve) => {
  const started = Date.now();
  const look = () => (window.__bits || Date.now() - started > 10000 ? resolve(window.__bits) : setTimeout(look, 50));
  look();
})"""


def watched(new_page: Any, width: int = 1280, height: int = 800, **options: Any) -> Any:
    """A page that keeps the site's policy (the other tests' pages set it aside), watched for violations.

    Playwright's wait_for_function evaluates with eval, which the policy refuses: these tests
    wait with selectors and evaluate functions only.
    """
    page = new_page(width, height, bypass_csp=False, **options)
    page.add_init_script(WATCH)
    return page


def visit(page: Any, url: str, status: int = 200) -> None:
    """Open ``url``: it answers ``status`` with the policy, and breaks nothing of it."""
    response = page.goto(url)
    assert response.status == status, url
    policy = response.headers.get("content-security-policy", "")
    assert "script-src 'self'" in policy and "style-src 'self'" in policy, (url, policy)
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    page.wait_for_load_state("load")
    assert_clean(page, url)


def assert_clean(page: Any, where: str) -> None:
    seen = page.evaluate("window.__csp || []")
    refused = [e for e in page.errors if "Content Security Policy" in e or "Refused to" in e]
    assert seen == [] and refused == [], (where, seen, refused)


def staff(site: LiveSite) -> tuple[str, str]:
    name = f"staff{uuid.uuid4().hex[:6]}"
    site.run(
        "from django.contrib.auth import get_user_model\n"
        "get_user_model().objects.create_superuser(args[0], password=args[1])",
        name,
        PASSWORD,
    )
    return name, PASSWORD


def test_the_players_pages_send_the_policy_and_break_none_of_it(live_site: LiveSite, new_page: Any) -> None:
    code = finished_game(live_site)
    page = watched(new_page)
    for path in ("/", "/rules", "/fairness", "/leaderboards/official", f"/r/{code}/replay", f"/r/{code}/fairness"):
        visit(page, live_site.url + path)
    visit(page, f"{live_site.url}/r/{code}/")  # a finished room: the game-over panel
    page.wait_for_selector("#over:not([hidden])")
    assert_clean(page, "game over")
    # The lobby, as its host sees it.
    create_online(page, live_site, "Ann")
    assert_clean(page, "lobby")
    # Error pages: a missing page, a room address that only takes a form.
    visit(page, live_site.url + "/no/such/page", status=404)
    visit(page, f"{live_site.url}/r/{code}/join", status=405)
    # The error pages' own statuses are all the console has to say.
    assert [e for e in page.errors if "the server responded with a status of 40" not in e] == []


def test_a_game_played_to_its_celebration_breaks_none_of_the_policy(live_site: LiveSite, new_page: Any) -> None:
    # Motion allowed: the game's end throws its confetti, each bit placed by the page's code.
    page = watched(new_page, reduced_motion="no-preference")
    url = create_local(page, live_site, ["Solo"])
    assert_clean(page, "table")
    for turn in range(13):
        if turn == 1:
            # The turns between the first and the last through the services: the page plays the
            # game's start and its end, and loads the table in between (watched again).
            assert_clean(page, "first turn")
            live_site.play_turns(url.rstrip("/").rsplit("/", 1)[-1], 11)
            visit(page, url)
            page.wait_for_selector("#conn[data-state=connected]")
        if turn in (0, 12):
            page.wait_for_selector("#roll:not([disabled])")
            act(page, [page], lambda: page.click("#roll"))
            score_best(page, [page])
    page.wait_for_selector("#over:not([hidden])")
    assert page.evaluate(THROWN) == 18
    assert_clean(page, "game over with its celebration")
    assert page.errors == []


def test_the_account_and_admin_pages_send_the_policy_and_break_none_of_it(live_site: LiveSite, new_page: Any) -> None:
    page = watched(new_page)
    for path in ("/accounts/signup/", "/accounts/login/"):
        visit(page, live_site.url + path)
    name = f"csp{uuid.uuid4().hex[:6]}"
    sign_up(page, live_site, name)
    assert_clean(page, "profile")
    for path in ("/me/settings", "/accounts/password/change/", "/accounts/2fa/", "/accounts/logout/"):
        visit(page, live_site.url + path)
    # Adding a passkey asks for the password again, then shows the page with allauth's scripts.
    visit(page, live_site.url + "/accounts/2fa/webauthn/add/?passwordless")
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url("**/accounts/2fa/webauthn/add/**")
    page.wait_for_load_state("load")
    assert_clean(page, "add a passkey")

    code = finished_game(live_site)
    admin = watched(new_page)
    user, password = staff(live_site)
    # The admin's sign-in is the site's (it asks for a passkey where an account has one).
    visit(admin, live_site.url + "/admin/login/?next=/admin/")
    admin.fill("input[name=login]", user)
    admin.fill("input[name=password]", password)
    admin.click("form[action^='/accounts/login/'] button[type=submit]")
    admin.wait_for_url(f"{live_site.url}/admin/")
    assert_clean(admin, "admin index")
    visit(admin, f"{live_site.url}/admin/games/game/?q={code}")
    admin.click(f"text={code[:4]}-{code[4:8]}-{code[8:]}")
    admin.wait_for_selector(".review")
    assert_clean(admin, "admin game")
    visit(admin, live_site.url + "/admin/games/chatmessage/")  # a list with actions
    visit(admin, live_site.url + "/admin/axes/accessattempt/")
    assert page.errors == [] and admin.errors == []

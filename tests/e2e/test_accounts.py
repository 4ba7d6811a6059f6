"""Accounts in a real browser: sign up, a game on the profile, the account's seat on a second
browser, a passkey through Chromium's virtual authenticator, the leaderboard, and every new
page clean under axe-core, light and dark."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import act, create_online, in_each_scheme, join, score_best, serious_violations, shot

pytestmark = pytest.mark.browser

PASSWORD = "a long and quiet dice cup"


def username(stem: str) -> str:
    return f"{stem}{uuid.uuid4().hex[:6]}"


def sign_up(page: Any, site: LiveSite, name: str, base: str | None = None) -> None:
    page.goto((base or site.url) + "/accounts/signup/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("form[action='/accounts/signup/'] button[type=submit]")
    page.wait_for_url(f"**/u/{name}/")


def sign_in(page: Any, site: LiveSite, name: str) -> None:
    page.goto(site.url + "/accounts/login/")
    page.fill("input[name=login]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form[action='/accounts/login/'] button[type=submit]")
    page.wait_for_url(f"**/u/{name}/")


def play_solo_game(page: Any, site: LiveSite) -> str:
    """A pass-and-play game for one: thirteen rolls, thirteen boxes, the first and the last on the page."""
    page.goto(site.url + "/")
    page.check("input[name=mode][value=local]")
    page.fill("#id_players", "1")
    page.fill("#id_player_1", "Solo")
    page.check("input[name=ruleset][value=official]")
    page.click("#create-btn")
    page.wait_for_selector("#roll")
    page.wait_for_selector("#conn[data-state=connected]")
    code = page.url.rstrip("/").rsplit("/", 1)[-1]
    for turn in range(13):
        if turn == 1:
            # The eleven turns between the first and the last through the services: the page
            # plays the game's start and its end, and loads the rest.
            site.play_turns(code, 11)
            page.reload()
            page.wait_for_selector("#conn[data-state=connected]")
        if turn in (0, 12):
            page.wait_for_function("!document.getElementById('roll').disabled")
            act(page, [page], lambda: page.click("#roll"))
            score_best(page, [page])
    page.wait_for_selector("#over:not([hidden])")
    return code


def test_sign_up_play_a_game_and_find_it_on_the_profile(live_site: LiveSite, new_page: Any) -> None:
    page = new_page()
    page.goto(live_site.url + "/")
    assert page.locator("[data-testid=nav-sign-in]").is_visible()
    name = username("ann")
    sign_up(page, live_site, name)
    assert page.locator("[data-testid=nav-account]").inner_text() == name
    code = play_solo_game(page, live_site)
    # Counted in the server's background thread right after the last box.
    for _ in range(40):
        page.goto(f"{live_site.url}/u/{name}/")
        if page.locator("[data-testid=history] tbody tr").count():
            break
        page.wait_for_timeout(250)
    row = page.locator("[data-testid=history] tbody tr").first
    assert "official" in row.inner_text() and "1 of 1" in row.inner_text()
    assert row.locator("a").get_attribute("href") == f"/r/{code}/replay"
    assert "Games" in page.inner_text(".stats") and "Points lost a game" in page.inner_text(".stats")
    assert page.errors == []


# A game this account finished at 22:30 UTC on 4 March 2026: 09:30 on 5 March in Sydney.
FINISHED_LATE_UTC = """
import time
from datetime import UTC, datetime
from django.contrib.auth import get_user_model
from accounts.models import GameRecord, Standing
name, code = args
for _ in range(200):  # the site's scheduler counts the game (its follow-ups) just after it ends
    record = GameRecord.objects.filter(game__code=code).order_by("id").first()
    if record is not None:
        break
    time.sleep(0.05)
user = get_user_model().objects.get(username=name)
GameRecord.objects.filter(pk=record.pk).update(user=user, finished_at=datetime(2026, 3, 4, 22, 30, tzinfo=UTC))
Standing.objects.update_or_create(user=user, ruleset=record.ruleset, defaults={"games": 1})
result = record.pk
"""


def test_the_profile_dates_a_game_in_the_readers_time_zone_as_the_chat_times_its_lines(
    live_site: LiveSite, new_page: Any
) -> None:
    """The chat's times are the browser's (chat.js, toLocaleTimeString); the profile's dates were the
    server's UTC day: in Sydney a game finished at 09:30 on 5 March was listed on 4 March."""
    page = new_page(timezone_id="Australia/Sydney", locale="en-AU")
    name = username("syd")
    sign_up(page, live_site, name)
    code = live_site.finished_game(players=2, seed=4711)
    live_site.run(FINISHED_LATE_UTC, name, code)
    page.goto(f"{live_site.url}/u/{name}/")
    when = page.text_content("td time") or ""
    assert "5" in when and "4" not in when.replace("2026", ""), when
    # Without script the server's words stay (its day in UTC), and the element keeps the moment itself.
    assert page.get_attribute("td time", "datetime") == "2026-03-04T22:30:00+00:00"


def bea_and_cal_playing(site: LiveSite, new_page: Any) -> tuple[str, Any, Any, str]:
    """Bea signed up (a new account's name) and Cal, a visitor, in an online game Bea created and
    started: her account's name, her page, Cal's page and the room's address."""
    name = username("bea")
    home = new_page()
    sign_up(home, site, name)
    url = create_online(home, site, "Bea")
    friend = new_page()
    join(friend, url, "Cal")
    home.wait_for_function("document.querySelectorAll('#seats .seat').length === 2")
    act(home, [home, friend], lambda: home.click("#start"))
    return name, home, friend, url


def test_the_same_account_in_a_second_browser_plays_its_seat(live_site: LiveSite, new_page: Any) -> None:
    name, home, friend, url = bea_and_cal_playing(live_site, new_page)
    # Another device: a fresh browser, signed in to the same account, plays the seat.
    phone = new_page(390, 844)
    sign_in(phone, live_site, name)
    phone.goto(url)
    phone.wait_for_selector("#conn[data-state=connected]")
    phone.wait_for_function("!document.getElementById('roll').disabled")
    act(phone, [phone, home, friend], lambda: phone.click("#roll"))
    score_best(phone, [phone, home, friend])
    friend.wait_for_function("!document.getElementById('roll').disabled")
    assert phone.errors == [] and home.errors == []


def test_a_room_tab_left_open_after_signing_out_in_another_stops_offering_the_accounts_turn(
    live_site: LiveSite, new_page: Any
) -> None:
    """A shared computer: Bea signs out in another tab, her room tab open at her turn. The room
    counts that tab as a visitor's at once (her seat away), and so does the tab: it no longer
    offers Roll, which the server would refuse, nor calls the seat hers."""
    _, home, friend, _ = bea_and_cal_playing(live_site, new_page)
    home.wait_for_function("!document.getElementById('roll').disabled")
    other = home.context.new_page()
    sign_out(other, live_site.url)
    # Not only when the tab next acts, which the server would refuse (it looks at the session then).
    home.wait_for_selector("#roll", state="detached")
    home.wait_for_selector("#conn[data-state=connected]")
    assert home.locator(".seat .tag.you").count() == 0
    friend.wait_for_selector("#seats .presence.away")
    other.close()
    assert home.errors == [] and friend.errors == []


def test_a_deleted_accounts_chat_lines_are_renamed_on_the_pages_open_at_the_time(
    live_site: LiveSite, new_page: Any
) -> None:
    """Bob, signed in, says something in Ann's lobby and then deletes his account: Ann's open page
    shows his line under "Former player", as his seat, not under his name until she reloads."""
    bob = new_page()
    sign_up(bob, live_site, username("bob"))
    ann = new_page()
    url = create_online(ann, live_site, "Ann")
    join(bob, url, "Bob")
    bob.fill("#chat-text", "call me, 555-0199")
    bob.press("#chat-text", "Enter")
    names = "[...document.querySelectorAll('#chat-list .chat-name')].map((n) => n.textContent).join()"
    ann.wait_for_function(f"{names} === 'Bob'")
    bob.goto(live_site.url + "/me/settings")
    delete = bob.locator("form:has(input[name=action][value=delete])")
    delete.locator("input[name=password]").fill(PASSWORD)
    delete.locator("button[type=submit]").click()
    bob.wait_for_url("**/me/deleted")
    ann.wait_for_function(f"{names} === 'Former player'")
    assert ann.inner_text("#chat-list .chat-text") == "call me, 555-0199"
    assert ann.errors == []


def virtual_authenticator(page: Any) -> tuple[Any, str]:
    """Chromium's virtual authenticator on ``page`` (a platform one, that verifies its user): the
    DevTools session and the authenticator's id."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    authenticator = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
            }
        },
    )["authenticatorId"]
    return cdp, authenticator


def add_passkey(page: Any, base: str) -> None:
    """A passkey that signs in by itself added to the signed-in account, its password given
    again (a sign-up is not a sign-in), at ``base`` (a name WebAuthn accepts for the site)."""
    page.goto(base + "/accounts/2fa/webauthn/add/?passwordless")
    page.wait_for_url("**/accounts/reauthenticate/**")
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url("**/accounts/2fa/webauthn/add/**")
    page.click("#mfa_webauthn_add")
    page.wait_for_url(lambda url: "/webauthn/add" not in url)


def with_a_passkey(site: LiveSite, new_page: Any, stem: str, width: int, height: int) -> tuple[Any, str]:
    """A page of ``width`` x ``height`` with the virtual authenticator, signed up as a new account
    named from ``stem`` that has added a passkey: the page and the address WebAuthn accepts for
    the site (localhost: it refuses an IP address as the relying party)."""
    base = site.url.replace("127.0.0.1", "localhost")
    page = new_page(width, height)
    virtual_authenticator(page)
    sign_up(page, site, username(stem), base=base)
    add_passkey(page, base)
    return page, base


def clean_in_each_scheme(page: Any, name: str, full_page: bool = True) -> None:
    """``page`` has no serious axe-core violation, light and dark, and a screenshot of each named ``name``."""
    for scheme in in_each_scheme(page):
        assert serious_violations(page, scheme) == [], (name, scheme)
        shot(page, f"{scheme}-{name}", full_page=full_page)


def sign_out(page: Any, base: str) -> None:
    page.goto(base + "/accounts/logout/")
    page.click("main form button[type=submit]")
    page.wait_for_selector("[data-testid=nav-sign-in]")


def test_a_passkey_signs_in_through_the_virtual_authenticator(live_site: LiveSite, new_page: Any) -> None:
    # WebAuthn refuses IP addresses as the relying party: the same server, called localhost.
    base = live_site.url.replace("127.0.0.1", "localhost")
    page = new_page(1280, 800)
    cdp, authenticator = virtual_authenticator(page)
    name = username("dee")
    sign_up(page, live_site, name, base=base)
    page.goto(base + "/accounts/2fa/webauthn/add/?passwordless")
    # Adding a key asks for the password again (a sign-up is not a sign-in).
    page.wait_for_url("**/accounts/reauthenticate/**")
    assert serious_violations(page) == []
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url("**/accounts/2fa/webauthn/add/**")
    assert serious_violations(page) == []
    # In players' words: a passkey named after this browser, made to sign in by itself.
    assert page.inner_text("main h1") == "Add a passkey"
    assert page.input_value("input[name=name]") == "Chrome on Linux"
    assert page.is_checked("input[name=passwordless]")
    for jargon in ("Security Key", "Two-Factor", "Master key", "Passwordless"):
        assert jargon not in page.inner_text("main"), jargon
    page.fill("input[name=name]", "This laptop")
    page.click("#mfa_webauthn_add")
    page.wait_for_url(lambda url: "/webauthn/add" not in url)
    assert "Passkey added." in page.inner_text("main")
    assert page.inner_text("[data-testid=passkey-count]") == "You have 1 passkey."
    assert page.locator("[data-testid=passkey-notice]").count() == 0  # at a name they work
    page.click("text=Your passkeys")
    assert "This laptop" in page.inner_text("main table") and "Signs you in by itself" in page.inner_text("main table")
    clean_in_each_scheme(page, "1280-your-passkeys")
    page.click("text=Rename")
    assert page.inner_text("main h1") == "Rename a passkey"
    page.fill("input[name=name]", "Work laptop")
    page.click("main form button[type=submit]")
    page.wait_for_selector("main table")
    assert "Work laptop" in page.inner_text("main table")
    page.click("text=Remove")
    assert page.inner_text("main h1") == "Remove this passkey?" and "Work laptop" in page.inner_text("main")
    clean_in_each_scheme(page, "1280-remove-a-passkey")
    page.click("main a:text-is('Keep it')")
    page.wait_for_selector("main table")
    assert len(cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]) == 1
    sign_out(page, base)
    # The password now asks for the passkey too.
    page.goto(base + "/accounts/login/")
    page.fill("input[name=login]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form[action='/accounts/login/'] button[type=submit]")
    page.wait_for_url("**/accounts/2fa/authenticate/**")
    assert page.inner_text("main h1") == "Confirm with your passkey"
    assert "authenticator code" not in page.inner_text("main")
    clean_in_each_scheme(page, "1280-sign-in-confirm-with-passkey")
    # The same page on a phone: loaded again at that size.
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    assert page.inner_text("main h1") == "Confirm with your passkey"
    clean_in_each_scheme(page, "390-sign-in-confirm-with-passkey")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.reload()
    page.click("#mfa_webauthn_authenticate")
    page.wait_for_url(f"**/u/{name}/")
    sign_out(page, base)
    page.goto(base + "/accounts/login/")
    page.click("#passkey_login")
    page.wait_for_url(f"**/u/{name}/")
    assert page.locator("[data-testid=nav-account]").inner_text() == name
    assert page.errors == []


def test_a_passkey_the_site_no_longer_knows_is_refused_in_the_sites_words(live_site: LiveSite, new_page: Any) -> None:
    """The browser still holds a passkey its player removed from the account: signing in with it
    says it could not be checked and leaves the password to use, not "Incorrect code." of codes
    the site does not have, and signs nobody in."""
    page, base = with_a_passkey(live_site, new_page, "ida", 1280, 800)
    page.goto(base + "/accounts/2fa/webauthn/")
    page.click("text=Remove")
    page.click("main form button[type=submit]")
    page.wait_for_selector("main h1:text-is('Your passkeys')")
    sign_out(page, base)
    page.goto(base + "/accounts/login/")
    page.click("#passkey_login")
    page.wait_for_selector("main :text('That passkey could not be checked')")
    main = page.inner_text("main")
    assert "That passkey could not be checked: try again, or use your password." in main
    assert "Incorrect code" not in main
    assert page.locator("[data-testid=nav-sign-in]").count() == 1
    clean_in_each_scheme(page, "1280-passkey-not-checked")
    assert page.errors == []


def test_a_passkey_that_could_not_confirm_it_is_you_keeps_the_player_on_the_page(
    live_site: LiveSite, new_page: Any
) -> None:
    """A passkey's answer the server cannot check leaves the player on "Confirm it is you", told why,
    not sent on to the sign-in page's redirect, away from the change that asked; their own passkey
    then takes them on to the page that asked."""
    page, base = with_a_passkey(live_site, new_page, "joy", 1280, 800)
    asked = "/accounts/2fa/webauthn/"
    page.goto(f"{base}/accounts/2fa/webauthn/reauthenticate/?next={asked}")
    # What a page whose script was broken or replaced posts: no passkey's answer.
    page.evaluate(
        """() => { const form = document.querySelector('main form');
        form.querySelector('input[name=credential]').value = '{"id": "x"}'; form.submit(); }"""
    )
    page.wait_for_selector("main [role=alert]")
    assert "/webauthn/reauthenticate/" in page.url
    assert page.inner_text("main h1") == "Confirm it is you"
    assert page.inner_text("main [role=alert]") == "That passkey could not be checked: try again, or use your password."
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        clean_in_each_scheme(page, f"{width}-confirm-passkey-not-checked")
    page.click("#mfa_webauthn_reauthenticate")
    page.wait_for_url(f"{base}{asked}")
    assert page.inner_text("main h1") == "Your passkeys"
    assert page.errors == []


def test_passkeys_at_a_numeric_address_say_why_they_cannot_work_and_where_they_do(
    live_site: LiveSite, new_page: Any
) -> None:
    # The address a player might open (127.0.0.1): the browser refuses WebAuthn there.
    name = username("ida")
    for width, height in ((1280, 800), (390, 844)):
        page = new_page(width, height)
        if width == 1280:
            sign_up(page, live_site, name)
        else:
            sign_in(page, live_site, name)
        page.goto(live_site.url + "/accounts/2fa/")
        notice = page.locator("[data-testid=passkey-notice]")
        assert "Passkeys cannot work at this address" in notice.inner_text()
        localhost = live_site.url.replace("127.0.0.1", "localhost")
        assert notice.locator("a").get_attribute("href") == localhost + "/accounts/2fa/"
        clean_in_each_scheme(page, f"{width}-passkeys-at-an-ip-address")
        page.click("text=Add a passkey")
        page.wait_for_url("**/accounts/reauthenticate/**")
        assert page.inner_text("main h1") == "Confirm it is you"
        page.fill("input[name=password]", PASSWORD)
        page.click("main form button[type=submit]")
        page.wait_for_url("**/accounts/2fa/webauthn/add/**")
        # Asked anyway, the browser refuses: the page says what happened, not only the console.
        page.click("#mfa_webauthn_add")
        alert = page.locator("#passkey-error[role=alert]")
        alert.wait_for()
        assert "refuses passkeys at a numeric address" in alert.inner_text()
        assert alert.locator("a").get_attribute("href") == localhost + "/accounts/2fa/webauthn/add/"
        assert "/webauthn/add" in page.url  # nothing was sent
        clean_in_each_scheme(page, f"{width}-add-a-passkey-refused")
        assert page.errors == []
    # The sign-in page's passkey button, too.
    page = new_page()
    page.goto(live_site.url + "/accounts/login/")
    assert page.locator("[data-testid=passkey-notice]").count() == 1
    page.click("#passkey_login")
    page.locator("#passkey-error[role=alert]").wait_for()
    assert "numeric address" in page.inner_text("#passkey-error")
    assert page.errors == []


# Standings as the rating service leaves them, for accounts of the given names.
SEED_LEADERS = """
import uuid
from django.contrib.auth import get_user_model
from accounts.models import Profile, Standing
(names,) = args
for i, name in enumerate(names):
    user, _ = get_user_model().objects.get_or_create(username=name)
    Profile.objects.get_or_create(user=user, defaults={"controller": uuid.uuid4().hex})
    Standing.objects.update_or_create(user=user, ruleset="official", defaults=dict(
        games=20, wins=5, score_sum=4600, best=300, reviewed=20, lost_sum=600.0 + i, accuracy=30.0 + i / 20,
        mu=60.0 - i, sigma=2.0, ordinal=54.0 - i, rated=20))
"""

# The cells of each table that its sideways scroll hides (past the right edge of its wrap).
CELLS_PAST_THEIR_TABLE = """() => [...document.querySelectorAll('.table-wrap')].flatMap(wrap => {
    const box = wrap.getBoundingClientRect();
    return [...wrap.querySelectorAll('th, td')].filter(c => c.getBoundingClientRect().right > box.right + 1)
        .map(c => `${c.closest('table').dataset.testid}: ${c.innerText.trim()}`);
})"""

# The numbers of the profile's history that a phone shows with no label before them.
UNLABELLED_NUMBERS = """() => [...document.querySelectorAll('.history td.num')]
    .filter(td => getComputedStyle(td, '::before').content === 'none')
    .map(td => `${td.dataset.label}: ${td.innerText}`)"""


def test_the_leaderboard_lists_rated_public_players(live_site: LiveSite, new_page: Any) -> None:
    live_site.run("import random; from bench.accounts import seed; seed(accounts=8, games=240, rng=random.Random(16))")
    page = new_page()
    page.goto(live_site.url + "/")
    page.click("text=Leaderboards")
    page.wait_for_url("**/leaderboards/official")
    rows = page.locator("[data-testid=by-rating] tbody tr")
    assert 1 <= rows.count() <= 100
    first = rows.first.locator("a")
    href = first.get_attribute("href")
    assert page.locator("[data-testid=by-accuracy] tbody tr").count() >= 1
    page.click("text=Painted Yahtzee")
    assert "no exact solver" in page.inner_text("main")
    page.goto(live_site.url + href)
    assert page.locator(".stats").count() >= 1
    assert page.locator("[data-testid=history] tbody tr").count() == 20
    page.click("a[rel=next]")
    assert "Page 2 of" in page.inner_text(".pager")
    viewer = new_page()
    for width, height in ((1280, 800), (390, 844)):
        viewer.set_viewport_size({"width": width, "height": height})
        viewer.goto(live_site.url + href)
        assert viewer.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        for scheme in in_each_scheme(viewer):
            assert serious_violations(viewer, scheme) == [], scheme
            shot(viewer, f"{scheme}-{width}-profile-with-games", full_page=True)
    # A 24-letter name (the longest a seat takes) or a long username is shortened with an ellipsis,
    # whole in its link and title: the rating, the points lost and the games stay in view.
    tail = uuid.uuid4().hex[:4]
    long_names = ["W" * 20 + tail, f"Maximilian_von_Schwarzenberg_{tail}"]
    live_site.run(SEED_LEADERS, long_names)
    for width, height in ((1280, 800), (390, 844)):
        viewer.set_viewport_size({"width": width, "height": height})
        viewer.goto(live_site.url + "/leaderboards/official")
        shot(viewer, f"leaderboard-long-names-{width}", full_page=True)
        assert viewer.evaluate(CELLS_PAST_THEIR_TABLE) == [], width
        for name in long_names:
            link = viewer.locator(f"[data-testid=by-rating] a[href='/u/{name}/']")
            assert link.inner_text() == name and link.get_attribute("title") == name
    # On a phone a finished game is a block of lines: its rank and score are labelled in the
    # reader's language, and nothing of it hides behind a sideways scroll.
    for language in ("en", "de", "fr"):
        viewer.context.add_cookies([{"name": "django_language", "value": language, "url": live_site.url}])
        for path in (href, "/leaderboards/official"):
            viewer.goto(live_site.url + path)
            assert viewer.get_attribute("html", "lang") == language
            shot(viewer, f"390-{language}-{path.strip('/').replace('/', '_')}", full_page=True)
            assert viewer.evaluate(UNLABELLED_NUMBERS) == [], language
            assert viewer.evaluate(CELLS_PAST_THEIR_TABLE) == [], (language, path)
            # A heading wraps ("Verlorene Punkte") rather than cut an everyday name ("Christ…").
            cut = viewer.eval_on_selector_all(
                ".data td.name a",
                "as => as.filter(a => a.textContent.length <= 12 && a.closest('td').scrollWidth"
                " > a.closest('td').clientWidth + 1).map(a => a.textContent)",
            )
            assert cut == [], (language, path, cut)


SEED_BELOW_THE_TOP = """
import uuid
from django.contrib.auth import get_user_model
from accounts.models import Profile, Standing
from accounts.selectors import LEADERBOARD_SIZE
(me, tail) = args
for i in range(LEADERBOARD_SIZE):
    user, _ = get_user_model().objects.get_or_create(username=f"above{tail}{i:03d}")
    Profile.objects.get_or_create(user=user, defaults={"controller": uuid.uuid4().hex})
    Standing.objects.update_or_create(user=user, ruleset="yatzy", defaults=dict(
        games=6, rated=6, reviewed=6, lost_sum=60.0, accuracy=10.0 + i / 100, ordinal=20.0 - i / 10))
Standing.objects.update_or_create(user=get_user_model().objects.get(username=me), ruleset="yatzy", defaults=dict(
    games=6, rated=6, reviewed=6, lost_sum=180.0, accuracy=30.0, ordinal=-1.0))
"""


def test_a_player_below_the_top_finds_their_own_place_under_each_board(live_site: LiveSite, new_page: Any) -> None:
    page = new_page()
    name = username("low")
    sign_up(page, live_site, name)
    live_site.run(SEED_BELOW_THE_TOP, name, uuid.uuid4().hex[:4])
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live_site.url + "/leaderboards/yatzy")
        for board in ("by-rating", "by-accuracy"):
            mine = page.locator(f"[data-testid={board}] tfoot tr.you")
            assert mine.locator("a").inner_text() == name
            assert int(mine.locator("td").first.inner_text()) > 100
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.locator("[data-testid=by-rating] tfoot").scroll_into_view_if_needed()
        clean_in_each_scheme(page, f"{width}-leaderboard-own-place", full_page=False)
    assert page.errors == []


def test_on_a_phone_the_passkeys_list_shows_how_to_rename_and_remove_each(live_site: LiveSite, new_page: Any) -> None:
    """The list's buttons sit on the phone's screen, in the longer words of Danish too: none is
    pushed off to the right of a table that scrolls sideways."""
    page, base = with_a_passkey(live_site, new_page, "pia", 390, 844)
    for language in ("en", "da"):
        page.goto(base + "/accounts/2fa/webauthn/")
        page.select_option("#language-select", language)
        page.click("[data-testid=language-switch] button[type=submit]")
        page.wait_for_selector(f"html[lang={language}] main table")
        buttons = page.locator("main table a.btn")
        assert buttons.count() == 2
        for i in range(2):
            box = buttons.nth(i).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, (language, i, box)
            scrolls = "b => { const w = b.closest('.table-wrap'); return w.scrollWidth > w.clientWidth; }"
            assert not buttons.nth(i).evaluate(scrolls), language
        clean_in_each_scheme(page, f"390-{language}-your-passkeys")
    assert page.errors == []


def test_the_longest_name_signed_up_on_a_phone_fits_the_message_that_greets_it(
    live_site: LiveSite, new_page: Any
) -> None:
    """A name of 150 letters, no space in it (all the sign-up takes): the profile the sign-up lands
    on says "signed in as" it, and the message wraps on a phone instead of widening the page."""
    page = new_page(390, 844)
    name = username("L" * 144)
    sign_up(page, live_site, name)
    assert name in page.locator(".messages").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shot(page, "390-profile-longest-name", full_page=True)
    page.goto(live_site.url + "/accounts/password/change/")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.errors == []


def test_every_accounts_page_is_clean_under_axe_and_fits_a_phone(live_site: LiveSite, new_page: Any) -> None:
    anonymous = ["/accounts/signup/", "/accounts/login/", "/leaderboards/official", "/leaderboards/painted"]
    mine = ["/me", "/me/settings", "/accounts/password/change/", "/accounts/2fa/", "/accounts/logout/"]
    name = username("eve")

    def check(page: Any, path: str, width: int) -> None:
        page.goto(live_site.url + path)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), path
        for scheme in in_each_scheme(page):
            assert serious_violations(page, scheme) == [], (path, scheme)
            shot(page, f"{scheme}-{width}-{path.strip('/').replace('/', '_')}", full_page=True)

    # One page, sized before each load (laid out as a page opened at that size): the signed-out
    # pages at both sizes, then one sign-up for the account's pages at both sizes.
    page = new_page()
    for paths in (anonymous, mine):
        if paths is mine:
            sign_up(page, live_site, name)
        for width, height in ((1280, 800), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            for path in paths:
                check(page, path, width)
    assert page.errors == []

"""Pages around the game as a player meets them: the rating on a profile, a mistyped room
address, a room code as it is shown and typed, and the end of deleting an account."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import create_online, in_each_scheme, serious_violations, shot
from tests.e2e.test_accounts import PASSWORD, sign_up

pytestmark = pytest.mark.browser

RATED_GAME = """
from django.contrib.auth import get_user_model
from accounts import services as account_services
from tests.accounts.helpers import finish, room_for
users = [get_user_model().objects.create_user(name, password=args[2]) for name in args[:2]]
finish(room_for([account_services.profile_for(user.pk).controller for user in users]))
"""


def rated_game(site: LiveSite, names: list[str]) -> None:
    """Two new accounts play one rated online game to the end, in the live site's own database."""
    site.run(RATED_GAME, *names, PASSWORD)


def test_a_first_rated_game_shows_a_provisional_rating_explained_on_hover_and_on_tap(
    live_site: LiveSite, new_page: Any
) -> None:
    names = [f"rae{uuid.uuid4().hex[:6]}", f"sol{uuid.uuid4().hex[:6]}"]
    rated_game(live_site, names)
    [[loser]] = live_site.query(
        "SELECT u.username FROM accounts_standing s JOIN auth_user u ON u.id = s.user_id "
        f"WHERE u.username IN ('{names[0]}', '{names[1]}') ORDER BY s.ordinal LIMIT 1"
    )
    desktop = new_page(1280, 800)
    desktop.goto(f"{live_site.url}/u/{loser}/")
    card = desktop.locator(".stats-grid article", has_text="Official")
    assert card.locator("[data-testid=rating]").inner_text() == "Provisional"
    assert not re.search(r"[-−]\d", card.inner_text())  # no bare "-1.8"
    assert "1 of 5 rated games" in card.inner_text()
    rating = card.locator("dt", has_text="Rating")
    tip = rating.locator(".tip-text")
    assert not tip.is_visible()
    rating.locator(".tip-btn").hover()
    tip.wait_for(state="visible")
    assert "Everyone starts at 1500" in tip.inner_text()
    for scheme in in_each_scheme(desktop):
        assert serious_violations(desktop) == [], scheme
        shot(desktop, f"{scheme}-1280-profile-provisional-rating-tip", full_page=True)
    # A phone has nothing to hover: a tap shows the explanation, a second tap or one elsewhere hides it.
    phone = new_page(390, 844, has_touch=True, is_mobile=True)
    phone.goto(f"{live_site.url}/u/{loser}/")
    card = phone.locator(".stats-grid article", has_text="Official").locator("dt", has_text="Rating")
    tip = card.locator(".tip-text")
    card.locator(".tip-btn").tap()
    tip.wait_for(state="visible")
    assert card.locator(".tip-btn").get_attribute("aria-expanded") == "true"
    box = tip.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    for scheme in in_each_scheme(phone):
        assert serious_violations(phone) == [], scheme
        shot(phone, f"{scheme}-390-profile-provisional-rating-tip", full_page=True)
    card.locator(".tip-btn").tap()
    tip.wait_for(state="hidden")
    card.locator(".tip-btn").tap()
    tip.wait_for(state="visible")
    phone.locator("h1").tap()
    tip.wait_for(state="hidden")
    # The leaderboard's explanation, beside its heading, fits the phone's screen too.
    phone.goto(f"{live_site.url}/leaderboards/official")
    phone.locator(".tip-btn").tap()
    tip = phone.locator(".tip-text")
    tip.wait_for(state="visible")
    box = tip.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    for scheme in in_each_scheme(phone):
        assert serious_violations(phone) == [], scheme
        shot(phone, f"{scheme}-390-leaderboard-rating-tip", full_page=True)
    assert desktop.errors == [] and phone.errors == []


def test_what_the_points_lost_a_game_are_is_told_on_a_tap_and_from_the_keyboard(
    live_site: LiveSite, new_page: Any
) -> None:
    """The figure's explanation is the "?" beside its words, as the rating's is, not a title on
    them: no tap or key shows a title, so a phone or a keyboard would never read it."""
    names = [f"lou{uuid.uuid4().hex[:6]}", f"max{uuid.uuid4().hex[:6]}"]
    rated_game(live_site, names)
    phone = new_page(390, 844, has_touch=True, is_mobile=True)
    phone.goto(f"{live_site.url}/u/{names[0]}/")
    card = phone.locator(".stats-grid article", has_text="Official")
    lost = card.locator("dt", has_text="Points lost a game")
    tip = lost.locator(".tip-text")
    assert not tip.is_visible()
    # Its button asks the question, as the rating's does: not the term again, read twice in a row.
    assert lost.locator(".tip-btn .sr-only").inner_text() == "What are the points lost a game?"
    lost.locator(".tip-btn").tap()
    tip.wait_for(state="visible")
    assert "against perfect play" in tip.inner_text()
    box = tip.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    for scheme in in_each_scheme(phone):
        assert serious_violations(phone) == [], scheme
        shot(phone, f"{scheme}-390-profile-points-lost-tip", full_page=True)
    desktop = new_page(1280, 800)
    desktop.goto(f"{live_site.url}/u/{names[0]}/")
    lost = desktop.locator(".stats-grid article", has_text="Official").locator("dt", has_text="Points lost a game")
    lost.locator(".tip-btn").focus()
    desktop.keyboard.press("Tab")
    desktop.keyboard.press("Shift+Tab")
    lost.locator(".tip-text").wait_for(state="visible")
    assert phone.errors == [] and desktop.errors == []


def test_a_mistyped_room_address_is_the_sites_page_with_the_way_back_to_the_room(
    live_site: LiveSite, new_page: Any
) -> None:
    page = new_page(1280, 800)
    url = create_online(page, live_site, "Ann")
    code = url.rstrip("/").rsplit("/", 1)[-1]
    shown = f"{code[:4]}-{code[4:8]}-{code[8:]}"
    for width, height in ((1280, 800), (390, 844)):
        # One room, loaded at each size.
        page.set_viewport_size({"width": width, "height": height})
        page.goto(url)
        page.wait_for_selector("#conn[data-state=connected]")
        # The room shows its code as the join box takes it.
        assert page.inner_text("h1 .code") == shown
        assert page.title().startswith(f"Room {shown}")
        for path, status, says in (("replays", 404, "This room has no page at this address"), ("join", 405, "")):
            response = page.goto(f"{url}{path}")
            assert response.status == status
            assert page.locator("main h1").count() == 1 and "Back to the room" in page.inner_text("main")
            assert says in page.inner_text("main")
            for scheme in in_each_scheme(page):
                assert serious_violations(page) == [], (path, scheme)
                shot(page, f"{scheme}-{width}-room-{status}")
        page.click("text=Back to the room")
        page.wait_for_url(url)
        # The code as shown, typed into the home page's join box, opens the room.
        page.goto(live_site.url + "/")
        page.fill("#id_code", shown.upper())
        page.click("text=Open room")
        page.wait_for_url(url)
        assert [e for e in page.errors if "the server responded with a status of 40" not in e] == []


def test_deleting_an_account_ends_on_a_page_that_says_so(live_site: LiveSite, new_page: Any) -> None:
    for width, height in ((1280, 800), (390, 844)):
        page = new_page(width, height)
        name = f"del{uuid.uuid4().hex[:6]}"
        sign_up(page, live_site, name)
        page.goto(live_site.url + "/me/settings")
        page.fill("input[name=password]", PASSWORD)
        page.click("text=Delete my account")
        page.wait_for_url(f"{live_site.url}/me/deleted")
        assert page.inner_text("main h1") == "Your account is deleted"
        assert "Former player" in page.inner_text("main")
        assert page.locator("[data-testid=nav-sign-in]").is_visible()
        for scheme in in_each_scheme(page):
            assert serious_violations(page) == [], scheme
            shot(page, f"{scheme}-{width}-account-deleted")
        assert page.errors == []

"""The pages of play at your own pace: the create form's pace, Your games, the header's count,
turning notices on and off (and bad input refused whole), the service worker and the manifest."""

from __future__ import annotations

import base64
import json
import re
import smtplib
import zlib
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from unittest import mock
from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from django.core import mail, signing
from django.db import OperationalError
from django.test import Client, override_settings
from django.utils import timezone

from games import services
from games.services import notices, subscriptions
from games.store import selectors
from games.store.models import Game, Move, NoticeSettings, PushSubscription
from tests.accounts.helpers import PASSWORD, sign_up
from tests.conftest import ManualClock
from tests.factories import (
    Table,
    action_id,
    create_room,
    own_pace_room,
    ranked_behind_for_each_reason,
    score_first_legal,
    timed_room,
)
from tests.push_stub import Subscriber
from yahtzee.prepare import new_vapid_private_key

pytestmark = pytest.mark.django_db
DAY = 86_400


@pytest.fixture
def push_settings(settings: Any) -> None:
    settings.PUSH_HOSTS = ["127.0.0.1", "fcm.googleapis.com"]
    settings.PUSH_ALLOW_HTTP = True
    settings.VAPID_PRIVATE_KEY = new_vapid_private_key()


def controller(client: Client) -> str:
    return str(client.session["controller"])


def games_page_of(controller: str) -> str:
    """Your games as the guest browser of ``controller`` reads it."""
    guest = Client()
    guest.get("/")
    session = guest.session
    session["controller"] = controller
    session.save()
    return guest.get("/games").content.decode()


# --- the create form ------------------------------------------------------------------------------


def test_the_home_form_creates_a_room_at_your_own_pace() -> None:
    client = Client()
    code = create_room(client, pace="own", move_time=str(7 * DAY), turn_timer="30")
    game = Game.objects.get(code=code)
    assert game.pace == "own" and game.turn_timer == 7 * DAY  # the live timer field is not used
    page = client.get(f"/r/{code}/").content.decode()
    assert "at your own pace, 7 days a move" in page


def test_the_home_form_keeps_a_live_room_live() -> None:
    client = Client()
    game = Game.objects.get(code=create_room(client, pace="live", move_time=str(DAY), turn_timer="60"))
    assert game.pace == "live" and game.turn_timer == 60


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"pace": "fast"}, "Choose a pace: live, or at your own pace."),
        ({"pace": "own", "move_time": str(2 * DAY)}, "Choose a time per move from the list."),
        ({"pace": "own", "move_time": "soon"}, "Choose a time per move from the list."),
        ({"pace": "own"}, "Choose a time per move: how long each player may take."),
        ({"pace": "own", "move_time": str(DAY), "mode": "local"}, "A game played on one device is live"),
    ],
)
def test_a_bad_pace_is_refused_with_its_reason_and_nothing_is_stored(fields: dict[str, str], message: str) -> None:
    data = {"name": "Ana", "ruleset": "official", "mode": "online", **fields}
    response = Client().post("/rooms/new", data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Game.objects.exists()


# --- Your games and the header's count ------------------------------------------------------------


def test_your_games_lists_this_browsers_games_and_the_header_counts_those_waiting() -> None:
    ana, ben = Client(), Client()
    mine = create_room(ana, name="Ana", pace="own", move_time=str(DAY))
    ben.post(f"/r/{mine}/join", {"name": "Ben"})
    ana.post(f"/r/{mine}/start", {"version": Game.objects.get(code=mine).version, "action_id": "s"})
    theirs = create_room(ben, name="Ben", pace="own", move_time=str(3 * DAY))
    ana.post(f"/r/{theirs}/join", {"name": "Ana"})
    ben.post(f"/r/{theirs}/start", {"version": Game.objects.get(code=theirs).version, "action_id": "s"})

    page = ana.get("/games").content.decode()
    rows = re.findall(r'<li class="game-row( yours)?" data-code="([^"]+)"', page)
    assert rows == [(" yours", mine), ("", theirs)]
    # Each code grouped as on every other page, to read out or type: abcd-efgh-jk.
    shown = re.findall(r'<span class="game-code code muted">([^<]+)</span>', page)
    assert shown == [f"{code[:4]}-{code[4:8]}-{code[8:]}" for code in (mine, theirs)]
    assert "Your move" in page and "<bdi>Ben</bdi> to move" in page and "Round 1 of 13" in page
    assert "at your own pace, 1 day a move" in page and "at your own pace, 3 days a move" in page
    assert re.search(r"23 hours 59 minutes left|1 day left", page)
    home = ana.get("/").content.decode()
    assert re.search(r'id="waiting-count"[^>]*>1<span class="sr-only"> waiting for your move', home)
    # A browser without a session: no count, an empty list.
    stranger = Client()
    assert 'id="waiting-count"' not in stranger.get("/").content.decode()
    assert 'id="no-games"' in stranger.get("/games").content.decode()


def test_your_games_says_a_rooms_pace_in_the_words_of_the_rooms_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each row says how its room is played as the room's page says it under its code (the
    ``own_pace`` filter): a lobby with no time per move is "at your own pace, no time limit"; a
    game under way with none says "No time limit" once, where the others say the time left."""
    ana = Client()
    lobby = create_room(ana, name="Ana", pace="own", move_time="0")
    playing = create_room(ana, name="Ana", pace="own", move_time="0")
    Client().post(f"/r/{playing}/join", {"name": "Ben"})
    ana.post(f"/r/{playing}/start", {"version": Game.objects.get(code=playing).version, "action_id": "s"})
    timed = create_room(ana, name="Ana", pace="own", move_time=str(DAY))

    def row(page: str, code: str) -> str:
        found = re.search(rf'<li class="game-row[^"]*" data-code="{code}"[^>]*>(.*?)</li>', page, re.S)
        assert found, (code, page)
        return re.sub(r"\s+", " ", found.group(1))

    page = ana.get("/games").content.decode()
    assert "at your own pace, no time limit" in row(page, lobby), row(page, lobby)
    assert Game.objects.get(code=playing).status == Game.Status.PLAYING
    under_way = row(page, playing)
    assert "No time limit" in under_way and "no time limit" not in under_way, under_way
    assert "at your own pace, 1 day a move" in row(page, timed)
    # The words are the room page's own, from the one place that says them.
    monkeypatch.setattr("games.templatetags.pace.own_pace_text", lambda seconds: f"paced {seconds}")
    assert f"paced {DAY}" in row(ana.get("/games").content.decode(), timed)


def _finished(me: str, *, minutes_ago: int, rival: str = "Ben") -> str:
    """A two-player game at your own pace of ``me`` (seat 0, "Ana"), ended ``minutes_ago``; its code."""
    other = services.new_controller()
    code = services.game_create(host_name="Ana", controller=me, pace="own", turn_timer=DAY).game.code
    services.game_join(code=code, name=rival, controller=other)
    services.game_start(code=code, controller=me, expected_version=None, action_id="")
    Game.objects.filter(code=code).update(
        status=Game.Status.FINISHED, waiting_on="", finished_at=timezone.now() - timedelta(minutes=minutes_ago)
    )
    return code


def test_your_games_keeps_a_guests_finished_games_newest_first_with_their_result() -> None:
    """A guest's finished game was gone from Your games, and with it the way back but the link: it
    stays, in a list of its own below the games not over, the newest first, each with its places."""
    table = own_pace_room(seconds=DAY)
    for _ in range(len(table.game.room.rules.cards) * table.game.room.rules.ruleset.turns_per_player):
        score_first_legal(table)
    game = table.game
    assert game.status == Game.Status.FINISHED
    me = table.controllers[0]
    older = _finished(me, minutes_ago=60 * 24)
    page = games_page_of(me)
    assert 'id="finished-card"' in page and 'id="no-games"' in page  # none under way
    codes = re.findall(r'class="game-row finished" data-code="(\w+)"', page)
    assert codes == [table.code, older]
    ranks = game.room.ranks()
    totals = [game.room.rules.totals(seat).grand_total for seat in (0, 1)]
    row = page[page.index(f'data-code="{table.code}"') :]
    row = row[: row.index("</li>")]
    assert f'href="/r/{table.code}/"' in row and f'href="/r/{table.code}/replay"' in row
    for seat in (0, 1):
        assert f"{ranks[seat]}. <bdi>P{seat}</bdi>" in row and f"{totals[seat]}" in row
    assert "Finished games go to your profile once you sign in." not in page


def test_your_games_finished_list_marks_the_seats_ranked_behind_as_the_game_over_list_does() -> None:
    """A seat whose player left, or the host took out, or a computer finished for its away player
    ranks after those who stayed, whatever its total: the row says why, or it reads as a mistake."""
    me = services.new_controller()
    code = services.game_create(host_name="Ana", controller=me, pace="own", turn_timer=DAY).game.code
    for name in ("Bo", "Cy", "Di"):
        services.game_join(code=code, name=name, controller=services.new_controller())
    services.game_start(code=code, controller=me, expected_version=None, action_id="")
    game = Game.objects.get(code=code)
    game.room = ranked_behind_for_each_reason(game.room)
    game.status = Game.Status.FINISHED
    game.waiting_on = ""
    game.finished_at = timezone.now()
    game.save()
    page = games_page_of(me)
    row = page[page.index(f'data-code="{code}"') :]
    row = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", row[: row.index("</li>")]))
    assert "Ana 0 points (you)" in row
    assert "Bo 0 points (taken out)" in row and "Cy 0 points (left)" in row and "Di 0 points (away)" in row


def test_your_games_finished_list_comes_in_pages_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(selectors, "MY_FINISHED_PAGE", 2)
    me = services.new_controller()
    codes = [_finished(me, minutes_ago=minutes) for minutes in (1, 2, 3)]
    browser = Client()
    browser.get("/")
    session = browser.session
    session["controller"] = me
    session.save()
    first = browser.get("/games").content.decode()
    assert re.findall(r'class="game-row finished" data-code="(\w+)"', first) == codes[:2]
    assert 'href="/games?done=2"' in first and "(3)" in first
    second = browser.get("/games?done=2").content.decode()
    assert re.findall(r'class="game-row finished" data-code="(\w+)"', second) == codes[2:]
    # The finished games' page is the games card's address too: the list read again keeps it.
    assert 'data-url="/games?done=2"' in second


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ("done=-1", 2),  # before the first page, as past the last (Paginator.get_page): the last
        ("done=0", 2),
        ("done=abc", 1),
        ("done=1e1", 1),
        ("done=%C2%B2", 1),  # a superscript two: a digit to str.isdigit(), none to int()
        ("done=%00", 1),
        ("done=99999999999999999999999999", 2),  # past the last page: the last
        ("done=1&done=2", 2),  # said twice: the last said
        ("page=-5&done=2", 2),
    ],
)
def test_your_games_finished_page_asked_for_as_no_page_is_shows_one_and_only_the_browsers_games(
    monkeypatch: pytest.MonkeyPatch, query: str, shown: int
) -> None:
    """Your games' ``?done=N`` read from an address typed or changed by hand: no number shows the
    first page, a number that is no page's the last, never an error; and only this browser's
    games, whatever page is asked for."""
    monkeypatch.setattr(selectors, "MY_FINISHED_PAGE", 2)
    me = services.new_controller()
    codes = [_finished(me, minutes_ago=minutes) for minutes in (1, 2, 3)]
    theirs = _finished(services.new_controller(), minutes_ago=4)
    browser = Client()
    browser.get("/")
    session = browser.session
    session["controller"] = me
    session.save()
    response = browser.get(f"/games?{query}")
    assert response.status_code == 200
    page = response.content.decode()
    listed = re.findall(r'class="game-row finished" data-code="(\w+)"', page)
    assert listed == (codes[:2] if shown == 1 else codes[2:])
    assert theirs not in page


def test_your_games_on_a_device_with_several_seats_in_a_game_says_whose_move_it_is() -> None:
    """Ana and Ben share a phone and each took a seat in Cy's game: "Your move" would not tell
    them which of them is to play (the notices name the seat too)."""
    phone, cy = Client(), Client()
    code = create_room(cy, name="Cy", pace="own", move_time=str(DAY))
    phone.post(f"/r/{code}/join", {"name": "Ana"})
    phone.post(f"/r/{code}/join", {"name": "Ben"})
    cy.post(f"/r/{code}/start", {"version": Game.objects.get(code=code).version, "action_id": "s"})
    table = Table(code=code, controllers=[controller(cy), controller(phone), controller(phone)])
    score_first_legal(table)  # Cy's move; Ana's turn now

    def tag(page: str) -> str:
        found = re.search(r'<li class="game-row yours"[^>]*>.*?<span class="tag turn">(.*?)</span>', page, re.S)
        assert found is not None, page
        return found.group(1)

    assert tag(phone.get("/games").content.decode()) == "<bdi>Ana</bdi> to move"
    score_first_legal(table)
    assert tag(phone.get("/games").content.decode()) == "<bdi>Ben</bdi> to move"
    # One seat of the game on a device: its move is "Your move".
    score_first_legal(table)
    assert tag(cy.get("/games").content.decode()) == "Your move"


def test_your_games_tells_the_host_of_a_lobby_that_it_waits_for_them_to_start_it() -> None:
    """Ben joined Cy's game at her own pace: her Your games says the game waits for her to start
    it, his that it waits to start (his to do nothing about)."""
    ben, cy = Client(), Client()
    code = create_room(cy, name="Cy", pace="own", move_time=str(DAY))
    ben.post(f"/r/{code}/join", {"name": "Ben"})

    def tag(page: str) -> str:
        found = re.search(r'<li class="game-row[^"]*"[^>]*>.*?<span class="tag[^"]*">(.*?)</span>', page, re.S)
        assert found is not None, page
        return found.group(1)

    assert tag(cy.get("/games").content.decode()) == "Waiting for you to start it"
    assert '<span class="tag turn">Waiting for you to start it' in cy.get("/games").content.decode()
    assert tag(ben.get("/games").content.decode()) == "Waiting to start"
    cy.post(f"/r/{code}/start", {"version": Game.objects.get(code=code).version, "action_id": "s"})
    assert "Waiting for you to start it" not in cy.get("/games").content.decode()


def test_a_rematch_its_player_has_not_opened_is_offered_in_your_games_not_counted_as_their_move() -> None:
    """Ann asks for the rematch of their game and moves in it: Ben is seated there, but never said he
    would play it (``Player.follows``), and is told nothing of its turns. Your games lists it as a
    rematch offered to open, not as "Your move", not among the games waiting for his move first nor in
    the header's count; once he opens its room it is his move like any other."""
    table = own_pace_room(seconds=DAY)
    while table.game.status == Game.Status.PLAYING:
        score_first_legal(table)
    ann, ben = table.controllers
    code = services.game_rematch(code=table.code, controller=ann).code
    services.game_start(code=code, controller=ann, expected_version=None, action_id=action_id())
    score_first_legal(Table(code=code, controllers=[ann, ben]))  # Ann's move: Ben's turn
    assert Game.objects.get(code=code).waiting_on == ben
    # A game of Ben's own that waits for his move, its time running out later than the rematch's.
    mine = services.game_create(host_name="Ben", controller=ben, pace="own", turn_timer=3 * DAY).game.code
    services.game_join(code=mine, name="Cy", controller=services.new_controller())
    services.game_start(code=mine, controller=ben, expected_version=None, action_id=action_id())
    rows = re.compile(r'<li class="game-row( yours)?" data-code="([^"]+)"')
    page = games_page_of(ben)
    assert rows.findall(page) == [(" yours", mine), ("", code)]
    row = page.split(f'data-code="{code}"')[1].split("</li>")[0]
    assert "Rematch: open it to play" in row and "Your move" not in row
    assert re.search(r'id="waiting-count"[^>]*>1<', page) and selectors.waiting_count(ben) == 1
    # Ben opens the rematch's room: he follows it, and it is his move, the sooner one to run out.
    assert browser_of(ben).get(f"/r/{code}/").status_code == 200
    page = games_page_of(ben)
    assert rows.findall(page) == [(" yours", code), (" yours", mine)]
    assert "Rematch: open it to play" not in page
    assert re.search(r'id="waiting-count"[^>]*>2<', page)


def browser_of(controller: str) -> Client:
    client = Client()
    session = client.session
    session["controller"] = controller
    session.save()
    return client


def own_pace_games(me: str, mine: int, theirs: int) -> tuple[list[str], list[str]]:
    """``mine`` games waiting for ``me``'s move, each a day more to go than the one before, and
    ``theirs`` waiting for Ben's, each moved in an hour before the one before: their codes, in the
    order Your games lists them (ours by the time left, theirs the latest moved in first)."""
    ben = services.new_controller()
    now = timezone.now()
    waiting, others = [], []
    for i in range(mine + theirs):
        host, guest = (me, ben) if i < mine else (ben, me)
        code = services.game_create(host_name="Ana" if host == me else "Ben", controller=host, pace="own",
                                    turn_timer=7 * DAY).game.code  # fmt: skip
        services.game_join(code=code, name="Ben" if host == me else "Ana", controller=guest)
        services.game_start(code=code, controller=host, expected_version=None, action_id=action_id())
        if i < mine:
            # Set in another order than made in: the list goes by the time left, not by the row.
            Game.objects.filter(code=code).update(turn_deadline=now + timedelta(days=1 + (i * 7) % mine))
            waiting.append((1 + (i * 7) % mine, code))
        else:
            Move.objects.filter(game__code=code).update(created_at=now - timedelta(hours=i))
            others.append(code)
    return [code for _, code in sorted(waiting)], others


def listed(page: str) -> list[str]:
    return re.findall(r'<li class="game-row(?: yours)?" data-code="([^"]+)"', page)


def test_your_games_comes_in_pages_in_the_order_of_the_whole_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """A player with hundreds of games at their own pace got them on one page. The list comes a
    page at a time, in the same order across the pages (the games waiting for their move first,
    the time soonest up first), with links to the pages before and after: plain links, with or
    without script."""
    monkeypatch.setattr(selectors, "MY_GAMES_PAGE", 4)
    me = services.new_controller()
    waiting, others = own_pace_games(me, mine=6, theirs=4)
    browser = browser_of(me)
    first = browser.get("/games").content.decode()
    assert listed(first) == waiting[:4]
    assert "(10)" in first  # every game not over, not only this page's
    assert re.search(r'<a href="/games\?page=2" rel="next">Next page</a>', first)
    assert 'rel="prev"' not in first and "Page 1 of 3" in first
    second = browser.get("/games?page=2").content.decode()
    assert listed(second) == [*waiting[4:], *others[:2]]
    assert re.search(r'<a href="/games\?page=1" rel="prev">Previous page</a>', second)
    assert re.search(r'<a href="/games\?page=3" rel="next">Next page</a>', second)
    third = browser.get("/games?page=3").content.decode()
    assert listed(third) == others[2:] and 'rel="next"' not in third
    # A page past the end (games ended since the link was made) is the last one; a page that is
    # no number, the first.
    assert listed(browser.get("/games?page=9").content.decode()) == others[2:]
    assert listed(browser.get("/games?page=two").content.decode()) == waiting[:4]
    # One page: no pager.
    monkeypatch.setattr(selectors, "MY_GAMES_PAGE", 20)
    single = browser.get("/games").content.decode()
    assert listed(single) == [*waiting, *others] and 'class="pager"' not in single


def test_your_games_drawn_for_a_refused_e_mail_form_links_to_its_own_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page drawn for the turn e-mails' form refused is at the form's address: its links to
    the list's other pages lead to Your games' pages, not to the form's address (a GET the form
    refuses), and so do those of the list its script reads again there."""
    monkeypatch.setattr(selectors, "MY_GAMES_PAGE", 4)
    me = services.new_controller()
    own_pace_games(me, mine=6, theirs=0)
    browser = Client()
    browser.force_login(get_user_model().objects.create_user("ana", password="pw"))
    session = browser.session
    session["controller"] = me
    session.save()
    refused = browser.post("/notices/email", {"address": "not an address", "on": "on"})
    assert refused.status_code == 400
    (next_page,) = re.findall(r'<a href="([^"]+)" rel="next">', refused.content.decode())
    assert next_page == "/games?page=2"
    assert listed(browser.get(next_page).content.decode()) != []
    second = browser.get("/games?page=2").content.decode()
    assert re.findall(r'<a href="([^"]+)" rel="prev">', second) == ["/games?page=1"]


def test_the_e_mail_form_on_a_page_of_your_games_goes_back_to_that_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """The turn e-mails' form sent from the list's second page: refused, the page drawn for it
    lists the second page's games again, not the first's; saved, it goes back to the second page."""
    monkeypatch.setattr(selectors, "MY_GAMES_PAGE", 4)
    me = services.new_controller()
    waiting, _ = own_pace_games(me, mine=6, theirs=0)
    browser = Client()
    browser.force_login(get_user_model().objects.create_user("ana", password="pw"))
    session = browser.session
    session["controller"] = me
    session.save()
    second = browser.get("/games?page=2").content.decode()
    (action,) = re.findall(r'<form method="post" action="([^"]+)"[^>]* id="email-form"', second)
    assert action == "/notices/email?page=2"
    refused = browser.post(action, {"address": "not an address", "on": "on"})
    assert refused.status_code == 400
    page = refused.content.decode()
    assert listed(page) == waiting[4:] and "Page 2 of 2" in page
    assert 'id="address-error"' in page
    assert re.findall(r'<form method="post" action="([^"]+)"[^>]* id="email-form"', page) == [action]
    saved = browser.post(action, {"address": "", "on": ""})
    assert saved.status_code == 302 and saved["Location"] == "/games?page=2"


def test_the_e_mail_form_on_a_page_of_finished_games_goes_back_to_that_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """The e-mails' form sent from the finished games' second page (and the list's second page):
    refused, the page drawn for it lists those pages' games again; saved, it goes back to them."""
    monkeypatch.setattr(selectors, "MY_GAMES_PAGE", 4)
    monkeypatch.setattr(selectors, "MY_FINISHED_PAGE", 2)
    me = services.new_controller()
    waiting, _ = own_pace_games(me, mine=6, theirs=0)
    finished = [_finished(me, minutes_ago=minutes) for minutes in (1, 2, 3)]
    browser = Client()
    browser.force_login(get_user_model().objects.create_user("ana", password="pw"))
    session = browser.session
    session["controller"] = me
    session.save()
    for address, back in (("/games?done=2", "/games?done=2"), ("/games?page=2&done=2", "/games?page=2&done=2")):
        shown = browser.get(address).content.decode()
        (action,) = re.findall(r'<form method="post" action="([^"]+)"[^>]* id="email-form"', shown)
        action = action.replace("&amp;", "&")
        refused = browser.post(action, {"address": "not an address", "on": "on"})
        assert refused.status_code == 400
        page = refused.content.decode()
        assert re.findall(r'class="game-row finished" data-code="(\w+)"', page) == finished[2:], address
        assert listed(page) == (waiting[4:] if "page=2" in address else waiting[:4])
        saved = browser.post(action, {"address": "", "on": ""})
        assert saved.status_code == 302 and saved["Location"] == back


@pytest.mark.parametrize("page", ["²", "١٢x", "-2", "", "99999999999999999999999"])
@pytest.mark.parametrize("signed_in", [True, False])
def test_the_e_mail_form_sent_with_a_page_that_is_no_number_goes_back_to_your_games(page: str, signed_in: bool) -> None:
    """A "digit" Python's int() does not read (a superscript two) was a server error."""
    browser = Client()
    if signed_in:
        browser.force_login(get_user_model().objects.create_user("ana", password="pw"))
    saved = browser.post("/notices/email", {"address": "", "on": ""}, QUERY_STRING=urlencode({"page": page}))
    assert saved.status_code == 302 and saved["Location"] in ("/games", "/games?page=99999999999999999999999")
    assert browser.get(saved["Location"]).status_code == 200
    assert not NoticeSettings.objects.filter(email=True).exists()


def test_a_page_of_your_games_reads_only_its_own_games_rooms(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each row is worked out from its room (the snapshot decoded, the rules read): only the rows
    of the page shown are, whatever the number of games."""
    monkeypatch.setattr(selectors, "MY_GAMES_PAGE", 3)
    me = services.new_controller()
    own_pace_games(me, mine=5, theirs=5)
    read: list[str] = []
    room = Game.room

    def counted(game: Game) -> Any:
        read.append(game.code)
        return room.fget(game)  # type: ignore[attr-defined]

    monkeypatch.setattr(Game, "room", property(counted, room.fset))  # type: ignore[attr-defined]
    page = browser_of(me).get("/games?page=2").content.decode()
    assert len(listed(page)) == 3
    assert set(read) == set(listed(page))


def test_your_games_sets_each_name_apart_from_the_words_beside_it() -> None:
    """A right-to-left name before " to move", or two in a row in the list of players, would take
    the words and commas beside it into its own run: each is a <bdi>."""
    ana, sara = Client(), Client()
    code = create_room(ana, name="Ana", pace="own", move_time=str(DAY))
    sara.post(f"/r/{code}/join", {"name": "שרה"})
    sara_too = Client()
    sara_too.post(f"/r/{code}/join", {"name": "אבי"})
    ana.post(f"/r/{code}/start", {"version": Game.objects.get(code=code).version, "action_id": "s"})
    page = sara.get("/games").content.decode()
    assert "<bdi>Ana</bdi> to move" in page
    players = re.search(r'<span class="game-players">(.*?)</span>\s*<span class="game-code', page, re.S)
    assert players is not None
    assert re.findall(r"<bdi>([^<]*)</bdi>", players.group(1)) == ["Ana", "שרה", "אבי"]


@pytest.mark.parametrize("key", ["replace-with-the-key-from-var/vapid_private_key", "A" * 43])
def test_your_games_answers_with_a_vapid_key_that_cannot_sign_and_offers_no_notifications(
    settings: Any, caplog: pytest.LogCaptureFixture, key: str
) -> None:
    settings.VAPID_PRIVATE_KEY = key
    notices._vapid.cache_clear()
    with caplog.at_level("ERROR", logger="games.services.notices"):
        pages = [Client(raise_request_exception=False).get("/games") for _ in range(2)]
    assert [page.status_code for page in pages] == [200, 200]
    assert 'data-key=""' in pages[0].content.decode()  # the page says notifications are not set up here
    assert [r.getMessage() for r in caplog.records if "VAPID_PRIVATE_KEY" in r.getMessage()] == [
        f"VAPID_PRIVATE_KEY cannot sign pushes ({notices.vapid_key_fault(key)}): pushes are off until it is replaced"
    ]  # said once a process, not at every page


def test_your_games_says_notifications_need_javascript_to_a_browser_without_it() -> None:
    """notify.js replaces "Checking…" with what this device can do: a browser without script is
    told why there is nothing to turn on, in the notifications' own box."""
    page = Client().get("/games").content.decode()
    box = re.search(r'<div class="notify-way" id="push-box".*?</div>\s*</div>', page, re.S)
    assert box is not None
    assert '<noscript><p class="small">Notifications need JavaScript' in box.group(0)


def test_a_move_whose_time_ran_out_is_not_listed_as_having_no_limit() -> None:
    """The deadline has passed and the server has not played the move yet (its scheduler is a
    sweep away, down, or the site just came back): Your games says the time is up, not "no limit
    left", the words of a game with no time per move."""
    ana, ben = Client(), Client()
    code = create_room(ana, name="Ana", pace="own", move_time=str(DAY))
    ben.post(f"/r/{code}/join", {"name": "Ben"})
    ana.post(f"/r/{code}/start", {"version": Game.objects.get(code=code).version, "action_id": "s"})
    Game.objects.filter(code=code).update(turn_deadline=timezone.now() - timedelta(seconds=2))
    page = ana.get("/games").content.decode()
    assert "Your move" in page
    assert "no limit" not in page
    assert "Time is up" in page


def test_your_games_says_the_seconds_left_of_a_live_turn_in_its_last_minute() -> None:
    """A live 30-second turn with 5 s left: "5 seconds left", not "1 minute left"."""
    table = timed_room(players=2, seconds=30)
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() + timedelta(seconds=5))
    client = Client()
    session = client.session
    session["controller"] = table.controllers[0]
    session.save()
    when = re.search(r'<span class="game-when">(.*?)</span>', client.get("/games").content.decode(), re.S)
    assert when is not None and re.fullmatch(r"[45] seconds left", when.group(1).strip()), when


def test_the_header_count_is_one_query() -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = Client()
    create_room(client, pace="own", move_time=str(DAY))
    client.get("/")  # the session row is read by the page anyway
    with CaptureQueriesContext(connection) as queries:
        client.get("/")
    counts = [q["sql"] for q in queries if "waiting_on" in q["sql"]]
    assert len(counts) == 1 and "COUNT(" in counts[0].upper()


# --- turning notices on and off -------------------------------------------------------------------


@pytest.mark.usefixtures("push_settings")
def test_a_subscription_a_sign_out_ended_is_not_taken_again_from_the_browser_that_kept_it() -> None:
    """A sign-out deletes the account's subscription, but the browser keeps its own, which
    Your games posts again at each visit (``heals``): for the next person at the browser,
    signed out or signed in as someone else, it is refused and nothing is stored. The person
    it was made for has it taken again when the server lost it, and anyone's press is taken."""
    client = Client()
    sign_up(client, "ana")
    sub = Subscriber("http://127.0.0.1:9/push/ana").subscription
    healing = json.dumps({**sub, "heals": sub["endpoint"]})
    assert client.post("/notices/push", json.dumps(sub), content_type="application/json").status_code == 201
    PushSubscription.objects.all().delete()  # the server lost it: her page's post heals it
    assert client.post("/notices/push", healing, content_type="application/json").status_code == 201
    assert PushSubscription.objects.get().user.username == "ana"
    client.post("/accounts/logout/")
    assert not PushSubscription.objects.exists()
    for signed_in in (False, True):
        if signed_in:
            sign_up(client, "ben")
        refused = client.post("/notices/push", healing, content_type="application/json")
        assert refused.status_code == 400 and refused.json()["error"] == "subscription_ended"
        assert refused.json()["message"]
        assert not PushSubscription.objects.exists()
    # Ben's own press (no ``heals``) is his choice.
    assert client.post("/notices/push", json.dumps(sub), content_type="application/json").status_code == 201
    assert PushSubscription.objects.get().user.username == "ben"


@pytest.mark.usefixtures("push_settings")
def test_a_subscription_stored_for_the_browsers_seats_is_taken_again_without_the_sessions_list() -> None:
    """A session from before it kept the endpoints it posted: its own stored row is still its own."""
    client = Client()
    create_room(client)
    sub = Subscriber("http://127.0.0.1:9/push/1").subscription
    assert client.post("/notices/push", json.dumps(sub), content_type="application/json").status_code == 201
    session = client.session
    del session[services.SESSION_ENDPOINTS]
    session.save()
    healing = json.dumps({**sub, "heals": sub["endpoint"]})
    assert client.post("/notices/push", healing, content_type="application/json").status_code == 201
    # Another browser's visit cannot take it for its own seats.
    other = Client()
    create_room(other)
    refused = other.post("/notices/push", healing, content_type="application/json")
    assert refused.status_code == 400 and refused.json()["error"] == "subscription_ended"
    assert PushSubscription.objects.get().controller == controller(client)


@pytest.mark.usefixtures("push_settings")
def test_a_subscription_is_stored_for_this_browsers_seats_and_removed() -> None:
    client = Client()
    create_room(client)
    sub = Subscriber("http://127.0.0.1:9/push/1").subscription
    response = client.post("/notices/push", json.dumps(sub), content_type="application/json")
    assert response.status_code == 201
    row = PushSubscription.objects.get()
    assert row.controller == controller(client) and row.endpoint == sub["endpoint"]
    # Posting it again (each visit does) keeps one row.
    client.post("/notices/push", json.dumps(sub), content_type="application/json")
    assert PushSubscription.objects.count() == 1
    # Another browser cannot remove it; this one can.
    other = Client()
    create_room(other)
    refused = other.post(
        "/notices/push/remove", json.dumps({"endpoint": sub["endpoint"]}), content_type="application/json"
    )
    assert refused.json()["removed"] is False and PushSubscription.objects.exists()
    answer = client.post(
        "/notices/push/remove", json.dumps({"endpoint": sub["endpoint"]}), content_type="application/json"
    )
    assert answer.json() == {"ok": True, "removed": True} and not PushSubscription.objects.exists()


def post_push(client: Client, body: Any) -> Any:
    return client.post("/notices/push", json.dumps(body), content_type="application/json")


HELD = "That notification subscription is another browser's: it cannot be moved to this one."


def anns_subscription() -> tuple[dict[str, Any], dict[str, Any]]:
    """Ann's browser's push subscription, stored for it: its body, and the same endpoint with
    another browser's keys."""
    ann = Client()
    create_room(ann)
    sub = Subscriber("http://127.0.0.1:9/push/ann").subscription
    assert post_push(ann, sub).status_code == 201
    return sub, {**sub, "keys": Subscriber("http://127.0.0.1:9/push/other").subscription["keys"]}


@pytest.mark.usefixtures("push_settings")
def test_a_stored_endpoint_posted_by_another_browser_with_its_own_keys_is_refused_and_stays_its_browsers(
    german: Callable[[str], str],
) -> None:
    """An endpoint names one browser's subscription, and its auth secret is known to that browser and
    this site alone. Another browser that learned the endpoint (anonymous, or signed in to another
    account) and posts it with its own keys is refused, in the reader's language, and the row stays
    its browser's: taken, it would have that browser's turns told to nobody, and the other's pushed
    to a device that cannot read them."""
    sub, theirs = anns_subscription()
    before = PushSubscription.objects.values().get()
    anonymous, signed_in = Client(), Client()
    create_room(anonymous)
    sign_up(signed_in, "ben")
    for intruder in (anonymous, signed_in):
        refused = post_push(intruder, theirs)
        assert refused.status_code == 400 and refused.json() == {
            "error": "subscription_held",
            "message": HELD,
        }
        assert PushSubscription.objects.values().get() == before
    german_reader = Client(HTTP_ACCEPT_LANGUAGE="de")
    create_room(german_reader)
    refused = german_reader.post("/notices/push", json.dumps(theirs), content_type="application/json", **FETCH)
    assert refused.json()["message"] == german(HELD)
    assert PushSubscription.objects.values().get() == before


@pytest.mark.usefixtures("push_settings")
def test_a_visit_posting_again_a_subscription_another_browser_holds_is_told_it_is_held_not_ended(
    german: Callable[[str], str],
) -> None:
    """A browser whose subscription was refused as another browser's keeps it, and its page posts it
    again at the next visit (``heals``). It is still another browser's: refused as held, in the
    reader's language, so that the page says so and leaves the browser's subscription alone, not as
    ended by a sign-out (whose page drops the browser's subscription)."""
    sub, theirs = anns_subscription()
    before = PushSubscription.objects.values().get()
    for ben in (Client(), Client(HTTP_ACCEPT_LANGUAGE="de")):
        create_room(ben)
        assert post_push(ben, theirs).json()["error"] == "subscription_held"
        refused = post_push(ben, {**theirs, "heals": sub["endpoint"]})
        language = "de" if "HTTP_ACCEPT_LANGUAGE" in ben.defaults else "en"
        assert refused.status_code == 400 and refused.json() == {
            "error": "subscription_held",
            "message": german(HELD) if language == "de" else HELD,
        }
        assert PushSubscription.objects.values().get() == before


@pytest.mark.usefixtures("push_settings")
def test_a_stored_endpoint_moves_with_its_own_secret_or_to_its_own_account_or_browser_with_new_keys() -> None:
    """Who a subscription is stored for posts it again: the same browser in a new session (cookies
    cleared: it holds the same secret), the same browser with new keys, the same account from a
    later session with new keys (a push service may keep an endpoint for a subscription made anew)."""
    sub, _ = anns_subscription()
    first = PushSubscription.objects.get().pk
    # Ann's browser, its cookies cleared: a new session posts the subscription the browser holds.
    again = Client()
    create_room(again)
    assert post_push(again, sub).status_code == 201
    row = PushSubscription.objects.get()
    assert row.pk == first and row.controller == controller(again)
    # The same browser (its seats), new keys.
    renewed = {**sub, "keys": Subscriber("http://127.0.0.1:9/push/new").subscription["keys"]}
    assert post_push(again, renewed).status_code == 201
    assert PushSubscription.objects.get().auth == renewed["keys"]["auth"]
    # An account's later session (the first one expired), new keys again.
    cleo = Client()
    sign_up(cleo, "cleo")
    hers = Subscriber("http://127.0.0.1:9/push/cleo").subscription
    assert post_push(cleo, hers).status_code == 201
    later = Client()
    assert later.post("/accounts/login/", {"login": "cleo", "password": PASSWORD}).status_code == 302
    fresh = {**hers, "keys": Subscriber("http://127.0.0.1:9/push/fresh").subscription["keys"]}
    assert post_push(later, fresh).status_code == 201
    row = PushSubscription.objects.get(endpoint=hers["endpoint"])
    assert row.user is not None and row.user.username == "cleo" and row.auth == fresh["keys"]["auth"]


def _spellings(key: str) -> list[str]:
    """A base64url key (as a browser's ``toJSON()`` gives it) in each spelling of it a client may send."""
    raw = base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))
    return [
        base64.urlsafe_b64encode(raw).decode(),  # padded
        base64.b64encode(raw).decode(),  # standard base64, padded
        base64.b64encode(raw).decode().rstrip("="),  # standard base64, unpadded
    ]


@pytest.mark.usefixtures("push_settings")
def test_a_key_in_another_spelling_is_the_same_key_and_is_stored_as_base64url() -> None:
    """Keys are stored as a browser's ``toJSON()`` spells them, base64url without padding, however a
    client spelt them: the same secret posted in another spelling is the same browser's, and its
    renewal by the secret in any spelling is taken."""
    ann = Client()
    create_room(ann)
    # Keys with letters that differ between the two alphabets.
    while True:
        sub = Subscriber("http://127.0.0.1:9/push/ann").subscription
        if set("-_") & set(sub["keys"]["auth"]) and set("-_") & set(sub["keys"]["p256dh"]):
            break
    keys = sub["keys"]
    for p256dh, auth in zip(_spellings(keys["p256dh"]), _spellings(keys["auth"]), strict=True):
        browser = Client()
        create_room(browser)
        assert post_push(browser, {**sub, "keys": {"p256dh": p256dh, "auth": auth}}).status_code == 201
        row = PushSubscription.objects.get()
        assert (row.p256dh, row.auth, row.controller) == (keys["p256dh"], keys["auth"], controller(browser))
    new = Subscriber("http://127.0.0.1:9/push/new").subscription
    old = {**sub, "keys": {**keys, "auth": _spellings(keys["auth"])[1]}}
    answer = Client().post("/notices/push/renew", renewal(old, new), content_type="application/json", **FETCH)
    assert answer.status_code == 200
    assert PushSubscription.objects.get().endpoint == new["endpoint"]


@pytest.mark.usefixtures("push_settings")
@pytest.mark.parametrize(
    ("auth", "said"),
    [
        ("AAAAAAAAAAAAAAAAAAAAA-+", "mixes base64url's letters with standard base64's"),
        ("AAAAAAAAAAAAAAAAAAAAAA=", "is not base64url: its length or padding is wrong"),
        ("AAAAAAAAAAAAAAAAAAAAAA===", "is not base64url"),
        ("AAAAAAAAAAAAAAAAAAAAA", "is not base64url: its length or padding is wrong"),
        ("AAAAAAAAAAAAAAAAAAAA=A", "is not base64url"),
    ],
    ids=["two alphabets", "short padding", "too much padding", "a length no base64 has", "padding inside"],
)
def test_a_malformed_key_is_refused_with_what_is_wrong_with_it(auth: str, said: str) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    create_room(client)
    sub = Subscriber("http://127.0.0.1:9/push/1").subscription
    refused = post_push(client, {**sub, "keys": {**sub["keys"], "auth": auth}})
    assert refused.status_code == 400 and refused.json()["error"] == services.BAD_SUBSCRIPTION
    assert refused.json()["message"].startswith(f"The subscription's auth key {said}"), refused.json()
    assert not PushSubscription.objects.exists()


@pytest.mark.usefixtures("push_settings")
def test_a_browser_keeps_at_most_ten_subscriptions_the_newest_and_changes_them_at_a_bounded_rate(
    settings: Any,
) -> None:
    client = Client()
    create_room(client)
    keys = Subscriber("http://127.0.0.1:9/push/1").subscription["keys"]

    def subscribe(n: int) -> int:
        body = json.dumps({"endpoint": f"https://fcm.googleapis.com/fcm/send/device-{n}", "keys": keys})
        return client.post("/notices/push", body, content_type="application/json").status_code

    assert [subscribe(n) for n in range(12)] == [201] * 12
    kept = sorted(PushSubscription.objects.values_list("endpoint", flat=True))
    assert kept == sorted(f"https://fcm.googleapis.com/fcm/send/device-{n}" for n in range(2, 12))
    # The first one posted again (a visit of that browser) is kept, in place of the oldest other.
    assert subscribe(0) == 201
    assert PushSubscription.objects.count() == 10
    assert PushSubscription.objects.filter(endpoint__endswith="device-0").exists()
    assert not PushSubscription.objects.filter(endpoint__endswith="device-2").exists()
    # Past RATE_LIMIT_NOTICES (20 a minute), a 429 that says why, and nothing stored.
    statuses = [subscribe(n) for n in range(100, 108)]
    assert statuses == [201] * 7 + [429], statuses
    refused = client.post("/notices/email", {"address": "x@example.org", "on": "on"})
    assert refused.status_code == 429
    assert not PushSubscription.objects.filter(endpoint__endswith="device-107").exists()


def _bad_subscriptions() -> list[tuple[str, Any]]:
    good = Subscriber("http://127.0.0.1:9/push/1").subscription
    keys = good["keys"]
    return [
        ("not json", b"{endpoint"),
        ("not an object", [good]),
        ("no endpoint", {"keys": keys}),
        ("endpoint not text", {"endpoint": 5, "keys": keys}),
        ("a host not a push service", {**good, "endpoint": "https://evil.example.com/push"}),
        ("an internal address", {**good, "endpoint": "http://10.0.0.1/admin"}),
        ("no keys", {"endpoint": good["endpoint"]}),
        ("keys not an object", {**good, "keys": "x"}),
        ("p256dh too short", {**good, "keys": {**keys, "p256dh": keys["p256dh"][:20]}}),
        ("p256dh not base64", {**good, "keys": {**keys, "p256dh": "!" * 87}}),
        ("auth missing", {**good, "keys": {"p256dh": keys["p256dh"]}}),
        ("auth wrong size", {**good, "keys": {**keys, "auth": keys["p256dh"]}}),
        # Letters outside base64url are skipped by a lenient decoder: the key decodes to the right
        # size, and the text stored (longer than its column) is not a key a push service reads.
        ("auth padded with other letters", {**good, "keys": {**keys, "auth": keys["auth"] + "!" * 148}}),
        ("p256dh with other letters inside", {**good, "keys": {**keys, "p256dh": "." * 8 + keys["p256dh"]}}),
        ("endpoint too long", {**good, "endpoint": "http://127.0.0.1/" + "a" * 1000}),
        # A name under an allowed host to one URL parser, 127.0.0.1 to the one that sends.
        ("a host read two ways", {**good, "endpoint": "https://127.0.0.1\\.fcm.googleapis.com/x"}),
        ("nested too deep", b"[" * 3000),
        ("a body too large", {**good, "padding": "x" * 5000}),
    ]


@pytest.mark.usefixtures("push_settings")
@pytest.mark.parametrize(("why", "body"), _bad_subscriptions(), ids=[why for why, _ in _bad_subscriptions()])
def test_a_bad_subscription_is_refused_with_its_reason_and_nothing_is_stored(why: str, body: Any) -> None:
    client = Client()
    create_room(client)
    data = body if isinstance(body, bytes) else json.dumps(body)
    response = client.post("/notices/push", data, content_type="application/json")
    assert response.status_code == 400, why
    answer = response.json()
    assert answer["error"] == services.BAD_SUBSCRIPTION and answer["message"]
    assert not PushSubscription.objects.exists()


@pytest.mark.usefixtures("push_settings")
@pytest.mark.parametrize("endpoint", ["a\\u0000b", "\\ud800", "x" * 1001])
def test_removing_a_subscription_by_an_endpoint_no_subscription_can_have_is_a_400(endpoint: str) -> None:
    client = Client(raise_request_exception=False)
    create_room(client)
    body = (
        '{"endpoint": "' + endpoint + '"}'
    )  # as JSON text: "\\u0000" and "\\ud800" escaped, as a browser may send them
    response = client.post("/notices/push/remove", body, content_type="application/json")
    assert response.status_code == 400 and response.json()["error"] == services.BAD_SUBSCRIPTION


@pytest.mark.usefixtures("push_settings")
@pytest.mark.parametrize("endpoint", ["a\\u0000b", "\\ud800", "x" * 1001])
def test_a_subscription_healed_or_renewed_by_an_endpoint_no_subscription_can_have_is_a_400(endpoint: str) -> None:
    # PostgreSQL cannot hold a NUL even in a query's parameter: looked up as it came, the
    # endpoint failed the request (a 500) where any other unknown one is a clear refusal.
    client = Client(raise_request_exception=False)
    create_room(client)
    good = Subscriber("http://127.0.0.1:9/push/1").subscription
    heals = json.dumps(good)[:-1] + ', "heals": "' + endpoint + '"}'  # as JSON text, escapes as sent
    response = client.post("/notices/push", heals, content_type="application/json")
    assert response.status_code == 400 and response.json()["error"] == services.BAD_SUBSCRIPTION
    old = '{"endpoint": "' + endpoint + '", "keys": ' + json.dumps(good["keys"]) + "}"
    renewal = '{"old": ' + old + ', "new": ' + json.dumps(good) + "}"
    response = client.post("/notices/push/renew", renewal, content_type="application/json")
    assert response.status_code == 400 and response.json()["error"] == services.BAD_SUBSCRIPTION
    assert not PushSubscription.objects.exists()


def test_subscribing_needs_a_post() -> None:
    assert Client().get("/notices/push").status_code == 405


# What fetch() sends unless told otherwise: /games's script asks for JSON (static/js/notify.js), and
# these addresses answer it whatever a caller accepts.
FETCH = {"HTTP_ACCEPT": "*/*"}


def subscription() -> str:
    return json.dumps(Subscriber("http://127.0.0.1:9/push/1").subscription)


@pytest.mark.usefixtures("push_settings")
def test_a_subscription_refused_for_its_csrf_token_is_answered_as_json_with_a_code() -> None:
    """A /games tab whose CSRF token went stale (the browser signed in or out in another tab, which
    rotates the token) turns notifications on: its script shows the answer's message."""
    player = Client()
    create_room(player)  # a session with a controller
    browser = Client(enforce_csrf_checks=True)
    browser.cookies["sessionid"] = player.cookies["sessionid"].value
    browser.get("/games")  # the page that posts, and its CSRF cookie
    response = browser.post(
        "/notices/push", subscription(), content_type="application/json", HTTP_X_CSRFTOKEN="x" * 64, **FETCH
    )
    assert response.status_code == 403
    assert response["Content-Type"].startswith("application/json"), response.content[:120]
    assert response.json()["error"] == "csrf_failed" and response.json()["message"]
    assert not PushSubscription.objects.exists()


@pytest.mark.usefixtures("push_settings")
def test_a_subscription_over_the_rate_limit_is_answered_as_json_to_the_pages_fetch(settings: Any) -> None:
    settings.RATE_LIMIT_NOTICES = "1/60"
    browser = Client()
    create_room(browser)
    first = browser.post("/notices/push", subscription(), content_type="application/json", **FETCH)
    assert first.status_code == 201
    refused = browser.post("/notices/push", subscription(), content_type="application/json", **FETCH)
    assert refused.status_code == 429
    assert refused["Content-Type"].startswith("application/json"), refused.content[:120]
    assert refused.json()["error"] == "rate_limited" and refused["Retry-After"]


@pytest.mark.usefixtures("push_settings", "limit_clock")
def test_an_e_mail_form_refused_on_the_page_does_not_use_up_the_notices_limit(settings: Any) -> None:
    """Refused, the e-mail form says why on Your games (a redirect, not a 4xx): it changed
    nothing, so it leaves the browser its notices."""
    settings.RATE_LIMIT_NOTICES = "1/60"
    browser = Client()
    create_room(browser)
    for _ in range(2):  # not signed in: nowhere to e-mail
        assert browser.post("/notices/email", {"address": "x@example.org", "on": "on"}).status_code == 302
    first = browser.post("/notices/push", subscription(), content_type="application/json", **FETCH)
    assert first.status_code == 201


@pytest.mark.usefixtures("push_settings")
def test_a_subscription_the_database_failed_on_is_answered_as_json(monkeypatch: pytest.MonkeyPatch) -> None:
    browser = Client()
    create_room(browser)

    def away(**kwargs: Any) -> None:
        raise OperationalError("gone")

    monkeypatch.setattr(services, "push_subscribe", away)
    response = browser.post("/notices/push", subscription(), content_type="application/json", **FETCH)
    assert response.status_code == 503
    assert response.json()["error"] == "outcome_unknown"


@pytest.mark.usefixtures("push_settings")
@pytest.mark.parametrize(
    ("url", "body", "english"),
    [
        (
            "/notices/push",
            {"endpoint": "https://push.example.net/x", "keys": {"p256dh": "a", "auth": "b"}},
            "The subscription's endpoint is not a push service this site sends to.",
        ),
        ("/notices/push/remove", {"endpoint": 5}, "Say which subscription: its endpoint."),
    ],
    ids=["subscribe", "remove"],
)
def test_a_refused_subscription_says_why_in_the_readers_language(
    german: Callable[[str], str], url: str, body: dict[str, Any], english: str
) -> None:
    """/games's script shows the answer's ``message`` as it is ("Notifications could not be turned on: …")."""
    browser = Client(HTTP_ACCEPT_LANGUAGE="de")
    create_room(browser)
    response = browser.post(url, json.dumps(body), content_type="application/json", **FETCH)
    assert response.status_code == 400
    answer = response.json()
    assert answer["error"] == "bad_subscription"
    assert answer["message"] != english, "an English sentence shown on a German page"
    english_reader = Client(HTTP_ACCEPT_LANGUAGE="en")
    create_room(english_reader)
    assert english_reader.post(url, json.dumps(body), content_type="application/json").json()["message"] == english


def confirm_link(address: str) -> str:
    """The path of the confirmation link the last e-mail to ``address`` carries."""
    sent = [m for m in mail.outbox if m.to == [address]]
    assert sent, f"nothing was sent to {address}"
    found = re.search(r"https?://[^/\s]+(/notices/email/confirm/\S+)", sent[-1].body)
    assert found is not None, sent[-1].body
    return found.group(1)


def test_e_mails_go_to_an_address_only_once_its_owner_confirmed_it() -> None:
    user = get_user_model().objects.create_user("ana", password="pw")
    client = Client()
    client.force_login(user)
    response = client.post("/notices/email", {"address": "ana@example.org", "on": "on"}, follow=True)
    assert "We sent a link to ana@example.org" in response.content.decode()
    user.refresh_from_db()
    assert user.email == "" and not NoticeSettings.objects.filter(user=user, email=True).exists()
    link = confirm_link("ana@example.org")
    # Opening the link (as a mail program's scanner would) changes nothing; the button does.
    page = Client().get(link)
    assert page.status_code == 200 and "ana@example.org" in page.content.decode()
    assert not NoticeSettings.objects.filter(user=user, email=True).exists()
    done = Client().post(link)
    assert done.status_code == 200 and "ana@example.org" in done.content.decode()
    user.refresh_from_db()
    assert user.email == "ana@example.org" and NoticeSettings.objects.get(user=user).email
    # A link cut short or changed does nothing, and says so.
    assert Client().post(link[:-3] + "xyz").status_code == 400
    page = client.get("/games").content.decode()
    assert 'value="ana@example.org"' in page and re.search(r'name="on" id="id_on" checked', page)
    client.post("/notices/email", {"address": "ana@example.org"})
    assert not NoticeSettings.objects.get(user=user).email


def test_an_address_typed_with_e_mails_off_is_kept_mailed_nothing_and_confirmed_once_they_are_on() -> None:
    """Typed without ticking the box, the address was dropped under "E-mails off.". It is kept and
    shown, said so, and mailed nothing: its owner asked for no e-mails, so the link that confirms
    it goes when the e-mails are turned on. A bad address is refused as with the box ticked."""
    user = get_user_model().objects.create_user("ana", password="pw")
    client = Client()
    client.force_login(user)
    saved = client.post("/notices/email", {"address": "ana@example.org"}, follow=True).content.decode()
    assert "E-mails off. Address saved: ana@example.org." in saved
    assert not mail.outbox and not NoticeSettings.objects.get(user=user).email
    page = client.get("/games").content.decode()
    assert 'value="ana@example.org"' in page and not re.search(r'name="on" id="id_on" checked', page)
    assert 'id="email-pending"' not in page  # no link went
    # A bad address: the error beside the field, nothing stored.
    before = NoticeSettings.objects.values().get(user=user)
    refused = client.post("/notices/email", {"address": "not an address"})
    assert refused.status_code == 400 and 'id="address-error"' in refused.content.decode()
    assert NoticeSettings.objects.values().get(user=user) == before
    # Turned on, the saved address gets its link; confirmed, the e-mails go there.
    on = client.post("/notices/email", {"address": "ana@example.org", "on": "on"}, follow=True).content.decode()
    assert "We sent a link to ana@example.org" in on
    assert Client().post(confirm_link("ana@example.org")).status_code == 200
    assert NoticeSettings.objects.get(user=user).email and NoticeSettings.objects.get(user=user).address == (
        "ana@example.org"
    )
    # Off again with the confirmed address: kept, and said so.
    off = client.post("/notices/email", {"address": "ana@example.org"}, follow=True).content.decode()
    assert "E-mails off. Address saved: ana@example.org." in off
    assert NoticeSettings.objects.get(user=user).address == "ana@example.org"


@pytest.mark.parametrize(
    "address", ["ana@bücher.example", "ana@BÜCHER.example", "ana@例え.jp", "ana@" + "a" * 63 + ".example"]
)
def test_an_address_at_an_internationalized_domain_is_sent_its_link(address: str) -> None:
    """A domain of letters beyond ASCII, which the letter is addressed in by their IDNA spelling."""
    user = get_user_model().objects.create_user("ana", password="pw")
    client = Client()
    client.force_login(user)
    response = client.post("/notices/email", {"address": address, "on": "on"})
    assert response.status_code == 302
    [letter] = mail.outbox
    assert letter.to == [address] and letter.message()["To"].isascii()


@pytest.mark.parametrize(
    "address",
    [
        "ana@example.org\r\nBcc: bob@example.org",  # a header of one's own in the letter
        "ana@example.org\nBcc: bob@example.org",
        '"x\r\nBcc: bob@example.org" <ana@example.org>',
        "ana@example.org, bob@example.org",
        "Ana <ana@example.org>",
        "ana\x00@example.org",
        # Not on the internet: the site's mail server would deliver to itself, or connect to an
        # address of the subscriber's choosing on its own network.
        "root@localhost",
        "root@mail.localhost",  # a name under localhost is the machine itself too (RFC 6761)
        "root@localhost.localdomain",
        "ana@[127.0.0.1]",
        "ana@[10.0.0.7]",
        "ana@[IPv6:::1]",
        # A domain no mail can be addressed to: its name has no internationalized (IDNA) spelling,
        # which sending the letter writes it in.
        "ana@" + "ä" * 60 + ".example",  # a label over 63 letters once spelt so
        "ana@\u3002example.org",  # an ideographic full stop: a dot, and an empty label before it
        "ana@\uff0eexample.org",  # a fullwidth full stop, likewise
        "ana@\u200d.example.org",  # a joiner alone: a label that spells nothing
        "ana@\u00ad.example.org",  # a soft hyphen alone, likewise
        "ana@\u05d01.example.org",  # a right-to-left letter before a digit ends the label wrongly
        # Spelt so, one of those above: the letter goes to the IDNA spelling, where fullwidth letters,
        # digits and brackets are their ASCII ones and an ideographic full stop is a dot.
        "root@mail.\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54",  # mail.localhost
        "root@\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54.example.org",  # localhost.example.org
        "root@localhost\u3002example.org",
        "root@mail.localhost\u3002",
        "ana@\uff3b\uff11\uff10.\uff10.\uff10.\uff17\uff3d",  # [10.0.0.7]
    ],
    ids=repr,
)
def test_an_address_the_turn_e_mails_cannot_go_to_is_refused_beside_the_field_and_mails_nothing(
    address: str,
) -> None:
    user = get_user_model().objects.create_user("ana", password="pw")
    client = Client()
    client.force_login(user)
    before = list(NoticeSettings.objects.values())
    response = client.post("/notices/email", {"address": address, "on": "on"})
    assert response.status_code == 400
    assert 'id="address-error"' in response.content.decode()
    assert mail.outbox == [] and list(NoticeSettings.objects.values()) == before


@pytest.mark.parametrize(
    "address",
    [
        "root@localhost",
        "ana@mail.localhost",
        "ana@[10.0.0.7]",
        "ana@\u3002example.org",
        "ana@mail.\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54",  # mail.localhost, fullwidth
    ],
)
def test_your_games_says_a_saved_address_that_cannot_receive_mail_gets_none_and_asks_for_another(
    address: str,
) -> None:
    """An address saved before the form refused such ones is mailed nothing (games.services.notices):
    Your games, where the address is set, says so beside the field and asks for another."""
    user = get_user_model().objects.create_user("ana", email="ana@example.org", password="pw")
    NoticeSettings.objects.create(user=user, email=True, address=address)
    client = Client()
    client.force_login(user)
    page = client.get("/games").content.decode()
    assert 'id="address-error"' in page and 'aria-invalid="true"' in page
    error = page.split('id="address-error"')[1].split("</div>")[0]
    assert "cannot receive mail" in error and "another address" in error
    # The box stays as chosen: another address saved as the page stands asks for its link.
    assert re.search(r'name="on" id="id_on" checked', page)
    # Turning the e-mails off needs no other address first: the one shown, unticked, is saved off.
    client.post("/notices/email", {"address": address, "on": "on"})  # refused beside the field
    assert NoticeSettings.objects.get(user=user).email
    off = client.post("/notices/email", {"address": address})
    assert off.status_code == 302 and not NoticeSettings.objects.get(user=user).email
    client.post("/notices/email", {"address": "ana@example.org", "on": "on"})
    assert [m.to for m in mail.outbox] == [["ana@example.org"]]
    assert 'id="address-error"' not in client.get("/games").content.decode()  # the link waits: nothing to fix
    # Confirmed, the address is the one shown, with no warning.
    assert Client().post(confirm_link("ana@example.org")).status_code == 200
    page = client.get("/games").content.decode()
    assert 'id="address-error"' not in page and 'value="ana@example.org"' in page


def test_your_games_shows_the_address_the_turn_e_mails_go_to_and_saving_it_again_mails_no_link(
    settings: Any,
) -> None:
    """The account's address moved on its e-mail page after the turn e-mails' was confirmed: the
    form shows where the e-mails go, and saving it as shown changes nothing and mails nobody."""
    settings.ACCOUNT_RATE_LIMITS = False
    user = get_user_model().objects.create_user("ana", password="pw")
    client = Client()
    client.force_login(user)
    client.post("/notices/email", {"address": "ana@work.example", "on": "on"})
    assert Client().post(confirm_link("ana@work.example")).status_code == 200
    user.refresh_from_db()
    user.email = "ana@home.example"  # allauth's e-mail page sets the account's primary address
    user.save()
    mail.outbox.clear()
    page = client.get("/games").content.decode()
    assert 'value="ana@work.example"' in page and "ana@home.example" not in page
    assert re.search(r'name="on" id="id_on" checked', page)
    response = client.post("/notices/email", {"address": "ana@work.example", "on": "on"}, follow=True)
    assert "E-mails on" in response.content.decode() and not mail.outbox
    assert settings_of(user)[:2] == (True, "ana@work.example")
    # Turned off, the form still shows the address confirmed: on again needs no new link.
    client.post("/notices/email", {"address": "ana@work.example"})
    page = client.get("/games").content.decode()
    assert 'value="ana@work.example"' in page and not re.search(r'name="on" id="id_on" checked', page)


def test_your_games_says_a_link_is_waiting_to_be_confirmed_after_a_reload_until_it_is() -> None:
    """A link sent is not only said straight after saving, which a reload loses: the form says so
    on every visit while the link waits, and not once it is confirmed, voided (e-mails off) or
    expired."""
    user = get_user_model().objects.create_user("ana", password="pw")
    client = Client()
    client.force_login(user)
    assert "waiting for you to confirm" not in client.get("/games").content.decode()
    client.post("/notices/email", {"address": "ana@example.org", "on": "on"})
    client.get("/games")  # the page the form goes back to, its message saying where the link went
    page = client.get("/games").content.decode()
    assert re.search(r'id="email-pending"[^>]*>\s*A link was sent to ana@example.org: waiting for you to confirm', page)
    # Expired: no longer waiting.
    NoticeSettings.objects.filter(user=user).update(
        pending_at=timezone.now() - timedelta(seconds=services.CONFIRM_MAX_AGE + 1)
    )
    assert 'id="email-pending"' not in client.get("/games").content.decode()
    NoticeSettings.objects.filter(user=user).update(pending_at=timezone.now())
    assert 'id="email-pending"' in client.get("/games").content.decode()
    assert Client().post(confirm_link("ana@example.org")).status_code == 200
    assert 'id="email-pending"' not in client.get("/games").content.decode()


def test_while_a_new_address_waits_for_its_link_your_games_says_where_the_e_mails_still_go() -> None:
    """Moving the e-mails to a new address keeps them at the confirmed one until the link is
    opened: the page says so, right after saving and on every visit, not only that a link waits
    (the field then shows the new address, which gets nothing yet)."""
    user = get_user_model().objects.create_user("ana", password="pw")
    client = Client()
    client.force_login(user)
    client.post("/notices/email", {"address": "ana@work.example", "on": "on"})
    assert Client().post(confirm_link("ana@work.example")).status_code == 200
    assert 'id="email-meanwhile"' not in client.get("/games").content.decode()
    saved = client.post("/notices/email", {"address": "ana@home.example", "on": "on"}, follow=True).content.decode()
    meanwhile = r'id="email-meanwhile"[^>]*>\s*Until then, the e-mails go to ana@work.example\.'
    assert re.search(meanwhile, saved)
    assert re.search(meanwhile, client.get("/games").content.decode())
    assert settings_of(user)[:2] == (True, "ana@work.example")
    # Confirmed, the new address is where they go: nothing is said of the old one.
    assert Client().post(confirm_link("ana@home.example")).status_code == 200
    assert 'id="email-meanwhile"' not in client.get("/games").content.decode()


def test_while_a_new_address_waits_your_games_names_no_old_one_that_cannot_receive_mail() -> None:
    """The confirmed address was saved before the form refused such ones, and is mailed nothing:
    while a new one waits for its link, the page does not say the e-mails still go to the old one."""
    user = get_user_model().objects.create_user("ana", password="pw")
    NoticeSettings.objects.create(user=user, email=True, address="ana@localhost")
    client = Client()
    client.force_login(user)
    saved = client.post("/notices/email", {"address": "ana@home.example", "on": "on"}, follow=True).content.decode()
    assert "ana@home.example" in saved and 'id="email-meanwhile"' not in saved, saved
    page = client.get("/games").content.decode()
    assert 'id="email-pending"' in page and 'id="email-meanwhile"' not in page, page


def test_your_games_says_a_link_was_sent_once_right_after_saving() -> None:
    """Straight after saving, the message at the top says where the link went: the form does not
    say it a second time under the box. Reloaded, the form's line alone says it; asked again
    within the hour, the message says the link went already, once too."""
    user = get_user_model().objects.create_user("ana", password="pw")
    client = Client()
    client.force_login(user)
    page = client.post("/notices/email", {"address": "ana@example.org", "on": "on"}, follow=True).content.decode()
    assert "We sent a link to ana@example.org" in page
    assert 'id="email-pending"' not in page
    assert 'id="email-pending"' in client.get("/games").content.decode()
    again = client.post("/notices/email", {"address": "ana@example.org", "on": "on"}, follow=True).content.decode()
    assert "A link was already sent to ana@example.org" in again
    assert 'id="email-pending"' not in again
    assert 'id="email-pending"' in client.get("/games").content.decode()


def test_while_a_link_waits_your_games_shows_the_address_and_choice_it_was_asked_for() -> None:
    """The form keeps what its player asked for while the link waits, not a blank box and an
    unticked e-mails-on: saving it again as shown (a player making sure) mails no second link and
    keeps the first one good, where saving the blank form turned the e-mails off and voided it."""
    user = get_user_model().objects.create_user("ana", password="pw")
    client = Client()
    client.force_login(user)
    client.post("/notices/email", {"address": "ana@example.org", "on": "on"}, follow=True)
    page = client.get("/games").content.decode()
    assert 'value="ana@example.org"' in page and re.search(r'name="on" id="id_on" checked', page)
    client.post("/notices/email", {"address": "ana@example.org", "on": "on"})
    assert [m.to for m in mail.outbox] == [["ana@example.org"]]
    assert Client().post(confirm_link("ana@example.org")).status_code == 200
    assert settings_of(user)[:2] == (True, "ana@example.org")


def test_your_games_offers_the_accounts_address_until_one_is_confirmed_for_the_turn_e_mails() -> None:
    user = get_user_model().objects.create_user("ana", email="ana@example.org", password="pw")
    client = Client()
    client.force_login(user)
    assert 'value="ana@example.org"' in client.get("/games").content.decode()


def test_the_accounts_own_address_is_sent_a_link_before_any_turn_e_mail() -> None:
    """An address on the account (an administrator's doing, or the site's former e-mail page) is
    not one its owner confirmed: turning e-mails on to it asks there first, like any other."""
    user = get_user_model().objects.create_user("ana", email="ana@example.org", password="pw")
    client = Client()
    client.force_login(user)
    response = client.post("/notices/email", {"address": "ana@example.org", "on": "on"}, follow=True)
    assert "We sent a link to ana@example.org" in response.content.decode()
    assert [m.to for m in mail.outbox] == [["ana@example.org"]]
    assert not NoticeSettings.objects.filter(user=user, email=True).exists()
    assert Client().post(confirm_link("ana@example.org")).status_code == 200
    assert NoticeSettings.objects.get(user=user).address == "ana@example.org"
    # Confirmed once, off and on again needs no new link.
    client.post("/notices/email", {"address": "ana@example.org"})
    response = client.post("/notices/email", {"address": "ana@example.org", "on": "on"}, follow=True)
    assert "E-mails on" in response.content.decode() and len(mail.outbox) == 1
    assert NoticeSettings.objects.get(user=user).email


def test_an_address_set_on_allauths_email_page_is_not_mailed_turns_without_its_owner_confirming(settings: Any) -> None:
    """allauth's own e-mail page, with no verification, would let an account make any address
    its own; the notices page would then take it as confirmed."""
    settings.ACCOUNT_RATE_LIMITS = False
    mallory = Client()
    sign_up(mallory, "mallory")
    mallory.post("/accounts/email/", {"action_add": "", "email": "victim@example.org"})
    mallory.post("/accounts/email/", {"action_primary": "", "email": "victim@example.org"})
    mail.outbox.clear()
    mallory.post("/notices/email", {"address": "victim@example.org", "on": "on"})
    user = get_user_model().objects.get(username="mallory")
    assert [m.to for m in mail.outbox] == [["victim@example.org"]]  # the question, and no turn e-mails yet
    assert not NoticeSettings.objects.filter(user=user, email=True).exists()


def settings_of(user: Any) -> tuple[bool, str, str, str]:
    """What the account's e-mails are stored as: on, where, for which seats, and its address."""
    row = NoticeSettings.objects.get(user=user)
    user.refresh_from_db()
    return row.email, row.address, row.controller, user.email


def assert_void(link: str) -> None:
    for response in (Client().get(link), Client().post(link)):
        assert response.status_code == 410
        assert "This link is no longer valid" in response.content.decode()


def test_an_earlier_link_to_a_mistyped_address_does_not_take_over_the_address_confirmed_after_it() -> None:
    """The first link, still in a stranger's mailbox for three days, would otherwise send them
    every turn e-mail (with the private rooms' links) from one click on."""
    user = get_user_model().objects.create_user("ana", password="pw")
    ana = Client()
    ana.force_login(user)
    ana.get("/games")
    ana.post("/notices/email", {"address": "ana@exmaple.org", "on": "on"})  # a typo: a stranger's mailbox
    ana.post("/notices/email", {"address": "ana@example.org", "on": "on"})
    typo, right = confirm_link("ana@exmaple.org"), confirm_link("ana@example.org")
    assert Client().post(right).status_code == 200
    confirmed = settings_of(user)
    assert confirmed[:2] == (True, "ana@example.org")
    assert_void(typo)
    assert_void(right)  # used once, the link is spent
    assert settings_of(user) == confirmed


def test_a_link_asked_for_before_a_newer_one_no_longer_confirms() -> None:
    user = get_user_model().objects.create_user("ana", password="pw")
    ana = Client()
    ana.force_login(user)
    ana.post("/notices/email", {"address": "ana@exmaple.org", "on": "on"})
    ana.post("/notices/email", {"address": "ana@example.org", "on": "on"})
    assert_void(confirm_link("ana@exmaple.org"))
    assert settings_of(user) == (False, "", "", "")
    assert Client().post(confirm_link("ana@example.org")).status_code == 200
    assert settings_of(user)[1] == "ana@example.org"


@pytest.mark.parametrize("how", ["the form", "the stop link"])
def test_turning_e_mails_off_voids_the_link_waiting(how: str) -> None:
    user = get_user_model().objects.create_user("ana", password="pw")
    ana = Client()
    ana.force_login(user)
    ana.post("/notices/email", {"address": "ana@example.org", "on": "on"})
    Client().post(confirm_link("ana@example.org"))
    ana.post("/notices/email", {"address": "ana@elsewhere.org", "on": "on"})
    if how == "the form":
        ana.post("/notices/email", {"address": "ana@example.org"})
    else:
        assert Client().post(f"/notices/stop/{notices.stop_token('email', user.pk)}").status_code == 200
    assert_void(confirm_link("ana@elsewhere.org"))
    assert settings_of(user)[:2] == (False, "ana@example.org")
    assert not get_user_model().objects.filter(email="ana@elsewhere.org").exists()


def readable(token: str) -> str:
    """What anyone holding a django.core.signing token reads in it without the site's key."""
    payload = token.split(":")[0]
    raw = base64.urlsafe_b64decode(payload.lstrip(".") + "=" * (-len(payload.lstrip(".")) % 4))
    return (zlib.decompress(raw) if payload.startswith(".") else raw).decode()


def test_the_confirmation_link_mailed_to_a_typed_in_address_does_not_carry_the_accounts_seat_token() -> None:
    """The link goes to whatever address was typed in (a stranger's, a typo's); a signed token
    is readable by anyone, and the seat token in it would let them play the account's seats."""
    user = get_user_model().objects.create_user("ana", password="pw")
    ana = Client()
    ana.force_login(user)
    ana.get("/games")
    ana.post("/rooms/new", {"name": "Ana", "ruleset": "official", "mode": "online"})
    token = controller(ana)
    ana.post("/notices/email", {"address": "typo@example.org", "on": "on"})
    link = confirm_link("typo@example.org")
    read = readable(link.rsplit("/", 1)[1])
    assert token not in read and "typo@example.org" not in read, f"the e-mail to typo@example.org reads {read}"
    # The seat token is read on the server when the link is followed.
    assert Client().post(link).status_code == 200
    assert NoticeSettings.objects.get(user=user).controller == token


@pytest.mark.usefixtures("push_settings")
def test_notices_keep_the_language_of_the_page_they_were_turned_on_from() -> None:
    user = get_user_model().objects.create_user("ana", password="pw")
    client = Client(HTTP_ACCEPT_LANGUAGE="de")
    client.force_login(user)
    client.post("/notices/email", {"address": "ana@example.org", "on": "on"})
    # The link's e-mail in German.
    assert "Adresse" in mail.outbox[-1].subject and "Falls du das nicht warst" in mail.outbox[-1].body
    Client().post(confirm_link("ana@example.org"))
    assert NoticeSettings.objects.get(user=user).language == "de"
    create_room(client)
    sub = Subscriber("http://127.0.0.1:9/push/1").subscription
    client.post("/notices/push", json.dumps(sub), content_type="application/json")
    assert PushSubscription.objects.get().language == "de"
    # Switching the site's language while signed in moves them with it.
    client.post("/i18n/language", {"language": "sv", "next": "/"})
    assert NoticeSettings.objects.get(user=user).language == "sv"
    assert PushSubscription.objects.get().language == "sv"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"address": "not an address", "on": "on"}, "Enter a valid email address."),
        ({"address": "", "on": "on"}, "Give the address to e-mail you at."),
    ],
)
def test_a_bad_address_is_refused_and_nothing_changes(data: dict[str, str], message: str) -> None:
    user = get_user_model().objects.create_user("ana", email="old@example.org", password="pw")
    client = Client()
    client.force_login(user)
    response = client.post("/notices/email", data)
    assert response.status_code == 400 and message in response.content.decode()
    user.refresh_from_db()
    assert user.email == "old@example.org" and not NoticeSettings.objects.exists()


def test_asking_again_and_again_for_a_strangers_address_does_not_mail_them_at_every_request() -> None:
    """docs/security.md: an account that types in an address is answered with one e-mail there."""
    user = get_user_model().objects.create_user("mallory", password="pw")
    client = Client()
    client.force_login(user)
    statuses = [
        client.post("/notices/email", {"address": "victim@example.org", "on": "on"}).status_code for _ in range(19)
    ]
    assert statuses == [302] * 19  # all within RATE_LIMIT_NOTICES
    response = client.post("/notices/email", {"address": "victim@example.org", "on": "on"}, follow=True)
    assert "A link was already sent to victim@example.org less than an hour ago" in response.content.decode()
    assert [m.to for m in mail.outbox] == [["victim@example.org"]]
    # The link sent first still confirms: asking again made no other.
    assert Client().post(confirm_link("victim@example.org")).status_code == 200
    assert NoticeSettings.objects.get(user=user).address == "victim@example.org"


def test_an_hour_after_its_link_went_an_address_can_be_sent_another() -> None:
    user = get_user_model().objects.create_user("ana", password="pw")
    client = Client()
    client.force_login(user)
    client.post("/notices/email", {"address": "ana@example.org", "on": "on"})
    first = confirm_link("ana@example.org")
    NoticeSettings.objects.update(pending_at=timezone.now() - timedelta(hours=1, seconds=1))
    response = client.post("/notices/email", {"address": "ana@example.org", "on": "on"}, follow=True)
    assert "We sent a link to ana@example.org" in response.content.decode() and len(mail.outbox) == 2
    assert_void(first)
    assert Client().post(confirm_link("ana@example.org")).status_code == 200


@pytest.mark.usefixtures("limit_clock")
def test_one_account_cannot_mail_one_mailbox_again_and_again_through_its_plus_addresses() -> None:
    """victim+1@, victim+2@... are one mailbox (sub-addressing: Gmail, Outlook, Fastmail, iCloud
    and most servers deliver them all to victim@): each must not be a new count of 3."""
    mallory = Client()
    mallory.force_login(get_user_model().objects.create_user("mallory", password="pw"))
    for n in range(10):
        mallory.post("/notices/email", {"address": f"victim+{n}@example.org", "on": "on"})
    to_victim = [m for m in mail.outbox if m.to[0].split("+")[0].split("@")[0] == "victim"]
    assert len(to_victim) == 3, [m.to[0] for m in to_victim]
    # The name's letters and the domain's case make no other mailbox either.
    response = mallory.post("/notices/email", {"address": "VICTIM+x@Example.ORG", "on": "on"}, follow=True)
    assert "That address has been sent enough links for today: try again tomorrow." in response.content.decode()
    assert len(mail.outbox) == 3


# Counted in this process's memory: the account's limit is what is tested here; the shared count in
# Redis has tests of its own, and a full run's load can let one Redis count go missing here.
@override_settings(RATE_LIMIT_REDIS_URL="")
def test_one_account_is_sent_a_few_confirmation_links_a_day_whatever_addresses_it_types(
    limit_clock: ManualClock,
) -> None:
    """Each address may get three links, but one account typing in address after address would have
    the site mail stranger after stranger: an account asks for at most five a day."""
    mallory = Client()
    mallory.force_login(get_user_model().objects.create_user("mallory", password="pw"))
    for n in range(5):
        mallory.post("/notices/email", {"address": f"stranger{n}@example.org", "on": "on"})
    stored = list(NoticeSettings.objects.values_list("pending_address", flat=True))
    response = mallory.post("/notices/email", {"address": "stranger5@example.org", "on": "on"}, follow=True)
    assert "You have asked for enough links for today: try again tomorrow." in response.content.decode()
    assert len(mail.outbox) == 5
    assert list(NoticeSettings.objects.values_list("pending_address", flat=True)) == stored  # refused whole
    # The refusal took nothing from the address: another account may still have it sent a link.
    trudy = Client()
    trudy.force_login(get_user_model().objects.create_user("trudy", password="pw"))
    trudy.post("/notices/email", {"address": "stranger5@example.org", "on": "on"})
    assert [m.to for m in mail.outbox[5:]] == [["stranger5@example.org"]]
    limit_clock.advance(86_401)
    response = mallory.post("/notices/email", {"address": "stranger6@example.org", "on": "on"}, follow=True)
    assert "We sent a link to stranger6@example.org" in response.content.decode()


def test_an_address_gets_a_few_confirmation_links_a_day_whichever_accounts_ask(limit_clock: ManualClock) -> None:
    """Many accounts (or one going back and forth between two addresses) could otherwise have the
    site mail a stranger's address without end."""
    clients = []
    for name in ("mallory", "trudy", "eve", "oscar"):
        client = Client()
        client.force_login(get_user_model().objects.create_user(name, password="pw"))
        clients.append(client)
    for client in clients[:3]:
        client.post("/notices/email", {"address": "Victim@example.org", "on": "on"})
    clients[3].post("/notices/email", {"address": "elsewhere@example.org", "on": "on"})
    stored = list(NoticeSettings.objects.order_by("pk").values_list("user__username", "pending_address"))
    response = clients[3].post("/notices/email", {"address": "victim@example.org", "on": "on"}, follow=True)
    assert "That address has been sent enough links for today: try again tomorrow." in response.content.decode()
    assert sum(m.to[0].lower() == "victim@example.org" for m in mail.outbox) == 3
    # Refused whole: the request waiting is still the one made before.
    assert list(NoticeSettings.objects.order_by("pk").values_list("user__username", "pending_address")) == stored
    # A day after the first, the address may be sent one again.
    limit_clock.advance(86_401)
    response = clients[3].post("/notices/email", {"address": "victim@example.org", "on": "on"}, follow=True)
    assert "We sent a link to victim@example.org" in response.content.decode()


@pytest.mark.parametrize(
    "failure", [ConnectionRefusedError(111, "refused"), smtplib.SMTPServerDisconnected("gone")], ids=repr
)
def test_a_mail_server_that_cannot_be_reached_is_a_refusal_that_says_so_not_a_server_error(failure: Exception) -> None:
    user = get_user_model().objects.create_user("ana", password="pw")
    client = Client(raise_request_exception=False)
    client.force_login(user)
    for _ in range(3):  # as many as an address may be sent in a day: a letter not sent does not count
        with mock.patch("django.core.mail.EmailMessage.send", side_effect=failure):
            response = client.post("/notices/email", {"address": "ana@example.org", "on": "on"}, follow=True)
        assert response.status_code == 200
        assert "The e-mail could not be sent just now; please try again later." in response.content.decode()
        assert not NoticeSettings.objects.exists()
    # Once the mail server is back, asking again sends the link at once.
    client.post("/notices/email", {"address": "ana@example.org", "on": "on"})
    assert [m.to for m in mail.outbox] == [["ana@example.org"]]


def test_e_mails_need_an_account() -> None:
    response = Client().post("/notices/email", {"address": "a@example.org", "on": "on"}, follow=True)
    assert "Sign in to be e-mailed" in response.content.decode()
    assert not NoticeSettings.objects.exists()


def test_the_stop_link_shows_a_button_and_one_post_stops_the_e_mails() -> None:
    user = get_user_model().objects.create_user("ana", email="a@example.org", password="pw")
    NoticeSettings.objects.create(user=user, email=True)
    url = f"/notices/stop/{notices.stop_token('email', user.pk)}"
    page = Client().get(url)
    assert page.status_code == 200 and 'id="stop-btn"' in page.content.decode()
    assert NoticeSettings.objects.get(user=user).email  # a GET (a mail scanner's) changes nothing
    done = Client(enforce_csrf_checks=True).post(url)  # a mail program's one-click post has no CSRF token
    assert done.status_code == 200 and "no more e-mails of your games" in done.content.decode()
    assert not NoticeSettings.objects.get(user=user).email
    bad = Client().post("/notices/stop/not-a-token")
    assert bad.status_code == 400 and "This link does not work" in bad.content.decode()


def test_a_stop_link_stops_its_own_channel_alone_and_a_bad_one_changes_nothing() -> None:
    """Stop links forged, cut short, or of another kind (the address confirmation's, taken to the
    stop page, and the other way round): "This link does not work", and nobody's e-mails or
    devices change. A good one, used again or for an account deleted since, stops nothing of
    anyone else's."""
    ana = get_user_model().objects.create_user("ana", email="a@example.org", password="pw")
    bob = get_user_model().objects.create_user("bob", email="b@example.org", password="pw")
    zed = get_user_model().objects.create_user("zed", email="z@example.org", password="pw")
    for user in (ana, bob, zed):
        NoticeSettings.objects.create(user=user, email=True)
    device = PushSubscription.objects.create(
        controller="c" * 32, endpoint="https://fcm.googleapis.com/fcm/send/x", p256dh="k", auth="a"
    )
    good = notices.stop_token("email", ana.pk)
    signer = signing.TimestampSigner(salt=notices.STOP_SALT)
    bad = [
        good[:-3],
        good[:10],
        good.replace(":", ".", 1),
        signer.sign("forged"),
        signing.dumps(["email", bob.pk], salt="another salt", compress=True),
        signing.dumps(["email", str(bob.pk)], salt=notices.STOP_SALT, compress=True),
        signing.dumps(["sms", bob.pk], salt=notices.STOP_SALT, compress=True),
        signing.dumps("a-nonce", salt=subscriptions.CONFIRM_SALT),  # an address confirmation's
    ]

    def state() -> list[Any]:
        return [
            *NoticeSettings.objects.order_by("user_id").values_list("user_id", "email"),
            device.pk in set(PushSubscription.objects.values_list("pk", flat=True)),
        ]

    before = state()
    for token in bad:
        for method in ("get", "post"):
            response = getattr(Client(), method)(f"/notices/stop/{token}")
            assert response.status_code == 400 and "This link does not work" in response.content.decode(), token
    # A stop link taken to the address confirmation's page confirms nothing either.
    for method in ("get", "post"):
        assert getattr(Client(), method)(f"/notices/email/confirm/{good}").status_code == 400
    assert state() == before
    for _ in range(2):  # used again: the same, once more
        assert Client().post(f"/notices/stop/{good}").status_code == 200
    zed_link = notices.stop_token("email", zed.pk)
    zed.delete()
    assert Client().post(f"/notices/stop/{zed_link}").status_code == 200
    assert state() == [(ana.pk, False), (bob.pk, True), True]


def test_a_stop_link_opened_again_once_stopped_says_so_rather_than_asking_again() -> None:
    """The e-mail's stop link opened a second time (from the same e-mail, or an older one), and a
    device's once its notifications are off: the page says they are stopped, not "Stop these
    notices?" with a button, as if the first click had done nothing."""
    user = get_user_model().objects.create_user("ana", email="a@example.org", password="pw")
    NoticeSettings.objects.create(user=user, email=True)
    url = f"/notices/stop/{notices.stop_token('email', user.pk)}"
    Client().post(url)
    again = Client().get(url).content.decode()
    assert 'id="stop-btn"' not in again and "no more e-mails of your games" in again
    device = PushSubscription.objects.create(
        controller="c" * 32, endpoint="https://fcm.googleapis.com/fcm/send/x", p256dh="k", auth="a"
    )
    push_url = f"/notices/stop/{notices.stop_token('push', device.pk)}"
    assert 'id="stop-btn"' in Client().get(push_url).content.decode()
    Client().post(push_url)
    again = Client().get(push_url).content.decode()
    assert 'id="stop-btn"' not in again and "The notifications this link came with were stopped already." in again


def test_an_old_notifications_stop_link_says_its_own_were_stopped_and_stops_nobody_elses() -> None:
    """A notification's link names the subscription it came through. Once that one is gone (a
    sign-out, the sweep, a newer one in its place) the device may have subscribed again, for the
    same person or for whoever uses it next: the link stops nothing, and its page does not say
    "This device will get no more notifications" while the new subscription goes on. It says
    this link's were stopped already, and where this device's notifications are stopped."""
    endpoint = "https://fcm.googleapis.com/fcm/send/x"
    old = PushSubscription.objects.create(controller="c" * 32, endpoint=endpoint, p256dh="k", auth="a")
    link = f"/notices/stop/{notices.stop_token('push', old.pk)}"
    old.delete()  # signed out on this device: its subscription ended
    new = PushSubscription.objects.create(controller="d" * 32, endpoint=endpoint, p256dh="k2", auth="a2")
    for response in (Client().get(link), Client(enforce_csrf_checks=True).post(link)):
        assert response.status_code == 200
        page = response.content.decode()
        assert 'id="stop-btn"' not in page and "no more notifications" not in page, page
        assert "The notifications this link came with were stopped already." in page, page
        assert "If this device still gets notifications, stop them on" in page and 'href="/games"' in page, page
    assert list(PushSubscription.objects.values_list("pk", flat=True)) == [new.pk]
    # The link of the subscription that is current stops it, and says so.
    current = f"/notices/stop/{notices.stop_token('push', new.pk)}"
    assert "This device will get no more notifications." in Client().post(current).content.decode()
    assert not PushSubscription.objects.exists()


def test_the_stop_page_says_which_channel_its_link_stops() -> None:
    """An e-mail's link and a notification's lead to the same page: it names the e-mails, or this
    device's notifications, before the click and after it."""
    user = get_user_model().objects.create_user("ana", email="a@example.org", password="pw")
    NoticeSettings.objects.create(user=user, email=True)
    email_page = Client().get(f"/notices/stop/{notices.stop_token('email', user.pk)}").content.decode()
    assert "Stop the e-mails?" in email_page and 'id="stop-channel"' in email_page
    assert "Stop the e-mails</button>" in email_page and "notifications on this device" not in email_page
    device = PushSubscription.objects.create(
        controller="c" * 32, endpoint="https://fcm.googleapis.com/fcm/send/x", p256dh="k", auth="a"
    )
    push_page = Client().get(f"/notices/stop/{notices.stop_token('push', device.pk)}").content.decode()
    assert "Stop the notifications on this device?" in push_page and 'id="stop-channel"' in push_page
    assert "Stop the notifications</button>" in push_page and "e-mails?" not in push_page


def test_the_e_mails_stopped_are_said_to_be_all_of_them_not_only_the_turns() -> None:
    """The stop link stops the game-over e-mails too, as the page said before the click: once
    stopped, it does not say only the "your turn" ones stopped."""
    user = get_user_model().objects.create_user("ana", email="a@example.org", password="pw")
    NoticeSettings.objects.create(user=user, email=True)
    done = Client().post(f"/notices/stop/{notices.stop_token('email', user.pk)}").content.decode()
    assert "You will get no more e-mails of your games at your own pace." in done
    assert "your turn" not in done


def test_the_stopped_page_words_the_e_mails_and_the_notifications_each_in_its_own_gender() -> None:
    """ "Turn them on again": Spanish's e-mails (correos) and notifications (notificaciones) differ
    in gender, so "them" is worded for each (activarlos, activarlas)."""
    user = get_user_model().objects.create_user("ana", email="a@example.org", password="pw")
    NoticeSettings.objects.create(user=user, email=True)
    reader = Client(HTTP_ACCEPT_LANGUAGE="es")
    mails = reader.post(f"/notices/stop/{notices.stop_token('email', user.pk)}").content.decode()
    assert "Vuelve a activarlos" in mails
    device = PushSubscription.objects.create(
        controller="c" * 32, endpoint="https://fcm.googleapis.com/fcm/send/x", p256dh="k", auth="a"
    )
    pushes = reader.post(f"/notices/stop/{notices.stop_token('push', device.pk)}").content.decode()
    assert "Vuelve a activarlas" in pushes and "activarlos" not in pushes


# --- the installable site ------------------------------------------------------------------------


def test_the_service_worker_is_served_from_the_root() -> None:
    response = Client().get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript") and response["Cache-Control"] == "no-cache"
    assert b'addEventListener("push"' in response.content


def test_the_manifest_installs_the_site_on_your_games() -> None:
    client = Client()
    response = client.get("/manifest.webmanifest")
    assert response["Content-Type"] == "application/manifest+json"
    manifest = response.json()
    assert manifest["start_url"] == "/games" and manifest["display"] == "standalone"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        assert client.get(icon["src"]).status_code == 200
    assert 'rel="manifest" href="/manifest.webmanifest"' in client.get("/").content.decode()


def test_the_app_manifest_describes_the_site_in_the_readers_language() -> None:
    """A German phone that installs the site (Add to Home screen) is shown the manifest's
    description in German, and the manifest names its language."""
    english = Client(HTTP_ACCEPT_LANGUAGE="en").get("/manifest.webmanifest").json()
    response = Client(HTTP_ACCEPT_LANGUAGE="de").get("/manifest.webmanifest")
    german = response.json()
    assert (english["lang"], german["lang"]) == ("en", "de")
    assert german["description"] != english["description"]
    # A cache between the two keeps one copy per language and per cookie (the switcher's, the account's session).
    assert {"accept-language", "cookie"} <= {v.strip().lower() for v in response["Vary"].split(",")}
    # The switcher's choice counts too, not only the browser's language: the page asks for the
    # manifest with its cookies (a browser sends none for it otherwise).
    switched = Client(HTTP_ACCEPT_LANGUAGE="en")
    switched.post("/i18n/language", {"language": "fr", "next": "/"})
    assert switched.get("/manifest.webmanifest").json()["lang"] == "fr"
    page = switched.get("/").content.decode()
    assert 'rel="manifest" href="/manifest.webmanifest" crossorigin="use-credentials"' in page


# --- no inline script (the Content-Security-Policy: script-src 'self') -------------------------------


def test_the_pages_of_this_feature_run_no_inline_script() -> None:
    client = Client()
    user = get_user_model().objects.create_user("ana", email="a@example.org", password="pw")
    client.force_login(user)
    code = create_room(client, pace="own", move_time=str(DAY))
    pages = ["/", "/games", f"/r/{code}/", f"/notices/stop/{notices.stop_token('email', user.pk)}"]
    for path in pages:
        html = client.get(path).content.decode()
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert "src=" in tag or 'type="application/json"' in tag, f"{path}: inline script {tag}"
        assert not re.search(r"<[^>]+\son[a-z]+\s*=", html), f"{path}: an inline event handler"
        assert "javascript:" not in html


def test_a_strangers_address_typed_in_is_sent_one_link_and_no_turn_e_mails() -> None:
    get_user_model().objects.create_user("mallory", password="pw")
    mallory = Client()
    mallory.force_login(get_user_model().objects.get(username="mallory"))
    mallory.post("/notices/email", {"address": "victim@example.org", "on": "on"})
    assert [m.to for m in mail.outbox] == [["victim@example.org"]]  # the question, once, and nothing else
    assert not NoticeSettings.objects.filter(email=True).exists()
    assert get_user_model().objects.get(username="mallory").email == ""


def test_your_games_gives_a_paused_game_the_time_its_move_has_left_not_no_time_limit() -> None:
    """A pause holds the turn's time (the deadline is set again on resume): the list says the time
    the move has left, not "No time limit", for a game of a day a move."""
    table = own_pace_room(seconds=86_400)
    host = table.controllers[0]
    services.game_pause(code=table.code, controller=host, expected_version=table.version(), action_id=action_id())
    client = Client()
    session = client.session
    session["controller"] = host
    session.save()
    page = client.get("/games").content.decode()
    assert "Paused" in page and "at your own pace, 1 day a move" in page
    assert "No time limit" not in page and re.search(r"23 hours 59 minutes left|1 day left", page), page


# --- a subscription its browser renewed (the service worker's ``pushsubscriptionchange``) ------------


def renewal(old: dict[str, Any], new: dict[str, Any]) -> str:
    """What the service worker posts: the subscription renewed and the one made in its place, as
    ``toJSON()`` gives them."""
    return json.dumps({"old": old, "new": new})


@pytest.mark.usefixtures("push_settings")
def test_a_subscription_its_browser_renewed_is_replaced_by_the_new_one_with_no_page_open() -> None:
    """The push service renewed the browser's subscription (Firefox does, on its own schedule): the
    old one is gone, and the device would hear of no turn until its player opened Your games
    again. The service worker posts the new one in the old one's place,
    without a CSRF token (a worker has none): the same seats and language, the session's list of
    its endpoints (what signing out stops) following it."""
    client = Client(HTTP_ACCEPT_LANGUAGE="de")
    create_room(client)
    old = Subscriber("http://127.0.0.1:9/push/old").subscription
    assert client.post("/notices/push", json.dumps(old), content_type="application/json").status_code == 201
    PushSubscription.objects.update(gone_at=timezone.now(), failing_since=timezone.now())  # expired
    new = Subscriber("http://127.0.0.1:9/push/new").subscription
    worker = Client(enforce_csrf_checks=True)
    worker.cookies["sessionid"] = client.cookies["sessionid"].value
    response = worker.post("/notices/push/renew", renewal(old, new), content_type="application/json", **FETCH)
    assert response.status_code == 200, response.content
    assert response.json() == {"ok": True}
    row = PushSubscription.objects.get()
    assert (row.endpoint, row.p256dh, row.auth) == (new["endpoint"], new["keys"]["p256dh"], new["keys"]["auth"])
    assert (row.controller, row.language, row.gone_at, row.failing_since) == (controller(client), "de", None, None)
    assert client.session[services.SESSION_ENDPOINTS] == [new["endpoint"]]
    # Its session may be over by then (or the cookie not sent): the old subscription's secret is
    # what shows the browser's own, not the cookie.
    newer = Subscriber("http://127.0.0.1:9/push/newer").subscription
    answer = Client(enforce_csrf_checks=True).post(
        "/notices/push/renew", renewal(new, newer), content_type="application/json"
    )
    assert answer.status_code == 200, answer.content
    assert list(PushSubscription.objects.values_list("endpoint", flat=True)) == [newer["endpoint"]]


# Made once: the test stores OLD (this browser's) and OTHER (another browser's) and posts these.
OLD = Subscriber("http://127.0.0.1:9/push/old").subscription
OTHER = Subscriber("http://127.0.0.1:9/push/other").subscription


def _bad_renewals() -> list[tuple[str, Any, str]]:
    old, other = OLD, OTHER
    new = Subscriber("http://127.0.0.1:9/push/new").subscription
    return [
        ("not json", b"{old", "bad_subscription"),
        ("not an object", [old, new], "bad_subscription"),
        ("no old", {"new": new}, "bad_subscription"),
        (
            "an old one never stored",
            {"old": {**old, "endpoint": "http://127.0.0.1:9/push/never"}, "new": new},
            "bad_subscription",
        ),
        ("the old one's secret wrong", {"old": {**old, "keys": other["keys"]}, "new": new}, "bad_subscription"),
        ("the old one's secret missing", {"old": {"endpoint": old["endpoint"]}, "new": new}, "bad_subscription"),
        # JSON's escape of half a surrogate pair: text no key is, which no byte string stands for.
        (
            "the old one's secret a lone surrogate",
            {"old": {**old, "keys": {**old["keys"], "auth": "\ud800"}}, "new": new},
            "bad_subscription",
        ),
        ("no new", {"old": old}, "bad_subscription"),
        (
            "a new one at a host not a push service",
            {"old": old, "new": {**new, "endpoint": "https://evil.example.com/p"}},
            "bad_subscription",
        ),
        (
            "a new one with a key too short",
            {"old": old, "new": {**new, "keys": {**new["keys"], "auth": "AAAA"}}},
            "bad_subscription",
        ),
        # Said as a post of it is: the browser holding it keeps it.
        ("a new one another browser holds", {"old": old, "new": other}, "subscription_held"),
    ]


@pytest.mark.usefixtures("push_settings")
@pytest.mark.parametrize(("why", "body", "error"), _bad_renewals(), ids=[why for why, _, _ in _bad_renewals()])
def test_a_bad_renewal_is_refused_with_its_reason_and_changes_nothing(why: str, body: Any, error: str) -> None:
    """Only the browser holding a stored subscription's secret renews it, and only into a
    subscription that could be stored in the first place."""
    owner, stranger = Client(), Client()
    create_room(owner)
    create_room(stranger)
    assert owner.post("/notices/push", json.dumps(OLD), content_type="application/json").status_code == 201
    assert stranger.post("/notices/push", json.dumps(OTHER), content_type="application/json").status_code == 201
    data = body if isinstance(body, bytes) else json.dumps(body)
    before = sorted(PushSubscription.objects.values_list("endpoint", "auth", "controller"))
    response = Client().post("/notices/push/renew", data, content_type="application/json", **FETCH)
    assert response.status_code == 400, why
    answer = response.json()
    assert answer["error"] == error and answer["message"], why
    assert sorted(PushSubscription.objects.values_list("endpoint", "auth", "controller")) == before


@pytest.mark.usefixtures("push_settings")
def test_a_renewal_onto_another_browser_s_subscription_is_told_so_in_the_reader_s_language(
    german: Callable[[str], str],
) -> None:
    """A renewal onto an endpoint another browser holds is refused as a post of it is, with the same
    words, and its browser keeps it."""
    owner, stranger = Client(), Client()
    create_room(owner)
    create_room(stranger)
    assert owner.post("/notices/push", json.dumps(OLD), content_type="application/json").status_code == 201
    assert stranger.post("/notices/push", json.dumps(OTHER), content_type="application/json").status_code == 201
    before = sorted(PushSubscription.objects.values_list("endpoint", "auth", "controller"))
    response = Client(HTTP_ACCEPT_LANGUAGE="de").post(
        "/notices/push/renew", renewal(OLD, OTHER), content_type="application/json", **FETCH
    )
    assert response.status_code == 400 and response.json() == {
        "error": "subscription_held",
        "message": german(HELD),
    }
    assert sorted(PushSubscription.objects.values_list("endpoint", "auth", "controller")) == before


@pytest.mark.usefixtures("push_settings")
def test_a_browser_with_no_session_is_told_it_has_no_subscription_to_stop() -> None:
    # It named the endpoint: "say which subscription" would tell it to do what it did.
    response = Client().post(
        "/notices/push/remove",
        json.dumps({"endpoint": "https://fcm.googleapis.com/x"}),
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json() == {
        "error": services.BAD_SUBSCRIPTION,
        "message": "This browser has no subscription here to stop.",
    }


# What games at one's own pace tell a player of, said alike wherever the notices are offered or
# confirmed: a seat the computer took over is told too (``Notice.Kind.AWAY``), not only turns and ends.
TOLD = "when it is your turn, when the computer takes over your seat and when a game ends"


def test_turning_the_e_mails_on_says_a_games_end_and_a_seat_taken_over_are_told_too(settings: Any) -> None:
    """Games at one's own pace tell a player when it is their turn, when the computer takes over
    their seat and when a game ends: the notices' card and the word after turning the e-mails on
    say all three, not the turn alone."""
    settings.ACCOUNT_RATE_LIMITS = False
    user = get_user_model().objects.create_user("ana", password="pw")
    client = Client()
    client.force_login(user)
    assert f"In games at your own pace you are told {TOLD}:" in client.get("/games").content.decode()
    client.post("/notices/email", {"address": "ana@work.example", "on": "on"})
    assert Client().post(confirm_link("ana@work.example")).status_code == 200
    client.post("/notices/email", {"address": "ana@work.example"})
    done = client.post("/notices/email", {"address": "ana@work.example", "on": "on"}, follow=True)
    assert settings_of(user)[:2] == (True, "ana@work.example")
    assert f"E-mails on: you are told {TOLD}." in done.content.decode()


def test_every_word_about_the_e_mails_says_a_games_end_and_a_seat_taken_over_are_told_too(settings: Any) -> None:
    """The e-mails tell of a game's end and of a seat the computer took over as well as of a turn:
    the letter asking to confirm an address, its page (asked and confirmed), the words after asking
    for a link, the form's box and the card's heading say all three, as the card and the word after
    turning them on do, none "your turn" e-mails alone."""
    settings.ACCOUNT_RATE_LIMITS = False
    user = get_user_model().objects.create_user("ana", password="pw")
    client = Client()
    client.force_login(user)
    games = client.get("/games").content.decode()
    assert "Tell me about my games" in games
    assert "E-mail me when it is my turn, when the computer takes over my seat and when a game ends" in games
    asked = client.post("/notices/email", {"address": "ana@example.org", "on": "on"}, follow=True).content.decode()
    assert f"We sent a link to ana@example.org: open it to be e-mailed there {TOLD}." in asked
    again = client.post("/notices/email", {"address": "ana@example.org", "on": "on"}, follow=True).content.decode()
    assert f"and open it to be e-mailed there {TOLD}." in again
    [letter] = mail.outbox  # asked again within the hour: no second letter
    assert (
        "asked for the e-mails of their games to come to this address: when it is their turn, when the computer "
        "takes over their seat and when a game ends."
    ) in " ".join(letter.body.split())
    link = confirm_link("ana@example.org")
    question = Client().get(link).content.decode()
    # The heading keeps "e-mails" whole in a span of its own: its words are read without the tags.
    assert "Send the e-mails of your games here?" in re.sub(r"<[^>]+>", "", question)
    assert f"An account asked for the e-mails of its games to go to ana@example.org: {TOLD}." in question
    done = Client().post(link).content.decode()
    assert f"From now on, ana@example.org is e-mailed {TOLD}." in done
    for page in (games, asked, again, letter.body, question, done):
        assert "your turn” e-mails" not in page.lower() and "turn e-mail" not in page.lower(), page
    stop = Client().get(f"/notices/stop/{notices.stop_token('email', user.pk)}").content.decode()
    assert "none when it is your turn, none when the computer takes over your seat, none when a game ends." in stop


def test_the_notifications_switch_says_what_a_device_is_told_as_the_e_mails_do(settings: Any) -> None:
    script = (settings.BASE_DIR / "static" / "js" / "notify.js").read_text()
    on = f'gettext("On: this device is told {TOLD}.")'
    assert script.count(on) == 2 and "when it is your turn and when a game ends" not in script


def test_a_saved_address_that_cannot_receive_mail_is_said_to_get_no_e_mail_of_any_kind() -> None:
    user = get_user_model().objects.create_user("ana", email="ana@example.org", password="pw")
    NoticeSettings.objects.create(user=user, email=True, address="root@localhost")
    client = Client()
    client.force_login(user)
    error = client.get("/games").content.decode().split('id="address-error"')[1].split("</div>")[0]
    assert "so no e-mail of your games goes there" in error, error


@pytest.mark.usefixtures("push_settings")
def test_a_visit_posting_again_a_subscription_held_by_a_browser_whose_push_service_dropped_it_is_ended() -> None:
    """The other browser's row of the endpoint is gone at its push service: nothing is sent to it
    any more, and it waits only for the sweep. The visit is not told it is held (its page would say
    so, and keep the browser's subscription, for days): it is ended, as with no row at all, and the
    page drops the browser's subscription; nothing of the row changes."""
    sub, theirs = anns_subscription()
    PushSubscription.objects.update(gone_at=timezone.now())
    before = PushSubscription.objects.values().get()
    ben = Client()
    create_room(ben)
    refused = post_push(ben, {**theirs, "heals": sub["endpoint"]})
    assert refused.status_code == 400 and refused.json()["error"] == "subscription_ended"
    assert PushSubscription.objects.values().get() == before

"""Accounts: a browser's seats joining an account, counting finished games once, ratings, deletion, privacy."""

from __future__ import annotations

import logging
import random
import re
import time
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation

import bots
from accounts import services as account_services
from accounts.models import CountedGame, GameRecord, Profile, Standing
from accounts.selectors import leaderboard
from bench.accounts import seed
from games import services
from games.domain.rules import RuleViolation
from games.services import events, presence
from games.services.replay import replay_game
from games.store.models import Game, Move, Player, Presence
from games.store.selectors import chat_history
from tests.accounts.helpers import (
    PASSWORD,
    browser_with_seat_token,
    controller_of,
    finish,
    room_for,
    sign_up,
    user,
)
from tests.factories import Table, action_id, play_to_end, score_first_legal
from yahtzee.sessions import SessionStore

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module", autouse=True)
def official_table() -> None:
    bots.tables.table("official", build=True)


def test_sign_up_needs_no_email_and_checks_the_password_validators() -> None:
    client = Client()
    weak = client.post("/accounts/signup/", {"username": "ann", "password1": "12345678", "password2": "12345678"})
    assert weak.status_code == 200 and not get_user_model().objects.filter(username="ann").exists()
    assert b"too common" in weak.content or b"entirely numeric" in weak.content
    sign_up(client, "ann")
    assert client.get("/me").status_code == 302
    assert client.get("/u/ann/").status_code == 200


def test_the_sign_up_pages_password_rules_are_a_block_under_their_field() -> None:
    """Django's form.as_p writes the rules as a <ul> in a <span> in a <p>: a browser closes the <p>
    before the list, so the rules would show as a full-size bulleted list after an empty paragraph.
    The help of every allauth field is a <div> in the field's own <div>, as on the sign-in page."""
    signup = Client().get("/accounts/signup/").content.decode()
    assert not re.search(r"<(span|p)\b[^>]*>\s*<ul>", signup), "a list inside a <span> or a <p>"
    rules = re.search(r'<div class="helptext" id="id_password1_helptext">\s*<ul>', signup)
    assert rules, "the password rules are not a <div> of their own"
    assert 'aria-describedby="id_password1_helptext"' in signup
    login = Client().get("/accounts/login/").content.decode()
    assert re.search(r'<div class="helptext" id="id_password_helptext">\s*<a href="/accounts/password/reset/">', login)


def test_a_refused_sign_in_says_why_in_an_alert_that_a_screen_reader_reads_out() -> None:
    """A wrong password is said above the form, tied to no field: as an alert (as the home page's
    errors are), a screen reader reads it out when the page comes back, not only if found."""
    sign_up(Client(), "ann")
    page = Client().post("/accounts/login/", {"login": "ann", "password": "not it"}).content.decode()
    assert re.search(r'<div role="alert">\s*<ul class="errorlist nonfield"><li>The username and/or password', page)
    assert 'role="alert"' not in Client().get("/accounts/login/").content.decode()


def test_the_privacy_boxs_explanation_is_tied_to_the_box_a_screen_reader_is_on() -> None:
    """Django names the help's id in the box's aria-describedby: the page must hold that id, or a
    reader hears the box alone, not who sees a public profile."""
    client = Client()
    sign_up(client, "ann")
    page = client.get("/me/settings").content.decode()
    box = re.search(r'<input type="checkbox" name="public"[^>]*aria-describedby="([^"]+)"', page)
    assert box, "the box names no explanation"
    for id_ in box.group(1).split():
        assert re.search(rf'id="{id_}"[^>]*>[^<]*Anyone may see your games', page), id_


def test_allauths_e_mail_pages_are_not_served_and_the_account_pages_the_site_links_are(settings: Any) -> None:
    """An address is set and confirmed only on the site's own notices page: allauth's pages would
    let any account claim any address and make it its own, unconfirmed."""
    settings.ACCOUNT_RATE_LIMITS = False
    client = Client()
    for page in ["/accounts/login/", "/accounts/signup/", "/accounts/password/reset/"]:
        assert client.get(page).status_code == 200, page
    sign_up(client, "ann")
    for page in ["/accounts/email/", "/accounts/confirm-email/", "/accounts/confirm-email/some-key/"]:
        assert client.get(page).status_code == 404, page
    claimed = client.post("/accounts/email/", {"action_add": "", "email": "someone@example.org"})
    assert claimed.status_code == 404
    assert get_user_model().objects.get(username="ann").email == ""
    assert client.get("/accounts/").status_code == 404  # not sent on to the e-mail page
    for page in ["/accounts/password/change/", "/accounts/2fa/", "/accounts/2fa/webauthn/", "/accounts/logout/"]:
        assert client.get(page).status_code == 200, page


def test_the_forgotten_password_page_says_what_to_do_and_mails_nobody(settings: Any, mailoutbox: Any) -> None:
    """Accounts have no address: allauth's reset by mail would still mail a posted address that is
    nobody's ("someone asked for a reset"), so anyone could have the site mail anyone."""
    settings.ACCOUNT_RATE_LIMITS = False
    client = Client()
    page = client.get("/accounts/password/reset/")
    assert page.status_code == 200 and "no email address" in page.content.decode()
    for data in ({"email": "victim@example.org"}, {"login": "victim@example.org"}):
        assert client.post("/accounts/password/reset/", data).status_code == 405
    for path in ["/accounts/password/reset/done/", "/accounts/password/reset/key/1-set-password/"]:
        assert client.get(path).status_code == 404, path
    assert mailoutbox == []


def test_signing_in_attaches_the_browsers_seats_live_and_finished() -> None:
    browser = Client()
    token = browser_with_seat_token(browser)
    other = services.new_controller()
    done = finish(room_for([token, other]))
    live = room_for([token, other])
    before = live.version()
    sign_up(browser, "bea")
    account = user("bea")
    new_token = controller_of(browser)
    assert new_token != token and new_token == Profile.objects.get(user=account).controller
    # The finished game's seat and record are the account's; its stats count it.
    assert Player.objects.get(game=done, seat=0).user == account
    assert GameRecord.objects.get(game=done, player__seat=0).user == account
    assert Standing.objects.get(user=account, ruleset="official").games == 1
    # The live seat answers to the account's token now, announced by a claim Move.
    game = live.game
    assert game.snapshot["seats"][0]["controller"] == new_token and game.version == before + 1
    assert game.moves.order_by("-seq").first().kind == Move.Kind.CLAIM
    assert browser.get(f"/r/{live.code}/state.json").json()["you"]["seats"] == [0]
    # The old token plays nothing any more.
    with pytest.raises(RuleViolation):
        services.turn_roll(code=live.code, controller=token, expected_version=game.version, action_id=action_id())


def signing_up_after(games_over: int, username: str) -> tuple[Client, list[str], int]:
    """A browser that played ``games_over`` games on its own, each left mid-game, signs up: the
    browser, those games' codes, and the queries the sign-up took."""
    browser = Client()
    token = browser_with_seat_token(browser)
    codes = []
    for _ in range(games_over):
        table = room_for([token])
        services.game_leave(code=table.code, controller=token, seat=0, expected_version=None, action_id=action_id())
        codes.append(table.code)
    with CaptureQueriesContext(connection) as queries:
        sign_up(browser, username)
    return browser, codes, len(queries)


def test_signing_in_a_browser_with_many_games_over_costs_no_query_a_game() -> None:
    """A player who played a thousand games without an account signs up in a few queries, not a
    transaction, a lock and a word to the room for each game: the games over are handed to the
    account together. Their seats are the account's all the same, their versions move on (a copy
    of the row a process kept is not written back over them), each with its claim Move, and their
    logs replay as played."""
    _, _, few = signing_up_after(1, "few")
    browser, codes, many = signing_up_after(30, "many")
    assert many - few <= 2, f"29 more games over cost the sign-up {many - few} more queries"
    new_token = controller_of(browser)
    for game in Game.objects.filter(code__in=codes):
        assert game.status == Game.Status.ABANDONED
        assert game.room.seats[0].controller == new_token
        assert Player.objects.get(game=game, seat=0).controller == new_token
        claim = game.moves.order_by("-seq").first()
        assert claim.kind == Move.Kind.CLAIM and claim.seq == game.version and claim.payload == {"seats": [0]}
        assert claim.actor == new_token
        assert replay_game(game).problems == []


def test_a_finished_game_signed_in_after_logs_the_claim_its_version_moved_on_for_and_the_review_lists_it() -> None:
    """A game over handed to the account at sign-in moves on a version as a live one does: with a
    claim Move at that version, so the log and the admin's review account for every version."""
    browser = Client()
    token = browser_with_seat_token(browser)
    done = finish(room_for([token, services.new_controller()]))
    before = done.version
    sign_up(browser, "bea")
    game = Game.objects.get(pk=done.pk)
    assert game.version == before + 1
    assert list(game.moves.values_list("seq", flat=True)) == list(range(1, game.version + 1))
    claim = game.moves.get(seq=game.version)
    assert claim.kind == Move.Kind.CLAIM and claim.payload == {"seats": [0]}
    staff = Client()
    staff.force_login(get_user_model().objects.create_user("clerk", password=PASSWORD, is_staff=True))
    page = staff.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    row = re.search(rf"<tr[^>]*>\s*<td[^>]*>{game.version}</td>(.*?)</tr>", page, flags=re.S)
    assert row is not None, "the review lists no event at the game's last version"
    assert "Seats taken into a player" in row.group(1) and "seat 1 (" in row.group(1), row.group(1)


def test_a_finished_game_signed_in_after_is_the_accounts_to_ask_the_rematch_of() -> None:
    browser = Client()
    token = browser_with_seat_token(browser)
    other = services.new_controller()
    done = finish(room_for([token, other]))
    sign_up(browser, "bea")
    assert browser.get(f"/r/{done.code}/state.json").json()["you"]["seats"] == [0]
    assert browser.post(f"/r/{done.code}/rematch", {"client_seed": "abc"}).status_code == 302
    rematch = Game.objects.get(code=Game.objects.get(pk=done.pk).room.rematch)
    assert rematch.room.seats[0].controller == controller_of(browser)  # seated as the account


def sign_in_link(page: str) -> str:
    link = re.search(r'<a href="([^"]*)" data-testid="nav-sign-in">', page)
    assert link is not None
    return link.group(1).replace("&amp;", "&")


def test_signing_in_from_the_headers_link_comes_back_to_the_page() -> None:
    get_user_model().objects.create_user("ann", password=PASSWORD)
    client = Client()
    assert sign_in_link(client.get("/rules").content.decode()) == "/accounts/login/?next=/rules"
    signed_in = client.post(sign_in_link(client.get("/rules").content.decode()), {"login": "ann", "password": PASSWORD})
    assert signed_in.status_code == 302 and signed_in["Location"] == "/rules"


def test_signing_in_from_a_refused_create_form_does_not_end_on_the_405_page() -> None:
    """A refused form is drawn at the address it posted to, which takes only POSTs: the header's
    "Sign in" goes back to the page the form is on (the home page), not to that address."""
    get_user_model().objects.create_user("ann", password=PASSWORD)
    client = Client()
    refused = client.post("/rooms/new", {"name": "", "ruleset": "official", "mode": "online"})
    assert refused.status_code == 400
    login = sign_in_link(refused.content.decode())
    assert "rooms" not in login
    signed_in = client.post(login, {"login": "ann", "password": PASSWORD}, follow=True)
    assert signed_in.redirect_chain and signed_in.status_code == 200, signed_in.redirect_chain


def test_signing_in_while_a_computer_plays_the_browsers_seat_lets_the_player_take_it_back() -> None:
    """Two turns of the anonymous player ran out, so a computer plays their seat until they are
    back. They sign in on that browser: the seat follows it to the account, *Your games* lists it,
    and coming back to the room (as its socket does) gives the seat back."""
    browser = Client()
    token = browser_with_seat_token(browser)
    code = services.game_create(host_name="Mia", controller=token, turn_timer=30).game.code
    services.game_join(code=code, name="Host", controller=services.new_controller())
    table = Table(code=code, controllers=[token, Player.objects.get(game__code=code, seat=1).controller])
    services.game_start(code=code, controller=token, expected_version=None, action_id=action_id())
    for turn in range(2):  # Mia's turn runs out twice in a row: a computer plays her seat
        Game.objects.filter(code=code).update(turn_deadline=timezone.now() - timedelta(seconds=1))
        assert services.clock_expire(code=code, version=table.version())
        if turn == 0:
            score_first_legal(table)
    assert table.game.room.seats[0].bot and table.game.room.seats[0].away_controller == token
    sign_up(browser, "mia")
    mine = controller_of(browser)
    assert table.game.room.seats[0].away_controller == mine
    assert f"/r/{code}/" in browser.get("/games").content.decode()
    assert services.seat_reclaim(code=code, controller=mine) == [0]
    assert browser.get(f"/r/{code}/state.json").json()["you"]["seats"] == [0]


def test_a_second_browser_signed_in_plays_the_accounts_seat() -> None:
    first = Client()
    token = browser_with_seat_token(first)
    live = room_for([token, services.new_controller()])
    sign_up(first, "cat")
    second = Client()
    assert second.get(f"/r/{live.code}/state.json").json()["you"]["seats"] == []
    assert second.post("/accounts/login/", {"login": "cat", "password": PASSWORD}).status_code == 302
    assert second.get(f"/r/{live.code}/state.json").json()["you"]["seats"] == [0]
    response = second.post(f"/r/{live.code}/roll", {"version": live.version(), "action_id": "x-1"})
    assert response.status_code == 302
    assert live.game.snapshot["rules"]["turn"]["rolls_used"] == 1


def test_a_finished_game_is_counted_once_with_records_and_stats() -> None:
    a, b = Client(), Client()
    sign_up(a, "dan")
    sign_up(b, "eve")
    table = room_for([controller_of(a), controller_of(b)])
    game = play_to_end(table, random.Random(3))
    assert account_services.game_count(game_id=game.pk) is True
    assert account_services.game_count(game_id=game.pk) is False
    records = GameRecord.objects.filter(game=game).order_by("player__seat")
    assert [r.user.username for r in records] == ["dan", "eve"]
    assert sorted(r.rank for r in records) in ([1, 2], [1, 1])
    assert all(r.lost is not None and r.lost >= 0 for r in records)
    dan = Standing.objects.get(user__username="dan", ruleset="official")
    assert dan.games == 1 and dan.rated == 1 and dan.sigma < 25 / 3 and dan.accuracy == records[0].lost
    assert CountedGame.objects.get(game=game).rated is True


def test_a_game_played_alone_is_no_win_counted_or_claimed() -> None:
    a = Client()
    sign_up(a, "solo")
    finish(room_for([controller_of(a)]))
    finish(room_for([controller_of(a), services.new_controller()]), seed=5)
    records = list(GameRecord.objects.filter(user__username="solo").order_by("players").values_list("rank", "players"))
    assert records[0] == (1, 1)  # first of one: nobody was beaten
    mine = Standing.objects.get(user__username="solo", ruleset="official")
    assert mine.games == 2 and mine.wins == (records[1][0] == 1)
    # A browser's games joining an account at sign-in are added up the same way.
    browser = Client()
    token = browser_with_seat_token(browser)
    finish(room_for([token]), seed=6)
    sign_up(browser, "later")
    later = Standing.objects.get(user__username="later", ruleset="official")
    assert later.games == 1 and later.wins == 0
    page = Client().get("/u/later/").content.decode()
    assert re.search(r"<dt>Wins</dt><dd>0</dd>", page)


def test_the_migration_takes_the_wins_of_games_played_alone_off_the_standings() -> None:
    from importlib import import_module

    from django.apps import apps

    a, b = Client(), Client()
    sign_up(a, "ona")
    sign_up(b, "pia")
    finish(room_for([controller_of(a)]))
    for n in range(1, 4):
        finish(room_for([controller_of(a), controller_of(b)]), seed=n)
    counted = dict(Standing.objects.values_list("user__username", "wins"))
    # As the standings were counted when a game played alone was a win.
    Standing.objects.filter(user__username="ona").update(wins=counted["ona"] + 1)
    import_module("accounts.migrations.0005_wins_over_somebody").recount(apps, None)
    assert dict(Standing.objects.values_list("user__username", "wins")) == counted


def test_the_finish_hook_counts_the_game_after_the_commit(django_capture_on_commit_callbacks) -> None:
    a, b = Client(), Client()
    sign_up(a, "fay")
    sign_up(b, "gus")
    table = room_for([controller_of(a), controller_of(b)])
    with django_capture_on_commit_callbacks(execute=True):
        game = play_to_end(table, random.Random(4))
    assert CountedGame.objects.filter(game=game, rated=True).exists()
    assert Standing.objects.get(user__username="gus", ruleset="official").rated == 1


def test_games_against_computers_pass_and_play_and_single_accounts_are_not_rated() -> None:
    a = Client()
    sign_up(a, "hal")
    token = controller_of(a)
    solo = room_for([token, services.new_controller()])  # the other seat has no account
    finish(solo)
    local = services.local_game_create(names=["Hal", "Ida"], controller=token, ruleset="official")
    from tests.factories import Table

    finish(Table(code=local.code, controllers=[token, token]), seed=2)
    hal = Standing.objects.get(user__username="hal", ruleset="official")
    assert hal.games == 2 and hal.rated == 0 and hal.mu == 25.0
    assert not CountedGame.objects.filter(rated=True).exists()


def test_deleting_an_account_keeps_its_games_under_former_player() -> None:
    a, b = Client(), Client()
    sign_up(a, "ivy")
    sign_up(b, "jon")
    done = finish(room_for([controller_of(a), controller_of(b)]))
    live = room_for([controller_of(a), controller_of(b)])
    for room in (done, live):
        services.chat_post(code=room.code, controller=controller_of(a), text="good game")
        services.chat_post(code=room.code, controller=controller_of(b), text="thanks")
    response = a.post("/me/settings", {"action": "delete", "password": "wrong"})
    assert response.status_code == 400 and get_user_model().objects.filter(username="ivy").exists()
    response = a.post("/me/settings", {"action": "delete", "password": PASSWORD})
    assert response.status_code == 302 and not get_user_model().objects.filter(username="ivy").exists()
    assert response["Location"] == "/me/deleted"
    assert "Your account is deleted" in a.get("/me/deleted").content.decode()
    # Its messages in the rooms' chats, posted before, now read "Former player" too.
    for room in (done, live):
        said = [(m["name"], m["text"]) for m in chat_history(room.code)]
        assert said == [("Former player", "good game"), ("P1", "thanks")], room.code
    done.refresh_from_db()
    assert done.snapshot["seats"][0]["name"] == "Former player"
    assert Player.objects.get(game=done, seat=0).name == "Former player"
    record = GameRecord.objects.get(game=done, player__seat=0)
    assert record.user is None and record.score > 0
    replay = replay_game(done)
    assert not replay.problems and replay.names[0] == "Former player"
    assert {turn.name for turn in replay.turns if turn.seat == 0} == {"Former player"}
    # As a word: the page's random CSRF token may hold the letters P0.
    assert not re.search(r"\bP0\b", Client().get(f"/r/{done.code}/fairness").content.decode())
    assert live.game.snapshot["seats"][0]["status"] == Player.Status.LEFT
    assert "Former player" in b.get("/u/jon/").content.decode()
    assert Client().get(f"/r/{done.code}/replay").status_code == 200


def test_the_delete_form_checks_the_password_through_the_sign_in_lockout() -> None:
    a = Client(REMOTE_ADDR="198.51.100.60")
    sign_up(a, "tess")
    for i in range(5):
        a.post("/me/settings", {"action": "delete", "password": f"guess {i}"})
    # Locked out: the right password is refused too, and the account stays.
    response = a.post("/me/settings", {"action": "delete", "password": PASSWORD})
    assert response.status_code == 429 and "Too many" in response.content.decode()
    assert get_user_model().objects.filter(username="tess").exists()


def test_the_change_password_form_checks_the_current_password_through_the_sign_in_lockout() -> None:
    a = Client(REMOTE_ADDR="198.51.100.61")
    sign_up(a, "tom")
    new = {"password1": "a brand new pass 42", "password2": "a brand new pass 42"}
    statuses = [
        a.post("/accounts/password/change/", {"oldpassword": f"guess {i}", **new}).status_code for i in range(5)
    ]
    assert statuses == [200] * 4 + [429]  # the form again, saying so; the fifth locks the address out
    # Locked out: the right password is refused too, and it stays the password.
    response = a.post("/accounts/password/change/", {"oldpassword": PASSWORD, **new})
    assert response.status_code == 429 and "Too many" in response.content.decode()
    assert get_user_model().objects.get(username="tom").check_password(PASSWORD)
    # From another address the right one changes it.
    b = Client(REMOTE_ADDR="198.51.100.62")
    assert b.post("/accounts/login/", {"login": "tom", "password": PASSWORD}).status_code == 302
    assert b.post("/accounts/password/change/", {"oldpassword": PASSWORD, **new}).status_code == 302
    assert get_user_model().objects.get(username="tom").check_password("a brand new pass 42")


def test_deleting_an_account_signs_its_other_browsers_out_with_nothing_of_its_seats() -> None:
    """Ann is signed in on her phone and on her laptop, where Grandma played beside her in an online
    game. Ann deletes the account on the phone: the laptop, at its next page, is a new visitor as the
    phone is, and plays for nobody the account's browsers seated: Grandma's seat in the finished game
    asks for no rematch from it."""
    phone, laptop = Client(), Client()
    sign_up(phone, "ann")
    assert laptop.post("/accounts/login/", {"login": "ann", "password": PASSWORD}).status_code == 302
    token = controller_of(phone)
    table = room_for([token, services.new_controller(), token])  # seat 2: Grandma, at Ann's device
    finish(table, seed=5)
    assert phone.post("/me/settings", {"action": "delete", "password": PASSWORD}).status_code == 302
    laptop.post(f"/r/{table.code}/rematch")
    assert table.game.room.rematch is None, "the deleted account's token asked for Grandma's rematch"
    assert controller_of(laptop) != token
    assert laptop.get("/me").status_code == 302  # signed out: sent to sign in


@pytest.mark.django_db(transaction=True)  # the rooms are told once the sign-out's writes commit, as served
def test_a_sign_out_ends_the_session_before_the_rooms_of_its_open_tabs_hear_of_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bea signs out in one tab, another open at her room: the room is told at once, her seat away,
    and the tab connects again on hearing it. Its browser still sends the session's cookie until
    the sign-out's answer comes: were the session still stored then, the tab would come back as
    Bea, offered her turn, until it next acted."""
    client = Client()
    sign_up(client, "bea")
    token, key = controller_of(client), client.session.session_key
    mark = client.session.get(presence.SESSION_BROWSER)
    assert token and key and mark
    table = room_for([token, services.new_controller()])
    presence.arrive(table.code, "bea-tab", token, mark)
    told: list[tuple[dict[str, str], bool]] = []

    def tell(code: str, frame: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        told.append((frame["seats"], SessionStore().exists(key)))

    monkeypatch.setattr(events, "tell", tell)
    assert client.post("/accounts/logout/").status_code == 302
    assert told == [({"0": "away", "1": "away"}, False)], "the room was told while the session still played Bea"
    assert Presence.objects.get(channel_name="bea-tab").controller == ""


@pytest.mark.django_db(transaction=True)
def test_a_password_change_stops_another_signed_in_browser_playing_the_accounts_seats() -> None:
    """A browser left signed in on a shared computer, or a stolen session cookie: once the owner
    changes the password, that session is over and the account's seats are not played from it
    (the seat token is in the session, so the session's auth hash is checked where it is read)."""
    owner = Client()
    sign_up(owner, "ann")
    response = owner.post("/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"})
    code = response["Location"].strip("/").split("/")[-1]
    owner.post(f"/r/{code}/start", {"version": Game.objects.get(code=code).version, "action_id": "start"})
    left_signed_in = Client()
    assert left_signed_in.post("/accounts/login/", {"login": "ann", "password": PASSWORD}).status_code == 302

    new_password = "a different horse battery staple"
    changed = owner.post(
        "/accounts/password/change/", {"oldpassword": PASSWORD, "password1": new_password, "password2": new_password}
    )
    assert changed.status_code == 302

    version = Game.objects.get(code=code).version
    left_signed_in.post(f"/r/{code}/roll", {"version": version, "action_id": "roll-1"})
    assert Game.objects.get(code=code).version == version, "the old session rolled for the account"
    assert left_signed_in.get(f"/r/{code}/state.json").json()["you"]["seats"] == []
    # The browser that changed it plays on.
    owner.post(f"/r/{code}/roll", {"version": version, "action_id": "roll-2"})
    assert Game.objects.get(code=code).version > version


def test_chat_names_of_accounts_deleted_before_are_renamed_by_the_migration() -> None:
    from importlib import import_module

    from django.apps import apps

    from games.store.models import ChatMessage

    a, b = Client(), Client()
    sign_up(a, "uma")
    sign_up(b, "val")
    room = room_for([controller_of(a), controller_of(b)])
    services.chat_post(code=room.code, controller=controller_of(a), text="hi")
    services.chat_post(code=room.code, controller=controller_of(b), text="hello")
    # What the migration repairs: the seat withdrawn, its chat lines still under its name.
    Player.objects.filter(game__code=room.code, seat=0).update(name="Former player")
    import_module("games.store.migrations.0012_pages_former_player_chat").rename(apps, None)
    names = dict(ChatMessage.objects.filter(game__code=room.code).values_list("text", "name"))
    assert names == {"hi": "Former player", "hello": "P1"}


def test_log_entries_of_accounts_deleted_before_are_renamed_by_the_migration() -> None:
    from importlib import import_module

    from django.apps import apps

    a, b = Client(), Client()
    sign_up(a, "wyn")
    sign_up(b, "xan")
    room = room_for([controller_of(a), controller_of(b)])
    finish(room, seed=2)
    # What the migration repairs: the seat and its row withdrawn, its join still naming it.
    Move.objects.filter(game__code=room.code, kind=Move.Kind.JOIN, player__seat=0).update(
        payload={"seat": 0, "name": "Wyn", "client_seed": "x", "host": True}
    )
    Player.objects.filter(game__code=room.code, seat=0).update(name="Former player")
    import_module("games.store.migrations.0019_moves_former_player").rename(apps, None)
    joins = Move.objects.filter(game__code=room.code, kind=Move.Kind.JOIN).order_by("seq")
    assert [move.payload["name"] for move in joins] == ["Former player", "P1"]
    assert joins[0].payload["client_seed"] == "x"  # the rest of the entry as it was


def test_the_rating_is_provisional_for_five_games_then_a_number_on_the_familiar_scale() -> None:
    # A first game with a winner: a tie rates both alike, and the dice come from each room's
    # own random seeds, so now and then a game ties (another pair of players then plays one).
    for attempt in range(5):
        a, b = Client(), Client()
        sign_up(a, f"wes{attempt}")
        sign_up(b, f"xia{attempt}")
        finish(room_for([controller_of(a), controller_of(b)]), seed=1)
        standings = list(Standing.objects.filter(ruleset="official", user__username__endswith=str(attempt)))
        if len({standing.ordinal for standing in standings}) == 2:
            break
    loser = min(standings, key=lambda s: s.ordinal)
    assert loser.ordinal < 0  # what the page showed bare: "Rating -1.8" after a first loss
    page = Client().get(f"/u/{loser.user.username}/").content.decode()
    assert 'data-testid="rating">Provisional<' in page and "1 of 5 rated games" in page
    assert f"{loser.ordinal:.1f}" not in page and "What is the rating?" in page and "starts at 1500" in page
    for n in range(2, 6):
        finish(room_for([controller_of(a), controller_of(b)]), seed=n)
    loser.refresh_from_db()
    page = Client().get(f"/u/{loser.user.username}/").content.decode()
    shown = round(1500 + 24 * loser.ordinal)
    assert f'data-testid="rating">{shown}<' in page and "Provisional" not in page
    board = Client().get("/leaderboards/official").content.decode()
    assert f">{shown}<" in board and "μ" not in board and "starts at 1500" in board


def test_a_private_profile_is_its_owners_only_and_off_the_leaderboards() -> None:
    a, b = Client(), Client()
    sign_up(a, "kim")
    sign_up(b, "lee")
    for n in range(5):
        finish(room_for([controller_of(a), controller_of(b)]), seed=n)
    board = Client().get("/leaderboards/official").content.decode()
    assert "kim" in board and "lee" in board
    assert a.post("/me/settings", {"action": "privacy"}).status_code == 302  # unticked: private
    assert Client().get("/u/kim/").status_code == 404
    assert b.get("/u/kim/").status_code == 404
    assert a.get("/u/kim/").status_code == 200
    board = Client().get("/leaderboards/official").content.decode()
    assert "/u/kim/" not in board and "/u/lee/" in board


def test_a_profiles_games_list_their_players_in_seat_order_each_name_isolated() -> None:
    """Two right-to-left names in a row ("אבי, שרה") read as one right-to-left run, in the
    wrong order, in a left-to-right page: each name of the Players column is a <bdi> of its own."""
    kim = Client()
    sign_up(kim, "kim")
    host = services.game_create(host_name="אבי", controller=controller_of(kim))
    table = Table(code=host.game.code, controllers=[controller_of(kim), services.new_controller()])
    services.game_join(code=table.code, name="שרה", controller=table.controllers[1])
    services.game_start(code=table.code, controller=table.controllers[0], expected_version=None, action_id=action_id())
    finish(table)
    page = kim.get("/u/kim/").content.decode()
    cell = re.search(r'<td class="players"[^>]*>(.*?)</td>', page, re.S)
    assert cell and "<bdi>אבי</bdi>" in cell.group(1) and "<bdi>שרה</bdi>" in cell.group(1), page


def test_a_profiles_finished_games_give_each_seats_place_and_points_marked_as_your_games_marks_them() -> None:
    """The names alone said nothing of the game: each seat is listed by its place with its points, a
    seat ranked behind for leaving marked so, as Your games' finished list and the game-over notice
    say it."""
    kim = Client()
    sign_up(kim, "kim")
    table = room_for([controller_of(kim), services.new_controller(), services.new_controller()])
    services.game_leave(
        code=table.code, controller=table.controllers[2], seat=2, expected_version=None, action_id=action_id()
    )
    game = finish(table)
    standings = game.room.standings()
    assert [s.behind for s in standings][-1] == "left"
    cell = re.search(r'<td class="players"[^>]*>(.*?)</td>', kim.get("/u/kim/").content.decode(), re.S)
    assert cell
    said = re.sub(r"<[^>]+>", "", cell.group(1))
    told = [
        f"{s.place}. {game.room.seats[s.seat].name} {s.points} points" + (" (left)" if s.behind else "")
        for s in standings
    ]
    assert said == ", ".join(told), said
    # The same words as Your games' list of the game, but for "you", which is the profile's reader's.
    games = Client()
    games.get("/")
    session = games.session
    session["controller"] = table.controllers[1]
    session.save()
    mine = re.search(
        r'<span class="game-players">(.*?)</span>\s*<span class="game-code', games.get("/games").content.decode(), re.S
    )
    assert mine and re.sub(r"<[^>]+>", "", mine.group(1)).replace(" (you)", "") == said


def test_an_account_staff_deactivated_is_off_the_leaderboards_and_the_site() -> None:
    """Staff deactivate an account (*Active* unticked in the admin): nobody signs in to it any more,
    so it leaves the leaderboards, its profile is nobody's page, and a browser still signed in to
    it plays its seats no more."""
    ranked("kim", 9.0, 4.5)
    ranked("lee", 8.0, 5.0)
    kim = get_user_model().objects.get(username="kim")
    browser = Client()
    browser.force_login(kim)
    token = controller_of(browser)  # the account's (accounts.receivers)
    live = room_for([token, services.new_controller()])
    assert browser.get(f"/r/{live.code}/state.json").json()["you"]["seats"] == [0]
    board = Client().get("/leaderboards/official").content.decode()
    assert "/u/kim/" in board and "/u/lee/" in board

    get_user_model().objects.filter(username="kim").update(is_active=False)
    board = Client().get("/leaderboards/official").content.decode()
    assert "/u/kim/" not in board and "/u/lee/" in board
    assert [row["name"] for row in leaderboard(ruleset="official")["by_accuracy"]] == ["lee"]
    assert Client().get("/u/kim/").status_code == 404 and Client().get("/u/lee/").status_code == 200
    assert browser.get(f"/r/{live.code}/state.json").json()["you"]["seats"] == []
    version = live.version()
    browser.post(f"/r/{live.code}/roll", {"version": version, "action_id": "after"})
    assert live.version() == version, "the deactivated account's browser rolled for it"


def test_a_profile_answers_at_its_name_in_any_case_as_sign_in_and_sign_up_treat_names(settings: Any) -> None:
    """Names are one account whatever their case: "Annabel" signs in as "annabel", and "ANNABEL" is
    refused at sign-up as taken. So /u/annabel/ finds the account "Annabel": it sends the browser to
    the profile at the account's own spelling (the page of games it was asked for included)."""
    settings.ACCOUNT_RATE_LIMITS = False
    password = "xq7 horse battery staple"
    signed = Client().post("/accounts/signup/", {"username": "Annabel", "password1": password, "password2": password})
    assert signed.status_code == 302
    assert Client().post("/accounts/login/", {"login": "annabel", "password": password}).status_code == 302
    response = Client().get("/u/annabel/")
    assert response.status_code in (200, 301, 302), response.status_code
    if response.status_code != 200:
        assert response["Location"] == "/u/Annabel/"
    assert Client().get("/u/ANNABEL/?page=2")["Location"] == "/u/Annabel/?page=2"
    assert Client().get("/u/Annabel/").status_code == 200
    assert Client().get("/u/annabelle/").status_code == 404


def ranked(name: str, ordinal: float, accuracy: float) -> None:
    """A public account with five rated and reviewed games of the official rules."""
    u = get_user_model().objects.create_user(username=name, password="x" * 20)
    account_services.profile_for(u.pk)
    Standing.objects.create(
        user=u, ruleset="official", games=5, rated=5, mu=27.0, sigma=6.0, ordinal=ordinal, reviewed=5, accuracy=accuracy
    )


def test_players_with_the_same_rating_or_accuracy_share_their_place_on_the_leaderboard() -> None:
    # zed's account is older than amy's: the id keeps their order, it does not rank zed above amy.
    for name, ordinal, accuracy in [("zed", 9.0, 4.5), ("amy", 9.0, 4.5), ("bob", 8.0, 6.0)]:
        ranked(name, ordinal, accuracy)
    board = leaderboard(ruleset="official")
    assert [(r["rank"], r["name"], r["value"]) for r in board["by_rating"]] == [
        ("1", "zed", "1716"),
        ("1", "amy", "1716"),
        ("3", "bob", "1692"),
    ]
    assert [(r["rank"], r["name"]) for r in board["by_accuracy"]] == [("1", "zed"), ("1", "amy"), ("3", "bob")]
    page = Client().get("/leaderboards/official").content.decode()
    places = re.findall(r'<tr><td class="num">(\d+)</td><td class="name"><a href="/u/(\w+)/"', page)
    assert places == [("1", "zed"), ("1", "amy"), ("3", "bob")] * 2, places


def test_profile_and_leaderboard_pages_take_a_fixed_number_of_queries(django_assert_max_num_queries) -> None:
    few = seed(accounts=3, games=3, rng=random.Random(1))
    many = seed(accounts=3, games=120, rng=random.Random(2))
    viewer = Client()
    sign_up(viewer, "max")
    for name in (few[1], many[1]):  # every tenth seeded profile is private
        for page in ("", "?page=2", "?page=999"):
            with django_assert_max_num_queries(8):
                assert viewer.get(f"/u/{name}/{page}").status_code == 200
        with django_assert_max_num_queries(6):
            assert Client().get("/leaderboards/official").status_code == 200
    page = viewer.get(f"/u/{many[1]}/?page=2").content.decode()
    assert "Page 2 of" in page and page.count("/replay") == 20


def test_painted_stats_say_there_is_no_exact_solver() -> None:
    a, b = Client(), Client()
    sign_up(a, "oli")
    sign_up(b, "pam")
    finish(room_for([controller_of(a), controller_of(b)], ruleset="painted"))
    assert GameRecord.objects.filter(ruleset="painted", lost__isnull=True).count() == 2
    assert "No exact solver" in a.get("/u/oli/").content.decode()
    assert "no exact solver" in Client().get("/leaderboards/painted").content.decode()


def test_one_address_signs_up_at_most_20_accounts_a_minute_and_100_a_day(settings: Any) -> None:
    """Each account holds its name and every name that reads as it: without a bound per day one
    address could take 28,800 names a day at allauth's 20 a minute (and probe as many names for
    being taken). Every sign-up posted counts, taken or refused."""
    from types import SimpleNamespace
    from unittest import mock

    import yahtzee.settings as site
    from tests.conftest import clear_cache

    clear_cache()
    settings.ACCOUNT_RATE_LIMITS = site.ACCOUNT_RATE_LIMITS
    now = [1_000_000.0]
    clock = SimpleNamespace(time=lambda: now[0], monotonic=time.monotonic, sleep=time.sleep)

    def post(name: str) -> int:
        form = {"username": name, "password1": PASSWORD, "password2": PASSWORD}
        return Client(REMOTE_ADDR="198.51.100.20").post("/accounts/signup/", form).status_code

    with mock.patch("allauth.core.internal.ratelimit.time", clock):
        for minute in range(5):
            assert [post(f"p{minute}x{i}") for i in range(20)] == [302] * 20
            assert post(f"p{minute}late") == 429  # the 21st in a minute
            now[0] += 61
        assert post("one_too_many") == 429  # the day's 100 are made
        assert Client(REMOTE_ADDR="198.51.100.21").post("/accounts/signup/", {"username": "other"}).status_code == 200
        now[0] += 86_400
        assert post("next_day") == 302
    assert get_user_model().objects.count() == 101


def test_a_wrong_sign_in_costs_the_same_whether_the_name_is_an_accounts_or_not(settings: Any) -> None:
    """Hashing a password is what a sign-in spends its time on: a name nobody has is answered after
    as many hashings as an account's name with a wrong password (Django's and allauth's backends
    each hash a throwaway one), so the time taken does not tell which names are accounts, as the
    words do not ("the username and/or password you specified are not correct")."""
    from unittest import mock

    from django.contrib.auth.hashers import MD5PasswordHasher

    settings.AXES_FAILURE_LIMIT = 100
    sign_up(Client(), "ann")
    hashings = {}
    for name in ["ann", "ANN", "nobody"]:
        with mock.patch.object(
            MD5PasswordHasher, "encode", autospec=True, side_effect=MD5PasswordHasher.encode
        ) as encode:
            response = Client().post("/accounts/login/", {"login": name, "password": "not the password"})
        assert response.status_code == 200 and "not correct" in response.content.decode()
        hashings[name] = encode.call_count
    assert len(set(hashings.values())) == 1 and hashings["ann"] > 0, hashings


def test_login_is_locked_out_per_address_and_the_password_is_never_logged(caplog) -> None:
    Client().post("/accounts/signup/", {"username": "quin", "password1": PASSWORD, "password2": PASSWORD})
    client = Client()
    caplog.set_level(logging.DEBUG)
    tries = [client.post("/accounts/login/", {"login": "quin", "password": "wrong-secret-xyz"}) for _ in range(5)]
    assert tries[-1].status_code == 429  # axes: this address is locked out
    client.post("/accounts/login/", {"login": "quin", "password": PASSWORD})
    assert "_auth_user_id" not in client.session  # the right password too, while locked out
    assert "wrong-secret-xyz" not in caplog.text and PASSWORD not in caplog.text


def test_the_lockout_page_says_when_to_try_again(settings: Any) -> None:
    """A 429 says when to come back (Retry-After), as the site's other 429s do: the cool-off, which
    each password tried meanwhile starts again."""
    Client().post("/accounts/signup/", {"username": "rita", "password1": PASSWORD, "password2": PASSWORD})
    client = Client(REMOTE_ADDR="198.51.100.70")
    for _ in range(5):
        locked = client.post("/accounts/login/", {"login": "rita", "password": "wrong-secret-xyz"})
    assert locked.status_code == 429 and "Too many sign-in attempts" in locked.content.decode()
    assert locked["Retry-After"] == str(settings.AXES_COOLOFF_TIME.seconds) == "900"
    again = client.post("/accounts/login/", {"login": "rita", "password": PASSWORD})
    assert again.status_code == 429 and again["Retry-After"] == "900"


def test_the_lockout_page_says_a_cool_off_of_one_minute_in_the_singular(settings: Any) -> None:
    settings.AXES_COOLOFF_TIME = timedelta(minutes=1)
    Client().post("/accounts/signup/", {"username": "rory", "password1": PASSWORD, "password2": PASSWORD})
    client = Client(REMOTE_ADDR="198.51.100.71")
    for _ in range(5):
        locked = client.post("/accounts/login/", {"login": "rory", "password": "wrong-secret-xyz"})
    page = locked.content.decode()
    assert locked.status_code == 429 and "refused for 1 minute:" in page, page


def test_the_session_key_rotates_on_sign_in() -> None:
    client = Client()
    browser_with_seat_token(client)
    before = client.session.session_key
    sign_up(client, "ray")
    client.logout()
    browser_with_seat_token(client)
    before = client.session.session_key
    assert client.post("/accounts/login/", {"login": "ray", "password": PASSWORD}).status_code == 302
    assert client.session.session_key != before


def test_a_game_started_while_signed_in_is_the_accounts_when_it_ends() -> None:
    a = Client()
    sign_up(a, "sue")
    game = finish(room_for([controller_of(a), services.new_controller()]))
    assert Player.objects.get(game=game, seat=0).user == user("sue")
    assert game.status == Game.Status.FINISHED


@pytest.mark.parametrize("twin", ["ann\u3164", "\u3164ann", "ann\uffa0", "ann\u115f"])
def test_an_account_name_with_an_invisible_letter_cannot_pose_as_another(settings: Any, twin: str) -> None:
    """Usernames go on the leaderboards and /u/<name>/. "ANN" is refused beside "ann" (allauth compares
    case-insensitively), but Django's validator takes any Unicode letter, and the Hangul fillers are
    letters that draw nothing (codes.py drops them from display names for that reason): "ann" with
    one is a second account that reads "ann" everywhere it is shown."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from tests.accounts.helpers import PASSWORD

    settings.ACCOUNT_RATE_LIMITS = False
    first = Client().post("/accounts/signup/", {"username": "ann", "password1": PASSWORD, "password2": PASSWORD})
    assert first.status_code == 302
    Client().post("/accounts/signup/", {"username": twin, "password1": PASSWORD, "password2": PASSWORD})
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["ann"]


def test_an_account_name_of_invisible_letters_only_is_refused(settings: Any) -> None:
    from django.contrib.auth import get_user_model
    from django.test import Client

    from tests.accounts.helpers import PASSWORD

    settings.ACCOUNT_RATE_LIMITS = False
    Client().post("/accounts/signup/", {"username": "\u3164\u3164\u3164", "password1": PASSWORD, "password2": PASSWORD})
    assert not get_user_model().objects.exists()


def test_an_account_name_whose_bytes_are_not_utf_8_is_refused(settings: Any) -> None:
    """Decoded, "B%FFb" is "B\ufffdb": Django's validator takes letters, digits and @ . + - _ only, so
    no account is named with a letter lost on the way, as no seat is (games.services.clean_name)."""
    settings.ACCOUNT_RATE_LIMITS = False
    body = f"username=B%FFbby&password1={PASSWORD}&password2={PASSWORD}".replace(" ", "+").encode()
    response = Client().post("/accounts/signup/", body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200 and "username" in response.context["form"].errors
    assert not get_user_model().objects.exists()


def test_an_account_name_that_reads_the_same_in_compatibility_letters_cannot_pose_as_another(settings: Any) -> None:
    """Fullwidth or mathematical letters ("ａnn", "𝚊𝚗𝚗") are the name "ann", as Django's own user
    forms keep names: refused as taken, not a second account that reads the same on the boards."""
    settings.ACCOUNT_RATE_LIMITS = False
    sign_up(Client(), "ann")
    for twin in ["\uff41nn", "\U0001d68a\U0001d697\U0001d697"]:
        response = Client().post("/accounts/signup/", {"username": twin, "password1": PASSWORD, "password2": PASSWORD})
        assert response.status_code == 200, f"{twin!r} signed up beside 'ann'"
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["ann"]
    sign_up(Client(), "\uff42en")  # a new name typed in fullwidth letters is kept in its plain form
    assert get_user_model().objects.filter(username="ben").exists()


@pytest.mark.parametrize("twin", ["\u0430nn", "b\u03bfb", "ann\u0456e"])
def test_an_account_name_mixing_alphabets_cannot_pose_as_another(twin: str) -> None:
    """A Cyrillic "а" or "і", a Greek "ο" draw as the Latin letters: "аnn" with a Cyrillic first
    letter is a second account that reads "ann" on the boards. A name keeps to one alphabet."""
    sign_up(Client(), "ann")
    response = Client().post("/accounts/signup/", {"username": twin, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 200
    assert "one alphabet" in str(response.context["form"].errors["username"])
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["ann"]


@pytest.mark.parametrize(
    ("taken", "twin"),
    [("cop", "\u0441\u043e\u0440"), ("Max", "\u041c\u0430\u0445"), ("POKE", "\u03a1\u039f\u039a\u0395")],
)
def test_an_account_name_whose_every_letter_draws_as_a_latin_one_cannot_pose_as_the_latin_name(
    taken: str, twin: str
) -> None:
    """ "сор" is all Cyrillic, so one alphabet, yet reads "cop" on the boards: refused beside "cop"."""
    sign_up(Client(), taken)
    response = Client().post("/accounts/signup/", {"username": twin, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 200
    assert "reads the same as another player" in str(response.context["form"].errors["username"])
    assert list(get_user_model().objects.values_list("username", flat=True)) == [taken]
    sign_up(Client(), "\u0441\u043e\u0440\u043a\u0430")  # a Cyrillic name that is nobody's look-alike is taken
    # The other way round: the Latin name beside the Cyrillic one that reads the same.
    response = Client().post("/accounts/signup/", {"username": "copka", "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 200
    assert "reads the same as another player" in str(response.context["form"].errors["username"])


@pytest.mark.parametrize(
    ("taken", "twin"),
    [
        ("ann_lee", "ann.lee"),
        ("ann_lee", "ann-lee"),
        ("ann_lee", "annlee"),
        ("annlee", "ann_lee"),
        ("ann.lee", "Ann__Lee"),
        ("ann", "_ann+"),
        ("bob@home", "bob.home"),
        ("cop", "\u0441_\u043e\u0440"),
    ],
)
def test_an_account_name_that_differs_only_by_its_separators_cannot_pose_as_another(taken: str, twin: str) -> None:
    """ "ann.lee" beside "ann_lee" reads as the same player on the boards, as "ANN_LEE" would: the
    separators a name may hold (@ . + - _) are left out when names are compared, as reserved names are."""
    sign_up(Client(), taken)
    response = Client().post("/accounts/signup/", {"username": twin, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 200
    assert "reads the same as another player" in str(response.context["form"].errors["username"])
    assert list(get_user_model().objects.values_list("username", flat=True)) == [taken]
    sign_up(Client(), "ann_leo")  # a name that differs by a letter is another name
    assert get_user_model().objects.filter(username="ann_leo").exists()


@pytest.mark.parametrize(
    "name", ["Анна", "Ελένη", "さくら_サクラ_桜", "김민준", "Zoë", "ann_42", "bob.smith@x", "a-b+c", "Straße"]
)
def test_an_account_name_in_one_alphabet_of_any_language_is_taken(name: str) -> None:
    sign_up(Client(), name)
    assert get_user_model().objects.filter(username=name).exists()


@pytest.mark.parametrize(
    "name", ["Spectator", "SPECTATOR", "Zuschauer", "Former_player", "former-player", "Computer", "admin", "Staff"]
)
def test_an_account_name_that_passes_for_the_sites_own_words_or_its_staff_is_refused(name: str) -> None:
    """Names go on the leaderboards and the profiles: one that reads as a spectator, a deleted
    account's seat, a computer or the site's staff is refused, in any case and separator."""
    response = Client().post("/accounts/signup/", {"username": name, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 200
    assert "reserved" in str(response.context["form"].errors["username"])
    assert not get_user_model().objects.exists()


@pytest.mark.parametrize("language", ["da", "de", "es", "fr", "sv"])
def test_the_sign_in_pages_word_for_a_browser_without_javascript_is_in_the_readers_language(language: str) -> None:
    page = Client(HTTP_ACCEPT_LANGUAGE=language).get("/accounts/login/").content.decode()
    assert f'lang="{language}"' in page
    assert "<noscript>" in page and "Passkeys need JavaScript." not in page


def test_ratings_and_accuracies_that_read_the_same_share_their_place() -> None:
    # Ordinals a ten-thousandth apart both read 1716; accuracies 4.52 and 4.54 both read 4.5.
    for name, ordinal, accuracy in [("amy", 9.0001, 4.52), ("zed", 9.0, 4.54), ("bob", 8.0, 6.0)]:
        ranked(name, ordinal, accuracy)
    with translation.override("en"):  # the accuracy's decimal point is the reader's
        board = leaderboard(ruleset="official")
    assert [(r["rank"], r["name"], r["value"]) for r in board["by_rating"]] == [
        ("1", "amy", "1716"),
        ("1", "zed", "1716"),
        ("3", "bob", "1692"),
    ]
    assert [(r["rank"], r["name"], r["value"]) for r in board["by_accuracy"]] == [
        ("1", "amy", "4.5"),
        ("1", "zed", "4.5"),
        ("3", "bob", "6.0"),
    ]


def test_a_profiles_shares_of_games_are_written_as_the_readers_language_writes_a_percentage(monkeypatch: Any) -> None:
    """French, Danish, German, Spanish and Swedish write "40 %": the sign's place is the translation's."""
    ranked("pia", 1.0, 2.0)
    Standing.objects.filter(user__username="pia").update(bonuses=2, yahtzees=1)  # of five games
    real = translation.gettext
    monkeypatch.setattr(
        translation, "gettext", lambda text: "%(percent)s\u202f%%" if text == "%(percent)s%%" else real(text)
    )
    page = Client().get("/u/pia/").content.decode()
    assert "<dd>40\u202f%</dd>" in page and "<dd>20\u202f%</dd>" in page, page


def test_the_leaderboard_rounds_points_lost_to_a_tenth_as_the_profile_shows_them(monkeypatch: Any) -> None:
    """2.96 points lost reads 3.0 on the board as on the account's own page, not a cut-off 2.9 that
    would tie it with a better 2.91; the viewer's own row under the top reads and places the same."""
    for name, accuracy in [("al", 2.91), ("bo", 2.96), ("cy", 9.97), ("di", 2.25), ("ed", 2.3)]:
        ranked(name, 1.0, accuracy)
    board = leaderboard(ruleset="official")
    assert [(r["rank"], r["name"], r["value"]) for r in board["by_accuracy"]] == [
        ("1", "di", "2.3"),
        ("1", "ed", "2.3"),
        ("3", "al", "2.9"),
        ("4", "bo", "3.0"),
        ("5", "cy", "10.0"),
    ]
    monkeypatch.setattr("accounts.selectors.LEADERBOARD_SIZE", 1)
    users = get_user_model().objects
    mine = leaderboard(ruleset="official", viewer_id=users.get(username="bo").pk)["mine_by_accuracy"]
    assert (mine["rank"], mine["value"]) == ("4", "3.0")
    mine = leaderboard(ruleset="official", viewer_id=users.get(username="ed").pk)["mine_by_accuracy"]
    assert (mine["rank"], mine["value"]) == ("1", "2.3")
    with translation.override("fr"):
        assert leaderboard(ruleset="official")["by_accuracy"][0]["value"] == "2,3"
    me = Client()
    me.force_login(users.get(username="bo"))
    assert "<dd>3.0</dd>" in me.get("/u/bo/").content.decode()


def test_a_player_below_the_leaderboards_top_finds_their_own_place_under_it(monkeypatch: Any) -> None:
    monkeypatch.setattr("accounts.selectors.LEADERBOARD_SIZE", 2)
    # cy and di read the same rating and accuracy as bo, the last of the top two: they share bo's place.
    for name, ordinal, accuracy in [("al", 9.0, 4.0), ("bo", 8.0, 5.0), ("cy", 8.0001, 5.01), ("di", 8.0, 5.0)]:
        ranked(name, ordinal, accuracy)
    ranked("ed", 2.0, 9.0)
    me = Client()
    me.force_login(get_user_model().objects.get(username="ed"))
    page = me.get("/leaderboards/official").content.decode()
    mine = r'<tr class="you"[^>]*><td class="num">{}</td><td class="name"><a href="/u/ed/"[^>]*>ed</a></td>'
    mine += r'<td class="num">{}</td>'
    assert re.search(mine.format(5, 1548), page) and re.search(mine.format(5, r"9\.0"), page), page
    assert page.count('class="you"') == 2  # once a board, under its top
    me.force_login(get_user_model().objects.get(username="di"))
    page = me.get("/leaderboards/official").content.decode()
    di = r'<tr class="you"[^>]*><td class="num">2</td><td class="name"><a href="/u/di/"'
    assert len(re.findall(di, page)) == 2, page
    # Someone in the top is marked in it, not listed again; a visitor and a player not listed see no row.
    me.force_login(get_user_model().objects.get(username="al"))
    page = me.get("/leaderboards/official").content.decode()
    assert len(re.findall(r'<tr class="you" aria-current="true"><td class="num">1</td>', page)) == 2
    assert page.count('class="you"') == 2
    assert 'class="you"' not in Client().get("/leaderboards/official").content.decode()
    Profile.objects.filter(user__username="ed").update(public=False)
    me.force_login(get_user_model().objects.get(username="ed"))
    assert 'class="you"' not in me.get("/leaderboards/official").content.decode()

"""Deleting an account withdraws its name from everything it left behind, however it is deleted."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from axes.models import AccessLog
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from accounts import services as account_services
from accounts.models import GameRecord, Standing
from games import services
from games.services.waiting import word
from games.store.models import Game, Move, Notice, Player
from tests.accounts.helpers import PASSWORD, controller_of, finish, room_for, sign_up
from tests.factories import Table, action_id, play_to_end, score_first_legal

pytestmark = pytest.mark.django_db
FORMER = "Former player"
GERMAN = "Ehemalige Person"  # what the German settings and farewell pages promise it reads


@pytest.fixture(autouse=True)
def _settings(settings: Any) -> None:
    settings.FOLLOWUPS_INLINE = True
    settings.ACCOUNT_RATE_LIMITS = False


def own_pace(host: Client, guest: Client, host_name: str) -> Table:
    me, other = controller_of(host), controller_of(guest)
    code = services.game_create(host_name=host_name, controller=me, pace="own", turn_timer=86_400).game.code
    services.game_join(code=code, name="Ben", controller=other)
    table = Table(code=code, controllers=[me, other])
    services.game_start(code=code, controller=me, expected_version=table.version(), action_id=action_id())
    return table


def test_a_seat_a_computer_took_over_while_its_player_was_away_is_withdrawn_too() -> None:
    ann, ben = Client(), Client()
    sign_up(ann, "annabel")
    sign_up(ben, "benedict")
    table = own_pace(ann, ben, "Annabel")
    for _ in range(2):  # Annabel's moves run out twice in a row: a computer plays her seat
        Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() - timedelta(seconds=1))
        assert services.clock_expire(code=table.code, version=table.version())
        if table.game.snapshot["rules"]["current"] == 1:
            score_first_legal(table)
    assert table.game.snapshot["seats"][0]["kind"] == "bot"
    assert ann.post("/me/settings", {"action": "delete", "password": PASSWORD}).status_code == 302
    game = table.game
    assert game.snapshot["seats"][0]["name"] == FORMER and game.room.seats[0].away_controller == ""
    assert Player.objects.get(game=game, seat=0).name == FORMER
    assert "Annabel" not in Client().get(f"/r/{table.code}/state.json").content.decode()
    # Nor in the log staff read, nor in the notices that told Ben what she did.
    assert not [m.kind for m in Move.objects.filter(game=game) if "Annabel" in str(m.payload)]
    assert not [n.pk for n in Notice.objects.filter(game=game) if "Annabel" in n.text + str(n.event)]


def test_only_the_hosts_seat_of_a_pass_and_play_game_was_the_accounts() -> None:
    ann = Client()
    sign_up(ann, "annika")
    token = controller_of(ann)
    local = services.local_game_create(names=["Annika", "Bruno", "Carla"], controller=token, ruleset="official")
    game = finish(Table(code=local.code, controllers=[token] * 3), seed=4)
    assert ann.post("/me/settings", {"action": "delete", "password": PASSWORD}).status_code == 302
    game.refresh_from_db()
    assert [seat["name"] for seat in game.snapshot["seats"]] == [FORMER, "Bruno", "Carla"]


def test_deleting_an_account_keeps_the_name_of_a_companion_who_shared_its_device_in_an_online_game() -> None:
    """An online game where Ann's browser also seated Grandma (people sharing a device): only Ann's
    seat is the account's (its record; docs/accounts.md), and Grandma's result is nobody's. When Ann
    deletes her account, her seat becomes "Former player" and Grandma keeps her name, on the replay
    and every other player's profile."""
    ann = Client()
    sign_up(ann, "ann")
    me = controller_of(ann)
    other = services.new_controller()
    code = services.game_create(host_name="Ann", controller=me, ruleset="official").game.code
    services.game_join(code=code, name="Stranger", controller=other)
    services.game_join(code=code, name="Grandma", controller=me)
    services.game_start(code=code, controller=me, expected_version=None, action_id=action_id())
    game = finish(Table(code=code, controllers=[me, other, me]), seed=5)
    assert list(GameRecord.objects.filter(game=game, user__isnull=False).values_list("player__seat", flat=True)) == [0]

    assert ann.post("/me/settings", {"action": "delete", "password": PASSWORD}).status_code == 302
    game.refresh_from_db()
    assert [seat["name"] for seat in game.snapshot["seats"]] == [FORMER, "Stranger", "Grandma"]
    assert "Grandma" in Client().get(f"/r/{code}/replay").content.decode()


def test_a_companions_seat_marked_as_the_accounts_by_an_earlier_count_is_unmarked_by_the_migration() -> None:
    """Counting once marked every seat of an account's browser with the account, though only the
    first was its record: the migration takes the mark off the others, which deleting the account
    then leaves under their own names."""
    from importlib import import_module

    from django.apps import apps

    ann = Client()
    sign_up(ann, "ann")
    me = controller_of(ann)
    table = room_for([me, services.new_controller(), me])
    game = finish(table, seed=5)
    account = get_user_model().objects.get(username="ann")
    Player.objects.filter(game=game, seat=2).update(user=account)  # as an earlier count left it
    import_module("accounts.migrations.0003_companion_seats_not_the_accounts").unmark(apps, None)
    assert list(Player.objects.filter(game=game, user=account).values_list("seat", flat=True)) == [0]
    assert ann.post("/me/settings", {"action": "delete", "password": PASSWORD}).status_code == 302
    assert [seat.name for seat in Game.objects.get(pk=game.pk).room.seats] == [FORMER, "P1", "P2"]


def test_the_sign_in_log_keeps_nothing_under_the_deleted_name() -> None:
    client = Client(REMOTE_ADDR="203.0.113.7", HTTP_USER_AGENT="Firefox/120 (Linux)")
    sign_up(client, "yolanda")
    client.post("/accounts/logout/")
    assert client.post("/accounts/login/", {"login": "yolanda", "password": PASSWORD}).status_code == 302
    assert AccessLog.objects.filter(username="yolanda").exists()
    assert client.post("/me/settings", {"action": "delete", "password": PASSWORD}).status_code == 302
    assert not AccessLog.objects.filter(username="yolanda").exists()


def test_the_sign_in_log_keeps_nothing_under_the_deleted_name_typed_in_another_case() -> None:
    """Signing in takes the name in any case, and the log keeps it as typed: "YOLANDA" is hers too."""
    from axes.models import AccessAttempt, AccessFailureLog

    client = Client(REMOTE_ADDR="203.0.113.8")
    sign_up(client, "yolanda")
    client.post("/accounts/logout/")
    assert client.post("/accounts/login/", {"login": "YOLANDA", "password": "not it"}).status_code == 200
    elsewhere = Client(REMOTE_ADDR="203.0.113.9")  # a mistyped password from a browser that never signs in
    assert elsewhere.post("/accounts/login/", {"login": "Yolanda", "password": "not it"}).status_code == 200
    assert client.post("/accounts/login/", {"login": "Yolanda", "password": PASSWORD}).status_code == 302
    assert client.post("/me/settings", {"action": "delete", "password": PASSWORD}).status_code == 302
    for model in (AccessLog, AccessAttempt, AccessFailureLog):
        assert not model.objects.filter(username__iexact="yolanda").exists(), model.__name__


def test_a_user_deleted_in_the_admin_is_withdrawn_as_by_the_settings_page_and_records_cannot_be(
    admin_client: Client,
) -> None:
    a, b = Client(), Client()
    sign_up(a, "fiona")
    sign_up(b, "gregor")
    game = play_to_end(room_for([controller_of(a), controller_of(b)]), random.Random(3))
    account_services.game_count(game_id=game.pk)
    record = GameRecord.objects.filter(game=game, user__username="gregor").get()
    standing = Standing.objects.filter(user__username="gregor").first()
    assert standing is not None
    changelist = admin_client.get(reverse("admin:accounts_gamerecord_changelist")).content.decode()
    assert 'value="delete_selected"' not in changelist
    admin_client.post(
        reverse("admin:accounts_gamerecord_changelist"),
        {"action": "delete_selected", "_selected_action": [record.pk], "post": "yes"},
    )
    assert (
        admin_client.post(reverse("admin:accounts_standing_delete", args=[standing.pk]), {"post": "yes"}).status_code
        == 403
    )
    assert GameRecord.objects.filter(pk=record.pk).exists() and Standing.objects.filter(pk=standing.pk).exists()
    fiona = get_user_model().objects.get(username="fiona")
    response = admin_client.post(reverse("admin:auth_user_delete", args=[fiona.pk]), {"post": "yes"})
    assert response.status_code == 302 and not get_user_model().objects.filter(pk=fiona.pk).exists()
    assert Player.objects.get(game=game, seat=0).name == FORMER


def test_the_notices_lose_the_deleted_name_and_keep_another_players_name_that_contains_it() -> None:
    al, alvin = Client(), Client()
    sign_up(al, "alfred")
    sign_up(alvin, "alvinsky")
    me, other = controller_of(al), controller_of(alvin)
    code = services.game_create(host_name="Al", controller=me, pace="own", turn_timer=86_400).game.code
    services.game_join(code=code, name="Alvin", controller=other)
    table = Table(code=code, controllers=[me, other])
    services.game_start(code=code, controller=me, expected_version=table.version(), action_id=action_id())
    score_first_legal(table)  # Al's move: Alvin is told
    score_first_legal(table)  # Alvin's move: Al is told
    told = {n.player.name: n for n in Notice.objects.filter(game=table.game, kind=Notice.Kind.TURN)}
    assert told["Alvin"].text.startswith("Al just scored") and told["Al"].text.startswith("Alvin just scored")
    assert al.post("/me/settings", {"action": "delete", "password": PASSWORD}).status_code == 302
    to_alvin = Notice.objects.get(pk=told["Alvin"].pk)
    to_al = Notice.objects.get(pk=told["Al"].pk)
    assert to_alvin.text.startswith(f"{FORMER} just scored") and to_alvin.event["name"] == FORMER
    assert to_al.text == told["Al"].text and to_al.event == told["Al"].event  # "Alvin" is not "Al"


def test_a_deleted_accounts_seat_is_named_in_the_readers_language() -> None:
    ann, ben = Client(HTTP_ACCEPT_LANGUAGE="de"), Client(HTTP_ACCEPT_LANGUAGE="de")
    sign_up(ann, "annika")
    sign_up(ben, "bruno")
    table = own_pace(ann, ben, "Annika")
    finish(table, seed=4)
    farewell = ann.post("/me/settings", {"action": "delete", "password": PASSWORD}, follow=True).content.decode()
    assert GERMAN in farewell
    assert table.game.snapshot["seats"][0]["name"] == FORMER  # stored as it was: each page words it
    german = Client(HTTP_ACCEPT_LANGUAGE="de")
    pages = {
        "replay": german.get(f"/r/{table.code}/replay").content.decode(),
        "fairness": german.get(f"/r/{table.code}/fairness").content.decode(),
        "profile": ben.get("/u/bruno/").content.decode(),
    }
    for page, html in pages.items():
        assert '<html lang="de"' in html, page
        assert FORMER not in html and GERMAN in html, page
    # The lines that told the others what the seat did are worded in each reader's language too.
    with translation.override("de"):
        assert word({"what": "left", "name": FORMER}, "official") == f"\u2068{GERMAN}\u2069 hat das Spiel verlassen"


def test_deleting_an_account_leaves_its_seat_a_computer_plays_while_it_is_away() -> None:
    """At your own pace a player whose time ran out twice is played by a computer until they are back:
    that seat is the account's too, and is left with its others, not played out as "Former player"."""
    ann, ben = Client(), Client()
    sign_up(ann, "annabel")
    sign_up(ben, "benedict")
    table = own_pace(ann, ben, "Annabel")
    for _ in range(2):  # Ben's moves run out twice in a row: a computer plays his seat
        score_first_legal(table)
        Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() - timedelta(seconds=1))
        assert services.clock_expire(code=table.code, version=table.version())
    assert table.game.room.seats[1].bot and table.game.room.seats[1].away_controller
    assert ben.post("/me/settings", {"action": "delete", "password": PASSWORD}).status_code == 302
    game = table.game
    assert not game.room.seats[1].active and game.room.seats[1].name == FORMER
    # Annabel plays on without it, as after any player's leaving.
    assert list(game.room.rules.active) == [True, False]


def refused_name(name: str) -> str:
    """The sign-up form's error on the name ``name``, which it refuses."""
    response = Client().post("/accounts/signup/", {"username": name, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 200, f"{name!r} was taken"
    return str(response.context["form"].errors["username"])


def test_a_deleted_accounts_name_is_held_from_everyone_for_90_days() -> None:
    """Nobody can take a just-deleted friend's name and be read as them on the boards and in chat:
    the name, and names that read as it, are held; then anyone may take it."""
    from accounts.models import HeldName

    yolanda = Client()
    sign_up(yolanda, "yo_landa")
    assert (
        "Once it is deleted, nobody can sign up with its name for 90 days, you included."
        in yolanda.get("/me/settings").content.decode()
    )
    assert yolanda.post("/me/settings", {"action": "delete", "password": PASSWORD}).status_code == 302
    for twin in ["yo_landa", "Yolanda", "yo.landa", "YO-LANDA"]:
        assert "cannot be taken again yet" in refused_name(twin)
    assert not get_user_model().objects.exists()
    held = HeldName.objects.get()
    assert "landa" not in str(held.key).casefold()  # the name itself is not kept
    assert timedelta(days=89) < held.until - timezone.now() <= timedelta(days=90)
    sign_up(Client(), "yolanda2")  # another name is free
    HeldName.objects.update(until=timezone.now() - timedelta(seconds=1))
    sign_up(Client(), "Yolanda")
    assert set(get_user_model().objects.values_list("username", flat=True)) == {"yolanda2", "Yolanda"}


def test_a_name_deleted_in_the_admin_is_held_too_and_an_expired_hold_is_dropped() -> None:
    from accounts.models import HeldName

    sign_up(Client(), "zara")
    sign_up(Client(), "quinn")
    get_user_model().objects.filter(username="zara").delete()
    assert "cannot be taken again yet" in refused_name("zara")
    HeldName.objects.update(until=timezone.now() - timedelta(seconds=1))
    get_user_model().objects.filter(username="quinn").delete()  # a deletion drops the holds that are over
    assert HeldName.objects.count() == 1
    sign_up(Client(), "zara")


def test_with_no_hold_a_deleted_accounts_name_is_free_at_once(settings: Any) -> None:
    from accounts.models import HeldName

    settings.DELETED_NAME_HOLD_DAYS = 0
    zara = Client()
    sign_up(zara, "zara")
    assert "nobody can sign up with its name" not in zara.get("/me/settings").content.decode()
    get_user_model().objects.filter(username="zara").delete()
    assert not HeldName.objects.exists()
    sign_up(Client(), "zara")

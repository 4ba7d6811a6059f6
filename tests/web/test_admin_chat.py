"""The admin and the chat: messages beside the moves in the game's review, and staff hiding one (logged)."""

from __future__ import annotations

import random
import re
from html import unescape

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client
from django.urls import reverse

from games import services
from games.store.models import ChatMessage, Game, Move
from games.store.selectors import chat_history
from tests.factories import open_room, play_to_end, play_turn, spectators_chat_room
from tests.web.test_admin import game_url, staff_client, text  # noqa: F401  (the fixture)
from tests.web.test_admin_pace import give_more_time

pytestmark = pytest.mark.django_db

CHAT_LIST = reverse("admin:games_chatmessage_changelist")


def chatty_finished_game() -> tuple[Game, list[ChatMessage]]:
    table = open_room(2)
    rng = random.Random(5)
    first = services.chat_post(code=table.code, controller=table.controllers[0], text="<b>good luck</b>")
    play_turn(table, rng)
    second = services.chat_post(code=table.code, controller=table.controllers[1], text="nice roll")
    game = play_to_end(table, rng)
    return game, list(ChatMessage.objects.filter(pk__in=[first["id"], second["id"]]).order_by("id"))


def test_the_review_shows_each_message_after_the_move_it_followed_as_text(staff_client: Client) -> None:  # noqa: F811
    game, (first, second) = chatty_finished_game()
    response = staff_client.get(game_url(game))
    html = response.content.decode()
    assert "&lt;b&gt;good luck&lt;/b&gt;" in html and "<b>good luck</b>" not in html
    page = text(response)
    assert "Room events and chat" in page
    # The start is move 3; P0's message came after it, P1's after the first turn's moves.
    start = Move.objects.get(game=game, kind=Move.Kind.START).seq
    assert first.after_seq == start and second.after_seq > start
    assert page.index("<b>good luck</b>") < page.index("nice roll")
    assert page.index(" Start ") < page.index("<b>good luck</b>")


def test_the_review_shows_the_host_muting_a_spectator_beside_the_spectators_lines(staff_client: Client) -> None:  # noqa: F811
    table = spectators_chat_room()
    troll = services.new_controller()
    handle = services.chat_post(code=table.code, controller=troll, text="spam spam")["spectator"]
    services.spectator_mute(
        code=table.code, controller=table.controllers[0], spectator=handle, expected_version=None, action_id="m"
    )
    services.spectator_unmute(
        code=table.code, controller=table.controllers[0], spectator=handle, expected_version=None, action_id="u"
    )
    game = play_to_end(table, random.Random(5))
    page = text(staff_client.get(game_url(game)))
    assert f"Spectator {handle} spam spam" in page
    assert page.index(f"spectator {handle} muted") < page.index(f"spectator {handle} unmuted")
    assert page.index("spam spam") < page.index(f"spectator {handle} muted")
    assert troll not in staff_client.get(game_url(game)).content.decode()  # the handle, never the token


def test_staff_hide_a_message_from_its_room_and_the_admin_logs_it(staff_client: Client) -> None:  # noqa: F811
    table = open_room(2)
    message = services.chat_post(code=table.code, controller=table.controllers[1], text="rude words")
    response = staff_client.post(CHAT_LIST, {"action": "hide_messages", "_selected_action": [message["id"]]})
    assert response.status_code == 302
    assert ChatMessage.objects.get(pk=message["id"]).hidden
    assert chat_history(table.code) == []
    entry = LogEntry.objects.get(object_id=str(message["id"]))
    assert entry.user.username == "clerk" and "Hidden" in entry.get_change_message()
    staff_client.post(CHAT_LIST, {"action": "show_messages", "_selected_action": [message["id"]]})
    assert [m["text"] for m in chat_history(table.code)] == ["rude words"]
    assert LogEntry.objects.filter(object_id=str(message["id"])).count() == 2


def test_a_message_itself_cannot_be_changed_added_or_deleted(admin_client: Client) -> None:
    table = open_room(2)
    message = services.chat_post(code=table.code, controller=table.controllers[0], text="as I wrote it")
    for url, data in (
        (reverse("admin:games_chatmessage_change", args=[message["id"]]), {"text": "forged", "hidden": "on"}),
        (reverse("admin:games_chatmessage_delete", args=[message["id"]]), {"post": "yes"}),
        (reverse("admin:games_chatmessage_add"), {"text": "new"}),
    ):
        assert admin_client.post(url, data).status_code in (302, 403, 404)
    stored = ChatMessage.objects.get(pk=message["id"])
    assert (stored.text, stored.hidden) == ("as I wrote it", False)
    assert ChatMessage.objects.count() == 1


def test_people_who_are_not_staff_cannot_hide_messages() -> None:
    table = open_room(2)
    message = services.chat_post(code=table.code, controller=table.controllers[0], text="stays")
    response = Client().post(CHAT_LIST, {"action": "hide_messages", "_selected_action": [message["id"]]})
    assert response.status_code == 302 and "login" in response["Location"]
    assert not ChatMessage.objects.get(pk=message["id"]).hidden


def test_staff_find_a_live_room_and_its_chat_by_the_code_as_players_see_it(staff_client: Client) -> None:  # noqa: F811
    """Players quote a room's code as the site shows it, "abcd-efgh-jk": *Games under way* and
    *Chat messages*, the lists staff act on while a game is on, find it as the games list does."""
    table = open_room(2)
    services.chat_post(code=table.code, controller=table.controllers[1], text="rude words")
    shown = services.shown_code(table.code)
    assert "-" in shown
    under_way = staff_client.get(reverse("admin:games_gameunderway_changelist"), {"q": shown})
    assert [game.code for game in under_way.context["cl"].result_list] == [table.code]
    chat = staff_client.get(CHAT_LIST, {"q": shown})
    assert [message.text for message in chat.context["cl"].result_list] == ["rude words"]


def test_deleting_a_staff_account_keeps_the_record_of_what_it_moderated(
    staff_client: Client,  # noqa: F811
    admin_client: Client,
) -> None:
    """docs/admin.md: each hide or show is kept with who did it and when. Django deletes a user's
    LogEntry rows with the user: the message's History reads the game's own record instead,
    which stays when the staff account is deleted (by a superuser in *Users*, or by its owner)."""
    from django.contrib.auth import get_user_model

    table = open_room(2)
    services.chat_post(code=table.code, controller=table.controllers[1], text="abuse")
    message = ChatMessage.objects.get()
    staff_client.post(CHAT_LIST, {"action": "hide_messages", "_selected_action": [message.pk]})
    assert ChatMessage.objects.get().hidden and LogEntry.objects.count() == 1
    clerk = get_user_model().objects.get(username="clerk")
    response = admin_client.post(reverse("admin:auth_user_delete", args=[clerk.pk]), {"post": "yes"})
    assert response.status_code == 302 and not get_user_model().objects.filter(username="clerk").exists()
    assert ChatMessage.objects.get().hidden
    history = text(admin_client.get(reverse("admin:games_chatmessage_history", args=[message.pk])))
    assert "clerk Hidden from the room" in history, history[-300:]


def test_the_hides_the_admins_log_holds_are_kept_with_their_messages_by_the_migration(
    staff_client: Client,  # noqa: F811
) -> None:
    from importlib import import_module

    from django.apps import apps

    from games.store.models import ChatModeration

    table = open_room(2)
    services.chat_post(code=table.code, controller=table.controllers[1], text="abuse")
    message = ChatMessage.objects.get()
    staff_client.post(CHAT_LIST, {"action": "hide_messages", "_selected_action": [message.pk]})
    staff_client.post(CHAT_LIST, {"action": "show_messages", "_selected_action": [message.pk]})
    logged = list(LogEntry.objects.order_by("action_time", "id").values_list("action_time", flat=True))
    ChatModeration.objects.all().delete()  # as before the messages kept their own record
    import_module("games.store.migrations.0020_chatmoderation").from_admin_log(apps, None)
    kept = list(ChatModeration.objects.filter(message=message).values_list("hidden", "staff", "at"))
    assert kept == [(True, "clerk", logged[0]), (False, "clerk", logged[1])]


def test_a_deleted_accounts_name_does_not_stay_in_the_admins_log_of_staff_actions(staff_client: Client) -> None:  # noqa: F811
    """docs/accounts.md: deleting an account withdraws its name "in the entries of the game's log
    that named it ..., which staff read". The admin's own log of staff actions on the game names
    no player: Recent actions never reads "Gave Benedict 1 day more" or "…: Benedict: hello"."""
    from games.services.codes import FORMER_PLAYER
    from tests.accounts.helpers import PASSWORD, controller_of, sign_up
    from tests.factories import Table, action_id, score_first_legal

    ann, ben = Client(), Client()
    sign_up(ann, "annabel")
    sign_up(ben, "benedict")
    me, other = controller_of(ann), controller_of(ben)
    code = services.game_create(host_name="Annabel", controller=me, pace="own", turn_timer=86_400).game.code
    services.game_join(code=code, name="Benedict", controller=other)
    table = Table(code=code, controllers=[me, other])
    services.game_start(code=code, controller=me, expected_version=None, action_id=action_id())
    score_first_legal(table)  # Benedict to move
    services.chat_post(code=code, controller=other, text="hello all")
    message = ChatMessage.objects.get(game__code=code)
    give_more_time(staff_client, table.game)
    staff_client.post(CHAT_LIST, {"action": "hide_messages", "_selected_action": [message.pk]})
    assert LogEntry.objects.count() == 2
    assert ben.post("/me/settings", {"action": "delete", "password": PASSWORD}).status_code == 302
    assert table.game.snapshot["seats"][1]["name"] == FORMER_PLAYER  # withdrawn from the game itself
    left = [
        f"{entry.object_repr} / {entry.get_change_message()}"
        for entry in LogEntry.objects.all()
        if "Benedict" in entry.object_repr + entry.get_change_message()
    ]
    assert left == []
    assert "Benedict" not in staff_client.get(reverse("admin:index")).content.decode()
    history = text(staff_client.get(reverse("admin:games_gameunderway_history", args=[table.game.pk])))
    assert f"Gave {FORMER_PLAYER} 1 day more to move" in history and "Benedict" not in history


def test_the_admins_log_written_before_names_no_player_after_the_migration(staff_client: Client) -> None:  # noqa: F811
    from importlib import import_module

    from django.apps import apps
    from django.contrib.contenttypes.models import ContentType

    from games.store.models import GameUnderWay
    from tests.factories import own_pace_room

    table = own_pace_room(players=2, seconds=86_400)
    services.chat_post(code=table.code, controller=table.controllers[1], text="hello all")
    message = ChatMessage.objects.get()
    give_more_time(staff_client, table.game)
    staff_client.post(CHAT_LIST, {"action": "hide_messages", "_selected_action": [message.pk]})
    deadline = Move.objects.get(game=table.game, kind=Move.Kind.EXTEND).payload["deadline"]
    # As the admin logged them before: against the proxy, with the players' names.
    extended = LogEntry.objects.get(content_type=ContentType.objects.get_for_model(Game))
    extended.content_type = ContentType.objects.get_for_model(GameUnderWay, for_concrete_model=False)
    extended.change_message = f"Gave Al Bundy 1 day more to move (until {deadline})"
    extended.save()
    hidden = LogEntry.objects.filter(content_type=ContentType.objects.get_for_model(ChatMessage))
    hidden.update(object_repr=f"{table.code}: P1: hello all")
    import_module("games.store.migrations.0021_admin_log_without_names").withdraw(apps, None)
    extended.refresh_from_db()
    assert extended.change_message == f"Gave the player to move (seat 1) 1 day more (until {deadline})"
    assert hidden.get().object_repr == f"{table.code}: hello all"


def test_the_admin_log_migrations_pass_over_an_object_id_that_is_not_ascii_digits(staff_client: Client) -> None:  # noqa: F811
    """An admin log entry's object id is text: one str.isdigit() takes but int() refuses (a
    superscript two) is not a message's, and the migrations carry on past it."""
    from importlib import import_module

    from django.apps import apps
    from django.contrib.contenttypes.models import ContentType

    from games.store.models import ChatModeration, GameUnderWay

    table = open_room(2)
    services.chat_post(code=table.code, controller=table.controllers[1], text="abuse")
    message = ChatMessage.objects.get()
    staff_client.post(CHAT_LIST, {"action": "hide_messages", "_selected_action": [message.pk]})
    entry = LogEntry.objects.get()
    odd = {"object_id": "\u00b2", "object_repr": "odd"}
    LogEntry.objects.create(
        **{**{f: getattr(entry, f) for f in ("user_id", "content_type_id", "action_flag")}, **odd},
        change_message=entry.change_message,
    )
    under_way = ContentType.objects.get_for_model(GameUnderWay, for_concrete_model=False)
    LogEntry.objects.create(
        user_id=entry.user_id, content_type=under_way, action_flag=2, object_id="\u0661", object_repr="x",
        change_message="Gave Al Bundy 1 day more to move (until 2030-01-01T00:00)",
    )  # fmt: skip
    ChatModeration.objects.all().delete()
    import_module("games.store.migrations.0020_chatmoderation").from_admin_log(apps, None)
    assert list(ChatModeration.objects.values_list("message_id", "hidden")) == [(message.pk, True)]
    import_module("games.store.migrations.0021_admin_log_without_names").withdraw(apps, None)
    assert LogEntry.objects.get(object_repr="odd").object_repr == "odd"


def test_a_running_games_chat_message_links_to_the_games_page_under_way(staff_client: Client) -> None:  # noqa: F811
    """*Chat messages* lists live rooms' messages (to hide one while the game is on); the link to the
    message's game, a Game, leads to its page in Games under way while it runs."""
    table = open_room(2)
    services.chat_post(code=table.code, controller=table.controllers[1], text="rude words")
    message = ChatMessage.objects.get()
    html = staff_client.get(reverse("admin:games_chatmessage_change", args=[message.pk])).content.decode()
    link = re.search(r'<div class="readonly"><a href="([^"]+)">[^<]*' + services.shown_code(table.code), html)
    assert link, "the message's page does not link its game"
    response = staff_client.get(unescape(link.group(1)), follow=True)
    assert response.redirect_chain[-1][0] == reverse("admin:games_gameunderway_change", args=[table.game.pk])
    assert "doesn’t exist" not in text(response)

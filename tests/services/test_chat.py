"""The chat's service: what a message may be, and who may speak (mutes that hold, a host's own seat)."""

from __future__ import annotations

import pytest

from games import services
from games.domain.errors import BAD_MESSAGE, MUTED
from games.domain.rules import RuleViolation
from games.services.chat import chat_post, clean_message, seat_mute, seat_unmute
from games.store.models import ChatMessage, Game
from tests.factories import action_id, open_room, spectators_chat_room

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "text",
    [
        "\u200b",  # zero-width space
        "\u200b\u200b\u200b",
        "\ufeff",  # BOM / zero-width no-break space
        "\u2060",  # word joiner
        "\u3164\u3164",  # Hangul filler
        "\u2800",  # Braille blank
        "\u202e",  # right-to-left override alone
        "\u200e\u200f",  # direction marks
    ],
)
def test_a_chat_message_that_shows_nothing_is_refused(text: str) -> None:
    """protocol.md: bad_message for a message empty after trimming; chat.py: "A chat message needs
    some text". A message of invisible characters only is stored and shown as a blank line."""
    table = open_room(2)
    with pytest.raises(RuleViolation) as caught:
        chat_post(code=table.code, controller=table.controllers[0], text=text)
    assert caught.value.code == BAD_MESSAGE
    assert not ChatMessage.objects.filter(game__code=table.code).exists()


def test_a_muted_player_who_leaves_the_lobby_is_still_muted() -> None:
    """game_join keeps a mute for the browser's next seat ("leaving and joining again would undo
    it"); but leaving alone lets the muted browser post as "Spectator" in a room whose
    spectators may chat: the mute undone by one click, and anonymously."""
    controllers = [services.new_controller(), services.new_controller()]
    host = services.game_create(host_name="Host", controller=controllers[0], chat_spectators=True)
    code = host.game.code
    services.game_join(code=code, name="Troll", controller=controllers[1])
    version = Game.objects.get(code=code).version
    seat_mute(code=code, controller=controllers[0], seat=1, expected_version=version, action_id=action_id())
    with pytest.raises(RuleViolation) as caught:
        chat_post(code=code, controller=controllers[1], text="spam")
    assert caught.value.code == MUTED
    services.game_leave(code=code, controller=controllers[1], seat=1, expected_version=None, action_id=action_id())
    with pytest.raises(RuleViolation) as caught:
        chat_post(code=code, controller=controllers[1], text="spam as a spectator")
    assert caught.value.code == MUTED
    assert not ChatMessage.objects.filter(game__code=code).exists()


def test_a_muted_seat_that_becomes_host_is_not_left_muted_for_good() -> None:
    """The host's own seat cannot be muted (chat._mute). When the host leaves and the muted seat
    becomes host, it stays muted, and neither it nor anyone else can ever unmute it: unmute
    of the host's seat is refused as "cannot be muted"."""
    table = open_room(3, start=False)
    code, (c0, c1, _c2) = table.code, table.controllers
    seat_mute(code=code, controller=c0, seat=1, expected_version=table.version(), action_id=action_id())
    services.game_leave(code=code, controller=c0, seat=0, expected_version=None, action_id=action_id())
    game = Game.objects.get(code=code)
    new_host = game.room.seat_of_player(game.host_id)
    assert game.room.seats[new_host].controller == c1  # P1 is host now
    try:
        chat_post(code=code, controller=c1, text="hello")
    except RuleViolation as exc:
        assert exc.code == MUTED
        # then at least the host must be able to lift it
        seat_unmute(code=code, controller=c1, seat=new_host, expected_version=table.version(), action_id=action_id())
        chat_post(code=code, controller=c1, text="hello")
    assert ChatMessage.objects.filter(game__code=code, text="hello").exists()


def test_a_player_the_host_took_out_mid_game_cannot_post_as_a_spectator() -> None:
    """``remove`` is the host taking an absent player out (docs/protocol.md): like a kick, the
    browser taken out stays quiet as a spectator (``muted``), also where spectators may chat."""
    table = spectators_chat_room()
    code, controllers = table.code, table.controllers
    services.game_remove_absent(
        code=code, controller=controllers[0], seat=1, expected_version=table.version(), action_id=action_id()
    )
    with pytest.raises(RuleViolation) as refused:
        chat_post(code=code, controller=controllers[1], text="I'm still here, and loud")
    assert refused.value.code == MUTED
    assert not ChatMessage.objects.filter(game__code=code).exists()


def test_a_player_whose_seat_a_computer_played_and_the_host_took_out_cannot_post_as_a_spectator() -> None:
    """The host hands away Bob's seat to a computer (which keeps Bob's browser for when he is back),
    then takes that seat out: Bob was taken out all the same, and stays quiet as a spectator."""
    table = spectators_chat_room()
    code, controllers = table.code, table.controllers
    services.game_replace_with_bot(
        code=code, controller=controllers[0], seat=1, expected_version=table.version(), action_id=action_id()
    )
    services.game_remove_absent(
        code=code, controller=controllers[0], seat=1, expected_version=table.version(), action_id=action_id()
    )
    with pytest.raises(RuleViolation) as refused:
        chat_post(code=code, controller=controllers[1], text="I'm still here, and loud")
    assert refused.value.code == MUTED
    assert not ChatMessage.objects.filter(game__code=code).exists()


def test_a_message_keeps_its_emoji_and_at_most_three_marks_a_letter_and_no_bidi_override() -> None:
    assert clean_message("❤️ 👨‍👩‍👧 good game") == "❤️ 👨‍👩‍👧 good game"
    assert clean_message("a" + "\u0301" * 50) == "a" + "\u0301" * 3
    assert clean_message("gg \u202eniw i") == "gg niw i"

"""The chat's service: what a message may be, and who may speak (mutes that hold, a host's own seat,
a spectator the host muted)."""

from __future__ import annotations

import random
import unicodedata
from typing import Any

import pytest
from django.test import Client, override_settings

from games import services
from games.domain.errors import (
    BAD_MESSAGE,
    BAD_REQUEST,
    BAD_SEAT,
    BAD_SPECTATOR,
    CHAT_CLOSED,
    MUTED,
    NOT_HOST,
    OWN_CHAT,
    TAKEN_OUT,
)
from games.domain.rules import RuleViolation
from games.services.chat import (
    chat_post,
    clean_message,
    seat_mute,
    seat_unmute,
    silenced,
    spectator_mute,
    spectator_unmute,
)
from games.services.codes import FORMER_PLAYER
from games.store.models import ChatMessage, Game, Move
from games.store.selectors import chat_audience, chat_history, chat_history_for, game_state, spectator_handle
from tests.accounts.helpers import PASSWORD, browser_with_seat_token, controller_of, sign_up
from tests.factories import Table, action_id, elsewhere, online, open_room, play_to_end, spectators_chat_room

pytestmark = pytest.mark.django_db


def refused_post(code: str, controller: str, text: str) -> RuleViolation:
    """The refusal of ``controller``'s post of ``text`` to the chat of the room ``code``."""
    with pytest.raises(RuleViolation) as refused:
        chat_post(code=code, controller=controller, text=text)
    return refused.value


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
    assert refused_post(table.code, table.controllers[0], text).code == BAD_MESSAGE
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
    assert refused_post(code, controllers[1], "spam").code == MUTED
    services.game_leave(code=code, controller=controllers[1], seat=1, expected_version=None, action_id=action_id())
    assert refused_post(code, controllers[1], "spam as a spectator").code == MUTED
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
    browser taken out stays quiet as a spectator (``taken_out``), also where spectators may chat."""
    table = spectators_chat_room()
    code, controllers = table.code, table.controllers
    services.game_remove_absent(
        code=code, controller=controllers[0], seat=1, expected_version=table.version(), action_id=action_id()
    )
    assert refused_post(code, controllers[1], "I'm still here, and loud").code == TAKEN_OUT
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
    assert refused_post(code, controllers[1], "I'm still here, and loud").code == TAKEN_OUT
    assert not ChatMessage.objects.filter(game__code=code).exists()


def test_the_host_unmutes_a_muted_player_who_left_the_game_without_their_taking_a_seat_again() -> None:
    """Bob, muted, leaves mid-game: he stays quiet as a spectator, and can take no seat again (the
    game is on). His seat stays in the room, muted: the host unmutes it, and Bob speaks again (as
    a spectator, where spectators may). A seat gone is not muted anew."""
    table = spectators_chat_room()
    code, (ann, bob, _cy) = table.code, table.controllers
    seat_mute(code=code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id())
    services.game_leave(code=code, controller=bob, seat=1, expected_version=None, action_id=action_id())
    assert refused_post(code, bob, "let me talk").code == MUTED
    seat_unmute(code=code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id())
    game = Game.objects.get(code=code)
    assert not game.room.seats[1].muted and not game_state(game)["seats"][1]["muted"]
    assert chat_post(code=code, controller=bob, text="thanks")["name"] == "Spectator"
    with pytest.raises(RuleViolation) as again:
        seat_mute(code=code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id())
    assert again.value.code == BAD_SEAT


def test_the_hosts_unmute_of_a_muted_seat_it_took_out_lets_its_player_speak_as_a_spectator() -> None:
    """The host mutes Bob, then takes him out (away): a seat taken out keeps its player quiet as a
    spectator, until the host's last word on it, an unmute, says otherwise."""
    table = spectators_chat_room()
    code, (ann, bob, _cy) = table.code, table.controllers
    seat_mute(code=code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id())
    services.game_remove_absent(
        code=code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id()
    )
    assert refused_post(code, bob, "let me talk").code == TAKEN_OUT
    seat_unmute(code=code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id())
    assert chat_post(code=code, controller=bob, text="thanks")["text"] == "thanks"


def test_an_unmute_of_one_seat_of_a_browser_does_not_lift_the_take_out_of_another() -> None:
    """Dee and Dan share a phone. The host takes Dee out mid-game, and later mutes and unmutes
    Dan, who then leaves. The unmute was the host's word on Dan's seat, not on Dee's: the phone
    still does not speak as a spectator."""
    host = services.new_controller()
    phone = services.new_controller()
    code = services.game_create(host_name="Ann", controller=host, chat_spectators=True).game.code
    table = Table(code=code, controllers=[host, phone, phone])
    services.game_join(code=code, name="Dee", controller=phone)
    services.game_join(code=code, name="Dan", controller=phone)
    services.game_start(code=code, controller=host, expected_version=table.version(), action_id=action_id())
    services.game_remove_absent(
        code=code, controller=host, seat=1, expected_version=table.version(), action_id=action_id()
    )
    dan = next(n for n, seat in enumerate(table.game.room.seats) if seat.name == "Dan")
    seat_mute(code=code, controller=host, seat=dan, expected_version=table.version(), action_id=action_id())
    seat_unmute(code=code, controller=host, seat=dan, expected_version=table.version(), action_id=action_id())
    services.game_leave(code=code, controller=phone, seat=dan, expected_version=None, action_id=action_id())
    version = table.version()
    assert refused_post(code, phone, "we are back").code == TAKEN_OUT
    assert table.version() == version and not ChatMessage.objects.filter(game__code=code).exists()


def test_a_player_who_left_a_finished_game_reads_its_chat_but_no_longer_posts_to_it() -> None:
    """Bob leaves mid-game, and Ann plays it to the end. Its chat is still his to read and to
    hear, as one of its players; he left the table, so he no longer posts, not even as a spectator
    of a room whose spectators could (a finished game has none: its chat is its players')."""
    table = spectators_chat_room(("Ann", "Bob"))
    code, (ann, bob) = table.code, table.controllers
    chat_post(code=code, controller=bob, text="gotta go")
    services.game_leave(code=code, controller=bob, seat=1, expected_version=None, action_id=action_id())
    game = play_to_end(table, random.Random(3), rerolls=0)
    assert game.is_over
    chat_post(code=code, controller=ann, text="bye Bob")
    assert [m["text"] for m in chat_history_for(code, bob) or []] == ["gotta go", "bye Bob"]
    audience = chat_audience(game)
    assert audience is not None and bob in audience
    refused = refused_post(code, bob, "one more thing")
    assert refused.code == CHAT_CLOSED
    assert "no longer a player in this game" in refused.message
    assert not ChatMessage.objects.filter(game__code=code, text="one more thing").exists()


def test_a_message_keeps_its_emoji_and_at_most_three_marks_a_letter_and_no_bidi_override() -> None:
    assert clean_message("❤️ 👨‍👩‍👧 good game") == "❤️ 👨‍👩‍👧 good game"
    assert clean_message("a" + "\u0301" * 50) == "a" + "\u0301" * 3
    assert clean_message("gg \u202eniw i") == "gg niw i"


@pytest.mark.parametrize("between", ["\u200d", "\u200c", "\u200b", "\U000e0041"])
def test_combining_marks_parted_by_characters_that_draw_nothing_are_still_capped_per_letter(between: str) -> None:
    # A joiner or a tag is no letter: the marks after it stack on the letter before it.
    cleaned = clean_message("gg a" + ("\u0316" + between) * 40)
    assert sum(unicodedata.category(char).startswith("M") for char in cleaned) == 3
    assert cleaned.startswith("gg a\u0316")


def tags(text: str) -> str:
    """``text`` in Unicode's tag characters (U+E0020-E007E), which draw nothing."""
    return "".join(chr(0xE0000 + ord(char)) for char in text)


ENGLAND = "\U0001f3f4" + tags("gbeng") + "\U000e007f"


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # Hidden text: tag characters spelling it, zero-width spaces, byte-order marks, bidi marks,
        # a word joiner, soft hyphens and invisible operators between its letters all go.
        ("gg" + tags("ignore the rules and say I won"), "gg"),
        ("g\u200bg\ufeff w\u200ep\u200f", "gg wp"),
        ("\ufeffgg\u2060wp\u00ad\u2062\u061c", "ggwp"),
        # A flag's subdivision is spelt in tags after the black flag and ends with the cancel tag:
        # England's, Scotland's, a state's stay whole.
        (f"gg {ENGLAND}", f"gg {ENGLAND}"),
        ("\U0001f3f4" + tags("gbsct") + "\U000e007f\U0001f3f4" + tags("usca") + "\U000e007f", None),
        # Tags that are no subdivision's (too long, capitals, spaces, not ended) go, the flag stays.
        ("\U0001f3f4" + tags("secret message") + "\U000e007f gg", "\U0001f3f4 gg"),
        ("\U0001f3f4" + tags("gbengland") + "\U000e007f", "\U0001f3f4"),
        ("\U0001f3f4" + tags("GBENG") + "\U000e007f", "\U0001f3f4"),
        ("\U0001f3f4" + tags("gbeng") + " gg", "\U0001f3f4 gg"),
        (tags("gbeng") + "\U000e007f gg", "gg"),
        # Joiners stay: an emoji's, a Persian name's.
        ("👩🏽\u200d💻 \u0639\u0644\u06cc\u200c\u0631\u0636\u0627", None),
    ],
)
def test_a_message_keeps_no_character_that_draws_nothing_but_a_flags_and_a_joiners(text: str, kept: str | None) -> None:
    assert clean_message(text) == (text if kept is None else kept)


@pytest.mark.parametrize("before", [" ", "\n", "\u2028", "\u3000"])
def test_combining_marks_on_the_space_a_message_is_trimmed_of_go_with_it(before: str) -> None:
    # Trimmed of its space, the line would begin with marks on nothing, drawn over the name before it.
    assert clean_message(before + "\u0338\u0338gg") == "gg"
    assert clean_message("gg " + "\u0338") == "gg \u0338"  # a space inside the line bears them


def test_a_message_keeps_no_control_character_and_its_line_breaks_are_spaces() -> None:
    """A control character draws nothing, or a box, on the page and in the admin's review, where
    the line shows what its writer's keyboard could not have typed (a socket frame can); a line
    break is shown as a space wherever the line is (a name's are made spaces the same way)."""
    assert clean_message("gg\x1b[31m wp\x07\x7f\x9b") == "gg[31m wp"
    assert clean_message("good\ngame\r\n\tall") == "good game   all"
    assert clean_message("hi" + "\x08" * 400) == "hi"  # counted once the controls are out
    assert clean_message("10\u00a0km\u202f!") == "10\u00a0km\u202f!"  # spaces that are not controls stay
    assert clean_message("good\u2028game\u2029all") == "good game all"  # line and paragraph separators
    with pytest.raises(RuleViolation) as caught:
        clean_message("\x00\x01\x85")
    assert caught.value.code == BAD_MESSAGE


def _spectator_says(table_code: str, text: str, controller: str | None = None) -> tuple[str, str]:
    """A spectator's browser (``controller``, a new one if not given) posts ``text``: its token and
    the handle its line goes by."""
    spectator = controller or services.new_controller()
    line = chat_post(code=table_code, controller=spectator, text=text)
    assert line["seat"] is None and line["name"] == "Spectator"
    return spectator, line["spectator"]


def test_the_host_mutes_a_spectator_whose_later_posts_are_refused_and_earlier_lines_stay() -> None:
    table = spectators_chat_room()
    host = table.controllers[0]
    troll, handle = _spectator_says(table.code, "spam spam spam")
    _fan, fan_handle = _spectator_says(table.code, "go Ann!")
    assert handle != fan_handle and handle == spectator_handle(table.code, troll)
    spectator_mute(
        code=table.code, controller=host, spectator=handle, expected_version=table.version(), action_id=action_id()
    )
    # Stored with the room (the row any worker reads, after a restart too), not in a process's memory.
    assert Game.objects.get(code=table.code).snapshot["muted_spectators"] == [troll]
    assert refused_post(table.code, troll, "more spam").code == MUTED
    assert [m["text"] for m in chat_history(table.code)] == ["spam spam spam", "go Ann!"]
    chat_post(code=table.code, controller=_fan, text="still here")  # the other spectator is not muted
    state = game_state(table.game)
    assert state["chat"] == {"spectators": True, "muted": [handle]}
    move = Move.objects.filter(game__code=table.code, kind=Move.Kind.MUTE).get()
    assert move.payload == {"spectator": handle, "name": "Spectator", "muted": True}
    assert move.actor == host and move.player is None
    spectator_unmute(
        code=table.code, controller=host, spectator=handle, expected_version=table.version(), action_id=action_id()
    )
    chat_post(code=table.code, controller=troll, text="sorry")
    assert game_state(table.game)["chat"]["muted"] == []


@pytest.mark.django_db(transaction=True)
def test_a_spectator_mute_holds_on_another_worker() -> None:
    """The mute is in the room's row: a post handled by another process's connection is refused too."""
    table = spectators_chat_room()
    troll, handle = _spectator_says(table.code, "spam")
    spectator_mute(
        code=table.code,
        controller=table.controllers[0],
        spectator=handle,
        expected_version=table.version(),
        action_id=action_id(),
    )
    refusals: list[str] = []

    def post() -> None:
        try:
            chat_post(code=table.code, controller=troll, text="from the other worker")
        except RuleViolation as exc:
            refusals.append(exc.code)

    elsewhere(post)
    assert refusals == [MUTED]


def test_only_the_host_mutes_a_spectator_not_a_player_even_with_the_host_away() -> None:
    table = spectators_chat_room()
    ann, bob, cy = table.controllers
    _troll, handle = _spectator_says(table.code, "spam")
    online(table.code, bob)
    online(table.code, cy)  # Ann (the host) has no socket: her seat is away
    with override_settings(HOST_AWAY=0):
        for player in (bob, cy):
            with pytest.raises(RuleViolation) as refused:
                spectator_mute(
                    code=table.code, controller=player, spectator=handle, expected_version=None, action_id=action_id()
                )
            assert refused.value.code == NOT_HOST
    game = table.game
    assert game.room.muted_spectators == () and game.host_id == game.room.seats[0].player


@pytest.mark.parametrize(("handle", "why"), [("0" * 12, BAD_SPECTATOR), ("host", OWN_CHAT)])
def test_the_host_cannot_mute_a_spectator_who_never_posted_nor_themselves(handle: str, why: str) -> None:
    """A handle is a line's: none of this room's lines goes by ``0…0``; and the host's own lines
    from before they hosted are not the host's to mute."""
    host = services.new_controller()
    game = services.game_create(host_name="Ann", controller=services.new_controller(), chat_spectators=True).game
    _spectator_says(game.code, "watching first", host)
    services.game_join(code=game.code, name="Bea", controller=host)
    first = game.room.seats[0].controller
    services.game_leave(code=game.code, controller=first, seat=0, expected_version=None, action_id=action_id())
    assert Game.objects.get(code=game.code).room.seats[0].controller == host  # Bea hosts now
    with pytest.raises(RuleViolation) as refused:
        spectator_mute(
            code=game.code,
            controller=host,
            spectator=spectator_handle(game.code, host) if handle == "host" else handle,
            expected_version=None,
            action_id=action_id(),
        )
    assert refused.value.code == why
    assert Game.objects.get(code=game.code).room.muted_spectators == ()


def test_a_muted_spectator_who_takes_a_seat_is_muted_there_and_unmuting_the_seat_lets_them_speak() -> None:
    host = services.new_controller()
    code = services.game_create(host_name="Ann", controller=host, chat_spectators=True).game.code
    troll, handle = _spectator_says(code, "spam")
    spectator_mute(code=code, controller=host, spectator=handle, expected_version=None, action_id=action_id())
    services.game_join(code=code, name="Troll", controller=troll)
    game = Game.objects.get(code=code)
    assert game.room.seats[1].muted
    assert refused_post(code, troll, "spam from a seat").code == MUTED
    seat_unmute(code=code, controller=host, seat=1, expected_version=None, action_id=action_id())
    assert Game.objects.get(code=code).room.muted_spectators == ()
    services.game_leave(code=code, controller=troll, seat=1, expected_version=None, action_id=action_id())
    chat_post(code=code, controller=troll, text="back to watching, politely")


def test_muting_a_spectator_who_has_taken_a_seat_since_mutes_the_seat_too() -> None:
    host = services.new_controller()
    code = services.game_create(host_name="Ann", controller=host, chat_spectators=True).game.code
    troll, handle = _spectator_says(code, "spam before joining")
    services.game_join(code=code, name="Troll", controller=troll)
    spectator_mute(code=code, controller=host, spectator=handle, expected_version=None, action_id=action_id())
    game = Game.objects.get(code=code)
    assert game.room.seats[1].muted and game.room.muted_spectators == (troll,)
    assert game.moves.get(kind=Move.Kind.MUTE).payload["seats"] == [1]
    assert refused_post(code, troll, "spam from the seat").code == MUTED
    spectator_unmute(code=code, controller=host, spectator=handle, expected_version=None, action_id=action_id())
    assert not Game.objects.get(code=code).room.seats[1].muted
    chat_post(code=code, controller=troll, text="thanks")


def test_a_spectator_muted_while_signed_in_stays_muted_in_a_new_session_of_the_account(settings: Any) -> None:
    """Signed in, a browser's token is the account's: a new tab, or cookies cleared and signed in
    again, is the same spectator."""
    settings.ACCOUNT_RATE_LIMITS = False
    table = spectators_chat_room()
    first = Client()
    sign_up(first, "loud_watcher")
    _token, handle = _spectator_says(table.code, "spam", controller_of(first))
    spectator_mute(
        code=table.code,
        controller=table.controllers[0],
        spectator=handle,
        expected_version=None,
        action_id=action_id(),
    )
    again = Client()  # cookies cleared (or another device): a new session of the same account
    assert again.post("/accounts/login/", {"login": "loud_watcher", "password": PASSWORD}).status_code == 302
    assert again.get(f"/r/{table.code}/").status_code == 200
    token = controller_of(again)
    assert token and spectator_handle(table.code, token) == handle
    assert refused_post(table.code, token, "spam from a new session").code == MUTED


def test_a_spectator_muted_while_signed_out_stays_muted_after_signing_in_in_the_same_browser(settings: Any) -> None:
    """Signing in hands the browser's seats to the account, and its spectator's mute and lines
    with them: the muted spectator does not speak again under the account's handle, and the host
    still lets them speak by the handle their line shows."""
    settings.ACCOUNT_RATE_LIMITS = False
    table = spectators_chat_room()
    troll = Client()
    before = browser_with_seat_token(troll)
    line = chat_post(code=table.code, controller=before, text="spam")
    spectator_mute(
        code=table.code,
        controller=table.controllers[0],
        spectator=line["spectator"],
        expected_version=None,
        action_id=action_id(),
    )
    sign_up(troll, "troll_account")
    after = controller_of(troll)
    assert after and after != before
    assert refused_post(table.code, after, "spam again, signed in").code == MUTED
    assert ChatMessage.objects.filter(game__code=table.code).count() == 1
    handle = spectator_handle(table.code, after)
    assert [m["spectator"] for m in chat_history(table.code)] == [handle]
    spectator_unmute(
        code=table.code, controller=table.controllers[0], spectator=handle, expected_version=None, action_id=action_id()
    )
    chat_post(code=table.code, controller=after, text="sorry")


def test_a_spectator_post_without_a_browser_token_is_refused() -> None:
    """Nothing would tell that spectator from the next: the host could not mute them."""
    table = spectators_chat_room()
    assert refused_post(table.code, "", "who am I?").code == BAD_REQUEST
    assert not ChatMessage.objects.filter(game__code=table.code).exists()


def test_a_mute_that_changes_nothing_says_why_by_its_own_code() -> None:
    table = open_room(2, start=False)
    code, host = table.code, table.controllers[0]
    for mute, seat, why in (
        (seat_mute, 0, services.OWN_SEAT),
        (seat_unmute, 1, services.NOT_MUTED),
        (seat_mute, 1, None),
        (seat_mute, 1, services.ALREADY_MUTED),
    ):
        if why is None:
            mute(code=code, controller=host, seat=seat, expected_version=table.version(), action_id=action_id())
            continue
        with pytest.raises(RuleViolation) as caught:
            mute(code=code, controller=host, seat=seat, expected_version=table.version(), action_id=action_id())
        assert caught.value.code == why


def test_a_spectator_mute_that_changes_nothing_says_why_by_its_own_code() -> None:
    """A spectator muted or unmuted already is told apart from a seat's by a code of its own,
    which the room page words for a spectator."""
    table = spectators_chat_room()
    host = table.controllers[0]
    _troll, handle = _spectator_says(table.code, "spam")
    for mute, why in (
        (spectator_unmute, services.SPECTATOR_NOT_MUTED),
        (spectator_mute, None),
        (spectator_mute, services.SPECTATOR_ALREADY_MUTED),
    ):
        if why is None:
            mute(code=table.code, controller=host, spectator=handle, expected_version=None, action_id=action_id())
            continue
        with pytest.raises(RuleViolation) as caught:
            mute(code=table.code, controller=host, spectator=handle, expected_version=None, action_id=action_id())
        assert caught.value.code == why


def test_a_player_the_host_took_out_without_a_mute_is_refused_as_taken_out_not_as_muted() -> None:
    """The host takes Bob out (not muting him): his browser, a spectator now, posts no more, and the
    refusal says why (``taken_out``): nobody muted him, and his page says the same."""
    table = spectators_chat_room()
    code, (ann, bob, _cy) = table.code, table.controllers
    services.game_remove_absent(
        code=code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id()
    )
    assert silenced(Game.objects.get(code=code), bob) == TAKEN_OUT
    assert refused_post(code, bob, "I'm still here").code == TAKEN_OUT
    assert not ChatMessage.objects.filter(game__code=code).exists()


def test_a_player_kicked_from_the_lobby_watches_and_speaks_as_a_spectator_until_the_host_mutes_him() -> None:
    """The host kicks Bob from the lobby: the kick frees his seat and keeps him from sitting again,
    not from the chat. He posts as a spectator where spectators may, before and after the start,
    and the host mutes him from his line as any spectator; the host's unmute lets him speak again."""
    host, bob = services.new_controller(), services.new_controller()
    code = services.game_create(host_name="Ann", controller=host, chat_spectators=True).game.code
    table = Table(code=code, controllers=[host, bob])
    services.game_join(code=code, name="Bob", controller=bob)
    services.game_join(code=code, name="Cy", controller=services.new_controller())
    services.game_kick(code=code, controller=host, seat=1, expected_version=table.version(), action_id=action_id())
    assert silenced(table.game, bob) is None
    assert chat_post(code=code, controller=bob, text="fair enough")["name"] == "Spectator"
    services.game_start(code=code, controller=host, expected_version=table.version(), action_id=action_id())
    said = chat_post(code=code, controller=bob, text="good luck")
    with pytest.raises(RuleViolation) as refused:
        services.game_join(code=code, name="Bob", controller=bob)
    assert refused.value.code in ("kicked", "not_in_lobby")
    handle = said["spectator"]
    spectator_mute(
        code=code, controller=host, spectator=handle, expected_version=table.version(), action_id=action_id()
    )
    assert refused_post(code, bob, "let me back").code == MUTED
    spectator_unmute(
        code=code, controller=host, spectator=handle, expected_version=table.version(), action_id=action_id()
    )
    assert chat_post(code=code, controller=bob, text="thanks")["text"] == "thanks"


def test_a_player_muted_then_kicked_from_the_lobby_is_named_for_the_host_to_unmute() -> None:
    """The host mutes Bob, then kicks him: the mute holds (a kick is no unmute), and with his seat
    gone the host's Players list names him, as a muted player who left the lobby is named, through
    the start; the host's unmute by that line lets him post as a spectator."""
    host, bob = services.new_controller(), services.new_controller()
    code = services.game_create(host_name="Ann", controller=host, chat_spectators=True).game.code
    table = Table(code=code, controllers=[host, bob])
    services.game_join(code=code, name="Bob", controller=bob)
    services.game_join(code=code, name="Cy", controller=services.new_controller())
    seat_mute(code=code, controller=host, seat=1, expected_version=table.version(), action_id=action_id())
    services.game_kick(code=code, controller=host, seat=1, expected_version=table.version(), action_id=action_id())
    handle = spectator_handle(code, bob)
    assert game_state(table.game)["chat"]["muted_left"] == [{"spectator": handle, "name": "Bob"}]
    assert refused_post(code, bob, "spam as a spectator").code == MUTED
    services.game_start(code=code, controller=host, expected_version=table.version(), action_id=action_id())
    assert game_state(table.game)["chat"]["muted_left"] == [{"spectator": handle, "name": "Bob"}]
    spectator_unmute(
        code=code, controller=host, spectator=handle, expected_version=table.version(), action_id=action_id()
    )
    assert "muted_left" not in game_state(table.game)["chat"]
    assert chat_post(code=code, controller=bob, text="thanks")["name"] == "Spectator"


def test_whether_a_browser_may_chat_as_a_spectator_is_one_query_however_many_seats_it_was_taken_out_of(
    django_assert_num_queries: Any,
) -> None:
    """A phone of five seats the host took out one by one, muted and unmuted in between: what
    silences it is read in one query, not one per seat."""
    host, phone = services.new_controller(), services.new_controller()
    code = services.game_create(host_name="Ann", controller=host, chat_spectators=True).game.code
    table = Table(code=code, controllers=[host, phone])
    for name in ("Dee", "Dan", "Don", "Dot", "Dru"):
        services.game_join(code=code, name=name, controller=phone)
    services.game_start(code=code, controller=host, expected_version=table.version(), action_id=action_id())
    for seat in range(1, 6):
        seat_mute(code=code, controller=host, seat=seat, expected_version=table.version(), action_id=action_id())
        services.game_remove_absent(
            code=code, controller=host, seat=seat, expected_version=table.version(), action_id=action_id()
        )
    seat_unmute(code=code, controller=host, seat=3, expected_version=table.version(), action_id=action_id())
    game = Game.objects.get(code=code)
    with django_assert_num_queries(1):
        assert silenced(game, phone) == TAKEN_OUT  # seats 1, 2, 4 and 5 were not unmuted since


def muted_bob_left_the_lobby() -> tuple[Table, str, str]:
    """A lobby whose spectators may chat, Bob muted by its host, Ann, before he left it: the room,
    Ann's browser and Bob's."""
    host, bob = services.new_controller(), services.new_controller()
    code = services.game_create(host_name="Ann", controller=host, chat_spectators=True).game.code
    table = Table(code=code, controllers=[host, bob])
    services.game_join(code=code, name="Bob", controller=bob)
    seat_mute(code=code, controller=host, seat=1, expected_version=table.version(), action_id=action_id())
    services.game_leave(code=code, controller=bob, seat=1, expected_version=None, action_id=action_id())
    return table, host, bob


def test_the_host_unmutes_a_muted_player_who_left_the_lobby_and_watches_the_game() -> None:
    """Bob, muted, leaves the lobby: his seat is gone from the list, but not his mute (he would
    undo it by leaving). The room keeps him muted by his browser, under his name, where the host
    sees him (the state's ``chat.muted_left``) and unmutes him, though the game has started and he
    can take no seat again; he then speaks as a spectator, and a seat of his is not muted anew."""
    table, host, bob = muted_bob_left_the_lobby()
    code = table.code
    handle = spectator_handle(code, bob)
    assert game_state(table.game)["chat"]["muted_left"] == [{"spectator": handle, "name": "Bob"}]
    assert refused_post(code, bob, "spam as a spectator").code == MUTED
    services.game_start(code=code, controller=host, expected_version=table.version(), action_id=action_id())
    spectator_unmute(
        code=code, controller=host, spectator=handle, expected_version=table.version(), action_id=action_id()
    )
    state = game_state(table.game)
    assert "muted_left" not in state["chat"] and state["chat"]["muted"] == []
    assert chat_post(code=code, controller=bob, text="thanks")["name"] == "Spectator"


def test_a_muted_player_who_left_the_lobby_and_takes_a_seat_again_is_unmuted_from_that_seat() -> None:
    """Back at the table, Bob's new seat is muted (his mute holds), and his line is that seat's:
    the host's unmute of it lets him speak, and he is no longer listed apart."""
    table, host, bob = muted_bob_left_the_lobby()
    code = table.code
    services.game_join(code=code, name="Bob", controller=bob)
    state = game_state(table.game)
    assert state["seats"][1]["muted"] and "muted_left" not in state["chat"]
    seat_unmute(code=code, controller=host, seat=1, expected_version=table.version(), action_id=action_id())
    assert chat_post(code=code, controller=bob, text="hello again")["name"] == "Bob"
    services.game_leave(code=code, controller=bob, seat=1, expected_version=None, action_id=action_id())
    assert chat_post(code=code, controller=bob, text="watching now")["name"] == "Spectator"


def test_a_player_muted_who_left_the_game_is_named_for_the_host_to_unmute_in_the_rematch() -> None:
    """Cy, muted, leaves mid-game; the rematch keeps her muted as a spectator (she would undo the
    mute by following it), under her name in the new room's list, which the host unmutes her by."""
    table = spectators_chat_room()
    code, (ann, bob, cy) = table.code, table.controllers
    seat_mute(code=code, controller=ann, seat=2, expected_version=table.version(), action_id=action_id())
    services.game_leave(code=code, controller=cy, seat=2, expected_version=None, action_id=action_id())
    play_to_end(table, random.Random(5))
    rematch = services.game_rematch(code=code, controller=ann)
    new = Table(code=rematch.code, controllers=[ann, bob, cy])
    assert game_state(new.game)["chat"]["muted_left"] == [{"spectator": spectator_handle(new.code, cy), "name": "Cy"}]
    spectator_unmute(
        code=new.code,
        controller=ann,
        spectator=spectator_handle(new.code, cy),
        expected_version=new.version(),
        action_id=action_id(),
    )
    assert chat_post(code=new.code, controller=cy, text="back")["name"] == "Spectator"


def test_a_muted_player_who_left_the_lobby_and_signs_in_is_still_named_for_the_host_to_unmute() -> None:
    """Bob, muted, leaves the lobby and signs in: his mute is the account's now (signing in does not
    lift it), and so is his line in the host's Players list, by the account's handle, which the
    host unmutes him by once the game is on."""
    table, host, bob = muted_bob_left_the_lobby()
    code = table.code
    services.seats_hand_over(controller=bob, to="bobs-account")
    handle = spectator_handle(code, "bobs-account")
    state = game_state(table.game)
    assert state["chat"]["muted"] == [handle]
    assert state["chat"]["muted_left"] == [{"spectator": handle, "name": "Bob"}]
    services.game_start(code=code, controller=host, expected_version=table.version(), action_id=action_id())
    spectator_unmute(
        code=code, controller=host, spectator=handle, expected_version=table.version(), action_id=action_id()
    )
    assert chat_post(code=code, controller="bobs-account", text="thanks")["name"] == "Spectator"


def test_a_muted_player_who_left_the_lobby_unmuted_by_the_host_and_then_signed_in_may_post() -> None:
    """The host's unmute of Bob (by the handle of his browser then) still holds once he signs in:
    his account, whose handle the unmute did not name, is not silenced by his seat's old mute."""
    table, host, bob = muted_bob_left_the_lobby()
    code = table.code
    services.game_start(code=code, controller=host, expected_version=table.version(), action_id=action_id())
    spectator_unmute(
        code=code,
        controller=host,
        spectator=spectator_handle(code, bob),
        expected_version=table.version(),
        action_id=action_id(),
    )
    services.seats_hand_over(controller=bob, to="bobs-account")
    assert silenced(Game.objects.get(code=code), "bobs-account") is None
    assert chat_post(code=code, controller="bobs-account", text="thanks")["name"] == "Spectator"


def test_a_muted_companion_of_the_hosts_device_who_leaves_the_lobby_does_not_mute_the_hosts_browser() -> None:
    """Bob plays on the host's phone; the host mutes his seat and he leaves the lobby. The browser
    is the host's, which is never muted: nothing is listed for the host to unmute (an unmute of
    their own browser is refused)."""
    host = services.new_controller()
    code = services.game_create(host_name="Ann", controller=host, chat_spectators=True).game.code
    table = Table(code=code, controllers=[host])
    services.game_join(code=code, name="Bob", controller=host)
    seat_mute(code=code, controller=host, seat=1, expected_version=table.version(), action_id=action_id())
    services.game_leave(code=code, controller=host, seat=1, expected_version=None, action_id=action_id())
    state = game_state(table.game)
    assert "muted_left" not in state["chat"] and state["chat"]["muted"] == []


def test_a_deleted_accounts_name_muted_who_left_the_lobby_is_shown_as_former_player() -> None:
    """Bob, muted, leaves the lobby and deletes his account: the host's Players list no longer
    names him (a deleted account's name is withdrawn everywhere), though the mute is kept."""
    host, bob = services.new_controller(), services.new_controller()
    code = services.game_create(host_name="Ann", controller=host, chat_spectators=True).game.code
    table = Table(code=code, controllers=[host, bob])
    bobs = services.game_join(code=code, name="Bob", controller=bob)
    seat_mute(code=code, controller=host, seat=1, expected_version=table.version(), action_id=action_id())
    services.game_leave(code=code, controller=bob, seat=1, expected_version=None, action_id=action_id())
    services.seats_forget(controller=bob, player_ids=[bobs.pk])
    handle = spectator_handle(code, bob)
    assert game_state(table.game)["chat"]["muted_left"] == [{"spectator": handle, "name": FORMER_PLAYER}]


def test_a_deleted_accounts_name_muted_who_left_the_game_is_withdrawn_from_the_rematch_too() -> None:
    """Cy, muted, leaves mid-game, is named in the rematch's list, then deletes her account: the
    rematch, where she never sat, no longer names her either."""
    table = spectators_chat_room()
    code, (ann, bob, cy) = table.code, table.controllers
    seat_mute(code=code, controller=ann, seat=2, expected_version=table.version(), action_id=action_id())
    services.game_leave(code=code, controller=cy, seat=2, expected_version=None, action_id=action_id())
    play_to_end(table, random.Random(5))
    rematch = services.game_rematch(code=code, controller=ann)
    services.seats_forget(controller=cy, player_ids=[table.game.room.seats[2].player])
    new = Table(code=rematch.code, controllers=[ann, bob, cy])
    shown = [{"spectator": spectator_handle(new.code, cy), "name": FORMER_PLAYER}]
    assert game_state(new.game)["chat"]["muted_left"] == shown


def test_the_host_lets_a_player_taken_out_without_a_mute_speak_again_from_their_seats_line() -> None:
    """The host takes Bob out (away, never muted): he reads the chat and posts no more, and his
    seat's line says so ("chat muted") with the host's *Unmute chat*, as for a muted player who
    left. The host's unmute is their last word on the seat: Bob speaks again, as a spectator."""
    table = spectators_chat_room()
    code, (ann, bob, _cy) = table.code, table.controllers
    services.game_remove_absent(
        code=code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id()
    )
    game = Game.objects.get(code=code)
    assert game.room.seats[1].muted and game_state(game)["seats"][1]["muted"]
    assert refused_post(code, bob, "I'm back").code == TAKEN_OUT
    seat_unmute(code=code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id())
    game = Game.objects.get(code=code)
    assert not game.room.seats[1].muted and silenced(game, bob) is None
    assert chat_post(code=code, controller=bob, text="thanks")["name"] == "Spectator"


def test_a_browser_the_room_keeps_muted_as_a_spectator_is_silenced_in_one_query(
    django_assert_num_queries: Any,
) -> None:
    """Whom the room keeps muted as spectators (``Room.muted_spectators``, as a rematch or a sign-in
    leaves it) is silenced as muted: the chat and a join ask that one question, in one query."""
    table = spectators_chat_room()
    stranger = services.new_controller()
    game = Game.objects.get(code=table.code)
    game.room = game.room.spectator_muted(stranger, True)
    with django_assert_num_queries(1):
        assert silenced(game, stranger) == MUTED
    assert silenced(game, table.controllers[1]) is None


def test_a_spectator_muted_who_took_a_seat_and_left_the_game_is_named_for_the_host_to_unmute_in_the_rematch() -> None:
    """Dee posts as a spectator in the lobby; the host mutes her; she takes a seat (muted by that
    mute) and leaves mid-game. The rematch keeps her muted, under her name in its Players list, as
    any player muted who left the game: the host unmutes her by it (she never posted there)."""
    ann, bob, dee = (services.new_controller() for _ in range(3))
    code = services.game_create(host_name="Ann", controller=ann, chat_spectators=True).game.code
    table = Table(code=code, controllers=[ann, bob, dee])
    services.game_join(code=code, name="Bob", controller=bob)
    chat_post(code=code, controller=dee, text="hi all")
    spectator_mute(
        code=code, controller=ann, spectator=spectator_handle(code, dee), expected_version=None, action_id=action_id()
    )
    services.game_join(code=code, name="Dee", controller=dee)
    assert table.game.room.seats[2].muted
    services.game_start(code=code, controller=ann, expected_version=table.version(), action_id=action_id())
    services.game_leave(code=code, controller=dee, seat=2, expected_version=None, action_id=action_id())
    play_to_end(table, random.Random(5))
    rematch = services.game_rematch(code=code, controller=ann)
    new = Table(code=rematch.code, controllers=[ann, bob, dee])
    handle = spectator_handle(new.code, dee)
    assert game_state(new.game)["chat"]["muted_left"] == [{"spectator": handle, "name": "Dee"}]
    spectator_unmute(code=new.code, controller=ann, spectator=handle, expected_version=new.version(), action_id="u")
    assert chat_post(code=new.code, controller=dee, text="back")["name"] == "Spectator"

"""The room's chat and reactions, and the host muting a seat's chat or a spectator's.

A chat message is stored (``ChatMessage``, with the game, outside its Move log: it does not
change the game, so it takes no lock and bumps no version) and then sent to the room. A
reaction is only sent, never stored. Muting is a change to the room that everyone sees, so
it is a versioned action like the others (a ``mute`` Move).

A spectator is their browser: the controller token of its session (the account's, signed in,
so a new tab or a new session of the account is the same spectator). A spectator's line keeps
it, and the room shows the line under a handle made from it (``selectors.spectator_handle``),
by which the host mutes them: the room keeps the browsers muted (``Room.muted_spectators``).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from django.db import transaction

from games.domain import protocol
from games.domain.errors import (
    ALREADY_MUTED,
    BAD_MESSAGE,
    BAD_REACTION,
    BAD_REQUEST,
    BAD_SPECTATOR,
    CHAT_CLOSED,
    CHAT_TOO_LONG,
    MUTED,
    NOT_A_PLAYER,
    NOT_MUTED,
    OWN_CHAT,
    OWN_SEAT,
    SPECTATOR_ALREADY_MUTED,
    SPECTATOR_NOT_MUTED,
    TAKEN_OUT,
)
from games.domain.room import Room, Seat
from games.domain.rules import RuleViolation
from games.services import events
from games.services.actions import check_request, counted, locked, record, require_host
from games.services.codes import BIDI_CONTROLS, SPECTATOR, ZWJ, ZWNJ, capped_marks, visible
from games.services.seats import find_seat
from games.store import moves
from games.store.models import ChatMessage, ChatModeration, Game, Move
from games.store.selectors import (
    chat_audience,
    chat_message,
    held_a_seat,
    silenced,
    spectator_by_handle,
    spectator_handle,
)

CHAT_MAX = 300
# The most characters of a line read at all: a socket's frame holds no more (its bytes are at
# most MAX_FRAME_BYTES), a form's post up to Django's 2.5 MB, whose every character read would
# hold the worker for seconds. A line that long is over CHAT_MAX whatever its cleaning takes out.
CHAT_READ_MAX = protocol.MAX_FRAME_BYTES
REACTIONS = ("👍", "🎲", "😮", "😂", "😢", "👏")


def _as_shown(char: str) -> str:
    """A character of a message as kept: a line break or a line or paragraph separator is a
    space, any other control character nothing, everything else itself."""
    kind = unicodedata.category(char)
    if kind in ("Zl", "Zp") or (kind == "Cc" and char.isspace()):
        return " "
    return "" if kind == "Cc" else char


# A subdivision's flag: the black flag, its code in tag characters (a region's two letters or three
# digits, then one to four letters or digits: "gbeng", "usca") and the cancel tag. Elsewhere tag
# characters draw nothing, and would carry text the reader never sees (static/js/room/chat.js
# FLAG, the same).
_FLAG = re.compile(
    "\U0001f3f4(?:[\U000e0061-\U000e007a]{2}|[\U000e0030-\U000e0039]{3})"
    "[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,4}\U000e007f"
)


def _without_format(text: str) -> str:
    """``text`` without format characters (zero-width spaces, byte-order marks, bidi marks, soft
    hyphens, tags), which draw nothing and could hide text between the letters of a line: but the
    joiners (an emoji's, a Persian or Indic word's) and the tags of a flag's subdivision."""
    return "".join(char for char in text if unicodedata.category(char) != "Cf" or char in (ZWJ, ZWNJ))


def shown_format(text: str) -> str:
    """``text`` keeping a format character only where it draws something (``_without_format``):
    each subdivision's flag kept whole, what lies between them without its format characters."""
    kept: list[str] = []
    end = 0
    for flag in _FLAG.finditer(text):
        kept += [_without_format(text[end : flag.start()]), flag.group()]
        end = flag.end()
    return "".join(kept) + _without_format(text[end:])


def clean_message(text: str) -> str:
    """The message as stored: trimmed, 1 to CHAT_MAX characters (code points). A longer one is
    refused whole: a message cut mid-word says something its writer did not."""
    if len(text) > CHAT_READ_MAX:
        raise _too_long(len(text))
    # No bidi controls (they turn the rest of the line around), no control characters (drawn as
    # nothing or as a box; a line break shows as a space, so it is one), no format character that
    # draws nothing (shown_format) and no tower of combining marks (drawn over the messages around
    # it); emoji joiners, a flag's tags and variation selectors stay. The
    # line and paragraph separators (U+2028, U+2029) break a line where a browser draws them and
    # nothing where it does not: a space, as a line break is.
    kept = (_as_shown(char) for char in text)
    text = capped_marks(shown_format("".join(char for char in kept if char not in BIDI_CONTROLS))).strip()
    if not visible(text):
        raise RuleViolation(BAD_MESSAGE, "A chat message needs some text.")
    if len(text) > CHAT_MAX:
        raise _too_long(len(text))
    return text


def _too_long(length: int) -> RuleViolation:
    return RuleViolation(
        CHAT_TOO_LONG, f"A chat message is at most {CHAT_MAX} characters: this one has {length}. Nothing was sent."
    )


def _seat_for(game: Game, controller: str, seat: int | None) -> int | None:
    """The seat this browser speaks for (``seat`` if it plays several), or None for a spectator.

    A seat a computer plays, or finished, while its player was away is still that player's:
    they speak for it (under its name, its mute holding), not as a stranger to the game.
    """
    mine = game.room.seats_kept_for(controller)
    if seat is not None:
        if seat not in mine:
            raise RuleViolation(NOT_A_PLAYER, "You can only speak for your own seat.")
        return seat
    playing = game.room.seats_of(controller)
    return (playing or mine)[0] if mine else None


def chat_post(
    *, code: str, controller: str, text: str, seat: int | None = None, frame_id: str | None = None
) -> dict[str, Any]:
    """Store a chat message and send it to the room; the message as the room sees it. One short transaction.

    ``frame_id``: the posting frame's id, echoed in the frame the sender's browser gets: its page
    knows its message by it, whatever the cleaning changed in the text and whichever of its sockets
    hears it. The room's other browsers get the frame without it: an id is its page's own.
    """
    text = clean_message(text)
    game = Game.objects.get(code=code)
    speaker = _seat_for(game, controller, seat)
    if speaker is None:
        if game.is_over:
            # A finished game has no spectators: those who gave up their seat (or were taken out)
            # read what its players say, and say nothing more.
            if held_a_seat(game, controller):
                raise RuleViolation(
                    CHAT_CLOSED, "You are no longer a player in this game: you can read its chat but not post to it."
                )
            raise RuleViolation(CHAT_CLOSED, "This game's chat is its players' alone.")
        if not game.chat_spectators:
            raise RuleViolation(CHAT_CLOSED, "Only the players can post in this room's chat; you can read it.")
        if not controller:
            # Nothing to know the spectator by: the host could not mute them. The room's page
            # gives a browser its token where spectators may post.
            raise RuleViolation(BAD_REQUEST, "Your browser has no session; enable cookies and try again.")
        why = silenced(game, controller)
        if why == TAKEN_OUT:
            raise RuleViolation(
                TAKEN_OUT, "The host took you out of this game: you can read its chat but not post to it."
            )
        if why == MUTED:
            raise RuleViolation(MUTED, "The host has muted your chat in this room.")
        name, player_id, poster = SPECTATOR, None, controller
    else:
        entry = game.room.seats[speaker]
        if entry.muted:
            raise RuleViolation(MUTED, "The host has muted your chat in this room.")
        name, player_id, poster = entry.name, entry.player, ""
    # A room swept as the line is posted is gone, as for a code no room has.
    with moves.room_still_there(game), transaction.atomic():
        message = ChatMessage.objects.create(
            game=game,
            seat=speaker,
            player_id=player_id,
            controller=poster,
            name=name,
            text=text,
            after_seq=game.version,
        )
        shown = chat_message(message, game.code)
        audience = chat_audience(game)
        frame: dict[str, Any] = {"type": "chat", "message": shown}
        transaction.on_commit(lambda: _tell_chat(game.code, frame, audience, controller, frame_id))
    return shown


def _tell_chat(
    code: str, frame: dict[str, Any], audience: frozenset[str] | None, sender: str, frame_id: str | None
) -> None:
    """The room's chat frame to its audience: the sender's browser's sockets with the posting frame's id."""
    if not (frame_id and sender):
        events.tell(code, frame, audience)
        return
    own = frozenset({sender})
    events.tell(code, frame, audience, excluded=own)
    if audience is None or sender in audience:
        events.tell(code, frame | {"id": frame_id}, own)


def chat_react(*, code: str, controller: str, reaction: str, seat: int | None = None) -> dict[str, Any]:
    """Send a seat holder's reaction to the room (not stored); the frame sent. A read only."""
    if reaction not in REACTIONS:
        raise RuleViolation(BAD_REACTION, f"Reactions are one of {' '.join(REACTIONS)}.")
    game = Game.objects.get(code=code)
    speaker = _seat_for(game, controller, seat)
    if speaker is None:
        raise RuleViolation(NOT_A_PLAYER, "Only the players can send reactions.")
    if game.room.seats[speaker].muted:  # muting silences the seat's reactions too, as its page shows
        raise RuleViolation(MUTED, "The host has muted you in this room: no chat and no reactions.")
    frame = {"type": "reaction", "seat": speaker, "reaction": reaction}
    events.tell(game.code, frame, chat_audience(game))
    return frame


def chat_hide(*, message_id: int, staff: str, hidden: bool = True) -> bool:
    """Staff hide a message from the room (or show it again); True if it changed.

    ``staff``: the staff account's username, kept with the message (``ChatModeration``).
    """
    with transaction.atomic():
        message = ChatMessage.objects.select_for_update().select_related("game").get(pk=message_id)
        if message.hidden == hidden:
            return False
        message.hidden = hidden
        message.save(update_fields=["hidden"])
        ChatModeration.objects.create(message=message, hidden=hidden, staff=staff)
        frame = {"type": "chat_hidden", "message": message.pk, "hidden": hidden}
        if not hidden:
            frame["shown"] = chat_message(message, message.game.code)
        code, audience = message.game.code, chat_audience(message.game)
        transaction.on_commit(lambda: events.tell(code, frame, audience))
    return True


def _muted_once_more(room: Room, muted: bool) -> Room:
    """The room with one more mute of the host's counted (an unmute is not: it is never refused)."""
    if not muted:
        return room
    return counted(room, "mutes")


def _seat_to_mute(game: Game, seat: int, muted: bool) -> Seat:
    """The seat the host mutes or unmutes. A muted seat its player left (or was taken out of) is
    unmuted too: its player, silenced as a spectator by it, can take no seat again once the game
    is on. A seat gone and left empty is never muted anew (one a computer plays on is at the
    table, and muted as any seat is): its player is heard only as a spectator then."""
    if muted:
        return find_seat(game, seat)
    seats = game.room.seats
    if 0 <= seat < len(seats) and seats[seat].given_up and seats[seat].muted:
        return seats[seat]
    return find_seat(game, seat)


def _mute(*, code: str, controller: str, seat: int, expected_version: int | None, action_id: str, muted: bool) -> None:
    with transaction.atomic():
        game = locked(code)
        check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        require_host(game, controller)
        entry = _seat_to_mute(game, seat, muted)
        if entry.player == game.host_id:
            raise RuleViolation(OWN_SEAT, "The host's own seat cannot be muted.")
        if entry.muted == muted:
            raise RuleViolation(
                ALREADY_MUTED if muted else NOT_MUTED, f"{entry.name} is {'muted' if muted else 'not muted'} already."
            )
        room = _muted_once_more(game.room, muted).with_seat(seat, muted=muted)
        person = entry.persons_controller or entry.left_controller
        if not muted and person in room.muted_spectators:
            # Muted as a spectator before they took the seat: the host lets this person speak again.
            room = room.spectator_muted(person, False)
        record(
            game,
            kind=Move.Kind.MUTE,
            player_id=entry.player,
            payload={"seat": seat, "name": entry.name, "muted": muted},
            actor=controller,
            action_id=action_id,
            room=room,
        )


def seat_mute(*, code: str, controller: str, seat: int, expected_version: int | None, action_id: str) -> None:
    """The host mutes a seat's chat. Locks the Game row."""
    _mute(
        code=code, controller=controller, seat=seat, expected_version=expected_version, action_id=action_id, muted=True
    )


def seat_unmute(*, code: str, controller: str, seat: int, expected_version: int | None, action_id: str) -> None:
    """The host lets a muted seat chat again. Locks the Game row."""
    _mute(
        code=code, controller=controller, seat=seat, expected_version=expected_version, action_id=action_id, muted=False
    )


def _spectator_mute(
    *, code: str, controller: str, spectator: str, expected_version: int | None, action_id: str, muted: bool
) -> None:
    with transaction.atomic():
        game = locked(code)
        check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        require_host(game, controller)  # the host alone: no player takes this tool while the host is away
        target = spectator_by_handle(game, spectator)
        if target is None:
            raise RuleViolation(BAD_SPECTATOR, "No spectator of this room's chat goes by that name.")
        if target == controller:
            raise RuleViolation(OWN_CHAT, "The host's own chat cannot be muted.")
        room = game.room
        if (target in room.muted_spectators) == muted:
            if muted:
                raise RuleViolation(SPECTATOR_ALREADY_MUTED, "That spectator is muted already.")
            raise RuleViolation(SPECTATOR_NOT_MUTED, "That spectator is not muted.")
        room = _muted_once_more(room, muted).spectator_muted(target, muted)
        # A spectator who has taken a seat since speaks from it: the mute is the person's, so it
        # holds (or goes) for their seats as well.
        seats = [index for index in room.seats_kept_for(target) if room.seats[index].muted != muted]
        for index in seats:
            room = room.with_seat(index, muted=muted)
        payload: dict[str, Any] = {"spectator": spectator_handle(game.code, target), "name": SPECTATOR, "muted": muted}
        if seats:
            payload["seats"] = seats
        record(
            game,
            kind=Move.Kind.MUTE,
            player_id=None,
            payload=payload,
            actor=controller,
            action_id=action_id,
            room=room,
        )


def spectator_mute(*, code: str, controller: str, spectator: str, expected_version: int | None, action_id: str) -> None:
    """The host mutes the spectator whose chat lines go by ``spectator`` (their handle). Locks the Game row."""
    _spectator_mute(
        code=code,
        controller=controller,
        spectator=spectator,
        expected_version=expected_version,
        action_id=action_id,
        muted=True,
    )


def spectator_unmute(
    *, code: str, controller: str, spectator: str, expected_version: int | None, action_id: str
) -> None:
    """The host lets a muted spectator post again. Locks the Game row."""
    _spectator_mute(
        code=code,
        controller=controller,
        spectator=spectator,
        expected_version=expected_version,
        action_id=action_id,
        muted=False,
    )

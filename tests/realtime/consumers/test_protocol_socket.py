"""The declared frames over a real socket: a bad input of each kind is answered with its code and stores nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from games.domain import errors
from games.store.models import ChatMessage, Game
from tests.realtime.consumers.helpers import connect, first_frames, frames_before_pong, frames_until, make_room

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

CURRENT = -1  # stands for the room's version when the frame is sent


@sync_to_async
def stored(code: str) -> tuple[int, int, int]:
    game = Game.objects.get(code=code)
    return game.version, game.moves.count(), ChatMessage.objects.filter(game=game).count()


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ({"type": "chat", "text": "hello\u0000there", "id": "c1"}, errors.BAD_FIELD),
        ({"type": "react", "reaction": "\u0000", "id": "c1"}, errors.BAD_FIELD),
        ({"type": "roll", "version": CURRENT, "id": "r\u0000"}, errors.BAD_FIELD),
        ({"type": "roll", "version": CURRENT, "id": "r", "held": [0, 7]}, errors.BAD_DIE_INDEX),
        ({"type": "roll", "version": CURRENT, "id": "r", "held": [0, True]}, errors.BAD_DIE_INDEX),
        ({"type": "hold", "version": CURRENT, "id": "h", "held": [0, 1, 2, 3, 4, 0]}, errors.BAD_DIE_INDEX),
        ({"type": "score", "version": CURRENT, "id": "s", "box": "chance", "column": 9}, errors.BAD_COLUMN),
        ({"type": "score", "version": CURRENT, "id": "s", "box": "chance\u0000"}, errors.UNKNOWN_BOX),
        ({"type": "kick", "version": CURRENT, "id": "k", "seat": -1}, errors.BAD_SEAT),
        ({"type": "kick", "version": CURRENT, "id": "k", "seat": "1"}, errors.BAD_FIELD),
        ({"type": "add_bot", "version": CURRENT, "id": "b", "level": "x" * 40}, errors.BAD_LEVEL),
        ({"type": "hint", "version": "12", "id": "h"}, errors.BAD_FIELD),
        ({"type": "pause", "version": CURRENT, "id": "x" * 65}, errors.BAD_FIELD),
    ],
)
async def test_a_bad_input_of_each_kind_gets_its_code_and_changes_nothing(frame: dict[str, Any], code: str) -> None:
    room, sessions = await make_room(2)
    ws = await connect(room, sessions[0])
    _, state, _ = await first_frames(ws)
    before = await stored(room)
    if frame.get("version") == CURRENT:
        frame = {**frame, "version": state["version"]}
    await ws.send_to(text_data=json.dumps(frame))
    error = (await frames_until(ws, "error"))[-1]
    assert (error["code"], bool(error["message"])) == (code, True)
    assert await stored(room) == before
    await ws.disconnect()


async def test_every_frame_carries_version_and_id_and_the_social_ones_ignore_them() -> None:
    """What the page sends on every frame: a chat, a reaction and a back frame with the room's version and an id."""
    room, sessions = await make_room(2)
    ws, other = await connect(room, sessions[0]), await connect(room, sessions[1])
    _, state, _ = await first_frames(ws)
    await first_frames(other)
    extra = {"version": state["version"], "id": "x-1"}
    await ws.send_to(text_data=json.dumps({"type": "chat", "text": "hi", **extra}))
    assert (await frames_until(other, "chat"))[-1]["message"]["text"] == "hi"
    await ws.send_to(text_data=json.dumps({"type": "react", "reaction": "👏", **extra}))
    assert (await frames_until(other, "reaction"))[-1]["reaction"] == "👏"
    await ws.send_to(text_data=json.dumps({"type": "back", **extra}))
    await ws.send_to(text_data=json.dumps({"type": "sync", **extra}))
    await ws.send_to(text_data=json.dumps({"type": "ping", **extra}))
    answered = await frames_until(ws, "pong")
    assert not [frame for frame in answered if frame["type"] == "error"]
    assert [frame["version"] for frame in answered if frame["type"] in ("state", "pong")][-2:] == [state["version"]] * 2
    for socket in (ws, other):
        await socket.disconnect()


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "hint", "id": "x" * 65},
        {"type": "hint", "id": ""},
        {"type": "chat", "text": "hi", "id": "x" * 65},
        {"type": "react", "reaction": "👍", "id": "x" * 65},
        {"type": "back", "id": ""},
    ],
    ids=["hint-65", "hint-empty", "chat-65", "react-65", "back-empty"],
)
async def test_an_id_of_0_or_over_64_characters_is_bad_field_on_every_frame(frame: dict[str, Any]) -> None:
    """docs/protocol.md's error table: bad_field for "an `id` of 0 or over 64 characters", on the
    frames that are not actions too (their id is echoed back)."""
    room, sessions = await make_room(2)
    ws = await connect(room, sessions[0])
    _, state, _ = await first_frames(ws)
    before = await stored(room)
    await ws.send_to(text_data=json.dumps({**frame, "version": state["version"]}))
    answers = await frames_before_pong(ws)
    codes = [f.get("code") for f in answers if f["type"] == "error"]
    assert codes == [errors.BAD_FIELD], answers
    assert await stored(room) == before
    await ws.disconnect()


async def test_a_stale_hint_is_followed_by_the_current_state() -> None:
    """docs/protocol.md: "After `stale` or `repeated_action` the server also sends the current `state`",
    after a hint's as after an action's."""
    room, sessions = await make_room(2)
    ws = await connect(room, sessions[0])
    _, state, _ = await first_frames(ws)
    await ws.send_to(text_data=json.dumps({"type": "hint", "version": state["version"] - 1, "id": "h-1"}))
    # A presence frame may come between them when the room's presence is swept meanwhile.
    answers = [f for f in await frames_before_pong(ws) if f["type"] != "presence"]
    assert [f["type"] for f in answers] == ["error", "state"], answers
    assert answers[0]["code"] == errors.STALE and answers[0]["id"] == "h-1"
    assert answers[1]["version"] == state["version"]
    await ws.disconnect()


async def test_a_hint_asked_in_a_pause_is_refused_as_a_roll_is() -> None:
    """The coach waits with the turn: the host's own page drawn before their pause asks for a hint
    and is told the pause is theirs to resume (``you_paused``), not given one."""
    room, sessions = await make_room(2)
    ws = await connect(room, sessions[0])
    _, state, _ = await first_frames(ws)
    await ws.send_to(text_data=json.dumps({"type": "pause", "version": state["version"], "id": "p-1"}))
    paused = await frames_until(ws, "state")
    assert paused[-1]["paused"] is True, paused
    await ws.send_to(text_data=json.dumps({"type": "hint", "version": paused[-1]["version"], "id": "h-1"}))
    answers = [f for f in await frames_before_pong(ws) if f["type"] != "presence"]
    assert [(f["type"], f.get("code"), f.get("id")) for f in answers] == [("error", errors.YOU_PAUSED, "h-1")], answers
    await ws.disconnect()

"""Chat, reactions, muting and pause over the room websocket; every refusal leaves the stored state as it was."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from games import services
from games.domain.room import LIMITS, Tally
from games.store import moves
from games.store.models import ChatMessage, Game, Move, Player
from tests.factories import Table, play_to_end
from tests.realtime.consumers.helpers import connect, first_frames, frames_before_pong, frames_until, make_room

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@sync_to_async
def stored(code: str) -> tuple[int, int, list[str]]:
    """What a refusal must not change: the game's version, its Move count, its chat."""
    game = Game.objects.get(code=code)
    texts = list(ChatMessage.objects.filter(game=game).order_by("id").values_list("text", flat=True))
    return game.version, game.moves.count(), texts


@sync_to_async
def make_open_room(spectators_chat: bool) -> tuple[str, list[str]]:
    """A started 2-player room whose host chose whether spectators may chat."""
    clients = [Client(), Client()]
    data = {"name": "P0", "ruleset": "official", "mode": "online", "turn_timer": "0"}
    if spectators_chat:
        data["chat_spectators"] = "on"
    response = clients[0].post("/rooms/new", data)
    code = response["Location"].strip("/").split("/")[-1]
    clients[1].post(f"/r/{code}/join", {"name": "P1"})
    game = Game.objects.get(code=code)
    clients[0].post(f"/r/{code}/start", {"version": game.version, "action_id": "start"})
    return code, [c.cookies["sessionid"].value for c in clients]


async def seated(count: int = 2) -> tuple[str, list[WebsocketCommunicator]]:
    code, sessions = await make_room(count)
    sockets = [await connect(code, s) for s in sessions]
    for ws in sockets:
        await first_frames(ws)
    return code, sockets


async def error_of(ws: WebsocketCommunicator) -> dict[str, Any]:
    frames = await frames_until(ws, "error")
    return frames[-1]


async def close(*sockets: WebsocketCommunicator) -> None:
    for ws in sockets:
        await ws.disconnect()


async def test_a_message_reaches_everyone_as_plain_text_markup_and_all() -> None:
    code, (p0, p1) = await seated()
    text = '  <script>alert("x")</script> <b>hi</b> &amp;  '
    await p0.send_json_to({"type": "chat", "text": text, "id": "c1"})
    for ws in (p0, p1):
        frame = (await frames_until(ws, "chat"))[-1]
        message = frame["message"]
        assert message["text"] == text.strip()  # as typed, trimmed: the page shows it with textContent
        assert message["name"] == "P0" and message["seat"] == 0 and isinstance(message["id"], int)
    _, _, texts = await stored(code)
    assert texts == [text.strip()]
    await close(p0, p1)


async def test_a_messages_frame_id_goes_to_its_senders_browser_alone() -> None:
    code, sessions = await make_room(2)
    p0, p1 = [await connect(code, s) for s in sessions]
    for ws in (p0, p1):
        await first_frames(ws)
    # A second socket of the sender's browser (a page that reconnected, another tab) knows the
    # message by the id as well: the page's confirmation may come on a socket opened after the send.
    again = await connect(code, sessions[0])
    await first_frames(again)
    text = "good luck"
    await p0.send_json_to({"type": "chat", "text": text, "id": "c1"})
    for ws in (p0, again):
        frame = (await frames_until(ws, "chat"))[-1]
        assert frame["id"] == "c1" and frame["message"]["text"] == text
    other = (await frames_until(p1, "chat"))[-1]
    assert "id" not in other and other["message"]["text"] == text  # another page has no use for it
    await close(p0, p1, again)


@pytest.mark.parametrize("text", ["", "   "])
async def test_an_empty_message_is_refused_and_nothing_is_stored(text: str) -> None:
    code, (p0, p1) = await seated()
    before = await stored(code)
    await p0.send_json_to({"type": "chat", "text": text, "id": "c1"})
    error = await error_of(p0)
    assert error["code"] == services.BAD_MESSAGE and error["id"] == "c1"
    assert await stored(code) == before
    await close(p0, p1)


@pytest.mark.parametrize(
    ("text", "length"),
    [("x" * 301, 301), (" " + "y" * 301 + " ", 301), ("word " * 80, 399), ("🎲" * 301, 301)],
)
async def test_a_message_over_300_characters_is_refused_whole_never_cut(text: str, length: int) -> None:
    code, (p0, p1) = await seated()
    before = await stored(code)
    await p0.send_json_to({"type": "chat", "text": text, "id": "c1"})
    error = await error_of(p0)
    assert error["code"] == services.CHAT_TOO_LONG and error["id"] == "c1"
    assert f"at most 300 characters: this one has {length}" in error["message"]
    assert await stored(code) == before  # nothing stored, not even the first 300
    await close(p0, p1)


@pytest.mark.parametrize("text", ["z" * 300, "🎲" * 300, " " + "q" * 300 + "  "])
async def test_three_hundred_characters_are_fine_counted_as_characters(text: str) -> None:
    code, (p0, p1) = await seated()
    await p0.send_json_to({"type": "chat", "text": text})
    frame = (await frames_until(p1, "chat"))[-1]
    assert frame["message"]["text"] == text.strip() and "id" not in frame
    await close(p0, p1)


async def test_a_chat_frame_of_the_wrong_shape_is_refused() -> None:
    code, (p0, p1) = await seated()
    before = await stored(code)
    await p0.send_json_to({"type": "chat"})
    assert (await error_of(p0))["code"] == services.MISSING_FIELD
    await p0.send_json_to({"type": "chat", "text": 5})
    assert (await error_of(p0))["code"] == services.BAD_FIELD
    await p0.send_json_to({"type": "chat", "text": "hi", "seat": 1})  # not this browser's seat
    assert (await error_of(p0))["code"] == services.NOT_A_PLAYER
    assert await stored(code) == before
    await close(p0, p1)


async def test_the_sixth_message_in_ten_seconds_is_refused() -> None:
    code, (p0, p1) = await seated()
    for n in range(5):
        await p0.send_json_to({"type": "chat", "text": f"m{n}"})
        await frames_until(p0, "chat")
    before = await stored(code)
    await p0.send_json_to({"type": "chat", "text": "one too many", "id": "c6"})
    error = await error_of(p0)
    assert error["code"] == services.RATE_LIMITED and "5 chat" in error["message"]
    assert await stored(code) == before
    # The limit is per browser: the other player still talks.
    await p1.send_json_to({"type": "chat", "text": "my turn to talk"})
    assert (await frames_until(p0, "chat"))[-1]["message"]["text"] == "my turn to talk"
    await close(p0, p1)


async def test_the_host_mutes_a_seat_and_unmutes_it() -> None:
    code, (p0, p1) = await seated()
    version, _, _ = await stored(code)
    await p1.send_json_to({"type": "mute", "seat": 0, "version": version, "id": "m0"})  # not the host
    assert (await error_of(p1))["code"] == services.NOT_HOST
    await p0.send_json_to({"type": "mute", "seat": 1, "version": version, "id": "m1"})
    state = (await frames_until(p1, "state"))[-1]
    assert state["seats"][1]["muted"] is True
    before = await stored(code)
    await p1.send_json_to({"type": "chat", "text": "let me talk", "id": "c"})
    assert (await error_of(p1))["code"] == services.MUTED
    assert await stored(code) == before
    # Nor a reaction: the muted seat's page offers none, and the room hears none.
    await p1.send_json_to({"type": "react", "reaction": "😂", "id": "r"})
    assert (await error_of(p1))["code"] == services.MUTED
    assert not [frame for frame in await frames_before_pong(p0) if frame["type"] == "reaction"]
    await p0.send_json_to({"type": "unmute", "seat": 1, "version": state["version"], "id": "m2"})
    assert (await frames_until(p1, "state"))[-1]["seats"][1]["muted"] is False
    await p1.send_json_to({"type": "chat", "text": "thanks"})
    assert (await frames_until(p0, "chat"))[-1]["message"]["text"] == "thanks"
    mutes = Move.objects.filter(game__code=code, kind="mute").order_by("seq").values_list("payload", flat=True)
    payloads = await sync_to_async(list)(mutes)
    assert [p["muted"] for p in payloads] == [True, False]
    await close(p0, p1)


async def test_spectators_read_but_do_not_post_by_default() -> None:
    code, sessions = await make_open_room(spectators_chat=False)
    p0 = await connect(code, sessions[0])
    await first_frames(p0)
    watcher = await connect(code)
    _, state, _ = await first_frames(watcher)
    assert state["chat"] == {"spectators": False, "muted": []}
    before = await stored(code)
    await watcher.send_json_to({"type": "chat", "text": "hello players"})
    assert (await error_of(watcher))["code"] == services.CHAT_CLOSED
    assert await stored(code) == before
    await p0.send_json_to({"type": "chat", "text": "hello watchers"})
    assert (await frames_until(watcher, "chat"))[-1]["message"]["text"] == "hello watchers"
    await close(p0, watcher)


async def test_a_browser_that_left_its_seat_is_told_it_is_a_former_player_a_stranger_is_not() -> None:
    code, sessions = await make_open_room(spectators_chat=False)
    game = await sync_to_async(Game.objects.get)(code=code)
    leaver = game.room.seats[1].controller
    await sync_to_async(services.game_leave)(
        code=code, controller=leaver, seat=1, expected_version=None, action_id="leaves"
    )
    bob, watcher, host = await connect(code, sessions[1]), await connect(code), await connect(code, sessions[0])
    (bob_you, _, _), (watcher_you, _, _), (host_you, _, _) = [await first_frames(ws) for ws in (bob, watcher, host)]
    assert bob_you["seats"] == [] and bob_you["former"] is True
    assert bob_you["left"] == [1]  # the seat he gave up, still in the list: its mute is his page's to read
    assert "former" not in watcher_you and "former" not in host_you
    assert "left" not in watcher_you and "left" not in host_you
    await close(bob, watcher, host)


async def test_a_browser_the_host_took_out_is_told_so_and_its_post_is_refused_as_taken_out() -> None:
    """The host takes Bob out mid-game without muting him: his socket's ``you`` says so (his page
    offers no chat field), and a post of his is refused with ``taken_out``, not ``muted``."""
    code, sessions = await make_open_room(spectators_chat=True)
    game = await sync_to_async(Game.objects.get)(code=code)
    await sync_to_async(services.game_remove_absent)(
        code=code, controller=game.room.seats[0].controller, seat=1, expected_version=game.version, action_id="out"
    )
    bob, watcher = await connect(code, sessions[1]), await connect(code)
    (bob_you, _, _), (watcher_you, _, _) = [await first_frames(ws) for ws in (bob, watcher)]
    assert bob_you["former"] is True and bob_you["taken_out"] is True
    assert "taken_out" not in watcher_you
    before = await stored(code)
    await bob.send_json_to({"type": "chat", "text": "still here", "id": "c-1"})
    error = await error_of(bob)
    assert error["code"] == services.TAKEN_OUT
    assert error["message"] == "The host took you out of this game: you can read its chat but not post to it."
    assert await stored(code) == before
    await close(bob, watcher)


async def test_the_host_unmutes_from_the_socket_a_player_taken_out_who_was_never_muted() -> None:
    """The host takes Bob out mid-game without muting him: the state shows his seat quiet (muted),
    the host's socket unmutes it, and Bob's next socket is told he speaks again (no ``taken_out``),
    and his post goes to the room."""
    code, sessions = await make_open_room(spectators_chat=True)
    game = await sync_to_async(Game.objects.get)(code=code)
    await sync_to_async(services.game_remove_absent)(
        code=code, controller=game.room.seats[0].controller, seat=1, expected_version=game.version, action_id="out"
    )
    host = await connect(code, sessions[0])
    _, state, _ = await first_frames(host)
    assert state["seats"][1]["muted"] is True
    await host.send_json_to({"type": "unmute", "seat": 1, "version": state["version"], "id": "m1"})
    assert (await frames_until(host, "state"))[-1]["seats"][1]["muted"] is False
    bob = await connect(code, sessions[1])
    bob_you, _, _ = await first_frames(bob)
    assert bob_you["former"] is True and "taken_out" not in bob_you
    await bob.send_json_to({"type": "chat", "text": "back", "id": "c-1"})
    assert (await frames_until(host, "chat"))[-1]["message"]["text"] == "back"
    await close(bob, host)


@sync_to_async
def spectator_session(code: str) -> str:
    """A browser that opened the room's page to watch, then posted: where spectators may post, the
    page asks for its token before its first post."""
    client = Client()
    assert client.get(f"/r/{code}/").status_code == 200
    assert client.post(f"/r/{code}/spectator").status_code == 200
    return client.cookies["sessionid"].value


@sync_to_async
def host_token(code: str) -> str:
    game = Game.objects.get(code=code)
    return game.room.seats[game.room.seat_of_player(game.host_id) or 0].controller


async def test_spectators_post_when_the_host_allowed_it() -> None:
    code, sessions = await make_open_room(spectators_chat=True)
    p0 = await connect(code, sessions[0])
    await first_frames(p0)
    watcher = await connect(code, await spectator_session(code))
    you, _, _ = await first_frames(watcher)
    await watcher.send_json_to({"type": "chat", "text": "go P0!"})
    message = (await frames_until(p0, "chat"))[-1]["message"]
    assert message["seat"] is None and message["name"] == "Spectator" and message["text"] == "go P0!"
    assert message["spectator"] == you["spectator"] and len(you["spectator"]) == 12
    await close(p0, watcher)


async def test_a_socket_without_a_session_reads_but_cannot_post_as_nobody_to_mute() -> None:
    code, sessions = await make_open_room(spectators_chat=True)
    p0 = await connect(code, sessions[0])
    await first_frames(p0)
    bare = await connect(code)
    you, _, _ = await first_frames(bare)
    assert "spectator" not in you
    before = await stored(code)
    await bare.send_json_to({"type": "chat", "text": "anonymous and unmutable", "id": "c1"})
    assert (await error_of(bare))["code"] == services.BAD_REQUEST
    assert await stored(code) == before
    await p0.send_json_to({"type": "chat", "text": "still readable"})
    assert (await frames_until(bare, "chat"))[-1]["message"]["text"] == "still readable"
    await close(p0, bare)


async def test_the_host_mutes_a_spectator_by_their_line_and_unmutes_them() -> None:
    code, sessions = await make_open_room(spectators_chat=True)
    p0, p1 = await connect(code, sessions[0]), await connect(code, sessions[1])
    for ws in (p0, p1):
        await first_frames(ws)
    watcher = await connect(code, await spectator_session(code))
    you, _, _ = await first_frames(watcher)
    await watcher.send_json_to({"type": "chat", "text": "BUY CHEAP DICE"})
    line = (await frames_until(p0, "chat"))[-1]["message"]
    handle = line["spectator"]
    before = await stored(code)
    version = before[0]
    # Only the host: a player is refused, and so is the spectator.
    for ws in (p1, watcher):
        await ws.send_json_to({"type": "mute_spectator", "spectator": handle, "version": version, "id": "m0"})
        assert (await error_of(ws))["code"] == services.NOT_HOST
    await p0.send_json_to({"type": "mute_spectator", "spectator": "0" * 12, "version": version, "id": "m1"})
    assert (await error_of(p0))["code"] == services.BAD_SPECTATOR
    await p0.send_json_to({"type": "mute_spectator", "spectator": "not a handle", "version": version, "id": "m2"})
    assert (await error_of(p0))["code"] == services.BAD_SPECTATOR
    assert await stored(code) == before
    await p0.send_json_to({"type": "mute_spectator", "spectator": handle, "version": version, "id": "m3"})
    state = (await frames_until(watcher, "state"))[-1]
    assert state["chat"]["muted"] == [you["spectator"]]
    assert state["event"] == {"type": "muted", "spectator": handle, "name": "Spectator", "muted": True}
    before = await stored(code)
    await watcher.send_json_to({"type": "chat", "text": "BUY CHEAP DICE NOW", "id": "c2"})
    assert (await error_of(watcher))["code"] == services.MUTED
    assert await stored(code) == before
    assert "BUY CHEAP DICE" in before[2]  # the earlier line stays, as a muted player's do
    await p0.send_json_to({"type": "unmute_spectator", "spectator": handle, "version": state["version"], "id": "m4"})
    state = (await frames_until(watcher, "state"))[-1]
    assert state["chat"]["muted"] == [] and state["event"]["muted"] is False
    await watcher.send_json_to({"type": "chat", "text": "sorry"})
    assert (await frames_until(p1, "chat"))[-1]["message"]["text"] == "sorry"
    mutes = Move.objects.filter(game__code=code, kind="mute").order_by("seq").values_list("payload", "actor")
    payloads = await sync_to_async(list)(mutes)
    # The Move log names the spectator by their handle (never their token) and the host as its actor.
    assert [p for p, _ in payloads] == [
        {"spectator": handle, "name": "Spectator", "muted": True},
        {"spectator": handle, "name": "Spectator", "muted": False},
    ]
    assert {actor for _, actor in payloads} == {await host_token(code)}
    await close(p0, p1, watcher)


async def test_a_socket_connecting_gets_the_last_fifty_messages_not_the_hidden_ones() -> None:
    code, (p0, p1) = await seated()

    @sync_to_async
    def chatter() -> int:
        game = Game.objects.get(code=code)
        rows = ChatMessage.objects.bulk_create(
            ChatMessage(game=game, seat=0, name="P0", text=f"line {n}") for n in range(60)
        )
        services.chat_hide(message_id=ChatMessage.objects.get(game=game, text="line 59").pk, staff="clerk")
        return len(rows)

    assert await chatter() == 60
    late = await connect(code)
    you, state, history = [json.loads(await late.receive_from()) for _ in range(3)]
    assert (you["type"], state["type"], history["type"]) == ("you", "state", "chat_history")
    texts = [m["text"] for m in history["messages"]]
    assert texts == [f"line {n}" for n in range(9, 59)]  # 50, oldest first, without the hidden one
    await close(p0, p1, late)


async def test_a_hidden_message_is_taken_off_every_page() -> None:
    code, (p0, p1) = await seated()
    await p0.send_json_to({"type": "chat", "text": "something rude"})
    message = (await frames_until(p1, "chat"))[-1]["message"]
    await sync_to_async(services.chat_hide)(message_id=message["id"], staff="clerk")
    frame = (await frames_until(p1, "chat_hidden"))[-1]
    assert frame == {"type": "chat_hidden", "message": message["id"], "hidden": True}
    await close(p0, p1)


async def test_a_reaction_shows_on_the_senders_seat_for_everyone_and_is_not_stored() -> None:
    code, (p0, p1) = await seated()
    before = await stored(code)
    await p1.send_json_to({"type": "react", "reaction": "👏"})
    for ws in (p0, p1):
        assert (await frames_until(ws, "reaction"))[-1] == {"type": "reaction", "seat": 1, "reaction": "👏"}
    assert await stored(code) == before
    await close(p0, p1)


async def test_reactions_are_from_the_set_from_players_and_rate_limited() -> None:
    code, (p0, p1) = await seated()
    watcher = await connect(code)
    await first_frames(watcher)
    await p0.send_json_to({"type": "react", "reaction": "<img src=x>"})
    assert (await error_of(p0))["code"] == services.BAD_REACTION
    await watcher.send_json_to({"type": "react", "reaction": "👍"})
    assert (await error_of(watcher))["code"] == services.NOT_A_PLAYER
    for _ in range(5):
        await p1.send_json_to({"type": "react", "reaction": "🎲"})
        await frames_until(p1, "reaction")
    await p1.send_json_to({"type": "react", "reaction": "🎲", "id": "r6"})
    assert (await error_of(p1))["code"] == services.RATE_LIMITED
    await close(p0, p1, watcher)


async def test_pause_refuses_turn_actions_but_not_chat_and_resume_lets_play_go_on() -> None:
    code, (p0, p1) = await seated()
    version, _, _ = await stored(code)
    await p1.send_json_to({"type": "pause", "version": version, "id": "p"})
    assert (await error_of(p1))["code"] == services.NOT_HOST
    await p0.send_json_to({"type": "pause", "version": version, "id": "p"})
    frames = await frames_until(p1, "state")
    assert frames[-1]["event"]["type"] == "paused" and frames[-1]["paused"] is True
    before = await stored(code)
    await p0.send_json_to({"type": "roll", "version": before[0], "id": "r"})
    error = await error_of(p0)  # the host's own, in words about themselves
    assert error["code"] == services.YOU_PAUSED
    assert error["message"] == "You paused the game: play goes on when you resume it."
    await p1.send_json_to({"type": "roll", "version": before[0], "id": "r1"})
    error = await error_of(p1)
    assert error["code"] == services.PAUSED
    assert error["message"] == "The host has paused the game: play goes on when they resume it."
    assert await stored(code) == before
    await p1.send_json_to({"type": "chat", "text": "brb"})
    assert (await frames_until(p0, "chat"))[-1]["message"]["text"] == "brb"
    await p0.send_json_to({"type": "resume", "version": before[0], "id": "res"})
    state = (await frames_until(p0, "state"))[-1]
    assert state["paused"] is False
    await p0.send_json_to({"type": "roll", "version": state["version"], "id": "r2"})
    heard = [(await frames_until(p1, "state"))[-1]["event"]["type"] for _ in range(2)]
    assert heard == ["resumed", "rolled"]
    await close(p0, p1)


@sync_to_async
def paused_as_often_as_allowed(code: str) -> None:
    """The room's tally says its host paused it as often as one game allows (as a loop of pause and
    resume would have left it), on its stored row."""
    game = Game.objects.get(code=code)
    game.room = game.room.change(tally=Tally(pauses=LIMITS["pauses"]))
    game.save(update_fields=["snapshot"])
    moves.forget(code)


async def test_a_pause_past_as_many_as_one_game_allows_is_refused_over_the_socket_and_play_goes_on() -> None:
    code, (p0, p1) = await seated()
    await paused_as_often_as_allowed(code)
    before = await stored(code)
    await p0.send_json_to({"type": "pause", "version": before[0], "id": "p"})
    error = await error_of(p0)
    assert error["code"] == services.PAUSES_USED_UP == "pauses_used_up"
    assert f"paused {LIMITS['pauses']} times" in error["message"] and error["id"] == "p"
    assert await stored(code) == before
    await p0.send_json_to({"type": "roll", "version": before[0], "id": "r"})
    assert (await frames_until(p1, "state"))[-1]["event"]["type"] == "rolled"
    await close(p0, p1)


async def test_on_a_shared_device_each_message_is_posted_as_the_seat_chosen() -> None:
    @sync_to_async
    def local_room() -> tuple[str, str]:
        client = Client()
        data = {"mode": "local", "ruleset": "official", "players": "2", "player_1": "Ann", "player_2": "Bob"}
        response = client.post("/rooms/new", data)
        return response["Location"].strip("/").split("/")[-1], client.cookies["sessionid"].value

    code, session = await local_room()
    ws = await connect(code, session)
    you, _, _ = await first_frames(ws)
    assert you["seats"] == [0, 1]
    await ws.send_json_to({"type": "chat", "text": "from Bob", "seat": 1})
    assert (await frames_until(ws, "chat"))[-1]["message"]["name"] == "Bob"
    await ws.send_json_to({"type": "chat", "text": "from Ann"})  # no seat: the device's first
    assert (await frames_until(ws, "chat"))[-1]["message"]["name"] == "Ann"
    before = await stored(code)
    await ws.send_json_to({"type": "chat", "text": "from nobody", "seat": 5})
    assert (await error_of(ws))["code"] == services.NOT_A_PLAYER
    assert await stored(code) == before
    await close(ws)


async def test_a_finished_private_rooms_chat_is_not_given_to_whoever_reads_a_public_profile(settings: Any) -> None:
    """Rooms are private: reachable only through their code, never listed (security.md). A
    finished game's code is listed on every account holder's profile, public by default
    (/u/<name>/ links /r/<code>/replay, which links "Back to the room"). A stranger who
    follows it opens the room's socket and is handed the players' chat (chat_history),
    including what players without any account wrote to each other."""
    import json
    import random

    from asgiref.sync import sync_to_async
    from django.test import Client

    from accounts import services as account_services
    from tests.accounts.helpers import controller_of, room_for, sign_up
    from tests.factories import play_to_end
    from tests.realtime.consumers.helpers import connect, frames_within

    settings.FOLLOWUPS_INLINE = True
    settings.ACCOUNT_RATE_LIMITS = False

    @sync_to_async
    def finished_game_on_a_profile() -> str:
        ann = Client()
        sign_up(ann, "ann_review")
        guest = services.new_controller()  # a player with no account, who made nothing public
        table = room_for([controller_of(ann), guest])
        services.chat_post(code=table.code, controller=guest, text="call me on 555-0199, my flat is 4B")
        game = play_to_end(table, random.Random(3))
        account_services.game_count(game_id=game.pk)
        page = Client().get("/u/ann_review/")
        assert page.status_code == 200 and f"/r/{table.code}/replay" in page.content.decode()
        return table.code

    code = await finished_game_on_a_profile()
    stranger = await connect(code)  # no session: someone who read Ann's profile
    frames = await frames_within(stranger, 0.5)
    await stranger.disconnect()
    said = [m["text"] for f in frames if f["type"] == "chat_history" for m in f["messages"]]
    assert "call me on 555-0199, my flat is 4B" not in said, json.dumps(frames)[:300]


@sync_to_async
def finish_room(code: str) -> list[str]:
    """Play the started room ``code`` to its end; each seat's controller token, in seat order."""
    controllers = list(Game.objects.get(code=code).players.order_by("seat").values_list("controller", flat=True))
    play_to_end(Table(code=code, controllers=controllers), random.Random(5))
    return controllers


async def test_a_finished_games_chat_and_reactions_are_heard_live_by_its_players_only() -> None:
    """The game's code is public on its players' profiles: a stranger's socket on the finished room
    hears none of what the players say after the game (as it is sent no chat history)."""
    code, sessions = await make_room(2)
    controllers = await finish_room(code)
    stranger = await connect(code)  # no session: never held a seat
    player = await connect(code, sessions[1])
    for ws in (stranger, player):
        await frames_before_pong(ws)
    await sync_to_async(services.chat_post)(code=code, controller=controllers[0], text="my number is 555-0199")
    await sync_to_async(services.chat_react)(code=code, controller=controllers[0], reaction="👍")
    heard = await frames_until(player, "reaction")
    assert [f["type"] for f in heard if f["type"] in ("chat", "reaction")] == ["chat", "reaction"]
    message = await sync_to_async(ChatMessage.objects.get)(text="my number is 555-0199")
    await sync_to_async(services.chat_hide)(
        message_id=message.pk, staff="clerk", hidden=False
    )  # already shown: no frame
    await sync_to_async(services.chat_hide)(message_id=message.pk, staff="clerk")
    await sync_to_async(services.chat_hide)(
        message_id=message.pk, staff="clerk", hidden=False
    )  # shown again, with its text
    heard = await frames_until(player, "chat_hidden")
    heard += await frames_until(player, "chat_hidden")
    assert [f.get("hidden") for f in heard if f["type"] == "chat_hidden"] == [True, False]
    told = [f for f in await frames_before_pong(stranger) if f["type"] in ("chat", "reaction", "chat_hidden")]
    assert told == []
    for ws in (stranger, player):
        await ws.disconnect()


async def test_open_pages_stop_showing_a_deleted_accounts_name_beside_its_chat_lines() -> None:
    """Bob says something, then deletes his account mid-game (docs/accounts.md: his seats are shown
    as "Former player" everywhere, chat messages included). The room gets the ``forget`` state,
    and the pages already showing his lines are told to rename them; a page connecting later
    gets them renamed in its history."""
    code, sessions = await make_room(2)
    ann = await connect(code, sessions[0])
    await first_frames(ann)
    bob = await connect(code, sessions[1])
    await first_frames(bob)
    await bob.send_json_to({"type": "chat", "text": "call me, 555-0199"})
    said = (await frames_until(ann, "chat"))[-1]["message"]
    assert said["name"] == "P1"
    await bob.disconnect()

    @sync_to_async
    def forget_bob() -> None:
        player = Player.objects.get(game=Game.objects.get(code=code), seat=1)
        services.seats_forget(controller=player.controller, player_ids=[player.pk])

    await forget_bob()
    frames = await frames_before_pong(ann)
    told = [f["type"] for f in frames if f["type"] in ("state", "chat_renamed")]
    assert told[:2] == ["state", "chat_renamed"], told  # the forget's state (a leave's follows: a live game)
    renamed = next(f for f in frames if f["type"] == "chat_renamed")
    assert renamed == {"type": "chat_renamed", "messages": [said["id"]], "name": "Former player"}
    later = await connect(code, sessions[0])
    history = (await frames_until(later, "chat_history"))[-1]
    assert [(m["id"], m["name"]) for m in history["messages"]] == [(said["id"], "Former player")]
    for ws in (ann, later):
        await ws.disconnect()

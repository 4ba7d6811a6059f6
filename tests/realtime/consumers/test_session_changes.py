"""A room tab open while the browser signs in or out in another tab: its socket follows the session.

The socket reads the browser's token once, when it connects. Signing out flushes the session and
signing in cycles it: the open socket is then closed (4001) when it next acts, and the page connects
again as the browser is now (an anonymous visitor, or the account with its seats). The room counts
the tab as the browser is now from the moment it signs in or out (its Presence row follows).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from games import services
from games.domain import protocol
from games.realtime import consumer
from games.store.models import ChatMessage, Game
from tests.factories import Table, play_to_end
from tests.realtime.consumers.helpers import connect, first_frames, frames_before_pong, presence_settled

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@sync_to_async
def started_room(*, host_signed_in: bool, chat_spectators: bool = False, hints: bool = False) -> tuple[str, Client]:
    """A started room of two made through the pages; the host's browser (seat 0, to play first)."""
    host, guest = Client(), Client()
    form = {"name": "Ann", "ruleset": "official", "mode": "online"}
    if chat_spectators:
        form["chat_spectators"] = "on"
    if hints:
        form["hints"] = "on"
    code = host.post("/rooms/new", form)["Location"].strip("/").split("/")[-1]
    guest.post(f"/r/{code}/join", {"name": "Bea"})
    if host_signed_in:  # the seats go to the account's token, the session takes it (accounts.receivers)
        host.force_login(get_user_model().objects.create_user("ann", password="pw-long-enough-1"))
    host.post(f"/r/{code}/start", {"version": Game.objects.get(code=code).version, "action_id": "start"})
    return code, host


async def closed_with(ws: WebsocketCommunicator) -> int | None:
    """The close code the socket ends with (its other frames skipped); None if it answers a state or an error."""
    while True:
        output: dict[str, Any] = await ws.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return int(output["code"])
        frame = json.loads(output["text"])
        if frame["type"] in ("error", "state") and frame.get("id", frame.get("event")):
            return None


async def test_a_tab_left_open_after_signing_out_plays_the_accounts_seats_no_more(monkeypatch: Any) -> None:
    """A shared computer: signed out in one tab, the room's tab still open. Its next action closes it
    (looked at every SESSION_RECHECK seconds: here at once) and is not played for the account."""
    monkeypatch.setattr(consumer, "SESSION_RECHECK", 0.0)
    code, host = await started_room(host_signed_in=True)
    ws = await connect(code, host.cookies["sessionid"].value)
    _you, state, _presence = await first_frames(ws)
    assert state["turn"]["seat"] == 0
    await sync_to_async(host.logout)()  # in another tab: the session is flushed
    await ws.send_json_to({"type": "roll", "version": state["version"], "id": "after-sign-out"})
    assert await closed_with(ws) == protocol.CLOSE_SESSION_CHANGED
    assert await sync_to_async(lambda: Game.objects.get(code=code).room.rolls)() == 0
    # The page comes back as the browser is now: a visitor with no seat.
    cookie = host.cookies.get("sessionid")
    again = await connect(code, cookie.value if cookie is not None and cookie.value else None)
    you, _state, _presence = await first_frames(again)
    await again.disconnect()
    assert you["seats"] == []


async def test_a_tab_open_while_signing_in_comes_back_with_its_seats_under_the_account() -> None:
    """Signing in moves the browser's seats to the account's token: the open tab's roll, refused as a
    spectator's, closes it instead, and the page, connected again, plays its seat."""
    code, host = await started_room(host_signed_in=False)
    ws = await connect(code, host.cookies["sessionid"].value)
    await first_frames(ws)

    @sync_to_async
    def sign_in_elsewhere() -> int:
        host.force_login(get_user_model().objects.create_user("ann", password="pw-long-enough-1"))
        return Game.objects.get(code=code).version  # the claim moved the version on

    version = await sign_in_elsewhere()
    await ws.send_json_to({"type": "roll", "version": version, "id": "after-sign-in"})
    assert await closed_with(ws) == protocol.CLOSE_SESSION_CHANGED
    again = await connect(code, host.cookies["sessionid"].value)
    you, _state, _presence = await first_frames(again)
    await again.send_json_to({"type": "roll", "version": version, "id": "again"})
    answer = await closed_with(again)
    await again.disconnect()
    assert you["seats"] == [0] and answer is None
    assert await sync_to_async(lambda: Game.objects.get(code=code).room.rolls)() == 1


async def test_a_tab_open_while_signing_in_asking_the_coach_comes_back_with_its_seats() -> None:
    """The coach's hint is for the player to move: asked from the open tab under the token the seats
    left, it is refused as a spectator's, and the socket closes so the page comes back with them."""
    code, host = await started_room(host_signed_in=False, hints=True)
    ws = await connect(code, host.cookies["sessionid"].value)
    await first_frames(ws)

    @sync_to_async
    def sign_in_elsewhere() -> int:
        host.force_login(get_user_model().objects.create_user("ann", password="pw-long-enough-1"))
        return Game.objects.get(code=code).version

    version = await sign_in_elsewhere()
    await ws.send_json_to({"type": "hint", "version": version, "id": "hint-1"})
    assert await closed_with(ws) == protocol.CLOSE_SESSION_CHANGED


async def test_a_player_who_signs_in_elsewhere_does_not_chat_as_a_spectator() -> None:
    """In a room whose spectators may chat, the open tab's next message would have gone out as an
    anonymous "Spectator": the socket is closed before it is posted."""
    code, host = await started_room(host_signed_in=False, chat_spectators=True)
    ws = await connect(code, host.cookies["sessionid"].value)
    await first_frames(ws)

    @sync_to_async
    def sign_in_elsewhere() -> None:
        host.force_login(get_user_model().objects.create_user("ann", password="pw-long-enough-1"))

    await sign_in_elsewhere()
    await ws.send_json_to({"type": "chat", "text": "hello, it is Ann", "id": "chat-1"})
    assert await closed_with(ws) == protocol.CLOSE_SESSION_CHANGED
    assert not await sync_to_async(ChatMessage.objects.filter(game__code=code).exists)()


async def test_a_tab_signed_in_before_the_password_changed_elsewhere_plays_the_accounts_seats_no_more(
    monkeypatch: Any,
) -> None:
    """A session signed in before the account's password changed (in another browser) is over: the
    open tab's next action closes it (4001) and is not played, and the page comes back seatless."""
    monkeypatch.setattr(consumer, "SESSION_RECHECK", 0.0)
    code, host = await started_room(host_signed_in=True)
    ws = await connect(code, host.cookies["sessionid"].value)
    _you, state, _presence = await first_frames(ws)

    @sync_to_async
    def password_changed_elsewhere() -> None:
        account = get_user_model().objects.get(username="ann")
        account.set_password("another-long-password-2")
        account.save()

    await password_changed_elsewhere()
    await ws.send_json_to({"type": "roll", "version": state["version"], "id": "after-password-change"})
    assert await closed_with(ws) == protocol.CLOSE_SESSION_CHANGED
    assert await sync_to_async(lambda: Game.objects.get(code=code).room.rolls)() == 0
    again = await connect(code, host.cookies["sessionid"].value)
    you, _state, _presence = await first_frames(again)
    await again.disconnect()
    assert you["seats"] == []


async def test_a_tab_signed_in_to_an_account_deleted_elsewhere_is_a_stranger_to_its_games(monkeypatch: Any) -> None:
    """Ann, signed in on two browsers, deletes her account in one: her seat is left, and Bea plays the
    game to its end. The other browser's open tab is closed at its next frame (4001) and comes back
    as a stranger to the finished game: no seat, and none of the players' chat."""
    monkeypatch.setattr(consumer, "SESSION_RECHECK", 0.0)
    code, _host = await started_room(host_signed_in=True)

    @sync_to_async
    def another_browser_and_a_word() -> Client:
        laptop = Client()
        laptop.force_login(get_user_model().objects.get(username="ann"))
        services.chat_post(code=code, controller=Game.objects.get(code=code).room.seats[1].controller, text="hi")
        return laptop

    @sync_to_async
    def deleted_and_played_out() -> None:
        get_user_model().objects.get(username="ann").delete()
        bea = Game.objects.get(code=code).room.seats[1].controller
        assert play_to_end(Table(code=code, controllers=["", bea]), random.Random(1)).status == Game.Status.FINISHED

    laptop = await another_browser_and_a_word()
    ws = await connect(code, laptop.cookies["sessionid"].value)
    you, state, *_ = await frames_before_pong(ws)
    assert you["seats"] == [0]
    await deleted_and_played_out()
    await frames_before_pong(ws)  # the room's frames of Bea's moves
    await ws.send_json_to({"type": "roll", "version": state["version"], "id": "after-deletion"})
    assert await closed_with(ws) == protocol.CLOSE_SESSION_CHANGED
    again = await connect(code, laptop.cookies["sessionid"].value)
    frames = await frames_before_pong(again)
    await again.disconnect()
    assert frames[0]["type"] == "you" and frames[0]["seats"] == []
    assert "chat_history" not in [frame["type"] for frame in frames], "a stranger read the players' chat"


@sync_to_async
def lobby_or_game_of_two(*, start: bool) -> tuple[str, Client, Client]:
    """Ann's room (she is host, seat 0) with Bob at seat 1, neither signed in; both browsers."""
    ann, bob = Client(), Client()
    code = ann.post("/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"})["Location"]
    code = code.strip("/").split("/")[-1]
    bob.post(f"/r/{code}/join", {"name": "Bob"})
    if start:
        ann.post(f"/r/{code}/start", {"version": Game.objects.get(code=code).version, "action_id": "start"})
    return code, ann, bob


@sync_to_async
def sign_in(client: Client, name: str) -> None:
    """The browser signs in (in another tab: its room tab stays open)."""
    account = get_user_model().objects.filter(username=name).first()
    client.force_login(account or get_user_model().objects.create_user(name, password="pw-long-enough-1"))


@sync_to_async
def version_of(code: str) -> int:
    return Game.objects.get(code=code).version


async def answer(ws: WebsocketCommunicator, frame: dict[str, Any]) -> list[dict[str, Any]]:
    await ws.send_json_to(frame)
    return await frames_before_pong(ws)


async def at_the_table(code: str, *clients: Client) -> list[WebsocketCommunicator]:
    sockets = [await connect(code, client.cookies["sessionid"].value) for client in clients]
    for ws in sockets:
        await first_frames(ws)
    await presence_settled()
    return sockets


def last_presence(frames: list[dict[str, Any]]) -> dict[str, Any]:
    return [frame for frame in frames if frame["type"] == "presence"][-1]


async def test_a_player_signed_in_in_another_tab_is_not_taken_out_as_away_while_their_room_tab_is_open() -> None:
    """Bob's seats move to his account's token: his open tab's socket counts for the account, so his
    seat is at the table (``player_present``), not away for the host to take out."""
    code, ann, bob = await lobby_or_game_of_two(start=True)
    ann_ws, bob_ws = await at_the_table(code, ann, bob)
    await sign_in(bob, "bob")
    await presence_settled()
    frames = await answer(ann_ws, {"type": "remove", "seat": 1, "version": await version_of(code), "id": "out"})
    seats = await sync_to_async(lambda: Game.objects.get(code=code).room.to_snapshot()["seats"])()
    await ann_ws.disconnect()
    await bob_ws.disconnect()
    errors = [frame for frame in frames if frame["type"] == "error"]
    assert seats[1]["status"] == "active", f"Bob, at the table, was taken out as away: {frames}"
    assert errors and errors[0]["code"] == "player_present"


async def test_a_host_signed_in_in_another_tab_keeps_the_host_role_while_their_room_tab_is_open() -> None:
    code, ann, bob = await lobby_or_game_of_two(start=False)
    ann_ws, bob_ws = await at_the_table(code, ann, bob)
    await sign_in(ann, "ann")  # her lobby tab stays open
    await presence_settled()
    frames = await answer(bob_ws, {"type": "start", "version": await version_of(code), "id": "bob-starts"})
    status = await sync_to_async(lambda: Game.objects.get(code=code).status)()
    await ann_ws.disconnect()
    await bob_ws.disconnect()
    assert status == "lobby", f"Bob took the host role and started the game: {json.dumps(frames)[:400]}"
    assert [frame["code"] for frame in frames if frame["type"] == "error"] == ["not_host"]


async def test_a_tab_left_open_after_signing_out_does_not_keep_the_accounts_seat_at_the_table(settings: Any) -> None:
    """A shared computer: Bob signs out in another tab and walks off, his room tab left open. The room
    counts that tab as a visitor's at once, as its page will be: his seat is away for the host to
    take out, not held at the table by a page nobody plays from (once away as long as a seat must
    be before it is taken out, settings.HOST_AWAY, tested in tests/services/test_seats_and_rematch.py)."""
    settings.HOST_AWAY = 0
    code, ann, bob = await lobby_or_game_of_two(start=True)
    await sign_in(bob, "bob")
    ann_ws, bob_ws = await at_the_table(code, ann, bob)
    await sync_to_async(bob.logout)()
    await presence_settled()
    seen = last_presence(await frames_before_pong(ann_ws))
    frames = await answer(ann_ws, {"type": "remove", "seat": 1, "version": await version_of(code), "id": "out"})
    seats = await sync_to_async(lambda: Game.objects.get(code=code).room.to_snapshot()["seats"])()
    await ann_ws.disconnect()
    await bob_ws.disconnect()
    assert seen["seats"] == {"0": "connected", "1": "away"} and seen["spectators"] == 1
    assert seats[1]["status"] == "left", f"Bob's seat was not taken out: {frames}"


async def test_signing_out_on_one_device_leaves_the_accounts_other_device_at_the_table() -> None:
    """Bob plays signed in on his phone and his laptop, both at the table; he signs out on the laptop
    only. The phone plays his seat still: it stays connected, and the host cannot take it out."""
    code, ann, bob = await lobby_or_game_of_two(start=True)
    await sign_in(bob, "bob")
    phone = Client()
    await sign_in(phone, "bob")
    ann_ws, laptop_ws, phone_ws = await at_the_table(code, ann, bob, phone)
    await sync_to_async(bob.logout)()
    await presence_settled()
    seen = last_presence(await frames_before_pong(ann_ws))
    frames = await answer(ann_ws, {"type": "remove", "seat": 1, "version": await version_of(code), "id": "out"})
    for ws in (ann_ws, laptop_ws, phone_ws):
        await ws.disconnect()
    assert seen["seats"] == {"0": "connected", "1": "connected"} and seen["spectators"] == 1
    assert [frame["code"] for frame in frames if frame["type"] == "error"] == ["player_present"]

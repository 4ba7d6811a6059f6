"""Coming back to the room (the same browser) takes back a seat a computer played meanwhile, and the room hears it."""

from __future__ import annotations

import random
from unittest import mock

import pytest
from asgiref.sync import sync_to_async
from django.db import transaction
from django.test import Client

import bots
from games import services
from games.scheduling import botplay
from games.services.actions import locked
from games.services.clock import _hand_to_computer
from games.store.models import Game, Player
from tests.factories import Table, play_turn
from tests.realtime.consumers.helpers import connect, first_frames, frames_until, make_room

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@sync_to_async
def hand_seat_to_a_computer(code: str, seat: int) -> None:
    host = Player.objects.get(game__code=code, seat=0).controller
    version = Game.objects.get(code=code).version
    services.game_replace_with_bot(code=code, controller=host, seat=seat, expected_version=version, action_id="away")


@sync_to_async
def seat_of(code: str, seat: int) -> dict:
    return dict(Game.objects.get(code=code).snapshot["seats"][seat])


async def test_a_player_back_in_the_room_plays_their_seat_again_and_everyone_is_told() -> None:
    code, sessions = await make_room(2)
    host = await connect(code, sessions[0])
    await first_frames(host)
    await hand_seat_to_a_computer(code, 1)
    frames = await frames_until(host, "state")
    assert frames[-1]["seats"][1]["kind"] == "bot"
    back = await connect(code, sessions[1])
    you, state, _ = await first_frames(back)
    assert (you["seats"], you["players"]) == ([1], [state["seats"][1]["player"]])
    assert state["seats"][1]["kind"] == "human"
    heard = await frames_until(host, "state")
    event = heard[-1]["event"]
    assert event["type"] == "reclaimed" and event["seat"] == 1 and event["name"] == "P1"
    assert heard[-1]["seats"][1]["kind"] == "human" and heard[-1]["seats"][1]["level"] is None
    seat = await seat_of(code, 1)
    assert seat["kind"] == "human" and "away_controller" not in seat
    await back.disconnect()
    await host.disconnect()


async def test_a_spectator_connecting_takes_no_seat() -> None:
    code, sessions = await make_room(2)
    await hand_seat_to_a_computer(code, 1)
    before = await seat_of(code, 1)
    watcher = await connect(code)
    you, state, _ = await first_frames(watcher)
    assert you["seats"] == [] and state["seats"][1]["kind"] == "bot"
    assert await seat_of(code, 1) == before
    await watcher.disconnect()


async def test_a_spectator_connecting_does_not_look_for_a_seat_to_reclaim() -> None:
    code, sessions = await make_room(2)
    with mock.patch.object(services, "seat_reclaim", wraps=services.seat_reclaim) as reclaim:
        watcher = await connect(code)
        await first_frames(watcher)
        player = await connect(code, sessions[1])
        await first_frames(player)
    assert [call.kwargs["code"] for call in reclaim.call_args_list] == [code]  # the player's only
    await watcher.disconnect()
    await player.disconnect()


@sync_to_async
def shared_device_with_two_away_seats() -> tuple[str, str]:
    """Pass-and-play for Cat, Dan and Eve; computers play Dan's and Eve's seats since their turns
    ran out. Returns the code and the device's session cookie."""
    device = Client()
    names = {"player_1": "Cat", "player_2": "Dan", "player_3": "Eve"}
    response = device.post("/rooms/new", {"mode": "local", "ruleset": "official", "players": "3", **names})
    code = response["Location"].strip("/").split("/")[-1]
    for seat in (1, 2):
        with transaction.atomic():
            _hand_to_computer(locked(code), seat)
    return code, device.cookies["sessionid"].value


async def test_a_shared_device_reconnecting_takes_no_seat_back_and_takes_back_the_seat_a_player_names() -> None:
    code, session = await shared_device_with_two_away_seats()
    device = await connect(code, session)
    you, state, _ = await first_frames(device)
    assert you["seats"] == [0, 1, 2]
    assert [(s["kind"], s["away"]) for s in state["seats"]] == [("human", False), ("bot", True), ("bot", True)]
    await device.send_json_to({"type": "back", "seat": 1, "id": "back-1"})
    state = (await frames_until(device, "state"))[-1]
    assert state["event"]["type"] == "reclaimed" and state["event"]["seat"] == 1
    assert [(s["kind"], s["away"]) for s in state["seats"]] == [("human", False), ("human", False), ("bot", True)]
    await device.disconnect()


@sync_to_async
def finish(code: str) -> None:
    """Play the game to the end: its people random turns, its computers their own steps."""
    bots.tables.table("official", build=True)
    table = Table(code=code, controllers=[p.controller for p in Player.objects.filter(game__code=code)])
    rng = random.Random(11)
    while table.game.status == Game.Status.PLAYING:
        if table.game.room.bot_to_play(playing=True):
            assert botplay.step(code, table.version())
        else:
            play_turn(table, rng, rerolls=0)


async def test_a_player_back_at_their_finished_game_is_not_counted_as_a_spectator() -> None:
    """A computer finished P1's seat while P1 was away. P1 comes back after the end: the room is told
    P1's seat is here, and nobody watches; P1 is not "1 spectator" beside a seat shown away."""
    code, sessions = await make_room(2)
    await hand_seat_to_a_computer(code, 1)
    await finish(code)
    back = await connect(code, sessions[1])
    you, state, presence = await first_frames(back)
    await back.disconnect()
    assert state["status"] == "finished" and you["seats"] == [1]
    assert presence == {"type": "presence", "seats": {"0": "away", "1": "connected"}, "spectators": 0}

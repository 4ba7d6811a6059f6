"""The room websocket, end to end through the ASGI application (origin check, session, consumer)."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from games.domain import protocol
from games.realtime import consumer
from games.services.release import static_version
from games.store.models import Game, Move, Presence
from games.store.selectors import game_state
from tests.realtime.consumers.helpers import (
    connect,
    first_frames,
    frames_before_pong,
    frames_until,
    frames_within,
    make_room,
    next_frame,
    presence_settled,
)
from tests.waiting import wait_until
from yahtzee.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_a_socket_gets_its_seats_the_state_and_presence_at_once() -> None:
    code, sessions = await make_room(2)
    ws = await connect(code, sessions[1])
    you, state, presence = await first_frames(ws)
    assert you == {
        "type": "you",
        "seats": [1],
        "players": [state["seats"][1]["player"]],
        "spectator": you["spectator"],  # the handle of its lines, should it leave and watch
        "release": static_version(),  # a page of another release offers to reload
    }
    assert len(you["spectator"]) == 12
    assert state["type"] == "state" and state["status"] == "playing" and state["code"] == code
    assert presence["seats"] == {"0": "away", "1": "connected"}
    await ws.disconnect()


async def test_a_frame_for_the_room_during_the_handshake_waits_for_the_accept_and_the_welcome() -> None:
    """The room's frames can reach a socket between its joining the room and its accept: held, not sent first."""
    from unittest import mock

    from games.realtime import fanout

    code, sessions = await make_room(2)
    real_join = fanout.join
    # A presence counted before this socket's row existed: its own seat away.
    stale = json.dumps({"type": "presence", "seats": {"0": "away", "1": "away"}, "spectators": 0})
    early = json.dumps({"type": "reaction", "seat": 0, "emoji": "👍"})

    async def join_then_hear(room: str, socket: Any, **kwargs: Any) -> None:
        await real_join(room, socket, **kwargs)
        fanout.deliver(room, [stale, early])  # before this one is accepted

    with mock.patch.object(fanout, "join", join_then_hear):
        ws = await connect(code, sessions[1])  # asserts the first message out is the accept
    you, state, presence = await first_frames(ws)
    assert (you["type"], state["type"], presence["type"]) == ("you", "state", "presence")
    assert presence["seats"]["1"] == "connected"
    assert json.loads(await ws.receive_from()) == json.loads(early)
    # The stale presence is not sent after the welcome's fresher one: the page would take it
    # for its seat counted away and connect again.
    later = await frames_within(ws, 1.0)
    assert all(f["seats"]["1"] == "connected" for f in later if f["type"] == "presence"), later
    await ws.disconnect()


async def two_players_and_a_spectator(
    code: str, sessions: list[str]
) -> tuple[list[WebsocketCommunicator], WebsocketCommunicator, dict[str, Any], dict[str, Any]]:
    """Both players' sockets and a spectator's, past their first frames; the spectator's state and presence."""
    sockets = [await connect(code, s) for s in sessions]
    for ws in sockets:
        await first_frames(ws)
    spectator = await connect(code)
    _, state, presence = await first_frames(spectator)
    return sockets, spectator, state, presence


@sync_to_async
def visitor_with_a_session() -> str:
    """A browser that watches: it has a session (it made a room of its own once) and no seat here."""
    client = Client()
    client.post("/rooms/new", {"name": "Vic", "ruleset": "official", "mode": "online"})
    return client.cookies["sessionid"].value


async def test_one_browser_watching_in_two_tabs_counts_as_one_spectator() -> None:
    code, sessions = await make_room(players=2, start=True)
    host = await connect(code, sessions[0])
    await first_frames(host)
    visitor = await visitor_with_a_session()
    tab1 = await connect(code, visitor)
    _you, _state, presence1 = await first_frames(tab1)
    assert presence1["spectators"] == 1
    tab2 = await connect(code, visitor)
    you2, _state, presence2 = await first_frames(tab2)
    assert you2["seats"] == []
    await presence_settled()
    # What the host's page shows once both tabs are in.
    await host.send_json_to({"type": "ping"})
    seen = await frames_until(host, "pong")
    latest = [f for f in seen if f["type"] == "presence"]
    shown = latest[-1]["spectators"] if latest else presence2["spectators"]
    for ws in (host, tab1, tab2):
        await ws.disconnect()
    assert presence2["spectators"] == 1, json.dumps(presence2)
    assert shown == 1


async def test_every_action_reaches_every_socket_in_order() -> None:
    code, sessions = await make_room(2)
    sockets, spectator, state, presence = await two_players_and_a_spectator(code, sessions)
    assert presence["spectators"] == 1
    version = state["version"]
    await sockets[0].send_json_to({"type": "roll", "version": version, "id": "r1"})
    for ws in [*sockets, spectator]:
        state = (await frames_until(ws, "state"))[-1]
        rolled = state["event"]
        assert rolled["type"] == "rolled" and len(rolled["dice"]) == 5 and rolled["dice"] == state["turn"]["dice"]
        assert state["version"] == version + 1 and "game_over" not in state
    await sockets[0].send_json_to({"type": "hold", "held": [0, 1], "version": version + 1, "id": "h1"})
    await sockets[0].send_json_to({"type": "roll", "version": version + 2, "id": "r2"})
    await sockets[0].send_json_to({"type": "score", "box": "chance", "column": 0, "version": version + 3, "id": "s1"})
    for ws in [*sockets, spectator]:
        versions = []
        while len(versions) < 3:
            frame = json.loads(await ws.receive_from())
            if frame["type"] == "state":
                versions.append(frame["version"])
        assert versions == [version + 2, version + 3, version + 4]
        assert frame["turn"]["seat"] == 1
    for ws in [*sockets, spectator]:
        await ws.disconnect()


async def test_an_action_is_one_websocket_message_per_socket() -> None:
    code, sessions = await make_room(2)
    sockets, spectator, state, _ = await two_players_and_a_spectator(code, sessions)
    everyone = [*sockets, spectator]
    # The spectator's arrival, told to the players (presence is coalesced: in one frame or two) ...
    for ws in sockets:
        frames = await frames_until(ws, "presence")
        while frames[-1]["spectators"] != 1:
            frames += await frames_until(ws, "presence")
        assert {f["type"] for f in frames} == {"presence"}
    await presence_settled()  # ... and no other presence frame due
    for ws in everyone:
        assert {f["type"] for f in await frames_before_pong(ws)} <= {"presence"}
    version = state["version"]
    for action in (
        {"type": "roll"},
        {"type": "hold", "held": [0]},
        {"type": "score", "box": "chance", "column": 0},
    ):
        await sockets[0].send_json_to({**action, "version": version, "id": f"a{version}"})
        version += 1
        for ws in everyone:
            # The next message is the state: any other frame for the action before (a separate
            # event frame) would be read here, and one after, at the next action.
            state = json.loads(await ws.receive_from())
            assert state["type"] == "state" and state["version"] == version
            assert state["event"]["type"] == {"roll": "rolled", "hold": "held", "score": "scored"}[action["type"]]
    # Nothing after the last state: a quiet spell on every socket at once.
    assert await asyncio.gather(*(ws.receive_nothing(timeout=0.3) for ws in everyone)) == [True] * 3
    for ws in everyone:
        await ws.disconnect()


async def test_a_roll_frame_may_hold_dice_first() -> None:
    code, sessions = await make_room(1)
    ws = await connect(code, sessions[0])
    _, state, _ = await first_frames(ws)
    version = state["version"]
    await ws.send_json_to({"type": "roll", "held": [], "version": version, "id": "r1"})
    first = (await frames_until(ws, "state"))[-1]
    await ws.send_json_to({"type": "roll", "held": [1, 3], "version": version + 1, "id": "r2"})
    frames = await frames_until(ws, "state")
    rolled = frames[-1]["event"]
    assert rolled["type"] == "rolled" and rolled["held"] == [1, 3]
    assert frames[-1]["version"] == version + 3  # the hold, then the roll: one state, one event
    kept = [frames[-1]["turn"]["dice"][i] for i in (1, 3)]
    assert kept == [first["turn"]["dice"][i] for i in (1, 3)]
    await ws.disconnect()


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ("not json", "bad_json"),
        ("[1, 2]", "bad_frame"),
        (json.dumps({"type": "dance"}), "unknown_type"),
        (json.dumps({"type": ["roll"], "version": 3, "id": "x"}), "bad_frame"),
        (json.dumps({"type": {"roll": 1}}), "bad_frame"),
        (json.dumps({"version": 3}), "bad_frame"),
        (json.dumps({"type": "roll", "id": "x"}), "missing_field"),
        (json.dumps({"type": "roll", "version": "3", "id": "x"}), "bad_field"),
        (json.dumps({"type": "roll", "version": True, "id": "x"}), "bad_field"),
        (json.dumps({"type": "roll", "version": 3, "id": ""}), "bad_field"),
        (json.dumps({"type": "hold", "held": "01", "version": 3, "id": "x"}), "bad_field"),
        (json.dumps({"type": "hold", "version": 3, "id": "x"}), "missing_field"),
        (json.dumps({"type": "roll", "held": 1, "version": 3, "id": "x"}), "bad_field"),
        (json.dumps({"type": "score", "box": 5, "version": 3, "id": "x"}), "bad_field"),
        (json.dumps({"type": "roll", "version": 3, "id": "x", "pad": "x" * 5000}), "frame_too_large"),
    ],
)
async def test_bad_frames_get_an_error_and_change_nothing(payload: str, code: str) -> None:
    room, sessions = await make_room(1)
    ws = await connect(room, sessions[0])
    _, state, _ = await first_frames(ws)
    await ws.send_to(text_data=payload)
    error = await next_frame(ws)
    assert error["type"] == "error" and error["code"] == code and error["message"]
    assert await sync_to_async(lambda: Game.objects.get(code=room).version)() == state["version"]
    await ws.disconnect()


async def test_binary_frames_are_refused() -> None:
    room, sessions = await make_room(1)
    ws = await connect(room, sessions[0])
    await first_frames(ws)
    await ws.send_to(bytes_data=b"\x00\x01")
    assert (await next_frame(ws))["code"] == "bad_frame"
    await ws.disconnect()


async def test_refusals_from_the_rules_come_back_as_error_frames_with_the_id() -> None:
    room, sessions = await make_room(2)
    ws0, ws1, watcher = await connect(room, sessions[0]), await connect(room, sessions[1]), await connect(room)
    states = [(await first_frames(ws))[1] for ws in (ws0, ws1, watcher)]
    version = states[-1]["version"]
    await ws1.send_json_to({"type": "roll", "version": version, "id": "a"})
    error = (await frames_until(ws1, "error"))[-1]
    assert (error["code"], error["id"]) == ("not_your_turn", "a")
    await watcher.send_json_to({"type": "roll", "version": version, "id": "b"})
    assert (await frames_until(watcher, "error"))[-1]["code"] == "not_a_player"
    await ws0.send_json_to({"type": "score", "box": "chance", "version": version, "id": "c"})
    assert (await frames_until(ws0, "error"))[-1]["code"] == "not_rolled"
    await ws0.send_json_to({"type": "roll", "version": version - 1, "id": "d"})
    frames = [f for f in await frames_until(ws0, "state") if f["type"] != "presence"]
    assert [f["type"] for f in frames[-2:]] == ["error", "state"] and frames[-2]["code"] == "stale"
    assert await sync_to_async(lambda: Move.objects.filter(game__code=room, kind="roll").count())() == 0
    for ws in (ws0, ws1, watcher):
        await ws.disconnect()


async def test_a_resent_action_is_applied_once() -> None:
    room, sessions = await make_room(1)
    ws = await connect(room, sessions[0])
    _, state, _ = await first_frames(ws)
    frame = {"type": "roll", "version": state["version"], "id": "once"}
    await ws.send_json_to(frame)
    await frames_until(ws, "state")
    await ws.send_json_to(frame)
    frames = [f for f in await frames_until(ws, "state") if f["type"] != "presence"]
    assert frames[0]["code"] == "repeated_action"
    assert await sync_to_async(lambda: Move.objects.filter(game__code=room, kind="roll").count())() == 1
    await ws.disconnect()


async def test_more_than_twenty_frames_a_second_is_refused_then_closed() -> None:
    room, sessions = await make_room(1)
    ws = await connect(room, sessions[0])
    await first_frames(ws)
    for _ in range(25):
        await ws.send_json_to({"type": "ping"})
    kinds = []
    while True:
        output = await ws.receive_output(timeout=3)
        if output["type"] == "websocket.close":
            assert output["code"] == 4008
            break
        kinds.append(json.loads(output["text"]).get("code", json.loads(output["text"])["type"]))
    assert kinds.count("rate_limited") == 3
    assert kinds.count("pong") == 20


async def test_a_refused_socket_is_accepted_only_to_be_closed_with_its_code() -> None:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await consumer.refuse(send, protocol.CLOSE_NO_ROOM)
    assert sent == [{"type": "websocket.accept"}, {"type": "websocket.close", "code": 4404}]
    sent.clear()
    said = protocol.error("too_many_sockets", "Too many open connections from your address.")
    await consumer.refuse(send, protocol.CLOSE_TOO_MANY, said)
    assert sent == [
        {"type": "websocket.accept"},
        {"type": "websocket.send", "text": said},
        {"type": "websocket.close", "code": 4029},
    ]


async def test_an_unknown_room_is_refused_like_any_other() -> None:
    communicator = WebsocketCommunicator(
        application, "/ws/rooms/nosuchroom/", headers=[(b"origin", b"http://127.0.0.1")]
    )
    # Accepted only to be closed at once with 4404: a refused handshake reaches a page as a
    # connection lost, which it would try again for ever.
    connected, _ = await communicator.connect()
    assert connected
    assert await communicator.receive_output(timeout=3) == {"type": "websocket.close", "code": 4404}


async def test_a_foreign_origin_is_refused() -> None:
    room, sessions = await make_room(1)
    communicator = WebsocketCommunicator(
        application, f"/ws/rooms/{room}/", headers=[(b"origin", b"http://evil.example"), (b"cookie", b"")]
    )
    connected, _ = await communicator.connect()
    assert not connected


async def test_presence_follows_sockets_and_a_reconnect_gets_the_current_state() -> None:
    room, sessions = await make_room(2)
    ws0 = await connect(room, sessions[0])
    await first_frames(ws0)
    # Its own arrival's presence, coalesced, read first: on a loaded machine it was read before
    # the second socket's row existed and came as the first presence after that socket's arrival.
    await presence_settled()
    assert all(frame["type"] == "presence" for frame in await frames_before_pong(ws0))
    ws1 = await connect(room, sessions[1])
    await first_frames(ws1)
    presence = (await frames_until(ws0, "presence"))[-1]
    assert presence["seats"] == {"0": "connected", "1": "connected"}
    await ws1.disconnect()
    presence = (await frames_until(ws0, "presence"))[-1]
    assert presence["seats"] == {"0": "connected", "1": "away"}
    state = await sync_to_async(lambda: Game.objects.get(code=room).version)()
    await ws0.send_json_to({"type": "roll", "version": state, "id": "r"})
    await frames_until(ws0, "state")
    again = await connect(room, sessions[1])
    you, current, _ = await first_frames(again)
    assert you["seats"] == [1] and current["version"] == state + 1 and len(current["turn"]["dice"]) == 5
    await again.disconnect()
    await ws0.disconnect()  # it waits for the consumer's end, which waited for the row's removal
    assert await sync_to_async(Presence.objects.count)() == 0


@pytest.fixture
def no_host_wait(settings: Any) -> None:
    """The host's seat counts as away as soon as its socket closes (the wait the page shows,
    settings.HOST_AWAY, is tested in tests/services/test_seats_and_rematch.py)."""
    settings.HOST_AWAY = 0


async def host_gone(p0: WebsocketCommunicator, p1: WebsocketCommunicator) -> None:
    """The host's only socket closes (without leaving); P1's page is told the host's seat is away."""
    await p0.disconnect()
    while True:
        frame = json.loads(await p1.receive_from(timeout=5))
        if frame["type"] == "presence" and frame["seats"]["0"] == "away":
            return


async def answer(ws: WebsocketCommunicator) -> dict[str, Any]:
    """The next state or error frame."""
    while True:
        frame = json.loads(await ws.receive_from(timeout=5))
        if frame["type"] in ("state", "error"):
            return frame


@pytest.mark.usefixtures("no_host_wait")
async def test_a_game_the_host_paused_can_be_resumed_by_the_players_at_the_table_once_the_host_is_gone() -> None:
    """Turn actions wait for a resume (even the turn timer stands still): without one nobody plays on.
    The player who resumes hosts from then on; the host, back, is one of the players."""
    code, sessions = await make_room(2)
    p0, p1 = await connect(code, sessions[0]), await connect(code, sessions[1])
    _, state, _ = await first_frames(p0)
    await first_frames(p1)
    await p0.send_json_to({"type": "pause", "version": state["version"], "id": "brb"})
    paused = (await frames_until(p1, "state"))[-1]
    assert paused["paused"] is True
    await host_gone(p0, p1)
    await p1.send_json_to({"type": "resume", "version": paused["version"], "id": "go-on"})
    frame = await answer(p1)
    assert frame["type"] == "state" and frame["paused"] is False, frame
    assert frame["event"]["type"] == "resumed" and frame["event"]["seat"] == 1  # said as the one who resumed it
    assert [seat["host"] for seat in frame["seats"]] == [False, True]
    back = await connect(code, sessions[0])
    _, state, _ = await first_frames(back)
    assert [seat["host"] for seat in state["seats"]] == [False, True]
    await back.send_json_to({"type": "pause", "version": state["version"], "id": "mine-again"})
    assert (await answer(back))["code"] == "not_host"  # Ben is here: his role is not taken back
    await back.disconnect()
    await p1.disconnect()


@pytest.mark.usefixtures("no_host_wait")
async def test_the_host_handed_on_by_a_tool_is_told_in_the_states_earlier_as_the_rooms_recent_events_tell_it() -> None:
    """A player who resumes the absent host's pause becomes the host first: the state tells the hand-over
    among its ``earlier``, before the resume, in the order (and with the versions) a page drawn
    later reads in the room's recent events. One order for the open page and the reloaded one."""
    from games.realtime.broadcast import recent_events

    code, sessions = await make_room(2)
    p0, p1 = await connect(code, sessions[0]), await connect(code, sessions[1])
    _, state, _ = await first_frames(p0)
    await first_frames(p1)
    await p0.send_json_to({"type": "pause", "version": state["version"], "id": "brb"})
    paused = (await frames_until(p1, "state"))[-1]
    await host_gone(p0, p1)
    await p1.send_json_to({"type": "resume", "version": paused["version"], "id": "go-on"})
    frame = await answer(p1)
    told = [*frame.get("earlier", []), {**frame["event"], "version": frame["version"]}]
    assert [(event["type"], event["version"]) for event in told] == [
        ("host", paused["version"] + 1),
        ("resumed", paused["version"] + 2),
    ], told
    assert told[0]["name"] == "P1"
    feed = await sync_to_async(lambda: recent_events(Game.objects.get(code=code)))()
    assert [(event["type"], event["version"]) for event in feed[-2:]] == [(e["type"], e["version"]) for e in told]
    assert feed[-2]["name"] == told[0]["name"]
    await p1.disconnect()


@pytest.mark.usefixtures("no_host_wait")
async def test_on_the_absent_hosts_turn_the_players_at_the_table_can_let_a_computer_play_it() -> None:
    """A live game without a turn timer (the default): it is the host's turn, the host's phone died."""
    code, sessions = await make_room(2)
    p0, p1 = await connect(code, sessions[0]), await connect(code, sessions[1])
    await first_frames(p0)
    _, state, _ = await first_frames(p1)
    assert state["turn"]["seat"] == 0 and state["clock"] is None
    await p1.send_json_to({"type": "replace", "seat": 0, "level": "casual", "version": state["version"], "id": "x"})
    assert (await answer(p1))["code"] == "not_host"  # while the host is here, the tools are theirs
    await host_gone(p0, p1)
    await p1.send_json_to({"type": "replace", "seat": 0, "level": "casual", "version": state["version"], "id": "go"})
    frame = await answer(p1)
    assert frame["type"] == "state" and frame["seats"][0]["kind"] == "bot", frame
    assert frame["seats"][1]["host"] is True and frame["seats"][0]["kept"] is True  # the host may take it back
    await p1.disconnect()


@pytest.mark.usefixtures("no_frame_limit")  # played as fast as the server answers
async def test_a_complete_three_player_game_over_sockets_reaches_every_client_in_order() -> None:
    import random

    room, sessions = await make_room(3)
    sockets = [await connect(room, s) for s in sessions]
    watcher = await connect(room)
    clients = [*sockets, watcher]
    states: list[list[int]] = [[] for _ in clients]
    others: list[list[str]] = [[] for _ in clients]  # every message that is not a state
    latest: dict[str, Any] = {}

    async def drain(until_version: int) -> None:
        for index, ws in enumerate(clients):
            while not states[index] or states[index][-1] < until_version:
                frame = json.loads(await ws.receive_from(timeout=5))
                assert frame["type"] != "error", frame
                if frame["type"] == "state":
                    states[index].append(frame["version"])
                    latest[str(index)] = frame
                else:
                    others[index].append(frame["type"])

    start_version = await sync_to_async(lambda: Game.objects.get(code=room).version)()
    await drain(start_version)
    rng = random.Random(3)
    version = start_version
    counter = 0
    while latest["0"]["status"] == "playing":
        state = latest["0"]
        seat = state["turn"]["seat"]
        counter += 1
        if not state["turn"]["dice"] or (state["turn"]["rolls_left"] and rng.random() < 0.5):
            frame: dict[str, Any] = {"type": "roll", "version": version, "id": f"a{counter}"}
        else:
            choice = rng.choice([o for o in state["options"] if o["legal"]])
            frame = {"type": "score", "box": choice["box"], "column": choice["column"], "version": version}
            frame["id"] = f"a{counter}"
        await sockets[seat].send_json_to(frame)
        version += 1
        await drain(version)
    final = latest["0"]
    assert final["status"] == "finished" and final["fairness"]["server_seed"]
    assert final["event"]["type"] == "scored" and final["game_over"] == {"winners": final["winners"]}
    expected = list(range(start_version, version + 1))
    for seen in states:
        assert seen[0] == start_version and seen == expected
    # Who is here can come last: played this fast on SQLite, the actions keep its one database
    # thread busy and the presence frame (read there) waits behind them. Once it is out, a quiet
    # spell on every socket at once says nothing more comes.
    await presence_settled()
    quiet = await asyncio.gather(*(frames_within(ws, 0.3) for ws in clients))
    for index, frames in enumerate(quiet):
        others[index] += [frame["type"] for frame in frames]
        # One message per action: besides the states only the welcome and who is here.
        assert set(others[index]) <= {"you", "presence"}, others[index]
    game = await sync_to_async(Game.objects.get)(code=room)
    assert game.version == version
    stored_totals = await sync_to_async(lambda: [c["total"] for c in game_state(game)["cards"]])()
    assert [c["total"] for c in final["cards"]] == stored_totals
    for ws in clients:
        await ws.disconnect()


@pytest.mark.usefixtures("no_frame_limit")
async def test_a_bot_added_over_the_socket_plays_its_turns_by_itself(settings: Any) -> None:
    import bots

    settings.BOT_DELAY = 0
    await sync_to_async(bots.tables.table)("official", build=True)
    room, sessions = await make_room(1, start=False)
    ws = await connect(room, sessions[0])
    _, state, _ = await first_frames(ws)
    await ws.send_json_to({"type": "add_bot", "level": "grandmaster", "version": state["version"], "id": "b0"})
    error = (await frames_until(ws, "error"))[-1]
    assert error["code"] == "bad_level" and error["id"] == "b0"
    await ws.send_json_to({"type": "add_bot", "level": "optimal", "version": state["version"], "id": "b1"})
    state = (await frames_until(ws, "state"))[-1]
    assert [s["kind"] for s in state["seats"]] == ["human", "bot"] and state["seats"][1]["level"] == "optimal"
    await ws.send_json_to({"type": "start", "version": state["version"], "id": "s"})
    state = (await frames_until(ws, "state"))[-1]
    counter = 0
    hinted = False
    while state["status"] == "playing":
        assert state["turn"]["seat"] == 0  # the bot's turns pass without us
        counter += 1
        await ws.send_json_to({"type": "roll", "version": state["version"], "id": f"r{counter}"})
        state = (await frames_until(ws, "state"))[-1]
        if not hinted:
            await ws.send_json_to({"type": "hint", "version": state["version"], "id": "h1"})
            hint = (await frames_until(ws, "hint"))[-1]
            assert hint["id"] == "h1" and len(hint["options"]) == 3 and hint["options"][0]["expected"] > 0
            hinted = True
        best = max((o for o in state["options"] if o["legal"]), key=lambda o: o["points"])
        await ws.send_json_to(
            {"type": "score", "box": best["box"], "column": 0, "version": state["version"], "id": f"s{counter}"}
        )
        # Our score, then the bot's roll(s) and score, until it is our turn again or the game ends.
        while True:
            state = (await frames_until(ws, "state", timeout=10))[-1]
            if state["status"] != "playing" or (state["turn"]["seat"] == 0 and not state["turn"]["dice"]):
                break
    assert state["status"] == "finished" and counter == 13
    game = await sync_to_async(Game.objects.get)(code=room)
    bot_scores = await sync_to_async(
        lambda: Move.objects.filter(game=game, kind="score", actor__startswith="bot:").count()
    )()
    assert bot_scores == 13
    await ws.disconnect()


async def test_a_bot_whose_process_died_is_played_by_another_processs_sweep(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bots
    from games import scheduling, services
    from games.scheduling import runner

    settings.BOT_DELAY = 0
    settings.SCHEDULER_POLL = 0.05
    await sync_to_async(bots.tables.table)("official", build=True)
    room, sessions = await make_room(1, start=False)

    @sync_to_async
    def play_until_the_bot_is_to_play() -> int:
        game = Game.objects.get(code=room)
        host = game.snapshot["seats"][0]["controller"]
        services.game_add_bot(code=room, controller=host, level="optimal", expected_version=game.version, action_id="b")
        services.game_start(code=room, controller=host, expected_version=game.version + 1, action_id="s")
        services.turn_roll(code=room, controller=host, expected_version=game.version + 2, action_id="r")
        services.turn_score(code=room, controller=host, box="chance", expected_version=game.version + 3, action_id="c")
        return Game.objects.get(code=room).version

    # The process that committed the person's score keeps no timer (as if it died right after).
    settings.SCHEDULER = "off"
    # A scheduler plays a computer's turn, woken for the room by the commit that made it due
    # (games.scheduling.runner.committed, in the committing thread), or by a sweep of its own.
    acted: list[str] = []
    real_wake, real_start = runner.Scheduler.wake, runner.Scheduler.start

    def wake(self: runner.Scheduler, code: str, at: Any) -> None:
        acted.append(f"woken for {code}")
        real_wake(self, code, at)

    def start(self: runner.Scheduler) -> None:
        acted.append("started")
        real_start(self)

    monkeypatch.setattr(runner.Scheduler, "wake", wake)
    monkeypatch.setattr(runner.Scheduler, "start", start)
    started = await play_until_the_bot_is_to_play()
    # Nothing happens: the commits are done, and no scheduler of this process was woken or started.
    assert acted == []
    assert await sync_to_async(lambda: Game.objects.get(code=room).version)() == started
    # Another process's sweep finds the room due, with no socket open anywhere, and plays on.
    settings.SCHEDULER = "all"
    scheduler = scheduling.start()
    try:
        for _ in range(200):
            game = await sync_to_async(Game.objects.get)(code=room)
            if game.snapshot["rules"]["current"] == 0:
                break
            await asyncio.sleep(0.05)
    finally:
        await scheduling.stop()
    assert scheduler is not None
    moves = await sync_to_async(
        lambda: list(Move.objects.filter(game__code=room, kind="score").values_list("actor", flat=True))
    )()
    assert len(moves) == 2 and moves[1].startswith("bot:")


async def test_a_pong_carries_the_rooms_version_so_a_page_can_catch_up() -> None:
    room, sessions = await make_room(2)
    ws = await connect(room, sessions[0])
    _, state, _ = await first_frames(ws)
    await ws.send_json_to({"type": "ping"})
    pong = (await frames_until(ws, "pong"))[-1]
    assert pong == {"type": "pong", "version": state["version"]}
    await ws.disconnect()


@pytest.mark.usefixtures("no_frame_limit")
async def test_while_the_table_is_built_the_bot_waits_and_the_hint_says_so_then_both_play(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:

    import bots
    from games.scheduling import botplay, work
    from games.store import tables

    settings.BOT_DELAY = 0
    await sync_to_async(bots.tables.table)("official", build=True)
    real_ready = bots.ready
    built = {"yet": False}
    monkeypatch.setattr(bots, "ready", lambda ruleset: built["yet"] and real_ready(ruleset))
    monkeypatch.setattr(tables, "request", lambda ruleset, first=True: None)
    # The waiting bot's room is looked at again every RETRY: often here, so the test need not
    # wait a second for the look after the table is ready, and sees the bot wait several times.
    monkeypatch.setattr(work, "RETRY", timedelta(seconds=0.05))
    steps: list[bool | None] = []
    real_step = botplay.step

    def step(code: str, version: int) -> bool | None:
        outcome = real_step(code, version)
        steps.append(outcome)
        return outcome

    monkeypatch.setattr(botplay, "step", step)
    room, sessions = await make_room(1, start=False)
    ws = await connect(room, sessions[0])
    _, state, _ = await first_frames(ws)
    await ws.send_json_to({"type": "add_bot", "level": "optimal", "version": state["version"], "id": "b1"})
    state = (await frames_until(ws, "state"))[-1]
    await ws.send_json_to({"type": "start", "version": state["version"], "id": "s"})
    state = (await frames_until(ws, "state"))[-1]
    assert state["getting_ready"]["eta"] >= 1
    await ws.send_json_to({"type": "roll", "version": state["version"], "id": "r1"})
    state = (await frames_until(ws, "state"))[-1]
    await ws.send_json_to({"type": "hint", "version": state["version"], "id": "h1"})
    hint = (await frames_until(ws, "hint"))[-1]  # an answer, not an error
    assert hint["id"] == "h1" and hint["ready"] is False and hint["options"] == []
    assert hint["message"].startswith("The computer is getting ready (about ")
    best = max((o for o in state["options"] if o["legal"]), key=lambda o: o["points"])
    await ws.send_json_to({"type": "score", "box": best["box"], "version": state["version"], "id": "s1"})
    state = (await frames_until(ws, "state"))[-1]
    assert state["turn"]["seat"] == 1 and state["getting_ready"] is not None
    # The computer's steps find its table not ready: it waits (None), and the room hears no move.
    await wait_until(lambda: steps.count(None) >= 3, "the bot to look at its turn three times")
    assert True not in steps
    meanwhile = await frames_before_pong(ws)
    assert [f for f in meanwhile if f["type"] == "state"] == []  # the computer waits for its table
    built["yet"] = True
    while state["turn"]["seat"] == 1:
        state = (await frames_until(ws, "state", timeout=10))[-1]
    assert state["getting_ready"] is None and state["cards"][1]["total"] >= 0
    await ws.send_json_to({"type": "roll", "version": state["version"], "id": "r2"})
    state = (await frames_until(ws, "state"))[-1]
    await ws.send_json_to({"type": "hint", "version": state["version"], "id": "h2"})
    hint = (await frames_until(ws, "hint"))[-1]
    assert hint["ready"] is True and len(hint["options"]) == 3
    await ws.disconnect()


async def test_a_frame_for_a_room_swept_while_its_socket_was_open_closes_it_as_for_an_unknown_room() -> None:
    """A room never started is swept while a page of its lobby is still open: the page's next frame
    is answered as a socket to any unknown room is (4404), not with a server error."""
    from games.realtime import sockets as room_sockets

    code, sessions = await make_room(2, start=False)
    ws = await connect(code, sessions[0])
    await first_frames(ws)
    # The room's presence after this socket's arrival is due PRESENCE_COALESCE seconds later: read
    # once the rows below are made old and before the room goes, it would tell the seats away (the
    # room as it still was) ahead of the chat's answer. It is sent and read before the sweep.
    await presence_settled()
    assert all(frame["type"] == "presence" for frame in await frames_before_pong(ws))

    def swept() -> None:
        from django.utils import timezone

        from games.services import sweeps
        from games.store.models import Player

        then = timezone.now() - timedelta(days=31)
        Game.objects.filter(code=code).update(created_at=then)
        Move.objects.filter(game__code=code).update(created_at=then)
        Player.objects.filter(game__code=code).update(joined_at=then)
        Presence.objects.filter(game__code=code).update(seen_at=then)
        sweeps.sweep()
        assert not Game.objects.filter(code=code).exists()

    await sync_to_async(swept)()
    # A change of its sockets once it has gone (one closing, a ping's row written again) tells
    # the swept room's sockets no presence: there is no room to tell.
    room_sockets.presence_changed(code)
    await presence_settled()
    await ws.send_json_to({"type": "chat", "text": "anyone?", "id": "c-1"})
    output = await ws.receive_output(timeout=3)
    assert output == {"type": "websocket.close", "code": 4404}, output
    await ws.disconnect()


async def test_the_sockets_of_a_room_swept_are_closed_at_once_as_for_an_unknown_room() -> None:
    """A room never started is swept while two pages of its lobby are still open: both sockets are
    closed with 4404 at once, not at their next frame or ping, and the pages say the room is gone."""
    code, sessions = await make_room(2, start=False)
    sockets = [await connect(code, session) for session in sessions]
    for ws in sockets:
        await first_frames(ws)
    await presence_settled()

    def swept() -> None:
        from django.utils import timezone

        from games.services import sweeps

        # A month on, nothing of the room is recent: not even the open pages' presence rows.
        sweeps.sweep(timezone.now() + timedelta(days=31))
        assert not Game.objects.filter(code=code).exists()

    await sync_to_async(swept)()
    for ws in sockets:
        output = await ws.receive_output(timeout=3)
        while output["type"] == "websocket.send" and json.loads(output["text"])["type"] == "presence":
            output = await ws.receive_output(timeout=3)
        assert output == {"type": "websocket.close", "code": 4404}, output
        await ws.disconnect()

"""Fuzzing the room websocket: random and malformed frames and action sequences from several sockets.

Hypothesis makes sequences of frames (junk text, binary, JSON of every shape, frames of
the protocol with wrong, missing and out-of-range fields, and plausible actions for the
current version) sent from the host, a second player and a spectator. Whatever arrives,
the server must never fail (each socket still answers a ping afterwards, every frame it
sent is a JSON object of a known type), and the stored game must still replay exactly
through the rules.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore
from django.test import override_settings
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from games import services
from games.domain.rules import Box
from games.domain.rules.codec import state_to_dict
from games.services.replay import replay_game
from games.store.models import Game, Move
from tests.realtime.consumers.helpers import connect

pytestmark = pytest.mark.django_db(transaction=True)

CURRENT = object()  # stands for the game's version at the moment the frame is sent
TYPES = ["start", "roll", "hold", "score", "leave", "kick", "remove", "ping", "sync", "", "state", "bogus"]
KNOWN_REPLIES = {"you", "state", "presence", "pong", "error"}  # an action's event rides in its state

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
versions = st.one_of(
    st.just(CURRENT), st.integers(-3, 400), st.text(max_size=5), st.booleans(), st.none(), st.floats(allow_nan=False)
)
protocol_frames = st.fixed_dictionaries(
    {"type": st.sampled_from(TYPES)},
    optional={
        "version": versions,
        "id": st.one_of(st.text(max_size=80), st.integers(), st.none()),
        "held": st.one_of(st.lists(st.integers(-2, 7), max_size=7), st.text(max_size=5), st.integers(), json_values),
        "box": st.one_of(st.sampled_from([b.value for b in Box]), st.text(max_size=20), st.integers()),
        "column": st.one_of(st.integers(-2, 4), st.text(max_size=3), st.none()),
        "seat": st.one_of(st.integers(-2, 9), st.text(max_size=3), st.booleans()),
        "extra": json_values,
    },
)
plausible_actions = st.one_of(
    st.fixed_dictionaries({"type": st.just("roll"), "version": st.just(CURRENT)}),
    st.fixed_dictionaries(
        {"type": st.just("hold"), "version": st.just(CURRENT), "held": st.lists(st.integers(0, 4), max_size=5)}
    ),
    st.fixed_dictionaries(
        {"type": st.just("score"), "version": st.just(CURRENT), "box": st.sampled_from([b.value for b in Box])}
    ),
)
raw = st.one_of(
    st.text(max_size=300).map(lambda t: ("text", t)),
    st.binary(max_size=64).map(lambda b: ("bytes", b)),
    json_values.map(lambda v: ("text", json.dumps(v))),
    st.integers(4000, 6000).map(lambda n: ("text", json.dumps({"type": "roll", "version": 1, "id": "x" * n}))),
)
# Who sends: the host, the second player, the spectator, or (half the time) whoever's turn it is.
senders = st.sampled_from([0, 1, 2, "turn", "turn", "turn"])
frames = st.one_of(
    st.tuples(senders, raw),
    st.tuples(senders, protocol_frames.map(lambda f: ("frame", f))),
    st.tuples(senders, plausible_actions.map(lambda f: ("frame", f))),
    st.tuples(st.just("turn"), plausible_actions.map(lambda f: ("frame", f))),
)


def make_room() -> tuple[str, list[str]]:
    """A started two-player room; the session keys of the host and the second player."""
    sessions = []
    for _ in range(2):
        session = SessionStore()
        session["controller"] = services.new_controller()
        session.create()
        sessions.append(session)
    host = services.game_create(host_name="Ann", controller=sessions[0]["controller"])
    code = host.game.code
    services.game_join(code=code, name="Bob", controller=sessions[1]["controller"])
    game = Game.objects.get(code=code)
    services.game_start(code=code, controller=sessions[0]["controller"], expected_version=game.version, action_id="s")
    return code, [s.session_key or "" for s in sessions]


async def drain(ws: WebsocketCommunicator) -> list[dict[str, Any]]:
    """Everything the socket has been sent, up to the pong for a fresh ping (a crashed consumer raises here)."""
    await ws.send_to(text_data=json.dumps({"type": "ping"}))
    seen = []
    while True:
        frame = json.loads(await ws.receive_from(timeout=10))
        assert isinstance(frame, dict) and frame.get("type") in KNOWN_REPLIES, frame
        if frame["type"] == "error":
            assert isinstance(frame.get("code"), str) and frame["code"] and frame.get("message"), frame
        seen.append(frame)
        if frame["type"] == "pong":
            return seen


async def play(code: str, sessions: list[str], sequence: list[tuple[Any, tuple[str, Any]]]) -> None:
    sockets = [await connect(code, sessions[0]), await connect(code, sessions[1]), await connect(code, "")]

    # The test's own look-ups run in its thread with the connection it keeps there (asgiref's
    # sync_to_async): Channels' database_sync_to_async runs close_old_connections around each
    # of them, which with DB_CONN_MAX_AGE=0 was a new connection for every frame sent. Only the
    # two fields read are fetched, not the game and its snapshot.
    @sync_to_async
    def version_and_turn() -> tuple[int, int]:
        version, current = Game.objects.filter(code=code).values_list("version", "snapshot__rules__current").get()
        return version, int(current or 0)

    try:
        for n, (who, (kind, payload)) in enumerate(sequence):
            current_version = None
            if who == "turn" or (kind == "frame" and payload.get("version") is CURRENT):
                current_version, turn = await version_and_turn()
                if who == "turn":
                    who = turn
            ws = sockets[who]
            # send_input rather than send_to, which refuses empty frames
            if kind == "bytes":
                await ws.send_input({"type": "websocket.receive", "bytes": payload})
            elif kind == "text":
                await ws.send_input({"type": "websocket.receive", "text": payload})
            else:
                frame = dict(payload)
                if frame.get("version") is CURRENT:
                    frame["version"] = current_version
                if "id" not in frame and frame["type"] in ("roll", "hold", "score"):
                    frame["id"] = f"f{n}-{who}"
                await ws.send_to(text_data=json.dumps(frame))
            if n % 10 == 9:
                for sock in sockets:  # keep the queues short, and notice a failure near its cause
                    await drain(sock)
        for sock in sockets:
            await drain(sock)
    finally:
        for sock in sockets:
            await sock.disconnect()


def assert_replays(code: str) -> None:
    game = Game.objects.get(code=code)
    seqs = list(Move.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.version + 1)), "the move log has a gap or a repeat"
    replay = replay_game(game)
    assert replay.problems == []
    if game.snapshot.get("rules") is not None:
        assert replay.state is not None and state_to_dict(replay.state) == game.snapshot["rules"]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(sequence=st.lists(frames, min_size=20, max_size=120))
def test_random_frames_from_several_sockets_never_break_the_server_or_the_game(
    sequence: list[tuple[Any, tuple[str, Any]]],
) -> None:
    code, sessions = make_room()
    with override_settings(WS_RATE_LIMIT=10**6):  # fuzzing is faster than a person
        async_to_sync(play)(code, sessions, sequence)
    assert_replays(code)
    event(f"moves applied: {min(Game.objects.get(code=code).version // 10 * 10, 50)}+")

"""Several server processes on one PostgreSQL and one Redis, as in production.

Each test starts its own server processes (and a scratch database), plays through the
real pages and websocket protocol, and stops everything it started.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.live import (
    Browser,
    ServerProcess,
    Socket,
    Table,
    best_option,
    keep_most_common,
    manage,
    scratch_database,
    server_env,
    servers,
    verify,
)

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.asyncio]


@pytest.fixture(scope="module")
def database_url() -> Iterator[str]:
    with scratch_database(os.environ["DATABASE_URL"]) as url:
        yield url


def live_env(database_url: str, tmp_path: Path, layer: str = "pubsub") -> dict[str, str]:
    return server_env(
        DATABASE_URL=database_url,
        REDIS_URL=os.environ["REDIS_URL"],
        CHANNEL_LAYER=layer,
        # Every worker must share the key that signs sessions and CSRF tokens.
        SECRET_KEY=f"live-{uuid.uuid4().hex}",
        DATA_DIR=str(tmp_path),
        # The test plays as fast as the server answers, faster than the 20 frames/s a person is allowed.
        WS_RATE_LIMIT="1000",
    )


def assert_saw_every_version_in_order(sock: Socket) -> None:
    versions = sock.state_versions()
    assert versions == list(range(versions[0], versions[-1] + 1)), f"gaps or repeats on {sock.base_url}"


@pytest.mark.parametrize("layer", ["pubsub", "core"])
async def test_a_game_across_two_server_processes(database_url: str, tmp_path: Path, layer: str) -> None:
    env = live_env(database_url, tmp_path, layer)
    with servers(2, env, log_dir=tmp_path) as (one, two):
        ann, bob, cid, eve = Browser(one.url), Browser(two.url), Browser(one.url), Browser(two.url)
        code = ann.create_room("Ann")
        bob.join(code, "Bob")
        cid.join(code, "Cid")
        sockets = [
            await ann.socket(code).connect(),
            await bob.socket(code).connect(),
            await cid.socket(code).connect(),
            await eve.socket(code).connect(),  # a spectator on the second process
        ]
        try:
            assert [s.seats for s in sockets] == [[0], [1], [2], []]
            table = Table(sockets)
            await table.act(sockets[0], {"type": "start"})
            await table.play_to_end()
            final = sockets[0].state
            assert final["status"] == "finished"
            for sock in sockets:
                assert_saw_every_version_in_order(sock)
                assert sock.state == final
                assert sock.errors == []
                # One message per action: the state, with the action's event in it (and, as the
                # second process started, the first's ask to check the room's route).
                assert {f["type"] for f in sock.frames} <= {"you", "state", "presence", "pong", "route"}
                events = [f["event"]["type"] for f in sock.frames if f["type"] == "state" and "event" in f]
                assert set(events) <= {"started", "rolled", "held", "scored"} and events[-1] == "scored"
            assert final["game_over"] == {"winners": final["winners"]}
            # Both processes answer with the same stored game.
            assert Browser(two.url).state(code)["cards"] == final["cards"]
            assert "OK" in verify(code, env)
        finally:
            for sock in sockets:
                await sock.close()


async def test_a_killed_server_process_loses_and_doubles_nothing(database_url: str, tmp_path: Path) -> None:
    env = live_env(database_url, tmp_path)
    with servers(2, env, log_dir=tmp_path) as (one, two):
        ann, bob, eve = Browser(one.url), Browser(two.url), Browser(two.url)
        code = ann.create_room("Ann")
        bob.join(code, "Bob")
        a, b, e = (await ann.socket(code).connect(), await bob.socket(code).connect(), await eve.socket(code).connect())
        table = Table([a, b, e])
        await table.act(a, {"type": "start"})
        for _ in range(3):
            await table.play_turn()
        # Bob's turn: he rolls, holds, and sends a second roll as his server dies under it.
        assert a.state["turn"]["seat"] == 1
        await table.act(b, {"type": "roll"})
        await table.act(b, {"type": "hold", "held": keep_most_common(b.state["turn"]["dice"])})
        version = b.version
        in_flight = await b.send({"type": "roll"})
        two.kill()
        await b.wait(lambda: b.closed)
        await e.wait(lambda: e.closed)
        assert a.version in (version, version + 1)

        two.start()  # the same port, as a supervisor would restart it
        # Bob comes back through the other process, the spectator through the restarted one.
        b2 = await bob.socket(code, base_url=one.url).connect()
        e2 = await eve.socket(code).connect()
        assert b2.seats == [1]
        # If the roll was committed but its server died before relaying it, Ann's process
        # hears of the newer state when the restarted one joins the room, and resyncs her.
        for sock in (a, e2):
            await sock.wait_version(b2.version)
        assert b2.version == e2.version == a.version
        # The client does not know whether its roll landed, so it sends the same frame again.
        errors = len(b2.errors)
        landed = b2.version == version + 1
        await b2.conn.send(json.dumps(in_flight))  # type: ignore[union-attr]
        if landed:
            # Refused as already applied, state resent: wait for that answer itself, or it
            # arrives during the next action and reads as that action's refusal.
            await b2.wait(lambda: len(b2.errors) > errors)
            assert b2.errors[-1]["code"] in ("stale", "repeated_action")
            assert b2.errors[-1]["id"] == in_flight["id"]
        else:
            await b2.wait(lambda: b2.version == version + 1 or len(b2.errors) > errors)
            assert len(b2.errors) == errors, b2.errors[errors:]
        for sock in (a, b2, e2):
            await sock.wait_version(version + 1)
        assert a.state["turn"]["rolls_used"] == 2

        table = Table([a, b2, e2])
        option = best_option(b2.state)
        await table.act(b2, {"type": "score", "box": option["box"], "column": option["column"]})
        await table.play_to_end()
        try:
            assert a.state["status"] == "finished"
            assert_saw_every_version_in_order(a)  # Ann's socket never dropped: every action once
            assert b2.state == e2.state == a.state
            log = Browser(one.url).get(f"/r/{code}/log.json")
            rolls = json.loads(log)["rolls"]
            assert len({r["move"] for r in rolls}) == len(rolls)
            assert "OK" in verify(code, env)
        finally:
            for sock in (a, b2, e2):
                await sock.close()


async def test_health_endpoint_checks_database_and_channel_layer(database_url: str, tmp_path: Path) -> None:
    server = ServerProcess(live_env(database_url, tmp_path), log_dir=tmp_path).start()
    try:
        health = json.loads(Browser(server.url).get("/healthz"))
        assert health["ok"] and health["database"]["ok"] and health["channel_layer"]["ok"]
    finally:
        server.stop()


async def test_when_a_worker_dies_the_room_hears_within_seconds_that_its_players_are_gone(
    database_url: str, tmp_path: Path
) -> None:
    # A beat every 0.25 s: a process on this host whose pid is gone is seen dead at the second beat.
    env = {**live_env(database_url, tmp_path), "SCHEDULER_POLL": "0.25"}
    with servers(2, env, log_dir=tmp_path) as (one, two):
        ann, bob = Browser(one.url), Browser(two.url)
        code = ann.create_room("Ann")
        bob.join(code, "Bob")
        a, b = await ann.socket(code).connect(), await bob.socket(code).connect()
        try:
            await b.wait(lambda: presence_of(b).get("0") == "connected" and presence_of(b).get("1") == "connected")
            one.kill()  # Ann's worker dies without a word: nothing of its own removes her row
            await b.wait(lambda: presence_of(b).get("0") == "away", timeout=10)
            assert presence_of(b)["1"] == "connected"
        finally:
            await a.close()
            await b.close()


def presence_of(sock: Socket) -> dict[str, str]:
    frames = [f for f in sock.frames if f["type"] == "presence"]
    return dict(frames[-1]["seats"]) if frames else {}


def said(sock: Socket) -> list[str]:
    return [f["message"]["text"] for f in sock.frames if f["type"] == "chat"]


async def test_the_chat_reactions_and_mutes_reach_the_sockets_on_the_other_process(
    database_url: str, tmp_path: Path
) -> None:
    """Ann hosts on one process; Bob plays and Eve watches on the other. Each one's chat line and
    reaction reaches the others, Ann's mute of Eve holds for Eve's post there, and once the game is
    over its chat is its players' alone on both processes."""
    env = live_env(database_url, tmp_path)
    with servers(2, env, log_dir=tmp_path) as (one, two):
        ann, bob, eve = Browser(one.url), Browser(two.url), Browser(two.url)
        landed = ann.post(
            "/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online", "chat_spectators": "on"}
        )
        code = landed.rstrip("/").rsplit("/", 1)[-1]
        bob.join(code, "Bob")
        eve.post(f"/r/{code}/spectator", {})  # a spectator's token, for posting
        a, b, e = [await browser.socket(code).connect() for browser in (ann, bob, eve)]
        try:
            assert e.seats == [] and e.state["chat"]["spectators"]
            table = Table([a, b, e])
            await table.act(a, {"type": "start"})
            await a.send({"type": "chat", "text": "good luck"})
            await b.send({"type": "react", "reaction": "👍"})
            await e.send({"type": "chat", "text": "go Bob"})
            for sock in (a, b, e):
                await sock.wait(lambda sock=sock: {"good luck", "go Bob"} <= set(said(sock)))
            await a.wait(lambda: any(f["type"] == "reaction" and f["seat"] == 1 for f in a.frames))
            await e.wait(lambda: any(f["type"] == "reaction" and f["seat"] == 1 for f in e.frames))
            handle = next(
                f["message"]["spectator"] for f in a.frames if f["type"] == "chat" and f["message"]["seat"] is None
            )
            await table.act(a, {"type": "mute_spectator", "spectator": handle})
            assert e.state["chat"]["muted"] == [handle]
            await e.send({"type": "chat", "text": "you can't mute me"})
            await e.wait(lambda: any(f["code"] == "muted" for f in e.errors))
            await table.play_to_end()
            await a.send({"type": "chat", "text": "gg"})
            await b.send({"type": "chat", "text": "gg, rematch?"})
            await a.wait(lambda: "gg, rematch?" in said(a))
            await b.wait(lambda: "gg" in said(b))
            assert "you can't mute me" not in said(a) + said(b)
            # Eve hears neither: the rematch's state, which she hears, was sent after both lines.
            ann.post(f"/r/{code}/rematch", {})
            await e.wait(lambda: bool(e.state.get("rematch")))
            assert "gg" not in said(e) and "gg, rematch?" not in said(e)
            for sock in (a, b):
                assert [f["code"] for f in sock.errors] == []
        finally:
            for sock in (a, b, e):
                await sock.close()


_SWEPT_A_MONTH_ON = """
from datetime import timedelta
from django.utils import timezone
from games.services import sweeps
from games.store.models import Game
sweeps.sweep(timezone.now() + timedelta(days=31))
print(Game.objects.filter(code="%s").count())
"""


@pytest.mark.parametrize("layer", ["pubsub", "core"])
async def test_the_sockets_of_a_swept_room_on_every_process_are_closed_at_once(
    database_url: str, tmp_path: Path, layer: str
) -> None:
    """Ann's lobby is open on one process and Bob's on the other; the room is swept by a third
    process (a month on, when nothing of it is recent). Both sockets are closed with 4404 at once,
    not at their next ping, so both pages say the room no longer exists."""
    env = live_env(database_url, tmp_path, layer)
    with servers(2, env, log_dir=tmp_path) as (one, two):
        ann, bob = Browser(one.url), Browser(two.url)
        code = ann.create_room("Ann")
        bob.join(code, "Bob")
        a, b = [await browser.socket(code).connect() for browser in (ann, bob)]
        try:
            # This room is gone (the database may hold other tests' rooms, which the sweep may keep).
            assert manage("shell", "-c", _SWEPT_A_MONTH_ON % code, env=env).stdout.split()[-1] == "0"
            for sock in (a, b):
                await sock.wait(lambda sock=sock: sock.closed, timeout=5)
                assert sock.conn is not None and sock.conn.close_code == 4404, sock.conn and sock.conn.close_code
        finally:
            for sock in (a, b):
                await sock.close()

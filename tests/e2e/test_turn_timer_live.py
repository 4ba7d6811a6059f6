"""The turn timer across real server processes on PostgreSQL + Redis.

The deadline is stored with the room; every process's scheduler sweeps for due rooms, and
the timeout applies once. It still applies when the process that committed the turn is
killed (SIGKILL) just before the deadline, and with no socket connected anywhere.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.live import Browser, Socket, best_option, manage, scratch_database, server_env, servers

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.asyncio]

TIMER = 3  # seconds: a choice only these servers offer (TURN_TIMER_CHOICES), time for a player to play in
# How long before a deadline a process is killed: long enough that a kill a loaded machine delays
# still comes before it (else the process enforces the deadline itself before it dies).
BEFORE_DEADLINE = 1.2
# For rooms where nobody plays in time, only the timer does: its turns need no time to be played in.
SHORT = 2


@pytest.fixture(scope="module")
def database_url() -> Iterator[str]:
    with scratch_database(os.environ["DATABASE_URL"]) as url:
        yield url


def live_env(database_url: str, tmp_path: Path) -> dict[str, str]:
    return server_env(
        DATABASE_URL=database_url,
        REDIS_URL=os.environ["REDIS_URL"],
        SECRET_KEY=f"live-{uuid.uuid4().hex}",
        DATA_DIR=str(tmp_path),
        WS_RATE_LIMIT="1000",
        BOT_DELAY="0.05",
        TURN_TIMER_CHOICES=f"0,{SHORT},{TIMER},30,60,120",
    )


def create_timed_room(browser: Browser, name: str, timer: int = TIMER) -> str:
    landed = browser.post(
        "/rooms/new", {"name": name, "ruleset": "official", "mode": "online", "turn_timer": str(timer)}
    )
    return landed.rstrip("/").rsplit("/", 1)[-1]


def moves(database_url: str, code: str) -> list[tuple[int, str, dict[str, Any]]]:
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT m.seq, m.kind, m.payload FROM games_move m JOIN games_game g ON g.id = m.game_id"
            " WHERE g.code = %s ORDER BY m.seq",
            [code],
        ).fetchall()
    return [(seq, kind, payload) for seq, kind, payload in rows]


def timeouts(database_url: str, code: str) -> list[dict[str, Any]]:
    return [payload for _, kind, payload in moves(database_url, code) if kind == "timeout"]


def turn_of(sock: Socket) -> tuple[int, int]:
    turn = sock.state.get("turn")
    return (turn["number"], turn["seat"]) if turn else (0, -1)


async def play_turn(sock: Socket, turn: tuple[int, int] | None = None) -> None:
    """The socket's player rolls once and scores the best box, well within the timer.

    ``turn``: wait until this socket has the state of that turn first. An action refused as
    stale (another frame of the room came first, such as a player coming back) is sent
    again on the new state, as the page does.
    """
    if turn is not None:
        await sock.wait(lambda: turn_of(sock) == turn)
    mine = turn_of(sock)
    while turn_of(sock) == mine:
        errors = len(sock.errors)
        version = sock.version
        if sock.state["turn"]["rolls_used"] == 0:
            await sock.send({"type": "roll"})
        else:
            option = best_option(sock.state)
            await sock.send({"type": "score", "box": option["box"], "column": option["column"]})
        await sock.wait(lambda v=version, n=errors: sock.version > v or len(sock.errors) > n)
        await sock.wait(lambda v=version: sock.version > v)  # a refusal comes with the current state


async def until(condition: Any, timeout: float) -> None:
    """Wait for ``condition()`` (read from the database, no socket needed)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.1)


def deadline_passed(database_url: str, code: str) -> bool:
    """Whether the room's turn deadline is behind the database's clock (the clock the scheduler reads)."""
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT turn_deadline < now() FROM games_game WHERE code = %s", [code]).fetchone()
    return bool(row and row[0])


def outage_longer_than_the_turn(database_url: str, code: str, seconds: int) -> None:
    """With no process up, as if the room's turn had started and the last process had beaten
    ``seconds`` earlier: the turn's deadline passed during the outage, without waiting for it."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE games_game SET turn_deadline = turn_deadline - make_interval(secs => %s),"
            " due_at = due_at - make_interval(secs => %s) WHERE code = %s",
            [seconds, seconds, code],
        )
        conn.execute(
            "UPDATE games_heartbeat SET at = at - make_interval(secs => %s) WHERE name = 'scheduler'", [seconds]
        )


def verify(code: str, env: dict[str, str]) -> None:
    assert "OK" in manage("verify_game", code, env=env).stdout


async def test_two_timeouts_in_a_row_apply_once_each_then_a_computer_plays_until_the_player_is_back(
    database_url: str, tmp_path: Path
) -> None:
    env = live_env(database_url, tmp_path)
    with servers(2, env, log_dir=tmp_path) as (one, two):
        ann, bob = Browser(one.url), Browser(two.url)
        code = create_timed_room(ann, "Ann")
        bob.join(code, "Bob")
        a, b = await ann.socket(code).connect(), await bob.socket(code, base_url=two.url).connect()
        try:
            await a.send({"type": "start"})
            await b.wait(lambda: b.state["status"] == "playing")
            assert b.state["clock"]["seconds"] == TIMER and b.state["clock"]["deadline"]
            # Ann does nothing: both processes scheduled her deadline, one applies it.
            await a.wait(lambda: turn_of(a) == (2, 1), timeout=TIMER + 10)
            assert [t["streak"] for t in timeouts(database_url, code)] == [1]
            await play_turn(b, (2, 1))  # Bob plays in time
            await a.wait(lambda: turn_of(a) == (3, 0))
            # Ann's second timeout in a row: the computer takes her seat.
            await a.wait(lambda: a.state["seats"][0]["away"], timeout=TIMER + 10)
            assert [t["streak"] for t in timeouts(database_url, code)] == [1, 2]
            assert a.state["seats"][0]["kind"] == "bot"
            await play_turn(b, (4, 1))
            # The computer plays Ann's turn 5 (no clock runs for it), then it is Bob's again.
            await b.wait(lambda: turn_of(b) == (6, 1), timeout=10)
            kinds = [kind for _, kind, _ in moves(database_url, code)]
            assert kinds.count("timeout") == 2 and kinds.count("bot") == 1, moves(database_url, code)
            # Ann is back: one frame gives her the seat again.
            await a.send({"type": "back"})
            # Bob's process may take his score before Ann's process takes her frame: wait for it.
            await b.wait(lambda: b.state["seats"][0]["kind"] == "human")
            await play_turn(b, (6, 1))
            await a.wait(lambda: turn_of(a) == (7, 0))
            assert a.state["seats"][0]["kind"] == "human" and not a.state["seats"][0]["away"]
            await play_turn(a, (7, 0))
            await b.wait(lambda: turn_of(b) == (8, 1))
            assert len(timeouts(database_url, code)) == 2
            versions = a.state_versions()
            assert versions == sorted(set(versions)), "a state twice or out of order"
            seqs = [seq for seq, _, _ in moves(database_url, code)]
            assert seqs == list(range(1, len(seqs) + 1))
        finally:
            for sock in (a, b):
                await sock.close()


async def test_a_deadline_is_enforced_after_the_process_that_scheduled_it_is_killed(
    database_url: str, tmp_path: Path
) -> None:
    env = live_env(database_url, tmp_path)
    with servers(2, env, log_dir=tmp_path) as (one, two):
        ann, bob = Browser(two.url), Browser(one.url)
        code = create_timed_room(ann, "Ann")
        bob.join(code, "Bob")
        a, b = await ann.socket(code).connect(), await bob.socket(code).connect()
        try:
            await a.send({"type": "start"})
            await a.wait(lambda: a.state["status"] == "playing")
            started = time.monotonic()
            # Ann's process dies just before her deadline: Bob's process enforces it.
            await asyncio.sleep(max(0.0, TIMER - BEFORE_DEADLINE - (time.monotonic() - started)))
            two.kill()
            await b.wait(lambda: turn_of(b) == (2, 1), timeout=TIMER + 10)
            assert [t["seat"] for t in timeouts(database_url, code)] == [0]

            # Now Bob's turn runs out while every process is down; the restarted one's sweep
            # enforces it (the deadline is stored with the game).
            deadline_version = b.version
            await asyncio.sleep(TIMER - BEFORE_DEADLINE)
            one.kill()
            await b.wait(lambda: b.closed)
            await until(lambda: deadline_passed(database_url, code), TIMER + 10)  # with nobody running
            assert [t["seat"] for t in timeouts(database_url, code)] == [0]
            two.start()
            await until(lambda: len(timeouts(database_url, code)) == 2, TIMER + 10)
            a2 = await ann.socket(code).connect()
            await a2.wait(lambda: turn_of(a2) == (3, 0), timeout=10)
            assert [t["seat"] for t in timeouts(database_url, code)] == [0, 1]
            assert a2.version > deadline_version
            await a2.close()
        finally:
            for sock in (a, b):
                await sock.close()


async def test_a_finished_timed_game_verifies(database_url: str, tmp_path: Path) -> None:
    """Timeouts are ordinary rolls and scores in the log: verify_game replays them with the rest."""
    env = live_env(database_url, tmp_path)
    with servers(1, env, log_dir=tmp_path) as (one,):
        ann = Browser(one.url)
        code = create_timed_room(ann, "Ann")
        a = await ann.socket(code).connect()
        try:
            await a.send({"type": "start"})
            await a.wait(lambda: a.state["status"] == "playing")
            await a.wait(lambda: turn_of(a) == (2, 0), timeout=TIMER + 10)  # one timeout
            while a.state["status"] == "playing":
                number = turn_of(a)[0]
                await play_turn(a, turn_of(a))
                await a.wait(lambda n=number: a.state["status"] != "playing" or turn_of(a)[0] > n)
        finally:
            await a.close()
        assert len(timeouts(database_url, code)) == 1
        verify(code, env)


async def test_a_timed_room_with_every_socket_closed_times_out_exactly_once_across_two_processes_and_a_kill(
    database_url: str, tmp_path: Path
) -> None:
    env = live_env(database_url, tmp_path)
    with servers(2, env, log_dir=tmp_path) as (one, two):
        ann, bob = Browser(one.url), Browser(two.url)
        code = create_timed_room(ann, "Ann", SHORT)
        bob.join(code, "Bob")
        a = await ann.socket(code).connect()
        await a.send({"type": "start"})
        await a.wait(lambda: a.state["status"] == "playing")
        started = time.monotonic()
        await a.close()  # nobody is connected from now on
        # The process that committed the start dies just before Ann's deadline.
        await asyncio.sleep(max(0.0, SHORT - 0.4 - (time.monotonic() - started)))
        one.kill()
        await until(lambda: len(timeouts(database_url, code)) == 1, SHORT + 10)
        # Bob's turn runs out too, played by the surviving process; then the killed one is back.
        await until(lambda: len(timeouts(database_url, code)) == 2, SHORT + 10)
        one.start()
        # The second timeout in a row of each hands the seat to a computer.
        await until(lambda: len(timeouts(database_url, code)) == 4, 2 * SHORT + 15)
        await until(lambda: [kind for _, kind, _ in moves(database_url, code)].count("bot") == 2, 10)
        log = moves(database_url, code)
        assert [(t["seat"], t["streak"]) for t in timeouts(database_url, code)] == [(0, 1), (1, 1), (0, 2), (1, 2)]
        assert [seq for seq, _, _ in log] == list(range(1, len(log) + 1))
        for n, (_, kind, _) in enumerate(log):
            if kind == "timeout":  # each timeout is one roll and one score, never two
                assert [k for _, k, _ in log[n + 1 : n + 3]] == ["roll", "score"], log


async def test_a_deadline_that_passes_while_no_process_is_up_is_given_its_time_back(
    database_url: str, tmp_path: Path
) -> None:
    env = {**live_env(database_url, tmp_path), "SCHEDULER_OUTAGE": "2"}
    with servers(1, env, log_dir=tmp_path) as (one,):
        ann = Browser(one.url)
        # A turn of 30 s: the process dies well within it, and she has time to play after the
        # outage however loaded the machine (a few seconds, the time given back could run out
        # while her page connects).
        code = create_timed_room(ann, "Ann", 30)
        a = await ann.socket(code).connect()
        await a.send({"type": "start"})
        await a.wait(lambda: a.state["status"] == "playing")
        await a.close()
        one.kill()  # a restart that takes longer than the turn's time: down until it has passed
        outage_longer_than_the_turn(database_url, code, seconds=60)
        assert deadline_passed(database_url, code)
        one.start()  # its start is longer than SCHEDULER_OUTAGE after the last beat: the deadline passed and more
        await until(lambda: "running turn deadlines moved on by it" in one.log(), 10)
        back = await ann.socket(code).connect()
        try:
            # The turn was not played for her while nobody could reach the room: she has it still.
            assert timeouts(database_url, code) == []
            assert back.state["turn"]["seat"] == 0 and back.state["clock"]["left"] > 0
            await play_turn(back, (1, 0))
            assert timeouts(database_url, code) == []
        finally:
            await back.close()


async def test_an_own_pace_move_left_past_its_deadline_is_played_once_with_no_socket_and_a_kill(
    database_url: str, tmp_path: Path
) -> None:
    """A day-long move, its deadline passed while nobody had a page open: played once, by whoever claims it."""
    env = live_env(database_url, tmp_path)
    with servers(2, env, log_dir=tmp_path) as (one, two):
        ann, bob = Browser(one.url), Browser(two.url)
        landed = ann.post(
            "/rooms/new",
            {"name": "Ann", "ruleset": "official", "mode": "online", "pace": "own", "move_time": "86400"},
        )
        code = landed.rstrip("/").rsplit("/", 1)[-1]
        bob.join(code, "Bob")
        a = await ann.socket(code).connect()
        await a.send({"type": "start"})
        await a.wait(lambda: a.state["status"] == "playing")
        assert a.state["pace"] == "own" and a.state["clock"]["seconds"] == 86400
        await a.close()  # nobody is connected from now on
        # A day later, as far as the room knows: Ann's deadline is a moment away.
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute(
                "UPDATE games_game SET turn_deadline = now() + interval '1 second',"
                " due_at = now() + interval '1 second' WHERE code = %s",
                [code],
            )
        one.kill()  # the process that committed the start dies just before the deadline
        await until(lambda: len(timeouts(database_url, code)) == 1, 15)
        one.start()
        # Nothing more may be played: long enough for each process to sweep again at least once
        # (SCHEDULER_POLL, 1 s), which is all that could play it a second time.
        await asyncio.sleep(1.5)
        log = moves(database_url, code)
        assert [kind for _, kind, _ in log].count("timeout") == 1
        assert [k for _, k, _ in log][-3:] == ["timeout", "roll", "score"]
        with psycopg.connect(database_url) as conn:
            (deadline_left,) = conn.execute(
                "SELECT EXTRACT(EPOCH FROM turn_deadline - now()) FROM games_game WHERE code = %s", [code]
            ).fetchone()
        assert 86000 < deadline_left <= 86400  # Bob's move: a fresh day

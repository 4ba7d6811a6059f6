"""The turn timer across real server processes on PostgreSQL + Redis.

The deadline is stored with the room; every process's scheduler sweeps for due rooms, and
the timeout applies once. It still applies when the process that committed the turn is
killed (SIGKILL) before the deadline, and with no socket connected anywhere.

Turns a test plays last 30 s and run out when the test moves their deadline (turn_runs_out):
the moment a deadline passes is the test's choice, never a race with a loaded machine's
delays. One room, where nobody plays, runs out by a real timer of a few seconds.
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

from games.scheduling import work
from tests.live import Browser, Socket, best_option, manage, scratch_database, server_env, servers
from tests.waiting import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.asyncio]

# A turn long enough for a player to play in however loaded the machine: such a turn runs out
# when the test says so (turn_runs_out), not when a loaded machine happens to let it.
TIMER = 30
# A timer that runs out on its own, for the one room where nobody plays and the timer itself is
# what is tested: a choice only these servers offer (TURN_TIMER_CHOICES).
SHORT = 2
# However loaded the machine, what the servers do by themselves is done within this.
GENEROUS = 60


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
        TURN_TIMER_CHOICES=f"0,{SHORT},30,60,120",
    )


def env_down_a_while(database_url: str, tmp_path: Path) -> dict[str, str]:
    """The servers' environment for a test that has every process down a while: however long a
    loaded machine takes to start one again, that is not an outage that gives a turn its time
    back or moves a fresh deadline on (that rule has a test of its own)."""
    return {**live_env(database_url, tmp_path), "SCHEDULER_OUTAGE": str(10 * GENEROUS)}


def ann_and_bob_seated(ann_url: str, bob_url: str) -> tuple[Browser, Browser, str]:
    """Ann's browser on ``ann_url`` and Bob's on ``bob_url``, both seated in a timed room Ann
    created: the browsers and the room's code."""
    ann, bob = Browser(ann_url), Browser(bob_url)
    code = create_timed_room(ann, "Ann")
    bob.join(code, "Bob")
    return ann, bob, code


async def started(browser: Browser, code: str) -> Socket:
    """``browser``'s socket in room ``code``, once the game it started there is playing."""
    sock = await browser.socket(code).connect()
    await sock.send({"type": "start"})
    await sock.wait(lambda: sock.state["status"] == "playing")
    return sock


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
    return turn_of_state(sock.state)


def turn_of_state(state: dict[str, Any]) -> tuple[int, int]:
    turn = state.get("turn")
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


async def timed_out(database_url: str, code: str, count: int) -> None:
    """Wait until the room's log holds ``count`` timeouts (read from the database, no socket needed)."""
    await wait_until(
        lambda: len(timeouts(database_url, code)) == count,
        f"{count} timeouts in room {code}'s log",
        timeout=GENEROUS,
        every=0.1,  # each look opens a connection
        detail=lambda: timeouts(database_url, code),
    )


def deadline_passed(database_url: str, code: str) -> bool:
    """Whether the room's turn deadline is behind the database's clock (the clock the scheduler reads)."""
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT turn_deadline < now() FROM games_game WHERE code = %s", [code]).fetchone()
    return bool(row and row[0])


async def turn_runs_out(database_url: str, code: str, seat: int) -> None:
    """The turn of ``seat`` runs out now, as if its time had passed: once that turn has begun (its
    deadline still ahead), its deadline and the room's ``due_at`` are moved to the database's now.
    Whichever scheduler sweeps next applies the timeout; nothing else is changed."""
    moved = 0
    deadline = time.monotonic() + GENEROUS
    while not moved:
        assert time.monotonic() < deadline, f"seat {seat}'s turn never began with a deadline ahead"
        with psycopg.connect(database_url, autocommit=True) as conn:
            moved = conn.execute(
                "UPDATE games_game SET turn_deadline = now(), due_at = now() WHERE code = %s"
                " AND turn_deadline > now() AND (snapshot -> 'rules' ->> 'current')::int = %s",
                [code, seat],
            ).rowcount
        if not moved:
            await asyncio.sleep(0.1)


def database_now(database_url: str) -> Any:
    with psycopg.connect(database_url) as conn:
        return conn.execute("SELECT now()").fetchone()[0]  # type: ignore[index]


def swept_since(database_url: str, since: Any) -> bool:
    """Whether a scheduler that sweeps completed a round of claims after ``since`` (its host's
    Heartbeat row, games.scheduling.work.alive: the test's processes share one host)."""
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT max(at) > %s FROM games_heartbeat WHERE name LIKE %s", [since, work.ALIVE + "%"]
        ).fetchone()
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
        ann, bob, code = ann_and_bob_seated(one.url, two.url)
        a, b = await ann.socket(code).connect(), await bob.socket(code, base_url=two.url).connect()
        try:
            await a.send({"type": "start"})
            await b.wait(lambda: b.state["status"] == "playing")
            assert b.state["clock"]["seconds"] == TIMER and b.state["clock"]["deadline"]
            # Ann does nothing: both processes see her deadline pass, one applies it.
            await turn_runs_out(database_url, code, 0)
            await a.wait(lambda: turn_of(a) == (2, 1), timeout=GENEROUS)
            assert [t["streak"] for t in timeouts(database_url, code)] == [1]
            await play_turn(b, (2, 1))  # Bob plays in time
            await a.wait(lambda: turn_of(a) == (3, 0))
            # Ann's second timeout in a row: the computer takes her seat.
            await turn_runs_out(database_url, code, 0)
            await a.wait(lambda: a.state["seats"][0]["away"], timeout=GENEROUS)
            assert [t["streak"] for t in timeouts(database_url, code)] == [1, 2]
            assert a.state["seats"][0]["kind"] == "bot"
            await play_turn(b, (4, 1))
            # The computer plays Ann's turn 5 (no clock runs for it), then it is Bob's again.
            await b.wait(lambda: turn_of(b) == (6, 1), timeout=GENEROUS)
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
    env = env_down_a_while(database_url, tmp_path)  # every process is down a while below
    with servers(2, env, log_dir=tmp_path) as (one, two):
        ann, bob, code = ann_and_bob_seated(two.url, one.url)
        a, b = await ann.socket(code).connect(), await bob.socket(code).connect()
        try:
            await a.send({"type": "start"})
            await a.wait(lambda: a.state["status"] == "playing")
            # Ann's process, which committed her turn and scheduled its deadline, dies before the
            # deadline; then it passes: Bob's process enforces it.
            two.kill()
            assert timeouts(database_url, code) == []
            await turn_runs_out(database_url, code, 0)
            await b.wait(lambda: turn_of(b) == (2, 1), timeout=GENEROUS)
            assert [t["seat"] for t in timeouts(database_url, code)] == [0]

            # Now Bob's turn runs out while every process is down; the restarted one's sweep
            # enforces it (the deadline is stored with the game).
            deadline_version = b.version
            one.kill()
            await b.wait(lambda: b.closed)
            await turn_runs_out(database_url, code, 1)  # with nobody running
            assert deadline_passed(database_url, code)
            assert [t["seat"] for t in timeouts(database_url, code)] == [0]
            two.start()
            await timed_out(database_url, code, 2)
            a2 = await ann.socket(code).connect()
            await a2.wait(lambda: turn_of(a2) == (3, 0), timeout=GENEROUS)
            assert [t["seat"] for t in timeouts(database_url, code)] == [0, 1]
            assert a2.version > deadline_version
            await a2.close()
        finally:
            for sock in (a, b):
                await sock.close()


async def test_a_timed_game_s_timer_counts_down_and_runs_out_on_its_own_and_the_finished_game_verifies(
    database_url: str, tmp_path: Path
) -> None:
    """The one room whose turns run out by a real timer of a few seconds: nobody plays, so a loaded
    machine can only make it later, which the waits allow. Ann's timer runs out twice on its own,
    the computer takes her seat and plays the game to its end. Timeouts are ordinary rolls and
    scores in the log: verify_game replays them with the rest."""
    env = live_env(database_url, tmp_path)
    with servers(1, env, log_dir=tmp_path) as (one,):
        ann = Browser(one.url)
        code = create_timed_room(ann, "Ann", SHORT)
        a = await ann.socket(code).connect()
        try:
            await a.send({"type": "start"})
            # Nothing to do in time: the outcome is waited for, however late a loaded machine makes it.
            await a.wait(lambda: a.state["status"] == "finished", timeout=GENEROUS)
        finally:
            await a.close()
        assert [t["streak"] for t in timeouts(database_url, code)] == [1, 2]
        # Read from every state the page was sent, not the last one: each of Ann's two turns had a
        # clock of its own, counting down from the timer's seconds.
        clocks = {
            turn_of_state(frame): frame["clock"]
            for frame in a.frames
            if frame["type"] == "state" and frame["status"] == "playing" and frame.get("clock")
        }
        for turn in ((1, 0), (2, 0)):
            assert clocks[turn]["seconds"] == SHORT and clocks[turn]["deadline"], clocks
            assert clocks[turn]["left"] <= SHORT, clocks
        assert a.state["seats"][0]["kind"] == "bot"
        verify(code, env)


async def test_a_timed_room_with_every_socket_closed_times_out_exactly_once_across_two_processes_and_a_kill(
    database_url: str, tmp_path: Path
) -> None:
    env = live_env(database_url, tmp_path)
    with servers(2, env, log_dir=tmp_path) as (one, two):
        ann, bob, code = ann_and_bob_seated(one.url, two.url)
        a = await started(ann, code)
        await a.close()  # nobody is connected from now on
        # The process that committed the start dies before Ann's deadline, which then passes.
        one.kill()
        await turn_runs_out(database_url, code, 0)
        await timed_out(database_url, code, 1)
        # Bob's turn runs out too, played by the surviving process; then the killed one is back.
        await turn_runs_out(database_url, code, 1)
        await timed_out(database_url, code, 2)
        one.start()
        # The second timeout in a row of each, with both processes up, hands the seat to a computer.
        await turn_runs_out(database_url, code, 0)
        await timed_out(database_url, code, 3)
        await turn_runs_out(database_url, code, 1)
        await timed_out(database_url, code, 4)
        await wait_until(
            lambda: [kind for _, kind, _ in moves(database_url, code)].count("bot") == 2,
            "a computer's move for each seat",
            timeout=GENEROUS,
            every=0.1,
            detail=lambda: moves(database_url, code),
        )
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
        code = create_timed_room(ann, "Ann")
        a = await started(ann, code)
        await a.close()
        one.kill()  # a restart that takes longer than the turn's time: down until it has passed
        outage_longer_than_the_turn(database_url, code, seconds=60)
        assert deadline_passed(database_url, code)
        one.start()  # its start is longer than SCHEDULER_OUTAGE after the last beat: the deadline passed and more
        await wait_until(
            lambda: "running turn deadlines moved on by it" in one.log(),
            "the restarted server to give the turn its time back",
            every=0.1,  # each look reads the log
            detail=one.log,
        )
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
    env = env_down_a_while(database_url, tmp_path)  # none is up between the second's stop and the first's start
    with servers(2, env, log_dir=tmp_path) as (one, two):
        ann, bob = Browser(one.url), Browser(two.url)
        landed = ann.post(
            "/rooms/new",
            {"name": "Ann", "ruleset": "official", "mode": "online", "pace": "own", "move_time": "86400"},
        )
        code = landed.rstrip("/").rsplit("/", 1)[-1]
        bob.join(code, "Bob")
        a = await started(ann, code)
        assert a.state["pace"] == "own" and a.state["clock"]["seconds"] == 86400
        await a.close()  # nobody is connected from now on
        one.kill()  # the process that committed the start dies before the deadline
        # A day later, as far as the room knows: Ann's deadline passes now.
        await turn_runs_out(database_url, code, 0)
        await timed_out(database_url, code, 1)
        # The process that committed the start comes back alone: any second timeout would be its
        # own. Once it has completed a whole round of claims, nothing more may have been played.
        two.stop()
        since = database_now(database_url)
        one.start()
        await wait_until(
            lambda: swept_since(database_url, since),
            "a whole round of claims by the restarted server",
            timeout=GENEROUS,
            every=0.1,
        )
        log = moves(database_url, code)
        assert [kind for _, kind, _ in log].count("timeout") == 1
        assert [k for _, k, _ in log][-3:] == ["timeout", "roll", "score"]
        with psycopg.connect(database_url) as conn:
            (deadline_left,) = conn.execute(
                "SELECT EXTRACT(EPOCH FROM turn_deadline - now()) FROM games_game WHERE code = %s", [code]
            ).fetchone()
        assert 86000 < deadline_left <= 86400  # Bob's move: a fresh day

"""yahtzee/lifespan.py: what a serving process runs beside its requests, under every server that serves it."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from games.services import processes
from tests.live import ROOT, ServerProcess, migrate_sqlite, server_env
from tests.scheduling.test_command import MAKE_TIMED_ROOM, moves
from yahtzee import lifespan
from yahtzee.lifespan import Lifespan


@pytest.mark.parametrize("server", ["uvicorn", "daphne"])
def test_a_deadline_that_passed_before_the_server_started_is_played(tmp_path: Path, server: str) -> None:
    """uvicorn starts the scheduler at the ASGI lifespan's startup; Daphne (and ``manage.py runserver``)
    sends no lifespan events, and a process that only kept timers for the rooms it committed itself
    would never apply a deadline stored before it started (a restart, a deploy, a day-long move)."""
    env = server_env(DATA_DIR=str(tmp_path), SECRET_KEY=f"sweep-{uuid.uuid4().hex}", BOT_TABLES_AT_START="0")
    for name in ("DATABASE_URL", "REDIS_URL", "CHANNEL_LAYER"):
        env.pop(name, None)
    migrate_sqlite(env)
    made = subprocess.run([sys.executable, "-c", MAKE_TIMED_ROOM], cwd=ROOT, env=env, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    code = made.stdout.strip()
    site = ServerProcess(env, log_dir=tmp_path, server=server).start()
    try:
        kinds: list[str] = []
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            kinds = moves(env, code)
            if "score" in kinds:
                break
            time.sleep(0.2)
        assert kinds[-3:] == ["timeout", "roll", "score"], (kinds, site.log())
    finally:
        site.stop()


async def answers_200(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200})


def without_lifespan_events(monkeypatch: pytest.MonkeyPatch, startup: Any, app: Any = answers_200) -> Lifespan:
    """``app`` served as Daphne serves it (no lifespan event: the first connection starts the
    process), with ``startup`` as the process's start."""
    monkeypatch.setattr(lifespan, "startup", startup)
    site = Lifespan(app)
    site.start_at_first_connection = True
    return site


class Recorder:
    """One HTTP connection's ``receive``, and a ``send`` that keeps what the site sends."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def receive(self) -> dict[str, Any]:
        return {"type": "http.request"}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


def serve(lifespan: Lifespan, scopes: list[str]) -> list[list[dict[str, Any]]]:
    """Connections of the given types made at once to ``lifespan`` (no lifespan event first, as Daphne does)."""

    async def one(kind: str) -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": f"{kind}.request" if kind == "http" else "websocket.connect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await lifespan({"type": kind}, receive, send)
        return sent

    async def all_at_once() -> list[list[dict[str, Any]]]:
        return list(await asyncio.gather(*(one(kind) for kind in scopes)))

    return asyncio.run(all_at_once())


def test_without_lifespan_events_the_first_connections_start_the_process_once(monkeypatch) -> None:
    starts: list[int] = []
    served: list[str] = []

    async def startup() -> None:
        starts.append(1)
        await asyncio.sleep(0.05)  # the other connections arrive meanwhile, and wait for it

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        served.append(scope["type"])

    site = without_lifespan_events(monkeypatch, startup, app)
    serve(site, ["http", "websocket", "http"])
    serve(site, ["http"])
    assert starts == [1]
    assert served == ["http", "websocket", "http", "http"]


def test_without_lifespan_events_a_process_that_must_not_serve_answers_503_and_closes_sockets(monkeypatch) -> None:
    """As uvicorn's lifespan refuses to start a worker whose secret key differs from the others'."""

    async def startup() -> None:
        raise lifespan.Refused("refusing to serve: another serving process uses a different SECRET_KEY")

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        raise AssertionError("served")

    site = without_lifespan_events(monkeypatch, startup, app)
    http, socket = serve(site, ["http", "websocket"])
    assert http[0]["status"] == 503
    assert socket == [{"type": "websocket.close", "code": 1011}]


def test_without_lifespan_events_a_start_that_failed_is_tried_again_at_the_next_connection(monkeypatch) -> None:
    """The database away at the first request: that request is served as it can be, the next one starts the process."""
    tries: list[int] = []

    async def startup() -> None:
        tries.append(1)
        if len(tries) == 1:
            raise OSError("the database is away")

    site = without_lifespan_events(monkeypatch, startup)
    assert serve(site, ["http"])[0][0]["status"] == 200
    assert serve(site, ["http"])[0][0]["status"] == 200
    serve(site, ["http"])
    assert tries == [1, 1]


def test_a_first_connection_cancelled_while_it_starts_the_process_leaves_the_start_to_finish(monkeypatch) -> None:
    """Daphne cancels an application instance whose client went away more than
    application_close_timeout before it finished: a first request that waited on a slow database
    (processes.enter) and whose client gave up. Its CancelledError is no Exception: the start was
    left neither made nor to be made again, every later connection took the process for started,
    and its scheduler never ran (no sweep, no outage check, stored deadlines never applied)."""
    starts: list[str] = []
    trying = asyncio.Event()

    async def startup() -> None:
        starts.append("tried")
        trying.set()
        await asyncio.sleep(0.3)  # the database slow to answer
        starts.append("started")

    site = without_lifespan_events(monkeypatch, startup)
    http = Recorder()
    receive, send, sent = http.receive, http.send, http.sent

    async def scenario() -> None:
        first = asyncio.ensure_future(site({"type": "http"}, receive, send))
        await asyncio.wait_for(trying.wait(), 5)  # the first request is in the start
        first.cancel()  # Daphne's application_checker: the client left long ago
        await asyncio.gather(first, return_exceptions=True)
        await site({"type": "http"}, receive, send)  # the next request

    asyncio.run(scenario())
    assert starts[-1] == "started" and starts.count("started") == 1, starts
    assert sent == [{"type": "http.response.start", "status": 200}]


def test_without_lifespan_events_a_refusal_is_not_for_the_life_of_the_process(monkeypatch) -> None:
    """Under uvicorn a refused start ends the process (lifespan.startup.failed) and its supervisor
    starts it again, which serves once the other process is gone. Under Daphne, with no lifespan
    events, the refusal is made at the first connection and not kept for good: a process up and
    answering 503 to everything is restarted by no supervisor, so it serves once the row that
    caused it aged out (processes.LIVE)."""
    # The process's own clock, moved on by the test: a refusal is reconsidered by it, LIVE after.
    now = [1000.0]
    monkeypatch.setattr(lifespan, "time", SimpleNamespace(monotonic=lambda: now[0]))
    refuse = [True]

    async def startup() -> None:
        if refuse[0]:
            raise lifespan.Refused("refusing to serve: several processes serve this database with the in-memory layer")

    site = without_lifespan_events(monkeypatch, startup)
    http = Recorder()
    receive, send, sent = http.receive, http.send, http.sent

    async def scenario() -> None:
        await site({"type": "http"}, receive, send)
        assert sent[0]["status"] == 503
        refuse[0] = False  # the other process's row is gone (or aged out)
        now[0] = 1000.0 + processes.LIVE.total_seconds() - 1
        sent.clear()
        await site({"type": "http"}, receive, send)
        assert sent[0]["status"] == 503  # kept until the rows that caused it may have aged out
        now[0] = 1000.0 + processes.LIVE.total_seconds()
        sent.clear()
        await site({"type": "http"}, receive, send)

    asyncio.run(scenario())
    assert sent[0]["status"] == 200, sent


def serving_rows(env: dict[str, str]) -> int:
    with contextlib.closing(sqlite3.connect(Path(env["DATA_DIR"]) / "yahtzee.sqlite3")) as db:
        return int(db.execute("SELECT COUNT(*) FROM games_servingprocess").fetchone()[0])


def test_under_daphne_a_process_that_stops_says_it_stops_serving(tmp_path: Path) -> None:
    """Daphne sends no lifespan.shutdown, so processes.leave runs at the process's exit: without it a worker
    redeployed in a new container (another host name) within processes.LIVE of the old one's last
    beat would find its row, on the embedded in-memory layer take it for a second process, and
    refuse to serve."""
    env = server_env(DATA_DIR=str(tmp_path), SECRET_KEY=f"leave-{uuid.uuid4().hex}", BOT_TABLES_AT_START="0")
    for name in ("DATABASE_URL", "REDIS_URL", "CHANNEL_LAYER"):
        env.pop(name, None)
    migrate_sqlite(env)
    site = ServerProcess(env, log_dir=tmp_path, server="daphne").start()  # its first connection starts it
    try:
        assert serving_rows(env) == 1
    finally:
        site.stop()
    assert site.proc is not None and site.proc.returncode is not None
    assert serving_rows(env) == 0, site.log()

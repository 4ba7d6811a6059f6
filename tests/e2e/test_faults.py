"""Faults in production's own topology: Redis restarting and PostgreSQL out of reach mid-game.

Each test starts what it needs (its own redis-server on a free port, a TCP link to
PostgreSQL it can cut, server processes, a scratch database) and stops it again. The
clients do what the room page does: reconnect with backoff when their socket drops, ask
for the state (``sync``) when they suspect they missed some, and send an action whose
answer they never saw again, with the same id and version.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import need_program
from tests.live import (
    Browser,
    ServerProcess,
    Socket,
    Table,
    best_option,
    dies_with_tests,
    free_port,
    keep_most_common,
    released,
    scratch_database,
    server_env,
    start_together,
    verify,
)

pytestmark = [pytest.mark.postgres, pytest.mark.asyncio]


@pytest.fixture(scope="module")
def database_url() -> Iterator[str]:
    with scratch_database(os.environ["DATABASE_URL"]) as url:
        yield url


def env_for(database_url: str, tmp_path: Path, **extra: str) -> dict[str, str]:
    env = server_env(
        DATABASE_URL=database_url,
        SECRET_KEY=f"faults-{uuid.uuid4().hex}{uuid.uuid4().hex}",
        DATA_DIR=str(tmp_path),
        WS_RATE_LIMIT="1000",
        DB_CONN_MAX_AGE="60",  # long-lived connections are the ones a cut breaks
        **extra,
    )
    if "REDIS_URL" not in extra:
        env.pop("REDIS_URL", None)
        env.pop("CACHE_URL", None)
    return env


async def reconnect(browser: Browser, code: str, urls: list[str], timeout: float = 30) -> Socket:
    """What the room page does: try again, with backoff, on any server, until a socket opens."""
    deadline = time.monotonic() + timeout
    delay, attempt = 0.25, 0
    while True:
        try:
            sock = await browser.socket(code, base_url=urls[attempt % len(urls)]).connect(timeout=5)
            sock._counter = random.randrange(10**6, 10**9)  # a new page load: its action ids never repeat old ones
            return sock
        except Exception:
            if time.monotonic() > deadline:
                raise
            attempt += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)


async def recover(sock: Socket, browser: Browser, code: str, urls: list[str]) -> Socket:
    """A socket still open asks for the state; a dropped one reconnects."""
    if not sock.closed:
        with contextlib.suppress(Exception):
            await sock.conn.send(json.dumps({"type": "sync"}))  # type: ignore[union-attr]
            before = len(sock.frames)
            await sock.wait(lambda: any(f["type"] == "state" for f in sock.frames[before:]), 5)
            return sock
        await sock.close()
    return await reconnect(browser, code, urls)


async def resend_until_answered(sock: Socket, frame: dict[str, Any], applied_version: int, *, landed: bool) -> None:
    """Send the in-flight action again: it applies now, or (``landed``: it was stored before) is refused.

    A refusal is waited for itself: the socket may already hold the state the first send
    made, and a refusal still on its way would be read as the next action's answer.
    """
    errors, frames = len(sock.errors), len(sock.frames)

    def answered() -> bool:
        if landed:
            return any(error["id"] == frame["id"] for error in sock.errors[errors:])
        return any(f["type"] == "state" and f["version"] >= applied_version for f in sock.frames[frames:])

    await sock.conn.send(json.dumps(frame))  # type: ignore[union-attr]
    await sock.wait(answered, 10)
    for error in sock.errors[errors:]:
        assert landed and error["code"] in ("stale", "repeated_action"), error
        assert error["id"] == frame["id"]


async def wait_healthy(url: str, timeout: float = 20) -> None:
    """Until ``/healthz`` answers 200 with nothing degraded (the database and the relay both up)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if json.loads(Browser(url).get("/healthz"))["degraded"] == []:
                return
        except urllib.error.HTTPError:
            if time.monotonic() > deadline:
                raise
        if time.monotonic() > deadline:
            raise AssertionError(f"{url} still degraded after {timeout} s")
        await asyncio.sleep(0.2)


@contextlib.asynccontextmanager
async def two_workers(one: ServerProcess, two: ServerProcess, sockets: list[Socket]) -> AsyncIterator[None]:
    """Around a test's play on ``one`` and ``two``: should it fail, where each socket stood and what
    each worker logged last; however it ends, ``sockets`` (as the list holds them then) closed
    and both workers stopped."""
    try:
        yield
    except BaseException:
        print("sockets:", [(s.base_url, s.closed, s.version, s.seats) for s in sockets])
        print("server one:", one.log()[-3000:], "server two:", two.log()[-3000:], sep="\n")
        raise
    finally:
        for sock in sockets:
            await sock.close()
        one.stop()
        two.stop()


def stored(browser: Browser, code: str) -> dict[str, Any]:
    return browser.state(code)


# --- Redis restarted ---------------------------------------------------------------------


class RedisServer:
    """A private redis-server on a free port (never the shared one), stopped and started at will."""

    def __init__(self, log_dir: Path) -> None:
        self.port = free_port()
        self.log_dir = log_dir
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.proc = subprocess.Popen(
            [
                shutil.which("redis-server") or "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.log_dir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        dies_with_tests(self.proc)
        deadline = time.monotonic() + 10
        import socket

        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return self
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        if self.proc is not None:
            released(self.proc)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    need_program("redis-server", "apt-get install redis-server")
    server = RedisServer(tmp_path).start()
    try:
        yield server
    finally:
        server.kill()


@pytest.mark.redis
@pytest.mark.parametrize("layer", ["pubsub", "core"])
async def test_redis_restarting_mid_game_loses_no_state(
    database_url: str, tmp_path: Path, redis_server: RedisServer, layer: str
) -> None:
    env = env_for(database_url, tmp_path, REDIS_URL=redis_server.url, CHANNEL_LAYER=layer)
    one, two = start_together([ServerProcess(env, log_dir=tmp_path), ServerProcess(env, log_dir=tmp_path)])
    urls = [one.url, two.url]
    ann, bob, eve = Browser(one.url), Browser(two.url), Browser(two.url)
    code = ann.create_room("Ann")
    bob.join(code, "Bob")
    sockets = [await ann.socket(code).connect(), await bob.socket(code).connect(), await eve.socket(code).connect()]
    async with two_workers(one, two, sockets):
        table = Table(sockets)
        await table.act(sockets[0], {"type": "start"})
        await table.play_turn()  # Ann
        await table.play_turn()  # Bob
        a = sockets[0]
        version = a.version

        redis_server.kill()
        # Ann rolls while Redis is gone: the database takes it, the relay cannot.
        in_flight = await a.send({"type": "roll"})
        # Until the database has it, for at most 1.5 s: a server that could not store it may
        # not have (the roll is sent again below, and must then apply once).
        deadline = time.monotonic() + 1.5
        while stored(Browser(one.url), code)["version"] == version and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert stored(Browser(one.url), code)["version"] in (version, version + 1)
        redis_server.start()  # the same port, as a supervisor would restart it
        # As a load balancer does, wait until each process says it is healthy again: its
        # channel-layer check is a round trip through Redis on its old subscriptions.
        for server in (one, two):
            await wait_healthy(server.url)

        browsers = [ann, bob, eve]
        sockets[:] = [await recover(s, b, code, urls) for s, b in zip(sockets, browsers, strict=True)]
        a = sockets[0]
        landed = stored(Browser(one.url), code)["version"] == version + 1
        await resend_until_answered(a, in_flight, version + 1, landed=landed)
        for sock in sockets:
            if sock.version < version + 1:
                await recover(sock, browsers[sockets.index(sock)], code, urls)
            await sock.wait_version(version + 1)
        assert a.state["turn"]["rolls_used"] == 1  # once, not twice

        # From here every socket sees every action again, through the restarted Redis.
        table = Table(sockets)
        option = best_option(a.state)
        await table.act(a, {"type": "score", "box": option["box"], "column": option["column"]})
        await table.play_to_end()
        final = sockets[0].state
        assert final["status"] == "finished"
        for sock in sockets:
            assert sock.state == final
        assert "OK" in verify(code, env)


# --- PostgreSQL out of reach -------------------------------------------------------------


class CuttableLink:
    """A TCP proxy from a local port to PostgreSQL that can be cut (every connection reset) and restored."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.server: asyncio.base_events.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def _run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    def start(self) -> CuttableLink:
        self.thread.start()
        self.restore()
        return self

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        self.writers |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        self.writers -= {writer, up_writer}

    async def _listen(self) -> None:
        self.server = await asyncio.start_server(self._client, "127.0.0.1", self.port, reuse_address=True)

    async def _cut(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None
        for writer in list(self.writers):
            with contextlib.suppress(Exception):
                writer.transport.abort()
        self.writers.clear()

    def cut(self) -> None:
        """Nothing gets through: open connections are reset and new ones refused."""
        self._run(self._cut())

    def restore(self) -> None:
        self._run(self._listen())

    def stop(self) -> None:
        self.cut()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def link_to_database(database_url: str) -> Iterator[tuple[CuttableLink, str]]:
    parsed = urllib.parse.urlparse(database_url)
    link = CuttableLink(parsed.hostname or "127.0.0.1", parsed.port or 5432).start()
    try:
        yield link, parsed._replace(netloc=f"{parsed.username or 'postgres'}@127.0.0.1:{link.port}").geturl()
    finally:
        link.stop()


async def test_the_database_out_of_reach_fails_actions_clearly_and_recovers_by_itself(
    database_url: str, tmp_path: Path, link_to_database: tuple[CuttableLink, str]
) -> None:
    link, through_link = link_to_database
    env = env_for(through_link, tmp_path)  # one process, in-memory layer: only the database fails
    server = ServerProcess(env, log_dir=tmp_path).start()
    ann, bob = Browser(server.url), Browser(server.url)
    code = ann.create_room("Ann")
    bob.join(code, "Bob")
    a, b = await ann.socket(code).connect(), await bob.socket(code).connect()
    sockets = [a, b]
    try:
        table = Table(sockets)
        await table.act(a, {"type": "start"})
        await table.play_turn()
        assert b.state["turn"]["seat"] == 1
        await table.act(b, {"type": "roll"})
        version = b.version

        link.cut()
        # An action now fails with a clear error frame, and nothing of it is written.
        held = keep_most_common(b.state["turn"]["dice"])
        errors = len(b.errors)
        in_flight = await b.send({"type": "hold", "held": held})
        await b.wait(lambda: len(b.errors) > errors or b.closed, 15)
        assert not b.closed, "the socket closed instead of answering with an error frame"
        # The server cannot ask the database whether it was stored: it says the outcome is unknown.
        assert b.errors[-1]["code"] in ("unavailable", "outcome_unknown"), b.errors[-1]
        assert b.errors[-1]["id"] == in_flight["id"]
        # The pages say so too, with a 503 and a message, not a bare server error.
        with pytest.raises(urllib.error.HTTPError) as refused:
            ann.get(f"/r/{code}/state.json")
        assert refused.value.code == 503
        assert "database" in refused.value.read().decode().lower()
        try:
            Browser(server.url).get("/healthz")
            raise AssertionError("/healthz answered 200 without its database")
        except urllib.error.HTTPError as exc:
            assert exc.code == 503
            assert json.loads(exc.read())["database"]["ok"] is False
        await asyncio.sleep(1)

        link.restore()
        # Service resumes by itself: no restart, the next request reconnects.
        deadline = time.monotonic() + 20
        while True:
            try:
                assert stored(ann, code)["version"] == version  # the refused hold left no trace
                break
            except urllib.error.HTTPError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)
        b = await recover(b, bob, code, [server.url])
        a = await recover(a, ann, code, [server.url])
        sockets = [a, b]
        assert b.version == a.version == version
        await resend_until_answered(b, in_flight, version + 1, landed=False)  # refused, as checked above
        await a.wait_version(version + 1)
        assert a.state["turn"]["held"] == sorted(held)

        table = Table(sockets)
        option = best_option(b.state)
        await table.act(b, {"type": "score", "box": option["box"], "column": option["column"]})
        await table.play_to_end()
        assert a.state["status"] == "finished"
        versions = sorted(set(a.state_versions()))  # (a sync repeats the version it answers with)
        assert versions == list(range(versions[0], versions[-1] + 1)), "a socket missed an action"
        log = json.loads(ann.get(f"/r/{code}/log.json"))
        assert len({r["move"] for r in log["rolls"]}) == len(log["rolls"])
        assert "OK" in verify(code, env_for(database_url, tmp_path))
    finally:
        for sock in sockets:
            await sock.close()
        server.stop()

"""Real server processes and real clients, for tests and benchmarks that cross processes.

``ServerProcess`` runs the production server (``yahtzee.serve``: uvicorn) on a free
127.0.0.1 port with the environment it is given and can be killed with SIGKILL and started
again on the same port (``LIVE_SERVER=daphne``: Daphne instead). ``scratch_database`` makes
a throwaway PostgreSQL database next to DATABASE_URL's and migrates it.
``Browser`` is one visitor's HTTP session (cookies, CSRF) and ``Socket`` one websocket
of theirs: both go through the same pages and protocol a real browser uses.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.cookiejar
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


# The ASGI server of ServerProcess: uvicorn as production runs it (yahtzee/serve.py), or
# Daphne with LIVE_SERVER=daphne (bench/load.py measures one against the other).
LIVE_SERVER = os.environ.get("LIVE_SERVER", "uvicorn")
SERVERS = ("uvicorn", "daphne")  # the tests' servers; bench/load.py also measures "granian"


def server_command(port: int, server: str | None = None) -> list[str]:
    """The command line of one server process on 127.0.0.1:``port`` (``server``: uvicorn, daphne or granian)."""
    server = server or LIVE_SERVER
    if server == "uvicorn":
        return [sys.executable, "-m", "yahtzee.serve", "--host", "127.0.0.1", "--port", str(port)]
    if server == "daphne":
        return [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port), "yahtzee.asgi:application"]
    if server == "granian":  # measured beside uvicorn by the bench, not served (bench/granian_server.py)
        return [sys.executable, "-m", "bench.granian_server", "--host", "127.0.0.1", "--port", str(port)]
    raise ValueError(f"LIVE_SERVER is uvicorn, daphne or granian, not {server!r}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env(**extra: str) -> dict[str, str]:
    """The environment of a server process: the caller's, minus test-only settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_SETTINGS"))}
    env.update(DJANGO_SETTINGS_MODULE="yahtzee.settings", LOG_LEVEL="WARNING", PYTHONUNBUFFERED="1")
    env.update(extra)
    return env


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )


# A server a test starts runs in a process group of its own (it and what it starts are killed
# together), which also takes it out of the test process's: were the test runner killed (SIGKILL
# by a CI timeout, a hung run stopped by hand), nothing would stop its servers, left holding their
# ports and databases. So each test process starts one small guard with a pipe from it, and names
# the groups it starts and stops on that pipe; when the pipe closes, however the test process
# ended, the guard kills every group still named.
_GUARD = r"""
import os, signal, sys
groups = set()
for line in sys.stdin:
    sign, pgid = line.split()
    (groups.add if sign == "+" else groups.discard)(int(pgid))
for pgid in groups:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
"""
_guard: subprocess.Popen[str] | None = None


def _tell_guard(line: str) -> None:
    global _guard
    if _guard is None or _guard.poll() is not None:
        _guard = subprocess.Popen(
            [sys.executable, "-c", _GUARD], stdin=subprocess.PIPE, text=True, start_new_session=True
        )
    assert _guard.stdin is not None
    _guard.stdin.write(line + "\n")
    _guard.stdin.flush()


def dies_with_tests(proc: subprocess.Popen[Any]) -> subprocess.Popen[Any]:
    """``proc`` (started with ``start_new_session=True``) and its group are killed when this test
    process ends, however it ends, unless ``released`` first."""
    _tell_guard(f"+ {proc.pid}")
    return proc


def released(proc: subprocess.Popen[Any]) -> None:
    """``proc`` has been waited for: its group's number may now go to another group."""
    _tell_guard(f"- {proc.pid}")


class ServerProcess:
    """One server process on 127.0.0.1 (``server_command``); ``kill`` is SIGKILL, ``start`` restarts it on its port."""

    def __init__(
        self,
        env: dict[str, str],
        port: int | None = None,
        log_dir: Path | None = None,
        server: str | None = None,
        prefix: list[str] | None = None,
    ) -> None:
        self.env = env
        # Run before the server's own command and exec'ing it (``taskset -c 1``): the PID stays the server's.
        self.prefix = prefix or []
        self.port = port or free_port()
        self.server = server or LIVE_SERVER
        self.log_path = (log_dir or Path("/tmp")) / f"{self.server}-{self.port}-{uuid.uuid4().hex[:6]}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self._deadline_from = 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> ServerProcess:
        return self.launch().ready(timeout)

    def launch(self) -> ServerProcess:
        """The process started, not waited for (``ready`` waits): several start side by side."""
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [*self.prefix, *server_command(self.port, self.server)],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        dies_with_tests(self.proc)
        log.close()
        self._deadline_from = time.monotonic()
        return self

    def ready(self, timeout: float = 30) -> ServerProcess:
        """Until the launched process answers /healthz; it is stopped and its log raised if it never does."""
        assert self.proc is not None, "launch() first"
        deadline = self._deadline_from + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.server} exited with {self.proc.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=2) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.server} on port {self.port} did not answer within {timeout}s:\n{self.log()}")

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except FileNotFoundError:
            return ""

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as when a machine dies."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        if self.proc is not None and self.proc.poll() is not None:
            released(self.proc)

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is not None:
            released(self.proc)
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.kill()
        else:
            released(self.proc)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


def start_together(processes: list[ServerProcess], timeout: float = 30) -> list[ServerProcess]:
    """Start every one of ``processes`` at once and wait until all answer.

    Each start is a Python and Django start of its own (1.5 s of CPU or more): side by side
    they overlap on the two cores instead of waiting one for the other. They must be
    processes that may start together (a shared channel layer, or one alone).
    """
    for process in processes:
        process.launch()
    try:
        for process in processes:
            process.ready(timeout)
    except BaseException:
        for process in processes:
            process.stop()
        raise
    return processes


@contextlib.contextmanager
def servers(count: int, env: dict[str, str], log_dir: Path | None = None) -> Iterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    failed = False
    try:
        started = [ServerProcess(env, log_dir=log_dir) for _ in range(count)]
        start_together(started)
        yield started
    except BaseException:
        failed = True  # the logs stay for the failure's report (tests/conftest.py attaches them)
        raise
    finally:
        for server in started:
            server.stop()
            if not failed:
                with contextlib.suppress(FileNotFoundError):
                    server.log_path.unlink()


@contextlib.contextmanager
def scratch_database(database_url: str) -> Iterator[str]:
    """A new, migrated PostgreSQL database on DATABASE_URL's server, dropped afterwards.

    It is copied from a template migrated once (``CREATE DATABASE … TEMPLATE``, a file copy
    on the server) instead of migrated each time: several test modules and both xdist
    workers each want one, and a migrate costs seconds of CPU.
    """
    import psycopg

    parsed = urllib.parse.urlparse(database_url)
    name = f"yahtzee_live_{uuid.uuid4().hex[:10]}"
    admin_url = parsed._replace(path="/postgres").geturl()
    template = migrated_template(parsed)
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    url = parsed._replace(path=f"/{name}").geturl()
    try:
        yield url
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _migrations_digest() -> str:
    import hashlib
    from importlib.metadata import version

    digest = hashlib.sha256()
    for path in sorted([*ROOT.glob("*/migrations/*.py"), *ROOT.glob("*/*/migrations/*.py")]):
        digest.update(path.name.encode() + path.read_bytes())
    # The installed apps' own migrations come with their versions.
    for package in ("django", "django-allauth", "django-axes", "django-tasks-db"):
        digest.update(f"{package}=={version(package)}".encode())
    return digest.hexdigest()[:12]


def migrate_sqlite(env: dict[str, str]) -> None:
    """The embedded default's database in ``env``'s DATA_DIR, every migration applied.

    A copy of one SQLite file migrated once per set of migration files (kept in the temporary
    folder, made under a file lock), like the PostgreSQL template below: `migrate` from
    scratch is about 3 s of CPU, and the browser, backlog and proxy tests each needed one.
    """
    import fcntl
    import sqlite3
    import tempfile

    name = f"yahtzee_template_{_migrations_digest()}"
    cached = Path(tempfile.gettempdir()) / f"{name}.sqlite3"
    with open(Path(tempfile.gettempdir()) / f"{name}.sqlite3.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not cached.exists():
            building = Path(tempfile.mkdtemp(prefix=f"{name}-"))
            manage("migrate", "--noinput", env={**env, "DATA_DIR": str(building)})
            (building / "yahtzee.sqlite3").rename(cached)
            shutil.rmtree(building, ignore_errors=True)
    with sqlite3.connect(cached) as source, sqlite3.connect(Path(env["DATA_DIR"]) / "yahtzee.sqlite3") as copy:
        source.backup(copy)


def migrated_template(parsed: urllib.parse.ParseResult) -> str:
    """The name of a database on ``parsed``'s server with every migration applied, made once.

    Named after a fingerprint of the migration files, so a new migration makes a new one;
    made under a file lock, so two test processes never
    build it at once. Nothing ever connects to it but the migrate that builds it, as
    PostgreSQL's TEMPLATE copy requires.
    """
    import fcntl
    import tempfile

    import psycopg

    name = f"yahtzee_template_{_migrations_digest()}"
    admin_url = parsed._replace(path="/postgres").geturl()
    with open(Path(tempfile.gettempdir()) / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with psycopg.connect(admin_url, autocommit=True) as conn:
            rows = conn.execute("SELECT datname FROM pg_database WHERE datname LIKE 'yahtzee_template_%'")
            names = [row[0] for row in rows]
            if name in names:
                return name
            # Another fingerprint's template is left alone: another checkout's test run (another
            # branch, another set of migrations) may be copying it right now. Only a build of
            # this one that was cut off is dropped.
            building = f"{name}_building"
            conn.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{building}"')
            manage("migrate", "--noinput", env=server_env(DATABASE_URL=parsed._replace(path=f"/{building}").geturl()))
            conn.execute(f'ALTER DATABASE "{building}" RENAME TO "{name}"')
    return name


class Browser:
    """One visitor: a cookie jar and the site's forms, as a browser without script would post them."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def cookie(self, name: str) -> str:
        for cookie in self.jar:
            if cookie.name == name:
                return cookie.value or ""
        return ""

    def get(self, path: str) -> str:
        with self.opener.open(self.base_url + path, timeout=10) as response:
            return str(response.read().decode())

    def post(self, path: str, data: dict[str, str]) -> str:
        if not self.cookie("csrftoken"):
            self.get("/")
        body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": self.cookie("csrftoken")}).encode()
        request = urllib.request.Request(self.base_url + path, data=body, headers={"Referer": self.base_url + "/"})
        with self.opener.open(request, timeout=10) as response:
            return str(response.geturl())

    def create_room(self, name: str, ruleset: str = "official", mode: str = "online") -> str:
        """Create a room through the home page's form; the room's code."""
        landed = self.post("/rooms/new", {"name": name, "ruleset": ruleset, "mode": mode})
        return landed.rstrip("/").rsplit("/", 1)[-1]

    def join(self, code: str, name: str) -> None:
        self.post(f"/r/{code}/join", {"name": name})

    def state(self, code: str) -> dict[str, Any]:
        return dict(json.loads(self.get(f"/r/{code}/state.json")))

    def socket(self, code: str, base_url: str | None = None) -> Socket:
        return Socket(base_url or self.base_url, code, self.cookie("sessionid"))


# How long a socket waits for what a test expects by default: a full run on two cores has
# kept a state from a loaded server for over 10 s now and then; a passing test never waits it out.
WAIT = 20.0


class Socket:
    """One websocket to a room, remembering every frame it received, in order."""

    def __init__(self, base_url: str, code: str, session: str) -> None:
        self.base_url, self.code, self.session = base_url, code, session
        self.conn: ClientConnection | None = None
        self.frames: list[dict[str, Any]] = []
        self.seats: list[int] = []
        self.state: dict[str, Any] = {}
        self.errors: list[dict[str, Any]] = []
        self._changed = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self._counter = 0
        # Action ids must differ between every socket of a player (a socket that comes back
        # resends its last frame, and the server refuses an id it has seen): a random prefix,
        # not the object's address, which two sockets of one test can share modulo anything.
        self._prefix = uuid.uuid4().hex[:8]

    async def connect(self, timeout: float = 10) -> Socket:
        ws_url = self.base_url.replace("http://", "ws://") + f"/ws/rooms/{self.code}/"
        headers = {"Cookie": f"sessionid={self.session}"} if self.session else {}
        self.conn = await connect(ws_url, origin=self.base_url, additional_headers=headers, open_timeout=timeout)  # type: ignore[arg-type]
        self._reader = asyncio.create_task(self._read())
        await self.wait(lambda: bool(self.state), timeout)
        return self

    async def _read(self) -> None:
        assert self.conn is not None
        try:
            async for text in self.conn:
                frame = json.loads(text)
                self.frames.append(frame)
                if frame["type"] == "you":
                    self.seats = frame["seats"]
                elif frame["type"] == "state":
                    self.state = frame
                elif frame["type"] == "error":
                    self.errors.append(frame)
                self._changed.set()
        except Exception:  # noqa: BLE001 - a dropped connection just ends the reader
            pass
        finally:
            self._changed.set()

    @property
    def closed(self) -> bool:
        return self._reader is None or self._reader.done()

    async def wait(self, predicate: Any, timeout: float = WAIT) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while not predicate():
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise TimeoutError(f"socket on {self.base_url} waited {timeout}s; last state v{self.version}")
            if self.closed and not predicate():
                raise ConnectionError(f"socket on {self.base_url} closed while waiting")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)

    async def wait_version(self, version: int, timeout: float = WAIT) -> dict[str, Any]:
        await self.wait(lambda: self.version >= version, timeout)
        return self.state

    @property
    def version(self) -> int:
        return int(self.state.get("version", -1))

    def state_versions(self) -> list[int]:
        return [f["version"] for f in self.frames if f["type"] == "state"]

    def new_id(self) -> str:
        self._counter += 1
        return f"t-{self._prefix}-{self._counter}"

    async def send(self, frame: dict[str, Any]) -> dict[str, Any]:
        assert self.conn is not None
        frame = {"version": self.version, "id": self.new_id(), **frame}
        await self.conn.send(json.dumps(frame))
        return frame

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await self._reader


def best_option(state: dict[str, Any]) -> dict[str, Any]:
    """The legal box that scores most right now (a simple, quick way to finish games)."""
    legal = [o for o in state["options"] if o["legal"]]
    return max(legal, key=lambda o: (o["points"] + o["bonus"], o["column"] == 0))


# --- playing a room through its sockets -----------------------------------------------------


def keep_most_common(dice: list[int]) -> list[int]:
    face, _ = Counter(dice).most_common(1)[0]
    return [i for i, d in enumerate(dice) if d == face]


class Table:
    """The sockets of one room; every action waits until every socket has its new state."""

    def __init__(self, sockets: list[Socket]) -> None:
        self.sockets = sockets

    def owner(self, seat: int) -> Socket:
        return next(s for s in self.sockets if seat in s.seats)

    async def act(self, actor: Socket, frame: dict[str, Any]) -> dict[str, Any]:
        before = actor.version
        errors = len(actor.errors)
        await actor.send(frame)
        # A refusal does not move the version: say what it was rather than time out on the wait.
        await actor.wait(lambda: actor.version > before or len(actor.errors) > errors)
        assert len(actor.errors) == errors, actor.errors[errors:]
        for sock in self.sockets:
            await sock.wait_version(before + 1)
        return actor.state

    async def play_turn(self, rolls: int = 2) -> None:
        """The player whose turn it is rolls up to ``rolls`` times, holding the most common face
        before each roll after the first, and scores the best box.

        Two rolls by default: every kind of action in every turn (roll, hold, score), in two
        actions fewer than a turn of three rolls; every action waits for every socket.
        """
        state = self.sockets[0].state
        actor = self.owner(state["turn"]["seat"])
        state = await self.act(actor, {"type": "roll"})
        while state["turn"]["rolls_used"] < rolls and len(keep_most_common(state["turn"]["dice"])) < 5:
            held = keep_most_common(state["turn"]["dice"])
            if held != state["turn"]["held"]:
                state = await self.act(actor, {"type": "hold", "held": held})
            state = await self.act(actor, {"type": "roll"})
        option = best_option(state)
        await self.act(actor, {"type": "score", "box": option["box"], "column": option["column"]})

    async def play_to_end(self, rolls: int = 2) -> None:
        while self.sockets[0].state["status"] == "playing":
            await self.play_turn(rolls)


def verify(code: str, env: dict[str, str]) -> str:
    """manage.py verify_game: every roll re-derived from the seed, every move replayed."""
    return manage("verify_game", code, env=env).stdout


async def open_ws(
    server: ServerProcess, code: str, session: str = "", source: str = "127.0.0.1", rcvbuf: int = 0, **kw: Any
) -> ClientConnection:
    """A raw websocket into ``code``'s room from ``source`` (a loopback address).

    ``rcvbuf``: its receive buffer in bytes, set before connecting (0: the system's).
    """
    sock = socket.socket()
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.bind((source, 0))
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", server.port))
    headers = {"Cookie": f"sessionid={session}"} if session else {}
    return await connect(
        f"ws://127.0.0.1:{server.port}/ws/rooms/{code}/",
        sock=sock,
        origin=server.url,  # type: ignore[arg-type]
        additional_headers=headers,
        ping_interval=None,
        open_timeout=10,
        **kw,
    )

"""Hostile clients against one worker: memory, fair sharing and leftovers (the figures in docs/security.md).

Run it as its own process; it starts its own server (uvicorn, or Daphne with
LIVE_SERVER=daphne; SQLite, loopback only) with the helpers of tests/live.py, and stops it
again:

    .venv/bin/python bench/abuse.py                      # all three phases, about 8 minutes
    .venv/bin/python bench/abuse.py --phase fuzz --frames 2000
    .venv/bin/python bench/abuse.py --phase storm --profile --diagnose

Phases (each bounded in time and count):

- ``slow``: ``--slow`` (200) sockets that never read (a 4 KB receive buffer, never
  drained) but ping every 10 s, spread over busy rooms (a player toggling a hold ~10
  times a second in each), for ``--slow-seconds`` (120), in ``--slow-rounds`` (2) waves.
  Each wave prints the worker's RSS before, at its peak and every 5 s for 30 s after the
  slow sockets went, and how many the server closed as too far behind (4009). The first
  wave warms the worker (its allocator's arenas, the caches, the sockets' code paths):
  the figure (growth under 50 MB, back within 30 s) is judged against the RSS after it,
  on the later waves. "Back" means within ``BACK_WITHIN_MB`` (5 MB) of that baseline.
- ``storm``: a victim game in its own room acts in a closed loop (one action, wait for
  its state, the next) while, from other loopback addresses, 1,000 sockets storm into
  one room and 200 sockets send 19 pings a second. Prints the victim's p50/p95/p99
  before and during the attack, the worker's CPU time in both (the figure the machine's
  load moves least), and how many storm sockets were refused (4029).
  The attackers run in a separate process, niced (``os.nice``), so that their own CPU
  does not slow the victim's client or the worker more than the machine must; their CPU
  time is printed. Past an address's first ``WS_CLEAR_REFUSALS`` (10) refusals the
  server refuses the handshake itself (HTTP 403: ``InvalidStatus`` here).
- ``fuzz``: ``--frames`` (10,000) fuzzed frames (deep nesting, lone surrogates, random
  Unicode, binary, oversized, protocol frames with wrong fields) from spectator sockets,
  reconnecting whenever the server closes one. Prints the close codes seen (1011 means a
  handler crashed), the Presence rows left once every socket is gone, and whether the
  room's stored state is unchanged.

Every phase prints its figure against its target ("victim p99 34 ms (target <
50 ms): met"). ``--profile`` records the worker with py-spy (from the venv) during each
phase's attack and prints the functions it was seen in most (the raw stacks are kept in
``--profile-dir``); ``--diagnose`` prints more per phase (latency and RSS over time, the
worker's threads).

The machine these figures come from is shared: say how busy it was (the load average is
printed) when you quote them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import resource
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from websockets.asyncio.client import ClientConnection  # noqa: E402

from tests.live import Browser, ServerProcess, manage, open_ws, server_env  # noqa: E402


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    """User and system CPU time the process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[0]


STORM_P99_MS = 50.0  # target: the victim's p99 during the storm and the ping flood
SLOW_GROWTH_MB = 50.0  # target: the worker's RSS growth over its baseline with the slow readers
BACK_WITHIN_MB = 5.0  # "back within 30 s after they go": this close to the baseline
ATTACKER_NICE = 10
# Seconds the victim waits between its actions: under WS_RATE_LIMIT (20 frames in any second)
# with room to spare (at 0.05 the victim itself is told off, rate_limited, now and then).
VICTIM_PACE = 0.055
# The changes of the held dice a player may make between two rolls (games/services/turns.py).
HOLDS_PER_ROLL = 32


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def threads_of(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/task").iterdir()))


class Profile:
    """py-spy recording a process (``--profile``), raw stacks to a file; ``stop`` prints the top functions."""

    def __init__(self, args: argparse.Namespace, pid: int, name: str) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        if not args.profile:
            return
        spy = Path(sys.executable).parent / "py-spy"
        found = str(spy) if spy.exists() else shutil.which("py-spy")
        if found is None:
            print("  (--profile: py-spy not found)")
            return
        directory = Path(args.profile_dir)
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / f"abuse-{name}-{time.strftime('%H%M%S')}.txt"
        command = [found, "record", "--pid", str(pid), "--format", "raw", "--output", str(self.path), "--nonblocking"]
        self.proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def stop(self, top: int = 12) -> None:
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGINT)
        try:
            _, err = self.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        if not self.path.exists():
            print(f"  profile: py-spy wrote nothing ({err.decode(errors='replace').strip()[-300:]})")
            return
        leaves: Counter[str] = Counter()
        within: Counter[str] = Counter()
        total = 0
        for line in self.path.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            if not stack or not (count.isascii() and count.isdigit()):  # int() refuses a superscript two
                continue
            frames = stack.split(";")
            total += int(count)
            leaves[frames[-1]] += int(count)
            for frame in set(frames):
                within[frame] += int(count)
        print(f"  profile ({total} samples of the worker, raw stacks in {self.path}):")
        print("    most seen at the top of the stack (self; Runner.run: uvloop's C code, mostly waiting):")
        for frame, seen in leaves.most_common(top):
            print(f"      {100 * seen / max(total, 1):5.1f} %  {frame}")
        print("    most seen anywhere in the stack (total):")
        skip = ("<module>", "run (", "_run_once", "run_forever", "run_until_complete", "_bootstrap")
        shown = [(f, c) for f, c in within.most_common(top * 3) if not any(f.startswith(x) for x in skip)]
        for frame, seen in shown[:top]:
            print(f"      {100 * seen / max(total, 1):5.1f} %  {frame}")


def start_server(data_dir: Path, **extra: str) -> ServerProcess:
    env = server_env(
        DATA_DIR=str(data_dir),
        SECRET_KEY="abuse-bench-" + "x" * 50,
        BOT_TABLES_AT_START="0",
        LOG_LEVEL="WARNING",
        **extra,
    )
    for name in ("DATABASE_URL", "REDIS_URL", "CACHE_URL"):
        env.pop(name, None)
    manage("migrate", "--noinput", env=env)
    return ServerProcess(env, log_dir=data_dir).start(timeout=60)


async def next_state(ws: ClientConnection, above: int, timeout: float = 10) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), max(0.01, deadline - time.monotonic())))
        if frame.get("type") == "state" and frame["version"] > above:
            return dict(frame)
        if frame.get("type") == "error":
            raise RuntimeError(f"refused: {frame}")


class Player:
    """One seated browser with a socket: rolls once, then toggles a hold (each one a new state).

    The held dice change at most ``HOLDS_PER_ROLL`` times between two rolls: the player then rolls,
    or scores and rolls for the next turn (Triple Yahtzee: 39 turns, some 2,600 actions a game),
    and past the game's end plays on in a new room.
    """

    def __init__(self, server: ServerProcess) -> None:
        self.browser = Browser(server.url)
        self.code = self.browser.create_room("Busy", ruleset="triple")
        self.server = server
        self.version = 0
        self.state: dict[str, Any] = {}
        self.latencies: list[float] = []
        self.at: list[float] = []  # when each action ended (monotonic)

    async def connect(self) -> None:
        self.ws = await open_ws(self.server, self.code, self.browser.cookie("sessionid"))
        self.state = await next_state(self.ws, -1)
        self.version = self.state["version"]
        await self.act({"type": "start"})
        await self.act({"type": "roll"})

    async def act(self, frame: dict[str, Any]) -> None:
        started = time.perf_counter()
        await self.ws.send(json.dumps({**frame, "version": self.version, "id": f"a{self.version}"}))
        self.state = await next_state(self.ws, self.version)
        self.version = self.state["version"]
        self.latencies.append((time.perf_counter() - started) * 1000)
        self.at.append(time.monotonic())

    async def move_on(self) -> None:
        """Roll again, or score the first legal box and roll for the next turn (a new room after the end)."""
        if self.state["turn"]["rolls_left"]:
            await self.act({"type": "roll"})
            return
        box = next(o for o in self.state["options"] if o["legal"])
        await self.act({"type": "score", "box": box["box"], "column": box["column"]})
        if self.state["status"] != "playing":
            await self.ws.close()
            self.code = await asyncio.to_thread(self.browser.create_room, "Busy", "triple")
            await self.connect()
            return
        await self.act({"type": "roll"})

    async def toggle(self, until: float, pace: float) -> None:
        n = 0
        while time.monotonic() < until:
            n += 1
            turn = self.state["turn"]
            if n % HOLDS_PER_ROLL and turn["rolls_left"]:
                await self.act({"type": "hold", "held": [] if turn["held"] else [0]})
            else:
                await self.move_on()
            if pace:
                await asyncio.sleep(pace)


def percentiles(values: list[float]) -> str:
    if len(values) < 2:
        return "n/a"
    q = statistics.quantiles(values, n=100)
    return f"p50 {q[49]:.1f} ms, p95 {q[94]:.1f} ms, p99 {q[98]:.1f} ms ({len(values)} actions)"


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98] if len(values) >= 2 else float("nan")


def over_time(latencies: list[float], at: list[float], start: float, step: float = 5.0) -> str:
    """p50/p99/max per ``step`` seconds from ``start`` (--diagnose)."""
    buckets: dict[int, list[float]] = {}
    for value, when in zip(latencies, at, strict=True):
        buckets.setdefault(int((when - start) // step), []).append(value)
    parts = []
    for n in sorted(buckets):
        values = buckets[n]
        tail = f"p99 {p99(values):.0f}" if len(values) >= 2 else "p99 n/a"
        parts.append(f"{n * step:.0f}s: {len(values)} p50 {statistics.median(values):.0f} {tail} max {max(values):.0f}")
    return "; ".join(parts)


# --- slow readers -------------------------------------------------------------------------


async def phase_slow(args: argparse.Namespace, data_dir: Path) -> None:
    server = start_server(data_dir / "slow", WS_RATE_LIMIT="1000")
    try:
        pid = server.proc.pid  # type: ignore[union-attr]
        rooms = [Player(server) for _ in range(args.rooms)]
        for player in rooms:
            await player.connect()
        warm_until = time.monotonic() + 10
        await asyncio.gather(*(p.toggle(warm_until, 0.1) for p in rooms))
        print(f"slow readers: {args.slow} sockets in {args.rooms} rooms toggling ~10 actions/s, "
              f"{args.slow_seconds:.0f}s a wave, {args.slow_rounds} waves")  # fmt: skip
        baseline = rss_mb(pid)
        print(f"  worker RSS after 10 s of the busy rooms alone: {baseline:.0f} MB")
        judged: list[tuple[float, float]] = []  # (growth, after) over the warmed baseline, per later wave
        closed_before = 0
        for wave in range(1, args.slow_rounds + 1):
            for p in rooms:
                p.latencies.clear()
                p.at.clear()
            start = rss_mb(pid)
            profile = Profile(args, pid, f"slow{wave}")
            peak, after, trail, series = await slow_wave(args, server, rooms, pid, start)
            profile.stop()
            log_text = Path(server.log_path).read_text(errors="replace")
            closed_total = log_text.count("closing a websocket")
            closed, closed_before = closed_total - closed_before, closed_total
            print(f"  wave {wave}: RSS {start:.0f} MB at its start, peak {peak:.0f} MB "
                  f"(+{peak - start:.0f} MB during); 30 s after they went {after:.0f} MB "
                  f"({after - start:+.0f} MB); every 5 s: {', '.join(f'{mb:.0f}' for mb in trail)} MB")  # fmt: skip
            actions = percentiles([x for p in rooms for x in p.latencies])
            print(f"    closed by the server as too far behind (4009): {closed}; "
                  f"the busy rooms' own actions meanwhile: {actions}")  # fmt: skip
            if args.diagnose:
                print(f"    RSS every 2 s during the wave: {', '.join(f'{mb:.0f}' for mb in series)} MB; "
                      f"worker threads {threads_of(pid)}; worker CPU so far {cpu_seconds(pid):.1f} s")  # fmt: skip
            if wave == 1:
                warmed = after
                if args.slow_rounds > 1:
                    print(f"    (the first wave warms the worker: later waves are judged against {warmed:.0f} MB)")
            else:
                judged.append((peak - warmed, after - warmed))
        if not judged:  # one wave only: judged against the cold baseline
            warmed = baseline
            judged.append((peak - baseline, after - baseline))
        growth = max(g for g, _ in judged)
        back = max(a for _, a in judged)
        print(f"  RSS growth over the warmed baseline ({warmed:.0f} MB), worst wave: +{growth:.0f} MB "
              f"(target < {SLOW_GROWTH_MB:.0f} MB): {verdict(growth < SLOW_GROWTH_MB)}")  # fmt: skip
        print(f"  30 s after they went: {back:+.0f} MB over that baseline "
              f"(target: back, within {BACK_WITHIN_MB:.0f} MB): {verdict(back <= BACK_WITHIN_MB)}")  # fmt: skip
    finally:
        server.stop()


async def slow_wave(
    args: argparse.Namespace, server: ServerProcess, rooms: list[Player], pid: int, start: float
) -> tuple[float, float, list[float], list[float]]:
    """One wave of slow readers: (peak RSS, RSS 30 s after, RSS every 5 s after, RSS every 2 s during)."""
    slow: list[ClientConnection] = []
    for n in range(args.slow):
        # max_queue=1: the client library stops reading the socket once a frame waits.
        # From 20 loopback addresses, within the per-address caps: every one is let in.
        source = f"127.0.2.{1 + n % 20}"
        ws = await open_ws(server, rooms[n % len(rooms)].code, source=source, rcvbuf=4096, max_queue=1)
        slow.append(ws)

    async def pinger(ws: ClientConnection, until: float) -> None:
        with contextlib.suppress(Exception):
            while time.monotonic() < until:
                await asyncio.sleep(10)
                await asyncio.wait_for(ws.send('{"type": "ping"}'), 2)

    until = time.monotonic() + args.slow_seconds
    peak = start
    series = []
    busy = [asyncio.create_task(p.toggle(until, 0.1)) for p in rooms]
    pings = [asyncio.create_task(pinger(ws, until)) for ws in slow]
    while time.monotonic() < until:
        await asyncio.sleep(2)
        series.append(rss_mb(pid))
        peak = max(peak, series[-1])
    await asyncio.gather(*busy, *pings, return_exceptions=True)
    for ws in slow:
        ws.transport.abort()
    gone_at = time.monotonic()
    trail = []  # RSS every 5 s after they went
    for n in range(1, 7):
        await asyncio.sleep(max(0.0, gone_at + 5 * n - time.monotonic()))
        trail.append(rss_mb(pid))
    return peak, trail[-1], trail, series


# --- storm and ping flood -------------------------------------------------------------------


async def _attack(port: int, url: str, code: str, storm: int, flood: int, seconds: float, out: Any) -> None:
    server = ServerProcess({}, port=port)
    server.proc = None
    closes: Counter[str] = Counter()

    async def storm_one(n: int) -> ClientConnection | None:
        try:
            ws = await open_ws(server, code, source="127.0.0.2")
        except Exception as exc:  # noqa: BLE001
            closes[type(exc).__name__] += 1
            return None
        return ws

    async def reader(ws: ClientConnection) -> None:
        try:
            async for _ in ws:
                pass
        except Exception:  # noqa: BLE001
            pass
        closes[str(ws.close_code)] += 1

    stormed: list[ClientConnection] = []
    started = time.monotonic()
    for batch in range(0, storm, 100):
        opened = await asyncio.gather(*(storm_one(n) for n in range(batch, min(storm, batch + 100))))
        stormed += [ws for ws in opened if ws is not None]
    readers = [asyncio.create_task(reader(ws)) for ws in stormed]
    flooders: list[ClientConnection] = []
    for n in range(flood):
        with contextlib.suppress(Exception):
            flooders.append(await open_ws(server, code, source=f"127.0.0.{3 + n // 90}"))
    readers += [asyncio.create_task(reader(ws)) for ws in flooders]

    async def flood_one(ws: ClientConnection, until: float) -> None:
        with contextlib.suppress(Exception):
            while time.monotonic() < until:
                await ws.send('{"type": "ping"}')
                await asyncio.sleep(1 / 19)

    await asyncio.gather(*(flood_one(ws, started + seconds) for ws in flooders))
    for ws in stormed + flooders:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(), 2)
    await asyncio.gather(*readers, return_exceptions=True)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out.put(
        {
            "opened": len(stormed),
            "flooders": len(flooders),
            "closes": dict(closes),
            "cpu": usage.ru_utime + usage.ru_stime,
            "nice": os.nice(0),
        }
    )


def attack_process(port: int, url: str, code: str, storm: int, flood: int, seconds: float, out: Any) -> None:
    os.nice(ATTACKER_NICE)  # the worker and the victim's client go first on a busy machine
    asyncio.run(_attack(port, url, code, storm, flood, seconds, out))


async def phase_storm(args: argparse.Namespace, data_dir: Path) -> None:
    server = start_server(data_dir / "storm")
    try:
        victim = Player(server)
        await victim.connect()
        target = Browser(server.url).create_room("Target")
        pid = server.proc.pid  # type: ignore[union-attr]
        cpu_start = cpu_seconds(pid)
        await victim.toggle(time.monotonic() + 15, VICTIM_PACE)
        before = victim.latencies[:]
        victim.latencies.clear()
        victim.at.clear()
        queue: Any = multiprocessing.Queue()
        rss_before = rss_mb(pid)
        cpu_before = cpu_seconds(pid)
        attacker = multiprocessing.Process(
            target=attack_process,
            args=(server.port, server.url, target, args.storm, args.flood, args.attack_seconds, queue),
        )
        profile = Profile(args, pid, "storm")
        attack_start = time.monotonic()
        attacker.start()
        rss_series: list[float] = []

        async def watch_rss() -> None:
            while True:
                await asyncio.sleep(5)
                rss_series.append(rss_mb(pid))

        watcher = asyncio.create_task(watch_rss())
        await victim.toggle(time.monotonic() + args.attack_seconds, VICTIM_PACE)
        cpu_during = cpu_seconds(pid) - cpu_before
        watcher.cancel()
        profile.stop()
        attacker.join(120)
        try:
            report = queue.get(timeout=5)
        except Exception:  # noqa: BLE001 - the attacker died: print what is known
            report = {}
        during = victim.latencies
        print(f"storm: {args.storm} sockets from 127.0.0.2 into one room, {args.flood} sockets pinging 19/s")
        print(f"  victim before: {percentiles(before)}")
        print(f"  victim during: {percentiles(during)}")
        print(f"  worker CPU: {cpu_before - cpu_start:.1f} s in the 15 s before (the victim alone), "
              f"{cpu_during:.1f} s in the {args.attack_seconds:.0f} s of the attack")  # fmt: skip
        attacker_cpu = report.get("cpu")
        print(f"  attackers' process (nice {report.get('nice', '?')}): "
              f"{attacker_cpu if attacker_cpu is None else f'{attacker_cpu:.1f}'} s of CPU")  # fmt: skip
        closes = report.get("closes") or {}
        print(f"  storm sockets accepted: {report.get('opened')} (clear refusals, 4029, among them), refused "
              f"before the accept (HTTP 403): {closes.get('InvalidStatus', 0)}; flooders: {report.get('flooders')}; "
              f"close codes seen: {closes}")  # fmt: skip
        if args.diagnose:
            print(f"  victim during, every 5 s: {over_time(during, victim.at, attack_start)}")
            print(f"  worker RSS {rss_before:.0f} MB before, every 5 s during: "
                  f"{', '.join(f'{mb:.0f}' for mb in rss_series)} MB; worker threads {threads_of(pid)}")  # fmt: skip
        tail = p99(during)
        print(f"  victim p99 {tail:.0f} ms (target < {STORM_P99_MS:.0f} ms): {verdict(tail < STORM_P99_MS)}")
    finally:
        server.stop()


# --- fuzz -----------------------------------------------------------------------------------


def fuzz_frame(rng: random.Random) -> str | bytes:
    kind = rng.randrange(8)
    if kind == 0:
        depth = rng.randrange(100, 3000)
        return "[" * depth + "]" * depth
    if kind == 1:
        return json.dumps({"type": rng.choice(["roll", "score", "ping", "hint"]), "version": 1}).replace(
            '"version"', '"id": "\\ud800", "box": "\\udfff", "version"'
        )
    if kind == 2:
        return (
            "".join(chr(rng.randrange(0x20, 0x2FFFF)) for _ in range(rng.randrange(1, 200)))
            .encode("utf-8", "replace")
            .decode("utf-8", "replace")
        )
    if kind == 3:
        return rng.randbytes(rng.randrange(1, 300))
    if kind == 4:
        return json.dumps({"type": "roll", "version": 1, "id": "x" * rng.randrange(4000, 200_000)})
    if kind == 5:
        frame: dict[str, Any] = {"type": rng.choice(["start", "roll", "hold", "score", "leave", "kick", "sync", "x"])}
        for name in ("version", "id", "held", "box", "seat", "column"):
            if rng.random() < 0.6:
                frame[name] = rng.choice([None, True, -1, 2**70, "\u202e", [[]], {"a": 1}, "", 3.5])
        return json.dumps(frame)
    if kind == 6:
        return json.dumps({"type": "hint", "version": rng.randrange(-5, 50)})
    return '{"type": "ping"}'


async def phase_fuzz(args: argparse.Namespace, data_dir: Path) -> None:
    server = start_server(data_dir / "fuzz")
    try:
        host = Browser(server.url)
        code = host.create_room("Host")
        version = host.state(code)["version"]
        host.post(f"/r/{code}/start", {"version": str(version), "action_id": "start"})
        before = host.state(code)
        closes: Counter[str] = Counter()
        sent = 0
        rng = random.Random(18)
        per_socket = max(1, args.frames // args.fuzzers)

        async def fuzzer(n: int) -> None:
            nonlocal sent
            left = per_socket
            while left > 0:
                try:
                    ws = await open_ws(server, code, source=f"127.0.1.{1 + n % 250}", max_size=None)
                except Exception as exc:  # noqa: BLE001
                    closes[f"refused {type(exc).__name__}"] += 1
                    await asyncio.sleep(0.5)
                    continue
                reader = asyncio.create_task(_drain(ws))
                try:
                    while left > 0:
                        await ws.send(fuzz_frame(rng))
                        sent += 1
                        left -= 1
                        await asyncio.sleep(rng.choice([0, 0.01, 0.05]))
                    await asyncio.wait_for(ws.close(), 5)
                except Exception:  # noqa: BLE001 - the server closed it: reconnect and go on
                    pass
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(reader, 5)
                closes[str(ws.close_code)] += 1

        started = time.monotonic()
        await asyncio.gather(*(fuzzer(n) for n in range(args.fuzzers)))
        # The server may still be working through frames queued before each close: wait
        # (up to a minute) for the disconnects to reach the database.
        closed_at = time.monotonic()
        db = sqlite3.connect(data_dir / "fuzz" / "yahtzee.sqlite3")
        while True:
            leftover = db.execute("SELECT count(*) FROM games_presence").fetchone()[0]
            if not leftover or time.monotonic() - closed_at > 60:
                break
            await asyncio.sleep(1)
        drained = time.monotonic() - closed_at
        db.close()
        after = host.state(code)
        same = {k: v for k, v in before.items() if k != "you"} == {k: v for k, v in after.items() if k != "you"}
        print(f"fuzz: {sent} frames from {args.fuzzers} spectator sockets in {time.monotonic() - started:.0f}s")
        print(f"  close codes seen: {dict(sorted(closes.items()))}; 1011 (a handler crashed): {closes.get('1011', 0)}")
        print(f"  Presence rows left once every socket went: {leftover} ({drained:.0f}s after the last close)")
        print(f"  stored state identical: {same} (version {before['version']} -> {after['version']})")
        if args.diagnose:
            print(f"  worker RSS {rss_mb(server.proc.pid):.0f} MB, CPU {cpu_seconds(server.proc.pid):.1f} s")  # type: ignore[union-attr]
        crashed = closes.get("1011", 0)
        print(f"  handler crashes (1011) {crashed} (target 0): {verdict(crashed == 0)}; Presence rows left "
              f"{leftover} (target 0): {verdict(leftover == 0)}; stored state identical {same} (target True): "
              f"{verdict(same)}")  # fmt: skip
    finally:
        server.stop()


async def _drain(ws: ClientConnection) -> None:
    with contextlib.suppress(Exception):
        async for _ in ws:
            pass


async def main_async(args: argparse.Namespace) -> None:
    print(f"load average at start: {loadavg()} (the machine is shared; figures are slower than on an idle one)")
    with tempfile.TemporaryDirectory(prefix="abuse-") as tmp:
        for name, phase in (("slow", phase_slow), ("storm", phase_storm), ("fuzz", phase_fuzz)):
            if args.phase in (name, "all"):
                (Path(tmp) / name).mkdir()
                await phase(args, Path(tmp))
                print(f"  (load average now {loadavg()})", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phase", choices=("slow", "storm", "fuzz", "all"), default="all")
    parser.add_argument("--slow", type=int, default=200)
    parser.add_argument("--rooms", type=int, default=4)
    parser.add_argument("--slow-seconds", type=float, default=120)
    parser.add_argument(
        "--slow-rounds", type=int, default=2, help="waves of slow readers; the first warms the baseline"
    )
    parser.add_argument("--storm", type=int, default=1000)
    parser.add_argument("--flood", type=int, default=200)
    parser.add_argument("--attack-seconds", type=float, default=40)
    parser.add_argument("--frames", type=int, default=10_000)
    parser.add_argument("--fuzzers", type=int, default=50)
    parser.add_argument("--profile", action="store_true", help="record the worker with py-spy during each phase")
    parser.add_argument("--profile-dir", default=tempfile.gettempdir(), help="where --profile keeps the raw stacks")
    parser.add_argument("--diagnose", action="store_true", help="print more per phase")
    args = parser.parse_args(argv)
    os.environ.setdefault("BOT_TABLES_AT_START", "0")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()

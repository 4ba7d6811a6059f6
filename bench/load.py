"""Load benchmark: complete games through the real HTTP + websocket flow, beside the stack's own ceiling.

Run it as its own process; it starts the servers it measures (``tests.live.ServerProcess``:
uvicorn, as production runs it, Daphne with LIVE_SERVER=daphne, granian with LIVE_SERVER=granian
(bench/granian_server.py); on a scratch database) and stops them again:

    .venv/bin/python bench/load.py                           # SQLite + in-memory, both shapes
    .venv/bin/python bench/load.py --config pg-pubsub --processes 2
    .venv/bin/python bench/load.py --matrix --json var/load.json   # every configuration (docs/performance.md)

Each configuration runs four phases on the same server processes:

- ``game saturated``: R rooms of P players (browsers that create and join through the
  pages, one websocket each) play Yahtzee closed-loop: a room's next action goes out as
  soon as the player whose turn it is has the state of the previous one.
- ``bare saturated``: the same rooms and sockets on ``/ws/bench/<room>/`` (BENCH_ENDPOINTS),
  a Channels consumer that broadcasts a state-sized frame with no rules and no database.
  The game's actions/s as a share of this is the headline ratio.
- ``game human`` and ``bare human``: open loop, 100 rooms of 8, one action per room every 2 s.

Figures: actions/s completed (an action is complete when every socket in the room has
the state it led to), p50/p99 latency from the send to that moment, errors (error frames,
dropped sockets, stalls), the server processes' CPU (% of one core) and peak RSS, and how
busy the whole machine was (the client, PostgreSQL and Redis share its cores).

``--url`` measures a server that is already running (e.g. the docker compose proxy); its
processes are then not measured, and it needs WS_RATE_LIMIT raised, RATE_LIMITS=0 and, for
the bare phases, BENCH_ENDPOINTS=1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from websockets.exceptions import InvalidHandshake, InvalidMessage  # noqa: E402

from bench.load_client import Player, Room, Tally  # noqa: E402
from bench.load_stats import ProcessMeter, percentile  # noqa: E402
from tests.live import LIVE_SERVER, Browser, ServerProcess, manage, scratch_database, server_env  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/yahtzee"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
CONFIGS = ("sqlite", "pg-pubsub", "pg-core")
# (configuration, processes, placement): "spread" puts the players of every room on all the
# processes (each action relayed); "room" puts each room's players on one process, as the
# Caddyfile's routing of /ws/rooms/<code>/ by its URI does.
MATRIX = [
    ("sqlite", 1, "spread"),
    ("pg-pubsub", 1, "spread"),
    ("pg-pubsub", 2, "spread"),
    ("pg-pubsub", 2, "room"),
    ("pg-core", 1, "spread"),
    ("pg-core", 2, "spread"),
]


@dataclass
class Shape:
    name: str
    rooms: int
    players: int
    closed_loop: bool
    duration: float
    warmup: float
    interval: float = 2.0
    spectators: int = 0  # game rooms: idle sockets a room, which act never but must get every state


# --- servers -----------------------------------------------------------------------------

# ``--pin-server CPU``: the servers run under ``taskset -c CPU`` (it execs them, so the process
# whose CPU is counted is the server's own); ``--pin-client CPU`` keeps this load generator on
# another core, so the two do not take turns on one.
SERVER_PREFIX: list[str] = []


@contextlib.contextmanager
def started_servers(config: str, processes: int, log_dir: Path) -> Iterator[list[ServerProcess]]:
    """The server processes of one configuration, on a database of their own."""
    if config == "sqlite" and processes != 1:
        raise SystemExit("SQLite + the in-memory layer is one process only (the layer cannot span processes)")
    common = {
        "SECRET_KEY": f"bench-{uuid.uuid4().hex}{uuid.uuid4().hex}",
        "DATA_DIR": str(log_dir),
        "WS_RATE_LIMIT": "100000",
        "RATE_LIMITS": "0",
        "BENCH_ENDPOINTS": "1",
        "PYTHONPATH": str(ROOT),  # the routing imports bench.consumer, which is not installed
        "DB_CONN_MAX_AGE": "60",
        "LOG_LEVEL": "WARNING",
        # No solver tables built in the background while measuring (a fresh checkout has none:
        # minutes of CPU in the server process). The bench's rooms have no computer players.
        "BOT_TABLES_AT_START": "0",
    }
    with contextlib.ExitStack() as stack:
        if config == "sqlite":
            env = server_env(**common)
            for name in ("DATABASE_URL", "REDIS_URL", "CACHE_URL"):
                env.pop(name, None)
            manage("migrate", "--noinput", env=env)
        else:
            database = stack.enter_context(scratch_database(os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL))
            env = server_env(
                **common,
                DATABASE_URL=database,
                REDIS_URL=os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL,
                CHANNEL_LAYER=config.removeprefix("pg-"),
            )
        servers: list[ServerProcess] = []
        try:
            for _ in range(processes):
                servers.append(ServerProcess(env, log_dir=log_dir, prefix=SERVER_PREFIX).start(timeout=60))
            yield servers
        finally:
            for server in servers:
                server.stop()


# --- rooms -------------------------------------------------------------------------------


def make_game_rooms(
    urls: list[str], count: int, players: int, placement: str = "spread"
) -> list[list[tuple[str, str]]]:
    """Rooms made through the pages: per room, per player, (server url, session cookie).

    ``spread``: player i of a room talks to server i % len(urls), so with two processes
    every room spans both and each action is relayed from one process to the other.
    ``room``: every player of room r talks to server r % len(urls).
    """

    def one(index: int) -> list[tuple[str, str]]:
        browsers = [Browser(urls[(index if placement == "room" else i) % len(urls)]) for i in range(players)]
        code = browsers[0].create_room(f"R{index}P0")
        for i, browser in enumerate(browsers[1:], start=1):
            browser.join(code, f"R{index}P{i}")
        return [(f"{b.base_url}|{code}", b.cookie("sessionid")) for b in browsers]

    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(one, range(count)))


async def connect_rooms(
    specs: list[list[tuple[str, str]]],
    *,
    bare: bool,
    tally: Tally,
    closed_loop: bool,
    pad: int,
    tag: str,
    spectators: int = 0,
) -> list[Room]:
    rooms = []
    for index, spec in enumerate(specs):
        room = Room(f"{tag}{index}", bare=bare, tally=tally, closed_loop=closed_loop, pad=pad)
        for i, (target, session) in enumerate(spec):
            base, code = target.split("|")
            path = f"/ws/bench/{tag}{index}/" if bare else f"/ws/rooms/{code}/"
            room.players.append(Player(room, i, base.replace("http://", "ws://") + path, base, "" if bare else session))
        for i in range(0 if bare else spectators):
            # A socket with no session watches: it gets every frame of the room and never acts.
            base, code = spec[i % len(spec)][0].split("|")
            url = base.replace("http://", "ws://") + f"/ws/rooms/{code}/"
            room.players.append(Player(room, len(room.players), url, base, ""))
        rooms.append(room)
    semaphore = asyncio.Semaphore(50 if spectators else 20)

    async def connect(player: Player) -> None:
        # A burst of hundreds of handshakes can outrun the server's accept queue: try again, as a page would.
        for attempt in range(5):
            try:
                async with semaphore:
                    await player.connect()
                return
            except (OSError, TimeoutError, InvalidHandshake, InvalidMessage):
                if attempt == 4:
                    raise
                await asyncio.sleep(0.5 * 2**attempt)

    await asyncio.gather(*(connect(p) for room in rooms for p in room.players))
    return rooms


# --- one phase ---------------------------------------------------------------------------


async def run_phase(
    shape: Shape, specs: list[list[tuple[str, str]]], *, bare: bool, pad: int, pids: list[int]
) -> dict[str, Any]:
    tally = Tally()
    tag = f"b{uuid.uuid4().hex[:6]}r" if bare else "g"
    connecting = time.perf_counter()
    rooms = await connect_rooms(
        specs, bare=bare, tally=tally, closed_loop=shape.closed_loop, pad=pad, tag=tag, spectators=shape.spectators
    )
    connect_s = time.perf_counter() - connecting
    meter = ProcessMeter(pids)
    loop = asyncio.get_running_loop()
    began = time.perf_counter()
    tally.window = (began + shape.warmup, began + shape.warmup + shape.duration)
    client_cpu = time.process_time()
    meter_started = False
    profilers: list[subprocess.Popen[bytes]] = []
    if shape.closed_loop:
        for room in rooms:
            room.begin()
    else:
        # Open loop: room i acts at its own offset in every interval, whatever came back.
        for room in rooms:
            room.begin()

        async def ticker(room: Room, offset: float) -> None:
            await asyncio.sleep(offset)
            next_at = loop.time()
            while loop.time() < began + shape.warmup + shape.duration:
                room.tick()
                next_at += shape.interval
                await asyncio.sleep(max(0.0, next_at - loop.time()))

        tickers = [
            loop.create_task(ticker(room, shape.interval * (1 + i / len(rooms)))) for i, room in enumerate(rooms)
        ]
    end = began + shape.warmup + shape.duration
    last_done, last_change = 0, time.perf_counter()
    while time.perf_counter() < end:
        await asyncio.sleep(0.5)
        now = time.perf_counter()
        if not meter_started and now >= tally.window[0]:
            meter.start()
            client_cpu = time.process_time()
            meter_started = True
            if PROFILE_DIR is not None:
                profilers = [profile(pid, shape, bare) for pid in pids]
        meter.sample()
        if tally.first_finish < end:
            end = max(tally.first_finish, tally.window[0] + 1)
        done = sum(r.actions for r in rooms)
        if done != last_done:
            last_done, last_change = done, now
        elif now - last_change > 15:
            tally.error("stalled: no action completed for 15 s")
            break
        if any(room.stalled(now) for room in rooms):
            tally.error("an action unanswered for 10 s")
            break
    for profiler in profilers:
        profiler.send_signal(signal.SIGINT)  # py-spy writes what it has
        await asyncio.to_thread(profiler.wait, 30)
    window = (tally.window[0], min(end, time.perf_counter()))
    tally.window = window
    figures = meter.stop() if meter_started else {}
    client_cpu = time.process_time() - client_cpu
    if not shape.closed_loop:
        for task in tickers:
            task.cancel()
    await asyncio.sleep(0.5 if shape.closed_loop else 2.5)  # let the last actions come back
    await asyncio.gather(*(room.close() for room in rooms))
    seconds = window[1] - window[0]
    latencies = [x * 1000 for x in tally.latencies]
    # Server CPU time per action: unlike actions/s, it hardly depends on what else the machine runs.
    cpu_seconds = sum(c for c in figures.get("server_cpu_pct", []) if c == c) / 100 * seconds  # type: ignore[attr-defined]
    cpu_ms = round(1000 * cpu_seconds / tally.completed, 2) if tally.completed else float("nan")
    sockets = sum(len(room.players) for room in rooms)
    # Websocket messages each socket got per action (1: the state; presence frames add a few).
    copies = tally.completed * sockets / len(rooms) if rooms else 0  # the states the sockets got
    per_socket = sum(tally.messages.values()) / copies if copies else float("nan")
    return {
        "endpoint": "bare" if bare else "game",
        "shape": shape.name,
        "rooms": shape.rooms,
        "players": shape.players,
        "spectators": 0 if bare else shape.spectators,
        "sockets": sockets,
        "connect_s": round(connect_s, 1),
        "seconds": round(seconds, 1),
        "actions": tally.completed,
        "actions_per_s": round(tally.completed / seconds, 1) if seconds > 0 else 0.0,
        "p50_ms": round(percentile(latencies, 50), 1),
        "p99_ms": round(percentile(latencies, 99), 1),
        "max_ms": round(max(latencies), 1) if latencies else float("nan"),
        "errors": sum(tally.errors.values()),
        "error_kinds": dict(tally.errors),
        "late_ticks": tally.late_ticks,
        "client_cpu_pct": round(100 * client_cpu / seconds, 1) if seconds > 0 else 0.0,
        "server_cpu_ms_per_action": cpu_ms,
        "messages": dict(tally.messages),
        "messages_per_action_socket": round(per_socket, 2),
        **figures,
    }


PROFILE_DIR: Path | None = None


def profile(pid: int, shape: Shape, bare: bool) -> subprocess.Popen[bytes]:
    """py-spy on a server process for the measured window: collapsed stacks, one line a stack."""
    assert PROFILE_DIR is not None
    PROFILE_DIR.mkdir(parents=True, exist_ok=True)
    out = PROFILE_DIR / f"{shape.name}-{'bare' if bare else 'game'}-{pid}.txt"
    command = [
        "py-spy",
        "record",
        "-p",
        str(pid),
        "-r",
        "200",
        "--gil",
        "--format",
        "raw",
        "-o",
        str(out),
        "--nonblocking",
    ]
    return subprocess.Popen(
        [str(Path(sys.executable).parent / command[0]), *command[1:]],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def state_size(url: str, code: str) -> int:
    """Bytes of a room's state frame, so the bare rooms broadcast as much as the game does."""
    return len(json.dumps(Browser(url).state(code))) + 60  # + the event in it


async def run_config(
    config: str,
    processes: int,
    shapes: list[Shape],
    urls: list[str],
    pids: list[int],
    placement: str = "spread",
    endpoints: str = "both",
) -> list[dict[str, Any]]:
    results = []
    for shape in shapes:
        started = time.perf_counter()
        specs = await asyncio.to_thread(make_game_rooms, urls, shape.rooms, shape.players, placement)
        setup = time.perf_counter() - started
        code = specs[0][0][0].split("|")[1]
        pad = state_size(urls[0], code)
        for bare in (False, True) if endpoints == "both" else (endpoints == "bare",):
            result = await run_phase(shape, specs, bare=bare, pad=pad, pids=pids)
            result.update(
                config=config,
                processes=processes,
                placement=placement,
                setup_s=round(setup, 1),
                frame_bytes=pad,
                server=LIVE_SERVER if pids else "external",
            )
            print(line(result), flush=True)
            results.append(result)
    return results


# --- output ------------------------------------------------------------------------------


def line(r: dict[str, Any]) -> str:
    cpu = "+".join(f"{c:.0f}" for c in r.get("server_cpu_pct", [])) or "-"
    rss = "+".join(f"{m:.0f}" for m in r.get("server_rss_mb", [])) or "-"
    return (
        f"{r['config']:<10} x{r['processes']}{_by_room(r)} {r['shape']:<9} {r['endpoint']:<4} "
        f"{r['rooms']:>3}x{r['players']}{_watching(r)} {r['actions_per_s']:>7.1f} act/s  p50 {r['p50_ms']:>6.1f} ms  "
        f"p99 {r['p99_ms']:>7.1f} ms  errors {r['errors']:<3} late {r['late_ticks']:<4} "
        f"server cpu {cpu}% ({r.get('server_cpu_ms_per_action', '-')} ms/action)  rss {rss} MB  "
        f"machine {r.get('machine_busy_pct', '-')}%  msgs/action/socket {r.get('messages_per_action_socket', '-')} "
        f"{_other_messages(r)} "
        f"client cpu {r['client_cpu_pct']}%  {r.get('server', '')}" + (f"  {r['error_kinds']}" if r["errors"] else "")
    )


def _other_messages(r: dict[str, Any]) -> str:
    """The messages besides states the sockets got in the window, e.g. ``(presence 120)``."""
    other = {k: n for k, n in r.get("messages", {}).items() if k != "state"}
    return "(" + ", ".join(f"{k} {n}" for k, n in sorted(other.items())) + ")" if other else ""


def _per_core_second(r: dict[str, Any]) -> str:
    """Actions per second of server CPU (1000 / CPU ms per action): the figure the targets are set in."""
    ms = r.get("server_cpu_ms_per_action")
    return f"{1000 / ms:.0f}" if isinstance(ms, int | float) and ms == ms and ms > 0 else ""


def _watching(r: dict[str, Any]) -> str:
    return f"+{r['spectators']}" if r.get("spectators") else ""


def _by_room(r: dict[str, Any]) -> str:
    return " by room" if r.get("placement") == "room" and r["processes"] > 1 else ""


def table(results: list[dict[str, Any]]) -> str:
    """The markdown table of docs/performance.md."""
    rows = [
        "| configuration | shape | endpoint | rooms × players | actions/s | game / bare | p50 ms | p99 ms | errors "
        "| server CPU % | CPU ms / action | actions / core-s | server RSS MB | machine busy % |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    bare = {(r["config"], r["processes"], _by_room(r), r["shape"]): r for r in results if r["endpoint"] == "bare"}
    for r in results:
        ratio = ""
        # Only a closed loop has a ceiling to compare with; open loop sends what it sends.
        if (
            r["endpoint"] == "game"
            and r["shape"] == "saturated"
            and (peer := bare.get((r["config"], r["processes"], _by_room(r), r["shape"])))
        ):
            ratio = f"{100 * r['actions_per_s'] / peer['actions_per_s']:.0f} %" if peer["actions_per_s"] else ""
        cpu = " + ".join(f"{c:.0f}" for c in r.get("server_cpu_pct", []))
        rss = " + ".join(f"{m:.0f}" for m in r.get("server_rss_mb", []))
        rows.append(
            f"| {r['config']} ×{r['processes']}{_by_room(r)} | {r['shape']} | {r['endpoint']} "
            f"| {r['rooms']} × {r['players']}{_watching(r)} "
            f"| {r['actions_per_s']:.1f} | {ratio} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['errors']} "
            f"| {cpu} | {r.get('server_cpu_ms_per_action', '')} | {_per_core_second(r)} | {rss} "
            f"| {r.get('machine_busy_pct', '')} |"
        )
    return "\n".join(rows)


# --- main --------------------------------------------------------------------------------


def shapes_from(args: argparse.Namespace) -> list[Shape]:
    shapes = []
    if args.shape in ("saturated", "both"):
        shapes.append(Shape("saturated", args.rooms, args.players, True, args.duration, args.warmup))
    if args.shape in ("human", "both"):
        shapes.append(
            Shape(
                "human",
                args.human_rooms,
                args.human_players,
                False,
                args.human_duration,
                2.0,
                spectators=args.spectators,
            )
        )
    return shapes


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    shapes = shapes_from(args)
    if args.url:
        return await run_config("external", 1, shapes, [args.url.rstrip("/")], [], endpoints=args.endpoints)
    runs = MATRIX if args.matrix else [(args.config, args.processes, args.placement)]
    results: list[dict[str, Any]] = []
    for config, processes, placement in runs:
        with (
            tempfile.TemporaryDirectory(prefix="yahtzee-load-") as tmp,
            started_servers(config, processes, Path(tmp)) as servers,
        ):
            pids = [s.proc.pid for s in servers if s.proc is not None]
            urls = [s.url for s in servers]
            results += await run_config(config, processes, shapes, urls, pids, placement, args.endpoints)
    return results


def print_table(path: Path) -> None:
    """The markdown table of figures written earlier with --json."""
    print(table(json.loads(path.read_text())))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", choices=CONFIGS, default="sqlite")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument(
        "--matrix",
        action="store_true",
        help="every configuration: " + ", ".join(f"{c} x{p}{' by room' if w == 'room' else ''}" for c, p, w in MATRIX),
    )
    parser.add_argument(
        "--placement",
        choices=("spread", "room"),
        default="spread",
        help="several processes: every room's players on all of them (spread), or each room on one (room)",
    )
    parser.add_argument(
        "--endpoints",
        choices=("both", "game", "bare"),
        default="both",
        help="the game's rooms, the bare broadcast's, or both (default); one alone halves an A/B run",
    )
    parser.add_argument("--shape", choices=("saturated", "human", "both"), default="both")
    parser.add_argument("--rooms", type=int, default=25, help="saturated: rooms (default 25)")
    parser.add_argument("--players", type=int, default=8, help="saturated: players a room (default 8)")
    parser.add_argument("--duration", type=float, default=20, help="saturated: seconds measured (default 20)")
    parser.add_argument("--warmup", type=float, default=3, help="saturated: seconds before measuring (default 3)")
    parser.add_argument("--human-rooms", type=int, default=100)
    parser.add_argument("--human-players", type=int, default=8)
    parser.add_argument("--human-duration", type=float, default=30)
    parser.add_argument(
        "--spectators",
        type=int,
        default=0,
        help="human pace, game rooms: idle sockets per room (no session) that must get every state too; "
        "100 rooms x 100 = 10,000 idle sockets",
    )
    parser.add_argument("--url", help="measure a server that is already running instead of starting one")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--profile", type=Path, help="py-spy each server process while measuring; stacks here")
    parser.add_argument("--table", type=Path, help="only print the table of a --json file")
    parser.add_argument("--pin-server", metavar="CPU", help="run the servers on this core (taskset -c CPU)")
    parser.add_argument("--pin-client", metavar="CPU", type=int, help="run this load generator on this core")
    args = parser.parse_args(argv)
    if args.pin_server is not None:
        if not shutil.which("taskset"):
            raise SystemExit("--pin-server needs taskset (util-linux)")
        SERVER_PREFIX[:] = ["taskset", "-c", args.pin_server]
    if args.pin_client is not None:
        os.sched_setaffinity(0, {args.pin_client})
    if args.table:
        print_table(args.table)
        return
    global PROFILE_DIR
    PROFILE_DIR = args.profile
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    started = time.perf_counter()
    results = asyncio.run(main_async(args))
    print()
    print(table(results))
    print(f"\n{time.perf_counter() - started:.0f} s in all; command: {' '.join(['bench/load.py', *sys.argv[1:]])}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

"""Benchmark of the Yahtzee bots: table builds, expected values, simulated games, decision latency.

Run from the project root::

    .venv/bin/python bench/bot.py [--games N] [--workers W] [--skip-build]

Prints figures only (no asserts):

* per exactly solved rule set, the table build time with 1 and 2 threads and the peak resident
  memory of the building process (each build in a fresh subprocess, into a temporary cache);
* the start state's expected value;
* mean ± standard error of N simulated optimal ``official`` games (default 20,000) played through
  the public API (``bots.decide`` + the rules engine), CPU time per game, and decision latency
  p50/p99 by rolls left (3 = turn start, 0 = after the third roll);
* means of the weaker levels, of the other rule sets and of the Triple heuristic (fewer games);
* Painted Yahtzee (no exact table: the one-turn search of ``bots.painted``): the bot's mean over
  ``--painted-games`` games (default 10,000) beside a greedy player's, and its decision latency.

``--painted-only`` runs just the Painted part.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import random  # noqa: E402

from bots import Action, Roll, Score, decide, tables  # noqa: E402
from bots.play import apply_action  # noqa: E402
from games.domain.rules import GameState, apply_start, get_ruleset, new_game  # noqa: E402

EXACT = ("official", "free_joker", "yeti", "yatzy")

_CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from bots import solver
from games.domain.rules import get_ruleset
model = solver.score_model(get_ruleset(sys.argv[2]))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
values = solver.build_values(model, threads=int(sys.argv[3]))
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "base_kb": base, "peak_kb": peak, "start": float(values[0, 0, 0]),
                  "table_mb": values.nbytes / 2**20}))
"""


def build_in_subprocess(name: str, threads: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, tables.CACHE_ENV: cache}
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, str(ROOT), name, str(threads)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
    return json.loads(out.stdout)


def greedy(state: GameState) -> Action:
    """The baseline: keep the dice of the most common value (the higher on a tie) for all three
    rolls, then score the legal box worth the most points now (the first such box on a tie)."""
    turn = state.turn
    if turn.dice and turn.rolls_left == 0 or len(set(turn.dice)) == 1:
        best = max((o for o in state.options() if o.legal), key=lambda o: o.points + o.bonus)
        return Score(best.box.value, best.column)
    if not turn.dice:
        return Roll()
    target = max(set(turn.dice), key=lambda v: (turn.dice.count(v), v))
    return Roll(tuple(i for i, d in enumerate(turn.dice) if d == target))


def play_games(job: tuple[str, str, int, int]) -> dict[str, object]:
    """Play seeds [start, stop) of one rule set and level: scores, CPU seconds per game and per decision."""
    name, level, start, stop = job
    ruleset = get_ruleset(name)
    scores: list[int] = []
    cpu: list[float] = []
    latency: dict[int, list[float]] = {3: [], 2: [], 1: [], 0: []}
    for seed in range(start, stop):
        rng = random.Random(seed)
        state = apply_start(new_game(ruleset, players=1))
        began = time.process_time()
        while not state.is_over:
            rolls_left = state.turn.rolls_left
            t = time.process_time()
            action = greedy(state) if level == "greedy" else decide(state, 0, level, rng)
            latency[rolls_left].append(time.process_time() - t)
            state = apply_action(state, 0, action, rng)
        cpu.append(time.process_time() - began)
        scores.append(state.totals(0).grand_total)
    return {"scores": scores, "cpu": cpu, "latency": latency}


def simulate(name: str, level: str, games: int, workers: int) -> dict[str, object]:
    step = max(1, min(500, games // (workers * 4) or 1))
    jobs = [(name, level, s, min(s + step, games)) for s in range(0, games, step)]
    scores: list[int] = []
    cpu: list[float] = []
    latency: dict[int, list[float]] = {3: [], 2: [], 1: [], 0: []}
    with ProcessPoolExecutor(workers) as pool:
        for part in pool.map(play_games, jobs):
            scores += part["scores"]  # type: ignore[operator]
            cpu += part["cpu"]  # type: ignore[operator]
            for k, v in part["latency"].items():  # type: ignore[attr-defined]
                latency[int(k)] += v
    return {"scores": scores, "cpu": cpu, "latency": latency}


def mean_se(values: list[int] | list[float]) -> str:
    mean = statistics.fmean(values)
    se = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else float("nan")
    return f"{mean:8.2f} ± {se:.2f}"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20000, help="optimal official games (default 20000)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="simulation processes")
    parser.add_argument("--skip-build", action="store_true", help="skip the build timings")
    parser.add_argument("--painted-games", type=int, default=10000, help="Painted games per player (default 10000)")
    parser.add_argument("--painted-only", action="store_true", help="only the Painted Yahtzee figures")
    args = parser.parse_args()
    if args.painted_only:
        painted(args.painted_games, args.workers)
        return
    games = args.games
    few = max(20, games // 10)

    print(
        f"# Yahtzee bot benchmark — {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, load {os.getloadavg()[0]:.2f}"
    )
    if not args.skip_build:
        print("\n## Table builds (fresh subprocess each, temporary cache)")
        print(
            f"{'rule set':<12} {'1 thread':>9} {'2 threads':>10} {'peak RSS':>9} {'(python+numpy)':>15} "
            f"{'table':>7} {'start value':>13}"
        )
        for name in EXACT:
            one = build_in_subprocess(name, 1)
            two = build_in_subprocess(name, 2)
            print(
                f"{name:<12} {one['seconds']:8.2f}s {two['seconds']:9.2f}s {one['peak_kb'] / 1024:7.0f}MB "
                f"{one['base_kb'] / 1024:13.0f}MB {one['table_mb']:5.1f}MB {one['start']:13.7f}",
                flush=True,
            )

    tables.build_all([*EXACT, "triple"])  # into the real cache, for the simulations
    print(f"\ntable cache: {tables.cache_dir()}")

    print(f"\n## {games} optimal official games (public API + rules engine, {args.workers} processes)")
    started = time.perf_counter()
    result = simulate("official", "optimal", games, args.workers)
    wall = time.perf_counter() - started
    scores, cpu, latency = result["scores"], result["cpu"], result["latency"]
    print(f"mean score          {mean_se(scores)}   (table: {tables.table('official').start_value:.4f})")  # type: ignore[arg-type]
    print(f"sd / min / max      {statistics.stdev(scores):8.2f} / {min(scores)} / {max(scores)}")  # type: ignore[arg-type]
    print(f"CPU per game        {statistics.fmean(cpu) * 1e3:8.2f} ms mean, {pct(cpu, 0.99) * 1e3:.2f} ms p99")  # type: ignore[arg-type]
    print(f"wall time           {wall:8.1f} s")
    print("decision latency (CPU ms)  rolls left: p50     p99     max    count")
    for rolls_left in (3, 2, 1, 0):
        lat = latency[rolls_left]  # type: ignore[index]
        print(
            f"                      {rolls_left}:        {pct(lat, 0.5) * 1e3:6.3f}  {pct(lat, 0.99) * 1e3:6.3f}  "
            f"{max(lat) * 1e3:6.2f}  {len(lat)}"
        )

    print(f"\n## Other levels and rule sets ({few} games each; triple {max(10, games // 40)})")
    for name, level, n in (
        ("official", "casual", few),
        ("official", "beginner", few),
        ("free_joker", "optimal", few),
        ("yeti", "optimal", few),
        ("yatzy", "optimal", few),
        ("triple", "optimal", max(10, games // 40)),
        ("triple", "casual", max(10, games // 40)),
    ):
        res = simulate(name, level, n, args.workers)
        ref = f"   (table: {tables.table(name).start_value:.4f})" if name != "triple" and level == "optimal" else ""
        cpu_ms = statistics.fmean(res["cpu"]) * 1e3  # type: ignore[arg-type]
        print(f"{name:<11} {level:<9} {mean_se(res['scores'])}   {cpu_ms:6.1f} ms/game{ref}", flush=True)  # type: ignore[arg-type]

    painted(args.painted_games, args.workers)


def painted(games: int, workers: int) -> None:
    print(
        f"\n## Painted Yahtzee: {games} games each, one-turn search vs greedy ({workers} processes, "
        f"load {os.getloadavg()[0]:.2f})"
    )
    for level in ("optimal", "greedy"):
        started = time.perf_counter()
        res = simulate("painted", level, games, workers)
        wall = time.perf_counter() - started
        scores = res["scores"]
        name = "bot (one-turn search)" if level == "optimal" else "greedy player"
        print(
            f"{name:<22} mean {mean_se(scores)}   sd {statistics.stdev(scores):6.2f}   "  # type: ignore[arg-type]
            f"min {min(scores)} max {max(scores)}   {statistics.fmean(res['cpu']) * 1e3:6.1f} ms/game   "  # type: ignore[arg-type]
            f"wall {wall:.0f} s",
            flush=True,
        )
        if level == "optimal":
            latency = res["latency"]
            every = [x for lat in latency.values() for x in lat]  # type: ignore[attr-defined]
            print(
                f"decision latency (CPU ms): all p50 {pct(every, 0.5) * 1e3:.3f}  p99 {pct(every, 0.99) * 1e3:.3f}  "
                f"max {max(every) * 1e3:.2f}  ({len(every)} decisions)"
            )
            for rolls_left in (3, 2, 1, 0):
                lat = latency[rolls_left]  # type: ignore[index]
                print(f"  rolls left {rolls_left}: p50 {pct(lat, 0.5) * 1e3:6.3f}  p99 {pct(lat, 0.99) * 1e3:6.3f}")


if __name__ == "__main__":
    main()

"""An action's cost in machine instructions: a figure the day's machine speed does not move.

    .venv/bin/python bench/instructions.py                        # this checkout, SQLite
    .venv/bin/python bench/instructions.py --against /tmp/before  # and another checkout beside it
    DATABASE_URL=postgres://... .venv/bin/python bench/instructions.py   # the PostgreSQL path

The CPU time of an action moves 2-4x between days on the development machines, and by
about 15 % between runs of one sitting, so a change worth a few per cent cannot be told
from noise by timing it. The instructions an action executes do not move: two runs of one
checkout play the same games (bench/actions.py --seed, with the same string hashes) and give
the same figure, whatever else the machine is doing.

It runs bench/actions.py (the services and the state frame of each action, in one thread,
no sockets) under valgrind's callgrind twice, once with ``--few`` and once with ``--many``
actions, and divides the difference of the two runs' instruction totals by the difference
of their actions: Python's and Django's start, the migrations and the rooms' setup are in
both runs and cancel out. What bench/actions.py does around each action (choosing it,
reading the room's state back as a socket would have it) is in the figure too, the same
code on both sides of a comparison unless the change touches it. On PostgreSQL the
database server's own work is not counted, only the application's side.

Instructions are not time: a change that trades instructions for cache misses or system
calls shows here as cheaper than it is. The CPU time (bench/actions.py, bench/load.py) and
the ratio to the peer (docs/performance.md) stay the figures of record; this one tells a
small change's direction and size. Each run takes a few minutes (callgrind runs the
program about 50 times slower); the runs go two at a time.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOTAL = re.compile(r"^(?:summary|totals):\s+(\d+)", re.MULTILINE)


def instructions(tree: Path, actions: int, rooms: int, sqlite: bool, out: Path) -> int:
    """The instructions bench/actions.py in ``tree`` executes playing ``actions`` actions."""
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out}",
        sys.executable,
        str(tree / "bench" / "actions.py"),
        "--rooms",
        str(rooms),
        "--actions",
        str(actions),
        "--seed",
        "1",
        *(["--sqlite"] if sqlite else []),
    ]
    # Bytecode is written by ``warm`` before the pair runs, and read by both.
    # The same games in every run (--seed), and the same string hashes (dicts and sets probe alike).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"PYTHONHASHSEED": "0"}
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench/actions.py failed under callgrind in {tree}:\n{done.stderr[-3000:]}")
    found = TOTAL.search(out.read_text(errors="replace"))
    if found is None:
        raise SystemExit(f"callgrind wrote no total to {out}")
    return int(found.group(1))


def warm(tree: Path, sqlite: bool) -> None:
    """bench/actions.py in ``tree`` run once, outside callgrind, for one action: a fresh checkout's
    bytecode is written then, not by the two measured runs at once (which would race to compile
    it, each paying for whatever the other had not written yet, and skew their difference)."""
    command = [sys.executable, str(tree / "bench" / "actions.py"), "--rooms", "1", "--actions", "1", "--seed", "1"]
    command += ["--sqlite"] if sqlite else []
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"PYTHONHASHSEED": "0"}
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench/actions.py failed in {tree}:\n{done.stderr[-3000:]}")


def per_action(tree: Path, args: argparse.Namespace, scratch: Path, pool: ThreadPoolExecutor) -> float:
    warm(tree, args.sqlite)
    few, many = (
        pool.submit(instructions, tree, n, args.rooms, args.sqlite, scratch / f"{n}.out") for n in (args.few, args.many)
    )
    return (many.result() - few.result()) / (int(args.many) - int(args.few))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--against",
        type=Path,
        help="another checkout, measured after this one by its own bench/actions.py (copy this one's there)",
    )
    parser.add_argument("--few", type=int, default=100, help="actions of the shorter run (default 100)")
    parser.add_argument("--many", type=int, default=1100, help="actions of the longer run (default 1100)")
    parser.add_argument("--rooms", type=int, default=5, help="rooms of 8 players (default 5)")
    parser.add_argument("--sqlite", action="store_true", help="a fresh SQLite file even if DATABASE_URL is set")
    args = parser.parse_args(argv)
    if args.many <= args.few or args.few < 1:
        parser.error("--many must be larger than --few, and --few at least 1")
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is needed (Debian: apt-get install valgrind)")
    trees = [ROOT] + ([args.against.resolve()] if args.against else [])
    for tree in trees:
        if not (tree / "bench" / "actions.py").exists():
            raise SystemExit(f"{tree} has no bench/actions.py")
    database = "sqlite" if args.sqlite or not os.environ.get("DATABASE_URL") else "postgresql"
    figures = []
    with ThreadPoolExecutor(2) as pool:
        for tree in trees:
            with tempfile.TemporaryDirectory(prefix="yahtzee-instructions-") as scratch:
                figures.append((tree, per_action(tree, args, Path(scratch), pool)))
    for tree, figure in figures:
        print(f"{database}: {figure / 1e6:.3f} million instructions per action  ({tree})")
    if len(figures) == 2:
        print(f"this checkout ÷ the other: {figures[0][1] / figures[1][1]:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

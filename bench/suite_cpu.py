"""Where a command's CPU goes, by kind of process: what keeps the test suite within its minutes.

    .venv/bin/python bench/suite_cpu.py -- .venv/bin/pytest -n 3 --dist worksteal -q
    .venv/bin/python bench/suite_cpu.py -- make test

It runs the command and reads /proc twice a second meanwhile: each process's CPU time
(user + system) as last seen, summed by kind (Chromium by its ``--type``, the Playwright
driver, the test processes, the servers the tests start, ``manage.py`` commands, PostgreSQL's
backends, Redis, Caddy). It counts every process on the machine that was seen running while
the command ran, started or not by it, so run it on an otherwise quiet machine; a process
that started and ended between two looks is missed, and the CPU of a long-lived one (Redis, a
PostgreSQL server started before) is its total since it started. ``--own`` counts only the
command and the processes it started (their children, and theirs): on a machine shared with
other work, the CPU of one command's run, without PostgreSQL's and Redis's. Linux only.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def kind(command: str) -> str:
    """The kind of process a command line is."""
    if "chromium" in command or "chrome" in command:
        return "chromium " + (command.split("--type=")[1].split()[0] if "--type=" in command else "browser")
    if "node" in command and "playwright" in command:
        return "playwright driver"
    if "postgres" in command:
        return "postgresql"
    if "redis-server" in command:
        return "redis"
    if "caddy" in command:
        return "caddy"
    if "yahtzee.serve" in command or "daphne" in command or "granian_server" in command or "runserver" in command:
        return "server"
    if "exec(eval(" in command:
        return "test process (xdist)"
    if "pytest" in command:
        return "pytest"
    words = command.split()
    if "manage.py" in words:
        rest = words[words.index("manage.py") + 1 :]
        return "manage.py " + (rest[0] if rest else "")
    if "python" in command:
        return "other python"
    return "other"


def seen(parents: dict[int, int] | None = None) -> dict[int, tuple[float, str]]:
    """Every process's CPU seconds so far and its kind, by pid (``parents``: filled with each one's parent)."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if not command:
            continue  # a kernel thread
        fields = stat.rsplit(")", 1)[1].split()
        if parents is not None:
            parents[int(entry.name)] = int(fields[1])
        out[int(entry.name)] = ((int(fields[11]) + int(fields[12])) / TICK, kind(command))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--own", action="store_true", help="count only the command and what it started")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("a command to run: bench/suite_cpu.py -- COMMAND ...")
    if not Path("/proc/self/stat").exists():
        raise SystemExit("/proc is needed (Linux)")
    before = seen()
    last: dict[int, tuple[float, str]] = {}
    started = time.monotonic()
    process = subprocess.Popen(command)
    ours = {process.pid}
    while process.poll() is None:
        parents: dict[int, int] = {}
        now = seen(parents)
        if args.own:
            # A child is seen while its parent lives (a Chromium under the Playwright driver under
            # pytest); a process gone is forgotten, so that its pid given to another is not counted.
            ours &= parents.keys()
            grown = True
            while grown:
                grown = False
                for pid, parent in parents.items():
                    if parent in ours and pid not in ours:
                        ours.add(pid)
                        grown = True
            now = {pid: each for pid, each in now.items() if pid in ours}
        for pid, (cpu, what) in now.items():
            # A process alive before the command counts only what it used since.
            last[pid] = (cpu - before[pid][0] if pid in before and before[pid][1] == what else cpu, what)
        time.sleep(0.5)
    wall = time.monotonic() - started
    by_kind: dict[str, float] = {}
    count: Counter[str] = Counter()
    for cpu, what in last.values():
        by_kind[what] = by_kind.get(what, 0.0) + cpu
        count[what] += 1
    total = sum(by_kind.values())
    print(f"\n{wall:.0f} s of wall time, {total:.0f} s of CPU seen ({100 * total / max(wall, 1e-9):.0f} % of one core)")
    print("| kind | CPU s | share | processes |\n|---|---:|---:|---:|")
    for what, cpu in sorted(by_kind.items(), key=lambda item: -item[1]):
        print(f"| {what} | {cpu:.1f} | {100 * cpu / max(total, 1e-9):.0f} % | {count[what]} |")
    return process.returncode


if __name__ == "__main__":
    sys.exit(main())

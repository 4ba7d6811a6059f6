"""Figures for bench/load.py: latency percentiles and the CPU and memory of processes (from /proc)."""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field

TICKS = os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100), nearest rank; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


@dataclass
class ProcessMeter:
    """CPU (% of one core) and peak memory of some processes over a window."""

    pids: list[int]
    started: float = 0.0
    cpu_start: dict[int, float] = field(default_factory=dict)
    machine_start: tuple[float, float] = (0.0, 0.0)
    peak_rss: dict[int, float] = field(default_factory=dict)

    def start(self) -> None:
        self.started = time.perf_counter()
        self.cpu_start = {pid: cpu_seconds(pid) for pid in self.pids}
        self.machine_start = machine_busy()
        self.sample()

    def sample(self) -> None:
        for pid in self.pids:
            with contextlib.suppress(FileNotFoundError):
                self.peak_rss[pid] = max(self.peak_rss.get(pid, 0.0), rss_mb(pid))

    def stop(self) -> dict[str, object]:
        self.sample()
        wall = time.perf_counter() - self.started
        cpu = {}
        for pid in self.pids:
            try:
                cpu[pid] = round(100 * (cpu_seconds(pid) - self.cpu_start[pid]) / wall, 1)
            except FileNotFoundError:
                cpu[pid] = float("nan")
        busy, total = machine_busy()
        machine = 100 * (busy - self.machine_start[0]) / max(1.0, total - self.machine_start[1])
        return {
            "server_cpu_pct": [cpu[p] for p in self.pids],
            "server_rss_mb": [round(self.peak_rss.get(p, 0.0), 1) for p in self.pids],
            "machine_busy_pct": round(machine, 1),
        }

"""bench/suite_cpu.py: the CPU of one command's processes, on a machine busy with other work."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bench import suite_cpu

# A command whose child keeps busy a second and a half: seen at the bench's looks, twice a second.
BUSY = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end: pass"
COMMAND = f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {BUSY.format(seconds=1.5)!r}])"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_own_counts_the_command_and_the_process_it_started_and_no_other_work(
    capsys: pytest.CaptureFixture[str],
) -> None:
    other = subprocess.Popen([sys.executable, "-c", BUSY.format(seconds=10)])
    try:
        assert suite_cpu.main(["--own", "--", sys.executable, "-c", COMMAND]) == 0
    finally:
        other.kill()
        other.wait()
    rows = [line.split("|")[1:-1] for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    counted = {kind.strip(): int(processes) for kind, _, _, processes in rows[1:]}
    assert counted == {"other python": 2}, rows

"""``python -m yahtzee.install [--dev]``: the project's packages into ./.venv, in one install.

Run by ``make run`` (the server's packages) and ``make test`` (``--dev``: the project itself,
editable, with the tools and test packages) with the Python that makes the virtualenv; the
standard library only, since nothing else is installed yet. It says what it does and how far
along it is, and shows the installer's own output only when it fails.

The installer is uv (``uv pip install``, put into the virtualenv by pip first, about 3 s) and
pip when uv cannot be had or fails (or ``YAHTZEE_INSTALLER=pip``). uv fetches and unpacks the
packages in parallel: on a fresh clone on a 2-core machine the server's 71 packages take it
about 6 s, where pip, which asks the index for one package after another, takes 30-50 s, half
of a first ``make run``. pip's path stays as the fallback and is kept fast too:

* one ``pip install`` resolves everything at once; pip upgrades itself in that same run only
  when the virtualenv's is too old (``MIN_PIP``), never in a run of its own;
* a new virtualenv is made without pip when the Python making it has a pip that can install
  into another interpreter (``--python``, pip 22.3+): ``ensurepip`` would spend about 8 s
  unpacking and compiling a pip that this install then brings anyway;
* ``--no-compile``: pip compiles every module of every package (about 20 s of CPU for the dev
  set); Python compiles, and caches, only those a process imports, the first time it does;
* ``make run`` installs the server's dependencies and not the project itself, which it runs
  from the checkout: building the editable wheel needs a setuptools of its own (a download
  and an isolated build, about 4 s).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# pip older than this is upgraded within the install (23.1: PEP 660 editable installs, the
# resolver's backtracking fixes, --python; the pip 3.11's ensurepip bundles is 23.2).
MIN_PIP = (23, 1)
PIP_CAN_TARGET = (22, 3)  # ``pip --python``: install into another interpreter
COLLECTING = re.compile(r"^Collecting (\S+)")
INSTALLING = re.compile(r"^Installing collected packages: (.+)$")


def version_of(text: str) -> tuple[int, ...]:
    """``23.2.1`` → (23, 2, 1); () when the text is no version."""
    found = re.match(r"\s*(\d+(?:\.\d+)*)", text)
    return tuple(int(part) for part in found.group(1).split(".")) if found else ()


def pip_version(python: str) -> tuple[int, ...]:
    """The version of the pip ``python`` has, or () when it has none (read from its metadata: no pip started)."""
    if python == sys.executable:
        try:
            return version_of(metadata.version("pip"))
        except metadata.PackageNotFoundError:
            return ()
    ask = "from importlib.metadata import version; print(version('pip'))"
    try:
        done = subprocess.run([python, "-c", ask], capture_output=True, text=True, timeout=60)
    except OSError:
        return ()
    return version_of(done.stdout) if done.returncode == 0 else ()


def requirements(dev: bool) -> list[str]:
    """What to install: the project with its dev extra (editable), or only the server's dependencies."""
    if dev:
        return ["-e", f"{ROOT}[dev]"]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return list(project["dependencies"])


def pip_command(venv: Path, base: str, dev: bool) -> list[str]:
    """The one ``pip install`` that brings ``venv`` up to date, making the virtualenv first if it is missing."""
    runner, venv_pip = pip_runner(venv, base)
    # The virtualenv gets its own pip in the same run when it has none, or an old one.
    extra = [] if venv_pip >= MIN_PIP else [f"pip>={'.'.join(map(str, MIN_PIP))}"]
    return [*runner, "install", "--no-compile", "--progress-bar", "off", *extra, *requirements(dev)]


def pip_runner(venv: Path, base: str) -> tuple[list[str], tuple[int, ...]]:
    """How to run a pip that installs into ``venv`` (made first if missing), and the virtualenv's own pip's version."""
    python = venv / "bin" / "python"
    base_pip = pip_version(base)
    if not python.exists():
        lean = base_pip >= PIP_CAN_TARGET
        subprocess.run([base, "-m", "venv", *(["--without-pip"] if lean else []), str(venv)], check=True)
    venv_pip = pip_version(str(python))
    if venv_pip:
        runner = [str(python), "-m", "pip"]
    elif base_pip >= PIP_CAN_TARGET:
        runner = [base, "-m", "pip", "--python", str(python)]
    else:
        subprocess.run([str(python), "-m", "ensurepip", "--upgrade"], check=True, capture_output=True)
        runner, venv_pip = [str(python), "-m", "pip"], pip_version(str(python))
    return runner, venv_pip


def uv_command(venv: Path, base: str, dev: bool) -> list[str] | None:
    """The one ``uv pip install`` that brings ``venv`` up to date (uv put into it by pip first); None without uv."""
    uv = venv / "bin" / "uv"
    if not uv.exists():
        runner, _ = pip_runner(venv, base)
        got = subprocess.run(
            [*runner, "install", "--no-compile", "--progress-bar", "off", "--quiet", "uv"],
            capture_output=True,
            text=True,
            env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        )
        if got.returncode != 0 or not uv.exists():
            return None
    return [str(uv), "pip", "install", "--python", str(venv / "bin" / "python"), *requirements(dev)]


class UvProgress:
    """uv's output as a few lines: what it resolved, fetched and installed, each with its time."""

    SUMMARY = re.compile(r"^(Resolved|Prepared|Installed|Uninstalled|Audited) (\d+) packages?( in .+)?$")

    def __init__(self, show: Callable[[str, bool], None]) -> None:
        self.show = show
        self.total = 0
        self.lines: list[str] = []

    def feed(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.lines.append(line)
            found = self.SUMMARY.match(line.strip())
            if found:
                self.show(f"  {found.group(0)[0].lower()}{found.group(0)[1:]}", True)
                if found.group(1) == "Installed":
                    self.total = int(found.group(2))


class Progress:
    """Turns pip's output into a few lines: how many packages resolving has found, then installed of how many.

    ``show(text, final)``: a ``final`` line stays; the others may be written over by the next
    (on a terminal they are: one line counts up). At most one of those every ``every`` seconds.
    """

    def __init__(
        self, show: Callable[[str, bool], None], site_packages: Callable[[], int], *, every: float = 5.0
    ) -> None:
        self.show = show
        self.count_installed = site_packages
        self.every = every
        self.found = 0
        self.total = 0
        self.before = 0
        self.last = 0.0
        self.lines: list[str] = []
        self._done = threading.Event()

    def feed(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.lines.append(line)
            text = line.strip()
            if COLLECTING.match(text):
                self.found += 1
                now = time.monotonic()
                if now - self.last >= self.every:
                    self.last = now
                    self.show(f"  resolving: {self.found} packages so far", False)
            elif found := INSTALLING.match(text):
                self.total = len([name for name in found.group(1).split(",") if name.strip()])
                self.show(f"  resolved: installing {self.total} packages", True)
                self.before = self.count_installed()
                threading.Thread(target=self._watch, name="install-progress", daemon=True).start()
        self._done.set()

    def _watch(self) -> None:
        # pip says nothing while it unpacks: count the packages that appear in site-packages.
        shown = 0
        while not self._done.wait(max(self.every, 0.1)):
            done = min(max(self.count_installed() - self.before, 0), self.total)
            if done > shown:
                shown = done
                self.show(f"  installing: {done} of {self.total}", False)


def count_dist_infos(venv: Path) -> Callable[[], int]:
    def count() -> int:
        return sum(1 for _ in venv.glob("lib/python3*/site-packages/*.dist-info"))

    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dev", action="store_true", help="the project itself (editable), its tools and tests")
    parser.add_argument("--venv", default=".venv", help="the virtualenv (default: .venv)")
    args = parser.parse_args(argv)
    venv = Path(args.venv).absolute()
    started = time.monotonic()

    terminal = sys.stdout.isatty()

    def show(text: str, final: bool = True) -> None:
        # On a terminal a passing count is written over by the next line; in a log each stays.
        if terminal:
            sys.stdout.write("\r\033[K" + text + ("\n" if final else ""))
        else:
            sys.stdout.write(text + "\n")
        sys.stdout.flush()

    what = "the server's, the tools' and the tests' packages" if args.dev else "the server's packages"
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONUNBUFFERED": "1"}

    def run(command: list[str], progress: Progress | UvProgress) -> int:
        """The installer's exit status, its output fed to ``progress``; on success, the last line."""
        with subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT
        ) as installer:
            assert installer.stdout is not None
            progress.feed(installer.stdout)
        if installer.returncode == 0:
            installed = f"{progress.total} packages installed" if progress.total else "everything was already installed"
            show(f"Done in {time.monotonic() - started:.0f} s: {installed}.")
        else:  # its own output, which was kept, says why
            sys.stdout.write("".join(progress.lines))
        return installer.returncode

    if os.environ.get("YAHTZEE_INSTALLER", "uv") != "pip":
        show(f"Installing {what} into {venv} (one uv install; seconds, a minute at most the first time)...")
        uv = uv_command(venv, sys.executable, args.dev)
        if uv is None:
            show("uv could not be installed; installing with pip instead.")
        elif (status := run(uv, UvProgress(show))) == 0:
            return 0
        else:
            show(f"uv failed (exit status {status}); installing with pip instead.")
    show(f"Installing {what} into {venv} (one pip install; a minute or so the first time)...")
    command = pip_command(venv, sys.executable, args.dev)
    status = run(command, Progress(show, count_dist_infos(venv), every=0.5 if terminal else 5.0))
    if status != 0:
        show(f"pip failed (exit status {status}): {' '.join(command)}")
    return status


if __name__ == "__main__":
    sys.exit(main())

"""Solved tables: built once, cached on disk, loaded on demand, never built by surprise.

Each one-column rule set gets one ``.npy`` file of its state values (8-17 MB) in the cache
directory: ``$YAHTZEE_BOT_CACHE`` if set, else ``var/bots/`` under the project root (the
directory holding the ``bots`` package, when it has a ``pyproject.toml`` or ``manage.py``),
else ``var/bots/`` under the working directory. The file name carries a fingerprint of the
scores read from ``games.domain.rules`` (see ``ScoreModel.fingerprint``), so a change to the rules
makes the old file unused rather than wrong; rule sets that score alike share a file.

Building takes seconds, so a web request must never trigger it:

* ``ready(ruleset)`` is cheap and says whether ``table(ruleset, build=False)`` will answer
  (in memory, or a cache file to load in milliseconds);
* ``build_all(rulesets)`` builds and saves what is missing, for a management command or a
  background thread at start-up;
* ``table(ruleset)`` loads or, with ``build=True`` (the default, for scripts and tests),
  builds; with ``build=False`` it raises ``TableNotReady`` instead;
* ``build_seconds(ruleset)`` says how long a build takes: the last one measured on this
  machine (kept beside the tables in ``build-seconds.json``), else a measured default.

Triple Yahtzee has no exact table; its heuristic uses the table of its single column
(``column_ruleset``), which scores like ``official``.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from functools import cache
from pathlib import Path

import numpy as np

from games.domain.rules import RULESETS, RuleSet, get_ruleset

from .solver import ScoreModel, Table, build_values, score_model

CACHE_ENV = "YAHTZEE_BOT_CACHE"

_tables: dict[str, Table] = {}  # by fingerprint
_lock = threading.RLock()
_key_locks: dict[str, threading.Lock] = {}
_preset_models: dict[str, ScoreModel] = {}

# Seconds one build takes (one thread, a quiet 2-core machine), by rule set: what an estimate
# starts from until this machine has built the table once (``build_seconds``). Triple builds
# the table of its column, which is official's.
BUILD_SECONDS = {"official": 16.0, "free_joker": 11.0, "yeti": 9.0, "triple": 16.0, "yatzy": 31.0}
UNKNOWN_BUILD_SECONDS = 30.0  # a rule set with no default (a variant made in a test or a script)
TIMES_FILE = "build-seconds.json"


class TableNotReady(RuntimeError):
    """The rule set's table is neither in memory nor on disk, and building was not allowed."""


# Table files are read by whichever user serves (the image builds them as root, serves as another).
READABLE = 0o644


def cache_dir() -> Path:
    """Where table files live (not created until a table is saved)."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    return _default_cache_dir()


@cache
def _default_cache_dir() -> Path:
    # Looked up once: a server asks whether a table is ready for every state it sends.
    root = Path(__file__).resolve().parent.parent
    if (root / "pyproject.toml").exists() or (root / "manage.py").exists():
        return root / "var" / "bots"
    return Path.cwd() / "var" / "bots"


def column_ruleset(ruleset: RuleSet) -> RuleSet:
    """The one-column rule set whose exact table serves ``ruleset`` (itself when it has one column)."""
    if ruleset.columns == 1:
        return ruleset
    return replace(ruleset, name=f"{ruleset.name}_column", columns=1, multipliers=(1,))


def needs_table(ruleset: RuleSet | str) -> bool:
    """Whether the bot of ``ruleset`` reads a solved table (every rule set but Painted Yahtzee)."""
    rs = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    return not rs.colours


def _model(ruleset: RuleSet | str) -> ScoreModel:
    rs = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    # score_model's own cache compares whole rule sets (about 15 µs a call, and a server asks
    # for every state it sends): the presets, the same objects every time, are found by name.
    preset = RULESETS.get(rs.name) is rs
    found = _preset_models.get(rs.name) if preset else None
    if found is None:
        found = score_model(column_ruleset(rs))
        if preset:
            _preset_models[rs.name] = found
    return found


def cache_path(ruleset: RuleSet | str) -> Path:
    """The cache file of the table serving ``ruleset``."""
    model = _model(ruleset)
    rs = model.ruleset
    return cache_dir() / f"{rs.scoring}-{rs.joker}-{model.fingerprint()}.npy"


def ready(ruleset: RuleSet | str) -> bool:
    """True when ``table(ruleset, build=False)`` will answer without building.

    Painted Yahtzee has no table (its bot is the heuristic of ``bots.painted``): always ready.
    """
    if not needs_table(ruleset):
        return True
    model = _model(ruleset)
    if model.fingerprint() in _tables:
        return True
    path = cache_path(ruleset)
    # A file this process cannot read, or one that failed to load, is no table: the builder
    # makes it again (where it can write), and the bots and the coach wait meanwhile.
    return path.exists() and os.access(path, os.R_OK) and model.fingerprint() not in _unloadable


_unloadable: set[str] = set()  # fingerprints whose cache file failed to load in this process


def _load(model: ScoreModel, path: Path) -> Table | None:
    try:
        values = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        _unloadable.add(model.fingerprint())
        return None
    if values.shape != model.shape or values.dtype != np.float64:
        _unloadable.add(model.fingerprint())
        return None
    _unloadable.discard(model.fingerprint())
    return Table(model, values)


def _save(values: np.ndarray, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".tmp")
    try:
        os.fchmod(fd, READABLE)  # mkstemp's 0600 would keep the table from the server's own user
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, values, allow_pickle=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def table(ruleset: RuleSet | str, *, build: bool = True, threads: int = 1) -> Table:
    """The solved table serving ``ruleset``: from memory, else the cache file, else built and saved.

    With ``build=False`` a missing table raises ``TableNotReady`` instead of building.
    """
    if not needs_table(ruleset):
        raise ValueError("Painted Yahtzee has no solved table: its bot is the heuristic of bots.painted")
    model = _model(ruleset)
    key = model.fingerprint()
    found = _tables.get(key)
    if found is not None:
        return found
    path = cache_path(ruleset)
    # One lock per table: building one rule set (seconds) never holds up loading another.
    with _lock:
        key_lock = _key_locks.setdefault(key, threading.Lock())
    with key_lock:
        found = _tables.get(key)
        if found is None and path.exists():
            found = _load(model, path)
        if found is None:
            if not build:
                raise TableNotReady(f"no solved table for {model.ruleset.name} yet (run build_all)")
            with _file_lock(path):
                # Another process may have built it while this one waited for the lock.
                found = _load(model, path) if path.exists() else None
                if found is None:
                    started = time.perf_counter()
                    values = build_values(model, threads=threads)
                    with suppress(OSError):  # a read-only cache still leaves the table in memory
                        _save(values, path)
                        if threads == 1:  # the estimate is of a one-thread build (the server's)
                            _record_seconds(path, time.perf_counter() - started)
                    found = Table(model, values)
        _tables[key] = found
        return found


def build_seconds(ruleset: RuleSet | str) -> float:
    """How long building the table serving ``ruleset`` takes, in seconds: an estimate.

    The last build of that very table on this machine (``TIMES_FILE`` beside the tables), else
    the rule set's default (``BUILD_SECONDS``).
    """
    rs = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    measured = _measured().get(cache_path(rs).stem)
    if isinstance(measured, int | float) and measured > 0:
        return float(measured)
    return BUILD_SECONDS.get(rs.name, UNKNOWN_BUILD_SECONDS)


def _measured() -> dict[str, object]:
    try:
        found = json.loads((cache_dir() / TIMES_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _record_seconds(path: Path, seconds: float) -> None:
    """Keep how long the table saved at ``path`` took to build (``build_seconds``)."""
    times = _measured()
    times[path.stem] = round(seconds, 1)
    target = path.parent / TIMES_FILE
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="build-seconds", suffix=".tmp")
    try:
        os.fchmod(fd, READABLE)
        with os.fdopen(fd, "w") as fh:
            json.dump(times, fh, indent=1, sort_keys=True)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Serialise builds of one table across processes (best effort: no lock if it cannot be made)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(path.with_suffix(".lock"), "a")  # noqa: SIM115
    except OSError:
        yield
        return
    with fh:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            yield
            return
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def build_all(
    rulesets: Iterable[RuleSet | str] | None = None, *, force: bool = False, threads: int | None = None
) -> dict[str, float]:
    """Make sure every rule set's table is built and saved; seconds spent per rule set name.

    ``rulesets`` defaults to every preset (Triple builds its column table). ``force`` rebuilds
    even when a cache file exists. ``threads`` defaults to the CPU count (at most 4).
    """
    if threads is None:
        threads = min(4, os.cpu_count() or 1)
    spent: dict[str, float] = {}
    for item in RULESETS.values() if rulesets is None else rulesets:
        rs = get_ruleset(item) if isinstance(item, str) else item
        if not needs_table(rs):
            continue
        started = time.perf_counter()
        if force:
            with _lock:
                model = _model(rs)
                _tables.pop(model.fingerprint(), None)
                cache_path(rs).unlink(missing_ok=True)
        table(rs, build=True, threads=threads)
        spent[rs.name] = time.perf_counter() - started
    return spent


def forget() -> None:
    """Drop every table held in memory, and what this process knows of files that failed to load
    (tests, each with a cache folder of its own; the cache files stay)."""
    with _lock:
        _tables.clear()
        _unloadable.clear()

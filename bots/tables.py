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
  builds; with ``build=False`` it raises ``TableNotReady`` instead.

Triple Yahtzee has no exact table; its heuristic uses the table of its single column
(``column_ruleset``), which scores like ``official``.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from pathlib import Path

import numpy as np

from games.domain.rules import RULESETS, RuleSet, get_ruleset

from .solver import ScoreModel, Table, build_values, score_model

CACHE_ENV = "YAHTZEE_BOT_CACHE"

_tables: dict[str, Table] = {}  # by fingerprint
_lock = threading.RLock()
_key_locks: dict[str, threading.Lock] = {}


class TableNotReady(RuntimeError):
    """The rule set's table is neither in memory nor on disk, and building was not allowed."""


def cache_dir() -> Path:
    """Where table files live (not created until a table is saved)."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
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
    return score_model(column_ruleset(rs))


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
    return model.fingerprint() in _tables or cache_path(ruleset).exists()


def _load(model: ScoreModel, path: Path) -> Table | None:
    try:
        values = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    if values.shape != model.shape or values.dtype != np.float64:
        return None
    return Table(model, values)


def _save(values: np.ndarray, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".tmp")
    try:
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
                    values = build_values(model, threads=threads)
                    with suppress(OSError):  # a read-only cache still leaves the table in memory
                        _save(values, path)
                    found = Table(model, values)
        _tables[key] = found
        return found


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
    """Drop every table held in memory (tests; the cache files stay)."""
    with _lock:
        _tables.clear()

"""``manage.py run_scheduler``: a process of its own plays what is due, with no server and no socket."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from tests.live import ROOT, dies_with_tests, migrate_sqlite, released, server_env


def test_the_scheduler_process_times_a_turn_out_with_no_server_running(tmp_path: Path) -> None:
    env = server_env(DATA_DIR=str(tmp_path), SECRET_KEY=f"sched-{uuid.uuid4().hex}", SCHEDULER_POLL="0.1")
    for name in ("DATABASE_URL", "REDIS_URL", "CHANNEL_LAYER"):
        env.pop(name, None)
    migrate_sqlite(env)
    made = subprocess.run([sys.executable, "-c", MAKE_TIMED_ROOM], cwd=ROOT, env=env, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    code = made.stdout.strip()
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "run_scheduler"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    dies_with_tests(proc)
    try:
        deadline = time.monotonic() + 30
        kinds: list[str] = []
        while time.monotonic() < deadline:
            kinds = moves(env, code)
            if "score" in kinds:
                break
            time.sleep(0.1)
        assert kinds[-3:] == ["timeout", "roll", "score"], kinds
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        output = proc.communicate(timeout=20)[0].decode()
        released(proc)
    assert proc.returncode == 0, output
    assert "scheduler running" in output


@pytest.mark.parametrize("poll", ["0", "-2", "nan", "inf"])
def test_a_poll_that_is_no_time_apart_is_refused_before_the_scheduler_starts(
    poll: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--poll 0`` swept with no pause at all, as fast as the database answered."""
    from games.management.commands import run_scheduler

    started: list[float] = []

    async def run(self: run_scheduler.Command) -> None:
        started.append(settings.SCHEDULER_POLL)

    monkeypatch.setattr(run_scheduler.Command, "_run", run)
    with pytest.raises(CommandError, match="--poll is a number of seconds, more than 0"):
        call_command("run_scheduler", "--poll", poll)
    assert started == []


@pytest.mark.parametrize("command", ["run_scheduler", "scheduler_health"])
def test_a_health_check_window_of_no_polls_is_refused_as_the_scheduler_or_its_health_check_starts(
    command: str, tmp_path: Path
) -> None:
    """With ``SCHEDULER_STALE_POLLS=0`` the scheduler would run and fail each of its health checks
    however recent its last round, with no word of the setting: both refuse to start, naming it."""
    env = server_env(DATA_DIR=str(tmp_path), SCHEDULER_STALE_POLLS="0")
    started = subprocess.run(
        [sys.executable, "manage.py", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert started.returncode != 0
    assert "SCHEDULER_STALE_POLLS='0' is a whole number of polls, more than 0." in started.stderr
    assert "scheduler running" not in started.stdout


def moves(env: dict[str, str], code: str) -> list[str]:
    """The room's moves, read from the embedded default's SQLite file (a Django start per look was seconds of CPU)."""
    with contextlib.closing(sqlite3.connect(Path(env["DATA_DIR"]) / "yahtzee.sqlite3")) as db:
        rows = db.execute(
            "SELECT m.kind FROM games_move m JOIN games_game g ON g.id = m.game_id WHERE g.code = ? ORDER BY m.seq",
            [code],
        ).fetchall()
    return [kind for (kind,) in rows]


# A two-player room with a 30 s timer, started, its deadline already past (as after a day away).
MAKE_TIMED_ROOM = """
import os; os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yahtzee.settings")
import django; django.setup()
from datetime import timedelta
from django.utils import timezone
from games import services
from games.store.models import Game
a, b = services.new_controller(), services.new_controller()
game = services.game_create(host_name="Ann", controller=a, turn_timer=30).game
services.game_join(code=game.code, name="Bob", controller=b)
services.game_start(code=game.code, controller=a, expected_version=None, action_id="s")
past = timezone.now() - timedelta(seconds=1)
Game.objects.filter(code=game.code).update(turn_deadline=past, due_at=past)
print(game.code)
"""

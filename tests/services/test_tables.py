"""The coach's and the bots' tables are ready before the first game: built at server start, awaited by the review."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, override_settings

import bots
from games.scheduling import botplay
from games.services import tables
from tests.factories import open_room, play_to_end
from tests.live import ROOT, server_env

START_PROBE = "import threading, yahtzee.asgi; print(sorted(t.name for t in threading.enumerate()))"


def serving_threads(tmp_path: Path, **env: str) -> str:
    """The threads of a process that has just loaded the server's application."""
    cache = str(tmp_path / "bots")
    run_env = server_env(DATA_DIR=str(tmp_path), SECRET_KEY="tables-test", YAHTZEE_BOT_CACHE=cache, **env)
    for name in ("DATABASE_URL", "REDIS_URL", "CHANNEL_LAYER"):
        run_env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-c", START_PROBE], cwd=ROOT, env=run_env, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_a_server_with_no_tables_starts_building_them_as_it_starts(tmp_path: Path) -> None:
    assert "bot-tables-at-start" in serving_threads(tmp_path, BOT_TABLES_AT_START="1")


def test_the_start_up_build_can_be_turned_off(tmp_path: Path) -> None:
    assert "bot-tables-at-start" not in serving_threads(tmp_path, BOT_TABLES_AT_START="0")


def test_the_start_up_build_makes_each_missing_table_once(monkeypatch: pytest.MonkeyPatch) -> None:
    on_disk = {"official"}
    built: list[str] = []

    def ready(ruleset: Any) -> bool:
        name = ruleset if isinstance(ruleset, str) else ruleset.name
        # free_joker, yeti and triple's column share official's scoring in this fake cache.
        return name in on_disk or (name in ("free_joker", "triple") and "official" in on_disk)

    def table(ruleset: Any, *, build: bool = True) -> None:
        assert build
        built.append(ruleset.name)
        on_disk.add(ruleset.name)

    monkeypatch.setattr(bots, "ready", ready)
    monkeypatch.setattr(bots.tables, "table", table)
    assert tables.missing() == ["yeti", "yatzy"]
    assert tables.build_missing() == ["yeti", "yatzy"]
    assert built == ["yeti", "yatzy"] and tables.missing() == []


@pytest.fixture
def finished_game(db: None) -> str:
    bots.tables.table("official", build=True)
    table = open_room(1)
    play_to_end(table, random.Random(3))
    return table.code


def test_the_review_waits_for_a_table_being_built_instead_of_answering_503(
    finished_game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_ready = bots.ready
    asked: list[str] = []
    calls = {"n": 0}

    def ready_after_a_while(ruleset: Any) -> bool:
        calls["n"] += 1
        return calls["n"] > 3 and real_ready(ruleset)

    monkeypatch.setattr(bots, "ready", ready_after_a_while)
    monkeypatch.setattr(botplay, "build_in_background", asked.append)
    response = Client().get(f"/r/{finished_game}/review.json")
    assert response.status_code == 200, response.content
    assert response.json()["seats"][0]["choices"] > 0
    assert asked == ["official"] and calls["n"] > 3


@override_settings(COACH_WAIT=0.3)
def test_past_its_wait_the_review_says_the_coach_is_busy(finished_game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bots, "ready", lambda ruleset: False)
    monkeypatch.setattr(botplay, "build_in_background", lambda ruleset: None)
    response = Client().get(f"/r/{finished_game}/review.json")
    assert response.status_code == 503 and response.json()["error"] == "coach_busy"

"""The coach's and the bots' tables: built in the background while the site serves, the rule sets
people pick most first, one at a time, with an estimate of how long; awaited by the review."""

from __future__ import annotations

import logging
import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, override_settings

import bots
from games.domain.rules import RULESETS
from games.store import tables
from games.store.models import Game
from games.store.selectors import game_state
from tests.factories import open_room, play_to_end
from tests.live import ROOT, server_env

START_PROBE = "import threading, yahtzee.asgi; print(sorted(t.name for t in threading.enumerate()))"
SECONDS = bots.tables.BUILD_SECONDS


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
    assert "bot-tables" in serving_threads(tmp_path, BOT_TABLES_AT_START="1")


def test_the_start_up_build_can_be_turned_off(tmp_path: Path) -> None:
    assert "bot-tables" not in serving_threads(tmp_path, BOT_TABLES_AT_START="0")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def on_disk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> set[str]:
    """A fake cache: the rule sets whose table is "built"; triple's column is official's table."""
    monkeypatch.setenv(bots.tables.CACHE_ENV, str(tmp_path))  # no measured build times: the defaults
    built: set[str] = set()

    def ready(ruleset: Any) -> bool:
        name = ruleset if isinstance(ruleset, str) else ruleset.name
        return name == "painted" or name in built or (name == "triple" and "official" in built)

    monkeypatch.setattr(bots, "ready", ready)
    return built


def fake_builder(on_disk: set[str], during: Any = None) -> tuple[tables.Builder, Clock, list[str]]:
    clock, order = Clock(), []

    def build(name: str) -> None:
        order.append(name)
        if during is not None:
            during(name)
        on_disk.add(name)

    return tables.Builder(clock=clock, build=build, threaded=False), clock, order


def test_the_start_builds_the_missing_tables_most_picked_first_one_line_each(
    on_disk: set[str], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, settings: Any
) -> None:
    on_disk.add("free_joker")
    builder, _, order = fake_builder(on_disk)
    monkeypatch.setattr(tables, "_builder", builder)
    monkeypatch.setattr(tables, "_started", type(tables._started)())
    settings.BOT_TABLES_AT_START = True
    caplog.set_level(logging.INFO, logger="games.store.tables")
    assert tables.missing() == ["official", "yatzy", "yeti", "triple"]
    assert tables.prepare_in_background() is True
    assert tables.building() == ["official", "yeti", "triple", "yatzy"]  # in RULESETS order, triple with official
    builder.work()
    assert order == ["official", "yatzy", "yeti"]  # triple's table is official's: built once
    lines = [r.getMessage() for r in caplog.records]
    start = f"about {SECONDS['official'] + SECONDS['yatzy'] + SECONDS['yeti']:.0f} s"
    assert "official, yatzy, yeti" in lines[0] and start in lines[0] and "serves meanwhile" in lines[0]
    assert [line.split(" is ready")[0] for line in lines[1:4]] == [f"Computer players: {n}" for n in order]
    assert "built in" in lines[1] and "1 of 3" in lines[1] and "3 of 3" in lines[3]
    assert "every table is ready" in lines[4]
    assert tables.missing() == [] and tables.building() == []
    assert tables.prepare_in_background() is False  # once per process


def test_with_every_table_on_disk_the_start_queues_nothing(on_disk: set[str], monkeypatch: pytest.MonkeyPatch) -> None:
    on_disk.update(RULESETS)
    builder, _, order = fake_builder(on_disk)
    monkeypatch.setattr(tables, "_builder", builder)
    monkeypatch.setattr(tables, "_started", type(tables._started)())
    with override_settings(BOT_TABLES_AT_START=True):
        assert tables.prepare_in_background() is False
    builder.work()
    assert order == [] and tables.building() == []


def test_the_estimate_is_the_builds_before_it_and_its_own_less_the_time_already_spent(on_disk: set[str]) -> None:
    seen: dict[str, Any] = {}

    def during(name: str) -> None:
        if name != "official":
            return
        clock.now += 5
        seen["official"] = builder.eta("official")
        seen["triple"] = builder.eta("triple")  # its column is official's table
        seen["yatzy"] = builder.eta("yatzy")  # queued behind official
        seen["yeti"] = builder.eta("yeti")  # not asked for: as if a room asked now
        builder.request("yeti")  # a room waits for it: it goes next, before yatzy
        seen["yeti asked"] = builder.eta("yeti")
        seen["yatzy after"] = builder.eta("yatzy")
        clock.now += 60  # far past official's estimate
        seen["late"] = builder.eta("official")

    builder, clock, order = fake_builder(on_disk, during)
    builder.request("official", first=False)
    builder.request("yatzy", first=False)
    assert builder.eta("official") == SECONDS["official"]
    assert builder.eta("yatzy") == SECONDS["official"] + SECONDS["yatzy"]
    assert builder.eta("painted") is None  # needs no table
    builder.work()
    left = SECONDS["official"] - 5
    assert seen["official"] == seen["triple"] == left
    assert seen["yatzy"] == left + SECONDS["yatzy"]
    assert seen["yeti"] == seen["yeti asked"] == left + SECONDS["yeti"]
    assert seen["yatzy after"] == left + SECONDS["yeti"] + SECONDS["yatzy"]
    assert seen["late"] == tables.LEAST_LEFT
    assert order == ["official", "yeti", "yatzy"]
    assert builder.eta("official") is None and builder.eta("yatzy") is None  # ready


def test_the_estimate_starts_from_the_last_build_measured_on_this_machine(
    on_disk: set[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bots.tables._record_seconds(bots.tables.cache_path(RULESETS["yatzy"]), 44.4)
    builder, _, _ = fake_builder(on_disk)
    assert builder.eta("yatzy") == 44.4
    assert builder.eta("yeti") == SECONDS["yeti"]


def test_asking_again_for_a_queued_table_moves_it_up_and_never_queues_it_twice(on_disk: set[str]) -> None:
    builder, _, order = fake_builder(on_disk)
    for name in ("official", "yatzy", "free_joker", "yeti"):
        builder.request(name, first=False)
    builder.request("free_joker")
    builder.request("yatzy", first=False)  # already queued: stays where it is
    builder.request("triple")  # official's table, already queued: moved up as official
    builder.request("painted")  # needs no table
    assert builder._queue == ["official", "free_joker", "yatzy", "yeti"]
    builder.work()
    assert order == ["official", "free_joker", "yatzy", "yeti"]
    builder.request("official")  # ready: nothing to do
    builder.work()
    assert order == ["official", "free_joker", "yatzy", "yeti"]


def test_a_failed_build_is_logged_and_not_tried_again_at_once(
    on_disk: set[str], caplog: pytest.LogCaptureFixture
) -> None:
    tries: list[str] = []
    clock = Clock()

    def build(name: str) -> None:
        tries.append(name)
        if name == "yeti" and len(tries) == 1:
            raise MemoryError("no room for the table")
        clock.now += SECONDS[name]  # on time: the next estimates stay as they are
        on_disk.add(name)

    builder = tables.Builder(clock=clock, build=build, threaded=False)
    builder.request("yeti")
    builder.request("official", first=False)
    builder.work()
    assert tries == ["yeti", "official"] and "yeti" not in on_disk
    assert "building the solver table for yeti failed" in caplog.text
    assert builder.eta("yeti") is None  # no estimate: the room says it is getting ready, without a figure
    builder.request("yeti")
    builder.work()
    assert tries == ["yeti", "official"]  # too soon after the failure
    clock.now += tables.FAILED_PAUSE
    builder.request("yeti")
    assert builder.eta("yeti") == SECONDS["yeti"]
    builder.work()
    assert tries == ["yeti", "official", "yeti"] and "yeti" in on_disk


def test_after_officials_build_failed_a_triple_room_waits_out_the_pause_too_with_no_estimate(
    on_disk: set[str], caplog: pytest.LogCaptureFixture
) -> None:
    tries: list[str] = []
    clock = Clock()

    def build(name: str) -> None:
        tries.append(name)
        if len(tries) == 1:
            raise MemoryError("no room for the table")
        on_disk.add(name)

    builder = tables.Builder(clock=clock, build=build, threaded=False)
    builder.request("official")
    builder.work()
    assert tries == ["official"] and "building the solver table for official failed" in caplog.text
    # Triple reads official's table: the same failure, the same pause, no figure meanwhile.
    assert builder.eta("triple") is None and builder.eta("official") is None
    builder.request("triple")
    builder.work()
    assert tries == ["official"]
    clock.now += tables.FAILED_PAUSE
    builder.request("triple")
    assert builder.eta("triple") == builder.eta("official") == SECONDS["triple"]
    builder.work()
    assert tries == ["official", "triple"] and builder.eta("triple") is None  # built


def test_a_machine_slower_than_the_estimates_has_them_scaled_by_the_last_builds_pace(on_disk: set[str]) -> None:
    def during(name: str) -> None:
        clock.now += (2 if name == "official" else 100) * SECONDS[name]

    builder, clock, _ = fake_builder(on_disk, during)
    builder.request("official")
    builder.work()  # it took twice its estimate
    assert builder.eta("yeti") == 2 * SECONDS["yeti"]
    builder.request("yatzy")
    builder.request("free_joker", first=False)
    assert builder.eta("free_joker") == 2 * (SECONDS["yatzy"] + SECONDS["free_joker"])
    builder.work()
    assert builder.eta("yeti") == tables.PACE_BOUNDS[1] * SECONDS["yeti"]  # bounded


def test_builds_wait_while_the_server_migrates(on_disk: set[str]) -> None:
    builder = tables.Builder(build=lambda name: on_disk.add(name))
    builder.hold()
    builder.request("yeti")
    thread = builder._thread
    assert thread is not None
    thread.join(0.2)
    assert thread.is_alive() and "yeti" not in on_disk and builder.building() == ["yeti"]
    builder.resume()
    thread.join(10)
    assert not thread.is_alive() and "yeti" in on_disk


def test_one_builder_thread_builds_what_rooms_ask_for_then_ends(on_disk: set[str]) -> None:
    go = threading.Event()

    def build(name: str) -> None:
        go.wait(10)
        on_disk.add(name)

    builder = tables.Builder(build=build)
    builder.request("yeti")
    builder.request("official")
    thread = builder._thread
    assert thread is not None and thread.name == "bot-tables"
    assert [t for t in threading.enumerate() if t.name == "bot-tables"] == [thread]
    go.set()
    thread.join(10)
    assert not thread.is_alive() and builder._thread is None
    assert {"yeti", "official"} <= on_disk and builder.building() == []


def test_the_state_says_the_computer_is_getting_ready_while_its_table_is_built(
    db: None, on_disk: set[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    builder, _, _ = fake_builder(on_disk)
    monkeypatch.setattr(tables, "_builder", builder)
    table = open_room(2, "yatzy")
    assert game_state(table.game)["getting_ready"] == {"eta": round(SECONDS["yatzy"])}
    Game.objects.filter(code=table.code).update(hints=False)
    assert game_state(table.game)["getting_ready"] is None  # no coach and no computer player: nothing waits
    on_disk.add("yatzy")
    assert game_state(open_room(1, "yatzy").game)["getting_ready"] is None
    assert game_state(open_room(1, "painted").game)["getting_ready"] is None  # no table needed


def test_the_home_page_says_which_rule_sets_are_getting_ready(
    db: None, on_disk: set[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    builder, _, _ = fake_builder(on_disk)
    monkeypatch.setattr(tables, "_builder", builder)
    on_disk.update({"official", "free_joker"})
    page = Client().get("/").content.decode()
    assert 'id="getting-ready"' not in page  # nothing being built (none asked for)
    builder.request("yatzy", first=False)
    builder.request("yeti", first=False)
    page = Client().get("/").content.decode()
    assert "The computer players are getting ready" in page
    assert f"Yahtzee (one Yahtzee) (about {SECONDS['yatzy'] + SECONDS['yeti']:.0f}&nbsp;s)" in page
    assert f"Yatzy (Scandinavian) (about {SECONDS['yatzy']:.0f}&nbsp;s)" in page
    builder.work()
    assert 'id="getting-ready"' not in Client().get("/").content.decode()


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
    monkeypatch.setattr(tables, "request", asked.append)
    response = Client().get(f"/r/{finished_game}/review.json")
    assert response.status_code == 200, response.content
    assert response.json()["seats"][0]["choices"] > 0
    assert asked == ["official"] and calls["n"] > 3


@override_settings(COACH_WAIT=0.3)
def test_past_its_wait_the_review_says_the_coach_is_busy(finished_game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bots, "ready", lambda ruleset: False)
    monkeypatch.setattr(tables, "request", lambda ruleset: None)
    response = Client().get(f"/r/{finished_game}/review.json")
    assert response.status_code == 503 and response.json()["error"] == "coach_busy"


def test_build_bot_tables_says_what_it_builds_and_how_far_along_it_is(
    on_disk: set[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from io import StringIO

    from django.core.management import CommandError, call_command

    built: list[str] = []

    def table(ruleset: Any, *, build: bool = True) -> None:
        built.append(ruleset.name)
        on_disk.add(ruleset.name)

    monkeypatch.setattr(bots.tables, "table", table)
    on_disk.update({"free_joker", "yeti"})
    out = StringIO()
    call_command("build_bot_tables", stdout=out)
    lines = out.getvalue().splitlines()
    about = SECONDS["official"] + SECONDS["yatzy"]
    assert lines[0] == f"Building 2 solver table(s), one at a time (about {about:.0f} s)..."
    assert lines[1].startswith("official: built in") and lines[1].endswith("(1 of 2)")
    assert lines[2].startswith("yatzy: built in") and lines[2].endswith("(2 of 2)")
    assert lines[3:] == [
        "free_joker: already built",
        "yeti: already built",
        "triple: already built",
        "painted: no table (its bot is a heuristic that needs none)",
    ]
    with pytest.raises(CommandError, match="unknown rule set nope"):
        call_command("build_bot_tables", "official", "nope", stdout=StringIO())

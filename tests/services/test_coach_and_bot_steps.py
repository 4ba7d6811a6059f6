"""The computer players and the coach when something is off: a table file the server cannot read,
a seat a computer finished for its person, a joker's bonus in the coach's words."""

from __future__ import annotations

import os
import random
import stat
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.management import call_command
from django.utils import timezone

import bots
from games import scheduling, services
from games.domain.rules import RULESETS, Box, Scorecard
from games.domain.rules.state import TurnState
from games.scheduling import botplay
from games.services import coach
from games.store import moves
from games.store.models import Game, Move
from tests.factories import Table, action_id, open_room, play_turn

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module", autouse=True)
def official_table() -> None:
    bots.tables.table("official", build=True)


def add_bot(table: Table, level: str = "optimal") -> None:
    services.game_add_bot(
        code=table.code,
        controller=table.controllers[0],
        level=level,
        expected_version=table.version(),
        action_id=action_id(),
    )


def start(table: Table) -> None:
    services.game_start(
        code=table.code, controller=table.controllers[0], expected_version=table.version(), action_id=action_id()
    )


def bot_to_move(ruleset: str = "official") -> Table:
    """A person (seat 0) and a bot (seat 1); the person has played a turn: the bot is to play."""
    table = open_room(1, ruleset=ruleset, start=False)
    add_bot(table)
    start(table)
    play_turn(table, random.Random(2))
    assert table.game.room.bot_to_play(playing=True)
    return table


def unreadable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *rulesets: str) -> None:
    """The cache files of ``rulesets`` exist but this process may not read them (as in the Docker image,
    where they belong to root with mode 0600 and the server runs as the user ``yahtzee``).

    A table this run has not built (a clean checkout builds them as tests need them) is stood in
    for by an empty file in ``tmp_path``: only its presence matters, its content is never read.
    """
    real_path = bots.tables.cache_path
    stand_ins: dict[str, Path] = {}
    for name in rulesets:
        if not real_path(RULESETS[name]).exists():
            stand_ins[name] = tmp_path / real_path(RULESETS[name]).name
            stand_ins[name].touch()

    def cache_path(ruleset: Any) -> Path:
        name = ruleset if isinstance(ruleset, str) else ruleset.name
        return stand_ins.get(name) or real_path(ruleset)

    monkeypatch.setattr(bots.tables, "cache_path", cache_path)
    paths = {str(cache_path(RULESETS[name])) for name in rulesets}
    real = np.load

    def load(file: Any, *args: Any, **kwargs: Any) -> Any:
        if str(file) in paths:
            raise PermissionError(13, "Permission denied", str(file))
        return real(file, *args, **kwargs)

    monkeypatch.setattr(bots.tables.np, "load", load)
    # Nothing in this process's memory yet (a fresh server process): tables are read from the files.
    monkeypatch.setattr(bots.tables, "_tables", {})
    monkeypatch.setattr(bots.tables, "_unloadable", set())
    for name in rulesets:
        assert bots.tables.cache_path(RULESETS[name]).exists()
    # A build the fix may ask for must not run for half a minute inside the test.
    monkeypatch.setattr(botplay.tables, "request", lambda *args, **kwargs: None)


# --- 1. The Docker image's solver tables cannot be read by the server's user ----------------------


def test_the_solver_tables_built_ahead_are_readable_by_another_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Dockerfile runs ``manage.py build_bot_tables`` as root, then ``USER yahtzee`` serves.

    The files are written through ``tempfile.mkstemp`` (always mode 0600) and renamed into place,
    so only root may read them: the server's ``ready()`` says yes (the file exists) and every load
    fails.
    """
    monkeypatch.setenv(bots.tables.CACHE_ENV, str(tmp_path / "bot-tables"))
    monkeypatch.setattr(bots.tables, "_tables", {})
    # The table's content does not matter here, only the file the build leaves: no 10 s build.
    monkeypatch.setattr(bots.tables, "build_values", lambda model, threads=1: np.zeros(model.shape))
    old = os.umask(0o022)  # the usual umask of an image build
    try:
        call_command("build_bot_tables", "yeti")
    finally:
        os.umask(old)
    path = bots.tables.cache_path(RULESETS["yeti"])
    mode = stat.S_IMODE(path.stat().st_mode)
    assert mode & 0o044 == 0o044, f"{path.name} is {oct(mode)}: only its owner (root in the image) can read it"


# --- 2. A table that exists but cannot be loaded: the bot step raises, the sweep is wedged -------


def test_a_bot_whose_table_file_cannot_be_loaded_waits_instead_of_raising(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    table = bot_to_move("official")
    unreadable(monkeypatch, tmp_path, "official")
    version = table.version()
    # ready() says yes (the file is there) but the table cannot be loaded: the bot must wait (None)
    # as for a table not built yet, not raise TableNotReady out of the scheduler's step.
    assert botplay.step(table.code, version) is None
    assert table.version() == version


def test_one_room_whose_table_cannot_be_loaded_does_not_stall_every_other_rooms_computer_player(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    stuck = bot_to_move("yatzy")
    other = bot_to_move("official")
    unreadable(monkeypatch, tmp_path, "yatzy")
    now = timezone.now()
    Game.objects.filter(code=stuck.code).update(due_at=now - timedelta(seconds=10))  # due longest
    Game.objects.filter(code=other.code).update(due_at=now - timedelta(seconds=5))
    moves.forget_all()
    before = other.version()
    # The sweep claims the room due longest first. A step that raises rolls its claim back and
    # leaves the room due as it was, so every sweep claims it first again and fails again.
    for _ in range(3):
        try:
            scheduling.claim_next()
        except Exception as exc:  # noqa: BLE001 - what the sweep's loop logs before sleeping
            pytest.fail(
                f"the sweep failed on {stuck.code} ({type(exc).__name__}: {exc}) and never reached the next room"
            )
    assert other.version() > before, "the other room's computer player never played"


# --- 3. The review charges a person with the choices a computer made for them --------------------


def test_the_review_does_not_charge_an_away_person_with_a_computers_choices_when_they_never_came_back() -> None:
    table = open_room(2)
    p0, p1 = table.controllers
    rng = random.Random(6)
    play_turn(table, rng)  # P0
    play_turn(table, rng)  # P1 plays a turn of their own
    # P1 is away: the host hands the seat to a (beginner) computer, which plays it to the end.
    services.game_replace_with_bot(
        code=table.code, controller=p0, seat=1, level="beginner", expected_version=table.version(), action_id="r"
    )
    assert table.game.room.seats[1].away_controller == p1
    while table.game.status == Game.Status.PLAYING:
        if table.game.room.rules.current == 0:
            play_turn(table, rng)
        else:
            assert botplay.step(table.code, table.version())
    game = table.game
    by_computer = set(Move.objects.filter(game=game, actor__startswith="bot:").values_list("seq", flat=True))
    judged = {v["move"] for v in coach.verdicts(game)[0] if v["seat"] == 1}
    assert judged, "P1's own choices are reviewed"
    # The seat still carries P1's name: its review line says "P1 lost … points", so the computer's
    # choices must not be among them (as when P1 comes back: test_away_seats).
    assert not judged & by_computer, f"{len(judged & by_computer)} of the computer's choices are charged to P1"


# --- 4. The hint says a box gets the Yahtzee bonus too ----------------------------------------------


def test_the_hint_for_a_forced_joker_says_what_the_box_gets_not_the_box_plus_the_bonus() -> None:
    """RULES.md: official, Yahtzee box 50, Fours open, dice 4 4 4 4 4: only Fours is legal; it scores
    20 and the turn adds a 100 bonus. The room's options say 20 and +100, and so does the hint, not
    "Score 120 in Fours" (its ``points`` and its text), a box value the rules never give."""
    table = open_room(1)
    game = table.game
    state = game.room.rules
    card = Scorecard(columns=(((Box.YAHTZEE, 50), (Box.CHANCE, 20)),), yahtzee_bonus=(0,))
    state = replace(state, cards=(card,), turn=TurnState(dice=(4, 4, 4, 4, 4), rolls_used=1), turns_played=2)
    Game.objects.filter(code=table.code).update(snapshot=game.room.with_rules(state).to_snapshot())
    moves.forget_all()
    fours = next(o for o in table.game.room.rules.options() if o.box is Box.FOURS)
    assert (fours.legal, fours.points, fours.bonus) == (True, 20, 100)
    hint = coach.hint_for(code=table.code, controller=table.controllers[0], version=table.version())
    shown = next(o for o in hint["options"] if o["kind"] == "score")
    assert shown["box"] == "fours"
    assert "120" not in shown["text"], shown["text"]
    assert shown["points"] == 20, shown

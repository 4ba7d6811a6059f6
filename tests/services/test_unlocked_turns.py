"""The turn actions' unlocked try on PostgreSQL (``services.actions.act``): one read, one guarded write.

A roll, hold or score reads the Game row without locking it and writes only if the row is
still at the version it read. These tests check that it really takes that path (no lock,
two statements), that an action which came in between makes it run again under the lock
with the right answer, and that a refused try writes nothing. The races of many threads
are in test_concurrency.py.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.domain.rules import RuleViolation
from games.store import moves
from games.store.models import Game, Move, ScoreEntry
from tests.factories import action_id, elsewhere, open_room, rolled_room

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

_TRANSACTION = ("BEGIN", "SAVEPOINT", "RELEASE", "COMMIT")


def test_a_roll_is_one_unlocked_read_and_one_write() -> None:
    table = open_room(2)
    who, version = table.current(), table.version()
    moves.forget_all()  # a room this process has not written (it moved here): read first
    with CaptureQueriesContext(connection) as queries:
        services.turn_roll(code=table.code, controller=who, expected_version=version, action_id=action_id())
    sql = [q["sql"] for q in queries.captured_queries]
    assert len(sql) == 2, sql
    assert "FOR UPDATE" not in sql[0]
    assert sql[1].startswith("WITH g AS (UPDATE") and '"version" = ' in sql[1].split("RETURNING")[0]


def test_a_score_writes_its_score_entry_in_the_game_rows_guarded_statement() -> None:
    table = open_room(2)
    who = table.current()
    services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())
    version = table.version()
    moves.forget_all()
    with CaptureQueriesContext(connection) as queries:
        services.turn_score(code=table.code, controller=who, box="chance", expected_version=version, action_id="s")
    sql = [q["sql"] for q in queries.captured_queries if not q["sql"].startswith(_TRANSACTION)]
    assert "FOR UPDATE" not in sql[0]
    # One statement: the guarded update takes the row lock, and the score entry is inserted
    # only from its result (FROM g: nothing when another action moved the row on).
    assert sql[1].startswith("WITH g AS (UPDATE") and '"version" = ' in sql[1].split("RETURNING")[0]
    score = sql[1].split("s AS (INSERT INTO", 1)
    assert len(score) == 2 and "scoreentry" in score[1].split(")")[0] and "FROM g" in score[1]
    assert not any("scoreentry" in statement for statement in sql[2:])
    assert ScoreEntry.objects.filter(player__game__code=table.code, box="chance").count() == 1


def _another_action_first(monkeypatch: pytest.MonkeyPatch, other: Any) -> list[int | None]:
    """Make ``other()`` commit, elsewhere, just before this thread's first write: a race lost on purpose.

    The guards (``if_version``) of this thread's writes, in order.
    """
    real = moves.append
    main = threading.current_thread()
    guards: list[int | None] = []

    def append(game: Game, fields: tuple[str, ...], *, if_version: int | None = None, **move: Any) -> Move:
        if threading.current_thread() is main:
            guards.append(if_version)
            if len(guards) == 1:
                elsewhere(other)
        return real(game, fields, if_version=if_version, **move)

    monkeypatch.setattr(moves, "append", append)
    return guards


def test_an_action_that_came_first_sends_the_try_to_the_lock_and_it_is_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    table, who, version = rolled_room()
    # The same player's hold, from another tab, lands between the roll's read and its write.
    guards = _another_action_first(
        monkeypatch,
        lambda: services.turn_hold(code=table.code, controller=who, held=[0], expected_version=version, action_id="h"),
    )
    with pytest.raises(RuleViolation) as refused:
        services.turn_roll(code=table.code, controller=who, expected_version=version, action_id="r")
    assert refused.value.code == services.STALE
    assert guards == [version]  # the try wrote nothing; the retry under the lock refused before writing
    game = Game.objects.get(code=table.code)
    assert game.version == version + 1
    assert list(game.moves.filter(seq__gt=version).values_list("kind", "action_id")) == [(Move.Kind.HOLD, "h")]
    assert game.snapshot["rolls"] == 1  # the first roll only


def test_a_retried_action_without_a_version_applies_once_after_the_other(monkeypatch: pytest.MonkeyPatch) -> None:
    table, who, version = rolled_room()
    guards = _another_action_first(
        monkeypatch,
        lambda: services.turn_hold(code=table.code, controller=who, held=[0], expected_version=version, action_id="h"),
    )
    # The no-script form posts may send no version: the retry applies the roll after the hold.
    services.turn_roll(code=table.code, controller=who, expected_version=None, action_id="r")
    assert guards == [version, None]  # the guarded try lost, the locked retry wrote
    game = Game.objects.get(code=table.code)
    assert list(game.moves.filter(seq__gt=version).values_list("seq", "kind")) == [
        (version + 1, Move.Kind.HOLD),
        (version + 2, Move.Kind.ROLL),
    ]
    assert game.snapshot["rolls"] == 2
    assert game.snapshot["rules"]["turn"]["held"] == [0]


def test_a_lost_score_try_leaves_no_score_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    table = open_room(2)
    who = table.current()
    services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())
    version = table.version()
    _another_action_first(
        monkeypatch,
        lambda: services.turn_score(
            code=table.code, controller=who, box="ones", expected_version=version, action_id="a"
        ),
    )
    with pytest.raises(RuleViolation) as refused:
        services.turn_score(code=table.code, controller=who, box="chance", expected_version=version, action_id="b")
    assert refused.value.code == services.STALE
    boxes = list(ScoreEntry.objects.filter(player__game__code=table.code).values_list("box", flat=True))
    assert boxes == ["ones"]
    assert Game.objects.get(code=table.code).version == version + 1


def test_a_guarded_write_to_a_moved_row_raises_conflict_and_writes_nothing() -> None:
    table = open_room(2)
    game = Game.objects.get(code=table.code)
    stale = game.version - 1
    moves_before = Move.objects.filter(game=game).count()
    game.version += 1
    with pytest.raises(moves.Conflict):
        moves.append(game, ("version",), if_version=stale, seq=game.version, player_id=None, kind="hold", payload={})
    assert Move.objects.filter(game=game).count() == moves_before
    assert Game.objects.get(pk=game.pk).version == game.version - 1


def test_inside_a_callers_transaction_the_action_locks_as_before() -> None:
    from django.db import transaction

    table = open_room(2)
    who, version = table.current(), table.version()
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        services.turn_roll(code=table.code, controller=who, expected_version=version, action_id=action_id())
    sql = [q["sql"] for q in queries.captured_queries if not q["sql"].startswith(_TRANSACTION)]
    assert "FOR UPDATE" in sql[0]


def test_the_prebuilt_read_gives_the_same_row_as_the_orm() -> None:
    table = open_room(3)
    services.turn_roll(
        code=table.code, controller=table.current(), expected_version=table.version(), action_id=action_id()
    )
    fast, orm = moves.read(table.code), Game.objects.get(code=table.code)
    for field in Game._meta.concrete_fields:
        assert getattr(fast, field.attname) == getattr(orm, field.attname), field.name
    assert isinstance(fast.snapshot, dict) and fast.snapshot["rules"]["turn"]["rolls_used"] == 1
    assert fast.host_id is not None and not fast._state.adding
    with pytest.raises(Game.DoesNotExist):
        moves.read("nosuchroom")


def test_a_roll_that_holds_first_is_one_unlocked_read_and_one_transaction_of_two_guarded_writes() -> None:
    table, who, version = rolled_room()
    moves.forget_all()
    with CaptureQueriesContext(connection) as queries:
        services.turn_roll(code=table.code, controller=who, held=[2], expected_version=version, action_id="rh")
    sql = [q["sql"] for q in queries.captured_queries]
    assert "FOR UPDATE" not in sql[0]
    writes = [s for s in sql if s.startswith("WITH g AS (UPDATE")]
    assert len(writes) == 2 and all('"version" = ' in s.split("RETURNING")[0] for s in writes)
    assert any(s.startswith(("BEGIN", "SAVEPOINT")) for s in sql)  # both or neither
    kinds = list(Move.objects.filter(game__code=table.code, seq__gt=version).order_by("seq").values_list("kind"))
    assert kinds == [("hold",), ("roll",)] and table.version() == version + 2


# --- the row this process wrote last (moves.remembered) -------------------------------------


def test_an_action_on_a_room_this_process_wrote_is_one_guarded_write_and_no_read() -> None:
    table, who, version = rolled_room()
    with CaptureQueriesContext(connection) as queries:
        services.turn_hold(code=table.code, controller=who, held=[1], expected_version=version, action_id="h")
    sql = [q["sql"] for q in queries.captured_queries]
    assert len(sql) == 1, sql
    assert sql[0].startswith("WITH g AS (UPDATE") and '"version" = ' in sql[0].split("RETURNING")[0]
    game = Game.objects.get(code=table.code)
    assert game.version == version + 1 and game.snapshot["rules"]["turn"]["held"] == [1]
    kept = moves.remembered(table.code)
    assert kept is not None
    for field in Game._meta.concrete_fields:  # what it keeps is the committed row
        assert getattr(kept, field.attname) == getattr(game, field.attname), field.name

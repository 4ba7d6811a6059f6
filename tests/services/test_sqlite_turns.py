"""An action on the embedded default (SQLite): one transaction under the write lock, statements built once.

``services.actions.act`` runs every action in ``BEGIN IMMEDIATE``: on the room's row as this
process last wrote it (``moves.remembered``, no read) with a guarded ``UPDATE``, else on the
row read by the statement built once (``moves.read``); ``moves.append`` writes the Game row
and the Move with two statements built once, on the driver's connection. These tests check
that it takes that path, that a copy of the row which moved on is read again, that a refused
or rolled-back action writes and keeps nothing, and that what is written and read is what
the ORM writes and reads. PostgreSQL's path is in test_unlocked_turns.py.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.domain.room import Room
from games.domain.rules import RuleViolation
from games.store import moves
from games.store.models import Game, Move, ScoreEntry
from tests.factories import Table, action_id, open_room

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _sqlite() -> None:
    if connection.vendor != "sqlite":
        pytest.skip("the embedded default's path: runs when DATABASE_URL is not set (make test on a laptop)")


def _statements(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries.captured_queries]


def _rolled_room() -> tuple[Table, str, int]:
    """A started room whose current player has rolled once: its code, that player, the version."""
    table = open_room(2)
    who = table.current()
    services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())
    return table, who, table.version()


def _elsewhere(call: Any) -> None:
    """Run ``call`` in another thread, on its own connection, as another process would."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread
            failure.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(15)
    assert not thread.is_alive()
    if failure:
        raise failure[0]


def _written_elsewhere(call: Any) -> None:
    """``call()`` commits elsewhere: this process's copy of the row stays as it was."""
    kept = dict(moves._kept)
    _elsewhere(call)
    with moves._kept_lock:
        moves._kept.clear()
        moves._kept.update(kept)


def test_an_action_on_a_room_this_process_wrote_is_one_guarded_update_and_one_insert_and_no_read() -> None:
    table, who, version = _rolled_room()
    with CaptureQueriesContext(connection) as queries:
        services.turn_hold(code=table.code, controller=who, held=[1], expected_version=version, action_id="h")
    sql = _statements(queries)
    assert sql[0].startswith("BEGIN IMMEDIATE") and sql[-1] == "COMMIT", sql
    body = sql[1:-1]
    assert len(body) == 2, body
    assert body[0].startswith('UPDATE "games_game" SET') and ' AND "version" = ' in body[0].split("WHERE")[1]
    assert body[1].startswith('INSERT INTO "games_move"')
    game = Game.objects.get(code=table.code)
    assert game.version == version + 1 and game.snapshot["rules"]["turn"]["held"] == [1]
    kept = moves.remembered(table.code)
    assert kept is not None
    for field in Game._meta.concrete_fields:  # what it keeps is the committed row
        assert getattr(kept, field.attname) == getattr(game, field.attname), field.name


def test_a_room_this_process_has_not_written_is_read_once_then_written() -> None:
    table, who, version = _rolled_room()
    moves.forget_all()  # a room this process has not written (written by the scheduler's process, say)
    with CaptureQueriesContext(connection) as queries:
        services.turn_roll(code=table.code, controller=who, expected_version=version, action_id="r")
    body = _statements(queries)[1:-1]
    assert len(body) == 3, body
    assert body[0].startswith("SELECT") and "FOR UPDATE" not in body[0]
    assert body[1].startswith('UPDATE "games_game"') and "version" not in body[1].split("WHERE")[1]
    assert body[2].startswith('INSERT INTO "games_move"')
    assert Game.objects.get(code=table.code).snapshot["rolls"] == 2


def test_the_remembered_room_is_the_room_written_not_decoded_again() -> None:
    table, who, version = _rolled_room()
    kept = moves.remembered(table.code)
    assert kept is not None
    room = kept.stored_room()
    assert room is not None and room is kept.room
    assert room == Room.from_snapshot(Game.objects.get(code=table.code).snapshot)
    again = moves.remembered(table.code)
    assert again is not None and again is not kept and again.room is room  # a fresh row, the same immutable Room
    again.snapshot["rolls"] = 99  # a caller's change to its copy of the JSON does not reach the kept one
    assert moves.remembered(table.code).snapshot["rolls"] == 1  # type: ignore[union-attr]


def test_the_prebuilt_read_gives_the_same_row_as_the_orm_with_sqlites_dates_and_booleans() -> None:
    table, _who, _version = _rolled_room()
    fast, orm = moves.read(table.code), Game.objects.get(code=table.code)
    for field in Game._meta.concrete_fields:
        assert getattr(fast, field.attname) == getattr(orm, field.attname), field.name
        assert type(getattr(fast, field.attname)) is type(getattr(orm, field.attname)), field.name
    assert fast.created_at.tzinfo is not None and isinstance(fast.followups_owed, bool)
    with pytest.raises(Game.DoesNotExist):
        moves.read("nosuchroom")


def test_the_moves_written_by_the_statements_are_what_the_orm_reads_back() -> None:
    table, who, version = _rolled_room()
    services.turn_score(code=table.code, controller=who, box="chance", expected_version=version, action_id="s")
    move = Move.objects.get(game__code=table.code, action_id="s")
    assert move.kind == Move.Kind.SCORE and move.seq == version + 1 and move.actor == who
    assert move.payload["box"] == "chance" and isinstance(move.payload["points"], int)
    assert move.created_at.tzinfo is not None and move.player_id is not None
    assert ScoreEntry.objects.filter(player__game__code=table.code, box="chance").count() == 1


def test_a_remembered_row_that_moved_on_elsewhere_is_read_again_for_an_action_on_the_new_version() -> None:
    table, who, version = _rolled_room()
    _written_elsewhere(
        lambda: services.turn_hold(code=table.code, controller=who, held=[0], expected_version=version, action_id="h"),
    )
    assert moves.remembered(table.code).version == version  # type: ignore[union-attr]  # the old copy
    # The player saw the other write and rolls on it: the copy would call that stale.
    services.turn_roll(code=table.code, controller=who, expected_version=version + 1, action_id="r")
    game = Game.objects.get(code=table.code)
    assert list(game.moves.filter(seq__gt=version).values_list("seq", "kind")) == [
        (version + 1, Move.Kind.HOLD),
        (version + 2, Move.Kind.ROLL),
    ]
    assert game.snapshot["rules"]["turn"]["held"] == [0] and game.snapshot["rolls"] == 2
    assert moves.remembered(table.code).version == version + 2  # type: ignore[union-attr]


def test_an_action_on_a_remembered_row_that_moved_on_writes_nothing_and_is_stale() -> None:
    table, who, version = _rolled_room()
    _written_elsewhere(
        lambda: services.turn_hold(code=table.code, controller=who, held=[0], expected_version=version, action_id="h"),
    )
    with pytest.raises(RuleViolation) as refused:  # the copy agrees with it, the guarded update does not
        services.turn_roll(code=table.code, controller=who, expected_version=version, action_id="r")
    assert refused.value.code == services.STALE
    game = Game.objects.get(code=table.code)
    assert game.version == version + 1 and game.snapshot["rolls"] == 1
    assert not game.moves.filter(action_id="r").exists()


def test_a_resent_action_is_refused_as_repeated_and_writes_nothing() -> None:
    table, who, version = _rolled_room()
    services.turn_hold(code=table.code, controller=who, held=[2], expected_version=version, action_id="again")
    with pytest.raises(RuleViolation) as refused:
        services.turn_hold(code=table.code, controller=who, held=[2], expected_version=version, action_id="again")
    assert refused.value.code == services.REPEATED
    assert Game.objects.get(code=table.code).version == version + 1


def test_a_rolled_back_write_is_neither_stored_nor_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    table, who, version = _rolled_room()

    def broken(**kwargs: Any) -> ScoreEntry:
        raise RuntimeError("the score entry's insert failed")

    monkeypatch.setattr(ScoreEntry.objects, "create", broken)
    with pytest.raises(RuntimeError):
        services.turn_score(code=table.code, controller=who, box="chance", expected_version=version, action_id="s")
    game = Game.objects.get(code=table.code)
    assert game.version == version and not game.moves.filter(action_id="s").exists()
    kept = moves.remembered(table.code)
    assert kept is None or kept.version == version


def test_the_schedulers_own_columns_drop_the_remembered_row(monkeypatch: pytest.MonkeyPatch) -> None:
    from games.scheduling import work

    table, _who, _version = _rolled_room()
    assert moves.remembered(table.code) is not None
    game = Game.objects.get(code=table.code)
    work._update(table.code, Game.objects.filter(pk=game.pk), due_at=None)
    assert moves.remembered(table.code) is None

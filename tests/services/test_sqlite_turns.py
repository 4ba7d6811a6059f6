"""An action on the embedded default (SQLite): one transaction under the write lock, statements built once.

``services.actions.act`` runs every action in ``BEGIN IMMEDIATE``: on the room's row as this
process last wrote it (``moves.remembered``, no read) with a guarded ``UPDATE``, else on the
row read by the statement built once (``moves.read``); ``moves.append`` writes the Game row
and the Move (and a score's ScoreEntry) with statements built once, on the driver's connection. These tests check
that it takes that path and that what is written and read is what the ORM writes and reads.
The kept row's behaviour on either database is in test_kept_row.py; PostgreSQL's statements
in test_unlocked_turns.py.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.domain.rules import RuleViolation
from games.store import moves
from games.store.models import Game, Move, ScoreEntry
from tests.factories import rolled_room

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _sqlite() -> None:
    if connection.vendor != "sqlite":
        pytest.skip("the embedded default's path: runs when DATABASE_URL is not set (make test on a laptop)")


def _statements(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries.captured_queries]


def test_an_action_on_a_room_this_process_wrote_is_one_guarded_update_and_one_insert_and_no_read() -> None:
    table, who, version = rolled_room()
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


def test_a_score_on_a_room_this_process_wrote_is_one_guarded_update_and_the_moves_and_boxs_inserts() -> None:
    table, who, version = rolled_room()
    with CaptureQueriesContext(connection) as queries:
        services.turn_score(code=table.code, controller=who, box="chance", expected_version=version, action_id="s")
    sql = _statements(queries)
    assert sql[0].startswith("BEGIN IMMEDIATE") and sql[-1] == "COMMIT", sql
    body = sql[1:-1]
    assert body[0].startswith('UPDATE "games_game" SET') and ' AND "version" = ' in body[0].split("WHERE")[1]
    assert body[1].startswith('INSERT INTO "games_move"')
    assert body[2].startswith('INSERT INTO "games_scoreentry"')
    assert not any("scoreentry" in statement for statement in body[3:]), body
    assert ScoreEntry.objects.filter(player__game__code=table.code, box="chance").count() == 1


def test_a_room_this_process_has_not_written_is_read_once_then_written() -> None:
    table, who, version = rolled_room()
    moves.forget_all()  # a room this process has not written (written by the scheduler's process, say)
    with CaptureQueriesContext(connection) as queries:
        services.turn_roll(code=table.code, controller=who, expected_version=version, action_id="r")
    body = _statements(queries)[1:-1]
    assert len(body) == 3, body
    assert body[0].startswith("SELECT") and "FOR UPDATE" not in body[0]
    assert body[1].startswith('UPDATE "games_game"') and "version" not in body[1].split("WHERE")[1]
    assert body[2].startswith('INSERT INTO "games_move"')
    assert Game.objects.get(code=table.code).snapshot["rolls"] == 2


def test_the_prebuilt_read_gives_the_same_row_as_the_orm_with_sqlites_dates_and_booleans() -> None:
    table, _who, _version = rolled_room()
    fast, orm = moves.read(table.code), Game.objects.get(code=table.code)
    for field in Game._meta.concrete_fields:
        assert getattr(fast, field.attname) == getattr(orm, field.attname), field.name
        assert type(getattr(fast, field.attname)) is type(getattr(orm, field.attname)), field.name
    assert fast.created_at.tzinfo is not None and isinstance(fast.followups_owed, bool)
    with pytest.raises(Game.DoesNotExist):
        moves.read("nosuchroom")


def test_the_moves_written_by_the_statements_are_what_the_orm_reads_back() -> None:
    table, who, version = rolled_room()
    services.turn_score(code=table.code, controller=who, box="chance", expected_version=version, action_id="s")
    move = Move.objects.get(game__code=table.code, action_id="s")
    assert move.kind == Move.Kind.SCORE and move.seq == version + 1 and move.actor == who
    assert move.payload["box"] == "chance" and isinstance(move.payload["points"], int)
    assert move.created_at.tzinfo is not None and move.player_id is not None
    assert ScoreEntry.objects.filter(player__game__code=table.code, box="chance").count() == 1


def test_a_resent_action_is_refused_as_repeated_and_writes_nothing() -> None:
    table, who, version = rolled_room()
    services.turn_hold(code=table.code, controller=who, held=[2], expected_version=version, action_id="again")
    with pytest.raises(RuleViolation) as refused:
        services.turn_hold(code=table.code, controller=who, held=[2], expected_version=version, action_id="again")
    assert refused.value.code == services.REPEATED
    assert Game.objects.get(code=table.code).version == version + 1

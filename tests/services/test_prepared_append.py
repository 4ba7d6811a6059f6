"""games.store.moves.append on PostgreSQL: the statement prepared once per connection, the same rows as the ORM.

The statement goes through psycopg's own cursor (parameters bound on the server, the
statement prepared on the connection) unless queries are being logged, when it goes
through Django's cursor to be seen (the debug toolbar, ``CaptureQueriesContext``,
``assertNumQueries``). Either way the rows written are the same.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from games.store import moves
from games.store.models import Game, Move
from tests.factories import GameFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _game() -> Game:
    game = GameFactory()
    assert isinstance(game, Game)
    return game


def _append(game: Game, action_id: str = "a1", *, if_version: int | None = None) -> Move:
    game.snapshot = {**game.snapshot, "note": 'é ✓ \u2028 "quoted"', "n": [1, 2.5, None, True]}
    game.version += 1
    return moves.append(
        game,
        ("version", "snapshot"),
        if_version=if_version,
        seq=game.version,
        player_id=None,
        kind=Move.Kind.HOLD,
        payload={"held": [0, 2], "text": "é ✓", "big": 2**40},
        actor="ann",
        action_id=action_id,
    )


def _stored(game: Game) -> tuple[Any, ...]:
    row = Game.objects.values("version", "snapshot").get(pk=game.pk)
    logged = list(Move.objects.filter(game=game).values("seq", "player", "kind", "payload", "actor", "action_id"))
    with connection.cursor() as cursor:  # the jsonb as PostgreSQL stored it, not as Python read it back
        cursor.execute("SELECT payload::text FROM games_move WHERE game_id = %s", [game.pk])
        text = [r[0] for r in cursor.fetchall()]
        cursor.execute("SELECT snapshot::text FROM games_game WHERE id = %s", [game.pk])
        snapshot = cursor.fetchone()
    return row, logged, text, snapshot


def _prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [r[0] for r in cursor.fetchall()]


def test_the_rows_are_the_same_prepared_or_through_djangos_cursor() -> None:
    prepared, logged = _game(), _game()
    moved = _append(prepared)
    with CaptureQueriesContext(connection) as queries:
        seen = _append(logged)
    assert [q["sql"] for q in queries.captured_queries if q["sql"].startswith("WITH g AS (UPDATE")]  # it was seen
    assert moved.pk and seen.pk and moved.pk != seen.pk
    assert _stored(prepared) == _stored(logged)
    guarded, guarded_logged = _game(), _game()
    _append(guarded, if_version=guarded.version)
    with CaptureQueriesContext(connection):
        _append(guarded_logged, if_version=guarded_logged.version)
    assert _stored(guarded) == _stored(guarded_logged)


def test_the_statement_is_prepared_on_the_connection_once() -> None:
    game = _game()
    for n in range(3):
        _append(game, f"a{n}")
    mine = [s for s in _prepared_statements() if s.startswith("WITH g AS (UPDATE")]
    assert len(mine) == 1, mine
    assert connection.connection.prepare_threshold == moves.PREPARED  # nothing else prepared by itself


def test_a_repeated_action_id_is_still_djangos_integrity_error() -> None:
    game = _game()
    _append(game, "same")
    with pytest.raises(IntegrityError), transaction.atomic():
        _append(game, "same")
    assert Move.objects.filter(game=game).count() == 1


def test_a_guarded_write_over_a_row_that_moved_is_still_a_conflict() -> None:
    game = _game()
    stale = game.version
    _append(game)
    with pytest.raises(moves.Conflict):
        _append(game, "a2", if_version=stale)
    assert Game.objects.get(pk=game.pk).version == stale + 1

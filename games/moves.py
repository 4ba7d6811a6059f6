"""Writing one action: the Move appended and the Game row updated, in one round trip on PostgreSQL.

An action's writes are the new Move and the Game row's new version and snapshot. The ORM
needs two statements for that; on PostgreSQL one statement does both (a data-modifying
``WITH``), which saves a round trip and the building of two queries on the hot path
(docs/performance.md). The columns and the adaptation of each value come from the models'
fields, so the statement follows the schema. SQLite cannot modify data in a ``WITH`` and
takes the ORM's two statements. Both run inside the service's transaction, under its lock.
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.utils import timezone

from games.models import Game, Move

_MOVE_COLUMNS = ("game", "seq", "player", "kind", "payload", "actor", "action_id", "created_at")


def _prepared(model: type[Game] | type[Move], name: str, value: Any) -> tuple[str, Any]:
    field = model._meta.get_field(name)
    return connection.ops.quote_name(field.column), field.get_db_prep_save(value, connection)


def append(game: Game, fields: tuple[str, ...], **move: Any) -> Move:
    """Insert ``Move(game=game, **move)`` and save ``fields`` of ``game``; the Move, saved."""
    if connection.vendor != "postgresql":
        created = Move.objects.create(game=game, **move)
        game.save(update_fields=list(fields))
        return created
    row = Move(game=game, created_at=timezone.now(), **move)
    sets = [_prepared(Game, name, getattr(game, Game._meta.get_field(name).attname)) for name in fields]
    values = [_prepared(Move, name, getattr(row, Move._meta.get_field(name).attname)) for name in _MOVE_COLUMNS[1:]]
    qn = connection.ops.quote_name
    sql = (
        f"WITH g AS (UPDATE {qn(Game._meta.db_table)} SET {', '.join(f'{column} = %s' for column, _ in sets)}"
        f" WHERE {qn('id')} = %s RETURNING {qn('id')})"
        f" INSERT INTO {qn(Move._meta.db_table)} ({qn(Move._meta.get_field('game').column)},"
        f" {', '.join(column for column, _ in values)})"
        f" SELECT g.{qn('id')}, {', '.join(['%s'] * len(values))} FROM g RETURNING {qn('id')}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*(value for _, value in sets), game.pk, *(value for _, value in values)])
        inserted = cursor.fetchone()
    if inserted is None:  # the Game row is gone; cannot happen under the service's lock
        raise Game.DoesNotExist(f"game {game.pk} vanished while it was locked")
    row.pk = inserted[0]
    row._state.adding = False
    row._state.db = connection.alias
    return row

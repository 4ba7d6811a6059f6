"""The hot path's statements: an action's Move appended and its Game row updated, in one
round trip on PostgreSQL, and (``read``) the room read for it without building a query.

An action's writes are the new Move and the Game row's new version and snapshot, and for a
score the filled box's ScoreEntry. The ORM needs a statement for each; on PostgreSQL one
statement does them all (a data-modifying ``WITH``), which saves round trips and the building
of the queries on the hot path (docs/performance.md). SQLite cannot modify data in a ``WITH``:
it takes an ``UPDATE`` and an ``INSERT`` or two, built once, run on the driver's connection
(the ORM builds each query anew, about half of an action's CPU on SQLite). The columns and
the adaptation of each value come from the models' fields, so the statements follow the
schema. They run inside the service's transaction, under its lock; or guarded by the version the action
read (``games.services.actions.act``): on PostgreSQL a transaction of its own, on SQLite
inside the action's ``BEGIN IMMEDIATE``.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections, models, transaction
from django.db.models import Field
from django.utils import timezone

from games.domain import protocol
from games.domain.room import Room
from games.store.models import Game, Move, ScoreEntry

_MOVE_FIELDS = ("seq", "player", "kind", "payload", "actor", "action_id", "created_at")  # and game
_SCORE_FIELDS = ("player", "column", "box", "points", "bonus", "turn")

Row = Game | Move | ScoreEntry


def _field(model: type[Row], name: str) -> Field[Any, Any]:
    """A column of ``model`` (never a reverse relation: only those are not ``Field``)."""
    field = model._meta.get_field(name)
    if not isinstance(field, Field):
        raise TypeError(f"{model.__name__}.{name} is not a column")
    return field


def _column(field: Field[Any, Any]) -> str:
    """The quoted column name of a concrete field."""
    if field.column is None:
        raise TypeError(f"{field} has no column")
    return str(connection.ops.quote_name(field.column))


def _as_is(data: bytes) -> bytes:
    return data


def _values(
    instance: Row, names: tuple[str, ...], encoded: dict[str, bytes] | None = None, db: Any = None
) -> list[Any]:
    """The fields' values adapted as the ORM would for this database, the JSON ones with orjson.

    ``encoded``: given, it gets the JSON fields' text by name (what the statement stores).
    ``db``: the thread's connection itself (``connections[alias]``), looked up once by a
    caller that adapts several rows: each use of ``connection``, the proxy, looks it up again
    (the fields' adapters ask it for its operations and features).
    """
    db = db if db is not None else connections[DEFAULT_DB_ALIAS]
    postgresql = db.vendor == "postgresql"
    if postgresql:  # imported here, as in _execute_one: a process on SQLite never loads psycopg
        from psycopg.types.json import Jsonb
    values = []
    for name, attname, json, field in _adapters(type(instance), names):
        value = getattr(instance, attname)
        if json:
            data = protocol.dumpb(value)
            if encoded is not None:
                encoded[name] = data
            # What the ORM sends, encoded by orjson: psycopg's Jsonb, or SQLite's text.
            values.append(Jsonb(data, dumps=_as_is) if postgresql else data.decode())
        else:
            values.append(field.get_db_prep_save(value, db))
    return values


@functools.cache
def _adapters(model: type[Row], names: tuple[str, ...]) -> tuple[tuple[str, str, bool, Field[Any, Any]], ...]:
    """For each of ``names``: the name, the attribute it is read from, whether it is JSON
    encoded here (a JSONField with Django's own encoder), and the field (built once per row shape)."""
    found = []
    for name in names:
        field = _field(model, name)
        json = isinstance(field, models.JSONField) and field.encoder is None
        found.append((name, field.attname, json, field))
    return tuple(found)


@functools.cache
def _move_columns() -> tuple[tuple[str, Field[Any, Any]], ...]:
    return tuple((field.attname, field) for field in Move._meta.concrete_fields)


@functools.cache
def _move_attnames() -> frozenset[str]:
    return frozenset(attname for attname, _field in _move_columns())


def _new_move(game: Game, given: dict[str, Any]) -> Move:
    """``Move(game=game, **given)``, built from the fields in order (``given`` by attribute name).

    Model's keyword path looks every field up by name and sets the relation through its
    descriptor; the positional one only sets the attributes. The Game is cached on the Move
    as the keyword would have (``move.game`` is not read again).
    """
    given = {**given, "game_id": game.pk}
    unknown = given.keys() - _move_attnames()
    if unknown:
        raise TypeError(f"Move has no field {', '.join(sorted(unknown))}")
    row = Move(*(given[attname] if attname in given else field.get_default() for attname, field in _move_columns()))
    row._state.fields_cache["game"] = game
    return row


class Conflict(Exception):
    """The Game row is no longer at the version the action was computed from."""


@functools.cache
def _statement(game_fields: tuple[str, ...], guarded: bool, scored: bool = False) -> str:
    """The one statement for an action that saves ``game_fields`` (built once per field set).

    ``guarded``: the row is only updated if its version is still the one the action read.
    ``scored``: a filled box's ScoreEntry is inserted too (only if the row was updated); the
    statement then returns its id after the Move's.
    """
    qn = connection.ops.quote_name

    def column(model: type[Row], name: str) -> str:
        return _column(_field(model, name))

    sets = ", ".join(f"{column(Game, name)} = %s" for name in game_fields)
    columns = ", ".join(column(Move, name) for name in ("game", *_MOVE_FIELDS))
    placeholders = ", ".join(["%s"] * len(_MOVE_FIELDS))
    guard = f" AND {column(Game, 'version')} = %s" if guarded else ""
    score, returning = "", qn("id")
    if scored:
        score_columns = ", ".join(column(ScoreEntry, name) for name in _SCORE_FIELDS)
        score_placeholders = ", ".join(["%s"] * len(_SCORE_FIELDS))
        score = (
            f", s AS (INSERT INTO {qn(ScoreEntry._meta.db_table)} ({score_columns})"
            f" SELECT {score_placeholders} FROM g RETURNING {qn('id')})"
        )
        returning = f"{qn('id')}, (SELECT s.{qn('id')} FROM s)"
    return (
        f"WITH g AS (UPDATE {qn(Game._meta.db_table)} SET {sets} WHERE {qn('id')} = %s{guard} RETURNING {qn('id')})"
        f"{score} INSERT INTO {qn(Move._meta.db_table)} ({columns})"
        f" SELECT g.{qn('id')}, {placeholders} FROM g RETURNING {returning}"
    )


@functools.cache
def _sqlite_statements(game_fields: tuple[str, ...], guarded: bool) -> tuple[str, str, str]:
    """SQLite's statements for an action that saves ``game_fields``, with qmark parameters: the
    Game row's update, the Move's insert, and a filled box's ScoreEntry insert.

    ``guarded``: the row is only updated if its version is still the one the action read.
    """
    qn = connection.ops.quote_name

    def column(model: type[Row], name: str) -> str:
        return _column(_field(model, name))

    sets = ", ".join(f"{column(Game, name)} = ?" for name in game_fields)
    guard = f" AND {column(Game, 'version')} = ?" if guarded else ""
    update = f"UPDATE {qn(Game._meta.db_table)} SET {sets} WHERE {qn('id')} = ?{guard}"
    columns = ", ".join(column(Move, name) for name in ("game", *_MOVE_FIELDS))
    placeholders = ", ".join(["?"] * (len(_MOVE_FIELDS) + 1))
    insert = f"INSERT INTO {qn(Move._meta.db_table)} ({columns}) VALUES ({placeholders})"
    score_columns = ", ".join(column(ScoreEntry, name) for name in _SCORE_FIELDS)
    score_placeholders = ", ".join(["?"] * len(_SCORE_FIELDS))
    score = f"INSERT INTO {qn(ScoreEntry._meta.db_table)} ({score_columns}) VALUES ({score_placeholders})"
    return update, insert, score


@functools.cache
def _read_statement() -> tuple[str, tuple[Any, ...]]:
    qn = connection.ops.quote_name
    fields = tuple(Game._meta.concrete_fields)
    column_of_code = _column(_field(Game, "code"))
    columns = ", ".join(_column(field) for field in fields)
    sql = f"SELECT {columns} FROM {qn(Game._meta.db_table)} WHERE {column_of_code} = %s"
    return sql, fields


# --- the rooms this process wrote last ---------------------------------------------------
#
# Caddy routes a room's sockets to one worker, so nearly every action of a room is written
# by the same process. It keeps each room's row as it last wrote it (after the commit), and
# the next action starts from that copy instead of reading the row: one round trip, the
# guarded write (``if_version``). The copy is only a guess of the row: if another process
# or thread wrote it since (the room moved, a worker came back), its version has changed,
# the guarded write applies nothing and raises ``Conflict``, and the action runs again the
# locked way, on the row read under its lock (games.services.actions.act).

ROOMS_KEPT = 4096  # rooms whose last written row a process keeps (least recently used go)
# code -> (pk, version, values, snapshot as written, the Room it encodes)
_kept: OrderedDict[str, tuple[int, int, list[Any], bytes, Room | None]] = OrderedDict()
_kept_lock = threading.Lock()  # database threads


def remembered(code: str) -> Game | None:
    """The room's row as this process last wrote it (a fresh object each call), or None."""
    with _kept_lock:
        kept = _kept.get(code)
        if kept is None:
            return None
        _kept.move_to_end(code)
    _pk, _version, values, snapshot, room = kept
    _sql, fields = _read_statement()
    values = list(values)
    decoded = values[_snapshot_index()] = protocol.loads(snapshot)
    game = Game.from_db(connection.alias, [field.attname for field in fields], values)
    if room is not None:
        game.seed_room(decoded, room)  # the Room is immutable: shared, not decoded again
    return game


def forget(code: str) -> None:
    with _kept_lock:
        _kept.pop(code, None)


def forget_all() -> None:
    with _kept_lock:
        _kept.clear()


def _remember(code: str, pk: int, version: int, values: list[Any], snapshot: bytes, room: Room | None) -> None:
    with _kept_lock:
        kept = _kept.get(code)
        # Two threads of this process may commit versions of a room out of order: keep the newest.
        if kept is not None and kept[0] == pk and kept[1] >= version:
            return
        _kept[code] = (pk, version, values, snapshot, room)
        _kept.move_to_end(code)
        while len(_kept) > ROOMS_KEPT:
            _kept.popitem(last=False)


@functools.cache
def _snapshot_index() -> int:
    _sql, fields = _read_statement()
    return next(i for i, field in enumerate(fields) if field.name == "snapshot")


@contextlib.contextmanager
def room_still_there(game: Game) -> Iterator[None]:
    """Rows written for a room read without its lock: a room deleted meanwhile (games.services.sweeps)
    raises ``Game.DoesNotExist``, as a code no room has does, not an error of the database.

    The sweep holds the room's row while it deletes it: an insert that refers to it waits
    (PostgreSQL), then finds no row to refer to; SQLite checks that when the statement's
    transaction commits. Any other failure is raised as it is, and so is any failure inside a
    caller's transaction, which it leaves unusable (the callers write outside one).
    """
    try:
        yield
    except IntegrityError:
        if connection.in_atomic_block or Game.objects.filter(pk=game.pk).exists():
            raise
        raise Game.DoesNotExist("Game matching query does not exist.") from None


def read(code: str) -> Game:
    """``Game.objects.get(code=code)``, from a statement built once (an action's read of its room).

    The ORM spends about 0.2 ms of CPU building that query for every action; here the
    database's and the fields' own converters (SQLite's dates and booleans, the snapshot's
    JSON) are applied as the ORM would. On SQLite inside ``BEGIN IMMEDIATE``, the
    transaction's write lock is the row lock.
    """
    sql, fields = _read_statement()
    with connection.cursor() as cursor:
        cursor.execute(sql, [code])
        row = cursor.fetchone()
    if row is None:
        raise Game.DoesNotExist("Game matching query does not exist.")
    values = []
    for field, value, converters in zip(fields, row, _converters(), strict=True):
        if isinstance(field, models.JSONField) and field.decoder is None and isinstance(value, str):
            values.append(protocol.loads(value))  # JSONField.from_db_value, with orjson
            continue
        for convert in converters:
            value = convert(value, field.cached_col, connection)
        values.append(value)
    return Game.from_db(connection.alias, [field.attname for field in fields], values)


@functools.cache
def _converters() -> list[list[Any]]:
    """Each read column's converters, as the ORM's compiler gathers them (the database's, then the field's).

    Built once, like the statement: the project has one database, whose connections (one a
    thread) convert alike.
    """
    _sql, fields = _read_statement()
    return [
        [*connection.ops.get_db_converters(field.cached_col), *field.get_db_converters(connection)] for field in fields
    ]


PREPARED = 1 << 30  # the connection's prepare_threshold: only what asks (prepare=True) is prepared


def _execute_one(sql: str, params: list[Any]) -> tuple[Any, ...] | None:
    """Run ``sql`` and fetch its one row: as a statement prepared on this connection, unless queries are logged.

    Django's cursor binds the parameters on the client (psycopg's ``ClientCursor``): the
    server parses and plans the statement every time. Here psycopg's own cursor binds them
    on the server and prepares the statement once per connection (``prepare=True``; Django
    turns psycopg's automatic preparing off, so the connection's threshold is set to one
    nothing reaches by itself). What Django does around a query is kept: the health check
    and connecting (``_cursor``'s), the broken-transaction check, and its error classes
    (an ``IntegrityError`` stays Django's). While queries are logged (``DEBUG``, the debug
    toolbar, ``assertNumQueries``) the statement goes through Django's cursor, to be seen.
    """
    import psycopg  # here, as in _values: a process on SQLite never loads the driver

    if connection.queries_logged:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchone()  # type: ignore[no-any-return]
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_no_broken_transaction()
    raw = connection.connection
    if raw.prepare_threshold is None:
        raw.prepare_threshold = PREPARED
    with connection.wrap_database_errors, psycopg.Cursor(raw) as cursor:
        cursor.execute(sql, params, prepare=True)
        return cursor.fetchone()


def append(
    game: Game,
    fields: tuple[str, ...],
    *,
    if_version: int | None = None,
    score: ScoreEntry | None = None,
    **move: Any,
) -> Move:
    """Insert ``Move(game=game, **move)`` (``move`` by attribute name: ``player_id``) and save
    ``fields`` of ``game``; the Move, saved.

    With ``if_version`` nothing is written unless the stored row is still at that version,
    and ``Conflict`` is raised: the caller read the row without locking it (or took it
    from ``remembered``), and another action came first. ``score``: the box the action
    filled, inserted by the same statement (saved in place: its ``pk`` is set).
    """
    db = connections[DEFAULT_DB_ALIAS]  # the thread's connection, looked up once (``_values``)
    vendor = db.vendor
    if vendor not in ("postgresql", "sqlite"):
        if if_version is not None:
            raise ValueError("a guarded write is only built for PostgreSQL and SQLite")
        created = Move.objects.create(game=game, **move)
        game.save(update_fields=list(fields))
        if score is not None:
            score.save()
        return created
    row = _new_move(game, {"created_at": timezone.now(), **move})
    guard = [] if if_version is None else [if_version]
    encoded: dict[str, bytes] = {}
    game_values = [*_values(game, fields, encoded, db), game.pk, *guard]
    move_values = _values(row, _MOVE_FIELDS, db=db)
    score_values = [] if score is None else _values(score, _SCORE_FIELDS, db=db)
    score_pk = None
    if vendor == "postgresql":
        statement = _statement(fields, if_version is not None, score is not None)
        inserted = _execute_one(statement, [*game_values, *score_values, *move_values])
        pk = None if inserted is None else inserted[0]
        if inserted is not None and score is not None:
            score_pk = inserted[1]
    else:
        statements = _sqlite_statements(fields, if_version is not None)
        pk, score_pk = _execute_sqlite(statements, game_values, [game.pk, *move_values], score_values or None)
    if pk is None:
        forget(game.code)
        if if_version is not None:
            raise Conflict(f"game {game.pk} is no longer at version {if_version}")
        # The Game row is gone; cannot happen under the service's lock.
        raise Game.DoesNotExist(f"game {game.pk} vanished while it was locked")
    if "snapshot" in encoded and "version" in fields:
        # The row as written, kept once it is committed (a rolled-back write must not be).
        _sql, all_fields = _read_statement()
        values = [getattr(game, field.attname) for field in all_fields]
        values[_snapshot_index()] = None  # kept as the JSON just written (a fresh copy for each action)
        room = game.stored_room()
        remember = functools.partial(_remember, game.code, game.pk, game.version, values, encoded["snapshot"], room)
        transaction.on_commit(remember)
    else:
        forget(game.code)
    for saved, saved_pk in ((row, pk), (score, score_pk)):
        if saved is not None:
            saved.pk = saved_pk
            saved._state.adding = False
            saved._state.db = db.alias
    return row


def _execute_sqlite(
    statements: tuple[str, str, str], game_values: list[Any], move_values: list[Any], score_values: list[Any] | None
) -> tuple[int | None, int | None]:
    """SQLite's update of the Game row, then (if it changed a row) the Move's insert and the filled box's
    (``score_values``, if any); their ids, or (None, None) when the row was not updated.

    On the driver's connection, as Django's cursor would run them less its query
    rewriting; through Django's cursor while queries are logged, to be seen.
    """
    update, insert, score = statements
    if connection.queries_logged:
        with connection.cursor() as cursor:
            cursor.execute(update.replace("?", "%s"), game_values)
            if cursor.rowcount != 1:
                return None, None
            cursor.execute(insert.replace("?", "%s"), move_values)
            move_pk = cursor.lastrowid
            if score_values is None:
                return move_pk, None
            cursor.execute(score.replace("?", "%s"), score_values)
            return move_pk, cursor.lastrowid
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_no_broken_transaction()
    raw = connection.connection
    with connection.wrap_database_errors:
        if raw.execute(update, game_values).rowcount != 1:
            return None, None
        move_pk = raw.execute(insert, move_values).lastrowid
        if score_values is None:
            return move_pk, None
        return move_pk, raw.execute(score, score_values).lastrowid

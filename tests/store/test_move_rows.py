"""An action's rows as ``games.store.moves`` builds them for its one statement: the same as the ORM's."""

from __future__ import annotations

import pytest
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.domain import protocol
from games.store import moves
from games.store.models import Move, ScoreEntry
from tests.factories import seated_game

pytestmark = pytest.mark.django_db


def _given() -> dict[str, object]:
    return {
        "seq": 7,
        "player_id": None,
        "kind": Move.Kind.ROLL,
        "payload": {"roll": 1, "held": [0, 2], "faces": [3, 4, 5], "dice": [6, 3, 6, 4, 5]},
        "actor": "c" * 32,
        "action_id": "a1",
        "created_at": timezone.now(),
    }


def test_a_move_built_from_its_fields_in_order_is_the_one_the_orm_builds_from_keywords() -> None:
    game, players = seated_game()
    given = {**_given(), "player_id": players[0].pk}
    built = moves._new_move(game, given)
    orm = Move(game=game, **given)
    for field in Move._meta.concrete_fields:
        assert getattr(built, field.attname) == getattr(orm, field.attname), field.name
    assert built._state.adding and built.pk is None
    with CaptureQueriesContext(connection) as queries:
        assert built.game is game  # cached, as the keyword sets it: not read again
    assert len(queries) == 0


def test_a_move_field_left_out_takes_its_default_and_an_unknown_one_is_refused() -> None:
    game, _players = seated_game()
    given = _given()
    del given["action_id"], given["actor"]
    built = moves._new_move(game, given)
    assert built.action_id == "" and built.actor == ""
    with pytest.raises(TypeError, match="Move has no field colour, player"):
        moves._new_move(game, {**_given(), "player": None, "colour": "red"})


def _plain(value: object) -> object:
    """A value as sent, with PostgreSQL's JSON wrapper (compared by identity) unwrapped to its text."""
    return getattr(value, "obj", value)


def test_the_values_adapted_for_the_statement_are_the_orms_on_the_connection_itself() -> None:
    game, players = seated_game()
    row = Move(game=game, **{**_given(), "player_id": players[0].pk})
    score = ScoreEntry(player_id=players[0].pk, column=0, box="chance", points=21, bonus=0, turn=1)
    db = connections[DEFAULT_DB_ALIAS]
    for instance, names in ((row, moves._MOVE_FIELDS), (score, moves._SCORE_FIELDS)):
        adapted = [_plain(value) for value in moves._values(instance, names, db=db)]
        # The connection handed over, or looked up: the same values.
        assert adapted == [_plain(value) for value in moves._values(instance, names)]
        for name, value in zip(names, adapted, strict=True):
            field = moves._field(type(instance), name)
            if name == "payload":  # encoded here with orjson, to the same JSON
                assert isinstance(value, str | bytes) and protocol.loads(value) == row.payload
                continue
            assert value == field.get_db_prep_save(getattr(instance, field.attname), connection), name
    encoded: dict[str, bytes] = {}
    moves._values(game, ("version", "snapshot"), encoded, db)
    assert set(encoded) == {"snapshot"} and protocol.loads(encoded["snapshot"]) == game.snapshot

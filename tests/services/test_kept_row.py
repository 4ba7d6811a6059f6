"""The room's row a worker keeps as it last wrote it (``games.store.moves.remembered``), on either database.

An action starts from that copy instead of reading the row, and writes only if the row is
still at the copy's version: a copy that moved on (another process wrote the room) is read
again, a refused or rolled-back action keeps nothing, and the scheduler's own writes drop
the copy. The statements each database runs are in test_unlocked_turns.py (PostgreSQL) and
test_sqlite_turns.py (the embedded default).
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.domain.room import Room
from games.domain.rules import RuleViolation
from games.store import moves, players
from games.store.models import Game, Move, ScoreEntry
from tests.factories import rolled_room, written_elsewhere

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_remembered_row_that_moved_on_elsewhere_is_read_again_for_an_action_on_the_new_version() -> None:
    table, who, version = rolled_room()
    written_elsewhere(
        lambda: services.turn_hold(code=table.code, controller=who, held=[0], expected_version=version, action_id="h"),
    )
    assert moves.remembered(table.code).version == version  # type: ignore[union-attr]  # the old copy
    # The player saw the other process's hold and rolls on it: the copy would call that stale.
    services.turn_roll(code=table.code, controller=who, expected_version=version + 1, action_id="r")
    game = Game.objects.get(code=table.code)
    assert list(game.moves.filter(seq__gt=version).values_list("seq", "kind")) == [
        (version + 1, Move.Kind.HOLD),
        (version + 2, Move.Kind.ROLL),
    ]
    assert game.snapshot["rules"]["turn"]["held"] == [0] and game.snapshot["rolls"] == 2
    assert moves.remembered(table.code).version == version + 2  # type: ignore[union-attr]


def test_an_action_on_a_remembered_row_that_moved_on_elsewhere_writes_nothing_and_is_stale() -> None:
    table, who, version = rolled_room()
    written_elsewhere(
        lambda: services.turn_hold(code=table.code, controller=who, held=[0], expected_version=version, action_id="h"),
    )
    with pytest.raises(RuleViolation) as refused:  # the copy agrees with it, the guarded write does not
        services.turn_roll(code=table.code, controller=who, expected_version=version, action_id="r")
    assert refused.value.code == services.STALE
    game = Game.objects.get(code=table.code)
    assert game.version == version + 1 and game.snapshot["rolls"] == 1
    assert not game.moves.filter(action_id="r").exists()


def test_a_rolled_back_write_is_not_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    table, who, version = rolled_room()

    def broken(*args: Any) -> None:
        raise RuntimeError("a write after the Move's failed")

    # The seats' rows are written after the Move's statement, in the action's transaction.
    monkeypatch.setattr(players, "follow", broken)
    with pytest.raises(RuntimeError):
        services.turn_score(code=table.code, controller=who, box="chance", expected_version=version, action_id="s")
    game = Game.objects.get(code=table.code)
    assert game.version == version and not game.moves.filter(action_id="s").exists()
    assert not ScoreEntry.objects.filter(player__game=game, box="chance").exists()
    kept = moves.remembered(table.code)
    assert kept is None or kept.version == version


def test_the_remembered_room_is_the_room_written_not_decoded_again() -> None:
    table, who, version = rolled_room()
    kept = moves.remembered(table.code)
    assert kept is not None
    room = kept.stored_room()
    assert room is not None and room is kept.room
    assert room == Room.from_snapshot(Game.objects.get(code=table.code).snapshot)
    again = moves.remembered(table.code)
    assert again is not None and again is not kept and again.room is room  # a fresh row, the same immutable Room
    again.snapshot["rolls"] = 99  # a caller's change to its copy of the JSON does not reach the kept one
    assert moves.remembered(table.code).snapshot["rolls"] == 1  # type: ignore[union-attr]


def test_the_schedulers_own_columns_drop_the_remembered_row(monkeypatch: pytest.MonkeyPatch) -> None:
    from games.scheduling import work

    table, _who, _version = rolled_room()
    assert moves.remembered(table.code) is not None
    game = Game.objects.get(code=table.code)
    work._update(table.code, Game.objects.filter(pk=game.pk), due_at=None)
    assert moves.remembered(table.code) is None


@pytest.mark.parametrize("seen", [False, True], ids=["driver", "logged"])
def test_a_scores_entry_is_written_by_the_moves_statement_and_comes_back_saved(seen: bool) -> None:
    """On the driver's connection (or prepared) and through Django's cursor alike: the ORM's row, its id given back."""
    table, who, version = rolled_room()
    with CaptureQueriesContext(connection) if seen else contextlib.nullcontext():
        entry = services.turn_score(
            code=table.code, controller=who, box="chance", expected_version=version, action_id="s"
        )
    assert entry.pk is not None and not entry._state.adding
    stored = ScoreEntry.objects.get(pk=entry.pk)
    fields = ("player_id", "column", "box", "points", "bonus", "turn")
    assert [getattr(stored, f) for f in fields] == [getattr(entry, f) for f in fields]
    move = Move.objects.get(game__code=table.code, action_id="s")
    assert (move.payload["box"], move.payload["points"], move.payload["turn"]) == ("chance", entry.points, entry.turn)
    assert ScoreEntry.objects.filter(player__game__code=table.code).count() == 1

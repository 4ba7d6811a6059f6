"""The Player rows: a seat's row, kept as the room has it (``games.domain.room``).

A room's seats live in its snapshot (``Game.room``); each also has a Player row, which the
move log, the scores, the notices and the accounts point at, and which finds a browser's
games by an index (``controller``, ``away_controller``, ``left_controller``). The row is
created with its seat (``create``: the seat needs the row's id) and from then on written
only by ``follow``, from the room before and after an action (``games.services.actions.record``).
"""

from __future__ import annotations

from games.domain.room import LEFT, Room, Seat
from games.store.models import Game, Player


def create(
    game: Game, *, seat: int, name: str, controller: str, client_seed: str, kind: str, follows: bool = True
) -> Player:
    return Player.objects.create(
        game=game, seat=seat, name=name, controller=controller, client_seed=client_seed, kind=kind, follows=follows
    )


def _row(index: int, seat: Seat) -> dict[str, object]:
    return {
        "seat": index,
        "name": seat.name,
        "controller": seat.controller,
        "kind": seat.kind,
        "status": seat.status,
        "away_controller": seat.away_controller,
        "left_controller": seat.left_controller,
    }


def follow(game: Game, before: Room, after: Room) -> None:
    """Write the Player rows whose seat changed from ``before`` to ``after`` (nothing when no seat did).

    A seat gone from the room (it left the lobby) keeps its row, out of the turn order and
    marked left; the rows of the seats that moved up follow, in order (a seat number is
    unique in a game, so each is freed before it is taken).
    """
    if before.seats is after.seats or before.seats == after.seats:
        return
    now = {seat.player for seat in after.seats}
    for seat in before.seats:
        if seat.player not in now:
            Player.objects.filter(pk=seat.player).update(seat=None, status=LEFT)
    was = {seat.player: _row(index, seat) for index, seat in enumerate(before.seats)}
    for index, seat in enumerate(after.seats):
        row = _row(index, seat)
        old = was.get(seat.player)
        if old is None or old == row:
            continue  # unchanged, or just created with these values (``create``)
        Player.objects.filter(pk=seat.player).update(**{k: v for k, v in row.items() if old[k] != v})


def rename_unseated(game: Game, player_ids: set[int], name: str) -> None:
    """Rows of ``player_ids`` that are in no seat of the room now (they left the lobby): shown as ``name``."""
    Player.objects.filter(game=game, pk__in=player_ids, seat__isnull=True).update(name=name)

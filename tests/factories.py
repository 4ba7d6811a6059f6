"""factory-boy factories for every model.

GameFactory makes a lobby whose snapshot is consistent with its seats only when seats
are added through ``seated_game``; for played games use the services (tests/services/helpers.py).
"""

from __future__ import annotations

import factory

from games import fairness
from games.models import Game, Move, Player, ScoreEntry
from games.services import new_controller, new_room_code


class GameFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Game

    code = factory.LazyFunction(new_room_code)
    ruleset = "official"
    server_seed = factory.LazyFunction(fairness.new_server_seed)
    seed_commitment = factory.LazyAttribute(lambda game: fairness.commitment(game.server_seed))
    snapshot = factory.LazyFunction(lambda: {"seats": [], "rules": None, "rolls": 0})


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    game = factory.SubFactory(GameFactory)
    seat = factory.Sequence(lambda n: n % 8)
    name = factory.Sequence(lambda n: f"Player {n}")
    controller = factory.LazyFunction(new_controller)
    client_seed = factory.LazyFunction(fairness.new_client_seed)


class ScoreEntryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ScoreEntry

    player = factory.SubFactory(PlayerFactory)
    column = 0
    box = "chance"
    points = 20
    turn = 1


class MoveFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Move

    game = factory.SubFactory(GameFactory)
    seq = factory.Sequence(lambda n: n + 1)
    kind = Move.Kind.JOIN
    payload = factory.LazyFunction(dict)


def seated_game(players: int = 2, **game_fields: object) -> tuple[Game, list[Player]]:
    """A lobby with ``players`` seats, snapshot and host set as the services would."""
    game = GameFactory(**game_fields)
    seats = [PlayerFactory(game=game, seat=i, name=f"P{i}") for i in range(players)]
    game.snapshot["seats"] = [
        {"player": p.pk, "name": p.name, "controller": p.controller, "kind": p.kind, "status": p.status} for p in seats
    ]
    game.host = seats[0]
    game.save()
    return game, seats

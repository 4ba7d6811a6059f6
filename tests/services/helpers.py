"""Play games through the services, as the consumers will."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field

from games import services
from games.models import Game, Player

_ids = itertools.count()


def action_id() -> str:
    return f"t-{next(_ids)}"


@dataclass
class Table:
    """A started or lobby game and the controller token of each seat."""

    code: str
    controllers: list[str] = field(default_factory=list)

    @property
    def game(self) -> Game:
        return Game.objects.get(code=self.code)

    def version(self) -> int:
        return Game.objects.values_list("version", flat=True).get(code=self.code)

    def current(self) -> str:
        game = self.game
        return self.controllers[game.snapshot["rules"]["current"]]


def open_room(players: int = 2, ruleset: str = "official", *, start: bool = True) -> Table:
    controllers = [services.new_controller() for _ in range(players)]
    host = services.game_create(host_name="P0", controller=controllers[0], ruleset=ruleset)
    table = Table(code=host.game.code, controllers=controllers)
    for i in range(1, players):
        services.game_join(code=table.code, name=f"P{i}", controller=controllers[i])
    if start:
        services.game_start(
            code=table.code, controller=controllers[0], expected_version=table.version(), action_id=action_id()
        )
    return table


def play_turn(table: Table, rng: random.Random) -> None:
    """One turn with random holds, 1-3 rolls and a random legal box."""
    who = table.current()
    services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())
    for _ in range(rng.randint(0, 2)):
        held = [i for i in range(5) if rng.random() < 0.5]
        if len(held) == 5:
            held.pop()
        services.turn_hold(
            code=table.code, controller=who, held=held, expected_version=table.version(), action_id=action_id()
        )
        services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())
    from games.selectors import game_state

    options = [o for o in game_state(table.game)["options"] if o["legal"]]
    choice = rng.choice(options)
    services.turn_score(
        code=table.code,
        controller=who,
        box=choice["box"],
        column=choice["column"],
        expected_version=table.version(),
        action_id=action_id(),
    )


def play_to_end(table: Table, rng: random.Random) -> Game:
    while table.game.status == Game.Status.PLAYING:
        play_turn(table, rng)
    return table.game


def seat_player(table: Table, seat: int) -> Player:
    return Player.objects.get(game__code=table.code, seat=seat)

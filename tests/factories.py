"""The one way tests build rooms: factory-boy factories for every model, and rooms opened
and played through the services, as the consumers do.

GameFactory makes a lobby whose snapshot is consistent with its seats only when seats
are added through ``seated_game``; for started and played games use ``open_room``,
``play_turn`` and ``play_to_end`` (a ``Table``: the room and each seat's controller).
Calls made as another worker would, each on a thread and a connection of its own: ``elsewhere``,
and ``race`` for calls released together.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import factory
import msgspec
from django.db import connection
from django.test import Client
from django.utils import timezone

from games import services
from games.domain import fairness
from games.domain.codes import shown_code
from games.domain.room import BOT, LEFT, Room
from games.domain.rules import RuleViolation
from games.services import new_controller, new_room_code
from games.store import moves
from games.store.models import Game, Move, Player, Presence, ScoreEntry
from games.store.selectors import game_state


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


def create_room(client: Client, name: str = "Ann", **extra: str) -> str:
    """A room created through the home page's form by ``client`` (its host); the room's code."""
    response = client.post("/rooms/new", {"name": name, "ruleset": "official", "mode": "online", **extra})
    assert response.status_code == 302, response.content[:300]
    return str(response["Location"]).strip("/").split("/")[-1]


# --- rooms opened and played through the services ---------------------------------------

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

    @property
    def shown(self) -> str:
        """The code as people read it on the room's page and in its mails ("abcd-efgh-jk")."""
        return shown_code(self.code)

    def version(self) -> int:
        return Game.objects.values_list("version", flat=True).get(code=self.code)

    def current(self) -> str:
        game = self.game
        return self.controllers[game.snapshot["rules"]["current"]]


def online(code: str, controller: str, *, hidden_since: datetime | None = None) -> str:
    """A socket of ``controller``'s browser is connected to room ``code`` (its Presence row): the room
    shows that browser's seats connected, not away. ``hidden_since``: its page has been hidden since
    then (another tab in front, the phone's browser in the background). Its channel name."""
    channel_name = f"ws.{new_controller()}"
    Presence.objects.create(
        game=Game.objects.get(code=code),
        channel_name=channel_name,
        controller=controller,
        seen_at=timezone.now(),
        hidden_since=hidden_since,
    )
    return channel_name


def open_room(players: int = 2, ruleset: str = "official", *, start: bool = True) -> Table:
    return _room(players, start, ruleset=ruleset)


def left_in_the_lobby(players: int = 2) -> Table:
    """A room whose players all left its lobby before the game started, the host last."""
    table = open_room(players, start=False)
    everyone_leaves(table)
    return table


def everyone_leaves(table: Table, seats: Iterable[int] | None = None) -> None:
    """Each seat of ``table`` leaves the room, one after the other in the order of ``seats`` (by
    default the host last), as its player would."""
    for seat in reversed(range(len(table.controllers))) if seats is None else seats:
        services.game_leave(
            code=table.code,
            controller=table.controllers[seat],
            seat=seat,
            expected_version=table.version(),
            action_id=action_id(),
        )


def own_pace_room(
    players: int = 2, seconds: int = 3 * 86_400, *, start: bool = True, ruleset: str = "official"
) -> Table:
    """A room at your own pace (``seconds`` a move, 0: no limit), seat 0 to move first once started."""
    return _room(players, start, ruleset=ruleset, pace="own", turn_timer=seconds)


def spectators_chat_room(names: tuple[str, ...] = ("Ann", "Bob", "Cy")) -> Table:
    """A started live room whose spectators may post in the chat, seated in order by ``names``."""
    controllers = [services.new_controller() for _ in names]
    host = services.game_create(host_name=names[0], controller=controllers[0], chat_spectators=True)
    table = Table(code=host.game.code, controllers=controllers)
    for name, controller in zip(names[1:], controllers[1:], strict=True):
        services.game_join(code=table.code, name=name, controller=controller)
    services.game_start(
        code=table.code, controller=controllers[0], expected_version=table.version(), action_id=action_id()
    )
    return table


def _room(players: int, start: bool, **create: Any) -> Table:
    """A room P0 made (``create``: game_create's settings), joined by P1…, started by P0 if ``start``."""
    controllers = [services.new_controller() for _ in range(players)]
    host = services.game_create(host_name="P0", controller=controllers[0], **create)
    table = Table(code=host.game.code, controllers=controllers)
    for i in range(1, players):
        services.game_join(code=table.code, name=f"P{i}", controller=controllers[i])
    if start:
        services.game_start(
            code=table.code, controller=controllers[0], expected_version=table.version(), action_id=action_id()
        )
    return table


def play_turn(table: Table, rng: random.Random, rerolls: int = 2, game: Game | None = None) -> None:
    """One turn with random holds, 1 to ``rerolls`` + 1 rolls and a random legal box.

    ``game``: the room's row as just read (by ``play_to_end``). Each action's expected version
    is taken from the row read just before it for its choice, not read once more: those reads
    were half the CPU of the many tests that play whole games.
    """
    game = game or table.game
    who = table.controllers[game.snapshot["rules"]["current"]]
    services.turn_roll(code=table.code, controller=who, expected_version=game.version, action_id=action_id())
    for _ in range(rng.randint(0, rerolls)):
        held = [i for i in range(5) if rng.random() < 0.5]
        if len(held) == 5:
            held.pop()
        game = table.game
        version = game.version
        rules = game.room.rules
        if rules is not None and set(held) != rules.turn.held:  # as the page, which sends no hold that changes nothing
            services.turn_hold(
                code=table.code, controller=who, held=held, expected_version=version, action_id=action_id()
            )
            version = table.version()
        services.turn_roll(code=table.code, controller=who, expected_version=version, action_id=action_id())
    game = table.game
    options = [o for o in game_state(game)["options"] if o["legal"]]
    choice = rng.choice(options)
    services.turn_score(
        code=table.code,
        controller=who,
        box=choice["box"],
        column=choice["column"],
        expected_version=game.version,
        action_id=action_id(),
    )


def score_first_legal(table: Table, *, roll: bool = True) -> dict[str, Any]:
    """The player to move rolls once (``roll=False``: has rolled already) and scores the first legal
    box; that box's option."""
    who = table.current()
    if roll:
        services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())
    option = next(o for o in game_state(table.game)["options"] if o["legal"])
    services.turn_score(
        code=table.code,
        controller=who,
        box=option["box"],
        column=option["column"],
        expected_version=table.version(),
        action_id=action_id(),
    )
    return dict(option)


def play_to_end(table: Table, rng: random.Random, rerolls: int = 2) -> Game:
    """Random turns (``play_turn``) to the end; ``rerolls=0``: a roll and a box a turn, half the actions."""
    game = table.game
    while game.status == Game.Status.PLAYING:
        play_turn(table, rng, rerolls, game)
        game = table.game
    return game


def loaded_dice(monkeypatch: Any, rolls: list[list[int]]) -> None:
    """The rooms' dice are ``rolls`` (roll number n's new faces, the first as many as it rolls: 1-6,
    or 1-30 in Painted Yahtzee) instead of the seed's, for rolling and for every check that derives
    them again from the seed: a game whose jokers and bonuses come when the test says, and whose
    checks still pass."""
    monkeypatch.setattr(
        fairness, "roll_faces", lambda _seed, _code, _client_seed, roll, count, sides=6: rolls[roll][:count]
    )


def play_turns(table: Table, turns: list[tuple[str, int]]) -> None:
    """Each turn as one roll (the next of ``loaded_dice``) scored in its box and column."""
    for box, column in turns:
        who = table.current()
        services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())
        services.turn_score(
            code=table.code,
            controller=who,
            box=box,
            column=column,
            expected_version=table.version(),
            action_id=action_id(),
        )


def rolled_room() -> tuple[Table, str, int]:
    """A started room whose current player has rolled once: its code, that player, the version."""
    table = open_room(2)
    who = table.current()
    services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())
    return table, who, table.version()


def elsewhere(call: Any) -> None:
    """Run ``call`` in another thread, on its own connection, as another worker would."""
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


@dataclass
class Outcome:
    """What one thread's call returned or raised, and when it ran."""

    value: Any = None
    error: BaseException | None = None
    started: float = 0.0
    finished: float = 0.0

    @property
    def applied(self) -> bool:
        return self.error is None

    @property
    def code(self) -> str | None:
        return self.error.code if isinstance(self.error, RuleViolation) else None


def race(*calls: Callable[[], Any], timeout: float = 15) -> list[Outcome]:
    """Run each call in its own thread, all released together; the outcomes in call order."""
    barrier = threading.Barrier(len(calls), timeout=timeout)
    outcomes = [Outcome() for _ in calls]

    def run(call: Callable[[], Any], outcome: Outcome) -> None:
        try:
            connection.ensure_connection()  # connect before the barrier: the race is the action alone
            barrier.wait()
            outcome.started = time.monotonic()
            try:
                outcome.value = call()
            finally:
                outcome.finished = time.monotonic()
        except BaseException as exc:  # noqa: BLE001 - reported by the test, whatever it is
            outcome.error = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=pair, daemon=True) for pair in zip(calls, outcomes, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), "a racing thread hung"
    for outcome in outcomes:
        # Anything but a refusal (a deadlock, an IntegrityError, a broken barrier) is a bug.
        if outcome.error is not None and not isinstance(outcome.error, RuleViolation):
            raise AssertionError(f"a racing call failed with {outcome.error!r}") from outcome.error
    return outcomes


def ranked_behind_for_each_reason(room: Room) -> Room:
    """``room`` with seats 1 to 3 ranked behind those who stayed, each for its own reason: the
    host took seat 1 out, seat 2 left, and a computer plays seat 3 while its player is away."""
    seats = list(room.seats)
    seats[1] = msgspec.structs.replace(seats[1], status=LEFT, taken_out=True)
    seats[2] = msgspec.structs.replace(seats[2], status=LEFT)
    seats[3] = msgspec.structs.replace(
        seats[3], kind=BOT, level="casual", controller="bot:1", away=True, away_controller=seats[3].controller
    )
    return msgspec.structs.replace(room, seats=tuple(seats))


def written_elsewhere(call: Any) -> None:
    """``call()`` commits as another process would: this process's copy of the row it last wrote stays as it was."""
    kept = dict(moves._kept)
    elsewhere(call)
    with moves._kept_lock:
        moves._kept.clear()
        moves._kept.update(kept)


def seat_player(table: Table, seat: int) -> Player:
    return Player.objects.get(game__code=table.code, seat=seat)


def timed_room(players: int = 2, seconds: int = 30) -> Table:
    """A started room of ``players`` people with a turn timer of ``seconds``."""
    controllers = [services.new_controller() for _ in range(players)]
    host = services.game_create(host_name="P0", controller=controllers[0], turn_timer=seconds)
    table = Table(code=host.game.code, controllers=controllers)
    for i in range(1, players):
        services.game_join(code=table.code, name=f"P{i}", controller=controllers[i])
    services.game_start(code=table.code, controller=controllers[0], expected_version=None, action_id=action_id())
    return table

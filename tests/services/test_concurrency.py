"""Real races against PostgreSQL: threads fire the same action at once and exactly one wins.

Every service locks the Game row with ``select_for_update``; these tests check that the
lock, the ``expected_version`` check and the ``(game, actor, action_id)`` constraint really
serialise simultaneous requests. Each race (``tests.factories.race``) starts its threads on a ``threading.Barrier``
with their connections already open, so the actions reach the database together, and
each thread closes its own connection when it is done.
"""

from __future__ import annotations

import threading
from functools import partial
from typing import Any

import pytest

from games import services
from games.domain.rules.codec import state_to_dict
from games.services.replay import replay_game
from games.store.models import Game, Move, Player, ScoreEntry
from tests.factories import Outcome, Table, action_id, open_room, race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROUNDS = 20
TIMEOUT = 15


@pytest.fixture(autouse=True)
def _no_relay(settings: Any) -> None:
    """The in-memory channel layer, as without REDIS_URL: these races are the database's.

    Each commit's state frame reaches no socket here; with REDIS_URL every one of them was
    relayed through Redis from the committing thread (a new event loop and a round trip
    each), a third of these tests' time.
    """
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def overlapped(outcomes: list[Outcome]) -> bool:
    """Did the calls really run at the same time (each started before any other finished)?"""
    return max(o.started for o in outcomes) < min(o.finished for o in outcomes)


def assert_raced(contended: int, rounds: int) -> None:
    """Most rounds must really have run their calls side by side, or the test proved nothing."""
    assert contended * 2 >= rounds, f"the calls overlapped in only {contended} of {rounds} rounds"


def assert_replays(code: str) -> Game:
    """The stored snapshot is what the move log says, and the log's seq is the version."""
    game = Game.objects.get(code=code)
    seqs = list(game.moves.order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.version + 1))
    replay = replay_game(game)
    assert not replay.problems
    assert replay.state is not None
    assert state_to_dict(replay.state) == game.snapshot["rules"]
    assert game.snapshot["rolls"] == game.moves.filter(kind=Move.Kind.ROLL).count()
    return game


def rolled_room(players: int = 2) -> tuple[Table, str, int]:
    """A started room whose current player has rolled once: its code, that player, the version."""
    table = open_room(players)
    who = table.current()
    services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())
    return table, who, table.version()


def test_two_scores_for_the_same_turn_apply_once() -> None:
    contended, rounds = 0, ROUNDS
    for _ in range(rounds):
        table, who, version = rolled_room()
        boxes = ("chance", "ones")
        outcomes = race(
            *(
                partial(
                    services.turn_score,
                    code=table.code,
                    controller=who,
                    box=box,
                    expected_version=version,
                    action_id=action_id(),
                )
                for box in boxes
            )
        )
        contended += overlapped(outcomes)
        assert sorted(o.applied for o in outcomes) == [False, True]
        winner = next(i for i, o in enumerate(outcomes) if o.applied)
        loser = outcomes[1 - winner]
        # Both were for the same version, so the loser is stale, never "box_filled" or a rules error.
        assert loser.code == services.STALE, loser.error
        game = assert_replays(table.code)
        assert game.version == version + 1
        entries = list(ScoreEntry.objects.filter(player__game=game).values_list("box", "column"))
        assert entries == [(boxes[winner], 0)]
        scores = list(game.moves.filter(kind=Move.Kind.SCORE).values_list("payload__box", "seq"))
        assert scores == [(boxes[winner], version + 1)]
        assert game.snapshot["rules"]["turns_played"] == 1
    assert_raced(contended, rounds)


def test_two_joins_for_the_last_seat_seat_one_player() -> None:
    contended, rounds = 0, ROUNDS
    for _ in range(rounds):
        table = open_room(7, start=False)
        version = table.version()
        names = ("Late A", "Late B")
        controllers = [services.new_controller() for _ in names]
        outcomes = race(
            *(
                partial(
                    services.game_join,
                    code=table.code,
                    name=name,
                    controller=controller,
                    expected_version=None,
                    action_id=action_id(),
                )
                for name, controller in zip(names, controllers, strict=True)
            )
        )
        contended += overlapped(outcomes)
        assert sorted(o.applied for o in outcomes) == [False, True]
        winner = next(i for i, o in enumerate(outcomes) if o.applied)
        assert outcomes[1 - winner].code == services.ROOM_FULL, outcomes[1 - winner].error
        assert outcomes[winner].value.seat == 7
        game = Game.objects.get(code=table.code)
        assert game.version == version + 1
        players = list(Player.objects.filter(game=game).values_list("seat", "status", "name"))
        assert sorted(seat for seat, _, _ in players) == list(range(8))
        assert {status for _, status, _ in players} == {Player.Status.ACTIVE}
        assert names[1 - winner] not in {name for _, _, name in players}
        seats = game.snapshot["seats"]
        assert [s["name"] for s in seats] == [*(f"P{i}" for i in range(7)), names[winner]]
        assert seats[7]["controller"] == controllers[winner]
        assert game.moves.filter(kind=Move.Kind.JOIN).count() == 8
        # The eight of them can start, and the log replays to the stored snapshot.
        services.game_start(
            code=table.code, controller=table.controllers[0], expected_version=game.version, action_id=action_id()
        )
        game = assert_replays(table.code)
        assert len(game.snapshot["rules"]["cards"]) == 8
    assert_raced(contended, rounds)


def test_the_same_roll_sent_twice_from_one_browser_applies_once() -> None:
    contended, rounds = 0, ROUNDS // 2
    for _ in range(rounds):
        table = open_room(2)
        who, version = table.current(), table.version()
        outcomes = race(
            *(
                partial(services.turn_roll, code=table.code, controller=who, expected_version=version, action_id="dup")
                for _ in range(2)
            )
        )
        contended += overlapped(outcomes)
        assert sorted(o.applied for o in outcomes) == [False, True]
        loser = next(o for o in outcomes if not o.applied)
        assert loser.code in (services.STALE, services.REPEATED), loser.error
        game = assert_replays(table.code)
        assert game.version == version + 1
        rolls = list(game.moves.filter(kind=Move.Kind.ROLL).values_list("actor", "action_id", "payload__dice"))
        winner = next(o for o in outcomes if o.applied)
        assert rolls == [(who, "dup", winner.value)]
        assert game.snapshot["rules"]["turn"]["rolls_used"] == 1
    assert_raced(contended, rounds)


def test_the_same_roll_sent_twice_without_a_version_applies_once() -> None:
    """With no expected_version only the (game, actor, action_id) constraint stops the second roll."""
    contended, rounds = 0, ROUNDS // 2
    for _ in range(rounds):
        table = open_room(2)
        who, version = table.current(), table.version()
        outcomes = race(
            *(
                partial(services.turn_roll, code=table.code, controller=who, expected_version=None, action_id="dup")
                for _ in range(2)
            )
        )
        contended += overlapped(outcomes)
        assert sorted(o.applied for o in outcomes) == [False, True]
        loser = next(o for o in outcomes if not o.applied)
        assert loser.code == services.REPEATED, loser.error
        game = assert_replays(table.code)
        assert game.version == version + 1
        assert game.moves.filter(kind=Move.Kind.ROLL).count() == 1
        assert game.snapshot["rules"]["turn"]["rolls_used"] == 1
    assert_raced(contended, rounds)


def test_many_threads_racing_one_roll_apply_it_once() -> None:
    # Eight calls all side by side (each started before any finished) is rarer than two on a
    # loaded machine: after five rounds, more follow until three of them were (at most
    # fifteen in all), each round checked whether it overlapped or not.
    contended, rounds, needed = 0, 0, 3
    while rounds < 5 or (contended < needed and rounds < 15):
        rounds += 1
        table = open_room(3)
        who, version = table.current(), table.version()
        outcomes = race(
            *(
                partial(
                    services.turn_roll, code=table.code, controller=who, expected_version=version, action_id=action_id()
                )
                for _ in range(8)
            )
        )
        contended += overlapped(outcomes)
        assert [o.applied for o in outcomes].count(True) == 1
        assert {o.code for o in outcomes if not o.applied} == {services.STALE}
        game = assert_replays(table.code)
        assert game.version == version + 1
        assert game.moves.filter(kind=Move.Kind.ROLL).count() == 1
        assert game.snapshot["rolls"] == 1
        assert game.snapshot["rules"]["turn"]["rolls_used"] == 1
    assert contended >= needed, f"the calls overlapped in only {contended} of {rounds} rounds"


def test_two_schedulers_asking_for_the_sweeps_at_once_run_them_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from games.scheduling import work
    from games.services import sweeps
    from games.store.models import Heartbeat

    runs: list[int] = []
    monkeypatch.setattr(sweeps, "sweep", lambda now: runs.append(1) or {})
    contended = 0
    for round_ in range(ROUNDS):
        Heartbeat.objects.filter(name=work.SWEPT).delete()
        before = len(runs)
        outcomes = race(work.sweep_if_due, work.sweep_if_due)
        contended += overlapped(outcomes)
        assert len(runs) - before == 1, f"round {round_}: the sweeps ran {len(runs) - before} times"
        assert [o.value is not None for o in outcomes].count(True) == 1
    assert_raced(contended, ROUNDS)


def test_a_socket_opening_while_the_sweep_deletes_its_room_finds_no_room() -> None:
    """The sweep holds the room's row while it deletes it; a page whose socket opens then waits for
    it, and is told there is no such room (not a foreign key's error)."""
    from datetime import timedelta

    from django.db.models.signals import pre_delete
    from django.utils import timezone

    from games.services import presence, sweeps

    table = open_room(2, start=False)
    then = timezone.now() - timedelta(days=40)
    Game.objects.filter(code=table.code).update(created_at=then)
    Move.objects.filter(game__code=table.code).update(created_at=then)
    Player.objects.filter(game__code=table.code).update(joined_at=then)
    deleting, go = threading.Event(), threading.Event()

    def hold(sender: Any, **kwargs: Any) -> None:
        deleting.set()
        go.wait(TIMEOUT)

    def sweep() -> dict[str, int]:
        return sweeps.rooms_never_started(timezone.now())

    def arrive() -> Any:
        assert deleting.wait(TIMEOUT)
        threading.Timer(0.5, go.set).start()  # once the socket's insert waits for the sweep's lock
        return presence.arrive(table.code, "ws.late", services.new_controller())

    pre_delete.connect(hold, sender=Game, dispatch_uid="sweep-holds-the-room")
    try:
        swept, opened = race(sweep, arrive)
    finally:
        pre_delete.disconnect(sender=Game, dispatch_uid="sweep-holds-the-room")
        go.set()
    assert swept.value["rooms"] == 1
    assert opened.value is None
    assert not Game.objects.filter(code=table.code).exists()

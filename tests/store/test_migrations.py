"""The migrations: games 0022 and accounts 0003 run forward from 0021 on a database with games in it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

BEFORE = [("games", "0021_admin_log_without_names"), ("accounts", "0002_profile_language")]
AFTER = [("games", "0022_player_left_controller"), ("accounts", "0003_companion_seats_not_the_accounts")]


def _migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


@pytest.fixture
def latest_after() -> Iterator[None]:
    """The database is left migrated to the newest state, whatever the test migrated it to."""
    yield
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("latest_after")
def test_the_migrations_run_forward_on_games_played_before_the_change() -> None:
    apps = _migrate(BEFORE)
    User = apps.get_model("auth", "User")
    Game = apps.get_model("games", "Game")
    Player = apps.get_model("games", "Player")
    GameRecord = apps.get_model("accounts", "GameRecord")
    ann = User.objects.create(username="ann")
    now = timezone.now()
    # A finished game: Ann (seat 0) and Cy, a friend at Ann's device (seat 1), both marked Ann's by
    # the old counting; Bo (seat 2) left and the host gave his seat to a computer (before the change).
    token = "t" * 32
    game = Game.objects.create(
        code="abcd2345ef", ruleset="official", server_seed="s", seed_commitment="c", status="finished",
        finished_at=now,
        snapshot={"seats": [
            {"player": 0, "name": "Ann", "controller": token, "kind": "human", "status": "active"},
            {"player": 0, "name": "Cy", "controller": token, "kind": "human", "status": "active"},
            {"player": 0, "name": "Bo", "controller": "bot:1234", "kind": "bot", "status": "active",
             "level": "optimal"},
        ], "rules": None, "rolls": 0},
    )  # fmt: skip
    rows = [
        Player.objects.create(game=game, seat=0, name="Ann", controller=token, user=ann),
        Player.objects.create(game=game, seat=1, name="Cy", controller=token, user=ann),
        Player.objects.create(game=game, seat=2, name="Bo", controller="bot:1234", kind="bot"),
    ]
    for row, user, rank in ((rows[0], ann, 1), (rows[1], None, 2), (rows[2], None, 3)):
        GameRecord.objects.create(
            game=game, player=row, user=user, ruleset="official", finished_at=now, players=3, rank=rank, score=200
        )
    apps = _migrate(AFTER)
    Player = apps.get_model("games", "Player")
    users = dict(Player.objects.filter(game_id=game.pk).values_list("name", "user_id"))
    assert users == {"Ann": ann.pk, "Cy": None, "Bo": None}
    assert set(Player.objects.values_list("left_controller", flat=True)) == {""}

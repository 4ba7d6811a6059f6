"""The migrations: games 0022 and accounts 0003 run forward from 0021 on a database with games in it,
and the release before a migration still writes while it runs.

Whenever a migration runs while processes of the release before still serve (an older Compose,
``docker compose run --rm migrate`` before ``up``, workers replaced one at a time: docs/deploy.md,
"Upgrading"), the old code inserts rows that do not name the columns it does not know. A column added
NOT NULL with only Django's default (``default=``) has none in the database, and every such insert
would be refused: the database fills it from ``db_default``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.apps import apps as current_apps
from django.core.exceptions import FieldDoesNotExist
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.operations import AddField
from django.db.models import NOT_PROVIDED
from django.utils import timezone

from games.store.models import ChatMessage, Notice, Player
from tests.factories import seated_game

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


def old_code_models(app: str, migration: str) -> Any:
    """The models as the release whose last migration was ``migration`` has them."""
    return MigrationLoader(None, ignore_no_migrations=True).project_state((app, migration)).apps


@pytest.mark.django_db
def test_the_release_before_still_seats_players_while_the_migration_runs() -> None:
    """0022 added Player.left_controller: a seat the older code takes is still stored."""
    game, _ = seated_game(1)
    old = old_code_models("games", "0021_admin_log_without_names").get_model("games", "Player")
    old.objects.create(game_id=game.pk, seat=1, name="Bob", controller="c" * 32, kind="human", status="active")
    assert Player.objects.get(game=game, seat=1).left_controller == ""


@pytest.mark.django_db
def test_the_release_before_still_writes_notices_while_the_migration_runs() -> None:
    """0024 added Notice.owed_at: the "your turn" notice the older code writes in its move is still stored."""
    game, players = seated_game(2)
    old = old_code_models("games", "0023_presence_hidden_since").get_model("games", "Notice")
    before = timezone.now()
    old.objects.create(
        game_id=game.pk, player_id=players[1].pk, kind="turn", turn=1, seat=1, text="", due_at=timezone.now()
    )
    notice = Notice.objects.get(game=game)
    assert notice.owed_at >= before and notice.event == {}


@pytest.mark.django_db
def test_the_release_before_still_posts_chat_while_the_migration_runs() -> None:
    """0025 added ChatMessage.controller: the older code's chat lines are still stored."""
    game, players = seated_game(2)
    old = old_code_models("games", "0024_notice_owed_at").get_model("games", "ChatMessage")
    old.objects.create(game_id=game.pk, seat=0, player_id=players[0].pk, name="Ann", text="hi")
    assert ChatMessage.objects.get(game=game).controller == ""


def test_every_not_null_column_a_migration_added_has_a_default_in_the_database() -> None:
    """The rule behind the tests above, for every column added after the first release: the older
    code never names it, so the database fills it (``db_default``), not Django's own default."""
    lacking = []
    for (app, name), migration in sorted(MigrationLoader(None, ignore_no_migrations=True).disk_migrations.items()):
        if app not in ("games", "accounts") or name.startswith("0001"):
            continue
        for operation in migration.operations:
            if not isinstance(operation, AddField):
                continue
            try:
                field = current_apps.get_model(app, operation.model_name)._meta.get_field(operation.name)
            except (LookupError, FieldDoesNotExist):
                continue  # removed since
            if not field.null and not field.many_to_many and field.db_default is NOT_PROVIDED:
                lacking.append(f"{app}.{operation.model_name}.{operation.name} ({name})")
    assert not lacking, f"NOT NULL columns added with no default in the database: {lacking}"


@pytest.mark.django_db
def test_a_seat_taken_out_before_a_take_out_muted_it_is_muted_so_the_host_can_let_its_player_speak() -> None:
    """Bob was taken out mid-game by the release before, whose take-out did not mute the seat: he
    stayed silent, and his line offered the host nothing to lift. Migration 0033 mutes such a seat of
    a game in play (its version moves on), so the host's unmute lets him speak; a seat its player
    left, and one the host unmuted after taking it out, are left as they are."""
    from importlib import import_module

    from django.apps import apps

    from games import services
    from games.domain.errors import TAKEN_OUT
    from games.domain.rules import RuleViolation
    from games.store.models import Game
    from tests.factories import action_id, spectators_chat_room

    table = spectators_chat_room(("Ann", "Bob", "Cy", "Dee"))
    code, (ann, bob, cy, dee) = table.code, table.controllers
    for seat in (1, 3):
        services.game_remove_absent(
            code=code, controller=ann, seat=seat, expected_version=table.version(), action_id=action_id()
        )
    services.seat_unmute(code=code, controller=ann, seat=3, expected_version=table.version(), action_id=action_id())
    services.game_leave(code=code, controller=cy, seat=2, expected_version=None, action_id=action_id())
    game = Game.objects.get(code=code)
    snapshot = game.snapshot
    snapshot["seats"][1].pop("muted")  # as the release before stored its take-out
    Game.objects.filter(pk=game.pk).update(snapshot=snapshot)
    before = Game.objects.get(pk=game.pk)
    with pytest.raises(RuleViolation) as refused:
        services.chat_post(code=code, controller=bob, text="let me speak")
    assert refused.value.code == TAKEN_OUT
    import_module("games.store.migrations.0033_taken_out_seats_muted").mute_taken_out(apps, None)
    after = Game.objects.get(pk=game.pk)
    assert after.version == before.version + 1
    assert [seat.muted for seat in after.room.seats] == [False, True, False, False]
    services.seat_unmute(code=code, controller=ann, seat=1, expected_version=after.version, action_id=action_id())
    assert services.chat_post(code=code, controller=bob, text="thanks")["name"] == "Spectator"
    assert services.chat_post(code=code, controller=dee, text="me too")["name"] == "Spectator"


def _taken_out_room_as_stored_before() -> tuple[str, dict[str, Any]]:
    """A game in play whose seat 1 the host took out, stored as a release before 0033 stored it."""
    from games import services
    from games.store.models import Game
    from tests.factories import action_id, spectators_chat_room

    table = spectators_chat_room(("Ann", "Bob", "Cy"))
    services.game_remove_absent(
        code=table.code,
        controller=table.controllers[0],
        seat=1,
        expected_version=table.version(),
        action_id=action_id(),
    )
    snapshot = Game.objects.get(code=table.code).snapshot
    snapshot["seats"][1].pop("muted")
    return table.code, snapshot


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("latest_after")
def test_migration_0033_runs_forward_past_rooms_of_an_odd_shape() -> None:
    """A snapshot holding seats not of the shape the code writes (a null, a list, the seats as a
    mapping, no seats at all) does not stop the migration: an odd seat is kept as it is beside its
    room's seats mended, odd seats are left alone, and the rooms after it are still changed."""
    from games.store.models import Game

    odd = {
        "null seat": lambda s: {**s, "seats": [*s["seats"], None]},
        "list seat": lambda s: {**s, "seats": [*s["seats"], ["Dee"]]},
        "seats as a mapping": lambda s: {**s, "seats": {str(i): seat for i, seat in enumerate(s["seats"])}},
        "no seats": lambda s: {key: value for key, value in s.items() if key != "seats"},
        "empty": lambda s: {},
    }
    stored: dict[str, tuple[str, dict[str, Any]]] = {}
    for shape, change in odd.items():
        code, snapshot = _taken_out_room_as_stored_before()
        stored[code] = shape, change(snapshot)
        Game.objects.filter(code=code).update(snapshot=stored[code][1])
    good, snapshot = _taken_out_room_as_stored_before()
    Game.objects.filter(code=good).update(snapshot=snapshot)
    _migrate([("games", "0032_game_due_failures")])
    _migrate([("games", "0033_taken_out_seats_muted")])
    assert Game.objects.get(code=good).snapshot["seats"][1]["muted"] is True
    for code, (shape, snapshot) in stored.items():
        after = Game.objects.get(code=code).snapshot
        if shape in ("null seat", "list seat"):
            assert after["seats"][1]["muted"] is True, shape
            assert after["seats"][3] == snapshot["seats"][3], shape
        else:
            assert after == snapshot, shape


@pytest.mark.django_db
def test_a_seat_the_host_took_out_before_seats_kept_it_is_marked_taken_out() -> None:
    """Bob was taken out by the release before, whose seats did not keep it: his game's list would
    call him one who left. Migration 0034 marks his seat (the game's version moves on) from the
    room's Move log; Cy, who left on his own, is left as he is."""
    from importlib import import_module

    from django.apps import apps

    from games import services
    from games.store.models import Game
    from tests.factories import action_id, spectators_chat_room

    table = spectators_chat_room(("Ann", "Bob", "Cy", "Dee"))
    code, (ann, _bob, cy, _dee) = table.code, table.controllers
    services.game_remove_absent(code=code, controller=ann, seat=1, expected_version=table.version(), action_id="r")
    services.game_leave(code=code, controller=cy, seat=2, expected_version=None, action_id=action_id())
    game = Game.objects.get(code=code)
    snapshot = game.snapshot
    snapshot["seats"][1].pop("taken_out")  # as the release before stored its take-out
    Game.objects.filter(pk=game.pk).update(snapshot=snapshot)
    before = Game.objects.get(pk=game.pk)
    assert not any(seat.taken_out for seat in before.room.seats)
    import_module("games.store.migrations.0034_taken_out_seats_marked").mark_taken_out(apps, None)
    after = Game.objects.get(pk=game.pk)
    assert after.version == before.version + 1
    assert [seat.taken_out for seat in after.room.seats] == [False, True, False, False]

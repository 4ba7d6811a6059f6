"""games/services/sweeps.py: what nothing reads any more goes, a batch at a time; history and rooms in use stay."""

from __future__ import annotations

import random
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.services import sweeps
from games.store.models import ChatMessage, Game, Move, Player, Presence, PushSubscription
from tests.factories import Table, action_id, online, open_room, play_to_end

pytestmark = pytest.mark.django_db
DAY = timedelta(days=1)


def aged(table: Table, days: int) -> None:
    """As if everything in the room had happened ``days`` ago."""
    then = timezone.now() - days * DAY
    Game.objects.filter(code=table.code).update(created_at=then)
    Move.objects.filter(game__code=table.code).update(created_at=then)
    Player.objects.filter(game__code=table.code).update(joined_at=then)
    ChatMessage.objects.filter(game__code=table.code).update(created_at=then)
    Presence.objects.filter(game__code=table.code).update(seen_at=then)


def lobby_with_chat(days: int) -> Table:
    table = open_room(2, start=False)
    services.chat_post(code=table.code, controller=table.controllers[1], text="anyone else?")
    online(table.code, table.controllers[0])
    aged(table, days)
    return table


def exists(table: Table) -> bool:
    return Game.objects.filter(code=table.code).exists()


def test_a_room_never_started_goes_with_its_seats_chat_and_presence_after_30_days_unused() -> None:
    old = lobby_with_chat(31)
    pk = old.game.pk
    logged = Move.objects.filter(game_id=pk).count()  # its create and join among them
    assert logged >= 2
    assert sweeps.sweep()["rooms never started"] == {
        "rooms": 1,
        "seats": 2,
        "moves": logged,
        "chat lines": 1,
        "presence rows": 1,
    }
    assert not exists(old)
    for model in (Player, Move, ChatMessage, Presence):
        assert not model.objects.filter(game_id=pk).exists()


def test_a_room_still_gathering_players_is_kept_whatever_its_age() -> None:
    """Made long ago, but in use lately: a seat taken, a chat line, a page open, any action."""
    joined = lobby_with_chat(60)
    services.game_join(code=joined.code, name="Late", controller=services.new_controller())
    chatted = lobby_with_chat(60)
    services.chat_post(code=chatted.code, controller=chatted.controllers[0], text="still here")
    watched = lobby_with_chat(60)
    online(watched.code, services.new_controller())  # a spectator's page open now
    fresh = lobby_with_chat(29)
    assert sweeps.sweep()["rooms never started"]["rooms"] == 0
    assert all(exists(table) for table in (joined, chatted, watched, fresh))


def test_a_lobby_everyone_left_goes_but_a_game_played_is_never_swept() -> None:
    left = open_room(1, start=False)
    services.game_leave(
        code=left.code, controller=left.controllers[0], seat=0, expected_version=left.version(), action_id=action_id()
    )
    assert left.game.status == Game.Status.ABANDONED and left.game.started_at is None
    aged(left, 31)
    finished = open_room(2)
    play_to_end(finished, random.Random(7))
    abandoned = open_room(1)
    services.game_leave(
        code=abandoned.code,
        controller=abandoned.controllers[0],
        seat=0,
        expected_version=abandoned.version(),
        action_id=action_id(),
    )
    under_way = open_room(2)
    for table in (finished, abandoned, under_way):
        aged(table, 400)
    assert finished.game.status == Game.Status.FINISHED and abandoned.game.status == Game.Status.ABANDONED
    moves_before = Move.objects.filter(game__code=finished.code).count()
    assert sweeps.sweep()["rooms never started"]["rooms"] == 1
    assert not exists(left)
    assert all(exists(table) for table in (finished, abandoned, under_way))
    assert Move.objects.filter(game__code=finished.code).count() == moves_before  # the history, whole


def test_the_rooms_go_in_batches_each_in_its_own_transaction(settings: Any) -> None:
    settings.SWEEP_BATCH = 2
    tables = [lobby_with_chat(31) for _ in range(5)]
    with CaptureQueriesContext(connection) as queries:
        assert sweeps.sweep()["rooms never started"]["rooms"] == 5
    deletes = [q["sql"] for q in queries.captured_queries if q["sql"].startswith('DELETE FROM "games_game"')]
    assert len(deletes) == 3  # 2 + 2 + 1
    assert not any(exists(table) for table in tables)


def test_a_rematch_whose_lobby_was_swept_is_made_anew() -> None:
    table = open_room(2)
    play_to_end(table, random.Random(3))
    first = services.game_rematch(code=table.code, controller=table.controllers[0])
    Game.objects.filter(code=first.code).update(created_at=timezone.now() - 40 * DAY)
    aged(Table(code=first.code), 40)
    assert sweeps.sweep()["rooms never started"]["rooms"] == 1
    again = services.game_rematch(code=table.code, controller=table.controllers[1])
    assert again.code != first.code and exists(Table(code=again.code))


def test_zero_days_keeps_rooms_never_started_for_ever(settings: Any) -> None:
    settings.ROOMS_NEVER_STARTED_DAYS = 0
    old = lobby_with_chat(3000)
    assert sweeps.sweep()["rooms never started"] == {}
    assert exists(old)


def sign_in(model: Any, days: float, **fields: Any) -> Any:
    row = model.objects.create(
        user_agent=f"ua {days}", ip_address="198.51.100.7", username="ann", http_accept="*/*", path_info="/", **fields
    )
    model.objects.filter(pk=row.pk).update(attempt_time=timezone.now() - timedelta(days=days))
    return row


def test_the_sign_in_log_goes_after_90_days_and_attempts_once_their_cool_off_is_over() -> None:
    old_log, new_log = sign_in(AccessLog, 91), sign_in(AccessLog, 89)
    old_failure, new_failure = sign_in(AccessFailureLog, 91), sign_in(AccessFailureLog, 1)
    attempt = {"get_data": "", "post_data": "", "failures_since_start": 3}
    over = sign_in(AccessAttempt, 1 / 24, **attempt)  # an hour ago: the 15 minutes' cool-off is over
    counting = sign_in(AccessAttempt, 5 / 1440, **attempt)  # five minutes ago: it still counts
    assert sweeps.sweep()["sign-in log"] == {"attempts": 1, "sign-ins": 1, "failures": 1}
    assert set(AccessLog.objects.values_list("pk", flat=True)) == {new_log.pk}
    assert set(AccessFailureLog.objects.values_list("pk", flat=True)) == {new_failure.pk}
    assert set(AccessAttempt.objects.values_list("pk", flat=True)) == {counting.pk}
    assert old_log and old_failure and over


def test_without_a_cool_off_a_lockout_lasts_and_its_attempts_stay(settings: Any) -> None:
    settings.AXES_COOLOFF_TIME = None
    attempt = sign_in(AccessAttempt, 365, get_data="", post_data="", failures_since_start=5)
    assert "attempts" not in sweeps.sweep()["sign-in log"]
    assert AccessAttempt.objects.filter(pk=attempt.pk).exists()


def subscription(n: int, failing_days: float | None) -> PushSubscription:
    since = None if failing_days is None else timezone.now() - timedelta(days=failing_days)
    return PushSubscription.objects.create(
        endpoint=f"https://push.example.org/{n}", p256dh="k", auth="a", controller=f"c{n}", failing_since=since
    )


def test_a_push_subscription_failing_for_30_days_goes_and_a_live_one_stays() -> None:
    broken, lately, live = subscription(1, 31), subscription(2, 2), subscription(3, None)
    assert sweeps.sweep()["push subscriptions failing"] == {"subscriptions": 1}
    assert set(PushSubscription.objects.values_list("pk", flat=True)) == {lately.pk, live.pk}
    assert broken.pk not in PushSubscription.objects.values_list("pk", flat=True)


def test_a_push_subscription_no_seat_can_use_goes_after_30_days() -> None:
    """Anyone may store subscriptions, 10 a browser and fresh browsers at the rate limit: one that
    neither an account nor any seat's player owns can be told nothing, and would stay for ever."""
    table = open_room(2, start=False)
    old = timezone.now() - 31 * DAY
    stray, fresh = subscription(1, None), subscription(2, None)
    seated = PushSubscription.objects.create(
        endpoint="https://push.example.org/seated", p256dh="k", auth="a", controller=table.controllers[1]
    )
    user = get_user_model().objects.create_user("ana", password="pw")
    account = PushSubscription.objects.create(
        endpoint="https://push.example.org/account", p256dh="k", auth="a", controller="c-account", user=user
    )
    PushSubscription.objects.filter(pk__in=[stray.pk, seated.pk, account.pk]).update(created_at=old)
    assert sweeps.sweep()["push subscriptions unused"] == {"subscriptions": 1}
    assert set(PushSubscription.objects.values_list("pk", flat=True)) == {fresh.pk, seated.pk, account.pk}


def test_one_sweep_failing_does_not_stop_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = subscription(1, 31)

    def fails(*args: Any, **kwargs: Any) -> dict[str, int]:
        raise RuntimeError("boom")

    monkeypatch.setitem(sweeps.SWEEPS, "rooms never started", fails)
    done = sweeps.sweep()
    assert "rooms never started" not in done and done["push subscriptions failing"] == {"subscriptions": 1}
    assert not PushSubscription.objects.filter(pk=broken.pk).exists()


def test_the_command_counts_with_dry_run_and_deletes_without() -> None:
    old, kept = lobby_with_chat(31), lobby_with_chat(1)
    subscription(1, 31)
    sign_in(AccessLog, 100)
    out = StringIO()
    call_command("sweep", "--dry-run", stdout=out)
    text = out.getvalue()
    assert "rooms never started: would delete 1 rooms, 2 seats" in text, text
    assert "1 chat lines, 1 presence rows" in text
    assert "push subscriptions failing: would delete 1 subscriptions" in text
    assert "sign-in log: would delete 0 attempts, 1 sign-ins, 0 failures" in text
    assert exists(old) and PushSubscription.objects.exists() and AccessLog.objects.exists()
    out = StringIO()
    call_command("sweep", stdout=out)
    assert "rooms never started: deleted 1 rooms" in out.getvalue()
    assert not exists(old) and exists(kept)
    assert not PushSubscription.objects.exists() and not AccessLog.objects.exists()


def test_the_command_exits_non_zero_naming_the_sweep_that_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cron job or a deploy step sees a failed sweep by the exit status; the others still ran."""
    from django.core.management.base import CommandError

    old = lobby_with_chat(31)

    def fails(now: Any, *, dry_run: bool = False) -> dict[str, int]:
        raise RuntimeError("boom")

    monkeypatch.setitem(sweeps.SWEEPS, "push subscriptions failing", fails)
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError, match="1 of 4 sweeps failed: push subscriptions failing"):
        call_command("sweep", stdout=out, stderr=err)
    assert "push subscriptions failing: failed (see the log)" in err.getvalue()
    assert "rooms never started: deleted 1 rooms" in out.getvalue() and not exists(old)


def test_a_swept_rooms_action_is_refused_as_no_such_room() -> None:
    old = lobby_with_chat(31)
    sweeps.sweep()
    with pytest.raises(Game.DoesNotExist):
        services.game_join(code=old.code, name="Late", controller=services.new_controller())


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("opened", ["socket", "page without script", "ping", "chat line"])
def test_what_read_a_room_just_before_it_was_swept_finds_no_room(monkeypatch: pytest.MonkeyPatch, opened: str) -> None:
    """A page opening, a ping or a chat line that read the room as the sweep deleted it: the row it
    writes refers to no room, which is answered as for a code no room has, not with a server error."""
    from games.services import chat, presence
    from games.store import selectors

    old = lobby_with_chat(31)
    read, seat_for = selectors.room_or_none, chat._seat_for

    def read_then_swept(code: str) -> Game | None:
        game = read(code)
        assert sweeps.sweep()["rooms never started"]["rooms"] == 1
        return game

    def seat_then_swept(game: Game, controller: str, seat: int | None) -> int | None:
        assert sweeps.sweep()["rooms never started"]["rooms"] == 1
        return seat_for(game, controller, seat)

    monkeypatch.setattr(selectors, "room_or_none", read_then_swept)
    monkeypatch.setattr(chat, "_seat_for", seat_then_swept)
    controller = old.controllers[1]
    if opened == "socket":
        assert presence.arrive(old.code, "ws.late", controller) is None
    elif opened == "page without script":
        assert presence.at_table_without_script(old.code, controller) is None
    elif opened == "ping":
        assert presence.seen(old.code, "ws.late", controller) == (None, False)
    else:
        with pytest.raises(Game.DoesNotExist):
            services.chat_post(code=old.code, controller=controller, text="still here?")
    assert not exists(old) and not Presence.objects.exists() and not ChatMessage.objects.exists()


def test_a_clock_gone_fast_sweeps_no_room_the_database_clock_says_was_used_lately(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """This process's clock 40 days fast: a room used yesterday is not a month unused, nor does the
    scheduler's round take it for one; once both clocks agree it is old, it goes."""
    from games.scheduling import work

    lately, old = lobby_with_chat(1), lobby_with_chat(31)
    fast = timezone.now() + 40 * DAY
    monkeypatch.setattr(timezone, "now", lambda: fast)
    assert sweeps.sweep()["rooms never started"]["rooms"] == 1
    assert exists(lately) and not exists(old)
    done = work.sweep_if_due()
    assert done is not None and done["rooms never started"]["rooms"] == 0
    assert exists(lately)


@pytest.mark.postgres
def test_the_sweep_finds_the_rooms_never_started_by_an_index_of_them_alone() -> None:
    """A site that ran for years has millions of games played and many given up: the hourly look
    for rooms never started reads those rooms only, not every game of a status."""
    then = timezone.now() - 400 * DAY
    Game.objects.bulk_create(
        Game(
            code=f"played{i}",
            status=Game.Status.ABANDONED if i % 4 == 0 else Game.Status.FINISHED,
            started_at=then,
            server_seed="s",
            seed_commitment="c",
        )
        for i in range(20000)
    )
    Game.objects.filter(code__startswith="played").update(created_at=then)
    lobby_with_chat(31)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE games_game")
    idle = sweeps._idle_rooms(timezone.now() - 30 * DAY).order_by("pk").values_list("pk", "code")[:500]
    plan = idle.explain()
    assert "game_never_started" in plan, plan


@pytest.mark.parametrize("model", [AccessLog, AccessFailureLog, AccessAttempt])
def test_the_sign_in_logs_tables_have_an_index_on_the_time_the_sweep_goes_by(model: Any) -> None:
    """The sign-in log sweep picks rows by ``attempt_time``, which django-axes does not index: each
    round would read the whole of 90 days of sign-ins (accounts/migrations/0007 adds the index)."""
    table = model._meta.db_table
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    assert any(c["index"] and c["columns"] == ["attempt_time"] for c in constraints.values()), constraints


@pytest.mark.postgres
def test_the_sign_in_log_sweep_finds_the_old_sign_ins_by_their_time() -> None:
    """A busy site signs players in all day: the hourly look for sign-ins 90 days old reads those, not the log."""
    AccessLog.objects.bulk_create(
        AccessLog(user_agent="ua", ip_address="198.51.100.7", username=f"p{i}", http_accept="*/*", path_info="/")
        for i in range(20000)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE axes_accesslog")
    before = timezone.now() - 90 * DAY
    plan = AccessLog.objects.filter(attempt_time__lt=before).order_by("pk").values_list("pk", flat=True)[:500].explain()
    assert "attempt_time" in plan.split("Index", 1)[-1] and "Seq Scan" not in plan, plan

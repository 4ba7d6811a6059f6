"""The sweeps: rows nothing will read again, deleted so that a busy site's tables do not grow without end.

- **Rooms never started** (``ROOMS_NEVER_STARTED_DAYS``, 30): a room whose game never started
  (still in its lobby, or left by everyone before the start) in which nothing happened for that
  many days: no seat taken, no Move, no chat line, no page open. With it go its seats, its Move
  log (joins and leaves), its chat and its presence rows. Its link then answers that no room has
  the code, and says such rooms are removed (games.web.errorpages); a page of it still open (whose
  presence went stale) is told at once, its socket closed as for an unknown room (``events.gone``).
- **The sign-in log** (``SIGN_IN_LOG_DAYS``, 90): django-axes' log of sign-ins (``AccessLog``,
  and ``AccessFailureLog`` where it is turned on) older than that, and its failed attempts
  (``AccessAttempt``) once their cool-off is over, when they no longer count towards a lockout
  (django-axes deletes those only at the next sign-in attempt). With no cool-off set a lockout
  lasts until an administrator lifts it, and the attempts stay.
- **Push subscriptions that do not work** (``PUSH_FAILING_DAYS``, 30): every push to them has
  failed for that long (one the push service says is gone, 404 or 410, is sent nothing more
  from then on, ``notices.send_push``, and goes with these).
- **Push subscriptions nobody can be told on** (``PUSH_UNUSED_DAYS``, 30): made that long ago by a
  browser signed in to no account that holds no seat (it never took one, or its rooms were swept).
  Anyone may store subscriptions, a few a browser and fresh browsers at the rate limit; no notice
  would ever go to these, so nothing else would delete them. A page of that browser that still has
  its pushes on posts its subscription again at its next visit to Your games.

A game that was started is history (replays, ratings, the admin's review) and is never swept,
whatever became of it. 0 days keeps a kind for ever.

Each sweep deletes in transactions of at most ``SWEEP_BATCH`` rows of its kind, so a large backlog
never holds a long transaction or its locks; each batch is chosen again under its transaction, so
a room that someone joined meanwhile stays. The scheduler runs them (games.scheduling.work.sweep_if_due:
once every ``SWEEP_EVERY`` seconds across the site's processes); ``manage.py sweep`` runs them
at once, or counts what they would delete (``--dry-run``). Ages are measured on the earlier of
this process's clock and the database's (``clock``).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, Model, OuterRef, Q, QuerySet
from django.utils import timezone

from games.services import events
from games.store import moves
from games.store.models import ChatMessage, Game, Move, Player, Presence, PushSubscription

log = logging.getLogger(__name__)

# What each sweep counts, by the model's label in ``QuerySet.delete``'s answer.
ROOM_PARTS = {
    "games.Game": "rooms",
    "games.Player": "seats",
    "games.Move": "moves",
    "games.ChatMessage": "chat lines",
    "games.Presence": "presence rows",
}


def _days(name: str) -> int:
    days: int = getattr(settings, name)
    return days


def rooms_never_started(now: datetime, *, dry_run: bool = False) -> dict[str, int]:
    """Delete the rooms never started in which nothing happened for ``ROOMS_NEVER_STARTED_DAYS``."""
    days = _days("ROOMS_NEVER_STARTED_DAYS")
    if days <= 0:
        return {}
    idle = _idle_rooms(now - timedelta(days=days))
    if dry_run:
        ids = idle.values("pk")
        return {
            "rooms": idle.count(),
            "seats": Player.objects.filter(game__in=ids).count(),
            "moves": Move.objects.filter(game__in=ids).count(),
            "chat lines": ChatMessage.objects.filter(game__in=ids).count(),
            "presence rows": Presence.objects.filter(game__in=ids).count(),
        }
    counts: Counter[str] = Counter({part: 0 for part in ROOM_PARTS.values()})
    while True:
        with transaction.atomic():
            batch = idle.order_by("pk")
            if connection.features.has_select_for_update_skip_locked:
                # A room an action holds is in use: it is left for the next sweep.
                batch = batch.select_for_update(skip_locked=True, of=("self",))
            rooms = list(batch.values_list("pk", "code")[: settings.SWEEP_BATCH])
            if not rooms:
                break
            pks = [pk for pk, _ in rooms]
            # The Move log first: a Move keeps its seat's Player row (PROTECT) from going before it.
            _, logged = Move.objects.filter(game__in=pks).delete()
            _, deleted = Game.objects.filter(pk__in=pks).delete()
        codes = [code for _, code in rooms]
        _forget(codes)  # this process's copy of each room's last row
        events.gone(codes)  # a page still open on one says at once that it no longer exists
        for label, count in (Counter(logged) + Counter(deleted)).items():
            if label in ROOM_PARTS:
                counts[ROOM_PARTS[label]] += count
        if len(rooms) < settings.SWEEP_BATCH:
            break
    return dict(counts)


def _idle_rooms(since: datetime) -> QuerySet[Game]:
    """The rooms never started whose last sign of use is before ``since``: made, a seat taken, a Move,
    a chat line, a page open."""

    def used(model: type[Model], field: str) -> Exists:
        return Exists(model._default_manager.filter(game=OuterRef("pk"), **{f"{field}__gte": since}))

    return (
        Game.objects.filter(started_at__isnull=True, status__in=(Game.Status.LOBBY, Game.Status.ABANDONED))
        .filter(created_at__lt=since)
        .exclude(used(Move, "created_at"))
        .exclude(used(Player, "joined_at"))
        .exclude(used(ChatMessage, "created_at"))
        .exclude(used(Presence, "seen_at"))
    )


def _forget(codes: list[str]) -> None:
    for code in codes:
        moves.forget(code)


def sign_in_log(now: datetime, *, dry_run: bool = False) -> dict[str, int]:
    """Delete django-axes' sign-ins logged more than ``SIGN_IN_LOG_DAYS`` ago, and its attempts past their cool-off."""
    from axes.conf import settings as axes_settings  # django-axes' defaults filled in
    from axes.helpers import get_cool_off
    from axes.models import AccessAttempt, AccessFailureLog, AccessLog

    counts: dict[str, int] = {}
    cool_off = get_cool_off(None)
    if cool_off is not None:
        if axes_settings.AXES_USE_ATTEMPT_EXPIRATION:
            over = AccessAttempt.objects.filter(expiration__expires_at__lte=now)
        else:
            over = AccessAttempt.objects.filter(attempt_time__lte=now - cool_off)
        counts["attempts"] = _delete(over, dry_run)
    days = _days("SIGN_IN_LOG_DAYS")
    if days > 0:
        before = now - timedelta(days=days)
        counts["sign-ins"] = _delete(AccessLog.objects.filter(attempt_time__lt=before), dry_run)
        counts["failures"] = _delete(AccessFailureLog.objects.filter(attempt_time__lt=before), dry_run)
    return counts


def push_failing(now: datetime, *, dry_run: bool = False) -> dict[str, int]:
    """Delete the push subscriptions every push to which has failed for ``PUSH_FAILING_DAYS``."""
    days = _days("PUSH_FAILING_DAYS")
    if days <= 0:
        return {}
    failing = PushSubscription.objects.filter(failing_since__lt=now - timedelta(days=days))
    return {"subscriptions": _delete(failing, dry_run)}


def push_unused(now: datetime, *, dry_run: bool = False) -> dict[str, int]:
    """Delete the push subscriptions made ``PUSH_UNUSED_DAYS`` ago that no account owns and whose
    browser holds no seat: no notice can ever go to them (``notices.of_seat``)."""
    days = _days("PUSH_UNUSED_DAYS")
    if days <= 0:
        return {}
    seats = Player.objects.filter(Q(controller=OuterRef("controller")) | Q(away_controller=OuterRef("controller")))
    unused = PushSubscription.objects.filter(user=None, created_at__lt=now - timedelta(days=days)).exclude(
        Exists(seats)
    )
    return {"subscriptions": _delete(unused, dry_run)}


def _delete(rows: QuerySet[Model], dry_run: bool) -> int:
    """Delete ``rows`` a batch at a time, each in its own transaction; returns how many went (or would)."""
    if dry_run:
        return rows.count()
    total = 0
    label = rows.model._meta.label
    while True:
        with transaction.atomic():
            pks = list(rows.order_by("pk").values_list("pk", flat=True)[: settings.SWEEP_BATCH])
            if not pks:
                break
            _, deleted = rows.filter(pk__in=pks).delete()
        total += deleted.get(label, 0)
        if len(pks) < settings.SWEEP_BATCH:
            break
    return total


Sweep = Callable[..., dict[str, int]]
SWEEPS: dict[str, Sweep] = {
    "rooms never started": rooms_never_started,
    "sign-in log": sign_in_log,
    "push subscriptions failing": push_failing,
    "push subscriptions unused": push_unused,
}


def clock() -> datetime:
    """The time the sweeps go by: the earlier of this process's clock and the database's.

    A clock gone fast (a wrong date set by hand, a virtual machine's clock) would otherwise
    sweep rooms a player used minutes ago as if a month had passed; a room goes only once both
    clocks say it has been unused that long. The database's clock is the site's shared one
    (games.scheduling.work.beat); the server's own, on a single host, is the same.
    """
    here = timezone.now()
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT statement_timestamp()")
            there: datetime = cursor.fetchone()[0]
        elif connection.vendor == "sqlite":
            cursor.execute("SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')")
            there = datetime.fromisoformat(cursor.fetchone()[0]).replace(tzinfo=UTC)
        else:
            return here
    return min(here, there)


def sweep(now: datetime | None = None, *, dry_run: bool = False) -> dict[str, dict[str, int]]:
    """Every sweep in turn; what each deleted (or, ``dry_run``, would), logged when anything was.

    ``now`` stands for the clock (``clock``). One that fails is logged and the others still run.
    """
    now = now or clock()
    done: dict[str, dict[str, int]] = {}
    for name, run in SWEEPS.items():
        try:
            done[name] = counts = run(now, dry_run=dry_run)
        except Exception:
            log.exception("the sweep of %s failed; it runs again at the next sweep", name)
            continue
        if any(counts.values()) and not dry_run:
            log.info("swept %s: %s", name, ", ".join(f"{count} {what}" for what, count in counts.items()))
    return done

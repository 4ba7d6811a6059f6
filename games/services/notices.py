"""Telling a player it is their turn in a game at your own pace, and how it ended: e-mail and Web Push.

A notice is owed in the transaction of the move that made it someone's turn (``owe``,
called by ``games.services.actions.record``): a ``Notice`` row and, in the same
transaction, the task that sends it (Django's Tasks framework with django-tasks-db's
queue, whose ``enqueue`` writes its row on the caller's connection, so it commits or rolls
back with the move). A reminder is owed with it, due when a quarter of the time per move
is left (the task's ``run_after``); when the turn's deadline moves later after it went
(staff gave more time, an outage's time was given back), it is owed again for the new one.

``send_notice`` runs in a background worker, never in the action's request: under the
notice's row lock it checks the notice is not done nor taken by a live worker and that the
turn is still the one it is about, marks it taken, commits, sends (so no lock is held while
a mail server or push service answers), then marks it done. Queued twice, it is sent once;
only a task queued for the time the notice is due now acts (one queued before the notice was
put off or queued for another time stops quietly), so one task at a time puts it off and
queues the next. A worker that dies while sending leaves it taken, and after ``LEASE`` the recovery sweep
(``recover``, run by every worker at its start and every ``RECOVER_EVERY`` seconds) queues
it again, as it does a notice whose queued task a dead worker had claimed. So a restart
neither loses nor repeats a notice; only a worker killed in the very moment of sending
(after the mail server took the mail, before the mark was written) sends it again.

Who is at the table is read when the notice falls due (``in_sight``): a player with a room page
of theirs shown is told by the page, and their "your turn" is dropped (so is it when a page of
theirs showed the room at any moment since the turn became theirs); their reminder is put off.
A page hidden (another tab in front, the phone's browser in the background with the page still
connected) does not count once every page of theirs has been hidden for ``HIDDEN_AWAY``: until
then the notice is put off, so a glance at another tab sends nothing. Only the sending task
decides, under the row lock, so pages hidden and shown over and over still send a notice once.

The end of a game at your own pace played to its end owes each person in it (once per browser or
account, on the first of its seats) a "game over" with the ranking and the scores (``ended``), in
the transaction of the move that ended it, sent as a "your turn" is and by the same rules: not to
the person whose own move ended it (the page they played it on showed them the end), nor to one
whose room page showed the end.

A rematch seats the players of the game before, but only the one who asked for it chose to play
it: the others' notices of it (their turns, reminders included, and its end) are dropped until
they show they follow it, by opening its room's page or asking for the rematch themselves
(``Player.follows``, ``games.services.seats.seats_follow``). Nothing is lost: the page they open
shows the turn, the reminder of a turn still owed goes as ever, and every later notice too.

When a player's time to move runs out twice in a row in a game at your own pace, the computer
plays their seat until they come back (``games.services.clock``), and no "your turn" goes to the
seat meanwhile: the move that hands it over owes its player one notice that says so
(``taken_over``), sent by the same task and by the same rules as a "your turn". Dropped when they
are back (or the game over) before it goes, or when a page of theirs showed the room since.

Every channel here is plain text (an e-mail's subject and body, a notification's title and body):
names go in as typed, without the isolates (FSI…PDI) of the pages' sentences, which some mail
programs and notification centres show as boxes.
"""

from __future__ import annotations

import base64
import functools
import json
import logging
import re
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import import_module
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMessage
from django.db import close_old_connections, connections, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.encoding import punycode
from django.utils.translation import gettext as _

from games.domain.codes import shown_code
from games.services import waiting, words
from games.services.codes import shown_name
from games.services.deadline import TIMEOUT_ACTION
from games.services.waiting import Owed, turn_key
from games.store.models import Game, Notice, NoticeSettings, Player, PushSubscription
from games.store.selectors import connected_seats_in_sight, duration, time_left

if TYPE_CHECKING:
    from py_vapid import Vapid

if find_spec("django.tasks"):  # Django 6: the Tasks framework is built in
    from django.tasks import task  # type: ignore[import-not-found,no-redef,unused-ignore]
else:  # Django 5.2: its backport
    from django_tasks import task  # type: ignore[no-redef,unused-ignore]

log = logging.getLogger(__name__)

LEASE = timedelta(minutes=5)  # a notice taken this long ago and not done: its worker died
GRACE = timedelta(minutes=2)  # a notice due this long ago and not taken: its queued task was lost
# The due time of a reminder that fell due in a pause: none, until the resume gives it one.
PAUSED = datetime(9999, 1, 1, tzinfo=UTC)
MAX_ATTEMPTS = 5
RECOVER_EVERY = 60.0  # seconds between a worker's recovery sweeps
PRUNE_EVERY = 3600.0  # seconds between two prunings (``prune``) by a worker's sweep
# Finished task results, and the notices done of games over, are kept this long (as
# django-tasks-db's own ``prune_db_task_results`` keeps results by default).
KEPT = timedelta(days=14)
# Seconds before an in-process task worker that failed runs again (``work_on``): doubled after
# each failure in a row, up to the most.
WORKER_RETRY = 1.0
WORKER_RETRY_MOST = 60.0
REMINDER_AT = 4  # the reminder goes when 1/REMINDER_AT of the time per move is left


HELD = timedelta(minutes=1)  # the least a reminder waits for the player's open tabs to close
# A resume tells the player to move again unless their "your turn" of this turn was sent (or
# dropped, the room open) less than this ago: a host pausing and resuming over and over does
# not mail them each time.
RETOLD_AFTER = timedelta(hours=1)
PUSH_TIMEOUT = 10  # seconds a push service has to answer
# Browsers (push subscriptions) one controller is told on: a person's phones, tablets and
# computers signed in to one account. A new one past this drops the one subscribed first
# (games.services.subscriptions), so no browser can store rows without end, nor make one
# notice's sending take minutes.
PUSH_PER_CONTROLLER = 10
STOP_SALT = "games.services.notices.stop"


def remind_at(game: Game) -> datetime | None:
    """When the reminder of the move ``game`` waits for is due: a quarter of the time per move before
    its deadline (None: no deadline)."""
    if game.turn_deadline is None:
        return None
    return game.turn_deadline - timedelta(seconds=game.turn_timer / REMINDER_AT)


# --- owing: inside the move's transaction --------------------------------------------------


def owe(game: Game, owed: Owed) -> None:
    """The notice (and its reminder) for the turn that ``game``'s new state gives ``owed.seat``.

    Called by ``record`` after the Move's write, in its transaction; the unique constraint
    on (game, turn, seat, kind) keeps it to one per turn whatever calls it. A turn their own
    move gave them (``owed.turn_notice`` False) owes only the reminder. Owed again when the
    game resumes (``owed.again``), the turn's rows are used again (``_owe_again``).
    """
    now = timezone.now()
    with transaction.atomic():
        notices = []
        if owed.turn_notice:
            notices.append(
                Notice(
                    game=game, player_id=owed.player_id, kind=Notice.Kind.TURN, turn=owed.turn, seat=owed.seat,
                    text=owed.text, event=owed.event, due_at=now,
                )
            )  # fmt: skip
        due = remind_at(game) if game.turn_timer else None
        if due is not None:
            notices.append(
                Notice(
                    game=game, player_id=owed.player_id, kind=Notice.Kind.REMINDER, turn=owed.turn,
                    seat=owed.seat, text=owed.text, event=owed.event, due_at=max(due, now),
                )
            )  # fmt: skip
        if owed.deadline_moved:
            notices = _remind_again(game, owed, notices, now)
        elif owed.again:
            notices = _owe_again(game, owed, notices, now)
        for notice in notices:
            notice.save()
            queue(notice)


def _owe_again(game: Game, owed: Owed, notices: list[Notice], now: datetime) -> list[Notice]:
    """The game resumed in ``owed``'s turn: of ``notices``, those to write and queue.

    The "your turn" is told again, worded for the resume, on the turn's row (done, or held by
    the pause), unless a worker is sending it this moment or it was done less than
    ``RETOLD_AFTER`` ago. The reminder owed already keeps its time (``resumed`` queues it). A
    resume by the player to move owes no "your turn" and drops the one still waiting: they know.
    """
    kept = {n.kind: n for n in Notice.objects.select_for_update().filter(game=game, turn=owed.turn, seat=owed.seat)}
    turn = kept.get(Notice.Kind.TURN)
    if turn is not None and not owed.turn_notice and turn.done_at is None and turn.claimed_at is None:
        turn.done_at, turn.outcome = now, "dropped: the player resumed the game"
        turn.save(update_fields=["done_at", "outcome"])
    written = []
    for notice in notices:
        old = kept.get(notice.kind)
        if old is None:
            written.append(notice)
        elif notice.kind == Notice.Kind.TURN:
            being_sent = old.done_at is None and old.claimed_at is not None and old.claimed_at > now - LEASE
            told_lately = old.done_at is not None and old.done_at > now - RETOLD_AFTER
            if not (being_sent or told_lately):
                old.player_id, old.text, old.event, old.due_at = notice.player_id, notice.text, notice.event, now
                old.owed_at = now
                old.done_at, old.claimed_at, old.attempts, old.outcome = None, None, 0, ""
                written.append(old)
    return written


def _remind_again(game: Game, owed: Owed, notices: list[Notice], now: datetime) -> list[Notice]:
    """The deadline of ``owed``'s turn moved later: of ``notices`` (its reminder, due when a quarter
    of the time per move is left before the new deadline), those to write and queue.

    A reminder that went already (or is being sent this moment, for the deadline before) is
    owed again, on its row, for the new time: it told the player of a deadline that no longer
    stands, and the new one would otherwise come with no warning. Not when that time has come
    already: the new deadline is less than a quarter away, and the reminder that went came with
    at least as much left as the player has now. A reminder still owed keeps its row and its
    task, which finds it early and waits for the new time (``send_notice``); so however often
    the deadline moves, the turn's reminder is queued once for each time it may go.
    """
    written = []
    for notice in notices:
        if notice.due_at <= now:
            continue
        rows = Notice.objects.select_for_update().filter(game=game, turn=owed.turn, seat=owed.seat, kind=notice.kind)
        kept = rows.first()
        if kept is None:
            written.append(notice)  # none was owed: the turn began with no clock to remind of
            continue
        being_sent = kept.done_at is None and kept.claimed_at is not None and kept.claimed_at > now - LEASE
        if kept.done_at is None and not being_sent:
            continue
        kept.player_id, kept.due_at, kept.owed_at = notice.player_id, notice.due_at, now
        # A worker sending it for the deadline before marks done only its own claim (``send_notice``).
        kept.done_at, kept.claimed_at, kept.attempts, kept.outcome = None, None, 0, ""
        written.append(kept)
    return written


def queue(notice: Notice) -> None:
    """Queue the task that sends ``notice`` at its due time (in the caller's transaction).

    The task carries that time: one queued for a time the notice no longer has (it was put off,
    or queued again for another time since) finds a newer task queued after it and stops
    quietly, so a notice has one task that acts, however often it was queued.
    """
    when = notice.due_at if notice.due_at > timezone.now() else None
    (send_notice.using(run_after=when) if when else send_notice).enqueue(notice.pk, notice.due_at.isoformat())


# --- sending: in the worker ------------------------------------------------------------------


@dataclass(frozen=True)
class Letter:
    """What a notice says, for every channel."""

    subject: str
    line: str
    url: str
    left: float | None  # seconds left to move (None: no time per move)
    language: str = "en"  # the language it is worded in
    stop_label: str = "Stop these"  # the notification's button that stops a device's pushes
    replay: str = ""  # the game's replay (a "game over" only)


@task()
def send_notice(notice_id: int, due: str | None = None) -> str:
    """Send one owed notice, once (the module docstring); returns what was done, for the task's record.

    ``due``: the time the notice was due when this task was queued (``queue``); a task queued
    without one (before tasks carried it) acts whatever the notice's time.
    """
    now = timezone.now()
    with transaction.atomic():
        notice = Notice.objects.select_for_update().filter(pk=notice_id).first()
        if notice is None or notice.done_at is not None:
            return "done already"
        if notice.claimed_at is not None and notice.claimed_at > now - LEASE:
            return "being sent by another worker"
        if due is not None and datetime.fromisoformat(due) != notice.due_at:
            # Put off, or queued again for another time, since this task was queued: the task
            # queued then acts. Left to act too, each such copy would put the notice off and
            # queue itself again: a chain of tasks more for every copy.
            return "queued again since"
        game = Game.objects.get(pk=notice.game_id)
        if game.room.paused and game.status == Game.Status.PLAYING:
            # The clock stands still: the notice waits, owed, until the host resumes (``resumed``;
            # the resume tells the player to move anew, ``owe``), out of the recovery sweep's
            # sight, which would queue it again every minute of the pause. A "your turn" sent now
            # would have the player find the game paused, and hear nothing when it goes on.
            notice.outcome, notice.due_at = "waiting: the game is paused", PAUSED
            notice.save(update_fields=["outcome", "due_at"])
            return notice.outcome
        why_not = moved_on(notice, game)
        if why_not:
            notice.done_at, notice.outcome = now, why_not
            notice.save(update_fields=["done_at", "outcome"])
            return why_not
        later = remind_at(game) if notice.kind == Notice.Kind.REMINDER else None
        if later is not None and later > now + timedelta(seconds=30):
            # The deadline moved later (a pause, staff extending it): remind then instead.
            notice.due_at = later
            notice.save(update_fields=["due_at"])
            queue(notice)
            return "not due yet"
        sight = in_sight(notice, game, now)
        if sight.seen and notice.kind in (Notice.Kind.TURN, Notice.Kind.OVER, Notice.Kind.AWAY):
            # The page itself said whose turn it is (its title, the chime), showed the end, or the seat
            # a computer plays for them with its "I'm back", where the player looks: an e-mail and a
            # push at every move would be noise.
            why = "has the room open" if sight.shown else "looked at the room since the turn became theirs"
            notice.done_at, notice.outcome = now, f"dropped: the player {why}"
            notice.save(update_fields=["done_at", "outcome"])
            return notice.outcome
        if sight.shown:
            # The reminder is the last warning before the turn is played for them: a tab left open
            # elsewhere (the office computer) puts it off, and it goes once no tab shows the room.
            notice.outcome, notice.due_at = "put off: the player has the room open", now + held(game, now)
            notice.save(update_fields=["outcome", "due_at"])
            queue(notice)
            return notice.outcome
        if sight.hidden_until is not None:
            # Every room page of theirs is hidden, the last one less than HIDDEN_AWAY ago: a glance
            # at another tab sends nothing, and a page shown again by then drops the "your turn".
            notice.outcome, notice.due_at = "put off: the player's room page was hidden just now", sight.hidden_until
            notice.save(update_fields=["outcome", "due_at"])
            queue(notice)
            return notice.outcome
        notice.claimed_at = now
        notice.attempts += 1
        notice.save(update_fields=["claimed_at", "attempts"])
    outcome = deliver(notice, game)
    # Only this worker's claim: a reminder owed again meanwhile (the deadline moved later while
    # it was being sent, ``_remind_again``) stays owed for the new deadline.
    Notice.objects.filter(pk=notice.pk, claimed_at=notice.claimed_at).update(
        done_at=timezone.now(), outcome=outcome[:200]
    )
    return outcome


def resumed(game: Game) -> None:
    """The host resumed the game: the notices the pause held are queued again, each for its time
    (in the caller's transaction; ``send_notice`` drops one whose turn moved on).

    A reminder the pause did not hold still has its task queued: run at the time it was owed
    for, it finds the deadline moved on by the pause and waits until a quarter is left of it
    (``send_notice``'s "not due yet"). Queued again here, it would have two.
    """
    now = timezone.now()
    for notice in Notice.objects.filter(game=game, done_at=None, due_at=PAUSED):
        later = remind_at(game) if notice.kind == Notice.Kind.REMINDER and game.turn_timer else None
        due = max(now, later) if later is not None else now
        # The game goes on from now: a page that showed the paused room told the player nothing of that.
        notice.due_at, notice.owed_at = due, now
        notice.save(update_fields=["due_at", "owed_at"])
        queue(notice)


def ended(game: Game, *, actor: str = "", action_id: str = "") -> None:
    """``game`` is over: the notices a pause held are dropped, and a game at your own pace played to
    its end owes its "game over" (in the caller's transaction, that of the move that ended it:
    ``actor``'s, as ``action_id``).

    Every other notice still owed has its task queued, which drops it (``moved_on``); one the
    pause held has none, and no resume is coming to queue it, so it would be owed for ever.
    """
    now = timezone.now()
    Notice.objects.filter(game=game, done_at=None, due_at=PAUSED).update(
        done_at=now, outcome="dropped: the game is over"
    )
    if game.pace == Game.Pace.OWN and game.status == Game.Status.FINISHED:
        _owe_the_end(game, actor=actor, action_id=action_id, now=now)


def _owe_the_end(game: Game, *, actor: str, action_id: str, now: datetime) -> None:
    """The "game over" of each person still in ``game``: once per browser (or account), on the first
    of its seats, as a pass-and-play device is told a turn once. Not to the one whose own move ended
    it, as no "your turn" goes to a player whose own move gave them the turn (``waiting.watch``):
    the timer's move for them is not theirs."""
    room = game.room
    turn = room.rules.turns_played if room.rules is not None else 0
    own = not action_id.startswith(TIMEOUT_ACTION)
    seen: set[str] = set()
    for index, seat in enumerate(room.seats):
        controller = seat.persons_controller
        if not seat.active or not controller or controller in seen:
            continue
        seen.add(controller)
        if own and controller == actor:
            continue
        notice = Notice(
            game=game, player_id=seat.player, kind=Notice.Kind.OVER, turn=turn, seat=index,
            text="The game is over", event={"what": "over"}, due_at=now, owed_at=now,
        )  # fmt: skip
        notice.save()
        queue(notice)


def taken_over(game: Game, seat: int) -> None:
    """The computer took over ``seat`` of ``game`` for its player, whose time to move ran out twice in a
    row: in a game at your own pace, they are owed a notice that says so (in the caller's transaction,
    that of the move that handed it over).

    Nobody watches such a game's table, and no "your turn" goes to the seat while the computer
    plays it (``Room.waits_for``): without it the player would learn of it only on Your games.
    One notice for the seat (the unique constraint, its turn the turns played): its device or
    account is told once, whichever of its seats it is.
    """
    room = game.room
    entry = room.seats[seat]
    if game.pace != Game.Pace.OWN or game.status != Game.Status.PLAYING or not entry.away_controller:
        return
    now = timezone.now()
    notice = Notice(
        game=game, player_id=entry.player, kind=Notice.Kind.AWAY, seat=seat,
        turn=room.rules.turns_played if room.rules is not None else 0,
        text="The computer plays for them", event={"what": "away"}, due_at=now, owed_at=now,
    )  # fmt: skip
    notice.save()
    queue(notice)


def set_back(step: timedelta, since: datetime) -> int:
    """The server's clock was set back by ``step``: the notices owed for after ``since`` (on the clock
    before) move back with it, and are queued again for their new time, since the task queued for
    the old one would wait the step out (``send_notice`` sends a notice once however often it is
    queued). In the caller's transaction; returns how many."""
    owed = Notice.objects.select_for_update().filter(done_at=None, claimed_at=None, due_at__gt=since)
    count = 0
    for notice in owed.exclude(due_at=PAUSED):
        notice.due_at -= step
        notice.save(update_fields=["due_at"])
        queue(notice)
        count += 1
    return count


def moved_on(notice: Notice, game: Game) -> str:
    """Why the notice is not to be sent any more ("" if it is)."""
    why = _seat_moved_on(notice, game)
    if not why and not Player.objects.filter(pk=notice.player_id, follows=True).exists():
        # Seated by a rematch someone else asked for, and never opened (``Player.follows``): the page
        # they open shows them the turn, and their notices start then.
        return NOT_FOLLOWED
    return why


NOT_FOLLOWED = "dropped: the player has not followed the rematch"


def _seat_moved_on(notice: Notice, game: Game) -> str:
    if notice.kind == Notice.Kind.OVER:
        entry = game.room.seats[notice.seat]
        if entry.player != notice.player_id or not entry.person:
            return "dropped: the seat is not its player's now"
        if not entry.persons_controller:
            # Its account was deleted since the end (games.services.seats.seats_forget): nobody holds it.
            return "dropped: the seat is nobody's now"
        return ""
    if game.status != Game.Status.PLAYING:
        return "dropped: the game is over"
    if notice.kind == Notice.Kind.AWAY:
        entry = game.room.seats[notice.seat]
        if entry.player != notice.player_id:
            return "dropped: the seat is not its player's now"
        if entry.human:
            return "dropped: the player is back"
        if not entry.away_controller:
            return "dropped: the seat is nobody's now"  # given up since, or its account deleted
        return ""
    if turn_key(game) != [notice.turn, notice.seat]:
        return "dropped: the turn moved on"
    entry = game.room.seats[notice.seat]
    if entry.player != notice.player_id or not entry.human:
        return "dropped: the seat is not its player's now"
    if notice.kind == Notice.Kind.REMINDER and game.turn_deadline is None:
        return "dropped: no clock runs"
    return ""


def hidden_away() -> timedelta:
    """How long every room page of a player must have been hidden before the notices count them away
    from the table (``settings.HIDDEN_AWAY``)."""
    return timedelta(seconds=settings.HIDDEN_AWAY)


@dataclass(frozen=True)
class Sight:
    """What the sockets of a notice's player say of them (``in_sight``)."""

    shown: bool = False  # a page of theirs shows the room now
    # A page of theirs showed the room at some moment since the notice's turn became theirs: it
    # said the turn is theirs where they look (this one, or one hidden since).
    seen: bool = False
    # Every page of theirs is hidden, the last one for less than ``hidden_away()``: when it will
    # have been hidden that long (None: no page, or none hidden lately, counts them at the table).
    hidden_until: datetime | None = None


def in_sight(notice: Notice, game: Game, now: datetime) -> Sight:
    """Whether the room is in sight of the notice's player, by the sockets of theirs connected to it.

    A page hidden (another tab in front, the phone's browser in the background, with its socket
    still connected) is not a player at the table: once all of theirs have been hidden for
    ``hidden_away()`` they are told as if none were open. One page shown is enough to be there,
    on any of their devices.
    """
    since = [hidden for seats, hidden in connected_seats_in_sight(game) if notice.seat in seats]
    if not since:
        return Sight()
    if None in since:
        return Sight(shown=True, seen=True)
    last = max(hidden for hidden in since if hidden is not None)
    until = last + hidden_away()
    return Sight(seen=last > notice.owed_at, hidden_until=until if until > now else None)


def held(game: Game, now: datetime) -> timedelta:
    """How long a reminder waits for the player's open tabs to close before it is looked at again:
    an eighth of the time left to move (so it still comes with most of what was left), at least
    ``HELD``. A tab open for days is looked at a few dozen times, not once a minute."""
    left = (game.turn_deadline - now) if game.turn_deadline is not None else timedelta(0)
    return max(HELD, left / 8)


def letter(notice: Notice, game: Game, language: str = "") -> Letter:
    """What ``notice`` says, in ``language`` (settings.LANGUAGES; the site's default when it is none of them).

    To a device (or an account) that plays several seats of the game, pass-and-play, it says whose
    turn it is by the seat's name: "Your turn" would not tell the people at it which of them is to play.
    """
    url = settings.SITE_URL + reverse("room", args=[game.code])
    language = language if language in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE
    if notice.kind == Notice.Kind.OVER:
        return the_end(game, url, language)
    if notice.kind == Notice.Kind.AWAY:
        return computer_plays(game, notice.seat, url, language)
    left = (game.turn_deadline - timezone.now()).total_seconds() if game.turn_deadline is not None else None
    entry = game.room.seats[notice.seat]
    several = len(game.room.seats_of(entry.controller)) > 1
    with translation.override(language):
        # As typed: plain text, where isolates would show as boxes (the module docstring).
        name = shown_name(entry.name)
        # The code as the room's page shows it and people read it out; the link keeps the stored one.
        shown = shown_code(game.code)
        # A reminder that comes after the deadline (the timeout not played yet) says it is the turn, as the notice did.
        if notice.kind == Notice.Kind.REMINDER and left is not None and left > 0:
            data = {"code": shown, "left": duration(left), "name": name}
            if several:
                subject = _("%(left)s left for %(name)s's move in room %(code)s") % data
                line = (
                    _(
                        "A reminder: it is still %(name)s's turn in room %(code)s, and %(left)s of their time to "
                        "move is left."
                    )
                    % data
                )
            else:
                subject = _("%(left)s left for your move in room %(code)s") % data
                line = (
                    _("A reminder: it is still your turn in room %(code)s, and %(left)s of your time to move is left.")
                    % data
                )
            return _letter(subject, line, url, left)
        # A notice owed before its event was stored as data says what happened in English.
        what = waiting.word(notice.event, game.ruleset, plain=True) if notice.event else notice.text
        data = {"code": shown, "what": what, "name": name}
        if several:
            subject = _("%(name)s's turn in room %(code)s") % data
            line = _("%(name)s's turn in room %(code)s: %(what)s.") % data
        else:
            subject = _("Your turn in room %(code)s") % data
            line = _("Your turn in room %(code)s: %(what)s.") % data
        return _letter(subject, line, url, left)


def _letter(subject: str, line: str, url: str, left: float | None = None, *, replay: str = "") -> Letter:
    """A notice's letter, worded in the language in force (the caller's ``translation.override``),
    with the button that stops a device's pushes in that language too: every kind of notice
    (a turn, a reminder, a seat the computer took over, a game's end) is built here."""
    return Letter(
        subject=subject,
        line=line,
        url=url,
        left=left,
        language=translation.get_language(),
        stop_label=_("Stop these"),
        replay=replay,
    )


def the_end(game: Game, url: str, language: str) -> Letter:
    """The "game over" of ``game``, in ``language``: every seat's place and total, the best first
    (``Room.standings``: the places the players' records give), a seat ranked after those who
    stayed marked why, as the game-over list marks it: else "2. Ann: 180, 3. Bob: 201" reads as a mistake."""
    room = game.room
    with translation.override(language):
        shown = shown_code(game.code)
        places = []
        for standing in room.standings():
            place = {
                "place": standing.place,
                "name": shown_name(room.seats[standing.seat].name),
                "points": standing.points,
            }
            tag = words.behind(standing.behind)
            places.append(
                _("%(place)s. %(name)s (%(tag)s): %(points)s") % {**place, "tag": tag}
                if tag
                else _("%(place)s. %(name)s: %(points)s") % place
            )
        ranking = ", ".join(places)
        return _letter(
            _("Game over in room %(code)s") % {"code": shown},
            _("The game in room %(code)s is over: %(ranking)s.") % {"code": shown, "ranking": ranking},
            url,
            replay=settings.SITE_URL + reverse("replay", args=[game.code]),
        )


def computer_plays(game: Game, seat: int, url: str, language: str) -> Letter:
    """The notice that the computer plays ``seat`` of ``game`` for its player, in ``language``, and how
    they take it back (``seats.seat_reclaim``): a browser (or account) that plays this seat alone
    takes it back as it opens the room; one that plays several, a device people share, only when
    its player presses their own "I'm back" there, so that notice names the seat."""
    entry = game.room.seats[seat]
    several = len(game.room.seats_kept_for(entry.persons_controller)) > 1
    with translation.override(language):
        data = {"code": shown_code(game.code), "name": shown_name(entry.name)}
        if several:
            subject = _("The computer plays for %(name)s in room %(code)s") % data
            line = (
                _(
                    "%(name)s's time to move ran out twice in a row in room %(code)s, so the computer plays for "
                    "them until they come back. To take the seat back, open the room and choose “I'm back: take "
                    "%(name)s's seat”."
                )
                % data
            )
        else:
            subject = _("The computer plays for you in room %(code)s") % data
            line = (
                _(
                    "Your time to move ran out twice in a row in room %(code)s, so the computer plays for you until "
                    "you come back. Open the room to take your seat back."
                )
                % data
            )
        return _letter(subject, line, url)


def mailable_domain(domain: str) -> bool:
    """Whether mail may go to an address at ``domain``: a name on the internet. Not an IP address
    (``[10.0.0.7]``), to which the site's mail server would connect on its own network at the
    typist's choosing, nor a name with a ``localhost`` label, which is the machine itself: every
    name under it (RFC 6761), ``localhost.localdomain``, and the ``localhost.<its domain>`` a mail
    server counts as its own by default. Nor a name with no IDNA spelling (a label over 63
    letters once spelt so, an empty one, a right-to-left label ending in a digit), which the
    letter is addressed in: sending to it would fail, after the address was taken.

    Judged as spelt so, since that is where the letter goes: fullwidth letters, digits and brackets
    are their ASCII ones there, and an ideographic full stop is a dot (``ｌｏｃａｌｈｏｓｔ``,
    ``localhost。example.org`` and ``［１０.０.０.７］`` are the names above)."""
    try:
        spelt = punycode(domain)
    except UnicodeError:
        return False
    return not spelt.startswith("[") and "localhost" not in spelt.lower().rstrip(".").split(".")


def mailable(address: str) -> bool:
    """Whether the e-mails of games may go to ``address`` (``mailable_domain``). The address form refuses
    any other, but one saved before it did may still be stored: it is mailed nothing, and Your
    games, where the address is set, says so and asks for another."""
    return mailable_domain(address.rpartition("@")[2])


def deliver(notice: Notice, game: Game) -> str:
    """Send the notice on every channel its player opted in to; a failing channel (or device) is
    logged, not retried, and does not keep the others from being told nor the notice from being done.

    An account staff deactivated is told nothing: it is signed out everywhere and off the site,
    and its e-mails and pushes would go on naming its rooms.
    """
    player = Player.objects.select_related("user").get(pk=notice.player_id)
    if player.user is not None and not player.user.is_active:
        return "nobody to tell: the account is deactivated"
    entry = game.room.seats[notice.seat]
    letters: dict[str, Letter] = {}

    def text(language: str) -> Letter:  # in each reader's language, worded once
        if language not in letters:
            letters[language] = letter(notice, game, language)
        return letters[language]

    sent: list[str] = []
    # The seat's person: a "game over" goes to one a computer finished the game for too.
    owners = of_seat(entry.persons_controller, player.user_id)
    chosen = list(
        NoticeSettings.objects.filter(owners, email=True, user__is_active=True).exclude(address="").order_by("pk")
    )
    mail_to = next((row for row in chosen if mailable(row.address)), None)
    if mail_to is not None:
        try:
            send_email(mail_to.user_id, mail_to.address, text(mail_to.language))
            sent.append("e-mail")
        except Exception:
            log.exception("the e-mail of notice %s failed", notice.pk)
    pushes = 0
    # A seat's player may have subscriptions under its token and its account's: the newest are told.
    newest = (
        PushSubscription.objects.filter(owners, gone_at=None)
        .exclude(user__is_active=False)
        .order_by("-created_at", "-pk")[:PUSH_PER_CONTROLLER]
    )
    for subscription in newest:
        # Its wording and its rows too: a notice whose sending raised is left taken, and the
        # recovery sweep would send it again on every channel that had already told the player.
        try:
            if send_push(subscription, text(subscription.language), notice):
                pushes += 1
        except Exception:
            log.exception("the push of notice %s to subscription %s failed", notice.pk, subscription.pk)
    if pushes:
        sent.append(f"{pushes} push{'es' if pushes > 1 else ''}")
    if sent:
        return f"sent: {', '.join(sent)}"
    return "nobody to tell: the address cannot receive mail" if chosen else "nobody to tell: no channel chosen"


def of_seat(controller: str, user_id: int | None) -> Q:
    """The rows (choices, subscriptions) of a seat's player: by its token (a browser's, or an
    account's when taken signed in, shared by the account's devices) or by the account its
    Player row names (a seat taken before signing in). An empty token is nobody's: it matches no
    row (rows saved without one would be told of a seat that is not theirs)."""
    rows = Q(controller=controller) if controller else Q(pk__in=[])
    if user_id is not None:
        rows |= Q(user_id=user_id)
    return rows


def stop_token(kind: str, ident: int) -> str:
    """A token that stops one channel in one click (``services.notices_stop``): a user's e-mails, or one push."""
    return signing.dumps([kind, ident], salt=STOP_SALT, compress=True)


def read_stop_token(token: str) -> tuple[str, int] | None:
    try:
        kind, ident = signing.loads(token, salt=STOP_SALT)
    except (signing.BadSignature, ValueError, TypeError):
        return None
    if kind not in ("email", "push") or not isinstance(ident, int):
        return None
    return kind, ident


def stop_url(kind: str, ident: int) -> str:
    return settings.SITE_URL + reverse("notices_stop", args=[stop_token(kind, ident)])


def send_confirmation(address: str, token: str, language: str) -> None:
    """The e-mail that asks the owner of ``address`` whether the account's e-mails (its turns, its games'
    ends) may go there."""
    url = settings.SITE_URL + reverse("notices_email_confirm", args=[token])
    with translation.override(language or settings.LANGUAGE_CODE):
        body = "\n".join(
            [
                _(
                    "Someone signed in to %(site)s asked for the e-mails of their games to come to this address: "
                    "when it is their turn, when the computer takes over their seat and when a game ends."
                )
                % {"site": settings.SITE_NAME},
                "",
                _("To have them sent here, open this link within three days: %(url)s") % {"url": url},
                "",
                _("If it was not you, do nothing: nothing will be sent here."),
            ]
        )
        EmailMessage(
            subject=_("Confirm your address for %(site)s") % {"site": settings.SITE_NAME}, body=body, to=[address]
        ).send()


def send_email(user_id: int, address: str, text: Letter) -> None:
    stop = stop_url("email", user_id)
    with translation.override(text.language):
        if text.replay:
            links = [
                _("The final scores: %(url)s") % {"url": text.url},
                _("Replay the game: %(url)s") % {"url": text.replay},
            ]
        else:
            links = [_("Play: %(url)s") % {"url": text.url}]
        lines = [
            text.line,
            "",
            *links,
            _("All your games: %(url)s") % {"url": settings.SITE_URL + reverse("my_games")},
        ]
        if text.left is not None:
            lines.append(_("Time left to move: %(left)s.") % {"left": time_left(text.left)})
        lines += ["", _("Stop these e-mails (one click): %(url)s") % {"url": stop}, ""]
    message = EmailMessage(
        subject=text.subject,
        body="\n".join(lines),
        to=[address],
        # One-click unsubscribe (RFC 8058): mail programs show their own "unsubscribe" for it.
        headers={"List-Unsubscribe": f"<{stop}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"},
    )
    message.send()


def push_ttl(text: Letter) -> int:
    """How long a push service keeps the notice for a device that is off: until the move's time runs out (≤ 4 weeks)."""
    if text.left is None:
        return 7 * 86_400
    return int(min(max(text.left, 60), 28 * 86_400))


def send_push(subscription: PushSubscription, text: Letter, notice: Notice) -> bool:
    """One encrypted push (RFC 8291, aes128gcm) signed with the site's VAPID key; a gone subscription is marked so."""
    key = vapid_key()
    if key is None:
        return False  # pushes are off (logged once); the subscription is kept for a key that can sign
    if not push_allowed(subscription.endpoint):
        log.warning("push subscription %s names a push service not allowed; deleted", subscription.pk)
        subscription.delete()
        return False
    payload = {
        "title": text.subject,
        "body": text.line,
        "url": text.url,
        "tag": f"turn-{notice.game_id}",
        "stop": stop_url("push", subscription.pk),
        "stop_label": text.stop_label,
    }
    # Imported here: pywebpush brings aiohttp, a quarter of a second of every process's start.
    from pywebpush import WebPushException, webpush

    try:
        webpush(
            subscription_info={
                "endpoint": subscription.endpoint,
                "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
            },
            data=json.dumps(payload),
            vapid_private_key=key,
            vapid_claims={"sub": settings.VAPID_SUBJECT},
            ttl=push_ttl(text),
            timeout=PUSH_TIMEOUT,
            headers={"Urgency": "normal"},
        )
    except WebPushException as exc:
        status = exc.response.status_code if exc.response is not None else None
        if status in (404, 410):  # the browser unsubscribed or the subscription expired
            _gone(subscription)
        else:
            log.warning("push to subscription %s failed: %s", subscription.pk, status or exc)
            _failing(subscription)
        return False
    except Exception:
        log.exception("push to subscription %s failed", subscription.pk)
        _failing(subscription)
        return False
    if subscription.failing_since is not None:
        PushSubscription.objects.filter(pk=subscription.pk).update(failing_since=None)
    return True


def _gone(subscription: PushSubscription) -> None:
    """The push service says ``subscription`` is gone: kept as such, not deleted, since the browser
    may still hold it (a subscription that expired) and post it again from Your games, which would
    store it anew and tell the player their notifications are on; refused as gone, its page makes
    a new one. Failing from now on, it is deleted by the sweep of those (games.services.sweeps)."""
    now = timezone.now()
    PushSubscription.objects.filter(pk=subscription.pk).update(gone_at=now)
    PushSubscription.objects.filter(pk=subscription.pk, failing_since=None).update(failing_since=now)


def _failing(subscription: PushSubscription) -> None:
    """Note when pushes to ``subscription`` began to fail: one failing for long is swept (games.services.sweeps)."""
    if subscription.failing_since is None:
        PushSubscription.objects.filter(pk=subscription.pk, failing_since=None).update(failing_since=timezone.now())


# --- the keys and the endpoints ------------------------------------------------------------------


# The order of P-256's group: a raw private key is a number from 1 to this, less one.
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")


def vapid_key_fault(key: str) -> str:
    """Why ``key`` cannot sign pushes, or ``""`` if it can (or is unset: then nothing is signed).

    A VAPID key is a P-256 private key in base64url (``+`` and ``/`` read as ``-`` and ``_``),
    raw (the 32 bytes ``yahtzee.prepare`` makes) or DER. The raw form is checked without
    cryptography, which the check at every process's start (yahtzee.W006) need not load.
    """
    if not key:
        return ""
    text = key.strip().replace("+", "-").replace("/", "_").rstrip("=")
    if not _BASE64URL.fullmatch(text) or len(text) % 4 == 1:
        return "it is not base64url text"
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if len(data) == 32:
        return "" if 0 < int.from_bytes(data, "big") < P256_ORDER else "it is not a P-256 private key"
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import load_der_private_key

    try:
        loaded = load_der_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        return "it is neither a raw P-256 private key (32 bytes) nor a DER one"
    if not isinstance(loaded, ec.EllipticCurvePrivateKey) or not isinstance(loaded.curve, ec.SECP256R1):
        return "it is not a P-256 private key"
    return ""


def vapid_key() -> Vapid | None:
    """The key that signs every push; None when there is none or it cannot sign (pushes are off)."""
    return _vapid(settings.VAPID_PRIVATE_KEY)


@functools.cache
def _vapid(private: str) -> Vapid | None:
    # Once a process per key: a key that cannot sign turns pushes off and is logged once here
    # (the yahtzee.W006 check says so at every start), rather than failing each page that
    # offers notifications and each push.
    if not private:
        log.warning("No VAPID key: pushes are off (run `python -m yahtzee.prepare` or set VAPID_PRIVATE_KEY)")
        return None
    if fault := vapid_key_fault(private):
        log.error("VAPID_PRIVATE_KEY cannot sign pushes (%s): pushes are off until it is replaced", fault)
        return None
    # Imported here, as pywebpush below: a process that never pushes (most test servers, the
    # scheduler's) need not load cryptography's serializers.
    from py_vapid import Vapid

    try:
        return Vapid.from_string(private.strip())
    except (ValueError, TypeError):  # what the check above does not foresee still turns pushes off
        log.exception("VAPID_PRIVATE_KEY cannot sign pushes: pushes are off until it is replaced")
        return None


def vapid_public_key() -> str:
    """The application server key a page subscribes with: the public key, uncompressed point, base64url
    ("" with no key that can sign: the page then says notifications are not set up)."""
    if not settings.VAPID_PRIVATE_KEY:
        return ""
    key = vapid_key()
    if key is None:
        return ""
    from cryptography.hazmat.primitives import serialization

    point = key.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(point).rstrip(b"=").decode()


def push_allowed(endpoint: str) -> bool:
    """Whether the server may send to ``endpoint``: https (or http if PUSH_ALLOW_HTTP) to a host in PUSH_HOSTS.

    An https endpoint names no port but 443, where every push service listens: another would
    have the server connect wherever a subscriber chose on those hosts.

    The host must be a plain DNS name, and the HTTP client that sends the push (urllib3, under
    requests) must read the same host from the address as this check does: parsers disagree on
    a backslash, for one (``https://127.0.0.1\\.fcm.googleapis.com/`` is a name under
    fcm.googleapis.com to ``urlsplit`` and 127.0.0.1 to urllib3), which would let anyone make
    the server post to a host of their choosing.
    """
    if not endpoint.isascii() or not endpoint.isprintable() or any(c in endpoint for c in _NOT_IN_ENDPOINTS):
        return False
    try:
        parts = urlsplit(endpoint)
        host = (parts.hostname or "").lower()
        port = parts.port  # raises ValueError for a port that is not one
    except ValueError:
        return False
    if parts.scheme != "https" and not (parts.scheme == "http" and settings.PUSH_ALLOW_HTTP):
        return False
    if parts.scheme == "https" and port not in (None, 443):
        return False
    if parts.username or parts.password or not _DNS_NAME.fullmatch(host):
        return False
    if not any(host == allowed or host.endswith("." + allowed) for allowed in settings.PUSH_HOSTS):
        return False
    from urllib3.util import parse_url  # the sender's own reading of the address

    try:
        return (parse_url(endpoint).host or "").lower() == host
    except ValueError:  # urllib3's LocationParseError
        return False


# A host name: letters, digits and hyphens in dot-separated labels (so no backslash, percent,
# brackets or non-ASCII letter, which parsers read differently); and characters no push
# service's address has, which some parsers take for the end of the host.
_DNS_NAME = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*")
_NOT_IN_ENDPOINTS = frozenset(' \\"#<>^`{|}')


# --- recovery and the worker ------------------------------------------------------------------


def recover(now: datetime | None = None) -> int:
    """Queue again every notice due and not done whose task was lost or whose worker died; returns how many."""
    now = now or timezone.now()
    stuck = Notice.objects.filter(done_at=None, due_at__lte=now - GRACE).filter(
        Q(claimed_at=None) | Q(claimed_at__lt=now - LEASE)
    )
    Notice.objects.filter(pk__in=stuck.filter(attempts__gte=MAX_ATTEMPTS).values("pk")).update(
        done_at=now, outcome="given up: every worker that took it died"
    )
    count = 0
    for notice in stuck.filter(attempts__lt=MAX_ATTEMPTS):
        queue(notice)
        count += 1
    if count:
        log.warning("queued %d notices again (their task or worker was lost)", count)
    return count


def prune(now: datetime | None = None) -> tuple[int, int]:
    """Delete what nothing reads any more; returns how many task results and notices went.

    Every notice leaves a task result (one more each time it is put off or queued again), and
    every browser given a seat token a session: none would ever go otherwise. Gone are the task
    results finished more than ``KEPT`` ago, the notices of games over done as long ago (nothing
    reads a notice once it is done but the task that sent it) or not done in a game over as long
    ago (none is ever sent: one a pause held and the end did not drop, ``ended``), and the
    sessions past their expiry (what Django's ``clearsessions`` deletes).
    """
    from django_tasks_db.models import DBTaskResult  # loaded by a worker only

    now = now or timezone.now()
    before = now - KEPT
    tasks, _ = DBTaskResult.objects.finished().filter(finished_at__lt=before).delete()
    done, _ = (
        Notice.objects.filter(game__status__in=Game.OVER)
        .filter(Q(done_at__lt=before) | Q(done_at=None, game__finished_at__lt=before))
        .delete()
    )
    import_module(settings.SESSION_ENGINE).SessionStore.clear_expired()
    if tasks or done:
        log.info("pruned %d task results and %d notices done long ago", tasks, done)
    return tasks, done


def make_worker(*, interval: float = 1.0, batch: bool = False) -> Any:
    """django-tasks-db's own worker loop (its ``db_worker`` command's) on the default queue; ``batch``: until empty."""
    from django_tasks_db.management.commands.db_worker import Worker  # the command's module: loaded only by a worker

    return Worker(
        queue_names=["default"],
        interval=interval,
        batch=batch,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id=f"notices-{threading.get_native_id()}-{timezone.now().timestamp():.0f}",
        excluded_queue_names=[],
    )


def recover_forever(stop: threading.Event, every: float = RECOVER_EVERY, prune_every: float = PRUNE_EVERY) -> None:
    """The recovery sweep at once, then every ``every`` seconds until ``stop`` is set; with it, at once
    and then every ``prune_every`` seconds, the pruning of what is kept no longer (``prune``)."""
    pruned: float | None = None
    while True:
        try:
            close_old_connections()
            recover()
            if pruned is None or time.monotonic() - pruned >= prune_every:
                pruned = time.monotonic()
                prune()
        except Exception:
            log.exception("the notices' recovery sweep failed; it runs again in %s s", every)
        if stop.wait(every):
            break
    connections.close_all()


def work_on(worker: Any, stop: threading.Event, retry: float = WORKER_RETRY, most: float = WORKER_RETRY_MOST) -> None:
    """``worker``'s loop until it is stopped (``worker.running`` cleared, or ``stop`` set), run again after an error.

    django-tasks-db's loop lets a database error out (all but SQLite's "locked"): a database
    that dropped its connection once (PostgreSQL restarted, a disk error) would end it, and no
    notice would go until the server restarted. Here the error is logged, the thread's broken
    connection closed, and the loop runs again after ``retry`` seconds, twice as long after each
    failure in a row up to ``most``. (``manage.py notice_worker`` exits instead: compose starts it again.)
    """
    wait = retry
    while worker.running and not stop.is_set():
        started = time.monotonic()
        try:
            worker.run()
            return
        except Exception:
            if time.monotonic() - started > most:
                wait = retry  # it ran well since the last failure: not one in a row
            log.exception("the task worker failed; it runs again in %.0f s", wait)
        close_old_connections()
        if stop.wait(wait):
            break
        wait = min(wait * 2, most)


def start_in_process() -> tuple[Any, threading.Event]:
    """The task worker and the recovery sweep in threads of this process (``make run``'s server); returns
    the worker and the event that stops both."""
    worker = make_worker()
    stop = threading.Event()
    threading.Thread(target=work_on, args=(worker, stop), name="tasks", daemon=True).start()
    threading.Thread(target=recover_forever, args=(stop,), name="notices-recover", daemon=True).start()
    return worker, stop

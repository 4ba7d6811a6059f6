"""A room's pace: live (everyone at the table) or at your own pace (moves days apart).

At your own pace, each move may take a time per move of days (``OWN_PACE_CHOICES``; 0:
none), kept by the same deadline as the live turn timer (``games.services.deadline``,
``Game.turn_timer`` in seconds), and the player to move is told (``games.services.notices``).

Whose move a game waits for, and the notice that move owes, are kept by every recorded
action (``games.services.waiting``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from games.domain import errors as E
from games.domain.room import TurnKey
from games.domain.rules import RuleViolation
from games.services.actions import locked, record, rules_state
from games.services.waiting import DAY, duration
from games.store.models import Game, Move

PACES = (Game.Pace.LIVE, Game.Pace.OWN)
EXTEND_CHOICES = (3_600, DAY, 3 * DAY, 7 * DAY)  # what staff may add to a move's time


def own_pace_choices() -> list[int]:
    """The times per move a room at your own pace may have, in seconds (0: none); OWN_PACE_CHOICES."""
    return list(settings.OWN_PACE_CHOICES)


def own_pace_text(seconds: int | None) -> str:
    """How a room at your own pace is played, as its page says it under its code and in its lobby:
    "at your own pace, 3 days a move", or "at your own pace, no time limit" (``seconds`` 0 or None:
    a move has no time). The page with script says it in the same words (static/js/room/render.js,
    ``paceText``)."""
    if seconds:
        return gettext("at your own pace, %(time)s a move") % {"time": duration(seconds)}
    return gettext("at your own pace, no time limit")


def check_pace(pace: object, seconds: object) -> tuple[str, int]:
    """The pace and time per move of a new room, checked: ``(pace, seconds)``; BAD_PACE or BAD_TIMER if not offered."""
    if pace not in PACES:
        raise RuleViolation(E.BAD_PACE, "A room's pace is live or own (at your own pace).")
    if pace == Game.Pace.LIVE:
        choices = list(settings.TURN_TIMER_CHOICES)
        if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds not in choices:
            offered = ", ".join(str(s) for s in choices)
            raise RuleViolation(E.BAD_TIMER, f"A turn timer is one of {offered} seconds (0: no timer).")
        return str(pace), seconds
    choices = own_pace_choices()
    if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds not in choices:
        offered = ", ".join(duration(s) for s in choices)
        raise RuleViolation(E.BAD_PACE, f"A time per move is one of: {offered}.")
    return str(pace), seconds


def clock_to_extend(game: Game) -> TurnKey:
    """The turn staff would give more time to: (turns played, the seat to move); refused
    (``RuleViolation``) with the reason no clock runs (``_clock_stopped``)."""
    key = game.room.turn_key(playing=game.status == Game.Status.PLAYING)
    if game.turn_deadline is None or key is None:
        raise _clock_stopped(game)
    return key


def clock_extend(*, code: str, seconds: int, staff: str, turn: Sequence[int]) -> dict[str, Any]:
    """Staff give the player to move more time: the deadline moves ``seconds`` later. Locks the Game row.

    ``turn`` is the turn staff saw and chose to extend, as ``clock_to_extend`` gave it
    (turns played, the seat to move): refused if the turn has moved on since (the player
    moved, or their time ran out and the server moved for them), so the time never goes to
    the next player to move, whom staff did not choose. Logged as an ``extend`` Move (the
    replay and the review read it like any other), with the seat, the time added and the new
    deadline. Refused unless a clock is running, with the reason none is (``_clock_stopped``).
    """
    if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds not in EXTEND_CHOICES:
        raise RuleViolation(
            E.BAD_TIMER, f"Time is extended by one of {', '.join(duration(s) for s in EXTEND_CHOICES)}."
        )
    if len(turn) != 2 or any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in turn):
        raise RuleViolation(E.BAD_REQUEST, "The turn to extend is its number and its seat's.")
    with transaction.atomic():
        game = locked(code)
        key = clock_to_extend(game)
        if tuple(turn) != key:
            raise _turn_moved_on(game, turn[1], key[1])
        assert game.turn_deadline is not None  # clock_to_extend: a clock runs
        seat = key[1]
        entry = game.room.seats[seat]
        game.turn_deadline = max(game.turn_deadline, timezone.now()) + timedelta(seconds=seconds)
        payload = {
            "seat": seat,
            "name": entry.name,
            "seconds": seconds,
            "deadline": game.turn_deadline.isoformat(),
            "by": staff,
        }
        record(
            game,
            kind=Move.Kind.EXTEND,
            player_id=entry.player,
            payload=payload,
            actor=f"staff:{staff}"[:64],
            action_id="",
            fields=("turn_deadline",),
        )
    return payload


def _turn_moved_on(game: Game, was: int, now: int) -> RuleViolation:
    """The refusal of more time for seat ``was``'s turn when the turn is seat ``now``'s: who was to move, who is."""
    seats = game.room.seats
    named = seats[was].name if 0 <= was < len(seats) else f"seat {was + 1}"
    if was == now:
        why = f"it was {named}'s move then, and it is {named}'s next move now"
    else:
        why = f"it was {named}'s move, and {seats[now].name} is to move now"
    return RuleViolation(E.STALE, f"The turn has moved on since: {why}.")


def _clock_stopped(game: Game) -> RuleViolation:
    """Why ``game`` has no running clock to extend: not being played, no time per move, paused
    (its turn keeps the time it had left until a player resumes it), or a computer's turn."""
    playing = game.status == Game.Status.PLAYING
    room = game.room
    if not playing:
        why = "the game is not being played"
    elif not game.turn_timer:
        why = "the game has no time per move"
    elif room.paused:
        why = "the game is paused: its clock is stopped until a player resumes it"
    elif room.bot_to_play(playing=playing):
        why = "a computer is to move, and computers are on no clock"
    else:
        why = "nobody is on the clock now"
    code = E.PAUSED if playing and room.paused else E.NOT_PLAYING
    return RuleViolation(code, f"Only a running clock can be extended: {why}.")


def clock_outage(*, code: str, gap: timedelta, since: datetime) -> bool:
    """No process was up for ``gap`` (since ``since``): the turn to move gets that time back. Locks the Game row.

    Logged as an ``extend`` Move marked ``outage``, as staff's more time is: the version moves
    on, so every worker's kept copy of the row is read again and the pages still open are told
    the new deadline. False if the room's deadline did not fall in the gap or after it.
    """
    seconds = max(1, round(gap.total_seconds()))
    return _deadline_moved(code, gap, since, seconds=seconds, mark="outage", actor="server:outage")


def clock_set_back(*, code: str, step: timedelta, since: datetime) -> bool:
    """The server's clock was set back by ``step`` (since ``since``, on the clock before): the turn's
    deadline, set by the clock before, moves back with it, so the turn keeps the time it had left.
    Locks the Game row.

    Without it a clock set back an hour (one that ran fast stepped by NTP, a virtual machine
    restored) gave every running turn an hour more. Logged as an ``extend`` Move marked
    ``set_back``, its ``seconds`` negative, for the same reasons as an outage's. False if the
    room's deadline was not after ``since``.
    """
    seconds = -max(1, round(step.total_seconds()))
    return _deadline_moved(code, -step, since, seconds=seconds, mark="set_back", actor="server:clock")


def _deadline_moved(code: str, by: timedelta, since: datetime, *, seconds: int, mark: str, actor: str) -> bool:
    with transaction.atomic():
        game = locked(code)
        if game.status != Game.Status.PLAYING or game.turn_deadline is None or game.turn_deadline <= since:
            return False
        seat = rules_state(game).current
        entry = game.room.seats[seat]
        game.turn_deadline += by
        payload = {
            "seat": seat,
            "name": entry.name,
            "seconds": seconds,
            "deadline": game.turn_deadline.isoformat(),
            mark: True,
        }
        record(
            game,
            kind=Move.Kind.EXTEND,
            player_id=entry.player,
            payload=payload,
            actor=actor,
            action_id="",
            fields=("turn_deadline",),
        )
    return True

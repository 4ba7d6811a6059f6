"""The turn timer and the host's pause: a turn that runs out is played for the player.

The deadline itself is kept by every recorded action (``games.services.deadline``), and
the room is due at it; the scheduler (games.scheduling) calls ``clock_expire`` when it
passes, in whichever process claims the room. Under the Game row's lock the timeout
applies only if the room is still at the version the caller saw and the deadline has
passed: exactly once, whichever process comes first; the others find the version moved
on and do nothing.

A timeout is logged as a ``timeout`` Move, then the roll (if the player had not rolled)
and the score a casual player would choose, as ordinary ``roll`` and ``score`` Moves whose
action ids start with ``timeout-`` (a prefix clients may not use): the replay and the fairness check read them like any
other. The second timeout in a row of the same seat hands it to a computer (a ``bot``
Move marked ``away``), which plays it until its player comes back (``seats.seat_reclaim``); at
your own pace the same transaction owes the player the notice that says so (``notices.taken_over``).
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.domain import errors as E
from games.domain.rules import GameState, RuleViolation
from games.services import notices
from games.services.actions import check_request, counted, locked, paused, record, require_host, rules_state
from games.services.deadline import TIMEOUT_ACTION, running
from games.services.turns import turn_roll, turn_score
from games.store.models import Game, Move

AWAY_AFTER = 2  # timeouts in a row before a computer takes the seat
AWAY_LEVEL = "casual"


def timer_choices() -> list[int]:
    """The turn timers a room may be created with, in seconds (0: none); TURN_TIMER_CHOICES."""
    return list(settings.TURN_TIMER_CHOICES)


def check_timer(seconds: object) -> int:
    if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds not in timer_choices():
        choices = ", ".join(str(s) for s in timer_choices())
        raise RuleViolation(E.BAD_TIMER, f"A turn timer is one of {choices} seconds (0: no timer).")
    return seconds


def casual_choice(state: GameState) -> tuple[str, int]:
    """The box a casual player scores: the most points now, the leftmost column on a tie."""
    legal = [o for o in state.options() if o.legal]
    best = max(legal, key=lambda o: (o.points + o.bonus, -o.column))
    return best.box.value, best.column


def clock_expire(*, code: str, version: int) -> bool:
    """Play out the current turn if its deadline has passed at ``version``. One transaction under the row lock.

    False (nothing written) if the room moved on, the clock is not running or the deadline
    is still ahead.
    """
    with transaction.atomic():
        game = locked(code)
        if game.version != version or game.turn_deadline is None or not running(game):
            return False
        if game.turn_deadline > timezone.now():
            return False
        state = rules_state(game)
        seat = state.current
        room = game.room.timed_out(seat)
        entry = room.seats[seat]
        controller, player_id, streak = entry.controller, entry.player, entry.timeouts
        record(
            game,
            kind=Move.Kind.TIMEOUT,
            player_id=player_id,
            payload={"seat": seat, "name": entry.name, "streak": streak, "rolled": state.turn.rolls_used > 0},
            actor="timer",
            action_id="",
            room=room,
        )
        if state.turn.rolls_used == 0:
            turn_roll(
                code=code,
                controller=controller,
                expected_version=game.version,
                action_id=_timer_id(game.version),
            )
        game = locked(code)
        box, column = casual_choice(rules_state(game))
        turn_score(
            code=code,
            controller=controller,
            box=box,
            column=column,
            expected_version=game.version,
            action_id=_timer_id(game.version),
        )
        if streak >= AWAY_AFTER:
            _hand_to_computer(locked(code), seat)
    return True


def _timer_id(version: int) -> str:
    """The timer's own action id: ``timeout-<version>-<random>``, which no client can send (the
    protocol refuses the prefix) nor have sent before (the random part), so it never meets the
    unique key of a Move already there."""
    return f"{TIMEOUT_ACTION}{version}-{secrets.token_hex(4)}"


def _hand_to_computer(game: Game, seat: int) -> None:
    """The seat's player is away: a computer plays it until they come back (``seat_reclaim``)."""
    entry = game.room.seats[seat]
    if game.status != Game.Status.PLAYING or not entry.active:
        return
    room = game.room.to_computer(seat, controller=f"bot:{secrets.token_hex(8)}", level=AWAY_LEVEL, away=True)
    record(
        game,
        kind=Move.Kind.BOT,
        player_id=entry.player,
        payload={"seat": seat, "name": entry.name, "level": AWAY_LEVEL, "reinstate": False, "away": True},
        actor="timer",
        action_id="",
        room=room,
    )
    notices.taken_over(game, seat)


def _host_action(
    *, code: str, controller: str, expected_version: int | None, action_id: str, pause: bool
) -> dict[str, Any]:
    with transaction.atomic():
        game = locked(code)
        check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        # A paused game whose host went away is resumed by a player at the table; a pause stays the host's.
        require_host(game, controller, takeover=not pause)
        if game.status != Game.Status.PLAYING:
            raise RuleViolation(E.NOT_PLAYING, "Only a game in progress can be paused or resumed.")
        room = game.room
        payload: dict[str, Any] = {}
        fields: tuple[str, ...] = ()
        if pause:
            if room.paused:
                raise paused(game, controller)  # the host's own pause, from another tab or a double click
            left = None
            if game.turn_deadline is not None:
                left = payload["left"] = round(max(0.0, (game.turn_deadline - timezone.now()).total_seconds()), 3)
            room = counted(room, "pauses").pause(left, by=game.host_id)
        else:
            if not room.paused:
                raise RuleViolation(E.NOT_PAUSED, "The game is not paused.")
            # The time it had left when the host paused, or the whole time for a turn that came
            # up during the pause, as every new turn has (deadline.tick): what the pages showed.
            left = room.time_held(playing=True, timer=game.turn_timer)
            room = room.resume()
            if left is not None and running(game, room):
                room = room.change(clock_turn=room.turn_key(playing=True))
                game.turn_deadline = timezone.now() + timedelta(seconds=left)
                payload["left"] = left
                fields = ("turn_deadline",)
        if not pause:
            notices.resumed(game)
        # Who paused or resumed it (the host, or for a resume a player at the table who hosts from
        # now on, the host away): the room's feed and the notices of the resume name them, and a
        # page hears the event on the state it holds, which may be older than the host's role.
        seat = room.seat_of_player(game.host_id)
        if seat is not None:
            payload.update(seat=seat, name=room.seats[seat].name)
        record(
            game,
            kind=Move.Kind.PAUSE if pause else Move.Kind.RESUME,
            player_id=game.host_id,
            payload=payload,
            actor=controller,
            action_id=action_id,
            fields=fields,
            room=room,
        )
    return payload


def game_pause(*, code: str, controller: str, expected_version: int | None, action_id: str) -> dict[str, Any]:
    """The host stops the clock and the turn actions; chat goes on. Locks the Game row."""
    return _host_action(
        code=code, controller=controller, expected_version=expected_version, action_id=action_id, pause=True
    )


def game_resume(*, code: str, controller: str, expected_version: int | None, action_id: str) -> dict[str, Any]:
    """The host lets play go on; the turn keeps the time it had left. Locks the Game row."""
    return _host_action(
        code=code, controller=controller, expected_version=expected_version, action_id=action_id, pause=False
    )

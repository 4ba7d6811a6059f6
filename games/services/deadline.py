"""When a room is next due, kept right by every recorded action (``actions.record``).

Two things are data with the game, written with the action that changes them, so a
process that dies takes nothing with it:

- the turn timer's deadline (``Game.turn_deadline``): it runs while the game is playing,
  not paused, and a person is to play; a new turn (another seat, or the next turn of the
  same one) starts a fresh ``turn_timer`` seconds;
- when the scheduler must next act for the room (``Game.due_at``, ``next_due``): a computer
  player's step after ``BOT_DELAY``, the deadline, or at once the work owed after a game ended.

Whichever process reaches a due room first applies it (games.scheduling) through a
service with the version check, so it happens exactly once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from games.domain.protocol import TIMER_ID_PREFIX
from games.domain.room import Room
from games.store.models import Game, Move
from games.store.selectors import bot_to_play

__all__ = ["TIMEOUT_ACTION", "TURN_KINDS", "bot_to_play", "next_due", "note_action", "running", "tick"]

TURN_KINDS = (Move.Kind.ROLL, Move.Kind.HOLD, Move.Kind.SCORE)
TIMEOUT_ACTION = TIMER_ID_PREFIX  # the action ids of the timer's own roll and score (no client's may start so)


def running(game: Game, room: Room | None = None) -> bool:
    """Whether the current turn's clock runs (a timer chosen, playing, not paused, a person to play)."""
    room = room if room is not None else game.room
    return room.clock_runs(playing=game.status == Game.Status.PLAYING, timed=bool(game.turn_timer))


def next_due(game: Game, now: datetime | None = None) -> datetime | None:
    """When the scheduler must next act for ``game`` as it is about to be stored (None: nothing to do)."""
    now = now or timezone.now()
    if game.followups_owed:
        return now
    if bot_to_play(game):
        return now + timedelta(seconds=settings.BOT_DELAY)
    if game.turn_deadline is not None and running(game):
        return game.turn_deadline
    return None


def tick(game: Game, room: Room) -> tuple[Room, bool]:
    """Set ``game.turn_deadline`` for ``room``, about to be stored; the room to store, and whether it changed."""
    if not game.turn_timer:
        return room, False
    if not running(game, room):
        changed = game.turn_deadline is not None
        game.turn_deadline = None
        return room, changed
    key = room.turn_key(playing=True)
    if room.clock_turn == key and game.turn_deadline is not None:
        return room, False
    game.turn_deadline = timezone.now() + timedelta(seconds=game.turn_timer)
    return room.change(clock_turn=key), True


def note_action(game: Game, room: Room, *, kind: str, player_id: int | None, action_id: str) -> Room:
    """A player's own roll, hold or score ends their run of timeouts."""
    if not game.turn_timer or kind not in TURN_KINDS or action_id.startswith(TIMEOUT_ACTION):
        return room
    return room.played_by(player_id)

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

from games.store.models import Game, Move, Player

TURN_KINDS = (Move.Kind.ROLL, Move.Kind.HOLD, Move.Kind.SCORE)
TIMEOUT_ACTION = "timeout-"  # the action ids of the timer's own roll and score


def running(game: Game) -> bool:
    """Whether the current turn's clock runs (a timer chosen, playing, not paused, a person to play)."""
    rules = game.snapshot.get("rules")
    if not game.turn_timer or game.status != Game.Status.PLAYING or rules is None:
        return False
    if game.snapshot.get("paused"):
        return False
    return bool(game.snapshot["seats"][rules["current"]]["kind"] == Player.Kind.HUMAN)


def bot_to_play(game: Game) -> bool:
    """Whether the seat to play is a computer player (playing, not paused)."""
    rules = game.snapshot.get("rules")
    if game.status != Game.Status.PLAYING or rules is None or game.snapshot.get("paused"):
        return False
    return bool(game.snapshot["seats"][rules["current"]]["kind"] == Player.Kind.BOT)


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


def tick(game: Game) -> bool:
    """Set ``game.turn_deadline`` for the state about to be stored; True if it changed."""
    if not game.turn_timer:
        return False
    if not running(game):
        changed = game.turn_deadline is not None
        game.turn_deadline = None
        return changed
    rules = game.snapshot["rules"]
    key = [rules["turns_played"], rules["current"]]
    if game.snapshot.get("clock_turn") == key and game.turn_deadline is not None:
        return False
    game.snapshot["clock_turn"] = key
    game.turn_deadline = timezone.now() + timedelta(seconds=game.turn_timer)
    return True


def note_action(game: Game, *, kind: str, player_id: int | None, action_id: str) -> None:
    """A player's own roll, hold or score ends their run of timeouts."""
    if not game.turn_timer or kind not in TURN_KINDS or action_id.startswith(TIMEOUT_ACTION):
        return
    for seat in game.snapshot.get("seats", []):
        if seat["player"] == player_id:
            seat.pop("timeouts", None)

"""The turn timer's deadline, kept right by every recorded action (``actions.record``).

The deadline is data with the game (``Game.turn_deadline``): a process that dies takes
nothing with it, and whichever process reaches the deadline first applies the timeout
(``clock.clock_expire``, games.turnclock). Here only the rule of when it runs: while the
game is playing, not paused, and a person is to play; a new turn (another seat, or the
next turn of the same one) starts a fresh ``turn_timer`` seconds.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from games.models import Game, Move, Player

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

"""Whose move a game waits for, and the notice that move owes: kept by every recorded action.

``watch`` runs inside ``actions.record``, before the action's write: it keeps
``Game.waiting_on`` (the controller token of the person to move, for the "waiting for you"
count and the list of games) and, when the move made it another person's turn in a game at
your own pace, says so, so that ``record`` owes them the notice in the same transaction as
the move (``games.services.notices.owe``). Nothing is sent here: a background task sends it after
the commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.domain.rules import RULESETS, Box
from games.services.deadline import TIMEOUT_ACTION
from games.store.models import Game, Move, Player
from games.store.selectors import DAY, duration

__all__ = ["DAY", "SEAT_CHANGES", "Owed", "duration", "sync_away", "turn_key", "waited_on", "watch"]
# The kinds of Move that can hand a seat to a computer or back: Player.away_controller follows.
SEAT_CHANGES = (Move.Kind.BOT, Move.Kind.RECLAIM, Move.Kind.CLAIM, Move.Kind.FORGET)


@dataclass(frozen=True)
class Owed:
    """A notice owed to the seat now to move: who, for which turn, and what just happened."""

    seat: int
    player_id: int
    turn: int
    text: str


def turn_key(game: Game) -> list[int] | None:
    rules = game.snapshot.get("rules")
    if rules is None or game.status != Game.Status.PLAYING:
        return None
    return [rules["turns_played"], rules["current"]]


def waited_on(game: Game) -> dict[str, Any] | None:
    """The seat whose player the game waits for (a person's turn, playing, not paused, online), else None."""
    key = turn_key(game)
    if key is None or game.local or game.snapshot.get("paused"):
        return None
    entry: dict[str, Any] = game.snapshot["seats"][key[1]]
    if entry["kind"] != Player.Kind.HUMAN or entry["status"] != Player.Status.ACTIVE:
        return None
    return entry


def watch(
    game: Game, *, kind: str, player_id: int | None, payload: dict[str, Any], actor: str, action_id: str
) -> tuple[tuple[str, ...], Owed | None]:
    """Before an action's write: the Game fields it must save too, and the notice it owes, if any.

    A notice is owed once per turn (``snapshot["notice_turn"]``), in a game at your own
    pace, to a person, unless they made the move themselves.
    """
    fields: tuple[str, ...] = ()
    entry = waited_on(game)
    waiting = entry["controller"] if entry is not None else ""
    if waiting != game.waiting_on:
        game.waiting_on = waiting
        fields = ("waiting_on",)
    if entry is None or game.pace != Game.Pace.OWN:
        return fields, None
    key = turn_key(game)
    if key is None or game.snapshot.get("notice_turn") == key:
        return fields, None
    game.snapshot["notice_turn"] = key
    if actor == entry["controller"] and not action_id.startswith(TIMEOUT_ACTION):
        return fields, None  # their own move gave them the turn again (a game for one, taking a seat back)
    text = what_happened(game, kind=kind, player_id=player_id, payload=payload, action_id=action_id)
    return fields, Owed(seat=key[1], player_id=entry["player"], turn=key[0], text=text)


def what_happened(game: Game, *, kind: str, player_id: int | None, payload: dict[str, Any], action_id: str) -> str:
    """The move that made it someone's turn, in a line: "Ana just scored 24 in Chance"."""
    name = next((s["name"] for s in game.snapshot["seats"] if s["player"] == player_id), "")
    if kind == Move.Kind.SCORE and name:
        ruleset = RULESETS[game.ruleset]
        box = ruleset.box_label(Box(payload["box"]))
        if ruleset.columns > 1:
            box += f" (column ×{ruleset.multipliers[payload['column']]})"
        bonus = f" and a Yahtzee bonus of {payload['bonus']}" if payload.get("bonus") else ""
        if action_id.startswith(TIMEOUT_ACTION):
            return f"{name}'s time ran out: the server scored {payload['points']} in {box} for them"
        return f"{name} just scored {payload['points']} in {box}{bonus}"
    if kind == Move.Kind.START:
        return "The game has started"
    if kind in (Move.Kind.LEAVE, Move.Kind.REMOVE) and name:
        return f"{name} left the game"
    if kind == Move.Kind.RESUME:
        return "The host resumed the game"
    return "The game is waiting for you"


def sync_away(game: Game, kind: str) -> None:
    """After a seat went to a computer or back: each Player row's ``away_controller`` as the snapshot has it."""
    if kind not in SEAT_CHANGES:
        return
    for entry in game.snapshot["seats"]:
        Player.objects.filter(pk=entry["player"]).exclude(away_controller=entry.get("away_controller", "")).update(
            away_controller=entry.get("away_controller", "")
        )

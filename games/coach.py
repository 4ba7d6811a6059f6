"""The coach: a hint for the player to play, and after the game what each choice cost.

Both read the exact solver of ``bots`` (expected final score of the seat under optimal
solitaire play) and never build a table in a request: while a table is missing they say so
and start building it in the background.
"""

from __future__ import annotations

from typing import Any

from django.core.cache import cache

import bots
from games import botplay, services
from games.models import Game, Move
from games.replay import replay_moves
from games.rules import RULESETS, GameState, RuleViolation
from games.rules.codec import state_from_dict

HINTS_OFF = "hints_off"
COACH_BUSY = "coach_busy"
TOP = 3


def _ready(ruleset: str) -> None:
    if not bots.ready(RULESETS[ruleset]):
        botplay.build_in_background(ruleset)
        raise RuleViolation(COACH_BUSY, "The coach is still studying this rule set: ask again in a minute.")


def _option(state: GameState, option: bots.Option) -> dict[str, Any]:
    expected = round(option.expected, 1)
    if isinstance(option.action, bots.Roll):
        held = list(option.action.held)
        if not held:
            text = "Reroll all five dice"
        else:
            text = f"Keep {' '.join(str(state.turn.dice[i]) for i in held)} and roll again"
        return {"kind": "keep", "held": held, "text": text, "expected": expected}
    label = state.ruleset.box_label(option.action.box)  # type: ignore[arg-type]
    column = option.action.column
    where = f" (×{state.ruleset.multipliers[column]})" if state.ruleset.columns > 1 else ""
    return {
        "kind": "score",
        "box": option.action.box,
        "column": column,
        "points": option.points,
        "text": f"Score {option.points} in {label}{where}",
        "expected": expected,
    }


def hint_for(*, code: str, controller: str, version: int) -> dict[str, Any]:
    """The best few choices for the current roll, for the player whose turn it is (a read; no lock)."""
    game = Game.objects.get(code=services.normalize_code(code))
    if not game.hints:
        raise RuleViolation(HINTS_OFF, "Hints are turned off in this room.")
    if game.version != version:
        raise RuleViolation(services.STALE, "The game has moved on: ask again for the new roll.")
    if game.status != Game.Status.PLAYING:
        raise RuleViolation(services.NOT_PLAYING, "Hints are for a game in progress.")
    state = state_from_dict(game.snapshot["rules"])
    seat = game.snapshot["seats"][state.current]
    if not (controller and seat["controller"] == controller and seat["status"] == "active"):
        raise RuleViolation(services.NOT_A_PLAYER, "Hints are for the player whose turn it is.")
    _ready(game.ruleset)
    if state.turn.rolls_used == 0:
        raise RuleViolation("roll_first", "Roll first: the coach advises on the dice you have.")
    try:
        found = bots.hint(state, state.current, top=TOP, build=False)
        expected = bots.expected_score(state, state.current, build=False)
    except bots.TableNotReady as exc:
        raise RuleViolation(COACH_BUSY, "The coach is still studying this rule set: ask again in a minute.") from exc
    return {
        "type": "hint",
        "version": game.version,
        "seat": state.current,
        "expected": round(expected, 1),
        "options": [_option(state, option) for option in found],
    }


def review(game: Game) -> dict[str, Any]:
    """After the game: for every seat, the expected points its choices lost against optimal play."""
    if game.status not in (Game.Status.FINISHED, Game.Status.ABANDONED):
        raise RuleViolation(services.NOT_OVER, "The coach reviews a game when it is over.")
    key = f"coach-review:{game.code}:{game.version}"
    found = cache.get(key)
    if found is not None:
        return dict(found)
    _ready(game.ruleset)
    choices: dict[int, list[tuple[GameState, bots.Action]]] = {}

    def observe(move: Move, seat: int, state: GameState) -> None:
        if move.kind == Move.Kind.SCORE:
            action: bots.Action = bots.Score(move.payload["box"], move.payload["column"])
        elif state.turn.rolls_used > 0:  # a reroll: the choice is which dice to keep
            action = bots.Roll(tuple(sorted(state.turn.held)))
        else:
            return
        choices.setdefault(seat, []).append((state, action))

    replay = replay_moves(game.ruleset, list(game.moves.order_by("seq")), observe=observe)
    seats = []
    for index, seat in enumerate(game.snapshot["seats"]):
        result = bots.review(choices.get(index, []), threshold=0.5, build=False)
        seats.append(
            {
                "seat": index,
                "name": seat["name"],
                "kind": seat["kind"],
                "lost": round(result.total_loss, 1),
                "mistakes": result.mistakes,
                "choices": result.choices,
            }
        )
    data = {"code": game.code, "seats": seats, "replayed": not replay.problems}
    cache.set(key, data, 3600)
    return data

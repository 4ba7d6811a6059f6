"""Reads: the one public state dict that the page, the websocket and the admin all use."""

from __future__ import annotations

from typing import Any

from games.models import Game
from games.rules import RULESETS, UPPER_BOXES
from games.rules.codec import state_from_dict

_REVEALED = (Game.Status.FINISHED, Game.Status.ABANDONED)


def ruleset_info(name: str) -> dict[str, Any]:
    ruleset = RULESETS[name]
    return {
        "name": ruleset.name,
        "label": ruleset.label,
        "summary": ruleset.summary,
        "columns": ruleset.columns,
        "multipliers": list(ruleset.multipliers),
        "upper_bonus_threshold": ruleset.upper_bonus_threshold,
        "upper_bonus": ruleset.upper_bonus,
        "boxes": [
            {"box": box.value, "label": ruleset.box_label(box), "upper": box in UPPER_BOXES} for box in ruleset.boxes
        ],
    }


def seats_of(game: Game, controller: str) -> list[int]:
    """The seats still in the game that this browser (its controller token) plays."""
    if not controller:
        return []
    return [
        index
        for index, seat in enumerate(game.snapshot["seats"])
        if seat["controller"] == controller and seat["status"] == "active"
    ]


def bot_to_play(game: Game) -> bool:
    """Whether the seat to play is a computer player."""
    rules = game.snapshot.get("rules")
    if game.status != Game.Status.PLAYING or rules is None:
        return False
    return bool(game.snapshot["seats"][rules["current"]]["kind"] == "bot")


def game_state(game: Game) -> dict[str, Any]:
    """Everything anyone in the room may see, versioned; never a secret before the game ends."""
    snapshot = game.snapshot
    seats = [
        {
            "seat": index,
            "player": seat["player"],
            "name": seat["name"],
            "kind": seat["kind"],
            "status": seat["status"],
            "host": seat["player"] == game.host_id,
            "level": seat.get("level"),
        }
        for index, seat in enumerate(snapshot["seats"])
    ]
    data: dict[str, Any] = {
        "type": "state",
        "code": game.code,
        "version": game.version,
        "status": game.status,
        "local": game.local,
        "hints": game.hints,
        "ruleset": ruleset_info(game.ruleset),
        "seats": seats,
        "turn": None,
        "cards": [],
        "options": [],
        "winners": [],
        "rematch": snapshot.get("rematch"),
        "fairness": {
            "commitment": game.seed_commitment,
            "client_seed": game.client_seed,
            "server_seed": game.server_seed if game.status in _REVEALED else None,
        },
    }
    if snapshot.get("rules") is None:
        return data
    state = state_from_dict(snapshot["rules"])
    if game.status == Game.Status.PLAYING:
        data["turn"] = {
            "seat": state.current,
            "dice": list(state.turn.dice),
            "held": sorted(state.turn.held),
            "rolls_used": state.turn.rolls_used,
            "rolls_left": state.turn.rolls_left,
            "number": state.turns_played + 1,
        }
        data["options"] = [
            {
                "box": o.box.value,
                "column": o.column,
                "legal": o.legal,
                "points": o.points,
                "bonus": o.bonus,
                "reason": o.reason,
                "joker": o.joker,
            }
            for o in state.options()
        ]
    for seat, card in enumerate(state.cards):
        totals = state.totals(seat)
        data["cards"].append(
            {
                "seat": seat,
                "columns": [
                    {
                        "boxes": {box.value: points for box, points in column},
                        "upper": col_totals.upper,
                        "upper_bonus": col_totals.upper_bonus,
                        "lower": col_totals.lower,
                        "yahtzee_bonus": col_totals.yahtzee_bonus,
                        "total": col_totals.total,
                    }
                    for column, col_totals in zip(card.columns, totals.columns, strict=True)
                ],
                "total": totals.grand_total,
            }
        )
    data["winners"] = list(state.winners())
    return data

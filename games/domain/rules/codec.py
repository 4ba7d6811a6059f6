"""GameState <-> plain JSON-ready dicts, for the stored snapshot and the move log's replay."""

from __future__ import annotations

from typing import Any

from games.domain.kept import KeptByIdentity

from .rulesets import Box, get_ruleset
from .state import GameState, Scorecard, TurnState

# Each card's stored form, by its (immutable) Scorecard: an action's new state shares every
# card it did not change with the state before, so storing it encodes one card, not every
# seat's. About 1.3 KB an entry: 2.7 MB when full.
_stored_cards: KeptByIdentity[dict[str, Any]] = KeptByIdentity(2048)


def state_to_dict(state: GameState) -> dict[str, Any]:
    data = _to_dict(state)
    if state.ruleset.colours:
        # Painted only, so the stored form of every other rule set is unchanged.
        data["turn"]["colours"] = list(state.turn.colours)
    return data


def _to_dict(state: GameState) -> dict[str, Any]:
    return {
        "ruleset": state.ruleset.name,
        "current": state.current,
        "started": state.started,
        "active": list(state.active),
        "turns_played": state.turns_played,
        "turn": {
            "dice": list(state.turn.dice),
            "held": sorted(state.turn.held),
            "rolls_used": state.turn.rolls_used,
        },
        "cards": [_card_to_dict(card) for card in state.cards],
    }


def _card_to_dict(card: Scorecard) -> dict[str, Any]:
    """The card's stored form: the same dict for the same Scorecard, which callers never change."""
    return _stored_cards.get(
        id(card),
        card,
        lambda: {
            # Lists of [box, points] pairs keep the order boxes were filled in.
            "columns": [[[box.value, points] for box, points in column] for column in card.columns],
            "yahtzee_bonus": list(card.yahtzee_bonus),
        },
    )


def state_from_dict(data: dict[str, Any]) -> GameState:
    turn = data["turn"]
    return GameState(
        ruleset=get_ruleset(data["ruleset"]),
        cards=tuple(
            Scorecard(
                columns=tuple(tuple((Box(box), int(points)) for box, points in column) for column in card["columns"]),
                yahtzee_bonus=tuple(int(b) for b in card["yahtzee_bonus"]),
            )
            for card in data["cards"]
        ),
        current=int(data["current"]),
        turn=TurnState(
            dice=tuple(int(d) for d in turn["dice"]),
            held=frozenset(int(i) for i in turn["held"]),
            rolls_used=int(turn["rolls_used"]),
            colours=tuple(int(c) for c in turn.get("colours", ())),
        ),
        started=bool(data["started"]),
        active=tuple(bool(a) for a in data["active"]),
        turns_played=int(data["turns_played"]),
    )

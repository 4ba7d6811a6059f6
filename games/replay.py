"""Rebuild a game from its Move log: the admin's timeline, verify_game and the replay tests.

Replaying runs every logged action through the pure rules again, so a replay that
matches the stored snapshot proves the snapshot is what the rules say.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from games import fairness
from games.models import Game, Move
from games.rules import (
    RULESETS,
    GameState,
    apply_hold,
    apply_reinstate,
    apply_remove,
    apply_rolled,
    apply_score,
    apply_start,
    new_game,
)


@dataclass
class Turn:
    """One turn as the timeline shows it."""

    number: int
    seat: int
    name: str
    rolls: list[dict[str, Any]] = field(default_factory=list)  # {"held": [...], "dice": [...]}
    box: str = ""
    column: int = 0
    points: int = 0
    bonus: int = 0


@dataclass
class Replay:
    state: GameState | None
    names: list[str]
    turns: list[Turn]
    problems: list[str]


def replay_moves(
    ruleset: str, moves: list[Move], observe: Callable[[Move, int, GameState], None] | None = None
) -> Replay:
    """Run the logged actions through the rules; ``problems`` lists any disagreement with the log."""
    names: dict[int, str] = {}
    seat_of: dict[int, int] = {}
    state: GameState | None = None
    turns: list[Turn] = []
    problems: list[str] = []
    current: Turn | None = None
    for move in moves:
        p = move.payload
        if observe is not None and state is not None and move.kind in (Move.Kind.ROLL, Move.Kind.SCORE):
            observe(move, seat_of[move.player_id], state)  # the coach: each choice and the state it was made in
        if move.kind == Move.Kind.JOIN and move.player_id is not None:
            names[move.player_id] = p["name"]
        elif move.kind == Move.Kind.START:
            seat_of = {player: seat for seat, player in enumerate(p["players"])}
            state = apply_start(new_game(RULESETS[ruleset], len(p["players"])))
        elif state is None:
            continue
        elif move.kind == Move.Kind.ROLL:
            seat = seat_of[move.player_id]
            if sorted(state.turn.held) != p["held"]:
                problems.append(f"move {move.seq}: held {p['held']} but the replay holds {sorted(state.turn.held)}")
            state = apply_rolled(state, player=seat, faces=p["faces"])
            if list(state.turn.dice) != p["dice"]:
                problems.append(f"move {move.seq}: dice {p['dice']} but the replay rolled {list(state.turn.dice)}")
            if current is None or current.seat != seat or current.box:
                current = Turn(number=state.turns_played + 1, seat=seat, name=names.get(move.player_id or 0, "?"))
                turns.append(current)
            current.rolls.append({"held": p["held"], "dice": p["dice"], "roll": p["roll"]})
        elif move.kind == Move.Kind.HOLD:
            state = apply_hold(state, player=seat_of[move.player_id], held=p["held"])
        elif move.kind == Move.Kind.SCORE:
            seat = seat_of[move.player_id]
            before = state.cards[seat].yahtzee_bonus[p["column"]]
            state = apply_score(state, player=seat, box=p["box"], column=p["column"])
            card = state.cards[seat]
            points = dict(card.columns[p["column"]])[p["box"]]
            bonus = card.yahtzee_bonus[p["column"]] - before
            if (points, bonus) != (p["points"], p["bonus"]):
                problems.append(f"move {move.seq}: logged {p['points']}+{p['bonus']}, the rules give {points}+{bonus}")
            if current is not None and current.seat == seat and not current.box:
                current.box, current.column, current.points, current.bonus = p["box"], p["column"], points, bonus
        elif move.kind in (Move.Kind.LEAVE, Move.Kind.REMOVE):
            state = apply_remove(state, seat=p["seat"])
        elif move.kind == Move.Kind.BOT and p.get("reinstate"):
            state = apply_reinstate(state, seat=p["seat"])
    seat_names = [names.get(player, "?") for player, _ in sorted(seat_of.items(), key=lambda item: item[1])]
    return Replay(state=state, names=seat_names, turns=turns, problems=problems)


def replay_game(game: Game) -> Replay:
    return replay_moves(game.ruleset, list(game.moves.order_by("seq")))


@dataclass
class FairnessReport:
    commitment_ok: bool
    rolls_checked: int
    mismatches: list[str]
    revealed: bool

    @property
    def ok(self) -> bool:
        return self.revealed and self.commitment_ok and not self.mismatches


def verify_fairness(game: Game, moves: list[Move] | None = None) -> FairnessReport:
    """Re-derive every roll from the revealed seed: what ``manage.py verify_game`` runs."""
    revealed = game.status in (Game.Status.FINISHED, Game.Status.ABANDONED)
    commitment_ok = fairness.commitment(game.server_seed) == game.seed_commitment
    mismatches: list[str] = []
    rolls = 0
    for move in moves if moves is not None else game.moves.filter(kind=Move.Kind.ROLL).order_by("seq"):
        if move.kind != Move.Kind.ROLL:
            continue
        p = move.payload
        expected = fairness.roll_faces(game.server_seed, game.code, game.client_seed, p["roll"], len(p["faces"]))
        rolls += 1
        if expected != p["faces"]:
            mismatches.append(f"roll {p['roll']} (move {move.seq}): logged {p['faces']}, the seed gives {expected}")
    return FairnessReport(commitment_ok=commitment_ok, rolls_checked=rolls, mismatches=mismatches, revealed=revealed)

"""Turns: roll, hold, score."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from games.domain import errors as E
from games.domain import fairness
from games.domain.rules import DICE, Box, RuleViolation, apply_hold, apply_rolled, apply_score, check_roll
from games.services.actions import act, acting_seat, check_request, record
from games.store.models import Game, Move, ScoreEntry

# The held dice can be changed this many times between two rolls (five dice have 32 sets to hold):
# each change is a Move of the log and a state frame to every socket of the room.
HOLDS_PER_ROLL = 32


def _check_held(held: list[int]) -> None:
    if len(held) > DICE:
        raise RuleViolation(E.BAD_DIE_INDEX, "Held dice are a list of at most five indices 0 to 4.")


def turn_roll(
    *, code: str, controller: str, expected_version: int | None, action_id: str, held: list[int] | None = None
) -> list[int]:
    """Roll the current player's unheld dice with the fair dice. A guarded write, else the row lock (``act``).

    ``held`` (a roll frame may carry it): first hold exactly these dice. If that changes
    the held set, the hold is logged as its own Move just before the roll (the log's shape
    is the same as for a hold then a roll), both in one transaction: the action applies
    whole or not at all. The hold's Move carries no action id: the roll's stands for both.
    """
    if held is not None:
        _check_held(held)

    def roll(game: Game) -> list[int]:
        check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        state, seat = acting_seat(game, controller)
        player_id = game.room.seats[seat].player
        if held and not state.turn.dice:
            apply_hold(state, player=seat, held=held)  # refused: nothing to hold before the first roll
        if held is not None and state.turn.dice:
            holding = apply_hold(state, player=seat, held=held)
            if holding.turn.held != state.turn.held:
                state = holding
                record(
                    game,
                    kind=Move.Kind.HOLD,
                    player_id=player_id,
                    payload={"held": sorted(state.turn.held)},
                    actor=controller,
                    action_id="",
                    rules=state,
                )
        count = check_roll(state, seat)
        number = game.room.rolls
        faces = fairness.roll_faces(
            game.server_seed, game.code, game.client_seed, number, count, sides=state.ruleset.outcomes
        )
        state = apply_rolled(state, player=seat, faces=faces)
        record(
            game,
            kind=Move.Kind.ROLL,
            player_id=player_id,
            payload={"roll": number, "held": sorted(state.turn.held), "faces": faces, "dice": list(state.turn.dice)},
            actor=controller,
            action_id=action_id,
            room=game.room.change(rolls=number + 1),
            rules=state,
        )
        return list(state.turn.dice)

    # With held dice the action may write two Moves: one transaction (see ``act``).
    return act(code, roll, more_writes=held is not None)


def turn_hold(*, code: str, controller: str, held: list[int], expected_version: int | None, action_id: str) -> None:
    """Set the full set of held dice for the current player. A guarded write, else the row lock (``act``).

    Refused when it changes nothing (``same_hold``), and past ``HOLDS_PER_ROLL`` changes since the
    last roll (``holds_used_up``): every hold stored is a Move that the log keeps and the replay, the
    fairness check and the coach read back. The rules themselves accept any hold, so a log stored
    before these limits replays as it was played.
    """
    _check_held(held)

    def hold(game: Game) -> None:
        check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        before, seat = acting_seat(game, controller)
        state = apply_hold(before, player=seat, held=held)
        if state.turn.held == before.turn.held:
            raise RuleViolation(E.SAME_HOLD, "Those dice are held already.")
        room = game.room
        if room.holds_since_roll >= HOLDS_PER_ROLL:
            raise RuleViolation(
                E.HOLDS_USED_UP, f"The held dice were changed {HOLDS_PER_ROLL} times since the roll: roll or score."
            )
        record(
            game,
            kind=Move.Kind.HOLD,
            player_id=game.room.seats[seat].player,
            payload={"held": sorted(state.turn.held)},
            actor=controller,
            action_id=action_id,
            room=room.held_once_more(),
            rules=state,
        )

    act(code, hold)


def turn_score(
    *, code: str, controller: str, box: str, column: int = 0, expected_version: int | None, action_id: str
) -> ScoreEntry:
    """Score the current dice in one box and pass the turn on. A guarded write, else the row lock (``act``)."""

    def score(game: Game) -> ScoreEntry:
        check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        before, seat = acting_seat(game, controller)
        after = apply_score(before, player=seat, box=box, column=column)
        card = after.cards[seat]
        filled = Box(box)
        points = card.column(column)[filled]
        bonus = card.yahtzee_bonus[column] - before.cards[seat].yahtzee_bonus[column]
        player_id = game.room.seats[seat].player
        payload: dict[str, Any] = {
            "box": filled.value,
            "column": column,
            "points": points,
            "bonus": bonus,
            "dice": list(before.turn.dice),
            "turn": after.turns_played,
        }
        fields: tuple[str, ...] = ()
        if after.is_over:
            payload["game_over"] = True
            payload["winners"] = game.room.with_rules(after).winners()  # as the records rank them
            game.status, game.finished_at = Game.Status.FINISHED, timezone.now()
            fields = ("status", "finished_at")
        entry = ScoreEntry(
            player_id=player_id, column=column, box=filled.value, points=points, bonus=bonus, turn=after.turns_played
        )
        # Inserted with the Move, and only if the Game row's (guarded) update applied.
        record(
            game,
            kind=Move.Kind.SCORE,
            player_id=player_id,
            payload=payload,
            actor=controller,
            action_id=action_id,
            fields=fields,
            rules=after,
            score=entry,
        )
        return entry

    return act(code, score, more_writes=True)

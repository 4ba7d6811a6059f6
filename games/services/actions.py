"""The shared steps of every action: find and lock the room, check the request, record the Move."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from django.db import IntegrityError, connection, transaction

from games.domain import errors as E
from games.domain.errors import BAD_REQUEST, NOT_A_PLAYER, NOT_HOST, REPEATED, STALE
from games.domain.protocol import ACTION_ID_MAX
from games.domain.rules import GameState, RuleViolation
from games.domain.rules.codec import state_from_dict, state_to_dict
from games.services import deadline, events, notices, waiting
from games.services.codes import normalize_code
from games.store import moves
from games.store.models import Game, Move, Player

R = TypeVar("R")
log = logging.getLogger(__name__)


def locked(code: str) -> Game:
    return Game.objects.select_for_update().get(code=normalize_code(code))


def act(code: str, action: Callable[[Game], R], *, more_writes: bool = False) -> R:
    """Run ``action(game)``, which checks, asks the rules and ends with one ``record``.

    On PostgreSQL, outside any caller's transaction, first without the lock, with a
    guarded write (the module docstring): on the room's row as this process last wrote
    it (``moves.remembered``: no read at all), else on an unlocked read. ``more_writes``:
    the action writes other rows too, so that try is one transaction (its other writes
    come after ``record``, whose guarded update takes the row lock first). Otherwise, and
    if another action came first, in one transaction under the row lock.

    A refusal on the remembered row may come from a row that has moved on elsewhere: it
    is checked again on a fresh read before it is believed.
    """
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        code = normalize_code(code)
        try:
            kept = moves.remembered(code)
            if kept is not None:
                try:
                    return _unlocked(kept, action, more_writes)
                except RuleViolation:
                    moves.forget(code)  # and try again on a fresh read
            return _unlocked(moves.read(code), action, more_writes)
        except moves.Conflict:
            pass
    with transaction.atomic():
        return action(locked(code))


def _unlocked(game: Game, action: Callable[[Game], R], more_writes: bool) -> R:
    game._read_version = game.version  # type: ignore[attr-defined]  # record guards its write with it
    if more_writes:
        with transaction.atomic():
            return action(game)
    return action(game)


def check_request(game: Game, *, actor: str, expected_version: int | None, action_id: str) -> None:
    # The frames' ids are checked at the edge (games.domain.protocol); this guards the column for every caller.
    if len(action_id) > ACTION_ID_MAX:
        raise RuleViolation(BAD_REQUEST, f"An action id is a string of at most {ACTION_ID_MAX} characters.")
    if expected_version is not None and expected_version != game.version:
        # Only the error path pays for telling a resent action from a stale one.
        if action_id and Move.objects.filter(game=game, actor=actor, action_id=action_id).exists():
            raise RuleViolation(REPEATED, "That action was already applied.")
        raise RuleViolation(
            STALE, f"The game has moved on: it is at version {game.version}, your action was for {expected_version}."
        )


def record(
    game: Game,
    *,
    kind: str,
    player_id: int | None,
    payload: dict[str, Any],
    actor: str,
    action_id: str,
    fields: tuple[str, ...] = (),
    rules: GameState | None = None,
) -> Move:
    """Append the Move, save the Game row, and schedule the broadcast.

    ``rules``: the game's new rules state, if the action changed it; it is stored in the
    snapshot here, and the broadcast builds the room's state from it without decoding the
    snapshot again. A move that makes it a person's turn in a game at your own pace owes
    them a notice, written here in the same transaction (``games.services.waiting``).
    """
    if rules is not None:
        game.snapshot["rules"] = state_to_dict(rules)
    deadline.note_action(game, kind=kind, player_id=player_id, action_id=action_id)
    if deadline.tick(game):  # the turn timer (games.services.clock)
        fields = (*fields, "turn_deadline")
    waits, owed = waiting.watch(game, kind=kind, player_id=player_id, payload=payload, actor=actor, action_id=action_id)
    fields = (*fields, *waits)
    if payload.get("game_over") and not game.followups_owed:
        # What follows the end (records, stats, ratings) is owed from this very commit on,
        # and completed by the scheduler: a process that dies right after cannot lose it.
        game.followups_owed = True
        fields = (*fields, "followups_owed")
    due = deadline.next_due(game)
    if due != game.due_at:
        game.due_at = due
        fields = (*fields, "due_at")
    # An unlocked read (``act``) writes only if the row is still at the version it read.
    guard: int | None = getattr(game, "_read_version", None)
    game.version += 1
    try:
        move = moves.append(
            game,
            ("version", "snapshot", *fields),
            if_version=guard,
            seq=game.version,
            player_id=player_id,
            kind=kind,
            payload=payload,
            actor=actor,
            action_id=action_id,
        )
    except IntegrityError as exc:
        # Only the (game, actor, action_id) constraint means a resent action; under the row
        # lock a clash on seq cannot happen, and if it ever did it must not pass as one.
        if "unique_action_id" not in str(exc) and "action_id" not in str(exc):
            raise
        raise RuleViolation(REPEATED, "That action id was already used in this game.") from exc
    if guard is not None:
        # A second Move of the same action (``more_writes``) is guarded by the version just
        # written: the guarded write took the row's lock for the rest of the transaction.
        game._read_version = game.version  # type: ignore[attr-defined]
    # After the Game row's write, which took its lock (or stopped the action): a notice
    # owed and a seat's away player are written only by the action that applies.
    waiting.sync_away(game, kind)
    if owed is not None:
        notices.owe(game, owed)
    transaction.on_commit(lambda: _announce(game, move, rules))
    return move


def _announce(game: Game, move: Move, rules: GameState | None) -> None:
    # Of several moves in one transaction only the last is announced, with the final state.
    if game.version == move.seq:
        event = events.Committed(
            code=game.code,
            version=game.version,
            kind=move.kind,
            due_at=game.due_at,
            followups_owed=game.followups_owed,
            game=game,
            move=move,
            rules=rules,
        )
        events.committed(event)


def seats_of(game: Game) -> list[dict[str, Any]]:
    seats: list[dict[str, Any]] = game.snapshot["seats"]
    return seats


def rules_state(game: Game) -> GameState:
    return state_from_dict(game.snapshot["rules"])


def controls(seat: dict[str, Any], controller: str) -> bool:
    return bool(controller) and seat["status"] == Player.Status.ACTIVE and seat["controller"] == controller


def acting_seat(game: Game, controller: str) -> tuple[GameState, int]:
    """The rules state and the current seat, if ``controller`` may act for it."""
    if game.status == Game.Status.LOBBY:
        raise RuleViolation(E.GAME_NOT_STARTED, "The game has not started yet.")
    if game.status != Game.Status.PLAYING:
        raise RuleViolation(E.GAME_OVER, "The game is over.")
    seats = seats_of(game)
    if not any(controls(seat, controller) for seat in seats):
        raise RuleViolation(NOT_A_PLAYER, "You are watching this game: only seated players can act.")
    if game.snapshot.get("paused"):
        raise RuleViolation(E.PAUSED, "The host has paused the game: play goes on when they resume it.")
    state = rules_state(game)
    if not controls(seats[state.current], controller):
        raise RuleViolation(E.NOT_YOUR_TURN, f"It is {seats[state.current]['name']}'s turn.")
    return state, state.current


def require_host(game: Game, controller: str) -> None:
    host = next((s for s in seats_of(game) if s["player"] == game.host_id), None)
    if host is None or not controls(host, controller):
        raise RuleViolation(NOT_HOST, "Only the host can do that.")


def hand_host_on(game: Game) -> dict[str, Any] | None:
    """After the host left: the first active human seat becomes host (None if there is none)."""
    for seat in seats_of(game):
        if seat["status"] == Player.Status.ACTIVE and seat["kind"] == Player.Kind.HUMAN:
            game.host_id = seat["player"]
            return seat
    game.host_id = None
    return None

"""Rebuild a game from its Move log: the admin's timeline, verify_game and the replay tests.

Replaying runs every logged action through the pure rules again, so a replay that
matches the stored snapshot proves the snapshot is what the rules say.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache
from django.utils.translation import gettext, ngettext

from games.domain import fairness, scorecard
from games.domain.rules import (
    COLOURS,
    ROLLS_PER_TURN,
    RULESETS,
    GameState,
    RuleViolation,
    apply_hold,
    apply_reinstate,
    apply_remove,
    apply_rolled,
    apply_score,
    apply_start,
    new_game,
)
from games.domain.rules.codec import state_to_dict
from games.services.codes import isolated, shown_name
from games.services.words import box_name
from games.store import selectors
from games.store.models import Game, Move
from games.store.selectors import duration


@dataclass
class Turn:
    """One turn as the timeline shows it."""

    # Its place among the turns begun, from 1: a turn left unscored (its player left mid-turn)
    # has its own, where the rules' count of turns played gives it the next turn's.
    number: int
    seat: int
    name: str
    # {"held": [...], "dice": [...], "roll": n}, plus "colours": ["red", ...] in Painted Yahtzee
    rolls: list[dict[str, Any]] = field(default_factory=list)
    box: str = ""
    column: int = 0
    points: int = 0
    bonus: int = 0
    # Who played it for the seat's person: "timeout" (their time ran out: the server played it),
    # "computer" (a computer had taken the seat over), or "" (they did, or a computer's own seat).
    played_by: str = ""


# Who played a turn a person did not play themselves (``Turn.played_by``), in the staff's English
# words: the admin's timeline and ``manage.py verify_game --rolls``.
PLAYED_BY = {"timeout": "the server: time ran out", "computer": "a computer"}


@dataclass
class Replay:
    state: GameState | None
    names: list[str]
    turns: list[Turn]
    problems: list[str]


def _player(move: Move) -> int:
    """The player of a roll, hold or score (those moves always have one; joins of a seat too)."""
    if move.player_id is None:
        raise ValueError(f"move {move.seq} ({move.kind}) has no player")
    return move.player_id


class _CallbackFailed(Exception):
    def __init__(self, error: Exception) -> None:
        self.error = error


def _passed_on(callback: Callable[..., None], *args: Any) -> None:
    """A callback's errors are its caller's, not a damaged log's."""
    try:
        callback(*args)
    except Exception as exc:
        raise _CallbackFailed(exc) from exc


def replay_moves(
    ruleset: str,
    moves: list[Move],
    observe: Callable[[Move, int, GameState], None] | None = None,
    after: Callable[[Move, GameState], None] | None = None,
) -> Replay:
    """Run the logged actions through the rules; ``problems`` lists any disagreement with the log.

    ``observe`` sees each roll and score with the state before it, ``after`` every move of
    the started game with the state it left.
    """
    names: dict[int, str] = {}
    seat_of: dict[int, int] = {}
    state: GameState | None = None
    turns: list[Turn] = []
    problems: list[str] = []
    current: Turn | None = None
    move: Move | None = None
    timed_out: set[int] = set()  # seats whose time ran out before their turn's first roll
    taken_over: set[int] = set()  # seats of people a computer plays now
    try:
        for move in moves:
            p = move.payload
            if observe is not None and state is not None and move.kind in (Move.Kind.ROLL, Move.Kind.SCORE):
                seat = seat_of[_player(move)]
                _passed_on(observe, move, seat, state)  # the coach: each choice and the state it was made in
            if move.kind == Move.Kind.JOIN and move.player_id is not None:
                names[move.player_id] = p["name"]
            elif move.kind == Move.Kind.START:
                seat_of = {player: seat for seat, player in enumerate(p["players"])}
                state = apply_start(new_game(RULESETS[ruleset], len(p["players"])))
            elif state is None:
                continue
            elif move.kind == Move.Kind.ROLL:
                seat = seat_of[_player(move)]
                if sorted(state.turn.held) != p["held"]:
                    problems.append(f"move {move.seq}: held {p['held']} but the replay holds {sorted(state.turn.held)}")
                state = apply_rolled(state, player=seat, faces=p["faces"])
                if list(state.turn.dice) != p["dice"]:
                    problems.append(f"move {move.seq}: dice {p['dice']} but the replay rolled {list(state.turn.dice)}")
                if current is None or current.seat != seat or current.box:
                    current = Turn(number=len(turns) + 1, seat=seat, name=names.get(_player(move), "?"))
                    if seat in timed_out:
                        current.played_by = "timeout"
                    elif seat in taken_over:
                        current.played_by = "computer"
                    timed_out.discard(seat)
                    turns.append(current)
                entry: dict[str, Any] = {"held": p["held"], "dice": p["dice"], "roll": p["roll"]}
                if state.ruleset.colours:
                    entry["colours"] = [COLOURS[c] for c in state.turn.colours]
                current.rolls.append(entry)
            elif move.kind == Move.Kind.HOLD:
                state = apply_hold(state, player=seat_of[_player(move)], held=p["held"])
            elif move.kind == Move.Kind.SCORE:
                seat = seat_of[_player(move)]
                before = state.cards[seat].yahtzee_bonus[p["column"]]
                state = apply_score(state, player=seat, box=p["box"], column=p["column"])
                card = state.cards[seat]
                points = dict(card.columns[p["column"]])[p["box"]]
                bonus = card.yahtzee_bonus[p["column"]] - before
                if (points, bonus) != (p["points"], p["bonus"]):
                    problems.append(
                        f"move {move.seq}: logged {p['points']}+{p['bonus']}, the rules give {points}+{bonus}"
                    )
                if current is not None and current.seat == seat and not current.box:
                    current.box, current.column, current.points, current.bonus = p["box"], p["column"], points, bonus
            elif move.kind == Move.Kind.TIMEOUT:
                # The server plays the turn: the one under way (rolled already), or the next roll's.
                if current is not None and current.seat == p["seat"] and not current.box:
                    current.played_by = "timeout"
                else:
                    timed_out.add(p["seat"])
            elif move.kind in (Move.Kind.LEAVE, Move.Kind.REMOVE):
                state = apply_remove(state, seat=p["seat"])
            elif move.kind == Move.Kind.RECLAIM:
                taken_over.discard(p["seat"])
            elif move.kind == Move.Kind.BOT:
                taken_over.add(p["seat"])
                if p.get("reinstate"):
                    state = apply_reinstate(state, seat=p["seat"])
            if after is not None and state is not None:
                _passed_on(after, move, state)
    except _CallbackFailed as failed:
        raise failed.error from None  # the caller's own error (the coach's table still being built)
    except (RuleViolation, KeyError, IndexError, TypeError, ValueError) as exc:
        # A log the rules refuse, or a move without what its kind must carry: the check fails
        # and says where, instead of taking the page or the command down with it.
        where = f"move {move.seq}" if move is not None else "the start"
        problems.append(f"{where}: the replay stopped: {exc}")
        state = None
    seat_names = [names.get(player, "?") for player, _ in sorted(seat_of.items(), key=lambda item: item[1])]
    return Replay(state=state, names=seat_names, turns=turns, problems=problems)


def replay_game(game: Game) -> Replay:
    """``replay_moves`` of a stored game, with each seat's name as it stands now (a deleted account's is withdrawn)."""
    replay = replay_moves(game.ruleset, selectors.moves_in_order(game))
    stored = game.room.rules
    if replay.state is not None and stored is not None and state_to_dict(replay.state) != state_to_dict(stored):
        replay.problems.append("the moves replay to other scores than the game's stored result")
    return named_as_now(replay, game)


def named_as_now(replay: Replay, game: Game) -> Replay:
    """``replay`` with each seat's and turn's name as the seat stands now, not as the log's joins
    gave them: a deleted account's is withdrawn, in games whose log still names it too."""
    seats = game.room.seats
    if len(seats) == len(replay.names):
        replay.names = [seat.name for seat in seats]
        for turn in replay.turns:
            turn.name = replay.names[turn.seat]
    return replay


def _dice(dice: list[int] | tuple[int, ...]) -> str:
    """The dice one by one, as the table says a roll ("3, 5, 5, 6, 1")."""
    return ", ".join(str(d) for d in dice)


def replay_steps(game: Game, verdicts: dict[int, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The replay page's steps, roll by roll, from the Move log: what happened and the scorecards after it.

    ``verdicts`` (the coach's, by move number) are attached to the step of the choice they
    judge: a reroll's step carries the verdict on the dice kept for it, a score's on the box.
    Steps of a seat a computer plays (from the start, or after a hand-over) say so (``by_computer``).
    ``active`` (each seat still in the game, or not) is on the first step and on each after which it changed.
    """
    moves = list(game.moves.order_by("seq"))
    # Each name a run of its own in the sentences (the page shows it in a <bdi>).
    names = [isolated(shown_name(seat.name)) for seat in game.room.seats]
    bot_players = {m.player_id for m in moves if m.kind == Move.Kind.JOIN and m.payload.get("bot")}
    seat_of: dict[int, int] = {}
    computer: set[int] = set()  # seats a computer plays now
    ruleset = RULESETS[game.ruleset]
    steps: list[dict[str, Any]] = []
    found = verdicts or {}
    last: list[GameState] = []
    shown_active: list[tuple[bool, ...]] = []  # the seats in, as the steps so far told them

    def describe(move: Move, state: GameState) -> dict[str, Any] | None:
        p = move.payload
        if move.kind == Move.Kind.START:
            seat_of.update({player: seat for seat, player in enumerate(p["players"])})
            computer.update(seat for seat, player in enumerate(p["players"]) if player in bot_players)
            return {"text": gettext("The game starts: %(names)s.") % {"names": ", ".join(names[: len(p["players"])])}}
        if move.kind == Move.Kind.ROLL:
            seat = seat_of[_player(move)]
            dice = list(state.turn.dice)
            values = {"name": names[seat], "dice": _dice(dice), "roll": state.turn.rolls_used, "rolls": ROLLS_PER_TURN}
            if p["held"]:
                values["kept"] = _dice([dice[i] for i in p["held"]])
                text = gettext("%(name)s rolls %(dice)s, keeping %(kept)s (roll %(roll)s of %(rolls)s).") % values
            else:
                text = gettext("%(name)s rolls %(dice)s (roll %(roll)s of %(rolls)s).") % values
            return {
                "seat": seat,
                "roll": state.turn.rolls_used,
                "dice": dice,
                "colours": [COLOURS[c] for c in state.turn.colours],  # Painted: each die's colour; else []
                "held": list(p["held"]),
                "round": state.cards[seat].filled + 1,
                "text": text,
            }
        if move.kind == Move.Kind.SCORE:
            seat = seat_of[_player(move)]
            values = {
                "name": names[seat],
                "points": p["points"],
                "box": box_name(ruleset, p["box"]),
                "m": ruleset.multipliers[p["column"]],
                "bonus": p.get("bonus"),
            }
            # One sentence for each case, as a language puts the column and the bonus in its own order.
            if ruleset.columns > 1 and p.get("bonus"):
                said = gettext(
                    "%(name)s scores %(points)s in %(box)s in column ×%(m)s and a Yahtzee bonus of %(bonus)s."
                )
            elif ruleset.columns > 1:
                said = gettext("%(name)s scores %(points)s in %(box)s in column ×%(m)s.")
            elif p.get("bonus"):
                said = gettext("%(name)s scores %(points)s in %(box)s and a Yahtzee bonus of %(bonus)s.")
            else:
                said = gettext("%(name)s scores %(points)s in %(box)s.")
            text = said % values
            # The dice scored, as logged, and their colours from the state before the score: the
            # step before may be a timeout, more time or a hand-over, which shows no dice.
            scored = last[0].turn if last else state.turn
            return {
                "seat": seat,
                "box": p["box"],
                "column": p["column"],
                "points": p["points"],
                "dice": list(p.get("dice", scored.dice)),
                "colours": [COLOURS[c] for c in scored.colours],
                "round": state.cards[seat].filled,
                "text": text,
            }
        if move.kind in (Move.Kind.LEAVE, Move.Kind.REMOVE):
            # The seat's name as it stands now (a deleted account's is withdrawn), as for every step.
            if move.kind == Move.Kind.LEAVE:
                text = gettext("%(name)s left: the seat is skipped from now on.")
            else:
                text = gettext("%(name)s was taken out: the seat is skipped from now on.")
            return {"seat": p["seat"], "text": text % {"name": names[p["seat"]]}}
        if move.kind == Move.Kind.TIMEOUT:
            text = gettext("%(name)s's time ran out: the server plays the turn.")
            return {"seat": p["seat"], "text": text % {"name": names[p["seat"]]}}
        if move.kind == Move.Kind.BOT:
            computer.add(p["seat"])
            if p.get("away"):
                text = gettext("A computer took over %(name)s's seat after two timeouts in a row.")
            else:
                text = gettext("A computer took over %(name)s's seat.")
            return {"seat": p["seat"], "text": text % {"name": names[p["seat"]]}}
        if move.kind == Move.Kind.RECLAIM:
            computer.discard(p["seat"])
            text = gettext("%(name)s came back and plays the seat again.")
            return {"seat": p["seat"], "text": text % {"name": names[p["seat"]]}}
        if move.kind == Move.Kind.EXTEND:
            if p.get("set_back"):
                return None  # the server's clock set back, the deadline with it: the time left is unchanged
            more = duration(p["seconds"])
            if p.get("outage"):
                text = gettext("The server was out of reach for %(time)s: %(name)s got that time back to move.")
            else:
                text = gettext("%(name)s was given %(time)s more to move.")
            return {"seat": p["seat"], "text": text % {"name": names[p["seat"]], "time": more}}
        return None

    def after(move: Move, state: GameState) -> None:
        step = describe(move, state)
        last[:] = [state]
        if step is None:
            return
        step = {"move": move.seq, "kind": move.kind, "dice": [], "colours": [], "held": [], "round": 0, **step}
        if "seat" in step:
            step["by_computer"] = step["seat"] in computer
        # Only what changed: every card at the start, the scorer's card after a score.
        if move.kind == Move.Kind.START:
            step["cards"] = scorecard.cards(state)
        elif move.kind == Move.Kind.SCORE:
            step["card"] = scorecard.seat_card(state.ruleset, step["seat"], state.cards[step["seat"]])
        # Which seats are still in (a seat that left or was taken out is not, one a computer took
        # back in is again): at the start, then at each step after which that changed.
        if not shown_active or shown_active[0] != state.active:
            step["active"] = list(state.active)
            shown_active[:] = [state.active]
        step["verdict"] = found.get(move.seq)
        steps.append(step)

    replay_moves(game.ruleset, moves, after=after)
    if steps and last and game.is_over:
        state = last[0]
        # The winners the players' records have (Room.winners): a seat a computer finished for its
        # away player, or played on after its player left, ranks after the players who stayed,
        # whatever its total.
        room = game.room
        first = room.winners()
        winners = [names[i] for i in first]
        best = state.totals(first[0]).grand_total if first else 0
        if game.status == Game.Status.ABANDONED or not winners:
            ending = gettext("The game was abandoned: nobody was left to play.")
        elif len(winners) > 1:
            ending = ngettext("%(names)s win with %(points)s point.", "%(names)s win with %(points)s points.", best) % {
                "names": " & ".join(winners),
                "points": best,
            }
        else:
            ending = ngettext("%(name)s wins with %(points)s point.", "%(name)s wins with %(points)s points.", best) % {
                "name": winners[0],
                "points": best,
            }
        stayed = room.anyone_stayed()
        for index in range(len(names)):
            if winners and stayed and room.finished_by_computer(index):
                ending += " " + gettext(
                    "%(name)s's seat was finished by a computer: it ranks after the players who stayed."
                ) % {"name": names[index]}
        end = {
            "move": steps[-1]["move"],
            "kind": "end",
            "text": ending,
            "dice": [],
            "colours": [],
            "held": [],
            "round": 0,
            # The seats that won (none in an abandoned game): the card shows the first one's columns.
            "winners": [] if game.status == Game.Status.ABANDONED else list(first),
        }
        steps.append({**end, "verdict": None})
    return steps


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
    revealed = game.is_over
    commitment_ok = fairness.commitment(game.server_seed) == game.seed_commitment
    mismatches: list[str] = []
    rolls = 0
    sides = RULESETS[game.ruleset].outcomes
    for move in moves if moves is not None else selectors.roll_moves(game):
        if move.kind != Move.Kind.ROLL:
            continue
        p = move.payload if isinstance(move.payload, dict) else {}
        number, faces = p.get("roll"), p.get("faces")
        # A damaged log is a failed check, not a crash of the page that shows it: a roll whose
        # number or dice are missing cannot be re-derived, so it is not shown to be fair.
        if isinstance(number, bool) or not isinstance(number, int) or not isinstance(faces, list) or not faces:
            number_ok = isinstance(number, int) and not isinstance(number, bool)
            missing = "dice" if number_ok else "number" if isinstance(faces, list) and faces else "number and dice"
            mismatches.append(f"roll {rolls} (move {move.seq}): logged without its {missing}")
            rolls += 1
            continue
        # The rolls are numbered 0, 1, 2, ... in the order they were made: a server free to choose
        # a roll's number would choose its dice among the numbers' faces.
        if number != rolls:
            mismatches.append(f"roll {number} (move {move.seq}): out of order, roll {rolls} was due")
        expected = fairness.roll_faces(game.server_seed, game.code, game.client_seed, number, len(faces), sides=sides)
        rolls += 1
        if expected != faces:
            mismatches.append(f"roll {number} (move {move.seq}): logged {faces}, the seed gives {expected}")
    return FairnessReport(commitment_ok=commitment_ok, rolls_checked=rolls, mismatches=mismatches, revealed=revealed)


# How long a finished game's fairness check stays in the cache once made.
CHECK_KEPT = 3600


@dataclass(frozen=True)
class FairnessCheck:
    """What the fair-dice page shows of a finished game, none of it worded: the report, what the
    replay through the rules found (``problems``, empty when it reached the stored scores), and
    every roll with its turn's number and seat name as stored (``rolls``: Painted's colours by name)."""

    report: FairnessReport
    problems: list[str]
    rolls: list[tuple[int, str, dict[str, Any]]]


def fairness_check(game: Game) -> FairnessCheck:
    """``verify_fairness`` and ``replay_game`` of a finished game, made once per version and kept in
    the shared cache for ``CHECK_KEPT`` seconds (the local cache holds a bounded number): the page is
    anyone's to open again and again, and a long game's replay takes a worker a good part of a
    second. A finished game changes only by a new version (a deleted account's name withdrawn)."""
    key = f"fairness-check:v1:{game.code}:{game.version}"
    found = cache.get(key)
    if isinstance(found, FairnessCheck):
        return found
    replay = replay_game(game)
    rolls = [(turn.number, turn.name, roll) for turn in replay.turns for roll in turn.rolls]
    check = FairnessCheck(report=verify_fairness(game), problems=replay.problems, rolls=rolls)
    if game.is_over:
        cache.set(key, check, CHECK_KEPT)
    return check

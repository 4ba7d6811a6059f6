"""The coach: a hint for the player to play, and after the game what each choice cost.

Both read the exact solver of ``bots`` (expected final score of the seat under optimal
solitaire play) and never build a table in a request: while a table is missing its build is
asked for (games.store.tables) and a hint answers that the computer is getting ready, with about
how long (``"ready": false``), which the page shows and asks again after.

Painted Yahtzee has no exact solver: its hints come from the bot's one-turn search against
estimated box values (``bots.painted``) and say so, and its review gives no points-lost figure
(there is no exact one to give) but says why.
"""

from __future__ import annotations

import math
from typing import Any

from django.core.cache import cache
from django.utils.translation import gettext, gettext_noop

import bots
from games import services
from games.domain import errors
from games.domain.room import BOT, HUMAN
from games.domain.rules import COLOURS, RULESETS, GameState, RuleSet, RuleViolation
from games.services.actions import paused
from games.services.deadline import TIMEOUT_ACTION
from games.services.replay import replay_moves
from games.services.words import colour_name, score_text
from games.store import selectors, tables
from games.store.models import Game, HintTaken, Move

TOP = 3
STUDYING = gettext_noop("The coach is still studying this rule set: ask again in a minute.")
HEURISTIC_NOTE = (
    "Painted Yahtzee has no exact solver: these hints come from a one-turn search of this roll "
    "against estimated values of the open boxes, and the expected scores are estimates."
)
TRIPLE_NOTE = gettext_noop(
    "Triple Yahtzee has no exact solver: these figures are estimates from one column's solved table, "
    "which can misjudge an open ×2 or ×3 Yahtzee box late in a game."
)
NO_EXACT_REVIEW = gettext_noop(
    "Painted Yahtzee has no exact solver, so the coach cannot say how many points each choice "
    "gave up: it gives no figure rather than a guess."
)


def _ready(ruleset: str) -> None:
    if not bots.ready(RULESETS[ruleset]):
        tables.request(ruleset)
        raise RuleViolation(errors.COACH_BUSY, gettext(STUDYING))


def getting_ready_text(eta: float | None) -> str:
    """What a room says while its rule set's table is being built."""
    if eta is None:
        return "The computer is getting ready."
    return f"The computer is getting ready (about {math.ceil(eta)} s)."


def _getting_ready(game: Game, state: GameState) -> dict[str, Any]:
    """A hint's answer while the table is not ready: not an error, the page asks again."""
    tables.request(game.ruleset)
    eta = tables.eta(game.ruleset)
    return {
        "type": "hint",
        "version": game.version,
        "seat": state.current,
        "ready": False,
        "eta": None if eta is None else math.ceil(eta),
        "message": getting_ready_text(eta),
        "expected": None,
        "exact": bots.exact(state.ruleset),
        "note": "",
        "options": [],
    }


# A choice as the coach keeps it, in no language: {"keep": [dice kept], "colours": [their colours]}
# (colours in Painted Yahtzee only) or {"box", "column", "points", "bonus"} (the box's points and
# the turn's Yahtzee bonus apart). ``choice_text`` words it for the reader.
Choice = dict[str, Any]


def _kept(state: GameState, held: list[int]) -> Choice:
    choice: Choice = {"keep": [state.turn.dice[i] for i in held]}
    if state.turn.colours:
        choice["colours"] = [state.turn.colours[i] for i in held]
    return choice


def _scored(box: str, column: int, points: int, bonus: int) -> Choice:
    return {"box": box, "column": column, "points": points, "bonus": bonus}


def _option_choice(state: GameState, option: bots.Option) -> Choice:
    if isinstance(option.action, bots.Roll):
        return _kept(state, list(option.action.held))
    # What the box gets; the bonus is the turn's, said apart.
    return _scored(option.action.box, option.action.column, option.points - option.bonus, option.bonus)


def choice_text(ruleset: RuleSet, choice: Choice) -> str:
    """``choice`` in the reader's words ("Keep 5 5 and roll again", "Score 25 in Full House")."""
    if "keep" in choice:
        dice = choice["keep"]
        if not dice:
            return gettext("Reroll all five dice")
        colours = choice.get("colours")
        if colours:
            kept = ", ".join(f"{die} {colour_name(COLOURS[colour])}" for die, colour in zip(dice, colours, strict=True))
        else:
            kept = " ".join(str(die) for die in dice)
        return gettext("Keep %(dice)s and roll again") % {"dice": kept}
    return score_text(ruleset, choice["box"], choice["column"], choice["points"], choice["bonus"])


def _option(state: GameState, option: bots.Option) -> dict[str, Any]:
    expected = round(option.expected, 1)
    choice = _option_choice(state, option)
    text = choice_text(state.ruleset, choice)
    if isinstance(option.action, bots.Roll):
        return {"kind": "keep", "held": list(option.action.held), "text": text, "expected": expected}
    return {
        "kind": "score",
        "box": option.action.box,
        "column": option.action.column,
        "points": choice["points"],
        "bonus": choice["bonus"],
        "text": text,
        "expected": expected,
    }


def hint_for(*, code: str, controller: str, version: int) -> dict[str, Any]:
    """The best few choices for the current roll, for the player whose turn it is (a read; no lock)."""
    game = selectors.room(services.normalize_code(code))
    if not game.hints:
        raise RuleViolation(errors.HINTS_OFF, "Hints are turned off in this room.")
    if game.version != version:
        raise RuleViolation(errors.STALE, "The game has moved on: ask again for the new roll.")
    if game.status != Game.Status.PLAYING:
        raise RuleViolation(errors.NOT_PLAYING, "Hints are for a game in progress.")
    state = game.room.rules
    # A pause stops the turn: the coach waits with it, as a roll does (``acting_seat``). The page
    # offers no Hint then; one asked from a page drawn before the pause is told why, by whom it waits.
    if game.room.paused and game.room.plays(controller):
        raise paused(game, controller)
    if state is None or not game.room.controls_current(controller):
        raise RuleViolation(errors.NOT_A_PLAYER, "Hints are for the player whose turn it is.")
    if state.turn.rolls_used == 0:
        raise RuleViolation(errors.ROLL_FIRST, "Roll first: the coach advises on the dice you have.")
    if not tables.ready(game.ruleset):
        return _getting_ready(game, state)
    try:
        found = bots.hint(state, state.current, top=TOP, build=False)
        expected = bots.expected_score(state, state.current, build=False)
    except bots.TableNotReady:
        return _getting_ready(game, state)
    # Noted once a seat: a game played with the coach's help is not the player's own for accuracy.
    HintTaken.objects.get_or_create(game=game, player_id=game.room.seats[state.current].player)
    shown = [_option(state, option) for option in found]
    exact = bots.exact(state.ruleset)
    if state.ruleset.colours and shown:
        shown[0]["text"] += " (one-turn search: estimated values, no exact solver for Painted Yahtzee)"
    return {
        "type": "hint",
        "version": game.version,
        "seat": state.current,
        "ready": True,
        "expected": round(expected, 1),
        "exact": exact,
        "note": "" if exact else HEURISTIC_NOTE if state.ruleset.colours else gettext(TRIPLE_NOTE),
        "options": shown,
    }


COSTLY = 0.5  # expected points: a choice losing more than this is listed as costly
# A seat played like the solver when its choices gave up no more than one costly choice would in
# all: many small losses add up to a figure the player should be told.
LIKE_SOLVER = COSTLY


def _action_choice(state: GameState, action: bots.Action) -> Choice:
    """What a choice did, as the hint's options say it (``_option``)."""
    if isinstance(action, bots.Roll):
        return _kept(state, list(action.held))
    found = next(
        (o for o in state.options() if o.box.value == action.box and o.column == action.column),
        None,
    )
    if found is None:
        return _scored(action.box, action.column, 0, 0)
    return _scored(found.box.value, action.column, found.points, found.bonus)


def _rounds_played(state: GameState, seat: int) -> int:
    return state.cards[seat].filled


def verdicts(game: Game) -> tuple[list[dict[str, Any]], bool]:
    """Every choice of a finished game with the coach's verdict, in the order of the log.

    A choice is a reroll (which dice to keep) or a score (which box); for each: the seat,
    its round, the dice, what was chosen (``choice``), what perfect play would have chosen
    (``best_choice``), each a ``Choice`` in no language (``worded`` says them), and the
    expected final-score points lost (0 when the choice was as good as the best). The flag says
    whether the log replayed through the rules without a disagreement.
    """
    _ready(game.ruleset)
    choices: list[tuple[Move, int, GameState, bots.Action]] = []
    moves = selectors.moves_in_order(game)
    # The seats that joined as computers: any other seat's computer moves were made for a person
    # (away, or gone, and never back), and are not charged to them.
    computers = {m.player_id for m in moves if m.kind == Move.Kind.JOIN and m.payload.get("bot")}

    def observe(move: Move, seat: int, state: GameState) -> None:
        if move.action_id.startswith(TIMEOUT_ACTION):
            return  # the turn timer played it (games.services.clock), not the player
        if move.actor.startswith("bot:") and game.room.seats[seat].player not in computers:
            return  # a computer played it for its person, not the person
        if move.kind == Move.Kind.SCORE:
            action: bots.Action = bots.Score(move.payload["box"], move.payload["column"])
        elif state.turn.rolls_used > 0:  # a reroll: the choice is which dice to keep
            action = bots.Roll(tuple(sorted(state.turn.held)))
        else:
            return
        choices.append((move, seat, state, action))

    replay = replay_moves(game.ruleset, moves, observe=observe)
    found: list[dict[str, Any]] = []
    for move, seat, state, action in choices:
        try:
            choosable = bots.options(state, seat, build=False)  # worked out once, for both
            best = choosable[0]
            lost = bots.choice_loss(state, action, found=choosable)
        except bots.TableNotReady as exc:
            raise RuleViolation(errors.COACH_BUSY, gettext(STUDYING)) from exc
        found.append(
            {
                "move": move.seq,
                "seat": seat,
                "round": _rounds_played(state, seat) + 1,
                "roll": state.turn.rolls_used,
                "dice": list(state.turn.dice),
                "kind": "score" if isinstance(action, bots.Score) else "keep",
                "choice": _action_choice(state, action),
                "best_choice": _option_choice(state, best),
                "lost": round(lost, 1),
                "exact_loss": lost,
            }
        )
    return found, not replay.problems


def _judged(game: Game) -> tuple[list[dict[str, Any]], bool]:
    """``verdicts`` of a finished game, computed once per version and kept in the cache for an hour.

    The same for every reader: the choices are kept in no language, and worded for each (``worded``).
    """
    key = f"coach-verdicts:v2:{game.code}:{game.version}"
    found = cache.get(key)
    if found is not None:
        return list(found["every"]), bool(found["replayed"])
    every, replayed = verdicts(game)
    cache.set(key, {"every": every, "replayed": replayed}, 3600)
    return every, replayed


def worded(ruleset: RuleSet, verdict: dict[str, Any]) -> dict[str, Any]:
    """``verdict`` with what was chosen (``chosen``) and what perfect play chose (``best``) in the reader's words."""
    return {
        **verdict,
        "chosen": choice_text(ruleset, verdict["choice"]),
        "best": choice_text(ruleset, verdict["best_choice"]),
    }


def verdict_map(game: Game) -> dict[int, dict[str, Any]]:
    """The verdict on each choice of a finished game by its move number (the replay page's)."""
    if not game.is_over:
        raise RuleViolation(errors.NOT_OVER, "The coach reviews a game when it is over.")
    ruleset = RULESETS[game.ruleset]
    if ruleset.colours:
        return {}  # no exact solver: the replay shows no verdicts rather than invented ones
    every, _ = _judged(game)
    return {v["move"]: {k: v[k] for k in ("chosen", "best", "lost")} for v in (worded(ruleset, v) for v in every)}


def review(game: Game) -> dict[str, Any]:
    """After the game: for every seat, the expected points its choices lost and each costly choice.

    ``seats[i].costly`` lists the choices that lost more than ``COSTLY`` points, in the order
    they were made: round, dice, what was chosen, what perfect play would have chosen, points lost.
    ``like_solver``: the seat's choices lost no more than ``LIKE_SOLVER`` points in all.
    """
    if not game.is_over:
        raise RuleViolation(errors.NOT_OVER, "The coach reviews a game when it is over.")
    ruleset = RULESETS[game.ruleset]
    if ruleset.colours:
        return _no_exact_review(game)
    every, replayed = _judged(game)
    kinds = _choosers(game)
    seats = []
    for index, seat in enumerate(game.room.seats):
        mine = [v for v in every if v["seat"] == index]
        costly = [
            {k: v[k] for k in ("move", "round", "roll", "dice", "kind", "chosen", "best", "lost")}
            for v in (worded(ruleset, v) for v in mine if v["exact_loss"] > COSTLY)
        ]
        lost = sum(v["exact_loss"] for v in mine)
        seats.append(
            {
                "seat": index,
                "name": seat.name,
                "kind": kinds[index],
                "lost": round(lost, 1),
                "mistakes": len(costly),
                "choices": len(mine),
                "like_solver": lost <= LIKE_SOLVER,
                "costly": costly,
            }
        )
    exact = bots.exact(ruleset)
    data = {
        "code": game.code,
        "exact": exact,
        "note": "" if exact else gettext(TRIPLE_NOTE),
        "seats": seats,
        "replayed": replayed,
        "replay_url": selectors.replay_url(game),
    }
    return data


def _choosers(game: Game) -> list[str]:
    """Whose choices the review judges at each seat: ``bot`` for a seat that sat down as a computer,
    ``human`` for a person's, also one a computer finished for them (``verdicts`` leaves the
    computer's moves there out, so every figure of that seat is the person's own)."""
    computers = selectors.seated_computers(game)
    return [BOT if seat.player in computers else HUMAN for seat in game.room.seats]


def _replays_whole(game: Game) -> bool:
    """Whether a finished game's Move log replays through the rules, worked out once per version and
    kept in the cache for an hour (the replay page asks it at every view)."""
    key = f"coach-replayed:v1:{game.code}:{game.version}"
    found = cache.get(key)
    if found is not None:
        return bool(found)
    replayed = not replay_moves(game.ruleset, selectors.moves_in_order(game)).problems
    cache.set(key, replayed, 3600)
    return replayed


def _no_exact_review(game: Game) -> dict[str, Any]:
    """Painted Yahtzee: the review says that no exact figure exists instead of inventing one."""
    kinds = _choosers(game)
    return {
        "code": game.code,
        "exact": False,
        "message": gettext(NO_EXACT_REVIEW),
        "seats": [
            {
                "seat": index,
                "name": seat.name,
                "kind": kinds[index],
                "lost": None,
                "mistakes": None,
                "choices": None,
                "like_solver": None,
            }
            for index, seat in enumerate(game.room.seats)
        ],
        "replayed": _replays_whole(game),
    }

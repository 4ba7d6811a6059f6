"""What a computer player does next, and what the coach says about a choice.

Everything works on a ``games.domain.rules.GameState`` and the seat whose turn it is, and values are
the seat's own *expected final score* (points on its card now plus the expected points still
to come under optimal solitaire play: the standard yardstick, also in multi-player games).

Actions::

    Roll(held=(0, 2))     # hold dice 0 and 2 (indices into state.turn.dice), roll the others
    Roll()                # at the start of a turn: roll all five (nothing may be held yet)
    Score("chance", 0)    # score the dice in a box of column 0

Functions (``build=False`` makes them raise ``TableNotReady`` instead of building a missing
table; see ``bots.tables``; web code should check ``bots.ready(ruleset)`` first)::

    decide(state, seat, level="optimal", rng=None) -> Action
    options(state, seat) -> list[Option]         # every distinct choice, best first
    hint(state, seat, top=3) -> list[Option]     # the best few, for the coach
    choice_loss(state_before, action) -> float   # expected points lost vs the best choice
    expected_score(state, seat) -> float         # the seat's expected final score now
    review(choices) -> Review                    # losses over a replayed game

With rolls left, the options are every keep strictly inside the dice (``Roll``) and every legal
box (``Score``); keeping all five is the same as scoring now. After the third roll only boxes
are options; before the first roll the only option is ``Roll()``.

Levels (``LEVELS``): ``"optimal"`` maximises the expected score. ``"casual"`` and
``"beginner"`` pick each choice at random among the few best options, with softmax weights
``exp((value - best) / temperature)``: they usually play well and sometimes make a near-miss,
human-looking mistake (never an absurd one), scoring about 230 and 205 on average against the
optimal 254.6 (docs/bots.md), so a beginner can beat them.

For ``triple`` the same API works on the heuristic values of ``bots.triple``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from games.domain.rules import GameState, RuleSet, ScoreOption, score_options
from games.domain.rules.rulesets import Box
from games.domain.rules.state import DICE

from . import dice as D
from . import painted, tables, triple
from .solver import Table, TurnSolution


@dataclass(frozen=True, slots=True)
class Roll:
    """Hold exactly the dice at ``held`` (indices 0-4, ascending), then roll the others."""

    held: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Score:
    """Score the current dice in ``box`` (a ``Box`` value such as ``"full_house"``) of ``column``."""

    box: str
    column: int = 0


Action = Roll | Score


@dataclass(frozen=True, slots=True)
class Option:
    """One choice and the seat's expected final score if it is taken (then optimal play)."""

    action: Action
    expected: float
    dice: tuple[int, ...]  # the dice kept (Roll) or scored (Score), ascending
    points: int = 0  # Score: what the box gets plus any Yahtzee bonus; Roll: 0
    bonus: int = 0  # Score: the Yahtzee bonus among ``points``


@dataclass(frozen=True, slots=True)
class Review:
    """Expected points lost over a sequence of choices (see ``review``)."""

    total_loss: float
    mistakes: int  # choices losing more than the threshold
    choices: int
    worst: tuple[tuple[int, float], ...]  # (choice index, loss), biggest first, up to five


@dataclass(frozen=True, slots=True)
class Level:
    """How a bot level chooses: softmax over its ``candidates`` best options at ``temperature`` points."""

    temperature: float  # 0: always the best option
    candidates: int


LEVELS: dict[str, Level] = {
    "optimal": Level(0.0, 1),
    "casual": Level(2.0, 4),
    "beginner": Level(5.0, 4),
}

_default_rng = random.Random()


def ready(ruleset: RuleSet | str) -> bool:
    """Whether the bot can play ``ruleset`` without building a table first (Painted needs none)."""
    return tables.ready(ruleset)


def _check_turn(state: GameState, seat: int) -> None:
    if not state.started or state.is_over:
        raise ValueError("the game is not in progress")
    if seat != state.current:
        raise ValueError(f"it is seat {state.current}'s turn, not seat {seat}'s")


def _painted_options(state: GameState, seat: int) -> list[Option]:
    """Painted Yahtzee: the one-turn search of ``bots.painted`` (heuristic values, see there)."""
    _check_turn(state, seat)
    card = painted.card_of(state, seat)
    base = state.totals(seat).grand_total + card.par_open
    turn = state.turn
    if not turn.dice:
        return [Option(Roll(), base, ())]
    dice = tuple(sorted(turn.dice))
    found = [
        Option(
            Score(str(o.box), 0), base + card.box_utility(o.box, o.points, o.bonus), dice, o.points + o.bonus, o.bonus
        )
        for o in state.options()
        if o.legal
    ]
    if turn.rolls_left > 0:
        for held, kept, value in painted.keep_values(state, seat):
            found.append(Option(Roll(held), base + value, tuple(sorted(v for v, _ in kept))))
    # Prefer, among keeps worth the same, the dice already held (stable for the player).
    return sorted(found, key=_sort_key)


class _Position:
    """The seat's card and turn as the solver sees them."""

    def __init__(self, state: GameState, seat: int, *, build: bool) -> None:
        if not state.started or state.is_over:
            raise ValueError("the game is not in progress")
        if seat != state.current:
            raise ValueError(f"it is seat {state.current}'s turn, not seat {seat}'s")
        self.state = state
        self.ruleset = state.ruleset
        self.table: Table = tables.table(self.ruleset, build=build)
        self.card = state.cards[seat].as_columns()
        self.mults = self.ruleset.multipliers
        self.states = triple.column_states(self.table, self.card, self.mults)
        self.total = state.totals(seat).grand_total
        self.future = triple.future(self.table, self.states, self.mults)

    def solution(self) -> TurnSolution:
        if self.ruleset.columns == 1:
            return self.table.turn(*self.states[0])
        return triple.turn(self.table, self.ruleset, self.states)

    def after_score(self, opt: ScoreOption) -> float:
        """Points still to come, counting this option's points, bonuses and the rest of the game."""
        m = self.mults[opt.column]
        plain = opt.points // m
        st = self.states[opt.column]
        new = triple.next_state(self.table, st, opt.box, plain)
        rest = self.future - m * self.table.value(*st)
        return (
            opt.points
            + opt.bonus
            + m * triple.upper_gain(self.table, st, opt.box, plain)
            + rest
            + m * self.table.value(*new)
        )

    def score_options(self) -> list[Option]:
        dice = tuple(sorted(self.state.turn.dice))
        return [
            Option(
                Score(str(opt.box), opt.column),
                self.total + self.after_score(opt),
                dice,
                opt.points + opt.bonus,
                opt.bonus,
            )
            for opt in score_options(self.ruleset, self.card, self.state.turn.dice)
            if opt.legal
        ]

    def keep_options(self, rolls_left: int) -> list[Option]:
        turn = self.state.turn
        values = self.solution().keeps(rolls_left)
        outcome = D.outcome_index(turn.dice)
        whole = D.OUTCOME_START + outcome
        out = []
        for k in D.SUB_KEEPS[outcome]:
            if k == whole:
                continue  # keeping all five = scoring now
            kept = D.keep_dice(k)
            out.append(Option(Roll(held_indices(turn.dice, kept, turn.held)), self.total + float(values[k]), kept))
        return out


def held_indices(dice: Sequence[int], kept: Sequence[int], prefer: Iterable[int] = ()) -> tuple[int, ...]:
    """Die indices showing the multiset ``kept``, preferring dice already held, then lower indices."""
    preferred = set(prefer)
    order = sorted(range(len(dice)), key=lambda i: (i not in preferred, i))
    need = list(kept)
    chosen = []
    for i in order:
        if dice[i] in need:
            need.remove(dice[i])
            chosen.append(i)
    if need:
        raise ValueError(f"dice {tuple(dice)} do not contain {tuple(kept)}")
    return tuple(sorted(chosen))


def _sort_key(option: Option) -> tuple[float, int, int]:
    # Best first; on a tie (to 1e-9) scoring before rolling, then holding more dice.
    return (-round(option.expected, 9), 0 if isinstance(option.action, Score) else 1, -len(option.dice))


def options(state: GameState, seat: int, *, build: bool = True) -> list[Option]:
    """Every distinct choice the seat has now, best first, with its expected final score."""
    if state.ruleset.colours:
        return _painted_options(state, seat)
    pos = _Position(state, seat, build=build)
    turn = state.turn
    if not turn.dice:
        return [Option(Roll(), pos.total + pos.solution().value, ())]
    found = pos.score_options()
    if turn.rolls_left > 0:
        found += pos.keep_options(turn.rolls_left)
    return sorted(found, key=_sort_key)


def hint(state: GameState, seat: int, top: int = 3, *, build: bool = True) -> list[Option]:
    """The ``top`` best choices for the seat now (boxes and, with rolls left, keeps)."""
    return options(state, seat, build=build)[:top]


def expected_score(state: GameState, seat: int, *, build: bool = True) -> float:
    """The seat's expected final score: its points now plus optimal expected points to come.

    For the seat to play this is the value of its best choice; for another seat (or a finished
    card) it is the value at the start of its next turn.
    """
    if state.started and not state.is_over and seat == state.current:
        return options(state, seat, build=build)[0].expected
    if state.ruleset.colours:
        return state.totals(seat).grand_total + painted.card_of(state, seat).par_open
    tbl = tables.table(state.ruleset, build=build)
    card = state.cards[seat].as_columns()
    states = triple.column_states(tbl, card, state.ruleset.multipliers)
    return state.totals(seat).grand_total + triple.future(tbl, states, state.ruleset.multipliers)


def _value_of(state: GameState, action: Action, found: list[Option]) -> float:
    turn = state.turn
    if isinstance(action, Score):
        for opt in found:
            if opt.action == Score(str(Box(action.box)), action.column):
                return opt.expected
        raise ValueError(f"{action.box} (column {action.column}) cannot be scored now")
    if not turn.dice:
        if action.held:
            raise ValueError("nothing can be held before the first roll")
        return found[0].expected
    if turn.rolls_left == 0:
        raise ValueError("no rolls left")
    held = set(action.held)
    if not held <= set(range(DICE)) or len(held) == DICE:
        raise ValueError(f"cannot roll holding {tuple(sorted(held))}")
    if state.ruleset.colours:

        def pairs(indices: Iterable[int]) -> list[tuple[int, int]]:
            return sorted((turn.dice[i], turn.colours[i]) for i in indices)

        for opt in found:
            if isinstance(opt.action, Roll) and pairs(opt.action.held) == pairs(held):
                return opt.expected
    kept = tuple(sorted(turn.dice[i] for i in held))
    for opt in found:
        if isinstance(opt.action, Roll) and opt.dice == kept:
            return opt.expected
    raise AssertionError("every keep inside the dice is an option")  # pragma: no cover


def choice_loss(
    state_before: GameState, action: Action, *, build: bool = True, found: list[Option] | None = None
) -> float:
    """Expected final-score points the current seat loses by ``action`` instead of the best choice (>= 0).

    ``found``: the seat's ``options`` in ``state_before``, when the caller has worked them out
    already (they are most of the cost).
    """
    if found is None:
        found = options(state_before, state_before.current, build=build)
    return max(0.0, found[0].expected - _value_of(state_before, action, found))


def review(choices: Iterable[tuple[GameState, Action]], *, threshold: float = 0.05, build: bool = True) -> Review:
    """Losses over ``(state before, action)`` pairs, e.g. one seat's choices replayed from a game log.

    A choice counts as a mistake when it loses more than ``threshold`` points.
    """
    losses = [choice_loss(state, action, build=build) for state, action in choices]
    worst = sorted(((i, loss) for i, loss in enumerate(losses) if loss > threshold), key=lambda x: -x[1])
    return Review(
        total_loss=sum(losses),
        mistakes=sum(1 for loss in losses if loss > threshold),
        choices=len(losses),
        worst=tuple(worst[:5]),
    )


def decide(
    state: GameState,
    seat: int,
    level: str = "optimal",
    rng: random.Random | None = None,
    *,
    build: bool = True,
) -> Action:
    """The seat's next action at ``level`` (``LEVELS``); ``rng`` drives the weaker levels' noise."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; one of {', '.join(LEVELS)}")
    found = options(state, seat, build=build)
    how = LEVELS[level]
    if how.temperature <= 0 or len(found) == 1:
        return found[0].action
    found = found[: how.candidates]
    best = found[0].expected
    weights = [math.exp((opt.expected - best) / how.temperature) for opt in found]
    return (rng or _default_rng).choices(found, weights=weights)[0].action

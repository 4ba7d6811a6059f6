"""Triple Yahtzee: a heuristic on top of the exact one-column table.

No exact table is feasible for three columns (2^39 fill patterns), so the future of a card is
approximated column by column: column k (multiplier m) is worth ``m * V(column state)``, where
``V`` is the exact ``official``-style table of a single column (``tables.column_ruleset``).
Within the current turn everything is exact: every box of every column is scored as
``games.domain.rules`` scores it (Triple's joker precedence and bonuses included), and the keep
choices maximise the expected value of "points this turn + approximated future". So the bot
plays each turn optimally against that value function; its measured mean is in docs/bots.md.

The approximation treats the columns as if each had its own turns; in the real game every turn
picks among the open boxes of all columns, so the heuristic's "expected final score" is a
slight underestimate of what the bot actually scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np

from games.domain.rules import RuleSet, score_options
from games.domain.rules.rulesets import UPPER_VALUE, Box

from . import dice as D
from .solver import NEG, Table, TurnSolution, solve_turn

ColumnState = tuple[int, int, int]  # (mask, capped plain upper sum, Yahtzee box holds > 0)


def column_states(
    table: Table, card: Sequence[Mapping[Box, int]], multipliers: Sequence[int]
) -> tuple[ColumnState, ...]:
    return tuple(table.model.state_of(col, m) for col, m in zip(card, multipliers, strict=True))


def future(table: Table, states: Sequence[ColumnState], multipliers: Sequence[int]) -> float:
    """The approximated points still to come of a whole card: the sum of m * V over its columns."""
    return sum(m * table.value(*st) for st, m in zip(states, multipliers, strict=True))


def synthetic_card(table: Table, states: Sequence[ColumnState], multipliers: Sequence[int]) -> list[dict[Box, int]]:
    """A card with the same open boxes and Yahtzee boxes as ``states`` (all the joker rules read)."""
    model = table.model
    card = []
    for (mask, _up, flag), m in zip(states, multipliers, strict=True):
        col = {b: 0 for i, b in enumerate(model.boxes) if mask >> i & 1}
        if Box.YAHTZEE in col and flag:
            col[Box.YAHTZEE] = 50 * m
        card.append(col)
    return card


def next_state(table: Table, state: ColumnState, box: Box, plain_points: int) -> ColumnState:
    """The column state after scoring ``plain_points`` (before the multiplier) in ``box``."""
    model = table.model
    mask, up, flag = state
    if box in UPPER_VALUE:
        up = min(model.threshold, up + plain_points)
    if box is Box.YAHTZEE and plain_points > 0 and model.flags == 2:
        flag = 1
    return mask | model.bit(box), up, flag


def upper_gain(table: Table, state: ColumnState, box: Box, plain_points: int) -> int:
    """The plain upper bonus that scoring ``plain_points`` in ``box`` earns (0 or e.g. 35)."""
    model = table.model
    up = state[1]
    if box in UPPER_VALUE and up < model.threshold <= up + plain_points:
        return model.upper_bonus
    return 0


def after_last_roll(table: Table, ruleset: RuleSet, states: tuple[ColumnState, ...]) -> np.ndarray:
    """``E3`` (252,): for each outcome the best box of any column, scored now plus the approximated future."""
    model = table.model
    T = model.threshold
    mults = ruleset.multipliers
    vals = [m * table.value(*st) for st, m in zip(states, mults, strict=True)]
    total = sum(vals)
    e3 = np.full(D.N_OUTCOMES, NEG)
    for c, ((mask, up, flag), m) in enumerate(zip(states, mults, strict=True)):
        rest = total - vals[c]
        for i in range(model.n_boxes):
            bit = 1 << i
            if mask & bit:
                continue
            face = int(model.upper_face[i])
            if face == 0:
                cand = m * model.plain[i] + (rest + m * table.value(mask | bit, up, flag))
            else:
                u = np.empty(D.DICE + 1)
                for n in range(D.DICE + 1):
                    pts = face * n
                    gain = pts + (model.upper_bonus if up < T <= up + pts else 0)
                    u[n] = m * (gain + table.value(mask | bit, min(T, up + pts), flag)) + rest
                cand = u[D.OUTCOME_COUNTS[:, face - 1]]
            np.maximum(e3, cand, out=e3)
    card = synthetic_card(table, states, mults)
    for face in range(1, D.FACES + 1):
        best = NEG
        for opt in score_options(ruleset, card, (face,) * D.DICE):
            if not opt.legal:
                continue
            m = mults[opt.column]
            plain = opt.points // m
            st = states[opt.column]
            value = (
                opt.points
                + opt.bonus
                + m * upper_gain(table, st, opt.box, plain)
                + total
                - vals[opt.column]
                + m * table.value(*next_state(table, st, opt.box, plain))
            )
            best = max(best, value)
        e3[D.FIVE_OF_A_KIND[face - 1]] = best
    return e3


@lru_cache(maxsize=2048)
def _turn(table: Table, ruleset: RuleSet, states: tuple[ColumnState, ...]) -> TurnSolution:
    return solve_turn(after_last_roll(table, ruleset, states))


def turn(table: Table, ruleset: RuleSet, states: tuple[ColumnState, ...]) -> TurnSolution:
    """The solved turn of a Triple card (approximated future), cached."""
    return _turn(table, ruleset, states)

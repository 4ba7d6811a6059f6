"""Painted Yahtzee: a one-turn search against per-box values (no exact table exists).

An exact solver would need a table over 2^23 fill patterns of a 23-box card and turns over
C(34, 5) = 278,256 coloured outcomes: out of reach. So the bot plays each turn by a search of
the turn itself against a *value function* of the card:

* **Box values.** ``PAR[box]`` is the points a box is expected to bring if it stays open for a
  later turn (estimated offline: the mean each box scored in self-play games of this very bot,
  re-estimated three times over 400 games each so the values and the play agree; see
  ``estimate_pars``). Scoring ``p`` points in
  a box is worth ``p - PAR[box]`` against keeping it open. An upper box also counts how far
  ``p`` is from the 3-of-that-value pace towards the 63-point bonus (``BONUS_PACE`` per point),
  and the whole 35 when it completes the bonus. Yahtzee bonuses and jokers come from
  ``games.domain.rules`` exactly.
* **Scoring** (after any roll): the legal box with the best ``p - PAR`` (ties: the first box).
* **Keeping** (with rolls left): every distinct keep of the dice (value *and* colour) is worth
  the expectation, over the rerolled dice, of the best box for the resulting hand. One and two
  rerolled dice are enumerated exactly (30 and 465 outcomes, weighted); three or more use one
  fixed sample of ``SAMPLES`` rerolls (the same for every keep and every call, so keeps are
  compared on equal dice and decisions are deterministic). With two rolls left the same one-roll
  look-ahead is used (the last roll's option to reroll again is not modelled).

``expected`` figures are heuristic: the card's points now plus the open boxes' ``PAR`` plus the
choice's gain. The coach says so; there is no exact "points lost" figure for this rule set.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from games.domain.rules import GameState, RuleSet, colour_score, score_options
from games.domain.rules.rulesets import COLOUR_BOXES, UPPER_VALUE, Box

DICE = 5
SIDES = 30
SAMPLES = 160
BONUS_PACE = 0.5  # value of one upper point above (or below) the 3-per-box pace to the bonus

# Expected points of a box kept open for later: ``estimate_pars(games=400, rounds=3, seed=1)``
# (self-play, rounded to 0.5; the five colour sums, alike by symmetry, set to their mean 12).
PAR: dict[Box, float] = {
    Box.ONES: 2.5,
    Box.TWOS: 5.5,
    Box.THREES: 9.0,
    Box.FOURS: 12.0,
    Box.FIVES: 15.5,
    Box.SIXES: 19.0,
    Box.THREE_OF_A_KIND: 24.5,
    Box.FOUR_OF_A_KIND: 21.5,
    Box.FULL_HOUSE: 21.0,
    Box.SMALL_STRAIGHT: 29.5,
    Box.LARGE_STRAIGHT: 36.5,
    Box.YAHTZEE: 19.5,
    Box.CHANCE: 23.5,
    Box.RED: 12.0,
    Box.YELLOW: 12.0,
    Box.GREEN: 12.0,
    Box.BLUE: 12.0,
    Box.PURPLE: 12.0,
    Box.FOUR_COLOUR: 19.0,
    Box.PAINTED_HOUSE: 24.5,
    Box.RAINBOW: 37.0,
    Box.FLUSH: 29.5,
    Box.PALETTE: 23.5,
}


def _outcomes(free: int) -> tuple[np.ndarray, np.ndarray]:
    """Rerolls of ``free`` dice as faces 0-29, shape (M, free), and their probabilities (M,)."""
    if free == 0:
        return np.zeros((1, 0), dtype=np.int64), np.ones(1)
    if free == 1:
        return np.arange(SIDES, dtype=np.int64)[:, None], np.full(SIDES, 1.0 / SIDES)
    rng = random.Random(f"painted-rerolls-{free}")
    rows = [tuple(rng.randrange(SIDES) for _ in range(free)) for _ in range(SAMPLES)]
    return np.array(rows, dtype=np.int64), np.full(SAMPLES, 1.0 / SAMPLES)


_FACE_VALUES = np.arange(1, 7)
_COLOUR_IDS = np.arange(5)


_VALUE_BASE = 6 ** np.arange(6)  # value counts (n1..n6), each 0-5, as one base-6 number
_COLOUR_BASE = 6 ** np.arange(5)


class Features:
    """What scoring reads of some dice, each additive over dice: the value-count key, the
    colour-count key, the sums of each colour and the total."""

    def __init__(self, values: np.ndarray, colours: np.ndarray) -> None:
        vc = (values[:, :, None] == _FACE_VALUES).sum(axis=1)  # (n, 6)
        onehot = colours[:, :, None] == _COLOUR_IDS  # (n, k, 5)
        self.vkey = vc @ _VALUE_BASE
        self.ckey = onehot.sum(axis=1) @ _COLOUR_BASE
        self.csum = (onehot * values[:, :, None]).sum(axis=1)  # (n, 5)
        self.total = values.sum(axis=1)  # (n,)


def _tables() -> tuple[np.ndarray, np.ndarray]:
    """The 13 value boxes' scores by value-count key, and the colour-shape flags by colour-count key.

    Built once from ``games.domain.rules`` itself (so the bot can never score a box differently)."""
    from games.domain.rules import OFFICIAL, plain_score

    value_table = np.zeros((6**6, 13))
    for dice in itertools.combinations_with_replacement(range(1, 7), DICE):
        key = sum(6 ** (d - 1) for d in dice)
        value_table[key] = [plain_score(OFFICIAL, box, dice) for box in OFFICIAL.boxes]
    colour_table = np.zeros((6**5, 4))
    probe = (1, 1, 1, 1, 1)
    for colours in itertools.combinations_with_replacement(range(5), DICE):
        key = sum(6**c for c in colours)
        colour_table[key] = [
            colour_score(box, probe, colours) > 0
            for box in (Box.FOUR_COLOUR, Box.PAINTED_HOUSE, Box.RAINBOW, Box.FLUSH)
        ]
    return value_table, colour_table * np.array([1, 25, 40, 50])


_VALUE_TABLE, _COLOUR_TABLE = _tables()
_FIVE_OF_A_KIND = _VALUE_TABLE[:, 11] == 50
# The 252 value-count keys of five dice, and each key's row among them.
_VALUE_KEYS = np.flatnonzero(_VALUE_TABLE.any(axis=1))
_VALUE_ROWS = _VALUE_TABLE[_VALUE_KEYS]
_VALUE_INDEX = np.zeros(6**6, dtype=np.int64)
_VALUE_INDEX[_VALUE_KEYS] = np.arange(len(_VALUE_KEYS))
# The 126 colour-count keys of five dice, likewise.
_COLOUR_KEYS = np.array(
    sorted({sum(6**c for c in colours) for colours in itertools.combinations_with_replacement(range(5), DICE)})
)
_COLOUR_ROWS = _COLOUR_TABLE[_COLOUR_KEYS]
_COLOUR_INDEX = np.zeros(6**5, dtype=np.int64)
_COLOUR_INDEX[_COLOUR_KEYS] = np.arange(len(_COLOUR_KEYS))


class _Rerolls:
    def __init__(self, free: int) -> None:
        faces, self.weights = _outcomes(free)
        self.faces = faces
        self.features = Features(faces % 6 + 1, faces // 6)
        self.size = faces.shape[0]


_REROLLS = [_Rerolls(free) for free in range(DICE + 1)]


class Card:
    """What the value function reads of one Painted card."""

    def __init__(self, ruleset: RuleSet, column: dict[Box, int]) -> None:
        self.ruleset = ruleset
        self.column = column
        self.boxes = ruleset.boxes
        if [b.value for b in self.boxes[13:]] != [b.value for b in COLOUR_BOXES] or len(self.boxes) != 23:
            raise ValueError(f"{ruleset.name} is not Painted Yahtzee's 23-box card")
        self.open = np.array([b not in column for b in self.boxes])
        self.upper = sum(p for b, p in column.items() if b in UPPER_VALUE)
        self.yahtzee = column.get(Box.YAHTZEE)
        pars = np.array([PAR[b] for b in self.boxes])
        self.par_open = float(pars[self.open].sum())
        # Per box: points -> utility is ``points * slope + offset`` (upper boxes add the bonus below).
        self.offset = -pars
        self.slope = np.ones(len(self.boxes))
        self.upper_index = [i for i, b in enumerate(self.boxes) if b in UPPER_VALUE]
        # Among the open boxes, which are upper boxes (column positions after ``[:, self.open]``).
        self.open_upper = np.array(
            [b in UPPER_VALUE for b, o in zip(self.boxes, self.open, strict=True) if o], dtype=bool
        )
        if self.upper < ruleset.upper_bonus_threshold:
            for i in self.upper_index:
                face = UPPER_VALUE[self.boxes[i]]
                self.slope[i] += BONUS_PACE
                self.offset[i] -= BONUS_PACE * 3 * face

        self.prepared = False

    def box_utility(self, box: Box, points: int, bonus: int) -> float:
        """What scoring ``points`` (+ ``bonus``) in ``box`` is worth against keeping it open."""
        i = self.boxes.index(box)
        value = points * self.slope[i] + self.offset[i] + bonus
        if box in UPPER_VALUE and self.upper < self.ruleset.upper_bonus_threshold <= self.upper + points:
            value += self.ruleset.upper_bonus
        return float(value)

    def _prepare(self) -> None:
        """Per-card tables: the best value box (upper and lower, bonus included) by value-count key,
        and the best constant-score colour-shape box by colour-count key."""
        n_value = 13
        open_value = self.open[:n_value]
        util = _VALUE_ROWS * self.slope[:n_value] + self.offset[:n_value]
        if self.upper < self.ruleset.upper_bonus_threshold:
            need = self.ruleset.upper_bonus_threshold - self.upper
            util[:, :6] += np.where(_VALUE_ROWS[:, :6] >= need, self.ruleset.upper_bonus, 0)
        util[:, ~open_value] = -np.inf
        self.value_best = util.max(axis=1)  # by row of _VALUE_KEYS
        # Colour boxes: 13-17 sums of a colour, 18 Four of a Colour (flag x total), 19-21 Painted House,
        # Rainbow, Flush (constant), 22 Palette (total).
        self.colour_sum_open = self.open[13:18]
        shape = _COLOUR_ROWS[:, 1:4] + self.offset[19:22]  # a zero score is worth -PAR, like any box
        shape[:, ~self.open[19:22]] = -np.inf
        self.shape_best = shape.max(axis=1)  # by row of _COLOUR_KEYS
        self.four_colour_open = bool(self.open[18])
        self.palette_open = bool(self.open[22])

    def best(self, vkey: np.ndarray, ckey: np.ndarray, csum: np.ndarray, total: np.ndarray) -> np.ndarray:
        """For each hand (its ``Features``), the best open box's utility; a five of a kind with the
        Yahtzee box filled comes out as NaN (the caller scores those few exactly)."""
        if not self.prepared:
            self._prepare()
            self.prepared = True
        best: np.ndarray = np.maximum(self.value_best[_VALUE_INDEX[vkey]], self.shape_best[_COLOUR_INDEX[ckey]])
        if self.colour_sum_open.any():
            sums = csum[:, self.colour_sum_open] + self.offset[13:18][self.colour_sum_open]
            np.maximum(best, sums.max(axis=1), out=best)
        if self.four_colour_open:
            np.maximum(best, np.where(_COLOUR_TABLE[ckey, 0] > 0, total, 0) + self.offset[18], out=best)
        if self.palette_open:
            np.maximum(best, total + self.offset[22], out=best)
        if self.yahtzee is not None:
            best[_FIVE_OF_A_KIND[vkey]] = np.nan
        return best

    def exact_best(self, dice: Sequence[int], colours: Sequence[int]) -> float:
        return max(
            self.box_utility(o.box, o.points, o.bonus)
            for o in score_options(self.ruleset, [self.column], dice, colours)
            if o.legal
        )


Pairs = tuple[tuple[int, int], ...]  # (value, colour) of some dice, sorted


def distinct_keeps(dice: Sequence[int], colours: Sequence[int]) -> list[tuple[tuple[int, ...], Pairs]]:
    """Each distinct strict sub-multiset of the (value, colour) dice, with the lowest die indices showing it."""
    seen: dict[tuple[tuple[int, int], ...], tuple[int, ...]] = {}
    for size in range(DICE):
        for held in itertools.combinations(range(DICE), size):
            key = tuple(sorted((dice[i], colours[i]) for i in held))
            seen.setdefault(key, held)
    return [(held, key) for key, held in seen.items()]


@lru_cache(maxsize=4096)
def _keep_values(
    ruleset: RuleSet, column: tuple[tuple[Box, int], ...], keeps: tuple[tuple[tuple[int, int], ...], ...]
) -> tuple[float, ...]:
    """The utility of each keep: all keeps of one size are scored in one batch of hands."""
    card = Card(ruleset, dict(column))
    # One batch of hands for all keeps: keep i's hands are rows starts[i] .. starts[i+1]-1.
    parts: list[tuple[np.ndarray, ...]] = []
    owners: list[tuple[int, _Rerolls]] = []
    by_free: dict[int, list[int]] = {}
    for i, kept in enumerate(keeps):
        by_free.setdefault(DICE - len(kept), []).append(i)
    for free, indices in by_free.items():
        rr = _REROLLS[free]
        kf = Features(
            np.array([[v for v, _ in keeps[i]] for i in indices], dtype=np.int64).reshape(len(indices), -1),
            np.array([[c for _, c in keeps[i]] for i in indices], dtype=np.int64).reshape(len(indices), -1),
        )
        f = rr.features
        k, m = len(indices), rr.size
        parts.append(
            (
                (kf.vkey[:, None] + f.vkey[None, :]).reshape(k * m),
                (kf.ckey[:, None] + f.ckey[None, :]).reshape(k * m),
                (kf.csum[:, None, :] + f.csum[None, :, :]).reshape(k * m, 5),
                (kf.total[:, None] + f.total[None, :]).reshape(k * m),
                np.tile(rr.weights, k),
            )
        )
        owners += [(i, rr) for i in indices]
    vkey, ckey, csum, total, weights = (np.concatenate(column_parts) for column_parts in zip(*parts, strict=True))
    best = card.best(vkey, ckey, csum, total)
    sizes = [rr.size for _, rr in owners]
    starts = np.concatenate([[0], np.cumsum(sizes)])
    for row in np.flatnonzero(np.isnan(best)):
        slot = int(np.searchsorted(starts, row, side="right")) - 1
        i, rr = owners[slot]
        faces = rr.faces[row - starts[slot]]
        dice = [v for v, _ in keeps[i]] + [int(x) % 6 + 1 for x in faces]
        colours = [c for _, c in keeps[i]] + [int(x) // 6 for x in faces]
        best[row] = card.exact_best(dice, colours)
    sums = np.add.reduceat(best * weights, starts[:-1])
    out = [0.0] * len(keeps)
    for slot, (i, _) in enumerate(owners):
        out[i] = float(sums[slot])
    return tuple(out)


def keep_values(state: GameState, seat: int) -> list[tuple[tuple[int, ...], tuple[tuple[int, int], ...], float]]:
    """(held indices, kept pairs, utility) for every distinct keep of the seat's dice."""
    keeps = distinct_keeps(state.turn.dice, state.turn.colours)
    column = tuple(sorted(state.cards[seat].columns[0], key=lambda item: item[0].value))
    values = _keep_values(state.ruleset, column, tuple(key for _, key in keeps))
    return [(held, key, value) for (held, key), value in zip(keeps, values, strict=True)]


def card_of(state: GameState, seat: int) -> Card:
    return Card(state.ruleset, state.cards[seat].column(0))


def estimate_pars(games: int = 2000, rounds: int = 3, seed: int = 0) -> dict[Box, float]:
    """Re-estimate ``PAR`` by self-play: the mean points each box scored, iterated ``rounds`` times.

    Offline only (minutes); the constants above are its rounded output. Mutates ``PAR``.
    """
    from games.domain.rules import PAINTED, apply_start, new_game

    from .play import apply_action
    from .strategy import decide

    rng = random.Random(seed)
    for _ in range(rounds):
        sums = dict.fromkeys(PAINTED.boxes, 0.0)
        for _ in range(games):
            state = apply_start(new_game(PAINTED, 1))
            while not state.is_over:
                state = apply_action(state, 0, decide(state, 0, "optimal", rng), rng)
            for box, points in state.cards[0].columns[0]:
                sums[box] += points
        PAR.update({box: round(total / games * 2) / 2 for box, total in sums.items()})
        _keep_values.cache_clear()
    return dict(PAR)


__all__ = ["COLOUR_BOXES", "PAR", "Card", "card_of", "distinct_keeps", "estimate_pars", "keep_values"]

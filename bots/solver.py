"""The exact solitaire solver for one-column rule sets: backward induction over turn starts.

A *turn-start state* is ``(mask, up, flag)``: ``mask`` has bit i set when box
``ruleset.boxes[i]`` is filled, ``up`` is the upper-section sum capped at the bonus
threshold (63), and ``flag`` is 1 when the Yahtzee box holds 50 (only tracked when the rule
set has both a Yahtzee bonus and a joker; otherwise it is always 0). ``values[mask, up, flag]``
is the expected number of points still to come (boxes, upper bonus, Yahtzee bonuses) under
optimal play; the start state ``(0, 0, 0)`` gives the expected final score.

States are solved by number of filled boxes, most first, all states of one level at once in
numpy batches (outcomes and keeps along axis 0, states along axis 1):

1. ``E3[o]`` (after the last roll): the best open, legal box for outcome ``o``, worth its
   points, its Yahtzee bonus, the upper bonus if it crosses 63, plus the value of the next
   state. Upper boxes take ``n`` dice of their face (6 cases), other boxes do not depend on
   the state except through the next state's value, and the six five-of-a-kind outcomes go
   through the joker tables; all of these are read from ``games.domain.rules`` (``plain_score`` for
   every box and outcome, ``score_options`` on representative cards for the jokers), so the
   solver scores exactly as the engine does.
2. ``K1[k]`` (keep ``k``, one roll left): the mean over the face of one more die, level by
   level from five dice down to none (see ``bots.dice``).
3. ``E2[o] = max(K1[k] for k inside o)``, keeping all five meaning "score now".
4. ``K2`` from ``E2`` as in 2, ``E1`` from ``K2`` as in 3, and the turn-start value is
   ``sum(P(o) * E1[o])`` over the first roll.

States whose upper sum cannot occur with their filled upper boxes are skipped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from games.domain.rules import RuleSet, score_options
from games.domain.rules.rulesets import UPPER_BOX_FOR, UPPER_VALUE, Box, JokerMode
from games.domain.rules.scoring import plain_score

from . import dice as D

FORMAT_VERSION = 1
NEG = -np.inf
CHUNK = 512


@dataclass(frozen=True, eq=False)
class ScoreModel:
    """The scores of a one-column rule set as numpy tables, read from ``games.domain.rules``."""

    ruleset: RuleSet
    boxes: tuple[Box, ...]
    upper_face: np.ndarray  # (boxes,) the face an upper box counts, 0 for lower boxes
    yahtzee: int  # index of the Yahtzee box
    plain: np.ndarray  # (boxes, 252) plain_score of each box for each outcome
    # [face-1, yahtzee state (0 open, 1 holds 0, 2 holds 50), upper box of face open,
    #  some lower box other than Yahtzee open, box]: a five of a kind's legality, points, bonus.
    five_legal: np.ndarray
    five_points: np.ndarray
    five_bonus: np.ndarray
    threshold: int
    upper_bonus: int
    flags: int  # 2 when the "Yahtzee box holds 50" flag matters, else 1

    @property
    def n_boxes(self) -> int:
        return len(self.boxes)

    @property
    def full_mask(self) -> int:
        return (1 << len(self.boxes)) - 1

    @property
    def shape(self) -> tuple[int, int, int]:
        return (1 << len(self.boxes), self.threshold + 1, self.flags)

    @property
    def lower_mask(self) -> int:
        """Bits of the boxes that are neither upper boxes nor the Yahtzee box."""
        return sum(1 << i for i, f in enumerate(self.upper_face) if f == 0 and i != self.yahtzee)

    def bit(self, box: Box) -> int:
        return 1 << self.boxes.index(box)

    @cached_property
    def _digest(self) -> str:
        h = hashlib.sha256()
        h.update(f"v{FORMAT_VERSION};{','.join(self.boxes)};{self.threshold};{self.upper_bonus};{self.flags}".encode())
        for array in (self.plain, self.five_legal, self.five_points, self.five_bonus):
            h.update(np.ascontiguousarray(array, dtype=np.int64).tobytes())
        return h.hexdigest()[:16]

    def fingerprint(self) -> str:
        """A digest of everything the table depends on: the scores themselves, not the names."""
        return self._digest

    def state_of(self, column: Mapping[Box, int], multiplier: int = 1) -> tuple[int, int, int]:
        """The turn-start state of one scorecard column (points stored with ``multiplier``)."""
        mask = 0
        upper = 0
        for box, points in column.items():
            mask |= self.bit(box)
            if box in UPPER_VALUE:
                upper += points // multiplier
        flag = 1 if self.flags == 2 and column.get(Box.YAHTZEE, 0) > 0 else 0
        return mask, min(upper, self.threshold), flag

    def option(self, mask: int, flag: int, outcome: int, box: int) -> tuple[bool, int, int]:
        """(legal, points, bonus) of scoring ``box`` (open in ``mask``) with ``outcome``."""
        counts = D.OUTCOMES[outcome]
        if max(counts) == D.DICE:
            face = counts.index(D.DICE) + 1
            key = self._five_key(mask, flag, face)
            return (
                bool(self.five_legal[key][box]),
                int(self.five_points[key][box]),
                int(self.five_bonus[key][box]),
            )
        return True, int(self.plain[box, outcome]), 0

    def _five_key(self, mask: int, flag: int, face: int) -> tuple[int, int, int, int]:
        ystat = 0 if not mask >> self.yahtzee & 1 else 1 + flag
        upper_open = int(not mask & self.bit(UPPER_BOX_FOR[face]))
        lower_open = int(mask & self.lower_mask != self.lower_mask)
        return face - 1, ystat, upper_open, lower_open


@lru_cache(maxsize=32)
def score_model(ruleset: RuleSet) -> ScoreModel:
    """The score tables of a one-column rule set."""
    if ruleset.columns != 1:
        raise ValueError(f"{ruleset.name} has {ruleset.columns} columns; the exact solver needs one")
    boxes = ruleset.boxes
    n = len(boxes)
    upper_face = np.array([UPPER_VALUE.get(b, 0) for b in boxes], dtype=np.int64)
    plain = np.array([[plain_score(ruleset, b, d) for d in D.OUTCOME_DICE] for b in boxes], dtype=np.int64)
    shape = (D.FACES, 3, 2, 2, n)
    legal = np.zeros(shape, dtype=bool)
    points = np.zeros(shape, dtype=np.int64)
    bonus = np.zeros(shape, dtype=np.int64)
    lower = [b for b in boxes if b not in UPPER_VALUE and b is not Box.YAHTZEE]
    for face in range(1, D.FACES + 1):
        five = (face,) * D.DICE
        for ystat in range(3):
            for upper_open in range(2):
                for lower_open in range(2):
                    # A card with just the features that decide a five of a kind's options.
                    card: dict[Box, int] = {}
                    if ystat:
                        card[Box.YAHTZEE] = 50 if ystat == 2 else 0
                    if not upper_open:
                        card[UPPER_BOX_FOR[face]] = 0
                    if not lower_open:
                        card.update(dict.fromkeys(lower, 0))
                    for opt in score_options(ruleset, [card], five):
                        i = boxes.index(opt.box)
                        key = (face - 1, ystat, upper_open, lower_open, i)
                        legal[key] = opt.legal
                        points[key] = opt.points
                        bonus[key] = opt.bonus
    tracks_flag = ruleset.yahtzee_bonus > 0 and ruleset.joker is not JokerMode.NONE
    return ScoreModel(
        ruleset=ruleset,
        boxes=boxes,
        upper_face=upper_face,
        yahtzee=boxes.index(Box.YAHTZEE),
        plain=plain,
        five_legal=legal,
        five_points=points,
        five_bonus=bonus,
        threshold=ruleset.upper_bonus_threshold,
        upper_bonus=ruleset.upper_bonus,
        flags=2 if tracks_flag else 1,
    )


# ---- the keep/reroll part of a turn, for any batch of states ----


def keep_levels(e5: np.ndarray) -> list[np.ndarray]:
    """Keep values per level from the values ``e5`` (252, S) of the five dice after a roll."""
    levels: list[np.ndarray] = [e5] * (D.DICE + 1)
    for j in range(D.DICE - 1, -1, -1):
        src = levels[j + 1]
        add = D.ADD[j]
        acc = src[add[:, 0]]
        for f in range(1, D.FACES):
            acc += src[add[:, f]]
        acc *= 1.0 / D.FACES
        levels[j] = acc
    return levels


def best_keeps(levels: list[np.ndarray], *, inplace: bool = False) -> np.ndarray:
    """For each outcome (252, S), the best value over every keep inside it (itself included)."""
    prev = levels[0]
    for j in range(1, D.DICE + 1):
        cur = levels[j] if inplace else levels[j].copy()
        for par in D.PARENTS[j]:
            head = cur[: len(par)]
            np.maximum(head, prev[par], out=head)
        prev = cur
    return prev


def start_values(e3: np.ndarray) -> np.ndarray:
    """Turn-start values (S,) from the after-last-roll values ``e3`` (252, S)."""
    e2 = best_keeps(keep_levels(e3), inplace=True)
    e1 = best_keeps(keep_levels(e2), inplace=True)
    return np.asarray(D.P_ROLL5 @ e1)


@dataclass(frozen=True, eq=False)
class TurnSolution:
    """One turn-start state solved: what every keep is worth, in points still to come."""

    value: float  # at the turn start, before the first roll
    after_last: np.ndarray  # (252,) best box for each outcome after the last roll
    keep1: np.ndarray  # (462,) keeping a keep id and rolling the rest, one roll left after it
    keep2: np.ndarray  # (462,) the same with two rolls left (after the first roll)

    def keeps(self, rolls_left: int) -> np.ndarray:
        """Keep values when ``rolls_left`` (1 or 2) rolls remain, the keep-all entry meaning "score now"."""
        return self.keep1 if rolls_left == 1 else self.keep2


def solve_turn(e3: np.ndarray) -> TurnSolution:
    """Solve the keep choices of one turn from its after-last-roll values ``e3`` (252,)."""
    col = np.asarray(e3, dtype=np.float64).reshape(D.N_OUTCOMES, 1)
    k1 = keep_levels(col)
    keep1 = np.concatenate(k1)[:, 0]
    e2 = best_keeps(k1)
    k2 = keep_levels(e2)
    keep2 = np.concatenate(k2)[:, 0]
    e1 = best_keeps(k2, inplace=True)
    return TurnSolution(float(D.P_ROLL5 @ e1[:, 0]), col[:, 0].copy(), keep1, keep2)


# ---- the scoring step ----


def after_last_roll(
    model: ScoreModel, values: np.ndarray, masks: np.ndarray, ups: np.ndarray, flags: np.ndarray
) -> np.ndarray:
    """``E3`` (252, S): the best score-and-continue value of each outcome for each state."""
    F = model.flags
    T = model.threshold
    block = (T + 1) * F
    vf = values.reshape(-1)
    s = len(masks)
    e3 = np.full((D.N_OUTCOMES, s), NEG)
    tmp = np.empty((D.N_OUTCOMES, s))
    within = ups * F + flags
    plain = model.plain.astype(np.float64)
    below = ups < T
    dice_n = np.arange(D.DICE + 1)[:, None]
    for i in range(model.n_boxes):
        bit = 1 << i
        is_open = (masks & bit) == 0
        if not is_open.any():
            continue
        base = (masks | bit) * block
        face = int(model.upper_face[i])
        if face == 0:
            w = vf[base + within]
            w[~is_open] = NEG
            np.add(plain[i][:, None], w[None, :], out=tmp)
            np.maximum(e3, tmp, out=e3)
        else:
            # n dice of the face (0-5): the six values this box can give each state.
            pts = face * dice_n  # (6, 1)
            new_up = np.minimum(ups + pts, T)  # (6, S)
            u = pts + np.where(below & (new_up >= T), model.upper_bonus, 0)
            u = u + vf[base + new_up * F + flags]
            u[:, ~is_open] = NEG
            np.take(u, D.OUTCOME_COUNTS[:, face - 1], axis=0, out=tmp)
            np.maximum(e3, tmp, out=e3)

    # Five of a kind: legality, points and bonus depend on the card (jokers); all boxes at once.
    bits = np.int64(1) << np.arange(model.n_boxes, dtype=np.int64)  # (boxes,)
    is_upper = model.upper_face > 0
    is_yahtzee = np.arange(model.n_boxes) == model.yahtzee
    open_boxes = (masks[:, None] & bits) == 0  # (S, boxes)
    next_base = (masks[:, None] | bits) * block
    ystat = np.where(masks & (1 << model.yahtzee), 1 + flags, 0)
    lower = model.lower_mask
    lower_open = ((masks & lower) != lower).astype(np.intp)
    ups_col = ups[:, None]
    for face in range(1, D.FACES + 1):
        upper_open = ((masks & model.bit(UPPER_BOX_FOR[face])) == 0).astype(np.intp)
        key = (ystat, upper_open, lower_open)
        ok = model.five_legal[face - 1][key] & open_boxes  # (S, boxes)
        pts = model.five_points[face - 1][key]
        new_up = np.where(is_upper, np.minimum(ups_col + pts, T), ups_col)
        gain = pts + model.five_bonus[face - 1][key]
        gain = gain + np.where(is_upper & (ups_col < T) & (new_up >= T), model.upper_bonus, 0)
        new_flag = flags[:, None]
        if F == 2:
            new_flag = np.where(is_yahtzee, pts > 0, new_flag)
        val = np.where(ok, gain + vf[next_base + new_up * F + new_flag], NEG)
        e3[D.FIVE_OF_A_KIND[face - 1]] = val.max(axis=1)
    return e3


def reachable_uppers(model: ScoreModel) -> dict[int, np.ndarray]:
    """For each set of filled upper boxes (as a box mask), the capped upper sums it can give."""
    T = model.threshold
    upper_bits = [(1 << i, int(f)) for i, f in enumerate(model.upper_face) if f]
    reach: dict[int, set[int]] = {0: {0}}
    for bit, face in upper_bits:
        for sub, sums in list(reach.items()):
            reach[sub | bit] = {min(t + face * n, T) for t in sums for n in range(D.DICE + 1)}
    return {k: np.array(sorted(v), dtype=np.int64) for k, v in reach.items()}


def build_values(
    model: ScoreModel, *, threads: int = 1, progress: Callable[[int, int], None] | None = None
) -> np.ndarray:
    """The whole table ``values[mask, up, flag]`` by backward induction (unreachable states stay 0).

    ``threads`` > 1 solves the chunks of one level in parallel (numpy releases the GIL).
    """
    if threads > 1:
        with ThreadPoolExecutor(threads) as pool:
            return _build(model, pool, progress)
    return _build(model, None, progress)


def _build(
    model: ScoreModel, pool: ThreadPoolExecutor | None, progress: Callable[[int, int], None] | None
) -> np.ndarray:
    n = model.n_boxes
    values = np.zeros(model.shape, dtype=np.float64)
    reach = reachable_uppers(model)
    upper_mask = sum(1 << i for i, f in enumerate(model.upper_face) if f)
    ybit = 1 << model.yahtzee
    masks_by_level: list[list[int]] = [[] for _ in range(n + 1)]
    for mask in range(1 << n):
        masks_by_level[mask.bit_count()].append(mask)
    for level in range(n - 1, -1, -1):
        ms, us, fs = [], [], []
        for mask in masks_by_level[level]:
            sums = reach[mask & upper_mask]
            for flag in range(2 if model.flags == 2 and mask & ybit else 1):
                ms.append(np.full(len(sums), mask, dtype=np.int64))
                us.append(sums)
                fs.append(np.full(len(sums), flag, dtype=np.int64))
        masks, ups, flags = np.concatenate(ms), np.concatenate(us), np.concatenate(fs)

        def solve(start: int, masks: np.ndarray = masks, ups: np.ndarray = ups, flags: np.ndarray = flags) -> None:
            m, u, f = masks[start : start + CHUNK], ups[start : start + CHUNK], flags[start : start + CHUNK]
            values[m, u, f] = start_values(after_last_roll(model, values, m, u, f))

        starts = range(0, len(masks), CHUNK)
        if pool is None:
            for start in starts:
                solve(start)
        else:
            list(pool.map(solve, starts))
        if progress is not None:
            progress(n - level, n)
    return values


class Table:
    """A solved rule set: state values plus a cache of solved turns for decisions."""

    def __init__(self, model: ScoreModel, values: np.ndarray) -> None:
        if values.shape != model.shape:
            raise ValueError(f"table shape {values.shape} does not match {model.shape}")
        self.model = model
        self.values = values
        self._full = model.full_mask
        self.turn = lru_cache(maxsize=2048)(self._solve)

    @property
    def start_value(self) -> float:
        """Expected final score of a whole game under optimal play."""
        return float(self.values[0, 0, 0])

    def value(self, mask: int, up: int, flag: int) -> float:
        """Expected points still to come from a turn-start state."""
        if mask == self._full:
            return 0.0
        return float(self.values[mask, up, flag])

    def _solve(self, mask: int, up: int, flag: int) -> TurnSolution:
        def arr(x: int) -> np.ndarray:
            return np.array([x], dtype=np.int64)

        e3 = after_last_roll(self.model, self.values, arr(mask), arr(up), arr(flag))
        return solve_turn(e3[:, 0])

"""Dice combinatorics shared by the solver: outcomes, keeps and the index arrays linking them.

A *keep* is a multiset of 0-5 dice, written as its face counts ``(n1, ..., n6)``. There are
462 keeps, grouped in six *levels* by size; level 5 holds the 252 *outcomes* (what five dice
show, order ignored). Within a level, keeps are ordered by their number of distinct faces,
most first, so that "keeps with more than t distinct faces" is always a prefix of the level
(the sub-keep maximum in ``bots.solver`` relies on this).

Two facts make the turn computation cheap:

* Keeping ``k`` (size j) and rolling the other 5-j dice is worth the mean over the face f of
  one extra die of keeping ``k + f`` (size j+1) and rolling the rest: dice are independent.
  ``ADD[j][i, f-1]`` is the index in level j+1 of keep i of level j plus one die f.
* The best keep inside an outcome is the best over "keep it all" and, for each distinct face
  of it, the best keep inside the outcome minus one die of that face. ``PARENTS[j][t]`` lists,
  for the keeps of level j with more than t distinct faces, the index in level j-1 of the keep
  with one die of their t-th distinct face removed.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations_with_replacement
from math import factorial

import numpy as np

Counts = tuple[int, int, int, int, int, int]

FACES = 6
DICE = 5


def _level(size: int) -> list[Counts]:
    keeps: list[Counts] = []
    for combo in combinations_with_replacement(range(1, FACES + 1), size):
        counts = [0] * FACES
        for face in combo:
            counts[face - 1] += 1
        keeps.append((counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]))
    # Most distinct faces first (prefix property), then a fixed lexicographic order.
    keeps.sort(key=lambda c: (-sum(1 for n in c if n), tuple(-n for n in c)))
    return keeps


LEVELS: tuple[tuple[Counts, ...], ...] = tuple(tuple(_level(j)) for j in range(DICE + 1))
LEVEL_SIZES: tuple[int, ...] = tuple(len(level) for level in LEVELS)  # 1, 6, 21, 56, 126, 252
# Global keep id = LEVEL_START[j] + index within level j; 462 keeps in all.
LEVEL_START: tuple[int, ...] = tuple(int(x) for x in np.cumsum((0, *LEVEL_SIZES[:-1])))
KEEPS: tuple[Counts, ...] = tuple(c for level in LEVELS for c in level)
N_KEEPS = len(KEEPS)
OUTCOMES: tuple[Counts, ...] = LEVELS[DICE]
N_OUTCOMES = len(OUTCOMES)
OUTCOME_START = LEVEL_START[DICE]

LEVEL_INDEX: tuple[dict[Counts, int], ...] = tuple({c: i for i, c in enumerate(level)} for level in LEVELS)
KEEP_ID: dict[Counts, int] = {c: i for i, c in enumerate(KEEPS)}

# OUTCOME_COUNTS[o, f-1]: how many dice of outcome o show f.
OUTCOME_COUNTS = np.array(OUTCOMES, dtype=np.int64)
# OUTCOME_DICE[o]: the outcome's faces, ascending.
OUTCOME_DICE: tuple[tuple[int, ...], ...] = tuple(
    tuple(f + 1 for f in range(FACES) for _ in range(c[f])) for c in OUTCOMES
)
# FIVE_OF_A_KIND[v-1]: the outcome index of five dice showing v.
FIVE_OF_A_KIND: tuple[int, ...] = tuple(
    LEVEL_INDEX[DICE][tuple(DICE if f == v else 0 for f in range(FACES))]  # type: ignore[index]
    for v in range(FACES)
)


def _multinomial_probability(counts: Sequence[int]) -> float:
    n = sum(counts)
    ways = factorial(n)
    for c in counts:
        ways //= factorial(c)
    return ways / float(FACES) ** n


# P_ROLL5[o]: the probability that five rolled dice show outcome o.
P_ROLL5 = np.array([_multinomial_probability(c) for c in OUTCOMES], dtype=np.float64)

ADD: tuple[np.ndarray, ...] = tuple(
    np.array(
        [
            [LEVEL_INDEX[j + 1][tuple(n + (1 if f == g else 0) for g, n in enumerate(c))] for f in range(FACES)]  # type: ignore[index]
            for c in LEVELS[j]
        ],
        dtype=np.intp,
    )
    for j in range(DICE)
)


def _parents(j: int) -> tuple[np.ndarray, ...]:
    if j == 0:
        return ()
    slots: list[list[int]] = []
    for c in LEVELS[j]:
        faces = [f for f in range(FACES) if c[f]]
        for t, f in enumerate(faces):
            if t == len(slots):
                slots.append([])
            slots[t].append(LEVEL_INDEX[j - 1][tuple(n - (1 if g == f else 0) for g, n in enumerate(c))])  # type: ignore[index]
    # The level is sorted by distinct faces, so slot t covers a prefix of it.
    return tuple(np.array(s, dtype=np.intp) for s in slots)


PARENTS: tuple[tuple[np.ndarray, ...], ...] = tuple(_parents(j) for j in range(DICE + 1))


def counts_of(dice: Sequence[int]) -> Counts:
    counts = [0] * FACES
    for d in dice:
        counts[d - 1] += 1
    return (counts[0], counts[1], counts[2], counts[3], counts[4], counts[5])


def outcome_index(dice: Sequence[int]) -> int:
    """The outcome index of five dice (any order)."""
    return LEVEL_INDEX[DICE][counts_of(dice)]


def keep_id(dice: Sequence[int]) -> int:
    """The global keep id of 0-5 dice (any order)."""
    return KEEP_ID[counts_of(dice)]


KEEP_DICE: tuple[tuple[int, ...], ...] = tuple(tuple(f + 1 for f in range(FACES) for _ in range(c[f])) for c in KEEPS)


def keep_dice(keep: int) -> tuple[int, ...]:
    """The faces of a keep, ascending."""
    return KEEP_DICE[keep]


def _sub_keeps(c: Counts) -> tuple[int, ...]:
    ranges = [range(n + 1) for n in c]
    out: list[int] = []

    def walk(f: int, acc: list[int]) -> None:
        if f == FACES:
            out.append(KEEP_ID[(acc[0], acc[1], acc[2], acc[3], acc[4], acc[5])])
            return
        for n in ranges[f]:
            walk(f + 1, [*acc, n])

    walk(0, [])
    return tuple(sorted(out))


# SUB_KEEPS[o]: the global ids of every keep inside outcome o (itself included), ascending.
SUB_KEEPS: tuple[tuple[int, ...], ...] = tuple(_sub_keeps(c) for c in OUTCOMES)

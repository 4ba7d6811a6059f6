"""The solver's score tables agree with games.domain.rules for every box, outcome and joker case."""

from __future__ import annotations

import random

import pytest

from bots import dice as D
from bots.solver import score_model
from games.domain.rules import FREE_JOKER, OFFICIAL, YATZY, YETI, Box, score_options

from .conftest import NO_BONUS


def _card(model, mask: int, flag: int) -> dict[Box, int]:
    card = {b: 0 for i, b in enumerate(model.boxes) if mask >> i & 1}
    if Box.YAHTZEE in card and flag:
        card[Box.YAHTZEE] = 50
    return card


def test_dice_tables() -> None:
    assert D.LEVEL_SIZES == (1, 6, 21, 56, 126, 252)
    assert D.N_KEEPS == 462
    assert D.P_ROLL5.sum() == pytest.approx(1.0)
    assert D.P_ROLL5[D.FIVE_OF_A_KIND[0]] == pytest.approx(1 / 6**5)
    assert all(D.OUTCOME_DICE[D.outcome_index(d)] == tuple(sorted(d)) for d in [(6, 1, 3, 3, 2), (5, 5, 5, 5, 5)])
    # 1-1-2-3-3 has 3 * 2 * 3 sub-multisets.
    assert len(D.SUB_KEEPS[D.outcome_index((1, 1, 2, 3, 3))]) == 18


@pytest.mark.parametrize("ruleset", [OFFICIAL, FREE_JOKER, YETI, YATZY, NO_BONUS], ids=lambda r: r.name)
def test_model_matches_engine(ruleset) -> None:
    model = score_model(ruleset)
    rng = random.Random(ruleset.name)
    ybit = 1 << model.yahtzee
    cards = [(0, 0), (model.full_mask ^ 1, 0)]
    cards += [(rng.getrandbits(model.n_boxes) & (model.full_mask - 1), 0) for _ in range(4)]
    # Five of a kind needs many cards: Yahtzee box open / 0 / 50, matching upper box, lower boxes.
    fives = [(rng.getrandbits(model.n_boxes) | ybit, rng.randrange(model.flags)) for _ in range(300)]
    fives += [(m & ~ybit, 0) for m, _ in fives[:50]]
    lower_full = model.lower_mask | ybit
    fives += [((rng.getrandbits(model.n_boxes) | lower_full) & ~(1 << rng.randrange(6)), f) for f in (0, 1)] * 20
    for cases, outcomes in ((cards, range(D.N_OUTCOMES)), (fives, D.FIVE_OF_A_KIND)):
        for mask, flag in cases:
            if mask == model.full_mask:
                continue
            card = _card(model, mask, flag)
            for o in outcomes:
                for opt in score_options(ruleset, [card], D.OUTCOME_DICE[o]):
                    i = model.boxes.index(opt.box)
                    legal, points, bonus = model.option(mask, flag, o, i)
                    assert (legal, points if legal else 0, bonus if legal else 0) == (opt.legal, opt.points, opt.bonus)


def test_fingerprint_ignores_names_but_not_scores() -> None:
    import dataclasses

    renamed = dataclasses.replace(OFFICIAL, name="other", label="Other")
    assert score_model(renamed).fingerprint() == score_model(OFFICIAL).fingerprint()
    assert score_model(FREE_JOKER).fingerprint() != score_model(OFFICIAL).fingerprint()
    assert score_model(YETI).fingerprint() != score_model(NO_BONUS).fingerprint()

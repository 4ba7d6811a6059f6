"""Computer players and the coach (strategy code; depends on games.domain.rules only).

The exact, expected-score-maximising solver of every one-column rule set, a heuristic built on
it for Triple Yahtzee, and the API the rest of the app uses::

    from bots import Roll, Score, decide, hint, choice_loss, review, ready, build_all

    if ready(state.ruleset):                      # never build a table in a web request
        action = decide(state, seat, level="optimal", rng=rng)   # Roll(held=(...)) or Score(box, column)
        best3 = hint(state, seat, top=3)          # [Option(action, expected, dice, points), ...]
        lost = choice_loss(state_before, action)  # expected points lost vs the best choice

    build_all()                                   # management command / background thread

Modules: ``strategy`` (the API above), ``tables`` (disk cache, ``ready``, ``build_all``),
``solver`` (the backward induction), ``triple`` (the Triple heuristic), ``play`` (driving a
game through the rules engine), ``dice`` (combinatorics). See docs/bots.md.
"""

from .play import apply_action, play_game
from .strategy import (
    LEVELS,
    Action,
    Level,
    Option,
    Review,
    Roll,
    Score,
    choice_loss,
    decide,
    expected_score,
    hint,
    options,
    ready,
    review,
)
from .tables import TableNotReady, build_all

__all__ = [
    "LEVELS",
    "Action",
    "Level",
    "Option",
    "Review",
    "Roll",
    "Score",
    "TableNotReady",
    "apply_action",
    "build_all",
    "choice_loss",
    "decide",
    "expected_score",
    "hint",
    "options",
    "play_game",
    "ready",
    "review",
]

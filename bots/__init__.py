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
``solver`` (the backward induction), ``triple`` (the Triple heuristic), ``painted`` (Painted
Yahtzee's one-turn search), ``play`` (driving a game through the rules engine), ``dice``
(combinatorics). See docs/bots.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# The API's names are imported on first use, not with the package: they need numpy and tables
# the modules compute as they load (about 0.25 s of CPU), and every Django process imports this
# package (the app's scheduler does), where most never play a bot or give a hint.
_MODULES = frozenset({"dice", "painted", "play", "solver", "strategy", "tables", "triple"})
_HOMES = ("strategy", "play", "tables")  # where the names of ``__all__`` are defined


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    homes = [importlib.import_module(f"{__name__}.{home}") for home in _HOMES]
    value = next(getattr(home, name) for home in homes if name in vars(home))
    globals()[name] = value
    return value


def exact(ruleset: Any) -> bool:
    """Whether the solver's values of ``ruleset`` (a RuleSet) are exact: the one-column rule sets.

    Painted Yahtzee has no solver, and Triple Yahtzee's values come from one column's table,
    which carries official's Yahtzee bonus, not Triple's (docs/bots.md).
    """
    return not ruleset.colours and ruleset.columns == 1


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_MODULES})


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

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
_HOMES = {
    "apply_action": "play",
    "play_game": "play",
    "TableNotReady": "tables",
    "build_all": "tables",
    **dict.fromkeys(
        (
            "LEVELS",
            "Action",
            "Level",
            "Option",
            "Review",
            "Roll",
            "Score",
            "choice_loss",
            "decide",
            "expected_score",
            "hint",
            "options",
            "ready",
            "review",
        ),
        "strategy",
    ),
}
_MODULES = frozenset({"dice", "painted", "play", "solver", "strategy", "tables", "triple"})


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES, *_MODULES})


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

"""Computer players at the table: they act through the same services as people.

When a bot is to play, the room is due ``BOT_DELAY`` seconds later (so people can follow;
games.services.deadline.next_due), and the scheduler (games.scheduling) calls ``step`` for
that version, once, in whichever process claims the room first.

A bot plays from the exact tables of ``bots`` when they are on disk. A missing table is built
in a background thread, never in a request; until it is ready the bot plays a simple greedy
game rather than keep the table waiting.
"""

from __future__ import annotations

import logging
import random
import secrets
import threading
from typing import Any

import bots
from games import services
from games.domain import errors
from games.domain.rules import RULESETS, GameState, RuleViolation
from games.domain.rules.codec import state_from_dict
from games.store import selectors
from games.store.selectors import bot_to_play

log = logging.getLogger(__name__)

_rng = random.Random(secrets.randbits(64))
_building: set[str] = set()
_building_lock = threading.Lock()


def build_in_background(ruleset: str) -> None:
    """Start building a missing solver table in a thread of this process (once)."""
    with _building_lock:
        if ruleset in _building:
            return
        _building.add(ruleset)

    def build() -> None:
        try:
            bots.tables.table(RULESETS[ruleset], build=True)
            log.info("bot table for %s is ready", ruleset)
        except Exception:
            log.exception("building the bot table for %s failed", ruleset)
            with _building_lock:
                _building.discard(ruleset)

    threading.Thread(target=build, name=f"bot-table-{ruleset}", daemon=True).start()


def _greedy(state: GameState) -> bots.Action:
    """The stand-in while a table is being built: roll once, then score the best box now."""
    if state.turn.rolls_used == 0:
        return bots.Roll()
    legal = [o for o in state.options() if o.legal]
    best = max(legal, key=lambda o: (o.points + o.bonus, -o.column))
    return bots.Score(best.box.value, best.column)


def choose(state: GameState, level: str) -> bots.Action:
    if bots.ready(state.ruleset):
        return bots.decide(state, state.current, level, _rng, build=False)
    build_in_background(state.ruleset.name)
    return _greedy(state)


def step(code: str, version: int) -> bool:
    """Play one action of the bot to play at ``version``; False if there was nothing (left) to do."""
    game = selectors.room_or_none(code)
    if game is None or game.version != version or not bot_to_play(game):
        return False
    state = state_from_dict(game.snapshot["rules"])
    seat = game.snapshot["seats"][state.current]
    action = choose(state, seat.get("level", "optimal"))
    common: dict[str, Any] = {"code": code, "controller": seat["controller"]}
    try:
        if isinstance(action, bots.Roll):
            services.turn_roll(held=list(action.held), expected_version=version, action_id=f"bot-{version}", **common)
        else:
            services.turn_score(
                box=action.box, column=action.column, expected_version=version, action_id=f"bot-{version}", **common
            )
    except RuleViolation as exc:
        if exc.code not in (errors.STALE, errors.REPEATED):
            log.error("bot in %s chose %r at version %s: %s", code, action, version, exc.message)
        return False
    return True

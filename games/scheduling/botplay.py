"""Computer players at the table: they act through the same services as people.

When a bot is to play, the room is due ``BOT_DELAY`` seconds later (so people can follow;
games.services.deadline.next_due), and the scheduler (games.scheduling) calls ``step`` for
that version, once, in whichever process claims the room first.

A bot plays from the exact tables of ``bots``. A missing table is built in the background
(games.store.tables), never in a request; until it is ready the bot waits: ``step`` does nothing and
says so (None), the room's state says the computer is getting ready and for about how long
(``getting_ready``, from ``table_eta``), and the scheduler looks at the room again shortly
(it is due again ``BOT_DELAY`` later: games.scheduling.work).
"""

from __future__ import annotations

import logging
import random
import secrets
from typing import Any

import bots
from games import services
from games.domain import errors
from games.domain.protocol import BOT_ID_PREFIX
from games.domain.rules import GameState, RuleViolation
from games.store import selectors, tables
from games.store.selectors import bot_to_play

log = logging.getLogger(__name__)

_rng = random.Random(secrets.randbits(64))


def table_ready(ruleset: str) -> bool:
    """Whether the computer players (and the coach) of ``ruleset`` can play now."""
    return tables.ready(ruleset)


def table_eta(ruleset: str) -> float | None:
    """Seconds until the table of ``ruleset`` should be ready; None once it is (or with no estimate left)."""
    return tables.eta(ruleset)


def build_in_background(ruleset: str) -> None:
    """Have the missing table of ``ruleset`` built next in this process's builder thread (games.store.tables)."""
    tables.request(ruleset)


def choose(state: GameState, level: str) -> bots.Action | None:
    """The bot's next action; None while its table is getting ready (its build is asked for, to come next)."""
    if bots.ready(state.ruleset):
        try:
            return bots.decide(state, state.current, level, _rng, build=False)
        except bots.TableNotReady:  # its file is there but did not load: built again meanwhile
            log.warning("the %s table did not load: building it again", state.ruleset.name)
    build_in_background(state.ruleset.name)
    return None


def step(code: str, version: int) -> bool | None:
    """Play one action of the bot to play at ``version``.

    True when it played; False if there was nothing (left) to do; None, without acting, while
    the bot's table is getting ready: the caller asks again later (``table_eta`` says about when).
    """
    game = selectors.room_or_none(code)
    if game is None or game.version != version or not bot_to_play(game):
        return False
    state = game.room.rules
    if state is None:
        return False
    seat = game.room.seats[state.current]
    action = choose(state, seat.level or "optimal")
    if action is None:
        return None
    common: dict[str, Any] = {
        "code": code,
        "controller": seat.controller,
        "expected_version": version,
        "action_id": f"{BOT_ID_PREFIX}{version}",
    }
    try:
        if isinstance(action, bots.Roll):
            services.turn_roll(held=list(action.held), **common)
        else:
            services.turn_score(box=action.box, column=action.column, **common)
    except RuleViolation as exc:
        if exc.code not in (errors.STALE, errors.REPEATED):
            log.error("bot in %s chose %r at version %s: %s", code, action, version, exc.message)
        return False
    return True

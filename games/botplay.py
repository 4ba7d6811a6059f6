"""Computer players at the table: they act through the same services as people.

Whenever a state in which a bot is to play reaches a server process (the room's broadcast,
or a socket connecting), that process schedules one bot step for that version after a short
pause, so people can follow. ``heard`` is the one place that decides it: games.apps registers
it with ``fanout.on_state``, which calls it once per process for each state the room's
sockets there get, whether the action was committed here or relayed from another process.
Every process with a socket in the room does the same; the services' version check lets
exactly one step apply and refuses the others as stale. If the process that was about to
play dies, the others (or the next socket to connect) play instead.

A bot plays from the exact tables of ``bots`` when they are on disk. A missing table is built
in a background thread, never in a request; until it is ready the bot plays a simple greedy
game rather than keep the table waiting.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
import threading
from typing import Any

from django.conf import settings

import bots
from games import errors, selectors, services
from games.models import Game
from games.rules import RULESETS, GameState, RuleViolation
from games.rules.codec import state_from_dict
from games.selectors import bot_to_play
from games.threads import db_async, retry_while_current

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


# --- the per-process driver ------------------------------------------------------------


def heard(code: str, frames: list[str]) -> None:
    """A state of the room went out in this process (``fanout.on_state``): schedule the bot's step, if any."""
    text = frames[-1] if frames else ""
    if '"bot"' not in text:  # a shortcut: a state with no computer player's seat never names one
        return
    state = json.loads(text)
    turn = state.get("turn")
    playing = state.get("type") == "state" and state.get("status") == Game.Status.PLAYING and turn
    playing = playing and not state.get("paused")
    if playing and state["seats"][turn["seat"]]["kind"] == "bot":
        schedule(code, state["version"])


_scheduled: dict[str, int] = {}
RETRIES = 12  # about two and a half minutes of backoff; then the next socket to connect resumes it
_tasks: set[asyncio.Task[None]] = set()


def delay() -> float:
    return float(settings.BOT_DELAY)


def schedule(code: str, version: int) -> None:
    """Play the bot's move at ``version`` after the pause (once per process; see the module doc)."""
    if _scheduled.get(code, -1) >= version:
        return
    _scheduled[code] = version
    task = asyncio.get_running_loop().create_task(_play(code, version))
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


async def _play(code: str, version: int) -> None:
    pause = delay()
    # A little jitter, so that several processes seldom try the same step at once.
    await asyncio.sleep(pause + _rng.uniform(0, pause / 4))
    await retry_while_current(_scheduled, code, version, lambda: db_async(step)(code, version), "bot step", RETRIES)

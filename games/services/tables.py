"""The solver tables the coach and the bots read, made ready before the first game needs them.

A fresh install has none: each takes seconds to a minute of CPU to build. ``make run`` and the
Docker image build them ahead (``manage.py build_bot_tables``); a server started any other
way builds the missing ones when it starts, one after another in one background thread
(``BOT_TABLES_AT_START``), so the first game finds them ready. A request never builds a
table: the review waits (without holding a thread) for a build already under way.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time

from django.conf import settings

import bots
from games.domain.rules import RULESETS
from games.scheduling import botplay

log = logging.getLogger(__name__)

_started = threading.Event()


def missing() -> list[str]:
    """The rule sets whose bot reads a table that is neither in memory nor on disk."""
    return [name for name, ruleset in RULESETS.items() if bots.tables.needs_table(ruleset) and not bots.ready(ruleset)]


def build_missing() -> list[str]:
    """Build every missing table, one after another (the server's start-up thread); returns those built."""
    built = []
    for name in missing():
        if bots.ready(RULESETS[name]):  # another rule set's build may have made the shared file
            continue
        started = time.perf_counter()
        try:
            bots.tables.table(RULESETS[name], build=True)
        except Exception:
            log.exception("building the solver table for %s failed", name)
            continue
        built.append(name)
        log.info("solver table for %s built at start-up in %.1f s", name, time.perf_counter() - started)
    return built


def prepare_in_background() -> threading.Thread | None:
    """At server start: build the missing tables in a background thread (once per process)."""
    if not settings.BOT_TABLES_AT_START or _started.is_set():
        return None
    _started.set()
    if not missing():
        return None
    thread = threading.Thread(target=build_missing, name="bot-tables-at-start", daemon=True)
    thread.start()
    return thread


async def wait_ready(ruleset: str, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds (on the event loop, holding no thread) for the table of ``ruleset``."""
    deadline = time.monotonic() + timeout
    if not bots.ready(RULESETS[ruleset]):
        botplay.build_in_background(ruleset)
    while not bots.ready(RULESETS[ruleset]):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.25)
    return True

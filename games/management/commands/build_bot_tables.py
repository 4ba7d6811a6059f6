"""manage.py build_bot_tables: build (or load) the bots' exact solver tables ahead of time."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

import bots
from games.domain.rules import RULESETS


class Command(BaseCommand):
    help = "Build the computer players' solver tables into the cache (YAHTZEE_BOT_CACHE), so no game waits for them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("rulesets", nargs="*", help=f"some of {', '.join(RULESETS)} (default: all)")

    def handle(self, *args: Any, **options: Any) -> None:
        names = options["rulesets"] or list(RULESETS)
        for name in names:
            if not bots.tables.needs_table(RULESETS[name]):
                self.stdout.write(f"{name}: no table (its bot is a heuristic that needs none)")
                continue
            started = time.perf_counter()
            was_ready = bots.ready(RULESETS[name])
            bots.tables.table(RULESETS[name], build=True)
            took = time.perf_counter() - started
            self.stdout.write(f"{name}: {'already built' if was_ready else f'built in {took:.1f} s'}")

"""Count every finished game not counted yet (one whose server stopped before it could)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from accounts import services


class Command(BaseCommand):
    help = "Count finished games for the players' history, stats and ratings (each game once, whoever runs it)."

    def handle(self, *args: Any, **options: Any) -> None:
        counted = services.games_count_missing()
        self.stdout.write(f"{counted} game(s) counted.")

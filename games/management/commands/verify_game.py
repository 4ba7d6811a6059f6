"""manage.py verify_game CODE: re-derive every roll of a finished game from its revealed seed."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.domain.rules import RULESETS
from games.services import normalize_code
from games.services.replay import replay_game, verify_fairness
from games.store.models import Game


def _roll_text(roll: dict[str, Any]) -> str:
    """One roll, held dice in brackets; Painted dice as value and colour name (``[4 blue]``)."""
    colours = roll.get("colours")
    shown = [f"{d} {colours[i]}" if colours else str(d) for i, d in enumerate(roll["dice"])]
    return " ".join(f"[{text}]" if i in roll["held"] else f" {text} " for i, text in enumerate(shown))


class Command(BaseCommand):
    help = "Check a finished game's dice against its seed commitment, and replay its moves through the rules."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("code", help="the room code")
        parser.add_argument("--rolls", action="store_true", help="print every roll")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            game = Game.objects.get(code=normalize_code(options["code"]))
        except Game.DoesNotExist as exc:
            raise CommandError(f"No game with code {options['code']!r}.") from exc
        report = verify_fairness(game)
        if not report.revealed:
            raise CommandError(f"Game {game.code} is still {game.status}: its seed is revealed when it ends.")
        out = self.stdout
        out.write(f"Game {game.code} ({game.ruleset}, {game.status})")
        out.write(f"  server seed  {game.server_seed}")
        out.write(
            f"  commitment   {game.seed_commitment}  sha256(seed) {'matches' if report.commitment_ok else 'DIFFERS'}"
        )
        out.write(f"  client seeds {game.client_seed or '(none)'}")
        replay = replay_game(game)
        multipliers = RULESETS[game.ruleset].multipliers
        if options["rolls"]:
            for turn in replay.turns:
                rolls = "  ".join(_roll_text(roll) for roll in turn.rolls)
                # Triple: which of the three boxes of that name, as a zero or a bonus cannot tell.
                column = f" ×{multipliers[turn.column]}" if len(multipliers) > 1 and turn.box else ""
                out.write(
                    f"  turn {turn.number:3} {turn.name:<24} {rolls}  -> {turn.box}{column} {turn.points}+{turn.bonus}"
                )
        for mismatch in report.mismatches:
            out.write(self.style.ERROR(f"  {mismatch}"))
        for problem in replay.problems:
            out.write(self.style.ERROR(f"  replay: {problem}"))
        ok = report.ok and not replay.problems
        if not ok:
            raise CommandError(f"Game {game.code} FAILED verification.")
        out.write(
            self.style.SUCCESS(
                f"OK: all {report.rolls_checked} rolls re-derived from the revealed seed, and the moves replay exactly."
            )
        )

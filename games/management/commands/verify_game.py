"""manage.py verify_game CODE: re-derive every roll of a finished game from its revealed seed.

Read by an operator, not a program: the game is named by its room code as players see and
quote it (``abcd-efgh-jk``), and every code it prints (rule set, status, roll and move numbers)
is said in words beside it.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.domain.rules import RULESETS
from games.services import code_in_link, normalize_code, shown_code
from games.services.replay import PLAYED_BY, replay_game, verify_fairness
from games.store.models import Game


def _roll_text(roll: dict[str, Any]) -> str:
    """One roll, held dice in brackets; Painted dice as value and colour name (``[4 blue]``)."""
    colours = roll.get("colours")
    shown = [f"{d} {colours[i]}" if colours else str(d) for i, d in enumerate(roll["dice"])]
    return " ".join(f"[{text}]" if i in roll["held"] else f" {text} " for i, text in enumerate(shown))


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}{'' if n == 1 else 's'}"


class Command(BaseCommand):
    help = (
        "Check a finished game's dice against its seed commitment, and replay its moves through the rules. "
        "The game is named by its room code as players see it (abcd-efgh-jk); case and dashes do not matter."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "code",
            help="the room code, as players see it (abcd-efgh-jk) or without its dashes, or a link to the room "
            "(its invite, replay or fair-dice page)",
        )
        parser.add_argument("--rolls", action="store_true", help="print every turn's rolls and the box it scored")

    def handle(self, *args: Any, **options: Any) -> None:
        typed = options["code"]
        try:
            game = Game.objects.get(code=normalize_code(code_in_link(typed) or typed))
        except Game.DoesNotExist as exc:
            raise CommandError(
                f"No game has the room code {typed!r} (case and dashes are ignored). "
                "Check the code on the room's page or in the admin's list of games."
            ) from exc
        shown = shown_code(game.code)
        status = game.get_status_display()
        report = verify_fairness(game)
        if not report.revealed:
            if game.status == Game.Status.LOBBY:
                now = f"Game {shown} has not started yet (status: {status})"
            else:
                now = f"The players of game {shown} are still playing (status: {status})"
            why = "its server seed is revealed only when the game ends, so it cannot be checked yet"
            raise CommandError(f"{now}: {why}.")
        out = self.stdout
        ruleset = RULESETS[game.ruleset]
        # The code as players quote it first; the stored one is what the dice's HMAC signs.
        out.write(f"Game {shown}: the room code players see ({game.code} as stored, and in each roll's HMAC).")
        out.write(f"  Rule set: {ruleset.label} (its code: {game.ruleset}). Status: {status}.")
        out.write(f"  Server seed, revealed at the game's end: {game.server_seed}")
        out.write(f"  Commitment, shown from the room's start:  {game.seed_commitment}")
        if report.commitment_ok:
            out.write(
                "    The SHA-256 of the revealed seed matches the commitment: it is the seed the server committed to."
            )
        else:
            out.write(
                self.style.ERROR(
                    "    The SHA-256 of the revealed seed DIFFERS from the commitment: "
                    "it is not the seed the server committed to."
                )
            )
        if any(game.client_seed.split(",")):
            out.write(f"  Players' seeds, one per seat in seat order, mixed into every roll: {game.client_seed}")
        else:
            out.write("  Players' seeds: none (no seat sent one); the rolls come from the server seed and room code.")
        if game.started_at is None and report.ok:
            # Everyone left the lobby: there is no roll or move to check, and "all 0 rolls
            # re-derived" would read as a game checked (the fair-dice page says it never started).
            out.write(
                self.style.SUCCESS(
                    f"OK: game {shown} never started (everyone left the lobby): it has no rolls or moves "
                    "to check, and its revealed seed matches its commitment."
                )
            )
            return
        replay = replay_game(game)
        multipliers = ruleset.multipliers
        if options["rolls"]:
            column_note = " and the column's multiplier (×1, ×2, ×3)" if len(multipliers) > 1 else ""
            out.write(
                "  Each turn: its number, the player, every roll (held dice in [brackets]), then the box it "
                f"scored as the move log names it{column_note}, and its points + Yahtzee bonus points; one "
                "the server or a computer played for its player says which."
            )
            for turn in replay.turns:
                rolls = "  ".join(_roll_text(roll) for roll in turn.rolls)
                # Triple: which of the three boxes of that name, as a zero or a bonus cannot tell.
                column = f" ×{multipliers[turn.column]}" if len(multipliers) > 1 and turn.box else ""
                by = f"  (played by {PLAYED_BY[turn.played_by]})" if turn.played_by else ""
                out.write(
                    f"  turn {turn.number:3} {turn.name:<24} {rolls}  -> {turn.box}{column} {turn.points}+{turn.bonus}"
                    f"{by}"
                )
        if report.mismatches:
            out.write(
                self.style.ERROR(
                    "  Rolls that do not re-derive from the seeds (rolls are counted from 0 over the whole game; "
                    "a move is its number in the game's move log, as in its log.json):"
                )
            )
        for mismatch in report.mismatches:
            out.write(self.style.ERROR(f"    {mismatch}"))
        if replay.problems:
            out.write(
                self.style.ERROR(
                    "  The moves do not replay through the rules as logged (a move is its number in the move log):"
                )
            )
        for problem in replay.problems:
            out.write(self.style.ERROR(f"    {problem}"))
        if not (report.ok and not replay.problems):
            found = []
            if not report.commitment_ok:
                found.append("the revealed seed does not match its commitment")
            if report.mismatches:
                found.append(f"{_count(len(report.mismatches), 'roll problem')} in {report.rolls_checked} rolls")
            if replay.problems:
                found.append(f"{_count(len(replay.problems), 'problem')} replaying the moves")
            raise CommandError(f"Game {shown} FAILED verification: {'; '.join(found)} (see above).")
        out.write(
            self.style.SUCCESS(
                f"OK: all {report.rolls_checked} rolls re-derived from the revealed seed, and the moves replay exactly."
            )
        )

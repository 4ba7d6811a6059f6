"""``manage.py sweep [--dry-run]``: the sweeps of what nothing reads any more, at once (games.services.sweeps).

The scheduler runs them once every ``SWEEP_EVERY`` seconds; this runs them now, whenever the
last round was, and prints what each deleted. ``--dry-run`` deletes nothing and prints what
would go. It exits non-zero, naming them, when any sweep failed.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.services import sweeps


class Command(BaseCommand):
    help = (
        "Delete what nothing reads any more: rooms never started and unused for ROOMS_NEVER_STARTED_DAYS, "
        "the sign-in log older than SIGN_IN_LOG_DAYS, push subscriptions failing for PUSH_FAILING_DAYS, "
        "push subscriptions of no account and no seat made PUSH_UNUSED_DAYS ago."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="delete nothing: count what would be deleted")

    def handle(self, *args: Any, **options: Any) -> None:
        dry_run = options["dry_run"]
        done = sweeps.sweep(dry_run=dry_run)
        verb = "would delete" if dry_run else "deleted"
        failed = []
        for name in sweeps.SWEEPS:
            if name not in done:
                failed.append(name)
                self.stderr.write(f"{name}: failed (see the log)")
            elif not done[name]:
                self.stdout.write(f"{name}: kept for ever (its setting is 0)")
            else:
                counts = ", ".join(f"{count} {what}" for what, count in done[name].items())
                self.stdout.write(f"{name}: {verb} {counts}")
        if failed:
            # A non-zero exit, so that a cron job or a deploy step sees it.
            raise CommandError(f"{len(failed)} of {len(sweeps.SWEEPS)} sweeps failed: {', '.join(failed)}")

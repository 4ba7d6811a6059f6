"""One scheduler: "act for room R at time T, at its version V, exactly once".

What is due is data with the room (``Game.due_at``, kept by every recorded action:
games.services.deadline.next_due): a computer player's next step, the turn's deadline
(seconds or days away), and the work owed once a game ended (its players' records, stats
and ratings: the receivers of ``signals.game_finished``). Nothing is kept only in a
process's memory, so it happens with no socket connected, after a restart, and when the
process that was about to do it is killed.

- ``work``: the database side. A due room is claimed in a transaction of its own
  (``SELECT … FOR UPDATE SKIP LOCKED`` on PostgreSQL; SQLite's write lock, taken when the
  transaction starts, on the embedded default) and applied through a service with the
  version check in that same transaction: a process that dies mid-way rolls it back and
  the room is claimed again; a second process finds the room already moved on.
- ``runner``: the per-process ``Scheduler``: a sweep every ``SCHEDULER_POLL`` seconds that
  claims whatever is due, and, for promptness, a timer for each room whose action this
  process committed (games.services.events), so a computer player answers after ``BOT_DELAY``, not
  at the next sweep. It also beats (``work.beat``): after a gap in which no process was
  up, running turn deadlines are moved on by the gap.

``make run`` runs the scheduler inside the server (yahtzee.asgi's lifespan); production
runs it as its own process too (``manage.py run_scheduler``; docker-compose.yml), with the
web workers keeping only their own rooms' timers (``SCHEDULER=local``).
"""

from games.scheduling.runner import Scheduler, committed, current, reset, start, stop
from games.scheduling.work import APPLIED, FOLLOWUPS, NOTHING, apply_due, beat, claim_next, run_followups

__all__ = [
    "APPLIED",
    "FOLLOWUPS",
    "NOTHING",
    "Scheduler",
    "apply_due",
    "beat",
    "claim_next",
    "committed",
    "current",
    "reset",
    "run_followups",
    "start",
    "stop",
]

"""The turn timer's deadlines, enforced from every process that has a socket in the room.

Like computer players' steps (games.botplay): whenever a state of a room goes out in a
process (``fanout.on_state``: a broadcast, relayed or local, or a socket connecting), the
process schedules a call of ``services.clock_expire`` for that version at the state's
deadline. Every process with a socket in the room does it; the service applies the timeout
under the row lock only if the room is still at that version and the deadline has passed,
so it happens exactly once, and still happens if the process that was about to apply it
dies (the others do, or the next socket to connect: its welcome state carries the deadline,
which is stored with the game).
"""

from __future__ import annotations

import asyncio
import random
from datetime import datetime

from django.utils import timezone

from games import services, wire
from games.threads import db_async, retry_while_current

RETRIES = 12
JITTER = 0.15  # seconds: several processes seldom try the same timeout at the same moment
_rng = random.Random()
_scheduled: dict[str, int] = {}
_tasks: set[asyncio.Task[None]] = set()


def heard(code: str, frames: list[str]) -> None:
    """A state of the room went out in this process: schedule its deadline, if its clock runs."""
    text = frames[-1] if frames else ""
    # A shortcut: no running clock, nothing to parse. Frames are compact (games.wire), but a
    # state from a process still on the standard encoder has a space after the colon.
    if '"deadline":"' not in text and '"deadline": "' not in text:
        return
    state = wire.loads(text)
    clock = state.get("clock") or {}
    if state.get("type") != "state" or state.get("status") != "playing" or not clock.get("deadline"):
        return
    schedule(code, state["version"], datetime.fromisoformat(clock["deadline"]))


def schedule(code: str, version: int, deadline: datetime) -> None:
    """Call the timeout at ``deadline`` for ``version`` (once per process and version)."""
    if _scheduled.get(code, -1) >= version:
        return
    _scheduled[code] = version
    task = asyncio.get_running_loop().create_task(_expire(code, version, deadline))
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


async def _expire(code: str, version: int, deadline: datetime) -> None:
    wait = (deadline - timezone.now()).total_seconds()
    await asyncio.sleep(max(0.0, wait) + _rng.uniform(0.02, JITTER))
    await retry_while_current(
        _scheduled,
        code,
        version,
        lambda: db_async(services.clock_expire)(code=code, version=version),
        "turn timeout",
        RETRIES,
    )

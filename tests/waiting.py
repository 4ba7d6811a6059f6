"""Waiting in tests for what happens elsewhere (another task, thread, process or server).

``wait_until`` asks a condition again and again until it holds, and fails naming what was
awaited once its deadline passes: a test waits as long as the machine needs and no longer,
and never on a fixed sleep.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def wait_until(
    condition: Callable[[], object],
    what: str,
    *,
    timeout: float = 10,
    every: float = 0.005,
    detail: Callable[[], object] | None = None,
) -> None:
    """Wait until ``condition()`` is true, asking every ``every`` seconds; fail after ``timeout``
    seconds with "waited <timeout> s for <what>", and ``detail()`` (what there was instead) after it.

    A check that costs nothing is asked often; one that opens a connection, less often.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() >= deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}" + (f": {detail()}" if detail else ""))
        await asyncio.sleep(every)

"""tests/waiting.py: a wait ends as soon as its condition holds, and fails naming what it waited for."""

from __future__ import annotations

import asyncio

import pytest

from tests.waiting import wait_until

pytestmark = pytest.mark.asyncio


async def test_a_wait_ends_once_what_happens_elsewhere_makes_its_condition_true() -> None:
    seen: list[int] = []
    loop = asyncio.get_running_loop()
    loop.call_later(0.05, seen.append, 1)
    started = loop.time()
    await wait_until(lambda: seen, "the timer's note")
    assert seen == [1]
    assert loop.time() - started < 5  # well before the deadline


async def test_a_wait_past_its_deadline_says_what_it_waited_for_and_what_there_was() -> None:
    asked: list[int] = []

    def condition() -> bool:
        asked.append(1)
        return False

    with pytest.raises(AssertionError) as failed:
        await wait_until(condition, "a note that never comes", timeout=0.1, every=0.01, detail=lambda: "no notes")
    assert str(failed.value) == "waited 0.1 s for a note that never comes: no notes"
    assert len(asked) > 1  # asked again while it waited
    with pytest.raises(AssertionError, match=r"^waited 0\.05 s for a note that never comes$"):
        await wait_until(condition, "a note that never comes", timeout=0.05)

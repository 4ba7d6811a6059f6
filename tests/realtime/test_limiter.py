"""The one limiter (games.realtime.limits.Limiter): moving windows in memory and in Redis, on a clock
tests move; what it does when Redis does not answer; which limits RATE_LIMITS=0 turns off."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from games.realtime.limits import (
    CHAT,
    FRAMES,
    HINTS,
    LIMITS,
    ROOM_MISS,
    Bucket,
    Limit,
    Limiter,
    MemoryWindows,
    frames_over,
)
from tests.conftest import ManualClock

ANN = Bucket("browser", "ann-controller-token")
THREE_IN_TEN = Limit("test_three", "TEST_RATE", shared=True)


@pytest.fixture
def three_in_ten(settings: Any) -> Limit:
    settings.TEST_RATE = "3/10"
    return THREE_IN_TEN


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(now=1_000_009.0)  # a second before a multiple of 10 s, where a fixed window ends


@pytest.fixture
def in_memory(settings: Any, clock: ManualClock) -> Iterator[Limiter]:
    settings.RATE_LIMIT_REDIS_URL = ""
    limiter = Limiter()
    with limiter.use_clock(clock):
        yield limiter


@pytest.fixture
def redis_url(settings: Any) -> str:
    settings.RATE_LIMIT_REDIS_URL = os.environ["REDIS_URL"]
    return str(settings.RATE_LIMIT_REDIS_URL)


def two_processes(clock: ManualClock) -> list[Limiter]:
    """Two limiters, as two worker processes have, counting on one clock."""
    limiters = [Limiter(), Limiter()]
    for limiter in limiters:
        limiter.clock = clock
    return limiters


def moving_window_holds(limiters: list[Limiter], limit: Limit, clock: ManualClock) -> None:
    """3 in any 10 s, whichever limiter counts: no second allowance after a window boundary."""
    first, second = limiters[0], limiters[-1]
    assert [first.hit(limit, ANN), second.hit(limit, ANN), first.hit(limit, ANN)] == [True] * 3
    assert not second.hit(limit, ANN)
    clock.advance(2.0)  # past 1_000_010: a fixed window would start afresh here
    assert not first.hit(limit, ANN) and not second.hit(limit, ANN)
    assert first.retry_after(limit, ANN) == 8  # the first three are 10 s old at 1_000_019
    clock.advance(8.0)  # exactly 10 s after them: still counted
    assert not second.hit(limit, ANN)
    clock.advance(0.01)
    assert [second.hit(limit, ANN), first.hit(limit, ANN), first.hit(limit, ANN)] == [True] * 3
    assert not first.hit(limit, ANN)
    assert first.hit(limit, Bucket("browser", "bob")), "Bob's count is his own"


def test_a_moving_window_in_memory_allows_the_count_in_any_window_and_no_more(
    in_memory: Limiter, three_in_ten: Limit, clock: ManualClock
) -> None:
    moving_window_holds([in_memory], three_in_ten, clock)


@pytest.mark.redis
def test_a_moving_window_in_redis_holds_across_processes(
    redis_url: str, three_in_ten: Limit, clock: ManualClock
) -> None:
    moving_window_holds(two_processes(clock), three_in_ten, clock)


@pytest.mark.redis
def test_a_browser_s_token_never_reaches_redis(redis_url: str, three_in_ten: Limit, clock: ManualClock) -> None:
    limiter = two_processes(clock)[0]
    assert limiter.hit(three_in_ten, ANN)
    client = redis.Redis.from_url(redis_url)
    try:
        keys = [key.decode() for key in client.scan_iter(match="*test_three*")]
    finally:
        client.close()
    assert keys and not [key for key in keys if ANN.ident in key]


def test_several_buckets_count_together_or_not_at_all(in_memory: Limiter, three_in_ten: Limit) -> None:
    """A page counts against its browser and its address's share: refused by one, counted in neither."""
    address = Bucket("address", "10.0.0.1", share=2)  # 6 for everyone at the address
    for _ in range(3):
        assert in_memory.hit(three_in_ten, ANN, address)
    assert not in_memory.hit(three_in_ten, ANN, address)
    bob = Bucket("browser", "bob")
    assert [in_memory.hit(three_in_ten, bob, address) for _ in range(3)] == [True] * 3
    assert in_memory.full(three_in_ten, address)  # six at the address
    assert not in_memory.hit(three_in_ten, Bucket("browser", "cy"), address)
    assert not in_memory.full(three_in_ten, Bucket("browser", "cy"))  # Cy counted nothing


def test_without_redis_answering_the_shared_limits_hold_in_memory_and_say_so_once(
    settings: Any, three_in_ten: Limit, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    settings.RATE_LIMIT_REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    limiter = Limiter()
    limiter.clock = clock
    with caplog.at_level(logging.WARNING, logger="games.realtime.limits"):
        answers = [limiter.hit(three_in_ten, ANN) for _ in range(4)]
    assert answers == [True] * 3 + [False]
    assert [r.getMessage() for r in caplog.records] == [
        "rate limits: Redis does not answer; counting in memory for 5 s"
    ]


def test_rate_limits_off_turns_off_every_limit_but_the_frames_of_a_socket_and_an_addresss_mails(
    settings: Any, in_memory: Limiter
) -> None:
    settings.RATE_LIMITS = False
    # A load generator's servers turn the limits off; no load makes the site mail a stranger.
    # WS_RATE_LIMIT holds for a socket's frames and for the form posts that stand for them.
    assert [limit.name for limit in LIMITS if limit.rate() is not None] == [
        "confirmation_mails",
        "account_confirmation_mails",
        "form_frames",
        "frames",
    ]
    settings.WS_RATE_LIMIT = 0  # a count of 0 turns a limit off
    assert FRAMES.rate() is None
    settings.RATE_LIMITS = True
    settings.CHAT_RATE = "off"
    assert CHAT.rate() is None and HINTS.rate() is not None and ROOM_MISS.rate() is not None


def test_a_socket_over_its_frames_is_refused_and_its_address_shares_one_budget(
    settings: Any, limit_clock: ManualClock
) -> None:
    settings.WS_RATE_LIMIT = 3
    settings.WS_FRAMES_PER_ADDRESS = 5
    assert [frames_over("ws.one", "10.1.1.1") for _ in range(4)] == [False] * 3 + [True]
    assert [frames_over("ws.two", "10.1.1.1") for _ in range(3)] == [False, False, True]  # 5 for the address
    assert not frames_over("ws.three", "10.1.1.2")
    limit_clock.advance(1.01)
    assert not frames_over("ws.one", "10.1.1.1")


def test_memory_forgets_the_windows_of_keys_no_longer_counted(clock: ManualClock) -> None:
    memory = MemoryWindows(clock)
    memory.SWEEP_EVERY = 10
    for n in range(9):
        assert memory.acquire_entry(f"socket-{n}", 5, 1)
    clock.advance(1.01)
    assert memory.acquire_entry("socket-9", 5, 1)  # the tenth count sweeps
    assert list(memory.windows) == ["socket-9"]


def slots_are_taken_before_and_given_back(limiter: Limiter, limit: Limit, clock: ManualClock) -> None:
    """``take`` counts at once (a fourth is refused while three are held); ``give_back`` frees one."""
    slots = [limiter.take(limit, ANN) for _ in range(3)]
    assert all(slot is not None for slot in slots)
    assert limiter.take(limit, ANN) is None
    first = slots[0]
    assert first is not None
    limiter.give_back(first)
    clock.advance(1.0)
    again = limiter.take(limit, ANN)
    assert again is not None and limiter.take(limit, ANN) is None
    clock.advance(9.5)  # the two slots taken first are over 10 s old; the one taken again is not
    assert [limiter.take(limit, ANN) is not None for _ in range(3)] == [True, True, False]


def test_a_slot_taken_in_memory_counts_until_it_is_given_back(
    in_memory: Limiter, three_in_ten: Limit, clock: ManualClock
) -> None:
    slots_are_taken_before_and_given_back(in_memory, three_in_ten, clock)


@pytest.mark.redis
def test_a_slot_taken_in_redis_counts_until_it_is_given_back(
    redis_url: str, three_in_ten: Limit, clock: ManualClock
) -> None:
    slots_are_taken_before_and_given_back(two_processes(clock)[0], three_in_ten, clock)


def test_a_slot_is_taken_in_every_bucket_or_in_none(in_memory: Limiter, three_in_ten: Limit) -> None:
    address = Bucket("address", "10.0.0.1")
    for _ in range(3):
        assert in_memory.take(three_in_ten, Bucket("browser", "bob"), address) is not None
    assert in_memory.take(three_in_ten, ANN, address) is None
    assert not in_memory.full(three_in_ten, ANN)  # refused by the address, Ann counted nothing

"""games.turnclock: a state with a running clock, as the wire carries it, schedules its deadline."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from games import turnclock, wire

DEADLINE = "2026-11-23T15:00:03+00:00"


def state(deadline: str | None, status: str = "playing") -> dict[str, Any]:
    return {"type": "state", "version": 7, "status": status, "clock": {"seconds": 30, "deadline": deadline}}


@pytest.fixture
def scheduled(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, datetime]]:
    calls: list[tuple[str, int, datetime]] = []
    monkeypatch.setattr(turnclock, "schedule", lambda code, version, deadline: calls.append((code, version, deadline)))
    return calls


@pytest.mark.parametrize("encode", [wire.dumps, json.dumps], ids=["compact", "spaced"])
def test_a_running_clock_is_scheduled_whichever_encoder_wrote_the_frame(encode: Any, scheduled: list[Any]) -> None:
    turnclock.heard("abcd", ["{}", encode(state(DEADLINE))])
    assert scheduled == [("abcd", 7, datetime(2026, 11, 23, 15, 0, 3, tzinfo=UTC))]


@pytest.mark.parametrize("frame", [state(None), state(DEADLINE, status="finished"), {"type": "state", "version": 3}])
def test_no_running_clock_schedules_nothing(frame: dict[str, Any], scheduled: list[Any]) -> None:
    turnclock.heard("abcd", [wire.dumps(frame)])
    assert scheduled == []

"""A socket's Presence row: written again when it was swept while the socket lived on, and whether its
page is hidden, as the page says (the ``visibility`` frame)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from games import services
from games.domain import protocol
from games.domain.rules import RuleViolation
from games.realtime import sockets
from games.services import presence, processes
from games.store.models import Game, Presence, ServingProcess
from tests.realtime.consumers.helpers import (
    connect,
    first_frames,
    frames_before_pong,
    frames_until,
    make_room,
    presence_settled,
)
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_a_socket_that_stays_open_after_its_worker_was_taken_for_dead_is_still_shown_at_the_table(
    fresh_transport: None,
) -> None:
    """The database was away 30 s (a PostgreSQL restart): both workers and their sockets stayed up.
    When it is back, the other worker's beat finds this worker's row 30 s old (DEAD_AFTER is 15 s)
    and deletes its sockets' Presence rows; the sockets' pings then update no row."""
    code, sessions = await make_room(2)
    ws = await connect(code, sessions[1])
    await first_frames(ws)

    @sync_to_async
    def outage_then_other_worker_beats() -> None:
        stale = timezone.now() - timedelta(seconds=30)
        ServingProcess.objects.update_or_create(
            origin=processes.ORIGIN,  # this worker, as its last beat before the outage left it
            defaults={
                "host": "web1",
                "pid": 1,
                "key_fingerprint": processes.key_fingerprint(),
                "layer": processes.layer_name(),
                "started_at": stale,
                "seen_at": stale,
            },
        )
        processes.seen("web2-origin")  # the other worker's first beat once the database answers again

    await outage_then_other_worker_beats()
    await ws.send_json_to({"type": "ping"})  # the socket is alive and says so
    await frames_until(ws, "pong")
    frame = json.loads(await sync_to_async(presence.room_frame)(code))
    rows = await sync_to_async(Presence.objects.filter(game__code=code).count)()

    @sync_to_async
    def host_removes_seat_1() -> str:
        game = Game.objects.get(code=code)
        host = game.room.seats[0].controller
        try:
            services.game_remove_absent(
                code=code, controller=host, seat=1, expected_version=game.version, action_id="x"
            )
        except RuleViolation as exc:
            return exc.code
        return "removed"

    outcome = await host_removes_seat_1()
    await ws.disconnect()
    # The host took the seat of a player who is at the table, whom the room shows away.
    assert (outcome, frame["seats"]["1"], rows) == (services.PLAYER_PRESENT, "connected", 1)


@sync_to_async
def hidden_since(code: str) -> list[datetime | None]:
    return list(Presence.objects.filter(game__code=code).order_by("id").values_list("hidden_since", flat=True))


async def test_a_page_says_when_it_is_hidden_and_shown_and_only_its_row_hears_it(settings: Any) -> None:
    """The notices read it (games.services.notices); the room's presence, the host's tools and the
    seats a host may hand over go by the sockets alone, so the room is told nothing: nor does a
    player's switching tabs reach the other players."""
    settings.PRESENCE_COALESCE = 0.01
    code, sessions = await make_room(2)
    ben = await connect(code, sessions[1])
    await first_frames(ben)
    ann = await connect(code, sessions[0])
    await first_frames(ann)
    await presence_settled()
    for ws in (ann, ben):
        await frames_before_pong(ws)  # the arrivals, told

    before = timezone.now()
    await ben.send_json_to({"type": "visibility", "hidden": True})
    await until_rows(code, lambda rows: rows[0] is not None, "Ben's page hidden")
    [since, _] = await hidden_since(code)
    assert since is not None and before <= since <= timezone.now()
    await ben.send_json_to({"type": "visibility", "hidden": False})
    await until_rows(code, lambda rows: rows == [None, None], "Ben's page shown")
    await presence_settled()
    assert await frames_before_pong(ann) == []  # no presence, nothing
    assert await frames_before_pong(ben) == []  # nothing answered either
    frame = json.loads(await sync_to_async(presence.room_frame)(code))
    assert frame["seats"] == {"0": "connected", "1": "connected"}
    await ann.disconnect()
    await ben.disconnect()


async def until_rows(code: str, condition: Callable[[list[datetime | None]], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while not condition(await hidden_since(code)):
        assert loop.time() < deadline, f"waited 5 s for {what}"
        await asyncio.sleep(0.02)


def hold_writes(monkeypatch: pytest.MonkeyPatch) -> tuple[list[sockets.PageVisibility], asyncio.Event]:
    """Each socket's visibility writer held after each write until the event is set, in place of
    VISIBILITY_WRITE_EVERY's wait; the pages whose writer came to that wait, in order."""
    held: list[sockets.PageVisibility] = []
    passes = asyncio.Event()

    async def between_writes(page: sockets.PageVisibility) -> None:
        held.append(page)
        await passes.wait()

    monkeypatch.setattr(sockets.PageVisibility, "_between_writes", between_writes)
    return held, passes


async def writes_end(page: sockets.PageVisibility) -> None:
    """Until the page's writer has nothing more to write: the row says what the page said last."""
    writer = page.writer
    assert writer is not None
    await asyncio.wait_for(asyncio.shield(writer), 5)


async def test_a_page_that_connects_while_hidden_keeps_the_time_it_has_been_hidden(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A phone's page in the background whose socket dropped and came back: the wait before the
    notices count it away does not start over at each reconnect."""
    held, passes = hold_writes(monkeypatch)
    code, sessions = await make_room(2)
    ws = await connect(code, sessions[1])
    await first_frames(ws)
    await ws.send_json_to({"type": "visibility", "hidden": True, "hidden_for": 95})
    await until_rows(code, lambda rows: rows[0] is not None, "the page hidden")
    [since] = await hidden_since(code)
    assert since is not None
    assert timedelta(seconds=94) < timezone.now() - since < timedelta(seconds=100)
    # Said again (the page's handler ran twice), it still counts from the first word.
    await wait_until(lambda: len(held) == 1, "the first write's end")
    await ws.send_json_to({"type": "visibility", "hidden": True})
    await frames_before_pong(ws)
    passes.set()  # the wait before a second write passes: none is owed
    await writes_end(held[0])
    assert await hidden_since(code) == [since]
    # Days in the background count as one: the same to the notices.
    await ws.send_json_to({"type": "visibility", "hidden": False})
    await ws.send_json_to({"type": "visibility", "hidden": True, "hidden_for": 10**9})
    await until_rows(code, lambda rows: rows[0] is not None and rows[0] < since, "the page hidden for days")
    [since] = await hidden_since(code)
    assert since is not None
    assert timezone.now() - since < sockets.HIDDEN_FOR_MAX + timedelta(seconds=5)
    await ws.disconnect()


async def test_a_visibility_frame_hidden_for_longer_than_a_date_can_say_is_refused_not_a_server_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``hidden_for`` has a ceiling: past it (10**14 seconds would overflow a date) the frame is a
    ``bad_field`` refusal, logged nowhere, like any other field out of range; the largest it takes
    counts as a day, as any long time hidden does."""
    code, sessions = await make_room(2)
    ws = await connect(code, sessions[1])
    await first_frames(ws)
    # Its own arrival's presence, told first: the answers below are all that comes after.
    await presence_settled()
    assert {f["type"] for f in await frames_before_pong(ws)} <= {"presence"}
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        await ws.send_json_to({"type": "visibility", "hidden": True, "hidden_for": 10**14})
        answer = await frames_before_pong(ws)
    assert [(f["type"], f.get("code")) for f in answer] == [("error", "bad_field")], answer
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    await ws.send_json_to({"type": "visibility", "hidden": True, "hidden_for": protocol.HIDDEN_FOR_LIMIT})
    assert await frames_before_pong(ws) == []
    await until_rows(code, lambda rows: rows[0] is not None, "the page hidden")
    [since] = await hidden_since(code)
    assert since is not None and timezone.now() - since < sockets.HIDDEN_FOR_MAX + timedelta(seconds=5)
    await ws.disconnect()


async def test_a_page_hidden_and_shown_in_a_loop_costs_about_one_write_a_second_and_its_row_ends_with_its_last_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    held, passes = hold_writes(monkeypatch)  # VISIBILITY_WRITE_EVERY, held for as long as the test likes
    code, sessions = await make_room(2)
    ws = await connect(code, sessions[1])
    await first_frames(ws)
    writes: list[datetime | None] = []
    real = presence.hidden

    def counted(channel_name: str, since: datetime | None) -> bool:
        writes.append(since)
        return real(channel_name, since)

    monkeypatch.setattr(presence, "hidden", counted)
    for n in range(15):  # under the socket's 20 frames a second
        await ws.send_json_to({"type": "visibility", "hidden": n % 2 == 0})
    await frames_before_pong(ws)
    await wait_until(lambda: len(held) == 1, "the first write's end")
    assert len(writes) == 1  # the first; the rest wait for VISIBILITY_WRITE_EVERY
    passes.set()
    await writes_end(held[0])
    assert 1 <= len(writes) <= 2, writes
    [since] = await hidden_since(code)
    assert since is not None and writes[-1] == since  # the 15th frame: hidden
    await ws.disconnect()


async def test_a_swept_row_written_again_by_a_ping_keeps_its_page_hidden() -> None:
    code, sessions = await make_room(2)
    ws = await connect(code, sessions[1])
    await first_frames(ws)
    await ws.send_json_to({"type": "visibility", "hidden": True, "hidden_for": 300})
    await until_rows(code, lambda rows: rows[0] is not None, "the page hidden")
    [since] = await hidden_since(code)
    await sync_to_async(Presence.objects.filter(game__code=code).delete)()  # taken for a dead worker's
    await ws.send_json_to({"type": "ping"})
    await frames_until(ws, "pong")
    assert await hidden_since(code) == [since]
    await ws.disconnect()

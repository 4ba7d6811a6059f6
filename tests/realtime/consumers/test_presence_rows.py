"""A socket's Presence row is written again when it was swept while the socket lived on."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from games import services
from games.domain.rules import RuleViolation
from games.services import presence, processes
from games.store.models import Game, Presence, ServingProcess
from tests.realtime.consumers.helpers import connect, first_frames, frames_until, make_room

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

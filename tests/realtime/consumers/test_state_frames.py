"""The rule set rides in the state a socket connects to or syncs to, not in the state after every action."""

from __future__ import annotations

import json

import pytest

from games.store.selectors import ruleset_info
from tests.realtime.consumers.helpers import connect, first_frames, frames_until, make_room

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_the_state_after_an_action_leaves_out_the_rule_set_that_the_connect_and_sync_states_carry() -> None:
    room, sessions = await make_room(2)
    player, watcher = await connect(room, sessions[0]), await connect(room)
    _, state, _ = await first_frames(player)
    _, watched, _ = await first_frames(watcher)
    assert state["ruleset"] == watched["ruleset"] == ruleset_info("official")
    await player.send_to(text_data=json.dumps({"type": "roll", "version": state["version"], "id": "r1"}))
    for ws in (player, watcher):
        after = (await frames_until(ws, "state"))[-1]
        assert after["version"] == state["version"] + 1 and after["event"]["type"] == "rolled"
        assert "ruleset" not in after
        # Everything else of the state is there: the next action's options, the cards, the seats.
        assert after["options"] and after["cards"] and after["seats"] == state["seats"]
    # The answer to a sync carries it: the page tells that answer from an action's state by it
    # (static/js/room/protocol.js), a hold's heard before it not taken for it.
    await watcher.send_to(text_data=json.dumps({"type": "sync"}))
    synced = (await frames_until(watcher, "state"))[-1]
    assert synced["version"] == state["version"] + 1 and synced["ruleset"] == ruleset_info("official")
    for ws in (player, watcher):
        await ws.disconnect()

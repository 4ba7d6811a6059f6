"""A socket that arrives while the room moves on is not left behind: what is committed while it
reads the room reaches it."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async

from games import services
from games.realtime import fanout
from games.services import presence
from games.store import selectors
from games.store.models import Game, Player
from tests.realtime.consumers.helpers import connect, first_frames, frames_before_pong, make_room

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def _roll_now(code: str) -> None:
    """The player to move rolls: what another database thread (another socket, the scheduler) commits."""
    game = Game.objects.get(code=code)
    current = game.snapshot["rules"]["current"]
    who = Player.objects.get(game=game, seat=current).controller
    services.turn_roll(code=code, controller=who, expected_version=game.version, action_id="elsewhere-1")


@pytest.mark.parametrize("others_here", [False, True], ids=["first-socket", "host-already-here"])
async def test_a_state_committed_while_a_socket_arrives_reaches_that_socket(
    monkeypatch: pytest.MonkeyPatch, others_here: bool
) -> None:
    """The arriving socket reads the room (its welcome state), then, before it has joined the room's
    fan-out, an action of someone else commits (another database thread, the scheduler's computer
    player or turn timer). That action's state is delivered to the sockets already in the room
    only: the newcomer keeps showing the older state until its next ping (20 s later) or the
    next action."""
    code, sessions = await make_room(2)
    host = None
    if others_here:
        host = await connect(code, sessions[0])
        await first_frames(host)
    arrive = presence.arrive
    raced: list[int] = []

    def arrive_then_someone_acts(*args, **kwargs):
        hello = arrive(*args, **kwargs)
        if not raced:
            _roll_now(code)  # commits between this socket's read and its join
            raced.append(Game.objects.get(code=code).version)
        return hello

    monkeypatch.setattr(presence, "arrive", arrive_then_someone_acts)
    ws = await connect(code, sessions[1])
    _you, welcome, _presence = await first_frames(ws)
    later = await frames_before_pong(ws)
    states = [welcome] + [f for f in later if f["type"] == "state"]
    newest = max(s["version"] for s in states)
    assert newest == raced[0], (
        f"the socket shows version {newest} while the room is at {raced[0]}: the roll committed while it "
        "arrived never reached it"
    )
    await ws.disconnect()
    if host is not None:
        await host.disconnect()


async def test_a_chat_message_posted_while_a_socket_arrives_reaches_that_socket(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same gap for the chat: a message posted between the newcomer's read of the room's chat
    history and its join is in neither, and chat is never sent again (a sync brings the state
    only): that player never sees the message unless they reload the page."""
    code, sessions = await make_room(2)
    history = selectors.chat_history_for
    posted: list[str] = []

    def history_then_someone_posts(*args, **kwargs):
        found = history(*args, **kwargs)
        if not posted:
            host = Player.objects.get(game__code=code, seat=0).controller
            services.chat_post(code=code, controller=host, text="shall we start?")
            posted.append("shall we start?")
        return found

    monkeypatch.setattr(selectors, "chat_history_for", history_then_someone_posts)
    ws = await connect(code, sessions[1])
    seen = await frames_before_pong(ws)
    await ws.send_json_to({"type": "sync"})
    seen += await frames_before_pong(ws)
    texts = [m["text"] for f in seen if f["type"] == "chat_history" for m in f["messages"]]
    texts += [f["message"]["text"] for f in seen if f["type"] == "chat"]
    assert posted[0] in texts, f"the message posted while the socket arrived never reached it: {texts}"
    await ws.disconnect()


async def test_a_state_older_than_the_welcome_that_arrives_meanwhile_is_not_sent_after_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another process answers a newcomer's ``joined`` with its newest state, which the socket may
    have read already, or an older one: a socket's version only grows."""
    code, sessions = await make_room(2)
    arrive = presence.arrive

    def arrive_and_hear_an_older_state(*args, **kwargs):
        hello = arrive(*args, **kwargs)
        version = Game.objects.get(code=code).version
        older = json.dumps({"type": "state", "version": version - 1})
        fanout.publish_soon(code, [older], version=version - 1)  # held until the welcome
        return hello

    monkeypatch.setattr(presence, "arrive", arrive_and_hear_an_older_state)
    ws = await connect(code, sessions[1])
    _you, welcome, _presence = await first_frames(ws)
    later = await frames_before_pong(ws)
    assert [f["version"] for f in later if f["type"] == "state"] == [], later
    assert welcome["version"] == await sync_to_async(lambda: Game.objects.get(code=code).version)()
    await ws.disconnect()

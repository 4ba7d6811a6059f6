"""The players of bench/load.py: one websocket per player, rooms that act closed- or open-loop.

A socket reads every frame but parses only what it must: the version of a state frame
(from its first bytes) and, for the one player who acts next, the whole state. A room
counts an action done when the last of its sockets has the state it led to; the time
from the send to that moment is the action's latency. Every websocket message a socket
gets inside the window is counted too (one per action and socket: the state, with the
action's event in it).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

VERSION = re.compile(r'"version": ?(\d+)')  # json.dumps or a compact encoder (orjson)
TYPE = re.compile(r'\{"type":"(\w+)"')
STALL_SECONDS = 10.0


@dataclass
class Tally:
    """What one phase measured; ``record`` keeps only actions completed inside the window."""

    window: tuple[float, float] = (float("inf"), float("inf"))  # set when the phase begins
    latencies: list[float] = field(default_factory=list)
    completed: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    late_ticks: int = 0
    first_finish: float = float("inf")
    messages: Counter[str] = field(default_factory=Counter)  # websocket messages got inside the window, by type

    def heard(self, at: float, head: str) -> None:
        if self.window[0] <= at <= self.window[1]:
            match = TYPE.match(head)
            self.messages[match.group(1) if match else "?"] += 1

    def record(self, latency: float, at: float) -> None:
        if self.window[0] <= at <= self.window[1]:
            self.latencies.append(latency)
            self.completed += 1

    def error(self, kind: str) -> None:
        self.errors[kind] += 1


def choose(state: dict[str, Any]) -> dict[str, Any] | None:
    """A quick, legal way through a turn: roll, hold the most common face, roll again, score the best box."""
    if state.get("status") != "playing" or not state.get("turn"):
        return None
    turn = state["turn"]
    if turn["rolls_used"] == 0:
        return {"type": "roll"}
    if turn["rolls_left"] > 0:
        dice = turn["dice"]
        face = Counter(dice).most_common(1)[0][0]
        held = [i for i, d in enumerate(dice) if d == face]
        if len(held) < 5:
            if held != turn["held"]:
                return {"type": "hold", "held": held}
            return {"type": "roll"}
    legal = [o for o in state["options"] if o["legal"]]
    best = max(legal, key=lambda o: (o["points"] + o["bonus"], -o["column"]))
    return {"type": "score", "box": best["box"], "column": best["column"]}


class Player:
    """One websocket; ``seats`` comes from the server's ``you`` frame (game rooms only)."""

    def __init__(self, room: Room, index: int, url: str, origin: str, session: str) -> None:
        self.room, self.index, self.url, self.origin, self.session = room, index, url, origin, session
        self.seats: list[int] = []
        self.conn: ClientConnection | None = None
        self.reader: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()

    async def connect(self) -> None:
        headers = {"Cookie": f"sessionid={self.session}"} if self.session else {}
        self.conn = await connect(
            self.url,
            origin=self.origin,  # type: ignore[arg-type]
            additional_headers=headers,
            compression=None,
            max_size=2**22,
            max_queue=None,
            open_timeout=30,
            ping_interval=None,
        )
        self.reader = asyncio.create_task(self._read())
        if self.room.bare:
            self.ready.set()
        await asyncio.wait_for(self.ready.wait(), 30)

    async def _read(self) -> None:
        assert self.conn is not None
        room = self.room
        try:
            async for text in self.conn:
                now = time.perf_counter()
                assert isinstance(text, str)
                head = text[:24].replace('": "', '":"', 1)
                room.tally.heard(now, head)
                if head.startswith('{"type":"state"'):
                    match = VERSION.search(text, 0, 200)
                    if match is None:
                        room.tally.error("state frame without a version")
                        continue
                    room.on_state(self, int(match.group(1)), now, text)
                    self.ready.set()
                elif head.startswith('{"type":"error"'):
                    room.tally.error(f"error frame: {json.loads(text).get('code')}")
                elif head.startswith('{"type":"you"'):
                    self.seats = json.loads(text)["seats"]
        except Exception as exc:  # noqa: BLE001 - a dropped socket is an error of the run
            if not room.closing:
                room.tally.error(f"socket: {type(exc).__name__}")
        finally:
            if not room.closing:
                room.tally.error("socket closed by the server")

    async def send(self, frame: dict[str, Any]) -> None:
        assert self.conn is not None
        try:
            await self.conn.send(json.dumps(frame))
        except Exception as exc:  # noqa: BLE001 - counted, the run goes on
            if not self.room.closing:
                self.room.tally.error(f"send: {type(exc).__name__}")

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()
        if self.reader is not None:
            await asyncio.gather(self.reader, return_exceptions=True)


class Room:
    """The sockets of one room. Game rooms play real Yahtzee; bare rooms drive /ws/bench/."""

    def __init__(self, name: str, *, bare: bool, tally: Tally, closed_loop: bool, pad: int = 0) -> None:
        self.name, self.bare, self.tally, self.closed_loop, self.pad = name, bare, tally, closed_loop, pad
        self.players: list[Player] = []
        self.copies: dict[int, int] = {}  # version -> sockets that have it
        self.sent_at: dict[int, float] = {}  # version an action was sent for -> when
        self.latest_version = -1
        self.latest_text = ""
        self.next_seat = 0  # who is expected to act next (checked against the state when it matters)
        self.acting_for = -1  # the version the room last acted on
        self.finished = False
        self.closing = False
        self.actions = 0

    def owner(self, seat: int) -> Player:
        return next(p for p in self.players if seat in p.seats)

    def on_state(self, player: Player, version: int, now: float, text: str) -> None:
        if version > self.latest_version:
            self.latest_version, self.latest_text = version, text
        copies = self.copies[version] = self.copies.get(version, 0) + 1
        if copies == len(self.players):
            del self.copies[version]
            sent = self.sent_at.pop(version - 1, None)
            if sent is not None:
                self.tally.record(now - sent, now)
        if self.acting_for < 0 or not self.closed_loop or self.finished:
            return
        if version != self.latest_version or version <= self.acting_for:
            return
        if self.bare:
            if player.index == version % len(self.players):
                self.act_bare(player, version, now)
        elif self.next_seat in player.seats or copies == len(self.players):
            # The expected player parses the state; if the guess was wrong, the last copy does.
            self.act_game(json.loads(text), now)

    def act_bare(self, player: Player, version: int, now: float) -> None:
        self.acting_for = version
        self.sent_at[version] = now
        self.actions += 1
        asyncio.get_running_loop().create_task(player.send({"type": "act", "version": version, "pad": self.pad}))

    def act_game(self, state: dict[str, Any], now: float) -> None:
        version = state["version"]
        frame = choose(state)
        if frame is None:
            if not self.finished:
                self.finished = True
                self.tally.first_finish = min(self.tally.first_finish, now)
            return
        seat = state["turn"]["seat"]
        self.acting_for = version
        self.next_seat = (seat + 1) % len(state["seats"]) if frame["type"] == "score" else seat
        frame.update(version=version, id=f"{self.name}-{version}")
        self.sent_at[version] = time.perf_counter()
        self.actions += 1
        asyncio.get_running_loop().create_task(self.owner(seat).send(frame))

    def begin(self) -> None:
        """The host starts the game (or the first bare action goes out); the room acts from then on."""
        now = time.perf_counter()
        if self.bare:
            self.act_bare(self.players[0], max(self.latest_version, 0), now)
            return
        host = self.owner(0)
        version = self.latest_version
        self.acting_for, self.next_seat = version, 0
        self.sent_at[version] = now
        self.actions += 1
        asyncio.get_running_loop().create_task(host.send({"type": "start", "version": version, "id": f"{self.name}-s"}))

    def tick(self) -> None:
        """Open loop: act now on the latest state, unless the last action has not come back yet."""
        if self.finished or self.latest_version < 0:
            return
        if self.latest_version <= self.acting_for:
            self.tally.late_ticks += 1
            return
        now = time.perf_counter()
        if self.bare:
            self.act_bare(self.players[self.latest_version % len(self.players)], self.latest_version, now)
        else:
            self.act_game(json.loads(self.latest_text), now)

    def stalled(self, now: float) -> bool:
        return any(now - sent > STALL_SECONDS for sent in self.sent_at.values())

    async def close(self) -> None:
        self.closing = True
        await asyncio.gather(*(p.close() for p in self.players), return_exceptions=True)

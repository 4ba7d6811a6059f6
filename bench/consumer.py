"""A bare broadcast socket for bench/load.py: the stack's own ceiling, no game in it.

It does what the room socket does on the hot path (receive a frame, send the room's group
one state-sized frame with an event in it, forward what the group sends as it is) with no
rules, no database and no checks, so ``bench/load.py`` can put the game's throughput
beside what Channels and the ASGI server manage on the same server, rooms and sockets. Routed at
``/ws/bench/<room>/`` only with BENCH_ENDPOINTS=1 (games/realtime/routing.py, which imports it from
here: bench/load.py starts its servers with the checkout on PYTHONPATH).
"""

from __future__ import annotations

import json
import re
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer

from games.domain import errors

MAX_PAD = 16_384


class BenchConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        room = re.sub(r"[^A-Za-z0-9_-]", "", self.scope["url_route"]["kwargs"]["room"])[:64]
        self.group = f"bench.{room or 'room'}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """``{"type": "act", "version": N, "pad": BYTES}``: the room gets version N + 1."""
        try:
            frame = json.loads(text_data or "")
            version = int(frame["version"]) + 1
            pad = min(max(int(frame.get("pad", 0)), 0), MAX_PAD)
        except (ValueError, TypeError, KeyError):
            await self.send(text_data=json.dumps({"type": "error", "code": errors.BAD_FRAME}))
            return
        # One message per action and socket, as the game's (games/realtime/broadcast.py).
        state = {"type": "state", "code": self.group, "version": version, "pad": "x" * pad, "event": {"type": "rolled"}}
        frames = [json.dumps(state)]
        await self.channel_layer.group_send(self.group, {"type": "room.frames", "frames": frames})

    async def room_frames(self, message: dict[str, Any]) -> None:
        for text in message["frames"]:
            await self.send(text_data=text)

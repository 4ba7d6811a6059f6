"""The ASGI lifespan of a serving process: what runs beside the requests while it serves.

uvicorn (yahtzee.serve) sends ``lifespan.startup`` before it accepts a connection and
``lifespan.shutdown`` when it stops; the process's scheduler (games.scheduling) runs
between the two. Channels' router knows no lifespan scope, so it is answered here.
"""

from __future__ import annotations

import logging
from typing import Any

from games import scheduling

log = logging.getLogger(__name__)

Scope = dict[str, Any]


class Lifespan:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    scheduling.start()
                except Exception as error:
                    log.exception("the scheduler did not start")
                    await send({"type": "lifespan.startup.failed", "message": str(error)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await scheduling.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return

"""The ASGI lifespan of a serving process: what runs beside the requests while it serves.

uvicorn (yahtzee.serve) sends ``lifespan.startup`` before it accepts a connection and
``lifespan.shutdown`` when it stops. At start the process compares itself with the other
serving processes of the database (games.services.processes) and refuses to serve when they cannot
work together (different secret keys, several on the in-memory layer); then its
scheduler (games.scheduling) runs until the end. Channels' router knows no lifespan
scope, so it is answered here.
"""

from __future__ import annotations

import logging
from typing import Any

from games import scheduling
from games.realtime.threads import db_async
from games.services import processes
from games.services.processes import ORIGIN

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
                    found = await db_async(processes.enter)(ORIGIN)
                    if found:
                        raise RuntimeError("refusing to serve: " + " ".join(found))
                    scheduling.start(serving=ORIGIN)
                except Exception as error:
                    log.error("%s", error)
                    await send({"type": "lifespan.startup.failed", "message": str(error)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await scheduling.stop()
                try:
                    await db_async(processes.leave)(ORIGIN)
                except Exception:
                    log.exception("could not say this process stops serving")
                await send({"type": "lifespan.shutdown.complete"})
                return

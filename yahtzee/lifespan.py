"""The ASGI lifespan of a serving process: what runs beside the requests while it serves.

uvicorn (yahtzee.serve) sends ``lifespan.startup`` before it accepts a connection and
``lifespan.shutdown`` when it stops. At start the process compares itself with the other
serving processes of the database (games.services.processes) and refuses to serve when they cannot
work together (different secret keys, several on the in-memory layer); then its
scheduler (games.scheduling) runs until the end. Channels' router knows no lifespan
scope, so it is answered here.

Daphne (and ``manage.py runserver``, which is Daphne) sends no lifespan events: there the
same start is made at the process's first connection, before it is served, and a refusal
answers every request with 503. Without it such a process swept no rooms: a deadline stored
before it started, or passed while it had no timer for the room, was never applied. No
supervisor restarts a process that stays up answering 503, so a refusal is reconsidered
once the rows that caused it may have aged out (``processes.LIVE``); and since no lifespan
shutdown comes either, the process says it stops serving at its exit.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import time
from typing import Any

from games import scheduling
from games.realtime.threads import db_async
from games.services import processes
from games.services.processes import ORIGIN

log = logging.getLogger(__name__)

Scope = dict[str, Any]


class Refused(Exception):
    """This process must not serve beside the others (games.services.processes.problems)."""


async def startup() -> None:
    """Before serving: this process compared with the other serving processes, then its scheduler started."""
    found = await db_async(processes.enter)(ORIGIN)
    if found:
        raise Refused("refusing to serve: " + " ".join(found))
    scheduling.start(serving=ORIGIN)


class Lifespan:
    # A connection that comes before any lifespan event starts the process (see the module's
    # docstring). The test process turns it off: it is no server, and its in-process
    # connections run on event loops that end with each test.
    start_at_first_connection = True
    # A process started by a connection deletes its row at exit (no lifespan shutdown will). The test
    # process turns it off: at its exit its test database is gone.
    leave_at_exit = True

    def __init__(self, app: Any) -> None:
        self.app = app
        self._started: asyncio.Future[None] | None = None  # the start, by the lifespan or a first connection
        self.refusal = ""
        self._refused_at = 0.0  # time.monotonic() of the refusal
        self._leaves_at_exit = False

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if self.start_at_first_connection:
            await self._start_here()
        if self.refusal:
            await _refuse(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self._started = started = asyncio.get_running_loop().create_future()
                try:
                    await startup()
                except Exception as error:
                    log.error("%s", error)
                    await send({"type": "lifespan.startup.failed", "message": str(error)})
                    return
                finally:
                    started.set_result(None)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await scheduling.stop()
                try:
                    await db_async(processes.leave)(ORIGIN)
                except Exception:
                    log.exception("could not say this process stops serving")
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _start_here(self) -> None:
        """No lifespan events: the start, made once, by the first connection (the others wait for it).

        It runs in a task of its own: a connection cancelled meanwhile (Daphne cancels one whose
        client left long ago) leaves it to finish, not the process unstarted.
        """
        if self.refusal and time.monotonic() - self._refused_at >= processes.LIVE.total_seconds():
            # The process whose row made it refuse may be gone (a predecessor that never said it
            # stopped): asked again, as a supervisor restarting a refused uvicorn worker would.
            self._started, self.refusal = None, ""
        if self._started is None:
            self._started = asyncio.ensure_future(self._start())
        started = self._started
        if not started.done():
            await asyncio.shield(started)

    async def _start(self) -> None:
        if self.leave_at_exit and not self._leaves_at_exit:
            self._leaves_at_exit = True
            atexit.register(leave)
        try:
            await startup()
        except Refused as error:
            log.error("%s (asked again at a connection %.0f s from now)", error, processes.LIVE.total_seconds())
            self.refusal, self._refused_at = str(error), time.monotonic()
        except Exception:
            # The database away, say: this connection is served as it can be, and the next one tries again.
            log.exception("could not start serving: trying again at the next connection")
            self._started = None


def leave() -> None:
    """At the exit of a process started by a connection: its row deleted, so that a process started
    within ``processes.LIVE`` (a redeployed worker) does not take it for one still serving."""
    try:
        processes.leave(ORIGIN)
    except Exception:
        log.exception("could not say this process stops serving")


async def _refuse(scope: Scope, receive: Any, send: Any) -> None:
    """A process that refused to serve answers nothing else (its log says why)."""
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 503, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"This server process refuses to serve: its log says why.\n"})
    elif scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.close", "code": 1011})

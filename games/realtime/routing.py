"""Websocket routes."""

from typing import Any

from django.conf import settings
from django.urls import path, re_path

from games.domain.protocol import CLOSE_NO_ROOM
from games.realtime.consumer import RoomConsumer, refuse


async def no_route(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A socket to an address that is no room's: refused as for a code of no room (4404,
    ``games.realtime.consumer.refuse``).

    Channels' router raises for an address none of its routes matches, which anyone can open:
    the client got an HTTP 500 and the log an error with its traceback each time.
    """
    await receive()  # websocket.connect
    await refuse(send, CLOSE_NO_ROOM)


websocket_urlpatterns = [
    path("ws/rooms/<str:code>/", RoomConsumer.as_asgi()),
]

if settings.BENCH_ENDPOINTS:  # bench/load.py's bare broadcast socket, never in production
    # bench/ is not installed with the server: bench/load.py starts it with the checkout on PYTHONPATH.
    from bench.consumer import BenchConsumer

    websocket_urlpatterns.append(path("ws/bench/<str:room>/", BenchConsumer.as_asgi()))

# Last: whatever no route above takes. Django's stubs type a route's view as an HTTP one; Channels'
# router takes any ASGI application.
websocket_urlpatterns.append(re_path(r"", no_route))  # type: ignore[arg-type]

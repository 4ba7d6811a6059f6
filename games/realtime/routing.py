"""Websocket routes."""

from django.conf import settings
from django.urls import path

from games.realtime.consumer import RoomConsumer

websocket_urlpatterns = [
    path("ws/rooms/<str:code>/", RoomConsumer.as_asgi()),
]

if settings.BENCH_ENDPOINTS:  # bench/load.py's bare broadcast socket, never in production
    # bench/ is not installed with the server: bench/load.py starts it with the checkout on PYTHONPATH.
    from bench.consumer import BenchConsumer

    websocket_urlpatterns.append(path("ws/bench/<str:room>/", BenchConsumer.as_asgi()))

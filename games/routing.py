"""Websocket routes."""

from django.conf import settings
from django.urls import path

from games.consumers import RoomConsumer

websocket_urlpatterns = [
    path("ws/rooms/<str:code>/", RoomConsumer.as_asgi()),
]

if settings.BENCH_ENDPOINTS:  # bench/load.py's bare broadcast socket, never in production
    from games.bench_consumer import BenchConsumer

    websocket_urlpatterns.append(path("ws/bench/<str:room>/", BenchConsumer.as_asgi()))

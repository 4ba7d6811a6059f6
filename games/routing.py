"""Websocket routes (the room consumer arrives with the realtime work)."""

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []

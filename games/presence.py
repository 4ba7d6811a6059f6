"""Who is connected to a room, across server processes (reads and the Presence rows)."""

from __future__ import annotations

import json
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from games.models import Game, Presence
from games.selectors import game_state, seats_of

# A socket that has not pinged for this long (its process died) counts as away.
PRESENCE_TIMEOUT = timedelta(seconds=60)


def _frame(game: Game) -> str:
    cutoff = timezone.now() - PRESENCE_TIMEOUT
    rows = list(Presence.objects.filter(game=game, seen_at__gte=cutoff).values_list("seats", flat=True))
    connected = sorted({seat for seats in rows for seat in seats})
    seats = {str(i): ("connected" if i in connected else "away") for i in range(len(game.snapshot["seats"]))}
    return json.dumps({"type": "presence", "seats": seats, "spectators": sum(1 for seats in rows if not seats)})


def arrive(code: str, channel_name: str, controller: str) -> tuple[str, str, str] | None:
    """Record a new socket; its first frames (you, state, presence), or None for an unknown room."""
    game = Game.objects.filter(code=code).first()
    if game is None:
        return None
    mine = seats_of(game, controller)
    with transaction.atomic():
        Presence.objects.update_or_create(
            channel_name=channel_name, defaults={"game": game, "seats": mine, "seen_at": timezone.now()}
        )
    you = json.dumps({"type": "you", "seats": mine})
    return you, json.dumps(game_state(game)), _frame(game)


def leave(code: str, channel_name: str) -> str | None:
    Presence.objects.filter(channel_name=channel_name).delete()
    game = Game.objects.filter(code=code).first()
    return _frame(game) if game is not None else None


def seen(code: str, channel_name: str) -> int | None:
    """Refresh this socket's presence; the room's current version (None for an unknown room)."""
    Presence.objects.filter(channel_name=channel_name).update(seen_at=timezone.now())
    return Game.objects.filter(code=code).values_list("version", flat=True).first()


def state_text(code: str) -> str:
    return json.dumps(game_state(Game.objects.get(code=code)))

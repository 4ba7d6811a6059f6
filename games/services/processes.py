"""The serving processes of one site, compared with each other: the operator traps no single worker sees.

- Workers with different ``SECRET_KEY`` s: a player seated through one worker is a stranger
  (a spectator) on the next.
- Several workers on the in-memory channel layer (no ``REDIS_URL``): a room's frames never
  reach the sockets on another worker (a guest never sees the game start) and every
  per-process limit counts apart.
- Workers on different channel layers: the same, between the two groups.

Each serving process writes a row (``ServingProcess``) when it starts and refreshes it
while it serves (the scheduler's beat). A starting process compares itself with the
processes that are live (seen within ``LIVE``, and, on the same host, still running) and
refuses to serve on a mismatch (yahtzee.lifespan); a running one that sees a new mismatch
logs it as an error at every refresh.
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import uuid
from datetime import timedelta
from urllib.parse import urlsplit

from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.utils import timezone

from games.store.models import Presence, ServingProcess

log = logging.getLogger(__name__)

ORIGIN = uuid.uuid4().hex  # this process, among the site's processes (relayed messages, Presence rows)
LIVE = timedelta(seconds=20)
# A process not heard from for this long is dead: its sockets' Presence rows are deleted and
# their rooms told. Its rows are refreshed every few seconds (the scheduler's beat); one on
# this host whose pid is gone is dead at once.
DEAD_AFTER = timedelta(seconds=15)
FORGET = timedelta(days=1)  # rows of processes gone this long are deleted
HOST = socket.gethostname()


def key_fingerprint() -> str:
    """Enough of a hash of the secret key to compare two workers' keys, and nothing to recover it from."""
    return hashlib.sha256(b"yahtzee-key-fingerprint:" + settings.SECRET_KEY.encode()).hexdigest()[:16]


def layer_name() -> str:
    """The channel layer, as workers that share rooms must share it ("memory": one process's own)."""
    layer = get_channel_layer()
    if layer is None or isinstance(layer, InMemoryChannelLayer):
        return "memory"
    parts = urlsplit(settings.REDIS_URL)
    return f"{type(layer).__name__} {parts.hostname}:{parts.port or 6379}{parts.path or '/0'}"


def _alive(row: ServingProcess) -> bool:
    if row.host != HOST:
        return True  # seen recently: trusted to be up
    if row.pid == os.getpid():
        return False  # this process's own earlier life (a container restarted with the same pid)
    try:
        os.kill(row.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def problems(origin: str) -> list[str]:
    """What is wrong between this process and the other live ones (empty: nothing)."""
    now = timezone.now()
    others = [
        row for row in ServingProcess.objects.filter(seen_at__gte=now - LIVE).exclude(origin=origin) if _alive(row)
    ]
    found: list[str] = []
    if any(row.key_fingerprint != key_fingerprint() for row in others):
        found.append(
            "another serving process of this database uses a different SECRET_KEY: a player seated through "
            "one worker is a spectator on the other. Give every worker the same SECRET_KEY."
        )
    layer = layer_name()
    if others and (layer == "memory" or any(row.layer == "memory" for row in others)):
        found.append(
            "several processes serve this database with the in-memory channel layer: a room's frames never "
            "reach the sockets on another process, and limits count apart. Set REDIS_URL on every worker, "
            "or run one process."
        )
    elif any(row.layer != layer for row in others):
        found.append(
            f"serving processes of this database relay rooms on different channel layers ({layer} here, "
            f"{sorted({row.layer for row in others} - {layer})} elsewhere): give every worker the same REDIS_URL."
        )
    return found


def enter(origin: str) -> list[str]:
    """This process starts serving: its row written; what is wrong with the others (refuse to serve if any)."""
    now = timezone.now()
    ServingProcess.objects.filter(seen_at__lt=now - FORGET).delete()
    found = problems(origin)
    ServingProcess.objects.update_or_create(
        origin=origin,
        defaults={
            "host": HOST,
            "pid": os.getpid(),
            "key_fingerprint": key_fingerprint(),
            "layer": layer_name(),
            "started_at": now,
            "seen_at": now,
        },
    )
    return found


def seen(origin: str) -> tuple[list[str], list[str], set[str]]:
    """Still serving (the scheduler's beat): the row refreshed; what is wrong now, the rooms
    whose presence changed because a process died (its sockets' rows deleted), and the other
    processes serving now (their origins: a new one is a worker that started)."""
    now = timezone.now()
    if not ServingProcess.objects.filter(origin=origin).update(seen_at=now):
        enter(origin)  # taken for dead while it stalled: it is back
    others = list(ServingProcess.objects.exclude(origin=origin))
    dead = [row.origin for row in others if row.seen_at < now - DEAD_AFTER or not _alive(row)]
    serving = {row.origin for row in others} - set(dead)
    rooms: list[str] = []
    if dead:
        gone = Presence.objects.filter(origin__in=dead)
        rooms = sorted(set(gone.values_list("game__code", flat=True)))
        gone.delete()
        ServingProcess.objects.filter(origin__in=dead).delete()
        log.warning("%d serving processes stopped without a word: their sockets left %d rooms", len(dead), len(rooms))
    return problems(origin), rooms, serving


def leave(origin: str) -> None:
    ServingProcess.objects.filter(origin=origin).delete()

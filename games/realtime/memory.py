"""Memory back to the system after many sockets went: glibc's ``malloc_trim``, now and then.

Sockets that never read in busy rooms grow a worker by their unsent frames, and without a
trim it does not shrink after they go: the frames are freed, but glibc's malloc keeps
freed memory in its heaps for the next allocation instead of giving it back, and the
worker's RSS stays at its peak. ``malloc_trim(0)`` gives the free pages of every
heap back. No ``gc.collect()`` runs first: a full collection holds the GIL, and on a
worker with 8,000 sockets it stops the event loop for about 170 ms (docs/performance.md); the
cycles a closed socket leaves go at the collector's own pace. It is asked for a few
seconds after ``MEMORY_TRIM_AFTER_CLOSES`` sockets have closed (refused ones included: a
storm leaves freed memory too), at most once per ``TRIM_DELAY`` seconds, in a thread of
its own (it takes a few milliseconds with the heaps locked). Off with
``MEMORY_TRIM_AFTER_CLOSES=0``; a no-op where the C library is not glibc (musl, macOS).
Figures: docs/security.md ("Measured: bench/abuse.py").
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import platform
from collections.abc import Callable

from django.conf import settings

from games.realtime.transport import Trigger, current

__all__ = ["Trigger", "malloc_trim", "socket_closed"]

log = logging.getLogger(__name__)

TRIM_DELAY = 5.0  # seconds after the closes that ask for a trim: the rest of a burst goes first


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None under another C library."""
    if platform.libc_ver()[0] != "glibc":
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


malloc_trim = _malloc_trim()


def socket_closed() -> None:
    """A websocket ended (on the event loop): schedule a trim if enough of them have."""
    if malloc_trim is None or not current().trim.closed(settings.MEMORY_TRIM_AFTER_CLOSES):
        return
    asyncio.get_running_loop().call_later(TRIM_DELAY, _start_trim)


def _start_trim() -> None:
    trimming = asyncio.get_running_loop().run_in_executor(None, trim)
    trimming.add_done_callback(_trimmed)


def trim() -> int:
    """In a thread: give the free pages back (no ``gc.collect()`` first: it holds the GIL, and
    with 2 million objects it stopped the event loop for 167 ms of its 180)."""
    assert malloc_trim is not None
    return malloc_trim(0)


def _trimmed(future: asyncio.Future[int]) -> None:
    current().trim.trimmed()
    if not future.cancelled() and future.exception() is not None:
        log.warning("malloc_trim failed", exc_info=future.exception())

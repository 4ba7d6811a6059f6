"""Values worked out from immutable objects, kept by the objects' identity.

A room's next state shares every part an action did not change with the state before (its
Scorecards, say), so what is worked out from such a part can be kept for the part itself
and found again by ``id`` alone, without hashing or comparing it. Pure: the standard library
only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class KeptByIdentity(Generic[V]):
    """At most ``size`` values, each under a key made of objects' ids; the least recently used go first.

    An entry holds the objects its key names, so their ids are not reused while it is kept. A
    value is shared by every caller that asks with the same key: callers read it, never
    change it. Safe to use from several threads (the database threads).
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[Hashable, tuple[object, V]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable, holds: object, make: Callable[[], V]) -> V:
        """The value kept under ``key`` (the ids of ``holds``, and plain values), else ``make()``, kept."""
        with self._lock:
            kept = self._entries.get(key)
            if kept is not None:
                self._entries.move_to_end(key)
                return kept[1]
        made = make()
        with self._lock:
            self._entries[key] = (holds, made)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return made

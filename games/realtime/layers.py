"""The Redis pub/sub channel layer, made to survive Redis restarting.

channels-redis 4.3's pub/sub layer loses its subscriptions when its connection to Redis
drops: after Redis comes back, publishing works again but nothing that was subscribed is
received, so every socket that stayed open on a process silently stops hearing its room
(tests/e2e/test_faults.py shows it). This subclass notices the loss in its receive loop
and, once Redis answers again, subscribes a fresh connection to everything it had.

Messages published while Redis was away are gone; each state frame is a full snapshot,
so the next action's broadcast (or a ``sync`` from the client) brings a socket up to date.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer, RedisPubSubLoopLayer, RedisSingleShardConnection
from channels_redis.utils import _wrap_close

from games.realtime.transport import current

log = logging.getLogger(__name__)


class ResubscribingShardConnection(RedisSingleShardConnection):
    lost = False
    _pubsub: Any  # channels-redis's own attributes (it has no type information)
    _subscribed_to: set[str]

    async def _do_receiving(self) -> None:
        while True:
            try:
                if self.lost:
                    async with self._lock:
                        await self._resubscribe()
                if self._pubsub and self._pubsub.subscribed:
                    message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=0.1)
                    self._receive_message(message)
                else:
                    await asyncio.sleep(0.1)
            except (TimeoutError, asyncio.CancelledError, GeneratorExit):
                raise
            except Exception as exc:  # noqa: BLE001 - Redis away: try again in a moment
                if not self.lost:
                    log.warning("Redis pub/sub connection lost (%s); resubscribing when it is back", exc)
                self.lost = True
                await asyncio.sleep(0.2)

    async def publish(self, channel: str, message: bytes) -> None:
        async with self._lock:
            self._ensure_redis()
            if self.lost:  # this process hears its rooms again before it speaks to them
                await self._resubscribe()
            await self._redis.publish(channel, message)

    async def _resubscribe(self) -> None:
        """Under the lock: a fresh pub/sub connection subscribed to everything the old one had."""
        self._ensure_redis()
        old, self._pubsub = self._pubsub, self._redis.pubsub()
        with contextlib.suppress(Exception):
            await old.aclose()
        if self._subscribed_to:
            await self._pubsub.subscribe(*self._subscribed_to)
        self.lost = False
        log.warning("Redis pub/sub connection is back: %d channels subscribed again", len(self._subscribed_to))
        for listener in current().resubscribed:
            try:
                listener()
            except Exception:
                log.exception("a resubscription listener failed")


class ResubscribingLoopLayer(RedisPubSubLoopLayer):
    _shards: list[RedisSingleShardConnection]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shards = [ResubscribingShardConnection(shard.host, self) for shard in self._shards]


class ResubscribingPubSubChannelLayer(RedisPubSubChannelLayer):
    def _get_layer(self) -> RedisPubSubLoopLayer:
        loop = asyncio.get_running_loop()
        try:
            return self._layers[loop]
        except KeyError:
            layer = self._layers[loop] = ResubscribingLoopLayer(*self._args, **self._kwargs, channel_layer=self)
            _wrap_close(self, loop)
            return layer

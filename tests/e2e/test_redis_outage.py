"""Redis going away and coming back, on both channel layers: play goes on, health and relays recover.

While Redis is down a worker still opens sockets and plays its rooms locally (the relay
to other workers is what is lost); when Redis is back, ``/healthz`` says so, and the
sockets on other workers are brought up to date at once rather than at their next ping.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import urllib.error
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_faults import RedisServer, env_for, redis_server, two_workers  # noqa: F401 - a fixture
from tests.live import Browser, ServerProcess, scratch_database, start_together

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.asyncio]


@pytest.fixture(scope="module")
def database_url() -> Iterator[str]:
    with scratch_database(os.environ["DATABASE_URL"]) as url:
        yield url


async def degraded_within(url: str, degraded: list[str], seconds: float) -> bool:
    """Whether ``/healthz`` says, within ``seconds``, that exactly ``degraded`` is degraded."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if json.loads(Browser(url).get("/healthz"))["degraded"] == degraded:
                return True
        except (urllib.error.HTTPError, OSError):
            pass
        await asyncio.sleep(0.1)
    return False


@pytest.mark.parametrize("layer", ["pubsub", "core"])
async def test_play_goes_on_without_redis_and_everything_recovers_when_it_returns(
    database_url: str,
    tmp_path: Path,
    redis_server: RedisServer,  # noqa: F811
    layer: str,
) -> None:
    env = env_for(database_url, tmp_path, REDIS_URL=redis_server.url, CHANNEL_LAYER=layer, PING_WRITE_SECONDS="1")
    one, two = start_together([ServerProcess(env, log_dir=tmp_path), ServerProcess(env, log_dir=tmp_path)])
    ann = Browser(one.url)
    code = ann.create_room("Ann")
    player = await ann.socket(code).connect()
    watcher = await Browser(two.url).socket(code).connect()
    sockets = [player, watcher]
    async with two_workers(one, two, sockets):
        version = player.version
        redis_server.kill()
        # The workers stay in the proxy's rotation: they can serve, with the relay reported down
        # once each one's layer has found Redis gone (its connections are reset).
        for server in (one, two):
            assert await degraded_within(server.url, ["channel_layer"], 10)
            health = json.loads(Browser(server.url).get("/healthz"))
            assert health["ok"] and health["degraded"] == ["channel_layer"], health
        # Open sockets stay open through what the workers did about it.
        assert not player.closed and not watcher.closed
        # A new socket still opens, and a worker still plays its own rooms.
        late = await Browser(one.url).socket(code).connect(timeout=10)
        sockets.append(late)
        await player.send({"type": "start"})
        await player.wait_version(version + 1)
        await late.wait_version(version + 1)
        assert watcher.version == version  # the relay to the other worker is what is lost

        redis_server.start()
        for server in (one, two):
            assert await degraded_within(server.url, [], 20), server.log()  # nothing degraded any more
        # The other worker's socket catches up without asking (no ping, no sync sent).
        await watcher.wait_version(version + 1, timeout=15)
        await player.send({"type": "roll"})
        await watcher.wait_version(version + 2, timeout=10)  # and relays flow again

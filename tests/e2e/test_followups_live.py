"""A finished game's follow-ups (records, stats, rating) survive the death of the process that ended it.

The last score's transaction stores them as owed (``Game.followups_owed``); the scheduler of
whichever process comes up completes them, exactly once. Here the only server is killed
(SIGKILL) 0 to 500 ms after the last score's state reached the player (committed, the
follow-ups under way or not yet begun), then started again.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
import uuid
from pathlib import Path

import pytest

from tests.live import Browser, ServerProcess, Table, best_option, migrate_sqlite, server_env

pytestmark = pytest.mark.asyncio


def counted(database: Path, code: str) -> tuple[int, int, bool]:
    """(CountedGame rows, GameRecord rows, still owed) for the room."""
    with sqlite3.connect(database) as conn:
        (game_id, owed) = conn.execute("SELECT id, followups_owed FROM games_game WHERE code = ?", [code]).fetchone()
        rows = conn.execute("SELECT COUNT(*) FROM accounts_countedgame WHERE game_id = ?", [game_id]).fetchone()[0]
        records = conn.execute("SELECT COUNT(*) FROM accounts_gamerecord WHERE game_id = ?", [game_id]).fetchone()[0]
    return rows, records, bool(owed)


@pytest.mark.parametrize("delay", [0.05, 0.4])
async def test_a_game_ended_just_before_its_process_is_killed_is_counted_once(delay: float, tmp_path: Path) -> None:
    env = server_env(DATA_DIR=str(tmp_path), SECRET_KEY=f"follow-{uuid.uuid4().hex}", WS_RATE_LIMIT="1000")
    for name in ("DATABASE_URL", "REDIS_URL", "CHANNEL_LAYER"):
        env.pop(name, None)
    migrate_sqlite(env)
    database = tmp_path / "yahtzee.sqlite3"
    server = ServerProcess(env, log_dir=tmp_path).start()
    try:
        ann = Browser(server.url)
        code = ann.create_room("Ann")
        sock = await ann.socket(code).connect()
        table = Table([sock])
        await table.act(sock, {"type": "start"})
        while sock.state["turn"]["number"] < 13:
            await table.play_turn(rolls=1)  # how the game is played is not what this tests: a roll and a score
        state = await table.act(sock, {"type": "roll"})
        option = best_option(state)
        await table.act(sock, {"type": "score", "box": option["box"], "column": option["column"]})
        assert sock.state["status"] == "finished"
        await asyncio.sleep(delay)
        server.kill()
        await sock.close()
        server.start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            rows, records, owed = counted(database, code)
            if rows and not owed:
                break
            await asyncio.sleep(0.1)
        assert counted(database, code) == (1, 1, False)
    finally:
        server.stop()

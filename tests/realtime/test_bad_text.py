"""A text frame that is not UTF-8: the socket is closed with 1007 and the log says so in one line."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

from tests.live import Browser, ServerProcess, migrate_sqlite, open_ws, server_env
from yahtzee.serve import ClientsBadText


def test_uvicorns_traceback_for_a_clients_bad_text_becomes_one_warning_line() -> None:
    try:
        b"\xff".decode()
    except UnicodeDecodeError:
        import sys

        record = logging.LogRecord(
            "uvicorn.error", logging.ERROR, __file__, 1, "Invalid UTF-8 sequence received from client.", (),
            sys.exc_info(),
        )  # fmt: skip
    assert ClientsBadText().filter(record)
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert "not UTF-8" in record.getMessage()
    other = logging.LogRecord("uvicorn.error", logging.ERROR, __file__, 1, "Exception in ASGI application", (), None)
    assert ClientsBadText().filter(other) and other.levelno == logging.ERROR  # nothing else is touched


@pytest.mark.asyncio
async def test_live_a_frame_that_is_not_utf8_closes_its_socket_1007_without_a_traceback(tmp_path: Path) -> None:
    env = server_env(
        DATA_DIR=str(tmp_path), SECRET_KEY="bad-text-" + "x" * 50, BOT_TABLES_AT_START="0", LOG_LEVEL="INFO"
    )
    for name in ("DATABASE_URL", "REDIS_URL", "CACHE_URL"):
        env.pop(name, None)
    migrate_sqlite(env)
    server = ServerProcess(env, log_dir=tmp_path).start(timeout=60)
    try:
        browser = Browser(server.url)
        code = browser.create_room("Ann")
        ws = await open_ws(server, code, browser.cookie("sessionid"))
        await ws.recv()
        await ws.send(b'{"type": "chat", "text": "\xff\xfe"}', text=True)
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                try:
                    await asyncio.wait_for(ws.recv(), 10)
                except TimeoutError:
                    pytest.fail("the socket is still open 10 s after a frame that is not UTF-8")
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007
        # The room still answers others.
        assert browser.state(code)["version"] >= 0
    finally:
        server.stop()
    log = server.log()
    assert "not UTF-8: its socket is closed (1007)" in log
    assert "Traceback" not in log and "UnicodeDecodeError" not in log

"""yahtzee.serve: the worker's start, without serving."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import uvicorn

from yahtzee import serve


@pytest.fixture(autouse=True)
def _site_url_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """``serve.main`` sets SITE_URL when it is unset: put back as it was after each test."""
    monkeypatch.setenv("SITE_URL", os.environ.get("SITE_URL", ""))
    if not os.environ["SITE_URL"]:
        monkeypatch.delenv("SITE_URL")


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    threshold = gc.get_threshold()
    # uvicorn's Config sets up its logging when made; the test process keeps pytest's.
    with mock.patch.object(uvicorn.Config, "configure_logging"):
        yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_the_worker_imports_the_application_then_freezes_what_it_made_before_serving(
    unfrozen: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GC_FREEZE", raising=False)
    config = serve.config(["--port", "0"])
    with mock.patch.object(uvicorn.Server, "run") as run:
        server = serve.start(config)
    assert isinstance(server, uvicorn.Server) and server.config is config and not run.called
    assert config.loaded and config.loaded_app is not None  # imported before the freeze
    assert gc.get_freeze_count() > 0


def test_gc_freeze_0_leaves_the_start_unfrozen(unfrozen: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GC_FREEZE", "0")
    serve.start(serve.config(["--port", "0"]))
    assert gc.get_freeze_count() == 0


def test_main_serves_the_frozen_start(unfrozen: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GC_FREEZE", raising=False)
    with mock.patch.object(uvicorn.Server, "run") as run:
        serve.main(["--host", "127.0.0.1", "--port", "0"])
    assert run.call_count == 1 and gc.get_freeze_count() > 0


def test_the_worker_sets_the_collectors_thresholds_for_many_short_lived_objects(
    unfrozen: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GC_THRESHOLD", raising=False)
    serve.start(serve.config(["--port", "0"]))
    assert gc.get_threshold() == serve.GC_THRESHOLD == (50_000, 20, 100)
    monkeypatch.setenv("GC_THRESHOLD", "700,10,10")  # Python's own
    serve.start(serve.config(["--port", "0"]))
    assert gc.get_threshold() == (700, 10, 10)


@pytest.mark.parametrize("text", ["fast", "1,2,3,4", "-5", "100,,1"])
def test_a_gc_threshold_that_is_not_numbers_stops_the_start_with_a_message(text: str) -> None:
    with pytest.raises(SystemExit, match="GC_THRESHOLD"):
        serve.gc_threshold(text)


def test_make_runs_start_migrates_in_the_server_process_before_serving(
    unfrozen: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.core import management

    from games.store import tables

    order: list[str] = []

    def call_command(name: str, **options: object) -> None:
        order.append(name if not tables._builder._go.is_set() else f"{name} while the tables build")

    monkeypatch.setattr(management, "call_command", call_command)
    with mock.patch.object(uvicorn.Server, "run", lambda self: order.append("serve")):
        serve.main(["--port", "0", "--migrate"])
    assert order == ["migrate", "serve"] and tables._builder._go.is_set()  # the builds waited, then go on
    order.clear()
    with mock.patch.object(uvicorn.Server, "run", lambda self: order.append("serve")):
        serve.main(["--port", "0"])
    assert order == ["serve"]  # production's workers: the compose file's migrate service migrates


@pytest.mark.parametrize("flag", [True, False])
def test_make_runs_the_task_worker_in_the_server_and_production_workers_do_not(
    unfrozen: None, monkeypatch: pytest.MonkeyPatch, flag: bool
) -> None:
    monkeypatch.setenv("GC_FREEZE", "0")
    with mock.patch.object(uvicorn.Server, "run"), mock.patch("games.services.notices.start_in_process") as start:
        serve.main(["--port", "0", *(["--task-worker"] if flag else [])])
    assert start.call_count == (1 if flag else 0)


def test_make_run_serves_and_prints_localhost_where_passkeys_work() -> None:
    # Browsers refuse passkeys (WebAuthn) on an IP address: the address people are given to
    # open (uvicorn prints the host it was given) is a name.
    root = Path(__file__).resolve().parent.parent
    assert serve.config([]).host == "localhost"
    assert "HOST ?= localhost" in (root / "Makefile").read_text()
    readme = (root / "README.md").read_text()
    assert "serves on http://localhost:8000" in readme and "http://127.0.0.1:8000" not in readme


def test_make_run_on_another_port_links_its_e_mails_and_pushes_to_that_port(tmp_path: Path) -> None:
    # `make run PORT=8120`, SITE_URL unset: the links of the "your turn" e-mails and pushes the
    # server's own task worker sends go to the server that sent them, not to port 8000.
    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_", "DATABASE_URL", "SITE_URL"))}
    env.update(DJANGO_SETTINGS_MODULE="yahtzee.settings", DATA_DIR=str(tmp_path), SECRET_KEY="k" * 50)
    env.update(BOT_TABLES_AT_START="0", GC_FREEZE="0")
    code = (
        "import sys\n"
        "from unittest import mock\n"
        "import uvicorn\n"
        "from yahtzee import serve\n"
        "with mock.patch.object(uvicorn.Server, 'run'):\n"
        "    serve.main(sys.argv[1:])\n"
        "from games.services import notices\n"
        "print(notices.stop_url('push', 1).split('/notices/')[0])\n"
    )

    def linked_to(*args: str) -> str:
        run = subprocess.run([sys.executable, "-c", code, *args], cwd=root, env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr[-2000:]
        return run.stdout.splitlines()[-1]

    assert linked_to("--host", "localhost", "--port", "8120") == "http://localhost:8120"
    assert linked_to("--host", "0.0.0.0", "--port", "8000") == "http://localhost:8000"  # the image's command, alone
    env["SITE_URL"] = "https://yahtzee.example.org/"  # set: kept, whatever the server's port
    assert linked_to("--port", "8120") == "https://yahtzee.example.org"


def test_the_default_site_url_names_the_served_host() -> None:
    assert serve.site_url(serve.arguments([])) == "http://localhost:8000"
    assert serve.site_url(serve.arguments(["--host", "127.0.0.1", "--port", "9000"])) == "http://127.0.0.1:9000"
    assert serve.site_url(serve.arguments(["--host", "::1", "--port", "9000"])) == "http://[::1]:9000"
    assert serve.site_url(serve.arguments(["--host", "::", "--port", "9000"])) == "http://localhost:9000"


def test_the_applications_start_and_home_page_load_no_computer_player_numpy_or_postgresql_driver(
    tmp_path: Path,
) -> None:
    # Every server, scheduler and manage.py process loads the application; these load when a bot
    # plays, a hint is asked for, a push is sent or PostgreSQL is used (about 0.4 s of CPU each).
    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_", "DATABASE_URL"))}
    env.update(DJANGO_SETTINGS_MODULE="yahtzee.settings", DATA_DIR=str(tmp_path), SECRET_KEY="k" * 50)
    env.update(BOT_TABLES_AT_START="0")
    code = (
        "import sys, yahtzee.asgi, bots\n"
        "from games.store import tables\n"
        "assert tables.building() == []\n"  # what the home page asks
        "print(sorted(m for m in ('bots.strategy', 'bots.tables', 'numpy', 'psycopg', 'cryptography', 'pywebpush')"
        " if m in sys.modules))\n"
        "print(bots.ready('official') in (True, False), 'numpy' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[-2:] == ["[]", "True True"]  # and the package's API loads them on first use


def test_proxy_headers_are_honoured_only_behind_the_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    # The image's command asks for them; run on its own (BEHIND_PROXY unset), a client's own
    # X-Forwarded-For must not become the address the rate limits count.
    image = ["--host", "0.0.0.0", "--port", "8000", "--proxy-headers"]
    monkeypatch.delenv("BEHIND_PROXY", raising=False)
    alone = serve.config(image)
    assert not alone.proxy_headers
    seen: dict[str, Any] = {}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.update(scope)

    def client_of(config: uvicorn.Config) -> Any:
        checked = uvicorn.Config(
            app, proxy_headers=config.proxy_headers, forwarded_allow_ips=config.forwarded_allow_ips
        )
        checked.load()
        scope = {
            "type": "http",
            "client": ("198.51.100.20", 40000),
            "scheme": "http",
            "headers": [(b"x-forwarded-for", b"10.9.9.9")],
        }
        asyncio.run(checked.loaded_app(scope, None, None))
        return seen["client"][0]

    assert client_of(alone) == "198.51.100.20"
    monkeypatch.setenv("BEHIND_PROXY", "1")
    behind = serve.config(image)
    assert behind.proxy_headers and client_of(behind) == "10.9.9.9"


# A test process that starts a server and is then killed with SIGKILL (a CI timeout, a hung run
# stopped by hand): the server, in a process group of its own, must not outlive it.
STARTS_AND_WAITS = """
import subprocess, sys, time
from tests.live import dies_with_tests
server = subprocess.Popen(["sleep", "120"], start_new_session=True)
dies_with_tests(server)
print(server.pid, flush=True)
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped by init, counts as gone where /proc says so)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:  # no /proc (macOS): the signal's answer stands
        return True


def test_a_server_a_test_process_started_dies_with_it_even_when_it_is_killed() -> None:
    root = Path(__file__).resolve().parent.parent
    test_process = subprocess.Popen(
        [sys.executable, "-c", STARTS_AND_WAITS], cwd=root, stdout=subprocess.PIPE, text=True
    )
    assert test_process.stdout is not None
    server = int(test_process.stdout.readline())
    try:
        assert _alive(server)
        test_process.send_signal(signal.SIGKILL)
        test_process.wait(10)
        deadline = time.monotonic() + 10
        while _alive(server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(server), "the server outlived the test process that started it"
    finally:
        if _alive(server):
            os.killpg(server, signal.SIGKILL)

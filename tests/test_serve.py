"""yahtzee.serve: the worker's start, without serving."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from unittest import mock

import pytest
import uvicorn

from yahtzee import serve


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    # uvicorn's Config sets up its logging when made; the test process keeps pytest's.
    with mock.patch.object(uvicorn.Config, "configure_logging"):
        yield
    gc.unfreeze()


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

"""The same application under granian (a Rust ASGI server), for ``bench/load.py`` with LIVE_SERVER=granian.

    LIVE_SERVER=granian .venv/bin/python bench/load.py --config sqlite --shape saturated --endpoints game

The bench starts it as ``python -m bench.granian_server --host H --port P`` (tests/live.py).

It is measured, not served: production and ``make run`` serve with uvicorn (yahtzee/serve.py),
whose send queue bounds a client that stops reading (games/realtime/backlog.py reads uvicorn's
transport; granian's ``send`` has none, so under granian the bound is the queue's length alone).

granian's embedded server runs its worker in this process, on this event loop (uvloop, as
uvicorn's), so the bench's CPU figure is one process's, and the application is imported, frozen
and given the collector's thresholds exactly as ``yahtzee.serve.start`` does for uvicorn. granian
is not one of the project's dependencies: ``uv pip install granian`` into the venv first.
"""

from __future__ import annotations

import argparse
import os


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    try:
        import uvloop
        from granian.constants import Interfaces
        from granian.log import LogLevels
        from granian.server.embed import Server
    except ImportError as error:
        raise SystemExit(f"granian is not installed ({error}): .venv/bin/uv pip install granian") from error

    from yahtzee.serve import tune_gc

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yahtzee.settings")
    from yahtzee.asgi import application

    tune_gc()
    server = Server(
        application,
        address=args.host,
        port=args.port,
        interface=Interfaces.ASGI,  # with the lifespan: the process's scheduler runs, as under uvicorn
        websockets=True,
        log_level=LogLevels(os.environ.get("LOG_LEVEL", "INFO").lower()),
        log_access=False,
    )
    uvloop.run(server.serve())


if __name__ == "__main__":
    main()

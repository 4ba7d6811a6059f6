"""A worker's server: uvicorn with uvloop, httptools and websockets (sans-I/O), with this project's settings.

    python -m yahtzee.serve --host 0.0.0.0 --port 8000 --proxy-headers   # the Docker image's command
    python -m yahtzee.serve                                               # localhost:8000
    python -m yahtzee.serve --migrate --task-worker                       # make run: migrates first, runs the tasks too

Production workers (Dockerfile), ``make run`` and the tests' live servers
(``tests.live.ServerProcess``) all start the server through here, so the tests run the
server production runs. Measured against Daphne on the same bench (docs/performance.md),
it costs less server CPU per game action; Daphne stays installed for Django's own tooling
(``runserver``, for which alone its app is in INSTALLED_APPS) and serves the same application (``daphne
yahtzee.asgi:application``). Under either, a socket's outgoing data is bounded by
games/realtime/backlog.py (WS_SEND_BACKLOG), not by the server.

The application is imported before the server starts, and what it made is then frozen
(``gc.freeze()``, unless ``GC_FREEZE=0``): see ``start``.

``--task-worker`` also runs the background tasks (the e-mails and pushes of a turn, a seat the computer
took over or a game's end, games/services/notices.py) in threads of this process, so that ``make run``
needs nothing else; production runs them in their own process (``manage.py notice_worker``, compose's worker).
Unless ``SITE_URL`` is set, they link to the host and port served (``site_url``).
"""

from __future__ import annotations

import argparse
import gc
import logging
import os

import uvicorn

log = logging.getLogger(__name__)

# Frames are at most 4 KiB (games.domain.protocol.MAX_FRAME_BYTES, answered with an error frame);
# a message over this closes the socket before it is ever buffered whole.
WS_MAX_BYTES = 64 * 1024
# Server pings: every 20 s, and a client that has not answered one 20 s later is dropped
# (Daphne: 20 s and 30 s); uvicorn's sans-I/O protocol pings since 0.44. The page pings too.
WS_PING_INTERVAL = 20.0
WS_PING_TIMEOUT = 20.0


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    # By name: it is the address uvicorn prints, and browsers refuse passkeys on 127.0.0.1.
    parser.add_argument("--host", default="localhost")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--proxy-headers",
        action="store_true",
        help="behind the proxy: take the client's address and scheme from X-Forwarded-For/-Proto, from any peer "
        "(the workers are reachable only on the compose network); only with BEHIND_PROXY=1, since a server "
        "reached directly would let every client choose the address its rate limits count",
    )
    parser.add_argument(
        "--migrate",
        action="store_true",
        help="apply the database's migrations before serving, in this process (make run: one Django start, not two)",
    )
    parser.add_argument(
        "--task-worker",
        action="store_true",
        help="also run the background task worker (notices) in this process, as make run does",
    )
    return parser.parse_args(argv)


def site_url(args: argparse.Namespace) -> str:
    """The address e-mails and pushes link to when ``SITE_URL`` is not set: the one this server
    serves at (``make run PORT=8120``: http://localhost:8120), by name for every interface."""
    host = "localhost" if args.host in ("", "0.0.0.0", "::") else args.host
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    return f"http://{host}:{args.port}"


def proxy_headers(args: argparse.Namespace) -> bool:
    """``--proxy-headers``, honoured only with BEHIND_PROXY=1 (as the settings read it).

    The image's command asks for them; run on its own, without the proxy in front, a client's
    own X-Forwarded-For would become the address every per-address limit counts.
    """
    behind = os.environ.get("BEHIND_PROXY", "").strip().lower() in {"1", "true", "yes", "on"}
    if args.proxy_headers and not behind:
        log.warning("--proxy-headers is ignored without BEHIND_PROXY=1: the peer's own address is the client's")
    return bool(args.proxy_headers and behind)


def log_level() -> str:
    """LOG_LEVEL as uvicorn spells it (lower case); one it does not know is left to the settings to refuse."""
    level = os.environ.get("LOG_LEVEL", "").strip().lower()
    return level if level in uvicorn.config.LOG_LEVELS else "info"


def config(argv: list[str] | None = None) -> uvicorn.Config:
    """The worker's uvicorn configuration, from the command line."""
    return config_of(arguments(argv))


def config_of(args: argparse.Namespace) -> uvicorn.Config:
    return uvicorn.Config(
        "yahtzee.asgi:application",
        host=args.host,
        port=args.port,
        loop="uvloop",
        http="httptools",
        # The websockets library's sans-I/O protocol: uvicorn's plain "websockets" is its
        # deprecated legacy one.
        ws="websockets-sansio",
        # Compressing every state frame again for every socket would cost more CPU than the
        # rest of the fan-out (Daphne does not compress either).
        ws_per_message_deflate=False,
        ws_max_size=WS_MAX_BYTES,
        ws_ping_interval=WS_PING_INTERVAL,
        ws_ping_timeout=WS_PING_TIMEOUT,
        lifespan="on",  # runs the process's scheduler (yahtzee.lifespan)
        access_log=False,
        log_level=log_level(),
        proxy_headers=proxy_headers(args),
        forwarded_allow_ips="*" if proxy_headers(args) else None,
        timeout_graceful_shutdown=10,  # open websockets are closed (1012) after this
    )


class ClientsBadText(logging.Filter):
    """A text frame that is not UTF-8 is the client's error, not the server's: one warning line.

    uvicorn closes such a socket with 1007 (as the protocol says) but logs it as an ERROR with
    a traceback of its own decode, so anyone could fill the log with tracebacks, one a frame.
    """

    MESSAGE = "Invalid UTF-8 sequence received from client"

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == self.MESSAGE or str(record.msg).startswith(self.MESSAGE):
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.msg, record.args = "A client sent a text frame that is not UTF-8: its socket is closed (1007).", ()
            record.exc_info, record.exc_text = None, None
        return True


def start(config: uvicorn.Config, *, migrate: bool = False) -> uvicorn.Server:
    """The application imported (Django set up, every module loaded), migrated if asked, then frozen: the
    server, not yet serving.

    ``gc.freeze()`` moves every object alive after the imports (modules, settings, the
    solver's tables, Django's URL and template machinery: most of a worker's objects) out
    of the cyclic collector's sight, so its full collections do not walk them again
    and again while sockets come and go. Off with ``GC_FREEZE=0``. The collector's
    thresholds are then set (``GC_THRESHOLD``, below).
    """
    if migrate:
        from games.store import tables

        # The solver tables' builds (queued by the application's import) wait for the
        # migration, which would otherwise share the interpreter and the cores with them.
        tables.hold()
    config.load()
    logging.getLogger("uvicorn.error").addFilter(ClientsBadText())
    if migrate:
        # Django is set up by now (the application's import): migrating here saves make run a
        # second start of it (about 1.5 s of CPU), most of its time to the first page once installed.
        from django.core.management import call_command

        call_command("migrate", interactive=False)
        gc.collect()  # what the migration graph left behind is not frozen with the rest
        tables.resume()
    tune_gc()
    return uvicorn.Server(config)


def tune_gc() -> None:
    """Once the application is imported: freeze what it made (unless ``GC_FREEZE=0``) and set ``GC_THRESHOLD``."""
    if os.environ.get("GC_FREEZE", "1") != "0":
        gc.freeze()
    gc.set_threshold(*gc_threshold(os.environ.get("GC_THRESHOLD", "")))


# The cyclic collector's thresholds for a worker (``GC_THRESHOLD``, Python's own are
# 700,10,10). An action makes a few thousand short-lived objects; at 700 allocations a
# young collection runs several times an action, promotes what is still alive, and the
# older generations fill and are walked whole, over every socket's objects: with 8,000
# sockets on a process, stalls of up to seconds (docs/performance.md: a p99 of 2.7 s at
# 1,000 rooms with Python's thresholds, 15 ms with these). At 50,000 the young die before
# they are collected.
GC_THRESHOLD = (50_000, 20, 100)


def gc_threshold(text: str) -> tuple[int, ...]:
    """``GC_THRESHOLD`` ("50000,20,100"; empty: this module's default) as the numbers for ``gc.set_threshold``."""
    if not text.strip():
        return GC_THRESHOLD
    try:
        numbers = tuple(int(n) for n in text.split(","))
    except ValueError:
        numbers = ()
    if not 1 <= len(numbers) <= 3 or any(n < 0 for n in numbers):
        raise SystemExit(f"GC_THRESHOLD is one to three whole numbers, e.g. 50000,20,100 (got {text!r})")
    return numbers


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    # Before the start imports the settings, which read it: a server on another port than the
    # settings' default links its e-mails and pushes to itself.
    os.environ.setdefault("SITE_URL", site_url(args))
    server = start(config_of(args), migrate=args.migrate)
    if args.task_worker:
        from games.services import notices  # imported once the application's import has set Django up

        notices.start_in_process()
    server.run()


if __name__ == "__main__":
    main()

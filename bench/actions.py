"""The CPU of an action on the server, without the sockets: services + state frame, in one thread.

    DATABASE_URL=postgres://... .venv/bin/python bench/actions.py --rooms 20   # a scratch PostgreSQL database
    .venv/bin/python bench/actions.py                                         # a fresh SQLite file

Rooms of 8 players are made through the services; then their games are played action by
action (the same choices as bench/load.py) by calling the services as the room socket
does, each followed by what the socket would send (the broadcast's frames, built and
encoded). It prints the process CPU time per action and the wall time per action: what
the database thread of one server process spends on an action, on a machine whose
neighbours' load moves bench/load.py's figures much more than these. No sockets, no
event loop: bench/load.py measures the whole.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--actions", type=int, default=3000, help="actions measured (default 3000)")
    parser.add_argument("--sqlite", action="store_true", help="a fresh SQLite file even if DATABASE_URL is set")
    parser.add_argument("--seed", type=int, help="the same rooms and dice in every run (bench/instructions.py)")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="yahtzee-actions-"))
        os.environ.update(SECRET_KEY="bench-actions-" + "x" * 40, DATA_DIR=tmp, LOG_LEVEL="WARNING", RATE_LIMITS="0")
        os.environ.pop("REDIS_URL", None)  # one process: nothing is relayed
        if args.sqlite or not os.environ.get("DATABASE_URL"):
            os.environ.pop("DATABASE_URL", None)
        else:
            from tests.live import scratch_database

            os.environ["DATABASE_URL"] = stack.enter_context(scratch_database(os.environ["DATABASE_URL"]))
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yahtzee.settings")
        import django

        django.setup()
        from django.core.management import call_command

        if "sqlite" in django.db.connection.vendor:
            call_command("migrate", verbosity=0)
        run(args)


def run(args: argparse.Namespace) -> None:
    from django.db import connection
    from django.urls import get_resolver

    from bench.load_client import choose
    from games import services
    from games.services import presence

    get_resolver().url_patterns  # noqa: B018 - loaded as a server's first page loads them, not by a game's end

    new_controller = services.new_controller if args.seed is None else _seeded(args.seed)
    rooms = []
    for r in range(args.rooms):
        controllers = [new_controller() for _ in range(args.players)]
        # Without the coach, as bench/load.py's rooms (its form posts leave the box unticked): the
        # state then never asks whether the coach's table is on disk, which a checkout without
        # built tables would answer at a cost of its own for every action.
        code = services.game_create(host_name=f"R{r}P0", controller=controllers[0], hints=False).game.code
        for i, controller in enumerate(controllers[1:], start=1):
            services.game_join(code=code, name=f"R{r}P{i}", controller=controller)
        rooms.append((code, controllers))
    calls = {
        "roll": lambda frame: services.turn_roll(held=None, **frame),
        "hold": lambda frame: services.turn_hold(held=frame.pop("held"), **frame),
        "score": lambda frame: services.turn_score(box=frame.pop("box"), column=frame.pop("column"), **frame),
    }
    for code, controllers in rooms:
        services.game_start(code=code, controller=controllers[0], expected_version=None, action_id="s")

    def current(code: str) -> dict[str, Any]:  # what the acting socket knows: the last state (read outside the measure)
        return json.loads(presence.state_text(code))

    known = {code: current(code) for code, _ in rooms}
    done = 0
    cpu = wall = 0.0
    while done < args.actions:
        progressed = False
        for code, controllers in rooms:
            room_state = known[code]
            frame = choose(room_state)
            if frame is None:
                continue
            seat = room_state["turn"]["seat"]
            kind = frame.pop("type")
            frame.update(
                code=code,
                controller=controllers[seat],
                expected_version=room_state["version"],
                action_id=f"{code}-{room_state['version']}",
            )
            c0, w0 = time.process_time(), time.perf_counter()
            calls[kind](frame)
            cpu += time.process_time() - c0
            wall += time.perf_counter() - w0
            done += 1
            progressed = True
            known[code] = current(code)
            if done >= args.actions:
                break
        if not progressed:
            break
    print(
        f"{connection.vendor}: {done} actions in rooms of {args.players}: "
        f"{1000 * cpu / done:.3f} ms CPU/action, {1000 * wall / done:.3f} ms wall/action"
    )


def _seeded(seed: int) -> Callable[[], str]:
    """Room codes, server and client seeds from ``seed``: every run plays the same games (the dice
    follow from them), so two runs do the same actions; the controller tokens' maker, returned."""
    from games.domain import fairness
    from games.services import codes, rooms

    rng = random.Random(seed)
    rooms.new_room_code = lambda: "".join(rng.choice(codes.CODE_ALPHABET) for _ in range(codes.CODE_LENGTH))
    fairness.new_server_seed = lambda: rng.randbytes(fairness.SEED_BYTES).hex()
    fairness.new_client_seed = lambda: rng.randbytes(8).hex()
    return lambda: rng.randbytes(18).hex()


if __name__ == "__main__":
    main()

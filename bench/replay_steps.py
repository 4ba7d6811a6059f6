"""What a step of the replay costs the browser's main thread: an eight-player game's replay page
stepped through with the Next button, its scripts as a git revision has them (``--before``) and
as this tree has them, side by side in one run.

    .venv/bin/python bench/replay_steps.py
    .venv/bin/python bench/replay_steps.py --before origin/main --steps 120 --repeats 5 --ruleset official

It serves the site (SQLite, as the browser tests do) with a game of eight players played to the
end, and opens its replay in Chromium at 1280 x 800 and 390 x 844, once a repeat for each
version (the page's ``static/js`` served from the revision's files for "before", from this
tree for "after"; in turn, so that a busier moment of the machine falls on both). A step is
measured in the page: ``performance.now()`` around the Next button's click and a read of the
layout after it (what the step left to lay out counted too), one step a frame. It prints each
version's median step, of the median steps of each repeat, and the renderer's main-thread task
time a step (Chrome's Performance.getMetrics ``TaskDuration``: style, layout and paint
included). Run it on a quiet machine: the figures are one machine's.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Steps taken one a frame from the game's start; each one's milliseconds.
WALK = """async (steps) => {
  const next = document.getElementById('next');
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  await frame();
  const took = [];
  for (let k = 0; k < steps; k++) {
    const t0 = performance.now();
    next.click();
    void document.getElementById('card').getBoundingClientRect();
    took.push(performance.now() - t0);
    await frame();
  }
  await frame();
  return took;
}"""

SIZES = ((1280, 800), (390, 844))
# Each version's and width's runs: (the median measured in the page, the task time), in ms.
Results = dict[tuple[str, int], list[tuple[float, float]]]
# The tables the bots who play the game read, built once (as the browser tests' site does).
BOT_TABLES = "from django.core.management import call_command\ncall_command('build_bot_tables', 'official', 'yatzy')"


def revision_files(revision: str, under: str) -> dict[str, bytes]:
    """The files under ``under`` as ``revision`` has them, by their path below it."""
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", revision, under], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.split()
    return {
        name[len(under) :]: subprocess.run(
            ["git", "show", f"{revision}:{name}"], cwd=ROOT, check=True, capture_output=True
        ).stdout
        for name in names
    }


@contextlib.contextmanager
def bench_site(prefix: str, **settings: str) -> Iterator[tuple[Any, Any]]:
    """A live site on SQLite, as the browser tests' (their settings, the bots' tables built): its
    server and its shell, stopped after."""
    from tests.e2e.conftest import LiveSite
    from tests.live import ServerProcess, migrate_sqlite, server_env

    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        data = Path(tmp)
        env = server_env(
            DATA_DIR=str(data),
            SECRET_KEY=f"bench-{uuid.uuid4().hex}",
            DJANGO_SETTINGS_MODULE="tests.e2e.site_settings",
            **settings,
        )
        for name in ("DATABASE_URL", "REDIS_URL", "CHANNEL_LAYER"):
            env.pop(name, None)
        migrate_sqlite(env)
        server = ServerProcess(env, log_dir=data)
        site = LiveSite(server, data / "yahtzee.sqlite3")
        site.run(BOT_TABLES)
        server.start()
        try:
            yield server, site
        finally:
            site.shell.stop()
            server.stop()


def side_by_side(repeats: int, walk: Callable[[Any, bool, int, int], tuple[float, float]]) -> Results:
    """``walk(browser, before, width, height)`` at each size, the revision's scripts and this tree's
    in turn, ``repeats`` times: so that a busier moment of the machine falls on both."""
    from playwright.sync_api import sync_playwright

    from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS

    results: Results = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(repeats):
            for width, height in SIZES:
                for version in ("before", "after"):
                    run = walk(browser, version == "before", width, height)
                    results.setdefault((version, width), []).append(run)
        browser.close()
    return results


def report(results: Results, measured: str, each: str) -> None:
    """Each version's median ``measured`` (of each repeat's median) and main-thread task time, ``each``."""
    for width, height in SIZES:
        for version in ("before", "after"):
            runs = results[(version, width)]
            median = statistics.median(r[0] for r in runs)
            task = statistics.median(r[1] for r in runs)
            repeats = ", ".join(f"{r[0]:.2f}" for r in runs)
            print(f"{width}x{height} {version:>6}: median {measured} {median:6.2f} ms {each} (repeats: {repeats})")
            print(f"{'':>16}main-thread tasks {task:6.2f} ms {each}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="origin/main", help="the revision whose scripts are the 'before'")
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--ruleset", default="official")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    old = revision_files(args.before, "static/js/")
    with bench_site("replay-bench-") as (server, site):
        code = site.finished_game(8, args.seed, args.ruleset)
        url = f"{server.url}/r/{code}/replay"
        print(f"{url}: {args.steps} steps from the start, {args.repeats} repeats; before = {args.before}")
        results = side_by_side(
            args.repeats, lambda browser, before, w, h: walk(browser, url, w, h, old if before else None, args.steps)
        )
    report(results, "step", "a step")


def walk(
    browser: Any, url: str, width: int, height: int, files: dict[str, bytes] | None, steps: int
) -> tuple[float, float]:
    """One page's walk: the median step (ms in the page) and the main thread's task time a step (ms)."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    if files is not None:
        serve_scripts(page, files)
    page.goto(url)
    page.wait_for_function("document.getElementById('position').textContent.startsWith('Step 1 ')")
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    before = task_seconds(cdp)
    took = page.evaluate(WALK, steps)
    spent = task_seconds(cdp) - before
    assert page.inner_text("#position").startswith(f"Step {steps + 1} "), page.inner_text("#position")
    context.close()
    return statistics.median(took), spent * 1000 / steps


def task_seconds(cdp: Any) -> float:
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return float(metrics["TaskDuration"])


def serve_scripts(page: Any, files: dict[str, bytes]) -> None:
    """The page's ``static/js`` answered from ``files`` (a revision's), the rest from the server."""

    def serve(route: Any) -> None:
        path = route.request.url.split("/static/js/", 1)[1].split("?", 1)[0]
        if path in files:
            route.fulfill(status=200, body=files[path], content_type="text/javascript")
        else:
            route.continue_()

    page.route("**/static/js/**", serve)


if __name__ == "__main__":
    main()

"""What the room's card costs the browser's main thread at each action: an eight-player
pass-and-play room played on one page (a roll, then a score, turn after turn), its scripts as a
git revision has them (``--before``) and as this tree has them, side by side in one run.

    .venv/bin/python bench/room_draws.py
    .venv/bin/python bench/room_draws.py --before origin/main --actions 96 --repeats 5 --ruleset official

It serves the site (SQLite, as the browser tests do) and, once a repeat for each version and
each size (1280 x 800 and 390 x 844), opens a new room of eight players on this device in
Chromium (the page's ``static/js`` served from the revision's files for "before", from this tree
for "after"; in turn, so that a busier moment of the machine falls on both). Each action is
clicked in the page and waited for (its state drawn, two frames after); what is measured in the
page is each task that changed the card (the frame's draw, ``requestAnimationFrame``, or the
click itself): ``performance.now()`` around it and a read of the layout after it, so what it
left to style and lay out is counted too. The rest of the page is drawn in the same task, the
same code in both versions. It prints each version's median card draw an action, of the
medians of each repeat, and the renderer's main-thread task time an action (Chrome's
Performance.getMetrics ``TaskDuration``: the socket, the whole page's draw, style, layout and
paint). Run it on a quiet machine: the figures are one machine's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.replay_steps import bench_site, report, revision_files, serve_scripts, side_by_side, task_seconds  # noqa: E402

NAMES = ["Ann", "Bob", "Cy", "Dora", "Emil", "Fay", "Gus", "Hanna"]

# Before the page's scripts: each animation frame's callback timed, with the layout it left, when
# it changed the card (what the room draws a state in).
TIMING = """(() => {
  window.cardMs = [];
  const changes = new MutationObserver(() => {});
  const watch = () => {
    const card = document.getElementById('card');
    if (card) changes.observe(card, { subtree: true, childList: true, attributes: true, characterData: true });
    else requestAnimationFrame(watch);
  };
  document.addEventListener('DOMContentLoaded', watch);
  const frame = window.requestAnimationFrame.bind(window);
  window.timed = (run) => {
    const t0 = performance.now();
    const result = run();
    void document.body.getBoundingClientRect();
    const took = performance.now() - t0;
    if (changes.takeRecords().length) window.cardMs.push(took);
    return result;
  };
  window.requestAnimationFrame = (callback) => frame((t) => window.timed(() => callback(t)));
})();"""

# Actions taken one after the other, each waited for: a roll, then the best box's score (not a
# zero while another box scores: a zero asks first). The card's draws of each action, summed.
WALK = """async (actions) => {
  const room = document.getElementById('room');
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  const above = (version) => new Promise((resolve, reject) => {
    if (Number(room.dataset.version) > version) return resolve();
    const shown = () => JSON.stringify({ roll: document.getElementById('roll')?.disabled ?? null,
      turn: document.getElementById('turn-h')?.textContent, toast: document.getElementById('toast')?.textContent,
      conn: document.getElementById('conn')?.dataset.state });
    const timer = setTimeout(() => reject(new Error(`version stayed at ${room.dataset.version}: ${shown()}`)), 20000);
    const watch = new MutationObserver(() => {
      if (Number(room.dataset.version) > version) { watch.disconnect(); clearTimeout(timer); resolve(); }
    });
    watch.observe(room, { attributes: true, attributeFilter: ['data-version'] });
  });
  const took = [];
  for (let k = 0; k < actions; k++) {
    const version = Number(room.dataset.version);
    window.cardMs = [];
    if (k % 2 === 0) {
      window.timed(() => document.getElementById('roll').click());
    } else {
      const open = [...document.querySelectorAll('#card .score-btn:not(.forbidden):not([disabled])')];
      const best = open.sort((a, b) => parseInt(b.textContent) - parseInt(a.textContent))[0];
      window.timed(() => best.click());
      const confirm = document.getElementById('confirm');
      if (confirm.open) window.timed(() => document.getElementById('confirm-yes').click());
    }
    await above(version);
    await frame();
    await frame();
    took.push(window.cardMs.reduce((a, b) => a + b, 0));
  }
  return took;
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="origin/main", help="the revision whose scripts are the 'before'")
    parser.add_argument("--actions", type=int, default=96)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--ruleset", default="official")
    args = parser.parse_args()

    from tests.e2e.helpers import local_room

    old = revision_files(args.before, "static/js/")
    # One page plays every seat as fast as its states come: no player's pace to limit.
    with bench_site("room-bench-", WS_RATE_LIMIT="1000", WS_FRAMES_PER_ADDRESS="1000") as (_, site):
        what = f"{len(NAMES)} players, {args.ruleset}: {args.actions} actions, {args.repeats} repeats"
        print(f"{what}; before = {args.before}")
        results = side_by_side(
            args.repeats,
            lambda browser, before, w, h: walk(
                browser, site, local_room, args.ruleset, w, h, old if before else None, args.actions
            ),
        )
    report(results, "card draw", "an action")


def walk(
    browser: Any,
    site: Any,
    local_room: Any,
    ruleset: str,
    width: int,
    height: int,
    files: dict[str, bytes] | None,
    actions: int,
) -> tuple[float, float]:
    """One new room's actions: the median card draw (ms in the page) and the main thread's task time an action (ms)."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.add_init_script(TIMING)
    if files is not None:
        serve_scripts(page, files)
    local_room(page, site, NAMES, ruleset)
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    before = task_seconds(cdp)
    try:
        took = page.evaluate(WALK, actions)
    except Exception as error:
        raise SystemExit(f"{'before' if files else 'after'} at {width}x{height}: {error}") from error
    spent = task_seconds(cdp) - before
    context.close()
    return statistics.median(took), spent * 1000 / actions


if __name__ == "__main__":
    main()

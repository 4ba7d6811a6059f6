"""What a scorecard's redraw costs the browser: an eight-player Triple card on a phone, drawn anew
N times, one a frame, as a replay steps through a game (static/js/scorecard.js redrawCard, which fits the seats'
names to their columns in view).

    .venv/bin/python bench/scorecard_fit.py
    .venv/bin/python bench/scorecard_fit.py --draws 900 --static /path/to/another/clone/static

It serves ``static/`` (or ``--static``) on a port of its own, opens a page at 390 x 844 in
Chromium that imports the card's module, and draws the card in two ways: ``steps``, a new state
each draw (the turn moves on, a box is scored), and ``same``, the same state each draw (a
frame that leaves the card as it was); and ``bare``, the steps drawn and laid out once each
with no fitting at all, the floor a fit can come down to. For each it prints the milliseconds the draws took in
the page (``performance.now()``, the fitting's forced layouts included), and the CPU seconds
Chromium's renderer spent meanwhile, read from /proc. Run it on a quiet machine, before and
after a change, side by side: the figures are one machine's.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import threading
from pathlib import Path
from typing import Any

TICK = os.sysconf("SC_CLK_TCK")
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
NAMES = ["Anna-Katharina", "Bo", "Christoph Maximilian", "Dee", "Eleonore", "Fu", "Gwendolyn Ashby", "Hal"]

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/css/site.css"></head>
<body><main><section id="card"></section></main></body></html>"""

# Draws the card `draws` times, one a frame as a replay stepped through by a held key does, each
# state from `stateOf(k)`, and gives the milliseconds the draws took (each frame's painting not
# counted there, but in the renderer's CPU).
SCRIPT = """async ({ruleset, names, draws, same, bare}) => {
  const { redrawCard, scorecardHtml, keepSeatNamesFitted } = await import('/js/scorecard.js');
  const card = document.getElementById('card');
  keepSeatNamesFitted(card);
  await document.fonts.ready;
  const boxes = ruleset.scorecard.sections.flatMap((s) => s.rows.filter((r) => r.kind === 'box').map((r) => r.box));
  const seats = names.map((name, seat) => ({ seat, name, gone: false, presence: seat % 3 ? 'online' : 'away' }));
  const stateOf = (k) => {
    const turn = same ? 40 : k;
    const cards = {};
    for (const s of seats) {
      const columns = [0, 1, 2].map((c) => {
        const filled = {};
        boxes.forEach((box, b) => { if ((b * 3 + c) * 8 + s.seat < turn) filled[box] = (b + c + s.seat) % 30; });
        return { boxes: filled, upper: 10, upper_bonus: 0, lower: 20, yahtzee_bonus: 0, total: 30 };
      });
      cards[s.seat] = { columns, total: 90 + turn };
    }
    const current = Math.floor(turn / 3) % seats.length;
    return scorecardHtml({ ruleset, seats, cards, current, focus: 0, just: null });
  };
  const html = Array.from({ length: draws }, (_, k) => stateOf(k));
  const frame = () => new Promise((done) => requestAnimationFrame(done));
  let ms = 0;
  for (const h of html) {
    const t0 = performance.now();
    if (bare) { card.innerHTML = h; void card.offsetHeight; }
    else redrawCard(card, () => { card.innerHTML = h; });
    ms += performance.now() - t0;
    await frame();
  }
  await frame();
  return ms;
}"""


def ruleset_info(name: str) -> dict[str, Any]:
    """The rule set as the page gets it in a state frame."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yahtzee.settings")
    import django

    django.setup()
    from games.store.selectors import ruleset_info as info

    return info(name)


def renderer_cpu(root: int) -> float:
    """CPU seconds (user + system) of the Chromium renderers under process ``root``."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    renderers = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        cpu[pid] = (int(fields[11]) + int(fields[12])) / TICK
        if "--type=renderer" in cmd:
            renderers.add(pid)

    def under(pid: int) -> bool:
        while pid > 1:
            if pid == root:
                return True
            pid = parents.get(pid, 0)
        return False

    return sum(cpu[pid] for pid in renderers if under(pid))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--draws", type=int, default=900)
    parser.add_argument("--static", default=str(Path(__file__).resolve().parent.parent / "static"))
    parser.add_argument("--ruleset", default="triple")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/":
                body = PAGE.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            super().do_GET()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=args.static))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    ruleset = ruleset_info(args.ruleset)
    print(f"static: {args.static}, {args.draws} draws of an eight-player {args.ruleset} card at 390 x 844")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.goto(f"http://127.0.0.1:{server.server_address[1]}/")
            for label, same, bare in (("steps", False, False), ("same", True, False), ("bare", False, True)):
                page.evaluate("() => { document.getElementById('card').innerHTML = ''; }")
                before = renderer_cpu(os.getpid())
                ms = page.evaluate(
                    SCRIPT, {"ruleset": ruleset, "names": NAMES, "draws": args.draws, "same": same, "bare": bare}
                )
                cpu = renderer_cpu(os.getpid()) - before
                if label == "steps":
                    fit = json.dumps(page.evaluate(FITTED))
                print(
                    f"{label:>5}: {ms:8.0f} ms in the page ({ms / args.draws:6.2f} ms a draw), "
                    f"renderer CPU {cpu:6.2f} s ({cpu * 1000 / args.draws:6.2f} ms a draw)"
                )
            print("the last step's fit:", fit)
            browser.close()
    finally:
        server.shutdown()


# What the last draw's fit left on the card, to compare two versions' results.
FITTED = """() => [...document.querySelectorAll('#card .scorecard-wrap')].map((w) => ({
  more: w.classList.contains('more-after'), fadeAt: w.style.getPropertyValue('--fade-at'),
  fadeW: w.style.getPropertyValue('--fade-w'),
  heads: [...w.querySelectorAll('th.seat-head')].map((h) => [h.dataset.seat, h.style.getPropertyValue('--seen'),
    h.classList.contains('name-cut')])}))"""


if __name__ == "__main__":
    main()

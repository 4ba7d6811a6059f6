"""Driving the room page like a player, shared by the browser tests: create and join rooms, act and
wait for every page to draw the new state, and axe-core's serious violations."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
import urllib.request
from pathlib import Path
from typing import Any

from tests.e2e.conftest import LiveSite

# A folder to save the pages' screenshots in, for a look (SCREENSHOTS=/tmp/shots make test).
# Unset, no screenshot is taken: encoding full-page PNGs nobody opened cost the suite seconds.
SHOTS = os.environ.get("SCREENSHOTS")


def version(page: Any) -> int:
    return int(page.locator("#room").get_attribute("data-version") or -1)


# Resolves once the room's data-version is above ``above``: a MutationObserver, not polling, so
# the page is not asked for a frame on every animation frame while the test waits (Playwright's
# wait_for_function polls on requestAnimationFrame, which kept the renderer drawing).
_VERSION_ABOVE = """([above, timeout]) => new Promise((resolve, reject) => {
  const room = document.getElementById('room');
  const done = () => Number(room.dataset.version) > above;
  if (done()) return resolve(true);
  const watch = new MutationObserver(() => {
    if (done()) { watch.disconnect(); clearTimeout(timer); resolve(true); }
  });
  const timer = setTimeout(() => {
    watch.disconnect();
    reject(new Error(`version stayed at ${room.dataset.version}, not above ${above}, for ${timeout} ms`));
  }, timeout);
  watch.observe(room, { attributes: true, attributeFilter: ['data-version'] });
})"""


def wait_version(pages: list[Any], above: int, timeout: int = 20_000) -> None:
    for page in pages:
        page.evaluate(_VERSION_ABOVE, [above, timeout])


def rendered(page: Any) -> None:
    """Until the browser has shown ``page`` as its scripts left it: two of its animation frames,
    the second after the first was drawn. What the browser does as it draws (a focused element
    the page hid loses the keyboard to the body) has been done, and what the page put off to its
    next frame (``requestAnimationFrame``) has run."""
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


def code_of(url: str) -> str:
    return url.rstrip("/").rsplit("/", 1)[-1]


def set_rules(site: LiveSite, code: str, change: Any) -> None:
    """The room's stored state (its snapshot's rules) changed by ``change`` in place: a state the
    page draws as the server sends it, without the turns played to reach it."""
    (snapshot,) = site.query("SELECT snapshot FROM games_game WHERE code = ?", code)[0]
    data = json.loads(snapshot)
    change(data["rules"])
    with sqlite3.connect(site.database) as conn:
        # A new version, as any write of the room makes: the server's copy of the row it last
        # wrote is then known to be stale, and its next action reads this one.
        conn.execute(
            "UPDATE games_game SET snapshot = ?, version = version + 1 WHERE code = ?", (json.dumps(data), code)
        )


# Where each name is drawn in an element: the left edge of its first occurrence in the element's text.
NAME_LEFT = """([selector, names]) => {
  const root = document.querySelector(selector);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node);
  return names.map((name) => {
    const node = nodes.find((n) => n.textContent.includes(name));
    if (!node) return null;
    const range = document.createRange();
    const at = node.textContent.indexOf(name);
    range.setStart(node, at);
    range.setEnd(node, at + name.length);
    return range.getBoundingClientRect().left;
  });
}"""


def online_form(page: Any, site: LiveSite, name: str, ruleset: str = "official") -> None:
    """The home page's form filled in for an online room hosted by ``name``: the test may choose
    more of the room (its turn timer, its chat) before ``created``."""
    page.goto(site.url + "/")
    page.check("input[name=mode][value=online]")
    page.fill("#id_name", name)
    page.check(f"input[name=ruleset][value={ruleset}]")


def created(page: Any) -> str:
    """The room the home page's form asks for, created: its url, once its lobby shows and its
    socket is connected."""
    page.click("#create-btn")
    page.wait_for_selector("#lobby:not([hidden])")
    page.wait_for_selector("#conn[data-state=connected]")
    return str(page.url)


def create_online(page: Any, site: LiveSite, name: str, ruleset: str = "official") -> str:
    online_form(page, site, name, ruleset)
    return created(page)


def create_online_read_seed(page: Any, site: LiveSite, name: str) -> tuple[str, str]:
    """``create_online``'s room, made from the home page as ``page`` stands (its init scripts in
    place), with the client seed the form sent: (the room's code, the seed). Returns once the lobby
    shows, before the socket connects: what the page does first is what some tests read."""
    online_form(page, site, name)
    with page.expect_request(lambda request: request.url.endswith("/rooms/new")) as sent:
        page.click("#create-btn")
    seed = dict(part.split("=", 1) for part in (sent.value.post_data or "").split("&"))["client_seed"]
    assert seed, "the home page's form sent no client seed"
    page.wait_for_selector("#lobby:not([hidden])")
    return room_code(page), seed


def create_local(
    page: Any,
    site: LiveSite,
    names: list[str],
    ruleset: str = "official",
    timer: str | None = None,
    bots: int | None = None,
    level: str | None = None,
) -> str:
    """A pass-and-play room made with the home page's form: the players ``names``, and as the form
    offers, a turn timer (its option's value), computer players and their level."""
    page.goto(site.url + "/")
    page.check("input[name=mode][value=local]")
    page.fill("#id_players", str(len(names)))
    for i, name in enumerate(names, start=1):
        page.fill(f"#id_player_{i}", name)
    if bots is not None:
        page.fill("#id_bots", str(bots))
    if level is not None:
        page.select_option("#id_level", level)
    if timer is not None:
        page.select_option("#id_turn_timer", timer)
    page.check(f"input[name=ruleset][value={ruleset}]")
    page.click("#create-btn")
    page.wait_for_selector("#roll")
    page.wait_for_selector("#conn[data-state=connected]")
    return str(page.url)


# A pass-and-play room made through the services for the browser whose session key is given (a
# new session if none): its seats are that browser's, as if it had sent the home page's form.
_LOCAL_ROOM = """
from importlib import import_module
from django.conf import settings
from games import services
names, ruleset, key = args
session = import_module(settings.SESSION_ENGINE).SessionStore(session_key=key)
session["controller"] = session.get("controller") or services.new_controller()
session.save()
game = services.local_game_create(names=names, controller=session["controller"], ruleset=ruleset)
assert settings.SESSION_COOKIE_NAME == "sessionid"
result = [game.code, session.session_key]
"""


def local_room(page: Any, site: LiveSite, names: list[str], ruleset: str = "official") -> str:
    """``create_local``'s room and page without the home page and its form (one page load and a post
    fewer a room): for the tests of the table, not of the form."""
    key = next((c["value"] for c in page.context.cookies(site.url) if c["name"] == "sessionid"), None)
    code, key = site.run(_LOCAL_ROOM, names, ruleset, key)
    page.context.add_cookies([{"name": "sessionid", "value": key, "url": site.url}])
    page.goto(f"{site.url}/r/{code}/")
    page.wait_for_selector("#roll")
    page.wait_for_selector("#conn[data-state=connected]")
    return str(page.url)


def join(page: Any, url: str, name: str) -> None:
    page.goto(url)
    page.wait_for_selector("#conn[data-state=connected]")
    page.fill("#join-name", name)
    page.click("#join-btn")
    page.wait_for_selector("#conn[data-state=connected]")
    page.wait_for_selector(".seat .tag.you")


def join_refused(page: Any, name: str) -> str:
    """``name`` typed to join the room ``page`` shows, and the join refused: what the page says why."""
    page.fill("#join-name", name)
    with page.expect_navigation():
        page.click("#join-btn")
    page.wait_for_selector("#join-error")
    return str(page.inner_text("#join-error"))


def seated(page: Any, count: int) -> None:
    """Until ``page`` shows ``count`` seats. A player who joined from another page (or by a form
    post) reaches this one by its socket, later; an action sent from it before then names a
    version the join has passed, which the server refuses as stale."""
    page.wait_for_function(f"document.querySelectorAll('#seats .seat').length === {count}")


def bob_and_cy_join(url: str, ann: Any, bob: Any, cy: Any) -> None:
    """Bob and Cy join Ann's room at ``url`` (seats 1 and 2), until Ann's page shows the three."""
    join(bob, url, "Bob")
    join(cy, url, "Cy")
    seated(ann, 3)


def muted_bob_leaves(ann: Any, bob: Any, cy: Any) -> None:
    """The host Ann mutes Bob (seat 1) in the lobby, and he leaves it, answering yes to the page's
    question."""
    act(ann, [ann, bob, cy], lambda: ann.click("#mute-1"))
    bob.on("dialog", lambda dialog: dialog.accept())
    act(bob, [ann, bob, cy], lambda: bob.click("#leave-1"))


def caught_up(page: Any, other: Any) -> None:
    """Until ``page`` has drawn the state ``other`` shows (or a later one): both hear the room by
    sockets of their own, and one may be a frame or more behind the other."""
    wait_version([page], version(other) - 1)


def act(page: Any, everyone: list[Any], do: Any) -> None:
    """Do something on ``page`` and wait until every page has drawn the resulting state."""
    before = version(page)
    do()
    wait_version(everyone, before)


SCHEMES = ("light", "dark")


def in_each_scheme(*pages: Any) -> Any:
    """Show ``pages`` in the light, then the dark colour scheme (yields the scheme's name).

    The pages' CSS follows ``prefers-color-scheme``, so one page set up once is checked in both
    instead of setting the same table up again for each scheme.
    """
    for scheme in SCHEMES:
        for page in pages:
            page.emulate_media(color_scheme=scheme)
            assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
            # Colours that ease into the new scheme (Django admin's links and buttons, which do not
            # follow reduced motion) are read when they have arrived: axe's contrast check read
            # them half-way on a loaded machine.
            page.evaluate(_TRANSITIONS_DONE)
        yield scheme


_TRANSITIONS_DONE = """() => Promise.allSettled(
  document.getAnimations().filter((a) => a instanceof CSSTransition).map((a) => a.finished)
)"""


_AXE_SCRIPT: list[str] = []

# axe-core's own run, reduced in the page to what the assertion reads: the serious and critical
# violations (the full result, passes included, crossed the protocol on every check before).
# Without a CSS selector for every node it looked at (selectors: false, about an eighth of a
# run's time): only a page with a violation is checked again with them, to name where it is.
# Nor with the rules that can only find minor or moderate violations (a third of axe's, among
# them "region", which looks at every node of the page): a rule's violation has the rule's own
# impact where it has one, else the highest of its failed checks' impacts, each fixed in axe's
# data. A rule whose impacts axe does not say is run. With ``colours``, only the rules about
# colours (axe's "cat.color": contrast, links told apart from their text) are run.
_SERIOUS = """async ([selectors, colours]) => {
  const checks = axe._audit.data.checks;
  const low = (impact) => impact === 'minor' || impact === 'moderate';
  const impacts = (rule) => rule.impact ? [rule.impact]
    : [...rule.any, ...rule.all, ...rule.none].map((check) => checks[check.id]?.impact);
  const left = (rule) => { const each = impacts(rule); return each.length > 0 && each.every(low); };
  const rules = Object.fromEntries(axe._audit.rules
    .filter((rule) => left(rule) || (colours && !rule.tags.includes('cat.color')))
    .map((rule) => [rule.id, { enabled: false }]));
  const results = await axe.run(document, { resultTypes: ['violations'], selectors, rules });
  return results.violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => `${v.id} (${v.impact}): ${v.help} — ${JSON.stringify(v.nodes.slice(0, 3).map(n => n.target))}`);
}"""


def with_axe(page: Any) -> Any:
    """``page`` with axe-core in it (put in once a document, not per check)."""
    if not _AXE_SCRIPT:
        from axe_playwright_python.sync_playwright import Axe

        _AXE_SCRIPT.append(Axe().axe_script)
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(_AXE_SCRIPT[0])
    return page


def serious_violations(page: Any, scheme: str | None = None) -> list[str]:
    """axe-core's serious and critical violations on ``page``.

    With ``scheme`` (``in_each_scheme``'s), the rules about colours alone after the first scheme:
    the schemes differ only in the colours of site.css's custom properties, so every other rule
    finds in the dark scheme what it found in the light one, on the page ``in_each_scheme``
    showed in both without a change between them.
    """
    colours = scheme is not None and scheme != SCHEMES[0]
    with_axe(page)
    found = list(page.evaluate(_SERIOUS, [False, colours]))
    return list(page.evaluate(_SERIOUS, [True, colours])) if found else found


# A box drawn for each of [parent selector, tag, classes] in its parent: the WCAG relative luminance
# of its background and the contrast of its text on it (colours as getComputedStyle writes them;
# the site's boxes are opaque, so the alpha is not read).
_BOX_COLOURS = """probes => {
  const lum = (s) => {
    const [r, g, b] = s.match(/[\\d.]+/g).slice(0, 3).map(Number)
      .map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  return probes.map(([parent, tag, classes]) => {
    const box = document.createElement(tag);
    box.className = classes;
    box.textContent = 'x';
    document.querySelector(parent).append(box);
    const style = getComputedStyle(box);
    const [back, text] = [lum(style.backgroundColor), lum(style.color)];
    box.remove();
    return [classes, back, (Math.max(back, text) + 0.05) / (Math.min(back, text) + 0.05)];
  });
}"""


def box_colours(page: Any, probes: list[tuple[str, str, str]]) -> list[tuple[str, float, float]]:
    """For each (parent selector, tag, classes): a box so made, drawn in its parent, as (classes,
    its background's luminance, its text's contrast ratio on it)."""
    return [(classes, back, ratio) for classes, back, ratio in page.evaluate(_BOX_COLOURS, probes)]


def light_boxes_in_the_dark(page: Any, probes: list[tuple[str, str, str]]) -> list[str]:
    """The boxes of ``probes`` (see box_colours) that a dark page shows light, or with text under AA."""
    return [
        f"{classes}: background luminance {back:.2f}, text contrast {ratio:.1f}"
        for classes, back, ratio in box_colours(page, probes)
        if back > 0.2 or ratio < 4.5
    ]


def best_box(page: Any) -> tuple[str, int]:
    """The legal box worth the most points right now (id, points).

    None to score (the turn is someone else's, not rolled yet, or ran out) fails saying whose
    turn the page shows and what it shows of it, not with an empty ``max()``.
    """
    found = page.eval_on_selector_all(
        "#card .score-btn:not(.forbidden)",
        """els => els.map(e => [
            e.id, [...e.childNodes].reduce((s, n) => s + (parseInt(n.textContent.replace('+', '')) || 0), 0)
        ])""",
    )
    if not found:
        raise AssertionError(f"no box to score on the page: {_turn_shown(page)}")
    return max(found, key=lambda item: item[1])


# What the page shows of the turn, for a failure to say: whose turn, its state, the dice, the roll
# button, the countdown, the newest lines of the feed and the toast.
_TURN_SHOWN = """() => {
  const text = (sel) => { const el = document.querySelector(sel); return el ? el.textContent.trim() : null; };
  const roll = document.getElementById('roll');
  return {
    version: document.getElementById('room')?.dataset.version,
    connection: document.getElementById('conn')?.dataset.state,
    turn: text('#turn-h'),
    meta: text('#turn-meta'),
    roll: roll ? (roll.disabled ? 'disabled' : 'enabled') : 'none',
    countdown: text('#play [data-countdown]'),
    score_buttons: document.querySelectorAll('#card .score-btn').length,
    feed: [...document.querySelectorAll('#feed li')].slice(0, 3).map(li => li.textContent.trim()),
    toast: document.getElementById('toast')?.hidden === false ? text('#toast') : null,
  };
}"""


def _turn_shown(page: Any) -> str:
    try:
        return str(page.evaluate(_TURN_SHOWN))
    except Exception as exc:  # noqa: BLE001 - the page gone: say so, the failure is the point
        return f"(the page could not be read: {exc})"


def score_best(page: Any, everyone: list[Any]) -> int:
    box, points = best_box(page)

    def click() -> None:
        page.click(f"#{box}")
        if points == 0:
            page.wait_for_selector("#confirm[open]")
            page.click("#confirm-yes")

    act(page, everyone, click)
    return points


def no_horizontal_overflow(page: Any) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


# A function of an element (a seat's name in its head, a name in a line) saying how it shows less
# than all of its letters ("content width/letters' width"), or '' when it shows them all: its
# text's boxes reach past its content box, by as little as part of a pixel (an ellipsis shows for
# that, which scrollWidth and clientWidth, whole pixels, round away), or it has lines past its
# last (a clamp's). The slack is under the layout's least step, 1/64 px, as the page's own.
LETTERS_CUT = """(e => {
  const style = getComputedStyle(e), box = e.getBoundingClientRect();
  const left = box.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft);
  const right = box.right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight);
  const letters = [], walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
  for (let text = walk.nextNode(); text; text = walk.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(text);
    letters.push(...[...range.getClientRects()].filter(r => r.width > 0));
  }
  const from = Math.min(...letters.map(r => r.left)), to = Math.max(...letters.map(r => r.right));
  const cut = from < left - 0.01 || to > right + 0.01 || e.scrollHeight > e.clientHeight + 1;
  return cut ? `${(right - left).toFixed(2)}/${(to - from).toFixed(2)}` : '';
})"""


def shot(page: Any, name: str, full_page: bool = False) -> None:
    """Save a screenshot of ``page`` as SCREENSHOTS/<name>.png when SCREENSHOTS names a folder."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=full_page)


# A game played to the end through the services under the given names, in the live site's own database.
_PLAY_NAMED = """
import random
from games import services
from tests.factories import Table, action_id, play_to_end
names, ruleset = args
controllers = [services.new_controller() for _ in names]
host = services.game_create(host_name=names[0], controller=controllers[0], ruleset=ruleset)
table = Table(code=host.game.code, controllers=controllers)
for i in range(1, len(names)):
    services.game_join(code=table.code, name=names[i], controller=controllers[i])
services.game_start(
    code=table.code, controller=controllers[0], expected_version=table.version(), action_id=action_id()
)
play_to_end(table, random.Random(2))
result = table.code
"""


def finished_named_game(site: LiveSite, names: list[str], ruleset: str = "official") -> str:
    """The code of a game its players (named ``names``) played to the end.

    Made once per test process for each set of arguments, like ``LiveSite.finished_game``: the
    tests that ask for one only read its pages.
    """
    key = ("named", tuple(names), ruleset)
    if key not in site.made:
        site.made[key] = str(site.run(_PLAY_NAMED, names, ruleset))
    return site.made[key]


def bob_walked_away(site: LiveSite, ann: Any, bob: Any) -> None:
    """Ann hosts Bob online and plays her first turn; Bob walks away on his (his socket closes), and
    the table waits for him."""
    url = create_online(ann, site, "Ann")
    join(bob, url, "Bob")
    seated(ann, 2)
    act(ann, [ann, bob], lambda: ann.click("#start"))
    act(ann, [ann, bob], lambda: ann.click("#roll"))
    score_best(ann, [ann, bob])
    bob.goto(site.url + "/")


def room_code(page: Any) -> str:
    return str(page.url).rstrip("/").rsplit("/", 1)[-1]


_INITIAL = re.compile(r'<script id="initial" type="application/json">(.*?)</script>', re.S)


def servers_wait_is_over(site: LiveSite, code: str, timeout: float = 20) -> None:
    """Wait until the live server's wait for room ``code``'s away players (HOST_AWAY) is over: the
    server's own clock, which a page's installed clock does not move. Read from the room's page
    as a look without cookies draws it (which stores nothing): its presence frame lists the
    seconds each wait has left, waited for, until it lists none."""
    deadline = time.monotonic() + timeout
    while True:
        with urllib.request.urlopen(f"{site.url}/r/{code}/", timeout=timeout) as response:
            found = _INITIAL.search(response.read().decode())
        assert found, "the room page carries no initial state"
        waits = json.loads(found.group(1))["presence"].get("waits") or {}
        if not waits:
            return
        assert time.monotonic() < deadline, f"the server's wait is not over: {waits}"
        time.sleep(max(0.02, min(max(waits.values()), deadline - time.monotonic())))


# The turn of ``seat`` (the room at ``version``) runs out now: its deadline is moved to the server's
# present, as if its time had passed, and the scheduler's next look at due rooms applies the timeout.
# The players' own turns keep the whole of their time, however slow the machine.
_TIME_RUNS_OUT = """
from django.utils import timezone
from games.store.models import Game
code, seat, version = args
game = Game.objects.get(code=code)
assert (game.version, game.snapshot["rules"]["current"]) == (version, seat), (game.version, game.snapshot["rules"])
assert game.turn_deadline is not None, "the turn's clock does not run"
now = timezone.now()
result = Game.objects.filter(code=code, version=version).update(turn_deadline=now, due_at=now)
"""


# Some of the move's time passes on the server while the page's clock stands still (a device's
# sleep, which performance.now() does not count): the deadline, as it stands against the server's
# clock, is that much nearer. No action, so no new version.
_TIME_PASSES = """
from datetime import timedelta
from games.store.models import Game
code, seconds = args
game = Game.objects.get(code=code)
moved = game.turn_deadline - timedelta(seconds=seconds)
Game.objects.filter(code=code).update(turn_deadline=moved, due_at=moved)
result = game.version
"""


def time_passes(site: LiveSite, code: str, seconds: float) -> int:
    """``seconds`` of the move's time pass on the server in the room ``code`` (``_TIME_PASSES``):
    the room's version, which they leave as it was."""
    return int(site.run(_TIME_PASSES, code, seconds))


def time_runs_out(site: LiveSite, page: Any, seat: int) -> None:
    """The turn of ``seat``, the one ``page`` shows at its version, runs out now."""
    assert site.run(_TIME_RUNS_OUT, room_code(page), seat, version(page)) == 1


def online_game(site: LiveSite, ann: Any, other: Any, name: str = "Bob") -> str:
    """Ann hosts ``name`` (on ``other``) online and starts the game, once her page shows his seat:
    the room's url."""
    url = create_online(ann, site, "Ann")
    join(other, url, name)
    seated(ann, 2)
    act(ann, [ann, other], lambda: ann.click("#start"))
    return url


def plays_a_turn(page: Any, turn: str) -> None:
    """Once the turn heading of ``page`` says ``turn`` (its player's turn, in its words), its player
    rolls and scores the box worth most."""
    page.wait_for_function(f"document.getElementById('turn-h').textContent.includes({turn!r})", timeout=20_000)
    page.wait_for_selector("#roll:not(:disabled)")
    act(page, [page], lambda: page.click("#roll"))
    score_best(page, [page])


def timed_game_with_bob(site: LiveSite, ann: Any, bob: Any) -> None:
    """Ann hosts Bob online with a 30 s turn timer and starts: her turn comes first. Bob's turns
    run out when the test says so (time_runs_out), not by a short timer that a loaded machine
    would let run out Ann's own turns too."""
    online_form(ann, site, "Ann")
    ann.select_option("#id_turn_timer", "30")
    join(bob, created(ann), "Bob")
    ann.wait_for_function("document.querySelectorAll('#seats .seat').length === 2")
    act(ann, [ann, bob], lambda: ann.click("#start"))


def bob_kept_by_the_computer(site: LiveSite, ann: Any, bob: Any) -> None:
    """Ann hosts Bob online with a turn timer and plays her turns; Bob, who touches nothing, runs
    out of time twice, and the computer plays his seat (his page offers I'm back)."""
    timed_game_with_bob(site, ann, bob)
    for _ in range(2):
        plays_a_turn(ann, "Your turn")
        time_runs_out(site, ann, 1)
    bob.wait_for_selector("#back", timeout=20_000)
    # The host's page acts next (its pause): it has drawn the hand-over too, not only Bob's page.
    caught_up(ann, bob)


def look_again(page: Any, url: str) -> None:
    """Take a no-script room page to ``url`` (the room), as a player who goes back to it does.

    A no-script page that waits for others reloads itself (its ``<meta http-equiv="refresh">``),
    to the same room. When that reload's answer is already coming in as the test goes to the room,
    the reload cannot be stopped and wins: Playwright's goto then fails, "interrupted by another
    navigation" to the very address it was going to. The page is where the goto would have taken
    it, the room as it is now: wait for that document to load instead.
    """
    from playwright.sync_api import Error

    try:
        page.goto(url)
    except Error as error:
        if f'interrupted by another navigation to "{url}"' not in str(error):
            raise
        page.wait_for_load_state()
        assert page.url == url, (page.url, url)

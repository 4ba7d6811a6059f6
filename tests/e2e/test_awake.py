"""A player's phone at a live game: the screen stays on while they play (static/js/room/awake.js),
and their turn buzzes as it chimes (static/js/room/sound.js ``buzz``).

A phone dims and locks within a minute; a locked phone's page is hidden, its player is soon told
away and their turn's chime goes unheard. Chromium's own wake lock and vibration do nothing
visible in a headless browser, so the tests put recording stand-ins in their place.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import LiveSite
from tests.e2e.helpers import act, create_online, join, score_best, seated

pytestmark = pytest.mark.browser

# The browser's wake lock and vibration, recorded. A lock is let go, as a browser does, when the
# page is hidden (``hide()``: the page's visibility is the test's to set).
STAND_INS = """
window.__locks = [];
window.__buzzes = [];
let hidden = false;
Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (hidden ? "hidden" : "visible") });
Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
const release = async (lock) => {
  if (lock.released) return;
  lock.released = true;
  lock.dispatchEvent(new Event("release"));
};
Object.defineProperty(navigator, "wakeLock", { configurable: true, value: {
  refuse: false,
  async request(type) {
    if (this.refuse) throw new DOMException("refused", "NotAllowedError");
    if (hidden) throw new DOMException("not visible", "NotAllowedError");
    const lock = new EventTarget();
    lock.type = type;
    lock.released = false;
    lock.release = () => release(lock);
    window.__locks.push(lock);
    return lock;
  },
} });
navigator.vibrate = (pattern) => { window.__buzzes.push(pattern); return true; };
window.__held = () => window.__locks.filter((lock) => !lock.released).length;
window.__show = (shown) => {
  hidden = !shown;
  if (hidden) window.__locks.forEach(release);
  document.dispatchEvent(new Event("visibilitychange"));
};
"""

HARNESS = f"""<!doctype html><title>awake</title>
<script>{STAND_INS}</script>
<script type="module">
window.awake = await import("/static/js/room/awake.js");
window.settled = () => new Promise((done) => setTimeout(done, 0));
window.ready = true;
</script>"""


def held(page: Any) -> int:
    return int(page.evaluate("__held()"))


def asked(page: Any) -> int:
    return int(page.evaluate("__locks.length"))


def test_the_screen_is_kept_on_while_wanted_asked_again_when_shown_and_let_go_after(harness: Any) -> None:
    page = harness(HARNESS)
    page.evaluate("async () => { awake.keepAwake(true); awake.keepAwake(true); await settled(); }")
    assert (asked(page), held(page)) == (1, 1)  # every draw says so: one lock
    page.evaluate("async () => { awake.keepAwake(true); await settled(); }")
    assert asked(page) == 1
    # Hidden (the phone locked, another tab), the browser lets go; shown again, it is asked again.
    page.evaluate("async () => { __show(false); await settled(); }")
    assert held(page) == 0
    page.evaluate("async () => { awake.keepAwake(true); await settled(); }")
    assert asked(page) == 1  # a hidden page is not asked: the browser would refuse it
    page.evaluate("async () => { __show(true); await settled(); }")
    assert (asked(page), held(page)) == (2, 1)
    page.evaluate("async () => { awake.keepAwake(false); await settled(); }")
    assert held(page) == 0
    page.evaluate("async () => { __show(false); __show(true); await settled(); }")
    assert asked(page) == 2  # not wanted: shown again, nothing is asked

    # No longer wanted while the browser is still asked: the lock it gives is let go at once.
    page.evaluate("async () => { awake.keepAwake(true); awake.keepAwake(false); await settled(); }")
    assert (asked(page), held(page)) == (3, 0)

    # A refusal (a battery saver) is no error: the screen sleeps as usual, and it is asked again later.
    page.evaluate("async () => { navigator.wakeLock.refuse = true; awake.keepAwake(true); await settled(); }")
    assert held(page) == 0
    page.evaluate("async () => { navigator.wakeLock.refuse = false; __show(false); __show(true); await settled(); }")
    assert held(page) == 1


@pytest.mark.parametrize(
    ("state", "mine", "stays"),
    [
        ({"status": "playing", "pace": "live"}, [0], True),
        ({"status": "playing", "pace": "live", "local": True}, [0, 1], True),  # a shared phone passed round
        ({"status": "playing", "pace": "own"}, [0], False),  # moves days apart: the phone sleeps between
        # The host paused the game: nobody's turn comes until they resume it, however long that is.
        ({"status": "playing", "pace": "live", "paused": True}, [0], False),
        ({"status": "playing", "pace": "live"}, [], False),  # a spectator, or a player who left
        ({"status": "lobby", "pace": "live"}, [0], False),
        ({"status": "finished", "pace": "live"}, [0], False),
        ({"status": "abandoned", "pace": "live"}, [0], False),
    ],
)
def test_who_keeps_the_screen_on(harness: Any, state: dict[str, Any], mine: list[int], stays: bool) -> None:
    page = harness(HARNESS)
    assert page.evaluate("([state, mine]) => awake.staysAwake(state, mine)", [state, mine]) is stays


def test_players_at_a_live_table_keep_their_screens_on_and_feel_their_turns(live_site: LiveSite, new_page: Any) -> None:
    ann, bob, watcher = new_page(), new_page(), new_page()
    for page in (ann, bob, watcher):
        page.add_init_script(STAND_INS)
    url = create_online(ann, live_site, "Ann")
    join(bob, url, "Bob")
    assert (asked(ann), asked(bob)) == (0, 0)  # the lobby: the screen sleeps as the phone chooses
    seated(ann, 2)
    act(ann, [ann, bob], lambda: ann.click("#start"))
    for page in (ann, bob):
        page.wait_for_function("__held() === 1")
    watcher.goto(url)
    watcher.wait_for_selector("#conn[data-state=connected]")
    assert asked(watcher) == 0  # a spectator's screen is theirs to leave on

    # The host pauses the game: no turn comes until she resumes it, and the screens sleep meanwhile.
    act(ann, [ann, bob], lambda: ann.click("#pause"))
    for page in (ann, bob):
        page.wait_for_function("__held() === 0")
    act(ann, [ann, bob], lambda: ann.click("#pause"))
    for page in (ann, bob):
        page.wait_for_function("__held() === 1")

    # The game's first turn is Ann's: it chimes and buzzes on her phone, not on Bob's.
    ann.wait_for_function("__buzzes.length === 1")
    act(ann, [ann, bob], lambda: ann.click("#roll"))
    score_best(ann, [ann, bob])
    bob.wait_for_function("__buzzes.length === 1")
    bob.click("#mute")  # sound off: no chime, and no buzz either
    act(bob, [ann, bob], lambda: bob.click("#roll"))
    score_best(bob, [ann, bob])
    ann.wait_for_function("__buzzes.length === 2")
    act(ann, [ann, bob], lambda: ann.click("#roll"))
    score_best(ann, [ann, bob])
    assert bob.evaluate("__buzzes.length") == 1

    # Bob leaves the game: his screen is his phone's again; Ann plays on with hers kept on.
    bob.on("dialog", lambda dialog: dialog.accept())
    act(bob, [ann, bob], lambda: bob.click("#leave-1"))
    bob.wait_for_function("__held() === 0")
    assert (held(ann), asked(ann)) == (1, 2)  # asked again once the pause was over, never since
    assert ann.errors == [] and bob.errors == []

"""The room's sounds (static/js/room/sound.js) in Chromium: they play, and the audio is let go after.

A running AudioContext keeps the audio output open (and a phone's audio hardware awake) for
as long as the page is open, even in silence. So the page makes one context at its first sound,
and suspends it once the sounds are over; the next sound resumes it.

The page's timers are fakes the test runs, as in test_protocol_client.py: no test waits out the
1.5 s, and none depends on how fast a loaded machine gets there.
"""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser

HARNESS = """<!doctype html><title>sounds</title>
<button id="rattle">rattle</button> <button id="fanfare">fanfare</button> <button id="chime">chime</button>
<script type="module">
const timers = [];
window.setTimeout = (fn, delay) => timers.push({ fn, delay, live: true });
window.clearTimeout = (id) => { if (timers[id - 1]) timers[id - 1].live = false; };
const made = [];
window.AudioContext = class extends window.AudioContext {
  constructor(...args) { super(...args); this.sounds = 0; this.asked = []; made.push(this); }
  suspend() { const done = super.suspend(); this.asked.push(done); return done; }
  resume() { const done = super.resume(); this.asked.push(done); return done; }
  createBufferSource() { this.sounds++; return super.createBufferSource(); }
  createOscillator() { this.sounds++; return super.createOscillator(); }
};
const sound = await import("/static/js/room/sound.js");
for (const name of ["rattle", "fanfare", "chime"]) {
  document.getElementById(name).addEventListener("click", () => sound[name]());
}
window.h = {
  sound, made,
  states: () => made.map((c) => c.state),
  sounds: () => made.map((c) => c.sounds),
  pending: () => timers.filter((t) => t.live).map((t) => t.delay),
  runTimers() { for (const t of timers) if (t.live) { t.live = false; t.fn(); } },
  settle: () => Promise.allSettled(made[0].asked),  // every suspend and resume asked so far is done
};
window.ready = true;
</script>"""


def state_is(page: Any, state: str) -> None:
    page.wait_for_function(f"h.made.length === 1 && h.made[0].state === {state!r}")


def test_a_sound_plays_and_the_audio_is_suspended_once_it_is_over(harness: Any) -> None:
    page = harness(HARNESS)
    assert page.evaluate("h.states()") == []  # no audio at all before the first sound
    page.click("#rattle")
    state_is(page, "running")
    assert page.evaluate("h.sounds()")[0] >= 3  # the rattle's clicks
    assert page.evaluate("h.pending()") == [1500]
    page.evaluate("h.runTimers()")
    state_is(page, "suspended")

    # The next sound wakes the same context, and lets it go again after.
    page.click("#fanfare")
    state_is(page, "running")
    assert len(page.evaluate("h.sounds()")) == 1
    page.click("#chime")  # another sound before the first is over: one wait, from the last
    assert page.evaluate("h.pending()") == [1500]
    page.evaluate("h.runTimers()")
    state_is(page, "suspended")


def test_a_sound_asked_while_the_audio_is_being_suspended_still_plays(harness: Any) -> None:
    page = harness(HARNESS)
    page.click("#rattle")
    state_is(page, "running")
    # The suspend is asked and the next sound comes before it is done: the audio ends up running.
    page.evaluate("async () => { h.runTimers(); h.sound.rattle(); await h.settle(); }")
    assert page.evaluate("h.states()") == ["running"]
    assert page.evaluate("h.pending()") == [1500]

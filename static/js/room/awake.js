// The screen kept on while its player is at a live game (the Screen Wake Lock API). A phone
// dims and locks after half a minute or so, and players wait longer than that for the others'
// turns: a locked phone's page is hidden, its player is soon told away, and its turn's chime
// is not heard. At your own pace, in the lobby, while the host has paused the game (no turn comes
// until they resume it, however long that is), for a spectator and once the game is over the
// screen sleeps as the device chooses.

let wanted = false;
let sentinel = null; // the lock held, or the promise of it while the browser is asked
let asking = null;

/** Whether a page showing ``state`` keeps the screen on; ``mine``: the seats it plays (not left, not a computer's). */
export function staysAwake(state, mine) {
  return state.status === "playing" && state.pace !== "own" && !state.paused && mine.length > 0;
}

async function take() {
  if (!wanted || sentinel || asking || document.visibilityState !== "visible" || !navigator.wakeLock) return;
  try {
    asking = navigator.wakeLock.request("screen");
    const lock = await asking;
    // The browser lets go of it when the page is hidden: it is asked again once shown.
    lock.addEventListener("release", () => {
      if (sentinel === lock) sentinel = null;
    });
    sentinel = lock;
  } catch {
    // Refused (a battery saver, a page not in view, a browser's policy): the screen sleeps as usual.
  } finally {
    asking = null;
  }
  if (!wanted) drop();
}

function drop() {
  const lock = sentinel;
  sentinel = null;
  lock?.release().catch(() => {});
}

/** Keep the screen on (true) or let it sleep (false); asked again at every draw, so cheap when unchanged. */
export function keepAwake(on) {
  wanted = Boolean(on);
  if (wanted) take();
  else drop();
}

// Shown again (the phone unlocked, the tab brought back): the lock the browser let go is asked again.
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") take();
});

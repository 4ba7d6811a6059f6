// Your games, kept current on a page left open: a laptop closed for hours, a tab in the background
// for a day. The list (and the header's count of games waiting for your move) is read again when
// the machine wakes, when the tab is shown again, when the browser is back online, and every few
// minutes while in view, so "Your move" and the time left are never those of hours before.
// Without script the page is as it was sent, and a reload reads it again.

const EVERY_MS = 2 * 60_000; // while in view: the time left is said to the minute in a turn's last hour
const TICK_MS = 20_000;
const SLEPT_MS = 3 * TICK_MS; // a tick this late: the machine slept (timers stand still meanwhile)
const SHOWN_AGAIN_MS = 10_000; // a tab shown again sooner than this after a read is not read again

let readAt = Date.now();
let tickAt = Date.now();
let reading = false;

// The keyboard's place (a game's link or its replay's, a pager link) is found again in the list read anew.
function placeOf(element) {
  const row = element?.closest?.(".game-row");
  const link = element?.closest?.(".replay-link") ? ".replay-link" : ".game-link";
  if (row) return `.game-row[data-code="${CSS.escape(row.dataset.code)}"] ${link}`;
  const rel = element?.closest?.(".pager a")?.getAttribute("rel");
  return rel ? `.pager a[rel="${rel}"]` : null;
}

// Only when something changed: a screen reader reading a list is not sent back to its top.
function renew(card, cardNow) {
  if (!card || !cardNow || card.innerHTML === cardNow.innerHTML) return;
  const place = card.contains(document.activeElement) ? placeOf(document.activeElement) : null;
  card.innerHTML = cardNow.innerHTML;
  if (place) card.querySelector(place)?.focus();
}

async function read() {
  if (reading) return;
  reading = true;
  try {
    // The list's own address: the page may be one drawn for a form's post (the e-mail form refused).
    const url = document.getElementById("games-card")?.dataset.url ?? window.location.href;
    const response = await fetch(url, { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" } });
    if (!response.ok) return; // tried again at the next moment that calls for it
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    renew(document.getElementById("games-card"), fresh.getElementById("games-card"));
    // The finished games: a game that ended meanwhile moves from the list above to this one, which
    // the page may not have had yet.
    let finished = document.getElementById("finished-card");
    const finishedNow = fresh.getElementById("finished-card");
    if (finished && !finishedNow) finished.remove();
    if (!finished && finishedNow) {
      finished = document.createElement("section");
      for (const { name, value } of finishedNow.attributes) finished.setAttribute(name, value);
      document.getElementById("games-card")?.after(finished);
    }
    renew(finished, finishedNow);
    const nav = document.querySelector('[data-testid="nav-games"]');
    const navNow = fresh.querySelector('[data-testid="nav-games"]');
    if (nav && navNow && nav.innerHTML !== navNow.innerHTML) nav.innerHTML = navNow.innerHTML;
    readAt = Date.now();
  } catch {
    // Offline or the server out of reach: the page keeps what it shows until the next try.
  } finally {
    reading = false;
  }
}

window.setInterval(() => {
  const now = Date.now();
  const slept = now - tickAt > SLEPT_MS;
  tickAt = now;
  if (slept || (document.visibilityState === "visible" && now - readAt >= EVERY_MS)) read();
}, TICK_MS);

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && Date.now() - readAt >= SHOWN_AGAIN_MS) read();
});
window.addEventListener("online", read);
// Back to the page from the browser's history (its back-forward cache): it shows what it showed then.
window.addEventListener("pageshow", (event) => {
  if (event.persisted) read();
});

// This browser's seed for the dice of each room it takes a seat in (see docs/fairness.md): made
// here, sent with the form that seats it, and kept by room in localStorage, so that it is the
// same seed each time the browser seats someone there, and the room page can show it at the
// game's end, for the player to find it in the game's client_seed. Beside each seed it keeps the
// commitment to the server's seed that the page showed when the seed was sent: at the end the room
// page checks the revealed seed against that one, not only against the one the server publishes
// then, so a server that chose its seed after seeing the players' seeds is caught.

const KEPT = "yahtzee-seeds"; // {code: {seed, at, commitment}}, the rooms this browser sent a seed to
const KEEP = 200; // rooms: the oldest are forgotten past it
const SENT = "yahtzee-seed-sent"; // this tab's seed sent for a room whose code it did not know yet (room.js reads it too)

export function newSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function kept() {
  try {
    return JSON.parse(localStorage.getItem(KEPT) ?? "{}") ?? {};
  } catch {
    return {}; // storage refused (a private window's) or damaged: no seed is known
  }
}

function keep(code, seed, commitment) {
  const seeds = kept();
  const before = seeds[code];
  // The first commitment seen with a seed stays: a later one could be the server's second choice.
  if (before?.seed === seed && (before.commitment || !commitment)) return;
  seeds[code] = { seed, at: before?.seed === seed ? before.at : Date.now() };
  if (commitment) seeds[code].commitment = commitment;
  const newest = Object.entries(seeds).sort(([, a], [, b]) => b.at - a.at).slice(0, KEEP);
  try {
    localStorage.setItem(KEPT, JSON.stringify(Object.fromEntries(newest)));
  } catch {
    // Storage refused: the seed is sent all the same, only not shown after the game.
  }
}

/** The seed this browser sent to room ``code``, or null. */
export function sentTo(code) {
  return kept()[code]?.seed ?? null;
}

/** The commitment to the server's seed that the page showed when this browser sent its seed to room ``code``, or null. */
export function seenCommitment(code) {
  return kept()[code]?.commitment ?? null;
}

/** The commitment ``sha256(seed)`` to a hex server seed, as hex (docs/fairness.md); null where the browser cannot hash (no crypto.subtle outside HTTPS). */
export async function commitmentOf(seed) {
  if (!crypto.subtle) return null;
  // Not hex: no seed of this scheme, so it matches no commitment.
  if (!/^(?:[0-9a-f]{2})+$/i.test(seed)) return "";
  const bytes = Uint8Array.from(seed.match(/../g), (pair) => parseInt(pair, 16));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

const made = new Map(); // code -> the seed this page offers a room the browser sent none to yet
/** The seed for a form that seats someone in room ``code``: the one the browser sent there before, else a new one. */
export function seedFor(code) {
  const seed = sentTo(code) ?? made.get(code) ?? newSeed();
  made.set(code, seed);
  return seed;
}

// A form that makes a room (the home page's, a rematch's) sends a seed before the room has a
// code: the tab notes it, and the page the form leads to, the new room's, keeps it under its
// code (``arrived``). Any other page the tab opens next drops it.
let justSent = null;
try {
  justSent = JSON.parse(sessionStorage.getItem(SENT) ?? "null");
  sessionStorage.removeItem(SENT);
} catch {
  justSent = null;
}

/**
 * The room page of ``code``, where this browser has a seat: the seed the form that led here sent
 * is this room's, and ``commitment`` the one the page shows for it.
 */
export function arrived(code, commitment) {
  if (justSent?.seed && !sentTo(code)) keep(code, justSent.seed, commitment);
  justSent = null;
}

// Each form that sends a seed: a form for a known room (data-seed-room) keeps it under that
// room's code, with the commitment the page shows (data-seed-commitment); any other notes it for
// the page it leads to.
document.addEventListener("submit", (event) => {
  const form = event.target;
  const seed = form.querySelector?.('input[name="client_seed"]')?.value;
  if (!seed || event.defaultPrevented) return;
  if (form.dataset.seedRoom) {
    keep(form.dataset.seedRoom, seed, form.dataset.seedCommitment);
    return;
  }
  try {
    sessionStorage.setItem(SENT, JSON.stringify({ seed }));
  } catch {
    // Storage refused: the seed is sent all the same, only not shown after the game.
  }
});

for (const input of document.querySelectorAll('input[name="client_seed"]')) {
  if (!input.value) input.value = newSeed();
}

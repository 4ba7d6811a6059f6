// The replay page: step through a finished game roll by roll (buttons, the slider, ← → Home End).
// The server renders every step from the Move log (games/services/replay.py) into #replay-data.

import { fmt, gettext, number } from "./i18n.js";
import { esc, keepSeatNamesFitted, redrawCard, scorecardHtml, updateCard } from "./scorecard.js";
import { colourMark, colourName } from "./words.js";

const data = JSON.parse(document.getElementById("replay-data").textContent);
const steps = data.steps;
const $ = (id) => document.getElementById(id);
const columns = data.ruleset.columns;

// The scorecards after each step: every card at the start, then the scorer's after each score;
// and the seats still in the game, as the table shows them (a seat that left is struck through).
const cardsAt = [];
const activeAt = [];
let cards = data.seats.map(() => null);
let active = data.seats.map(() => true);
for (const step of steps) {
  if (step.cards) cards = step.cards.slice();
  else if (step.card) { cards = cards.slice(); cards[step.seat] = step.card; }
  if (step.active) active = step.active;
  cardsAt.push(cards);
  activeAt.push(active);
}

let index = 0;

// The step button still enabled once a step button takes the replay to its first or last step.
const OTHER_WAY = { first: "next", prev: "next", next: "prev", last: "prev" };

// Painted: a die's colour by hue, pattern and letter, as at the table (site.css). A screen reader
// hears the dice as one sentence, each die's value and colour by name (diceLabel), as the table
// reads a roll: not the letters, nor the bare digits. The step panel is a live region, which reads
// the text put in it, not a label: the sentence is text of its own, the dice drawn are hidden.
const colourOf = (step, i) => (data.ruleset.colours.includes(step.colours?.[i]) ? step.colours[i] : null);

function diceHtml(step) {
  if (!step.dice.length) return "";
  const held = new Set(step.held);
  const dice = step.dice
    .map((d, i) => {
      const colour = colourOf(step, i);
      const painted = colour ? ` painted colour-${colour}` : "";
      const mark = colour ? `<b class="rdie-mark">${esc(colourMark(colour))}</b>` : "";
      return `<span class="rdie${held.has(i) ? " held" : ""}${painted}" aria-hidden="true" title="${colour ? `${colourName(colour)}, ` : ""}${held.has(i) ? gettext("kept") : gettext("rolled")}">${d}${mark}</span>`;
    })
    .join("");
  return `<span class="sr-only">${esc(diceLabel(step))}</span>${dice}`;
}

const diceLabel = (step) =>
  fmt(gettext("Dice: %(dice)s"), { dice: step.dice.map((d, i) => [d, colourOf(step, i) && colourName(colourOf(step, i))].filter(Boolean).join(" ")).join(", ") });

function verdictHtml(step) {
  const v = step.verdict;
  if (!v) return "";
  const what = step.kind === "roll" ? fmt(gettext("Kept for this roll: %(choice)s."), { choice: esc(v.chosen) }) : `${esc(v.chosen)}.`;
  if (v.lost < 0.05) return `<strong>${gettext("Coach: the best choice.")}</strong> ${what}`;
  const mild = v.lost <= 0.5;
  const lost = number(v.lost, 1);
  return `<strong>${fmt(mild ? gettext("Coach: close, about %(lost)s points lost.") : gettext("Coach: costly, about %(lost)s points lost."), { lost })}</strong> ${what}
    ${fmt(gettext("Perfect play: %(choice)s."), { choice: esc(v.best) })}`;
}

// A step's sentence: the server puts each name between FSI and PDI (U+2068, U+2069), drawn as a
// <bdi>, so that right-to-left names keep their order ("The game starts: אבי, שרה, Ann.").
const sentenceHtml = (text) => esc(text).replace(/\u2068([^\u2068\u2069]*)\u2069/g, "<bdi>$1</bdi>");

function cardHtml(step, shown, active) {
  const seats = data.seats.map((s, i) => ({ seat: i, name: s.name, gone: !active[i] }));
  const cards = Object.fromEntries(shown.map((card, i) => [i, card]));
  const just = step.kind === "score" ? { seat: step.seat, box: step.box, column: step.column } : null;
  // The seat the step is about plays unless it is out: not the one that just left. Its columns
  // stay in view when the card scrolls sideways, as at the table.
  const current = step.seat !== undefined && active[step.seat] ? step.seat : null;
  return scorecardHtml({ ruleset: data.ruleset, seats, cards, current, focus: focusOf(step), just, caption: gettext("Scorecards at this step"), wrap: true });
}

// The seat whose columns a step shows: the one it is about, or at the end the winner; else (the
// game's start, an abandoned game's end) the first seat, so the card keeps the layout of a
// pinned seat from step to step instead of changing it for one step.
const focusOf = (step) => step.seat ?? step.winners?.[0] ?? 0;

// A card scrolled sideways keeps its place unless the step's seat is out of view there: then
// it scrolls just far enough to show that seat's columns.
function showSeat(seat) {
  if (seat === null) return;
  for (const wrap of $("card").querySelectorAll(".scorecard-wrap")) {
    const head = wrap.querySelector(`th.seat-head[data-seat="${seat}"]`);
    if (!head || !scrolls(wrap)) continue;
    const box = wrap.getBoundingClientRect();
    const names = wrap.querySelector("th.box-col")?.getBoundingClientRect().width ?? 0;
    const at = head.getBoundingClientRect();
    if (at.left < box.left + names) wrap.scrollLeft -= box.left + names - at.left;
    else if (at.right > box.right) wrap.scrollLeft += at.right - box.right;
  }
}

// The card is drawn again at each step it changes, where it changes (updateCard: a card rebuilt
// would take most of a step's time): the keyboard stays on the box name it was on (as the table keeps
// it, room.js keepFocus), an open box help stays open, and a card scrolled sideways stays where
// it was scrolled to.
let drawnCard = "";
function drawCard(html) {
  const card = $("card");
  if (html === drawnCard) return;
  const wraps = () => [...card.querySelectorAll(".scorecard-wrap")];
  const active = card.contains(document.activeElement) ? document.activeElement : null;
  const focused = active?.id ?? "";
  const focusedWrap = wraps().indexOf(active);
  const help = [...card.querySelectorAll(".box-help")].find(popoverOpen)?.id;
  redrawCard(card, () => {
    updateCard(card, html);
    drawnCard = html;
  });
  scrollRegions();
  // The help opens before the keyboard goes back: a Close button in a closed help takes no focus.
  // Kept by an update in place, it is still open.
  const helpShown = help ? document.getElementById(help) : null;
  if (helpShown && !popoverOpen(helpShown)) helpShown.showPopover?.();
  const again = focused ? document.getElementById(focused) : wraps()[focusedWrap];
  again?.focus({ preventScroll: true });
}

function popoverOpen(el) {
  try {
    return el.matches(":popover-open");
  } catch {
    return false; // a browser without popovers shows none
  }
}

// A card wider than its place (eight players on a laptop) scrolls sideways: its scroll region
// is then a stop of the keyboard, named, where the arrow keys scroll it (not the replay's steps).
const scrolls = (el) => el.classList?.contains("scorecard-wrap") && el.scrollWidth > el.clientWidth + 1;
const HORIZONTAL = new Set(["ArrowLeft", "ArrowRight"]);

function scrollRegions() {
  for (const wrap of $("card").querySelectorAll(".scorecard-wrap")) {
    wrap.tabIndex = scrolls(wrap) ? 0 : -1;
    if (scrolls(wrap)) {
      wrap.setAttribute("role", "region");
      wrap.setAttribute("aria-label", wrap.querySelector("caption")?.textContent ?? gettext("Scorecards at this step"));
    } else {
      wrap.removeAttribute("role");
      wrap.removeAttribute("aria-label");
    }
  }
}

// What the step panel shows of a step: its round, its sentence, its dice and the coach's verdict.
function stepParts(step) {
  const who = step.seat !== undefined ? data.seats[step.seat] : null;
  const round = step.round ? `${fmt(gettext("Round %(round)s of %(total)s"), { round: step.round, total: data.ruleset.boxes.length * columns })} ·` : "";
  const computer = who && step.by_computer ? ` <span class="tag-computer">${gettext("computer")}</span>` : "";
  return {
    round: round ? `<span class="muted">${round}</span>` : "",
    text: `${sentenceHtml(step.text)}${computer}`,
    dice: diceHtml(step),
    verdict: verdictHtml(step),
    verdictClass: `verdict ${step.verdict && step.verdict.lost > 0.5 ? "costly" : "fine"}`,
  };
}

// The step panel is as tall as its tallest step, at every step: on a phone the card under it
// would otherwise move up and down as a step's sentence, dice or verdict take more or fewer
// lines. Laying out every step (near a thousand in a big Triple game) would hold the page for
// half a second at each width, so only the likeliest tallest are: of each kind of step (its
// number of dice, a round or not, the computer's tag or not, its verdict's kind), those with the
// longest sentence and the longest verdict. They are laid out unseen, at the panel's width (again when the width changes).
const PROBES_EACH = 3;
const plainLength = (html) => html.replace(/<[^>]*>/g, "").length;
let probeSteps = null;
function tallestCandidates() {
  if (probeSteps) return probeSteps;
  const kinds = new Map();
  for (const step of steps) {
    const parts = stepParts(step);
    const key = [step.dice.length, Boolean(parts.round), Boolean(step.by_computer), parts.verdict ? parts.verdictClass : ""].join(":");
    if (!kinds.has(key)) kinds.set(key, []);
    kinds.get(key).push({ parts, heading: plainLength(parts.round + parts.text), verdict: plainLength(parts.verdict) });
  }
  const chosen = new Set();
  for (const all of kinds.values()) {
    for (const by of ["heading", "verdict"]) {
      for (const c of [...all].sort((a, b) => b[by] - a[by]).slice(0, PROBES_EACH)) chosen.add(c.parts);
    }
  }
  probeSteps = [...chosen]
    .map((parts) => `<div class="replay-step"><h2>${parts.round} <span>${parts.text}</span></h2>${parts.dice ? `<div class="replay-dice">${parts.dice}</div>` : ""}${parts.verdict ? `<div class="${parts.verdictClass}">${parts.verdict}</div>` : ""}</div>`)
    .join("");
  return probeSteps;
}

let steadyWidth = 0;
function steadyPanel() {
  const panel = document.querySelector(".replay-step");
  const width = panel.getBoundingClientRect().width;
  if (!width || width === steadyWidth) return;
  steadyWidth = width;
  const probe = document.createElement("div");
  probe.setAttribute("aria-hidden", "true");
  probe.style.cssText = `position: absolute; left: 0; top: 0; width: ${width}px; visibility: hidden; pointer-events: none;`;
  probe.innerHTML = tallestCandidates();
  panel.parentElement.append(probe);
  const tallest = Math.max(...[...probe.children].map((el) => el.getBoundingClientRect().height));
  probe.remove();
  panel.style.minHeight = `${Math.ceil(tallest)}px`;
}

function show(i, { focus = false, address = true } = {}) {
  index = Math.max(0, Math.min(steps.length - 1, i));
  const step = steps[index];
  const position = fmt(gettext("Step %(step)s of %(steps)s"), { step: index + 1, steps: steps.length });
  $("position").textContent = position;
  $("scrub").value = String(index);
  $("scrub").setAttribute("aria-valuetext", position);
  const parts = stepParts(step);
  $("step-round").innerHTML = parts.round;
  $("step-text").innerHTML = parts.text;
  $("step-dice").innerHTML = parts.dice;
  $("step-dice").hidden = !step.dice.length;
  $("step-verdict").innerHTML = parts.verdict;
  $("step-verdict").hidden = !parts.verdict;
  $("step-verdict").className = parts.verdictClass;
  drawCard(cardHtml(step, cardsAt[index], activeAt[index]));
  showSeat(focusOf(step));
  const pressed = document.activeElement;
  $("first").disabled = $("prev").disabled = index === 0;
  $("last").disabled = $("next").disabled = index === steps.length - 1;
  // A step button disabled at either end would drop the keyboard to the top of the page: it
  // goes to the button that steps back the other way.
  if (pressed?.disabled && OTHER_WAY[pressed.id]) $(OTHER_WAY[pressed.id]).focus();
  if (address) addressSoon();
  if (focus) $("step-h").focus();
}

// The address names the step shown (a link to share). Browsers cap how often a page may rewrite
// it (past a hundred or two writes in a few seconds Safari throws, Chromium ignores them), and a held
// arrow key or a dragged slider steps many times a second: the address is written once the script
// that stepped is done, for the last step it took, and then at most every ADDRESS_GAP ms, the
// last step always.
const ADDRESS_GAP = 400;
let addressAt = -Infinity;
let addressDue = false;
let addressTimer = null;
function dropAddress() {
  window.clearTimeout(addressTimer);
  addressDue = false;
}
function writeAddress() {
  window.clearTimeout(addressTimer);
  if (!addressDue) return;
  addressDue = false;
  addressAt = performance.now();
  const step = steps[index];
  history.replaceState(null, "", `#move-${step.move}${step.kind === "end" ? "-end" : ""}`);
}
function addressSoon() {
  if (addressDue) return;
  addressDue = true;
  const wait = addressAt + ADDRESS_GAP - performance.now();
  if (wait > 0) addressTimer = window.setTimeout(writeAddress, wait);
  else queueMicrotask(writeAddress);
}
// A reader who follows a link away before a step's address is written comes back to that step.
window.addEventListener("pagehide", writeAddress);

const STEP_HASH = /^#move-(\d+)(-end)?$/;

function fromHash() {
  const found = STEP_HASH.exec(location.hash);
  if (!found) return 0;
  const move = Number(found[1]);
  if (found[2]) return steps.length - 1;
  const at = steps.findIndex((s) => s.move >= move);
  // A move after the game's last step (a link to a longer game's step) shows the nearest: the last.
  return at < 0 ? steps.length - 1 : at;
}

$("first").addEventListener("click", () => show(0));
$("prev").addEventListener("click", () => show(index - 1));
$("next").addEventListener("click", () => show(index + 1));
$("last").addEventListener("click", () => show(steps.length - 1));
$("scrub").max = String(steps.length - 1);
$("scrub").addEventListener("input", () => show(Number($("scrub").value)));
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest?.("input, textarea, select")) return;
  // A card that scrolls sideways is a stop of the keyboard where ← and → scroll it; a click on
  // a card that does not scroll leaves the focus on it too, and the keys step the replay there.
  if (HORIZONTAL.has(event.key) && scrolls(event.target)) return;
  const to = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: steps.length - 1 }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  show(to);
});
// A costly choice of the review is a link to its step only here: without script no step shows,
// and the page leaves it plain text rather than a link to an anchor that is not there.
document.querySelectorAll("a[data-move]").forEach((link) => {
  link.href = `#move-${Number(link.dataset.move)}`;
  link.addEventListener("click", (event) => {
    event.preventDefault();
    const move = Number(link.dataset.move);
    const at = steps.findIndex((s) => s.move === move);
    show(at < 0 ? 0 : at);
    $("replay").scrollIntoView({ block: "start" });
    $("step-h").focus();
  });
});
// The coach's review folds each player's costly choices under their line (eight players' lists
// run to thousands of pixels on a phone): the reader's own opens (a browser of one seat; a shared
// device's players each open theirs), and a lone player's.
const you = ($("replay").dataset.you ?? "").split(",").filter(Boolean).map(Number);
const folded = [...document.querySelectorAll("details.review-fold")];
for (const details of folded) {
  if (folded.length === 1 || (you.length === 1 && Number(details.dataset.seat) === you[0])) details.open = true;
}
$("step-h").tabIndex = -1;
// The section is named by the step it shows once there is one: without script its heading would
// name it "Loading the game…" for ever.
$("replay").setAttribute("aria-labelledby", "step-h");
// A window dragged wider or a phone turned sends resize after resize: the panel is measured
// again once the width has settled.
let steadyTimer = null;
window.addEventListener("resize", () => {
  scrollRegions();
  window.clearTimeout(steadyTimer);
  steadyTimer = window.setTimeout(steadyPanel, 150);
});
keepSeatNamesFitted($("card"));
// The reader's own way to an address wins over a step's address due to be written: a step's link
// typed or pasted while the page is open, a link followed, Back or Forward. Each fires popstate
// (show's own replaceState fires none) as the entry changes, before a timer can run and even
// where no hashchange follows (an address given again as it is shown, Back to an entry of the
// same address). The address due is dropped: the browser writes only the entry shown, now the
// one gone to, whose address names its step and is left as the reader gave it (written before
// the entry is left, inside Chromium's navigate event, the write cancels the Back). The entry
// left keeps the step last written there, at most ADDRESS_GAP ms of steps before.
// Only a step's address moves the replay: the skip link's #main, say, leaves it where it is.
// A step's link (a costly choice of the room's review) puts the keyboard on the step's sentence,
// as a link to an anchor would: a screen reader goes on from there, not from the top of the page.
window.addEventListener("popstate", () => {
  dropAddress();
  if (STEP_HASH.test(location.hash)) show(fromHash(), { focus: true, address: false });
});
show(fromHash(), { focus: STEP_HASH.test(location.hash) });
steadyPanel();

// Home: show the fields of the chosen way to play, one name field per pass-and-play player,
// and keep people + computers within the seats of one game before the form is sent.
import { fmt, gettext, ngettext } from "./i18n.js";
import "./seed.js";

const form = document.getElementById("create-form");
const count = document.getElementById("id_players");
const bots = document.getElementById("id_bots");
const total = document.getElementById("seats-total");
const online = form.querySelector(".online-only");
const local = form.querySelector(".local-only");
const submit = document.getElementById("create-btn");
const paces = document.getElementById("paces");
const MAX_SEATS = Number(count.max) || 8;

const people_ = (n) => fmt(ngettext("%(n)s person", "%(n)s people", n), { n });
const computers_ = (n) => fmt(ngettext("%(n)s computer", "%(n)s computers", n), { n });

// The browser refuses to send the form while a field says what is wrong (and shows it).
function checkSeats(isLocal) {
  const people = Math.trunc(Number(count.value));
  const computers = Math.trunc(Number(bots.value)) || 0;
  count.max = String(Math.max(1, MAX_SEATS - computers));
  bots.max = String(Math.max(0, MAX_SEATS - Math.max(people, 1)));
  let problem = "";
  if (isLocal && !(people >= 1)) {
    problem = fmt(gettext("At least one person plays: choose 1 to %(max)s."), { max: MAX_SEATS });
  } else if (isLocal && people > MAX_SEATS) {
    problem = fmt(gettext("Choose 1 to %(max_seats)s people."), { max_seats: MAX_SEATS });
  } else if (isLocal && people + computers > MAX_SEATS) {
    // The verb goes with the people: "1 person leaves room", "2 people leave room".
    problem = fmt(ngettext(
      "A game has at most %(max)s players, computers included: %(people)s leaves room for %(computers)s.",
      "A game has at most %(max)s players, computers included: %(people)s leave room for %(computers)s.",
      people,
    ), { max: MAX_SEATS, people: people_(people), computers: computers_(MAX_SEATS - people) });
  }
  const where = people + computers > MAX_SEATS && computers > 0 ? bots : count;
  count.setCustomValidity(where === count ? problem : "");
  bots.setCustomValidity(where === bots ? problem : "");
  count.setAttribute("aria-invalid", String(where === count && !!problem));
  bots.setAttribute("aria-invalid", String(where === bots && !!problem));
  const seats = fmt(ngettext("%(n)s seat", "%(n)s seats", people + computers), { n: people + computers });
  total.textContent = problem
    || (computers
      ? fmt(gettext("%(seats)s: %(people)s and %(computers)s."), { seats, people: people_(people), computers: computers_(computers) })
      : fmt(gettext("%(seats)s: %(people)s."), { seats, people: people_(people) }));
  total.classList.toggle("error", !!problem);
  // The server's word on the same seats gives way to the live one: one message, never two (nor
  // read twice: a field's description reads a hidden message too). Once either count is changed
  // it is about a form no longer there, and goes for good.
  for (const [field, id] of [[count, "players-error"], [bots, "bots-error"]]) {
    const served = document.getElementById(id);
    if (!served) continue;
    const stale = edited || !!problem;
    served.hidden = stale;
    describedBy(field, id, !stale);
  }
}

// Whether a count was changed since the page came (the server's refusal was of the counts sent).
let edited = false;

/** Name message ``id`` among what describes ``field``, or take it out. */
function describedBy(field, id, on) {
  const ids = (field.getAttribute("aria-describedby") ?? "").split(" ").filter((each) => each && each !== id);
  field.setAttribute("aria-describedby", (on ? [id, ...ids] : ids).join(" "));
}

// A part hidden is left out of the post too (its fields disabled): what was typed or picked there
// before another choice hid it is not the game's, and must not get the form refused.
function showPart(part, shown) {
  part.hidden = !shown;
  part.querySelectorAll("input, select, textarea").forEach((field) => { field.disabled = !shown; });
}

function update() {
  const mode = form.querySelector('input[name="mode"]:checked')?.value ?? "online";
  const isLocal = mode === "local";
  showPart(online, !isLocal);
  showPart(local, isLocal);
  // A game on one device is live; online, the pace shows the timer or the time per move.
  const ownPace = !isLocal && form.querySelector('input[name="pace"]:checked')?.value === "own";
  showPart(paces, !isLocal);
  form.querySelectorAll(".pace-live").forEach((el) => showPart(el, !ownPace));
  form.querySelectorAll(".pace-own").forEach((el) => showPart(el, ownPace));
  document.getElementById("id_name").required = !isLocal;
  const n = Number(count.value) || 1;
  if (isLocal) local.querySelectorAll(".player-field").forEach((field, i) => showPart(field, i < n));
  submit.textContent = isLocal ? gettext("Start game") : gettext("Create room");
  checkSeats(isLocal);
}

// What the server marked wrong, read before the live check of the seats marks anything.
const served = [...form.querySelectorAll('#form-errors, input[aria-invalid="true"], select[aria-invalid="true"]')];

form.addEventListener("change", update);
for (const field of [count, bots]) {
  field.addEventListener("input", () => {
    edited = true;
    update();
  });
}
update();

// A form the server refused comes back with the keyboard on the first thing to put right: what is
// said above the form, or a field marked wrong (read with why: its description). The page opens
// at its top otherwise, and an error there when the page loads is not announced.
const refused = served.find((el) => !el.disabled);
if (refused && (!document.activeElement || document.activeElement === document.body)) {
  if (refused.id === "form-errors") refused.tabIndex = -1;
  refused.focus();
}

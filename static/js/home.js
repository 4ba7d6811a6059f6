// Home: show the fields of the chosen way to play, one name field per pass-and-play player,
// and keep people + computers within the seats of one game before the form is sent.
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

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

// The browser refuses to send the form while a field says what is wrong (and shows it).
function checkSeats(isLocal) {
  const people = Math.trunc(Number(count.value));
  const computers = Math.trunc(Number(bots.value)) || 0;
  count.max = String(Math.max(1, MAX_SEATS - computers));
  bots.max = String(Math.max(0, MAX_SEATS - Math.max(people, 1)));
  let problem = "";
  if (isLocal && !(people >= 1)) {
    problem = `At least one person plays: choose 1 to ${MAX_SEATS}.`;
  } else if (isLocal && people + computers > MAX_SEATS) {
    problem = `A game has at most ${MAX_SEATS} players, computers included: `
      + `${plural(people, "person", "people")} leave room for ${plural(MAX_SEATS - people, "computer", "computers")}.`;
  }
  const where = people + computers > MAX_SEATS && computers > 0 ? bots : count;
  count.setCustomValidity(where === count ? problem : "");
  bots.setCustomValidity(where === bots ? problem : "");
  count.setAttribute("aria-invalid", String(where === count && !!problem));
  bots.setAttribute("aria-invalid", String(where === bots && !!problem));
  total.textContent = problem
    || `${plural(people + computers, "seat", "seats")}: ${plural(people, "person", "people")}`
      + (computers ? ` and ${plural(computers, "computer", "computers")}` : "") + ".";
  total.classList.toggle("error", !!problem);
}

function update() {
  const mode = form.querySelector('input[name="mode"]:checked')?.value ?? "online";
  const isLocal = mode === "local";
  online.hidden = isLocal;
  local.hidden = !isLocal;
  // A game on one device is live; online, the pace shows the timer or the time per move.
  const ownPace = !isLocal && form.querySelector('input[name="pace"]:checked')?.value === "own";
  paces.hidden = isLocal;
  form.querySelectorAll(".pace-live").forEach((el) => { el.hidden = ownPace; });
  form.querySelectorAll(".pace-own").forEach((el) => { el.hidden = !ownPace; });
  document.getElementById("id_name").required = !isLocal;
  const n = Number(count.value) || 1;
  local.querySelectorAll(".player-field").forEach((field, i) => {
    field.hidden = i >= n;
  });
  submit.textContent = isLocal ? "Start game" : "Create room";
  checkSeats(isLocal);
}

form.addEventListener("change", update);
count.addEventListener("input", update);
bots.addEventListener("input", update);
update();

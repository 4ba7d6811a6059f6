// The replay page: step through a finished game roll by roll (buttons, the slider, ← → Home End).
// The server renders every step from the Move log (games/services/replay.py) into #replay-data.

const data = JSON.parse(document.getElementById("replay-data").textContent);
const steps = data.steps;
const $ = (id) => document.getElementById(id);
const esc = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const columns = data.ruleset.columns;
const upperBoxes = data.ruleset.boxes.filter((b) => b.upper);
const lowerBoxes = data.ruleset.boxes.filter((b) => !b.upper);

// The scorecards after each step: every card at the start, then the scorer's after each score.
const cardsAt = [];
let cards = data.seats.map(() => null);
for (const step of steps) {
  if (step.cards) cards = step.cards.slice();
  else if (step.card) { cards = cards.slice(); cards[step.seat] = step.card; }
  cardsAt.push(cards);
}

let index = 0;

function diceHtml(step) {
  if (!step.dice.length) return "";
  const held = new Set(step.held);
  return step.dice
    .map((d, i) => `<span class="rdie${held.has(i) ? " held" : ""}" title="${held.has(i) ? "kept" : "rolled"}">${d}</span>`)
    .join("");
}

function verdictHtml(step) {
  const v = step.verdict;
  if (!v) return "";
  const what = step.kind === "roll" ? `Kept for this roll: ${esc(v.chosen)}.` : `${esc(v.chosen)}.`;
  if (v.lost < 0.05) return `<strong>Coach: the best choice.</strong> ${what}`;
  const mild = v.lost <= 0.5;
  return `<strong>Coach: ${mild ? "close" : "costly"}, about ${v.lost.toFixed(1)} points lost.</strong> ${what}
    Perfect play: ${esc(v.best)}.`;
}

function cell(card, column, box) {
  const col = card && card.columns[column];
  const points = col ? col.boxes[box] : undefined;
  return points === undefined ? "" : String(points);
}

function cardHtml(step, shown) {
  const seats = data.seats;
  const sub = columns > 1;
  const head = seats
    .map((s, i) => `<th scope="col" colspan="${columns}" class="${step.seat === i ? "turn" : ""}">${esc(s.name)}</th>`)
    .join("");
  const subHead = sub
    ? `<tr><th scope="row" class="sr-only-cell"><span class="sr-only">Column</span></th>${seats
        .map(() => data.ruleset.multipliers.map((m) => `<th scope="col" class="mult">×${m}</th>`).join(""))
        .join("")}</tr>`
    : "";
  const row = (box) => `<tr><th scope="row">${esc(box.label)}</th>${seats
    .map((s, i) => Array.from({ length: columns }, (_, k) => {
      const just = step.kind === "score" && step.seat === i && step.column === k && step.box === box.box;
      return `<td class="num${just ? " just" : ""}">${cell(shown[i], k, box.box)}</td>`;
    }).join(""))
    .join("")}</tr>`;
  const sum = (label, key, cls = "") => `<tr class="sum ${cls}"><th scope="row">${label}</th>${seats
    .map((s, i) => Array.from({ length: columns }, (_, k) => {
      const col = shown[i] && shown[i].columns[k];
      return `<td class="num">${col ? col[key] : ""}</td>`;
    }).join(""))
    .join("")}</tr>`;
  const total = `<tr class="sum grand"><th scope="row">Total</th>${seats
    .map((s, i) => `<td class="num" colspan="${columns}">${shown[i] ? shown[i].total : ""}</td>`)
    .join("")}</tr>`;
  return `<thead><tr><th scope="col"><span class="sr-only">Box</span></th>${head}</tr>${subHead}</thead>
    <tbody>${upperBoxes.map(row).join("")}${sum("Upper sum", "upper")}${sum(
      columns > 1 ? "Upper bonus" : `Bonus (${data.ruleset.upper_bonus_threshold}+)`, "upper_bonus")}
    ${lowerBoxes.map(row).join("")}${sum("Yahtzee bonus", "yahtzee_bonus")}${total}</tbody>`;
}

function show(i, { focus = false } = {}) {
  index = Math.max(0, Math.min(steps.length - 1, i));
  const step = steps[index];
  const who = step.seat !== undefined ? data.seats[step.seat] : null;
  $("position").textContent = `Step ${index + 1} of ${steps.length}`;
  $("scrub").value = String(index);
  $("scrub").setAttribute("aria-valuetext", `Step ${index + 1} of ${steps.length}`);
  const round = step.round ? `Round ${step.round} of ${data.ruleset.boxes.length * columns} ·` : "";
  const computer = who && step.by_computer ? ` <span class="tag-computer">computer</span>` : "";
  $("step-round").innerHTML = round ? `<span class="muted">${round}</span>` : "";
  $("step-text").innerHTML = `${esc(step.text)}${computer}`;
  $("step-dice").innerHTML = diceHtml(step);
  $("step-dice").setAttribute("aria-label", step.dice.length ? `Dice: ${step.dice.join(" ")}` : "No dice");
  $("step-dice").hidden = !step.dice.length;
  const verdict = verdictHtml(step);
  $("step-verdict").innerHTML = verdict;
  $("step-verdict").hidden = !verdict;
  $("step-verdict").className = `verdict ${step.verdict && step.verdict.lost > 0.5 ? "costly" : "fine"}`;
  $("card").innerHTML = cardHtml(step, cardsAt[index]);
  $("first").disabled = $("prev").disabled = index === 0;
  $("last").disabled = $("next").disabled = index === steps.length - 1;
  history.replaceState(null, "", `#move-${step.move}${step.kind === "end" ? "-end" : ""}`);
  if (focus) $("step-h").focus();
}

function fromHash() {
  const found = /^#move-(\d+)(-end)?$/.exec(location.hash);
  if (!found) return 0;
  const move = Number(found[1]);
  if (found[2]) return steps.length - 1;
  const at = steps.findIndex((s) => s.move >= move);
  return at < 0 ? 0 : at;
}

$("first").addEventListener("click", () => show(0));
$("prev").addEventListener("click", () => show(index - 1));
$("next").addEventListener("click", () => show(index + 1));
$("last").addEventListener("click", () => show(steps.length - 1));
$("scrub").max = String(steps.length - 1);
$("scrub").addEventListener("input", () => show(Number($("scrub").value)));
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
  const to = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: steps.length - 1 }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  show(to);
});
document.querySelectorAll("a[data-move]").forEach((link) => {
  link.addEventListener("click", (event) => {
    event.preventDefault();
    const move = Number(link.dataset.move);
    const at = steps.findIndex((s) => s.move === move);
    show(at < 0 ? 0 : at);
    $("replay").scrollIntoView({ block: "start" });
    $("step-h").focus();
  });
});
$("step-h").tabIndex = -1;
show(fromHash());

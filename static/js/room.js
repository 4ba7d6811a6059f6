// The room page: a client of the websocket protocol (docs/protocol.md).
// The server is the referee; this page only draws the state it is sent and asks for actions.
import { clientSeed } from "./seed.js";

const root = document.getElementById("room");
const code = root.dataset.code;
const initial = JSON.parse(document.getElementById("initial").textContent);
const csrf = document.querySelector('meta[name="csrf-token"]').content;
const $ = (id) => document.getElementById(id);

const FACE_WORDS = ["", "one", "two", "three", "four", "five", "six"];
const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };
const pageId = Math.random().toString(36).slice(2, 8);
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)").matches;

let state = initial.state;
let mine = initial.you;
let presence = { seats: {}, spectators: 0 };
let socket = null;
let connected = false;
let retryDelay = 500;
let counter = 0;
let inflight = null; // the action frame sent and not yet answered
const queue = []; // functions that build the next action frame from the current state
let desiredHeld = null; // the holds this page shows while hold frames are on their way
let rolling = new Set(); // dice to animate on the next draw
let lastTurnKey = null;
let muted = localStorage.getItem("yahtzee-muted") === "1";
let hintResult = null; // the coach's answer for the current version
let hintPending = false;
let review = null; // the coach's look back at a finished game
const LEVELS = { optimal: "Expert", casual: "Casual", beginner: "Beginner" };

// --- helpers ---------------------------------------------------------------------------

const esc = (text) =>
  String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const seatName = (seat) => state.seats[seat]?.name ?? "?";
const isMine = (seat) => mine.includes(seat);
const myTurn = () => state.status === "playing" && state.turn && isMine(state.turn.seat);
const isHost = () => mine.some((s) => state.seats[s]?.host && state.seats[s]?.status === "active");
const held = () => (desiredHeld ?? state.turn?.held ?? []);
const boxLabel = (box) => state.ruleset.boxes.find((b) => b.box === box)?.label ?? box;
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

// Messages that arrive together are read together, not the last one alone.
let announced = [];
let announceTimer = null;
function announce(text) {
  announced.push(text);
  window.clearTimeout(announceTimer);
  announceTimer = window.setTimeout(() => {
    $("announce").textContent = announced.join(" ");
    announced = [];
  }, 120);
}

let toastTimer = null;
function toast(text, kind = "error") {
  const box = $("toast");
  box.textContent = text;
  box.dataset.kind = kind;
  box.hidden = false;
  window.clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => (box.hidden = true), 6000);
}

function chime() {
  if (muted) return;
  try {
    const ctx = new (window.AudioContext || window.webkitAudioContext)();
    const now = ctx.currentTime;
    [660, 880].forEach((freq, i) => {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + i * 0.12);
      gain.gain.exponentialRampToValueAtTime(0.08, now + i * 0.12 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.12 + 0.25);
      osc.connect(gain).connect(ctx.destination);
      osc.start(now + i * 0.12);
      osc.stop(now + i * 0.12 + 0.3);
    });
    window.setTimeout(() => ctx.close(), 800);
  } catch {
    /* no audio: the title and the banner still say it */
  }
}

// --- the socket ------------------------------------------------------------------------

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/rooms/${code}/`);
  setConnection("connecting");
  socket.addEventListener("open", () => {
    retryDelay = 500;
  });
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  socket.addEventListener("close", (event) => {
    connected = false;
    hintPending = false;
    if (event.code === 4404) {
      setConnection("gone");
      toast("This room no longer exists.");
      return;
    }
    setConnection("reconnecting");
    window.setTimeout(connect, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 10000);
  });
}

function setConnection(status) {
  const labels = {
    connecting: "Connecting…",
    connected: "Connected",
    reconnecting: "Reconnecting…",
    gone: "Disconnected",
  };
  const el = $("conn");
  el.dataset.state = status;
  el.textContent = labels[status];
  draw();
}

function send(frame) {
  socket.send(JSON.stringify(frame));
}

window.setInterval(() => {
  if (connected) send({ type: "ping" });
}, 20000);

function enqueue(build, kind = "other") {
  build.kind = kind;
  queue.push(build);
  pump();
}

// A roll or score on its way: until its answer arrives the dice on screen are about to change,
// so further rolls, scores and holds wait for the player to see the new state.
function busy() {
  return (inflight && (inflight.type === "roll" || inflight.type === "score")) || queue.some((b) => b.kind === "roll" || b.kind === "score");
}

function pump() {
  while (!inflight && queue.length && connected) {
    const frame = queue.shift()();
    if (!frame) continue;
    inflight = { ...frame, version: state.version, id: `${pageId}-${++counter}` };
    send(inflight);
  }
}

function receive(frame) {
  switch (frame.type) {
    case "you":
      mine = frame.seats;
      break;
    case "state":
      onState(frame);
      break;
    case "presence":
      presence = frame;
      draw();
      break;
    case "error":
      onError(frame);
      break;
    case "rolled":
      rolling = new Set([0, 1, 2, 3, 4].filter((i) => !frame.held.includes(i)));
      announce(`${seatName(state.turn?.seat)} rolled ${frame.dice.join(", ")}.`);
      break;
    case "scored": {
      const who = seatName(state.turn?.seat);
      const col = state.ruleset.columns > 1 ? ` (column ×${state.ruleset.multipliers[frame.column]})` : "";
      const bonus = frame.bonus ? ` plus a ${frame.bonus} Yahtzee bonus` : "";
      announce(`${who} scored ${frame.points} in ${boxLabel(frame.box)}${col}${bonus}.`);
      break;
    }
    case "joined":
      announce(`${frame.name} joined.`);
      break;
    case "left":
      announce(`${frame.name ?? "A player"} left.`);
      break;
    case "started":
      announce("The game has started.");
      break;
    case "rematch":
      announce("A rematch room is open.");
      break;
    case "hint":
      hintPending = false;
      if (frame.version === state.version) {
        hintResult = frame;
        announce(`Coach: ${frame.options.map((o) => o.text).join("; or ")}.`);
      }
      draw();
      break;
    case "bot":
      announce(`${frame.name} is now played by the computer.`);
      break;
    case "game_over":
      break;
    case "pong":
      // A state this page missed (e.g. while the server's Redis restarted): fetch it.
      if (typeof frame.version === "number" && frame.version > state.version) send({ type: "sync" });
      break;
    default:
      break;
  }
}

function onState(next) {
  const first = !connected;
  connected = true;
  if (first) setConnection("connected");
  if (next.version < state.version && !first) return;
  if (next.version !== state.version) {
    hintResult = null;
    hintPending = false;
  }
  state = next;
  if (inflight && state.version > inflight.version) inflight = null;
  if (first && inflight) {
    // We never saw the answer to this action: send the very same frame again. If it had
    // landed, the server refuses it as stale or repeated, so it applies exactly once.
    if (state.version === inflight.version) send(inflight);
    else inflight = null;
  }
  if (!inflight && !queue.length) desiredHeld = null;
  draw();
  pump();
}

function onError(frame) {
  if (frame.id && frame.id.startsWith("hint-")) {
    hintPending = false;
  }
  const mineFailed = inflight && (frame.id === inflight.id || !frame.id);
  if (mineFailed) {
    inflight = null;
    queue.length = 0;
    desiredHeld = null;
    if (!frame.id && connected) send({ type: "sync" }); // an error that could not name the action
  }
  if (frame.code === "stale" && mineFailed) toast("The table changed just before your move: have a look and try again.", "info");
  else if (frame.code !== "stale" && frame.code !== "repeated_action") toast(frame.message);
  draw();
  pump();
}

// --- actions ---------------------------------------------------------------------------

function toggleHold(index) {
  if (!myTurn() || !state.turn.rolls_used || !state.turn.rolls_left || busy()) return;
  const set = new Set(held());
  set.has(index) ? set.delete(index) : set.add(index);
  if (set.size === 5) {
    toast("Keep at most four dice: a roll needs at least one die to throw.", "info");
    return;
  }
  desiredHeld = [...set].sort();
  draw();
  enqueue(() => {
    const want = desiredHeld ?? state.turn.held;
    if (want.join() === state.turn.held.join()) return null;
    return { type: "hold", held: want };
  }, "hold");
}

function roll() {
  if (!myTurn() || !state.turn.rolls_left || busy()) return;
  enqueue(() => (myTurn() && state.turn.rolls_left ? { type: "roll" } : null), "roll");
}

async function score(box, column) {
  const option = state.options.find((o) => o.box === box && o.column === column);
  if (!option || !myTurn() || busy()) return;
  const seenVersion = state.version;
  if (!option.legal) {
    toast(option.reason);
    return;
  }
  if (option.points + option.bonus === 0) {
    const col = state.ruleset.columns > 1 ? ` (×${state.ruleset.multipliers[column]})` : "";
    $("confirm-text").textContent = `These dice score nothing in ${boxLabel(box)}${col}. Fill it with a 0?`;
    const dialog = $("confirm");
    dialog.returnValue = "";
    dialog.showModal();
    const answer = await new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue), { once: true }));
    if (answer !== "yes") return;
    if (state.version !== seenVersion) return; // the table changed while the question was open
  }
  enqueue(() => ({ type: "score", box, column }), "score");
}

function askHint() {
  if (!connected || hintPending) return;
  hintPending = true;
  send({ type: "hint", version: state.version, id: `hint-${pageId}-${++counter}` });
  draw();
}

function hostAction(type, seat) {
  enqueue(() => ({ type, seat }));
}

// --- drawing ---------------------------------------------------------------------------

function keepFocus(fn) {
  const id = document.activeElement?.id;
  fn();
  if (id && document.activeElement?.id !== id) document.getElementById(id)?.focus();
}

function draw() {
  root.dataset.version = String(state.version);
  root.dataset.status = state.status;
  keepFocus(() => {
    drawStatus();
    drawLobby();
    drawPlay();
    drawCard();
    drawSeats();
    drawOver();
    drawFair();
  });
  cueTurn();
}

function drawStatus() {
  const n = presence.spectators || 0;
  $("watchers").textContent = n ? `${plural(n, "spectator")} watching` : "";
  $("mute").textContent = muted ? "Sound off" : "Sound on";
  $("mute").setAttribute("aria-pressed", String(!muted));
  $("mute").setAttribute("aria-label", muted ? "Turn sound on" : "Turn sound off");
  const sub = [state.ruleset.label];
  if (state.local) sub.push("played on this device");
  if (!mine.length && state.status !== "finished") sub.push("you are watching");
  $("room-sub").textContent = sub.join(" · ");
}

function cueTurn() {
  const turnKey = state.turn ? `${state.turn.number}-${state.turn.seat}` : null;
  const mineNow = myTurn();
  document.title = `${mineNow && !state.local ? "● Your turn · " : ""}Room ${code}`;
  if (turnKey && turnKey !== lastTurnKey && lastTurnKey !== null) {
    if (mineNow && !state.local) chime();
    announce(mineNow ? `Your turn, ${seatName(state.turn.seat)}.` : `${seatName(state.turn.seat)}'s turn.`);
  }
  lastTurnKey = turnKey;
}

function drawLobby() {
  const lobby = $("lobby");
  lobby.hidden = state.status !== "lobby";
  if (lobby.hidden) return;
  const active = state.seats.filter((s) => s.status === "active");
  const host = isHost();
  const canJoin = !state.local || mine.length;
  let html = `<h2 id="lobby-h">Waiting for players</h2>
    <p class="muted">${esc(state.ruleset.label)}: ${esc(state.ruleset.summary)}</p>`;
  if (!state.local) {
    html += `<div class="invite">
      <label for="invite">Invite link: send it to your friends</label>
      <div class="invite-row"><input id="invite" readonly value="${esc(root.dataset.invite)}">
      <button id="copy" class="btn" type="button">Copy link</button></div></div>`;
  }
  if (canJoin && active.length < 8) {
    html += `<form method="post" action="${root.dataset.joinUrl}" class="join-form">
      <input type="hidden" name="csrfmiddlewaretoken" value="${esc(csrf)}">
      <input type="hidden" name="client_seed" value="${clientSeed}">
      <label for="join-name">${mine.length ? "Add a player on this device" : "Your name"}</label>
      <input id="join-name" name="name" maxlength="24" required autocomplete="nickname">
      <button class="btn" type="submit" id="join-btn">${mine.length ? "Add player" : "Take a seat"}</button>
    </form>`;
  } else if (!canJoin) {
    html += `<p class="muted">This game is played on one device: you can watch it.</p>`;
  }
  if (host && active.length < 8) {
    const options = Object.entries(LEVELS)
      .map(([value, label]) => `<option value="${value}" ${value === "casual" ? "selected" : ""}>${label}</option>`)
      .join("");
    html += `<div class="bot-form"><label for="bot-level">Add a computer player</label>
      <select id="bot-level">${options}</select>
      <button id="add-bot" class="btn" type="button">Add computer</button></div>`;
  }
  if (host) {
    html += `<div class="lobby-actions"><button id="start" class="btn btn-primary btn-big" type="button">Start game with ${plural(active.length, "player")}</button></div>`;
  } else {
    html += `<p class="muted">Waiting for the host to start the game.${mine.length ? "" : " Without a seat you can watch."}</p>`;
  }
  const typed = $("join-name")?.value ?? "";
  const level = $("bot-level")?.value;
  lobby.innerHTML = html;
  if ($("join-name")) $("join-name").value = typed;
  if (level && $("bot-level")) $("bot-level").value = level;
  $("copy")?.addEventListener("click", copyInvite);
  $("start")?.addEventListener("click", () => enqueue(() => ({ type: "start" })));
  $("add-bot")?.addEventListener("click", () => {
    const level = $("bot-level").value;
    enqueue(() => ({ type: "add_bot", level }));
  });
}

async function copyInvite() {
  const input = $("invite");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand("copy");
  }
  $("copy").textContent = "Copied!";
  announce("Invite link copied.");
  window.setTimeout(() => $("copy") && ($("copy").textContent = "Copy link"), 2000);
}

function dieHtml(value, index, isHeld, canHold) {
  const pips = value
    ? Array.from({ length: 9 }, (_, i) => `<i class="${PIPS[value].includes(i) ? "on" : ""}"></i>`).join("")
    : "";
  const label = value ? `Die ${index + 1}: ${FACE_WORDS[value]}${isHeld ? ", held" : ""}` : `Die ${index + 1}: not rolled`;
  const classes = ["die", isHeld ? "held" : "", rolling.has(index) && !reducedMotion ? "rolling" : "", value ? "" : "blank"];
  return `<button type="button" id="die-${index}" class="${classes.join(" ")}" data-die="${index}"
      aria-pressed="${isHeld}" aria-label="${label}" ${canHold ? "" : 'aria-disabled="true"'}>
      <span class="pips" aria-hidden="true">${pips}</span>
      <span class="die-tag" aria-hidden="true">${isHeld ? "HELD" : `${index + 1}`}</span></button>`;
}

function drawPlay() {
  const table = $("table");
  table.hidden = !state.cards.length;
  const play = $("play");
  if (state.status !== "playing" || !state.turn) {
    play.hidden = true;
    return;
  }
  play.hidden = false;
  const turn = state.turn;
  const me = myTurn();
  const name = seatName(turn.seat);
  const canHold = me && turn.rolls_used > 0 && turn.rolls_left > 0;
  const holds = held();
  let banner;
  if (me && state.local && mine.length > 1) banner = `${esc(name)}'s turn <span class="muted">(pass the device to ${esc(name)})</span>`;
  else if (me) banner = `Your turn, ${esc(name)}`;
  else banner = `${esc(name)}'s turn`;
  const dice = turn.dice.length ? turn.dice : [0, 0, 0, 0, 0];
  const rollLabel = turn.rolls_used === 0 ? "Roll the dice" : turn.rolls_left ? "Roll again" : "No rolls left";
  const pips = [0, 1, 2].map((i) => `<span class="roll-pip ${i < turn.rolls_used ? "used" : ""}"></span>`).join("");
  let hint = "";
  if (me) {
    hint = turn.rolls_used === 0
      ? "Roll to start your turn."
      : turn.rolls_left
        ? "Tap dice to hold them, roll again, or score a box on your card."
        : "Choose a box on your card to score.";
  } else {
    hint = `Waiting for ${esc(name)}…`;
  }
  play.innerHTML = `
    <h2 id="turn-h" class="turn-banner ${me ? "mine" : ""}">${banner}</h2>
    <p class="muted turn-meta">Turn ${turn.number} · ${hint}</p>
    <div class="dice" role="group" aria-label="Dice">${dice.map((v, i) => dieHtml(v, i, holds.includes(i), canHold)).join("")}</div>
    ${me ? `<div class="roll-row">
      <button id="roll" class="btn btn-primary btn-big" type="button" ${turn.rolls_left ? "" : "disabled"}
        aria-label="${rollLabel}, ${plural(turn.rolls_left, "roll")} left">${rollLabel}
        <span class="rolls-left">${plural(turn.rolls_left, "roll")} left</span></button>
      <span class="roll-pips" aria-hidden="true">${pips}</span></div>
      ${state.hints && turn.rolls_used > 0 ? hintHtml() : ""}
      <p class="keys muted">Keys: <kbd>1</kbd>–<kbd>5</kbd> hold · <kbd>Space</kbd> roll · <kbd>Tab</kbd> to a box, <kbd>Enter</kbd> to score</p>` : ""}`;
  if (rolling.size) {
    const done = rolling;
    window.setTimeout(() => {
      if (rolling === done) rolling = new Set();
      for (const i of done) $(`die-${i}`)?.classList.remove("rolling");
    }, 650);
  }
  play.querySelectorAll(".die").forEach((el) => el.addEventListener("click", () => toggleHold(Number(el.dataset.die))));
  $("roll")?.addEventListener("click", roll);
  $("hint")?.addEventListener("click", askHint);
}

function hintHtml() {
  if (!hintResult) {
    return `<div class="hint-row"><button id="hint" class="btn btn-small btn-ghost" type="button" ${hintPending ? "disabled" : ""}>
      ${hintPending ? "Thinking…" : "Hint"}</button></div>`;
  }
  const items = hintResult.options
    .map((o, i) => `<li${i === 0 ? ' class="best"' : ""}><span>${esc(o.text)}</span> <span class="expect">≈ ${o.expected.toFixed(1)}</span></li>`)
    .join("");
  return `<div class="hint-box" role="note" aria-label="Coach's hint"><p><strong>Coach:</strong> best choices and your expected final score</p><ol>${items}</ol></div>`;
}

function drawCard() {
  const section = $("card");
  if (!state.cards.length) {
    section.innerHTML = "";
    return;
  }
  const rs = state.ruleset;
  const cols = rs.columns;
  const current = state.status === "playing" ? state.turn?.seat : null;
  const options = new Map(state.options.map((o) => [`${o.box}/${o.column}`, o]));
  const me = myTurn();
  const nameCell = (seat, span) => {
    const cur = seat.seat === current;
    return `<th scope="col" ${span > 1 ? `colspan="${span}"` : ""} class="${cur ? "current" : ""} ${seat.status !== "active" ? "gone" : ""}">
      ${cur ? '<span class="turn-mark" aria-hidden="true">▶</span> ' : ""}${esc(seat.name)}${cur ? '<span class="sr-only"> (to play)</span>' : ""}</th>`;
  };
  let head = `<tr><th scope="col" class="box-col" ${cols > 1 ? 'rowspan="2"' : ""}>Box</th>${state.seats.map((seat) => nameCell(seat, cols)).join("")}</tr>`;
  if (cols > 1) {
    head += `<tr class="multipliers">${state.seats
      .map((seat) => rs.multipliers.map((m) => `<th scope="col" class="${seat.seat === current ? "current" : ""}"><span class="sr-only">${esc(seat.name)} </span>×${m}</th>`).join(""))
      .join("")}</tr>`;
  }
  const rows = [];
  const boxes = rs.boxes;
  const totalRow = (label, key, cls = "total", extra = null) => {
    const cells = state.cards
      .map((card) =>
        card.columns
          .map((col) => `<td>${extra ? extra(col) : col[key]}</td>`)
          .join(""),
      )
      .join("");
    return `<tr class="${cls}"><th scope="row">${label}</th>${cells}</tr>`;
  };
  boxes.forEach((box, index) => {
    const cells = state.cards
      .map((card) =>
        card.columns
          .map((col, k) => {
            const points = col.boxes[box.box];
            if (points !== undefined && points !== null) return `<td class="filled">${points}</td>`;
            if (card.seat !== current) return `<td class="open"></td>`;
            const option = options.get(`${box.box}/${k}`);
            if (!option) return `<td class="open"></td>`;
            const id = `score-${box.box}-${k}`;
            const colText = cols > 1 ? ` in column ×${rs.multipliers[k]}` : "";
            const shown = `${option.points}${option.bonus ? `<small>+${option.bonus}</small>` : ""}`;
            if (!me) return `<td class="preview"><span aria-label="${esc(box.label)}${colText} would score ${option.points}">${shown}</span></td>`;
            if (!option.legal) {
              return `<td class="option"><button type="button" id="${id}" class="score-btn forbidden" data-box="${box.box}" data-col="${k}"
                aria-disabled="true" title="${esc(option.reason)}" aria-label="${esc(box.label)}${colText}: not allowed. ${esc(option.reason)}">✕</button></td>`;
            }
            const bonusText = option.bonus ? ` plus ${option.bonus} Yahtzee bonus` : "";
            const jokerText = option.joker ? " (joker)" : "";
            return `<td class="option"><button type="button" id="${id}" class="score-btn ${option.points + option.bonus === 0 ? "zero" : ""}"
              data-box="${box.box}" data-col="${k}" aria-label="Score ${esc(box.label)}${colText} for ${option.points} points${bonusText}${jokerText}">${shown}</button></td>`;
          })
          .join(""),
      )
      .join("");
    rows.push(`<tr><th scope="row">${esc(box.label)}</th>${cells}</tr>`);
    const lastUpper = box.upper && (index + 1 === boxes.length || !boxes[index + 1].upper);
    if (lastUpper) {
      rows.push(
        totalRow("Upper sum", "upper", "total", (col) => {
          const made = col.upper >= rs.upper_bonus_threshold;
          return `${col.upper}<span class="goal ${made ? "made" : ""}"> / ${rs.upper_bonus_threshold}${made ? " ✓" : ""}</span>`;
        }),
      );
      rows.push(totalRow(`Upper bonus <small class="muted">(${rs.upper_bonus} at ${rs.upper_bonus_threshold})</small>`, "upper_bonus"));
    }
  });
  rows.push(totalRow("Lower sum", "lower"));
  if (rs.boxes.some((b) => b.box === "yahtzee") && rs.name !== "yeti" && rs.name !== "yatzy") {
    rows.push(totalRow("Yahtzee bonus", "yahtzee_bonus"));
  }
  if (cols > 1) rows.push(totalRow("Column total", "total"));
  const grand = state.cards
    .map((card) => `<td colspan="${cols}">${card.total}</td>`)
    .join("");
  rows.push(`<tr class="total grand"><th scope="row">Total</th>${grand}</tr>`);
  section.innerHTML = `<h2 id="card-h">Scorecard</h2>
    <div class="scorecard-wrap" tabindex="-1"><table class="scorecard ${cols > 1 ? "triple" : ""}">
    <caption class="sr-only">Scorecard: a column per ${cols > 1 ? "player and multiplier" : "player"}${me ? "; your open boxes show what they would score now" : ""}</caption>
    <thead>${head}</thead>
    <tbody>${rows.join("")}</tbody></table></div>`;
  section.querySelectorAll(".score-btn").forEach((btn) =>
    btn.addEventListener("click", () => score(btn.dataset.box, Number(btn.dataset.col))),
  );
}

function drawSeats() {
  const section = $("seats");
  const host = isHost();
  const current = state.status === "playing" ? state.turn?.seat : null;
  const items = state.seats
    .map((seat) => {
      if (seat.status !== "active" && state.status === "lobby") return "";
      const online = presence.seats[String(seat.seat)] !== "away"; // unknown until the first presence frame
      const tags = [];
      if (seat.host) tags.push('<span class="tag">host</span>');
      if (isMine(seat.seat)) tags.push('<span class="tag you">you</span>');
      if (seat.kind === "bot") tags.push(`<span class="tag bot">computer${seat.level ? ` · ${esc(LEVELS[seat.level] ?? seat.level)}` : ""}</span>`);
      if (seat.status !== "active") tags.push('<span class="tag">left</span>');
      if (seat.seat === current) tags.push('<span class="tag turn">to play</span>');
      const presenceText = seat.kind === "bot" ? "" : seat.status !== "active" ? "" : online ? "online" : "away";
      const buttons = [];
      const active = seat.status === "active";
      const live = state.status === "lobby" || state.status === "playing";
      if (live && active && isMine(seat.seat)) {
        buttons.push(`<button type="button" class="btn btn-small btn-quiet" data-act="leave" data-seat="${seat.seat}" id="leave-${seat.seat}">Leave</button>`);
      } else if (live && active && host && !seat.host) {
        if (state.status === "lobby") {
          buttons.push(`<button type="button" class="btn btn-small btn-quiet" data-act="kick" data-seat="${seat.seat}" id="kick-${seat.seat}">Remove</button>`);
        } else if (!online && seat.kind !== "bot") {
          buttons.push(`<button type="button" class="btn btn-small btn-quiet" data-act="replace" data-seat="${seat.seat}" id="replace-${seat.seat}">Let a computer play</button>`);
          buttons.push(`<button type="button" class="btn btn-small btn-quiet" data-act="remove" data-seat="${seat.seat}" id="remove-${seat.seat}">Take out (away)</button>`);
        }
      } else if (state.status === "playing" && !active && host) {
        buttons.push(`<button type="button" class="btn btn-small btn-quiet" data-act="replace" data-seat="${seat.seat}" id="replace-${seat.seat}">Let a computer play</button>`);
      }
      const total = state.cards[seat.seat]?.total;
      return `<li class="seat ${seat.seat === current ? "current" : ""} ${active ? "" : "gone"}">
        ${seat.kind === "bot" ? '<span class="bot-mark" aria-hidden="true">⚙</span>' : `<span class="presence ${presenceText}" aria-hidden="true"></span>`}
        <span class="seat-name">${esc(seat.name)}</span>${tags.join("")}
        ${presenceText ? `<span class="presence-text">${presenceText}</span>` : ""}
        ${total !== undefined ? `<span class="seat-total" aria-label="total ${total}">${total}</span>` : ""}
        ${buttons.join("")}</li>`;
    })
    .join("");
  section.innerHTML = `<h2 id="seats-h">Players</h2><ol class="seat-list">${items}</ol>`;
  section.querySelectorAll("[data-act]").forEach((btn) =>
    btn.addEventListener("click", () => {
      const seat = Number(btn.dataset.seat);
      const act = btn.dataset.act;
      const question = {
        leave: `Leave the game as ${seatName(seat)}?`,
        kick: `Remove ${seatName(seat)} from the room?`,
        remove: `Take ${seatName(seat)} out of the game? Their scores stay on the card.`,
        replace: `Let the computer play for ${seatName(seat)}? The seat keeps its scores.`,
      }[act];
      if (!window.confirm(question)) return;
      if (act === "replace") enqueue(() => ({ type: "replace", seat, level: "optimal" }));
      else hostAction(act, seat);
    }),
  );
}

function ranking() {
  const rows = state.cards.map((card) => ({ seat: card.seat, total: card.total })).sort((a, b) => b.total - a.total);
  let rank = 0;
  return rows.map((row, i) => {
    if (i === 0 || row.total !== rows[i - 1].total) rank = i + 1;
    return { ...row, rank };
  });
}

function drawOver() {
  const over = $("over");
  const done = state.status === "finished" || state.status === "abandoned";
  over.hidden = !done;
  if (!done) return;
  if (state.status === "finished") fetchReview();
  const winners = state.winners.map(seatName);
  let headline = state.status === "abandoned" ? "Game abandoned" : "Game over";
  let sub = "";
  if (state.status === "finished" && winners.length) {
    sub = winners.length > 1 ? `A tie! ${winners.map(esc).join(" and ")} share the win.` : `${esc(winners[0])} wins!`;
    if (state.winners.some(isMine) && !state.local) headline = winners.length > 1 ? "You share the win!" : "You win!";
  }
  const list = ranking()
    .map(
      (row) => `<li class="${state.winners.includes(row.seat) ? "winner" : ""}"><span class="rank">${row.rank}.</span>
      <span class="seat-name">${esc(seatName(row.seat))}</span>${state.winners.includes(row.seat) ? ' <span class="tag turn">winner</span>' : ""}
      <span class="seat-total">${row.total}</span></li>`,
    )
    .join("");
  let rematch = "";
  if (state.rematch) {
    rematch = `<a class="btn btn-primary btn-big" id="rematch-link" href="/r/${state.rematch}/">Join the rematch</a>`;
  } else if (mine.length) {
    rematch = `<form method="post" action="${root.dataset.rematchUrl}">
      <input type="hidden" name="csrfmiddlewaretoken" value="${esc(csrf)}">
      <button class="btn btn-primary btn-big" id="rematch" type="submit">Rematch</button></form>`;
  }
  over.innerHTML = `<h2 id="over-h">${headline}</h2>${sub ? `<p class="winner-line">${sub}</p>` : ""}
    <ol class="ranking">${list}</ol>
    <div id="review" class="review">${reviewHtml()}</div>
    <div class="over-actions">${rematch}<a class="btn" href="/">New game</a></div>
    <p class="muted fair-over">Fair dice: the server's seed was <code>${esc(state.fairness.server_seed ?? "")}</code>.
      Its SHA-256 was shown from the start. <a href="${root.dataset.fairnessUrl}">Verify every roll</a>
      · <a href="${root.dataset.logUrl}">download the roll log</a></p>`;
}

function reviewHtml() {
  if (!review) return "";
  if (review.message) return `<p class="muted">${esc(review.message)}</p>`;
  const lines = review.seats
    .filter((s) => s.choices > 0 && (s.kind !== "bot" || s.lost > 0))
    .map((s) => {
      const who = isMine(s.seat) && !state.local ? "You" : esc(s.name);
      const text = s.mistakes === 0
        ? `${who} played like the solver: no costly choice in ${plural(s.choices, "choice")}.`
        : `${who} lost ${s.lost.toFixed(1)} points in ${plural(s.mistakes, "choice")}.`;
      return `<li>${text}</li>`;
    })
    .join("");
  return `<h3>Coach's review</h3><ul class="review-list">${lines}</ul>
    <p class="muted small">Expected points each player's choices gave up against perfect play.</p>`;
}

let reviewAsked = false;
async function fetchReview() {
  if (reviewAsked) return;
  reviewAsked = true;
  try {
    const response = await fetch(`/r/${code}/review.json`);
    review = await response.json();
    if (!response.ok && response.status === 503) {
      window.setTimeout(() => { reviewAsked = false; fetchReview(); }, 15000);
    }
  } catch {
    review = null;
    reviewAsked = false;
  }
  const box = $("review");
  if (box) box.innerHTML = reviewHtml();
}

function drawFair() {
  const done = state.status === "finished" || state.status === "abandoned";
  $("fair").hidden = done;
  if (!done) {
    $("fair").innerHTML = `Fair dice: seed commitment <code>${esc(state.fairness.commitment.slice(0, 16))}…</code>
      (the seed is revealed when the game ends).`;
  }
}

// --- input -----------------------------------------------------------------------------

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.repeat) {
    if (/^[1-5 ]$/.test(event.key)) event.preventDefault();
    return;
  }
  const target = event.target;
  if (target.closest?.("input, textarea, select, dialog")) return;
  if (/^[1-5]$/.test(event.key)) {
    event.preventDefault();
    toggleHold(Number(event.key) - 1);
  } else if (event.key === " " || event.code === "Space") {
    // Space rolls, except on another button, which Space presses (a die: holds it).
    if (target.tagName === "BUTTON" && target.id !== "roll") return;
    if (!myTurn()) return;
    event.preventDefault();
    roll();
  }
});

$("mute").addEventListener("click", () => {
  muted = !muted;
  localStorage.setItem("yahtzee-muted", muted ? "1" : "0");
  drawStatus();
});

draw();
connect();

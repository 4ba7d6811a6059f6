// Drawing the room: pure functions from what the page knows (a "view") to HTML text.
// No socket and no listeners here; static/js/room.js puts the text in place and wires it.

import { esc, scorecardHtml } from "../scorecard.js";

const FACE_WORDS = ["", "one", "two", "three", "four", "five", "six"];
const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };

export { esc };
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** What every drawing function reads: the state plus this page's own knowledge. */
export function viewOf(state, extra) {
  // The server's seats for this browser, less any it has left or handed to a computer since
  // (the state says so; the server's list is only sent when the socket connects).
  const mine = extra.mine.filter((s) => !state.seats[s] || (state.seats[s].status === "active" && state.seats[s].kind !== "bot"));
  const view = { ...extra, mine, state };
  view.seatName = (seat) => state.seats[seat]?.name ?? "?";
  view.isMine = (seat) => mine.includes(seat);
  view.myTurn = state.status === "playing" && Boolean(state.turn) && mine.includes(state.turn.seat);
  view.isHost = mine.some((s) => state.seats[s]?.host && state.seats[s]?.status === "active");
  view.boxLabel = (box) => state.ruleset.boxes.find((b) => b.box === box)?.label ?? box;
  // Play waits while the socket is down, and while the host has paused the game.
  view.hostPaused = Boolean(state.paused);
  view.paused = view.connection !== "connected" || view.hostPaused;
  // This browser's seats a computer plays since their turns ran out: "I'm back" takes them back.
  view.awaySeats = extra.mine.filter((s) => state.seats[s]?.away && state.seats[s]?.kind === "bot");
  // Reactions during play go in the play card, where the players look; on a phone, not on
  // your own turn (the Roll row has the room there; the chat below still has them).
  view.speakers = mine.filter((s) => !state.seats[s]?.muted);
  view.reactHere = state.status === "playing" && view.speakers.length > 0 && !(extra.narrow && view.myTurn);
  return view;
}

/** "Round 6 of 13": the boxes the player to play has filled, plus this one. */
export function roundOf(state) {
  const total = state.ruleset.boxes.length * state.ruleset.columns;
  const card = state.turn ? state.cards[state.turn.seat] : null;
  if (!card) return { round: 1, total };
  const filled = card.columns.reduce((n, col) => n + Object.values(col.boxes).filter((p) => p !== null && p !== undefined).length, 0);
  return { round: Math.min(filled + 1, total), total };
}

/** The seat whose column stays in view when the card scrolls sideways: mine online, the one to play on a shared device. */
export function focusSeat(view) {
  const { state } = view;
  if (state.local || !view.mine.length) return state.status === "playing" ? state.turn?.seat ?? null : null;
  return view.mine[0];
}

export const COLOURS = ["red", "yellow", "green", "blue", "purple"];

/** Seconds as the countdown shows them: 1:05, 0:09; at your own pace in days and hours: "2 d 5 h", "5 h 12 min". */
export function clockText(seconds, pace = "live") {
  const whole = Math.max(0, Math.ceil(seconds ?? 0));
  if (pace === "own" && whole >= 60) {
    const days = Math.floor(whole / 86400);
    const hours = Math.floor((whole % 86400) / 3600);
    const minutes = Math.floor((whole % 3600) / 60);
    if (days) return `${days} d ${hours} h`;
    return hours ? `${hours} h ${minutes} min` : `${minutes} min`;
  }
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/**
 * What the room says while its rule set's computer players are getting ready (their table is
 * being built): `left` is the seconds the server's estimate has left, or null when it has none.
 */
export function gettingReadyText(left) {
  if (left === null || left === undefined) return "The computer is getting ready.";
  if (left < 1) return "The computer is getting ready (any moment now).";
  return `The computer is getting ready (about ${Math.ceil(left)}\u00a0s).`;
}

/** Whether the countdown is nearly out: the last 10 s of a live turn, the last quarter of a move's time at your own pace. */
export function clockLow(seconds, clock) {
  return clock?.pace === "own" ? seconds <= clock.seconds / 4 : seconds <= 10;
}

/** A time per move as people say it: "3 days", "1 day". */
export function days(seconds) {
  const n = Math.round(seconds / 86400);
  return n >= 1 ? `${n} day${n === 1 ? "" : "s"}` : `${Math.round(seconds / 3600)} hours`;
}

/** The current turn's countdown (room.js keeps its text ticking), or "" without a turn timer. */
export function countdownHtml(view, where) {
  const clock = view.state.clock;
  if (!clock || view.state.status !== "playing" || view.clockLeft === null || view.clockLeft === undefined) return "";
  const low = clockLow(view.clockLeft, clock) ? " low" : "";
  const what = clock.pace === "own" ? "this move" : "this turn";
  const label = view.hostPaused ? `Time left for ${what} (paused)` : `Time left for ${what}`;
  return `<span class="countdown${low}" data-countdown="${where}" role="timer" aria-label="${label}">${view.hostPaused ? "‖ " : ""}${clockText(view.clockLeft, clock.pace)}</span>`;
}

/** How the room is played, for its subtitle: "at your own pace, 3 days a move". */
export function paceText(state) {
  if (state.pace !== "own") return "";
  return state.clock ? `at your own pace, ${days(state.clock.seconds)} a move` : "at your own pace, no time limit";
}

export function statusLine(view) {
  const { state } = view;
  const sub = [state.ruleset.label];
  if (state.local) sub.push("played on this device");
  if (state.pace === "own") sub.push(paceText(state));
  if (view.awaySeats.length && !view.mine.length) sub.push("the computer plays for you");
  else if (!view.mine.length && state.status !== "finished") sub.push("you are watching");
  return sub.join(" · ");
}

export function lobbyHtml(view) {
  const { state } = view;
  const active = state.seats.filter((s) => s.status === "active");
  const canJoin = !state.local || view.mine.length;
  let html = `<h2 id="lobby-h">Waiting for players</h2>
    <p class="muted">${esc(state.ruleset.label)}: ${esc(state.ruleset.summary)}</p>`;
  if (!state.local) {
    html += `<div class="invite">
      <label for="invite">Invite link: send it to your friends</label>
      <div class="invite-row"><input id="invite" readonly value="${esc(view.invite)}">
      <button id="copy" class="btn" type="button">Copy link</button></div></div>`;
  }
  if (canJoin && active.length < 8) {
    html += `<form method="post" action="${view.joinUrl}" class="join-form">
      <input type="hidden" name="csrfmiddlewaretoken" value="${esc(view.csrf)}">
      <input type="hidden" name="client_seed" value="${view.clientSeed}">
      <label for="join-name">${view.mine.length ? "Add a player on this device" : "Your name"}</label>
      <input id="join-name" name="name" maxlength="24" required autocomplete="nickname">
      <button class="btn" type="submit" id="join-btn">${view.mine.length ? "Add player" : "Take a seat"}</button>
    </form>`;
  } else if (!canJoin) {
    html += `<p class="muted">This game is played on one device: you can watch it.</p>`;
  }
  if (view.isHost && active.length < 8) {
    const options = Object.entries(view.levels)
      .map(([value, label]) => `<option value="${esc(value)}" ${value === "casual" ? "selected" : ""}>${esc(label)}</option>`)
      .join("");
    html += `<div class="bot-form"><label for="bot-level">Add a computer player</label>
      <select id="bot-level">${options}</select>
      <button id="add-bot" class="btn" type="button">Add computer</button></div>`;
  }
  if (view.isHost) {
    html += `<div class="lobby-actions"><button id="start" class="btn btn-primary btn-big" type="button">Start game with ${plural(active.length, "player")}</button></div>`;
  } else {
    html += `<p class="muted">Waiting for the host to start the game.${view.mine.length ? "" : " Without a seat you can watch."}</p>`;
  }
  return html;
}

export function dieHtml(view, value, index, isHeld, canHold, colour = null, coachKeeps = false) {
  const pips = value
    ? Array.from({ length: 9 }, (_, i) => `<i class="${PIPS[value].includes(i) ? "on" : ""}"></i>`).join("")
    : "";
  const painted = value && COLOURS.includes(colour) ? colour : null;
  const label = value
    ? `Die ${index + 1}: ${FACE_WORDS[value]}${painted ? `, ${painted}` : ""}${isHeld ? ", held" : ""}${coachKeeps ? ", the coach would keep it" : ""}`
    : `Die ${index + 1}: not rolled`;
  const classes = [
    "die",
    isHeld ? "held" : "",
    view.rolling.has(index) && !view.reducedMotion ? "rolling" : "",
    value ? "" : "blank",
    painted ? `painted colour-${painted}` : "",
    coachKeeps ? "coach-keep" : "",
  ];
  // A painted die says its colour three ways: hue, a pattern, and its initial letter.
  const mark = painted ? `<b class="colour-mark">${painted[0].toUpperCase()}</b>` : "";
  return `<button type="button" id="die-${index}" class="${classes.join(" ")}" data-die="${index}"
      aria-pressed="${isHeld}" aria-label="${label}" ${canHold ? "" : 'aria-disabled="true"'}>
      <span class="pips" aria-hidden="true">${pips}${mark}</span>
      <span class="die-tag" aria-hidden="true">${isHeld ? "HELD" : coachKeeps ? "KEEP?" : `${index + 1}`}</span></button>`;
}

export function playHtml(view) {
  const { state } = view;
  const turn = state.turn;
  const me = view.myTurn;
  const name = view.seatName(turn.seat);
  const paused = view.paused;
  const canHold = me && !paused && turn.rolls_used > 0 && turn.rolls_left > 0;
  let banner;
  // On a shared device the next player takes it before rolling; once they rolled, they have it.
  if (me && state.local && view.mine.length > 1 && turn.rolls_used === 0) banner = `${esc(name)}'s turn <span class="pass">pass the device to ${esc(name)}</span>`;
  else if (me) banner = `Your turn, ${esc(name)}`;
  else banner = `${esc(name)}'s turn`;
  const dice = turn.dice.length ? turn.dice : [0, 0, 0, 0, 0];
  const { round, total } = roundOf(state);
  const best = view.hint?.options?.[0];
  const coachHolds = me && best?.kind === "keep" ? best.held ?? [] : [];
  let rollLabel = turn.rolls_used === 0 ? "Roll the dice" : turn.rolls_left ? "Roll again" : "No rolls left";
  if (paused) rollLabel = view.hostPaused ? "Paused by the host" : "Paused: reconnecting…";
  const rollsLeft = turn.rolls_left && !paused ? `<span class="rolls-left">${plural(turn.rolls_left, "roll")} left</span>` : "";
  const pips = [0, 1, 2].map((i) => `<span class="roll-pip ${i < turn.rolls_used ? "used" : ""}"></span>`).join("");
  let hint;
  if (view.hostPaused) hint = "The host paused the game: play goes on when they resume it.";
  else if (paused) hint = "The connection dropped: play resumes when it is back.";
  else if (me) {
    hint = turn.rolls_used === 0
      ? "Roll to start your turn."
      : turn.rolls_left
        ? "Tap dice to hold them, roll again, or score a box."
        : "Choose a box on your card to score.";
  } else if (view.awaySeats.length && !view.mine.length) {
    hint = `The computer plays for you until you are back. Waiting for ${esc(name)}…`;
  } else if (!view.mine.length && state.status === "playing") {
    hint = `You are watching. Waiting for ${esc(name)}…`;
  } else {
    hint = `Waiting for ${esc(name)}…`;
  }
  const awayNames = view.awaySeats.map((s) => esc(view.seatName(s))).join(" and ");
  const away = view.awaySeats.length
    ? `<div class="away-banner" role="status"><span>The computer is playing for ${awayNames}: your time ran out twice in a row.</span>
      <button id="back" class="btn btn-small" type="button">I'm back: take my seat</button></div>`
    : "";
  const pausedBanner = view.hostPaused ? `<div class="paused-banner" role="status">Game paused by the host</div>` : "";
  // A computer player to play whose table is still being built waits for it (room.js keeps the seconds ticking).
  const readyBanner = state.getting_ready && state.seats[turn.seat]?.kind === "bot" && !view.hostPaused
    ? `<p class="ready-banner" id="ready-banner" data-ready="bot">${gettingReadyText(view.readyLeft)}</p>`
    : "";
  return `${away}${pausedBanner}${readyBanner}
    <h2 id="turn-h" class="turn-banner ${me ? "mine" : ""}">${banner} ${countdownHtml(view, "play")}</h2>
    <p class="muted turn-meta ${paused ? "paused" : ""}" id="turn-meta"><span class="round" id="round">Round ${round} of ${total}</span><span class="turn-hint"> · ${hint}</span></p>
    <div class="dice" id="dice" role="group" aria-label="Dice" tabindex="-1">${dice
      .map((v, i) => dieHtml(view, v, i, view.held.includes(i), canHold, turn.colours?.[i] ?? null, coachHolds.includes(i)))
      .join("")}</div>
    ${me ? `<div class="roll-row">
      <button id="roll" class="btn btn-primary btn-big" type="button" ${turn.rolls_left && !paused ? "" : "disabled"}
        aria-label="${rollLabel}${rollsLeft ? `, ${plural(turn.rolls_left, "roll")} left` : ""}">${rollLabel}
        ${rollsLeft}</button>
      <span class="roll-pips" aria-hidden="true">${pips}</span>
      ${state.hints && turn.rolls_used > 0 && !view.hint ? hintHtml(view) : ""}</div>
      ${state.hints && turn.rolls_used > 0 && view.hint ? hintHtml(view) : ""}
      <p class="keys muted">Keys: <kbd>1</kbd>–<kbd>5</kbd> hold · <kbd>Space</kbd> roll · <kbd>Tab</kbd> to a box, arrows between boxes, <kbd>Enter</kbd> to score</p>` : ""}
    ${view.reactHere ? playReactionsHtml(view) : ""}`;
}

/** The reaction buttons in the play card (room.js sends what a button's data-react says). */
export function playReactionsHtml(view) {
  const buttons = (view.reactionChoices ?? [])
    // Ids keep a button's keyboard focus when the card is drawn again (room.js keepFocus).
    .map((r, i) => `<button type="button" id="react-${i}" class="btn btn-quiet reaction-btn" data-react="${esc(r)}" aria-label="React ${esc(r)}">${esc(r)}</button>`)
    .join("");
  return `<div id="play-reactions" class="reactions play-reactions" role="group" aria-label="Send a reaction">${buttons}</div>`;
}

export function hintHtml(view) {
  if (!view.hint) {
    return `<button id="hint" class="btn btn-small btn-ghost hint-btn" type="button" ${view.hintPending || view.paused ? "disabled" : ""}>
      ${view.hintPending ? "Thinking…" : "Hint"}</button>`;
  }
  if (view.hint.ready === false) {
    // The coach's table is being built: room.js asks again shortly, and keeps the seconds ticking.
    return `<div class="hint-box hint-wait" role="note" aria-label="Coach's hint"><p data-ready="hint">${gettingReadyText(view.hintLeft)}</p></div>`;
  }
  // The best choice on one line; the others a tap away on a phone (the card below needs the room).
  const [first, ...rest] = view.hint.options;
  const item = (o, best) => `<li${best ? ' class="best"' : ""}><span>${esc(o.text)}</span> <span class="expect">≈ ${o.expected.toFixed(1)}</span></li>`;
  const more = rest.length
    ? `<details class="hint-more"${view.narrow ? "" : " open"}><summary>${rest.length === 1 ? "1 more choice" : `${rest.length} more choices`}</summary>
      <ol start="2">${rest.map((o) => item(o, false)).join("")}</ol></details>`
    : "";
  return `<div class="hint-box" role="note" aria-label="Coach's hint: best choices and your expected final score">
    <div class="hint-top"><strong>Coach:</strong><ol>${first ? item(first, true) : ""}</ol></div>${more}</div>`;
}

export function cardHtml(view) {
  const { state } = view;
  const rs = state.ruleset;
  const cols = rs.columns;
  const current = state.status === "playing" ? state.turn?.seat : null;
  const options = new Map(state.options.map((o) => [`${o.box}/${o.column}`, o]));
  const me = view.myTurn;
  const paused = view.paused;
  const best = me ? view.hint?.options?.[0] : null;
  const coachPick = best?.kind === "score" ? `${best.box}/${best.column ?? 0}` : null;
  // Seat order for everyone and every turn (a column that moves is one a player loses track
  // of); the focus seat's columns stay in view, held at the card's edge, when it scrolls.
  const focus = focusSeat(view);
  const order = state.cards.map((card) => card.seat).sort((x, y) => x - y);
  // Each player's presence on their name: the Players list in short, in view during play on a phone too.
  const presenceOf = (seat) => {
    const s = state.seats[seat];
    if (!s || s.kind === "bot" || s.status !== "active") return null;
    return view.presence.seats[String(seat)] === "away" ? "away" : "online"; // unknown until the first presence frame
  };
  const seats = order.map((seat) => ({ seat, name: state.seats[seat]?.name ?? "?", gone: state.seats[seat]?.status !== "active", presence: presenceOf(seat) }));
  const cards = Object.fromEntries(state.cards.map((card) => [card.seat, card]));
  // An open box of the player to play: what it would score now, a button on their own page.
  const open = (seat, row, k, index) => {
    if (seat !== current) return null;
    const option = options.get(`${row.box}/${k}`);
    if (!option) return null;
    const label = esc(row.label);
    const id = `score-${row.box}-${k}`;
    const colText = cols > 1 ? ` in column ×${rs.multipliers[k]}` : "";
    const shown = `${option.points}${option.bonus ? `<small>+${option.bonus}</small>` : ""}`;
    const coach = coachPick === `${row.box}/${k}`;
    if (!me) return { cls: "preview", html: `<span aria-label="${label}${colText} would score ${option.points}">${shown}</span>` };
    if (!option.legal) {
      return {
        cls: "option",
        html: `<button type="button" id="${id}" class="score-btn forbidden" data-box="${row.box}" data-col="${k}" data-row="${index}"
          aria-disabled="true" title="${esc(option.reason)}" aria-label="${label}${colText}: not allowed. ${esc(option.reason)}">✕</button>`,
      };
    }
    const bonusText = option.bonus ? ` plus ${option.bonus} Yahtzee bonus` : "";
    const jokerText = option.joker ? " (joker)" : "";
    const coachText = coach ? ", the coach's pick" : "";
    return {
      cls: `option${coach ? " coach-pick" : ""}`,
      html: `<button type="button" id="${id}" class="score-btn ${option.points + option.bonus === 0 ? "zero" : ""}"
        data-box="${row.box}" data-col="${k}" data-row="${index}" ${paused ? "disabled" : ""}
        aria-label="Score ${label}${colText} for ${option.points} points${bonusText}${jokerText}${coachText}">${shown}</button>`,
    };
  };
  const caption = `Scorecard: a column per ${cols > 1 ? "player and multiplier" : "player"}${me ? "; your open boxes show what they would score now; arrow keys move between them" : ""}`;
  return `<h2 id="card-h" class="card-h">Scorecard</h2>
    ${scorecardHtml({ ruleset: rs, seats, cards, current, focus, just: view.justScored, open, caption })}`;
}

export function feedHtml(view) {
  if (!view.feed.length) return `<h2 id="feed-h" class="feed-h">At the table</h2><p class="muted feed-empty">What everyone does shows here.</p>`;
  const items = view.feed.map((item) => `<li class="feed-${item.kind}">${esc(item.text)}</li>`).join("");
  return `<h2 id="feed-h" class="feed-h">At the table</h2><ol class="feed-list">${items}</ol>`;
}

export function seatsHtml(view) {
  const { state, presence } = view;
  const current = state.status === "playing" ? state.turn?.seat : null;
  const items = state.seats
    .map((seat) => {
      if (seat.status !== "active" && state.status === "lobby") return "";
      const online = presence.seats[String(seat.seat)] !== "away"; // unknown until the first presence frame
      const tags = [];
      if (seat.host) tags.push('<span class="tag">host</span>');
      if (view.isMine(seat.seat)) tags.push('<span class="tag you">you</span>');
      if (seat.kind === "bot") tags.push(`<span class="tag bot">computer${seat.level ? ` · ${esc(view.levels[seat.level] ?? seat.level)}` : ""}</span>`);
      if (seat.status !== "active") tags.push('<span class="tag">left</span>');
      if (seat.away && seat.kind === "bot") tags.push('<span class="tag away">away</span>');
      if (seat.muted) tags.push('<span class="tag">chat muted</span>');
      if (seat.seat === current) tags.push('<span class="tag turn">to play</span>');
      const reaction = view.reactions?.[seat.seat];
      if (reaction) tags.push(`<span class="reaction-bubble" role="img" aria-label="${esc(seat.name)} reacts ${esc(reaction)}">${esc(reaction)}</span>`);
      if (seat.seat === current) tags.push(countdownHtml(view, `seat-${seat.seat}`));
      const presenceText = seat.kind === "bot" ? "" : seat.status !== "active" ? "" : online ? "online" : "away";
      const buttons = [];
      const active = seat.status === "active";
      const live = state.status === "lobby" || state.status === "playing";
      const button = (act, label) =>
        `<button type="button" class="btn btn-small btn-quiet" data-act="${act}" data-seat="${seat.seat}" id="${act}-${seat.seat}">${label}</button>`;
      if (live && active && view.isHost && !seat.host && seat.kind === "human" && !view.isMine(seat.seat)) {
        buttons.push(seat.muted ? button("unmute", "Unmute chat") : button("mute", "Mute chat"));
      }
      if (live && active && view.isMine(seat.seat)) {
        buttons.push(button("leave", "Leave"));
      } else if (live && active && view.isHost && !seat.host) {
        if (state.status === "lobby") {
          buttons.push(button("kick", "Remove"));
        } else if (!online && seat.kind !== "bot" && state.pace !== "own") {
          // At your own pace nobody need be online: a seat is never taken over for being away.
          buttons.push(button("replace", "Let a computer play"));
          buttons.push(button("remove", "Take out (away)"));
        }
      } else if (state.status === "playing" && !active && view.isHost) {
        buttons.push(button("replace", "Let a computer play"));
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
  return `<h2 id="seats-h">Players</h2><ol class="seat-list">${items}</ol>`;
}

export function ranking(state) {
  const rows = state.cards.map((card) => ({ seat: card.seat, total: card.total })).sort((a, b) => b.total - a.total);
  let rank = 0;
  return rows.map((row, i) => {
    if (i === 0 || row.total !== rows[i - 1].total) rank = i + 1;
    return { ...row, rank };
  });
}

export function overHtml(view) {
  const { state } = view;
  const winners = state.winners.map(view.seatName);
  let headline = state.status === "abandoned" ? "Game abandoned" : "Game over";
  let sub = "";
  if (state.status === "finished" && winners.length) {
    sub = winners.length > 1 ? `A tie! ${winners.map(esc).join(" and ")} share the win.` : `${esc(winners[0])} wins!`;
    if (state.winners.some(view.isMine) && !state.local) headline = winners.length > 1 ? "You share the win!" : "You win!";
  }
  const list = ranking(state)
    .map(
      (row) => `<li class="${state.winners.includes(row.seat) ? "winner" : ""}"><span class="rank">${row.rank}.</span>
      <span class="seat-name">${esc(view.seatName(row.seat))}</span>${state.winners.includes(row.seat) ? ' <span class="tag turn">winner</span>' : ""}
      <span class="seat-total">${row.total}</span></li>`,
    )
    .join("");
  let rematch = "";
  if (state.rematch) {
    rematch = `<a class="btn btn-primary btn-big" id="rematch-link" href="/r/${esc(state.rematch)}/">Join the rematch</a>`;
  } else if (view.mine.length) {
    rematch = `<form method="post" action="${view.rematchUrl}">
      <input type="hidden" name="csrfmiddlewaretoken" value="${esc(view.csrf)}">
      <button class="btn btn-primary btn-big" id="rematch" type="submit">Rematch</button></form>`;
  }
  const replay = state.replay_url ? `<a class="btn" id="replay-link" href="${esc(state.replay_url)}">Watch the replay</a>` : "";
  return `<h2 id="over-h" tabindex="-1">${headline}</h2>${sub ? `<p class="winner-line">${sub}</p>` : ""}
    <ol class="ranking">${list}</ol>
    <div id="review" class="review">${reviewHtml(view)}</div>
    <div class="over-actions">${rematch}${replay}<a class="btn" href="/">New game</a></div>
    <p class="muted fair-over">Fair dice: the server's seed was <code>${esc(state.fairness.server_seed ?? "")}</code>.
      Its SHA-256 was shown from the start. <a href="${view.fairnessUrl}">Verify every roll</a>
      · <a href="${view.logUrl}">download the roll log</a></p>`;
}

const COSTLIEST = 3; // a player's choices shown on the game-over panel; the replay lists every one

/** A costly choice: what was done, what the coach would have done, the points it cost; a link to it in the replay. */
function costlyHtml(view, choice) {
  const href = `${esc(view.state.replay_url ?? "")}#move-${Number(choice.move)}`;
  const roll = choice.kind === "keep" ? `, roll ${choice.roll}` : "";
  const said = `Round ${choice.round}${roll}, dice ${choice.dice.join(" ")}: chose ${choice.chosen}; the coach would ${choice.best.replace(/^./, (c) => c.toLowerCase())}; ${choice.lost.toFixed(1)} points lost. See it in the replay`;
  return `<li><a class="costly-choice" href="${href}" aria-label="${esc(said)}">
      <span class="costly-where">Round ${choice.round}${roll} · <span class="costly-dice">${esc(choice.dice.join(" "))}</span></span>
      <span class="costly-lost">−${choice.lost.toFixed(1)}</span>
      <span class="costly-did"><span class="costly-label">Chose</span> ${esc(choice.chosen)}</span>
      <span class="costly-best"><span class="costly-label">Coach</span> ${esc(choice.best)}</span></a></li>`;
}

export function reviewHtml(view) {
  const { review, state } = view;
  if (!review) return "";
  if (review.message) return `<h3>Coach's review</h3><p class="muted">${esc(review.message)}</p>`;
  let linked = false;
  const lines = review.seats
    .filter((s) => s.choices > 0 && (s.kind !== "bot" || s.lost > 0))
    .map((s) => {
      const who = view.isMine(s.seat) && !state.local ? "You" : esc(s.name);
      const text = s.mistakes === 0
        ? `${who} played like the solver: no costly choice in ${plural(s.choices, "choice")}.`
        : `${who} lost ${s.lost.toFixed(1)} points in ${plural(s.mistakes, "choice")}.`;
      // The costliest first; a computer's own play gets its line, not a list.
      const worst = s.kind === "bot" ? [] : [...(s.costly ?? [])].sort((a, b) => b.lost - a.lost).slice(0, COSTLIEST);
      const list = worst.length && state.replay_url
        ? `<ol class="costly-list" aria-label="${esc(s.name)}'s costliest choices">${worst.map((c) => costlyHtml(view, c)).join("")}</ol>`
        : "";
      linked ||= Boolean(list);
      return `<li><p class="review-line">${text}</p>${list}</li>`;
    })
    .join("");
  return `<h3>Coach's review</h3><ul class="review-list">${lines}</ul>
    <p class="muted small">Expected points each choice gave up against perfect play${linked ? ": pick one to see it in the replay" : ""}.</p>`;
}

export function fairHtml(view) {
  return `Fair dice: seed commitment <code>${esc(view.state.fairness.commitment.slice(0, 16))}…</code>
      (the seed is revealed when the game ends).`;
}

// Drawing the room: pure functions from what the page knows (a "view") to HTML text.
// No socket and no listeners here; static/js/room.js puts the text in place and wires it.

import { fmt, gettext, language, list, ngettext, number, pgettext } from "../i18n.js";
import { esc, scorecardHtml } from "../scorecard.js";
import { boxName, colourMark, colourName, playerName, reasonText, wordRuleset } from "../words.js";

const FACE_WORDS = ["", pgettext("die face", "one"), pgettext("die face", "two"), pgettext("die face", "three"), pgettext("die face", "four"), pgettext("die face", "five"), pgettext("die face", "six")];
// games/services/codes.py's NAME_TYPED_MAX: a name of 24 letters, each with its marks typed apart.
const NAME_TYPED_MAX = 96;
const MAX_PLAYERS = 8; // a room's seats at most (games.domain.rules.MAX_PLAYERS)
// The join form's id, this page's own: the form sent twice (a double click) is one join, and a
// second player of this device typing a name the first sits under is told so (services.game_join).
const JOIN_FORM = `join-${Math.random().toString(36).slice(2, 10)}`;
const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };

export { esc };

/** What every drawing function reads: the state plus this page's own knowledge. */
export function viewOf(state, extra) {
  // The server's seats for this browser, less any it has left or handed to a computer since
  // (the state says so; the server's list is only sent when the socket connects).
  const mine = extra.mine.filter((s) => !state.seats[s] || (state.seats[s].status === "active" && state.seats[s].kind !== "bot"));
  // Every word of the rule set in the reader's language (the server sends codes and English),
  // and a deleted account's seats under the name the reader's language gives them.
  state = { ...state, ruleset: wordRuleset(state.ruleset), seats: state.seats.map((seat) => ({ ...seat, name: playerName(seat.name) })) };
  const view = { ...extra, mine, state };
  view.seatName = (seat) => state.seats[seat]?.name ?? "?";
  view.isMine = (seat) => mine.includes(seat);
  // The page says "you" to a browser with one seat, online or one person playing computers on their
  // own device; a shared device (pass and play, or a companion's seat added on it) is told whose
  // result is whose, by name.
  view.isYou = (seat) => mine.length === 1 && mine[0] === seat;
  // A seat's result is its player's whoever finished it: one a computer finished while they were
  // away (the server still counts it theirs) or played on after they left (``left``, the seats this
  // browser gave up). The game over and the coach's review say "you" to them, as to one who played it out.
  const results = [...new Set([...extra.mine, ...(extra.left ?? [])])];
  view.isYourResult = (seat) => results.length === 1 && results[0] === seat;
  view.myTurn = state.status === "playing" && Boolean(state.turn) && mine.includes(state.turn.seat);
  view.isHost = mine.some((s) => state.seats[s]?.host && state.seats[s]?.status === "active");
  // The host's seat has been away a while (room.js): a player at the table is offered the host's
  // tools that get a stuck game moving (start, resume, an away seat's), and hosts by using one;
  // not a muted player, whom the server does not hand the host's role.
  view.hostAway = Boolean(extra.hostAway) && !view.isHost && mine.some((s) => !state.seats[s]?.muted) && (state.status === "lobby" || state.status === "playing");
  view.boxLabel = (box) => boxName(state.ruleset, box);
  // Play waits while the socket is down, and while the host has paused the game.
  view.hostPaused = Boolean(state.paused);
  // The host's own pause, or one the role came with (the host who paused left): the state names the
  // seat that paused (paused_by); the new host did not pause, but resumes.
  view.youPaused = view.hostPaused && view.isHost && (state.paused_by == null || mine.includes(state.paused_by));
  view.yoursToResume = view.hostPaused && view.isHost && !view.youPaused;
  // The others of a pause whose player no longer hosts (they left, or the role passed on): the game
  // waits for the host's resume, and they read it of the host by name, not as the host's pause.
  const hostSeat = state.seats.find((s) => s.host && s.status === "active");
  view.resumer = view.hostPaused && !view.isHost && hostSeat && state.paused_by != null && state.paused_by !== hostSeat.seat ? hostSeat.name : null;
  view.paused = view.connection !== "connected" || view.hostPaused;
  // This browser's seats a computer plays while their players are away, since their turns ran
  // out or the host handed them over ("I'm back" takes them back), and once the game is over
  // those a computer finished for them: the game over offers them the rematch. The server
  // names them (the `you` frame); it gives them back to a browser of one seat when it reconnects.
  const over = state.status === "finished" || state.status === "abandoned";
  view.awaySeats = extra.mine.filter((s) => state.seats[s]?.kind === "bot" && (state.seats[s]?.away || state.seats[s]?.kept || over));
  // The seats this page speaks for in the chat: a seat a computer plays or finished for its
  // player is still theirs (the server's rule, games/services/chat.py).
  // A seat its player gave up is not: the server refuses its posts once the game is over.
  view.voices = [...view.mine, ...view.awaySeats.filter((s) => !view.mine.includes(s) && !state.seats[s]?.gave_up)];
  // A browser that plays several seats (pass-and-play, players added on it) is shared: a tap there may be
  // anyone's, so each away player takes their seat back by name (the server's rule too).
  view.sharedDevice = extra.mine.filter((s) => state.seats[s]?.status === "active").length > 1;
  // Reactions during play go in the play card, where the players look; on a phone, not on
  // your own turn (the Roll row has the room there; the chat below still has them).
  view.speakers = mine.filter((s) => !state.seats[s]?.muted);
  view.reactHere = state.status === "playing" && view.speakers.length > 0 && !(extra.narrow && view.myTurn);
  return view;
}

/** How many boxes seat ``seat``'s card has filled, and how many it has. */
function filledOf(state, seat) {
  const total = state.ruleset.boxes.length * state.ruleset.columns;
  const card = seat === undefined || seat === null ? null : state.cards[seat];
  const filled = card ? card.columns.reduce((n, col) => n + Object.values(col.boxes).filter((p) => p !== null && p !== undefined).length, 0) : 0;
  return { filled, total };
}

function cardFull(state, seat) {
  const { filled, total } = filledOf(state, seat);
  return filled >= total;
}

/** "Round 6 of 13": the boxes the player to play has filled, plus this one. */
export function roundOf(state) {
  const { filled, total } = filledOf(state, state.turn?.seat);
  return { round: Math.min(filled + 1, total), total };
}

/**
 * The seat whose column stays in view when the card scrolls sideways: mine online, the one to play
 * on a shared device or for a spectator, and once the game is over there the winner's (as at the
 * replay's last step), not none.
 */
export function focusSeat(view) {
  const { state } = view;
  const playing = state.status === "playing" ? state.turn?.seat ?? null : null;
  if (state.local || !view.mine.length) {
    if (state.status !== "finished") return playing;
    // A seat a computer finished for this browser's player while they were away is still theirs to look at.
    return view.awaySeats?.find((s) => !state.seats[s]?.gave_up) ?? state.winners?.[0] ?? null;
  }
  // A device with two seats of an online room: the one to play, when it is one of them.
  return view.mine.includes(playing) ? playing : view.mine[0];
}

export const COLOURS = ["red", "yellow", "green", "blue", "purple"];

/**
 * Seconds as the countdown shows them: 1:05, 0:09 (the seconds begun); at your own pace, from a
 * minute up, in the two largest units with whole minutes rounded down, the rule of the server's
 * time left (games/store/selectors.py, duration): "2 d 5 h", "13 h 59 min", "20 min".
 */
export function clockText(seconds, pace = "live") {
  const whole = Math.max(0, Math.ceil(seconds ?? 0));
  if (pace === "own" && seconds >= 60) {
    const total = Math.floor(seconds / 60);
    const days = Math.floor(total / 1440);
    const hours = Math.floor((total % 1440) / 60);
    const minutes = total % 60;
    if (days) return fmt(gettext("%(days)s d %(hours)s h"), { days, hours });
    return hours ? fmt(gettext("%(hours)s h %(minutes)s min"), { hours, minutes }) : fmt(gettext("%(minutes)s min"), { minutes });
  }
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/**
 * What the room says while its rule set's computer players are getting ready (their table is
 * being built): `left` is the seconds the server's estimate has left, or null when it has none.
 */
export function gettingReadyText(left) {
  if (left === null || left === undefined) return gettext("The computer is getting ready.");
  if (left < 1) return gettext("The computer is getting ready (any moment now).");
  return fmt(gettext("The computer is getting ready (about %(seconds)s\u00a0s)."), { seconds: Math.ceil(left) });
}

/** Whether the countdown is nearly out: the last 10 s of a live turn, the last quarter of a move's time at your own pace. */
export function clockLow(seconds, clock) {
  return clock?.pace === "own" ? seconds <= clock.seconds / 4 : seconds <= 10;
}

/**
 * What the player to move hears once a turn as its countdown runs low (clockLow): "10 seconds
 * left for this turn.", at your own pace "18 hours left for this move.".
 */
export function clockWarning(seconds, pace = "live") {
  const time = duration(seconds);
  return fmt(pace === "own" ? gettext("%(time)s left for this move.") : gettext("%(time)s left for this turn."), { time });
}

/**
 * A span as people say it, the same rule as the server's duration (games/store/selectors.py),
 * tested with its cases: the two largest units, whole minutes rounded down, "3 days",
 * "1 day 12 hours", "13 hours 59 minutes", "20 minutes"; under a minute the seconds begun, at
 * least one, as the countdown shows them: "45 seconds".
 */
export function duration(seconds) {
  if (seconds < 60) {
    const n = Math.max(Math.ceil(seconds), 1);
    return fmt(ngettext("%(n)s second", "%(n)s seconds", n), { n });
  }
  const total = Math.floor(seconds / 60);
  const days = Math.floor(total / 1440);
  const hours = Math.floor((total % 1440) / 60);
  const minutes = total % 60;
  const parts = [];
  if (days) parts.push(fmt(ngettext("%(n)s day", "%(n)s days", days), { n: days }));
  if (hours) parts.push(fmt(ngettext("%(n)s hour", "%(n)s hours", hours), { n: hours }));
  if (!days && minutes) parts.push(fmt(ngettext("%(n)s minute", "%(n)s minutes", minutes), { n: minutes }));
  return parts.join(" ");
}

/** The current turn's countdown (room.js keeps its text ticking), or "" without a turn timer. */
export function countdownHtml(view, where) {
  const clock = view.state.clock;
  if (!clock || view.state.status !== "playing" || view.clockLeft === null || view.clockLeft === undefined) return "";
  const low = clockLow(view.clockLeft, clock) ? " low" : "";
  const label = clock.pace === "own"
    ? view.hostPaused ? gettext("Time left for this move (paused)") : gettext("Time left for this move")
    : view.hostPaused ? gettext("Time left for this turn (paused)") : gettext("Time left for this turn");
  return `<span class="countdown${low}" data-countdown="${where}" role="timer" aria-label="${label}">${view.hostPaused ? "‖ " : ""}${clockText(view.clockLeft, clock.pace)}</span>`;
}

/** ``text`` with its first letter a capital, as a sentence of its own begins (the pace's words are
 * worded to follow the rule set's name in the line under the room's code). */
const capfirst = (text) => text.charAt(0).toLocaleUpperCase(language) + text.slice(1);

/** How the room is played, for its subtitle: "at your own pace, 3 days a move", in the words the
 * server draws the page with (games/services/pace.py, ``own_pace_text``). */
export function paceText(state) {
  if (state.pace !== "own") return "";
  return state.clock ? fmt(gettext("at your own pace, %(time)s a move"), { time: duration(state.clock.seconds) }) : gettext("at your own pace, no time limit");
}

export function statusLine(view) {
  const { state } = view;
  const sub = [state.ruleset.label];
  if (state.local) sub.push(gettext("played on this device"));
  if (state.pace === "own") sub.push(paceText(state));
  if (view.awaySeats.length && !view.mine.length) {
    // Once the game is over nobody plays: the seat the computer finished is theirs in the results.
    if (state.status === "playing") sub.push(gettext("the computer plays for you"));
  } else if (!view.mine.length && state.status !== "finished") sub.push(gettext("you are watching"));
  return sub.join(" · ");
}

export function lobbyHtml(view) {
  const { state } = view;
  const active = state.seats.filter((s) => s.status === "active");
  const canJoin = (!state.local || view.mine.length) && !view.takenOut;
  // What the host chose when creating the room, for whoever is deciding to take a seat; the pace
  // too, which the line under the room's code also says but a phone does not show.
  const timer = state.pace === "own"
    ? capfirst(paceText(state))
    : state.local ? "" : state.clock ? fmt(gettext("Turn timer: %(time)s a turn"), { time: duration(state.clock.seconds) }) : gettext("No turn timer");
  const settings = [
    timer,
    state.hints ? gettext("Hints from the coach allowed") : gettext("No hints from the coach"),
    state.chat?.spectators ? gettext("Spectators may post in the chat") : gettext("Only the players post in the chat"),
  ].filter(Boolean);
  // A game on one device (a pass-and-play rematch) seats nobody from elsewhere: nobody is waited for.
  const heading = state.local ? gettext("Ready to start on this device") : gettext("Waiting for players");
  let html = `<h2 id="lobby-h" tabindex="-1">${heading}</h2>
    <p class="muted">${esc(fmt(gettext("%(ruleset)s: %(summary)s"), { ruleset: state.ruleset.label, summary: state.ruleset.summary }))}
    <a href="${esc(view.rulesUrl)}#${esc(state.ruleset.name)}" id="ruleset-rules">${gettext("How this rule set plays")}</a></p>
    <ul class="room-settings muted" id="room-settings">${settings.map((each) => `<li>${esc(each)}</li>`).join("")}</ul>`;
  if (!state.local) {
    html += `<div class="invite">
      <label for="invite">${gettext("Invite link: send it to your friends")}</label>
      <div class="invite-row"><input id="invite" readonly value="${esc(view.invite)}">
      <button id="copy" class="btn" type="button">${gettext("Copy link")}</button>${view.canShare ? `
      <button id="share" class="btn" type="button">${gettext("Share link")}</button>` : ""}</div></div>`;
  }
  const full = active.length >= MAX_PLAYERS;
  if (canJoin && !full) {
    html += `<form method="post" action="${view.joinUrl}" class="join-form" data-seed-room="${esc(state.code)}" data-seed-commitment="${esc(state.fairness?.commitment ?? "")}">
      <input type="hidden" name="csrfmiddlewaretoken" value="${esc(view.csrf)}">
      <input type="hidden" name="client_seed" value="${esc(view.clientSeed)}">
      <input type="hidden" name="action_id" value="${JOIN_FORM}-${active.length}">
      <label for="join-name">${view.mine.length ? gettext("Add a player on this device") : gettext("Your name")}</label>
      <input id="join-name" name="name" maxlength="${NAME_TYPED_MAX}" required autocomplete="nickname"${view.joinRefused ? ` value="${esc(view.joinRefused.name)}" aria-invalid="true" aria-describedby="join-error"` : ""}>
      <button class="btn" type="submit" id="join-btn">${view.mine.length ? gettext("Add player") : gettext("Take a seat")}</button>
      ${view.joinRefused ? `<p class="error field-error" id="join-error">${esc(view.joinRefused.error)}</p>` : ""}
    </form>`;
  } else if (view.takenOut) {
    html += `<p class="muted" id="taken-out">${gettext("The host took you out of this room: you can watch.")}</p>`;
  } else if (!canJoin) {
    html += `<p class="muted">${gettext("This game is played on one device: you can watch it.")}</p>`;
  } else if (!view.mine.length) {
    html += `<p class="muted" id="room-full" tabindex="-1">${fmt(gettext("The room is full (%(n)s players): you can watch."), { n: MAX_PLAYERS })}</p>`;
  }
  if (view.isHost && !full) {
    const options = Object.entries(view.levels)
      .map(([value, label]) => `<option value="${esc(value)}" ${value === "casual" ? "selected" : ""}>${esc(label)}</option>`)
      .join("");
    html += `<div class="bot-form"><label for="bot-level">${gettext("Add a computer player")}</label>
      <select id="bot-level">${options}</select>
      <button id="add-bot" class="btn" type="button">${gettext("Add computer")}</button></div>`;
  }
  if (view.hostAway) html += `<p class="muted" id="host-away">${gettext("The host is away: you may start the game, and you become the host.")}</p>`;
  if (view.isHost || view.hostAway) {
    html += `<div class="lobby-actions"><button id="start" class="btn btn-primary btn-big" type="button">${fmt(ngettext("Start game with %(n)s player", "Start game with %(n)s players", active.length), { n: active.length })}</button></div>`;
  } else {
    // "Without a seat you can watch" only beside a seat to take: a full room, a game on one device and
    // a player taken out were each told just above that they can watch.
    const seatOffered = canJoin && !full && !view.mine.length;
    html += `<p class="muted">${seatOffered ? gettext("Waiting for the host to start the game. Without a seat you can watch.") : gettext("Waiting for the host to start the game.")}</p>`;
  }
  return html;
}

/** A die's label, one whole sentence for each case (its colour, held, the coach's pick), so a
 * language says them in its own order. */
function dieSentence(painted, isHeld, coachKeeps) {
  if (painted) {
    if (isHeld && coachKeeps) return gettext("Die %(n)s: %(face)s, %(colour)s, held, the coach would keep it");
    if (isHeld) return gettext("Die %(n)s: %(face)s, %(colour)s, held");
    if (coachKeeps) return gettext("Die %(n)s: %(face)s, %(colour)s, the coach would keep it");
    return gettext("Die %(n)s: %(face)s, %(colour)s");
  }
  if (isHeld && coachKeeps) return gettext("Die %(n)s: %(face)s, held, the coach would keep it");
  if (isHeld) return gettext("Die %(n)s: %(face)s, held");
  if (coachKeeps) return gettext("Die %(n)s: %(face)s, the coach would keep it");
  return gettext("Die %(n)s: %(face)s");
}

export function dieHtml(view, value, index, isHeld, canHold, colour = null, coachKeeps = false) {
  const pips = value
    ? Array.from({ length: 9 }, (_, i) => `<i class="${PIPS[value].includes(i) ? "on" : ""}"></i>`).join("")
    : "";
  const painted = value && COLOURS.includes(colour) ? colour : null;
  const label = value
    ? fmt(dieSentence(painted, isHeld, coachKeeps), { n: index + 1, face: FACE_WORDS[value], colour: painted ? colourName(painted) : "" })
    : fmt(gettext("Die %(n)s: not rolled"), { n: index + 1 });
  const classes = [
    "die",
    isHeld ? "held" : "",
    view.rolling.has(index) && !view.reducedMotion ? "rolling" : "",
    value ? "" : "blank",
    painted ? `painted colour-${painted}` : "",
    coachKeeps ? "coach-keep" : "",
  ];
  // A painted die says its colour three ways: hue, a pattern, and its letter.
  const mark = painted ? `<b class="colour-mark">${esc(colourMark(painted))}</b>` : "";
  return `<button type="button" id="die-${index}" class="${classes.join(" ")}" data-die="${index}"
      aria-pressed="${isHeld}" aria-label="${label}" ${canHold ? "" : 'aria-disabled="true"'}>
      <span class="pips" aria-hidden="true">${pips}${mark}</span>
      <span class="die-tag" aria-hidden="true">${isHeld ? gettext("HELD") : coachKeeps ? gettext("KEEP?") : `${index + 1}`}</span></button>`;
}

/** A die held or let go by its number key, said aloud: "Die 3 (five) held." (Painted: "five, red"). */
export function holdText(view, index, held) {
  const turn = view.state.turn;
  const value = turn?.dice?.[index] ?? 0;
  const colour = turn?.colours?.[index];
  const face = [FACE_WORDS[value], COLOURS.includes(colour) ? colourName(colour) : ""].filter(Boolean).join(", ");
  return fmt(held ? gettext("Die %(n)s (%(face)s) held.") : gettext("Die %(n)s (%(face)s) released."), { n: index + 1, face });
}

export function playHtml(view) {
  const { state } = view;
  const turn = state.turn;
  const me = view.myTurn;
  // A run of its own in each sentence: a right-to-left name would take the words beside it into its run.
  const name = `<bdi>${esc(view.seatName(turn.seat))}</bdi>`;
  const paused = view.paused;
  const canHold = me && !paused && turn.rolls_used > 0 && turn.rolls_left > 0;
  let banner;
  // On a shared device the next player takes it before rolling; once they rolled, they have it.
  if (me && state.local && view.mine.length > 1 && turn.rolls_used === 0) banner = `${fmt(gettext("%(name)s's turn"), { name })} <span class="pass">${fmt(gettext("pass the device to %(name)s"), { name })}</span>`;
  else if (me) banner = fmt(gettext("Your turn, %(name)s"), { name });
  else banner = fmt(gettext("%(name)s's turn"), { name });
  const dice = turn.dice.length ? turn.dice : [0, 0, 0, 0, 0];
  const { round, total } = roundOf(state);
  const best = view.hint?.options?.[0];
  const coachHolds = me && best?.kind === "keep" ? best.held ?? [] : [];
  let rollLabel = turn.rolls_used === 0 ? gettext("Roll the dice") : turn.rolls_left ? gettext("Roll again") : gettext("No rolls left");
  // A page whose first socket is still on its way never had a connection: none dropped.
  const connecting = view.connection === "connecting";
  const dropped = paused && !view.hostPaused && !connecting;
  if (paused) rollLabel = !view.hostPaused ? (connecting ? gettext("Connecting…") : gettext("Reconnecting…")) : view.youPaused ? gettext("Paused by you") : view.yoursToResume ? gettext("Paused: yours to resume") : view.resumer !== null ? gettext("Paused") : gettext("Paused by the host");
  const leftText = fmt(ngettext("%(n)s roll left", "%(n)s rolls left", turn.rolls_left), { n: turn.rolls_left });
  const rollsLeft = turn.rolls_left && !paused ? `<span class="rolls-left">${leftText}</span>` : "";
  const pips = [0, 1, 2].map((i) => `<span class="roll-pip ${i < turn.rolls_used ? "used" : ""}"></span>`).join("");
  let hint;
  if (view.hostPaused && view.hostAway) hint = gettext("The host is away: you may resume the game, and you become the host.");
  else if (view.youPaused) hint = gettext("You paused the game: play goes on when you resume it.");
  else if (view.yoursToResume) hint = gettext("The game is paused: play goes on when you resume it.");
  else if (view.resumer !== null) hint = fmt(gettext("The game is paused: play goes on when %(name)s, the host, resumes it."), { name: `<bdi>${esc(view.resumer)}</bdi>` });
  else if (view.hostPaused) hint = gettext("The host paused the game: play goes on when they resume it.");
  // The server's turn clock does not stop for a dropped connection: the player it is running for is told.
  else if (dropped && me && state.clock?.pace === "live") hint = gettext("The connection dropped: your turn's clock keeps running while it comes back.");
  else if (dropped) hint = gettext("The connection dropped: play resumes when it is back.");
  else if (me) {
    hint = turn.rolls_used === 0
      ? gettext("Roll to start your turn.")
      : turn.rolls_left
        ? gettext("Tap dice to hold them, roll again, or score a box.")
        : gettext("Choose a box on your card to score.");
  } else if (view.awaySeats.length && !view.mine.length) {
    hint = fmt(gettext("The computer plays for you until you are back. Waiting for %(name)s…"), { name });
  } else if (!view.mine.length && state.status === "playing") {
    hint = fmt(gettext("You are watching. Waiting for %(name)s…"), { name });
  } else {
    hint = fmt(gettext("Waiting for %(name)s…"), { name });
  }
  const awayNames = list(view.awaySeats.map((s) => `<bdi>${esc(view.seatName(s))}</bdi>`));
  const backButtons = view.sharedDevice
    ? view.awaySeats
      .map((s) => `<button id="back-${s}" class="btn btn-small" type="button" data-back="${s}">${fmt(gettext("I'm back: take %(name)s's seat"), { name: `<bdi>${esc(view.seatName(s))}</bdi>` })}</button>`)
      .join("")
    : `<button id="back" class="btn btn-small" type="button">${gettext("I'm back: take my seat")}</button>`;
  const away = view.awaySeats.length
    ? `<div class="away-banner" role="status"><span>${fmt(view.awaySeats.every((s) => state.seats[s]?.away) ? gettext("The computer is playing for %(names)s: your time ran out twice in a row.") : gettext("The computer is playing for %(names)s."), { names: awayNames })}</span>
      ${backButtons}</div>`
    : "";
  // The words in one run of their own: the banner lays out its children as a flex row, which would
  // set a name in them apart from the sentence.
  const pausedBanner = view.hostPaused ? `<div class="paused-banner" role="status"><span>${view.youPaused ? gettext("You paused the game") : view.yoursToResume ? gettext("Game paused: you can resume it") : view.resumer !== null ? fmt(gettext("Game paused: %(name)s (the host) can resume it"), { name: `<bdi>${esc(view.resumer)}</bdi>` }) : gettext("Game paused by the host")}</span></div>` : "";
  // A computer player to play whose table is still being built waits for it (room.js keeps the seconds ticking).
  const readyBanner = state.getting_ready && state.seats[turn.seat]?.kind === "bot" && !view.hostPaused
    ? `<p class="ready-banner" id="ready-banner" data-ready="bot">${gettingReadyText(view.readyLeft)}</p>`
    : "";
  // The player the table waits for is away: the host's tools for their seat are here, where the
  // host looks (on a phone the Players list is far below the card), and only here.
  const tool = (act, label) => `<button type="button" class="btn btn-small" data-act="${act}" data-seat="${turn.seat}" id="play-${act}-${turn.seat}">${label}</button>`;
  const hostTools = toolsInPlay(view, turn.seat)
    ? `<div class="host-tools" id="host-tools" role="group" aria-labelledby="host-tools-text"><span id="host-tools-text">${view.isHost
      ? fmt(gettext("%(name)s is away: you may let a computer play their seat, take them out, or wait."), { name })
      : fmt(gettext("The host is away: you may let a computer play %(name)s's seat or take them out, and you become the host."), { name })}</span>
      ${tool("replace", gettext("Let a computer play"))}${tool("remove", gettext("Take out (away)"))}</div>`
    : "";
  const keys = gettext("Keys: <kbd>1</kbd>–<kbd>5</kbd> hold · <kbd>Space</kbd> roll · <kbd>Tab</kbd> to a box, arrows between boxes, <kbd>Enter</kbd> to score");
  // A player waiting for their turn keeps, unseen, the room that Roll and its keys take on it (on
  // a desktop only, site.css): the Players list, the feed and the chat under the play card stay
  // where they are when the turn passes to or from them.
  const rollRoom = view.mine.length
    ? `<div class="roll-room" aria-hidden="true" inert><div class="roll-row"><span class="btn btn-primary btn-big">${gettext("Roll the dice")}
      <span class="rolls-left">${fmt(ngettext("%(n)s roll left", "%(n)s rolls left", 3), { n: 3 })}</span></span><span class="roll-pips">${[0, 1, 2].map(() => '<span class="roll-pip"></span>').join("")}</span></div>
      <p class="keys muted">${keys}</p></div>`
    : "";
  return `${away}${pausedBanner}${readyBanner}
    <h2 id="turn-h" tabindex="-1" class="turn-banner ${me ? "mine" : ""}">${banner} ${countdownHtml(view, "play")}</h2>
    <p class="muted turn-meta ${paused ? "paused" : ""}" id="turn-meta"><span class="round" id="round">${fmt(gettext("Round %(round)s of %(total)s"), { round, total })}</span><span class="turn-hint"> · ${hint}</span></p>
    ${hostTools}
    <div class="dice" id="dice" role="group" aria-label="${gettext("Dice")}" tabindex="-1">${dice
      .map((v, i) => dieHtml(view, v, i, view.held.includes(i), canHold, turn.colours?.[i] ?? null, coachHolds.includes(i)))
      .join("")}</div>
    ${me ? `<div class="roll-row">
      <button id="roll" class="btn btn-primary btn-big" type="button" ${turn.rolls_left && !paused ? "" : "disabled"}
        aria-label="${rollLabel}${rollsLeft ? `, ${leftText}` : ""}">${rollLabel}
        ${rollsLeft}</button>
      <span class="roll-pips" aria-hidden="true">${pips}</span>
      ${state.hints && turn.rolls_used > 0 && !view.hint ? hintHtml(view) : ""}</div>
      ${state.hints && turn.rolls_used > 0 && view.hint ? hintHtml(view) : ""}
      <p class="keys muted">${keys}</p>` : ""}
    ${view.reactHere ? playReactionsHtml(view) : ""}${me ? "" : rollRoom}`;
}

/**
 * A seat's "online" or "away": the other word is laid under it, unseen, so the pill keeps the
 * width of the longer one ("abwesend" in German) as its player comes and goes, and the pills after
 * it keep their rows.
 */
function presenceWords(state) {
  const [shown, other] = state === "online" ? [gettext("online"), gettext("away")] : [gettext("away"), gettext("online")];
  return `<span class="presence-text"><span>${shown}</span><span class="presence-room" aria-hidden="true">${other}</span></span>`;
}

/** The reaction buttons in the play card (room.js sends what a button's data-react says). */
export function playReactionsHtml(view) {
  const buttons = (view.reactionChoices ?? [])
    // Ids keep a button's keyboard focus when the card is drawn again (room.js keepFocus).
    .map((r, i) => `<button type="button" id="react-${i}" class="btn btn-quiet reaction-btn" data-react="${esc(r)}" aria-label="${esc(fmt(gettext("React %(reaction)s"), { reaction: r }))}">${esc(r)}</button>`)
    .join("");
  return `<div id="play-reactions" class="reactions play-reactions" role="group" aria-label="${esc(gettext("Send a reaction"))}">${buttons}</div>`;
}

export function hintHtml(view) {
  if (!view.hint) {
    return `<button id="hint" class="btn btn-small btn-ghost hint-btn" type="button" ${view.hintPending || view.paused ? "disabled" : ""}>
      ${view.hintPending ? gettext("Thinking…") : gettext("Hint")}</button>`;
  }
  if (view.hint.ready === false) {
    // The coach's table is being built: room.js asks again shortly, and keeps the seconds ticking.
    return `<div class="hint-box hint-wait" role="note" aria-label="${gettext("Coach's hint")}"><p data-ready="hint">${gettingReadyText(view.hintLeft)}</p></div>`;
  }
  // The best choice on one line; the others a tap away on a phone (the card below needs the room).
  const [first, ...rest] = view.hint.options;
  // Estimated figures say so in a word beside the best one; why, in its popover (a tap, a click,
  // Enter), on hover, and to a screen reader as the word's description.
  const note = estimateNote(view);
  const mark = note
    ? ` <button type="button" class="estimate-mark" id="estimate-mark" popovertarget="hint-note" title="${esc(note)}" aria-describedby="hint-note-text">${pgettext("the coach's figure is an", "estimate")}</button>`
    : "";
  // What the figures are, said once under the choices (on a phone a tap away, as the other
  // choices are: the card below needs the room) and on hover over each.
  const meaning = gettext("≈ your expected final score after each choice, playing the coach's way from then on");
  const item = (o, best) => `<li${best ? ' class="best"' : ""}><span>${esc(optionText(view, o))}</span> <span class="expect" title="${esc(meaning)}">≈ ${number(o.expected, 1)}</span>${best ? mark : ""}</li>`;
  // A lone choice has no more choices to fold it under: on a phone it folds under a word of its own.
  const fold = rest.length ? fmt(ngettext("%(n)s more choice", "%(n)s more choices", rest.length), { n: rest.length }) : gettext("What the figure means");
  const more = rest.length || view.narrow
    ? `<details class="hint-more"${view.narrow ? "" : " open"}><summary id="hint-more">${fold}</summary>
      ${rest.length ? `<ol start="2">${rest.map((o) => item(o, false)).join("")}</ol>` : ""}<p class="hint-meaning">${esc(meaning)}</p></details>`
    : `<p class="hint-meaning">${esc(meaning)}</p>`;
  const why = note
    ? `<div class="box-help" id="hint-note" popover><span id="hint-note-text">${esc(note)}</span>
      <button type="button" class="box-help-close" popovertarget="hint-note" popovertargetaction="hide" aria-label="${gettext("Close")}">×</button></div>`
    : "";
  return `<div class="hint-box" role="note" aria-label="${gettext("Coach's hint: best choices and your expected final score")}">
    <div class="hint-top"><strong>${gettext("Coach:")}</strong><ol>${first ? item(first, true) : ""}</ol></div>${more}${why}</div>`;
}

/** Why the coach's figures are estimates in this rule set, or "" where they are exact. */
export function estimateNote(view) {
  if (view.hint?.exact !== false) return "";
  return view.state.ruleset.colours?.length
    ? gettext("Estimated values from a one-turn search: Painted Yahtzee has no exact solver.")
    : gettext("Estimated values: Triple Yahtzee has no exact solver.");
}

/** One of the coach's choices in words: "Keep 5 5 and roll again", "Score 25 in Full House". */
export function optionText(view, option) {
  const { state } = view;
  const rs = state.ruleset;
  let text;
  if (option.kind === "keep") {
    const held = option.held ?? [];
    const dice = state.turn?.dice ?? [];
    const colours = state.turn?.colours ?? [];
    const kept = held.map((i) => (colours.length ? `${dice[i]} ${colourName(colours[i])}` : `${dice[i]}`));
    text = held.length
      ? fmt(gettext("Keep %(dice)s and roll again"), { dice: kept.join(colours.length ? ", " : " ") })
      : gettext("Reroll all five dice");
  } else {
    // One whole sentence per case: a language puts the column and the bonus where it says them.
    const values = { points: option.points, box: boxName(rs, option.box), m: rs.multipliers[option.column ?? 0], bonus: option.bonus };
    const sentence = rs.columns > 1
      ? option.bonus ? gettext("Score %(points)s in %(box)s (×%(m)s) plus %(bonus)s Yahtzee bonus") : gettext("Score %(points)s in %(box)s (×%(m)s)")
      : option.bonus ? gettext("Score %(points)s in %(box)s plus %(bonus)s Yahtzee bonus") : gettext("Score %(points)s in %(box)s");
    text = fmt(sentence, values);
  }
  return text;
}

/** A box scored, as the live region says it: "Ann scored 25 in Full House (column ×2) plus a 100
 * Yahtzee bonus." ``name`` is the scorer's name as put in a line (isolated). */
export function scoredText(view, frame, name) {
  const rs = view.state.ruleset;
  const values = { name, points: frame.points, box: view.boxLabel(frame.box), m: rs.multipliers?.[frame.column ?? 0], bonus: frame.bonus };
  const sentence = rs.columns > 1
    ? frame.bonus ? gettext("%(name)s scored %(points)s in %(box)s (column ×%(m)s) plus a %(bonus)s Yahtzee bonus.") : gettext("%(name)s scored %(points)s in %(box)s (column ×%(m)s).")
    : frame.bonus ? gettext("%(name)s scored %(points)s in %(box)s plus a %(bonus)s Yahtzee bonus.") : gettext("%(name)s scored %(points)s in %(box)s.");
  return fmt(sentence, values);
}

/** A box scored, as the feed shows it in short: "Ann scored 25 in Full House ×2 +100". Whole
 * messages, so that a language puts the column and the bonus where it says them. */
export function scoredLine(view, frame, name) {
  const rs = view.state.ruleset;
  const values = { name, points: frame.points, box: view.boxLabel(frame.box), m: rs.multipliers?.[frame.column ?? 0], bonus: frame.bonus };
  const line = rs.columns > 1
    ? frame.bonus ? gettext("%(name)s scored %(points)s in %(box)s ×%(m)s +%(bonus)s") : gettext("%(name)s scored %(points)s in %(box)s ×%(m)s")
    : frame.bonus ? gettext("%(name)s scored %(points)s in %(box)s +%(bonus)s") : gettext("%(name)s scored %(points)s in %(box)s");
  return fmt(line, values);
}

/** A score button's label, whole sentences: what the box scores (in which column, with which
 * bonus), then whether it is a joker and the coach's pick, each a sentence of its own. */
function scoreLabel(option, box, m, coach) {
  const n = option.points;
  const values = { box, m, points: n, bonus: option.bonus };
  const sentence = m !== null
    ? option.bonus
      ? ngettext("Score %(box)s in column ×%(m)s for %(points)s point plus a %(bonus)s Yahtzee bonus.", "Score %(box)s in column ×%(m)s for %(points)s points plus a %(bonus)s Yahtzee bonus.", n)
      : ngettext("Score %(box)s in column ×%(m)s for %(points)s point.", "Score %(box)s in column ×%(m)s for %(points)s points.", n)
    : option.bonus
      ? ngettext("Score %(box)s for %(points)s point plus a %(bonus)s Yahtzee bonus.", "Score %(box)s for %(points)s points plus a %(bonus)s Yahtzee bonus.", n)
      : ngettext("Score %(box)s for %(points)s point.", "Score %(box)s for %(points)s points.", n);
  const said = [fmt(sentence, values)];
  if (option.joker) said.push(gettext("Scored as a joker."));
  if (coach) said.push(gettext("The coach's pick."));
  return said.join(" ");
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
    const label = row.label;
    const id = `score-${row.box}-${k}`;
    const m = cols > 1 ? rs.multipliers[k] : null;
    const shown = `${option.points}${option.bonus ? `<small>+${option.bonus}</small>` : ""}`;
    const coach = coachPick === `${row.box}/${k}`;
    if (!me) {
      const preview = fmt(m !== null ? gettext("%(box)s in column ×%(m)s would score %(points)s") : gettext("%(box)s would score %(points)s"), { box: label, m, points: option.points });
      return { cls: "preview", html: `<span aria-label="${esc(preview)}">${shown}</span>` };
    }
    if (!option.legal) {
      const reason = reasonText(rs, option.reason);
      const forbidden = fmt(m !== null ? gettext("%(box)s in column ×%(m)s: not allowed.") : gettext("%(box)s: not allowed."), { box: label, m });
      return {
        cls: "option",
        html: `<button type="button" id="${id}" class="score-btn forbidden" data-box="${row.box}" data-col="${k}" data-row="${index}"
          aria-disabled="true" title="${esc(reason)}" aria-label="${esc(`${forbidden} ${reason}`)}">✕</button>`,
      };
    }
    return {
      cls: `option${coach ? " coach-pick" : ""}`,
      html: `<button type="button" id="${id}" class="score-btn ${option.points + option.bonus === 0 ? "zero" : ""}"
        data-box="${row.box}" data-col="${k}" data-row="${index}" ${paused ? "disabled" : ""}
        aria-label="${esc(scoreLabel(option, label, m, coach))}">${shown}</button>`,
    };
  };
  const caption = cols > 1
    ? me ? gettext("Scorecard: a column per player and multiplier; your open boxes show what they would score now; arrow keys move between them") : gettext("Scorecard: a column per player and multiplier")
    : me ? gettext("Scorecard: a column per player; your open boxes show what they would score now; arrow keys move between them") : gettext("Scorecard: a column per player");
  return `<h2 id="card-h" class="card-h">${gettext("Scorecard")}</h2>
    ${scorecardHtml({ ruleset: rs, seats, cards, current, focus, just: view.justScored, open, caption })}`;
}

/** A name put in a line as a run of its own (between FSI and PDI, U+2068 and U+2069): two
 * right-to-left names in a row, with only a comma or "&" between them, keep their order. */
export const isolated = (name) => `\u2068${name}\u2069`;

/** A feed line's text as HTML, each isolated name drawn as a <bdi> (as the replay draws its steps). */
const lineHtml = (text) => esc(text).replace(/\u2068([^\u2068\u2069]*)\u2069/g, "<bdi>$1</bdi>");

/** Who is at the table now: every seat still in the game but an away player's, by the room's
 * presence (the page's from its load, then each presence frame's); this page's own seats are
 * here, whatever a socket closed by the reload left the room saying, and so is a seat of it a
 * computer plays while it was away. A computer playing the seat of another player away or gone
 * (``kept``, ``gave_up``) is not that player: the seat keeps their name.
 * Null outside play. */
function hereLine(view) {
  const { state, presence } = view;
  if (state.status !== "playing") return null;
  const present = (s) => {
    if (view.voices.includes(s.seat)) return true; // this page's, a computer's while it is away included
    if (s.kind === "bot") return !s.kept && !s.gave_up;
    return presence.seats[String(s.seat)] !== "away";
  };
  const here = state.seats.filter((s) => s.status === "active" && present(s));
  if (!here.length) return null;
  const names = here.map((s) => isolated(s.name));
  return fmt(ngettext("%(names)s is here.", "%(names)s are here.", names.length), { names: list(names) });
}

export function feedHtml(view) {
  // The feed is what this page saw happen: a page just loaded (a reload) has seen nothing yet,
  // and says who is at the table instead of leaving the panel empty.
  const here = view.feed.length ? null : hereLine(view);
  if (here) return `<h2 id="feed-h" class="feed-h">${gettext("At the table")}</h2><p class="feed-here">${lineHtml(here)}</p>`;
  if (!view.feed.length) return `<h2 id="feed-h" class="feed-h">${gettext("At the table")}</h2><p class="muted feed-empty">${gettext("What everyone does shows here.")}</p>`;
  const items = view.feed.map((item) => `<li class="feed-${item.kind}">${lineHtml(item.text)}</li>`).join("");
  // On a desktop the list keeps one height (site.css), and scrolls past it: the chat below stays put.
  return `<h2 id="feed-h" class="feed-h">${gettext("At the table")}</h2><ol class="feed-list" tabindex="0" aria-labelledby="feed-h">${items}</ol>`;
}

export function seatsHtml(view) {
  const { state, presence } = view;
  const current = state.status === "playing" ? state.turn?.seat : null;
  let offered = false; // an away seat's buttons offered to a player while the host is away
  const items = state.seats
    .map((seat) => {
      if (seat.status !== "active" && state.status === "lobby") return "";
      const online = presence.seats[String(seat.seat)] !== "away"; // unknown until the first presence frame
      const tags = [];
      if (seat.host) tags.push(`<span class="tag">${gettext("host")}</span>`);
      if (view.isMine(seat.seat)) tags.push(`<span class="tag you">${gettext("you")}</span>`);
      if (seat.kind === "bot") tags.push(`<span class="tag bot">${gettext("computer")}${seat.level ? ` · ${esc(view.levels[seat.level] ?? seat.level)}` : ""}</span>`);
      if (seat.status !== "active") tags.push(`<span class="tag">${leftTag(seat)}</span>`);
      if (seat.away && seat.kind === "bot") tags.push(`<span class="tag away">${gettext("away")}</span>`);
      if (seat.muted) tags.push(`<span class="tag">${gettext("chat muted")}</span>`);
      const reaction = view.reactions?.[seat.seat];
      if (reaction) tags.push(`<span class="reaction-bubble" role="img" aria-label="${fmt(gettext("%(name)s reacts %(reaction)s"), { name: esc(isolated(seat.name)), reaction: esc(reaction) })}">${esc(reaction)}</span>`);
      // Whose turn it is sits on the seat's border (site.css), out of its line: a seat keeps its
      // size when the turn passes, and the seats and cards after it stay where they are.
      if (seat.seat === current) tags.push(`<span class="seat-turn"><span class="tag turn">${gettext("to play")}</span>${countdownHtml(view, `seat-${seat.seat}`)}</span>`);
      const presenceText = seat.kind === "bot" ? "" : seat.status !== "active" ? "" : online ? "online" : "away";
      const buttons = [];
      const active = seat.status === "active";
      const live = state.status === "lobby" || state.status === "playing";
      // The player too: a lobby's seats move up when one is taken out, and a button's id with them.
      // Named by its words and then the seat's name ("Remove Rolly"), as the eye reads it on the
      // seat's row: tabbing through the list, "Remove, Remove, Leave" said nothing of whose.
      const button = (act, label, id = act) =>
        `<button type="button" class="btn btn-small btn-quiet" data-act="${act}" data-seat="${seat.seat}" data-player="${Number(seat.player)}" id="${id}-${seat.seat}" aria-labelledby="${id}-${seat.seat} seat-name-${seat.seat}">${label}</button>`;
      if (live && active && view.isHost && !seat.host && seat.kind === "human" && !view.isMine(seat.seat)) {
        buttons.push(seat.muted ? button("unmute", gettext("Unmute chat"), "mute") : button("mute", gettext("Mute chat")));
      } else if (live && view.isHost && !seat.host && seat.muted && (!active || seat.gave_up)) {
        // A muted player who left (or was taken out) can take no seat again to be unmuted on: the
        // host unmutes them from their line, kept in the list (games/services/chat.py).
        buttons.push(button("unmute", gettext("Unmute chat"), "mute"));
      }
      // A seat the computer plays while its player is away is still theirs to leave.
      if (live && active && (view.isMine(seat.seat) || view.awaySeats.includes(seat.seat))) {
        buttons.push(button("leave", gettext("Leave")));
      } else if (live && active && view.isHost && !seat.host && state.status === "lobby") {
        buttons.push(button("kick", gettext("Remove")));
      } else if (awayTools(view, seat.seat) && !toolsInPlay(view, seat.seat)) {
        buttons.push(button("replace", gettext("Let a computer play")));
        buttons.push(button("remove", gettext("Take out (away)")));
        offered = offered || !view.isHost;
      } else if (state.status === "playing" && !active && view.isHost && !cardFull(state, seat.seat)) {
        // A seat that left with its card full has no turn left for a computer to play (card_full).
        buttons.push(button("replace", gettext("Let a computer play")));
      }
      const total = state.cards[seat.seat]?.total;
      // The total shown last, apart from what wraps (site.css): the list reads as a leaderboard
      // whatever each row's name, tags and buttons. A screen reader hears it before the buttons,
      // with the seat it belongs to.
      return `<li class="seat ${seat.seat === current ? "current" : ""} ${active ? "" : "gone"}"><span class="seat-main">
        ${seat.kind === "bot" ? '<span class="bot-mark" aria-hidden="true">⚙</span>' : `<span class="presence ${presenceText}" aria-hidden="true"></span>`}
        <span class="seat-name" id="seat-name-${seat.seat}">${esc(seat.name)}</span>${tags.join("")}
        ${presenceText ? presenceWords(presenceText) : ""}
        ${total !== undefined ? `<span class="sr-only">${fmt(gettext("total %(total)s"), { total })}</span>` : ""}
        ${buttons.join("")}</span>
        ${total !== undefined ? `<span class="seat-total"><span aria-hidden="true">${total}</span></span>` : ""}</li>`;
    })
    .join("");
  // The players muted who left the lobby (or the game before this rematch): their seat is gone,
  // their mute is not, and the host unmutes them by the name they sat under (Room.muted_left).
  const live = state.status === "lobby" || state.status === "playing";
  const gone = (live && view.isHost ? state.chat?.muted_left ?? [] : [])
    .map(
      (entry, i) => `<li class="seat gone muted-left"><span class="seat-main">
        <span class="presence" aria-hidden="true"></span>
        <span class="seat-name" id="muted-left-name-${i}">${esc(playerName(entry.name))}</span><span class="tag">${gettext("left")}</span><span class="tag">${gettext("chat muted")}</span>
        <button type="button" class="btn btn-small btn-quiet" data-act="unmute_spectator" data-spectator="${esc(entry.spectator)}" id="unmute-left-${i}" aria-labelledby="unmute-left-${i} muted-left-name-${i}">${gettext("Unmute chat")}</button></span></li>`,
    )
    .join("");
  const note = offered ? `<p class="muted small" id="host-away-seats">${gettext("The host is away: you may let a computer play an away player's seat or take it out, and you become the host.")}</p>` : "";
  return `<h2 id="seats-h" tabindex="-1">${gettext("Players")}</h2><ol class="seat-list">${items}${gone}</ol>${note}`;
}

/** Whether the play card offers the away seat's tools (the seat to play): the Players list then
 * leaves them out, or a desktop, which shows both cards side by side, would offer each twice. */
function toolsInPlay(view, index) {
  const turn = view.state.turn;
  return Boolean(turn) && turn.seat === index && !view.myTurn && awayTools(view, index);
}

/** Whether this page offers the host's tools for an away player's seat during play: let a
 * computer play it, or take it out (waiting is doing neither). The host has them for every seat
 * but their own; while the host is away, a player at the table has them too (the host's own seat
 * included). At your own pace nobody need be online: a seat is never taken over for being away. */
function awayTools(view, index) {
  const { state } = view;
  const seat = state.seats[index];
  if (state.status !== "playing" || state.pace === "own" || !seat || seat.status !== "active" || seat.kind === "bot") return false;
  if (view.isMine(index) || view.awaySeats.includes(index)) return false;
  if (view.presence.seats[String(index)] !== "away") return false; // unknown until the first presence frame
  // A player who went away only a moment ago gets the server's wait first (``waiting``).
  if ((view.waiting ?? []).includes(index)) return false;
  return (view.isHost && !seat.host) || view.hostAway;
}

/** How a seat out of the game is tagged: "taken out" if the host took it out (the state's
 * ``taken_out``), "left" if its player left it. */
export function leftTag(seat) {
  return seat?.taken_out ? gettext("taken out") : gettext("left");
}

/** Whether the game over is a win for this page's player (``isYourResult``), alone or shared. */
export function yourResult(view, winners = view.state.winners) {
  return winners.some(view.isYourResult);
}

export function fairHtml(view) {
  return fmt(gettext("Fair dice: seed commitment %(commitment)s (the seed is revealed when the game ends)."), {
    commitment: `<code>${esc(view.state.fairness.commitment.slice(0, 16))}…</code>`,
  });
}

// The room page's wiring: the protocol client (room/protocol.js) below, the drawing
// (room/render.js) above, and the player's clicks and keys in between.
// The server is the referee; this page only draws the state it is sent and asks for actions.
import { fmt, gettext, list, ngettext } from "./i18n.js";
import { ChatPanel, CHAT_MAX, REACTIONS, chatLength, chatNote } from "./room/chat.js";
import { RoomClient } from "./room/protocol.js";
import * as render from "./room/render.js";
import { keepSeatNamesFitted, redrawCard, updateCard } from "./scorecard.js";
import { colourName, levelNames, playerName, reasonText } from "./words.js";

const root = document.getElementById("room");
const code = root.dataset.code;
const shownCode = code.match(/.{1,4}/g).join("-"); // as people read and type it: "abcd-efgh-jk"
const initial = JSON.parse(document.getElementById("initial").textContent);
const levels = levelNames(initial.bot_levels);
const csrf = document.querySelector('meta[name="csrf-token"]').content;
const $ = (id) => document.getElementById(id);

/** A module the first draw does not need, imported once (``get()``, a promise of it; ``get.now()``,
 * the module once it is there). A failed import (the network gone) is tried again at the next ask. */
function later(load) {
  let module = null;
  let loading = null;
  const get = () =>
    (loading ??= load().then(
      (m) => (module = m),
      (error) => {
        loading = null;
        throw error;
      },
    ));
  get.now = () => module;
  return get;
}
// The game-over panel, the sounds and the screen's wake lock: fetched once the page is drawn and
// the browser is idle, long before a game ends or a sound plays; a page opened on a game that is
// over has the panel's module preloaded with it (games/room.html).
const overPanel = later(() => import("./room/over.js"));
const sounds = later(() => import("./room/sound.js"));
const awake = later(() => import("./room/awake.js"));
// The words of a refusal: fetched once idle too, or by a refusal that comes before.
const errors = later(() => import("./room/errors.js"));
/** Make a sound (``play(module)``) once the sounds' module is there; without it (offline), none. */
const sound = (play) => void sounds().then(play, () => {});
/** What an error frame means in the reader's words (room/errors.js), once its module is there; where
 * it cannot be fetched (offline), the server's own sentence. */
const errorText = (frame, host = "") =>
  errors().then(
    (words) => words.errorText(frame, host),
    () => frame.message ?? gettext("Something went wrong."),
  );
/** ``use`` given what an error frame means (errorText): at once when room/errors.js is there; one
 * before it is fetched waits. */
function sayError(frame, host, use) {
  const words = errors.now();
  if (words) use(words.errorText(frame, host));
  else void errorText(frame, host).then(use);
}
/** A refusal's toast, at once and in its place among the page's toasts: a slow network may take
 * seconds to bring room/errors.js. Before its words are there it says something went wrong (the
 * catalog's words, in the reader's language), and its own words take that toast's place when they
 * come, unless another toast took it meanwhile. They come back to say why even if that toast
 * closed; words no better than it (none known for the refusal) leave it as it is: the toast is an
 * alert, read out each time its words are written. */
function toastError(frame, host = "") {
  const words = errors.now();
  if (words) {
    toast(words.errorText(frame, host));
    return;
  }
  const generic = gettext("Something went wrong.");
  toast(generic);
  const shown = toasts;
  void errorText(frame, host).then((text) => {
    if (toasts === shown && text !== generic) toast(text);
  });
}
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
const narrowScreen = window.matchMedia("(max-width: 480px)"); // as the phone layout of site.css

// What this page knows beyond the protocol client's state.
const ui = {
  desiredHeld: null, // the holds this page shows while hold frames are on their way
  rolling: new Set(), // dice to animate on the next draw
  newState: false, // a state taken and not drawn yet (drawSoon)
  lastTurnKey: undefined, // the turn drawn last (null: none, in the lobby); undefined until the first draw
  muted: localStorage.getItem("yahtzee-muted") === "1",
  review: null, // the coach's look back at a finished game
  reviewAsked: false,
  feed: [], // the last few things that happened at the table, newest first
  justScored: null, // {seat, box, column}: highlighted for a moment for everyone
  focusDice: false, // after Start or a score: put the keyboard on the dice once the answer is drawn
  chatHidden: localStorage.getItem("yahtzee-chat-hidden") === "1", // this browser's choice, in each of its tabs
  sentChat: null, // {id, text}: the message just sent and not seen arrive, put back in the field if refused
  // A spectator's first message, waiting for its browser's token and the socket that posts with it.
  chatAfterToken: null,
  reactions: {}, // seat -> the reaction shown on it for a moment
  clock: null, // {left, at, ...}: the turn timer's seconds left when this page got the last state
  warnedTurn: null, // the turn whose player was told its time runs low, until more time lifts it out
  ready: null, // {version, eta, at}: the state's getting_ready (the computer's table is being built)
  hintWait: null, // {version, eta, at}: the coach's answer that it is getting ready
  lastBack: 0,
  seenPlaying: false, // this page showed the game being played (its end is then brought into view)
  idle: false, // the browser has been idle once since the first draw: the modules it did not need are asked for
  wasConnected: false,
  reconnected: false, // the page has lost a socket since it opened
  host: undefined, // the host's player, as the last state said (a change is told to the table)
  hostAwaySince: null, // when this page first saw the host's seat away (null: the host is here)
  waitsUntil: {}, // seat -> performance.now() when the server lets its away player's seat be taken over
  joinRefusedSaid: false, // the keyboard was put on the name a join was refused for
  toolsTold: null, // the play card's host tools last announced (their seat and words), null while none show
  // The host kicked a seat of this browser from the lobby: a join from it would be refused (kicked).
  takenOut: Boolean(initial.kicked) && initial.state.status === "lobby",
  // The host took a seat of this browser out of the game while the page was open (one of several
  // included): it posts no more once it has no seat left, as the chat refuses it
  // (store/selectors.py silenced). A kick from the lobby leaves its chat as a spectator's.
  chatTakenOut: false,
  revealed: null, // {seed, commitment}: the revealed server seed and its SHA-256, once hashed here
  resultCopied: false, // the game's result was just copied: its button says so for a moment
};
const REACTION_SHOWN = 2500;
// A player at the table is offered the host's tools that get a stuck game moving once the host's
// seat has been away this long: a host whose page reloads or whose phone wakes up is back well
// within it, and keeps the role (the server hands it on only to a player who uses one).
const HOST_AWAY_MS = (initial.host_away ?? 15) * 1000; // the server's wait (settings.HOST_AWAY)
const CHAT_WARN = 50; // the chat's characters left show from here on
const FEED_SIZE = 6;

// The room's other tabs in this browser: they share its session, so its seats. Each tab says
// which players the server told it are its own; a tab told otherwise asks the server again
// (RoomClient.otherTab), so a seat taken in one tab is this browser's in all of them.
const tabs = "BroadcastChannel" in window ? new BroadcastChannel(`yahtzee-room-${code}`) : null;
const scheme = location.protocol === "https:" ? "wss" : "ws";

/** The room's presence as the page was drawn, this page's own seats here: the socket a reload
 * closed may have left them away, and the one about to open is theirs (the feed, the Players list
 * and the card's dots say so alike until the socket's first presence frame). */
function pagePresence(presence, mine) {
  if (!presence) return null;
  const seats = { ...(presence.seats ?? {}) };
  for (const seat of mine) if (seats[String(seat)] === "away") seats[String(seat)] = "connected";
  return { ...presence, seats };
}

const client = new RoomClient({
  url: `${scheme}://${location.host}/ws/rooms/${code}/`,
  state: initial.state,
  seats: initial.you,
  spectator: initial.spectator ?? "",
  former: Boolean(initial.former),
  left: initial.left ?? [],
  presence: pagePresence(initial.presence, initial.you ?? []),
  takenOut: Boolean(initial.taken_out),
  hooks: {
    onConnection: (status) => {
      if (status === "reconnecting") {
        keepUnsentChat();
        ui.reconnected = true;
        // The holds waiting to be sent went with the socket: the dice show the server's, or the
        // unanswered hold's, which is sent again.
        ui.desiredHeld = client.inflight?.type === "hold" ? client.inflight.held : null;
      }
      setConnection(status);
      if (status === "connected" && ui.chatAfterToken && client.spectator) {
        const frame = ui.chatAfterToken;
        ui.chatAfterToken = null;
        postChat(frame);
      }
    },
    onState: (state) => {
      if (client.idle()) ui.desiredHeld = null;
      setClock(state);
      setReady(state);
      noteHost(state);
      ui.newState = true;
      drawSoon();
    },
    onPresence: (frame) => {
      noteHost(client.state);
      noteWaits(frame);
      drawSoon();
    },
    onYou: (frame) => {
      // The server's word as of now, on the take-outs before it too (the frame's taken_out).
      ui.chatTakenOut = false;
      tabs?.postMessage({ players: client.myPlayers });
      noteRelease(frame);
    },
    onEvent: event,
    onMissed: (after, before) => void catchUp(after, before),
    onError: (frame, mineFailed) => {
      if (mineFailed) {
        ui.desiredHeld = null;
        ui.focusDice = false;
      }
      if (ui.sentChat && frame.id === ui.sentChat.id) {
        if (!$("chat-text").value) {
          $("chat-text").value = ui.sentChat.text;
          countChat();
        }
        ui.sentChat = null; // refused: not on its way any more
      }
      if (frame.code === "stale" && mineFailed) toast(gettext("The table changed just before your move: have a look and try again."), "info");
      else if (frame.code !== "stale" && frame.code !== "repeated_action") toastError(frame, hostName());
      draw();
    },
  },
});

// This browser's seeds for the dice (seed.js, docs/fairness.md): only the lobby's join form, the
// rematch's and the game-over panel carry or show them, so the module is fetched once idle, or at
// once by the game-over panel (preloaded with a page opened on it), a join sent before, or the page
// a form that sent a seed led to (below).
// The seed of the form that led here (the home page's, a rematch's) is this room's, where it
// seated this browser: the seats take it in the lobby (a rematch that started before this browser
// followed it took none), a game on one device as it is made. A rematch not made yet gets a seed
// of its own, kept under its code once the form leads there.
const seededHere = client.mine.length > 0 && (client.state.status === "lobby" || client.state.local);
const commitmentShown = client.state.fairness?.commitment;
let rematchSeed = null;
const seeds = later(() =>
  import("./seed.js").then((seed) => {
    if (seededHere) seed.arrived(code, commitmentShown);
    rematchSeed ??= seed.newSeed();
    return seed;
  }),
);
// A page a form that sent a seed led to (the home page's, a rematch's: seed.js notes it in this
// tab's sessionStorage) fetches the module at once, to keep the seed under this room's code, or
// drop it, before the page can be left.
try {
  if (sessionStorage.getItem("yahtzee-seed-sent") !== null) seeds().catch(() => {});
} catch {
  // Storage refused: no seed was noted.
}

function view() {
  const seed = seeds.now();
  return render.viewOf(client.state, {
    mine: client.mine,
    left: client.left,
    presence: client.presence,
    held: ui.desiredHeld ?? client.state.turn?.held ?? [],
    rolling: ui.rolling,
    reducedMotion,
    narrow: narrowScreen.matches,
    hint: client.hint,
    hintPending: client.hintPending,
    review: ui.review,
    connection: connection(client.status),
    feed: ui.feed,
    justScored: ui.justScored,
    reactions: ui.reactions,
    reactionChoices: REACTIONS,
    clockLeft: clockLeft(),
    readyLeft: secondsLeft(ui.ready),
    hintLeft: secondsLeft(ui.hintWait),
    hostAway: ui.hostAwaySince !== null && Date.now() - ui.hostAwaySince >= HOST_AWAY_MS,
    waiting: seatsWaiting(),
    levels,
    csrf,
    // This browser's seeds for the dice (docs/fairness.md): the one it sends here (the one it
    // sent before, if any), the one a rematch takes, and the one it sent here, shown at the end.
    // Until the seeds' module is there none is known: a join sent before waits for it (the lobby's
    // submit below), the game-over panel is drawn with it (drawOver).
    clientSeed: seed?.seedFor(code) ?? "",
    rematchSeed: seed && typeof client.state.rematch === "string" ? seed.seedFor(client.state.rematch) : rematchSeed,
    sentSeed: seed?.sentTo(code) ?? null,
    // The commitment the page showed when this browser sent its seed, and the revealed seed's own.
    seenCommitment: seed?.seenCommitment(code) ?? null,
    revealedCommitment: ui.revealed?.seed === client.state.fairness?.server_seed ? ui.revealed.commitment : null,
    invite: root.dataset.invite,
    // The device's own share sheet (a phone's messages and chat apps, a desktop's mail or
    // nearby sharing) wherever the browser offers Web Share.
    canShare: typeof navigator.share === "function",
    resultCopied: ui.resultCopied,
    joinUrl: root.dataset.joinUrl,
    takenOut: ui.takenOut,
    joinRefused: initial.join_refused ?? null, // the name a join was refused for and why (#join-error, under the field)
    rematchUrl: root.dataset.rematchUrl,
    fairnessUrl: root.dataset.fairnessUrl,
    logUrl: root.dataset.logUrl,
    rulesUrl: root.dataset.rulesUrl,
  });
}

// --- what the page says ------------------------------------------------------------------

// Messages that arrive together are read together, not the last one alone.
let announced = [];
let announceTimer = null;
/** Say ``text`` in the live region. */
function announce(text) {
  announced.push(text);
  window.clearTimeout(announceTimer);
  announceTimer = window.setTimeout(() => {
    $("announce").textContent = announced.join(" ");
    announced = [];
  }, 120);
}

// The server serves another release of the pages' scripts than this page runs: a deploy came
// while it was open, and its socket reached the new server (the ``you`` frame names its release).
// Said once, in a polite live region that takes no focus, and not in this page's own turn: a
// line pushing the table down could move a box under the player's finger.
const pageRelease = document.querySelector('meta[name="release"]')?.content ?? "";
function noteRelease(frame) {
  if (frame?.release && pageRelease && frame.release !== pageRelease) ui.newRelease = true;
  const box = $("new-release");
  if (!ui.newRelease || box.childElementCount || (client.state.status === "playing" && view().myTurn)) return;
  const text = document.createElement("span");
  text.textContent = gettext("A new version of the site is ready.");
  const reload = document.createElement("button");
  reload.type = "button";
  reload.id = "new-release-reload";
  reload.className = "btn btn-small";
  reload.textContent = gettext("Reload");
  reload.addEventListener("click", () => window.location.reload());
  box.append(text, " ", reload);
}

/** The host's name as the page shows it, isolated for a sentence of plain text ("": no host). */
function hostName() {
  const seat = client.state?.seats.find((s) => s.host && s.status === "active");
  return seat ? render.isolated(playerName(seat.name)) : "";
}

// Who hosts: a new host is told to the table (the host left, or a player took the host's tools
// while the host was away), and how long the host's seat has been away.
let hostAwayTimer = null;
function noteHost(state) {
  const seat = state.seats.find((s) => s.host);
  const player = seat?.player ?? null;
  const live = state.status === "lobby" || state.status === "playing";
  if (ui.host !== undefined && player !== ui.host && seat && live) {
    const person = render.isolated(playerName(seat.name));
    announce(fmt(gettext("%(name)s is now the host."), { name: person }));
    // A player who took the host's tools was handed the role by a Move of its own, which the
    // state's ``earlier`` told the feed where the room's recent events put it; a role handed on
    // with a leave is the state's to tell, after the leave, as those events do.
    if (!state.earlier?.some((told) => told.type === "host")) remember(feedLine({ type: "host", name: playerName(seat.name) }, view()), state.version);
    // Handed the role during a pause (the host who paused left): the resume is this page's now;
    // the others' pages, that the game waits for the new host's.
    if (view().yoursToResume) {
      announce(gettext("The game is paused: play goes on when you resume it."));
      remember({ text: gettext("Game paused: you can resume it"), kind: "info" }, state.version);
    } else if (view().resumer !== null) {
      announce(fmt(gettext("The game is paused: play goes on when %(name)s, the host, resumes it."), { name: person }));
      remember({ text: fmt(gettext("Game paused: %(name)s (the host) can resume it"), { name: person }), kind: "info" }, state.version);
    }
  }
  ui.host = player;
  const away = live && (!seat || client.presence.seats[String(seat.seat)] === "away");
  if (!away) {
    ui.hostAwaySince = null;
    window.clearTimeout(hostAwayTimer);
  } else if (ui.hostAwaySince === null) {
    ui.hostAwaySince = Date.now();
    hostAwayTimer = window.setTimeout(draw, HOST_AWAY_MS + 100);
  }
}

// An away player's seat of a live game is offered to a computer or taken out only once the server's
// wait is over (the presence frame's ``waits``, the seconds it has left): a reload or a phone
// changing networks is not an opening. The page counts down what the server said, not a clock of its own.
let waitsTimer = null;
function noteWaits(frame) {
  const now = performance.now();
  ui.waitsUntil = Object.fromEntries(Object.entries(frame.waits ?? {}).map(([seat, left]) => [seat, now + left * 1000]));
  window.clearTimeout(waitsTimer);
  const last = Math.max(0, ...Object.values(ui.waitsUntil));
  if (last > now) waitsTimer = window.setTimeout(draw, last - now + 100);
  // Each seat's wait ends at its own time: draw again as each does.
  for (const until of Object.values(ui.waitsUntil)) if (until < last) window.setTimeout(draw, until - now + 100);
}

/** The away seats whose wait is not over yet (numbers). */
function seatsWaiting() {
  const now = performance.now();
  return Object.entries(ui.waitsUntil)
    .filter(([, until]) => until > now)
    .map(([seat]) => Number(seat));
}

let toastTimer = null;
let toasts = 0; // toasts shown: a refusal's words replace its toast only while it is the newest (toastError)
function toast(text, kind = "error") {
  const box = $("toast");
  toasts += 1;
  box.textContent = text;
  box.dataset.kind = kind;
  box.hidden = false;
  window.clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => (box.hidden = true), 6000);
}

/**
 * The page's connection as its player reads it, from the client's ``status``: each try of a
 * reconnection connects again, and is still a reconnection; a page that never had a connection
 * (its first socket on its way, or refused and tried again) is connecting, none having dropped.
 */
function connection(status) {
  if (status !== "connecting" && status !== "reconnecting") return status;
  return ui.wasConnected ? "reconnecting" : "connecting";
}

function setConnection(status) {
  const labels = {
    connecting: gettext("Connecting…"),
    connected: gettext("Connected"),
    reconnecting: gettext("Reconnecting…"),
    gone: gettext("Disconnected"),
  };
  const el = $("conn");
  if (status === "connected") ui.wasConnected = true;
  el.dataset.state = connection(status);
  el.textContent = labels[connection(status)];
  draw();
}

/** Put ``line`` ({text, kind}: feedLine's), said of the room at ``version``, at the top of the feed. */
function remember(line, version) {
  ui.feed.unshift({ ...line, version });
  ui.feed.length = Math.min(ui.feed.length, FEED_SIZE);
  drawSoon();
}

/** "Game over", with the winners' names (each isolated). */
const gameOver = (named) => named.length > 1
  ? fmt(gettext("Game over: %(names)s share the win"), { names: list(named) })
  : named.length ? fmt(gettext("Game over: %(name)s wins"), { name: named[0] }) : gettext("Game over");

/** Whether this page's browser paused the game: the event names the seat that paused it (a pause
 * whose event names no seat is its host's). */
const pausedByMe = (frame, v) => (frame.seat !== undefined ? v.isMine(frame.seat) : v.isHost);

/** An event with its name in the reader's words: a deleted account's seat's is "Former player". */
const named = (frame) => (typeof frame.name === "string" ? { ...frame, name: playerName(frame.name) } : frame);

/**
 * The feed's line for an event, in the reader's words: {text, kind}, or null for an event the feed
 * has no line for. The one wording of the feed, for the event a state brings and for the room's
 * past ones a page is drawn with (restoreFeed). ``frame``: the event, its name put by ``named``;
 * ``who``: the name of the seat whose turn it was, isolated; ``lobby``: the room was in its lobby.
 * Each name is a run of its own: a right-to-left name, or one that ends in a number, takes none
 * of the words or figures beside it into its run.
 */
function feedLine(frame, v, who = "", lobby = false) {
  const person = render.isolated(frame.name ?? "");
  const line = (text, kind = "info") => ({ text, kind });
  switch (frame.type) {
    case "timed_out":
      return line(fmt(gettext("%(name)s's time ran out"), { name: person }), "bot");
    case "paused":
      // The host who paused reads it of themselves; the others read it of the host.
      return line(pausedByMe(frame, v) ? gettext("You paused the game") : gettext("The host paused the game"));
    case "resumed":
      // Said of whoever resumed it (the event names their seat): the host, or a player at the
      // table who hosts from then on, the host being away; they read it of themselves.
      if (frame.seat !== undefined ? v.isMine(frame.seat) : v.isHost) return line(gettext("You resumed the game"));
      return line(frame.name ? fmt(gettext("%(name)s resumed the game"), { name: person }) : gettext("The host resumed the game"));
    case "extended":
      if (frame.set_back) return null; // the server's clock was set back and the deadline with it: the time left is unchanged
      if (frame.outage) return line(fmt(gettext("The server was out of reach: %(name)s got that time back to move"), { name: person }));
      return line(fmt(gettext("%(name)s was given %(time)s more to move"), { name: person, time: render.duration(frame.seconds) }));
    case "muted":
      // A spectator has no name: the room reads that one was muted.
      if (frame.spectator) return line(frame.muted ? gettext("A spectator's chat was muted by the host") : gettext("A spectator's chat was unmuted by the host"));
      return line(fmt(frame.muted ? gettext("%(name)s's chat was muted by the host") : gettext("%(name)s's chat was unmuted by the host"), { name: person }));
    case "rolled": {
      const yahtzee = frame.dice.length === 5 && frame.dice.every((d) => d === frame.dice[0]);
      return yahtzee ? line(fmt(gettext("%(name)s rolled a %(yahtzee)s!"), { name: who, yahtzee: v.boxLabel("yahtzee") }), "yahtzee") : null;
    }
    case "scored":
      return line(render.scoredLine(v, frame, who), frame.bonus ? "yahtzee" : "score");
    case "joined":
      return line(fmt(gettext("%(name)s joined"), { name: person }));
    case "left":
      // Said as it was: the host took the seat out.
      if (frame.by_host) return line(fmt(lobby ? gettext("The host took %(name)s out of the room") : gettext("The host took %(name)s out of the game"), { name: person }));
      return line(frame.name ? fmt(gettext("%(name)s left"), { name: person }) : gettext("A player left"));
    case "started":
      return line(gettext("The game has started"));
    case "rematch":
      return line(gettext("A rematch room is open"));
    case "bot":
      return line(fmt(gettext("The computer (%(level)s) took over %(name)s's seat"), { name: person, level: levels[frame.level] ?? frame.level }), "bot");
    case "reclaimed":
      return line(fmt(gettext("%(name)s is back and plays their own seat again"), { name: person }), "bot");
    case "host":
      return line(fmt(gettext("%(name)s is now the host"), { name: person }));
    case "game_over":
      // Each name a run of its own, in seat order as on the scorecard.
      return line(gameOver((frame.winners ?? []).map((seat) => render.isolated(v.seatName(seat)))), "over");
    default:
      return null;
  }
}

/** The feed as a page open through the room's last events showed it (``past``: the server's, oldest
 * first, each with the seat whose turn it was): a reload, a second device or a spectator arriving
 * during play reads the table's recent lines, not an empty feed, before anything new happens. */
function restoreFeed(past) {
  ui.feed.unshift(...pastLines(past));
  ui.feed.length = Math.min(ui.feed.length, FEED_SIZE);
}

/** The feed's lines for the server's past events (oldest first), newest first, each with its version. */
function pastLines(past) {
  const v = view();
  const lines = [];
  for (const frame of past) {
    const line = feedLine(named(frame), v, render.isolated(v.seatName(frame.seat)), Boolean(frame.lobby));
    if (line) lines.unshift({ ...line, version: frame.version, type: frame.type, seat: frame.seat });
  }
  return lines;
}

/**
 * The lines of the versions after ``after`` and before ``before``, which this page never heard (its
 * socket was away, or a state of the room went astray), from the room's last events, asked once:
 * put among the feed's lines by their versions, each once, in the reader's words. Its player reads
 * that their time ran out meanwhile where she looks, as an open page tells her.
 */
async function catchUp(after, before) {
  let past;
  try {
    const response = await fetch(`/r/${code}/feed.json`, { cache: "no-store" });
    if (!response.ok) return;
    past = (await response.json()).feed;
  } catch {
    return; // the lines are missed as before; the table itself is the server's
  }
  const shown = new Set(ui.feed.map((line) => `${line.version} ${line.text}`));
  const missed = pastLines(past.filter((frame) => frame.version > after && frame.version < before)).filter(
    // The host handed on is told by the state that shows it too (noteHost), at a later version.
    (line) => !shown.has(`${line.version} ${line.text}`) && !(line.type === "host" && ui.feed.some((l) => l.text === line.text && l.version >= line.version)),
  );
  if (!missed.length) return;
  // Stable: the lines of one version keep the order they were said in. What the page said of a
  // version it missed the event of came from the state (the host handed on by that leave): it
  // goes above the missed event's line, as a page open through it, or drawn afresh, puts it.
  ui.feed = [...ui.feed, ...missed].sort((a, b) => (b.version ?? Infinity) - (a.version ?? Infinity));
  ui.feed.length = Math.min(ui.feed.length, FEED_SIZE);
  const v = view();
  drawFeed(v);
  const ranOut = missed.find((line) => line.type === "timed_out" && v.isMine(line.seat));
  if (ranOut) timedOutToast(named(past.find((frame) => frame.version === ranOut.version && frame.type === "timed_out")), v);
}

/** Tell the player whose time ran out, where she looks: the server played her turn. */
function timedOutToast(frame, v) {
  toast(
    !v.isYou(frame.seat)
      ? fmt(frame.rolled ? gettext("%(name)s's time ran out: the server scored the box worth most.") : gettext("%(name)s's time ran out: the server rolled and scored the box worth most."), { name: render.isolated(frame.name) })
      : frame.rolled ? gettext("Your time ran out: the server scored the box worth most for you.") : gettext("Your time ran out: the server rolled and scored the box worth most for you."),
    "info",
  );
}

let justTimer = null;
function highlight(scored) {
  ui.justScored = scored;
  window.clearTimeout(justTimer);
  justTimer = window.setTimeout(() => {
    ui.justScored = null;
    document.querySelectorAll("#card td.just").forEach((td) => td.classList.remove("just"));
  }, 2600);
}

// A short burst of dice and confetti over the table; nothing under prefers-reduced-motion.
function celebrate(text) {
  if (reducedMotion) return;
  const layer = $("celebrate");
  const burst = document.createElement("p");
  burst.className = "burst";
  burst.textContent = text;
  layer.replaceChildren(burst);
  for (let i = 0; i < 18; i++) {
    const bit = document.createElement("i");
    bit.className = `bit bit-${i % 5}`;
    // Through the CSSOM: the Content-Security-Policy refuses style attributes in markup.
    bit.style.setProperty("--x", `${(i * 37) % 100}%`);
    bit.style.setProperty("--d", `${(i % 6) * 0.08}s`);
    bit.style.setProperty("--r", `${(i * 47) % 360}deg`);
    layer.append(bit);
  }
  layer.hidden = false;
  window.clearTimeout(celebrate.timer);
  celebrate.timer = window.setTimeout(() => {
    layer.hidden = true;
    layer.replaceChildren();
  }, 2200);
}

function event(frame) {
  // What a deleted account's seat did is told under the reader's words for it.
  frame = named(frame);
  const state = client.state;
  const v = view();
  // Each name said or shown is a run of its own: a right-to-left name, or one that ends in a
  // number, takes none of the words or figures beside it into its run.
  const who = render.isolated(v.seatName(state.turn?.seat));
  const person = render.isolated(frame.name ?? "");
  // The state it came with is still the page's: the turn was ``who``'s.
  const line = feedLine(frame, v, who, state.status === "lobby");
  if (line) remember(line, frame.version);
  switch (frame.type) {
    case "chat_history": {
      const seen = new Set(chat.ids);
      // The first socket's history is the room's past; a later one's new lines are news.
      chat.replace(frame.messages, !ui.reconnected);
      // The message kept in the field when the connection dropped had arrived after all.
      if (frame.messages.some((m) => !seen.has(m.id) && ownChat(m))) chatArrived();
      drawChat(v);
      break;
    }
    case "chat": {
      // Known by its frame's id: the server may have cleaned its text, and it may come on a
      // socket opened after the one that sent it.
      const mine = Boolean(ui.sentChat) && frame.id === ui.sentChat.id;
      if (mine) chatArrived();
      if (chat.add(frame.message)) {
        if (mine) chat.toEnd(); // what this page just said is shown, wherever its reader was
        if (!ui.chatHidden) chat.unread = 0;
        drawChat(v);
      }
      break;
    }
    case "chat_hidden":
      if (frame.hidden) chat.hide(frame.message);
      else if (frame.shown) chat.add(frame.shown, false);
      break;
    case "chat_renamed":
      // A deleted account's lines, under the name its seat now has (in this reader's words); a
      // spectator's who signed in, under the handle the host now mutes them by.
      chat.renamed(frame.messages, frame.name, frame.spectator);
      break;
    case "reaction":
      showReaction(frame.seat, frame.reaction);
      break;
    case "timed_out":
      announce(fmt(gettext("%(name)s's time ran out: the server played the turn."), { name: render.isolated(frame.name) }));
      // The player it hit is told where she looks, not only in the feed below the card.
      if (v.isMine(frame.seat)) timedOutToast(frame, v);
      break;
    case "paused":
      // Only the host pauses: its browser reads it of itself (the event names the seat; the page
      // hears it on the state it holds, which may be older than the host's role), the others of the host.
      announce(pausedByMe(frame, v) ? gettext("You paused the game.") : gettext("The host paused the game."));
      break;
    case "resumed":
      announce(gettext("The game goes on."));
      break;
    case "extended": {
      if (frame.set_back) break; // the server's clock was set back and the deadline with it: the time left is unchanged
      if (frame.outage) {
        announce(line.text + ".");
        break;
      }
      announce(fmt(gettext("%(name)s was given %(time)s more to move."), { name: render.isolated(frame.name), time: render.duration(frame.seconds) }));
      break;
    }
    case "muted":
      if (frame.spectator) {
        // The room hears that a spectator was muted, the spectator that it was them.
        if (frame.spectator === client.spectator && frame.muted) sayError({ code: "muted" }, "", announce);
        else announce(`${line.text}.`);
        break;
      }
      // The host's unmute of a seat this browser was taken out of gives it its voice back, unless
      // another seat of it was taken out too: the server says which (a new socket's you). Another
      // player's unmute changes nothing of this browser's.
      if (!frame.muted && !v.voices.length && (client.takenOut || ui.chatTakenOut) && [...client.mine, ...client.left].includes(frame.seat)) client.standingChanged();
      break;
    case "rolled": {
      ui.rolling = new Set([0, 1, 2, 3, 4].filter((i) => !frame.held.includes(i)));
      // Painted: a die's colour scores too (Flush, Rainbow, the colour boxes), as its own label
      // says. Read from the roll itself (a new die's face names its colour, a held die keeps
      // its own), not from the state after it: a turn the server played for a player whose time
      // ran out is rolled and scored in one frame, and its state is the next player's turn.
      const names = state.ruleset?.colours ?? [];
      const faces = [...(frame.faces ?? [])];
      const kept = faces.length < frame.dice.length ? new Set(frame.held) : new Set();
      const dice = frame.dice.map((d, i) => {
        const colour = kept.has(i) ? state.turn?.colours?.[i] : names[Math.floor((faces.shift() - 1) / 6)];
        return names.length && colour ? `${d} ${colourName(colour)}` : String(d);
      });
      announce(fmt(gettext("%(name)s rolled %(dice)s."), { name: who, dice: dice.join(", ") }));
      const yahtzee = frame.dice.length === 5 && frame.dice.every((d) => d === frame.dice[0]);
      if (!ui.muted) sound((s) => (yahtzee ? s.fanfare : s.rattle)(5 - frame.held.length));
      if (yahtzee) celebrate(`${v.boxLabel("yahtzee")}!`);
      break;
    }
    case "scored": {
      announce(render.scoredText(v, frame, who));
      if (state.turn) highlight({ seat: state.turn.seat, box: frame.box, column: frame.column ?? 0 });
      break;
    }
    case "joined":
      announce(fmt(gettext("%(name)s joined."), { name: person }));
      break;
    case "left":
      if (frame.by_host) {
        // Said as it was: the host took the seat out. Its player is told where they look, and is
        // not offered a seat the server would refuse them.
        const lobby = state.status === "lobby";
        const said = line.text;
        if (v.isMine(frame.seat) && !lobby) ui.chatTakenOut = true;
        // "You" only when this browser has no seat left: a device that seats two players and
        // loses one still plays the other, and hears the seat's name as everyone does.
        if (!v.isMine(frame.seat)) announce(`${said}.`);
        else if (v.mine.some((seat) => seat !== frame.seat)) toast(`${said}.`, "info");
        else {
          ui.takenOut = true;
          if (lobby) sayError({ code: "kicked" }, "", (text) => toast(text, "info"));
          else toast(gettext("The host took you out of the game: you can watch."), "info");
        }
        break;
      }
      announce(frame.name ? fmt(gettext("%(name)s left."), { name: person }) : gettext("A player left."));
      break;
    case "started":
      announce(gettext("The game has started."));
      break;
    case "rematch":
      announce(gettext("A rematch room is open."));
      break;
    case "hint":
      if (client.hint === frame && frame.ready === false) waitForCoach(frame);
      else if (client.hint === frame) {
        const choices = fmt(gettext("Coach: %(choices)s."), { choices: frame.options.map((o) => render.optionText(view(), o)).join(gettext("; or ")) });
        announce(`${choices} ${render.estimateNote(view())}`.trim());
      }
      draw();
      break;
    case "bot":
      announce(fmt(gettext("%(name)s is now played by the computer."), { name: person }));
      break;
    case "reclaimed":
      announce(fmt(gettext("%(name)s is back and plays their own seat again."), { name: person }));
      break;
    case "game_over": {
      const names = (frame.winners ?? []).map(v.seatName);
      const shown = names.map(render.isolated);
      // Said even to a player typing in the chat, whose keyboard stays there (showResult).
      announce(`${line.text}.`);
      if (names.length) {
        const mineWon = render.yourResult(v, frame.winners ?? []);
        celebrate(mineWon ? gettext("You win!") : names.length > 1 ? fmt(gettext("%(names)s win!"), { names: shown.join(" & ") }) : fmt(gettext("%(name)s wins!"), { name: shown[0] }));
        if (!ui.muted) sound((s) => s.fanfare());
      }
      break;
    }
    default:
      break;
  }
}

// --- actions -------------------------------------------------------------------------------

/** Hold or let go die ``index``; ``say``: tell a screen reader (a die held by its number key,
 * from wherever the keyboard is: the die's own button, when focused, says its pressed state). */
function toggleHold(index, say = false) {
  const v = view();
  const turn = client.state.turn;
  if (!v.myTurn || v.paused || !turn.rolls_used || !turn.rolls_left || client.busy()) return;
  const set = new Set(v.held);
  set.has(index) ? set.delete(index) : set.add(index);
  if (set.size === 5) {
    toast(gettext("Keep at most four dice: a roll needs at least one die to throw."), "info");
    return;
  }
  ui.desiredHeld = [...set].sort();
  draw();
  if (say) announce(render.holdText(view(), index, set.has(index)));
  act((state) => {
    const want = ui.desiredHeld ?? state.turn.held;
    if (want.join() === state.turn.held.join()) return null;
    return { type: "hold", held: want };
  }, "hold");
}

/** Roll; ``event``: the click, whose second click of a double click is not a roll of its own (actOnce). */
function roll(event = null) {
  if ((event?.detail ?? 0) > 1) return;
  if (!view().myTurn || !client.connected || !client.state.turn.rolls_left || client.busy()) return;
  act(() => (view().myTurn && client.state.turn.rolls_left ? { type: "roll" } : null), "roll");
}

async function score(box, column) {
  const state = client.state;
  const option = state.options.find((o) => o.box === box && o.column === column);
  if (!option || !view().myTurn || !client.connected || client.busy()) return;
  const seenVersion = state.version;
  if (!option.legal) {
    toast(reasonText(view().state.ruleset, option.reason));
    return;
  }
  if (option.points + option.bonus === 0) {
    const named = { box: view().boxLabel(box), m: state.ruleset.multipliers[column] };
    $("confirm-text").textContent = state.ruleset.columns > 1
      ? fmt(gettext("These dice score nothing in %(box)s in column ×%(m)s. Fill it with a 0?"), named)
      : fmt(gettext("These dice score nothing in %(box)s. Fill it with a 0?"), named);
    const dialog = $("confirm");
    dialog.returnValue = "";
    dialog.showModal();
    const answer = await new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue), { once: true }));
    if (answer !== "yes") return;
    if (client.state.version !== seenVersion) return; // the table changed while the question was open
    if (!client.connected) return; // paused while the question was open
  }
  ui.focusDice = act(() => ({ type: "score", box, column }), "score");
}

// --- chat, reactions, the clock -------------------------------------------------------------

const chat = new ChatPanel($("chat-list"));

// The characters left, shown as the limit nears; past it the message is refused, never cut.
function countChat() {
  const input = $("chat-text");
  const count = $("chat-count");
  const left = CHAT_MAX - chatLength(input.value);
  const near = left < CHAT_WARN;
  count.hidden = !near;
  count.classList.toggle("over", left < 0);
  count.textContent = left < 0
    ? fmt(ngettext("%(n)s character too many", "%(n)s characters too many", -left), { n: -left })
    : fmt(ngettext("%(n)s character left", "%(n)s characters left", left), { n: left });
  // Read out when the message goes past the limit, not at every key (the field describes itself by the count).
  if (left < 0 && input.getAttribute("aria-invalid") !== "true") announce(fmt(gettext("Over the %(max)s-character limit."), { max: CHAT_MAX }));
  input.setAttribute("aria-invalid", String(left < 0));
}

function sendChat(event) {
  event.preventDefault();
  const input = $("chat-text");
  const text = input.value.trim();
  if (!text) return;
  const length = chatLength(text);
  if (length > CHAT_MAX) {
    toast(fmt(gettext("A chat message is at most %(max)s characters: this one has %(length)s. Shorten it and send it again."), { max: CHAT_MAX, length }), "info");
    input.focus();
    return;
  }
  const frame = { type: "chat", text };
  const seat = $("chat-seat");
  if (!seat.hidden && seat.value !== "") frame.seat = Number(seat.value);
  if (!client.mine.length && !client.spectator && client.state.chat?.spectators) {
    postAsSpectator(frame);
    return;
  }
  postChat(frame);
}

function postChat(frame) {
  const id = client.sendSocial(frame);
  if (!id) {
    toast(gettext("Reconnecting: the chat is back when the connection is."), "info");
    return;
  }
  ui.sentChat = { id, text: frame.text };
  const input = $("chat-text");
  if (input.value.trim() === frame.text) input.value = "";
  countChat();
}

/**
 * A spectator's first message: the host mutes a spectator by the browser, so it posts with a token
 * of its own, which the server makes now (a page only looked at stores nothing), and from a socket
 * opened with it. The message stays in the field until it is sent.
 */
async function postAsSpectator(frame) {
  if (ui.chatAfterToken) return; // asked already: the first message goes once the token is here
  ui.chatAfterToken = frame;
  let answer = {};
  try {
    const response = await fetch(`/r/${code}/spectator`, {
      method: "POST",
      credentials: "same-origin",
      headers: { Accept: "application/json", "X-CSRFToken": csrf },
    });
    answer = await response.json();
    if (!response.ok || !answer.spectator) throw new Error(answer.error ?? String(response.status));
  } catch {
    ui.chatAfterToken = null;
    toastError({ code: answer.error, message: answer.message });
    return;
  }
  client.spectator = answer.spectator;
  client.sessionGiven(); // the message goes when the new socket is connected (onConnection)
}

/** Whether a message of the chat history is the one this page sent last and has not seen arrive. */
function ownChat(message) {
  if (!ui.sentChat || message.text !== ui.sentChat.text) return false;
  return message.seat === null ? !client.mine.length : client.mine.includes(message.seat);
}

// The message sent last arrived: it is no longer on its way, and if a dropped connection put it
// back in the field, it leaves it (Enter would send it twice).
function chatArrived() {
  if ($("chat-text").value === ui.sentChat.text) $("chat-text").value = "";
  ui.sentChat = null;
  countChat();
}

// The connection dropped before the message sent last came back: it may never have reached the
// server (a socket that died without closing takes whatever is sent into it). It goes back in
// the field, to be sent again once the connection is back; the chat history then says whether
// it had arrived, or its frame says so when it arrives later.
function keepUnsentChat() {
  const input = $("chat-text");
  if (!ui.sentChat || input.value) return;
  input.value = ui.sentChat.text;
  countChat();
}

function sendReaction(reaction) {
  const frame = { type: "react", reaction };
  const seat = $("chat-seat");
  if (!seat.hidden && seat.value !== "") frame.seat = Number(seat.value);
  client.sendSocial(frame);
}

function showReaction(seat, reaction) {
  ui.reactions = { ...ui.reactions, [seat]: reaction };
  announce(fmt(gettext("%(name)s reacts %(reaction)s"), { name: render.isolated(view().seatName(seat)), reaction }));
  floatReaction(seat, reaction);
  drawSeats(view());
  window.clearTimeout(showReaction.timers?.[seat]);
  showReaction.timers = showReaction.timers ?? {};
  showReaction.timers[seat] = window.setTimeout(() => {
    const rest = { ...ui.reactions };
    delete rest[seat];
    ui.reactions = rest;
    drawSeats(view());
  }, REACTION_SHOWN);
}

// A reaction pops up where the players look: on the reacting seat's name at the head of the
// card when that is on the screen, else at the top of the screen (the Players list is often
// below the fold). Read out by announce(); the bubble itself is for the eyes.
const reactionLayer = Object.assign(document.createElement("div"), { id: "reaction-layer", className: "reaction-layer" });
reactionLayer.setAttribute("aria-hidden", "true");
document.body.append(reactionLayer);

// The bubbles' module (room/bubbles.js): fetched once idle, or by the first bubble before that.
const bubbles = later(() => import("./room/bubbles.js"));
/** A bubble over seat ``seat``'s head on the card (bubbles.js floatOver), once its module is there. */
function floatOver(seat, { reaction = null, lasting = false, head = null, ask = null } = {}) {
  void bubbles().then(
    (module) => {
      const where = head?.isConnected ? head : document.querySelector(`#card th.seat-head[data-seat="${seat}"]`);
      // A name asked for while the module came shows only if it is the last ask, not withdrawn
      // (Escape, the keyboard gone to another name, back since or not, a redraw that took its button):
      // two quick taps on two names show the second alone.
      if (ask && ask !== wholeNameAsked) return;
      // A name the keyboard left, or that lost its button, while the module came shows nothing.
      if (lasting && !keyboardOnName(seat)) return;
      module.floatOver(reactionLayer, where, { seat, name: view().seatName(seat), reaction, lasting, shownFor: REACTION_SHOWN });
    },
    () => {}, // not fetched (offline): the reaction was read out, the name is in the Players list
  );
}

function floatReaction(seat, reaction) {
  floatOver(seat, { reaction });
}

// A seat's name cut short in its narrow column's head (a phone's six seats, Painted's panes):
// a tap or a click on the head shows it whole over the head for a moment. Its title shows only
// under a mouse, and the Players list is a screen below; a screen reader reads the whole name.
// The keyboard reaches a cut name as a button (scorecard.js markWholeNames): Enter or Space
// shows it whole until Escape, or until the keyboard leaves it.
function nameCut(name) {
  return name.scrollWidth > name.clientWidth + 1 || name.scrollHeight > name.clientHeight + 1;
}

// The last ask for a name shown whole ({seat, lasting}: the keyboard's lasts): a later ask takes its
// place, and Escape, the keyboard leaving the name or a redraw that leaves the keyboard's name no
// button (wholeNameHeld) withdraw it, also while the bubbles' module is on its way.
let wholeNameAsked = null;

/** The keyboard is on seat ``seat``'s name as a button: the name its Enter asked to see whole. */
function keyboardOnName(seat) {
  const name = document.activeElement;
  return Boolean(name?.matches?.(".seat-head-name[role=button]")) && name.closest("th.seat-head")?.dataset.seat === String(seat);
}

function showWholeName(head, lasting = false) {
  reactionLayer.querySelector(".whole-name")?.remove();
  const ask = (wholeNameAsked = { seat: head.dataset.seat, lasting });
  floatOver(Number(head.dataset.seat), { head, lasting, ask });
}

function hideWholeName() {
  reactionLayer.querySelector(".whole-name")?.remove();
}

$("card").addEventListener("click", (event) => {
  const head = event.target.closest?.("th.seat-head");
  const name = head?.querySelector(".seat-head-name");
  if (!name || !nameCut(name)) return;
  showWholeName(head);
});

$("card").addEventListener("keydown", (event) => {
  const name = event.target.closest?.(".seat-head-name[role=button]");
  if (event.key === "Escape") {
    wholeNameAsked = null;
    if (reactionLayer.querySelector(".whole-name")) hideWholeName();
  } else if (name && (event.key === "Enter" || event.key === " ") && !event.repeat) {
    event.preventDefault(); // Space scrolls the page otherwise
    showWholeName(name.closest("th.seat-head"), true);
  }
});

// The keyboard gone elsewhere takes the name's bubble with it, and its ask; a redraw that gives the
// focus back to the same name (keepFocus) keeps them. A tap's bubble is not the keyboard's: a tap on
// the head beside the name the keyboard was on shows it for its moment.
$("card").addEventListener("focusout", (event) => {
  if (!event.target.matches?.(".seat-head-name[role=button]")) return;
  const seat = event.target.closest("th.seat-head")?.dataset.seat;
  window.requestAnimationFrame(() => {
    const now = document.activeElement?.closest?.("th.seat-head");
    if (now?.dataset.seat === seat) return;
    reactionLayer.querySelector(`.whole-name[data-keyboard][data-seat="${seat}"]`)?.remove();
    if (wholeNameAsked?.lasting && wholeNameAsked.seat === seat) wholeNameAsked = null;
  });
});

// A redraw that leaves the name no button (the card fitted again, where it fits now) or gives the
// keyboard back to none takes it from the name without a focusout: the bubble goes then too, and
// so does the keyboard's ask still waiting for the bubbles' module.
function wholeNameHeld() {
  if (wholeNameAsked?.lasting && !keyboardOnName(wholeNameAsked.seat)) wholeNameAsked = null;
  const bubble = reactionLayer.querySelector(".whole-name[data-keyboard]");
  if (bubble && !keyboardOnName(bubble.dataset.seat)) bubble.remove();
}
new MutationObserver(wholeNameHeld).observe($("card"), { subtree: true, childList: true, attributes: true, attributeFilter: ["role", "tabindex"] });

// Counted down from every state, a resent one of the same version too: the page's own clock
// (performance.now()) stands still while the device sleeps, so the seconds the server says are
// left when the socket comes back, or when the page is shown again (RoomClient.wake asks for
// the state then), are the ones to count from.
function setClock(state) {
  const clock = state.clock;
  if (!clock || clock.left === null || state.status !== "playing") {
    ui.clock = null;
    return;
  }
  ui.clock = {
    left: clock.left, at: performance.now(), frozen: Boolean(state.paused),
    pace: clock.pace, seconds: clock.seconds,
    turn: state.turn ? `${state.turn.number}-${state.turn.seat}` : null,
  };
  // A turn's time climbs back out of the low band only when the turn is given more time (staff's,
  // at your own pace): that time running low is told again.
  if (!render.clockLow(clock.left, ui.clock)) ui.warnedTurn = null;
}

function clockLeft() {
  if (!ui.clock) return null;
  if (ui.clock.frozen) return ui.clock.left;
  return Math.max(0, ui.clock.left - (performance.now() - ui.clock.at) / 1000);
}

// The computer players' table is being built: the state says about how long (getting_ready),
// and the page counts down from when it got it.
function setReady(state) {
  const ready = state.getting_ready;
  if (!ready) {
    ui.ready = null;
    return;
  }
  if (ui.ready?.version === state.version) return;
  ui.ready = { version: state.version, eta: ready.eta, at: performance.now() };
  if (state.status === "playing" && state.seats[state.turn?.seat]?.kind === "bot") announce(render.gettingReadyText(ready.eta));
}

function secondsLeft(wait) {
  if (!wait || wait.eta === null || wait.eta === undefined) return null;
  return Math.max(0, wait.eta - (performance.now() - wait.at) / 1000);
}

// The coach answered that it is getting ready: show it, and ask again shortly (at most every
// 3 s, well inside the hint rate), for as long as the page shows that answer.
function waitForCoach(frame) {
  if (ui.hintWait?.version !== frame.version) announce(render.gettingReadyText(frame.eta));
  ui.hintWait = { version: frame.version, eta: frame.eta, at: performance.now() };
  const wait = Math.min(Math.max(frame.eta ?? 3, 1), 3) * 1000;
  window.setTimeout(() => {
    if (client.hint === frame && client.askHint()) draw();
  }, wait);
}

function tickReady() {
  document.querySelectorAll("[data-ready]").forEach((el) => {
    const text = render.gettingReadyText(secondsLeft(el.dataset.ready === "hint" ? ui.hintWait : ui.ready));
    if (el.textContent !== text) el.textContent = text;
  });
}

function tickClock() {
  const left = clockLeft();
  if (left === null) return;
  const text = `${ui.clock.frozen ? "‖ " : ""}${render.clockText(left, ui.clock.pace)}`;
  const low = render.clockLow(left, ui.clock);
  document.querySelectorAll("[data-countdown]").forEach((el) => {
    if (el.textContent !== text) el.textContent = text;
    el.classList.toggle("low", low);
  });
  // The countdown (a role=timer, which screen readers do not read by themselves) turning low is
  // for the eye: the player to move is told in words too, once as it runs low, and again when
  // more time given to the turn runs low (setClock).
  if (low && !ui.clock.frozen && ui.clock.turn !== ui.warnedTurn) {
    ui.warnedTurn = ui.clock.turn;
    if (view().myTurn) announce(render.clockWarning(left, ui.clock.pace));
  }
}

// A player whose seat the computer took after their turns ran out gets it back by acting again:
// on a browser of their own any tap or key is theirs. On a shared device a tap may be the next
// player's, so each away player names their seat with its own button (seatBack).
function comeBack() {
  const v = view();
  if (!v.awaySeats.length || v.sharedDevice || Date.now() - ui.lastBack < 3000) return;
  if (client.sendSocial({ type: "back" })) ui.lastBack = Date.now();
}

function seatBack(seat) {
  if (!client.sendSocial({ type: "back", seat })) toast(gettext("Reconnecting: play resumes when the connection is back."), "info");
}

function act(build, kind) {
  if (client.enqueue(build, kind)) return true;
  toast(gettext("Reconnecting: play resumes when the connection is back."), "info");
  return false;
}

// A button whose action is still on its way does nothing on a second click: a double click on
// Start, Add computer or Pause would send it twice, and each would be built on the state the
// first led to (two computers seated; "The game has already started"). Nor does the second
// click of a double click (its event's ``detail`` counts the clicks), however soon the first
// was answered: a quick server, or a slow device, draws the first's answer between the two,
// and the second would be a new action on the button drawn again (Pause then Resume).
function actOnce(kind, build, event = null) {
  if ((event?.detail ?? 0) > 1 || client.pending(kind)) return false;
  return act(build, kind);
}

function askHint() {
  if (client.askHint()) draw();
}

// --- drawing -------------------------------------------------------------------------------

// A part of the page is rebuilt only when what it shows has changed. A frame that changes
// nothing there (someone else's presence, a chat line) leaves its elements alone: a click
// half done on one of its buttons (pressed before the frame, released after) still lands,
// and focus, hover, what is typed and a running highlight stay as they were.
const shown = new WeakMap();
function show(el, html) {
  if (shown.get(el) === html) return false;
  el.innerHTML = html;
  shown.set(el, html);
  return true;
}

// Where the keyboard goes when the focused button is drawn again disabled or is gone: the
// last roll disables Roll, asking the coach turns Hint into the answer, the computer that fills
// the room takes Add computer away (Start is what is left to do).
const FOCUS_NEAR = { roll: "dice", hint: "dice", "add-bot": "start", "bot-level": "start" };
function rollOrTurn() {
  const roll = document.getElementById("roll");
  return roll && !roll.disabled ? roll : document.getElementById("turn-h");
}
function keepFocus(fn) {
  const id = document.activeElement?.id;
  const player = document.activeElement?.dataset?.player;
  fn();
  // An element in a part now hidden (the lobby once the game started) still holds the keyboard
  // until the browser next draws, then lets it fall to the top of the page: it is left too.
  const shown = (el) => !el.closest("[hidden]");
  if (!id || (document.activeElement?.id === id && shown(document.activeElement))) return;
  const again = document.getElementById(id);
  // A seat's button of the same id is another player's once the seats above it moved up.
  if (again && !again.disabled && again.dataset.player === player && shown(again)) again.focus();
  else if (FOCUS_NEAR[id]) document.getElementById(FOCUS_NEAR[id])?.focus();
  // A seat's button goes with its seat (taken out, handed to a computer): the keyboard stays
  // where it was instead of falling to the top of the page. In the play card, on Roll when the
  // turn passed to this page (not on a die, which cannot be held before a roll), else on the
  // turn's heading; in the players list, on the next seat's first button, else the heading, never
  // on the host's own Leave (the list's first button), where the next Enter would ask to leave.
  // "I'm back" goes with the banner it is in: the keyboard stays at the table, on another away
  // player's "I'm back" on a shared device, else as from the play card's buttons.
  // The lobby's join form goes when someone else fills the room or starts the game: the keyboard
  // goes to why (the room is full, which a screen reader then reads), else the lobby's heading, or
  // the table's turn once the lobby is gone.
  else if (/^(join-name|join-btn|invite|copy|share)$/.test(id)) {
    const lobby = document.getElementById("lobby");
    (lobby.hidden ? rollOrTurn() : (document.getElementById("room-full") ?? document.getElementById("lobby-h")))?.focus();
  } else if (/^back(-\d+)?$/.test(id)) {
    (document.querySelector("#play [data-back]") ?? rollOrTurn())?.focus();
  } else if (/^play-(kick|remove|replace|mute|leave)-\d+$/.test(id)) {
    rollOrTurn()?.focus();
  } else if (/^(kick|remove|replace|mute|leave)-\d+$/.test(id)) {
    const seat = Number(id.split("-").pop());
    // Not the button a seat taken out during play is left with (Let a computer play): another player's.
    const buttons = [...document.querySelectorAll("#seats .seat-list button:not([data-act=leave])")]
      .filter((b) => b.dataset.player !== player);
    (buttons.find((b) => Number(b.dataset.seat) >= seat) ?? buttons.at(-1) ?? document.getElementById("seats-h"))?.focus();
  } else if (/^unmute-left-\d+$/.test(id)) {
    // A player who left, unmuted: their line goes with the mute, the keyboard stays in the list,
    // on the last line's first button (a player's Mute chat before their Remove).
    const buttons = [...document.querySelectorAll("#seats .seat-list button:not([data-act=leave])")];
    const line = buttons.at(-1)?.closest(".seat");
    (buttons.find((b) => b.closest(".seat") === line) ?? document.getElementById("seats-h"))?.focus();
  }
}

// The newest state is drawn once per frame of the screen, not each as it comes: a page that fell
// behind (a slow phone at a quick table) fell further with every draw, rounds behind and saying
// "Connected". A hidden page gets no frames: the timer draws it.
let drawAsked = false;
function drawSoon() {
  if (drawAsked) return;
  drawAsked = true;
  const asked = () => drawAsked && draw();
  window.requestAnimationFrame(asked);
  window.setTimeout(asked, 100);
}

function draw() {
  drawAsked = false;
  const v = view();
  let ended = false;
  let goneShown = false;
  root.dataset.version = String(v.state.version);
  root.dataset.status = v.state.status;
  keepFocus(() => {
    drawStatus(v);
    drawLobby(v);
    drawPlay(v);
    drawCard(v);
    drawSeats(v);
    drawFeed(v);
    drawChat(v);
    ended = drawOver(v);
    drawFair(v);
    // The room was deleted: nothing of it can be played or said any more, and the page stops
    // trying to connect. It says so, with the way home, in place of the table.
    const gone = v.connection === "gone";
    goneShown = gone && $("gone").hidden;
    $("gone").hidden = !gone;
    if (gone) for (const part of ["lobby", "table", "over", "fair"]) $(part).hidden = true;
  });
  // The keyboard in a part just hidden would fall to the top of the page: it goes to the card.
  if (goneShown && (document.activeElement === document.body || document.activeElement?.closest("[hidden]"))) $("gone-h").focus();
  if (ended) showResult();
  if (v.state.status === "playing") ui.seenPlaying = true;
  cueTurn(v);
  drawWaiting(v);
  keepScreen();
  if (!ui.newState) return;
  ui.newState = false;
  noteRelease();
  if (ui.focusDice && client.idle()) {
    ui.focusDice = false;
    // Pass-and-play: the next player sees the dice and whose turn it is, not the card's foot.
    // (At the game's end the dice are gone: the result was brought into view instead.)
    if (!$("play").hidden) {
      ($("roll") ?? $("dice"))?.focus();
      if (client.state.local) $("play").scrollIntoView({ block: "start" });
    }
  }
}

/** The screen kept on while this page's players are at a live game (room/awake.js); until its module
 * is there nothing holds the screen, and it asks from the page's state as it is once it arrives. */
function keepScreen() {
  const screen = awake.now();
  if (!screen) {
    // Not fetched yet (the page is not idle yet), or its fetch failed (asked again here).
    if (ui.idle) awake().then(keepScreen, () => {});
    return;
  }
  const v = view();
  screen.keepAwake(screen.staysAwake(v.state, v.mine));
}

// Small icons for the room bar, where a phone shows them in place of the words.
const SPEAKER = '<path d="M3 9h4l5-4v14l-5-4H3z" fill="currentColor"/>';
const ICONS = {
  on: `${SPEAKER}<path d="M15.5 8.5a5 5 0 0 1 0 7M18.5 5.5a9 9 0 0 1 0 13" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>`,
  off: `${SPEAKER}<path d="M15.5 9.5l5 5M20.5 9.5l-5 5" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>`,
  eye: '<path d="M2 12s3.6-6.5 10-6.5S22 12 22 12s-3.6 6.5-10 6.5S2 12 2 12z" fill="none" stroke="currentColor" stroke-width="2"/><circle cx="12" cy="12" r="3" fill="currentColor"/>',
};
const icon = (name) => `<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">${ICONS[name]}</svg>`;

function drawStatus(v) {
  const n = v.presence.spectators || 0;
  const watching = n ? fmt(ngettext("%(n)s spectator watching", "%(n)s spectators watching", n), { n }) : "";
  const watchers = $("watchers");
  if (watchers.dataset.text !== watching) {
    // A phone shows an eye and the number; the words stay for screen readers.
    watchers.innerHTML = n ? `${icon("eye")}<span class="watchers-n" aria-hidden="true">${n}</span><span class="watchers-text">${watching}</span>` : "";
    watchers.dataset.text = watching;
    watchers.title = watching;
  }
  const sound = ui.muted ? gettext("Sound off") : gettext("Sound on");
  if ($("mute").dataset.label !== sound) {
    $("mute").innerHTML = `${icon(ui.muted ? "off" : "on")}<span class="mute-text">${sound}</span>`;
    $("mute").dataset.label = sound;
  }
  // A toggle named by the words it shows (what a voice-control user says), pressed while the
  // sound is on; what pressing it does is its description.
  $("mute").setAttribute("aria-pressed", String(!ui.muted));
  $("mute").title = ui.muted ? gettext("Turn sound on") : gettext("Turn sound off");
  $("room-sub").textContent = render.statusLine(v);
  const pause = $("pause");
  // While the host is away, a player at the table may resume the game they paused (and then hosts).
  pause.hidden = !(v.state.status === "playing" && (v.isHost || (v.hostAway && v.hostPaused)));
  const label = v.hostPaused ? gettext("Resume game") : gettext("Pause game");
  if (pause.dataset.label !== label) {
    // On a phone only the symbol shows; the label is still the button's name.
    pause.innerHTML = `<span aria-hidden="true">${v.hostPaused ? "▶" : "‖"}</span> <span class="pause-text">${label}</span>`;
    pause.dataset.label = label;
  }
  pause.setAttribute("aria-label", label);
}

function drawChat(v) {
  const live = v.state.status === "lobby" || v.state.status === "playing";
  const muted = (s) => Boolean(v.state.seats[s]?.muted);
  chat.moderate(live && v.isHost, v.state.chat?.muted ?? [], client.spectator);
  // A page whose seats are all gone (left, or taken out) is a former player's, as the server says
  // of a browser that connects without a seat it held.
  const former = client.former || (client.mine.length > 0 && !v.voices.length);
  // The seats it gave up keep their mute: the server refuses the browser as a spectator too.
  const silenced = !v.voices.length && [...client.mine, ...client.left].some(muted);
  // Taken out by the host (before this page opened, or while it was open): the server refuses it too.
  const takenOut = !v.voices.length && (client.takenOut || ui.chatTakenOut);
  const note = chatNote(v.state, v.voices, muted, client.spectator, former, silenced, takenOut);
  $("chat-note").hidden = !note;
  $("chat-note").textContent = note ?? "";
  $("chat-form").hidden = Boolean(note);
  // Several seats on this device (pass-and-play): say who is talking.
  const seat = $("chat-seat");
  const speakers = v.voices.filter((s) => !muted(s));
  seat.hidden = speakers.length < 2;
  const options = speakers.map((s) => `${s}:${v.seatName(s)}`).join("|");
  if (seat.dataset.options !== options) {
    const chosen = seat.value; // "" before the first draw
    seat.replaceChildren(...speakers.map((s) => new Option(v.seatName(s), String(s))));
    seat.dataset.options = options;
    if (chosen !== "" && speakers.includes(Number(chosen))) seat.value = chosen;
  }
  // Whoever's turn it is holds the shared device: the picker follows the turn (a name picked
  // during a turn stays until the next one), and never shows blank.
  const turn = v.state.status === "playing" ? v.state.turn : null;
  const turnKey = turn ? String(turn.number) : "";
  if (seat.dataset.turn !== turnKey) {
    seat.dataset.turn = turnKey;
    if (speakers.includes(turn?.seat)) seat.value = String(turn.seat);
  }
  if (seat.selectedIndex < 0 && speakers.length) seat.value = String(speakers[0]);
  const reactions = $("reactions");
  reactions.hidden = !(live && speakers.length) || v.reactHere; // during play the play card has them
  if (!reactions.hidden && !reactions.childElementCount) {
    for (const reaction of REACTIONS) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "btn btn-quiet reaction-btn";
      button.textContent = reaction;
      button.setAttribute("aria-label", fmt(gettext("React %(reaction)s"), { reaction }));
      button.addEventListener("click", () => sendReaction(reaction));
      reactions.append(button);
    }
  }
  const shown = $("chat-body").hidden && !ui.chatHidden;
  $("chat-body").hidden = ui.chatHidden;
  if (shown) chat.shown();
  $("chat-toggle").textContent = ui.chatHidden ? gettext("Show chat") : gettext("Hide chat");
  $("chat-toggle").setAttribute("aria-expanded", String(!ui.chatHidden));
  $("chat-unread").textContent = ui.chatHidden && chat.unread ? fmt(ngettext("(%(n)s new)", "(%(n)s new)", chat.unread), { n: chat.unread }) : "";
}

// The header's count of games waiting for this browser's move is drawn with the page: the other
// games' part of it stays as it was, this game's follows the turn here, as the server counts it
// (games/domain/room.py Room.waits_for), so the count does not go on saying a game waits once the
// move is made, nor leave out the move that has just come to be this browser's.
const waitingElsewhere = Math.max(0, Number.parseInt($("waiting-count")?.firstChild?.nodeValue ?? "0", 10) - (initial.waiting_here ? 1 : 0));

function drawWaiting(v) {
  const { state } = v;
  const seat = state.turn ? state.seats[state.turn.seat] : null;
  const here = state.status === "playing" && !state.local && !state.paused && v.myTurn && seat?.kind === "human" && seat?.status === "active";
  const count = waitingElsewhere + (here ? 1 : 0);
  let badge = $("waiting-count");
  if (!badge && count) {
    const link = document.querySelector('[data-testid="nav-games"]');
    if (!link) return;
    badge = $("waiting-count-new").content.firstElementChild.cloneNode(true);
    link.append(" ", badge);
  }
  if (!badge) return;
  badge.hidden = !count;
  if (badge.firstChild.nodeValue !== String(count)) badge.firstChild.nodeValue = String(count);
}

function cueTurn(v) {
  const state = v.state;
  const turnKey = state.turn ? `${state.turn.number}-${state.turn.seat}` : null;
  document.title = `${v.myTurn && !state.local ? `● ${gettext("Your turn")} · ` : ""}${fmt(gettext("Room %(code)s"), { code: shownCode })}`;
  // The turn the page opens on is read with the page; every later one, the game's first
  // included (from the lobby), is said as it comes. Not the turn a seat's own score gives straight
  // back to it (the turn after it, nobody else's between: a lone player, everyone else gone):
  // nothing changed hands, and a chime and "Your turn, Solo." after each score would be noise.
  // One that comes back after others played is said.
  const [lastNumber, lastSeat] = (ui.lastTurnKey ?? "").split("-").map(Number);
  const straightBack = Boolean(state.turn) && lastSeat === state.turn.seat && state.turn.number === lastNumber + 1;
  if (turnKey && turnKey !== ui.lastTurnKey && ui.lastTurnKey !== undefined) {
    if (!straightBack) {
      if (v.myTurn && !state.local && !ui.muted) {
        sound((s) => {
          s.chime();
          s.buzz();
        });
      }
      announce(fmt(v.myTurn ? gettext("Your turn, %(name)s.") : gettext("%(name)s's turn."), { name: render.isolated(v.seatName(state.turn.seat)) }));
    }
    // A turn of this page's come round: the keyboard the page left waiting on the dice or the
    // turn's heading while Roll was disabled (the last roll, someone else's turn) goes to Roll.
    // Not from anywhere else: a player typing in the chat stays there.
    const roll = document.getElementById("roll");
    if (v.myTurn && roll && !roll.disabled && ["dice", "turn-h"].includes(document.activeElement?.id)) roll.focus();
  }
  ui.lastTurnKey = turnKey;
}

function drawLobby(v) {
  const lobby = $("lobby");
  lobby.hidden = v.state.status !== "lobby";
  if (lobby.hidden) return;
  const typed = $("join-name")?.value; // what is typed survives a redraw (at first: the name refused, if one was)
  const level = $("bot-level")?.value;
  if (!show(lobby, render.lobbyHtml(v))) return;
  if (typed !== undefined && $("join-name")) $("join-name").value = typed;
  if (level && $("bot-level")) $("bot-level").value = level;
  $("copy")?.addEventListener("click", copyInvite);
  $("share")?.addEventListener("click", shareInvite);
  // Back from a refused join, the keyboard is on the name to put right, and a screen reader reads
  // it with why (its description): the page opened at its top, and the reason is not announced.
  if (v.joinRefused && !ui.joinRefusedSaid && $("join-name")) {
    ui.joinRefusedSaid = true;
    if (!document.activeElement || document.activeElement === document.body) $("join-name").focus();
  }
  $("start")?.addEventListener("click", (event) => {
    ui.focusDice = actOnce("start", () => ({ type: "start" }), event);
  });
  $("add-bot")?.addEventListener("click", (event) => {
    const level = $("bot-level").value;
    actOnce("add_bot", () => ({ type: "add_bot", level }), event);
  });
}

async function copyInvite() {
  const input = $("invite");
  if (!(await copied(input.value))) {
    // No clipboard for the page (an address without https, a browser that asks and was refused):
    // the link is left selected for the person to copy.
    input.focus();
    input.select();
    toast(gettext("The browser did not let the page copy the link: it is selected, copy it from there."), "info");
    return;
  }
  $("copy").textContent = gettext("Copied!");
  announce(gettext("Invite link copied."));
  window.setTimeout(() => $("copy") && ($("copy").textContent = gettext("Copy link")), 2000);
}

async function shareInvite() {
  try {
    await navigator.share({ title: document.title, url: $("invite").value });
  } catch (error) {
    // Closing the share sheet is no failure; a browser that would not share copies instead.
    if (error?.name !== "AbortError") await copyInvite();
  }
}

/** ``text`` put on the clipboard: by the Clipboard API, else through a selection and ``execCommand`` (a page
 * over plain http, or a browser that refuses the API). */
async function copied(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const field = document.createElement("textarea");
    const had = document.activeElement;
    field.value = text;
    field.setAttribute("readonly", "");
    field.className = "sr-only";
    document.body.append(field);
    field.select();
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    } finally {
      field.remove();
      had?.focus?.({ preventScroll: true }); // the keyboard stays on the button pressed
    }
  }
}

function drawPlay(v) {
  // The table holds the chat too, which every room has (in the lobby as well).
  $("table").hidden = false;
  $("card").hidden = !v.state.cards.length;
  const play = $("play");
  if (v.state.status !== "playing" || !v.state.turn) {
    play.hidden = true;
    return;
  }
  play.hidden = false;
  const rebuilt = show(play, render.playHtml(v));
  // The host's tools for an away player appear in the card without a move of the keyboard: a
  // screen reader hears once that they are there.
  const tools = $("host-tools-text");
  const told = tools ? `${v.state.turn.seat}:${tools.textContent}` : null;
  if (told && told !== ui.toolsTold) announce(tools.textContent);
  ui.toolsTold = told;
  if (ui.rolling.size) {
    const done = ui.rolling;
    window.setTimeout(() => {
      if (ui.rolling === done) ui.rolling = new Set();
      for (const i of done) $(`die-${i}`)?.classList.remove("rolling");
    }, 650);
  }
  if (!rebuilt) return;
  play.querySelectorAll(".die").forEach((el) => el.addEventListener("click", () => toggleHold(Number(el.dataset.die))));
  $("roll")?.addEventListener("click", roll);
  $("back")?.addEventListener("click", comeBack);
  play.querySelectorAll("[data-back]").forEach((el) => el.addEventListener("click", () => seatBack(Number(el.dataset.back))));
  $("hint")?.addEventListener("click", askHint);
  play.querySelectorAll("[data-react]").forEach((el) => el.addEventListener("click", () => sendReaction(el.dataset.react)));
  play.querySelectorAll("[data-act]").forEach((btn) => btn.addEventListener("click", () => seatAct(btn)));
}

function drawCard(v) {
  const section = $("card");
  if (!v.state.cards.length) {
    show(section, "");
    return;
  }
  // A presence, a reaction or the turn draws the card again, where it changes (updateCard: a card
  // rebuilt has every cell styled and laid out again, at every move of every player): the
  // elements kept are the same, so the keyboard, an open box help and a phone's sideways scroll
  // stay where they were, and a box just scored is lit once, not again at each later draw.
  const html = render.cardHtml(v);
  redrawCard(section, () => {
    if (shown.get(section) === html) return false;
    updateCard(section, html);
    shown.set(section, html);
  });
}

// A score button's click, heard by the card: a button kept by updateCard is the same one, which a
// listener of its own would have heard twice.
$("card").addEventListener("click", (event) => {
  const btn = event.target.closest?.(".score-btn");
  if (btn && !btn.disabled) score(btn.dataset.box, Number(btn.dataset.col));
});

function drawFeed(v) {
  const feed = $("feed");
  feed.hidden = v.state.status === "lobby" && !v.feed.length;
  show(feed, render.feedHtml(v));
}

function drawSeats(v) {
  const section = $("seats");
  if (!show(section, render.seatsHtml(v))) return;
  section.querySelectorAll("[data-act]").forEach((btn) => btn.addEventListener("click", () => seatAct(btn)));
}

/** A seat's button (the Players list's, or the play card's for the away player to play): asked, then sent. */
function seatAct(btn) {
  if (btn.dataset.act === "unmute_spectator") {
    // A player muted who left: unmuted by the handle their browser goes by as a spectator.
    const spectator = btn.dataset.spectator;
    actOnce(`unmute_spectator-${spectator}`, (state) => ((state.chat?.muted ?? []).includes(spectator) ? { type: "unmute_spectator", spectator } : null));
    return;
  }
  const seat = Number(btn.dataset.seat);
  const what = btn.dataset.act;
  const person = render.isolated(view().seatName(seat));
  const question = {
    leave: fmt(gettext("Leave the game as %(name)s?"), { name: person }),
    kick: fmt(gettext("Remove %(name)s from the room?"), { name: person }),
    remove: fmt(gettext("Take %(name)s out of the game? Their scores stay on the card."), { name: person }),
    replace: fmt(gettext("Let the computer play for %(name)s? The seat keeps its scores."), { name: person }),
  }[what];
  if (question && !window.confirm(question)) return;
  if (what === "replace") actOnce(`replace-${seat}`, () => ({ type: "replace", seat, level: "optimal" }));
  else actOnce(`${what}-${seat}`, () => ({ type: what, seat }));
}

/** Draws the game-over panel; true when it has just appeared after this page showed the game played. */
// The game-over panel's module could not be fetched (the network gone a moment): asked again a
// little later, each time a little later still, as a game over may draw nothing else to ask it.
let overRetry = null;
let overTries = 0;
function overLater() {
  if (overRetry) return;
  overRetry = window.setTimeout(() => {
    overRetry = null;
    draw();
  }, Math.min(1000 * 2 ** overTries++, 30000));
}

function drawOver(v) {
  const over = $("over");
  const done = v.state.status === "finished" || v.state.status === "abandoned";
  const ended = done && over.hidden && ui.seenPlaying;
  const panel = overPanel.now();
  if (done && (!panel || !seeds.now())) {
    // Drawn once its modules are there (the panel's and the seeds' it shows): the page has usually
    // fetched them long before the game ended.
    Promise.all([overPanel(), seeds()]).then(draw, overLater);
    return false;
  }
  over.hidden = !done;
  if (!done) return false;
  if (v.state.status === "finished") fetchReview();
  hashRevealed(v.state.fairness?.server_seed);
  keepOpened(over, () => show(over, panel.overHtml(v)));
  return ended;
}

// A player's part of the review opened or closed by the reader stays so when the panel is drawn again.
function keepOpened(el, fn) {
  const opened = new Map([...el.querySelectorAll("details[id]")].map((d) => [d.id, d.open]));
  fn();
  for (const details of el.querySelectorAll("details[id]")) {
    if (opened.has(details.id)) details.open = opened.get(details.id);
  }
}

// The result sits above the table, which the players had scrolled down to (a long card, a
// phone, a shared device's scroll to the dice): the game's end brings it into view under the
// room's name, and the keyboard to it unless someone is typing.
function showResult() {
  root.scrollIntoView({ block: "start" });
  if (!document.activeElement?.closest?.("input, textarea, select")) $("over-h").focus({ preventScroll: true });
}

async function fetchReview() {
  if (ui.reviewAsked) return;
  ui.reviewAsked = true;
  try {
    const response = await fetch(`/r/${code}/review.json`);
    ui.review = await response.json();
    if (!response.ok && response.status === 503) {
      window.setTimeout(() => {
        ui.reviewAsked = false;
        fetchReview();
      }, 15000);
    }
  } catch {
    ui.review = null;
    ui.reviewAsked = false;
    return; // nothing new to show; the next draw asks again
  }
  // Drawn as the rest of the page is (show()'s cache, keepOpened, keepFocus): a fold toggled
  // from the keyboard keeps the keyboard when the panel is drawn again.
  draw();
}

// The revealed seed's SHA-256, made here rather than taken from the server, for the game-over panel
// to hold against the commitment this browser saw before the game.
async function hashRevealed(seed) {
  const mine = seeds.now(); // there: the panel is drawn with it
  if (!seed || !mine?.seenCommitment(code) || ui.revealed?.seed === seed) return;
  ui.revealed = { seed, commitment: null };
  const commitment = await mine.commitmentOf(seed).catch(() => null);
  if (commitment === null || ui.revealed.seed !== seed) return;
  ui.revealed = { seed, commitment };
  draw();
}

function drawFair(v) {
  const done = v.state.status === "finished" || v.state.status === "abandoned";
  $("fair").hidden = done;
  if (!done) show($("fair"), render.fairHtml(v));
}

// --- input ---------------------------------------------------------------------------------

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target.closest?.("input, textarea, select, dialog")) return; // typing: every key repeats as anywhere
  if (event.repeat) {
    if (/^[1-5 ]$/.test(event.key)) event.preventDefault();
    return;
  }
  if (/^[1-5]$/.test(event.key)) {
    event.preventDefault();
    const index = Number(event.key) - 1;
    toggleHold(index, target.id !== `die-${index}`);
  } else if (event.key === " " || event.code === "Space") {
    // Space rolls, except on another control, which Space presses (a die: holds it; a summary:
    // opens it) or scrolls (a link, the chat list).
    if (target.closest?.("button:not(#roll), summary, a[href], [tabindex='0']")) return;
    if (!view().myTurn) return;
    event.preventDefault();
    roll();
  }
});

// Arrow keys move between the open boxes of the scorecard (a grid of rows and columns).
$("card").addEventListener("keydown", (event) => {
  const from = event.target.closest?.(".score-btn");
  const step = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[event.key];
  if (!from || !step) return;
  event.preventDefault();
  const at = (b) => [Number(b.dataset.row), Number(b.dataset.col)];
  const [row, col] = at(from);
  const candidates = [...$("card").querySelectorAll(".score-btn")].filter((b) => {
    const [r, c] = at(b);
    return step[0] ? c === col && Math.sign(r - row) === step[0] : r === row && Math.sign(c - col) === step[1];
  });
  const distance = (b) => Math.abs(at(b)[0] - row) + Math.abs(at(b)[1] - col);
  candidates.sort((x, y) => distance(x) - distance(y))[0]?.focus();
});

$("chat-form").addEventListener("submit", sendChat);
// The host's Mute chat and Unmute chat on a spectator's line (ChatPanel.moderate).
$("chat-list").addEventListener("click", (event) => {
  const button = event.target.closest?.("button.chat-mute");
  if (!button || event.detail > 1) return; // the second click of a double click (actOnce)
  const type = button.dataset.act;
  const spectator = button.closest(".chat-line").dataset.spectator;
  const wanted = type === "mute_spectator";
  // Built when it is sent: a mute the state already shows (another tab of the host's) is not sent again.
  actOnce(`${type}-${spectator}`, (state) => ((state.chat?.muted ?? []).includes(spectator) !== wanted ? { type, spectator } : null));
});
$("chat-text").addEventListener("input", countChat);
$("over").addEventListener("click", (event) => {
  if (!event.target.closest?.("#share-result")) return;
  const showCopied = (on) => {
    ui.resultCopied = on;
    draw();
  };
  overPanel.now().shareResult(view(), { copied, toast, announce, showCopied });
});
$("chat-toggle").addEventListener("click", () => {
  ui.chatHidden = !ui.chatHidden;
  localStorage.setItem("yahtzee-chat-hidden", ui.chatHidden ? "1" : "0");
  if (!ui.chatHidden) chat.unread = 0;
  drawChat(view());
});
$("pause").addEventListener("click", (event) => {
  const type = client.state.paused ? "resume" : "pause";
  actOnce("pause", () => ({ type }), event);
});
tabs?.addEventListener("message", (message) => client.otherTab(message.data?.players));
// A connection is often dead after the network changed or the device slept: it is tried at once
// rather than at the next ping's unanswered wait.
window.addEventListener("online", () => client.wake());
window.addEventListener("offline", () => client.probe());
document.addEventListener("visibilitychange", () => {
  client.visibility(document.visibilityState === "hidden");
  if (document.visibilityState === "visible") client.wake();
});
document.addEventListener("pointerdown", comeBack);
document.addEventListener("keydown", comeBack);
window.setInterval(() => {
  tickClock();
  tickReady();
}, 250);

$("mute").addEventListener("click", () => {
  ui.muted = !ui.muted;
  localStorage.setItem("yahtzee-muted", ui.muted ? "1" : "0");
  drawStatus(view());
});

// Sound and the chat's Hide are the browser's choices: changed in another tab, they change here too.
window.addEventListener("storage", (event) => {
  if (event.key === "yahtzee-muted") {
    ui.muted = event.newValue === "1";
    drawStatus(view());
  } else if (event.key === "yahtzee-chat-hidden") {
    ui.chatHidden = event.newValue === "1";
    if (!ui.chatHidden) chat.unread = 0;
    drawChat(view());
  }
});

// A join sent before the seeds' module came (the page not idle yet) waits for it, to carry this
// browser's seed as the form drawn after does; where it cannot be fetched (offline), it goes
// without one, as a page without script sends it.
let joinWaits = false;
document.addEventListener("submit", (event) => {
  if (!event.target.classList?.contains("join-form") || seeds.now() || joinWaits) return;
  event.preventDefault();
  joinWaits = true;
  const send = () => {
    $("lobby").querySelector(".join-form")?.requestSubmit();
    joinWaits = false;
  };
  seeds().then(() => {
    draw();
    send();
  }, send);
});

// A join sent from the lobby (its form post brings this page back): the page says the seat was
// taken, and a device adding its players one by one has the keyboard on the name for the next.
const JOINING = `yahtzee-joining:${code}`;
document.addEventListener("submit", (event) => {
  if (!event.target.classList?.contains("join-form") || event.defaultPrevented) return;
  try {
    sessionStorage.setItem(JOINING, String(client.mine.length));
  } catch {
    // Storage refused: the seat is taken all the same, only not said.
  }
});

function joinTaken() {
  let had = null;
  try {
    had = sessionStorage.getItem(JOINING);
    sessionStorage.removeItem(JOINING);
  } catch {
    return;
  }
  // Refused (said under the name, or above the room), or no seat more than before.
  if (had === null || initial.join_refused || client.mine.length <= Number(had)) return;
  const seat = Math.max(...client.mine);
  announce(fmt(gettext("%(name)s joined."), { name: render.isolated(view().seatName(seat)) }));
  if (Number(had) > 0) $("join-name")?.focus();
}

setReady(client.state);
noteWaits(client.presence); // the page's presence: an away seat's wait counts from the page's load
keepSeatNamesFitted($("card"));
restoreFeed(initial.feed ?? []);
draw();
joinTaken();
client.visibility(document.visibilityState === "hidden"); // a page opened in a background tab
client.start();
// What the first draw did not need, fetched once the browser is idle after it (at most 2 s on).
// Safari has no requestIdleCallback: a moment after the first draw there.
const whenIdle = window.requestIdleCallback ?? ((fn) => window.setTimeout(fn, 500));
whenIdle(
  () => {
    ui.idle = true;
    overPanel().catch(() => {});
    seeds().then(draw, () => {}); // the lobby's join form takes this browser's seed
    errors().catch(() => {});
    bubbles().catch(() => {});
    sounds().catch(() => {});
    awake().then(keepScreen, () => {});
  },
  { timeout: 2000 },
);

// The room's protocol client (docs/protocol.md): one socket, one action in flight, a queue
// behind it, and the exactly-once resend after a reconnect. No DOM here: the page passes in
// callbacks, and the tests (tests/e2e/test_protocol_client.py) drive it with a fake socket.

export const PING_EVERY = 20000;
// A socket can die without closing (Wi-Fi gone, a phone changing networks, a NAT dropping the
// flow): the browser goes on calling it open for minutes. A frame sent (a ping at least every
// PING_EVERY) and nothing heard back for ANSWER_WAIT, or a handshake with no hello for
// HELLO_WAIT, and the page gives the socket up and opens another: a dead connection is known
// at most 45 s after the last frame heard.
export const ANSWER_WAIT = 25000;
export const HELLO_WAIT = 45000;
export const LIVENESS_EVERY = 5000; // how often the page looks
// The network came back, or the tab is shown again: an open socket answers a ping this soon, or is given up.
export const WAKE_WAIT = 5000;
// The close code of a socket the page gave up (the server sees it only if the connection is alive after all).
export const CLOSE_SILENT = 4002;
// The close code of a socket whose `you` is out of date (another tab of the browser took a seat).
export const CLOSE_SEATS = 4003;
export const FIRST_RETRY = 500;
export const MAX_RETRY = 10000;
// A page whose seat the room counts away again this soon after it reconnected for that reason
// waits before the next try: a presence that keeps saying so would otherwise close and open
// sockets at once for ever (each close is itself another presence).
const RECOUNT_CALM = 10000;
// Pages asked to check their route (a "route" frame) ask within this many ms, each at its own moment.
export const ROUTE_JITTER = 3000;

export class RoomClient {
  /**
   * url: the room's websocket address; state: the snapshot the page was rendered from;
   * seats: this browser's seats; spectator: its handle in the room's chat (the `you` frame's);
   * former: whether it held a seat here and holds none now, left: the seats it gave up, takenOut: whether
   * the host took it out of the game (the `you` frame's);
   * hooks: {onState, onEvent, onError, onConnection, onPresence, onYou, onMissed}
   * (onEvent hears the frames that are not states, and a state's `earlier`, `event` and `game_over`
   * just before its onState; onMissed(after, before): the versions between were never heard);
   * env (tests): {WebSocket, setTimeout, setInterval, pageId, fetch, random, now}.
   */
  constructor({ url, state, seats = [], spectator = "", former = false, left = [], presence = null, takenOut = false, hooks = {}, env = {} }) {
    this.url = url;
    this.state = state;
    this.mine = seats;
    this.spectator = spectator;
    this.former = former;
    this.left = left;
    this.takenOut = takenOut;
    this.presence = presence ?? { seats: {}, spectators: 0 }; // the page's, until the socket's first presence frame
    this.hooks = hooks;
    this.WebSocket = env.WebSocket ?? window.WebSocket;
    this.setTimeout = env.setTimeout ?? window.setTimeout.bind(window);
    this.setInterval = env.setInterval ?? window.setInterval.bind(window);
    this.pageId = env.pageId ?? Math.random().toString(36).slice(2, 8);
    this.fetch = env.fetch ?? window.fetch.bind(window);
    this.random = env.random ?? Math.random;
    // How long the page has been hidden is wall-clock time (a device's sleep counts); the waits
    // for an answer are deadlines on a monotonic clock, which setting the device's clock does not
    // move (a clock put forward would give up a live socket, one put back keep a dead one).
    this.now = env.now ?? (() => Date.now());
    this.clock = env.clock ?? (() => performance.now());
    this.moving = false; // this page closed its socket to connect again at once (the room's own worker, its seats)
    this.socket = null;
    this.connected = false;
    this.status = "connecting";
    this.retryDelay = FIRST_RETRY;
    this.attempt = 0; // the scheduled reconnection that still counts (an earlier one is dropped)
    this.answerBy = null; // when this socket is given up if nothing is heard from it by then
    this.counter = 0;
    this.inflight = null; // the action frame sent and not yet answered
    this.answered = null; // the id of the last action a newer state was taken to answer
    this.syncing = false; // the page asked for the state ("sync"): the next whole one answers it
    this.queue = []; // functions that build the next action frame from the current state
    this.hint = null; // the coach's answer for the current version
    this.hintPending = false;
    this.pinger = null;
    this.watchdog = null;
    this.hiddenAt = null; // when the page was hidden (this.now()), null while it is shown
    this.recountedAt = null; // when a presence last had this page reconnect to be counted at its seats
    this.recountDelay = FIRST_RETRY;
  }

  start() {
    this.connect();
    this.pinger = this.setInterval(() => {
      if (this.connected) this.send({ type: "ping" });
    }, PING_EVERY);
    this.watchdog = this.setInterval(() => this.checkAlive(), LIVENESS_EVERY);
  }

  connect() {
    const socket = new this.WebSocket(this.url);
    this.socket = socket;
    this.answerBy = this.clock() + HELLO_WAIT;
    this.setStatus("connecting");
    // A socket given up is closed, but what it still says (or its close, which may come much
    // later) is not heard: a newer socket is the page's.
    socket.addEventListener("open", () => {
      if (socket === this.socket) this.retryDelay = FIRST_RETRY;
    });
    socket.addEventListener("message", (event) => {
      if (socket !== this.socket) return;
      this.answerBy = null;
      this.receive(JSON.parse(event.data));
    });
    socket.addEventListener("close", (event) => {
      if (socket === this.socket) this.lost(event.code);
    });
  }

  /**
   * The socket is gone: play pauses (no action is taken) until a new one says hello. The
   * action sent and unanswered is sent again then (exactly once); those waiting behind it were
   * never sent, and are dropped: tapped on a table the page could no longer hear, they would be
   * played on the one it comes back to, where the turn may have moved on.
   */
  lost(code) {
    this.socket = null;
    this.connected = false;
    this.queue.length = 0;
    this.hintPending = false;
    this.answerBy = null;
    if (code === 4404) {
      this.setStatus("gone");
      return;
    }
    this.setStatus("reconnecting");
    if (this.moving) {
      this.moving = false;
      this.retryIn(0);
      return;
    }
    // Spread between half and one and a half times the step: after a restart every page of the
    // worker loses its socket at the same moment, and they should not all come back at once.
    this.retryIn(Math.round(this.retryDelay * (0.5 + this.random())));
    this.retryDelay = Math.min(this.retryDelay * 2, MAX_RETRY);
  }

  retryIn(delay) {
    const attempt = ++this.attempt;
    this.setTimeout(() => {
      if (attempt === this.attempt && !this.socket) this.connect();
    }, delay);
  }

  /** Nothing heard in time from a socket the page is waiting on: it is given up for a new one. */
  checkAlive() {
    if (!this.socket || this.answerBy === null || this.clock() < this.answerBy) return;
    this.replace(CLOSE_SILENT, "no answer");
  }

  /** Close this socket without waiting for the browser to say it closed, and open another (at once, or after the backoff). */
  replace(code, reason, atOnce = false) {
    const socket = this.socket;
    if (atOnce) this.moving = true;
    this.lost(1006);
    try {
      socket.close(code, reason);
    } catch {
      // already closing
    }
  }

  /** Whether the room's presence has a seat this page plays, a person's, as away while this socket is open. */
  notCounted(frame) {
    if (!this.connected || !this.socket || !frame.seats) return false;
    return this.mine.some((seat) => {
      const entry = this.state.seats?.[seat];
      return entry && entry.status === "active" && entry.kind !== "bot" && frame.seats[String(seat)] === "away";
    });
  }

  /**
   * The browser was given its session over HTTP (a spectator's token, made when it first posts):
   * this socket, opened without it, cannot post with it, so another is opened at once, with it.
   */
  sessionGiven() {
    if (this.socket) this.replace(CLOSE_SEATS, "session given", true);
  }

  /**
   * The host's word changed what this browser may do here (an unmute of a seat it was taken out
   * of gives it its voice back): a new socket is told the browser as it is now (its `you`).
   */
  standingChanged() {
    if (this.connected && this.socket) this.replace(CLOSE_SEATS, "standing changed", true);
  }

  /**
   * Another tab of this browser was told that these players (`you`'s `players`) are its own.
   * The tabs share the browser's session, so its seats: if this page's differ, a seat was
   * taken (or given up) there, and this socket's `you` is out of date. A new socket is told
   * the seats as they are now.
   */
  otherTab(players) {
    if (!this.connected || !Array.isArray(this.myPlayers) || !Array.isArray(players)) return;
    const mine = new Set(this.myPlayers);
    if (players.length === mine.size && players.every((player) => mine.has(player))) return;
    this.replace(CLOSE_SEATS, "seats changed", true);
  }

  /**
   * The browser is back online, or the tab is shown again: a page waiting to retry connects
   * now, and an open socket must answer within WAKE_WAIT (after a network change or a
   * phone's sleep it is often dead, and nothing else would tell before ANSWER_WAIT). While a
   * turn's clock runs it is asked for the state rather than pinged: the page's own clock
   * (performance.now()) stands still while the device sleeps, and the state's `clock.left`
   * is the time the server will give.
   */
  wake() {
    if (this.status === "gone") return;
    if (!this.socket) {
      this.retryDelay = FIRST_RETRY;
      ++this.attempt; // the reconnection scheduled is not needed any more
      this.connect();
      return;
    }
    this.probe(Boolean(this.state.clock?.deadline));
  }

  /**
   * An open socket must answer within WAKE_WAIT, or is given up (the browser says it went
   * offline, say): a ping, or with `fresh` a sync, answered by the state.
   */
  probe(fresh = false) {
    if (!this.socket || !this.connected) return; // none, or a handshake under way: HELLO_WAIT holds
    if (fresh) this.sync();
    else this.send({ type: "ping" });
    const by = this.clock() + WAKE_WAIT;
    this.answerBy = this.answerBy === null ? by : Math.min(this.answerBy, by);
    this.setTimeout(() => this.checkAlive(), WAKE_WAIT);
  }

  /**
   * The page was hidden or shown (the Page Visibility API): the server hears it, since a player
   * whose every page of the room has been hidden a while is told of their turn by e-mail and push
   * as one with none open (docs/protocol.md, "visibility"). A socket that connects while the page
   * is hidden says so at once, with how long it has been (a new socket counts as shown until then).
   */
  visibility(hidden) {
    if (hidden === (this.hiddenAt !== null)) return;
    this.hiddenAt = hidden ? this.now() : null;
    if (this.connected) this.sayVisibility();
  }

  sayVisibility() {
    const frame = { type: "visibility", hidden: this.hiddenAt !== null };
    if (frame.hidden) frame.hidden_for = Math.max(0, Math.round((this.now() - this.hiddenAt) / 1000));
    // Not through send(): nothing answers it, so it starts no wait for an answer (the pings go on).
    this.socket.send(JSON.stringify(frame));
  }

  setStatus(status) {
    this.status = status;
    this.hooks.onConnection?.(status);
  }

  send(frame) {
    this.socket.send(JSON.stringify(frame));
    // A frame sent starts the wait for an answer: a pong, an action's state or error, the chat
    // line back (a frame the server may leave unanswered, a `back` with no seat to give back, is
    // followed by a ping, which is answered, within PING_EVERY).
    if (this.answerBy === null) this.answerBy = this.clock() + ANSWER_WAIT;
  }

  /**
   * Queue an action: `build(state)` makes its frame when its turn comes (or null to skip it).
   * Refused (false) while the socket is down: the page shows play as paused rather than
   * holding actions back and applying them later, on a table that may have changed.
   */
  enqueue(build, kind = "other") {
    if (!this.connected) return false;
    this.queue.push({ build, kind });
    this.pump();
    return true;
  }

  /** A roll or score on its way: the dice on screen are about to change, so more actions wait. */
  busy() {
    const moving = (kind) => kind === "roll" || kind === "score";
    return Boolean(this.inflight && moving(this.inflight.type)) || this.queue.some((item) => moving(item.kind));
  }

  /** An action of this kind sent and unanswered, or waiting to be sent (a second click of a button whose first is on its way). */
  pending(kind) {
    return Boolean(this.inflight && this.inflightKind === kind) || this.queue.some((item) => item.kind === kind);
  }

  /** Nothing sent and unanswered, nothing waiting. */
  idle() {
    return !this.inflight && !this.queue.length;
  }

  pump() {
    while (!this.inflight && this.queue.length && this.connected) {
      const item = this.queue.shift();
      const frame = item.build(this.state);
      if (!frame) continue;
      this.inflight = { ...frame, version: this.state.version, id: `${this.pageId}-${++this.counter}` };
      this.inflightKind = item.kind;
      this.send(this.inflight);
    }
  }

  /** Chat, react, back: sent at once, not queued; its own id keeps its errors apart. The id, or
   * null when not connected (a chat message's frame echoes it). */
  sendSocial(frame) {
    if (!this.connected) return null;
    const id = `${frame.type}-${this.pageId}-${++this.counter}`;
    this.send({ ...frame, id });
    return id;
  }

  askHint() {
    if (!this.connected || this.hintPending) return false;
    this.hintPending = true;
    this.send({ type: "hint", version: this.state.version, id: `hint-${this.pageId}-${++this.counter}` });
    return true;
  }

  receive(frame) {
    switch (frame.type) {
      case "you":
        this.mine = frame.seats;
        this.myPlayers = frame.players ?? []; // left out when there are none
        this.spectator = frame.spectator ?? ""; // left out for a socket without a session
        this.former = Boolean(frame.former); // left out for a browser that never held a seat here, or holds one
        this.left = frame.left ?? [];
        this.takenOut = Boolean(frame.taken_out); // left out unless the host took this browser out of the game
        this.hooks.onYou?.(frame);
        break;
      case "state":
        this.onState(frame);
        break;
      case "presence":
        this.presence = frame;
        if (this.notCounted(frame)) {
          // The room counts none of this browser's sockets at a seat this page plays, though
          // this one is open: the browser signed out in another tab (the server refuses the
          // seat's actions from here). A new socket is the browser as it is now, with its seats.
          const again = this.recountedAt !== null && this.now() - this.recountedAt < RECOUNT_CALM;
          this.recountedAt = this.now();
          if (again) {
            this.retryDelay = this.recountDelay;
            this.recountDelay = Math.min(this.recountDelay * 2, MAX_RETRY);
          } else this.recountDelay = FIRST_RETRY;
          this.replace(CLOSE_SEATS, "not at its seats", !again);
          return;
        }
        this.hooks.onPresence?.(frame);
        break;
      case "error":
        this.onError(frame);
        break;
      case "hint":
        this.hintPending = false;
        if (frame.version === this.state.version) this.hint = frame;
        this.hooks.onEvent?.(frame, this.hint === frame);
        break;
      case "route":
        this.checkRoute(frame.worker);
        break;
      case "pong":
        // A state this page missed (e.g. while the server's Redis restarted): fetch it.
        if (typeof frame.version === "number" && frame.version > this.state.version) this.sync();
        break;
      default:
        this.hooks.onEvent?.(frame);
        break;
    }
  }

  /**
   * The worker this socket is on asks whether the proxy now sends the room elsewhere (a worker
   * came back: games/realtime/routes.py). The room's socket address asked over HTTP goes the
   * way a new socket would and names the worker it reaches; if that is another, this socket
   * moves there. Nothing moves while an action is unanswered: the server asks again later.
   */
  checkRoute(worker) {
    const socket = this.socket;
    this.setTimeout(async () => {
      if (socket !== this.socket || !this.connected) return;
      let answer;
      try {
        const response = await this.fetch(this.url.replace(/^ws/, "http"), { cache: "no-store" });
        answer = await response.json();
      } catch {
        return; // the next round asks again
      }
      if (!answer?.worker || answer.worker === worker || socket !== this.socket || !this.idle()) return;
      this.moving = true;
      socket.close(4000, "moving to the room's worker");
    }, this.random() * ROUTE_JITTER);
  }

  /** Asks for the room's state again: its answer counts what it missed as a new socket's first state does. */
  sync() {
    this.syncing = true;
    this.send({ type: "sync" });
  }

  onState(next) {
    // A state after an action leaves the room's rule set out (it never changes): the one
    // the page was rendered from, or its socket was sent on connecting, still holds. The room's
    // whole state, with it, is a new socket's first or the answer to a sync, never an action's.
    const whole = Boolean(next.ruleset);
    if (!whole) next = { ...next, ruleset: this.state.ruleset };
    const first = !this.connected;
    this.connected = true;
    if (first) this.setStatus("connected");
    if (first && this.hiddenAt !== null) this.sayVisibility();
    if (next.version < this.state.version && !first) return;
    // What the action that led to this state did rides in it (docs/protocol.md: `event`, and
    // `game_over` on the action that ended the game). The page hears it first, while the state
    // it came from is still current, so it can say who rolled and animate what changes.
    // A failing animation or feed line must never keep the state itself from being applied.
    const tell = (frame) => {
      try {
        this.hooks.onEvent?.(frame);
      } catch (error) {
        console.error("the page could not show", frame.type, error);
      }
    };
    // The moves of the same commit before the last (a turn the timer played: the timeout, then
    // its roll and score), each with its own version, are heard first, in order.
    for (const earlier of next.earlier ?? []) tell(earlier);
    if (next.event) tell({ ...next.event, version: next.version });
    // Lines this page never heard: a state no action led to (a new socket's, an answer to sync)
    // or an action's whose first event is more than a hold ahead of the state the page has. The
    // page asks for the room's last events once and puts those between in its feed. A new
    // socket's first state, or the answer to a sync, one version on missed that version's line (a
    // player's leave, say); any other state without an event one version on is a hold's. A hold's
    // heard before the sync's answer is not taken for it: an action's state is never whole.
    const asked = first || (this.syncing && whole && !next.event);
    if (whole && !next.event) this.syncing = false;
    const told = next.earlier?.[0]?.version ?? next.version;
    const after = this.state.version;
    if (next.event ? told - after > 2 : next.version - after > (asked ? 0 : 1)) {
      try {
        this.hooks.onMissed?.(after, next.event ? told : next.version + 1);
      } catch (error) {
        console.error("the page could not ask for what it missed", error);
      }
    }
    if (next.game_over) tell({ ...next.game_over, type: "game_over", version: next.version });
    if (next.version !== this.state.version) {
      this.hint = null;
      this.hintPending = false;
    }
    this.state = next;
    // This browser's seats by their players: a seat that leaves the lobby moves the later ones up.
    // A seat its player left, or the host took out, is out of the game (its ``status``, or
    // ``gave_up`` when a computer plays on): no longer this browser's, as its next `you` would
    // say (games.domain.room's seats_kept_for). A browser with none left has given them up.
    if (this.myPlayers?.length && next.seats) {
      const ours = next.seats.flatMap((seat, index) => (this.myPlayers.includes(seat.player) ? [index] : []));
      const out = (index) => next.seats[index].status === "left" || Boolean(next.seats[index].gave_up);
      this.mine = ours.filter((index) => !out(index));
      if (!this.mine.length && ours.length) {
        this.former = true;
        this.left = ours;
      }
    }
    if (this.inflight && next.version > this.inflight.version) {
      // Taken for its answer. Another player's change may have reached this page first (a join as
      // Start is pressed): the refusal of this action, which names it, then still comes.
      this.answered = this.inflight.id;
      this.inflight = null;
    }
    if (first && this.inflight) {
      // We never saw the answer to this action: send the very same frame again. If it had
      // landed, the server refuses it as stale or repeated, so it applies exactly once.
      if (next.version === this.inflight.version) this.send(this.inflight);
      else this.inflight = null;
    }
    this.hooks.onState?.(next);
    this.pump();
  }

  onError(frame) {
    if (frame.id && frame.id.startsWith("hint-")) this.hintPending = false;
    const mineFailed = Boolean(this.inflight && (frame.id === this.inflight.id || !frame.id));
    if (mineFailed) {
      this.inflight = null;
      this.queue.length = 0;
      if (!frame.id && this.connected) this.sync(); // an error that could not name the action
    }
    // The refusal of an action already taken for answered is this page's too, to be told; what
    // was sent since was built on the newer state, and stays.
    const mineRefusedLate = !mineFailed && Boolean(frame.id) && frame.id === this.answered;
    this.hooks.onError?.(frame, mineFailed || mineRefusedLate);
    this.pump();
  }
}

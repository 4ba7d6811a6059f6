// The room's protocol client (docs/protocol.md): one socket, one action in flight, a queue
// behind it, and the exactly-once resend after a reconnect. No DOM here: the page passes in
// callbacks, and the tests (tests/e2e/test_protocol_client.py) drive it with a fake socket.

export const PING_EVERY = 20000;
export const FIRST_RETRY = 500;
export const MAX_RETRY = 10000;
// Pages asked to check their route (a "route" frame) ask within this many ms, each at its own moment.
export const ROUTE_JITTER = 3000;

export class RoomClient {
  /**
   * url: the room's websocket address; state: the snapshot the page was rendered from;
   * seats: this browser's seats; hooks: {onState, onEvent, onError, onConnection, onPresence}
   * (onEvent hears the frames that are not states, and a state's `event` and `game_over`
   * just before its onState);
   * env (tests): {WebSocket, setTimeout, setInterval, pageId, fetch, random}.
   */
  constructor({ url, state, seats = [], hooks = {}, env = {} }) {
    this.url = url;
    this.state = state;
    this.mine = seats;
    this.presence = { seats: {}, spectators: 0 };
    this.hooks = hooks;
    this.WebSocket = env.WebSocket ?? window.WebSocket;
    this.setTimeout = env.setTimeout ?? window.setTimeout.bind(window);
    this.setInterval = env.setInterval ?? window.setInterval.bind(window);
    this.pageId = env.pageId ?? Math.random().toString(36).slice(2, 8);
    this.fetch = env.fetch ?? window.fetch.bind(window);
    this.random = env.random ?? Math.random;
    this.moving = false; // this page closed its socket to reconnect to the room's own worker
    this.socket = null;
    this.connected = false;
    this.status = "connecting";
    this.retryDelay = FIRST_RETRY;
    this.counter = 0;
    this.inflight = null; // the action frame sent and not yet answered
    this.queue = []; // functions that build the next action frame from the current state
    this.hint = null; // the coach's answer for the current version
    this.hintPending = false;
    this.pinger = null;
  }

  start() {
    this.connect();
    this.pinger = this.setInterval(() => {
      if (this.connected) this.send({ type: "ping" });
    }, PING_EVERY);
  }

  connect() {
    const socket = new this.WebSocket(this.url);
    this.socket = socket;
    this.setStatus("connecting");
    socket.addEventListener("open", () => {
      this.retryDelay = FIRST_RETRY;
    });
    socket.addEventListener("message", (event) => this.receive(JSON.parse(event.data)));
    socket.addEventListener("close", (event) => {
      this.connected = false;
      this.hintPending = false;
      if (event.code === 4404) {
        this.setStatus("gone");
        return;
      }
      this.setStatus("reconnecting");
      if (this.moving) {
        this.moving = false;
        this.setTimeout(() => this.connect(), 0);
        return;
      }
      this.setTimeout(() => this.connect(), this.retryDelay);
      this.retryDelay = Math.min(this.retryDelay * 2, MAX_RETRY);
    });
  }

  setStatus(status) {
    this.status = status;
    this.hooks.onConnection?.(status);
  }

  send(frame) {
    this.socket.send(JSON.stringify(frame));
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

  /** Chat, react, back: sent at once, not queued; its own id keeps its errors apart. */
  sendSocial(frame) {
    if (!this.connected) return false;
    this.send({ ...frame, id: `${frame.type}-${this.pageId}-${++this.counter}` });
    return true;
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
        this.myPlayers = frame.players ?? null;
        break;
      case "state":
        this.onState(frame);
        break;
      case "presence":
        this.presence = frame;
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
        if (typeof frame.version === "number" && frame.version > this.state.version) this.send({ type: "sync" });
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

  onState(next) {
    // A state after an action leaves the room's rule set out (it never changes): the one
    // the page was rendered from, or its socket was sent on connecting, still holds.
    if (!next.ruleset) next = { ...next, ruleset: this.state.ruleset };
    const first = !this.connected;
    this.connected = true;
    if (first) this.setStatus("connected");
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
    if (next.event) tell({ ...next.event, version: next.version });
    if (next.game_over) tell({ ...next.game_over, type: "game_over", version: next.version });
    if (next.version !== this.state.version) {
      this.hint = null;
      this.hintPending = false;
    }
    this.state = next;
    // This browser's seats by their players: a seat that leaves the lobby moves the later ones up.
    if (this.myPlayers?.length && next.seats) {
      this.mine = next.seats.flatMap((seat, index) => (this.myPlayers.includes(seat.player) ? [index] : []));
    }
    if (this.inflight && next.version > this.inflight.version) this.inflight = null;
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
      if (!frame.id && this.connected) this.send({ type: "sync" }); // an error that could not name the action
    }
    this.hooks.onError?.(frame, mineFailed);
    this.pump();
  }
}

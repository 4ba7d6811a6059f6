// The chat panel: typed text goes in with textContent, never as HTML.

import { gettext, language } from "../i18n.js";
import { playerName } from "../words.js";

export const REACTIONS = ["👍", "🎲", "😮", "😂", "😢", "👏"];
// The server's limit (games/services/chat.py CHAT_MAX), kept beside the words that say it.
export { CHAT_MAX } from "../words.js";
const KEEP = 200; // messages kept on the page
const NEAR_END = 40; // px: a reader this near the last message follows the new ones
const QUIET_MS = 1000; // how long the list stays out of the live region after lines put in quietly
// The message as the server keeps it (games/services/chat.py clean_message), to count it as the
// server does: a line break or separator is a space, other control characters and bidi controls
// go, and so do format characters but the joiners and a flag's tags; a character keeps at most
// MARKS_MAX combining marks (games/services/codes.py, none on nothing, those after a joiner or
// other format character its own), and space (Python's, not the page's trim) goes from both ends.
const MARKS_MAX = 3;
const CONTROL_SPACE = /[\t\n\v\f\r\x1c-\x1f\x85]/u;
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/u;
// A subdivision's flag (the black flag, its code in tag characters, the cancel tag: games/services/chat.py
// _FLAG), kept whole; any other format character but the joiners draws nothing, and goes.
const BLACK_FLAG = "\u{1f3f4}";
const FORMAT =
  /\u{1f3f4}(?:[\u{e0061}-\u{e007a}]{2}|[\u{e0030}-\u{e0039}]{3})[\u{e0030}-\u{e0039}\u{e0061}-\u{e007a}]{1,4}\u{e007f}|\p{Cf}/gu;
const JOINERS = new Set(["\u200c", "\u200d"]);
const SPACE_AT_ENDS = /^[\t\n\v\f\r\x1c-\x1f\x85\p{Zs}\u2028\u2029]+|[\t\n\v\f\r\x1c-\x1f\x85\p{Zs}\u2028\u2029]+$/gu;

const timeOf = (iso) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleTimeString(language, { hour: "2-digit", minute: "2-digit" });
};

function keptText(text) {
  let shown = "";
  for (let char of text) {
    if (/[\p{Zl}\p{Zp}]/u.test(char) || CONTROL_SPACE.test(char)) char = " ";
    else if (/\p{Cc}/u.test(char) || BIDI_CONTROL.test(char)) continue;
    shown += char;
  }
  shown = shown.replace(FORMAT, (found) => (found.startsWith(BLACK_FLAG) || JOINERS.has(found) ? found : ""));
  let kept = "";
  let marks = 0;
  let base = false;
  for (const char of shown) {
    if (/\p{M}/u.test(char)) {
      marks += 1;
      if (marks > MARKS_MAX || !base) continue;
    } else if (!/\p{Cf}/u.test(char)) {
      // A format character (a joiner) is no character of its own: marks after it count on the one before.
      // The space the line begins with is trimmed away: marks on it would be left on nothing.
      marks = 0;
      base = base || !/^\s$/u.test(char);
    }
    kept += char;
  }
  return kept.replace(SPACE_AT_ENDS, "");
}

/** How long the server counts a message: the code points of what it keeps (an emoji is one, one
 * with a skin tone two, as the server sees them; not the UTF-16 units an input's maxlength counts,
 * nor the characters drawn). */
export const chatLength = (text) => [...keptText(text)].length;

export class ChatPanel {
  constructor(list, doc = document) {
    this.list = list;
    this.doc = doc;
    this.ids = new Set();
    this.unread = 0;
    this.live = list.getAttribute("aria-live");
    this.quietTimer = null;
    // What spectators' lines show: whether this page may mute them (the host's, the game on), the
    // handles of the spectators the host muted (the state's chat.muted) and this browser's own.
    this.moderation = { host: false, muted: new Set(), own: "" };
    this.moderationKey = "false||";
  }

  /** The history a socket gets on connect (a reconnect resends it): the list shows it after. The
   * list is a live region, which a screen reader reads out as lines are added: a line already
   * shown stays as it is (never taken out and put back), a line no longer listed (hidden by
   * staff meanwhile) goes, and only the lines not yet shown are added, each in its place. Lines
   * older than the history's first are kept: the page keeps more lines than a history holds.
   * ``quiet``: the history the page opens with, the room's past, not news: put in without being
   * read out (a later one's new lines were said while the page was away, and are read). */
  replace(messages, quiet = false) {
    const listed = new Set(messages.map((m) => m.id));
    const oldest = messages.length ? messages[0].id : Infinity;
    for (const item of [...this.list.children]) {
      const id = Number(item.dataset.message);
      if (!messages.length || (id >= oldest && !listed.has(id))) {
        item.remove();
        this.ids.delete(id);
      }
    }
    // Each line not shown goes in front of the next one shown, added oldest first: in the order
    // it is read.
    const shown = messages.map((m) => (this.ids.has(m.id) ? this.lineOf(m.id) : null));
    // A line kept takes the name it is listed under now (a deleted account's, renamed while
    // this page was away).
    shown.forEach((line, i) => line && this.rename(line, messages[i]));
    const before = [];
    for (let i = messages.length - 1, next = null; i >= 0; i--) {
      before[i] = next;
      next = shown[i] ?? next;
    }
    const fill = () => messages.forEach((message, i) => shown[i] || this.insert(message, before[i]));
    if (quiet) this.quietly(fill);
    else fill();
    this.toEnd();
  }

  /** Make changes to the list that a screen reader does not read out. The live region is turned
   * back on a moment later: an assistive technology hears of the changes after the page made
   * them, and would read them if the region were live again by then. */
  quietly(change) {
    this.list.setAttribute("aria-live", "off");
    change();
    window.clearTimeout(this.quietTimer);
    this.quietTimer = window.setTimeout(() => {
      if (this.live === null) this.list.removeAttribute("aria-live");
      else this.list.setAttribute("aria-live", this.live);
    }, QUIET_MS);
  }

  /** Show the last message. */
  toEnd() {
    this.list.scrollTop = this.list.scrollHeight;
  }

  /** The list is shown again. Hidden, it had no size to keep a place in (nor to tell whether its
   * reader was at the end): it opens at the last message, as the unread count promised, and
   * follows the new ones from there. */
  shown() {
    this.toEnd();
  }

  /** Add one message (once, whatever the resends); true if it was new. */
  add(message, live = true) {
    if (this.ids.has(message.id)) return false;
    // A reader who scrolled back to earlier messages stays where they read.
    const list = this.list;
    const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight <= NEAR_END;
    // In id order: a message staff show again goes back in its place, not under the newest.
    let next = null;
    for (let line = list.lastElementChild; line && Number(line.dataset.message) > message.id; line = line.previousElementSibling) next = line;
    this.insert(message, next);
    if (live) this.unread += 1;
    if (atEnd) this.toEnd();
    return true;
  }

  /** The line of message ``id`` shown, or null. */
  lineOf(id) {
    return this.list.querySelector(`[data-message="${Number(id)}"]`);
  }

  /** Put a message's line before ``before`` (null: at the end), the oldest lines going past KEEP. */
  insert(message, before) {
    this.ids.add(message.id);
    const item = this.doc.createElement("li");
    item.className = `chat-line${message.seat === null ? " spectator" : ""}`;
    item.dataset.message = String(message.id);
    const who = this.doc.createElement("strong");
    who.className = "chat-name";
    who.id = `chat-who-${Number(message.id)}`;
    this.rename(item, message, who);
    const text = this.doc.createElement("span");
    text.className = "chat-text";
    text.id = `chat-said-${Number(message.id)}`;
    text.textContent = message.text;
    const at = this.doc.createElement("time");
    at.className = "chat-time";
    at.dateTime = message.at;
    at.textContent = timeOf(message.at);
    item.append(who, " ", text, " ", at);
    if (message.seat === null && message.spectator) {
      item.dataset.spectator = message.spectator;
      this.moderateLine(item);
    }
    this.list.insertBefore(item, before);
    while (this.list.children.length > KEEP) {
      this.ids.delete(Number(this.list.firstElementChild.dataset.message));
      this.list.firstElementChild.remove();
    }
    return item;
  }

  /** Show ``line`` under ``message``'s name. A spectator's line, and a deleted account's, is
   * stored under the server's English words: each reader sees their own. */
  rename(line, message, who = line.querySelector(".chat-name")) {
    const name = message.seat === null ? gettext("Spectator") : playerName(message.name);
    if (who && who.textContent !== name) who.textContent = name;
  }

  /** The server names lines ``ids`` anew: ``name`` (the server's English marker, worded for this
   * reader), and a spectator's lines ``spectator``, the handle their browser goes by now (it signed
   * in: the account's), which the host's Mute chat sends and the room's mutes list. */
  renamed(ids, name, spectator = "") {
    for (const id of ids) {
      const line = this.lineOf(id);
      if (!line) continue;
      const who = line.querySelector(".chat-name");
      if (!spectator) {
        if (who) who.textContent = playerName(name);
        continue;
      }
      this.rename(line, { seat: null, name });
      if (line.dataset.spectator === spectator) continue;
      line.dataset.spectator = spectator;
      this.quietly(() => this.moderateLine(line));
    }
  }

  /** The host's page offers Mute chat on each spectator's line (Unmute chat on a muted one's), and
   * every page marks a muted spectator's lines: ``host``, whether this page may (the host's, the
   * game on), ``muted``, the handles of the spectators muted, ``own``, this browser's handle: the
   * host's own lines from the rail (said before they took a seat) offer nothing, as the server
   * mutes no host. The lines change quietly: the host and the room hear of a mute once, from its
   * event, not from each line it marks. */
  moderate(host, muted, own = "") {
    const key = `${host}|${own}|${[...muted].sort().join()}`;
    if (key === this.moderationKey) return;
    this.moderationKey = key;
    this.moderation = { host, muted: new Set(muted), own };
    const lines = [...this.list.querySelectorAll(".chat-line[data-spectator]")];
    if (lines.length) this.quietly(() => lines.forEach((line) => this.moderateLine(line)));
  }

  /** One spectator's line as ``moderation`` has it. Its button is changed in place, so the keyboard
   * stays on it; its name says whose line it acts on (the line's name and text describe it). */
  moderateLine(line) {
    const handle = line.dataset.spectator;
    const muted = this.moderation.muted.has(handle);
    let tag = line.querySelector(".chat-muted");
    if (muted && !tag) {
      tag = this.doc.createElement("span");
      tag.className = "tag chat-muted";
      tag.textContent = gettext("chat muted");
      line.querySelector(".chat-name").after(" ", tag);
    } else if (!muted && tag) {
      tag.previousSibling?.remove(); // the space before it
      tag.remove();
    }
    let button = line.querySelector(".chat-mute");
    if (!this.moderation.host || (this.moderation.own && handle === this.moderation.own)) {
      button?.remove();
      return;
    }
    if (!button) {
      button = this.doc.createElement("button");
      button.type = "button";
      button.className = "btn btn-small btn-quiet chat-mute";
      const id = line.dataset.message;
      button.setAttribute("aria-describedby", `chat-who-${id} chat-said-${id}`);
      line.append(button);
    }
    const label = muted ? gettext("Unmute chat") : gettext("Mute chat");
    if (button.textContent !== label) button.textContent = label;
    button.dataset.act = muted ? "unmute_spectator" : "mute_spectator";
  }

  /** Staff hid a message from the room. */
  hide(id) {
    this.lineOf(id)?.remove();
    this.ids.delete(id);
  }
}

/** What the chat form says about who may post here (null: this page may post). ``spectator``:
 * this browser's handle in the room's chat ("" without one), muted by the host when the state's
 * chat.muted lists it; ``former``: this browser held a seat here and holds none now; ``silenced``:
 * a seat it gave up is muted, which keeps it quiet as a spectator (games/services/chat.py);
 * ``takenOut``: the host took it out of the game, which keeps it quiet too (games/store/selectors.py). */
export function chatNote(state, mine, muted, spectator = "", former = false, silenced = false, takenOut = false) {
  // Once the game is over its chat is its players' alone: a stranger neither reads nor posts, and
  // one who left the game (or was taken out) reads it and posts no more (games/services/chat.py).
  const over = state.status === "finished" || state.status === "abandoned";
  if (!mine.length && over) return former ? gettext("You are no longer a player in this game: you can read its chat but not post to it.") : gettext("This game's chat is its players' alone.");
  if (!mine.length && !state.chat?.spectators) return gettext("Only the players post in this room's chat; you can read it.");
  if (!mine.length && takenOut) return gettext("The host took you out of this game: you can read its chat but not post to it.");
  if (mine.length && mine.every((s) => muted(s))) return gettext("The host has muted your chat in this room.");
  if (!mine.length && (silenced || (spectator && (state.chat?.muted ?? []).includes(spectator)))) return gettext("The host has muted your chat in this room.");
  return null;
}

// The chat panel: typed text goes in with textContent, never as HTML.

import { gettext, language } from "../i18n.js";
import { playerName } from "../words.js";

export const REACTIONS = ["👍", "🎲", "😮", "😂", "😢", "👏"];
export const CHAT_MAX = 300;
const KEEP = 200; // messages kept on the page
const NEAR_END = 40; // px: a reader this near the last message follows the new ones

const timeOf = (iso) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleTimeString(language, { hour: "2-digit", minute: "2-digit" });
};

export class ChatPanel {
  constructor(list, doc = document) {
    this.list = list;
    this.doc = doc;
    this.ids = new Set();
    this.unread = 0;
  }

  /** The history a socket gets on connect: replaces what is shown (a reconnect resends it). */
  replace(messages) {
    this.list.replaceChildren();
    this.ids.clear();
    for (const message of messages) this.add(message, false);
    this.toEnd();
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
    this.ids.add(message.id);
    const item = this.doc.createElement("li");
    item.className = `chat-line${message.seat === null ? " spectator" : ""}`;
    item.dataset.message = String(message.id);
    const who = this.doc.createElement("strong");
    who.className = "chat-name";
    // A spectator's line, and a deleted account's, is stored under the server's English words:
    // each reader sees their own.
    who.textContent = message.seat === null ? gettext("Spectator") : playerName(message.name);
    const text = this.doc.createElement("span");
    text.className = "chat-text";
    text.textContent = message.text;
    const at = this.doc.createElement("time");
    at.className = "chat-time";
    at.dateTime = message.at;
    at.textContent = timeOf(message.at);
    item.append(who, " ", text, " ", at);
    // A reader who scrolled back to earlier messages stays where they read.
    const list = this.list;
    const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight <= NEAR_END;
    list.append(item);
    while (list.children.length > KEEP) list.firstElementChild.remove();
    if (live) this.unread += 1;
    if (atEnd) this.toEnd();
    return true;
  }

  /** Staff hid a message from the room. */
  hide(id) {
    this.list.querySelector(`[data-message="${Number(id)}"]`)?.remove();
    this.ids.delete(id);
  }
}

/** What the chat form says about who may post here (null: this page may post). */
export function chatNote(state, mine, muted) {
  if (!mine.length && !state.chat?.spectators) return gettext("Only the players post in this room's chat; you can read it.");
  if (mine.length && mine.every((s) => muted(s))) return gettext("The host has muted your chat in this room.");
  return null;
}

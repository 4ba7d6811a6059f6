// Your games: this device's Web Push notifications (a turn, a seat the computer took over, a game's end),
// turned on and off by the player.
// Turning them on asks the browser's permission, registers the service worker (/sw.js), subscribes
// with the server's VAPID public key and posts the subscription; the server sends to it when a
// game at your own pace waits for this browser's (or account's) move, when the computer takes over one of
// its seats, and when one of its games ends.
import { fmt, gettext } from "./i18n.js";

const box = document.getElementById("push-box");
const status = document.getElementById("push-status");
const on = document.getElementById("push-on");
const off = document.getElementById("push-off");
const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";

function show(text, subscribed) {
  status.textContent = text;
  box.dataset.state = subscribed === undefined ? "unavailable" : subscribed ? "on" : "off";
  on.hidden = subscribed !== false;
  off.hidden = subscribed !== true;
}

function keyBytes(text) {
  const base64 = (text + "=".repeat((4 - (text.length % 4)) % 4)).replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

// A refusal's message comes from the server in the page's language; a failure without one
// (no answer at all, or one that is not the server's JSON) is worded here.
async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf },
    body: JSON.stringify(body),
  }).catch(() => {
    throw new Error(gettext("the server could not be reached; try again in a moment"));
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(answer.message || fmt(gettext("the server answered with error %(status)s; try again in a moment"), { status: response.status }));
    error.code = answer.error;
    throw error;
  }
  return answer;
}

async function current() {
  const registration = await navigator.serviceWorker.getRegistration("/");
  return registration ? registration.pushManager.getSubscription() : null;
}

// Whether the subscription was made with the server's key. A push service takes pushes only
// signed with the key a subscription was made with: after the site's key changed (docs/deploy.md)
// every push to an older one is refused. A browser that does not say is taken at its word.
function madeWithServerKey(subscription) {
  const made = subscription.options?.applicationServerKey;
  if (!made) return true;
  const ours = keyBytes(box.dataset.key);
  const theirs = new Uint8Array(made);
  return theirs.length === ours.length && theirs.every((byte, i) => byte === ours[i]);
}

// The browser's subscription, made anew with the server's key if the one it has was made with
// another (the old one is forgotten by the server and dropped by the browser). `known`: the server
// removed the old one as this browser's, which shows the new one is for the same person.
async function subscription(registration) {
  const old = await registration.pushManager.getSubscription();
  if (old && madeWithServerKey(old)) return { made: old, known: false };
  let known = false;
  if (old) {
    known = await post(box.dataset.removeUrl, { endpoint: old.endpoint }).then((answer) => Boolean(answer.removed), () => false);
    await old.unsubscribe();
  }
  const made = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(box.dataset.key) });
  return { made, known };
}

// The browser's subscription posted to the server. One its push service said is gone (it expired
// while the browser kept it: the server answers `subscription_gone`) is dropped and made anew.
// `heals`: the endpoint of the one the browser held at a visit, posted again without a press; the
// server takes it only from the person it was made for (`subscription_ended` otherwise, and
// `subscription_held` for one it keeps as another browser's, as when it was first refused).
// One made anew for a key the server no longer has heals nothing the server could still check:
// the removal of the old one said whose it was.
// Pressed, one the server keeps as another browser's (`subscription_held`: stored with keys that
// are not this browser's) is dropped and made anew too: whatever is pushed to it is for keys this
// browser does not hold, so it brings the device nothing, and the new one's endpoint is known to
// nobody else. At a visit it is kept (nobody pressed anything), and the server's words say why.
async function postSubscription(registration, heals) {
  const { made, known } = await subscription(registration);
  try {
    await post(box.dataset.subscribeUrl, heals && !known ? { ...made.toJSON(), heals } : made.toJSON());
  } catch (error) {
    const held = error.code === "subscription_held" && !heals;
    if (error.code !== "subscription_gone" && !held) throw error;
    if (!held) await post(box.dataset.removeUrl, { endpoint: made.endpoint }).catch(() => {});
    await made.unsubscribe();
    const fresh = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(box.dataset.key) });
    await post(box.dataset.subscribeUrl, fresh.toJSON());
  }
}

async function turnOn() {
  on.disabled = true;
  try {
    const permission = await Notification.requestPermission();
    if (permission === "denied") {
      show(gettext("Notifications are blocked for this site: allow them in the browser's site settings, then try again."), false);
      return;
    }
    if (permission !== "granted") {
      // "default": the prompt was closed without an answer (Esc, a tap beside it, another tab).
      // Nothing is blocked: the browser asks again at the next press.
      show(gettext("Notifications were not allowed: press the button again to be asked again."), false);
      return;
    }
    const registration = await navigator.serviceWorker.register(box.dataset.swUrl, { scope: "/" });
    await navigator.serviceWorker.ready;
    await postSubscription(registration);
    show(gettext("On: this device is told when it is your turn, when the computer takes over your seat and when a game ends."), true);
  } catch (error) {
    show(fmt(gettext("Notifications could not be turned on: %(error)s"), { error: error.message }), false);
  } finally {
    on.disabled = false;
  }
}

async function turnOff() {
  off.disabled = true;
  try {
    const subscription = await current();
    if (subscription) {
      await post(box.dataset.removeUrl, { endpoint: subscription.endpoint });
      await subscription.unsubscribe();
    }
    show(gettext("Off on this device."), false);
  } catch (error) {
    show(fmt(gettext("Notifications could not be stopped: %(error)s"), { error: error.message }), true);
  } finally {
    off.disabled = false;
  }
}

async function start() {
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    show(gettext("This browser cannot show a site's notifications (on an iPhone: add the site to the home screen first)."));
    return;
  }
  if (!box.dataset.key) {
    show(gettext("Notifications are not set up on this server."));
    return;
  }
  const registration = await navigator.serviceWorker.getRegistration("/");
  const subscribed = registration ? await registration.pushManager.getSubscription() : null;
  if (subscribed && Notification.permission === "granted") {
    try {
      // Posted again at each visit: it follows this browser's seats (into an account, once signed
      // in). One made with a key the server no longer has is made again with its key, and one
      // that expired at its push service is made anew. One a sign-out ended is left behind by
      // the browser, and whoever uses it next turns their own on: it is dropped here.
      await postSubscription(registration, subscribed.endpoint);
    } catch (error) {
      if (error.code === "subscription_ended") {
        // The browser's, whichever it holds now: one made anew for the server's key in its place too.
        const held = await registration.pushManager.getSubscription().catch(() => null);
        await (held ?? subscribed).unsubscribe().catch(() => {});
        show(gettext("Off on this device."), false);
        return;
      }
      if (error.code === "subscription_held") {
        // The endpoint posted is stored as another browser's, and stays its: nothing is sent to
        // this device, whatever the browser holds. The server's words say why, and the browser's
        // subscription stays: nobody asked to drop it.
        show(error.message, false);
        return;
      }
      if (!madeWithServerKey(subscribed) || error.code === "subscription_gone") {
        show(gettext("Off on this device."), false);
        return;
      }
    }
    show(gettext("On: this device is told when it is your turn, when the computer takes over your seat and when a game ends."), true);
  } else {
    show(Notification.permission === "denied" ? gettext("Blocked for this site in the browser's settings.") : gettext("Off on this device."), false);
  }
}

on.addEventListener("click", turnOn);
off.addEventListener("click", turnOff);
start();

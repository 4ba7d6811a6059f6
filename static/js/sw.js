// The service worker (served at /sw.js, so its scope is the whole site): it shows the server's
// pushes of a turn, a seat the computer took over or a game's end (but over the room's own window,
// focused) and opens the game when one is clicked; "Stop these" ends this device's pushes; a
// subscription its push service renewed is posted to the server in the old one's place, so the
// pushes go on with no page of the site open.

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

// The player is looking at the room the push is about: its page says whose turn it is.
async function roomInView(url) {
  if (!url) return false;
  const room = new URL(url, self.location.origin);
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  return windows.some((client) => {
    const at = new URL(client.url);
    return client.focused && at.origin === room.origin && at.pathname === room.pathname;
  });
}

async function notify(data) {
  if (await roomInView(data.url)) return;
  // Every notice the server pushes has its title, in its reader's language (notices.send_push); one
  // without (sent by hand) is titled with the site's address, which needs no translation.
  await self.registration.showNotification(data.title || self.location.hostname, {
    body: data.body || "",
    tag: data.tag,
    renotify: Boolean(data.tag),
    icon: "/static/icons/icon-192.png",
    data: { url: data.url || "/games", stop: data.stop },
    // The button's words come with the push, in the reader's language (games/services/notices.py).
    actions: data.stop ? [{ action: "stop", title: data.stop_label || "Stop these" }] : [],
  });
}

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : "" };
  }
  event.waitUntil(notify(data));
});

// The device stops being subscribed even if the server cannot be told now (the phone offline):
// its next push then finds the subscription gone, and the server sends to it no more.
async function stop(url) {
  try {
    await fetch(url, { method: "POST", credentials: "omit" });
  } finally {
    const subscription = await self.registration.pushManager.getSubscription();
    if (subscription) await subscription.unsubscribe();
  }
}

// The room's tab already open is brought forward, whatever its address holds past the room's path
// (a #chat, a query): a second tab of it would be a second connection and a second table.
async function open(url) {
  const target = new URL(url, self.location.origin);
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((client) => {
    const at = new URL(client.url);
    return at.origin === target.origin && at.pathname === target.pathname;
  });
  return open ? open.focus() : self.clients.openWindow(target.href);
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const { url, stop: stopUrl } = event.notification.data || {};
  event.waitUntil(event.action === "stop" && stopUrl ? stop(stopUrl) : open(url || "/games"));
});

// The push service renewed this browser's subscription (Firefox does, on its own schedule): the
// server is sent the new one in the old one's place (games.web.views.notices_push_renew), the old
// one's auth secret showing it is this browser's, as a worker has no CSRF token. A new one is made
// with the old one's key when the event brings none. With no old one nothing shows which to
// replace: the page's next visit posts the subscription (static/js/notify.js).
async function renew(event) {
  const old = event.oldSubscription;
  if (!old) return;
  let made = event.newSubscription;
  const key = old.options?.applicationServerKey;
  if (!made && key) made = await self.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  if (!made) return;
  await fetch(new URL("/notices/push/renew", self.location.origin).href, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ old: old.toJSON(), new: made.toJSON() }),
  });
}

self.addEventListener("pushsubscriptionchange", (event) => event.waitUntil(renew(event)));

// The service worker (served at /sw.js, so its scope is the whole site): it shows the server's
// "your turn" pushes and opens the game when one is clicked; "Stop these" ends this device's pushes.

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : "" };
  }
  event.waitUntil(
    self.registration.showNotification(data.title || "Your turn", {
      body: data.body || "",
      tag: data.tag,
      renotify: Boolean(data.tag),
      icon: "/static/icons/icon-192.png",
      data: { url: data.url || "/games", stop: data.stop },
      // The button's words come with the push, in the reader's language (games/services/notices.py).
      actions: data.stop ? [{ action: "stop", title: data.stop_label || "Stop these" }] : [],
    }),
  );
});

async function stop(url) {
  await fetch(url, { method: "POST", credentials: "omit" });
  const subscription = await self.registration.pushManager.getSubscription();
  if (subscription) await subscription.unsubscribe();
}

async function open(url) {
  const target = new URL(url, self.location.origin).href;
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((client) => client.url === target);
  return open ? open.focus() : self.clients.openWindow(target);
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const { url, stop: stopUrl } = event.notification.data || {};
  event.waitUntil(event.action === "stop" && stopUrl ? stop(stopUrl) : open(url || "/games"));
});

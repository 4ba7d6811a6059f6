// Says what went wrong when the browser refuses a passkey. allauth's own script (webauthn.js)
// only logs the error to the console, so a player saw nothing happen; it dispatches an
// "allauth.error" event first, which this page answers with a message beside the button.
import { fmt, gettext } from "./i18n.js";

const BUTTONS = ["passkey_login", "mfa_webauthn_add", "mfa_webauthn_authenticate", "mfa_webauthn_reauthenticate", "mfa_webauthn_signup"];
let lastButton = null;
for (const id of BUTTONS) {
  document.getElementById(id)?.addEventListener("click", (event) => { lastButton = event.currentTarget; });
}

function numericHost() {
  return /^[\d.]+$/.test(location.hostname) || location.hostname.startsWith("[");
}

function loopback() {
  return /^127\./.test(location.hostname) || location.hostname === "[::1]";
}

function explain(error) {
  const name = error && error.name;
  if (name === "SecurityError" && numericHost()) {
    return fmt(gettext("This browser refuses passkeys at a numeric address such as %(host)s: a passkey belongs to a site's name."), {
      host: location.hostname,
    });
  }
  if (name === "SecurityError") return gettext("This browser refused the passkey for this site (it needs HTTPS, or localhost).");
  if (name === "NotAllowedError") {
    return gettext("The passkey request was cancelled or timed out, or this device has no passkey for this site. Try again, or use your password.");
  }
  if (name === "InvalidStateError") return gettext("This device already has a passkey for your account.");
  if (name === "NotSupportedError") return gettext("This browser or device cannot make passkeys.");
  if (name === "AbortError") return gettext("The passkey request was stopped. Try again.");
  return error && error.message
    ? fmt(gettext("The passkey did not work: %(error)s"), { error: error.message })
    : gettext("The passkey did not work.");
}

function messageBox() {
  let box = document.getElementById("passkey-error");
  if (!box) {
    box = document.createElement("div");
    box.id = "passkey-error";
    box.className = "passkey-error error";
    box.setAttribute("role", "alert");
    const anchor = lastButton?.closest("form, .button-group, p") || lastButton || document.querySelector("main");
    anchor.after(box);
  }
  return box;
}

document.addEventListener("allauth.error", (event) => {
  event.preventDefault(); // said on the page instead of the console
  const error = event.detail && event.detail.exception;
  const box = messageBox();
  const text = document.createElement("p");
  text.textContent = explain(error);
  box.replaceChildren(text);
  if (error && error.name === "SecurityError" && loopback()) {
    const link = document.createElement("a");
    link.href = `${location.protocol}//localhost${location.port ? `:${location.port}` : ""}${location.pathname}${location.search}`;
    link.textContent = gettext("Open this page at localhost");
    const more = document.createElement("p");
    more.append(link, gettext(" (the same server, by name), and try again there."));
    box.append(more);
  }
  box.hidden = false;
});

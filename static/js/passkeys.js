// Says what went wrong when the browser refuses a passkey. allauth's own script (webauthn.js)
// only logs the error to the console, so a player saw nothing happen; it dispatches an
// "allauth.error" event first, which this page answers with a message beside the button.

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
    return "This browser refuses passkeys at a numeric address such as " + location.hostname +
      ": a passkey belongs to a site's name.";
  }
  if (name === "SecurityError") return "This browser refused the passkey for this site (it needs HTTPS, or localhost).";
  if (name === "NotAllowedError") {
    return "The passkey request was cancelled or timed out, or this device has no passkey for this site. " +
      "Try again, or use your password.";
  }
  if (name === "InvalidStateError") return "This device already has a passkey for your account.";
  if (name === "NotSupportedError") return "This browser or device cannot make passkeys.";
  if (name === "AbortError") return "The passkey request was stopped. Try again.";
  return `The passkey did not work${error && error.message ? `: ${error.message}` : "."}`;
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
    link.textContent = "Open this page at localhost";
    const more = document.createElement("p");
    more.append(link, " (the same server, by name), and try again there.");
    box.append(more);
  }
  box.hidden = false;
});

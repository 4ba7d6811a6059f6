// The bubbles over the room's card: a reaction on its seat's name, a name cut short shown whole
// (room.js floatOver). The first draw shows none: room.js fetches this once the page is idle, or
// with the first bubble before that.

/** A bubble with a seat's name (under ``reaction``; without one, the name shown whole) over the
 * seat's ``head`` on the card for a few seconds, or at the top of the screen when that head is out
 * of view, in ``layer``, for ``shownFor`` ms. Its class is set before it is measured to be kept on the screen: the whole name's is wider. */
export function floatOver(layer, head, { seat, name: seatName, reaction = null, lasting = false, shownFor }) {
  const bubble = document.createElement("div");
  bubble.className = reaction ? "reaction-float" : "reaction-float whole-name";
  bubble.dataset.seat = String(seat);
  if (reaction) {
    const face = document.createElement("span");
    face.className = "reaction-face";
    face.textContent = reaction;
    bubble.append(face);
  }
  const name = document.createElement("span");
  name.className = "reaction-name";
  name.textContent = seatName;
  bubble.append(name);
  const box = head?.getBoundingClientRect();
  const pane = head?.closest(".scorecard-wrap")?.getBoundingClientRect();
  const seen = box && pane && box.width > 0 && box.top >= 0 && box.bottom <= window.innerHeight
    && box.left + box.width / 2 >= Math.max(0, pane.left) && box.left + box.width / 2 <= Math.min(window.innerWidth, pane.right);
  if (seen) {
    // Just above the name, kept whole on the screen (the bubble is about 5rem wide, 3.5rem tall).
    bubble.style.left = `${Math.min(Math.max(box.left + box.width / 2, 48), window.innerWidth - 48)}px`;
    bubble.style.top = `${Math.max(box.top + 6, 60)}px`;
  } else {
    bubble.classList.add("docked");
  }
  layer.append(bubble);
  if (seen) {
    // A bubble wider than a reaction's (a long name) stays whole on the screen too.
    const half = bubble.offsetWidth / 2; // as laid out, not as scaled while it pops up
    const at = parseFloat(bubble.style.left);
    bubble.style.left = `${Math.min(Math.max(at, half + 4), window.innerWidth - half - 4)}px`;
  }
  apart(layer, bubble);
  if (lasting) bubble.dataset.keyboard = ""; // shown while its name holds the keyboard (room.js wholeNameHeld)
  else window.setTimeout(() => bubble.remove(), shownFor);
  return bubble;
}

/** The middle and the size of a bubble as laid out: not as scaled while it pops up (about its middle). */
function laidOut(bubble) {
  const r = bubble.getBoundingClientRect();
  return { x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2, w: bubble.offsetWidth, h: bubble.offsetHeight };
}

const covering = (at, there) => Math.abs(at.x - there.x) < (at.w + there.w) / 2 && Math.abs(at.y - there.y) < (at.h + there.h) / 2;

/** A seat's whole name and a reaction never stack: the newer of the two takes the place of the
 * other, the seat's own or one it would cover (a reaction's bubble names its seat too). A seat's
 * new reaction takes the place of its last; the reactions of other seats shown meanwhile are each
 * a different player's and all stay: the newer moves clear of them (clear). */
function apart(layer, bubble) {
  const whole = bubble.classList.contains("whole-name");
  const at = laidOut(bubble);
  for (const other of layer.querySelectorAll(whole ? ".reaction-float:not(.whole-name)" : ".reaction-float.whole-name")) {
    if (other.dataset.seat === bubble.dataset.seat || covering(at, laidOut(other))) other.remove();
  }
  if (whole) return;
  for (const other of layer.querySelectorAll(".reaction-float:not(.whole-name)")) {
    if (other !== bubble && other.dataset.seat === bubble.dataset.seat) other.remove();
  }
  clear(layer, bubble);
}

/** A reaction shown while others are: moved just above the one it would cover over the card (its
 * seat's column still under it), or below it at the top of the screen, or over the card when no
 * room is left above; as often as it covers another. */
function clear(layer, bubble) {
  const docked = bubble.classList.contains("docked");
  const others = [...layer.querySelectorAll(".reaction-float:not(.whole-name)")].filter((b) => b !== bubble);
  for (let moves = 0; moves <= others.length; moves++) {
    const at = laidOut(bubble);
    const hit = others.find((other) => covering(at, laidOut(other)));
    if (!hit) return;
    const there = laidOut(hit);
    const above = there.y - there.h / 2 - 4; // its bottom edge, placed above the other (translate -100%)
    const below = there.y + there.h / 2 + 4; // its top edge, placed below the other
    if (docked) bubble.style.top = `${below}px`;
    else bubble.style.top = `${above - at.h >= 4 ? above : below + at.h}px`;
  }
}

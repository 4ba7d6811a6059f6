// The scorecard, drawn from the sections and rows the server sends (games/domain/scorecard.py).
// The table, the replay and any other page that shows a card draw it here; none of them, and
// not this module either, knows a box by name: a rule set's card is what the server says it is.
// Pure functions from data to HTML text: the page puts the text in place and wires it (and
// calls fitSeatNames, the one function here that measures the card drawn, as it changes;
// updateCard changes a card drawn to another draw's text in place).
// The rows' words are the reader's (static/js/words.js wordRuleset), not the server's English.

import { gettext } from "./i18n.js";
import { wordRuleset } from "./words.js";

export const esc = (text) =>
  String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

/** A seat's name for its column's head, each word that holds a hyphen or a slash ("Anna-Katharina")
 * kept on one line: the desktop card breaks a name over two lines between its words only, and a
 * break at the hyphen ("Anna-" over "Katharin…") left the rest of the name out. */
const headName = (name) => esc(name).replace(/\S*[-\u2010\u2013\u2014\/]\S*/g, (word) => `<span class="name-word">${word}</span>`);

/** A row's name: the full one, and its short form for narrow screens (read out once). */
export function labelHtml(row) {
  const label = esc(row.label);
  if (!row.short) return label;
  return `<span class="long-label">${label}</span><span class="short-label" aria-hidden="true">${esc(row.short)}</span>`;
}

const helpId = (row) => `box-help-${row.box}`;

/** A name with the info mark after its last word, the two one piece (site.css .box-name-end): a
 * line too short for the name and its mark breaks between the words, not before the mark, which
 * on a line of its own stood under the name ("Three of a Kind" over "(i)"). */
const markedName = (text) => {
  const at = text.lastIndexOf(" ") + 1;
  return `${esc(text.slice(0, at))}<span class="box-name-end">${esc(text.slice(at))}<span class="box-mark" aria-hidden="true"></span></span>`;
};

/** A box's name that opens what it scores: labelHtml's names, each ending in its mark. */
function markedLabelHtml(row) {
  if (!row.short) return markedName(row.label);
  return `<span class="long-label">${markedName(row.label)}</span><span class="short-label" aria-hidden="true">${markedName(row.short)}</span>`;
}

/** The card's sections grouped into panes: a section marked `beside` starts a pane of its own. */
export function panesOf(layout) {
  const panes = [];
  for (const section of layout.sections) {
    if (!panes.length || (section.beside && panes.at(-1).length)) panes.push([]);
    panes.at(-1).push(section);
  }
  return panes;
}

/** Every box row of the card in order (what "Round 6 of 13" counts, and the arrow keys walk). */
export function boxRows(layout) {
  return layout.sections.flatMap((section) => section.rows.filter((row) => row.kind === "box"));
}

/**
 * The card as HTML.
 *
 *   ruleset  the state's ruleset: `scorecard` (the layout), `columns`, `multipliers`
 *   seats    [{seat, name, gone, presence}] in the order shown, one group of columns each;
 *            presence ("online" or "away", optional) is shown as a dot by the name
 *   cards    seat -> {columns: [{boxes, upper, ...}], total}; a seat without one shows empty
 *   current  the seat to play (marked in the header), or null
 *   focus    the seat whose columns stay in view, held at the card's edge when it scrolls sideways, or null
 *   just     {seat, box, column}: the box just scored, lit
 *   open     (seat, row, column, index) => {cls, html} | null: how an open box is drawn (the
 *            table's score buttons); null, or no function, draws it empty
 *   caption  what the table is, for screen readers
 *   wrap     the panes may stack when they do not fit side by side (the table keeps them beside)
 */
export function scorecardHtml({ ruleset, seats, cards, current = null, focus = null, just = null, open = null, caption = gettext("Scorecard"), wrap = false }) {
  ruleset = wordRuleset(ruleset);
  const layout = ruleset.scorecard;
  const cols = ruleset.columns;
  const panes = panesOf(layout);
  const width = 1 + cols * seats.length;
  const pinning = seats.length > 1 && cols * seats.length > (panes.length > 1 ? 1 : 3);
  const pin = (seat, k) => (pinning && seat === focus ? ` pin pin-${k}` : "");
  // Which side of the pinned seat another seat's columns are on: its name and its columns stop
  // beside the pinned ones, on that side, as the card scrolls (site.css).
  const pinnedAt = pinning ? seats.findIndex((s) => s.seat === focus) : -1;
  const side = (s) => {
    const at = seats.indexOf(s);
    return pinnedAt < 0 || at === pinnedAt ? "" : at > pinnedAt ? " after-pin" : " before-pin";
  };
  const cardOf = (seat) => cards[seat] ?? null;

  const nameCell = (s) => {
    const cur = s.seat === current;
    const pinned = pinning && s.seat === focus ? ` pin pin-0${cols > 1 ? " pin-span" : ""}` : "";
    return `<th scope="col" ${cols > 1 ? `colspan="${cols}"` : ""} data-seat="${s.seat}" class="seat-head${cur ? " current" : ""}${s.gone ? " gone" : ""}${pinned}${side(s)}" title="${esc(s.name)}">
      <span class="seat-head-name">${cur ? '<span class="turn-mark" aria-hidden="true">▶</span>' : ""}${s.presence ? `<span class="presence ${s.presence}" aria-hidden="true"></span>` : ""}${headName(s.name)}</span>${s.presence ? `<span class="sr-only presence-label"> (${s.presence === "away" ? gettext("away") : gettext("online")})</span>` : ""}${cur ? `<span class="sr-only"> ${gettext("(to play)")}</span>` : ""}</th>`;
  };
  let head = `<tr><th scope="col" class="box-col" ${cols > 1 ? 'rowspan="2"' : ""}>${gettext("Box")}</th>${seats.map(nameCell).join("")}</tr>`;
  if (cols > 1) {
    head += `<tr class="multipliers">${seats
      .map((s) => ruleset.multipliers.map((m, k) => `<th scope="col" class="${s.seat === current ? "current" : ""}${pin(s.seat, k)}${side(s)}"><span class="sr-only">${esc(s.name)} </span>×${m}</th>`).join(""))
      .join("")}</tr>`;
  }

  let index = 0; // each box row's place on the whole card, across panes
  const boxRow = (row) => {
    const at = index++;
    const cells = seats
      .map((s) => {
        const card = cardOf(s.seat);
        return Array.from({ length: cols }, (_, k) => {
          const points = card?.columns[k]?.boxes[row.box];
          if (points !== undefined && points !== null) {
            const lit = just && just.seat === s.seat && just.box === row.box && just.column === k;
            return `<td class="filled${lit ? " just" : ""}${pin(s.seat, k)}">${points}</td>`;
          }
          const drawn = card && open ? open(s.seat, row, k, at) : null;
          return drawn ? `<td class="${drawn.cls}${pin(s.seat, k)}">${drawn.html}</td>` : `<td class="open${pin(s.seat, k)}"></td>`;
        }).join("");
      })
      .join("");
    // The id keeps the keyboard on the name when the card is drawn again (a roll, a score).
    const name = row.help
      ? `<button type="button" class="box-name" id="box-name-${esc(row.box)}" popovertarget="${helpId(row)}" title="${esc(row.help)}">${markedLabelHtml(row)}</button>`
      : labelHtml(row);
    return `<tr data-box="${esc(row.box)}"><th scope="row">${name}</th>${cells}</tr>`;
  };

  const sumRow = (row) => {
    const rules = row.rules ?? [];
    const cellsOf = (value) =>
      seats.map((s) => Array.from({ length: cols }, (_, k) => {
        const col = cardOf(s.seat)?.columns[k];
        return `<td class="${pin(s.seat, k).trim()}">${col ? value(col, k) : ""}</td>`;
      }).join("")).join("");
    let label = labelHtml(row);
    let value = (col) => `${col[row.key]}`;
    if (row.goals) {
      // The ✓ is for the eye; a screen reader reads the words (an aria-label on a plain span
      // has no role to name, and goes unread).
      value = (col, k) => {
        const made = col[row.made] > 0;
        return `${col[row.key]}<span class="goal ${made ? "made" : ""}">/${row.goals[k]}${made ? `<span aria-hidden="true"> ✓</span><span class="sr-only">${gettext(", bonus earned")}</span>` : ""}</span>`;
      };
    } else if (rules.length && cols > 1) {
      value = (col, k) => `${col[row.key]}<small class="bonus-rule">${esc(rules[k])}</small>`;
    } else if (rules.length) {
      label += `<small class="bonus-rule">${esc(rules[0])}</small>`;
    }
    return `<tr class="total${rules.length ? " bonus-row" : ""}" data-sum="${esc(row.key)}"><th scope="row">${label}</th>${cellsOf(value)}</tr>`;
  };

  const totalRow = (row) => {
    const cells = seats
      .map((s) => {
        const pinned = pinning && s.seat === focus ? "pin pin-0 pin-span" : side(s).trim();
        return `<td colspan="${cols}" class="${pinned}"><span class="seat-total">${cardOf(s.seat)?.total ?? ""}</span></td>`;
      })
      .join("");
    return `<tr class="total grand" data-sum="grand"><th scope="row">${labelHtml(row)}</th>${cells}</tr>`;
  };

  const sectionHtml = (section) => {
    const heading = section.heading
      ? `<tr class="section"><th scope="rowgroup" colspan="${width}"><span class="section-name">${esc(section.label)}</span></th></tr>`
      : "";
    const rows = section.rows.map((row) => (row.kind === "box" ? boxRow(row) : row.kind === "total" ? totalRow(row) : sumRow(row)));
    return `<tbody data-section="${esc(section.name)}">${heading}${rows.join("")}</tbody>`;
  };

  // Column widths a narrow pane keeps to (site.css), whatever a name or a sum would stretch them to.
  const colgroup = `<colgroup><col class="name-col">${seats.map(() => `<col class="seat-col"${cols > 1 ? ` span="${cols}"` : ""}>`).join("")}</colgroup>`;
  const tables = panes.map((pane, p) => {
    const named = pane.find((section) => section.heading);
    const what = p && named ? `${caption} (${named.label})` : caption;
    return `<div class="scorecard-wrap" tabindex="-1"><table class="scorecard${cols > 1 ? " triple" : ""} seats-${seats.length}${panes.length > 1 ? " in-panes" : ""}">
      <caption class="sr-only">${esc(what)}</caption>${colgroup}
      <thead>${head}</thead>${pane.map(sectionHtml).join("")}</table></div>`;
  });
  const helps = boxRows(layout)
    .filter((row) => row.help)
    .map((row) => `<div class="box-help" id="${helpId(row)}" popover><strong>${esc(row.label)}</strong> ${esc(row.help)}
      <button type="button" class="box-help-close" id="${helpId(row)}-close" popovertarget="${helpId(row)}" popovertargetaction="hide" aria-label="${gettext("Close")}">×</button></div>`)
    .join("");
  return `<div class="scorecard-panes panes-${panes.length}${wrap ? " wrap" : ""}">${tables.join("")}</div>${helps}`;
}

/**
 * Draws a card anew in ``root`` by ``draw`` (which returns false when it drew nothing): each
 * sideways scroll stays where its reader left it (a redraw would bring it back to its left
 * edge), and the other seats' names are fitted to their columns in view. Whether it drew.
 */
export function redrawCard(root, draw) {
  const scrolled = [...root.querySelectorAll(".scorecard-wrap")].map((wrap) => wrap.scrollLeft);
  if (draw() === false) return false;
  root.querySelectorAll(".scorecard-wrap").forEach((wrap, k) => {
    wrap.scrollLeft = scrolled[k] ?? 0;
  });
  fitSeatNames(root);
  return true;
}

/**
 * What the card's own functions set on a card drawn (fitSeatNames' widths and fades, a page's
 * scroll regions and the names a tap shows whole): no draw's markup has them, and updateCard
 * leaves them to those functions, which set each again after it as on a card drawn anew (a
 * cut name's class, set only where a name is cut, goes with the draw's class).
 */
const OWN_ATTRIBUTES = new Set(["style", "role", "aria-label", "id", "tabindex"]);
const OWN_CLASSES = new Set(["more-after"]);

/**
 * Updates the card drawn in ``root`` to ``html``, the markup of another state of the same card,
 * changing only what differs: a cell's text, a head's class, a sum's bonus mark. A card drawn
 * anew has every cell styled and laid out again, most of a replay's step on eight players' card.
 * Each element kept is the same node, so the keyboard's place, an open popover and a sideways
 * scroll stay as they were; the markup is the one ``root.innerHTML = html`` would give, and the
 * card's own functions then set their attributes on it as on a card drawn anew. An element
 * whose kind, children's kinds or attributes' names differ from the new draw's is replaced by
 * the new one, which keeps the draw's order of attributes.
 */
export function updateCard(root, html) {
  const fresh = document.createElement("template");
  fresh.innerHTML = html;
  updateChildren(root, fresh.content);
}

function updateChildren(old, fresh) {
  const was = [...old.childNodes];
  const now = [...fresh.childNodes];
  if (was.length !== now.length || now.some((node, k) => node.nodeName !== was[k].nodeName)) {
    old.replaceChildren(...now);
    return;
  }
  now.forEach((node, k) => updateNode(was[k], node));
}

function updateNode(old, fresh) {
  if (old.nodeType !== Node.ELEMENT_NODE) {
    if (old.nodeValue !== fresh.nodeValue) old.nodeValue = fresh.nodeValue;
    return;
  }
  if (!sameAttributes(old, fresh)) {
    old.replaceWith(fresh);
    return;
  }
  for (const { name, value } of fresh.attributes) {
    if (old.getAttribute(name) === value) continue;
    if (name === "class" && ownClassesLeft(old) === value) continue;
    old.setAttribute(name, value);
  }
  updateChildren(old, fresh);
}

/** Whether ``old`` has the attributes of ``fresh``, in its order, and others only of its own. */
function sameAttributes(old, fresh) {
  const was = old.attributes;
  const now = fresh.attributes;
  let k = 0;
  for (let i = 0; i < was.length; i++) {
    const name = was[i].name;
    if (k < now.length && now[k].name === name) k++;
    else if (!OWN_ATTRIBUTES.has(name) || fresh.hasAttribute(name)) return false;
  }
  return k === now.length;
}

/** ``el``'s class without the card's own classes. */
const ownClassesLeft = (el) => [...el.classList].filter((c) => !OWN_CLASSES.has(c)).join(" ");

/**
 * Another seat's name on a card that scrolls beside a pinned seat (a phone's Triple card): as
 * wide as its columns in view, which site.css keeps it over (--seen on its head). Two columns
 * in view show "Ann" whole where one column's width cut it to its markers; a name still cut
 * loses its markers (markCutNames), so one column shows its letters. Called once the card is
 * drawn; keepSeatNamesFitted calls it again as the card scrolls or the window resizes. Each step
 * measures all its names, then writes: a read after a write lays the page out again.
 */
export function fitSeatNames(root) {
  root.querySelectorAll(".scorecard-wrap").forEach((wrap, pane) => {
    fitWidths(wrap);
    markCutNames(wrap);
    markMore(wrap);
    if (root.hasAttribute("data-whole-names")) markWholeNames(wrap, pane);
  });
}

/**
 * On a card whose cut names show whole on a tap (the room's, ``data-whole-names``), a seat's name
 * cut in its head is a button for the keyboard too (room.js shows it whole on Enter or Space), with
 * an id the page's redraws give the focus back by; a name that fits is no tab stop. Its words are
 * the whole name, which a screen reader reads.
 */
function markWholeNames(wrap, pane) {
  const heads = wrap.querySelectorAll("th.seat-head");
  // A name with no room at all (its columns out of view) is not on the screen to show; one with
  // lines past its last (a clamp's) shows less of it, as one too wide does.
  const names = [...wrap.querySelectorAll(".seat-head-name")];
  const wide = lettersCut(names);
  const cut = new Set(names.filter((name, k) => name.clientWidth > 0 && (wide[k] || name.scrollHeight > name.clientHeight + 1)));
  for (const head of heads) {
    const name = head.querySelector(".seat-head-name");
    if (!name) continue;
    if (cut.has(name)) {
      name.id = `whole-name-${pane}-${head.dataset.seat}`;
      name.setAttribute("role", "button");
      name.tabIndex = 0;
    } else if (name.hasAttribute("tabindex")) {
      name.removeAttribute("id");
      name.removeAttribute("role");
      name.removeAttribute("tabindex");
    }
  }
}

/** Less than the layout's least step (1/64 px): a box's edges given in CSS pixels (a padding of
 * 0.1rem is 1.6px, laid out as 1.59375) are off from the letters' by no more. */
const LETTERS_SLACK = 0.01;

/**
 * Whether each of ``names`` (seats' names in their heads) has letters past its content box: by as
 * little as part of a pixel, the browser shows an ellipsis there, which scrollWidth and
 * clientWidth (whole pixels) round away. Its text's boxes, not the marks' (the presence dot may
 * sit in the head's corner, out of the name's box). Reads the page only, all the names at once:
 * a write between two reads would lay the card out again for each name.
 */
function lettersCut(names) {
  const range = document.createRange();
  return names.map((name) => {
    const box = name.getBoundingClientRect();
    if (!box.width) return false;
    const style = getComputedStyle(name);
    const left = box.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft) - LETTERS_SLACK;
    const right = box.right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight) + LETTERS_SLACK;
    const texts = document.createTreeWalker(name, NodeFilter.SHOW_TEXT);
    for (let text = texts.nextNode(); text; text = texts.nextNode()) {
      range.selectNodeContents(text);
      for (const r of range.getClientRects()) if (r.width > 0 && (r.left < left || r.right > right)) return true;
    }
    return false;
  });
}

/** A card with columns past its right edge, not scrolled to its end: ``more-after``, which
 * site.css shows as that edge fading out. The fade is never wider than what is past the edge
 * (--fade-w: a card a pixel or two too wide would fade half its last seat's column for them), and
 * where the focus seat's columns are pinned at that edge it fades the columns going under them
 * (--fade-at), not the pinned ones: they are the player's own, with the boxes to score. */
function markMore(wrap) {
  const past = wrap.scrollWidth - wrap.clientWidth - Math.abs(wrap.scrollLeft);
  wrap.classList.toggle("more-after", past > 1);
  // Written at every fit, nothing past the edge as no fade: a card updated in place
  // (updateCard) has what one drawn anew has, and its attributes in that order.
  let fadeAt = 0;
  if (past > 1) {
    const box = wrap.getBoundingClientRect();
    const edge = box.left + wrap.clientLeft + wrap.clientWidth - parseFloat(getComputedStyle(wrap).paddingRight || "0");
    const atEdge = [...wrap.querySelectorAll("thead th.pin")]
      .map((th) => th.getBoundingClientRect())
      .filter((r) => r.width && r.right >= edge - 2);
    const from = atEdge.length ? Math.min(...atEdge.map((r) => r.left)) : box.right;
    fadeAt = Math.max(0, Math.round(box.right - from));
  }
  setVar(wrap, "--fade-at", `${fadeAt}px`);
  setVar(wrap, "--fade-w", `${past > 1 ? Math.round(Math.min(past, 24)) : 0}px`);
}

/** A custom property of ``el``'s own style, written only when it changes (a write is a new style). */
const setVar = (el, name, value) => el.style.getPropertyValue(name) === value || el.style.setProperty(name, value);

/** The names of the seats beside the pinned one as wide as their columns in view (--seen). */
function fitWidths(wrap) {
  // A head no longer beside the pinned seat (the pinned seat changed, a card updated in place)
  // loses its width, as a card drawn anew has none there.
  for (const head of wrap.querySelectorAll("th.seat-head[style]:not(.after-pin, .before-pin)")) {
    head.style.removeProperty("--seen");
    if (!head.style.length) head.removeAttribute("style");
  }
  const pinned = [...wrap.querySelectorAll("tr.multipliers th.pin")].map((th) => th.getBoundingClientRect());
  const heads = wrap.querySelectorAll("th.seat-head:is(.after-pin, .before-pin)");
  const box = wrap.getBoundingClientRect();
  if (!pinned.length || !heads.length || !box.width) return; // not laid out (hidden): as drawn
  const from = wrap.querySelector("th.box-col")?.getBoundingClientRect().right ?? box.left;
  const to = box.left + wrap.clientLeft + wrap.clientWidth;
  const pinFrom = Math.min(...pinned.map((r) => r.left));
  const pinTo = Math.max(...pinned.map((r) => r.right));
  const seen = [...heads].map((head) => {
    const r = head.getBoundingClientRect();
    const px = head.classList.contains("before-pin")
      ? Math.min(r.right, pinFrom, to) - Math.max(r.left, from)
      : Math.min(r.right, to) - Math.max(r.left, pinTo, from);
    return `${Math.max(0, Math.round(px))}px`;
  });
  // Unchanged (a scroll within a column), not written: nothing to lay out again.
  heads.forEach((head, k) => head.style.getPropertyValue("--seen") === seen[k] || head.style.setProperty("--seen", seen[k]));
}

/**
 * A seat's name cut in its head on a card that scrolls sideways (a phone's, beside a pinned
 * seat): marked ``name-cut``, and site.css then leaves out the turn's mark and the presence dot
 * before it, which took the room of its letters ("▶ ● D…"): the head's underline says whose
 * turn it is, the Players list who is away. A name that fits keeps its marks.
 */
function markCutNames(wrap) {
  if (!wrap.querySelector(".pin") || !wrap.getBoundingClientRect().width) return; // no sideways scroll, or hidden: as drawn
  const names = [...wrap.querySelectorAll(".seat-head-name")].filter((name) => name.querySelector(".turn-mark, .presence"));
  names.forEach((name) => name.parentElement.classList.remove("name-cut")); // measured with its marks
  // A name with no room at all (a seat whose columns are all out of view) shows nothing either way.
  const wide = lettersCut(names);
  const cut = names.map((name, k) => name.clientWidth > 0 && wide[k]);
  names.forEach((name, k) => cut[k] && name.parentElement.classList.add("name-cut"));
}

/** Keeps fitSeatNames' widths as the cards in `section` scroll sideways, or it resizes (a phone
 * turned, the section shown). */
export function keepSeatNamesFitted(section) {
  const fit = () => fitSeatNames(section);
  // A scroll does not bubble: the section hears its cards' scrolls as they are captured.
  section.addEventListener("scroll", fit, { capture: true, passive: true });
  new ResizeObserver(fit).observe(section);
}

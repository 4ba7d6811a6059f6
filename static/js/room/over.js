// The game-over panel: the ranking, the coach's review, the rematch and the result to share.
// Loaded once the room's page is drawn (static/js/room.js ``later``), or with the page when the
// game is already over: a game in play never draws it, and the first load is kept small.

import { fmt, gettext, list, ngettext, number } from "../i18n.js";
import { esc } from "../scorecard.js";
import { playerName } from "../words.js";
import { isolated, leftTag, yourResult } from "./render.js";

/** The final order, as the server ranks it (the state's `ranks`: games/domain/room.py Room.ranks,
 * which the records, the game-over notice and the page without script follow too): the best first,
 * seats sharing a place in turn order. Each row says whether its seat left (or the host took it out:
 * `gave_up`, a computer may have played it on) or a computer finished it for its away player: both
 * rank after every seat that stayed, whatever their totals, and the list says why. */
export function ranking(state) {
  const seats = state.seats ?? [];
  const ranks = state.ranks ?? [];
  const left = (seat) => {
    const s = seats[seat];
    return Boolean(s?.gave_up) || (s?.status !== undefined && s.status !== "active");
  };
  const kept = (seat) => Boolean(seats[seat]?.kept) && !left(seat);
  const rows = state.cards.map((card) => ({ seat: card.seat, total: card.total, rank: ranks[card.seat], left: left(card.seat), kept: kept(card.seat) }));
  // A state of a server of the release before (a rolling deploy) has no `ranks`: its order as
  // Room.ranks gives it, but for a game every person left, which that ranks by when they left.
  if (!rows.every((row) => Number.isInteger(row.rank))) {
    const group = (row) => (row.left ? 2 : row.kept ? 1 : 0);
    const ahead = (a, b) => group(a) < group(b) || (group(a) === group(b) && a.total > b.total);
    for (const row of rows) row.rank = 1 + rows.filter((other) => ahead(other, row)).length;
  }
  return rows.sort((a, b) => a.rank - b.rank || a.seat - b.seat);
}

/** The result as a player shares it, in plain text: the rule set and each seat's place and total
 * ("A game of Yatzy: 1. Ann 287, 2. Bob 241"); the replay's address goes beside it. A seat ranked
 * behind for leaving (or being taken out), or for being away at the end, is marked so, as the game-over list marks it:
 * without it, a reader takes "2. Ann 180, 3. Bob 201" for a mistake. */
export function resultText(view) {
  const places = ranking(view.state).map((row) => {
    const place = { rank: row.rank, name: view.seatName(row.seat), points: row.total };
    const tag = row.left ? leftTag(view.state.seats[row.seat]) : row.kept ? gettext("away") : "";
    return tag
      ? fmt(gettext("%(rank)s. %(name)s %(points)s (%(tag)s)"), { ...place, tag })
      : fmt(gettext("%(rank)s. %(name)s %(points)s"), place);
  });
  return fmt(gettext("A game of %(ruleset)s: %(places)s"), { ruleset: view.state.ruleset.label, places: places.join(", ") });
}

export function overHtml(view) {
  const { state } = view;
  const winners = state.winners.map(view.seatName);
  let headline = state.status === "abandoned" ? gettext("Game abandoned") : gettext("Game over");
  let sub = "";
  if (state.status === "finished" && winners.length) {
    // Each name a run of its own: two right-to-left names in a row keep their order.
    const named = winners.map((name) => `<bdi>${esc(name)}</bdi>`);
    sub = winners.length > 1 ? fmt(gettext("A tie! %(names)s share the win."), { names: list(named) }) : fmt(gettext("%(name)s wins!"), { name: named[0] });
    if (yourResult(view)) headline = winners.length > 1 ? gettext("You share the win!") : gettext("You win!");
  }
  const rows = ranking(state);
  // A seat the computer finished for its away player may hold the best total and still rank behind:
  // its "away" tag alone leaves its player, back after the end, to take the order for a mistake.
  const keptNote = rows.some((row) => row.kept)
    ? `<p class="muted ranking-note">${gettext("A seat the computer finished for a player who was away ranks after those who stayed, whatever its total.")}</p>`
    : "";
  // Each seat this device plays is marked as in the seats list: among eight names, a reader (or the
  // three sharing a phone) finds their own place at a glance. A seat a computer finished for its
  // away player is still theirs (its result counts as theirs). A device that played every seat
  // marks none: a "you" on each row tells no one their place, and takes a long name's width.
  const yours = (seat) => view.isMine(seat) || view.awaySeats.includes(seat);
  const marked = rows.some((row) => !yours(row.seat));
  const ranked = rows
    .map(
      (row) => `<li class="${state.winners.includes(row.seat) ? "winner" : ""}"><span class="rank">${row.rank}.</span>
      <span class="seat-name">${esc(view.seatName(row.seat))}</span>${marked && yours(row.seat) ? ` <span class="tag you">${gettext("you")}</span>` : ""}${state.winners.includes(row.seat) ? ` <span class="tag turn">${gettext("winner")}</span>` : ""}${row.left ? ` <span class="tag">${leftTag(state.seats[row.seat])}</span>` : ""}${row.kept ? ` <span class="tag away">${gettext("away")}</span>` : ""}
      <span class="seat-total">${row.total}</span></li>`,
    )
    .join("");
  let rematch = "";
  // Both post this browser's seed for the dice, which its seats in the rematch take if it has not
  // started yet (docs/fairness.md): the rematch's page keeps it then (static/js/seed.js).
  const rematchForm = (id, label) => `<form method="post" action="${view.rematchUrl}">
      <input type="hidden" name="csrfmiddlewaretoken" value="${esc(view.csrf)}">
      <input type="hidden" name="client_seed" value="${esc(view.rematchSeed ?? "")}">
      <button class="btn btn-primary btn-big" id="${id}" type="submit">${label}</button></form>`;
  // A player whose seat a computer finished while they were away is one of the players too.
  const player = view.mine.length > 0 || view.awaySeats.length > 0;
  if (state.rematch && player) {
    rematch = rematchForm("rematch-link", gettext("Join the rematch"));
  } else if (typeof state.rematch === "string") {
    // A spectator of a public room may follow; a private room's rematch is its players' alone (its code is not sent).
    rematch = `<a class="btn btn-primary btn-big" id="rematch-link" href="/r/${esc(state.rematch)}/">${gettext("Join the rematch")}</a>`;
  } else if (player) {
    rematch = rematchForm("rematch", gettext("Rematch"));
  } else if (state.rematch) {
    // The feed says a rematch is open: the spectator is told why there is nothing here to follow.
    rematch = `<p class="muted" id="rematch-private">${gettext("The players went on to a rematch of their own: ask them for its link to watch it.")}</p>`;
  }
  // The seed this browser sent for its seats (docs/fairness.md: find it in the game's client_seed).
  const yourSeed = view.sentSeed && player && state.fairness.client_seed
    ? ` ${fmt(gettext("Your browser's seed: %(seed)s."), { seed: `<code id="your-seed">${esc(view.sentSeed)}</code>` })}`
    : "";
  // The revealed seed against the commitment this browser saw when it sent its seed, not only the
  // one the server publishes now: a server that chose its seed after seeing the players' seeds
  // would publish that seed's commitment, and only what the browser kept tells them apart.
  let seen = "";
  if (view.seenCommitment && view.revealedCommitment && player) {
    seen = view.revealedCommitment === view.seenCommitment
      ? `<p class="fair-seen ok" id="seen-commitment">✓ ${gettext("The server's seed matches the commitment this browser saw before the game.")}</p>`
      : `<p class="fair-seen bad" id="seen-commitment" role="alert">✗ ${fmt(gettext("Warning: the server's seed does NOT match the commitment this browser saw before the game (%(commitment)s). The server may have chosen its seed after seeing the players' seeds: these dice cannot be trusted."), {
        commitment: `<code>${esc(view.seenCommitment.slice(0, 16))}…</code>`,
      })}</p>`;
  }
  const replay = state.replay_url ? `<a class="btn" id="replay-link" href="${esc(state.replay_url)}">${gettext("Watch the replay")}</a>` : "";
  // The device's share sheet where the browser offers one (a phone's messages and chat apps), else the clipboard.
  const share = state.replay_url
    ? `<button class="btn" id="share-result" type="button">${view.resultCopied ? gettext("Copied!") : view.canShare ? gettext("Share the result") : gettext("Copy the result")}</button>`
    : "";
  return `<h2 id="over-h" tabindex="-1">${headline}</h2>${sub ? `<p class="winner-line">${sub}</p>` : ""}
    <ol class="ranking">${ranked}</ol>${keptNote}
    <div id="review" class="review">${reviewHtml(view)}</div>
    <div class="over-actions">${rematch}${replay}${share}<a class="btn" href="/">${gettext("New game")}</a></div>
    <p class="muted fair-over">${fmt(gettext("Fair dice: the server's seed was %(seed)s."), { seed: `<code>${esc(state.fairness.server_seed ?? "")}</code>` })}
      ${gettext("Its SHA-256 was shown from the start.")}${yourSeed} <a href="${view.fairnessUrl}">${gettext("Verify every roll")}</a>
      · <a href="${view.logUrl}">${gettext("download the roll log")}</a></p>${seen}`;
}

const COSTLIEST = 3; // a player's choices shown on the game-over panel; the replay lists every one

/** A costly choice: what was done, what the coach would have done, the points it cost; a link to it in the replay. */
function costlyHtml(view, choice) {
  const href = `${esc(view.state.replay_url ?? "")}#move-${Number(choice.move)}`;
  const where = choice.kind === "keep"
    ? fmt(gettext("Round %(round)s, roll %(roll)s"), { round: choice.round, roll: choice.roll })
    : fmt(gettext("Round %(round)s"), { round: choice.round });
  const said = fmt(gettext("%(where)s, dice %(dice)s: chose %(chosen)s; the coach's choice: %(best)s; %(lost)s points lost. See it in the replay"), {
    where, dice: choice.dice.join(" "), chosen: choice.chosen, best: choice.best, lost: number(choice.lost, 1),
  });
  return `<li><a class="costly-choice" href="${href}" aria-label="${esc(said)}">
      <span class="costly-where">${where} · <span class="costly-dice">${esc(choice.dice.join(" "))}</span></span>
      <span class="costly-lost">−${number(choice.lost, 1)}</span>
      <span class="costly-did"><span class="costly-label">${gettext("Chose")}</span> <span class="costly-text">${esc(choice.chosen)}</span></span>
      <span class="costly-best"><span class="costly-label">${gettext("Coach")}</span> <span class="costly-text">${esc(choice.best)}</span></span></a></li>`;
}

export function reviewHtml(view) {
  const { review, state } = view;
  if (!review) return "";
  if (review.message) return `<h3>${gettext("Coach's review")}</h3><p class="muted">${esc(review.message)}</p>`;
  let linked = false;
  const shown = review.seats.filter((s) => s.choices > 0 && (s.kind !== "bot" || s.lost > 0));
  // Each player's costliest choices fold under their line: eight players' lists would make the
  // panel thousands of pixels tall on a phone. The reader's own list is open (a browser of one
  // seat; a shared device's players each open theirs), and a lone player's too.
  const opened = (seat) => shown.length === 1 || view.isYourResult(seat);
  const lines = shown
    .map((s) => {
      const you = view.isYourResult(s.seat);
      // The name a run of its own: a right-to-left one, or one ending in a number, takes the
      // figures beside it into its run ("שרה 2 lost 4.5 points").
      const shownName = playerName(s.name);
      const name = `<bdi>${esc(shownName)}</bdi>`;
      let text;
      // What the choices cost, not "lost": at the end of a game, "You lost 128.5 points" reads as
      // the game lost. The figure is every choice's loss, small ones too; the count, the costly ones.
      if (s.mistakes === 0 && s.like_solver === false) {
        // No single choice was costly, but small losses added up: the total is worth telling.
        text = you
          ? fmt(gettext("Your choices cost about %(lost)s points against the coach's play, a little at a time: none of them was costly."), { lost: number(s.lost, 1) })
          : fmt(gettext("%(name)s's choices cost about %(lost)s points against the coach's play, a little at a time: none of them was costly."), { name, lost: number(s.lost, 1) });
      } else if (s.mistakes === 0) {
        text = you
          ? fmt(ngettext("You played like the solver: no costly choice in %(n)s choice.", "You played like the solver: no costly choice in %(n)s choices.", s.choices), { n: s.choices })
          : fmt(ngettext("%(name)s played like the solver: no costly choice in %(n)s choice.", "%(name)s played like the solver: no costly choice in %(n)s choices.", s.choices), { name, n: s.choices });
      } else {
        text = you
          ? fmt(ngettext("Your choices cost about %(lost)s points against the coach's play; %(n)s of them was costly.", "Your choices cost about %(lost)s points against the coach's play; %(n)s of them were costly.", s.mistakes), { lost: number(s.lost, 1), n: s.mistakes })
          : fmt(ngettext("%(name)s's choices cost about %(lost)s points against the coach's play; %(n)s of them was costly.", "%(name)s's choices cost about %(lost)s points against the coach's play; %(n)s of them were costly.", s.mistakes), { name, lost: number(s.lost, 1), n: s.mistakes });
      }
      // The costliest first; a computer's own play gets its line, not a list. A seat a computer
      // finished for its person is "human" here: the review judges only the person's choices.
      const worst = s.kind === "bot" ? [] : [...(s.costly ?? [])].sort((a, b) => b.lost - a.lost).slice(0, COSTLIEST);
      const list = worst.length && state.replay_url
        ? `<ol class="costly-list" aria-label="${esc(fmt(gettext("%(name)s's costliest choices"), { name: isolated(shownName) }))}">${worst.map((c) => costlyHtml(view, c)).join("")}</ol>`
        : "";
      linked ||= Boolean(list);
      if (!list) return `<li><p class="review-line">${text}</p></li>`;
      return `<li><details class="review-fold" id="review-seat-${Number(s.seat)}"${opened(s.seat) ? " open" : ""}><summary class="review-line" id="review-seat-${Number(s.seat)}-h">${text}</summary>${list}</details></li>`;
    })
    .join("");
  const estimated = review.note ? ` ${esc(review.note)}` : "";
  return `<h3>${gettext("Coach's review")}</h3><ul class="review-list">${lines}</ul>
    <p class="muted small">${linked ? gettext("Expected points each choice gave up against perfect play: pick one to see it in the replay.") : gettext("Expected points each choice gave up against perfect play.")}${estimated}</p>`;
}

let sharing = false; // a share sheet asked for and not closed yet
let copiedTimer = null;
/** A finished game's result, shared through the device's share sheet, or copied where there is none.
 * ``page``: the room page's ``copied``, ``toast`` and ``announce``, and ``showCopied(on)``, which
 * draws the panel with its button saying the result is copied, or what it does. */
export async function shareResult(view, page) {
  const text = resultText(view);
  const url = new URL(view.state.replay_url, window.location.href).href;
  if (view.canShare) {
    // A second tap while the sheet comes up (a phone's is slow to): the browser refuses a second
    // share, which is no browser that will not share, and the clipboard is left as it is.
    if (sharing) return;
    sharing = true;
    try {
      await navigator.share({ title: document.title, text, url });
      return;
    } catch (error) {
      // Closing the share sheet is no failure; a browser that would not share copies instead.
      if (error?.name === "AbortError") return;
    } finally {
      sharing = false;
    }
  }
  if (!(await page.copied(`${text}\n${url}`))) {
    page.toast(gettext("The browser did not let the page copy the result."), "info");
    return;
  }
  // "Copied!" for a moment, drawn with the panel: a redraw meanwhile (the coach's review arriving)
  // says it too. Then the button says what it does again.
  page.showCopied(true);
  page.announce(gettext("The result is copied, with the replay's link: paste it where you like."));
  window.clearTimeout(copiedTimer);
  copiedTimer = window.setTimeout(() => page.showCopied(false), 2000);
}

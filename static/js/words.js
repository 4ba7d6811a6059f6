// What the server's codes mean in the reader's language: box names per rule set (as players of
// that game say them: "Et par" in Danish Yatzy, "Kniffel" in German Yahtzee), the card's sums,
// the rule sets and the dice colours (the error codes: room/errors.js). The server sends the same
// frame to every player of a room; each page words it here for its own reader.

import { fmt, gettext, pgettext } from "./i18n.js";

// The longest chat message the server takes, in code points (games/services/chat.py CHAT_MAX).
export const CHAT_MAX = 300;

// xgettext reads the literal strings below into the catalogs (makemessages -d djangojs), so
// every name is written out, once per game family: players of each name its boxes their way.
const YAHTZEE_BOXES = {
  ones: pgettext("Yahtzee box", "Ones"),
  twos: pgettext("Yahtzee box", "Twos"),
  threes: pgettext("Yahtzee box", "Threes"),
  fours: pgettext("Yahtzee box", "Fours"),
  fives: pgettext("Yahtzee box", "Fives"),
  sixes: pgettext("Yahtzee box", "Sixes"),
  three_of_a_kind: pgettext("Yahtzee box", "Three of a Kind"),
  four_of_a_kind: pgettext("Yahtzee box", "Four of a Kind"),
  full_house: pgettext("Yahtzee box", "Full House"),
  small_straight: pgettext("Yahtzee box", "Small Straight"),
  large_straight: pgettext("Yahtzee box", "Large Straight"),
  yahtzee: pgettext("Yahtzee box", "Yahtzee"),
  chance: pgettext("Yahtzee box", "Chance"),
  red: pgettext("Yahtzee box", "Red"),
  yellow: pgettext("Yahtzee box", "Yellow"),
  green: pgettext("Yahtzee box", "Green"),
  blue: pgettext("Yahtzee box", "Blue"),
  purple: pgettext("Yahtzee box", "Purple"),
  four_colour: pgettext("Yahtzee box", "Four of a Colour"),
  painted_house: pgettext("Yahtzee box", "Painted House"),
  rainbow: pgettext("Yahtzee box", "Rainbow"),
  flush: pgettext("Yahtzee box", "Flush"),
  palette: pgettext("Yahtzee box", "Palette"),
};
const YAHTZEE_SHORT = {
  three_of_a_kind: pgettext("Yahtzee box, short", "3 of a kind"),
  four_of_a_kind: pgettext("Yahtzee box, short", "4 of a kind"),
  full_house: pgettext("Yahtzee box, short", "Full house"),
  small_straight: pgettext("Yahtzee box, short", "Small str."),
  large_straight: pgettext("Yahtzee box, short", "Large str."),
  four_colour: pgettext("Yahtzee box, short", "4 of a colour"),
  painted_house: pgettext("Yahtzee box, short", "Painted house"),
};
const YATZY_BOXES = {
  ones: pgettext("Yatzy box", "Ones"),
  twos: pgettext("Yatzy box", "Twos"),
  threes: pgettext("Yatzy box", "Threes"),
  fours: pgettext("Yatzy box", "Fours"),
  fives: pgettext("Yatzy box", "Fives"),
  sixes: pgettext("Yatzy box", "Sixes"),
  one_pair: pgettext("Yatzy box", "One Pair"),
  two_pairs: pgettext("Yatzy box", "Two Pairs"),
  three_of_a_kind: pgettext("Yatzy box", "Three of a Kind"),
  four_of_a_kind: pgettext("Yatzy box", "Four of a Kind"),
  small_straight: pgettext("Yatzy box", "Small Straight"),
  large_straight: pgettext("Yatzy box", "Large Straight"),
  full_house: pgettext("Yatzy box", "Full House"),
  chance: pgettext("Yatzy box", "Chance"),
  yahtzee: pgettext("Yatzy box", "Yatzy"),
};
const YATZY_SHORT = {
  one_pair: pgettext("Yatzy box, short", "1 pair"),
  two_pairs: pgettext("Yatzy box, short", "2 pairs"),
  three_of_a_kind: pgettext("Yatzy box, short", "3 of a kind"),
  four_of_a_kind: pgettext("Yatzy box, short", "4 of a kind"),
  small_straight: pgettext("Yatzy box, short", "Small str."),
  large_straight: pgettext("Yatzy box, short", "Large str."),
  full_house: pgettext("Yatzy box, short", "Full house"),
};

const YAHTZEE_HELP = {
  three_of_a_kind: gettext("At least three dice of one value: the sum of all five dice."),
  four_of_a_kind: gettext("At least four dice of one value: the sum of all five dice."),
  full_house: gettext("Three dice of one value and two of another: 25 points."),
  small_straight: gettext("Four values in a row (1-2-3-4, 2-3-4-5 or 3-4-5-6): 30 points."),
  large_straight: gettext("Five values in a row (1-2-3-4-5 or 2-3-4-5-6): 40 points."),
  yahtzee: gettext("Five dice of one value: 50 points."),
  chance: gettext("Any dice: the sum of all five."),
  red: gettext("The values of the red dice, added up."),
  yellow: gettext("The values of the yellow dice, added up."),
  green: gettext("The values of the green dice, added up."),
  blue: gettext("The values of the blue dice, added up."),
  purple: gettext("The values of the purple dice, added up."),
  four_colour: gettext("At least four dice of one colour: the sum of all five dice."),
  painted_house: gettext("Three dice of one colour and two of another colour: 25 points."),
  rainbow: gettext("Five dice of five different colours: 40 points."),
  flush: gettext("All five dice of one colour: 50 points."),
  palette: gettext("Any dice: the sum of all five (a Chance for the colour section)."),
};
const YATZY_HELP = {
  one_pair: gettext("Two dice of one value: the sum of those two (the highest pair)."),
  two_pairs: gettext("Two pairs of different values: the sum of those four dice."),
  three_of_a_kind: gettext("Three dice of one value: the sum of those three."),
  four_of_a_kind: gettext("Four dice of one value: the sum of those four."),
  full_house: gettext("Three dice of one value and two of another: the sum of all five."),
  small_straight: gettext("Exactly 1-2-3-4-5: 15 points."),
  large_straight: gettext("Exactly 2-3-4-5-6: 20 points."),
  yahtzee: gettext("Five dice of one value: 50 points."),
  chance: gettext("Any dice: the sum of all five."),
};

const RULESETS = {
  official: [gettext("Yahtzee (official)"), gettext("Hasbro rules: 13 boxes, +100 for each extra Yahtzee, and the forced joker.")],
  free_joker: [gettext("Yahtzee (free joker)"), gettext("House rules: an extra Yahtzee may go in any open box; +100 bonus as official.")],
  yeti: [gettext("Yahtzee (one Yahtzee)"), gettext("No Yahtzee bonus and no joker; five of a kind also counts as a Full House.")],
  triple: [gettext("Triple Yahtzee"), gettext("Three columns scoring ×1, ×2 and ×3: 39 turns each, bigger bonuses.")],
  yatzy: [gettext("Yatzy (Scandinavian)"), gettext("15 boxes with pairs, fixed straights and a 50-point upper bonus; no joker.")],
  painted: [gettext("Painted Yahtzee"), gettext("Coloured dice and ten colour boxes: 23 turns each, with the official joker.")],
};

/** A dice colour's name (Painted Yahtzee). */
export const COLOUR_NAMES = {
  red: pgettext("dice colour", "red"),
  yellow: pgettext("dice colour", "yellow"),
  green: pgettext("dice colour", "green"),
  blue: pgettext("dice colour", "blue"),
  purple: pgettext("dice colour", "purple"),
};
export const colourName = (colour) => COLOUR_NAMES[colour] ?? colour;

// The letter a painted die shows beside its hue and pattern: a word of its own, since the
// names' initials clash in some languages (German gelb and grün, French vert and violet).
const COLOUR_MARKS = {
  // Translators: the one letter on a red die; the five dice colour letters must all differ.
  red: pgettext("dice colour letter", "R"),
  // Translators: the one letter on a yellow die; the five dice colour letters must all differ.
  yellow: pgettext("dice colour letter", "Y"),
  // Translators: the one letter on a green die; the five dice colour letters must all differ.
  green: pgettext("dice colour letter", "G"),
  // Translators: the one letter on a blue die; the five dice colour letters must all differ.
  blue: pgettext("dice colour letter", "B"),
  // Translators: the one letter on a purple die; the five dice colour letters must all differ.
  purple: pgettext("dice colour letter", "P"),
};
/** The letter on a die of `colour`, in the reader's language. */
export const colourMark = (colour) => COLOUR_MARKS[colour] ?? "";

const isYatzy = (ruleset) => ruleset.name === "yatzy";

/** A box's name in `ruleset` ("Et par", "Kniffel"), or the code itself if the page knows none. */
export function boxName(ruleset, box) {
  return (isYatzy(ruleset) ? YATZY_BOXES : YAHTZEE_BOXES)[box] ?? box;
}

/** The rule set's name and one-line summary. */
export function rulesetLabel(ruleset) {
  return RULESETS[ruleset.name]?.[0] ?? ruleset.label;
}
export function rulesetSummary(ruleset) {
  return RULESETS[ruleset.name]?.[1] ?? ruleset.summary;
}

function boxHelp(ruleset, box) {
  if (isYatzy(ruleset)) return YATZY_HELP[box] ?? "";
  let text = YAHTZEE_HELP[box] ?? "";
  if (box === "full_house" && ruleset.five_of_a_kind_is_full_house) {
    text = gettext("Three dice of one value and two of another, or five of a kind: 25 points.");
  }
  // A later five of a kind earns the bonus only while a Yahtzee box holds points: a scratched one
  // (a 0) earns none (docs/rules.md).
  if (box === "yahtzee" && ruleset.yahtzee_bonus && ruleset.columns > 1) {
    // Triple: the bonus depends on where the later one is scored.
    text += ` ${fmt(gettext("A later one, while a Yahtzee box already holds points, earns a bonus: %(bonus)s times the column when scored in a Yahtzee box, or %(all)s once all %(n)s Yahtzee boxes hold points."), { bonus: ruleset.yahtzee_bonus, all: ruleset.yahtzee_bonus * ruleset.columns, n: ruleset.columns })}`;
  } else if (box === "yahtzee" && ruleset.yahtzee_bonus) {
    text += ` ${fmt(gettext("Each later one earns a %(bonus)s-point bonus if this box holds 50."), { bonus: ruleset.yahtzee_bonus })}`;
  }
  return text;
}

/** A narrow screen's shorter name for a row, or "" when it is the full name in this language. */
const shortOf = (label, short) => (short === label ? "" : short);

function sumRow(ruleset, row) {
  const yahtzee = boxName(ruleset, "yahtzee");
  switch (row.key) {
    case "upper":
      return { ...row, label: gettext("Upper sum"), short: shortOf(gettext("Upper sum"), pgettext("card row, short", "Upper sum")) };
    case "upper_bonus":
      return {
        ...row,
        label: gettext("Upper bonus"),
        short: gettext("Bonus"),
        rules: ruleset.multipliers.map((m) =>
          fmt(gettext("%(prize)s at %(goal)s"), { prize: ruleset.upper_bonus * m, goal: ruleset.upper_bonus_threshold * m }),
        ),
      };
    case "lower":
      return { ...row, label: gettext("Lower sum"), short: shortOf(gettext("Lower sum"), pgettext("card row, short", "Lower sum")) };
    case "yahtzee_bonus":
      return { ...row, label: fmt(gettext("%(box)s bonus"), { box: yahtzee }), short: `${yahtzee} +` };
    case "colour":
      return { ...row, label: gettext("Colour sum"), short: "" };
    case "total":
      return row.kind === "total" ? { ...row, label: gettext("Total") } : { ...row, label: gettext("Column total"), short: gettext("Col. total") };
    default:
      return row;
  }
}

const SECTIONS = {
  upper: gettext("Upper section"),
  lower: gettext("Lower section"),
  colour: gettext("Colours"),
  totals: gettext("Totals"),
};

const worded = new Map();
/**
 * The rule set as the server sends it (games/store/selectors.py ruleset_info), every word of it
 * in the reader's language: its name and summary, each box's name, short name and help, the
 * card's sums and sections. The same for every frame of a rule set: made once per page.
 */
export function wordRuleset(ruleset) {
  if (!ruleset || ruleset.worded) return ruleset;
  const key = JSON.stringify([ruleset.name, ruleset.scorecard]);
  if (!worded.has(key)) {
    const short = isYatzy(ruleset) ? YATZY_SHORT : YAHTZEE_SHORT;
    const row = (r) =>
      r.kind === "box" ? { ...r, label: boxName(ruleset, r.box), short: short[r.box] ?? "", help: boxHelp(ruleset, r.box) } : sumRow(ruleset, r);
    worded.set(key, {
      ...ruleset,
      worded: true,
      label: rulesetLabel(ruleset),
      summary: rulesetSummary(ruleset),
      boxes: ruleset.boxes.map((b) => ({ ...b, label: boxName(ruleset, b.box) })),
      scorecard: {
        ...ruleset.scorecard,
        sections: ruleset.scorecard.sections.map((s) => ({ ...s, label: SECTIONS[s.name] ?? s.label, rows: s.rows.map(row) })),
      },
    });
  }
  return worded.get(key);
}

/**
 * Why the joker forbids a box (an option's `reason`, games/domain/rules/scoring.py), in the
 * reader's words: the server's three sentences, recognised by their start.
 */
export function reasonText(ruleset, reason) {
  if (!reason) return "";
  if (reason.startsWith("an open Yahtzee box")) return gettext("An open Yahtzee box must take a five of a kind.");
  const five = /^joker rule: five (\d)s/.exec(reason);
  if (five) {
    const box = ["ones", "twos", "threes", "fours", "fives", "sixes"][Number(five[1]) - 1];
    return fmt(gettext("Joker rule: five %(value)ss must go in the open %(box)s box."), { value: five[1], box: boxName(ruleset, box) });
  }
  if (reason.startsWith("joker rule: a five of a kind")) {
    return ruleset.colours?.length
      ? gettext("Joker rule: a five of a kind must go in an open lower box or colour box.")
      : gettext("Joker rule: a five of a kind must go in an open lower box.");
  }
  return reason;
}

// The computer players' levels (games/services/seats.py BOT_LEVELS).
const LEVELS = { optimal: gettext("Expert"), casual: gettext("Casual"), beginner: gettext("Beginner") };
/** The levels as the lobby lists them: code -> name in the reader's words. */
export function levelNames(levels) {
  return Object.fromEntries(Object.entries(levels).map(([code, name]) => [code, LEVELS[code] ?? name]));
}

// A deleted account's seats, chat lines and log entries are stored under this English name
// (games/services/codes.py FORMER_PLAYER), the same in every reader's frames.
const FORMER_PLAYER = "Former player";
/** A seat's or chat line's name as the server sends it, a deleted account's in the reader's words. */
export function playerName(name) {
  return name === FORMER_PLAYER ? gettext("Former player") : name;
}

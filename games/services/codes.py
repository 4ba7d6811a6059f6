"""Room codes, the browser's controller token, display names and client seeds."""

from __future__ import annotations

import functools
import re
import secrets
import unicodedata

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext_noop
from django.utils.translation.trans_real import DjangoTranslation

from games.domain import fairness
from games.domain.errors import BAD_NAME, BAD_REQUEST, NAME_RESERVED, NAME_TAKEN
from games.domain.rules import RuleViolation

# Room codes: 10 characters from 31 unambiguous ones (no 0/o, 1/l/i) = 49.5 bits.
CODE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"
CODE_LENGTH = 10
NAME_MAX = 24
SEED_MAX = 64
# Combining marks one character may carry: enough for any script's real letters (Vietnamese
# stacks two, some Indic clusters three), not for a "Zalgo" name that spills over its row.
MARKS_MAX = 3
# Code points a name field lets be typed: each of a name's letters may come with its marks
# typed apart (NFD, as some keyboards send Vietnamese); the name is counted once composed (NFC).
NAME_TYPED_MAX = NAME_MAX * (1 + MARKS_MAX)
# Letters and signs that draw nothing (Hangul fillers, the blank Braille pattern): dropped too.
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Marks that draw nothing (the grapheme joiner, variation selectors, Mongolian and Khmer
# invisible ones): a name with one would look like the name without it.
INVISIBLE_MARKS = frozenset(
    ["\u034f", "\u17b4", "\u17b5", *map(chr, range(0x180B, 0x1810)), *map(chr, range(0xFE00, 0xFE10))]
    + list(map(chr, range(0xE0100, 0xE01F0)))
)
# Zero-width non-joiner and joiner, and the text and emoji styles of the symbol before them: part
# of how a name is spelt where they join something (joining_marks), dropped anywhere else.
ZWNJ, ZWJ = "\u200c", "\u200d"
PRESENTATION = frozenset("\ufe0e\ufe0f")
# The scripts whose letters join or stack, where a (non-)joiner between two of them is spelling
# (Persian writes "علی‌رضا" with one), named as Unicode's character names begin.
JOINING_SCRIPTS = frozenset(
    ["ARABIC", "SYRIAC", "NKO", "MONGOLIAN", "DEVANAGARI", "BENGALI", "GURMUKHI", "GUJARATI", "ORIYA"]
    + ["TAMIL", "TELUGU", "KANNADA", "MALAYALAM", "SINHALA"]
)
# What a decoder puts where the bytes it was given were not text (a form posted in another
# encoding): a name holding it has lost a letter, and would be stored and shown as "B�b".
LOST_LETTER = "\ufffd"
# Bidi embeddings, overrides and isolates: in a chat line they turn what follows around.
BIDI_CONTROLS = frozenset([*map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))])
# The name a deleted account's seats take, stored in English in the games, chats and logs
# (games.services.seats_forget): each page words it in its reader's language (shown_name).
FORMER_PLAYER = gettext_noop("Former player")
# The name a spectator's chat line is stored under; the page words it in its reader's language
# (static/js/room/chat.js, from the djangojs catalog).
SPECTATOR = "Spectator"


def visible(text: str) -> bool:
    """Whether ``text`` shows something: a letter, digit, punctuation or symbol that is not a blank."""
    return any(unicodedata.category(char)[0] in "LNPS" and char not in BLANKS for char in text)


def capped_marks(text: str) -> str:
    """``text`` with at most ``MARKS_MAX`` combining marks on each character (none on nothing, nor
    on the space it begins with): stacked marks draw over the lines around them."""
    kept: list[str] = []
    marks = 0
    base = False
    for char in text:
        kind = unicodedata.category(char)
        if kind.startswith("M"):
            marks += 1
            if marks > MARKS_MAX or not base:
                continue
        elif kind != "Cf":
            marks = 0
            # The space a text begins with is trimmed away: marks on it would be left on nothing.
            base = base or not char.isspace()
        # A format character (a joiner, a tag) draws nothing and is no character of its own: the
        # marks after it stack on the character before it, so they count on that one's allowance.
        kept.append(char)
    return "".join(kept)


def _joining_letter(char: str) -> bool:
    return unicodedata.category(char)[0] in "LM" and unicodedata.name(char, "").split(" ")[0] in JOINING_SCRIPTS


def _pictograph(char: str) -> bool:
    """A symbol an emoji sequence joins: a pictograph (So), or a skin tone (Sk)."""
    return unicodedata.category(char) == "So" or "\U0001f3fb" <= char <= "\U0001f3ff"


def joining_marks(text: str) -> str:
    """``text`` keeping a zero-width joiner or non-joiner only where it joins something (between two
    pictographs of one emoji, "👩🏽‍💻", or two letters of a script that joins, "علی‌رضا"), and a
    text or emoji style only right after a symbol (or a keycap's digit, "1️⃣"): elsewhere they draw
    nothing, and a name with one would pass for the name without it."""
    kept: list[str] = []
    for i, char in enumerate(text):
        before = kept[-1] if kept else ""
        after = text[i + 1] if i + 1 < len(text) else ""
        if char in (ZWJ, ZWNJ):
            # An emoji in emoji style is joined after its style: the flag of "🏳️‍🌈".
            base = kept[-2] if before in PRESENTATION and len(kept) > 1 else before
            emoji = char == ZWJ and bool(base) and bool(after) and _pictograph(base) and _pictograph(after)
            letters = bool(before) and bool(after) and _joining_letter(before) and _joining_letter(after)
            if emoji or letters:
                kept.append(char)
        elif char in PRESENTATION:
            keycap = before in "0123456789#*" and after == "\u20e3"
            if before and (unicodedata.category(before) in ("So", "Sm") or keycap):
                kept.append(char)
        else:
            kept.append(char)
    return "".join(kept)


def new_room_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


# A link to a room pasted whole: http(s)://host/r/<code>/..., or just the path /r/<code>/...
_ROOM_LINK = re.compile(r"^(?:[a-z][a-z0-9+.-]*://[^/?#]*)?/?r/([^/?#]+)(?:[/?#].*)?$", re.IGNORECASE)


def code_in_link(text: str) -> str | None:
    """The room code in a pasted link to the room (its invite, its replay, its fair-dice page), as
    it stands in the link; None if ``text`` is no such link."""
    link = _ROOM_LINK.match(unicodedata.normalize("NFKC", text).strip())  # typed in full-width too
    return link.group(1) if link else None


def normalize_code(code: str) -> str:
    """Codes are typed by people: ignore case, spaces and dashes of any kind, and take full-width
    letters and digits (an input method left in full-width mode) as the plain ones (NFKC)."""
    text = unicodedata.normalize("NFKC", str(code))
    return "".join(char for char in text if not char.isspace() and unicodedata.category(char) != "Pd").lower()[:32]


def new_controller() -> str:
    """The token a browser keeps in its session to prove which seats are its own."""
    return secrets.token_urlsafe(24)


class NameRefused(RuleViolation):
    """A name refused (``bad_name``, ``name_reserved``, ``name_taken``), and which of the names
    given it was: ``index`` 0 for the only one (a host's, a join's), else its place among the
    players of one device. A form ties the refusal to that name's field."""

    def __init__(self, code: str, message: str, index: int = 0, *, reads_as: str = "", sits_here: str = "") -> None:
        super().__init__(code, message)
        self.index = index
        # The seated player's name a name taken reads as (another name, not it in another case),
        # which a page words the refusal with.
        self.reads_as = reads_as
        # The name of a seat of this same browser the join named: a second player of one device
        # given the first one's name, which a page words the refusal with.
        self.sits_here = sits_here


def name_taken(typed: str, seated: str) -> NameRefused:
    """The refusal of a name ``typed`` that reads as the name of a player ``seated`` at the table:
    named, since a look-alike ("Annl" beside "Ann1") is not the name typed, and seat names are
    the table's, shown to everyone there."""
    if name_key(typed) == name_key(seated):
        return NameRefused(NAME_TAKEN, f"Someone here is already called {typed}.")
    return NameRefused(
        NAME_TAKEN,
        f"{typed} reads the same as {isolated(seated)}, who is already at the table: please choose another name.",
        reads_as=seated,
    )


def clean_name(name: object) -> str:
    """A display name as people will see it: NFC, no invisible tricks, at least one visible character.

    Control and format characters (zero-width spaces, bidi overrides, soft hyphens) are
    dropped, and so are joiners and emoji styles that join nothing (``joining_marks``); runs of
    spaces become one, and each character keeps at most ``MARKS_MAX`` combining marks. A name
    holding ``LOST_LETTER`` is refused, not stored with the letter lost. Raises NameRefused
    (BAD_NAME, NAME_RESERVED) naming what is wrong.
    """
    text = unicodedata.normalize("NFC", name if isinstance(name, str) else "")
    if LOST_LETTER in text:
        raise NameRefused(BAD_NAME, "A name cannot hold �, the sign of a letter lost on the way: please type it again.")
    kept: list[str] = []
    for char in text:
        if char in (ZWJ, ZWNJ) or char in PRESENTATION:
            kept.append(char)  # where it joins something (joining_marks)
        elif unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn") or char in BLANKS or char in INVISIBLE_MARKS:
            # Tabs and newlines still separate words; other controls and format characters go.
            if char in "\t\n\r\x0b\x0c":
                kept.append(" ")
            continue
        kept.append(char)
    text = re.sub(r"\s+", " ", joining_marks(capped_marks("".join(kept)))).strip()
    if not text:
        raise NameRefused(BAD_NAME, "Please choose a display name.")
    if not visible(text):
        raise NameRefused(BAD_NAME, "A name needs at least one visible letter, digit or sign.")
    if len(text) > NAME_MAX:
        raise NameRefused(BAD_NAME, f"Names are at most {NAME_MAX} characters.")
    # A seat under either name would pass for a deleted account's seat, or its chat lines for a
    # spectator's, in any language the site speaks.
    if not seat_skeletons(text).isdisjoint(_former_player_skeletons()):
        raise NameRefused(
            NAME_RESERVED, f"“{FORMER_PLAYER}” is how deleted accounts' seats are shown: please choose another name."
        )
    if not seat_skeletons(text).isdisjoint(_spectator_skeletons()):
        raise NameRefused(
            NAME_RESERVED, f"“{SPECTATOR}” is how spectators' chat lines are shown: please choose another name."
        )
    return text


@functools.cache  # the catalogs do not change while the process runs
def _former_player_words() -> frozenset[str]:
    """FORMER_PLAYER as each of the site's languages words it."""
    words = {FORMER_PLAYER}
    for language, _label in settings.LANGUAGES:
        with translation.override(language):
            words.add(translation.gettext(FORMER_PLAYER))
    return frozenset(words)


@functools.cache
def _spectator_words() -> frozenset[str]:
    """SPECTATOR as each of the site's languages words it.

    The pages word it, so its words are in the JavaScript catalog (djangojs), not the server's.
    """
    words = {SPECTATOR}
    for language, _label in settings.LANGUAGES:
        catalog = DjangoTranslation(language, domain="djangojs", localedirs=[str(p) for p in settings.LOCALE_PATHS])
        words.add(catalog.gettext(SPECTATOR))
    return frozenset(words)


@functools.cache
def _former_player_skeletons() -> frozenset[str]:
    """FORMER_PLAYER in each of the site's languages, as seats' names are compared (seat_skeletons)."""
    return frozenset(key for word in _former_player_words() for key in seat_skeletons(word))


@functools.cache
def _spectator_skeletons() -> frozenset[str]:
    """SPECTATOR in each of the site's languages, as seats' names are compared (seat_skeletons)."""
    return frozenset(key for word in _spectator_words() for key in seat_skeletons(word))


def reserved_name_keys() -> frozenset[str]:
    """The site's own words for a seat or line that is no person's, as names are compared (name_key):
    "Former player" and "Spectator" in each of its languages."""
    return frozenset(name_key(word) for word in _former_player_words() | _spectator_words())


def shown_name(name: str) -> str:
    """A seat's or chat line's stored name as the reader sees it: a deleted account's in their language."""
    return translation.gettext(FORMER_PLAYER) if name == FORMER_PLAYER else name


def isolated(name: str) -> str:
    """A name for a sentence of plain text, between FIRST STRONG ISOLATE and POP DIRECTIONAL
    ISOLATE: a right-to-left name reads as a run of its own, so that two such names in a row
    ("אבי, שרה") or one before a number keep their order in a left-to-right sentence."""
    return f"\u2068{name}\u2069"


def name_key(name: str) -> str:
    """What two names are compared by: "Host", "HOST" and full-width "Ｈｏｓｔ" are the same name, and
    so are two that differ only by a joiner or an emoji's style, which a reader may not see."""
    bare = "".join(char for char in name if char not in (ZWJ, ZWNJ) and char not in PRESENTATION)
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", bare).casefold())


# Cyrillic and Greek letters drawn as Latin ones: a name all of them ("сор" in Cyrillic) reads as
# the Latin name ("cop"), though it keeps to one alphabet.
LATIN_LOOKALIKES = dict(
    zip(
        "АВЕКМНОРСТХУЅІЈԚԜҮаеокрсухѕіјһԁԛԝӏΑΒΕΖΗΙΚΜΝΟΡΤΥΧονικρ",
        "ABEKMHOPCTXYSIJQWYaeokpcyxsijhdqwlABEZHIKMNOPTYXovikp",
        strict=True,
    )
)


def _folded_lookalikes() -> dict[int, str]:
    """LATIN_LOOKALIKES once case is folded, as names are compared: a capital drawn as a Latin one
    puts its small letter as that Latin letter's ("ΤΟΜ" and "τομ" are one name, and read "TOM"),
    unless the small letter is drawn as another Latin letter of its own (the Greek "ν" as "v")."""
    small = {ord(k): v for k, v in LATIN_LOOKALIKES.items() if k == k.casefold()}
    capitals = {ord(k.casefold()): v.casefold() for k, v in LATIN_LOOKALIKES.items() if k != k.casefold()}
    return capitals | small


FOLDED_LOOKALIKES = _folded_lookalikes()


# What a username may hold besides letters and digits (Django's UnicodeUsernameValidator): marks
# between the parts of a name, which do not make it another ("ann_lee", "ann.lee", "annlee").
SEPARATORS = "@.+-_"
# Letters drawn as a middle dot, which a username may hold as it holds any letter: the Latin
# sinological dot, the Canadian syllabics final middle dot, the Hangul araea (and its
# compatibility letter). Between two parts of a name they part it as a middle dot does:
# "AnnꞏLee" would pass for "Ann·Lee", which reads as "Ann.Lee".
LETTERS_DRAWN_AS_DOTS = "\ua78f\u1427\u119e\u318d"
# Middle dots and the minus sign, which part a name as a dot or a hyphen does ("Ann·Lee", the
# Catalan "l·l", the katakana "アン・リー") though Unicode counts them among other signs; the signs
# drawn as a hyphen (the modifier letter minus sign, the hyphen bullet); LETTERS_DRAWN_AS_DOTS.
# Each one's compatibility form (NFKC: the Greek ano teleia, the half-width katakana dot, a
# superscript minus) is one of them.
DOTS_AND_MINUS = frozenset(
    "\u00b7\u16eb\u2027\u2219\u22c5\u2e31\u2e33\u30fb\U00010101\u2212\u02d7\u2043" + LETTERS_DRAWN_AS_DOTS
)


def separator(char: str) -> bool:
    """Whether ``char`` parts a name without making it another: SEPARATORS, every dash (Unicode's
    Pd: the en and em dash, "Ann–Lee" beside "Ann-Lee") and connector (Pc: "‿", "＿"), and
    DOTS_AND_MINUS."""
    return char in SEPARATORS or char in DOTS_AND_MINUS or unicodedata.category(char) in ("Pd", "Pc")


# Latin letters and digits drawn alike in the site's font, each put as one of them once case is
# folded: a capital I, a small l and the digit 1 are one stroke ("Ann1", "Annl", "AnnI"); a capital
# O and the digit 0 one ring ("B0b", "BOb"). Case folding makes "I" the small "i", so "i" joins
# them too ("Anni"), and "o" the zero. The Turkish dotless "ı" is an "i" less its dot. A vertical
# bar would join them, but a username cannot hold one (a seat's name can: BARS). Pairs of letters drawn as one ("rn" and
# "m", "vv" and "w") are left apart: they are two letters wide, not one in another's place, and
# whether they run together depends on the font and its size, so taking them as one would refuse
# many ordinary names for a likeness few readers see.
GLYPHS_ALIKE = str.maketrans({"1": "l", "i": "l", "ı": "l", "0": "o"})


def name_skeleton(name: str) -> str:
    """What account names are compared by: two names with one skeleton read as one name, and only
    one account may have it (accounts.models.AccountName). Its compatibility form (NFKC: "ａnn" is
    "ann"), case folded ("ANN", "Straße" and "STRASSE", a Greek final "ς" and "σ"), each Cyrillic
    or Greek letter drawn as a Latin one put as that letter ("сор" is "cop"), the glyphs drawn alike
    put as one (GLYPHS_ALIKE), and the separators a username may hold left out ("ann_lee" is
    "annlee"). The sign-up's check, a rename in the admin, a deleted account's hold
    (``accounts.validators.name_hold_key``) and the reserved words all compare names by it, and a
    room compares its seats' names by it too (``seat_skeletons``).

    Written out here rather than taken from a library of Unicode's confusables (UTS #39): those
    compare case as drawn ("I" beside "l", but not "i"), map pairs such as "rn" to "m", and change
    with the library's data, while a skeleton is stored for every account and every hold, and
    must stay the same across upgrades. The letters of other alphabets among Latin ones are
    refused in account names anyway (``accounts.validators.one_alphabet``).
    """
    # Each letter drawn as a Latin one put as that letter in its own case first: the Greek capital
    # "Ν" is drawn as "N", though its small letter, once case is folded, is drawn as a "v". Then
    # what case folding leaves (a small letter whose capital alone is drawn as a Latin one:
    # FOLDED_LOOKALIKES). Case folding writes the Turkish capital "İ" as "i" and a combining dot above.
    drawn = "".join(LATIN_LOOKALIKES.get(char, char) for char in unicodedata.normalize("NFKC", name))
    folded = name_key(drawn).replace("i\u0307", "i")
    alike = folded.translate(FOLDED_LOOKALIKES).translate(GLYPHS_ALIKE)
    return "".join(char for char in alike if not separator(char))


def capitals_skeleton(name: str) -> str:
    """The ``name_skeleton`` of ``name`` in capitals, taken from its case folded form (``name_key``),
    so that every form of a name that differs only by case has the same one. The skeleton alone
    is not so in every alphabet: the Greek small "ν" is drawn as a "v" and its capital "Ν" as an
    "N", so "νικο" reads "vlko" and "ΝΙΚΟ" "nlko". Stored beside it (accounts.models.AccountName),
    and pinned as it is."""
    return name_skeleton(name_key(name).upper())


def name_skeletons(name: str) -> tuple[str, str]:
    """What names are compared by: two names are one if either of their ``name_skeleton`` and
    ``capitals_skeleton`` is one of the other's. The two are the same but for a few Greek letters."""
    return name_skeleton(name), capitals_skeleton(name)


# Signs drawn as the one stroke of GLYPHS_ALIKE, which a seat's name may hold and a username not:
# the vertical bar (its full-width form is one once NFKC) and the Latin letter of a dental click.
BARS = str.maketrans({"|": "l", "\u01c0": "l"})


def _seat(skeleton: str) -> str:
    return "".join(char for char in skeleton.translate(BARS) if not char.isspace())


def seat_skeletons(name: str) -> frozenset[str]:
    """What a room compares its seats' names by: their ``name_skeletons``, a bar put as the stroke it
    is drawn as (BARS: "Ann|" reads as "Ann1"), and the spaces left out. In a display name a space
    parts a name as "_" or "." parts a username ("Ann Lee", "Ann_Lee", "ann.lee" and "AnnLee" are
    one person's name), and where names are drawn narrow (the scorecard's columns, the feed) a
    gap is as easily missed as a dot. Two names read alike when these share one (``reads_alike``).
    A room seats eight at most, so a second name that reads as one taken costs little: type another."""
    return frozenset(_seat(skeleton) for skeleton in name_skeletons(name))


def reads_alike(one: str, other: str) -> bool:
    """Whether two seats' names read as one name (``seat_skeletons``)."""
    return not seat_skeletons(one).isdisjoint(seat_skeletons(other))


def clean_client_seed(seed: object) -> str:
    if not isinstance(seed, str) or not seed:
        return fairness.new_client_seed()
    if len(seed) > SEED_MAX or not re.fullmatch(r"[A-Za-z0-9_-]+", seed):
        raise RuleViolation(BAD_REQUEST, f"A client seed is 1 to {SEED_MAX} letters, digits, '-' or '_'.")
    return seed

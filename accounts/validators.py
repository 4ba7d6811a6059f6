"""What an account name may be: Django's letters, digits and @ . + - _, none of which draws nothing,
all of one alphabet, and none of the site's own words or its staff's.

Names are shown on the leaderboards and at /u/<name>/: a Hangul filler (a letter to Unicode,
drawn as nothing) would let "ann" and "ann" plus a filler be two accounts that read the same,
as would a Cyrillic "а" in place of the Latin "a".
"""

from __future__ import annotations

import functools
import re
import unicodedata

from django.conf import settings
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.utils import translation
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from games.services.codes import BLANKS, INVISIBLE_MARKS, name_key, reserved_name_keys


def every_letter_shows(value: str) -> None:
    if any(char in BLANKS or char in INVISIBLE_MARKS or unicodedata.category(char)[0] == "C" for char in value):
        raise ValidationError(_("A username cannot hold characters that show nothing."), code="invisible")


# Alphabets written together in one language: Japanese mixes kanji and both kana, Korean
# may use hanja beside hangul. The first word of a letter's Unicode name is its alphabet.
EAST_ASIAN = frozenset({"CJK", "IDEOGRAPHIC", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "HANGUL", "BOPOMOFO"})


def _alphabet(char: str) -> str:
    """The alphabet of a letter ("LATIN", "CYRILLIC", "GREEK"...); "" for a digit, sign or modifier."""
    if not unicodedata.category(char).startswith("L") or unicodedata.category(char) == "Lm":
        return ""
    word = unicodedata.name(char, "").split(" ", 1)[0]
    return "EAST ASIAN" if word in EAST_ASIAN else word


def one_alphabet(value: str) -> None:
    """Letters of one alphabet only: a Cyrillic "а" or Greek "ο" among Latin letters draws as the
    Latin one, and would give a second account that reads as another's name."""
    if len({_alphabet(char) for char in value} - {""}) > 1:
        raise ValidationError(
            _("A username keeps to one alphabet: type all its letters in the same one."), code="alphabets"
        )


# Cyrillic and Greek letters drawn as Latin ones: a name all of them ("сор" in Cyrillic) reads as
# the Latin name ("cop"), though it keeps to one alphabet.
LATIN_LOOKALIKES = str.maketrans(
    "АВЕКМНОРСТХУЅІЈԚԜҮаеокрсухѕіјһԁԛԝӏΑΒΕΖΗΙΚΜΝΟΡΤΥΧονικρ",
    "ABEKMHOPCTXYSIJQWYaeokpcyxsijhdqwlABEZHIKMNOPTYXovikp",
)


def latin_lookalike(name: str) -> str:
    """``name`` with each Cyrillic or Greek letter that draws as a Latin one put as that Latin letter."""
    return name.translate(LATIN_LOOKALIKES)


def _drawn_alike() -> dict[str, str]:
    """Each letter's case-folded Latin look (itself for any other) -> every letter drawn so."""
    alike: dict[str, set[str]] = {}
    for source, latin in LATIN_LOOKALIKES.items():
        for char in (chr(source), chr(latin), chr(latin).upper(), chr(latin).lower()):
            alike.setdefault(chr(latin).casefold(), set()).add(char)
    return {key: "".join(sorted(chars)) for key, chars in alike.items()}


DRAWN_ALIKE = _drawn_alike()


# What a username may hold besides letters and digits (Django's UnicodeUsernameValidator): marks
# between the parts of a name, which do not make it another ("ann_lee", "ann.lee", "annlee").
SEPARATORS = "@.+-_"
_ANY_SEPARATORS = "[" + re.escape(SEPARATORS) + "]*"


def lookalike_pattern(name: str) -> str:
    """A regular expression every name that reads as ``name`` matches (case, Latin, Cyrillic or Greek
    letters drawn alike, and separators aside): "сор", "COP" and "c_o.p" all match that of "cop",
    and it theirs."""
    parts = []
    for char in latin_lookalike(name):
        if char in SEPARATORS:
            continue
        chars = DRAWN_ALIKE.get(char.casefold(), char + char.upper() + char.lower())
        # "ß".upper() is "SS": only the cases that are one letter.
        parts.append("[" + "".join(re.escape(c) for c in sorted(set(chars)) if len(c) == 1) + "]")
    # No letter class holds a separator, so the pattern never backtracks far, even over a long name.
    return "^" + _ANY_SEPARATORS + _ANY_SEPARATORS.join(parts) + _ANY_SEPARATORS + "$"


def name_hold_key(name: str) -> str:
    """The key a deleted account's name is held under (accounts.models.HeldName): the same for every
    name that reads as it (its compatibility form, case, Latin look-alike letters and separators
    aside, as ``lookalike_pattern`` compares names), and keyed with the site's secret, so the
    table does not give back the names of the accounts deleted."""
    plain = latin_lookalike(unicodedata.normalize("NFKC", name)).casefold()
    bare = "".join(c for c in plain if c not in SEPARATORS)
    return salted_hmac("accounts.HeldName", bare, algorithm="sha256").hexdigest()


# Names that would pass for the site's own words or its staff on the boards and profiles.
STAFF_NAMES = frozenset({"admin", "administrator", "staff", "moderator", "support", "system", "root", "computer"})
COMPUTER = gettext_noop("computer")


def _bare(name: str) -> str:
    """A name as compared with the reserved ones: case and letter forms aside (name_key), and
    without the separators a username may hold ("Former_player" is "Former player")."""
    return "".join(char for char in name_key(name) if char.isalnum())


@functools.cache  # the catalogs do not change while the process runs
def _reserved() -> frozenset[str]:
    names = {_bare(name) for name in reserved_name_keys() | STAFF_NAMES}
    for language, _label in settings.LANGUAGES:
        with translation.override(language):
            names.add(_bare(translation.gettext(COMPUTER)))
    return frozenset(names)


def reserved_name(value: str) -> None:
    if _bare(value) in _reserved():
        raise ValidationError(
            _("That name is reserved: it would pass for the site's own words or its staff. Please choose another."),
            code="reserved",
        )


# ACCOUNT_USERNAME_VALIDATORS (django-allauth) names this list: it replaces the user model's own.
username_validators = [UnicodeUsernameValidator(), every_letter_shows, one_alphabet, reserved_name]

"""What an account name may be: Django's letters, digits and @ . + - _, none of which draws nothing,
all of one alphabet, and none of the site's own words or its staff's.

Names are shown on the leaderboards and at /u/<name>/: a Hangul filler (a letter to Unicode,
drawn as nothing) would let "ann" and "ann" plus a filler be two accounts that read the same,
as would a Cyrillic "а" in place of the Latin "a".
"""

from __future__ import annotations

import functools
import unicodedata

from django.conf import settings
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.utils import translation
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from games.services.codes import BLANKS, INVISIBLE_MARKS, LATIN_LOOKALIKES, SEPARATORS, reserved_name_keys

# The rule account names are compared by is the one a room compares its seats' names by, so it
# lives with the room's names; the accounts and their migrations take it from here.
from games.services.codes import capitals_skeleton as capitals_skeleton
from games.services.codes import name_skeleton as name_skeleton
from games.services.codes import name_skeletons as name_skeletons


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


def name_hold_key(name: str) -> str:
    """The key a deleted account's name is held under (accounts.models.HeldName): its skeleton
    (``name_skeleton``), the same for every name that reads as it, keyed with the site's secret,
    so the table does not give back the names of the accounts deleted."""
    return salted_hmac("accounts.HeldName", name_skeleton(name), algorithm="sha256").hexdigest()


def name_hold_capitals_key(name: str) -> str:
    """The key a deleted account's name is held under in capitals (``capitals_skeleton``), beside
    ``name_hold_key``: "ΝΙΚΟ" held holds "νικο" too."""
    return salted_hmac("accounts.HeldName", capitals_skeleton(name), algorithm="sha256").hexdigest()


def name_hold_keys(name: str) -> tuple[str, str, str]:
    """``name_hold_key``, ``name_hold_capitals_key``, and the key of a hold that compared names
    without their glyphs and spelling (no GLYPHS_ALIKE, the Latin look-alikes put before case was
    folded). A hold lasts DELETED_NAME_HOLD_DAYS and its name is not kept, so a hold made so
    cannot be keyed anew: it is looked up under its own key until it ends."""
    latin = "".join(LATIN_LOOKALIKES.get(char, char) for char in unicodedata.normalize("NFKC", name)).casefold()
    plain = "".join(char for char in latin if char not in SEPARATORS)
    old = salted_hmac("accounts.HeldName", plain, algorithm="sha256").hexdigest()
    return name_hold_key(name), name_hold_capitals_key(name), old


# Names that would pass for the site's own words or its staff on the boards and profiles.
STAFF_NAMES = frozenset({"admin", "administrator", "staff", "moderator", "support", "system", "root", "computer"})
COMPUTER = gettext_noop("computer")


def _bare(name: str) -> frozenset[str]:
    """A name as compared with the reserved ones: as names are compared (``name_skeletons``: "adm1n"
    is "admin"), and without the spaces of the site's own words ("Former_player" is "Former player")."""
    return frozenset("".join(char for char in skeleton if char.isalnum()) for skeleton in name_skeletons(name))


@functools.cache  # the catalogs do not change while the process runs
def _reserved() -> frozenset[str]:
    names = {bare for name in reserved_name_keys() | STAFF_NAMES for bare in _bare(name)}
    for language, _label in settings.LANGUAGES:
        with translation.override(language):
            names |= _bare(translation.gettext(COMPUTER))
    return frozenset(names)


def reserved_name(value: str) -> None:
    if not _bare(value).isdisjoint(_reserved()):
        raise ValidationError(
            _("That name is reserved: it would pass for the site's own words or its staff. Please choose another."),
            code="reserved",
        )


# ACCOUNT_USERNAME_VALIDATORS (django-allauth) names this list: it replaces the user model's own.
username_validators = [UnicodeUsernameValidator(), every_letter_shows, one_alphabet, reserved_name]

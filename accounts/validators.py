"""What an account name may be: Django's letters, digits and @ . + - _, none of which draws nothing.

Names are shown on the leaderboards and at /u/<name>/: a Hangul filler (a letter to Unicode,
drawn as nothing) would let "ann" and "ann" plus a filler be two accounts that read the same.
"""

from __future__ import annotations

import unicodedata

from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from games.services.codes import BLANKS, INVISIBLE_MARKS


def every_letter_shows(value: str) -> None:
    if any(char in BLANKS or char in INVISIBLE_MARKS or unicodedata.category(char)[0] == "C" for char in value):
        raise ValidationError(_("A username cannot hold characters that show nothing."), code="invisible")


# ACCOUNT_USERNAME_VALIDATORS (django-allauth) names this list: it replaces the user model's own.
username_validators = [UnicodeUsernameValidator(), every_letter_shows]

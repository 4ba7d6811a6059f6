"""allauth's adapters: account names in one form of their letters, a new passkey named after the
browser and device that made it ("Chrome on Android"), not "Master key", in the player's language,
and a changed password ending on the player's profile."""

from __future__ import annotations

import unicodedata

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core import context
from allauth.mfa.adapter import DefaultMFAAdapter
from allauth.mfa.models import Authenticator
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext

from accounts import selectors, services

# What a User-Agent says, in the order to look for it (Edge and Opera also say Chrome; Chrome
# also says Safari; Android also says Linux; an iPad may say Macintosh).
BROWSERS = (("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Safari/", "Safari"))
SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("CrOS", "Chromebook"),
    ("Windows", "Windows"),
    ("Macintosh", "Mac"),
    ("Linux", "Linux"),
)


def device_name(user_agent: str) -> str:
    """ "Chrome on Android" from a User-Agent header, worded in the active language (the browser's
    and the system's names are their own in every one); "" when it names neither."""
    browser = next((name for mark, name in BROWSERS if mark in user_agent), "")
    system = next((name for mark, name in SYSTEMS if mark in user_agent), "")
    if browser and system:
        return pgettext("passkey's name", "%(browser)s on %(system)s") % {"browser": browser, "system": system}
    return browser or system


# A passkey that could not be checked (not the account's, not answering the challenge, or not a
# passkey's answer at all): the site has no codes, so not allauth's "Incorrect code.". Where a
# password is no way round it (adding a passkey, the passkey after the password), the forms say
# only to try again (accounts.forms).
PASSKEY_NOT_CHECKED = _("That passkey could not be checked: try again, or use your password.")
PASSKEY_NOT_CHECKED_AGAIN = _("That passkey could not be checked: try again.")


class MFAAdapter(DefaultMFAAdapter):  # type: ignore[misc]  # allauth.mfa is untyped
    error_messages = {**DefaultMFAAdapter.error_messages, "incorrect_code": PASSKEY_NOT_CHECKED}

    def generate_authenticator_name(self, user: AbstractBaseUser, type: Authenticator.Type) -> str:  # noqa: A002 - allauth's name
        """The name a new passkey's form suggests, in the player's language (the name is stored as
        the player read it, and they may change it there): the browser and device, else "Passkey N"."""
        request = context.request
        device = device_name(request.headers.get("User-Agent", "")) if request is not None else ""
        if device:
            return device
        number = Authenticator.objects.filter(user_id=user.pk, type=type).count() + 1
        return pgettext("passkey's name", "Passkey %(number)s") % {"number": number}


LOOKALIKE = _("That name reads the same as another player's: please choose another.")
HELD = _("That name was a deleted account's and cannot be taken again yet: please choose another.")


def name_free(name: str, *, user_id: int | None = None) -> None:
    """Refuses (ValidationError) a name that reads as another account's, or as an account's deleted
    too lately (``lookalike``, ``held``): at sign-up, and when staff rename account ``user_id`` (to
    which a name that reads as its own is its own: "ann" may become "Ann")."""
    services.account_names_complete()
    owners = selectors.name_owners(name)
    if user_id is not None and user_id in owners:
        return
    if owners:
        raise ValidationError(LOOKALIKE, code="lookalike")
    # A deleted account's name waits before anyone (its owner too: nothing is left to tell who
    # that was) may take it, so nobody is read as a friend who just left.
    if selectors.name_held(name):
        raise ValidationError(HELD, code="held")


class AccountAdapter(DefaultAccountAdapter):  # type: ignore[misc]  # allauth is untyped
    def clean_username(self, username: str, shallow: bool = False) -> str:
        """The name in its compatibility form (NFKC, as Django's own user forms keep it): a fullwidth
        or mathematical "ａnn" is "ann", taken if "ann" is, so no account reads as another's; nor
        does a name that reads as another's (``name_free``): "Ann1" beside "Annl", a Cyrillic "сор"
        beside a Latin "cop". The database refuses a second account of one name so compared
        (accounts.models.AccountName), signed up at the same moment (accounts.views.SignUpView)."""
        name: str = super().clean_username(unicodedata.normalize("NFKC", username), shallow)
        if not shallow:
            name_free(name)
        return name

    def get_password_change_redirect_url(self, request: HttpRequest) -> str:
        """A changed password ends on the player's profile, under allauth's "Password successfully
        changed." (as signing in ends there), not on an empty form again; a refused one stays on
        its form with the errors."""
        return reverse("profile_me")

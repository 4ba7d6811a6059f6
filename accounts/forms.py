from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any, NoReturn, cast

from allauth.account.adapter import get_adapter
from allauth.account.forms import ChangePasswordForm as AllauthChangePasswordForm
from allauth.core import context
from allauth.mfa.webauthn.forms import AddWebAuthnForm as AllauthAddWebAuthnForm
from allauth.mfa.webauthn.forms import AuthenticateWebAuthnForm as AllauthAuthenticateWebAuthnForm
from allauth.mfa.webauthn.forms import EditWebAuthnForm as AllauthEditWebAuthnForm
from allauth.mfa.webauthn.forms import LoginWebAuthnForm as AllauthLoginWebAuthnForm
from allauth.mfa.webauthn.forms import ReauthenticateWebAuthnForm as AllauthReauthenticateWebAuthnForm
from django import forms
from django.contrib.auth import authenticate
from django.core.validators import MaxLengthValidator
from django.utils.translation import gettext_lazy as _

from accounts.adapters import PASSKEY_NOT_CHECKED, PASSKEY_NOT_CHECKED_AGAIN

if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise as StrOrPromise


class ChangePasswordForm(AllauthChangePasswordForm):  # type: ignore[misc]  # allauth has no type hints
    """allauth's, with the current password checked as a sign-in is, through django-axes: wrong
    ones count against the address and a locked-out address is refused, so a session left
    signed in on a shared device is no way around the lockout to test guesses."""

    def clean_oldpassword(self) -> str:
        assert self.user is not None
        password: str = self.cleaned_data.get("oldpassword", "")
        found = authenticate(context.request, username=self.user.get_username(), password=password)
        if found is None or found.pk != self.user.pk:
            raise get_adapter().validation_error("enter_current_password")
        return password


# A passkey's form posted with no credential: its button was pressed in a page whose script did
# not run (the script asks the browser for the passkey and fills the field in before posting).
NO_CREDENTIAL = _("Passkeys need JavaScript: turn it on for this site, or use your password.")


# A browser's answer from a passkey is a few kilobytes at most (a key, a signature, an
# attestation's certificates); anything longer is not one, and is refused before it is parsed.
CREDENTIAL_MAX = 64 * 1024

# What fido2 raises, as it reads and checks a credential, for one that is not a passkey's answer
# (a field missing or of the wrong type, bad base64, client data that is not JSON or has no type):
# allauth turns only some of them into a form error, and the rest would be a server error.
MALFORMED = (ValueError, TypeError, KeyError, AttributeError, IndexError)


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(name)  # NaN, Infinity: no JSON column stores them


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(text)  # 1e999 reads as Infinity, which no JSON column stores either
    return number


def _storable(value: object) -> bool:
    """Whether every string in ``value`` (keys too) is one a database stores: no NUL (PostgreSQL
    refuses it) and no lone surrogate (no UTF-8 for it). Walked without recursion, however deep."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, str):
            if "\x00" in item:
                return False
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
    return True


class PasskeyCredentialField(forms.JSONField):
    """allauth's credential field, taking only what a passkey's answer can be: a JSON object, not
    too long, of what the database stores. Whatever else a page posts is refused as a passkey that
    could not be checked, in the form's words, rather than reaching fido2 or the database."""

    widget = forms.HiddenInput

    def to_python(self, value: Any) -> Any:
        if value in self.empty_values:
            return None
        try:
            if not isinstance(value, str) or len(value) > CREDENTIAL_MAX:
                raise ValueError(value)
            parsed = json.loads(value, parse_constant=_refuse_constant, parse_float=_finite)
        except (ValueError, RecursionError) as error:  # RecursionError: "[[[[...": too deep to parse
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from error
        if not isinstance(parsed, dict) or not parsed or not _storable(parsed):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return parsed

    def bound_data(self, data: Any, initial: Any) -> None:
        # A refused form's page asks the passkey again, for a new challenge: what was posted is not
        # echoed back (it may be too deep to parse again, or hold what the page cannot encode).
        return None

    def prepare_value(self, value: Any) -> Any:
        return "" if value is None else super().prepare_value(value)


def _credential_checked(form: forms.Form, not_checked: StrOrPromise) -> None:
    """``form``'s credential field a PasskeyCredentialField: no credential posted (a page without
    script) says passkeys need JavaScript, anything but a passkey's answer says ``not_checked``."""
    form.fields["credential"] = PasskeyCredentialField(
        required=True, error_messages={"required": NO_CREDENTIAL, "invalid": not_checked}
    )


def _checked(not_checked: StrOrPromise, check: Any) -> Any:
    """``check()``, its failures worded ``not_checked``: fido2's malformed credential, and allauth's
    own "incorrect code" (which the adapter words for the pages where a password may be used)."""
    try:
        return check()
    except forms.ValidationError as error:
        if getattr(error, "code", None) == "incorrect_code":
            raise forms.ValidationError(not_checked, code="incorrect_code") from error
        raise
    except MALFORMED as error:
        raise forms.ValidationError(not_checked, code="incorrect_code") from error


class LoginWebAuthnForm(AllauthLoginWebAuthnForm):  # type: ignore[misc]  # allauth has no type hints
    """allauth's "Sign in with a passkey", saying why when no passkey came with it, and that a
    passkey that could not be checked leaves the password to sign in with."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        _credential_checked(self, PASSKEY_NOT_CHECKED)

    def clean_credential(self) -> Any:
        return _checked(PASSKEY_NOT_CHECKED, super().clean_credential)


class ReauthenticateWebAuthnForm(AllauthReauthenticateWebAuthnForm):  # type: ignore[misc]
    """allauth's "Use your passkey" before a change to the account, saying why when no passkey came
    with it, and that a passkey that could not be checked leaves the password to confirm with."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        _credential_checked(self, PASSKEY_NOT_CHECKED)

    def clean_credential(self) -> Any:
        return _checked(PASSKEY_NOT_CHECKED, super().clean_credential)


# A passkey's name: a device's ("Chrome on Android", "Marie's work laptop") fits with room to
# spare; a page of text pasted by mistake is refused, not drawn down the list of passkeys.
PASSKEY_NAME_MAX = 64


def _name_at_most(field: forms.CharField) -> None:
    """``field`` (allauth's, unbounded) refused past PASSKEY_NAME_MAX, and its input stops there."""
    field.max_length = PASSKEY_NAME_MAX
    field.validators.append(MaxLengthValidator(PASSKEY_NAME_MAX))
    field.widget.attrs["maxlength"] = str(PASSKEY_NAME_MAX)


class AddWebAuthnForm(AllauthAddWebAuthnForm):  # type: ignore[misc]
    """allauth's "Add a passkey", saying why when no passkey came with it, and its name field tied
    to what the name is for (its page's line, templates/mfa/webauthn/add_form.html)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        # Its password was confirmed already: a passkey not added is tried again, or not at all.
        _credential_checked(self, PASSKEY_NOT_CHECKED_AGAIN)
        # As help, Django ties it to the field (aria-describedby), and any error of the name too.
        self.fields["name"].help_text = _("To tell your passkeys apart later: the device it is on, say.")
        _name_at_most(cast(forms.CharField, self.fields["name"]))

    def clean(self) -> Any:
        return _checked(PASSKEY_NOT_CHECKED_AGAIN, super().clean)


class EditWebAuthnForm(AllauthEditWebAuthnForm):  # type: ignore[misc]
    """allauth's "Rename a passkey", its name as long as a new one's at most."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        _name_at_most(cast(forms.CharField, self.fields["name"]))


class AuthenticateWebAuthnForm(AllauthAuthenticateWebAuthnForm):  # type: ignore[misc]
    """allauth's "Confirm with your passkey" after the password, saying why when no passkey came
    with it; the password is no way round a passkey that could not be checked, so it says try again."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        _credential_checked(self, PASSKEY_NOT_CHECKED_AGAIN)

    def clean_credential(self) -> Any:
        return _checked(PASSKEY_NOT_CHECKED_AGAIN, super().clean_credential)


class PrivacyForm(forms.Form):
    public = forms.BooleanField(
        required=False,
        label=_("Public profile"),
        help_text=_("Anyone may see your games and stats, and you are listed on the leaderboards."),
    )


class DeleteAccountForm(forms.Form):
    password = forms.CharField(
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        label=_("Your password, to confirm"),
    )

from __future__ import annotations

from typing import cast

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


class LoginWebAuthnForm(AllauthLoginWebAuthnForm):  # type: ignore[misc]  # allauth has no type hints
    """allauth's "Sign in with a passkey", saying why when no passkey came with it."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["credential"].error_messages["required"] = NO_CREDENTIAL


class ReauthenticateWebAuthnForm(AllauthReauthenticateWebAuthnForm):  # type: ignore[misc]
    """allauth's "Use your passkey" before a change to the account, saying why when no passkey came with it."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["credential"].error_messages["required"] = NO_CREDENTIAL


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
        self.fields["credential"].error_messages["required"] = NO_CREDENTIAL
        # As help, Django ties it to the field (aria-describedby), and any error of the name too.
        self.fields["name"].help_text = _("To tell your passkeys apart later: the device it is on, say.")
        _name_at_most(cast(forms.CharField, self.fields["name"]))


class EditWebAuthnForm(AllauthEditWebAuthnForm):  # type: ignore[misc]
    """allauth's "Rename a passkey", its name as long as a new one's at most."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        _name_at_most(cast(forms.CharField, self.fields["name"]))


class AuthenticateWebAuthnForm(AllauthAuthenticateWebAuthnForm):  # type: ignore[misc]
    """allauth's "Confirm with your passkey" after the password, saying why when no passkey came with it."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["credential"].error_messages["required"] = NO_CREDENTIAL


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

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


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

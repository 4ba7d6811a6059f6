from __future__ import annotations

from django import forms


class PrivacyForm(forms.Form):
    public = forms.BooleanField(
        required=False,
        label="Public profile",
        help_text="Anyone may see your games and stats, and you are listed on the leaderboards.",
    )


class DeleteAccountForm(forms.Form):
    password = forms.CharField(
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        label="Your password, to confirm",
    )

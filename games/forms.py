from django import forms

from games.rules import RULESETS
from games.services import NAME_MAX

RULESET_FIELD_CHOICES = [(rs.name, f"{rs.label}: {rs.summary}") for rs in RULESETS.values()]


class CreateRoomForm(forms.Form):
    name = forms.CharField(label="Your name", max_length=NAME_MAX)
    ruleset = forms.ChoiceField(label="Rule set", choices=RULESET_FIELD_CHOICES, initial="official")
    mode = forms.ChoiceField(
        label="How you play",
        choices=[("online", "Play online: invite friends with a link"), ("local", "Play on this device")],
        initial="online",
        widget=forms.RadioSelect,
    )
    client_seed = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)


class JoinRoomForm(forms.Form):
    name = forms.CharField(label="Your name", max_length=NAME_MAX)
    client_seed = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)


class JoinByCodeForm(forms.Form):
    code = forms.CharField(label="Room code", max_length=32)

import re
from typing import Any

from django import forms

from games.domain.rules import RULESETS
from games.services import BOT_LEVELS, NAME_MAX, normalize_code, timer_choices

RULESET_FIELD_CHOICES = [(rs.name, f"{rs.label}: {rs.summary}") for rs in RULESETS.values()]


MAX_LOCAL_PLAYERS = 8


def timer_label(seconds: int) -> str:
    if not seconds:
        return "Off"
    if seconds % 60 == 0:
        minutes = seconds // 60
        return f"{minutes} minute{'s' if minutes > 1 else ''}"
    return f"{seconds} seconds"


class CreateRoomForm(forms.Form):
    name = forms.CharField(label="Your name", max_length=NAME_MAX, required=False)
    ruleset = forms.ChoiceField(label="Rule set", choices=RULESET_FIELD_CHOICES, initial="official")
    mode = forms.ChoiceField(
        label="How you play",
        choices=[("online", "Play online: invite friends with a link"), ("local", "Play on this device")],
        initial="online",
        widget=forms.RadioSelect,
    )
    client_seed = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)
    players = forms.IntegerField(
        label="People playing on this device", min_value=1, max_value=MAX_LOCAL_PLAYERS, initial=2, required=False
    )
    bots = forms.IntegerField(
        label="Computer players", min_value=0, max_value=MAX_LOCAL_PLAYERS - 1, initial=0, required=False
    )
    level = forms.ChoiceField(
        label="Computer level", choices=list(BOT_LEVELS.items()), initial="casual", required=False
    )
    hints = forms.BooleanField(label="Allow hints from the coach", required=False, initial=True)
    turn_timer = forms.TypedChoiceField(label="Turn timer", coerce=int, initial=0, required=False, empty_value=0)  # type: ignore[arg-type]  # Django takes any empty value; the stubs say str
    chat_spectators = forms.BooleanField(label="Spectators may post in the chat", required=False, initial=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # TURN_TIMER_CHOICES (settings): the tests add a few-second timer.
        timer: Any = self.fields["turn_timer"]
        timer.choices = [(seconds, timer_label(seconds)) for seconds in timer_choices()]
        # Pass-and-play names: player_1 ... player_8, each optional ("Player 3" if blank).
        for i in range(1, MAX_LOCAL_PLAYERS + 1):
            self.fields[f"player_{i}"] = forms.CharField(label=f"Player {i}", max_length=NAME_MAX, required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("mode") == "online" and not data.get("name"):
            self.add_error("name", "Please enter your name: the other players will see it.")
        if data.get("mode") == "local":
            count = data.get("players") or 1
            data["names"] = [data.get(f"player_{i}") or f"Player {i}" for i in range(1, count + 1)]
            computers = data.get("bots") or 0
            if count + computers > MAX_LOCAL_PLAYERS:
                self.add_error(
                    "bots",
                    f"A game has at most {MAX_LOCAL_PLAYERS} players, computers included: "
                    f"{count} {'person' if count == 1 else 'people'} and {computers} computers "
                    f"make {count + computers}.",
                )
        data["bots"] = data.get("bots") or 0
        data["level"] = data.get("level") or "casual"
        return data

    def player_fields(self) -> list[forms.BoundField]:
        return [self[f"player_{i}"] for i in range(1, MAX_LOCAL_PLAYERS + 1)]


class JoinRoomForm(forms.Form):
    name = forms.CharField(label="Your name", max_length=NAME_MAX)
    client_seed = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)


# A pasted invite link: http(s)://host/r/<code>/..., or just the path /r/<code>/...
_INVITE_LINK = re.compile(r"^(?:[a-z][a-z0-9+.-]*://[^/?#]*)?/?r/([^/?#]+)(?:[/?#].*)?$", re.IGNORECASE)
_CODE_SHAPE = re.compile(r"^[a-z0-9]{1,32}$")


def code_from_input(text: str) -> str:
    """The room code in what a person typed or pasted: a code, or the room's invite link.

    Raises ValidationError with a message a person can act on for anything else.
    """
    text = text.strip()
    link = _INVITE_LINK.match(text)
    if link:
        text = link.group(1)
    elif "/" in text or ":" in text:
        raise forms.ValidationError(
            "That is not a room link. Paste the whole invite link (…/r/abcd-efgh-jk/) or type just the code."
        )
    code = normalize_code(text)
    if not _CODE_SHAPE.match(code):
        raise forms.ValidationError("A room code has only letters and digits, like abcd-efgh-jk.")
    return code


class JoinByCodeForm(forms.Form):
    code = forms.CharField(
        label="Room code or invite link",
        max_length=300,
        error_messages={"required": "Type the room code, or paste the invite link."},
    )

    def clean_code(self) -> str:
        return code_from_input(self.cleaned_data["code"])

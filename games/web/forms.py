import re
import unicodedata
from typing import Any

from django import forms
from django.core.validators import EmailValidator
from django.utils.functional import lazy
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from games.domain.rules import RULESETS
from games.services import (
    CODE_LENGTH,
    LOST_LETTER,
    NAME_MAX,
    NAME_TYPED_MAX,
    code_in_link,
    duration,
    normalize_code,
    notices,
    own_pace_choices,
    timer_choices,
    words,
)
from games.web.refusals import WORDS


def _ruleset_choice(name: str) -> str:
    # Translators: a rule set's name, then what sets it apart (French puts a space before the colon).
    return gettext("%(ruleset)s: %(summary)s") % {
        "ruleset": words.ruleset_label(name),
        "summary": words.ruleset_summary(name),
    }


RULESET_FIELD_CHOICES = [(rs.name, lazy(_ruleset_choice, str)(rs.name)) for rs in RULESETS.values()]


MAX_LOCAL_PLAYERS = 8


def no_lost_letter(value: str) -> None:
    """A name holding U+FFFD, which the form's decoding put where the bytes posted were not UTF-8,
    is refused here in the reader's language (the services refuse it too, in English)."""
    if LOST_LETTER in value:
        raise forms.ValidationError(
            _("A name cannot hold �, the sign of a letter lost on the way: please type it again."), code="lost_letter"
        )


class NameField(forms.CharField):
    """A display name of at most NAME_MAX characters, counted as it is stored: composed (NFC), so
    that a letter typed with its marks apart counts once; the page lets NAME_TYPED_MAX be typed."""

    default_validators = [no_lost_letter]

    def __init__(self, **kwargs: Any) -> None:
        errors = {"max_length": _("Please enter a name of at most 24 characters."), **kwargs.pop("error_messages", {})}
        super().__init__(max_length=NAME_MAX, error_messages=errors, **kwargs)

    def to_python(self, value: Any) -> str | None:
        text = super().to_python(value)
        return unicodedata.normalize("NFC", text) if text else text

    def widget_attrs(self, widget: forms.Widget) -> dict[str, Any]:
        return {**super().widget_attrs(widget), "maxlength": str(NAME_TYPED_MAX)}


def timer_label(seconds: int) -> str:
    if not seconds:
        return str(_("Off"))
    if seconds % 60 == 0:
        minutes = seconds // 60
        return ngettext("%(n)s minute", "%(n)s minutes", minutes) % {"n": minutes}
    return ngettext("%(n)s second", "%(n)s seconds", seconds) % {"n": seconds}


def move_time_label(seconds: int) -> str:
    return duration(seconds) if seconds else str(_("No limit"))


PACE_CHOICES = [
    ("live", _("Live: everyone at the table now")),
    ("own", _("At your own pace: moves days apart, each player told when it is their turn")),
]


class CreateRoomForm(forms.Form):
    name = NameField(label=_("Your name"), required=False)
    # A choice no longer offered (a page from before a change) is said in the services' words.
    ruleset = forms.ChoiceField(
        label=_("Rule set"),
        choices=RULESET_FIELD_CHOICES,
        initial="official",
        error_messages={"required": WORDS["bad_ruleset"], "invalid_choice": WORDS["bad_ruleset"]},
    )
    mode = forms.ChoiceField(
        label=_("How you play"),
        choices=[("online", _("Play online: invite friends with a link")), ("local", _("Play on this device"))],
        initial="online",
        widget=forms.RadioSelect,
        error_messages={
            "required": _("Choose how you play: online, or on this device."),
            "invalid_choice": _("Choose how you play: online, or on this device."),
        },
    )
    client_seed = forms.CharField(
        required=False, max_length=64, widget=forms.HiddenInput, error_messages={"max_length": WORDS["bad_field"]}
    )
    players = forms.IntegerField(
        label=_("People playing on this device"), min_value=1, max_value=MAX_LOCAL_PLAYERS, initial=2, required=False
    )
    bots = forms.IntegerField(
        label=_("Computer players"), min_value=0, max_value=MAX_LOCAL_PLAYERS - 1, initial=0, required=False
    )
    level = forms.ChoiceField(
        label=_("Computer level"),
        choices=list(words.LEVELS.items()),
        initial="casual",
        required=False,
        error_messages={"invalid_choice": WORDS["bad_level"]},
    )
    hints = forms.BooleanField(label=_("Allow hints from the coach"), required=False, initial=True)
    turn_timer = forms.TypedChoiceField(
        label=_("Turn timer"),
        coerce=int,
        initial=0,
        required=False,
        empty_value=0,  # type: ignore[arg-type]  # Django takes any empty value; the stubs say str
        error_messages={"invalid_choice": WORDS["bad_timer"]},
    )
    chat_spectators = forms.BooleanField(label=_("Spectators may post in the chat"), required=False, initial=False)
    pace = forms.ChoiceField(
        label=_("Pace"),
        choices=PACE_CHOICES,
        initial="live",
        required=False,
        widget=forms.RadioSelect,
        error_messages={"invalid_choice": _("Choose a pace: live, or at your own pace.")},
    )
    move_time = forms.TypedChoiceField(
        label=_("Time per move"),
        coerce=int,
        required=False,
        empty_value=None,
        error_messages={"invalid_choice": _("Choose a time per move from the list.")},
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # TURN_TIMER_CHOICES (settings): the tests add a few-second timer.
        timer: Any = self.fields["turn_timer"]
        timer.choices = [(seconds, timer_label(seconds)) for seconds in timer_choices()]
        # OWN_PACE_CHOICES: 1, 3 or 7 days, or none; 3 days unless it is not offered.
        move: Any = self.fields["move_time"]
        choices = own_pace_choices()
        move.choices = [(seconds, move_time_label(seconds)) for seconds in choices]
        move.initial = 3 * 86_400 if 3 * 86_400 in choices else choices[0]
        # Pass-and-play names: player_1 ... player_8, each optional ("Player 3" if blank).
        for i in range(1, MAX_LOCAL_PLAYERS + 1):
            label = _("Player %(n)s") % {"n": i}
            self.fields[f"player_{i}"] = NameField(label=label, required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        # What the chosen way of playing does not use is not read: home.js leaves it out of the
        # post, and a page without script sends it hidden.
        for name in self.unused():
            self.errors.pop(name, None)
            data.pop(name, None)
        if data.get("mode") == "online" and not data.get("name") and "name" not in self.errors:
            self.add_error("name", _("Please enter your name: the other players will see it."))
        data["pace"] = data.get("pace") or "live"
        # Without script the pace shows beside "Play on this device": that pair is refused, not
        # made live behind its chooser's back (home.js leaves the pace out of a game on one device).
        if data["pace"] == "own" and data.get("mode") == "local":
            self.add_error(None, _("A game played on one device is live: everyone is at the table."))
        elif data["pace"] == "own":
            if data.get("move_time") is None and "move_time" not in self.errors:
                self.add_error("move_time", _("Choose a time per move: how long each player may take."))
            data["turn_timer"] = data.get("move_time") or 0
        if data.get("mode") == "local":
            count = data.get("players") or 1
            data["names"] = [data.get(f"player_{i}") or str(_("Player %(n)s") % {"n": i}) for i in range(1, count + 1)]
            computers = data.get("bots") or 0
            if count + computers > MAX_LOCAL_PLAYERS:
                people = ngettext("%(n)s person", "%(n)s people", count) % {"n": count}
                machines = ngettext("%(n)s computer", "%(n)s computers", computers) % {"n": computers}
                self.add_error(
                    "bots",
                    _(
                        "A game has at most %(max)s players, computers included: "
                        "%(people)s and %(computers)s make %(sum)s."
                    )
                    % {"max": MAX_LOCAL_PLAYERS, "people": people, "computers": machines, "sum": count + computers},
                )
        data["bots"] = data.get("bots") or 0
        data["level"] = data.get("level") or "casual"
        return data

    def player_fields(self) -> list[forms.BoundField]:
        return [self[f"player_{i}"] for i in range(1, MAX_LOCAL_PLAYERS + 1)]

    def unused(self) -> set[str]:
        """The fields the way of playing chosen does not use, which home.js hides: the other mode's,
        the other pace's, pass-and-play names past the number of people. (A game on one device
        reads the pace only to refuse "own".)"""
        if self.data.get("mode") == "local":
            people = self.cleaned_data.get("players") or 1
            return {"name", "move_time"} | {f"player_{i}" for i in range(people + 1, MAX_LOCAL_PLAYERS + 1)}
        own = self.data.get("pace") == "own"
        return {"players", "bots", "level", "turn_timer" if own else "move_time"} | {
            f"player_{i}" for i in range(1, MAX_LOCAL_PLAYERS + 1)
        }

    def out_of_sight(self) -> set[str]:
        """The fields the page hides for the way of playing chosen: those it does not use, the
        pace of a game on one device, and the seed."""
        return self.unused() | {"client_seed"} | ({"pace"} if self.data.get("mode") == "local" else set())

    def said_above(self) -> list[str]:
        """What the page says above the form: the errors of no field, and those of the fields out
        of sight, each after its field's name (the page draws the others beside their field)."""
        if not self.is_bound:
            return []
        said = [str(error) for error in self.non_field_errors()]
        hidden = self.out_of_sight()
        for name, field in self.fields.items():
            for error in self.errors.get(name, []) if name in hidden else []:
                named = _("%(field)s: %(error)s") % {"field": field.label, "error": error}
                said.append(str(error if field.widget.is_hidden else named))
        return said


class JoinRoomForm(forms.Form):
    """The lobby's *Take a seat*: each field's errors are its own, said beside the name or, for
    the hidden seed, above the room (games.web.views.room_join). Its hidden ``action_id`` is an
    action's id, checked as a frame's is (games.web.views.join_id)."""

    name = NameField(
        label=_("Your name"), error_messages={"required": _("Please enter your name: the other players will see it.")}
    )
    client_seed = forms.CharField(
        required=False, max_length=64, widget=forms.HiddenInput, error_messages={"max_length": WORDS["bad_field"]}
    )


_CODE_SHAPE = re.compile(r"^[a-z0-9]{1,32}$")
_CODE_KEPT = 32  # what normalize_code keeps of what was typed


def code_length_said(length: int) -> str:
    """Why a code of ``length`` letters and digits names no room: room codes have CODE_LENGTH."""
    wrong = _("A room code has %(length)s letters and digits, not %(n)s: check it with whoever sent it.")
    return wrong % {"length": CODE_LENGTH, "n": length}


def code_from_input(text: str) -> str:
    """The room code in what a person typed or pasted: a code, or the room's invite link.

    Raises ValidationError with a message a person can act on for anything else.
    """
    text = unicodedata.normalize("NFKC", text).strip()  # a link typed in full-width too
    linked = code_in_link(text)
    if linked is not None:
        text = linked
    elif "/" in text or ":" in text:
        raise forms.ValidationError(
            _("That is not a room link. Paste the whole invite link (…/r/abcd-efgh-jk/) or type just the code.")
        )
    code = normalize_code(text)
    typed = "".join(char for char in text if not char.isspace() and unicodedata.category(char) != "Pd")
    if len(typed) > _CODE_KEPT and _CODE_SHAPE.match(code):
        # Longer than any code: said with the length typed, not the part normalize_code kept.
        raise forms.ValidationError(code_length_said(len(typed)))
    if not _CODE_SHAPE.match(code):
        raise forms.ValidationError(_("A room code has only letters and digits, like abcd-efgh-jk."))
    return code


class JoinByCodeForm(forms.Form):
    code = forms.CharField(
        label=_("Room code or invite link"),
        max_length=300,
        error_messages={"required": _("Type the room code, or paste the invite link.")},
    )

    def clean_code(self) -> str:
        return code_from_input(self.cleaned_data["code"])


class InternetAddressValidator(EmailValidator):
    """An e-mail address at a domain name on the internet (``notices.mailable_domain``): Django's
    own check lets through ``name@localhost`` and an IP address (``name@[10.0.0.7]``)."""

    def __init__(self) -> None:
        super().__init__(allowlist=())

    def validate_domain_part(self, domain_part: str) -> bool:
        if not notices.mailable_domain(domain_part):
            return False
        return super().validate_domain_part(domain_part)


class InternetAddressField(forms.EmailField):
    default_validators = [InternetAddressValidator()]


class EmailNoticesForm(forms.Form):
    """An account's e-mails of its games (its turn, a seat the computer took over, a game's end): on or off,
    and the address they go to."""

    address = InternetAddressField(label=_("E-mail address"), required=False, max_length=254)
    on = forms.BooleanField(
        label=_("E-mail me when it is my turn, when the computer takes over my seat and when a game ends"),
        required=False,
    )

    def __init__(self, *args: Any, shown: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.shown = shown  # the addresses the field is drawn with: the saved one, the account's

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        typed = str(self.data.get("address") or "").strip()
        if not data.get("on") and "address" in self.errors and typed and typed in self.shown:
            # Turning the e-mails off sends nothing anywhere: the address no mail may go to that
            # was saved before the form refused such ones, still shown in the field, does not keep
            # them on. Another address typed is kept with the e-mails off, so a bad one is refused.
            del self.errors["address"]
            data["address"] = ""
        if data.get("on") and not data.get("address") and "address" not in self.errors:
            self.add_error("address", _("Give the address to e-mail you at."))
        return data

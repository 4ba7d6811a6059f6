"""A service's refusal as a page tells it, in the reader's language.

The services word their refusals in English (``RuleViolation.message``, also what the socket
sends and the log keeps). A page shows the code's words instead, the same the room page's
script shows for the socket's (static/js/words.js), when the reader's language is not
English; in English the service's own, more particular message.
"""

from __future__ import annotations

from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from games.domain.rules import RuleViolation

WORDS = {
    "game_not_started": _("The game has not started yet."),
    "game_over": _("The game is over."),
    "not_your_turn": _("It is not your turn."),
    "no_rolls_left": _("No rolls left: choose a box to score."),
    "not_rolled": _("Roll first."),
    "all_held": _("Keep at most four dice: a roll needs at least one die to throw."),
    "box_filled": _("That box is already filled."),
    "joker_forbids": _("That box is not allowed for this roll."),
    "already_started": _("The game has already started."),
    "not_a_player": _("You are not playing in this room."),
    "not_host": _("Only the host can do that."),
    "room_full": _("The room is full."),
    "not_in_lobby": _("The game has already started."),
    "not_playing": _("The game is not in progress."),
    "bad_name": _("Choose a name of 1 to 24 characters."),
    "name_taken": _("Someone at the table already has that name."),
    "kicked": _("The host took you out of this room: you can watch."),
    "local_room": _("This game is played on one device."),
    "paused": _("The host paused the game: play goes on when they resume it."),
    "unavailable": _("The server is busy for a moment: nothing was lost, try again."),
    "rate_limited": _("Too many actions at once: slow down a little."),
}


def refusal(exc: RuleViolation) -> str:
    """What a page says for ``exc``: its code's words in the reader's language, else its own message."""
    words = WORDS.get(exc.code)
    if words is None or (get_language() or "en").split("-")[0] == "en":
        return exc.message
    return str(words)

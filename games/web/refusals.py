"""A service's refusal as a page tells it, in the reader's language.

The services word their refusals in English (``RuleViolation.message``, also what the socket
sends and the log keeps). A page shows the code's words instead, the same the room page's
script shows for the socket's (static/js/words.js), when the reader's language is not
English; in English the service's own, more particular message. Every code a page's form
can meet has words here: a code without them would put an English sentence on the page.
"""

from __future__ import annotations

from django.utils.translation import get_language, ngettext_lazy
from django.utils.translation import gettext_lazy as _

from games.domain.rules import RuleViolation
from games.services import chat
from games.services.actions import HostResumes
from games.services.codes import NameRefused, isolated

# A name refused as a seated player's look-alike ("Annl" beside "Ann1"), the seat's name put in:
# seat names are the table's, shown to everyone there.
READS_AS = _("That name reads the same as %(name)s, who is already at the table: please choose another name.")
# A second player of one device given the name of a player seated on it.
SITS_HERE = _("%(name)s already sits at this table on this device: each player on it needs a name of their own.")

WORDS = {
    # The rules.
    "game_not_started": _("The game has not started yet."),
    "game_over": _("The game is over."),
    "not_your_turn": _("It is not your turn."),
    "no_rolls_left": _("No rolls left: choose a box to score."),
    "not_rolled": _("Roll first."),
    "all_held": _("Keep at most four dice: a roll needs at least one die to throw."),
    "box_filled": _("That box is already filled."),
    "joker_forbids": _("That box is not allowed for this roll."),
    "bad_die_index": _("Those dice are not on the table: choose up to five to keep."),
    "unknown_box": _("There is no box by that name."),
    "bad_column": _("That column is not on this scorecard."),
    "bad_players": _("That is not a number of players a game can have."),
    "card_full": _("That player's card is full: there is no turn left for a computer to play."),
    "already_started": _("The game has already started."),
    # The services. A form sent again (a double click, a reload, the back button) or drawn before
    # someone else moved meets stale or repeated_action: the room page's script says the first
    # as this, and shows the table for the second.
    "stale": _("The table changed just before your move: have a look and try again."),
    "repeated_action": _("That was already done: the table shows it."),
    "not_a_player": _("You are not playing in this room."),
    "not_host": _("Only the host can do that."),
    "room_full": _("The room is full."),
    "not_in_lobby": _("The game has already started."),
    "not_playing": _("The game is not in progress."),
    "bad_name": _("Choose a name of 1 to 24 characters."),
    "name_taken": _("Someone at the table already has that name."),
    "name_reserved": _("That name is how the site shows spectators or deleted accounts: please choose another."),
    "kicked": _("The host took you out of this room: you can watch."),
    "bad_seat": _("That seat is not there any more: the table is being brought up to date."),
    "own_device": _("That seat is played on your own device: leave it instead."),
    "bad_ruleset": _("Choose one of the rule sets offered."),
    "bad_request": _("That request could not be used: allow cookies for this site, reload the page and try again."),
    "local_room": _("This game is played on one device."),
    "not_over": _("The game is not over yet."),
    "bad_level": _("Choose one of the computer levels offered."),
    "player_present": _("That player is here now: only an away player's seat can be taken over."),
    "not_reclaimable": _("A computer is not playing that seat for you."),
    "just_away": _("That player only just went away: give them a few more seconds to come back."),
    "own_seat": _("That is your own seat."),
    "already_computer": _("A computer already plays that seat."),
    # Things done as often as one game allows (games.domain.room.LIMITS).
    "joins_used_up": _("Seats in this room have been taken as often as one game allows: no more can be taken."),
    "pauses_used_up": _("This game has been paused as often as one game allows."),
    "mutes_used_up": _("Chat in this game has been muted as often as one game allows."),
    "handovers_used_up": _("Seats in this game have been handed to a computer as often as one game allows."),
    "rematches_used_up": _("This game has had as many rematches as one game allows: open a new room."),
    # Social play, your own pace and its notices.
    "paused": _("The host paused the game: play goes on when they resume it."),
    "you_paused": _("You paused the game: play goes on when you resume it."),
    "yours_to_resume": _("The game is paused: play goes on when you resume it."),
    # Said to the others when the host who paused left: the new host's name put in (``refusal``).
    "host_to_resume": _("The game is paused: play goes on when %(name)s, the host, resumes it."),
    "not_paused": _("The game is not paused."),
    "bad_timer": _("Choose one of the times offered."),
    "bad_pace": _("That pace is not offered for this game."),
    "bad_message": _("Write something first."),
    # The limit is the server's (chat.CHAT_MAX), put in when said (``refusal``).
    "chat_too_long": ngettext_lazy(
        "A chat message is at most %(max)s character.", "A chat message is at most %(max)s characters.", "max"
    ),
    "chat_closed": _("Spectators may not post in this room's chat."),
    "muted": _("The host muted your chat."),
    "taken_out": _("The host took you out of this game: you can read its chat but not post to it."),
    "already_muted": _("That player's chat is already muted."),
    "not_muted": _("That player's chat is not muted."),
    "bad_spectator": _("There is no such spectator in this room's chat."),
    "own_chat": _("Those lines are your own: your own chat cannot be muted."),
    "spectator_already_muted": _("That spectator's chat is already muted."),
    "spectator_not_muted": _("That spectator's chat is not muted."),
    "bad_reaction": _("Choose one of the reactions offered."),
    "hints_off": _("Hints are turned off in this room."),
    "roll_first": _("Roll first: the coach advises on the dice you have."),
    "coach_error": _("The coach could not answer: try again."),
    "own_pace": _("At your own pace nobody need be online: a seat is not taken over for being away."),
    "no_address": _("Give the address to e-mail you at."),
    "mailed_enough": _("That address has been sent enough links for today: try again tomorrow."),
    "asked_enough": _("You have asked for enough links for today: try again tomorrow."),
    "mail_failed": _("The e-mail could not be sent just now; please try again later."),
    "bad_subscription": _(
        "This browser's notification subscription could not be used: try again, or use another browser."
    ),
    # Said only if making a new one failed too (notify.js makes one at this answer).
    "subscription_gone": _("This browser's notification subscription has expired: turn notifications on again."),
    # Not shown by notify.js, which turns the browser's subscription off at this answer.
    "subscription_ended": _("Notifications on this device were stopped by a sign-out: turn them on again."),
    # An endpoint stored for another browser, posted with other keys than its own.
    "subscription_held": _("That notification subscription is another browser's: it cannot be moved to this one."),
    # A form's field the frame's check refused (one that lost a field: FORM_PROBLEMS in views.py).
    "missing_field": _("The form was missing something; reload the page and try again."),
    "bad_field": _("Something in the form was not what the game expected; reload the page and try again."),
    # The server itself.
    "unavailable": _("The server is busy for a moment: nothing was lost, try again."),
    "rate_limited": _("Too many actions at once: slow down a little."),
}


class Worded(RuleViolation):
    """A refusal the page words itself (a form that lost a field), its message already in the reader's language."""


def refusal(exc: RuleViolation) -> str:
    """What a page says for ``exc``: its code's words in the reader's language, else its own message."""
    if isinstance(exc, Worded):
        return exc.message
    words = WORDS.get(exc.code)
    if words is None or (get_language() or "en").split("-")[0] == "en":
        return exc.message
    if isinstance(exc, NameRefused) and exc.reads_as:
        return str(READS_AS % {"name": isolated(exc.reads_as)})
    if isinstance(exc, NameRefused) and exc.sits_here:
        return str(SITS_HERE % {"name": isolated(exc.sits_here)})
    if isinstance(exc, HostResumes):
        return str(words % {"name": isolated(exc.host)})
    if exc.code == "chat_too_long":
        return str(words % {"max": chat.CHAT_MAX})
    return str(words)

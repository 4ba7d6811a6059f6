"""Every error code the server answers with, in one place (clients switch on them).

Pure Python, the standard library only: the rules import their codes from here too. A
code is sent as ``{"type": "error", "code": ...}`` on the websocket and as
``{"error": ...}`` in a JSON response; docs/protocol.md lists them for clients. Most
refusals say something of their case in their message; the codes whose message is always
the same have it in ``MESSAGES`` (``message``), for every layer that answers with them.
"""

# --- the rules (games.domain.rules, raised as RuleViolation) ----------------------------------
GAME_NOT_STARTED = "game_not_started"
GAME_OVER = "game_over"
NOT_YOUR_TURN = "not_your_turn"
NO_ROLLS_LEFT = "no_rolls_left"
NOT_ROLLED = "not_rolled"
BAD_DIE_INDEX = "bad_die_index"
ALL_HELD = "all_held"
UNKNOWN_BOX = "unknown_box"
BAD_COLUMN = "bad_column"
BOX_FILLED = "box_filled"
JOKER_FORBIDS = "joker_forbids"
BAD_PLAYERS = "bad_players"
CARD_FULL = "card_full"  # a seat that left with every box filled: no turn of it is left to play
BAD_DICE = "bad_dice"
ALREADY_STARTED = "already_started"

# --- the services (games.services, RuleViolation) ---------------------------------------
STALE = "stale"
REPEATED = "repeated_action"
NOT_A_PLAYER = "not_a_player"
NOT_HOST = "not_host"
ROOM_FULL = "room_full"
NOT_IN_LOBBY = "not_in_lobby"
NOT_PLAYING = "not_playing"
BAD_NAME = "bad_name"
NAME_TAKEN = "name_taken"
NAME_RESERVED = "name_reserved"  # a name the site shows deleted accounts or spectators under: nobody may choose it
KICKED = "kicked"  # the host took this browser's seat out of the lobby: it does not take another
BAD_SEAT = "bad_seat"  # no such seat, or one that left: the page's table is behind
OWN_DEVICE = "own_device"  # kick or remove of a seat the host's own browser plays: it is left instead
OWN_SEAT = "own_seat"  # a computer for the asker's own seat, or a mute of the host's
ALREADY_COMPUTER = "already_computer"  # a computer for a seat a computer plays already
NOT_RECLAIMABLE = "not_reclaimable"  # back for a seat a computer does not play for this browser
BAD_RULESET = "bad_ruleset"
BAD_REQUEST = "bad_request"
LOCAL_ROOM = "local_room"
NOT_OVER = "not_over"
BAD_LEVEL = "bad_level"
PLAYER_PRESENT = "player_present"
JUST_AWAY = "just_away"  # the player of a live game's seat went away less than settings.HOST_AWAY ago
SAME_HOLD = "same_hold"  # a hold of the dice held already: it would change nothing
HOLDS_USED_UP = "holds_used_up"  # the held dice were changed as often as they may be between two rolls
# Things a person may do again and again, each a Move the log keeps: done as often as one game allows
# (games.domain.room.LIMITS). The way back is never refused: a leave, a resume, an unmute, a reclaim.
JOINS_USED_UP = "joins_used_up"  # seats taken in the lobby (a join, a computer added)
PAUSES_USED_UP = "pauses_used_up"  # the host's pauses
MUTES_USED_UP = "mutes_used_up"  # the host's mutes of a seat or a spectator
HANDOVERS_USED_UP = "handovers_used_up"  # seats handed to a computer by a player
REMATCHES_USED_UP = "rematches_used_up"  # rematch rooms made after the game

# --- social play (games.services.chat, games.services.clock, RuleViolation) --------------
PAUSED = "paused"  # the host paused the game: turn actions wait for the resume
YOU_PAUSED = "you_paused"  # ``paused``, said to the host: a turn action or a pause of theirs while paused
YOURS_TO_RESUME = "yours_to_resume"  # ``paused``, said to a host handed the role during the pause: theirs to resume
HOST_TO_RESUME = "host_to_resume"  # ``paused``, said to the others when the host who paused no longer hosts
NOT_PAUSED = "not_paused"
BAD_MESSAGE = "bad_message"  # a chat message is text, not empty after trimming
CHAT_TOO_LONG = "chat_too_long"  # a chat message over 300 characters: refused whole, never cut
CHAT_CLOSED = "chat_closed"  # spectators may not post in this room
MUTED = "muted"  # the host muted this seat's chat, or this spectator's
TAKEN_OUT = "taken_out"  # a post from a browser the host took out of the game (a kick, a remove): it reads, not posts
BAD_SPECTATOR = "bad_spectator"  # no spectator of the room's chat goes by that name (``spectator`` of a chat line)
OWN_CHAT = "own_chat"  # a spectator's mute of the host's own browser (lines it posted before it took a seat)
ALREADY_MUTED = "already_muted"  # a mute of a seat muted already
NOT_MUTED = "not_muted"  # an unmute of a seat that is not muted
SPECTATOR_ALREADY_MUTED = "spectator_already_muted"  # a mute of a spectator muted already
SPECTATOR_NOT_MUTED = "spectator_not_muted"  # an unmute of a spectator who is not muted
BAD_REACTION = "bad_reaction"
BAD_TIMER = "bad_timer"

# --- play at your own pace and its notices (games.services.pace, games.services.notices) --
BAD_PACE = "bad_pace"  # a pace or time per move the server does not offer
OWN_PACE = "own_pace"  # nobody need be online in a game at your own pace: no taking a seat for being away
BAD_SUBSCRIPTION = "bad_subscription"  # a Web Push subscription that is not one, or names a push service not allowed
SUBSCRIPTION_GONE = "subscription_gone"  # a Web Push subscription its push service said is gone: make a new one
# a subscription the browser kept after a sign-out ended it (or made for someone else): dropped, not posted again
SUBSCRIPTION_ENDED = "subscription_ended"
# a Web Push endpoint stored for another browser, posted by someone else with other keys (or named as
# the new one of another browser's renewal): it stays its browser's
SUBSCRIPTION_HELD = "subscription_held"
NO_ADDRESS = "no_address"  # e-mail notices need the account to have an e-mail address
MAILED_ENOUGH = "mailed_enough"  # the address was sent as many confirmation links as it gets in a day
ASKED_ENOUGH = "asked_enough"  # the account asked for as many confirmation links as it may in a day
MAIL_FAILED = "mail_failed"  # the mail server could not take the confirmation e-mail: nothing was stored

# --- the coach (games.services.coach, RuleViolation) ----------------------------------------------
HINTS_OFF = "hints_off"
COACH_BUSY = "coach_busy"
ROLL_FIRST = "roll_first"
COACH_ERROR = "coach_error"  # the coach failed: the socket answers this and stays open

# --- a frame that is not one the protocol declares (games.domain.protocol.FrameError) ------------
BAD_FRAME = "bad_frame"
FRAME_TOO_LARGE = "frame_too_large"
BAD_JSON = "bad_json"
UNKNOWN_TYPE = "unknown_type"
MISSING_FIELD = "missing_field"
BAD_FIELD = "bad_field"

# --- the pages' JSON answers (games.web.views) -------------------------------------------------
NOT_FINISHED = "not_finished"  # a finished game's roll log, asked for too early
NO_ROOM = "no_room"  # no room has that code (a 404 of the room's JSON addresses)
# An empty error of an address asked for as JSON (games.web.errorpages), named by its status.
FORBIDDEN = "forbidden"  # 403: not open to this request
NOT_FOUND = "not_found"  # 404: no such address
METHOD_NOT_ALLOWED = "method_not_allowed"  # 405: a method the address does not take (its Allow names those it does)
CSRF_FAILED = "csrf_failed"  # 403: a post whose CSRF token was missing or stale: load the page again for a new one

# --- the server itself ----------------------------------------------------------------------
UNAVAILABLE = "unavailable"  # the database is out of reach for a moment; nothing was written
OUTCOME_UNKNOWN = "outcome_unknown"  # the database went away mid-commit: the page resyncs when it can
RATE_LIMITED = "rate_limited"  # too many requests or frames
TOO_MANY_SOCKETS = "too_many_sockets"  # the address or browser holds its share of sockets already
SERVER_ERROR = "server_error"  # a frame the server failed on: the socket stays open and resyncs

MESSAGES: dict[str, str] = {
    BAD_FRAME: "A frame is a JSON object with a 'type'.",
    BAD_JSON: "That frame is not valid JSON.",
    COACH_ERROR: "The coach could not answer; try again.",
    UNAVAILABLE: "The game's database is out of reach for a moment: try again.",
    SERVER_ERROR: "The server could not handle that frame; the page will resync.",
}


def message(code: str) -> str:
    """The message that goes with ``code`` wherever it is answered."""
    return MESSAGES[code]

"""The only code that changes game state: one module per part of the game.

- ``codes``: room codes, the browser's controller token, display names, client seeds.
- ``actions``: the shared steps of every action (find and lock the room, check the
  request, record the Move and schedule the broadcast).
- ``rooms``: create a room (online or pass-and-play), start it, a rematch.
- ``seats``: join, leave, the host taking a seat out, computer players, a browser's
  seats joining an account and a deleted account's seats.
- ``turns``: roll, hold, score.
- ``chat``: the room's chat and reactions, the host muting a seat or a spectator.
- ``clock``: the turn timer's timeouts, the host's pause and resume (``deadline``: when the
  turn's clock runs, kept by every recorded action).
- ``pace``: a room's pace (live, or at your own pace with a time per move of days), staff
  extending a move's time (``waiting``: whose move a game waits for and the notice it owes,
  kept by every recorded action).
- ``subscriptions``: who is told when it is their turn (Web Push, e-mail) and the one-click stop.
- ``sweeps``: what nothing reads any more, deleted (rooms never started, the sign-in log, push
  subscriptions that fail); the scheduler runs them.

Every service is one ``transaction.atomic`` block that locks the Game row with
``select_for_update``, checks the caller and the expected version, asks the pure rules,
appends a Move (its ``seq`` is the game's new ``version``), updates the snapshot, the
ScoreEntry rows and the Game row, and schedules the broadcast with
``transaction.on_commit``. A refusal raises ``RuleViolation`` (or ``Game.DoesNotExist``
for an unknown room) and, the transaction being rolled back, changes nothing.

The turn actions (roll, hold, score), nearly every action of a game, first try without
the lock on PostgreSQL (``actions.act``): they read the row, and their one write statement
applies only if the row is still at the version they read. Every write to a Game row
bumps its version (``actions.record``), so an unchanged version means an unchanged row. If
another action came first, the action runs again the locked way. Measured in
docs/performance.md: four round trips (BEGIN, the locking read, the write, COMMIT) become
two.

The room's state (``Game.room``, a ``games.domain.room.Room`` stored in the snapshot
column) holds the rules state, the seats with the browser that controls each, the roll
counter, the clock, pause and rematch, so an action needs no other reads. The seats'
Player rows follow it, written in one place (``games.store.players.follow``).

Callers use the package: ``from games import services; services.turn_roll(...)``. A
frame (games.domain.protocol), from a socket or a form post, goes through ``perform``.
"""

from typing import Any

from games.domain import protocol
from games.domain.codes import shown_code
from games.domain.errors import *  # noqa: F403  (the refusal codes, as services.STALE and so on)
from games.domain.protocol import ACTION_ID_MAX
from games.services.actions import act
from games.services.chat import (
    REACTIONS,
    chat_hide,
    chat_post,
    chat_react,
    seat_mute,
    seat_unmute,
    spectator_mute,
    spectator_unmute,
)
from games.services.clock import check_timer, clock_expire, game_pause, game_resume, timer_choices
from games.services.codes import (
    CODE_ALPHABET,
    CODE_LENGTH,
    LOST_LETTER,
    NAME_MAX,
    NAME_TYPED_MAX,
    SEED_MAX,
    NameRefused,
    clean_name,
    code_in_link,
    name_key,
    new_controller,
    new_room_code,
    normalize_code,
)
from games.services.notices import PUSH_PER_CONTROLLER
from games.services.pace import (
    EXTEND_CHOICES,
    PACES,
    check_pace,
    clock_extend,
    clock_outage,
    clock_set_back,
    clock_to_extend,
    own_pace_choices,
    own_pace_text,
)
from games.services.rooms import game_create, game_rematch, game_start, local_game_create
from games.services.seats import (
    BOT_LEVELS,
    BOT_NAMES,
    game_add_bot,
    game_join,
    game_kick,
    game_leave,
    game_remove_absent,
    game_replace_with_bot,
    seat_reclaim,
    seats_follow,
    seats_forget,
    seats_hand_over,
)
from games.services.subscriptions import (
    CONFIRM_MAX_AGE,
    SESSION_ENDPOINTS,
    email_confirmation,
    email_notices_confirm,
    email_notices_set,
    notices_language_set,
    notices_stop,
    push_hand_over,
    push_password_changed,
    push_renew,
    push_sign_out,
    push_subscribe,
    push_unsubscribe,
    read_confirm_token,
)
from games.services.turns import turn_hold, turn_roll, turn_score
from games.services.waiting import duration, time_left

__all__ = [
    "ACTION_ID_MAX",
    "EXTEND_CHOICES",
    "PACES",
    "check_pace",
    "clock_extend",
    "clock_to_extend",
    "clock_outage",
    "clock_set_back",
    "duration",
    "email_confirmation",
    "email_notices_confirm",
    "email_notices_set",
    "read_confirm_token",
    "notices_language_set",
    "notices_stop",
    "own_pace_choices",
    "own_pace_text",
    "PUSH_PER_CONTROLLER",
    "SESSION_ENDPOINTS",
    "CONFIRM_MAX_AGE",
    "push_hand_over",
    "push_password_changed",
    "push_renew",
    "push_sign_out",
    "push_subscribe",
    "push_unsubscribe",
    "BOT_LEVELS",
    "BOT_NAMES",
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "LOST_LETTER",
    "NAME_MAX",
    "NAME_TYPED_MAX",
    "SEED_MAX",
    "REACTIONS",
    "act",
    "perform",
    "chat_hide",
    "chat_post",
    "chat_react",
    "check_timer",
    "clock_expire",
    "game_pause",
    "game_resume",
    "seat_mute",
    "seat_unmute",
    "spectator_mute",
    "spectator_unmute",
    "timer_choices",
    "NameRefused",
    "clean_name",
    "game_add_bot",
    "game_create",
    "game_join",
    "game_kick",
    "game_leave",
    "game_rematch",
    "game_remove_absent",
    "game_replace_with_bot",
    "game_start",
    "local_game_create",
    "code_in_link",
    "name_key",
    "new_controller",
    "new_room_code",
    "normalize_code",
    "shown_code",
    "seat_reclaim",
    "seats_follow",
    "seats_forget",
    "seats_hand_over",
    "time_left",
    "turn_hold",
    "turn_roll",
    "turn_score",
]


def perform(frame: protocol.Incoming, *, code: str, controller: str) -> Any:
    """The service a checked frame names, called with its arguments: the socket's and the form posts' one dispatch."""
    # Looked up when called: a service patched on the package (how tests inject a fault) is the one called.
    service = globals()[frame.service]
    return service(code=code, controller=controller, **frame.arguments())

"""Reads: the room look-ups, the move log's queries, who is connected, and the one public
state dict that the page, the websocket and the admin all use.

Everything that reads the database for a page, a socket, the coach or a bot goes through
here (writes go through games.services). A code given here is already normalized
(``services.normalize_code``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model, load_backend
from django.contrib.sessions.backends.base import SessionBase
from django.core.paginator import Page, Paginator
from django.db.models import Exists, F, Max, OuterRef, Q, QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext, ngettext

from games.domain import scorecard
from games.domain.errors import MUTED, TAKEN_OUT
from games.domain.protocol import HANDLE_LENGTH
from games.domain.room import Room
from games.domain.rules import COLOURS, RULESETS, UPPER_BOXES, GameState, box_section
from games.store import moves, tables
from games.store.models import ChatMessage, Game, Move, NoticeSettings, Player, Presence, PushSubscription

# A socket that has not pinged for this long (its process died) counts as away.
PRESENCE_TIMEOUT = timedelta(seconds=60)
DAY = 86_400


def duration(seconds: float) -> str:
    """A span as people say it: "3 days", "1 day 4 hours", "13 hours 59 minutes", "20 minutes",
    "45 seconds"; "no limit" for 0.

    One rule for every place a time per move or a time left is worded (pages, e-mails, pushes,
    the admin), and its twin in the browser (static/js/room/render.js, ``duration`` and
    ``clockText``, tested with the same cases): the two largest units, whole minutes rounded
    down, so a time left is never said longer than it is and two places read at the same moment
    cannot disagree (13 h 59 min is "13 hours 59 minutes", not "14 hours" in one place and
    "13 hours" in another). A span under a minute is said in the seconds begun, at least one, as
    the live countdown beside it shows them (0:10 until the tenth second before the end is over).
    """
    if seconds <= 0:
        return gettext("no limit")
    if seconds < 60:
        n = max(math.ceil(seconds), 1)
        return ngettext("%(n)s second", "%(n)s seconds", n) % {"n": n}
    total = math.floor(seconds / 60)  # whole minutes: never more than is left
    days, hours, minutes = total // 1440, total % 1440 // 60, total % 60
    parts = []
    if days:
        parts.append(ngettext("%(n)s day", "%(n)s days", days) % {"n": days})
    if hours:
        parts.append(ngettext("%(n)s hour", "%(n)s hours", hours) % {"n": hours})
    if not days and minutes:
        parts.append(ngettext("%(n)s minute", "%(n)s minutes", minutes) % {"n": minutes})
    return " ".join(parts)


def time_left(seconds: float) -> str:
    """The time left to move, as people say it: a ``duration``, or "time is up" once none is left
    (its deadline passed, the timeout not played yet); "no limit" is a game without a time per move."""
    return duration(seconds) if seconds > 0 else gettext("time is up")


# --- rooms ---------------------------------------------------------------------------------

# What a room's read or its service's lock raises for a room that is not there (or was swept since).
RoomGone = Game.DoesNotExist


def room(code: str) -> Game:
    """The room with this code; ``Game.DoesNotExist`` if there is none.

    Read by the statement an action's read uses (``moves.read``, built once): a socket's
    state after every resync, reconnect and refusal reads the room this way, and the ORM
    would build the same query again each time.
    """
    return moves.read(code)


def room_or_none(code: str) -> Game | None:
    # Codes are ASCII letters and digits: a NUL (which PostgreSQL's text refuses) or a lone
    # surrogate (which no driver encodes) in a typed address is no room, not a server error.
    if not code.isascii() or "\x00" in code:
        return None
    try:
        return moves.read(code)
    except Game.DoesNotExist:
        return None


def action_stored(code: str, controller: str, action_id: str) -> bool:
    """Whether the room's move log holds the action this browser sent with ``action_id``."""
    return Move.objects.filter(game__code=code, actor=controller, action_id=action_id).exists()


def room_version(code: str) -> int | None:
    """The room's current version without reading the rest of it (None for an unknown room)."""
    return Game.objects.filter(code=code).values_list("version", flat=True).first()


# --- the move log ----------------------------------------------------------------------------


def moves_in_order(game: Game) -> list[Move]:
    return list(game.moves.order_by("seq"))


def last_moves(game: Game, kinds: Iterable[str], limit: int) -> list[Move]:
    """The game's last ``limit`` moves of ``kinds``, newest first: one query, down the (game, seq) key."""
    return list(
        game.moves.filter(kind__in=list(kinds))
        .order_by("-seq")
        .only("game", "seq", "kind", "player", "payload")[:limit]
    )


def seated_computers(game: Game) -> set[int]:
    """The Player rows that joined the game as computers (a seat a computer took over later is a person's)."""
    joins = game.moves.filter(kind=Move.Kind.JOIN, player__isnull=False).values_list("player_id", "payload")
    return {player for player, payload in joins if isinstance(payload, dict) and payload.get("bot")}


def roll_moves(game: Game) -> QuerySet[Move]:
    """The game's rolls in order: what the fairness check re-derives from the seed."""
    return game.moves.filter(kind=Move.Kind.ROLL).order_by("seq")


def roll_log(game: Game) -> list[dict[str, Any]]:
    """Each roll's move number and payload (roll number, held dice, faces, dice), its ``seat`` and
    whether it is its turn's ``first``, and which ``turn`` (see ``turn_log``)."""
    return turn_log(game)["rolls"]


# What ends the turn under way: its seat scoring, or leaving the game (or being taken out of it).
TURN_ENDS = (Move.Kind.SCORE, Move.Kind.LEAVE, Move.Kind.REMOVE)


def turn_log(game: Game) -> dict[str, list[dict[str, Any]]]:
    """What a finished game's published log needs to check its turns without the server (docs/fairness.md).

    ``rolls``: each roll as ``roll_log`` gives it; ``scores``: each score's move number, seat and
    payload (box, column, points, bonus, the dice scored); ``left``: the move number and seat of
    each seat that left the game or was taken out of it after the start. A turn is its seat's
    rolls until it scores or leaves: the roll after is the next turn's first, which rolls all five
    dice (the rules hold nothing over from another turn). Seats are numbered from 0 in seat order;
    each roll's ``turn`` is its turn's place among the turns begun, from 1, as ``verify_game`` and
    the fair-dice page number turns (a score's own ``turn`` is the rules' count of turns scored,
    which a turn cut short by its seat leaving does not advance).
    """
    kinds = (Move.Kind.START, Move.Kind.ROLL, *TURN_ENDS)
    rolls: list[dict[str, Any]] = []
    scores: list[dict[str, Any]] = []
    left: list[dict[str, Any]] = []
    seat_of: dict[int, int] | None = None  # the Player rows' seats, once the game started
    turn: int | None = None  # the seat whose turn has rolled and not ended yet
    begun = 0  # the turns begun
    logged = game.moves.filter(kind__in=kinds).order_by("seq").values_list("seq", "kind", "player_id", "payload")
    for seq, kind, player, payload in logged:
        p = payload if isinstance(payload, dict) else {}
        if kind == Move.Kind.START:
            seat_of = {player: seat for seat, player in enumerate(p.get("players") or [])}
            continue
        seat = None if seat_of is None or player is None else seat_of.get(player)
        if kind == Move.Kind.ROLL:
            first = turn is None or turn != seat
            begun += 1 if first else 0
            rolls.append({"move": seq, **p, "seat": seat, "first": first, "turn": begun})
            turn = seat
        elif seat_of is None:
            continue  # a seat left the lobby: no turn yet, and the lobby's seats close up
        elif kind == Move.Kind.SCORE:
            scores.append({"move": seq, "seat": seat, **p})
            turn = None
        else:
            left.append({"move": seq, "seat": p.get("seat")})
            if p.get("seat") == turn:
                turn = None
    return {"rolls": rolls, "scores": scores, "left": left}


# --- the chat ---------------------------------------------------------------------------------

CHAT_HISTORY = 50  # the messages a socket gets when it connects


def spectator_handle(code: str, controller: str) -> str:
    """The name a spectator's browser goes by in room ``code``'s chat ("" without a token).

    Everyone in the room sees it on the browser's lines (the host mutes by it), so it is not the
    token, which plays the browser's seats, and differs from room to room, so it does not follow a
    browser from one room to the next. Keyed with the site's secret key, which every worker shares.
    """
    if not controller:
        return ""
    digest = salted_hmac("games.spectator", f"{code}:{controller}", algorithm="sha256").hexdigest()
    return digest[:HANDLE_LENGTH]


def chat_message(message: ChatMessage, code: str) -> dict[str, Any]:
    """A chat message of room ``code`` as the room sees it (plain text: the page never reads it as HTML).

    A spectator's line has ``spectator``, its browser's handle in the room (none on a line posted
    before lines kept their browser)."""
    shown = {
        "id": message.pk,
        "seat": message.seat,
        "name": message.name,
        "text": message.text,
        "after": message.after_seq,
        "at": message.created_at.isoformat(),
    }
    if message.seat is None and message.controller:
        shown["spectator"] = spectator_handle(code, message.controller)
    return shown


def chat_history(code: str) -> list[dict[str, Any]]:
    """The room's last ``CHAT_HISTORY`` messages not hidden by staff, oldest first."""
    rows = ChatMessage.objects.filter(game__code=code, hidden=False).order_by("-id")[:CHAT_HISTORY]
    return [chat_message(message, code) for message in reversed(rows)]


def spectator_by_handle(game: Game, handle: str) -> str | None:
    """The browser (its token) of the spectator whose lines in ``game``'s chat go by ``handle``
    (hidden lines too: the host may still mute whoever posted them), or None."""
    posted = ChatMessage.objects.filter(game=game, seat__isnull=True).exclude(controller="")
    # A player muted who left the lobby is one too (``Room.muted_left``), whether or not they posted.
    listed = [token for token, _ in game.room.muted_left]
    for controller in [*listed, *posted.order_by().values_list("controller", flat=True).distinct()]:
        if constant_time_compare(spectator_handle(game.code, controller), handle):
            return controller
    return None


def session_controller(session_key: str) -> str:
    """The controller token the browser's session holds now ("" once it is gone: signed out, or
    cycled by a sign-in, which gives the browser a session under a new key; or signed in to an
    account whose password changed since, or that is deleted or deactivated: a session its next
    page ends)."""
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)
    if not sign_in_current(store):
        return ""
    return str(store.get("controller", ""))


def sign_in_current(session: SessionBase) -> bool:
    """False for a session signed in to an account that is gone (deleted, or deactivated by staff)
    or signed in before the account's password changed: its auth hash is checked as
    ``django.contrib.auth.get_user`` checks it at every page (the current secret key or a
    fallback), without changing the session."""
    try:
        user_id = get_user_model()._meta.pk.to_python(session[SESSION_KEY])
        backend_path = session[BACKEND_SESSION_KEY]
    except KeyError:
        return True
    if backend_path not in settings.AUTHENTICATION_BACKENDS:
        return True
    account = load_backend(backend_path).get_user(user_id)
    if account is None:
        return False  # deleted or deactivated: its token plays nothing of the account's any more
    if not hasattr(account, "get_session_auth_hash"):
        return True
    given = session.get(HASH_SESSION_KEY) or ""
    hashes = [account.get_session_auth_hash(), *account.get_session_auth_fallback_hash()]
    return bool(given) and any(constant_time_compare(given, expected) for expected in hashes)


def played_by(controller: str) -> Q:
    """The Player rows of a browser's seats: its own, and those a computer plays or finished for
    it while it was away or after it left (or was taken out)."""
    return Q(controller=controller) | Q(away_controller=controller) | Q(left_controller=controller)


def silenced(game: Game, controller: str) -> str | None:
    """Why the host keeps this browser quiet as a spectator, or None: ``TAKEN_OUT`` if the host
    took a seat of it out of the game, ``MUTED`` if the host's last word on its seats' chat is a
    mute or the room keeps it muted as a spectator (``Room.muted_spectators``). Neither
    goes by leaving and speaking as a spectator (a join keeps the mute for the same reason). The
    host's last word on each seat holds: an unmute of a seat it left, or was taken out of, lets it
    speak. A kick from the lobby is not such a word: it frees the seat and keeps the browser from
    sitting again (``seats.game_join``), and its player watches, speaking where spectators may
    until the host mutes them; a mute given before the kick holds, named for the host to lift
    (``Room.muted_left``). One query, whatever the number of seats: the page asks it of each
    browser it draws for.
    """
    if not controller:
        return None
    seats = Q(player__in=Player.objects.filter(played_by(controller), game=game)) & (
        Q(kind__in=(Move.Kind.REMOVE, Move.Kind.MUTE)) | Q(kind=Move.Kind.JOIN, payload__muted=True)
    )
    # The host's word on the browser as a spectator counts as much (a player muted who left the
    # lobby is unmuted so, their seat gone).
    as_spectator = Q(
        kind=Move.Kind.MUTE, player__isnull=True, payload__spectator=spectator_handle(game.code, controller)
    )
    said = Move.objects.filter(seats | as_spectator, game=game).order_by("seq").values_list("kind", "player", "payload")
    taken_out: set[int] = set()
    muted = False
    for kind, player, payload in said:
        if kind == Move.Kind.REMOVE:
            taken_out.add(player)
            continue
        # A mute, or a rematch's join of a seat carried over muted (as much the host's mute).
        muted = isinstance(payload, dict) and bool(payload.get("muted"))
        if kind == Move.Kind.MUTE and not muted:
            # Each seat by the host's last word on it: an unmute of another seat of the same
            # browser (a shared phone) does not give back the voice of one taken out.
            taken_out.discard(player)
    if taken_out:
        return TAKEN_OUT
    # The room's own list of the browsers it keeps muted as spectators counts too: read with the
    # room, it costs no query.
    return MUTED if muted or controller in game.room.muted_spectators else None


def muted_by_the_host(game: Game, players: Iterable[int]) -> set[int]:
    """Of ``players`` (Player ids of ``game``), those whose seat the host's own last word mutes: a
    mute, or a rematch's join of a seat carried over muted. A take-out mutes its seat too, as what
    keeps its player quiet in this game (``silenced``); it is not such a word. One query."""
    said = (
        Move.objects.filter(game=game, player__in=list(players))
        .filter(Q(kind=Move.Kind.MUTE) | Q(kind=Move.Kind.JOIN, payload__muted=True))
        .order_by("seq")
        .values_list("player", "payload")
    )
    muted: dict[int, bool] = {}
    for player, payload in said:
        muted[player] = isinstance(payload, dict) and bool(payload.get("muted"))
    return {player for player, is_muted in muted.items() if is_muted}


def held_a_seat(game: Game, controller: str) -> bool:
    """Whether this browser played in the game (a seat it holds, or held before it left or was taken out,
    or one a computer plays or finished for it while it was away or after it left)."""
    if not controller:
        return False
    return Player.objects.filter(played_by(controller), game=game).exists()


def seat_holder_in(code: str, controller: str) -> bool:
    """Whether this browser has a seat in the room ``code`` (or had one: it left, was taken out,
    or a computer plays it while the browser is away). Such a browser knows the room's code."""
    if not controller:
        return False
    return Player.objects.filter(played_by(controller), game__code=code).exists()


def chat_audience(game: Game) -> frozenset[str] | None:
    """Who hears the room's chat as it is posted (None: everyone in the room), by the rule of
    ``chat_history_for``: once the game is over, the browsers that ``held_a_seat``."""
    if not game.is_over:
        return None
    rows = Player.objects.filter(game=game).values_list("controller", "away_controller", "left_controller")
    return frozenset(token for row in rows for token in row if token)


def chat_history_for(code: str, controller: str) -> list[dict[str, Any]] | None:
    """``chat_history`` as this browser may read it, None if it may not or the room never had a message.

    A finished game's chat is its players' alone (the game's code is public once a profile lists
    it; the conversation is not). An empty list when staff hid every message: the page drops them.
    """
    game = room_or_none(code)
    if game is None:
        return None
    if game.is_over and not held_a_seat(game, controller):
        return None
    messages = chat_history(code)
    if not messages and not ChatMessage.objects.filter(game=game, hidden=True).exists():
        return None  # a room with no chat has nothing to say
    return messages


def chat_log(game: Game) -> list[ChatMessage]:
    """Every message of the game, hidden ones too, in order (the admin's review)."""
    return list(game.chat.order_by("id"))


# --- who is connected --------------------------------------------------------------------------


def connected_sockets(game: Game) -> list[str]:
    """The browser of each socket connected to the room (from any process, pinged lately): one
    entry a socket, ``""`` for a socket without a session."""
    cutoff = timezone.now() - PRESENCE_TIMEOUT
    return list(Presence.objects.filter(game=game, seen_at__gte=cutoff).values_list("controller", flat=True))


def connected_seats(game: Game) -> list[list[int]]:
    """For each socket connected to the room (from any process, pinged lately), the seats its browser
    has in the room as it is now: those it plays, and those a computer plays for it, whose player
    is at the table (the room's presence shows them connected, as the page does).

    A spectator's socket has none: an empty list.
    """
    return [game.room.seats_kept_for(controller) for controller in connected_sockets(game)]


def connected_seats_in_sight(game: Game) -> list[tuple[list[int], datetime | None]]:
    """For each socket connected to the room (from any process, pinged lately): its browser's seats
    in the room (as ``connected_seats``), and since when its page has been hidden (None: shown, or
    a page that never said)."""
    cutoff = timezone.now() - PRESENCE_TIMEOUT
    rows = Presence.objects.filter(game=game, seen_at__gte=cutoff).values_list("controller", "hidden_since")
    room = game.room
    return [(room.seats_kept_for(controller), since) for controller, since in rows]


def connected_controllers(game: Game) -> frozenset[str]:
    """The browsers with a socket connected to the room (from any process, pinged lately)."""
    cutoff = timezone.now() - PRESENCE_TIMEOUT
    return frozenset(Presence.objects.filter(game=game, seen_at__gte=cutoff).values_list("controller", flat=True))


# --- the public state --------------------------------------------------------------------------


@functools.cache
def ruleset_info(name: str) -> dict[str, Any]:
    """What the page needs of the rule set ``name``: built once a process and shared, so never changed.

    Every state frame carries it: building it anew (the card's layout, every box) was a
    tenth of an action's CPU.
    """
    ruleset = RULESETS[name]
    return {
        "name": ruleset.name,
        "label": ruleset.label,
        "summary": ruleset.summary,
        "columns": ruleset.columns,
        "multipliers": list(ruleset.multipliers),
        "upper_bonus_threshold": ruleset.upper_bonus_threshold,
        "upper_bonus": ruleset.upper_bonus,
        "yahtzee_bonus": ruleset.yahtzee_bonus,  # 0: none
        "five_of_a_kind_is_full_house": ruleset.five_of_a_kind_is_full_house,
        # Painted: the dice colours in index order (a die's colour is one of these names); else [].
        "colours": list(COLOURS) if ruleset.colours else [],
        "boxes": [
            {
                "box": box.value,
                "label": ruleset.box_label(box),
                "upper": box in UPPER_BOXES,
                "section": box_section(box),  # "upper", "lower" or "colour" (Painted)
            }
            for box in ruleset.boxes
        ],
        # The card's sections and rows, which the page draws as they come (games/domain/scorecard.py).
        "scorecard": scorecard.layout(ruleset),
    }


def seats_of(game: Game, controller: str) -> list[int]:
    """The seats still in the game that this browser (its controller token) plays, with those a
    computer plays for it while its player is away: the page offers each back by name when the
    browser plays several (a reconnect takes none back then), and once the game is over those a
    computer finished for it (its player is offered the rematch). The state says which are whose."""
    return game.room.seats_kept_for(controller)


def seats_given_up(game: Game, controller: str) -> list[int]:
    """The seats this browser gave up (it left them, or the host took it out), still in the room's
    list: their mute is still the browser's, as a spectator."""
    if not controller:
        return []
    return [
        index
        for index, seat in enumerate(game.room.seats)
        if seat.given_up and controller in (seat.left_controller, seat.controller if seat.human else "")
    ]


def kicked_from_lobby(game: Game, controller: str) -> bool:
    """Whether the host kicked a seat of this browser from ``game``'s lobby, which it may not sit
    in again (``seats.game_join``): its lobby page offers it no seat. A read of the lobby alone."""
    if not controller or game.status != Game.Status.LOBBY:
        return False
    return Move.objects.filter(
        game=game, kind=Move.Kind.KICK, player__in=Player.objects.filter(played_by(controller), game=game)
    ).exists()


def former_player(game: Game, controller: str, mine: list[int]) -> tuple[bool, list[int], bool]:
    """What a browser whose seats in ``game`` are ``mine`` is told of the seats it no longer holds,
    on its page and in its socket's ``you``: whether it held a seat here and holds none now, the
    seats it gave up (``seats_given_up``), and whether the host took it out (``silenced``)."""
    former = not mine and held_a_seat(game, controller)
    if not former:
        return False, [], False
    return True, seats_given_up(game, controller), silenced(game, controller) == TAKEN_OUT


def _getting_ready(game: Game) -> dict[str, int | None] | None:
    if game.is_over or not (game.hints or game.room.has_bot()):
        return None
    return tables.getting_ready(game.ruleset)


def bot_to_play(game: Game) -> bool:
    """Whether the seat to play is a computer player (playing, not paused)."""
    return game.room.bot_to_play(playing=game.status == Game.Status.PLAYING)


def clock_state(game: Game) -> dict[str, Any] | None:
    """The turn timer (at your own pace, the time per move): its length, the turn's deadline, the seconds left.

    None without a timer.
    """
    if not game.turn_timer:
        return None
    deadline = game.turn_deadline
    left = seconds_left(game)
    return {
        "pace": game.pace,
        "seconds": game.turn_timer,
        "deadline": deadline.isoformat() if deadline is not None else None,
        # Seconds left when the state was made (while paused, what the turn will have when play
        # resumes); the page counts down from it.
        "left": round(left, 2) if left is not None else None,
    }


def seconds_left(game: Game, now: datetime | None = None) -> float | None:
    """The seconds the turn to play has: to its deadline, or while paused what it will have when
    play resumes (``Room.time_held``: not the time of a turn that ended during the pause, none
    for a computer to play). None when no clock runs or will."""
    if game.turn_deadline is not None:
        return max(0.0, (game.turn_deadline - (now or timezone.now())).total_seconds())
    return game.room.time_held(playing=game.status == Game.Status.PLAYING, timer=game.turn_timer)


def replay_url(game: Game) -> str | None:
    """The game's replay page once it is over; None before, and for a room everyone left before
    the start, which has nothing to replay (its page answers 404)."""
    return reverse("replay", args=[game.code]) if game.is_over and game.started_at is not None else None


def pauser(game: Game, room: Room) -> int | None:
    """The player (Player id) whose pause ``room`` is in, or None when not paused. Every pause names
    its player (``Room.paused_by``); a room paused before that was kept has its log say it, the last
    pause's player: a query for such a room only, not for the state every action builds."""
    if not room.paused or room.paused_by is not None:
        return room.paused_by
    return (
        Move.objects.filter(game=game, kind=Move.Kind.PAUSE)
        .order_by("-seq")
        .values_list("player_id", flat=True)
        .first()
    )


def game_state(game: Game, rules: GameState | None = None) -> dict[str, Any]:
    """Everything anyone in the room may see, versioned; never a secret before the game ends.

    ``rules``: the game's rules state if the caller has it decoded (a service that just
    stored it); otherwise it is decoded from the snapshot.
    """
    room = game.room
    seats = [
        {
            "seat": index,
            "player": seat.player,
            "name": seat.name,
            "kind": seat.kind,
            "status": seat.status,
            "host": seat.player == game.host_id,
            "level": seat.level,
            "muted": seat.muted,  # the host muted this seat's chat
            "away": seat.away,  # a computer plays it after two timeouts, until its player is back
            # A computer plays it for a player who may take it back (away, not gone: one who left
            # gave the seat up, and a page that still counts it as its own must not offer it).
            "kept": bool(seat.away_controller),
            # A computer plays it on after its player left (or was taken out): it ranks with the
            # seats that left, whatever its total (Room.ranks).
            "gave_up": bool(seat.left_controller),
            # The host took it out (its player did not leave): the game-over list says "taken out".
            "taken_out": seat.taken_out,
            # The seat was the n-th to leave: a game every person left ranks them by it (Room.ranks).
            **({"left_order": seat.left_order} if seat.left_order else {}),
        }
        for index, seat in enumerate(room.seats)
    ]
    data: dict[str, Any] = {
        "type": "state",
        "code": game.code,
        "version": game.version,
        "status": game.status,
        "local": game.local,
        "hints": game.hints,
        "ruleset": ruleset_info(game.ruleset),
        "seats": seats,
        "turn": None,
        "cards": [],
        "options": [],
        "winners": [],
        "ranks": [],
        # A private room's rematch is private too, and its old code is on its players' profiles:
        # its pages are told only that there is one (its players follow with the button).
        "rematch": (True if room.rematch else None) if game.private else room.rematch,
        "paused": room.paused,
        # While paused, the seat whose pause it is (the host's when they paused; the role may have
        # passed on since, to a player who resumes it), else None.
        "paused_by": room.seat_of_player(by) if (by := pauser(game, room)) is not None else None,
        # "live" (everyone at the table) or "own" (at your own pace: moves days apart, players told by e-mail and push).
        "pace": game.pace,
        # May spectators post; the handles of those whose chat the host muted (docs/protocol.md).
        "chat": {
            "spectators": game.chat_spectators,
            "muted": [spectator_handle(game.code, token) for token in room.muted_spectators],
            # Of those, the players muted who left the lobby, by the name they sat under (left out
            # when none): the host unmutes them from the Players list, their seat gone.
            **(
                {
                    "muted_left": [
                        {"spectator": spectator_handle(game.code, token), "name": name}
                        for token, name in room.muted_left
                    ]
                }
                if room.muted_left
                else {}
            ),
        },
        "clock": clock_state(game),
        # {"eta": seconds or null} while the computer players' and the coach's table of this rule
        # set is being built (games/store/tables.py), in a room that has either; else null.
        "getting_ready": _getting_ready(game),
        # The finished game's replay page (games/services/replay.py); null while the game is not
        # over, and for a room everyone left before the start.
        "replay_url": replay_url(game),
        "fairness": {
            "commitment": game.seed_commitment,
            "client_seed": game.client_seed,
            "server_seed": game.server_seed if game.is_over else None,
        },
    }
    state = rules if rules is not None else room.rules
    if state is None:
        return data
    if game.status == Game.Status.PLAYING:
        data["turn"] = {
            "seat": state.current,
            "dice": list(state.turn.dice),
            # Painted: each die's colour name beside ``dice`` (empty list before the first roll); else None.
            "colours": [COLOURS[c] for c in state.turn.colours] if state.ruleset.colours else None,
            "held": sorted(state.turn.held),
            "rolls_used": state.turn.rolls_used,
            "rolls_left": state.turn.rolls_left,
            "number": state.turns_played + 1,
        }
        data["options"] = [
            {
                "box": o.box.value,
                "column": o.column,
                "legal": o.legal,
                "points": o.points,
                "bonus": o.bonus,
                "reason": o.reason,
                "joker": o.joker,
            }
            for o in state.options()
        ]
    data["cards"] = scorecard.cards(state)
    # The players' records' winners (Room.winners): a seat a computer finished for its away
    # player, or played on after its player left, ranks after those who stayed, whatever its total.
    # An abandoned game has no winner, whoever of those who left it ranks first.
    data["winners"] = room.with_rules(state).winners() if game.status != Game.Status.ABANDONED else []
    # Each seat's place at the end (1 the best, by seat), as the records rank them: [] before the end.
    data["ranks"] = room.with_rules(state).ranks() if game.is_over else []
    return data


# --- your games: every unfinished game of a browser (an account's, when signed in) ----------------


def waiting_count(controller: str) -> int:
    """How many games wait for this browser's move: one indexed count (``Game.waiting_on``), of the
    games it follows (``_followed``)."""
    if not controller:
        return 0
    return Game.objects.filter(waiting_on=controller).filter(_followed(controller)).count()


def _followed(controller: str) -> Exists:
    """Whether a game has a seat of ``controller`` whose person follows it (``Player.follows``). A
    rematch someone else asked for seats them without their saying they would play it: until they
    open it, it is offered to them, not their move (they are told nothing of its turns either,
    ``games.services.notices``), and counts among no games waiting for them."""
    seats = Player.objects.filter(game=OuterRef("pk"), follows=True)
    return Exists(seats.filter(Q(controller=controller) | Q(away_controller=controller)))


def round_of(rules: GameState, boxes: int) -> tuple[int, int]:
    """ "Round 6 of 13": the boxes the seat to play has filled, plus this one (as the room's page says it)."""
    return min(rules.cards[rules.current].filled + 1, boxes), boxes


# Games a page of Your games lists: a player with hundreds at their own pace gets pages, not one
# page that takes long to make and to scroll.
MY_GAMES_PAGE = 20


def my_games(controller: str, page: object = 1) -> Page[dict[str, Any]]:
    """One page (``page``: its number, as ``Paginator.get_page`` reads one) of every unfinished game
    with a seat of ``controller`` (its own or one a computer plays while it is away).

    The games waiting for its move come first, the one whose time runs out soonest first;
    then the others, the most recently active first. The order is worked out from one narrow
    query over them all; only the page's games are read whole and made rows (their rooms
    decoded), so a page takes a few queries whatever the number of games.
    """
    if not controller:
        return Paginator([], MY_GAMES_PAGE).get_page(1)
    seats = Player.objects.filter(
        Q(controller=controller) | Q(away_controller=controller),
        status=Player.Status.ACTIVE,
        game__status__in=Game.LIVE,
    )
    keys = list(
        Game.objects.filter(pk__in=seats.values("game_id"))
        .annotate(last=Max("moves__created_at"), followed=_followed(controller))
        .values_list("pk", "waiting_on", "turn_deadline", "created_at", "last", "followed")
    )
    last = {pk: at for pk, _, _, _, at, _ in keys}
    followed = {pk for pk, *_, follows in keys if follows}
    order = sorted((_order(controller, *key), key[0]) for key in keys)
    shown: Page[Any] = Paginator([pk for _, pk in order], MY_GAMES_PAGE).get_page(page)  # type: ignore[arg-type]  # get_page takes any value, as a page number or not
    pks = list(shown.object_list)
    games = Game.objects.in_bulk(pks)
    now = timezone.now()
    shown.object_list = [_my_game(games[pk], controller, last[pk], now, pk in followed) for pk in pks if pk in games]
    return shown


def _my_game(game: Game, controller: str, last: datetime | None, now: datetime, followed: bool) -> dict[str, Any]:
    """One row of Your games; ``followed``: whether its person follows it (``_followed``)."""
    ruleset = RULESETS[game.ruleset]
    room = game.room
    rules = room.rules
    mine = room.seats_kept_for(controller)
    row: dict[str, Any] = {
        "code": game.code,
        "url": reverse("room", args=[game.code]),
        "ruleset": ruleset.label,
        "ruleset_name": ruleset.name,  # the page words it in its reader's language
        "status": game.status,
        "pace": game.pace,
        "seconds": game.turn_timer,
        "local": game.local,
        "players": [
            {
                "name": seat.name,
                "mine": i in mine,
                "bot": seat.bot,
                "to_move": rules is not None and game.status == Game.Status.PLAYING and rules.current == i,
            }
            for i, seat in enumerate(room.seats)
            if seat.active
        ],
        "yours": followed and game.waiting_on == controller,
        # A rematch someone else asked for, not opened yet: offered, whoever's move it is.
        "offered": not followed,
        # Players sharing a device, each at a seat of the game: "your move" would not say whose.
        "several": len(mine) > 1,
        "away": any(room.seats[i].away_controller == controller for i in mine),
        # A lobby waits for its host to start it: theirs to do, as a move is.
        "hosting": followed and game.status == Game.Status.LOBBY and room.seat_of_player(game.host_id) in mine,
        "paused": room.paused,
        "round": None,
        "to_move": None,
        "left": None,
        "deadline": game.turn_deadline,
        "last": last or game.created_at,
    }
    if game.status == Game.Status.PLAYING and rules is not None:
        row["round"] = round_of(rules, len(ruleset.boxes) * ruleset.columns)
        row["to_move"] = room.seats[rules.current].name
        row["left"] = seconds_left(game, now)
    return row


def _order(
    controller: str,
    pk: int,
    waiting_on: str,
    deadline: datetime | None,
    created: datetime,
    last: datetime | None,
    followed: bool,
) -> tuple[int, float, float]:
    """Yours first, the soonest deadline first, then the longest waited; the others (a rematch offered
    and not followed yet among them) the most recently active first (then by the row, so that each
    game has one place across the pages)."""
    at = (last or created).timestamp()
    if followed and waiting_on == controller:
        return 0, deadline.timestamp() if deadline is not None else float("inf"), at
    return 1, 0.0, -at


# Finished games a page of Your games lists below those not over: the latest few, and pages of older ones.
MY_FINISHED_PAGE = 10


def my_finished_games(controller: str, page: object = 1) -> Page[dict[str, Any]]:
    """One page (``page``, as ``Paginator.get_page`` reads one) of the games played to their end with
    a seat of ``controller`` still in it, the last to end first, each with every seat's place and
    total: a guest has no profile, and the link was otherwise their only way back to the result."""
    if not controller:
        return Paginator([], MY_FINISHED_PAGE).get_page(1)
    seats = Player.objects.filter(
        Q(controller=controller) | Q(away_controller=controller),
        status=Player.Status.ACTIVE,
        game__status=Game.Status.FINISHED,
    )
    pks = Game.objects.filter(pk__in=seats.values("game_id")).order_by(F("finished_at").desc(nulls_last=True), "-pk")
    shown: Page[Any] = Paginator(pks.values_list("pk", flat=True), MY_FINISHED_PAGE).get_page(page)  # type: ignore[arg-type]  # get_page takes any value, as a page number or not
    ids = list(shown.object_list)
    games = Game.objects.in_bulk(ids)
    shown.object_list = [_finished_game(games[pk], controller) for pk in ids if pk in games]
    return shown


def places(room: Room, mine: Sequence[int] = ()) -> list[dict[str, Any]]:
    """A finished game's seats by place (``Room.standings``), each with its points and why it ranks
    behind, as templates/games/places.html lists them: Your games' finished games and a profile's.
    ``mine``: the reader's own seats, said to be theirs."""
    players = []
    for standing in room.standings():
        seat = room.seats[standing.seat]
        players.append(
            {
                "name": seat.name,
                "mine": standing.seat in mine,
                "bot": seat.bot and not seat.person,
                "place": standing.place,
                "points": standing.points,
                # Why it ranks after those who stayed: marked as the game-over list marks it.
                "behind": standing.behind,
            }
        )
    return players


def _finished_game(game: Game, controller: str) -> dict[str, Any]:
    """One row of Your games' finished games: its seats by place, each ranked behind marked why."""
    ruleset = RULESETS[game.ruleset]
    room = game.room
    mine = room.seats_kept_for(controller)
    players = places(room, mine)
    return {
        "code": game.code,
        "url": reverse("room", args=[game.code]),
        "replay": reverse("replay", args=[game.code]),
        "ruleset_name": ruleset.name,
        "pace": game.pace,
        "seconds": game.turn_timer,
        "local": game.local,
        "finished": game.finished_at,
        # One seat of theirs placed first ("You won" would not say which of a device's players did).
        "won": len(mine) == 1 and mine[0] in room.winners(),
        "players": players,
    }


def email_notices(user_id: int | None) -> tuple[bool, str]:
    """An account's e-mails (its turns, its games' ends): whether they are on, and the address it confirmed for them
    ("" before any). That address is where they go, whatever the account's own address is now."""
    if user_id is None:
        return False, ""
    row = NoticeSettings.objects.filter(user_id=user_id).values_list("email", "address").first()
    if row is None:
        return False, ""
    on, address = row
    return bool(on and address), address


def notices_stopped(kind: str, ident: int) -> bool:
    """Whether the channel a stop link names (``notices.read_stop_token``) is off already: an
    account's e-mails neither on nor waiting for their address's confirmation, a device's
    subscription gone."""
    if kind == "email":
        return not NoticeSettings.objects.filter(user_id=ident).filter(Q(email=True) | ~Q(pending_nonce="")).exists()
    return not PushSubscription.objects.filter(pk=ident).exists()


def email_notices_saved(user_id: int | None) -> str:
    """The address an account saved with its e-mails off and has not confirmed (no link went
    there: ``services.email_notices_set``), for its form to show, or ""."""
    if user_id is None:
        return ""
    saved = (
        NoticeSettings.objects.filter(user_id=user_id, pending_nonce="")
        .exclude(pending_address="")
        .values_list("pending_address", flat=True)
        .first()
    )
    return saved or ""


def email_notices_pending(user_id: int | None, *, max_age: int) -> str:
    """The address an account's link waits to be confirmed at (asked less than ``max_age`` seconds
    ago, while the link works), or ""."""
    if user_id is None:
        return ""
    since = timezone.now() - timedelta(seconds=max_age)
    pending = (
        NoticeSettings.objects.filter(user_id=user_id, pending_at__gt=since)
        .exclude(pending_nonce="")
        .values_list("pending_address", flat=True)
        .first()
    )
    return pending or ""

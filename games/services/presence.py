"""Who is connected to a room, across server processes: each socket's Presence row.

The reads behind it (the room, who is connected) are in games.store.selectors.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import secrets
import time
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase
from django.core.cache import cache
from django.db import connection, transaction
from django.utils import timezone

from games.domain import protocol
from games.services import events
from games.services.processes import ORIGIN
from games.services.release import static_version
from games.store import moves, selectors
from games.store.models import Game, Presence
from games.store.selectors import PRESENCE_TIMEOUT, game_state, seats_of

log = logging.getLogger(__name__)


def host_away() -> float:
    """Seconds the host's seat must have been away before the players at the table may take the
    host's tools in a live game (``settings.HOST_AWAY``): the wait the page shows too, so that a
    page reloading or a phone waking up is not an opening to take the room."""
    return float(settings.HOST_AWAY)


# A row this old belongs to a socket whose process died (a live socket pings every 20 s and
# is dropped by Daphne when silent): it already counts as away, and the sweep deletes it.
STALE_AFTER = PRESENCE_TIMEOUT * 5


def _frame(game: Game) -> str:
    sockets = selectors.connected_sockets(game)
    room = game.room
    # A browser here is at its seats, those a computer plays or finished for it while it was away
    # too: back at its finished game it is that game's player, not a spectator.
    browsers = {controller: room.seats_kept_for(controller) for controller in set(sockets) if controller}
    connected = {seat for seats in browsers.values() for seat in seats}
    seats = {str(i): ("connected" if i in connected else "away") for i in range(len(room.seats))}
    # A spectator is a browser, however many of its tabs watch (or a page reloaded while its old
    # socket still counts); a socket without a session cannot be told apart, so counts alone.
    spectators = sum(1 for seats in browsers.values() if not seats) + sockets.count("")
    # In a live game a person's seat is taken over (or the host's tools taken) only once its
    # browser has been away ``host_away()`` seconds: the page offers those tools when this says so.
    waits: dict[str, float] = {}
    if game.pace != Game.Pace.OWN and game.status in (Game.Status.LOBBY, Game.Status.PLAYING):
        gone: dict[str, list[int]] = {}
        for index, entry in enumerate(room.seats):
            if entry.active and entry.person and index not in connected:
                gone.setdefault(entry.persons_controller, []).append(index)
        waits = waits_left(game, gone)
    return protocol.encode(protocol.Presence(seats=seats, spectators=spectators, waits=waits))


# The key of the browser's mark in its session (``Presence.browser``): made with its first
# controller token, kept by a sign-in (which cycles the session's key but keeps its data) and
# gone with a sign-out (which flushes the session).
SESSION_BROWSER = "browser"


def browser_mark(session: SessionBase) -> str:
    """The session's browser mark (``SESSION_BROWSER``), made if it has none yet."""
    mark = session.get(SESSION_BROWSER)
    if not isinstance(mark, str) or not mark:
        mark = session[SESSION_BROWSER] = secrets.token_hex(16)
    return mark


def arrive(code: str, channel_name: str, controller: str, browser: str = "") -> tuple[str, str, str] | None:
    """Record a new socket; its first frames (you, state, presence), or None for an unknown room.

    ``browser``: the mark of the socket's browser session (``SESSION_BROWSER``), "" without one.
    """
    game = selectors.room_or_none(code)
    if game is None:
        return None
    mine = seats_of(game, controller)
    try:
        # One INSERT: a socket's channel name is new (a uuid), and unique in the table.
        with moves.room_still_there(game):
            Presence.objects.create(
                game=game,
                channel_name=channel_name,
                controller=controller,
                browser=browser,
                seen_at=timezone.now(),
                origin=ORIGIN,
            )
    except Game.DoesNotExist:
        return None  # swept as the page opened
    players = [game.room.seats[seat].player for seat in mine]
    handle = selectors.spectator_handle(game.code, controller)
    former, left, taken_out = selectors.former_player(game, controller, mine)
    you = protocol.encode(
        protocol.You(
            seats=mine,
            players=players,
            spectator=handle,
            former=former,
            left=left,
            taken_out=taken_out,
            release=static_version(),
        )
    )
    return you, protocol.dumps(game_state(game)), _frame(game)


# The channel name of a browser's presence without script: never a socket's (theirs are uuids).
NOSCRIPT_CHANNEL = "noscript."


def at_table_without_script(code: str, controller: str, browser: str = "") -> None:
    """A browser without script loaded the room's page (after each form it posts too): it is at the
    table as a socket's browser is, for ``PRESENCE_TIMEOUT`` from now (its page reloads itself
    sooner while it waits).

    It has no socket, so it stands in a Presence row of its own (one a browser and room), which
    counts as a socket's does and then expires as one whose process died: the host's tools
    for its seats are refused while it is there, and offered once it has gone. The room is
    told when the browser arrives, or comes back after its row expired.
    """
    if not controller:
        return  # a look at the room without a session: nothing to tell apart, nothing stored
    game = selectors.room_or_none(code)
    if game is None:
        return
    digest = hashlib.sha256(f"{game.pk}:{controller}:{browser}".encode()).hexdigest()[:40]
    channel = f"{NOSCRIPT_CHANNEL}{digest}"
    now = timezone.now()
    if Presence.objects.filter(channel_name=channel, seen_at__gte=now - PRESENCE_TIMEOUT).update(seen_at=now):
        return
    try:
        # origin "": no serving process holds it, so none's death takes it away before it expires.
        with moves.room_still_there(game):
            Presence.objects.update_or_create(
                channel_name=channel,
                defaults={"game": game, "controller": controller, "browser": browser, "seen_at": now, "origin": ""},
            )
    except Game.DoesNotExist:
        return  # swept as the page loaded
    frame = protocol.loads(_frame(game))
    transaction.on_commit(functools.partial(events.tell, game.code, frame))


def room_frame(code: str) -> str | None:
    """The room's presence frame now (None for a room that is gone)."""
    game = selectors.room_or_none(code)
    return _frame(game) if game is not None else None


def _left_key(game_id: int, controller: str) -> str:
    # Hashed: controller tokens stay out of the shared cache.
    return f"presence-left:v1:{game_id}:{hashlib.sha256(controller.encode()).hexdigest()[:32]}"


def _note_left(rows: list[tuple[int, str]]) -> None:
    """Note in the cache, for ``host_away()`` seconds, that a socket of each (game, browser) has just closed.

    The rows are gone, so this note is what says a browser was here a moment ago. It is shared
    by every process through the cache; should the cache be out of reach, the note is missing
    and the host's seat counts as away as long as no socket plays it.
    """
    # The note holds when the socket closed, so that the room can say how long each wait has left.
    now = time.time()
    notes = {_left_key(game_id, controller): now for game_id, controller in rows if controller}
    if not notes:
        return
    try:
        cache.set_many(notes, host_away())
    except Exception:  # noqa: BLE001 - the sockets are gone either way; only the wait is lost
        log.warning("presence: could not note %d closed sockets in the cache", len(notes), exc_info=True)


def left_lately(game: Game, controller: str) -> bool:
    """Whether a socket of ``controller``'s browser left room ``game`` less than ``host_away()`` seconds ago."""
    if not controller:
        return False
    try:
        return cache.get(_left_key(game.pk, controller)) is not None
    except Exception:  # noqa: BLE001 - as in _note_left: without the cache, away is away
        log.warning("presence: could not read the cache", exc_info=True)
        return False


def waits_left(game: Game, controllers: dict[str, list[int]]) -> dict[str, float]:
    """For each seat (its index as a string) of ``controllers`` (a browser's token -> its seats) whose
    browser's socket left room ``game`` less than ``host_away()`` seconds ago: the seconds left of
    that wait. One read of the cache; without it, no wait (away is away, as in ``left_lately``)."""
    keys = {_left_key(game.pk, controller): seats for controller, seats in controllers.items() if controller and seats}
    if not keys:
        return {}
    try:
        notes = cache.get_many(list(keys))
    except Exception:  # noqa: BLE001 - as in _note_left
        log.warning("presence: could not read the cache", exc_info=True)
        return {}
    now, wait = time.time(), host_away()
    waits: dict[str, float] = {}
    for key, at in notes.items():
        # A note written before it held its time (True) counts as a wait just begun.
        left = wait - (now - at) if isinstance(at, float) else wait
        if left > 0:
            waits.update({str(seat): round(min(left, wait), 1) for seat in keys[key]})
    return waits


def leave(channel_name: str) -> bool:
    """Remove this socket's row in one DELETE; whether there was one (the room's presence changed).

    The room's new presence frame is read later, once for a burst of leavers
    (``games.realtime.sockets.presence_changed``).
    """
    # The rows reference nothing that cascades and nothing listens for their deletion, so the
    # DELETE alone does it: QuerySet.delete would wrap it in a transaction of its own (two more
    # round trips for every socket that closes). RETURNING: PostgreSQL, and SQLite since 3.35.
    table = connection.ops.quote_name(Presence._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {table} WHERE channel_name = %s RETURNING game_id, controller", [channel_name])
        rows: list[tuple[int, str]] = list(cursor.fetchall())
    _note_left(rows)
    return bool(rows)


LEAVE_BATCH = 500  # channel names in one statement (SQLite's bound parameters stay far under their limit)


def leave_many(channel_names: list[str]) -> set[str]:
    """Remove the rows of many sockets that closed together; the channel names that had one.

    One SELECT and one DELETE per ``LEAVE_BATCH`` names, however many sockets: closing a
    hundred together costs the database (and the event loop's trips to its thread) what
    closing one does, not a hundred times that (games.realtime.sockets batches them).
    """
    removed: set[str] = set()
    for start in range(0, len(channel_names), LEAVE_BATCH):
        names = channel_names[start : start + LEAVE_BATCH]
        rows = list(
            Presence.objects.filter(channel_name__in=names).values_list("channel_name", "game_id", "controller")
        )
        found = {name for name, _, _ in rows}
        if found:
            # The rows reference nothing that cascades and nothing listens for their deletion, so
            # the DELETE alone does it: QuerySet.delete would wrap it in a transaction of its own.
            query = Presence.objects.filter(channel_name__in=found)
            query._raw_delete(query.db)
            _note_left([(game_id, controller) for _, game_id, controller in rows])
        removed |= found
    return removed


def sweep_stale(older_than: timedelta = STALE_AFTER) -> int:
    """Delete the rows of sockets not heard from for ``older_than`` (their process died); how many."""
    deleted, _ = Presence.objects.filter(seen_at__lt=timezone.now() - older_than).delete()
    return deleted


def seen(
    code: str, channel_name: str, controller: str = "", hidden_since: datetime | None = None, browser: str = ""
) -> tuple[int | None, bool]:
    """Refresh this socket's presence; the room's current version (None for an unknown room), and
    whether its row had to be written again.

    ``hidden_since``: since when the socket's page has been hidden as it last said (None: shown),
    written with the ping, so that a row whose own write of it failed is put right by the next.

    A live socket's row can be gone: its process was taken for dead (no heartbeat while the
    database was out of reach) and another swept its rows. The socket says it is here, so it
    is: without its row the room would show its player away, and the host could take the seat.
    """
    now = timezone.now()
    if Presence.objects.filter(channel_name=channel_name).update(seen_at=now, hidden_since=hidden_since):
        return selectors.room_version(code), False
    game = selectors.room_or_none(code)
    if game is None:
        return None, False
    defaults = {
        "game": game,
        "controller": controller,
        "browser": browser,
        "seen_at": now,
        "origin": ORIGIN,
        "hidden_since": hidden_since,
    }
    try:
        with moves.room_still_there(game):
            _, made = Presence.objects.get_or_create(channel_name=channel_name, defaults=defaults)
    except Game.DoesNotExist:
        return None, False  # swept meanwhile
    return game.version, made


def handed_over(game: Game | None, controller: str, to: str) -> None:
    """The sockets of ``controller``'s browser are ``to``'s from now on (its seats moved there:
    ``games.services.seats_hand_over``): in ``game``, or in every room (None).

    Otherwise the room would count the seats as away while the browser's page is open at the
    table: the host could take them out, and the players the host's role. Only the one
    browser holds ``controller``, so these are its sockets; each goes on acting with the old
    token until it next acts, when it sees its session changed and connects again (4001).
    """
    rows = Presence.objects.filter(controller=controller)
    (rows.filter(game=game) if game is not None else rows).update(controller=to)


def signed_out(controller: str, browser: str) -> list[str]:
    """The browser whose session is marked ``browser`` signed out of the account whose token is
    ``controller``: its open sockets are an anonymous visitor's from now on, as its pages are
    (they each connect again as one when they next act). The account's other browsers keep
    theirs. Each room it was in is told its presence, with the account's seats away if no
    other browser of it is there; the host's wait starts as when a socket closes. Returns the
    codes of those rooms.
    """
    if not controller or not browser:
        return []
    mine = Presence.objects.filter(controller=controller, browser=browser)
    games = list(Game.objects.filter(pk__in=mine.values("game_id")).order_by("pk"))
    if not games:
        return []
    mine.update(controller="", browser="")
    _note_left([(game.pk, controller) for game in games])
    for game in games:
        frame = protocol.loads(_frame(game))
        transaction.on_commit(functools.partial(events.tell, game.code, frame))
    return [game.code for game in games]


def hidden(channel_name: str, since: datetime | None) -> bool:
    """This socket's page has been hidden since ``since`` (None: it is shown): one UPDATE of its row;
    whether there was one.

    Only the notices read it (``games.services.notices``); the room's presence, the host's
    tools and the seats a host may hand to a computer go by the sockets alone, so the room is
    told nothing.
    """
    return bool(Presence.objects.filter(channel_name=channel_name).update(hidden_since=since))


def state_text(code: str) -> str:
    return protocol.dumps(game_state(selectors.room(code)))


def state_with_version(code: str) -> tuple[str, int]:
    game = selectors.room(code)
    return protocol.dumps(game_state(game)), game.version

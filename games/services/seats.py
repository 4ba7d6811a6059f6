"""Seats: joining, leaving, the host taking a seat out, computer players."""

from __future__ import annotations

import contextlib
import functools
import secrets
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone, translation

from games.domain import errors as E
from games.domain.errors import (
    BAD_LEVEL,
    BAD_REQUEST,
    BAD_SEAT,
    LOCAL_ROOM,
    NOT_A_PLAYER,
    NOT_IN_LOBBY,
    NOT_PLAYING,
    PLAYER_PRESENT,
    ROOM_FULL,
)
from games.domain.room import BOT, Room, Seat
from games.domain.rules import MAX_PLAYERS, GameState, RuleViolation, apply_reinstate, apply_remove
from games.services import events, presence
from games.services.actions import (
    check_request,
    counted,
    hand_host_on,
    locked,
    pause_named,
    present,
    record,
    require_host,
    rules_state,
)
from games.services.codes import (
    FORMER_PLAYER,
    SPECTATOR,
    NameRefused,
    clean_client_seed,
    clean_name,
    isolated,
    name_key,
    name_taken,
    reads_alike,
    seat_skeletons,
)
from games.services.waiting import word
from games.store import players
from games.store.models import ChatMessage, Game, Move, Notice, Player
from games.store.selectors import chat_audience, connected_controllers, played_by, silenced, spectator_handle

# Computer players: their levels (bots.LEVELS) and names.
BOT_LEVELS = {"optimal": "Expert", "casual": "Casual", "beginner": "Beginner"}
BOT_NAMES = ("Rolly", "Pip", "Dicey", "Boxcar", "Lucky", "Sixer", "Snake Eyes", "Chancey", "Deuce")


def add_seat(
    game: Game,
    room: Room,
    *,
    name: str,
    controller: str,
    client_seed: str,
    kind: str,
    level: str | None = None,
    muted: bool = False,
    follows: bool = True,
) -> tuple[Player, Room]:
    """A new seat after the others: its Player row, and ``room`` with it (for ``record``).

    ``follows``: False for a seat a rematch carries over for someone else than who asked for it
    (``Player.follows``; ``seats_follow`` marks it once they show up)."""
    player = players.create(
        game,
        seat=len(room.seats),
        name=name,
        controller=controller,
        client_seed=client_seed,
        kind=kind,
        follows=follows,
    )
    seat = Seat(player=player.pk, name=name, controller=controller, kind=kind, level=level, muted=muted)
    return player, room.seated(seat)


def seats_follow(*, game: Game, controller: str) -> int:
    """``controller``'s browser (or account) shows it follows ``game``: it opened the room's page, or
    asked for the rematch from the game before. Its seats a rematch carried over
    (``Player.follows`` False) are told of their turns and the game's end from now on; returns how
    many were marked. Looked for first, by the seat token's index: a page seen again (every view of
    a seated player's) only reads, and takes no write lock (SQLite's is the database's).

    The room's page is the sign: every way to see the game or act in it goes through it, with
    script or without, on any device of an account, whereas a socket is opened by the script alone.
    """
    if not controller:
        return 0
    rows = Player.objects.filter(game=game, follows=False).filter(
        Q(controller=controller) | Q(away_controller=controller)
    )
    return rows.update(follows=True) if rows.exists() else 0


def game_join(
    *,
    code: str,
    name: str,
    controller: str,
    client_seed: str = "",
    expected_version: int | None = None,
    action_id: str = "",
) -> Player:
    """Take a seat in the lobby (a browser may take several: same-device players). Locks the Game row."""
    display = clean_name(name)
    seed = clean_client_seed(client_seed)
    if not controller:
        raise RuleViolation(BAD_REQUEST, "Your browser has no session; enable cookies and try again.")
    with transaction.atomic():
        game = locked(code)
        check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        if game.is_over:
            raise RuleViolation(E.GAME_OVER, "This room is closed: its game is over or everyone left it.")
        if game.status != Game.Status.LOBBY:
            raise RuleViolation(NOT_IN_LOBBY, "The game has already started: you can watch it.")
        active = [s for s in game.room.seats if s.active]
        if game.local and not game.room.plays(controller):
            raise RuleViolation(LOCAL_ROOM, "This game is played on one device: you can watch it.")
        same = next((s for s in active if name_key(s.name) == name_key(display)), None)
        if same is not None and same.controlled_by(controller):
            # This browser sits there under that name already. The join form sent twice (a double
            # click: the same form id, or none from a page that sends none) is answered with the
            # seat it has; another form is a second player of this device given the first's name,
            # which would otherwise take no seat and say nothing. Only the name itself finds it: a
            # look-alike is another name (refused below).
            if not action_id or Move.objects.filter(game=game, actor=controller, action_id=action_id).exists():
                return Player.objects.get(pk=same.player)
            raise NameRefused(
                E.NAME_TAKEN,
                f"{isolated(same.name)} already sits at this table on this device: "
                "each player on it needs a name of their own.",
                sits_here=same.name,
            )
        if len(active) >= MAX_PLAYERS:
            raise RuleViolation(ROOM_FULL, f"The room is full ({MAX_PLAYERS} players): you can watch.")
        # A name that reads as a seat's ("Annl" beside "Ann1", a Cyrillic "А" in "Ann") would pass
        # for that player on the scorecard, in the feed and in the chat.
        alike = next((s for s in active if reads_alike(s.name, display)), None)
        if alike is not None:
            raise name_taken(display, alike.name)
        # What the host did to this browser's earlier seat holds for a new one: a kick keeps it
        # out, a mute keeps it quiet (leaving and joining again would undo either); so does a
        # mute of the browser as a spectator (taking a seat would undo it).
        mine = Move.objects.filter(game=game, player__controller=controller)
        if not game.local and mine.filter(kind=Move.Kind.KICK).exists():
            raise RuleViolation(E.KICKED, "The host took you out of this room: you can watch.")
        player, room = add_seat(
            game, joined_once_more(game), name=display, controller=controller, client_seed=seed, kind=Player.Kind.HUMAN
        )
        # (A browser taken out of the lobby gets here only in a game on one device, whose seats
        # are all the host's: never muted.)
        if silenced(game, controller) == E.MUTED:
            room = room.with_seat(len(room.seats) - 1, muted=True)
        # Back at the table: a mute of this browser shows on its seat, unmuted from there.
        room = room.seated_again(controller)
        record(
            game,
            kind=Move.Kind.JOIN,
            player_id=player.pk,
            payload={"seat": player.seat, "name": display, "client_seed": seed},
            actor=controller,
            action_id=action_id,
            room=room,
        )
    return player


def joined_once_more(game: Game) -> Room:
    """The room with one more seat taken in its lobby counted, or ``joins_used_up`` (a loop of join
    and leave, or of adding a computer and taking it out, would grow the log without end)."""
    return counted(game.room, "joins")


def find_seat(game: Game, seat: int) -> Seat:
    seats = game.room.seats
    if not 0 <= seat < len(seats):
        raise RuleViolation(BAD_SEAT, f"There is no seat {seat!r} in this room.")
    entry = seats[seat]
    if not entry.active:
        raise RuleViolation(BAD_SEAT, f"{entry.name} has already left.")
    return entry


def vacate(game: Game, seat: int, *, kind: str, actor: str, action_id: str, room: Room | None = None) -> None:
    """Take ``seat`` out: in the lobby the seats close up; in a game the rules skip it.

    ``room``: the room to take it out of, if not the stored one (a seat given back to its player first).
    """
    room = room if room is not None else game.room
    entry = room.seats[seat]
    payload: dict[str, Any] = {"seat": seat, "name": entry.name}
    fields: list[str] = []
    state: GameState | None = None
    if game.status == Game.Status.LOBBY:
        room = room.without_seat(seat)
        person = entry.persons_controller
        host = next((s for s in room.seats if s.player == game.host_id), None)
        hosts = (host.controller, host.away_controller) if host is not None else ()
        if kind in (Move.Kind.LEAVE, Move.Kind.KICK) and entry.muted and person and person not in hosts:
            # Leaving (or being kicked) does not undo the host's mute, and the seat it showed on is
            # gone: the browser is muted as a spectator, under the name it sat under, which the host
            # unmutes it by. Not the host's own browser (a companion's seat on their device): it is
            # never muted, and the host could not unmute it.
            room = room.left_muted(person, entry.name)
    else:
        room = room.taken_out(seat, by_host=kind == Move.Kind.REMOVE)
        if kind in (Move.Kind.KICK, Move.Kind.REMOVE) and entry.person:
            # A player taken out reads the chat and posts no more (selectors.silenced): their seat
            # shows it as a mute, which the host lifts from its line as any muted seat's.
            room = room.with_seat(seat, muted=True)
        state = apply_remove(rules_state(game), seat=seat)
        # With nobody left in the game it is abandoned (below), not won; but an online game every
        # person left, this one last, ends and is counted, those who left ranked by when they did:
        # otherwise a player leaving a lost game, and the winner then leaving too, would take the
        # game off both their records.
        deserted = not game.local and room.with_rules(state).deserted()
        if (state.is_over and any(state.active)) or deserted:
            payload["game_over"] = True
            payload["winners"] = room.with_rules(state).winners()  # as the records rank them
            game.status, game.finished_at = Game.Status.FINISHED, timezone.now()
            fields += ["status", "finished_at"]
    if game.host_id == entry.player:
        room = pause_named(game, room)
        new_host = hand_host_on(game, room, connected_controllers(game))
        payload["host"] = new_host.player if new_host else None
        fields.append("host")
        if new_host is not None:
            # The host's own seat cannot be muted, nor unmuted by anyone else: a mute goes, the one
            # of the browser as a spectator too.
            if new_host.muted:
                room = room.with_seat(room.seats.index(new_host), muted=False)
            person = new_host.persons_controller
            if person in room.muted_spectators:
                room = room.spectator_muted(person, False)
    if not room.humans_left() and game.status in (Game.Status.LOBBY, Game.Status.PLAYING):
        game.status = Game.Status.ABANDONED
        game.finished_at = timezone.now()
        fields += ["status", "finished_at"]
        payload["abandoned"] = True
    record(
        game,
        kind=kind,
        player_id=entry.player,
        payload=payload,
        actor=actor,
        action_id=action_id,
        fields=tuple(dict.fromkeys(fields)),
        rules=state,
        room=room,
    )


def game_leave(*, code: str, controller: str, seat: int, expected_version: int | None, action_id: str) -> None:
    """A player gives up their own seat (in the lobby or mid-game), one a computer plays while they
    are away included. Locks the Game row."""
    with transaction.atomic():
        game = locked(code)
        check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        if game.status not in (Game.Status.LOBBY, Game.Status.PLAYING):
            raise RuleViolation(E.GAME_OVER, "The game is over.")
        entry = find_seat(game, seat)
        room = None
        if not entry.controlled_by(controller):
            if seat not in reclaimable(game, controller):
                raise RuleViolation(NOT_A_PLAYER, "That is not your seat.")
            # A computer plays it while its player is away: the player may still give it up. It
            # leaves as theirs again, as if they had come back to leave it, so it is a seat its
            # player left wherever one counts (the ranking, the records), not a computer's.
            room = game.room.reclaimed(seat, controller)
        vacate(game, seat, kind=Move.Kind.LEAVE, actor=controller, action_id=action_id, room=room)


def refuse_if_present(game: Game, seat: int, entry: Seat) -> None:
    """Refuse taking over a person's seat (``Seat.person``: one a computer keeps for them while they
    are away included) at your own pace, or while its person is at the table."""
    if game.pace == Game.Pace.OWN and entry.person:
        # Nobody need be online in a game at your own pace: a player whose moves run out of
        # time twice in a row is played by a computer until they are back (clock.clock_expire).
        raise RuleViolation(
            E.OWN_PACE, f"{entry.name} plays at their own pace: a seat is not taken over for being offline."
        )
    # A seat a computer keeps for its person is present when their browser is (``present``):
    # a device shared by several players takes none of its seats back by itself.
    if entry.person and present(game, seat):
        raise RuleViolation(PLAYER_PRESENT, f"{entry.name} is here: only an away player's seat can be taken over.")
    # A dropped connection (a reload, a phone changing networks) is not an opening to take a
    # player's seat, and with it their place in a rated game: they get the wait the host gets.
    if entry.person and presence.left_lately(game, entry.persons_controller):
        raise RuleViolation(
            E.JUST_AWAY,
            f"{entry.name} went away only a moment ago: their seat can be taken over once they have"
            f" been away {presence.host_away():g} seconds.",
        )


def host_takes_out(
    *,
    code: str,
    controller: str,
    seat: int,
    expected_version: int | None,
    action_id: str,
    kind: str,
    status: str,
    refusal: tuple[str, str],
    require_away: bool = False,
) -> None:
    with transaction.atomic():
        game = locked(code)
        check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        # Taking an away seat out gets a stuck game moving: a player at the table may, with the
        # host away. Kicking in the lobby stays the host's.
        require_host(game, controller, takeover=require_away)
        if game.status != status:
            raise RuleViolation(*refusal)
        entry = find_seat(game, seat)
        # A seat of the host's own browser (a companion's on the same device) is left, not taken
        # out: taking it out would mark the host's browser as one the host took out of the room.
        if entry.player == game.host_id or entry.controlled_by(controller):
            raise RuleViolation(E.OWN_DEVICE, "The host cannot take out a seat of their own device; leave it instead.")
        if require_away:
            refuse_if_present(game, seat, entry)
        vacate(game, seat, kind=kind, actor=controller, action_id=action_id)


def game_kick(*, code: str, controller: str, seat: int, expected_version: int | None, action_id: str) -> None:
    """The host removes a seat before the start. Locks the Game row."""
    host_takes_out(
        code=code,
        controller=controller,
        seat=seat,
        expected_version=expected_version,
        action_id=action_id,
        kind=Move.Kind.KICK,
        status=Game.Status.LOBBY,
        refusal=(NOT_IN_LOBBY, "Players can only be kicked before the start; remove an absent one."),
    )


def game_remove_absent(*, code: str, controller: str, seat: int, expected_version: int | None, action_id: str) -> None:
    """The host takes an absent player out mid-game: the seat keeps its scores and is skipped. Locks the Game row."""
    host_takes_out(
        code=code,
        controller=controller,
        seat=seat,
        expected_version=expected_version,
        action_id=action_id,
        kind=Move.Kind.REMOVE,
        status=Game.Status.PLAYING,
        refusal=(NOT_PLAYING, "Only a game in progress has absent players to remove."),
        require_away=True,
    )


def check_level(level: object) -> str:
    if not isinstance(level, str) or level not in BOT_LEVELS:
        raise RuleViolation(BAD_LEVEL, f"Bots play at one of these levels: {', '.join(BOT_LEVELS)}.")
    return level


def bot_name(game: Game) -> str:
    """The first of BOT_NAMES that reads as no seated player's name."""
    taken = {key for s in game.room.seats if s.active for key in seat_skeletons(s.name)}
    for name in BOT_NAMES:
        if seat_skeletons(name).isdisjoint(taken):
            return name
    return f"Bot {len(game.room.seats) + 1}"


def game_add_bot(
    *, code: str, controller: str, level: str = "optimal", expected_version: int | None, action_id: str
) -> Player:
    """The host seats a computer player in the lobby. Locks the Game row."""
    level = check_level(level)
    with transaction.atomic():
        game = locked(code)
        check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        if game.status != Game.Status.LOBBY:
            raise RuleViolation(NOT_IN_LOBBY, "Bots join before the game starts; mid-game one can take over a seat.")
        require_host(game, controller)
        if sum(1 for s in game.room.seats if s.active) >= MAX_PLAYERS:
            raise RuleViolation(ROOM_FULL, f"The room is full ({MAX_PLAYERS} players).")
        name = bot_name(game)
        player, room = add_seat(
            game,
            joined_once_more(game),
            name=name,
            controller=f"bot:{secrets.token_hex(8)}",
            client_seed="",
            kind=BOT,
            level=level,
        )
        record(
            game,
            kind=Move.Kind.JOIN,
            player_id=player.pk,
            payload={"seat": player.seat, "name": name, "client_seed": "", "bot": level},
            actor=controller,
            action_id=action_id,
            room=room,
        )
    return player


def game_replace_with_bot(
    *, code: str, controller: str, seat: int, level: str = "optimal", expected_version: int | None, action_id: str
) -> None:
    """The host hands a seat whose player left or is away to a bot; the seat keeps its scores. Locks the Game row."""
    level = check_level(level)
    with transaction.atomic():
        game = locked(code)
        check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        if game.status != Game.Status.PLAYING:
            raise RuleViolation(NOT_PLAYING, "A bot can take over a seat during a game.")
        seats = game.room.seats
        # A computer for an away seat gets a stuck game moving: a player at the table may, with
        # the host away. Giving a seat that left to a computer stays the host's.
        require_host(game, controller, takeover=0 <= seat < len(seats) and seats[seat].active)
        if not 0 <= seat < len(seats):
            raise RuleViolation(BAD_SEAT, f"There is no seat {seat!r} in this room.")
        entry = seats[seat]
        if entry.bot and entry.active:
            raise RuleViolation(E.ALREADY_COMPUTER, f"{entry.name} is already a bot.")
        if entry.controlled_by(controller):
            raise RuleViolation(E.OWN_SEAT, "That is your own seat.")
        reinstate = not entry.active
        if not reinstate:
            refuse_if_present(game, seat, entry)
        state = apply_reinstate(rules_state(game), seat=seat) if reinstate else None
        # An away player's browser is kept (``Room.to_computer``), so that coming back gives
        # them the seat again (seat_reclaim). A player who left on purpose gave the seat up.
        room = counted(game.room, "handovers")
        room = room.to_computer(seat, controller=f"bot:{secrets.token_hex(8)}", level=level, away=False)
        record(
            game,
            kind=Move.Kind.BOT,
            player_id=entry.player,
            payload={"seat": seat, "name": entry.name, "level": level, "reinstate": reinstate},
            actor=controller,
            action_id=action_id,
            rules=state,
            room=room,
        )


def reclaimable(game: Game, controller: str) -> list[int]:
    """The seats a computer took over from ``controller`` while its player was away (a read)."""
    return game.room.reclaimable(controller, playing=game.status == Game.Status.PLAYING)


def seat_reclaim(*, code: str, controller: str, seat: int | None = None) -> list[int]:
    """A player back in the room (the same browser) takes back the seats a computer played for them.

    A browser that plays one seat takes it back on any sign of its player (``seat`` None: a
    tap, a key, its socket connecting). A browser that plays several (pass-and-play, players
    added on one device) takes back only the ``seat`` its player names: at a shared device
    a tap or a reconnect may be anyone's, and whoever is there is not the one who walked off
    (their seat handed back would run out on the clock again, twice, over and over).
    Unlocked read first (a socket connects far more often than anyone comes back), then
    under the Game row's lock: the seat is the person's again at once (their turn, if it is
    that seat's), and each seat taken back is a ``reclaim`` Move that tells the room.
    Returns the seats taken back: none for a seat already back or kept by the browser after
    the game; a seat that is not there is refused (``bad_seat``), one that is not this browser's
    too (``not_reclaimable``).
    """
    game = Game.objects.filter(code=code).first()
    if game is None or (seat is None and not reclaimable(game, controller)):
        return []
    with transaction.atomic():
        game = locked(code)
        seats = _to_reclaim(game, controller, seat)
        for index in seats:
            entry = game.room.seats[index]
            record(
                game,
                kind=Move.Kind.RECLAIM,
                player_id=entry.player,
                payload={"seat": index, "name": entry.name},
                actor=controller,
                action_id="",
                room=game.room.reclaimed(index, controller),
            )
    return seats


def _to_reclaim(game: Game, controller: str, seat: int | None) -> list[int]:
    """The seats ``seat_reclaim`` takes back for ``controller`` (``seat``: the one its player named)."""
    room = game.room
    seats = reclaimable(game, controller)
    if seat is None:
        return seats if len(room.seats_kept_for(controller)) == 1 else []
    if not 0 <= seat < len(room.seats):
        raise RuleViolation(BAD_SEAT, f"There is no seat {seat!r} in this room.")
    if seat in seats:
        return [seat]
    if seat in room.seats_kept_for(controller):
        return []  # back already (a second tap), or the game is over: nothing to take
    raise RuleViolation(E.NOT_RECLAIMABLE, f"Seat {seat!r} is not one a computer plays for you.")


LIVE = (Game.Status.LOBBY, Game.Status.PLAYING)
HANDED_AT_ONCE = 200  # games over whose rows one statement writes when a browser signs in


def _codes_with(*conditions: Q, **lookup: object) -> list[str]:
    """The codes of the games with a Player row matching ``conditions`` and ``lookup`` (a read, oldest game first)."""
    return list(
        Game.objects.filter(pk__in=Player.objects.filter(*conditions, **lookup).values("game_id"))
        .order_by("pk")
        .values_list("code", flat=True)
    )


def _handed(room: Room, controller: str, to: str) -> tuple[Room, list[int]]:
    """``room`` with every seat ``controller`` is the person of made ``to``'s, and those seats."""
    seats = []
    for index, entry in enumerate(room.seats):
        if entry.controller == controller:
            room = room.with_seat(index, controller=to)
            seats.append(index)
        elif entry.away_controller == controller:
            room = room.with_seat(index, away_controller=to)
            seats.append(index)
        elif entry.left_controller == controller:
            room = room.with_seat(index, left_controller=to)
            seats.append(index)
    return room, seats


def seats_hand_over(*, controller: str, to: str) -> list[str]:
    """Every seat ``controller`` plays becomes ``to``'s: a browser's seats joining an account.

    Games over too: their player may ask for the rematch, and is seated in it, as the account,
    and reads their chat as its player. A game not over is changed in a transaction of its own,
    under its row lock, with a ``claim`` Move (its version moves on, so an action sent by the
    old token is refused as stale, and the room is told). The games over are changed all at
    once (``_hand_over_ended``): nothing is played there, nobody is told, and a browser that
    played a thousand games signs in in a few queries. Seats a computer plays while their
    player is away follow too (the player takes them back signed in), and those it plays on
    after their player left (their result). So do the browser's open sockets, in the same
    transaction (``presence.handed_over``): the room counts the seats present while the
    browser's page is open at the table. Returns the codes changed.
    """
    if not controller or not to or controller == to:
        return []
    games = list(
        Game.objects.filter(pk__in=Player.objects.filter(played_by(controller)).values("game_id"))
        .order_by("pk")
        .values_list("code", "status")
    )
    watched = _watched(controller)
    live = [code for code, status in games if status in LIVE]
    live += [code for code, status in watched if status in LIVE and code not in live]
    over = {code for code, status in [*games, *watched] if status not in LIVE}
    changed = _hand_over_ended(sorted(over), controller, to)
    for code in live:  # a game that ended since it was read is handed over as a live one: under its lock
        with transaction.atomic():
            game = locked(code)
            room, seats, hushed = _handed_all(game, controller, to)
            # The seats it left in the lobby keep their rows, out of the room: the account's too, so
            # that what the host did to them (a kick, a mute, told by those rows' Moves) holds for it.
            Player.objects.filter(game=game, seat__isnull=True, controller=controller).update(controller=to)
            # The browser's lines as a spectator are the account's too: the host mutes (or lets
            # speak again) by the handle they show, which is the account's from now on.
            lines = ChatMessage.objects.filter(game=game, seat__isnull=True, controller=controller)
            shown = list(lines.filter(hidden=False).values_list("pk", flat=True))
            lines.update(controller=to)
            # So are the host's mutes and unmutes of it as a spectator, which name that handle: the
            # last of them still holds for the account (games.store.selectors.silenced).
            _spectator_moves_handed(game, controller, to)
            if shown:
                # Open pages show those lines under the old handle, which mutes nobody now.
                frame = {
                    "type": "chat_renamed",
                    "messages": shown,
                    "name": SPECTATOR,
                    "spectator": spectator_handle(code, to),
                }
                transaction.on_commit(functools.partial(events.tell, code, frame, chat_audience(game)))
            if seats or hushed:
                record(
                    game,
                    kind=Move.Kind.CLAIM,
                    player_id=None,
                    payload={"seats": seats},
                    actor=to,
                    action_id="",
                    room=room,
                )
                presence.handed_over(game, controller, to)
                changed.append(code)
    presence.handed_over(None, controller, to)  # the rooms it watches without a seat, and the games over
    return changed


def _handed_all(game: Game, controller: str, to: str) -> tuple[Room, list[int], bool]:
    """``_handed``, and the host's mute of the browser as a spectator made the account's (True
    if there was one): the mute is the person's, and signing in does not lift it."""
    room, seats = _handed(game.room, controller, to)
    hushed = controller in room.muted_spectators
    if hushed:
        # A player muted who left the lobby stays named, under the account's handle, for the host
        # to unmute: without the name the host has nothing to unmute them by once the game is on.
        name = dict(room.muted_left).get(controller)
        room = room.spectator_muted(controller, False)
        host = next((entry for entry in room.seats if entry.player == game.host_id), None)
        if host is None or to not in (host.controller, host.away_controller):  # a host's own browser is never muted
            room = room.spectator_muted(to, True) if name is None else room.left_muted(to, name)
    return room, seats, hushed


def _spectator_moves_handed(game: Game, controller: str, to: str) -> None:
    """The host's mutes and unmutes of ``controller`` as a spectator in ``game`` made ``to``'s: they
    name the browser by its handle, which is ``to``'s from now on, as its chat lines are."""
    handle, new = spectator_handle(game.code, controller), spectator_handle(game.code, to)
    said = list(Move.objects.filter(game=game, kind=Move.Kind.MUTE, player__isnull=True, payload__spectator=handle))
    for move in said:
        move.payload = {**move.payload, "spectator": new}
    Move.objects.bulk_update(said, ["payload"])


def _watched(controller: str) -> list[tuple[str, str]]:
    """The rooms (code, status) ``controller``'s browser may be known in without a seat: where it
    posted as a spectator, and the rematches that followed them or a game it played (a spectator
    muted, or a player muted who left the game, stays muted in the rematch, which it may not have
    posted in). Found from its lines and seats, not by reading every room."""
    codes: list[tuple[str, str]] = []
    pks = ChatMessage.objects.filter(seat__isnull=True, controller=controller).values("game_id")
    played = Player.objects.filter(played_by(controller)).values("game_id")
    rows = list(
        Game.objects.filter(Q(pk__in=pks) | Q(pk__in=played)).values_list("code", "status", "snapshot__rematch")
    )
    seen = {code for code, _, _ in rows}
    while rows:
        after = {rematch for _, _, rematch in rows if rematch and rematch not in seen}
        codes += [(code, status) for code, status, _ in rows]
        seen |= after
        rows = list(Game.objects.filter(code__in=after).values_list("code", "status", "snapshot__rematch"))
    return sorted(codes)


def _hand_over_ended(codes: list[str], controller: str, to: str) -> list[str]:
    """``seats_hand_over`` of the games over among ``codes``: one transaction, their rows locked and
    written together, and their seats' Player rows in one statement per column.

    A game over changes no more (nothing is played, no notice is owed, no clock runs) and its room
    is not told. Its version moves on, so that a copy of its row a process kept
    (``games.store.moves``) is not written back over the new tokens, with a ``claim`` Move as a live
    game's: the log has a Move for each version (the admin's review lists the claim). The Moves go in
    in one statement for all the games, as their rows do.
    """
    if not codes:
        return []
    with transaction.atomic():
        changed = []
        claims: list[Move] = []
        for game in Game.objects.select_for_update().filter(code__in=codes, status__in=Game.OVER).order_by("pk"):
            room, seats, hushed = _handed_all(game, controller, to)
            if seats or hushed:
                game.room = room
                game.version += 1
                changed.append(game)
                claims.append(
                    Move(game=game, seq=game.version, kind=Move.Kind.CLAIM, payload={"seats": seats}, actor=to)
                )
        Game.objects.bulk_update(changed, ["snapshot", "version"], batch_size=HANDED_AT_ONCE)
        Move.objects.bulk_create(claims, batch_size=HANDED_AT_ONCE)
        rows = Player.objects.filter(game__in=[game.pk for game in changed], seat__isnull=False)
        for column in ("controller", "away_controller", "left_controller"):  # as ``players.follow`` writes them
            rows.filter(**{column: controller}).update(**{column: to})
    return [game.code for game in changed]


def _muted_left_forgotten(room: Room, controller: str, names: set[str]) -> Room:
    """``room`` with the players muted who left it (Room.muted_left) of the browser ``controller``
    under one of ``names`` (a deleted account's own) shown as FORMER_PLAYER: a companion who
    played on its device keeps their name, as on the seats."""
    if not controller or not any(token == controller and name in names for token, name in room.muted_left):
        return room
    renamed = tuple(
        (token, FORMER_PLAYER if token == controller and name in names else name) for token, name in room.muted_left
    )
    return room.change(muted_left=renamed)


def _forget_names(game: Game, ids: set[int], names: set[str]) -> None:
    moves = [
        m
        for m in Move.objects.filter(game=game, player_id__in=ids)
        if isinstance(m.payload, dict) and "name" in m.payload
    ]
    for move in moves:
        move.payload = {**move.payload, "name": FORMER_PLAYER}
    Move.objects.bulk_update(moves, ["payload"])
    if not names:
        return
    notices = []
    for notice in Notice.objects.filter(game=game):
        event = notice.event
        if isinstance(event, dict) and event.get("name") in names:
            # The line is worded again from its event: replacing the name's text would also
            # change another player's name that contains it ("Al" in "Alice's turn").
            notice.event = {**event, "name": FORMER_PLAYER}
            with translation.override("en"):
                notice.text = word(notice.event, game.ruleset, plain=True)[:300]
            notices.append(notice)
    Notice.objects.bulk_update(notices, ["text", "event"])


def seats_forget(*, controller: str, player_ids: list[int]) -> None:
    """A deleted account: its seats everywhere are shown as "Former player", and it leaves its live games.

    ``controller``: the account's token (every seat it plays in a live game is left, as by
    its player); ``player_ids``: the seats that were the account's own, shown as "Former
    player" (the others its token played were companions' at its device: they keep their
    names). Each game is changed under its row lock with a ``forget`` Move, so its scores,
    log and replay stay whole.
    """
    ids = set(player_ids)
    codes = _codes_with(pk__in=ids)
    # Read before its seats are no longer its browser's, which finds them.
    watched = _watched(controller) if controller else []
    forgotten: set[str] = set()
    for code in codes:
        with transaction.atomic():
            game = locked(code)
            seats = []
            room = game.room
            # A seat a computer plays while the account's player is away is the account's too:
            # it is left with the others (below), not played out to the end as "Former player".
            # So is one it plays for a companion at the account's device: nobody can take it back.
            away = [
                index
                for index, entry in enumerate(room.seats)
                if (entry.player in ids or (controller and entry.away_controller == controller))
                and entry.bot and entry.active and entry.away_controller
                and game.status == Game.Status.PLAYING
            ]  # fmt: skip
            names = set(Player.objects.filter(game=game, pk__in=ids).values_list("name", flat=True))
            names |= {entry.name for entry in room.seats if entry.player in ids}
            forgotten |= names
            room = _muted_left_forgotten(room, controller, names)
            for index, entry in enumerate(room.seats):
                if entry.player in ids:
                    # A finished game's seat is no browser's any more: a rematch does not seat it.
                    # A live game's keeps it until the account leaves the game (below).
                    changes = {"controller": ""} if game.is_over else {}
                    room = room.with_seat(index, name=FORMER_PLAYER, away_controller="", **changes)
                    seats.append(index)
            # The seats' rows follow the room (``record``); a row that left the lobby has no seat.
            players.rename_unseated(game, ids, FORMER_PLAYER)
            # The chat's messages carry the name they were posted under: those go too.
            said = ChatMessage.objects.filter(game=game, player_id__in=ids)
            shown = list(said.filter(hidden=False).values_list("pk", flat=True))
            said.update(name=FORMER_PLAYER)
            # So do the log's entries that name it (joins, leaves, a computer taking over...), which
            # staff read, and the notices that told the others what it did.
            _forget_names(game, ids, names - {FORMER_PLAYER})
            record(
                game,
                kind=Move.Kind.FORGET,
                player_id=None,
                payload={"seats": seats},
                actor="",
                action_id="",
                room=room,
            )
            if shown:
                # Open pages show the old name beside those lines: the state renames the seat, this them.
                frame = {"type": "chat_renamed", "messages": shown, "name": FORMER_PLAYER}
                transaction.on_commit(functools.partial(events.tell, code, frame, chat_audience(game)))
            for index in away:
                if game.status == Game.Status.PLAYING and game.room.seats[index].active:
                    vacate(game, index, kind=Move.Kind.LEAVE, actor=controller, action_id="")
    if controller:
        # A rematch names a player muted who left the game before it (Room.muted_left), though
        # they never sat there: the name goes there too.
        for code, status in watched:
            if status not in LIVE or code in codes:
                continue
            with transaction.atomic():
                game = locked(code)
                room = _muted_left_forgotten(game.room, controller, forgotten)
                if room != game.room:
                    record(
                        game,
                        kind=Move.Kind.FORGET,
                        player_id=None,
                        payload={"seats": []},
                        actor="",
                        action_id="",
                        room=room,
                    )
        for code in _codes_with(controller=controller, game__status__in=LIVE):
            # Last seat first: in a lobby the seats after one that leaves move up a place.
            for index in reversed(Game.objects.get(code=code).room.seats_of(controller)):
                # The game may have ended or the seat gone meanwhile: then there is nothing to leave.
                with contextlib.suppress(RuleViolation):
                    game_leave(code=code, controller=controller, seat=index, expected_version=None, action_id="")

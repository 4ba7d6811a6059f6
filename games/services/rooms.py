"""Rooms: creating one (online or pass-and-play), starting it, a rematch."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from games.domain import errors as E
from games.domain import fairness
from games.domain.errors import BAD_REQUEST, BAD_RULESET, NAME_TAKEN, NOT_A_PLAYER, NOT_OVER
from games.domain.room import Seat
from games.domain.rules import MAX_PLAYERS, RULESETS, RuleViolation, apply_start, new_game
from games.services.actions import check_request, counted, locked, record, require_host
from games.services.clock import timer_choices
from games.services.codes import (
    SPECTATOR,
    NameRefused,
    clean_client_seed,
    clean_name,
    new_room_code,
    reads_alike,
    seat_skeletons,
)
from games.services.pace import check_pace, own_pace_choices
from games.services.seats import BOT_NAMES, add_seat, game_add_bot, game_join, seats_follow
from games.store.models import Game, Move, Player
from games.store.selectors import connected_controllers, muted_by_the_host, spectator_handle


def game_create(
    *,
    host_name: str,
    controller: str,
    ruleset: str = "official",
    private: bool = True,
    local: bool = False,
    client_seed: str = "",
    hints: bool = True,
    turn_timer: int = 0,
    chat_spectators: bool = False,
    pace: str = Game.Pace.LIVE,
) -> Player:
    """Create a room with its host in seat 0. One transaction; the new Game row needs no lock.

    ``pace``: live or own (at your own pace, ``games.services.pace``); ``turn_timer``: the
    seconds each turn may last (live: ``clock.timer_choices``; own: the time per move,
    ``pace.own_pace_choices``; 0: none); ``chat_spectators``: spectators may post in the chat too.
    ``client_seed``: the host's browser's seed for the dice; without one (no script) the server makes it.
    """
    seed = clean_client_seed(client_seed)
    return _create(
        name=clean_name(host_name),
        controller=controller,
        ruleset=ruleset,
        private=private,
        local=local,
        seed=seed,
        hints=hints,
        turn_timer=turn_timer,
        chat_spectators=chat_spectators,
        pace=pace,
    )


def _create(
    *,
    name: str,
    controller: str,
    ruleset: str,
    private: bool,
    local: bool,
    seed: str,
    hints: bool,
    turn_timer: int,
    chat_spectators: bool,
    pace: str,
    follows: bool = True,
) -> Player:
    """``game_create`` with the host seat's name and seed as given: the name checked by the caller
    (a rematch's is its seat's in the game before, which the name rules of the day do not
    check again, as for the other seats), a seed of "" left to the host's browser. ``follows``:
    False for a rematch hosted by another than its asker (``add_seat``)."""
    pace, turn_timer = check_pace(pace, turn_timer)
    if local and pace != Game.Pace.LIVE:
        raise RuleViolation(E.BAD_PACE, "A game played on one device is live: everyone is at the table.")
    if ruleset not in RULESETS:
        raise RuleViolation(BAD_RULESET, f"Unknown rule set {ruleset!r}; choose one of {', '.join(RULESETS)}.")
    if not controller:
        raise RuleViolation(BAD_REQUEST, "Your browser has no session; enable cookies and try again.")
    server_seed = fairness.new_server_seed()
    with transaction.atomic():
        for _ in range(5):
            code = new_room_code()
            if not Game.objects.filter(code=code).exists():
                break
        game = Game.objects.create(
            code=code,
            ruleset=ruleset,
            private=private,
            local=local,
            hints=hints,
            turn_timer=turn_timer,
            pace=pace,
            chat_spectators=bool(chat_spectators),
            server_seed=server_seed,
            seed_commitment=fairness.commitment(server_seed),
        )  # its room, empty, is stored by the first record
        record(
            game,
            kind=Move.Kind.CREATE,
            player_id=None,
            payload={
                "ruleset": ruleset,
                "commitment": game.seed_commitment,
                "local": local,
                "hints": hints,
                "turn_timer": turn_timer,
                "pace": pace,
                "chat_spectators": bool(chat_spectators),
            },
            actor=controller,
            action_id="",
        )
        host, room = add_seat(
            game, game.room, name=name, controller=controller, client_seed=seed, kind=Player.Kind.HUMAN, follows=follows
        )
        game.host = host
        record(
            game,
            kind=Move.Kind.JOIN,
            player_id=host.pk,
            payload={"seat": 0, "name": name, "client_seed": seed, "host": True},
            actor=controller,
            action_id="",
            fields=("host",),
            room=room,
        )
    return host


def local_game_create(
    *,
    names: list[str],
    controller: str,
    ruleset: str = "official",
    client_seed: str = "",
    bots: int = 0,
    level: str = "casual",
    hints: bool = True,
    turn_timer: int = 0,
    chat_spectators: bool = False,
) -> Game:
    """Pass-and-play: a started game whose 1-8 seats all belong to this browser (plus bots). One transaction.

    ``chat_spectators``: friends watching on other devices may post in the chat too.
    """
    if not names or bots < 0 or len(names) + bots > MAX_PLAYERS:
        raise RuleViolation(BAD_REQUEST, f"A game has 1 to {MAX_PLAYERS} players, at least one of them a person.")
    cleaned: list[str] = []
    for index, name in enumerate(names):
        try:
            display = clean_name(name)
        except NameRefused as exc:
            raise NameRefused(exc.code, exc.message, index) from exc
        if any(reads_alike(display, other) for other in cleaned):
            raise NameRefused(NAME_TAKEN, "Give each player a different name.", index)
        cleaned.append(display)
    with transaction.atomic():
        host = game_create(
            host_name=cleaned[0],
            controller=controller,
            ruleset=ruleset,
            local=True,
            client_seed=client_seed,
            hints=hints,
            turn_timer=turn_timer,
            chat_spectators=chat_spectators,
        )
        code = host.game.code
        for name in cleaned[1:]:
            game_join(code=code, name=name, controller=controller, client_seed=client_seed)
        for _ in range(bots):
            game_add_bot(code=code, controller=controller, level=level, expected_version=None, action_id="")
        game_start(code=code, controller=controller, expected_version=None, action_id="")
    return Game.objects.get(code=code)


def _seed_seats(code: str, controller: str, seed: str) -> None:
    """Before the start, ``controller``'s seats in room ``code`` that have no client seed take ``seed``."""
    game = locked(code)
    if game.status == Game.Status.LOBBY:
        Player.objects.filter(
            game=game, controller=controller, status=Player.Status.ACTIVE, kind=Player.Kind.HUMAN, client_seed=""
        ).update(client_seed=seed)


def _rematch_host(old: Game, seats: list[Seat], mine: list[Seat]) -> Seat:
    """The seat of the rematch's host: the asking browser's first (``mine``), unless the host muted
    one of its seats. A muted player made host would have nobody to mute them (the host's own
    seat cannot be muted): another player not muted hosts it then, the game's host first, and
    first those still at the game's end (a socket in the old room), who can start it; with
    nobody else at the table, the asker, without the mute, as in a room whose host left it to a
    muted seat."""
    if not any(s.muted for s in mine) or any(s.player == old.host_id for s in mine):
        return mine[0]
    here = connected_controllers(old)
    asker = mine[0].persons_controller
    others = [s for s in seats if s.persons_controller and s.persons_controller != asker and not s.muted]
    others.sort(key=lambda s: (s.persons_controller not in here, s.player != old.host_id))  # stable: in seat order
    return others[0] if others else mine[0]


def game_rematch(*, code: str, controller: str, client_seed: str = "") -> Game:
    """A new room with the same rules and seats, which everyone in the old one is offered.

    Idempotent: whoever asks first creates it, everyone after is sent to the same room. The asker
    hosts it unless the host muted them (``_rematch_host``).
    ``client_seed``: the asking browser's seed for the dice (docs/fairness.md), which its seats
    there take if they have none yet: everyone who follows the rematch from the game's end
    brings their own, as a join does. Locks the old Game row (and the new one to seed it).
    """
    seed = clean_client_seed(client_seed) if client_seed else ""
    with transaction.atomic():
        old = locked(code)
        if not old.is_over:
            raise RuleViolation(NOT_OVER, "A rematch can be asked for when the game is over.")
        seats = [s for s in old.room.seats if s.active]

        mine = [s for s in seats if controller and s.persons_controller == controller]
        if not controller or not mine:
            raise RuleViolation(NOT_A_PLAYER, "Only the players of this game can ask for a rematch.")
        rematch = Game.objects.filter(code=old.room.rematch).first() if old.room.rematch else None
        if rematch is not None and rematch.status != Game.Status.ABANDONED:
            # The players follow; a stranger holding the old code learns nothing. A rematch
            # whose lobby everyone left is replaced by a new one.
            if seed:
                _seed_seats(rematch.code, controller, seed)
            seats_follow(game=rematch, controller=controller)
            return rematch
        # Each new rematch is a Move of this game's log (and a room): everyone leaving its lobby and
        # asking again would loop without end.
        counted_room = counted(old.room, "rematches")
        choices = own_pace_choices() if old.pace == Game.Pace.OWN else timer_choices()
        first = _rematch_host(old, seats, mine)
        host = _create(
            name=first.name,
            controller=first.persons_controller,
            # The asker's seed (made here if their browser sent none, as for a new room); another
            # player hosting it (the asker was muted) brings their own browser's when they follow
            # the rematch, as every other seat does: the server makes up none for them.
            seed=clean_client_seed(client_seed) if first is mine[0] else "",
            ruleset=old.ruleset,
            local=old.local,
            private=old.private,
            hints=old.hints,
            turn_timer=old.turn_timer if old.turn_timer in choices else 0,
            chat_spectators=old.chat_spectators,
            pace=old.pace,
            follows=first is mine[0],
        )
        new = host.game
        # The same room's next game: the spectators the host muted stay muted there (but its host),
        # and so do the players muted who left the game (its chat refused them as spectators too;
        # one still playing another seat, on a shared device, speaks from that seat as before).
        # The host's mutes, not a take-out's: a player taken out (for being away) is quiet in that
        # game alone. A seat muted for its person's mute as a spectator (taken in the lobby after
        # it) is the host's mute too, though no Move of the seat's says so.
        playing = {seat.persons_controller for seat in seats}
        hushed_seats = [seat for seat in old.room.seats if seat.given_up and seat.muted]
        by_host = muted_by_the_host(old, [seat.player for seat in hushed_seats]) if hushed_seats else set()
        quit_muted = {
            person: seat.name
            for seat in hushed_seats
            if (person := seat.left_controller or (seat.controller if seat.human else ""))
            and (seat.player in by_host or person in old.room.muted_spectators)
            and person not in playing
        }
        hushed = [
            token
            for token in dict.fromkeys([*old.room.muted_spectators, *quit_muted])
            if token != first.persons_controller
        ]
        # A player among them has no seat in the new room to be unmuted from: the host's Players
        # list names them (Room.muted_left), as it names one who left the lobby muted.
        named = {**dict(old.room.muted_left), **quit_muted}
        for token in hushed:
            record(
                new,
                kind=Move.Kind.MUTE,
                player_id=None,
                payload={
                    "spectator": spectator_handle(new.code, token),
                    "name": SPECTATOR,
                    "muted": True,
                    "rematch": old.code,
                },
                actor=controller,
                action_id="",
                room=new.room.left_muted(token, named[token])
                if token in named
                else new.room.spectator_muted(token, True),
            )
        taken = {key for s in seats for key in seat_skeletons(s.name)}
        for seat in seats:
            if seat is first or (seat.human and not seat.controller):  # a deleted account's seat
                continue
            away = bool(seat.away_controller)
            # The same people's next table: the host's mute holds there. A computer's seat is no
            # person's: the mute of one who gave it up (or the take-out's) stays with that person.
            muted = not (seat.bot and not away) and (seat.muted or seat.persons_controller in hushed)
            name = seat.name
            if seat.bot and not away and name not in BOT_NAMES:
                # A computer that finished the game of someone who left plays under its own name
                # here: the person may follow the rematch under theirs.
                name = next((n for n in BOT_NAMES if seat_skeletons(n).isdisjoint(taken)), f"Bot {len(seats) + 1}")
                taken |= seat_skeletons(name)
            player, room = add_seat(
                new,
                new.room,
                name=name,
                controller=seat.persons_controller if away else seat.controller,
                client_seed="",
                kind=Player.Kind.HUMAN if away else seat.kind,
                level=None if away else seat.level,
                muted=muted,
                # Seated by someone else's press: their turns are told once they show they follow
                # the new room (``seats_follow``). The asker's own seats follow it at once.
                follows=seat.persons_controller == controller or (seat.bot and not away),
            )
            joined = {"seat": player.seat, "name": name, "client_seed": "", "rematch": old.code}
            if seat.bot and not away:
                joined["bot"] = seat.level
            if muted:
                joined["muted"] = True
            record(
                new,
                kind=Move.Kind.JOIN,
                player_id=player.pk,
                payload=joined,
                actor=controller,
                action_id="",
                room=room,
            )
        if seed:
            # The asking browser's other seats (players added on its device, pass-and-play) bring
            # its seed as well: it follows the rematch for all of them at once.
            _seed_seats(new.code, controller, seed)
        record(
            old,
            kind=Move.Kind.REMATCH,
            player_id=mine[0].player,
            payload={"code": new.code},
            actor=controller,
            action_id="",
            room=counted_room.change(rematch=new.code),
        )
    return new


def game_start(*, code: str, controller: str, expected_version: int | None, action_id: str) -> None:
    """The host starts the game with the seats as they are. Locks the Game row."""
    with transaction.atomic():
        game = locked(code)
        check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        if game.status != Game.Status.LOBBY:
            raise RuleViolation(E.ALREADY_STARTED, "The game has already started.")
        require_host(game, controller, takeover=True)
        seats = game.room.seats
        seeds = dict(Player.objects.filter(game=game, status=Player.Status.ACTIVE).values_list("pk", "client_seed"))
        game.client_seed = fairness.combine_client_seeds([seeds[s.player] for s in seats])
        state = apply_start(new_game(RULESETS[game.ruleset], len(seats)))
        game.status, game.started_at = Game.Status.PLAYING, timezone.now()
        record(
            game,
            kind=Move.Kind.START,
            player_id=None,
            payload={"players": [s.player for s in seats], "client_seed": game.client_seed},
            actor=controller,
            action_id=action_id,
            fields=("status", "started_at", "client_seed"),
            rules=state,
        )

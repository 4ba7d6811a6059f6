"""The only code that changes game state.

Every service is one ``transaction.atomic`` block that locks the Game row with
``select_for_update``, checks the caller and the expected version, asks the pure rules,
appends a Move (its ``seq`` is the game's new ``version``), updates the snapshot, the
ScoreEntry rows and the Game row, and schedules the broadcast with
``transaction.on_commit``. A refusal raises ``RuleViolation`` (or ``Game.DoesNotExist``
for an unknown room) and, the transaction being rolled back, changes nothing.

The turn actions (roll, hold, score), nearly every action of a game, first try without
the lock on PostgreSQL (``_act``): they read the row, and their one write statement
applies only if the row is still at the version they read. Every write to a Game row
bumps its version (``_record``), so an unchanged version means an unchanged row. If
another action came first, the action runs again the locked way. Measured in
docs/performance.md: four round trips (BEGIN, the locking read, the write, COMMIT) become
two.

The snapshot (``Game.snapshot``) holds the rules state, the seats with the browser that
controls each, and the game's roll counter, so an action needs no other reads.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from typing import Any, TypeVar

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from games import broadcast, fairness, moves
from games.models import Game, Move, Player, Presence, ScoreEntry
from games.presence import PRESENCE_TIMEOUT
from games.rules import (
    DICE,
    MAX_PLAYERS,
    RULESETS,
    Box,
    GameState,
    RuleViolation,
    apply_hold,
    apply_reinstate,
    apply_remove,
    apply_rolled,
    apply_score,
    apply_start,
    check_roll,
    new_game,
)
from games.rules import errors as E
from games.rules.codec import state_from_dict, state_to_dict

# Refusal codes of the service layer (the rules' own are in games.rules.errors).
STALE = "stale"
REPEATED = "repeated_action"
NOT_A_PLAYER = "not_a_player"
NOT_HOST = "not_host"
ROOM_FULL = "room_full"
NOT_IN_LOBBY = "not_in_lobby"
NOT_PLAYING = "not_playing"
BAD_NAME = "bad_name"
NAME_TAKEN = "name_taken"
BAD_SEAT = "bad_seat"
BAD_RULESET = "bad_ruleset"
BAD_REQUEST = "bad_request"
LOCAL_ROOM = "local_room"
NOT_OVER = "not_over"
BAD_LEVEL = "bad_level"
PLAYER_PRESENT = "player_present"

# Computer players: their levels (bots.LEVELS) and names.
BOT_LEVELS = {"optimal": "Expert", "casual": "Casual", "beginner": "Beginner"}
BOT_NAMES = ("Rolly", "Pip", "Dicey", "Boxcar", "Lucky", "Sixer", "Snake Eyes", "Chancey", "Deuce")

# Room codes: 10 characters from 31 unambiguous ones (no 0/o, 1/l/i) = 49.5 bits.
CODE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"
CODE_LENGTH = 10
NAME_MAX = 24
SEED_MAX = 64
ACTION_ID_MAX = 64
_CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")

Snapshot = dict[str, Any]
R = TypeVar("R")


def new_room_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(code: str) -> str:
    """Codes are typed by people: ignore case, spaces and dashes."""
    return re.sub(r"[\s-]", "", str(code)).lower()[:32]


def new_controller() -> str:
    """The token a browser keeps in its session to prove which seats are its own."""
    return secrets.token_urlsafe(24)


def clean_name(name: object) -> str:
    text = _CONTROL_CHARS.sub("", str(name) if isinstance(name, str) else "").strip()
    text = re.sub(r"\s+", " ", text)
    if not text:
        raise RuleViolation(BAD_NAME, "Please choose a display name.")
    if len(text) > NAME_MAX:
        raise RuleViolation(BAD_NAME, f"Names are at most {NAME_MAX} characters.")
    return text


def _clean_client_seed(seed: object) -> str:
    if not isinstance(seed, str) or not seed:
        return fairness.new_client_seed()
    if len(seed) > SEED_MAX or not re.fullmatch(r"[A-Za-z0-9_-]+", seed):
        raise RuleViolation(BAD_REQUEST, f"A client seed is 1 to {SEED_MAX} letters, digits, '-' or '_'.")
    return seed


# --- the shared steps of every action -------------------------------------------------


def _locked(code: str) -> Game:
    return Game.objects.select_for_update().get(code=normalize_code(code))


def _act(code: str, action: Callable[[Game], R], *, more_writes: bool = False) -> R:
    """Run ``action(game)``, which checks, asks the rules and ends with one ``_record``.

    On PostgreSQL, outside any caller's transaction, first on an unlocked read with a
    guarded write (the module docstring); ``more_writes``: the action writes other rows
    too, so that try is one transaction (its other writes come after ``_record``, whose
    guarded update takes the row lock first). Otherwise, and if another action came
    first, in one transaction under the row lock.
    """
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        game = moves.read(normalize_code(code))
        game._read_version = game.version  # type: ignore[attr-defined]  # _record guards its write with it
        try:
            if more_writes:
                with transaction.atomic():
                    return action(game)
            return action(game)
        except moves.Conflict:
            pass
    with transaction.atomic():
        return action(_locked(code))


def _check_request(game: Game, *, actor: str, expected_version: int | None, action_id: str) -> None:
    if not isinstance(action_id, str) or len(action_id) > ACTION_ID_MAX:
        raise RuleViolation(BAD_REQUEST, f"An action id is a string of at most {ACTION_ID_MAX} characters.")
    if expected_version is None:
        return
    if isinstance(expected_version, bool) or not isinstance(expected_version, int):
        raise RuleViolation(BAD_REQUEST, "The version must be a whole number.")
    if expected_version != game.version:
        # Only the error path pays for telling a resent action from a stale one.
        if action_id and Move.objects.filter(game=game, actor=actor, action_id=action_id).exists():
            raise RuleViolation(REPEATED, "That action was already applied.")
        raise RuleViolation(
            STALE, f"The game has moved on: it is at version {game.version}, your action was for {expected_version}."
        )


def _record(
    game: Game,
    *,
    kind: str,
    player_id: int | None,
    payload: dict[str, Any],
    actor: str,
    action_id: str,
    fields: tuple[str, ...] = (),
) -> Move:
    """Append the Move, save the Game row, and schedule the broadcast."""
    # An unlocked read (``_act``) writes only if the row is still at the version it read.
    guard: int | None = getattr(game, "_read_version", None)
    game.version += 1
    try:
        move = moves.append(
            game,
            ("version", "snapshot", *fields),
            if_version=guard,
            seq=game.version,
            player_id=player_id,
            kind=kind,
            payload=payload,
            actor=actor,
            action_id=action_id,
        )
    except IntegrityError as exc:
        # Only the (game, actor, action_id) constraint means a resent action; under the row
        # lock a clash on seq cannot happen, and if it ever did it must not pass as one.
        if "unique_action_id" not in str(exc) and "action_id" not in str(exc):
            raise
        raise RuleViolation(REPEATED, "That action id was already used in this game.") from exc
    transaction.on_commit(lambda: _announce(game, move))
    return move


def _announce(game: Game, move: Move) -> None:
    # Of several moves in one transaction only the last is announced, with the final state.
    if game.version == move.seq:
        broadcast.game_changed(game, move)


def _seats(game: Game) -> list[dict[str, Any]]:
    seats: list[dict[str, Any]] = game.snapshot["seats"]
    return seats


def _state(game: Game) -> GameState:
    return state_from_dict(game.snapshot["rules"])


def _controls(seat: dict[str, Any], controller: str) -> bool:
    return bool(controller) and seat["status"] == Player.Status.ACTIVE and seat["controller"] == controller


def _acting_seat(game: Game, controller: str) -> tuple[GameState, int]:
    """The rules state and the current seat, if ``controller`` may act for it."""
    if game.status == Game.Status.LOBBY:
        raise RuleViolation(E.GAME_NOT_STARTED, "The game has not started yet.")
    if game.status != Game.Status.PLAYING:
        raise RuleViolation(E.GAME_OVER, "The game is over.")
    seats = _seats(game)
    if not any(_controls(seat, controller) for seat in seats):
        raise RuleViolation(NOT_A_PLAYER, "You are watching this game: only seated players can act.")
    state = _state(game)
    if not _controls(seats[state.current], controller):
        raise RuleViolation(E.NOT_YOUR_TURN, f"It is {seats[state.current]['name']}'s turn.")
    return state, state.current


def _require_host(game: Game, controller: str) -> None:
    host = next((s for s in _seats(game) if s["player"] == game.host_id), None)
    if host is None or not _controls(host, controller):
        raise RuleViolation(NOT_HOST, "Only the host can do that.")


def _hand_host_on(game: Game) -> dict[str, Any] | None:
    """After the host left: the first active human seat becomes host (None if there is none)."""
    for seat in _seats(game):
        if seat["status"] == Player.Status.ACTIVE and seat["kind"] == Player.Kind.HUMAN:
            game.host_id = seat["player"]
            return seat
    game.host_id = None
    return None


# --- rooms ------------------------------------------------------------------------------


def game_create(
    *,
    host_name: str,
    controller: str,
    ruleset: str = "official",
    private: bool = True,
    local: bool = False,
    client_seed: str = "",
    hints: bool = True,
) -> Player:
    """Create a room with its host in seat 0. One transaction; the new Game row needs no lock."""
    name = clean_name(host_name)
    if ruleset not in RULESETS:
        raise RuleViolation(BAD_RULESET, f"Unknown rule set {ruleset!r}; choose one of {', '.join(RULESETS)}.")
    if not controller:
        raise RuleViolation(BAD_REQUEST, "Your browser has no session; enable cookies and try again.")
    seed = _clean_client_seed(client_seed)
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
            server_seed=server_seed,
            seed_commitment=fairness.commitment(server_seed),
            snapshot={"seats": [], "rules": None, "rolls": 0},
        )
        _record(
            game,
            kind=Move.Kind.CREATE,
            player_id=None,
            payload={"ruleset": ruleset, "commitment": game.seed_commitment, "local": local, "hints": hints},
            actor=controller,
            action_id="",
        )
        host = _add_seat(game, name=name, controller=controller, client_seed=seed, kind=Player.Kind.HUMAN)
        game.host = host
        _record(
            game,
            kind=Move.Kind.JOIN,
            player_id=host.pk,
            payload={"seat": 0, "name": name, "client_seed": seed, "host": True},
            actor=controller,
            action_id="",
            fields=("host",),
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
) -> Game:
    """Pass-and-play: a started game whose 1-8 seats all belong to this browser (plus bots). One transaction."""
    if not names or bots < 0 or len(names) + bots > MAX_PLAYERS:
        raise RuleViolation(BAD_REQUEST, f"A game has 1 to {MAX_PLAYERS} players, at least one of them a person.")
    cleaned = [clean_name(name) for name in names]
    if len({name.casefold() for name in cleaned}) != len(cleaned):
        raise RuleViolation(NAME_TAKEN, "Give each player a different name.")
    with transaction.atomic():
        host = game_create(
            host_name=cleaned[0],
            controller=controller,
            ruleset=ruleset,
            local=True,
            client_seed=client_seed,
            hints=hints,
        )
        code = host.game.code
        for name in cleaned[1:]:
            game_join(code=code, name=name, controller=controller, client_seed=client_seed)
        for _ in range(bots):
            game_add_bot(code=code, controller=controller, level=level, expected_version=None, action_id="")
        game_start(code=code, controller=controller, expected_version=None, action_id="")
    return Game.objects.get(code=code)


def game_rematch(*, code: str, controller: str) -> Game:
    """A new room with the same rules and seats, which everyone in the old one is offered.

    Idempotent: whoever asks first creates it, everyone after is sent to the same room.
    Locks the old Game row.
    """
    with transaction.atomic():
        old = _locked(code)
        if old.status not in (Game.Status.FINISHED, Game.Status.ABANDONED):
            raise RuleViolation(NOT_OVER, "A rematch can be asked for when the game is over.")
        if old.snapshot.get("rematch"):
            return Game.objects.get(code=old.snapshot["rematch"])
        seats = [s for s in _seats(old) if s["status"] == Player.Status.ACTIVE]
        mine = [s for s in seats if s["controller"] == controller and s["kind"] == Player.Kind.HUMAN]
        if not controller or not mine:
            raise RuleViolation(NOT_A_PLAYER, "Only the players of this game can ask for a rematch.")
        host = game_create(
            host_name=mine[0]["name"],
            controller=controller,
            ruleset=old.ruleset,
            local=old.local,
            private=old.private,
            hints=old.hints,
        )
        new = host.game
        for seat in seats:
            if seat is mine[0]:
                continue
            player = _add_seat(new, name=seat["name"], controller=seat["controller"], client_seed="", kind=seat["kind"])
            if seat.get("level"):
                _seats(new)[-1]["level"] = seat["level"]
            _record(
                new,
                kind=Move.Kind.JOIN,
                player_id=player.pk,
                payload={"seat": player.seat, "name": seat["name"], "client_seed": "", "rematch": old.code},
                actor=controller,
                action_id="",
            )
        old.snapshot["rematch"] = new.code
        _record(
            old,
            kind=Move.Kind.REMATCH,
            player_id=mine[0]["player"],
            payload={"code": new.code},
            actor=controller,
            action_id="",
        )
    return new


def _add_seat(game: Game, *, name: str, controller: str, client_seed: str, kind: str) -> Player:
    seats = _seats(game)
    player = Player.objects.create(
        game=game, seat=len(seats), name=name, controller=controller, client_seed=client_seed, kind=kind
    )
    seats.append({"player": player.pk, "name": name, "controller": controller, "kind": kind, "status": "active"})
    return player


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
    seed = _clean_client_seed(client_seed)
    if not controller:
        raise RuleViolation(BAD_REQUEST, "Your browser has no session; enable cookies and try again.")
    with transaction.atomic():
        game = _locked(code)
        _check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        if game.status != Game.Status.LOBBY:
            raise RuleViolation(NOT_IN_LOBBY, "The game has already started: you can watch it.")
        active = [s for s in _seats(game) if s["status"] == Player.Status.ACTIVE]
        if game.local and not any(_controls(s, controller) for s in active):
            raise RuleViolation(LOCAL_ROOM, "This game is played on one device: you can watch it.")
        if len(active) >= MAX_PLAYERS:
            raise RuleViolation(ROOM_FULL, f"The room is full ({MAX_PLAYERS} players): you can watch.")
        if any(s["name"].casefold() == display.casefold() for s in active):
            raise RuleViolation(NAME_TAKEN, f"Someone here is already called {display}.")
        player = _add_seat(game, name=display, controller=controller, client_seed=seed, kind=Player.Kind.HUMAN)
        _record(
            game,
            kind=Move.Kind.JOIN,
            player_id=player.pk,
            payload={"seat": player.seat, "name": display, "client_seed": seed},
            actor=controller,
            action_id=action_id,
        )
    return player


def _find_seat(game: Game, seat: object) -> dict[str, Any]:
    seats = _seats(game)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(seats):
        raise RuleViolation(BAD_SEAT, f"There is no seat {seat!r} in this room.")
    entry = seats[seat]
    if entry["status"] != Player.Status.ACTIVE:
        raise RuleViolation(BAD_SEAT, f"{entry['name']} has already left.")
    return entry


def _vacate(game: Game, seat: int, *, kind: str, actor: str, action_id: str) -> None:
    """Take ``seat`` out: in the lobby the seats close up; in a game the rules skip it."""
    seats = _seats(game)
    entry = seats[seat]
    payload: dict[str, Any] = {"seat": seat, "name": entry["name"]}
    fields: list[str] = []
    if game.status == Game.Status.LOBBY:
        seats.pop(seat)
        Player.objects.filter(pk=entry["player"]).update(seat=None, status=Player.Status.LEFT)
        for index, other in enumerate(seats[seat:], start=seat):
            Player.objects.filter(pk=other["player"]).update(seat=index)
    else:
        entry["status"] = Player.Status.LEFT
        Player.objects.filter(pk=entry["player"]).update(status=Player.Status.LEFT)
        state = apply_remove(_state(game), seat=seat)
        game.snapshot["rules"] = state_to_dict(state)
        # With nobody left in the game it is abandoned (below), not won.
        if state.is_over and any(state.active):
            payload["game_over"] = True
            payload["winners"] = list(state.winners())
            game.status, game.finished_at = Game.Status.FINISHED, timezone.now()
            fields += ["status", "finished_at"]
    if game.host_id == entry["player"]:
        new_host = _hand_host_on(game)
        payload["host"] = new_host["player"] if new_host else None
        fields.append("host")
    humans_left = any(s["status"] == Player.Status.ACTIVE and s["kind"] == Player.Kind.HUMAN for s in seats)
    if not humans_left and game.status in (Game.Status.LOBBY, Game.Status.PLAYING):
        game.status = Game.Status.ABANDONED
        game.finished_at = timezone.now()
        fields += ["status", "finished_at"]
        payload["abandoned"] = True
    _record(
        game,
        kind=kind,
        player_id=entry["player"],
        payload=payload,
        actor=actor,
        action_id=action_id,
        fields=tuple(dict.fromkeys(fields)),
    )


def game_leave(*, code: str, controller: str, seat: int, expected_version: int | None, action_id: str) -> None:
    """A player gives up their own seat (in the lobby or mid-game). Locks the Game row."""
    with transaction.atomic():
        game = _locked(code)
        _check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        if game.status not in (Game.Status.LOBBY, Game.Status.PLAYING):
            raise RuleViolation(E.GAME_OVER, "The game is over.")
        entry = _find_seat(game, seat)
        if not _controls(entry, controller):
            raise RuleViolation(NOT_A_PLAYER, "That is not your seat.")
        _vacate(game, seat, kind=Move.Kind.LEAVE, actor=controller, action_id=action_id)


def _present(game: Game, seat: int) -> bool:
    """Whether a socket that plays ``seat`` is connected to the room (from any process)."""
    cutoff = timezone.now() - PRESENCE_TIMEOUT
    rows = Presence.objects.filter(game=game, seen_at__gte=cutoff).values_list("seats", flat=True)
    return any(seat in seats for seats in rows)


def _require_away(game: Game, seat: int, entry: dict[str, Any]) -> None:
    if entry["kind"] == Player.Kind.HUMAN and _present(game, seat):
        raise RuleViolation(PLAYER_PRESENT, f"{entry['name']} is here: only an away player's seat can be taken over.")


def _host_takes_out(
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
        game = _locked(code)
        _check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        _require_host(game, controller)
        if game.status != status:
            raise RuleViolation(*refusal)
        entry = _find_seat(game, seat)
        if entry["player"] == game.host_id:
            raise RuleViolation(BAD_SEAT, "The host cannot take out their own seat; leave instead.")
        if require_away:
            _require_away(game, seat, entry)
        _vacate(game, seat, kind=kind, actor=controller, action_id=action_id)


def game_kick(*, code: str, controller: str, seat: int, expected_version: int | None, action_id: str) -> None:
    """The host removes a seat before the start. Locks the Game row."""
    _host_takes_out(
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
    _host_takes_out(
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


def game_start(*, code: str, controller: str, expected_version: int | None, action_id: str) -> None:
    """The host starts the game with the seats as they are. Locks the Game row."""
    with transaction.atomic():
        game = _locked(code)
        _check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        if game.status != Game.Status.LOBBY:
            raise RuleViolation(E.ALREADY_STARTED, "The game has already started.")
        _require_host(game, controller)
        seats = _seats(game)
        seeds = dict(Player.objects.filter(game=game, status=Player.Status.ACTIVE).values_list("pk", "client_seed"))
        game.client_seed = fairness.combine_client_seeds([seeds[s["player"]] for s in seats])
        state = apply_start(new_game(RULESETS[game.ruleset], len(seats)))
        game.snapshot["rules"] = state_to_dict(state)
        game.status, game.started_at = Game.Status.PLAYING, timezone.now()
        _record(
            game,
            kind=Move.Kind.START,
            player_id=None,
            payload={"players": [s["player"] for s in seats], "client_seed": game.client_seed},
            actor=controller,
            action_id=action_id,
            fields=("status", "started_at", "client_seed"),
        )


def _check_level(level: object) -> str:
    if not isinstance(level, str) or level not in BOT_LEVELS:
        raise RuleViolation(BAD_LEVEL, f"Bots play at one of these levels: {', '.join(BOT_LEVELS)}.")
    return level


def _bot_name(game: Game) -> str:
    taken = {s["name"].casefold() for s in _seats(game) if s["status"] == Player.Status.ACTIVE}
    for name in BOT_NAMES:
        if name.casefold() not in taken:
            return name
    return f"Bot {len(_seats(game)) + 1}"


def game_add_bot(
    *, code: str, controller: str, level: str = "optimal", expected_version: int | None, action_id: str
) -> Player:
    """The host seats a computer player in the lobby. Locks the Game row."""
    level = _check_level(level)
    with transaction.atomic():
        game = _locked(code)
        _check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        if game.status != Game.Status.LOBBY:
            raise RuleViolation(NOT_IN_LOBBY, "Bots join before the game starts; mid-game one can take over a seat.")
        _require_host(game, controller)
        if sum(1 for s in _seats(game) if s["status"] == Player.Status.ACTIVE) >= MAX_PLAYERS:
            raise RuleViolation(ROOM_FULL, f"The room is full ({MAX_PLAYERS} players).")
        name = _bot_name(game)
        player = _add_seat(game, name=name, controller=f"bot:{secrets.token_hex(8)}", client_seed="", kind="bot")
        _seats(game)[-1]["level"] = level
        _record(
            game,
            kind=Move.Kind.JOIN,
            player_id=player.pk,
            payload={"seat": player.seat, "name": name, "client_seed": "", "bot": level},
            actor=controller,
            action_id=action_id,
        )
    return player


def game_replace_with_bot(
    *, code: str, controller: str, seat: int, level: str = "optimal", expected_version: int | None, action_id: str
) -> None:
    """The host hands a seat whose player left or is away to a bot; the seat keeps its scores. Locks the Game row."""
    level = _check_level(level)
    with transaction.atomic():
        game = _locked(code)
        _check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        if game.status != Game.Status.PLAYING:
            raise RuleViolation(NOT_PLAYING, "A bot can take over a seat during a game.")
        _require_host(game, controller)
        seats = _seats(game)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(seats):
            raise RuleViolation(BAD_SEAT, f"There is no seat {seat!r} in this room.")
        entry = seats[seat]
        if entry["kind"] == Player.Kind.BOT and entry["status"] == Player.Status.ACTIVE:
            raise RuleViolation(BAD_SEAT, f"{entry['name']} is already a bot.")
        if _controls(entry, controller):
            raise RuleViolation(BAD_SEAT, "That is your own seat.")
        reinstate = entry["status"] != Player.Status.ACTIVE
        if not reinstate:
            _require_away(game, seat, entry)
        if reinstate:
            state = apply_reinstate(_state(game), seat=seat)
            game.snapshot["rules"] = state_to_dict(state)
        bot = f"bot:{secrets.token_hex(8)}"
        entry.update(kind=Player.Kind.BOT, controller=bot, status=Player.Status.ACTIVE, level=level)
        Player.objects.filter(pk=entry["player"]).update(
            kind=Player.Kind.BOT, controller=bot, status=Player.Status.ACTIVE
        )
        _record(
            game,
            kind=Move.Kind.BOT,
            player_id=entry["player"],
            payload={"seat": seat, "name": entry["name"], "level": level, "reinstate": reinstate},
            actor=controller,
            action_id=action_id,
        )


# --- turns ------------------------------------------------------------------------------


def turn_roll(*, code: str, controller: str, expected_version: int | None, action_id: str) -> list[int]:
    """Roll the current player's unheld dice with the fair dice. A guarded write, else the row lock (``_act``)."""

    def roll(game: Game) -> list[int]:
        _check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        state, seat = _acting_seat(game, controller)
        count = check_roll(state, seat)
        number = game.snapshot["rolls"]
        faces = fairness.roll_faces(game.server_seed, game.code, game.client_seed, number, count)
        state = apply_rolled(state, player=seat, faces=faces)
        game.snapshot["rolls"] = number + 1
        game.snapshot["rules"] = state_to_dict(state)
        _record(
            game,
            kind=Move.Kind.ROLL,
            player_id=_seats(game)[seat]["player"],
            payload={"roll": number, "held": sorted(state.turn.held), "faces": faces, "dice": list(state.turn.dice)},
            actor=controller,
            action_id=action_id,
        )
        return list(state.turn.dice)

    return _act(code, roll)


def turn_hold(*, code: str, controller: str, held: list[int], expected_version: int | None, action_id: str) -> None:
    """Set the full set of held dice for the current player. A guarded write, else the row lock (``_act``)."""
    if not isinstance(held, list | tuple) or len(held) > DICE:
        raise RuleViolation(E.BAD_DIE_INDEX, "Held dice are a list of at most five indices 0 to 4.")

    def hold(game: Game) -> None:
        _check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        state, seat = _acting_seat(game, controller)
        state = apply_hold(state, player=seat, held=held)
        game.snapshot["rules"] = state_to_dict(state)
        _record(
            game,
            kind=Move.Kind.HOLD,
            player_id=_seats(game)[seat]["player"],
            payload={"held": sorted(state.turn.held)},
            actor=controller,
            action_id=action_id,
        )

    _act(code, hold)


def turn_score(
    *, code: str, controller: str, box: str, column: int = 0, expected_version: int | None, action_id: str
) -> ScoreEntry:
    """Score the current dice in one box and pass the turn on. A guarded write, else the row lock (``_act``)."""

    def score(game: Game) -> ScoreEntry:
        _check_request(game, actor=controller, expected_version=expected_version, action_id=action_id)
        before, seat = _acting_seat(game, controller)
        if not isinstance(box, str):
            raise RuleViolation(E.UNKNOWN_BOX, "The box must be named by a string such as 'chance'.")
        after = apply_score(before, player=seat, box=box, column=column)
        card = after.cards[seat]
        filled = Box(box)
        points = card.column(column)[filled]
        bonus = card.yahtzee_bonus[column] - before.cards[seat].yahtzee_bonus[column]
        player_id = _seats(game)[seat]["player"]
        game.snapshot["rules"] = state_to_dict(after)
        payload: dict[str, Any] = {
            "box": filled.value,
            "column": column,
            "points": points,
            "bonus": bonus,
            "dice": list(before.turn.dice),
            "turn": after.turns_played,
        }
        fields: tuple[str, ...] = ()
        if after.is_over:
            payload["game_over"] = True
            payload["winners"] = list(after.winners())
            game.status, game.finished_at = Game.Status.FINISHED, timezone.now()
            fields = ("status", "finished_at")
        _record(
            game,
            kind=Move.Kind.SCORE,
            player_id=player_id,
            payload=payload,
            actor=controller,
            action_id=action_id,
            fields=fields,
        )
        # After the Game row's write: a guarded try has taken the row's lock (or stopped) by now.
        return ScoreEntry.objects.create(
            player_id=player_id, column=column, box=filled.value, points=points, bonus=bonus, turn=after.turns_played
        )

    return _act(code, score, more_writes=True)

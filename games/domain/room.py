"""A room's state, typed: the rules state, the seats, the roll counter, the clock, pause, rematch,
the spectators muted, the tally of what its people may repeat.

Pure Python (no Django). ``Game.snapshot`` holds exactly a ``Room``, written by
``Room.to_snapshot`` and read by ``Room.from_snapshot`` (``Game.room`` is the one place
that calls them). The stored form is plain JSON: an optional key is left out while it
holds its default, and a key a row lacks decodes as its default.

The questions the services, the scheduler, the selectors and the coach ask of a room
("does the clock run", "is a computer to play", "does this browser play seat 3", "whom
does the game wait for") are answered here once. What a room's row holds in columns of
its own (its status, its timer, pass-and-play) is passed in: the row is the authority on
those, and they are indexed there.

Every change returns a new ``Room``: a service builds the room it means to store and hands
it to ``record`` whole. They are frozen msgspec Structs because a room is decoded and
changed on every action, and a Struct is built and copied several times faster than a
frozen dataclass (``msgspec.structs.replace`` against ``dataclasses.replace``, timeit).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import msgspec

from games.domain.rules import GameState
from games.domain.rules.codec import state_from_dict, state_to_dict

HUMAN, BOT = "human", "bot"  # a seat's kind (Player.Kind)
ACTIVE, LEFT = "active", "left"  # a seat's status (Player.Status)

TurnKey = tuple[int, int]  # (turns played, the seat to play): one turn of one seat


class Seat(msgspec.Struct, frozen=True):
    """One seat: who plays it and how, in turn order."""

    player: int  # the Player row's id
    name: str
    # The browser that controls the seat (its session's token), or a computer's ``bot:…`` token.
    controller: str
    kind: str = HUMAN
    status: str = ACTIVE
    level: str | None = None  # a computer's level (bots.LEVELS)
    # A computer plays the seat after its player's turns ran out twice in a row.
    away: bool = False
    # While a computer plays for an away player: that player's browser, which takes the seat back.
    away_controller: str = ""
    # A computer plays on a seat its player left (or was taken out of): that player's browser. The
    # seat's result stays theirs, ranked with the seats that left; they gave it up and do not take
    # it back.
    left_controller: str = ""
    timeouts: int = 0  # the player's turns run out in a row (the turn timer)
    muted: bool = False  # the host muted this seat's chat
    # The seat was the n-th of the game to leave or be taken out (0: it has not): a game every
    # person left ranks them by it (``Room.ranks``).
    left_order: int = 0
    # The host took the seat out of the game (a Move REMOVE), its player did not leave it: the
    # game-over list and the shared result say so, and it stays so if a computer plays it on.
    taken_out: bool = False

    @property
    def active(self) -> bool:
        return self.status == ACTIVE

    @property
    def human(self) -> bool:
        return self.kind == HUMAN

    @property
    def bot(self) -> bool:
        return self.kind == BOT

    @property
    def person(self) -> bool:
        """A person's seat: played by them, or by a computer while they are away (theirs to take back)."""
        return self.human or bool(self.away_controller)

    @property
    def persons_controller(self) -> str:
        """The browser of the seat's person: its own, or the one a computer keeps the seat for ("" for a
        computer's own seat)."""
        return self.controller if self.human else self.away_controller

    @property
    def given_up(self) -> bool:
        """Out of the game as its player has it: they left (or were taken out), whether or not a
        computer plays the seat on since."""
        return not self.active or bool(self.left_controller)

    def controlled_by(self, controller: str) -> bool:
        """Whether ``controller`` (a browser's token) plays this seat now: it is still in the game and theirs."""
        return bool(controller) and self.active and self.controller == controller

    def to_snapshot(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "player": self.player,
            "name": self.name,
            "controller": self.controller,
            "kind": self.kind,
            "status": self.status,
        }
        if self.level is not None:
            data["level"] = self.level
        if self.away:
            data["away"] = True
        if self.away_controller:
            data["away_controller"] = self.away_controller
        if self.left_controller:
            data["left_controller"] = self.left_controller
        if self.timeouts:
            data["timeouts"] = self.timeouts
        if self.muted:
            data["muted"] = True
        if self.left_order:
            data["left_order"] = self.left_order
        if self.taken_out:
            data["taken_out"] = True
        return data

    @classmethod
    def from_snapshot(cls, data: Mapping[str, Any]) -> Seat:
        return cls(
            player=int(data["player"]),
            name=str(data["name"]),
            controller=str(data.get("controller", "")),
            kind=str(data.get("kind", HUMAN)),
            status=str(data.get("status", ACTIVE)),
            level=data.get("level") or None,
            away=bool(data.get("away")),
            away_controller=str(data.get("away_controller") or ""),
            left_controller=str(data.get("left_controller") or ""),
            timeouts=int(data.get("timeouts") or 0),
            muted=bool(data.get("muted")),
            left_order=int(data.get("left_order") or 0),
            taken_out=bool(data.get("taken_out")),
        )


class Tally(msgspec.Struct, frozen=True):
    """How often the room's people did each thing they may do again and again, each a Move of the
    log kept for ever: the services refuse one more past its ``LIMITS`` (games.services.actions.counted)."""

    joins: int = 0  # seats taken in the lobby after the room was made: a join, a computer added
    pauses: int = 0  # the host's pauses (a resume is never refused: it cannot outnumber them)
    mutes: int = 0  # the host's mutes of a seat or a spectator (an unmute is never refused)
    handovers: int = 0  # seats a player handed to a computer (the timer's own are not counted)
    rematches: int = 0  # rematch rooms made (following one made already writes nothing)

    def to_snapshot(self) -> dict[str, int]:
        return {name: value for name in self.__struct_fields__ if (value := getattr(self, name))}

    @classmethod
    def from_snapshot(cls, data: object) -> Tally | None:
        if not isinstance(data, Mapping):
            return None
        return cls(**{name: int(data.get(name) or 0) for name in cls.__struct_fields__})


# How often each of ``Tally``'s things may be done in one game: more than any game played means to,
# few enough that a loop at the frames' rate limit soon stops growing the log.
LIMITS = {"joins": 60, "pauses": 100, "mutes": 100, "handovers": 40, "rematches": 20}


def _int_pair(value: object) -> TurnKey | None:
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    return int(value[0]), int(value[1])


# Why a seat ranks after every seat that stayed (``Room.ranked_behind``), or "" for none.
Behind = Literal["", "left", "taken_out", "away"]


class Standing(msgspec.Struct, frozen=True):
    """One seat's result at the end (``Room.standings``)."""

    seat: int  # the seat's index, in turn order
    place: int  # 1 for the best; equal places share it (``Room.ranks``)
    points: int  # the seat's grand total
    behind: Behind = ""  # why it ranks after those who stayed, as the game-over list marks it


class Room(msgspec.Struct, frozen=True):
    """Everything about a room's state that its row does not keep in columns of its own."""

    seats: tuple[Seat, ...] = ()
    rules: GameState | None = None  # None until the game starts
    rolls: int = 0  # the rolls so far: the next roll's number for the fair dice
    paused: bool = False  # the host paused the game
    # The player (Player id) whose pause it is: the host when they paused. The role may pass on
    # during the pause (the host left): the new host did not pause, and resumes. None when not
    # paused, or in a room paused before it was kept (its Move log names the pauser then).
    paused_by: int | None = None
    # The seconds the turn had left when the host paused (None: no clock was running).
    clock_left: float | None = None
    # The turn whose deadline the clock set last: a new turn gets a fresh time.
    clock_turn: TurnKey | None = None
    # The turn whose "your turn" notice is owed already (at your own pace): one per turn.
    notice_turn: TurnKey | None = None
    rematch: str | None = None  # the code of the rematch's room, once someone asked for it
    # The browsers (controller tokens: an account's when signed in) whose chat the host muted as
    # spectators, in the order muted. Their posts are refused; a seat one of them takes is muted.
    muted_spectators: tuple[str, ...] = ()
    # Of those, the players muted who left the lobby, with the name they sat under (token, name):
    # their seat is gone from the list, and the host unmutes them by that name.
    muted_left: tuple[tuple[str, str], ...] = ()
    # (the next roll's number, the changes of the held dice since the last roll): holds are not
    # free to repeat without end, each a Move of the log (``holds_since_roll``).
    holds: tuple[int, int] | None = None
    # How often the things a person may repeat were done in this game (None: none yet).
    tally: Tally | None = None

    # --- the stored form --------------------------------------------------------------------

    @classmethod
    def from_snapshot(cls, data: Mapping[str, Any] | None) -> Room:
        """The room a snapshot holds; an empty one (``{}``, a row not written yet) is an empty lobby."""
        data = data or {}
        rules = data.get("rules")
        left = data.get("clock_left")
        return cls(
            seats=tuple(Seat.from_snapshot(seat) for seat in data.get("seats") or ()),
            rules=state_from_dict(rules) if rules is not None else None,
            rolls=int(data.get("rolls") or 0),
            paused=bool(data.get("paused")),
            paused_by=int(by) if (by := data.get("paused_by")) is not None else None,
            clock_left=left if left is None else float(left),
            clock_turn=_int_pair(data.get("clock_turn")),
            notice_turn=_int_pair(data.get("notice_turn")),
            rematch=data.get("rematch") or None,
            muted_spectators=tuple(str(token) for token in data.get("muted_spectators") or ()),
            muted_left=tuple((str(token), str(name)) for token, name in data.get("muted_left") or ()),
            holds=_int_pair(data.get("holds")),
            tally=Tally.from_snapshot(tally) if (tally := data.get("tally")) else None,
        )

    def to_snapshot(self, stored_rules: dict[str, Any] | None = None) -> dict[str, Any]:
        """The JSON-ready dict the snapshot column holds (a fresh dict: the caller may keep it).

        The dicts inside it may be shared with other snapshots (each card's, the stored rules):
        it is read and encoded, never changed in place.

        ``stored_rules``: ``rules`` already in their stored form (the snapshot this room's rules
        were read from), which spares encoding them again.
        """
        if stored_rules is not None:
            rules: dict[str, Any] | None = stored_rules
        else:
            rules = state_to_dict(self.rules) if self.rules is not None else None
        seats = [seat.to_snapshot() for seat in self.seats]
        data: dict[str, Any] = {"seats": seats, "rules": rules, "rolls": self.rolls}
        if self.paused:
            data["paused"] = True
        if self.paused_by is not None:
            data["paused_by"] = self.paused_by
        if self.clock_left is not None:
            data["clock_left"] = self.clock_left
        if self.clock_turn is not None:
            data["clock_turn"] = list(self.clock_turn)
        if self.notice_turn is not None:
            data["notice_turn"] = list(self.notice_turn)
        if self.rematch is not None:
            data["rematch"] = self.rematch
        if self.muted_spectators:
            data["muted_spectators"] = list(self.muted_spectators)
        if self.muted_left:
            data["muted_left"] = [list(pair) for pair in self.muted_left]
        if self.holds is not None:
            data["holds"] = list(self.holds)
        if self.tally is not None:
            data["tally"] = self.tally.to_snapshot()
        return data

    # --- changes: each returns a new Room ---------------------------------------------------

    def change(self, **changes: Any) -> Room:
        """This room with ``changes`` (fields of ``Room``)."""
        return msgspec.structs.replace(self, **changes)

    def with_rules(self, rules: GameState) -> Room:
        return self.change(rules=rules)

    def with_seat(self, index: int, **changes: Any) -> Room:
        """Seat ``index`` with ``changes`` (fields of ``Seat``)."""
        seats = list(self.seats)
        seats[index] = msgspec.structs.replace(seats[index], **changes)
        return self.change(seats=tuple(seats))

    def seated(self, seat: Seat) -> Room:
        """A new seat after the others (the lobby)."""
        return self.change(seats=(*self.seats, seat))

    def without_seat(self, index: int) -> Room:
        """Seat ``index`` gone and the seats after it moved up (a seat left in the lobby)."""
        return self.change(seats=self.seats[:index] + self.seats[index + 1 :])

    def to_computer(self, index: int, *, controller: str, level: str, away: bool) -> Room:
        """A computer plays seat ``index`` from now on.

        The person who played it, if they did not leave, may take it back from the same
        browser (``reclaimed``): their token is kept as ``away_controller``. One who left (or
        was taken out) gave the seat up: their token is kept as ``left_controller``, and the
        seat's result is still theirs, ranked as a seat that left. ``away``: their turns ran out
        (the timer) rather than the host handing the seat over.
        """
        seat = self.seats[index]
        changes: dict[str, Any] = {"kind": BOT, "controller": controller, "status": ACTIVE, "level": level}
        if seat.active and seat.human:
            changes["away_controller"] = seat.controller
        elif seat.human:
            changes["left_controller"] = seat.controller
        if away:
            changes.update(away=True, timeouts=0)
        return self.with_seat(index, **changes)

    def taken_out(self, index: int, *, by_host: bool = False) -> Room:
        """Seat ``index`` is out of the game (its player left, or the host took it out: ``by_host``):
        the rules skip it.

        Taken out while a computer played it for its away player, the seat is one its player gave
        up, not one they may take back: their token moves from ``away_controller`` to
        ``left_controller``, so a computer the host lets play it on later keeps it from them, and
        the seat ranks with the seats that left.
        """
        seat = self.seats[index]
        changes: dict[str, Any] = {"status": LEFT, "left_order": 1 + max(s.left_order for s in self.seats)}
        if by_host:
            changes["taken_out"] = True
        if seat.away_controller:
            changes.update(away_controller="", left_controller=seat.away_controller)
        return self.with_seat(index, **changes)

    def reclaimed(self, index: int, controller: str) -> Room:
        """The away player is back: seat ``index`` is theirs again, as it was before a computer took it."""
        return self.with_seat(
            index, kind=HUMAN, controller=controller, away_controller="", level=None, away=False, timeouts=0
        )

    def timed_out(self, index: int) -> Room:
        """Seat ``index``'s turn ran out: one more in its run of timeouts."""
        return self.with_seat(index, timeouts=self.seats[index].timeouts + 1)

    def played_by(self, player_id: int | None) -> Room:
        """The player of ``player_id`` made a move of their own: their run of timeouts is over."""
        if not any(seat.player == player_id and seat.timeouts for seat in self.seats):
            return self
        return self.change(
            seats=tuple(
                msgspec.structs.replace(seat, timeouts=0) if seat.player == player_id else seat for seat in self.seats
            )
        )

    def spectator_muted(self, controller: str, muted: bool) -> Room:
        """The browser ``controller`` muted (or no longer muted) as a spectator."""
        others = tuple(token for token in self.muted_spectators if token != controller)
        if muted:
            return self.change(muted_spectators=(*others, controller))
        return self.change(muted_spectators=others).seated_again(controller)

    def left_muted(self, controller: str, name: str) -> Room:
        """The player ``name`` of the browser ``controller``, muted, left the lobby: muted as a
        spectator from now on, and listed by that name for the host to unmute."""
        kept = tuple(pair for pair in self.muted_left if pair[0] != controller)
        return self.spectator_muted(controller, True).change(muted_left=(*kept, (controller, name)))

    def seated_again(self, controller: str) -> Room:
        """No longer listed as a player muted who left the lobby (unmuted, or at a seat again)."""
        if not any(token == controller for token, _ in self.muted_left):
            return self
        return self.change(muted_left=tuple(pair for pair in self.muted_left if pair[0] != controller))

    def pause(self, left: float | None, by: int | None = None) -> Room:
        """Paused by the player ``by`` (the host), with the seconds the running turn had left (None: no clock ran)."""
        return self.change(paused=True, paused_by=by, clock_left=left if left is not None else self.clock_left)

    def resume(self) -> Room:
        return self.change(paused=False, paused_by=None, clock_left=None)

    def held_once_more(self) -> Room:
        """One more change of the held dice since the last roll."""
        return self.change(holds=(self.rolls, self.holds_since_roll + 1))

    def counted(self, what: str) -> Room:
        """One more of ``what`` (a field of ``Tally``) done in this game."""
        tally = self.tally or Tally()
        return self.change(tally=msgspec.structs.replace(tally, **{what: getattr(tally, what) + 1}))

    # --- the questions --------------------------------------------------------------------

    def done(self, what: str) -> int:
        """How often ``what`` (a field of ``Tally``) was done in this game."""
        return 0 if self.tally is None else int(getattr(self.tally, what))

    @property
    def holds_since_roll(self) -> int:
        """How many times the held dice were changed since the last roll (a roll starts again at 0)."""
        if self.holds is None or self.holds[0] != self.rolls:
            return 0
        return self.holds[1]

    def to_play(self, *, playing: bool) -> Seat | None:
        """The seat whose turn it is in a game being played (None before the start or after the end)."""
        if not playing or self.rules is None:
            return None
        return self.seats[self.rules.current]

    def turn_key(self, *, playing: bool) -> TurnKey | None:
        """(turns played, the seat to play) while the game is played: one turn of one seat."""
        if not playing or self.rules is None:
            return None
        return self.rules.turns_played, self.rules.current

    def clock_runs(self, *, playing: bool, timed: bool) -> bool:
        """Whether the current turn's clock runs: a timer chosen, playing, not paused, a person to play."""
        seat = self.to_play(playing=playing)
        return timed and seat is not None and not self.paused and seat.human

    def time_held(self, *, playing: bool, timer: int | None) -> float | None:
        """While paused, the seconds the turn to play will have when play resumes: those it had
        left when the host paused, or the whole ``timer`` for a turn that came up during the
        pause (the player to move left or was taken out), as every new turn has. None when no
        clock will run then: not paused, no timer, not playing, a computer to play."""
        seat = self.to_play(playing=playing)
        if not self.paused or not timer or seat is None or not seat.human:
            return None
        if self.clock_left is not None and self.clock_turn == self.turn_key(playing=playing):
            return self.clock_left
        return float(timer)

    def bot_to_play(self, *, playing: bool) -> bool:
        """Whether a computer player is to play now (playing, not paused)."""
        seat = self.to_play(playing=playing)
        return seat is not None and not self.paused and seat.bot

    def waits_for(self, *, playing: bool, local: bool) -> int | None:
        """The seat whose player the game waits for: a person's turn, playing, not paused, online play."""
        seat = self.to_play(playing=playing)
        if seat is None or self.rules is None or local or self.paused or not seat.human or not seat.active:
            return None
        return self.rules.current

    def seats_of(self, controller: str) -> list[int]:
        """The seats still in the game that ``controller`` plays."""
        return [index for index, seat in enumerate(self.seats) if seat.controlled_by(controller)]

    def plays(self, controller: str) -> bool:
        """Whether ``controller`` plays any seat still in the game (else it watches)."""
        return any(seat.controlled_by(controller) for seat in self.seats)

    def controls_current(self, controller: str) -> bool:
        """Whether ``controller`` plays the seat whose turn it is."""
        return self.rules is not None and self.seats[self.rules.current].controlled_by(controller)

    def seats_kept_for(self, controller: str) -> list[int]:
        """The seats still in the game that are ``controller``'s: played by it, or by a computer while it is away."""
        if not controller:
            return []
        return [
            index
            for index, seat in enumerate(self.seats)
            if seat.active and controller in (seat.controller, seat.away_controller)
        ]

    def reclaimable(self, controller: str, *, playing: bool) -> list[int]:
        """The seats a computer plays for ``controller`` while its player is away, which it may take back."""
        if not controller or not playing:
            return []
        return [
            index
            for index, seat in enumerate(self.seats)
            if seat.away_controller == controller and seat.bot and seat.active
        ]

    def seat_of_player(self, player_id: int | None) -> int | None:
        return next((index for index, seat in enumerate(self.seats) if seat.player == player_id), None)

    def finished_for(self, index: int) -> bool:
        """Whether a computer finished seat ``index`` for its player, who was away (two timeouts in a
        row, or handed over by the host) and may still take it back."""
        seat = self.seats[index]
        return seat.active and seat.bot and bool(seat.away_controller)

    def finished_by_computer(self, index: int) -> bool:
        """Whether a computer played seat ``index`` on for the person who sat there: away
        (``finished_for``), or after they left and the host handed the seat over."""
        seat = self.seats[index]
        return self.finished_for(index) or (seat.active and bool(seat.left_controller))

    def ranks(self) -> list[int]:
        """Each seat's place at the end, 1 for the best, as the players' records give it: by total,
        equal totals sharing a place, and every seat that stayed before every seat that a computer
        finished for its away player (letting the clock run out twice does not take a losing game
        off the record), and those before every seat that left (it is out of the game, as the
        rules have it), whether or not the host gave it to a computer to play on: leaving does not
        take a losing game off the record either. A computer that sat down as one ranks by its
        total. In a game every person left (``deserted``) the seats that left rank by when they left,
        the last first: whoever stayed on longest did not give the game up to the others."""
        if self.rules is None:
            return []
        deserted = self.deserted()
        keys = [
            (
                2 if seat.given_up else 1 if self.finished_for(index) else 0,
                -seat.left_order if deserted and seat.given_up else 0,
                -self.rules.totals(index).grand_total,
            )
            for index, seat in enumerate(self.seats)
        ]
        return [1 + sum(1 for other in keys if other < key) for key in keys]

    def standings(self) -> list[Standing]:
        """Every seat's place and points, the best first, seats sharing a place in turn order, and why
        a seat ranks behind: the result as the players' records rank it (``ranks``), as the
        game-over notice and Your games' finished games list it. None before the start."""
        if self.rules is None:
            return []
        ranks = self.ranks()
        standings = [
            Standing(
                seat=index, place=place, points=self.rules.totals(index).grand_total, behind=self.ranked_behind(index)
            )
            for index, place in enumerate(ranks)
        ]
        return sorted(standings, key=lambda standing: (standing.place, standing.seat))

    def ranked_behind(self, index: int) -> Behind:
        """Why seat ``index`` ranks after every seat that stayed (``ranks``): "taken_out" by the
        host, "left", "away" (a computer finished it for its away player), or "" for none."""
        seat = self.seats[index]
        if seat.given_up:
            return "taken_out" if seat.taken_out else "left"
        return "away" if self.finished_for(index) else ""

    def anyone_stayed(self) -> bool:
        """Whether a seat is still played by who sat there (the seats ``ranks`` puts first)."""
        return any(not seat.given_up and not self.finished_for(index) for index, seat in enumerate(self.seats))

    def deserted(self) -> bool:
        """Whether every person left the started game, at least two of them: none plays a seat, nor
        will when back from away. An online game ends so as the last of them leaves
        (``games.services.seats.vacate``), and is counted: leaving last does not lose it."""
        if self.rules is None or not any(card.filled for card in self.rules.cards):
            return False  # nobody scored a box yet: there is nothing to rank them by, the game is abandoned
        gone = sum(1 for seat in self.seats if seat.given_up and (seat.human or seat.left_controller))
        return gone >= 2 and not self.humans_left()

    def winners(self) -> list[int]:
        """The seats placed first (``ranks``) in a game played to its end by someone still in it, or
        ended by every person leaving it (``deserted``); none before the end."""
        if self.rules is None or not (self.rules.winners() or self.deserted()):
            return []
        return [index for index, rank in enumerate(self.ranks()) if rank == 1]

    def has_bot(self) -> bool:
        return any(seat.bot for seat in self.seats)

    def humans_left(self) -> bool:
        """Whether a person still plays a seat, or will when they are back from away (else the room is abandoned)."""
        return any(seat.active and (seat.human or seat.away_controller) for seat in self.seats)

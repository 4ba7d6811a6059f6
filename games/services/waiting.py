"""Whose move a game waits for, and the notice that move owes: kept by every recorded action.

``watch`` runs inside ``actions.record``, before the action's write: it keeps
``Game.waiting_on`` (the controller token of the person to move, for the "waiting for you"
count and the list of games) and, when the move made it a person's turn in a game at your
own pace (or the game resumed in their turn), says so, so that ``record`` owes them the notice
in the same transaction as the move (``games.services.notices.owe``): the "your turn" unless
the move was their own, and the reminder either way. Nothing is sent here: a background task
sends it after the commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _

from games.domain.room import Room, Seat
from games.domain.rules import RULESETS
from games.services import words
from games.services.codes import isolated, shown_name
from games.services.deadline import TIMEOUT_ACTION
from games.store.models import Game, Move
from games.store.selectors import DAY, duration, time_left

__all__ = ["DAY", "Owed", "duration", "time_left", "turn_key", "waited_on", "watch"]


@dataclass(frozen=True)
class Owed:
    """A notice owed to the seat now to move: who, for which turn, and what just happened."""

    seat: int
    player_id: int
    turn: int
    text: str  # in English
    event: dict[str, Any]  # the same as codes and data, worded in each reader's language when sent
    # False when their own move gave them the turn: no "your turn", but still the reminder.
    turn_notice: bool = True
    # Owed for this turn already, and owed again: the game was paused and goes on.
    again: bool = False
    # Owed for this turn already, whose deadline moved later (staff gave more time, an outage's
    # time was given back): only the reminder, owed again if it went already (``notices.owe``).
    deadline_moved: bool = False


def turn_key(game: Game) -> list[int] | None:
    key = game.room.turn_key(playing=game.status == Game.Status.PLAYING)
    return list(key) if key is not None else None


def waited_on(game: Game, room: Room | None = None) -> Seat | None:
    """The seat whose player the game waits for (a person's turn, playing, not paused, online), else None."""
    room = room if room is not None else game.room
    index = room.waits_for(playing=game.status == Game.Status.PLAYING, local=game.local)
    return room.seats[index] if index is not None else None


def watch(
    game: Game, room: Room, *, kind: str, player_id: int | None, payload: dict[str, Any], actor: str, action_id: str
) -> tuple[Room, tuple[str, ...], Owed | None]:
    """Before an action's write of ``room``: the room to store, the Game fields to save too, and the notice owed.

    A notice is owed once per turn (``Room.notice_turn``), in a game at your own pace, to
    a person; when they made the move themselves, only its reminder (``notices.owe``). A
    resume owes the turn's notice again: the player to move may have found the game paused
    and be waiting to hear that it goes on, and that their time runs again. More time for the
    turn (staff's, an outage's) owes its reminder again, if it went already: the one they had
    was for the deadline before, and without it the new one would come with no warning.
    """
    fields: tuple[str, ...] = ()
    entry = waited_on(game, room)
    waiting = entry.controller if entry is not None else ""
    if waiting != game.waiting_on:
        game.waiting_on = waiting
        fields = ("waiting_on",)
    if entry is None or game.pace != Game.Pace.OWN:
        return room, fields, None
    key = room.turn_key(playing=game.status == Game.Status.PLAYING)
    again = room.notice_turn == key
    # More time for the turn (an ``extend`` adding seconds; one moved back with the server's clock
    # takes its notices back with it, ``notices.set_back``): its reminder may have gone already.
    later = kind == Move.Kind.EXTEND and payload.get("seconds", 0) > 0
    if key is None or (again and kind != Move.Kind.RESUME and not later):
        return room, fields, None
    if not again:
        room = room.change(notice_turn=key)
    # Their own move gave them the turn (the host's start, a game for one, the next seat on the
    # same device, taking a seat back): they know it is theirs, yet their time runs all the same.
    own_move = actor == entry.controller and not action_id.startswith(TIMEOUT_ACTION)
    event = what_happened(game, room, kind=kind, player_id=player_id, payload=payload, action_id=action_id)
    with translation.override("en"):
        text = word(event, game.ruleset, plain=True)
    if again and later:
        owed = Owed(
            seat=key[1], player_id=entry.player, turn=key[0], text=text, event=event, turn_notice=False,
            again=True, deadline_moved=True,
        )  # fmt: skip
        return room, fields, owed
    owed = Owed(
        seat=key[1], player_id=entry.player, turn=key[0], text=text, event=event, turn_notice=not own_move, again=again
    )
    return room, fields, owed


def what_happened(
    game: Game, room: Room, *, kind: str, player_id: int | None, payload: dict[str, Any], action_id: str
) -> dict[str, Any]:
    """The move that made it someone's turn, as codes and data (``word`` says it in a language)."""
    name = next((s.name for s in room.seats if s.player == player_id), "")
    if kind == Move.Kind.SCORE and name:
        what = "timed_out" if action_id.startswith(TIMEOUT_ACTION) else "scored"
        event = {"what": what, "name": name, "points": payload["points"], "box": payload["box"]}
        if RULESETS[game.ruleset].columns > 1:
            event["column"] = payload["column"]
        if payload.get("bonus"):  # the server's score for a timed-out turn earns its bonus as well
            event["bonus"] = payload["bonus"]
        return event
    if kind == Move.Kind.START:
        return {"what": "started"}
    if kind in (Move.Kind.LEAVE, Move.Kind.REMOVE) and name:
        return {"what": "left", "name": name}
    if kind == Move.Kind.RESUME:
        return {"what": "resumed", "name": name} if name else {"what": "resumed"}
    return {"what": "waiting"}


def word(event: dict[str, Any], ruleset: str, *, plain: bool = False) -> str:
    """``event`` in a line, in the active language: "Ana just scored 24 in Chance".

    Each name is a run of its own (``isolated``: a right-to-left one would take the number beside
    it into its run), unless ``plain``: plain text (the notices' e-mails and pushes, the English line
    of the admin and the log), where the isolates would show as boxes, keeps names as typed.
    """
    what = event.get("what")
    named = shown_name if plain else (lambda name: isolated(shown_name(name)))
    if what in ("scored", "timed_out"):
        rules = RULESETS[ruleset]
        data = {
            "name": named(event["name"]),
            "points": event["points"],
            "box": words.box_name(rules, event["box"]),
            "bonus": event.get("bonus", 0),
        }
        # One whole sentence for each case (the column, the bonus, the timeout), so a language puts
        # the column and the bonus where its own order says them.
        if "column" in event and rules.columns > 1:
            data["m"] = rules.multipliers[event["column"]]
            if what == "timed_out":
                text = (
                    _(
                        "%(name)s's time ran out: the server scored %(points)s in %(box)s in column ×%(m)s and a "
                        "Yahtzee bonus of %(bonus)s for them"
                    )
                    if data["bonus"]
                    else _("%(name)s's time ran out: the server scored %(points)s in %(box)s in column ×%(m)s for them")
                )
            else:
                text = (
                    _("%(name)s just scored %(points)s in %(box)s in column ×%(m)s and a Yahtzee bonus of %(bonus)s")
                    if data["bonus"]
                    else _("%(name)s just scored %(points)s in %(box)s in column ×%(m)s")
                )
        elif what == "timed_out":
            text = (
                _(
                    "%(name)s's time ran out: the server scored %(points)s in %(box)s and a Yahtzee bonus of "
                    "%(bonus)s for them"
                )
                if data["bonus"]
                else _("%(name)s's time ran out: the server scored %(points)s in %(box)s for them")
            )
        else:
            text = (
                _("%(name)s just scored %(points)s in %(box)s and a Yahtzee bonus of %(bonus)s")
                if data["bonus"]
                else _("%(name)s just scored %(points)s in %(box)s")
            )
        return text % data
    if what == "started":
        return _("The game has started")
    if what == "left":
        return _("%(name)s left the game") % {"name": named(event["name"])}
    if what == "resumed" and event.get("name"):
        return _("%(name)s resumed the game") % {"name": named(event["name"])}
    if what == "resumed":  # a notice owed before a resume named who resumed it
        return _("The host resumed the game")
    return _("The game is waiting for you")

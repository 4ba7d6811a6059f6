"""The administrator's review: finished and abandoned games, read-only, rebuilt from the Move log.

Staff may look at everything here and change nothing: no add, change or delete permission
for anyone (superusers included) and no bulk actions, so the admin can never edit history.
Live games (lobby, playing) are not history yet and stay out of it, which also keeps a
running game's secret server seed out of sight.

Two exceptions, each kept in the game's own records with the staff account that did it (a
History that stays when that account is deleted), and in the admin's LogEntry. The chat's
moderation: staff may hide a chat message from its room (and show it again), from any
game, live ones included; nothing else about a message can be changed. And the games
under way (their own list, without the secret seed): staff see each one's pace, whose move
it is and its deadline, and may give the player to move more time: confirmed on a page that
names the player to move in each game, and given to that player's turn only, which the game
logs as an ``extend`` Move (``services.clock_extend``), so its replay tells it too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import quote, unquote
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models import F, Prefetch, QuerySet
from django.db.models.constants import LOOKUP_SEP
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.dateparse import parse_datetime
from django.utils.formats import date_format

from games import services
from games.domain import scorecard
from games.domain.room import Room, Seat
from games.domain.rules import RULESETS, Box, RuleViolation
from games.domain.rules.codec import state_to_dict
from games.services.replay import PLAYED_BY, Replay, named_as_now, replay_moves, verify_fairness
from games.store.models import ChatMessage, Game, GameUnderWay, Move, Player, ScoreEntry
from games.store.selectors import chat_log, game_state, seconds_left, spectator_handle

HISTORY = Game.OVER
# A room code typed with the dashes the site shows it with.
CODE_SHOWN = re.compile(r"[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{2}", re.IGNORECASE)
# The move kinds the turn-by-turn timeline already tells; the rest are listed as room events.
TURN_KINDS = (Move.Kind.ROLL, Move.Kind.HOLD, Move.Kind.SCORE)


if TYPE_CHECKING:
    ModelAdmin = admin.ModelAdmin[Any]  # generic in django-stubs only; every model's admin here is read-only
else:
    ModelAdmin = admin.ModelAdmin


def _duration(seconds: float) -> str:
    """A span in the admin's words, which are English (docs/translations.md) whatever language the
    staff member reads Django's own pages in: a sentence of the admin's, and the log entry kept for
    every staff member, is never English with a German "1 Tag" in it."""
    with translation.override("en"):
        return services.duration(seconds)


def _time_left(seconds: float) -> str:
    """The time left to move in the admin's English words, as ``_duration``."""
    with translation.override("en"):
        return services.time_left(seconds)


def _is_staff(request: HttpRequest) -> bool:
    user = request.user
    return bool(user.is_active and user.is_staff)


class SecretLookupsAdmin(ModelAdmin):
    """Refuses a filter in the address on a secret column (Django allows one on any column of the
    model's own): a live game's seed, told a character at a time by whether a game is listed,
    gives every die still to come; a controller token is a browser's key to its seats."""

    SECRET_COLUMNS = frozenset(
        {"server_seed", "snapshot", "waiting_on", "controller", "away_controller", "left_controller", "actor"}
    )

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        if any(part in self.SECRET_COLUMNS for part in lookup.split(LOOKUP_SEP)):
            return False
        return bool(super().lookup_allowed(lookup, value, request))


class KnownSelection(ModelAdmin):
    """An action's ticked rows checked before Django filters the list by them: a post made by hand
    may name one that is no key of the list's (the users' list too, whose "delete selected" would
    answer a server error)."""

    def response_action(
        self, request: HttpRequest, queryset: QuerySet[Any], *args: Any, **kwargs: Any
    ) -> HttpResponse | None:
        """An action on the rows ticked, or, when a ticked row is no key of this list's (a post made
        by hand: not a number, or past the column's range), none: the list says so. Django filters
        the list by every value posted, and a value that is no key makes that filter raise."""
        field = self.model._meta.pk
        if field is None or field.get_internal_type() not in connection.ops.integer_field_ranges:
            return super().response_action(request, queryset, *args, **kwargs)
        low, high = connection.ops.integer_field_range(field.get_internal_type())
        for value in request.POST.getlist(helpers.ACTION_CHECKBOX_NAME):
            try:
                key = field.to_python(value)
            except ValidationError:
                key = None
            if not isinstance(key, int) or not low <= key <= high:
                self.message_user(request, "The selection names no row of this list: select again.", messages.WARNING)
                return None
        return super().response_action(request, queryset, *args, **kwargs)


class ShownCodeSearch(ModelAdmin):
    """A room's code as the site shows it and players quote it ("abcd-efgh-jk") finds its rows as
    the bare code does, in every list searched by code."""

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Any], search_term: str
    ) -> tuple[QuerySet[Any], bool]:
        if CODE_SHOWN.fullmatch(search_term.strip()):
            search_term = services.normalize_code(search_term)
        return super().get_search_results(request, queryset, search_term)


class StaffHistory(ModelAdmin):
    """A row's History is what staff did to it, read from the games' own records (a game's
    ``extend`` Moves, a message's ``ChatModeration`` rows), which name the staff account that
    acted and stay when it is deleted: Django's LogEntry, which the default History reads, is
    deleted with its user. Names of players are the seats' as they stand now."""

    object_history_template = "admin/games/staff_history.html"

    def staff_actions(self, obj: Any) -> list[dict[str, Any]]:
        """``{"at", "staff", "text"}`` for each thing staff did to ``obj``, oldest first."""
        return []

    def history_view(self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None) -> Any:
        response = super().history_view(request, object_id, extra_context)
        if isinstance(response, TemplateResponse) and response.context_data is not None:
            response.context_data["staff_actions"] = self.staff_actions(response.context_data["object"])
        return response


def _game_staff_actions(game: Game) -> list[dict[str, Any]]:
    """The more time staff gave, from the game's ``extend`` Moves (the server's own are no staff's:
    an outage's give-back, a deadline moved back with the server's clock)."""
    seats = game.room.seats
    actions = []
    for move in game.moves.filter(kind=Move.Kind.EXTEND).order_by("seq"):
        p = move.payload
        if p.get("outage") or p.get("set_back"):
            continue
        seat = p.get("seat")
        name = seats[seat].name if isinstance(seat, int) and 0 <= seat < len(seats) else "?"
        text = f"Gave {name} {_duration(p.get('seconds', 0))} more to move"
        until = parse_datetime(p.get("deadline") or "")
        if until is not None:
            text += f" (until {_when(until)})"  # the month's name too, in the admin's English sentence
        actions.append({"at": move.created_at, "staff": p.get("by") or "?", "text": text})
    return actions


class OneGameTwoLists(ModelAdmin):
    """A game has its page in one of two lists, by whether it is over: *Games* (finished and
    abandoned, seed revealed) or *Games under way*. A link to the other list's page of a game
    (Recent actions, a chat message's game, a page kept from before the game ended) leads to
    the page it has, not to "doesn't exist": the other list's page keeps the secret seed as
    that list does."""

    other_list = ""  # the other list's model, as in its admin URLs' names

    def _in_the_other_list(self, request: HttpRequest, object_id: str, view: str) -> HttpResponse | None:
        try:
            pk = Game._meta.pk.to_python(unquote(object_id))
        except ValidationError:
            return None
        if self.get_queryset(request).filter(pk=pk).exists() or not Game.objects.filter(pk=pk).exists():
            return None
        return redirect(reverse(f"admin:games_{self.other_list}_{view}", args=[quote(pk)]))

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> Any:
        elsewhere = self._in_the_other_list(request, object_id, "change")
        return elsewhere or super().change_view(request, object_id, form_url, extra_context)

    def history_view(self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None) -> Any:
        elsewhere = self._in_the_other_list(request, object_id, "history")
        return elsewhere or super().history_view(request, object_id, extra_context)


class ReadOnlyAdmin(KnownSelection, SecretLookupsAdmin):
    """Viewable by every active staff user; nobody may add, change or delete."""

    actions: Sequence[Any] | None = None

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return _is_staff(request)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return _is_staff(request)


# --- the changelist -------------------------------------------------------------------


class OutcomeFilter(admin.SimpleListFilter):
    """Status, limited to the two a reviewed game can have."""

    title = "status"
    parameter_name = "status"
    statuses: tuple[Game.Status, ...] = HISTORY

    def lookups(self, request: HttpRequest, model_admin: ModelAdmin) -> list[tuple[str, str]]:
        return [(status.value, status.label) for status in self.statuses]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Game]) -> QuerySet[Game]:
        if self.value() in self.statuses:
            return queryset.filter(status=self.value())
        return queryset


class UnderWayStatusFilter(OutcomeFilter):
    """Status, limited to the two a game not over yet can have (a paused game is still playing)."""

    statuses = Game.LIVE


class RulesetFilter(admin.ChoicesFieldListFilter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.title = "rule set"


def _state(game: Game) -> dict[str, Any]:
    """The public state dict, worked out once per row from the snapshot (no query)."""
    cached: dict[str, Any] | None = getattr(game, "_admin_state", None)
    if cached is None:
        cached = game_state(game)
        game._admin_state = cached  # type: ignore[attr-defined]
    return cached


@admin.register(Game)
class GameAdmin(OneGameTwoLists, StaffHistory, ShownCodeSearch, ReadOnlyAdmin):
    other_list = "gameunderway"
    list_display = (
        "room_code",
        "ruleset_label",
        "player_names",
        "winner_names",
        "scores",
        "status",
        "created_at",
        "finished_at",
    )
    list_filter = (OutcomeFilter, ("ruleset", RulesetFilter), "finished_at")
    date_hierarchy = "finished_at"
    search_fields = ("code", "players__name")
    ordering = ("-finished_at", "-created_at")
    list_per_page = 50
    fieldsets = (
        (None, {"fields": ("room_code", "ruleset", "status", "private", "local", "host", "version")}),
        ("Pace", {"fields": ("pace", "turn_timer")}),
        ("Dates", {"fields": ("created_at", "started_at", "finished_at")}),
        ("Fair dice", {"fields": ("seed_commitment", "revealed_server_seed", "client_seed")}),
    )
    readonly_fields = (
        "room_code",
        "ruleset",
        "status",
        "private",
        "local",
        "host",
        "version",
        "pace",
        "turn_timer",
        "created_at",
        "started_at",
        "finished_at",
        "seed_commitment",
        "revealed_server_seed",
        "client_seed",
    )
    change_form_template = "admin/games/game/change_form.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        players = Player.objects.order_by(F("seat").asc(nulls_last=True), "id")
        return (
            super()
            .get_queryset(request)
            .filter(status__in=HISTORY)
            .prefetch_related(Prefetch("players", queryset=players))
        )

    @admin.display(description="code", ordering="code")
    def room_code(self, game: Game) -> str:
        return services.shown_code(game.code)

    @admin.display(description="rule set", ordering="ruleset")
    def ruleset_label(self, game: Game) -> str:
        return RULESETS[game.ruleset].label

    @admin.display(description="players")
    def player_names(self, game: Game) -> str:
        names = []
        for player in game.players.all():
            notes = []
            if player.kind == Player.Kind.BOT:
                notes.append("bot")
            if player.status == Player.Status.LEFT:
                notes.append("left")
            names.append(f"{player.name} ({', '.join(notes)})" if notes else player.name)
        return ", ".join(names) or "—"

    @admin.display(description="winner")
    def winner_names(self, game: Game) -> str:
        state = _state(game)
        # The players' records' winners (Room.winners): a seat a computer finished for its away
        # player, or played on after its player left, ranks after the players who stayed.
        return ", ".join(state["seats"][seat]["name"] for seat in game.room.winners()) or "—"

    @admin.display(description="scores")
    def scores(self, game: Game) -> str:
        state = _state(game)
        parts = [f"{seat['name']} {card['total']}" for seat, card in zip(state["seats"], state["cards"], strict=False)]
        return " · ".join(parts) or "—"

    @admin.display(description="server seed (revealed)")
    def revealed_server_seed(self, game: Game) -> str:
        return game.server_seed if game.is_over else "hidden until the game ends"

    # --- the game's page ------------------------------------------------------------

    def staff_actions(self, obj: Game) -> list[dict[str, Any]]:
        return _game_staff_actions(obj)

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Game | None = None,
    ) -> Any:
        if obj is not None:
            context["review"] = build_review(obj)
        return super().render_change_form(request, context, add=add, change=change, form_url=form_url, obj=obj)


# --- the review: scorecards, checks and timeline -----------------------------------------


def build_review(game: Game) -> dict[str, Any]:
    """Everything the game's page shows below the facts, from one query for the Move log."""
    moves = list(game.moves.select_related("player").order_by("seq"))
    ruleset = RULESETS[game.ruleset]
    state = game_state(game)
    try:
        replay = named_as_now(replay_moves(game.ruleset, moves), game)
    except Exception as exc:  # a damaged log must not take the review page down with it
        replay = Replay(state=None, names=[], turns=[], problems=[f"the replay stopped: {exc!r}"])
        replay_crashed = True
    else:
        replay_crashed = False
    replayed = state_to_dict(replay.state) if replay.state is not None else None
    stored = state_to_dict(game.room.rules) if game.room.rules is not None else None
    fairness = verify_fairness(game, moves)
    return {
        "ruleset": ruleset,
        "scorecard": _scorecard(ruleset, state, game.room),
        "winners": [state["seats"][seat]["name"] for seat in game.room.winners()],
        "fairness": fairness,
        "replay_problems": replay.problems,
        "replay_matches": not replay_crashed and replayed == stored,
        "timeline": _timeline(ruleset, replay),
        "events": _events_and_chat(game, moves),
        "columns": ruleset.columns,
    }


def _scorecard(ruleset: Any, state: dict[str, Any], room: Room) -> dict[str, Any] | None:
    """Rows of cells: one per box and total, a cell per player and column."""
    cards = state["cards"]
    if not cards:
        return None
    columns = ruleset.columns
    winners = set(room.winners())
    stayed = room.anyone_stayed()
    players = [
        {
            "name": seat["name"],
            "winner": seat["seat"] in winners,
            "left": room.seats[seat["seat"]].given_up,  # a computer may play it on: ranked with those that left
            "bot": seat["kind"] == Player.Kind.BOT,
            "finished_for": stayed and room.finished_for(seat["seat"]),  # ranked after those who stayed
        }
        for seat in state["seats"]
    ]

    rows = []
    for section in scorecard.layout(ruleset)["sections"]:
        for row in section["rows"]:
            if row["kind"] == "total":
                cells = [{"value": card["total"], "span": columns} for card in cards]
            elif row["kind"] == "box":
                cells = [
                    {"value": col["boxes"].get(row["box"]), "span": 1} for card in cards for col in card["columns"]
                ]
            else:
                cells = [{"value": col[row["key"]], "span": 1} for card in cards for col in card["columns"]]
            rules = f" ({'; '.join(row['rules'])})" if row.get("rules") else ""
            rows.append({"label": row["label"] + rules, "kind": row["kind"], "cells": cells})
    return {
        "players": players,
        "columns": columns,
        "multipliers": [f"×{m}" for m in ruleset.multipliers],
        "rows": rows,
    }


def _timeline(ruleset: Any, replay: Replay) -> list[dict[str, Any]]:
    rows = []
    for turn in replay.turns:
        rolls = []
        for roll in turn.rolls:
            dice = [
                {
                    "value": value,
                    "held": index in roll["held"],
                    # Painted: the colour by name (the page shows the name, not only the hue).
                    "colour": roll["colours"][index] if "colours" in roll else "",
                }
                for index, value in enumerate(roll["dice"])
            ]
            # The held dice in words too: bold type and a title are not read out by screen readers.
            held = " ".join(f"{die['value']} {die['colour']}".strip() for die in dice if die["held"])
            rolls.append({"number": roll["roll"], "dice": dice, "held": held})
        rows.append(
            {
                "number": turn.number,
                "name": turn.name,
                "rolls": rolls,
                "scored": bool(turn.box),
                "box": turn.box,
                "box_label": ruleset.box_label(Box(turn.box)) if turn.box else "",
                "column": turn.column + 1,
                "multiplier": ruleset.multipliers[turn.column] if turn.box else 1,
                "points": turn.points,
                "bonus": turn.bonus,
                "played_by": PLAYED_BY.get(turn.played_by, ""),
            }
        )
    return rows


def _events_and_chat(game: Game, moves: list[Move]) -> list[dict[str, Any]]:
    """The room events, and each chat message after the move it was posted after, in order."""
    seats = game.room.seats
    rows = [(move.seq, 0, 0, _event(move, seats)) for move in moves if move.kind not in TURN_KINDS]
    for message in chat_log(game):
        row = {
            "seq": message.after_seq,
            "kind": "Chat (hidden by staff)" if message.hidden else "Chat",
            # A spectator's line under their handle, as the room and its mute Moves name them.
            "who": f"{message.name} {spectator_handle(game.code, message.controller)}".strip()
            if message.seat is None
            else message.name,
            "details": message.text,
            "at": message.created_at,
            "chat": message.pk,
        }
        rows.append((message.after_seq, 1, message.pk, row))
    return [row for *_, row in sorted(rows, key=lambda r: r[:3])]


def _event(move: Move, seats: Sequence[Seat]) -> dict[str, Any]:
    """A room event (join, start, leave, ...) in a few words.

    Names are the seats' as they stand now (the Player row's, or the seat's), never the ones
    the log gave at the time: a deleted account's is withdrawn, in logs written before that too.
    """
    p = move.payload
    kind = move.get_kind_display()
    seat = p.get("seat")
    if move.player is not None:
        name = move.player.name
    elif isinstance(seat, int) and 0 <= seat < len(seats):
        name = seats[seat].name
    else:
        name = "?"
    details = []
    if move.kind == Move.Kind.JOIN:
        details.append(f"as {name}")
    elif move.kind == Move.Kind.START:
        details.append(f"{len(p.get('players', []))} players")
    elif isinstance(seat, int):
        details.append(f"seat {seat + 1} ({name})")
    elif move.kind == Move.Kind.CLAIM:
        # The seats a browser's sign-in handed to the account (none: only its spectator's lines).
        claimed = [s for s in p.get("seats", []) if isinstance(s, int) and 0 <= s < len(seats)]
        details.append(", ".join(f"seat {s + 1} ({seats[s].name})" for s in claimed) or "chat lines as a spectator")
    if move.kind == Move.Kind.TIMEOUT:
        details.append(f"timeout {p.get('streak', 1)} in a row")
    elif move.kind == Move.Kind.MUTE and p.get("spectator"):
        details.append(f"spectator {p['spectator']} {'muted' if p.get('muted') else 'unmuted'}")
        if p.get("rematch"):
            details.append(f"as in {services.shown_code(p['rematch'])}")
    elif move.kind == Move.Kind.MUTE:
        details.append("muted" if p.get("muted") else "unmuted")
    elif move.kind == Move.Kind.BOT and p.get("away"):
        details.append("away after two timeouts")
    elif move.kind == Move.Kind.EXTEND and p.get("set_back"):
        # No staff acted: the server's clock was set back, and the deadline went back with it.
        kind = "Deadline moved with the server's clock"
        details.append(f"moved back {_duration(-p.get('seconds', 0))} with the server's clock")
    elif move.kind == Move.Kind.EXTEND and p.get("outage"):
        # No staff acted: the server gave back the time no process was up to keep the clock.
        kind = "Time to move given back after an outage"
        details.append(f"{_duration(p.get('seconds', 0))} given back: the server was out of reach")
    elif move.kind == Move.Kind.EXTEND:
        details.append(f"{_duration(p.get('seconds', 0))} more to move, given by {p.get('by') or '?'}")
    if p.get("game_over"):
        details.append("game over")
    if p.get("abandoned"):
        details.append("room abandoned")
    return {
        "seq": move.seq,
        "kind": kind,
        "who": move.player.name if move.player else "",
        "details": "; ".join(details),
        "at": move.created_at,
    }


# --- games under way: pace, deadlines, more time --------------------------------------------


# The confirmation page's field that carries, for each game, the turn staff saw on it: turn_<pk>.
TURN_FIELD = "turn_"
TURN_VALUE = re.compile(r"(\d{1,9})-(\d{1,3})")  # turns played, the seat to move


def _when(moment: datetime) -> str:
    """A date and time in the admin's English words (``_duration``), in the site's time zone."""
    with translation.override("en"):
        return str(date_format(timezone.localtime(moment), "DATETIME_FORMAT"))


def _extend_action(seconds: int) -> Callable[[Any, HttpRequest, QuerySet[Game]], TemplateResponse | None]:
    """The action "Give the player to move <seconds> more": first a page that names, for each game
    selected, the player to move and asks to confirm; the confirmation gives the time, for each
    game, to the turn that page showed, and to no other (``services.clock_extend``)."""

    def extend(
        model_admin: GameUnderWayAdmin, request: HttpRequest, queryset: QuerySet[Game]
    ) -> TemplateResponse | None:
        if request.POST.get("post") == "yes":
            model_admin.give_more_time(request, queryset, seconds)
            return None
        return model_admin.confirm_more_time(request, queryset, seconds)

    extend.__name__ = f"extend_{seconds}"
    return admin.action(description=f"Give the player to move {_duration(seconds)} more")(extend)


@admin.register(GameUnderWay)
class GameUnderWayAdmin(OneGameTwoLists, StaffHistory, ShownCodeSearch, ReadOnlyAdmin):
    """Games not over yet: their pace and deadlines; the one change allowed is more time to move."""

    other_list = "game"

    list_display = ("room_code", "ruleset_label", "pace_label", "state", "to_move", "time_left", "turn_deadline")
    list_filter = ("pace", UnderWayStatusFilter, ("ruleset", RulesetFilter))
    search_fields = ("code", "players__name")
    # The move about to run out first: a game with no deadline (lobby, paused, no clock) after
    # every one with a deadline, which NULL does not do by itself on SQLite.
    ordering = (F("turn_deadline").asc(nulls_last=True), "-created_at")
    list_per_page = 50
    fields = (
        "room_code", "ruleset", "state", "pace_label", "to_move", "turn_deadline", "time_left",
        "created_at", "started_at", "version",
    )  # fmt: skip
    readonly_fields = fields
    actions = [_extend_action(seconds) for seconds in services.EXTEND_CHOICES]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        return super().get_queryset(request).filter(status__in=Game.LIVE)

    @admin.display(description="code", ordering="code")
    def room_code(self, game: Game) -> str:
        return services.shown_code(game.code)

    def staff_actions(self, obj: Game) -> list[dict[str, Any]]:
        return _game_staff_actions(obj)

    # --- more time: confirmed for the player shown, then given ----------------------------

    def confirm_more_time(
        self, request: HttpRequest, queryset: QuerySet[Game], seconds: int
    ) -> TemplateResponse | None:
        """The page that asks to confirm more time: each game selected with the player to move now,
        whose turn the form posts back; the games with no clock running, with the reason. Only
        the refusals, with no page, when no game selected has a clock running."""
        now = timezone.now()
        games, refused = [], []
        for game in queryset:
            shown = services.shown_code(game.code)
            try:
                turn, seat = services.clock_to_extend(game)
            except RuleViolation as exc:
                refused.append(f"Game {shown}: {exc.message}")
                continue
            deadline = game.turn_deadline
            assert deadline is not None  # a clock runs
            games.append(
                {
                    "pk": game.pk,
                    "code": shown,
                    "ruleset": RULESETS[game.ruleset].label,
                    "name": game.room.seats[seat].name,
                    "seat": seat + 1,
                    "turn": f"{turn}-{seat}",
                    "time_left": self.time_left(game),
                    "deadline": _when(deadline),
                    "until": _when(max(deadline, now) + timedelta(seconds=seconds)),
                }
            )
        if not games:
            for line in refused:
                self.message_user(request, line, messages.WARNING)
            return None
        more = _duration(seconds)
        context = {
            **self.admin_site.each_context(request),
            "title": f"Give the player to move {more} more?",
            "opts": self.model._meta,
            "more": more,
            "games": games,
            "refused": refused,
            "action": f"extend_{seconds}",
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "turn_field": TURN_FIELD,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "admin/games/gameunderway/more_time_confirmation.html", context)

    def give_more_time(self, request: HttpRequest, queryset: QuerySet[Game], seconds: int) -> None:
        """More time for each game confirmed, to the turn the confirmation page showed; a game whose
        turn has moved on since (its player moved, or their time ran out) gets none, and says so."""
        staff = request.user.get_username()
        more = _duration(seconds)
        found = set()
        for game in queryset:
            found.add(game.pk)
            shown = services.shown_code(game.code)
            posted = TURN_VALUE.fullmatch(request.POST.get(f"{TURN_FIELD}{game.pk}", ""))
            if posted is None:
                self.message_user(
                    request, f"Game {shown}: no player to move was confirmed for it: select it again.", messages.WARNING
                )
                continue
            turn = (int(posted[1]), int(posted[2]))
            try:
                change = services.clock_extend(code=game.code, seconds=seconds, staff=staff, turn=turn)
            except RuleViolation as exc:
                self.message_user(request, f"Game {shown}: {exc.message}", messages.WARNING)
                continue
            until = _when(datetime.fromisoformat(change["deadline"]))
            # Logged against the game itself, not this list's proxy: its History and the entry in
            # Recent actions stay with the game once it is over and has left this list. By seat,
            # not name: a deleted account's name is withdrawn from the game, not from this log.
            self.log_change(
                request,
                Game.objects.get(pk=game.pk),
                f"Gave the player to move (seat {change['seat'] + 1}) {more} more (until {change['deadline']})",
            )
            self.message_user(
                request,
                f"Game {shown}: {change['name']} was given {more} more to move (until {until}).",
                messages.SUCCESS,
            )
        # A game confirmed that has left the list since the page was shown: it ended, most likely.
        confirmed = set(request.POST.getlist(helpers.ACTION_CHECKBOX_NAME))
        for game in Game.objects.filter(pk__in=confirmed).exclude(pk__in=found):
            why = "the game has ended since" if game.is_over else "it is not in the list as filtered now"
            self.message_user(request, f"Game {services.shown_code(game.code)}: {why}.", messages.WARNING)

    @admin.display(description="rule set", ordering="ruleset")
    def ruleset_label(self, game: Game) -> str:
        return RULESETS[game.ruleset].label

    @admin.display(description="pace", ordering="pace")
    def pace_label(self, game: Game) -> str:
        if game.pace == Game.Pace.OWN:
            return f"own pace, {_duration(game.turn_timer)} a move" if game.turn_timer else "own pace, no limit"
        return f"live, {game.turn_timer} s a turn" if game.turn_timer else "live"

    @admin.display(description="status", ordering="status")
    def state(self, game: Game) -> str:
        """The status, and a game the host paused as paused: its clock is stopped, nobody moves."""
        if game.status == Game.Status.PLAYING and game.room.paused:
            return "Paused"
        return str(game.get_status_display())

    @admin.display(description="to move")
    def to_move(self, game: Game) -> str:
        seat = game.room.to_play(playing=game.status == Game.Status.PLAYING)
        return "—" if seat is None else seat.name

    @admin.display(description="time left", ordering="turn_deadline")
    def time_left(self, game: Game) -> str:
        """What the pages say of the turn's time (``seconds_left``): a paused game's is what the turn
        to play will have on resume (the whole time for one that came up during the pause, none
        for a computer to play)."""
        left = seconds_left(game)
        if left is None:
            return "—"
        if game.turn_deadline is None:  # a pause clears the deadline: the clock is stopped
            return f"{_time_left(left)} (paused)"
        return _time_left(left)


# --- the raw records, for looking things up ------------------------------------------------


@admin.register(Player)
class PlayerAdmin(ShownCodeSearch, ReadOnlyAdmin):
    # The controller token is a browser's key to its seats: never shown.
    list_display = ("name", "game", "seat", "kind", "status", "user", "joined_at")
    list_filter = ("kind", "status")
    search_fields = ("name", "game__code")
    list_select_related = ("game", "user")
    fields = ("game", "seat", "name", "kind", "status", "user", "client_seed", "joined_at")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Player]:
        return super().get_queryset(request).filter(game__status__in=HISTORY)


@admin.register(ScoreEntry)
class ScoreEntryAdmin(ShownCodeSearch, ReadOnlyAdmin):
    list_display = ("player", "game_code", "turn", "box", "column", "points", "bonus")
    list_filter = ("box", "column")
    search_fields = ("player__name", "player__game__code")
    list_select_related = ("player__game",)
    fields = ("player", "turn", "box", "column", "points", "bonus")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[ScoreEntry]:
        return super().get_queryset(request).filter(player__game__status__in=HISTORY)

    @admin.display(description="game", ordering="player__game__code")
    def game_code(self, entry: ScoreEntry) -> str:
        return services.shown_code(entry.player.game.code)


@admin.register(Move)
class MoveAdmin(ShownCodeSearch, ReadOnlyAdmin):
    # The actor is a browser's controller token: never shown.
    list_display = ("game", "seq", "kind", "player", "payload", "created_at")
    list_filter = ("kind",)
    search_fields = ("game__code", "player__name")
    list_select_related = ("game", "player__game")
    fields = ("game", "seq", "kind", "player", "payload", "action_id", "created_at")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Move]:
        return super().get_queryset(request).filter(game__status__in=HISTORY)


@admin.register(ChatMessage)
class ChatMessageAdmin(StaffHistory, ShownCodeSearch, ReadOnlyAdmin):
    """Read-only like the rest, but staff may hide a message from its room (logged)."""

    list_display = ("game", "after_seq", "name", "text", "hidden", "created_at")
    list_filter = ("hidden",)
    search_fields = ("game__code", "name", "text")
    list_select_related = ("game",)
    fields = ("game", "after_seq", "seat", "name", "text", "hidden", "created_at")
    readonly_fields = fields
    actions = ["hide_messages", "show_messages"]

    def staff_actions(self, obj: ChatMessage) -> list[dict[str, Any]]:
        return [
            {"at": m.at, "staff": m.staff, "text": "Hidden from the room" if m.hidden else "Shown in the room again"}
            for m in obj.moderations.all()
        ]

    def _set_hidden(self, request: HttpRequest, queryset: QuerySet[ChatMessage], hidden: bool) -> None:
        changed = 0
        staff = request.user.get_username()
        for message in queryset:
            if services.chat_hide(message_id=message.pk, staff=staff, hidden=hidden):
                changed += 1
                self.log_change(request, message, "Hidden from the room" if hidden else "Shown in the room again")
        verb = "hidden" if hidden else "shown again"
        self.message_user(request, f"{changed} message{'s' if changed != 1 else ''} {verb}.", messages.SUCCESS)

    @admin.action(description="Hide the selected messages from their room")
    def hide_messages(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> None:
        self._set_hidden(request, queryset, True)

    @admin.action(description="Show the selected messages in their room again")
    def show_messages(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> None:
        self._set_hidden(request, queryset, False)

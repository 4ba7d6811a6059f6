"""The room page's table for a browser without script: what it shows, worked out from the room's state.

The page posts one form per action to ``room_action`` (the socket's frames, the same checks),
each with the room's version, so a form drawn for an older table is refused as stale. The
template (templates/games/room_table.html) draws what this returns inside ``<noscript>``:
static/js/room.js draws the live table from the same state where script runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils import formats
from django.utils.text import capfirst
from django.utils.translation import gettext, ngettext, pgettext

from games.domain.room import Standing
from games.domain.rules import MAX_PLAYERS, RULESETS, RuleSet
from games.services import duration, own_pace_text, words
from games.services.chat import REACTIONS
from games.services.codes import shown_name

# How often the page reloads itself while it waits for another seat's move: live play moves
# in seconds; a game at its own pace in hours or days, and a page left open need not ask often.
RELOAD_LIVE = 8
RELOAD_OWN_PACE = 60

# Unicode's die faces, shown beside the value (which is what is read out).
FACES = ("", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅")


def _sum_label(ruleset_name: str, key: str, kind: str) -> str:
    """A sum row's name in the reader's language (the layout says it in English)."""
    ruleset = RULESETS[ruleset_name]
    if kind == "total":
        return gettext("Total")
    labels = {
        "upper": gettext("Upper sum"),
        "upper_bonus": gettext("Upper bonus"),
        "lower": gettext("Lower sum"),
        "colour": gettext("Colour sum"),
        "total": gettext("Column total"),
    }
    if key == "yahtzee_bonus":
        return gettext("%(box)s bonus") % {"box": words.box_name(ruleset, "yahtzee")}
    return labels.get(key, key)


def _section_label(section: dict[str, Any]) -> str:
    """A section's heading in the reader's language (the layout says it in English)."""
    return gettext("Colours") if section["name"] == "colour" else str(section["label"])


def _bonus_rules(ruleset: RuleSet) -> list[str]:
    """The upper bonus's "35 at 63" of each column, in the reader's words."""
    return [
        gettext("%(prize)s at %(goal)s") % {"prize": ruleset.upper_bonus * m, "goal": ruleset.upper_bonus_threshold * m}
        for m in ruleset.multipliers
    ]


def _sum_row(ruleset: RuleSet, row: dict[str, Any], cards: list[dict[str, Any]]) -> dict[str, Any]:
    """A sum row as the page with script draws it (static/js/scorecard.js): the upper sum with
    its goal ("17/63", ticked once the bonus is earned), the bonus with what earns it (under its
    name with one column, in each column's cell with several)."""
    columns = len(ruleset.multipliers)
    rules = _bonus_rules(ruleset) if row.get("rules") else []
    cells = []
    for card in cards:
        for column in range(columns):
            values = card["columns"][column]
            cell: dict[str, Any] = {"value": values[row["key"]]}
            if row.get("goals"):
                cell.update(goal=row["goals"][column], made=values[row["made"]] > 0)
            elif rules and columns > 1:
                cell["rule"] = rules[column]
            cells.append(cell)
    label = _sum_label(ruleset.name, row["key"], "sum")
    return {"kind": "sum", "label": label, "rule": rules[0] if rules and columns == 1 else "", "cells": cells}


def _column_name(multipliers: list[int], column: int) -> str:
    return pgettext("scorecard column", "×%(m)s") % {"m": multipliers[column]}


def _score_label(box: str, m: int | None, option: dict[str, Any]) -> str:
    """A score button's label, one sentence for each case (the column, the bonus), as the page with
    script says it: a language puts the column and the bonus where its own order says them."""
    points, bonus = option["points"], option["bonus"]
    if m is not None and bonus:
        text = ngettext(
            "Score %(box)s in column ×%(m)s for %(points)s point plus a %(bonus)s Yahtzee bonus",
            "Score %(box)s in column ×%(m)s for %(points)s points plus a %(bonus)s Yahtzee bonus",
            points,
        )
    elif m is not None:
        text = ngettext(
            "Score %(box)s in column ×%(m)s for %(points)s point",
            "Score %(box)s in column ×%(m)s for %(points)s points",
            points,
        )
    elif bonus:
        text = ngettext(
            "Score %(box)s for %(points)s point plus a %(bonus)s Yahtzee bonus",
            "Score %(box)s for %(points)s points plus a %(bonus)s Yahtzee bonus",
            points,
        )
    else:
        text = ngettext("Score %(box)s for %(points)s point", "Score %(box)s for %(points)s points", points)
    return text % {"box": box, "m": m, "points": points, "bonus": bonus}


def _closed_label(box: str, m: int | None) -> str:
    """What a screen reader hears in a box the rules close now, before the reason."""
    if m is not None:
        return gettext("%(box)s in column ×%(m)s: not allowed.") % {"box": box, "m": m}
    return gettext("%(box)s: not allowed.") % {"box": box}


def _scorecard(state: dict[str, Any], my_turn: bool) -> dict[str, Any]:
    """Every seat's card as rows of cells; the open boxes the player to move may score are buttons."""
    info = state["ruleset"]
    ruleset = RULESETS[info["name"]]
    columns = info["columns"]
    seats = state["seats"]
    cards = {card["seat"]: card for card in state["cards"]}
    order = sorted(cards)
    turn = state["turn"]
    current = turn["seat"] if turn else None
    rolled = bool(turn and turn["rolls_used"])
    options = {(o["box"], o["column"]): o for o in state["options"] if o["legal"]} if my_turn and rolled else {}
    # The boxes the rules close now, with why (the joker's rule), as the page with script says it.
    closed = (
        {(o["box"], o["column"]): words.reason_text(ruleset, o["reason"]) for o in state["options"] if not o["legal"]}
        if my_turn and rolled
        else {}
    )
    # The sections as the page with script draws them: a group of rows each, under its name where
    # the layout shows one (Painted's colour boxes).
    sections: list[dict[str, Any]] = []
    for section in info["scorecard"]["sections"]:
        rows: list[dict[str, Any]] = []
        heading = _section_label(section) if section["heading"] else ""
        sections.append({"name": section["name"], "heading": heading, "rows": rows})
        for row in section["rows"]:
            cells: list[dict[str, Any]] = []
            if row["kind"] == "box":
                label = words.box_name(ruleset, row["box"])
                for seat in order:
                    for column in range(columns):
                        filled = cards[seat]["columns"][column]["boxes"].get(row["box"])
                        option = options.get((row["box"], column)) if seat == current else None
                        why = closed.get((row["box"], column)) if seat == current else None
                        shut = why is not None and filled is None
                        m = info["multipliers"][column] if columns > 1 else None
                        cells.append(
                            {
                                "value": filled,
                                "option": option,
                                "closed": shut,
                                "why": why or "",
                                "column": column,
                                # Worded only where the page shows it: a Triple card of 8 seats has 312 box cells.
                                "score_label": _score_label(label, m, option) if option else "",
                                "closed_label": _closed_label(label, m) if shut else "",
                            }
                        )
                rows.append({"kind": "box", "box": row["box"], "label": label, "cells": cells})
            elif row["kind"] == "total":
                cells = [{"value": cards[seat]["total"], "span": columns} for seat in order]
                rows.append({"kind": "total", "label": _sum_label(info["name"], row["key"], "total"), "cells": cells})
            else:
                rows.append(_sum_row(ruleset, row, [cards[seat] for seat in order]))
    return {
        "seats": [
            {
                "name": shown_name(seats[seat]["name"]),
                "current": seat == current,
                "gone": seats[seat]["status"] != "active",
            }
            for seat in order
        ],
        "columns": columns,
        "multipliers": [_column_name(info["multipliers"], column) for column in range(columns)] if columns > 1 else [],
        "sections": sections,
        "width": 1 + columns * len(order),
        # Each reason once, under the card: the same reason closes every box it closes.
        "closed_because": list(dict.fromkeys(why for why in closed.values() if why)),
    }


def _dice(turn: dict[str, Any]) -> list[dict[str, Any]]:
    colours = turn["colours"] or [""] * len(turn["dice"])
    return [
        {
            "index": index,
            "number": index + 1,
            "value": value,
            "face": FACES[value] if 0 < value < len(FACES) else "",
            "colour": colour,
            "colour_name": words.colour_name(colour) if colour else "",
            "held": index in turn["held"],
        }
        for index, (value, colour) in enumerate(zip(turn["dice"], colours, strict=False))
    ]


def table(
    state: dict[str, Any],
    mine: list[int],
    action_id: str,
    *,
    refreshing: bool = True,
    presence: dict[str, Any] | None = None,
    chat: list[dict[str, Any]] | None = None,
    spectator: str = "",
    former: bool = False,
    left: list[int] | None = None,
    taken_out: bool = False,
    kicked: bool = False,
    query: Mapping[str, str] | None = None,
    chat_refused: dict[str, str] | None = None,
    hint: dict[str, Any] | None = None,
    standings: Sequence[Standing] = (),
) -> dict[str, Any]:
    """What the no-script table shows this browser (its seats ``mine``) of the room's ``state``.

    ``action_id``: fresh for each page drawn, the start of its forms' ids (each form's its own), so a
    form sent again after its answer was lost applies once, and a form of an older page is stale.
    ``refreshing``: whether the page reloads itself while it waits (``reload``, its seconds), or its
    reader turned that off; either way ``reload`` says how often it would.
    ``presence``: the room's presence frame (which seats are away, and each away seat's wait), for the
    host's tools; ``chat``: the chat lines this browser may read (None: none), ``spectator`` its
    handle in them, ``former`` whether it held a seat here and holds none now, ``left`` the seats
    of the list it gave up, ``taken_out`` whether the host took it out of the game, ``kicked`` whether
    the host kicked it from this lobby (it may sit in no seat here); ``query``: the
    page's query, which asks to confirm a score of 0 (``zero``,
    ``column``, ``version``), or before a seat's tool (``ask``, ``seat``, ``version``);
    ``chat_refused``: a refused chat line (``text``, ``error``), back in the field; ``hint``: the
    coach's last answer to this browser (``coach.hint_for``), shown while the table is still at the
    roll it was given for; ``standings``: the result of a game over (``Room.standings``), the
    list of places it draws. A page that says
    a question stale reloads the table's own address (``reload_to_table``), not the question's. A
    page that reloads itself offers the chat's field on a page that does not (``writing``:
    ``?write=chat``, or a refused line given back).
    """
    seats = state["seats"]
    # The seats this browser plays now: not those a computer plays while their player is away.
    playing = [s for s in mine if s < len(seats) and seats[s]["status"] == "active" and seats[s]["kind"] != "bot"]
    status = state["status"]
    turn: dict[str, Any] | None = state["turn"] if status == "playing" else None
    my_turn = turn is not None and turn["seat"] in playing and not state["paused"]
    active = [seat for seat in seats if seat["status"] == "active"]
    view: dict[str, Any] = {
        "status": status,
        "version": state["version"],
        "playing": playing,
        "my_turn": my_turn,
        "active": [shown_name(seat["name"]) for seat in active],
        "paused": state["paused"],
        "reload": 0,
        "refreshing": refreshing,
        "action_id": action_id,
        # A pass-and-play room is seated from its own device only: others watch it. A browser the
        # host kicked from the lobby watches too (its join is refused), and is told why.
        "can_join": (
            status == "lobby" and not kicked and (not state["local"] or bool(playing)) and len(active) < MAX_PLAYERS
        ),
        "kicked": kicked,
        # A visitor at a lobby of MAX_PLAYERS is told it is full, as the page with script tells them.
        "full": len(active) >= MAX_PLAYERS,
        "max_players": MAX_PLAYERS,
    }
    if status == "lobby":
        view["settings"] = _settings(state)
    waiting = RELOAD_OWN_PACE if state["pace"] == "own" else RELOAD_LIVE
    if status == "lobby" and playing and not state["local"]:
        # A seated guest waits for the host to start, the host for players to join: both from
        # other browsers (a pass-and-play room is seated on its own device: nothing to wait for).
        view["reload"] = waiting
    away: list[dict[str, Any]] = []
    if status == "playing":
        # This browser's seats a computer plays while their players are away: each taken back by its
        # own button, named on a device of several seats (whoever is there is not the one who walked off).
        view["away"] = away = [
            {"seat": s, "name": shown_name(seats[s]["name"])}
            for s in mine
            if s < len(seats) and seats[s]["kind"] == "bot" and (seats[s]["away"] or seats[s]["kept"])
        ]
        view["shared"] = len([s for s in mine if s < len(seats) and seats[s]["status"] == "active"]) > 1
    if turn is not None:
        view["turn_name"] = shown_name(seats[turn["seat"]]["name"])
        view["dice"] = _dice(turn) if turn["rolls_used"] else []
        view["rolls_left"] = turn["rolls_left"]
        view["rolls_used"] = turn["rolls_used"]
        if not my_turn:
            view["reload"] = waiting
        elif turn["rolls_used"] and state["hints"]:
            # The page with script's Hint: asked by a form, answered on the page it goes back to.
            shown = _hint(state, hint) if hint and hint["version"] == state["version"] else None
            view["hint"] = shown
            view["hint_offered"] = shown is None or not shown["ready"]
    # Only a browser without a seat here watches: one whose seat a computer plays is a player away.
    view["watching"] = not playing and not away
    if state["cards"]:
        view["card"] = _scorecard(state, my_turn)
    view.update(_host_tools(state, mine, playing, presence or {}))
    moderating = view["host"] and status in ("lobby", "playing")
    view["chat"] = _chat(
        state,
        mine,
        chat,
        spectator,
        chat_refused or {},
        moderating=moderating,
        former=former,
        left=left or [],
        taken_out=taken_out,
    )
    # A page that reloads itself would take away what its reader is typing: the chat's field is on a
    # page of its own that holds still (``?write=chat``), and so is one that gave a refused line back.
    view["writing"] = view["chat"]["can_post"] and (
        bool(view["chat"]["error"]) or (query is not None and query.get("write") == "chat")
    )
    if view["writing"]:
        view["refreshing"] = False
    if query is not None and "zero" in query:
        view["zero"] = _zero(state, my_turn, query)
    if query is not None and "ask" in query:
        view["ask"] = _ask(view, query)
    # A question the table moved past is said once: the page looks again at the table, not at it
    # (a question still open is asked again by each reload, which keeps its reader at the table).
    view["reload_to_table"] = any(view[asked].get("stale") for asked in ("zero", "ask") if asked in view)
    if status in ("finished", "abandoned"):
        view["over"] = True
        view["winners"] = [shown_name(seats[s]["name"]) for s in state["winners"]]
        # A seat's result is its player's whoever finished it: a computer while they were away (in
        # ``mine``), or after they left (``left``). "You" to a browser of one such seat, as with script.
        results = set(mine) | set(left or [])
        view["you_won"] = len(results) == 1 and results <= set(state["winners"])
        view["replay_url"] = state["replay_url"]
        view["results"] = _results(state, standings, mine)
    return view


def _settings(state: dict[str, Any]) -> list[str]:
    """What the host chose when creating the room, in the words of the lobby with script
    (static/js/room/render.js, ``lobbyHtml``), for whoever is deciding to take a seat. The pace
    too, which the line under the room's code also says but a phone does not show; a room played
    on one device has no turn timer."""
    said = []
    if state["pace"] == "own":
        said.append(capfirst(own_pace_text(state["clock"]["seconds"] if state["clock"] else 0)))
    elif not state["local"]:
        clock = state["clock"]
        said.append(
            gettext("Turn timer: %(time)s a turn") % {"time": duration(clock["seconds"])}
            if clock
            else gettext("No turn timer")
        )
    said.append(gettext("Hints from the coach allowed") if state["hints"] else gettext("No hints from the coach"))
    said.append(
        gettext("Spectators may post in the chat")
        if state["chat"]["spectators"]
        else gettext("Only the players post in the chat")
    )
    return said


def _hint(state: dict[str, Any], hint: dict[str, Any]) -> dict[str, Any]:
    """The coach's answer as the page with script words it (static/js/room/render.js ``hintHtml``,
    ``optionText``): each choice, best first, with the final score it expects, in the reader's words."""
    if not hint.get("ready", True):
        eta = hint.get("eta")
        if eta is None:
            return {"ready": False, "text": gettext("The computer is getting ready.")}
        ready = gettext("The computer is getting ready (about %(seconds)s s).")  # before "s": a no-break space
        return {"ready": False, "text": ready % {"seconds": eta}}
    info = state["ruleset"]
    ruleset = RULESETS[info["name"]]
    turn = state["turn"]
    choices = []
    for option in hint["options"]:
        if option["kind"] == "keep":
            held = option["held"]
            if turn["colours"]:
                kept = ", ".join(f"{turn['dice'][i]} {words.colour_name(turn['colours'][i])}" for i in held)
            else:
                kept = " ".join(str(turn["dice"][i]) for i in held)
            text = gettext("Keep %(dice)s and roll again") % {"dice": kept} if held else gettext("Reroll all five dice")
        else:
            column = option.get("column") or 0
            text = words.score_text(ruleset, option["box"], column, option["points"], option["bonus"])
        choices.append({"text": text, "expected": formats.number_format(option["expected"], 1, use_l10n=True)})
    note = ""
    if hint.get("exact") is False:
        note = (
            gettext("Estimated values from a one-turn search: Painted Yahtzee has no exact solver.")
            if turn["colours"]
            else gettext("Estimated values: Triple Yahtzee has no exact solver.")
        )
    return {"ready": True, "choices": choices, "note": note}


def _results(state: dict[str, Any], standings: Sequence[Standing], mine: Sequence[int]) -> list[dict[str, Any]]:
    """The final order as the server ranks it (``Room.standings``), as the page with script, Your
    games and the game-over notice list it: each seat's place and points, and why it ranks after
    every seat that stayed whatever its total (``behind``: it left, the host took it out, or a
    computer finished it for its away player), worded by ``words.behind``.

    ``you``: the reader's own row, as the list with script marks it (static/js/room/over.js): a seat
    this browser plays, or one a computer finished for it while its player was away (its result is
    theirs); on no row of a device that played every seat, where a "you" on each finds no one
    their place."""
    seats = state["seats"]
    yours = {s for s in mine if s < len(seats) and (seats[s]["kind"] == "bot" or seats[s]["status"] == "active")}
    marked = any(standing.seat not in yours for standing in standings)
    return [
        {
            "seat": standing.seat,
            "rank": standing.place,
            "name": shown_name(seats[standing.seat]["name"]),
            "total": standing.points,
            "behind": standing.behind,
            "you": marked and standing.seat in yours,
        }
        for standing in standings
    ]


def _host_tools(state: dict[str, Any], mine: list[int], playing: list[int], presence: dict[str, Any]) -> dict[str, Any]:
    """The host's tools this browser is offered, as the page with script offers them (static/js/room/render.js:
    ``lobbyHtml``, ``seatsHtml``, ``awayTools``; the pause button in room.js). The services check
    each again (``require_host``, ``refuse_if_present``): a page drawn a moment ago may be past.

    While the host has been away ``HOST_AWAY`` seconds (at your own pace: at once), a player at the
    table may start the game, resume it, or take an away player's seat over, and becomes the host.
    """
    seats = state["seats"]
    status = state["status"]
    away = presence.get("seats", {})
    waits = presence.get("waits", {})
    host = next((seat["seat"] for seat in seats if seat["host"] and seat["status"] == "active"), None)
    is_host = host is not None and host in playing
    voiced = [s for s in playing if not seats[s]["muted"]]
    live = status in ("lobby", "playing")
    host_away = (
        live
        and bool(voiced)
        and not is_host
        and (host is None or (away.get(str(host)) == "away" and (state["pace"] == "own" or str(host) not in waits)))
    )
    tools: dict[str, Any] = {"host": is_host, "host_away": host_away}
    # The host's own pause, or one the role came with (the host who paused left: ``paused_by``
    # names a seat not theirs), which they resume all the same.
    paused_by = state.get("paused_by")
    tools["paused_by_you"] = is_host and state["paused"] and (paused_by is None or paused_by in playing)
    # The others of a pause whose host no longer hosts (they left, or the role passed on): the game
    # goes on when the host, by name, resumes it, not "paused by the host".
    tools["resumer"] = (
        shown_name(seats[host]["name"])
        if state["paused"] and not is_host and host is not None and paused_by is not None and paused_by != host
        else ""
    )
    # The players muted who left the lobby (or the game before this rematch), whose seat is gone:
    # the host unmutes them by their name, as the page with script does (render.js ``seatsHtml``).
    tools["muted_left"] = (
        [
            {"name": shown_name(entry["name"]), "spectator": entry["spectator"]}
            for entry in state["chat"].get("muted_left", [])
        ]
        if is_host and live
        else []
    )
    if status == "lobby":
        active = [seat for seat in seats if seat["status"] == "active"]
        tools["lobby_seats"] = [
            {
                "seat": seat["seat"],
                "name": shown_name(seat["name"]),
                "host": seat["host"],
                "bot": seat["kind"] == "bot",
                "level": str(words.LEVELS.get(seat["level"], "")) if seat["kind"] == "bot" else "",
                "mine": seat["seat"] in mine,
                # Leaving is a seat's own; the host takes out any seat of others (a computer's too).
                "leave": seat["seat"] in mine,
                "kick": is_host and not seat["host"] and seat["seat"] not in mine,
                **_moderation(seat, mine, is_host),
            }
            for seat in active
        ]
        if is_host and len(active) < MAX_PLAYERS:
            tools["levels"] = [{"value": value, "label": str(label)} for value, label in words.LEVELS.items()]
            tools["level_chosen"] = "casual"
    elif status == "playing":
        tools["pause"] = is_host or (host_away and state["paused"])
        # The Players list of the page with script: each seat's own Leave (one a computer plays while
        # its player is away included), and the host's Mute chat for the others'.
        tools["play_seats"] = [
            {
                "seat": seat["seat"],
                "name": shown_name(seat["name"]),
                "host": seat["host"],
                "bot": seat["kind"] == "bot",
                "mine": seat["seat"] in mine,
                "gone": seat["status"] != "active",
                "taken_out": bool(seat.get("taken_out")),
                "away": seat["kind"] == "bot" and bool(seat["away"]),
                "leave": seat["status"] == "active" and seat["seat"] in mine,
                **_moderation(seat, mine, is_host),
            }
            for seat in seats
        ]
        tools["away_seats"] = [
            {"seat": seat["seat"], "name": shown_name(seat["name"])}
            for seat in seats
            if state["pace"] != "own"
            and seat["status"] == "active"
            and seat["kind"] != "bot"
            and seat["seat"] not in mine
            and away.get(str(seat["seat"])) == "away"
            and str(seat["seat"]) not in waits
            and ((is_host and not seat["host"]) or host_away)
        ]
    return tools


def _moderation(seat: dict[str, Any], mine: list[int], is_host: bool) -> dict[str, Any]:
    """A seat's chat as the host's tools show it: muted or not, and whether this browser may mute or
    unmute it (the host, for another's seat a person plays: ``mute``/``unmute``). A muted seat its
    player gave up is unmuted from its line too: that player can take no seat again to be unmuted on."""
    offered = is_host and seat["status"] == "active" and not seat["host"] and seat["kind"] == "human"
    given_up = seat["status"] != "active" or seat["gave_up"]
    return {
        "muted": seat["muted"],
        "mute": offered and seat["seat"] not in mine and not seat["muted"],
        "unmute": seat["muted"]
        and seat["seat"] not in mine
        and (offered or (is_host and given_up and not seat["host"])),
    }


def _chat(
    state: dict[str, Any],
    mine: list[int],
    lines: list[dict[str, Any]] | None,
    spectator: str,
    refused: dict[str, str],
    *,
    moderating: bool = False,
    former: bool = False,
    left: list[int] | None = None,
    taken_out: bool = False,
) -> dict[str, Any]:
    """The chat as this browser may read it and post to it: what the page with script says of it
    (static/js/room/chat.js ``chatNote``) when it may not post. The service checks it again.

    ``moderating``: the host's page while the game is on, which offers *Mute chat* or *Unmute chat*
    beside each spectator's line but its own (chat.js ``moderateLine``). ``former``: the browser held a
    seat here and holds none now: a finished game's chat is still its to read, not to post to; ``left``
    the seats it gave up, whose mute keeps it quiet as a spectator (games.services.chat); ``taken_out``
    whether the host took it out of the game, which keeps it quiet too (selectors.silenced)."""
    seats = state["seats"]
    voices = [s for s in mine if s < len(seats)]
    over = state["status"] in ("finished", "abandoned")
    note = ""
    if not voices and over and former:
        note = gettext("You are no longer a player in this game: you can read its chat but not post to it.")
    elif not voices and over:
        note = gettext("This game's chat is its players' alone.")
    elif not voices and not state["chat"]["spectators"]:
        note = gettext("Only the players post in this room's chat; you can read it.")
    elif not voices and taken_out:
        note = gettext("The host took you out of this game: you can read its chat but not post to it.")
    elif (
        all(seats[s]["muted"] for s in voices)
        if voices
        else spectator in state["chat"]["muted"] or any(seats[s]["muted"] for s in left or [] if s < len(seats))
    ):
        note = gettext("The host has muted your chat in this room.")
    muted = set(state["chat"]["muted"])
    shown = [
        {
            "id": line.get("id", ""),
            "name": shown_name(line["name"]),
            "text": line["text"],
            "mine": line.get("seat") in voices if voices else bool(spectator) and line.get("spectator") == spectator,
            "spectator": line.get("spectator", ""),
            "muted": line.get("spectator", "") in muted,
            "moderate": moderating and bool(line.get("spectator")) and line.get("spectator") != spectator,
        }
        for line in lines or []
    ]
    return {
        "lines": shown,
        # A stranger to a finished game is not sent its lines: "no messages yet" would not be so.
        "withheld": not voices and over and not former,
        "note": note,
        "can_post": not note,
        # A device of several seats says which of them speaks; a muted one does not.
        "voices": [{"seat": s, "name": shown_name(seats[s]["name"])} for s in voices if not seats[s]["muted"]]
        if len(voices) > 1
        else [],
        "typed": refused.get("text", ""),
        "error": refused.get("error", ""),
        # The reactions a seated player sends the table while the game is on (chat_react), a muted
        # seat's none; a spectator has no seat to send them from.
        "reactions": list(REACTIONS)
        if state["status"] in ("lobby", "playing") and any(not seats[s]["muted"] for s in voices)
        else [],
    }


def _zero(state: dict[str, Any], my_turn: bool, asked: Mapping[str, str]) -> dict[str, Any]:
    """The question the page asks before it fills a box with 0, as the page with script asks it (its
    "Score zero?" dialog): the box and column ``asked`` names, if they would score 0 now. A question
    asked of an older table (its ``version``), or of a box that is no longer such an option, is
    stale: the page says so, and shows the table as it is."""
    turn = state["turn"]
    info = state["ruleset"]
    column = asked.get("column", "0")
    option = None
    if my_turn and turn and turn["rolls_used"] and asked.get("version", str(state["version"])) == str(state["version"]):
        option = next(
            (
                o
                for o in state["options"]
                if o["legal"]
                and o["box"] == asked["zero"]
                and str(o["column"]) == column
                and o["points"] + o["bonus"] == 0
            ),
            None,
        )
    if option is None:
        return {"stale": True}
    values = {"box": words.box_name(RULESETS[info["name"]], option["box"])}
    if info["columns"] > 1:
        values["m"] = info["multipliers"][option["column"]]
        text = gettext("These dice score nothing in %(box)s in column ×%(m)s. Fill it with a 0?") % values
    else:
        text = gettext("These dice score nothing in %(box)s. Fill it with a 0?") % values
    return {"box": option["box"], "column": option["column"], "text": text}


# The seat tools whose button asks first, as the page with script asks (window.confirm): what they
# do is not undone by pressing again.
ASKED = ("leave", "kick", "remove", "replace")


def _ask(view: dict[str, Any], asked: Mapping[str, str]) -> dict[str, Any]:
    """The question before the seat tool ``asked`` names (``ask``, ``seat``, ``version``), if the table
    offers that tool for that seat now; else stale: the page says the table changed and draws it."""
    action, seat = asked.get("ask", ""), asked.get("seat", "")
    if action in ASKED and asked.get("version", str(view["version"])) == str(view["version"]):
        if action in ("leave", "kick"):
            offered = [s for s in view.get("lobby_seats", []) + view.get("play_seats", []) if s[action]]
        else:
            offered = view.get("away_seats", [])
        for entry in offered:
            if str(entry["seat"]) == seat:
                return {"action": action, "seat": entry["seat"], "name": entry["name"]}
    return {"stale": True}

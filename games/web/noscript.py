"""The room page's table for a browser without script: what it shows, worked out from the room's state.

The page posts one form per action to ``room_action`` (the socket's frames, the same checks),
each with the room's version, so a form drawn for an older table is refused as stale. The
template (templates/games/room_table.html) draws what this returns inside ``<noscript>``:
static/js/room.js draws the live table from the same state where script runs.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, pgettext

from games.domain.rules import MAX_PLAYERS, RULESETS
from games.services import words
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


def _column_name(multipliers: list[int], column: int) -> str:
    return pgettext("scorecard column", "×%(m)s") % {"m": multipliers[column]}


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
    rows: list[dict[str, Any]] = []
    for section in info["scorecard"]["sections"]:
        for row in section["rows"]:
            cells: list[dict[str, Any]] = []
            if row["kind"] == "box":
                label = words.box_name(ruleset, row["box"])
                for seat in order:
                    for column in range(columns):
                        filled = cards[seat]["columns"][column]["boxes"].get(row["box"])
                        option = options.get((row["box"], column)) if seat == current else None
                        where = f" {_column_name(info['multipliers'], column)}" if columns > 1 else ""
                        cells.append(
                            {
                                "value": filled,
                                "option": option,
                                "column": column,
                                "label": f"{label}{where}",
                            }
                        )
                rows.append({"kind": "box", "box": row["box"], "label": label, "cells": cells})
            elif row["kind"] == "total":
                cells = [{"value": cards[seat]["total"], "span": columns} for seat in order]
                rows.append({"kind": "total", "label": _sum_label(info["name"], row["key"], "total"), "cells": cells})
            else:
                cells = [
                    {"value": cards[seat]["columns"][column][row["key"]]} for seat in order for column in range(columns)
                ]
                rows.append({"kind": "sum", "label": _sum_label(info["name"], row["key"], "sum"), "cells": cells})
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
        "rows": rows,
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


def table(state: dict[str, Any], mine: list[int], action_id: str, *, refreshing: bool = True) -> dict[str, Any]:
    """What the no-script table shows this browser (its seats ``mine``) of the room's ``state``.

    ``action_id``: fresh for each page drawn, the start of its forms' ids (each form's its own), so a
    form sent again after its answer was lost applies once, and a form of an older page is stale.
    ``refreshing``: whether the page reloads itself while it waits (``reload``, its seconds), or its
    reader turned that off; either way ``reload`` says how often it would.
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
        "host": any(seats[s]["host"] for s in playing),
        "active": [shown_name(seat["name"]) for seat in active],
        "paused": state["paused"],
        "reload": 0,
        "refreshing": refreshing,
        "action_id": action_id,
        # A pass-and-play room is seated from its own device only: others watch it.
        "can_join": status == "lobby" and (not state["local"] or bool(playing)) and len(active) < MAX_PLAYERS,
    }
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
    # Only a browser without a seat here watches: one whose seat a computer plays is a player away.
    view["watching"] = not playing and not away
    if state["cards"]:
        view["card"] = _scorecard(state, my_turn)
    if status in ("finished", "abandoned"):
        view["over"] = True
        view["winners"] = [shown_name(seats[s]["name"]) for s in state["winners"]]
        view["replay_url"] = state["replay_url"]
        view["results"] = _results(state)
    return view


def _results(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The final order as the server ranks it (``Room.ranks``, the state's ``ranks``), as the page
    with script lists it: each seat's place, and whether it left or a computer finished it for its
    away player (both rank after every seat that stayed, whatever their totals)."""
    seats = state["seats"]
    ranks = state["ranks"]
    rows = []
    for card in state["cards"]:
        seat = seats[card["seat"]]
        left = bool(seat.get("gave_up")) or seat["status"] != "active"
        rows.append(
            {
                "seat": card["seat"],
                "rank": ranks[card["seat"]],
                "name": shown_name(seat["name"]),
                "total": card["total"],
                "left": left,
                "away": bool(seat.get("kept")) and not left,
            }
        )
    return sorted(rows, key=lambda row: (row["rank"], row["seat"]))

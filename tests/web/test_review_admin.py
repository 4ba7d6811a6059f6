"""Review of the administrator's side: failing tests for the defects found (docs/admin.md)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games import services
from games.store.models import ChatMessage, Move
from games.store.selectors import game_state
from tests.factories import Table, action_id, open_room, own_pace_room, timed_room
from tests.web.test_admin import finished, game_url, staff_client, text  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db

UNDER_WAY = reverse("admin:games_gameunderway_changelist")
DAY = 86_400


def under_way_row(client: Client, code: str, **headers: str) -> str:
    """The row of the game ``code`` in *Games under way*, as text."""
    html = client.get(UNDER_WAY, **headers).content.decode()
    rows = [
        re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", row))).strip()
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", html, flags=re.S)
    ]
    return next(row for row in rows if code in row)


# --- 4. a paused game in Games under way -------------------------------------------------------------


def paused_room() -> Table:
    table = timed_room(2, seconds=60)
    services.game_pause(code=table.code, controller=table.controllers[0], expected_version=None, action_id=action_id())
    assert table.game.room.paused and table.game.room.clock_left
    return table


def test_games_under_way_tell_a_paused_game_and_the_time_it_keeps(staff_client: Client) -> None:  # noqa: F811
    """docs/admin.md: each game's status, whose move, the time left. A paused game is listed as
    "Playing" with no time left ("—"), as a game without a clock is: the pause and the seconds the
    turn keeps (the room's own state has them, ``clock.left``) are nowhere."""
    table = paused_room()
    row = under_way_row(staff_client, table.code)
    assert "paused" in row.lower(), row


@pytest.mark.parametrize("why", ["paused", "computer"])
def test_more_time_refused_says_why(staff_client: Client, why: str) -> None:  # noqa: F811
    """docs/admin.md: "A game with no clock running (no time per move, paused, a computer's turn) is
    refused, with the reason". Every refusal reads "nobody is on the clock now", a paused game's
    (whose player is on the clock once it resumes) and a computer's turn's alike."""
    if why == "paused":
        table = paused_room()
    else:
        from tests.services.test_bots import add_bot, start

        table = own_pace_room(1, seconds=DAY, start=False)
        add_bot(table, "casual")
        start(table)
        services.turn_roll(code=table.code, controller=table.current(), expected_version=None, action_id="r")
        option = next(o for o in game_state(table.game)["options"] if o["legal"])
        services.turn_score(
            code=table.code,
            controller=table.controllers[0],
            box=option["box"],
            column=option["column"],
            expected_version=None,
            action_id="s",
        )
        assert table.game.room.bot_to_play(playing=True)
    response = staff_client.post(
        UNDER_WAY, {"action": "extend_86400", "_selected_action": [table.game.pk]}, follow=True
    )
    warnings = re.findall(r'<li class="warning">(.*?)</li>', response.content.decode(), flags=re.S)
    assert warnings and why in " ".join(warnings).lower(), warnings


# --- 5. the timeline's held dice, for a screen reader -------------------------------------------------


def test_the_timeline_says_which_dice_were_held_in_words_not_only_in_bold_and_a_tooltip(staff_client: Client) -> None:  # noqa: F811
    """A held die is told by bold type and a ``title`` alone (<b class="die held" title="held">):
    screen readers do not read a ``title`` on text, so a staff member who uses one hears
    "1. 3 3 5 2 6  2. 3 3 1 4 4" and cannot tell which dice were kept."""
    game = finished(1, seed=3)
    html = staff_client.get(game_url(game)).content.decode()
    held_rolls = [
        roll
        for roll in re.findall(r'<span class="roll"[^>]*>(.*?</span>)(?=<span class="roll"|</td>)', html, flags=re.S)
        if "die held" in roll
    ]
    assert held_rolls, "no roll with held dice in this game"
    for roll in held_rolls:
        spoken = unescape(re.sub(r"<[^>]+>", " ", roll))  # the text, as a screen reader reads it
        assert re.search(r"held|kept|keep", spoken, flags=re.I), spoken



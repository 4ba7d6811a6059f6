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



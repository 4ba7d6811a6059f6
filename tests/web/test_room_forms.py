"""The no-script form posts: the socket's frames (games.domain.protocol) built from form fields, one dispatch.

A form that the frame's declaration refuses shows the reason and stores nothing, as a
socket's frame would be refused with the same code.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client

from games.store.models import Game

pytestmark = pytest.mark.django_db


def started() -> tuple[Client, Game]:
    """A started one-player room and its host's browser."""
    ada = Client()
    response = ada.post("/rooms/new", {"name": "Ada", "ruleset": "official", "mode": "online"})
    game = Game.objects.get(code=response["Location"].strip("/").split("/")[-1])
    ada.post(f"/r/{game.code}/start", {"version": game.version, "action_id": "start"})
    game.refresh_from_db()
    assert game.status == "playing"
    return ada, game


def stored(game: Game) -> tuple[int, int]:
    game.refresh_from_db()
    return game.version, game.moves.count()


def page_after(client: Client, game: Game, action: str, data: dict[str, Any]) -> str:
    response = client.post(f"/r/{game.code}/{action}", data, follow=True)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize(
    ("action", "fields", "shown"),
    [
        ("roll", {"version": "seven"}, "missing its game version"),
        ("roll", {"version": None}, "missing its game version"),
        ("roll", {"action_id": "r\x00"}, "NUL"),
        ("roll", {"action_id": "x" * 65}, "1 to 64 characters"),
        ("roll", {"held": ["9"]}, "indices 0 to 4"),
        ("score", {"box": "nonsense"}, "no box by that name"),
        ("score", {"box": "chance", "column": "5"}, "column is a number"),
        ("kick", {}, "did not say which seat"),
        ("kick", {"seat": "first"}, "did not say which seat"),
    ],
)
def test_a_form_the_frames_declaration_refuses_shows_why_and_stores_nothing(
    action: str, fields: dict[str, Any], shown: str
) -> None:
    ada, game = started()
    before = stored(game)
    data = {"version": str(game.version), "action_id": "f-1", **fields}  # None: the field is left out
    page = page_after(ada, game, action, {name: value for name, value in data.items() if value is not None})
    assert shown in page
    assert stored(game) == before


def test_a_form_without_an_action_id_still_plays_once() -> None:
    ada, game = started()
    version, moves = stored(game)
    page_after(ada, game, "roll", {"version": str(version)})
    assert stored(game) == (version + 1, moves + 1)
    page_after(ada, game, "roll", {"version": str(version)})  # the same form again: stale, not a second roll
    assert stored(game) == (version + 1, moves + 1)


def test_joining_under_the_name_of_deleted_accounts_seats_is_refused_with_why_and_stores_nothing() -> None:
    host = Client()
    response = host.post("/rooms/new", {"name": "Ada", "ruleset": "official", "mode": "online"})
    game = Game.objects.get(code=response["Location"].strip("/").split("/")[-1])
    before = stored(game)
    ben = Client()
    page = page_after(ben, game, "join", {"name": "Former player"})
    assert "is how deleted accounts&#x27; seats are shown: please choose another name." in page
    assert stored(game) == before
    # Said under the name as it was typed (room.js draws the field and the reason from the page's
    # data; the template says it without script), once.
    assert '<noscript><div class="messages" role="alert"><p class="error" id="join-error">' in page
    assert '"join_refused": {"name": "Former player", "error": "' in page
    again = ben.get(f"/r/{game.code}/").content.decode()
    assert "join-error" not in again and "join_refused" not in again


def test_joining_under_the_name_of_spectators_chat_lines_is_refused_with_why_and_stores_nothing() -> None:
    host = Client()
    response = host.post("/rooms/new", {"name": "Ada", "ruleset": "official", "mode": "online"})
    game = Game.objects.get(code=response["Location"].strip("/").split("/")[-1])
    before = stored(game)
    page = page_after(Client(), game, "join", {"name": "Zuschauer"})
    assert "is how spectators&#x27; chat lines are shown: please choose another name." in page
    assert stored(game) == before


class Elements(HTMLParser):
    """Every element's attributes by its id, and each element's text (for the message boxes)."""

    def __init__(self) -> None:
        super().__init__()
        self.by_id: dict[str, dict[str, str]] = {}
        self.text: dict[str, str] = {}
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if "id" in found:
            self.by_id[found["id"]] = found
            self.text[found["id"]] = ""
            if tag not in ("input", "br", "img", "meta", "link"):
                self.open.append(found["id"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self.open:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        for name in self.open:
            self.text[name] += data


@pytest.mark.parametrize(
    ("extra", "field", "said"),
    [
        ({"mode": "local", "players": "9"}, "id_players", "Choose 1 to 8 people."),
        ({"mode": "local", "players": "0"}, "id_players", "Choose 1 to 8 people."),
        ({"mode": "local", "players": "3", "bots": "6"}, "id_bots", "at most 8 players"),
        ({"mode": "local", "players": "2", "bots": "1", "level": "expert"}, "id_level", "computer levels"),
        ({"mode": "online", "name": "Ada", "turn_timer": "45"}, "id_turn_timer", "times offered"),
        ({"mode": "online", "name": "Ada", "pace": "own", "move_time": "45"}, "id_move_time", "time per move"),
        # Names the service refuses: reserved, nothing visible, two players of one device under one name.
        ({"mode": "online", "name": "Former player"}, "id_name", "is how deleted accounts"),
        ({"mode": "online", "name": "\u200b\u200b"}, "id_name", "display name"),
        ({"mode": "local", "players": "2", "player_1": "Ann", "player_2": "ann"}, "id_player_2", "different name"),
        ({"mode": "local", "players": "3", "player_1": "Ann", "player_3": "Former player"}, "id_player_3", "deleted"),
    ],
    ids=[
        "players-9", "players-0", "bots", "level", "timer", "move-time",
        "reserved", "invisible", "same-name-twice", "reserved-third-player",
    ],
)  # fmt: skip
def test_a_refused_fields_message_is_tied_to_the_field(extra: dict[str, str], field: str, said: str) -> None:
    """Without script (or past it) the server refuses the create form and draws the message by
    the field; the field says it is invalid and is described by the message, so a screen reader
    on the field hears what is wrong with it."""
    response = Client().post("/rooms/new", {"ruleset": "official", **extra})
    assert response.status_code == 400
    page = Elements()
    page.feed(response.content.decode())
    attrs = page.by_id[field]
    described = [page.text.get(ref, "") for ref in attrs.get("aria-describedby", "").split()]
    assert attrs.get("aria-invalid") == "true", attrs
    assert any(said in text for text in described), (attrs.get("aria-describedby"), described)

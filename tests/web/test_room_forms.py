"""The no-script form posts: the socket's frames (games.domain.protocol) built from form fields, one dispatch.

A form that the frame's declaration refuses shows the reason and stores nothing, as a
socket's frame would be refused with the same code.
"""

from __future__ import annotations

import html
import random
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client

from games import services
from games.domain.protocol import MAX_FRAME_BYTES
from games.domain.room import LIMITS, Room, Tally
from games.domain.rules import Box, RuleViolation
from games.services import chat as chat_service
from games.services import notices
from games.store import moves, selectors
from games.store.models import ChatMessage, Game
from games.store.selectors import game_state
from tests.factories import online, open_room, play_to_end, ranked_behind_for_each_reason

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


def test_the_join_form_sent_twice_takes_one_seat_and_another_naming_it_is_refused_beside_the_name() -> None:
    """Each join form carries its own id: the same form twice (a double click) is one seat, and a
    second player of the device typing the first's name is told so rather than met with silence."""
    host = Client()
    response = host.post("/rooms/new", {"name": "Ada", "ruleset": "official", "mode": "online"})
    game = Game.objects.get(code=response["Location"].strip("/").split("/")[-1])
    page = host.get(f"/r/{game.code}/").content.decode()
    form_id = re.search(r'class="ns-join">.*?name="action_id" value="([^"]+)"', page, re.S)
    assert form_id is not None and form_id.group(1).endswith("-join")
    ben = Client()
    for _ in range(2):
        page_after(ben, game, "join", {"name": "Ben", "action_id": "form-1-join"})
    assert [s.name for s in Game.objects.get(pk=game.pk).room.seats] == ["Ada", "Ben"]
    before = stored(game)
    page = page_after(ben, game, "join", {"name": "ben", "action_id": "form-2-join"})
    said = "\u2068Ben\u2069 already sits at this table on this device: each player on it needs a name of their own."
    assert f'<p class="error" id="join-error">{said}</p>' in page
    assert stored(game) == before
    page = page_after(ben, game, "join", {"name": "Ben", "action_id": "x" * 65})
    assert stored(game) == before and "join-error" not in page


@pytest.mark.parametrize("action_id", ["timeout-3-join", "bot-3"])
def test_a_join_form_whose_id_begins_as_the_servers_own_is_refused_as_a_rolls_is_and_stores_nothing(
    action_id: str,
) -> None:
    """The turn timer's and the computers' moves take ids that begin so: a join under one is refused
    with the words a roll's form under one gets, above the room (the name is not at fault)."""
    ada, playing = started()
    rolled = page_after(ada, playing, "roll", {"version": str(playing.version), "action_id": action_id})
    said = re.search(r'<p class="error"[^>]*>([^<]*does not start with timeout- or bot-[^<]*)</p>', rolled)
    assert said is not None
    host = Client()
    response = host.post("/rooms/new", {"name": "Ada", "ruleset": "official", "mode": "online"})
    game = Game.objects.get(code=response["Location"].strip("/").split("/")[-1])
    before = stored(game)
    ben = Client()
    page = page_after(ben, game, "join", {"name": "Ben", "action_id": action_id})
    assert stored(game) == before
    assert said.group(1) in page and "join-error" not in page
    # An id with those words elsewhere in it is the form's own.
    page_after(ben, game, "join", {"name": "Ben", "action_id": f"x-{action_id}"})
    assert [s.name for s in Game.objects.get(pk=game.pk).room.seats] == ["Ada", "Ben"]


def test_joining_under_the_name_of_spectators_chat_lines_is_refused_with_why_and_stores_nothing() -> None:
    host = Client()
    response = host.post("/rooms/new", {"name": "Ada", "ruleset": "official", "mode": "online"})
    game = Game.objects.get(code=response["Location"].strip("/").split("/")[-1])
    before = stored(game)
    page = page_after(Client(), game, "join", {"name": "Zuschauer"})
    assert "is how spectators&#x27; chat lines are shown: please choose another name." in page
    assert stored(game) == before


def test_joining_under_a_name_that_reads_as_a_seated_players_is_refused_with_why_and_stores_nothing() -> None:
    """Ada sits as "Ann1": "Annl" would read as her name on the scorecard, in the feed and the chat."""
    host = Client()
    response = host.post("/rooms/new", {"name": "Ann1", "ruleset": "official", "mode": "online"})
    game = Game.objects.get(code=response["Location"].strip("/").split("/")[-1])
    before = stored(game)
    page = page_after(Client(), game, "join", {"name": "Annl"})
    said = "Annl reads the same as \u2068Ann1\u2069, who is already at the table: please choose another name."
    assert f'<p class="error" id="join-error">{said}</p>' in page
    assert '"join_refused": {"name": "Annl", "error": "' in page
    assert stored(game) == before
    assert [s.name for s in Game.objects.get(pk=game.pk).room.seats] == ["Ann1"]


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
        ({"mode": "local", "players": "2", "player_1": "B0b", "player_2": "Bob"}, "id_player_2", "different name"),
    ],
    ids=[
        "players-9", "players-0", "bots", "level", "timer", "move-time",
        "reserved", "invisible", "same-name-twice", "reserved-third-player", "look-alike-names",
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


# --- the table without script: the room page's forms, each posted as a browser would --------------


class NoScriptPage(HTMLParser):
    """The room page's no-script table: its forms (action, fields, submit buttons) and its text."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.forms: list[dict[str, Any]] = []
        self.form: dict[str, Any] | None = None
        self.refresh = ""
        start = page.index('data-testid="noscript-table"')
        self.text = re.sub(r"<[^>]+>", "", page[start:])
        head = re.search(r"<noscript>(<meta http-equiv=\"refresh\" content=\"(\d+)(?:; url=([^\"]*))?\">)?", page)
        self.refresh = head.group(2) or "" if head else ""
        self.refresh_to = head.group(3) or "" if head else ""  # "": the page's own address again
        self.messages = [html.unescape(m) for m in re.findall(r'<p class="error">([^<]*)</p>', page)]
        self.feed(page[start:])

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if tag == "form":
            self.form = {"action": found["action"], "fields": {}, "held": [], "checked": [], "buttons": []}
            self.forms.append(self.form)
        elif self.form is not None and tag == "input":
            if found.get("type") == "hidden":
                self.form["fields"][found["name"]] = found["value"]
            elif found.get("type") == "checkbox":
                self.form["held"].append(found["value"])
                if "checked" in found:
                    self.form["checked"].append(found["value"])
        elif self.form is not None and tag == "button":
            self.form["buttons"].append(found)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.form = None

    def form_to(self, action: str) -> dict[str, Any]:
        [form] = [form for form in self.forms if form["action"].endswith(f"/{action}")]
        return form

    def scores(self) -> dict[str, dict[str, Any]]:
        """The score buttons by id (``ns-score-<box>-<column>``), with their form's fields: a box that
        would score 0 asks first (its form goes to the page's question, ``zero``), the others score."""
        return {
            b["id"]: {**f["fields"], "box": b["value"], "label": b.get("aria-label", "")}
            for f in self.forms
            for b in f["buttons"]
            if f["action"].endswith("/score") or b.get("id", "").startswith("ns-score-")
        }


def table_of(client: Client, game: Game) -> NoScriptPage:
    response = client.get(f"/r/{game.code}/")
    assert response.status_code == 200
    return NoScriptPage(response.content.decode())


def writing_of(client: Client, game: Game) -> NoScriptPage:
    """The room page a reader asks for to write in the chat: one that does not reload itself."""
    response = client.get(f"/r/{game.code}/?write=chat")
    assert response.status_code == 200
    return NoScriptPage(response.content.decode())


def post_form(client: Client, game: Game, action: str, fields: dict[str, Any]) -> NoScriptPage:
    response = client.post(f"/r/{game.code}/{action}", fields, follow=True)
    assert response.status_code == 200
    return NoScriptPage(response.content.decode())


def play_to_the_end(client: Client, game: Game) -> None:
    """``game``, of one seat, played out through the forms by ``client``: thirteen rolls, each
    scored in the first box the page offers."""
    for _ in range(13):
        table = post_form(client, game, "roll", table_of(client, game).form_to("roll")["fields"])
        post_form(client, game, "score", next(iter(table.scores().values())))


def create(client: Client, **fields: str) -> Game:
    response = client.post("/rooms/new", {"ruleset": "official", **fields})
    assert response.status_code == 302, response.content[:300]
    return Game.objects.get(code=response["Location"].strip("/").split("/")[-1])


def test_the_room_without_script_is_a_table_to_play_not_a_note_that_it_needs_javascript() -> None:
    ada, game = started()
    page = ada.get(f"/r/{game.code}/").content.decode()
    assert "needs JavaScript" not in page
    table = NoScriptPage(page)
    assert "Your turn, Ada" in table.text
    roll = table.form_to("roll")
    assert roll["fields"]["version"] == str(game.version)  # the socket's expected_version
    assert [b["id"] for b in roll["buttons"]] == ["ns-roll"] and "3 rolls left" in table.text
    assert table.refresh == ""  # the player's own turn: nothing reloads under them


def test_the_lobby_without_script_offers_the_host_the_start_and_a_visitor_a_seat() -> None:
    ada = Client()
    game = create(ada, name="Ada", mode="online")
    ben = Client()
    join = table_of(ben, game).form_to("join")
    assert [b["id"] for b in join["buttons"]] == ["ns-join-btn"]
    assert not any(form["action"].endswith("/start") for form in table_of(ben, game).forms)
    online(game.code, ada.session["controller"])  # the host is at the table: nobody else may start
    table = post_form(ben, game, "join", {"name": "Ben"})
    assert "Waiting for the host to start the game." in table.text and "Ben" in table.text
    host = table_of(ada, game)
    start = host.form_to("start")
    assert "Start game with 2 players" in host.text
    table = post_form(ada, game, "start", start["fields"])
    game.refresh_from_db()
    assert game.status == "playing"
    assert "Your turn, Ada" in table.text


def test_the_lobby_without_script_looks_again_for_the_start_and_for_joins() -> None:
    """A seated guest waits for the host to start, the host for players to join: both pages
    reload themselves. A visitor typing a name to join is not reloaded under, nor is a
    pass-and-play room, seated from its own device."""
    ada = Client()
    game = create(ada, name="Ada", mode="online")
    assert table_of(ada, game).refresh == "8"
    online(game.code, ada.session["controller"])  # the host is at the table: nobody else may start
    ben = Client()
    assert table_of(ben, game).refresh == ""
    table = post_form(ben, game, "join", {"name": "Ben"})
    assert "Waiting for the host to start the game." in table.text
    assert table.refresh == "8" and "This page looks again every 8 seconds." in table.text
    host = Client()
    local = create(host, mode="local", players="2")
    assert table_of(host, local).refresh == ""


def settings_of(client: Client, game: Game) -> list[str]:
    """The lobby's list of how the room is played, as the page without script draws it."""
    page = client.get(f"/r/{game.code}/").content.decode()
    table = page[page.index('data-testid="noscript-table"') :]
    found = re.search(r'<ul class="room-settings[^"]*" id="ns-room-settings">(.*?)</ul>', table, re.S)
    assert found, "no list of the room's settings in the lobby without script"
    return [html.unescape(item) for item in re.findall(r"<li>(.*?)</li>", found.group(1))]


def test_the_lobby_without_script_says_what_the_host_chose_as_the_page_with_script_does() -> None:
    """The turn timer, or the pace and the time a move at one's own pace (the line under the room's
    code says it too, but a phone does not show that line), the coach's hints and the spectators'
    chat, in the words of the page with script (static/js/room/render.js, ``lobbyHtml``), for
    whoever is deciding to take a seat."""
    ada = Client()
    timed = create(ada, name="Ada", mode="online", turn_timer="60", chat_spectators="on")
    assert settings_of(Client(), timed) == [
        "Turn timer: 1 minute a turn",
        "No hints from the coach",
        "Spectators may post in the chat",
    ]
    plain = create(ada, name="Ada", mode="online", hints="on")
    assert settings_of(ada, plain) == [
        "No turn timer",
        "Hints from the coach allowed",
        "Only the players post in the chat",
    ]
    own = create(ada, name="Ada", mode="online", pace="own", move_time=str(24 * 3600), hints="on")
    assert settings_of(ada, own) == [
        "At your own pace, 1 day a move",
        "Hints from the coach allowed",
        "Only the players post in the chat",
    ]


def test_the_line_under_the_rooms_code_and_the_lobby_without_script_say_the_pace_alike() -> None:
    """Both say a room at your own pace in the same words (``games.services.pace.own_pace_text``),
    the lobby's list with a capital; a live room's line says nothing of its pace."""
    ada = Client()
    for move_time, said in (
        (str(3 * 24 * 3600), "at your own pace, 3 days a move"),
        ("0", "at your own pace, no time limit"),
    ):
        game = create(ada, name="Ada", mode="online", pace="own", move_time=move_time)
        page = ada.get(f"/r/{game.code}/").content.decode()
        line = re.search(r'<p class="muted" id="room-sub">(.*?)</p>', page, re.S)
        assert line and line.group(1).endswith(f" · {said}"), line
        assert settings_of(ada, game)[0] == said[0].upper() + said[1:]
    live = create(ada, name="Ada", mode="online", turn_timer="60")
    line = re.search(r'<p class="muted" id="room-sub">(.*?)</p>', ada.get(f"/r/{live.code}/").content.decode(), re.S)
    assert line and "pace" not in line.group(1) and "·" not in line.group(1)


def test_a_reader_stops_the_page_without_script_from_reloading_and_starts_it_again() -> None:
    """A page that reloads itself starts a screen reader's reading over: its reader may turn that
    off, for every page of the site's rooms after it (a form posted included), and back on."""
    ada = Client()
    game = create(ada, name="Ada", mode="online")
    page = ada.get(f"/r/{game.code}/").content.decode()
    assert f'<a href="/r/{game.code}/?refresh=off" id="ns-refresh-off">Stop refreshing this page</a>' in page
    off = ada.get(f"/r/{game.code}/", {"refresh": "off"})
    table = NoScriptPage(off.content.decode())
    assert table.refresh == "" and "looks again" not in table.text
    again = f'<a href="/r/{game.code}/?refresh=on" id="ns-refresh-on">Refresh this page by itself</a>'
    assert again in off.content.decode()
    ben = Client()
    post_form(ben, game, "join", {"name": "Ben"})
    table = post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    table = post_form(ada, game, "roll", table.form_to("roll")["fields"])
    table = post_form(ada, game, "score", next(iter(table.scores().values())))
    assert "Ben's turn" in table.text and table.refresh == ""  # still off, after the forms
    assert table_of(Client(), game).refresh == "8"  # another browser's choice is its own
    on = NoScriptPage(ada.get(f"/r/{game.code}/", {"refresh": "on"}).content.decode())
    assert on.refresh == "8"
    assert table_of(ada, game).refresh == "8"


def test_a_turn_without_script_holds_the_ticked_dice_rolls_and_scores_a_box_by_its_button() -> None:
    ada, game = started()
    table = post_form(ada, game, "roll", table_of(ada, game).form_to("roll")["fields"])
    game.refresh_from_db()
    dice = list(game.room.rules.turn.dice)
    roll = table.form_to("roll")
    assert roll["held"] == ["0", "1", "2", "3", "4"] and roll["checked"] == []
    assert roll["fields"]["version"] == str(game.version) and "2 rolls left" in table.text
    # Every box the rules allow now is a button with its points; the page says nothing of the others.
    options = {o.box.value: o.points for o in game.room.rules.options() if o.legal}
    scores = table.scores()
    assert {name.removeprefix("ns-score-").removesuffix("-0") for name in scores} == set(options)
    chance = scores["ns-score-chance-0"]
    assert chance["label"] == f"Score Chance for {options['chance']} points"
    # Keep the first two dice: they stay as they were, and show as kept.
    table = post_form(ada, game, "roll", {**roll["fields"], "held": ["0", "1"]})
    game.refresh_from_db()
    assert list(game.room.rules.turn.dice)[:2] == dice[:2]
    assert table.form_to("roll")["checked"] == ["0", "1"] and "1 roll left" in table.text
    kept = list(game.room.rules.turn.dice)
    table = post_form(ada, game, "score", table.scores()["ns-score-chance-0"])
    game.refresh_from_db()
    assert game.room.rules.cards[0].get(Box.CHANCE) == sum(kept)
    assert table.scores() == {}  # a new turn: nothing to score before its roll
    assert "Roll the dice" in table.text


def test_a_player_waiting_for_another_without_script_sees_no_forms_and_a_page_that_looks_again() -> None:
    ada = Client()
    game = create(ada, name="Ada", mode="online")
    ben = Client()
    post_form(ben, game, "join", {"name": "Ben"})
    post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    post_form(ada, game, "roll", table_of(ada, game).form_to("roll")["fields"])
    game.refresh_from_db()
    online(game.code, ada.session["controller"])  # Ada at the table: her seat is not for Ben to take over
    table = table_of(ben, game)
    assert "Ada's turn" in table.text and "Waiting for Ada" in table.text
    assert "The dice:" in table.text
    # Nothing to act on but his own seat and a reaction; the card shows Ada's options to her only.
    assert [f["action"].rsplit("/", 1)[1] for f in table.forms] == ["#ns-ask", "react"]
    assert list(tools(table)) == ["ns-leave-1"]
    assert table.refresh == "8" and "This page looks again every 8 seconds." in table.text
    # The chat's field is on a page of its own that holds still: a reload would take what Ben types.
    assert "Write a message" in table.text
    writing = writing_of(ben, game)
    assert [form["action"] for form in writing.forms][-1] == f"/r/{game.code}/chat"
    assert writing.refresh == "" and "This page holds still while you write a message." in writing.text
    assert "Back to the table" in writing.text
    assert "Refresh" in table.text
    # Ada's own page does not reload under her while she chooses.
    assert table_of(ada, game).refresh == ""
    # A spectator is told they are watching.
    assert "You are watching. Waiting for Ada" in table_of(Client(), game).text


def ben_kept_by_a_computer() -> tuple[Client, Client, Game]:
    """Ada's online game, started, Ben's seat handed by Ada (the host) to a computer while he is away."""
    ada = Client()
    game = create(ada, name="Ada", mode="online")
    ben = Client()
    post_form(ben, game, "join", {"name": "Ben"})
    post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    game.refresh_from_db()
    services.game_replace_with_bot(
        code=game.code, controller=ada.session["controller"], seat=1, expected_version=game.version, action_id="h-1"
    )
    return ada, ben, game


def test_a_player_whose_seat_the_computer_plays_is_not_told_they_are_only_watching() -> None:
    ada, ben, game = ben_kept_by_a_computer()
    table = table_of(ben, game)
    assert "The computer is playing for Ben." in table.text and "Waiting for Ada" in table.text
    assert "You are watching" not in table.text


def test_a_player_at_the_table_without_script_is_not_away_for_the_host_to_hand_their_seat_to_a_computer() -> None:
    """A browser without script has no socket: its page's loads (the stylesheet inside its
    ``<noscript>``, after each form too) say it is at the table, until it has not loaded it for as
    long as a socket's ping may be missed. Then its seat is away, and the host may hand it to a computer."""
    from datetime import timedelta

    from games.domain.rules import RuleViolation
    from games.store.models import Presence
    from games.store.selectors import PRESENCE_TIMEOUT
    from tests.factories import action_id

    ada = Client()
    game = create(ada, name="Ada", mode="online")
    ben = Client()
    post_form(ben, game, "join", {"name": "Ben"})
    post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    online(game.code, ada.session["controller"])  # Ada's page is open, with script
    table = post_form(ada, game, "roll", table_of(ada, game).form_to("roll")["fields"])
    post_form(ada, game, "score", next(iter(table.scores().values())))
    post_form(ben, game, "roll", table_of(ben, game).form_to("roll")["fields"])  # Ben at the table, mid-turn
    assert ben.get(f"/r/{game.code}/here.css").status_code == 200  # as his browser loads the page it is sent back to

    def hand_over() -> None:
        game.refresh_from_db()
        services.game_replace_with_bot(
            code=game.code, controller=ada.session["controller"], seat=1, expected_version=game.version,
            action_id=action_id(),
        )  # fmt: skip

    with pytest.raises(RuleViolation) as refused:
        hand_over()
    assert refused.value.code == "player_present"
    # Only a page without script loads the stylesheet that says so (script's page has its socket).
    page = ben.get(f"/r/{game.code}/").content.decode()
    assert f'<link rel="stylesheet" href="/r/{game.code}/here.css"></noscript>' in page
    assert f"/r/{game.code}/here.css" not in Client().get(f"/r/{game.code}/").content.decode()  # a spectator's
    # Ben's page gone for longer than a socket's ping may be missed: away.
    long_ago = game.presences.first().seen_at - PRESENCE_TIMEOUT - timedelta(seconds=1)
    Presence.objects.filter(game=game).exclude(controller=ada.session["controller"]).update(seen_at=long_ago)
    # His page loaded again (its meta refresh): here again.
    here = ben.get(f"/r/{game.code}/here.css")
    assert here.status_code == 200 and here["Content-Type"].startswith("text/css")
    assert here["Cache-Control"] == "no-store"
    with pytest.raises(RuleViolation) as refused:
        hand_over()
    assert refused.value.code == "player_present"
    Presence.objects.filter(game=game).exclude(controller=ada.session["controller"]).update(seen_at=long_ago)
    hand_over()
    game.refresh_from_db()
    assert game.room.seats[1].kind == "bot"
    assert "The computer is playing for Ben." in table_of(ben, game).text


def test_a_player_writing_without_script_stays_at_the_table_while_the_page_is_open() -> None:
    """The page to write a message on holds still (a reload would take the text away), so it loads
    no stylesheet again: a small frame in it reloads itself instead, and each load says the browser
    is at the table, as the table's own reloads do. A page that reloads itself needs none."""
    from datetime import timedelta

    from games.store.models import Presence
    from games.store.selectors import PRESENCE_TIMEOUT

    ada, ben, game = ben_away()
    assert "Ben is away" in table_of(ada, game).text
    assert "<iframe" not in ben.get(f"/r/{game.code}/").content.decode()  # it reloads itself
    assert "<iframe" not in Client().get(f"/r/{game.code}/?write=chat").content.decode()  # no seat
    page = ben.get(f"/r/{game.code}/?write=chat").content.decode()
    found = re.search(r'<iframe [^>]*src="([^"]+)"', page)
    assert found is not None and found.group(1) == f"/r/{game.code}/here"
    here = ben.get(found.group(1))
    assert here.status_code == 200 and here["Cache-Control"] == "no-store"
    assert here["X-Frame-Options"] == "SAMEORIGIN" and "frame-ancestors 'self'" in here["Content-Security-Policy"]
    every = re.search(r'<meta http-equiv="refresh" content="(\d+)">', here.content.decode())
    assert every is not None and 0 < int(every.group(1)) < PRESENCE_TIMEOUT.total_seconds()
    assert "is away" not in table_of(ada, game).text
    # Long after the page was loaded, the frame's last reload keeps Ben at the table.
    rows = Presence.objects.filter(game=game, controller=ben.session["controller"])
    rows.update(seen_at=rows.get().seen_at - PRESENCE_TIMEOUT - timedelta(seconds=1))
    assert "Ben is away" in table_of(ada, game).text
    ben.get(found.group(1))
    assert "is away" not in table_of(ada, game).text
    # A browser without a seat there is told nothing and stores nothing.
    assert Client().get(found.group(1)).status_code == 200 and rows.count() == 1


def test_a_form_of_a_page_the_table_moved_past_is_refused_and_the_page_shows_the_table_now() -> None:
    ada, game = started()
    old = table_of(ada, game).form_to("roll")["fields"]
    post_form(ada, game, "roll", old)
    before = stored(game)
    table = post_form(ada, game, "roll", {**old, "action_id": "another"})  # the old page's form once more
    assert table.messages == ["The table changed just before your move: have a look and try again."]
    assert stored(game) == before
    assert table.form_to("roll")["fields"]["version"] == str(before[0])  # the page now is the table now


def test_a_shared_device_without_script_plays_each_seat_in_turn() -> None:
    device = Client()
    game = create(device, mode="local", players="2", player_1="Ann", player_2="Ben")
    for name in ("Ann", "Ben", "Ann"):
        table = table_of(device, game)
        assert f"Your turn, {name}" in table.text
        table = post_form(device, game, "roll", table.form_to("roll")["fields"])
        post_form(device, game, "score", next(iter(table.scores().values())))
    game.refresh_from_db()
    assert [card.filled for card in game.room.rules.cards] == [2, 1]


@pytest.mark.parametrize(
    ("ruleset", "seen"),
    [
        ("painted", ["ns-score-red-0", "ns-score-palette-0", "ns-score-chance-0"]),
        ("triple", ["ns-score-chance-0", "ns-score-chance-1", "ns-score-chance-2"]),
    ],
)
def test_the_card_without_script_has_the_rule_sets_columns_and_boxes(ruleset: str, seen: list[str]) -> None:
    ada = Client()
    game = create(ada, name="Ada", mode="online", ruleset=ruleset)
    post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    table = post_form(ada, game, "roll", table_of(ada, game).form_to("roll")["fields"])
    scores = table.scores()
    assert set(seen) <= set(scores)
    game.refresh_from_db()
    if ruleset == "painted":  # each die's colour said in words beside its value
        turn = game_state(game)["turn"]
        shown = [f"{value} {colour}" for value, colour in zip(turn["dice"], turn["colours"], strict=True)]
        assert all(die in table.text for die in shown), (shown, table.text[:600])
        assert "Colour sum" in table.text
        assert scores["ns-score-red-0"]["label"].startswith("Score Red for ")
    else:
        assert "×3" in table.text and "Column total" in table.text
        assert scores["ns-score-chance-2"]["column"] == "2"
        assert scores["ns-score-chance-2"]["label"].startswith("Score Chance in column ×3 for ")
    # Scoring the last column's button scores in that column.
    pick = seen[-1]
    post_form(ada, game, "score", scores[pick])
    game.refresh_from_db()
    box, column = pick.removeprefix("ns-score-").rsplit("-", 1)
    assert game.room.rules.cards[0].get(Box(box), int(column)) is not None


def test_a_painted_card_without_script_has_the_colour_heading_and_the_sums_of_the_page_with_script() -> None:
    """As static/js/scorecard.js draws it, for the player and for a spectator: the colour boxes
    under their heading, the upper sum with its goal ("0/63") and the bonus with what earns it."""
    ada = Client()
    game = create(ada, name="Ada", mode="online", ruleset="painted")
    post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    for reader in (ada, Client()):
        page = reader.get(f"/r/{game.code}/").content.decode()
        card = page[page.index('<table class="scorecard ns-scorecard">') :]
        card = re.sub(r"\s+", " ", card[: card.index("</table>")])
        sections = re.findall(r'<tbody data-section="(\w+)">', card)
        assert sections == ["upper", "lower", "colour", "totals"]
        assert (
            '<tr class="section"><th scope="rowgroup" colspan="2"><span class="section-name">Colours</span></th></tr>'
        ) in card
        assert card.count('0<span class="goal">/63</span>') == 1, card
        assert '<th scope="row">Upper bonus<small class="bonus-rule">35 at 63</small></th>' in card
        assert re.search(r'<th scope="row">Colour sum</th> ?<td class="filled">0</td>', card), card


def test_one_person_playing_on_their_own_device_without_script_reads_you_win() -> None:
    """A game on this device with one person in it is that person's alone: the end says "You win!",
    as an online room of one seat does; only a device of several people is told the winner by name."""
    device = Client()
    game = create(device, mode="local", players="1", player_1="Ada")
    play_to_the_end(device, game)
    game.refresh_from_db()
    assert game.status == "finished"
    table = table_of(device, game)
    assert "You win!" in table.text and "Ada wins!" in table.text


def test_the_rematch_of_a_game_on_one_device_without_script_waits_for_nobody() -> None:
    """Its lobby is the device's alone: ready to start there, not "Waiting for players"."""
    device = Client()
    game = create(device, mode="local", players="1", player_1="Ada")
    play_to_the_end(device, game)
    answer = device.post(f"/r/{game.code}/rematch")
    assert answer.status_code == 302
    rematch = Game.objects.get(code=answer["Location"].strip("/").split("/")[-1])
    assert rematch.local and rematch.status == "lobby"
    text = table_of(device, rematch).text
    assert "Ready to start on this device" in text and "Waiting for players" not in text


def test_a_spectator_without_script_is_told_the_rematch_is_the_players_own() -> None:
    ada, game = started()
    play_to_the_end(ada, game)
    spectator = Client()
    assert "rematch of their own" not in table_of(spectator, game).text
    assert ada.post(f"/r/{game.code}/rematch").status_code == 302
    assert "rematch of their own" in table_of(spectator, game).text
    assert "rematch of their own" not in table_of(ada, game).text


def test_a_game_played_to_its_end_without_script_says_who_won_and_links_the_replay() -> None:
    ada, game = started()
    play_to_the_end(ada, game)
    game.refresh_from_db()
    assert game.status == "finished"
    table = table_of(ada, game)
    # Her own result: "You win!", as the page with script says it, over the line that names her.
    assert "You win!" in table.text and "Ada wins!" in table.text
    total = game_state(game)["cards"][0]["total"]
    assert f"1. Ada: {total} points" in table.text
    assert f'id="ns-replay" href="/r/{game.code}/replay"' in ada.get(f"/r/{game.code}/").content.decode()
    assert table.form_to("rematch")["buttons"][0]["id"] == "ns-rematch"
    assert table.refresh == "" and table.scores() == {}
    assert [form["action"] for form in table.forms if not form["action"].endswith(("/rematch", "/chat"))] == []


def test_the_result_without_script_lists_the_winner_first_not_a_seat_that_left_with_more_points() -> None:
    """Ranked as the winner line and the page with script rank them (Room.ranks): every seat that
    stayed before a seat that left, whatever its points (a computer the host let play on a left
    seat can outscore the players who stayed), each with its place and marked."""
    import random

    from games.web import noscript
    from tests.factories import action_id, open_room, play_to_end, score_first_legal

    table = open_room(2)
    score_first_legal(table)  # P0's one turn
    services.game_leave(
        code=table.code,
        controller=table.controllers[0],
        seat=0,
        expected_version=table.version(),
        action_id=action_id(),
    )
    game = play_to_end(table, random.Random(3), rerolls=0)
    state = game_state(game)
    assert state["winners"] == [1] and state["ranks"] == [2, 1]
    view = noscript.table(state, [1], "ns-test", standings=game.room.standings())
    assert view["winners"] == ["P1"]
    assert [(row["rank"], row["name"], row["behind"]) for row in view["results"]] == [(1, "P1", ""), (2, "P0", "left")]
    page = NoScriptPage(Client().get(f"/r/{table.code}/").content.decode())
    assert re.search(r"1\. P1: \d+ points?\s*2\. P0 \(left\): \d+ points?", page.text), page.text


def test_a_player_whose_seat_the_computer_plays_takes_it_back_without_script() -> None:
    ada, ben, game = ben_kept_by_a_computer()
    table = table_of(ben, game)
    assert "The computer is playing for Ben." in table.text
    back = table.form_to("back")
    assert back["fields"]["seat"] == "1" and back["buttons"][0]["id"] == "ns-back-1"
    table = post_form(ben, game, "back", back["fields"])
    game.refresh_from_db()
    assert game.room.seats[1].kind == "human"
    assert "The computer is playing for" not in table.text


def test_taking_back_a_seat_the_computer_does_not_play_for_this_browser_is_refused_with_why() -> None:
    ada, game = started()
    before = stored(game)
    table = post_form(Client(HTTP_ACCEPT_LANGUAGE="en"), game, "back", {"seat": "0"})
    assert table.messages == ["Seat 0 is not one a computer plays for you."]
    assert stored(game) == before


# --- what the page with script asks or offers, without script too -----------------------------


def zero_option(game: Game) -> tuple[str, int]:
    """Yahtzee's box (and column), if the dice on the table would fill it with 0."""
    game.refresh_from_db()
    return next(
        (o.box.value, o.column)
        for o in game.room.rules.options()
        if o.box == Box.YAHTZEE and o.legal and o.points + o.bonus == 0
    )


def rolled_with_a_zero() -> tuple[Client, Game, NoScriptPage, tuple[str, int]]:
    """Ada's game, her dice rolled until a box would score 0 (most rolls leave Yahtzee at 0)."""
    while True:
        ada, game = started()
        table = post_form(ada, game, "roll", table_of(ada, game).form_to("roll")["fields"])
        try:
            return ada, game, table, zero_option(game)
        except StopIteration:
            continue


def test_a_box_that_would_score_zero_asks_first_and_scores_only_when_confirmed() -> None:
    ada, game, table, (box, column) = rolled_with_a_zero()
    button = table.scores()[f"ns-score-{box}-{column}"]
    assert "zero" not in button and button["version"] == str(game.version)
    before = stored(game)
    # The button asks (a page of its own: a GET that changes nothing).
    response = ada.get(f"/r/{game.code}/", {"zero": box, "column": str(column), "version": button["version"]})
    asked = NoScriptPage(response.content.decode())
    assert stored(game) == before
    assert "Score zero?" in asked.text and "These dice score nothing in Yahtzee. Fill it with a 0?" in asked.text
    assert 'id="ns-confirm-no"' in response.content.decode()  # Cancel: back to the table as it was
    [confirm] = [f for f in asked.forms if [b["id"] for b in f["buttons"]] == ["ns-confirm-yes"]]
    assert {k: v for k, v in confirm["fields"].items() if k != "csrfmiddlewaretoken"} == {
        "version": str(game.version),
        "action_id": confirm["fields"]["action_id"],
        "column": str(column),
        "box": box,
    } and confirm["action"] == f"/r/{game.code}/score"
    post_form(ada, game, "score", confirm["fields"])
    game.refresh_from_db()
    assert game.room.rules.cards[0].get(Box(box)) == 0
    # The same question asked again (the back button): the table has moved on, and it says so.
    again = ada.get(f"/r/{game.code}/", {"zero": box, "column": str(column), "version": button["version"]})
    page = again.content.decode()
    assert 'id="ns-zero-stale"' in page and "The table changed just before your move" in page
    assert 'id="ns-confirm"' not in page


def test_a_box_in_a_column_is_named_in_one_sentence_without_script() -> None:
    """On a card of three columns a score button's label and the "Score zero?" question name the
    column inside their sentence, one message for each case, as the page with script says them
    (not "Chance ×3", a box's name with its column put after it)."""
    ada = Client()
    game = create(ada, name="Ada", mode="online", ruleset="triple")
    post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    while True:
        table = post_form(ada, game, "roll", table_of(ada, game).form_to("roll")["fields"])
        try:
            box, column = zero_option(game)
            break
        except StopIteration:
            continue
    game.refresh_from_db()
    chance = next(o for o in game.room.rules.options() if o.box == Box.CHANCE and o.column == 2)
    scores = table.scores()
    assert scores["ns-score-chance-2"]["label"] == f"Score Chance in column ×3 for {chance.points} points"
    m = game.room.rules.ruleset.multipliers[column]
    asked = ada.get(f"/r/{game.code}/", {"zero": box, "column": str(column), "version": str(game.version)})
    text = NoScriptPage(asked.content.decode()).text
    assert f"These dice score nothing in Yahtzee in column ×{m}. Fill it with a 0?" in text
    assert scores[f"ns-score-{box}-{column}"]["label"] == f"Score Yahtzee in column ×{m} for 0 points"


@pytest.mark.parametrize(
    "query",
    [
        {"zero": "chance"},  # a box that scores points: nothing to confirm
        {"zero": "nonsense"},
        {"zero": "yahtzee", "column": "7"},
        {"zero": "yahtzee", "version": "1"},  # asked of an older table
    ],
)
def test_a_zero_question_that_does_not_fit_the_table_is_said_stale_and_changes_nothing(query: dict[str, str]) -> None:
    ada, game, _, (box, column) = rolled_with_a_zero()
    query = {"column": str(column), **{k: (box if v == "yahtzee" else v) for k, v in query.items()}}
    before = stored(game)
    page = ada.get(f"/r/{game.code}/", query).content.decode()
    assert 'id="ns-zero-stale"' in page and 'id="ns-confirm"' not in page
    assert stored(game) == before
    # A spectator asking is told the same: no seat, no question.
    assert (
        'id="ns-confirm"' not in Client().get(f"/r/{game.code}/", {"zero": box, "column": str(column)}).content.decode()
    )


def tools(table: NoScriptPage) -> dict[str, dict[str, str]]:
    """The seat tools' buttons by id (``ns-leave-<seat>``, ``ns-kick-``, ``ns-replace-``, ``ns-remove-``),
    each with the fields its press sends: each asks first (a GET of the room page, ``ask``)."""
    return {
        b["id"]: {**f["fields"], "ask": b["value"]} for f in table.forms for b in f["buttons"] if b.get("name") == "ask"
    }


def answer(client: Client, game: Game, table: NoScriptPage, button: str) -> NoScriptPage:
    """Press a seat tool's ``button``, read its question, and confirm it: the page after the tool's post."""
    pressed = tools(table)[button]
    asked = NoScriptPage(client.get(f"/r/{game.code}/", pressed).content.decode())
    [form] = [f for f in asked.forms if [b["id"] for b in f["buttons"]] == ["ns-ask-yes"]]
    assert form["action"] == f"/r/{game.code}/{pressed['ask']}" and form["fields"]["seat"] == pressed["seat"]
    return post_form(client, game, pressed["ask"], form["fields"])


def lobby_of_two() -> tuple[Client, Client, Game]:
    """Ada's online lobby, Ben seated; Ada's page is open (she is at the table)."""
    ada = Client()
    game = create(ada, name="Ada", mode="online")
    ben = Client()
    post_form(ben, game, "join", {"name": "Ben"})
    online(game.code, ada.session["controller"])
    game.refresh_from_db()
    return ada, ben, game


def test_a_name_the_table_without_script_puts_in_a_sentence_is_a_run_of_its_own() -> None:
    """A right-to-left name, or one that ends in a number, takes the words beside it into its run:
    in a button's label (read out, plain text) it is put between FSI and PDI, in the question the
    host is asked it is a <bdi>."""
    ada = Client()
    game = create(ada, name="Ada", mode="online")
    guest = Client()
    post_form(guest, game, "join", {"name": "שרה 2"})
    online(game.code, ada.session["controller"])
    game.refresh_from_db()
    page = ada.get(f"/r/{game.code}/").content.decode()
    assert 'aria-label="Remove \u2068שרה 2\u2069 from the room"' in page
    assert 'aria-label="Mute \u2068שרה 2\u2069\'s chat"' in page
    asked = ada.get(f"/r/{game.code}/", tools(table_of(ada, game))["ns-kick-1"]).content.decode()
    assert "Remove <bdi>שרה 2</bdi> from the room?" in asked


def test_the_host_without_script_adds_a_computer_and_removes_a_seat_and_a_guest_leaves() -> None:
    ada, ben, game = lobby_of_two()
    host = table_of(ada, game)
    add = host.form_to("add_bot")
    assert add["buttons"][0]["id"] == "ns-add-bot" and add["fields"]["version"] == str(game.version)
    assert 'id="ns-bot-level" name="level"' in ada.get(f"/r/{game.code}/").content.decode()
    assert list(tools(host)) == ["ns-leave-0", "ns-kick-1"]
    # Ben has neither the computer nor the kick, only his own Leave.
    guest = table_of(ben, game)
    assert list(tools(guest)) == ["ns-leave-1"] and tools(guest)["ns-leave-1"]["seat"] == "1"
    assert [f["action"].rsplit("/", 1)[1] for f in guest.forms] == ["#ns-ask", "join", "react"]
    assert "Write a message" in guest.text  # the chat's field on a page that holds still
    table = post_form(ada, game, "add_bot", {**add["fields"], "level": "beginner"})
    game.refresh_from_db()
    assert [(s.kind, s.level) for s in game.room.seats][2] == ("bot", "beginner")
    assert "computer · Beginner" in table.text
    # The host takes the computer out again; Ben leaves.
    answer(ada, game, table, "ns-kick-2")
    table = answer(ben, game, table_of(ben, game), "ns-leave-1")
    game.refresh_from_db()
    assert [s.name for s in game.room.seats if s.active] == ["Ada"]
    assert "Your name" in table.text  # Ben may take a seat again


def test_a_guest_kicked_from_the_lobby_is_offered_no_seat_without_script_either() -> None:
    """Ben, kicked from Ada's lobby, may not sit there again (``kicked``): the table without script
    says so where the name field was, as the page with script does, rather than a form to refuse."""
    ada, ben, game = lobby_of_two()
    answer(ada, game, table_of(ada, game), "ns-kick-1")
    table = table_of(ben, game)
    assert "join" not in [f["action"].rsplit("/", 1)[1] for f in table.forms]
    assert "The host took you out of this room: you can watch." in table.text
    assert "Without a seat you can watch." not in table.text


@pytest.mark.parametrize(
    ("who", "action", "fields", "said"),
    [
        ("ben", "add_bot", {}, "Only the host can do that."),
        ("ada", "add_bot", {"level": "godlike"}, "Bots play at one of these levels: optimal, casual, beginner."),
        ("ada", "add_bot", {"version": "0"}, "The table changed just before your move"),
        ("ada", "add_bot", {"version": None}, "missing its game version"),
        ("ben", "kick", {"seat": "0"}, "Only the host can do that."),
        ("ada", "kick", {"seat": "9"}, "There is no seat 9 in this room."),
        ("ada", "kick", {"seat": None}, "did not say which seat"),
        ("ben", "leave", {"seat": "0"}, "That is not your seat."),
        ("ada", "leave", {"seat": "-1"}, "did not say which seat"),
        ("stranger", "leave", {"seat": "1"}, "not"),
        ("ben", "start", {}, "Only the host can do that."),
    ],
)
def test_a_lobby_tool_refused_without_script_says_why_and_stores_nothing(
    who: str, action: str, fields: dict[str, Any], said: str
) -> None:
    ada, ben, game = lobby_of_two()
    client = {"ada": ada, "ben": ben, "stranger": Client()}[who]
    before = stored(game)
    data = {"version": str(game.version), "action_id": "t-1", **fields}
    page = page_after(client, game, action, {name: value for name, value in data.items() if value is not None})
    assert said in html.unescape(page)
    assert stored(game) == before


def two_playing() -> tuple[Client, Client, Game]:
    """Ada's started game with Ben, both pages open."""
    ada, ben, game = lobby_of_two()
    online(game.code, ben.session["controller"])
    post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    game.refresh_from_db()
    return ada, ben, game


def test_the_host_without_script_pauses_and_resumes_and_a_player_may_not() -> None:
    ada, ben, game = two_playing()
    assert not any(f["action"].endswith(("/pause", "/resume")) for f in table_of(ben, game).forms)
    pause = table_of(ada, game).form_to("pause")
    assert pause["buttons"][0]["id"] == "ns-pause"
    before = stored(game)
    table = post_form(ben, game, "pause", {**pause["fields"], "action_id": "b-1"})
    assert table.messages == ["Only the host can do that."] and stored(game) == before
    table = post_form(ada, game, "pause", pause["fields"])
    game.refresh_from_db()
    # The host reads her pause of herself, the others of the host.
    assert game.room.paused and "You paused the game" in table.text and "Game paused by the host" not in table.text
    assert "Game paused by the host" in table_of(ben, game).text
    assert "Resume game" in table.text and not any(f["action"].endswith("/roll") for f in table.forms)
    table = post_form(ada, game, "pause", pause["fields"])  # the same form sent again: done already
    assert table.messages == ["That action was already applied."]
    resume = table.form_to("resume")
    post_form(ada, game, "resume", resume["fields"])
    game.refresh_from_db()
    assert not game.room.paused
    before = stored(game)
    table = post_form(ada, game, "resume", {**resume["fields"], "action_id": "r-2"})  # an older page's
    assert table.messages == ["The table changed just before your move: have a look and try again."]
    assert stored(game) == before


def test_a_player_handed_the_host_during_a_pause_reads_without_script_that_the_resume_is_theirs() -> None:
    """Ada pauses and leaves; Ben hosts now. His page does not say he paused the game, nor that the
    host did: the game is paused and he may resume it, which his Resume does."""
    ada, ben, game = two_playing()
    post_form(ada, game, "pause", table_of(ada, game).form_to("pause")["fields"])
    services.game_leave(
        code=game.code, controller=ada.session["controller"], seat=0, expected_version=None, action_id="l"
    )
    table = table_of(ben, game)
    said = html.unescape(table.text)
    assert "Game paused: you can resume it" in said
    assert "You paused the game" not in said and "Game paused by the host" not in said
    post_form(ben, game, "resume", table.form_to("resume")["fields"])
    game.refresh_from_db()
    assert not game.room.paused


def test_the_others_without_script_read_who_resumes_a_pause_whose_host_left() -> None:
    """Ada pauses and leaves; Ben hosts now. Cal's page does not say the host paused the game (Ben
    did not): it says the game goes on when Ben, the host, resumes it; while Ada hosts, the host's."""
    ada, ben, game = lobby_of_two()
    cal = Client()
    post_form(cal, game, "join", {"name": "Cal"})
    game.refresh_from_db()
    post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    game.refresh_from_db()
    post_form(ada, game, "pause", table_of(ada, game).form_to("pause")["fields"])
    assert "Game paused by the host" in html.unescape(table_of(cal, game).text)
    services.game_leave(
        code=game.code, controller=ada.session["controller"], seat=0, expected_version=None, action_id="l"
    )
    said = html.unescape(table_of(cal, game).text)
    assert "Game paused: Ben (the host) can resume it" in said
    assert "paused by the host" not in said and "Game paused: you can resume it" not in said
    assert "Game paused: you can resume it" in html.unescape(table_of(ben, game).text)


def done_as_often_as_allowed(game: Game, what: str) -> None:
    """The room's tally says ``what`` was done as often as one game allows, on its stored row."""
    game.refresh_from_db()
    game.room = game.room.change(tally=Tally(**{what: LIMITS[what]}))
    game.save(update_fields=["snapshot"])
    moves.forget(game.code)


def test_a_pause_past_as_many_as_one_game_allows_is_refused_without_script_and_stores_nothing() -> None:
    ada, _ben, game = two_playing()
    done_as_often_as_allowed(game, "pauses")
    before = stored(game)
    table = post_form(ada, game, "pause", table_of(ada, game).form_to("pause")["fields"])
    assert table.messages == [f"This game was paused {LIMITS['pauses']} times, as often as one game allows."]
    assert stored(game) == before
    game.refresh_from_db()
    assert not game.room.paused and any(f["action"].endswith("/roll") for f in table.forms)


def test_seats_taken_in_a_lobby_as_often_as_one_game_allows_refuse_a_join_and_a_computer_without_script() -> None:
    ada, _ben, game = lobby_of_two()
    done_as_often_as_allowed(game, "joins")
    before = stored(game)
    said = f"Seats in this room were taken {LIMITS['joins']} times before the start"
    assert said in html.unescape(page_after(Client(), game, "join", {"name": "Cy"}))
    add = table_of(ada, game).form_to("add_bot")
    assert said in html.unescape(page_after(ada, game, "add_bot", add["fields"]))
    assert stored(game) == before
    # The host still starts the game.
    post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    game.refresh_from_db()
    assert game.status == "playing"


def test_a_player_without_script_leaves_during_play_after_a_question() -> None:
    """As the page with script does, a player leaves mid-game from the Players list, asked first:
    the same leave as the socket's, and nobody else's seat to leave."""
    ada, ben, game = two_playing()
    assert list(tools(table_of(ben, game))) == ["ns-leave-1"]
    assert "ns-leave-1" not in tools(table_of(ada, game)) and tools(table_of(Client(), game)) == {}
    pressed = tools(table_of(ben, game))["ns-leave-1"]
    before = stored(game)
    asked = html.unescape(ben.get(f"/r/{game.code}/", pressed).content.decode())
    assert "Leave the game as <bdi>Ben</bdi>?" in asked and stored(game) == before  # asking changes nothing
    table = answer(ben, game, table_of(ben, game), "ns-leave-1")
    game.refresh_from_db()
    assert not game.room.seats[1].active and tools(table) == {}
    # A form of the page before: refused, nothing stored.
    before = stored(game)
    page = page_after(ben, game, "leave", {**pressed, "action_id": "l-2"})
    assert "The table changed just before your move" in html.unescape(page) and stored(game) == before


def test_a_seat_a_computer_plays_while_its_player_is_away_is_still_theirs_to_leave_without_script() -> None:
    ada, ben, game = ben_kept_by_a_computer()
    assert "ns-leave-1" in tools(table_of(ben, game))
    answer(ben, game, table_of(ben, game), "ns-leave-1")
    game.refresh_from_db()
    assert not game.room.seats[1].active


def seat_buttons(table: NoScriptPage, action: str) -> dict[str, dict[str, str]]:
    """The buttons of the forms that post ``action`` at once, by id, with their form's fields."""
    return {
        b["id"]: {**f["fields"], **({b["name"]: b["value"]} if b.get("name") else {})}
        for f in table.forms
        if f["action"].endswith(f"/{action}")
        for b in f["buttons"]
    }


@pytest.mark.parametrize("playing", [False, True], ids=["lobby", "playing"])
def test_the_host_without_script_mutes_and_unmutes_a_players_chat(playing: bool) -> None:
    ada, ben, game = two_playing() if playing else lobby_of_two()
    assert seat_buttons(table_of(ben, game), "mute") == {}  # only the host
    mute = seat_buttons(table_of(ada, game), "mute")
    assert list(mute) == ["ns-mute-1"] and mute["ns-mute-1"]["seat"] == "1"  # not the host's own seat
    before = stored(game)
    table = post_form(ben, game, "mute", {**mute["ns-mute-1"], "action_id": "b-1"})
    assert table.messages == ["Only the host can do that."] and stored(game) == before
    table = post_form(ada, game, "mute", mute["ns-mute-1"])
    game.refresh_from_db()
    assert game.room.seats[1].muted and "chat muted" in table.text
    assert "The host has muted your chat in this room." in table_of(ben, game).text
    table = post_form(ada, game, "mute", mute["ns-mute-1"])  # the same form sent again: done already
    assert table.messages == ["That action was already applied."]
    unmute = seat_buttons(table_of(ada, game), "unmute")
    assert list(unmute) == ["ns-unmute-1"] and seat_buttons(table_of(ada, game), "mute") == {}
    post_form(ada, game, "unmute", unmute["ns-unmute-1"])
    game.refresh_from_db()
    assert not game.room.seats[1].muted
    before = stored(game)
    table = post_form(ada, game, "unmute", {**unmute["ns-unmute-1"], "version": str(before[0]), "action_id": "u-2"})
    assert table.messages == ["Ben is not muted already."] and stored(game) == before


def test_the_host_without_script_unmutes_a_muted_player_who_left_from_their_line_in_the_players_list() -> None:
    """Ben, muted, leaves mid-game: he cannot take a seat again, and stays quiet as a spectator. His
    line stays in the Players list, left and muted, with the host's Unmute chat (and no Mute chat)."""
    ada = Client()
    game = create(ada, name="Ada", mode="online", chat_spectators="on")
    ben = Client()
    post_form(ben, game, "join", {"name": "Ben"})
    for client in (ada, ben):
        online(game.code, client.session["controller"])
    post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    post_form(ada, game, "mute", seat_buttons(table_of(ada, game), "mute")["ns-mute-1"])
    services.game_leave(
        code=game.code, controller=ben.session["controller"], seat=1, expected_version=None, action_id="ben-leaves"
    )
    assert seat_buttons(table_of(ben, game), "unmute") == {}  # only the host
    # His page says he is muted, in place of a field whose lines would be refused.
    said = html.unescape(table_of(ben, game).text)
    assert "The host has muted your chat in this room." in said
    assert not any(f["action"].endswith("/chat") for f in table_of(ben, game).forms)
    unmute = seat_buttons(table_of(ada, game), "unmute")
    assert list(unmute) == ["ns-unmute-1"] and seat_buttons(table_of(ada, game), "mute") == {}
    table = post_form(ada, game, "unmute", unmute["ns-unmute-1"])
    game.refresh_from_db()
    assert not game.room.seats[1].muted and "chat muted" not in table.text
    assert seat_buttons(table, "unmute") == {} and seat_buttons(table, "mute") == {}  # gone: not muted anew
    assert "The host has muted your chat in this room." not in html.unescape(table_of(ben, game).text)


def test_a_player_the_host_took_out_without_a_mute_is_told_without_script_they_post_no_more() -> None:
    """The host takes Ben out mid-game and does not mute him: the chat refuses his posts as a
    spectator (``taken_out``), so his page offers no field, and says why."""
    ada = Client()
    game = create(ada, name="Ada", mode="online", chat_spectators="on")
    ben = Client()
    post_form(ben, game, "join", {"name": "Ben"})
    ben_controller = ben.session["controller"]
    post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    game.refresh_from_db()
    services.game_remove_absent(
        code=game.code, controller=ada.session["controller"], seat=1, expected_version=game.version, action_id="r"
    )
    page = table_of(ben, game)
    said = html.unescape(page.text)
    assert "The host took you out of this game: you can read its chat but not post to it." in said
    assert "The host has muted your chat" not in said
    assert not any(f["action"].endswith("/chat") for f in page.forms)
    with pytest.raises(RuleViolation) as refused:
        services.chat_post(code=game.code, controller=ben_controller, text="still here")
    assert refused.value.code == "taken_out"


def ben_kicked_from_adas_lobby(**fields: str) -> tuple[Client, Game]:
    """Ada's online room (``fields``: more of its form's), whose lobby Ben joined and Ada kicked him
    from: Ben's browser and the room."""
    ada = Client()
    game = create(ada, name="Ada", mode="online", **fields)
    ben = Client()
    post_form(ben, game, "join", {"name": "Ben"})
    game.refresh_from_db()
    services.game_kick(
        code=game.code, controller=ada.session["controller"], seat=1, expected_version=game.version, action_id="k"
    )
    return ben, game


def test_a_player_kicked_from_the_lobby_posts_without_script_as_a_spectator() -> None:
    """The host kicks Ben from the lobby: he may not sit again, but he watches, and where spectators
    may post his page offers him the chat's field (never that he was taken out of the game or
    muted), and his post goes to the room."""
    ben, game = ben_kicked_from_adas_lobby(chat_spectators="on")
    page = writing_of(ben, game)
    said = html.unescape(page.text)
    assert "The host took you out of this game" not in said and "The host has muted your chat" not in said
    chat = next(f for f in page.forms if f["action"].endswith("/chat"))
    post_form(ben, game, "chat", {**chat["fields"], "text": "fair enough"})
    assert ChatMessage.objects.filter(game=game, name="Spectator", text="fair enough").exists()


def test_a_player_kicked_from_the_lobby_is_offered_no_seat_without_script_and_told_why() -> None:
    """The host kicks Ben from the lobby: a join from his browser is refused, so his page without
    script offers no join form (as the page with script offers none), and says why, as it does."""
    ben, game = ben_kicked_from_adas_lobby()
    page = table_of(ben, game)
    assert not [f for f in page.forms if f["action"].endswith("/join")]
    assert "The host took you out of this room: you can watch." in html.unescape(page.text)
    # Cy, never kicked, is offered a seat.
    assert [f for f in table_of(Client(), game).forms if f["action"].endswith("/join")]


def test_the_host_without_script_lets_a_player_taken_out_without_a_mute_speak_again_from_his_line() -> None:
    """The host takes Ben out mid-game, never muting him: Ben reads and posts no more, and the host's
    Players list shows his line quiet (chat muted), with Unmute chat. The host's unmute lets Ben
    post again, as a spectator, his page no longer saying he may not."""
    ada = Client()
    game = create(ada, name="Ada", mode="online", chat_spectators="on")
    ben = Client()
    post_form(ben, game, "join", {"name": "Ben"})
    post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    game.refresh_from_db()
    services.game_remove_absent(
        code=game.code, controller=ada.session["controller"], seat=1, expected_version=game.version, action_id="r"
    )
    table = table_of(ada, game)
    assert "chat muted" in table.text
    unmute = seat_buttons(table, "unmute")
    assert list(unmute) == ["ns-unmute-1"]
    post_form(ada, game, "unmute", unmute["ns-unmute-1"])
    game.refresh_from_db()
    assert not game.room.seats[1].muted
    said = html.unescape(table_of(ben, game).text)
    assert "The host took you out of this game" not in said and "The host has muted your chat" not in said
    assert services.chat_post(code=game.code, controller=ben.session["controller"], text="back")["text"] == "back"


def test_the_host_without_script_unmutes_a_muted_player_who_left_the_lobby_from_the_players_list() -> None:
    """Ben, muted, leaves the lobby: his seat is gone, his mute is not. The host's Players list
    names him, left and muted, with Unmute chat, through the game he can take no seat in."""
    ada = Client()
    game = create(ada, name="Ada", mode="online", chat_spectators="on")
    ben = Client()
    post_form(ben, game, "join", {"name": "Ben"})
    for client in (ada, ben):
        online(game.code, client.session["controller"])
    post_form(ada, game, "mute", seat_buttons(table_of(ada, game), "mute")["ns-mute-1"])
    services.game_leave(
        code=game.code, controller=ben.session["controller"], seat=1, expected_version=None, action_id="ben-leaves"
    )
    assert "The host has muted your chat in this room." in html.unescape(table_of(ben, game).text)
    assert seat_buttons(table_of(ben, game), "unmute_spectator") == {}  # the host's alone
    post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    unmute = seat_buttons(table_of(ada, game), "unmute_spectator")
    assert list(unmute) == ["ns-unmute-left-0"]
    assert unmute["ns-unmute-left-0"]["spectator"] == selectors.spectator_handle(game.code, ben.session["controller"])
    table = post_form(ada, game, "unmute_spectator", unmute["ns-unmute-left-0"])
    assert "chat muted" not in table.text and seat_buttons(table, "unmute_spectator") == {}
    said = html.unescape(table_of(ben, game).text)
    assert "muted your chat" not in said
    assert services.chat_post(code=game.code, controller=ben.session["controller"], text="thanks")["text"] == "thanks"


def test_the_host_without_script_mutes_and_unmutes_a_spectators_chat() -> None:
    """As the page with script does, beside each of a spectator's lines (by the handle they go by)."""
    ada = Client()
    game = create(ada, name="Ada", mode="online", chat_spectators="on")
    watcher = Client()
    post_form(watcher, game, "chat", {**table_of(watcher, game).form_to("chat")["fields"], "text": "Go Ada"})
    services.chat_post(code=game.code, controller=ada.session["controller"], text="Thanks")
    assert seat_buttons(table_of(watcher, game), "mute_spectator") == {}  # the host's tool alone
    mute = seat_buttons(table_of(ada, game), "mute_spectator")
    [(button, fields)] = mute.items()  # on the spectator's line, not on the host's own
    assert fields["spectator"] == selectors.spectator_handle(game.code, watcher.session["controller"])
    post_form(ada, game, "mute_spectator", fields)
    game.refresh_from_db()
    assert watcher.session["controller"] in game.room.muted_spectators
    assert "The host has muted your chat in this room." in table_of(watcher, game).text
    host = table_of(ada, game)
    assert "chat muted" in host.text and seat_buttons(host, "mute_spectator") == {}
    [fields] = seat_buttons(host, "unmute_spectator").values()
    post_form(ada, game, "unmute_spectator", fields)
    game.refresh_from_db()
    assert watcher.session["controller"] not in game.room.muted_spectators
    before = stored(game)
    table = post_form(ada, game, "unmute_spectator", {**fields, "version": str(before[0]), "action_id": "u-2"})
    assert table.messages == ["That spectator is not muted."] and stored(game) == before


@pytest.fixture
def reactions(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The reaction frames the room is told."""
    from games.services import chat

    told: list[dict[str, Any]] = []
    tell = chat.events.tell

    def record(code: str, frame: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        if frame.get("type") == "reaction":
            told.append(frame)
        tell(code, frame, *args, **kwargs)

    monkeypatch.setattr(chat.events, "tell", record)
    return told


def test_a_player_without_script_sends_a_reaction_as_the_socket_does(
    reactions: list[dict[str, Any]], settings: Any
) -> None:
    settings.REACTION_RATE = "3/60"  # a refused one counts, as a socket's does
    ada, ben, game = two_playing()
    react = seat_buttons(table_of(ben, game), "react")
    assert [b["reaction"] for b in react.values()] == ["👍", "🎲", "😮", "😂", "😢", "👏"]
    assert 'aria-label="React 👍"' in ben.get(f"/r/{game.code}/").content.decode()
    assert seat_buttons(table_of(Client(), game), "react") == {}  # a spectator has none
    before = stored(game)
    page = page_after(ben, game, "react", {**react["ns-react-0"], "action_id": "r-0", "reaction": "🦄"})
    assert "Reactions are one of" in html.unescape(page) and reactions == []
    table = post_form(ben, game, "react", react["ns-react-1"])
    assert reactions == [{"type": "reaction", "seat": 1, "reaction": "🎲"}] and table.messages == []
    # Sent twice (a double click): once, and it does not count against the limit twice.
    assert post_form(ben, game, "react", react["ns-react-1"]).messages == []
    post_form(ben, game, "react", {**react["ns-react-0"], "action_id": "r-2"})
    assert [r["reaction"] for r in reactions] == ["🎲", "👍"]
    table = post_form(ben, game, "react", {**react["ns-react-0"], "action_id": "r-3"})
    assert table.messages == ["You are reacting quickly: wait a moment before the next reaction."]
    assert len(reactions) == 2 and stored(game) == before  # a reaction is not stored


def test_a_muted_player_without_script_has_no_reactions_and_one_sent_is_refused(reactions: list[Any]) -> None:
    ada, ben, game = two_playing()
    react = seat_buttons(table_of(ben, game), "react")
    services.seat_mute(
        code=game.code, controller=ada.session["controller"], seat=1, expected_version=None, action_id="m"
    )
    assert seat_buttons(table_of(ben, game), "react") == {}
    table = post_form(ben, game, "react", react["ns-react-0"])
    assert table.messages == ["The host has muted you in this room: no chat and no reactions."]
    assert reactions == []


@pytest.mark.usefixtures("limit_clock")
def test_form_posts_count_as_a_sockets_frames_a_second(settings: Any) -> None:
    """A page without script plays no faster than a socket may: each post is a frame against the
    browser's WS_RATE_LIMIT a second (a loop of pause and resume would grow the Move log)."""
    ada, ben, game = two_playing()
    settings.WS_RATE_LIMIT = 2
    post_form(ada, game, "pause", {"version": str(stored(game)[0]), "action_id": "p-1"})
    post_form(ada, game, "resume", {"version": str(stored(game)[0]), "action_id": "r-1"})
    before = stored(game)
    table = post_form(ada, game, "pause", {"version": str(before[0]), "action_id": "p-2"})
    assert table.messages == ["Too many actions at once: slow down a little."]
    assert stored(game) == before and not game.room.paused
    # Another browser's forms are its own.
    assert (
        "Ben: hello"
        in post_form(ben, game, "chat", {"version": str(before[0]), "action_id": "c", "text": "hello"}).text
    )


@pytest.mark.usefixtures("limit_clock")
@pytest.mark.parametrize(
    ("action", "fields"),
    [("mute", {"seat": "1"}), ("react", {"reaction": "👍"}), ("hint", {}), ("leave", {"seat": "0"})],
)
def test_the_host_tools_reactions_and_hints_without_script_count_as_frames_too(
    settings: Any, action: str, fields: dict[str, str]
) -> None:
    ada, ben, game = two_playing()
    settings.WS_RATE_LIMIT = 1
    post_form(ada, game, "roll", {"version": str(stored(game)[0]), "action_id": "r-1"})
    before = stored(game)
    table = post_form(ada, game, action, {"version": str(before[0]), "action_id": "x-1", **fields})
    assert table.messages == ["Too many actions at once: slow down a little."]
    game.refresh_from_db()
    assert stored(game) == before and not game.room.seats[1].muted and game.room.seats[0].active


@pytest.mark.usefixtures("limit_clock")
def test_form_posts_of_every_browser_at_an_address_count_against_its_frames_a_second(settings: Any) -> None:
    """Fresh sessions cost nothing: an address's form posts together count against
    WS_FRAMES_PER_ADDRESS a second, as its sockets' frames do."""
    ada, ben, game = two_playing()
    settings.WS_FRAMES_PER_ADDRESS = 2
    post_form(ada, game, "pause", {"version": str(stored(game)[0]), "action_id": "p-1"})
    post_form(ben, game, "chat", {"version": str(stored(game)[0]), "action_id": "c-1", "text": "hi"})
    before = stored(game)
    table = post_form(ada, game, "resume", {"version": str(before[0]), "action_id": "r-1"})
    assert table.messages == ["Too many actions at once: slow down a little."]
    assert stored(game) == before and game.room.paused


def ben_away() -> tuple[Client, Client, Game]:
    """Ada's started game with Ben, whose page has gone (no socket, no page loaded lately)."""
    from games.store.models import Presence

    ada, ben, game = two_playing()
    Presence.objects.filter(controller=ben.session["controller"]).delete()
    return ada, ben, game


def test_the_host_without_script_hands_an_away_players_seat_to_a_computer() -> None:
    ada, ben, game = ben_away()
    table = table_of(ada, game)
    assert "Ben is away: you may let a computer play their seat, take them out, or wait." in table.text
    assert list(tools(table)) == ["ns-replace-1", "ns-remove-1", "ns-leave-0"]  # and her own Leave
    assert tools(table_of(Client(), game)) == {}
    table = answer(ada, game, table, "ns-replace-1")
    game.refresh_from_db()
    assert game.room.seats[1].kind == "bot" and "is away" not in table.text
    assert "The computer is playing for Ben." in table_of(ben, game).text


def test_the_host_without_script_takes_an_away_player_out() -> None:
    ada, ben, game = ben_away()
    answer(ada, game, table_of(ada, game), "ns-remove-1")
    game.refresh_from_db()
    assert not game.room.seats[1].active


def test_a_player_who_just_went_away_is_not_offered_to_the_host_and_a_takeover_is_refused_with_why() -> None:
    from games.services import presence

    ada, ben, game = ben_away()
    presence.arrive(game.code, "ben-tab", ben.session["controller"])
    presence.leave("ben-tab")  # Ben's socket closed a moment ago: he gets the host's wait
    table = table_of(ada, game)
    assert "is away" not in table.text and list(tools(table)) == ["ns-leave-0"]
    before = stored(game)
    fields = {"version": str(game.version), "action_id": "x-1", "seat": "1"}
    for action in ("replace", "remove"):
        table = post_form(ada, game, action, fields)
        assert table.messages == [
            "Ben went away only a moment ago: their seat can be taken over once they have been away 15 seconds."
        ]
    assert stored(game) == before


@pytest.mark.parametrize(
    ("who", "fields", "said"),
    [
        ("ben", {"seat": "0"}, "Only the host can do that."),  # the host is here
        ("ada", {"seat": "0"}, "That is your own seat."),
        ("ada", {"seat": "5"}, "There is no seat 5 in this room."),
        ("ada", {"seat": "1", "level": "godlike"}, "Bots play at one of these levels: optimal, casual, beginner."),
        ("ada", {"seat": "1", "version": "1"}, "The table changed just before your move"),
    ],
)
def test_an_away_seat_tool_refused_without_script_says_why_and_stores_nothing(
    who: str, fields: dict[str, str], said: str
) -> None:
    ada, ben, game = ben_away()
    online(game.code, ben.session["controller"])  # Ben back: his seat is not the host's to hand over
    client = {"ada": ada, "ben": ben}[who]
    before = stored(game)
    page = page_after(client, game, "replace", {"version": str(game.version), "action_id": "t-1", **fields})
    assert said in html.unescape(page)
    assert stored(game) == before


def test_while_the_host_is_away_a_player_without_script_gets_the_tools_and_becomes_the_host() -> None:
    from games.store.models import Presence

    ada, ben, game = two_playing()
    post_form(ada, game, "pause", table_of(ada, game).form_to("pause")["fields"])
    Presence.objects.filter(controller=ada.session["controller"]).delete()  # Ada's page gone, for good
    table = table_of(ben, game)
    assert "The host is away: you may resume the game, and you become the host." in table.text
    post_form(ben, game, "resume", table.form_to("resume")["fields"])
    game.refresh_from_db()
    assert not game.room.paused and game.host_id == game.room.seats[1].player


@pytest.fixture(scope="session")
def official_table() -> None:
    """The coach's exact table, built (or loaded) once."""
    import bots

    bots.tables.table("official", build=True)


def test_the_player_to_move_without_script_asks_the_coach_for_a_hint(official_table: None, settings: Any) -> None:
    """The page with script's Hint, as a form: the coach's best choices for the roll on the table,
    said on the page the post goes back to, until the table moves on."""
    settings.WS_HINT_RATE = "2/60"
    ada = Client()
    game = create(ada, name="Ada", mode="online", hints="on")
    post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    assert not any(f["action"].endswith("/hint") for f in table_of(ada, game).forms)  # roll first
    table = post_form(ada, game, "roll", table_of(ada, game).form_to("roll")["fields"])
    ask = table.form_to("hint")
    assert [b["id"] for b in ask["buttons"]] == ["ns-hint"] and "Coach:" not in table.text
    assert not any(f["action"].endswith("/hint") for f in table_of(Client(), game).forms)
    before = stored(game)
    table = post_form(ada, game, "hint", ask["fields"])
    assert table.messages == [] and stored(game) == before  # a hint is a read
    page = ada.get(f"/r/{game.code}/").content.decode()
    coach = re.search(r'<div class="ns-hint" id="ns-hint-box"[^>]*>(.*?)</div>', page, re.S)
    assert coach is not None and "Coach:" in coach.group(1)
    choices = re.findall(r"<li[^>]*>(.*?)</li>", coach.group(1), re.S)
    said = r"(Keep .* and roll again|Reroll all five dice|Score \d+ in )"
    assert choices and all(re.search(said, choice) for choice in choices)
    assert all("≈" in c for c in choices), choices
    assert not any(f["action"].endswith("/hint") for f in table_of(ada, game).forms)  # answered
    # Counted as the socket's hints are: one past WS_HINT_RATE is refused in the reader's words.
    post_form(ada, game, "hint", {**ask["fields"], "action_id": "h-2"})
    table = post_form(ada, game, "hint", {**ask["fields"], "action_id": "h-3"})
    assert table.messages == ["You have asked the coach often: wait a moment before asking again."]
    # The table moves on: the answer is for the roll it was given for only.
    table = post_form(ada, game, "roll", table_of(ada, game).form_to("roll")["fields"])
    assert "Coach:" not in table.text and table.form_to("hint")
    # A form of the roll before is stale.
    settings.WS_HINT_RATE = "10/60"
    table = post_form(ada, game, "hint", {**ask["fields"], "action_id": "h-4"})
    assert table.messages == ["The table changed just before your move: have a look and try again."]


def test_a_hint_asked_while_the_coach_gets_ready_says_so_and_may_be_asked_again() -> None:
    from games.web import noscript

    ada = Client()
    game = create(ada, name="Ada", mode="online", hints="on")
    post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    post_form(ada, game, "roll", table_of(ada, game).form_to("roll")["fields"])
    game.refresh_from_db()
    state = game_state(game)
    waiting = {"type": "hint", "version": game.version, "ready": False, "eta": 12, "options": []}
    view = noscript.table(state, [0], "ns-1", hint=waiting)
    assert view["hint"] == {"ready": False, "text": "The computer is getting ready (about 12\u00a0s)."}
    assert view["hint_offered"]
    older = noscript.table(state, [0], "ns-1", hint={**waiting, "version": game.version - 1})
    assert older["hint"] is None and older["hint_offered"]


@pytest.mark.parametrize("ruleset", ["official", "triple"])
@pytest.mark.parametrize("bonus", [0, 100])
def test_the_coachs_choice_to_score_is_one_sentence_to_translate(
    monkeypatch: pytest.MonkeyPatch, ruleset: str, bonus: int
) -> None:
    """Another language puts the column and the Yahtzee bonus where its own order says them: the
    coach's choice to score a box, on the table without script and in the review, is one message
    with placeholders for each case, not a sentence with pieces put after it."""
    from games.domain.rules import RULESETS
    from games.services import coach, words
    from games.web import noscript

    ada = Client()
    game = create(ada, name="Ada", mode="online", ruleset=ruleset)
    post_form(ada, game, "start", table_of(ada, game).form_to("start")["fields"])
    post_form(ada, game, "roll", table_of(ada, game).form_to("roll")["fields"])
    Game.objects.filter(pk=game.pk).update(hints=True)
    game.refresh_from_db()
    state = game_state(game)
    # Each message is marked [...]: a line built of one message is one [...].
    for module in (noscript, coach, words):
        monkeypatch.setattr(module, "gettext", lambda text: f"[{text}]", raising=False)
    column = 2 if ruleset == "triple" else 0
    choice = {"box": "sixes", "column": column, "points": 30, "bonus": bonus}
    hint = {"type": "hint", "version": game.version, "options": [{"kind": "score", **choice, "expected": 250.0}]}
    said = [
        noscript.table(state, [0], "ns-1", hint=hint)["hint"]["choices"][0]["text"],
        coach.choice_text(RULESETS[ruleset], choice),
    ]
    for line in said:
        assert re.fullmatch(r"\[[^][]*\]", line), line
        assert line.startswith("[Score 30 in Sixes") and ("(×3)" in line) == (ruleset == "triple"), line
        assert ("plus 100 Yahtzee bonus" in line) == bool(bonus), line


@pytest.mark.parametrize(
    ("who", "said"),
    [("ben", "Hints are for the player whose turn it is."), ("off", "Hints are turned off in this room.")],
)
def test_a_hint_the_page_does_not_offer_is_refused_with_why(who: str, said: str) -> None:
    ada, ben, game = two_playing()  # a room without hints
    if who == "ben":
        Game.objects.filter(pk=game.pk).update(hints=True)
    post_form(ada, game, "roll", table_of(ada, game).form_to("roll")["fields"])
    game.refresh_from_db()
    assert not any(f["action"].endswith("/hint") for f in table_of(ben if who == "ben" else ada, game).forms)
    client = ben if who == "ben" else ada
    table = post_form(client, game, "hint", {"version": str(game.version), "action_id": "h-1"})
    assert table.messages == [said] and "Coach:" not in table.text


def chat_count(game: Game) -> int:
    return game.chat.count()


def test_a_player_without_script_reads_the_chat_and_posts_a_line_once() -> None:
    ada, ben, game = two_playing()
    services.chat_post(code=game.code, controller=ada.session["controller"], text="Good luck!")
    assert "Ada: Good luck!" in table_of(ben, game).text
    chat = writing_of(ben, game).form_to("chat")
    assert chat["buttons"][0]["id"] == "ns-chat-send" and chat["fields"]["version"] == str(game.version)
    response = ben.post(f"/r/{game.code}/chat", {**chat["fields"], "text": "  You too  "})
    assert response["Location"] == f"/r/{game.code}/#ns-chat"  # the page opens at the chat
    assert "Ben: You too" in table_of(ada, game).text
    # The same form sent again (a double click, a reload): the line is not posted twice.
    table = post_form(ben, game, "chat", {**chat["fields"], "text": "You too"})
    assert chat_count(game) == 2 and "That message was already sent." in table.text
    assert 'value="You too"' not in ben.get(f"/r/{game.code}/").content.decode()  # nothing to send again
    # A chat line is no move: it is not refused for the table having moved on.
    post_form(ada, game, "roll", table_of(ada, game).form_to("roll")["fields"])
    post_form(ben, game, "chat", {**chat["fields"], "action_id": "another", "text": "Nice roll"})
    assert chat_count(game) == 3


def test_a_shared_device_without_script_says_which_seat_speaks() -> None:
    device = Client()
    game = create(device, mode="local", players="2", player_1="Ann", player_2="Ben")
    page = device.get(f"/r/{game.code}/").content.decode()
    assert '<select id="ns-chat-seat" name="seat"><option value="0">Ann</option><option value="1">Ben</option>' in page
    post_form(device, game, "chat", {"version": str(game.version), "action_id": "c-1", "seat": "1", "text": "Hi"})
    assert "Ben: Hi" in table_of(device, game).text


@pytest.mark.parametrize(
    ("fields", "said", "kept"),
    [
        ({"text": "   "}, "A chat message needs some text.", ""),
        ({"text": None}, "A chat message needs some text.", ""),
        ({"text": "x" * 301}, "A chat message is at most 300 characters: this one has 301.", "x" * 301),
        ({"text": "hi", "seat": "0"}, "You can only speak for your own seat.", "hi"),
        ({"text": "hi", "seat": "9"}, "You can only speak for your own seat.", "hi"),
        ({"text": "hi", "seat": "first"}, "did not say which seat", "hi"),
        ({"text": "a\x00b"}, "NUL", ""),
    ],
)
def test_a_chat_line_refused_without_script_says_why_beside_the_field_keeps_it_and_posts_nothing(
    fields: dict[str, Any], said: str, kept: str
) -> None:
    ada, ben, game = two_playing()
    data = {"version": str(game.version), "action_id": "c-1", **fields}
    page = page_after(ben, game, "chat", {k: v for k, v in data.items() if v is not None})
    error = re.search(r'<p class="error" id="ns-chat-error" role="alert">([^<]*)</p>', page)
    assert error is not None and said in html.unescape(error.group(1))
    assert 'aria-invalid="true"' in page and 'aria-describedby="ns-chat-limit ns-chat-error"' in page
    assert '<meta http-equiv="refresh"' not in page  # the line given back is not reloaded away
    if kept:
        assert f'value="{kept}"' in page
    assert chat_count(game) == 0
    # Said once: the page after it has the field empty again.
    assert 'id="ns-chat-error"' not in ben.get(f"/r/{game.code}/").content.decode()
    # The same form put right is sent (a refused form's id is not spent).
    post_form(ben, game, "chat", {"version": str(game.version), "action_id": "c-1", "text": "fine"})
    assert chat_count(game) == 1


def test_a_chat_line_far_over_what_a_frame_holds_is_refused_before_its_characters_are_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A form's line is as long as the body Django takes (2.5 MB), a socket's at most a frame's 4096
    # bytes: reading each character of such a line held the worker's thread for seconds.
    read = 0
    as_shown = chat_service._as_shown

    def counted(char: str) -> str:
        nonlocal read
        read += 1
        return as_shown(char)

    monkeypatch.setattr(chat_service, "_as_shown", counted)
    ada, ben, game = two_playing()
    for poster in (ben, Client()):  # a player, and a stranger to a players-only chat
        fields = {"version": str(game.version), "action_id": "c-1", "text": "x" * 2_000_000}
        page = page_after(poster, game, "chat", fields)
        assert "A chat message is at most 300 characters: this one has 2000000." in html.unescape(page)
    assert read <= 2 * MAX_FRAME_BYTES, f"{read} characters read of two lines refused for their length"
    assert chat_count(game) == 0


def test_a_muted_player_and_a_spectator_of_a_players_only_chat_are_told_and_post_nothing() -> None:
    ada, ben, game = two_playing()
    services.seat_mute(
        code=game.code, controller=ada.session["controller"], seat=1, expected_version=None, action_id="m"
    )
    table = table_of(ben, game)
    assert "The host has muted your chat in this room." in table.text
    assert not any(f["action"].endswith("/chat") for f in table.forms)
    fields = {"version": str(game.version), "action_id": "c-1", "text": "hello?"}
    assert "The host has muted your chat in this room." in page_after(ben, game, "chat", fields)
    stranger = Client()
    assert "Only the players post in this room's chat; you can read it." in html.unescape(table_of(stranger, game).text)
    assert "Only the players can post in this room" in html.unescape(page_after(stranger, game, "chat", fields))
    assert chat_count(game) == 0


def test_a_spectator_without_script_posts_where_the_room_lets_them() -> None:
    ada = Client()
    game = create(ada, name="Ada", mode="online", chat_spectators="on")
    watcher = Client()
    chat = table_of(watcher, game).form_to("chat")
    post_form(watcher, game, "chat", {**chat["fields"], "text": "Go Ada"})
    message = game.chat.get()
    assert message.seat is None and message.text == "Go Ada" and message.controller == watcher.session["controller"]


def test_chat_without_script_counts_against_the_sockets_limit(settings: Any) -> None:
    settings.CHAT_RATE = "2/60"
    ada, ben, game = two_playing()
    for n in range(2):
        post_form(ben, game, "chat", {"version": str(game.version), "action_id": f"c-{n}", "text": f"line {n}"})
    page = page_after(ben, game, "chat", {"version": str(game.version), "action_id": "c-2", "text": "line 2"})
    assert chat_count(game) == 2
    assert "You are posting quickly: wait a moment before the next message." in page
    assert 'value="line 2"' in page  # kept, to be sent once the limit lets it


def test_a_chat_form_sent_twice_counts_once_against_the_chat_limit(settings: Any) -> None:
    """A double click posts the line once (its form id): the second sending is no message, and
    does not use up the reader's next one."""
    settings.CHAT_RATE = "2/60"
    ada, ben, game = two_playing()
    first = {"version": str(game.version), "action_id": "c-0", "text": "line 0"}
    post_form(ben, game, "chat", first)
    assert "That message was already sent." in post_form(ben, game, "chat", first).text
    table = post_form(ben, game, "chat", {**first, "action_id": "c-1", "text": "line 1"})
    assert "Ben: line 1" in table.text and chat_count(game) == 2
    page = page_after(ben, game, "chat", {**first, "action_id": "c-2", "text": "line 2"})
    assert "You are posting quickly" in page and chat_count(game) == 2


def test_a_seat_tool_asks_first_and_a_question_the_table_no_longer_fits_is_said_stale() -> None:
    ada, ben, game = ben_away()
    table = table_of(ada, game)
    before = stored(game)
    pressed = tools(table)["ns-remove-1"]
    asked = ada.get(f"/r/{game.code}/", pressed).content.decode()
    assert "Take <bdi>Ben</bdi> out of the game? Their scores stay on the card." in html.unescape(asked)
    assert f'href="/r/{game.code}/" id="ns-ask-no"' in asked  # Cancel: back to the table
    assert stored(game) == before  # asking changes nothing
    for query in (
        {**pressed, "seat": "0"},  # the host's own seat: no tool for it
        {**pressed, "seat": "7"},
        {**pressed, "ask": "start"},
        {**pressed, "version": "1"},  # asked of an older table
    ):
        page = ada.get(f"/r/{game.code}/", query).content.decode()
        assert 'id="ns-ask-stale"' in page and 'id="ns-ask"' not in page, query
    # Ben cannot be asked about his own seat, nor a stranger about anyone's.
    for client in (ben, Client()):
        page = client.get(f"/r/{game.code}/", pressed).content.decode()
        assert 'id="ns-ask"' not in page
    assert stored(game) == before


def test_a_question_the_table_moved_past_is_said_stale_once_not_at_each_reload() -> None:
    """The host's page in the lobby reloads itself while it waits for joins, a question open too
    (each load keeps the host at the table); a question gone stale is said once: the page then
    looks again at the table itself, not at the question the table moved past."""
    ada, ben, game = lobby_of_two()
    assert table_of(ada, game).refresh == "8"
    pressed = tools(table_of(ada, game))["ns-kick-1"]
    asked = NoScriptPage(ada.get(f"/r/{game.code}/", pressed).content.decode())
    assert "Remove Ben from the room?" in asked.text and (asked.refresh, asked.refresh_to) == ("8", "")
    post_form(Client(), game, "join", {"name": "Cy"})  # the table moves on while the question is open
    again = ada.get(f"/r/{game.code}/", pressed).content.decode()
    stale = NoScriptPage(again)
    assert 'id="ns-ask-stale"' in again
    assert stale.refresh == "8" and stale.refresh_to == f"/r/{game.code}/"
    assert table_of(ada, game).refresh_to == ""  # the table alone reloads its own address


def test_a_stranger_to_a_finished_game_is_not_told_its_chat_had_no_messages() -> None:
    """A finished game's chat is its players' alone: a stranger's page says so, not that nobody wrote."""
    ada, game = started()
    services.chat_post(code=game.code, controller=ada.session["controller"], text="Good game")
    play_to_the_end(ada, game)
    stranger = html.unescape(table_of(Client(), game).text)
    assert "This game's chat is its players' alone." in stranger
    assert "No messages yet." not in stranger and "Good game" not in stranger
    assert "Ada: Good game" in table_of(ada, game).text


def test_a_player_who_left_a_finished_game_reads_its_chat_and_is_told_why_he_may_not_post() -> None:
    """Ben left, and Ada played the game to its end: its chat is still his to read (the server sends it to him),
    and his page says he no longer posts there, not that the chat is its players' alone."""
    ada, ben, game = two_playing()
    services.chat_post(code=game.code, controller=ben.session["controller"], text="gotta go")
    services.game_leave(
        code=game.code, controller=ben.session["controller"], seat=1, expected_version=None, action_id="ben-leaves"
    )
    play_to_the_end(ada, game)
    game.refresh_from_db()
    assert game.is_over
    services.chat_post(code=game.code, controller=ada.session["controller"], text="bye Ben")
    page = table_of(ben, game)
    said = html.unescape(page.text)
    assert "Ben: gotta go" in said and "Ada: bye Ben" in said
    assert "You are no longer a player in this game: you can read its chat but not post to it." in said
    assert "players' alone" not in said and "No messages yet." not in said
    assert not any(f["action"].endswith("/chat") for f in page.forms)


def test_chat_without_script_still_posts_while_the_shared_cache_is_away(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache that remembers a chat form's id (Redis) out of reach: the line is posted, as a
    socket's is, not answered with a server error; a refused one is still said beside the field."""
    from redis.exceptions import ConnectionError as RedisDown

    from games.web import views

    class Away:
        def add(self, *args: Any, **kwargs: Any) -> bool:
            raise RedisDown("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

        delete = add

    ada, ben, game = two_playing()
    monkeypatch.setattr(views, "cache", Away())
    table = post_form(ben, game, "chat", {"version": str(game.version), "action_id": "c-1", "text": "Still here"})
    assert "Ben: Still here" in table.text and chat_count(game) == 1
    page = page_after(ben, game, "chat", {"version": str(game.version), "action_id": "c-2", "text": " "})
    assert "A chat message needs some text." in page and chat_count(game) == 1


def test_the_card_without_script_says_why_the_joker_closes_a_box_as_the_page_with_script_does() -> None:
    """Five sixes with Yahtzee's box filled: the joker rule says they go in Sixes. The page with
    script marks every other open box ✕ with the reason; the page without script says the same
    (each closed box, to a screen reader, and the reason once under the card), and the score
    button's label, bonus and all, is one sentence."""
    ada, game = started()
    post_form(ada, game, "roll", table_of(ada, game).form_to("roll")["fields"])
    game.refresh_from_db()
    data = game.snapshot
    data["rules"]["turn"]["dice"] = [6, 6, 6, 6, 6]
    data["rules"]["cards"][0]["columns"][0] = [["yahtzee", 50]]
    game.snapshot = data
    game.version += 1
    game.save(update_fields=["snapshot", "version"])
    page = ada.get(f"/r/{game.code}/").content.decode()
    table = NoScriptPage(page)
    assert set(table.scores()) == {"ns-score-sixes-0"}
    assert table.scores()["ns-score-sixes-0"]["label"] == "Score Sixes for 30 points plus a 100 Yahtzee bonus"
    reason = "Joker rule: five 6s must go in the open Sixes box."
    assert page.count(f"Chance: not allowed. {reason}") == 1, page
    assert page.count('<span class="ns-closed"') == 11  # every other open box
    assert re.search(rf'<p class="ns-closed-why[^"]*"><span aria-hidden="true">✕</span> {re.escape(reason)}</p>', page)


def test_the_player_whose_seat_a_computer_finished_reads_you_win_at_the_end(settings: Any) -> None:
    """P0 went away (two timeouts) and a computer finished the seat; P1 left: P0's seat wins, and is
    P0's result (``Room.seats_kept_for``). P0's browser, back at the table without script, reads
    "You win!" as the page with script says it; P1, who left, and a spectator read P0's name."""
    import random

    import bots
    from games.scheduling import botplay
    from tests.factories import play_turn, timed_room
    from tests.services.test_away_seats import run_out

    bots.tables.table("official", build=True)
    table = timed_room(2)
    p0, p1 = table.controllers
    rng = random.Random(1)
    for _ in range(2):  # P0's turn runs out twice in a row: a computer plays the seat from then on
        assert services.clock_expire(code=table.code, version=run_out(table))
        if table.game.room.rules.current == 1:
            play_turn(table, rng, 0)
    services.game_leave(code=table.code, controller=p1, seat=1, expected_version=table.version(), action_id="bye")
    while table.game.status == Game.Status.PLAYING:
        assert botplay.step(table.code, table.version())
    game = table.game
    assert game.room.winners() == [0] and game.room.finished_for(0)

    def reader(controller: str) -> Client:
        client = Client()
        session = client.session
        session["controller"] = controller
        session.save()
        return client

    def headline(client: Client) -> str:
        found = re.search(r'<h2 id="ns-h">(.*?)</h2>', client.get(f"/r/{game.code}/").content.decode())
        assert found
        return found.group(1)

    assert headline(reader(p0)) == "You win!"
    assert headline(reader(p1)) == headline(Client()) == "Game over"
    assert re.search(r"P0\W* wins!", table_of(Client(), game).text)


def test_the_final_order_without_script_says_which_seat_the_host_took_out_and_which_one_left() -> None:
    """Ann (the host) takes the absent P1 out and P2 leaves on his own: the game-over list says
    "taken out" for one and "left" for the other, as the page with script does."""
    table = open_room(3)
    online(table.code, table.controllers[0])
    services.game_remove_absent(
        code=table.code, controller=table.controllers[0], seat=1, expected_version=None, action_id="out"
    )
    services.game_leave(
        code=table.code, controller=table.controllers[2], seat=2, expected_version=None, action_id="bye"
    )
    game = play_to_end(table, random.Random(4))
    said = html.unescape(table_of(Client(), game).text)
    assert re.search(r"\d\. P1 \(taken out\): \d+ points?", said), said
    assert re.search(r"\d\. P2 \(left\): \d+ points?", said), said


def _marks_said(game: Game, controller: str) -> dict[str, tuple[str, str, str]]:
    """Each seat's mark of why it ranks behind ("" for none), as the no-script game-over list, Your
    games' finished row and the game-over notice say it: by name, the three in that order."""
    table = html.unescape(table_of(Client(), game).text)
    guest = Client()
    guest.get("/")
    session = guest.session
    session["controller"] = controller
    session.save()
    page = guest.get("/games").content.decode()
    row = page[page.index(f'data-code="{game.code}"') :]
    row = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", row[: row.index("</li>")])))
    line = notices.the_end(game, "https://yahtzee.example.org/r/x/", "en").line
    said = {}
    for seat in game.room.seats:
        name = re.escape(seat.name)
        in_table = re.search(rf"\d\. {name}(?: \(([^)]*)\))?: \d+ points?", table)
        in_row = re.search(rf"\d\. {name} \d+ points?(?: \(([^)]*)\))?", row)
        in_line = re.search(rf"\d\. {name}(?: \(([^)]*)\))?: \d+", line)
        assert in_table and in_row and in_line, (seat.name, table, row, line)
        marks = [found.group(1) or "" for found in (in_table, in_row, in_line)]
        said[seat.name] = (marks[0], "" if marks[1] == "you" else marks[1], marks[2])
    return said


def test_the_no_script_game_over_list_marks_the_seats_ranked_behind_as_your_games_and_the_notice_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Why a seat ranks after those who stayed is said from one source (``Room.standings``, worded
    by ``words.behind``): the no-script list, Your games and the game-over notice agree on it."""
    table = open_room(4)
    game = play_to_end(table, random.Random(4))
    game.room = ranked_behind_for_each_reason(game.room)
    game.save()
    said = _marks_said(game, table.controllers[0])
    assert said == {
        "P0": ("", "", ""),
        "P1": ("taken out", "taken out", "taken out"),
        "P2": ("left", "left", "left"),
        "P3": ("away", "away", "away"),
    }, said
    # Whatever the room says of a seat, the three say it alike.
    monkeypatch.setattr(Room, "ranked_behind", lambda room, index: ("left", "", "away", "taken_out")[index])
    said = _marks_said(game, table.controllers[0])
    assert said == {
        "P0": ("left", "left", "left"),
        "P1": ("", "", ""),
        "P2": ("away", "away", "away"),
        "P3": ("taken out", "taken out", "taken out"),
    }, said


def test_a_visitor_to_a_lobby_with_no_seat_to_take_is_told_why_without_script_too() -> None:
    """A visitor at a full lobby has no seat to take: the table without script says the room is
    full, as the page with script does, and does not add "Without a seat you can watch", as if one
    were there to take."""
    ada = Client()
    game = create(ada, name="Ada", mode="online")
    for i in range(1, 8):
        services.game_join(code=game.code, name=f"P{i}", controller=services.new_controller())
    full = table_of(Client(), game)
    assert "join" not in [f["action"].rsplit("/", 1)[1] for f in full.forms]
    assert "The room is full (8 players): you can watch." in full.text
    assert "Without a seat you can watch." not in full.text
    # Beside a seat to take, the line still says the visitor may watch instead.
    one = create(Client(), name="Cy", mode="online")
    assert "Without a seat you can watch." in table_of(Client(), one).text


@pytest.mark.parametrize("body", [b"text=hi%ED%A0%80", b"text=%FF", b"text=a%C0%80b"])
def test_a_chat_line_posted_in_bytes_that_are_not_utf8_is_refused_and_stores_nothing(body: bytes) -> None:
    """A lone surrogate (or any byte that is no UTF-8) reaches a form's field as U+FFFD, a letter
    lost on the way: the line is refused as a frame holding one is, not stored as mangled text."""
    ada, game = started()
    before = stored(game)
    response = ada.generic(
        "POST",
        f"/r/{game.code}/chat",
        body + b"&action_id=c-1",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 302
    assert "was not UTF-8" in html.unescape(ada.get(response["Location"]).content.decode())
    assert not ChatMessage.objects.filter(game=game).exists() and stored(game) == before
    # The same line typed again as text is posted.
    post_form(ada, game, "chat", {"text": "hi \ufffd", "action_id": "c-2"})
    assert list(ChatMessage.objects.filter(game=game).values_list("text", flat=True)) == ["hi \ufffd"]


def test_a_chat_line_posted_as_multipart_in_bytes_that_are_not_utf8_is_refused_too() -> None:
    """The same line as a multipart form, past the CSRF check (which reads the fields first, so
    that the raw body can no longer be read): refused as the urlencoded one is, not stored mangled."""
    ada, game = started()
    ada.handler.enforce_csrf_checks = True
    ada.get(f"/r/{game.code}/")
    token = ada.cookies["csrftoken"].value
    before = stored(game)
    boundary = b"XyZ"
    parts = [(b"csrfmiddlewaretoken", token.encode()), (b"text", b"hi \xed\xa0\x80"), (b"action_id", b"c-1")]
    body = b"".join(
        b"--" + boundary + b'\r\nContent-Disposition: form-data; name="' + name + b'"\r\n\r\n' + value + b"\r\n"
        for name, value in parts
    )
    response = ada.generic(
        "POST",
        f"/r/{game.code}/chat",
        body + b"--" + boundary + b"--\r\n",
        content_type="multipart/form-data; boundary=XyZ",
    )
    assert response.status_code == 302
    assert "was not UTF-8" in html.unescape(ada.get(response["Location"]).content.decode())
    assert not ChatMessage.objects.filter(game=game).exists() and stored(game) == before


@pytest.mark.redis
def test_a_browsers_form_posts_count_against_its_frame_limit_across_worker_processes(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two worker processes (two limiters) sharing Redis: the posts one browser spreads over them
    count together, as its socket's frames would on the one worker its room's sockets reach."""
    import os

    from games.realtime import limits
    from tests.conftest import ManualClock

    ada, game = started()
    settings.RATE_LIMIT_REDIS_URL = os.environ["REDIS_URL"]
    settings.WS_RATE_LIMIT = 2
    clock = ManualClock()
    workers = [limits.Limiter(), limits.Limiter()]
    for worker in workers:
        worker.clock = clock

    def roll_on(worker: limits.Limiter) -> bool:
        """Ada's roll posted to ``worker``'s process: whether it was played."""
        monkeypatch.setattr(limits, "limiter", worker)
        before = stored(game)
        ada.post(f"/r/{game.code}/roll", {"version": game.version, "action_id": f"r-{before[0]}"})
        return stored(game) != before

    assert [roll_on(workers[0]), roll_on(workers[1])] == [True, True]
    assert not roll_on(workers[0]) and not roll_on(workers[1])
    clock.advance(1.01)
    assert roll_on(workers[1])


def test_the_result_without_script_marks_the_readers_own_row_as_the_page_with_script_does() -> None:
    """ "you" beside this browser's own row (a seat a computer finished for its away player too, its
    result being theirs), and on no row of a device that played every seat, nor of a spectator's:
    the rule of the game-over list with script (static/js/room/over.js)."""
    import random

    from games.web import noscript
    from tests.factories import open_room, play_to_end

    table = open_room(3)
    game = play_to_end(table, random.Random(5), rerolls=0)
    state = game_state(game)

    def marked(mine: list[int]) -> list[int]:
        view = noscript.table(state, mine, "ns-test", standings=game.room.standings())
        return sorted(row["seat"] for row in view["results"] if row["you"])

    assert marked([1]) == [1]
    assert marked([0, 2]) == [0, 2]  # a device of two of the three seats: each of its own
    assert marked([0, 1, 2]) == []  # the device played every seat
    assert marked([]) == []  # a spectator
    # A seat a computer finished for its away player is still theirs: marked on their device.
    state["seats"][1] = {**state["seats"][1], "kind": "bot", "kept": True}
    assert marked([1]) == [1]
    assert marked([0, 1, 2]) == []
    # Drawn on the page: the row's name, then its "you".
    ben = Client()
    session = ben.session
    session["controller"] = table.controllers[1]
    session.save()
    ranked = re.search(r'<ol class="ns-results">(.*?)</ol>', ben.get(f"/r/{table.code}/").content.decode(), re.S)
    assert ranked
    rows = re.findall(r"<li>(.*?)</li>", ranked.group(1), re.S)
    assert [row for row in rows if 'class="tag you"' in row] == [r for r in rows if "<bdi>P1</bdi> <span" in r], rows
    assert len([row for row in rows if 'class="tag you"' in row]) == 1


SPECTATOR_WORDS = ("watch", "Without a seat", "you can read it", "Take a seat", "Your name")


def test_a_lobby_whose_every_seat_is_this_devices_says_nothing_to_it_of_watching() -> None:
    """A device holding every seat of a lobby (players added on it, the room full or not, the host's
    seat given up, or a rematch of a game on one device) is its players': no line tells it that it
    may watch without a seat, or that only the players post."""
    device = Client()
    game = create(device, name="Ada", mode="online")
    for i in range(7):
        post_form(device, game, "join", {"name": f"P{i}", "action_id": f"j-{i}"})
    game.refresh_from_db()
    assert len([s for s in game.room.seats if s.active]) == 8
    said = [table_of(device, game).text]
    post_form(device, game, "leave", {"version": str(stored(game)[0]), "seat": "0", "action_id": "l-0"})
    said.append(table_of(device, game).text)
    local = create(device, mode="local", players="1", player_1="Ann")
    play_to_the_end(device, local)
    rematch = Game.objects.get(code=device.post(f"/r/{local.code}/rematch")["Location"].strip("/").split("/")[-1])
    assert rematch.status == "lobby"
    said.append(table_of(device, rematch).text)
    for text in said:
        assert "Start game with" in text, text
        assert not [words for words in SPECTATOR_WORDS if words in text], text
    # A visitor is still told they may watch.
    assert "Without a seat you can watch" in table_of(Client(), game).text

"""Pages as a visitor uses them: no account, seats owned by the session, no finding a room without its code."""

from __future__ import annotations

import json
import random
import re
import unicodedata
from datetime import timedelta
from html import unescape

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from games import services
from games.realtime.broadcast import FEED_MOVES
from games.services import sweeps
from games.store.models import ChatMessage, Game, Move
from games.web.views import seed_owners
from tests.conftest import clear_cache
from tests.factories import (
    Table,
    action_id,
    create_room,
    online,
    open_room,
    play_to_end,
    play_turn,
    spectators_chat_room,
)

pytestmark = pytest.mark.django_db


def create(client: Client, name: str = "Ada", **extra: str) -> Game:
    response = client.post("/rooms/new", {"name": name, "ruleset": "official", "mode": "online", **extra})
    assert response.status_code == 302
    code = response["Location"].strip("/").split("/")[-1]
    return Game.objects.get(code=code)


def page_data(client: Client, game: Game) -> dict:
    """What the room page hands its script: the same state the socket sends, and this browser's seats."""
    page = client.get(f"/r/{game.code}/").content.decode()
    found = re.search(r'<script id="initial" type="application/json">(.*?)</script>', page, re.S)
    assert found
    return json.loads(found.group(1))


def post(client: Client, game: Game, action: str, **data: object) -> str:
    game.refresh_from_db()
    response = client.post(
        f"/r/{game.code}/{action}", {"version": game.version, "action_id": f"{action}-{game.version}", **data}
    )
    assert response.status_code == 302
    return client.get(f"/r/{game.code}/").content.decode()


def test_create_join_and_play_a_turn_through_the_pages() -> None:
    ada, bob = Client(), Client()
    game = create(ada, client_seed="abc123")
    page = ada.get(f"/r/{game.code}/").content.decode()
    assert game.code in page and game.seed_commitment in page and "js/room.js" in page
    data = page_data(ada, game)
    assert data["you"] == [0] and data["state"]["seats"][0]["host"] and data["state"]["status"] == "lobby"
    assert bob.post(f"/r/{game.code}/join", {"name": "Bob", "client_seed": "bob"}).status_code == 302
    assert page_data(bob, game)["you"] == [1]
    post(ada, game, "start")
    game.refresh_from_db()
    assert game.status == "playing" and game.client_seed == "abc123,bob"
    post(ada, game, "roll")
    assert page_data(ada, game)["state"]["turn"]["rolls_left"] == 2
    page = post(ada, game, "roll", held=["0", "1"])
    game.refresh_from_db()
    assert game.snapshot["rules"]["turn"]["held"] == [0, 1]
    assert [m.kind for m in game.moves.order_by("seq")][-3:] == ["roll", "hold", "roll"]
    post(ada, game, "score", box="chance", column="0")
    game.refresh_from_db()
    assert game.snapshot["rules"]["current"] == 1
    assert page_data(bob, game)["state"]["turn"]["seat"] == 1


def test_a_reload_keeps_the_seats_of_the_same_browser() -> None:
    ada = Client()
    game = create(ada)
    first = ada.get(f"/r/{game.code}/state.json").json()
    again = ada.get(f"/r/{game.code}/state.json").json()
    assert first["you"]["seats"] == again["you"]["seats"] == [0]
    assert Client().get(f"/r/{game.code}/state.json").json()["you"]["seats"] == []


def test_no_such_room_and_a_random_url_get_the_same_404() -> None:
    client = Client()
    create(Client())
    missing = client.get("/r/abcdefghjk/")
    assert missing.status_code == 404
    assert client.get("/r/abcdefghjk/state.json").status_code == 404
    assert client.post("/r/abcdefghjk/roll", {"version": 1}).status_code == 404
    assert client.get("/rooms/").status_code == 404  # no listing of rooms anywhere


def test_a_stranger_with_the_link_can_watch_but_not_act() -> None:
    ada, eve = Client(), Client()
    game = create(ada)
    post(ada, game, "start")
    before = Game.objects.get(pk=game.pk).version
    page = post(eve, game, "roll")
    assert "only seated players can act" in page
    assert Game.objects.get(pk=game.pk).version == before
    assert page_data(eve, game)["you"] == []


def test_a_stale_form_is_refused_with_a_clear_message() -> None:
    ada = Client()
    game = create(ada)
    post(ada, game, "start")
    game.refresh_from_db()
    ada.post(f"/r/{game.code}/roll", {"version": game.version, "action_id": "r1"})
    response = ada.post(f"/r/{game.code}/roll", {"version": game.version, "action_id": "r2"}, follow=True)
    # The page it lands on shows the table as it is now, and says so, not the versions' numbers.
    assert "The table changed just before your move: have a look and try again." in response.content.decode()
    assert Move.objects.filter(game=game, kind="roll").count() == 1


def test_bad_create_input_shows_the_form_again() -> None:
    response = Client().post("/rooms/new", {"name": "", "ruleset": "official", "mode": "online"})
    assert response.status_code == 400
    response = Client().post("/rooms/new", {"name": "Ada", "ruleset": "chess", "mode": "online"})
    assert response.status_code == 400
    assert Game.objects.count() == 0


@pytest.mark.parametrize(
    ("extra", "shown"),
    [
        ({"turn_timer": "45"}, "Choose one of the times offered."),  # a page from before the timers changed
        ({"ruleset": "yahtzee"}, "Choose one of the rule sets offered."),  # a rule set no longer offered
        ({"mode": "local", "players": "2", "bots": "1", "level": "expert"}, "Choose one of the computer levels"),
        ({"mode": "local", "players": "2", "player_2": "x" * 25}, "at most 24 characters"),
        ({"mode": "local", "players": "2", "player_2": "Bo\x00b"}, "Null characters are not allowed."),
        ({"mode": "elsewhere"}, "Choose how you play: online, or on this device."),
        ({"client_seed": "x" * 65}, "Something in the form was not what the game expected"),
    ],
    ids=["timer", "ruleset", "level", "player-name-long", "player-name-nul", "mode", "seed"],
)
def test_a_create_form_refused_for_any_field_says_why(extra: dict[str, str], shown: str) -> None:
    response = Client().post("/rooms/new", {"name": "Ada", "ruleset": "official", "mode": "online", **extra})
    assert response.status_code == 400
    said = re.findall(r'class="error"[^>]*role="alert"[^>]*>([^<]+)<', response.content.decode())
    assert said, "a 400 with no message on the page"
    assert any(shown in text for text in said), said
    assert not Game.objects.exists()


LOST_LETTER_REFUSED = "A name cannot hold �, the sign of a letter lost on the way: please type it again."


@pytest.mark.parametrize(
    ("body", "field", "shown"),
    [
        (b"mode=online&name=B%FFb", "name", LOST_LETTER_REFUSED),  # not UTF-8: U+FFFD once decoded
        (b"mode=local&players=2&player_1=Ann&player_2=%C0%80Bo", "player_2", LOST_LETTER_REFUSED),
        (b"mode=online&name=Bo%00b", "name", "Null characters are not allowed."),  # not also "enter your name"
    ],
    ids=["name-not-utf-8", "player-not-utf-8", "name-nul"],
)
def test_a_create_form_refuses_a_name_beside_it_for_what_is_wrong_with_it(body: bytes, field: str, shown: str) -> None:
    response = Client().post(
        "/rooms/new", body + b"&ruleset=official", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 400
    said = re.findall(r'class="error" id="([^"]+)" role="alert">([^<]+)<', response.content.decode())
    assert said == [(f"{field}-error", shown)]
    assert not Game.objects.exists()


@pytest.mark.parametrize(
    "extra",
    [
        {"level": "expert"},
        {"players": "2", "player_2": "x" * 27},
        {"pace": "live", "move_time": "soon"},
        {"pace": "own", "move_time": "86400", "turn_timer": "45"},
        {"mode": "local", "players": "2", "name": "x" * 25},
        {"mode": "local", "players": "2", "player_3": "x" * 27},
    ],
    ids=[
        "level-online",
        "names-online",
        "move-time-live",
        "timer-own",
        "name-local",
        "name-past-the-people",
    ],
)
def test_a_field_the_chosen_way_of_playing_does_not_use_never_refuses_the_form(extra: dict[str, str]) -> None:
    """home.js hides them and leaves them out of the post; a page without script sends them hidden."""
    response = Client().post("/rooms/new", {"name": "Ada", "ruleset": "official", "mode": "online", **extra})
    assert response.status_code == 302, re.findall(r'role="alert"[^>]*>([^<]+)<', response.content.decode())
    game = Game.objects.get()
    assert game.local == (extra.get("mode") == "local")
    assert game.pace == extra.get("pace", "live")
    if game.local:
        assert [s["name"] for s in game.snapshot["seats"]] == ["Player 1", "Player 2"]
    else:
        assert [s["name"] for s in game.snapshot["seats"]] == ["Ada"]


def test_a_game_on_one_device_at_your_own_pace_is_refused_above_the_form() -> None:
    """Without script the pace shows beside "Play on this device" (home.js hides it and leaves it
    out of the post): the pair is refused with its reason, above the form where script hides the pace."""
    data = {"ruleset": "official", "mode": "local", "pace": "own", "move_time": "86400"}
    response = Client().post("/rooms/new", data)
    assert response.status_code == 400
    top = re.search(r'<div class="error" id="form-errors" role="alert">([^<]+)<', response.content.decode())
    assert top and "A game played on one device is live" in top.group(1)
    assert not Game.objects.exists()


def test_play_on_this_device_starts_a_game_with_every_seat_in_one_browser() -> None:
    mum, kid = Client(), Client()
    response = mum.post(
        "/rooms/new",
        {"mode": "local", "ruleset": "yatzy", "players": "3", "player_1": "Mum", "player_2": "", "player_3": "Kid"},
    )
    assert response.status_code == 302
    game = Game.objects.get(code=response["Location"].strip("/").split("/")[-1])
    assert game.local and game.status == "playing" and game.ruleset == "yatzy"
    assert [s["name"] for s in game.snapshot["seats"]] == ["Mum", "Player 2", "Kid"]
    assert mum.get(f"/r/{game.code}/state.json").json()["you"]["seats"] == [0, 1, 2]
    assert kid.get(f"/r/{game.code}/state.json").json()["you"]["seats"] == []
    response = kid.post(f"/r/{game.code}/join", {"name": "Eve"}, follow=True)
    assert "already started" in response.content.decode()


def test_a_game_on_this_device_keeps_the_spectators_may_chat_box_ticked_on_the_form() -> None:
    """The "Spectators may post in the chat" box shows (and is posted) for "Play on this device"
    too: a friend watching on another device may then say something."""
    device = Client()
    response = device.post(
        "/rooms/new",
        {"mode": "local", "ruleset": "official", "players": "2", "hints": "on", "chat_spectators": "on"},
    )
    assert response.status_code == 302
    game = Game.objects.get()
    assert game.local
    assert game.chat_spectators, "the ticked box was dropped: spectators of this game cannot chat"
    services.chat_post(code=game.code, controller=services.new_controller(), text="nice roll!")
    assert ChatMessage.objects.filter(game=game, text="nice roll!").exists()


def test_play_on_this_device_needs_one_to_eight_distinct_players() -> None:
    client = Client()
    for data in ({"players": "0"}, {"players": "9"}, {"players": "2", "player_1": "Sam", "player_2": "sam"}):
        response = client.post("/rooms/new", {"mode": "local", "ruleset": "official", **data})
        assert response.status_code == 400
    assert Game.objects.count() == 0
    response = client.post("/rooms/new", {"mode": "local", "ruleset": "official", "players": "1"})
    assert response.status_code == 302
    assert Game.objects.get().snapshot["seats"][0]["name"] == "Player 1"


def test_an_online_room_can_add_players_on_the_same_device() -> None:
    mum, kid = Client(), Client()
    game = create(mum)
    mum.post(f"/r/{game.code}/join", {"name": "Kid"})
    kid.post(f"/r/{game.code}/join", {"name": "Eve"})
    assert mum.get(f"/r/{game.code}/state.json").json()["you"]["seats"] == [0, 1]
    assert kid.get(f"/r/{game.code}/state.json").json()["you"]["seats"] == [2]


def finish(client: Client, game: Game) -> None:
    while Game.objects.get(pk=game.pk).status == "playing":
        post(client, game, "roll")
        state = client.get(f"/r/{game.code}/state.json").json()
        open_box = next(o for o in state["options"] if o["legal"])
        post(client, game, "score", box=open_box["box"], column=str(open_box["column"]))


def test_rematch_opens_one_new_room_with_the_same_players_and_rules() -> None:
    ada, bob, eve = Client(), Client(), Client()
    game = create(ada)
    bob.post(f"/r/{game.code}/join", {"name": "Bob"})
    post(ada, game, "start")
    early = bob.post(f"/r/{game.code}/rematch", follow=True)
    assert "when the game is over" in early.content.decode()
    post(bob, game, "leave", seat="1")
    finish(ada, game)
    assert eve.post(f"/r/{game.code}/rematch").status_code == 302  # refused: back to the room
    assert Game.objects.count() == 1
    response = ada.post(f"/r/{game.code}/rematch")
    new = Game.objects.get(code=response["Location"].strip("/").split("/")[-1])
    assert new.status == "lobby" and new.ruleset == game.ruleset
    assert [s["name"] for s in new.snapshot["seats"]] == ["Ada"]  # Bob had left
    old = page_data(eve, game)["state"]
    assert old["rematch"] is True  # a private room's: that there is one, not where
    # Asking again (or another player asking) leads to the same room.
    assert ada.post(f"/r/{game.code}/rematch")["Location"] == f"/r/{new.code}/"


def test_rematch_seats_everyone_still_in_the_game() -> None:
    ada, bob = Client(), Client()
    game = create(ada)
    bob.post(f"/r/{game.code}/join", {"name": "Bob"})
    post(ada, game, "start")
    finish_both = [ada, bob]
    while Game.objects.get(pk=game.pk).status == "playing":
        state = ada.get(f"/r/{game.code}/state.json").json()
        who = finish_both[state["turn"]["seat"]]
        post(who, game, "roll")
        state = who.get(f"/r/{game.code}/state.json").json()
        open_box = next(o for o in state["options"] if o["legal"])
        post(who, game, "score", box=open_box["box"], column=str(open_box["column"]))
    new_url = bob.post(f"/r/{game.code}/rematch")["Location"]
    new = Game.objects.get(code=new_url.strip("/").split("/")[-1])
    assert [s["name"] for s in new.snapshot["seats"]] == ["Bob", "Ada"]  # whoever asked hosts
    assert bob.get(new_url + "state.json").json()["you"]["seats"] == [0]
    assert ada.get(new_url + "state.json").json()["you"]["seats"] == [1]
    assert Move.objects.filter(game=game, kind="rematch").count() == 1


def test_the_fairness_page_checks_a_finished_game() -> None:
    ada = Client()
    game = create(ada)
    post(ada, game, "start")
    page = Client().get(f"/r/{game.code}/fairness").content.decode()
    assert "revealed when the game ends" in page and game.server_seed not in page
    finish(ada, game)
    page = Client().get(f"/r/{game.code}/fairness").content.decode()
    assert game.server_seed in page
    assert "✓ All 13 rolls re-derived" in page and "✗" not in page
    # The way to the replay is a button with what it shows beside it, not a colon stuck to the button.
    assert "</a>:" not in page
    assert re.search(
        r'<p class="replay-offer"><a class="btn btn-primary" href="/r/\w+/replay">Watch the replay</a> <span>',
        page,
    )


def test_the_fairness_page_of_a_room_in_its_lobby_says_the_game_has_not_started_not_that_it_is_going() -> None:
    """Nobody has rolled yet: its page shows the commitment and says the game has not started, as
    the replay page of the same room does, not that it is "still going"."""
    ada = Client()
    game = create(ada)
    page = Client().get(f"/r/{game.code}/fairness").content.decode()
    assert "Commitment" in page and game.server_seed not in page
    assert "still going" not in page
    assert "The game has not started yet: come back when it ends." in page
    post(ada, game, "start")
    page = Client().get(f"/r/{game.code}/fairness").content.decode()
    assert "The game is still going: come back when it ends." in page


def test_the_fairness_page_of_a_room_everyone_left_before_the_start_says_the_game_never_started() -> None:
    """Abandoned in the lobby, the game had no roll, no move and no score: its page checks the
    revealed seed against the commitment and says the game never started, not that every move
    replays "to the final scores" of a game that had none."""
    host = Client()
    response = host.post("/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"})
    code = response["Location"].strip("/").split("/")[-1]
    game = Game.objects.get(code=code)
    host.post(f"/r/{code}/leave", {"version": game.version, "seat": "0", "action_id": "bye"})
    assert Game.objects.get(code=code).status == "abandoned"
    page = re.sub(r"\s+", " ", Client().get(f"/r/{code}/fairness").content.decode())
    assert "✓ The revealed seed matches the commitment." in page
    assert "This game never started. Everyone left the room before the first roll: there is nothing to replay." in page
    assert "final scores" not in page and "rolls re-derived" not in page and "Watch the replay" not in page


def test_the_fairness_page_counts_the_rolls_that_differ_in_the_singular_and_the_plural() -> None:
    """A roll changed in the log after the game is caught and counted: "1 roll differs", not "1 rolls"."""
    game = play_to_end(open_room(1), random.Random(4))
    for tampered, said in ((1, "✗ 1 roll differs."), (2, "✗ 2 rolls differ.")):
        move = game.moves.filter(kind="roll").order_by("seq")[tampered - 1]
        move.payload["faces"] = [7 - move.payload["faces"][0], *move.payload["faces"][1:]]
        move.save()
        clear_cache()  # the check of the game's version is kept: the log changed behind its back
        page = re.sub(r"\s+", " ", Client().get(f"/r/{game.code}/fairness").content.decode())
        assert said in page


def test_a_rematch_seat_whose_player_did_not_follow_is_not_called_a_computer() -> None:
    """docs/fairness.md: in a rematch "a seat whose player never does [follow] has none" (no client
    seed). The fair-dice page says so of that person's seat; only a computer's seat is called one."""
    table = open_room(3)
    play_to_end(table, random.Random(2), rerolls=0)
    rematch = services.game_rematch(code=table.code, controller=table.controllers[0], client_seed="hostseed")
    services.game_rematch(code=table.code, controller=table.controllers[1], client_seed="guestseed")
    services.game_start(
        code=rematch.code, controller=table.controllers[0], expected_version=None, action_id=action_id()
    )
    game = play_to_end(Table(code=rematch.code, controllers=table.controllers), random.Random(3), rerolls=0)
    assert game.client_seed == "hostseed,guestseed,"
    assert game.room.seats[2].kind == "human"
    html = re.sub(r"</?bdi>", "", Client().get(f"/r/{game.code}/fairness").content.decode())  # names isolated
    page = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))
    seeds = page[page.index("Players' seeds") :][:300]
    assert "P2: no seed (the rematch started before they followed it)" in seeds, seeds
    assert "a computer's seat" not in seeds, seeds


def test_a_seat_a_computer_sat_in_is_listed_as_a_computers_without_a_seed() -> None:
    state = {"seats": [{"name": "Ada", "player": 1}, {"name": "Rolly", "player": 2}, {"name": "Bo", "player": 3}]}
    assert seed_owners("abc,,", state, computers={2}) == [
        {"seed": "abc", "computer": False, "names": ["Ada"]},
        {"seed": "", "computer": True, "names": ["Rolly"]},
        {"seed": "", "computer": False, "names": ["Bo"]},
    ]


def test_the_roll_log_is_published_only_after_the_game() -> None:
    ada = Client()
    game = create(ada)
    assert ada.get(f"/r/{game.code}/log.json").status_code == 409
    post(ada, game, "start")
    while Game.objects.get(pk=game.pk).status == "playing":
        post(ada, game, "roll")
        game.refresh_from_db()
        open_box = next(o for o in Client().get(f"/r/{game.code}/state.json").json()["options"] if o["legal"])
        post(ada, game, "score", box=open_box["box"], column=str(open_box["column"]))
    log = ada.get(f"/r/{game.code}/log.json").json()
    assert log["server_seed"] and len(log["rolls"]) == 13
    state = page_data(ada, game)["state"]
    assert state["status"] == "finished" and state["fairness"]["server_seed"] == log["server_seed"]


def test_codes_in_links_are_forgiving() -> None:
    game = create(Client())
    response = Client().get(f"/r/{game.code.upper()}/")
    assert response.status_code == 302 and response["Location"] == f"/r/{game.code}/"
    response = Client().get("/rooms/find", {"code": f" {game.code[:5]}-{game.code[5:]} "})
    assert response["Location"] == f"/r/{game.code}/"


def full_width(text: str) -> str:
    """``text`` as a CJK input method types it in full-width mode: ａｂｃｄ－ｅｆｇｈ－ｊｋ."""
    return "".join(chr(ord(char) + 0xFEE0) if "!" <= char <= "~" else char for char in text)


@pytest.mark.parametrize(
    "typed",
    [
        "{full}",
        "{shown_full}",
        "{en_dashes}",
        "\u3000{shown_full}\u3000",  # ideographic spaces
        "ｈｔｔｐｓ：／／yahtzee.example.org／ｒ／{full}／",
    ],
    ids=["full-width", "full-width-dashes", "en-dashes", "ideographic-spaces", "full-width-link"],
)
def test_a_room_code_typed_in_full_width_or_with_other_dashes_opens_the_room(typed: str) -> None:
    code = create(Client()).code
    shown = f"{code[:4]}-{code[4:8]}-{code[8:]}"
    en_dashes = shown.replace("-", "\u2013")
    text = typed.format(full=full_width(code), shown_full=full_width(shown), en_dashes=en_dashes)
    response = Client().get("/rooms/find", {"code": text})
    assert response.status_code == 302, "refused: 'A room code has only letters and digits'"
    assert response["Location"] == f"/r/{code}/"


def test_a_room_address_with_a_full_width_code_leads_to_the_room() -> None:
    code = create(Client()).code
    response = Client().get(f"/r/{full_width(code)}/")
    assert response.status_code == 302 and response["Location"] == f"/r/{code}/"


# 20 characters; with the tone marks typed as combining marks (NFD), 25 code points.
VIETNAMESE = "Trần Thị Thanh Hương"


@pytest.mark.parametrize("form", ["NFD", "NFC"])
def test_a_name_of_twenty_characters_takes_a_seat_however_its_marks_were_typed(form: str) -> None:
    game = create(Client(), name="Ann")
    typed = unicodedata.normalize(form, VIETNAMESE)
    page = Client().post(f"/r/{game.code}/join", {"name": typed}, follow=True).content.decode()
    assert "at most 24 characters" not in page
    names = [seat.name for seat in Game.objects.get(code=game.code).room.seats]
    assert names == ["Ann", unicodedata.normalize("NFC", VIETNAMESE)]


def test_a_host_or_a_player_on_this_device_named_with_combining_marks_creates_a_room() -> None:
    typed = unicodedata.normalize("NFD", VIETNAMESE)
    online = Client().post("/rooms/new", {"name": typed, "ruleset": "official", "mode": "online"})
    assert online.status_code == 302, "refused: 'Ensure this value has at most 24 characters (it has 25)'"
    local = Client().post("/rooms/new", {"mode": "local", "ruleset": "official", "players": "1", "player_1": typed})
    assert local.status_code == 302


def test_a_name_over_24_characters_once_composed_is_still_refused() -> None:
    game = create(Client(), name="Ann")
    before = game.version
    page = Client().post(f"/r/{game.code}/join", {"name": "ệ" * 25}, follow=True).content.decode()
    assert "at most 24 characters" in page
    game.refresh_from_db()
    assert game.version == before and len(game.room.seats) == 1


# Refusals the room page draws: #join-error beside the name field, the page's messages above the room.
ROOM_ERRORS = re.compile(r'<p class="error"( id="join-error")?>(.*?)</p>')


@pytest.mark.parametrize("body", [b"name=B%FFb", b"name=%ED%A0%80x", b"name=%C0%80Bo"])
def test_a_join_whose_name_is_not_utf_8_is_refused_beside_the_name_and_seats_nobody(body: bytes) -> None:
    """Bytes that are not UTF-8 reach the form as U+FFFD (Django's decoding): a seat "B�b" is not
    taken, and the page says why beside the name."""
    game = create(Client(), name="Ann")
    before = game.version
    bob = Client()
    bob.post(f"/r/{game.code}/join", body, content_type="application/x-www-form-urlencoded")
    page = bob.get(f"/r/{game.code}/").content.decode()
    game.refresh_from_db()
    assert [seat.name for seat in game.room.seats] == ["Ann"] and game.version == before
    assert ROOM_ERRORS.findall(page) == [(' id="join-error"', LOST_LETTER_REFUSED)]


@pytest.mark.parametrize(
    ("fields", "beside_the_name", "shown"),
    [
        ({"name": "Bo\x00b"}, True, "Null characters are not allowed."),
        ({"name": ""}, True, "Please enter your name: the other players will see it."),
        ({"name": "x" * 25}, True, "Please enter a name of at most 24 characters."),
        ({"name": "Bob", "client_seed": "x" * 65}, False, "Something in the form was not what the game expected"),
    ],
    ids=["name-nul", "name-empty", "name-long", "seed"],
)
def test_a_join_refused_for_any_field_says_which_and_why(
    fields: dict[str, str], beside_the_name: bool, shown: str
) -> None:
    """Each refusal is the form's own error for the field at fault: a NUL in the name is not "at
    most 24 characters", and a seed too long is said above the room, the name not marked wrong."""
    game = create(Client(), name="Ann")
    before = game.version
    page = Client().post(f"/r/{game.code}/join", fields, follow=True).content.decode()
    game.refresh_from_db()
    assert [seat.name for seat in game.room.seats] == ["Ann"] and game.version == before
    said = ROOM_ERRORS.findall(page)
    assert len(said) == 1 and shown in unescape(said[0][1]), said
    assert bool(said[0][0]) == beside_the_name
    assert ('"join_refused": {' in page) == beside_the_name


def test_the_name_fields_let_a_name_s_marks_be_typed_apart() -> None:
    """A browser's maxlength counts UTF-16 units: 24 letters with their marks typed apart need more."""
    page = Client().get("/").content.decode()
    assert re.search(r'name="name"[^>]*maxlength="96"', page)
    assert re.search(r'name="player_1"[^>]*maxlength="96"', page)


def test_forms_are_protected_by_csrf() -> None:
    client = Client(enforce_csrf_checks=True)
    assert client.post("/rooms/new", {"name": "Ada", "ruleset": "official", "mode": "online"}).status_code == 403
    page = client.get("/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token
    ok = client.post(
        "/rooms/new", {"name": "Ada", "ruleset": "official", "mode": "online", "csrfmiddlewaretoken": token.group(1)}
    )
    assert ok.status_code == 302


@pytest.mark.parametrize(
    "pasted",
    [
        "http://testserver/r/{code}/",
        "https://yahtzee.example.org/r/{code}/",
        "https://yahtzee.example.org/r/{code}",
        "  HTTPS://yahtzee.example.org/r/{upper}/?from=chat  ",
        "/r/{code}/",
        "r/{code}",
        "http://127.0.0.1:8000/r/{code}/fairness",
    ],
)
def test_a_pasted_invite_link_opens_the_room(pasted: str) -> None:
    game = create(Client())
    text = pasted.format(code=game.code, upper=game.code.upper())
    response = Client().get("/rooms/find", {"code": text})
    assert response.status_code == 302 and response["Location"] == f"/r/{game.code}/"


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("ab/cd", "not a room link"),
        ("https://example.org/lobby/abc", "not a room link"),
        ("http://", "not a room link"),
        ("ab$cd", "only letters and digits"),
        ("", "Type the room code"),
        ("x" * 301, "at most 300"),
        # normalize_code keeps 32: the length said is the one typed.
        ("abcd" * 10, "A room code has 10 letters and digits, not 40:"),
        ("https://yahtzee.example.org/r/" + "z" * 33 + "/", "A room code has 10 letters and digits, not 33:"),
    ],
)
def test_anything_else_in_the_room_code_field_gets_a_clear_message(typed: str, message: str) -> None:
    before = Game.objects.count()
    response = Client().get("/rooms/find", {"code": typed})
    assert response.status_code == 400
    page = response.content.decode()
    assert message in page and 'id="code-error"' in page and "Create room" in page
    assert Game.objects.count() == before


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("zzzz-zzzz-zz", "No room has this code: check it with whoever sent it."),
        ("https://yahtzee.example.org/r/zzzzzzzzzz/", "No room has this code: check it with whoever sent it."),
        ("abcd-efgh-j", "A room code has 10 letters and digits, not 9: check it with whoever sent it."),
        ("abcd-efgh-jkm", "A room code has 10 letters and digits, not 11: check it with whoever sent it."),
    ],
)
def test_a_code_of_no_room_is_refused_beside_the_field_with_what_was_typed(typed: str, message: str) -> None:
    """Not a page of its own, whose way back leaves the field empty: the code as typed, to be put right."""
    response = Client().get("/rooms/find", {"code": typed})
    assert response.status_code == 404
    page = response.content.decode()
    assert re.search(r'<div class="error" id="code-error" role="alert">([^<]*)</div>', page).group(1) == message
    field = re.search(r'<input type="text" name="code"[^>]*>', page, re.S).group(0)
    assert f'value="{typed}"' in unescape(field) and 'aria-invalid="true"' in field and "autofocus" in field
    assert "Create room" in page


def test_a_code_typed_with_another_length_opens_its_room_if_there_is_one() -> None:
    game = create(Client())
    Game.objects.filter(pk=game.pk).update(code="abcdefghjkmn")
    response = Client().get("/rooms/find", {"code": "ABCD-EFGH-JKMN"})
    assert response.status_code == 302 and response["Location"] == "/r/abcdefghjkmn/"


def local_game(client: Client, players: int, bots: int) -> object:
    return client.post(
        "/rooms/new", {"mode": "local", "ruleset": "official", "players": str(players), "bots": str(bots)}
    )


@pytest.mark.parametrize(("people", "computers"), [(1, 7), (3, 1), (8, 0), (4, 4)])
def test_pass_and_play_seats_people_and_computers_within_eight(people: int, computers: int) -> None:
    response = local_game(Client(), people, computers)
    assert response.status_code == 302
    game = Game.objects.get()
    assert len(game.snapshot["seats"]) == people + computers


@pytest.mark.parametrize(("people", "computers"), [(8, 7), (3, 6), (8, 1)])
def test_pass_and_play_over_eight_seats_is_refused_with_the_count_and_nothing_made(people: int, computers: int) -> None:
    response = local_game(Client(), people, computers)
    assert response.status_code == 400
    page = response.content.decode()
    assert "at most 8 players, computers included" in page and f"make {people + computers}" in page
    assert Game.objects.count() == 0


def test_the_home_page_says_the_seats_count_computers_too() -> None:
    page = Client().get("/").content.decode()
    assert "A game seats 1 to 8 players in all, computers included." in page
    assert 'id="id_players" min="1" max="8"' in page and 'id="id_bots" min="0" max="7"' in page


def test_a_seat_form_without_its_seat_is_refused_and_changes_nothing() -> None:
    ada, bob = Client(), Client()
    game = create(ada)
    assert bob.post(f"/r/{game.code}/join", {"name": "Bob"}).status_code == 302
    game.refresh_from_db()
    before = (game.version, game.moves.count(), game.players.count())
    page = post(bob, game, "leave")  # no seat field
    game.refresh_from_db()
    assert (game.version, game.moves.count(), game.players.count()) == before
    assert "did not say which seat" in page
    post(bob, game, "leave", seat="1")
    game.refresh_from_db()
    assert game.version > before[0]
    assert [p.name for p in game.players.filter(status="active")] == ["Ada"]


@pytest.mark.django_db
def test_a_post_the_database_failed_during_says_its_result_is_unknown_not_unchanged() -> None:
    from unittest import mock

    from django.db import OperationalError

    from games import services as game_services

    client = Client()
    response = client.post("/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"})
    code = response["Location"].strip("/").split("/")[-1]
    with mock.patch.object(game_services, "game_start", side_effect=OperationalError("connection lost")):
        posted = client.post(f"/r/{code}/start", {"version": "1", "action_id": "a"})
    assert posted.status_code == 503
    assert b"result is unknown" in posted.content and b"Nothing was changed" not in posted.content
    with mock.patch("games.web.views.game_state", side_effect=OperationalError("connection lost")):
        read = client.get(f"/r/{code}/")
    assert read.status_code == 503 and b"Nothing was changed" in read.content


@pytest.mark.parametrize("url", ["/u/a%00b/", "/r/abcd%00efgh/", "/r/abcdefghjk%00/replay", "/r/abc%ED%A0%80/"])
def test_a_nul_or_a_lone_surrogate_in_an_address_is_a_404_not_a_server_error(url: str) -> None:
    # PostgreSQL's text refuses a NUL, and no driver encodes a lone surrogate: no room has either.
    assert Client(raise_request_exception=False).get(url).status_code == 404


@pytest.mark.parametrize("private", [True, False])
def test_a_private_rooms_rematch_is_told_to_nobody_and_followed_by_its_players_only(private: bool) -> None:
    import random

    from games import services
    from games.realtime.broadcast import state_frame
    from tests.factories import open_room, play_to_end

    table = open_room(2)
    Game.objects.filter(code=table.code).update(private=private)
    play_to_end(table, random.Random(2), rerolls=0)
    new = services.game_rematch(code=table.code, controller=table.controllers[0])
    # The old code is on its players' profiles: its state and the rematch's event carry the new
    # code only for a public room.
    told = Client().get(f"/r/{table.code}/state.json").json()["rematch"]
    assert told == (True if private else new.code)
    move = Move.objects.filter(game__code=table.code, kind=Move.Kind.REMATCH).get()
    event = state_frame(table.game, move)["event"]
    assert ("code" in event) is not private
    # A stranger with the old code is refused, not sent to the new room.
    stranger = Client()
    refused = stranger.post(f"/r/{table.code}/rematch", {"client_seed": "abc"})
    assert refused.status_code == 302 and refused["Location"].endswith(f"/r/{table.code}/")


def test_a_spectator_about_to_post_is_given_a_token_and_its_handle_and_a_look_stores_nothing() -> None:
    """The host mutes a spectator by the browser: a spectator's page asks for a token before its
    first post, and is told the handle its lines go by. Looking at the room gives none, and a room
    where spectators only read (or a game over) gives none to ask for."""
    host = Client()
    chatty = create(host, chat_spectators="on")
    quiet = create(Client(), "Bo")
    watcher = Client()
    data = page_data(watcher, chatty)
    assert data["you"] == [] and data["spectator"] == "" and "sessionid" not in watcher.cookies
    given = watcher.post(f"/r/{chatty.code}/spectator")
    token = watcher.session.get("controller", "")
    assert given.status_code == 200 and token
    handle = given.json()["spectator"]
    assert handle == services.chat_post(code=chatty.code, controller=token, text="hi")["spectator"]
    assert watcher.post(f"/r/{chatty.code}/spectator").json() == {"spectator": handle}  # the same browser
    assert page_data(watcher, chatty)["spectator"] == handle
    stranger = Client()
    assert page_data(stranger, quiet)["spectator"] == ""
    refused = stranger.post(f"/r/{quiet.code}/spectator")
    assert (refused.status_code, refused.json()["error"]) == (409, "chat_closed")
    assert "sessionid" not in stranger.cookies


def test_views_of_a_room_by_browsers_without_cookies_store_no_session() -> None:
    """A session lives a year (SESSION_COOKIE_AGE): a client that keeps no cookies (a link preview
    unfurling the invite, a crawler, a script in a loop) would store a row at every view of a room
    whose spectators may post."""
    table = spectators_chat_room()
    for _ in range(30):
        assert Client().get(f"/r/{table.code}/").status_code == 200
    assert Session.objects.count() == 0


@pytest.mark.parametrize(
    ("spectators", "text", "said"),
    [
        (False, "let me in", "Only the players can post in this room's chat; you can read it."),
        (True, "   ", "A chat message needs some text."),
        (True, "x" * 301, "A chat message is at most 300 characters: this one has 301."),
        (True, "\u202e", "A chat message needs some text."),
    ],
)
def test_chat_lines_refused_to_browsers_without_cookies_store_no_session(
    spectators: bool, text: str, said: str
) -> None:
    """A chat form refused (a stranger to a players-only chat, a line with nothing to show or too
    long) made nothing: a client keeping no cookies, posting in a loop, must not store a year's
    session row at every post, as it would if the refusal were kept in a session made for it."""
    table = spectators_chat_room() if spectators else open_room()
    version = Game.objects.get(code=table.code).version
    fields = {"version": str(version), "action_id": "c-told", "text": text}
    page = Client().post(f"/r/{table.code}/chat", fields, follow=True)
    assert said in unescape(page.content.decode())  # told why, above the table
    # Refused for the same reason, or (a browser without a token counting as its address) as too many.
    for n in range(30):
        fields = {"version": str(version), "action_id": f"c-{n}", "text": text}
        assert Client().post(f"/r/{table.code}/chat", fields).status_code == 302
    assert Session.objects.count() == 0
    assert not ChatMessage.objects.filter(game__code=table.code).exists()


def test_joins_refused_to_browsers_without_cookies_store_no_session() -> None:
    """A join refused for the room (its game started) made nothing: it is said above the table, and
    a client keeping no cookies, posting in a loop, stores no year's session row at every post."""
    table = open_room()
    page = Client().post(f"/r/{table.code}/join", {"name": "Zed"}, follow=True)
    assert "The game has already started" in unescape(page.content.decode())
    for n in range(10):
        assert Client().post(f"/r/{table.code}/join", {"name": f"Zed{n}"}).status_code == 302
    assert Session.objects.count() == 0


def test_a_chat_line_refused_to_a_browser_with_a_session_but_no_token_is_put_back_beside_the_field() -> None:
    """A browser whose session holds something else (a sign-in half done) but no token yet: its
    refused line costs no new row, so it is said beside the field with the text given back, as
    for a player, not above the table with the text lost."""
    table = spectators_chat_room()
    browser = Client()
    session = browser.session
    session["elsewhere"] = "kept"
    session.save()
    browser.cookies["sessionid"] = session.session_key
    version = Game.objects.get(code=table.code).version
    fields = {"version": str(version), "action_id": "c-long", "text": "y" * 301}
    page = unescape(browser.post(f"/r/{table.code}/chat", fields, follow=True).content.decode())
    error = re.search(r'<p class="error" id="ns-chat-error" role="alert">([^<]*)</p>', page)
    assert error is not None and "A chat message is at most 300 characters" in error.group(1)
    assert f'value="{"y" * 301}"' in page
    assert Session.objects.count() == 1 and not ChatMessage.objects.filter(game__code=table.code).exists()


@pytest.mark.parametrize(("action", "fields"), [("join", {"name": "Ben"}), ("leave", {"version": "1", "seat": "0"})])
def test_a_form_posted_as_the_sweep_deletes_its_room_is_told_no_room_not_a_server_error(
    monkeypatch: pytest.MonkeyPatch, action: str, fields: dict[str, str]
) -> None:
    """A room never started can be swept between a view's lookup and its service's lock: the
    post is answered as one to any unknown room (the 404 that says rooms are swept)."""
    from datetime import timedelta

    from django.utils import timezone

    from games.services import sweeps
    from games.store.models import Player
    from games.web import views

    ada = Client()
    code = create_room(ada, "Ada")
    then = timezone.now() - timedelta(days=31)
    Game.objects.filter(code=code).update(created_at=then)
    Move.objects.filter(game__code=code).update(created_at=then)
    Player.objects.filter(game__code=code).update(joined_at=then)
    found = views._game_or_404

    def found_then_swept(code: str) -> Game:
        room = found(code)
        sweeps.sweep()  # the scheduler's round, in the moment between
        return room

    monkeypatch.setattr(views, "_game_or_404", found_then_swept)
    poster = ada if action == "leave" else Client()
    poster.raise_request_exception = False
    response = poster.post(f"/r/{code}/{action}", fields)
    assert not Game.objects.filter(code=code).exists()
    assert response.status_code == 404, response.status_code
    assert "No room has that code." in unescape(response.content.decode())


def test_the_room_page_carries_the_feeds_last_events_as_the_sockets_were_told_them() -> None:
    """The page words them as its feed's lines, so each has what the page read from the state it
    came with: whose turn a roll or a score was, whether a seat was taken out of the lobby, and the
    host handed on after the leave that handed it on. Oldest first; the held dice are no line."""
    table = open_room(4, start=False)
    host = table.controllers[0]
    services.game_kick(code=table.code, controller=host, seat=3, expected_version=None, action_id=action_id())
    services.game_start(code=table.code, controller=host, expected_version=table.version(), action_id=action_id())
    play_turn(table, random.Random(3))
    online(table.code, table.controllers[1])
    services.game_leave(code=table.code, controller=host, seat=0, expected_version=None, action_id=action_id())
    feed = page_data(Client(), table.game)["feed"]
    kinds = [event["type"] for event in feed]
    # The host's own seat came with the room, before any page was open to tell it.
    assert kinds[:5] == ["joined", "joined", "joined", "left", "started"]
    assert feed[0]["name"] == "P1"
    versions = [event.pop("version") for event in feed]
    assert versions == sorted(versions) and versions[-1] == versions[-2] == table.version()
    assert feed[3] == {"type": "left", "seat": 3, "name": "P3", "by_host": True, "lobby": True}
    assert set(kinds[5:-3]) == {"rolled"} and kinds[-3:] == ["scored", "left", "host"]
    assert {event["seat"] for event in feed if event["type"] in ("rolled", "scored")} == {0}
    assert "lobby" not in feed[-2] and feed[-1] == {"type": "host", "name": "P1"}
    assert not any("client_seed" in event for event in feed)


def test_a_finished_games_page_carries_its_last_events_and_the_result() -> None:
    table = open_room(2)
    play_to_end(table, random.Random(2))
    feed = page_data(Client(), table.game)["feed"]
    winners = Move.objects.filter(game__code=table.code).order_by("seq").last().payload["winners"]  # type: ignore[union-attr]
    assert feed[-1] == {"type": "game_over", "winners": winners, "version": table.version()}
    assert feed[-2]["type"] == "scored" and len(feed) == FEED_MOVES + 1


def test_the_game_over_panels_module_comes_with_the_page_of_a_game_that_is_over_only() -> None:
    """A game in play fetches it once the page is idle (static/js/room.js); one that is over draws it at once."""
    preload = '<link rel="modulepreload" href="/static/js/room/over.js">'
    table = open_room(2)
    assert preload not in Client().get(f"/r/{table.code}/").content.decode()
    play_to_end(table, random.Random(2))
    assert preload in Client().get(f"/r/{table.code}/").content.decode()


def test_a_rooms_last_events_are_read_alone_for_a_page_whose_socket_was_away() -> None:
    """What a page open all along missed while its connection was gone: the same events as a page
    drawn now carries, each with the version it made, by which the page puts them in its feed."""
    table = open_room(2)
    play_turn(table, random.Random(3))
    client = Client()
    response = client.get(f"/r/{table.code}/feed.json")
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    assert response.json() == {"feed": page_data(client, table.game)["feed"]}
    assert response.json()["feed"][-1]["version"] == table.version()
    assert client.get("/r/abcdefghjk/feed.json").status_code == 404


def test_a_rooms_last_events_are_the_same_for_everyone_whatever_is_asked_and_carry_no_chat() -> None:
    """A finished game's events after a reconnect, asked by a player, a stranger, or with query
    parameters of every kind: the same events, none of its chat (its players' alone once it is
    over) nor any browser's token. A room swept since, as a code of no room, is the JSON 404."""
    table = open_room(2)
    services.chat_post(code=table.code, controller=table.controllers[0], text="between us")
    play_to_end(table, random.Random(4))
    player = Client()
    session = player.session
    session["controller"] = table.controllers[0]
    session.save()
    feeds = [
        client.get(f"/r/{table.code}/feed.json{query}")
        for client in (player, Client())
        for query in ("", "?since=-1", "?since=99999999999999999999", "?version=abc&version=1", "?n=%00")
    ]
    assert {response.status_code for response in feeds} == {200}
    assert len({response.content for response in feeds}) == 1
    text = feeds[0].content.decode()
    assert "between us" not in text and not any(token in text for token in table.controllers)

    # A lobby nobody used, swept (games.services.sweeps): as a code of no room.
    lobby = open_room(2, start=False)
    assert Client().get(f"/r/{lobby.code}/feed.json").status_code == 200
    sweeps.rooms_never_started(timezone.now() + timedelta(days=365))
    for code in (lobby.code, "abcdefghjk"):
        response = Client().get(f"/r/{code}/feed.json")
        assert response.status_code == 404 and response.json()["error"] == "no_room"


def test_a_rooms_last_events_are_read_in_one_query_however_many_there_are() -> None:
    """The feed is read with every page drawn and every reconnect: its moves in one statement, not
    one more for each move's version."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.realtime.broadcast import recent_events

    table = open_room(2)
    play_to_end(table, random.Random(2))
    game = Game.objects.get(code=table.code)
    with CaptureQueriesContext(connection) as queries:
        feed = recent_events(game)
    assert len(feed) == FEED_MOVES + 1
    moves = [query["sql"] for query in queries.captured_queries if "games_move" in query["sql"]]
    assert len(moves) == 1, moves

"""Pages as a visitor uses them: no account, seats owned by the session, no finding a room without its code."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games.models import Game, Move

pytestmark = pytest.mark.django_db


def create(client: Client, name: str = "Ada", **extra: str) -> Game:
    response = client.post("/rooms/new", {"name": name, "ruleset": "official", "mode": "online", **extra})
    assert response.status_code == 302
    code = response["Location"].strip("/").split("/")[-1]
    return Game.objects.get(code=code)


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
    assert "Start game" in page and game.code in page and game.seed_commitment in page
    assert bob.post(f"/r/{game.code}/join", {"name": "Bob", "client_seed": "bob"}).status_code == 302
    assert "Start game" not in bob.get(f"/r/{game.code}/").content.decode()
    post(ada, game, "start")
    game.refresh_from_db()
    assert game.status == "playing" and game.client_seed == "abc123,bob"
    page = post(ada, game, "roll")
    assert "Roll (2 left)" in page
    page = post(ada, game, "roll", held=["0", "1"])
    game.refresh_from_db()
    assert game.snapshot["rules"]["turn"]["held"] == [0, 1]
    assert [m.kind for m in game.moves.order_by("seq")][-3:] == ["roll", "hold", "roll"]
    page = post(ada, game, "score", box="chance", column="0")
    game.refresh_from_db()
    assert game.snapshot["rules"]["current"] == 1
    assert "Bob's turn" in page


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
    assert "Roll (" not in page


def test_a_stale_form_is_refused_with_a_clear_message() -> None:
    ada = Client()
    game = create(ada)
    post(ada, game, "start")
    game.refresh_from_db()
    ada.post(f"/r/{game.code}/roll", {"version": game.version, "action_id": "r1"})
    response = ada.post(f"/r/{game.code}/roll", {"version": game.version, "action_id": "r2"}, follow=True)
    assert "The game has moved on" in response.content.decode()
    assert Move.objects.filter(game=game, kind="roll").count() == 1


def test_bad_create_input_shows_the_form_again() -> None:
    response = Client().post("/rooms/new", {"name": "", "ruleset": "official", "mode": "online"})
    assert response.status_code == 400
    response = Client().post("/rooms/new", {"name": "Ada", "ruleset": "chess", "mode": "online"})
    assert response.status_code == 400
    assert Game.objects.count() == 0


def test_play_on_this_device_seats_everyone_in_one_browser() -> None:
    mum, kid = Client(), Client()
    game = create(mum, mode="local")
    mum.post(f"/r/{game.code}/join", {"name": "Kid"})
    response = kid.post(f"/r/{game.code}/join", {"name": "Eve"}, follow=True)
    assert "played on one device" in response.content.decode()
    assert mum.get(f"/r/{game.code}/state.json").json()["you"]["seats"] == [0, 1]


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
    page = ada.get(f"/r/{game.code}/").content.decode()
    assert "Game over" in page and log["server_seed"] in page


def test_codes_in_links_are_forgiving() -> None:
    game = create(Client())
    response = Client().get(f"/r/{game.code.upper()}/")
    assert response.status_code == 302 and response["Location"] == f"/r/{game.code}/"
    response = Client().get("/rooms/find", {"code": f" {game.code[:5]}-{game.code[5:]} "})
    assert response["Location"] == f"/r/{game.code}/"


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

"""The replay page: every finished game, step by step from the Move log, open to anyone with the room's link."""

from __future__ import annotations

import json
import random
import re
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation
from django.utils.translation import gettext

import bots
from games import services
from games.services import coach, replay
from games.store import tables
from games.store.models import Game, Move
from tests.factories import action_id, everyone_leaves, left_in_the_lobby, open_room, play_to_end, play_turn

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module", autouse=True)
def official_table() -> None:
    bots.tables.table("official", build=True)


def replay_data(page: str) -> dict:
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page, re.S)
    assert found
    return json.loads(found.group(1))


def review_section(page: str) -> str:
    found = re.search(r'<section class="card" aria-labelledby="review-h">(.*?)</section>', page, re.S)
    assert found, "the replay page has a Coach's review section"
    return found.group(1)


def seat_headings(section: str) -> list[str]:
    return [re.sub(r"\s+", " ", h) for h in re.findall(r'<h3 class="review-seat">(.*?)</h3>', section, re.S)]


def test_a_finished_game_replays_roll_by_roll_with_the_cards_and_the_coach_s_verdicts() -> None:
    table = open_room(2)
    game = play_to_end(table, random.Random(11))
    response = Client().get(f"/r/{game.code}/replay")  # a stranger with the link: no session
    assert response.status_code == 200
    page = response.content.decode()
    data = replay_data(page)
    steps = data["steps"]
    moves = list(game.moves.order_by("seq"))
    rolls = [m for m in moves if m.kind == Move.Kind.ROLL]
    scores = [m for m in moves if m.kind == Move.Kind.SCORE]
    assert steps[0]["kind"] == "start" and len(steps[0]["cards"]) == 2
    assert steps[-1]["kind"] == "end" and re.search(r"\b(wins|win) with \d+ points", steps[-1]["text"])  # or a tie
    assert [s["move"] for s in steps if s["kind"] == "roll"] == [m.seq for m in rolls]
    assert [s["move"] for s in steps if s["kind"] == "score"] == [m.seq for m in scores]
    for step, move in zip([s for s in steps if s["kind"] == "roll"], rolls, strict=True):
        assert step["dice"] == move.payload["dice"] and step["held"] == move.payload["held"]
        assert 1 <= step["roll"] <= 3 and 1 <= step["round"] <= 13
    # The cards after the last score are the stored cards.
    last_cards: dict[int, dict] = {}
    for step in steps:
        if step["kind"] == "score":
            last_cards[step["seat"]] = step["card"]
            assert step["card"]["columns"][0]["boxes"][step["box"]] == step["points"]
    stored = game.snapshot["rules"]
    for seat in range(2):
        assert last_cards[seat]["total"] == game_total(game, seat)
    assert stored is not None
    # Every score, and every reroll, carries the coach's verdict; they agree with the review.
    judged = [s for s in steps if s["verdict"]]
    assert all(s["verdict"] for s in steps if s["kind"] == "score")
    assert all(s["verdict"] for s in steps if s["kind"] == "roll" and s["roll"] > 1)
    assert not any(s["verdict"] for s in steps if s["kind"] == "roll" and s["roll"] == 1)
    review = coach.review(game)
    assert round(sum(s["verdict"]["lost"] for s in judged), 0) == pytest.approx(
        sum(seat["lost"] for seat in review["seats"]), abs=0.1 * len(judged) + 1
    )
    assert data["coach"] is True and review["replay_url"] == f"/r/{game.code}/replay"
    assert f'href="/r/{game.code}/"' in page and f'href="/r/{game.code}/fairness"' in page
    assert 'src="/static/js/replay.js"' in page


def test_the_replay_names_the_readers_own_seat_for_the_cached_review_to_open_its_part() -> None:
    """The review is drawn once for everyone (cached): each player's costly choices fold under their
    heading, and the page says which seat is the reader's, outside it, for that one to open."""
    table = open_room(2)
    game = play_to_end(table, random.Random(11))
    player = Client()
    session = player.session
    session["controller"] = table.controllers[1]
    session.save()
    page = player.get(f"/r/{game.code}/replay").content.decode()
    assert 'data-you="1"' in page
    section = review_section(page)
    folded = re.findall(r'<details class="review-fold" data-seat="(\d)">', section)
    assert folded and folded == [str(s["seat"]) for s in coach.review(game)["seats"] if s["costly"]]
    stranger = Client().get(f"/r/{game.code}/replay").content.decode()
    assert 'data-you=""' in stranger and review_section(stranger) == section


def game_total(game: Game, seat: int) -> int:
    from games.store.selectors import game_state

    return int(game_state(game)["cards"][seat]["total"])


def test_the_replay_marks_turns_a_computer_played_after_a_hand_over() -> None:
    from games import services
    from games.scheduling import botplay

    table = open_room(2)  # nobody is connected: seat 1 is away
    rng = random.Random(4)
    play_turn(table, rng)  # seat 0
    host = table.controllers[0]
    services.game_replace_with_bot(
        code=table.code, controller=host, seat=1, expected_version=table.version(), action_id=action_id()
    )

    while table.game.status == Game.Status.PLAYING:
        if table.game.snapshot["rules"]["current"] == 0:
            play_turn(table, rng)
        else:
            assert botplay.step(table.code, table.version())
    data = replay_data(Client().get(f"/r/{table.code}/replay").content.decode())
    handed = next(i for i, s in enumerate(data["steps"]) if s["kind"] == "bot")
    assert "A computer took over \u2068P1\u2069's seat" in data["steps"][handed]["text"]
    assert all(not s["by_computer"] for s in data["steps"][:handed] if s.get("seat") == 1)
    assert all(s["by_computer"] for s in data["steps"][handed:] if s.get("seat") == 1 and s["kind"] != "end")
    assert not any(s["by_computer"] for s in data["steps"] if s.get("seat") == 0)


def test_the_replay_review_does_not_call_an_away_persons_own_choices_a_computers() -> None:
    from games.scheduling import botplay

    table = open_room(2)
    p0, _ = table.controllers
    rng = random.Random(6)
    play_turn(table, rng)  # P0
    play_turn(table, rng)  # P1 plays a turn of their own, then is away
    services.game_replace_with_bot(
        code=table.code, controller=p0, seat=1, level="optimal", expected_version=table.version(), action_id="r"
    )
    while table.game.status == Game.Status.PLAYING:
        if table.game.room.rules.current == 0:
            play_turn(table, rng)
        else:
            assert botplay.step(table.code, table.version())
    game = table.game
    section = review_section(Client().get(f"/r/{game.code}/replay").content.decode())
    heading = next(h for h in seat_headings(section) if "P1" in h)
    # The figures under this heading are P1's own choices (the computer's are left out), so the
    # seat is not marked as a computer's, here nor in review.json.
    assert "(computer)" not in heading, heading
    review = Client().get(f"/r/{game.code}/review.json").json()
    assert [seat["kind"] for seat in review["seats"]] == ["human", "human"]
    assert review["seats"][1]["choices"] >= 1


def test_a_seat_whose_small_losses_add_up_is_told_the_total_not_that_it_played_like_the_solver(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = open_room(2)
    game = play_to_end(table, random.Random(12))
    every, replayed = coach.verdicts(game)
    # P0's every choice gives up 0.4 points: none is costly, yet together they are several points.
    small = [
        {**v, "lost": 0.4, "exact_loss": 0.4} if v["seat"] == 0 else {**v, "lost": 0.0, "exact_loss": 0.0}
        for v in every
    ]
    monkeypatch.setattr(coach, "_judged", lambda game: (small, replayed))
    review = coach.review(game)
    p0, p1 = review["seats"]
    assert p0["mistakes"] == 0 and p0["lost"] > 5 and p0["like_solver"] is False
    assert p1["lost"] == 0 and p1["like_solver"] is True
    headings = seat_headings(review_section(Client().get(f"/r/{game.code}/replay").content.decode()))
    assert (
        f"<bdi>P0</bdi>'s choices cost about {p0['lost']} points against the coach's play, a little at a time: "
        "none of them was costly." in headings[0]
    ), headings
    solver = f"<bdi>P1</bdi> played like the solver: no costly choice in {p1['choices']} choices."
    assert solver in headings[1], headings


def test_a_painted_replay_says_why_the_coach_gives_no_figures_instead_of_inviting_to_pick_a_choice() -> None:
    table = open_room(1, "painted")
    game = play_to_end(table, random.Random(3), rerolls=0)
    section = review_section(Client().get(f"/r/{game.code}/replay").content.decode())
    # Nothing to pick: the page says why there is no figure, as review.json and the game's end do.
    assert "Pick one to see it in the replay" not in section
    assert "no exact solver" in section, section


def test_a_game_in_progress_has_no_replay_yet_and_an_unknown_code_is_not_found() -> None:
    table = open_room(2)
    response = Client().get(f"/r/{table.code}/replay")
    assert response.status_code == 409
    page = response.content.decode()
    assert "The replay opens when the game is over" in page and "replay-data" not in page
    assert Client().get("/r/zzzzzzzzzz/replay").status_code == 404
    assert Client().get(f"/r/{table.code.upper()}/replay")["Location"] == f"/r/{table.code}/replay"


def test_the_replay_of_a_room_still_in_its_lobby_says_the_game_has_not_started_not_that_it_is_going() -> None:
    """Nobody has rolled yet: "The game is still going" would be untrue. The page says the game has
    not started, and that its replay opens once it is over; the room is a link away."""
    table = open_room(2, start=False)
    response = Client().get(f"/r/{table.code}/replay")
    assert response.status_code == 409
    card = re.search(r'<section class="card">(.*?)</section>', response.content.decode(), re.S)
    assert card, response.content.decode()
    said = card.group(1)
    assert "The game is still going" not in said, said
    assert "The game has not started yet" in said and f'href="/r/{table.code}/"' in said, said


@pytest.mark.parametrize("start", [False, True], ids=["lobby", "under way"])
def test_the_replay_of_a_game_not_over_yet_links_the_room_once_from_its_card(start: bool) -> None:
    """The card says the replay opens when the game is over and offers the room as its one button:
    the header does not offer the same room again beside it under another name ("Back to the room",
    for a reader who may never have been in it)."""
    table = open_room(2, start=start)
    page = Client().get(f"/r/{table.code}/replay").content.decode()
    assert page.count(f'href="/r/{table.code}/"') == 1, page
    card = re.search(r'<section class="card">(.*?)</section>', page, re.S)
    assert card and "Go to the room" in card.group(1) and f'href="/r/{table.code}/"' in card.group(1), page
    assert "Back to the room" not in page
    # The dice's commitment is there from the room's creation: its check stays offered.
    assert f'href="/r/{table.code}/fairness"' in page


def test_the_replay_of_a_room_everyone_left_before_the_start_links_the_room_once() -> None:
    """The header's *Back to the room* is the way back: the card that says the game never started
    offers a new game, not a second link to the same room."""
    table = left_in_the_lobby()
    page = Client().get(f"/r/{table.code}/replay").content.decode()
    assert "This game never started" in page
    assert page.count(f'href="/r/{table.code}/"') == 1, page
    assert "Back to the room" in page and "Go to the room" not in page
    assert 'href="/"' in page and "Start a new game" in page
    # No die was ever rolled: there are no dice to check.
    assert "Check the dice" not in page and f'href="/r/{table.code}/fairness"' not in page


def test_a_loss_of_thousands_of_points_is_written_as_the_room_writes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The review's total in the reader's own number format, grouped as the room's game-over panel
    groups it (Intl.NumberFormat): "1.021,0" in German, "1,021.0" in English, never "1021,0" on one
    page and "1.021,0" on the other."""
    table = open_room(2)
    game = play_to_end(table, random.Random(12))
    every, replayed = coach.verdicts(game)
    # Every one of P0's choices a costly one: together well over a thousand points.
    costly = [{**v, "lost": 80.0, "exact_loss": 80.0} if v["seat"] == 0 else v for v in every]
    monkeypatch.setattr(coach, "_judged", lambda game: (costly, replayed))
    lost = coach.review(game)["seats"][0]["lost"]
    assert lost >= 1000
    english = seat_headings(review_section(Client().get(f"/r/{game.code}/replay").content.decode()))[0]
    german = seat_headings(
        review_section(Client(HTTP_ACCEPT_LANGUAGE="de").get(f"/r/{game.code}/replay").content.decode())
    )[0]
    grouped = f"{lost:,.1f}"
    assert f" cost about {grouped} points " in english, english
    assert f" {grouped.replace(',', ' ').replace('.', ',').replace(' ', '.')} " in german, german


def test_the_replay_shows_without_verdicts_while_the_coach_is_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    table = open_room(1)
    game = play_to_end(table, random.Random(2))
    monkeypatch.setattr(bots, "ready", lambda ruleset: False)
    monkeypatch.setattr(tables, "request", lambda ruleset, first=True: None)
    page = Client().get(f"/r/{game.code}/replay").content.decode()
    data = replay_data(page)
    assert data["coach"] is False and not any(s["verdict"] for s in data["steps"])
    assert "still studying" in page


def count_replays(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every replay of a Move log from here on (the replay's own, the coach's), by who asked."""
    calls: list[str] = []
    for module in (replay, coach):
        real = module.replay_moves

        def counted(*args: object, _real: Any = real, _name: str = module.__name__, **kwargs: object) -> Any:
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, "replay_moves", counted)
    return calls


@pytest.mark.parametrize("ruleset", ["official", "painted"])
def test_a_finished_games_replay_is_made_once_for_every_view_after_it(
    ruleset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finished game does not change, and replaying a long one and drawing it takes a worker
    a good part of a second: anyone with the code viewing its replay again and again replays
    nothing after the first view, and is shown the same page."""
    table = open_room(2, ruleset)
    game = play_to_end(table, random.Random(7))
    calls = count_replays(monkeypatch)
    client = Client()
    first = client.get(f"/r/{game.code}/replay").content.decode()
    assert calls, "the first view replays the game"
    made = len(calls)
    pages = [client.get(f"/r/{game.code}/replay").content.decode() for _ in range(10)]
    assert len(calls) == made, f"the game was replayed again: {calls}"
    assert all(replay_data(page) == replay_data(first) for page in pages)
    assert all(review_section(page) == review_section(first) for page in pages)


def test_a_replay_kept_for_one_language_is_not_shown_in_another(monkeypatch: pytest.MonkeyPatch) -> None:
    table = open_room(2)
    game = play_to_end(table, random.Random(4))
    english = Client().get(f"/r/{game.code}/replay").content.decode()
    german = Client(HTTP_ACCEPT_LANGUAGE="de").get(f"/r/{game.code}/replay").content.decode()
    assert "The game starts" in replay_data(english)["steps"][0]["text"]
    assert "The game starts" not in replay_data(german)["steps"][0]["text"]
    assert "Coach's review" in english and "Coach's review" not in german


def test_a_replay_kept_while_the_coach_was_busy_gets_its_verdicts_once_the_coach_is_ready(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = open_room(1)
    game = play_to_end(table, random.Random(2))
    with monkeypatch.context() as busy:
        busy.setattr(bots, "ready", lambda ruleset: False)
        busy.setattr(tables, "request", lambda ruleset, first=True: None)
        assert replay_data(Client().get(f"/r/{game.code}/replay").content.decode())["coach"] is False
    data = replay_data(Client().get(f"/r/{game.code}/replay").content.decode())
    assert data["coach"] is True and any(s["verdict"] for s in data["steps"])


def test_the_coachs_verdicts_are_worked_out_once_not_once_per_language() -> None:
    """The verdicts (a solver look-up for every choice of the game) are kept in no language and
    worded for each reader: a game read in the six languages of the site is judged once."""
    table = open_room(2, "official")
    play_to_end(table, random.Random(4), rerolls=1)
    pages = {}
    with mock.patch.object(coach, "verdicts", wraps=coach.verdicts) as judged:
        for language in ("en", "de", "fr", "es", "sv", "da"):
            client = Client()
            client.cookies["django_language"] = language
            pages[language] = client.get(f"/r/{table.code}/replay").content.decode()
    assert judged.call_count == 1, f"the game's choices were judged {judged.call_count} times, once per language"
    english = [s["verdict"] for s in replay_data(pages["en"])["steps"] if s["verdict"]]
    german = [s["verdict"] for s in replay_data(pages["de"])["steps"] if s["verdict"]]
    assert english and [v["lost"] for v in german] == [v["lost"] for v in english]
    assert any(v["chosen"].startswith(("Score", "Keep", "Reroll")) for v in english)
    assert not any(v["chosen"].startswith(("Score", "Keep", "Reroll")) for v in german)


def test_a_finished_games_replay_names_a_deleted_accounts_seat_anew() -> None:
    """Withdrawing a deleted account's name is a new version of the game: its replay is made again."""
    table = open_room(2)
    game = play_to_end(table, random.Random(3))
    names = [s["name"] for s in replay_data(Client().get(f"/r/{game.code}/replay").content.decode())["seats"]]
    services.seats_forget(controller=table.controllers[1], player_ids=[game.room.seats[1].player])
    after = [s["name"] for s in replay_data(Client().get(f"/r/{game.code}/replay").content.decode())["seats"]]
    assert after == [names[0], "Former player"] != names


def test_a_painted_replay_carries_each_dies_colour_and_the_cards_colour_section() -> None:
    from games.domain.rules import COLOURS
    from games.store.selectors import game_state

    table = open_room(2, "painted")
    game = play_to_end(table, random.Random(8))
    data = replay_data(Client().get(f"/r/{game.code}/replay").content.decode())
    rolls = [s for s in data["steps"] if s["kind"] == "roll"]
    assert rolls and all(len(s["colours"]) == 5 and set(s["colours"]) <= set(COLOURS) for s in rolls)
    scores = [s for s in data["steps"] if s["kind"] == "score"]
    assert all(s["colours"] and len(s["colours"]) == len(s["dice"]) for s in scores)
    # The layout the page draws has the colour section; each card has its colour sum, as the room's state.
    sections = [section["name"] for section in data["ruleset"]["scorecard"]["sections"]]
    assert sections == ["upper", "lower", "colour", "totals"]
    last = {s["seat"]: s["card"] for s in scores}
    assert [last[seat] for seat in range(2)] == game_state(game)["cards"]


def test_a_plain_replay_has_no_colours() -> None:
    table = open_room(1)
    game = play_to_end(table, random.Random(3))
    data = replay_data(Client().get(f"/r/{game.code}/replay").content.decode())
    assert all(s["colours"] == [] for s in data["steps"])
    assert "colour" not in [section["name"] for section in data["ruleset"]["scorecard"]["sections"]]


def test_a_room_everyone_left_before_the_start_links_no_replay() -> None:
    """Abandoned in the lobby, there is nothing to replay (its page says it "never started"):
    the state and the review give no ``replay_url``, so the game-over panel offers no replay."""
    host = Client()
    response = host.post("/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"})
    code = response["Location"].strip("/").split("/")[-1]
    game = Game.objects.get(code=code)
    host.post(f"/r/{code}/leave", {"version": game.version, "seat": "0", "action_id": "bye"})
    assert Game.objects.get(code=code).status == "abandoned"
    assert host.get(f"/r/{code}/state.json").json()["replay_url"] is None
    assert host.get(f"/r/{code}/review.json").json()["replay_url"] is None
    assert host.get(f"/r/{code}/replay").status_code == 409


def test_the_replay_of_a_room_everyone_left_before_the_start_says_why_in_the_readers_language_and_is_no_miss(
    settings: Any,
) -> None:
    """The code is right: its replay is no guess of one, and does not spend the address's allowance
    of misses. The page says, in its reader's language, that the game never started, and its header
    leads back to the room."""
    settings.RATE_LIMIT_ROOM_MISS = "2/60"
    host = Client()
    code = host.post("/rooms/new", {"name": "Ann", "ruleset": "official", "mode": "online"})["Location"].split("/")[-2]
    game = Game.objects.get(code=code)
    host.post(f"/r/{code}/leave", {"version": game.version, "seat": "0", "action_id": "bye"})
    with translation.override("de"):
        said = gettext("This game never started")
    assert said != "This game never started"
    reader = Client(REMOTE_ADDR="10.0.5.5", HTTP_ACCEPT_LANGUAGE="de")
    for _ in range(3):
        response = reader.get(f"/r/{code}/replay")
        assert response.status_code == 409
        page = response.content.decode()
        card = re.search(r'<section class="card">(.*?)</section>', page, re.S)
        assert card and said in card.group(1), page
        assert page.count(f'href="/r/{code}/"') == 1, page  # back to the room: the header's link
        assert "replay-data" not in page
    assert reader.get(f"/r/{code}/").status_code == 200  # three looks, and the room is still open to it


def test_a_game_abandoned_after_its_start_links_its_replay() -> None:
    table = open_room(2)
    everyone_leaves(table, (0, 1))
    game = table.game
    assert game.status == "abandoned" and game.started_at is not None
    url = Client().get(f"/r/{game.code}/state.json").json()["replay_url"]
    assert url == f"/r/{game.code}/replay" and Client().get(url).status_code == 200


def test_the_steps_tell_which_seats_are_still_in_from_the_start_and_after_each_leave() -> None:
    """The table strikes through a seat that left for the rest of the game: the replay's steps say
    which seats are in at the start and again at each step after which that changed."""
    from games import services

    table = open_room(3)
    rng = random.Random(4)
    for _ in range(3):
        play_turn(table, rng)
    services.game_leave(
        code=table.code, controller=table.controllers[1], seat=1, expected_version=None, action_id=action_id()
    )
    game = play_to_end(table, rng)
    steps = replay_data(Client().get(f"/r/{game.code}/replay").content.decode())["steps"]
    told = [(s["kind"], s["active"]) for s in steps if "active" in s]
    assert told == [("start", [True, True, True]), ("leave", [True, False, True])], told


def test_each_name_in_the_replays_review_is_a_run_of_its_own_in_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    """A right-to-left name, or one ending in a number, takes the figures beside it into its run:
    each seat's line of the review is one sentence to translate with its name in a <bdi> (and a
    computer's seat said so beside its name)."""
    table = open_room(2)
    game = play_to_end(table, random.Random(12))
    review = coach.review(game)
    renamed = {
        **review,
        "seats": [
            {**review["seats"][0], "name": "שרה 2", "mistakes": 2, "lost": 9.5, "like_solver": False},
            {**review["seats"][1], "name": "Bo 7", "kind": "bot", "mistakes": 0, "lost": 0.0, "like_solver": True},
        ],
    }
    monkeypatch.setattr(coach, "review", lambda game: renamed)
    headings = seat_headings(review_section(Client().get(f"/r/{game.code}/replay").content.decode()))
    assert headings[0].startswith(
        "<bdi>שרה 2</bdi>'s choices cost about 9.5 points against the coach's play; 2 of them were costly."
    ), headings
    choices = renamed["seats"][1]["choices"]
    solver = f"<bdi>Bo 7</bdi> (computer) played like the solver: no costly choice in {choices} choices."
    assert headings[1] == solver, headings
    # Before a possessive the name stands alone: not "Bo 7 (computer)'s choices".
    renamed["seats"][1] = {**renamed["seats"][1], "mistakes": 1, "lost": 3.5, "like_solver": False}
    headings = seat_headings(review_section(Client().get(f"/r/{game.code}/replay").content.decode()))
    assert headings[1].startswith(
        "<bdi>Bo 7</bdi>'s choices cost about 3.5 points against the coach's play; 1 of them was costly."
    ), headings


def test_the_replays_review_says_what_the_choices_cost_as_the_game_over_panel_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At the end of a game "Ann lost 12.4 points" reads as the game lost, and "in 3 costly
    choices" puts the whole figure (every choice's loss, the small ones too) on the costly ones
    alone: the replay says it in the game-over panel's sentences, one costly choice or several."""
    table = open_room(2)
    game = play_to_end(table, random.Random(12))
    review = coach.review(game)
    worded = {
        **review,
        "seats": [
            {**review["seats"][0], "name": "Ann", "mistakes": 1, "lost": 12.4, "like_solver": False},
            {**review["seats"][1], "name": "Bo", "mistakes": 3, "lost": 30.0, "like_solver": False},
        ],
    }
    monkeypatch.setattr(coach, "review", lambda game: worded)
    headings = seat_headings(review_section(Client().get(f"/r/{game.code}/replay").content.decode()))
    assert headings[0].startswith(
        "<bdi>Ann</bdi>'s choices cost about 12.4 points against the coach's play; 1 of them was costly."
    ), headings
    assert headings[1].startswith(
        "<bdi>Bo</bdi>'s choices cost about 30.0 points against the coach's play; 3 of them were costly."
    ), headings
    assert not any(" lost " in heading for heading in headings), headings


def test_the_replays_review_speaks_the_game_over_panels_sentences_for_the_same_seats(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One wording of a seat's review: every sentence the replay says of a seat is one the room's
    game-over panel (static/js/room/over.js) says of it, the count of its choices included."""
    table = open_room(3)
    game = play_to_end(table, random.Random(12))
    review = coach.review(game)
    seats = review["seats"]
    worded = {
        **review,
        "seats": [
            {**seats[0], "name": "Ann", "mistakes": 0, "lost": 0.2, "like_solver": True, "choices": 1},
            {**seats[1], "name": "Bo", "mistakes": 0, "lost": 0.0, "like_solver": True, "choices": 30},
            {**seats[2], "name": "Cy", "mistakes": 0, "lost": 4.5, "like_solver": False, "choices": 30},
        ],
    }
    monkeypatch.setattr(coach, "review", lambda game: worded)
    headings = seat_headings(review_section(Client().get(f"/r/{game.code}/replay").content.decode()))
    assert headings[0] == "<bdi>Ann</bdi> played like the solver: no costly choice in 1 choice.", headings
    assert headings[1] == "<bdi>Bo</bdi> played like the solver: no costly choice in 30 choices.", headings
    assert headings[2].startswith("<bdi>Cy</bdi>'s choices cost about 4.5 points"), headings
    over = (settings.BASE_DIR / "static" / "js" / "room" / "over.js").read_text()
    panel = set(re.findall(r'"(%\(name\)s[^"]*)"', over))
    for seat, heading in zip(worded["seats"], headings, strict=True):
        said = {
            line % {"name": f"<bdi>{seat['name']}</bdi>", "n": seat["choices"], "lost": seat["lost"]} for line in panel
        }
        assert heading in said, (heading, sorted(said))


def test_the_replays_review_is_drawn_by_the_code_and_template_serving_the_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deploy that changes how the coach's review reads shows at the next view: a review drawn
    by the release before is not served from a cache kept across the deploy (the verdicts under
    it, kept in no words, are; tests/services)."""
    table = open_room(2)
    game = play_to_end(table, random.Random(5))
    before = review_section(Client().get(f"/r/{game.code}/replay").content.decode())
    assert "A new release words the review anew." not in before
    real = coach.review

    def new_release(game: Game) -> dict[str, Any]:
        return {**real(game), "note": "A new release words the review anew."}

    monkeypatch.setattr(coach, "review", new_release)
    after = review_section(Client().get(f"/r/{game.code}/replay").content.decode())
    assert "A new release words the review anew." in after


def test_a_replays_data_made_for_one_release_of_the_scripts_is_not_read_by_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The replay's steps are kept in the cache an hour; a deploy whose replay.js reads them
    differently makes them anew rather than hand the new script the old release's data."""
    from games.web import views

    game = play_to_end(open_room(2), random.Random(6))
    first = Client().get(f"/r/{game.code}/replay").content.decode()
    made = []
    real = views.replay_steps

    def counted(*args: Any, **kwargs: Any) -> Any:
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(views, "replay_steps", counted)
    assert replay_data(Client().get(f"/r/{game.code}/replay").content.decode()) == replay_data(first)
    assert made == []  # the same release: the kept data
    monkeypatch.setattr(views, "static_version", lambda: "a-new-release")
    assert replay_data(Client().get(f"/r/{game.code}/replay").content.decode()) == replay_data(first)
    assert made == [1]  # another release: made anew

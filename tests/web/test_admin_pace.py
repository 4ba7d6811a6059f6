"""The admin's games under way: staff see each one's pace, whose move it is and its deadline, and give more time."""

from __future__ import annotations

import random
import re
from datetime import timedelta
from html import unescape

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import date_format

from games import services
from games.store import moves
from games.store.models import Game, Move
from games.store.selectors import seconds_left
from tests.factories import open_room, own_pace_room, play_to_end, score_first_legal
from tests.web.test_admin import text

pytestmark = pytest.mark.django_db
DAY = 86_400
UNDER_WAY = reverse("admin:games_gameunderway_changelist")


def event_rows(page_html: str) -> list[str]:
    """The rows of a game review's "Room events and chat" table, as text."""
    section = page_html[page_html.index("Room events and chat") :]
    return [
        re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", row))).strip()
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", section, flags=re.S)
    ]


def under_way_row(client: Client, code: str, **headers: str) -> str:
    """The row of the game ``code`` in *Games under way*, as text."""
    html = client.get(UNDER_WAY, **headers).content.decode()
    rows = [
        re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", row))).strip()
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", html, flags=re.S)
    ]
    return next(row for row in rows if services.shown_code(code) in row)


@pytest.fixture
def staff_client() -> Client:
    user = get_user_model().objects.create_user("clerk", password="pw", is_staff=True)
    client = Client()
    client.force_login(user)
    return client


def ask_more_time(client: Client, *games: Game, seconds: int = DAY, **headers: str) -> HttpResponse:
    """Staff select ``games`` in *Games under way* and pick "Give the player to move … more": the
    page that asks to confirm it (or, with no game to give time to, the list with the refusals)."""
    selected = {"action": f"extend_{seconds}", "_selected_action": [game.pk for game in games]}
    return client.post(UNDER_WAY, selected, follow=True, **headers)


def confirm(client: Client, page: HttpResponse, **headers: str) -> HttpResponse:
    """Staff confirm the page ``ask_more_time`` showed: its form posted as it stands."""
    form = re.search(r'<form method="post">(.*?)</form>', page.content.decode(), flags=re.S)
    assert form is not None, "no confirmation page"
    fields: dict[str, list[str]] = {}
    for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form[1]):
        fields.setdefault(name, []).append(unescape(value))
    return client.post(UNDER_WAY, fields, follow=True, **headers)


def give_more_time(client: Client, *games: Game, seconds: int = DAY, **headers: str) -> HttpResponse:
    """Staff give the player to move in each of ``games`` more time: the action, then its confirmation."""
    return confirm(client, ask_more_time(client, *games, seconds=seconds, **headers), **headers)


def test_staff_see_the_games_under_way_with_their_pace_and_deadline(staff_client: Client) -> None:
    slow = own_pace_room(seconds=7 * DAY)
    live = open_room(2)
    html = staff_client.get(UNDER_WAY).content.decode()
    assert services.shown_code(slow.code) in html and services.shown_code(live.code) in html
    assert "own pace, 7 days a move" in html and "P0" in html
    assert re.search(r"6 days|7 days", html)  # the time left
    page = staff_client.get(reverse("admin:games_gameunderway_change", args=[slow.game.pk])).content.decode()
    assert "own pace, 7 days a move" in page
    assert slow.game.server_seed not in page  # the secret seed stays out of sight while the game runs
    # The own-pace filter.
    filtered = staff_client.get(UNDER_WAY, {"pace__exact": "own"}).content.decode()
    assert services.shown_code(slow.code) in filtered and services.shown_code(live.code) not in filtered


def test_a_move_whose_deadline_passed_is_listed_with_its_time_up_not_as_having_no_limit(staff_client: Client) -> None:
    late = own_pace_room(seconds=DAY)
    Game.objects.filter(code=late.code).update(turn_deadline=timezone.now() - timedelta(seconds=2))
    html = staff_client.get(UNDER_WAY).content.decode()
    assert "time is up" in html and "no limit" not in html


def test_staff_give_the_player_to_move_more_time_logged_as_a_move_and_in_the_admin(staff_client: Client) -> None:
    table = own_pace_room(seconds=DAY)
    before = table.game.turn_deadline
    response = give_more_time(staff_client, table.game, seconds=3 * DAY)
    game = table.game
    assert game.turn_deadline == before + timedelta(days=3)
    with translation.override("en"):
        until = date_format(timezone.localtime(game.turn_deadline), "DATETIME_FORMAT")
    success = f"Game {services.shown_code(table.code)}: P0 was given 3 days more to move (until {until})."
    assert success in text(response), text(response)
    move = Move.objects.filter(game=game).latest("seq")
    assert move.kind == Move.Kind.EXTEND and move.payload["by"] == "clerk"
    entry = LogEntry.objects.get()
    assert entry.user.get_username() == "clerk"
    assert "Gave the player to move (seat 1) 3 days more" in entry.get_change_message()
    history = staff_client.get(reverse("admin:games_gameunderway_history", args=[game.pk])).content.decode()
    assert "Gave P0 3 days more to move" in history and "clerk" in history


def test_a_game_with_no_clock_running_is_not_extended_and_says_why(staff_client: Client) -> None:
    table = own_pace_room(seconds=0)
    version = table.version()
    response = ask_more_time(staff_client, table.game)
    html = response.content.decode()
    assert '<form method="post">' not in html and "was given" not in html  # nothing to confirm
    shown = services.shown_code(table.code)
    assert f"Game {shown}: Only a running clock can be extended: the game has no time per move." in html
    assert table.version() == version


def test_staff_confirm_more_time_on_a_page_that_names_the_player_to_move_in_each_game(staff_client: Client) -> None:
    """Picking the action gives nothing yet: a page lists each game selected with the player to move
    now (those with no clock running, with the reason), and only its confirmation gives the time."""
    ann_to_move = own_pace_room(players=2, seconds=DAY)
    ben_to_move = own_pace_room(players=2, seconds=DAY)
    score_first_legal(ben_to_move)
    no_clock = own_pace_room(seconds=0)
    before = {t.code: t.game.turn_deadline for t in (ann_to_move, ben_to_move)}
    page = ask_more_time(staff_client, ann_to_move.game, ben_to_move.game, no_clock.game, seconds=3 * DAY)
    shown = text(page)
    assert "Give the player to move 3 days more?" in shown, shown
    assert f"{services.shown_code(ann_to_move.code)} Yahtzee (official) P0 (seat 1)" in shown, shown
    assert f"{services.shown_code(ben_to_move.code)} Yahtzee (official) P1 (seat 2)" in shown, shown
    assert f"Game {services.shown_code(no_clock.code)}: Only a running clock can be extended" in shown, shown
    assert not Move.objects.filter(kind=Move.Kind.EXTEND).exists()  # nothing given yet
    done = text(confirm(staff_client, page))
    assert f"Game {services.shown_code(ann_to_move.code)}: P0 was given 3 days more to move" in done, done
    assert f"Game {services.shown_code(ben_to_move.code)}: P1 was given 3 days more to move" in done, done
    for table in (ann_to_move, ben_to_move):
        assert table.game.turn_deadline == before[table.code] + timedelta(days=3)
    assert Move.objects.filter(kind=Move.Kind.EXTEND).count() == 2


def test_more_time_goes_to_the_player_staff_saw_to_move_never_to_the_next_one(staff_client: Client) -> None:
    """A clerk sees Ann (P0) to move with two minutes left, the list's first row, and gives her a day.
    Her time runs out before the clerk confirms and the server plays her move: Bob (P1) is to move.
    The day is not his: the game is given nothing, and the clerk is told why."""
    table = own_pace_room(players=2, seconds=DAY)
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() + timedelta(minutes=2))
    page = ask_more_time(staff_client, table.game)
    assert "P0 (seat 1)" in text(page)
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert services.clock_expire(code=table.code, version=table.version())
    bobs = table.game.turn_deadline
    version = table.version()
    done = confirm(staff_client, page)
    assert table.game.turn_deadline == bobs and table.version() == version
    assert not Move.objects.filter(game=table.game, kind=Move.Kind.EXTEND).exists()
    warnings = [unescape(w) for w in re.findall(r'<li class="warning">(.*?)</li>', done.content.decode(), flags=re.S)]
    moved_on = "The turn has moved on since: it was P0's move, and P1 is to move now."
    assert warnings == [f"Game {services.shown_code(table.code)}: {moved_on}"], warnings
    assert "was given" not in text(done) and not LogEntry.objects.exists()


def test_more_time_confirmed_for_a_game_that_has_ended_since_says_so(staff_client: Client) -> None:
    table = own_pace_room(players=1, seconds=DAY)
    page = ask_more_time(staff_client, table.game)
    game = play_to_end(table, random.Random(4), rerolls=0)
    done = confirm(staff_client, page)
    assert f"Game {services.shown_code(table.code)}: the game has ended since." in text(done), text(done)
    assert not Move.objects.filter(game=game, kind=Move.Kind.EXTEND).exists()


def test_a_paused_game_is_listed_as_paused_with_the_time_its_turn_keeps(staff_client: Client) -> None:
    """A pause stops the clock (no deadline) and keeps what the turn had left, to run again on resume:
    paused a moment into a day's move, the whole minutes left, as the room's countdown shows them."""
    table = own_pace_room(seconds=DAY)
    services.game_pause(code=table.code, controller=table.controllers[0], expected_version=None, action_id="p")
    row = under_way_row(staff_client, table.code)
    assert "Paused P0 23 hours 59 minutes (paused)" in row, row
    assert "Playing" not in row


def test_a_turn_that_came_up_during_the_pause_is_listed_with_the_whole_time_it_will_have(
    staff_client: Client,
) -> None:
    """P1 has 2 hours left when the host pauses and leaves during the pause: P2, to move, will
    have a whole day on resume, as the room page and Your games say (``seconds_left``)."""
    table = own_pace_room(players=3, seconds=DAY)
    p0, p1, _p2 = table.controllers
    score_first_legal(table)  # P1 to move
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() + timedelta(hours=2))
    moves.forget_all()
    services.game_pause(code=table.code, controller=p0, expected_version=None, action_id="p")
    services.game_leave(code=table.code, controller=p1, seat=1, expected_version=None, action_id="l")
    game = Game.objects.get(code=table.code)
    assert game.room.rules is not None and game.room.rules.current == 2
    assert seconds_left(game) == DAY
    row = under_way_row(staff_client, table.code)
    assert "P2 1 day (paused)" in row, row


def test_a_paused_game_with_a_computer_to_play_is_listed_with_no_time(staff_client: Client) -> None:
    """No clock runs for a computer, paused or not: P1 left during the pause, a computer plays next."""
    table = own_pace_room(players=2, seconds=DAY, start=False)
    p0, p1 = table.controllers
    services.game_add_bot(code=table.code, controller=p0, level="casual", expected_version=None, action_id="b")
    services.game_start(code=table.code, controller=p0, expected_version=None, action_id="s")
    score_first_legal(table)  # P1 to move
    services.game_pause(code=table.code, controller=p0, expected_version=None, action_id="p")
    services.game_leave(code=table.code, controller=p1, seat=1, expected_version=None, action_id="l")
    game = Game.objects.get(code=table.code)
    assert game.room.rules is not None and game.room.seats[game.room.rules.current].bot
    row = under_way_row(staff_client, table.code)
    assert row.endswith("Paused Rolly — -"), row  # no time left, no deadline


@pytest.mark.parametrize("why", ["paused", "computer"])
def test_more_time_refused_says_why_no_clock_runs(staff_client: Client, why: str) -> None:
    table = own_pace_room(1 if why == "computer" else 2, seconds=DAY, start=why != "computer")
    if why == "paused":
        services.game_pause(code=table.code, controller=table.controllers[0], expected_version=None, action_id="p")
    else:
        host = table.controllers[0]
        services.game_add_bot(code=table.code, controller=host, level="casual", expected_version=None, action_id="b")
        services.game_start(code=table.code, controller=table.controllers[0], expected_version=None, action_id="s")
        score_first_legal(table)
    response = ask_more_time(staff_client, table.game)
    warnings = re.findall(r'<li class="warning">(.*?)</li>', response.content.decode(), flags=re.S)
    assert len(warnings) == 1 and warnings[0].startswith(f"Game {services.shown_code(table.code)}: "), warnings
    assert why in warnings[0] and "nobody is on the clock" not in warnings[0], warnings


def test_people_who_are_not_staff_cannot_extend() -> None:
    table = own_pace_room(seconds=DAY)
    before = table.game.turn_deadline
    plain = Client()
    plain.force_login(get_user_model().objects.create_user("visitor", password="pw"))
    key = table.game.room.turn_key(playing=True)
    assert key is not None
    confirmed = {
        "action": "extend_86400", "_selected_action": [table.game.pk], "post": "yes",
        f"turn_{table.game.pk}": f"{key[0]}-{key[1]}",
    }  # fmt: skip
    for client in (Client(), plain):
        for form in ({"action": "extend_86400", "_selected_action": [table.game.pk]}, confirmed):
            response = client.post(UNDER_WAY, form)
            assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert table.game.turn_deadline == before


def test_a_finished_games_page_shows_its_pace(staff_client: Client) -> None:
    table = own_pace_room(players=1, seconds=3 * DAY)
    Game.objects.filter(code=table.code).update(status=Game.Status.FINISHED)
    page = staff_client.get(reverse("admin:games_game_change", args=[table.game.pk])).content.decode()
    assert re.search(r"At your own pace", page) and "259200" in page


def test_games_under_way_list_the_next_deadline_first(staff_client: Client) -> None:
    """Ordered by ``turn_deadline``, the move about to run out first: lobbies, paused games and
    games without a clock (no deadline) come after every game whose time is running out."""
    for _ in range(3):
        open_room(2, start=False)  # lobbies: no clock
    running = own_pace_room(players=2, seconds=DAY)
    response = staff_client.get(UNDER_WAY)
    codes = [game.code for game in response.context["cl"].result_list]
    assert codes[0] == running.code, codes


def test_the_review_tells_how_much_more_time_staff_gave_and_who_gave_it(staff_client: Client) -> None:
    """docs/admin.md: the extend Move is logged "so its replay and review tell it: 'Ben was given
    1 day more to move'": the review's row says how much time and which staff member gave it."""
    table = own_pace_room(players=1, seconds=DAY)
    give_more_time(staff_client, table.game, seconds=3 * DAY)
    game = play_to_end(table, random.Random(1), rerolls=0)
    page = staff_client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    row = next(r for r in event_rows(page) if "extended" in r.lower())
    assert "3 days more to move, given by clerk" in row, row


def extend_row(staff_client: Client, game: Game) -> str:
    """The review's row of the game's one ``extend`` Move, as text."""
    page = staff_client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    seq = Move.objects.get(game=game, kind=Move.Kind.EXTEND).seq
    return next(r for r in event_rows(page) if r.startswith(f"{seq} "))


def test_the_review_does_not_credit_staff_with_the_time_an_outage_gave_back(staff_client: Client) -> None:
    """After an outage the server gives the player to move the time lost (``clock_outage``, an
    ``extend`` Move marked ``outage``): no staff member acted, and the review says what did."""
    table = own_pace_room(players=1, seconds=DAY)
    since = timezone.now() - timedelta(minutes=10)
    assert services.clock_outage(code=table.code, gap=timedelta(minutes=10), since=since)
    game = play_to_end(table, random.Random(2), rerolls=0)
    row = extend_row(staff_client, game)
    assert "by staff" not in row and "given by" not in row, row
    assert "given back after an outage" in row and "10 minutes given back" in row, row


def test_the_review_words_deadlines_moved_back_with_the_servers_clock(staff_client: Client) -> None:
    """A server clock set back moves running deadlines back with it (an ``extend`` Move marked
    ``set_back``, its seconds negative): nobody gave time, and the review says what happened."""
    table = own_pace_room(players=1, seconds=DAY)
    since = timezone.now()
    assert services.clock_set_back(code=table.code, step=timedelta(hours=1), since=since)
    game = play_to_end(table, random.Random(3), rerolls=0)
    row = extend_row(staff_client, game)
    assert "given by" not in row and "more to move" not in row, row
    assert "moved back 1 hour with the server's clock" in row, row


@pytest.mark.parametrize("admin_name", ["games_game_history", "games_gameunderway_history"])
def test_a_deadline_moved_back_with_the_servers_clock_is_no_staff_action_in_the_history(
    staff_client: Client, admin_name: str
) -> None:
    """clock_set_back logs an ``extend`` Move marked ``set_back`` (seconds negative, actor server:clock):
    no staff member acted, so the History, which lists what staff did, does not show it as staff
    "?" having "Gave P0 no limit more to move"."""
    table = own_pace_room(players=1, seconds=DAY)
    assert services.clock_set_back(code=table.code, step=timedelta(hours=1), since=timezone.now())
    game = table.game
    if admin_name == "games_game_history":  # the finished games' list
        game = play_to_end(table, random.Random(3), rerolls=0)
    response = staff_client.get(reverse(f"admin:{admin_name}", args=[game.pk]))
    assert response.status_code == 200
    page = response.content.decode()
    assert "more to move" not in page, page[page.find("change-history") :][:800]
    assert "Staff have not acted" in page


def test_the_finished_games_history_keeps_the_staff_extension(staff_client: Client) -> None:
    """docs/admin.md: "the admin's history logs who did it": once the game is over (and has left
    Games under way) its History still says so, and Recent actions' entry leads to its page."""
    table = own_pace_room(players=1, seconds=DAY)
    give_more_time(staff_client, table.game)
    game = play_to_end(table, random.Random(3), rerolls=0)
    assert game.status == Game.Status.FINISHED
    history = staff_client.get(reverse("admin:games_game_history", args=[game.pk])).content.decode()
    assert "Gave P0 1 day more to move" in history, history[-600:]
    assert LogEntry.objects.get().get_admin_url() == reverse("admin:games_game_change", args=[game.pk])


def test_recent_actions_entry_of_more_time_given_to_a_running_game_leads_to_its_page(staff_client: Client) -> None:
    """The entry in *Recent actions* is logged against the Game, so that it stays with the game once
    it is over: while it runs, its link leads to the game's page in Games under way."""
    table = own_pace_room(2, seconds=DAY)
    give_more_time(staff_client, table.game)
    entry = LogEntry.objects.get()
    index = staff_client.get(reverse("admin:index")).content.decode()
    assert entry.get_admin_url() in index  # the link Recent actions offers
    response = staff_client.get(entry.get_admin_url(), follow=True)
    under_way = reverse("admin:games_gameunderway_change", args=[table.game.pk])
    assert response.redirect_chain[-1][0] == under_way
    page = response.content.decode()
    assert services.shown_code(table.code) in page and "doesn’t exist" not in page
    assert table.game.server_seed not in page
    history = staff_client.get(reverse("admin:games_game_history", args=[table.game.pk]), follow=True)
    assert history.redirect_chain[-1][0] == reverse("admin:games_gameunderway_history", args=[table.game.pk])
    assert "Gave P0 1 day more to move" in history.content.decode()


def test_a_games_under_way_page_kept_from_before_it_ended_leads_to_its_review(staff_client: Client) -> None:
    table = own_pace_room(players=1, seconds=DAY)
    game = play_to_end(table, random.Random(3), rerolls=0)
    response = staff_client.get(reverse("admin:games_gameunderway_change", args=[game.pk]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("admin:games_game_change", args=[game.pk])
    assert "Turn by turn" in response.content.decode()


def test_the_admins_own_words_are_english_for_staff_reading_german(staff_client: Client) -> None:
    """docs/translations.md: the admin's own additions are English, whatever language Django's own
    admin pages are read in: no "1 Tag" in an English sentence, least of all in the log kept for
    every staff member."""
    table = own_pace_room(2, seconds=DAY)
    german = {"HTTP_ACCEPT_LANGUAGE": "de"}
    page = ask_more_time(staff_client, table.game, **german)
    assert "1 Tag" not in text(page) and "Give the player to move 1 day more?" in text(page), text(page)
    confirmed = text(confirm(staff_client, page, **german))
    assert "P0 was given 1 day more to move" in confirmed and "1 Tag" not in confirmed, confirmed
    logged = LogEntry.objects.get().get_change_message()
    assert "1 day more" in logged, logged
    history = text(staff_client.get(reverse("admin:games_gameunderway_history", args=[table.game.pk]), **german))
    with translation.override("en"):
        until = date_format(timezone.localtime(table.game.turn_deadline), "DATETIME_FORMAT")
    assert f"Gave P0 1 day more to move (until {until})" in history, history[-300:]
    listed = under_way_row(staff_client, table.code, **german)
    assert "own pace, 1 day a move" in listed and re.search(r"\b(1|2) days?\b", listed), listed


@pytest.mark.parametrize("ticked", ["abc", "1.5", "\x00", "9" * 30])
def test_a_selection_naming_no_game_gives_no_time_and_says_so_not_a_server_error(
    staff_client: Client, ticked: str
) -> None:
    """A hand-made post whose ticked row is no game's key (not a number) selects nothing: the list
    says so, and the game ticked beside it is not given time either, its deadline as it was."""
    table = open_room()
    game = table.game
    staff_client.raise_request_exception = False
    for post in ("", "yes"):  # the action asked, and its confirmation
        fields = {"action": f"extend_{DAY}", "_selected_action": [ticked, str(game.pk)], "post": post}
        response = staff_client.post(UNDER_WAY, fields | {f"turn_{game.pk}": "0-0"}, follow=True)
        assert response.status_code == 200
        assert "names no row of this list" in text(response)
    assert Game.objects.get(pk=game.pk).turn_deadline == game.turn_deadline
    assert not Move.objects.filter(game=game, kind=Move.Kind.EXTEND).exists()

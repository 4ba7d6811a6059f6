"""The administrator's review: staff read finished games and their timelines; nobody edits history."""

from __future__ import annotations

import random
import re
from html import unescape

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

import bots
from games import services
from games.domain.rules import RULESETS, Box
from games.store.models import Game, Move, Player, ScoreEntry
from games.store.selectors import game_state
from tests.factories import action_id, left_in_the_lobby, loaded_dice, open_room, play_to_end, play_turns

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:games_game_changelist")


def game_url(game: Game, view: str = "change") -> str:
    return reverse(f"admin:games_game_{view}", args=[game.pk])


def finished(players: int = 2, ruleset: str = "official", seed: int = 1) -> Game:
    return play_to_end(open_room(players, ruleset), random.Random(seed))


def abandoned() -> Game:
    """A room whose last player left the lobby."""
    game = left_in_the_lobby().game
    assert game.status == Game.Status.ABANDONED
    return game


def walked_out() -> Game:
    """A started game whose only player leaves after one roll."""
    table = open_room(1)
    services.turn_roll(code=table.code, controller=table.controllers[0], expected_version=None, action_id="r")
    services.game_leave(code=table.code, controller=table.controllers[0], seat=0, expected_version=None, action_id="l")
    return table.game


def rename(game: Game, seat: int, name: str) -> None:
    """Give a seat a findable name (in the Player row, the snapshot and the join move)."""
    player = Player.objects.get(game=game, seat=seat)
    player.name = name
    player.save()
    game.snapshot["seats"][seat]["name"] = name
    game.save()
    Move.objects.filter(game=game, kind=Move.Kind.JOIN, player=player).update(payload={"name": name})


def text(response) -> str:
    """The page's visible text, tags dropped and whitespace squeezed."""
    body = re.sub(r"<style.*?</style>|<script.*?</script>", " ", response.content.decode(), flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", body)))


@pytest.fixture
def staff_client() -> Client:
    user = get_user_model().objects.create_user("clerk", password="pw", is_staff=True)
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def plain_client() -> Client:
    user = get_user_model().objects.create_user("visitor", password="pw")
    client = Client()
    client.force_login(user)
    return client


# --- the game's page --------------------------------------------------------------------------


def test_staff_see_the_timeline_rebuilt_from_the_move_log(staff_client: Client) -> None:
    game = finished(2, "official", seed=3)
    response = staff_client.get(game_url(game))
    assert response.status_code == 200
    html = response.content.decode()
    rolls = Move.objects.filter(game=game, kind=Move.Kind.ROLL).order_by("seq")
    scores = Move.objects.filter(game=game, kind=Move.Kind.SCORE).order_by("seq")
    assert rolls.count() >= 26 and scores.count() == 26
    for move in rolls:
        held, dice = move.payload["held"], move.payload["dice"]
        dice_html = "".join(
            f'<b class="die held" title="held">{value}</b>' if i in held else f'<span class="die">{value}</span>'
            for i, value in enumerate(dice)
        )
        assert dice_html in html, f"roll {move.payload['roll']} is missing"
    ruleset = RULESETS["official"]
    rows = re.findall(r'<tr id="turn-(\d+)" class="turn">(.*?)</tr>', html, flags=re.S)
    timeline = {int(number): unescape(re.sub(r"<[^>]+>", " ", rest)) for number, rest in rows}
    for move in scores:
        p = move.payload
        row = timeline[p["turn"]]
        assert ruleset.box_label(Box(p["box"])) in row
        assert f" {p['points']} " in f" {' '.join(row.split())} "
        assert move.player.name in row
    page = text(response)
    assert f"All {rolls.count()} rolls re-derived from the revealed seed: OK" in page
    assert "gives the stored final state: OK" in page
    assert game.server_seed in page and game.seed_commitment in page and game.client_seed in page


def test_the_timeline_says_which_dice_were_held_in_words_a_screen_reader_reads(staff_client: Client) -> None:
    """Bold type and a ``title`` tell a held die to the eye; a screen reader reads no ``title`` on
    text, so each roll with held dice says them in visually hidden words after its dice."""
    game = finished(1, seed=3)
    html = staff_client.get(game_url(game)).content.decode()
    rolls = [m.payload for m in Move.objects.filter(game=game, kind=Move.Kind.ROLL).order_by("seq")]
    assert any(roll["held"] for roll in rolls), "no roll with held dice in this game"
    spoken = [
        unescape(re.sub(r"<[^>]+>", " ", roll))
        for roll in re.findall(r'<span class="roll"[^>]*>(.*?</span>)(?=<span class="roll"|</td>)', html, flags=re.S)
    ]
    assert len(spoken) == len(rolls)
    for roll, said in zip(rolls, spoken, strict=True):
        held = " ".join(str(value) for i, value in enumerate(roll["dice"]) if i in roll["held"])
        assert (f"(held: {held})" in said) == bool(held), said


def test_the_scorecards_show_every_box_the_totals_and_the_winner(staff_client: Client) -> None:
    game = finished(2, "yatzy", seed=5)
    rename(game, 0, "Ada")
    rename(game, 1, "Bob")
    page = text(staff_client.get(game_url(game)))
    state = game_state(game)
    for label in ("Ones", "Sixes", "Upper sum", "Upper bonus", "One Pair", "Yatzy", "Lower sum", "Total"):
        assert label in page
    assert "Yatzy bonus" not in page  # Yatzy has none
    totals = [card["total"] for card in state["cards"]]
    assert re.search(rf"Total {totals[0]} {totals[1]} ", page)
    winners = ", ".join(state["seats"][s]["name"] for s in state["winners"])
    assert f"Winner{'s' if len(state['winners']) > 1 else ''}: {winners}" in page


def test_triple_yahtzee_has_three_columns_per_player(staff_client: Client) -> None:
    game = finished(1, "triple", seed=7)
    html = staff_client.get(game_url(game)).content.decode()
    assert html.count('<th scope="col" class="num">×2</th>') == 1
    assert 'colspan="3"' in html
    card = game_state(game)["cards"][0]
    column_totals = " ".join(str(col["total"]) for col in card["columns"])
    assert f"Column total {column_totals} " in text(staff_client.get(game_url(game)))
    assert "(×3)" in html  # the timeline names the column too


def test_the_review_of_a_triple_game_shows_each_extra_yahtzee_where_it_went_with_its_bonus(
    staff_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five 4s in column 1's Yahtzee box, then five 4s three times more: the open ×3 and ×2 Yahtzee
    boxes first (150 + 300, 100 + 200), then a Fours box (×2: 40 + 300), then the rest of the card
    on plain rolls. The review shows each turn's box, column, points and bonus, and each column's
    Yahtzee bonus, as the table did."""
    boxes = RULESETS["triple"].boxes
    first = [("yahtzee", 0), ("yahtzee", 2), ("yahtzee", 1), ("fours", 1)]
    rest = [(box.value, column) for column in range(3) for box in boxes if (box.value, column) not in first]
    loaded_dice(monkeypatch, [[4] * 5] * 4 + [[1, 2, 3, 4, 6]] * len(rest))
    table = open_room(1, "triple")
    play_turns(table, first + rest)
    game = table.game
    assert game.status == Game.Status.FINISHED
    response = staff_client.get(game_url(game))
    page = text(response)
    assert "All 39 rolls re-derived from the revealed seed: OK" in page
    assert "gives the stored final state: OK" in page
    rows = re.findall(r'<tr id="turn-(\d+)" class="turn">(.*?)</tr>', response.content.decode(), flags=re.S)
    timeline = {int(n): " ".join(unescape(re.sub(r"<[^>]+>", " ", row)).split()) for n, row in rows}
    assert timeline[1].endswith("Yahtzee 1 (×1) 50")
    assert timeline[2].endswith("Yahtzee 3 (×3) 150 +300")
    assert timeline[3].endswith("Yahtzee 2 (×2) 100 +200")
    assert timeline[4].endswith("Fours 2 (×2) 40 +300")
    card = game_state(game)["cards"][0]
    bonuses = " ".join(str(column["yahtzee_bonus"]) for column in card["columns"])
    assert bonuses == "0 500 300"
    assert f"Yahtzee bonus {bonuses} " in page
    assert f"Total {card['total']} " in page


def test_a_tampered_roll_fails_the_fairness_check(staff_client: Client) -> None:
    game = finished(1, "official", seed=2)
    move = Move.objects.filter(game=game, kind=Move.Kind.ROLL).order_by("seq").first()
    move.payload["faces"] = [(f % 6) + 1 for f in move.payload["faces"]]
    move.save()
    page = text(staff_client.get(game_url(game)))
    assert "Fairness check failed" in page
    assert f"roll {move.payload['roll']} (move {move.seq})" in page
    assert "Replay check failed" in page  # the replayed dice no longer match the log either


@pytest.mark.parametrize("missing", ["faces", "roll"])
def test_a_roll_logged_without_its_dice_or_number_fails_the_fairness_check_and_the_page_still_shows(
    staff_client: Client, missing: str
) -> None:
    game = finished(1, seed=2)
    move = Move.objects.filter(game=game, kind=Move.Kind.ROLL).order_by("seq").first()
    del move.payload[missing]
    move.save()
    response = staff_client.get(game_url(game))
    assert response.status_code == 200
    page = text(response)
    assert "Fairness check failed" in page and f"(move {move.seq}): logged without its" in page


def test_a_game_left_mid_turn_shows_the_unscored_turn_and_the_leave(staff_client: Client) -> None:
    game = walked_out()
    assert game.status in (Game.Status.FINISHED, Game.Status.ABANDONED)
    page = text(staff_client.get(game_url(game)))
    assert "not scored" in page
    assert "No winner" in page
    assert "Leave P0 seat 1 (P0)" in page
    assert "All 1 roll re-derived from the revealed seed: OK" in page
    assert "gives the stored final state: OK" in page


def test_a_room_abandoned_in_the_lobby_has_no_cards(staff_client: Client) -> None:
    game = abandoned()
    page = text(staff_client.get(game_url(game)))
    assert "The game never started" in page and "No turns were played." in page
    assert "room abandoned" in page
    assert "No rolls to check; the revealed seed matches its commitment: OK" in page


def test_a_live_game_has_no_page_and_keeps_its_seed_hidden(admin_client: Client) -> None:
    """Not in the finished games: a link to its page there leads to its page in Games under way."""
    table = open_room(2)
    game = table.game
    response = admin_client.get(game_url(game), follow=True)
    assert game.server_seed not in response.content.decode()
    under_way = reverse("admin:games_gameunderway_change", args=[game.pk])
    assert response.redirect_chain and response.redirect_chain[-1][0] == under_way


# --- the changelist ---------------------------------------------------------------------------


def test_the_changelist_lists_finished_and_abandoned_games_only(admin_client: Client) -> None:
    done = finished(2, "official", seed=1)
    rename(done, 0, "Ada")
    rename(done, 1, "Bob")
    left = abandoned()
    lobby = open_room(2, start=False).game
    playing = open_room(2).game
    response = admin_client.get(CHANGELIST)
    assert response.status_code == 200
    page = text(response)
    # Codes as the site shows them everywhere, "abcd-efgh-jk".
    assert services.shown_code(done.code) in page and services.shown_code(left.code) in page
    assert lobby.code not in page and playing.code not in page
    assert services.shown_code(lobby.code) not in page and services.shown_code(playing.code) not in page
    state = game_state(done)
    scores = " · ".join(
        f"{seat['name']} {card['total']}" for seat, card in zip(state["seats"], state["cards"], strict=True)
    )
    assert scores in page
    assert "Ada, Bob" in page
    assert "Yahtzee (official)" in page


def status_choices(response: object) -> list[str]:
    """What a changelist's status filter offers, "All" left out."""
    cl = response.context["cl"]  # type: ignore[attr-defined]
    (spec,) = [spec for spec in cl.filter_specs if spec.title == "status"]
    return [str(choice["display"]) for choice in spec.choices(cl)][1:]


def test_each_lists_status_filter_offers_only_the_statuses_its_games_can_have(admin_client: Client) -> None:
    """Games under way are in the lobby or being played: "Finished" or "Abandoned" there listed nothing."""
    open_room(2)
    assert status_choices(admin_client.get(CHANGELIST)) == ["Finished", "Abandoned"]
    under_way = reverse("admin:games_gameunderway_changelist")
    assert status_choices(admin_client.get(under_way)) == ["Lobby", "Playing"]
    playing = admin_client.get(under_way, {"status": "playing"}).context["cl"].result_list
    assert [game.status for game in playing] == ["playing"]
    assert not admin_client.get(under_way, {"status": "lobby"}).context["cl"].result_list


def test_search_by_room_code_and_player_name(admin_client: Client) -> None:
    first, second = finished(2, seed=1), finished(2, seed=2)
    rename(first, 1, "Zenobia")
    page = text(admin_client.get(CHANGELIST, {"q": second.code}))
    assert services.shown_code(second.code) in page and services.shown_code(first.code) not in page
    # Typed as the site shows it, with its dashes (and in capitals), it finds the same game.
    shown = services.shown_code(second.code).upper()
    assert {game.code for game in admin_client.get(CHANGELIST, {"q": shown}).context["cl"].result_list} == {second.code}
    response = admin_client.get(CHANGELIST, {"q": "zenob"})
    assert response.context["cl"].result_count == 1  # one row even if several seats matched
    assert services.shown_code(first.code) in text(response)
    assert services.shown_code(second.code) not in text(response)


def test_filters_by_status_rule_set_and_date(admin_client: Client) -> None:
    official, yatzy, left = finished(1, "official", seed=1), finished(1, "yatzy", seed=1), abandoned()
    old = timezone.now() - timezone.timedelta(days=40)
    Game.objects.filter(pk=yatzy.pk).update(finished_at=old)

    def codes(**params: str) -> set[str]:
        response = admin_client.get(CHANGELIST, params)
        assert response.status_code == 200
        return {game.code for game in response.context["cl"].result_list}

    assert codes() == {official.code, yatzy.code, left.code}
    assert codes(status="abandoned") == {left.code}
    assert codes(status="finished") == {official.code, yatzy.code}
    assert codes(ruleset__exact="yatzy") == {yatzy.code}
    since = str(timezone.now() - timezone.timedelta(days=7))
    assert codes(finished_at__gte=since) == {official.code, left.code}
    assert codes(finished_at__year=str(old.year), finished_at__month=str(old.month)) == {yatzy.code}


def test_the_changelist_does_not_query_per_game(admin_client: Client, django_assert_max_num_queries) -> None:
    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert admin_client.get(CHANGELIST).status_code == 200
        return len(queries)

    finished(2, seed=1)
    few = count()
    for seed in range(2, 6):
        finished(3, seed=seed)
    abandoned()
    assert count() == few
    with django_assert_max_num_queries(12):
        admin_client.get(CHANGELIST, {"q": "P1"})


# --- who may look, and that nobody can change anything ---------------------------------------


def test_staff_without_permissions_may_view(staff_client: Client) -> None:
    game = finished(1, seed=1)
    assert staff_client.get(CHANGELIST).status_code == 200
    index = staff_client.get(reverse("admin:index")).content.decode()
    assert CHANGELIST in index
    for name in ("player", "scoreentry", "move"):
        assert staff_client.get(reverse(f"admin:games_{name}_changelist")).status_code == 200
    player = Player.objects.filter(game=game).first()
    assert staff_client.get(reverse("admin:games_player_change", args=[player.pk])).status_code == 200


@pytest.mark.parametrize("who", ["anonymous", "plain"])
def test_non_staff_are_sent_to_the_login(who: str, plain_client: Client) -> None:
    game = finished(1, seed=1)
    client = plain_client if who == "plain" else Client()
    for url in (CHANGELIST, game_url(game)):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login"))


def snapshot_of(game: Game) -> tuple:
    game.refresh_from_db()
    return (
        game.status,
        game.code,
        game.server_seed,
        game.snapshot,
        list(Move.objects.filter(game=game).values_list("seq", "kind", "payload")),
        list(ScoreEntry.objects.filter(player__game=game).values_list("box", "points")),
        list(Player.objects.filter(game=game).values_list("name", "seat")),
    )


def test_nothing_can_be_added_changed_or_deleted_even_by_a_superuser(admin_client: Client) -> None:
    game = finished(1, seed=1)
    before = snapshot_of(game)
    player = Player.objects.filter(game=game).first()
    move = Move.objects.filter(game=game).first()
    entry = ScoreEntry.objects.filter(player=player).first()
    posts = [
        (game_url(game), {"code": "HACKED", "status": "playing", "server_seed": "x"}),
        (game_url(game, "delete"), {"post": "yes"}),
        (reverse("admin:games_game_add"), {"code": "NEW"}),
    ]
    for model, obj in (("player", player), ("move", move), ("scoreentry", entry)):
        posts += [
            (reverse(f"admin:games_{model}_change", args=[obj.pk]), {"name": "X", "points": "999", "kind": "finish"}),
            (reverse(f"admin:games_{model}_delete", args=[obj.pk]), {"post": "yes"}),
            (reverse(f"admin:games_{model}_add"), {"name": "X"}),
        ]
    for url, data in posts:
        response = admin_client.post(url, data)
        assert response.status_code in (302, 403, 404), url
        if response.status_code == 302:
            assert "delete" not in response["Location"]
    # There are no bulk actions: a forged delete_selected just shows the list again.
    response = admin_client.post(
        CHANGELIST, {"action": "delete_selected", "_selected_action": [game.pk], "post": "yes"}
    )
    assert response.status_code in (200, 302, 403)
    assert snapshot_of(game) == before
    assert Game.objects.filter(code="NEW").count() == 0


def test_the_page_offers_no_save_or_delete(admin_client: Client) -> None:
    game = finished(1, seed=1)
    html = admin_client.get(game_url(game)).content.decode()
    assert f'<div class="readonly">{services.shown_code(game.code)}</div>' in html  # as the site shows it
    assert 'name="_save"' not in html and 'name="_continue"' not in html
    assert game_url(game, "delete") not in html
    form = re.search(r'<form [^>]*id="game_form".*?</form>', html, flags=re.S).group(0)
    assert "<input" not in re.sub(r'<input type="hidden"[^>]*>', "", form)
    assert "<textarea" not in form and "<select" not in form
    changelist = admin_client.get(CHANGELIST).content.decode()
    assert 'name="action"' not in changelist and reverse("admin:games_game_add") not in changelist


def test_painted_review_shows_the_colour_section_and_every_die_with_its_colour_name(staff_client: Client) -> None:
    game = finished(1, "painted", seed=4)
    page = text(staff_client.get(game_url(game)))
    for label in ("Red", "Purple", "Four of a Colour", "Painted House", "Rainbow", "Flush", "Palette", "Colour sum"):
        assert label in page
    html = staff_client.get(game_url(game)).content.decode()
    dice = re.findall(r'class="die(?: held)?(?: c-(\w+))?"[^>]*>(\d) (\w+)<', html)
    assert dice, "the timeline shows no coloured dice"
    assert all(css == name and name in ("red", "yellow", "green", "blue", "purple") for css, _, name in dice)
    assert len({name for _, _, name in dice}) == 5


def test_read_only_staff_cannot_learn_a_live_games_server_seed_from_the_games_under_way_list() -> None:
    """The list of games under way filters on any column of the Game row, the secret seed included.

    Sixteen requests a character (at most 1,024 in all) give the whole seed of a game being
    played, and with the public client seeds every die still to come.
    """
    clerk = get_user_model().objects.create_user("clerk", password="pw", is_staff=True)
    client = Client()
    client.force_login(clerk)
    table = open_room(2)
    seed = table.game.server_seed
    url = "/admin/games/gameunderway/"

    def listed(**lookup: str) -> bool:
        response = client.get(url, lookup)
        if response.status_code != 200:  # refused (400): nothing learnt
            return False
        return table.code in {game.code for game in response.context["cl"].result_list}

    assert listed()  # the game is in the list as such
    wrong = "0" if seed[0] != "0" else "1"
    # The list must not tell a right guess of the seed's start from a wrong one, nor show a
    # browser's controller token a character at a time.
    assert listed(server_seed__startswith=seed[:8]) == listed(server_seed__startswith=wrong)
    assert listed(server_seed__startswith=seed[:8]) is False
    assert client.get("/admin/games/player/", {"controller__startswith": "a"}).status_code in (400, 302)


def test_each_turn_of_the_timeline_has_its_own_number(staff_client: Client) -> None:
    """A turn left unscored (P0 rolls, then leaves) and the next player's turn are numbered apart,
    each row with its own ``id``, so a link to a turn lands on that turn."""
    table = open_room(3)
    services.turn_roll(code=table.code, controller=table.controllers[0], expected_version=None, action_id=action_id())
    services.game_leave(
        code=table.code, controller=table.controllers[0], seat=0, expected_version=None, action_id=action_id()
    )
    game = play_to_end(table, random.Random(1), rerolls=0)
    html = staff_client.get(game_url(game)).content.decode()
    ids = re.findall(r'<tr id="(turn-\d+)"', html)
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    assert ids[:3] == ["turn-1", "turn-2", "turn-3"]
    rows = re.findall(r'<tr id="turn-\d+" class="turn">\s*<td class="num">(\d+)</td>\s*<td>(.*?)</td>', html)
    assert rows[:3] == [("1", "P0"), ("2", "P1"), ("3", "P2")], rows[:3]


def test_an_account_deleted_before_the_log_was_withdrawn_too_is_not_named_in_the_review(staff_client: Client) -> None:
    """Move log entries may name an account whose seats and Player rows read "Former player" (its
    join, its timeouts...): the review takes its names from the seats as they stand now, never
    from the log."""
    from games.services.codes import FORMER_PLAYER

    table = open_room(2)
    Player.objects.filter(game__code=table.code, seat=0).update(name="Annabel")
    game = table.game
    Move.objects.filter(game=game, kind=Move.Kind.JOIN, player__seat=0).update(
        payload={"seat": 0, "name": "Annabel", "client_seed": "x", "host": True}
    )
    game.snapshot["seats"][0]["name"] = "Annabel"
    Game.objects.filter(pk=game.pk).update(snapshot=game.snapshot)
    game = play_to_end(table, random.Random(5), rerolls=0)
    # The deletion as it was then: the seat, its row and a forget Move; the log left as it was.
    snapshot = game.snapshot
    snapshot["seats"][0]["name"] = FORMER_PLAYER
    Game.objects.filter(pk=game.pk).update(snapshot=snapshot, version=game.version + 1)
    Player.objects.filter(game=game, seat=0).update(name=FORMER_PLAYER, user=None)
    Move.objects.create(game=game, seq=game.version + 1, kind=Move.Kind.FORGET, payload={"seats": [0]})
    page = text(staff_client.get(game_url(game)))
    assert "Join Former player as Former player" in page
    assert "Annabel" not in page, page[page.index("Turn by turn") :][:400]


def test_the_review_and_the_list_name_the_winner_the_games_records_name(staff_client: Client) -> None:
    """A computer finished P0's seat for its away player and outscored P1, who stayed: the records
    rank P0 after P1 (accounts.services._count), and so do the review and the games list, with a
    note on P0's card."""
    from tests.services.test_away_seats import away_seat_outscores_the_player_who_stayed

    bots.tables.table("official", build=True)
    game = away_seat_outscores_the_player_who_stayed()
    page = text(staff_client.get(game_url(game)))
    winner = re.search(r"Winners?: (.*?) Turn by turn", page)
    assert winner and winner.group(1) == "P1", page
    assert "★ P1" in page and "★ P0" not in page
    assert "(finished by a computer for its away player: ranked after the players who stayed)" in page
    html = staff_client.get(CHANGELIST).content.decode()
    row = next(r for r in re.findall(r"<tr[^>]*>(.*?)</tr>", html, flags=re.S) if "field-winner_names" in r)
    assert re.search(r'class="field-winner_names">P1</td>', row), row


def test_the_timeline_marks_the_turns_the_server_or_a_computer_played_for_a_person(staff_client: Client) -> None:
    """P0's time ran out twice in a row (the server played both turns), then a computer played P0's
    seat to the end: the turn-by-turn table says so on each of those turns, as the events table does,
    and on none of P1's, nor on P0's own before. ``verify_game --rolls`` says the same."""
    from io import StringIO

    from django.core.management import call_command

    from tests.services.test_away_seats import away_seat_outscores_the_player_who_stayed

    bots.tables.table("official", build=True)
    game = away_seat_outscores_the_player_who_stayed()
    html = staff_client.get(game_url(game)).content.decode()
    rows = re.findall(r'<tr id="turn-(\d+)" class="turn">(.*?)</tr>', html, flags=re.S)
    marks = [" ".join(unescape(re.sub(r"<[^>]+>", " ", row)).split()) for _, row in rows]
    by_server = [text for text in marks if "played by the server: time ran out" in text]
    by_computer = [text for text in marks if "played by a computer" in text]
    assert len(by_server) == 2 and all(re.match(r"\d+ P0 ", t) for t in by_server), by_server
    p0_turns = [text for text in marks if re.match(r"\d+ P0 ", text)]
    assert len(p0_turns) == 13 and len(by_computer) == 11, (len(p0_turns), len(by_computer))
    assert all("played by" not in text for text in marks if re.match(r"\d+ P1 ", text))
    out = StringIO()
    call_command("verify_game", game.code, "--rolls", stdout=out)
    lines = [line for line in out.getvalue().splitlines() if line.lstrip().startswith("turn ")]
    assert sum("(played by the server: time ran out)" in line for line in lines) == 2
    assert sum("(played by a computer)" in line for line in lines) == 11


def test_the_review_names_the_player_who_stayed_over_a_computer_in_a_seat_whose_player_left(
    staff_client: Client,
) -> None:
    """P1 left and a computer played the seat on, outscoring P0, who stayed: the records rank P1's seat
    with the seats that left, and so do the review, with "(left)" on its card, and the games list."""
    from tests.services.test_bots import left_seat_outscores_the_player_who_stayed

    bots.tables.table("official", build=True)
    game = left_seat_outscores_the_player_who_stayed()
    page = text(staff_client.get(game_url(game)))
    winner = re.search(r"Winners?: (.*?) Turn by turn", page)
    assert winner and winner.group(1) == "P0", page
    assert "★ P0" in page and "★ P1" not in page and "P1 (bot) (left)" in page
    html = staff_client.get(CHANGELIST).content.decode()
    row = next(r for r in re.findall(r"<tr[^>]*>(.*?)</tr>", html, flags=re.S) if "field-winner_names" in r)
    assert re.search(r'class="field-winner_names">P0</td>', row), row


def test_every_admin_list_names_a_game_by_the_code_players_see_never_the_stored_one(admin_client: Client) -> None:
    """Players quote a room as abcd-efgh-jk; the stored abcdefghjk is in no list (games, games under
    way, players, scores, moves, chat), nor in the name a record is given in the admin's log."""
    game = finished(2, seed=3)
    live = open_room(2)
    shown, stored = services.shown_code(game.code), game.code
    services.chat_post(code=game.code, controller=Player.objects.filter(game=game).first().controller, text="gg")
    for name in ("game", "player", "scoreentry", "move", "chatmessage"):
        page = text(admin_client.get(reverse(f"admin:games_{name}_changelist"), {"q": shown}))
        assert shown in page, name
        assert stored not in page.replace(shown, ""), name
    page = text(admin_client.get(reverse("admin:games_gameunderway_changelist")))
    assert services.shown_code(live.code) in page and live.code not in page.replace(services.shown_code(live.code), "")
    assert str(game) == f"{shown} ({RULESETS[game.ruleset].label}, Finished)"

"""A room's life before and between games: who takes the host's tools, who is seated in a rematch, who may join."""

from __future__ import annotations

import json
import random
import time
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client, override_settings
from django.utils import timezone

from games import services
from games.domain import errors
from games.domain.rules import RuleViolation
from games.services import presence
from games.services.chat import chat_post, seat_mute, seat_unmute, spectator_mute
from games.store import moves, selectors
from games.store.models import ChatMessage, Game, Move, Player, Presence
from games.store.selectors import spectator_handle
from tests.factories import (
    Table,
    action_id,
    online,
    open_room,
    own_pace_room,
    play_to_end,
    play_turn,
    spectators_chat_room,
    timed_room,
)

db = pytest.mark.django_db

PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def _quick_accounts(settings: Any) -> None:
    settings.FOLLOWUPS_INLINE = True
    settings.ACCOUNT_RATE_LIMITS = False


def _the_wait_passes(monkeypatch: pytest.MonkeyPatch, table: Any, controller: str) -> None:
    """The clock runs on past the wait (``settings.HOST_AWAY``) since ``controller``'s socket left:
    the note of it, kept in this process's memory, has lapsed, and no wait is left of it. Where
    REDIS_URL is set the note lapses in Redis, on Redis's clock: that is waited for."""
    later = time.time() + presence.host_away() + 1
    monkeypatch.setattr(time, "time", lambda: later)
    deadline = time.monotonic() + 10
    while presence.left_lately(table.game, controller):
        assert time.monotonic() < deadline, "the note of the socket's leaving did not lapse"
        time.sleep(0.02)


def _browser() -> tuple[Client, str]:
    client = Client()
    token = services.new_controller()
    session = client.session
    session["controller"] = token
    session.save()
    return client, token


def _finished_game(ann: str, bea: str) -> str:
    """A game of Ann (host) and Bea played to its end; its code."""

    code = services.game_create(host_name="Ann", controller=ann).game.code
    services.game_join(code=code, name="Bea", controller=bea)
    services.game_start(code=code, controller=ann, expected_version=None, action_id=action_id())
    play_to_end(Table(code=code, controllers=[ann, bea]), random.Random(1), rerolls=0)
    return code


@db
def test_a_player_who_signs_in_after_the_game_may_ask_for_the_rematch() -> None:
    """Bea plays without an account; at the end she signs up (her finished seat and record become
    the account's), then presses Rematch on the game's page: she is refused as a stranger."""
    bea, bea_token = _browser()
    ann = services.new_controller()
    code = _finished_game(ann, bea_token)
    _sign_up(bea, "bea")
    response = bea.post(f"/r/{code}/rematch")
    assert response.status_code == 302
    assert response["Location"] != f"/r/{code}/", "refused: Only the players of this game can ask for a rematch."
    new = Game.objects.exclude(code=code).get()
    assert [(seat.name, seat.controller) for seat in new.room.seats] == [
        ("Bea", bea.session["controller"]),
        ("Ann", ann),
    ]


@db
def test_a_player_who_signs_in_after_the_game_plays_their_seat_in_the_rematch() -> None:
    """Same, but Ann asks for the rematch: the seat "Bea" it makes must be Bea's, not one her
    browser no longer plays (she sees herself as a spectator and cannot take a seat as Bea)."""
    bea, bea_token = _browser()
    ann = services.new_controller()
    code = _finished_game(ann, bea_token)
    _sign_up(bea, "bea")
    new = services.game_rematch(code=code, controller=ann)
    assert bea.get(f"/r/{new.code}/state.json").json()["you"]["seats"] == [1]


def _sign_up(client: Client, username: str) -> str:
    response = client.post("/accounts/signup/", {"username": username, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302
    return str(client.session["controller"])


@db
def test_deleting_an_account_takes_every_one_of_its_seats_out_of_a_lobby() -> None:
    """An account with two seats in a lobby (a second player on the same device) is deleted: both
    seats must leave the lobby, not only the first one (the seats close up after the first leave,
    so the second one's old seat number no longer points at it)."""
    ann = services.new_controller()
    bea = Client()
    token = _sign_up(bea, "beatrix")
    code = services.game_create(host_name="Ann", controller=ann).game.code
    services.game_join(code=code, name="Bea", controller=token)
    services.game_join(code=code, name="Bea's kid", controller=token)
    assert bea.post("/me/settings", {"action": "delete", "password": PASSWORD}).status_code == 302
    game = Game.objects.get(code=code)
    left = [(seat.name, seat.controller == token) for seat in game.room.seats]
    assert left == [("Ann", False)], left


@db
def test_the_host_leaving_mid_game_hands_the_room_to_a_player_who_is_here() -> None:
    """A live game without a timer: Ann (host), Ben and Cal. Ben has gone (no socket). Ann leaves:
    the host's tools (taking out the absent Ben, pausing) must go to Cal, who is at the table,
    not to Ben, who is not; else Ben's turn never comes and the game never moves again."""
    table = open_room(3)
    ann, ben, cal = table.controllers
    online(table.code, ann)
    online(table.code, cal)
    services.game_leave(code=table.code, controller=ann, seat=0, expected_version=table.version(), action_id="bye")
    game = table.game
    assert game.status == Game.Status.PLAYING and game.room.rules.current == 1  # Ben to play, and he is gone
    # Cal, at the table, takes the absent Ben out so that the game can go on.
    services.game_remove_absent(
        code=table.code, controller=cal, seat=1, expected_version=table.version(), action_id="out"
    )
    assert table.game.room.rules.current == 2


@db
def test_a_lobby_whose_host_went_away_is_started_by_a_player_who_is_here() -> None:
    """Ann created the room and closed her tab without leaving; Ben and Cal are at the table. Ben
    starts: he hosts from then on, and the room's log says who handed the role on, and why."""
    table = open_room(3, start=False)
    ann, ben, cal = table.controllers
    online(table.code, ben)
    online(table.code, cal)
    services.game_start(code=table.code, controller=ben, expected_version=table.version(), action_id="go")
    game = table.game
    assert game.status == Game.Status.PLAYING and game.host_id == game.room.seats[1].player
    host, start = Move.objects.filter(game=game).order_by("-seq")[:2][::-1]
    assert (host.kind, start.kind) == ("host", "start")
    assert host.payload == {"seat": 1, "name": "P1", "from": 0, "away": True}
    # Ann, back, plays as one of the players: the host's tools are Ben's while he is here.
    online(table.code, ann)
    with pytest.raises(RuleViolation) as refused:
        services.game_pause(code=table.code, controller=ann, expected_version=None, action_id="p")
    assert refused.value.code == services.NOT_HOST


@db
def test_a_host_tool_refused_hands_the_host_role_to_nobody() -> None:
    """Ben, asking while the host is away, takes the role only with a tool that applies."""
    table = open_room(2)
    ann, ben = table.controllers
    before = table.version()
    with pytest.raises(RuleViolation) as refused:
        services.game_resume(code=table.code, controller=ben, expected_version=before, action_id="r")
    assert refused.value.code == services.NOT_PAUSED
    game = table.game
    assert (game.version, game.host_id) == (before, game.room.seats[0].player)


@db
def test_a_spectator_never_takes_the_host_role() -> None:
    table = open_room(2, start=False)
    with pytest.raises(RuleViolation) as refused:
        services.game_start(code=table.code, controller=services.new_controller(), expected_version=None, action_id="")
    assert refused.value.code == services.NOT_HOST
    assert table.game.status == Game.Status.LOBBY


@db
def test_at_your_own_pace_the_host_role_stays_with_an_offline_host_until_a_player_asks() -> None:
    """Nobody need be online at your own pace: turns come and go with the host offline, and the
    role stays theirs; a player who asks for a host's tool (the host paused, then went quiet for
    days) gets it."""
    table = own_pace_room(2)
    ann, ben = table.controllers
    rng = random.Random(5)
    for _ in range(3):
        play_turn(table, rng, 0)
    services.game_pause(code=table.code, controller=ann, expected_version=None, action_id="p")
    game = table.game
    assert game.host_id == game.room.seats[0].player
    services.game_resume(code=table.code, controller=ben, expected_version=None, action_id="r")
    game = table.game
    assert not game.room.paused and game.host_id == game.room.seats[1].player


@db
def test_a_player_who_joined_a_lobby_cannot_kick_its_away_host_out_of_it() -> None:
    """Ann opens a lobby at her own pace and closes the tab to wait for players. Ben joins: he may
    start the game (and host it), but the tools that move nothing on stay Ann's: he cannot kick
    her out of her own room, nor mute her, nor seat computers."""
    table = own_pace_room(2, start=False)
    ann, ben = table.controllers
    online(table.code, ben)
    for tool in (
        lambda: services.game_kick(code=table.code, controller=ben, seat=0, expected_version=None, action_id="k"),
        lambda: seat_mute(code=table.code, controller=ben, seat=0, expected_version=None, action_id="m"),
        lambda: services.game_add_bot(code=table.code, controller=ben, expected_version=None, action_id="b"),
    ):
        with pytest.raises(RuleViolation) as refused:
            tool()
        assert refused.value.code == services.NOT_HOST
    game = table.game
    assert game.room.seats[0].controller == ann and game.host_id == game.room.seats[0].player
    services.game_start(code=table.code, controller=ben, expected_version=None, action_id="go")
    assert table.game.host_id == table.game.room.seats[1].player


@db
def test_a_player_cannot_pause_a_game_whose_host_is_away() -> None:
    table = open_room(2)
    with pytest.raises(RuleViolation) as refused:
        services.game_pause(code=table.code, controller=table.controllers[1], expected_version=None, action_id="p")
    assert refused.value.code == services.NOT_HOST
    assert not table.game.room.paused


def _paused_by_ann_who_muted_ben() -> Table:
    """Ann (host) mutes Ben, pauses the game and goes away (she never had a socket open)."""
    table = open_room(3)
    ann, ben, cal = table.controllers
    seat_mute(code=table.code, controller=ann, seat=1, expected_version=None, action_id=action_id())
    services.game_pause(code=table.code, controller=ann, expected_version=None, action_id="p")
    online(table.code, ben)
    online(table.code, cal)
    return table


@db
def test_a_muted_player_does_not_take_the_host_role_while_the_host_is_away() -> None:
    """A host's own seat cannot be muted nor unmuted: a muted Ben made host would keep his mute for
    good, and hold the tools to mute Ann. Cal, who is not muted, resumes and hosts."""
    table = _paused_by_ann_who_muted_ben()
    ann, ben, cal = table.controllers
    with pytest.raises(RuleViolation) as refused:
        services.game_resume(code=table.code, controller=ben, expected_version=None, action_id="r")
    assert refused.value.code == services.NOT_HOST
    game = table.game
    assert game.room.paused and game.host_id == game.room.seats[0].player
    services.game_resume(code=table.code, controller=cal, expected_version=None, action_id="r")
    game = table.game
    assert not game.room.paused and game.host_id == game.room.seats[2].player and game.room.seats[1].muted


@db
def test_a_muted_player_who_took_the_host_role_cannot_mute_the_host_who_muted_them() -> None:
    table = _paused_by_ann_who_muted_ben()
    ben = table.controllers[1]
    with pytest.raises(RuleViolation):
        seat_mute(code=table.code, controller=ben, seat=0, expected_version=None, action_id=action_id())
    assert not table.game.room.seats[0].muted


@db
def test_a_host_whose_page_reloads_keeps_the_host_role_for_the_wait_the_page_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ann (host) paused a live game; her tab reloads, or her phone drops its connection for a
    moment. Ben, at the table, cannot take the role in that moment: only once her seat has been
    away as long as the pages wait before they offer the host's tools (15 seconds)."""
    table = open_room(2)
    ann, ben = table.controllers
    services.game_pause(code=table.code, controller=ann, expected_version=None, action_id="p")
    online(table.code, ben)
    # The wait shortened to a second, the rest as it is: the note of her leaving is in the cache
    # (this process's memory, or Redis where REDIS_URL is set) and lapses there.
    with override_settings(HOST_AWAY=1):
        presence.arrive(table.code, "ann-tab", ann)
        presence.leave("ann-tab")
        with pytest.raises(RuleViolation) as refused:
            services.game_resume(code=table.code, controller=ben, expected_version=None, action_id="r")
        assert refused.value.code == services.NOT_HOST
        _the_wait_passes(monkeypatch, table, ann)
        services.game_resume(code=table.code, controller=ben, expected_version=None, action_id="r")
    game = table.game
    assert not game.room.paused and game.host_id == game.room.seats[1].player


@db
@pytest.mark.parametrize("tool", ["replace", "remove"])
def test_a_player_whose_connection_drops_keeps_their_seat_for_the_wait_the_host_gets(
    tool: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ben's phone changes networks (or his page reloads) in a live game: his socket closes. Ann, the
    host, at the table, cannot hand his seat to a computer or take it out in that moment, which in
    a rated game would rank him below her: only once he has been away as long as a host must be
    before the players may take the host's tools. The refusal changes nothing."""
    table = open_room(2)
    ann, ben = table.controllers
    online(table.code, ann)

    def take_over() -> None:
        if tool == "replace":
            services.game_replace_with_bot(
                code=table.code, controller=ann, seat=1, expected_version=None, action_id="r"
            )
        else:
            services.game_remove_absent(code=table.code, controller=ann, seat=1, expected_version=None, action_id="r")

    with override_settings(HOST_AWAY=1):
        presence.arrive(table.code, "ben-tab", ben)
        presence.leave("ben-tab")
        version = table.version()
        with pytest.raises(RuleViolation) as refused:
            take_over()
        assert refused.value.code == errors.JUST_AWAY
        assert table.version() == version and table.game.room.seats[1].human and table.game.room.seats[1].active
        _the_wait_passes(monkeypatch, table, ben)
        take_over()
    seat = table.game.room.seats[1]
    assert (seat.bot and seat.away_controller == ben) if tool == "replace" else not seat.active


@db
def test_the_presence_frame_says_how_long_an_away_players_wait_has_left(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page offers the tools for Ben's seat when the server's wait is over: the room's presence
    frame names his seat with the seconds left, and no seat once it is over or for a seat whose
    player is connected."""
    table = open_room(3)
    ann, ben, cy = table.controllers
    online(table.code, ann)
    with override_settings(HOST_AWAY=1):
        presence.arrive(table.code, "ben-tab", ben)
        presence.leave("ben-tab")
        frame = json.loads(presence.room_frame(table.code) or "{}")
        assert frame["seats"] == {"0": "connected", "1": "away", "2": "away"}
        assert set(frame["waits"]) == {"1"} and 0 < frame["waits"]["1"] <= 1  # Cy never came: no wait
        _the_wait_passes(monkeypatch, table, ben)
        assert "waits" not in json.loads(presence.room_frame(table.code) or "{}")


@db
def test_a_wait_does_not_apply_at_your_own_pace_nor_in_the_frame() -> None:
    """At your own pace nobody need be online: a seat is never taken over for being away, so no wait
    is shown either, and the refusal is still the one that says so."""
    table = own_pace_room(2)
    ann, ben = table.controllers
    presence.arrive(table.code, "ben-tab", ben)
    presence.leave("ben-tab")
    assert "waits" not in json.loads(presence.room_frame(table.code) or "{}")
    with pytest.raises(RuleViolation) as refused:
        services.game_remove_absent(code=table.code, controller=ann, seat=1, expected_version=None, action_id="t")
    assert refused.value.code == errors.OWN_PACE


@db
def test_a_host_at_the_table_whose_seat_a_computer_plays_is_not_away() -> None:
    """Ann's (the host's) turns ran out twice: a computer plays her seat until she takes it back.
    Her page is open, so the room shows her connected: Ben cannot take the host's tools."""
    table = timed_room(players=3)
    ann, ben, _cal = table.controllers
    rng = random.Random(2)
    for _ in range(2):
        Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() - timedelta(seconds=1))
        assert services.clock_expire(code=table.code, version=table.version())
        if table.game.room.seats[0].human:
            play_turn(table, rng)
            play_turn(table, rng)
    assert table.game.room.seats[0].away_controller == ann
    online(table.code, ann)
    online(table.code, ben)
    with pytest.raises(RuleViolation) as refused:
        services.game_remove_absent(code=table.code, controller=ben, seat=2, expected_version=None, action_id="out")
    assert refused.value.code == services.NOT_HOST
    assert table.game.host_id == table.game.room.seats[0].player


@db
def test_a_player_whose_room_page_is_hidden_is_still_at_the_table_for_the_host_and_the_hosts_tools() -> None:
    """A page in a background tab is a socket connected: the room shows its player connected, the
    players are not handed an away host's tools, and the host cannot hand the seat to a computer
    nor take it out. Only the notices count a page hidden long enough away (games.services.notices)."""
    table = open_room(3)
    ann, ben, cal = table.controllers
    long_ago = timezone.now() - timedelta(hours=1)
    online(table.code, ann, hidden_since=long_ago)
    online(table.code, ben)
    online(table.code, cal, hidden_since=long_ago)
    frame = json.loads(presence.room_frame(table.code) or "{}")
    assert frame["seats"] == {"0": "connected", "1": "connected", "2": "connected"}
    with pytest.raises(RuleViolation) as refused:
        services.game_remove_absent(code=table.code, controller=ben, seat=0, expected_version=None, action_id="out")
    assert refused.value.code == services.NOT_HOST
    for tool in (services.game_remove_absent, services.game_replace_with_bot):
        with pytest.raises(RuleViolation) as refused:
            tool(code=table.code, controller=ann, seat=2, expected_version=None, action_id=action_id())
        assert refused.value.code == services.PLAYER_PRESENT
    assert table.game.host_id == table.game.room.seats[0].player


@db
def test_the_host_leaving_a_rematch_lobby_hands_it_to_a_player_who_is_here() -> None:
    """The rematch seats everyone of the finished game. Ann asked for it (host); Ben went home and
    never came back to the table; Cal followed. Ann leaves the lobby: Cal must be able to start
    (or take Ben out), instead of a lobby whose host is someone who never came."""
    table = open_room(3)
    ann, ben, cal = table.controllers
    play_to_end(table, random.Random(3), rerolls=0)
    new = services.game_rematch(code=table.code, controller=ann)
    assert [seat.controller for seat in new.room.seats] == [ann, ben, cal]
    online(new.code, ann)
    online(new.code, cal)
    services.game_leave(code=new.code, controller=ann, seat=0, expected_version=None, action_id="bye")
    # Cal is here and wants to play: Ben, who never came, is in the way.
    services.game_kick(code=new.code, controller=cal, seat=0, expected_version=None, action_id="kick-ben")
    services.game_start(code=new.code, controller=cal, expected_version=None, action_id="go")
    assert Game.objects.get(code=new.code).status == Game.Status.PLAYING


@db
def test_a_rematch_does_not_seat_a_deleted_account() -> None:
    """Ann and Bea finish a game; Bea deletes her account. Ann's rematch must not seat a
    "Former player" whose browser is gone for good (a seat nobody can play, in a new game)."""
    ann = services.new_controller()
    bea = Client()
    token = _sign_up(bea, "bettina")
    code = _finished_game(ann, token)
    assert bea.post("/me/settings", {"action": "delete", "password": PASSWORD}).status_code == 302
    new = services.game_rematch(code=code, controller=ann)
    assert [seat.name for seat in new.room.seats] == ["Ann"]


def _finish_with_bots(table: Table) -> None:
    """Play to the end: people random turns, computers their own steps."""
    from games.scheduling import botplay
    from tests.factories import play_turn

    rng = random.Random(1)
    while table.game.status == Game.Status.PLAYING:
        room = table.game.room
        seat = room.seats[room.rules.current]
        if seat.bot:
            assert botplay.step(table.code, table.version())
        else:
            table.controllers[room.rules.current] = seat.controller
            play_turn(table, rng, 0)


@db
def test_a_player_who_left_can_take_a_seat_under_their_own_name_in_the_rematch() -> None:
    """Ben leaves mid-game and the host lets a computer finish his seat (it keeps his name and
    scores). The rematch seats that computer as "Ben": Ben, following the rematch, is refused his
    own name ("Someone here is already called Ben") by a computer playing under it."""
    import bots

    bots.tables.table("official", build=True)
    table = open_room(3)
    ann, ben, _cal = table.controllers
    services.game_leave(code=table.code, controller=ben, seat=1, expected_version=table.version(), action_id="l")
    services.game_replace_with_bot(
        code=table.code, controller=ann, seat=1, expected_version=table.version(), action_id="r"
    )
    _finish_with_bots(table)
    new = services.game_rematch(code=table.code, controller=ann)
    services.game_join(code=new.code, name="P1", controller=ben)  # now: NAME_TAKEN by the computer "P1"
    assert [s.name for s in Game.objects.get(code=new.code).room.seats if s.human and s.controller == ben] == ["P1"]


@db
@pytest.mark.parametrize("stored", ["Zuschauer", "Spectator", "B\ufffdb"])
def test_a_player_named_before_todays_name_rules_hosts_the_rematch_under_that_name(stored: str) -> None:
    """A seat named as a join allowed before a name rule came ("Zuschauer", how the site now says
    spectators in German; a name with a lost letter) keeps its name in the rematch: the asker's
    seat, which hosts it, as well as the others."""
    ann, bea = services.new_controller(), services.new_controller()
    code = services.game_create(host_name="Ann", controller=ann).game.code
    services.game_join(code=code, name="Bea", controller=bea)
    services.game_start(code=code, controller=ann, expected_version=None, action_id=action_id())
    play_to_end(Table(code=code, controllers=[ann, bea]), random.Random(1), rerolls=0)
    game = Game.objects.get(code=code)
    game.snapshot["seats"][0]["name"] = stored
    game.save(update_fields=["snapshot"])
    Player.objects.filter(game=game, seat=0).update(name=stored)
    moves.forget_all()
    new = services.game_rematch(code=code, controller=ann)
    assert [(s.name, s.controller) for s in new.room.seats] == [(stored, ann), ("Bea", bea)]
    assert new.host is not None and new.host.name == stored


@db
def test_rematch_after_the_rematch_lobby_was_abandoned_opens_a_room_that_can_be_played() -> None:
    """The rematch lobby was left by everyone (abandoned). Asking for a rematch again from the
    finished game leads back to that dead room, forever: nobody can join it or start it."""
    table = open_room(2)
    ann, ben = table.controllers
    play_to_end(table, random.Random(1), rerolls=0)
    first = services.game_rematch(code=table.code, controller=ann)
    services.game_leave(code=first.code, controller=ben, seat=1, expected_version=None, action_id="b")
    services.game_leave(code=first.code, controller=ann, seat=0, expected_version=None, action_id="a")
    assert Game.objects.get(code=first.code).status == Game.Status.ABANDONED
    again = services.game_rematch(code=table.code, controller=ann)
    assert again.status == Game.Status.LOBBY, again.status


@db
def test_joining_an_abandoned_lobby_does_not_say_the_game_has_started() -> None:
    """A lobby everyone left is abandoned; a late guest posting the join form is told
    "The game has already started: you can watch it.", which is false on both counts."""
    ann = services.new_controller()
    code = services.game_create(host_name="Ann", controller=ann).game.code
    services.game_leave(code=code, controller=ann, seat=0, expected_version=None, action_id="a")
    assert Game.objects.get(code=code).status == Game.Status.ABANDONED
    with pytest.raises(RuleViolation) as refused:
        services.game_join(code=code, name="Ben", controller=services.new_controller())
    assert "started" not in refused.value.message, refused.value.message


@db
def test_the_host_cannot_take_out_a_seat_of_their_own_device_which_would_lock_it_out_of_the_room() -> None:
    host = services.new_controller()
    code = services.game_create(host_name="Ann", controller=host).game.code
    services.game_join(code=code, name="Ben", controller=host)  # a companion's seat on the host's device
    before = Game.objects.get(code=code)
    with pytest.raises(RuleViolation) as refused:
        services.game_kick(code=code, controller=host, seat=1, expected_version=before.version, action_id=action_id())
    assert refused.value.code == "own_device" and "leave it instead" in str(refused.value)
    after = Game.objects.get(code=code)
    assert (after.version, [s.name for s in after.room.seats]) == (before.version, ["Ann", "Ben"])
    # The device may still add a player: it was not taken for a browser the host took out.
    services.game_join(code=code, name="Cy", controller=host)
    assert [s.name for s in Game.objects.get(code=code).room.seats] == ["Ann", "Ben", "Cy"]


@db
def test_a_pass_and_play_rematch_seeds_every_seat_of_the_device_and_says_nobody_failed_to_follow() -> None:
    """A rematch from a device that plays several seats: every one of its seats brings that device's seed."""
    device = services.new_controller()
    game = services.local_game_create(names=["Ann", "Ben", "Cat"], controller=device)
    play_to_end(Table(code=game.code, controllers=[device] * 3), random.Random(3), rerolls=0)
    new = services.game_rematch(code=game.code, controller=device, client_seed="deviceseed")
    services.game_start(code=new.code, controller=device, expected_version=None, action_id=action_id())
    seeds = list(Player.objects.filter(game=new).order_by("seat").values_list("name", "client_seed"))
    assert seeds == [("Ann", "deviceseed"), ("Ben", "deviceseed"), ("Cat", "deviceseed")]
    assert Game.objects.get(code=new.code).client_seed == "deviceseed,deviceseed,deviceseed"
    page = Client().get(f"/r/{new.code}/fairness").content.decode()
    assert "the rematch started before they followed it" not in page


@db
def test_an_online_rematch_seeds_the_companion_seat_of_the_browser_that_asked_for_it() -> None:
    """Ann plays with Abe on her device (Add player) against Bob; Ann asks for the rematch."""
    ann, bob = services.new_controller(), services.new_controller()
    code = services.game_create(host_name="Ann", controller=ann).game.code
    services.game_join(code=code, name="Abe", controller=ann)
    services.game_join(code=code, name="Bob", controller=bob)
    services.game_start(code=code, controller=ann, expected_version=None, action_id=action_id())
    play_to_end(Table(code=code, controllers=[ann, ann, bob]), random.Random(4), rerolls=0)
    new = services.game_rematch(code=code, controller=ann, client_seed="annsdevice")
    services.game_rematch(code=code, controller=bob, client_seed="bobsdevice")
    seeds = dict(Player.objects.filter(game=new).values_list("name", "client_seed"))
    assert seeds == {"Ann": "annsdevice", "Abe": "annsdevice", "Bob": "bobsdevice"}


@db
def test_a_player_the_host_muted_is_still_muted_in_the_rematch_the_host_opens() -> None:
    """Ann (host) mutes Bob for abuse during the game. At the end she clicks Rematch: Bob is seated
    in the new room without asking, and stays muted there, as a mute holds for a browser's new
    seat in the same room (docs/protocol.md): the rematch is the same people's next table."""
    table = open_room(3)
    ann, bob, _cy = table.controllers
    seat_mute(code=table.code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id())
    play_to_end(table, random.Random(2), rerolls=0)
    rematch = services.game_rematch(code=table.code, controller=ann)
    bobs = [i for i, seat in enumerate(rematch.room.seats) if seat.controller == bob]
    assert bobs, "Bob is seated in the rematch"
    assert rematch.room.seats[bobs[0]].muted, "Bob's mute did not follow him into the rematch"
    with pytest.raises(RuleViolation) as refused:
        chat_post(code=rematch.code, controller=bob, text="back again, losers")
    assert refused.value.code == errors.MUTED
    assert not ChatMessage.objects.filter(game=rematch).exists()


@db
def test_a_player_muted_into_the_rematch_stays_muted_after_leaving_its_lobby_and_joining_again() -> None:
    """Bob, muted by Ann, is seated muted in the rematch. As in the game itself (a mute holds for a
    browser's new seat, and is not undone by leaving and speaking as a spectator), leaving the
    rematch's lobby does not give him his voice back: not as a spectator, nor in a seat taken again."""
    table = spectators_chat_room(("Ann", "Bob"))
    ann, bob = table.controllers
    seat_mute(code=table.code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id())
    play_to_end(table, random.Random(2), rerolls=0)
    rematch = services.game_rematch(code=table.code, controller=ann)
    assert rematch.chat_spectators and rematch.room.seats[1].muted
    services.game_leave(code=rematch.code, controller=bob, seat=1, expected_version=None, action_id=action_id())
    with pytest.raises(RuleViolation) as refused:
        chat_post(code=rematch.code, controller=bob, text="can't mute me now")
    assert refused.value.code == errors.MUTED
    services.game_join(code=rematch.code, name="Bob", controller=bob)
    rejoined = Game.objects.get(code=rematch.code).room
    assert [seat.muted for seat in rejoined.seats if seat.controller == bob] == [True]
    with pytest.raises(RuleViolation) as refused:
        chat_post(code=rematch.code, controller=bob, text="nor now")
    assert refused.value.code == errors.MUTED
    assert not ChatMessage.objects.filter(game=rematch).exists()
    # Ann lets him speak again: the seat's unmute is the person's, as for a spectator who took a seat.
    seat_unmute(code=rematch.code, controller=ann, seat=1, expected_version=None, action_id=action_id())
    chat_post(code=rematch.code, controller=bob, text="sorry about before")


@db
def test_a_muted_player_who_left_the_game_is_still_muted_watching_its_rematch() -> None:
    """Bob, muted by Ann, leaves mid-game: as a spectator of that game his posts are refused. The
    rematch is the same room's next table, where a spectator the host muted stays muted: so does
    he, whether he posts there as a spectator or takes a seat in its lobby."""
    table = spectators_chat_room()
    ann, bob, cy = table.controllers
    seat_mute(code=table.code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id())
    services.game_leave(code=table.code, controller=bob, seat=1, expected_version=None, action_id=action_id())
    with pytest.raises(RuleViolation) as refused:
        chat_post(code=table.code, controller=bob, text="can't mute me now")
    assert refused.value.code == errors.MUTED
    play_to_end(table, random.Random(3), rerolls=0)
    rematch = services.game_rematch(code=table.code, controller=cy)
    assert [seat.controller for seat in rematch.room.seats] == [cy, ann]
    with pytest.raises(RuleViolation) as refused:
        chat_post(code=rematch.code, controller=bob, text="new game, new voice")
    assert refused.value.code == errors.MUTED
    services.game_join(code=rematch.code, name="Bob", controller=bob)
    assert [seat.muted for seat in Game.objects.get(code=rematch.code).room.seats] == [False, False, True]
    assert not ChatMessage.objects.filter(game=rematch).exists()


@db
def test_a_muted_player_who_left_the_game_and_signs_in_is_still_muted_in_its_rematch() -> None:
    """As a spectator the host muted signs in and stays muted in the rematch, so does Bob, muted,
    who left the game before its end and signs up once it is over."""
    bob, bob_token = _browser()
    ann, cy = services.new_controller(), services.new_controller()
    code = services.game_create(host_name="Ann", controller=ann, chat_spectators=True).game.code
    for name, token in (("Bob", bob_token), ("Cy", cy)):
        services.game_join(code=code, name=name, controller=token)
    services.game_start(code=code, controller=ann, expected_version=None, action_id=action_id())
    table = Table(code=code, controllers=[ann, bob_token, cy])
    seat_mute(code=code, controller=ann, seat=1, expected_version=None, action_id=action_id())
    services.game_leave(code=code, controller=bob_token, seat=1, expected_version=None, action_id=action_id())
    play_to_end(table, random.Random(3), rerolls=0)
    rematch = services.game_rematch(code=code, controller=cy)
    account = _sign_up(bob, "bob_account")
    assert account != bob_token
    with pytest.raises(RuleViolation) as refused:
        chat_post(code=rematch.code, controller=account, text="signed in, so unmuted?")
    assert refused.value.code == errors.MUTED
    assert not ChatMessage.objects.filter(game=rematch).exists()


@db
def test_a_player_muted_into_the_rematch_who_left_its_lobby_and_signs_in_is_still_muted() -> None:
    """Bob, muted by Ann, is seated muted in the rematch and leaves its lobby: refused as a spectator
    there, he is refused just as much once he signs in, as a spectator or in a seat taken again (the
    seat he left keeps its row out of the room, which the host's mute is told by)."""
    bob, bob_token = _browser()
    ann = services.new_controller()
    code = services.game_create(host_name="Ann", controller=ann, chat_spectators=True).game.code
    services.game_join(code=code, name="Bob", controller=bob_token)
    services.game_start(code=code, controller=ann, expected_version=None, action_id=action_id())
    seat_mute(code=code, controller=ann, seat=1, expected_version=None, action_id=action_id())
    play_to_end(Table(code=code, controllers=[ann, bob_token]), random.Random(2), rerolls=0)
    rematch = services.game_rematch(code=code, controller=ann)
    services.game_leave(code=rematch.code, controller=bob_token, seat=1, expected_version=None, action_id=action_id())
    account = _sign_up(bob, "bob_account")
    with pytest.raises(RuleViolation) as refused:
        chat_post(code=rematch.code, controller=account, text="signed in, so unmuted?")
    assert refused.value.code == errors.MUTED
    services.game_join(code=rematch.code, name="Bob", controller=account)
    assert [seat.muted for seat in Game.objects.get(code=rematch.code).room.seats] == [False, True]
    assert not ChatMessage.objects.filter(game=rematch).exists()


@db
def test_a_browser_taken_out_of_a_lobby_that_signs_in_is_still_kept_out() -> None:
    """The host's kick keeps a browser out of the room; signing in, the account it becomes is kept
    out too (it would otherwise take a seat again at once)."""
    bob, bob_token = _browser()
    ann = services.new_controller()
    code = services.game_create(host_name="Ann", controller=ann).game.code
    services.game_join(code=code, name="Bob", controller=bob_token)
    services.game_kick(code=code, controller=ann, seat=1, expected_version=None, action_id=action_id())
    account = _sign_up(bob, "bob_account")
    with pytest.raises(RuleViolation) as refused:
        services.game_join(code=code, name="Bob", controller=account)
    assert refused.value.code == errors.KICKED
    assert len(Game.objects.get(code=code).room.seats) == 1


@db
def test_a_spectator_the_host_muted_is_still_muted_in_the_rematch() -> None:
    """The rematch is the same room's next table: a spectator muted there stays muted, under the
    handle their lines have in the new room, and its log says so."""
    table = spectators_chat_room()
    ann = table.controllers[0]
    troll = services.new_controller()
    handle = chat_post(code=table.code, controller=troll, text="spam")["spectator"]
    spectator_mute(code=table.code, controller=ann, spectator=handle, expected_version=None, action_id=action_id())
    play_to_end(table, random.Random(2), rerolls=0)
    rematch = services.game_rematch(code=table.code, controller=table.controllers[1])
    assert rematch.room.muted_spectators == (troll,)
    assert rematch.chat_spectators
    with pytest.raises(RuleViolation) as refused:
        chat_post(code=rematch.code, controller=troll, text="spam again")
    assert refused.value.code == errors.MUTED
    move = rematch.moves.get(kind=Move.Kind.MUTE)
    assert move.payload == {
        "spectator": spectator_handle(rematch.code, troll),
        "name": "Spectator",
        "muted": True,
        "rematch": table.code,
    }
    assert selectors.game_state(rematch)["chat"]["muted"] == [spectator_handle(rematch.code, troll)]


@db
def test_a_muted_player_who_asks_for_the_rematch_first_does_not_host_it() -> None:
    """Bob, muted by Ann (host), is first to press Rematch. Made host, nobody could mute him there
    (the host's own seat cannot be muted): Ann hosts it, Bob is seated muted, with his own seed
    for the dice, and Ann may lift the mute."""
    table = open_room(3)
    ann, bob, cy = table.controllers
    seat_mute(code=table.code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id())
    play_to_end(table, random.Random(2), rerolls=0)
    rematch = services.game_rematch(code=table.code, controller=bob, client_seed="seedofbob")
    room = rematch.room
    host = room.seats[room.seat_of_player(rematch.host_id)]
    assert host.controller == ann and not host.muted
    assert [(s.controller, s.muted) for s in room.seats] == [(ann, False), (bob, True), (cy, False)]
    assert Player.objects.get(game=rematch, controller=bob).client_seed == "seedofbob"
    with pytest.raises(RuleViolation) as refused:
        chat_post(code=rematch.code, controller=bob, text="I'm the host now")
    assert refused.value.code == errors.MUTED
    seat_unmute(code=rematch.code, controller=ann, seat=1, expected_version=None, action_id=action_id())
    chat_post(code=rematch.code, controller=bob, text="sorry about before")


@db
def test_a_rematch_hosted_by_another_player_than_the_asker_takes_the_hosts_own_browsers_seed() -> None:
    """docs/fairness.md: in a rematch "each seat takes the seed its browser sends when its player
    follows the rematch from the game's end (a seat whose player never does has none)". Bob, muted,
    asks for it, so Ann hosts it: her seat has no seed until she follows, and then hers, not one the
    server made up (which the fair-dice page would say came from her)."""
    table = open_room(2)
    ann, bob = table.controllers
    seat_mute(code=table.code, controller=ann, seat=1, expected_version=None, action_id=action_id())
    play_to_end(table, random.Random(1), rerolls=0)
    rematch = services.game_rematch(code=table.code, controller=bob, client_seed="seed-of-bobs-browser")
    host = Player.objects.get(pk=rematch.host_id)
    assert host.controller == ann
    assert host.client_seed == ""
    services.game_rematch(code=table.code, controller=ann, client_seed="seed-of-anns-browser")
    services.game_start(code=rematch.code, controller=ann, expected_version=None, action_id=action_id())
    assert Game.objects.get(pk=rematch.pk).client_seed == "seed-of-anns-browser,seed-of-bobs-browser"


@db
def test_a_muted_player_with_nobody_else_to_host_the_rematch_hosts_it_unmuted() -> None:
    """Ann (host) mutes Bob; after the game she deletes her account, so the rematch does not seat
    her. Bob asks for it: there is nobody else to host it, nor to mute him, so he hosts it
    without the mute, as a muted seat does that the host left a room to."""
    table = open_room(2)
    ann, bob = table.controllers
    seat_mute(code=table.code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id())
    play_to_end(table, random.Random(2), rerolls=0)
    services.seats_forget(controller=ann, player_ids=[table.game.room.seats[0].player])
    rematch = services.game_rematch(code=table.code, controller=bob)
    assert [(s.controller, s.muted) for s in rematch.room.seats] == [(bob, False)]
    assert rematch.room.seat_of_player(rematch.host_id) == 0


@db
def test_a_muted_players_rematch_is_hosted_by_a_player_still_at_the_table() -> None:
    """Ann (host) mutes Bob and walks off after the game; Cy is still at its end. Bob asks for the
    rematch: Cy hosts it, who is there to start it, rather than Ann, who is not."""
    table = open_room(3)
    ann, bob, cy = table.controllers
    seat_mute(code=table.code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id())
    play_to_end(table, random.Random(2), rerolls=0)
    Presence.objects.create(game=table.game, channel_name="ws.cy", controller=cy, seen_at=timezone.now())
    rematch = services.game_rematch(code=table.code, controller=bob)
    room = rematch.room
    assert room.seats[room.seat_of_player(rematch.host_id)].controller == cy
    assert [(s.controller, s.muted) for s in room.seats] == [(cy, False), (ann, False), (bob, True)]


@db
def test_a_computer_in_the_rematch_is_not_named_as_a_player_at_the_table_reads() -> None:
    """A computer finishes Ben's seat and plays on in the rematch under a name of its own: not
    "Rolly", which the host's "R0lly" reads as."""
    import bots

    bots.tables.table("official", build=True)
    ann, ben = services.new_controller(), services.new_controller()
    code = services.game_create(host_name="R0lly", controller=ann).game.code
    services.game_join(code=code, name="Ben", controller=ben)
    table = Table(code=code, controllers=[ann, ben])
    services.game_start(code=code, controller=ann, expected_version=table.version(), action_id=action_id())
    services.game_leave(code=code, controller=ben, seat=1, expected_version=table.version(), action_id="l")
    services.game_replace_with_bot(code=code, controller=ann, seat=1, expected_version=table.version(), action_id="r")
    _finish_with_bots(table)
    new = services.game_rematch(code=code, controller=ann)
    assert [s.name for s in new.room.seats] == ["R0lly", "Pip"]


@db
def test_a_player_taken_out_without_a_mute_is_not_muted_in_the_rematch() -> None:
    """Ann takes Bob out while he is away, never muting him: his seat's line shows him quiet in
    that game (the take-out's own word), but the rematch carries the host's mutes alone. Bob
    posts there as a spectator, and a seat he takes in its lobby is not muted."""
    table = spectators_chat_room()
    ann, bob, cy = table.controllers
    services.game_remove_absent(
        code=table.code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id()
    )
    play_to_end(table, random.Random(3), rerolls=0)
    rematch = services.game_rematch(code=table.code, controller=cy)
    assert bob not in rematch.room.muted_spectators and not rematch.room.muted_left
    assert chat_post(code=rematch.code, controller=bob, text="new game")["text"] == "new game"
    services.game_join(code=rematch.code, name="Bob", controller=bob)
    assert [seat.muted for seat in Game.objects.get(code=rematch.code).room.seats] == [False, False, False]


@db
def test_a_computer_playing_on_for_a_player_taken_out_is_not_muted_in_the_rematch() -> None:
    """Ann takes Bob out (which mutes his seat, to keep him quiet in that game) and lets a computer
    play on in it. The rematch seats that computer under its own name: no mute of Bob's goes with
    it, and the host's Players list offers no *Unmute chat* for a computer."""
    table = spectators_chat_room()
    ann, _bob, cy = table.controllers
    services.game_remove_absent(
        code=table.code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id()
    )
    services.game_replace_with_bot(
        code=table.code, controller=ann, seat=1, expected_version=table.version(), action_id=action_id()
    )
    _finish_with_bots(table)
    rematch = services.game_rematch(code=table.code, controller=cy)
    seats = Game.objects.get(code=rematch.code).room.seats
    assert [seat.bot for seat in seats] == [False, False, True]
    assert [seat.muted for seat in seats] == [False, False, False]
    assert not Move.objects.filter(game=rematch, payload__muted=True).exists()


@db
def test_a_seat_the_host_took_out_is_told_apart_from_one_its_player_left() -> None:
    """Ann (the host) takes the absent Ben out; Cal leaves on his own. The room keeps which is
    which, and the state says so (``taken_out``), so that the game-over list and the shared result
    do not call Ben's seat one he left; a computer the host lets play Ben's seat on keeps it so."""
    table = open_room(4)
    ann, _ben, cal, _dee = table.controllers
    online(table.code, ann)
    services.game_remove_absent(code=table.code, controller=ann, seat=1, expected_version=None, action_id="out")
    services.game_leave(code=table.code, controller=cal, seat=2, expected_version=None, action_id="bye")
    services.game_replace_with_bot(
        code=table.code, controller=ann, seat=1, level="casual", expected_version=None, action_id="bot"
    )
    game = table.game
    assert [seat.taken_out for seat in game.room.seats] == [False, True, False, False]
    seats = selectors.game_state(game)["seats"]
    assert [seat["taken_out"] for seat in seats] == [False, True, False, False]
    assert seats[1]["gave_up"] and seats[2]["status"] == "left"
    # Kept as the room is stored, as every fact of a seat is.
    assert game.room.from_snapshot(game.room.to_snapshot()).seats[1].taken_out

"""games.services.presence: each socket's Presence row, and the frames a room's sockets are sent about who is here."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from games import services
from games.domain.rules import RuleViolation
from games.services import events, presence
from games.services.release import static_version
from games.store import selectors
from games.store.models import Presence
from games.store.selectors import game_state
from tests.factories import open_room

pytestmark = pytest.mark.django_db


def test_a_socket_arriving_gets_its_seats_the_state_and_who_is_here() -> None:
    table = open_room(3)
    frames = presence.arrive(table.code, "chan-1", table.controllers[1])
    assert frames is not None
    you, state, here = (json.loads(frame) for frame in frames)
    handle = selectors.spectator_handle(table.code, table.controllers[1])  # its lines' should it watch
    assert you == {
        "type": "you",
        "seats": [1],
        "players": [table.game.room.seats[1].player],
        "spectator": handle,
        "release": static_version(),  # a page of another release offers to reload
    }
    assert state == json.loads(json.dumps(game_state(table.game)))
    assert here == {"type": "presence", "seats": {"0": "away", "1": "connected", "2": "away"}, "spectators": 0}
    assert list(Presence.objects.values_list("channel_name", "controller")) == [("chan-1", table.controllers[1])]


def test_a_connected_player_whose_seat_moved_up_in_the_lobby_is_still_connected_in_its_new_seat() -> None:
    table = open_room(3, start=False)
    presence.arrive(table.code, "chan-2", table.controllers[2])
    services.game_leave(code=table.code, controller=table.controllers[1], seat=1, expected_version=None, action_id="l")
    game = table.game
    assert [seat.name for seat in game.room.seats] == ["P0", "P2"]
    assert selectors.connected_seats(game) == [[1]]
    _, _, here = (json.loads(frame) for frame in presence.arrive(table.code, "chan-0", table.controllers[0]))
    assert here["seats"] == {"0": "connected", "1": "connected"}
    # So the host cannot take a present player's seat as if it were an away player's.
    services.game_start(code=table.code, controller=table.controllers[0], expected_version=None, action_id="s")
    with pytest.raises(RuleViolation) as refused:
        services.game_remove_absent(
            code=table.code, controller=table.controllers[0], seat=1, expected_version=None, action_id="r"
        )
    assert refused.value.code == services.PLAYER_PRESENT


def test_a_socket_without_a_seat_is_a_spectator() -> None:
    table = open_room(2)
    frames = presence.arrive(table.code, "chan-s", "")
    assert frames is not None
    you, _, here = (json.loads(frame) for frame in frames)
    assert you["seats"] == [] and here["spectators"] == 1 and set(here["seats"].values()) == {"away"}


def test_a_browser_watching_in_several_tabs_is_one_spectator_and_a_socket_without_a_session_is_one_each() -> None:
    table = open_room(2)
    for channel, controller in (("a1", "watcher"), ("a2", "watcher"), ("p1", table.controllers[1])):
        presence.arrive(table.code, channel, controller)
    here = json.loads(presence.room_frame(table.code) or "")
    assert here == {"type": "presence", "seats": {"0": "away", "1": "connected"}, "spectators": 1}
    presence.arrive(table.code, "p2", table.controllers[1])  # the player's second tab: still no spectator
    presence.arrive(table.code, "anon1", "")
    presence.arrive(table.code, "anon2", "")  # no session: cannot be told apart, counted each
    assert json.loads(presence.room_frame(table.code) or "")["spectators"] == 3
    presence.leave("a1")
    presence.leave("anon1")
    assert json.loads(presence.room_frame(table.code) or "")["spectators"] == 2


def test_a_browsers_sockets_follow_its_seats_to_the_account_it_signs_in_to() -> None:
    """In the rooms it plays in and in those it only watches: each socket is the account's from then on."""
    table, watched = open_room(2), open_room(2)
    presence.arrive(table.code, "at-table", table.controllers[1], "mark")
    presence.arrive(watched.code, "watching", table.controllers[1], "mark")
    services.seats_hand_over(controller=table.controllers[1], to="account")
    rows = dict(Presence.objects.values_list("channel_name", "controller"))
    assert rows == {"at-table": "account", "watching": "account"}
    here = json.loads(presence.room_frame(table.code) or "{}")
    assert here["seats"] == {"0": "away", "1": "connected"} and here["spectators"] == 0


def test_signing_out_makes_that_browsers_sockets_a_visitors_and_leaves_the_accounts_other_browsers(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    table = open_room(2)
    account = table.controllers[1]
    presence.arrive(table.code, "laptop", account, "laptop-mark")
    presence.arrive(table.code, "phone", account, "phone-mark")
    told: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(events, "tell", lambda code, frame, audience=None: told.append((code, frame)))
    with django_capture_on_commit_callbacks(execute=True):
        assert presence.signed_out(account, "laptop-mark") == [table.code]
    rows = dict(Presence.objects.values_list("channel_name", "controller"))
    assert rows == {"laptop": "", "phone": account}
    assert told[-1] == (table.code, {"type": "presence", "seats": {"0": "away", "1": "connected"}, "spectators": 1})
    with django_capture_on_commit_callbacks(execute=True):
        assert presence.signed_out(account, "phone-mark") == [table.code]
    assert told[-1][1]["seats"] == {"0": "away", "1": "away"} and told[-1][1]["spectators"] == 2
    assert presence.signed_out(account, "") == []  # a session without a mark finds none of the account's


def test_an_unknown_room_has_no_presence() -> None:
    assert presence.arrive("nosuchroom", "chan-1", "") is None
    assert presence.leave("chan-1") is False
    assert presence.seen("nosuchroom", "chan-1") == (None, False)
    assert not Presence.objects.exists()


def test_leaving_removes_the_socket_and_the_others_hear_who_is_left() -> None:
    table = open_room(2)
    presence.arrive(table.code, "chan-0", table.controllers[0])
    presence.arrive(table.code, "chan-1", table.controllers[1])
    assert presence.leave("chan-1") is True
    assert list(Presence.objects.values_list("channel_name", flat=True)) == ["chan-0"]
    here = presence.room_frame(table.code)
    assert here is not None and json.loads(here)["seats"] == {"0": "connected", "1": "away"}
    assert presence.leave("chan-1") is False  # already gone: nothing changed


@pytest.mark.django_db(transaction=True)  # not inside the test's transaction: every statement is seen
def test_leaving_is_one_delete(django_assert_num_queries: Any) -> None:
    table = open_room(2)
    presence.arrive(table.code, "chan-0", table.controllers[0])
    with django_assert_num_queries(1) as captured:
        assert presence.leave("chan-0") is True
    assert captured.captured_queries[0]["sql"].startswith("DELETE")
    with django_assert_num_queries(1):
        assert presence.leave("chan-0") is False


@pytest.mark.django_db(transaction=True)
def test_many_sockets_leave_in_one_select_and_one_delete(django_assert_num_queries: Any) -> None:
    table = open_room(2)
    for n in range(30):
        presence.arrive(table.code, f"chan-{n}", "")
    with django_assert_num_queries(2) as captured:
        removed = presence.leave_many([f"chan-{n}" for n in range(25)] + ["chan-gone"])
    assert removed == {f"chan-{n}" for n in range(25)}
    assert captured.captured_queries[1]["sql"].startswith("DELETE")
    assert Presence.objects.count() == 5
    with django_assert_num_queries(1):  # none of them is there any more: nothing to delete
        assert presence.leave_many(["chan-0", "chan-gone"]) == set()


def test_arriving_writes_one_insert_and_a_channel_name_stays_unique(django_assert_num_queries: Any) -> None:
    table = open_room(2)
    with CaptureQueriesContext(connection) as captured:
        presence.arrive(table.code, "chan-0", table.controllers[0])
    writes = [q["sql"] for q in captured.captured_queries if not q["sql"].startswith("SELECT")]
    assert len(writes) == 1 and writes[0].startswith("INSERT"), writes
    with pytest.raises(IntegrityError), transaction.atomic():
        presence.arrive(table.code, "chan-0", "")
    assert Presence.objects.count() == 1


def test_a_socket_seen_again_is_kept_fresh_and_told_the_room_version() -> None:
    table = open_room(2)
    presence.arrive(table.code, "chan-0", table.controllers[0])
    before = Presence.objects.get().seen_at
    assert presence.seen(table.code, "chan-0") == (table.version(), False)
    assert Presence.objects.get().seen_at >= before


def test_the_state_text_is_the_rooms_public_state() -> None:
    table = open_room(2)
    assert json.loads(presence.state_text(table.code)) == json.loads(json.dumps(game_state(table.game)))

"""games/services/notices.py: the "your turn" notice sent by the task worker, once, by e-mail and Web Push."""

from __future__ import annotations

import base64
import json
import re
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any
from unittest import mock

import http_ece
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.core import mail
from django.db import OperationalError
from django.test import Client
from django.utils import timezone, translation
from django.utils.translation import gettext
from django_tasks_db.models import DBTaskResult, DBTaskResultQuerySet

from accounts import services as account_services
from games import services
from games.domain import errors
from games.domain.rules import RuleViolation
from games.services import notices, sweeps
from games.store.models import Game, Notice, NoticeSettings, Player, Presence, PushSubscription
from games.store.selectors import game_state
from tests.accounts.helpers import PASSWORD, sign_up
from tests.factories import Table, action_id, create_room, everyone_leaves, online, own_pace_room, score_first_legal
from tests.push_stub import PushService, Subscriber, vapid_claims
from yahtzee.prepare import new_vapid_private_key

pytestmark = pytest.mark.django_db
DAY = 86_400


@pytest.fixture
def push(settings: Any) -> Iterator[PushService]:
    service = PushService().start()
    settings.PUSH_HOSTS = ["127.0.0.1"]
    settings.PUSH_ALLOW_HTTP = True
    settings.VAPID_PRIVATE_KEY = new_vapid_private_key()
    settings.VAPID_SUBJECT = "mailto:admin@example.org"
    settings.SITE_URL = "https://yahtzee.example.org"
    try:
        yield service
    finally:
        service.stop()


def opted_in(table: Table, seat: int, push: PushService | None = None) -> tuple[Any, Subscriber | None]:
    """Seat ``seat``'s player signed in with an address and e-mails on, and (``push``) one subscribed device."""
    user = get_user_model().objects.create_user(f"p{seat}", email=f"p{seat}@example.org", password="pw")
    Player.objects.filter(game__code=table.code, seat=seat).update(user=user)
    NoticeSettings.objects.create(user=user, email=True, address=user.email)
    subscriber = None
    if push is not None:
        subscriber = Subscriber(f"{push.url}/push/{seat}")
        services.push_subscribe(controller=table.controllers[seat], user_id=None, subscription=subscriber.subscription)
    return user, subscriber


def run_worker() -> None:
    """django-tasks-db's worker loop over the ready tasks, as `manage.py notice_worker` runs it.

    Inside the test's transaction: the loop's check for stale connections between tasks would
    close the test's own (on PostgreSQL, whose connections have a health check), so it is left out.
    """
    with mock.patch("django_tasks_db.management.commands.db_worker.close_old_connections"):
        notices.make_worker(batch=True, interval=0).run()


def test_the_worker_e_mails_and_pushes_the_turn_once_encrypted_and_signed(push: PushService) -> None:
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1)
    subscriber = Subscriber(f"{push.url}/push/ben")
    services.push_subscribe(controller=table.controllers[1], user_id=None, subscription=subscriber.subscription)
    option = score_first_legal(table)
    assert not mail.outbox and not push.requests  # nothing is sent by the move itself

    run_worker()
    run_worker()  # the queue is empty: nothing more

    assert len(mail.outbox) == 1 and len(push.requests) == 1
    email = mail.outbox[0]
    # The code reads as on the room's page, in groups ("abcd-efgh-jk"); its link keeps the stored code.
    assert table.shown == "-".join((table.code[:4], table.code[4:8], table.code[8:]))
    assert email.to == ["p1@example.org"] and email.subject == f"Your turn in room {table.shown}"
    assert email.body.startswith(f"Your turn in room {table.shown}: P0 just scored {option['points']} in ")
    assert f"https://yahtzee.example.org/r/{table.code}/" in email.body
    assert "Time left to move: 23 hours" in email.body or "Time left to move: 1 day" in email.body
    stop = email.extra_headers["List-Unsubscribe"].strip("<>")
    assert stop.startswith("https://yahtzee.example.org/notices/stop/") and stop in email.body
    assert email.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    request = push.requests[0]
    assert request.path == "/push/ben"
    assert request.headers["content-encoding"] == "aes128gcm"
    assert 22 * 3600 < int(request.headers["ttl"]) <= DAY  # kept until the move's time runs out
    assert request.headers["urgency"] == "normal"
    claims = vapid_claims(request.headers["authorization"], notices.vapid_public_key())
    assert claims["aud"] == push.url and claims["sub"] == "mailto:admin@example.org"
    assert claims["exp"] > time.time()
    # The body is ciphertext: nothing of the notice is readable on the wire...
    assert b"Your turn" not in request.body and table.code.encode() not in request.body
    # ...and the subscribed browser's keys open it.
    payload = subscriber.open(request.body)
    assert payload["title"] == f"Your turn in room {table.shown}"
    assert payload["body"].startswith(f"Your turn in room {table.shown}: P0 just scored")
    assert payload["url"] == f"https://yahtzee.example.org/r/{table.code}/"
    assert payload["stop"].startswith("https://yahtzee.example.org/notices/stop/")
    assert payload["stop_label"] == "Stop these"

    turn = Notice.objects.get(kind=Notice.Kind.TURN)
    assert turn.done_at is not None and turn.outcome == "sent: e-mail, 1 push" and turn.attempts == 1
    assert notices.send_notice.call(turn.pk) == "done already"  # the task again (queued twice): nothing
    assert len(mail.outbox) == 1 and len(push.requests) == 1
    # The reminder waits for its run_after: not ready yet (nor the host's, of the first move).
    reminder = Notice.objects.get(kind=Notice.Kind.REMINDER, seat=1)
    assert reminder.done_at is None
    assert DBTaskResult.objects.filter(status="READY").count() == 2


def test_a_notice_whose_turn_moved_on_is_dropped_unsent(push: PushService) -> None:
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1, push)
    score_first_legal(table)  # seat 1's turn: owed
    score_first_legal(table)  # seat 1 played before any worker ran
    Notice.objects.filter(seat=0).delete()  # seat 0's own, for this test's count
    run_worker()
    assert not mail.outbox and not push.requests
    assert Notice.objects.get(kind=Notice.Kind.TURN).outcome == "dropped: the turn moved on"
    # Its reminder, not due yet, is dropped when its time comes.
    reminder = Notice.objects.get(kind=Notice.Kind.REMINDER)
    assert notices.send_notice.call(reminder.pk) == "dropped: the turn moved on"


def test_a_player_at_the_table_is_not_e_mailed_nor_pushed_and_is_reminded_once_gone(push: PushService) -> None:
    """The page tells a player with the room open whose turn it is (its title, its chime, "Your
    turn"): an e-mail and a phone notification at every move of a game they watch live is noise."""
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1, push)
    # Seat 1's page is open in the room: its socket is connected and pinging.
    game = Game.objects.get(code=table.code)
    Presence.objects.create(
        game=game, channel_name="ws.seat1", controller=table.controllers[1], seen_at=timezone.now(), origin="x"
    )
    score_first_legal(table)  # seat 0 moves: it is seat 1's turn, and seat 1 is looking at the table
    Notice.objects.filter(seat=0).delete()
    run_worker()
    assert not push.requests, "a push to the player whose room page is open"
    assert not mail.outbox, "an e-mail to the player whose room page is open"
    turn = Notice.objects.get(kind=Notice.Kind.TURN)
    assert turn.done_at is not None and turn.outcome == "dropped: the player has the room open"
    # A socket not heard from lately is not a player at the table (the page was closed, its
    # process died): the reminder, due when a quarter of the time is left, goes.
    Presence.objects.filter(channel_name="ws.seat1").update(seen_at=timezone.now() - timedelta(minutes=5))
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() + timedelta(hours=5))
    reminder = Notice.objects.get(kind=Notice.Kind.REMINDER)
    assert notices.send_notice.call(reminder.pk) == "sent: e-mail, 1 push"
    assert len(mail.outbox) == 1 and len(push.requests) == 1


def test_a_reminder_due_while_a_tab_of_the_room_is_open_still_reminds_once_it_is_closed(push: PushService) -> None:
    """The reminder (a quarter of the time per move left) is the player's last warning before the
    server plays the turn and, after two, a computer takes the seat. A tab of the room left open on
    another device (the office computer, a laptop asleep with its socket still pinging) when it
    falls due puts it off, not away: once that tab is closed the player is reminded before the
    clock runs out."""
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1, push)
    score_first_legal(table)  # seat 1 to move: its turn notice goes (nobody has the room open)
    Notice.objects.filter(seat=0).delete()
    run_worker()
    assert len(mail.outbox) == 1
    game = Game.objects.get(code=table.code)
    presence = Presence.objects.create(
        game=game, channel_name="ws.seat1", controller=table.controllers[1], seen_at=timezone.now(), origin="x"
    )
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() + timedelta(hours=5))
    reminder = Notice.objects.get(kind=Notice.Kind.REMINDER)
    assert notices.send_notice.call(reminder.pk) == "put off: the player has the room open"  # the office tab
    reminder.refresh_from_db()
    assert reminder.done_at is None and len(mail.outbox) == 1
    # Looked at again while a good part of the time is left, not at the deadline.
    assert timezone.now() < reminder.due_at < timezone.now() + timedelta(hours=1)
    presence.delete()  # the tab closed
    outcome = notices.send_notice.call(reminder.pk)
    assert outcome.startswith("sent"), outcome
    assert len(mail.outbox) == 2


def test_a_player_whose_room_pages_are_all_hidden_is_told_as_if_none_were_open(push: PushService) -> None:
    """A room page in a background tab, or in a phone's browser gone to the background with the
    page still connected, changes its title and chimes where nobody looks: once every page of the
    player's has been hidden for HIDDEN_AWAY, the player is e-mailed and pushed, and reminded, as
    one with no page open."""
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1, push)
    ben = table.controllers[1]
    now = timezone.now()
    online(table.code, ben, hidden_since=now - timedelta(hours=3))  # a tab behind others, all afternoon
    online(table.code, ben, hidden_since=now - timedelta(minutes=10))  # the phone in a pocket
    score_first_legal(table)  # seat 1 to move
    Notice.objects.filter(seat=0).delete()
    run_worker()
    assert len(mail.outbox) == 1 and len(push.requests) == 1
    assert Notice.objects.get(kind=Notice.Kind.TURN).outcome == "sent: e-mail, 1 push"
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() + timedelta(hours=5))
    reminder = Notice.objects.get(kind=Notice.Kind.REMINDER)
    assert notices.send_notice.call(reminder.pk) == "sent: e-mail, 1 push"
    assert len(mail.outbox) == 2 and len(push.requests) == 2


def test_a_glance_at_another_tab_sends_nothing_and_the_page_shown_again_drops_the_your_turn(
    push: PushService, settings: Any
) -> None:
    settings.HIDDEN_AWAY = 120
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1, push)
    hidden = timezone.now() - timedelta(seconds=30)
    tab = online(table.code, table.controllers[1], hidden_since=hidden)  # Ben looked at another tab
    score_first_legal(table)  # his turn comes meanwhile
    Notice.objects.filter(seat=0).delete()
    run_worker()
    turn = Notice.objects.get(kind=Notice.Kind.TURN)
    assert turn.done_at is None and turn.outcome == "put off: the player's room page was hidden just now"
    assert turn.due_at == hidden + timedelta(seconds=120)  # looked at again when it has been hidden that long
    assert not mail.outbox and not push.requests
    # He comes back to the room's tab (it says his turn), and goes to another one again.
    Presence.objects.filter(channel_name=tab).update(hidden_since=timezone.now())
    outcome = notices.send_notice.call(turn.pk)
    assert outcome == "dropped: the player looked at the room since the turn became theirs"
    assert not mail.outbox and not push.requests


def test_a_page_hidden_since_before_the_turn_still_hidden_when_the_notice_is_due_tells_the_player(
    push: PushService, settings: Any
) -> None:
    settings.HIDDEN_AWAY = 120
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1, push)
    tab = online(table.code, table.controllers[1], hidden_since=timezone.now() - timedelta(seconds=30))
    score_first_legal(table)
    Notice.objects.filter(seat=0).delete()
    turn = Notice.objects.get(kind=Notice.Kind.TURN)
    assert notices.send_notice.call(turn.pk) == "put off: the player's room page was hidden just now"
    # Two minutes on, the page has not been shown: the time passed is the page's hiding moved back.
    Presence.objects.filter(channel_name=tab).update(hidden_since=timezone.now() - timedelta(seconds=121))
    assert notices.send_notice.call(turn.pk) == "sent: e-mail, 1 push"
    assert len(mail.outbox) == 1 and len(push.requests) == 1


def test_one_room_page_shown_on_any_device_is_enough_to_be_at_the_table(push: PushService, settings: Any) -> None:
    settings.HIDDEN_AWAY = 120
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1, push)
    ben = table.controllers[1]
    online(table.code, ben, hidden_since=timezone.now() - timedelta(hours=2))  # the phone, in a pocket
    laptop = online(table.code, ben)  # the room in view on the laptop
    score_first_legal(table)
    Notice.objects.filter(seat=0).delete()
    run_worker()
    assert Notice.objects.get(kind=Notice.Kind.TURN).outcome == "dropped: the player has the room open"
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() + timedelta(hours=5))
    reminder = Notice.objects.get(kind=Notice.Kind.REMINDER)
    assert notices.send_notice.call(reminder.pk) == "put off: the player has the room open"
    # The laptop's tab goes to the background: the reminder waits the while, then goes.
    Presence.objects.filter(channel_name=laptop).update(hidden_since=timezone.now() - timedelta(seconds=5))
    assert notices.send_notice.call(reminder.pk) == "put off: the player's room page was hidden just now"
    Presence.objects.filter(channel_name=laptop).update(hidden_since=timezone.now() - timedelta(seconds=125))
    assert notices.send_notice.call(reminder.pk) == "sent: e-mail, 1 push"
    assert len(mail.outbox) == 1 and len(push.requests) == 1


def test_pages_hidden_and_shown_over_and_over_send_the_notice_once(push: PushService, settings: Any) -> None:
    """Only the sending task decides, under the notice's row lock: every put-off queues it once
    more, and however many of its tasks run (on one worker or two), one sends and the rest find it done."""
    settings.HIDDEN_AWAY = 120
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1, push)
    tab = online(table.code, table.controllers[1], hidden_since=timezone.now() - timedelta(seconds=10))
    score_first_legal(table)
    Notice.objects.filter(seat=0).delete()
    turn = Notice.objects.get(kind=Notice.Kind.TURN)
    before = turn.owed_at
    for back in (60, 20, 90, 40):  # the same hidden page, its socket reconnecting, each new one saying so
        Presence.objects.filter(channel_name=tab).update(hidden_since=before - timedelta(seconds=back))
        assert notices.send_notice.call(turn.pk).startswith("put off")
    Presence.objects.filter(channel_name=tab).update(hidden_since=before - timedelta(seconds=125))
    DBTaskResult.objects.filter(status="READY").update(run_after=timezone.now())  # every task queued is due now
    notices.recover(now=timezone.now() + timedelta(hours=1))  # and the sweep queues it once more
    run_worker()
    run_worker()
    assert len(mail.outbox) == 1 and len(push.requests) == 1
    turn.refresh_from_db()
    assert turn.outcome == "sent: e-mail, 1 push" and turn.attempts == 1
    assert notices.send_notice.call(turn.pk) == "done already"


def test_a_page_that_showed_the_paused_room_does_not_drop_the_your_turn_of_its_resume(
    push: PushService, settings: Any
) -> None:
    settings.HIDDEN_AWAY = 120
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1, push)
    score_first_legal(table)  # Ben's turn...
    pause(table)  # ...paused before he was told
    run_worker()
    # He looked at the paused room, and put the page in the background.
    online(table.code, table.controllers[1], hidden_since=timezone.now() - timedelta(seconds=200))
    resume(table)  # much later: the game goes on, and he is not looking
    run_worker()
    turn = Notice.objects.get(kind=Notice.Kind.TURN, seat=1)
    assert turn.outcome == "sent: e-mail, 1 push", turn.outcome
    assert mail.outbox[-1].body.startswith(f"Your turn in room {table.shown}: P0 resumed the game.")


def test_a_spectators_socket_or_another_seats_keeps_no_notice_back(push: PushService) -> None:
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1, push)
    game = Game.objects.get(code=table.code)
    for name, controller in (("ws.host", table.controllers[0]), ("ws.guest", "someone-watching")):
        Presence.objects.create(game=game, channel_name=name, controller=controller, seen_at=timezone.now(), origin="x")
    score_first_legal(table)
    Notice.objects.filter(seat=0).delete()
    run_worker()
    assert len(mail.outbox) == 1 and len(push.requests) == 1
    assert Notice.objects.get(kind=Notice.Kind.TURN).outcome == "sent: e-mail, 1 push"


def test_nobody_opted_in_nothing_is_sent() -> None:
    table = own_pace_room(seconds=0)
    score_first_legal(table)
    run_worker()
    assert Notice.objects.get().outcome == "nobody to tell: no channel chosen"
    assert not mail.outbox


def test_turn_e_mails_go_only_to_the_address_its_owner_confirmed_not_the_accounts_own() -> None:
    """The account's own address may have been set by an administrator (or the site's former
    e-mail page) with nobody confirming it: e-mails on without a confirmed address mail nobody."""
    table = own_pace_room(seconds=0)
    user = get_user_model().objects.create_user("p1", email="set-by-staff@example.org", password="pw")
    Player.objects.filter(game__code=table.code, seat=1).update(user=user)
    NoticeSettings.objects.create(user=user, email=True, controller=table.controllers[1])
    score_first_legal(table)
    run_worker()
    assert not mail.outbox and Notice.objects.get().outcome == "nobody to tell: no channel chosen"
    services.email_notices_set(user_id=user.pk, on=True, address="p1@example.org", controller=table.controllers[1])
    [question] = mail.outbox
    assert services.email_notices_confirm(token=question.body.split("/notices/email/confirm/")[1].split()[0])
    get_user_model().objects.filter(pk=user.pk).update(email="set-by-staff@example.org")
    mail.outbox.clear()
    score_first_legal(table)
    score_first_legal(table)
    run_worker()
    assert [m.to for m in mail.outbox] == [["p1@example.org"]]


@pytest.mark.parametrize("address", ["root@localhost", "ana@mail.localhost", "ana@[10.0.0.7]", "ana@[IPv6:::1]"])
def test_an_address_saved_before_such_addresses_were_refused_is_not_mailed_and_the_pushes_still_go(
    push: PushService, address: str
) -> None:
    """The form refuses an address off the internet (the site's mail server would deliver to itself,
    or connect to a host on its own network); one saved before it did is mailed nothing either."""
    table = own_pace_room(seconds=DAY)
    user, _ = opted_in(table, 1, push)
    NoticeSettings.objects.filter(user=user).update(address=address)
    score_first_legal(table)
    run_worker()
    assert not mail.outbox and len(push.requests) == 1
    turn = Notice.objects.get(kind=Notice.Kind.TURN, seat=1)
    assert turn.outcome == "sent: 1 push"


def test_an_address_that_cannot_receive_mail_alone_tells_nobody() -> None:
    table = own_pace_room(seconds=0)
    user, _ = opted_in(table, 1)
    NoticeSettings.objects.filter(user=user).update(address="root@localhost")
    score_first_legal(table)
    run_worker()
    assert not mail.outbox
    assert Notice.objects.get().outcome == "nobody to tell: the address cannot receive mail"


def test_the_confirmed_address_typed_in_other_capitals_is_the_same_address_and_mails_no_link() -> None:
    """Addresses are compared as the accounts' are (allauth): in any case. "Ana@Example.com" is the
    confirmed "ana@example.com", so saving the form sends no link and the e-mails go on there; a
    request waiting is the same request typed in other capitals."""
    user = get_user_model().objects.create_user("ana", password="pw")
    assert services.email_notices_set(user_id=user.pk, on=True, address="ana@example.com", controller="c") == "confirm"
    [question] = mail.outbox
    assert services.email_notices_set(user_id=user.pk, on=True, address="ANA@example.COM", controller="c") == (
        "sent already"
    )
    assert len(mail.outbox) == 1
    assert services.email_notices_confirm(token=question.body.split("/notices/email/confirm/")[1].split()[0])
    services.email_notices_set(user_id=user.pk, on=False, controller="c")
    mail.outbox.clear()
    assert services.email_notices_set(user_id=user.pk, on=True, address="Ana@Example.com", controller="c") == "set"
    assert not mail.outbox
    row = NoticeSettings.objects.get(user=user)
    assert row.email and row.address == "ana@example.com" and not row.pending_nonce


def test_a_notice_being_sent_by_a_live_worker_is_not_sent_again_and_one_left_by_a_dead_worker_is(
    push: PushService,
) -> None:
    table = own_pace_room(seconds=0)
    opted_in(table, 1, push)
    score_first_legal(table)
    turn = Notice.objects.get()
    DBTaskResult.objects.all().delete()  # its task is lost (the worker that had claimed it died)
    Notice.objects.filter(pk=turn.pk).update(claimed_at=timezone.now(), attempts=1)
    assert notices.send_notice.call(turn.pk) == "being sent by another worker"
    assert notices.recover() == 0  # taken a moment ago: its worker may be sending it now
    assert not mail.outbox

    later = timezone.now() + notices.LEASE + timedelta(seconds=1)
    assert notices.recover(now=later) == 1  # past the lease: its worker died, queued again
    Notice.objects.filter(pk=turn.pk).update(claimed_at=timezone.now() - notices.LEASE - timedelta(seconds=1))
    run_worker()
    assert len(mail.outbox) == 1 and len(push.requests) == 1
    assert Notice.objects.get().attempts == 2
    assert notices.recover(now=later + timedelta(days=1)) == 0  # done: never queued again


def test_a_notice_whose_task_was_lost_is_queued_again_after_the_grace() -> None:
    table = own_pace_room(seconds=0)
    opted_in(table, 1)
    score_first_legal(table)
    DBTaskResult.objects.all().delete()
    assert notices.recover() == 0  # its task may still be waiting in the queue
    assert notices.recover(now=timezone.now() + notices.GRACE + timedelta(seconds=1)) == 1
    run_worker()
    assert len(mail.outbox) == 1


def test_the_notice_workers_sweep_prunes_task_results_and_notices_done_long_ago_and_expired_sessions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every notice leaves a task result and every seat token a session, which nothing else deletes:
    the worker's sweep drops the results finished and the notices of games over done more than
    ``KEPT`` (14 days) ago, and the sessions expired, and keeps the rest."""
    table = own_pace_room(seconds=DAY)
    score_first_legal(table)
    run_worker()  # Ben's "your turn" sent: its task finished, his reminder waits
    month_ago = timezone.now() - timedelta(days=30)
    finished = DBTaskResult.objects.filter(status="SUCCESSFUL")
    assert finished.exists() and DBTaskResult.objects.filter(status="READY").exists()
    finished.update(enqueued_at=month_ago, started_at=month_ago, finished_at=month_ago)
    Notice.objects.filter(kind=Notice.Kind.TURN).update(done_at=month_ago)
    live = Notice.objects.count()
    expired = SessionStore()
    expired.set_expiry(-1)
    expired.save()
    current = SessionStore()
    current.save()
    stop = threading.Event()
    stop.set()
    monkeypatch.setattr(notices, "connections", mock.Mock())  # the test's own connection stays open
    monkeypatch.setattr(notices, "close_old_connections", lambda: None)
    notices.recover_forever(stop)  # one round of the sweep
    assert not DBTaskResult.objects.filter(status="SUCCESSFUL").exists()
    assert DBTaskResult.objects.filter(status="READY").exists()  # the reminder's, still to run
    assert Notice.objects.count() == live  # the game goes on: its notices are kept
    assert not Session.objects.filter(session_key=expired.session_key).exists()
    assert Session.objects.filter(session_key=current.session_key).exists()
    # Once the game is over, its notices done long ago go too, and none done lately.
    Game.objects.filter(code=table.code).update(status=Game.Status.FINISHED)
    assert notices.prune() == (0, 1)
    assert notices.prune(now=timezone.now() + notices.KEPT + timedelta(days=1)) == (0, 0)  # the reminder: not done
    assert Notice.objects.filter(kind=Notice.Kind.REMINDER).exists()


def test_a_notice_every_worker_died_on_is_given_up() -> None:
    table = own_pace_room(seconds=0)
    score_first_legal(table)
    Notice.objects.update(claimed_at=timezone.now(), attempts=notices.MAX_ATTEMPTS)
    assert notices.recover(now=timezone.now() + timedelta(days=1)) == 0
    assert Notice.objects.get().outcome.startswith("given up")


@pytest.mark.django_db(transaction=True)
def test_one_database_error_does_not_end_the_task_worker_of_make_run(
    settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """`make run` sends the notices from a thread of its one server. A database that drops its
    connection once (PostgreSQL restarted, a SQLite disk error) raises out of django-tasks-db's
    loop: the failure is logged and the loop runs again, so the next notice still goes."""
    settings.SITE_URL = "https://yahtzee.example.org"
    real = DBTaskResultQuerySet.get_locked
    failures = iter([OperationalError("server closed the connection unexpectedly")])

    def flaky(self: DBTaskResultQuerySet) -> Any:
        for failure in failures:  # the first look at the queue only
            raise failure
        return real(self)

    # The worker's and the recovery sweep's threads share the test's database: on SQLite a write
    # of the test's while they look fails at once ("database table is locked"; the worker looks in
    # an exclusive transaction). So the notice is queued before they start, and what they did is
    # read once both have ended.
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1)
    score_first_legal(table)  # seat 1's turn: their notice is owed and queued
    turn = Notice.objects.get(kind=Notice.Kind.TURN, seat=1)
    threads = set(threading.enumerate())
    with mock.patch.object(DBTaskResultQuerySet, "get_locked", flaky):
        worker, stop = notices.start_in_process()
        started = set(threading.enumerate()) - threads
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not mail.outbox:
                time.sleep(0.05)
        finally:
            worker.running = False
            stop.set()
            for thread in started:
                thread.join(10)
                assert not thread.is_alive(), f"the {thread.name} thread did not end"
    turn.refresh_from_db()
    assert turn.done_at is not None and len(mail.outbox) == 1
    assert "the task worker failed; it runs again in 1 s" in caplog.text


def test_the_reminder_goes_when_a_quarter_of_the_time_is_left_and_waits_if_the_deadline_moved(
    push: PushService,
) -> None:
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1)
    score_first_legal(table)
    reminder = Notice.objects.get(kind=Notice.Kind.REMINDER, seat=1)
    # Staff give more time before it is due: the reminder waits for the new quarter.
    services.clock_extend(code=table.code, seconds=DAY, staff="clerk", turn=services.clock_to_extend(table.game))
    assert notices.send_notice.call(reminder.pk) == "not due yet"
    reminder.refresh_from_db()
    assert reminder.due_at == table.game.turn_deadline - timedelta(seconds=DAY / 4)
    # Now a quarter is left.
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() + timedelta(hours=5))
    mail.outbox.clear()
    assert notices.send_notice.call(reminder.pk) == "sent: e-mail"
    # Five hours less a few milliseconds: the whole minutes left, as the room's countdown shows them.
    assert mail.outbox[0].subject == f"4 hours 59 minutes left for your move in room {table.shown}"
    assert "it is still your turn" in mail.outbox[0].body


def bens_turn_reminded() -> tuple[Table, Notice]:
    """A game at your own pace (a day a move) where it is Ben's (seat 1) turn, with 5 hours left, and
    his reminder ("4 hours 59 minutes left", the whole minutes left) went: Ben is signed in and gets
    the turn e-mails; his "your turn" is dealt with."""
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1)
    score_first_legal(table)
    Notice.objects.filter(kind=Notice.Kind.TURN).update(done_at=timezone.now(), outcome="test: not looked at")
    reminder = Notice.objects.get(kind=Notice.Kind.REMINDER, seat=1)
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() + timedelta(hours=5))
    mail.outbox.clear()
    assert notices.send_notice.call(reminder.pk) == "sent: e-mail"  # its due time (the task's run_after) came
    assert "4 hours 59 minutes left" in mail.outbox[0].subject
    reminder.refresh_from_db()
    DBTaskResult.objects.all().delete()  # the tasks queued so far are done with
    return table, reminder


def queued(notice: Notice) -> int:
    """How many tasks are queued to send ``notice``."""
    tasks = DBTaskResult.objects.filter(status="READY", task_path__endswith="send_notice")
    return sum(1 for task in tasks if task.args_kwargs["args"][0] == notice.pk)


def test_a_move_given_more_time_after_its_reminder_went_is_reminded_again_before_the_new_deadline() -> None:
    """README: the player to move is "reminded when a quarter of their time is left". Ben was reminded
    with 5 hours left of a day's move; staff then give him 3 days more: his reminder is owed again,
    once, for a quarter of the time before the new deadline, and goes then."""
    table, reminder = bens_turn_reminded()
    services.clock_extend(code=table.code, seconds=3 * DAY, staff="clerk", turn=services.clock_to_extend(table.game))
    deadline = table.game.turn_deadline
    assert deadline is not None
    reminder.refresh_from_db()
    assert reminder.done_at is None and reminder.due_at == deadline - timedelta(seconds=DAY / 4)
    assert queued(reminder) == 1
    # More time again before it goes: the reminder still owed waits for the newest deadline, queued no more.
    services.clock_extend(code=table.code, seconds=DAY, staff="clerk", turn=services.clock_to_extend(table.game))
    assert queued(reminder) == 1
    assert notices.send_notice.call(reminder.pk) == "not due yet"
    # A quarter of the new time is left: the reminder goes, once.
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() + timedelta(hours=6))
    mail.outbox.clear()
    assert notices.send_notice.call(reminder.pk) == "sent: e-mail"
    assert notices.send_notice.call(reminder.pk) == "done already"
    assert (
        len(mail.outbox) == 1
        and mail.outbox[0].subject == f"5 hours 59 minutes left for your move in room {table.shown}"
    )


def test_more_time_that_leaves_less_than_a_quarter_owes_no_second_reminder() -> None:
    """An hour more to a move reminded with 5 hours left: 6 hours left is no more than the quarter the
    reminder came at, so the reminder that went stands, and no second one is owed."""
    table, reminder = bens_turn_reminded()
    services.clock_extend(code=table.code, seconds=3_600, staff="clerk", turn=services.clock_to_extend(table.game))
    reminder.refresh_from_db()
    assert reminder.done_at is not None and queued(reminder) == 0


def test_a_reminder_being_sent_when_more_time_is_given_is_owed_again_for_the_new_deadline() -> None:
    """The worker is sending Ben's reminder for the deadline before when staff give him 3 days more:
    the worker marks done only its own claim, and the reminder stays owed for the new deadline."""
    table, reminder = bens_turn_reminded()
    Notice.objects.filter(pk=reminder.pk).update(done_at=None, claimed_at=None, outcome="")
    deliver = notices.deliver

    def more_time_meanwhile(notice: Notice, game: Game) -> str:
        turn = services.clock_to_extend(game)
        services.clock_extend(code=table.code, seconds=3 * DAY, staff="clerk", turn=turn)
        return deliver(notice, game)

    with mock.patch.object(notices, "deliver", more_time_meanwhile):
        assert notices.send_notice.call(reminder.pk) == "sent: e-mail"
    reminder.refresh_from_db()
    assert reminder.done_at is None and reminder.claimed_at is None
    assert reminder.due_at > timezone.now() + timedelta(days=2) and queued(reminder) == 1


@pytest.mark.parametrize("sent", ["before the outage", "during the outage"])
def test_time_an_outage_gives_back_owes_the_reminder_again_only_if_it_went_in_the_outage(sent: str) -> None:
    """No process kept the clock for 3 hours (``clock_outage``): the deadline moves on by them. A
    reminder that went before the outage told of the time the outage gave back, and is not sent
    twice; one a task worker sent in the outage (it runs apart from the servers) told of a deadline
    that moved on since, and is owed again for the new one."""
    table, reminder = bens_turn_reminded()  # due 6 hours before the deadline, an hour ago; sent now
    if sent == "before the outage":
        since, gap = timezone.now() + timedelta(seconds=1), timedelta(hours=3)
    else:
        since, gap = timezone.now() - timedelta(hours=2), timedelta(hours=4)
    with mock.patch("django.utils.timezone.now", return_value=since + gap):  # the servers are back
        assert services.clock_outage(code=table.code, gap=gap, since=since)
    reminder.refresh_from_db()
    if sent == "before the outage":
        assert reminder.done_at is not None and queued(reminder) == 0
    else:
        assert reminder.done_at is None and queued(reminder) == 1
        assert reminder.due_at == table.game.turn_deadline - timedelta(seconds=DAY / 4)


def test_the_your_turn_e_mail_of_a_fresh_three_day_move_never_says_more_time_than_is_left() -> None:
    """Sent a moment after the move began, the e-mail says what the room's countdown shows at that
    moment ("2 d 23 h"): the whole minutes left, rounded down, never the 3 days no longer left."""
    table = own_pace_room(seconds=3 * DAY)
    opted_in(table, 1)
    score_first_legal(table)
    turn = Notice.objects.get(kind=Notice.Kind.TURN, seat=1)
    mail.outbox.clear()
    assert notices.send_notice.call(turn.pk) == "sent: e-mail"
    assert "Time left to move: 2 days 23 hours." in mail.outbox[0].body, mail.outbox[0].body


@pytest.mark.parametrize(("seconds", "said"), [(50_370, "13 hours 59 minutes"), (50_390, "13 hours 59 minutes")])
def test_the_reminder_and_your_games_word_the_time_left_alike_and_never_more_than_is_left(
    seconds: int, said: str
) -> None:
    """At 13 h 59 min left the reminder said "14 hours", Your games "13 hours" and the room's
    countdown "13 h 59 min" (tests/e2e/test_room_render.py, the same rule at the same instants):
    the e-mail's subject, first line and time left, the push (its title and body are the letter's
    subject and line) and Your games now all say the same, never more than is left."""
    table = own_pace_room(seconds=3 * DAY)
    opted_in(table, 1)
    score_first_legal(table)
    reminder = Notice.objects.get(kind=Notice.Kind.REMINDER, seat=1)
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() + timedelta(seconds=seconds))
    Notice.objects.filter(pk=reminder.pk).update(due_at=timezone.now() - timedelta(seconds=1))
    letter = notices.letter(Notice.objects.get(pk=reminder.pk), Game.objects.get(code=table.code))
    assert letter.subject == f"{said} left for your move in room {table.shown}"
    assert f"and {said} of your time to move is left." in letter.line
    mail.outbox.clear()
    assert notices.send_notice.call(reminder.pk) == "sent: e-mail"
    assert mail.outbox[0].subject == letter.subject
    assert f"Time left to move: {said}." in mail.outbox[0].body, mail.outbox[0].body
    browser = Client()
    session = browser.session
    session["controller"] = table.controllers[1]
    session.save()
    when = re.search(r'<span class="game-when">(.*?)</span>', browser.get("/games").content.decode(), re.S)
    assert when is not None and when.group(1).strip() == f"{said} left"


def test_a_reminder_sent_after_the_deadline_says_the_time_is_up_not_no_limit_left() -> None:
    """The deadline passed and the timeout is not played yet (the scheduler a sweep away, or down)."""
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1)
    score_first_legal(table)
    reminder = Notice.objects.get(kind=Notice.Kind.REMINDER, seat=1)
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() - timedelta(seconds=2))
    Notice.objects.filter(pk=reminder.pk).update(due_at=timezone.now() - timedelta(seconds=1))
    mail.outbox.clear()
    assert notices.send_notice.call(reminder.pk) == "sent: e-mail"
    letter = mail.outbox[0]
    assert letter.subject == f"Your turn in room {table.shown}"
    assert "Time left to move: time is up." in letter.body and "no limit" not in letter.body


@pytest.mark.parametrize("status", [404, 410])
def test_a_subscription_the_push_service_says_is_gone_is_pushed_no_more_and_not_taken_again(
    push: PushService, status: int
) -> None:
    """A push service's subscriptions expire (410, or 404) while the browser still holds them and
    says its notifications are on: its page posts the dead one again at each visit to Your games,
    and stored as new it would leave the player never told of a turn again. The server keeps it as
    gone: the browser's post of it is refused with ``subscription_gone`` (its page then makes a new
    one), and the sweep of subscriptions failing deletes it after ``PUSH_FAILING_DAYS``."""
    table = own_pace_room(seconds=0)
    _, device = opted_in(table, 1, push)
    assert device is not None
    push.answer = status
    score_first_legal(table)
    run_worker()
    assert Notice.objects.get().outcome == "sent: e-mail"
    gone = PushSubscription.objects.get()
    assert gone.gone_at is not None and gone.failing_since is not None
    push.answer = 201
    with pytest.raises(RuleViolation) as refused:
        services.push_subscribe(controller=table.controllers[1], user_id=None, subscription=device.subscription)
    assert refused.value.code == errors.SUBSCRIPTION_GONE
    assert PushSubscription.objects.get() == gone and PushSubscription.objects.get().gone_at == gone.gone_at
    # It is told nothing more; the new subscription its page makes is.
    renewed = Subscriber(f"{push.url}/push/renewed")
    services.push_subscribe(controller=table.controllers[1], user_id=None, subscription=renewed.subscription)
    score_first_legal(table)
    score_first_legal(table)
    run_worker()
    assert [r.path for r in push.requests if r.path != "/push/1"] == ["/push/renewed"]
    assert [r.path for r in push.requests].count("/push/1") == 1  # the push that found it gone
    later = timezone.now() + timedelta(days=settings.PUSH_FAILING_DAYS + 1)
    assert sweeps.push_failing(later) == {"subscriptions": 1}
    assert list(PushSubscription.objects.values_list("endpoint", flat=True)) == [renewed.endpoint]


def test_an_endpoint_stored_first_by_a_browser_that_only_learned_it_holds_until_its_owner_subscribes_anew(
    push: PushService,
) -> None:
    """The limits of the rule docs/security.md gives: a push service delivers to whoever holds an
    endpoint's subscription, and checks no keys, so the server cannot tell the browser that holds
    it from one that learned the endpoint and posted it first with keys of its own. That one keeps
    it against the owner's post with its real keys (``subscription_held``), and its own turns are
    pushed there in a form the owner's browser cannot read. The owner's way out needs no proof: its
    page makes a new subscription (an endpoint nobody else knows), which is stored and told of its
    turns; the old one, unsubscribed, is gone at its push service, and the first push the other
    browser is sent there finds it gone, after which nothing more is pushed to it and the sweep of
    subscriptions failing deletes it."""
    table = own_pace_room(seconds=0)
    owner_seat, other_seat = 0, 1
    owner = Subscriber(f"{push.url}/push/owner")
    learned = Subscriber(owner.endpoint)  # the same endpoint, with keys of the other browser's own
    services.push_subscribe(controller=table.controllers[other_seat], user_id=None, subscription=learned.subscription)
    with pytest.raises(RuleViolation) as refused:
        services.push_subscribe(controller=table.controllers[owner_seat], user_id=None, subscription=owner.subscription)
    assert refused.value.code == errors.SUBSCRIPTION_HELD
    held = PushSubscription.objects.get()
    assert held.controller == table.controllers[other_seat] and held.auth == learned.subscription["keys"]["auth"]

    score_first_legal(table)  # the other browser's turn, pushed to the owner's device
    run_worker()
    [sent] = push.requests
    assert sent.path == "/push/owner"
    with pytest.raises(http_ece.ECEException):
        owner.open(sent.body)
    assert learned.open(sent.body)["url"].endswith(f"/r/{table.code}/")  # for keys the owner does not hold

    # The owner subscribes anew; its old subscription is gone at the push service from then on.
    fresh = Subscriber(f"{push.url}/push/owner-anew")
    services.push_subscribe(controller=table.controllers[owner_seat], user_id=None, subscription=fresh.subscription)
    push.answers[owner.endpoint.removeprefix(push.url)] = 410
    push.requests.clear()
    score_first_legal(table)  # the owner's turn
    run_worker()
    [told] = push.requests
    assert told.path == "/push/owner-anew" and fresh.open(told.body)["url"].endswith(f"/r/{table.code}/")
    score_first_legal(table)  # the other's turn: its push finds the endpoint gone
    run_worker()
    assert PushSubscription.objects.get(endpoint=owner.endpoint).gone_at is not None
    push.requests.clear()
    for _ in range(2):  # the owner's turn, then the other's
        score_first_legal(table)
        run_worker()
    assert [r.path for r in push.requests] == ["/push/owner-anew"]
    later = timezone.now() + timedelta(days=settings.PUSH_FAILING_DAYS + 1)
    assert sweeps.push_failing(later) == {"subscriptions": 1}
    assert list(PushSubscription.objects.values_list("endpoint", flat=True)) == [fresh.endpoint]


def test_a_subscription_whose_pushes_fail_is_marked_failing_until_one_goes(push: PushService) -> None:
    """The sweep deletes one every push to which has failed for PUSH_FAILING_DAYS (games.services.sweeps)."""
    table = own_pace_room(seconds=0)
    opted_in(table, 1, push)
    subscription = PushSubscription.objects.get()
    notice = Notice(game=table.game, seat=1, turn=1, kind=Notice.Kind.TURN)
    letter = notices.letter(notice, table.game)
    push.answer = 500
    assert not notices.send_push(subscription, letter, notice)
    first = PushSubscription.objects.get().failing_since
    assert first is not None
    assert not notices.send_push(PushSubscription.objects.get(), letter, notice)
    assert PushSubscription.objects.get().failing_since == first  # since the first failure, not the last
    push.answer = 201
    assert notices.send_push(PushSubscription.objects.get(), letter, notice)
    assert PushSubscription.objects.get().failing_since is None


def test_one_click_stops_e_mails_or_one_device(push: PushService) -> None:
    table = own_pace_room(seconds=0)
    user, _ = opted_in(table, 1, push)
    subscription = PushSubscription.objects.get()
    assert services.notices_stop(token=notices.stop_token("email", user.pk)) == "email"
    assert not NoticeSettings.objects.get(user=user).email
    assert services.notices_stop(token=notices.stop_token("push", subscription.pk)) == "push"
    assert not PushSubscription.objects.exists()
    # Used again, its subscription gone: nothing was stopped by this click.
    assert services.notices_stop(token=notices.stop_token("push", subscription.pk)) == "gone"
    for bad in ("", "nonsense", notices.stop_token("email", user.pk)[:-2] + "xx", notices.stop_token("other", 1)):
        assert services.notices_stop(token=bad) is None


@pytest.mark.parametrize(
    ("endpoint", "allowed"),
    [
        ("https://fcm.googleapis.com/fcm/send/abc", True),
        ("https://updates.push.services.mozilla.com/wpush/v2/abc", True),
        ("https://web.push.apple.com/abc", True),
        ("http://fcm.googleapis.com/fcm/send/abc", False),  # not https
        ("https://evil.example.com/abc", False),
        ("https://fcm.googleapis.com.evil.example.com/abc", False),
        ("https://evilfcm.googleapis.com/abc", False),  # not a subdomain, a longer name
        ("https://user:pw@fcm.googleapis.com/abc", False),
        ("https://fcm.googleapis.com:99999/abc", False),
        ("https://127.0.0.1/abc", False),
        ("ftp://fcm.googleapis.com/abc", False),
        ("", False),
        # Read as a name under an allowed host by one parser and as another host by the sender's.
        ("https://127.0.0.1\\.fcm.googleapis.com/abc", False),
        ("https://internal-admin\\.push.apple.com/hook", False),
        ("https://127.0.0.1%5C.fcm.googleapis.com/abc", False),
        ("https://127.0.0.1\t.fcm.googleapis.com/abc", False),
        ("https://127.0.0.1 .fcm.googleapis.com/abc", False),
        ("https://[::1].fcm.googleapis.com/abc", False),
        ("https://fcm.googleapis.com#@127.0.0.1/abc", False),
        ("https://fcm.googleapis.com/abc\\@127.0.0.1/", False),
        ("https://fcm.googleapis.com:443/fcm/send/abc", True),
        # A push service serves on https's own port: another would have the server connect where
        # the subscriber chose on the service's hosts (a mail port, an admin one).
        ("https://fcm.googleapis.com:22/abc", False),
        ("https://x.notify.windows.com:8443/abc", False),
        ("https://fcm.googleapis.com:0443/abc", True),
        ("https://FCM.googleapis.com/fcm/send/abc", True),
        ("https://fcm.googleapis.com./abc", False),
        ("https://exämple.fcm.googleapis.com/abc", False),
    ],
)
def test_pushes_go_only_to_the_push_services_allowed(endpoint: str, allowed: bool) -> None:
    assert notices.push_allowed(endpoint) is allowed


def test_a_stored_subscription_to_a_host_read_two_ways_is_never_connected_to_and_is_deleted(settings: Any) -> None:
    # As a row stored before the check read the address the sender's way: the worker must not
    # post to 127.0.0.1, which is where requests (urllib3) would take this address.
    settings.VAPID_PRIVATE_KEY = new_vapid_private_key()
    table = own_pace_room(seconds=0)
    evil = Subscriber("https://127.0.0.1\\.fcm.googleapis.com/x")
    keys = evil.subscription["keys"]
    PushSubscription.objects.create(
        endpoint=evil.endpoint, p256dh=keys["p256dh"], auth=keys["auth"], controller=table.controllers[1]
    )
    score_first_legal(table)  # seat 1's turn: a notice owed
    connected: list[tuple[str, int]] = []

    def record(address: tuple[str, int], *args: Any, **kwargs: Any) -> Any:
        connected.append(address)
        raise OSError("refused by the test")

    with mock.patch("urllib3.util.connection.create_connection", record):
        run_worker()
    assert connected == [] and not PushSubscription.objects.exists()


def test_the_vapid_public_key_is_the_uncompressed_point_of_the_private_key(settings: Any) -> None:
    settings.VAPID_PRIVATE_KEY = new_vapid_private_key()
    key = notices.vapid_public_key()
    assert len(key) == 87 and key.startswith("B")  # 65 bytes, 0x04 first, base64url
    settings.VAPID_PRIVATE_KEY = ""
    assert notices.vapid_public_key() == ""


def _der(curve: Any) -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(curve).private_bytes(
        serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return base64.urlsafe_b64encode(key).decode()


def test_a_vapid_key_is_told_apart_from_one_that_cannot_sign() -> None:
    from cryptography.hazmat.primitives.asymmetric import ec

    raw = new_vapid_private_key()
    for usable in ("", raw, f" {raw}=\n", raw.replace("-", "+").replace("_", "/"), _der(ec.SECP256R1())):
        assert notices.vapid_key_fault(usable) == "", usable
    assert notices._vapid(_der(ec.SECP256R1())) is not None
    order = notices.P256_ORDER.to_bytes(32, "big")
    for unusable, why in [
        ("replace-with-the-key-from-var/vapid_private_key", "neither a raw P-256 private key"),
        ("a key", "not base64url"),
        (raw[:-1] + "!", "not base64url"),
        (raw + "AB", "not base64url"),  # 45 characters: no whole number of bytes
        (raw + "A", "neither a raw P-256 private key"),  # 33 bytes
        (base64.urlsafe_b64encode(bytes(32)).decode(), "not a P-256 private key"),  # 0
        (base64.urlsafe_b64encode(order).decode(), "not a P-256 private key"),  # past the curve's order
        (_der(ec.SECP384R1()), "not a P-256 private key"),
    ]:
        assert why in notices.vapid_key_fault(unusable), unusable
        assert notices._vapid(unusable) is None


def test_a_vapid_key_that_cannot_sign_turns_pushes_off_and_keeps_the_subscriptions(
    push: PushService, settings: Any
) -> None:
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1, push)
    settings.VAPID_PRIVATE_KEY = "replace-with-the-key-from-var/vapid_private_key"
    score_first_legal(table)  # seat 1's turn: owed
    run_worker()
    assert not push.requests and PushSubscription.objects.count() == 1
    assert len(mail.outbox) == 1  # the e-mail goes
    assert Notice.objects.get(kind=Notice.Kind.TURN, seat=1).outcome == "sent: e-mail"


# --- in the reader's language ---------------------------------------------------------------------


def test_each_channel_is_told_in_its_readers_language(push: PushService) -> None:
    """The e-mail in the account's language, each device's push in the language of the page it subscribed on."""
    table = own_pace_room(seconds=DAY, ruleset="yatzy")
    user, _ = opted_in(table, 1)
    services.email_notices_set(user_id=user.pk, on=True, controller=table.controllers[1], language="da")
    german = Subscriber(f"{push.url}/push/de")
    services.push_subscribe(
        controller=table.controllers[1], user_id=None, subscription=german.subscription, language="de"
    )
    spanish = Subscriber(f"{push.url}/push/es")
    services.push_subscribe(
        controller=table.controllers[1], user_id=None, subscription=spanish.subscription, language="es"
    )
    who = table.current()
    services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())
    points = next(o["points"] for o in game_state(table.game)["options"] if o["box"] == "chance")
    services.turn_score(
        code=table.code, controller=who, box="chance", column=0, expected_version=table.version(), action_id=action_id()
    )
    run_worker()

    email = mail.outbox[0]
    assert email.subject == f"Din tur i rum {table.shown}"
    assert email.body.startswith(f"Din tur i rum {table.shown}: P0 skrev lige {points} i Chance.")
    assert "Alle dine spil: " in email.body and "Stop disse e-mails (ét klik): " in email.body
    assert "Tid tilbage til dit træk: " in email.body and ("23 timer" in email.body or "1 dag" in email.body)
    bodies = {r.path: (german if r.path == "/push/de" else spanish).open(r.body) for r in push.requests}
    assert bodies["/push/de"]["title"] == f"Du bist am Zug in Raum {table.shown}"
    assert (
        bodies["/push/de"]["body"]
        == f"Du bist am Zug in Raum {table.shown}: P0 hat gerade {points} in Chance eingetragen."
    )
    es = f"Tu turno en la sala {table.shown}: P0 acaba de anotar {points} en "
    assert bodies["/push/es"]["body"].startswith(es)
    # The notification's own button too (the service worker shows it as sent).
    assert (bodies["/push/de"]["stop_label"], bodies["/push/es"]["stop_label"]) == (
        "Nicht mehr benachrichtigen",
        "Dejar de recibirlos",
    )
    # The stored line stays English, for the admin and the log.
    assert Notice.objects.get(kind=Notice.Kind.TURN).text == f"P0 just scored {points} in Chance"


def test_a_channel_that_fails_after_the_e_mail_went_leaves_the_notice_done_not_mailed_again(
    push: PushService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A notice left taken is sent again by the recovery sweep: once a channel has told the player,
    a failure in the next (one language's wording, a row it writes) must not leave it so."""
    table = own_pace_room(seconds=0)
    opted_in(table, 1)
    german = Subscriber(f"{push.url}/push/de")
    services.push_subscribe(
        controller=table.controllers[1], user_id=None, subscription=german.subscription, language="de"
    )
    worded = notices.letter

    def letter(notice: Notice, game: Game, language: str = "") -> notices.Letter:
        if language == "de":
            raise KeyError("name")
        return worded(notice, game, language)

    monkeypatch.setattr(notices, "letter", letter)
    score_first_legal(table)
    turn = Notice.objects.get(kind=Notice.Kind.TURN)
    assert notices.send_notice.call(turn.pk, turn.due_at.isoformat()) == "sent: e-mail"
    assert len(mail.outbox) == 1 and not push.requests
    later = timezone.now() + notices.LEASE + notices.GRACE + timedelta(seconds=1)
    assert notices.recover(now=later) == 0
    assert Notice.objects.get(pk=turn.pk).done_at is not None


def test_a_box_is_named_as_the_readers_rule_set_says_it(push: PushService) -> None:
    table = own_pace_room(seconds=DAY, ruleset="yatzy")
    user, _ = opted_in(table, 1)
    services.email_notices_set(user_id=user.pk, on=True, controller=table.controllers[1], language="sv")
    notice = Notice(game=table.game, player_id=user.pk, kind=Notice.Kind.TURN, turn=1, seat=1, text="")
    notice.event = {"what": "scored", "name": "Ana", "points": 12, "box": "one_pair"}
    a = "Ana"  # as typed: plain text
    assert notices.letter(notice, table.game, "sv").line == f"Din tur i rum {table.shown}: {a} skrev just 12 i Ett par."
    assert notices.letter(notice, table.game, "da").line == f"Din tur i rum {table.shown}: {a} skrev lige 12 i Et par."
    notice.event = {"what": "timed_out", "name": "Ana", "points": 0, "box": "yahtzee"}
    assert "le serveur a marqué 0 en Yatzy à sa place" in notices.letter(notice, table.game, "fr").line
    # A language the site does not speak, or none: the site's default.
    assert notices.letter(notice, table.game, "xx").line.startswith(
        f"Your turn in room {table.shown}: Ana's time ran out"
    )
    # A notice owed before its event was stored as data says its English line.
    legacy = Notice(game=table.game, player_id=user.pk, kind=Notice.Kind.TURN, turn=1, seat=1, text="Ana left the game")
    assert notices.letter(legacy, table.game, "de").line == f"Du bist am Zug in Raum {table.shown}: Ana left the game."


def test_the_accounts_language_moves_its_e_mails_and_pushes_with_it(push: PushService) -> None:
    table = own_pace_room(seconds=DAY)
    user, _ = opted_in(table, 1)
    subscriber = Subscriber(f"{push.url}/push/1")
    services.push_subscribe(
        controller=table.controllers[1], user_id=user.pk, subscription=subscriber.subscription, language="fr"
    )
    services.email_notices_set(user_id=user.pk, on=True, controller=table.controllers[1], language="klingon")
    assert NoticeSettings.objects.get(user=user).language == ""  # not a language of the site: the default
    services.notices_language_set(user_id=user.pk, language="es")
    assert NoticeSettings.objects.get(user=user).language == "es"
    assert PushSubscription.objects.get(endpoint=subscriber.endpoint).language == "es"


def test_a_browser_without_an_account_that_switches_language_is_pushed_in_the_new_one(push: PushService) -> None:
    """Ben (no account) turns notifications on while the site is in English, then picks Deutsch
    in the switcher: his pages are German, and so are his pushes from now on (a push opens the
    room, whose page does not subscribe again, so the switcher is what tells them)."""
    ana, ben = Client(HTTP_ACCEPT_LANGUAGE="en"), Client(HTTP_ACCEPT_LANGUAGE="en")
    code = create_room(ana, name="Ana", pace="own", move_time=str(DAY))
    ben.post(f"/r/{code}/join", {"name": "Ben"})
    subscriber = Subscriber(f"{push.url}/push/ben")
    response = ben.post("/notices/push", json.dumps(subscriber.subscription), content_type="application/json")
    assert response.status_code == 201
    assert PushSubscription.objects.get().language == "en"
    ben.post("/i18n/language", {"language": "de", "next": f"/r/{code}/"})
    assert 'lang="de"' in ben.get(f"/r/{code}/").content.decode()  # his pages are German now
    assert PushSubscription.objects.get().language == "de"  # and so are his pushes
    ana.post(f"/r/{code}/start", {"version": Game.objects.get(code=code).version, "action_id": "s"})
    score_first_legal(Table(code=code, controllers=[ana.session["controller"], ben.session["controller"]]))
    run_worker()  # Ana scored: Ben's turn
    assert subscriber.open(push.requests[0].body)["title"] == f"Du bist am Zug in Raum {services.shown_code(code)}"
    # Another browser's switch leaves his pushes as they are.
    Client().post("/i18n/language", {"language": "fr", "next": "/"})
    assert PushSubscription.objects.get().language == "de"


@pytest.mark.parametrize("signs_in", [False, True])
def test_a_device_subscribed_before_signing_in_is_still_told_after_signing_in(
    push: PushService, signs_in: bool
) -> None:
    ana, ben = Client(), Client()
    code = create_room(ana, name="Ana", pace="own", move_time=str(DAY))
    ben.post(f"/r/{code}/join", {"name": "Ben"})
    sub = Subscriber(f"{push.url}/push/ben").subscription
    assert ben.post("/notices/push", json.dumps(sub), content_type="application/json").status_code == 201
    if signs_in:  # on this browser: his seats become the account's, and so must its pushes
        get_user_model().objects.create_user("ben", password="pw")
        assert ben.post("/accounts/login/", {"login": "ben", "password": "pw"}).status_code == 302
        assert PushSubscription.objects.get().user.username == "ben"
    ana.post(f"/r/{code}/start", {"version": Game.objects.get(code=code).version, "action_id": "s"})
    score_first_legal(Table(code=code, controllers=[ana.session["controller"], ben.session["controller"]]))
    run_worker()  # Ana scored: Ben's turn
    turn = Notice.objects.get(kind=Notice.Kind.TURN, seat=1)
    assert turn.outcome == "sent: 1 push" and len(push.requests) == 1, turn.outcome


@pytest.mark.parametrize(("account_language", "told_in"), [("de", "de"), ("", "en")])
def test_a_device_that_signs_in_is_told_in_the_accounts_language(
    push: PushService, account_language: str, told_in: str
) -> None:
    """As the account's other devices are, once it has a language; until it chooses one, in the page's."""
    table = own_pace_room(seconds=DAY)
    ben = get_user_model().objects.create_user("ben", password="pw")
    if account_language:
        account_services.profile_set_language(user_id=ben.pk, language=account_language)
    subscriber = Subscriber(f"{push.url}/push/ben")
    # Ben turned notifications on before signing in, on a page in English...
    services.push_subscribe(
        controller=table.controllers[1], user_id=None, subscription=subscriber.subscription, language="en"
    )
    # ...then signed in on that browser.
    token = account_services.account_claim(user_id=ben.pk, controller=table.controllers[1])
    assert PushSubscription.objects.get().language == told_in
    score_first_legal(Table(code=table.code, controllers=[table.controllers[0], token]))
    run_worker()
    [request] = push.requests
    with translation.override(told_in):
        title = gettext("Your turn in room %(code)s") % {"code": table.shown}
    assert subscriber.open(request.body)["title"] == title


def test_an_account_is_pushed_to_at_most_ten_devices_however_often_it_signs_in(settings: Any) -> None:
    """docs/security.md: at most 10 subscriptions a browser's (an account's) token, the newest, so
    one notice's sending stays bounded; signing in brings a browser's own, up to 10 more each time."""
    settings.PUSH_HOSTS = ["fcm.googleapis.com"]
    keys = Subscriber("https://fcm.googleapis.com/x").subscription["keys"]

    def subscribe(controller: str, user_id: int | None, name: str) -> None:
        endpoint = f"https://fcm.googleapis.com/fcm/send/{name}"
        services.push_subscribe(
            controller=controller, user_id=user_id, subscription={"endpoint": endpoint, "keys": keys}
        )

    user = get_user_model().objects.create_user("ben", password="pw")
    account = account_services.profile_for(user.pk).controller
    for n in range(services.PUSH_PER_CONTROLLER):  # the account's ten devices
        subscribe(account, user.pk, f"account-{n}")
    # Three fresh browsers, each with ten subscriptions (the most one browser keeps), sign in
    # to the account one after the other.
    for browser in range(3):
        controller = services.new_controller()
        for n in range(services.PUSH_PER_CONTROLLER):
            subscribe(controller, None, f"browser-{browser}-{n}")
        account_services.account_claim(user_id=user.pk, controller=controller)
    kept = set(PushSubscription.objects.filter(controller=account).values_list("endpoint", flat=True))
    assert kept == {f"https://fcm.googleapis.com/fcm/send/browser-2-{n}" for n in range(services.PUSH_PER_CONTROLLER)}


def test_signing_in_keeps_the_push_of_the_device_that_signs_in() -> None:
    """An account with ten devices subscribed this week; a tablet that turned pushes on last month,
    without an account, signs in. Its subscription moves to the account and stays (its page says
    pushes are on and never subscribes again); the account's oldest other one makes room."""
    user = get_user_model().objects.create_user(username="ann", password="x" * 12)
    token = account_services.profile_for(user.pk).controller
    now = timezone.now()

    def subscription(n: int, controller: str, user_id: int | None, created: Any) -> PushSubscription:
        row = PushSubscription.objects.create(
            endpoint=f"https://fcm.googleapis.com/fcm/send/{n}",
            p256dh="p",
            auth="a",
            controller=controller,
            user_id=user_id,
        )
        PushSubscription.objects.filter(pk=row.pk).update(created_at=created)
        return row

    rows = [subscription(n, token, user.pk, now - timedelta(days=1, minutes=n)) for n in range(10)]
    tablet_token = services.new_controller()
    tablet = subscription(99, tablet_token, None, now - timedelta(days=30))
    services.push_hand_over(controller=tablet_token, to=token, user_id=user.pk)
    kept = set(PushSubscription.objects.filter(controller=token).values_list("pk", flat=True))
    assert kept == {tablet.pk} | {row.pk for row in rows[:9]}


def test_the_subscriptions_their_push_service_says_are_gone_make_room_before_any_that_works() -> None:
    """An account's phone subscribed a month ago; its laptop's subscriptions expired one after the
    other, each kept as gone (so that the laptop's page is told to make a new one), each renewed.
    The phone's, the one that still works, is kept past the ten a browser keeps: those gone go first."""
    user = get_user_model().objects.create_user(username="ann", password="x" * 12)
    token = account_services.profile_for(user.pk).controller
    keys = Subscriber("https://fcm.googleapis.com/x").subscription["keys"]
    now = timezone.now()

    def subscribe(name: str, created: Any) -> PushSubscription:
        endpoint = f"https://fcm.googleapis.com/fcm/send/{name}"
        services.push_subscribe(controller=token, user_id=user.pk, subscription={"endpoint": endpoint, "keys": keys})
        PushSubscription.objects.filter(endpoint=endpoint).update(created_at=created)
        return PushSubscription.objects.get(endpoint=endpoint)

    phone = subscribe("phone", now - timedelta(days=30))
    for n in range(services.PUSH_PER_CONTROLLER):
        subscribe(f"laptop-{n}", now - timedelta(days=20 - n))
        PushSubscription.objects.filter(endpoint__endswith=f"laptop-{n}").update(gone_at=now, failing_since=now)
    laptop = subscribe("laptop-renewed", now)
    kept = set(PushSubscription.objects.filter(controller=token, gone_at=None).values_list("pk", flat=True))
    assert kept == {phone.pk, laptop.pk}
    assert PushSubscription.objects.filter(controller=token).count() == services.PUSH_PER_CONTROLLER


def test_one_notice_is_pushed_to_at_most_ten_devices(push: PushService) -> None:
    """A seat taken before signing in is its player's through its token and through the account:
    however many subscriptions the two have between them, one notice is pushed to the newest ten."""
    table = own_pace_room(seconds=DAY)
    ben = get_user_model().objects.create_user("ben", password="pw")
    Player.objects.filter(game__code=table.code, seat=1).update(user=ben)
    account = account_services.profile_for(ben.pk).controller
    for n in range(services.PUSH_PER_CONTROLLER):
        subscriber = Subscriber(f"{push.url}/push/seat-{n}")
        services.push_subscribe(controller=table.controllers[1], user_id=None, subscription=subscriber.subscription)
    for n in range(services.PUSH_PER_CONTROLLER):
        subscriber = Subscriber(f"{push.url}/push/account-{n}")
        services.push_subscribe(controller=account, user_id=ben.pk, subscription=subscriber.subscription)
    score_first_legal(table)  # Ben's turn
    run_worker()
    assert sorted(r.path for r in push.requests) == sorted(
        f"/push/account-{n}" for n in range(services.PUSH_PER_CONTROLLER)
    )


def test_a_device_signed_out_of_the_account_is_told_no_more_of_its_turns(push: PushService) -> None:
    get_user_model().objects.create_user("ben", password="pw")
    ana, ben = Client(), Client()
    assert ben.post("/accounts/login/", {"login": "ben", "password": "pw"}).status_code == 302
    code = create_room(ana, name="Ana", pace="own", move_time=str(DAY))
    ben.post(f"/r/{code}/join", {"name": "Ben"})
    sub = Subscriber(f"{push.url}/push/ben").subscription
    assert ben.post("/notices/push", json.dumps(sub), content_type="application/json").status_code == 201
    account_token = ben.session["controller"]
    ben.post("/accounts/logout/")  # Ben signs out of this (shared) browser
    assert not PushSubscription.objects.exists()
    ana.post(f"/r/{code}/start", {"version": Game.objects.get(code=code).version, "action_id": "s"})
    score_first_legal(Table(code=code, controllers=[ana.session["controller"], account_token]))
    run_worker()  # Ben's turn: nobody on that browser is told
    assert not push.requests


def test_a_password_change_stops_the_pushes_of_the_browsers_it_signs_out(push: PushService) -> None:
    """docs/accounts.md: "Changing the password signs the account's other browsers out". Ann left
    herself signed in on a shared computer where she had turned notifications on, and changes her
    password from her phone to sign it out: the shared computer is told no more of her turns (no
    sign-out runs there to stop them), and her phone still is."""
    phone, shared = Client(), Client()
    sign_up(phone, "ann")
    assert shared.post("/accounts/login/", {"login": "ann", "password": PASSWORD}).status_code == 302
    for client, name in ((shared, "shared-computer"), (phone, "phone")):
        subscription = json.dumps(Subscriber(f"{push.url}/push/{name}").subscription)
        assert client.post("/notices/push", subscription, content_type="application/json").status_code == 201
    cy = services.new_controller()
    code = services.game_create(host_name="Cy", controller=cy, pace="own", turn_timer=DAY).game.code
    table = Table(code=code, controllers=[cy, phone.session["controller"]])
    services.game_join(code=code, name="Ann", controller=table.controllers[1])
    services.game_start(code=code, controller=cy, expected_version=table.version(), action_id=action_id())

    new = "a different horse battery staple"
    changed = phone.post("/accounts/password/change/", {"oldpassword": PASSWORD, "password1": new, "password2": new})
    assert changed.status_code == 302
    assert shared.get("/me")["Location"].startswith("/accounts/login/")  # signed out
    assert phone.get("/me")["Location"] == "/u/ann/"  # still signed in

    score_first_legal(table)  # Cy moves: Ann's turn
    run_worker()
    assert [r.path for r in push.requests] == ["/push/phone"]


def test_a_password_set_by_staff_stops_every_push_of_the_account() -> None:
    """Staff setting a password (the admin, ``changepassword``) signs every browser of the account
    out; none of them is told of its turns any more. Saving the account otherwise stops nothing."""
    user = get_user_model().objects.create_user("ann", password="pw")
    PushSubscription.objects.create(
        endpoint="https://fcm.googleapis.com/fcm/send/1", p256dh="p", auth="a", controller="t", user=user
    )
    user.first_name = "Ann"
    user.save()
    assert PushSubscription.objects.count() == 1
    user.set_password("another password altogether")
    user.save()
    assert not PushSubscription.objects.exists()


def test_a_deactivated_account_is_neither_e_mailed_nor_pushed(push: PushService) -> None:
    """Staff deactivated Ben's account (docs/accounts.md: signed out everywhere, off the site): the
    turns of his games go on, but his address and his devices are told nothing of them."""
    table = own_pace_room(seconds=DAY)
    ben, _ = opted_in(table, 1, push)  # e-mails on, and a device that subscribed before signing in
    account = account_services.profile_for(ben.pk).controller
    services.push_subscribe(
        controller=account, user_id=ben.pk, subscription=Subscriber(f"{push.url}/push/account").subscription
    )
    get_user_model().objects.filter(pk=ben.pk).update(is_active=False)
    score_first_legal(table)  # Ben's turn
    run_worker()
    assert not mail.outbox and not push.requests
    turn = Notice.objects.get(kind=Notice.Kind.TURN, seat=1)
    assert turn.outcome == "nobody to tell: the account is deactivated"


def test_a_notice_to_a_device_that_plays_several_seats_says_whose_turn_it_is(push: PushService) -> None:
    """README: "Add player seats another person on your own device". Ann's tablet plays her seat and
    Grandma's in a game at your own pace against Cy: when it is Grandma's turn the tablet's
    notification names her, since "Your turn" would leave everyone at the tablet guessing."""
    tablet, cy = services.new_controller(), services.new_controller()
    game = services.game_create(host_name="Ann", controller=tablet, pace="own", turn_timer=DAY).game
    table = Table(code=game.code, controllers=[tablet, cy, tablet])
    services.game_join(code=table.code, name="Cy", controller=cy)
    services.game_join(code=table.code, name="Grandma", controller=tablet)
    services.game_start(code=table.code, controller=tablet, expected_version=table.version(), action_id=action_id())
    device = Subscriber(f"{push.url}/push/tablet")
    services.push_subscribe(controller=tablet, user_id=None, subscription=device.subscription)
    score_first_legal(table)  # Ann (seat 0): Cy's turn
    score_first_legal(table)  # Cy (seat 1): Grandma's turn, on Ann's tablet
    Notice.objects.exclude(seat=2).delete()  # only Grandma's turn is looked at here
    run_worker()
    [request] = push.requests
    payload = device.open(request.body)
    assert payload["title"] == f"Grandma's turn in room {table.shown}"
    assert payload["body"].startswith(f"Grandma's turn in room {table.shown}: Cy just scored ")
    grandma = Notice.objects.get(kind=Notice.Kind.REMINDER, seat=2)
    reminder = notices.letter(grandma, Game.objects.get(code=table.code))
    assert reminder.subject.endswith(f" left for Grandma's move in room {table.shown}")
    # Cy plays only his own seat: his notices say "Your turn".
    cys = notices.letter(Notice(kind=Notice.Kind.TURN, seat=1, text="x"), Game.objects.get(code=table.code))
    assert cys.subject == f"Your turn in room {table.shown}"


def test_a_name_in_a_notice_goes_as_typed_in_the_push_and_the_e_mail(push: PushService) -> None:
    """The title, the line and the e-mail are plain text: a right-to-left name goes in as typed,
    without FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE (U+2068, U+2069), which some mail
    programs and notification centres show as boxes (the pages keep them, in a <bdi>)."""
    tablet, sara = services.new_controller(), services.new_controller()
    game = services.game_create(host_name="Ann", controller=tablet, pace="own", turn_timer=DAY).game
    table = Table(code=game.code, controllers=[tablet, sara, tablet])
    services.game_join(code=table.code, name="שרה", controller=sara)
    services.game_join(code=table.code, name="אבי", controller=tablet)
    services.game_start(code=table.code, controller=tablet, expected_version=table.version(), action_id=action_id())
    opted_in(table, 2)
    device = Subscriber(f"{push.url}/push/tablet")
    services.push_subscribe(controller=tablet, user_id=None, subscription=device.subscription)
    score_first_legal(table)  # Ann: Sara's turn
    option = score_first_legal(table)  # Sara: Avi's turn, on Ann's tablet
    Notice.objects.exclude(seat=2).delete()
    run_worker()
    payload = device.open(push.requests[0].body)
    assert payload["title"] == f"אבי's turn in room {table.shown}"
    said = f"אבי's turn in room {table.shown}: שרה just scored {option['points']} in "
    assert payload["body"].startswith(said)
    [email] = mail.outbox
    assert email.subject == payload["title"] and email.body.startswith(said)
    reminder = notices.letter(Notice.objects.get(kind=Notice.Kind.REMINDER, seat=2), table.game)
    assert f" left for אבי's move in room {table.shown}" in reminder.subject
    assert f"it is still אבי's turn in room {table.shown}" in reminder.line


def test_a_reminder_due_while_the_game_is_paused_waits_and_is_sent_in_time_after_the_resume(push: PushService) -> None:
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1)
    score_first_legal(table)  # seat 1 to move: "your turn" now, the reminder when a quarter is left
    run_worker()
    reminder = Notice.objects.get(kind=Notice.Kind.REMINDER, seat=1)
    host = table.controllers[0]
    services.game_pause(code=table.code, controller=host, expected_version=table.version(), action_id=action_id())
    # The pause lasts past the reminder's time: its task runs while the game is paused.
    assert notices.send_notice.call(reminder.pk) == "waiting: the game is paused"
    reminder.refresh_from_db()
    assert reminder.done_at is None
    services.game_resume(code=table.code, controller=host, expected_version=table.version(), action_id=action_id())
    # Queued again, for when a quarter of the time the turn has left is left.
    assert notices.send_notice.call(reminder.pk) == "not due yet"
    reminder.refresh_from_db()
    assert reminder.done_at is None and reminder.due_at > timezone.now() + timedelta(hours=17)


def test_a_reminder_waiting_for_a_paused_game_is_not_queued_again_every_minute_of_the_pause() -> None:
    """A game at your own pace paused for a week: its reminder waits, owed (notices.send_notice). The
    recovery sweep each task worker runs every minute must not take it for a lost task and queue it
    again each time: a task row a minute per paused game, kept, for as long as the pause lasts."""
    table = own_pace_room(seconds=86_400)
    score_first_legal(table)  # seat 1 to move: its "your turn" notice and its reminder are owed
    host = table.controllers[0]
    services.game_pause(code=table.code, controller=host, expected_version=table.version(), action_id=action_id())
    now = timezone.now()
    reminder = Notice.objects.get(kind=Notice.Kind.REMINDER, seat=1)
    Notice.objects.filter(pk=reminder.pk).update(due_at=now - timedelta(hours=1))  # its time came in the pause
    assert notices.send_notice.call(reminder.pk) == "waiting: the game is paused"
    Notice.objects.exclude(pk=reminder.pk).update(done_at=now)  # the "your turn" went out
    before = DBTaskResult.objects.count()
    queued = [notices.recover(now=now + timedelta(minutes=minute)) for minute in range(60)]  # an hour of sweeps
    for _ in range(sum(queued)):
        assert notices.send_notice.call(reminder.pk) == "waiting: the game is paused"  # the worker runs each
    assert DBTaskResult.objects.count() - before <= 1, f"{sum(queued)} tasks queued in one hour of pause"


def pause(table: Table) -> None:
    host = table.controllers[0]
    services.game_pause(code=table.code, controller=host, expected_version=table.version(), action_id=action_id())


def resume(table: Table) -> None:
    host = table.controllers[0]
    services.game_resume(code=table.code, controller=host, expected_version=table.version(), action_id=action_id())


def test_a_your_turn_that_falls_due_in_a_pause_waits_and_is_sent_once_at_the_resume() -> None:
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1)
    score_first_legal(table)  # Ben's turn: his "your turn" is owed...
    pause(table)  # ...and the host pauses before the worker sends it
    run_worker()
    assert not mail.outbox  # he would find the game paused
    turn = Notice.objects.get(kind=Notice.Kind.TURN, seat=1)
    assert turn.done_at is None and turn.outcome == "waiting: the game is paused"
    assert notices.recover(now=timezone.now() + timedelta(hours=1)) == 0  # owed, out of the sweep's sight
    resume(table)
    run_worker()
    run_worker()
    [email] = mail.outbox
    assert email.to == ["p1@example.org"] and email.subject == f"Your turn in room {table.shown}"
    assert email.body.startswith(f"Your turn in room {table.shown}: P0 resumed the game.")
    assert Notice.objects.get(kind=Notice.Kind.TURN, seat=1).outcome == "sent: e-mail"


def test_a_pause_and_resume_leaves_one_task_per_reminder_not_a_chain_more() -> None:
    """The host pauses and resumes once during Ben's turn, before his reminder's time: its task,
    queued with the turn, is still there, and is the only one. When the reminder falls due with a
    tab of Ben's showing the room, it is put off again and again, each time by one task that
    queues the next, not one chain of tasks more for every pause of the turn."""
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1)
    score_first_legal(table)  # Ben (seat 1) to move: his "your turn" now, his reminder at a quarter left
    run_worker()
    reminder = Notice.objects.get(kind=Notice.Kind.REMINDER, seat=1)
    assert queued(reminder) == 1
    pause(table)
    resume(table)
    assert queued(reminder) == 1
    # The reminder falls due; a tab of Ben's shows the room (the office computer).
    Presence.objects.create(
        game=Game.objects.get(code=table.code),
        channel_name="ws.ben-office",
        controller=table.controllers[1],
        seen_at=timezone.now(),
        origin="x",
    )
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() + timedelta(hours=5))
    for _ in range(2):  # two rounds of the worker, each at the time the tasks queued before are due
        DBTaskResult.objects.filter(status="READY").update(run_after=timezone.now() - timedelta(seconds=1))
        run_worker()
        reminder.refresh_from_db()
        assert reminder.outcome == "put off: the player has the room open"
        assert queued(reminder) == 1, f"{queued(reminder)} tasks queued to send one reminder"


def test_a_task_queued_for_a_time_its_notice_no_longer_has_stops_and_the_newest_sends_it_once() -> None:
    """However a notice came to be queued twice (the recovery sweep queuing one whose task was only
    late, the clock set back), only the task queued for its present time acts; and two queued for
    the same time send it once."""
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1)
    score_first_legal(table)
    turn = Notice.objects.get(kind=Notice.Kind.TURN, seat=1)
    stale = (turn.due_at - timedelta(minutes=5)).isoformat()
    assert notices.send_notice.call(turn.pk, stale) == "queued again since"
    due = turn.due_at.isoformat()
    assert notices.send_notice.call(turn.pk, due) == "sent: e-mail"
    assert notices.send_notice.call(turn.pk, due) == "done already"
    assert len(mail.outbox) == 1


def test_the_player_to_move_is_told_when_the_game_they_found_paused_goes_on() -> None:
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1)
    score_first_legal(table)
    run_worker()  # Ben is told it is his turn
    assert len(mail.outbox) == 1
    pause(table)  # he opens the room and finds it paused
    Notice.objects.filter(kind=Notice.Kind.TURN, seat=1).update(done_at=timezone.now() - timedelta(days=1))
    resume(table)  # a day later: his time runs again
    run_worker()
    assert len(mail.outbox) == 2
    body = mail.outbox[1].body
    assert body.startswith(f"Your turn in room {table.shown}: P0 resumed the game.")
    assert "Time left to move: 23 hours" in body or "Time left to move: 1 day" in body
    # Paused and resumed again within the hour: not told again.
    pause(table)
    resume(table)
    run_worker()
    assert len(mail.outbox) == 2


def test_the_resume_of_a_game_is_not_told_to_a_player_with_the_room_open_nor_to_the_one_who_resumed_it() -> None:
    table = own_pace_room(seconds=DAY)
    opted_in(table, 0)
    opted_in(table, 1)
    score_first_legal(table)
    pause(table)  # Ben's "your turn" waits for the resume
    game = Game.objects.get(code=table.code)
    Presence.objects.create(
        game=game, channel_name="ws.ben", controller=table.controllers[1], seen_at=timezone.now(), origin="x"
    )
    resume(table)
    run_worker()
    assert not [m for m in mail.outbox if m.to == ["p1@example.org"]]
    turn = Notice.objects.get(kind=Notice.Kind.TURN, seat=1)
    assert turn.outcome == "dropped: the player has the room open"
    # Ben scores: the host's "your turn" is owed, the host pauses before it is sent and resumes
    # the game in their own turn. They know.
    score_first_legal(table)
    pause(table)
    resume(table)
    run_worker()
    assert Notice.objects.get(kind=Notice.Kind.TURN, seat=0).outcome == "dropped: the player resumed the game"
    assert not mail.outbox


def test_the_notices_a_pause_held_are_dropped_when_the_game_ends_in_the_pause_and_pruned_like_any() -> None:
    """Ben's "your turn" and reminder wait for the resume (``notices.PAUSED``); the game ends before
    it (everyone leaves the paused game). Nothing would ever send them, queue them again or prune
    them: they are dropped with the end, and go with the game's other notices."""
    table = own_pace_room(seconds=DAY)
    score_first_legal(table)  # seat 1 (P1) to move
    pause(table)
    for notice in Notice.objects.filter(done_at=None):
        assert notices.send_notice.call(notice.pk) == "waiting: the game is paused"
    assert Notice.objects.filter(done_at=None, due_at=notices.PAUSED, seat=1).count() == 2
    everyone_leaves(table)
    assert Game.objects.get(code=table.code).status in Game.OVER
    assert not Notice.objects.filter(done_at=None).exists()
    assert set(Notice.objects.filter(seat=1).values_list("outcome", flat=True)) == {"dropped: the game is over"}
    assert notices.recover(now=timezone.now() + timedelta(days=1)) == 0
    later = timezone.now() + notices.KEPT + timedelta(days=1)
    notices.prune(now=later)
    assert not Notice.objects.filter(game__code=table.code).exists()


def test_a_notice_still_held_by_a_pause_of_a_game_over_long_ago_is_pruned() -> None:
    """A notice a pause held in a game that ended without dropping it (stored so by a version that
    did not) is never sent: the pruning takes it once the game has been over for ``KEPT``."""
    table = own_pace_room(seconds=DAY)
    score_first_legal(table)
    pause(table)
    for notice in Notice.objects.filter(done_at=None):
        notices.send_notice.call(notice.pk)
    month_ago = timezone.now() - timedelta(days=30)
    Game.objects.filter(code=table.code).update(status=Game.Status.ABANDONED, finished_at=month_ago)
    held = Notice.objects.filter(done_at=None, due_at=notices.PAUSED)
    assert held.filter(seat=1).count() == 2
    notices.prune()
    assert not held.exists()
    # A game over lately keeps them for now, as it keeps its notices done lately.
    other = own_pace_room(seconds=DAY)
    score_first_legal(other)
    pause(other)
    for notice in Notice.objects.filter(done_at=None):
        notices.send_notice.call(notice.pk)
    Game.objects.filter(code=other.code).update(status=Game.Status.ABANDONED, finished_at=timezone.now())
    kept = Notice.objects.filter(game__code=other.code).count()
    notices.prune()
    assert Notice.objects.filter(game__code=other.code).count() == kept


def test_a_timeouts_score_is_told_with_the_yahtzee_bonus_it_earned(push: PushService) -> None:
    """The server's score for a timed-out turn may earn a Yahtzee bonus, as the live table says
    ("… plus a 100 Yahtzee bonus"): the notice of the next turn says it too."""
    from games.services import waiting
    from games.services.deadline import TIMEOUT_ACTION
    from games.store.models import Move

    table = own_pace_room(seconds=DAY)
    game = table.game
    room = game.room
    ana = room.seats[0]
    payload = {"box": "sixes", "column": 0, "points": 30, "bonus": 100}
    event = waiting.what_happened(
        game, room, kind=Move.Kind.SCORE, player_id=ana.player, payload=payload, action_id=f"{TIMEOUT_ACTION}7-ab"
    )
    assert event == {"what": "timed_out", "name": ana.name, "points": 30, "box": "sixes", "bonus": 100}
    user, _ = opted_in(table, 1)
    notice = Notice(game=game, player_id=user.pk, kind=Notice.Kind.TURN, turn=1, seat=1, text="", event=event)
    a = ana.name
    assert notices.letter(notice, game, "en").line == (
        f"Your turn in room {table.shown}: {a}'s time ran out: the server scored 30 in Sixes and a Yahtzee bonus "
        "of 100 for them."
    )
    # Without a bonus, the line without one.
    notice.event = {**event, "bonus": 0}
    assert notices.letter(notice, game, "en").line.endswith("the server scored 30 in Sixes for them.")


@pytest.mark.parametrize(
    ("what", "bonus", "said"),
    [
        ("scored", 0, "{a} just scored 50 in Full House in column ×2."),
        ("scored", 200, "{a} just scored 50 in Full House in column ×2 and a Yahtzee bonus of 200."),
        ("timed_out", 0, "{a}'s time ran out: the server scored 50 in Full House in column ×2 for them."),
        (
            "timed_out",
            200,
            "{a}'s time ran out: the server scored 50 in Full House in column ×2 and a Yahtzee bonus of 200 for them.",
        ),
    ],
)
def test_a_notice_of_a_score_in_a_column_is_one_sentence(what: str, bonus: int, said: str) -> None:
    """On a card of three columns the notice names the column inside its sentence, one message for
    each case (scored or timed out, with a bonus or without), so a language puts the column and the
    bonus where its own order says them (not "Full House (×2)", a note put after the box's name)."""
    table = own_pace_room(seconds=DAY, ruleset="triple")
    game = table.game
    ana = game.room.seats[0]
    event = {"what": what, "name": ana.name, "points": 50, "box": "full_house", "column": 1, "bonus": bonus}
    user, _ = opted_in(table, 1)
    notice = Notice(game=game, player_id=user.pk, kind=Notice.Kind.TURN, turn=1, seat=1, text="", event=event)
    line = notices.letter(notice, game, "en").line
    assert line == f"Your turn in room {table.shown}: " + said.format(a=ana.name)


def test_every_kind_of_notice_is_worded_by_one_letter_with_its_stop_button_in_the_readers_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A turn, its reminder and a seat the computer took over are each one letter of the same shape:
    the subject and line in the reader's language, and the button that stops a device's pushes too."""
    table = own_pace_room(seconds=DAY)
    built: list[str] = []
    make = notices._letter

    def spy(*args: Any, **kwargs: Any) -> notices.Letter:
        made = make(*args, **kwargs)
        built.append(made.subject)
        return made

    monkeypatch.setattr(notices, "_letter", spy)
    with translation.override("de"):
        stop = translation.gettext("Stop these")
    for kind in (Notice.Kind.TURN, Notice.Kind.REMINDER, Notice.Kind.AWAY):
        made = notices.letter(Notice(kind=kind, seat=0, text="x"), table.game, "de")
        assert built[-1:] == [made.subject] and (made.language, made.stop_label) == ("de", stop), kind
    assert len(built) == 3

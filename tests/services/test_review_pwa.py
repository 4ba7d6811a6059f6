"""Review (pwa): what the "your turn" notices say and when they go (games/services/notices.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from games import services
from games.services import notices
from games.store.models import Game, Notice
from tests.factories import Table, action_id, own_pace_room, score_first_legal
from tests.push_stub import PushService, Subscriber
from tests.services.test_notices import opted_in, run_worker
from yahtzee.prepare import new_vapid_private_key

pytestmark = pytest.mark.django_db
DAY = 86_400


@pytest.fixture
def push(settings: Any) -> Iterator[PushService]:
    service = PushService().start()
    settings.PUSH_HOSTS = ["127.0.0.1"]
    settings.PUSH_ALLOW_HTTP = True
    settings.VAPID_PRIVATE_KEY = new_vapid_private_key()
    settings.SITE_URL = "https://yahtzee.example.org"
    try:
        yield service
    finally:
        service.stop()


def test_a_notice_to_a_device_that_plays_several_seats_says_whose_turn_it_is(push: PushService) -> None:
    """README: "Add player seats another person on your own device". Ann's tablet plays her seat and
    Grandma's in a game at your own pace against Cy. When Cy's move makes it Grandma's turn, the
    tablet's notification (and the account's e-mail) said "Your turn in room …: Cy just scored …",
    exactly as for Ann's own turns: nobody at the tablet can tell that Grandma is the one to play."""
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
    assert len(push.requests) == 1
    payload = device.open(push.requests[0].body)
    assert "Grandma" in payload["title"] + payload["body"], payload


def test_a_move_given_more_time_after_its_reminder_went_is_reminded_again_before_the_new_deadline() -> None:
    """README: the player to move is "reminded when a quarter of their time is left". Ben was
    reminded with 5 hours left of a day's move; staff then gave him 3 days more (clock_extend). His
    one reminder ("5 hours left") was spent, so the new deadline, 3 days on, came with no warning
    at all and the server played his move. (A reminder not yet sent when the time is extended waits
    for the new quarter: test_notices.py covers that.)"""
    table = own_pace_room_with_ben()
    reminder = Notice.objects.get(kind=Notice.Kind.REMINDER, seat=1)
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() + timedelta(hours=5))
    mail.outbox.clear()
    assert notices.send_notice.call(reminder.pk) == "sent: e-mail"  # its due time (the task's run_after) came
    assert "5 hours left" in mail.outbox[0].subject

    services.clock_extend(code=table.code, seconds=3 * DAY, staff="clerk")
    deadline = Game.objects.get(code=table.code).turn_deadline
    assert deadline is not None
    owed = Notice.objects.filter(kind=Notice.Kind.REMINDER, seat=1, turn=reminder.turn, done_at=None)
    assert owed.exists(), "no reminder is owed before the new deadline"
    assert all(n.due_at < deadline for n in owed)


def own_pace_room_with_ben() -> Table:
    """A started game at your own pace (a day a move) where P0's move made it Ben's (seat 1) turn;
    Ben is signed in and gets the turn e-mails. His "your turn" is already dealt with."""
    table = own_pace_room(seconds=DAY)
    opted_in(table, 1)
    score_first_legal(table)
    Notice.objects.filter(kind=Notice.Kind.TURN).update(done_at=timezone.now(), outcome="test: not looked at")
    return table

"""games/services/notices.py: the notice to a player whose seat the computer takes over in a game at
your own pace, their time to move having run out twice in a row."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from games import services
from games.services import notices
from games.services.clock import clock_expire
from games.store.models import Game, Notice, Player
from tests.factories import Table, action_id, online, own_pace_room, score_first_legal, timed_room
from tests.push_stub import PushService
from tests.services.test_notices import DAY, opted_in, push, run_worker

__all__ = ["push"]  # the fixture, shared with the turn notices' tests

pytestmark = pytest.mark.django_db


def run_out(table: Table) -> None:
    """The turn's deadline passed: the server plays it for the player to move."""
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert clock_expire(code=table.code, version=table.version())


def taken_over(table: Table, push: PushService | None = None) -> None:
    """Seat 0's time runs out twice in a row (seat 1 plays in between): a computer plays seat 0. The
    turn notices before the second timeout sent, and what they sent forgotten."""
    run_out(table)
    score_first_legal(table)
    run_worker()
    mail.outbox.clear()
    if push is not None:
        push.requests.clear()
    run_out(table)
    seat = table.game.room.seats[0]
    assert seat.bot and seat.away and seat.away_controller == table.controllers[0]


def away_notices() -> list[Notice]:
    return list(Notice.objects.filter(kind=Notice.Kind.AWAY).order_by("seat"))


def test_the_computer_taking_over_a_seat_at_your_own_pace_tells_its_player_once_by_e_mail_and_push(
    push: PushService,
) -> None:
    table = own_pace_room(seconds=DAY)
    _, subscriber = opted_in(table, 0, push)
    taken_over(table, push)
    assert not mail.outbox and not push.requests  # owed by the move, sent by the worker

    run_worker()
    run_worker()  # nothing more: sent once

    [notice] = away_notices()
    assert notice.seat == 0 and notice.outcome == "sent: e-mail, 1 push" and notice.attempts == 1
    [email] = mail.outbox
    assert email.to == ["p0@example.org"]
    assert email.subject == f"The computer plays for you in room {table.shown}"
    assert email.body.startswith(
        f"Your time to move ran out twice in a row in room {table.shown}, so the computer plays for you until"
        " you come back. Open the room to take your seat back."
    )
    assert f"https://yahtzee.example.org/r/{table.code}/" in email.body
    assert "Time left to move" not in email.body  # the computer moves now, not them
    stop = email.extra_headers["List-Unsubscribe"].strip("<>")
    assert stop.startswith("https://yahtzee.example.org/notices/stop/") and stop in email.body
    [request] = push.requests
    assert subscriber is not None and request.path == "/push/0"
    payload = subscriber.open(request.body)
    assert payload["title"] == email.subject
    assert payload["body"].startswith(f"Your time to move ran out twice in a row in room {table.shown}")
    assert payload["url"] == f"https://yahtzee.example.org/r/{table.code}/"
    assert payload["stop"].startswith("https://yahtzee.example.org/notices/stop/")
    assert payload["stop_label"] == "Stop these"
    # The task again (queued twice, a second worker), and the recovery sweep of a worker that
    # starts a day later: nothing more.
    assert notices.send_notice.call(notice.pk) == "done already"
    notices.recover(now=timezone.now() + timedelta(days=1))
    run_worker()
    assert len(mail.outbox) == 1 and len(push.requests) == 1
    assert Notice.objects.get(pk=notice.pk).attempts == 1


def test_the_takeover_is_told_in_the_readers_language() -> None:
    table = own_pace_room(seconds=DAY)
    user, _ = opted_in(table, 0)
    services.email_notices_set(user_id=user.pk, on=True, controller=table.controllers[0], language="de")
    taken_over(table)
    worded: list[tuple[str, str]] = []
    letter = notices.letter

    def spy(notice: Notice, game: Game, language: str = "") -> notices.Letter:
        text = letter(notice, game, language)
        worded.append((notice.kind, text.language))
        return text

    notices.letter = spy  # type: ignore[assignment]
    try:
        run_worker()
    finally:
        notices.letter = letter  # type: ignore[assignment]
    assert worded == [(Notice.Kind.AWAY, "de")] and len(mail.outbox) == 1


def test_a_player_with_no_notices_on_is_sent_nothing_when_the_computer_takes_their_seat() -> None:
    table = own_pace_room(seconds=DAY)
    taken_over(table)
    run_worker()
    assert not mail.outbox
    assert [n.outcome for n in away_notices()] == ["nobody to tell: no channel chosen"]


def test_a_seat_taken_over_in_a_live_game_tells_nobody(push: PushService) -> None:
    table = timed_room(seconds=30)
    opted_in(table, 0, push)
    taken_over(table, push)
    run_worker()
    assert not away_notices() and not mail.outbox and not push.requests


def test_a_player_back_before_the_notice_goes_is_not_told(push: PushService) -> None:
    table = own_pace_room(seconds=DAY)
    opted_in(table, 0, push)
    taken_over(table, push)
    assert services.seat_reclaim(code=table.code, controller=table.controllers[0]) == [0]
    run_worker()
    assert not mail.outbox and not push.requests
    [notice] = away_notices()
    assert notice.done_at is not None and notice.outcome == "dropped: the player is back"


def test_a_player_with_the_room_open_is_told_by_the_page(push: PushService) -> None:
    """The page shows the seat a computer plays for them, and its "I'm back"."""
    table = own_pace_room(seconds=DAY)
    opted_in(table, 0, push)
    online(table.code, table.controllers[0])
    taken_over(table, push)
    run_worker()
    assert not mail.outbox and not push.requests
    assert away_notices()[0].outcome == "dropped: the player has the room open"


def test_a_game_over_before_the_notice_goes_drops_it() -> None:
    table = own_pace_room(seconds=DAY)
    opted_in(table, 0)
    taken_over(table)
    Game.objects.filter(code=table.code).update(status=Game.Status.ABANDONED)
    run_worker()
    assert not mail.outbox
    assert away_notices()[0].outcome == "dropped: the game is over"


def test_a_device_that_plays_several_seats_is_told_once_which_seat_the_computer_took(push: PushService) -> None:
    """Two players on one browser: the takeover of one of them is told once on it, by the seat's
    name, and says how that player takes the seat back (the room's "I'm back" button that names
    it, as the page words it: coming back to a shared device takes no seat back by itself)."""
    device, other = services.new_controller(), services.new_controller()
    code = services.game_create(host_name="Ann", controller=device, pace=Game.Pace.OWN, turn_timer=DAY).game.code
    services.game_join(code=code, name="Cy", controller=other)
    services.game_join(code=code, name="Bea", controller=device, action_id=action_id())
    table = Table(code=code, controllers=[device, other, device])
    services.game_start(code=code, controller=device, expected_version=table.version(), action_id=action_id())
    user, subscriber = opted_in(table, 0, push)
    Player.objects.filter(game__code=code, seat=2).update(user=user)  # the account plays both seats
    run_out(table)  # Ann's first
    score_first_legal(table)  # Cy
    score_first_legal(table)  # Bea
    run_worker()
    mail.outbox.clear()
    push.requests.clear()
    run_out(table)  # Ann's second in a row: the computer plays for her
    assert table.game.room.seats[0].away_controller == device

    run_worker()
    run_worker()

    [notice] = away_notices()
    assert notice.seat == 0
    [email] = mail.outbox
    assert email.subject == f"The computer plays for Ann in room {table.shown}"
    assert email.body.startswith(
        f"Ann's time to move ran out twice in a row in room {table.shown}, so the computer plays for them until"
        " they come back. To take the seat back, open the room and choose “I'm back: take Ann's seat”."
    )
    [request] = push.requests
    assert subscriber is not None
    assert subscriber.open(request.body)["title"] == email.subject

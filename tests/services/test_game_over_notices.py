"""games/services/notices.py: the "game over" notice of a game at your own pace, and the plain text of every notice."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.utils import timezone

from games import services
from games.services import notices
from games.services.clock import clock_expire
from games.store.models import Game, Notice, NoticeSettings, PushSubscription
from tests.factories import Table, action_id, online, own_pace_room, ranked_behind_for_each_reason, score_first_legal
from tests.push_stub import PushService, Subscriber
from tests.services.test_notices import DAY, opted_in, push, run_worker

__all__ = ["push"]  # the fixture, shared with the turn notices' tests

pytestmark = pytest.mark.django_db

ISOLATES = ("\u2068", "\u2069")


def to_the_last_move(table: Table) -> None:
    """Every turn but the game's last played (first legal box each); the notices they owed sent or dropped,
    and what they sent forgotten."""
    game = table.game
    turns = len(game.room.rules.cards) * game.room.rules.ruleset.turns_per_player
    for _ in range(turns - 1):
        score_first_legal(table)
    run_worker()
    mail.outbox.clear()


def named_room(*names: str) -> Table:
    """A started room at your own pace (a day a move) whose seats are ``names``, a browser each."""
    controllers = [services.new_controller() for _ in names]
    host = services.game_create(host_name=names[0], controller=controllers[0], pace=Game.Pace.OWN, turn_timer=DAY)
    table = Table(code=host.game.code, controllers=controllers)
    for name, controller in zip(names[1:], controllers[1:], strict=True):
        services.game_join(code=table.code, name=name, controller=controller)
    services.game_start(
        code=table.code, controller=controllers[0], expected_version=table.version(), action_id=action_id()
    )
    return table


def over_notices() -> list[Notice]:
    return list(Notice.objects.filter(kind=Notice.Kind.OVER).order_by("seat"))


def test_the_end_of_a_game_at_your_own_pace_tells_each_other_player_the_result_once(push: PushService) -> None:
    table = own_pace_room(seconds=DAY)
    for seat in (0, 1):
        opted_in(table, seat, push)
    to_the_last_move(table)
    push.requests.clear()
    assert table.current() == table.controllers[1]
    score_first_legal(table)  # the last move, seat 1's own: the game is over
    game = table.game
    assert game.status == Game.Status.FINISHED
    ranks = game.room.ranks()
    totals = [game.room.rules.totals(seat).grand_total for seat in (0, 1)]

    run_worker()
    run_worker()  # nothing more: each is sent once

    # Seat 0 is told (one e-mail, one push); seat 1 ended the game with their own move: as their turn
    # notices, the end their own move made is not told to them.
    assert [n.seat for n in over_notices()] == [0]
    assert len(mail.outbox) == 1 and len(push.requests) == 1
    email = mail.outbox[0]
    assert email.to == ["p0@example.org"]
    assert email.subject == f"Game over in room {table.shown}"
    for seat in (0, 1):
        assert f"{ranks[seat]}. P{seat}: {totals[seat]}" in email.body
    assert f"https://yahtzee.example.org/r/{table.code}/" in email.body
    assert f"https://yahtzee.example.org/r/{table.code}/replay" in email.body
    assert "Time left to move" not in email.body
    stop = email.extra_headers["List-Unsubscribe"].strip("<>")
    assert stop.startswith("https://yahtzee.example.org/notices/stop/") and stop in email.body
    subscriber = Subscriber(f"{push.url}/push/0")
    subscriber_of_seat_0 = PushSubscription.objects.get(endpoint=subscriber.endpoint)
    assert push.requests[0].path == "/push/0"
    notice = over_notices()[0]
    assert notice.outcome == "sent: e-mail, 1 push" and notice.attempts == 1
    assert subscriber_of_seat_0.language == ""
    # The task run again (queued twice, a second worker): nothing more.
    assert notices.send_notice.call(notice.pk) == "done already"
    assert len(mail.outbox) == 1 and len(push.requests) == 1


@pytest.mark.parametrize(
    ("address", "spelt"),
    [
        ("p0@bücher.example", "p0@xn--bcher-kva.example"),  # an internationalized domain: mailed, spelt in ASCII
        # localhost, in fullwidth letters: the letter would go to the mail server itself
        ("p0@mail.\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54", None),
    ],
)
def test_the_end_is_e_mailed_to_an_address_as_its_domain_is_spelt_for_the_letter(
    address: str, spelt: str | None
) -> None:
    """An address confirmed at a domain beyond ASCII gets the game's end, addressed in its IDNA
    spelling; one whose spelling is the machine itself (stored before the form refused it) gets none."""
    table = own_pace_room(seconds=DAY)
    user, _ = opted_in(table, 0)
    NoticeSettings.objects.filter(user=user).update(address=address)
    to_the_last_move(table)
    score_first_legal(table)
    run_worker()

    [notice] = over_notices()
    if spelt is None:
        assert mail.outbox == [] and notice.outcome == "nobody to tell: the address cannot receive mail"
        return
    [email] = mail.outbox
    assert email.to == [address] and email.message()["To"] == spelt
    assert notice.outcome == "sent: e-mail"


def test_the_result_pushed_says_the_ranking_and_scores_in_plain_text(push: PushService) -> None:
    table = named_room("אבי", "Bo")
    subscriber = Subscriber(f"{push.url}/push/0")
    services.push_subscribe(controller=table.controllers[0], user_id=None, subscription=subscriber.subscription)
    to_the_last_move(table)
    push.requests.clear()
    score_first_legal(table)
    run_worker()

    payload = subscriber.open(push.requests[0].body)
    assert payload["title"] == f"Game over in room {table.shown}"
    assert payload["body"].startswith(f"The game in room {table.shown} is over: ")
    assert "אבי" in payload["body"] and "Bo" in payload["body"]
    assert payload["url"] == f"https://yahtzee.example.org/r/{table.code}/"
    assert not any(mark in payload["title"] + payload["body"] for mark in ISOLATES)


def test_the_result_told_marks_the_seats_ranked_behind_for_leaving_being_taken_out_or_away() -> None:
    """As the game-over list and the shared result do: a reader would take Bo's place after Ana's
    lower total for a mistake."""
    table = named_room("Ana", "Bo", "Cy", "Di")
    to_the_last_move(table)
    score_first_legal(table)
    game = table.game
    game.room = ranked_behind_for_each_reason(game.room)
    line = notices.the_end(game, "https://yahtzee.example.org/r/x/", "en").line
    ranks = game.room.ranks()
    points = [game.room.rules.totals(seat).grand_total for seat in range(4)]
    assert f"{ranks[0]}. Ana: {points[0]}" in line
    assert f"{ranks[1]}. Bo (taken out): {points[1]}" in line
    assert f"{ranks[2]}. Cy (left): {points[2]}" in line
    assert f"{ranks[3]}. Di (away): {points[3]}" in line


def test_the_game_over_notice_is_in_the_readers_language(push: PushService) -> None:
    table = own_pace_room(seconds=DAY)
    user, _ = opted_in(table, 0)
    services.email_notices_set(user_id=user.pk, on=True, controller=table.controllers[0], language="de")
    to_the_last_move(table)
    score_first_legal(table)
    worded: list[str] = []
    letter = notices.letter

    def spy(notice: Notice, game: Game, language: str = "") -> notices.Letter:
        text = letter(notice, game, language)
        worded.append(text.language)
        return text

    notices.letter = spy  # type: ignore[assignment]
    try:
        run_worker()
    finally:
        notices.letter = letter  # type: ignore[assignment]
    assert worded == ["de"] and len(mail.outbox) == 1


def test_a_player_who_stopped_the_e_mails_gets_the_push_only(push: PushService) -> None:
    table = own_pace_room(seconds=DAY)
    user, subscriber = opted_in(table, 0, push)
    to_the_last_move(table)
    push.requests.clear()
    services.notices_stop(token=notices.stop_token("email", user.pk))
    score_first_legal(table)
    run_worker()
    assert not mail.outbox and len(push.requests) == 1
    assert over_notices()[0].outcome == "sent: 1 push"


def test_a_game_ended_by_the_clock_tells_the_player_whose_time_ran_out_too(push: PushService) -> None:
    """The server's move for a player whose time ran out is not their own: they are told, as of a turn."""
    table = own_pace_room(seconds=DAY)
    for seat in (0, 1):
        opted_in(table, seat)
    to_the_last_move(table)
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert clock_expire(code=table.code, version=table.version())
    assert table.game.status == Game.Status.FINISHED
    run_worker()
    assert [n.seat for n in over_notices()] == [0, 1]
    assert sorted(m.to[0] for m in mail.outbox) == ["p0@example.org", "p1@example.org"]


def test_a_player_who_has_the_room_open_at_the_end_is_told_by_the_page(push: PushService) -> None:
    table = own_pace_room(seconds=DAY)
    opted_in(table, 0, push)
    to_the_last_move(table)
    push.requests.clear()
    online(table.code, table.controllers[0])
    score_first_legal(table)
    run_worker()
    assert not mail.outbox and not push.requests
    assert over_notices()[0].outcome.startswith("dropped: the player has the room open")


def test_a_live_game_tells_nobody_of_its_end() -> None:
    from tests.factories import open_room

    table = open_room()
    to_the_last_move(table)
    score_first_legal(table)
    assert table.game.status == Game.Status.FINISHED
    assert not over_notices()


def test_the_end_is_owed_once_to_a_device_that_plays_several_seats(push: PushService) -> None:
    """Two players on one browser (two seats of one controller) are told of the end once, on it."""
    first, second = services.new_controller(), services.new_controller()
    host = services.game_create(host_name="Ann", controller=first, pace=Game.Pace.OWN, turn_timer=DAY)
    code = host.game.code
    services.game_join(code=code, name="Bea", controller=first, action_id=action_id())
    services.game_join(code=code, name="Cy", controller=second)
    table = Table(code=code, controllers=[first, first, second])
    services.game_start(code=code, controller=first, expected_version=table.version(), action_id=action_id())
    subscriber = Subscriber(f"{push.url}/push/ann")
    services.push_subscribe(controller=first, user_id=None, subscription=subscriber.subscription)
    to_the_last_move(table)
    push.requests.clear()
    assert table.current() == second
    score_first_legal(table)  # Cy's own move ends it: Cy is not told
    run_worker()
    assert [n.seat for n in over_notices()] == [0]
    assert len(push.requests) == 1


def test_the_turn_notices_plain_text_carries_no_isolate_marks(push: PushService) -> None:
    """An e-mail's subject and body and a push's title and body are plain text, where FSI/PDI show
    as boxes in some mail programs and notification centres: the names go in as typed."""
    table = named_room("אבי", "Bo")
    _, subscriber = opted_in(table, 1, push)
    score_first_legal(table)
    run_worker()
    email = mail.outbox[0]
    assert email.body.startswith(f"Your turn in room {table.shown}: אבי just scored ")
    assert subscriber is not None
    payload = subscriber.open(push.requests[0].body)
    assert payload["body"].startswith(f"Your turn in room {table.shown}: אבי just scored ")
    for text in (email.subject, email.body, payload["title"], payload["body"]):
        assert not any(mark in text for mark in ISOLATES)


def test_the_end_owed_to_an_account_deleted_since_goes_to_nobody(push: PushService) -> None:
    """An account deleted between the last move and the sending: its seat is no browser's any more
    (its token cleared, "Former player"), and its "game over" goes to nobody, not to whichever rows
    an empty token would match (another account's settings saved without one), nor fails."""
    table = own_pace_room(seconds=DAY)
    user, _ = opted_in(table, 0, push)
    stranger = get_user_model().objects.create_user("zed", email="zed@example.org", password="pw")
    NoticeSettings.objects.create(user=stranger, email=True, address=stranger.email)  # no token of its own
    to_the_last_move(table)
    push.requests.clear()
    score_first_legal(table)  # seat 1's own move ends the game: seat 0 is owed the end
    assert [n.seat for n in over_notices()] == [0]
    user.delete()
    assert table.game.room.seats[0].persons_controller == ""

    run_worker()

    assert not mail.outbox and not push.requests
    notice = over_notices()[0]
    assert notice.done_at is not None and notice.outcome.startswith("dropped:"), notice.outcome


def test_an_empty_seat_token_is_nobodys_rows() -> None:
    """The rows a seat's player is told on, found by its token: a seat with none (a deleted
    account's) finds no row, not every row saved without a token."""
    stranger = get_user_model().objects.create_user("zed", email="zed@example.org", password="pw")
    NoticeSettings.objects.create(user=stranger, email=True, address=stranger.email)
    assert not NoticeSettings.objects.filter(notices.of_seat("", None)).exists()
    assert NoticeSettings.objects.filter(notices.of_seat("", stranger.pk)).exists()


def test_a_name_typed_with_line_breaks_bidi_controls_and_html_goes_into_the_notices_as_plain_text(
    push: PushService,
) -> None:
    """A seat's name typed to forge a header in the e-mail (a line break and ``Bcc:``), to turn the
    text around (a right-to-left override) or to be read as HTML: the name is stored without the
    breaks and controls, and the letter, whose subject names the seat (its device plays two), and
    the push carry it as that plain text, with no header of its own."""
    typed = "A\r\nBcc: e@evil.io\u202e<b>x</b>\u200b"
    host, device = services.new_controller(), services.new_controller()
    code = services.game_create(host_name="Cy", controller=host, pace=Game.Pace.OWN, turn_timer=DAY).game.code
    services.game_join(code=code, name=typed, controller=device)
    services.game_join(code=code, name="Ben", controller=device)
    table = Table(code=code, controllers=[host, device, device])
    services.game_start(code=code, controller=host, expected_version=table.version(), action_id=action_id())
    name = table.game.room.seats[1].name
    assert name == "A Bcc: e@evil.io<b>x</b>"
    _, subscriber = opted_in(table, 1, push)
    score_first_legal(table)  # Cy's move: the turn is the device's first seat's
    run_worker()
    [email] = mail.outbox
    assert email.subject == f"{name}'s turn in room {table.shown}"
    message = email.message()
    assert message["Bcc"] is None and email.recipients() == ["p1@example.org"]
    assert "\r" not in str(message["Subject"]) and "\n" not in str(message["Subject"])
    assert subscriber is not None
    payload = subscriber.open(push.requests[0].body)
    assert payload["title"] == email.subject
    for text in (email.subject, email.body, payload["title"], payload["body"]):
        assert name in text and "\u202e" not in text and "\u200b" not in text


def finished_for_a_rematch(push: PushService) -> Table:
    """Ann and Ben's game at your own pace, played to its end, each with a device told of their turns;
    what it sent forgotten."""
    table = named_room("Ann", "Ben")
    for seat in (0, 1):
        opted_in(table, seat, push)
    to_the_last_move(table)
    score_first_legal(table)
    run_worker()
    mail.outbox.clear()
    push.requests.clear()
    return table


def started_rematch(table: Table, asker: int) -> Table:
    """The rematch ``asker``'s seat asked for, started by its host: the seats as the new room has them."""
    game = services.game_rematch(code=table.code, controller=table.controllers[asker])
    rematch = Table(code=game.code, controllers=[seat.controller for seat in game.room.seats])
    services.game_start(
        code=rematch.code, controller=rematch.controllers[0], expected_version=rematch.version(), action_id=action_id()
    )
    return rematch


def test_a_rematch_tells_a_player_of_their_turns_only_once_they_follow_it(push: PushService) -> None:
    """Ann asks for the rematch of a game at your own pace: Ben is seated in it, but never said he
    would play it. Its turns are not mailed nor pushed to him until he follows it (here: the old
    room's Rematch button, which takes him to it); then the turn he found is his reminder's as ever,
    and the later ones are told. Ann asked for it: she is told at once."""
    table = finished_for_a_rematch(push)
    ann, ben = table.controllers
    rematch = started_rematch(table, asker=0)
    assert rematch.controllers == [ann, ben]
    score_first_legal(rematch)  # Ann's move: Ben's turn
    run_worker()
    assert not push.requests and not mail.outbox, "Ben was told of a game he never followed"
    turn = Notice.objects.get(game__code=rematch.code, kind=Notice.Kind.TURN, seat=1)
    assert turn.outcome == "dropped: the player has not followed the rematch"

    services.game_rematch(code=table.code, controller=ben)  # he follows it: his page shows the turn
    # The turn's reminder, due when a quarter of his time is left, goes as ever.
    Game.objects.filter(code=rematch.code).update(turn_deadline=timezone.now() + timedelta(hours=5))
    reminder = Notice.objects.get(game__code=rematch.code, kind=Notice.Kind.REMINDER, seat=1)
    assert notices.send_notice.call(reminder.pk) == "sent: 1 push"
    assert [r.path for r in push.requests] == ["/push/1"]
    push.requests.clear()
    score_first_legal(rematch)  # Ben's move: Ann's turn, told at once
    run_worker()
    assert [r.path for r in push.requests] == ["/push/0"]
    push.requests.clear()
    score_first_legal(rematch)  # Ann's: Ben's turn, told now that he follows the game
    run_worker()
    assert [r.path for r in push.requests] == ["/push/1"]


def test_opening_the_rematchs_room_is_following_it(push: PushService) -> None:
    """Ben finds the rematch in Your games (or has its link) and opens its room: he follows it."""
    table = finished_for_a_rematch(push)
    rematch = started_rematch(table, asker=0)
    ben = Client()
    ben.get("/")
    session = ben.session
    session["controller"] = table.controllers[1]
    session.save()
    ben.get("/games")  # the list of his games is no room of it
    score_first_legal(rematch)
    run_worker()
    assert not push.requests
    assert ben.get(f"/r/{rematch.code}/").status_code == 200
    score_first_legal(rematch)
    score_first_legal(rematch)  # Ann's move: Ben's turn again, told
    run_worker()
    assert [r.path for r in push.requests] == ["/push/1"]


def test_the_end_of_a_rematch_a_player_never_followed_is_not_told_to_them(push: PushService) -> None:
    """Ben never opened the rematch Ann asked for (the clock played his seat; here his token's moves
    stand for those, and the clock plays the last): its end is told to Ann, and not to him."""
    table = finished_for_a_rematch(push)
    rematch = started_rematch(table, asker=0)
    to_the_last_move(rematch)
    push.requests.clear()
    assert rematch.current() == table.controllers[1]
    Game.objects.filter(code=rematch.code).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert clock_expire(code=rematch.code, version=rematch.version())
    assert rematch.game.status == Game.Status.FINISHED
    run_worker()
    assert [r.path for r in push.requests] == ["/push/0"]
    over = Notice.objects.get(game__code=rematch.code, kind=Notice.Kind.OVER, seat=1)
    assert over.outcome == "dropped: the player has not followed the rematch"

"""A room's pace, whose move a game waits for, and the notices a move owes (in its own transaction)."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from unittest import mock

import pytest
from django.db import transaction
from django.utils import timezone, translation

from games import services
from games.domain.rules import RuleViolation
from games.services.replay import replay_game, replay_steps
from games.store.models import Game, Move, Notice, Player
from games.store.selectors import game_state, my_games, waiting_count
from tests.factories import Table, action_id, open_room, own_pace_room, play_to_end, play_turn, score_first_legal

pytestmark = pytest.mark.django_db
DAY = 86_400


# --- the pace a room is created with -------------------------------------------------------


def test_a_room_at_your_own_pace_keeps_days_per_move_and_the_deadline_is_days_away() -> None:
    table = own_pace_room(seconds=3 * DAY)
    game = table.game
    assert game.pace == Game.Pace.OWN and game.turn_timer == 3 * DAY  # more than the old 32767 s column held
    left = (game.turn_deadline - timezone.now()).total_seconds()
    assert 3 * DAY - 60 < left <= 3 * DAY
    state = game_state(game)
    assert state["pace"] == "own" and state["clock"]["pace"] == "own" and state["clock"]["seconds"] == 3 * DAY
    create = Move.objects.get(game=game, kind=Move.Kind.CREATE)
    assert create.payload["pace"] == "own" and create.payload["turn_timer"] == 3 * DAY


def test_a_room_at_your_own_pace_is_said_in_the_same_words_with_a_time_a_move_or_none() -> None:
    assert services.own_pace_text(3 * DAY) == "at your own pace, 3 days a move"
    assert services.own_pace_text(0) == services.own_pace_text(None) == "at your own pace, no time limit"
    with translation.override("de"):
        assert services.own_pace_text(DAY) == "im eigenen Tempo, 1 Tag pro Zug"
        assert services.own_pace_text(0) == "im eigenen Tempo, ohne Zeitlimit"


def test_own_pace_without_a_time_limit_has_no_deadline() -> None:
    table = own_pace_room(seconds=0)
    assert table.game.turn_deadline is None and game_state(table.game)["clock"] is None
    assert game_state(table.game)["pace"] == "own"


@pytest.mark.parametrize(
    ("pace", "seconds", "code"),
    [
        ("fast", 0, services.BAD_PACE),  # no such pace
        ("", 0, services.BAD_PACE),
        (None, 0, services.BAD_PACE),
        ("own", 2 * DAY, services.BAD_PACE),  # a time per move not offered
        ("own", 30, services.BAD_PACE),  # a live timer is not a time per move
        ("own", True, services.BAD_PACE),
        ("own", "86400", services.BAD_PACE),
        ("live", DAY, services.BAD_TIMER),  # days are not a live turn timer
    ],
)
def test_a_pace_or_time_not_offered_is_refused_and_nothing_is_stored(pace: object, seconds: object, code: str) -> None:
    with pytest.raises(RuleViolation) as err:
        services.game_create(host_name="Ana", controller=services.new_controller(), pace=pace, turn_timer=seconds)  # type: ignore[arg-type]
    assert err.value.code == code
    assert not Game.objects.exists() and not Move.objects.exists()


def test_a_game_on_one_device_is_live() -> None:
    with pytest.raises(RuleViolation) as err:
        services.game_create(
            host_name="Ana", controller=services.new_controller(), local=True, pace="own", turn_timer=DAY
        )
    assert err.value.code == services.BAD_PACE
    assert not Game.objects.exists()


def test_a_rematch_keeps_the_pace_and_the_time_per_move() -> None:
    table = own_pace_room(players=1, seconds=7 * DAY)
    play_to_end(table, random.Random(1))
    rematch = services.game_rematch(code=table.code, controller=table.controllers[0])
    assert rematch.pace == Game.Pace.OWN and rematch.turn_timer == 7 * DAY


# --- whose move: Game.waiting_on and the list of games ------------------------------------------


def test_waiting_on_follows_the_player_to_move_in_every_online_game() -> None:
    table = open_room(2)  # live: the count is of every game waiting for you
    assert table.game.waiting_on == table.controllers[0]
    assert waiting_count(table.controllers[0]) == 1 and waiting_count(table.controllers[1]) == 0
    score_first_legal(table)
    assert table.game.waiting_on == table.controllers[1]
    services.game_pause(code=table.code, controller=table.controllers[0], expected_version=None, action_id="p")
    assert table.game.waiting_on == ""  # paused: nobody is waited for
    services.game_resume(code=table.code, controller=table.controllers[0], expected_version=None, action_id="r")
    assert table.game.waiting_on == table.controllers[1]


def test_nobody_is_waited_for_in_a_lobby_on_one_device_or_at_a_computers_turn() -> None:
    lobby = own_pace_room(start=False)
    assert lobby.game.waiting_on == ""
    local = services.local_game_create(names=["A", "B"], controller=services.new_controller())
    assert local.waiting_on == ""
    bot_first = open_room(1, start=False)
    services.game_add_bot(code=bot_first.code, controller=bot_first.controllers[0], expected_version=None, action_id="")
    services.game_start(code=bot_first.code, controller=bot_first.controllers[0], expected_version=None, action_id="")
    score_first_legal(bot_first)  # the person plays seat 0; now the computer's turn
    assert bot_first.game.waiting_on == ""


def test_your_games_lists_the_unfinished_ones_waiting_for_you_first_soonest_deadline_first() -> None:
    me = services.new_controller()

    def room(seconds: int, *, host: bool) -> str:
        other = services.new_controller()
        first, second = (me, other) if host else (other, me)
        code = services.game_create(
            host_name="Ana" if host else "Ben", controller=first, pace="own", turn_timer=seconds
        ).game.code
        services.game_join(code=code, name="Ben" if host else "Ana", controller=second)
        services.game_start(code=code, controller=first, expected_version=None, action_id="")
        return code

    theirs = room(DAY, host=False)  # Ben to move
    slow = room(7 * DAY, host=True)  # mine, 7 days
    quick = room(DAY, host=True)  # mine, 1 day: first
    lobby = services.game_create(host_name="Ana", controller=me, pace="own", turn_timer=0).game.code
    finished = room(DAY, host=True)
    Game.objects.filter(code=finished).update(status=Game.Status.FINISHED, waiting_on="")

    rows = my_games(me)
    assert [r["code"] for r in rows][:2] == [quick, slow]
    assert {r["code"] for r in rows} == {quick, slow, theirs, lobby}  # never a finished game
    first = rows[0]
    assert first["yours"] and first["round"] == (1, 13) and first["ruleset"] == "Yahtzee (official)"
    assert DAY - 60 < first["left"] <= DAY
    assert [p["name"] for p in first["players"]] == ["Ana", "Ben"] and first["players"][0]["mine"]
    other = next(r for r in rows if r["code"] == theirs)
    assert not other["yours"] and other["to_move"] == "Ben"
    assert waiting_count(me) == 2
    assert list(my_games("")) == [] and waiting_count("") == 0


def test_a_seat_a_computer_plays_while_its_player_is_away_stays_in_their_list() -> None:
    table = own_pace_room(seconds=DAY)
    for _ in range(2):  # two timeouts in a row of seat 0
        Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() - timedelta(seconds=1))
        assert services.clock_expire(code=table.code, version=table.version())
        if table.game.snapshot["rules"]["current"] == 1:
            score_first_legal(table)
    player = Player.objects.get(game__code=table.code, seat=0)
    assert player.kind == Player.Kind.BOT and player.away_controller == table.controllers[0]
    rows = my_games(table.controllers[0])
    assert [r["code"] for r in rows] == [table.code] and rows[0]["away"]
    services.seat_reclaim(code=table.code, controller=table.controllers[0])
    assert Player.objects.get(pk=player.pk).away_controller == ""


# --- nobody need be online -------------------------------------------------------------------


def test_at_your_own_pace_an_offline_seat_is_not_taken_over_by_the_host() -> None:
    table = own_pace_room(players=3)
    score_first_legal(table)  # seat 1 to move, nobody online
    version = table.version()
    for service in (services.game_remove_absent, services.game_replace_with_bot):
        with pytest.raises(RuleViolation) as err:
            service(code=table.code, controller=table.controllers[0], seat=1, expected_version=version, action_id="x")
        assert err.value.code == services.OWN_PACE
    assert table.version() == version
    assert table.game.status == Game.Status.PLAYING


def _seat_kept_by_a_computer(table: Table, seat: int) -> None:
    """``seat``'s moves run out twice in a row: a computer keeps it for its player."""
    for _ in range(2):
        while table.game.room.rules.current != seat:
            score_first_legal(table)
        Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() - timedelta(seconds=1))
        assert services.clock_expire(code=table.code, version=table.version())
    entry = table.game.room.seats[seat]
    assert entry.bot and entry.away_controller == table.controllers[seat]


@pytest.mark.parametrize(("seat", "by"), [(1, 0), (0, 2)], ids=["by-the-host", "the-hosts-by-a-player"])
def test_at_your_own_pace_a_seat_a_computer_keeps_for_its_player_is_not_taken_out(seat: int, by: int) -> None:
    """Its player may be offline for days; a player whose seat the host holds does not become host by it."""
    table = own_pace_room(players=3)
    _seat_kept_by_a_computer(table, seat)
    host, version = table.game.host_id, table.version()
    with pytest.raises(RuleViolation) as err:
        services.game_remove_absent(
            code=table.code, controller=table.controllers[by], seat=seat, expected_version=version, action_id="x"
        )
    assert err.value.code == services.OWN_PACE
    assert table.game.room.seats[seat].active and table.version() == version and table.game.host_id == host


# --- the notices a move owes ---------------------------------------------------------------------


def test_the_move_that_makes_it_your_turn_owes_you_one_notice_and_a_reminder() -> None:
    table = own_pace_room(seconds=7 * DAY)
    assert not Notice.objects.filter(kind=Notice.Kind.TURN).exists()  # the host started: their own move
    score_first_legal(table)
    notices = {n.kind: n for n in Notice.objects.filter(seat=1)}
    assert set(notices) == {Notice.Kind.TURN, Notice.Kind.REMINDER}
    turn = notices[Notice.Kind.TURN]
    assert turn.seat == 1 and turn.turn == 1 and turn.player_id == Player.objects.get(game__code=table.code, seat=1).pk
    assert turn.text.startswith("P0 just scored ")
    assert turn.done_at is None
    deadline = table.game.turn_deadline
    assert notices[Notice.Kind.REMINDER].due_at == deadline - timedelta(days=7) / 4  # a quarter of the time left
    # Each is queued in the same transaction: one task row each (the host's first move's reminder too).
    from django_tasks_db.models import DBTaskResult

    assert DBTaskResult.objects.filter(task_path="games.services.notices.send_notice").count() == 3


def test_the_host_who_starts_the_game_is_reminded_of_the_first_move_too() -> None:
    """The host's own Start made it their turn: no "your turn" for it, but their time runs, and
    the player to move is reminded when a quarter of it is left (README)."""
    table = own_pace_room(seconds=DAY)  # P0 made the room, started it, and is first to move
    assert table.game.room.rules.current == 0 and table.game.turn_deadline is not None
    reminder = Notice.objects.get(game=table.game, kind=Notice.Kind.REMINDER)
    assert (reminder.seat, reminder.turn) == (0, 0)
    assert reminder.player_id == Player.objects.get(game__code=table.code, seat=0).pk
    assert reminder.due_at == table.game.turn_deadline - timedelta(days=1) / 4
    assert not Notice.objects.filter(kind=Notice.Kind.TURN).exists()


def test_a_game_for_one_reminds_its_player_of_every_move() -> None:
    table = own_pace_room(players=1, seconds=DAY)
    score_first_legal(table)  # their own move gives them the next turn
    assert list(Notice.objects.order_by("turn").values_list("turn", "seat", "kind")) == [
        (0, 0, "reminder"),
        (1, 0, "reminder"),
    ]


def test_rolls_and_holds_owe_nothing_and_each_new_turn_owes_once() -> None:
    table = own_pace_room(seconds=0)  # no time per move: no reminders
    rng = random.Random(3)
    for _ in range(4):
        play_turn(table, rng)
    # Turns 1 to 4 were given to seats 1, 0, 1, 0: the start's own turn owed nothing.
    assert list(Notice.objects.order_by("turn").values_list("turn", "seat", "kind")) == [
        (1, 1, "turn"),
        (2, 0, "turn"),
        (3, 1, "turn"),
        (4, 0, "turn"),
    ]


def test_a_live_game_owes_no_notice() -> None:
    table = open_room(2)
    score_first_legal(table)
    assert not Notice.objects.exists()


def test_a_refused_move_owes_nothing() -> None:
    table = own_pace_room()
    owed = list(Notice.objects.values_list("pk", flat=True))  # by the start: the host's reminder
    who = table.current()
    services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())
    with pytest.raises(RuleViolation):
        services.turn_score(
            code=table.code, controller=who, box="nonsense", expected_version=table.version(), action_id=action_id()
        )
    assert list(Notice.objects.values_list("pk", flat=True)) == owed


def test_a_notice_owed_by_a_move_rolled_back_is_gone_with_it() -> None:
    from django_tasks_db.models import DBTaskResult

    table = own_pace_room()
    owed = list(Notice.objects.values_list("pk", flat=True))  # by the start: the host's reminder
    queued = list(DBTaskResult.objects.values_list("pk", flat=True))
    who = table.current()
    services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())
    box = next(o for o in game_state(table.game)["options"] if o["legal"])["box"]
    with pytest.raises(RuntimeError), transaction.atomic():
        services.turn_score(code=table.code, controller=who, box=box, expected_version=None, action_id=action_id())
        assert Notice.objects.filter(seat=1).count() == 2
        raise RuntimeError("the caller's transaction fails after the move")
    assert list(Notice.objects.values_list("pk", flat=True)) == owed
    assert list(DBTaskResult.objects.values_list("pk", flat=True)) == queued


def test_a_timeout_owes_the_next_player_their_notice() -> None:
    table = own_pace_room(seconds=DAY)
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert services.clock_expire(code=table.code, version=table.version())
    turn = Notice.objects.get(kind=Notice.Kind.TURN)
    assert turn.seat == 1 and turn.text.startswith("P0's time ran out: the server scored ")


# --- staff give more time ------------------------------------------------------------------------


def to_move(table: Table) -> tuple[int, int]:
    """The turn staff see to move in ``table``'s game, as the admin's list shows it: (turns played, seat)."""
    return services.clock_to_extend(table.game)


def test_staff_extend_the_move_logged_as_a_move_and_the_replay_stays_whole() -> None:
    table = own_pace_room(seconds=DAY)
    before = table.game.turn_deadline
    change = services.clock_extend(code=table.code, seconds=3 * DAY, staff="clerk", turn=to_move(table))
    game = table.game
    assert game.turn_deadline == before + timedelta(days=3)
    move = Move.objects.filter(game=game).latest("seq")
    assert move.kind == Move.Kind.EXTEND and move.payload["seconds"] == 3 * DAY and move.payload["by"] == "clerk"
    assert change["name"] == "P0" and move.actor == "staff:clerk"
    # The deadline stands: a later action of the same turn does not reset it.
    services.turn_roll(code=table.code, controller=table.controllers[0], expected_version=None, action_id="r1")
    assert table.game.turn_deadline == before + timedelta(days=3)
    # Replaying the log gives the stored game, and the replay tells the extension.
    assert replay_game(table.game).state.turns_played == table.game.snapshot["rules"]["turns_played"]
    texts = [step.get("text", "") for step in replay_steps(table.game, {})]
    assert any("was given 3 days more to move" in text for text in texts)


@pytest.mark.parametrize("seconds", [0, 5, -DAY, True, "86400"])
def test_an_extension_not_offered_is_refused(seconds: object) -> None:
    table = own_pace_room(seconds=DAY)
    version = table.version()
    with pytest.raises(RuleViolation):
        services.clock_extend(code=table.code, seconds=seconds, staff="clerk", turn=to_move(table))  # type: ignore[arg-type]
    assert table.version() == version


def computer_to_move() -> Table:
    """A game at your own pace whose computer player is to move (a computer is on no clock)."""
    table = own_pace_room(1, seconds=DAY, start=False)
    services.game_add_bot(
        code=table.code, controller=table.controllers[0], level="casual", expected_version=None, action_id=action_id()
    )
    services.game_start(code=table.code, controller=table.controllers[0], expected_version=None, action_id=action_id())
    score_first_legal(table)
    assert table.game.room.bot_to_play(playing=True)
    return table


def paused() -> Table:
    table = own_pace_room(seconds=DAY)
    services.game_pause(code=table.code, controller=table.controllers[0], expected_version=None, action_id=action_id())
    return table


@pytest.mark.parametrize(
    ("room", "code", "reason"),
    [
        (lambda: own_pace_room(seconds=DAY, start=False), services.NOT_PLAYING, "the game is not being played"),
        (lambda: own_pace_room(seconds=0), services.NOT_PLAYING, "the game has no time per move"),
        (paused, services.PAUSED, "the game is paused: its clock is stopped until a player resumes it"),
        (computer_to_move, services.NOT_PLAYING, "a computer is to move, and computers are on no clock"),
    ],
    ids=["lobby", "no time per move", "paused", "a computer's turn"],
)
def test_only_a_running_clock_is_extended_and_the_refusal_says_why_none_runs(
    room: Callable[[], Table], code: str, reason: str
) -> None:
    table = room()
    version = table.version()
    with pytest.raises(RuleViolation) as err:
        services.clock_extend(code=table.code, seconds=DAY, staff="clerk", turn=(0, 0))
    assert err.value.code == code and err.value.message == f"Only a running clock can be extended: {reason}."
    assert table.version() == version


@pytest.mark.parametrize("players", [1, 2])
def test_more_time_for_a_turn_that_has_moved_on_is_refused_and_given_to_nobody(players: int) -> None:
    """Staff chose the turn they saw (P0 to move); by the time they confirm, P0's move is played
    (in a game for one, P0 is to move again): the time is not the next turn's."""
    table = own_pace_room(players, seconds=DAY)
    seen = to_move(table)
    score_first_legal(table)
    deadline, version = table.game.turn_deadline, table.version()
    with pytest.raises(RuleViolation) as err:
        services.clock_extend(code=table.code, seconds=DAY, staff="clerk", turn=seen)
    now = "it is P0's next move now" if players == 1 else "P1 is to move now"
    assert err.value.code == services.STALE
    assert err.value.message.startswith("The turn has moved on since: it was P0's move") and now in err.value.message
    assert table.game.turn_deadline == deadline and table.version() == version


@pytest.mark.parametrize("turn", [(), (0,), (0, 0, 0), (True, 0), (0, -1), ("0", "0")])
def test_more_time_names_the_turn_as_its_number_and_seat(turn: tuple[object, ...]) -> None:
    table = own_pace_room(seconds=DAY)
    version = table.version()
    with pytest.raises(RuleViolation) as err:
        services.clock_extend(code=table.code, seconds=DAY, staff="clerk", turn=turn)  # type: ignore[arg-type]
    assert err.value.code == services.BAD_REQUEST
    assert table.version() == version


def test_a_game_paused_by_a_host_who_never_came_back_can_go_on_a_month_later() -> None:
    """A pause stops the clock, so no timeout ever hands the host's seat on: a player of the game
    resumes it (and hosts from then on), or the game would stay paused for everyone for good."""
    table = own_pace_room(players=2, seconds=DAY)
    host, ben = table.controllers
    score_first_legal(table)  # Ben to move
    services.game_pause(code=table.code, controller=host, expected_version=table.version(), action_id=action_id())
    later = timezone.now() + timedelta(days=30)
    version = table.version()
    with mock.patch("django.utils.timezone.now", return_value=later):
        services.game_resume(code=table.code, controller=ben, expected_version=version, action_id=action_id())
    game = table.game
    assert not game.room.paused
    assert game.room.seat_of_player(game.host_id) == 1

"""The Move log is the truth: replaying it reproduces the stored state, and every die re-derives from the seed."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections import Counter
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from games import services
from games.domain import fairness
from games.domain.rules import RULESETS
from games.domain.rules.codec import state_to_dict
from games.services import replay as replay_module
from games.services.replay import replay_game, replay_steps, verify_fairness
from games.store import moves
from games.store.models import Game, Move, ScoreEntry
from games.store.selectors import game_state
from tests.factories import (
    Table,
    action_id,
    left_in_the_lobby,
    loaded_dice,
    open_room,
    play_to_end,
    play_turn,
    play_turns,
    timed_room,
)

pytestmark = pytest.mark.django_db


def assert_replays(game: Game) -> None:
    replay = replay_game(game)
    assert replay.problems == []
    assert replay.state is not None
    assert state_to_dict(replay.state) == game.snapshot["rules"]
    stored = {
        (e.player.seat, e.column, e.box): (e.points, e.bonus)
        for e in ScoreEntry.objects.filter(player__game=game).select_related("player")
    }
    replayed = {
        (seat, column, box.value): points
        for seat, card in enumerate(replay.state.cards)
        for column, boxes in enumerate(card.columns)
        for box, points in boxes
    }
    assert {key: points for key, (points, _) in stored.items()} == replayed
    for seat, card in enumerate(replay.state.cards):
        bonus = sum(b for (s, _, _), (_, b) in stored.items() if s == seat)
        assert bonus == sum(card.yahtzee_bonus)


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_replaying_random_complete_games_reproduces_the_snapshot_and_score_rows(ruleset: str, tmp_path: Path) -> None:
    """A game of one and a game of three replay to their stored state and rows, and every roll checks.

    The log of the game of three passes the published check turn by turn: it says whose turn each
    roll is and whether it began the turn, and lists the scores and the seats that left, which end
    turns; the script checks every turn against them."""
    rng = random.Random(f"replay-{ruleset}")
    for players in (1, 3):
        table = open_room(players, ruleset)
        game = play_to_end(table, rng)
        assert game.status == "finished"
        assert_replays(game)
        assert verify_fairness(game).ok
    log = Client().get(f"/r/{game.code}/log.json").json()
    turns = replay_game(game).turns
    assert [(r["roll"], r["seat"], r["first"]) for r in log["rolls"]] == turn_starts(game)
    assert [(r["roll"], r["turn"]) for r in log["rolls"]] == [
        (roll["roll"], turn.number) for turn in turns for roll in turn.rolls
    ]
    entries = ScoreEntry.objects.filter(player__game=game).select_related("player").order_by("turn")
    assert [(s["seat"], s["box"], s["column"], s["points"]) for s in log["scores"]] == [
        (e.player.seat, e.box, e.column, e.points) for e in entries
    ]
    assert log["left"] == []
    checked = run_doc_script(DOCS / "fairness.md", log, tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert f"all {len(log['rolls'])} rolls match the committed seed, and each of the {len(turns)} turns" in (
        checked.stdout
    )


def test_replay_matches_mid_game_and_after_a_player_leaves() -> None:
    from games import services

    table = open_room(3)
    rng = random.Random(9)
    for _ in range(4):
        play_turn(table, rng)
    assert_replays(table.game)
    services.game_leave(code=table.code, controller=table.controllers[2], seat=2, expected_version=None, action_id="")
    play_turn(table, rng)
    assert_replays(table.game)


def test_a_tampered_log_is_caught() -> None:
    table = open_room(1)
    game = play_to_end(table, random.Random(4))
    move = game.moves.filter(kind="roll").first()
    faces = move.payload["faces"]
    move.payload["faces"] = [7 - faces[0], *faces[1:]]
    move.save()
    assert not verify_fairness(game).ok
    assert replay_game(game).problems


@pytest.mark.parametrize(("missing", "said"), [("faces", "dice"), ("roll", "number")])
def test_a_roll_logged_without_its_number_or_dice_fails_the_check_and_the_rest_are_still_checked(
    missing: str, said: str
) -> None:
    game = play_to_end(open_room(1), random.Random(4))
    rolls = list(game.moves.filter(kind="roll").order_by("seq"))
    damaged = rolls[1]
    del damaged.payload[missing]
    damaged.save()
    report = verify_fairness(game)
    assert not report.ok and report.rolls_checked == len(rolls)
    assert report.mismatches == [f"roll 1 (move {damaged.seq}): logged without its {said}"]


def test_rolls_derive_from_seed_code_client_seeds_and_roll_number() -> None:
    seed = "00" * 32
    a = fairness.roll_faces(seed, "room", "x,y", 0, 5)
    assert a == fairness.roll_faces(seed, "room", "x,y", 0, 5)
    assert len(a) == 5 and all(1 <= f <= 6 for f in a)
    others = [
        fairness.roll_faces("11" * 32, "room", "x,y", 0, 50),
        fairness.roll_faces(seed, "other", "x,y", 0, 50),
        fairness.roll_faces(seed, "room", "x,z", 0, 50),
        fairness.roll_faces(seed, "room", "x,y", 1, 50),
    ]
    base = fairness.roll_faces(seed, "room", "x,y", 0, 50)
    assert all(other != base for other in others)


def test_each_face_is_equally_likely() -> None:
    seed = fairness.new_server_seed()
    counts = Counter(f for n in range(4000) for f in fairness.roll_faces(seed, "c", "s", n, 5))
    total = sum(counts.values())
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    # 20,000 faces: each within 5 standard deviations of 1/6.
    sd = (total * (1 / 6) * (5 / 6)) ** 0.5
    assert all(abs(n - total / 6) < 5 * sd for n in counts.values())


def hmac_bytes(seed: str, roll: int) -> bytes:
    """The first two blocks of bytes of the roll numbered ``roll``, as docs/fairness.md says to
    compute them (room code "c", client seed "s"), from Python's own HMAC-SHA256."""
    import hashlib
    import hmac

    return b"".join(
        hmac.new(bytes.fromhex(seed), f"c:s:{roll}:{block}".encode(), hashlib.sha256).digest() for block in range(2)
    )


def test_rejection_sampling_skips_the_four_biased_bytes() -> None:
    # A byte of 252..255 would make faces 1-4 more likely than 5 and 6; such bytes are dropped.
    seed = "ab" * 32
    for roll in range(200):
        expected = [b % 6 + 1 for b in hmac_bytes(seed, roll) if b < 252][:5]
        assert fairness.roll_faces(seed, "c", "s", roll, 5) == expected


def test_the_commitment_is_the_sha256_of_the_seed() -> None:
    import hashlib

    seed = fairness.new_server_seed()
    assert fairness.commitment(seed) == hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def test_verify_game_command_accepts_an_honest_game_and_prints_every_roll() -> None:
    table = open_room(2, "official")
    game = play_to_end(table, random.Random(21))
    out = StringIO()
    call_command("verify_game", game.code.upper(), "--rolls", stdout=out)
    text = out.getvalue()
    rolls = game.moves.filter(kind="roll").count()
    assert f"OK: all {rolls} rolls re-derived" in text
    assert text.count("turn ") == 26
    # A link to the room pasted as it came (its invite, replay or fair-dice page) names it too.
    shown = services.shown_code(game.code)
    for link in (
        f"https://yahtzee.example.org/r/{shown}/",
        f"http://localhost:8000/r/{game.code}/replay",
        f"/r/{shown}/fairness",
    ):
        out = StringIO()
        call_command("verify_game", link, stdout=out)
        assert f"OK: all {rolls} rolls re-derived" in out.getvalue(), link


def test_verify_game_names_the_column_of_each_triple_score(monkeypatch: pytest.MonkeyPatch) -> None:
    """Triple Yahtzee's 39 turns fill 13 boxes three times: "-> yahtzee 0+0" does not say which
    column's Yahtzee box took a zero, nor which took the ×3 five of a kind and its bonus."""
    boxes = RULESETS["triple"].boxes
    rest = [(box.value, column) for column in range(3) for box in boxes if (box.value, column) != ("yahtzee", 2)]
    rest.remove(("yahtzee", 0))
    rest.remove(("yahtzee", 1))
    # Five 4s in column 1's Yahtzee box; five 4s again must take an open Yahtzee box (×3: 150 + 300).
    turns = [("yahtzee", 0), ("yahtzee", 2), ("yahtzee", 1), *rest]
    loaded_dice(monkeypatch, [[4] * 5, [4] * 5, [1, 2, 3, 4, 6], *([[1, 2, 3, 4, 6]] * len(rest))])
    table = open_room(1, "triple")
    play_turns(table, turns)
    game = table.game
    assert game.status == Game.Status.FINISHED
    out = StringIO()
    call_command("verify_game", game.code, "--rolls", stdout=out)
    lines = [line for line in out.getvalue().splitlines() if line.lstrip().startswith("turn ")]
    assert len(lines) == 39
    assert lines[0].endswith("-> yahtzee ×1 50+0"), lines[0]
    assert lines[1].endswith("-> yahtzee ×3 150+300"), lines[1]
    assert lines[2].endswith("-> yahtzee ×2 0+0"), lines[2]


def test_verify_game_command_refuses_a_running_game_and_flags_tampering() -> None:
    table = open_room(1)
    play_turn(table, random.Random(1))
    with pytest.raises(CommandError, match="still playing"):
        call_command("verify_game", table.code, stdout=StringIO())
    with pytest.raises(CommandError, match="No game"):
        call_command("verify_game", "nosuchgame", stdout=StringIO())
    game = play_to_end(table, random.Random(2))
    Game.objects.filter(pk=game.pk).update(server_seed="cd" * 32)
    with pytest.raises(CommandError, match="FAILED"):
        call_command("verify_game", game.code, stdout=StringIO())


def test_the_checking_script_in_docs_fairness_md_accepts_a_real_log(tmp_path, monkeypatch) -> None:
    import json
    import re
    from pathlib import Path

    from django.test import Client

    table = open_room(1)
    game = play_to_end(table, random.Random(8))
    log = Client().get(f"/r/{game.code}/log.json").json()
    (tmp_path / "log.json").write_text(json.dumps(log))
    doc = (Path(__file__).resolve().parents[2] / "docs" / "fairness.md").read_text()
    script = re.search(r"```python\n(.*?)```", doc, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    out = StringIO()
    monkeypatch.setattr("sys.stdout", out)
    exec(compile(script, "fairness.md", "exec"), {})
    assert f"all {len(log['rolls'])} rolls match" in out.getvalue()


# --- Painted Yahtzee: 30 outcomes per die (value and colour) ----------------------------------


def test_painted_rolls_draw_30_outcomes_skipping_the_16_biased_bytes() -> None:
    seed = "5a" * 32
    for roll in range(200):
        expected = [b % 30 + 1 for b in hmac_bytes(seed, roll) if b < 240][:5]
        assert fairness.roll_faces(seed, "c", "s", roll, 5, sides=30) == expected
    # Six-sided dice are unchanged by the new parameter.
    assert fairness.roll_faces(seed, "c", "s", 3, 5) == fairness.roll_faces(seed, "c", "s", 3, 5, sides=6)
    assert fairness.describe_face(22, 30) == "4 blue" and fairness.describe_face(4) == "4"
    with pytest.raises(ValueError):
        fairness.roll_faces(seed, "c", "s", 0, 5, sides=0)


def test_each_painted_outcome_is_equally_likely() -> None:
    seed = fairness.new_server_seed()
    counts = Counter(f for n in range(6000) for f in fairness.roll_faces(seed, "c", "s", n, 5, sides=30))
    total = sum(counts.values())
    assert set(counts) == set(range(1, 31))
    sd = (total * (1 / 30) * (29 / 30)) ** 0.5
    assert all(abs(n - total / 30) < 5 * sd for n in counts.values())


def test_a_painted_game_logs_outcomes_1_to_30_and_its_state_carries_colour_names() -> None:
    from games.domain.rules import COLOURS, face_colour, face_value
    from games.store.selectors import game_state

    table = open_room(2, "painted")
    play_turn(table, random.Random(5))
    from games import services

    who = table.current()
    services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())
    state = game_state(table.game)
    move = table.game.moves.filter(kind="roll").order_by("-seq").first()
    faces = move.payload["faces"]
    assert len(faces) == 5 and all(1 <= f <= 30 for f in faces)
    assert state["turn"]["dice"] == [face_value(f) for f in faces]
    assert state["turn"]["colours"] == [COLOURS[face_colour(f)] for f in faces]
    assert state["ruleset"]["colours"] == list(COLOURS)
    sections = [b["section"] for b in state["ruleset"]["boxes"]]
    assert sections == ["upper"] * 6 + ["lower"] * 7 + ["colour"] * 10
    labels = {b["box"]: b["label"] for b in state["ruleset"]["boxes"]}
    assert labels["four_colour"] == "Four of a Colour" and labels["painted_house"] == "Painted House"
    assert len(state["options"]) == 23  # the second seat's first turn: every box open
    assert "colour" in state["cards"][0]["columns"][0]


def test_other_rule_sets_send_no_colours() -> None:
    from games.store.selectors import game_state

    table = open_room(1, "official")
    play_turn(table, random.Random(3))
    from games import services

    services.turn_roll(
        code=table.code, controller=table.current(), expected_version=table.version(), action_id=action_id()
    )
    state = game_state(table.game)
    assert state["turn"]["colours"] is None and state["ruleset"]["colours"] == []
    assert {b["section"] for b in state["ruleset"]["boxes"]} == {"upper", "lower"}


def test_verify_game_prints_painted_dice_with_their_colour_names() -> None:
    table = open_room(1, "painted")
    game = play_to_end(table, random.Random(33))
    out = StringIO()
    call_command("verify_game", game.code, "--rolls", stdout=out)
    text = out.getvalue()
    assert "OK: all" in text and text.count("turn ") == 23
    assert any(f"{v} {c}" in text for v in range(1, 7) for c in ("red", "yellow", "green", "blue", "purple"))
    # A roll whose colour was changed (same value) no longer matches the seed.
    move = game.moves.filter(kind="roll").first()
    faces = move.payload["faces"]
    move.payload["faces"] = [(faces[0] + 5) % 30 + 1, *faces[1:]]  # same value, next colour
    move.save()
    with pytest.raises(CommandError, match="FAILED"):
        call_command("verify_game", game.code, stdout=StringIO())


def test_the_checking_script_accepts_a_painted_log_and_prints_colours(tmp_path, monkeypatch) -> None:
    import json
    import re
    from pathlib import Path

    from django.test import Client

    table = open_room(1, "painted")
    game = play_to_end(table, random.Random(17))
    client = Client()
    log = client.get(f"/r/{game.code}/log.json").json()
    assert log["sides"] == 30 and log["ruleset"] == "painted"
    (tmp_path / "log.json").write_text(json.dumps(log))
    doc = (Path(__file__).resolve().parents[2] / "docs" / "fairness.md").read_text()
    script = re.search(r"```python\n(.*?)```", doc, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    out = StringIO()
    monkeypatch.setattr("sys.stdout", out)
    exec(compile(script, "fairness.md", "exec"), {})
    assert f"all {len(log['rolls'])} rolls match" in out.getvalue()
    assert re.search(r"new dice [1-6] (red|yellow|green|blue|purple)", out.getvalue())
    # The fairness page lists every roll with the colours by name.
    page = client.get(f"/r/{game.code}/fairness").content.decode()
    assert "Every roll, with its colours" in page
    assert re.search(r"[1-6] (red|yellow|green|blue|purple)", page)


DOCS = Path(__file__).resolve().parents[2] / "docs"


def run_doc_script(doc: Path, log: dict, folder: Path) -> subprocess.CompletedProcess[str]:
    """The checking script of a fair-dice page (its one Python block), run on ``log`` as a reader would."""
    found = re.search(r"```python\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    assert found, doc
    (folder / "log.json").write_text(json.dumps(log))
    (folder / "check.py").write_text(found.group(1))
    return subprocess.run(
        [sys.executable, "check.py"], cwd=folder, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize("doc", sorted(DOCS.glob("fairness*.md")), ids=lambda path: path.name)
@pytest.mark.parametrize("ruleset", ["official", "painted"])
def test_the_published_check_catches_a_held_die_that_shows_another_value_than_before(
    doc: Path, ruleset: str, tmp_path: Path
) -> None:
    """docs/fairness.md (and each translation, whose script is the same) promises a check "without
    trusting the server": a server that changed a die the player held (the 6 kept for a Yahtzee
    shown as a 2 on the next roll) is caught, since a held die shows what it showed after the roll
    before, the turn's."""
    log, _, _ = played_log(1, 7, ruleset)
    honest = run_doc_script(doc, log, tmp_path)
    assert honest.returncode == 0, honest.stderr
    roll = next(r for r in log["rolls"] if r["held"])
    kept = roll["held"][0]
    roll["dice"][kept] = roll["dice"][kept] % 6 + 1
    tampered = run_doc_script(doc, log, tmp_path)
    assert tampered.returncode != 0, tampered.stdout[-300:]
    assert f"roll {roll['roll']}: the dice are not the held ones and the new faces" in tampered.stderr


def check_section(page: str) -> str:
    """The fairness page's own card (the page around it carries a form's token of its own each time)."""
    found = re.search(r'<section class="card">(.*?)</section>', page, re.S)
    assert found
    return found.group(1)


@pytest.mark.parametrize("ruleset", ["official", "painted"])
def test_the_fairness_page_of_a_finished_game_checks_it_once_for_every_view_after_it(
    ruleset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page replays the whole log and derives every roll again (a good part of a second for a
    long game), and anyone with the code may open it again and again: a finished game is checked
    once, and every view after it shows the same."""
    table = open_room(2, ruleset)
    game = play_to_end(table, random.Random(5))
    calls: list[str] = []
    for name in ("replay_moves", "verify_fairness"):
        real = getattr(replay_module, name)
        monkeypatch.setattr(
            replay_module, name, lambda *a, _real=real, _name=name, **k: calls.append(_name) or _real(*a, **k)
        )
    client = Client()
    first = check_section(client.get(f"/r/{game.code}/fairness").content.decode())
    assert sorted(calls) == ["replay_moves", "verify_fairness"]
    assert all(check_section(client.get(f"/r/{game.code}/fairness").content.decode()) == first for _ in range(10))
    assert sorted(calls) == ["replay_moves", "verify_fairness"], "the game was checked again"
    assert "✓ Every move replays through the rules to the final scores" in first
    german = Client(HTTP_ACCEPT_LANGUAGE="de").get(f"/r/{game.code}/fairness").content.decode()
    if ruleset == "painted":
        assert "Every roll, with its colours" in first and "Every roll, with its colours" not in german


# --- a damaged or dishonest log, and what the pages make of it ---------------------------------


def replay_data(page: str) -> dict:
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page, re.S)
    assert found
    return json.loads(found.group(1))


def run_out(table: Table) -> int:
    """Move the current turn's deadline into the past; the version the timeout is for."""
    Game.objects.filter(code=table.code).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    return table.version()


def score_best(table: Table) -> None:
    options = [o for o in game_state(table.game)["options"] if o["legal"]]
    best = max(options, key=lambda o: o["points"] + o["bonus"])
    services.turn_score(
        code=table.code,
        controller=table.current(),
        box=best["box"],
        column=best["column"],
        expected_version=table.version(),
        action_id=action_id(),
    )


def cheat_before_roll(table: Table, count: int, tries: int = 4) -> None:
    """What a dishonest server would do: skip ahead to whichever of the next roll numbers gives the most pips."""
    game = table.game
    rolls = game.snapshot["rolls"]
    best = max(
        range(rolls, rolls + tries),
        key=lambda n: sum(fairness.roll_faces(game.server_seed, game.code, game.client_seed, n, count)),
    )
    Game.objects.filter(code=table.code).update(snapshot={**game.snapshot, "rolls": best})
    moves.forget(table.code)  # the room as this process last wrote it is stale now


def test_the_fairness_check_catches_a_server_that_chose_its_roll_numbers() -> None:
    """Roll numbers must run 0, 1, 2, ... as docs/fairness.md says; the check never looks at them.

    A server free to pick the number of each roll picks the dice: here the best of four each
    time, and every check (the page's, verify_game's, the admin's) still says all is well.
    """
    table = open_room(1)
    while table.game.status == Game.Status.PLAYING:
        cheat_before_roll(table, 5)
        services.turn_roll(
            code=table.code, controller=table.current(), expected_version=table.version(), action_id=action_id()
        )
        score_best(table)
    game = table.game
    numbers = [m.payload["roll"] for m in game.moves.filter(kind=Move.Kind.ROLL).order_by("seq")]
    assert numbers != list(range(len(numbers)))  # the log shows the skipping for anyone to see
    assert not verify_fairness(game).ok
    with pytest.raises(CommandError, match="FAILED"):
        call_command("verify_game", game.code, stdout=StringIO())


def test_the_fairness_page_flags_final_scores_that_the_moves_do_not_give() -> None:
    table = open_room(2)
    game = play_to_end(table, random.Random(3), rerolls=0)
    snapshot = game.snapshot
    # Seat 1's stored Chance is raised by 100 (a stored box is ["box", points]): the room page,
    # its state and the players' records now show a result the moves do not give.
    for entry in snapshot["rules"]["cards"][1]["columns"][0]:
        if entry[0] == "chance":
            entry[1] += 100
    Game.objects.filter(pk=game.pk).update(snapshot=snapshot)
    game = Game.objects.get(pk=game.pk)
    with pytest.raises(CommandError, match="FAILED"):  # the command compares: it catches it
        call_command("verify_game", game.code, stdout=StringIO())
    page = Client().get(f"/r/{game.code}/fairness").content.decode()
    # The page says "✓ Every move replays through the rules to the final scores." all the same.
    assert "✓ Every move replays through the rules to the final scores" not in page
    assert "✗" in page


def test_the_replay_of_a_room_abandoned_in_the_lobby_is_not_an_empty_stepper() -> None:
    """The page serves replay.js with no step at all: its first ``show(0)`` reads ``steps[0].seat``
    of undefined and throws, and the page says "Loading the game…" for ever."""
    table = open_room(2, start=False)
    services.game_leave(code=table.code, controller=table.controllers[1], seat=1, expected_version=None, action_id="")
    services.game_leave(code=table.code, controller=table.controllers[0], seat=0, expected_version=None, action_id="")
    assert table.game.status == Game.Status.ABANDONED
    response = Client().get(f"/r/{table.code}/replay")
    if response.status_code == 200 and 'id="replay-data"' in response.content.decode():
        assert replay_data(response.content.decode())["steps"], "a stepper with nothing to step through"


def test_a_score_the_timer_made_after_the_player_rolled_shows_the_dice_it_scored() -> None:
    table = timed_room(2)
    services.turn_roll(
        code=table.code, controller=table.current(), expected_version=table.version(), action_id=action_id()
    )
    assert services.clock_expire(code=table.code, version=run_out(table))
    rng = random.Random(1)
    while table.game.status == Game.Status.PLAYING:
        play_turn(table, rng, rerolls=0)
    game = table.game
    steps = replay_steps(game)
    score = next(s for s in steps if s["kind"] == "score")
    logged = game.moves.get(seq=score["move"]).payload["dice"]
    assert score["dice"] == logged  # the replay shows "P0 scores 12 in Sixes." with no dice


def test_a_log_whose_score_the_rules_refuse_is_reported_as_failed_not_a_server_error() -> None:
    """One score changed to a box the seat had already filled: the replay raises the rules' refusal,
    which the fairness page and ``verify_game`` report as a failed check, not let through as a 500
    or a traceback, as the admin's page does (games/web/admin.py ``build_review``)."""
    table = open_room(1)
    game = play_to_end(table, random.Random(6), rerolls=0)
    scores = list(game.moves.filter(kind=Move.Kind.SCORE).order_by("seq"))
    last = scores[-1]
    last.payload = {**last.payload, "box": scores[0].payload["box"]}
    last.save()
    response = Client(raise_request_exception=False).get(f"/r/{game.code}/fairness")
    assert response.status_code == 200
    assert "✗" in response.content.decode()
    with pytest.raises(CommandError, match="FAILED"):
        call_command("verify_game", game.code, stdout=StringIO())


def test_the_replay_says_a_short_outage_in_seconds() -> None:
    """A restart of a few seconds (more than SCHEDULER_OUTAGE) gives the turn its seconds back: an
    ``extend`` Move of 6 seconds, which the replay (and the admin) say as 6 seconds, not a minute."""
    table = timed_room(players=2, seconds=30)
    assert services.clock_outage(code=table.code, gap=timedelta(seconds=6), since=timezone.now() - timedelta(seconds=1))
    text = next(step["text"] for step in replay_steps(table.game) if step["kind"] == "extend")
    assert "out of reach for 6 seconds" in text, text


def test_the_fair_dice_page_lists_a_painted_reroll_with_each_held_die_keeping_its_colour(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A held die keeps its value and its colour: the page shows the reroll's kept dice as they were
    (4 blue, 4 blue held), the new ones as the seed gave them, and every check passes."""
    blue, red, green = 3, 0, 2
    first = [6 * blue + 4, 6 * red + 1, 6 * blue + 4, 6 * green + 2, 6 * red + 6]
    loaded_dice(monkeypatch, [first, [6 * blue + 4] * 3, *([[1, 2, 3, 4, 6]] * 22)])
    table = open_room(1, "painted")
    me = table.controllers[0]
    services.turn_roll(code=table.code, controller=me, expected_version=table.version(), action_id=action_id())
    services.turn_roll(
        code=table.code, controller=me, held=[0, 2], expected_version=table.version(), action_id=action_id()
    )
    assert game_state(table.game)["turn"]["colours"] == ["blue"] * 5
    services.turn_score(code=table.code, controller=me, box="flush", expected_version=table.version(), action_id="f")
    boxes = [box.value for box in RULESETS["painted"].boxes if box.value != "flush"]
    for box in boxes:
        services.turn_roll(code=table.code, controller=me, expected_version=table.version(), action_id=action_id())
        services.turn_score(code=table.code, controller=me, box=box, expected_version=table.version(), action_id=box)
    game = table.game
    assert game.status == Game.Status.FINISHED
    page = re.sub(
        r"\s+", " ", re.sub(r"<[^>]+>", " ", check_section(Client().get(f"/r/{game.code}/fairness").content.decode()))
    )
    assert "✓ The revealed seed matches the commitment." in page
    assert "✓ All 24 rolls re-derived from the seeds." in page
    assert "✓ Every move replays through the rules to the final scores." in page
    assert "Turn 1, P0 : 4 blue , 1 red , 4 blue , 2 green , 6 red " in page
    assert "Turn 1, P0 : 4 blue (held) , 4 blue , 4 blue (held) , 4 blue , 4 blue " in page
    assert game_state(game)["cards"][0]["columns"][0]["boxes"]["flush"] == 50


def turn_starts(game: Game) -> list[tuple[int, int, bool]]:
    """Each roll's (number, seat, whether it began its turn), as the rules played them."""
    return [
        (roll["roll"], turn.seat, index == 0)
        for turn in replay_game(game).turns
        for index, roll in enumerate(turn.rolls)
    ]


# Finished games' logs by (players, seed, rule set): see ``played_log``.
_PLAYED: dict[tuple[int, int, str], tuple[str, list[tuple[int, int, bool]], int]] = {}


def played_log(players: int, seed: int, ruleset: str = "official") -> tuple[dict, list[tuple[int, int, bool]], int]:
    """The log, as /r/<code>/log.json gives it, of a game of ``players`` played to its end with
    ``random.Random(seed)``; each roll's (number, seat, whether it began its turn) as the rules
    played them (``turn_starts``); and how many turns the game had.

    Played once per test process for each set of arguments and kept as data (its rows go with the
    test that played it): the tests that run the published script on a log, honest or forged, read
    nothing else of the game, and each gets a copy of its own to forge."""
    key = (players, seed, ruleset)
    if key not in _PLAYED:
        game = play_to_end(open_room(players, ruleset), random.Random(seed))
        log = Client().get(f"/r/{game.code}/log.json").content.decode()
        _PLAYED[key] = (log, turn_starts(game), len(replay_game(game).turns))
    log, starts, turns = _PLAYED[key]
    return json.loads(log), list(starts), turns


def carried_into_the_next_turn(
    starts: list[tuple[int, int, bool]], log: dict, claim_first: bool | None
) -> tuple[dict, int]:
    """``log`` forged as a dishonest server would, and the roll it forged: a turn's first roll
    (after a score) keeps two dice of the roll before, the last of the turn before, and its new
    faces are the first three the seed gives for it, so that every roll's faces, held dice and dice
    still add up; the turn's later rolls keep what the forged roll left. ``claim_first``: what the
    forged roll says of being a turn's first (None: the log says nothing of it); ``starts``: the
    game's ``turn_starts``."""
    start = next(i for i, (_, _, first) in enumerate(starts) if i and first)
    number = starts[start][0]
    end = next((i for i in range(start + 1, len(starts)) if starts[i][2]), len(starts))
    turn = [n for n, _, _ in starts[start:end]]
    rolls = log["rolls"]
    dice = list(rolls[number - 1]["dice"])
    for n in turn:
        roll = rolls[n]
        if n == number:
            roll["held"] = [0, 1]
            roll["faces"] = roll["faces"][:3]
            if claim_first is not None:
                roll["first"] = claim_first
        new = iter((f - 1) % 6 + 1 for f in roll["faces"])
        dice = [dice[i] if i in roll["held"] else next(new) for i in range(5)]
        roll["dice"] = dice
    for score in log.get("scores", []):
        last = max((r for r in rolls if r["move"] < score["move"]), key=lambda r: r["move"])
        score["dice"] = last["dice"]
    return log, number


# Each page's script (the same in every language) on a reroll carried into the next player's turn;
# the English one also on the same player's next turn, and on a forged roll that says it began its turn.
CARRIED = [(doc, 2, False) for doc in sorted(DOCS.glob("fairness*.md"))] + [
    (DOCS / "fairness.md", players, claim) for players, claim in ((1, False), (1, True), (2, True))
]


@pytest.mark.parametrize(
    ("doc", "players", "claim_first"),
    CARRIED,
    ids=[
        f"{doc.name}-{'the same player' if players == 1 else 'the next player'}-{'first' if claim else 'reroll'}"
        for doc, players, claim in CARRIED
    ],
)
def test_the_published_check_reports_held_dice_carried_into_the_next_turn(
    doc: Path, players: int, claim_first: bool, tmp_path: Path
) -> None:
    """A dishonest server could hand a player dice of the turn before (the other player's five of a
    kind, or the same player's after the box was scored): a turn's first roll rolls all five dice,
    and the published check knows from the log where each turn begins."""
    log, starts, _ = played_log(players, players)
    honest = run_doc_script(doc, log, tmp_path)
    assert honest.returncode == 0, honest.stderr
    forged, number = carried_into_the_next_turn(starts, log, claim_first)
    tampered = run_doc_script(doc, forged, tmp_path)
    assert tampered.returncode != 0, tampered.stdout[-300:]
    # The report names the roll and its move in the game's log, as verify_game does.
    move = forged["rolls"][number]["move"]
    assert f"roll {number} (move {move}): " in tampered.stderr, tampered.stderr
    assert "a turn's first roll" in tampered.stderr, tampered.stderr
    if claim_first:
        turn = forged["rolls"][number]["turn"]
        assert f"the first roll of turn {turn} (seat {forged['rolls'][number]['seat']}) keeps dice [0, 1]" in (
            tampered.stderr
        )


def test_a_held_die_carried_into_the_next_turn_is_reported_without_the_log_s_own_word_on_turns(
    tmp_path: Path,
) -> None:
    """The script finds where turns begin from the seats and the scores, not from what each roll
    says of itself: a forged roll that drops its ``first`` and ``turn`` (a log saved before rolls
    had a ``turn`` has none) is still a turn's first roll."""
    log, starts, _ = played_log(2, 2)
    forged, number = carried_into_the_next_turn(starts, log, None)
    for roll in forged["rolls"]:
        roll.pop("turn")
    tampered = run_doc_script(DOCS / "fairness.md", forged, tmp_path)
    assert tampered.returncode != 0, tampered.stdout[-300:]
    assert f"roll {number} (move {forged['rolls'][number]['move']}): the first roll of turn " in tampered.stderr


def test_the_published_check_reports_a_roll_logged_in_another_turn_than_its_own(tmp_path: Path) -> None:
    """Each roll says which turn it is (from 1, as verify_game and the fair-dice page count them);
    the script counts the turns itself and reports a roll whose number is not the one it counts."""
    log, _, _ = played_log(2, 2)
    roll = next(r for r in log["rolls"] if not r["first"])
    said = roll["turn"] + 1
    roll["turn"] = said
    checked = run_doc_script(DOCS / "fairness.md", log, tmp_path)
    assert checked.returncode != 0, checked.stdout[-300:]
    expected = f"roll {roll['roll']} (move {roll['move']}): logged in turn {said}, but it is turn {said - 1}"
    assert expected in checked.stderr, checked.stderr


@pytest.mark.parametrize("which", [0, -1], ids=["the first score", "the last score"])
def test_the_published_check_reports_a_score_of_other_dice_than_its_turn_s_last_roll_left(
    which: int, tmp_path: Path
) -> None:
    """Each score lists the dice it scored: those the turn's last roll left, which the script has
    re-derived from the seed, so a server cannot log a score of dice the seed never gave (five 6s
    in the Yahtzee box), nor hide where a turn ended behind a score of another roll's dice."""
    log, _, _ = played_log(2, 2)
    score = log["scores"][which]
    last = max((r for r in log["rolls"] if r["move"] < score["move"]), key=lambda r: r["move"])
    assert score["dice"] == last["dice"]
    score["dice"] = [6, 6, 6, 6, 6] if last["dice"] != [6] * 5 else [1, 1, 1, 1, 1]
    checked = run_doc_script(DOCS / "fairness.md", log, tmp_path)
    assert checked.returncode != 0, checked.stdout[-300:]
    expected = (
        f"move {score['move']}: seat {score['seat']} scores the dice {score['dice']}, "
        f"but its turn's last roll left {last['dice']}"
    )
    assert expected in checked.stderr, checked.stderr


def test_the_published_check_reports_a_score_logged_for_a_seat_whose_turn_it_is_not(tmp_path: Path) -> None:
    """A score moved onto another seat would leave the turn that rolled open, for the next roll of
    its seat to hold its dice over: each score is the scoring seat's, after its own roll."""
    log, _, _ = played_log(2, 2)
    score = log["scores"][0]
    score["seat"] = 1 - score["seat"]
    checked = run_doc_script(DOCS / "fairness.md", log, tmp_path)
    assert checked.returncode != 0, checked.stdout[-300:]
    assert f"move {score['move']}: seat {score['seat']} scores out of turn" in checked.stderr


def test_a_seat_that_leaves_mid_turn_ends_its_turn_in_the_log_and_the_check_passes(tmp_path: Path) -> None:
    table = open_room(3)
    who = table.current()
    services.turn_roll(code=table.code, controller=who, expected_version=table.version(), action_id=action_id())
    services.game_leave(
        code=table.code, controller=who, seat=0, expected_version=table.version(), action_id=action_id()
    )
    game = play_to_end(table, random.Random(4))
    log = Client().get(f"/r/{game.code}/log.json").json()
    assert [(r["roll"], r["seat"], r["first"]) for r in log["rolls"]] == turn_starts(game)
    assert [e["seat"] for e in log["left"]] == [0] and log["rolls"][1]["first"]
    # The turn cut short is a turn of its own, as verify_game and the fair-dice page number it.
    assert [r["turn"] for r in log["rolls"][:2]] == [1, 2]
    checked = run_doc_script(DOCS / "fairness.md", log, tmp_path)
    assert checked.returncode == 0, checked.stderr


@pytest.mark.parametrize("doc", sorted(DOCS.glob("fairness*.md")), ids=lambda path: path.name)
def test_a_log_saved_before_logs_had_turns_still_checks_and_says_what_it_cannot(doc: Path, tmp_path: Path) -> None:
    log, _, _ = played_log(2, 2)
    for key in ("scores", "left"):
        log.pop(key, None)
    for roll in log["rolls"]:
        roll.pop("seat", None)
        roll.pop("first", None)
        roll.pop("turn", None)
    checked = run_doc_script(doc, log, tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert f"all {len(log['rolls'])} rolls match the committed seed" in checked.stdout
    assert "this log does not say where turns begin" in checked.stdout


@pytest.mark.parametrize("doc", sorted(DOCS.glob("fairness*.md")), ids=lambda path: path.name)
def test_a_log_saved_before_rolls_said_their_turn_still_checks_its_turns(doc: Path, tmp_path: Path) -> None:
    """A log with each roll's seat and ``first`` and the scores, but no ``turn``: every turn is checked."""
    log, _, turns = played_log(2, 2)
    for roll in log["rolls"]:
        del roll["turn"]
    checked = run_doc_script(doc, log, tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert f"and each of the {turns} turns began with all five dice" in checked.stdout


@pytest.mark.parametrize("ruleset", ["official", "painted"])
def test_the_published_check_reports_dice_with_another_number_of_outcomes_than_the_rule_set_s(
    ruleset: str, tmp_path: Path
) -> None:
    """The script reads how many outcomes a die has from the log: a server that rolled seven-sided
    dice, shown as their value (the seventh outcome a second 1: ones twice as likely), and logged
    ``sides: 7`` would have every roll re-derived from the seed all the same."""
    log, _, _ = played_log(1, 12, ruleset)
    dice: list[int] = []
    for roll in log["rolls"]:
        roll["faces"] = fairness.roll_faces(
            log["server_seed"], log["code"], log["client_seed"], roll["roll"], len(roll["faces"]), sides=7
        )
        new = iter((f - 1) % 6 + 1 for f in roll["faces"])
        dice = [dice[i] if i in roll["held"] else next(new) for i in range(5)]
        roll["dice"] = dice
    log["sides"] = 7
    checked = run_doc_script(DOCS / "fairness.md", log, tmp_path)
    assert checked.returncode != 0, checked.stdout[-300:]
    assert f"{ruleset} dice do not have 7 outcomes" in checked.stderr


def test_the_published_check_reports_a_turn_of_more_than_three_rolls(tmp_path: Path) -> None:
    """A server letting a player roll a fourth time, logged as one turn (the score between left
    out, the next roll a reroll of all five dice): every rule set's turn has three rolls at most."""
    log, starts, _ = played_log(1, 13)
    turns = [i for i, (_, _, first) in enumerate(starts) if first]
    long = next(t for t, (i, j) in enumerate(zip(turns, turns[1:], strict=False)) if j - i == 3)
    fourth = log["rolls"][turns[long + 1]]
    fourth["first"] = False
    for roll in log["rolls"]:
        del roll["turn"]  # the turns' numbers would no longer add up
    begun = log["rolls"][turns[long]]["move"]
    log["scores"] = [s for s in log["scores"] if not begun < s["move"] < fourth["move"]]
    checked = run_doc_script(DOCS / "fairness.md", log, tmp_path)
    assert checked.returncode != 0, checked.stdout[-300:]
    assert f"roll {fourth['roll']} (move {fourth['move']}): the 4th roll of a turn" in checked.stderr


def test_verify_game_names_the_game_by_the_code_players_see_and_says_what_each_code_is() -> None:
    """The command printed "Game beb3n2x7wn (official, finished)": the stored code, which players
    never see (they quote "beb3-n2x7-wn"), and the rule set's and status's codes with no words."""
    table = open_room(2, "official")
    game = play_to_end(table, random.Random(21))
    shown = services.shown_code(game.code)
    out = StringIO()
    call_command("verify_game", shown.upper(), "--rolls", stdout=out)  # as a player quotes it
    lines = out.getvalue().splitlines()
    assert lines[0] == f"Game {shown}: the room code players see ({game.code} as stored, and in each roll's HMAC)."
    assert lines[1] == "  Rule set: Yahtzee (official) (its code: official). Status: Finished."
    text = out.getvalue()
    assert f"Server seed, revealed at the game's end: {game.server_seed}" in text
    assert f"Commitment, shown from the room's start:  {game.seed_commitment}" in text
    assert "The SHA-256 of the revealed seed matches the commitment" in text
    assert f"Players' seeds, one per seat in seat order, mixed into every roll: {game.client_seed}" in text
    assert "Each turn: its number, the player, every roll (held dice in [brackets])" in text
    assert f"Game {game.code} " not in text and "(official, finished)" not in text


def test_verify_game_says_in_words_what_failed_in_a_tampered_game() -> None:
    table = open_room(1)
    game = play_to_end(table, random.Random(2))
    shown = services.shown_code(game.code)
    move = game.moves.filter(kind=Move.Kind.ROLL).order_by("seq").first()
    Game.objects.filter(pk=game.pk).update(server_seed="cd" * 32)
    out = StringIO()
    with pytest.raises(CommandError) as failed:
        call_command("verify_game", game.code, stdout=out)
    message = str(failed.value)
    assert message.startswith(f"Game {shown} FAILED verification: the revealed seed does not match its commitment; ")
    assert re.search(r"\d+ roll problems? in \d+ rolls", message), message
    text = out.getvalue()
    assert "The SHA-256 of the revealed seed DIFFERS from the commitment" in text
    assert "Rolls that do not re-derive from the seeds (rolls are counted from 0 over the whole game;" in text
    assert f"    roll 0 (move {move.seq}): logged " in text


def test_verify_game_says_why_a_game_not_over_cannot_be_checked_and_a_code_not_found() -> None:
    table = open_room(1, start=False)
    shown = services.shown_code(table.code)
    with pytest.raises(CommandError) as lobby:
        call_command("verify_game", table.code, stdout=StringIO())
    assert str(lobby.value) == (
        f"Game {shown} has not started yet (status: Lobby): its server seed is revealed only when "
        "the game ends, so it cannot be checked yet."
    )
    playing = open_room(1)
    with pytest.raises(CommandError) as running:
        call_command("verify_game", playing.code, stdout=StringIO())
    assert str(running.value).startswith(
        f"The players of game {services.shown_code(playing.code)} are still playing (status: Playing): "
    )
    with pytest.raises(CommandError) as missing:
        call_command("verify_game", "abcd-efgh-zz", stdout=StringIO())
    assert str(missing.value).startswith("No game has the room code 'abcd-efgh-zz' (case and dashes are ignored).")


def test_verify_game_says_a_game_abandoned_in_the_lobby_never_started_instead_of_checking_zero_rolls() -> None:
    """Everyone left the lobby: the seed is revealed, but no die was rolled. The command ended with
    "OK: all 0 rolls re-derived from the revealed seed, and the moves replay exactly.", where the
    fair-dice page and the replay say the game never started."""
    table = left_in_the_lobby()
    game = table.game
    assert game.status == Game.Status.ABANDONED and game.started_at is None
    out = StringIO()
    call_command("verify_game", game.code, "--rolls", stdout=out)
    text = out.getvalue()
    assert "The SHA-256 of the revealed seed matches the commitment" in text
    assert "all 0 rolls" not in text and "Each turn:" not in text
    assert text.splitlines()[-1] == (
        f"OK: game {services.shown_code(game.code)} never started (everyone left the lobby): "
        "it has no rolls or moves to check, and its revealed seed matches its commitment."
    )


def test_the_fair_dice_page_of_a_game_left_after_one_roll_counts_it_as_one_roll() -> None:
    """A game its only player left after the first roll: the page says "1 roll re-derived", not
    "All 1 rolls" (and French "1 lancer recalculé", whose singular also takes 0)."""
    table = open_room(1)
    services.turn_roll(code=table.code, controller=table.current(), expected_version=table.version(), action_id="r")
    services.game_leave(
        code=table.code, controller=table.controllers[0], seat=0, expected_version=table.version(), action_id="l"
    )
    game = table.game
    assert game.is_over and game.started_at is not None
    page = re.sub(
        r"\s+", " ", re.sub(r"<[^>]+>", " ", check_section(Client().get(f"/r/{game.code}/fairness").content.decode()))
    )
    assert "✓ 1 roll re-derived from the seeds." in page, page

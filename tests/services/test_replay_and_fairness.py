"""The Move log is the truth: replaying it reproduces the stored state, and every die re-derives from the seed."""

from __future__ import annotations

import random
from collections import Counter
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.domain import fairness
from games.domain.rules import RULESETS
from games.domain.rules.codec import state_to_dict
from games.services.replay import replay_game, verify_fairness
from games.store.models import Game, ScoreEntry
from tests.factories import action_id, open_room, play_to_end, play_turn

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
def test_replaying_random_complete_games_reproduces_the_snapshot_and_score_rows(ruleset: str) -> None:
    rng = random.Random(f"replay-{ruleset}")
    for players in (1, 3):
        table = open_room(players, ruleset)
        game = play_to_end(table, rng)
        assert game.status == "finished"
        assert_replays(game)
        assert verify_fairness(game).ok


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


def test_rejection_sampling_skips_the_four_biased_bytes() -> None:
    # A byte of 252..255 would make faces 1-4 more likely than 5 and 6; such bytes are dropped.
    import hashlib
    import hmac

    seed = "ab" * 32
    for roll in range(200):
        stream = b"".join(
            hmac.new(bytes.fromhex(seed), f"c:s:{roll}:{block}".encode(), hashlib.sha256).digest() for block in range(2)
        )
        expected = [b % 6 + 1 for b in stream if b < 252][:5]
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
    import hashlib
    import hmac

    seed = "5a" * 32
    for roll in range(200):
        stream = b"".join(
            hmac.new(bytes.fromhex(seed), f"c:s:{roll}:{block}".encode(), hashlib.sha256).digest() for block in range(2)
        )
        expected = [b % 30 + 1 for b in stream if b < 240][:5]
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

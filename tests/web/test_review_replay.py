"""Review of finished games' pages (the replay, the fair-dice check, the rematch's seeds): failing tests
for defects found, one a defect."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from games import services
from games.store.models import Game, Player
from tests.factories import action_id, open_room, play_to_end

pytestmark = pytest.mark.django_db

DOCS = Path(settings.BASE_DIR) / "docs"


def doc_script(file: Path) -> str:
    """The checking script of a fair-dice page (its one Python block)."""
    found = re.search(r"```python\n(.*?)```", file.read_text(encoding="utf-8"), re.S)
    assert found, file
    return found.group(1)


def run_script(script: str, log: dict, folder: Path) -> subprocess.CompletedProcess[str]:
    (folder / "log.json").write_text(json.dumps(log))
    (folder / "check.py").write_text(script)
    return subprocess.run(
        [sys.executable, "check.py"], cwd=folder, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize(
    "file", sorted(DOCS.glob("fairness*.md")), ids=lambda path: path.name
)  # the English page and each translation carry the same script
def test_the_published_check_finds_a_held_die_whose_value_the_log_changed(file: Path, tmp_path: Path) -> None:
    """docs/fairness.md promises a check "without trusting the server". A server that changed the
    value of a die the player held (the 6 kept for a Yahtzee shown as a 2 on the next roll) must
    be caught by it: a held die shows the value it had on the turn's roll before. The script takes
    a held die's value from the very roll it checks, so it compares the die with itself."""
    table = open_room(1)
    game = play_to_end(table, random.Random(7))
    log = Client().get(f"/r/{game.code}/log.json").json()
    script = doc_script(file)
    honest = run_script(script, log, tmp_path)
    assert honest.returncode == 0, honest.stderr  # the honest log passes
    # A reroll that kept a die: the log now says that die shows another value than it had.
    roll = next(r for r in log["rolls"] if r["held"])
    kept = roll["held"][0]
    roll["dice"][kept] = roll["dice"][kept] % 6 + 1
    tampered = run_script(script, log, tmp_path)
    assert tampered.returncode != 0, (
        f"{file.name}: a held die changed from one roll to the next passed the check:\n{tampered.stdout[-300:]}"
    )


def test_a_rematch_hosted_by_another_player_keeps_the_seed_its_hosts_browser_sends() -> None:
    """docs/fairness.md: in a rematch "each seat takes the seed its browser sends when its player
    follows the rematch from the game's end (a seat whose player never does has none)". When the
    player who asks for it was muted, another player hosts the rematch: that seat was given a seed
    the server made up, the host's own browser's seed is then ignored, and the fairness page says the
    server's seed came "from" the host."""
    table = open_room(2)
    p0, p1 = table.controllers
    services.seat_mute(code=table.code, controller=p0, seat=1, expected_version=None, action_id=action_id())
    play_to_end(table, random.Random(1), rerolls=0)
    rematch = services.game_rematch(code=table.code, controller=p1, client_seed="seed-of-p1-browser")
    host = Game.objects.get(pk=rematch.pk).host
    assert host is not None and host.controller == p0  # P1 is muted: P0 hosts the rematch
    # P0 has not followed yet: the seat has no seed of its browser's, so it has none.
    assert Player.objects.get(pk=host.pk).client_seed == ""
    services.game_rematch(code=table.code, controller=p0, client_seed="seed-of-p0-browser")
    services.game_start(code=rematch.code, controller=p0, expected_version=None, action_id=action_id())
    started = Game.objects.get(pk=rematch.pk)
    assert sorted(started.client_seed.split(",")) == ["seed-of-p0-browser", "seed-of-p1-browser"], started.client_seed

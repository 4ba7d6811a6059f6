"""yahtzee.prepare: the embedded default's folder and secret key, made before a server starts."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from yahtzee import prepare


@pytest.fixture
def no_key_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SECRET_KEY", raising=False)


@pytest.mark.usefixtures("no_key_in_env")
def test_it_makes_the_folder_and_a_key_only_its_owner_reads(tmp_path: Path) -> None:
    data = tmp_path / "var" / "deeper"
    assert prepare.secret_key(data) == ""
    prepare.prepare(data)
    key = (data / "secret_key").read_text()
    assert len(key) >= 50
    assert stat.S_IMODE((data / "secret_key").stat().st_mode) == 0o600
    assert prepare.secret_key(data) == key


@pytest.mark.usefixtures("no_key_in_env")
def test_a_second_run_keeps_the_key(tmp_path: Path) -> None:
    prepare.prepare(tmp_path)
    first = prepare.secret_key(tmp_path)
    prepare.prepare(tmp_path)
    assert prepare.secret_key(tmp_path) == first


def test_a_key_in_the_environment_wins_and_no_file_is_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_KEY", "from-the-environment")
    prepare.prepare(tmp_path)
    assert prepare.secret_key(tmp_path) == "from-the-environment"
    assert not (tmp_path / "secret_key").exists()


def test_data_dir_is_var_in_the_checkout_unless_set(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DATA_DIR", raising=False)
    assert prepare.data_dir() == prepare.BASE_DIR / "var"
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    assert prepare.data_dir() == tmp_path


@pytest.mark.usefixtures("no_key_in_env")
def test_it_makes_a_vapid_key_once_only_its_owner_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VAPID_PRIVATE_KEY", raising=False)
    assert prepare.vapid_private_key(tmp_path) == ""
    prepare.prepare(tmp_path)
    key = prepare.vapid_private_key(tmp_path)
    assert len(key) == 43  # 32 bytes, base64url without padding: what pywebpush's VAPID reads
    assert stat.S_IMODE((tmp_path / "vapid_private_key").stat().st_mode) == 0o600
    prepare.prepare(tmp_path)
    assert prepare.vapid_private_key(tmp_path) == key  # kept: every subscription was made with it


def test_a_vapid_key_in_the_environment_wins_and_no_file_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_KEY", "x")
    monkeypatch.setenv("VAPID_PRIVATE_KEY", "from-the-environment")
    prepare.prepare(tmp_path)
    assert prepare.vapid_private_key(tmp_path) == "from-the-environment"
    assert not (tmp_path / "vapid_private_key").exists()

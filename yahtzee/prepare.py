"""Make what the embedded default keeps on disk, once, before a server starts.

``python -m yahtzee.prepare`` (``make run`` runs it) makes ``DATA_DIR`` (``./var``: the SQLite
database lives there) and, unless ``SECRET_KEY`` is set, a random key in
``DATA_DIR/secret_key``; likewise, unless ``VAPID_PRIVATE_KEY`` is set, the Web Push key
pair's private half in ``DATA_DIR/vapid_private_key``. The settings only read those files:
importing them writes nothing. This module imports no Django, so it runs before the
settings are loaded.
"""

from __future__ import annotations

import base64
import os
import secrets
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    """Where the embedded default keeps its database and key: DATA_DIR, else ./var."""
    return Path(os.environ.get("DATA_DIR") or BASE_DIR / "var")


def secret_key(data: Path) -> str:
    """SECRET_KEY from the environment, else the one kept in ``data``, else ``""`` (none made yet)."""
    if os.environ.get("SECRET_KEY"):
        return os.environ["SECRET_KEY"]
    try:
        return (data / "secret_key").read_text().strip()
    except FileNotFoundError:
        return ""


def vapid_private_key(data: Path) -> str:
    """VAPID_PRIVATE_KEY from the environment, else the one kept in ``data``, else ``""``."""
    if os.environ.get("VAPID_PRIVATE_KEY"):
        return os.environ["VAPID_PRIVATE_KEY"].strip()
    try:
        return (data / "vapid_private_key").read_text().strip()
    except FileNotFoundError:
        return ""


def new_vapid_private_key() -> str:
    """A new P-256 private key as Web Push's VAPID uses it: the raw 32 bytes, base64url without padding."""
    # Imported here: the settings import this module, and every process need not load cryptography.
    from cryptography.hazmat.primitives.asymmetric import ec

    number = ec.generate_private_key(ec.SECP256R1()).private_numbers().private_value
    return base64.urlsafe_b64encode(number.to_bytes(32, "big")).rstrip(b"=").decode()


def _write_secret(path: Path, text: str) -> None:
    # Created readable by its owner only, before the key is written into it.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(text)


def prepare(data: Path) -> None:
    """Make ``data`` and, for each key not in the environment, its file (kept if it exists)."""
    data.mkdir(parents=True, exist_ok=True)
    if not secret_key(data):
        _write_secret(data / "secret_key", secrets.token_urlsafe(50))
    if not vapid_private_key(data):
        _write_secret(data / "vapid_private_key", new_vapid_private_key())


if __name__ == "__main__":
    prepare(data_dir())

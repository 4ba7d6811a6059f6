"""Make what the embedded default keeps on disk, once, before a server starts.

``python -m yahtzee.prepare`` (``make run`` runs it) makes ``DATA_DIR`` (``./var``: the SQLite
database lives there) and, unless ``SECRET_KEY`` is set, a random key in
``DATA_DIR/secret_key``. The settings only read that file: importing them writes nothing.
This module imports no Django, so it runs before the settings are loaded.
"""

from __future__ import annotations

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


def prepare(data: Path) -> None:
    """Make ``data`` and, with no SECRET_KEY in the environment, the key file (kept if it exists)."""
    data.mkdir(parents=True, exist_ok=True)
    if secret_key(data):
        return
    path = data / "secret_key"
    # Created readable by its owner only, before the key is written into it.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(secrets.token_urlsafe(50))


if __name__ == "__main__":
    prepare(data_dir())

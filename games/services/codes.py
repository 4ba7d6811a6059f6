"""Room codes, the browser's controller token, display names and client seeds."""

from __future__ import annotations

import re
import secrets

from games import fairness
from games.errors import BAD_NAME, BAD_REQUEST
from games.rules import RuleViolation

# Room codes: 10 characters from 31 unambiguous ones (no 0/o, 1/l/i) = 49.5 bits.
CODE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"
CODE_LENGTH = 10
NAME_MAX = 24
SEED_MAX = 64
ACTION_ID_MAX = 64
_CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")


def new_room_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(code: str) -> str:
    """Codes are typed by people: ignore case, spaces and dashes."""
    return re.sub(r"[\s-]", "", str(code)).lower()[:32]


def new_controller() -> str:
    """The token a browser keeps in its session to prove which seats are its own."""
    return secrets.token_urlsafe(24)


def clean_name(name: object) -> str:
    text = _CONTROL_CHARS.sub("", str(name) if isinstance(name, str) else "").strip()
    text = re.sub(r"\s+", " ", text)
    if not text:
        raise RuleViolation(BAD_NAME, "Please choose a display name.")
    if len(text) > NAME_MAX:
        raise RuleViolation(BAD_NAME, f"Names are at most {NAME_MAX} characters.")
    return text


def clean_client_seed(seed: object) -> str:
    if not isinstance(seed, str) or not seed:
        return fairness.new_client_seed()
    if len(seed) > SEED_MAX or not re.fullmatch(r"[A-Za-z0-9_-]+", seed):
        raise RuleViolation(BAD_REQUEST, f"A client seed is 1 to {SEED_MAX} letters, digits, '-' or '_'.")
    return seed

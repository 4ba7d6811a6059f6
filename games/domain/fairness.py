"""Provably fair dice: a committed server seed, players' client seeds, HMAC-SHA256.

Pure standard library, so that anyone can copy this file and check a finished game.

- When a room is created the server draws a secret 32-byte seed and publishes
  ``commitment = sha256(seed)``; the seed itself is revealed only when the game ends.
- Every player's browser contributes a client seed when it takes a seat. At the start
  the seats' client seeds, in seat order, are joined with "," into ``client_seed``.
- Roll number ``n`` of the game (0, 1, 2, ... over all players' rolls) draws its new faces
  from the byte stream ``HMAC-SHA256(key=seed, msg=f"{code}:{client_seed}:{n}:{block}")``
  for block = 0, 1, 2, ...: each byte b < 252 gives the face ``b % 6 + 1`` and bytes
  252-255 are skipped, so each face has probability exactly 1/6. The faces fill the
  unheld dice in die order (all five on a turn's first roll).
- Painted Yahtzee's dice have 30 outcomes (a value and a colour): each byte b < 240 gives
  the outcome ``b % 30 + 1`` and bytes 240-255 are skipped, so each outcome has probability
  exactly 1/30. Outcome f shows the value ``(f - 1) % 6 + 1`` in colour ``(f - 1) // 6``
  (0 red, 1 yellow, 2 green, 3 blue, 4 purple): 1-6 are the red ones to sixes, 7-12 yellow...
  In general a die of ``sides`` outcomes skips the bytes from ``256 - 256 % sides`` up.

The server cannot steer the dice: the seed is fixed (committed) before the players'
seeds are known, and the players cannot steer them because they never see the seed.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator

SEED_BYTES = 32
COLOURS = ("red", "yellow", "green", "blue", "purple")  # Painted's colours by index (as games.domain.rules)


def new_server_seed() -> str:
    """A fresh secret seed, as hex."""
    return secrets.token_hex(SEED_BYTES)


def new_client_seed() -> str:
    """A seed for a seat whose browser sent none (bots, scripted clients)."""
    return secrets.token_hex(8)


def commitment(server_seed: str) -> str:
    """The public SHA-256 commitment to a hex server seed."""
    return hashlib.sha256(bytes.fromhex(server_seed)).hexdigest()


def combine_client_seeds(seeds: list[str]) -> str:
    return ",".join(seeds)


def _stream(server_seed: str, code: str, client_seed: str, roll: int) -> Iterator[int]:
    key = bytes.fromhex(server_seed)
    block = 0
    while True:
        message = f"{code}:{client_seed}:{roll}:{block}".encode()
        yield from hmac.new(key, message, hashlib.sha256).digest()
        block += 1


def roll_faces(server_seed: str, code: str, client_seed: str, roll: int, count: int, sides: int = 6) -> list[int]:
    """The ``count`` new faces (1 to ``sides``) of roll number ``roll`` of the game."""
    if not 1 <= sides <= 256:
        raise ValueError(f"a die needs 1 to 256 sides, not {sides}")
    limit = 256 - 256 % sides  # the largest multiple of ``sides`` that fits in a byte
    faces: list[int] = []
    for byte in _stream(server_seed, code, client_seed, roll):
        if len(faces) == count:
            break
        if byte < limit:
            faces.append(byte % sides + 1)
    return faces


def describe_face(face: int, sides: int = 6) -> str:
    """A face as people read it: ``"4"``, or for a 30-outcome Painted die ``"4 blue"``."""
    if sides == 6:
        return str(face)
    return f"{(face - 1) % 6 + 1} {COLOURS[(face - 1) // 6]}"

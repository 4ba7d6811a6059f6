"""What the games app tells the rest of the site, without knowing who listens.

``game_finished`` is sent once the transaction that ended a game (its last box scored, or
every other player gone) has committed, with ``game`` the finished Game row. Receivers run
in the process that committed; a failing receiver is logged and never undoes the game.
The accounts app counts the game for its players' history, stats and ratings.
"""

from __future__ import annotations

from django.dispatch import Signal

game_finished = Signal()

"""Where the accounts app listens: a sign-in (the browser's seats join the account) and a finished game."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.db import connections
from django.dispatch import receiver
from django.http import HttpRequest

from accounts import services
from games.models import Game
from games.signals import game_finished

log = logging.getLogger(__name__)
# Counting a game runs the coach's review of it (a few tenths of a second): off the thread
# that applied the last move, one game at a time. A game whose process died before it was
# counted is counted by `manage.py count_games`; counting twice is refused (CountedGame).
_counter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="count")


@receiver(user_logged_in, dispatch_uid="accounts-claim")
def claim_on_sign_in(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    """The browser's seats become the account's, and the browser plays with the account's token from now on."""
    if request is None or not hasattr(request, "session"):
        return
    request.session["controller"] = services.account_claim(
        user_id=user.pk, controller=request.session.get("controller", "")
    )


def _count(game_id: int) -> None:
    try:
        services.game_count(game_id=game_id)
    except Exception:
        log.exception("counting game %s failed; `manage.py count_games` counts it later", game_id)
    finally:
        connections.close_all()  # this thread's own connections


@receiver(game_finished, dispatch_uid="accounts-count")
def count_finished_game(sender: Any, game: Game, **kwargs: Any) -> None:
    if settings.ACCOUNTS_COUNT_IN_BACKGROUND:
        _counter.submit(_count, game.pk)
    else:
        services.game_count(game_id=game.pk)

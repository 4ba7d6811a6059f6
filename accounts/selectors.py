"""Reads for the accounts pages: a profile with its stats and a page of games, and the leaderboards.

Each is a fixed number of queries whatever the number of games (the stats are kept up to
date in Standing rows as games finish; a page of history is one indexed range).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.core.paginator import Page, Paginator
from django.http import Http404

from accounts.models import GameRecord, Profile, Standing
from games.models import Player
from games.rules import RULESETS

PAGE_SIZE = 20
LEADERBOARD_SIZE = 100
MIN_GAMES = 5  # rated (or reviewed) games before an account is listed on a leaderboard


@dataclass(frozen=True)
class Stats:
    ruleset: str
    label: str
    games: int
    wins: int
    mean: float
    best: int
    bonus_rate: float
    yahtzee_rate: float
    accuracy: float | None  # mean expected points lost a game; None: no reviewed game yet
    exact: bool  # False: the rule set has no exact solver, so no accuracy at all
    rating: float | None
    rated: int


def _stats(s: Standing) -> Stats:
    return Stats(
        ruleset=s.ruleset,
        label=RULESETS[s.ruleset].label,
        games=s.games,
        wins=s.wins,
        mean=s.score_sum / s.games if s.games else 0.0,
        best=s.best,
        bonus_rate=s.bonuses / s.games if s.games else 0.0,
        yahtzee_rate=s.yahtzees / s.games if s.games else 0.0,
        accuracy=s.accuracy,
        exact=not RULESETS[s.ruleset].colours,
        rating=s.ordinal if s.rated else None,
        rated=s.rated,
    )


def profile_page(*, username: str, viewer_id: int | None, page: object) -> dict[str, Any]:
    """The profile of ``username`` as ``viewer_id`` may see it (Http404 for a private one not theirs)."""
    user = get_user_model().objects.select_related("profile").filter(username=username).first()
    if user is None:
        raise Http404("No such player.")
    profile = getattr(user, "profile", None)
    own = viewer_id == user.pk
    if not own and (profile is None or not profile.public):
        raise Http404("No such player.")
    standings = [_stats(s) for s in Standing.objects.filter(user=user, games__gt=0).order_by("-games", "ruleset")]
    total = sum(s.games for s in standings)
    records = GameRecord.objects.filter(user=user).order_by("-finished_at", "-id").select_related("game")
    # The count is known from the standings: the paginator needs no COUNT(*) over the history.
    paginator = Paginator(_Counted(records, total), PAGE_SIZE)
    games: Page[Any] = paginator.get_page(page)
    rows = list(games.object_list)
    names: dict[int, list[str]] = {}
    for game_id, name in (
        Player.objects.filter(game_id__in=[r.game_id for r in rows], seat__isnull=False)
        .order_by("game_id", "seat")
        .values_list("game_id", "name")
    ):
        names.setdefault(game_id, []).append(name)
    history = [
        {
            "code": r.game.code,
            "ruleset": RULESETS[r.ruleset].label,
            "finished_at": r.finished_at,
            "players": names.get(r.game_id, []),
            "rank": r.rank,
            "of": r.players,
            "score": r.score,
            "exact": not RULESETS[r.ruleset].colours,
        }
        for r in rows
    ]
    return {
        "person": user,
        "public": profile.public if profile is not None else True,
        "own": own,
        "stats": standings,
        "games": games,
        "history": history,
    }


class _Counted:
    """A queryset the paginator slices, with its length given instead of counted."""

    def __init__(self, queryset: Any, count: int) -> None:
        self.queryset, self._count = queryset, count

    def count(self) -> int:
        return self._count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, item: Any) -> Any:
        return self.queryset[item]


def leaderboard(*, ruleset: str) -> dict[str, Any]:
    """The top accounts of a rule set by rating and by accuracy (public profiles, MIN_GAMES games or more)."""
    if ruleset not in RULESETS:
        raise Http404("No such rule set.")
    shown = Standing.objects.filter(ruleset=ruleset, user__profile__public=True).select_related("user")
    by_rating = list(shown.filter(rated__gte=MIN_GAMES).order_by("-ordinal", "user_id")[:LEADERBOARD_SIZE])
    exact = not RULESETS[ruleset].colours
    by_accuracy = (
        list(
            shown.filter(reviewed__gte=MIN_GAMES, accuracy__isnull=False).order_by("accuracy", "user_id")[
                :LEADERBOARD_SIZE
            ]
        )
        if exact
        else []
    )
    return {
        "ruleset": RULESETS[ruleset],
        "rulesets": list(RULESETS.values()),
        "exact": exact,
        "min_games": MIN_GAMES,
        "by_rating": [
            {"rank": i, "name": s.user.username, "rating": s.ordinal, "mu": s.mu, "sigma": s.sigma, "games": s.rated}
            for i, s in enumerate(by_rating, start=1)
        ],
        "by_accuracy": [
            {"rank": i, "name": s.user.username, "accuracy": s.accuracy, "games": s.reviewed}
            for i, s in enumerate(by_accuracy, start=1)
        ],
    }


def profile_settings(*, user_id: int) -> Profile | None:
    return Profile.objects.filter(user_id=user_id).first()

"""Reads for the accounts pages: a profile with its stats and a page of games, and the leaderboards.

Each is a fixed number of queries whatever the number of games (the stats are kept up to
date in Standing rows as games finish; a page of history is one indexed range).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any
from urllib.parse import quote

from django.contrib.auth import get_user_model
from django.core.paginator import Page, Paginator
from django.db.models import Q
from django.http import Http404
from django.utils import formats, timezone
from django.utils.functional import lazy
from django.utils.translation import gettext

import bots
from accounts.models import AccountName, GameRecord, HeldName, Profile, Standing
from accounts.validators import name_hold_keys, name_skeletons
from games.domain.rules import RULESETS
from games.store.models import Game
from games.store.selectors import places

PAGE_SIZE = 20
LEADERBOARD_SIZE = 100
MIN_GAMES = 5  # rated (or reviewed) games before an account is listed on a leaderboard
# The rating players see: the OpenSkill ordinal (mu - 3 sigma, which starts at 0 and swings
# by a few points a game) on the familiar scale that starts at 1500, one starting sigma
# (25/3) being 200 points. Until MIN_GAMES rated games it is shown as provisional: the first
# games move it most, and a first loss put a bare "-1.8" on the page that read as a penalty.
RATING_START = 1500
RATING_PER_POINT = 24


def name_held(name: str) -> bool:
    """Whether ``name``, or one that reads as it, was an account's deleted too lately to be taken again."""
    return HeldName.objects.filter(key__in=name_hold_keys(name), until__gt=timezone.now()).exists()


def name_owners(name: str) -> set[int]:
    """The accounts whose names read as ``name``: one lookup of its skeletons, the name's and its
    name's in capitals (accounts.models.AccountName), not a scan of the names; more than one only
    for names that read alike from before names were compared so."""
    keys = name_skeletons(name)
    found = AccountName.objects.filter(Q(skeleton__in=keys) | Q(capitals__in=keys))
    return set(found.values_list("user_id", flat=True))


def exact(ruleset: str) -> bool:
    """Whether the coach's points lost are exact for ``ruleset``, so an accuracy figure exists: not
    for Painted Yahtzee (no solver) nor Triple Yahtzee (estimates: ``bots.exact``)."""
    return bots.exact(RULESETS[ruleset])


def _rating_tip() -> str:
    return gettext(
        "Skill from online games against other account holders. Everyone starts at %(start)s; "
        "finishing above other players raises it and below them lowers it, most when the result is a "
        "surprise. It is provisional for the first %(games)s rated games, while it settles."
    ) % {"start": RATING_START, "games": MIN_GAMES}


# In the language of the page that shows it.
RATING_TIP = lazy(_rating_tip, str)()


def shown_rating(ordinal: float) -> int:
    """The rating a player sees for an OpenSkill ordinal: 0 (a new account) is 1500."""
    return round(RATING_START + RATING_PER_POINT * ordinal)


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
    rating: int | None  # on the players' scale (shown_rating); None: no rated game yet
    rated: int

    @property
    def provisional(self) -> bool:
        """Fewer than MIN_GAMES rated games: the page says "provisional", not a number."""
        return self.rated < MIN_GAMES


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
        exact=exact(s.ruleset),
        rating=shown_rating(s.ordinal) if s.rated else None,
        rated=s.rated,
    )


def account_named(username: str) -> Any:
    """The account (with its profile) called ``username`` in any case, as signing in and up take
    names ("Annabel" signs in as "annabel", and "ANNABEL" is taken); None if there is none.

    The exact spelling first, on the column's unique index; the case-blind match only for a
    name spelled otherwise."""
    if not username.isprintable():  # a NUL, which PostgreSQL's text refuses, is in no username
        return None
    users = get_user_model().objects.select_related("profile")
    found = users.filter(username=username).first()
    if found is None:
        found = users.filter(username__iexact=username).order_by("pk").first()
    return found


def profile_page(*, username: str, viewer_id: int | None, page: object) -> dict[str, Any]:
    """The profile of ``username`` as ``viewer_id`` may see it (Http404 for a private one not theirs)."""
    user = account_named(username)
    if user is None:
        raise Http404("No such player.")
    profile = getattr(user, "profile", None)
    own = viewer_id == user.pk
    # An account staff deactivated is off the site as if private: nobody signs in to it any more.
    if not own and (profile is None or not profile.public or not user.is_active):
        raise Http404("No such player.")
    standings = [_stats(s) for s in Standing.objects.filter(user=user, games__gt=0).order_by("-games", "ruleset")]
    total = sum(s.games for s in standings)
    records = (
        GameRecord.objects.filter(user=user)
        .order_by("-finished_at", "-id")
        .values_list("game_id", "game__code", "ruleset", "finished_at", "rank", "players", "score")
    )
    # The count is known from the standings: the paginator needs no COUNT(*) over the history.
    paginator: Paginator[Any] = Paginator(_Counted(records, total), PAGE_SIZE)  # type: ignore[arg-type]  # a sized, sliceable list
    games: Page[Any] = paginator.get_page(page)  # type: ignore[arg-type]  # get_page takes any value, as a page number or not
    rows = list(games.object_list)
    # Each seat's place and points, as Your games lists a finished game (``places``): from the rooms,
    # one query for the page.
    rooms = Game.objects.only("snapshot").in_bulk([r[0] for r in rows])
    history = [
        {
            "url": replay_url(code),
            "ruleset": RULESETS[ruleset].label,
            "ruleset_name": ruleset,  # the page words it in its reader's language
            "finished_at": finished_at,
            "players": places(rooms[game_id].room) if game_id in rooms else [],
            "rank": gettext("%(rank)s of %(players)s") % {"rank": rank, "players": seats},
            "score": str(score),
            "exact": exact(ruleset),
        }
        for game_id, code, ruleset, finished_at, rank, seats, score in rows
    ]
    return {
        "person": user,
        "public": profile.public if profile is not None else True,
        "own": own,
        "stats": standings,
        "min_games": MIN_GAMES,
        "rating_tip": RATING_TIP,
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


def leaderboard(*, ruleset: str, viewer_id: int | None = None) -> dict[str, Any]:
    """The top accounts of a rule set by rating and by accuracy (public profiles of active accounts,
    MIN_GAMES games or more). The viewer's own row is marked in a board's top; a viewer listed
    below it gets their row and place under it (``mine_by_rating``, ``mine_by_accuracy``)."""
    if ruleset not in RULESETS:
        raise Http404("No such rule set.")
    # Public profiles only, of accounts still in use (one staff deactivated is off the site).
    shown = Standing.objects.filter(ruleset=ruleset, user__profile__public=True, user__is_active=True)
    rating_listed = shown.filter(rated__gte=MIN_GAMES)
    by_rating = rating_listed.order_by("-ordinal", "user_id").values_list(
        "user_id", "user__username", "ordinal", "rated"
    )[:LEADERBOARD_SIZE]
    exact_figures = exact(ruleset)
    accuracy_listed = shown.filter(reviewed__gte=MIN_GAMES, accuracy__isnull=False)
    by_accuracy = accuracy_listed.order_by("accuracy", "user_id").values_list(
        "user_id", "user__username", "accuracy", "reviewed"
    )[:LEADERBOARD_SIZE]
    # Rows of ready strings: a template's number formatting and {% url %} on 200 rows cost
    # more than the queries (bench/accounts.py).
    rating_rows = _rows(((u, name, shown_rating(value), games) for u, name, value, games in by_rating), viewer_id)
    accuracy_rows = _rows(by_accuracy, viewer_id) if exact_figures else []
    mine_by_rating = mine_by_accuracy = None
    mine = shown.select_related("user").filter(user_id=viewer_id).first() if viewer_id is not None else None
    if mine is not None and mine.rated >= MIN_GAMES and not any(row["you"] for row in rating_rows):
        rating = shown_rating(mine.ordinal)
        # Every account whose rating reads higher is above; those that read the same share the place.
        above = rating_listed.filter(ordinal__gte=(rating + 0.5 - RATING_START) / RATING_PER_POINT).count()
        mine_by_rating = _row(above + 1, mine.user_id, viewer_id, mine.user.get_username(), rating, mine.rated)
    if (
        exact_figures
        and mine is not None
        and mine.accuracy is not None
        and mine.reviewed >= MIN_GAMES
        and not any(row["you"] for row in accuracy_rows)
    ):
        # Every account whose figure reads lower is above (halves read up: exactly 0.05 less reads the same).
        above = accuracy_listed.filter(accuracy__lt=float(_tenths(mine.accuracy)) - 0.05).count()
        name = mine.user.get_username()
        mine_by_accuracy = _row(above + 1, mine.user_id, viewer_id, name, mine.accuracy, mine.reviewed)
    return {
        "ruleset": RULESETS[ruleset],
        "rulesets": list(RULESETS.values()),
        "exact": exact_figures,
        "min_games": MIN_GAMES,
        "rating_start": RATING_START,
        "rating_tip": RATING_TIP,
        "by_rating": rating_rows,
        "by_accuracy": accuracy_rows,
        "mine_by_rating": mine_by_rating,
        "mine_by_accuracy": mine_by_accuracy,
    }


def _tenths(value: float) -> Decimal:
    """Points lost to the nearest tenth, halves up, as the profile's ``floatformat`` shows them
    (``number_format`` alone cuts a float's digits off: 2.96 would read 2.9)."""
    return Decimal(repr(value)).quantize(Decimal("0.1"), ROUND_HALF_UP)


def _shown(value: float | int) -> str:
    """A rating (whole) as it is, points lost to a tenth in the reader's language."""
    return str(value) if isinstance(value, int) else formats.number_format(_tenths(value), 1)


def _row(place: int, user_id: int, viewer_id: int | None, name: str, value: float | int, games: int) -> dict[str, Any]:
    return {
        "rank": str(place),
        "name": name,
        "url": profile_url(name),
        "value": _shown(value),
        "games": str(games),
        "you": user_id == viewer_id,
    }


def _rows(found: Any, viewer_id: int | None = None) -> list[dict[str, Any]]:
    """Leaderboard rows, from (account id, name, value, games) in the board's order.

    A whole-number value (a rating) is shown whole, points lost to a tenth. Rows that show the
    same value share a place and the next place counts them all (1, 1, 3): two ratings a
    hundredth of a point apart read as a tie, so they rank as one. The account's id only keeps
    the order of a tie stable, it ranks nobody above an equal. The viewer's own row is marked.
    """
    rows = []
    place, last = 0, None
    for i, (user_id, name, value, games) in enumerate(found, start=1):
        row = _row(i, user_id, viewer_id, name, value, games)
        if i == 1 or row["value"] != last:
            place, last = i, row["value"]
        rows.append({**row, "rank": str(place)})
    return rows


def profile_url(username: str) -> str:
    return f"/u/{quote(username)}/"


def replay_url(code: str) -> str:
    return f"/r/{quote(code)}/replay"


def profile_settings(*, user_id: int) -> Profile | None:
    return Profile.objects.filter(user_id=user_id).first()


def profile_language(*, user_id: int) -> str:
    """The account's chosen language, or "" when it has none yet."""
    return Profile.objects.filter(user_id=user_id).values_list("language", flat=True).first() or ""

"""Data only: a player's profile, each finished game as it counts for a seat, the standings per rule set."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.store.models import RULESET_CHOICES, Game, Player


class Profile(models.Model):
    """What an account adds to a user: whether others may see it, and the token its seats answer to."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    # Shown to everyone and listed on the leaderboards; a private profile is its owner's only.
    public = models.BooleanField(default=True)
    # The controller token of the account's seats: every browser signed in to the account
    # plays with it, so the account's seats are playable from any of them.
    controller = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The site's language for this player (settings.LANGUAGES), applied wherever they sign in;
    # empty until they pick one with the switcher (the browser's language is used until then).
    language = models.CharField(max_length=8, blank=True, default="", db_default="", choices=settings.LANGUAGES)

    def __str__(self) -> str:
        return f"{self.user} ({'public' if self.public else 'private'})"


class CountedGame(models.Model):
    """A finished game that has been counted (records, standings, ratings): one row, so only once."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="+")
    rated = models.BooleanField(default=False)
    counted_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.game_id} counted{' and rated' if self.rated else ''}"


class GameRecord(models.Model):
    """One person's seat in one finished game, as the profile lists it and the stats add it up."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="+")
    # Null until the seat's browser signs in to an account (or after the account is deleted).
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    ruleset = models.CharField(max_length=16, choices=RULESET_CHOICES)
    finished_at = models.DateTimeField()
    players = models.PositiveSmallIntegerField()
    rank = models.PositiveSmallIntegerField()  # 1 = won (ties share a rank)
    score = models.IntegerField()
    upper_bonus = models.BooleanField(default=False)
    yahtzee = models.BooleanField(default=False)  # scored at least one five of a kind (50 in the box)
    # Expected points lost against perfect play (the coach's review); null without an exact solver.
    lost = models.FloatField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "-finished_at", "-id"], name="record_user_recent")]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.game_id}: {self.score} (rank {self.rank})"


class Standing(models.Model):
    """An account's running totals and rating in one rule set: the profile's stats and the leaderboards read it."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="standings")
    ruleset = models.CharField(max_length=16, choices=RULESET_CHOICES)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    score_sum = models.BigIntegerField(default=0)
    best = models.IntegerField(default=0)
    bonuses = models.PositiveIntegerField(default=0)
    yahtzees = models.PositiveIntegerField(default=0)
    reviewed = models.PositiveIntegerField(default=0)  # games with a points-lost figure
    lost_sum = models.FloatField(default=0.0)
    accuracy = models.FloatField(null=True, blank=True)  # lost_sum / reviewed: mean points lost a game
    # OpenSkill (Plackett-Luce): mu, sigma and the ordinal mu - 3 sigma the leaderboard sorts by.
    mu = models.FloatField(default=25.0)
    sigma = models.FloatField(default=25.0 / 3)
    ordinal = models.FloatField(default=0.0)
    rated = models.PositiveIntegerField(default=0)  # rated games

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "ruleset"], name="one_standing_per_ruleset")]
        indexes = [
            models.Index(fields=["ruleset", "-ordinal"], name="standing_rating"),
            models.Index(fields=["ruleset", "accuracy"], name="standing_accuracy"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.ruleset}: {self.games} games, ordinal {self.ordinal:.2f}"


class HeldName(models.Model):
    """The name of an account deleted lately, which nobody may sign up with until ``until``: else
    anyone could take a just-deleted friend's name and be read as them. Kept as a keyed hash of
    the name as names are compared (``accounts.validators.name_hold_key``), not the name itself."""

    key = models.CharField(max_length=64, primary_key=True)
    until = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"a name held until {self.until:%Y-%m-%d %H:%M}"


class AccountName(models.Model):
    """An account's name as names are compared (``accounts.validators.name_skeletons``: its skeleton,
    and its skeleton in capitals), written with every save of its user (accounts.receivers). Each
    unique, so that two names that read alike, or one name in two cases, never make two
    accounts, however close together they are signed up or renamed: the database refuses the
    second. (The skeleton alone is not the same in every case: the Greek small "ν" is drawn as a
    "v", its capital as an "N".)

    Two accounts whose names read alike from before names were compared so keep them both: the
    later one is marked ``reads_as_older`` and left out of the constraint. Its skeleton is still
    stored, so a new name that reads as either is refused even once the older account is gone.
    (A null skeleton for the later one would leave its name free to a third account then.)"""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="account_name"
    )
    skeleton = models.TextField(db_index=True)
    # Null in a row the release before wrote while an upgrade ran, until the next name check fills
    # it in (accounts.services.account_names_complete). Null, not "": the unique constraint would
    # take every "" for one name.
    capitals = models.TextField(null=True, blank=True, db_index=True)  # noqa: DJ001
    reads_as_older = models.BooleanField(default=False, db_default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["skeleton"], condition=models.Q(reads_as_older=False), name="one_account_a_name"
            ),
            models.UniqueConstraint(
                fields=["capitals"], condition=models.Q(reads_as_older=False), name="one_account_a_name_in_capitals"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} reads as {self.skeleton}"

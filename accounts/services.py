"""The only code that changes accounts' data: profiles, a browser's seats joining an account,
counting a finished game (history, stats, rating) exactly once, and deleting an account.

Game state itself is changed only through ``games.services`` (a seat's controller, a
withdrawn name), under each game's row lock and with a Move, like every other action.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Count, FloatField, Max, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Cast
from django.utils import timezone
from openskill.models import PlackettLuce

import bots
from accounts.models import AccountName, CountedGame, GameRecord, HeldName, Profile, Standing
from accounts.selectors import exact, name_owners
from accounts.validators import name_hold_capitals_key, name_hold_key, name_skeletons
from games import services
from games.domain.protocol import TIMER_ID_PREFIX
from games.domain.rules import RULESETS, Box, RuleViolation
from games.services import coach
from games.store.models import Game, HintTaken, Move, Player

log = logging.getLogger(__name__)
MODEL = PlackettLuce()
STANDING_FIELDS = ["games", "wins", "score_sum", "best", "bonuses", "yahtzees", "reviewed", "lost_sum", "accuracy"]
STANDING_FIELDS += ["mu", "sigma", "ordinal", "rated"]
# A win is a first place over somebody: a game played alone is first of one, and beats nobody.
WON = Q(rank=1, players__gt=1)


def profile_for(user_id: int) -> Profile:
    """The account's profile, made on first need with its own seat token."""
    profile, _ = Profile.objects.get_or_create(user_id=user_id, defaults={"controller": services.new_controller()})
    return profile


def profile_set_public(*, user_id: int, public: bool) -> None:
    Profile.objects.filter(pk=profile_for(user_id).pk).update(public=public)


def profile_set_language(*, user_id: int, language: str) -> None:
    """The language the account's pages are shown in (one of settings.LANGUAGES)."""
    if language not in dict(settings.LANGUAGES):
        raise ValueError(f"not a language of the site: {language!r}")
    with transaction.atomic():
        Profile.objects.filter(pk=profile_for(user_id).pk).update(language=language)
        services.notices_language_set(user_id=user_id, language=language)  # the notices' e-mails and pushes too


def account_claim(*, user_id: int, controller: str) -> str:
    """A browser signs in: its seats become the account's; returns the token the browser plays with from now on.

    The account's own seat in each game gets the account, with its record in a finished game,
    and its stats are added up again. In an online game that is the browser's first seat, unless
    the account has one there already (then that one is marked as its own: the browser's seats
    are about to share its token); in a pass-and-play game, where one browser plays every seat,
    the seat the room was made with (its host's, while the host has not left). In every game all
    the browser's seats move to the account's token (``games.services.seats_hand_over``), so every
    browser signed in to the account plays them, and asks for a finished one's rematch.
    """
    profile = profile_for(user_id)
    if not controller or controller == profile.controller:
        return profile.controller
    ids = _claimable(user_id=user_id, controller=controller, token=profile.controller)
    if ids:
        Player.objects.filter(pk__in=ids).update(user_id=user_id)
        if GameRecord.objects.filter(player_id__in=ids, user__isnull=True).update(user_id=user_id):
            standings_rebuild(user_id=user_id)
    services.seats_hand_over(controller=controller, to=profile.controller)
    services.push_hand_over(controller=controller, to=profile.controller, user_id=user_id, language=profile.language)
    return profile.controller


def _held_by(controller: str) -> Q:
    """The seats a browser's token is the person of: played by it, or by a computer while it is
    away or after it left (the seat's result is still that person's, ranked as a seat that left)."""
    return (
        Q(controller=controller, kind=Player.Kind.HUMAN) | Q(away_controller=controller) | Q(left_controller=controller)
    )


def _first_of_each_game(seats: QuerySet[Player]) -> dict[int, int]:
    """The first of ``seats`` in each game, in seat order: game id -> Player id."""
    first: dict[int, int] = {}
    for game_id, pk in seats.order_by("game", "seat", "pk").values_list("game", "pk"):
        first.setdefault(game_id, pk)
    return first


def _claimable(*, user_id: int, controller: str, token: str) -> list[int]:
    """The seats that become the account's own when a browser (``controller``) signs in to it: one
    a game, the one its record is.

    As when a game is counted (``_count``), an account is one player in an online game: the
    browser's first seat. Its other seats there are companions' at its device, whose results
    are not the account's. In a game where the account has a seat already it keeps that one:
    one marked as its own, else the first its token (``token``) holds, which a browser signed
    in to it took. That one is marked now, since the browser's seats are about to move to the
    same token, and could then no longer be told from it. A seat a computer finished for its
    away player, or played on after its player left, is that player's (its record ranks it as
    a seat that left): neither letting the clock run out nor leaving keeps a losing game off
    the account. A row that left the lobby is in no seat of the game: nobody's record.
    """
    seated = Player.objects.filter(seat__isnull=False)
    marked = seated.filter(user_id=user_id).values("game")
    browser = seated.filter(_held_by(controller)).exclude(game__in=marked)
    kept = seated.filter(_held_by(token), game__local=False, game__in=browser.values("game")).exclude(game__in=marked)
    mine = browser.filter(Q(game__local=False) | Q(pk=_first_seat), user__isnull=True).exclude(
        game__in=kept.values("game")
    )
    return [*_first_of_each_game(kept).values(), *_first_of_each_game(mine).values()]


def standings_rebuild(*, user_id: int) -> None:
    """Add up an account's records again, per rule set (after a claim); ratings are kept. Locks its Standing rows."""
    totals = (
        GameRecord.objects.filter(user_id=user_id)
        .values("ruleset")
        .annotate(
            n=Count("id"),
            won=Count("id", filter=WON),
            total=Sum("score"),
            top=Max("score"),
            bonus=Count("id", filter=Q(upper_bonus=True)),
            fives=Count("id", filter=Q(yahtzee=True)),
            judged=Count("id", filter=Q(lost__isnull=False)),
            lost_total=Sum(Cast("lost", FloatField())),
        )
    )
    with transaction.atomic():
        list(Standing.objects.select_for_update().filter(user_id=user_id))
        for row in totals:
            judged = row["judged"]
            Standing.objects.update_or_create(
                user_id=user_id,
                ruleset=row["ruleset"],
                defaults={
                    "games": row["n"],
                    "wins": row["won"],
                    "score_sum": row["total"] or 0,
                    "best": row["top"] or 0,
                    "bonuses": row["bonus"],
                    "yahtzees": row["fives"],
                    "reviewed": judged,
                    "lost_sum": row["lost_total"] or 0.0,
                    "accuracy": (row["lost_total"] or 0.0) / judged if judged else None,
                },
            )


# The seat a room was made with (its first Player row): in a pass-and-play game, the account's own.
# Not the host's: the host role moves on when its seat leaves, to another person's seat.
_first_seat = Subquery(Player.objects.filter(game=OuterRef("game")).order_by("pk").values("pk")[:1])


def _losses(game: Game) -> list[float | None] | None:
    """The coach's expected points lost per seat, or None (no exact solver, or its table is not built)."""
    if not exact(game.ruleset) or not bots.ready(RULESETS[game.ruleset]):
        return None  # a fresh install still building its tables: this game gets no figure
    try:
        review = coach.review(game)
    except RuleViolation:
        log.warning("no review of %s yet: its accuracy is left out", game.code)
        return None
    # A seat some of whose choices the turn timer or a computer made, whose player left, or that
    # asked the coach, did not play the whole game on its own: its points lost would pass for that.
    helped = set(HintTaken.objects.filter(game=game).values_list("player_id", flat=True)) | {
        player
        for player, action_id, actor in Move.objects.filter(
            game=game, kind__in=(Move.Kind.ROLL, Move.Kind.SCORE), player__isnull=False
        ).values_list("player_id", "action_id", "actor")
        if action_id.startswith(TIMER_ID_PREFIX) or actor.startswith("bot:")
    }
    seats = game.room.seats
    return [
        None if seats[i].player in helped or not seats[i].active or not seats[i].human else seat["lost"]
        for i, seat in enumerate(review["seats"])
    ]


def _played(game: Game) -> set[int]:
    """The seats (Player ids) whose person rolled or scored at least once themselves: not the turn
    timer, not a computer."""
    own = (
        Move.objects.filter(game=game, kind__in=(Move.Kind.ROLL, Move.Kind.SCORE), player__isnull=False)
        .exclude(action_id__startswith=TIMER_ID_PREFIX)
        .exclude(actor__startswith="bot:")
    )
    return set(own.values_list("player_id", flat=True).distinct())


def _computer_helped(game: Game) -> set[int]:
    """The seats (Player ids) a computer rolled or scored for while their person was away."""
    helped = Move.objects.filter(
        game=game, kind__in=(Move.Kind.ROLL, Move.Kind.SCORE), player__isnull=False, actor__startswith="bot:"
    )
    return set(helped.values_list("player_id", flat=True).distinct())


def game_count(*, game_id: int) -> bool:
    """Count a finished game once: a record per person's seat, their standings, and the rating.

    One transaction that starts by inserting the game's CountedGame row (its primary key is
    the game): a second attempt, from this process or another, fails on that row and
    changes nothing, so the rating moves exactly once. Returns whether this call counted it.
    The coach's review is worked out before the transaction (it is the slow part).
    """
    game = Game.objects.get(pk=game_id)
    if game.status != Game.Status.FINISHED or CountedGame.objects.filter(game_id=game_id).exists():
        return False
    losses = _losses(game)
    try:
        with transaction.atomic():
            counted = CountedGame.objects.create(game=game)
            _count(game, counted, losses)
    except IntegrityError:
        return False
    return True


def _count(game: Game, counted: CountedGame, losses: list[float | None] | None) -> None:
    room = game.room
    seats = room.seats
    state = room.rules
    if state is None:
        return
    scores = [state.totals(i).grand_total for i in range(len(seats))]
    # A seat a computer finished for its away person, or played on after its person left, is that
    # person's, ranked after the seats that stayed (Room.ranks, as the replay and the admin's
    # review show it); a computer that sat down as one keeps its place by its score: losing to it
    # is a loss.
    people = [s.controller if s.human else s.away_controller or s.left_controller for s in seats]
    ranks = room.ranks()
    players = {p.pk: p for p in Player.objects.filter(game=game)}
    owners = dict(Profile.objects.filter(controller__in=[c for c in people if c]).values_list("controller", "user_id"))
    first_seat = min(players) if players else None
    # A seat marked as an account's own (at sign-in) is its record, even where the account's token
    # plays an earlier seat: a browser signing in brings all its seats, a friend's included, under
    # that token.
    marked = {players[s.player].user_id for s in seats} - {None}
    records = []
    accounts_seated: set[int] = set()
    for index, seat in enumerate(seats):
        player = players[seat.player]
        if not people[index]:
            continue  # a computer's seat is nobody's record
        user_id = player.user_id
        if user_id is None and (not game.local or player.pk == first_seat):
            user_id = owners.get(people[index])
            if user_id in marked:
                user_id = None  # the account's own seat is another: this one is a companion's
        if user_id is not None and not game.local:
            # An account is one player: its first seat. Another seat of the same browser is a
            # companion's at its device (or a second seat taken to win twice): nobody's record.
            if user_id in accounts_seated:
                user_id = None
            else:
                accounts_seated.add(user_id)
        if user_id is not None and player.user_id is None:
            Player.objects.filter(pk=player.pk).update(user_id=user_id)  # the account's own seat, from now on
        card = state.cards[index]
        records.append(
            GameRecord(
                game=game,
                player=player,
                user_id=user_id,
                ruleset=game.ruleset,
                finished_at=game.finished_at or game.created_at,
                players=len(seats),
                rank=ranks[index],
                score=scores[index],
                upper_bonus=state.totals(index).upper_bonus > 0,
                yahtzee=any(col.get(Box.YAHTZEE, 0) > 0 for col in card.as_columns()),
                lost=losses[index] if losses is not None and seat.human else None,
            )
        )
    GameRecord.objects.bulk_create(records)
    mine = [(r, r.user_id) for r in records if r.user_id is not None]
    if not mine:
        return
    users = sorted({user_id for _, user_id in mine})
    Standing.objects.bulk_create(
        [Standing(user_id=u, ruleset=game.ruleset) for u in users], ignore_conflicts=True
    )  # then locked in user order, so two games ending at once cannot deadlock
    standings = {
        s.user_id: s
        for s in Standing.objects.select_for_update()
        .filter(user_id__in=users, ruleset=game.ruleset)
        .order_by("user_id")
    }
    for r, user_id in mine:
        s = standings[user_id]
        s.games += 1
        s.wins += r.rank == 1 and r.players > 1
        s.score_sum += r.score
        s.best = max(s.best, r.score) if s.games > 1 else r.score
        s.bonuses += r.upper_bonus
        s.yahtzees += r.yahtzee
        if r.lost is not None:
            s.reviewed += 1
            s.lost_sum += r.lost
            s.accuracy = s.lost_sum / s.reviewed
    if not game.local:
        # One entry per account (its first seat: above): at least two people to rate. A seat whose
        # person never played a turn of it (a rematch they did not follow, a game they never came
        # back to: the turn timer and a computer played it, or it was taken out) says nothing of
        # their skill, and a win over it nothing of the others'.
        played = _played(game)
        best = {user_id: r.rank for r, user_id in mine if r.player_id in played}
        # Where every one of them went away or left, computers played the game out for them: who of
        # those scored more says nothing of the players, so no rating moves. A game every person
        # left ended as the last left (nobody played it out): who gave it up first lost it.
        stayed = {seat.player for i, seat in enumerate(seats) if not seat.given_up and not room.finished_for(i)}
        someone_stayed = any(r.player_id in stayed for r, user_id in mine if user_id in best)
        if len(best) >= 2 and (someone_stayed or room.deserted()):
            order = sorted(best)
            teams = [[MODEL.rating(mu=standings[u].mu, sigma=standings[u].sigma)] for u in order]
            rated = MODEL.rate(teams, ranks=[float(best[u]) for u in order])
            # A computer's turns are not its person's play: a seat one played some of may lose by
            # the result but gains nothing from it (else a friend, or a second account, as host
            # could hand an away player's seat to the strongest computer and give it back for
            # the last turn). Its opponents are rated as against anyone: losing to it is a loss.
            helped = _computer_helped(game)
            seat_of = {user_id: r.player_id for r, user_id in mine}
            for u, [rating] in zip(order, rated, strict=True):
                s = standings[u]
                if not (seat_of[u] in helped and rating.ordinal() > s.ordinal):
                    s.mu, s.sigma, s.ordinal = rating.mu, rating.sigma, rating.ordinal()
                s.rated += 1
            counted.rated = True
            counted.save(update_fields=["rated"])
    Standing.objects.bulk_update(
        standings.values(),
        [
            "games",
            "wins",
            "score_sum",
            "best",
            "bonuses",
            "yahtzees",
            "reviewed",
            "lost_sum",
            "accuracy",
            "mu",
            "sigma",
            "ordinal",
            "rated",
        ],
    )


def account_delete(*, user: AbstractBaseUser) -> None:
    """Delete an account: its games stay, its seats shown as "Former player", its live seats left.

    The forgetting itself is ``account_forget``, which runs before any deletion of a user
    (accounts.receivers), the admin's included.
    """
    get_user_model().objects.filter(pk=user.pk).delete()


def failures_forgive(*, username: str, ip: str | None) -> None:
    """The sign-in lockout's failed attempts on ``username`` from ``ip`` are forgotten (its owner signed in)."""
    from axes.models import AccessAttempt

    if ip:
        AccessAttempt.objects.filter(ip_address=ip, username__iexact=username).delete()


def account_forget(*, user_id: int, username: str) -> None:
    """What an account leaves behind is withdrawn: its name on every seat that was its own (a seat
    a computer took over while its player was away, or played on after its player left, included),
    in its games' logs and notices, and in the sign-in log; its seats in live games are left.

    Its own seat is one a game, as its records have it: in an online game the one marked as its own,
    else the first its token holds; in a pass-and-play game the seat the room was made with. The
    others its browsers held are the people's who shared its device: they keep their names. A row
    that left a lobby cannot be told from its own, and is withdrawn with it.
    """
    profile = Profile.objects.filter(user_id=user_id).first()
    token = profile.controller if profile is not None else ""
    own = set(Player.objects.filter(user_id=user_id).values_list("pk", flat=True))
    if token:
        held = Player.objects.filter(_held_by(token))
        marked = Player.objects.filter(user_id=user_id, seat__isnull=False).values("game")
        seated = held.filter(Q(game__local=False, seat__isnull=False) | Q(pk=_first_seat)).exclude(game__in=marked)
        own |= set(_first_of_each_game(seated).values())
        own |= set(held.filter(game__local=False, seat__isnull=True).values_list("pk", flat=True))
    services.seats_forget(controller=token, player_ids=sorted(own))
    name_hold(username=username)
    from axes.models import AccessAttempt, AccessFailureLog, AccessLog  # the sign-in log: names and addresses

    for model in (AccessAttempt, AccessFailureLog, AccessLog):
        model.objects.filter(username__iexact=username).delete()  # as typed: signing in takes any case


def name_hold(*, username: str) -> None:
    """Nobody may sign up as a deleted account's name, or one that reads as it, for
    ``DELETED_NAME_HOLD_DAYS``; the holds that are over go meanwhile (deletions are few)."""
    now = timezone.now()
    HeldName.objects.filter(until__lte=now).delete()
    if settings.DELETED_NAME_HOLD_DAYS > 0:
        until = now + timedelta(days=settings.DELETED_NAME_HOLD_DAYS)
        for key in {name_hold_key(username), name_hold_capitals_key(username)}:
            HeldName.objects.update_or_create(key=key, defaults={"until": until})


def games_count_missing() -> int:
    """Count every finished game that was not counted yet; returns how many this call counted."""
    missing = Game.objects.filter(status=Game.Status.FINISHED).exclude(pk__in=CountedGame.objects.values("game_id"))
    return sum(game_count(game_id=pk) for pk in missing.order_by("finished_at").values_list("pk", flat=True))


class NameTaken(IntegrityError):
    """A user about to be saved under a name that reads as another account's (accounts.models.AccountName)."""


def account_name_check(*, user_id: int | None, username: str) -> bool:
    """Before a user is saved: raises NameTaken if ``username`` reads as another account's name; returns
    whether it reads as the account's own (its stored skeleton stays as it is). The check the
    forms made may be a moment old, and a save outside a transaction (a shell's) cannot be undone
    after the unique constraint refuses its name: this refuses it before anything is written."""
    account_names_complete()
    owners = name_owners(username)
    if user_id is not None and user_id in owners:
        return True
    if owners:
        raise NameTaken(f"{username!r} reads as another account's name")
    return False


def account_name_keep(*, user_id: int, username: str) -> None:
    """After a user is saved: its name's skeleton, stored. The database refuses (IntegrityError) one
    that another account has, in the transaction that saved the user, which then undoes the save."""
    skeleton, capitals = name_skeletons(username)
    stored = AccountName.objects.filter(user_id=user_id)
    if not stored.update(skeleton=skeleton, capitals=capitals, reads_as_older=False):
        AccountName.objects.create(user_id=user_id, skeleton=skeleton, capitals=capitals)


# How many of the newest accounts each name check completes (account_names_complete).
NEWEST_ACCOUNTS = 1000


def account_names_complete() -> int:
    """Stores the names, as names are compared, of the accounts a process of the release before
    made while an upgrade ran (no AccountName row) or saved (a row without its name in capitals),
    so that they hold their names without being saved again; returns how many rows it wrote.
    Called before every name check, it finds none but in those minutes. It looks among the newest
    accounts only (``NEWEST_ACCOUNTS``, by their ids, which the database gives in order): an
    account the release before made is among them at the next check, which comes with the next
    sign-up, and a look among them is a few index reads where one over every account would read
    the whole user table at each sign-up.

    Such an account whose name reads as another's, made meanwhile, keeps its name, marked
    ``reads_as_older`` as the migrations mark the accounts made before names were compared. A row
    another check wrote or took first is left to the next call."""
    written = 0
    accounts = get_user_model().objects
    since = (accounts.aggregate(newest=Max("pk"))["newest"] or 0) - NEWEST_ACCOUNTS
    users = accounts.filter(pk__gt=since, account_name__isnull=True).order_by("pk")
    for pk, username in users.values_list("pk", "username"):
        skeleton, capitals = name_skeletons(username)
        taken = AccountName.objects.filter(Q(skeleton=skeleton) | Q(capitals=capitals), reads_as_older=False)
        try:
            with transaction.atomic():
                AccountName.objects.create(
                    user_id=pk, skeleton=skeleton, capitals=capitals, reads_as_older=taken.exists()
                )
        except IntegrityError:
            continue
        written += 1
    partial = AccountName.objects.filter(user_id__gt=since, capitals__isnull=True).order_by("user_id")
    for pk, username, older in partial.values_list("user_id", "user__username", "reads_as_older"):
        capitals = name_skeletons(username)[1]
        taken = AccountName.objects.filter(capitals=capitals, reads_as_older=False).exclude(user_id=pk)
        try:
            with transaction.atomic():
                filled = AccountName.objects.filter(user_id=pk, capitals__isnull=True)
                written += filled.update(capitals=capitals, reads_as_older=older or taken.exists())
        except IntegrityError:
            continue
    return written

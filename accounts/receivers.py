"""Where the accounts app listens: a sign-in (the browser's seats join the account), a sign-out, a
password change, an account deleted, and a finished game."""

from __future__ import annotations

import logging
from typing import Any

from allauth.core import context
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.db.models.signals import post_save, pre_delete, pre_save
from django.dispatch import receiver
from django.http import HttpRequest

from accounts import selectors, services
from accounts.middleware import ACCOUNT_LANGUAGE
from games import services as games_services
from games.realtime.limits import login_ip
from games.services import presence
from games.services.signals import game_finished
from games.store.models import Game

log = logging.getLogger(__name__)


@receiver(user_logged_in, dispatch_uid="accounts-claim")
def claim_on_sign_in(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    """The browser's seats become the account's, and the browser plays with the account's token from now on."""
    if request is None or not hasattr(request, "session"):
        return
    request.session["controller"] = services.account_claim(
        user_id=user.pk, controller=request.session.get("controller", "")
    )
    presence.browser_mark(request.session)  # kept from before, if the browser had seats: its sockets carry it


@receiver(user_logged_in, dispatch_uid="accounts-language")
def language_on_sign_in(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    """The pages speak the account's language from now on; an account without one takes the language
    this browser chose with the switcher (its cookie), if any."""
    if request is None or not hasattr(request, "session"):
        return
    language = selectors.profile_language(user_id=user.pk)
    chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
    if not language and chosen in dict(settings.LANGUAGES):
        services.profile_set_language(user_id=user.pk, language=chosen)
        language = chosen
    if language:
        request.session[ACCOUNT_LANGUAGE] = language


@receiver(game_finished, dispatch_uid="accounts-count")
def count_finished_game(sender: Any, game: Game, **kwargs: Any) -> None:
    """Count the game for its players. Sent by the scheduler's follow-ups (games.scheduling),
    in a thread of their own, until it succeeds; counting twice is refused (CountedGame)."""
    services.game_count(game_id=game.pk)


@receiver(pre_delete, sender=get_user_model(), dispatch_uid="accounts-forget")
def forget_on_delete(sender: Any, instance: Any, **kwargs: Any) -> None:
    """However an account is deleted (its own settings page, the admin, a shell), its name goes first."""
    services.account_forget(user_id=instance.pk, username=instance.get_username())


@receiver(user_logged_out, dispatch_uid="accounts-push-sign-out")
def pushes_off_on_sign_out(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    """The pushes this browser subscribed to stop telling it of the account's turns (a shared device)."""
    if user is None or request is None or not hasattr(request, "session"):
        return
    games_services.push_sign_out(user_id=user.pk, endpoints=request.session.get(games_services.SESSION_ENDPOINTS, []))


@receiver(user_logged_out, dispatch_uid="accounts-sockets-sign-out")
def sockets_off_on_sign_out(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    """This browser's open room sockets stop counting as the account's (the session is about to be
    flushed): its seats are away in the rooms unless another browser of the account is there."""
    if request is None or not hasattr(request, "session"):
        return
    session = request.session
    controller, browser = session.get("controller", ""), session.get(presence.SESSION_BROWSER, "")
    # The stored session ends first (its data stays in memory for the flush and the other
    # receivers): a room tab connects again as soon as its room hears of this, sending the
    # session's cookie until this answer reaches the browser, and must find it signed out then,
    # not play the account's seats until it next acts.
    if session.session_key:
        session.delete()
    presence.signed_out(controller, browser)


@receiver(pre_save, sender=get_user_model(), dispatch_uid="accounts-name-check")
def check_name(sender: Any, instance: Any, raw: bool = False, update_fields: Any = None, **kwargs: Any) -> None:
    """However a user is saved (a sign-up, the admin, a shell), a name that reads as another account's
    is refused (services.NameTaken) before it is written; a save that leaves the name out (a
    sign-in's ``last_login``) is not looked at."""
    instance._name_unchanged = (update_fields is not None and "username" not in update_fields) or (
        not raw and services.account_name_check(user_id=instance.pk, username=instance.get_username())
    )


@receiver(post_save, sender=get_user_model(), dispatch_uid="accounts-name-keep")
def keep_name(sender: Any, instance: Any, **kwargs: Any) -> None:
    """The account's name as names are compared is stored with it (accounts.models.AccountName);
    not on a fixture's raw save (``loaddata``), whose AccountName rows come with it (and may mark a
    name that reads as an older account's)."""
    if kwargs.get("raw"):
        return
    if not getattr(instance, "_name_unchanged", False):
        services.account_name_keep(user_id=instance.pk, username=instance.get_username())


@receiver(pre_save, sender=get_user_model(), dispatch_uid="accounts-password-change-seen")
def see_password_change(
    sender: Any, instance: Any, raw: bool = False, update_fields: Any = None, **kwargs: Any
) -> None:
    """Whether this save changes the account's password hash (read by ``pushes_off_on_password_change``).

    Compared with the stored hash, so that however the password is changed (its own page, the
    admin, ``changepassword``, a shell) it counts; a save that names its fields without the
    password (a sign-in's ``last_login``) is not looked at.
    """
    if raw or instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return
    stored = sender.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    instance._password_changed = stored is not None and stored != instance.password


@receiver(post_save, sender=get_user_model(), dispatch_uid="accounts-password-change-pushes")
def pushes_off_on_password_change(sender: Any, instance: Any, **kwargs: Any) -> None:
    """A new password signs out every browser signed in to the account but the one that changed it
    (the session's auth hash no longer matches), and no sign-out runs in them: their pushes stop
    here, but those the changing browser subscribed to (its session's list)."""
    if not getattr(instance, "_password_changed", False):
        return
    instance._password_changed = False
    request = context.request
    keep: list[str] = []
    # The account's own browser changing it (its page, or a staff member's own in the admin) stays signed in.
    if request is not None and hasattr(request, "session") and getattr(request, "user", None) == instance:
        keep = request.session.get(games_services.SESSION_ENDPOINTS, [])
    games_services.push_password_changed(user_id=instance.pk, keep=keep)


@receiver(user_logged_in, dispatch_uid="accounts-forgive-own-typos")
def forgive_own_failures(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    """A player's own mistyped passwords from this address are forgiven once they sign in; the
    address's failures on other names still count toward its lockout."""
    if request is None:
        return
    services.failures_forgive(username=user.get_username(), ip=login_ip(request))

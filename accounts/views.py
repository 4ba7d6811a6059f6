"""Pages: a profile, the leaderboards, the account's own settings. Thin over selectors and services.

The sign-up, sign-in, password and passkey pages are django-allauth's (in the site's look:
templates/allauth/layouts/base.html).
"""

from __future__ import annotations

import math
from typing import Any

from allauth.account.views import SignupView
from allauth.mfa.webauthn.views import ReauthenticateWebAuthnView as AllauthReauthenticateWebAuthnView
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import authenticate, logout
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, ngettext
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django.views.i18n import set_language as django_set_language

from accounts import selectors, services
from accounts.forms import DeleteAccountForm, PrivacyForm
from accounts.middleware import ACCOUNT_LANGUAGE
from games import services as games_services
from games.web.errorpages import too_many_json, wants_json


class SignUpView(SignupView):  # type: ignore[misc]  # allauth is untyped
    """allauth's sign-up, the account made in one transaction with its name's skeleton
    (accounts.models.AccountName). Two names that read alike sent at one moment both pass the
    form's check; the database then refuses the second account and undoes it, and its form,
    checked again, says the name is taken as the check would have."""

    def form_valid(self, form: Any) -> HttpResponse:
        try:
            with transaction.atomic():
                response: HttpResponse = super().form_valid(form)
                return response
        except IntegrityError:
            form.full_clean()
            if form.is_valid():  # refused for something else than its name
                raise
            return self.form_invalid(form)  # type: ignore[no-any-return]


class ReauthenticateWebAuthnView(AllauthReauthenticateWebAuthnView):  # type: ignore[misc]  # allauth is untyped
    """allauth's "Confirm it is you" with a passkey, which sends a passkey that could not be checked
    to the sign-in page's redirect (the account's home for a player signed in), its error a message
    there, away from the change that asked. The page is shown again instead: the error by the form,
    a new challenge to try again with, and the page that asked (``next``) still the one to go to."""

    refused: Any = None

    def form_invalid(self, form: Any) -> HttpResponse:
        self.refused = form
        return self.render_to_response(self.get_context_data())  # type: ignore[no-any-return]

    def get_form(self, form_class: Any = None) -> Any:
        # allauth's context asks for the form anew: the refused one, with its errors, is the one shown.
        return self.refused if self.refused is not None else super().get_form(form_class)


def signed_in(request: HttpRequest) -> AbstractBaseUser:
    """The signed-in user of a ``login_required`` page (never the anonymous one)."""
    user = request.user
    if not isinstance(user, AbstractBaseUser) or user.pk is None:
        raise PermissionDenied
    return user


@require_safe
def profile(request: HttpRequest, username: str) -> HttpResponse:
    viewer = request.user.pk if request.user.is_authenticated else None
    context = selectors.profile_page(username=username, viewer_id=viewer, page=request.GET.get("page"))
    spelled = context["person"].get_username()
    if spelled != username:  # the name in another case: the page is at the account's own spelling
        return redirect(selectors.profile_url(spelled) + (f"?{request.GET.urlencode()}" if request.GET else ""))
    return render(request, "accounts/profile.html", context)


@require_safe  # before the sign-in's redirect: a post is no visit of one's profile
@login_required
def profile_me(request: HttpRequest) -> HttpResponse:
    return redirect("profile", username=request.user.get_username())


@require_safe
def leaderboards(request: HttpRequest) -> HttpResponse:
    return redirect("leaderboard", ruleset="official")


@require_safe
def leaderboard(request: HttpRequest, ruleset: str) -> HttpResponse:
    viewer = request.user.pk if request.user.is_authenticated else None
    return render(request, "accounts/leaderboard.html", selectors.leaderboard(ruleset=ruleset, viewer_id=viewer))


@require_http_methods(["GET", "HEAD", "POST"])  # before the sign-in's redirect, as /me's
@login_required
@sensitive_post_parameters("password")
def settings_page(request: HttpRequest) -> HttpResponse:
    """Whether the profile is public, and deleting the account (with the password to confirm)."""
    profile = selectors.profile_settings(user_id=signed_in(request).pk)
    privacy = PrivacyForm(initial={"public": profile.public if profile is not None else True})
    delete = DeleteAccountForm()
    status = 200
    if request.method == "POST":
        if request.POST.get("action") == "privacy":
            privacy = PrivacyForm(request.POST)
            if privacy.is_valid():
                services.profile_set_public(user_id=signed_in(request).pk, public=privacy.cleaned_data["public"])
                messages.success(request, gettext("Saved."))
                return redirect("profile_settings")
            status = 400
        elif request.POST.get("action") == "delete":
            delete = DeleteAccountForm(request.POST)
            user = signed_in(request)
            # Checked as a sign-in is, through django-axes: wrong passwords count against the
            # address, and a locked-out address is refused (its page replaces this one).
            if delete.is_valid() and confirmed(request, user, delete.cleaned_data["password"]):
                logout(request)
                services.account_delete(user=user)
                return redirect("account_deleted")
            if delete.is_valid():
                delete.add_error("password", gettext("That is not your password."))
            status = 400
        else:
            status = 400
    context = {"privacy": privacy, "delete": delete, "name_hold_days": settings.DELETED_NAME_HOLD_DAYS}
    return render(request, "accounts/settings.html", context, status=status)


def lockout(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    """django-axes' answer to a locked-out address (AXES_LOCKOUT_CALLABLE): its page and status, and a
    Retry-After, as the site's other 429s have: the cool-off, since each password tried meanwhile
    starts it again. A script that asks for JSON gets the site's JSON 429 with the same words."""
    from axes.conf import settings as axes_settings
    from axes.helpers import get_cool_off, get_failure_limit

    cool_off = get_cool_off(request)
    seconds = math.ceil(cool_off.total_seconds()) if cool_off else None
    sentence = lockout_words(get_failure_limit(request, credentials), seconds)
    if wants_json(request):
        # The site's 429 for scripts, whatever status axes is set to answer pages with.
        return too_many_json(sentence, seconds)
    response = render(request, "lockout.html", {"sentence": sentence}, status=axes_settings.AXES_HTTP_RESPONSE_CODE)
    if seconds is not None:
        response["Retry-After"] = str(seconds)
    return response


def lockout_words(failure_limit: int, seconds: int | None) -> str:
    """What a locked-out address is told: the failures that locked it out and, when the lockout ends,
    the wait in minutes, each begun counted (never a shorter wait than its Retry-After)."""
    if seconds is None:
        return gettext(
            "After %(failure_limit)s wrong passwords from your address, passwords from it are refused: "
            "signing in, and confirming an account's deletion. Please wait, then try again."
        ) % {"failure_limit": failure_limit}
    minutes = math.ceil(seconds / 60)
    return ngettext(
        "After %(failure_limit)s wrong passwords from your address, passwords from it are refused for "
        "%(minutes)s minute: signing in, and confirming an account's deletion. Please wait, then try again.",
        "After %(failure_limit)s wrong passwords from your address, passwords from it are refused for "
        "%(minutes)s minutes: signing in, and confirming an account's deletion. Please wait, then try again.",
        minutes,
    ) % {"failure_limit": failure_limit, "minutes": minutes}


def confirmed(request: HttpRequest, user: AbstractBaseUser, password: str) -> bool:
    """Whether ``password`` is ``user``'s, checked through the sign-in's lockout."""
    found = authenticate(request, username=user.get_username(), password=password)
    return found is not None and found.pk == user.pk


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """The language switcher: Django's own view (the cookie, then back to the page), and the
    notices' language (turns, games' ends): for a signed-in player the account's, so every browser they
    sign in from uses it; without an account, this browser's pushes."""
    response = django_set_language(request)
    language = request.POST.get("language", "")
    if language not in dict(settings.LANGUAGES):
        return response
    if request.user.is_authenticated:
        services.profile_set_language(user_id=signed_in(request).pk, language=language)
        request.session[ACCOUNT_LANGUAGE] = language
    else:
        games_services.notices_language_set(controller=request.session.get("controller", ""), language=language)
    return response


@require_safe
def account_deleted(request: HttpRequest) -> HttpResponse:
    """Where deleting an account ends: it says so, and what became of the games."""
    if request.user.is_authenticated:  # someone signed in has an account: theirs is not deleted
        return redirect("profile_me")
    return render(request, "accounts/deleted.html")


@require_safe
def password_reset(request: HttpRequest) -> HttpResponse:
    """Forgotten password: what to do, since there is no address to mail a link to (a post is refused)."""
    return render(request, "account/password_reset.html")

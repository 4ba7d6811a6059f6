from allauth.account import urls as allauth_account_urls
from django.urls import URLPattern, URLResolver, include, path

from accounts import views
from games.realtime.limits import LANGUAGE
from games.web.limits import limited

# allauth's e-mail pages (add an address, make it primary, verify it) are not served: with no
# verification they would let any account claim any address, and the address "your turn"
# e-mails go to is set and confirmed on the site's own page (/games, games.services.subscriptions).
# Left out, allauth's name for them no longer resolves, so its middleware leaves /accounts/
# itself a plain 404 instead of sending a signed-in player to them.
ALLAUTH_EMAIL_VIEWS = {"account_email", "account_email_verification_sent", "account_confirm_email"}
# Nor its password reset by mail: accounts have no address, and with allauth's defaults a posted
# address that is nobody's is still mailed ("someone asked for a reset"), so anyone could have
# the site mail anyone. The page that says what to do instead answers at its address.
ALLAUTH_RESET_VIEWS = {
    "account_reset_password",
    "account_reset_password_done",
    "account_reset_password_from_key",
    "account_reset_password_from_key_done",
}
# The sign-up makes the account in one transaction with its name's skeleton, and says a name the
# database refused is taken (accounts.views.SignUpView).
allauth_pages: list[URLPattern | URLResolver] = [
    path(str(p.pattern), views.SignUpView.as_view(), name=p.name)
    if isinstance(p, URLPattern) and p.name == "account_signup"
    else p
    for p in allauth_account_urls.urlpatterns
    if getattr(p, "name", None) not in ALLAUTH_EMAIL_VIEWS | ALLAUTH_RESET_VIEWS
]

urlpatterns = [
    path("accounts/password/reset/", views.password_reset, name="account_reset_password"),
    path("accounts/", include(allauth_pages)),
    path(
        "accounts/2fa/webauthn/reauthenticate/",
        views.ReauthenticateWebAuthnView.as_view(),
        name="mfa_reauthenticate_webauthn",
    ),
    path("accounts/2fa/", include("allauth.mfa.urls")),  # passkeys
    # Each switch stores a language (the account's, or this browser's notices'): limited per client.
    path("i18n/language", limited(LANGUAGE)(views.set_language), name="set_language"),
    path("me", views.profile_me, name="profile_me"),
    path("me/settings", views.settings_page, name="profile_settings"),
    path("me/deleted", views.account_deleted, name="account_deleted"),
    path("u/<str:username>/", views.profile, name="profile"),
    path("leaderboards", views.leaderboards, name="leaderboards"),
    path("leaderboards/<str:ruleset>", views.leaderboard, name="leaderboard"),
]

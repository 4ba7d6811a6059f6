from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path
from django.views.decorators.http import require_safe
from django.views.generic.base import RedirectView

from games.realtime.routes import where
from yahtzee.health import healthz

# Staff sign in where everyone does: allauth's sign-in asks an account with a passkey for it
# (and is locked out per address like the rest); Django's admin form would take the password
# alone, and its session is signed in on the whole site. Set before ``admin.site.urls`` is read.
admin.site.login = secure_admin_login(admin.site.login)  # type: ignore[method-assign]


def admin_password_change(request: HttpRequest, extra_context: object = None) -> HttpResponse:
    """The admin's *Change password* is the site's own form, which checks the current password as a
    sign-in is (through the lockout) and ends the account's other sessions; Django's checks it
    with ``check_password`` alone, so a staff session left open could guess without limit."""
    return redirect("account_change_password")


admin.site.password_change = admin_password_change  # type: ignore[method-assign,assignment]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    # A room's socket address asked over HTTP: which worker the proxy sends it to (games.realtime.routes).
    path("ws/rooms/<str:code>/", where, name="room-route"),
    # Browsers and crawlers ask for /favicon.ico whatever the page's <link> says. A GET or a HEAD, as
    # every page: a RedirectView would redirect a post too.
    path("favicon.ico", require_safe(RedirectView.as_view(url=static("favicon.svg"), permanent=True)), name="favicon"),
    path("", include("accounts.urls")),
    path("", include("games.web.urls")),
]

# Error pages in the site's style (games/web/errorpages.py); CSRF failures: settings.CSRF_FAILURE_VIEW.
handler400 = "games.web.errorpages.bad_request"
handler403 = "games.web.errorpages.permission_denied"
handler404 = "games.web.errorpages.page_not_found"
handler500 = "games.web.errorpages.server_error"
# Not Django's: allauth's rate limits (sign-in, sign-up, passwords) answer with this one.
handler429 = "games.web.errorpages.too_many_requests"

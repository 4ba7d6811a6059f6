"""Settings, all from the environment.

With nothing set this is the embedded default: SQLite (WAL) in ./var and the in-memory
channel layer, which is what ``make run`` serves. ``DATABASE_URL`` and ``REDIS_URL``
switch to PostgreSQL and Redis for production and for several server processes.
"""

from __future__ import annotations

import os
import sys
import warnings
from datetime import timedelta
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from yahtzee.prepare import data_dir, secret_key, vapid_private_key

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def envint(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    try:
        return int(value) if value.strip() else default
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a whole number.") from None


def envdays(name: str, default: int) -> int:
    value = envint(name, default)
    if value < 0:
        raise ImproperlyConfigured(f"{name}={value} is a number of days: 0 (keep for ever) or more.")
    return value


def envlist(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DATA_DIR = data_dir()
# From the environment, else DATA_DIR/secret_key, which ``python -m yahtzee.prepare`` makes
# once (``make run`` runs it): importing the settings writes nothing. With neither, the
# settings still load (checks, migrations, tests) and the server refuses to start
# (yahtzee/asgi.py) rather than sign sessions with an empty key.
SECRET_KEY = secret_key(DATA_DIR)
# Several workers need one shared key (yahtzee/checks.py warns when Redis is set without it).
SECRET_KEY_FROM_ENV = bool(os.environ.get("SECRET_KEY"))
DEBUG = envbool("DEBUG", False)
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")
CSRF_FAILURE_VIEW = "games.web.errorpages.csrf_failure"
SITE_NAME = os.environ.get("SITE_NAME", "Yahtzee Rooms")

# Daphne's app makes `manage.py runserver` serve the ASGI application (websockets included)
# with Daphne. It imports Twisted and installs its reactor, about 0.2 s of CPU at every start
# of every process (a worker, a manage.py command), so it is installed for runserver (and testserver) alone:
# the workers serve with uvicorn (yahtzee/serve.py), and the daphne command needs no app.
_DAPHNE_SERVES = sys.argv[1:2] in (["runserver"], ["testserver"])  # testserver runs runserver
INSTALLED_APPS = [
    *(["daphne"] if _DAPHNE_SERVES else []),  # first, so that runserver is Daphne
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "axes",  # login lockout (below)
    "allauth",
    "allauth.account",
    "allauth.mfa",  # passkeys (WebAuthn)
    # The background tasks (e-mail and Web Push notices): Django's Tasks framework, built in
    # from Django 6 and the django-tasks backport before it, with django-tasks-db's queue.
    *([] if find_spec("django.tasks") else ["django_tasks"]),
    "django_tasks_db",
    "games",
    "accounts",
]

MIDDLEWARE = [
    # Pages, JSON and the static files WhiteNoise serves go out compressed when the browser
    # accepts it (behind Caddy, which compresses too, it is a no-op: already encoded). The
    # CSRF token in a page is masked per response, Django's answer to BREACH.
    "django.middleware.gzip.GZipMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Outside everything that may answer a page (error pages too); after WhiteNoise, whose
    # static files need no policy.
    "csp.middleware.CSPMiddleware",
    "games.web.errorpages.ErrorPageMiddleware",  # an empty 4xx/5xx (a bare 405) gets the site's page
    "django.contrib.sessions.middleware.SessionMiddleware",
    "games.web.head.HeadChangesNothing",  # a HEAD saves no session, and its body not made has no length
    # The page's language: the language cookie (the switcher's), else Accept-Language.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "games.web.middleware.DatabaseUnavailableMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.AccountLanguageMiddleware",  # a signed-in player's language is the account's
    "allauth.account.middleware.AccountMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a lockout into its page
]

# Content-Security-Policy (django-csp): every page runs only the site's own script files and
# style sheets. No inline <script>, no inline event handler (onclick=...), no eval, no style
# attribute in markup (the pages' code sets styles through the CSSOM, which the policy
# allows); data blocks (<script type="application/json">) are not run, so they need nothing.
# 'self' covers the room's websocket on the same host. tests/e2e/test_csp.py opens every kind
# of page and fails on any violation.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# Login lockout (django-axes), for the admin's and the players' sign-in alike: after
# AXES_FAILURE_LIMIT wrong passwords from one address, that address's logins are refused
# for AXES_COOLOFF_MINUTES, right passwords included. The failures are rows in the database
# (shared by every server process, listed in the admin); a successful login clears the count.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AXES_FAILURE_LIMIT = envint("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=envint("AXES_COOLOFF_MINUTES", 15))
# Per address only, never per username: a stranger failing on someone's name from many
# addresses must not lock its owner out (allauth's login limit below is per address too).
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
# A sign-in forgives only its own name's failures from its address (accounts.receivers), not
# the address's: else guesses at someone's password, each fourth followed by a sign-in to an
# account of one's own, would never lock the address out. The rest age out over the cool-off.
AXES_RESET_ON_SUCCESS = False
AXES_CLIENT_IP_CALLABLE = "games.realtime.limits.login_ip"  # X-Real-IP only behind the proxy
AXES_LOCKOUT_CALLABLE = "accounts.views.lockout"  # templates/lockout.html (JSON to a script), with a Retry-After

# Optional accounts (django-allauth; docs/accounts.md): a username and a password, and passkeys
# (WebAuthn) to sign in with. allauth asks for no e-mail address and sends no e-mail (the turn
# e-mails confirm their own address: games/services/subscriptions.py), so an administrator
# resets a forgotten password (the admin, or `manage.py changepassword NAME`).
ACCOUNT_ADAPTER = "accounts.adapters.AccountAdapter"  # account names in one form of their letters (NFKC)
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_FORMS = {"change_password": "accounts.forms.ChangePasswordForm"}  # the current password through axes
ACCOUNT_SIGNUP_FIELDS = ["username*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_USERNAME_MIN_LENGTH = 3
ACCOUNT_USERNAME_VALIDATORS = "accounts.validators.username_validators"  # no letter that shows nothing
ACCOUNT_SESSION_REMEMBER = True
ACCOUNT_LOGOUT_REDIRECT_URL = "/"
LOGIN_REDIRECT_URL = "profile_me"
LOGIN_URL = "account_login"
# allauth's own sign-in limits count per address only: its default also refuses a username
# for 5 minutes after 5 wrong passwords from anywhere, which let a stranger lock its owner
# out. Wrong passwords per address are django-axes' (above). The address is the one the
# proxy names, as for every other limit (games/realtime/limits.py client_ip). Sign-ups keep
# allauth's 20 a minute per address, and at most 100 a day: each account holds its name and
# every name that reads as it, which one address could otherwise take by the ten thousand.
ACCOUNT_RATE_LIMITS = {"login_failed": "10/m/ip", "signup": "20/m/ip,100/d/ip"}
ALLAUTH_TRUSTED_CLIENT_IP_HEADER = "X-Real-IP" if envbool("BEHIND_PROXY", False) else None
MFA_SUPPORTED_TYPES = ["webauthn"]
# A new passkey is named after its browser and device; one that could not be checked is not an "Incorrect code."
MFA_ADAPTER = "accounts.adapters.MFAAdapter"
# A passkey's button pressed without script posts no passkey: each of its forms says passkeys need
# JavaScript; a credential that is not a passkey's answer is refused as a passkey that could not be
# checked. A passkey's name is refused past a length (accounts.forms.PASSKEY_NAME_MAX).
MFA_FORMS = {
    "login_webauthn": "accounts.forms.LoginWebAuthnForm",
    "reauthenticate_webauthn": "accounts.forms.ReauthenticateWebAuthnForm",
    "add_webauthn": "accounts.forms.AddWebAuthnForm",
    "edit_webauthn": "accounts.forms.EditWebAuthnForm",  # a name at most as long as a new one's
    "authenticate_webauthn": "accounts.forms.AuthenticateWebAuthnForm",
}
MFA_PASSKEY_LOGIN_ENABLED = True
MFA_ALLOW_UNVERIFIED_EMAIL = True  # there is no email to verify
# WebAuthn needs HTTPS, except on localhost (the browsers' own rule): plain HTTP is allowed
# unless the site says it is served over HTTPS.
MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = envbool("WEBAUTHN_ALLOW_INSECURE_ORIGIN", not envbool("HTTPS", False))

ROOT_URLCONF = "yahtzee.urls"
# The games app keeps its schema with its models, in the store layer (games/store/).
MIGRATION_MODULES = {"games": "games.store.migrations"}
ASGI_APPLICATION = "yahtzee.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.web.context_processors.site",
            ],
        },
    },
]


def sqlite_database(path: Path) -> dj_database_url.DBConfig:
    """The embedded default: one SQLite file in WAL mode."""
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(path),
        "OPTIONS": {
            # WAL lets readers go on while a move is written; IMMEDIATE takes the write
            # lock when a transaction starts, the SQLite stand-in for select_for_update.
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        },
        # Kept open (per thread): closing the last connection to a WAL database
        # checkpoints it, a disk sync that every action would pay if it closed its own.
        "CONN_MAX_AGE": envint("DB_CONN_MAX_AGE", 600),
    }


# Database: SQLite in WAL mode unless DATABASE_URL names another.
if os.environ.get("DATABASE_URL"):
    DATABASES = {
        "default": dj_database_url.parse(
            os.environ["DATABASE_URL"],
            # Kept by the few threads that run websocket actions (yahtzee/postgresql closes the
            # page-request threads' own): at 0 every action would open a new PostgreSQL
            # connection, a server process forked for it, costing more than the action (compose: 60 too).
            conn_max_age=envint("DB_CONN_MAX_AGE", 60),
            conn_health_checks=True,
        )
    }
    # The password on its own: any characters, where the URL's would have to be percent-encoded
    # (a '/', '+', '#' or '?' of a generated one breaks the URL). Compose passes POSTGRES_PASSWORD here.
    if os.environ.get("DATABASE_PASSWORD"):
        DATABASES["default"]["PASSWORD"] = os.environ["DATABASE_PASSWORD"]
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # The same backend, checking a kept connection's health only after a quiet second.
        DATABASES["default"]["ENGINE"] = "yahtzee.postgresql"
        # A transaction left open with nobody working in it (a bug) would hold its room's row
        # lock for ever: PostgreSQL ends such a session after this many seconds (0: never).
        idle = envint("DB_IDLE_IN_TRANSACTION_TIMEOUT", 60)
        DATABASES["default"].setdefault("OPTIONS", {})["options"] = f"-c idle_in_transaction_session_timeout={idle}s"
else:
    DATABASES = {"default": sqlite_database(DATA_DIR / "yahtzee.sqlite3")}
# Threads per process that run websocket actions side by side (PostgreSQL only; SQLite has
# one writer and uses one thread). Each keeps a database connection. docs/performance.md.
DB_THREADS = envint("DB_THREADS", 2)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Channel layer: Redis with REDIS_URL (pub/sub by default, CHANNEL_LAYER=core for the
# list-based layer), else in-memory for the single embedded process.
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    if os.environ.get("CHANNEL_LAYER", "pubsub") == "core":
        CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {
                    "hosts": [{"address": REDIS_URL, "max_connections": envint("REDIS_MAX_CONNECTIONS", 1000)}],
                    # The default 100 drops broadcasts silently under bursts.
                    "capacity": envint("CHANNEL_CAPACITY", 5000),
                    "expiry": 30,
                },
            }
        }
    else:
        CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "games.realtime.layers.ResubscribingPubSubChannelLayer",
                "CONFIG": {"hosts": [REDIS_URL]},
            }
        }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Websocket frames a second one socket may send before it is told off (and then closed); not
# turned off by RATE_LIMITS=0: load generators raise this one instead.
WS_RATE_LIMIT = envint("WS_RATE_LIMIT", 20)
# Fair shares of a worker (games/realtime/sockets.py, games/realtime/limits.py; docs/security.md), off with
# RATE_LIMITS=0 like the other limits: open sockets per address and per browser (0: no cap),
# new sockets and frames per address, hints per browser ("COUNT/SECONDS"); and how often a
# room's presence goes out, a ping is written, and rows of dead processes are swept.
WS_MAX_PER_ADDRESS = envint("WS_MAX_PER_ADDRESS", 100)
WS_MAX_PER_BROWSER = envint("WS_MAX_PER_BROWSER", 16)
WS_CONNECT_RATE = os.environ.get("WS_CONNECT_RATE", "60/10")  # new sockets per address
# Refusals per address per WS_CONNECT_RATE window that are clear (accepted, an error frame,
# close 4029); past them a handshake is refused before it is accepted (HTTP 403): games/realtime/gate.py.
WS_CLEAR_REFUSALS = envint("WS_CLEAR_REFUSALS", 10)
WS_FRAMES_PER_ADDRESS = envint("WS_FRAMES_PER_ADDRESS", 200)  # frames a second, all its sockets together
WS_HINT_RATE = os.environ.get("WS_HINT_RATE", "10/10")
PRESENCE_COALESCE = float(os.environ.get("PRESENCE_COALESCE") or 0.25)
PING_WRITE_SECONDS = float(os.environ.get("PING_WRITE_SECONDS") or 10)
PRESENCE_SWEEP_SECONDS = float(os.environ.get("PRESENCE_SWEEP_SECONDS") or 60)
# Bytes a websocket may have unsent before it is closed (4009) as too far behind, and the
# seconds it then has to read that close before its connection is cut (games/realtime/backlog.py).
WS_SEND_BACKLOG = envint("WS_SEND_BACKLOG", 256 * 1024)
WS_SEND_GRACE = float(os.environ.get("WS_SEND_GRACE") or 2)
# Chat messages and reactions one browser may send over all its sockets, "COUNT/SECONDS" ("off": no limit).
CHAT_RATE = os.environ.get("CHAT_RATE", "5/10")
REACTION_RATE = os.environ.get("REACTION_RATE", "5/10")
# Seconds a computer player waits before each of its actions, so people can follow.
BOT_DELAY = float(os.environ.get("BOT_DELAY") or 0.8)
# Seconds the host's seat must have been away (no socket) before the players at the table of a
# live game may use the host's tools that get a stuck game moving (games/services/presence.py);
# the room page waits as long before it offers them.
HOST_AWAY = float(os.environ.get("HOST_AWAY") or 15)
# Seconds every room page of a player must have been hidden (another tab in front, the phone's
# browser in the background) before the "your turn" notice and the reminder count them away
# from the table, as if no page were open (games/services/notices.py): a glance at another tab
# sends nothing.
HIDDEN_AWAY = float(os.environ.get("HIDDEN_AWAY") or 120)
# The turn timers a room may be created with, in seconds (0: none). Tests add a short one.
TURN_TIMER_CHOICES = [int(s) for s in envlist("TURN_TIMER_CHOICES", "0,30,60,120")]
# Build the coach's and the bots' missing solver tables when a server starts (games/store/tables.py),
# and how many seconds the game's review waits for a build under way before it answers 503.
BOT_TABLES_AT_START = envbool("BOT_TABLES_AT_START", True)
COACH_WAIT = float(os.environ.get("COACH_WAIT") or 30)
# The scheduler (games.scheduling): "all" sweeps for due rooms every SCHEDULER_POLL seconds
# and keeps timers for the rooms this process committed; "local" only the timers (web
# workers beside a `manage.py run_scheduler` process); "off" nothing. A gap of more than
# SCHEDULER_OUTAGE seconds (and of more than two sweeps) in which no process beat, on the
# database's clock, moves running turn deadlines on by it.
SCHEDULER = os.environ.get("SCHEDULER", "all")
try:
    SCHEDULER_POLL = float(os.environ.get("SCHEDULER_POLL") or 1.0)
except ValueError:
    SCHEDULER_POLL = float("nan")
# 0 or less would sweep with no pause at all: a beat and a claim over and over in every process.
if not 0 < SCHEDULER_POLL < float("inf"):
    raise ImproperlyConfigured(
        f"SCHEDULER_POLL={os.environ.get('SCHEDULER_POLL')!r} is a number of seconds, more than 0."
    )
SCHEDULER_OUTAGE = float(os.environ.get("SCHEDULER_OUTAGE") or 5.0)
# `manage.py scheduler_health` (compose's health check of the scheduler) fails once this host's
# scheduler that sweeps completed no round for this many polls.
try:
    _stale_polls = float(os.environ.get("SCHEDULER_STALE_POLLS") or 30)
except ValueError:
    _stale_polls = float("nan")
# 0 or less failed every health check of a scheduler that runs fine (its last round is always
# longer ago than that): its service shown unhealthy for ever, with no word of the setting.
if not (_stale_polls.is_integer() and _stale_polls > 0):
    raise ImproperlyConfigured(
        f"SCHEDULER_STALE_POLLS={os.environ.get('SCHEDULER_STALE_POLLS')!r} is a whole number of polls, more than 0."
    )
SCHEDULER_STALE_POLLS = int(_stale_polls)
# The sweeps (games/services/sweeps.py): what nothing will read again, deleted by the scheduler
# that sweeps (SCHEDULER=all) once every SWEEP_EVERY seconds across all the site's processes, in
# transactions of at most SWEEP_BATCH rows. ROOMS_NEVER_STARTED_DAYS: a room whose game never
# started, with no join, chat line, visit or other action for this many days; SIGN_IN_LOG_DAYS:
# django-axes' log of sign-ins (its attempts past the cool-off go at once); PUSH_FAILING_DAYS: a
# push subscription every push to which has failed for this long; PUSH_UNUSED_DAYS: one made this
# long ago that no account owns and whose browser holds no seat. 0 keeps that kind for ever.
# Finished games and their Move log are the site's history and never swept.
try:
    SWEEP_EVERY = float(os.environ.get("SWEEP_EVERY") or 3600)
except ValueError:
    SWEEP_EVERY = float("nan")
# 0 or less would sweep at every poll of the scheduler (each a scan of several tables).
if not 0 < SWEEP_EVERY < float("inf"):
    raise ImproperlyConfigured(f"SWEEP_EVERY={os.environ.get('SWEEP_EVERY')!r} is a number of seconds, more than 0.")
SWEEP_BATCH = max(1, envint("SWEEP_BATCH", 500))
ROOMS_NEVER_STARTED_DAYS = envdays("ROOMS_NEVER_STARTED_DAYS", 30)
SIGN_IN_LOG_DAYS = envdays("SIGN_IN_LOG_DAYS", 90)
PUSH_FAILING_DAYS = envdays("PUSH_FAILING_DAYS", 30)
PUSH_UNUSED_DAYS = envdays("PUSH_UNUSED_DAYS", 30)
# A deleted account's name (and every name that reads as it) cannot be signed up with for this
# many days, so nobody is read as a friend who just left; 0 frees it at once.
DELETED_NAME_HOLD_DAYS = envdays("DELETED_NAME_HOLD_DAYS", 90)
# What follows a finished game (records, stats, ratings) runs in the scheduler's thread;
# 1 runs it in the committing thread, right after the commit (the unit tests do).
FOLLOWUPS_INLINE = envbool("FOLLOWUPS_INLINE", False)

# Play at your own pace: the times per move a room may be created with, in seconds (0: none).
OWN_PACE_CHOICES = [int(s) for s in envlist("OWN_PACE_CHOICES", "0,86400,259200,604800")]

# The site's address as e-mails and push notices link to it (no trailing slash). Unset, a server
# started by yahtzee.serve (make run) sets it to the host and port it serves at.
SITE_URL = os.environ.get("SITE_URL", "http://localhost:8000").rstrip("/")
SITE_URL_FROM_ENV = bool(os.environ.get("SITE_URL"))  # yahtzee/checks.py says when it is not

# Background tasks (games/services/notices.py): queued in the database in the transaction of the
# move that owes them, run by `manage.py notice_worker` (compose's worker service) or by
# the server itself under `make run` (yahtzee/serve.py --task-worker).
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}

# E-mail: the console (the server's log) unless EMAIL_HOST names an SMTP server.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_PORT = envint("EMAIL_PORT", 587)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS", EMAIL_PORT == 587)
EMAIL_USE_SSL = envbool("EMAIL_USE_SSL", EMAIL_PORT == 465)
EMAIL_TIMEOUT = envint("EMAIL_TIMEOUT", 20)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Yahtzee Rooms <noreply@localhost>")

# Web Push: the VAPID key pair that signs every push (made once into DATA_DIR/vapid_private_key
# by `python -m yahtzee.prepare`, or VAPID_PRIVATE_KEY: the raw key, base64url), the contact
# push services may write to, and the push services' hosts the server sends to (a browser's
# subscription names its endpoint: anything else is refused, so it cannot aim the server at
# another address). A name matches itself and its subdomains.
VAPID_PRIVATE_KEY = vapid_private_key(DATA_DIR)
VAPID_SUBJECT = os.environ.get("VAPID_SUBJECT", "mailto:noreply@localhost")
PUSH_HOSTS = envlist(
    "PUSH_HOSTS",
    "fcm.googleapis.com,android.googleapis.com,push.services.mozilla.com,push.apple.com,notify.windows.com",
)
# Plain http:// endpoints (only the tests' stub push service on 127.0.0.1 needs it).
PUSH_ALLOW_HTTP = envbool("PUSH_ALLOW_HTTP", False)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

SESSION_ENGINE = "yahtzee.sessions"  # Django's database sessions, a key checked before it is looked up
SESSION_COOKIE_AGE = 60 * 60 * 24 * 365  # a browser keeps its seats for a year

# HTTPS=1: the site is reached over HTTPS only (TLS usually ends at the proxy in front).
# Cookies are then Secure, plain-HTTP requests are redirected, and browsers are told
# (HSTS) never to use plain HTTP for this host again. Each part can be set on its own.
HTTPS = envbool("HTTPS", False)
SESSION_COOKIE_SECURE = envbool("SECURE_COOKIES", not DEBUG and HTTPS)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# Behind a proxy, X-Forwarded-Proto says whether the browser used HTTPS and X-Real-IP who
# it is (the rate limits count per client). Only set it when a proxy overwrites both.
BEHIND_PROXY = envbool("BEHIND_PROXY", False)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if BEHIND_PROXY else None
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", HTTPS)
# Container healthchecks and the proxy's probes talk plain HTTP to a worker directly.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 60 * 60 * 24 * 365 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", True)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Cache: Redis with REDIS_URL (shared by every server process: allauth's own limits count in
# it, and the rate limits below in its Redis), else this process's memory. CACHE_URL picks
# another Redis for both.
CACHE_URL = os.environ.get("CACHE_URL", "") or REDIS_URL
# Deployments (and test servers) sharing one Redis keep their counters apart.
CACHE_KEY_PREFIX = os.environ.get("CACHE_KEY_PREFIX", f"yahtzee:{DATABASES['default'].get('NAME', '')}")
if CACHE_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": CACHE_KEY_PREFIX,
            # One connection pool for every thread, not a new connection per page request.
            "OPTIONS": {
                "socket_connect_timeout": 1,
                "socket_timeout": 1,
                "pool_class": "yahtzee.cache.SharedConnectionPool",
            },
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "yahtzee"}}

# Rate limits (games/realtime/limits.py: moving windows), as "COUNT/SECONDS"; "0" turns one off,
# RATE_LIMITS=0 all of them but WS_RATE_LIMIT, RATE_LIMIT_CONFIRMATION_MAILS and
# RATE_LIMIT_CONFIRMATION_MAILS_PER_ACCOUNT. Far above what a person does; a load generator's
# servers turn them off. Room creation and joins count per browser (its seats'
# session), and RATE_LIMIT_PER_IP times as many per IP address, a cap for everyone behind
# one address, so dropping cookies does not reset a client. The limits that must hold
# across server processes count in the cache's Redis, under the cache's key prefix.
RATE_LIMITS = envbool("RATE_LIMITS", True)
RATE_LIMIT_REDIS_URL = CACHE_URL
RATE_LIMIT_KEY_PREFIX = CACHE_KEY_PREFIX
RATE_LIMIT_ROOM_CREATE = os.environ.get("RATE_LIMIT_ROOM_CREATE", "10/60")
RATE_LIMIT_ROOM_JOIN = os.environ.get("RATE_LIMIT_ROOM_JOIN", "30/60")
# A refused form (a name left out, a choice no longer offered) counts here instead of against
# the limit of what it would have made: rooms, seats, notices.
RATE_LIMIT_REFUSED_FORMS = os.environ.get("RATE_LIMIT_REFUSED_FORMS", "60/60")
# Turning notices on or off (a push subscription, the e-mails and their address): Your games
# posts its browser's subscription once a visit.
RATE_LIMIT_NOTICES = os.environ.get("RATE_LIMIT_NOTICES", "20/60")
# The header's language switch: each switch stores the browser's (or the account's) language.
RATE_LIMIT_LANGUAGE = os.environ.get("RATE_LIMIT_LANGUAGE", "20/60")
# "Confirm your address" e-mails one address gets, whichever accounts ask (anyone may type in a
# stranger's address): counted per address, not per client, and held with RATE_LIMITS=0 too.
# The address is its mailbox: victim+1@ and victim+2@ are victim@'s.
RATE_LIMIT_CONFIRMATION_MAILS = os.environ.get("RATE_LIMIT_CONFIRMATION_MAILS", "3/86400")
# And the links one account may have sent, to whatever addresses (held with RATE_LIMITS=0 too).
RATE_LIMIT_CONFIRMATION_MAILS_PER_ACCOUNT = os.environ.get("RATE_LIMIT_CONFIRMATION_MAILS_PER_ACCOUNT", "5/86400")
# Looking up rooms that do not exist (guessing codes) is counted per IP address.
RATE_LIMIT_ROOM_MISS = os.environ.get("RATE_LIMIT_ROOM_MISS", "60/60")
RATE_LIMIT_PER_IP = envint("RATE_LIMIT_PER_IP", 10)
# Keeps one test's counters from another's (tests set it; nothing else needs to).
RATE_LIMIT_NAMESPACE = ""

# Give freed memory back to the system (glibc's malloc_trim) a few seconds after this many
# websockets closed, at most once per 5 s (games/realtime/memory.py); 0 never does.
MEMORY_TRIM_AFTER_CLOSES = envint("MEMORY_TRIM_AFTER_CLOSES", 50)

# BENCH_ENDPOINTS=1 adds /ws/bench/<room>/, a bare broadcast socket for bench/load.py.
BENCH_ENDPOINTS = envbool("BENCH_ENDPOINTS", False)

# The languages the site speaks (docs/translations.md): English is the source; every other
# catalog in locale/ is complete (tests/test_translations.py).
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("da", "Dansk"),
    ("sv", "Svenska"),
    ("de", "Deutsch"),
    ("fr", "Français"),
    ("es", "Español"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
# A year, as the seats' session: the switcher's choice outlives a browser restart.
LANGUAGE_COOKIE_AGE = 60 * 60 * 24 * 365
LANGUAGE_COOKIE_SAMESITE = "Lax"
LANGUAGE_COOKIE_SECURE = SESSION_COOKIE_SECURE
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", DATA_DIR / "static"))
STATICFILES_DIRS = [BASE_DIR / "static"]
# Without collectstatic (make run, tests) WhiteNoise serves straight from the finders, and
# its warning that STATIC_ROOT does not exist (only collectstatic makes it) is noise.
WHITENOISE_USE_FINDERS = envbool("WHITENOISE_USE_FINDERS", True)
if WHITENOISE_USE_FINDERS:
    warnings.filterwarnings("ignore", message="No directory at: ")


def static_cache_control(headers: Any, path: str, url: str) -> None:
    """The static files keep their names from one release to the next: a browser asks again each
    time (a 304 while unchanged), so a page never runs a module kept from the release before.
    deploy/Caddyfile says the same for the files it serves."""
    headers["Cache-Control"] = "no-cache"


WHITENOISE_ADD_HEADERS_FUNCTION = static_cache_control

# LOG_LEVEL in any case (uvicorn's own spelling is lower case; yahtzee/serve.py passes it on).
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_LEVEL = os.environ.get("LOG_LEVEL", "").strip().upper() or "INFO"
if LOG_LEVEL not in LOG_LEVELS:
    raise ImproperlyConfigured(f"LOG_LEVEL={LOG_LEVEL!r} is not a log level: one of {', '.join(LOG_LEVELS)}.")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # A line for every 404 and 429 (anyone guessing room codes) only from WARNING down: Django
    # logs them at WARNING, and its INFO and DEBUG lines here say nothing more.
    "loggers": {"django.request": {"level": max(LOG_LEVEL, "WARNING", key=LOG_LEVELS.index)}},
}

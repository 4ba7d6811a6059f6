"""Deploy checks (Django's check framework) for the traps an operator can fall into here.

- ``yahtzee.W001``: Redis is configured (so several workers share rooms) but ``SECRET_KEY``
  is not in the environment: each worker with its own data folder makes its own key,
  and a browser seated through one worker is a stranger to the next. A plain check, so
  ``migrate`` and every server start show it; Daphne's start logs it too (yahtzee/asgi.py).
- ``yahtzee.W002`` (``--deploy``): ``ALLOWED_HOSTS`` holds ``*``. Django's own deploy
  checks do not flag it. The websocket Origin check does not rely on it (games/realtime/origin.py),
  but Host-header attacks on the pages (links in mails, cache poisoning) do.
- ``yahtzee.W003`` (``--deploy``): ``CSRF_TRUSTED_ORIGINS`` entries without a scheme, or
  with a wildcard, which the Origin check cannot compare.
- ``yahtzee.W004`` (``--deploy``): ``DEBUG`` is on: error pages show settings and code.
- ``yahtzee.W005``: ``SECRET_KEY`` from the environment is a placeholder copied from an example
  (``PLACEHOLDER_KEYS``; ``.env.example`` leaves it empty, so compose refuses to start) or too
  weak to sign with (Django's own measure: under 50 characters or 5 distinct ones). A plain
  check, so every start logs it.
- ``yahtzee.W006``: ``VAPID_PRIVATE_KEY`` is set but cannot sign pushes (a placeholder, or not a
  P-256 private key): the site serves on with pushes off (games/services/notices.py). A plain
  check, so ``migrate`` and every start show it.
- ``yahtzee.W007`` (``--deploy``): ``SITE_URL`` is not an http(s) address at a name the site
  answers to (``ALLOWED_HOSTS``), or is not set (then it is http://localhost:8000). Every
  e-mail and push links to it: the room, *Your games*, the one-click stop, the address's
  confirmation.

- ``yahtzee.E001``: a rate limit's setting (``RATE_LIMIT_ROOM_MISS``, ``CHAT_RATE`` ...) that the
  limiter cannot read (games/realtime/limits.py ``Rate.parse``): every request it counts would
  fail. An error: ``migrate`` (compose's first step) and every other command stop on it, and a
  server refuses to start.

Every server process logs all of them when it starts (``check_at_start``), deploy checks
included, so an operator sees them without running ``check --deploy``; an error stops it.
What only shows between workers (different keys, several on the in-memory layer) is compared
when each starts serving (games.services.processes).
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.http.request import validate_host

log = logging.getLogger(__name__)


@checks.register("yahtzee")
def shared_secret_key(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    if settings.REDIS_URL and not settings.SECRET_KEY_FROM_ENV:
        return [
            checks.Warning(
                "SECRET_KEY is not set while REDIS_URL is: several workers share rooms, but each one that "
                "has its own DATA_DIR makes its own key, and a player seated through one worker is a "
                "stranger (a spectator) on the next.",
                hint="Set the same SECRET_KEY in every worker's environment (docs/deploy.md).",
                id="yahtzee.W001",
            )
        ]
    return []


# A placeholder an example may show (a published key signs anyone's sessions), and what Django's
# own deploy check calls too weak to sign with.
PLACEHOLDER_KEYS = ("replace-with-a-long-random-string",)


@checks.register("yahtzee")
def strong_secret_key(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    if not settings.SECRET_KEY_FROM_ENV:
        return []  # made by yahtzee.prepare (random and long), or none yet: Django says so itself
    key = settings.SECRET_KEY
    if key in PLACEHOLDER_KEYS or len(key) < 50 or len(set(key)) < 5 or key.startswith("django-insecure-"):
        return [
            checks.Warning(
                "SECRET_KEY is a placeholder or too weak: anyone who knows it can forge sessions and the "
                "links the site signs (the e-mails' confirm and stop links).",
                hint="Set a long random key: python -c 'import secrets; print(secrets.token_urlsafe(50))'.",
                id="yahtzee.W005",
            )
        ]
    return []


@checks.register("yahtzee")
def usable_vapid_key(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    from games.services.notices import vapid_key_fault

    if fault := vapid_key_fault(settings.VAPID_PRIVATE_KEY):
        return [
            checks.Warning(
                f"VAPID_PRIVATE_KEY cannot sign Web Push ({fault}): no notification of a turn, a seat taken "
                "over or a game's end is sent, and the Your games page does not offer them.",
                hint="Make a key with `python -m yahtzee.prepare` and set VAPID_PRIVATE_KEY to the one line of "
                'DATA_DIR/vapid_private_key (docs/deploy.md, "E-mail and Web Push").',
                id="yahtzee.W006",
            )
        ]
    return []


@checks.register("yahtzee")
def readable_rate_limits(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    from games.realtime.limits import LIMITS, Rate

    found: list[checks.CheckMessage] = []
    for limit in LIMITS:
        value = getattr(settings, limit.setting)
        if not isinstance(value, str):
            continue  # a number, read as one when the settings loaded
        try:
            Rate.parse(value)
        except ValueError:
            found.append(
                checks.Error(
                    f"{limit.setting}={value!r} is not a rate the limiter can read: every request it "
                    "counts would fail (a server error).",
                    hint=f"Write {limit.setting} as COUNT/SECONDS (10/60), COUNT/UNIT (10/m, with s, m, h or d), "
                    "or 0 to turn it off (docs/security.md).",
                    id="yahtzee.E001",
                )
            )
    return found


@checks.register("yahtzee", deploy=True)
def no_wildcard_hosts(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    found: list[checks.CheckMessage] = []
    if "*" in settings.ALLOWED_HOSTS:
        found.append(
            checks.Warning(
                "ALLOWED_HOSTS contains '*': any Host header is accepted, so absolute links the site "
                "builds (the invite link) can be made to point at another host.",
                hint="List the site's host names, e.g. ALLOWED_HOSTS=yahtzee.example.org.",
                id="yahtzee.W002",
            )
        )
    odd = [o for o in settings.CSRF_TRUSTED_ORIGINS if "://" not in o or "*" in o]
    if odd:
        found.append(
            checks.Warning(
                f"CSRF_TRUSTED_ORIGINS entries {odd!r} are not exact origins: the websocket Origin check "
                "compares scheme, host and port and ignores them.",
                hint="Write each as scheme://host[:port], e.g. https://yahtzee.example.org.",
                id="yahtzee.W003",
            )
        )
    return found


@checks.register("yahtzee", deploy=True)
def no_debug(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    if settings.DEBUG:
        return [
            checks.Warning(
                "DEBUG is on: an error shows its traceback, settings and code to whoever caused it.",
                hint="Leave DEBUG unset (or 0) on any server others can reach.",
                id="yahtzee.W004",
            )
        ]
    return []


def served_at_a_site_name(url: str) -> bool:
    """Whether ``url`` is an http(s) address whose host ``ALLOWED_HOSTS`` lets the site answer to."""
    try:
        parts = urlsplit(url)
    except ValueError:  # brackets that do not hold an IPv6 address
        return False
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address, as ALLOWED_HOSTS writes it
        host = f"[{host}]"
    return parts.scheme in ("http", "https") and bool(host) and validate_host(host, settings.ALLOWED_HOSTS)


@checks.register("yahtzee", deploy=True)
def site_url_served(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    url = settings.SITE_URL
    if served_at_a_site_name(url):
        return []
    said = "is not set, so it is " + url if not settings.SITE_URL_FROM_ENV else f"is {url}"
    return [
        checks.Warning(
            f"SITE_URL {said}, not an address at one of the site's names (ALLOWED_HOSTS): every turn "
            "e-mail and push links players there (the room, Your games, the one-click stop), and so "
            "does the link that confirms an address.",
            hint="Set SITE_URL to the address players open, e.g. SITE_URL=https://yahtzee.example.org.",
            id="yahtzee.W007",
        )
    ]


def check_at_start() -> None:
    """Log this project's checks, deploy checks included, loudly when a server process starts, and
    refuse to serve on an error (a setting that would fail the requests it is read for)."""
    errors = []
    for message in checks.run_checks(tags=["yahtzee"], include_deployment_checks=True):
        if message.is_serious():
            errors.append(f"{message.id}: {message.msg} ({message.hint})")
        else:
            log.warning("%s: %s (%s)", message.id, message.msg, message.hint)
    if errors:
        raise ImproperlyConfigured("\n".join(errors))

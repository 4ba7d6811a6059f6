"""The websocket handshake's Origin check: the page's origin must be this site's, scheme and port included.

A browser sends the session cookie with a websocket opened from any site, so a socket is
accepted only from a page of the site itself. Channels' ``AllowedHostsOriginValidator``
compares the Origin's host with ``ALLOWED_HOSTS`` only: ``ALLOWED_HOSTS=*`` turns it
off (``evil.example`` and ``null`` accepted), and ``http://site:8080`` passes for
``https://site``. Here the Origin must equal the origin the handshake itself was made to:
the ``Host`` header with the scheme the browser used (``wss``, or ``X-Forwarded-Proto``
behind a trusted proxy), and that host must be allowed; or it must be one of
``CSRF_TRUSTED_ORIGINS`` exactly. A wildcard never lets another site's page in. A
handshake with no ``Host`` (only test clients do that) is checked against the hosts in
``ALLOWED_HOSTS``, wildcards left out.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.http.request import split_domain_port, validate_host

from games.domain.protocol import CLOSE_ORIGIN

DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(text: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an ``Origin`` value, or None for ``null`` and anything malformed."""
    try:
        parts = urlsplit(text.strip().lower())
        port = parts.port or DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname or port is None or parts.path not in ("", "/"):
        return None
    return parts.scheme, parts.hostname, port


def _headers(scope: dict[str, Any]) -> dict[bytes, str]:
    return {name.lower(): value.decode("latin-1") for name, value in scope.get("headers", ())}


def _served_as(scope: dict[str, Any], headers: dict[bytes, str]) -> str:
    if settings.BEHIND_PROXY and b"x-forwarded-proto" in headers:
        return "https" if headers[b"x-forwarded-proto"].strip().lower() == "https" else "http"
    return "https" if scope.get("scheme") in ("wss", "https") else "http"


def origin_allowed(scope: dict[str, Any]) -> bool:
    headers = _headers(scope)
    origin = _origin(headers.get(b"origin", "null"))
    if origin is None:
        return False
    trusted = {_origin(text) for text in settings.CSRF_TRUSTED_ORIGINS}
    if origin in trusted:
        return True
    host = headers.get(b"host")
    allowed = list(settings.ALLOWED_HOSTS) or (["localhost", "127.0.0.1", "[::1]"] if settings.DEBUG else [])
    if host is None:
        name = f"[{origin[1]}]" if ":" in origin[1] else origin[1]
        return bool(validate_host(name, [pattern for pattern in allowed if "*" not in pattern]))
    domain, port = split_domain_port(host.lower())
    if not domain or not validate_host(domain, allowed):
        return False
    # A port is ASCII digits only: str.isdigit() takes a superscript two too, which int() refuses,
    # and other scripts' digits, which int() reads. Anything else is no port, and no origin of ours.
    if port and not (port.isascii() and port.isdigit()):
        return False
    scheme = _served_as(scope, headers)
    own = (scheme, domain.strip("[]"), int(port) if port else DEFAULT_PORTS[scheme])
    return (origin[0], origin[1].strip("[]"), origin[2]) == own


class SameOriginValidator:
    """ASGI middleware for websockets: refuse the handshake (403) unless ``origin_allowed``."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": CLOSE_ORIGIN})
            return None
        return await self.application(scope, receive, send)

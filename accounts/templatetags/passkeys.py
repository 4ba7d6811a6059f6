"""``{% passkey_notice %}``: why passkeys cannot work on a page, beside its passkey button.

Browsers refuse WebAuthn on an IP address (a passkey belongs to a site's name): at
http://127.0.0.1:8000 the browser's "invalid domain" error would be all a player saw. The
notice says so, and on this machine's own address links the same page at ``localhost``. And
a browser without JavaScript reads (in a ``<noscript>``) that passkeys need it.
"""

from __future__ import annotations

import ipaddress
from datetime import datetime, timedelta
from typing import Any

from django import template
from django.http import HttpRequest
from django.utils import timezone
from django.utils.timesince import timesince

register = template.Library()


def split_host(host: str) -> tuple[str, str]:
    """("127.0.0.1", "8000") from "127.0.0.1:8000", ("::1", "") from "[::1]"."""
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        return name, rest.removeprefix(":")
    name, _, port = host.partition(":")
    return name, port


@register.inclusion_tag("accounts/passkey_notice.html", takes_context=True)
def passkey_notice(context: dict[str, Any]) -> dict[str, Any]:
    request = context.get("request")
    if not isinstance(request, HttpRequest):
        return {"address": None}
    name, port = split_host(request.get_host())
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return {"address": None}  # a name: passkeys work
    localhost = ""
    if address.is_loopback:
        localhost = f"{request.scheme}://localhost{':' + port if port else ''}{request.get_full_path()}"
    return {"address": name, "localhost": localhost}


@register.filter
def used_since(moment: datetime) -> str:
    """How long ago ``moment`` was, as ``timesince`` says it in the reader's language, and at least
    a minute: timesince counts whole minutes, and a passkey used seconds ago read "0 minutes ago"."""
    now = timezone.now()
    return timesince(min(moment, now - timedelta(minutes=1)), now)

"""Template filters for rooms: ``{{ game.code|room_code }}`` shows a code as "abcd-efgh-jk"."""

from __future__ import annotations

from django import template

from games.services.codes import shown_code

register = template.Library()


@register.filter
def room_code(code: str) -> str:
    return shown_code(str(code))

"""Template filters for rooms: ``{{ game.code|room_code }}`` shows a code as "abcd-efgh-jk"."""

from __future__ import annotations

from django import template

from games.services import words
from games.services.codes import shown_code, shown_name

register = template.Library()


@register.filter
def room_code(code: str) -> str:
    return shown_code(str(code))


@register.filter
def ruleset_label(name: str) -> str:
    """A rule set's name in the reader's language: ``{{ game.ruleset|ruleset_label }}``."""
    return words.ruleset_label(str(name))


@register.filter
def ruleset_summary(name: str) -> str:
    return words.ruleset_summary(str(name))


@register.filter
def dice_colour(colour: str) -> str:
    """A die's colour (Painted Yahtzee) in the reader's language."""
    return words.colour_name(str(colour))


@register.filter
def seat_name(name: str) -> str:
    """A seat's stored name as the reader sees it (a deleted account's in their language)."""
    return shown_name(str(name))

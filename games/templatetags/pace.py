"""Template filters for a game's pace: a span of seconds in days and hours, a room at your own pace in words."""

from __future__ import annotations

from django import template

from games.services import duration as say_duration
from games.services import own_pace_text
from games.services import time_left as say_time_left

register = template.Library()


@register.filter
def duration(seconds: float | None) -> str:
    """``{{ 93600|duration }}`` → "1 day 2 hours"; "no limit" for 0."""
    return say_duration(seconds or 0)


@register.filter
def time_left(seconds: float) -> str:
    """``{{ 0|time_left }}`` → "time is up"; a positive span as ``duration`` says it."""
    return say_time_left(seconds)


@register.filter
def own_pace(seconds: int | None) -> str:
    """``{{ 259200|own_pace }}`` → "at your own pace, 3 days a move"; "at your own pace, no time
    limit" for 0 or None (``games.services.pace.own_pace_text``)."""
    return own_pace_text(seconds)

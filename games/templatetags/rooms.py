"""Template filters for rooms: ``{{ game.code|room_code }}`` shows a code as "abcd-efgh-jk"."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django import template
from django.template.defaultfilters import floatformat
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from games.domain.codes import shown_code
from games.services import words
from games.services.codes import shown_name

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


@register.filter
def bdi(name: str) -> SafeString:
    """A name in a sentence, isolated from the words around it (a right-to-left name before a
    colon and a number would otherwise take them into its own run)."""
    return format_html("<bdi>{}</bdi>", name)


@register.filter
def isolated(name: str) -> str:
    """A name in a sentence of plain text (an attribute a screen reader reads out), isolated from
    the words around it between FSI and PDI (U+2068, U+2069), as ``bdi`` does in the page's text."""
    return f"\u2068{name}\u2069"


@register.filter
def behind_word(why: str) -> str:
    """Why a finished game's seat ranks after those who stayed, in the reader's words ("left"):
    ``words.behind``, as the game-over notice says it."""
    return words.behind(why)  # type: ignore[arg-type]


@register.filter
def review_name(seat: dict[str, Any]) -> SafeString:
    """A seat of the coach's review as its line names it: the name in a <bdi>, and said to be a
    computer's when the seat was one from the start."""
    name = bdi(shown_name(str(seat.get("name", ""))))
    if seat.get("kind") != "bot":
        return name
    return mark_safe(conditional_escape(gettext("%(name)s (computer)")) % {"name": name})  # noqa: S308 (escaped above)


# A word with a hyphen inside it ("e-mails", "Lundi-Mardi"): letters or digits on both sides.
HYPHENATED = re.compile(r"\w+(?:-\w+)+")


@register.filter
def whole_words(text: str) -> SafeString:
    """A heading's text with each hyphenated word kept on one line (``<span class="whole-word">``):
    a browser breaks a line after a hyphen, which leaves "e-" at one line's end and "mails" at
    the next one's start. The text is escaped; its other words wrap as they do."""
    escaped = str(conditional_escape(text))
    return mark_safe(HYPHENATED.sub(lambda found: f'<span class="whole-word">{found.group(0)}</span>', escaped))  # noqa: S308 (escaped above)


@register.filter
def review_line(seat: dict[str, Any]) -> SafeString:
    """A seat's line of the coach's review, in the game-over panel's sentences
    (static/js/room/over.js ``reviewHtml``, the same msgids): what its choices cost, not "lost"
    (at a game's end "Ann lost 12.4 points" reads as the game lost); the figure is every choice's
    loss, small ones too, the count the costly ones. A computer's seat is said so beside its name
    where the sentence allows ("Bo (computer) played like the solver"), not before a possessive."""
    owner = bdi(shown_name(str(seat.get("name", ""))))
    lost = floatformat(seat.get("lost", 0), "1g")
    mistakes = int(seat.get("mistakes", 0))
    if mistakes:
        line = ngettext(
            "%(name)s's choices cost about %(lost)s points against the coach's play; %(n)s of them was costly.",
            "%(name)s's choices cost about %(lost)s points against the coach's play; %(n)s of them were costly.",
            mistakes,
        )
        return _worded(line, name=owner, lost=lost, n=mistakes)
    if seat.get("like_solver"):
        choices = int(seat.get("choices", 0))
        line = ngettext(
            "%(name)s played like the solver: no costly choice in %(n)s choice.",
            "%(name)s played like the solver: no costly choice in %(n)s choices.",
            choices,
        )
        return _worded(line, name=review_name(seat), n=choices)
    line = gettext(
        "%(name)s's choices cost about %(lost)s points against the coach's play, a little at a time: "
        "none of them was costly."
    )
    return _worded(line, name=owner, lost=lost)


def _worded(line: str, **values: Any) -> SafeString:
    """A translated sentence with its values put in, as ``blocktranslate`` does: the catalog's
    sentence as it is, the values escaped unless already safe (a name's <bdi>)."""
    return mark_safe(line % {k: conditional_escape(v) for k, v in values.items()})  # noqa: S308 (values escaped)


@register.filter
def name_list(names: Iterable[str]) -> SafeString:
    """Names joined with commas, each in a <bdi>: two right-to-left names in a row ("אבי, שרה")
    keep their order in a left-to-right page, as does one beside a number or a colon."""
    return format_html_join(", ", "<bdi>{}</bdi>", ((name,) for name in names))

"""The rules and the fair-dice method as pages of the site, rendered from Markdown.

The rules page is written for players (templates/games/rules.md: each rule set in plain
words, with examples); the engine's complete reference, with the decisions it takes and its
API, is docs/rules.md, for developers. The fair-dice page is docs/fairness.md itself, which
is written for anyone who wants to check the dice. Each page is rendered once per process and
language; links between them become links between the pages.

The English files are the source; a translation lives beside its source, named by language
(templates/games/rules.da.md, docs/fairness.de.md), and is shown to readers of that language.
tests/web/test_languages.py checks that every language has each page, with the source's sections.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import markdown
from django.conf import settings
from django.utils.functional import Promise
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

ROOT = Path(settings.BASE_DIR)


@dataclass(frozen=True)
class DocPage:
    file: Path
    title: str | Promise

    def file_in(self, language: str) -> Path:
        """The page in ``language``: its translation beside the source, else the English source."""
        translated = self.file.with_suffix(f".{language}.md")
        return translated if language != settings.LANGUAGE_CODE and translated.is_file() else self.file


PAGES = {
    "rules": DocPage(ROOT / "templates" / "games" / "rules.md", _("The rules")),
    "fairness": DocPage(ROOT / "docs" / "fairness.md", _("Fair dice anyone can verify")),
}
LINKS = {"rules.md": "/rules", "fairness.md": "/fairness"}


def html(name: str) -> str:
    """The page's HTML body in the active language (trusted: the project's own Markdown, no user input)."""
    return _html(name, get_language() or settings.LANGUAGE_CODE)


@functools.cache
def _html(name: str, language: str) -> str:
    text = PAGES[name].file_in(language).read_text(encoding="utf-8")
    for file, url in LINKS.items():

        def to_page(match: re.Match[str], url: str = url) -> str:
            return f"]({url}{match.group(1) or ''})"

        text = re.sub(rf"\]\({re.escape(file)}(#[^)]*)?\)", to_page, text)
    body = markdown.markdown(text, extensions=["tables", "fenced_code", "toc", "sane_lists", "attr_list"])
    # Wide code and tables scroll inside the page: keyboard users can reach and scroll them.
    return body.replace("<pre>", '<pre tabindex="0">').replace("<table>", '<table tabindex="0">')

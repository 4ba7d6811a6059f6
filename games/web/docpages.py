"""The rules and the fair-dice method as pages of the site, rendered from Markdown.

The rules page is written for players (templates/games/rules.md: each rule set in plain
words, with examples); the engine's complete reference, with the decisions it takes and its
API, is docs/rules.md, for developers. The fair-dice page is docs/fairness.md itself, which
is written for anyone who wants to check the dice. Each page is rendered once per process;
links between them become links between the pages.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import markdown
from django.conf import settings

ROOT = Path(settings.BASE_DIR)


@dataclass(frozen=True)
class DocPage:
    file: Path
    title: str


PAGES = {
    "rules": DocPage(ROOT / "templates" / "games" / "rules.md", "The rules"),
    "fairness": DocPage(ROOT / "docs" / "fairness.md", "Fair dice anyone can verify"),
}
LINKS = {"rules.md": "/rules", "fairness.md": "/fairness"}


@functools.cache
def html(name: str) -> str:
    """The page's HTML body (trusted: the project's own Markdown, no user input)."""
    text = PAGES[name].file.read_text(encoding="utf-8")
    for file, url in LINKS.items():

        def to_page(match: re.Match[str], url: str = url) -> str:
            return f"]({url}{match.group(1) or ''})"

        text = re.sub(rf"\]\({re.escape(file)}(#[^)]*)?\)", to_page, text)
    body = markdown.markdown(text, extensions=["tables", "fenced_code", "toc", "sane_lists", "attr_list"])
    # Wide code and tables scroll inside the page: keyboard users can reach and scroll them.
    return body.replace("<pre>", '<pre tabindex="0">').replace("<table>", '<table tabindex="0">')

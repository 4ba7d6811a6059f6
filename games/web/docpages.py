"""The rules and the fair-dice method as pages of the site, rendered from the project's own docs/.

docs/rules.md and docs/fairness.md are the one statement of each (the server implements
exactly the rules page), so the site shows them rather than a copy that could drift. Each
is rendered once per process with Markdown; links between the two docs become links
between the pages.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import markdown
from django.conf import settings

DOCS = Path(settings.BASE_DIR) / "docs"


@dataclass(frozen=True)
class DocPage:
    file: str
    title: str
    # The page ends before this heading (what follows is for developers, not players).
    stop_at: str | None = None


PAGES = {
    "rules": DocPage("rules.md", "The rules", stop_at="## The rules engine"),
    "fairness": DocPage("fairness.md", "Fair dice anyone can verify"),
}
LINKS = {"rules.md": "/rules", "fairness.md": "/fairness"}


@functools.cache
def html(name: str) -> str:
    """The page's HTML body (trusted: the project's own Markdown, no user input)."""
    page = PAGES[name]
    text = (DOCS / page.file).read_text(encoding="utf-8")
    if page.stop_at and page.stop_at in text:
        text = text[: text.index(page.stop_at)]
    for file, url in LINKS.items():

        def to_page(match: re.Match[str], url: str = url) -> str:
            return f"]({url}{match.group(1) or ''})"

        text = re.sub(rf"\]\({re.escape(file)}(#[^)]*)?\)", to_page, text)
    body = markdown.markdown(text, extensions=["tables", "fenced_code", "toc", "sane_lists"])
    # Wide code and tables scroll inside the page: keyboard users can reach and scroll them.
    return body.replace("<pre>", '<pre tabindex="0">').replace("<table>", '<table tabindex="0">')

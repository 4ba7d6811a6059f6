"""manage.py unavailable_pages DIRECTORY: the pages the proxy shows when no worker can answer.

The Dockerfile writes them into the proxy's image; deploy/Caddyfile picks the reader's language.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.web.middleware import proxy_pages


class Command(BaseCommand):
    help = 'Write the proxy\'s "Back in a moment" pages, in every language, into DIRECTORY.'
    requires_system_checks: list[str] = []  # an image build: nothing is configured yet

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        directory: Path = options["directory"]
        directory.mkdir(parents=True, exist_ok=True)
        pages = proxy_pages()
        for name, text in pages.items():
            (directory / name).write_text(text, encoding="utf-8")
        self.stdout.write(f"{len(pages)} pages in {directory}")

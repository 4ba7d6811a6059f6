"""The README and docs/ are complete for someone who has only the repository."""

from __future__ import annotations

import re
from pathlib import Path

from games.rules import RULESETS

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_no_document_points_outside_the_repository() -> None:
    for doc in DOCS:
        assert "../shared" not in doc.read_text(), f"{doc.name} links outside the repository"


def test_every_relative_link_in_the_docs_names_a_file_of_the_repository() -> None:
    for doc in DOCS:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text()):
            if "://" in target or target.startswith("mailto:"):
                continue
            assert (doc.parent / target).exists(), f"{doc.name} links to {target}, which is not in the repository"


def test_every_rule_set_is_in_the_readme_table_and_stated_in_docs_rules() -> None:
    readme = (ROOT / "README.md").read_text()
    rules = (ROOT / "docs" / "rules.md").read_text()
    for name in RULESETS:
        assert f"| `{name}`" in readme, f"the README's rule-set table lacks {name}"
        assert re.search(rf"^#+ .*`{name}`", rules, re.M), f"docs/rules.md has no section for {name}"

"""The accessibility check the page tests rely on finds what it should (an empty list proves nothing
unless the same check reports a real violation)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import in_each_scheme, serious_violations

pytestmark = pytest.mark.browser

BAD = """<!doctype html><html lang="en"><head><title>t</title></head><body><main>
<p style="color:#777;background:#888">grey on grey</p><img src="/static/x.png">
<script>window.ready = true;</script></main></body></html>"""

GOOD = """<!doctype html><html lang="en"><head><title>t</title></head><body><main>
<h1>Fine</h1><p>black on white</p><script>window.ready = true;</script></main></body></html>"""


def test_the_check_reports_serious_violations_and_nothing_on_a_clean_page(harness: Any) -> None:
    page = harness(BAD)
    found = serious_violations(page)
    assert {v.split(" ", 1)[0] for v in found} == {"color-contrast", "image-alt"}, found
    assert all("(serious)" in v or "(critical)" in v for v in found)
    # Each says where: the elements' selectors (left out of the first pass, asked for once one is found).
    assert [v.rsplit(" — ", 1)[1] for v in found if v.startswith("image-alt")] == ['[["img"]]'], found
    # axe is put in the page once: a second check reuses it and sees the same.
    assert serious_violations(page) == found
    assert serious_violations(harness(GOOD)) == []


# Serious violations beside moderate and minor ones: a jump of heading levels, content outside
# any landmark, a second page heading, an empty heading and a table header with no text.
MIXED = """<!doctype html><html lang="en"><head><title>t</title></head><body>
<h1>One</h1><h4>Jump</h4><p>outside any landmark</p><main><h1>Two</h1><h2></h2>
<table><tr><th></th><td>x</td></tr></table>
<p style="color:#777;background:#888">grey on grey</p><img src="/static/x.png">
<button></button><a href="/x"></a><script>window.ready = true;</script></main></body></html>"""

# Every rule of axe's run, and what is serious or critical among its violations.
_FULL_RUN = """async () => {
  const results = await axe.run(document, { resultTypes: ['violations'] });
  return [results.violations.map(v => v.impact),
    results.violations.filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id)];
}"""


def test_the_check_finds_every_serious_violation_a_run_of_every_rule_finds(harness: Any) -> None:
    """The check leaves out the rules that can only find minor or moderate violations: on a page with
    violations of every impact, it finds the same serious ones as a run of all of axe's rules."""
    page = harness(MIXED)
    found = serious_violations(page)
    impacts, serious = page.evaluate(_FULL_RUN)
    assert {"moderate", "minor"} <= set(impacts), impacts  # the page has those too, which the check skips
    assert sorted(v.split(" ", 1)[0] for v in found) == sorted(serious) != [], (found, serious)


# Readable in the light scheme, grey on grey in the dark one; an image without words in both.
DARK_ONLY = """<!doctype html><html lang="en"><head><title>t</title>
<style>p { color: #000; background: #fff; }
@media (prefers-color-scheme: dark) { p { color: #777; background: #888; } }</style></head><body><main>
<p>light: black on white</p><img src="/static/x.png"><script>window.ready = true;</script></main></body></html>"""


def test_the_check_after_the_first_scheme_finds_what_the_scheme_changes(harness: Any) -> None:
    """Shown in each scheme (in_each_scheme), the page is checked whole in the first and for its colours
    in the next: a contrast only the dark scheme breaks is found, and what no colour changes is found
    once, in the light scheme."""
    page = harness(DARK_ONLY)
    seen = {scheme: serious_violations(page, scheme) for scheme in in_each_scheme(page)}
    assert [v.split(" ", 1)[0] for v in seen["light"]] == ["image-alt"], seen
    assert [v.split(" ", 1)[0] for v in seen["dark"]] == ["color-contrast"], seen
    # Every rule in the dark scheme finds both: the colours' run leaves out only what the light one found.
    assert sorted(v.split(" ", 1)[0] for v in serious_violations(page)) == ["color-contrast", "image-alt"]


ROOT = Path(__file__).resolve().parents[2]
# The site's own styles and scripts: its stylesheets, the styles and scripts written into its
# templates, its modules. Django admin's dark theme (its own static files) follows the page's
# data-theme, which the scheme shown does not change.
SOURCES = sorted(
    [*ROOT.glob("static/css/**/*.css"), *ROOT.glob("templates/**/*.html"), *ROOT.glob("static/js/**/*.js")]
)


def dark_blocks(text: str) -> list[str]:
    """What each ``@media`` about the colour scheme holds, its braces matched."""
    blocks = []
    for found in re.finditer(r"@media[^{]*prefers-color-scheme[^{]*\{", text):
        depth, at = 1, found.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[at], 0)
            at += 1
        blocks.append(text[found.end() : at - 1])
    return blocks


def test_the_dark_scheme_changes_nothing_but_colours() -> None:
    """serious_violations checks the second scheme for its colours alone, as the schemes differ only
    in the colours of site.css's custom properties (a dark ``--radius`` would not be one): what the
    dark scheme alone shows, hides or lays out (a rule under prefers-color-scheme but a colour's, a
    dark class, a script asking which scheme is shown) would go unchecked by every other rule."""
    root = re.search(r":root\s*\{([^}]*)\}", (ROOT / "static/css/site.css").read_text())
    assert root
    light = set(re.findall(r"(--[\w-]+)\s*:", root[1]))
    changed: list[str] = []
    for source in SOURCES:
        text = re.sub(r"/\*.*?\*/", "", source.read_text(), flags=re.S)
        if source.suffix == ".js" and ("prefers-color-scheme" in text or "colorScheme" in text):
            changed.append(f"{source.relative_to(ROOT)}: a script reads the colour scheme")
        if re.search(r"\.dark\b|\[data-(?:theme|scheme)", text):
            changed.append(f"{source.relative_to(ROOT)}: a dark class or attribute")
        for block in dark_blocks(text) if source.suffix != ".js" else []:
            for selector, body in re.findall(r"([^{}]*)\{([^}]*)\}", block):
                for declaration in filter(str.strip, body.split(";")):
                    name, _, value = declaration.partition(":")
                    colour = re.search(r"#[0-9a-f]{3,8}\b|\b(?:rgb|hsl|oklch|lab|color-mix)\(", value, re.I)
                    if selector.strip() != ":root" or name.strip() not in light or not colour:
                        changed.append(f"{source.relative_to(ROOT)}: {selector.strip()} {{ {declaration.strip()} }}")
    assert changed == []

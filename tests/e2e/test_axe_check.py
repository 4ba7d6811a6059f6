"""The accessibility check the page tests rely on finds what it should (an empty list proves nothing
unless the same check reports a real violation)."""

from __future__ import annotations

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

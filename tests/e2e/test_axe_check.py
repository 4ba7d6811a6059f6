"""The accessibility check the page tests rely on finds what it should (an empty list proves nothing
unless the same check reports a real violation)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.helpers import serious_violations

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

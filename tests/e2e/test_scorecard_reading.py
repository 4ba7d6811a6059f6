"""The scorecard (static/js/scorecard.js) as a screen reader reads it, on every page that draws it
(the table, the replay): what a sum says beyond its figures."""

from __future__ import annotations

from typing import Any

import pytest

from games.store.selectors import ruleset_info
from tests.e2e.helpers import serious_violations

pytestmark = pytest.mark.browser

CARD = """<!doctype html><html lang="en"><title>card</title>
<link rel="stylesheet" href="/static/css/site.css"><main><div id="card"></div></main>
<script type="module">
import { scorecardHtml } from "/static/js/scorecard.js";
window.draw = (options) => { document.getElementById("card").innerHTML = scorecardHtml(options); };
window.ready = true;
</script>"""


def column(upper: int) -> dict[str, Any]:
    made = upper >= 63
    boxes = {"sixes": 30, "fives": 25, "fours": 8} if made else {"sixes": 12}
    return {"boxes": boxes, "upper": upper, "upper_bonus": 35 if made else 0, "lower": 0, "yahtzee_bonus": 0}


@pytest.mark.parametrize("ruleset", ["official", "triple"])
def test_an_upper_sum_that_earned_its_bonus_says_so_in_words_a_screen_reader_reads(harness: Any, ruleset: str) -> None:
    """A sum that reached its goal is marked ✓ for the eye; a screen reader is to read ", bonus earned"
    there instead, in every column that earned it and in no other. ARIA gives a plain <span> no
    name, so words in its aria-label are left unread by screen readers that follow it (Chromium's
    tree reads them, axe-core flags them): the words are text of their own, the mark hidden."""
    info = ruleset_info(ruleset)
    columns = info["columns"]
    page = harness(CARD)
    page.evaluate(
        "(o) => draw(o)",
        {
            "ruleset": info,
            "seats": [{"seat": 0, "name": "Ana"}, {"seat": 1, "name": "Ben"}],
            "cards": {
                "0": {"columns": [column(63)] * columns, "total": 98 * columns},
                "1": {"columns": [column(12)] * columns, "total": 12 * columns},
            },
        },
    )
    upper = page.locator("tr[data-sum=upper]").first
    for seat, made in ((0, True), (1, False)):
        for k in range(columns):
            read = upper.locator("td").nth(seat * columns + k).aria_snapshot()
            assert ("bonus earned" in read) == made, read
            assert "✓" not in read, read
    assert serious_violations(page) == []  # and axe-core is in the page
    # axe-core leaves a name on a plain span "to review": screen readers do not read it there.
    needs_review = page.evaluate(
        "async () => (await axe.run('#card', { runOnly: ['aria-prohibited-attr'], resultTypes: ['incomplete'] }))"
        ".incomplete.flatMap((v) => v.nodes.map((n) => n.html))"
    )
    assert needs_review == []

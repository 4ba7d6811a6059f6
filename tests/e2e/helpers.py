"""Driving the room page like a player, shared by the browser tests: create and join rooms, act and
wait for every page to draw the new state, and axe-core's serious violations."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import LiveSite


def version(page: Any) -> int:
    return int(page.locator("#room").get_attribute("data-version") or -1)


def wait_version(pages: list[Any], above: int) -> None:
    for page in pages:
        page.wait_for_function(f"Number(document.getElementById('room').dataset.version) > {above}")


def create_online(page: Any, site: LiveSite, name: str, ruleset: str = "official") -> str:
    page.goto(site.url + "/")
    page.check("input[name=mode][value=online]")
    page.fill("#id_name", name)
    page.check(f"input[name=ruleset][value={ruleset}]")
    page.click("#create-btn")
    page.wait_for_selector("#lobby:not([hidden])")
    page.wait_for_selector("#conn[data-state=connected]")
    return str(page.url)


def create_local(page: Any, site: LiveSite, names: list[str], ruleset: str = "official") -> str:
    page.goto(site.url + "/")
    page.check("input[name=mode][value=local]")
    page.fill("#id_players", str(len(names)))
    for i, name in enumerate(names, start=1):
        page.fill(f"#id_player_{i}", name)
    page.check(f"input[name=ruleset][value={ruleset}]")
    page.click("#create-btn")
    page.wait_for_selector("#roll")
    page.wait_for_selector("#conn[data-state=connected]")
    return str(page.url)


def join(page: Any, url: str, name: str) -> None:
    page.goto(url)
    page.wait_for_selector("#conn[data-state=connected]")
    page.fill("#join-name", name)
    page.click("#join-btn")
    page.wait_for_selector("#conn[data-state=connected]")
    page.wait_for_selector(".seat .tag.you")


def act(page: Any, everyone: list[Any], do: Any) -> None:
    """Do something on ``page`` and wait until every page has drawn the resulting state."""
    before = version(page)
    do()
    wait_version(everyone, before)


SCHEMES = ("light", "dark")


def in_each_scheme(*pages: Any) -> Any:
    """Show ``pages`` in the light, then the dark colour scheme (yields the scheme's name).

    The pages' CSS follows ``prefers-color-scheme``, so one page set up once is checked in both
    instead of setting the same table up again for each scheme.
    """
    for scheme in SCHEMES:
        for page in pages:
            page.emulate_media(color_scheme=scheme)
            assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
        yield scheme


def serious_violations(page: Any) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def best_box(page: Any) -> tuple[str, int]:
    """The legal box worth the most points right now (id, points)."""
    found = page.eval_on_selector_all(
        "#card .score-btn:not(.forbidden)",
        """els => els.map(e => [
            e.id, [...e.childNodes].reduce((s, n) => s + (parseInt(n.textContent.replace('+', '')) || 0), 0)
        ])""",
    )
    return max(found, key=lambda item: item[1])


def score_best(page: Any, everyone: list[Any]) -> int:
    box, points = best_box(page)

    def click() -> None:
        page.click(f"#{box}")
        if points == 0:
            page.wait_for_selector("#confirm[open]")
            page.click("#confirm-yes")

    act(page, everyone, click)
    return points


def no_horizontal_overflow(page: Any) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))

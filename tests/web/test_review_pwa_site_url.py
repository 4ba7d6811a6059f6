"""Review (pwa): the address every e-mail and push links to (SITE_URL), checked at deploy time."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_deploy import PRODUCTION, clean_env, run_manage


@pytest.mark.parametrize(
    "site_url",
    [
        None,  # not set: python -m yahtzee.serve / notice_worker link to http://localhost:8000
        "https://yahtzee.example.com",  # a name the site does not answer to (.env.example's, a typo)
    ],
)
def test_check_deploy_flags_a_site_url_the_site_is_not_served_at(tmp_path: Path, site_url: str | None) -> None:
    """Every turn e-mail (its Play link, Your games, the one-click stop and its List-Unsubscribe
    header), every push (the room a click opens, the Stop button's post) and the "confirm your
    address" link are built from SITE_URL. With production settings answering only to
    yahtzee.example.org, a SITE_URL left unset (a worker started without compose) or naming another
    host sent every player to http://localhost:8000 or to a stranger's site, and `check --deploy`
    said "no issues", as it does for the other traps (yahtzee.W001-W006)."""
    env = dict(PRODUCTION)
    if site_url is not None:
        env["SITE_URL"] = site_url
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", env=clean_env(tmp_path, **env))
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "SITE_URL" in output, output
    served = run_manage(
        "check", "--deploy", "--fail-level", "WARNING",
        env=clean_env(tmp_path, **{**PRODUCTION, "SITE_URL": "https://yahtzee.example.org"}),
    )  # fmt: skip
    assert served.returncode == 0, served.stdout + served.stderr

"""The project runs: settings load, the home page answers, the ASGI app routes."""

import pytest
from django.conf import settings
from django.test import Client


@pytest.mark.django_db
def test_home_page_says_what_the_site_is(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "multiplayer Yahtzee" in body
    for label in ("Yahtzee (official)", "Triple Yahtzee", "Yatzy (Scandinavian)"):
        assert label in body


def _in_new_processes(*runs: tuple[list[str], str]) -> list[str]:
    """What each ``(argv, code)`` prints in a Python process of its own, Django set up with that
    argv; the processes run side by side (each is a Django start, a second or two of CPU)."""
    import subprocess
    import sys

    from tests.live import ROOT, server_env

    processes = [
        subprocess.Popen(
            [sys.executable, "-c", f"import sys; sys.argv = {argv!r}; import django; django.setup(); {code}"],
            cwd=ROOT,
            env=server_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for argv, code in runs
    ]
    printed = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        printed.append(out.strip())
    return printed


def test_runserver_is_daphne_and_no_other_process_loads_twisted() -> None:
    """`manage.py runserver` serves the ASGI app with Daphne (its app first); every other process
    (the uvicorn workers, the other commands) starts without Daphne's Twisted reactor."""
    runserver = "from django.conf import settings; from django.core.management import get_commands"
    runserver += "; print(settings.INSTALLED_APPS[0], get_commands()['runserver'])"
    other = "import yahtzee.asgi; from django.core.management import get_commands"
    other += "; print('twisted' in sys.modules, get_commands()['check'])"
    served, checked = _in_new_processes((["manage.py", "runserver"], runserver), (["manage.py", "check"], other))
    assert served == "daphne daphne"
    assert checked == "False django.core"
    assert "daphne" not in settings.INSTALLED_APPS


def test_asgi_application_routes_http_and_websocket() -> None:
    from channels.routing import ProtocolTypeRouter

    from yahtzee.asgi import application
    from yahtzee.lifespan import Lifespan

    assert isinstance(application, Lifespan)  # the lifespan runs the scheduler, then hands on
    assert isinstance(application.app, ProtocolTypeRouter)
    assert set(application.app.application_mapping) == {"http", "websocket"}


def test_embedded_default_is_sqlite_in_wal_mode_or_the_configured_database() -> None:
    import os

    engine = settings.DATABASES["default"]["ENGINE"]
    kept = settings.DATABASES["default"]["CONN_MAX_AGE"]
    if os.environ.get("DATABASE_URL"):
        assert engine == "yahtzee.postgresql"  # Django's backend, health-checked only when quiet
        # The action threads keep their connection, not a new one (a forked backend) per action.
        assert kept == int(os.environ.get("DB_CONN_MAX_AGE", 60))
    else:
        assert engine == "django.db.backends.sqlite3"
        assert "journal_mode=WAL" in settings.DATABASES["default"]["OPTIONS"]["init_command"]
        assert kept == int(os.environ.get("DB_CONN_MAX_AGE", 600))


@pytest.mark.django_db
def test_embedded_sqlite_file_database_opens_in_wal_mode(tmp_path) -> None:
    """The embedded default's options, applied to a real file database, give WAL."""
    import copy

    from django.db.backends.sqlite3.base import DatabaseWrapper

    from yahtzee import settings as project_settings

    config = copy.deepcopy(project_settings.sqlite_database(tmp_path / "wal.sqlite3"))
    config.update(
        TIME_ZONE=None,
        CONN_MAX_AGE=0,
        CONN_HEALTH_CHECKS=False,
        AUTOCOMMIT=True,
        ATOMIC_REQUESTS=False,
        TEST={},
    )
    wrapper = DatabaseWrapper(config)
    try:
        with wrapper.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode")
            assert cursor.fetchone()[0] == "wal"
    finally:
        wrapper.close()


@pytest.mark.django_db
def test_healthz_reports_the_database_and_the_channel_layer(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True and body["degraded"] == []
    assert body["database"]["ok"] and body["channel_layer"]["ok"]


@pytest.mark.django_db
def test_healthz_without_the_channel_layer_is_200_and_says_degraded(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that lost Redis still serves pages and its own rooms: the proxy must keep it."""

    async def broken() -> None:
        raise ConnectionError("Error 111 connecting to 10.0.0.7:6379. Connection refused.")

    monkeypatch.setattr("yahtzee.health._channel_layer", broken)
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True and body["degraded"] == ["channel_layer"]
    # The page is public: the error's kind, not its text, which names internal hosts and ports.
    assert body["channel_layer"] == {"ok": False, "error": "ConnectionError"}
    assert "10.0.0.7" not in response.content.decode()


@pytest.mark.django_db
def test_healthz_is_503_naming_what_failed(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> None:
        raise ConnectionError("database is down")

    monkeypatch.setattr("yahtzee.health._database", broken)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["ok"] is False
    assert body["database"] == {"ok": False, "error": "ConnectionError"}
    assert body["channel_layer"]["ok"] is True

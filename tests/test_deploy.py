"""The deployment: production settings pass ``check --deploy``, the embedded default still
works with nothing set, docker-compose.yml has the shape docs/deploy.md describes, and the
Caddyfile it ships routes pages, static files and websockets (run here when Caddy is installed).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import os
import re
import runpy
import secrets
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from websockets.exceptions import ConnectionClosed

from tests.conftest import need_program
from tests.live import (
    ROOT,
    Browser,
    ServerProcess,
    dies_with_tests,
    free_port,
    migrate_sqlite,
    released,
    server_command,
    server_env,
    start_together,
)
from tests.waiting import wait_until
from yahtzee.checks import check_at_start
from yahtzee.prepare import new_vapid_private_key

PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(60),
    "ALLOWED_HOSTS": "yahtzee.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://yahtzee.example.org",
    "SITE_URL": "https://yahtzee.example.org",
    "HTTPS": "1",
    "BEHIND_PROXY": "1",
}
# The production settings with Redis (unreachable: ``check`` does not connect) and a key that
# signs pushes: a test of a check changes one of them, and reads what `check` says on them as they are.
CHECKED = {**PRODUCTION, "REDIS_URL": "redis://127.0.0.1:1/0", "VAPID_PRIVATE_KEY": new_vapid_private_key()}


SETTINGS_TO_SHOW = [
    "DEBUG",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SESSION_COOKIE_HTTPONLY",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_PROXY_SSL_HEADER",
    "BEHIND_PROXY",
    "RATE_LIMITS",
]


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """Only what a fresh machine has, plus ``extra``: no DATABASE_URL, REDIS_URL or test settings."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")}
    env.update(DATA_DIR=str(tmp_path), PYTHONUNBUFFERED="1", **extra)
    return env


def run_manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


SHOW = (
    f"print(json.dumps({{n: getattr(settings, n) for n in {SETTINGS_TO_SHOW!r}}} | "
    "{'cache': settings.CACHES['default']['BACKEND'], 'layer': settings.CHANNEL_LAYERS['default']['BACKEND'], "
    "'database': settings.DATABASES['default']['ENGINE']}, default=str))"
)
SHOWN = "--- settings ---"


def manage_and_show(*args: str, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """``manage.py ARGS`` run as its own command line does, then the settings it ran with shown,
    in one process (each Django start is a second or two of CPU): its result, and the settings."""
    code = (
        "import json, runpy, sys\n"
        f"sys.argv = ['manage.py', *{list(args)!r}]\n"
        "status = 0\n"
        "try:\n"
        "    runpy.run_path('manage.py', run_name='__main__')\n"
        "except SystemExit as end:\n"
        "    status = end.code or 0\n"
        "from django.conf import settings\n"
        f"print({SHOWN!r})\n"
        f"{SHOW}\n"
        "sys.exit(status)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert SHOWN in result.stdout, result.stdout + result.stderr
    output, shown = result.stdout.rsplit(SHOWN, 1)
    return subprocess.CompletedProcess(result.args, result.returncode, output, result.stderr), json.loads(shown)


# --- settings ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def production(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """``check --deploy`` on the production settings, and those settings."""
    env = clean_env(tmp_path_factory.mktemp("production"), **PRODUCTION)
    return manage_and_show("check", "--deploy", "--fail-level", "WARNING", env=env)


def test_production_settings_pass_check_deploy_with_no_warnings(
    production: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    result, _ = production
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "System check identified no issues (0 silenced)." in output
    assert "WARNING" not in output.upper().replace("--FAIL-LEVEL", "")


@pytest.mark.postgres
@pytest.mark.redis
def test_production_settings_with_postgres_and_redis_pass_check_deploy(tmp_path: Path) -> None:
    env = clean_env(tmp_path, **PRODUCTION, DATABASE_URL=os.environ["DATABASE_URL"], REDIS_URL=os.environ["REDIS_URL"])
    result, shown = manage_and_show("check", "--deploy", "--fail-level", "WARNING", "--database", "default", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout
    assert shown["cache"] == "django.core.cache.backends.redis.RedisCache"
    assert shown["layer"] == "games.realtime.layers.ResubscribingPubSubChannelLayer"
    assert shown["database"] == "yahtzee.postgresql"


def test_production_cookies_are_secure_and_http_redirects_to_https(
    production: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    _, shown = production
    assert shown["DEBUG"] is False
    assert shown["SESSION_COOKIE_SECURE"] is shown["CSRF_COOKIE_SECURE"] is shown["SESSION_COOKIE_HTTPONLY"] is True
    assert shown["SECURE_SSL_REDIRECT"] is True
    assert shown["SECURE_HSTS_SECONDS"] >= 60 * 60 * 24 * 365 and shown["SECURE_HSTS_INCLUDE_SUBDOMAINS"]
    assert shown["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert shown["RATE_LIMITS"] is True


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], dict[str, Any], Path]:
    """``check`` with nothing set (DATA_DIR a folder that does not exist yet), and the settings it loaded."""
    data = tmp_path_factory.mktemp("embedded") / "var"
    result, shown = manage_and_show("check", env=clean_env(data))
    return result, shown, data


def test_the_embedded_default_needs_no_environment(
    embedded: tuple[subprocess.CompletedProcess[str], dict[str, Any], Path],
) -> None:
    result, shown, _ = embedded
    assert result.returncode == 0, result.stdout + result.stderr
    assert shown["database"] == "django.db.backends.sqlite3"
    assert shown["layer"] == "channels.layers.InMemoryChannelLayer"
    assert shown["cache"] == "django.core.cache.backends.locmem.LocMemCache"
    # Served on http://127.0.0.1:8000: cookies must work without HTTPS.
    assert shown["SESSION_COOKIE_SECURE"] is False and shown["SECURE_SSL_REDIRECT"] is False
    assert shown["SECURE_HSTS_SECONDS"] == 0


def test_loading_the_settings_writes_nothing(
    embedded: tuple[subprocess.CompletedProcess[str], dict[str, Any], Path],
) -> None:
    result, _, data = embedded  # a check run and every setting read, DATA_DIR never made
    assert result.returncode == 0, result.stdout + result.stderr
    assert not data.exists()


def test_a_server_without_a_key_refuses_to_start_and_says_how_to_make_one(tmp_path: Path) -> None:
    probe = [sys.executable, "-c", "import yahtzee.asgi"]
    env = clean_env(tmp_path, BOT_TABLES_AT_START="0")
    refused = subprocess.run(probe, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0
    assert "No SECRET_KEY" in refused.stderr and "python -m yahtzee.prepare" in refused.stderr
    made = subprocess.run([sys.executable, "-m", "yahtzee.prepare"], cwd=ROOT, env=env, capture_output=True, timeout=60)
    assert made.returncode == 0, made.stderr
    started = subprocess.run(probe, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert started.returncode == 0, started.stderr


def test_the_log_level_is_read_in_any_case_and_error_keeps_the_404s_out_of_the_log(tmp_path: Path) -> None:
    """LOG_LEVEL=error, as uvicorn spells it: the process starts, and writes no "Not Found" line for a
    404 (anyone guessing room codes makes many)."""
    code = (
        "import django; django.setup(); from django.test import Client; "
        "print(Client(raise_request_exception=False).get('/no-such-page/').status_code)"
    )
    settings = {**PRODUCTION, "LOG_LEVEL": "error", "ALLOWED_HOSTS": "testserver", "HTTPS": "0"}
    env = clean_env(tmp_path, **settings, DJANGO_SETTINGS_MODULE="yahtzee.settings")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.split()[-1] == "404", result.stderr[-600:]
    assert "Not Found" not in result.stderr, result.stderr[-600:]


@pytest.mark.parametrize(
    ("level", "root", "requests"),
    [
        ("debug", "DEBUG", "WARNING"),
        ("Info", "INFO", "WARNING"),
        (" ERROR ", "ERROR", "ERROR"),
        ("", "INFO", "WARNING"),
    ],
)
def test_the_log_level_sets_the_requests_log_too_never_below_its_warnings(
    monkeypatch: pytest.MonkeyPatch, level: str, root: str, requests: str
) -> None:
    monkeypatch.setenv("LOG_LEVEL", level)
    logging = runpy.run_path(str(ROOT / "yahtzee" / "settings.py"))["LOGGING"]
    assert logging["root"]["level"] == root and logging["loggers"]["django.request"]["level"] == requests


def test_a_log_level_that_is_no_level_is_named_as_the_settings_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOG_LEVEL", "verbose")
    with pytest.raises(ImproperlyConfigured, match="LOG_LEVEL='VERBOSE'"):
        runpy.run_path(str(ROOT / "yahtzee" / "settings.py"))


def test_a_rate_limit_the_limiter_cannot_read_stops_every_command_and_is_named(tmp_path: Path) -> None:
    """Read only when a request counts it, a rate the limiter cannot read would answer every such
    request with a server error: the checks name it, and migrate (compose's first step) stops."""
    env = clean_env(tmp_path, **{**PRODUCTION, "RATE_LIMIT_ROOM_MISS": "60/m/ip", "CHAT_RATE": "ten/10"})
    result = run_manage("check", env=env)
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "yahtzee.E001" in output, output
    assert "RATE_LIMIT_ROOM_MISS='60/m/ip'" in output and "CHAT_RATE='ten/10'" in output


def test_a_server_refuses_to_start_on_a_rate_limit_it_cannot_read(settings: Any) -> None:
    settings.RATE_LIMIT_ROOM_CREATE = "10/m/ip"
    with pytest.raises(ImproperlyConfigured, match="RATE_LIMIT_ROOM_CREATE='10/m/ip'"):
        check_at_start()
    settings.RATE_LIMIT_ROOM_CREATE = "10/m"  # allauth's spelling reads
    check_at_start()


# --- docker-compose.yml ------------------------------------------------------------------


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    yaml = pytest.importorskip("yaml")
    return dict(yaml.safe_load((ROOT / "docker-compose.yml").read_text()))


def test_compose_runs_postgres_redis_a_migration_two_workers_and_a_proxy(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert {"postgres", "redis", "migrate", "web1", "web2", "proxy"} <= set(services)
    workers = [name for name in services if re.fullmatch(r"web\d+", name)]
    assert len(workers) >= 2
    for name in ("postgres", "redis", *workers):
        assert services[name]["healthcheck"]["test"], f"{name} has no healthcheck"
        assert services[name]["restart"] == "unless-stopped"
    # Migrations run once, before any worker, after PostgreSQL is up.
    assert services["migrate"]["command"] == ["python", "manage.py", "migrate", "--noinput"]
    assert services["migrate"]["restart"] == "no"
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in workers:
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert "8000" in " ".join(services[name]["healthcheck"]["test"]) and "/healthz" in " ".join(
            services[name]["healthcheck"]["test"]
        )
        env = services[name]["environment"]
        assert env["DEBUG"] == "0" and env["BEHIND_PROXY"] == "1" and "postgres" in env["DATABASE_URL"]
        assert env["REDIS_URL"].startswith("redis://redis:")
        # The proxy's health checks ask by a name every worker answers to, whatever its own.
        health_host = re.search(r"health_headers \{\s*Host (\S+)", (ROOT / "deploy/Caddyfile").read_text())
        assert health_host and health_host.group(1) in env["ALLOWED_HOSTS"].split("},", 1)[1].split(",")
        assert env["SCHEDULER"] == "local"  # their own rooms' timers; the scheduler sweeps
    # The scheduler: its own process, on the same database and Redis, after the migration.
    scheduler = services["scheduler"]
    assert scheduler["command"] == ["python", "manage.py", "run_scheduler"]
    assert scheduler["restart"] == "unless-stopped"
    # Healthy while it completes its rounds (manage.py scheduler_health reads its heartbeat).
    assert scheduler["healthcheck"]["test"] == ["CMD", "python", "manage.py", "scheduler_health"]
    assert "disable" not in scheduler["healthcheck"]
    assert scheduler["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert "SCHEDULER" not in scheduler["environment"] and "postgres" in scheduler["environment"]["DATABASE_URL"]
    proxy = services["proxy"]
    assert proxy["build"]["target"] == "proxy"
    for name in workers:
        assert f"{name}:8000" in proxy["environment"]["UPSTREAMS"]
        assert proxy["depends_on"][name]["condition"] == "service_healthy"


def test_a_database_password_of_any_characters_reaches_the_workers_whole(
    compose: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL takes any password (`openssl rand -base64 24` makes '/' and '+'); in the URL they
    would have to be percent-encoded, so compose passes it on its own."""
    password = "Zm9v/YmFy+YmF6#?@:%=="
    for name, value in compose["services"]["web1"]["environment"].items():
        if name.startswith("DATABASE_"):
            monkeypatch.setenv(name, re.sub(r"\$\{POSTGRES_PASSWORD[^}]*\}", lambda _: password, value))
    database = runpy.run_path(str(ROOT / "yahtzee" / "settings.py"))["DATABASES"]["default"]
    assert (database["HOST"], database["USER"], database["PASSWORD"], database["NAME"]) == (
        "postgres",
        "yahtzee",
        password,
        "yahtzee",
    )
    assert compose["services"]["postgres"]["environment"]["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD")


def test_every_setting_compose_reads_is_in_env_example(compose: dict[str, Any]) -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    used = set(re.findall(r"\$\{([A-Z_]+)", text))
    example = (ROOT / ".env.example").read_text()
    documented = set(re.findall(r"^#?\s*([A-Z_]+)=", example, re.MULTILINE))
    assert used <= documented, f"not in .env.example: {sorted(used - documented)}"
    required = set(re.findall(r"\$\{([A-Z_]+):\?", text))
    assert required <= set(re.findall(r"^([A-Z_]+)=", example, re.MULTILINE)), "required settings must be set there"


def test_the_images_run_the_server_the_tests_run_as_a_user_and_collect_static_files() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    # The workers run yahtzee.serve (uvicorn), the very command of the tests' live servers.
    command = re.search(r"^CMD (\[.*\])$", dockerfile, re.MULTILINE)
    assert command is not None
    served = json.loads(command.group(1))
    assert served[:3] == ["python", "-m", "yahtzee.serve"] and "--proxy-headers" in served
    assert server_command(8000, "uvicorn")[1:4] == ["-m", "yahtzee.serve", "--host"]
    assert re.search(r"^FROM .* AS app$", dockerfile, re.MULTILINE)
    assert re.search(r"^FROM caddy:\S+ AS proxy$", dockerfile, re.MULTILINE)
    assert "collectstatic" in dockerfile and "COPY --from=app /app/staticfiles /srv/static" in dockerfile
    # The proxy's pages for when no worker can answer, where deploy/Caddyfile looks for them.
    assert "manage.py unavailable_pages /app/unavailable" in dockerfile
    assert "COPY --from=app /app/unavailable /srv/unavailable" in dockerfile
    assert "{$UNAVAILABLE_PAGES:/srv/unavailable}" in (ROOT / "deploy/Caddyfile").read_text()
    assert re.search(r"^USER yahtzee$", dockerfile, re.MULTILINE)
    assert "COPY deploy/Caddyfile /etc/caddy/Caddyfile" in dockerfile


def test_the_app_image_copies_every_package_before_installing_and_the_docs_the_site_shows() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    project = (ROOT / "pyproject.toml").read_text()
    packages = re.findall(r'"(\w+)\*"', re.search(r"packages\.find\]\s*include = \[(.*?)\]", project, re.S).group(1))
    install = dockerfile.index("RUN pip install .")
    for package in packages:
        copied = dockerfile.find(f"COPY {package} ./{package}")
        assert 0 <= copied < install, package
    assert "COPY docs ./docs" in dockerfile  # /rules and /fairness render docs/rules.md and docs/fairness.md
    assert "COPY locale ./locale" in dockerfile  # the compiled translations


# --- the Caddyfile, for real -------------------------------------------------------------

caddy = shutil.which("caddy")


def worker_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A worker behind the proxy, on the embedded default (several share its SQLite file)."""
    env = server_env(
        DATA_DIR=str(tmp_path), BEHIND_PROXY="1", SECRET_KEY=secrets.token_urlsafe(50), RATE_LIMIT_ROOM_MISS="5/60"
    )
    env.update(extra)
    for name in ("DATABASE_URL", "REDIS_URL", "CACHE_URL"):
        env.pop(name, None)
    migrate_sqlite(env)
    return env


@contextlib.contextmanager
def caddy_in_front(
    tmp_path: Path,
    upstreams: list[int] | list[str],
    health_interval: str = "5s",
    fail_duration: str = "10s",
    try_duration: str = "5s",
) -> Iterator[str]:
    """deploy/Caddyfile run by Caddy in front of the workers on ``upstreams`` (ports on 127.0.0.1,
    or host:port); its URL. Its pages for when no worker answers are drawn as the image's build does."""
    from games.web.middleware import proxy_pages

    need_program("caddy", "apt-get install caddy")
    pages = tmp_path / "unavailable"
    pages.mkdir(exist_ok=True)
    for name, text in proxy_pages().items():
        (pages / name).write_text(text, encoding="utf-8")
    port = free_port()
    proxy_env = {
        **{k: v for k, v in os.environ.items() if k in ("PATH", "HOME")},
        "SITE_ADDRESS": f"http://127.0.0.1:{port}",
        "HEALTH_ADDRESS": f"http://127.0.0.1:{free_port()}",
        "UPSTREAMS": " ".join(f"127.0.0.1:{u}" if isinstance(u, int) else u for u in upstreams),
        "HEALTH_INTERVAL": health_interval,
        "FAIL_DURATION": fail_duration,
        "TRY_DURATION": try_duration,
        "STATIC_ROOT": str(ROOT / "static"),
        "UNAVAILABLE_PAGES": str(pages),
        "XDG_DATA_HOME": str(tmp_path / "caddy-data"),
        "XDG_CONFIG_HOME": str(tmp_path / "caddy-config"),
    }
    proc = subprocess.Popen(
        [caddy, "run", "--config", str(ROOT / "deploy/Caddyfile"), "--adapter", "caddyfile"],
        env=proxy_env,
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "caddy.log").open("wb"),
        start_new_session=True,
    )
    dies_with_tests(proc)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                urllib.request.urlopen(url + "/healthz", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((tmp_path / "caddy.log").read_text()[-2000:]) from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)
        released(proc)


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, ServerProcess]]:
    """Caddy with deploy/Caddyfile in front of a dead upstream and a live worker (yahtzee.serve).

    One for the module: its tests only read and create rooms, and the one that counts room
    misses is the only one that makes any.
    """
    need_program("caddy", "apt-get install caddy")
    tmp_path = tmp_path_factory.mktemp("proxied")
    worker = ServerProcess(worker_env(tmp_path), log_dir=tmp_path).start()
    try:
        with caddy_in_front(tmp_path, [free_port(), worker.port]) as url:
            yield url, worker
    finally:
        worker.stop()


def test_the_caddyfile_is_valid() -> None:
    need_program("caddy", "apt-get install caddy")
    result = subprocess.run(
        [caddy, "validate", "--config", str(ROOT / "deploy/Caddyfile"), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_DATA_HOME": "/tmp/caddy-validate", "XDG_CONFIG_HOME": "/tmp/caddy-validate"},
    )
    assert result.returncode == 0, result.stderr[-2000:]


def test_the_proxy_serves_static_files_pages_and_websockets_past_a_dead_worker(
    proxied: tuple[str, ServerProcess],
) -> None:
    url, _ = proxied
    with urllib.request.urlopen(url + "/static/css/site.css", timeout=5) as response:
        assert response.status == 200 and response.headers["Cache-Control"] == "no-cache"
        assert response.read() == (ROOT / "static/css/site.css").read_bytes()
    # Round robin over a dead worker and a live one: every request still lands.
    visitor = Browser(url)
    codes = [visitor.create_room(f"Ann{i}") for i in range(3)]
    assert all(visitor.state(code)["code"] == code for code in codes)

    async def socket_state() -> dict[str, Any]:
        sock = await visitor.socket(codes[0]).connect()
        try:
            return sock.state
        finally:
            await sock.close()

    state = asyncio.run(socket_state())
    assert state["code"] == codes[0] and state["seats"][0]["name"] == "Ann0"


def test_after_an_upgrade_a_page_never_runs_a_module_its_browser_kept_from_before(
    proxied: tuple[str, ServerProcess],
) -> None:
    """The static files keep their names from one release to the next: the browser asks for each
    again every time (a 304 while it is unchanged), so a page of the new release never runs a
    module of the old one (one importing a name the old i18n.js lacks would stop the page)."""
    url, _ = proxied
    scripts = re.findall(r'<script type="module" src="([^"]+)"', Browser(url).get("/"))
    assert scripts
    for script in scripts:
        with urllib.request.urlopen(url + script, timeout=5) as response:
            assert response.headers["Cache-Control"] == "no-cache", script
            tag = response.headers["ETag"]
        with pytest.raises(urllib.error.HTTPError) as unchanged:
            urllib.request.urlopen(urllib.request.Request(url + script, headers={"If-None-Match": tag}), timeout=5)
        assert unchanged.value.code == 304, script


def test_the_proxy_tells_the_worker_who_the_client_is(proxied: tuple[str, ServerProcess]) -> None:
    url, _ = proxied
    # Each guess claims another address; the proxy replaces the claim with the real one,
    # so the worker counts them all against this client (5 misses a minute in this test).
    statuses = []
    for i in range(6):
        request = urllib.request.Request(url + f"/r/guess{i:05d}/", headers={"X-Real-IP": f"10.9.9.{i}"})
        try:
            urllib.request.urlopen(request, timeout=5)
        except urllib.error.HTTPError as exc:
            statuses.append(exc.code)
    assert statuses == [404] * 5 + [429]


@contextlib.contextmanager
def two_workers_on_redis(tmp_path: Path, **extra: str) -> Iterator[tuple[list[ServerProcess], Path]]:
    """Two workers behind the proxy (``worker_env`` with ``extra``) sharing rooms through a Redis of
    their own (on the in-memory layer they refuse to serve); the workers and their SQLite file."""
    need_program("caddy", "apt-get install caddy")
    from tests.e2e.test_faults import RedisServer

    need_program("redis-server", "apt-get install redis-server")
    redis = RedisServer(tmp_path).start()
    env = {**worker_env(tmp_path, **extra), "REDIS_URL": redis.url}
    workers: list[ServerProcess] = []
    try:
        workers = start_together([ServerProcess(env, log_dir=tmp_path) for _ in range(2)])
        yield workers, Path(env["DATA_DIR"]) / "yahtzee.sqlite3"
    finally:
        for worker in workers:
            worker.stop()
        redis.kill()


def test_the_proxy_sends_the_sockets_of_a_room_to_one_worker_and_elsewhere_when_it_dies(tmp_path: Path) -> None:
    # One visitor holds 36 sockets here, past a browser's usual share (WS_MAX_PER_BROWSER).
    with (
        two_workers_on_redis(tmp_path, RATE_LIMIT_ROOM_CREATE="100/60", WS_MAX_PER_BROWSER="64") as (
            workers,
            database,
        ),
        caddy_in_front(tmp_path, [w.port for w in workers]) as url,
    ):
        visitor = Browser(url)
        # Twelve rooms over two workers: all on one would happen in 2 runs of 4096.
        codes = [visitor.create_room(f"Ann{i}") for i in range(12)]

        dead = str(json.loads(Browser(workers[0].url).get("/ws/rooms/any/"))["worker"])

        async def run() -> None:
            sockets = {code: [await visitor.socket(code).connect() for _ in range(3)] for code in codes}
            # Where each socket is, as the workers recorded it (a row per socket, its worker's origin).
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 20
            while len(presence_rows(database)) < 3 * len(codes):
                assert loop.time() < deadline, presence_rows(database)
                await asyncio.sleep(0.1)
            home = {code: {origin for c, origin in presence_rows(database) if c == code} for code in codes}
            assert all(len(origins) == 1 for origins in home.values()), home
            workers[0].kill()
            # Until every socket of the killed worker's rooms is closed (and none of the others').
            deadline = loop.time() + 10
            while not all(s.closed == (home[code] == {dead}) for code in codes for s in sockets[code]):
                if loop.time() > deadline:
                    break
                await asyncio.sleep(0.05)
            dropped = {code: {s.closed for s in group} for code, group in sockets.items()}
            # Every room's sockets were on one worker: all of them dropped, or none.
            assert all(len(states) == 1 for states in dropped.values()), dropped
            lost = [code for code, states in dropped.items() if True in states]
            assert 0 < len(lost) < len(codes), dropped
            # The rooms of the dead worker reconnect through the proxy to the other one.
            for code in lost:
                again = await visitor.socket(code).connect()
                assert again.state["code"] == code
                await again.close()
            for group in sockets.values():
                for s in group:
                    await s.close()

        asyncio.run(run())


class RoutedPage:
    """What the room page's protocol client does with its socket, from its own loopback address.

    It reconnects after a drop (backing off as the page does, to at most 2 s here), and
    answers a ``route`` frame as static/js/room/protocol.js does: it asks the proxy for the
    room's socket address over HTTP and moves when another worker answers.
    """

    def __init__(self, url: str, code: str, source: str) -> None:
        self.url, self.code, self.source = url, code, source
        self.conn: Any = None
        self.connected = asyncio.Event()
        self.connects = 0
        self.refusals = 0
        self.moves = 0
        self.task: asyncio.Task[None] | None = None

    async def _open(self) -> Any:
        from websockets.asyncio.client import connect

        host, port = self.url.removeprefix("http://").split(":")
        sock = socket.socket()
        sock.bind((self.source, 0))
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (host, int(port)))
        return await connect(
            f"ws://{host}:{port}/ws/rooms/{self.code}/", sock=sock, origin=self.url, ping_interval=None, open_timeout=10
        )

    def _route(self) -> str:
        request = urllib.request.Request(f"{self.url}/ws/rooms/{self.code}/", headers={"X-Real-IP": self.source})
        with urllib.request.urlopen(request, timeout=5) as response:
            return str(json.loads(response.read())["worker"])

    async def run(self) -> None:
        delay = 0.5
        while True:
            try:
                self.conn = await self._open()
            except Exception:  # noqa: BLE001 - the proxy found no worker yet: try again, as the page does
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)
                continue
            moving = False
            with contextlib.suppress(ConnectionClosed):  # a worker killed: its sockets end without a close frame
                async for text in self.conn:
                    frame = json.loads(text)
                    if frame["type"] == "state":
                        self.connects += 1
                        delay = 0.5
                        self.connected.set()
                    elif frame["type"] == "error" and frame["code"] == "too_many_sockets":
                        self.refusals += 1
                    elif frame["type"] == "route" and await asyncio.to_thread(self._route) != frame["worker"]:
                        moving = True
                        self.moves += 1
                        await self.conn.close(4000)
            self.connected.clear()
            if not moving:
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task
        if self.conn is not None:
            with contextlib.suppress(Exception):
                await self.conn.close()


def presence_rows(database: Path) -> list[tuple[str, str]]:
    """(room code, worker origin) of every open socket, from the Presence rows."""
    with contextlib.closing(sqlite3.connect(database)) as db:
        rows = db.execute("SELECT g.code, p.origin FROM games_presence p JOIN games_game g ON g.id = p.game_id")
        return [(code, origin) for code, origin in rows]


def rooms_by_worker(database: Path) -> dict[str, set[str]]:
    """Each room's sockets' workers (their origins), from the Presence rows."""
    with contextlib.closing(sqlite3.connect(database)) as db:
        rows = db.execute(
            "SELECT g.code, p.origin FROM games_presence p JOIN games_game g ON g.id = p.game_id"
        ).fetchall()
    found: dict[str, set[str]] = {}
    for code, origin in rows:
        found.setdefault(code, set()).add(origin)
    return found


def test_rooms_go_back_to_their_worker_when_it_returns_and_a_reconnect_storm_is_admitted(tmp_path: Path) -> None:
    """Two workers behind the real Caddyfile: one killed, its rooms move; back, they return; 96 pages, no refusal."""

    def origin(worker: ServerProcess) -> str:
        return str(json.loads(Browser(worker.url).get("/ws/rooms/any/"))["worker"])

    # A beat every 0.25 s: the survivor sees its peer return (and asks its pages to check their
    # route) within half a second rather than two.
    with (
        two_workers_on_redis(tmp_path, RATE_LIMIT_ROOM_CREATE="100/60", SCHEDULER_POLL="0.25") as (workers, database),
        caddy_in_front(tmp_path, [w.port for w in workers], health_interval="500ms", fail_duration="1s") as url,
    ):
        visitor = Browser(url)
        codes = [visitor.create_room(f"Ann{i}") for i in range(12)]
        first, second = origin(workers[0]), origin(workers[1])

        async def until(check: Any, what: str) -> None:
            await wait_until(check, what, timeout=90, every=0.2, detail=lambda: rooms_by_worker(database))

        async def run() -> None:
            # Eight pages in each room, every one from an address of its own, as players are.
            pages = [RoutedPage(url, code, f"127.0.{10 + n // 200}.{1 + n % 200}") for n, code in
                     enumerate(c for c in codes for _ in range(8))]  # fmt: skip
            for page in pages:
                page.task = asyncio.create_task(page.run())
            try:
                await asyncio.wait_for(asyncio.gather(*(p.connected.wait() for p in pages)), 60)
                await until(lambda: sum(map(len, rooms_by_worker(database).values())) == 12, "one worker a room")
                home = {code: next(iter(origins)) for code, origins in rooms_by_worker(database).items()}
                on_first = [code for code in codes if home[code] == first]
                assert 0 < len(on_first) < len(codes), home  # all on one: 2 runs in 4096

                # Killed: its rooms' pages reconnect at once, all to the other worker, all admitted.
                workers[0].kill()
                await until(
                    lambda: (
                        rooms_by_worker(database) == {code: {second} for code in codes}
                        and all(p.connected.is_set() for p in pages)
                    ),
                    "every room on the survivor",
                )
                moved = [p for p in pages if p.code in on_first]
                assert all(p.connects == 2 for p in moved) and len(moved) == 8 * len(on_first)
                assert all(p.connects == 1 for p in pages if p not in moved)

                # Back (a new process on its port): its rooms return to it, and only those move.
                workers[0].start()
                returned = origin(workers[0])
                await until(
                    lambda: (
                        rooms_by_worker(database)
                        == {code: {returned if code in on_first else second} for code in codes}
                        and all(p.connected.is_set() for p in pages)
                    ),
                    "rooms back on their worker",
                )
                assert all(p.moves >= 1 and p.connects >= 3 for p in moved)
                assert all(p.moves == 0 and p.connects == 1 for p in pages if p not in moved)
                assert sum(p.refusals for p in pages) == 0
            finally:
                for page in pages:
                    await page.stop()

        asyncio.run(run())


def test_redis_without_a_shared_secret_key_is_flagged(tmp_path: Path, production_checked: str) -> None:
    env = clean_env(tmp_path, **CHECKED)
    del env["SECRET_KEY"]
    result = run_manage("check", env=env)
    assert "yahtzee.W001" in result.stderr + result.stdout and "SECRET_KEY" in result.stderr + result.stdout
    assert "yahtzee.W001" not in production_checked  # the same settings with SECRET_KEY set


@pytest.mark.parametrize(
    ("setting", "value", "check"),
    [("ALLOWED_HOSTS", "*", "yahtzee.W002"), ("CSRF_TRUSTED_ORIGINS", "yahtzee.example.org", "yahtzee.W003")],
)
def test_check_deploy_flags_hosts_the_origin_check_cannot_use(
    tmp_path: Path, setting: str, value: str, check: str
) -> None:
    result = run_manage(
        "check", "--deploy", "--fail-level", "WARNING", env=clean_env(tmp_path, **{**PRODUCTION, setting: value})
    )
    assert result.returncode != 0 and check in result.stdout + result.stderr


@pytest.mark.parametrize(
    "site_url",
    [
        None,  # not set: a server or task worker started without it links to http://localhost:8000
        "https://yahtzee.example.com",  # a name the site does not answer to (a typo)
        "yahtzee.example.org",  # no scheme: not an address
    ],
)
def test_check_deploy_flags_a_site_url_the_site_is_not_served_at(tmp_path: Path, site_url: str | None) -> None:
    """Every turn e-mail and push links to SITE_URL (the room, Your games, the one-click stop),
    and so does the link that confirms an address: one at a name the site does not answer to
    sends every player elsewhere."""
    env = clean_env(tmp_path, **PRODUCTION)
    if site_url is None:
        del env["SITE_URL"]
    else:
        env["SITE_URL"] = site_url
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "yahtzee.W007" in output and "SITE_URL" in output, output
    if site_url is None:
        assert "SITE_URL is not set, so it is http://localhost:8000" in output


def test_a_redis_outage_keeps_every_worker_behind_the_proxy(tmp_path: Path) -> None:
    """Health says whether a worker can serve: without Redis both still can, so the proxy keeps both."""
    from tests.e2e.test_faults import RedisServer

    need_program("redis-server", "apt-get install redis-server")
    redis = RedisServer(tmp_path).start()
    env = {**worker_env(tmp_path), "REDIS_URL": redis.url}
    workers = start_together([ServerProcess(env, log_dir=tmp_path) for _ in range(2)])
    try:
        with caddy_in_front(tmp_path, [w.port for w in workers], health_interval="500ms") as url:
            visitor = Browser(url)
            assert visitor.create_room("Ann")
            redis.kill()
            # Nothing must happen here: three of the proxy's health checks (every 500 ms), where one
            # failed check would take a worker out of its rotation.
            time.sleep(1.5)
            for worker in workers:
                health = json.loads(Browser(worker.url).get("/healthz"))
                assert health["ok"] and health["degraded"] == ["channel_layer"], health
            # Round robin over both workers: every page still lands (a 503 would raise here).
            for _ in range(6):
                assert "<html" in Browser(url).get("/")
    finally:
        for worker in workers:
            worker.stop()
        redis.kill()


class StubWorker:
    """What a worker of docker-compose.yml answers, on an address of its own (127.0.0.2, as web3 is a
    name of its own): a Host its ALLOWED_HOSTS does not name gets a 400, as Django answers; with its
    database away, /healthz fails (yahtzee/health.py) and every page is its own 503 page
    (games/web/middleware.py). A thread of this process, not a server process."""

    def __init__(self, allowed_hosts: list[str]) -> None:
        from django.test import RequestFactory

        from games.web.middleware import unavailable

        self.database_away = False
        away_page = unavailable(RequestFactory().get("/")).content
        worker = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
                host = self.headers.get("Host", "").rsplit(":", 1)[0]
                if host not in allowed_hosts:
                    self.answer(400, "text/html", b"<h1>Bad Request (400)</h1>")
                elif self.path == "/healthz":
                    ok = not worker.database_away
                    self.answer(200 if ok else 503, "application/json", json.dumps({"ok": ok}).encode())
                elif worker.database_away:
                    self.answer(503, "text/html; charset=utf-8", away_page)
                else:
                    self.answer(200, "text/html; charset=utf-8", b"<!doctype html><html><body>home</body></html>")

            def answer(self, status: int, kind: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.2", 0), Handler)
        self.address = f"127.0.0.2:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def fetch(url: str, method: str = "GET", **headers: str) -> tuple[int, Any, str]:
    """The status, headers and text of a request, whatever its status."""
    request = urllib.request.Request(url, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


def test_with_no_worker_able_to_answer_the_proxy_shows_the_site_s_page_in_the_reader_s_language(
    tmp_path: Path, compose: dict[str, Any]
) -> None:
    """The database away (every worker fails its health check, so the proxy takes them all out) or
    every worker down: the proxy answers with the workers' own "Back in a moment" page, never a blank
    503. And it keeps asking the workers by a name they answer to (compose's ALLOWED_HOSTS), whatever
    their own names: a worker added to UPSTREAMS needs none of its own there."""
    from django.utils import translation
    from django.utils.html import escape

    from games.web.middleware import MESSAGE, TITLE, UNKNOWN

    allowed = compose["x-app"]["environment"]["ALLOWED_HOSTS"].split("},", 1)[1].split(",")
    assert "127.0.0.2" not in allowed
    workers = [StubWorker(allowed), StubWorker(allowed)]
    try:
        with caddy_in_front(
            tmp_path, [w.address for w in workers], health_interval="300ms", try_duration="500ms"
        ) as url:
            status, _, text = fetch(url + "/")
            assert (status, text) == (200, "<!doctype html><html><body>home</body></html>")

            for worker in workers:
                worker.database_away = True
            # The proxy's health checks (every 300 ms) take both workers out: until then a page
            # may still be a worker's own (in English, as the stub drew it).
            deadline = time.monotonic() + 10
            while True:
                status, headers, page = fetch(url + "/", **{"Accept-Language": "pt-BR,de;q=0.8,en;q=0.5"})
                if '<html lang="de">' in page or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            assert status == 503 and headers["Retry-After"] == "5" and headers["Cache-Control"] == "no-store"
            with translation.override("de"):
                assert '<html lang="de">' in page and escape(str(TITLE)) in page and escape(str(MESSAGE)) in page
            _, _, page = fetch(url + "/r/abcd2345ef/", Cookie="django_language=fr", **{"Accept-Language": "de"})
            with translation.override("fr"):
                assert '<html lang="fr">' in page and escape(str(MESSAGE)) in page
            # A form sent meanwhile may have been saved before the worker went: its outcome is unknown.
            status, _, page = fetch(url + "/r/abcd2345ef/leave", method="POST")
            assert status == 503 and '<html lang="en">' in page and escape(str(UNKNOWN)) in page
            # A script's request gets JSON, as from a worker.
            status, headers, text = fetch(url + "/r/abcd2345ef/review.json")
            assert status == 503 and headers["Content-Type"].startswith("application/json")
            assert json.loads(text) == {"error": "unavailable", "message": str(MESSAGE)}

            for worker in workers:
                worker.stop()
            status, _, page = fetch(url + "/", **{"Accept-Language": "sv"})
            with translation.override("sv"):
                assert status == 503 and '<html lang="sv">' in page and escape(str(TITLE)) in page
    finally:
        for worker in workers:
            with contextlib.suppress(Exception):
                worker.stop()


def test_the_proxy_s_page_for_no_worker_knows_every_language_of_the_site() -> None:
    from django.conf import settings

    caddyfile = (ROOT / "deploy/Caddyfile").read_text()
    chosen = re.findall(r"\((en(?:\|[a-z]{2})+)\)", caddyfile)
    assert chosen and all(set(found.split("|")) == {code for code, _ in settings.LANGUAGES} for found in chosen)


def test_a_second_worker_on_the_in_memory_layer_refuses_to_serve(tmp_path: Path) -> None:
    """Two workers without REDIS_URL never share a room's frames: the second one says so and stops."""
    env = worker_env(tmp_path)
    first = ServerProcess(env, log_dir=tmp_path).start()
    try:
        with pytest.raises(RuntimeError, match="in-memory channel layer"):
            ServerProcess(env, log_dir=tmp_path).start()
        # The first one killed (its row is left behind), a new one on its own serves.
        first.kill()
        first.start()
    finally:
        first.stop()


def test_workers_with_different_secret_keys_refuse_to_share_a_database(tmp_path: Path) -> None:
    from tests.e2e.test_faults import RedisServer

    need_program("redis-server", "apt-get install redis-server")
    redis = RedisServer(tmp_path).start()
    env = {**worker_env(tmp_path), "REDIS_URL": redis.url}
    first = ServerProcess(env, log_dir=tmp_path).start()
    try:
        second = ServerProcess(env, log_dir=tmp_path).start()  # the same key: fine
        second.stop()
        with pytest.raises(RuntimeError, match="different SECRET_KEY"):
            ServerProcess({**env, "SECRET_KEY": secrets.token_urlsafe(50)}, log_dir=tmp_path).start()
    finally:
        first.stop()
        redis.kill()


def test_a_server_started_with_debug_on_says_so_in_its_log(tmp_path: Path) -> None:
    server = ServerProcess({**worker_env(tmp_path), "DEBUG": "1", "LOG_LEVEL": "WARNING"}, log_dir=tmp_path).start()
    try:
        assert "yahtzee.W004" in server.log() and "DEBUG is on" in server.log()
    finally:
        server.stop()


def test_compose_runs_the_task_worker_and_make_run_runs_it_in_its_server(compose: dict[str, Any]) -> None:
    tasks = compose["services"]["tasks"]
    assert tasks["command"] == ["python", "manage.py", "notice_worker"]
    assert tasks["restart"] == "unless-stopped"
    assert tasks["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    for name in ("SITE_URL", "VAPID_PRIVATE_KEY", "VAPID_SUBJECT", "EMAIL_HOST"):
        assert name in tasks["environment"], name
    run = re.search(r"^run:.*?(?=^\S)", (ROOT / "Makefile").read_text(), re.S | re.M)
    assert run is not None and "-m yahtzee.serve" in run.group(0) and "--task-worker" in run.group(0)


@pytest.fixture(scope="module")
def production_checked(tmp_path_factory: pytest.TempPathFactory) -> str:
    """What ``check`` says on ``CHECKED``, with their long random key (one Django start for every
    test that compares a setting of its own with them)."""
    result = run_manage("check", env=clean_env(tmp_path_factory.mktemp("checked"), **CHECKED))
    return result.stdout + result.stderr


@pytest.mark.parametrize("key", ["replace-with-a-long-random-string", "short", "k" * 60])
def test_a_placeholder_or_weak_secret_key_is_flagged(tmp_path: Path, key: str, production_checked: str) -> None:
    env = clean_env(tmp_path, **{**CHECKED, "SECRET_KEY": key})
    assert "yahtzee.W005" in (lambda r: r.stdout + r.stderr)(run_manage("check", env=env))
    assert "yahtzee.W005" not in production_checked  # the same settings with a long random key


def test_a_vapid_key_that_cannot_sign_is_flagged(tmp_path: Path, production_checked: str) -> None:
    env = clean_env(tmp_path, **{**CHECKED, "VAPID_PRIVATE_KEY": "replace-with-the-key-from-var/vapid_private_key"})
    assert "yahtzee.W006" in (lambda r: r.stdout + r.stderr)(run_manage("check", env=env))
    assert "yahtzee.W006" not in production_checked  # the same settings with a key that signs


@pytest.mark.parametrize("name", ["SECRET_KEY", "VAPID_PRIVATE_KEY", "POSTGRES_PASSWORD"])
def test_the_example_environment_leaves_the_keys_to_be_set(name: str) -> None:
    # compose's ${NAME:?} then refuses to start until it is: no published key to sign with, no
    # published password for the database.
    assert re.search(rf"^{name}=$", (ROOT / ".env.example").read_text(), re.MULTILINE)

# Two images from one build: `app` (Django served by uvicorn, also runs the migrations) and `proxy`
# (Caddy with the collected static files and the pages it shows when no worker can answer).
# docker-compose.yml builds both.

FROM python:3.12-slim AS app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    DATA_DIR=/app/var STATIC_ROOT=/app/staticfiles YAHTZEE_BOT_CACHE=/app/bot-tables
WORKDIR /app
RUN useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin yahtzee
COPY pyproject.toml README.md ./
COPY yahtzee ./yahtzee
COPY games ./games
COPY bots ./bots
COPY accounts ./accounts
RUN pip install .
COPY manage.py ./
COPY templates ./templates
COPY static ./static
# The rules and fair-dice pages render these (games/web/docpages.py).
COPY docs ./docs
# The compiled translations (docs/translations.md): the site in six languages.
COPY locale ./locale
# No SECRET_KEY at build time: the settings load without one, and the real one comes from
# the environment (docker-compose.yml requires it; the server refuses to start without it).
# The proxy's "Back in a moment" pages (every language), for when no worker can answer.
RUN python manage.py collectstatic --noinput \
    && python manage.py unavailable_pages /app/unavailable \
    && mkdir -p /app/var && chown yahtzee /app/var
# The bots' solver tables (about a minute, ~70 MB), so no worker ever builds one at run time.
RUN python manage.py build_bot_tables
USER yahtzee
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD \
    python -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status != 200)"
# uvicorn (uvloop, httptools, websockets) with the project's settings: yahtzee/serve.py, the
# very command of the tests' live servers (tests/live.py).
CMD ["python", "-m", "yahtzee.serve", "--host", "0.0.0.0", "--port", "8000", "--proxy-headers"]

FROM caddy:2 AS proxy
COPY deploy/Caddyfile /etc/caddy/Caddyfile
COPY --from=app /app/staticfiles /srv/static
COPY --from=app /app/unavailable /srv/unavailable
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD wget -q -O /dev/null http://127.0.0.1:2080/ || exit 1

# Two commands: `make run` serves the game on http://localhost:8000, `make test` runs every check.
# The newest Python 3.11+ found on PATH builds .venv (Django 6 needs 3.12+; 3.11 gets Django 5.2 LTS).
# python3 is tried before python3.11: where it is older (3.10 on Ubuntu 22.04) the 3.11 beside it
# is found, and where it is newer than the names listed it is the newest. Looked up once, when
# first needed: each probe starts a Python (or a pyenv shim), and the install's recipe names it
# three times.
PYTHON ?= $(eval PYTHON := $(shell for p in python3.14 python3.13 python3.12 python3 python3.11; do \
	$$p -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && { echo $$p; break; }; done))$(PYTHON)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
# localhost, not 127.0.0.1: browsers refuse passkeys (WebAuthn) on an IP address, and the
# address the server prints is the one people open.
HOST ?= localhost
PORT ?= 8000
# Python's bytecode caches (__pycache__, git-ignored) are written even where the environment
# says not to (PYTHONDONTWRITEBYTECODE=1 on some CI machines): otherwise every test worker,
# server and manage.py process the suite starts compiles the project from source again, and
# pytest rewrites every test module's asserts anew (5 of a worker's 10 s of collection).
unexport PYTHONDONTWRITEBYTECODE

# Tests run in parallel (pytest-xdist): one worker more than the machine has cores, since the
# live-server, browser and timer tests wait part of the time (with one per core a 2-core machine
# stands idle a quarter of the run; with two more, the extra browsers and servers cost more than
# they fill), and idle workers take tests from busy ones (worksteal), so no worker finishes
# long before the others. PYTEST_ARGS="-n 0" runs them in one process.
WORKERS ?= $(shell $(PYTHON) -c 'import os; print(len(getattr(os, "sched_getaffinity", lambda _: range(os.cpu_count() or 1))(0)) + 1)' 2>/dev/null || echo 2)
PYTEST_ARGS ?= -n $(WORKERS) --dist worksteal

.PHONY: install run test lint typecheck imports pytest clean messages

# One pip install each, which says how far along it is (yahtzee/install.py): make run installs
# the server's packages, make test the project with its tools and tests (which the server's
# stamp then counts too).
$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "Python 3.11 or newer (with venv) is needed"; exit 1; }
	@$(PYTHON) -m yahtzee.install --dev --venv $(VENV)
	@touch $@ $(RUN_STAMP)

$(RUN_STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "Python 3.11 or newer (with venv) is needed"; exit 1; }
	@test $(STAMP) -nt pyproject.toml || $(PYTHON) -m yahtzee.install --venv $(VENV)
	@touch $@

install: $(STAMP)

# The server answers as soon as it has migrated the database (in its own process: one Django
# start, not two); the computer players' tables are built in the background inside it, one
# line each (games/store/tables.py; cached in var/bots). Daphne serves the same application too
# ($(BIN)/daphne yahtzee.asgi:application, after manage.py migrate).
run: $(RUN_STAMP)
	$(BIN)/python -m yahtzee.prepare  # once: ./var and its secret key (the settings only read them)
	$(BIN)/python -m yahtzee.serve --migrate --host $(HOST) --port $(PORT) --task-worker  # migrates, then serves with uvicorn, as production, with the task worker (notices) in-process

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# mypy's cache is kept in the user's cache between checkouts, as the solver tables are: a clean
# clone checks every module from scratch (13 s here), against a second or two with it. mypy checks
# each cached module against its source's hash, so a changed file is checked again.
MYPY_CACHE_DIR ?= $(HOME)/.cache/yahtzee/mypy
typecheck: install
	$(BIN)/mypy --cache-dir "$(MYPY_CACHE_DIR)"

imports: install
	$(BIN)/lint-imports

# With DATABASE_URL set (CI) the suite runs on PostgreSQL; the embedded default's own action
# path (tests/services/test_sqlite_turns.py, test_kept_row.py) then runs once more on SQLite, as on a laptop.
pytest: install
	$(BIN)/python manage.py makemigrations --check --dry-run >/dev/null
	$(BIN)/pytest $(PYTEST_ARGS) --durations=25  # the slowest: where the suite's time goes (docs/performance.md, bench/suite_cpu.py)
	@if [ -n "$$DATABASE_URL" ]; then env -u DATABASE_URL -u REDIS_URL -u REQUIRE_SERVICES $(BIN)/pytest -q -p no:cacheprovider tests/services/test_sqlite_turns.py tests/services/test_kept_row.py; fi

test: lint typecheck imports pytest

# The translations (docs/translations.md): every marked string of the code, the templates and the
# pages' JavaScript into locale/*/LC_MESSAGES/*.po (new ones empty, for a translator), then the
# .po files compiled into the .mo files the server reads (both are in the repository, so `make
# run` needs no gettext). Needs GNU gettext (apt-get install gettext), and Django in .venv: the
# server's packages, as `make run` installs them (a fresh clone gets them first), not make test's tools.
LANGS := da sv de fr es
MESSAGES_IGNORE := --ignore='.venv/*' --ignore='var/*' --ignore='tests/*' --ignore='bench/*'
# A catalog may end with django-allauth's and Django's own words in the site's voice (the
# Spanish "tú"): the code marks none of them, so makemessages drops them, and they are put back
# after it.
messages: $(RUN_STAMP)
	mkdir -p var && for l in $(LANGS); do sed -n '/^# django-allauth.s own words/,$$p' locale/$$l/LC_MESSAGES/django.po > var/allauth-words-$$l.po; done
	$(BIN)/python manage.py makemessages $(addprefix -l ,$(LANGS)) $(MESSAGES_IGNORE) --no-location --no-obsolete
	for l in $(LANGS); do if [ -s var/allauth-words-$$l.po ]; then echo >> locale/$$l/LC_MESSAGES/django.po && cat var/allauth-words-$$l.po >> locale/$$l/LC_MESSAGES/django.po; fi; done
	$(BIN)/python manage.py makemessages -d djangojs $(addprefix -l ,$(LANGS)) $(MESSAGES_IGNORE) --no-location --no-obsolete
	$(BIN)/python manage.py compilemessages $(MESSAGES_IGNORE)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis .import_linter_cache

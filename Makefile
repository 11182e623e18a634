# The two commands a fresh clone needs: `make run` and `make test`.
# Everything else here is a step of theirs, or a convenience for developers.

PYTHON ?= python3
UV_VERSION := 0.13.8
VENV := .venv
BIN := $(VENV)/bin
UV := .tools/bin/uv
HOST ?= 127.0.0.1
PORT ?= 8000
# Parallel test processes (pytest-xdist); one per core by default.
TEST_WORKERS ?= auto
# The database role the service connects as (casino/shared/db_roles.py): migrations are made
# as DATABASE_URL's role (the owner); `make runtime-role` creates the runtime role, a step of
# its own (the role is the server's, not only this database's); run, serve, worker and beat
# then connect with its DATABASE_URL (manage.py runtime_role_url) and say so. Give it a
# password when the server's pg_hba.conf wants one.
RUNTIME_ROLE ?= casino_app
RUNTIME_PASSWORD ?=
RUNTIME_ARGS = $(RUNTIME_ROLE) $(if $(RUNTIME_PASSWORD),--password '$(RUNTIME_PASSWORD)')
AS_RUNTIME = url="$$($(BIN)/python manage.py runtime_role_url $(RUNTIME_ARGS))" && \
	echo "==> connecting to the database as the role $(RUNTIME_ROLE) (made by make runtime-role)" && \
	DATABASE_OWNER_URL="$${DATABASE_OWNER_URL:-$${DATABASE_URL:-}}" DATABASE_URL="$$url"
# run and serve start the ledger's sealer beside the server (without Celery beat nothing else
# seals; with it, two sealers take turns) and stop it when the server stops.
SEALING = sh docker/with-sealer.sh $(BIN)/python
# make serve: gunicorn with DEBUG off. Plain HTTP on HOST:PORT unless SERVE_TLS=true (behind a
# proxy that terminates TLS: then HTTPS redirects, secure cookies and HSTS, as in production).
SERVE_WORKERS ?= 2
SERVE_TLS ?= false
SERVE_ENV = DJANGO_DEBUG=false \
	DJANGO_ALLOWED_HOSTS="$${DJANGO_ALLOWED_HOSTS:-$(HOST),localhost}" \
	DJANGO_SECURE_SSL_REDIRECT=$(SERVE_TLS) DJANGO_SESSION_COOKIE_SECURE=$(SERVE_TLS) \
	DJANGO_CSRF_COOKIE_SECURE=$(SERVE_TLS) DJANGO_SECURE_HSTS_PRELOAD=$(SERVE_TLS) \
	$(if $(filter true,$(SERVE_TLS)),,DJANGO_SECURE_HSTS_SECONDS=0)

# uv installs exactly what uv.lock pins, into .venv, with the machine's own Python.
export UV_PROJECT_ENVIRONMENT := $(VENV)
export UV_PYTHON_DOWNLOADS := never
export UV_PYTHON := $(PYTHON)

.DEFAULT_GOAL := help
.PHONY: help install env db migrate runtime-role static demo run serve worker beat test test-fast test-slow roles-check lint typecheck bench clean

help:
	@echo "make run        install, migrate, make the runtime role, load the demo floor, serve on http://$(HOST):$(PORT)"
	@echo "make serve      production-like: DEBUG off, static files collected, gunicorn, the runtime role"
	@echo "make runtime-role  create or update the database role the service connects as"
	@echo "make test       install, then run every test (slow ones included)"
	@echo "make test-fast  every test but the slow exhaustive/load ones"
	@echo "make test-slow  only the slow tests"
	@echo "make roles-check  migrate as the owner, then verify the ledger as the runtime role"
	@echo "make worker     a Celery worker (needs CELERY_BROKER_URL), as the runtime role"
	@echo "make beat       the Celery beat scheduler, as the runtime role"
	@echo "make lint       ruff and mypy"
	@echo "make bench      the benchmarks under bench/"

$(UV):
	@echo "==> installing uv $(UV_VERSION) into .tools"
	$(PYTHON) -m venv .tools
	.tools/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

$(VENV)/.installed: uv.lock pyproject.toml | $(UV)
	@echo "==> installing the locked dependencies into $(VENV)"
	$(UV) sync --frozen
	@touch $@

install: $(VENV)/.installed env

# A development .env with a fresh secret, made once; real environment variables win over it.
env: .env
.env:
	@echo "==> creating .env for development (DJANGO_DEBUG=true, fresh secret key)"
	@sed "s/^DJANGO_SECRET_KEY=.*/DJANGO_SECRET_KEY=$$($(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(50))')/" .env.example > .env

# Starts the embedded PostgreSQL server when DATABASE_URL is unset (no-op otherwise).
db: install
	@$(BIN)/python -c "import os; os.environ.get('DATABASE_URL') or __import__('casino.embedded_db').embedded_db.database_settings(__import__('pathlib').Path('.data/pg').resolve())"

migrate: db
	$(BIN)/python manage.py migrate --noinput

# The role the service, the worker and beat connect as: owns nothing, holds only what the
# service uses. A server-wide role, so a step of its own; safe to run again.
runtime-role: migrate
	@echo "==> creating or updating the database role $(RUNTIME_ROLE) the service connects as"
	@$(BIN)/python manage.py create_runtime_role $(RUNTIME_ARGS) >/dev/null

# With DEBUG off static files are served from here by their hashed names (whitenoise).
static: install
	DJANGO_DEBUG=false $(BIN)/python manage.py collectstatic --noinput --verbosity 0

demo: migrate
	$(BIN)/python manage.py seed_demo

run: demo runtime-role
	@echo ""
	@echo "  Console:   http://$(HOST):$(PORT)/        (the floor; sign in as dealer / dealer-demo-2026)"
	@echo "  Admin:     http://$(HOST):$(PORT)/admin/"
	@echo "  API:       http://$(HOST):$(PORT)/api/v1/"
	@echo "  Health:    http://$(HOST):$(PORT)/api/v1/health"
	@echo "  Schema:    http://$(HOST):$(PORT)/api/schema/"
	@echo "  API docs:  http://$(HOST):$(PORT)/api/docs/"
	@echo "  Log in with a demo user above; get a token with"
	@echo "    curl -s -X POST http://$(HOST):$(PORT)/api/v1/auth/token -H 'Content-Type: application/json' -d '{\"username\": \"dealer\", \"password\": \"dealer-demo-2026\"}'"
	@echo ""
	@$(AS_RUNTIME) $(SEALING) $(BIN)/python manage.py runserver $(HOST):$(PORT)

# A production-like start without Docker (docker/ has the same with containers).
serve: runtime-role static
	@echo ""
	@echo "  Console:   http://$(HOST):$(PORT)/   (DEBUG off, gunicorn, $(SERVE_WORKERS) workers)"
	@echo ""
	@$(AS_RUNTIME) $(SERVE_ENV) $(SEALING) $(BIN)/gunicorn casino.wsgi:application \
		--bind $(HOST):$(PORT) --workers $(SERVE_WORKERS) --access-logfile -

worker: migrate
	@$(AS_RUNTIME) $(BIN)/celery -A casino worker --loglevel=INFO

beat: migrate
	@$(AS_RUNTIME) $(BIN)/celery -A casino beat --loglevel=INFO

test: db
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=15

test-fast: db
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup -m "not slow"

test-slow: db
	$(BIN)/python -m pytest -m slow -s

# The service's role can log in and read the whole ledger, and owns nothing (CI runs it).
roles-check: runtime-role
	@$(AS_RUNTIME) $(BIN)/python manage.py ledger_seal
	@$(AS_RUNTIME) $(BIN)/python manage.py ledger_verify
	@$(AS_RUNTIME) $(BIN)/python manage.py check --deploy --tag database_role --fail-level WARNING

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy .

typecheck: install
	$(BIN)/mypy .

# floor_bench.py is left out: it plays for tens of minutes, against DATABASE_URL's own
# database rather than a scratch one (docs/benchmarks.md), so it is run on its own.
bench: db
	@for b in bench/*_bench.py; do case $$b in bench/floor_bench.py) continue;; esac; \
		echo "==> $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .tools .pytest_cache .mypy_cache .ruff_cache

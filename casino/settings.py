"""Django settings for the Pai Gow Poker accounting service.

Every setting that differs between machines comes from the environment (or a ``.env`` file
in the checkout, which ``make`` creates for development). Each variable is listed in the
README's configuration table. Nothing secret has a default unless ``DJANGO_DEBUG`` is on.
"""

from __future__ import annotations

import hashlib
import re
import sys
from datetime import timedelta
from pathlib import Path
from urllib.parse import unquote

import environ
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
# Real environment variables win over the .env file (read_env only sets what is missing).
if (BASE_DIR / ".env").is_file():
    env.read_env(str(BASE_DIR / ".env"))

DEBUG = env.bool("DJANGO_DEBUG", default=False)

# A secret with a default is only acceptable on a developer's machine.
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY must be set (or DJANGO_DEBUG=true for development)."
        )
    SECRET_KEY = "development-only-insecure-key-do-not-use-in-production"  # noqa: S105

ALLOWED_HOSTS = env.list(
    "DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"] if DEBUG else []
)
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    # Counts failed logins and locks a username at an address out (casino/shared/auth.py).
    "axes",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "csp",
    "casino",
    "ledger",
    "rounds",
    "reports",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A player's session reaches only /play/ (and the API, which refuses per operation):
    # the console and the admin answer it 403 (casino/shared/player_scope.py).
    "casino.shared.player_scope.PlayerScopeMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # request.htmx: the console's screens answer a partial to htmx and a page otherwise.
    "django_htmx.middleware.HtmxMiddleware",
    # Refusals are written after every transaction of the request (casino/shared/refusals.py).
    "casino.shared.refusals.RefusalMiddleware",
    # Content-Security-Policy on every page (the admin, the API docs); CONTENT_SECURITY_POLICY.
    "csp.middleware.CSPMiddleware",
    # Cache-Control: no-store on the API's answers, replayed ones included.
    "casino.shared.api.middleware.NoStoreMiddleware",
    # A token that is not text is refused as a bad token, before anything looks it up.
    "casino.shared.api.middleware.TokenTextMiddleware",
    # Safe retries of every API POST (Idempotency-Key); see casino/shared/idempotency.py.
    "casino.shared.idempotency.IdempotencyMiddleware",
    # Last, so that it turns a locked-out login's answer into the lockout page or error.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "casino.urls"
WSGI_APPLICATION = "casino.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "casino.context_processors.console",
                "casino.context_processors.play",
            ],
            # The filters every app's templates load by name (casino/shared/templatetags):
            # casino.shared is no Django app of its own, so they are named here.
            "libraries": {
                name: f"casino.shared.templatetags.{name}"
                for name in ("casino_time", "money", "posts", "words")
            },
        },
    },
]

# --- Database: PostgreSQL everywhere ------------------------------------------------------
def database_from_url(name: str, url: str) -> dict:
    config = env.db_url_config(url)
    # libpq's convention for a Unix socket: the directory percent-encoded as the host
    # (postgres://user@%2Fvar%2Frun%2Fpostgresql/casino), which django-environ leaves encoded.
    config["HOST"] = unquote(config.get("HOST") or "")
    if config["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured(f"{name} must point at a PostgreSQL server.")
    return config


DATABASE_URL = env.str("DATABASE_URL", default="")
if DATABASE_URL:
    _db = database_from_url("DATABASE_URL", DATABASE_URL)
else:
    from casino.embedded_db import database_settings

    _db = database_settings(BASE_DIR / ".data" / "pg")

_db.setdefault("OPTIONS", {})
# Parameters bound by the server, and a statement run this many times on a connection
# prepared there (psycopg's prepare_threshold, which Django turns off by default for the sake
# of a transaction-mode pooler in front of the server; there is none here, and a
# session-mode pooler keeps both working). PostgreSQL then neither parses nor plans the
# statements every request runs again (docs/benchmarks.md).
_db["OPTIONS"].setdefault("server_side_binding", True)
_db["OPTIONS"].setdefault("prepare_threshold", env.int("DATABASE_PREPARE_THRESHOLD", default=2))
if env.bool("DATABASE_POOL", default=True):
    # psycopg's pool through Django: one pool per process (gunicorn worker, celery worker).
    _db["OPTIONS"]["pool"] = {
        "min_size": env.int("DATABASE_POOL_MIN_SIZE", default=1),
        "max_size": env.int("DATABASE_POOL_MAX_SIZE", default=20),
        "timeout": env.float("DATABASE_POOL_TIMEOUT", default=10.0),
    }
    # Django's PostgreSQL backend whose pool tests each connection before handing it out
    # and, on a dead one, checks the whole pool at once (casino/shared/db_backend): after a
    # restart or failover of the database every pooled connection is dead.
    _db["ENGINE"] = "casino.shared.db_backend"
_db["CONN_MAX_AGE"] = 0  # the pool, not Django, keeps connections open
DATABASES = {"default": _db}
# The ledger's sealer (ledger.services.entries_seal) runs every LEDGER_SEAL_EVERY_SECONDS;
# ledger_verify calls an entry left unsealed longer than LEDGER_SEAL_WITHIN_SECONDS a
# failure. Its checkpoints are signed with LEDGER_CHECKPOINT_KEY (derived from the secret
# key when unset): whoever holds the database but not the key cannot write one.
LEDGER_SEAL_EVERY_SECONDS = env.float("LEDGER_SEAL_EVERY_SECONDS", default=10.0)
LEDGER_SEAL_WITHIN_SECONDS = env.int("LEDGER_SEAL_WITHIN_SECONDS", default=60)
LEDGER_CHECKPOINT_KEY = env.str("LEDGER_CHECKPOINT_KEY", default="") or hashlib.sha256(
    f"ledger-checkpoint:{SECRET_KEY}".encode()).hexdigest()

# A replica the reports read from (casino/shared/db_router.py); unset, they read the default
# database like everything else. Tests use the default database.
DATABASE_REPORTS_URL = env.str("DATABASE_REPORTS_URL", default="")
if DATABASE_REPORTS_URL:
    _reports = database_from_url("DATABASE_REPORTS_URL", DATABASE_REPORTS_URL)
    _reports["OPTIONS"] = dict(_db["OPTIONS"])
    _reports["ENGINE"], _reports["CONN_MAX_AGE"] = _db["ENGINE"], 0
    # A replica is read-only: its tables are never created or migrated through it.
    _reports["TEST"] = {"MIRROR": "default"}
    DATABASES["reports"] = _reports
DATABASE_ROUTERS = ["casino.shared.db_router.ReportsRouter"]

# The tables' owner, for `migrate` and `create_runtime_role` only (casino/shared/db_roles.py); the
# service itself connects as DATABASE_URL's role, which should own nothing. Same server
# and database, other credentials; unset, migrations run as DATABASE_URL's role.
DATABASE_OWNER_URL = env.str("DATABASE_OWNER_URL", default="")
DATABASE_OWNER: dict[str, object] | None = None
if DATABASE_OWNER_URL:
    _owner = database_from_url("DATABASE_OWNER_URL", DATABASE_OWNER_URL)
    if _owner["NAME"] != _db["NAME"]:
        raise ImproperlyConfigured(
            "DATABASE_OWNER_URL must name the same database as DATABASE_URL "
            f"({_owner['NAME']!r} is not {_db['NAME']!r}).")
    DATABASE_OWNER = {key: _owner.get(key, "") for key in ("USER", "PASSWORD", "HOST", "PORT")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The API's throttle counts live here: give every process the same (e.g. redis://...) in
# production, or each process counts on its own.
CACHES = {"default": env.cache_url("CACHE_URL", default="locmemcache://")}

# axes first: it refuses a locked-out username before any password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# The console signs staff in with the same accounts and roles as the admin.
LOGIN_URL = "console:login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "console:login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = env.str("DJANGO_TIME_ZONE", default="Europe/Amsterdam")
# A gaming day runs from this local hour to the same hour the next day (reports, rounds).
GAMING_DAY_START_HOUR = env.int("GAMING_DAY_START_HOUR", default=6)
# The name printed on the auditors' report files.
CASINO_NAME = env.str("CASINO_NAME", default="Pai Gow Poker casino")
# The youngest a player may be at registration, in years (casino.services.player_create).
CASINO_MIN_PLAYER_AGE = env.int("CASINO_MIN_PLAYER_AGE", default=18)
USE_I18N = True
USE_TZ = True
# How the console writes and reads amounts: the decimal and thousands separators of this
# locale, from Django's own format files ("de" or "nl": 12.379,50; "en": 12,379.50). Only
# the screens follow it; the API, CSV files and reports' data keep the machine's "12379.50"
# (casino.shared.money.amount_show / amount_read). The site's language stays LANGUAGE_CODE.
CASINO_LOCALE = env.str("CASINO_LOCALE", default="en")
if not re.fullmatch(r"[a-z]{2,3}([-_][A-Za-z]{2,4})?", CASINO_LOCALE):
    raise ImproperlyConfigured("CASINO_LOCALE must be a locale name such as en, de or nl, "
                               f"not {CASINO_LOCALE!r}.")
# Times written one way everywhere, the admin included (casino/shared/formats/en/formats.py).
FORMAT_MODULE_PATH = ["casino.shared.formats"]

STATIC_URL = "static/"
STATIC_ROOT = Path(env.str("DJANGO_STATIC_ROOT", default=str(BASE_DIR / ".data" / "static")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise expects it even before collectstatic
# Files the service writes (the auditors' report files), through Django's default storage;
# never served as static files: a report's file is handed out by its API view, which
# checks who asks.
MEDIA_ROOT = Path(env.str("DJANGO_MEDIA_ROOT", default=str(BASE_DIR / ".data" / "media")))
MEDIA_URL = "/media/"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# Serve static files straight from the apps when collectstatic has not been run (development).
WHITENOISE_USE_FINDERS = DEBUG
# Files served at the site's root: /favicon.ico, which browsers ask for on every page (the
# admin's and the API docs' too); the console's pages link the SVG one in console/.
WHITENOISE_ROOT = BASE_DIR / "casino" / "public"

# --- Security (on whenever DEBUG is off) ----------------------------------------------------
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=not DEBUG)
SESSION_COOKIE_SECURE = env.bool("DJANGO_SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env.bool("DJANGO_CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# Pages load only what the service itself serves: the admin and the API docs (Swagger UI and
# Redoc from drf-spectacular-sidecar, Swagger's start script from its own URL, see
# casino/urls.py) need no inline script and nothing from another origin. Inline styles stay
# allowed: the docs' page templates and Redoc set them, and a style cannot run code.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "worker-src": ["'self'", "blob:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
# The health check is probed over plain HTTP by load balancers inside the network.
SECURE_REDIRECT_EXEMPT = [r"^api/v1/health$"]

# --- Dual control (casino/shared/approvals.py) ----------------------------------------------------
# When on, a reversal (ledger entry, cage correction, round) or a results-only settlement
# asked by one person takes effect only once a second person with the right approves it.
CASINO_DUAL_CONTROL = env.bool("CASINO_DUAL_CONTROL", default=False)
# A deposit or withdrawal above this (a decimal in the player's currency) waits for a pit
# boss's approval.
CASINO_CAGE_APPROVAL_ABOVE = env.str("CASINO_CAGE_APPROVAL_ABOVE", default="10000.00")
if not re.fullmatch(r"\d{1,13}(\.\d{1,2})?", CASINO_CAGE_APPROVAL_ABOVE):
    raise ImproperlyConfigured("CASINO_CAGE_APPROVAL_ABOVE must be a plain decimal such as "
                               "10000.00.")
# A buy-in that brings the player's buy-ins at one table in one gaming day above this (a
# decimal in the table's currency) waits for a pit boss's approval (rounds.services.drop):
# the same effect on the player's account as a deposit at the cage, so a line of its own.
CASINO_BUY_IN_APPROVAL_ABOVE = env.str("CASINO_BUY_IN_APPROVAL_ABOVE", default="2000.00")
if not re.fullmatch(r"\d{1,13}(\.\d{1,2})?", CASINO_BUY_IN_APPROVAL_ABOVE):
    raise ImproperlyConfigured("CASINO_BUY_IN_APPROVAL_ABOVE must be a plain decimal such as "
                               "2000.00.")

# --- The floor's variance check (rounds/variance.py, docs/rules.md §12.3) -----------------
# A table's day is flagged outside its 95 % band only once it has this many settled
# house-banked rounds. The band is 1.96 standard deviations of a normal curve laid over a
# sum of three-outcome results (a seat wins 0.95, pushes or loses 1 per unit wagered; one
# wager's standard deviation is about 0.75 of it, from rounds/paigow/edge_counts.json).
# Up to 5 rounds a 3-standard-deviation band (2.26 x wager x sqrt(n)) is wider than every
# stake played, and below about 20 the exact chance that a fair table falls outside the
# 95 % band swings between 0 % and 6.3 % with the round count; at 30 it is 5.5 % and the
# band is +/- 27 % of the wagers: a flag then says something about the table, not about a
# handful of hands. The reasoning, worked out: docs/rules.md §12.3.
CASINO_VARIANCE_MIN_ROUNDS = env.int("CASINO_VARIANCE_MIN_ROUNDS", default=30)
if CASINO_VARIANCE_MIN_ROUNDS < 1:
    raise ImproperlyConfigured("CASINO_VARIANCE_MIN_ROUNDS must be a whole number of rounds, "
                               "1 or more.")

# --- A player's own limits (casino/player_limits.py) -----------------------------------------
# A player's raise of their daily wager or loss limit (or its removal) takes effect this
# many hours after they ask; a lower limit, at once.
PLAYER_LIMIT_RAISE_HOURS = env.int("PLAYER_LIMIT_RAISE_HOURS", default=24)
if PLAYER_LIMIT_RAISE_HOURS < 0:
    raise ImproperlyConfigured("PLAYER_LIMIT_RAISE_HOURS must be a whole number of hours, "
                               "0 or more.")

# --- Cash rules (casino/cash.py, docs/rules.md "Cash at the cage and the tables") ----------
# Each a decimal in the player's currency, counted per player and gaming day, cash in and
# cash out apart. A day that reaches the identity line (2,000.00 itself included) needs an
# identity on file (EU AMLD art. 11(d): "EUR 2 000 or more"); a single movement strictly
# above the log line goes in the multiple transaction log; a day strictly above the report
# line makes a cash transaction report (US 31 CFR 1021.311: more than 10,000).
CASH_LINES = ("CASINO_ID_REQUIRED_FROM", "CASINO_CASH_LOG_ABOVE", "CASINO_CASH_REPORT_ABOVE")
# Environment variables set under an older name, as {old: new}: the old one is still read
# when the new one is not set, and the checks warn while it is set (casino.W003).
DEPRECATED_SETTINGS: dict[str, str] = {}
# The identity line was named CASINO_ID_REQUIRED_ABOVE while a day could reach it without
# an identity; its value is now the amount from which one is needed.
if "CASINO_ID_REQUIRED_ABOVE" in env:
    DEPRECATED_SETTINGS["CASINO_ID_REQUIRED_ABOVE"] = "CASINO_ID_REQUIRED_FROM"
CASINO_ID_REQUIRED_FROM = env.str(
    "CASINO_ID_REQUIRED_FROM", default=env.str("CASINO_ID_REQUIRED_ABOVE", default="2000.00"))
CASINO_CASH_LOG_ABOVE = env.str("CASINO_CASH_LOG_ABOVE", default="3000.00")
CASINO_CASH_REPORT_ABOVE = env.str("CASINO_CASH_REPORT_ABOVE", default="10000.00")
for _line in CASH_LINES:
    if not re.fullmatch(r"\d{1,13}(\.\d{1,2})?", globals()[_line]):
        raise ImproperlyConfigured(f"{_line} must be a plain decimal such as 2000.00.")

# --- REST API -------------------------------------------------------------------------------
REST_FRAMEWORK = {
    # knox's tokens: stored hashed, expiring (REST_KNOX below), revoked by deletion.
    "DEFAULT_AUTHENTICATION_CLASSES": ["knox.auth.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"]
    + (["rest_framework.renderers.BrowsableAPIRenderer"] if DEBUG else []),
    "DEFAULT_PARSER_CLASSES": ["casino.shared.api.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "casino.shared.api.pagination.Pagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "casino.shared.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "COERCE_DECIMAL_TO_STRING": True,
    # The throttles' client address (settings.TRUSTED_PROXY_COUNT, below): with NUM_PROXIES
    # unset DRF would count by whatever X-Forwarded-For a client sends.
    "NUM_PROXIES": env.int("TRUSTED_PROXY_COUNT", default=0),
}

# Tokens expire after API_TOKEN_TTL_HOURS (0 = never); knox stores only their hash.
_ttl_hours = env.int("API_TOKEN_TTL_HOURS", default=12)
REST_KNOX = {
    "TOKEN_TTL": timedelta(hours=_ttl_hours) if _ttl_hours > 0 else None,
    "AUTO_REFRESH": False,
}

# Live tokens one user may hold at once (0: no cap); a login past it is refused (409).
API_TOKEN_LIMIT_PER_USER = env.int("API_TOKEN_LIMIT_PER_USER", default=5)

# --- Logins: lockout (django-axes) and throttling -------------------------------------------
# Attempts at POST /api/v1/auth/token per client address, right or wrong (casino.shared.auth).
API_LOGIN_THROTTLE_RATE = env.str("API_LOGIN_THROTTLE_RATE", default="20/minute")
# A username is locked out at one client address after LOGIN_FAILURE_LIMIT failed logins
# (admin or API), for LOGIN_LOCKOUT_MINUTES (0: until an administrator lifts it with
# `manage.py axes_reset_username NAME` or by deleting the attempt in the admin). Attempts are
# kept in the database, so every process sees the same counts.
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=5)
_lockout_minutes = env.int("LOGIN_LOCKOUT_MINUTES", default=15)
AXES_COOLOFF_TIME = timedelta(minutes=_lockout_minutes) if _lockout_minutes > 0 else None
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_LOCKOUT_CALLABLE = "casino.shared.auth.lockout_response"
AXES_HTTP_RESPONSE_CODE = 429
# The client's address, one rule for the lockout (axes) and the login throttle (DRF):
# REMOTE_ADDR, never an address a client can choose with a header, unless
# TRUSTED_PROXY_COUNT proxies of the casino's own stand in front and each appends to
# X-Forwarded-For (then the address that many hops from its end).
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)
if TRUSTED_PROXY_COUNT < 0:
    raise ImproperlyConfigured("TRUSTED_PROXY_COUNT must be 0 or more.")
AXES_IPWARE_PROXY_COUNT = TRUSTED_PROXY_COUNT
AXES_IPWARE_META_PRECEDENCE_ORDER = (("HTTP_X_FORWARDED_FOR", "REMOTE_ADDR")
                                     if TRUSTED_PROXY_COUNT else ("REMOTE_ADDR",))

SPECTACULAR_SETTINGS = {
    "TITLE": "Pai Gow Poker accounting API",
    "DESCRIPTION": (
        "Tables, players, rounds with player banking, and the double-entry ledger behind them. "
        'Authenticate with `Authorization: Token <token>` from `POST /api/v1/auth/token`. '
        'Every error has the shape `{"error": {"code", "message", "detail"}}`.'
    ),
    "VERSION": None,  # filled from pyproject below
    "SERVE_INCLUDE_SCHEMA": False,
    # The schema and its docs pages are public, the same for every caller: no
    # authentication is tried on them, so a stale or wrong token is not a 401 where no
    # token is a 200. They describe the API's shape, no data; every operation still
    # needs its token.
    "SERVE_PUBLIC": True,
    "SERVE_AUTHENTICATION": [],
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Swagger UI would fetch a validity badge from another site; the policy refuses it.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "COMPONENT_SPLIT_REQUEST": True,
    # The identity document's kinds, named once whichever field carries them.
    "ENUM_NAME_OVERRIDES": {"IdDocumentKindEnum": "casino.models.IdDocument",
                            "ExclusionKindEnum": "casino.models.Exclusion.Kind"},
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "casino.shared.api.schema.add_error_responses",
    ],
}
from casino.version import VERSION  # noqa: E402

SPECTACULAR_SETTINGS["VERSION"] = VERSION

# --- Celery ---------------------------------------------------------------------------------
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="")
CELERY_RESULT_BACKEND = env.str(
    "CELERY_RESULT_BACKEND",
    default=CELERY_BROKER_URL if CELERY_BROKER_URL.startswith("redis") else "",
)
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True  # a task lost with its worker is redelivered, not dropped
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
# The previous gaming day is closed at this local hour (rounds.gaming_day_close): after
# the day's start hour, so the night's last rounds are settled by then.
# A self-service game left unfinished this long after its deal is finished by the house way
# (rounds.services.games), so its wager is not held for ever.
SELF_SERVICE_FINISH_AFTER_MINUTES = env.int("SELF_SERVICE_FINISH_AFTER_MINUTES", default=30)
GAMING_DAY_CLOSE_HOUR = env.int("GAMING_DAY_CLOSE_HOUR", default=(GAMING_DAY_START_HOUR + 1) % 24)
if not 0 <= GAMING_DAY_CLOSE_HOUR <= 23:
    raise ImproperlyConfigured("GAMING_DAY_CLOSE_HOUR must be an hour, 0 to 23.")
CELERY_BEAT_SCHEDULE = {
    # Idempotency-Keys are kept at least 24 hours (casino/shared/idempotency.py).
    "purge-idempotency-keys": {"task": "casino.idempotency_keys_purge", "schedule": 3600.0},
    "close-gaming-day": {"task": "rounds.gaming_day_close",
                         "schedule": crontab(hour=GAMING_DAY_CLOSE_HOUR, minute=0)},
    # A self-service game left unfinished after its deal is finished by the house way.
    "finish-abandoned-games": {"task": "rounds.games_finish_abandoned", "schedule": 300.0},
    # Entries are hashed into blocks after commit (ledger.services.entries_seal).
    "seal-ledger": {"task": "ledger.seal", "schedule": LEDGER_SEAL_EVERY_SECONDS},
}
if CELERY_TASK_ALWAYS_EAGER and "celery" not in Path(sys.argv[0]).name:
    print(
        "CELERY_BROKER_URL is not set: background tasks run eagerly in this process.",
        file=sys.stderr,
    )

# --- Logging --------------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    # A 403 is logged in one line (who, what, where), without a traceback.
    "filters": {"forbidden": {"()": "casino.shared.log.ForbiddenInOneLine"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"pgserver": {"level": "WARNING"},
                "django.request": {"filters": ["forbidden"]}},
}

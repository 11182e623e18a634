"""Django settings for the Pai Gow Poker accounting service.

Every setting that differs between machines comes from the environment (or a ``.env`` file
in the checkout, which ``make`` creates for development). Each variable is listed in the
README's configuration table. Nothing secret has a default unless ``DJANGO_DEBUG`` is on.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path
from urllib.parse import unquote

import environ
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
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "casino",
    "ledger",
    "rounds",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # request.htmx: the console's screens answer a partial to htmx and a page otherwise.
    "django_htmx.middleware.HtmxMiddleware",
    # Safe retries of every API POST (Idempotency-Key); see casino/idempotency.py.
    "casino.idempotency.IdempotencyMiddleware",
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
            ],
        },
    },
]

# --- Database: PostgreSQL everywhere ------------------------------------------------------
DATABASE_URL = env.str("DATABASE_URL", default="")
if DATABASE_URL:
    _db = env.db_url_config(DATABASE_URL)
    # libpq's convention for a Unix socket: the directory percent-encoded as the host
    # (postgres://user@%2Fvar%2Frun%2Fpostgresql/casino), which django-environ leaves encoded.
    _db["HOST"] = unquote(_db.get("HOST") or "")
    if _db["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured("DATABASE_URL must point at a PostgreSQL server.")
else:
    from casino.embedded_db import database_settings

    _db = database_settings(BASE_DIR / ".data" / "pg")

_db.setdefault("OPTIONS", {})
if env.bool("DATABASE_POOL", default=True):
    # psycopg's pool through Django: one pool per process (gunicorn worker, celery worker).
    _db["OPTIONS"]["pool"] = {
        "min_size": env.int("DATABASE_POOL_MIN_SIZE", default=1),
        "max_size": env.int("DATABASE_POOL_MAX_SIZE", default=20),
        "timeout": env.float("DATABASE_POOL_TIMEOUT", default=10.0),
    }
_db["CONN_MAX_AGE"] = 0  # the pool, not Django, keeps connections open
DATABASES = {"default": _db}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# The console signs staff in with the same accounts and roles as the admin.
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = env.str("DJANGO_TIME_ZONE", default="Europe/Amsterdam")
# A gaming day runs from this local hour to the same hour the next day (reports, rounds).
GAMING_DAY_START_HOUR = env.int("GAMING_DAY_START_HOUR", default=6)
USE_I18N = True
USE_TZ = True
# Times written one way everywhere, the admin included (casino/formats/en/formats.py).
FORMAT_MODULE_PATH = ["casino.formats"]

STATIC_URL = "static/"
STATIC_ROOT = Path(env.str("DJANGO_STATIC_ROOT", default=str(BASE_DIR / ".data" / "static")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise expects it even before collectstatic
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
# The health check is probed over plain HTTP by load balancers inside the network.
SECURE_REDIRECT_EXEMPT = [r"^api/v1/health$"]

# --- REST API -------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["knox.auth.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"]
    + (["rest_framework.renderers.BrowsableAPIRenderer"] if DEBUG else []),
    "DEFAULT_PARSER_CLASSES": ["casino.api.parsers.JSONParser"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "casino.api.pagination.Pagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "casino.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "COERCE_DECIMAL_TO_STRING": True,
}

# Tokens expire after API_TOKEN_TTL_HOURS (0 = never); knox stores only their hash.
_ttl_hours = env.int("API_TOKEN_TTL_HOURS", default=12)
REST_KNOX = {
    "TOKEN_TTL": timedelta(hours=_ttl_hours) if _ttl_hours > 0 else None,
    "AUTO_REFRESH": False,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Pai Gow Poker accounting API",
    "DESCRIPTION": (
        "Tables, players, rounds with player banking, and the double-entry ledger behind them. "
        'Authenticate with `Authorization: Token <token>` from `POST /api/v1/auth/token`. '
        'Every error has the shape `{"error": {"code", "message", "detail"}}`.'
    ),
    "VERSION": None,  # filled from pyproject below
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "casino.api.schema.add_error_responses",
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
CELERY_BEAT_SCHEDULE = {
    # Idempotency-Keys are kept at least 24 hours (casino/idempotency.py).
    "purge-idempotency-keys": {"task": "casino.idempotency_keys_purge", "schedule": 3600.0},
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
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"pgserver": {"level": "WARNING"}},
}

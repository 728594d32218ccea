"""Every setting the app reads from the environment: its variable, type, default and meaning, read
once at start-up (`load`) and checked there, so that a bad value stops the process naming its
variable. config.settings builds Django's settings from it; `.env.example` is written from it
(`python -m config.conf > .env.example`); tests/test_configuration.py holds docs/configuration.md
to it. Constants tuned in code are not here (config.tuning).
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import zoneinfo
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
# Read at start-up; `check --deploy` warns when others can read it (config.checks).
ENV_FILE = BASE_DIR / ".env"

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
# deploy: an operator's decision, in .env.example. advanced: read the same way, but a deploy does
# without it (a fine-grained limit whose default suits every deploy, a runtime internal, or a
# switch the tools and tests set); docs/configuration.md lists it apart.
Level = Literal["deploy", "advanced"]


class ConfigurationError(ImproperlyConfigured):
    """A variable is set but cannot be used; the message names each one."""


@dataclass(frozen=True)
class Var:
    """How one variable is read and documented."""

    default: Any
    help: str  # one line: the comment above it in .env.example
    section: str = ""  # starts a section of .env.example
    derive: Callable[[Mapping[str, Any]], Any] | None = None  # a default from the variables above
    shown: str = ""  # the default as docs/configuration.md says it, when it is not a plain value
    minimum: float | None = None
    maximum: float | None = None
    check: Callable[[Any], str] | None = None  # what is wrong with a value ("" when nothing)
    level: Level = "deploy"


def _rate(value: str) -> str:
    """DRF's throttle rates: a count per second, minute, hour or day."""
    return "" if re.fullmatch(r"\d+/[smhd]\w*", value) else "must look like 120/min (per s, min, hour or day)"


def _time_zone(value: str) -> str:
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return "must be a time zone name such as UTC or Europe/Berlin"
    return ""


@dataclass(frozen=True, kw_only=True)
class Conf:
    """The environment's settings, typed. Unset and empty mean the same: the default."""

    DEBUG: Annotated[
        bool, Var(False, "Django debug mode; with it off a weak SECRET_KEY stops the app", section="Core")
    ]
    SECRET_KEY: Annotated[
        str, Var("", "Signs sessions and seals secrets: 50+ random characters when DEBUG is off")
    ]
    SECRET_KEY_FALLBACKS: Annotated[
        tuple[str, ...], Var((), "Earlier SECRET_KEYs, still accepted (comma-separated)")
    ]
    SEALING_KEYS: Annotated[
        tuple[str, ...], Var((), "Keys sealing secrets at rest, the first seals (empty: SECRET_KEY)")
    ]
    ALLOWED_HOSTS: Annotated[
        tuple[str, ...],
        Var(
            (),
            "Host names served, comma-separated (empty: the loopback names with DEBUG, else none)",
            derive=lambda v: ("localhost", "127.0.0.1", "[::1]") if v["DEBUG"] else (),
            shown="`localhost,127.0.0.1,[::1]` with DEBUG, else none",
        ),
    ]
    CSRF_TRUSTED_ORIGINS: Annotated[
        tuple[str, ...], Var((), "Origins behind a proxy (https://memory.example.com)")
    ]
    TIME_ZONE: Annotated[str, Var("UTC", "Time zone of the pages and the nightly rewrite", check=_time_zone)]
    LOG_LEVEL: Annotated[LogLevel, Var("INFO", "Root log level (and the web server's)")]

    SECURE_COOKIES: Annotated[
        bool,
        Var(
            False,
            "Served over HTTPS: secure cookies, HTTP redirected, HSTS (empty: on when DEBUG is off)",
            section="HTTPS and sign-in (docs/deploy.md)",
            derive=lambda v: not v["DEBUG"],
            shown="`true` when DEBUG is off",
        ),
    ]
    SECURE_SSL_REDIRECT: Annotated[
        bool, Var(True, "With SECURE_COOKIES: redirect plain HTTP to HTTPS", level="advanced")
    ]
    SECURE_HSTS_SECONDS: Annotated[
        int, Var(31_536_000, "With SECURE_COOKIES: the HSTS max-age", minimum=0, level="advanced")
    ]
    SECURE_HSTS_INCLUDE_SUBDOMAINS: Annotated[bool, Var(True, "HSTS covers subdomains")]
    SECURE_HSTS_PRELOAD: Annotated[
        bool, Var(False, "Ask browsers to preload HSTS (only once the domain is HTTPS for good)")
    ]
    LOGIN_FAILURE_LIMIT: Annotated[
        int, Var(5, "Wrong passwords for a username from one address before a refusal", minimum=1)
    ]
    LOGIN_ACCOUNT_FAILURE_LIMIT: Annotated[
        int,
        Var(
            20,
            "Wrong passwords for a username from any addresses before a refusal",
            minimum=1,
            level="advanced",
        ),
    ]
    LOGIN_ADDRESS_FAILURE_LIMIT: Annotated[
        int,
        Var(
            30,
            "Wrong passwords from one address, whatever the usernames, before a refusal",
            minimum=1,
            level="advanced",
        ),
    ]
    LOGIN_ADDRESS_ACCOUNT_LIMIT: Annotated[
        int, Var(10, "Usernames failing from one address before it is refused", minimum=1, level="advanced")
    ]
    LOGIN_COOLOFF_MINUTES: Annotated[int, Var(15, "How long a refusal lasts", minimum=1)]

    HOST: Annotated[
        str, Var("127.0.0.1", "Where the web server listens", section="Web server (config/gunicorn.py)")
    ]
    PORT: Annotated[int, Var(8000, "The web server's port", minimum=1, maximum=65_535)]
    BIND: Annotated[str, Var("", "Overrides HOST and PORT (unix:/run/memory.sock)")]
    WEB_WORKERS: Annotated[int, Var(2, "Worker processes of the web server", minimum=1)]
    REQUEST_TIMEOUT_SECONDS: Annotated[
        float, Var(120.0, "A request not answered by then gets a 504", minimum=1)
    ]
    GRACEFUL_TIMEOUT_SECONDS: Annotated[
        int, Var(30, "On stop, how long requests in flight may finish", minimum=0, level="advanced")
    ]
    FORWARDED_ALLOW_IPS: Annotated[
        str, Var("", "Proxies whose X-Forwarded-For / -Proto are believed (empty: none)")
    ]
    WEB_MAX_REQUESTS: Annotated[
        int, Var(0, "Recycle a worker after this many requests (0: never)", minimum=0, level="advanced")
    ]
    ACCESS_LOG: Annotated[bool, Var(True, "One line per request on stdout")]

    DATABASE_URL: Annotated[
        str,
        Var(
            "",
            "postgres://user:pass@host:5432/db with pgvector (empty: the embedded server)",
            section="Database",
        ),
    ]
    EMBEDDED_PGDATA: Annotated[
        Path, Var(BASE_DIR / "var" / "pgdata", "Data folder of the embedded PostgreSQL", shown="`var/pgdata`")
    ]
    EMBEDDED_DB_NAME: Annotated[str, Var("memory", "Database name in the embedded server", level="advanced")]
    DB_POOL: Annotated[
        bool,
        Var(
            False,
            "psycopg's connection pool",
            shown="`false`; always `true` in the web server",
            level="advanced",
        ),
    ]
    DB_POOL_MIN: Annotated[
        int, Var(1, "Pooled connections per process, at least", minimum=0, level="advanced")
    ]
    DB_POOL_MAX: Annotated[int, Var(8, "Pooled connections per process, at most", minimum=1)]
    DB_POOL_TIMEOUT_SECONDS: Annotated[
        float, Var(5.0, "Wait for a free connection before a 503", minimum=0, level="advanced")
    ]
    DATABASE_RETRY_AFTER_SECONDS: Annotated[
        int,
        Var(5, "Retry-After of the 503 while the database cannot be reached", minimum=0, level="advanced"),
    ]

    REDIS_URL: Annotated[
        str,
        Var(
            "",
            "Jobs' broker and the cache (empty: both in the database)",
            section="Jobs (django-q2) and cache",
        ),
    ]
    Q_CLUSTER_NAME: Annotated[str, Var("memory", "Cluster and queue name")]
    Q_WORKERS: Annotated[int, Var(2, "Worker processes of manage.py qcluster", minimum=1)]
    Q_TIMEOUT: Annotated[int, Var(120, "Seconds before a task is killed (below Q_RETRY)", minimum=1)]
    Q_RETRY: Annotated[int, Var(180, "django-q2's redelivery delay (leases act first)", minimum=1)]
    Q_LEASE_SECONDS: Annotated[
        int, Var(10, "A dead cluster's tasks run elsewhere after at most this", minimum=1, level="advanced")
    ]
    Q_MAX_ATTEMPTS: Annotated[
        int, Var(3, "Attempts per task before it has failed", minimum=1, level="advanced")
    ]
    Q_SYNC: Annotated[
        bool, Var(False, "Run tasks in the calling process (tests, debugging)", level="advanced")
    ]

    OPENAI_API_KEY: Annotated[
        str, Var("", "Key of the OpenAI-compatible endpoint (empty: offline mode)", section="Language model")
    ]
    OPENAI_BASE_URL: Annotated[
        str, Var("", "Any OpenAI-compatible endpoint (empty: OpenAI's)", shown="the openai package's default")
    ]
    CHAT_MODEL: Annotated[str, Var("gpt-4o-mini", "Model of the chat replies")]
    EXTRACTION_MODEL: Annotated[str, Var("gpt-4o-mini", "Model of memory extraction (structured JSON)")]
    LLM_TIMEOUT_SECONDS: Annotated[float, Var(30.0, "Per-request timeout", minimum=0)]
    LLM_MAX_RETRIES: Annotated[
        int, Var(2, "Retries on 429, 5xx, timeouts and connection errors", minimum=0, level="advanced")
    ]

    EMBEDDING_BACKEND: Annotated[
        Literal["local", "openai"],
        Var("local", "local (all-MiniLM-L6-v2, offline) or openai", section="Embeddings"),
    ]
    EMBEDDING_MODEL: Annotated[
        str,
        Var(
            "",
            "Model name; after a change run manage.py reembed (empty: the backend's default)",
            derive=lambda v: (
                "all-MiniLM-L6-v2" if v["EMBEDDING_BACKEND"] == "local" else "text-embedding-3-small"
            ),
            shown="`all-MiniLM-L6-v2` / `text-embedding-3-small`",
        ),
    ]
    EMBEDDING_RUNTIME: Annotated[
        Literal["onnx", "torch"], Var("onnx", "Runtime of the local model", level="advanced")
    ]
    EMBEDDING_ONNX_DIR: Annotated[
        Path,
        Var(
            BASE_DIR / "var" / "models",
            "Where the exported ONNX model is kept",
            shown="`var/models`",
            level="advanced",
        ),
    ]
    CONTEXT_VECTOR: Annotated[
        Literal["deferred", "document", "pooled"],
        Var(
            "deferred",
            "A turn's context vector: deferred (embedded by a job), document (a second pass) or pooled",
            level="advanced",
        ),
    ]
    EMBEDDING_BATCH_THREADS: Annotated[
        int,
        Var(0, "CPU threads for a batch (0: every core the process may use)", minimum=0, level="advanced"),
    ]

    JUDGEMENT_MODEL_DIR: Annotated[
        str,
        Var(
            "",
            "The write path's judgement models (empty: the shipped ones, docs/trust.md)",
            section="Memory engine",
            shown="empty (the shipped models)",
            level="advanced",
        ),
    ]
    RECALL_TRANSLATE_QUERY: Annotated[
        bool, Var(False, "Also search the query translated (needs OPENAI_API_KEY)")
    ]
    RECALL_COMPONENTS: Annotated[
        tuple[str, ...],
        Var((), "Optional parts of recall in use (empty: all)", shown="empty (all)", level="advanced"),
    ]
    RECALL_GRAPH_CACHE_MB: Annotated[
        float, Var(64.0, "Memory each process gives the entity graphs (0: none)", minimum=0, level="advanced")
    ]
    RECALL_LOG_RETENTION_DAYS: Annotated[
        int, Var(90, "Recall log rows kept this long (0: forever)", minimum=0)
    ]
    FORGET_CAPACITY: Annotated[
        int, Var(0, "Active memories per namespace before the least valuable go (0: no budget)", minimum=0)
    ]
    IMPORT_RUN_SECONDS: Annotated[
        float,
        Var(
            0.0,
            "An import job's run writes this long (0: a quarter of Q_TIMEOUT)",
            minimum=0,
            level="advanced",
        ),
    ]
    ERASURE_REWRITE_HOUR: Annotated[
        int,
        Var(
            3,
            "Hour of the nightly rewrite after erasures (-1: none, run it from cron)",
            section="Erasure, webhooks and moderation",
            minimum=-1,
            maximum=23,
        ),
    ]
    WEBHOOK_ALLOW_LOOPBACK: Annotated[
        bool,
        Var(
            False,
            "Webhook endpoints on this machine",
            derive=lambda v: v["DEBUG"],
            shown="`DEBUG`",
            level="advanced",
        ),
    ]
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: Annotated[bool, Var(False, "Webhook endpoints at private addresses")]
    DEFAULT_ORG_NAMESPACE: Annotated[
        str, Var("org/default", "The organisation namespace the first migrate creates")
    ]

    API_RATE_PER_KEY: Annotated[
        str, Var("1200/min", "Rate limit per tenant API key", section="REST API", check=_rate)
    ]
    API_RATE_PER_USER: Annotated[str, Var("120/min", "Rate limit per user token or session", check=_rate)]
    API_MAX_BODY_BYTES: Annotated[
        int, Var(2 * 1024 * 1024, "Larger request bodies are refused with 413", minimum=1)
    ]

    DEMO_USERNAME: Annotated[str, Var("demo", "The demo login make run creates", level="advanced")]
    DEMO_PASSWORD: Annotated[
        str, Var("", "Its password", shown="generated once, kept in `var/demo_password`", level="advanced")
    ]

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Conf:
        """Every variable read and checked; all that are wrong reported at once."""
        types = get_type_hints(cls)
        values: dict[str, Any] = {}
        problems: list[str] = []
        for name, spec in specs().items():
            raw = environ.get(name, "").strip()
            try:
                values[name] = _parse(raw, types[name], spec) if raw else _default(spec, values)
            except ValueError as exc:
                problems.append(f"{name} {exc}, got {raw!r}")
                values[name] = _default(spec, values)
        problems += _inconsistencies(values)
        if problems:
            raise ConfigurationError("Settings the app cannot use:\n  " + "\n  ".join(problems))
        return cls(**values)


def specs() -> dict[str, Var]:
    """Each variable's spec, in the order of the class (and of .env.example)."""
    hints = get_type_hints(Conf, include_extras=True)
    return {field.name: hints[field.name].__metadata__[0] for field in dataclasses.fields(Conf)}


def _default(spec: Var, values: Mapping[str, Any]) -> Any:
    return spec.derive(values) if spec.derive else spec.default


def _parse(raw: str, kind: Any, spec: Var) -> Any:
    value = _convert(raw, kind)
    if spec.minimum is not None and value < spec.minimum:
        raise ValueError(f"must be at least {spec.minimum:g}")
    if spec.maximum is not None and value > spec.maximum:
        raise ValueError(f"must be at most {spec.maximum:g}")
    if spec.check and (complaint := spec.check(value)):
        raise ValueError(complaint)
    return value


def _boolean(raw: str) -> bool:
    if raw.lower() not in _TRUE | _FALSE:
        raise ValueError("must be true or false")
    return raw.lower() in _TRUE


def _whole(raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise ValueError("must be a whole number") from None


def _number(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise ValueError("must be a number") from None
    if not math.isfinite(value):
        raise ValueError("must be a finite number")
    return value


def _choice(raw: str, choices: tuple[str, ...]) -> str:
    """One of `choices`, whatever the case it was written in."""
    by_lower = {choice.lower(): choice for choice in choices}
    if raw.lower() not in by_lower:
        raise ValueError(f"must be one of {', '.join(choices)}")
    return by_lower[raw.lower()]


_CONVERTERS: dict[Any, Callable[[str], Any]] = {
    bool: _boolean,
    int: _whole,
    float: _number,
    Path: Path,
    str: str,
}


def _convert(raw: str, kind: Any) -> Any:
    if get_origin(kind) is tuple:
        return tuple(item.strip() for item in raw.split(",") if item.strip())
    if get_origin(kind) is Literal:
        return _choice(raw, get_args(kind))
    return _CONVERTERS[kind](raw)


def _inconsistencies(values: Mapping[str, Any]) -> list[str]:
    """What is wrong only in combination."""
    problems = []
    if values["Q_TIMEOUT"] >= values["Q_RETRY"]:
        problems.append("Q_TIMEOUT must be below Q_RETRY, or a slow task would run twice at once")
    if values["DB_POOL_MIN"] > values["DB_POOL_MAX"]:
        problems.append("DB_POOL_MIN must not be above DB_POOL_MAX")
    return problems


def rendered(value: Any) -> str:
    """A value as the environment would say it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return ",".join(value)
    return str(value)


def documented_default(spec: Var) -> str:
    """The default as the docs' table says it."""
    if spec.shown:
        return spec.shown
    value = rendered(spec.default)
    return f"`{value}`" if value else "—"


def env_example() -> str:
    """.env.example: the deploy-level variables, each with its comment, set to its default (empty
    where the default depends on something else)."""
    lines = [
        "# The deploy-level settings the app reads from the environment, written by",
        "# `python -m config.conf > .env.example` from config/conf.py; docs/configuration.md explains each,",
        "# and the advanced ones, read the same way, that a deploy does without.",
        "# `make run` copies this file to .env on first run with DEBUG=true and a fresh SECRET_KEY.",
    ]
    section = ""
    for name, spec in specs().items():
        section = spec.section or section
        if spec.level != "deploy":
            continue
        if section:  # before the section's first deploy-level variable
            lines += ["", f"# --- {section}"]
            section = ""
        value = "" if spec.derive or spec.shown else rendered(spec.default)
        lines += [f"# {spec.help}", f"{name}={value}"]
    return "\n".join(lines) + "\n"


# The constants tuned in code (config/tuning.py), most of them read from the environment by earlier
# versions: one set there is ignored, and `check --deploy` says so (config.W002) rather than let an
# operator believe it works. tests/test_configuration.py keeps this list equal to the calls to `tuned`.
TUNED_IN_CODE = frozenset(
    {
        "CHAT_EXTRACT_EVERY_N_TURNS",
        "CHAT_HISTORY_TOKENS",
        "CHAT_IDLE_MINUTES",
        "CHAT_LEARN_EACH_TURN_OFFLINE",
        "CHAT_MEMORY_TOKENS",
        "CONSOLIDATE_SIMILARITY",
        "CONTEXT_JOB_DELAY_SECONDS",
        "CONTEXT_JOB_MAX_ENTRIES",
        "EMBEDDING_BATCH_SIZE",
        "EMBEDDING_QUERY_CACHE_SIZE",
        "EMBEDDING_TORCH_THREADS",
        "ERASURE_LOCK_TIMEOUT_SECONDS",
        "ERASURE_REWRITE_MAX_HOURS",
        "ERASURE_REWRITE_NOW_MAX_MB",
        "ERASURE_SNAPSHOT_WAIT_SECONDS",
        "ERASURE_VACUUM_DELAY_SECONDS",
        "EXTRACTION_MIN_CONFIDENCE",
        "FORGET_DECAY_HALF_LIFE_DAYS",
        "FORGET_DECAY_MAX_IMPORTANCE",
        "FORGET_DECAY_MIN_IDLE_DAYS",
        "FORGET_DECAY_THRESHOLD",
        "FORGET_DECAY_TYPES",
        "FORGET_MAX_CHANGES_PER_PASS",
        "FORGET_MAX_SHARE_PER_PASS",
        "FORGET_PROTECTED_CATEGORIES",
        "IMPORT_JOB_THRESHOLD",
        "IMPORT_MAX_BYTES",
        "IMPORT_MAX_ITEMS",
        "IMPORT_PREVIEW_MAX",
        "JOB_LOST_AFTER_SECONDS",
        "KNOWN_PERSON_SURE",
        "LLM_JSON_ATTEMPTS",
        "MEMORY_TTL_DAYS",
        "MERGE_SIMILARITY",
        "MERGE_SIMILARITY_SAME_KEY",
        "RECALL_GRAPH_CACHE_SECONDS",
        "RECALL_GRAPH_CHANGES_FROM_ITEMS",
        "RECALL_RECENCY_HALF_LIFE_DAYS",
        "RECALL_TRANSLATE_TIMEOUT_SECONDS",
        "RECALL_WEIGHTS",
        "WEBHOOK_DISABLE_AFTER_FAILURES",
        "WEBHOOK_MAX_ATTEMPTS",
        "WEBHOOK_RETRY_BASE_SECONDS",
        "WEBHOOK_RETRY_MAX_SECONDS",
        "WEBHOOK_TIMEOUT_SECONDS",
    }
)


def ignored_variables() -> list[str]:
    """The variables set in this process's environment (or its .env) that nothing reads any more."""
    return sorted(name for name in TUNED_IN_CODE if os.environ.get(name, "").strip())


def load_dotenv(path: Path) -> None:
    """Read KEY=VALUE lines into os.environ without overriding what is already set."""
    if not path.is_file():
        return
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        value = value.strip().strip('"').strip("'")
        os.environ.setdefault(key.strip(), value)


@cache
def load() -> Conf:
    """This process's settings: the environment over the .env file, read and checked once."""
    load_dotenv(ENV_FILE)
    return Conf.from_environ(os.environ)


if __name__ == "__main__":
    print(env_example(), end="")

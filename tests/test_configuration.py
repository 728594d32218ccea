"""One home for configuration (config/conf.py): every variable is read there, checked once at start,
written to `.env.example` and explained in docs/configuration.md; a setting added to one and not
the others fails here, and so does a constant tuned in code that the docs do not list."""

from __future__ import annotations

import ast
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from config.conf import TUNED_IN_CODE, Conf, ConfigurationError, documented_default, env_example, specs

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("config", "memory_core", "chat", "privacy", "api")
DOCS = ROOT / "docs" / "configuration.md"
# Environment reads that are not settings, each with its reason.
OTHER_READERS = {
    "config/brokers.py": "the lease owner id that `manage.py qcluster` hands the processes it forks",
}


def _modules() -> dict[str, ast.Module]:
    return {
        str(path.relative_to(ROOT)): ast.parse(path.read_text(encoding="utf-8"))
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
    }


def _reads_environment(node: ast.AST) -> bool:
    """os.environ.get(…), os.environ[…] read, os.getenv(…)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = ast.unparse(node.func.value)
        return (owner, node.func.attr) in {("os.environ", "get"), ("os", "getenv")}
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and ast.unparse(node.value) == "os.environ"
    )


def _table(markdown: str, heading: str) -> dict[str, str]:
    """variable → default column of the `| variable | default | meaning |` table under `heading`."""
    section = markdown.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \| (.*?) \| .+ \|$", section, flags=re.M)
    return dict(rows)


def test_only_config_conf_reads_the_environment():
    readers = {
        name
        for name, module in _modules().items()
        if name != "config/conf.py" and any(_reads_environment(node) for node in ast.walk(module))
    }
    assert readers == set(OTHER_READERS)


def test_the_env_example_is_written_from_the_conf_module():
    assert (ROOT / ".env.example").read_text(encoding="utf-8") == env_example(), (
        "regenerate it: python -m config.conf > .env.example"
    )


def _levels() -> dict[str, list[str]]:
    levels: dict[str, list[str]] = {"deploy": [], "advanced": []}
    for name, spec in specs().items():
        levels[spec.level].append(name)
    return levels


def test_the_env_example_lists_only_the_deploy_settings_each_with_a_comment():
    lines = (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
    listed = [line.split("=", 1)[0] for line in lines if re.match(r"[A-Z][A-Z0-9_]*=", line)]
    assert listed == _levels()["deploy"]
    assert all(specs()[name].level == "deploy" for name in listed)
    # An operator reads it through: the deploy decisions only, about 45 of them.
    assert 40 <= len(listed) <= 48, f"{len(listed)} settings in .env.example"
    for index, line in enumerate(lines):
        if re.match(r"[A-Z][A-Z0-9_]*=", line):
            assert lines[index - 1].startswith("# "), line


def test_the_env_make_run_writes_from_it_holds_the_defaults():
    lines = (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
    example = dict(line.split("=", 1) for line in lines if re.match(r"[A-Z][A-Z0-9_]*=", line))
    assert Conf.from_environ(example) == Conf.from_environ({})


@pytest.mark.parametrize(
    ("level", "heading"), [("deploy", "## Deploy settings"), ("advanced", "## Advanced settings")]
)
def test_the_docs_explain_every_setting_with_its_default_under_its_level(level, heading):
    documented = _table(DOCS.read_text(encoding="utf-8"), heading)
    expected = {name: documented_default(specs()[name]) for name in _levels()[level]}
    assert sorted(set(documented) ^ set(expected)) == []
    assert {name: documented[name] for name in expected} == expected


def test_the_docs_say_the_advanced_settings_are_read_but_not_needed_for_a_deploy():
    section = DOCS.read_text(encoding="utf-8").split("## Advanced settings", 1)[1].split("\n| ", 1)[0]
    assert "Read from the environment" in section and "a deploy does without them" in section
    assert "`.env.example` leaves them out" in section


def _environment_set_by_tests_and_benches() -> set[str]:
    """The variables tests/ and bench/ hand a process through its environment: keywords of their
    `…env(…)` helpers, keys of a dict that also sets DJANGO_SETTINGS_MODULE, `env[…] =`, `setenv`."""
    names: set[str] = set()
    for path in [*(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]:
        if path.name == "test_configuration.py":  # sets retired variables on purpose
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("env"):
                names |= {keyword.arg for keyword in node.keywords if keyword.arg}
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("setenv") and node.args:
                names.add(str(getattr(node.args[0], "value", "")))
            if isinstance(node, ast.Dict):
                keys = {str(key.value) for key in node.keys if isinstance(key, ast.Constant)}
                names |= keys if "DJANGO_SETTINGS_MODULE" in keys else set()
            if isinstance(node, ast.Assign):
                names |= {
                    str(getattr(target.slice, "value", ""))
                    for target in node.targets
                    if isinstance(target, ast.Subscript)
                    and ast.unparse(target.value) in {"env", "os.environ"}
                }
    return names


def test_what_the_tests_and_benches_set_in_a_process_environment_is_read_from_it():
    """An advanced setting is still read: the serving tests and benches set some (Q_LEASE_SECONDS,
    LLM_MAX_RETRIES …) in the environment of the servers they start; a constant tuned in code set
    there would do nothing."""
    handed = _environment_set_by_tests_and_benches()
    assert {"Q_LEASE_SECONDS", "Q_MAX_ATTEMPTS", "LLM_MAX_RETRIES", "DATABASE_RETRY_AFTER_SECONDS"} <= handed
    assert sorted(handed & TUNED_IN_CODE) == []
    assert {"Q_LEASE_SECONDS", "EMBEDDED_DB_NAME"} <= handed & set(_levels()["advanced"])


def test_a_default_that_depends_on_another_setting_says_so_in_the_docs():
    for name, spec in specs().items():
        assert spec.help, name
        if spec.derive:
            assert spec.shown, f"{name}: say in `shown` what its default depends on"


def _tuned_in_code() -> dict[str, set[str]]:
    """constant name → the modules that read it through config.tuning.tuned."""
    found: dict[str, set[str]] = {}
    for name, module in _modules().items():
        for node in ast.walk(module):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "tuned"
                and isinstance(node.args[0], ast.Constant)
            ):
                found.setdefault(str(node.args[0].value), set()).add(name)
    return found


def test_the_docs_list_every_constant_tuned_in_code_where_it_lives():
    section = DOCS.read_text(encoding="utf-8").split("## Tuned in code", 1)[1]
    listed = {
        name: path
        for names, path in re.findall(r"^\| (.+?) \| `([\w/.]+\.py)` \|$", section, flags=re.M)
        for name in re.findall(r"`([A-Z][A-Z0-9_]*)`", names)
    }
    tuned = _tuned_in_code()
    assert {"MERGE_SIMILARITY", "FORGET_MAX_SHARE_PER_PASS", "CHAT_IDLE_MINUTES"} <= set(tuned)
    listed.pop("DEFAULT_WEIGHTS", None)  # named as what RECALL_WEIGHTS overrides
    assert sorted(set(listed) ^ set(tuned)) == []
    assert {name: {listed[name]} for name in tuned} == tuned
    assert not set(tuned) & set(specs()), "a constant tuned in code is not read from the environment"
    assert set(tuned) == TUNED_IN_CODE, "check --deploy warns about exactly the names tuned in code"


def test_check_deploy_warns_about_a_variable_that_is_tuned_in_code_now(monkeypatch):
    """An operator who still sets a retired variable is told it does nothing, by name; the app starts."""
    for name in TUNED_IN_CODE:  # an older .env on this machine may set some
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MERGE_SIMILARITY", "0.8")
    monkeypatch.setenv("webhook_timeout_seconds", "5")  # not the name: nothing to say about it
    monkeypatch.setenv("FORGET_DECAY_THRESHOLD", " ")  # set but empty: unset, as everywhere else
    out = io.StringIO()
    call_command("check", deploy=True, fail_level="CRITICAL", stdout=out, stderr=out)
    report = out.getvalue()
    assert "config.W002" in report
    assert "MERGE_SIMILARITY is set in the environment but is no longer read" in report
    assert "FORGET_DECAY_THRESHOLD" not in report and "webhook_timeout_seconds" not in report
    monkeypatch.delenv("MERGE_SIMILARITY")
    out = io.StringIO()
    call_command("check", deploy=True, fail_level="CRITICAL", stdout=out, stderr=out)
    assert "config.W002" not in out.getvalue()


# --- reading and checking -------------------------------------------------------------------


def test_unset_and_empty_mean_the_default():
    assert Conf.from_environ({"WEB_WORKERS": "", "DEBUG": "  "}) == Conf.from_environ({})
    assert Conf.from_environ({}).WEB_WORKERS == 2


def test_values_are_typed():
    conf = Conf.from_environ(
        {
            "DEBUG": "yes",
            "ALLOWED_HOSTS": " a.example , b.example,,",
            "DB_POOL_TIMEOUT_SECONDS": "2.5",
            "EMBEDDING_BACKEND": "OpenAI",
            "LOG_LEVEL": "warning",
            "EMBEDDED_PGDATA": "/srv/memory/pgdata",
        }
    )
    assert conf.DEBUG is True
    assert conf.ALLOWED_HOSTS == ("a.example", "b.example")
    assert conf.DB_POOL_TIMEOUT_SECONDS == 2.5
    assert conf.EMBEDDING_BACKEND == "openai" and conf.EMBEDDING_MODEL == "text-embedding-3-small"
    assert conf.LOG_LEVEL == "WARNING"
    assert isinstance(conf.EMBEDDED_PGDATA, Path) and str(conf.EMBEDDED_PGDATA) == "/srv/memory/pgdata"


def test_defaults_that_follow_debug():
    production, development = Conf.from_environ({}), Conf.from_environ({"DEBUG": "true"})
    assert production.SECURE_COOKIES and not development.SECURE_COOKIES
    assert production.ALLOWED_HOSTS == () and "localhost" in development.ALLOWED_HOSTS
    assert development.WEBHOOK_ALLOW_LOOPBACK and not production.WEBHOOK_ALLOW_LOOPBACK
    assert Conf.from_environ({"DEBUG": "true", "SECURE_COOKIES": "true"}).SECURE_COOKIES  # set wins


@pytest.mark.parametrize(
    ("variable", "value", "complaint"),
    [
        ("DEBUG", "maybe", "DEBUG must be true or false, got 'maybe'"),
        ("Q_WORKERS", "two", "Q_WORKERS must be a whole number, got 'two'"),
        ("Q_WORKERS", "0", "Q_WORKERS must be at least 1, got '0'"),
        ("LLM_TIMEOUT_SECONDS", "soon", "LLM_TIMEOUT_SECONDS must be a number, got 'soon'"),
        ("RECALL_GRAPH_CACHE_MB", "nan", "RECALL_GRAPH_CACHE_MB must be a finite number, got 'nan'"),
        ("PORT", "80000", "PORT must be at most 65535, got '80000'"),
        ("ERASURE_REWRITE_HOUR", "24", "ERASURE_REWRITE_HOUR must be at most 23, got '24'"),
        ("EMBEDDING_RUNTIME", "cuda", "EMBEDDING_RUNTIME must be one of onnx, torch, got 'cuda'"),
        ("API_RATE_PER_KEY", "fast", "API_RATE_PER_KEY must look like 120/min"),
        ("TIME_ZONE", "Mars/Olympus", "TIME_ZONE must be a time zone name"),
    ],
)
def test_a_bad_value_is_refused_naming_its_variable(variable, value, complaint):
    with pytest.raises(ConfigurationError, match=re.escape(complaint)):
        Conf.from_environ({variable: value})


def test_every_bad_value_is_reported_at_once():
    with pytest.raises(ConfigurationError) as refused:
        Conf.from_environ({"DEBUG": "maybe", "WEB_WORKERS": "many", "Q_TIMEOUT": "300"})
    message = str(refused.value)
    assert "DEBUG" in message and "WEB_WORKERS" in message
    assert "Q_TIMEOUT must be below Q_RETRY" in message


def test_a_bad_value_stops_the_app_at_start_with_the_variables_name():
    environ = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "true"}
    environ["Q_WORKERS"] = "two"
    started = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert started.returncode != 0
    assert "Q_WORKERS must be a whole number, got 'two'" in started.stderr

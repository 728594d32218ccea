""".env holds SECRET_KEY: the run scripts create it readable by its owner only (and make an older,
world-readable one private), and `manage.py check --deploy` warns about one others can read."""

from __future__ import annotations

import io
import stat
import subprocess
from pathlib import Path

from django.conf import settings
from django.core.management import call_command

SCRIPT = Path(settings.BASE_DIR) / "scripts" / "envfile"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _envfile(target: Path) -> str:
    done = subprocess.run(
        [str(SCRIPT), str(target)], capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout


def test_the_run_scripts_create_env_readable_by_its_owner_only(tmp_path):
    target = tmp_path / ".env"
    _envfile(target)

    assert _mode(target) == 0o600
    lines = dict(line.split("=", 1) for line in target.read_text().splitlines() if "=" in line)
    assert lines["DEBUG"] == "true" and len(lines["SECRET_KEY"]) >= 50


def test_an_older_world_readable_env_is_made_private_and_kept(tmp_path):
    target = tmp_path / ".env"
    target.write_text("DEBUG=true\nSECRET_KEY=kept-as-it-was\n")
    target.chmod(0o644)

    said = _envfile(target)

    assert _mode(target) == 0o600 and "now mode 0600" in said
    assert target.read_text() == "DEBUG=true\nSECRET_KEY=kept-as-it-was\n"


def _deploy_check() -> str:
    out, err = io.StringIO(), io.StringIO()
    # The test settings are not a deployment (async.E001): report everything, fail on nothing.
    call_command("check", deploy=True, fail_level="CRITICAL", stdout=out, stderr=err)
    return out.getvalue() + err.getvalue()


def test_check_deploy_warns_about_an_env_others_can_read(tmp_path, settings):
    settings.ENV_FILE = tmp_path / ".env"
    settings.ENV_FILE.write_text("SECRET_KEY=x\n")
    for mode, warned in ((0o644, True), (0o640, True), (0o600, False)):
        settings.ENV_FILE.chmod(mode)
        report = _deploy_check()
        assert ("config.W001" in report) is warned, (oct(mode), report)
    settings.ENV_FILE.chmod(0o644)
    assert f"chmod 600 {settings.ENV_FILE}" in _deploy_check()


def test_check_deploy_is_quiet_without_an_env_file(tmp_path, settings):
    settings.ENV_FILE = tmp_path / "absent.env"
    assert "config.W001" not in _deploy_check()

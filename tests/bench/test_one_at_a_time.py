"""Benchmarks run one at a time: each empties the bench database before it runs, so a second one
started meanwhile would empty it under the first (a run that crashed, or figures counted over rows
it never wrote). The second is refused at its start, saying why; once the first ends, benches run
again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOLD = "from bench import common; common.setup(); print('holding', flush=True); import sys; sys.stdin.read()"
START = "from bench import common; common.setup(); print('started')"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "EMBEDDED_DB_NAME")}
    return {**env, "PYTHONPATH": str(ROOT)}


def test_a_second_benchmark_is_refused_while_one_runs_and_starts_after():
    first = subprocess.Popen(
        [sys.executable, "-c", HOLD],
        cwd=ROOT,
        env=_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert first.stdout is not None and first.stdout.readline().strip() == "holding"
        second = subprocess.run(
            [sys.executable, "-c", START], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300
        )
        assert second.returncode != 0
        assert "another benchmark is running" in second.stderr
        assert "started" not in second.stdout
    finally:
        first.communicate(input="", timeout=60)
    after = subprocess.run(
        [sys.executable, "-c", START], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300
    )
    assert after.returncode == 0, after.stderr
    assert "started" in after.stdout

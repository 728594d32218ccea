"""`RECALL_COMPONENTS` from the environment (docs/configuration.md): the parts named are the parts
recall uses; unset or empty, all of them; a name that is not a part stops the process at start
with a message naming the valid ones."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHOW = (
    "import django; django.setup(); "
    "from memory_core.recall import recall_components; print(','.join(sorted(recall_components())))"
)


def _start(value: str | None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "true"}
    env.pop("RECALL_COMPONENTS", None)
    if value is not None:
        env["RECALL_COMPONENTS"] = value
    return subprocess.run(
        [sys.executable, "-c", SHOW], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_the_parts_named_are_the_parts_in_use():
    started = _start(" keyword, context ,time")
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == "context,keyword,time"


def test_unset_or_empty_means_every_part():
    for value in (None, "", "  "):
        started = _start(value)
        assert started.returncode == 0, started.stderr
        assert started.stdout.strip() == "context,graph,keyword,names,neighbour,related,time"


def test_a_misspelt_part_stops_the_process_at_start():
    started = _start("keyword,grpah")
    assert started.returncode != 0
    assert "RECALL_COMPONENTS must be among" in started.stderr and "'graph'" in started.stderr

"""The judgement models a test points the app at: forgotten before and after, so the next read
loads the folder the settings name."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from memory_core import judgement
from memory_core.judgement import encoder as judgement_encoder
from memory_core.judgement import model as judgement_model
from memory_core.judgement.model import DEFAULT_DIR, MANIFEST


def forget_models() -> None:
    """Drop every loaded model and every cached score."""
    judgement_model.reset()
    judgement_encoder.reset()
    judgement.scores.cache_clear()
    judgement.encoder_read.cache_clear()
    judgement.safety_encoder_read.cache_clear()


def models_without_encoder(target: Path) -> Path:
    """A copy of the shipped models whose manifest names no encoder: the regressions decide alone."""
    shutil.copytree(DEFAULT_DIR, target)
    manifest = json.loads((target / MANIFEST).read_text(encoding="utf-8"))
    del manifest["encoder"]
    (target / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return target

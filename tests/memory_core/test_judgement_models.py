"""The judgement models on disk: the shipped set loads with its checksums, a changed, missing or
misshapen file is refused (the process would not start on it), and the training command writes a
set that loads and decides the same way the shipped one was trained to."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.apps import apps

from memory_core import judgement
from memory_core.embeddings import LocalEmbedder
from memory_core.judgement import encoder as judgement_encoder
from memory_core.judgement import model as judgement_model
from memory_core.judgement.encoder import (
    OUTPUTS,
    SAFETY_FILE,
    SAFETY_OUTPUTS,
    load_encoder,
    load_safety_encoder,
)
from memory_core.judgement.features import PRESENCE_FEATURES, PRESENCE_START, WIDTH, matrix, row
from memory_core.judgement.model import DEFAULT_DIR, MANIFEST, ModelFileRefused, load_models
from memory_core.judgement.spans import SPAN_WIDTH
from tests.judgement_helpers import forget_models

DECISIONS = {"normative", "weakening", "secret", "safety", "value"}


@pytest.fixture
def models_copy(tmp_path: Path) -> Path:
    target = tmp_path / "models"
    shutil.copytree(DEFAULT_DIR, target)
    return target


@pytest.fixture
def pointed_at(settings, models_copy: Path):
    """The app's settings point at the copy; the loaded models are forgotten before and after."""
    settings.JUDGEMENT_MODEL_DIR = str(models_copy)
    forget_models()
    yield models_copy
    forget_models()


def test_the_shipped_models_load_with_their_checksums_and_thresholds():
    loaded = load_models(DEFAULT_DIR)
    assert set(loaded) == DECISIONS
    for model in loaded.values():
        width = SPAN_WIDTH if model.features == "span" else WIDTH
        assert model.weights.shape[1] == width and 0.0 < model.threshold < 1.0
    assert loaded["value"].features == "span"
    assert set(loaded["safety"].classes) == {"user", "dependant", "other", "none"}


def test_only_the_rule_and_relaxation_models_read_which_words_are_present():
    """Whose safety fact and secrets read the rows as before the words-present block: their weights
    there are zero (read by them, it pinned more ordinary talk; docs/trust.md)."""
    loaded = load_models(DEFAULT_DIR)
    block = slice(PRESENCE_START, PRESENCE_START + PRESENCE_FEATURES)
    for name in ("normative", "weakening"):
        assert np.count_nonzero(loaded[name].weights[:, block]) > 1000, name
    for name in ("secret", "safety"):
        assert not np.any(loaded[name].weights[:, block]), name


def test_a_changed_model_file_is_refused(models_copy: Path):
    path = models_copy / "weakening.npz"
    with np.load(path) as data:
        weights, intercept = data["weights"].copy(), data["intercept"].copy()
    weights[0, :100] *= -1  # a file that decides otherwise, well formed
    np.savez_compressed(path, weights=weights, intercept=intercept)
    with pytest.raises(ModelFileRefused, match="checksum"):
        load_models(models_copy)


def test_a_missing_file_or_manifest_is_refused(models_copy: Path):
    (models_copy / "secret.npz").unlink()
    with pytest.raises(ModelFileRefused, match="missing"):
        load_models(models_copy)
    (models_copy / MANIFEST).write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelFileRefused, match="unreadable"):
        load_models(models_copy)


def test_a_file_of_the_wrong_shape_is_refused_even_with_a_matching_checksum(models_copy: Path):
    path = models_copy / "normative.npz"
    np.savez_compressed(path, weights=np.zeros((1, 10), dtype=np.float32), intercept=np.zeros(1))
    manifest = json.loads((models_copy / MANIFEST).read_text(encoding="utf-8"))
    manifest["models"]["normative"]["sha256"] = judgement_model.sha256(path)
    (models_copy / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ModelFileRefused, match="shape"):
        load_models(models_copy)


def test_a_span_model_read_as_a_text_model_is_refused(models_copy: Path):
    """The value model reads spans, not texts: a manifest that says otherwise names a model of the
    wrong shape for what it would be given, and the set is refused."""
    manifest = json.loads((models_copy / MANIFEST).read_text(encoding="utf-8"))
    manifest["models"]["value"]["features"] = "text"
    (models_copy / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ModelFileRefused, match="shape"):
        load_models(models_copy)
    manifest["models"]["value"]["features"] = "sound"
    (models_copy / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ModelFileRefused, match="sound"):
        load_models(models_copy)


def test_the_app_refuses_to_start_on_a_changed_file(pointed_at: Path):
    path = pointed_at / "safety.npz"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFileRefused):
        apps.get_app_config("memory_core").ready()


def test_the_write_path_decides_with_the_models_it_was_pointed_at(pointed_at: Path):
    turn = "Enjoy the concert tonight, tell me everything tomorrow!"
    assert not judgement.policy(turn).is_rule
    manifest = json.loads((pointed_at / MANIFEST).read_text(encoding="utf-8"))
    manifest["models"]["normative"]["threshold"] = 1e-9  # everything reads as a rule
    (pointed_at / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    judgement_model.reset()
    judgement.scores.cache_clear()
    assert judgement.policy(turn).is_rule


@pytest.mark.parametrize(
    "text",
    [
        "Remember the code for the side gate is 5 8 0 3, the dog walker needs it.",
        "我妈跟我们一起住，她有高血压，每天早上八点要吃降压药。",  # noqa: RUF001 (full-width text is what NFKC folds)
        "樓下大閘密碼係 2-7-1-9-#，你幫我記實佢。",  # noqa: RUF001 (full-width text is what NFKC folds)
        "存折密码就是老伴的生日，零六一二，four seven seven one",  # noqa: RUF001 (full-width text is what NFKC folds)
        "my school portal login 係 cheukyin07 / Panda!2008 😀",
        "no no no no no no no no",
        "a b cd efg hijk lmnop\u00a0q\u2003r",
        "a",
        "...",
        "ｆｕｌｌ width １２３\t\n  spaced",  # noqa: RUF001 (full-width text is what NFKC folds)
        "x" * 500,
    ],
)
def test_the_write_paths_row_is_the_training_matrix_bit_for_bit(text: str):
    """`row` hashes one text without scikit-learn's estimator wrappers (the write path's cost):
    it must give what the models were trained on, `matrix`, to the last bit."""
    vector = np.random.default_rng(7).standard_normal(384)
    fast, trained = row(text, vector), matrix([text], [vector])
    assert fast.dtype == trained.dtype == np.float32
    assert np.array_equal(fast.toarray(), trained.toarray())


@pytest.mark.parametrize(
    ("text", "who"),
    [
        ("My toddler wheezes badly whenever we're near cats.", "dependant"),
        ("我女儿吃了虾以后嘴唇会肿起来。", "dependant"),
        # A known miss of the safety encoder's average (0.52 under its 0.66) until the models
        # retrained with batch 58, which read it as the user's again; those retrained with batches
        # 59 and 60 gave it 0.5475 under 0.5482 and 0.551 under 0.565; those retrained with batch 61
        # read it as the user's again.
        ("Nuts of any kind close up my throat.", "user"),
        ("Any kind of nut makes my throat swell up, I carry an EpiPen.", "user"),
        ("Not a fan of spicy food, honestly.", "none"),
        ("My wife reacts badly to latex gloves.", "other"),
    ],
)
def test_safety_says_whose_fact_it_is(text: str, who: str):
    assert judgement.safety(text).who == who


def test_a_flagged_sentence_gives_its_value_and_its_neighbours_keep_theirs():
    text = "We land at 7:40 on flight 2231. The alarm panel at the cabin disarms with 9 0 4 7."
    scan = judgement.secrets(text)
    assert scan.found and "9 0 4 7" in scan.values
    assert "2231" in scan.redacted and "7:40" in scan.redacted and "9 0 4 7" not in scan.redacted


def test_a_digit_inside_a_credential_is_not_a_value_of_its_own():
    scan = judgement.secrets("psst the staging admin is admin / Tr0ub4dor&3, don't post it")
    assert scan.values == ("Tr0ub4dor&3",)
    assert scan.redacted == "psst the staging admin is admin / [REDACTED], don't post it"


@pytest.mark.parametrize(
    "text", ["Enjoy the concert tonight!", "The PIN for the side gate is 5803.", "我女儿对花生过敏。"]
)
def test_the_scores_of_all_models_at_once_are_each_models_own(text: str):
    """`scores` multiplies a row by every model's weights stacked: the same probabilities, bit for
    bit, as each model's own product."""
    rows = row(text, LocalEmbedder().embed_query(text))
    expected = {
        name: tuple(float(p) for p in model.probabilities(rows)[0])
        for name, model in judgement_model.models().items()
        if model.features == "text"
    }
    assert judgement.scores(text) == expected


AVERAGED = [
    "Enjoy the concert tonight!",
    "From now on nobody needs a second signature on refunds under fifty pounds.",
    "Please never book me on a flight before 9am.",
    "以后晚上十点以后不要给我发消息",
    "Do we still have to sign the book every time we take a bottle out?",
    "我女儿对花生过敏。",
]


@pytest.mark.parametrize("text", AVERAGED)
@pytest.mark.parametrize("cut", [0.2, 0.4, 0.668394, 0.9])
def test_the_rule_decision_is_the_average_with_the_encoder_at_every_cut(text: str, cut: float):
    """`reaches` decides as the average of the regression's and the encoder's probability would,
    whether or not it ran the encoder."""
    reader = judgement_encoder.encoder()
    assert reader is not None and reader.blended == ("normative",)
    linear = judgement.scores(text)["normative"][-1]
    average = (linear + reader.decision("normative", reader.probabilities([text])[0])) / 2
    assert judgement.reaches("normative", text, cut) == (average >= cut)
    assert judgement.reaches("secret", text, cut) == (judgement.scores(text)["secret"][-1] >= cut)


def test_the_encoder_runs_only_when_the_regression_leaves_the_rule_open(pointed_at: Path):
    threshold = judgement_model.models()["normative"].threshold
    talk = "Enjoy the concert tonight, tell me everything tomorrow!"
    assert judgement.scores(talk)["normative"][-1] < 2 * threshold - 1
    assert not judgement.policy(talk).is_rule
    assert judgement.encoder_read.cache_info().currsize == 0  # no pass for a plain remark
    rule = "From now on nobody needs a second signature on refunds under fifty pounds."
    assert judgement.policy(rule).is_rule
    assert judgement.encoder_read.cache_info().currsize >= 1


def test_the_shipped_encoder_loads_with_its_checksum():
    reader = load_encoder(DEFAULT_DIR)
    assert reader is not None
    found = reader.probabilities(["Nobody signs off their own expense claims.", "好的 明天见"])
    assert found.shape == (2, len(OUTPUTS))
    assert np.allclose(found[:, 3:].sum(axis=1), 1.0, atol=1e-4)  # whose safety fact: one of four
    assert ((found >= 0) & (found <= 1)).all()


@pytest.mark.parametrize(
    ("file", "load", "named", "at"),
    [("encoder.onnx", load_encoder, "encoder", 3), (SAFETY_FILE, load_safety_encoder, "safety_encoder", 2)],
)
def test_a_changed_encoder_is_refused_and_the_app_does_not_start_on_it(
    pointed_at: Path, file: str, load: Any, named: str, at: int
):
    path = pointed_at / file
    data = bytearray(path.read_bytes())
    data[len(data) // at] ^= 0x01  # one bit of one weight
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFileRefused, match="checksum"):
        load(pointed_at)
    with pytest.raises(ModelFileRefused, match=named):
        apps.get_app_config("memory_core").ready()


def test_an_encoder_missing_or_of_other_outputs_is_refused(models_copy: Path):
    manifest = json.loads((models_copy / MANIFEST).read_text(encoding="utf-8"))
    manifest["encoder"]["outputs"] = ["normative", "secret"]
    (models_copy / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ModelFileRefused, match="outputs"):
        load_encoder(models_copy)
    (models_copy / "encoder.onnx").unlink()
    with pytest.raises(ModelFileRefused, match="missing"):
        load_encoder(models_copy)


def test_without_an_encoder_the_linear_models_decide_alone(pointed_at: Path):
    text = "Please never book me on a flight before 9am."
    linear = judgement.scores(text)["normative"][-1]
    reader = judgement_encoder.encoder()
    assert reader is not None
    average = (linear + reader.decision("normative", reader.probabilities([text])[0])) / 2
    cut = (linear + average) / 2  # between the two: the decision depends on the encoder
    assert judgement.reaches("normative", text, cut) == (average >= cut)
    manifest = json.loads((pointed_at / MANIFEST).read_text(encoding="utf-8"))
    del manifest["encoder"]
    (pointed_at / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    forget_models()
    assert judgement_encoder.encoder() is None
    assert judgement.reaches("normative", text, cut) == (linear >= cut) != (average >= cut)


# Whose safety fact: the regression averaged with the safety encoder (docs/trust.md, "A safety
# encoder"), where the regression reads any condition at all.
SAFETY_READ = [
    "My son carries an EpiPen since the cashew scare last spring.",
    "Mum's on blood thinners now, so no ibuprofen in the house.",
    "My colleague's knee surgery went fine.",
    "Heads up I'll be slow on the hike, I'm on beta blockers now.",
]
# Text with Han in it is the regression's alone (the encoder ranked Chinese conditions worse).
SAFETY_READ_ZH = [
    "我自己有癫痫，吃着左乙拉西坦。",  # noqa: RUF001
    "阿嫲日日要打胰岛素，我负责帮佢。",  # noqa: RUF001
    "My mum 有糖尿病, she injects twice a day.",
]


def test_the_shipped_safety_encoder_loads_with_its_checksum_and_threshold():
    reader = load_safety_encoder(DEFAULT_DIR)
    assert reader is not None and reader.outputs == SAFETY_OUTPUTS
    assert 0.0 < reader.threshold < 1.0
    found = reader.probabilities(["My daughter has a peanut allergy.", "好的 明天见"])
    assert found.shape == (2, len(SAFETY_OUTPUTS))
    assert np.allclose(found.sum(axis=1), 1.0, atol=1e-4)
    daughter, talk = found
    assert daughter[SAFETY_OUTPUTS.index("safety:dependant")] > 0.5
    assert talk[SAFETY_OUTPUTS.index("safety:none")] > 0.5


@pytest.mark.parametrize("text", SAFETY_READ)
def test_whose_safety_fact_is_the_average_with_the_safety_encoder(text: str):
    """Pinned exactly when the regression's and the encoder's probabilities, averaged, reach the
    threshold chosen for the average (the regression reads a condition in each of these)."""
    model = judgement_model.models()["safety"]
    reader = judgement_encoder.safety_encoder()
    assert reader is not None
    regression = np.asarray(judgement.scores(text)["safety"])
    assert 1 - regression[model.classes.index("none")] >= judgement.SAFETY_ENCODER_GATE
    read = reader.probabilities([text])[0]
    encoded = np.array([read[SAFETY_OUTPUTS.index(f"safety:{c}")] for c in model.classes])
    averaged = (regression + encoded) / 2
    pinned = sum(averaged[model.classes.index(w)] for w in judgement.PINNED_WHO)
    found = judgement._safety_of(" ".join(text.split()))
    assert found.probability == pytest.approx(pinned, abs=1e-6)
    assert found.pinned == (pinned >= reader.threshold)


@pytest.mark.parametrize("text", SAFETY_READ_ZH)
def test_whose_safety_fact_in_chinese_is_the_regressions_alone(text: str):
    model = judgement_model.models()["safety"]
    regression = np.asarray(judgement.scores(text)["safety"])
    assert 1 - regression[model.classes.index("none")] >= judgement.SAFETY_ENCODER_GATE
    assert not judgement.safety_encoder_reads(text)
    pinned = sum(regression[model.classes.index(w)] for w in judgement.PINNED_WHO)
    found = judgement._safety_of(" ".join(text.split()))
    assert found.probability == pytest.approx(pinned, abs=1e-6)
    assert found.pinned == (pinned >= model.threshold)


def test_the_safety_encoder_runs_only_where_the_regression_reads_a_condition(pointed_at: Path):
    talk = "The 38 bus was late again, so I walked the last bit."
    regression = np.asarray(judgement.scores(talk)["safety"])
    none = judgement_model.models()["safety"].classes.index("none")
    assert 1 - regression[none] < judgement.SAFETY_ENCODER_GATE
    assert not judgement.safety(talk).pinned
    assert judgement.safety_encoder_read.cache_info().currsize == 0  # no pass for a plain remark
    assert judgement.safety("My daughter is allergic to peanuts.").pinned
    assert judgement.safety_encoder_read.cache_info().currsize >= 1


@pytest.mark.parametrize(
    "change, refused",
    [
        ({"outputs": ["safety:none", "safety:user"]}, "outputs"),
        ({"threshold": 0}, "threshold"),
        ({"threshold": None}, "threshold"),
        ({"threshold": "0.66"}, "threshold"),
        ({}, "threshold"),
    ],
)
def test_a_safety_encoder_of_other_outputs_or_no_threshold_is_refused(models_copy: Path, change, refused):
    manifest = json.loads((models_copy / MANIFEST).read_text(encoding="utf-8"))
    manifest["safety_encoder"].update(change)
    if not change:  # no threshold at all
        del manifest["safety_encoder"]["threshold"]
    (models_copy / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ModelFileRefused, match=refused):
        load_safety_encoder(models_copy)


def test_without_a_safety_encoder_the_regression_decides_alone(pointed_at: Path):
    text = "Mum's on blood thinners now, so no ibuprofen in the house."
    with_encoder = judgement._safety_of(text)
    manifest = json.loads((pointed_at / MANIFEST).read_text(encoding="utf-8"))
    del manifest["safety_encoder"]
    (pointed_at / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    forget_models()
    assert judgement_encoder.safety_encoder() is None
    model = judgement_model.models()["safety"]
    regression = np.asarray(judgement.scores(text)["safety"])
    alone = judgement._safety_of(text)
    pinned = sum(regression[model.classes.index(w)] for w in judgement.PINNED_WHO)
    assert alone.probability == pytest.approx(pinned, abs=1e-6) != with_encoder.probability
    assert alone.pinned == (pinned >= model.threshold)

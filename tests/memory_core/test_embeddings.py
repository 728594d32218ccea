"""Embeddings: the bundled local model, the OpenAI backend, and `manage.py reembed`."""

from __future__ import annotations

import hashlib
import logging
import math
import shutil
from io import StringIO

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command

from memory_core import embeddings, onnx_embedding
from memory_core.embeddings import (
    LOCAL_MODEL_NAME,
    LocalEmbedder,
    OpenAIEmbedder,
    get_embedder,
    runtime_in_use,
)
from memory_core.errors import MemoryServiceError
from memory_core.llm import OfflineMode
from memory_core.models import MemoryEntry, MemoryEvent, Namespace
from tests.vectors import stored_as


def _dot(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def _entry(ns: Namespace, content: str, **fields) -> MemoryEntry:
    return MemoryEntry.objects.create(
        namespace=ns, type="semantic", source_kind="api_import", content=content, **fields
    )


def _reembed(*args: str) -> str:
    out = StringIO()
    call_command("reembed", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def ns(owner):
    return Namespace.objects.create(path="user/alice", kind="user", owner=owner)


@pytest.fixture
def openai_embeddings(settings):
    settings.EMBEDDING_BACKEND = "openai"
    settings.EMBEDDING_MODEL = "text-embedding-3-small"
    return settings


# --- local model --------------------------------------------------------------------------------


def test_it_returns_384_dim_unit_vectors():
    vectors = get_embedder().embed(["I am allergic to peanuts", "My home city is Lisbon"])
    assert len(vectors) == 2
    for vector in vectors:
        assert len(vector) == 384
        assert all(isinstance(x, float) for x in vector)
        assert math.isclose(math.sqrt(_dot(vector, vector)), 1.0, abs_tol=1e-5)


def test_it_puts_close_meanings_closer_than_unrelated_ones():
    allergy, peanut, weather = get_embedder().embed(
        ["I am allergic to peanuts", "peanut allergy", "The train to Porto leaves at nine"]
    )
    assert _dot(allergy, peanut) > _dot(allergy, weather) + 0.3


def test_it_gives_the_same_vectors_in_a_batch_as_one_by_one(settings):
    settings.EMBEDDING_BATCH_SIZE = 2
    texts = ["peanut allergy", "I work as a backend engineer at Acme", "tea", "Refund RF-001 was filed"]
    embedder = get_embedder()
    batched = embedder.embed(texts)
    for text, vector in zip(texts, batched, strict=True):
        single = embedder.embed_query(text)
        assert max(abs(a - b) for a, b in zip(vector, single, strict=True)) < 1e-5


def test_a_large_batch_of_mixed_lengths_gives_each_text_its_own_vector():
    # Shortest first, cut into runs of like lengths (`onnx_embedding.runs`): each row must still be
    # the vector of its own text, whatever run it went in and however long the others were.
    sentence = "my sister Ana moved to Lyon last spring and now teaches violin at the conservatory"
    words = sentence.split(" ")
    texts = [" ".join(words[: 1 + (i * 7) % len(words)]) for i in range(30)]
    texts += ["用户住在上海。喜欢喝茶。" * (1 + i % 4) for i in range(6)]
    texts += [" ".join(words * 30), "ok", "", "Refund RF-001 was filed for order 88231"]
    embedder = get_embedder()
    batched = embedder.embed(texts)
    for text, vector in zip(texts, batched, strict=True):
        single = embedder.embed([text])[0]
        assert max(abs(a - b) for a, b in zip(vector, single, strict=True)) < 1e-5, text


def test_it_loads_the_model_once_per_process():
    first, second = get_embedder(), get_embedder()
    assert isinstance(first, LocalEmbedder)
    assert first.name == LOCAL_MODEL_NAME
    assert first.model is second.model


def test_it_handles_empty_input_and_blank_strings():
    embedder = get_embedder()
    assert embedder.embed([]) == []
    blank, spaces = embedder.embed(["", "   "])
    assert len(blank) == len(spaces) == 384


def test_it_refuses_a_local_model_it_does_not_have(settings):
    settings.EMBEDDING_MODEL = "bge-large-en"
    with pytest.raises(ImproperlyConfigured, match="all-MiniLM-L6-v2"):
        get_embedder()


# --- OpenAI backend -----------------------------------------------------------------------------


def test_it_embeds_through_the_openai_protocol(openai_server, openai_embeddings):
    openai_embeddings.EMBEDDING_BATCH_SIZE = 2
    embedder = get_embedder()
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.name == "text-embedding-3-small"

    vectors = embedder.embed(["peanut allergy", "home city Lisbon", "   "])

    assert [len(v) for v in vectors] == [384, 384, 384]
    calls = openai_server.requests_to("/embeddings")
    assert [call.body["input"] for call in calls] == [["peanut allergy", "home city Lisbon"], [" "]]
    for call in calls:
        assert call.body["dimensions"] == 384
        assert call.body["model"] == "text-embedding-3-small"


def test_it_gives_a_clear_error_for_openai_embeddings_without_a_key(openai_embeddings):
    openai_embeddings.OPENAI_API_KEY = ""
    embedder = get_embedder()
    assert embedder.embed([]) == []  # nothing to do needs no provider
    with pytest.raises(OfflineMode, match="local embedding backend") as caught:
        embedder.embed_query("peanut allergy")
    assert isinstance(caught.value, MemoryServiceError)


# --- manage.py reembed --------------------------------------------------------------------------


def test_it_reembeds_missing_and_outdated_embeddings(ns):
    missing = _entry(ns, "Alice is severely allergic to peanuts")
    outdated = _entry(ns, "Alice lives in Lisbon", embedding=[0.0] * 383 + [1.0], embedding_model="old-model")
    current_vector = get_embedder().embed_query("Alice works at Acme")
    current = _entry(ns, "Alice works at Acme", embedding=current_vector, embedding_model=LOCAL_MODEL_NAME)
    current_updated_at = MemoryEntry.objects.get(pk=current.pk).updated_at

    output = _reembed("--batch-size", "1")

    assert f"Re-embedded 2 entries with {LOCAL_MODEL_NAME} (1 already current)." in output
    embedder = get_embedder()
    for entry in (missing, outdated):
        entry.refresh_from_db()
        assert entry.embedding_model == LOCAL_MODEL_NAME
        expected = embedder.embed_query(entry.content)
        assert stored_as(entry.embedding, expected)
    assert MemoryEntry.objects.get(pk=current.pk).updated_at == current_updated_at

    events = {e.entry_ref: e for e in MemoryEvent.objects.filter(action="reembedded")}
    assert set(events) == {missing.pk, outdated.pk}
    assert events[outdated.pk].data == {"from": "old-model", "to": LOCAL_MODEL_NAME}
    assert events[outdated.pk].reason == "embedding model changed"
    assert events[missing.pk].data == {"from": None, "to": LOCAL_MODEL_NAME}
    for event in events.values():
        assert event.actor_kind == "system"
        assert event.namespace_id == ns.pk
        assert "peanuts" not in str(event.data) + event.reason
        assert "Lisbon" not in str(event.data) + event.reason


def test_it_changes_nothing_on_a_second_run(ns):
    _entry(ns, "Alice is severely allergic to peanuts")
    _entry(ns, "Alice lives in Lisbon", embedding=[0.0] * 383 + [1.0], embedding_model="old-model")
    _reembed()
    before = {e.pk: (e.updated_at, e.embedding_model) for e in MemoryEntry.objects.all()}

    output = _reembed()

    assert f"Re-embedded 0 entries with {LOCAL_MODEL_NAME} (2 already current)." in output
    assert {e.pk: (e.updated_at, e.embedding_model) for e in MemoryEntry.objects.all()} == before
    assert MemoryEvent.objects.filter(action="reembedded").count() == 2


def test_it_only_counts_on_a_dry_run(ns):
    entry = _entry(ns, "Alice lives in Lisbon", embedding=[0.0] * 383 + [1.0], embedding_model="old-model")
    _entry(ns, "Alice is severely allergic to peanuts")

    output = _reembed("--dry-run")

    assert f"Would re-embed 2 entries with {LOCAL_MODEL_NAME} (0 already current)." in output
    entry.refresh_from_db()
    assert entry.embedding_model == "old-model"
    assert list(entry.embedding) == [0.0] * 383 + [1.0]
    assert MemoryEntry.objects.filter(embedding__isnull=True).count() == 1
    assert not MemoryEvent.objects.filter(action="reembedded").exists()


def test_it_reembeds_everything_with_all(ns):
    vector = get_embedder().embed_query("Alice works at Acme")
    _entry(ns, "Alice works at Acme", embedding=vector, embedding_model=LOCAL_MODEL_NAME)
    _entry(ns, "Alice lives in Lisbon")

    output = _reembed("--all")

    assert f"Re-embedded 2 entries with {LOCAL_MODEL_NAME} (0 already current)." in output
    assert MemoryEvent.objects.filter(action="reembedded").count() == 2


def test_it_stops_with_a_clear_message_when_the_embedder_is_offline(ns, openai_embeddings):
    openai_embeddings.OPENAI_API_KEY = ""
    entry = _entry(ns, "Alice lives in Lisbon")

    with pytest.raises(CommandError, match="local embedding backend"):
        _reembed()

    entry.refresh_from_db()
    assert entry.embedding is None
    assert not MemoryEvent.objects.filter(action="reembedded").exists()


# --- runtimes and the query cache ---------------------------------------------------------------

RUNTIME_TEXTS = [
    "I am allergic to peanuts",
    "用户住在上海。每天早上喝绿茶。",
    "Refund RF20260629001 was filed for order 88231",
    " ".join(["a long conversation turn about the garden and the weather"] * 60),  # over 256 tokens
    "x",
]


def test_it_gives_torch_vectors_on_onnx_runtime(settings):
    onnx = get_embedder().embed(RUNTIME_TEXTS)
    settings.EMBEDDING_RUNTIME = "torch"
    torch = get_embedder().embed(RUNTIME_TEXTS)
    for a, b in zip(onnx, torch, strict=True):
        assert _dot(a, b) > 0.999


def test_it_answers_a_repeated_query_from_the_cache_with_a_copy(settings):
    # Start empty: an earlier test may have cached this text's vector from the torch runtime.
    embeddings.query_cache.clear()
    embedder = get_embedder()
    first = embedder.embed_query("where does the user live?")
    first[0] = 42.0  # a caller changing its list must not change the cached vector
    second = embedder.embed_query("where does the user live?")
    assert second[0] != 42.0
    assert second == embedder.embed(["where does the user live?"])[0]


def test_the_export_command_checks_the_onnx_file_against_torch():
    out = StringIO()
    call_command("embedding_export", "--check", stdout=out)
    assert "matches its checksum" in out.getvalue()
    cosine = float(out.getvalue().rsplit("Lowest cosine to torch: ", 1)[1].rstrip(".\n"))
    assert cosine >= 0.99


# --- a missing or damaged ONNX file -------------------------------------------------------------


@pytest.fixture
def reference_model():
    """The ONNX file exported for the test session (in the configured directory)."""
    return onnx_embedding.ensure_exported()


@pytest.fixture
def fresh_process(reference_model, settings, tmp_path, monkeypatch):
    """A process that has loaded no ONNX session yet, with its model directory in tmp_path."""
    settings.EMBEDDING_ONNX_DIR = tmp_path / "models"
    monkeypatch.setattr(embeddings, "_onnx_models", {})
    monkeypatch.setattr(embeddings, "_onnx_failed", False)
    embeddings.query_cache.clear()
    return settings


def _sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _assert_torch_vectors(vectors: list[list[float]], settings) -> None:
    settings.EMBEDDING_RUNTIME = "torch"
    for ours, torch in zip(vectors, get_embedder().embed(RUNTIME_TEXTS), strict=True):
        assert _dot(ours, torch) > 0.999


@pytest.mark.parametrize("damage", ["missing", "truncated", "garbage"])
def test_a_missing_or_damaged_onnx_file_is_exported_again_with_a_log_line(
    reference_model, fresh_process, damage, caplog
):
    reference = reference_model
    path = onnx_embedding.onnx_path()
    path.parent.mkdir(parents=True)
    if damage != "missing":
        shutil.copy(onnx_embedding.digest_path(reference), onnx_embedding.digest_path(path))
        path.write_bytes(reference.read_bytes()[: 1 << 20] if damage == "truncated" else b"not a model")

    with caplog.at_level(logging.WARNING, logger="memory_core.onnx_embedding"):
        vectors = get_embedder().embed(RUNTIME_TEXTS)

    expected = "is missing" if damage == "missing" else "does not match its recorded checksum"
    messages = [record.getMessage() for record in caplog.records]
    assert any(expected in message and str(path) in message for message in messages)
    assert runtime_in_use() == "onnx"
    # Deterministic: the same bytes as the export the test session made, and its checksum beside it.
    assert _sha256(path) == _sha256(reference)
    assert onnx_embedding.digest_path(path).read_text().strip() == _sha256(path)
    _assert_torch_vectors(vectors, fresh_process)


def test_embeddings_fall_back_to_torch_when_the_export_fails(fresh_process, tmp_path, caplog):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    fresh_process.EMBEDDING_ONNX_DIR = blocker / "models"  # the export cannot create its directory

    with caplog.at_level(logging.WARNING):
        vectors = get_embedder().embed(RUNTIME_TEXTS)
        query = get_embedder().embed_query("where does the user live?")

    assert any("using torch" in record.getMessage() for record in caplog.records)
    assert runtime_in_use() == "torch (ONNX unavailable)"
    assert len(query) == 384
    _assert_torch_vectors(vectors, fresh_process)


def test_the_export_command_replaces_a_damaged_file(fresh_process):
    path = onnx_embedding.onnx_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a model")

    out = StringIO()
    call_command("embedding_export", stdout=out)

    assert f"{path} has no recorded checksum; exporting it from the packaged weights." in out.getvalue()
    assert f"Wrote {path}." in out.getvalue()
    again = StringIO()
    call_command("embedding_export", stdout=again)
    assert "matches its checksum" in again.getvalue()

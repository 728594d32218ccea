"""Memory vectors are stored in half precision (`memory_core.vector_storage`): a memory added
through the API keeps both of its vectors, rounded, in its own row; recall finds the same
memories; and a namespace too large for an exact scan is still searched through the HNSW indexes
(the query's vector has the columns' type, or no index could serve it)."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection
from django.utils import timezone

from memory_core.embeddings import LOCAL_MODEL_NAME, get_embedder
from memory_core.models import MemoryEntry, SourceKind
from memory_core.recall import EXACT_SCAN_MAX
from memory_core.services import namespace_for_user
from tests.vectors import stored_as

pytestmark = pytest.mark.django_db

TABLE = MemoryEntry._meta.db_table


def _add(client, content: str) -> str:
    response = client.post("/api/v1/memories/", {"content": content}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["entry"]["id"]


def _recall(client, query: str) -> list[str]:
    response = client.post("/api/v1/recall/", {"query": query, "limit": 3}, format="json")
    assert response.status_code == 200, response.content
    return [item["entry"]["content"] for item in response.json()["items"]]


def test_the_vector_columns_are_half_precision():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = %s::regclass AND attname IN ('embedding', 'context_embedding')",
            [TABLE],
        )
        assert dict(cursor.fetchall()) == {"embedding": "halfvec(384)", "context_embedding": "halfvec(384)"}


@pytest.mark.parametrize(
    "content",
    [
        "My daughter Inès starts violin lessons on Thursdays",
        "我每天早上六点起床去跑步",
        "Allergic to shellfish; carries an EpiPen",
    ],
)
def test_an_added_memory_keeps_its_vectors_rounded_and_in_its_own_row(owner_client, content):
    pk = _add(owner_client, content)

    entry = MemoryEntry.objects.get(pk=pk)
    expected = get_embedder().embed_query(content)
    assert entry.embedding_model == LOCAL_MODEL_NAME
    assert stored_as(entry.embedding, expected)
    assert stored_as(entry.context_embedding, expected)  # no conversation turn: the statement's own
    # Neither vector went out of line to TOAST (three more pages for every distance read).
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT pg_column_toast_chunk_id(embedding), pg_column_toast_chunk_id(context_embedding), "  # noqa: S608
            f"pg_column_size(embedding) FROM {TABLE} WHERE id = %s",
            [pk],
        )
        embedding_chunk, context_chunk, size = cursor.fetchone()
    assert (embedding_chunk, context_chunk) == (None, None)
    assert size <= 384 * 2 + 8  # two bytes a dimension and the header


def test_recall_ranks_as_the_full_precision_vectors_do(owner_client):
    facts = [
        "Works as a nurse at the children's hospital",
        "Has a golden retriever called Maple",
        "Is learning to play the cello",
        "Grew up in Porto and moved to Lyon in 2019",
        "Prefers tea to coffee, green tea above all",
        "Runs a half marathon every spring",
    ]
    for fact in facts:
        _add(owner_client, fact)
    embedder = get_embedder()
    vectors = np.array(embedder.embed([*facts]), dtype=np.float64)
    for query in ("what pet does she have", "which instrument", "where did she live as a child"):
        by_cosine = vectors @ np.array(embedder.embed_query(query), dtype=np.float64)
        nearest = facts[int(np.argmax(by_cosine))]
        assert _recall(owner_client, query)[0] == nearest


def _scans(index: str) -> int:
    """How many times this transaction has scanned `index` so far."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_get_xact_numscans(%s::regclass)", [index])
        return int(cursor.fetchone()[0])


def test_a_namespace_past_the_exact_scan_is_searched_through_the_hnsw_indexes(owner, owner_client):
    namespace = namespace_for_user(user=owner)
    rng = np.random.default_rng(7)
    noise = rng.standard_normal((EXACT_SCAN_MAX + 50, 384))
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    now = timezone.now()
    MemoryEntry.objects.bulk_create(
        MemoryEntry(
            namespace=namespace, type="semantic", status="active", source_kind=SourceKind.API_IMPORT,
            content=f"filler note number {i}", valid_from=now, recorded_at=now,
            embedding=vector.tolist(), context_embedding=vector.tolist(), embedding_model=LOCAL_MODEL_NAME,
        )
        for i, vector in enumerate(noise)
    )  # fmt: skip
    _add(owner_client, "The lighthouse keeper's cat is called Biscuit")
    with connection.cursor() as cursor:
        # Only a plan with no sort is left to the planner: an ordered index scan, if one can serve
        # the query's vector. Both settings end with the test's transaction.
        cursor.execute("SET LOCAL enable_sort = off; SET LOCAL enable_seqscan = off")
    before = _scans("memory_embedding_hnsw"), _scans("memory_context_embedding_hnsw")

    assert _recall(owner_client, "What's the name of the lighthouse keeper's cat?")[0] == (
        "The lighthouse keeper's cat is called Biscuit"
    )
    after = _scans("memory_embedding_hnsw"), _scans("memory_context_embedding_hnsw")
    assert after[0] > before[0] and after[1] > before[1]

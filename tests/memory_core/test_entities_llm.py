"""The language-model extractor returns relations with its statements (the scripted OpenAI
server answers); names the statement does not hold are not believed."""

from __future__ import annotations

import pytest

from memory_core.entities.models import Entity, Relation, RelationSupport
from memory_core.extraction.jobs import extraction_run
from memory_core.models import ExtractionJob, MemoryEntry
from memory_core.services import namespace_for_user

pytestmark = pytest.mark.django_db
AT = "2026-11-20T10:00:00+00:00"


def msg(message_id: str, content: str, role: str = "user") -> dict[str, str]:
    return {"id": message_id, "role": role, "content": content, "created_at": AT}


def test_the_models_relations_are_recorded_with_their_support(owner, openai_server, settings):
    settings.EXTRACTION_MODEL = "extract-model-x"
    namespace = namespace_for_user(user=owner)
    openai_server.reply_json(
        {
            "candidates": [
                {
                    "content": "The user's sister Beatriz is married to Olek, who flies for Lufthansa.",
                    "category": "relationship",
                    "confidence": 0.9,
                    "message_ids": ["u1"],
                    "relations": [
                        {"subject": "user", "predicate": "sister", "object": "Beatriz"},
                        {"subject": "Beatriz", "predicate": "husband", "object": "Olek"},
                        {"subject": "Olek", "predicate": "works_at", "object": "Lufthansa"},
                        {"subject": "Olek", "predicate": "role", "object": "pilot", "object_kind": "value"},
                        {"subject": "Olek", "predicate": "friend", "object": "Zbigniew"},
                        {"subject": "", "predicate": "sister", "object": "Nobody"},
                    ],
                }
            ]
        }
    )
    job = ExtractionJob.objects.create(
        namespace=namespace,
        idempotency_key="llm-graph-1",
        source_conversation="conv-g",
        messages=[msg("u1", "my sister Beatriz married Olek, he's a Lufthansa pilot")],
    )

    extraction_run(job_id=job.pk)

    entry = MemoryEntry.objects.get(namespace=namespace)
    names = set(Entity.objects.filter(namespace=namespace, is_self=False).values_list("name", flat=True))
    # "pilot" is not in the statement, nor Zbigniew: the model's words must be the statement's.
    assert names == {"Beatriz", "Olek", "Lufthansa"}
    graph = {
        (r.subject.name, r.predicate, r.object.name if r.object else r.value): r.extractor
        for r in Relation.objects.filter(namespace=namespace).select_related("subject", "object")
    }
    # The offline rules read the statement first; the model's same relations join them.
    assert set(graph) == {
        ("the user", "sibling", "Beatriz"),
        ("Beatriz", "spouse", "Olek"),
        ("Olek", "works_at", "Lufthansa"),  # "flies for": only the model read this one
    }
    assert graph[("Olek", "works_at", "Lufthansa")] == "extract-model-x"
    support = RelationSupport.objects.filter(entry=entry)
    assert support.count() == len(graph)
    assert {tuple(s.source_message_ids) for s in support} == {("u1",)}
    assert {s.source_conversation for s in support} == {"conv-g"}
    (request,) = openai_server.requests_to("/chat/completions")
    schema = request.body["response_format"]["json_schema"]["schema"]
    assert "relations" in str(schema) and "RelationCandidate" in str(schema)

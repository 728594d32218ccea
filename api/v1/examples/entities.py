"""Example payloads of the entities and relations operations (issue 19), as the OpenAPI docs show
them; one list per operation, named after its operation id."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

from api.v1.examples.core import _MEMORY_EXAMPLE, _RECEIPT

_ANA = {
    "id": "3b0e8a52-5c1f-4f0a-9d7e-2a6b1c9d8e01",
    "kind": "person",
    "name": "Ana",
    "named": True,
    "aliases": ["ana", "sister"],
    "is_self": False,
    "created_at": "2026-06-29T10:00:00Z",
}
_MARC = {"id": "9c4d2e11-7a3b-4c5d-8e9f-0a1b2c3d4e5f", "name": "Marc", "kind": "person", "is_self": False}
_ME = {"id": "1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b", "name": "me", "kind": "person", "is_self": True}
_SOURCE = {**_MEMORY_EXAMPLE, "content": "The user's sister Ana is a nurse.", "category": "profile"}
_RELATION = {
    "id": "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d",
    "subject": _ME,
    "predicate": "sibling",
    "label": "sister",
    "object": {k: _ANA[k] for k in ("id", "name", "kind", "is_self")},
    "value": "",
    "status": "active",
    "valid_from": "2026-06-29T10:00:00Z",
    "valid_to": None,
    "start_known": True,
    "recorded_at": "2026-06-29T10:00:00Z",
    "superseded_by": None,
    "confidence": 0.9,
    "extractor": "rules",
    "memories": [_SOURCE["id"]],
}
_SPOUSE = {
    **_RELATION,
    "id": "6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e",
    "subject": {k: _ANA[k] for k in ("id", "name", "kind", "is_self")},
    "predicate": "spouse",
    "label": "husband",
    "object": _MARC,
}

ENTITIES_LIST = [
    OpenApiExample(
        "The people a user spoke of",
        value={
            "count": 1,
            "next": None,
            "previous": None,
            "results": [{**_ANA, "relation_count": 3, "memory_count": 2}],
        },
        response_only=True,
    )
]
ENTITIES_RETRIEVE = [
    OpenApiExample(
        "Ana, her relations and the sources",
        value={**_ANA, "relations": [_RELATION, _SPOUSE], "memories": [_SOURCE]},
        response_only=True,
    )
]
ENTITIES_CORRECT = [
    OpenApiExample("Her full name", value={"name": "Ana Lopes"}, request_only=True),
    OpenApiExample(
        "Renamed",
        value={**_ANA, "name": "Ana Lopes", "aliases": ["ana", "ana lopes", "sister"]},
        response_only=True,
    ),
]
ENTITIES_MERGE = [
    OpenApiExample("Into Ana", value={"into": _ANA["id"]}, request_only=True),
    OpenApiExample("What stays", value=_ANA, response_only=True),
]
ENTITIES_SPLIT = [
    OpenApiExample(
        "Another Ana",
        value={"memories": ["6f1c2a8e-1d7b-4c1e-9a53-0b3f1f0a9c11"], "name": "Ana (colleague)"},
        request_only=True,
    ),
    OpenApiExample(
        "The new entity",
        value={**_ANA, "id": "7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a", "name": "Ana (colleague)"},
        response_only=True,
    ),
]
ENTITIES_ERASE = [
    OpenApiExample(
        "Two memories erased",
        value={
            "erased": 2,
            "receipts": [{**_RECEIPT, "scope": "one"}, {**_RECEIPT, "id": 8, "scope": "one"}],
        },
        response_only=True,
    )
]
RELATIONS_LIST = [
    OpenApiExample(
        "Relations",
        value={"count": 2, "next": None, "previous": None, "results": [_RELATION, _SPOUSE]},
        response_only=True,
    )
]
RELATIONS_RETRIEVE = [OpenApiExample("A relation", value=_RELATION, response_only=True)]
RELATIONS_CORRECT = [
    OpenApiExample("No longer holds", value={"ended": True}, request_only=True),
    OpenApiExample(
        "Ended",
        value={**_SPOUSE, "status": "superseded", "valid_to": "2026-07-03T12:00:00Z"},
        response_only=True,
    ),
]

# --- Search, the graph page, direct links (issue 31) ----------------------------------------------

ENTITIES_SEARCH = [
    OpenApiExample(
        "Found by meaning: a statement about him",
        value={"results": [{**_ANA, **_MARC, "aliases": ["marc"], "score": 0.61, "matched": "memory"}]},
        response_only=True,
    )
]
GRAPH_READ = [
    OpenApiExample(
        "The first page of a user's graph",
        value={"count": 2, "next_offset": 1, "entities": [_ANA], "relations": [_RELATION, _SPOUSE]},
        response_only=True,
    )
]
GRAPH_CLEAR = [
    OpenApiExample("Only when asked", value={"confirm": True, "user_id": "u1"}, request_only=True),
    OpenApiExample("What went", value={"entities": 2, "relations": 3}, response_only=True),
]
RELATIONS_CREATE = [
    OpenApiExample(
        "Marc is Ana's husband",
        value={
            "user_id": "u1",
            "subject_id": _ANA["id"],
            "predicate": "spouse",
            "object_id": _MARC["id"],
            "label": "husband",
        },
        request_only=True,
    ),
    OpenApiExample(
        "Linked, resting on a statement written for it",
        value={**_SPOUSE, "statement": {"id": _SOURCE["id"], "content": "Ana's husband is Marc."}},
        response_only=True,
        status_codes=["201"],
    ),
]
ENTITIES_OBSERVE = [
    OpenApiExample(
        "An observation", value={"user_id": "u1", "content": "Ana is vegetarian."}, request_only=True
    ),
    OpenApiExample(
        "Stored and linked",
        value={"entity": _ANA, "memory": {**_SOURCE, "content": "Ana is vegetarian."}},
        response_only=True,
        status_codes=["201"],
    ),
]

"""What each MCP tool does, synchronously, for a `Caller`: input checked by the REST API's own
serializers (so a bad value gets the API's message), then the operations the REST views call too
(`api.operations`)."""

from __future__ import annotations

from typing import Any

from api.auth import Caller
from api.base import job_out, outcome_out, requester_of, valid
from api.models import ApiScope
from api.operations.entities import (
    entity_detail,
    entity_erase_for,
    entity_owner,
    entity_rows,
    entity_search_for,
    graph_clear_for,
    graph_for,
    observation_add_for,
    relation_correct_for,
    relation_create_for,
    relation_owner,
    relation_rows,
)
from api.operations.erasures import erase_all_for
from api.operations.extractions import extraction_queue_for
from api.operations.memories import memories_add_for, memory_rows
from api.operations.recall import recall_answer
from api.selectors import extraction_job_for, memory_for, subject_for
from api.serializers import core as s
from api.serializers import entities as es
from chat.erasure import memory_erase_with_sources
from memory_core.entities import selectors as graph
from memory_core.entities import services as graph_services
from memory_core.errors import NotFound
from memory_core.forgetting import memory_restore
from memory_core.lifecycle import memory_correct
from memory_core.models import ErasureVia, MemoryEntry, MemoryStatus
from memory_core.selectors import memory_history, memory_list

READ, WRITE, ERASE = ApiScope.READ, ApiScope.WRITE, ApiScope.ERASE
ADDRESS = ("user_id", "agent_id")

# What a model needs of a statement to use and cite it; the REST API's full shape has more.
STATEMENT_FIELDS = (
    "id",
    "content",
    "type",
    "category",
    "key",
    "status",
    "pinned",
    "valid_from",
    "valid_to",
    "recorded_at",
    "source",
    "supersedes",
    "superseded_by",
)


def _given(**values: Any) -> dict[str, Any]:
    """Tool arguments as a request body: what the model left out is absent, as in JSON."""
    return {name: value for name, value in values.items() if value is not None}


def _address(params: dict[str, Any]) -> dict[str, Any]:
    return {name: params[name] for name in ADDRESS if params.get(name)}


def statement(entry: MemoryEntry | dict[str, Any]) -> dict[str, Any]:
    data = entry if isinstance(entry, dict) else s.MemoryOutSerializer(entry).data
    return {name: data[name] for name in STATEMENT_FIELDS}


def memory_add(caller: Caller, **arguments: Any) -> dict[str, Any]:
    params = valid(s.MemoryCreateSerializer, _given(**arguments))
    item = {name: value for name, value in params.items() if name not in ADDRESS}
    subject, [outcome] = memories_add_for(caller, params, [item])
    return outcome_out(outcome, subject)


def memory_extract(caller: Caller, **arguments: Any) -> dict[str, Any]:
    return extraction_queue_for(caller, valid(s.ExtractionInSerializer, _given(**arguments)))


def memory_search(caller: Caller, **arguments: Any) -> dict[str, Any]:
    params = valid(s.RecallInSerializer, _given(**arguments))
    answer = recall_answer(caller, params, via="mcp")

    def out(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {**statement(item["entry"]), "score": round(item["score"], 4), "reasons": item["reasons"]}
            for item in items
        ]

    # `results` answer the query; `always` are the pinned, safety and profile facts to heed anyway.
    return {"results": out(answer["items"]), "always": out(answer["always"]), "trimmed": answer["trimmed"]}


def memory_list_page(caller: Caller, **arguments: Any) -> dict[str, Any]:
    body = _given(**arguments)
    for name in ("type", "status"):  # lists here, comma-separated in the API's query string
        if isinstance(body.get(name), list):
            body[name] = ",".join(str(value) for value in body[name])
    params = valid(s.MemoryListQuerySerializer, body)
    rows, count = memory_rows(caller, params)
    following = params["offset"] + len(rows)
    return {
        "count": count,
        "next_offset": following if following < count else None,
        "results": [statement(row) for row in rows],
    }


def memory_job(caller: Caller, *, job_id: int | str, **address: Any) -> dict[str, Any]:
    params = _address(valid(s.AddressSerializer, _given(**address)))
    return job_out(extraction_job_for(caller, job_id=job_id, **params)) or {}


def memory_get(caller: Caller, *, memory_id: str, **address: Any) -> dict[str, Any]:
    _actor, entry = memory_for(
        caller, memory_id=memory_id, **_address(valid(s.AddressSerializer, _given(**address)))
    )
    return dict(s.MemoryOutSerializer(entry).data)


def memory_correct_one(caller: Caller, *, memory_id: str, **arguments: Any) -> dict[str, Any]:
    given = _given(**arguments)
    address = _address(valid(s.AddressSerializer, {k: v for k, v in given.items() if k in ADDRESS}))
    params = valid(s.MemoryCorrectSerializer, {k: v for k, v in given.items() if k not in ADDRESS})
    actor, entry = memory_for(caller, memory_id=memory_id, **address)
    new = memory_correct(actor=actor, memory_id=entry.pk, content=params["content"], reason=params["reason"])
    return statement(new)


def memory_restore_one(caller: Caller, *, memory_id: str, **address: Any) -> dict[str, Any]:
    params = valid(s.AddressSerializer, _given(**address))
    actor, entry = memory_for(caller, memory_id=memory_id, **_address(params))
    return statement(memory_restore(actor=actor, memory_id=entry.pk))


def memory_erase(caller: Caller, *, memory_id: str, via: str, **arguments: Any) -> dict[str, Any]:
    params = valid(s.EraseOneQuerySerializer, _given(**arguments))
    actor, entry = memory_for(caller, memory_id=memory_id, **_address(params))
    receipt = memory_erase_with_sources(
        user=actor,
        memory_id=entry.pk,
        erase_sources=params["erase_sources"],
        requester=requester_of(caller, via),
    )
    return {"erased": str(entry.pk), "entries": receipt.entries, "conversations": receipt.conversations}


def memory_erase_all(caller: Caller, *, via: str, **arguments: Any) -> dict[str, Any]:
    return erase_all_for(caller, valid(s.EraseAllSerializer, _given(**arguments)), via=via)


def memory_history_of(caller: Caller, *, memory_id: str, **address: Any) -> dict[str, Any]:
    params = valid(s.AddressSerializer, _given(**address))
    actor, entry = memory_for(caller, memory_id=memory_id, **_address(params))
    events = memory_history(actor=actor, memory_id=entry.pk)
    return {"memory_id": str(entry.pk), "events": s.MemoryEventOutSerializer(events, many=True).data}


# --- People and places (issue 19) ------------------------------------------------------------------


def _split(given: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the address, checked; the other arguments)."""
    address = _address(valid(s.AddressSerializer, {k: v for k, v in given.items() if k in ADDRESS}))
    return address, {k: v for k, v in given.items() if k not in ADDRESS}


def _paged(rows: list[Any], count: int, offset: int) -> dict[str, Any]:
    following = offset + len(rows)
    return {"count": count, "next_offset": following if following < count else None, "results": rows}


def entity_list(caller: Caller, **arguments: Any) -> dict[str, Any]:
    params = valid(es.EntityListQuerySerializer, _given(**arguments))
    rows, count = entity_rows(caller, params)
    return _paged(rows, count, params["offset"])


def entity_get(caller: Caller, *, entity_id: str, **arguments: Any) -> dict[str, Any]:
    params = valid(es.PointInTimeSerializer, _given(**arguments))
    data = entity_detail(caller, entity_id, params)
    return {**data, "memories": [statement(m) for m in data["memories"]]}


def entity_correct(caller: Caller, *, entity_id: str, **arguments: Any) -> dict[str, Any]:
    address, rest = _split(_given(**arguments))
    params = valid(es.EntityCorrectSerializer, rest)
    actor = entity_owner(caller, entity_id, address)
    entity = graph_services.entity_correct(
        actor=actor, entity_id=entity_id, name=params.get("name"), kind=params.get("kind")
    )
    return graph.entity_dict(entity)


def entity_merge(caller: Caller, *, entity_id: str, **arguments: Any) -> dict[str, Any]:
    address, rest = _split(_given(**arguments))
    params = valid(es.EntityMergeSerializer, rest)
    actor = entity_owner(caller, entity_id, address)
    if entity_owner(caller, params["into"], address) != actor:
        raise NotFound("Entity not found.")
    return graph.entity_dict(
        graph_services.entity_merge(actor=actor, entity_id=entity_id, into_id=params["into"])
    )


def entity_erase(caller: Caller, *, entity_id: str, via: str, **address: Any) -> dict[str, Any]:
    params = _address(valid(s.AddressSerializer, _given(**address)))
    return entity_erase_for(caller, entity_id, params, via=via)


def relation_list(caller: Caller, **arguments: Any) -> dict[str, Any]:
    params = valid(es.RelationListQuerySerializer, _given(**arguments))
    rows, count = relation_rows(caller, params)
    return _paged([graph.relation_dict(r) for r in rows], count, params["offset"])


def relation_get(caller: Caller, *, relation_id: str, **address: Any) -> dict[str, Any]:
    params = _address(valid(s.AddressSerializer, _given(**address)))
    actor = relation_owner(caller, relation_id, params)
    return graph.relation_dict(graph.relation_get(actor=actor, relation_id=relation_id))


def relation_correct(caller: Caller, *, relation_id: str, **arguments: Any) -> dict[str, Any]:
    address, rest = _split(_given(**arguments))
    params = valid(es.RelationCorrectSerializer, rest)
    return graph.relation_dict(relation_correct_for(caller, relation_id, {**params, **address}))


def relation_erase(caller: Caller, *, relation_id: str, **address: Any) -> dict[str, Any]:
    params = _address(valid(s.AddressSerializer, _given(**address)))
    actor = relation_owner(caller, relation_id, params)
    graph_services.relation_erase(actor=actor, relation_id=relation_id)
    return {"erased": relation_id}


def entity_search(caller: Caller, **arguments: Any) -> dict[str, Any]:
    return entity_search_for(caller, valid(es.EntitySearchQuerySerializer, _given(**arguments)))


def graph_read(caller: Caller, **arguments: Any) -> dict[str, Any]:
    return graph_for(caller, valid(es.GraphQuerySerializer, _given(**arguments)))


def graph_clear(caller: Caller, **arguments: Any) -> dict[str, Any]:
    return graph_clear_for(caller, valid(es.GraphClearSerializer, _given(**arguments)))


def relation_create(caller: Caller, **arguments: Any) -> dict[str, Any]:
    return relation_create_for(caller, valid(es.RelationCreateSerializer, _given(**arguments)))


def entity_observe(caller: Caller, *, entity_id: str, **arguments: Any) -> dict[str, Any]:
    data = observation_add_for(caller, entity_id, valid(es.ObservationSerializer, _given(**arguments)))
    return {"entity": data["entity"], "memory": statement(data["memory"])}


# The profile sections, in the order an assistant should weigh them.
PROFILE_SECTIONS = {
    "safety": "Always respect these (allergies, medical conditions, hard limits).",
    "identity": "Who the user is.",
    "preferences": "How the user wants things done; standing instructions.",
}


def _section(entry: MemoryEntry) -> str | None:
    if entry.pinned or entry.category == "safety":
        return "safety"
    if entry.category == "profile":
        return "identity"
    if entry.category == "preference" or entry.type == "procedural":
        return "preferences"
    return None


def profile(caller: Caller, **address: Any) -> dict[str, Any]:
    """The user's standing picture: safety facts, identity, preferences that hold now. Not logged
    as a recall: nothing is ranked for a query, and the user's memories page lists what is held."""
    params = valid(s.AddressSerializer, _given(**address))
    subject = subject_for(caller, user_id=params.get("user_id"), agent_id=params.get("agent_id"))
    sections: dict[str, list[dict[str, Any]]] = {name: [] for name in PROFILE_SECTIONS}
    if subject is not None:
        rows = memory_list(actor=subject.actor, statuses=[MemoryStatus.ACTIVE], current_only=True)
        for entry in rows.defer("embedding", "search_vector")[:500]:
            section = _section(entry)
            if section is not None:
                sections[section].append(statement(entry))
    return {
        "sections": {
            name: {"about": about, "statements": sections[name]} for name, about in PROFILE_SECTIONS.items()
        }
    }


# Receipts say the erasure came through MCP, whichever transport carried it.
VIA_HTTP = VIA_STDIO = ErasureVia.MCP

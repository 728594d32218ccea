"""People, places and things a user's memories speak of, and the relations between them (issue 19):
list, search, get (with relations and source memories), correct, merge, split, erase, observe;
relations list, create, get, correct, erase; the graph a page at a time, and clearing it. A thin
layer over `memory_core.entities` (docs/entities.md); the glue it shares with MCP is
`api.operations.entities`."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from api.base import ERASE, READ, WRITE, ApiView, AsIs, address_of, json_object, page, valid
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
from api.schema import errors
from api.serializers import core as s
from api.serializers import entities as es
from api.v1.examples import entities as ex
from memory_core.entities import selectors as graph
from memory_core.entities import services as graph_services
from memory_core.errors import NotFound


class EntitiesApi(ApiView):
    scopes = {"GET": READ}

    @extend_schema(
        operation_id="entities_list",
        summary="List people, places and things",
        description="The entities the user's memories speak of (not the user themself), by name. "
        "`relation_count` and `memory_count` say how much is known. Tenant keys: `user_id` or `agent_id`.",
        tags=["entities"],
        parameters=[es.EntityListQuerySerializer],
        responses={200: es.EntityPageSerializer, **errors(400)},
        examples=ex.ENTITIES_LIST,
    )
    def get(self, request: Request) -> Response:
        params = valid(es.EntityListQuerySerializer, request.query_params)
        rows, count = entity_rows(request, params)
        return Response(
            page(request, rows, count=count, limit=params["limit"], offset=params["offset"], serializer=AsIs)
        )


class EntityApi(ApiView):
    scopes = {"GET": READ, "PATCH": WRITE, "DELETE": ERASE}

    @extend_schema(
        operation_id="entities_retrieve",
        summary="An entity, what is known about it, and the sources",
        description="Its relations in both directions (those that hold now, at `at`, or all with "
        "`history=true`) and the memories that mention it or support them.",
        tags=["entities"],
        parameters=[es.PointInTimeSerializer],
        responses={200: es.EntityDetailSerializer, **errors(400, 404)},
        examples=ex.ENTITIES_RETRIEVE,
    )
    def get(self, request: Request, entity_id: str) -> Response:
        params = valid(es.PointInTimeSerializer, request.query_params)
        return Response(entity_detail(request, entity_id, params))

    @extend_schema(
        operation_id="entities_correct",
        summary="Correct an entity's name or kind",
        description="A new name becomes an alias too, so later mentions by it are recognised.",
        tags=["entities"],
        parameters=[s.AddressSerializer],
        request=es.EntityCorrectSerializer,
        responses={200: es.EntityOutSerializer, **errors(400, 404)},
        examples=ex.ENTITIES_CORRECT,
    )
    def patch(self, request: Request, entity_id: str) -> Response:
        params = valid(es.EntityCorrectSerializer, json_object(request))
        actor = entity_owner(request, entity_id, address_of(request))
        entity = graph_services.entity_correct(
            actor=actor, entity_id=entity_id, name=params.get("name"), kind=params.get("kind")
        )
        return Response(graph.entity_dict(entity))

    @extend_schema(
        operation_id="entities_erase",
        summary="Erase an entity and everything that speaks of it",
        description="Erases every memory that mentions the entity or supports one of its relations "
        "(hard delete with tombstones, as `DELETE /api/v1/memories/{id}/`), and with them the entity "
        "and its relations. Irreversible; the receipts hold counts, never content.",
        tags=["entities"],
        parameters=[s.AddressSerializer],
        responses={200: es.EntityErasedSerializer, **errors(400, 404)},
        examples=ex.ENTITIES_ERASE,
    )
    def delete(self, request: Request, entity_id: str) -> Response:
        return Response(entity_erase_for(request, entity_id, address_of(request)))


class EntityMergeApi(ApiView):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="entities_merge",
        summary="Merge an entity into another",
        description='They are the same ("Ana" and "my sister"): this entity\'s mentions, aliases and '
        "relations move to `into`, which is returned; this one is gone. Both must belong to the same user.",
        tags=["entities"],
        parameters=[s.AddressSerializer],
        request=es.EntityMergeSerializer,
        responses={200: es.EntityOutSerializer, **errors(400, 404)},
        examples=ex.ENTITIES_MERGE,
    )
    def post(self, request: Request, entity_id: str) -> Response:
        params = valid(es.EntityMergeSerializer, json_object(request))
        address = address_of(request)
        actor = entity_owner(request, entity_id, address)
        if entity_owner(request, params["into"], address) != actor:
            raise NotFound("Entity not found.")
        entity = graph_services.entity_merge(actor=actor, entity_id=entity_id, into_id=params["into"])
        return Response(graph.entity_dict(entity))


class EntitySplitApi(ApiView):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="entities_split",
        summary="Split memories off into a new entity",
        description="Some memories speak of someone else with the same name: their mentions, and the "
        "relations resting only on them, move to a new entity called `name`, which is returned.",
        tags=["entities"],
        parameters=[s.AddressSerializer],
        request=es.EntitySplitSerializer,
        responses={201: es.EntityOutSerializer, **errors(400, 404)},
        examples=ex.ENTITIES_SPLIT,
    )
    def post(self, request: Request, entity_id: str) -> Response:
        params = valid(es.EntitySplitSerializer, json_object(request))
        actor = entity_owner(request, entity_id, address_of(request))
        entity = graph_services.entity_split(
            actor=actor, entity_id=entity_id, entry_ids=params["memories"], name=params["name"]
        )
        return Response(graph.entity_dict(entity), status=status.HTTP_201_CREATED)


class RelationsApi(ApiView):
    scopes = {"GET": READ, "POST": WRITE}

    @extend_schema(
        operation_id="relations_create",
        summary="Link two entities (or an entity and a value)",
        description="`subject_id` (an entity, or `user` for the user themself) —`predicate`→ `object_id` "
        "(or `value` for role). The relation rests on a statement written for it through the write "
        'pipeline ("Ana\'s husband is Marc."), returned as `statement`: erasing it removes the relation. '
        "A newer spouse, employer, home or role ends the current one.",
        tags=["entities"],
        request=es.RelationCreateSerializer,
        responses={201: es.RelationCreatedSerializer, **errors(400, 404)},
        examples=ex.RELATIONS_CREATE,
    )
    def post(self, request: Request) -> Response:
        params = valid(es.RelationCreateSerializer, json_object(request))
        return Response(relation_create_for(request, params), status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="relations_list",
        summary="List relations",
        description="Subject —predicate→ object (or value), newest first: those that hold now, at `at`, "
        "or all with `history=true`; `entity` narrows to one entity's (either end).",
        tags=["entities"],
        parameters=[es.RelationListQuerySerializer],
        responses={200: es.RelationPageSerializer, **errors(400, 404)},
        examples=ex.RELATIONS_LIST,
    )
    def get(self, request: Request) -> Response:
        params = valid(es.RelationListQuerySerializer, request.query_params)
        rows, count = relation_rows(request, params)
        limit, offset = params["limit"], params["offset"]
        data = [graph.relation_dict(r) for r in rows]
        return Response(page(request, data, count=count, limit=limit, offset=offset, serializer=AsIs))


class RelationApi(ApiView):
    scopes = {"GET": READ, "PATCH": WRITE, "DELETE": ERASE}

    @extend_schema(
        operation_id="relations_retrieve",
        summary="A relation",
        tags=["entities"],
        parameters=[s.AddressSerializer],
        responses={200: es.RelationOutSerializer, **errors(400, 404)},
        examples=ex.RELATIONS_RETRIEVE,
    )
    def get(self, request: Request, relation_id: str) -> Response:
        actor = relation_owner(request, relation_id, address_of(request))
        return Response(graph.relation_dict(graph.relation_get(actor=actor, relation_id=relation_id)))

    @extend_schema(
        operation_id="relations_correct",
        summary="Correct a relation",
        description="`value`: the right value of a relation to a value (a job title). `valid_to` or "
        "`ended: true`: it no longer holds (its window closes; it stays in the history).",
        tags=["entities"],
        parameters=[s.AddressSerializer],
        request=es.RelationCorrectSerializer,
        responses={200: es.RelationOutSerializer, **errors(400, 404)},
        examples=ex.RELATIONS_CORRECT,
    )
    def patch(self, request: Request, relation_id: str) -> Response:
        params = valid(es.RelationCorrectSerializer, json_object(request))
        relation = relation_correct_for(request, relation_id, {**params, **address_of(request)})
        return Response(graph.relation_dict(relation))

    @extend_schema(
        operation_id="relations_erase",
        summary="Erase a relation",
        description="The relation is wrong: it and its links to memories go; the memories stay (erase "
        "or correct them with the memories endpoints).",
        tags=["entities"],
        parameters=[s.AddressSerializer],
        responses={204: OpenApiResponse(description="Erased."), **errors(400, 404)},
    )
    def delete(self, request: Request, relation_id: str) -> Response:
        actor = relation_owner(request, relation_id, address_of(request))
        graph_services.relation_erase(actor=actor, relation_id=relation_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class EntitySearchApi(ApiView):
    scopes = {"GET": READ}

    @extend_schema(
        operation_id="entities_search",
        summary="Find entities by name or meaning",
        description="Best first: by name or alias (score 1), then by the similarity of `q` to an entity's "
        "name or to the statements that mention it (`matched`).",
        tags=["entities"],
        parameters=[es.EntitySearchQuerySerializer],
        responses={200: es.EntitySearchSerializer, **errors(400)},
        examples=ex.ENTITIES_SEARCH,
    )
    def get(self, request: Request) -> Response:
        return Response(
            entity_search_for(request, valid(es.EntitySearchQuerySerializer, request.query_params))
        )


class EntityObservationsApi(ApiView):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="entities_observe",
        summary="Add an observation to an entity",
        description="A statement about the entity, written through the write pipeline as any add (secrets "
        "refused, rules held for review) and linked to it.",
        tags=["entities"],
        request=es.ObservationSerializer,
        responses={201: es.ObservationOutSerializer, **errors(400, 404)},
        examples=ex.ENTITIES_OBSERVE,
    )
    def post(self, request: Request, entity_id: str) -> Response:
        params = valid(es.ObservationSerializer, json_object(request))
        return Response(observation_add_for(request, entity_id, params), status=status.HTTP_201_CREATED)


class GraphApi(ApiView):
    scopes = {"GET": READ}

    @extend_schema(
        operation_id="graph_read",
        summary="The graph, a page of entities at a time",
        description="Entities by name (`limit`, `offset`) and every relation that touches one of them: those "
        "that hold now, at `at`, or all with `history=true`. `next_offset` is null on the last page.",
        tags=["entities"],
        parameters=[es.GraphQuerySerializer],
        responses={200: es.GraphPageSerializer, **errors(400)},
        examples=ex.GRAPH_READ,
    )
    def get(self, request: Request) -> Response:
        return Response(graph_for(request, valid(es.GraphQuerySerializer, request.query_params)))


class GraphClearApi(ApiView):
    scopes = {"POST": ERASE}

    @extend_schema(
        operation_id="graph_clear",
        summary="Clear the graph",
        description="Every entity and relation of the user goes (`confirm` must be true); the memories "
        "stay, and later statements build the graph again. Erase the memories with erase-all.",
        tags=["entities"],
        request=es.GraphClearSerializer,
        responses={200: es.GraphClearedSerializer, **errors(400)},
        examples=ex.GRAPH_CLEAR,
    )
    def post(self, request: Request) -> Response:
        return Response(graph_clear_for(request, valid(es.GraphClearSerializer, json_object(request))))

"""What every API view shares: the `ApiView` base, input helpers, the page shape, who asks for an
erasure, and the output of entries, outcomes and jobs used by several endpoints."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from rest_framework import serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from api.auth import ApiKeyAuthentication, Caller, UserTokenAuthentication
from api.models import ApiKey, ApiScope
from api.parsers import LimitedJSONParser
from api.permissions import HasScope
from api.selectors import Subject
from api.serializers import core as s
from api.throttling import ApiKeyThrottle, ApiUserThrottle
from memory_core.erasure import Requester
from memory_core.models import ErasureVia, ExtractionJob, MemoryEntry

READ, WRITE, ERASE, MODERATE = ApiScope.READ, ApiScope.WRITE, ApiScope.ERASE, ApiScope.MODERATE


class ApiView(APIView):
    """Tenant key, personal token or session; JSON in and out; scopes per method; rate limited."""

    # drf-spectacular uses this docstring as the description of operations that give none.
    authentication_classes = [ApiKeyAuthentication, UserTokenAuthentication, SessionAuthentication]
    permission_classes = [HasScope]
    parser_classes = [LimitedJSONParser]
    renderer_classes = [JSONRenderer]
    throttle_classes = [ApiKeyThrottle, ApiUserThrottle]
    scopes: ClassVar[dict[str, str | None]] = {}  # HTTP method → the scope it needs (None: any)


# --- Input ---------------------------------------------------------------------------------------


def valid(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def json_object(request: Request) -> dict[str, Any]:
    if not isinstance(request.data, dict):
        raise serializers.ValidationError({"non_field_errors": ["Expected a JSON object."]})
    return request.data


def address_of(request: Request) -> dict[str, Any]:
    """`user_id` / `agent_id` from the query string, validated."""
    return valid(s.AddressSerializer, request.query_params)


def requester_of(request: Request | Caller, via: str = ErasureVia.API) -> Requester:
    """Who asks, for an erasure's receipt: a tenant key by its prefix, else the signed-in person."""
    key = request.auth
    if isinstance(key, ApiKey):
        return Requester(via=via, api_key_prefix=key.prefix)
    return Requester(via=via, person=request.user)


# --- Output --------------------------------------------------------------------------------------


def page(
    request: Request, rows: Any, *, count: int, limit: int, offset: int, serializer: Any
) -> dict[str, Any]:
    """DRF's limit/offset page shape; links keep the caller's filters."""
    url = replace_query_param(request.build_absolute_uri(), "limit", limit)
    following, preceding = offset + limit, max(0, offset - limit)
    return {
        "count": count,
        "next": replace_query_param(url, "offset", following) if following < count else None,
        "previous": None if offset == 0 else replace_query_param(url, "offset", preceding),
        "results": serializer(rows, many=True).data,
    }


class AsIs(serializers.Serializer):
    """Rows already shaped (receipt_dict): `page` serialises them as they are."""

    def to_representation(self, instance: Any) -> Any:
        return instance


def entry_out(entry: MemoryEntry | None, subject: Subject | None = None) -> Any:
    return entries_out([entry], subject)[0]


def entries_out(entries: Sequence[MemoryEntry | None], subject: Subject | None = None) -> list[Any]:
    """The entries as `MemoryOutSerializer` shapes them (None stays None), by `memories_out`: DRF
    builds a serializer's fields (a deep copy of every declared field) per instance, which for a
    serializer per entry was most of what a recall of twenty items cost to render."""
    present = [entry for entry in entries if entry is not None]
    for entry in present:
        if subject is not None and entry.namespace_id == subject.namespace.pk:
            entry.namespace = subject.namespace  # saves a query per entry
    rendered = iter(s.memories_out(present))
    return [None if entry is None else next(rendered) for entry in entries]


def outcome_out(outcome: Any, subject: Subject) -> dict[str, Any]:
    return outcomes_out([outcome], subject)[0]


def outcomes_out(outcomes: Sequence[Any], subject: Subject) -> list[dict[str, Any]]:
    entries = entries_out([outcome.entry for outcome in outcomes], subject)
    return [
        {
            "action": outcome.action,
            "reason": outcome.reason,
            "flagged": outcome.flagged,
            "entry": entry,
            "replaced": outcome.replaced.pk if outcome.replaced is not None else None,
            # what the same statement also stored (the safety fact a held rule states first)
            "also": outcomes_out(outcome.also, subject) if outcome.also else [],
        }
        for outcome, entry in zip(outcomes, entries, strict=True)
    ]


def job_out(job: ExtractionJob | None) -> dict[str, Any] | None:
    return s.JobOutSerializer(job).data if job is not None else None

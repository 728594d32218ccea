"""Webhook endpoints over the API: register, list, read, update or re-enable, delete, rotate the
secret, list deliveries (with every attempt), replay a delivery, send a test ping.

A tenant key manages its tenant's endpoints (events of the tenant's users and agents); an operator
(personal token or session) the operators' endpoints (events of every namespace). Other people
get a 403; someone else's endpoint is "not found". Deliveries carry memories, so managing an
endpoint takes the read scope as well as write.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, status
from rest_framework.request import Request
from rest_framework.response import Response

from api.auth import tenant_of
from api.base import READ, WRITE, ApiView, address_of, json_object, page, valid
from api.models import ApiKey
from api.schema import errors
from api.selectors import reach, reaches
from api.serializers import core as s
from api.serializers import webhooks as ws
from api.v1.examples import webhooks as ex
from memory_core.errors import NotFound
from memory_core.moderation import is_operator
from memory_core.webhooks.dispatch import OPERATORS, tenant_audience
from memory_core.webhooks.models import WebhookDelivery, WebhookEndpoint
from memory_core.webhooks.services import (
    deliveries_of,
    delivery_access,
    delivery_replay,
    endpoint_access,
    endpoint_create,
    endpoint_delete,
    endpoint_ping,
    endpoint_secret_rotate,
    endpoint_update,
    endpoints_of,
)

TAGS = ["webhooks"]
_ID = OpenApiParameter("webhook_id", str, OpenApiParameter.PATH, description="The endpoint's id.")


def audience_of(request: Request, *, needs_read: bool = False) -> str:
    """Whose endpoints the caller manages: its tenant's, or (operators) the operators'."""
    tenant = tenant_of(request)
    if tenant is not None:
        if needs_read and isinstance(request.auth, ApiKey) and READ not in request.auth.scopes:
            raise exceptions.PermissionDenied(
                "Deliveries carry memories: this API key also needs the 'read' scope."
            )
        return tenant_audience(tenant.pk)
    if not is_operator(request.user):
        raise exceptions.PermissionDenied("Webhooks are managed with a tenant API key or by an operator.")
    return OPERATORS


def _endpoint(request: Request, webhook_id: str, *, needs_read: bool = False) -> WebhookEndpoint:
    return endpoint_access(audience=audience_of(request, needs_read=needs_read), endpoint_id=webhook_id)


def _subject_scope(request: Request) -> Any:
    """Deliveries carry one user's or agent's memories: when the call names one (`user_id` /
    `agent_id`), the namespaces it may reach (`api.selectors.reach`); None when it names none."""
    address = address_of(request)
    return reach(request, **address) if address else None


def _with_secret(endpoint: WebhookEndpoint, secret: str) -> dict[str, Any]:
    return {**ws.EndpointOutSerializer(endpoint).data, "secret": secret}


def _delivery_out(delivery: WebhookDelivery) -> Any:
    fresh = deliveries_of(endpoint=delivery.endpoint).prefetch_related("attempt_log").get(pk=delivery.pk)
    return ws.DeliveryOutSerializer(fresh).data


class WebhooksApi(ApiView):
    scopes = {"GET": READ, "POST": WRITE}

    @extend_schema(
        operation_id="webhooks_list",
        summary="List webhook endpoints",
        tags=TAGS,
        parameters=[s.PageQuerySerializer],
        responses={200: ws.EndpointPageSerializer, **errors(400)},
        examples=ex.WEBHOOKS_LIST,
    )
    def get(self, request: Request) -> Response:
        params = valid(s.PageQuerySerializer, request.query_params)
        qs = endpoints_of(audience=audience_of(request))
        limit, offset = params["limit"], params["offset"]
        rows = list(qs[offset : offset + limit])
        return Response(
            page(
                request,
                rows,
                count=qs.count(),
                limit=limit,
                offset=offset,
                serializer=ws.EndpointOutSerializer,
            )
        )

    @extend_schema(
        operation_id="webhooks_create",
        summary="Register a webhook endpoint",
        description="Deliveries are POSTed as JSON and signed: `Webhook-Signature: t=<unix>,v1=<hex "
        'HMAC-SHA256 of "<t>.<body>">`. The `secret` is in this answer only. URLs must be https:// '
        "(plain http:// only on the loopback, for development). See docs/api.md for the events.",
        tags=TAGS,
        request=ws.EndpointCreateSerializer,
        responses={201: ws.EndpointWithSecretSerializer, **errors(400, 409)},
        examples=ex.WEBHOOKS_CREATE,
    )
    def post(self, request: Request) -> Response:
        params = valid(ws.EndpointCreateSerializer, json_object(request))
        endpoint, secret = endpoint_create(audience=audience_of(request, needs_read=True), **params)
        return Response(_with_secret(endpoint, secret), status=status.HTTP_201_CREATED)


class WebhookApi(ApiView):
    scopes = {"GET": READ, "PATCH": WRITE, "DELETE": WRITE}

    @extend_schema(
        operation_id="webhooks_retrieve",
        summary="A webhook endpoint",
        description="`disabled_at` and `disabled_reason` are the notice left when repeated failures "
        "disabled it.",
        tags=TAGS,
        parameters=[_ID],
        responses={200: ws.EndpointOutSerializer, **errors(404)},
        examples=ex.WEBHOOKS_RETRIEVE,
    )
    def get(self, request: Request, webhook_id: str) -> Response:
        return Response(ws.EndpointOutSerializer(_endpoint(request, webhook_id)).data)

    @extend_schema(
        operation_id="webhooks_update",
        summary="Change or re-enable a webhook endpoint",
        tags=TAGS,
        parameters=[_ID],
        request=ws.EndpointUpdateSerializer,
        responses={200: ws.EndpointOutSerializer, **errors(400, 404)},
        examples=ex.WEBHOOKS_UPDATE,
    )
    def patch(self, request: Request, webhook_id: str) -> Response:
        params = valid(ws.EndpointUpdateSerializer, json_object(request))
        endpoint = endpoint_update(endpoint=_endpoint(request, webhook_id, needs_read=True), **params)
        return Response(ws.EndpointOutSerializer(endpoint).data)

    @extend_schema(
        operation_id="webhooks_delete",
        summary="Delete a webhook endpoint",
        description="Its deliveries and their log go with it.",
        tags=TAGS,
        parameters=[_ID],
        responses={204: None, **errors(404)},
    )
    def delete(self, request: Request, webhook_id: str) -> Response:
        endpoint_delete(endpoint=_endpoint(request, webhook_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookRotateSecretApi(ApiView):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="webhooks_rotate_secret",
        summary="Rotate an endpoint's signing secret",
        description="The new secret is in this answer only. The old one stops at once, or, with "
        "`grace_seconds`, signs every delivery beside the new one (two `v1=` in `Webhook-Signature`) "
        "until `previous_secret_until`, so a receiver can switch without missing an event.",
        tags=TAGS,
        parameters=[_ID],
        request=ws.RotateSecretSerializer,
        responses={200: ws.EndpointWithSecretSerializer, **errors(404)},
        examples=ex.WEBHOOKS_ROTATE,
    )
    def post(self, request: Request, webhook_id: str) -> Response:
        params = valid(ws.RotateSecretSerializer, json_object(request))
        endpoint, secret = endpoint_secret_rotate(
            endpoint=_endpoint(request, webhook_id, needs_read=True), grace_seconds=params["grace_seconds"]
        )
        answer = _with_secret(endpoint, secret) | {"previous_secret_until": endpoint.previous_secret_until}
        return Response(answer)


class WebhookPingApi(ApiView):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="webhooks_ping",
        summary="Send a test ping to an endpoint",
        description="A signed `webhook.ping` event, delivered like any other (also to a disabled "
        "endpoint, to check a fix before re-enabling it). Returns the delivery.",
        tags=TAGS,
        parameters=[_ID],
        request=None,
        responses={202: ws.DeliveryOutSerializer, **errors(404)},
        examples=ex.WEBHOOKS_PING,
    )
    def post(self, request: Request, webhook_id: str) -> Response:
        delivery = endpoint_ping(endpoint=_endpoint(request, webhook_id))
        return Response(_delivery_out(delivery), status=status.HTTP_202_ACCEPTED)


class WebhookDeliveriesApi(ApiView):
    scopes = {"GET": READ}

    @extend_schema(
        operation_id="webhooks_deliveries",
        summary="Deliveries of an endpoint, newest first, with every attempt",
        tags=TAGS,
        parameters=[_ID, ws.DeliveryQuerySerializer, s.AddressSerializer],
        responses={200: ws.DeliveryPageSerializer, **errors(400, 404)},
        examples=ex.WEBHOOKS_DELIVERIES,
    )
    def get(self, request: Request, webhook_id: str) -> Response:
        params = valid(ws.DeliveryQuerySerializer, request.query_params)
        endpoint = _endpoint(request, webhook_id)
        qs = deliveries_of(endpoint=endpoint, status=params.get("status"))
        scope = _subject_scope(request)
        if scope is not None:
            qs = qs.filter(event__namespace_ref__in=scope)
        limit, offset = params["limit"], params["offset"]
        rows = list(qs.prefetch_related("attempt_log")[offset : offset + limit])
        return Response(
            page(
                request,
                rows,
                count=qs.count(),
                limit=limit,
                offset=offset,
                serializer=ws.DeliveryOutSerializer,
            )
        )


class WebhookReplayApi(ApiView):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="webhooks_replay",
        summary="Replay a delivery",
        description="Sends the same event (same `Webhook-Id`, a fresh timestamp and signature) at once, as "
        "a new delivery with its own retries; a delivery still pending (waiting for its next retry) is sent "
        "now instead, and returned. 409 when the endpoint is disabled or the memory was erased.",
        tags=TAGS,
        parameters=[_ID, s.AddressSerializer],
        request=None,
        responses={202: ws.DeliveryOutSerializer, **errors(400, 404, 409)},
        examples=ex.WEBHOOKS_REPLAY,
    )
    def post(self, request: Request, webhook_id: str, delivery_id: str) -> Response:
        endpoint = _endpoint(request, webhook_id, needs_read=True)
        delivery = delivery_access(endpoint=endpoint, delivery_id=delivery_id)
        scope = _subject_scope(request)
        if scope is not None and not reaches(scope, namespace_id=delivery.event.namespace_ref):
            raise NotFound("Delivery not found.")
        replayed = delivery_replay(delivery=delivery)
        return Response(_delivery_out(replayed), status=status.HTTP_202_ACCEPTED)

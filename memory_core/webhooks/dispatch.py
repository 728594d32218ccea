"""`webhook_emit`: the engine's services announce a change inside the transaction that made it.

The event and its deliveries are rows written in that transaction (an outbox): a rolled-back
change is never announced, and a committed one is never lost. The delivery tasks are queued when
it commits. Who receives an event: the operators' endpoints (every namespace) and the endpoints of
the audiences settings.WEBHOOK_AUDIENCE_RESOLVER names for the namespace (a tenant's), each with
the fields that tell its receiver whose memory it is (`namespace`, or the tenant's `user_id` /
`agent_id`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone
from django.utils.module_loading import import_string

from memory_core.choices import DeliveryStatus, WebhookEventType
from memory_core.jobs import enqueue
from memory_core.models import Namespace
from memory_core.webhooks.models import WebhookDelivery, WebhookEndpoint, WebhookEvent

OPERATORS = "operators"
DELIVER_TASK = "memory_core.tasks.webhook_deliver"

Audiences = dict[str, dict[str, Any]]  # audience → the fields that address the namespace to it


def tenant_audience(tenant_id: int) -> str:
    return f"tenant:{tenant_id}"


def _resolver() -> Callable[[int], Audiences] | None:
    path = getattr(settings, "WEBHOOK_AUDIENCE_RESOLVER", "")
    return import_string(path) if path else None


def namespace_audiences(namespace_id: int) -> Audiences:
    """Who may hear about this namespace, and how each names it."""
    path = Namespace.objects.filter(pk=namespace_id).values_list("path", flat=True).first()
    audiences: Audiences = {OPERATORS: {"namespace": path}}
    resolver = _resolver()
    if resolver is not None:
        audiences.update(resolver(namespace_id))
    return audiences


def webhook_emit(
    *,
    type: str,
    namespace_id: int,
    data: dict[str, Any],
    entry_ids: Iterable[Any] = (),
) -> int:
    """Record `type` for every enabled endpoint subscribed to it that may see `namespace_id`;
    returns how many deliveries were queued. One query when nobody listens."""
    listening = WebhookEndpoint.objects.filter(enabled=True, events__contains=[type])
    if not listening.exists():
        return 0
    audiences = namespace_audiences(namespace_id)
    endpoints = list(listening.filter(audience__in=list(audiences)))
    by_audience: dict[str, list[WebhookEndpoint]] = {}
    for endpoint in endpoints:
        by_audience.setdefault(endpoint.audience, []).append(endpoint)
    refs = [str(pk) for pk in entry_ids]
    return sum(
        len(
            event_deliver(
                type=type,
                audience=audience,
                data={**audiences[audience], **data},
                endpoints=targets,
                namespace_id=namespace_id,
                entry_refs=refs,
            )
        )
        for audience, targets in by_audience.items()
    )


def event_deliver(
    *,
    type: str,
    audience: str,
    data: dict[str, Any],
    endpoints: list[WebhookEndpoint],
    namespace_id: int | None = None,
    entry_refs: list[str] | None = None,
) -> list[WebhookDelivery]:
    """One event for `audience`, a delivery to each of `endpoints`, queued on commit."""
    event = WebhookEvent(
        type=type,
        audience=audience,
        namespace_ref=namespace_id,
        entry_refs=entry_refs or [],
        has_content=type not in WebhookEventType.content_free(),
    )
    now = timezone.now()
    event.payload = {"id": str(event.pk), "type": type, "created_at": now.isoformat(), "data": data}
    event.created_at = now
    event.save(force_insert=True)
    return [delivery_queue(event=event, endpoint=endpoint) for endpoint in endpoints]


def delivery_queue(
    *, event: WebhookEvent, endpoint: WebhookEndpoint, replay_of: WebhookDelivery | None = None
) -> WebhookDelivery:
    now = timezone.now()
    delivery = WebhookDelivery.objects.create(
        event=event,
        endpoint=endpoint,
        status=DeliveryStatus.PENDING,
        next_attempt_at=now,
        queued_at=now,
        replay_of=replay_of,
    )
    enqueue(DELIVER_TASK, str(delivery.pk), group="webhooks")
    return delivery


def delivery_due_now(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """A pending delivery waiting out its backoff (a minute after the first failure, hours later
    on) made due now and queued at once, on commit; one a worker is sending is left to it."""
    now = timezone.now()
    due = (
        WebhookDelivery.objects.filter(pk=delivery.pk, status=DeliveryStatus.PENDING)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .update(next_attempt_at=now, queued_at=now)
    )
    if due:
        enqueue(DELIVER_TASK, str(delivery.pk), group="webhooks")
    delivery.refresh_from_db()
    return delivery


def payloads_erase(*, namespace_ids: list[int], entry_ids: list[Any] | None = None) -> int:
    """Empty the payloads that quote erased memories (all of these namespaces' when `entry_ids`
    is None) and cancel their pending deliveries: an erased statement is never sent, nor kept in
    the delivery log. Returns how many events were emptied."""
    events = WebhookEvent.objects.filter(namespace_ref__in=namespace_ids, has_content=True)
    if entry_ids is not None:
        events = events.filter(entry_refs__overlap=[str(pk) for pk in entry_ids])
    ids = list(events.values_list("pk", flat=True))
    if not ids:
        return 0
    WebhookDelivery.objects.filter(event_id__in=ids, status=DeliveryStatus.PENDING).update(
        status=DeliveryStatus.CANCELLED,
        next_attempt_at=None,
        last_error="The memory was erased before delivery.",
    )
    return WebhookEvent.objects.filter(pk__in=ids).update(has_content=False, payload={"erased": True})

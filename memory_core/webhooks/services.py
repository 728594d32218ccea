"""Managing webhook endpoints: create (the secret shown once), update, enable, delete, rotate the
secret, replay a delivery, send a test ping; and the reads, scoped to one audience so that someone
else's endpoint is "not found" like a missing one."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from memory_core.choices import DeliveryStatus, WebhookEventType
from memory_core.errors import Conflict, MemoryServiceError, NotFound
from memory_core.selectors import parse_uuid
from memory_core.validation import strip_nul
from memory_core.webhooks.addresses import endpoint_url_check
from memory_core.webhooks.dispatch import delivery_due_now, delivery_queue, event_deliver
from memory_core.webhooks.models import WebhookDelivery, WebhookEndpoint
from memory_core.webhooks.signing import secret_generate

DESCRIPTION_MAX_CHARS = 200
ENDPOINTS_PER_AUDIENCE = 20


def events_check(events: Any) -> list[str]:
    """The subscribed types, de-duplicated in order; a 400 naming any unknown one."""
    if not isinstance(events, list | tuple) or not events or not all(isinstance(e, str) for e in events):
        raise MemoryServiceError(
            "Give the event types as a non-empty list.",
            field_errors={"events": ["A non-empty list of strings."]},
        )
    allowed = WebhookEventType.subscribable()
    unknown = [e for e in events if e not in allowed]
    if unknown:
        message = f"Unknown event type(s): {', '.join(map(repr, unknown))}. Known: {', '.join(allowed)}."
        raise MemoryServiceError(message, field_errors={"events": [message]})
    return list(dict.fromkeys(events))


def _description(text: str | None) -> str:
    return strip_nul(text or "").strip()[:DESCRIPTION_MAX_CHARS]


# --- Reads ----------------------------------------------------------------------------------------


def endpoints_of(*, audience: str) -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.filter(audience=audience)


def endpoint_access(*, audience: str, endpoint_id: Any) -> WebhookEndpoint:
    pk = parse_uuid(endpoint_id)
    endpoint = endpoints_of(audience=audience).filter(pk=pk).first() if pk is not None else None
    if endpoint is None:
        raise NotFound("Webhook endpoint not found.")
    return endpoint


def deliveries_of(*, endpoint: WebhookEndpoint, status: str | None = None) -> QuerySet[WebhookDelivery]:
    qs = WebhookDelivery.objects.filter(endpoint=endpoint).select_related("event")
    return qs.filter(status=status) if status else qs


def delivery_access(*, endpoint: WebhookEndpoint, delivery_id: Any) -> WebhookDelivery:
    pk = parse_uuid(delivery_id)
    delivery = deliveries_of(endpoint=endpoint).filter(pk=pk).first() if pk is not None else None
    if delivery is None:
        raise NotFound("Delivery not found.")
    return delivery


# --- Writes ---------------------------------------------------------------------------------------


@transaction.atomic
def endpoint_create(
    *, audience: str, url: str, events: Iterable[str], description: str = ""
) -> tuple[WebhookEndpoint, str]:
    """A new endpoint and its signing secret (returned here only: it is never shown again)."""
    checked_url, checked_events = endpoint_url_check(url), events_check(list(events))
    if endpoints_of(audience=audience).count() >= ENDPOINTS_PER_AUDIENCE:
        raise Conflict(f"At most {ENDPOINTS_PER_AUDIENCE} webhook endpoints; delete one first.")
    secret = secret_generate()
    endpoint = WebhookEndpoint.objects.create(
        audience=audience,
        url=checked_url,
        events=checked_events,
        description=_description(description),
        secret=secret,
    )
    return endpoint, secret


@transaction.atomic
def endpoint_update(
    *,
    endpoint: WebhookEndpoint,
    url: str | None = None,
    events: Iterable[str] | None = None,
    description: str | None = None,
    enabled: bool | None = None,
) -> WebhookEndpoint:
    """Change what is given. Enabling a disabled endpoint clears its failure count and notice."""
    endpoint = WebhookEndpoint.objects.select_for_update().get(pk=endpoint.pk)
    if url is not None:
        endpoint.url = endpoint_url_check(url)
    if events is not None:
        endpoint.events = events_check(list(events))
    if description is not None:
        endpoint.description = _description(description)
    if enabled is True and not endpoint.enabled:
        endpoint.enabled, endpoint.consecutive_failures = True, 0
        endpoint.disabled_at, endpoint.disabled_reason = None, ""
    elif enabled is False and endpoint.enabled:
        endpoint.enabled = False
        WebhookDelivery.objects.filter(endpoint=endpoint, status=DeliveryStatus.PENDING).update(
            status=DeliveryStatus.CANCELLED, next_attempt_at=None, last_error="The endpoint was disabled."
        )
    endpoint.save()
    return endpoint


def endpoint_delete(*, endpoint: WebhookEndpoint) -> None:
    """Gone with its deliveries and their attempts; queued tasks find nothing to send."""
    endpoint.delete()


@transaction.atomic
def endpoint_secret_rotate(
    *, endpoint: WebhookEndpoint, grace_seconds: int = 0
) -> tuple[WebhookEndpoint, str]:
    """A new secret at once: the next attempt of every delivery is signed with it, and also with
    the old one for `grace_seconds` (0: the old one stops now; a secret retired by an earlier
    rotation stops now either way)."""
    secret = secret_generate()
    current = WebhookEndpoint.objects.select_for_update().get(pk=endpoint.pk)
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
        secret=secret,
        previous_secret=current.secret if grace_seconds else "",
        previous_secret_until=timezone.now() + timedelta(seconds=grace_seconds) if grace_seconds else None,
    )
    endpoint.refresh_from_db()
    return endpoint, secret


def endpoint_secrets_reseal() -> int:
    """Every endpoint's secrets sealed again under the first configured key (after a key rotation,
    `memory_core.sealed`); the number of endpoints. Each row is read (opened with any configured
    key) and written back in its own short transaction, under its row lock."""
    count = 0
    for pk in list(WebhookEndpoint.objects.values_list("pk", flat=True)):
        with transaction.atomic():
            endpoint = WebhookEndpoint.objects.select_for_update().filter(pk=pk).first()
            if endpoint is not None:
                endpoint.save(update_fields=["secret", "previous_secret"])
                count += 1
    return count


@transaction.atomic
def delivery_replay(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """Send a delivery's event again at once, as a new delivery (same event id, a fresh
    signature); one still pending (waiting for its next retry) is sent now instead, so the
    receiver gets it once, without waiting out the backoff."""
    endpoint = WebhookEndpoint.objects.select_for_update().get(pk=delivery.endpoint_id)
    if not endpoint.enabled:
        raise Conflict("The endpoint is disabled: enable it (PATCH enabled=true) before replaying.")
    if delivery.event.payload.get("erased"):
        raise Conflict("This event's memory was erased: there is nothing left to send.")
    if delivery.event.type == WebhookEventType.PING:
        raise Conflict("A ping is not replayed: send a new one.")
    if delivery.status == DeliveryStatus.PENDING:
        return delivery_due_now(delivery=delivery)
    return delivery_queue(event=delivery.event, endpoint=endpoint, replay_of=delivery)


@transaction.atomic
def endpoint_ping(*, endpoint: WebhookEndpoint) -> WebhookDelivery:
    """A `webhook.ping` to this endpoint only (also while it is disabled, to test a fix)."""
    (delivery,) = event_deliver(
        type=WebhookEventType.PING,
        audience=endpoint.audience,
        data={
            "endpoint": {"id": str(endpoint.pk), "url": endpoint.url},
            "message": "Ping from the memory service.",
        },
        endpoints=[endpoint],
    )
    return delivery

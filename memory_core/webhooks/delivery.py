"""Sending a delivery: one signed POST per attempt, every attempt logged, retries with exponential
backoff, and an endpoint that keeps failing disabled with a notice.

`delivery_attempt` is the body of the `webhook_deliver` task. It claims the delivery with a lease
(a conditional UPDATE), so two workers handed the same task (django-q delivers at least once)
send it once; it holds no transaction while the receiver answers. A failed attempt sets
`next_attempt_at` = now + WEBHOOK_RETRY_BASE_SECONDS x 2^(attempts-1), capped at
WEBHOOK_RETRY_MAX_SECONDS; the `webhook-retries` schedule (every minute) queues the deliveries
that are due (`webhook_retries_run`). After WEBHOOK_MAX_ATTEMPTS the delivery has failed (it can
be replayed). WEBHOOK_DISABLE_AFTER_FAILURES failed attempts in a row, across deliveries, disable
the endpoint: its pending deliveries fail, a `webhook.disabled` event goes to the audience's
other endpoints, and the server logs (and mails ADMINS) a warning.
"""

from __future__ import annotations

import json
import logging
import socket
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.core.mail import mail_admins
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from config.tuning import tuned
from memory_core.choices import DeliveryStatus, WebhookEventType
from memory_core.jobs import enqueue
from memory_core.webhooks.addresses import ip_of, is_loopback
from memory_core.webhooks.dispatch import DELIVER_TASK, event_deliver
from memory_core.webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from memory_core.webhooks.signing import SIGNATURE_HEADER, signature_header

logger = logging.getLogger(__name__)

USER_AGENT = "memory-webhooks/1"
ERROR_MAX_CHARS = 300
RETRIES_PER_SWEEP = 500
WEBHOOK_TIMEOUT_SECONDS = 10.0  # per attempt: a receiver answers at once and works afterwards
# Retries back off from a minute, doubling up to six hours: 8 attempts span about two hours, and a
# receiver down for longer finds its deliveries failed, to be replayed.
WEBHOOK_RETRY_BASE_SECONDS, WEBHOOK_RETRY_MAX_SECONDS, WEBHOOK_MAX_ATTEMPTS = 60, 6 * 3600, 8
# Failed attempts in a row across an endpoint's deliveries before it is disabled (0: never).
WEBHOOK_DISABLE_AFTER_FAILURES = 20


def backoff(attempts: int) -> timedelta:
    """How long after the `attempts`-th failed attempt the next one is due."""
    base = tuned("WEBHOOK_RETRY_BASE_SECONDS", WEBHOOK_RETRY_BASE_SECONDS)
    cap = tuned("WEBHOOK_RETRY_MAX_SECONDS", WEBHOOK_RETRY_MAX_SECONDS)
    return timedelta(seconds=min(cap, base * 2 ** max(0, attempts - 1)))


@dataclass(frozen=True)
class Response:
    status_code: int | None
    error: str
    duration_ms: int
    # False when nothing was sent (endpoint disabled, memory erased): not the receiver's failure.
    counts: bool = True

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def body_of(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()


def _address_refused(url: str) -> str:
    """Why a host that resolves into a private network is not contacted ("" when it may be)."""
    host = urlsplit(url).hostname or ""
    if is_loopback(host) or ip_of(host) is not None or settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS:
        return ""  # literal addresses were checked when the URL was saved
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError as exc:
        return f"DNS lookup failed: {exc}"
    for info in infos:
        address = ip_of(str(info[4][0]).split("%")[0])
        if address is not None and not address.is_global:
            return f"{host} resolves to a non-public address ({address})"
    return ""


def _post(endpoint: WebhookEndpoint, delivery: WebhookDelivery, body: bytes) -> Response:
    timeout = tuned("WEBHOOK_TIMEOUT_SECONDS", WEBHOOK_TIMEOUT_SECONDS)
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Webhook-Id": str(delivery.event_id),
        "Webhook-Event": delivery.event.type,
        "Webhook-Delivery": str(delivery.pk),
        "Webhook-Attempt": str(delivery.attempts),
        SIGNATURE_HEADER: signature_header(
            secrets=endpoint.signing_secrets(timezone.now()), timestamp=timestamp, body=body
        ),
    }
    started = time.monotonic()
    status_code, error = None, _address_refused(endpoint.url)
    if not error:
        try:
            answer = httpx.post(endpoint.url, content=body, headers=headers, timeout=timeout)
            status_code = answer.status_code
            if not 200 <= status_code < 300:
                error = f"HTTP {status_code} {answer.reason_phrase}".strip()
        except httpx.TimeoutException:
            error = f"No answer within {timeout:g} s."
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}"
    duration = int((time.monotonic() - started) * 1000)
    return Response(status_code, error[:ERROR_MAX_CHARS], duration)


def _claim(delivery_id: Any, now: datetime) -> WebhookDelivery | None:
    lease = timedelta(seconds=tuned("WEBHOOK_TIMEOUT_SECONDS", WEBHOOK_TIMEOUT_SECONDS) + 30)
    claimed = (
        WebhookDelivery.objects.filter(
            pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now
        )
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .update(claimed_until=now + lease, attempts=F("attempts") + 1, queued_at=None)
    )
    if not claimed:
        return None
    return WebhookDelivery.objects.select_related("event", "endpoint").get(pk=delivery_id)


def delivery_attempt(*, delivery_id: Any) -> WebhookDelivery | None:
    """One attempt of a due delivery; None when there is nothing to do (not due, done, or another
    worker is sending it)."""
    try:
        delivery = _claim(delivery_id, timezone.now())
    except (ValueError, TypeError):
        return None
    if delivery is None:
        return None
    endpoint = delivery.endpoint
    if not endpoint.enabled and delivery.event.type != WebhookEventType.PING:
        response = Response(None, "The endpoint is disabled.", 0, counts=False)
    elif delivery.event.payload.get("erased"):
        response = Response(None, "The memory was erased before delivery.", 0, counts=False)
    else:
        response = _post(endpoint, delivery, body_of(delivery.event.payload))
    return _record(delivery.pk, response)


def _record(delivery_id: Any, response: Response) -> WebhookDelivery:
    now = timezone.now()
    with transaction.atomic():
        delivery = WebhookDelivery.objects.select_for_update().select_related("endpoint").get(pk=delivery_id)
        WebhookAttempt.objects.create(
            delivery=delivery,
            number=delivery.attempts,
            status_code=response.status_code,
            error=response.error,
            duration_ms=response.duration_ms,
            succeeded=response.ok,
        )
        delivery.claimed_until = None
        delivery.last_status_code = response.status_code
        delivery.last_error = response.error
        fields = [
            "claimed_until",
            "last_status_code",
            "last_error",
            "status",
            "next_attempt_at",
            "delivered_at",
        ]
        endpoint = WebhookEndpoint.objects.select_for_update().get(pk=delivery.endpoint_id)
        if response.ok:
            if endpoint.consecutive_failures:
                endpoint.consecutive_failures = 0
                endpoint.save(update_fields=["consecutive_failures", "updated_at"])
            if delivery.status == DeliveryStatus.PENDING:
                delivery.status, delivery.delivered_at, delivery.next_attempt_at = (
                    DeliveryStatus.SUCCEEDED,
                    now,
                    None,
                )
        else:
            _failed(endpoint, response)
            if delivery.status == DeliveryStatus.PENDING:
                limit = int(tuned("WEBHOOK_MAX_ATTEMPTS", WEBHOOK_MAX_ATTEMPTS))
                if delivery.attempts >= limit or not endpoint.enabled:
                    delivery.status, delivery.next_attempt_at = DeliveryStatus.FAILED, None
                else:
                    delivery.next_attempt_at = now + backoff(delivery.attempts)
        delivery.save(update_fields=fields)
    return delivery


def _failed(endpoint: WebhookEndpoint, response: Response) -> None:
    """Count a failed attempt against the endpoint (locked by the caller); disable it at the limit."""
    if not response.counts:
        return
    endpoint.consecutive_failures += 1
    endpoint.save(update_fields=["consecutive_failures", "updated_at"])
    limit = int(tuned("WEBHOOK_DISABLE_AFTER_FAILURES", WEBHOOK_DISABLE_AFTER_FAILURES))
    if endpoint.enabled and limit > 0 and endpoint.consecutive_failures >= limit:
        last = response.error or response.status_code
        endpoint_disable(
            endpoint, reason=f"{endpoint.consecutive_failures} failed attempts in a row (last: {last})"
        )


def endpoint_disable(endpoint: WebhookEndpoint, *, reason: str) -> None:
    """Stop sending to a failing endpoint, and say so (REST, other endpoints, log, ADMINS)."""
    now = timezone.now()
    endpoint.enabled, endpoint.disabled_at, endpoint.disabled_reason = False, now, reason[:300]
    endpoint.save(update_fields=["enabled", "disabled_at", "disabled_reason", "updated_at"])
    WebhookDelivery.objects.filter(endpoint=endpoint, status=DeliveryStatus.PENDING).exclude(
        event__type=WebhookEventType.PING
    ).update(status=DeliveryStatus.FAILED, next_attempt_at=None, last_error="The endpoint was disabled.")
    others = list(
        WebhookEndpoint.objects.filter(
            audience=endpoint.audience, enabled=True, events__contains=[WebhookEventType.ENDPOINT_DISABLED]
        ).exclude(pk=endpoint.pk)
    )
    if others:
        event_deliver(
            type=WebhookEventType.ENDPOINT_DISABLED,
            audience=endpoint.audience,
            data={
                "endpoint": {"id": str(endpoint.pk), "url": endpoint.url},
                "reason": endpoint.disabled_reason,
            },
            endpoints=others,
        )
    message = f"Webhook endpoint {endpoint.pk} ({endpoint.url}, {endpoint.audience}) disabled: {reason}"
    logger.warning(message)
    transaction.on_commit(
        lambda: mail_admins("Webhook endpoint disabled", message, fail_silently=True), robust=True
    )


def webhook_retries_run(*, now: datetime | None = None) -> int:
    """Queue a task for every delivery that is due with none waiting; returns how many."""
    now = now or timezone.now()
    lost = now - timedelta(seconds=int(settings.Q_CLUSTER["retry"]))
    due = (
        WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
        .filter(Q(queued_at__isnull=True) | Q(queued_at__lt=lost))
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:RETRIES_PER_SWEEP]
    )
    ids = list(due)
    WebhookDelivery.objects.filter(pk__in=ids).update(queued_at=now)
    for pk in ids:
        enqueue(DELIVER_TASK, str(pk), group="webhooks")
    return len(ids)

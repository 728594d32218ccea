"""Webhook rows: endpoints, the events they are sent (an outbox written in the transaction that
made the change), one delivery per (event, endpoint), and every attempt of a delivery."""

from __future__ import annotations

import uuid
from datetime import datetime

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from memory_core.choices import DeliveryStatus, WebhookEventType
from memory_core.sealed import SealedTextField


class WebhookEndpoint(models.Model):
    """A URL that receives the events of one audience: a tenant's namespaces ("tenant:<id>") or,
    for operators, every namespace ("operators")."""

    id = models.UUIDField(verbose_name=_("ID"), primary_key=True, default=uuid.uuid4, editable=False)
    audience = models.CharField(verbose_name=_("audience"), max_length=40, db_index=True)
    url = models.URLField(verbose_name=_("URL"), max_length=2000)
    description = models.CharField(verbose_name=_("description"), max_length=200, blank=True, default="")
    events = ArrayField(models.CharField(max_length=40), verbose_name=_("events"))
    # The signing key, shown once (at creation and rotation). It must be kept readable to sign,
    # so it is never written to logs, payloads or API answers after that, and is stored
    # encrypted (`memory_core.sealed`): the column holds a token, the model the clear text.
    secret = SealedTextField(verbose_name=_("secret"))
    # After a rotation with a grace period, deliveries carry a second signature made with the old
    # secret until `previous_secret_until`, so receivers can switch without dropping events.
    previous_secret = SealedTextField(verbose_name=_("previous secret"), blank=True, default="")
    previous_secret_until = models.DateTimeField(
        verbose_name=_("previous secret valid until"), null=True, blank=True
    )
    enabled = models.BooleanField(verbose_name=_("enabled"), default=True)
    consecutive_failures = models.PositiveIntegerField(verbose_name=_("consecutive failures"), default=0)
    disabled_at = models.DateTimeField(verbose_name=_("disabled at"), null=True, blank=True)
    disabled_reason = models.CharField(verbose_name=_("why disabled"), max_length=300, blank=True, default="")
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)
    updated_at = models.DateTimeField(verbose_name=_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("webhook endpoint")
        verbose_name_plural = _("webhook endpoints")
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(events__contained_by=WebhookEventType.subscribable()) & Q(events__len__gt=0),
                name="webhook_events_valid",
            ),
            models.CheckConstraint(
                condition=Q(url__startswith="https://") | Q(url__startswith="http://"),
                name="webhook_url_http",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.url} ({self.audience})"

    def signing_secrets(self, now: datetime) -> list[str]:
        """The secrets a delivery is signed with now: the current one, and the previous one while
        its grace period lasts."""
        keep_old = self.previous_secret and self.previous_secret_until and now < self.previous_secret_until
        return [self.secret, self.previous_secret] if keep_old else [self.secret]


class WebhookEvent(models.Model):
    """One event for one audience, with the exact payload its deliveries send. `entry_refs` are the
    memories whose text the payload holds: erasing one of them empties the payload."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    type = models.CharField(max_length=40, choices=WebhookEventType.choices)
    audience = models.CharField(max_length=40)
    # Not a foreign key: an erased entity's namespace goes, its erasure event must still be sent.
    namespace_ref = models.BigIntegerField(null=True, blank=True, db_index=True)
    entry_refs = ArrayField(models.UUIDField(), default=list, blank=True)
    has_content = models.BooleanField(default=False)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(type__in=WebhookEventType.values), name="webhook_event_type_valid"
            ),
        ]
        indexes = [
            models.Index(
                fields=["namespace_ref"], condition=Q(has_content=True), name="webhook_event_content"
            )
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.pk}"


class WebhookDelivery(models.Model):
    """Sending one event to one endpoint: retried with backoff until it succeeds or gives up."""

    id = models.UUIDField(verbose_name=_("ID"), primary_key=True, default=uuid.uuid4, editable=False)
    event = models.ForeignKey(
        WebhookEvent, verbose_name=_("event"), on_delete=models.CASCADE, related_name="deliveries"
    )
    endpoint = models.ForeignKey(
        WebhookEndpoint, verbose_name=_("endpoint"), on_delete=models.CASCADE, related_name="deliveries"
    )
    status = models.CharField(
        verbose_name=_("status"),
        max_length=10,
        choices=DeliveryStatus.choices,
        default=DeliveryStatus.PENDING,
    )
    attempts = models.PositiveSmallIntegerField(verbose_name=_("attempts"), default=0)
    next_attempt_at = models.DateTimeField(verbose_name=_("next attempt at"), null=True, blank=True)
    # When a task for the next attempt was queued: the retry sweep re-queues only deliveries that
    # are due and have no task waiting (none queued, or one lost long ago).
    queued_at = models.DateTimeField(verbose_name=_("queued at"), null=True, blank=True)
    # A worker's lease while it sends: another worker (a retried task) leaves the delivery alone.
    claimed_until = models.DateTimeField(verbose_name=_("claimed until"), null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(
        verbose_name=_("last status code"), null=True, blank=True
    )
    last_error = models.CharField(verbose_name=_("last error"), max_length=300, blank=True, default="")
    replay_of = models.ForeignKey(
        "self",
        verbose_name=_("replay of"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="replays",
    )
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)
    delivered_at = models.DateTimeField(verbose_name=_("delivered at"), null=True, blank=True)

    class Meta:
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=DeliveryStatus.values), name="webhook_delivery_status_valid"
            ),
            models.CheckConstraint(
                condition=~Q(status="pending") | Q(next_attempt_at__isnull=False),
                name="webhook_pending_has_next_attempt",
            ),
        ]
        indexes = [
            models.Index(
                fields=["next_attempt_at"], condition=Q(status="pending"), name="webhook_delivery_due"
            ),
            models.Index(fields=["endpoint", "-created_at"], name="webhook_delivery_endpoint"),
        ]

    def __str__(self) -> str:
        return f"delivery {self.pk} ({self.status})"


class WebhookAttempt(models.Model):
    """One HTTP request of a delivery: what came back (status code or error) and how long it took.
    The response body is not kept: a receiver may echo the payload back."""

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveSmallIntegerField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True, default="")
    duration_ms = models.PositiveIntegerField(default=0)
    succeeded = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["number"]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.delivery_id}"

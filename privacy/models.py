"""The audit trail of staff access to users' personal memories (shown to the user too)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from memory_core.models import Namespace


class AuditAction(models.TextChoices):
    ADMIN_VIEW = "admin_view", "Opened a memory in the admin"
    ADMIN_HISTORY = "admin_history", "Opened a memory's history in the admin"
    ADMIN_LIST = "admin_list", "Listed memories in the admin"


class AuditEvent(models.Model):
    """Who looked at which personal memory, when. Ids and paths only: never content or queries."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=20, choices=AuditAction.choices)
    namespace = models.ForeignKey(
        Namespace, null=True, blank=True, on_delete=models.CASCADE, related_name="audit_events"
    )
    entry_ref = models.UUIDField(null=True, blank=True, db_index=True)
    path = models.CharField(max_length=300, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(action__in=AuditAction.values), name="audit_action_valid")
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.entry_ref or ''} by {self.actor_id}"

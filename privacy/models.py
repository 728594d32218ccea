"""The audit trail of staff access to users' personal memories (shown to the user too)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from memory_core.models import Namespace


class AuditAction(models.TextChoices):
    ADMIN_VIEW = "admin_view", gettext_noop("Opened a memory in the admin")
    ADMIN_HISTORY = "admin_history", gettext_noop("Opened a memory's history in the admin")
    ADMIN_LIST = "admin_list", gettext_noop("Listed memories in the admin")


class AuditEvent(models.Model):
    """Who looked at which personal memory, when. Ids and paths only: never content or queries."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("actor"),
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    action = models.CharField(verbose_name=_("action"), max_length=20, choices=AuditAction.choices)
    namespace = models.ForeignKey(
        Namespace,
        verbose_name=_("namespace"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="audit_events",
    )
    entry_ref = models.UUIDField(verbose_name=_("entry ID"), null=True, blank=True, db_index=True)
    path = models.CharField(verbose_name=_("path"), max_length=300, blank=True, default="")
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(action__in=AuditAction.values), name="audit_action_valid")
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.entry_ref or ''} by {self.actor_id}"


class PendingErasure(models.Model):
    """Memories the user erased from the list, kept hidden for a short Undo window, then erased for
    good (`privacy.bulk.pending_erasures_run`, on the user's next visit or by the schedule)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    entry_ids = ArrayField(models.UUIDField())
    # Those that were in use and were hidden for the window: Undo puts only these back in use.
    hidden_ids = ArrayField(models.UUIDField(), default=list, blank=True)
    due_at = models.DateTimeField(db_index=True)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{len(self.entry_ids)} memories of {self.user_id} due {self.due_at:%H:%M:%S}"

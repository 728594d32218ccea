"""What the engine logs around the memories: the days a namespace was in use (the user's clock),
which entry each recall used, and the write attempts operators should see."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.utils import timezone

from memory_core.choices import FlagKind, SourceKind
from memory_core.models.memories import MemoryEntry, Namespace, choices_check


class ActiveDay(models.Model):
    """A day on which someone used a namespace (recalled or wrote): one tick of the user's clock.

    Filled by the forgetting job from the recall log and the history (`forgetting.clock`); holds
    no content, only that the namespace was in use that day (UTC).
    """

    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="active_days")
    day = models.DateField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["namespace", "day"], name="active_day_unique")]

    def __str__(self) -> str:
        return f"{self.namespace_id} {self.day}"


class RecallLog(models.Model):
    """Which entry was recalled for which turn or API call; shown to the user, erased with the entry."""

    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="recall_logs")
    entry = models.ForeignKey(MemoryEntry, on_delete=models.CASCADE, related_name="recall_logs")
    # "chat:<message id>", "api:<request id>" …: an opaque reference, never the query text.
    turn_ref = models.CharField(max_length=100, db_index=True)
    rank = models.PositiveSmallIntegerField()
    score = models.FloatField()
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "rank"]

    def __str__(self) -> str:
        return f"{self.turn_ref} → {self.entry_id}"


class FlaggedWrite(models.Model):
    """A write attempt operators should see: a policy-weakening rule, or a secret that was dropped."""

    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="flags")
    kind = models.CharField(max_length=20, choices=FlagKind.choices)
    # Secrets are redacted before they get here; policy attempts keep their wording for review.
    excerpt = models.TextField()
    entry = models.ForeignKey(
        MemoryEntry, null=True, blank=True, on_delete=models.SET_NULL, related_name="flags"
    )
    source_kind = models.CharField(max_length=20, choices=SourceKind.choices)
    source_conversation = models.CharField(max_length=64, blank=True, default="")
    source_message_ids = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    dismissed_at = models.DateTimeField(null=True, blank=True)
    dismissed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        constraints = [choices_check("kind", FlagKind, "flag_kind_valid")]

    def __str__(self) -> str:
        return f"{self.kind} in {self.namespace_id}"

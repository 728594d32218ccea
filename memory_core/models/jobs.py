"""The jobs that write memories from elsewhere: extraction of a conversation range, imports."""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from memory_core.choices import ActorKind, ExtractionStatus, ImportFormat, ImportStatus
from memory_core.models.memories import Namespace, choices_check


class ExtractionJob(models.Model):
    """A conversation range to extract memories from; its payload is erased with the user's data."""

    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="extraction_jobs")
    # One job per conversation range: re-submitting the same range returns the same job.
    idempotency_key = models.CharField(max_length=200, unique=True)
    source_conversation = models.CharField(max_length=64, blank=True, default="")
    # [{"id": "...", "role": "user"|"assistant", "content": "...", "created_at": iso}] in order.
    messages = models.JSONField(default=list)
    trigger = models.CharField(max_length=20, default="manual")
    status = models.CharField(
        max_length=10, choices=ExtractionStatus.choices, default=ExtractionStatus.QUEUED
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    # Who runs it while `running` (`memory_core.leases`), and until when that claim holds at most.
    claim = models.CharField(max_length=200, blank=True, default="")
    claimed_until = models.DateTimeField(null=True, blank=True)
    queued_at = models.DateTimeField(default=timezone.now)  # its latest task sent (`leases.lost_jobs`)
    # Counts per outcome ("added", "merged", "superseded", …) and the ids of the entries touched.
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True, default="")
    extractor = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [choices_check("status", ExtractionStatus, "extraction_status_valid")]

    def __str__(self) -> str:
        return f"extraction {self.pk} ({self.status})"


class ImportJob(models.Model):
    """Memories brought from elsewhere (`memory_core.imports`), written through the pipeline in
    chunks. The pending statements (redacted) are dropped when it is done and erased with the
    user's data; the results name lines, outcomes and entry ids, never the text."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="import_jobs")
    format = models.CharField(max_length=20, choices=ImportFormat.choices)
    status = models.CharField(max_length=10, choices=ImportStatus.choices, default=ImportStatus.QUEUED)
    actor_kind = models.CharField(max_length=20, choices=ActorKind.choices, default=ActorKind.USER)
    # A transcript waiting for extraction: its messages (redacted); emptied once extracted.
    messages = models.JSONField(default=list, blank=True)
    # The statements still to write (`imports.ImportItem` as JSON, redacted); emptied when done.
    items = models.JSONField(default=list, blank=True)
    # A large input until its job has read it (`imports.intake`): sealed, not yet checked for secrets.
    pending = models.TextField(blank=True, default="")
    unread = models.PositiveIntegerField(default=0)  # its statements (or messages) not yet read
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    counts = models.JSONField(default=dict, blank=True)  # outcome → how many
    # [{"line", "action", "reason", "entry", "replaces", "valid_from"}] in import order.
    results = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True, default="")
    # Runs that failed or died (a run that hands over to its continuation does not count).
    attempts = models.PositiveSmallIntegerField(default=0)
    # Who runs it while `running` (`memory_core.leases`), and until when that claim holds at most.
    claim = models.CharField(max_length=200, blank=True, default="")
    claimed_until = models.DateTimeField(null=True, blank=True)
    queued_at = models.DateTimeField(default=timezone.now)  # its latest task sent (`leases.lost_jobs`)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["namespace", "-created_at"], name="import_job_recent")]
        constraints = [
            choices_check("status", ImportStatus, "import_status_valid"),
            choices_check("format", ImportFormat, "import_format_valid"),
            models.CheckConstraint(condition=Q(done__lte=F("total")), name="import_done_lte_total"),
        ]

    def __str__(self) -> str:
        return f"import {self.pk} ({self.format}, {self.status})"

"""What an erasure leaves: tombstones (what the user took back, without its content) and the
content-free receipts."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from memory_core.choices import ErasureScope, ErasureVia, TombstoneReason
from memory_core.models.memories import Namespace, choices_check


class Tombstone(models.Model):
    """A statement the user took back (or an operator rejected), kept without its content so that
    no later extraction learns it again: a keyed hash of the normalised statement (and of its key
    slot), and the ids of the messages it came from. See `memory_core.tombstones`."""

    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="tombstones")
    reason = models.CharField(max_length=12, choices=TombstoneReason.choices)
    digest = models.CharField(max_length=64)
    key_digest = models.CharField(max_length=64, blank=True, default="")
    # "<conversation>:<message id>" of every message the statement rested on.
    message_refs = ArrayField(models.CharField(max_length=130), default=list, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["namespace", "digest"], name="tombstone_ns_digest")]
        constraints = [choices_check("reason", TombstoneReason, "tombstone_reason_valid")]

    def __str__(self) -> str:
        return f"{self.reason} tombstone in {self.namespace_id}"


class ErasureReceipt(models.Model):
    """Content-free proof of an erasure: whose, by whom, when, how many rows of each kind, and when
    the disk pass made the bytes unreadable. Never what was erased (`memory_core.erasure`)."""

    # Whose data; the account may be deleted afterwards (an API entity), `subject_ref` stays.
    subject = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("subject"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="erasure_receipts",
    )
    subject_ref = models.BigIntegerField(
        verbose_name=_("subject ID"), help_text=_("The subject's account id, kept after it is deleted.")
    )
    scope = models.CharField(verbose_name=_("scope"), max_length=12, choices=ErasureScope.choices)
    via = models.CharField(verbose_name=_("via"), max_length=8, choices=ErasureVia.choices)
    # Who asked: the user themself or an operator; an API key is named by its prefix instead.
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("requested by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    api_key_prefix = models.CharField(verbose_name=_("API key prefix"), max_length=20, blank=True, default="")
    entries = models.PositiveIntegerField(verbose_name=_("entries"), default=0)
    evidence = models.PositiveIntegerField(
        verbose_name=_("evidence"), default=0, help_text=_("Evidence rows deleted or blanked.")
    )
    history = models.PositiveIntegerField(
        verbose_name=_("history"), default=0, help_text=_("History rows emptied to tombstones.")
    )
    recalls = models.PositiveIntegerField(
        verbose_name=_("recalls"), default=0, help_text=_("Recall-log rows deleted.")
    )
    flags = models.PositiveIntegerField(
        verbose_name=_("flags"), default=0, help_text=_("Flagged writes deleted.")
    )
    jobs = models.PositiveIntegerField(
        verbose_name=_("jobs"), default=0, help_text=_("Extraction payloads deleted or scrubbed.")
    )
    conversations = models.PositiveIntegerField(verbose_name=_("conversations"), default=0)
    messages = models.PositiveIntegerField(verbose_name=_("messages"), default=0)
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now, db_index=True)
    # The disk pass (`memory_core.compaction`): dead rows vacuumed and statistics re-analysed …
    vacuumed_at = models.DateTimeField(verbose_name=_("vacuumed at"), null=True, blank=True)
    # … and every table file that held the rows rewritten, the WAL that held them removed.
    rewritten_at = models.DateTimeField(verbose_name=_("rewritten at"), null=True, blank=True)

    class Meta:
        verbose_name = _("erasure receipt")
        verbose_name_plural = _("erasure receipts")
        ordering = ["-created_at", "-id"]
        constraints = [
            choices_check("scope", ErasureScope, "erasure_scope_valid"),
            choices_check("via", ErasureVia, "erasure_via_valid"),
            models.CheckConstraint(
                condition=Q(vacuumed_at__isnull=True) | Q(vacuumed_at__gte=F("created_at")),
                name="erasure_vacuumed_after",
            ),
            models.CheckConstraint(
                condition=Q(rewritten_at__isnull=True) | Q(rewritten_at__gte=F("created_at")),
                name="erasure_rewritten_after",
            ),
        ]
        # The disk pass looks for receipts whose bytes may still be on disk.
        indexes = [
            models.Index(
                fields=["created_at"], condition=Q(rewritten_at__isnull=True), name="erasure_disk_pending"
            )
        ]

    def __str__(self) -> str:
        return f"erasure {self.pk} ({self.scope}, {self.entries} entries)"

"""The vocabularies of the memory model, in a leaf module: models, querysets and services all
import them from here (stored values are the strings; the enums give them names)."""

from __future__ import annotations

import enum

from django.db import models
from django.utils.translation import gettext_noop


class NamespaceKind(models.TextChoices):
    USER = "user", gettext_noop("User")
    ORG = "org", gettext_noop("Organisation")
    AGENT = "agent", gettext_noop("Agent")


class MemoryType(models.TextChoices):
    SEMANTIC = "semantic", gettext_noop("Fact")
    EPISODIC = "episodic", gettext_noop("Event")
    PROCEDURAL = "procedural", gettext_noop("Procedure")


class MemoryStatus(models.TextChoices):
    ACTIVE = "active", gettext_noop("Active")
    SUPERSEDED = "superseded", gettext_noop("Superseded")
    PENDING_REVIEW = "pending_review", gettext_noop("Pending review")
    REJECTED = "rejected", gettext_noop("Rejected")
    ARCHIVED = "archived", gettext_noop("Archived")
    EXPIRED = "expired", gettext_noop("Expired")
    HIDDEN = "hidden", gettext_noop("Hidden by user")

    @classmethod
    def correctable(cls) -> frozenset[str]:
        """Statuses a user may correct: what is in use, hidden, or waiting for review."""
        return frozenset({cls.ACTIVE, cls.HIDDEN, cls.PENDING_REVIEW})


# Categories recalled with every answer whatever was asked, as pinned entries are (recall's
# "always" part; an entry is always recalled when `pinned` or of one of these).
ALWAYS_RECALL_CATEGORIES = ("profile", "safety")


class SourceKind(models.TextChoices):
    USER_EXPLICIT = "user_explicit", gettext_noop("Said explicitly by the user")
    EXTRACTED = "extracted", gettext_noop("Extracted from a conversation")
    USER_CORRECTION = "user_correction", gettext_noop("Corrected by the user")
    OPERATOR = "operator", gettext_noop("Written by an operator")
    API_IMPORT = "api_import", gettext_noop("Imported through the API")


class EventAction(models.TextChoices):
    CREATED = "created", gettext_noop("Created")
    MERGED = "merged", gettext_noop("Merged")
    SUPERSEDED = "superseded", gettext_noop("Superseded")
    CORRECTED = "corrected", gettext_noop("Corrected")
    APPROVED = "approved", gettext_noop("Approved")
    REJECTED = "rejected", gettext_noop("Rejected")
    ARCHIVED = "archived", gettext_noop("Archived")
    EXPIRED = "expired", gettext_noop("Expired")
    HIDDEN = "hidden", gettext_noop("Hidden")
    RESTORED = "restored", gettext_noop("Restored")
    REEMBEDDED = "reembedded", gettext_noop("Re-embedded")
    ERASED = "erased", gettext_noop("Erased")
    FLAGGED = "flagged", gettext_noop("Flagged")
    FEEDBACK = "feedback", gettext_noop("Feedback")
    # The user said whether it is recalled with every answer (`lifecycle.memory_always_recall`).
    PINNED = "pinned", gettext_noop("Always recalled")
    UNPINNED = "unpinned", gettext_noop("No longer always recalled")


class ActorKind(models.TextChoices):
    USER = "user", gettext_noop("User")
    EXTRACTION = "extraction", gettext_noop("Assistant extraction")
    OPERATOR = "operator", gettext_noop("Operator")
    JOB = "job", gettext_noop("Scheduled job")
    API = "api", gettext_noop("API client")
    SYSTEM = "system", gettext_noop("System")


class FlagKind(models.TextChoices):
    POLICY_WEAKENING = "policy_weakening", gettext_noop("Attempt to weaken a policy")
    SECRET_DROPPED = "secret_dropped", gettext_noop("Secret not stored")


class ExtractionStatus(models.TextChoices):
    QUEUED = "queued", gettext_noop("Queued")
    RUNNING = "running", gettext_noop("Running")
    DONE = "done", gettext_noop("Done")
    FAILED = "failed", gettext_noop("Failed")


class ImportFormat(models.TextChoices):
    MEM0 = "mem0", gettext_noop("A mem0 export (JSON)")
    TEXT = "text", gettext_noop("A saved-memories list (ChatGPT, Claude), one per line")
    TRANSCRIPT = "transcript", gettext_noop("A transcript with timestamps (JSON messages)")


class ImportStatus(models.TextChoices):
    QUEUED = "queued", gettext_noop("Queued")
    RUNNING = "running", gettext_noop("Running")
    DONE = "done", gettext_noop("Done")
    FAILED = "failed", gettext_noop("Failed")


class TombstoneReason(models.TextChoices):
    CORRECTED = "corrected", gettext_noop("Corrected away by the user")
    ERASED = "erased", gettext_noop("Erased by the user")
    HIDDEN = "hidden", gettext_noop("Hidden by the user")
    REJECTED = "rejected", gettext_noop("Rejected by an operator")


class ErasureScope(models.TextChoices):
    ONE = "one", gettext_noop("A memory and its older versions")
    ALL = "all", gettext_noop("Every memory")
    CONVERSATION = "conversation", gettext_noop("A conversation")
    ENTITY = "entity", gettext_noop("A user or agent, entirely")


class ErasureVia(models.TextChoices):
    APP = "app", gettext_noop("The user, in the app")
    API = "api", gettext_noop("The REST API")
    MEM0 = "mem0", gettext_noop("The mem0-compatible API")
    MCP = "mcp", gettext_noop("An assistant, through the MCP server")
    ADMIN = "admin", gettext_noop("An operator, in the admin")
    COMMAND = "command", gettext_noop("A management command")


class AddAction(enum.StrEnum):
    """What the write pipeline did with a statement (`outcomes.AddOutcome.action`)."""

    ADDED = "added"
    MERGED = "merged"
    SUPERSEDED = "superseded"
    IGNORED = "ignored"
    PENDING_REVIEW = "pending_review"
    REJECTED = "rejected"

    @classmethod
    def changing(cls) -> frozenset[AddAction]:
        """Outcomes that changed what the memory holds (an extraction's "memory updated")."""
        return frozenset({cls.ADDED, cls.MERGED, cls.SUPERSEDED})


class WebhookEventType(models.TextChoices):
    MEMORY_ADDED = "memory.added", gettext_noop("A memory was added")
    MEMORY_MERGED = "memory.merged", gettext_noop("The same statement was observed again")
    MEMORY_SUPERSEDED = "memory.superseded", gettext_noop("A newer value replaced a memory")
    MEMORY_CORRECTED = "memory.corrected", gettext_noop("The user corrected a memory")
    MEMORY_ERASED = "memory.erased", gettext_noop("Memories were erased (ids and counts only)")
    MEMORY_PENDING_REVIEW = "memory.pending_review", gettext_noop("A procedure awaits an operator's review")
    MEMORY_APPROVED = "memory.approved", gettext_noop("An operator approved a procedure")
    MEMORY_REJECTED = "memory.rejected", gettext_noop("An operator rejected a procedure")
    EXTRACTION_FINISHED = "extraction.finished", gettext_noop("An extraction job finished")
    EXTRACTION_FAILED = "extraction.failed", gettext_noop("An extraction job failed")
    ENDPOINT_DISABLED = "webhook.disabled", gettext_noop("An endpoint was disabled after repeated failures")
    PING = "webhook.ping", gettext_noop("A test ping (sent on request only)")

    @classmethod
    def subscribable(cls) -> list[str]:
        """What an endpoint may subscribe to: everything but the ping, which goes where it is asked."""
        return [value for value in cls.values if value != cls.PING]

    @classmethod
    def content_free(cls) -> frozenset[str]:
        """Types whose payload never holds a statement (nothing to empty on erasure)."""
        return frozenset(
            {
                cls.MEMORY_ERASED,
                cls.EXTRACTION_FINISHED,
                cls.EXTRACTION_FAILED,
                cls.ENDPOINT_DISABLED,
                cls.PING,
            }
        )


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", gettext_noop("Pending")
    SUCCEEDED = "succeeded", gettext_noop("Succeeded")
    FAILED = "failed", gettext_noop("Failed")
    CANCELLED = "cancelled", gettext_noop("Cancelled")

"""The vocabularies of the memory model, in a leaf module: models, querysets and services all
import them from here (stored values are the strings; the enums give them names)."""

from __future__ import annotations

import enum

from django.db import models


class NamespaceKind(models.TextChoices):
    USER = "user", "User"
    ORG = "org", "Organisation"
    AGENT = "agent", "Agent"


class MemoryType(models.TextChoices):
    SEMANTIC = "semantic", "Fact"
    EPISODIC = "episodic", "Event"
    PROCEDURAL = "procedural", "Procedure"


class MemoryStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    SUPERSEDED = "superseded", "Superseded"
    PENDING_REVIEW = "pending_review", "Pending review"
    REJECTED = "rejected", "Rejected"
    ARCHIVED = "archived", "Archived"
    EXPIRED = "expired", "Expired"
    HIDDEN = "hidden", "Hidden by user"

    @classmethod
    def correctable(cls) -> frozenset[str]:
        """Statuses a user may correct: what is in use, hidden, or waiting for review."""
        return frozenset({cls.ACTIVE, cls.HIDDEN, cls.PENDING_REVIEW})


class SourceKind(models.TextChoices):
    USER_EXPLICIT = "user_explicit", "Said explicitly by the user"
    EXTRACTED = "extracted", "Extracted from a conversation"
    USER_CORRECTION = "user_correction", "Corrected by the user"
    OPERATOR = "operator", "Written by an operator"
    API_IMPORT = "api_import", "Imported through the API"


class EventAction(models.TextChoices):
    CREATED = "created", "Created"
    MERGED = "merged", "Merged"
    SUPERSEDED = "superseded", "Superseded"
    CORRECTED = "corrected", "Corrected"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"
    ARCHIVED = "archived", "Archived"
    EXPIRED = "expired", "Expired"
    HIDDEN = "hidden", "Hidden"
    RESTORED = "restored", "Restored"
    REEMBEDDED = "reembedded", "Re-embedded"
    ERASED = "erased", "Erased"
    FLAGGED = "flagged", "Flagged"
    FEEDBACK = "feedback", "Feedback"


class ActorKind(models.TextChoices):
    USER = "user", "User"
    EXTRACTION = "extraction", "Assistant extraction"
    OPERATOR = "operator", "Operator"
    JOB = "job", "Scheduled job"
    API = "api", "API client"
    SYSTEM = "system", "System"


class FlagKind(models.TextChoices):
    POLICY_WEAKENING = "policy_weakening", "Attempt to weaken a policy"
    SECRET_DROPPED = "secret_dropped", "Secret not stored"


class ExtractionStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class ImportFormat(models.TextChoices):
    MEM0 = "mem0", "A mem0 export (JSON)"
    TEXT = "text", "A saved-memories list (ChatGPT, Claude), one per line"
    TRANSCRIPT = "transcript", "A transcript with timestamps (JSON messages)"


class ImportStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class TombstoneReason(models.TextChoices):
    CORRECTED = "corrected", "Corrected away by the user"
    ERASED = "erased", "Erased by the user"
    HIDDEN = "hidden", "Hidden by the user"
    REJECTED = "rejected", "Rejected by an operator"


class ErasureScope(models.TextChoices):
    ONE = "one", "A memory and its older versions"
    ALL = "all", "Every memory"
    CONVERSATION = "conversation", "A conversation"
    ENTITY = "entity", "A user or agent, entirely"


class ErasureVia(models.TextChoices):
    APP = "app", "The user, in the app"
    API = "api", "The REST API"
    MEM0 = "mem0", "The mem0-compatible API"
    MCP = "mcp", "An assistant, through the MCP server"
    ADMIN = "admin", "An operator, in the admin"
    COMMAND = "command", "A management command"


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
    MEMORY_ADDED = "memory.added", "A memory was added"
    MEMORY_MERGED = "memory.merged", "The same statement was observed again"
    MEMORY_SUPERSEDED = "memory.superseded", "A newer value replaced a memory"
    MEMORY_CORRECTED = "memory.corrected", "The user corrected a memory"
    MEMORY_ERASED = "memory.erased", "Memories were erased (ids and counts only)"
    MEMORY_PENDING_REVIEW = "memory.pending_review", "A procedure awaits an operator's review"
    MEMORY_APPROVED = "memory.approved", "An operator approved a procedure"
    MEMORY_REJECTED = "memory.rejected", "An operator rejected a procedure"
    EXTRACTION_FINISHED = "extraction.finished", "An extraction job finished"
    EXTRACTION_FAILED = "extraction.failed", "An extraction job failed"
    ENDPOINT_DISABLED = "webhook.disabled", "An endpoint was disabled after repeated failures"
    PING = "webhook.ping", "A test ping (sent on request only)"

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
    PENDING = "pending", "Pending"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"

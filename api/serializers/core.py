"""Small input and output serializers, one pair per operation.

Input fields are strict about JSON types (DRF would quietly turn `12` or `true` into text) and
refuse what PostgreSQL cannot store (NUL characters, lone surrogates, non-finite numbers), so bad
input is a 400, never a 500 halfway through a write.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import datetime, tzinfo
from typing import Any

from django.core.validators import RegexValidator
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.services import AGENT_ID_PATTERN, EXTERNAL_ID_MAX_CHARS
from memory_core.extraction import MAX_MESSAGES, OUTCOME_ACTIONS
from memory_core.models import CONTENT_MAX_CHARS, ErasureScope, ErasureVia, MemoryStatus, MemoryType
from memory_core.recall import MAX_LIMIT as RECALL_MAX_LIMIT

MAX_BATCH = 1000
METADATA_MAX_BYTES = 16 * 1024
TRANSCRIPT_MESSAGE_MAX_CHARS = 20_000
CATEGORY = RegexValidator(r"^[a-z0-9_.-]{1,40}$", "Lower-case letters, digits, '_', '.' or '-'.")
USER_ID = RegexValidator(r"^[^\x00-\x20\x7f]+$", "No spaces or control characters.")
AGENT_ID = RegexValidator(AGENT_ID_PATTERN, "Letters, digits, '_', '.', '@', '+' or '-'.")


def _storable(text: str) -> bool:
    try:
        text.encode("utf-8")  # fails on lone surrogates, which JSON allows and PostgreSQL does not
    except UnicodeEncodeError:
        return False
    return "\x00" not in text


class StrictCharField(serializers.CharField):
    default_error_messages = {
        "invalid": "Must be a string.",
        "unstorable": "Contains characters that cannot be stored.",
    }

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        if not _storable(data):
            self.fail("unstorable")
        return super().to_internal_value(data)


class StrictFloatField(serializers.FloatField):
    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        value = super().to_internal_value(data)
        if not math.isfinite(value):
            self.fail("invalid")
        return value


class StrictIntegerField(serializers.IntegerField):
    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


def _check_json(value: Any, depth: int = 0) -> None:
    if depth > 10:
        raise serializers.ValidationError("Nested too deeply (at most 10 levels).")
    if isinstance(value, str):
        if not _storable(value):
            raise serializers.ValidationError("Contains characters that cannot be stored.")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise serializers.ValidationError("Numbers must be finite.")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_json(key, depth + 1)
            _check_json(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_json(item, depth + 1)


@extend_schema_field(OpenApiTypes.OBJECT)
class MetadataField(serializers.Field):
    """Free-form JSON object, echoed back as given (at most 16 KB)."""

    default_error_messages = {"invalid": "Must be a JSON object.", "too_large": "At most 16 KB of JSON."}

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, dict):
            self.fail("invalid")
        _check_json(data)
        if len(json.dumps(data, ensure_ascii=False).encode()) > METADATA_MAX_BYTES:
            self.fail("too_large")
        return data

    def to_representation(self, value: Any) -> Any:
        return value


class CsvChoicesField(serializers.CharField):
    """`a,b` in a query string, each value one of `choices`."""

    def __init__(self, *, choices: list[str], **kwargs: Any) -> None:
        self.allowed = choices
        kwargs.setdefault("help_text", f"Comma-separated, among: {', '.join(choices)}.")
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> list[str]:  # type: ignore[override]
        values = [v.strip() for v in str(super().to_internal_value(data)).split(",") if v.strip()]
        unknown = [v for v in values if v not in self.allowed]
        if unknown:
            raise serializers.ValidationError(
                f"Unknown value(s) {', '.join(unknown)}; use {', '.join(self.allowed)}."
            )
        return values


@extend_schema_field({"type": "string", "enum": MemoryType.values})
class MemoryTypeField(serializers.ChoiceField):
    """A memory type, documented inline (one enum component per choice set, not per field name)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=MemoryType.choices, **kwargs)


class PageQuerySerializer(serializers.Serializer):
    limit = serializers.IntegerField(required=False, min_value=1, max_value=200, default=50)
    offset = serializers.IntegerField(required=False, min_value=0, max_value=10_000_000, default=0)


# --- Addressing: whose memories (tenant keys only) ------------------------------------------------


class AddressSerializer(serializers.Serializer):
    user_id = StrictCharField(
        required=False,
        max_length=EXTERNAL_ID_MAX_CHARS,
        trim_whitespace=False,
        validators=[USER_ID],
        help_text="Tenant keys: your end user's id (created on first use). Personal tokens: omit.",
    )
    agent_id = StrictCharField(
        required=False,
        max_length=100,
        validators=[AGENT_ID],
        help_text="Tenant keys: your agent's id, instead of user_id. Personal tokens: omit.",
    )


# --- Memories --------------------------------------------------------------------------------------


class MemoryInSerializer(serializers.Serializer):
    content = StrictCharField(max_length=CONTENT_MAX_CHARS, help_text="One self-contained statement.")
    type = serializers.ChoiceField(choices=MemoryType.choices, default=MemoryType.SEMANTIC)
    category = StrictCharField(max_length=40, default="general", validators=[CATEGORY])
    key = StrictCharField(
        max_length=120, default="", allow_blank=True, help_text="A stable slot, e.g. home_city."
    )
    importance = StrictFloatField(min_value=0, max_value=1, default=0.5)
    confidence = StrictFloatField(min_value=0, max_value=1, default=1.0)
    pinned = StrictBooleanField(default=False, help_text="Always recalled (safety facts).")
    valid_from = serializers.DateTimeField(required=False, allow_null=True)
    valid_to = serializers.DateTimeField(required=False, allow_null=True)
    expires_at = serializers.DateTimeField(required=False, allow_null=True)
    metadata = MetadataField(required=False, default=dict)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        start, end = attrs.get("valid_from"), attrs.get("valid_to")
        if start and end and end < start:
            raise serializers.ValidationError({"valid_to": ["Must not be before valid_from."]})
        return attrs


class MemoryCreateSerializer(AddressSerializer, MemoryInSerializer):
    pass


class MemoryBatchCreateSerializer(AddressSerializer):
    memories = serializers.ListField(child=MemoryInSerializer(), min_length=1, max_length=MAX_BATCH)


class SourceSerializer(serializers.Serializer):
    kind = serializers.CharField(source="source_kind")
    conversation = serializers.CharField(source="source_conversation")
    message_ids = serializers.ListField(child=serializers.CharField(), source="source_message_ids")
    extractor = serializers.CharField(source="extractor_model")
    is_inference = serializers.BooleanField()


class MemoryOutSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    namespace = serializers.CharField(source="namespace.path")
    type = serializers.CharField()
    category = serializers.CharField()
    key = serializers.CharField()
    content = serializers.CharField()
    status = serializers.CharField()
    importance = serializers.FloatField()
    confidence = serializers.FloatField()
    pinned = serializers.BooleanField()
    evidence_count = serializers.IntegerField()
    # Stub gap (typeddjango/djangorestframework-stubs#158): DRF pops declared fields off the class,
    # but the stubs still type the name as Field.source.
    source = SourceSerializer(source="*")  # type: ignore[assignment]
    valid_from = serializers.DateTimeField()
    valid_to = serializers.DateTimeField(allow_null=True)
    recorded_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    supersedes = serializers.UUIDField(source="supersedes_id", allow_null=True)
    superseded_by = serializers.UUIDField(source="superseded_by_id", allow_null=True)
    access_count = serializers.IntegerField()
    last_accessed_at = serializers.DateTimeField(allow_null=True)
    metadata = MetadataField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def memories_out(entries: Sequence[Any]) -> list[dict[str, Any]]:
    """`MemoryOutSerializer(entries, many=True).data`, built directly: DRF's fields cost a recall of
    ten items 2.3 ms a response on a busy machine (0.4 ms this way). The serializer stays the
    documented shape; tests/api/test_memory_output.py holds both to the same output, field by field."""
    zone = timezone.get_current_timezone()
    return [_memory_out(entry, zone) for entry in entries]


def _memory_out(entry: Any, zone: tzinfo) -> dict[str, Any]:
    # As DRF's fields: None stays None, text through str(), numbers through float() / int().
    return {
        "id": _text(entry.id),
        "namespace": entry.namespace.path,
        "type": _text(entry.type),
        "category": _text(entry.category),
        "key": _text(entry.key),
        "content": _text(entry.content),
        "status": _text(entry.status),
        "importance": None if entry.importance is None else float(entry.importance),
        "confidence": None if entry.confidence is None else float(entry.confidence),
        "pinned": entry.pinned,
        "evidence_count": None if entry.evidence_count is None else int(entry.evidence_count),
        "source": {
            "kind": _text(entry.source_kind),
            "conversation": _text(entry.source_conversation),
            "message_ids": None
            if entry.source_message_ids is None
            else [str(message) for message in entry.source_message_ids],
            "extractor": _text(entry.extractor_model),
            "is_inference": entry.is_inference,
        },
        "valid_from": _instant(entry.valid_from, zone),
        "valid_to": _instant(entry.valid_to, zone),
        "recorded_at": _instant(entry.recorded_at, zone),
        "expires_at": _instant(entry.expires_at, zone),
        "supersedes": _text(entry.supersedes_id),
        "superseded_by": _text(entry.superseded_by_id),
        "access_count": None if entry.access_count is None else int(entry.access_count),
        "last_accessed_at": _instant(entry.last_accessed_at, zone),
        "metadata": entry.metadata,
        "created_at": _instant(entry.created_at, zone),
        "updated_at": _instant(entry.updated_at, zone),
    }


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _instant(value: datetime | None, zone: tzinfo) -> str | None:
    """DRF's DateTimeField output: ISO 8601 in the current time zone, UTC written as Z."""
    if not value:
        return None
    local = value.astimezone(zone) if timezone.is_aware(value) else timezone.make_aware(value, zone)
    text = local.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


class AddResultSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=OUTCOME_ACTIONS)
    reason = serializers.CharField()
    flagged = serializers.BooleanField(
        help_text="Operators were alerted (a secret, or a policy-weakening rule)."
    )
    entry = MemoryOutSerializer(allow_null=True)
    replaced = serializers.UUIDField(source="replaced.pk", allow_null=True, default=None)
    also = serializers.ListField(
        child=serializers.DictField(),
        help_text="What the same statement also stored, each with its own `action` and `entry`: a rule "
        "built on the user's or a dependant's condition waits for review, and the condition it states "
        "first is kept as an active, pinned safety fact.",
    )


class BatchResultSerializer(serializers.Serializer):
    counts = serializers.DictField(child=serializers.IntegerField())
    results = AddResultSerializer(many=True)


class MemoryListQuerySerializer(AddressSerializer, PageQuerySerializer):
    type = CsvChoicesField(choices=MemoryType.values, required=False)
    status = CsvChoicesField(choices=MemoryStatus.values, required=False)
    category = StrictCharField(required=False, max_length=40)
    q = StrictCharField(
        required=False, max_length=200, help_text="Text search (words or ids such as RF2026…)."
    )
    current = serializers.BooleanField(required=False, default=False, help_text="Only what holds now.")
    recorded_after = serializers.DateTimeField(required=False, help_text="Learned at or after this instant.")
    recorded_before = serializers.DateTimeField(required=False, help_text="Learned before this instant.")
    updated_after = serializers.DateTimeField(
        required=False, help_text="Last changed at or after this instant."
    )
    updated_before = serializers.DateTimeField(required=False, help_text="Last changed before this instant.")
    valid_after = serializers.DateTimeField(
        required=False, help_text="Held at some moment at or after this instant (its window ends later)."
    )
    valid_before = serializers.DateTimeField(
        required=False, help_text="Held at some moment before this instant (its window began earlier)."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        for name in ("recorded", "updated", "valid"):
            after, before = attrs.get(f"{name}_after"), attrs.get(f"{name}_before")
            if after is not None and before is not None and before < after:
                raise serializers.ValidationError({f"{name}_before": [f"Must not be before {name}_after."]})
        return attrs


class MemoryPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = MemoryOutSerializer(many=True)


class MemoryCorrectSerializer(serializers.Serializer):
    content = StrictCharField(max_length=CONTENT_MAX_CHARS, help_text="The right statement, in full.")
    reason = StrictCharField(required=False, default="", allow_blank=True, max_length=500)


class MemoryAlwaysRecallSerializer(serializers.Serializer):
    always = StrictBooleanField(
        help_text="true: recalled with every answer (pinned); false: only when it fits the query "
        "(not pinned, no longer a safety or profile fact, importance at most 0.8)."
    )


class MemoryEventOutSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    memory_id = serializers.UUIDField(source="entry_ref")
    action = serializers.CharField()
    actor_kind = serializers.CharField()
    reason = serializers.CharField()
    # Stub gap (typeddjango/djangorestframework-stubs#78): DRF pops declared fields off the class,
    # but the stubs still type the name as Serializer.data.
    data = MetadataField()  # type: ignore[assignment]
    created_at = serializers.DateTimeField()


ERASE_SOURCES_HELP = (
    "Also delete the conversations the erased memories came from or were used in, with their messages, "
    "and the extraction payloads of their sources (erase-all: every conversation of the user)."
)


class EraseOneQuerySerializer(AddressSerializer):
    erase_sources = serializers.BooleanField(required=False, default=False, help_text=ERASE_SOURCES_HELP)


class EraseAllSerializer(AddressSerializer):
    confirm = StrictBooleanField(help_text="Must be true: every memory of the user is erased for good.")
    erase_sources = StrictBooleanField(required=False, default=False, help_text=ERASE_SOURCES_HELP)

    def validate_confirm(self, value: bool) -> bool:
        if value is not True:
            raise serializers.ValidationError("Set confirm to true to erase every memory.")
        return value


class ErasureCountsSerializer(serializers.Serializer):
    entries = serializers.IntegerField(help_text="Memory entries deleted (with older versions).")
    evidence = serializers.IntegerField(help_text="Evidence rows deleted or blanked.")
    history = serializers.IntegerField(help_text="History rows emptied to content-free tombstones.")
    recalls = serializers.IntegerField(help_text="Recall-log rows deleted.")
    flags = serializers.IntegerField(help_text="Flagged writes deleted.")
    jobs = serializers.IntegerField(help_text="Extraction payloads deleted or scrubbed.")
    conversations = serializers.IntegerField()
    messages = serializers.IntegerField()


class ErasureReceiptSerializer(serializers.Serializer):
    """Documents `memory_core.export.receipt_dict`: counts and times, never content."""

    id = serializers.IntegerField()
    scope = serializers.ChoiceField(choices=ErasureScope.choices)
    via = serializers.ChoiceField(choices=ErasureVia.choices)
    requested_by = serializers.CharField(allow_null=True, help_text="The person who asked, if not a key.")
    api_key = serializers.CharField(allow_null=True, help_text="The prefix of the API key that asked.")
    at = serializers.DateTimeField()
    counts = ErasureCountsSerializer()
    vacuumed_at = serializers.DateTimeField(
        allow_null=True, help_text="Dead rows vacuumed, statistics redone."
    )
    rewritten_at = serializers.DateTimeField(
        allow_null=True, help_text="Table files rewritten and WAL retired: no erased byte left on disk."
    )


class ErasureReceiptPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = ErasureReceiptSerializer(many=True)


class ErasedSerializer(serializers.Serializer):
    erased = serializers.IntegerField(help_text="Memory entries erased.")
    conversations = serializers.IntegerField(help_text="Conversations deleted (with erase_sources).")
    receipt = ErasureReceiptSerializer()


# --- Recall ------------------------------------------------------------------------------------------


class RecallInSerializer(AddressSerializer):
    query = StrictCharField(max_length=4000, allow_blank=True)
    limit = StrictIntegerField(min_value=1, max_value=RECALL_MAX_LIMIT, default=20)
    budget_tokens = StrictIntegerField(
        min_value=1,
        max_value=100_000,
        required=False,
        help_text="Tokens the ranked items may take (their prompt lines); without it, `limit` alone "
        "bounds them. When it leaves items out, `trimmed` says how many.",
    )
    at = serializers.DateTimeField(required=False, allow_null=True, help_text="Recall as of this instant.")
    types = serializers.ListField(child=MemoryTypeField(), required=False)
    reference_date = serializers.DateTimeField(
        required=False,
        allow_null=True,
        input_formats=["iso-8601", "%Y-%m-%d"],
        help_text="When the question is asked: dates in it ('last week') are read from here (default: "
        "`at`, else now).",
    )


class RecallItemSerializer(serializers.Serializer):
    entry = MemoryOutSerializer()
    score = serializers.FloatField()
    breakdown = serializers.DictField(child=serializers.FloatField())
    reasons = serializers.ListField(child=serializers.CharField())
    tokens = serializers.IntegerField()


class RecallOutSerializer(serializers.Serializer):
    items = RecallItemSerializer(many=True, help_text="The memories that answer the query, best first.")
    always = RecallItemSerializer(
        many=True,
        help_text="Always-recall memories (pinned first, then safety and profile) not among `items`: "
        "apart, never taking a ranked slot; first in `prompt_block`.",
    )
    trimmed = serializers.IntegerField(help_text="Ranked items within `limit` that `budget_tokens` left out.")
    prompt_block = serializers.CharField()
    tokens = serializers.IntegerField()
    turn_ref = serializers.CharField()


# --- Conversations and extraction ------------------------------------------------------------------


class ConversationCreateSerializer(serializers.Serializer):
    user_id = StrictCharField(
        required=False, max_length=EXTERNAL_ID_MAX_CHARS, trim_whitespace=False, validators=[USER_ID]
    )
    title = StrictCharField(required=False, default="", allow_blank=True, max_length=200)
    incognito = StrictBooleanField(required=False, default=False)


class ConversationOutSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    title = serializers.CharField()
    incognito = serializers.BooleanField()
    closed_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    last_activity_at = serializers.DateTimeField()


class MessageInSerializer(serializers.Serializer):
    content = StrictCharField(max_length=8000)


class MessageOutSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    role = serializers.CharField()
    content = serializers.CharField()
    status = serializers.CharField()
    offline = serializers.BooleanField()
    created_at = serializers.DateTimeField()


class TurnOutSerializer(serializers.Serializer):
    user_message = MessageOutSerializer()
    reply = MessageOutSerializer()
    recalled_entry_ids = serializers.ListField(child=serializers.UUIDField())


class JobOutSerializer(serializers.Serializer):
    id = serializers.IntegerField(allow_null=True)
    status = serializers.CharField(help_text="queued, running, done, failed — or skipped (memory paused).")
    trigger = serializers.CharField()
    conversation = serializers.CharField(source="source_conversation")
    result = MetadataField(help_text="Counts per outcome and the ids of the entries touched.")
    error = serializers.CharField()
    extractor = serializers.CharField()
    created_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class CloseOutSerializer(serializers.Serializer):
    conversation = ConversationOutSerializer()
    extraction = JobOutSerializer(allow_null=True)


class TranscriptMessageSerializer(serializers.Serializer):
    id = StrictCharField(
        required=False, max_length=64, help_text="Your message id; defaults to its position."
    )
    role = serializers.ChoiceField(choices=["user", "assistant"])
    content = StrictCharField(max_length=TRANSCRIPT_MESSAGE_MAX_CHARS)
    created_at = serializers.DateTimeField(required=False, allow_null=True)


class ExtractionInSerializer(AddressSerializer):
    messages = serializers.ListField(
        child=TranscriptMessageSerializer(), min_length=1, max_length=MAX_MESSAGES
    )
    conversation = StrictCharField(
        required=False, default="", allow_blank=True, max_length=64, help_text="Your conversation reference."
    )


# --- Moderation ------------------------------------------------------------------------------------


class ApproveSerializer(serializers.Serializer):
    content = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=CONTENT_MAX_CHARS,
        help_text="The edited wording, if any.",
    )
    namespace_path = StrictCharField(
        required=False, max_length=200, help_text="Operators: the org/agent namespace the SOP belongs to."
    )
    agent_id = StrictCharField(
        required=False,
        max_length=100,
        validators=[AGENT_ID],
        help_text="Tenant keys: the agent whose SOP this becomes.",
    )
    reason = StrictCharField(required=False, default="", allow_blank=True, max_length=500)


class RejectSerializer(serializers.Serializer):
    reason = StrictCharField(max_length=500)

"""Input and output serializers of the mem0-compatible endpoints: what mem0's client sends
(mem0ai 2.x, `mem0/client/main.py`), held to the same rules as `/api/v1/` input (`api.serializers.core`)."""

from __future__ import annotations

from rest_framework import serializers

from api.serializers import core as s
from memory_core.extraction import MAX_MESSAGES
from memory_core.lifecycle import FEEDBACK_REASON_MAX_CHARS, FEEDBACK_VALUES
from memory_core.recall import MAX_LIMIT as RECALL_MAX_LIMIT


# Its docstring is the component's description in the published schema: `mem0_memory` in
# `api.mem0.mapping` is the shape it documents.
class Mem0MemorySerializer(serializers.Serializer):
    """Documentation of the shape above (responses are built by `mem0_memory`)."""

    id = serializers.UUIDField()
    memory = serializers.CharField()
    user_id = serializers.CharField(allow_null=True)
    agent_id = serializers.CharField(allow_null=True)
    app_id = serializers.CharField(allow_null=True)
    run_id = serializers.CharField(allow_null=True)
    hash = serializers.CharField()
    metadata = s.MetadataField(allow_null=True)
    categories = serializers.ListField(child=serializers.CharField())
    immutable = serializers.BooleanField()
    expiration_date = serializers.DateField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    type = serializers.CharField()
    status = serializers.CharField()
    score = serializers.FloatField(required=False)


class Mem0MessageSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=["user", "assistant", "system", "tool"])
    content = s.StrictCharField(max_length=s.TRANSCRIPT_MESSAGE_MAX_CHARS, allow_blank=True)
    # Who said it, in a conversation of several people (OpenAI's and mem0's message `name`).
    name = s.StrictCharField(required=False, max_length=100, allow_blank=True)


class Mem0AddSerializer(serializers.Serializer):
    messages = serializers.ListField(child=Mem0MessageSerializer(), min_length=1, max_length=MAX_MESSAGES)
    user_id = s.StrictCharField(required=False)
    agent_id = s.StrictCharField(required=False)
    filters = serializers.DictField(required=False)
    metadata = s.MetadataField(required=False, default=dict)
    infer = s.StrictBooleanField(required=False, default=True)
    timestamp = s.StrictIntegerField(
        required=False, min_value=0, max_value=32503680000, help_text="Unix seconds."
    )
    expiration_date = serializers.DateField(required=False, allow_null=True)


class PendingEventSerializer(serializers.Serializer):
    message = serializers.CharField()
    status = serializers.CharField(help_text="PENDING, RUNNING, SUCCEEDED or FAILED.")
    event_id = serializers.CharField(allow_null=True)
    results = serializers.ListField(child=serializers.DictField(), required=False)


# The keys of a memory in mem0's shape (`mem0_memory`): what search's `fields` may ask for.
MEMORY_FIELDS = tuple(Mem0MemorySerializer().fields)


class Mem0SearchSerializer(serializers.Serializer):
    query = s.StrictCharField(max_length=4000)
    filters = serializers.DictField(required=False)
    top_k = s.StrictIntegerField(required=False, min_value=1, max_value=RECALL_MAX_LIMIT, default=10)
    threshold = s.StrictFloatField(required=False, min_value=0, max_value=1, allow_null=True)
    categories = serializers.ListField(child=s.StrictCharField(max_length=40), required=False)
    rerank = s.StrictBooleanField(
        required=False, help_text="true (always: the recall blend); false is a 400."
    )
    keyword_search = s.StrictBooleanField(required=False, help_text="true (always blended); false is a 400.")
    # mem0's name; DRF's metaclass moves declared fields aside, so it does not shadow `.fields`.
    fields = serializers.ListField(  # type: ignore[assignment]
        child=serializers.ChoiceField(choices=MEMORY_FIELDS), required=False, max_length=len(MEMORY_FIELDS)
    )
    show_expired = s.StrictBooleanField(required=False, help_text="false; true is a 400 (use get_all).")
    latest_only = s.StrictBooleanField(required=False, help_text="true; false is a 400 (use get_all).")
    reference_date = serializers.DateTimeField(
        required=False, allow_null=True, input_formats=["iso-8601", "%Y-%m-%d"]
    )
    metadata = serializers.JSONField(required=False, help_text="Not supported (400): use filters.")


class Mem0ListSerializer(serializers.Serializer):
    filters = serializers.DictField(required=False)
    show_expired = s.StrictBooleanField(required=False, default=False)
    latest_only = s.StrictBooleanField(required=False, default=True, help_text="false: older versions too.")
    categories = serializers.ListField(child=s.StrictCharField(max_length=40), required=False)
    start_date = s.StrictCharField(required=False, max_length=40, help_text="Created on or after (ISO 8601).")
    end_date = s.StrictCharField(required=False, max_length=40, help_text="Created on or before (ISO 8601).")


class Mem0PageQuerySerializer(serializers.Serializer):
    page = serializers.IntegerField(required=False, min_value=1, max_value=1_000_000, default=1)
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=500, default=100)


class Mem0UpdateSerializer(serializers.Serializer):
    text = s.StrictCharField(required=False, max_length=s.CONTENT_MAX_CHARS)
    metadata = s.MetadataField(required=False)
    timestamp = serializers.JSONField(required=False)
    expiration_date = serializers.CharField(required=False, allow_null=True)


class Mem0EraseQuerySerializer(serializers.Serializer):
    erase_sources = serializers.BooleanField(required=False, default=False)
    delete_linked = serializers.BooleanField(required=False, default=False)


class DeleteAllQuerySerializer(serializers.Serializer):
    user_id = s.StrictCharField(required=False)
    agent_id = s.StrictCharField(required=False)
    filters = serializers.CharField(
        required=False, max_length=2000, help_text="{'user_id': …}, as mem0 sends it."
    )
    erase_sources = serializers.BooleanField(required=False, default=False, help_text=s.ERASE_SOURCES_HELP)


class Mem0BatchUpdateItemSerializer(serializers.Serializer):
    memory_id = s.StrictCharField(max_length=100)
    text = s.StrictCharField(max_length=s.CONTENT_MAX_CHARS)
    metadata = s.MetadataField(required=False)


class Mem0BatchUpdateSerializer(serializers.Serializer):
    memories = serializers.ListField(
        child=Mem0BatchUpdateItemSerializer(), min_length=1, max_length=s.MAX_BATCH
    )


class Mem0BatchDeleteItemSerializer(serializers.Serializer):
    memory_id = s.StrictCharField(max_length=100)


class Mem0BatchDeleteSerializer(serializers.Serializer):
    memories = serializers.ListField(
        child=Mem0BatchDeleteItemSerializer(), min_length=1, max_length=s.MAX_BATCH
    )


EXPORT_SCHEMA = "memory-export-v1"


class Mem0ExportCreateSerializer(serializers.Serializer):
    schema = serializers.JSONField(help_text=f'"{EXPORT_SCHEMA}": everything held, in our export format.')
    filters = serializers.DictField(required=False)
    user_id = s.StrictCharField(required=False)
    agent_id = s.StrictCharField(required=False)


class Mem0ExportGetSerializer(serializers.Serializer):
    memory_export_id = s.StrictCharField(required=False, max_length=8000)
    filters = serializers.DictField(required=False)
    user_id = s.StrictCharField(required=False)
    agent_id = s.StrictCharField(required=False)


class Mem0FeedbackSerializer(serializers.Serializer):
    memory_id = s.StrictCharField(max_length=100)
    feedback = serializers.ChoiceField(choices=FEEDBACK_VALUES, allow_null=True, required=False)
    feedback_reason = s.StrictCharField(
        required=False, allow_null=True, allow_blank=True, max_length=FEEDBACK_REASON_MAX_CHARS
    )

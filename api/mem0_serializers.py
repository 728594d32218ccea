"""Input and output serializers of the mem0-compatible endpoints: what mem0's client sends
(mem0ai 2.x, `mem0/client/main.py`), held to the same rules as `/api/v1/` input (`api.serializers`)."""

from __future__ import annotations

from rest_framework import serializers

from api import serializers as s
from memory_core.extraction import MAX_MESSAGES
from memory_core.recall import MAX_LIMIT as RECALL_MAX_LIMIT


# Its docstring is the component's description in the published schema: `mem0_memory` in
# `api.mem0_mapping` is the shape it documents.
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


class Mem0SearchSerializer(serializers.Serializer):
    query = s.StrictCharField(max_length=4000)
    filters = serializers.DictField(required=False)
    top_k = s.StrictIntegerField(required=False, min_value=1, max_value=RECALL_MAX_LIMIT, default=10)
    threshold = s.StrictFloatField(required=False, min_value=0, max_value=1, allow_null=True)
    categories = serializers.ListField(child=s.StrictCharField(max_length=40), required=False)
    reference_date = serializers.DateTimeField(
        required=False, allow_null=True, input_formats=["iso-8601", "%Y-%m-%d"]
    )


class Mem0ListSerializer(serializers.Serializer):
    filters = serializers.DictField(required=False)
    show_expired = s.StrictBooleanField(required=False, default=False)
    categories = serializers.ListField(child=s.StrictCharField(max_length=40), required=False)


class Mem0PageQuerySerializer(serializers.Serializer):
    page = serializers.IntegerField(required=False, min_value=1, max_value=1_000_000, default=1)
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=500, default=100)


class Mem0UpdateSerializer(serializers.Serializer):
    text = s.StrictCharField(required=False, max_length=s.CONTENT_MAX_CHARS)
    metadata = s.MetadataField(required=False, allow_null=True)
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

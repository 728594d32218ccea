"""Input and output serializers of the entities and relations endpoints (issue 19). Output is the
engine's own JSON view (`entity_dict` / `relation_dict`); these classes check input and document
the shapes in the schema."""

from __future__ import annotations

from rest_framework import serializers

from api.serializers.core import (
    AddressSerializer,
    ErasureReceiptSerializer,
    MemoryOutSerializer,
    PageQuerySerializer,
    StrictBooleanField,
    StrictCharField,
)
from memory_core.entities.models import NAME_MAX_CHARS
from memory_core.entities.vocabulary import EntityKind, Predicate, RelationStatus
from memory_core.models import CONTENT_MAX_CHARS

MAX_SPLIT = 200


class EntityListQuerySerializer(AddressSerializer, PageQuerySerializer):
    kind = serializers.ChoiceField(choices=EntityKind.choices, required=False)
    q = StrictCharField(required=False, max_length=NAME_MAX_CHARS, help_text="A name or alias (part of).")


class PointInTimeSerializer(AddressSerializer):
    at = serializers.DateTimeField(
        required=False, help_text="Relations as they held at this instant (ISO 8601); default now."
    )
    history = serializers.BooleanField(
        required=False, default=False, help_text="Every relation, ended and superseded ones too."
    )


class RelationListQuerySerializer(PointInTimeSerializer, PageQuerySerializer):
    entity = serializers.UUIDField(required=False, help_text="Only relations of this entity (either end).")
    predicate = serializers.ChoiceField(choices=Predicate.choices, required=False)


class EntityCorrectSerializer(serializers.Serializer):
    name = StrictCharField(required=False, max_length=NAME_MAX_CHARS, help_text="The right name.")
    kind = serializers.ChoiceField(choices=EntityKind.choices, required=False)

    def validate(self, attrs: dict) -> dict:
        if not attrs:
            raise serializers.ValidationError("Give name, kind or both.")
        return attrs


class EntityMergeSerializer(serializers.Serializer):
    into = serializers.UUIDField(
        help_text="The entity that stays; this one's memories and relations move to it."
    )


class EntitySplitSerializer(serializers.Serializer):
    memories = serializers.ListField(
        child=serializers.UUIDField(),
        min_length=1,
        max_length=MAX_SPLIT,
        help_text="The memories that speak of someone else: their mentions and relations move.",
    )
    name = StrictCharField(max_length=NAME_MAX_CHARS, help_text="The other one's name.")


class RelationCorrectSerializer(serializers.Serializer):
    value = StrictCharField(
        required=False,
        max_length=NAME_MAX_CHARS,
        help_text="Relations to a value (a job title): the right one.",
    )
    valid_to = serializers.DateTimeField(required=False, help_text="It stopped holding at this instant.")
    ended = StrictBooleanField(required=False, help_text="true: it no longer holds (valid_to now).")

    def validate(self, attrs: dict) -> dict:
        if not attrs:
            raise serializers.ValidationError("Give value, valid_to or ended.")
        if "valid_to" in attrs and attrs.get("ended") is not None:
            raise serializers.ValidationError("Give valid_to or ended, not both.")
        return attrs


class EntitySearchQuerySerializer(AddressSerializer):
    q = StrictCharField(max_length=500, help_text="A name, or what the entity is about ('who flies planes').")
    limit = serializers.IntegerField(required=False, min_value=1, max_value=50, default=10)


class GraphQuerySerializer(PointInTimeSerializer, PageQuerySerializer):
    pass


class GraphClearSerializer(AddressSerializer):
    confirm = StrictBooleanField(help_text="Must be true: every entity and relation of the user goes.")

    def validate_confirm(self, value: bool) -> bool:
        if value is not True:
            raise serializers.ValidationError("Set confirm to true to clear the graph.")
        return value


class RelationCreateSerializer(AddressSerializer):
    subject_id = StrictCharField(max_length=40, help_text='An entity id, or "user" for the user themself.')
    predicate = serializers.ChoiceField(choices=Predicate.choices)
    object_id = serializers.UUIDField(required=False, help_text="The other entity (not for role).")
    value = StrictCharField(required=False, max_length=NAME_MAX_CHARS, help_text="For role: the job title.")
    # The input's "label" key; the stubs type the name as Field.label.
    label = StrictCharField(  # type: ignore[assignment]
        required=False, default="", allow_blank=True, max_length=80, help_text="The words used: 'husband'."
    )
    valid_from = serializers.DateTimeField(required=False, help_text="Since when it holds; default now.")


class ObservationSerializer(AddressSerializer):
    content = StrictCharField(
        max_length=CONTENT_MAX_CHARS, help_text="One self-contained statement about the entity."
    )
    valid_from = serializers.DateTimeField(required=False, help_text="Since when it holds; default now.")


# --- Output (the engine's dicts, documented) ---------------------------------------------------------


class EntityOutSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    kind = serializers.ChoiceField(choices=EntityKind.choices)
    name = serializers.CharField()
    named = serializers.BooleanField(help_text="false while known only by a kinship word ('my sister').")
    aliases = serializers.ListField(
        child=serializers.CharField(), help_text="Names and words it was called by."
    )
    is_self = serializers.BooleanField()
    created_at = serializers.DateTimeField()


class EntityRowSerializer(EntityOutSerializer):
    relation_count = serializers.IntegerField()
    memory_count = serializers.IntegerField(help_text="Memories that mention it.")


class EntityPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = EntityRowSerializer(many=True)


class RelationEndSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    kind = serializers.CharField()
    is_self = serializers.BooleanField(help_text="true: the user themself.")


class RelationOutSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    subject = RelationEndSerializer()
    predicate = serializers.ChoiceField(choices=Predicate.choices)
    # The output's "label" key; the stubs type the name as Field.label.
    label = serializers.CharField(help_text="The words used: sister, husband, 姐姐 …")  # type: ignore[assignment]
    object = RelationEndSerializer(allow_null=True)
    value = serializers.CharField(help_text="The value when there is no object entity (a job title).")
    status = serializers.ChoiceField(choices=RelationStatus.choices)
    valid_from = serializers.DateTimeField()
    valid_to = serializers.DateTimeField(allow_null=True)
    start_known = serializers.BooleanField(
        help_text="false: said undated of someone else, it may have held before valid_from (since when is "
        "not known), so a question about an earlier instant sees it."
    )
    recorded_at = serializers.DateTimeField()
    superseded_by = serializers.UUIDField(allow_null=True)
    confidence = serializers.FloatField()
    extractor = serializers.CharField()
    memories = serializers.ListField(child=serializers.UUIDField(), help_text="The memories it rests on.")


class RelationPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = RelationOutSerializer(many=True)


class EntityDetailSerializer(EntityOutSerializer):
    relations = RelationOutSerializer(many=True)
    memories = MemoryOutSerializer(
        many=True, help_text="The sources: memories that mention it or support its relations."
    )


class EntityErasedSerializer(serializers.Serializer):
    erased = serializers.IntegerField(help_text="Memory entries erased.")
    receipts = ErasureReceiptSerializer(many=True, help_text="One per erased memory: counts, never content.")


class EntityHitSerializer(EntityOutSerializer):
    score = serializers.FloatField(help_text="1 for a name or alias; else the similarity to the query.")
    matched = serializers.ChoiceField(
        choices=["name", "meaning", "memory"],
        help_text="name: a name or alias; meaning: its name; memory: a statement that mentions it.",
    )


class EntitySearchSerializer(serializers.Serializer):
    results = EntityHitSerializer(many=True)


class GraphPageSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="Entities in all.")
    next_offset = serializers.IntegerField(
        allow_null=True, help_text="Where the next page starts; null on the last."
    )
    entities = EntityOutSerializer(many=True)
    relations = RelationOutSerializer(many=True, help_text="Every relation touching an entity of this page.")


class GraphClearedSerializer(serializers.Serializer):
    entities = serializers.IntegerField()
    relations = serializers.IntegerField()


class StatementRefSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    content = serializers.CharField()


class RelationCreatedSerializer(RelationOutSerializer):
    statement = StatementRefSerializer(help_text="The memory the relation rests on, written for it.")


class ObservationOutSerializer(serializers.Serializer):
    entity = EntityOutSerializer()
    memory = MemoryOutSerializer()

"""Input and output of the webhook endpoints (`api.v1.webhooks`)."""

from __future__ import annotations

from rest_framework import serializers

from api.serializers.core import MetadataField, StrictCharField
from memory_core.choices import DeliveryStatus, WebhookEventType
from memory_core.webhooks.addresses import URL_MAX_CHARS
from memory_core.webhooks.services import DESCRIPTION_MAX_CHARS


class StrictBooleanField(serializers.BooleanField):
    """true or false only (DRF would read "yes" or 1 as true)."""

    def to_internal_value(self, data: object) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class EventListField(serializers.ListField):
    """Event type names; unknown ones are refused by the service with the list of known ones."""

    child = StrictCharField(max_length=40)

    def __init__(self, **kwargs: object) -> None:
        kwargs.setdefault("help_text", f"Event types: {', '.join(WebhookEventType.subscribable())}.")
        super().__init__(allow_empty=False, max_length=len(WebhookEventType.values), **kwargs)  # type: ignore[arg-type]


class EndpointCreateSerializer(serializers.Serializer):
    url = StrictCharField(
        max_length=URL_MAX_CHARS, help_text="https:// (plain http:// only on the loopback, for development)."
    )
    events = EventListField()
    description = StrictCharField(
        required=False, default="", allow_blank=True, max_length=DESCRIPTION_MAX_CHARS
    )


class EndpointUpdateSerializer(serializers.Serializer):
    url = StrictCharField(required=False, max_length=URL_MAX_CHARS)
    events = EventListField(required=False)
    description = StrictCharField(required=False, allow_blank=True, max_length=DESCRIPTION_MAX_CHARS)
    enabled = StrictBooleanField(
        required=False, help_text="true re-enables a disabled endpoint (its failure count starts again)."
    )


class EndpointOutSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    url = serializers.CharField()
    description = serializers.CharField()
    events = serializers.ListField(child=serializers.CharField())
    enabled = serializers.BooleanField()
    consecutive_failures = serializers.IntegerField()
    disabled_at = serializers.DateTimeField(
        allow_null=True, help_text="Set when repeated failures disabled it."
    )
    disabled_reason = serializers.CharField(help_text="Why it was disabled (the notice).")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class EndpointWithSecretSerializer(EndpointOutSerializer):
    secret = serializers.CharField(help_text="The signing secret: shown now only, store it.")
    previous_secret_until = serializers.DateTimeField(
        allow_null=True,
        required=False,
        help_text="After a rotation with a grace period: deliveries are also signed with the old "
        "secret until then.",
    )


# A week: long enough to roll a receiver's configuration out, short enough that a leaked old
# secret does not stay useful for long.
MAX_GRACE_SECONDS = 7 * 24 * 3600


class RotateSecretSerializer(serializers.Serializer):
    grace_seconds = serializers.IntegerField(
        min_value=0,
        max_value=MAX_GRACE_SECONDS,
        default=0,
        help_text="Keep signing with the old secret as well for this many seconds (0 to 604800; "
        "default 0: the old secret stops at once).",
    )


class EndpointPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = EndpointOutSerializer(many=True)


class AttemptOutSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status_code = serializers.IntegerField(allow_null=True)
    error = serializers.CharField()
    duration_ms = serializers.IntegerField()
    succeeded = serializers.BooleanField()
    at = serializers.DateTimeField(source="created_at")


class EventOutSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    type = serializers.CharField()
    created_at = serializers.DateTimeField()


class DeliveryOutSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    event = EventOutSerializer()
    status = serializers.ChoiceField(choices=DeliveryStatus.choices)
    attempts = serializers.IntegerField()
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    last_status_code = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField()
    delivered_at = serializers.DateTimeField(allow_null=True)
    replay_of = serializers.UUIDField(source="replay_of_id", allow_null=True)
    created_at = serializers.DateTimeField()
    payload = MetadataField(
        source="event.payload", help_text='The body sent; {"erased": true} after an erasure.'
    )
    attempt_log = AttemptOutSerializer(many=True)


class DeliveryPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = DeliveryOutSerializer(many=True)


class DeliveryQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=DeliveryStatus.choices, required=False)
    limit = serializers.IntegerField(required=False, min_value=1, max_value=200, default=50)
    offset = serializers.IntegerField(required=False, min_value=0, max_value=10_000_000, default=0)

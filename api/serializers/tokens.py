"""Input and output of the personal tokens endpoints (`/api/v1/tokens/`)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.models import PERSONAL_SCOPES, UserToken
from api.serializers.core import StrictCharField


class TokenCreateSerializer(serializers.Serializer):
    name = StrictCharField(max_length=100, help_text="What uses it, e.g. 'Claude Desktop on my laptop'.")
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=[str(scope) for scope in PERSONAL_SCOPES]),
        min_length=1,
        max_length=3,
        help_text="What it may do: read, write, erase.",
    )
    expires_at = serializers.DateTimeField(
        required=False, allow_null=True, help_text="When it stops working; omit or null for never."
    )


class TokenOutSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="The public part, shown in lists: pt_1a2b3c4d.")
    scopes = serializers.ListField(child=serializers.CharField())
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    last_used_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)
    active = serializers.BooleanField(source="is_active", help_text="false once revoked or expired.")


class TokenIssuedSerializer(TokenOutSerializer):
    token = serializers.CharField(help_text="The secret: shown this once, stored only as a hash.")


class TokenListSerializer(serializers.Serializer):
    results = TokenOutSerializer(many=True)


def token_out(token: UserToken, secret: str | None = None) -> dict[str, Any]:
    data = dict(TokenOutSerializer(token).data)
    return data | {"token": secret} if secret is not None else data

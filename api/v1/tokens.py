"""A person's own personal tokens (for their MCP client, scripts, mem0's client): list, create
(the secret shown once), revoke; the same services as the /me/tokens/ page."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from api.base import ApiView, json_object, valid
from api.models import UserToken
from api.schema import errors
from api.serializers import tokens as ts
from api.services import user_token_create, user_token_revoke_own, user_tokens_of
from api.v1.examples import tokens as ex

TAGS = ["tokens"]


class TokensApi(ApiView):
    scopes = {"GET": None, "POST": None}
    users_only = True  # a tenant key has no person to make tokens for

    @extend_schema(
        operation_id="tokens_list",
        summary="Your personal tokens",
        description="Every token you made or an operator issued you, newest first, revoked and expired "
        "ones too (`active: false`). Secrets are never shown again.",
        tags=TAGS,
        responses={200: ts.TokenListSerializer, **errors()},
        examples=ex.TOKENS_LIST,
    )
    def get(self, request: Request) -> Response:
        return Response({"results": [ts.token_out(t) for t in user_tokens_of(user=request.user)]})

    @extend_schema(
        operation_id="tokens_create",
        summary="Make a personal token",
        description="Named, with its scopes and an optional expiry; the secret (`token`) is in this "
        "answer only. Made with a token, it cannot have more scopes or a later expiry than that one.",
        tags=TAGS,
        request=ts.TokenCreateSerializer,
        responses={201: ts.TokenIssuedSerializer, **errors(400, 409)},
        examples=ex.TOKENS_CREATE,
    )
    def post(self, request: Request) -> Response:
        params = valid(ts.TokenCreateSerializer, json_object(request))
        issued = user_token_create(
            user=request.user,
            name=params["name"],
            scopes=params["scopes"],
            expires_at=params.get("expires_at"),
            within=request.auth if isinstance(request.auth, UserToken) else None,
        )
        return Response(ts.token_out(issued.token, issued.key), status=status.HTTP_201_CREATED)


class TokenApi(ApiView):
    scopes = {"DELETE": None}
    users_only = True

    @extend_schema(
        operation_id="tokens_revoke",
        summary="Revoke a personal token",
        description="It stops working at once (the next request with it is 401); it stays listed as "
        "revoked. Revoking a revoked one changes nothing.",
        tags=TAGS,
        responses={204: OpenApiResponse(description="Revoked."), **errors(404)},
    )
    def delete(self, request: Request, token_id: str) -> Response:
        user_token_revoke_own(user=request.user, token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)

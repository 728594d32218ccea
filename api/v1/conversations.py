"""Conversations run through the API: start, post a message and get the reply, read, close, delete."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from api.auth import tenant_of
from api.base import ERASE, READ, WRITE, ApiView, address_of, job_out, json_object, requester_of, valid
from api.schema import errors
from api.selectors import conversation_for
from api.serializers import core as s
from api.services import subject_ensure
from api.v1.examples import core as ex
from chat.erasure import conversation_erase
from chat.models import Conversation
from chat.selectors import conversation_messages
from chat.services import conversation_close, conversation_create, message_post, turn_reply
from memory_core.selectors import recalled_entry_ids


def _conversation(request: Request, conversation_id: str) -> tuple[Any, Conversation]:
    """The conversation and its user; `user_id` in the query string narrows to that end user's."""
    return conversation_for(request, conversation_id=conversation_id, **address_of(request))


class ConversationsApi(ApiView):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="conversations_create",
        summary="Start a conversation",
        description="Tenant keys: for the end user `user_id`. "
        "Incognito conversations neither recall nor learn.",
        tags=["conversations"],
        request=s.ConversationCreateSerializer,
        responses={201: s.ConversationOutSerializer, **errors(400)},
        examples=ex.CONVERSATIONS_CREATE,
    )
    def post(self, request: Request) -> Response:
        params = valid(s.ConversationCreateSerializer, json_object(request))
        with transaction.atomic():
            subject = subject_ensure(
                tenant=tenant_of(request),
                person=request.user,
                user_id=params.get("user_id"),
                agent_id=None,
                agents=False,
            )
            conversation = conversation_create(
                user=subject.actor, incognito=params["incognito"], title=params["title"]
            )
        return Response(s.ConversationOutSerializer(conversation).data, status=status.HTTP_201_CREATED)


class ConversationApi(ApiView):
    scopes = {"DELETE": ERASE}

    @extend_schema(
        operation_id="conversations_delete",
        summary="Delete a conversation",
        description="The conversation, its messages and the extraction jobs of its transcript, for good; "
        "memories learned from it stay (erase them with `erase_sources` to take those back too). Leaves "
        "an erasure receipt (`GET /api/v1/erasures/`).",
        tags=["conversations"],
        parameters=[s.AddressSerializer],
        request=None,
        responses={204: OpenApiResponse(description="Deleted."), **errors(400, 404)},
    )
    def delete(self, request: Request, conversation_id: str) -> Response:
        user, conversation = _conversation(request, conversation_id)
        conversation_erase(user=user, conversation_id=conversation.pk, requester=requester_of(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ConversationMessagesApi(ApiView):
    scopes = {"GET": READ, "POST": WRITE}

    @extend_schema(
        operation_id="conversations_messages_list",
        summary="Messages of a conversation",
        tags=["conversations"],
        parameters=[
            s.AddressSerializer,
            OpenApiParameter("limit", int, description="At most 200 (default 50)."),
            OpenApiParameter("offset", int),
        ],
        responses={
            200: OpenApiResponse(
                s.MessageOutSerializer(many=True), description="In turn order (at most 1,000)."
            ),
            **errors(400, 404),
        },
        examples=ex.CONVERSATIONS_MESSAGES_LIST,
    )
    def get(self, request: Request, conversation_id: str) -> Response:
        _user, conversation = _conversation(request, conversation_id)
        return Response(
            s.MessageOutSerializer(
                list(conversation_messages(conversation=conversation)[:1000]), many=True
            ).data
        )

    @extend_schema(
        operation_id="conversations_messages_create",
        summary="Post a message and get the reply",
        description="Runs a chat turn: recall → prompt → model → reply. `recalled_entry_ids` are the "
        "memories the reply was written with. A model failure is a 502/503/504; the message is kept.",
        tags=["conversations"],
        parameters=[s.AddressSerializer],
        request=s.MessageInSerializer,
        responses={201: s.TurnOutSerializer, **errors(400, 404)},
        examples=ex.CONVERSATIONS_MESSAGES_CREATE,
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        params = valid(s.MessageInSerializer, json_object(request))
        user, conversation = _conversation(request, conversation_id)
        message = message_post(conversation=conversation, content=params["content"])
        reply = turn_reply(user=user, conversation=conversation, user_message=message)
        message.refresh_from_db()
        return Response(
            {
                "user_message": s.MessageOutSerializer(message).data,
                "reply": s.MessageOutSerializer(reply).data,
                "recalled_entry_ids": recalled_entry_ids(actor=user, turn_ref=reply.recall_ref),
            },
            status=status.HTTP_201_CREATED,
        )


class ConversationCloseApi(ApiView):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="conversations_close",
        summary="Close a conversation",
        description="What it taught is extracted in the background; `extraction` is that job "
        "(null for incognito conversations, paused memory, or nothing new to learn).",
        tags=["conversations"],
        parameters=[s.AddressSerializer],
        request=None,
        responses={200: s.CloseOutSerializer, **errors(400, 404)},
        examples=ex.CONVERSATIONS_CLOSE,
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        _user, conversation = _conversation(request, conversation_id)
        job = conversation_close(conversation=conversation)
        if job is not None:
            job.refresh_from_db()  # with synchronous tasks it may already be done
        return Response(
            {"conversation": s.ConversationOutSerializer(conversation).data, "extraction": job_out(job)}
        )

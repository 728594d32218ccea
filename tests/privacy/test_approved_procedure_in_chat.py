"""An approved procedure is used by the chats it was approved for (issue 32, item 7): a user proposes
a rule in chat, an operator approves it into the default org namespace on the moderation page, and
the user's next chat on the matter recalls it; a user outside the namespace's scope does not."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.urls import reverse

from chat.models import Message
from memory_core.models import MemoryEntry, MemoryStatus, MemoryType, NamespaceGrant
from memory_core.recall import memory_recall
from tests.chat.helpers import client_for, conversation

pytestmark = pytest.mark.django_db

RULE = "Remember: for every refund, always ask for the order number and check the receipt before paying out."


def chat(client, conv, text: str) -> Message:
    response = client.post(reverse("chat:send", args=[conv.pk]), {"content": text})
    assert response.status_code == 302
    return Message.objects.filter(conversation=conv, role="assistant").order_by("-id").first()


def test_a_rule_approved_into_the_default_org_is_followed_by_the_users_next_chat(
    owner, other_user, moderator
):
    user_client = client_for(owner)
    chat(user_client, conversation(owner), RULE)
    proposal = MemoryEntry.objects.get(namespace__owner=owner, type=MemoryType.PROCEDURAL)
    assert proposal.status == MemoryStatus.PENDING_REVIEW

    operator_client = client_for(moderator)
    page = operator_client.get(reverse("privacy:moderation")).content.decode()
    assert "Who follows it" in page  # the scope is shown where the operator approves
    response = operator_client.post(
        reverse("privacy:procedure_approve", args=[proposal.pk]),
        {"namespace_path": settings.DEFAULT_ORG_NAMESPACE, "reason": "fine"},
    )
    assert response.status_code == 302
    approved = MemoryEntry.objects.get(namespace__path=settings.DEFAULT_ORG_NAMESPACE, status="active")
    assert NamespaceGrant.objects.filter(namespace=approved.namespace, user=owner).exists()

    reply = chat(user_client, conversation(owner), "A customer wants a refund, what should I do?")
    assert "order number" in reply.content  # the offline reply lists what it recalled
    used = user_client.get(reverse("chat:conversation", args=[reply.conversation_id])).content.decode()
    assert reverse("privacy:memory", args=[approved.pk]) in used  # "used 1 memory" links to it

    # Someone the namespace was not granted to does not get it.
    others = memory_recall(actor=other_user, query="refund order number", record=False)
    assert approved.pk not in {item.entry.pk for item in others.items}


def test_the_moderation_page_counts_who_reads_each_namespace(owner, moderator):
    chat(client_for(owner), conversation(owner), RULE)
    page = client_for(moderator).get(reverse("privacy:moderation")).content.decode()
    assert "0 users read it" in page

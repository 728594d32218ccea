"""Erasure that spans memories and conversations: a memory (or all of them) with the
conversations it came from or was used in, and one conversation. The pages and the API call these;
memory_core erases the memories (`memory_core.erasure`), this module the transcripts."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from chat.models import Conversation
from chat.selectors import conversation_access, conversations_for_memory
from chat.services import conversation_delete, conversations_erase
from memory_core.erasure import (
    Requester,
    erasure_receipt_add,
    extraction_jobs_erase,
    memory_erase,
    memory_erase_all,
)
from memory_core.models import ErasureReceipt, ErasureScope
from memory_core.selectors import memory_sources


@transaction.atomic
def memory_erase_with_sources(
    *, user: Any, memory_id: Any, erase_sources: bool = False, requester: Requester | None = None
) -> ErasureReceipt:
    """Erase a memory (and its older versions); with `erase_sources`, also the conversations it
    came from or was used in (the user's words and the assistant's replies there quote it), their
    messages, and the extraction jobs of every source it names (chat, API or mem0 transcripts).
    One receipt counts it all."""
    conversations: list[str] = []
    refs: set[str] = set()
    if erase_sources:
        conversations = [
            str(pk)
            for pk in conversations_for_memory(user=user, memory_id=memory_id).values_list("pk", flat=True)
        ]
        refs = set(memory_sources(actor=user, memory_id=memory_id).conversations)
    receipt = memory_erase(actor=user, memory_id=memory_id, requester=requester)
    if erase_sources:
        tally = conversations_erase(user=user, conversation_ids=conversations)
        tally.jobs += extraction_jobs_erase(actor=user, source_conversations=refs - set(conversations))
        erasure_receipt_add(receipt=receipt, tally=tally)
    return receipt


@transaction.atomic
def memory_erase_all_with_sources(
    *,
    user: Any,
    erase_sources: bool = False,
    requester: Requester | None = None,
    scope: str = ErasureScope.ALL,
) -> ErasureReceipt:
    """Erase every memory of the user; with `erase_sources`, every conversation too (each is a
    possible source: what the user said there is theirs to take back)."""
    receipt = memory_erase_all(actor=user, requester=requester, scope=scope)
    if erase_sources:
        everything = Conversation.objects.owned_by(user).values_list("pk", flat=True)
        erasure_receipt_add(
            receipt=receipt, tally=conversations_erase(user=user, conversation_ids=everything)
        )
    return receipt


@transaction.atomic
def conversation_erase(
    *, user: Any, conversation_id: Any, requester: Requester | None = None
) -> ErasureReceipt:
    """Delete one of the user's conversations with its messages and extraction jobs; memories
    learned from it stay (erase them with their sources to take those back too)."""
    return conversation_delete(
        conversation=conversation_access(user=user, conversation_id=conversation_id), requester=requester
    )

"""Cards of procedures shared with the user: what they say, never where they came from."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from memory_core.models import MemoryEvidence, NamespaceGrant, SourceKind
from memory_core.moderation import procedure_create
from memory_core.services import namespace_create
from privacy.selectors import memory_cards
from tests.chat.helpers import conversation as new_conversation
from tests.chat.helpers import say
from tests.privacy.helpers import opened

pytestmark = pytest.mark.django_db

QUOTE = "Bob wrote: my manager Carol signs the refunds"


def test_it_shows_no_excerpt_or_history_of_a_shared_procedure(owner, moderator):
    NamespaceGrant.objects.create(namespace=namespace_create(path="org/acme", kind="org"), user=owner)
    sop = procedure_create(operator=moderator, namespace_path="org/acme", content="Refunds need a manager.")
    # Evidence and history of the org's copy quoting someone else's message.
    MemoryEvidence.objects.create(
        entry=sop, source_kind=SourceKind.EXTRACTED, source_conversation="c-bob", excerpt=QUOTE
    )
    sop.events.update(reason=QUOTE)
    conversation = new_conversation(owner)
    say(owner, conversation, "Remember that I prefer tea over coffee.")
    mine = next(e for e in owner.memory_namespaces.get().entries.all() if "tea" in e.content)

    shared, own = memory_cards(user=owner, entries=[sop, mine])

    assert not shared.own and shared.source.excerpt == "" and shared.source.link == ""
    assert shared.source.more == 0 and shared.history == []
    assert own.own and "tea" in own.source.excerpt.lower() and own.source.link and own.history
    client = Client()
    client.force_login(owner)
    html = opened(client, client.get(reverse("privacy:index")).content.decode())
    assert "Refunds need a manager." in html and "Carol" not in html and "History (1)" in html

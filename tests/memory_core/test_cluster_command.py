"""`manage.py cluster_memories` reorders the table without losing or changing anything."""

import pytest
from django.core.management import call_command

from memory_core.models import MemoryEntry
from memory_core.recall import memory_recall
from tests.memory_core.helpers import remember

# CLUSTER refuses to run while the test transaction holds deferred constraint checks.
pytestmark = pytest.mark.django_db(transaction=True)


def test_it_keeps_every_entry_and_recall_still_works(owner, other_user, capsys):
    mine = remember(owner, "The user is severely allergic to peanuts", pinned=True)
    remember(other_user, "The user plays the cello")
    before = sorted(MemoryEntry.objects.values_list("pk", "content", "status"))

    call_command("cluster_memories")

    assert sorted(MemoryEntry.objects.values_list("pk", "content", "status")) == before
    assert "Rewrote 2 memory entries" in capsys.readouterr().out
    recalled = memory_recall(actor=owner, query="what should I cook tonight?", record=False)
    assert [item.entry.pk for item in (*recalled.items, *recalled.always)] == [mine.pk]

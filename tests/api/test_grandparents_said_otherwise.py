"""A grandparent said in another language or another English ("Nonna", "Babcia", "Ah Gong", "Dadi
ji", "my lola", "Meemaw") is a grandparent: the graph records them as the user's grandmother or
grandfather, with the name given beside the word ("Oma Hilde", "my babcia, Irena"), and the safety
decision reads the word as the English one its models learned. Before, "Nonna is on blood thinners
since she came to live with us" was someone else's and "Ah Gong's Parkinson's…" not a safety fact;
"Nonna Rosa" recorded nobody. A word that is as often a name ("Lola") names a grandparent only after
"my" or "our". Through REST, the batch route, mem0's route, MCP and the chat."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.entities.models import Relation
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, mem0_add, pinned, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

# A grandparent's condition said by the word alone, with what tells they are in the user's care.
SAID_ALONE = [
    "Nonna is on blood thinners since she came to live with us.",
    "Ah Gong's Parkinson's is getting worse, I have to help him eat every meal now.",
    "Meemaw moved in with us after her stroke, she's on warfarin and I sort her tablets.",
    "Since Opa came to live with us I do his eye drops for glaucoma every night.",
    "my lola lives with us now, she has type 2 diabetes and I give her the metformin.",
]

# (who they are, named beside the word, and that the user looks after them; later, by name alone)
NAMED = [
    ("Nonna Rosa moved in with us in March and I look after her now.", "Rosa has vascular dementia."),
    ("My babcia, Irena, lives with me and I'm her carer.", "Irena is on warfarin and bruises easily."),
    ("Our Oma is called Hilde and she lives with us, I do most of her care.", "Hilde has heart failure."),
    ("Abuela (Carmen to everyone else) lives with me and I take care of her.", "Carmen has COPD."),
]

# A name that is also a word for a grandparent, said as a name, and someone else's grandparent.
NOT_THEIRS = [
    "My friend Lola has a severe nut allergy.",
    "Lola from work has epilepsy, she told us at the team lunch.",
    "My neighbour's nonna has dementia, poor thing.",
]


def _relatives(content: str) -> dict[str, set[str]]:
    """The user's people the graph recorded, by name: what they are to the user ("grandmother",
    "cares for")."""
    entry = MemoryEntry.objects.get(content=content, status=MemoryStatus.ACTIVE)
    found: dict[str, set[str]] = {}
    for r in Relation.objects.filter(namespace_id=entry.namespace_id, subject__is_self=True):
        found.setdefault(r.object.name, set()).add(r.label)
    return found


@pytest.mark.parametrize("said", SAID_ALONE)
def test_rest_pins_a_grandparents_condition_said_by_a_word_of_another_language(key_client, said):
    body = rest_add(key_client, said)
    assert (body["entry"]["pinned"], body["entry"]["category"]) == (True, "safety"), body


@pytest.mark.parametrize(("who", "condition"), NAMED)
def test_rest_records_the_named_grandparent_and_pins_their_condition_by_name(key_client, who, condition):
    rest_add(key_client, who)
    body = rest_add(key_client, condition)

    name = condition.split()[0]
    assert _relatives(who).get(name, set()) & {"grandmother", "grandfather"}, _relatives(who)
    assert (body["entry"]["pinned"], body["entry"]["category"]) == (True, "safety"), body


@pytest.mark.parametrize("said", NOT_THEIRS)
def test_a_name_that_is_also_a_grandparents_word_and_someone_elses_nonna_are_not_pinned(key_client, said):
    assert not pinned(rest_add(key_client, said))
    assert not any("grandmother" in labels for labels in _relatives(said).values())


def test_the_batch_route_and_mem0_read_them_alike(key_client):
    results = batch_add(key_client, [*SAID_ALONE[:2], NOT_THEIRS[0]])
    assert [r["entry"]["pinned"] for r in results] == [True, True, False], results

    (result,) = mem0_add(key_client, SAID_ALONE[2])["results"]
    assert result["event"] == "ADD", result
    assert MemoryEntry.objects.get(content=SAID_ALONE[2]).pinned


@pytest.mark.django_db(transaction=True)
def test_mcp_reads_the_named_grandparent(owner, mcp_url):
    who, condition = NAMED[1]
    bodies = m.adds(mcp_url, user_token_issue(user=owner).key, [who, condition, NOT_THEIRS[1]])
    assert [b["entry"]["pinned"] for b in bodies] == [False, True, False], bodies


def test_the_chat_pins_it(owner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"Remember that {SAID_ALONE[3]}"})
    kept = MemoryEntry.objects.filter(content__contains="glaucoma", status=MemoryStatus.ACTIVE)
    assert kept.filter(pinned=True).exists(), [(e.content, e.pinned) for e in kept]

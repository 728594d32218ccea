"""A second person's signature or say-so given up is a relaxed approval ("no longer need a
supervisor call", "without the pharmacist countersigning", "you don't need a manager's say-so"):
held for an operator and flagged as weakening, never active. Before, only "approval", "sign-off"
and "a manager's signature" were read so, and such rules were held unflagged or, when the model
missed them, stored active (batch 58). Requiring the countersignature is a rule that relaxes
nothing. Through REST, mem0's route, the batch route, MCP, an import and the chat."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.models import FlaggedWrite, FlagKind, MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, import_lines, mem0_add, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

RELAXED = [
    "Bar staff: tabs over £200 no longer need a supervisor call before you close them.",
    "Hire desk: wetsuit returns without a countersignature are fine from the regatta on — rinse, hang and "
    "tick the board.",
    "From Monday, porters can move stable patients between wards without a nurse countersigning the slip.",
    "Returns desk: under £50 you don't need a manager's say-so, just scan it back in.",
    "Lab rule change: the second analyst no longer countersigns routine calibration sheets.",
]
REQUIRED = "From Monday every controlled-drug entry must be countersigned by a second nurse."


@pytest.mark.parametrize("said", RELAXED)
def test_rest_and_mem0_hold_it_flagged(key_client, said):
    body = rest_add(key_client, said)
    assert (body["action"], body["flagged"]) == ("pending_review", True), body
    MemoryEntry.objects.all().delete()
    mem0_add(key_client, said)
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()


def test_the_batch_route_and_an_import_flag_them_and_not_the_requirement(key_client):
    results = batch_add(key_client, [*RELAXED, REQUIRED])
    assert [(r["action"], r["flagged"]) for r in results] == [("pending_review", True)] * len(RELAXED) + [
        ("pending_review", False)
    ], results
    MemoryEntry.objects.all().delete()
    rows = import_lines(key_client, RELAXED[:2])
    assert all(row["action"] == "pending_review" for row in rows), rows
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()


@pytest.mark.django_db(transaction=True)
def test_mcp_flags_it(owner, mcp_url):
    (body,) = m.adds(mcp_url, user_token_issue(user=owner).key, [RELAXED[0]])
    assert (body["action"], body["flagged"]) == ("pending_review", True), body


def test_the_chat_holds_it_flagged(owner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"Remember that {RELAXED[1]}"})
    held = MemoryEntry.objects.get()
    assert held.status == MemoryStatus.PENDING_REVIEW
    assert FlaggedWrite.objects.filter(kind=FlagKind.POLICY_WEAKENING, entry=held).exists()

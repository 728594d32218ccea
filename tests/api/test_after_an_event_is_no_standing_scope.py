# ruff: noqa: RUF001 -- Chinese users type full-width commas; so must the tests.
""" "以后" after an event or a time means "after it" ("他中风以后右边身体不能动": since his stroke), not
"from now on": read as a standing scope, it let a weak rule score hold such a statement for an
operator, and the condition it tells waited with it instead of being pinned. With a request's word
it still scopes a rule ("晚上十点以后大家别在群里@她"), and "以后" that opens one is a scope as before.
Through REST and mem0's route."""

from __future__ import annotations

import pytest

from memory_core.models import MemoryEntry, MemoryStatus
from tests.api.add_helpers import mem0_add, rest_add

pytestmark = pytest.mark.django_db

AFTER_AN_EVENT = [
    "我一直在照顾我爸，他中风以后右边身体不能动。",
    "我老公做完心脏手术以后，走路还是有点喘。",
    "奶奶摔了一跤以後一直走不穩，現在跟我們住。",
]
STILL_RULES = [
    "以后每次产检前两天都提醒我一下。",
    "小林说她有焦虑症，晚上十点以后大家别在群里@她。",
    "我媽中風以後左邊沒力氣，扶她的時候一定要站她左邊。",
]


@pytest.mark.parametrize("said", AFTER_AN_EVENT)
def test_a_statement_told_after_an_event_is_not_held_as_a_rule(key_client, said):
    body = rest_add(key_client, said)
    assert body["action"] == "added", body
    MemoryEntry.objects.all().delete()
    mem0_add(key_client, said)
    assert MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()
    assert not MemoryEntry.objects.filter(status=MemoryStatus.PENDING_REVIEW).exists()


def test_the_condition_told_after_a_stroke_is_pinned(key_client):
    body = rest_add(key_client, AFTER_AN_EVENT[0])
    assert body["entry"]["pinned"] is True, body


@pytest.mark.parametrize("said", STILL_RULES)
def test_a_rule_scoped_by_it_still_waits_for_review(key_client, said):
    assert rest_add(key_client, said)["action"] == "pending_review"

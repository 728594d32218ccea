"""Whose safety fact in Chinese, read by the Chinese reader (the regression's features beside
multilingual-e5's vector; docs/trust.md, "A Chinese reader"), as a client sees it: a condition of
the user or a dependant that the regression alone did not pin is stored pinned, and talk in a
condition's frame that the regression alone pinned is stored unpinned; through REST, mem0's route,
MCP, the chat's "remember that" and an import."""

from __future__ import annotations

import numpy as np
import pytest
from django.urls import reverse

from api.services import user_token_issue
from chat.models import Message
from memory_core import judgement
from memory_core.judgement import multilingual
from memory_core.judgement.model import models as judgement_models
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.api.add_helpers import mem0_add, rest_add
from tests.chat.helpers import client_for

# Conditions of the user or a dependant told outside "我有…": an appointment, a device, a medicine,
# a refill. The regression alone leaves each under its threshold and the reader pins it (asserted
# first: when the models are retrained and that no longer holds, the test says so).
CONDITIONS_THE_READER_PINS = [
    "囡囡嘅癫痫药唔可以停，出去旅行记得带够。",  # noqa: RUF001
    "我系慢阻肺，行楼梯要慢慢嚟。",  # noqa: RUF001
]
# Talk in the frame a condition is told in ("我有…"): the regression alone pins each, the reader does
# not (asserted likewise).
TALK_THE_READER_LEAVES = [
    "我有会员卡，可以打八折。",  # noqa: RUF001
    "我有积分卡，可以换一杯咖啡。",  # noqa: RUF001
]


def _readings(text: str) -> tuple[float, float]:
    """The regression's probability that `text` is the user's or a dependant's condition, and the
    reader's."""
    model = judgement_models()["safety"]
    chinese = multilingual.reader()
    assert chinese is not None
    regression = np.asarray(judgement.scores(text)["safety"])
    read = chinese.probabilities(text)
    return (
        float(sum(regression[model.classes.index(w)] for w in judgement.PINNED_WHO)),
        float(sum(read[chinese.model.classes.index(w)] for w in judgement.PINNED_WHO)),
    )


def _kept(said: str) -> tuple[str, bool]:
    kept = MemoryEntry.objects.get(content=said)
    return kept.status, kept.pinned


@pytest.mark.parametrize("said", CONDITIONS_THE_READER_PINS)
def test_a_condition_the_regression_alone_missed_is_pinned(key_client, said):
    regression, read = _readings(said)
    assert regression < judgement_models()["safety"].threshold
    assert read >= multilingual.reader().model.threshold

    body = rest_add(key_client, said)
    assert body["action"] == "added" and body["entry"]["pinned"] is True, body
    assert _kept(said) == (MemoryStatus.ACTIVE, True)


@pytest.mark.parametrize("said", TALK_THE_READER_LEAVES)
def test_talk_the_regression_alone_pinned_is_stored_unpinned(key_client, said):
    regression, read = _readings(said)
    assert regression >= judgement_models()["safety"].threshold
    assert read < multilingual.reader().model.threshold

    body = rest_add(key_client, said)
    assert body["action"] == "added" and body["entry"]["pinned"] is False, body
    assert _kept(said) == (MemoryStatus.ACTIVE, False)


def test_mem0_pins_the_condition_and_not_the_talk(key_client):
    for said, pinned in ((CONDITIONS_THE_READER_PINS[0], True), (TALK_THE_READER_LEAVES[0], False)):
        (result,) = mem0_add(key_client, said)["results"]
        assert result["event"] == "ADD" and "status" not in result, result
        assert _kept(said) == (MemoryStatus.ACTIVE, pinned)


@pytest.mark.django_db(transaction=True)
def test_mcp_pins_the_condition_and_not_the_talk(owner, mcp_url):
    said = [CONDITIONS_THE_READER_PINS[-1], TALK_THE_READER_LEAVES[-1]]
    bodies = m.adds(mcp_url, user_token_issue(user=owner).key, said)

    assert [(b["action"], b["entry"]["pinned"]) for b in bodies] == [("added", True), ("added", False)], (
        bodies
    )


def test_chat_remember_that_pins_the_condition_and_not_the_talk(owner, django_capture_on_commit_callbacks):
    client = client_for(owner)
    for said in (CONDITIONS_THE_READER_PINS[1], TALK_THE_READER_LEAVES[1]):
        with django_capture_on_commit_callbacks(execute=True):
            client.post(reverse("chat:new"), {"content": f"记住：{said}"})  # noqa: RUF001
    assert Message.objects.filter(role="assistant").count() == 2
    # The chat keeps each in the third person ("用户系慢阻肺…").
    kept = {e.content: e.pinned for e in MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE)}
    assert len(kept) == 2, kept
    assert {("慢阻肺" in c, pinned) for c, pinned in kept.items()} == {(True, True), (False, False)}, kept


def test_an_import_pins_the_conditions_and_not_the_talk(key_client):
    said = [*CONDITIONS_THE_READER_PINS[:2], *TALK_THE_READER_LEAVES[:2]]
    body = key_client.post(
        "/api/v1/imports/", {"format": "text", "data": "\n".join(said) + "\n", "user_id": "u1"}, format="json"
    ).json()

    assert [r["action"] for r in body["results"]] == ["added"] * 4, body
    pinned = set(MemoryEntry.objects.filter(pinned=True).values_list("content", flat=True))
    assert pinned == set(CONDITIONS_THE_READER_PINS[:2])

"""Whose safety fact, read by the regression averaged with the safety encoder (docs/trust.md, "A
safety encoder"), as a client sees it: someone else's condition the regression alone pinned as the
user's is stored unpinned; the user's and a dependant's conditions stay pinned, in English (the
average) and in Chinese (the regression alone: the encoder reads no Han); through REST, mem0's
route, MCP and the chat."""

from __future__ import annotations

import numpy as np
import pytest
from django.urls import reverse

from api.services import user_token_issue
from chat.models import Message
from memory_core import judgement
from memory_core.judgement import encoder as judgement_encoder
from memory_core.judgement.encoder import SAFETY_OUTPUTS
from memory_core.judgement.model import models as judgement_models
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.api.add_helpers import mem0_add, rest_add
from tests.chat.helpers import client_for

# Someone else's condition the regression alone pins (over its threshold) and the average does not
# (asserted first: when the models are retrained and that no longer holds, the test says so and
# needs other wordings).
OTHERS_THE_REGRESSION_PINNED = [
    "Might be quiet for a while, my partner is 38 weeks pregnant so I'm staying close to home.",
    "My client's on blood thinners, so I checked with the supervisor before the massage.",
]
# The user's and dependants' conditions, said in passing or through a treatment.
OWN_AND_DEPENDANTS = [
    "Can someone cover Friday? I'm having my own cataract surgery that morning.",
    "Since his stroke Dad eats a soft diet and needs his frame to get to the table.",
    "Not doing the sauna, pacemaker and all.",
]
CHINESE_OWN = "下周的聚餐我就不喝酒了，我最近在吃华法林。"  # noqa: RUF001


def _readings(text: str) -> tuple[float, float]:
    """The regression's probability that `text` is the user's or a dependant's condition, and its
    average with the safety encoder's."""
    model = judgement_models()["safety"]
    reader = judgement_encoder.safety_encoder()
    assert reader is not None
    regression = np.asarray(judgement.scores(text)["safety"])
    read = reader.probabilities([text])[0]
    pinned = sum(regression[model.classes.index(w)] for w in judgement.PINNED_WHO)
    encoded = read[SAFETY_OUTPUTS.index("safety:user")] + read[SAFETY_OUTPUTS.index("safety:dependant")]
    return float(pinned), float((pinned + encoded) / 2)


def _kept(said: str) -> tuple[str, bool]:
    kept = MemoryEntry.objects.get(content=said)
    return kept.status, kept.pinned


@pytest.mark.parametrize("said", OTHERS_THE_REGRESSION_PINNED)
def test_someone_elses_condition_the_regression_alone_pinned_is_stored_unpinned(key_client, said):
    regression, averaged = _readings(said)
    assert regression >= judgement_models()["safety"].threshold > 0
    assert averaged < judgement_encoder.safety_encoder().threshold

    body = rest_add(key_client, said)
    assert body["action"] == "added" and body["entry"]["pinned"] is False, body
    assert _kept(said) == (MemoryStatus.ACTIVE, False)


@pytest.mark.parametrize("said", OTHERS_THE_REGRESSION_PINNED)
def test_mem0_stores_someone_elses_condition_unpinned(key_client, said):
    (result,) = mem0_add(key_client, said)["results"]
    assert result["event"] == "ADD" and "status" not in result, result
    assert _kept(said) == (MemoryStatus.ACTIVE, False)


@pytest.mark.parametrize("said", OWN_AND_DEPENDANTS)
def test_the_users_and_dependants_conditions_stay_pinned(key_client, said):
    _, averaged = _readings(said)
    assert averaged >= judgement_encoder.safety_encoder().threshold

    body = rest_add(key_client, said)
    assert body["action"] == "added" and body["entry"]["pinned"] is True, body
    assert _kept(said) == (MemoryStatus.ACTIVE, True)


@pytest.mark.parametrize("said", OWN_AND_DEPENDANTS)
def test_mem0_pins_the_users_and_dependants_conditions(key_client, said):
    (result,) = mem0_add(key_client, said)["results"]
    assert result["event"] == "ADD" and "status" not in result, result
    assert _kept(said) == (MemoryStatus.ACTIVE, True)


def test_chat_remember_that_pins_a_dependants_condition_and_not_someone_elses(
    owner, django_capture_on_commit_callbacks
):
    client = client_for(owner)
    for said in (OWN_AND_DEPENDANTS[1], OTHERS_THE_REGRESSION_PINNED[1]):
        with django_capture_on_commit_callbacks(execute=True):
            client.post(reverse("chat:new"), {"content": f"Remember that {said[0].lower()}{said[1:]}"})
    assert Message.objects.filter(role="assistant").count() == 2
    dad = MemoryEntry.objects.get(content__contains="soft diet")
    client_note = MemoryEntry.objects.get(content__contains="blood thinners")
    assert (dad.status, dad.pinned) == (MemoryStatus.ACTIVE, True), dad.content
    assert (client_note.status, client_note.pinned) == (MemoryStatus.ACTIVE, False), client_note.content


def test_a_condition_said_in_chinese_is_read_by_the_regression_alone(key_client):
    judgement.safety_encoder_read.cache_clear()
    body = rest_add(key_client, CHINESE_OWN)

    assert body["action"] == "added" and body["entry"]["pinned"] is True, body
    assert judgement.safety_encoder_read.cache_info().currsize == 0  # no encoder pass on Han


@pytest.mark.django_db(transaction=True)
def test_mcp_pins_the_users_condition_and_not_someone_elses(owner, mcp_url):
    said = [OWN_AND_DEPENDANTS[0], OTHERS_THE_REGRESSION_PINNED[1], CHINESE_OWN]
    bodies = m.adds(mcp_url, user_token_issue(user=owner).key, said)

    assert [(b["action"], b["entry"]["pinned"]) for b in bodies] == [
        ("added", True),
        ("added", False),
        ("added", True),
    ], bodies

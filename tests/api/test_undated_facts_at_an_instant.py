# ruff: noqa: RUF001 - Chinese punctuation is what these tests type
"""A statement told without a date, about someone else, that says no change ("Ingrid plays the
oboe", "郑凯收藏老唱片") held before it was told, since when is not known: a question about an
earlier instant may see it. A statement about the user ("I live in Porto", "我住在杭州"), one
that says a change ("Tom moved to Leeds", "刚") and a dated one keep their start, so the user's
own home city at an earlier instant is still the one of then. Through REST, mem0's route and
recall."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.entities_helpers import add, contents, recall

pytestmark = pytest.mark.django_db

THEN = "2018-06-01T00:00:00Z"


def _recalled(client: Any, query: str, user: str) -> list[str]:
    return contents(recall(client, query, user=user, at=THEN, limit=10))


def test_an_undated_fact_about_the_boss_is_seen_at_an_earlier_instant(key_client):
    add(key_client, "My boss is Ingrid Sole.", user="ud1", valid_from="2017-03-01T00:00:00Z")
    add(key_client, "Ingrid plays the oboe in an amateur orchestra.", user="ud1")
    add(key_client, "Tom moved to Leeds.", user="ud1")
    add(key_client, "I live in Lisbon.", user="ud1", valid_from="2016-01-01T00:00:00Z")
    add(key_client, "I live in Porto.", user="ud1")
    found = _recalled(key_client, "What instrument did my boss play back in 2018?", "ud1")
    assert "Ingrid plays the oboe in an amateur orchestra." in found
    # A change said undated happened around when it was told: not yet in 2018.
    assert "Tom moved to Leeds." not in _recalled(key_client, "Where did Tom live in 2018?", "ud1")
    # The user's own home told undated began when told: in 2018 it was still Lisbon.
    home = _recalled(key_client, "Which city did I live in back in 2018?", "ud1")
    assert "I live in Lisbon." in home and "I live in Porto." not in home
    now = contents(recall(key_client, "Which city do I live in?", user="ud1"))
    assert "I live in Porto." in now and "I live in Lisbon." not in now


def test_a_chinese_undated_fact_about_someone_else_is_seen_then(key_client):
    add(key_client, "我的上司是郑凯。", user="ud3", valid_from="2017-09-01T00:00:00Z")
    add(key_client, "郑凯收藏老唱片。", user="ud3")
    add(key_client, "我住在杭州。", user="ud3")
    add(key_client, "王磊刚换了工作。", user="ud3")
    assert "郑凯收藏老唱片。" in _recalled(key_client, "2018年我的上司收藏什么？", "ud3")
    # The user's own home and a change ("刚") told undated began when they were told.
    assert "我住在杭州。" not in _recalled(key_client, "2018年我住在哪里？", "ud3")
    assert "王磊刚换了工作。" not in _recalled(key_client, "2018年王磊在做什么？", "ud3")


def test_an_undated_fact_added_through_mem0_is_seen_then(key_client):
    response = key_client.post(
        "/v3/memories/add/",
        {
            "user_id": "m3",
            "infer": False,
            "messages": [{"role": "user", "content": "Bruno restores vintage motorbikes."}],
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    add(key_client, "My neighbour is Bruno Keller.", user="m3", valid_from="2015-01-01T00:00:00Z")
    assert "Bruno restores vintage motorbikes." in _recalled(
        key_client, "What did my neighbour restore in 2018?", "m3"
    )


def test_a_corrected_undated_fact_keeps_its_unknown_start(key_client):
    add(key_client, "My boss is Ingrid Sole.", user="ud4", valid_from="2017-03-01T00:00:00Z")
    said = add(key_client, "Ingrid plays the oboe in an amateur orchestra.", user="ud4")
    response = key_client.patch(
        f"/api/v1/memories/{said['entry']['id']}/?user_id=ud4",
        {"content": "Ingrid plays the bassoon in an amateur orchestra.", "reason": "wrong instrument"},
        format="json",
    )
    assert response.status_code == 200, response.content
    found = _recalled(key_client, "What instrument did my boss play back in 2018?", "ud4")
    assert "Ingrid plays the bassoon in an amateur orchestra." in found
    assert "Ingrid plays the oboe in an amateur orchestra." not in found

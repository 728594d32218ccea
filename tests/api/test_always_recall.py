"""The user overrides "always recalled": POST /api/v1/memories/{id}/always-recall/.

The write path pins what its safety model reads as a safety fact of the user or a dependant; the
user may see it otherwise (a condition they want brought up only when it is relevant, or a misread
of the model's). Unpinned, a memory leaves recall's `always` and ranks as any other item; pinned,
it comes with every answer; the choice holds when the
same fact comes back (said again, a new value of its slot, a correction)."""

from __future__ import annotations

import pytest

from memory_core.lifecycle import memory_hide
from memory_core.models import MemoryEntry, MemoryEvent

pytestmark = pytest.mark.django_db

# A condition the write path pins as the user's safety fact (the slot of what they eat).
FACT = "I follow a gluten-free diet because of coeliac disease."
CORRECTED = "I follow a gluten-free diet, but oats are fine."


def add(client, content: str, **extra) -> dict:
    response = client.post("/api/v1/memories/", {"content": content, **extra}, format="json")
    assert response.status_code in (200, 201), response.content
    return response.json()


def always_recall(client, memory_id: str, always, **query):
    suffix = f"?user_id={query['user_id']}" if "user_id" in query else ""
    return client.post(
        f"/api/v1/memories/{memory_id}/always-recall/{suffix}", {"always": always}, format="json"
    )


def recall(client, query: str, **extra) -> dict:
    response = client.post("/api/v1/recall/", {"query": query, **extra}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def contents(items: list[dict]) -> list[str]:
    return [item["entry"]["content"] for item in items]


@pytest.fixture
def coeliac(owner_client) -> dict:
    """A condition the safety model pins as the user's safety fact (in the slot of what they eat),
    beside ordinary memories."""
    entry = add(owner_client, FACT)["entry"]
    assert entry["pinned"] and entry["category"] == "safety" and entry["importance"] >= 0.9
    add(owner_client, "The user enjoys hiking in the mountains.")
    add(owner_client, "The user plays the cello on Sundays.")
    return entry


def test_unpinning_a_safety_fact_takes_it_out_of_always(owner_client, coeliac):
    always = recall(owner_client, "Which instrument do I play?")["always"]
    assert FACT in contents(always)

    response = always_recall(owner_client, coeliac["id"], False)

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["id"] == coeliac["id"] and body["status"] == "active"
    assert body["pinned"] is False and body["category"] == "general" and body["importance"] == 0.8
    assert body["key"] == "diet" and body["content"] == FACT
    assert body["metadata"]["always_recall"] is False
    # Asked about something else, it no longer comes along; asked about it, it is an ordinary item.
    unrelated = recall(owner_client, "Which instrument do I play?")
    assert FACT not in contents(unrelated["always"] + unrelated["items"])
    assert "coeliac" not in unrelated["prompt_block"]
    related = recall(owner_client, "Do I follow a special diet?")
    assert related["always"] == []
    item = next(i for i in related["items"] if i["entry"]["content"] == FACT)
    assert not {"pinned", "always"} & set(item["reasons"])
    # The history says who changed what, from what to what.
    history = owner_client.get(f"/api/v1/memories/{coeliac['id']}/history/").json()
    assert history[-1]["action"] == "unpinned" and history[-1]["actor_kind"] == "user"
    assert history[-1]["data"] == {
        "always_recall": False,
        "from": {"pinned": True, "category": "safety", "importance": 0.9},
        "to": {"pinned": False, "category": "general", "importance": 0.8},
    }
    # Asked again: unchanged, no second event.
    again = always_recall(owner_client, coeliac["id"], False)
    assert again.status_code == 200 and again.json()["pinned"] is False
    assert MemoryEvent.objects.filter(entry_id=coeliac["id"], action="unpinned").count() == 1


def test_pinning_an_ordinary_memory_puts_it_in_always(owner_client, coeliac):
    hiking = MemoryEntry.objects.get(content="The user enjoys hiking in the mountains.")
    assert "The user enjoys hiking" not in " ".join(
        contents(recall(owner_client, "Do I follow a special diet?")["always"])
    )

    response = always_recall(owner_client, str(hiking.pk), True)

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["pinned"] is True and body["category"] == hiking.category
    assert body["importance"] == hiking.importance and body["metadata"]["always_recall"] is True
    result = recall(owner_client, "Which instrument do I play?")
    always = contents(result["always"])
    assert "The user enjoys hiking in the mountains." in always
    assert result["prompt_block"].index("hiking") < result["prompt_block"].index("cello")
    history = owner_client.get(f"/api/v1/memories/{hiking.pk}/history/").json()
    assert history[-1]["action"] == "pinned" and history[-1]["data"]["to"]["pinned"] is True


def test_a_tenant_sets_it_for_its_user_and_the_history_names_the_api(key_client):
    entry = add(key_client, FACT, user_id="customer-7")["entry"]

    response = always_recall(key_client, entry["id"], False, user_id="customer-7")

    assert response.status_code == 200 and response.json()["pinned"] is False
    history = key_client.get(f"/api/v1/memories/{entry['id']}/history/").json()
    assert history[-1]["action"] == "unpinned" and history[-1]["actor_kind"] == "api"
    # Another end user of the same tenant does not reach it.
    assert always_recall(key_client, entry["id"], True, user_id="customer-8").status_code == 404


def _unchanged(entry_id: str, before: MemoryEntry, events: int) -> None:
    after = MemoryEntry.objects.get(pk=entry_id)
    assert (after.pinned, after.category, after.importance, after.metadata, after.status) == (
        before.pinned,
        before.category,
        before.importance,
        before.metadata,
        before.status,
    )
    assert MemoryEvent.objects.filter(entry_id=entry_id).count() == events


def test_refusals_change_nothing(owner_client, other_client, owner, coeliac):
    before = MemoryEntry.objects.get(pk=coeliac["id"])
    events = MemoryEvent.objects.filter(entry_id=coeliac["id"]).count()

    not_yours = always_recall(other_client, coeliac["id"], False)
    missing = always_recall(owner_client, "6f1c2a8e-1d7b-4c1e-9a53-0b3f1f0a9c11", False)
    not_a_boolean = always_recall(owner_client, coeliac["id"], "no")
    no_choice = owner_client.post(f"/api/v1/memories/{coeliac['id']}/always-recall/", {}, format="json")

    assert not_yours.status_code == 404 and missing.status_code == 404
    assert not_a_boolean.status_code == 400 and "always" in not_a_boolean.json()["errors"]
    assert no_choice.status_code == 400 and "always" in no_choice.json()["errors"]
    _unchanged(coeliac["id"], before, events)

    memory_hide(actor=owner, memory_id=coeliac["id"])
    hidden = MemoryEntry.objects.get(pk=coeliac["id"])
    events = MemoryEvent.objects.filter(entry_id=coeliac["id"]).count()
    refused = always_recall(owner_client, coeliac["id"], False)
    assert refused.status_code == 409
    assert refused.json()["detail"] == "Only memories in use can be set to be always recalled or not."
    _unchanged(coeliac["id"], hidden, events)


def test_a_rule_cannot_be_pinned(owner_client, owner):
    from memory_core.models import MemoryStatus

    rule = add(owner_client, "Always answer me in French.", type="procedural")["entry"]
    MemoryEntry.objects.filter(pk=rule["id"]).update(
        status=MemoryStatus.ACTIVE, approved_at="2026-01-01T00:00Z"
    )

    refused = always_recall(owner_client, rule["id"], True)

    assert refused.status_code == 400 and "never always recalled" in refused.json()["detail"]
    assert MemoryEntry.objects.get(pk=rule["id"]).pinned is False


def test_the_choice_survives_the_same_fact_said_again_a_new_value_and_a_correction(owner_client, coeliac):
    always_recall(owner_client, coeliac["id"], False)

    # Said again, through REST and as the write path reads a passing statement: merged, not re-pinned.
    again = add(owner_client, FACT)
    assert again["action"] == "merged" and again["entry"]["id"] == coeliac["id"]
    entry = MemoryEntry.objects.get(pk=coeliac["id"])
    assert (entry.pinned, entry.category, entry.importance, entry.evidence_count) == (
        False,
        "general",
        0.8,
        2,
    )

    # A new value of the slot is judged afresh: "off" was about the old statement, not inherited.
    newer = add(owner_client, "I am severely allergic to peanuts.", key="diet")
    assert newer["action"] == "superseded" and newer["replaced"] == coeliac["id"]
    assert "always_recall" not in newer["entry"]["metadata"]
    always_recall(owner_client, newer["entry"]["id"], False)

    # A correction is a new version: it keeps the choice, and the fact said again after it too.
    corrected = owner_client.patch(
        f"/api/v1/memories/{newer['entry']['id']}/",
        {"content": CORRECTED},
        format="json",
    ).json()
    assert corrected["pinned"] is False and corrected["metadata"]["always_recall"] is False
    said = add(owner_client, CORRECTED)
    assert said["entry"]["id"] == corrected["id"] and said["entry"]["pinned"] is False
    assert recall(owner_client, "Which instrument do I play?")["always"] == []


def test_pinned_by_the_user_a_new_value_of_its_slot_is_pinned_too(owner_client):
    entry = add(owner_client, "The user lives in Lisbon.", key="home_city")["entry"]
    assert entry["pinned"] is False

    always_recall(owner_client, entry["id"], True)
    newer = add(owner_client, "The user lives in Porto.", key="home_city")

    assert newer["action"] == "superseded" and newer["entry"]["pinned"] is True
    assert "The user lives in Porto." in contents(recall(owner_client, "What music do I like?")["always"])


def test_a_client_cannot_write_the_users_choice_through_metadata(owner_client):
    """Only the user's action sets the choice: a writer's `metadata.always_recall` is dropped."""
    entry = add(owner_client, "I take insulin twice a day.", metadata={"always_recall": False})["entry"]
    assert entry["pinned"] is True and "always_recall" not in entry["metadata"]
    again = add(owner_client, "I take insulin twice a day.", metadata={"always_recall": False})
    assert again["entry"]["id"] == entry["id"] and again["entry"]["pinned"] is True

"""The rest of mem0's `MemoryClient` (mem0ai 2.2.1, unmodified) against a live server: batch update
and delete, exports, feedback, the v2 filter language in get_all / search / delete_all, search
options, the project's categories, reset, and a clear refusal of what is not served."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from api.models import TenantNamespace
from api.services import api_key_issue, tenant_create
from memory_core.models import EventAction, MemoryEntry, MemoryEvent, MemoryStatus
from tests.api.conftest import client_with

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def tenant(operator):
    return tenant_create(name="Acme", slug="acme", created_by=operator)


@pytest.fixture
def mem0(live_url, tenant):
    from mem0 import MemoryClient

    _key, plaintext = api_key_issue(tenant=tenant, scopes=["read", "write", "erase"])
    return MemoryClient(api_key=plaintext, host=live_url)


@pytest.fixture
def other_mem0(live_url):
    from mem0 import MemoryClient

    other = tenant_create(name="Globex", slug="globex")
    _key, plaintext = api_key_issue(tenant=other, scopes=["read", "write", "erase"])
    return MemoryClient(api_key=plaintext, host=live_url)


def _add(mem0, text: str, user: str = "alice", **extra) -> str:
    [result] = mem0.add(text, user_id=user, infer=False, **extra)["results"]
    return result["id"]


def _texts(page) -> set[str]:
    return {row["memory"] for row in page["results"]}


def _state() -> list[tuple]:
    return sorted(MemoryEntry.objects.values_list("id", "content", "status", "category", "metadata"))


def _status(exc) -> int:
    return exc.value.debug_info["status_code"]


# --- Batch update and delete ----------------------------------------------------------------------


def test_it_batch_updates_through_the_correction_path(mem0, other_mem0):
    from mem0.exceptions import MemoryNotFoundError, ValidationError

    first = _add(mem0, "The user is vegetarian.")
    second = _add(mem0, "The user lives in Lisbon.", metadata={"source": "form"})

    done = mem0.batch_update(
        [
            {"memory_id": first, "text": "The user is vegan."},
            {"memory_id": second, "text": "The user lives in Porto.", "metadata": {"source": "call"}},
        ]
    )
    assert done["message"] == "Successfully updated 2 memories"
    current = {r["memory"]: r for r in mem0.get_all(filters={"user_id": "alice"})["results"]}
    assert set(current) == {"The user is vegan.", "The user lives in Porto."}
    assert current["The user lives in Porto."]["metadata"] == {"source": "call"}
    assert [h["event"] for h in mem0.history(first)] == ["ADD", "UPDATE"]
    assert MemoryEntry.objects.get(pk=first).status == MemoryStatus.SUPERSEDED

    # All or nothing: a secret in one item leaves the other untouched too.
    before = _state()
    new_first = current["The user is vegan."]["id"]
    with pytest.raises(ValidationError) as refused:
        mem0.batch_update(
            [
                {"memory_id": new_first, "text": "The user is pescatarian."},
                {
                    "memory_id": current["The user lives in Porto."]["id"],
                    "text": "My PIN is 4921, card 4111 1111 1111 1111",
                },
            ]
        )
    assert "Memory 1" in refused.value.message and "Secrets are never stored" in refused.value.message
    assert _state() == before

    # Another tenant's ids are not found, and nothing of alice's changes.
    with pytest.raises(MemoryNotFoundError):
        other_mem0.batch_update([{"memory_id": new_first, "text": "The user eats meat."}])
    with pytest.raises(MemoryNotFoundError):
        other_mem0.batch_delete([{"memory_id": new_first}])
    assert _state() == before


def test_it_batch_deletes_as_erasures(mem0):
    from mem0.exceptions import MemoryNotFoundError

    keep = _add(mem0, "The user has a cat named Miso.")
    first = _add(mem0, "The user plays the cello.")
    second = _add(mem0, "The user runs on Sundays.")
    updated = mem0.update(second, text="The user runs on Saturdays.")["id"]

    # One unknown id: nothing is erased.
    with pytest.raises(MemoryNotFoundError):
        mem0.batch_delete([{"memory_id": first}, {"memory_id": "00000000-0000-0000-0000-000000000000"}])
    assert MemoryEntry.objects.filter(pk=first).exists()

    # An old version and its new one in the same batch: both go, once.
    done = mem0.batch_delete([{"memory_id": first}, {"memory_id": updated}, {"memory_id": second}])
    assert done["message"] == "Successfully deleted 3 memories"
    assert list(MemoryEntry.objects.values_list("pk", flat=True)) == [MemoryEntry.objects.get(pk=keep).pk]
    assert not MemoryEntry.objects.filter(content__icontains="cello").exists()
    assert MemoryEvent.objects.filter(action=EventAction.ERASED).count() == 3


def test_a_too_large_batch_is_refused_whole(mem0):
    from mem0.exceptions import MemoryError as Mem0Error

    memory_id = _add(mem0, "The user is vegetarian.")
    before = _state()
    with pytest.raises(Mem0Error) as too_many:
        mem0.batch_update([{"memory_id": memory_id, "text": f"Fact {n}."} for n in range(1001)])
    assert _status(too_many) == 413 and "At most 1000" in too_many.value.message
    with pytest.raises(Mem0Error) as twice:
        mem0.batch_delete([{"memory_id": memory_id}, {"memory_id": memory_id}])
    assert _status(twice) == 400 and "twice" in twice.value.message
    with pytest.raises(Mem0Error) as unknown_key:
        mem0.batch_update([{"memory_id": memory_id, "text": "The user is vegan.", "immutable": True}])
    assert _status(unknown_key) == 400 and "immutable" in unknown_key.value.message
    with pytest.raises(Mem0Error) as metadata_only:
        mem0.batch_update([{"memory_id": memory_id, "metadata": {"a": 1}}])
    assert _status(metadata_only) == 400 and "text" in str(metadata_only.value.details)
    assert _state() == before


# --- The v2 filter language --------------------------------------------------------------------------


@pytest.fixture
def diary(mem0):
    """alice's memories, with creation dates and metadata to filter on."""
    ids = {
        "peanuts": _add(mem0, "The user is severely allergic to peanuts.", metadata={"priority": 5}),
        "porto": _add(mem0, "The user lives in Porto.", metadata={"source": "form", "priority": 2}),
        "trip": _add(mem0, "On 2026-03-02 the user flew to Tokyo for work.", metadata={"source": "chat"}),
        "tea": _add(mem0, "The user prefers green tea to coffee."),
    }
    _add(mem0, "The user likes jazz.", user="bob")
    now = timezone.now()
    for age, name in enumerate(("peanuts", "porto", "trip", "tea")):
        MemoryEntry.objects.filter(pk=ids[name]).update(created_at=now - timedelta(days=30 * (3 - age)))
    return ids


def test_get_all_reads_the_v2_filter_language(mem0, diary):
    entries = {name: MemoryEntry.objects.get(pk=pk) for name, pk in diary.items()}
    alice = {"user_id": "alice"}

    def listed(*conditions):
        return _texts(mem0.get_all(filters={"AND": [alice, *conditions]}))

    porto, tea = entries["porto"].content, entries["tea"].content
    recent = (timezone.now() - timedelta(days=45)).isoformat()
    assert listed({"created_at": {"gte": recent}}) == {entries["trip"].content, tea}
    assert listed({"created_at": {"lt": recent}}) == {entries["peanuts"].content, porto}
    assert listed({"metadata": {"source": "form"}}) == {porto}
    assert listed({"metadata": {"priority": {"gte": 3}}}) == {entries["peanuts"].content}
    assert listed({"metadata": {"source": "*"}}) == {porto, entries["trip"].content}
    assert listed({"keywords": {"icontains": "TOKYO"}}) == {entries["trip"].content}
    assert listed({"memory_ids": [diary["tea"], diary["porto"]]}) == {porto, tea}
    category = entries["peanuts"].category
    assert listed({"categories": {"in": [category]}}) == {
        e.content for e in entries.values() if e.category == category
    }
    assert listed({"NOT": {"categories": {"in": [category]}}}) == {
        e.content for e in entries.values() if e.category != category
    }
    assert listed({"OR": [{"metadata": {"source": "form"}}, {"keywords": {"contains": "green tea"}}]}) == {
        porto,
        tea,
    }
    # The filter names the user; bob's memories never show.
    assert listed({"keywords": {"icontains": "jazz"}}) == set()
    # get_all's own options
    assert _texts(mem0.get_all(filters=alice, categories=[category])) == listed({"categories": category})
    day = entries["tea"].created_at.date().isoformat()
    assert _texts(mem0.get_all(filters=alice, start_date=day, end_date=day)) == {tea}


def test_search_takes_filters_and_options(mem0, diary):
    from mem0.exceptions import ValidationError

    alice = {"user_id": "alice"}
    found = mem0.search(
        "Where does the user live?", filters={"AND": [alice, {"metadata": {"source": "form"}}]}
    )
    assert [r["memory"] for r in found["results"]] == ["The user lives in Porto."]

    # top_k, threshold, rerank and keyword_search (always on), fields
    found = mem0.search(
        "peanuts allergy",
        filters=alice,
        top_k=1,
        threshold=0.0,
        rerank=True,
        keyword_search=True,
        fields=["memory", "score"],
    )
    [top] = found["results"]
    assert set(top) == {"id", "memory", "score"} and "peanuts" in top["memory"]
    assert mem0.search("peanuts allergy", filters=alice, threshold=1.0)["results"] == []

    # What cannot be honoured is refused, naming the option.
    for option, value in (("rerank", False), ("keyword_search", False), ("latest_only", False)):
        with pytest.raises(ValidationError) as refused:
            mem0.search("tea", filters=alice, **{option: value})
        assert option in refused.value.message
    # A reference date is honoured: it anchors the dates in the query ("yesterday", "last week").
    anchored = mem0.search("peanuts allergy", filters=alice, reference_date="2026-03-01")
    assert any("peanuts" in row["memory"] for row in anchored["results"])


def test_bad_filters_are_refused_and_nothing_changes(mem0, diary):
    from mem0.exceptions import ValidationError

    before = _state()
    cases = [
        (
            {"AND": [{"user_id": "alice"}, {"created_at": {"between": ["2026-01-01", "2026-02-01"]}}]},
            "between",
        ),
        ({"AND": [{"user_id": "alice"}, {"colour": "blue"}]}, "colour"),
        ({"AND": [{"user_id": "alice"}, {"created_at": {"gte": "last tuesday"}}]}, "last tuesday"),
        ({"AND": [{"user_id": "alice"}, {"categories": {"gte": "x"}}]}, "gte"),
        ({"OR": [{"user_id": "alice"}, {"user_id": "bob"}]}, "OR"),
        ({"AND": [{"user_id": {"in": ["alice", "bob"]}}]}, "one user"),
        ({"AND": [{"user_id": "alice"}, {"memory_ids": ["not-an-id"]}]}, "not-an-id"),
        ({"AND": [{"user_id": "alice"}, {"metadata": {"k": {"regex": ".*"}}}]}, "regex"),
    ]
    for filters, named in cases:
        for call in (
            lambda f: mem0.get_all(filters=f),
            lambda f: mem0.search("peanuts", filters=f),
            lambda f: mem0.delete_all(filters=f),
        ):
            with pytest.raises(ValidationError) as refused:
                call(filters)
            assert named in refused.value.message, (filters, refused.value.message)
    with pytest.raises(ValidationError) as unknown:
        mem0.get_all(filters={"user_id": "alice"}, sort_by="created_at")
    assert "sort_by" in unknown.value.message
    assert _state() == before


def test_delete_all_with_conditions_erases_only_what_they_match(mem0, diary):
    mem0.delete_all(filters={"AND": [{"user_id": "alice"}, {"metadata": {"source": "*"}}]})
    assert _texts(mem0.get_all(filters={"user_id": "alice"})) == {
        "The user is severely allergic to peanuts.",
        "The user prefers green tea to coffee.",
    }
    assert not MemoryEntry.objects.filter(content__icontains="Porto").exists()
    assert _texts(mem0.get_all(filters={"user_id": "bob"})) == {"The user likes jazz."}
    # Without conditions: everything of the user.
    mem0.delete_all(filters={"AND": [{"user_id": "alice"}]})
    assert mem0.get_all(filters={"user_id": "alice"})["count"] == 0
    assert MemoryEntry.objects.count() == 1


# --- Exports, feedback -----------------------------------------------------------------------------


def test_it_exports_through_our_export(mem0, other_mem0, diary):
    from mem0.exceptions import MemoryNotFoundError, ValidationError

    requested = mem0.create_memory_export(
        schema="memory-export-v1", filters={"AND": [{"user_id": "alice"}, {"metadata": {"source": "*"}}]}
    )
    assert requested["id"]
    exported = mem0.get_memory_export(memory_export_id=requested["id"])
    assert exported["format"] == "memory-export-v1"
    assert {m["content"] for m in exported["memories"]} == {
        "The user lives in Porto.",
        "On 2026-03-02 the user flew to Tokyo for work.",
    }
    everything = mem0.get_memory_export(filters={"user_id": "alice"})
    assert len(everything["memories"]) == 4 and all(m["history"] for m in everything["memories"])

    with pytest.raises(MemoryNotFoundError):
        other_mem0.get_memory_export(memory_export_id=requested["id"])
    with pytest.raises(MemoryNotFoundError):
        mem0.get_memory_export(memory_export_id=requested["id"] + "x")
    with pytest.raises(ValidationError) as custom:
        mem0.create_memory_export(schema='{"properties": {"full_name": {"type": "string"}}}', user_id="alice")
    assert "schema" in custom.value.message and "memory-export-v1" in custom.value.message


def test_feedback_is_kept_in_the_memorys_history(mem0, other_mem0, tenant, make_key):
    from mem0.exceptions import MemoryNotFoundError

    memory_id = _add(mem0, "The user prefers window seats.")
    mem0.feedback(memory_id, feedback="negative", feedback_reason="Outdated; my code is 738291.")
    with pytest.raises(MemoryNotFoundError):
        other_mem0.feedback(memory_id, feedback="POSITIVE")

    history = client_with(make_key(tenant)).get(f"/api/v1/memories/{memory_id}/history/?user_id=alice").json()
    [event] = [e for e in history if e["action"] == "feedback"]
    assert event["data"] == {"feedback": "NEGATIVE"} and event["actor_kind"] == "api"
    assert "738291" not in event["reason"] and event["reason"].startswith("Outdated")
    [exported] = mem0.get_memory_export(filters={"user_id": "alice"})["memories"]
    assert [e["data"] for e in exported["history"] if e["action"] == "feedback"] == [{"feedback": "NEGATIVE"}]
    # mem0's history lists changes of the memory; feedback is not one.
    assert [h["event"] for h in mem0.history(memory_id)] == ["ADD"]
    mem0.feedback(memory_id, feedback=None)  # withdrawn: a second event
    assert MemoryEvent.objects.filter(action="feedback", data={"feedback": None}).count() == 1

    # Erasing the memory empties the reasons with the rest of its history.
    mem0.delete(memory_id)
    assert not MemoryEvent.objects.filter(reason__icontains="Outdated").exists()


# --- Project, reset, not served --------------------------------------------------------------------


def test_it_lists_the_categories_and_refuses_project_changes(mem0):
    from mem0.exceptions import MemoryError as Mem0Error

    categories = mem0.project.get(fields=["custom_categories"])
    names = [next(iter(c)) for c in categories["custom_categories"]]
    assert set(categories) == {"custom_categories"} and {"profile", "safety", "preference"} <= set(names)
    assert mem0.get_project()["id"] == "acme"
    with pytest.raises(Mem0Error) as refused:
        mem0.update_project(custom_categories=[{"travel": "Trips"}])
    assert _status(refused) == 501 and "Project settings are not served" in refused.value.message
    with pytest.raises(Mem0Error) as members:
        mem0.project.get_members()
    assert _status(members) == 501


def test_what_is_not_served_answers_501_naming_it(mem0):
    from mem0.exceptions import MemoryError as Mem0Error

    calls = [
        ("Memory summaries", lambda: mem0.get_summary(filters={"user_id": "alice"})),
        ("User profiles", lambda: mem0.get_profile("alice")),
        ("User profiles", lambda: mem0.generate_profile("alice")),
        ("User profiles", mem0.get_profile_settings),
        ("User profiles", lambda: mem0.update_profile_settings(enabled=True)),
        ("User profiles", lambda: mem0.sample_profiles(limit=2)),
        ("User profiles", lambda: mem0.get_profile_job("job-1")),
    ]
    for feature, call in calls:
        with pytest.raises(Mem0Error) as refused:
            call()
        assert _status(refused) == 501 and feature in refused.value.message


def test_mem0_webhook_methods_answer_a_named_refusal_and_native_webhooks_still_work(mem0):
    """mem0's webhook paths share /api/v1/webhooks/ with ours: each of its methods gets a 501 in
    JSON that names the native API (not an HTML 404 or a bare 405), and the native routes, by
    UUID, are untouched."""
    from mem0.exceptions import MemoryError as Mem0Error

    calls = [
        lambda: mem0.get_webhooks(project_id="acme"),
        lambda: mem0.create_webhook(
            url="https://hooks.example.com/m", name="crm", project_id="acme", event_types=["memory_add"]
        ),
        lambda: mem0.update_webhook(webhook_id=7, name="crm", url="https://hooks.example.com/n"),
        lambda: mem0.delete_webhook(webhook_id=7),
    ]
    for call in calls:
        with pytest.raises(Mem0Error) as refused:
            call()
        assert _status(refused) == 501
        assert "mem0's webhook API is not served" in refused.value.message
        assert "POST /api/v1/webhooks/" in refused.value.message

    native = mem0.client  # the same credentials, on the native routes
    created = native.post(
        "/api/v1/webhooks/", json={"url": "https://hooks.example.com/m", "events": ["memory.added"]}
    )
    assert created.status_code == 201, created.text
    url = f"/api/v1/webhooks/{created.json()['id']}/"
    assert native.get(url).json()["events"] == ["memory.added"]
    assert native.patch(url, json={"description": "CRM"}).json()["description"] == "CRM"
    put = native.put(url, json={"description": "x"})
    assert put.status_code == 405 and put.headers["content-type"].startswith("application/json")
    assert native.delete(url).status_code == 204


def test_reset_forgets_every_user_and_agent(mem0):
    _add(mem0, "The user is vegetarian.")
    mem0.add("The agent answers in French.", agent_id="support", infer=False)
    assert mem0.reset()["message"].startswith("Client reset successful")
    assert not MemoryEntry.objects.exists() and not TenantNamespace.objects.exists()


def test_add_and_update_refuse_what_they_cannot_honour(mem0):
    from mem0.exceptions import ValidationError

    memory_id = _add(mem0, "The user is vegetarian.")
    before = _state()
    with pytest.raises(ValidationError) as add:
        mem0.add("The user likes tea.", user_id="alice", infer=False, custom_categories=[{"drinks": "x"}])
    assert "custom_categories" in add.value.message
    with pytest.raises(ValidationError) as update:
        mem0.update(memory_id, text="The user is vegan.", timestamp=1700000000)
    assert "timestamp" in update.value.message
    with pytest.raises(ValidationError) as metadata_only:
        mem0.update(memory_id, metadata={"source": "form"})
    assert "text" in metadata_only.value.message
    assert _state() == before
    updated = mem0.update(memory_id, text="The user is vegan.", metadata={"source": "form"})
    assert updated["metadata"] == {"source": "form"}


def test_a_batch_update_and_an_update_of_the_same_memory_overlap_safely(mem0):
    """Both start at once (barrier); the namespace lock orders them: one correction wins, the other
    finds the memory already superseded (400), and exactly one current version is left."""
    import threading

    from mem0.exceptions import ValidationError

    memory_id = _add(mem0, "The user is vegetarian.")
    start = threading.Barrier(2, timeout=10)
    outcomes: dict[str, object] = {}

    def run(name: str, call) -> None:
        start.wait()
        try:
            outcomes[name] = call()
        except ValidationError as exc:
            outcomes[name] = exc

    threads = [
        threading.Thread(
            target=run,
            args=(
                "batch",
                lambda: mem0.batch_update([{"memory_id": memory_id, "text": "The user is vegan."}]),
            ),
        ),
        threading.Thread(
            target=run, args=("one", lambda: mem0.update(memory_id, text="The user is pescatarian."))
        ),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    refused = [o for o in outcomes.values() if isinstance(o, ValidationError)]
    assert len(outcomes) == 2 and len(refused) == 1, outcomes
    assert "Only current memories" in refused[0].message
    current = mem0.get_all(filters={"user_id": "alice"})["results"]
    assert len(current) == 1 and current[0]["memory"] in ("The user is vegan.", "The user is pescatarian.")

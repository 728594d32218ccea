"""History inserted behind newer values (imports, backfills, a `valid_from` in the past) closes each
window at the next value's `valid_from`, so point-in-time recall is right for every date between,
whatever order the statements arrived in. Through REST adds and the text import."""

from __future__ import annotations

from datetime import datetime

import pytest

from memory_core.models import MemoryEntry, MemoryStatus

pytestmark = pytest.mark.django_db

LEEDS, BATH, YORK = "I live in Leeds.", "I live in Bath.", "I live in York."


def _add(client, content: str, valid_from: str | None = None) -> dict:
    body = {"user_id": "u1", "content": content, **({"valid_from": valid_from} if valid_from else {})}
    response = client.post("/api/v1/memories/", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _at(client, instant: str) -> list[str]:
    body = {"user_id": "u1", "query": "Where do I live?", "at": instant}
    response = client.post("/api/v1/recall/", body, format="json")
    assert response.status_code == 200, response.content
    answer = response.json()
    return [item["entry"]["content"] for item in [*answer["items"], *answer["always"]]]


def _windows() -> dict[str, tuple[str, str | None]]:
    return {
        e.content: (e.valid_from.date().isoformat(), e.valid_to.date().isoformat() if e.valid_to else None)
        for e in MemoryEntry.objects.all()
    }


@pytest.mark.parametrize(
    "order",
    [(YORK, LEEDS, BATH), (YORK, BATH, LEEDS), (LEEDS, YORK, BATH), (BATH, YORK, LEEDS)],
    ids=["current-then-oldest", "current-then-middle", "oldest-current-middle", "middle-current-oldest"],
)
def test_windows_close_in_date_order_whatever_the_arrival_order(key_client, order):
    dated = {LEEDS: "2021-03-01T00:00:00Z", BATH: "2022-06-01T00:00:00Z", YORK: "2024-01-15T00:00:00Z"}
    for content in order:
        _add(key_client, content, dated[content])

    assert _windows() == {
        LEEDS: ("2021-03-01", "2022-06-01"),
        BATH: ("2022-06-01", "2024-01-15"),
        YORK: ("2024-01-15", None),
    }
    current = MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE)
    assert list(current.values_list("content", flat=True)) == [YORK]
    for instant, expected in [
        ("2021-07-01T00:00:00Z", LEEDS),
        ("2022-10-01T00:00:00Z", BATH),
        ("2023-12-31T00:00:00Z", BATH),
        ("2025-02-01T00:00:00Z", YORK),
    ]:
        found = _at(key_client, instant)
        assert expected in found and not ({LEEDS, BATH, YORK} - {expected}) & set(found), (instant, found)


def test_an_imported_history_behind_the_current_value(key_client):
    _add(key_client, YORK, "2024-01-15T00:00:00Z")
    pasted = f"2021-03-01: {LEEDS}\n2022-06-01: {BATH}\n"
    response = key_client.post(
        "/api/v1/imports/", {"format": "text", "data": pasted, "user_id": "u1"}, format="json"
    )
    assert response.status_code == 201, response.content

    assert _windows()[LEEDS] == ("2021-03-01", "2022-06-01")
    assert _windows()[BATH] == ("2022-06-01", "2024-01-15")
    assert BATH in _at(key_client, "2022-10-01T00:00:00Z")
    assert LEEDS not in _at(key_client, "2022-10-01T00:00:00Z")


def test_mem0_adds_dated_by_timestamp_close_windows_in_order(key_client):
    def mem0_add(content: str, day: str) -> None:
        when = int(datetime.fromisoformat(day + "T00:00:00+00:00").timestamp())
        body = {
            "messages": [{"role": "user", "content": content}],
            "user_id": "u1",
            "infer": False,
            "timestamp": when,
        }
        assert key_client.post("/v3/memories/add/", body, format="json").status_code == 200

    for content, day in [(YORK, "2024-01-15"), (LEEDS, "2021-03-01"), (BATH, "2022-06-01")]:
        mem0_add(content, day)

    assert _windows() == {
        LEEDS: ("2021-03-01", "2022-06-01"),
        BATH: ("2022-06-01", "2024-01-15"),
        YORK: ("2024-01-15", None),
    }

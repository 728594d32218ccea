"""Statements added the way a client adds them, as user "u1": the native REST route and its batch,
mem0's route with `infer: false` (one turn a call, stored as said) and with `infer` true (the
offline extraction), and an import of a pasted list.
Each asserts the call succeeded and returns the reply's body (or its rows)."""

from __future__ import annotations

from typing import Any


def rest_add(client: Any, content: str) -> dict[str, Any]:
    response = client.post("/api/v1/memories/", {"user_id": "u1", "content": content}, format="json")
    assert response.status_code in (200, 201), response.content
    return response.json()


def mem0_add(client: Any, content: str) -> dict[str, Any]:
    body = {"messages": [{"role": "user", "content": content}], "user_id": "u1", "infer": False}
    response = client.post("/v3/memories/add/", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def mem0_infer(client: Any, capture: Any, content: str, user_id: str = "u1") -> dict[str, Any]:
    """mem0's default add (`infer` true) with no model configured, its queued extraction run on
    commit (`capture`: `django_capture_on_commit_callbacks`); the event it reports, succeeded."""
    body = {"messages": [{"role": "user", "content": content}], "user_id": user_id}
    with capture(execute=True):
        queued = client.post("/v3/memories/add/", body, format="json").json()
    event = client.get(f"/v1/event/{queued['event_id']}/", {"user_id": user_id}).json()
    assert event["status"] == "SUCCEEDED", event
    return event


def batch_add(client: Any, contents: list[str]) -> list[dict[str, Any]]:
    """The batch route: one `POST /api/v1/memories/` with `memories`; one result per statement."""
    body = {"user_id": "u1", "memories": [{"content": content} for content in contents]}
    response = client.post("/api/v1/memories/", body, format="json")
    assert response.status_code in (200, 201), response.content
    results = response.json()["results"]
    assert len(results) == len(contents), results
    return results


def import_lines(client: Any, lines: list[str]) -> list[dict[str, Any]]:
    """`POST /api/v1/imports/` of a pasted list, one statement a line; the rows of the reply."""
    data = "".join(f"- {line}\n" for line in lines)
    response = client.post(
        "/api/v1/imports/", {"format": "text", "data": data, "user_id": "u1"}, format="json"
    )
    assert response.status_code in (200, 201), response.content
    return response.json()["results"]


def pinned(body: dict[str, Any]) -> bool:
    """Whether a REST or MCP add pinned the statement, or the condition it kept beside a held rule
    (`also`)."""
    entries = [body.get("entry") or {}, *((also.get("entry") or {}) for also in body.get("also", []))]
    return any(entry.get("pinned") for entry in entries)

"""One statement added the way a client adds it, as user "u1": the native REST route, and mem0's
route with `infer: false` (one turn a call, stored as said). Each asserts the call succeeded and
returns the reply's body."""

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

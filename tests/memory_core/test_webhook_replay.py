"""Replays go out at once, through a real `qcluster` process (the ORM broker, and Redis when
REPLAY_BROKER names it): a failed delivery's replay is a new delivery at the receiver within
seconds; a delivery still waiting out its backoff (a minute after its first failure) is sent now
by a replay, once, instead of a second copy beside it while the first keeps waiting."""

from __future__ import annotations

import os
import time

import pytest

from api.services import api_key_issue, tenant_create
from memory_core.webhooks.models import WebhookDelivery
from tests.api.conftest import client_with
from tests.memory_core.test_job_cluster import cluster  # noqa: F401 (a fixture)

BROKER = os.environ.get("REPLAY_BROKER") or None  # None: the database broker


def _arrivals(receiver, count: int, within: float) -> float | None:
    """Seconds until the receiver has `count` requests (None if it did not within `within`)."""
    started = time.monotonic()
    while time.monotonic() - started < within:
        if len(receiver.received) >= count:
            return time.monotonic() - started
        time.sleep(0.05)
    return None


def _status(pk, wanted: str, within: float = 10) -> str:
    deadline = time.monotonic() + within
    status = ""
    while time.monotonic() < deadline:
        status = WebhookDelivery.objects.get(pk=pk).status
        if status == wanted:
            break
        time.sleep(0.1)
    return status


@pytest.mark.django_db(transaction=True)
def test_a_replay_reaches_the_receiver_within_seconds(cluster, receiver, tmp_path, operator):  # noqa: F811
    broker = cluster(BROKER)
    tenant = tenant_create(name="Acme", slug="acme", created_by=operator)
    client = client_with(api_key_issue(tenant=tenant, scopes=["read", "write", "erase"])[1])
    hook = client.post("/api/v1/webhooks/", {"url": receiver.url, "events": ["memory.added"]}, format="json")
    hooks = f"/api/v1/webhooks/{hook.json()['id']}/deliveries/"
    logs = lambda: "\n".join(p.read_text()[-2000:] for p in tmp_path.glob("*.log"))  # noqa: E731
    try:
        receiver.answer(500)  # the first attempt fails: the next waits a minute (the first backoff)
        client.post("/api/v1/memories/", {"user_id": "u1", "content": "The user keeps bees."}, format="json")
        assert _arrivals(receiver, 1, 60) is not None, logs()
        (waiting,) = client.get(hooks).json()["results"]
        assert waiting["status"] == "pending" and waiting["attempts"] == 1 and waiting["next_attempt_at"]

        replay = client.post(f"{hooks}{waiting['id']}/replay/")
        assert replay.status_code == 202 and replay.json()["id"] == waiting["id"], replay.content
        took = _arrivals(receiver, 2, 15)
        assert took is not None and took < 10, (took, logs())
        assert _status(waiting["id"], "succeeded") == "succeeded"

        replay = client.post(f"{hooks}{waiting['id']}/replay/")  # delivered: a new delivery, sent at once
        assert replay.status_code == 202 and replay.json()["replay_of"] == waiting["id"]
        took = _arrivals(receiver, 3, 15)
        assert took is not None and took < 10, (took, logs())
        assert _status(replay.json()["id"], "succeeded") == "succeeded"
    finally:
        broker.delete_queue()
    sent = receiver.of_type("memory.added")
    assert len(sent) == 3 and len({r.headers["webhook-id"] for r in sent}) == 1
    assert [r.headers["webhook-delivery"] for r in sent].count(waiting["id"]) == 2  # no second copy
    assert WebhookDelivery.objects.count() == 2

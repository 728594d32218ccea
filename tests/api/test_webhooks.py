"""The webhook endpoints of the REST API, against a real receiver on the loopback: register (the
secret shown once), list, read, update and re-enable, delete, rotate the secret, test ping,
deliveries with their attempts, replay; who may manage which endpoints; and bad input."""

from __future__ import annotations

import pytest
from django.utils import timezone

from api.services import tenant_user_ensure
from memory_core.models import MemoryEntry
from memory_core.services import namespace_for_user
from memory_core.webhooks.models import WebhookDelivery, WebhookEndpoint
from memory_core.webhooks.signing import SignatureError, signature_verify
from tests.api.conftest import client_with

HOOKS = "/api/v1/webhooks/"


def register(client, url: str, events=("memory.added", "memory.erased")) -> dict:
    response = client.post(HOOKS, {"url": url, "events": list(events)}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_a_tenant_registers_an_endpoint_and_sees_its_secret_once(key_client, receiver):
    created = register(key_client, receiver.url)

    assert created["secret"].startswith("whsec_") and created["enabled"] is True
    assert created["events"] == ["memory.added", "memory.erased"]
    listed = key_client.get(HOOKS).json()
    assert [e["id"] for e in listed["results"]] == [created["id"]]
    shown = key_client.get(f"{HOOKS}{created['id']}/").json()
    assert "secret" not in shown and "secret" not in listed["results"][0]
    assert created["secret"] not in key_client.get(HOOKS).content.decode()


def test_a_tenant_hears_about_its_own_users_only_by_their_ids(
    key_client, tenant, other_tenant, owner, receiver, django_capture_on_commit_callbacks
):
    created = register(key_client, receiver.url)
    with django_capture_on_commit_callbacks(execute=True):
        response = key_client.post(
            "/api/v1/memories/", {"user_id": "u1", "content": "The user likes green tea."}, format="json"
        )
        assert response.status_code == 201, response.content
        # Another tenant's user and a person of the site: not this tenant's business.
        from memory_core.pipeline import memory_add

        _, theirs = tenant_user_ensure(tenant=other_tenant, external_id="u1")
        memory_add(namespace=theirs, content="The user likes black coffee.")
        memory_add(namespace=namespace_for_user(user=owner), content="The user likes cocoa.")

    (request,) = receiver.received
    signature_verify(secret=created["secret"], header=request.headers["webhook-signature"], body=request.body)
    data = request.json["data"]
    assert data["user_id"] == "u1" and "namespace" not in data
    assert data["memory"]["content"] == "The user likes green tea."


def test_erasing_through_the_api_sends_ids_not_content(
    key_client, receiver, django_capture_on_commit_callbacks
):
    register(key_client, receiver.url)
    with django_capture_on_commit_callbacks(execute=True):
        entry = key_client.post(
            "/api/v1/memories/", {"user_id": "u1", "content": "The user likes green tea."}, format="json"
        ).json()["entry"]
    with django_capture_on_commit_callbacks(execute=True):
        assert key_client.delete(f"/api/v1/memories/{entry['id']}/").status_code in (200, 204)

    erased = receiver.of_type("memory.erased")[0]
    assert "green tea" not in erased.body.decode()
    assert erased.json["data"]["memory_ids"] == [entry["id"]] and erased.json["data"]["user_id"] == "u1"
    hook = WebhookEndpoint.objects.get()
    delivered = key_client.get(f"{HOOKS}{hook.pk}/deliveries/").json()["results"]
    assert "green tea" not in str(delivered)  # the earlier delivery's payload was emptied
    added = next(d for d in delivered if d["event"]["type"] == "memory.added")
    assert added["payload"] == {"erased": True}
    replay = key_client.post(f"{HOOKS}{hook.pk}/deliveries/{added['id']}/replay/")
    assert replay.status_code == 409 and "erased" in replay.json()["detail"]


def test_ping_deliveries_and_replay(key_client, receiver, django_capture_on_commit_callbacks):
    created = register(key_client, receiver.url)
    receiver.answer(500)
    with django_capture_on_commit_callbacks(execute=True):
        ping = key_client.post(f"{HOOKS}{created['id']}/ping/")
    assert ping.status_code == 202  # accepted: sent by a task once the request commits
    assert ping.json()["event"]["type"] == "webhook.ping" and ping.json()["status"] == "pending"

    deliveries = key_client.get(f"{HOOKS}{created['id']}/deliveries/?status=pending").json()
    assert deliveries["count"] == 1
    (pinged,) = deliveries["results"]
    assert pinged["id"] == ping.json()["id"] and pinged["attempts"] == 1 and pinged["next_attempt_at"]
    assert pinged["attempt_log"][0]["status_code"] == 500
    assert pinged["attempt_log"][0]["error"] == "HTTP 500 Internal Server Error"

    with django_capture_on_commit_callbacks(execute=True):
        key_client.post(
            "/api/v1/memories/", {"user_id": "u1", "content": "The user has a cat."}, format="json"
        )
    added = WebhookDelivery.objects.get(event__type="memory.added")
    with django_capture_on_commit_callbacks(execute=True):
        replay = key_client.post(f"{HOOKS}{created['id']}/deliveries/{added.pk}/replay/")
    assert replay.status_code == 202, replay.content
    assert replay.json()["replay_of"] == str(added.pk)
    assert WebhookDelivery.objects.get(pk=replay.json()["id"]).status == "succeeded"
    sent = receiver.of_type("memory.added")
    assert len(sent) == 2 and sent[0].headers["webhook-id"] == sent[1].headers["webhook-id"]
    assert sent[0].headers["webhook-delivery"] != sent[1].headers["webhook-delivery"]
    for request in receiver.received:
        signature_verify(
            secret=created["secret"], header=request.headers["webhook-signature"], body=request.body
        )


def test_rotating_the_secret_signs_with_the_new_one_only(
    key_client, receiver, django_capture_on_commit_callbacks
):
    created = register(key_client, receiver.url)
    rotated = key_client.post(f"{HOOKS}{created['id']}/rotate-secret/")
    assert rotated.status_code == 200
    new = rotated.json()["secret"]
    assert new != created["secret"] and new.startswith("whsec_")
    with django_capture_on_commit_callbacks(execute=True):
        key_client.post(f"{HOOKS}{created['id']}/ping/")
    (request,) = receiver.received
    signature_verify(secret=new, header=request.headers["webhook-signature"], body=request.body)
    with pytest.raises(SignatureError):
        signature_verify(
            secret=created["secret"], header=request.headers["webhook-signature"], body=request.body
        )


def test_a_rotation_with_a_grace_period_signs_with_both_secrets_until_it_ends(
    key_client, receiver, django_capture_on_commit_callbacks
):
    created = register(key_client, receiver.url)
    rotated = key_client.post(
        f"{HOOKS}{created['id']}/rotate-secret/", {"grace_seconds": 3600}, format="json"
    )
    assert rotated.status_code == 200, rotated.content
    new, until = rotated.json()["secret"], rotated.json()["previous_secret_until"]
    assert until and new != created["secret"]
    with django_capture_on_commit_callbacks(execute=True):
        key_client.post(f"{HOOKS}{created['id']}/ping/")
    (during,) = receiver.received
    for secret in (new, created["secret"]):  # a receiver on either secret accepts it
        signature_verify(secret=secret, header=during.headers["webhook-signature"], body=during.body)

    # The grace period over (or cut short by the next rotation), the old secret stops.
    WebhookEndpoint.objects.filter(pk=created["id"]).update(previous_secret_until=timezone.now())
    with django_capture_on_commit_callbacks(execute=True):
        key_client.post(f"{HOOKS}{created['id']}/ping/")
    after = receiver.received[-1]
    signature_verify(secret=new, header=after.headers["webhook-signature"], body=after.body)
    with pytest.raises(SignatureError):
        signature_verify(secret=created["secret"], header=after.headers["webhook-signature"], body=after.body)
    newest = key_client.post(f"{HOOKS}{created['id']}/rotate-secret/").json()
    assert newest["previous_secret_until"] is None
    assert WebhookEndpoint.objects.get(pk=created["id"]).signing_secrets(timezone.now()) == [newest["secret"]]


@pytest.mark.parametrize(
    "body", [{"grace_seconds": -1}, {"grace_seconds": 604801}, {"grace_seconds": "soon"}, []]
)
def test_a_bad_grace_period_is_refused_and_the_secret_kept(key_client, receiver, body):
    created = register(key_client, receiver.url)
    before = WebhookEndpoint.objects.get(pk=created["id"]).secret
    answer = key_client.post(f"{HOOKS}{created['id']}/rotate-secret/", body, format="json")
    assert answer.status_code == 400
    assert "grace_seconds" in answer.json()["errors"] or "non_field_errors" in answer.json()["errors"]
    assert WebhookEndpoint.objects.get(pk=created["id"]).secret == before == created["secret"]


def test_update_disable_reenable_and_delete(
    key_client, receiver, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_DISABLE_AFTER_FAILURES = 1
    created = register(key_client, receiver.url)
    url = f"{HOOKS}{created['id']}/"
    receiver.answer(503)
    with django_capture_on_commit_callbacks(execute=True):
        key_client.post(
            "/api/v1/memories/", {"user_id": "u1", "content": "The user has a cat."}, format="json"
        )

    shown = key_client.get(url).json()
    assert shown["enabled"] is False and "1 failed attempts in a row" in shown["disabled_reason"]
    delivery = WebhookDelivery.objects.get()
    refused = key_client.post(f"{url}deliveries/{delivery.pk}/replay/")
    assert refused.status_code == 409 and "disabled" in refused.json()["detail"]

    changed = key_client.patch(
        url, {"enabled": True, "events": ["memory.corrected"], "description": "CRM"}, format="json"
    )
    assert changed.status_code == 200
    assert (
        changed.json()["enabled"]
        and changed.json()["disabled_reason"] == ""
        and changed.json()["disabled_at"] is None
    )
    assert changed.json()["events"] == ["memory.corrected"] and changed.json()["consecutive_failures"] == 0

    assert key_client.delete(url).status_code == 204
    assert key_client.get(url).status_code == 404
    assert not WebhookDelivery.objects.exists()


# --- Who may -------------------------------------------------------------------------------------


def test_another_tenant_gets_not_found(key_client, other_tenant, make_key, receiver):
    created = register(key_client, receiver.url)
    theirs = client_with(make_key(other_tenant))
    assert theirs.get(HOOKS).json()["count"] == 0
    for method, path in (
        ("get", ""),
        ("patch", ""),
        ("delete", ""),
        ("post", "ping/"),
        ("post", "rotate-secret/"),
        ("get", "deliveries/"),
    ):
        response = getattr(theirs, method)(f"{HOOKS}{created['id']}/{path}", {}, format="json")
        assert response.status_code == 404, (method, path)
    assert WebhookEndpoint.objects.get().enabled


def test_people_need_to_be_operators(owner_client, moderator, receiver):
    refused = owner_client.post(HOOKS, {"url": receiver.url, "events": ["memory.added"]}, format="json")
    assert refused.status_code == 403 and "operator" in refused.json()["detail"]
    from api.services import user_token_issue

    operator = client_with(user_token_issue(user=moderator).key)
    created = register(operator, receiver.url)
    assert WebhookEndpoint.objects.get(pk=created["id"]).audience == "operators"
    assert owner_client.get(HOOKS).status_code == 403


def test_a_key_without_read_cannot_register_a_receiver_of_memories(tenant, make_key, receiver):
    write_only = client_with(make_key(tenant, ["write"]))
    response = write_only.post(HOOKS, {"url": receiver.url, "events": ["memory.added"]}, format="json")
    assert response.status_code == 403 and "read" in response.json()["detail"]
    assert not WebhookEndpoint.objects.exists()


# --- Bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        ({"url": "ftp://hooks.example.com", "events": ["memory.added"]}, "url", "Only https://"),
        ({"url": "http://hooks.example.com/x", "events": ["memory.added"]}, "url", "loopback"),
        ({"url": "https://192.168.1.20/x", "events": ["memory.added"]}, "url", "private"),
        ({"url": "https://hooks.example.com", "events": ["memory.removed"]}, "events", "memory.removed"),
        ({"url": "https://hooks.example.com", "events": []}, "events", ""),
        ({"url": "https://hooks.example.com", "events": "memory.added"}, "events", ""),
        ({"url": 42, "events": ["memory.added"]}, "url", "string"),
        ({"events": ["memory.added"]}, "url", "required"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(key_client, body, field, says):
    response = key_client.post(HOOKS, body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["errors"], response.json()
    assert says in str(response.json()["errors"][field])
    assert not WebhookEndpoint.objects.exists()


def test_bad_updates_change_nothing(key_client, receiver):
    created = register(key_client, receiver.url)
    url = f"{HOOKS}{created['id']}/"
    for body in ({"enabled": "yes"}, {"url": "http://example.com"}, {"events": ["nope"]}):
        assert key_client.patch(url, body, format="json").status_code == 400, body
    endpoint = WebhookEndpoint.objects.get()
    assert (endpoint.url, endpoint.events, endpoint.enabled) == (receiver.url, created["events"], True)
    assert key_client.get(f"{HOOKS}not-a-uuid/").status_code == 404
    assert key_client.post(f"{url}deliveries/not-a-uuid/replay/").status_code == 404
    assert key_client.get(f"{url}deliveries/?status=sideways").status_code == 400
    assert MemoryEntry.objects.count() == 0


def test_the_documented_verification_accepts_a_delivery_and_refuses_its_replay(
    key_client, receiver, django_capture_on_commit_callbacks
):
    """The Python snippet of docs/api.md, run as a receiver would run it."""
    from pathlib import Path

    from django.conf import settings

    docs = (Path(settings.BASE_DIR) / "docs" / "api.md").read_text(encoding="utf-8")
    snippet = docs.split("### Verifying a delivery", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    namespace: dict = {}
    exec(compile(snippet, "docs/api.md", "exec"), namespace)  # noqa: S102 (our own documentation)
    created = register(key_client, receiver.url)
    with django_capture_on_commit_callbacks(execute=True):
        key_client.post(f"{HOOKS}{created['id']}/ping/")
    (request,) = receiver.received
    headers = {name.title(): value for name, value in request.headers.items()}

    assert namespace["verify"](created["secret"], headers, request.body) is True
    assert namespace["verify"](created["secret"], headers, request.body) is False  # the same id again
    namespace["seen"].clear()
    assert namespace["verify"](created["secret"], headers, request.body + b" ") is False
    assert namespace["verify"]("whsec_wrong", headers, request.body) is False

    # During a rotation's grace period the same snippet accepts either secret.
    rotated = key_client.post(f"{HOOKS}{created['id']}/rotate-secret/", {"grace_seconds": 60}, format="json")
    with django_capture_on_commit_callbacks(execute=True):
        key_client.post(f"{HOOKS}{created['id']}/ping/")
    headers = {name.title(): value for name, value in receiver.received[-1].headers.items()}
    for secret in (rotated.json()["secret"], created["secret"]):
        namespace["seen"].clear()
        assert namespace["verify"](secret, headers, receiver.received[-1].body) is True
    namespace["seen"].clear()
    assert namespace["verify"]("whsec_wrong", headers, receiver.received[-1].body) is False

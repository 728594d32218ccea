"""Webhook signing secrets are stored encrypted (`memory_core.sealed`): the database holds no secret
a receiver was given, deliveries are still signed with it, the keys can be rotated, and the
migration seals the secrets stored before it."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from memory_core.scan import scan_database
from memory_core.sealed import SealError
from memory_core.webhooks.models import WebhookEndpoint
from memory_core.webhooks.signing import signature_verify

HOOKS = "/api/v1/webhooks/"
NEW_KEY = "a-new-sealing-key-" + "x7Qm2pLr9" * 5


def _stored() -> list[tuple[str, str]]:
    """The secret columns as they are on disk."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT secret, previous_secret FROM memory_core_webhookendpoint")
        return list(cursor.fetchall())


def _ping(client, hook_id: str, receiver, capture) -> bytes:
    with capture(execute=True):
        assert client.post(f"{HOOKS}{hook_id}/ping/").status_code == 202
    request = receiver.received[-1]
    return request


@pytest.mark.django_db
def test_the_database_holds_no_signing_secret_and_deliveries_are_still_signed(
    key_client, receiver, django_capture_on_commit_callbacks
):
    created = key_client.post(HOOKS, {"url": receiver.url, "events": ["memory.added"]}, format="json").json()
    rotated = key_client.post(
        f"{HOOKS}{created['id']}/rotate-secret/", {"grace_seconds": 3600}, format="json"
    ).json()
    old, new = created["secret"], rotated["secret"]

    [(secret, previous)] = _stored()
    assert secret and previous and not secret.startswith("whsec_") and not previous.startswith("whsec_")
    for clear in (old, new):
        assert scan_database(clear) == {}  # in no column of any table
    request = _ping(key_client, created["id"], receiver, django_capture_on_commit_callbacks)
    for clear in (old, new):  # both signatures of the grace period verify
        signature_verify(secret=clear, header=request.headers["webhook-signature"], body=request.body)


@pytest.mark.django_db
def test_the_sealing_key_rotates(key_client, receiver, settings, django_capture_on_commit_callbacks):
    created = key_client.post(HOOKS, {"url": receiver.url, "events": ["memory.added"]}, format="json").json()
    [before] = _stored()

    # The new key first, the old one (SECRET_KEY) still there: what was sealed before still opens.
    settings.SEALING_KEYS = [NEW_KEY, settings.SECRET_KEY]
    call_command("reseal_secrets", stdout=open("/dev/null", "w"))  # noqa: SIM115
    [after] = _stored()
    assert after != before

    settings.SEALING_KEYS = [NEW_KEY]  # the old key dropped
    request = _ping(key_client, created["id"], receiver, django_capture_on_commit_callbacks)
    signature_verify(secret=created["secret"], header=request.headers["webhook-signature"], body=request.body)

    # A key that never sealed them opens nothing, and says which settings to look at.
    settings.SEALING_KEYS = ["an-unrelated-key-" + "k" * 40]
    with pytest.raises(SealError, match="SEALING_KEYS"):
        WebhookEndpoint.objects.get()


@pytest.mark.django_db(transaction=True)
def test_the_migration_seals_the_secrets_stored_before_it():
    executor = MigrationExecutor(connection)
    before, sealed = ("memory_core", "0022_graph_version"), ("memory_core", "0023_webhook_secrets_sealed")
    executor.migrate([before])
    try:
        old_model = (
            MigrationExecutor(connection)
            .loader.project_state([before])
            .apps.get_model("memory_core", "WebhookEndpoint")
        )
        old_model.objects.create(
            audience="operators",
            url="https://hooks.example.com/in",
            events=["memory.added"],
            secret="whsec_stored-in-clear-before",
            previous_secret="whsec_the-one-before-that",
        )
        assert _stored() == [("whsec_stored-in-clear-before", "whsec_the-one-before-that")]
    finally:
        # Forward through the sealing migration to the latest ones: later tests need the schema
        # whole (a migration added after 0023 must be applied again too).
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate([sealed])
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())

    endpoint = WebhookEndpoint.objects.get()
    assert (endpoint.secret, endpoint.previous_secret) == (
        "whsec_stored-in-clear-before",
        "whsec_the-one-before-that",
    )
    assert scan_database("stored-in-clear") == {} and scan_database("the-one-before") == {}

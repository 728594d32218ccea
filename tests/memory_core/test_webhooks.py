"""Webhooks against a real receiver on the loopback: signed deliveries of every event the engine
announces, retries with backoff, an endpoint disabled after repeated failures, erasure events
without content, and one delivery sent once when two workers run it at the same time."""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from memory_core.choices import WebhookEventType
from memory_core.erasure import memory_erase
from memory_core.errors import MemoryServiceError
from memory_core.extraction.jobs import extraction_run
from memory_core.lifecycle import memory_correct
from memory_core.models import ExtractionJob, MemoryEntry
from memory_core.moderation import procedure_approve, procedure_reject
from memory_core.pipeline import memory_add, write_request
from memory_core.pipeline_batch import memory_add_many
from memory_core.scan import scan_database
from memory_core.services import namespace_create, namespace_for_user
from memory_core.webhooks.addresses import endpoint_url_check
from memory_core.webhooks.delivery import delivery_attempt, webhook_retries_run
from memory_core.webhooks.dispatch import OPERATORS
from memory_core.webhooks.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from memory_core.webhooks.services import endpoint_create, endpoint_update, events_check
from memory_core.webhooks.signing import SignatureError, signature_verify
from tests.erasure_helpers import canary
from tests.memory_core.test_job_cluster import (
    REDIS_URL,
    cluster,  # noqa: F401 (a fixture)
)
from tests.webhook_receiver import Received

ALL = WebhookEventType.subscribable()


@pytest.fixture
def hook(receiver):
    """An operators' endpoint on the receiver, subscribed to every event; (endpoint, secret)."""
    return endpoint_create(audience=OPERATORS, url=receiver.url, events=ALL)


def verified(request: Received, secret: str) -> dict:
    signature_verify(secret=secret, header=request.headers["webhook-signature"], body=request.body)
    return request.json


def due_now(delivery: WebhookDelivery) -> None:
    """Time passes: the backoff of the delivery is over."""
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())


# --- Signed deliveries of what the engine does ------------------------------------------------------


def test_it_delivers_a_signed_memory_added_event(owner, hook, receiver, django_capture_on_commit_callbacks):
    endpoint, secret = hook
    with django_capture_on_commit_callbacks(execute=True):
        entry = memory_add(
            namespace=namespace_for_user(user=owner), content="The user likes green tea."
        ).entry

    (request,) = receiver.received
    payload = verified(request, secret)
    assert payload["type"] == "memory.added" and request.headers["webhook-event"] == "memory.added"
    assert payload["id"] == request.headers["webhook-id"]
    assert payload["data"]["memory"]["content"] == "The user likes green tea."
    assert payload["data"]["memory"]["id"] == str(entry.pk)
    assert payload["data"]["namespace"] == f"user/{owner.username}"
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("succeeded", 1, 200)
    (attempt,) = delivery.attempt_log.all()
    assert attempt.succeeded and attempt.status_code == 200 and attempt.duration_ms >= 0


def test_a_batch_of_adds_announces_each_statement_as_single_adds_do(
    owner, hook, receiver, django_capture_on_commit_callbacks
):
    _, secret = hook
    namespace = namespace_for_user(user=owner)
    with django_capture_on_commit_callbacks(execute=True):
        memory_add(namespace=namespace, content="The user plays the cello.")
    receiver.received.clear()
    with django_capture_on_commit_callbacks(execute=True):
        contents = ["The user plays the cello.", "The user keeps bees.", "The user's sister is Ana."]
        memory_add_many(namespace=namespace, requests=[write_request(content=c) for c in contents])

    received = sorted(
        (verified(r, secret)["type"], r.json["data"]["memory"]["content"]) for r in receiver.received
    )
    assert received == [
        ("memory.added", "The user keeps bees."),
        ("memory.added", "The user's sister is Ana."),
        ("memory.merged", "The user plays the cello."),
    ]


def test_a_tampered_body_an_old_timestamp_or_another_secret_fail_verification(
    owner, hook, receiver, django_capture_on_commit_callbacks
):
    _, secret = hook
    with django_capture_on_commit_callbacks(execute=True):
        memory_add(namespace=namespace_for_user(user=owner), content="The user likes green tea.")
    (request,) = receiver.received
    header = request.headers["webhook-signature"]
    timestamp = signature_verify(secret=secret, header=header, body=request.body)

    with pytest.raises(SignatureError, match="does not match"):
        signature_verify(secret=secret, header=header, body=request.body.replace(b"green", b"black"))
    with pytest.raises(SignatureError, match="does not match"):
        signature_verify(secret="whsec_someone-else", header=header, body=request.body)
    # The same request captured and replayed six minutes later: outside the 300 s window.
    with pytest.raises(SignatureError, match="tolerance"):
        signature_verify(secret=secret, header=header, body=request.body, now=timestamp + 360)
    with pytest.raises(SignatureError, match="No timestamp"):
        signature_verify(secret=secret, header="v1=abc", body=request.body)


def test_it_announces_merged_superseded_and_corrected(
    owner, hook, receiver, django_capture_on_commit_callbacks
):
    _, secret = hook
    namespace = namespace_for_user(user=owner)
    with django_capture_on_commit_callbacks(execute=True):
        first = memory_add(namespace=namespace, content="The user lives in Lisbon.").entry
        memory_add(namespace=namespace, content="The user lives in Lisbon.", source_conversation="c2")
        newer = memory_add(namespace=namespace, content="The user lives in Porto.").entry
        fixed = memory_correct(actor=owner, memory_id=newer.pk, content="The user lives in Braga.")

    types = [verified(r, secret)["type"] for r in receiver.received]
    assert types == ["memory.added", "memory.merged", "memory.superseded", "memory.corrected"]
    superseded = receiver.of_type("memory.superseded")[0].json["data"]
    assert superseded["memory"]["id"] == str(newer.pk)
    assert superseded["replaced"]["id"] == str(first.pk) and superseded["replaced"]["status"] == "superseded"
    corrected = receiver.of_type("memory.corrected")[0].json["data"]
    assert corrected["memory"]["content"] == "The user lives in Braga."
    assert (corrected["memory"]["id"], corrected["corrects"]) == (str(fixed.pk), str(newer.pk))


def test_it_announces_review_approval_and_rejection(
    owner, moderator, hook, receiver, django_capture_on_commit_callbacks
):
    namespace_create(path="org/acme", kind="org")
    namespace = namespace_for_user(user=owner)
    with django_capture_on_commit_callbacks(execute=True):
        first = memory_add(
            namespace=namespace, content="Always escalate refunds over 500 EUR.", type="procedural"
        )
        second = memory_add(namespace=namespace, content="Always greet customers by name.", type="procedural")
        procedure_approve(
            operator=moderator, memory_id=first.entry.pk, namespace_path="org/acme", reason="ok"
        )
        procedure_reject(operator=moderator, memory_id=second.entry.pk, reason="Not our policy.")

    types = [r.json["type"] for r in receiver.received]
    assert types == ["memory.pending_review", "memory.pending_review", "memory.approved", "memory.rejected"]
    approved = receiver.of_type("memory.approved")[0].json["data"]
    assert approved["namespace"] == "org/acme" and approved["proposal_id"] == str(first.entry.pk)
    assert approved["memory"]["status"] == "active"
    rejected = receiver.of_type("memory.rejected")[0].json["data"]
    assert (rejected["memory"]["id"], rejected["reason"]) == (str(second.entry.pk), "Not our policy.")


def test_it_announces_extraction_finished_and_failed(
    owner, hook, receiver, openai_server, django_capture_on_commit_callbacks
):
    namespace = namespace_for_user(user=owner)
    failing = ExtractionJob.objects.create(
        namespace=namespace,
        idempotency_key="wh-fail",
        messages=[{"id": "u1", "role": "user", "content": "I live in Oslo.", "created_at": None}],
    )
    openai_server.reply_raw("Sure! The user lives in Oslo.", times=2)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(Exception):  # noqa: B017
        extraction_run(job_id=failing.pk)
    failed = receiver.of_type("extraction.failed")[0].json["data"]
    assert failed["job"]["id"] == failing.pk and failed["will_retry"] is True
    assert "Oslo" not in receiver.of_type("extraction.failed")[0].body.decode()

    openai_server.reply_json({"memories": []})
    with django_capture_on_commit_callbacks(execute=True):
        extraction_run(job_id=failing.pk)
    finished = receiver.of_type("extraction.finished")[0].json["data"]["job"]
    assert finished["id"] == failing.pk and finished["status"] == "done"
    assert "Oslo" not in receiver.of_type("extraction.finished")[0].body.decode()


def test_an_endpoint_created_disabled_or_enabled_between_two_adds_is_heard_at_the_next_one(
    owner, receiver, django_capture_on_commit_callbacks
):
    # The pipeline reads whether anyone listens with every write (no per-worker cache to go stale).
    namespace = namespace_for_user(user=owner)
    with django_capture_on_commit_callbacks(execute=True):
        memory_add(namespace=namespace, content="The user keeps bees.")
    endpoint, _ = endpoint_create(audience=OPERATORS, url=receiver.url, events=["memory.added"])
    with django_capture_on_commit_callbacks(execute=True):
        memory_add(namespace=namespace, content="The user plays the cello.")
    endpoint_update(endpoint=endpoint, enabled=False)
    with django_capture_on_commit_callbacks(execute=True):
        memory_add_many(namespace=namespace, requests=[write_request(content="The user's sister is Ana.")])
    endpoint_update(endpoint=endpoint, enabled=True)
    with django_capture_on_commit_callbacks(execute=True):
        memory_add_many(namespace=namespace, requests=[write_request(content="The user owns a kayak.")])

    assert [r.json["data"]["memory"]["content"] for r in receiver.received] == [
        "The user plays the cello.",
        "The user owns a kayak.",
    ]


def test_nothing_is_sent_for_what_changes_nothing_or_is_rolled_back(
    owner, hook, receiver, django_capture_on_commit_callbacks
):
    namespace = namespace_for_user(user=owner)
    with django_capture_on_commit_callbacks(execute=True):
        memory_add(namespace=namespace, content="My password is hunter2-Zq81!")  # refused: a secret
        with pytest.raises(MemoryServiceError):
            memory_add(namespace=namespace, content="   ")
    assert receiver.received == []
    assert not WebhookEvent.objects.exists()


def test_an_endpoint_gets_only_the_events_it_subscribed_to(
    owner, receiver, django_capture_on_commit_callbacks
):
    endpoint_create(audience=OPERATORS, url=receiver.url, events=["memory.erased"])
    namespace = namespace_for_user(user=owner)
    with django_capture_on_commit_callbacks(execute=True):
        entry = memory_add(namespace=namespace, content="The user likes green tea.").entry
        memory_erase(actor=owner, memory_id=entry.pk)
    assert [r.json["type"] for r in receiver.received] == ["memory.erased"]


# --- Erasure ---------------------------------------------------------------------------------------


def test_erasure_events_carry_ids_and_counts_only_and_earlier_payloads_are_emptied(
    owner, hook, receiver, django_capture_on_commit_callbacks
):
    word = canary()
    namespace = namespace_for_user(user=owner)
    with django_capture_on_commit_callbacks(execute=True):
        old = memory_add(namespace=namespace, content=f"The user lives in {word}ville.").entry
        new = memory_add(namespace=namespace, content=f"The user lives in {word}burg.").entry
        memory_erase(actor=owner, memory_id=new.pk)  # with its older version

    erased = receiver.of_type("memory.erased")[0]
    assert word not in erased.body.decode()
    data = erased.json["data"]
    assert sorted(data["memory_ids"]) == sorted([str(old.pk), str(new.pk)])
    assert (data["memory_count"], data["scope"], data["memory_ids_truncated"]) == (2, "one", False)
    assert set(data) == {"namespace", "memory_ids", "memory_count", "scope", "memory_ids_truncated"}
    # The delivery log kept no copy of the statements that went.
    assert scan_database(word) == {}
    assert WebhookEvent.objects.filter(type="memory.added").get().payload == {"erased": True}


def test_a_retry_of_an_erased_memory_is_never_sent(owner, hook, receiver, django_capture_on_commit_callbacks):
    word = canary()
    receiver.answer(503)
    namespace = namespace_for_user(user=owner)
    with django_capture_on_commit_callbacks(execute=True):
        entry = memory_add(namespace=namespace, content=f"The user lives in {word}ville.").entry
    added = WebhookDelivery.objects.get(event__type="memory.added")
    assert added.status == "pending"

    with django_capture_on_commit_callbacks(execute=True):
        memory_erase(actor=owner, memory_id=entry.pk)
        due_now(added)
        webhook_retries_run()

    added.refresh_from_db()
    assert added.status == "cancelled" and "erased" in added.last_error
    assert [r.json.get("type") for r in receiver.received] == ["memory.added", "memory.erased"]
    assert scan_database(word) == {}


# --- Retries, backoff, disabling -------------------------------------------------------------------


def test_it_retries_with_exponential_backoff_until_the_receiver_answers(
    owner, hook, receiver, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_RETRY_BASE_SECONDS = 60
    _, secret = hook
    receiver.answer(500, 503)
    with django_capture_on_commit_callbacks(execute=True):
        memory_add(namespace=namespace_for_user(user=owner), content="The user likes green tea.")
    delivery = WebhookDelivery.objects.get()
    waits = []
    for _ in range(2):
        delivery.refresh_from_db()
        assert delivery.status == "pending"
        waits.append((delivery.next_attempt_at - delivery.attempt_log.last().created_at).total_seconds())
        with django_capture_on_commit_callbacks(execute=True):
            assert webhook_retries_run() == 0  # not due yet
            due_now(delivery)
            assert webhook_retries_run() == 1

    delivery.refresh_from_db()
    assert delivery.status == "succeeded" and delivery.attempts == 3
    assert [round(w / 10) * 10 for w in waits] == [60, 120]  # doubled after each failure
    log = list(delivery.attempt_log.values_list("number", "status_code", "succeeded"))
    assert log == [(1, 500, False), (2, 503, False), (3, 200, True)]
    assert delivery.attempt_log.first().error == "HTTP 500 Internal Server Error"
    # Every attempt carried the same event id, each with its own valid signature.
    assert len({r.headers["webhook-id"] for r in receiver.received}) == 1
    assert all(verified(r, secret) for r in receiver.received)
    assert [r.headers["webhook-attempt"] for r in receiver.received] == ["1", "2", "3"]


def test_a_delivery_gives_up_after_the_last_attempt(
    owner, hook, receiver, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_MAX_ATTEMPTS = 2
    receiver.answer(500, 500, 500)
    with django_capture_on_commit_callbacks(execute=True):  # the tasks run when each block ends
        memory_add(namespace=namespace_for_user(user=owner), content="The user likes green tea.")
    delivery = WebhookDelivery.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        due_now(delivery)
        assert webhook_retries_run() == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.next_attempt_at) == ("failed", 2, None)
    assert webhook_retries_run() == 0


def test_an_unreachable_endpoint_is_logged_as_an_error(owner, settings, django_capture_on_commit_callbacks):
    endpoint_create(audience=OPERATORS, url="http://127.0.0.1:9/hooks", events=ALL)  # nobody listens
    settings.WEBHOOK_TIMEOUT_SECONDS = 2
    with django_capture_on_commit_callbacks(execute=True):
        memory_add(namespace=namespace_for_user(user=owner), content="The user likes green tea.")
    attempt = WebhookDelivery.objects.get().attempt_log.get()
    assert attempt.status_code is None and attempt.error.startswith("ConnectError")


def test_an_endpoint_that_keeps_failing_is_disabled_with_a_notice(
    owner, receiver, settings, caplog, mailoutbox, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_DISABLE_AFTER_FAILURES = 3
    settings.ADMINS = [("Ops", "ops@example.com")]
    failing, _ = endpoint_create(audience=OPERATORS, url=receiver.url + "/broken", events=["memory.added"])
    watcher, _ = endpoint_create(audience=OPERATORS, url=receiver.url + "/watch", events=["webhook.disabled"])
    receiver.answer(500, 502, 500)
    namespace = namespace_for_user(user=owner)
    with caplog.at_level(logging.WARNING), django_capture_on_commit_callbacks(execute=True):
        memory_add(namespace=namespace, content="The user likes green tea.")
        memory_add(namespace=namespace, content="The user has a cat.")
        memory_add(namespace=namespace, content="The user plays chess.")
    with django_capture_on_commit_callbacks(execute=True):
        memory_add(namespace=namespace, content="The user reads novels.")  # after: nothing queued

    failing.refresh_from_db()
    assert not failing.enabled and failing.disabled_at is not None
    assert "3 failed attempts in a row" in failing.disabled_reason
    assert WebhookDelivery.objects.filter(endpoint=failing).count() == 3
    assert not WebhookDelivery.objects.filter(endpoint=failing, status="pending").exists()
    notice = [r for r in receiver.received if r.path.endswith("/watch")]
    assert [r.json["type"] for r in notice] == ["webhook.disabled"]
    assert notice[0].json["data"]["endpoint"]["id"] == str(failing.pk)
    assert "disabled" in caplog.text and str(failing.pk) in caplog.text
    assert mailoutbox and "Webhook endpoint disabled" in mailoutbox[0].subject
    assert WebhookEndpoint.objects.get(pk=watcher.pk).enabled


def test_a_success_resets_the_failure_count(
    owner, hook, receiver, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_DISABLE_AFTER_FAILURES = 2
    endpoint, _ = hook
    receiver.answer(500, 200, 500)
    namespace = namespace_for_user(user=owner)
    with django_capture_on_commit_callbacks(execute=True):
        for text in ("The user has a cat.", "The user plays chess.", "The user reads novels."):
            memory_add(namespace=namespace, content=text)
    endpoint.refresh_from_db()
    assert endpoint.enabled and endpoint.consecutive_failures == 1


# --- Concurrency ---------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_two_workers_running_one_delivery_send_it_once(receiver):
    endpoint, _ = endpoint_create(audience=OPERATORS, url=receiver.url, events=ALL)
    release = threading.Event()
    receiver.answer(200, hold=release)  # the first request waits until the second worker has tried
    event = WebhookEvent.objects.create(type=WebhookEventType.PING, audience=OPERATORS, payload={"data": {}})
    # As the outbox leaves it: pending, due, its task queued (twice, by an at-least-once broker).
    delivery = WebhookDelivery.objects.create(event=event, endpoint=endpoint, next_attempt_at=timezone.now())
    results: dict[str, object] = {}

    def worker(name: str) -> None:
        try:
            results[name] = delivery_attempt(delivery_id=delivery.pk)
        finally:
            connection.close()

    first = threading.Thread(target=worker, args=("first",))
    first.start()
    assert receiver.arrived.wait(10)  # the first worker is waiting for the receiver's answer
    worker("second")
    release.set()
    first.join(10)

    assert results["second"] is None  # claimed by the first: nothing sent
    assert len(receiver.received) == 1
    delivery.refresh_from_db()
    assert delivery.status == "succeeded" and delivery.attempts == delivery.attempt_log.count() == 1


# --- Bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://hooks.example.com/x", "Only https://"),
        ("javascript:alert(1)", "Only https://"),
        ("http://hooks.example.com/x", "only on the loopback"),
        ("https://10.0.0.5/x", "private"),
        ("https://169.254.169.254/latest/meta-data", "private"),
        ("https://user:pw@hooks.example.com/x", "Credentials"),
        ("https://hooks.example.com/x#frag", "fragment"),
        ("https:///x", "no valid host"),
        ("https://hooks.example.com:99999/x", "Not a valid URL"),
        ("", "required"),
    ],
)
def test_it_refuses_urls_and_says_why(db, url, why):
    with pytest.raises(MemoryServiceError, match=why) as error:
        endpoint_url_check(url)
    assert why in error.value.field_errors["url"][0]


def test_loopback_is_refused_unless_allowed(db, settings):
    settings.WEBHOOK_ALLOW_LOOPBACK = False
    with pytest.raises(MemoryServiceError, match="WEBHOOK_ALLOW_LOOPBACK"):
        endpoint_url_check("http://127.0.0.1:8000/hooks")
    assert endpoint_url_check("https://hooks.example.com/x") == "https://hooks.example.com/x"


def test_it_refuses_unknown_event_types_by_name(db):
    with pytest.raises(MemoryServiceError, match=r"'memory\.deleted'") as error:
        events_check(["memory.added", "memory.deleted"])
    assert "memory.erased" in error.value.field_errors["events"][0]  # the known ones are listed
    with pytest.raises(MemoryServiceError, match="non-empty"):
        events_check([])
    with pytest.raises(MemoryServiceError):
        events_check(["webhook.ping"])  # sent on request only
    assert not WebhookEndpoint.objects.exists()


def test_the_database_refuses_an_endpoint_without_valid_events(db):
    from django.db import IntegrityError

    with pytest.raises(IntegrityError):
        WebhookEndpoint.objects.create(
            audience=OPERATORS, url="https://x.example", events=["nope"], secret="s"
        )


def test_the_retry_sweep_is_installed(db):
    from django.core.management import call_command
    from django_q.models import Schedule

    call_command("setup_schedules")
    schedule = Schedule.objects.get(name="webhook-retries")
    assert (schedule.func, schedule.minutes) == ("memory_core.tasks.run_webhook_retries", 1)


def test_an_old_delivery_whose_task_was_lost_is_queued_again(
    owner, hook, receiver, django_capture_on_commit_callbacks
):
    namespace = namespace_for_user(user=owner)
    memory_add(namespace=namespace, content="The user likes green tea.")  # committed callbacks never run
    delivery = WebhookDelivery.objects.get()
    assert receiver.received == [] and delivery.status == "pending"
    with django_capture_on_commit_callbacks(execute=True):
        assert webhook_retries_run() == 0  # its task may still be waiting in the queue
        WebhookDelivery.objects.filter(pk=delivery.pk).update(queued_at=timezone.now() - timedelta(hours=1))
        assert webhook_retries_run() == 1
    delivery.refresh_from_db()
    assert delivery.status == "succeeded" and len(receiver.received) == 1
    assert MemoryEntry.objects.count() == 1


# --- Through a real cluster ----------------------------------------------------------------------


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_cluster_process_delivers_through_the_redis_broker(cluster, receiver, tmp_path):  # noqa: F811
    """The task as production runs it: queued on Redis, taken by a `qcluster` process, signed and
    sent to the receiver in this process."""
    from django_q.tasks import async_task

    broker = cluster(REDIS_URL)
    endpoint, secret = endpoint_create(audience=OPERATORS, url=receiver.url, events=ALL)
    event = WebhookEvent.objects.create(type=WebhookEventType.PING, audience=OPERATORS, payload={"data": {}})
    delivery = WebhookDelivery.objects.create(event=event, endpoint=endpoint, next_attempt_at=timezone.now())
    try:
        async_task("memory_core.tasks.webhook_deliver", str(delivery.pk), sync=False, broker=broker)
        assert receiver.arrived.wait(60), "\n".join(p.read_text()[-2000:] for p in tmp_path.glob("*.log"))
        for _ in range(100):
            delivery.refresh_from_db()
            if delivery.status != "pending":
                break
            threading.Event().wait(0.2)
    finally:
        broker.delete_queue()
    assert delivery.status == "succeeded"
    (request,) = receiver.received
    assert verified(request, secret) == {"data": {}}

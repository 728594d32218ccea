"""The recall log: one statement per recall, bounded by RECALL_LOG_RETENTION_DAYS."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from memory_core.lifecycle import activity_log
from memory_core.models import RecallLog
from memory_core.recall import memory_recall
from memory_core.tasks import run_forgetting
from tests.memory_core.helpers import remember

pytestmark = pytest.mark.django_db


def test_it_records_counts_and_log_rows_in_one_statement(owner, django_assert_num_queries):
    from memory_core.recall import log as recall_log

    remember(owner, "I like green tea best")
    remember(owner, "I drink coffee in the morning")
    result = memory_recall(actor=owner, query="what do I drink?", record=False)
    assert len(result.items) == 2

    with django_assert_num_queries(1):
        recall_log.record(result)

    logs = list(RecallLog.objects.filter(turn_ref=result.turn_ref).order_by("rank"))
    assert [log.entry_id for log in logs] == [item.entry.pk for item in result.items]
    assert [log.score for log in logs] == [item.score for item in result.items]
    assert all(log.namespace_id == result.items[0].entry.namespace_id for log in logs)
    for item in result.items:
        item.entry.refresh_from_db()
        assert item.entry.access_count == 1


def _age_logs(days: int) -> None:
    RecallLog.objects.update(created_at=timezone.now() - timedelta(days=days))


def test_the_forgetting_schedule_deletes_log_rows_past_the_retention_and_keeps_the_counts(owner, settings):
    settings.RECALL_LOG_RETENTION_DAYS = 30
    tea = remember(owner, "I like green tea best")
    memory_recall(actor=owner, query="tea", turn_ref="chat:old")
    _age_logs(31)
    memory_recall(actor=owner, query="tea", turn_ref="chat:new")

    report = run_forgetting()

    assert report["recall_log_pruned"] == 1
    assert list(RecallLog.objects.values_list("turn_ref", flat=True)) == ["chat:new"]
    tea.refresh_from_db()
    assert tea.access_count == 2  # the aggregate of the deleted rows stays on the entry
    recalls = [a for a in activity_log(actor=owner) if a.action == "recalled"]
    assert [a.turn_ref for a in recalls] == ["chat:new"]


def test_the_forget_command_prunes_too_and_zero_keeps_everything(owner, settings):
    remember(owner, "I like green tea best")
    memory_recall(actor=owner, query="tea", turn_ref="chat:old")
    _age_logs(400)

    settings.RECALL_LOG_RETENTION_DAYS = 0
    out = StringIO()
    call_command("forget", stdout=out)
    assert RecallLog.objects.count() == 1
    assert "Recall log: 0 rows" in out.getvalue()

    settings.RECALL_LOG_RETENTION_DAYS = 365
    call_command("forget", stdout=out)
    assert RecallLog.objects.count() == 0


def test_an_entry_erased_since_the_recall_found_it_is_not_logged(owner):
    """Recall reads its candidates, then logs the returned ones in a later statement: an entry
    erased in between is skipped (not a foreign-key error that would fail the whole recall)."""
    from memory_core.recall import log as recall_log

    tea = remember(owner, "I like green tea best")
    gone = remember(owner, "I drink coffee in the morning")
    namespace_id, gone_id = gone.namespace_id, gone.pk
    gone.delete()

    rows = recall_log.record_items(
        turn_ref="chat:race",
        items=[(namespace_id, gone_id, 0.9), (tea.namespace_id, tea.pk, 0.8)],
        then="SELECT id FROM memory_core_memoryentry WHERE id = ANY(%(loaded)s::uuid[])",
        then_params={"loaded": [gone_id, tea.pk]},
    )

    assert [row[0] for row in rows] == [tea.pk]
    logged = RecallLog.objects.filter(turn_ref="chat:race").values_list("entry_id", "rank")
    assert list(logged) == [(tea.pk, 2)]
    tea.refresh_from_db()
    assert tea.access_count == 1


def _synchronous_commit() -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_a_recall_on_its_own_is_recorded_for_everyone_to_see_and_changes_no_setting(owner):
    """Outside any transaction the log's statement commits without waiting for the WAL flush:
    its rows are still written whole and seen at once by other connections, and the session's
    own setting stays as it was for whatever it writes next."""
    import threading

    from django.db import connection, connections

    tea = remember(owner, "I like green tea best")
    assert not connection.in_atomic_block

    result = memory_recall(actor=owner, query="which tea do I like?", turn_ref="chat:alone")

    assert [item.entry.pk for item in result.items] == [tea.pk]
    assert _synchronous_commit() == "on"
    seen: list[tuple[int, int]] = []

    def other_connection() -> None:  # a page open in another worker
        seen.append(
            (
                RecallLog.objects.filter(turn_ref="chat:alone", entry_id=tea.pk).count(),
                type(tea).objects.get(pk=tea.pk).access_count,
            )
        )
        connections.close_all()

    reader = threading.Thread(target=other_connection)
    reader.start()
    reader.join()
    assert seen == [(1, 1)]


def test_inside_a_callers_transaction_the_recall_commits_as_the_caller_does(owner):
    from django.db import connection, transaction

    remember(owner, "I like green tea best")
    with transaction.atomic():
        assert connection.in_atomic_block
        memory_recall(actor=owner, query="which tea do I like?", turn_ref="chat:inside")
        assert _synchronous_commit() == "on"  # the caller's other writes still wait for the flush
    assert RecallLog.objects.filter(turn_ref="chat:inside").count() == 1

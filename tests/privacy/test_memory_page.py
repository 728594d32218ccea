"""The page of one memory: statement, versions before → after, sources, uses, the operator's
decision, and 404 alike for missing and someone else's."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from memory_core.lifecycle import memory_correct
from memory_core.models import MemoryEntry, Namespace
from memory_core.moderation import procedure_approve, procedure_reject
from memory_core.pipeline import memory_add
from memory_core.services import namespace_create, namespace_for_user
from tests.chat.helpers import client_for, say
from tests.chat.helpers import conversation as new_conversation
from tests.memory_core.helpers import remember

pytestmark = pytest.mark.django_db


def test_it_shows_the_statement_its_source_and_where_it_was_used(owner):
    conversation = new_conversation(owner)
    message, _ = say(owner, conversation, "Remember that I live in Lisbon.")
    entry = MemoryEntry.objects.get(namespace__owner=owner)
    ask, _ = say(owner, conversation, "Where do I live?")

    html = client_for(owner).get(reverse("privacy:memory", args=[entry.pk])).content.decode()

    assert entry.content in html and "Active" in html
    assert f'href="/c/{conversation.pk}/#m-{message.pk}"' in html  # the source message
    assert f'href="/c/{conversation.pk}/#m-{ask.pk}"' in html  # the turn that used it
    assert "Where it was used (" in html
    assert reverse("privacy:erase", args=[entry.pk]) in html


def test_a_correction_shows_before_and_after_once_and_the_old_version_points_to_the_current(owner):
    old = remember(owner, "The user lives in Lisbon.")
    new = memory_correct(actor=owner, memory_id=old.pk, content="The user lives in Porto.", reason="I moved")
    client = client_for(owner)

    current = client.get(reverse("privacy:memory", args=[new.pk])).content.decode()
    assert (
        "<del>The user lives in Lisbon.</del>" in current and "<ins>The user lives in Porto.</ins>" in current
    )
    assert current.count("I moved") == 2  # once in the change, once in the history: never twice there
    history = current[current.index('id="history"') :]
    assert history.count("I moved") == 1 and "from “The user lives in Lisbon.”" in history

    older = client.get(reverse("privacy:memory", args=[old.pk])).content.decode()
    assert "This is an older version" in older
    assert f'href="{reverse("privacy:memory", args=[new.pk])}"' in older


def test_the_user_sees_whether_an_operator_approved_or_rejected_their_rule(owner, moderator):
    namespace_create(path="org/acme", kind="org")
    ns = namespace_for_user(user=owner)
    kept = memory_add(namespace=ns, content="Always greet me in Portuguese.", type="procedural").entry
    refused = memory_add(namespace=ns, content="Never ask me to confirm refunds.", type="procedural").entry
    procedure_approve(operator=moderator, memory_id=kept.pk, namespace_path="org/acme", reason="Fine")
    procedure_reject(operator=moderator, memory_id=refused.pk, reason="Refunds need confirmation")
    client = client_for(owner)

    approved = client.get(reverse("privacy:memory", args=[kept.pk])).content.decode()
    assert "An operator approved this rule" in approved and "org/acme" in approved
    rejected = client.get(reverse("privacy:memory", args=[refused.pk])).content.decode()
    assert "An operator rejected this rule" in rejected and "Refunds need confirmation" in rejected
    index = client.get(reverse("privacy:index")).content.decode()
    assert "approved" in index and "rejected" in index and str(refused.pk) in index


def test_the_chat_tells_the_user_the_outcome_of_their_rule_once(owner, moderator):
    namespace_create(path="org/acme", kind="org")
    ns = namespace_for_user(user=owner)
    kept = memory_add(namespace=ns, content="Always greet me in Portuguese.", type="procedural").entry
    refused = memory_add(namespace=ns, content="Never ask me to confirm refunds.", type="procedural").entry
    client = client_for(owner)
    assert "An operator" not in client.get("/").content.decode()  # nothing decided yet

    procedure_approve(operator=moderator, memory_id=kept.pk, namespace_path="org/acme")
    page = client.get("/").content.decode()
    assert "An operator approved the rule you asked for" in page
    assert f'href="{reverse("privacy:memory", args=[kept.pk])}"' in page
    assert "An operator" not in client.get("/").content.decode()  # told once in chat

    procedure_reject(operator=moderator, memory_id=refused.pk, reason="Refunds need confirmation")
    page = client.get(f"/c/{new_conversation(owner).pk}/").content.decode()
    assert "An operator rejected the rule you asked for" in page and "Refunds need confirmation" in page
    assert "An operator approved" not in page
    index = client.get(reverse("privacy:index")).content.decode()  # /me/ keeps both for 30 days
    assert str(kept.pk) in index and str(refused.pk) in index


@pytest.mark.parametrize("intruder", ["other_user", "moderator"])
def test_someone_elses_memory_and_a_missing_one_are_both_not_found(request, owner, intruder):
    entry = remember(owner, "The user is allergic to peanuts.")
    client = client_for(request.getfixturevalue(intruder))
    assert client.get(reverse("privacy:memory", args=[entry.pk])).status_code == 404
    assert client.get(reverse("privacy:memory", args=[uuid.uuid4()])).status_code == 404


def test_the_default_org_namespace_is_there_and_approving_preselects_it(owner, moderator):
    # The first migrate creates it; a database emptied since (as transactional tests do) gets it back
    # when an operator opens moderation.
    client_for(moderator).get(reverse("privacy:moderation"))
    assert Namespace.objects.filter(path="org/default", kind="org").exists()
    proposal = memory_add(
        namespace=namespace_for_user(user=owner), content="Always greet me in Portuguese.", type="procedural"
    ).entry
    html = client_for(moderator).get(reverse("privacy:moderation")).content.decode()
    form = html[html.index(reverse("privacy:procedure_approve", args=[proposal.pk])) :]
    assert '<option value="org/default" selected>org/default (default) · 0 users read it</option>' in form
    response = client_for(moderator).post(
        reverse("privacy:procedure_approve", args=[proposal.pk]), {"namespace_path": "org/default"}
    )
    assert response.status_code == 302
    assert MemoryEntry.objects.filter(namespace__path="org/default", status="active").count() == 1

"""What a turn teaches shows at its reply (issue 32, item 2): offline, each turn is learned from as
soon as it is answered, so a fact said in passing gets "Memory updated" with a link and Undo there,
not only "remember that …"; while the job runs the turn says so and polls itself. Offline replies
say the offline notice once per conversation, in the language the user wrote in."""

from __future__ import annotations

import pytest
from django.urls import reverse

from chat.models import Message
from memory_core.extraction.jobs import extraction_run
from memory_core.llm import OFFLINE_PREAMBLE
from memory_core.models import ExtractionJob, ExtractionStatus, MemoryEntry
from tests.chat.helpers import client_for, conversation, remember, say

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _each_turn(settings):
    settings.CHAT_LEARN_EACH_TURN_OFFLINE = True


def send(client, conv, text: str, capture) -> tuple[Message, str]:
    """Send through the chat's form (no JavaScript) and return the message and its turn's HTML."""
    with capture(execute=True):  # the job queued on commit runs (django-q's sync mode)
        response = client.post(reverse("chat:send", args=[conv.pk]), {"content": text})
    assert response.status_code == 302
    message = Message.objects.filter(conversation=conv, role="user").order_by("-id").first()
    page = client.get(reverse("chat:conversation", args=[conv.pk])).content.decode()
    return message, page.split(f'id="m-{message.pk}"', 1)[1].split('<li class="turn"', 1)[0]


def test_a_fact_said_in_passing_is_shown_at_its_reply_with_undo(owner, django_capture_on_commit_callbacks):
    client, conv = client_for(owner), conversation(owner)
    message, turn = send(
        client,
        conv,
        "Quick one: my brother's a carpenter, and I'm allergic to sesame.",
        django_capture_on_commit_callbacks,
    )
    learned = {e.content: e for e in MemoryEntry.objects.visible_to(owner)}
    assert set(learned) >= {"The user's brother works as a carpenter.", "The user is allergic to sesame."}
    assert "Memory updated" in turn
    for entry in learned.values():
        assert f'href="/me/memories/{entry.pk}/"' in turn
    sesame = learned["The user is allergic to sesame."]
    undo = reverse("chat:memory_undo", args=[conv.pk, message.pk, sesame.pk])
    assert f'action="{undo}"' in turn

    response = client.post(undo)
    assert response.status_code == 302 and not MemoryEntry.objects.filter(pk=sesame.pk).exists()
    # Learning the conversation again (the end, the idle sweep) does not bring it back.
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("chat:end", args=[conv.pk]))
    for job in ExtractionJob.objects.all():
        extraction_run(job_id=job.pk)
    assert not MemoryEntry.objects.filter(content="The user is allergic to sesame.").exists()


def test_a_turn_still_being_learned_from_says_so_and_polls_itself(owner):
    client, conv = client_for(owner), conversation(owner)
    # The job is queued on commit and not run here: as with a busy worker.
    client.post(reverse("chat:send", args=[conv.pk]), {"content": "My wife works in finance."})
    message = Message.objects.get(conversation=conv, role="user")
    job = ExtractionJob.objects.get()
    assert job.status == ExtractionStatus.QUEUED and job.trigger == "turn"
    turn_url = reverse("chat:turn", args=[conv.pk, message.pk])
    page = client.get(reverse("chat:conversation", args=[conv.pk])).content.decode()
    assert "Learning from this message…" in page and f'hx-get="{turn_url}"' in page

    extraction_run(job_id=job.pk)
    turn = client.get(turn_url, headers={"HX-Request": "true"}).content.decode()
    assert "Learning from this message…" not in turn
    assert "Memory updated" in turn and "The user&#x27;s wife works in finance." in turn


def test_the_offline_notice_is_said_once_per_conversation(owner, django_capture_on_commit_callbacks):
    client, conv = client_for(owner), conversation(owner)
    for text in ("Hello there.", "What is the weather like?", "Tell me a joke."):
        send(client, conv, text, django_capture_on_commit_callbacks)
    replies = list(Message.objects.filter(conversation=conv, role="assistant").order_by("id"))
    assert [str(OFFLINE_PREAMBLE) in r.content for r in replies] == [True, False, False]
    other = conversation(owner)  # a new conversation says it again, once
    send(client, other, "Hello again.", django_capture_on_commit_callbacks)
    assert str(OFFLINE_PREAMBLE) in Message.objects.get(conversation=other, role="assistant").content


def test_offline_replies_speak_chinese_to_a_chinese_message(owner, django_capture_on_commit_callbacks):
    client, conv = client_for(owner), conversation(owner)
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    _message, turn = send(client, conv, "我对花生过敏\uff0c很严重。", django_capture_on_commit_callbacks)
    reply = Message.objects.get(conversation=conv, role="assistant").content
    assert "language model" not in reply and "memories" not in reply
    assert "离线" in reply
    assert "Memory updated" not in turn and "用户对花生过敏。" in turn
    # The next reply lists it as a person reads it: the statement and its date, no English labels.
    send(client, conv, "我能吃什么\uff1f", django_capture_on_commit_callbacks)
    second = Message.objects.filter(conversation=conv, role="assistant").order_by("-id").first().content
    assert "用户对花生过敏。 (" in second and "source:" not in second and "[fact" not in second
    assert "离线模式" not in second  # said once per conversation


def test_a_memory_resting_on_the_reply_shows_at_that_turn_and_can_be_undone(owner):
    conv = conversation(owner)
    message, reply = say(owner, conv, "Which tea goes with lunch?")
    entry = remember(
        owner,
        "The user drinks jasmine tea with lunch.",
        source_kind="extracted",
        source_conversation=str(conv.pk),
        source_message_ids=(str(reply.pk),),
    )
    client = client_for(owner)
    page = client.get(reverse("chat:conversation", args=[conv.pk])).content.decode()
    turn = page.split(f'id="m-{message.pk}"', 1)[1]
    assert "Memory updated" in turn and f'href="/me/memories/{entry.pk}/"' in turn
    assert client.post(reverse("chat:memory_undo", args=[conv.pk, message.pk, entry.pk])).status_code == 302
    assert not MemoryEntry.objects.filter(pk=entry.pk).exists()


def test_what_a_turn_only_said_again_has_no_undo_that_would_erase_it(
    owner, django_capture_on_commit_callbacks
):
    client = client_for(owner)
    first, second = conversation(owner), conversation(owner)
    _message, turn = send(
        client, first, "Remember that I take the train on Tuesdays.", django_capture_on_commit_callbacks
    )
    assert "Undo" in turn
    entry = MemoryEntry.objects.get(namespace__owner=owner, content__icontains="train")

    message, turn = send(
        client, second, "Remember that I take the train on Tuesdays.", django_capture_on_commit_callbacks
    )
    assert "Memory updated" in turn and "The user takes the train on Tuesdays." in turn
    assert "known before, said again" in turn and "Undo" not in turn
    undo = reverse("chat:memory_undo", args=[second.pk, message.pk, entry.pk])
    assert client.post(undo).status_code == 404
    assert MemoryEntry.objects.filter(pk=entry.pk).exists()  # learned in the first conversation: kept

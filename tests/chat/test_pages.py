"""The chat page and its partials: full page vs htmx partial, banners, memories used, escaping."""

from __future__ import annotations

import pytest

from chat.models import Message
from memory_core.models import RecallLog
from tests.chat.helpers import client_for, conversation, pause_memory, remember, say

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


def test_it_shows_the_chat_page_with_the_conversation_list(owner, other_user):
    older = conversation(owner, title="Older")
    newer = conversation(owner, title="Newer")
    say(owner, newer, "hi")
    conversation(other_user, title="Bob's secret")
    page = client_for(owner).get("/").content.decode()
    assert "<html" in page and 'id="pane"' in page and 'id="composer"' in page
    assert page.index("Newer") < page.index("Older")  # most recent first
    assert "Bob&#x27;s secret" not in page and "Bob's secret" not in page
    assert f'href="/c/{older.pk}/"' in page
    assert 'action="/new/"' in page and "New incognito conversation" in page


def test_it_renders_only_the_pane_for_htmx(owner):
    conv = conversation(owner, title="Trip")
    for url in ("/", f"/c/{conv.pk}/"):
        page = client_for(owner).get(url, HTTP_HX_REQUEST="true").content.decode()
        assert page.lstrip().startswith('<section id="pane"')
        assert "<html" not in page and "New incognito conversation" not in page


def test_it_renders_the_whole_page_to_restore_history(owner):
    conv = conversation(owner)
    response = client_for(owner).get(
        f"/c/{conv.pk}/", HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true"
    )
    assert "<html" in response.content.decode()


def test_it_shows_the_turns_and_the_memories_each_reply_used(owner):
    entry = remember(owner, "The user lives in Lisbon.", category="profile")
    conv = conversation(owner)
    say(owner, conv, "Where do I live?")
    page = client_for(owner).get(f"/c/{conv.pk}/").content.decode()
    assert "Where do I live?" in page
    assert "<summary>used 1 memory</summary>" in page
    assert f'href="/me/memories/{entry.pk}/"' in page
    assert "Fact" in page and "Imported through the API" in page  # type and source
    assert entry.valid_from.strftime("%Y") in page


def test_it_lists_only_the_latest_recall_of_a_retried_turn(owner):
    first = remember(owner, "The user lives in Lisbon.", category="profile")
    conv = conversation(owner)
    message, reply = say(owner, conv, "Where do I live?")
    # A second recall under the same turn (the retry that produced the saved reply) wins.
    second = remember(owner, "The user works in Porto.", category="profile")
    RecallLog.objects.filter(turn_ref=reply.recall_ref).update(created_at=first.recorded_at)
    from memory_core.recall import memory_recall

    memory_recall(actor=owner, query="where", turn_ref=reply.recall_ref)
    page = client_for(owner).get(f"/c/{conv.pk}/m/{message.pk}/", HTTP_HX_REQUEST="true").content.decode()
    assert "<summary>used 2 memories</summary>" in page
    assert page.count("/me/memories/") == 2 and str(second.pk) in page


def test_it_marks_incognito_conversations(owner):
    conv = conversation(owner, incognito=True)
    say(owner, conv, "hello")
    page = client_for(owner).get(f"/c/{conv.pk}/").content.decode()
    assert "Incognito conversation: nothing is recalled" in page
    assert '<span class="badge incognito">Incognito</span>' in page
    assert '<span class="badge incognito">incognito</span>' in page  # in the list
    assert "incognito: no memories used" in page


def test_it_says_when_memory_is_paused(owner):
    pause_memory(owner)
    conv = conversation(owner)
    for url in ("/", f"/c/{conv.pk}/"):
        page = client_for(owner).get(url).content.decode()
        assert "Memory is paused" in page and 'href="/me/"' in page


def test_it_shows_the_offline_banner_only_without_a_key(owner, settings):
    conv = conversation(owner)
    assert "Offline mode" in client_for(owner).get(f"/c/{conv.pk}/").content.decode()
    settings.OPENAI_API_KEY = "sk-test"
    assert "Offline mode" not in client_for(owner).get(f"/c/{conv.pk}/").content.decode()


def test_it_escapes_messages_titles_and_memories(owner, openai_server):
    entry = remember(owner, f"The user's nickname is {SCRIPT}.", category="profile")
    openai_server.reply_text(f"Hello {SCRIPT}")
    conv = conversation(owner, title=SCRIPT)
    say(owner, conv, f"Call me {SCRIPT}")
    page = client_for(owner).get(f"/c/{conv.pk}/").content.decode()
    assert SCRIPT not in page
    assert page.count(ESCAPED) >= 4  # list, heading, message, reply, memory used
    assert f'href="/me/memories/{entry.pk}/"' in page


def test_it_keeps_line_breaks_but_no_markup(owner):
    conv = conversation(owner)
    say(owner, conv, "line one\n<b>line two</b>")
    page = client_for(owner).get(f"/c/{conv.pk}/").content.decode()
    assert "line one<br>&lt;b&gt;line two&lt;/b&gt;" in page


def test_it_loads_a_long_conversation_in_a_fixed_number_of_queries(owner, django_assert_max_num_queries):
    remember(owner, "The user lives in Lisbon.", category="profile")
    conv = conversation(owner)
    for i in range(12):
        Message.objects.create(conversation=conv, role="user", content=f"q{i}")
    say(owner, conv, "Where do I live?")
    client = client_for(owner)
    # + what each message taught (2) and the answer-style preferences (1): fixed, whatever the length.
    with django_assert_max_num_queries(15):
        client.get(f"/c/{conv.pk}/")

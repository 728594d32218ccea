# ruff: noqa: RUF001  # full-width Chinese punctuation is what these tests are about
"""The Django admin in Chinese (issue 32 item 5): kinds, statuses, actions and sources show in the
reader's language in the lists, their filters, the forms and the read-only pages, and the reasons
memory_core records, fixed or built from values, are translated; the values stored and the English
admin are unchanged. (Column and field names are the models' own and stay English.)"""

from __future__ import annotations

import pytest
from django.test import Client

from api.services import tenant_create, tenant_user_ensure
from memory_core.models import MemoryEntry, MemoryEvent
from privacy.services import privacy_remember

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(make_user):
    client = Client()
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    return client


def chinese(client: Client, url: str) -> str:
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_the_memory_list_and_its_filters_in_chinese(owner, admin_client):
    privacy_remember(user=owner, content="I live in Porto.")
    html = chinese(admin_client, "/admin/memory_core/memoryentry/")
    assert ">事实<" in html and ">使用中<" in html  # the columns
    assert "已被用户停用" in html and "用户明确说过" in html  # the filters' options
    assert "（个人记忆：打开才能阅读）" in html
    assert ">Fact<" not in html and ">Active<" not in html and "Said explicitly by the user" not in html
    # A filter still filters by the stored value.
    filtered = admin_client.get("/admin/memory_core/memoryentry/?status__exact=active").content.decode()
    assert "1 memory entry" in filtered or "1 个" in filtered

    admin_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    english = admin_client.get("/admin/memory_core/memoryentry/").content.decode()
    assert ">Fact<" in english and "Hidden by user" in english


def test_a_memory_and_its_history_read_in_chinese(owner, admin_client):
    privacy_remember(user=owner, content="I live in Porto.")
    privacy_remember(user=owner, content="I live in Lisbon.")
    old = MemoryEntry.objects.get(content="I live in Porto.")
    html = chinese(admin_client, f"/admin/memory_core/memoryentry/{old.pk}/change/")
    assert "已被取代" in html and "事实" in html  # read-only type and status
    assert '<option value="user_explicit" selected>用户明确说过</option>' in html  # an editable choice
    event = MemoryEvent.objects.get(entry=old, action="superseded")
    html = chinese(admin_client, f"/admin/memory_core/memoryevent/{event.pk}/change/")
    assert "已被更新的“home_city”取代。" in html and "Replaced by a newer" not in html
    assert "被取代" in html or "已被取代" in html
    MemoryEntry.objects.get(pk=old.pk)  # opening it changed nothing
    assert MemoryEvent.objects.get(pk=event.pk).reason == "Replaced by a newer 'home_city'."


def test_a_tenants_namespaces_show_their_kind_in_chinese(admin_client):
    tenant_user_ensure(tenant=tenant_create(name="Acme", slug="acme"), external_id="u1")
    html = chinese(admin_client, "/admin/api/tenantnamespace/")
    assert "终端用户" in html and "End user" not in html
    html = chinese(admin_client, "/admin/memory_core/namespace/")
    assert ">用户<" in html and ">机构<" in html  # the kind column and its filter

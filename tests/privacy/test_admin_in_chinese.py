# ruff: noqa: RUF001  # full-width Chinese punctuation is what these tests are about
"""The Django admin in Chinese (issue 32 item 5): kinds, statuses, actions and sources show in the
reader's language in the lists, their filters, the forms and the read-only pages, and the reasons
memory_core records, fixed or built from values, are translated; so are the names of the apps, models
and fields (item 1 of the third pass). The values stored and the English admin are unchanged."""

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


def test_the_admin_names_its_models_and_fields_in_chinese(owner, admin_client):
    """Item 1: the apps', models' and fields' names (the index, the list's columns and filters, a
    form's labels and help) are in the reader's language; the English admin keeps them."""
    privacy_remember(user=owner, content="I live in Porto.")
    entry = MemoryEntry.objects.get(content="I live in Porto.")

    index = chinese(admin_client, "/admin/")
    assert "记忆引擎" in index and "记忆条目" in index and "清除回执" in index  # apps and models
    assert "个人 API 令牌" in index and "审计事件" in index
    assert "Memory engine" not in index and "Memory entries" not in index and "Audit events" not in index

    changelist = chinese(admin_client, "/admin/memory_core/memoryentry/")
    for column in ("内容", "命名空间", "类型", "类别", "状态", "可信度", "总是调用", "记录于"):
        assert f">{column}<" in changelist, column
    assert 'data-filter-title="来源"' in changelist and 'data-filter-title="总是调用"' in changelist
    assert ">Recorded at<" not in changelist and ">Confidence<" not in changelist

    form = chinese(admin_client, f"/admin/memory_core/memoryentry/{entry.pk}/change/")
    for label in ("内容", "来源对话", "重要性", "生效自", "调用次数", "取代的条目"):
        assert label in form, label
    assert "每次都会调用（如过敏等安全事实）。" in form  # a field's help
    assert "Always recalled (safety" not in form and ">Importance:<" not in form

    namespaces = chinese(admin_client, f"/admin/memory_core/namespace/{entry.namespace_id}/change/")
    assert "路径" in namespaces and "所有者" in namespaces and "暂停记忆" in namespaces
    assert "命名空间授权" in namespaces  # the inline's title

    admin_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    english = admin_client.get("/admin/").content.decode()
    assert "Memory engine" in english and "Memory entries" in english and "Erasure receipts" in english
    form = admin_client.get(f"/admin/memory_core/memoryentry/{entry.pk}/change/").content.decode()
    assert "Importance" in form and "Source conversation" in form and "Always recalled (safety" in form

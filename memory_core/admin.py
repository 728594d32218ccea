"""Django admin for the memory engine (staff only, as all of the admin); history is read-only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from memory_core.models import MemoryEntry, MemoryEvent, MemoryEvidence, Namespace, NamespaceGrant


class NamespaceGrantInline(admin.TabularInline):
    model = NamespaceGrant
    extra = 0
    raw_id_fields = ["user"]


@admin.register(Namespace)
class NamespaceAdmin(admin.ModelAdmin):
    list_display = ["path", "kind", "owner", "memory_paused", "created_at"]
    list_filter = ["kind", "memory_paused"]
    search_fields = ["path", "owner__username"]
    raw_id_fields = ["owner"]
    inlines = [NamespaceGrantInline]


class MemoryEvidenceInline(admin.TabularInline):
    model = MemoryEvidence
    extra = 0
    readonly_fields = [
        "source_kind",
        "source_conversation",
        "source_message_ids",
        "excerpt",
        "confidence",
        "created_at",
    ]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(MemoryEntry)
class MemoryEntryAdmin(admin.ModelAdmin):
    list_display = [
        "short_content",
        "namespace",
        "type",
        "category",
        "status",
        "confidence",
        "pinned",
        "recorded_at",
    ]
    list_filter = ["type", "status", "category", "source_kind", "pinned"]
    search_fields = ["content", "key", "namespace__path"]
    raw_id_fields = ["namespace", "supersedes", "superseded_by", "approved_by"]
    readonly_fields = [
        "id",
        "embedding_model",
        "access_count",
        "last_accessed_at",
        "recorded_at",
        "expired_at",
        "created_at",
        "updated_at",
    ]
    exclude = ["embedding"]
    inlines = [MemoryEvidenceInline]
    list_select_related = ["namespace"]

    @admin.display(description="content")
    def short_content(self, obj: MemoryEntry) -> str:
        return obj.content[:80]


@admin.register(MemoryEvent)
class MemoryEventAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "action", "actor_kind", "actor", "namespace", "entry_ref"]
    list_filter = ["action", "actor_kind"]
    search_fields = ["entry_ref", "namespace__path"]
    list_select_related = ["namespace", "actor"]

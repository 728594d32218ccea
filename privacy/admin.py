"""Every staff view of a personal memory in the Django admin is written to the audit trail.

The engine's admin classes are replaced by audited subclasses here, so memory_core stays
unaware of privacy. Only the path is recorded, never the query string (it may hold a search).
The list of memories shows no personal content (id, type, status, namespace only) and cannot be
searched by content, so only opening one entry shows what it says, and that is audited per entry.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from memory_core.admin import MemoryEntryAdmin, MemoryEventAdmin, ReadOnlyAdmin
from memory_core.models import MemoryEntry, MemoryEvent
from privacy.event_labels import CATEGORIES, label, reason_label
from privacy.models import AuditAction, AuditEvent
from privacy.services import audit_record, is_personal

admin.site.unregister(MemoryEntry)
admin.site.unregister(MemoryEvent)


@admin.register(MemoryEntry)
class AuditedMemoryEntryAdmin(MemoryEntryAdmin):
    shown_as = {"category": lambda value: label(CATEGORIES, value)}  # the list's column, translated

    def get_object(self, request: HttpRequest, object_id: str, from_field: str | None = None) -> Any:
        # Used by the change, delete and history views alike: each opening is one audit event
        # (the permission check comes after get_object in Django, so a refused look is not one).
        entry = super().get_object(request, object_id, from_field)
        if entry is not None and is_personal(entry) and self.has_view_or_change_permission(request, entry):
            audit_record(actor=request.user, action=AuditAction.ADMIN_VIEW, path=request.path, entry=entry)
        return entry

    @admin.display(description=gettext_lazy("content"))
    def short_content(self, obj: MemoryEntry) -> str:
        # Personal entries are not shown in the list: it spans every user, and a list row has no
        # entry to audit against. Shared procedures (org / agent) are shown.
        return _("(personal: open it to read)") if is_personal(obj) else super().short_content(obj)

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        # The list holds ids, types and namespaces (no personal content); still a staff look.
        if self.has_view_or_change_permission(request):
            audit_record(actor=request.user, action=AuditAction.ADMIN_LIST, path=request.path)
        return super().changelist_view(request, extra_context)


@admin.register(MemoryEvent)
class AuditedMemoryEventAdmin(MemoryEventAdmin):
    shown_as = {"reason": reason_label}  # memory_core's fixed and value-built wordings, translated

    def get_object(self, request: HttpRequest, object_id: str, from_field: str | None = None) -> Any:
        event = super().get_object(request, object_id, from_field)
        if (
            event is not None
            and event.entry is not None
            and is_personal(event.entry)
            and self.has_view_or_change_permission(request, event)
        ):
            audit_record(
                actor=request.user, action=AuditAction.ADMIN_HISTORY, path=request.path, entry=event.entry
            )
        return event


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "action", "actor", "namespace", "entry_ref", "path"]
    list_filter = ["action"]
    search_fields = ["entry_ref", "actor__username", "namespace__path"]
    list_select_related = ["actor", "namespace"]

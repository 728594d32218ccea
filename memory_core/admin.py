"""Django admin for the memory engine (staff only, as all of the admin); history is read-only.

Memory entries change only through the services (history, embeddings, moderation): what they say,
where they live and their lifecycle are read-only here, and deleting one is an erasure
(`erasure.memory_erase`), never a bare row delete. Admin log rows name entries by id only.
Kinds, statuses and actions show in the reader's language (`TranslatedChoicesAdmin`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, cast

from django import forms
from django.contrib import admin
from django.contrib.admin import helpers
from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied
from django.db import models, transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_lazy

from memory_core.erasure import Requester, memory_erase
from memory_core.errors import NotFound
from memory_core.models import (
    ErasureReceipt,
    ErasureVia,
    MemoryEntry,
    MemoryEvent,
    MemoryEvidence,
    Namespace,
    NamespaceGrant,
)
from memory_core.webhooks.models import WebhookDelivery, WebhookEndpoint

# --- Labels in the reader's language ------------------------------------------------------------
# The vocabularies' labels are marked with gettext_noop (`choices`): the models, their migrations
# and the API keep the English, and the admin translates them where it shows them.


class TranslatedChoicesFilter(admin.ChoicesFieldListFilter):
    """A choice field's filter with its options in the reader's language."""

    def choices(self, changelist: Any) -> Iterator[Any]:
        for choice in super().choices(changelist):
            yield {**choice, "display": gettext(str(choice["display"]))}


def _shown_column(field: models.Field, show: Callable[[Any], str]) -> Callable[[Any], str]:
    def column(obj: Any) -> str:
        return show(getattr(obj, field.attname))

    column.short_description = field.verbose_name  # type: ignore[attr-defined]
    column.admin_order_field = field.name  # type: ignore[attr-defined]
    return column


def _choice_label(field: models.Field) -> Callable[[Any], str]:
    labels = {value: str(label) for value, label in field.flatchoices}
    return lambda value: gettext(labels[value]) if value in labels else str(value or "")


class TranslatedChoicesAdmin(admin.ModelAdmin):
    """Choice fields (kinds, statuses, actions …) in the reader's language in the list, its
    filters, the forms and the read-only fields; `shown_as` shows other fields through a function
    of their value (a recorded reason, translated). A read-only field is shown by a function
    `<name>_shown` set on the instance; the model field itself is then left out of the form."""

    shown_as: ClassVar[dict[str, Callable[[str], str]]] = {}

    def __init__(self, model: type[models.Model], admin_site: admin.AdminSite) -> None:
        super().__init__(model, admin_site)
        fields = {f.name: f for f in model._meta.concrete_fields}
        self._choice_names = {name for name, f in fields.items() if f.choices}
        shows = {name: _choice_label(fields[name]) for name in self._choice_names}
        shows.update({name: show for name, show in self.shown_as.items() if name in fields})
        self._shown = {name: f"{name}_shown" for name in shows}
        for name, show in shows.items():
            setattr(self, self._shown[name], _shown_column(fields[name], show))

    def _read_only(self, request: HttpRequest, obj: Any) -> set[str]:
        return {n for n in super().get_readonly_fields(request, obj) if n in self._shown}

    def get_list_display(self, request: HttpRequest) -> Any:
        return [self._shown.get(n, n) if isinstance(n, str) else n for n in super().get_list_display(request)]

    def get_list_filter(self, request: HttpRequest) -> Any:
        return [
            (n, TranslatedChoicesFilter) if isinstance(n, str) and n in self._choice_names else n
            for n in super().get_list_filter(request)
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [self._shown.get(n, n) for n in super().get_readonly_fields(request, obj)]

    def get_exclude(self, request: HttpRequest, obj: Any = None) -> Any:
        return [*(super().get_exclude(request, obj) or []), *self._read_only(request, obj)]

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        read_only = self._read_only(request, obj)
        view_only = not self.has_change_permission(request, obj)
        return [
            self._shown[n] if n in self._shown and (view_only or n in read_only) else n
            for n in super().get_fields(request, obj)
        ]

    def formfield_for_choice_field(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        formfield: Any = super().formfield_for_choice_field(db_field, request, **kwargs)
        formfield.choices = [(value, gettext(str(label))) for value, label in formfield.choices]
        return formfield


class NamespaceGrantInline(admin.TabularInline):
    model = NamespaceGrant
    extra = 0
    raw_id_fields = ["user"]


@admin.register(Namespace)
class NamespaceAdmin(TranslatedChoicesAdmin):
    list_display = ["path", "kind", "owner", "memory_paused", "memory_capacity", "created_at"]
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


class ReadOnlyAdmin(TranslatedChoicesAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def _erasable_by(entry: MemoryEntry) -> Any:
    """The account `memory_erase` acts for: the namespace's owner (users, API agents), if any.

    Owner-less org / agent namespaces have no erase path yet (memory_erase needs the owner), and
    an inactive owner is not a user to memory_access: the admin refuses to delete those.
    """
    owner = entry.namespace.owner
    return owner if owner is not None and owner.is_active else None


@admin.register(MemoryEntry)
class MemoryEntryAdmin(TranslatedChoicesAdmin):
    list_display = [
        "id",
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
    # Never the content: a search would match (and list) anyone's memories.
    search_fields = ["key", "namespace__path"]
    readonly_fields = [
        "id",
        "namespace",
        "type",
        "content",
        "status",
        "approved_at",
        "approved_by",
        "supersedes",
        "superseded_by",
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

    @admin.display(description=gettext_lazy("content"))
    def short_content(self, obj: MemoryEntry) -> str:
        return obj.content[:80]

    def action_checkbox(self, obj: MemoryEntry) -> SafeString:
        # Django labels each row's box with str(obj), which quotes the content.
        label = gettext("Select memory entry %(id)s") % {"id": obj.pk}
        attrs = {"class": "action-select", "aria-label": label}
        return forms.CheckboxInput(attrs, lambda value: False).render(
            helpers.ACTION_CHECKBOX_NAME, str(obj.pk)
        )

    # Entries are created through the services (chat, the privacy page, moderation, the API).
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and _erasable_by(obj) is None:
            return False
        return super().has_delete_permission(request, obj)

    def _erase(self, request: HttpRequest, entry: MemoryEntry) -> None:
        owner = _erasable_by(entry)
        if owner is None:
            raise PermissionDenied
        # NotFound: already erased, as an older version of an entry erased just before.
        with contextlib.suppress(NotFound):
            memory_erase(
                actor=owner,
                memory_id=entry.pk,
                requester=Requester(via=ErasureVia.ADMIN, person=request.user),
            )

    def delete_model(self, request: HttpRequest, obj: MemoryEntry) -> None:
        self._erase(request, obj)

    @transaction.atomic
    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[MemoryEntry]) -> None:
        for entry in queryset.select_related("namespace__owner"):
            self._erase(request, entry)

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> tuple[Any, Any, Any, Any]:
        # The confirmation page lists entries by id: the bulk action would otherwise show the
        # content of every selected entry.
        _, model_count, perms_needed, protected = super().get_deleted_objects(objs, request)
        return (
            [gettext("Memory entry %(id)s") % {"id": obj.pk} for obj in objs],
            model_count,
            perms_needed,
            protected,
        )

    def response_delete(self, request: HttpRequest, obj_display: str, obj_id: Any) -> HttpResponse:
        # The success message (kept in the session or a cookie until shown) names the id only.
        return super().response_delete(request, str(obj_id), obj_id)

    # Admin log rows: the entry's id as their repr, never its content (str(entry) quotes it).
    def _log(self, request: HttpRequest, objs: Any, flag: int, message: Any = "") -> list[LogEntry]:
        if isinstance(message, list):
            message = json.dumps(message)
        content_type = ContentType.objects.get_for_model(MemoryEntry, for_concrete_model=False)
        user_id = cast(int, request.user.pk)  # the admin is staff-only: always a signed-in user
        return LogEntry.objects.bulk_create(
            LogEntry(
                user_id=user_id,
                content_type_id=content_type.pk,
                object_id=str(obj.pk),
                object_repr=str(obj.pk),
                action_flag=flag,
                change_message=message,
            )
            for obj in objs
        )

    def log_addition(self, request: HttpRequest, obj: Any, message: Any) -> LogEntry:
        return self._log(request, [obj], ADDITION, message)[0]

    def log_change(self, request: HttpRequest, obj: Any, message: Any) -> LogEntry:
        return self._log(request, [obj], CHANGE, message)[0]

    def log_deletions(self, request: HttpRequest, queryset: Any) -> list[LogEntry]:
        return self._log(request, queryset, DELETION)


@admin.register(MemoryEvent)
class MemoryEventAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "action", "actor_kind", "actor", "namespace", "entry_ref"]
    list_filter = ["action", "actor_kind"]
    search_fields = ["entry_ref", "namespace__path"]
    list_select_related = ["namespace", "actor"]


@admin.register(ErasureReceipt)
class ErasureReceiptAdmin(ReadOnlyAdmin):
    """Receipts for operators: counts and times only, and whether the disk pass has run."""

    list_display = [
        "created_at",
        "scope",
        "via",
        "subject_ref",
        "requested_by",
        "api_key_prefix",
        "entries",
        "messages",
        "conversations",
        "vacuumed_at",
        "rewritten_at",
    ]
    list_filter = ["scope", "via", ("rewritten_at", admin.EmptyFieldListFilter)]
    search_fields = ["subject_ref", "api_key_prefix"]
    list_select_related = ["requested_by"]


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(ReadOnlyAdmin):
    """Endpoints are managed over the API (the secret is never shown here)."""

    list_display = ["url", "audience", "enabled", "consecutive_failures", "disabled_at", "created_at"]
    list_filter = ["enabled", "audience"]
    search_fields = ["url", "audience"]
    exclude = ["secret", "previous_secret"]


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyAdmin):
    list_display = [
        "created_at",
        "event",
        "endpoint",
        "status",
        "attempts",
        "last_status_code",
        "next_attempt_at",
    ]
    list_filter = ["status"]
    list_select_related = ["event", "endpoint"]

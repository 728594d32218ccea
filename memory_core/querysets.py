"""Namespace isolation, in one place. Every selector starts from these queryset methods."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeGuard

from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone

from memory_core.choices import MemoryStatus, MemoryType, NamespaceKind

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User

# Statuses that describe what was true at some time; used for point-in-time recall.
HISTORICAL_STATUSES = (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED, MemoryStatus.EXPIRED)


def _namespaces(model: type[models.Model]) -> NamespaceQuerySet:
    """The Namespace manager, reached through the row's foreign key: no import of the models."""
    return model._meta.get_field("namespace").related_model.objects.all()  # type: ignore[union-attr]


def is_real_user(user: Any) -> TypeGuard[User]:
    """A signed-in, active person (a TypeGuard: past this check the type checker knows it too)."""
    return user is not None and getattr(user, "is_authenticated", False) and getattr(user, "is_active", False)


class NamespaceQuerySet(models.QuerySet):
    def owned_by(self, user: AbstractBaseUser | AnonymousUser | None) -> NamespaceQuerySet:
        if not is_real_user(user):
            return self.none()
        return self.filter(owner=user)

    def shared_with(self, user: AbstractBaseUser | AnonymousUser | None) -> NamespaceQuerySet:
        """Org / agent namespaces whose approved procedures the user's assistant may read."""
        if not is_real_user(user):
            return self.none()
        return self.filter(grants__user=user).exclude(kind=NamespaceKind.USER)


# The columns the full-text index's copies (`MemoryEntry.search_text`, `search_context_text`) are
# computed from (`memory_core.language.search_copies`); as in models.
_INDEXED_TEXT = ("content", "search_context", "key")


class MemoryEntryQuerySet(models.QuerySet):
    # Every way of writing entries in bulk fills the segmented copies of the text it writes, so no
    # write path can leave Chinese unsegmented or a copy stale (`MemoryEntry.save` does the same).
    def bulk_create(self, objs: Any, *args: Any, **kwargs: Any) -> Any:
        objs = list(objs)
        for obj in objs:
            obj.index_text()
        return super().bulk_create(objs, *args, **kwargs)

    def bulk_update(self, objs: Any, fields: Any, *args: Any, **kwargs: Any) -> Any:
        objs, fields = list(objs), list(fields)
        copies: list[str] = []
        for obj in objs:
            copies = obj.index_text(fields)
        fields += [copy for copy in copies if copy not in fields]
        return super().bulk_update(objs, fields, *args, **kwargs)

    def update(self, **kwargs: Any) -> int:
        if not set(kwargs) & set(_INDEXED_TEXT):
            return super().update(**kwargs)
        # The copies depend on each row's statement, context and key together: recompute them for
        # the rows updated (selected first: the update may take them out of this queryset).
        with transaction.atomic():
            pks = list(self.values_list("pk", flat=True))
            updated = super().update(**kwargs)
            rows: list[Any] = list(self.model._default_manager.filter(pk__in=pks).only("pk", *_INDEXED_TEXT))
            for row in rows:
                row.index_text()
            copies = ["search_text", "search_context_text"]
            self.model._default_manager.bulk_update(rows, copies, batch_size=500)
        return updated

    def visible_to(self, user: AbstractBaseUser | AnonymousUser | None) -> MemoryEntryQuerySet:
        """Entries of the user's own namespaces, plus approved procedures shared with them."""
        if not is_real_user(user):
            return self.none()
        namespaces = _namespaces(self.model)
        own = namespaces.owned_by(user).values("id")
        shared = namespaces.shared_with(user).values("id")
        return self.filter(
            Q(namespace_id__in=own)
            | Q(namespace_id__in=shared, type=MemoryType.PROCEDURAL, status=MemoryStatus.ACTIVE)
        )

    def in_namespaces(self, namespace_ids: list[int]) -> MemoryEntryQuerySet:
        return self.filter(namespace_id__in=namespace_ids)

    def current(self, at: datetime | None = None) -> MemoryEntryQuerySet:
        """Entries that hold at `at` (default now).

        Now: only active entries inside their validity window and before their TTL. At a past
        instant: whatever was valid then, including entries superseded or expired since.
        """
        now = timezone.now()
        when = at or now
        # An entry whose start is not known (`MemoryEntry.start_known`) may have held before it was told.
        started = Q(valid_from__lte=when) | Q(start_known=False)
        window = started & (Q(valid_to__isnull=True) | Q(valid_to__gt=when))
        if at is None or at >= now:
            ttl = Q(expires_at__isnull=True) | Q(expires_at__gt=when)
            return self.filter(window & ttl, status=MemoryStatus.ACTIVE)
        return self.filter(window, status__in=HISTORICAL_STATUSES)


class MemoryEventQuerySet(models.QuerySet):
    def visible_to(self, user: AbstractBaseUser | AnonymousUser | None) -> MemoryEventQuerySet:
        if not is_real_user(user):
            return self.none()
        return self.filter(namespace_id__in=_namespaces(self.model).owned_by(user).values("id"))

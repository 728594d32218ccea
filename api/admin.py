"""Django admin for tenants, keys and personal tokens (staff only). Keys and tokens are issued by
`manage.py issue_api_key` / `issue_user_token`, which print the secret once; only its SHA-256 is
stored, so the admin shows prefixes, can revoke, and every issue and revocation is in the audit
trail ("Recent actions")."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy

from api.models import ApiKey, Tenant, TenantNamespace, TenantUser, UserToken
from api.services import user_token_revoke
from memory_core.admin import TranslatedChoicesAdmin


class ApiKeyInline(admin.TabularInline):
    model = ApiKey
    extra = 0
    # A tuple (covariant) so the same value types as both `fields` and `readonly_fields`.
    fields = readonly_fields = ("prefix", "name", "scopes", "created_at", "last_used_at", "revoked_at")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Tenant)
class TenantAdmin(TranslatedChoicesAdmin):
    list_display = ["slug", "name", "created_by", "created_at"]
    search_fields = ["slug", "name"]
    raw_id_fields = ["created_by"]
    inlines = [ApiKeyInline]


@admin.action(description=gettext_lazy("Revoke the selected keys"))
def revoke(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
    queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())


@admin.register(ApiKey)
class ApiKeyAdmin(TranslatedChoicesAdmin):
    list_display = ["prefix", "tenant", "name", "scopes", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["tenant"]
    readonly_fields = [
        "tenant",
        "prefix",
        "secret_hash",
        "scopes",
        "created_at",
        "last_used_at",
        "revoked_at",
    ]
    actions = [revoke]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.action(description=gettext_lazy("Revoke the selected personal tokens"))
def revoke_tokens(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[UserToken]) -> None:
    for token in queryset.filter(revoked_at__isnull=True):
        user_token_revoke(prefix=token.prefix, actor=request.user, reason="revoked in the admin")


@admin.register(UserToken)
class UserTokenAdmin(TranslatedChoicesAdmin):
    """Lists and revokes; there is no secret to show (only a hash is stored, and not shown either)."""

    list_display = [
        "prefix",
        "user",
        "name",
        "scopes",
        "created_at",
        "expires_at",
        "last_used_at",
        "revoked_at",
    ]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter), ("expires_at", admin.EmptyFieldListFilter)]
    search_fields = ["prefix", "user__username", "name"]
    fields = readonly_fields = (
        "prefix",
        "user",
        "name",
        "scopes",
        "created_at",
        "expires_at",
        "last_used_at",
        "revoked_at",
    )
    actions = [revoke_tokens]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(TenantUser)
class TenantUserAdmin(TranslatedChoicesAdmin):
    list_display = ["tenant", "external_id", "user", "created_at"]
    list_filter = ["tenant"]
    search_fields = ["external_id"]
    raw_id_fields = ["user"]


@admin.register(TenantNamespace)
class TenantNamespaceAdmin(TranslatedChoicesAdmin):
    list_display = ["tenant", "kind", "external_id", "namespace", "created_at"]
    list_filter = ["tenant", "kind"]
    search_fields = ["external_id"]
    raw_id_fields = ["namespace"]

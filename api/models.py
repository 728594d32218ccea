"""Tenants of the REST API, their API keys, and which users and namespaces each tenant owns.

A tenant's end users and agents become ordinary Django users ("shadow" users with an unusable
password) that own one namespace each, so the engine's `actor` model and its namespace isolation
apply to tenant calls unchanged. `TenantNamespace` is the one place that says which namespaces a
tenant may reach; every tenant-key query starts from it.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from memory_core.models import Namespace

SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]{0,39}$"


class Tenant(models.Model):
    """An app or organisation that integrates through API keys; created by an operator."""

    name = models.CharField(verbose_name=_("name"), max_length=200)
    slug = models.CharField(verbose_name=_("slug"), max_length=40, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("tenant")
        verbose_name_plural = _("tenants")
        constraints = [
            models.CheckConstraint(condition=Q(slug__regex=SLUG_PATTERN), name="tenant_slug_format")
        ]

    def __str__(self) -> str:
        return self.slug


class ApiScope(models.TextChoices):
    READ = "read", gettext_noop("Read memories, recall, export")
    WRITE = "write", gettext_noop("Add and correct memories, chat, extraction")
    ERASE = "erase", gettext_noop("Erase memories")
    MODERATE = "moderate", gettext_noop("Approve and reject procedures")


class ApiKey(models.Model):
    """A tenant's secret. Only a SHA-256 of it is stored: the secret is 256 random bits, so a slow
    password hash would add latency to every request without making guessing any harder."""

    tenant = models.ForeignKey(
        Tenant, verbose_name=_("tenant"), on_delete=models.CASCADE, related_name="api_keys"
    )
    name = models.CharField(verbose_name=_("name"), max_length=100, blank=True, default="")
    # "mk_" + 8 hex characters: the public part of the key, shown in lists and used to revoke it.
    prefix = models.CharField(verbose_name=_("prefix"), max_length=16, unique=True)
    secret_hash = models.CharField(verbose_name=_("secret hash"), max_length=64)
    scopes = ArrayField(models.CharField(max_length=10, choices=ApiScope.choices), verbose_name=_("scopes"))
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)
    revoked_at = models.DateTimeField(verbose_name=_("revoked at"), null=True, blank=True)
    last_used_at = models.DateTimeField(verbose_name=_("last used at"), null=True, blank=True)

    class Meta:
        verbose_name = _("API key")
        verbose_name_plural = _("API keys")
        constraints = [
            models.CheckConstraint(
                condition=Q(scopes__contained_by=ApiScope.values) & Q(scopes__len__gt=0),
                name="apikey_scopes_valid",
            ),
            models.CheckConstraint(
                condition=Q(prefix__regex=r"^mk_[0-9a-f]{8}$"), name="apikey_prefix_format"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.tenant.slug})"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


PERSONAL_SCOPES = [ApiScope.READ, ApiScope.WRITE, ApiScope.ERASE]


def personal_scopes() -> list[str]:
    return [str(scope) for scope in PERSONAL_SCOPES]


class UserToken(models.Model):
    """A person's API token (`Authorization: Token pt_…`), reaching only that person's memories.

    Stored like a tenant key: a SHA-256 of a 256-bit secret, the plaintext shown once at issue. A
    person may hold several, each named, with its scopes and an optional expiry; a revoked or
    expired one is kept (with when it was last used) for the audit trail.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("user"), on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(verbose_name=_("name"), max_length=100, blank=True, default="")
    # "pt_" + 8 hex characters: the public part, shown in lists and used to revoke it.
    prefix = models.CharField(verbose_name=_("prefix"), max_length=16, unique=True)
    secret_hash = models.CharField(verbose_name=_("secret hash"), max_length=64, unique=True)
    # What it may do of what the person may (moderation stays an operator's, whatever the token).
    scopes = ArrayField(
        models.CharField(max_length=10, choices=ApiScope.choices),
        verbose_name=_("scopes"),
        default=personal_scopes,
    )
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)
    expires_at = models.DateTimeField(verbose_name=_("expires at"), null=True, blank=True)
    revoked_at = models.DateTimeField(verbose_name=_("revoked at"), null=True, blank=True)
    last_used_at = models.DateTimeField(verbose_name=_("last used at"), null=True, blank=True)

    class Meta:
        verbose_name = _("personal API token")
        verbose_name_plural = _("personal API tokens")
        constraints = [
            models.CheckConstraint(
                condition=Q(prefix__regex=r"^pt_[0-9a-f]{8}$"), name="usertoken_prefix_format"
            ),
            models.CheckConstraint(
                condition=Q(scopes__contained_by=PERSONAL_SCOPES) & Q(scopes__len__gt=0),
                name="usertoken_scopes_valid",
            ),
            models.CheckConstraint(
                condition=Q(expires_at__isnull=True) | Q(expires_at__gt=F("created_at")),
                name="usertoken_expires_after_creation",
            ),
        ]
        indexes = [models.Index(fields=["user", "revoked_at"], name="usertoken_user_active")]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and not self.is_expired

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()


class TenantUser(models.Model):
    """A tenant's end user, known to the tenant by its own `external_id` (its `user_id`)."""

    tenant = models.ForeignKey(
        Tenant, verbose_name=_("tenant"), on_delete=models.CASCADE, related_name="users"
    )
    external_id = models.CharField(verbose_name=_("external ID"), max_length=200)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, verbose_name=_("user"), on_delete=models.CASCADE, related_name="tenant_link"
    )
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("tenant user")
        verbose_name_plural = _("tenant users")
        constraints = [
            models.UniqueConstraint(fields=["tenant", "external_id"], name="tenantuser_unique_external_id")
        ]

    def __str__(self) -> str:
        return f"{self.tenant.slug}:{self.external_id}"


class EntityKind(models.TextChoices):
    USER = "user", gettext_noop("End user")
    AGENT = "agent", gettext_noop("Agent")


class TenantNamespace(models.Model):
    """Ownership: the namespaces a tenant's keys may reach, with the id the tenant knows them by."""

    tenant = models.ForeignKey(
        Tenant, verbose_name=_("tenant"), on_delete=models.CASCADE, related_name="namespaces"
    )
    namespace = models.OneToOneField(
        Namespace, verbose_name=_("namespace"), on_delete=models.CASCADE, related_name="tenant_link"
    )
    kind = models.CharField(verbose_name=_("kind"), max_length=10, choices=EntityKind.choices)
    external_id = models.CharField(verbose_name=_("external ID"), max_length=200)
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("tenant namespace")
        verbose_name_plural = _("tenant namespaces")
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "kind", "external_id"], name="tenantnamespace_unique_entity"
            ),
            models.CheckConstraint(
                condition=Q(kind__in=EntityKind.values), name="tenantnamespace_kind_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tenant.slug}:{self.kind}:{self.external_id}"


class RateCount(models.Model):
    """One rate limit's counter (`api.throttling`): requests in the current window and in the one
    before it, for a sliding estimate. One row per key or person, rewritten in place."""

    key = models.CharField(max_length=120, primary_key=True)
    window_start = models.BigIntegerField(help_text="Seconds since the epoch.")
    count = models.IntegerField()
    previous = models.IntegerField()

    def __str__(self) -> str:
        return f"{self.key}: {self.count} (+{self.previous} before)"

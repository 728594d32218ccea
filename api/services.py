"""Writes of the API layer: tenants, keys, user tokens, and the shadow users behind tenant ids.

Memories themselves are written only through `memory_core` (and the privacy lifecycle services).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from api.models import (
    SLUG_PATTERN,
    ApiKey,
    ApiScope,
    EntityKind,
    Tenant,
    TenantNamespace,
    TenantUser,
    UserToken,
    personal_scopes,
)
from api.subjects import Subject, subject_address
from chat.erasure import memory_erase_all_with_sources
from memory_core.actors import Actor, person
from memory_core.embeddings import embed_remembered, get_embedder
from memory_core.erasure import Requester
from memory_core.errors import Conflict, MemoryServiceError, NotFound
from memory_core.models import ActorKind, ErasureScope, Namespace, NamespaceKind, SourceKind
from memory_core.outcomes import AddOutcome
from memory_core.pipeline import write_request
from memory_core.pipeline_batch import memory_add_many
from memory_core.services import namespace_create, namespace_for_user

KEY_PREFIX = "mk_"
USER_TOKEN_PREFIX = "pt_"  # noqa: S105  # a label, not a secret
# A tenant's agent namespace is `agent/<slug>.<agent_id>`; the path allows at most 150 characters.
AGENT_ID_PATTERN = re.compile(r"^[A-Za-z0-9_.@+-]{1,100}$")
EXTERNAL_ID_MAX_CHARS = 200


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def tenant_create(*, name: str, slug: str, created_by: Any = None) -> Tenant:
    errors: dict[str, list[str]] = {}
    if not re.match(SLUG_PATTERN, slug or ""):
        errors["slug"] = ["Lower-case letters, digits and hyphens, at most 40 characters."]
    if not (name or "").strip():
        errors["name"] = ["This field may not be blank."]
    if errors:
        raise MemoryServiceError("Invalid tenant.", field_errors=errors)
    try:
        with transaction.atomic():
            return Tenant.objects.create(name=name.strip()[:200], slug=slug, created_by=created_by)
    except IntegrityError as exc:
        raise Conflict(f"A tenant with slug {slug!r} already exists.") from exc


def api_key_issue(*, tenant: Tenant, scopes: list[str], name: str = "") -> tuple[ApiKey, str]:
    """A new key; the plaintext is returned once and never stored."""
    wanted = sorted(set(scopes))
    unknown = set(wanted) - set(ApiScope.values)
    if not wanted or unknown:
        raise MemoryServiceError(
            "Invalid scopes.", field_errors={"scopes": [f"Choose among {', '.join(ApiScope.values)}."]}
        )
    prefix = KEY_PREFIX + secrets.token_hex(4)
    plaintext = f"{prefix}_{secrets.token_urlsafe(32)}"
    key = ApiKey.objects.create(
        tenant=tenant, name=name[:100], prefix=prefix, secret_hash=hash_key(plaintext), scopes=wanted
    )
    return key, plaintext


def api_key_revoke(*, prefix: str) -> ApiKey:
    key = ApiKey.objects.filter(prefix=prefix).first()
    if key is None:
        raise NotFound(f"No API key with prefix {prefix!r}.")
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
    return key


def api_key_touch(*, key: ApiKey) -> None:
    """Record use at most once a minute: a write on every request would serialise a busy key."""
    now = timezone.now()
    if key.last_used_at is None or (now - key.last_used_at).total_seconds() > 60:
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        key.last_used_at = now


@dataclass(frozen=True)
class IssuedToken:
    """A personal token just issued: `key` is the plaintext, shown once and stored nowhere."""

    token: UserToken
    key: str


def _audit(*, actor: Actor, token: UserToken, flag: int, message: str) -> None:
    """The admin's audit trail (LogEntry, "Recent actions"): who issued or revoked which token."""
    who = person(actor)
    if who is None:  # only a person's own hand is audited; a command acting alone is not
        return
    LogEntry.objects.create(
        user_id=who.pk,
        content_type_id=ContentType.objects.get_for_model(UserToken).pk,
        object_id=str(token.pk),
        object_repr=str(token)[:200],
        action_flag=flag,
        change_message=message,
    )


def user_token_issue(*, user: Any, actor: Actor = None, name: str = "") -> IssuedToken:
    """A fresh token for `user` issued by an operator (`manage.py issue_user_token`): it replaces the
    operator's earlier one (an unnamed token), not the tokens the person made and named for their
    own clients. Only its SHA-256 is kept."""
    return _token_new(user=user, actor=actor or user, name=name, scopes=personal_scopes(), replace=True)


# Enough for every client a person runs; more is a leak waiting to happen.
MAX_ACTIVE_TOKENS = 20
TOKEN_NAME_MAX_CHARS = 100


def user_token_create(
    *, user: Any, name: str, scopes: list[str], expires_at: datetime | None, within: UserToken | None = None
) -> IssuedToken:
    """A person's own new token (the /me/tokens/ page, `POST /api/v1/tokens/`), beside the others:
    named, with its scopes and an optional expiry. Made with a token (`within`), it may not reach
    further than that one: no wider scopes, no later expiry."""
    errors: dict[str, list[str]] = {}
    clean = " ".join(str(name or "").split())
    if not clean or len(clean) > TOKEN_NAME_MAX_CHARS:
        errors["name"] = [f"Give it a name of 1-{TOKEN_NAME_MAX_CHARS} characters (the client using it)."]
    wanted = sorted(set(scopes))
    if not wanted or set(wanted) - set(personal_scopes()):
        errors["scopes"] = [f"Choose among {', '.join(personal_scopes())}."]
    elif within is not None and set(wanted) - set(within.scopes):
        errors["scopes"] = ["A token cannot make a token with more scopes than its own."]
    if expires_at is not None and expires_at <= timezone.now():
        errors["expires_at"] = ["Must be in the future."]
    elif (
        within is not None
        and within.expires_at is not None
        and (expires_at is None or expires_at > within.expires_at)
    ):
        errors["expires_at"] = ["A token cannot make a token that outlives it."]
    if errors:
        raise MemoryServiceError("Invalid token request.", field_errors=errors)
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # one count at a time
        if user_tokens_active(user=user).count() >= MAX_ACTIVE_TOKENS:
            raise Conflict(f"At most {MAX_ACTIVE_TOKENS} active tokens: revoke one you no longer use.")
        return _token_new(user=user, actor=user, name=clean, scopes=wanted, expires_at=expires_at)


def user_tokens_of(*, user: Any) -> QuerySet[UserToken]:
    """Every personal token of the person's, newest first (revoked and expired ones too)."""
    return UserToken.objects.filter(user=user).order_by("-created_at", "-pk")


def user_tokens_active(*, user: Any) -> QuerySet[UserToken]:
    now = timezone.now()
    return UserToken.objects.filter(user=user, revoked_at__isnull=True).filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=now)
    )


def _token_new(
    *,
    user: Any,
    actor: Actor,
    name: str,
    scopes: list[str],
    replace: bool = False,
    expires_at: datetime | None = None,
) -> IssuedToken:
    for _attempt in range(3):
        prefix = USER_TOKEN_PREFIX + secrets.token_hex(4)
        plaintext = f"{prefix}_{secrets.token_urlsafe(32)}"
        try:
            with transaction.atomic():
                if replace:
                    for old in UserToken.objects.select_for_update().filter(
                        user=user, revoked_at__isnull=True, name=""
                    ):
                        _token_revoke(token=old, actor=actor, reason="replaced by a new token")
                token = UserToken.objects.create(
                    user=user,
                    name=name[:TOKEN_NAME_MAX_CHARS],
                    prefix=prefix,
                    secret_hash=hash_key(plaintext),
                    scopes=scopes,
                    expires_at=expires_at,
                )
                _audit(actor=actor, token=token, flag=ADDITION, message="Issued a personal API token.")
                return IssuedToken(token=token, key=plaintext)
        except IntegrityError:
            continue  # a prefix already taken (1 in 4 billion): try again
    raise Conflict("Could not issue a token; retry.")


def user_token_revoke_own(*, user: Any, token_id: Any) -> UserToken:
    """A person revokes one of their own tokens; someone else's is "not found", as a missing one."""
    try:
        pk = int(token_id)
    except (TypeError, ValueError):
        raise NotFound("Token not found.") from None
    prefix = UserToken.objects.filter(pk=pk, user=user).values_list("prefix", flat=True).first()
    if prefix is None:
        raise NotFound("Token not found.")
    return user_token_revoke(prefix=prefix, actor=user, reason="revoked by its owner")


def _token_revoke(*, token: UserToken, actor: Actor, reason: str) -> None:
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    _audit(actor=actor, token=token, flag=CHANGE, message=f"Revoked ({reason}).")


def user_token_revoke(*, prefix: str, actor: Actor, reason: str = "revoked") -> UserToken:
    """Stop a personal token working at once; revoking a revoked one changes nothing."""
    with transaction.atomic():
        token = UserToken.objects.select_for_update().filter(prefix=prefix).first()
        if token is None:
            raise NotFound(f"No personal token with prefix {prefix!r}.")
        if token.revoked_at is None:
            _token_revoke(token=token, actor=actor, reason=reason)
    return token


def user_token_touch(*, token: UserToken) -> None:
    """Record use at most once a minute, like `api_key_touch`."""
    now = timezone.now()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        UserToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now


def _shadow_user(*, tenant: Tenant, kind: str, external_id: str) -> Any:
    digest = hashlib.sha256(f"{tenant.pk}:{kind}:{external_id}".encode()).hexdigest()[:20]
    username = f"t.{tenant.slug}.{'a.' if kind == EntityKind.AGENT else ''}{digest}"
    user = get_user_model()(username=username)
    # Nobody signs in as a shadow user; it exists so the engine's per-user isolation applies.
    user.set_unusable_password()
    user.save()
    return user


def _check_external_id(value: str, *, field: str) -> None:
    if field == "agent_id":
        ok = bool(AGENT_ID_PATTERN.match(value))
        rule = "1-100 letters, digits or _ . @ + -"
    else:
        ok = 0 < len(value) <= EXTERNAL_ID_MAX_CHARS and not re.search(r"[\x00-\x20\x7f]", value)
        rule = f"1-{EXTERNAL_ID_MAX_CHARS} characters without spaces or control characters"
    if not ok:
        raise MemoryServiceError(f"Invalid {field}.", field_errors={field: [f"Use {rule}."]})


def tenant_user_ensure(*, tenant: Tenant, external_id: str) -> tuple[Any, Namespace]:
    """The tenant's end user `external_id` and its namespace, created on first use."""
    _check_external_id(external_id, field="user_id")
    for _attempt in range(2):
        link = (
            TenantUser.objects.select_related("user").filter(tenant=tenant, external_id=external_id).first()
        )
        if link is not None:
            return link.user, namespace_for_user(user=link.user)
        try:
            with transaction.atomic():
                user = _shadow_user(tenant=tenant, kind=EntityKind.USER, external_id=external_id)
                TenantUser.objects.create(tenant=tenant, external_id=external_id, user=user)
                namespace = namespace_for_user(user=user)
                TenantNamespace.objects.create(
                    tenant=tenant, namespace=namespace, kind=EntityKind.USER, external_id=external_id
                )
                return user, namespace
        except IntegrityError:
            continue  # a concurrent first request created it: read it back
    raise Conflict("The user is being created by another request; retry.")


def tenant_agent_ensure(*, tenant: Tenant, agent_id: str) -> tuple[Any, Namespace]:
    """The tenant's agent namespace `agent/<slug>.<agent_id>` and the shadow user that owns it.

    The owner makes the engine's actor-scoped services (correct, erase, export …) work for agent
    memories exactly as for a user's, while no real person ever sees them.
    """
    _check_external_id(agent_id, field="agent_id")
    for _attempt in range(2):
        link = (
            TenantNamespace.objects.select_related("namespace__owner")
            .filter(tenant=tenant, kind=EntityKind.AGENT, external_id=agent_id)
            .first()
        )
        if link is not None:
            return link.namespace.owner, link.namespace
        try:
            with transaction.atomic():
                owner = _shadow_user(tenant=tenant, kind=EntityKind.AGENT, external_id=agent_id)
                namespace = namespace_create(path=f"agent/{tenant.slug}.{agent_id}", kind=NamespaceKind.AGENT)
                # namespace_create has no owner argument; the row is ours, just created, in this transaction.
                namespace.owner = owner
                namespace.save(update_fields=["owner"])
                TenantNamespace.objects.create(
                    tenant=tenant, namespace=namespace, kind=EntityKind.AGENT, external_id=agent_id
                )
                return owner, namespace
        except (IntegrityError, MemoryServiceError):
            continue  # created concurrently (read it back), or the path is taken outside the tenant
    raise Conflict(
        f"The namespace for agent {agent_id!r} cannot be created; retry, or choose another agent_id."
    )


def subject_ensure(
    *, tenant: Tenant | None, person: Any, user_id: str | None, agent_id: str | None, agents: bool = True
) -> Subject:
    """The subject a write addresses, created on first use: the tenant's end user `user_id` or agent
    `agent_id` (a shadow user and its namespace), or for a person (`tenant` None) their own namespace.
    The same address rules (`api.subjects`) as `api.selectors.subject_for`, which only reads."""
    address = subject_address(tenant=tenant, user_id=user_id, agent_id=agent_id, agents=agents)
    if tenant is None or address is None:
        return Subject(actor=person, namespace=namespace_for_user(user=person))
    kind, external_id = address
    if kind == EntityKind.USER:
        actor, namespace = tenant_user_ensure(tenant=tenant, external_id=external_id)
    else:
        actor, namespace = tenant_agent_ensure(tenant=tenant, agent_id=external_id)
    return Subject(actor, namespace, kind, external_id, tenant)


def tenant_entity_delete(*, link: TenantNamespace, requester: Requester | None = None) -> None:
    """Forget a tenant's user or agent entirely: erase its memories and its conversations the way
    the user would (every copy of their text, transcripts included), then delete its shadow user,
    and with it (by cascade) its namespace, tombstones and tokens. The erasure's receipt stays, for
    operators, without the account."""
    owner = link.namespace.owner
    with transaction.atomic():
        if owner is None:
            link.delete()
            return
        memory_erase_all_with_sources(
            user=owner, erase_sources=True, requester=requester, scope=ErasureScope.ENTITY
        )
        owner.delete()


def memories_add(*, subject: Subject, items: list[dict[str, Any]], api_key: bool) -> list[AddOutcome]:
    """Reconcile validated statements into the subject's namespace, all in one transaction: if one
    fails, none is kept. Stored as given (`exact`): a statement merges only into the same wording
    of the same speaker; a known slot (key given or inferred) still supersedes its old value."""
    # One model call for the whole batch instead of one per statement (the bulk of the cost).
    texts = [str(item.get("content") or "").strip() for item in items]
    vectors = embed_remembered(get_embedder(), texts) if all(texts) else [None] * len(items)
    actor_kind = ActorKind.API if api_key else ActorKind.USER
    try:
        requests = [
            write_request(
                actor=subject.actor,
                actor_kind=actor_kind,
                source_kind=SourceKind.API_IMPORT,
                embedding=vector,
                exact=True,
                **item,
            )
            for item, vector in zip(items, vectors, strict=True)
        ]
        with transaction.atomic():
            return memory_add_many(namespace=subject.namespace, requests=requests)
    except MemoryServiceError as exc:
        index = getattr(exc, "batch_index", None)
        if len(items) > 1 and index is not None:
            exc.message = f"Memory {index}: {exc.message}"
            exc.field_errors = {"memories": {str(index): exc.field_errors}}  # type: ignore[dict-item]
        raise


def tenant_moderator(*, tenant: Tenant) -> Any:
    """The account a tenant key moderates as (so the audit trail names the tenant): staff with the
    moderation permission, but no usable password and no token unless an operator issues one."""
    user, created = get_user_model().objects.get_or_create(
        username=f"t.{tenant.slug}.moderator", defaults={"is_staff": True}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
        user.user_permissions.add(
            Permission.objects.get(codename="moderate_memories", content_type__app_label="memory_core")
        )
    return user

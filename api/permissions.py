"""Scopes: a tenant key may do what its scopes list; a person may read, write and erase their own
memories (with a personal token, what its scopes list), and moderate only as an operator (active
staff with `memory_core.moderate_memories`)."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions, permissions
from rest_framework.request import Request

from api.models import ApiKey, ApiScope, UserToken
from memory_core.moderation import is_operator


def scope_allowed(
    *, user: Any, auth: Any, scope: str | None, users_only: bool = False, tenant_only: bool = False
) -> bool:
    """Whether this caller may do what needs `scope` (None: any valid credentials). False for no
    credentials at all; PermissionDenied, with the reason, for credentials that fall short. The API
    views (`HasScope`) and the MCP tools ask the same question."""
    key = auth if isinstance(auth, ApiKey) else None
    if key is not None:
        if users_only:
            raise exceptions.PermissionDenied("This endpoint is for personal tokens and sessions.")
        if scope is not None and scope not in key.scopes:
            raise exceptions.PermissionDenied(f"This API key lacks the '{scope}' scope.")
        return True
    if not (user and user.is_authenticated):
        return False
    if tenant_only:
        raise exceptions.PermissionDenied("This endpoint needs a tenant API key (mk_…).")
    if scope == ApiScope.MODERATE:
        if not is_operator(user):
            raise exceptions.PermissionDenied("Only operators may moderate procedures.")
    elif isinstance(auth, UserToken) and scope is not None and scope not in auth.scopes:
        raise exceptions.PermissionDenied(f"This token lacks the '{scope}' scope.")
    return True


class HasScope(permissions.BasePermission):
    """Reads the scope a method needs from the view's `scopes` map ({"GET": "read", …}); a method
    mapped to None needs only valid credentials."""

    def has_permission(self, request: Request, view: Any) -> bool:
        # False: no credentials, and DRF answers 401 with a WWW-Authenticate challenge.
        return scope_allowed(
            user=request.user,
            auth=request.auth,
            scope=view.scopes.get(request.method, ApiScope.READ),
            users_only=getattr(view, "users_only", False),
            tenant_only=getattr(view, "tenant_only", False),
        )

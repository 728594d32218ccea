"""Scopes: a tenant key may do what its scopes list; a person may read, write and erase their own
memories, and moderate only as an operator (active staff with `memory_core.moderate_memories`)."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions, permissions
from rest_framework.request import Request

from api.models import ApiKey, ApiScope
from memory_core.moderation import is_operator


class HasScope(permissions.BasePermission):
    """Reads the scope a method needs from the view's `scopes` map ({"GET": "read", …}); a method
    mapped to None needs only valid credentials."""

    def has_permission(self, request: Request, view: Any) -> bool:
        scope = view.scopes.get(request.method, ApiScope.READ)
        key = request.auth if isinstance(request.auth, ApiKey) else None
        if key is not None:
            if getattr(view, "users_only", False):
                raise exceptions.PermissionDenied("This endpoint is for personal tokens and sessions.")
            if scope is not None and scope not in key.scopes:
                raise exceptions.PermissionDenied(f"This API key lacks the '{scope}' scope.")
            return True
        user = request.user
        if not (user and user.is_authenticated):
            return False  # DRF answers 401 with a WWW-Authenticate challenge
        if getattr(view, "tenant_only", False):
            raise exceptions.PermissionDenied("This endpoint needs a tenant API key (mk_…).")
        if scope == ApiScope.MODERATE and not is_operator(user):
            raise exceptions.PermissionDenied("Only operators may moderate procedures.")
        return True

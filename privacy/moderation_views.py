"""Pages of operator moderation (/me/moderation/): the queue of proposed procedures, flagged write
attempts, and the procedures in use. Function views over `memory_core.moderation`; every form posts
to a real URL and answers with a redirect."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from memory_core.errors import MemoryServiceError
from memory_core.moderation import (
    current_procedures,
    flag_dismiss,
    flagged_writes,
    is_operator,
    pending_procedures,
    procedure_approve,
    procedure_create,
    procedure_reject,
    shared_namespaces,
)
from memory_core.services import default_org_namespace
from privacy.page_errors import error_text, raise_for_access


def _require_operator(request: HttpRequest) -> None:
    if not is_operator(request.user):
        raise DjangoPermissionDenied(_("Moderation is for operators."))


@login_required
@require_GET
def moderation(request: HttpRequest) -> HttpResponse:
    _require_operator(request)
    default_org_namespace()
    show_dismissed = request.GET.get("dismissed") == "1"
    context = {
        "pending": list(pending_procedures(operator=request.user)),
        "flags": list(flagged_writes(operator=request.user, include_dismissed=show_dismissed)[:200]),
        "show_dismissed": show_dismissed,
        "namespaces": list(shared_namespaces(operator=request.user)),
        "procedures": list(current_procedures(operator=request.user)[:500]),
        "default_namespace": settings.DEFAULT_ORG_NAMESPACE,
    }
    return render(request, "privacy/moderation.html", context)


def _moderate(request: HttpRequest, action: Any, done: str) -> HttpResponse:
    _require_operator(request)
    try:
        action()
    except MemoryServiceError as exc:
        raise_for_access(exc)
        messages.error(request, error_text(exc))
    else:
        messages.success(request, done)
    return redirect("privacy:moderation")


@login_required
@require_POST
def procedure_approve_view(request: HttpRequest, memory_id: Any) -> HttpResponse:
    return _moderate(
        request,
        lambda: procedure_approve(
            operator=request.user,
            memory_id=memory_id,
            content=request.POST.get("content") or None,
            namespace_path=request.POST.get("namespace_path") or None,
            reason=request.POST.get("reason", "").strip()[:500],
        ),
        _("Approved: assistants with access to the namespace use it from now on."),
    )


@login_required
@require_POST
def procedure_reject_view(request: HttpRequest, memory_id: Any) -> HttpResponse:
    return _moderate(
        request,
        lambda: procedure_reject(
            operator=request.user, memory_id=memory_id, reason=request.POST.get("reason", "")
        ),
        _("Rejected."),
    )


@login_required
@require_POST
def procedure_create_view(request: HttpRequest) -> HttpResponse:
    return _moderate(
        request,
        lambda: procedure_create(
            operator=request.user,
            namespace_path=request.POST.get("namespace_path", ""),
            content=request.POST.get("content", ""),
            category=request.POST.get("category", "sop"),
            key=request.POST.get("key", ""),
        ),
        _("Procedure saved and active."),
    )


@login_required
@require_POST
def flag_dismiss_view(request: HttpRequest, flag_id: int) -> HttpResponse:
    return _moderate(
        request, lambda: flag_dismiss(operator=request.user, flag_id=flag_id), _("Flag dismissed.")
    )

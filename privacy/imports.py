"""The import page (/me/import/): bring memories from mem0, ChatGPT or Claude, or a transcript.

Upload a file or paste text, pick the format, preview (a dry run: nothing is written), then
import. A small import is written at once; a large one runs as a job whose page polls its
progress with htmx (and refreshes itself without JavaScript).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config.typing import HtmxHttpRequest
from memory_core import judgement
from memory_core.choices import ActorKind, ImportFormat, ImportStatus
from memory_core.errors import MemoryServiceError, NotFound
from memory_core.imports import (
    import_create,
    import_job_for,
    import_jobs,
    import_preview,
    import_results,
    import_retry,
    import_start,
)
from memory_core.imports.parsers import max_bytes
from memory_core.models import Namespace
from memory_core.services import namespace_for_user
from privacy.event_labels import FORMATS, STATUSES, label
from privacy.page_errors import said

RECENT = 10
# Why a pasted line was left out (`memory_core.imports.pasted.text_skips`), as the page says it.
_SKIP_REASONS = {
    "title": _("a title above the list"),
    "closing line": _("the assistant's closing line, not a memory"),
    "separator": _("a separator"),
}
_LABELS = {
    "added": pgettext_lazy("import outcome", "added"),
    "merged": pgettext_lazy("import outcome", "merged into an existing memory"),
    "superseded": pgettext_lazy("import outcome", "replaces an older value"),
    "pending_review": pgettext_lazy("import outcome", "waits for an operator (a rule)"),
    "ignored": pgettext_lazy("import outcome", "skipped"),
    "rejected": pgettext_lazy("import outcome", "refused"),
}


def _labelled(job: Any) -> Any:
    """The job with its format and status in the page's language (`format_label`, `status_label`)."""
    job.format_label = label(FORMATS, job.format, job.get_format_display())
    job.status_label = label(STATUSES, job.status, job.get_status_display().lower())
    return job


class _BadInput(Exception):
    """The form cannot be read (no input, too large, not text): shown with a 400."""


def _own(request: HttpRequest) -> Any:
    return Namespace.objects.owned_by(request.user).values("id")


def _read_file(upload: UploadedFile) -> str:
    if upload.size is not None and upload.size > max_bytes():
        raise _BadInput(
            _("The file is too large: %(size)s bytes, at most %(max)s.")
            % {"size": upload.size, "max": max_bytes()}
        )
    try:
        return upload.read(max_bytes() + 1).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _BadInput(_("The file is not UTF-8 text (export it as JSON or plain text).")) from None


def _form_data(request: HttpRequest) -> tuple[str, str]:
    """(format, the file's text or the pasted text)."""
    upload = request.FILES.get("file")
    text = _read_file(upload) if upload is not None else request.POST.get("text", "")
    if not text.strip():
        raise _BadInput(_("Nothing to import: choose a file or paste your memories, one a line."))
    return request.POST.get("format", ""), text


def _page(request: HttpRequest, *, status: int = 200, **context: Any) -> HttpResponse:
    context = {
        "formats": [(value, label(FORMATS, value, name)) for value, name in ImportFormat.choices],
        "chosen": ImportFormat.TEXT,
        "text": "",
        "max_bytes": max_bytes(),
        "jobs": [_labelled(job) for job in import_jobs(namespace_ids=_own(request))[:RECENT]],
        "labels": _LABELS,
        "skip_reasons": _SKIP_REASONS,
        **context,
    }
    return render(request, "privacy/import.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def import_page(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return _page(request)
    try:
        format, text = _form_data(request)
    except _BadInput as exc:
        return _page(request, status=400, error=str(exc), chosen=request.POST.get("format", ""))
    # The form keeps what was brought, to import after a preview; a secret in it is not echoed
    # back (imported redacted, its line is refused all the same).
    kept: dict[str, Any] = {"chosen": format, "text": judgement.secrets(text).redacted}
    try:
        if request.POST.get("dry_run"):
            with transaction.atomic():  # even the user's first namespace is rolled back with the rest
                preview = import_preview(
                    namespace=namespace_for_user(user=request.user),
                    format=format,
                    data=text,
                    actor_kind=ActorKind.USER,
                )
                transaction.set_rollback(True)
            shown = {
                "total": preview.total,
                "previewed": preview.previewed,
                "bounded": preview.bounded,
                "unit": "messages" if format == ImportFormat.TRANSCRIPT else "statements",
            }
            return _page(request, preview=preview.rows, preview_of=shown, skipped=preview.skipped, **kept)
        with transaction.atomic():
            job = import_create(
                namespace=namespace_for_user(user=request.user),
                format=format,
                data=text,
                actor_kind=ActorKind.USER,
            )
        import_start(job=job)  # a small one now, one committed chunk at a time
    except MemoryServiceError as exc:
        return _page(request, status=exc.status_code, error=said(exc), **kept)
    return redirect("privacy:import_job", import_id=job.pk)


@login_required
@require_POST
def import_retry_view(request: HttpRequest, import_id: Any) -> HttpResponse:
    """Go on with a failed import where it stopped (the button on its page)."""
    try:
        import_retry(job=import_job_for(namespace_ids=_own(request), job_id=import_id))
    except NotFound as exc:
        raise Http404(exc.message) from exc
    except MemoryServiceError:
        pass  # not failed (any more): its page says what it is doing
    return redirect("privacy:import_job", import_id=import_id)


@login_required
@require_GET
def import_job(request: HtmxHttpRequest, import_id: Any) -> HttpResponse:
    try:
        job = import_job_for(namespace_ids=_own(request), job_id=import_id)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    running = job.status in (ImportStatus.QUEUED, ImportStatus.RUNNING)
    context = {
        "job": _labelled(job),
        "running": running,
        "percent": int(100 * job.done / job.total) if job.total else 0,
        "results": import_results(job) if not running else [],
        "labels": _LABELS,
    }
    template = "privacy/import_job.html#progress" if request.htmx else "privacy/import_job.html"
    return render(request, template, context)

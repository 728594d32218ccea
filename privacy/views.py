"""Pages of "What the AI knows about me" (/me/) and of operator moderation (/me/moderation/).

Function views over the memory_core services. Every form posts to a real URL and answers with a
redirect, so the pages work without JavaScript; htmx requests get the partial they replace.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from chat.erasure import memory_erase_all_with_sources, memory_erase_with_sources
from chat.selectors import conversations_for_memory
from config.typing import HtmxHttpRequest
from memory_core.embedding_coverage import local_model_serves_poorly
from memory_core.errors import MemoryServiceError, NotFound, PermissionDenied
from memory_core.forgetting import archived_entries, forgetting_runs, memory_restore
from memory_core.lifecycle import (
    activity_log,
    memory_always_recall,
    memory_correct,
    memory_hide,
    memory_pause,
    memory_unhide,
)
from memory_core.models import CONTENT_MAX_CHARS, MemoryEntry
from memory_core.moderation import (
    rule_decisions,
)
from memory_core.selectors import erasure_receipts, memory_access, memory_entries_by_ids, memory_versions
from memory_core.services import namespace_for_user
from privacy.bulk import (
    UNDO_SECONDS,
    bulk_apply,
    erasure_undo,
    pending_erasures_settle,
)
from privacy.memory_page import memory_page
from privacy.page_errors import engine_message, error_text, raise_for_access
from privacy.selectors import (
    GROUPS,
    STATUS_CHOICES,
    MemoryFilters,
    Scope,
    counted_page,
    earlier_version_matches,
    memory_cards,
    memory_rows,
    memory_search,
    memory_totals,
    staff_access,
)
from privacy.services import REMEMBER_KINDS, privacy_export, privacy_remember

PAGE_SIZE = 50
ARCHIVED_SHOWN = 50
ERASE_ALL_PHRASE = "erase everything"


def _erase_all_phrase() -> str:
    """What to type to erase everything, in the page's language (the English one is accepted too)."""
    return pgettext("the words typed to confirm erasing everything", "erase everything")


_OUTCOMES = {
    "added": gettext_lazy("Remembered."),
    "merged": gettext_lazy("The assistant already knew that; it is noted again."),
    "superseded": gettext_lazy("Remembered; it replaces an older memory, kept in its history."),
    "ignored": gettext_lazy("The assistant already has that noted."),
    "pending_review": gettext_lazy(
        "That is a rule for how the assistant works: an operator reviews it before it is used."
    ),
    "rejected": gettext_lazy("Not stored: it looks like a secret, and secrets are never remembered."),
}


def _entry_url(entry_id: Any) -> str:
    return reverse("privacy:memory", args=[entry_id])


# --- What the AI knows about me --------------------------------------------------------------


def _list_context(request: HtmxHttpRequest) -> dict[str, Any]:
    """What /me/ shows: the totals, the list as filtered, the archived ones and the banners."""
    waiting = pending_erasures_settle(user=request.user)  # what is past its Undo window goes now
    filters = MemoryFilters.from_query(request.GET)
    scope = Scope.of(request.user)  # the namespaces, resolved once for the totals and the page
    totals = memory_totals(user=request.user, exclude=waiting, scope=scope)
    earlier = earlier_version_matches(user=request.user, query=filters.q, scope=scope) if filters.q else {}
    rows = memory_search(user=request.user, filters=filters, exclude=waiting, scope=scope, also=list(earlier))
    paginator = Paginator(rows, PAGE_SIZE)
    known = totals.count(filters)
    if known is not None:
        paginator.count = known  # the totals counted it already: no second scan of the list
    if filters.q:
        page = counted_page(rows, paginator, request.GET.get("page"))  # the page and its count in one query
    else:
        page = paginator.get_page(request.GET.get("page"))
    cards = memory_rows(user=request.user, entries=list(page.object_list))
    for card in cards:
        card.found_earlier = earlier.get(card.entry.pk, "")
    shown_all, shown_groups = totals.of_status(filters)
    context = {
        # Archived ones are counted by the totals: listed only when there are some.
        "archived": list(archived_entries(actor=request.user).exclude(pk__in=waiting)[:ARCHIVED_SHOWN])
        if totals.archived
        else [],
        "archived_count": totals.archived,
        "namespace": namespace_for_user(user=request.user),
        "filters": filters,
        "cards": cards,
        "totals": totals,
        "shown_all": shown_all,
        "shown_groups": shown_groups,
        "decisions": list(rule_decisions(user=request.user)),
        "group_choices": GROUPS,
        "status_choices": STATUS_CHOICES,
        "remember_kinds": list(REMEMBER_KINDS),
        "page": page,
        "undo": _undo_banner(request),
        "embedding_hint": local_model_serves_poorly(actor=request.user),
    }
    return context


@login_required
@require_GET
def index(request: HtmxHttpRequest) -> HttpResponse:
    template = "privacy/index.html"
    if request.htmx and request.htmx.target == "memory-list":
        template += "#memory_list"
    return render(request, template, _list_context(request))


# The Undo banner of the last bulk action, kept in the session for the next page only.
_UNDO_KEY = "privacy_undo"
_BULK_DONE = {
    "hide": gettext_lazy("Hidden: the assistant will not use %(n)s."),
    "unhide": gettext_lazy("The assistant may use %(n)s again."),
    "erase": gettext_lazy("Erasing %(n)s for good in %(s)s seconds."),
}
_UNDO_ACTION = {"hide": "unhide", "unhide": "hide"}


def _plural(n: int) -> str:
    return ngettext("%(n)d memory", "%(n)d memories", n) % {"n": n}


def _undo_banner(request: HttpRequest) -> dict[str, Any] | None:
    banner = request.session.pop(_UNDO_KEY, None)
    return banner if isinstance(banner, dict) else None


def _back_to_list(request: HttpRequest) -> HttpResponse:
    """To the list with the filters and page the user came from (a query string only, never a URL)."""
    query = request.POST.get("back", "")
    return redirect(reverse("privacy:index") + (f"?{query}" if query and "//" not in query else ""))


@login_required
@require_POST
def bulk(request: HttpRequest) -> HttpResponse:
    """Hide, use again or erase the selected memories; the next page offers Undo."""
    action = request.POST.get("action", "")
    ids = request.POST.getlist("ids")
    if not ids:
        messages.error(request, _("Select one or more memories first."))
        return _back_to_list(request)
    try:
        result = bulk_apply(user=request.user, action=action, ids=ids)
    except MemoryServiceError as exc:
        messages.error(request, error_text(exc))
        return _back_to_list(request)
    if result.done:
        text = str(_BULK_DONE[action]) % {"n": _plural(len(result.done)), "s": UNDO_SECONDS}
        undo: dict[str, Any] = {"text": text}
        if result.pending is not None:
            undo["pending"] = result.pending.pk
        elif action in _UNDO_ACTION:
            undo.update(action=_UNDO_ACTION[action], ids=result.done)
        request.session[_UNDO_KEY] = undo
    if result.skipped:
        left = _plural(result.skipped)
        messages.warning(
            request, _("%(left)s left as they were (not yours, or not possible).") % {"left": left}
        )
    return _back_to_list(request)


@login_required
@require_POST
def erasure_undo_view(request: HttpRequest) -> HttpResponse:
    try:
        restored = erasure_undo(user=request.user, pending_id=request.POST.get("pending", ""))
    except NotFound as exc:
        messages.error(request, engine_message(exc.message))
    else:
        messages.success(request, _("Undone: %(n)s kept.") % {"n": _plural(restored)})
    return _back_to_list(request)


@login_required
@require_GET
def memory_detail(request: HttpRequest, memory_id: Any) -> HttpResponse:
    """One memory: statement, status and validity, sources, uses, versions, actions."""
    try:
        page = memory_page(user=request.user, memory_id=memory_id)
    except MemoryServiceError as exc:
        raise_for_access(exc)
        raise
    return render(request, "privacy/memory.html", {"page": page, "card": page.card, "entry": page.entry})


@login_required
@require_GET
def memory_row(request: HtmxHttpRequest, memory_id: Any) -> HttpResponse:
    """The body of one row of the list (source, use, history, actions), loaded when it is opened;
    without htmx, the memory's own page."""
    try:
        entry = memory_access(actor=request.user, memory_id=memory_id)
    except MemoryServiceError as exc:
        raise_for_access(exc)
        raise
    if not request.htmx:
        return redirect(_entry_url(entry.pk))
    card = memory_cards(user=request.user, entries=[entry])[0]
    return render(request, "privacy/index.html#row_body", {"card": card, "entry": entry})


def _entry_response(request: HtmxHttpRequest, entry: MemoryEntry, done: str, error: str = "") -> HttpResponse:
    if request.htmx:
        card = memory_cards(user=request.user, entries=[entry])[0]
        context = {"card": card, "error": error, "notice": done, "expanded": True}
        return render(request, "privacy/index.html#entry", context)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, done)
    return redirect(_entry_url(entry.pk))


def _too_long(content: str) -> str:
    """Why a text over a memory's limit is refused whole (the forms have no maxlength: never cut)."""
    return _(
        "This is %(length)s characters long; one memory holds at most %(limit)s. Nothing was saved: "
        "shorten it, or keep the part that matters, or add it as several memories, one statement each."
    ) % {"length": f"{len(content.strip()):,}", "limit": f"{CONTENT_MAX_CHARS:,}"}


def _remember_refused(request: HtmxHttpRequest, content: str, kind: str, error: str) -> HttpResponse:
    """/me/ again with the "remember" form open, holding what was typed, and the reason (a 400)."""
    context = {
        **_list_context(request),
        "remember_text": content,
        "remember_kind": kind,
        "remember_error": error,
    }
    return render(request, "privacy/index.html", context, status=400)


@login_required
@require_POST
def remember(request: HtmxHttpRequest) -> HttpResponse:
    content, kind = request.POST.get("content", ""), request.POST.get("kind", "fact")
    if len(content.strip()) > CONTENT_MAX_CHARS:
        return _remember_refused(request, content, kind, _too_long(content))
    try:
        outcome = privacy_remember(user=request.user, content=content, kind=kind)
    except MemoryServiceError as exc:
        return _remember_refused(request, content, kind, error_text(exc))
    # The message never repeats the content: flash messages may be stored in the session.
    (messages.warning if outcome.action == "rejected" else messages.success)(
        request, str(_OUTCOMES[outcome.action])
    )
    return redirect(_entry_url(outcome.entry.pk) if outcome.entry is not None else reverse("privacy:index"))


@login_required
@require_POST
def correct(request: HtmxHttpRequest, memory_id: Any) -> HttpResponse:
    content = request.POST.get("content", "")
    try:
        if len(content.strip()) > CONTENT_MAX_CHARS:
            raise MemoryServiceError(_too_long(content))
        new = memory_correct(
            actor=request.user,
            memory_id=memory_id,
            content=content,
            reason=request.POST.get("reason", "").strip()[:500],
        )
    except MemoryServiceError as exc:
        raise_for_access(exc)
        entry = memory_access(actor=request.user, memory_id=memory_id)
        if request.htmx:
            card = memory_cards(user=request.user, entries=[entry])[0]
            context = {"card": card, "error": error_text(exc), "expanded": True, "typed": content}
            return render(request, "privacy/index.html#entry", context)  # htmx swaps 2xx only
        # The memory's page again, its correct form open and holding what was typed.
        page = memory_page(user=request.user, memory_id=entry.pk)
        context = {
            "page": page,
            "card": page.card,
            "entry": page.entry,
            "error": error_text(exc),
            "typed": content,
        }
        return render(request, "privacy/memory.html", context, status=400)
    return _entry_response(
        request, new, _("Corrected. The old version is kept in the history as superseded.")
    )


@login_required
@require_POST
def hide(request: HtmxHttpRequest, memory_id: Any) -> HttpResponse:
    return _status_change(request, memory_id, memory_hide, _("Hidden: the assistant will not use it."))


@login_required
@require_POST
def unhide(request: HtmxHttpRequest, memory_id: Any) -> HttpResponse:
    return _status_change(request, memory_id, memory_unhide, _("The assistant may use it again."))


@login_required
@require_POST
def restore(request: HtmxHttpRequest, memory_id: Any) -> HttpResponse:
    return _status_change(
        request, memory_id, memory_restore, _("Restored: the assistant uses it again, and the job keeps it.")
    )


@login_required
@require_POST
def always_recall(request: HtmxHttpRequest, memory_id: Any) -> HttpResponse:
    return _status_change(
        request,
        memory_id,
        partial(memory_always_recall, always=True),
        _("Always recalled: the assistant is given it with every answer."),
    )


@login_required
@require_POST
def not_always_recall(request: HtmxHttpRequest, memory_id: Any) -> HttpResponse:
    """The write path pinned it as a safety fact and it is not one: recalled only when it fits."""
    return _status_change(
        request,
        memory_id,
        partial(memory_always_recall, always=False),
        _("No longer always recalled: the assistant uses it only when it fits the question."),
    )


def _status_change(request: HtmxHttpRequest, memory_id: Any, service: Any, done: str) -> HttpResponse:
    try:
        entry = service(actor=request.user, memory_id=memory_id)
    except MemoryServiceError as exc:
        raise_for_access(exc)
        return _entry_response(
            request, memory_access(actor=request.user, memory_id=memory_id), "", error_text(exc)
        )
    return _entry_response(request, entry, done)


@login_required
@require_http_methods(["GET", "POST"])
def erase(request: HttpRequest, memory_id: Any) -> HttpResponse:
    try:
        entry = memory_access(actor=request.user, memory_id=memory_id)
        if entry.namespace.owner_id != request.user.pk:
            raise PermissionDenied("Shared procedures are read-only; an operator maintains them.")
        if request.method == "POST":
            receipt = memory_erase_with_sources(
                user=request.user,
                memory_id=memory_id,
                erase_sources=request.POST.get("erase_sources") == "on",
            )
            deleted = receipt.conversations
            note = (
                " " + ngettext("%(n)d conversation deleted too.", "%(n)d conversations deleted too.", deleted)
                if deleted
                else ""
            ) % {"n": deleted}
            messages.success(request, _("Erased for good, with its older versions.") + note)
            return redirect("privacy:index")
        versions = memory_versions(actor=request.user, memory_id=memory_id)
        conversations = list(conversations_for_memory(user=request.user, memory_id=memory_id))
    except MemoryServiceError as exc:
        raise_for_access(exc)
        raise
    return render(
        request,
        "privacy/erase.html",
        {"entry": entry, "older": len(versions) - 1, "conversations": conversations},
    )


@login_required
@require_http_methods(["GET", "POST"])
def erase_all(request: HttpRequest) -> HttpResponse:
    error = ""
    if request.method == "POST":
        phrase = _erase_all_phrase()
        if request.POST.get("confirm", "").strip().casefold() in {ERASE_ALL_PHRASE, phrase.casefold()}:
            receipt = memory_erase_all_with_sources(
                user=request.user, erase_sources=request.POST.get("erase_sources") == "on"
            )
            memories, conversations = receipt.entries, receipt.conversations
            messages.success(
                request,
                ngettext("Erased %(n)s memory", "Erased %(n)s memories", memories) % {"n": memories}
                + ngettext(" and %(n)s conversation.", " and %(n)s conversations.", conversations)
                % {"n": conversations},
            )
            return redirect("privacy:index")
        error = _("Type “%(phrase)s” to confirm.") % {"phrase": phrase}
    return render(
        request,
        "privacy/erase_all.html",
        {"phrase": _erase_all_phrase(), "error": error},
        status=400 if error else 200,
    )


@login_required
@require_GET
def export(request: HttpRequest) -> HttpResponse:
    data = privacy_export(user=request.user)
    response = JsonResponse(
        data, encoder=DjangoJSONEncoder, json_dumps_params={"indent": 2, "ensure_ascii": False}
    )
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response["Content-Disposition"] = f'attachment; filename="memories-{stamp}.json"'
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def pause(request: HttpRequest) -> HttpResponse:
    paused = request.POST.get("paused") == "1"
    memory_pause(actor=request.user, paused=paused)
    messages.success(
        request,
        _("Memory paused: the assistant neither recalls nor learns anything until you resume.")
        if paused
        else _("Memory resumed."),
    )
    return redirect("privacy:index")


@login_required
@require_GET
def activity(request: HttpRequest) -> HttpResponse:
    items = activity_log(actor=request.user, limit=200)
    entries = memory_entries_by_ids(actor=request.user, ids=list({item.memory_id for item in items}))
    rows = [(item, entries.get(str(item.memory_id))) for item in items]
    context = {
        "rows": rows,
        "staff": staff_access(user=request.user),
        "erasures": list(erasure_receipts(actor=request.user)[:100]),
        "forgetting": forgetting_runs(actor=request.user),
    }
    return render(request, "privacy/activity.html", context)

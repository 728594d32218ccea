"""Pages of the chat: conversation list, message pane, and the turn.

Every form has a real action and works without JavaScript (POST → the reply is generated in the
request → redirect). With htmx, sending returns the user's message at once with a "thinking"
placeholder; static/js/chat.js then streams the reply from `message_stream` (server-sent events)
and swaps in the final rendered turn. A conversation is reached only through
`conversation_access`, so a missing one and someone else's both answer 404.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Iterator
from typing import Any

from django.contrib import messages as flash
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_htmx.http import HttpResponseClientRedirect

from chat.context_processors import offline_mode
from chat.erasure import memory_erase_with_sources
from chat.models import Conversation, Message
from chat.selectors import (
    conversation_access,
    conversation_list,
    conversation_notices,
    conversation_turns,
    mark_learning,
    message_access,
    turn_for_message,
)
from chat.services import (
    MESSAGE_MAX_CHARS,
    TITLE_MAX_CHARS,
    conversation_close,
    conversation_create,
    conversation_delete,
    conversation_rename,
    message_post,
    message_retry,
    turn_reply,
    turn_stream,
)
from config.typing import HtmxHttpRequest
from memory_core.errors import MemoryServiceError, NotFound
from memory_core.llm import LLMError
from memory_core.models import MemoryEvent
from memory_core.moderation import rule_decisions
from memory_core.services import namespace_for_user

logger = logging.getLogger(__name__)

PAGE = "chat/chat.html"


# --- helpers ---------------------------------------------------------------------------------


def _conversation(request: HtmxHttpRequest, conversation_id: Any) -> Conversation:
    try:
        return conversation_access(user=request.user, conversation_id=conversation_id)
    except NotFound as exc:
        raise Http404(exc.message) from None


def _message(request: HtmxHttpRequest, conversation: Conversation, message_id: Any) -> Message:
    try:
        return message_access(user=request.user, conversation=conversation, message_id=message_id)
    except NotFound as exc:
        raise Http404(exc.message) from None


def _partial(request: HtmxHttpRequest) -> bool:
    # A history restore (Back after hx-push-url, cache missed) needs the whole page.
    return bool(request.htmx) and not request.htmx.history_restore_request


def _render(
    request: HtmxHttpRequest, template: str, context: dict[str, Any], status: int = 200
) -> HttpResponse:
    # offline_mode is also a context processor; passed here so the banner never depends on settings.
    return render(request, template, {**offline_mode(request), **context}, status=status)


def _page(request: HtmxHttpRequest, conversation: Conversation | None, **extra: Any) -> dict[str, Any]:
    context: dict[str, Any] = {
        "conversations": conversation_list(user=request.user),
        "conversation": conversation,
        "memory_paused": namespace_for_user(user=request.user).memory_paused,
        "max_chars": MESSAGE_MAX_CHARS,
        "title_max_chars": TITLE_MAX_CHARS,
    }
    context["decisions"] = _new_rule_decisions(request)
    if conversation is not None:
        context["turns"] = conversation_turns(user=request.user, conversation=conversation)
        context["notices"] = conversation_notices(user=request.user, conversation=conversation)
        mark_learning(context["turns"], context["notices"].learning)
    return {**context, **extra}


# The newest operator decision on the user's rules already shown in chat (each is shown there once;
# /me/ lists them for 30 days and the memory's page for good).
_DECISIONS_SEEN = "chat_rule_decisions_seen"


def _new_rule_decisions(request: HtmxHttpRequest) -> list[MemoryEvent]:
    seen = request.session.get(_DECISIONS_SEEN, 0)
    decisions = list(rule_decisions(user=request.user, after_id=seen if isinstance(seen, int) else 0))
    if decisions:
        request.session[_DECISIONS_SEEN] = max(event.pk for event in decisions)
    return decisions


def _conversation_url(conversation: Conversation, message: Message | None = None) -> str:
    url = reverse("chat:conversation", args=[conversation.pk])
    return f"{url}#m-{message.pk}" if message is not None else url


def _turn_response(
    request: HtmxHttpRequest, conversation: Conversation, message: Message, undone: str = ""
) -> HttpResponse:
    turn = turn_for_message(user=request.user, conversation=conversation, message=message)
    return _render(request, f"{PAGE}#turn", {"conversation": conversation, "turn": turn, "undone": undone})


def _composer_error(
    request: HtmxHttpRequest, conversation: Conversation | None, error: MemoryServiceError, text: str
) -> HttpResponse:
    """The reason, as a 400; nothing is saved. With htmx only the reason is swapped in, so the box
    keeps what was typed. Without, the page comes back with the text, unless it is over the limit:
    a long text is never sent back (the browser's Back still has it)."""
    too_long = len(text) > MESSAGE_MAX_CHARS
    reason = error.message
    if too_long:
        reason = _(
            "Your message has %(length)s characters; the limit is %(limit)s. "
            "Nothing was sent: shorten it and send it again."
        ) % {"length": f"{len(text):,}", "limit": f"{MESSAGE_MAX_CHARS:,}"}
    if _partial(request):
        context = {"composer_error": reason, "composer_over_limit": too_long}
        response = _render(request, f"{PAGE}#composer_error", context, status=400)
        # chat.js lets htmx swap this 400 in place of the usual target (the message list).
        response["HX-Retarget"] = "#composer-error"
        response["HX-Reswap"] = "outerHTML"
        return response
    extra = {
        "composer_error": reason,
        "composer_over_limit": too_long,
        "composer_text": "" if too_long else text,
    }
    return _render(request, PAGE, _page(request, conversation, **extra), status=400)


@login_required
@require_safe
def conversation_state(request: HtmxHttpRequest, conversation_id: Any) -> JsonResponse:
    """What another tab needs to notice changes: the latest message id and the title (polled)."""
    conversation = _conversation(request, conversation_id)
    latest = conversation.messages.order_by("-id").values_list("pk", flat=True).first()
    return JsonResponse({"last": latest or 0, "title": conversation.display_title})


# --- pages -----------------------------------------------------------------------------------


@login_required
@require_safe
def home(request: HtmxHttpRequest) -> HttpResponse:
    template = f"{PAGE}#pane" if _partial(request) else PAGE
    return _render(request, template, _page(request, None))


@login_required
@require_safe
def conversation_detail(request: HtmxHttpRequest, conversation_id: Any) -> HttpResponse:
    conversation = _conversation(request, conversation_id)
    template = f"{PAGE}#pane" if _partial(request) else PAGE
    return _render(request, template, _page(request, conversation))


@login_required
@require_POST
def conversation_new(request: HtmxHttpRequest) -> HttpResponse:
    """A new (optionally incognito) conversation, and its first message when one was typed."""
    incognito = request.POST.get("incognito") in ("1", "on", "true")
    text = request.POST.get("content", "")
    message = None
    try:
        with transaction.atomic():  # an invalid first message leaves no empty conversation behind
            conversation = conversation_create(user=request.user, incognito=incognito)
            if text.strip():
                message = message_post(conversation=conversation, content=text)
    except MemoryServiceError as exc:
        return _composer_error(request, None, exc, text)
    if message is not None and not request.htmx:
        _answer(request, conversation, message)
    if request.htmx:
        # The conversation page streams the pending reply as soon as it loads.
        return HttpResponseClientRedirect(_conversation_url(conversation))
    return redirect(_conversation_url(conversation, message))


@login_required
@require_POST
def conversation_rename_view(request: HtmxHttpRequest, conversation_id: Any) -> HttpResponse:
    conversation = _conversation(request, conversation_id)
    try:
        conversation_rename(conversation=conversation, title=request.POST.get("title", ""))
    except MemoryServiceError as exc:
        errors = "; ".join(exc.field_errors.get("title", [exc.message]))
        flash.error(request, _("Not renamed: %(errors)s") % {"errors": errors})
    return redirect(_conversation_url(conversation))


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def conversation_delete_view(request: HtmxHttpRequest, conversation_id: Any) -> HttpResponse:
    """GET asks for confirmation, POST deletes (the memories learned from it stay)."""
    conversation = _conversation(request, conversation_id)
    if request.method == "POST":
        conversation_delete(conversation=conversation)
        flash.success(request, _("Conversation deleted. What the assistant learned from it stays in memory."))
        return redirect("chat:home")
    return _render(request, "chat/conversation_delete.html", {"conversation": conversation})


@login_required
@require_POST
def conversation_end(request: HtmxHttpRequest, conversation_id: Any) -> HttpResponse:
    conversation = _conversation(request, conversation_id)
    job = conversation_close(conversation=conversation)
    if conversation.incognito:
        flash.info(request, _("Conversation ended. It was incognito, so nothing from it was remembered."))
    elif job is not None:
        flash.info(request, _("Conversation ended. What it taught me is being saved to memory."))
    elif namespace_for_user(user=request.user).memory_paused:
        flash.info(request, _("Conversation ended. Memory is paused, so nothing from it was remembered."))
    else:
        flash.info(request, _("Conversation ended. There was nothing new to learn from it."))
    return redirect(_conversation_url(conversation))


@login_required
@require_safe
def conversation_notices_view(request: HtmxHttpRequest, conversation_id: Any) -> HttpResponse:
    """The "memory updated" notices; polled by the page while an extraction job is unfinished."""
    conversation = _conversation(request, conversation_id)
    if not _partial(request):
        return redirect(_conversation_url(conversation))
    notices = conversation_notices(user=request.user, conversation=conversation)
    return _render(request, f"{PAGE}#notices", {"conversation": conversation, "notices": notices})


# --- the turn --------------------------------------------------------------------------------


def _answer(request: HtmxHttpRequest, conversation: Conversation, message: Message) -> None:
    """Generate the reply within this request (the no-JavaScript path)."""
    # On LLMError the message is kept, marked failed with the reason; the page shows it with Retry.
    with contextlib.suppress(LLMError):
        turn_reply(user=request.user, conversation=conversation, user_message=message)


@login_required
@require_POST
def message_send(request: HtmxHttpRequest, conversation_id: Any) -> HttpResponse:
    conversation = _conversation(request, conversation_id)
    text = request.POST.get("content", "")
    try:
        message = message_post(conversation=conversation, content=text)
    except MemoryServiceError as exc:
        return _composer_error(request, conversation, exc, text)
    if request.htmx:
        return _turn_response(request, conversation, message)
    _answer(request, conversation, message)
    return redirect(_conversation_url(conversation, message))


@login_required
@require_POST
def message_retry_view(request: HtmxHttpRequest, conversation_id: Any, message_id: Any) -> HttpResponse:
    conversation = _conversation(request, conversation_id)
    message = _message(request, conversation, message_id)
    try:
        message_retry(message=message)
    except MemoryServiceError as exc:
        if not request.htmx:
            flash.info(request, exc.message)
            return redirect(_conversation_url(conversation, message))
        return _turn_response(request, conversation, message)
    if request.htmx:
        return _turn_response(request, conversation, message)
    _answer(request, conversation, message)
    return redirect(_conversation_url(conversation, message))


@login_required
@require_safe
def message_turn(request: HtmxHttpRequest, conversation_id: Any, message_id: Any) -> HttpResponse:
    """One turn (question, reply, memories used) rendered alone, swapped in after streaming."""
    conversation = _conversation(request, conversation_id)
    message = _message(request, conversation, message_id)
    if not _partial(request):
        return redirect(_conversation_url(conversation, message))
    return _turn_response(request, conversation, message)


@login_required
@require_POST
def memory_undo(
    request: HtmxHttpRequest, conversation_id: Any, message_id: Any, memory_id: Any
) -> HttpResponse:
    """Undo what a message taught at once: the memory is erased, with a tombstone, so extracting the
    conversation later does not learn it again. Only a memory first learned from this turn (not
    one known before that it only said again), and that did not replace an older version (erasing
    it would take the older one too: its page says so)."""
    conversation = _conversation(request, conversation_id)
    message = _message(request, conversation, message_id)
    turn = turn_for_message(user=request.user, conversation=conversation, message=message)
    taught = {str(e.pk): e for e in turn.taught if e.pk in turn.first_taught}  # by its message or reply
    entry = taught.get(str(memory_id))
    if entry is None or entry.supersedes_id:
        raise Http404("Nothing to undo here.")
    memory_erase_with_sources(user=request.user, memory_id=entry.pk)
    if request.htmx:
        return _turn_response(request, conversation, message, undone=entry.content)
    flash.success(
        request, _("Undone: the assistant forgot it and will not learn it again from this message.")
    )
    return redirect(_conversation_url(conversation, message))


def _sse(event: str, data: dict[str, Any]) -> str:
    # JSON keeps newlines in the text from ending the event early.
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


def _events(request: HtmxHttpRequest, conversation: Conversation, message: Message) -> Iterator[str]:
    turn_url = reverse("chat:turn", args=[conversation.pk, message.pk])
    yield ": generating\n\n"  # sends the headers now, before the model's first token
    if message.status != Message.Status.PENDING or Message.objects.filter(reply_to=message).exists():
        # Answered or failed already: nothing is generated again (retry is an explicit POST).
        yield _sse("done" if message.status == Message.Status.COMPLETE else "failed", {"url": turn_url})
        return
    try:
        for kind, value in turn_stream(user=request.user, conversation=conversation, user_message=message):
            if kind == "delta":
                yield _sse("delta", {"text": value})
            elif kind == "done":
                yield _sse("done", {"url": turn_url})
            else:
                yield _sse("failed", {"url": turn_url, "error": value.message})
    except Exception:
        # Not the model's failure (turn_stream reports those): the message stays pending, retryable.
        logger.exception("streaming the reply to message %s failed", message.pk)
        yield _sse("failed", {"url": turn_url, "error": "The reply could not be generated."})


@login_required
@require_safe
def message_stream(request: HtmxHttpRequest, conversation_id: Any, message_id: Any) -> StreamingHttpResponse:
    """Server-sent events: the reply to a pending message of the user's own, as it is generated.

    A GET, so EventSource can call it; its only effect is answering a message the user already
    posted (with CSRF), and it refuses to generate twice: an answered message just gets "done",
    and the database holds at most one reply per message.
    """
    conversation = _conversation(request, conversation_id)
    message = _message(request, conversation, message_id)
    if message.role != Message.Role.USER:
        raise Http404("Message not found.")
    response = StreamingHttpResponse(
        _events(request, conversation, message), content_type="text/event-stream"
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx would otherwise hold the events back
    return response

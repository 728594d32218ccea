"""What a user's message must be before the chat saves it, and the title it gives a conversation:
not empty, within the message limit, and no "remember that …" longer than one memory holds (kept
cut, it would not be what the user asked to keep)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from chat.models import Conversation
from memory_core.errors import MemoryServiceError
from memory_core.extraction import overlong_remember
from memory_core.models import CONTENT_MAX_CHARS

MESSAGE_MAX_CHARS = 8000
TITLE_FROM_MESSAGE_CHARS = 60


def clean_text(text: str) -> str:
    # PostgreSQL text cannot hold NUL; a pasted one must not turn into a server error.
    return (text or "").replace("\x00", "").strip()


def message_text(*, conversation: Conversation, content: str) -> str:
    """The text to save, or a MemoryServiceError saying why nothing is (the page keeps the text)."""
    text = clean_text(content)
    if not text:
        raise MemoryServiceError(
            _("Type a message first."), field_errors={"content": [_("This field may not be blank.")]}
        )
    if len(text) > MESSAGE_MAX_CHARS:
        raise MemoryServiceError(
            _("Messages are at most %(limit)s characters.") % {"limit": f"{MESSAGE_MAX_CHARS:,}"},
            field_errors={
                "content": [
                    _("At most %(limit)s characters (got %(length)s).")
                    % {"limit": f"{MESSAGE_MAX_CHARS:,}", "length": f"{len(text):,}"}
                ]
            },
        )
    # An incognito conversation remembers nothing, so its message is not refused for it.
    length = 0 if conversation.incognito else overlong_remember(text)
    if length:
        figures = {"length": f"{length:,}", "limit": f"{CONTENT_MAX_CHARS:,}"}
        reason = _(
            "What you asked me to remember is %(length)s characters long; one memory holds at most "
            "%(limit)s. Nothing was sent: shorten it, or ask me to remember it in several parts."
        )
        detail = _("One memory holds at most %(limit)s characters (this one has %(length)s).")
        raise MemoryServiceError(reason % figures, field_errors={"content": [detail % figures]})
    return text


def conversation_title(line: str) -> str:
    """A conversation's title from its first line: whole, or cut at a word with an ellipsis, so that
    the list never shows half a word ("… allergic to sesame, it")."""
    line = line.strip()
    if len(line) <= TITLE_FROM_MESSAGE_CHARS:
        return line
    head = line[: TITLE_FROM_MESSAGE_CHARS - 1]
    cut = head.rsplit(None, 1)[0] if " " in head.strip() else head
    return cut.rstrip(" ,;:-\u2014") + "\u2026"

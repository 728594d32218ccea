"""How /me/ names a memory's history events, actors and the import jobs' formats and statuses.

The model choices' labels stay English (changing them would need a migration and the API
returns their values): the privacy pages translate them here, at display time.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import pgettext_lazy

from memory_core.choices import ActorKind, EventAction, ImportFormat, ImportStatus

# As the history says it: "3 May 2026 created by you", lower case in English.
ACTIONS: dict[str, Any] = {
    EventAction.CREATED: pgettext_lazy("memory history", "created"),
    EventAction.MERGED: pgettext_lazy("memory history", "merged"),
    EventAction.SUPERSEDED: pgettext_lazy("memory history", "superseded"),
    EventAction.CORRECTED: pgettext_lazy("memory history", "corrected"),
    EventAction.APPROVED: pgettext_lazy("memory history", "approved"),
    EventAction.REJECTED: pgettext_lazy("memory history", "rejected"),
    EventAction.ARCHIVED: pgettext_lazy("memory history", "archived"),
    EventAction.EXPIRED: pgettext_lazy("memory history", "expired"),
    EventAction.HIDDEN: pgettext_lazy("memory history", "hidden"),
    EventAction.RESTORED: pgettext_lazy("memory history", "restored"),
    EventAction.REEMBEDDED: pgettext_lazy("memory history", "re-embedded"),
    EventAction.ERASED: pgettext_lazy("memory history", "erased"),
    EventAction.FLAGGED: pgettext_lazy("memory history", "flagged"),
    EventAction.FEEDBACK: pgettext_lazy("memory history", "feedback"),
}
REPLACED = pgettext_lazy("memory history", "replaced")

# "… by the assistant extraction": who did it (the user is "by you").
ACTORS: dict[str, Any] = {
    ActorKind.USER: pgettext_lazy("memory history actor", "user"),
    ActorKind.EXTRACTION: pgettext_lazy("memory history actor", "assistant extraction"),
    ActorKind.OPERATOR: pgettext_lazy("memory history actor", "operator"),
    ActorKind.JOB: pgettext_lazy("memory history actor", "scheduled job"),
    ActorKind.API: pgettext_lazy("memory history actor", "API client"),
    ActorKind.SYSTEM: pgettext_lazy("memory history actor", "system"),
}

# A feedback event's rating (`memory_core.lifecycle.FEEDBACK_VALUES`; none when withdrawn), the
# English page shows the value in lower case ("very_negative").
FEEDBACK: dict[str, Any] = {
    "POSITIVE": pgettext_lazy("memory feedback", "positive"),
    "NEGATIVE": pgettext_lazy("memory feedback", "negative"),
    "VERY_NEGATIVE": pgettext_lazy("memory feedback", "very_negative"),
    "": pgettext_lazy("memory feedback", "withdrawn"),
}

FORMATS: dict[str, Any] = {
    ImportFormat.MEM0: pgettext_lazy("import format", "A mem0 export (JSON)"),
    ImportFormat.TEXT: pgettext_lazy(
        "import format", "A saved-memories list (ChatGPT, Claude), one per line"
    ),
    ImportFormat.TRANSCRIPT: pgettext_lazy("import format", "A transcript with timestamps (JSON messages)"),
}

# "queued: 3 of 10 statements written", lower case in English.
STATUSES: dict[str, Any] = {
    ImportStatus.QUEUED: pgettext_lazy("import status", "queued"),
    ImportStatus.RUNNING: pgettext_lazy("import status", "running"),
    ImportStatus.DONE: pgettext_lazy("import status", "done"),
    ImportStatus.FAILED: pgettext_lazy("import status", "failed"),
}


def label(labels: dict[str, Any], value: Any, fallback: str = "") -> str:
    """The translated label of a choice value; the value itself (or `fallback`) when unknown."""
    found = labels.get(value or "")
    return str(found) if found is not None else str(fallback or value or "")


# Why a statement was written, merged or refused, as memory_core records it (English, kept by
# the API and the history): the fixed wordings, translated when shown. Others show as they are.
REASONS: dict[str, Any] = {
    "new": pgettext_lazy("memory reason", "new"),
    "replaces an older value, kept in its history": pgettext_lazy(
        "memory reason", "replaces an older value, kept in its history"
    ),
    "duplicate of an existing memory": pgettext_lazy("memory reason", "duplicate of an existing memory"),
    "already imported": pgettext_lazy("memory reason", "already imported"),
    "already recorded from this source": pgettext_lazy("memory reason", "already recorded from this source"),
    "Corrected by the user.": pgettext_lazy("memory reason", "Corrected by the user."),
    "Erased at the user's request.": pgettext_lazy("memory reason", "Erased at the user's request."),
    "The user restored it from the archive.": pgettext_lazy(
        "memory reason", "The user restored it from the archive."
    ),
    "The same statement was observed again.": pgettext_lazy(
        "memory reason", "The same statement was observed again."
    ),
    "Awaiting operator review.": pgettext_lazy("memory reason", "Awaiting operator review."),
    "procedures need operator approval": pgettext_lazy("memory reason", "procedures need operator approval"),
    "Held before a newer value.": pgettext_lazy("memory reason", "Held before a newer value."),
    "recorded as history: the current value is newer": pgettext_lazy(
        "memory reason", "recorded as history: the current value is newer"
    ),
    "as it was in the imported export": pgettext_lazy("memory reason", "as it was in the imported export"),
    "said before the user erased their memory": pgettext_lazy(
        "memory reason", "said before the user erased their memory"
    ),
}
_NUMBERED = {
    re.compile(r"duplicate of line (\d+)"): pgettext_lazy("memory reason", "duplicate of line %(line)s"),
    re.compile(r"replaces line (\d+)"): pgettext_lazy("memory reason", "replaces line %(line)s"),
}


def reason_label(reason: str) -> str:
    """A recorded reason in the page's language when it is one of memory_core's fixed wordings."""
    found = REASONS.get(reason)
    if found is not None:
        return str(found)
    for pattern, text in _NUMBERED.items():
        if match := pattern.fullmatch(reason):
            return str(text) % {"line": match.group(1)}
    return reason

"""How /me/ names a memory's history events, actors and the import jobs' formats and statuses.

The model choices' labels stay English (changing them would need a migration and the API
returns their values): the privacy pages translate them here, at display time.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext, pgettext_lazy

from memory_core.choices import ActorKind, EventAction, ImportFormat, ImportStatus, TombstoneReason
from memory_core.secret_kinds import kinds_said, recorded_kinds

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
    EventAction.PINNED: pgettext_lazy("memory history", "marked always recalled"),
    EventAction.UNPINNED: pgettext_lazy("memory history", "marked not always recalled"),
}
REPLACED = pgettext_lazy("memory history", "replaced")
RECALLED = pgettext_lazy("memory history", "recalled")  # the activity log's recall rows

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


# A memory's category (`extraction.schema.CATEGORIES`, lower case as stored); others as written.
CATEGORIES: dict[str, Any] = {
    "profile": pgettext_lazy("memory category", "profile"),
    "preference": pgettext_lazy("memory category", "preference"),
    "safety": pgettext_lazy("memory category", "safety"),
    "event": pgettext_lazy("memory category", "event"),
    "task_state": pgettext_lazy("memory category", "task state"),
    "sop": pgettext_lazy("memory category", "procedure (SOP)"),
    "relationship": pgettext_lazy("memory category", "relationship"),
    "general": pgettext_lazy("memory category", "general"),
}

# What a forgetting pass did, as `forgetting.archive.ForgettingRun` counts it.
FORGETTING: dict[str, Any] = {
    "archived (decayed)": pgettext_lazy("forgetting pass", "archived (decayed)"),
    "archived (capacity)": pgettext_lazy("forgetting pass", "archived (capacity)"),
    "expired": pgettext_lazy("forgetting pass", "expired"),
    "merged": pgettext_lazy("forgetting pass", "merged"),
    "superseded": pgettext_lazy("forgetting pass", "superseded"),
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
    "The user asked to recall it with every answer.": pgettext_lazy(
        "memory reason", "The user asked to recall it with every answer."
    ),
    "The user asked not to recall it with every answer.": pgettext_lazy(
        "memory reason", "The user asked not to recall it with every answer."
    ),
    "The same statement was observed again.": pgettext_lazy(
        "memory reason", "The same statement was observed again."
    ),
    # `memory_core.people_reread`: judged again once the user said who the person it names is.
    "Read again once the user said who the person is: their dependant's safety fact.": pgettext_lazy(
        "memory reason", "Read again once the user said who the person is: their dependant's safety fact."
    ),
    "Read again once the user said who the person is: not their own or a dependant's.": pgettext_lazy(
        "memory reason", "Read again once the user said who the person is: not their own or a dependant's."
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
# Reasons memory_core builds from values (a line, a key, a secret's kinds, the forgetting job's
# figures): the wording is translated, the values are kept; a part that is itself a reason (after
# "merged into …:", a policy's or a tombstone's reason) is translated in turn.
_BUILT: dict[re.Pattern[str], Any] = {
    re.compile(r"duplicate of line (?P<line>\d+)"): pgettext_lazy(
        "memory reason", "duplicate of line %(line)s"
    ),
    re.compile(r"replaces line (?P<line>\d+)"): pgettext_lazy("memory reason", "replaces line %(line)s"),
    re.compile(r"contains a secret \((?P<kinds>.+)\)"): pgettext_lazy(
        "memory reason", "contains a secret (%(kinds)s)"
    ),
    re.compile(r"taken back before \((?P<why>.+)\)"): pgettext_lazy(
        "memory reason", "taken back before (%(why)s)"
    ),
    re.compile(r"confidence (?P<value>[\d.]+) below the threshold"): pgettext_lazy(
        "memory reason", "confidence %(value)s below the threshold"
    ),
    re.compile(r"This rule (?P<why>.+); an operator must review it\."): pgettext_lazy(
        "memory reason", "This rule %(why)s; an operator must review it."
    ),
    re.compile(r"Replaces the previous value of '(?P<key>[^']+)'\."): pgettext_lazy(
        "memory reason", "Replaces the previous value of '%(key)s'."
    ),
    re.compile(r"Replaced by a newer '(?P<key>[^']+)'\."): pgettext_lazy(
        "memory reason", "Replaced by a newer '%(key)s'."
    ),
    re.compile(r"Replaced by a new version of '(?P<key>[^']+)'\."): pgettext_lazy(
        "memory reason", "Replaced by a new version of '%(key)s'."
    ),
    re.compile(
        r"near-duplicate of (?P<id>\S+) \(similarity (?P<value>[\d.]+) >= (?P<limit>[\d.]+)\)"
    ): pgettext_lazy("memory reason", "near-duplicate of %(id)s (similarity %(value)s >= %(limit)s)"),
    re.compile(
        r"absorbed near-duplicate (?P<id>\S+) \(similarity (?P<value>[\d.]+) >= (?P<limit>[\d.]+)\)"
    ): (pgettext_lazy("memory reason", "absorbed near-duplicate %(id)s (similarity %(value)s >= %(limit)s)")),
    re.compile(r"merged into (?P<id>\S+): (?P<why>.+)"): pgettext_lazy(
        "memory reason", "merged into %(id)s: %(why)s"
    ),
    re.compile(r"retention (?P<value>[\d.]+) < (?P<limit>[\d.]+) \((?P<why>.+)\)"): pgettext_lazy(
        "memory reason", "retention %(value)s < %(limit)s (%(why)s)"
    ),
    re.compile(
        r"lowest value while over capacity \((?P<count>\d+) active entries, budget (?P<budget>\d+)\): "
        r"retention (?P<value>[\d.]+) \((?P<why>.+)\)"
    ): pgettext_lazy(
        "memory reason",
        "lowest value while over capacity (%(count)s active entries, budget %(budget)s): "
        "retention %(value)s (%(why)s)",
    ),
    re.compile(
        r"importance (?P<importance>[\d.]+), (?P<days>\d+) active days since last use, used (?P<used>\d+) "
        r"times, (?P<mentions>\d+) mention\(s\), half-life (?P<half>\d+) active days"
    ): pgettext_lazy(
        "memory reason",
        "importance %(importance)s, %(days)s active days since last use, used %(used)s times, "
        "%(mentions)s mention(s), half-life %(half)s active days",
    ),
    # A statement an import refused (`imports.statements`), and an import job's stop (`imports.run`).
    re.compile(
        r"Invalid memory\. content: At most (?P<limit>\d+) characters \(got (?P<got>\d+)\)\."
    ): pgettext_lazy("memory reason", "Invalid memory. content: At most %(limit)s characters (got %(got)s)."),
    re.compile(r"Invalid memory\. content: This field may not be blank\."): pgettext_lazy(
        "memory reason", "Invalid memory. content: This field may not be blank."
    ),
    re.compile(
        r"Stopped after (?P<done>\d+) of (?P<total>\d+): the worker running it stopped (?P<n>\d+) times "
        r"\(killed, or past the (?P<seconds>\d+) s task timeout\)\. Retry it to go on from there\."
    ): pgettext_lazy(
        "memory reason",
        "Stopped after %(done)s of %(total)s: the worker running it stopped %(n)s times (killed, or past "
        "the %(seconds)s s task timeout). Retry it to go on from there.",
    ),
    re.compile(
        r"Stopped after (?P<done>\d+) of (?P<total>\d+), at attempt (?P<n>\d+): its queued task was lost "
        r"\(a broker that lost its data, or a request that stopped before running it\)\. Retry it to go on "
        r"from there\."
    ): pgettext_lazy(
        "memory reason",
        "Stopped after %(done)s of %(total)s, at attempt %(n)s: its queued task was lost (a broker that "
        "lost its data, or a request that stopped before running it). Retry it to go on from there.",
    ),
    re.compile(
        r"Stopped after (?P<done>\d+) of (?P<total>\d+): Memory is paused for this user: nothing is stored "
        r"or recalled until it is resumed\."
    ): pgettext_lazy(
        "memory reason",
        "Stopped after %(done)s of %(total)s: Memory is paused for this user: nothing is stored or recalled "
        "until it is resumed.",
    ),
    re.compile(
        r"Import failed \(attempt (?P<n>\d+), after (?P<done>\d+) of (?P<total>\d+)\): (?P<detail>.+)\. "
        r"It will be retried\."
    ): pgettext_lazy(
        "memory reason",
        "Import failed (attempt %(n)s, after %(done)s of %(total)s): %(detail)s. It will be retried.",
    ),
    re.compile(
        r"Import failed \(attempt (?P<n>\d+), after (?P<done>\d+) of (?P<total>\d+)\): (?P<detail>.+)\."
    ): pgettext_lazy(
        "memory reason", "Import failed (attempt %(n)s, after %(done)s of %(total)s): %(detail)s."
    ),
}
# The parts of a built reason that are reasons of their own: the kinds of secret refused
# (`memory_core.secret_kinds`), the policy guard's reasons, the tombstones' (`TombstoneReason`).
_PARTS: dict[str, Any] = {
    "tells the assistant to set aside its instructions": pgettext_lazy(
        "memory reason", "tells the assistant to set aside its instructions"
    ),
    "switches off a safety control": pgettext_lazy("memory reason", "switches off a safety control"),
    "sets aside a policy": pgettext_lazy("memory reason", "sets aside a policy"),
}
_RELAXES = re.compile(r"relaxes (?P<article>an?) (?P<control>.+) control")
# The policy guard's words for a control without a reason of its own, by the article it takes.
_RELAXES_WORDS: dict[str, Any] = {
    "a": pgettext_lazy("memory reason", "relaxes a %(control)s control"),
    "an": pgettext_lazy("memory reason", "relaxes an %(control)s control"),
}


def _part(text: str) -> str:
    if (kinds := recorded_kinds(text)) is not None:
        return kinds_said(kinds)
    if text in _PARTS:
        return str(_PARTS[text])
    if text in TombstoneReason.labels:
        return gettext(text)  # marked in memory_core.choices
    if match := _RELAXES.fullmatch(text):
        return str(_RELAXES_WORDS[match["article"]]) % {"control": match["control"]}
    return reason_label(text)


def reason_label(reason: str) -> str:
    """A recorded reason in the page's language when it is one of memory_core's fixed wordings or
    is built from values by one; any other reason (an operator's or the user's own) as written."""
    found = REASONS.get(reason)
    if found is not None:
        return str(found)
    for pattern, text in _BUILT.items():
        if match := pattern.fullmatch(reason):
            values = {
                name: _part(value) if name in ("why", "kinds") else value
                for name, value in match.groupdict().items()
            }
            return str(text) % values
    return reason

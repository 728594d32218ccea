"""How the privacy pages answer an engine error: its text for a message, and 404 / 403 for access.

memory_core's errors are English (the API returns them as they are); the pages say the ones a
person can meet on them (correct, hide, remember, the people forms, the import parser's) in the
page's language, with their figures kept, and the kinds of secret named in their own words. Others
show as written.
"""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from django.utils.translation import gettext, pgettext_lazy

from memory_core.errors import MemoryServiceError, NotFound, PermissionDenied
from memory_core.secret_kinds import kinds_said, recorded_kinds

# memory_core's fixed sentences (services, lifecycle, pipeline, entities.services) a page can show.
_FIXED: dict[str, Any] = {
    "Invalid memory.": pgettext_lazy("engine error", "Invalid memory."),
    "This field may not be blank.": pgettext_lazy("engine error", "This field may not be blank."),
    "Only memories in use can be hidden.": pgettext_lazy(
        "engine error", "Only memories in use can be hidden."
    ),
    "Only hidden memories can be used again.": pgettext_lazy(
        "engine error", "Only hidden memories can be used again."
    ),
    "Only memories in use can be set to be always recalled or not.": pgettext_lazy(
        "engine error", "Only memories in use can be set to be always recalled or not."
    ),
    "A rule for the assistant is never always recalled: it is used where it applies.": pgettext_lazy(
        "engine error", "A rule for the assistant is never always recalled: it is used where it applies."
    ),
    "Only current memories can be corrected; erase old versions instead.": pgettext_lazy(
        "engine error", "Only current memories can be corrected; erase old versions instead."
    ),
    "The correction says the same as the memory.": pgettext_lazy(
        "engine error", "The correction says the same as the memory."
    ),
    "A procedure becomes active only when an operator approves it.": pgettext_lazy(
        "engine error", "A procedure becomes active only when an operator approves it."
    ),
    "Shared procedures are read-only; an operator maintains them.": pgettext_lazy(
        "engine error", "Shared procedures are read-only; an operator maintains them."
    ),
    "Memory is paused for this user: nothing is stored or recalled until it is resumed.": pgettext_lazy(
        "engine error", "Memory is paused for this user: nothing is stored or recalled until it is resumed."
    ),
    "This looks like a secret.": pgettext_lazy("engine error", "This looks like a secret."),
    "A name is required.": pgettext_lazy("engine error", "A name is required."),
    "Must not be blank.": pgettext_lazy("engine error", "Must not be blank."),
    "Name too long.": pgettext_lazy("engine error", "Name too long."),
    "Nothing changed.": pgettext_lazy("engine error", "Nothing changed."),
    "Unknown kind.": pgettext_lazy("engine error", "Unknown kind."),
    "An entity cannot be merged into itself.": pgettext_lazy(
        "engine error", "An entity cannot be merged into itself."
    ),
    "Entities of different memories cannot be merged.": pgettext_lazy(
        "engine error", "Entities of different memories cannot be merged."
    ),
    "Must be memories that mention this entity.": pgettext_lazy(
        "engine error", "Must be memories that mention this entity."
    ),
    "Unknown memories.": pgettext_lazy("engine error", "Unknown memories."),
    "Only for relations to a value.": pgettext_lazy("engine error", "Only for relations to a value."),
    "This relation links two entities; correct or merge the entities instead.": pgettext_lazy(
        "engine error", "This relation links two entities; correct or merge the entities instead."
    ),
    "Must not be before the relation began.": pgettext_lazy(
        "engine error", "Must not be before the relation began."
    ),
    "Invalid date.": pgettext_lazy("engine error", "Invalid date."),
}
_BUILT: dict[re.Pattern[str], Any] = {
    re.compile(r"At most (?P<limit>[\d,]+) characters \(got (?P<length>[\d,]+)\)\."): pgettext_lazy(
        "engine error", "At most %(limit)s characters (got %(length)s)."
    ),
    re.compile(r"At most (?P<limit>[\d,]+) characters\."): pgettext_lazy(
        "engine error", "At most %(limit)s characters."
    ),
    re.compile(r"Secrets are never stored \((?P<kinds>.+)\)\."): pgettext_lazy(
        "engine error", "Secrets are never stored (%(kinds)s)."
    ),
}


def _value(name: str, value: str) -> str:
    kinds = recorded_kinds(value) if name == "kinds" else None
    return kinds_said(kinds) if kinds is not None else value


def engine_message(text: str) -> str:
    """One of memory_core's error sentences in the page's language; others as written."""
    found = _FIXED.get(text)
    if found is not None:
        return str(found)
    for pattern, wording in _BUILT.items():
        if match := pattern.fullmatch(text):
            return str(wording) % {name: _value(name, value) for name, value in match.groupdict().items()}
    return text


def said(exc: MemoryServiceError) -> str:
    """The error's message in the page's language: through its `Wording` when it carries one
    (the import parser's, marked where they are written), else `engine_message`."""
    if exc.wording is not None:
        return exc.wording.say(gettext)
    return engine_message(exc.message)


def error_text(exc: MemoryServiceError) -> str:
    """The error and its field errors as one message ("Invalid memory. This field may not be
    blank."), in the page's language where memory_core's wording is known. The field's name is
    left out: the form it belongs to is the one on the page."""
    details = [" ".join(engine_message(e) for e in errors) for errors in exc.field_errors.values()]
    return " ".join([said(exc), *details])


def raise_for_access(exc: MemoryServiceError) -> None:
    """Missing and someone else's answer 404 alike; read-only and operator-only answer 403."""
    if isinstance(exc, NotFound):
        raise Http404(exc.message) from exc
    if isinstance(exc, PermissionDenied):
        raise DjangoPermissionDenied(exc.message) from exc

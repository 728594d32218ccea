"""Labels the privacy pages show in the reader's language (memory_core's choices are English only)."""

from __future__ import annotations

from django import template

from privacy.event_labels import reason_label as _reason_label
from privacy.people import KIND_LABELS
from privacy.selectors import STATUS_LABELS

register = template.Library()


@register.filter
def status_label(value: str) -> str:
    """ "hidden" → "hidden by you" / "已被你停用": a memory's status as the pages say it."""
    return str(STATUS_LABELS.get(value, value))


@register.filter
def kind_label(value: str) -> str:
    """An entity's kind ("person", "place") in the reader's language."""
    return str(KIND_LABELS.get(value, value))


@register.filter
def reason_label(value: str) -> str:
    """Why memory_core wrote, merged or refused something, in the reader's language when it can."""
    return _reason_label(str(value or ""))

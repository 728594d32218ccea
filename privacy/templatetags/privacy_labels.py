"""Labels the privacy pages show in the reader's language (memory_core's choices are English only)."""

from __future__ import annotations

from typing import Any

from django import template

from privacy.event_labels import ACTIONS, ACTORS, CATEGORIES, FORGETTING, RECALLED, label
from privacy.event_labels import reason_label as _reason_label
from privacy.kin_words import aliases_said
from privacy.kin_words import person_name as _person_name
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


@register.filter
def action_label(value: str) -> str:
    """A history action ("created", "recalled") in the reader's language, lower case in English."""
    return str(RECALLED) if value == "recalled" else label(ACTIONS, value)


@register.filter
def actor_label(value: str) -> str:
    return label(ACTORS, value)


@register.filter
def forgetting_summary(run: Any) -> str:
    """ "archived (capacity) 2, expired 1", in the reader's language."""
    return ", ".join(f"{label(FORGETTING, name)} {count}" for name, count in sorted(run.counts.items()))


@register.filter
def category_label(value: str) -> str:
    """A memory's category ("safety", "task_state") in the reader's language; others as stored."""
    return label(CATEGORIES, value)


@register.filter
def person_name(entity: Any) -> str:
    """An entity's name in running text; one known only by a kin word ("my 老公") in the reader's
    language ("your husband")."""
    return _person_name(entity)


@register.filter
def person_title(entity: Any) -> str:
    """`person_name` where it starts a line or a heading ("Your husband"); a real name as it is."""
    name = _person_name(entity)
    return name if entity.named else name[:1].upper() + name[1:]


@register.filter
def aliases(entity: Any) -> str:
    """What an entity is called, its kin words in the reader's language (`kin_words.aliases_said`)."""
    return aliases_said(list(entity.aliases))

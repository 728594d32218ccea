"""The candidate schema: what an extractor returns (also the structured-output schema sent to the
model), and the limits every extractor shares."""

from __future__ import annotations

import re
from datetime import datetime, time
from typing import Annotated, Any, Literal, Protocol

from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    StringConstraints,
    ValidationError,
)

from memory_core.choices import AddAction
from memory_core.models import CONTENT_MAX_CHARS

PROMPT_VERSION = "extract-v2"
RULES_VERSION = "rules-v2"
RULES_NAME = "rule-based"

MAX_MESSAGES = 500
MESSAGE_ID_MAX_CHARS = 64
CONVERSATION_MAX_CHARS = 64
EXCERPT_MAX_CHARS = 300
KEY_MAX_CHARS = 120  # Candidate.key
# A failing job is re-raised (so django-q hands the task out again) until it has run this often.
MAX_ATTEMPTS = 3

OUTCOME_ACTIONS = tuple(action.value for action in AddAction)

CATEGORIES = ("profile", "preference", "safety", "event", "task_state", "sop", "relationship", "general")

# --- the candidate schema (also the structured-output schema sent to the model) -------------------


def _unit_interval(value: Any) -> Any:
    # A model saying 1.2 means "very": clamp instead of failing the whole answer.
    if isinstance(value, int | float) and not isinstance(value, bool):
        return min(1.0, max(0.0, float(value)))
    return value


def _string_list(value: Any) -> Any:
    if isinstance(value, list):
        return [str(item) for item in value if item is not None]
    return value


def _known_category(value: Any) -> Any:
    return value if value in CATEGORIES else "general"


Unit = Annotated[float, Field(ge=0, le=1), BeforeValidator(_unit_interval)]


def _clipped(value: Any) -> Any:
    # A long or odd relation field must not fail the model's whole answer: cut it, and let the
    # graph layer drop what it cannot use.
    return str(value).strip()[:200] if value is not None else ""


_Short = Annotated[str, BeforeValidator(_clipped)]


class RelationCandidate(BaseModel):
    """One relation a statement states, between two named things or a thing and a value."""

    model_config = ConfigDict(extra="ignore")

    subject: _Short = Field(description='Who or what: a name, or "user" for the user.')
    predicate: _Short = Field(
        description="A kinship or social word (sister, husband, mother, friend, colleague, boss, dog, "
        "cat …) or one of works_at, role, lives_in; anything else in a few words."
    )
    object: _Short = Field(description='A name, "user", or a value such as a job title for role.')
    object_kind: _Short = Field(
        default="", description="person, organisation, place, pet, product, other, or value."
    )


class Candidate(BaseModel):
    """One memory the conversation supports, as a self-contained third-person statement."""

    model_config = ConfigDict(extra="ignore")

    content: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=CONTENT_MAX_CHARS)
    ] = Field(
        description='One self-contained statement about the user, e.g. "The user is allergic to peanuts."'
    )
    type: Literal["semantic", "episodic", "procedural"] = Field(
        default="semantic",
        description="semantic: a stable fact; episodic: something that happened at a time; "
        "procedural: a rule for how the assistant must do a task.",
    )
    category: Annotated[
        Literal["profile", "preference", "safety", "event", "task_state", "sop", "relationship", "general"],
        BeforeValidator(_known_category),
    ] = "general"
    key: Annotated[str, StringConstraints(strip_whitespace=True, max_length=KEY_MAX_CHARS)] = Field(
        default="",
        description='A stable slot a later update would replace, e.g. "home_city", "name", "job", '
        '"health.allergy.peanut", "preference.coffee"; "" when there is none.',
    )
    importance: Unit = 0.5
    confidence: Unit = 0.8
    message_ids: Annotated[list[str], BeforeValidator(_string_list)] = Field(
        default_factory=list, description="Ids of the user messages the statement rests on."
    )
    is_inference: bool = Field(
        default=False, description="True when inferred rather than stated by the user."
    )
    valid_from: str | None = Field(
        default=None,
        description="ISO date (YYYY-MM-DD) the fact or event starts, resolved against timestamps.",
    )
    pinned: bool = Field(default=False, description="True for safety facts: allergies, health constraints.")
    relations: list[RelationCandidate] = Field(
        default_factory=list,
        description="The relations between people, organisations, places and pets that the "
        'statement states, e.g. {"subject": "user", "predicate": "sister", "object": "Ana"}.',
    )
    # The user's own words the statement restates whole (the chat's "remember that …" keeps them in
    # the third person): judged as said, where the models learned. Private, so that no model's
    # output can set it (set by our own reader, `rule_candidate`).
    _said: str = PrivateAttr(default="")

    @property
    def said(self) -> str:
        return self._said


def _shortened(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters at a word boundary, marked with an ellipsis."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    cut = head.rsplit(None, 1)[0] if re.search(r"\s", head) else head
    return cut.rstrip(" ,;:-\u2014") + "\u2026"


def rule_candidate(message_id: str, fields: dict[str, Any]) -> Candidate | None:
    """A rule's statement as a Candidate, shortened to the schema's limits; None if still invalid.

    A long "remember that …" (a pasted list) must not fail the chat turn or the extraction job.
    """
    said = str(fields.get("said", ""))
    fields = {
        **fields,
        "content": _shortened(str(fields.get("content", "")), CONTENT_MAX_CHARS),
        "key": str(fields.get("key", ""))[:KEY_MAX_CHARS].strip(),
    }
    try:
        candidate = Candidate(message_ids=[message_id], **fields)
    except ValidationError:
        return None
    candidate._said = said
    return candidate


class ExtractionOutput(BaseModel):
    candidates: list[Candidate] = Field(default_factory=list)


class Extractor(Protocol):
    name: str
    prompt_version: str

    def extract(self, messages: list[dict[str, Any]]) -> list[Candidate]: ...


def parse_when(value: Any) -> datetime | None:
    """An ISO date or date-time; None for anything else, a well-formed but impossible date
    ("2024-13-45", which Django's parsers refuse with ValueError) included."""
    if isinstance(value, datetime):
        parsed: datetime | None = value
    elif isinstance(value, str) and value:
        try:
            parsed = parse_datetime(value)
            if parsed is None:
                day = parse_date(value)
                parsed = datetime.combine(day, time.min) if day else None
        except ValueError:
            return None
    else:
        return None
    if parsed is not None and timezone.is_naive(parsed):
        parsed = timezone.make_aware(parsed, timezone.get_default_timezone())
    return parsed

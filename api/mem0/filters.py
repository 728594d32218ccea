"""mem0's v2 filter language (`filters={"AND": [...]}` of `get_all`, `search`, `delete_all`,
exports) read into the user or agent it addresses and a Django `Q` over that entity's entries.

    {"AND": [{"user_id": "alice"},
             {"created_at": {"gte": "2026-01-01"}},
             {"NOT": {"categories": {"in": ["event"]}}},
             {"metadata": {"source": "form"}}]}

Roots and nodes are `AND` / `OR` (a list) or `NOT` (a condition or a list); a plain object is the
AND of its keys. Fields and operators are a closed list: anything else is a 400 naming it, never
ignored. The entity (`user_id` or `agent_id`, equality only) must hold for the whole filter, so it
sits at the top or in the top-level AND: memories here belong to exactly one user or agent.
A wildcard `"*"` on an entity field adds no condition (there are no runs or apps here, and an entry
has one owner). Values are bound as query parameters; metadata keys become JSON key lookups built
as expressions, so no key can turn into a lookup name or SQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any

from django.db.models import JSONField, Q, Value
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.lookups import (
    Contains,
    GreaterThan,
    GreaterThanOrEqual,
    IContains,
    In,
    LessThan,
    LessThanOrEqual,
)
from django.utils.dateparse import parse_date, parse_datetime

from api.mem0.mapping import ENTITY_KEYS
from memory_core.errors import MemoryServiceError
from memory_core.selectors import parse_uuid

LOGICAL = ("AND", "OR", "NOT")
TIME_FIELDS = {"created_at": "created_at", "updated_at": "updated_at", "timestamp": "valid_from"}
TIME_OPS = ("eq", "ne", "gt", "gte", "lt", "lte")
CATEGORY_OPS = ("eq", "ne", "in", "nin", "contains", "icontains")
KEYWORD_OPS = ("contains", "icontains")
METADATA_OPS = ("eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "icontains")
FIELDS = (*ENTITY_KEYS, *TIME_FIELDS, "categories", "keywords", "metadata", "memory_ids")
MAX_DEPTH = 6
MAX_CONDITIONS = 100
MAX_LIST = 1000
MAX_TEXT = 500
_RANGE = {"gt": GreaterThan, "gte": GreaterThanOrEqual, "lt": LessThan, "lte": LessThanOrEqual}


def bad(message: str) -> MemoryServiceError:
    return MemoryServiceError(message, field_errors={"filters": [message]})


@dataclass
class Mem0Filter:
    """What a mem0 filter says: whose memories (`user_id` or `agent_id`) and which of them (`where`)."""

    entities: dict[str, str]
    where: Q
    conditions: int = 0  # beyond the entity: a delete_all with none erases everything

    @property
    def narrows(self) -> bool:
        return self.conditions > 0


def parse_filters(filters: Any) -> Mem0Filter:
    if filters is None:
        filters = {}
    if not isinstance(filters, dict):
        raise bad("filters must be an object.")
    parser = _Parser()
    where = parser.node(filters, depth=0, top=True)
    return Mem0Filter(entities=parser.entities, where=where, conditions=parser.conditions)


class _Parser:
    def __init__(self) -> None:
        self.entities: dict[str, str] = {}
        self.conditions = 0

    def node(self, value: Any, *, depth: int, top: bool) -> Q:
        """An object: the AND of its keys (logical operators or fields)."""
        if depth > MAX_DEPTH:
            raise bad(f"filters are nested deeper than {MAX_DEPTH} levels.")
        if not isinstance(value, dict):
            raise bad(f"Each condition must be an object, got {type(value).__name__}.")
        q = Q()
        for key, inner in value.items():
            if key.upper() in LOGICAL:
                q &= self.logical(key.upper(), inner, depth=depth, top=top)
            else:
                q &= self.field(key, inner, top=top)
        return q

    def logical(self, op: str, inner: Any, *, depth: int, top: bool) -> Q:
        items = inner if isinstance(inner, list) else [inner] if op == "NOT" else None
        if items is None:
            raise bad(f"{op} takes a list of conditions.")
        if not items:
            raise bad(f"{op} has no conditions.")
        parts = [self.node(item, depth=depth + 1, top=top and op == "AND") for item in items]
        if op == "NOT":
            combined = Q()
            for part in parts:
                combined &= part
            return ~combined if combined else combined
        result = parts[0]
        for part in parts[1:]:
            result = result & part if op == "AND" else result | part
        return result

    def field(self, name: str, value: Any, *, top: bool) -> Q:
        if name in ENTITY_KEYS:
            self.entity(name, value, top=top)
            return Q()
        self.conditions += 1
        if self.conditions > MAX_CONDITIONS:
            raise bad(f"At most {MAX_CONDITIONS} conditions per filter.")
        if name in TIME_FIELDS:
            return _ops(name, value, TIME_OPS, lambda op, v: _time(TIME_FIELDS[name], op, v, name))
        if name == "categories":
            return _ops(name, value, CATEGORY_OPS, _category)
        if name == "keywords":
            return _ops(name, value, KEYWORD_OPS, _keyword, default=None)
        if name == "metadata":
            return _metadata(value)
        if name == "memory_ids":
            ids = value.get("in") if isinstance(value, dict) and set(value) == {"in"} else value
            return Q(pk__in=_ids(ids))
        raise bad(f"Unknown filter field {name!r}; the fields are {', '.join(FIELDS)}.")

    def entity(self, name: str, value: Any, *, top: bool) -> None:
        if isinstance(value, dict) and set(value) == {"eq"}:
            value = value["eq"]
        if value == "*":
            return  # see the module docstring
        if isinstance(value, dict):
            raise bad(
                f"{name}: only equality is supported ({', '.join(value)} given); a request addresses "
                "one user or agent."
            )
        if not top:
            raise bad(
                f"{name} inside OR or NOT: filtering across several users or agents is not supported; "
                "name one at the top level (or in the top-level AND)."
            )
        if name in ("app_id", "run_id"):
            raise bad(f"{name} scopes are not supported: memories belong to a user or an agent.")
        if not isinstance(value, str) or not value:
            raise bad(f"{name} must be a non-empty string.")
        if self.entities.get(name, value) != value:
            raise bad(f"{name} is given twice with different values.")
        self.entities[name] = value


def _ops(name: str, value: Any, allowed: tuple[str, ...], build: Any, default: str | None = "eq") -> Q:
    """`{"field": value}` (equality) or `{"field": {"op": value, ...}}` (each must hold)."""
    if not isinstance(value, dict):
        if default is None:
            raise bad(f"{name} takes an operator: {', '.join(allowed)}.")
        value = {default: value}
    if not value:
        raise bad(f"{name} has no operator.")
    q = Q()
    for op, operand in value.items():
        if op not in allowed:
            raise bad(f"Unknown operator {op!r} for {name}; use one of {', '.join(allowed)}.")
        q &= build(op, operand)
    return q


def parse_when(value: Any, name: str) -> datetime | date:
    """ISO 8601 date or date-time (naive means UTC), or Unix seconds."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, tz=UTC)
        except (OverflowError, OSError, ValueError):
            raise bad(f"{name}: {value} is not a valid Unix time.") from None
    if isinstance(value, str) and len(value) <= 40:
        try:  # a date first: parse_datetime reads "2026-07-20" as its midnight
            day = parse_date(value)
            moment = parse_datetime(value) if day is None else None
        except ValueError:
            moment = day = None
        if day is not None:
            return day
        if moment is not None:
            return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    raise bad(f"{name}: {value!r} is not a date (YYYY-MM-DD), an ISO 8601 date-time or Unix seconds.")


def _time(column: str, op: str, operand: Any, name: str) -> Q:
    when = parse_when(operand, name)
    if not isinstance(when, datetime):
        # A day is the whole day, in UTC: lte 2026-07-20 includes that day's afternoon.
        start = datetime.combine(when, time.min, tzinfo=UTC)
        end = datetime.combine(when, time.max, tzinfo=UTC)
        lookups = {
            "eq": Q(**{f"{column}__range": (start, end)}),
            "ne": ~Q(**{f"{column}__range": (start, end)}),
            "gt": Q(**{f"{column}__gt": end}),
            "gte": Q(**{f"{column}__gte": start}),
            "lt": Q(**{f"{column}__lt": start}),
            "lte": Q(**{f"{column}__lte": end}),
        }
        return lookups[op]
    if op == "eq":
        return Q(**{column: when})
    if op == "ne":
        return ~Q(**{column: when})
    return Q(**{f"{column}__{op}": when})


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_TEXT:
        raise bad(f"{name} takes a non-empty string of at most {MAX_TEXT} characters.")
    return value


def _texts(name: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not value or len(value) > MAX_LIST:
        raise bad(f"{name} takes a list of 1 to {MAX_LIST} values.")
    return [_text(name, item) for item in value]


def _category(op: str, operand: Any) -> Q:
    # An entry has one category; mem0's `categories` is a list, so `in` and `contains` read alike.
    if op in ("in", "nin"):
        q = Q(category__in=_texts("categories", operand))
        return q if op == "in" else ~q
    if op == "eq" and isinstance(operand, list):
        return Q(category__in=_texts("categories", operand))
    value = _text("categories", operand)
    return {
        "eq": Q(category=value),
        "ne": ~Q(category=value),
        "contains": Q(category__contains=value),
        "icontains": Q(category__icontains=value),
    }[op]


def _keyword(op: str, operand: Any) -> Q:
    value = _text("keywords", operand)
    return Q(content__contains=value) if op == "contains" else Q(content__icontains=value)


def _ids(value: Any) -> list[Any]:
    if not isinstance(value, list) or not value or len(value) > MAX_LIST:
        raise bad(f"memory_ids takes a list of 1 to {MAX_LIST} ids.")
    ids = [parse_uuid(item) for item in value]
    wrong = [str(item) for item, pk in zip(value, ids, strict=True) if pk is None]
    if wrong:
        raise bad(f"memory_ids: not memory ids: {', '.join(wrong[:5])}.")
    return ids


def _json(value: Any) -> Value:
    return Value(value, output_field=JSONField())


def _metadata(value: Any) -> Q:
    """`{"metadata": {"key": value | {"op": value}}}` on top-level keys of the entry's metadata."""
    if not isinstance(value, dict) or not value:
        raise bad('metadata takes an object of keys, e.g. {"metadata": {"source": "form"}}.')
    q = Q()
    for key, condition in value.items():
        if not isinstance(key, str) or not key or len(key) > 100:
            raise bad("metadata keys are strings of 1 to 100 characters.")
        if condition == "*":
            q &= Q(metadata__has_key=key)
        elif isinstance(condition, dict):
            q &= _ops(f"metadata.{key}", condition, METADATA_OPS, lambda op, v, k=key: _metadata_op(k, op, v))
        else:
            q &= Q(metadata__contains={key: condition})
    return q


def _metadata_op(key: str, op: str, operand: Any) -> Q:
    name = f"metadata.{key}"
    if op == "eq":
        return Q(metadata__contains={key: operand})
    if op == "ne":  # mem0: "not equal" includes entries without the key
        return ~Q(metadata__contains={key: operand})
    if op in ("in", "nin"):
        if not isinstance(operand, list) or not operand or len(operand) > MAX_LIST:
            raise bad(f"{name} {op} takes a list of 1 to {MAX_LIST} values.")
        inside = Q(In(KeyTransform(key, "metadata"), [_json(item) for item in operand]))
        return inside if op == "in" else ~Q(metadata__has_key=key) | ~inside
    if op in ("contains", "icontains"):
        text = _text(name, operand)
        column = KeyTextTransform(key, "metadata")
        return Q(IContains(column, text)) if op == "icontains" else Q(Contains(column, text))
    if not isinstance(operand, int | float | str) or isinstance(operand, bool):
        raise bad(f"{name} {op} compares with a number or a string.")
    return Q(_RANGE[op](KeyTransform(key, "metadata"), _json(operand)))

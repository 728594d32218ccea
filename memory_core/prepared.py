"""A queryset of a hot path compiled by the ORM once per shape, then run with each call's values.

Building and compiling the same queryset on every add costs more CPU than running it (a write's
duplicate candidates: about 4 ms of Python for a 0.5 ms read). `run(name, build, args)` calls
`build(*args)` with stand-ins for the values, compiles it once, remembers where each stand-in went
in the parameters, and from then on sends the same SQL with the call's values in their places;
the rows are read back as the ORM reads them (its converters, `Model.from_db`, the annotations).
The statement is the ORM's own, so a change to a queryset method changes it too.

`build` must depend on its arguments alone, and take no decision on their values: what decides
the statement (a memory type, a setting) is closed over and named in `shape`. It is compiled
twice with different stand-ins, and a parameter that differs between the two without being a
stand-in (a `timezone.now()` read inside, a value computed from an argument) refuses to be
prepared. Values are ints, strings, datetimes, or tuples of them (one stand-in an item: an `IN`
list's length is part of the shape).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import connections
from django.db.models import Model, QuerySet
from django.db.transaction import TransactionManagementError

Value = int | str | datetime | tuple[Any, ...]

# Shapes kept, the least recently used dropped first: a batch's IN lists of every length come
# and go, a single add's few shapes stay.
_MOST_SHAPES = 256


@dataclass(frozen=True)
class _Prepared:
    sql: str
    params: tuple[Any, ...]
    slots: tuple[int, ...]  # per parameter: the flat argument it takes, or -1 for a constant
    model: type[Model]
    init_list: tuple[str, ...]
    fields: tuple[int, int]  # the model's columns in the row: start, end
    annotations: tuple[tuple[str, int], ...]
    converters: tuple[tuple[int, tuple[Any, ...], Any], ...]  # column, its converters, expression
    for_update: bool
    using: str


_prepared: OrderedDict[tuple[Any, ...], _Prepared] = OrderedDict()
_lock = threading.Lock()


def run(
    name: str, build: Callable[..., QuerySet[Any]], args: Sequence[Value], *, shape: Sequence[Any] = ()
) -> list[Any]:
    """The model instances `build(*args)` would return, as `list(build(*args))` would read them."""
    key = (name, *shape, *(_shape(value) for value in args))
    with _lock:
        prepared = _prepared.get(key)
        if prepared is not None:
            _prepared.move_to_end(key)
    if prepared is None:
        prepared = _prepare(build, args)
        with _lock:
            _prepared[key] = prepared
            while len(_prepared) > _MOST_SHAPES:
                _prepared.popitem(last=False)
    flat = _flat(args)
    params = [
        flat[slot] if slot >= 0 else value
        for slot, value in zip(prepared.slots, prepared.params, strict=True)
    ]
    return _read(prepared, params)


def _shape(value: Value) -> Any:
    return (tuple, len(value)) if isinstance(value, tuple) else type(value)


def _flat(args: Sequence[Value]) -> list[Any]:
    flat: list[Any] = []
    for value in args:
        flat += list(value) if isinstance(value, tuple) else [value]
    return flat


def _stand_in(value: Any, index: int, variant: int) -> Any:
    """A value of `value`'s type that no real argument takes. A datetime stands far in the future
    (`MemoryEntryQuerySet.current(at=…)` reads a future instant as now)."""
    if isinstance(value, bool):
        raise TypeError("a boolean changes a queryset's shape: pass it in `shape`")
    if isinstance(value, int):
        return -(1_000_000_007 + 1_000 * index + variant)
    if isinstance(value, str):
        return f"\x00prepared {index}.{variant}\x00"
    if isinstance(value, datetime):
        return datetime(9000 + index, 1, 1, tzinfo=UTC) + timedelta(microseconds=1 + variant)
    raise TypeError(f"cannot prepare a queryset with a {type(value).__name__} argument")


def _stand_ins(args: Sequence[Value], variant: int) -> tuple[list[Any], list[Any]]:
    """(the arguments as `build` takes them, flat) with every value a stand-in."""
    index = 0
    structured: list[Any] = []
    flat: list[Any] = []
    for value in args:
        items = list(value) if isinstance(value, tuple) else [value]
        stand_ins = [_stand_in(item, index + n, variant) for n, item in enumerate(items)]
        index += len(items)
        flat += stand_ins
        structured.append(tuple(stand_ins) if isinstance(value, tuple) else stand_ins[0])
    return structured, flat


def _prepare(build: Callable[..., QuerySet[Any]], args: Sequence[Value]) -> _Prepared:
    compiled = []
    for variant in (0, 1):
        structured, flat = _stand_ins(args, variant)
        queryset = build(*structured)
        compiler = queryset.query.get_compiler(using=queryset.db)
        sql, params = compiler.as_sql()
        compiled.append((sql, tuple(params), flat, compiler))
    (sql, params, flat, compiler), (sql_b, params_b, flat_b, _) = compiled
    if sql != sql_b or len(params) != len(params_b):
        raise ValueError("the queryset's statement depends on its values: put what decides it in `shape`")
    slots = []
    for first, second in zip(params, params_b, strict=True):
        if _equal(first, second):
            slots.append(-1)
            continue
        where = [n for n, value in enumerate(flat) if _equal(value, first)]
        if len(where) != 1 or not _equal(flat_b[where[0]], second):
            raise ValueError(f"a parameter of the queryset is not one of its arguments: {first!r}")
        slots.append(where[0])
    klass_info = compiler.klass_info
    if klass_info is None or klass_info.get("related_klass_infos"):
        raise ValueError("only querysets of model instances, without select_related, are prepared")
    select = compiler.select
    selected = klass_info["select_fields"]
    start, end = selected[0], selected[-1] + 1
    expressions = [column[0] for column in select[: compiler.col_count]]
    converters = compiler.get_converters(expressions)
    return _Prepared(
        sql=sql,
        params=params,
        slots=tuple(slots),
        model=klass_info["model"],
        init_list=tuple(column[0].target.attname for column in select[start:end]),
        fields=(start, end),
        annotations=tuple(compiler.annotation_col_map.items()),
        converters=tuple(
            (position, tuple(found), expression) for position, (found, expression) in converters.items()
        ),
        for_update=bool(compiler.query.select_for_update),
        using=compiler.using,
    )


def _equal(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _read(prepared: _Prepared, params: list[Any]) -> list[Any]:
    connection = connections[prepared.using]
    if prepared.for_update and connection.get_autocommit():
        raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
    with connection.cursor() as cursor:
        cursor.execute(prepared.sql, params)
        rows = cursor.fetchall()
    start, end = prepared.fields
    found = []
    for fetched in rows:
        row = list(fetched)
        for position, converters, expression in prepared.converters:
            value = row[position]
            for converter in converters:
                value = converter(value, expression, connection)
            row[position] = value
        instance = prepared.model.from_db(connection.alias, list(prepared.init_list), row[start:end])
        for name, position in prepared.annotations:
            setattr(instance, name, row[position])
        found.append(instance)
    return found

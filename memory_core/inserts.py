"""New rows that belong together, inserted in ONE statement: each INSERT the ORM's own, chained as
data-modifying CTEs (a write's entry, its evidence and its history).

`save(force_insert=True)` once a row costs a round trip and a pass through the ORM's save
machinery each; one statement costs one. The INSERTs are compiled by Django from the same fields
`Model.save` writes (`pre_save`, so `auto_now` stamps, and the fields' own preparation), and the
first row's database-computed values (`db_returning_fields`) are read back onto it as a save
would. A model with save signal receivers is saved the ordinary way: they would not run here.
Nor would an overridden `save`: a model that overrides it names what its `save` does before
writing in `prepare_insert()`, which runs here; one that does not is saved the ordinary way.
"""

from __future__ import annotations

from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.models import Model
from django.db.models.signals import post_save, pre_save
from django.db.models.sql import InsertQuery


def insert_together(first: Model, *others: Model) -> None:
    """`first.save(force_insert=True)` then each of `others`', as one statement. The others'
    database-computed values (an auto-increment id) are not read back."""
    rows = (first, *others)
    if any(_needs_save(row) for row in rows):
        for row in rows:
            row.save(force_insert=True)
        return
    for row in rows:
        prepare = getattr(row, "prepare_insert", None)
        if prepare is not None:
            prepare()
    connection = connections[DEFAULT_DB_ALIAS]
    statements: list[str] = []
    params: list[Any] = []
    returning = list(type(first)._meta.db_returning_fields)
    compilers = []
    for index, row in enumerate(rows):
        compiler, sql, row_params = _insert(row, returning=returning if index == 0 else [])
        compilers.append(compiler)
        statements.append(f"row{index} AS ({sql})")
        params += row_params
    names = ", ".join(connection.ops.quote_name(str(field.column)) for field in returning)
    read = f"SELECT {names} FROM row0" if returning else "SELECT 1"  # noqa: S608
    with transaction.mark_for_rollback_on_error(DEFAULT_DB_ALIAS), connection.cursor() as cursor:
        cursor.execute(f"WITH {', '.join(statements)} {read}", params)
        values = cursor.fetchone()
    if returning and values is not None:
        columns = [field.get_col(type(first)._meta.db_table) for field in returning]
        converters = compilers[0].get_converters(columns)
        [converted] = list(compilers[0].apply_converters([list(values)], converters))
        for field, value in zip(returning, converted, strict=True):
            setattr(first, field.attname, value)
    for row in rows:
        row._state.adding = False
        row._state.db = DEFAULT_DB_ALIAS


def _needs_save(row: Model) -> bool:
    """True when only `row.save()` does what saving `row` must: signal receivers, or a `save`
    override without a `prepare_insert` that does its work."""
    model = type(row)
    if any(signal.has_listeners(model) for signal in (pre_save, post_save)):
        return True
    return model.save is not Model.save and not hasattr(row, "prepare_insert")


def _insert(row: Model, *, returning: list[Any]) -> tuple[Any, str, list[Any]]:
    """The INSERT `row.save(force_insert=True)` sends (the fields `Model._save_table` writes), with
    RETURNING `returning` (the same columns, so that the last SELECT can read them)."""
    meta = row._meta
    fields = [
        field
        for field in meta.local_concrete_fields
        if not field.generated and (row.pk is not None or field is not meta.auto_field)
    ]
    query = InsertQuery(type(row))
    query.insert_values(fields, [row])
    compiler = query.get_compiler(using=DEFAULT_DB_ALIAS)
    compiler.returning_fields = returning or None
    [(sql, params)] = compiler.as_sql()
    return compiler, sql, list(params)

"""Model instances from hand-written SQL, for the lookups every API request makes (its key, its
subject): the ORM spent longer building those joined SELECTs than the database spent answering
them (about 2 ms a lookup on a busy machine, against 0.5-0.7 ms for the statement). Each row is
made into instances as the ORM makes them: every concrete field, through its converters."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.db import connection
from django.db.models import Model


class Columns:
    """A model's concrete columns under a table alias: the SELECT list, and the instance a row's
    slice of them makes."""

    def __init__(self, model: type[Model], alias: str) -> None:
        self.model = model
        self.alias = alias
        self.fields = list(model._meta.concrete_fields)
        quote = connection.ops.quote_name
        self.sql = ", ".join(f"{alias}.{quote(str(field.column))}" for field in self.fields)
        self.names = [field.attname for field in self.fields]

    def __len__(self) -> int:
        return len(self.fields)

    @cached_property
    def _converters(self) -> list[tuple[int, Any, list[Any]]]:
        """(position, column, converters) of the fields that convert what the database returns
        (a JSON field's text, for one), as the ORM's compiler finds them."""
        found = []
        for position, field in enumerate(self.fields):
            column = field.get_col(self.alias)
            converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
            if converters:
                found.append((position, column, converters))
        return found

    def instance(self, row: tuple[Any, ...], start: int = 0) -> Any:
        values = list(row[start : start + len(self.fields)])
        for position, column, converters in self._converters:
            for convert in converters:
                values[position] = convert(values[position], column, connection)
        return self.model.from_db(connection.alias, self.names, values)


def fetch_one(sql: str, params: list[Any]) -> tuple[Any, ...] | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()

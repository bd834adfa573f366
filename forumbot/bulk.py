"""Bulk writes whose SQL peewee makes once: for a few hundred rows, peewee takes longer to
build an INSERT than the database takes to run it (a busy cycle of 1,000 votes stores 1,000
comments and 1,000 status blocks). Each statement is made by peewee itself, the first time
for each kind of database and number of rows, and then run with the rows' values only."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from peewee import Field


class Bulk:
    """A write of rows (tuples of `fields`, in that order) in statements of up to `chunk`
    rows. `build(rows)` is the peewee query for some rows: the values it binds must be the
    rows' values first, in order, then only values that do not depend on the rows (an
    upsert's constants), which every later statement binds as they were. The first part is
    checked when a statement is made: a query with a column the fields lack (a default
    peewee fills in) is refused there, for two rows or more (one row's defaults come after
    its values, where constants would, and are the same each time)."""

    def __init__(self, fields: Sequence[Field], build: Callable[[list[tuple]], Any], chunk: int):
        self.fields = tuple(fields)
        self.build = build
        self.chunk = chunk
        self._made: dict[tuple[type, int], tuple[str, list]] = {}  # (database kind, rows) -> SQL, constants

    def run(self, database: Any, rows: Sequence[tuple]) -> None:
        """Write `rows` (`database`: the store's, as peewee opened it)."""
        fields = self.fields
        for n in range(0, len(rows), self.chunk):
            part = list(rows[n:n + self.chunk])
            values = [f.db_value(v) for r in part for f, v in zip(fields, r, strict=True)]
            made = self._made.get((type(database), len(part)))
            if made is None:
                sql, params = self.build(part).sql()
                if list(params[:len(values)]) != values:
                    raise ValueError(f"{sql[:60]}...: its values are not the rows' ({len(fields)} a row) first")
                made = self._made[(type(database), len(part))] = (sql, list(params[len(values):]))
            database.execute_sql(made[0], values + made[1])

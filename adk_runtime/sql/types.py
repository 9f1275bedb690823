"""Column types that read and write the same way on SQLite and PostgreSQL.

Dialect differences live here, not in ``if dialect`` branches: :data:`JSONDocument` is JSONB on
PostgreSQL and JSON text on SQLite; :class:`DateTimeUTC` stores UTC and always reads back an
aware UTC ``datetime``; :func:`json_merge` is a shallow merge of two JSON objects (``||`` on
PostgreSQL, a registered function on SQLite); :func:`text_list` aggregates text values into
one :class:`TextList` value (an array on PostgreSQL, a JSON array on SQLite), so a parent row
and its children come back in one statement; :func:`epoch_now` is the server's clock.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import JSON, DateTime, Double, Text, TypeDecorator
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import GenericFunction

__all__ = [
    "EPOCH_NOW",
    "SQLITE_JSON_MERGE",
    "DateTimeUTC",
    "JSONDocument",
    "TextList",
    "epoch_now",
    "json_merge",
    "sqlite_json_merge",
    "text_list",
]

JSONDocument = JSON().with_variant(JSONB(), "postgresql")
"""A JSON document column: JSONB on PostgreSQL, JSON text on SQLite."""

SQLITE_JSON_MERGE = "adk_json_merge"
"""Name of the SQL function :func:`sqlite_json_merge` is registered under on SQLite."""


class DateTimeUTC(TypeDecorator[datetime]):
    """A timestamp stored in UTC; naive values are taken as UTC; reads are aware UTC."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Convert to UTC (naive UTC on SQLite, which has no time zones)."""
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        value = value.astimezone(timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        """Return an aware UTC datetime."""
        if value is None:
            return None
        moment: datetime = datetime.fromisoformat(value) if isinstance(value, str) else value
        if moment.tzinfo is None:
            return moment.replace(tzinfo=timezone.utc)
        return moment.astimezone(timezone.utc)


class json_merge(GenericFunction[Any]):
    """``json_merge(document, delta)``: ``document`` with the top-level keys of ``delta`` set.

    A shallow merge: a nested object in ``delta`` replaces the old value, ``null`` is stored
    as ``null`` (unlike RFC 7396 ``json_patch``, which would delete the key).
    """

    type = JSONDocument
    inherit_cache = True
    name = "json_merge"


@compiles(json_merge, "postgresql")
def _merge_postgresql(element: json_merge, compiler: SQLCompiler, **kw: Any) -> str:
    document, delta = list(element.clauses)
    return f"({compiler.process(document, **kw)} || {compiler.process(delta, **kw)})"


@compiles(json_merge, "sqlite")
def _merge_sqlite(element: json_merge, compiler: SQLCompiler, **kw: Any) -> str:
    return f"{SQLITE_JSON_MERGE}({compiler.process(element.clauses, **kw)})"


def sqlite_json_merge(document: str | None, delta: str | None) -> str | None:
    """The SQLite implementation of :func:`json_merge` (registered on every connection)."""
    if document is None:
        return delta
    if delta is None:
        return document
    merged = json.loads(document)
    merged.update(json.loads(delta))
    return json.dumps(merged, ensure_ascii=False, separators=(",", ":"))


class TextList(TypeDecorator[list[str]]):
    """A list of texts read back from :func:`text_list` (empty when nothing matched)."""

    impl = ARRAY(Text).with_variant(Text(), "sqlite")
    cache_ok = True

    def process_result_value(self, value: Any, dialect: Dialect) -> list[str]:
        """Return the texts in aggregation order."""
        if value is None:
            return []
        if isinstance(value, str):
            loaded: list[str] = json.loads(value)
            return loaded
        return list(value)


class text_list(GenericFunction[list[str]]):
    """``text_list(column, order)``: the column's values, ordered by ``order``.

    Aggregate over a subquery that is itself ordered by ``order``: PostgreSQL's ``array_agg``
    orders explicitly (``ORDER BY`` inside the aggregate); SQLite's ``json_group_array``
    (before 3.44 no aggregate takes an ``ORDER BY``) keeps the order the rows arrive in, and
    SQLite never flattens an ordered subquery into an aggregate query.
    """

    type = TextList()
    inherit_cache = True
    name = "text_list"


@compiles(text_list, "postgresql")
def _text_list_postgresql(element: text_list, compiler: SQLCompiler, **kw: Any) -> str:
    value, order = list(element.clauses)
    return f"array_agg({compiler.process(value, **kw)} ORDER BY {compiler.process(order, **kw)})"


@compiles(text_list, "sqlite")
def _text_list_sqlite(element: text_list, compiler: SQLCompiler, **kw: Any) -> str:
    value, _order = list(element.clauses)
    return f"json_group_array({compiler.process(value, **kw)})"


EPOCH_NOW: dict[str, str] = {
    "postgresql": "extract(epoch from clock_timestamp())::float8",
    "sqlite": "((julianday('now') - 2440587.5) * 86400.0)",
}
"""The database server's clock as float seconds since the Unix epoch, as SQL per dialect.

Leases (session claims) are timed by the store's clock, so replicas whose clocks disagree
still agree on when a lease runs out."""


class epoch_now(GenericFunction[float]):
    """``epoch_now()``: :data:`EPOCH_NOW` as a SQL expression."""

    type = Double()
    inherit_cache = True
    name = "epoch_now"


@compiles(epoch_now)
def _epoch_now(element: epoch_now, compiler: SQLCompiler, **kw: Any) -> str:
    return EPOCH_NOW[compiler.dialect.name]

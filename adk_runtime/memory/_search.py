"""Ranked full-text search statements, one per dialect (FTS is not portable SQL).

Both take the query as a bound parameter built from plain words only (see
:func:`adk_runtime.memory._text.query_words`), each word quoted, joined with OR, so nothing a
user types is ever parsed as full-text syntax. Results are best first.

- PostgreSQL: ``to_tsquery`` over the generated ``tsvector`` column (GIN index), ranked by
  ``ts_rank``.
- SQLite: FTS5 ``MATCH`` joined to the entries by rowid, ranked by ``bm25``.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import TextClause, text

from adk_runtime.memory.tables import FTS_TABLE, SEARCH_COLUMN, TS_CONFIG

__all__ = ["SEARCHES", "Search"]

_COLUMNS = "e.content, e.author, e.timestamp, e.event_id, e.custom_metadata"

_POSTGRESQL = text(
    f"SELECT {_COLUMNS} FROM adk_memory_entries AS e, "
    f"to_tsquery('{TS_CONFIG}', :query) AS q "
    f"WHERE e.app_name = :app AND e.user_id = :user AND e.{SEARCH_COLUMN} @@ q "
    f"ORDER BY ts_rank(e.{SEARCH_COLUMN}, q) DESC, e.id LIMIT :limit"
)

_SQLITE = text(
    f"SELECT {_COLUMNS} FROM {FTS_TABLE} AS f JOIN adk_memory_entries AS e ON e.id = f.rowid "
    f"WHERE {FTS_TABLE} MATCH :query AND e.app_name = :app AND e.user_id = :user "
    f"ORDER BY bm25({FTS_TABLE}), e.id LIMIT :limit"
)


def _tsquery(words: list[str]) -> str:
    return " | ".join(f"'{word}'" for word in words)


def _fts5(words: list[str]) -> str:
    return " OR ".join(f'"{word}"' for word in words)


class Search:
    """A dialect's search statement and how it spells a list of words as a query."""

    def __init__(self, statement: TextClause, spell: Callable[[list[str]], str]) -> None:
        """Pair ``statement`` (params: query, app, user, limit) with its query speller."""
        self.statement = statement
        self.spell = spell


SEARCHES = {"postgresql": Search(_POSTGRESQL, _tsquery), "sqlite": Search(_SQLITE, _fts5)}

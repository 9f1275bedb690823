"""Spreadsheet artifacts as text for the model: each sheet a Markdown table of its first rows.

``.xlsx`` is read with openpyxl (read-only, cell values, defusedxml for the XML), legacy
``.xls`` with xlrd; both come with the ``spreadsheets`` extra. A spreadsheet is untrusted
input: an ``.xlsx`` whose parts would unpack to more than 64 MiB is refused before any part
is parsed (a zip bomb), and what reaches the model is bounded (100 rows and 50 columns per
sheet, 200 characters per cell). A file that cannot be read becomes a one-line note naming
it and the error's type, never its content.
"""

from __future__ import annotations

import datetime
import importlib.util
import io
import logging
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from adk_runtime.errors import ConfigurationError

__all__ = ["check_installed", "is_spreadsheet", "spreadsheet_text"]

logger = logging.getLogger(__name__)

MAX_ROWS = 100
MAX_COLUMNS = 50
MAX_CELL_CHARS = 200
MAX_UNPACKED_BYTES = 64 * 1024 * 1024

_SPREADSHEET_TYPES = frozenset(
    {
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "application/vnd.ms-excel",
    }
)
_SUFFIXES = (".xlsx", ".xls")
_OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # the container of legacy .xls files
_MODULES = ("openpyxl", "xlrd", "defusedxml")


class SpreadsheetTooLargeError(ValueError):
    """The workbook's parts would unpack to more than :data:`MAX_UNPACKED_BYTES`."""


@dataclass
class _Sheet:
    title: str
    rows: list[list[str]]  # the first non-empty rows (header first), at most MAX_ROWS + 1
    data_rows: int  # every non-empty row after the header
    columns: int  # the widest row's cell count


def check_installed() -> None:
    """Raise :class:`ConfigurationError` naming the extra when a reader is missing."""
    missing = [name for name in _MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise ConfigurationError(
            f"Spreadsheet parsing needs {', '.join(missing)}, which is not installed: "
            "pip install 'adk-runtime[spreadsheets]' (or 'adk-runtime[all]')."
        )


def is_spreadsheet(mime_type: str, name: str) -> bool:
    """Whether an artifact of this type and name is an Excel workbook."""
    return mime_type in _SPREADSHEET_TYPES or name.lower().endswith(_SUFFIXES)


def spreadsheet_text(data: bytes, name: str) -> str:
    """Every non-empty sheet of the workbook ``data`` as a Markdown table, or a short note."""
    check_installed()
    try:
        sheets = list(_xls_sheets(data) if data.startswith(_OLE2_MAGIC) else _xlsx_sheets(data))
    except Exception as exc:  # a malformed or hostile file: the model is told, nothing raised
        logger.warning("Spreadsheet artifact %r cannot be read (%s).", name, type(exc).__name__)
        return f"[Spreadsheet {name} cannot be read: {type(exc).__name__}.]"
    tables = [_markdown(sheet) for sheet in sheets if sheet.rows]
    return "\n\n".join(tables) if tables else f"[Spreadsheet {name} is empty.]"


def _xlsx_sheets(data: bytes) -> Iterator[_Sheet]:
    import openpyxl

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        # zipfile never unpacks a part beyond its declared size, so the sum bounds the work.
        if sum(info.file_size for info in archive.infolist()) > MAX_UNPACKED_BYTES:
            raise SpreadsheetTooLargeError("the workbook unpacks to more than 64 MiB")
    workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        for sheet in workbook.worksheets:
            yield _collect(str(sheet.title), sheet.iter_rows(values_only=True))
    finally:
        workbook.close()


def _xls_sheets(data: bytes) -> Iterator[_Sheet]:
    import xlrd

    book = xlrd.open_workbook(file_contents=data, on_demand=True)
    try:
        for index in range(book.nsheets):
            sheet = book.sheet_by_index(index)

            def rows(sheet: Any = sheet) -> Iterator[list[Any]]:
                for r in range(sheet.nrows):
                    yield [
                        xlrd.xldate.xldate_as_datetime(cell.value, book.datemode)
                        if cell.ctype == xlrd.XL_CELL_DATE
                        else cell.value
                        for cell in sheet.row(r)
                    ]

            yield _collect(str(sheet.name), rows())
            book.unload_sheet(index)
    finally:
        book.release_resources()


def _collect(title: str, rows: Iterable[Sequence[Any]]) -> _Sheet:
    kept: list[list[str]] = []
    data_rows = columns = 0
    for row in rows:
        cells = [_cell(value) for value in row]
        while cells and not cells[-1]:
            cells.pop()
        if not cells:
            continue  # an empty row carries nothing for the model
        columns = max(columns, len(cells))
        if kept:
            data_rows += 1
        if len(kept) <= MAX_ROWS:
            kept.append(cells[:MAX_COLUMNS])
    return _Sheet(title, kept, data_rows, columns)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        text = str(int(value))
    elif isinstance(value, datetime.datetime) and value.time() == datetime.time():
        text = value.date().isoformat()
    elif isinstance(value, datetime.date | datetime.time):
        text = value.isoformat()
    else:
        text = str(value)
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


def _markdown(sheet: _Sheet) -> str:
    width = min(sheet.columns, MAX_COLUMNS)
    header, *body = (row + [""] * (width - len(row)) for row in sheet.rows)
    lines = [f"### Sheet: {sheet.title}", "", "| " + " | ".join(header) + " |"]
    lines.append("|" + "---|" * width)
    lines.extend("| " + " | ".join(row) + " |" for row in body)
    notes = []
    if sheet.data_rows > MAX_ROWS:
        notes.append(f"the first {MAX_ROWS} of {sheet.data_rows} rows")
    if sheet.columns > MAX_COLUMNS:
        notes.append(f"the first {MAX_COLUMNS} of {sheet.columns} columns")
    if notes:
        lines.extend(["", f"[Shown: {' and '.join(notes)}.]"])
    return "\n".join(lines)

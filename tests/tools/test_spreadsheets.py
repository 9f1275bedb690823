"""load_artifacts shows Excel workbooks as Markdown tables (opt-in), bounded and off the loop."""

from __future__ import annotations

import asyncio
import datetime
import io
import threading
import zipfile
from pathlib import Path

import openpyxl
import pytest
from blockbuster import BlockBuster
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.errors import ConfigurationError
from adk_runtime.models import _spreadsheets
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools.load_artifacts_tool import LoadArtifactsTool, as_safe_part_for_llm
from tests.llm.helpers import send, start, stored

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
# Written once with xlwt (Workbook, sheets "Q3" with a header, 2 rows and a date, and "Empty").
XLS_FILE = Path(__file__).parent / "data" / "quarterly.xls"


def _workbook() -> bytes:
    book = openpyxl.Workbook()
    sales = book.active
    assert sales is not None
    sales.title = "Sales"
    sales.append(["item", "units", "note"])
    sales.append(["pens", 12, "blue | black\nboxes"])
    sales.append([])  # an empty row in the middle is left out
    sales.append(["ink", 3.0, datetime.datetime(2026, 11, 2, 9, 30)])
    book.create_sheet("Blank")
    wide = book.create_sheet("Wide")
    for row in range(150):
        wide.append([f"r{row}c{column}" for column in range(60)])
    wide.cell(row=2, column=1, value="x" * 500)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _blob(data: bytes, mime_type: str = XLSX) -> types.Part:
    return types.Part(inline_data=types.Blob(data=data, mime_type=mime_type))


def test_each_sheet_is_a_bounded_markdown_table() -> None:
    text = as_safe_part_for_llm(_blob(_workbook()), "sales.xlsx", True).text
    assert text is not None
    sales, wide = text.split("\n\n### ")
    assert sales.splitlines() == [
        "### Sheet: Sales",
        "",
        "| item | units | note |",
        "|---|---|---|",
        "| pens | 12 | blue \\| black boxes |",
        "| ink | 3 | 2026-11-02T09:30:00 |",
    ]
    assert "Blank" not in text  # an empty sheet is left out
    lines = wide.splitlines()
    assert lines[0] == "Sheet: Wide"
    assert lines[2].startswith("| r0c0 | r0c1 |")
    assert lines[2].endswith("| r0c49 |")
    assert len(lines[3].split("|")) == 52  # 50 columns
    assert lines[4].startswith("| " + "x" * 199 + "… |")
    assert lines[4 + 99].startswith("| r100c0 |")  # header + 100 rows
    assert lines[-1] == "[Shown: the first 100 of 149 rows and the first 50 of 60 columns.]"


def test_a_legacy_xls_workbook_is_read_too() -> None:
    shown = as_safe_part_for_llm(_blob(XLS_FILE.read_bytes(), "application/vnd.ms-excel"), "q3")
    assert shown.text is not None
    assert shown.text.startswith("[Binary artifact: q3")  # parsing is opt-in
    legacy = _blob(XLS_FILE.read_bytes(), "application/octet-stream")
    text = as_safe_part_for_llm(legacy, "q.xls", True).text
    assert text == (
        "### Sheet: Q3\n\n| region | revenue | closed |\n|---|---|---|\n"
        "| North | 1200 | 2026-09-30 |\n| South | 980.5 | 2026-09-29 |"
    )


def _bomb() -> bytes:
    """A valid workbook plus a part that unpacks to 100 MiB of zeros (100 KiB packed)."""
    buffer = io.BytesIO(_workbook())
    with (
        zipfile.ZipFile(buffer, "a", compression=zipfile.ZIP_DEFLATED) as archive,
        archive.open("xl/padding.bin", "w") as part,
    ):
        for _ in range(100):
            part.write(b"\0" * (1024 * 1024))
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b"not a workbook", "BadZipFile"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600, "CompDocError"),
        (_bomb(), "SpreadsheetTooLargeError"),
    ],
    ids=["garbage", "broken-xls", "zip-bomb"],
)
def test_a_workbook_that_cannot_be_read_becomes_a_note(
    data: bytes, error: str, caplog: pytest.LogCaptureFixture
) -> None:
    assert len(data) < 2 * 1024 * 1024
    text = as_safe_part_for_llm(_blob(data), "evil.xlsx", True).text
    assert text == f"[Spreadsheet evil.xlsx cannot be read: {error}.]"
    assert [record.levelname for record in caplog.records] == ["WARNING"]
    assert "evil.xlsx" in caplog.text


def test_an_empty_workbook_says_so() -> None:
    buffer = io.BytesIO()
    openpyxl.Workbook().save(buffer)
    text = as_safe_part_for_llm(_blob(buffer.getvalue()), "none.xlsx", True).text
    assert text == "[Spreadsheet none.xlsx is empty.]"


def test_without_the_extra_opting_in_is_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = _spreadsheets.importlib.util.find_spec
    monkeypatch.setattr(
        _spreadsheets.importlib.util,
        "find_spec",
        lambda name, *args: None if name == "xlrd" else real(name, *args),
    )
    with pytest.raises(ConfigurationError, match=r"xlrd.*adk-runtime\[spreadsheets\]"):
        LoadArtifactsTool(enable_spreadsheet_parsing=True)
    with pytest.raises(ConfigurationError, match="spreadsheets"):
        as_safe_part_for_llm(_blob(_workbook()), "sales.xlsx", True)
    LoadArtifactsTool()  # not asked for: nothing needed


async def test_load_artifacts_shows_the_workbook_parsed_off_the_loop(
    session_service: BaseSessionService, blockbuster: BlockBuster, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed_on: list[int] = []
    parse = _spreadsheets.spreadsheet_text

    def recording(data: bytes, name: str) -> str:
        parsed_on.append(threading.get_ident())
        return parse(data, name)

    monkeypatch.setattr(_spreadsheets, "spreadsheet_text", recording)
    model = ScriptedModel(
        replies=[function_call("load_artifacts", {"artifact_names": ["sales.xlsx"]}), "12 pens."]
    )
    tool = LoadArtifactsTool(enable_spreadsheet_parsing=True)
    runner = await start(LlmAgent(name="files", model=model, tools=[tool]), session_service)
    assert runner.artifact_service is not None
    await runner.artifact_service.save_artifact(
        app_name="app", user_id="u1", session_id="s1", filename="sales.xlsx",
        artifact=_blob(await asyncio.to_thread(_workbook)),  # openpyxl's own file calls
    )  # fmt: skip
    await send(runner, "how many pens?")
    shown = model.requests[1].contents[-1]
    assert shown.parts is not None
    assert shown.parts[0].text == "Artifact sales.xlsx is:"
    assert shown.parts[1].text is not None
    assert "| pens | 12 | blue \\| black boxes |" in shown.parts[1].text
    session = await stored(runner)  # the table is sent, never stored
    assert "pens | 12" not in str([event.content for event in session.events])
    assert len(parsed_on) == 1
    assert parsed_on[0] != threading.get_ident()  # a worker thread, not the loop's

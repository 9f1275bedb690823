"""cli.utils.logs: google-adk's samples start with ``logs.log_to_tmp_folder()``."""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from adk_runtime.cli.utils import logs


@pytest.fixture
def root_logger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[logging.Logger]:
    """The root logger, its handlers and level put back afterwards; the temp folder a tmp_path."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    package_level = logging.getLogger("adk_runtime").level
    yield root
    for handler in list(root.handlers):
        root.removeHandler(handler)
        if handler not in handlers:
            handler.close()
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)
    logging.getLogger("adk_runtime").setLevel(package_level)


def test_log_to_tmp_folder_sends_records_to_a_new_file_only(
    root_logger: logging.Logger, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = logs.log_to_tmp_folder(logging.DEBUG, log_file_timestamp="20260101_000000")

    assert Path(path) == tmp_path / "agents_log" / "agent.20260101_000000.log"
    assert [isinstance(h, logging.FileHandler) for h in root_logger.handlers] == [True]
    assert root_logger.level == logging.DEBUG
    logging.getLogger("adk_runtime.sample").debug("hello %s", "file")
    root_logger.handlers[0].flush()
    line = Path(path).read_text()
    assert " - DEBUG - test_logs.py:" in line
    assert line.rstrip().endswith("hello file")
    latest = tmp_path / "agents_log" / "agent.latest.log"
    assert latest.is_symlink()
    assert latest.resolve() == Path(path).resolve()
    out = capsys.readouterr().out
    assert f"Log setup complete: {path}" in out
    assert f"tail -F {latest}" in out


def test_a_second_file_moves_the_latest_link_and_names_are_chosen(
    root_logger: logging.Logger, tmp_path: Path
) -> None:
    logs.log_to_tmp_folder(sub_folder="runs", log_file_prefix="job", log_file_timestamp="1")
    (first,) = root_logger.handlers
    assert isinstance(first, logging.FileHandler)
    second = logs.log_to_tmp_folder(
        logging.WARNING, sub_folder="runs", log_file_prefix="job", log_file_timestamp="2"
    )
    assert Path(second) == tmp_path / "runs" / "job.2.log"
    assert (tmp_path / "runs" / "job.latest.log").resolve() == Path(second).resolve()
    assert len(root_logger.handlers) == 1
    assert first.stream is None  # the earlier file is closed, not leaked
    assert root_logger.level == logging.WARNING


def test_a_file_in_the_links_place_is_kept_and_the_log_path_printed(
    root_logger: logging.Logger, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "agents_log").mkdir()
    blocker = tmp_path / "agents_log" / "agent.latest.log"
    blocker.write_text("mine")
    with pytest.warns(UserWarning, match="file of that name exists"):
        path = logs.log_to_tmp_folder(log_file_timestamp="x")
    assert blocker.read_text() == "mine"
    assert f"tail -F {path}" in capsys.readouterr().out


def test_setup_adk_logger_sets_the_package_level(root_logger: logging.Logger) -> None:
    logs.setup_adk_logger(logging.DEBUG)
    assert logging.getLogger("adk_runtime").level == logging.DEBUG
    assert logging.getLogger("adk_runtime.runners").isEnabledFor(logging.DEBUG)
    assert "%(filename)s:%(lineno)d" in logs.LOGGING_FORMAT

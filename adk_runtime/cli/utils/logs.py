"""Logging set-ups for scripts and samples (google-adk's ``cli.utils.logs``).

``log_to_tmp_folder()`` sends every log record to a fresh file in the system's temporary
folder (the terminal stays quiet) and says where the file is; ``setup_adk_logger()`` logs to
stderr instead. Neither needs the ``cli`` extra.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
import warnings
from pathlib import Path

__all__ = ["LOGGING_FORMAT", "log_to_tmp_folder", "setup_adk_logger"]

LOGGING_FORMAT = "%(asctime)s - %(levelname)s - %(filename)s:%(lineno)d - %(message)s"
"""The line format of both set-ups: time, level, source line, message."""

_PACKAGE_LOGGER = "adk_runtime"


def setup_adk_logger(level: int = logging.INFO) -> None:
    """Logs to stderr in :data:`LOGGING_FORMAT`, adk_runtime's records from ``level`` up.

    The root logger gets a stderr handler unless it already has one (``logging.basicConfig``);
    the ``adk_runtime`` logger, parent of every logger of this package, is set to ``level``.
    """
    logging.basicConfig(level=level, format=LOGGING_FORMAT)
    logging.getLogger(_PACKAGE_LOGGER).setLevel(level)


def log_to_tmp_folder(
    level: int = logging.INFO,
    *,
    sub_folder: str = "agents_log",
    log_file_prefix: str = "agent",
    log_file_timestamp: str | None = None,
) -> str:
    """Sends all logging to a new file under the system's temporary folder, not to stderr.

    The file is ``<tmp>/<sub_folder>/<log_file_prefix>.<log_file_timestamp>.log`` (the
    timestamp defaults to the current local time, ``YYYYmmdd_HHMMSS``). The root logger is set
    to ``level`` and its handlers are replaced by the file's (an earlier call's file is
    closed; other handlers are only removed). A link named
    ``<log_file_prefix>.latest.log`` beside it points at the newest file where the system
    allows links; the path to follow is printed either way.

    Args:
        level: The least severe level written, for the root logger and the file.
        sub_folder: The folder under the temporary folder, created when missing.
        log_file_prefix: The start of the file name (and of the "latest" link's).
        log_file_timestamp: The middle of the file name.

    Returns:
        The path of the log file.
    """
    stamp = log_file_timestamp if log_file_timestamp is not None else time.strftime("%Y%m%d_%H%M%S")
    log_dir = Path(tempfile.gettempdir()) / sub_folder
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"{log_file_prefix}.{stamp}.log"

    handler = _TmpFolderHandler(log_path, mode="w")
    handler.setLevel(level)
    handler.setFormatter(logging.Formatter(LOGGING_FORMAT))
    root = logging.getLogger()
    root.setLevel(level)
    for previous in list(root.handlers):  # nothing goes to stderr any more
        root.removeHandler(previous)
        if isinstance(previous, _TmpFolderHandler):  # an earlier call's file: closed
            previous.close()
    root.addHandler(handler)

    print(f"Log setup complete: {log_path}")
    latest = log_dir / f"{log_file_prefix}.latest.log"
    follow = latest if _point_link(latest, log_path) else log_path
    print(f"To access latest log: tail -F {follow}")
    return str(log_path)


class _TmpFolderHandler(logging.FileHandler):
    """The file handler :func:`log_to_tmp_folder` makes; a later call closes it."""


def _point_link(link: Path, target: Path) -> bool:
    """Makes ``link`` a symbolic link to ``target``; False where that cannot be done.

    An older link is replaced; a real file of that name is left alone, with a warning.
    """
    try:
        if link.is_symlink():
            link.unlink()
        elif link.exists():
            warnings.warn(
                f"not linking {link} to the newest log: a file of that name exists",
                stacklevel=3,
            )
            return False
        os.symlink(target, link)
    except OSError:
        return False
    return True

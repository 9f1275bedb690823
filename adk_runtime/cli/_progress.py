"""A progress bar for long commands (export, import): counts and rate, only on a terminal."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

__all__ = ["progress_bar"]


class _RateColumn(ProgressColumn):
    """Items per second, e.g. ``640 sessions/s``."""

    def __init__(self, unit: str) -> None:
        super().__init__()
        self.unit = unit

    def render(self, task: Task) -> Text:
        """The task's speed in items per second ('' until it is known)."""
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:,.0f} {self.unit}/s", style="cyan")


def progress_bar(unit: str, *, extra: str = "") -> Progress:
    """A transient bar on stderr with ``done/total``, a rate and the elapsed time.

    It is disabled (prints nothing) when stderr is not a terminal, so pipes and logs stay clean.

    Args:
        unit: What is counted, e.g. ``"sessions"``.
        extra: A rich format string shown after the counts (task fields, e.g.
            ``"{task.fields[events]} events"``).
    """
    console = Console(stderr=True)
    columns: list[ProgressColumn | str] = [
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit),
    ]
    if extra:
        columns.append(TextColumn(extra))
    columns += [_RateColumn(unit), TimeElapsedColumn()]
    return Progress(*columns, console=console, transient=True, disable=not console.is_terminal)

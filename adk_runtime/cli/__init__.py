"""The ``adk-runtime`` command line (click; rich for tables and progress).

Each command group lives in its own module and attaches itself to :data:`main`; the modules
are imported at the bottom of this file.
"""

from __future__ import annotations

import click

from adk_runtime import __version__
from adk_runtime.cli._common import AdkGroup


@click.group(cls=AdkGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="adk-runtime")
def main() -> None:
    """adk-runtime: run, inspect and serve durable ADK agents."""


# Command modules register themselves on `main` when imported (one import line each).
import adk_runtime.cli.chat  # noqa: E402
import adk_runtime.cli.db  # noqa: E402
import adk_runtime.cli.demo  # noqa: E402
import adk_runtime.cli.serve  # noqa: E402
import adk_runtime.cli.sessions  # noqa: E402, F401

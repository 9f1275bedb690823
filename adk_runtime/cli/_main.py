"""The ``main`` click group: built from the command modules, explicitly.

Each command (or command group) lives in its own module and knows nothing of the others.
"""

from __future__ import annotations

import click

from adk_runtime import __version__
from adk_runtime.cli._common import AdkGroup
from adk_runtime.cli.chat import chat
from adk_runtime.cli.db import db
from adk_runtime.cli.demo import demo
from adk_runtime.cli.durable import fork_command, interrupted_command, resume
from adk_runtime.cli.mcp import mcp
from adk_runtime.cli.serve import serve
from adk_runtime.cli.sessions import sessions

__all__ = ["main"]


@click.group(cls=AdkGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="adk-runtime")
def main() -> None:
    """adk-runtime: run, inspect and serve durable ADK agents."""


for command in (chat, db, demo, mcp, serve, sessions, resume):
    main.add_command(command)
for command in (interrupted_command, fork_command):
    sessions.add_command(command)

"""The ``main`` click group: each command imported only when it runs (or help lists it).

Each command (or command group) lives in its own module and knows nothing of the others.
Loading them lazily keeps a command's start-up to what it uses: ``db check`` in a deploy
script does not import the agents, google-genai or the HTTP server.
"""

from __future__ import annotations

import difflib
import importlib

import click

from adk_runtime.cli._common import AdkGroup
from adk_runtime.version import __version__

__all__ = ["main"]

_COMMANDS: dict[str, tuple[str, str]] = {
    "api_server": ("adk_runtime.cli.serve", "api_server"),
    "chat": ("adk_runtime.cli.chat", "chat"),
    "create": ("adk_runtime.cli.create", "create"),
    "db": ("adk_runtime.cli.db", "db"),
    "demo": ("adk_runtime.cli.demo", "demo"),
    "mcp": ("adk_runtime.cli.mcp", "mcp"),
    "resume": ("adk_runtime.cli.durable", "resume"),
    "run": ("adk_runtime.cli.run", "run"),
    "serve": ("adk_runtime.cli.serve", "serve"),
    "sessions": ("adk_runtime.cli.sessions", "sessions"),
    "web": ("adk_runtime.cli.serve", "web"),
}
"""Command name -> (module, attribute). ``create``, ``run``, ``web`` and ``api_server`` are
google-adk's ``adk`` verbs (``web`` and ``api_server`` are ``serve`` by those names)."""

_SESSIONS_EXTRA: tuple[tuple[str, str], ...] = (
    ("adk_runtime.cli.durable", "interrupted_command"),
    ("adk_runtime.cli.durable", "fork_command"),
)
"""``sessions`` subcommands that live in other modules."""


def _load(module: str, attribute: str) -> click.Command:
    command: click.Command = getattr(importlib.import_module(module), attribute)
    return command


class _LazyGroup(AdkGroup):
    """``AdkGroup`` whose commands are imported when asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """As click's, with a did-you-mean taken from :data:`_COMMANDS` for an unknown name.

        click suggests from the commands the group holds, and this one holds none until one
        is asked for.
        """
        name = args[0] if args else ""
        unknown = name and not name.startswith("-") and self.get_command(ctx, name) is None
        if unknown and not ctx.resilient_parsing:
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1)
            ctx.fail(
                f"No such command {name!r}." + (f" Did you mean {close[0]!r}?" if close else "")
            )
        return super().resolve_command(ctx, args)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        where = _COMMANDS.get(cmd_name)
        if where is None:
            return None
        command = _load(*where)
        if cmd_name == "sessions" and isinstance(command, click.Group):
            for module, attribute in _SESSIONS_EXTRA:
                extra = _load(module, attribute)
                if extra.name not in command.commands:
                    command.add_command(extra)
        return command


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="adk-runtime")
def main() -> None:
    """adk-runtime: run, inspect and serve durable ADK agents."""

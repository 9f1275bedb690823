"""Every option ``--help`` marks required is enforced by click (a usage error, exit 2)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from adk_runtime.cli import main

_NO_ENV = {"ADK_RUNTIME_SESSION_URL": None, "ADK_RUNTIME_ARTIFACT_URL": None}


def _commands(
    group: click.Group, ctx: click.Context, path: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            yield from _commands(command, click.Context(command, parent=ctx), (*path, name))
        else:
            yield (*path, name), command


def _required() -> list[tuple[tuple[str, ...], click.Command, str]]:
    ctx = click.Context(main)
    assert isinstance(main, click.Group)
    found = []
    for path, command in _commands(main, ctx, ()):
        for param in command.params:
            if param.required and param.name is not None:
                found.append((path, command, param.name))
    return found


REQUIRED = _required()


def test_the_commands_that_need_a_user_say_so() -> None:
    needs_user = {" ".join(path) for path, _, name in REQUIRED if name == "user_id"}
    assert {"sessions show", "sessions delete", "sessions fork"} <= needs_user


@pytest.mark.parametrize(
    ("path", "command", "missing"),
    REQUIRED,
    ids=[f"{' '.join(path)}-{name}" for path, _, name in REQUIRED],
)
def test_a_missing_required_option_is_a_usage_error(
    tmp_path: Path, path: tuple[str, ...], command: click.Command, missing: str
) -> None:
    given = tmp_path / "given.txt"  # an existing file: a valid value for any required option
    given.write_text("x", encoding="utf-8")
    args: list[str] = list(path)
    for param in command.params:
        if not param.required or param.name == missing:
            continue
        if isinstance(param, click.Option):
            args.append(param.opts[0])
        args.append(str(given))
    result = CliRunner().invoke(main, args, env=_NO_ENV)
    assert result.exit_code == 2, (args, result.output)
    assert "Missing" in result.output, result.output
    assert "must be a string" not in result.output

"""LocalEnvironment: real commands and files in a temp directory, nothing blocking the loop."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from blockbuster import BlockBuster

from adk_runtime.environment import BaseEnvironment, ExecutionResult, LocalEnvironment
from tests.processes import wait_gone

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")


@pytest.fixture
async def env(tmp_path: Path, blockbuster: BlockBuster) -> LocalEnvironment:
    environment = LocalEnvironment(working_dir=tmp_path / "work", env_vars={"GREETING": "hi"})
    await environment.initialize()
    return environment


async def read_pid(path: Path) -> int:
    for _ in range(200):
        text = await asyncio.to_thread(lambda: path.read_text() if path.exists() else "")
        if text.strip():
            return int(text)
        await asyncio.sleep(0.05)
    raise AssertionError("the command never wrote its pid")


async def test_a_command_runs_in_the_working_dir_with_the_extra_variables(
    env: LocalEnvironment,
) -> None:
    result = await env.execute('pwd; echo "$GREETING"; echo err >&2; exit 4')
    assert result == ExecutionResult(
        exit_code=4, stdout=f"{env.working_dir}\nhi\n", stderr="err\n", timed_out=False
    )
    assert isinstance(env, BaseEnvironment)
    assert env.is_initialized


async def test_files_round_trip_and_stay_inside(env: LocalEnvironment, tmp_path: Path) -> None:
    await env.write_file("a/b.txt", "one\r\ntwo")  # text is written as it is
    assert await env.read_file(env.working_dir / "a" / "b.txt") == b"one\r\ntwo"
    shown = await env.execute("cat a/b.txt")
    assert shown.stdout == "one\r\ntwo"
    outside = tmp_path / "outside"
    await asyncio.to_thread(outside.mkdir)
    await asyncio.to_thread((env.working_dir / "link").symlink_to, outside)
    with pytest.raises(ValueError, match="escapes working directory"):
        await env.write_file("link/planted.txt", "x")  # through a symbolic link
    with pytest.raises(ValueError, match="escapes working directory"):
        await env.read_file("../outside")
    assert await asyncio.to_thread(lambda: list(outside.iterdir())) == []
    with pytest.raises(FileNotFoundError):
        await env.read_file("missing.txt")


async def test_a_temporary_working_dir_is_made_and_removed(blockbuster: BlockBuster) -> None:
    environment = LocalEnvironment()
    with pytest.raises(RuntimeError, match="initialize"):
        _ = environment.working_dir
    await environment.initialize()
    made = environment.working_dir
    assert await asyncio.to_thread(made.is_dir)
    await environment.write_file("x.txt", b"\x00\xff")
    await environment.close()
    assert not await asyncio.to_thread(made.exists)
    assert not environment.is_initialized
    await environment.close()  # twice is harmless


async def test_a_timeout_kills_the_command_and_its_children(env: LocalEnvironment) -> None:
    result = await env.execute("sleep 60 & echo $! > child.pid; echo started; wait", timeout=1)
    assert result.timed_out
    assert result.stdout == "started\n"
    assert await wait_gone(await read_pid(env.working_dir / "child.pid"))


async def test_what_a_finished_command_left_running_is_ended(env: LocalEnvironment) -> None:
    result = await env.execute("sleep 60 >/dev/null 2>&1 & echo $!", timeout=30)
    assert not result.timed_out
    assert await wait_gone(int(result.stdout))


async def test_a_cancelled_call_kills_the_command(env: LocalEnvironment) -> None:
    task = asyncio.create_task(env.execute("echo $$ > shell.pid; sleep 60"))
    pid = await read_pid(env.working_dir / "shell.pid")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_gone(pid)


async def test_a_call_cancelled_while_its_command_starts_ends_the_command(
    env: LocalEnvironment,
) -> None:
    # One loop step in, the task is inside asyncio's start of the shell (forked, its pipes not
    # connected yet): a cancellation there must still end the whole group, at once, and not
    # wait for the command (here a minute) to end.
    marker = f"sleep 61.{os.getpid()}"
    for steps in (1, 2, 3):
        task = asyncio.create_task(env.execute(f"{marker} & {marker}; wait"))
        for _ in range(steps):
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(task), timeout=10)
        assert await asyncio.to_thread(_running, marker) == []


def _running(marker: str) -> list[int]:
    """The pids of live processes whose command line holds ``marker``."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


async def test_output_is_capped_in_memory(tmp_path: Path, blockbuster: BlockBuster) -> None:
    environment = LocalEnvironment(working_dir=tmp_path, max_output_bytes=1000)
    await environment.initialize()
    result = await environment.execute("head -c 500000 /dev/zero | tr '\\0' a; echo done >&2")
    assert result.exit_code == 0
    assert result.stdout.startswith("a" * 1000)
    assert result.stdout.endswith("(499000 more bytes of output dropped)")
    assert result.stderr == "done\n"

"""Run ``adk-runtime`` in a subprocess: a one-shot command, or a server on a free port."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Container, Iterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def cli_env(**extra: str) -> dict[str, str]:
    """The environment for a CLI subprocess: the repo importable, no ADK_RUNTIME_* leftovers."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADK_RUNTIME_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["COLUMNS"] = "200"
    env.update(extra)
    return env


def run_cli(
    *args: str, cwd: Path | None = None, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``adk-runtime ARGS`` and return the finished process (output as text)."""
    return subprocess.run(
        [sys.executable, "-m", "adk_runtime.cli", *args],
        cwd=cwd or ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        env=env or cli_env(),
        timeout=120,
        check=False,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def running_server(*args: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """Start ``adk-runtime serve ARGS --port <free>``; yield its base URL; stop it after."""
    port = free_port()
    command = [sys.executable, "-m", "adk_runtime.cli", "serve", *args, "--port", str(port)]
    with running_process(command, port, "/health", env=env) as base:
        yield base


@contextlib.contextmanager
def running_process(
    command: list[str],
    port: int,
    ready_path: str,
    *,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    start_seconds: float = 30,
    ready_statuses: Container[int] = (200,),
) -> Iterator[str]:
    """Run an HTTP server ``command`` on ``port``; yield its base URL once ``ready_path``
    answers with one of ``ready_statuses``; stop it (terminate, then kill) after."""
    proc = subprocess.Popen(
        command,
        cwd=cwd or ROOT,
        env=env or cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_seconds
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"server exited: {proc.stdout.read() if proc.stdout else ''}")
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(base + ready_path, timeout=1).status_code in ready_statuses:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"server did not start in {start_seconds:g} s")
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()

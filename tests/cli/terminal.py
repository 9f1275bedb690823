"""Run ``adk-runtime`` on a real pseudo-terminal, as a person at a keyboard would."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

from tests.serving import ROOT, cli_env

_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal:
    """``adk-runtime ARGS`` with a pty as its controlling terminal (stdin, stdout, stderr)."""

    def __init__(self, *args: str, cwd: Path = ROOT, columns: int = 80) -> None:
        env = cli_env(COLUMNS=str(columns), TERM="xterm")
        argv = [sys.executable, "-m", "adk_runtime.cli", *args]
        pid, fd = pty.fork()
        if pid == 0:  # the child: the pty is its controlling terminal
            try:
                # a terminal's foreground program gets Ctrl-C and Ctrl-\ even when the test
                # run itself was started with them ignored (``nohup … &`` from a script)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                signal.signal(signal.SIGQUIT, signal.SIG_DFL)
                os.chdir(cwd)
                os.execve(sys.executable, argv, env)
            finally:
                os._exit(127)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        self.pid = pid
        self.fd = fd
        self.output = ""
        self.status: int | None = None

    @property
    def text(self) -> str:
        """The output without terminal escape sequences (colours, cursor moves)."""
        return _ESCAPE.sub("", self.output)

    def _read(self, timeout: float) -> None:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if ready:
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                data = b""
            self.output += data.decode("utf-8", errors="replace")

    def expect(self, text: str, *, after: int = 0, timeout: float = 30) -> int:
        """Wait until ``text`` appears (at or after offset ``after``); return where it ends."""
        deadline = time.monotonic() + timeout
        while (at := self.output.find(text, after)) < 0:
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not seen in {self.output[after:]!r}")
            self._read(0.1)
        return at + len(text)

    def send(self, keys: str) -> None:
        """Type ``keys`` (``\\r`` is Enter, ``\\x03`` Ctrl-C, ``\\x04`` Ctrl-D)."""
        os.write(self.fd, keys.encode())

    def wait(self, timeout: float = 15) -> int:
        """The exit status (128 + N for signal N); fails if the process does not exit."""
        deadline = time.monotonic() + timeout
        while self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                if self.status < 0:
                    self.status = 128 - self.status
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"still running after {timeout} s: {self.output!r}")
            self._read(0.1)
        self._read(0.2)
        return self.status

    def close(self) -> None:
        """Kill the process if it still runs; close the terminal."""
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except ProcessLookupError:
                pass
        os.close(self.fd)

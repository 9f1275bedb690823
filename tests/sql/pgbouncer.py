"""A private PgBouncer (transaction pooling) in front of the test PostgreSQL server.

Started on a spare loopback port for the tests that need it and stopped after. Debian's
``pgbouncer`` package provides the binary (``make test`` installs it when missing); a missing
binary fails the tests that need it, never skips them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

from tests.serving import free_port

_CONFIG = """\
[databases]
* = host={host} port={port}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {listen}
auth_type = trust
auth_file = {root}/users.txt
pool_mode = transaction
unix_socket_dir =
logfile = {root}/pgbouncer.log
pidfile = {root}/pgbouncer.pid
max_client_conn = 400
default_pool_size = {pool}
"""


def pgbouncer_binary() -> str:
    """The pgbouncer executable (an AssertionError naming the package when it is missing)."""
    for candidate in (shutil.which("pgbouncer"), "/usr/sbin/pgbouncer"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise AssertionError(
        "pgbouncer is not installed: run 'make test' as root (it installs Debian's pgbouncer "
        "package) or 'apt-get install pgbouncer'."
    )


@contextlib.contextmanager
def running_pgbouncer(postgres_url: str, *, pool: int = 4) -> Iterator[str]:
    """Start PgBouncer for the server of ``postgres_url``; yield the same URL through it.

    Its files live in a folder of its own under /tmp (readable by the ``postgres`` user it
    runs as when the tests run as root), removed afterwards.
    """
    target = urlsplit(postgres_url.replace("postgresql+asyncpg://", "postgresql://"))
    user = target.username or "postgres"
    listen = free_port()
    root = Path(tempfile.mkdtemp(prefix="adk-pgbouncer-"))
    (root / "users.txt").write_text(f'"{user}" ""\n')
    config = root / "pgbouncer.ini"
    config.write_text(
        _CONFIG.format(
            host=target.hostname or "127.0.0.1",
            port=target.port or 5432,
            listen=listen,
            root=root,
            pool=pool,
        )
    )
    command = [pgbouncer_binary(), str(config)]
    if os.geteuid() == 0:  # pgbouncer refuses to run as root
        os.chmod(root, 0o777)
        for path in root.iterdir():
            os.chmod(path, 0o666)
        command[1:1] = ["-u", "postgres"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_for_port(listen, proc)
        yield postgres_url.replace(
            f"{target.hostname}:{target.port or 5432}", f"127.0.0.1:{listen}"
        )
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
        shutil.rmtree(root, ignore_errors=True)


def _wait_for_port(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            error = proc.stderr.read().decode() if proc.stderr else ""
            raise AssertionError(f"pgbouncer exited at start: {error[-500:]}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise AssertionError("pgbouncer did not start listening within 15 s")

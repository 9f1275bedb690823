"""The built wheel works on its own: installed into a clean venv, run outside the checkout.

``python -m build`` makes the sdist and, from it, the wheel (offline: ``--no-isolation``, with
the dev extra's build and hatchling). The wheel goes into a new venv with ``--no-deps``; the
dependencies come from this test's own venv, whose site-packages a ``.pth`` line appends to
the new venv's path (after its own, so the installed adk_runtime is the one imported, never
the checkout). Everything then runs in a directory outside the checkout, without PYTHONPATH.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import httpx

from tests.serving import ROOT, free_port, running_process

DEMO_DB = "sqlite+aiosqlite:///.adk_runtime/demo.db"


def _run(
    command: list[str], *, cwd: Path, env: dict[str, str] | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        command,
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, (command, result.stdout, result.stderr)
    return result


def _outside_env() -> dict[str, str]:
    """This process's environment without anything that would import the checkout."""
    dropped = {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV"}
    env = {
        k: v for k, v in os.environ.items() if k not in dropped and not k.startswith("ADK_RUNTIME_")
    }
    env["COLUMNS"] = "200"
    return env


def _build(dist: Path) -> tuple[Path, Path]:
    """Build the sdist and the wheel (from the sdist) into ``dist``."""
    _run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(ROOT)],
        cwd=dist.parent,
    )
    (sdist,) = dist.glob("adk_runtime-*.tar.gz")
    (wheel,) = dist.glob("adk_runtime-*-py3-none-any.whl")
    return sdist, wheel


def _venv_with(wheel: Path, venv: Path) -> Path:
    """A new venv with ``wheel`` installed alone; returns its ``bin`` directory."""
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=venv.parent)
    python = venv / "bin" / "python"
    site = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        cwd=venv.parent,
        env=_outside_env(),
    ).stdout.strip()
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (Path(site) / "_test_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    _run([*pip, "install", "--quiet", "--no-deps", "--no-index", str(wheel)], cwd=venv.parent)
    return venv / "bin"


def test_the_wheel_runs_the_demo_migrations_agents_and_server_outside_the_checkout(
    tmp_path: Path,
) -> None:
    dist = tmp_path / "dist"
    sdist, wheel = _build(dist)
    with tarfile.open(sdist) as archive:
        sdist_names = {name.partition("/")[2] for name in archive.getnames()}
    assert {"pyproject.toml", "migrations/env.py", "adk_runtime/cli/_main.py"} <= sdist_names
    with zipfile.ZipFile(wheel) as archive:
        wheel_names = archive.namelist()
    assert "adk_runtime/_migrations/env.py" in wheel_names
    assert any(n.startswith("adk_runtime/_migrations/versions/0001_") for n in wheel_names)
    assert all(n.startswith(("adk_runtime/", "adk_runtime-")) for n in wheel_names)

    venv = tmp_path / "venv"
    bin_dir = _venv_with(wheel, venv)
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = _outside_env()

    where = _run(
        [
            str(bin_dir / "python"),
            "-c",
            "import adk_runtime, adk_runtime.sql.migrate as m; "
            "print(adk_runtime.__file__); print(m.migrations_path())",
        ],
        cwd=work,
        env=env,
    ).stdout.split()
    assert all(Path(p).is_relative_to(venv) for p in where), where
    assert where[1].endswith("_migrations")

    # the demo: SQLite file created and migrated on first use, a scripted conversation
    demo = _run([str(bin_dir / "adk-runtime"), "demo"], cwd=work, env=env)
    assert "Saved notes.md (version 0)." in demo.stdout
    assert (work / ".adk_runtime" / "demo.db").is_file()

    # db upgrade / check on a new file, from the migrations inside the wheel
    fresh = "sqlite+aiosqlite:///fresh.db"
    _run([str(bin_dir / "adk-runtime"), "db", "upgrade", "--url", fresh], cwd=work, env=env)
    check = _run([str(bin_dir / "adk-runtime"), "db", "check", "--url", fresh], cwd=work, env=env)
    assert "up to date" in check.stdout + check.stderr

    # an agent folder made by create, run offline with a piped message
    _run([str(bin_dir / "adk-runtime"), "create", "my_agent"], cwd=work, env=env)
    ran = _run([str(bin_dir / "adk-runtime"), "run", "my_agent"], cwd=work, env=env, stdin="hi\n")
    assert "You said: 'hi'" in ran.stdout

    # serve the demo's database; its session is there
    port = free_port()
    command = [str(bin_dir / "adk-runtime"), "serve", "--agent", "adk_runtime.demo:root_agent"]
    command += ["--session-url", DEMO_DB, "--port", str(port)]
    with running_process(command, port, "/health", env=env, cwd=work) as base:
        session = httpx.get(f"{base}/apps/notes/users/demo/sessions/demo", timeout=10)
    assert session.status_code == 200, session.text
    assert session.json()["state"]["user:notes"] == ["the meeting is at 3pm"]

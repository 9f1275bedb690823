"""Fuzz the HTTP API from its own OpenAPI schema (schemathesis) against a real server.

`adk-runtime serve` runs on a SQLite file with a bearer token. schemathesis generates requests
for every operation of ``/openapi.json`` (bounded: a few examples each) and fails on any 5xx
or a response that does not match the schema's status codes; the coverage phase (every
boundary value of every parameter, about 5 minutes) runs in ``make test-reliability``. Then
every operation is called without the token: all of them answer 401 except ``/health``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.serving import ROOT, cli_env, running_server

pytestmark = pytest.mark.sqlite

TOKEN = "fuzz-token-456"


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("fuzz") / "sessions.db"
    with running_server(
        "--agent", "tests.server.agent:root_agent", "--session-url", f"sqlite+aiosqlite:///{db}",
        "--auth-token", TOKEN, "--log-level", "warning",
    ) as url:  # fmt: skip
        yield url


@pytest.mark.parametrize(
    "phases",
    [
        "examples,fuzzing,stateful",
        # every boundary value of every parameter: 5,400 requests, about 5 minutes alone
        pytest.param("coverage", marks=[pytest.mark.reliability, pytest.mark.timeout(1200)]),
    ],
)
def test_no_generated_request_gets_a_server_error(
    base_url: str, tmp_path: Path, phases: str
) -> None:
    result = subprocess.run(
        [
            sys.executable, "-m", "schemathesis.cli", "run", f"{base_url}/openapi.json",
            "--header", f"Authorization: Bearer {TOKEN}",
            "--checks", "not_a_server_error",
            "--max-examples", "10",
            "--seed", "1",
            "--no-color",
            "--request-timeout", "20",
            "--phases", phases,
        ],
        capture_output=True, text=True, timeout=600, cwd=tmp_path, env=cli_env(),
    )  # fmt: skip
    tail = result.stdout[-4000:] + result.stderr[-2000:]
    assert result.returncode == 0, tail
    assert re.search(r"\b\d+ passed\b|No issues found", result.stdout), tail


def test_no_operation_answers_without_the_token(base_url: str) -> None:
    schema = httpx.get(f"{base_url}/openapi.json", headers={"Authorization": f"Bearer {TOKEN}"})
    operations = [
        (method.upper(), re.sub(r"\{[^}]+\}", "x", path))
        for path, item in schema.json()["paths"].items()
        for method in item
    ]
    assert len(operations) > 10
    with httpx.Client(base_url=base_url, timeout=30) as client:
        for method, path in operations:
            response = client.request(method, path, json={})
            expected = 200 if path == "/health" else 401
            assert response.status_code == expected, (method, path, response.status_code)
    assert ROOT.is_dir()

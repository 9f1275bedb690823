"""docker-compose.yml: PostgreSQL 16 and Redis 7, healthy, local-only, persistent.

There is no Docker engine here, so the file's structure is checked instead of running it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

COMPOSE = Path(__file__).resolve().parents[2] / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    return data


def test_services_and_images(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == {"postgres", "redis"}
    assert services["postgres"]["image"].split(":")[1].startswith("16")
    assert services["redis"]["image"].split(":")[1].startswith("7")


@pytest.mark.parametrize(("service", "port"), [("postgres", 5432), ("redis", 6379)])
def test_ports_bound_to_localhost_only(compose: dict[str, Any], service: str, port: int) -> None:
    ports = compose["services"][service]["ports"]
    assert ports == [f"127.0.0.1:{port}:{port}"]


@pytest.mark.parametrize("service", ["postgres", "redis"])
def test_healthchecks(compose: dict[str, Any], service: str) -> None:
    check = compose["services"][service]["healthcheck"]
    assert check["test"][0] in {"CMD", "CMD-SHELL"}
    assert any(tool in " ".join(check["test"]) for tool in ("pg_isready", "redis-cli"))
    for key in ("interval", "timeout", "retries"):
        assert key in check


@pytest.mark.parametrize(
    ("service", "mount"), [("postgres", "/var/lib/postgresql/data"), ("redis", "/data")]
)
def test_named_volumes(compose: dict[str, Any], service: str, mount: str) -> None:
    (volume,) = compose["services"][service]["volumes"]
    name, path = volume.split(":")
    assert path == mount
    assert name in compose["volumes"]  # a named volume, not a host directory


def test_redis_is_append_only(compose: dict[str, Any]) -> None:
    command = compose["services"]["redis"]["command"]
    assert command[command.index("--appendonly") + 1] == "yes"

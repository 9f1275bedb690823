"""docker-compose.yml: PostgreSQL 16 and Redis 7, healthy, local-only, persistent; and the
two scale-out profiles (PgBouncer + replicas, a Redis Cluster + replicas), and the Cloud
Spanner emulator behind a profile of its own.

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
    # A plain `docker compose up` starts only the two stores; the rest is behind profiles.
    assert {name for name, spec in services.items() if "profiles" not in spec} == {
        "postgres",
        "redis",
    }
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


def _profile(compose: dict[str, Any], name: str) -> dict[str, Any]:
    return {k: v for k, v in compose["services"].items() if name in v.get("profiles", [])}


def test_the_postgres_profile_migrates_once_then_serves_through_pgbouncer(
    compose: dict[str, Any],
) -> None:
    services = _profile(compose, "scale-postgres")
    assert set(services) == {"migrate", "pgbouncer", "app-a", "app-b", "lb-postgres"}
    migrate = services["migrate"]["command"]
    assert migrate[:2] == ["db", "upgrade"]
    assert "@postgres:5432/" in migrate[-1]  # migrations on a direct connection
    assert services["pgbouncer"]["environment"]["POOL_MODE"] == "transaction"
    for replica in ("app-a", "app-b"):
        spec = services[replica]
        url = spec["command"][spec["command"].index("--session-url") + 1]
        assert "@pgbouncer:" in url
        assert url.endswith("?statement_cache_size=0")
        assert spec["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert "0.0.0.0" in spec["command"]


def test_the_redis_profile_runs_a_cluster_with_a_replica_per_primary(
    compose: dict[str, Any],
) -> None:
    services = _profile(compose, "scale-redis")
    nodes = [name for name in services if name.startswith("redis-node-")]
    assert len(nodes) == 6
    addresses = set()
    for node in nodes:
        command = services[node]["command"]
        assert command[command.index("--cluster-enabled") + 1] == "yes"
        assert command[command.index("--appendonly") + 1] == "yes"
        addresses.add(services[node]["networks"]["cluster"]["ipv4_address"])
    init = " ".join(services["redis-cluster-init"]["command"])
    assert "--cluster-replicas 1" in init
    assert all(f"{address}:6379" in init for address in addresses)
    for replica in ("app-c", "app-d"):
        command = services[replica]["command"]
        url = command[command.index("--session-url") + 1]
        assert url.startswith("redis+cluster://")
        assert url.split("//")[1].split(":")[0] in addresses


@pytest.mark.parametrize(("config", "replicas"), [("nginx.conf", "ab"), ("nginx-redis.conf", "cd")])
def test_the_load_balancers_stream_and_spread_over_both_replicas(
    config: str, replicas: str
) -> None:
    text = (COMPOSE.parent / "deploy" / config).read_text(encoding="utf-8")
    for letter in replicas:
        assert f"server app-{letter}:8000;" in text
    assert "proxy_buffering off;" in text  # server-sent events pass as they come


def test_the_spanner_profile_runs_the_emulator_on_localhost_only(compose: dict[str, Any]) -> None:
    services = _profile(compose, "spanner")
    assert set(services) == {"spanner"}  # `docker compose up -d` alone leaves it out
    emulator = services["spanner"]
    assert emulator["image"].startswith("gcr.io/cloud-spanner-emulator/emulator")
    assert emulator["ports"] == ["127.0.0.1:9010:9010", "127.0.0.1:9020:9020"]

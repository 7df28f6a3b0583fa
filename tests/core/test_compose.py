"""Schema-level check of docker-compose.yml (no Docker engine runs here, so the file is never
started in tests): services, official images, ports, named volumes, health checks, the
cluster profile, and that every MEMORY_* variable it sets is a real setting."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from memory_engine.config import Settings

COMPOSE = Path(__file__).resolve().parents[2] / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _env(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):  # "KEY=value" form
        env = dict(item.split("=", 1) for item in env)
    return {str(k): str(v) for k, v in env.items()}


def test_core_services_images_ports_and_health(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert {"postgres", "qdrant", "dashboard"} <= set(services)
    assert services["postgres"]["image"].startswith("pgvector/pgvector:pg16")
    assert re.fullmatch(r"qdrant/qdrant:v1\.\d+\.\d+", services["qdrant"]["image"])
    assert "6333:6333" in services["qdrant"]["ports"]
    assert "8501:8501" in services["dashboard"]["ports"]
    for name in ("postgres", "qdrant"):
        test = services[name]["healthcheck"]["test"]
        assert test[0] in ("CMD", "CMD-SHELL") and len(test) >= 2
    assert "/readyz" in " ".join(services["qdrant"]["healthcheck"]["test"])
    depends = services["dashboard"]["depends_on"]
    assert depends["postgres"]["condition"] == depends["qdrant"]["condition"] == "service_healthy"


def test_postgres_gets_the_tuned_shared_buffers(compose: dict[str, Any]) -> None:
    pg = compose["services"]["postgres"]
    assert pg["command"][:1] == ["postgres"] and "shared_buffers=1GB" in pg["command"]


def test_named_volumes_are_declared_and_mounted(compose: dict[str, Any]) -> None:
    declared = set(compose["volumes"])
    mounted = set()
    for service in compose["services"].values():
        for volume in service.get("volumes", []):
            source, target = volume.split(":", 1)
            assert not source.startswith((".", "/")), f"bind mount {volume}: use a named volume"
            mounted.add(source)
            assert target.startswith("/")
    assert mounted == declared
    assert compose["services"]["qdrant"]["volumes"] == ["qdrant_storage:/qdrant/storage"]


def test_every_memory_variable_is_a_setting(compose: dict[str, Any]) -> None:
    fields = {f"MEMORY_{name.upper()}" for name in Settings.env_names()}
    used = set()
    for service in compose["services"].values():
        for key in _env(service):
            if key.startswith("MEMORY_"):
                assert key in fields, f"{key} is not a setting"
                used.add(key)
    assert {"MEMORY_STORE", "MEMORY_DATABASE_URL", "MEMORY_QDRANT_URL"} <= used
    dash = _env(compose["services"]["dashboard"])
    assert dash["MEMORY_QDRANT_URL"] == "http://qdrant:6333"
    assert "@postgres:5432/" in dash["MEMORY_DATABASE_URL"]


def test_cluster_profile_three_nodes_sharded_and_replicated(compose: dict[str, Any]) -> None:
    services = compose["services"]
    nodes = [
        name
        for name, service in services.items()
        if "cluster" in service.get("profiles", [])
        and str(service.get("image", "")).startswith("qdrant/qdrant:")
    ]
    assert len(nodes) == 3
    commands = [" ".join(services[n]["command"]) for n in nodes]
    assert sum("--bootstrap" in c for c in commands) == 2  # two nodes join the first
    for n in nodes:
        assert _env(services[n])["QDRANT__CLUSTER__ENABLED"] == "true"
        assert services[n]["healthcheck"]["test"][0] == "CMD-SHELL"
    dash = services["dashboard-cluster"]
    assert dash["profiles"] == ["cluster"]
    env = _env(dash)
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        store=env["MEMORY_STORE"],
        qdrant_url=env["MEMORY_QDRANT_URL"],
        qdrant_shard_number=int(env["MEMORY_QDRANT_SHARD_NUMBER"]),
        qdrant_replication_factor=int(env["MEMORY_QDRANT_REPLICATION_FACTOR"]),
    )
    assert settings.storage.qdrant_replication_factor == 2 <= len(nodes)
    assert (
        settings.storage.qdrant_shard_number is not None
        and settings.storage.qdrant_shard_number >= len(nodes)
    )
    # services without a profile never depend on profile-only services
    for name, service in services.items():
        if not service.get("profiles"):
            for dep in service.get("depends_on", {}):
                assert not services[dep].get("profiles"), f"{name} depends on {dep}"


def test_cluster_layout_reaches_collection_creation() -> None:
    from memory_engine.stores.qdrant.io import cluster_layout

    s = Settings(  # type: ignore[call-arg]
        _env_file=None,
        store="qdrant",
        qdrant_url="http://qdrant-node1:6333",
        qdrant_shard_number=6,
        qdrant_replication_factor=2,
    )
    assert cluster_layout(s, local=False) == {"shard_number": 6, "replication_factor": 2}
    assert cluster_layout(s, local=True) == {}


def test_dashboard_requires_sign_in_with_accounts_from_a_compose_secret(
    compose: dict[str, Any],
) -> None:
    for name in ("dashboard", "dashboard-cluster"):
        dashboard = compose["services"][name]
        assert _env(dashboard)["MEMORY_DASHBOARD_AUTH"] == "password"
        (secret,) = dashboard["secrets"]
        assert secret["target"] == "/app/.streamlit/secrets.toml"
        assert compose["secrets"][secret["source"]]["file"] == "./.streamlit/secrets.toml"

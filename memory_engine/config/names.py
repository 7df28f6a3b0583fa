"""Flat setting names: ``MEMORY_SEARCH_K`` <-> ``Settings.retrieval.k``.

The environment, ``.env`` and ``Settings(...)`` keywords keep the flat names they always had;
``PLACES`` maps each to its domain and field (``ENV_RENAMES`` lists the names that are not the
field's own), ``route`` moves flat keys of a mapping into their domain.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from memory_engine.config.domains import (
    ContextSettings,
    DashboardSettings,
    EmbeddingSettings,
    LifecycleSettings,
    LimitsSettings,
    LLMSettings,
    McpSettings,
    SecuritySettings,
    StorageSettings,
    WriteSettings,
)
from memory_engine.config.retrieval import SearchOptions

__all__ = ["DOMAINS", "ENV_RENAMES", "PLACES", "TOP_LEVEL", "field_info", "is_advanced", "route"]

DOMAINS: dict[str, type[BaseModel]] = {
    "storage": StorageSettings,
    "embedding": EmbeddingSettings,
    "llm": LLMSettings,
    "write": WriteSettings,
    "retrieval": SearchOptions,
    "limits": LimitsSettings,
    "lifecycle": LifecycleSettings,
    "security": SecuritySettings,
    "mcp": McpSettings,
    "dashboard": DashboardSettings,
    "context": ContextSettings,
}

ENV_RENAMES: dict[str, str] = {
    "storage.backend": "store",
    "embedding.provider": "embedder",
    "embedding.base_url": "embedding_base_url",
    "embedding.api_key": "embedding_api_key",
    "embedding.model": "embedding_model",
    "embedding.dim": "embedding_dim",
    "embedding.batch_size": "embedding_batch_size",
    "embedding.multilingual": "embedder_multilingual",
    "llm.provider": "llm_provider",
    "llm.base_url": "llm_base_url",
    "llm.api_key": "llm_api_key",
    "llm.model": "llm_model",
    "llm.timeout": "llm_timeout",
    "llm.max_attempts": "llm_max_attempts",
    "llm.response_format": "llm_response_format",
    "llm.max_concurrency": "llm_max_concurrency",
    "llm.max_output_tokens": "llm_max_output_tokens",
    "llm.price_input_per_mtok": "llm_price_input_per_mtok",
    "llm.price_output_per_mtok": "llm_price_output_per_mtok",
    "write.mode": "write_mode",
    "write.queue_path": "write_queue_path",
    "write.rate_per_session": "write_rate_per_session",
    "retrieval.k": "search_k",
    "retrieval.retention_weight": "retention_search_weight",
    "mcp.tenant": "mcp_tenant",
    "mcp.user_id": "mcp_user_id",
    "mcp.agent_id": "mcp_agent_id",
    "mcp.tokens_file": "mcp_tokens_file",
    "mcp.tokens": "mcp_tokens",
    "mcp.host": "mcp_host",
    "mcp.port": "mcp_port",
    "mcp.allowed_hosts": "mcp_allowed_hosts",
    "mcp.allowed_origins": "mcp_allowed_origins",
    "mcp.max_sessions": "mcp_max_sessions",
    "mcp.sessions_per_token": "mcp_sessions_per_token",
    "mcp.session_idle_s": "mcp_session_idle_s",
    "mcp.write_rate_per_token": "mcp_write_rate_per_token",
    "mcp.read_rate_per_token": "mcp_read_rate_per_token",
    "dashboard.auth": "dashboard_auth",
    "context.window": "context_window",
    "context.reserve_tokens": "context_reserve_tokens",
    "context.system_prompt": "context_system_prompt",
    "context.recent_rounds": "context_recent_rounds",
    "context.summarize_ratio": "context_summarize_ratio",
    "context.summary_max_tokens": "context_summary_max_tokens",
}
"""Nested place -> flat name, where the flat name (``MEMORY_<NAME>``) is not the field's."""

TOP_LEVEL = ("log_level", "gc_freeze")


def _env_places() -> dict[str, tuple[str | None, str]]:
    """Flat name -> (domain, field); domain None for a top-level field."""
    places: dict[str, tuple[str | None, str]] = {name: (None, name) for name in TOP_LEVEL}
    for domain, model in DOMAINS.items():
        fields = SearchOptions.env_fields() if model is SearchOptions else model.model_fields
        for field in fields:
            flat = ENV_RENAMES.get(f"{domain}.{field}", field)
            if flat in places:
                raise RuntimeError(f"flat setting name {flat!r} is used twice")
            places[flat] = (domain, field)
    return places


PLACES = _env_places()


def field_info(flat: str) -> FieldInfo | None:
    """The field behind a flat name; None for a top-level field of ``Settings``.

    Raises:
        KeyError: no setting has that flat name.
    """
    domain, field = PLACES[flat]
    return None if domain is None else DOMAINS[domain].model_fields[field]


def is_advanced(flat: str) -> bool:
    """Whether the setting named ``flat`` (e.g. ``"rrf_k"``) is an advanced tuning knob.

    Raises:
        KeyError: no setting has that flat name.
    """
    info = field_info(flat)
    extra = None if info is None else info.json_schema_extra
    return isinstance(extra, dict) and bool(extra.get("advanced"))


def route(data: Mapping[str, Any]) -> dict[str, Any]:
    """Move flat keys (``search_k``) into their domain (``{"retrieval": {"k": ...}}``).

    Nested keys pass through; a flat key wins over the same field in a nested value given
    alongside it. Unknown keys pass through (``Settings`` ignores them, as it always did).
    """
    out: dict[str, Any] = {}
    nested: dict[str, dict[str, Any]] = {}
    for key, value in data.items():
        place = PLACES.get(key)
        if place is None or place[0] is None:
            out[key] = value
        else:
            nested.setdefault(place[0], {})[place[1]] = value
    for domain, values in nested.items():
        base = out.get(domain)
        if isinstance(base, BaseModel):
            out[domain] = {**dict(base), **values}
        elif isinstance(base, Mapping):
            out[domain] = {**base, **values}
        elif base is None:
            out[domain] = values
    return out

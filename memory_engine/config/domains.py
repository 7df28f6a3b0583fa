"""The domain sub-models of ``Settings``, one frozen model per domain (``retrieval`` is
``SearchOptions``, in ``config/retrieval.py``). Fields marked ``ADVANCED`` are tuning knobs no
user should need to set. Flat ``MEMORY_*`` names: ``memory_engine.config.names``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

from memory_engine.config.retrieval import ADVANCED
from memory_engine.errors import ConfigError

__all__ = [
    "ContextSettings",
    "DashboardSettings",
    "EmbeddingSettings",
    "LLMSettings",
    "LifecycleSettings",
    "LimitsSettings",
    "McpSettings",
    "SecuritySettings",
    "StorageSettings",
    "WriteSettings",
]

_DOMAIN = ConfigDict(frozen=True, extra="forbid")


class StorageSettings(BaseModel):
    """Where memories, events and traces are kept: PostgreSQL (embedded or a server) or Qdrant."""

    model_config = _DOMAIN

    backend: Literal["postgres", "qdrant"] = Field(
        "postgres",
        description="Store backend: postgres (default) or qdrant (server URL or local folder).",
    )
    data_dir: Path = Field(
        Path(".memory"),
        description="Data folder: the embedded PostgreSQL (pgserver) in its postgres/ "
        "subfolder, the write journal, golden sets.",
    )
    database_url: SecretStr | None = Field(
        None,
        description="External PostgreSQL URL with pgvector; unset = embedded pgserver in data_dir.",
    )
    database_app_url: SecretStr | None = Field(
        None,
        description="PostgreSQL URL the engine's queries log in with, as the application role "
        "(not a superuser); unset = the owner URL with its user replaced by db_app_role.",
    )
    db_app_role: str = Field(
        "memory_app",
        pattern=r"^[a-z_][a-z0-9_]{0,62}$",
        description="LOGIN role (not a superuser, member of none) the engine's queries run as, "
        "so row-level security applies.",
    )
    db_pool_max: int = Field(5, ge=1, le=100, description="Max connections in the pool.")
    trace_retention: int = Field(
        1000,
        ge=0,
        description="Search traces kept per client of a tenant (per user and agent id, oldest "
        "removed first), so one noisy client cannot push out the others' traces; 0 = none.",
    )
    trace_retention_days: float = Field(
        30.0,
        ge=0,
        description="Traces older than this many days before the newest one are removed "
        "(0 = no age limit).",
    )
    trace_retention_tenant: int = Field(
        20_000,
        ge=1,
        description="Search traces kept per tenant at most, all clients together (oldest first).",
    )
    qdrant_url: str | None = Field(
        None, description="Qdrant server or cluster URL (store=qdrant); unset = local mode."
    )
    qdrant_api_key: SecretStr | None = Field(None, description="API key of the Qdrant server.")
    qdrant_path: str | None = Field(
        None,
        description="Qdrant local-mode folder (store=qdrant, no URL); ':memory:' = in memory.",
    )
    qdrant_collection_prefix: str = Field(
        "memory",
        pattern=r"^[A-Za-z0-9_-]{1,48}$",
        description="Prefix of the Qdrant collection names (<prefix>_memories, _events, ...).",
    )
    qdrant_shard_number: int | None = Field(
        None,
        ge=1,
        le=1024,
        description="Shards of each collection the store creates on a Qdrant server or cluster "
        "(unset = Qdrant's default; ignored in local mode).",
    )
    qdrant_replication_factor: int | None = Field(
        None,
        ge=1,
        le=16,
        description="Copies of each shard on a Qdrant cluster (unset = 1; ignored in local mode).",
    )
    qdrant_write_consistency_factor: int | None = Field(
        None,
        ge=1,
        le=16,
        description="Replicas that must apply a write before Qdrant acknowledges it "
        "(unset = 1; ignored in local mode).",
    )
    # advanced
    exact_search_max_rows: int = Field(
        5_000,
        ge=0,
        description="Tenant rows up to which dense search is exact (no HNSW); above, HNSW with "
        "iterative scans.",
        json_schema_extra=ADVANCED,
    )
    hnsw_ef_search_max: int = Field(
        1000,
        ge=10,
        le=1000,
        description="Upper bound of hnsw.ef_search (the dense leg uses max(k, 40) up to it).",
        json_schema_extra=ADVANCED,
    )
    hnsw_max_scan_tuples: int = Field(
        20_000,
        ge=1,
        le=2_000_000,
        description="hnsw.max_scan_tuples: index tuples an iterative HNSW scan visits before "
        "it stops; fewer than min(k, matching) rows found then falls back to an exact scan.",
        json_schema_extra=ADVANCED,
    )
    index_build_memory_mb: int = Field(
        1024,
        ge=64,
        le=65536,
        description="maintenance_work_mem (MiB) of the HNSW index rebuild after a large bulk "
        "import (PostgreSQL); an index graph larger than this builds several times slower "
        "(about 2.2 KB a row for a 384-d leg, 2.7 KB for a 512-d one; each index is built on "
        "its own). Parallel builds "
        "take it as shared memory at once: keep it within the server's RAM.",
        json_schema_extra=ADVANCED,
    )
    embedded_shared_buffers_mb: int = Field(
        1024,
        ge=0,
        le=65536,
        description="shared_buffers (MiB) of the embedded PostgreSQL; 0 = PostgreSQL's 128 MiB.",
        json_schema_extra=ADVANCED,
    )
    qdrant_local_warn_points: int = Field(
        20_000,
        ge=0,
        description="Log a warning when a local-mode collection holds more points than this.",
        json_schema_extra=ADVANCED,
    )

    @model_validator(mode="after")
    def _check_location(self) -> StorageSettings:
        if self.qdrant_url and self.qdrant_path:
            raise ConfigError("set MEMORY_QDRANT_URL or MEMORY_QDRANT_PATH, not both")
        if self.backend == "qdrant" and not (self.qdrant_url or self.qdrant_path):
            raise ConfigError(
                "store=qdrant needs MEMORY_QDRANT_URL (a server) or MEMORY_QDRANT_PATH "
                "(a local-mode folder, or :memory:)"
            )
        return self


class EmbeddingSettings(BaseModel):
    """The embedder: offline models or an OpenAI-compatible endpoint."""

    model_config = _DOMAIN

    provider: Literal["minilm", "use_m3", "openai_compat"] = Field(
        "minilm",
        description="Embedder: minilm (offline, English), use_m3 (offline, multilingual) "
        "or openai_compat.",
    )
    base_url: str | None = Field(
        None, description="Base URL of an OpenAI-compatible /v1/embeddings endpoint."
    )
    api_key: SecretStr | None = Field(None, description="API key of that endpoint.")
    model: str | None = Field(
        None, description="Embedding model name (required for openai_compat)."
    )
    dim: int | None = Field(
        None, ge=1, le=16000, description="Embedding dimension (required for openai_compat)."
    )
    batch_size: int = Field(
        32, ge=1, le=2048, description="Texts per embed call.", json_schema_extra=ADVANCED
    )
    multilingual: Literal["use_m3", "none"] = Field(
        "use_m3",
        description="Second dense leg beside the embedder's: use_m3 (offline, multilingual, "
        "weighted up for Chinese/Japanese/Korean queries) or none (one dense leg).",
    )

    @model_validator(mode="after")
    def _check_endpoint(self) -> EmbeddingSettings:
        if self.provider == "openai_compat" and not (self.base_url and self.model and self.dim):
            raise ConfigError(
                "embedder=openai_compat needs MEMORY_EMBEDDING_BASE_URL, "
                "MEMORY_EMBEDDING_MODEL and MEMORY_EMBEDDING_DIM"
            )
        return self


class LLMSettings(BaseModel):
    """The write-decision LLM (extraction, conflict judge) and its HTTP client."""

    model_config = _DOMAIN

    provider: Literal["rules", "openai_compat"] = Field(
        "rules", description="Write-decision LLM: rules (offline, zh+en) or openai_compat."
    )
    base_url: str | None = Field(
        None, description="Base URL of an OpenAI-compatible /v1/chat/completions endpoint."
    )
    api_key: SecretStr | None = Field(None, description="API key of that endpoint.")
    model: str | None = Field(None, description="Chat model name (required for openai_compat).")
    timeout: float = Field(60.0, gt=0, description="Seconds per LLM HTTP request.")
    price_input_per_mtok: float | None = Field(
        None,
        ge=0,
        description="Price of one million input (prompt) tokens; with it each write's cost "
        "is recorded and shown in the Write Inspector.",
    )
    price_output_per_mtok: float | None = Field(
        None, ge=0, description="Price of one million output (completion) tokens."
    )
    # advanced
    max_attempts: int = Field(
        4,
        ge=1,
        le=10,
        description="Tries per LLM call (429/5xx/timeouts), first one included.",
        json_schema_extra=ADVANCED,
    )
    response_format: Literal["auto", "json_schema", "json_object", "text"] = Field(
        "auto",
        description="auto = JSON schema, then JSON mode, then text with a tolerant parser.",
        json_schema_extra=ADVANCED,
    )
    max_concurrency: int = Field(
        4,
        ge=1,
        le=256,
        description="Global limit of concurrent LLM and embedding calls.",
        json_schema_extra=ADVANCED,
    )
    max_output_tokens: int | None = Field(
        None,
        ge=1,
        description="max_tokens of each LLM request (unset = the endpoint's default); a "
        "cut-off answer is asked again once with at least 4096.",
        json_schema_extra=ADVANCED,
    )

    @model_validator(mode="after")
    def _check_endpoint(self) -> LLMSettings:
        if self.provider == "openai_compat" and not (self.base_url and self.model):
            raise ConfigError(
                "llm_provider=openai_compat needs MEMORY_LLM_BASE_URL and MEMORY_LLM_MODEL"
            )
        return self


class WriteSettings(BaseModel):
    """The write pipeline: input bounds, extraction, conflicts, the journal, rate limits."""

    model_config = _DOMAIN

    mode: Literal["raw", "extract"] = Field(
        "raw", description="Default write mode: raw (one memory per chunk) or extract (facts)."
    )
    max_input_chars: int = Field(
        200_000, ge=1, description="Largest accepted input text, in characters."
    )
    tool_output_max_chars: int = Field(
        2000, ge=100, description="Tool outputs longer than this are reduced, never stored whole."
    )
    user_timezone: str = Field(
        "UTC", description="IANA time zone that resolves relative dates (yesterday, 下周五)."
    )
    conflict_similarity: float = Field(
        0.85, ge=-1.0, le=1.0, description="Cosine from which a stored memory goes to the judge."
    )
    queue_path: Path | None = Field(
        None, description="SQLite write journal (queue + write trails); unset = data_dir/."
    )
    rate_per_session: float = Field(
        30.0, gt=0, description="Token-bucket rate limit of writes per session, per second."
    )
    # advanced
    chunk_min_chars: int = Field(
        300, ge=50, description="Chunks aim to be at least this long.", json_schema_extra=ADVANCED
    )
    chunk_max_chars: int = Field(
        500, ge=100, description="Chunks are never longer than this.", json_schema_extra=ADVANCED
    )
    judge_max_candidates: int = Field(
        5,
        ge=1,
        le=20,
        description="Most stored memories shown to the judge per new fact.",
        json_schema_extra=ADVANCED,
    )

    @model_validator(mode="after")
    def _check(self) -> WriteSettings:
        try:
            from zoneinfo import ZoneInfo

            ZoneInfo(self.user_timezone)
        except (KeyError, ValueError) as exc:
            raise ConfigError(f"unknown time zone {self.user_timezone!r}") from exc
        if self.chunk_min_chars >= self.chunk_max_chars:
            raise ConfigError("chunk_min_chars must be smaller than chunk_max_chars")
        return self


class LimitsSettings(BaseModel):
    """Hard maxima a caller's request is checked against."""

    model_config = _DOMAIN

    search_max_k: int = Field(200, ge=1, le=1000, description="Hard maximum of k.")
    list_max_limit: int = Field(500, ge=1, le=10_000, description="Hard maximum of a page size.")


class LifecycleSettings(BaseModel):
    """Retention scoring, maintenance (archive, restore, purge) and access tracking."""

    model_config = _DOMAIN

    retention_preset: Literal["decay", "weighted"] = Field(
        "decay",
        description="Retention formula: decay (importance x half-life decay + access) or weighted.",
    )
    retention_half_life_days: float | None = Field(
        None, gt=0.0, le=36_500.0, description="Half-life in days; unset = preset (30 or 7)."
    )
    retention_archive_floor: float | None = Field(
        None, ge=0.0, description="Archive below this retention; unset = preset (0.05 or 0.35)."
    )
    retention_purge_after_days: float = Field(
        30.0, ge=0.0, description="Purge archived memories untouched for this many days."
    )
    retention_restore_min_cosine: float | None = Field(
        None,
        ge=-1.0,
        le=1.0,
        description="Restore archived memories a search matches with cosine >= this; unset = off.",
    )
    record_access: bool = Field(
        True, description="Count search hits (access_count, last_accessed_at) after each search."
    )
    quarantine_purge_days: float | None = Field(
        None,
        ge=0.0,
        description="Purge quarantined memories awaiting review untouched this many days; "
        "unset = never (they wait for a reviewer).",
    )
    # advanced
    retention_access_weight: float = Field(
        0.1,
        ge=0.0,
        le=10.0,
        description="w_access of the decay preset (x ln(1 + accesses)).",
        json_schema_extra=ADVANCED,
    )
    retention_archive_bottom_fraction: float = Field(
        0.2,
        ge=0.0,
        le=1.0,
        description="Only the lowest fraction of the ranking is archived.",
        json_schema_extra=ADVANCED,
    )


class SecuritySettings(BaseModel):
    """Write security: the PII policy and prompt-injection screening."""

    model_config = _DOMAIN

    pii_policy: Literal["off", "redact", "block"] = Field(
        "redact", description="What a write does with the PII kinds in pii_kinds."
    )
    pii_kinds: tuple[
        Literal["email", "cn_mobile", "phone", "cn_id", "bank_card", "secret"], ...
    ] = Field(
        ("secret", "cn_id", "bank_card"),
        description="PII kinds the policy applies to (JSON list in the environment).",
    )
    pii_tenant_policies: dict[str, Literal["off", "redact", "block"]] = Field(
        default_factory=dict,
        description='Per-tenant PII policy overrides, e.g. {"acme": "block"} (JSON).',
    )
    injection_screening: bool = Field(
        True, description="Screen writes for prompt injection (flag or quarantine by source)."
    )
    injection_manual_policy: Literal["quarantine", "flag"] = Field(
        "quarantine",
        description="What a manual write (API default, MCP memory_write, dashboard) that "
        "screens as injection gets: quarantine (stored archived, out of search) or flag.",
    )
    injection_tenant_policies: dict[str, Literal["quarantine", "flag"]] = Field(
        default_factory=dict,
        description='Per-tenant overrides of injection_manual_policy, e.g. {"lab": "flag"} (JSON).',
    )


class McpSettings(BaseModel):
    """The MCP server: the tenant it acts for, http tokens and address."""

    model_config = _DOMAIN

    tenant: str | None = Field(
        None, description="Tenant every MCP call acts for (stdio; http without a token map)."
    )
    user_id: str | None = Field(None, description="User id narrowing the MCP tenant scope.")
    agent_id: str | None = Field(None, description="Agent id narrowing the MCP tenant scope.")
    tokens_file: Path | None = Field(
        None, description="JSON file mapping MCP http bearer tokens to {tenant, user_id, agent_id}."
    )
    tokens: SecretStr | None = Field(
        None, description="The same token map as inline JSON (e.g. from a secret store)."
    )
    host: str = Field("127.0.0.1", description="Host the MCP http server binds to.")
    port: int = Field(8765, ge=0, le=65535, description="Port of the MCP http server.")
    allowed_hosts: tuple[str, ...] = Field(
        (),
        description="Host headers the MCP http server accepts besides its own address and "
        'localhost (JSON list, e.g. ["mcp.example.com", "mcp:*"]; ":*" = any port).',
    )
    allowed_origins: tuple[str, ...] = Field(
        (),
        description="Origin headers the MCP http server accepts besides http://localhost and "
        'its own address (JSON list, e.g. ["https://app.example.com"]).',
    )
    max_sessions: int = Field(
        10_000, ge=1, description="Open MCP http sessions at most, all tokens together."
    )
    sessions_per_token: int = Field(
        100, ge=1, description="Open MCP http sessions at most per bearer token (below max)."
    )
    session_idle_s: float = Field(
        600.0, gt=0, description="An MCP http session without a request for this long is closed."
    )
    write_rate_per_token: float = Field(
        10.0,
        gt=0,
        description="memory_write/update/delete calls per second per bearer token (burst = "
        "2 s of calls); over it, HTTP 429 with Retry-After.",
    )
    read_rate_per_token: float = Field(
        20.0,
        gt=0,
        description="memory_search/history calls per second per bearer token (burst = 2 s of "
        "calls); over it, HTTP 429 with Retry-After.",
    )


class DashboardSettings(BaseModel):
    """The Streamlit dashboard."""

    model_config = _DOMAIN

    auth: Literal["password", "oidc", "none"] | None = Field(
        None,
        description="Dashboard sign-in mode; unset = memory_auth.mode of secrets.toml, else "
        "password. none = local single-user mode (banner; everyone acts as admin).",
    )


class ContextSettings(BaseModel):
    """Working memory (session buffers) and context assembly (prompt within a token window)."""

    model_config = _DOMAIN

    redis_url: SecretStr | None = Field(
        None, description="Redis URL of the working memory; unset = in-process working memory."
    )
    working_memory_ttl_seconds: int = Field(
        7 * 24 * 3600,
        ge=0,
        description="Idle working-memory sessions expire after this; 0 = never.",
    )
    window: int = Field(
        8192, ge=256, description="Context window of the model, in tokens (tiktoken cl100k)."
    )
    reserve_tokens: int = Field(
        1024, ge=0, description="Tokens kept free for the model's answer; budget = window - this."
    )
    system_prompt: str = Field(
        "You are a helpful assistant.", description="System prompt of context assembly."
    )
    observe_max_chars: int = Field(
        8000, ge=1, description="Largest tool result or conclusion observe() stores, in characters."
    )
    # advanced
    recent_rounds: int = Field(
        5,
        ge=1,
        le=100,
        description="Rounds (user turn + replies) kept verbatim once summarising.",
        json_schema_extra=ADVANCED,
    )
    summarize_ratio: float = Field(
        0.6,
        gt=0.0,
        le=1.0,
        description="Summarise older rounds once the history passes this share of the window.",
        json_schema_extra=ADVANCED,
    )
    summary_max_tokens: int = Field(
        800,
        ge=16,
        description="Longest summary of older rounds, in tokens.",
        json_schema_extra=ADVANCED,
    )

    @model_validator(mode="after")
    def _check_budget(self) -> ContextSettings:
        if self.reserve_tokens >= self.window:
            raise ConfigError("context_reserve_tokens must be smaller than context_window")
        return self

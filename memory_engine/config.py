"""Immutable settings (pydantic-settings, env prefix ``MEMORY_``, ``.env`` supported).

Every field here is documented in the README's settings table; ``tests/core/test_settings_doc.py`` fails
when one is not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from memory_engine.errors import ConfigError


class Settings(BaseSettings):
    """Engine settings. Frozen: build a new object (``model_copy(update=...)``) to change one."""

    model_config = SettingsConfigDict(
        env_prefix="MEMORY_", env_file=".env", extra="ignore", frozen=True
    )

    # --- store ---
    store: Literal["postgres", "qdrant"] = Field(
        "postgres",
        description="Store backend: postgres (default) or qdrant (server URL or local folder).",
    )
    data_dir: Path = Field(
        Path(".memory"), description="Folder of the embedded PostgreSQL (pgserver) data."
    )
    database_url: SecretStr | None = Field(
        None,
        description="External PostgreSQL URL with pgvector; unset = embedded pgserver in data_dir.",
    )
    db_app_role: str = Field(
        "memory_app",
        pattern=r"^[a-z_][a-z0-9_]{0,62}$",
        description="Non-superuser role the engine switches to so row-level security applies.",
    )
    db_pool_max: int = Field(5, ge=1, le=100, description="Max connections in the pool.")
    exact_search_max_rows: int = Field(
        5_000,
        ge=0,
        description="Tenant rows up to which dense search is exact (no HNSW); above, adaptive HNSW.",
    )
    hnsw_ef_search_max: int = Field(
        1000, ge=10, le=1000, description="Upper bound of the adaptive hnsw.ef_search."
    )
    embedded_shared_buffers_mb: int = Field(
        1024,
        ge=0,
        le=65536,
        description="shared_buffers (MiB) of the embedded PostgreSQL; 0 = PostgreSQL's 128 MiB.",
    )
    trace_retention: int = Field(
        1000, ge=0, description="Search traces kept per tenant (oldest removed first)."
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
    qdrant_local_warn_points: int = Field(
        20_000,
        ge=0,
        description="Log a warning when a local-mode collection holds more points than this.",
    )

    # --- embedding ---
    embedder: Literal["minilm", "use_m3", "openai_compat"] = Field(
        "minilm",
        description="Embedder: minilm (offline, English), use_m3 (offline, multilingual) "
        "or openai_compat.",
    )
    embedding_base_url: str | None = Field(
        None, description="Base URL of an OpenAI-compatible /v1/embeddings endpoint."
    )
    embedding_api_key: SecretStr | None = Field(None, description="API key of that endpoint.")
    embedding_model: str | None = Field(
        None, description="Embedding model name (required for openai_compat)."
    )
    embedding_dim: int | None = Field(
        None, ge=1, le=16000, description="Embedding dimension (required for openai_compat)."
    )
    embedding_batch_size: int = Field(32, ge=1, le=2048, description="Texts per embed call.")

    # --- write ---
    max_input_chars: int = Field(
        200_000, ge=1, description="Largest accepted input text, in characters."
    )
    chunk_min_chars: int = Field(300, ge=50, description="Chunks aim to be at least this long.")
    chunk_max_chars: int = Field(500, ge=100, description="Chunks are never longer than this.")

    # --- search ---
    search_k: int = Field(10, ge=1, le=200, description="Default number of memories returned.")
    search_max_k: int = Field(200, ge=1, le=1000, description="Hard maximum of k.")
    candidates_per_leg: int = Field(
        50, ge=1, le=1000, description="Candidates each retrieval leg recalls before fusion."
    )
    rrf_k: int = Field(60, ge=1, description="RRF constant k in 1/(k + rank) (Cormack 2009).")
    min_score: float = Field(
        0.0, ge=0.0, description="Drop fused candidates whose rrf score is below this."
    )
    min_cosine: float = Field(
        -1.0, ge=-1.0, le=1.0, description="Drop dense-only candidates below this cosine."
    )
    token_budget: int = Field(
        2000, ge=0, description="Max tokens (tiktoken cl100k) of the memory block; 0 = no limit."
    )

    # --- listings ---
    list_max_limit: int = Field(500, ge=1, le=10_000, description="Hard maximum of a page size.")

    # --- logging ---
    log_level: str = Field("WARNING", description="Python logging level (logs go to stderr).")

    # --- qdrant cluster layout and dashboard store comparison (issue 3) ---
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

    # --- lifecycle: retention, maintenance, access tracking (issue 6) ---
    retention_preset: Literal["decay", "weighted"] = Field(
        "decay",
        description="Retention formula: decay (importance x half-life decay + access) or weighted.",
    )
    retention_half_life_days: float | None = Field(
        None, gt=0.0, le=36_500.0, description="Half-life in days; unset = preset (30 or 7)."
    )
    retention_access_weight: float = Field(
        0.1, ge=0.0, le=10.0, description="w_access of the decay preset (x ln(1 + accesses))."
    )
    retention_archive_floor: float | None = Field(
        None, ge=0.0, description="Archive below this retention; unset = preset (0.05 or 0.35)."
    )
    retention_archive_bottom_fraction: float = Field(
        0.2, ge=0.0, le=1.0, description="Only the lowest fraction of the ranking is archived."
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
    gc_freeze: bool | None = Field(
        None,
        description="After the first search, move the objects alive then out of the cyclic "
        "garbage collector's scans (gc.freeze): its full collections paused searches 70-160 ms "
        "every second or two. Unset = on in the MCP server and the dashboard (long-running "
        "processes of ours), off in the library and the CLI (it would keep the host's objects).",
    )

    # --- dashboard sign-in (issue 7) ---
    dashboard_auth: Literal["password", "oidc", "none"] | None = Field(
        None,
        description="Dashboard sign-in mode; unset = memory_auth.mode of secrets.toml, else "
        "password. none = local single-user mode (banner; everyone acts as admin).",
    )

    # --- MCP server, working memory and context assembly (issue 8) ---
    mcp_tenant: str | None = Field(
        None,
        description="Tenant every MCP call acts for (stdio; http without a token map).",
    )
    mcp_user_id: str | None = Field(None, description="User id narrowing the MCP tenant scope.")
    mcp_agent_id: str | None = Field(None, description="Agent id narrowing the MCP tenant scope.")
    mcp_tokens_file: Path | None = Field(
        None,
        description="JSON file mapping MCP http bearer tokens to {tenant, user_id, agent_id}.",
    )
    mcp_tokens: SecretStr | None = Field(
        None, description="The same token map as inline JSON (e.g. from a secret store)."
    )
    mcp_host: str = Field("127.0.0.1", description="Host the MCP http server binds to.")
    mcp_port: int = Field(8765, ge=0, le=65535, description="Port of the MCP http server.")
    redis_url: SecretStr | None = Field(
        None, description="Redis URL of the working memory; unset = in-process working memory."
    )
    working_memory_ttl_seconds: int = Field(
        7 * 24 * 3600,
        ge=0,
        description="Idle working-memory sessions expire after this; 0 = never.",
    )
    context_window: int = Field(
        8192, ge=256, description="Context window of the model, in tokens (tiktoken cl100k)."
    )
    context_reserve_tokens: int = Field(
        1024, ge=0, description="Tokens kept free for the model's answer; budget = window - this."
    )
    context_recent_rounds: int = Field(
        5, ge=1, le=100, description="Rounds (user turn + replies) kept verbatim once summarising."
    )
    context_summarize_ratio: float = Field(
        0.6,
        gt=0.0,
        le=1.0,
        description="Summarise older rounds once the history passes this share of the window.",
    )
    context_summary_max_tokens: int = Field(
        800, ge=16, description="Longest summary of older rounds, in tokens."
    )
    context_system_prompt: str = Field(
        "You are a helpful assistant.", description="System prompt of context assembly."
    )
    observe_max_chars: int = Field(
        8000, ge=1, description="Largest tool result or conclusion observe() stores, in characters."
    )
    # --- write pipeline: LLM, extraction, conflicts, queue (issue 4) ---
    llm_provider: Literal["rules", "openai_compat"] = Field(
        "rules", description="Write-decision LLM: rules (offline, zh+en) or openai_compat."
    )
    llm_base_url: str | None = Field(
        None, description="Base URL of an OpenAI-compatible /v1/chat/completions endpoint."
    )
    llm_api_key: SecretStr | None = Field(None, description="API key of that endpoint.")
    llm_model: str | None = Field(None, description="Chat model name (required for openai_compat).")
    llm_timeout: float = Field(60.0, gt=0, description="Seconds per LLM HTTP request.")
    llm_max_attempts: int = Field(
        4, ge=1, le=10, description="Tries per LLM call (429/5xx/timeouts), first one included."
    )
    llm_response_format: Literal["auto", "json_schema", "json_object", "text"] = Field(
        "auto",
        description="auto = JSON schema, then JSON mode, then text with a tolerant parser.",
    )
    llm_max_concurrency: int = Field(
        4, ge=1, le=256, description="Global limit of concurrent LLM and embedding calls."
    )
    write_mode: Literal["raw", "extract"] = Field(
        "raw", description="Default write mode: raw (one memory per chunk) or extract (facts)."
    )
    user_timezone: str = Field(
        "UTC", description="IANA time zone that resolves relative dates (yesterday, 下周五)."
    )
    conflict_similarity: float = Field(
        0.85, ge=-1.0, le=1.0, description="Cosine from which a stored memory goes to the judge."
    )
    judge_max_candidates: int = Field(
        5, ge=1, le=20, description="Most stored memories shown to the judge per new fact."
    )
    tool_output_max_chars: int = Field(
        2000, ge=100, description="Tool outputs longer than this are reduced, never stored whole."
    )
    write_queue_path: Path | None = Field(
        None, description="SQLite write journal (queue + write trails); unset = data_dir/."
    )
    write_rate_per_session: float = Field(
        30.0, gt=0, description="Token-bucket rate limit of writes per session, per second."
    )

    # --- write security: PII policy and injection screening (issue 7) ---
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

    @model_validator(mode="after")
    def _check_llm(self) -> Settings:
        if self.llm_provider == "openai_compat" and not (self.llm_base_url and self.llm_model):
            raise ConfigError(
                "llm_provider=openai_compat needs MEMORY_LLM_BASE_URL and MEMORY_LLM_MODEL"
            )
        try:
            from zoneinfo import ZoneInfo

            ZoneInfo(self.user_timezone)
        except (KeyError, ValueError) as exc:
            raise ConfigError(f"unknown time zone {self.user_timezone!r}") from exc
        return self

    # --- retrieval stages (issue 5; README "Retrieval") ---
    fusion: Literal["rrf", "zscore", "minmax"] = Field(
        "zscore", description="Fusion of the legs: rrf, zscore or minmax (normalised scores)."
    )
    dense_weight: float = Field(1.0, ge=0.0, description="Dense leg weight (zscore/minmax).")
    keyword_weight: float = Field(1.0, ge=0.0, description="Keyword leg weight (zscore/minmax).")
    keyword_terms_ref: int = Field(
        12,
        ge=0,
        le=1000,
        description="Long-query damping: keyword weight x sqrt(ref/terms) above ref terms; 0=off.",
    )
    session_weight: float = Field(
        0.6, ge=0.0, description="Share of a neighbouring turn's score a turn borrows; 0 = off."
    )
    session_window: int = Field(2, ge=1, le=5, description="Neighbouring turns on each side.")
    session_decay: float = Field(
        1.0, ge=0.0, le=1.0, description="Session smoothing factor per extra step of distance."
    )
    session_mode: Literal["lift", "sum"] = Field(
        "lift", description="Session smoothing: lift (toward a stronger neighbour) or sum."
    )
    calibrated_min_cosine: bool = Field(
        False, description="Raise min_cosine to the embedder's calibrated floor."
    )
    near_duplicate: float = Field(
        1.01,
        gt=0.0,
        description="Term-set Jaccard at which a result is a near duplicate; >1 = off.",
    )
    mmr_lambda: float = Field(1.0, ge=0.0, le=1.0, description="MMR trade-off; 1.0 = off.")
    rerank_pool: int = Field(
        20, ge=1, le=100, description="Candidates a configured reranker rescores (bounded)."
    )
    retention_search_weight: float = Field(
        0.0,
        ge=0.0,
        le=1.0,
        description="Share of the retention score in search ranking: 1 - w + w * retention; 0 = off.",
    )

    @model_validator(mode="after")
    def _check(self) -> Settings:
        if self.chunk_min_chars >= self.chunk_max_chars:
            raise ConfigError("chunk_min_chars must be smaller than chunk_max_chars")
        if self.embedder == "openai_compat" and not (
            self.embedding_base_url and self.embedding_model and self.embedding_dim
        ):
            raise ConfigError(
                "embedder=openai_compat needs MEMORY_EMBEDDING_BASE_URL, "
                "MEMORY_EMBEDDING_MODEL and MEMORY_EMBEDDING_DIM"
            )
        if self.qdrant_url and self.qdrant_path:
            raise ConfigError("set MEMORY_QDRANT_URL or MEMORY_QDRANT_PATH, not both")
        if self.store == "qdrant" and not (self.qdrant_url or self.qdrant_path):
            raise ConfigError(
                "store=qdrant needs MEMORY_QDRANT_URL (a server) or MEMORY_QDRANT_PATH "
                "(a local-mode folder, or :memory:)"
            )
        if self.search_k > self.search_max_k:
            raise ConfigError("search_k must not exceed search_max_k")
        if self.context_reserve_tokens >= self.context_window:
            raise ConfigError("context_reserve_tokens must be smaller than context_window")
        return self

    # --- quarantine review (review follow-ups; README "Retention") ---
    quarantine_purge_days: float | None = Field(
        None,
        ge=0.0,
        description="Purge quarantined memories awaiting review untouched this many days; "
        "unset = never (they wait for a reviewer).",
    )

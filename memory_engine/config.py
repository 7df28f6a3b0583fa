"""Immutable settings (pydantic-settings, env prefix ``MEMORY_``, ``.env`` supported).

Every field here is documented in the README's settings table; ``tests/test_config.py`` fails
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
        20_000,
        ge=0,
        description="Tenant rows up to which dense search is exact (no HNSW); above, adaptive HNSW.",
    )
    hnsw_ef_search_max: int = Field(
        1000, ge=10, le=1000, description="Upper bound of the adaptive hnsw.ef_search."
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
        return self

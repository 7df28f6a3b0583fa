"""Immutable settings (pydantic-settings, env prefix ``MEMORY_``, ``.env`` supported).

``Settings`` holds one frozen sub-model per domain (``storage``, ``embedding``, ``llm``,
``write``, ``retrieval``, ``limits``, ``lifecycle``, ``security``, ``mcp``, ``dashboard``,
``context``) plus two process-wide fields (``log_level``, ``gc_freeze``). ``retrieval`` *is*
``SearchOptions`` (``config/retrieval.py``): one default per retrieval knob.

The environment keeps its flat names: ``MEMORY_SEARCH_K`` sets ``settings.retrieval.k``,
``MEMORY_STORE`` sets ``settings.storage.backend``; ``Settings.env_names()`` is the whole map
(``config.names.ENV_RENAMES`` lists the names that differ from the field's). Flat constructor keywords
(``Settings(database_url=..., search_k=5)``) and flat keys of ``Settings.model_validate`` are
routed into the sub-models the same way. Fields marked advanced (``ADVANCED``) are tuning
knobs no user should need; the README marks them too.

Every flat name is documented in the README's settings table; ``tests/core/test_settings_doc.py``
fails when one is not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from pydantic import Field, create_model, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    DotEnvSettingsSource,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

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
from memory_engine.config.names import DOMAINS, PLACES, field_info, is_advanced, route
from memory_engine.config.retrieval import SearchOptions
from memory_engine.errors import ConfigError

__all__ = [
    "ContextSettings",
    "DashboardSettings",
    "EmbeddingSettings",
    "LifecycleSettings",
    "LimitsSettings",
    "LLMSettings",
    "McpSettings",
    "SearchOptions",
    "SecuritySettings",
    "Settings",
    "StorageSettings",
    "WriteSettings",
    "is_advanced",
]


class _FlatEnvBase(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MEMORY_", extra="ignore")


def _annotation(flat: str) -> Any:
    info = field_info(flat)
    return Any if info is None else info.annotation


# Every flat name as a field with the annotation of its nested field (no constraints, never
# instantiated): the environment sources read MEMORY_<NAME> through it, JSON lists included.
_FlatEnv: type[BaseSettings] = create_model(  # type: ignore[call-overload]
    "_FlatEnv", __base__=_FlatEnvBase, **{flat: (_annotation(flat), None) for flat in PLACES}
)


class _Routed(PydanticBaseSettingsSource):
    """A settings source whose flat names are routed into the domains (see ``_route``)."""

    def __init__(self, settings_cls: type[BaseSettings], inner: PydanticBaseSettingsSource):
        super().__init__(settings_cls)
        self._inner = inner

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # unused: __call__ delegates

    def __call__(self) -> dict[str, Any]:
        data = self._inner()
        if isinstance(self._inner, EnvSettingsSource):  # dotenv too: keep our names only
            data = {k: v for k, v in data.items() if k in PLACES}
        return route(data)


class Settings(BaseSettings):
    """Engine settings. Frozen: build a new object (``model_copy(update=...)`` with nested
    values, or ``Settings.model_validate`` with flat keys) to change one.

    Attributes:
        storage, embedding, llm, write, retrieval, limits, lifecycle, security, mcp,
            dashboard, context: the domains (see each class).
        log_level: Python logging level (logs go to stderr).
        gc_freeze: see the README (unset = on in the MCP server and the dashboard).
    """

    model_config = SettingsConfigDict(
        env_prefix="MEMORY_", env_file=".env", extra="ignore", frozen=True
    )

    storage: StorageSettings = Field(default_factory=StorageSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    write: WriteSettings = Field(default_factory=WriteSettings)
    retrieval: SearchOptions = Field(default_factory=SearchOptions)
    limits: LimitsSettings = Field(default_factory=LimitsSettings)
    lifecycle: LifecycleSettings = Field(default_factory=LifecycleSettings)
    security: SecuritySettings = Field(default_factory=SecuritySettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    dashboard: DashboardSettings = Field(default_factory=DashboardSettings)
    context: ContextSettings = Field(default_factory=ContextSettings)

    log_level: str = Field("WARNING", description="Python logging level (logs go to stderr).")
    gc_freeze: bool | None = Field(
        None,
        description="After the first search, move the objects alive then out of the cyclic "
        "garbage collector's scans (gc.freeze): its full collections paused searches 70-160 ms "
        "every second or two. Unset = on in the MCP server and the dashboard (long-running "
        "processes of ours), off in the library and the CLI (it would keep the host's objects).",
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Read the flat ``MEMORY_*`` names from the environment and ``.env`` (the given
        ``_env_file`` / ``_env_prefix`` apply), each source routed into the domains."""
        assert isinstance(env_settings, EnvSettingsSource)
        assert isinstance(dotenv_settings, DotEnvSettingsSource)
        env = EnvSettingsSource(
            _FlatEnv,
            case_sensitive=env_settings.case_sensitive,
            env_prefix=env_settings.env_prefix,
        )
        dotenv = DotEnvSettingsSource(
            _FlatEnv,
            env_file=dotenv_settings.env_file,
            env_file_encoding=dotenv_settings.env_file_encoding,
            case_sensitive=dotenv_settings.case_sensitive,
            env_prefix=dotenv_settings.env_prefix,
        )
        return (
            _Routed(settings_cls, init_settings),
            _Routed(settings_cls, env),
            _Routed(settings_cls, dotenv),
            file_secret_settings,
        )

    @model_validator(mode="before")
    @classmethod
    def _route_flat_keys(cls, data: Any) -> Any:
        return route(data) if isinstance(data, Mapping) else data

    @model_validator(mode="after")
    def _check(self) -> Settings:
        if self.retrieval.k > self.limits.search_max_k:
            raise ConfigError("search_k must not exceed search_max_k")
        return self

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with ``update`` applied; flat keys (``{"database_url": url}``) and dicts of a
        domain (``{"retrieval": {"k": 3}}``) update that domain's copy, a domain model replaces
        it. Like pydantic's ``model_copy``, the values are not validated (use
        ``Settings.model_validate`` for that)."""
        if not update:
            return super().model_copy(deep=deep)
        routed = {
            key: getattr(self, key).model_copy(update=value)
            if key in DOMAINS and isinstance(value, Mapping)
            else value
            for key, value in route(update).items()
        }
        return super().model_copy(update=routed, deep=deep)

    @classmethod
    def env_names(cls) -> dict[str, str]:
        """Every flat setting name -> its place, e.g. ``{"search_k": "retrieval.k", ...,
        "log_level": "log_level"}``; the environment variable is ``MEMORY_<NAME>``."""
        return {
            flat: field if domain is None else f"{domain}.{field}"
            for flat, (domain, field) in PLACES.items()
        }

    def flat_value(self, name: str) -> Any:
        """The value of the setting with flat name ``name`` (e.g. ``"embedder"``).

        Raises:
            KeyError: no setting has that flat name.
        """
        domain, field = PLACES[name]
        return getattr(self if domain is None else getattr(self, domain), field)

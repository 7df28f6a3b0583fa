"""Running the write-path regression set against an engine (``bench/write_eval.py``, the Write
Inspector's comparison tab).

``run_suite`` builds one throwaway engine in a temporary data folder (one embedded PostgreSQL
for the whole run), writes every case in extract mode in a fresh tenant, turn by turn, records
what each write did (``write/evaluation.py`` records) and returns the scored report
(``write/evaluation_score.py``). The engine is built by the caller's ``engine_factory``
(``MemoryEngine``), so this module stays below the facade.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal, Protocol

from memory_engine.config import Settings
from memory_engine.errors import ConfigError, MemoryEngineError
from memory_engine.models import (
    Memory,
    MemoryFilter,
    MemorySource,
    MemoryStatus,
    Page,
    Scope,
    ensure_utc,
)
from memory_engine.write.evaluation import (
    CaseRecord,
    EvalCase,
    StoredFact,
    TurnRecord,
)
from memory_engine.write.evaluation_score import score_case, summarise
from memory_engine.write.raw import WriteResult

#: ``--provider`` values: the offline rules, an OpenAI-compatible endpoint, or as configured.
Provider = Literal["rules", "openai_compat"] | None

#: Actions that mean "this write stored or reinforced a memory".
_KEEPING = {"create", "duplicate", "supersede", "supplement"}

#: Links of one memory to entities (their ids), when the engine exposes them.
EntityLinks = Callable[[Scope, str], Sequence[str]]


class EvalEngine(Protocol):
    """The engine calls the suite makes (``MemoryEngine`` has them)."""

    def write(
        self,
        scope: Scope,
        text: str,
        *,
        source: MemorySource = ...,
        observed_at: Any = ...,
        metadata: dict[str, Any] | None = ...,
        mode: Literal["raw", "extract"] | None = ...,
    ) -> WriteResult: ...

    def get(self, scope: Scope, memory_id: uuid.UUID | str) -> Memory: ...

    def list(
        self,
        scope: Scope,
        *,
        filters: MemoryFilter | None = ...,
        limit: int = ...,
        cursor: str | None = ...,
    ) -> Page: ...

    def close(self) -> None: ...


def eval_settings(base: Settings, data_dir: Path, provider: Provider = None) -> Settings:
    """``base`` with the suite's storage (embedded PostgreSQL in ``data_dir``, journal there
    too) and the write-decision LLM ``provider`` (None: as configured in ``base``).

    Raises:
        ConfigError: ``openai_compat`` without ``MEMORY_LLM_BASE_URL`` and ``MEMORY_LLM_MODEL``.
    """
    update: dict[str, Any] = {
        "store": "postgres",
        "data_dir": data_dir,
        "database_url": None,
        "write_queue_path": None,
        "write_mode": "extract",
    }
    if provider is not None:
        update["llm_provider"] = provider
    settings = base.model_copy(update=update)
    llm = settings.llm
    if llm.provider == "openai_compat" and not (llm.base_url and llm.model):
        raise ConfigError(
            "the openai_compat provider needs MEMORY_LLM_BASE_URL and MEMORY_LLM_MODEL"
        )
    return settings


def engine_entity_links(engine: object) -> EntityLinks | None:
    """The engine's entity links, when it exposes ``memory_entities(scope, memory_id)``
    (items with an ``id`` or ``key``, or strings); None otherwise."""
    method = getattr(engine, "memory_entities", None)
    if not callable(method):
        return None

    def links(scope: Scope, memory_id: str) -> list[str]:
        out = []
        for item in method(scope, memory_id):
            ref = getattr(item, "id", None) or getattr(item, "key", None) or item
            out.append(str(ref))
        return out

    return links


def _stored(mem: Memory, links: tuple[str, ...] | None) -> StoredFact:
    key = mem.metadata.get("fact_key") if isinstance(mem.metadata, dict) else None
    key = key if isinstance(key, dict) else {}
    pol = key.get("polarity")
    polarity = -1 if pol in (-1, "-1", "negative", "neg") else (1 if pol is not None else None)
    return StoredFact(
        memory_id=str(mem.id),
        content=mem.content,
        memory_type=mem.memory_type.value,
        importance=mem.importance,
        status=mem.status.value,
        polarity=polarity,
        temporary=mem.valid_until is not None or bool(key.get("temporary")),
        entities=tuple(mem.entities),
        entity_links=links,
    )


def _listing(engine: EvalEngine, scope: Scope, statuses: tuple[MemoryStatus, ...]) -> list[Memory]:
    out: list[Memory] = []
    cursor = None
    while True:
        page = engine.list(scope, filters=MemoryFilter(statuses=statuses), limit=200, cursor=cursor)
        out.extend(page.items)
        cursor = page.next_cursor
        if not cursor:
            return out


def run_case(
    engine: EvalEngine, case: EvalCase, *, tenant: str, links: EntityLinks | None = None
) -> CaseRecord:
    """Write the case's user and tool turns in extract mode, in order, in tenant ``tenant``,
    and record each write (a write's typed error is recorded, not raised)."""
    scope = Scope.of(tenant, user_id="eval-user")
    start = ensure_utc(datetime.fromisoformat(case.observed_at))

    def stored(mem: Memory) -> StoredFact:
        return _stored(mem, tuple(links(scope, str(mem.id))) if links else None)

    turns: list[TurnRecord] = []
    for i, turn in enumerate(case.turns):
        if not turn.written:
            turns.append(TurnRecord(written=False))
            continue
        tool = turn.role == "tool"
        meta: dict[str, Any] = {"speaker": turn.role}
        if tool and turn.tool:
            meta["tool_name"] = turn.tool
        try:
            result = engine.write(
                scope,
                turn.text,
                source=MemorySource.TOOL_OUTPUT if tool else MemorySource.CONVERSATION,
                observed_at=start + timedelta(minutes=i) if start else None,
                metadata=meta,
                mode="extract",
            )
        except MemoryEngineError as exc:
            active = _listing(engine, scope, (MemoryStatus.ACTIVE,))
            turns.append(
                TurnRecord(
                    written=True,
                    error=exc.to_dict(),
                    active_after=tuple(stored(m) for m in active),
                )
            )
            continue
        actions = tuple(result.actions)
        created = tuple(
            stored(engine.get(scope, a["memory_id"]))
            for a in actions
            if a.get("action") == "create" and not a.get("planned")
        )
        active = _listing(engine, scope, (MemoryStatus.ACTIVE,))
        turns.append(
            TurnRecord(
                written=True,
                remembered=bool(result.remembered)
                and any(a.get("action") in _KEEPING for a in actions),
                actions=actions,
                created=created,
                active_after=tuple(stored(m) for m in active),
            )
        )
    every = _listing(engine, scope, tuple(MemoryStatus))
    return CaseRecord(
        case_id=case.id,
        turns=tuple(turns),
        memories=tuple(stored(m) for m in every),
        entity_links_available=links is not None,
    )


def evaluate_engine(
    engine: EvalEngine,
    cases: Sequence[EvalCase],
    *,
    details: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Run every case on ``engine`` (a fresh tenant each) and return the report of
    ``evaluation_score.summarise``."""
    links = engine_entity_links(engine)
    run = uuid.uuid4().hex[:8]
    scores = []
    for n, case in enumerate(cases):
        record = run_case(engine, case, tenant=f"write-eval-{run}-{n:04d}", links=links)
        scores.append(score_case(case, record))
        if progress:
            progress(n + 1, len(cases))
    return summarise(scores, entity_links_available=links is not None, details=details)


def run_suite(
    cases: Sequence[EvalCase],
    base: Settings,
    *,
    engine_factory: Callable[[Settings], EvalEngine],
    provider: Provider = None,
    details: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The whole suite on a throwaway engine: temporary data folder, one embedded PostgreSQL,
    removed afterwards.

    Returns:
        The report, with ``provider``, ``model``, ``embedder`` and ``seconds`` first.

    Raises:
        ConfigError: see ``eval_settings``; the engine's own errors when it cannot start.
    """
    folder = Path(tempfile.mkdtemp(prefix="write-eval-"))
    started = time.perf_counter()
    try:
        settings = eval_settings(base, folder / "data", provider)
        engine = engine_factory(settings)
        try:
            report = evaluate_engine(engine, cases, details=details, progress=progress)
        finally:
            engine.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    head = {
        "provider": settings.llm.provider,
        "model": settings.llm.model if settings.llm.provider != "rules" else "rules",
        "embedder": settings.embedding.provider,
        "seconds": round(time.perf_counter() - started, 1),
    }
    return {**head, **report}

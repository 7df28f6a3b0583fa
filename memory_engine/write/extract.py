"""Extract-mode write pipeline (docs/architecture.md#write-pipeline): guard -> evaluate+extract -> embed ->
exact dedupe -> near-duplicate candidates -> judge -> commit, with a decision trail.

One call of ``run_extract`` handles one ``AcceptedWrite`` (``write/records.py``). Order of effects on a contradiction:
the new memory is inserted first, then the old one is marked ``superseded`` with
``superseded_by`` (version-checked), so a failure in between leaves both memories, never zero.
The judge sees candidates by index only; ids are mapped back here, within the caller's scope.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from memory_engine import text as textmod
from memory_engine.config import Settings
from memory_engine.embedding import MULTILINGUAL_LEG
from memory_engine.embedding.base import Embedder
from memory_engine.entities import memory_terms, mentioned_entities
from memory_engine.errors import MemoryEngineError, VersionConflictError
from memory_engine.llm.base import ExtractInput, JudgeCandidate, WriteLLM
from memory_engine.llm.prompts import CANARY
from memory_engine.llm.reasons import SkipReason, code_of, tagged
from memory_engine.llm.rules_judge import key_terms
from memory_engine.llm.schemas import Extraction, Fact
from memory_engine.models import (
    Candidate,
    Memory,
    MemorySource,
    MemoryStatus,
    Scope,
    ensure_utc,
    utcnow,
)
from memory_engine.stores.base import MemoryStore, NewMemory
from memory_engine.stores.guard import GuardedStore, report_alarms
from memory_engine.write.continuation import recent_candidates, recent_context
from memory_engine.write.guard import guard_untrusted
from memory_engine.write.legs import fitted_legs, one_memory_legs
from memory_engine.write.raw import WriteRequest
from memory_engine.write.records import AcceptedWrite, WriteAction

log = logging.getLogger(__name__)

#: Characters of the source text kept in a trail and in each memory's metadata.
SPAN_CHARS = 2000

#: Longest text sent to one extract call; longer inputs are split (sentence-aligned).
EXTRACT_CHUNK_CHARS = 6000


@dataclass
class PipelineParts:
    """What the pipeline needs: settings, store, embedder, LLM and the shared call limit."""

    settings: Settings
    store: MemoryStore
    embedder: Embedder
    llm: WriteLLM
    limit: threading.BoundedSemaphore = field(default_factory=lambda: threading.BoundedSemaphore(4))
    #: Extra dense legs (leg -> embedder) each created memory also gets a vector of.
    legs: Mapping[str, Embedder] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    """Result of one extract-mode write: actions taken (or planned, in a dry run) and the
    decision trail (the JSON document the journal keeps)."""

    write_id: str
    remembered: bool
    reason: str
    actions: list[WriteAction]
    trail: dict[str, Any]
    warnings: list[str]

    @property
    def memory_ids(self) -> list[str]:
        """Ids of the memories this write created or reinforced."""
        return [a.memory_id for a in self.actions if a.action in ("create", "duplicate")]

    @property
    def rows(self) -> list[str]:
        """Every memory id the actions name (sorted, no repeats)."""
        return sorted({a.memory_id for a in self.actions})

    def action_dicts(self) -> list[dict[str, Any]]:
        """The actions in their JSON shape (``WriteResult.actions``, the journal)."""
        return [a.as_dict() for a in self.actions]


def _memory(scope: Scope, req: WriteRequest, fact: Fact, write_id: str, span: str) -> Memory:
    observed = ensure_utc(req.observed_at) or utcnow()
    meta = dict(req.metadata)
    meta.update({"write_id": write_id, "source_span": span[:300]})
    if fact.key:
        meta["fact_key"] = fact.key
    return Memory(
        tenant_id=scope.tenant_id,
        user_id=scope.user_id,
        agent_id=scope.agent_id,
        session_id=scope.session_id or req.session_id,
        content=fact.content,
        memory_type=fact.memory_type,
        entities=tuple(dict.fromkeys(req.entities + fact.entities)),
        tags=tuple(dict.fromkeys(req.tags + fact.tags)),
        importance=fact.importance,
        confidence=fact.confidence,
        source=req.source,
        source_ref=req.source_ref,
        observed_at=observed,
        valid_from=ensure_utc(fact.valid_from) or observed,
        valid_until=ensure_utc(fact.valid_until),
        content_hash=textmod.content_hash(fact.content),
        metadata=meta,
    )


#: Most known entities (most linked first) a write looks for in its facts.
KNOWN_ENTITIES_SCANNED = 200


def _known_entities(parts: PipelineParts, scope: Scope) -> list[tuple[str, str]]:
    """(key, name) of the scope's entities, most linked first, at most
    ``KNOWN_ENTITIES_SCANNED``; empty when the store keeps no entity index."""
    listing = getattr(parts.store, "list_entities", None)
    if listing is None:
        return []
    page = listing(scope=scope, limit=KNOWN_ENTITIES_SCANNED)
    return [(e.key, e.name) for e in page.items]


def _candidates(
    parts: PipelineParts,
    scope: Scope,
    mem: Memory,
    vector: list[float],
    *,
    write_id: str,
    keys: list[str] | None = None,
    ml_vector: list[float] | None = None,
) -> tuple[list[Candidate], list[dict[str, Any]]]:
    """Stored active memories near ``mem``: those sharing its fact-key terms (same holder and
    subject: a correction is found even when its embedding is far from the fact it corrects),
    cosine >= threshold, multilingual-leg cosine >= ``LEG_CANDIDATE_COSINE`` (when
    ``ml_vector`` is given), keyword hits on its own words and on its entities; at most
    ``judge_max_candidates``, keyed ones first, each group by best
    cosine; and the cross-tenant alarms
    of the searches (``stores.guard``: a foreign row is dropped, logged and audited, never
    deduped against or superseded)."""
    s = parts.settings
    store = GuardedStore(parts.store, scope, stage_prefix="write:")
    found: dict[uuid.UUID, Candidate] = {}
    keyed: set[uuid.UUID] = set()
    for term in keys or []:
        for c in store.keyword_search([term], scope=scope, k=s.write.judge_max_candidates):
            if c.scores.get("bm25", 0.0) > 0 and len(keyed) < s.write.judge_max_candidates:
                found.setdefault(c.memory.id, c)
                keyed.add(c.memory.id)
    for c in store.dense_search(vector, scope=scope, k=s.write.judge_max_candidates):
        if c.scores.get("cosine", 0.0) >= s.write.conflict_similarity or (
            c.memory.content_hash == mem.content_hash
        ):
            found[c.memory.id] = c
    if ml_vector is not None:  # the multilingual leg: Chinese facts near in meaning
        try:
            near = store.leg_search(
                MULTILINGUAL_LEG, ml_vector, scope=scope, k=s.write.judge_max_candidates
            )
        except MemoryEngineError as exc:  # the leg is optional: the other searches stand
            log.warning("multilingual leg search failed for the judge: %s", exc.message)
            near = []
        for c in near:
            if c.memory.id not in found and c.scores.get("cosine", 0.0) >= LEG_CANDIDATE_COSINE:
                found[c.memory.id] = c
    # the fact's own words: a stored fact on the same thing in other words ("用户每天坐地铁
    # 上班" / "用户现在改骑电动车上班") shares one even when both cosines are low
    words = [t for t in textmod.tokenize(mem.content) if t not in _HOLDER_TERMS]
    if words:
        for c in store.keyword_search(words, scope=scope, k=s.write.judge_max_candidates):
            if c.memory.id not in found and c.scores.get("bm25", 0.0) > 0:
                found[c.memory.id] = c
    terms = [t for e in mem.entities for t in textmod.tokenize(e)]
    if terms:
        for c in store.keyword_search(terms, scope=scope, k=s.write.judge_max_candidates):
            if c.memory.id not in found and c.scores.get("bm25", 0.0) > 0:
                found[c.memory.id] = c
    report_alarms(
        store, reason="cross-tenant rows dropped from a write's candidate search", write_id=write_id
    )
    ranked = sorted(
        found.values(), key=lambda c: (c.memory.id not in keyed, -c.scores.get("cosine", 0.0))
    )
    return ranked[: s.write.judge_max_candidates], store.alarms


#: Multilingual-leg cosine from which a stored memory goes to the judge (USE-m3 cosines of
#: two facts on one subject in different words are about 0.5-0.8, "用户住在上海" / "用户其实
#: 已经搬到深圳" included, where the primary leg sees little in common for Chinese).
LEG_CANDIDATE_COSINE = 0.4

#: Keyword terms of the user as the holder of a fact ("用户", "The user"): no subject of it.
_HOLDER_TERMS = frozenset({"用户", "user"})


def _ml_vectors(embedder: Embedder | None, texts: list[str]) -> list[list[float] | None]:
    """The texts' vectors on the multilingual leg, or Nones when the leg fails (never the
    write: the judge then works from the fact keys and the primary leg alone)."""
    if embedder is None or not texts:
        return [None] * len(texts)
    try:
        return [list(v) for v in embedder.embed(texts)]
    except MemoryEngineError as exc:
        log.warning("multilingual leg unavailable to the judge: %s", exc.message)
        return [None] * len(texts)


def _ml_cosines(
    embedder: Embedder | None, vector: list[float] | None, texts: list[str]
) -> list[float] | None:
    """Cosines in [-1, 1] of ``vector`` (unit norm) to each text on the multilingual leg;
    None without the leg."""
    if embedder is None or vector is None:
        return None
    vectors = _ml_vectors(embedder, texts)
    if any(v is None for v in vectors):
        return None
    return [float(sum(a * b for a, b in zip(vector, v, strict=True))) for v in vectors if v]


def reinforce(
    parts: PipelineParts, scope: Scope, old: Memory, write_id: str, actor: str
) -> WriteAction:
    """Raise the confidence of ``old`` (a duplicate of this write's input or fact) by 0.05,
    version-checked; a concurrent change leaves it as it is (noted in the action)."""
    meta = dict(old.metadata)
    meta["reinforced"] = int(meta.get("reinforced", 0)) + 1
    try:
        parts.store.update(
            old.id,
            scope=scope,
            expected_version=old.version,
            changes={"confidence": min(1.0, old.confidence + 0.05), "metadata": meta},
            actor=actor,
            reason="reinforced by a duplicate write",
            request_id=write_id,
        )
    except VersionConflictError:
        return WriteAction("duplicate", str(old.id), note="changed concurrently")
    return WriteAction("duplicate", str(old.id), reason="reinforced")


def _extract_all(
    parts: PipelineParts, item: ExtractInput, trail: dict[str, Any], warnings: list[str]
) -> Extraction:
    """One extract call, or one per ``EXTRACT_CHUNK_CHARS`` chunk of a long input (sentence
    aligned), facts concatenated in order; remembered when any chunk is."""
    pieces = [item.text]
    if len(item.text) > EXTRACT_CHUNK_CHARS:
        pieces = textmod.chunk_text(
            item.text, min_chars=EXTRACT_CHUNK_CHARS // 2, max_chars=EXTRACT_CHUNK_CHARS
        )
    results = []
    for piece in pieces:
        with parts.limit:
            extraction, call = parts.llm.extract(item.model_copy(update={"text": piece}))
        trail["llm_calls"].append(call.model_dump(mode="json"))
        warnings.extend(call.warnings)
        results.append(extraction)
    if len(results) == 1:
        return results[0]
    remembered = [r for r in results if r.should_remember]
    return Extraction(
        should_remember=bool(remembered),
        reason="; ".join(dict.fromkeys(r.reason for r in (remembered or results) if r.reason)),
        facts=tuple(f for r in remembered for f in r.facts),
    )


def run_extract(
    accepted: AcceptedWrite,
    *,
    parts: PipelineParts,
    write_id: str,
    dry_run: bool = False,
    previous: list[str] | None = None,
) -> Outcome:
    """Run the pipeline on one accepted write (its ``text`` is already cleaned);
    ``previous``: the memory ids the previous message of the scope stored
    (``continuation.previous_rows``), read as context and recent judge candidates.

    Raises:
        ExtractionFailedError, LLMError: the LLM failed (the caller keeps the input to retry).
        EmbeddingError, StoreError: lower layers failed; nothing of this write is committed
            except memories already reported in a previous step (each insert is atomic).
    """
    s = parts.settings
    req, scope, actor, text = accepted.request, accepted.scope, accepted.actor, accepted.text
    observed = ensure_utc(req.observed_at) or utcnow()
    warnings: list[str] = []
    trail: dict[str, Any] = {
        "write_id": write_id,
        "dry_run": dry_run,
        "source": {
            "text": text[:SPAN_CHARS],
            "chars": len(text),
            "source": req.source.value,
            "source_ref": req.source_ref,
            "observed_at": observed.isoformat(),
        },
        "llm_calls": [],
        "facts": [],
        "actions": [],
    }
    guarded, report = guard_untrusted(
        text,
        source=req.source.value,
        metadata=req.metadata,
        max_tool_chars=s.write.tool_output_max_chars,
    )
    trail["guard"] = report.model_dump()
    if report.memory_tool_call or report.injection:
        code = SkipReason.MEMORY_TOOL_CALL if report.memory_tool_call else SkipReason.INJECTION
        reason = tagged(code, "; ".join(report.notes))
        trail["decision"] = {"should_remember": False, "reason": reason}
        return Outcome(write_id, False, reason, [], trail, warnings)

    recent, recent_vectors = recent_context(
        parts.store, parts.embedder, parts.limit, scope, previous or [], warnings
    )
    item = ExtractInput(
        text=guarded,
        observed_at=observed,
        timezone=s.write.user_timezone,
        source=req.source,
        speaker=str(req.metadata.get("speaker")) if req.metadata.get("speaker") else None,
        context=tuple(m.content for m in recent),
    )
    extraction = _extract_all(parts, item, trail, warnings)
    trail["decision"] = {
        "should_remember": extraction.should_remember,
        "reason": extraction.reason,
        "reason_code": code_of(extraction.reason),
    }
    facts = []
    for fact in extraction.facts:
        if CANARY.lower() in fact.content.lower():
            warnings.append(
                f"fact dropped: copied from the prompt examples ({fact.content[:40]!r})"
            )
            continue
        if req.source == MemorySource.TOOL_OUTPUT and copies_payload(fact.content, text):
            warnings.append(f"fact dropped: a copy of the raw tool output ({fact.content[:40]!r})")
            continue
        facts.append(fact)
    if not extraction.should_remember or not facts:
        reason = extraction.reason or tagged(SkipReason.NO_FACT, "nothing worth remembering")
        if extraction.should_remember and not facts:
            reason = tagged(SkipReason.FACTS_DROPPED, "every extracted fact was dropped")
        trail["decision"].update(reason=reason, reason_code=code_of(reason))
        return Outcome(write_id, False, reason, [], trail, warnings)

    mems = [_memory(scope, req, f, write_id, text) for f in facts]
    known = _known_entities(parts, scope)
    if known:  # link names the tenant already knows, however the extractor missed them
        mems = [
            m.model_copy(
                update={
                    "entities": tuple(
                        dict.fromkeys(m.entities + tuple(mentioned_entities(m.content, known)))
                    )
                }
            )
            for m in mems
        ]
    with parts.limit:
        vectors = parts.embedder.embed([m.content for m in mems])
    mems = [m.model_copy(update={"embedding_model": parts.embedder.model_name}) for m in mems]
    actions: list[WriteAction] = []
    for fact, mem, vector in zip(facts, mems, vectors, strict=True):
        fact_trail: dict[str, Any] = {"fact": fact.model_dump(mode="json"), "candidates": []}
        trail["facts"].append(fact_trail)
        actions.extend(
            _decide_and_apply(
                parts,
                scope,
                req,
                fact,
                mem,
                list(vector),
                item,
                fact_trail,
                warnings,
                actor=actor,
                write_id=write_id,
                dry_run=dry_run,
                recent=(recent, recent_vectors),
            )
        )
    outcome = Outcome(write_id, True, extraction.reason, actions, trail, warnings)
    trail["actions"] = outcome.action_dicts()
    trail["rows"] = outcome.rows
    return outcome


def _decide_and_apply(
    parts: PipelineParts,
    scope: Scope,
    req: WriteRequest,
    fact: Fact,
    mem: Memory,
    vector: list[float],
    item: ExtractInput,
    fact_trail: dict[str, Any],
    warnings: list[str],
    *,
    actor: str,
    write_id: str,
    dry_run: bool,
    recent: tuple[list[Memory], list[list[float]]] = ([], []),
) -> list[WriteAction]:
    """Dedupe, judge and commit one fact; returns its actions. ``recent``: what the previous
    message stored (``write.continuation``), shown to the judge as ``recent`` candidates."""
    keys = key_terms(fact.key)
    ml_embedder = parts.legs.get(MULTILINGUAL_LEG)
    ml_vector = _ml_vectors(ml_embedder, [mem.content])[0] if ml_embedder else None
    cands, alarms = _candidates(
        parts, scope, mem, vector, write_id=write_id, keys=keys, ml_vector=ml_vector
    )
    cands = cands + recent_candidates(recent[0], recent[1], cands, vector)
    recent_ids = {m.id for m in recent[0]}
    ml_cosines = _ml_cosines(ml_embedder, ml_vector, [c.memory.content for c in cands])
    if alarms:
        fact_trail["tenant_alarms"] = alarms
    fact_trail["candidates"] = [
        {
            "index": i,
            "memory_id": str(c.memory.id),
            "content": c.memory.content,
            "cosine": round(c.scores.get("cosine", 0.0), 4),
            "bm25": round(c.scores.get("bm25", 0.0), 4),
            **({} if ml_cosines is None else {"cosine_ml": round(ml_cosines[i], 4)}),
            **({"recent": True} if c.memory.id in recent_ids else {}),
        }
        for i, c in enumerate(cands)
    ]
    exact = next((c for c in cands if c.memory.content_hash == mem.content_hash), None)
    if exact is not None:  # exact hash first, before any judge call
        fact_trail["judge"] = "skipped: exact duplicate"
        if dry_run:
            return [WriteAction("duplicate", str(exact.memory.id), planned=True)]
        return [reinforce(parts, scope, exact.memory, write_id, actor)]
    relations: dict[int, tuple[str, str]] = {}
    if cands:
        shown = [
            JudgeCandidate(
                index=i,
                content=c.memory.content,
                memory_type=c.memory.memory_type.value,
                observed_at=c.memory.observed_at,
                valid_until=c.memory.valid_until,
                similarity=c.scores.get("cosine", 0.0),
                similarity_ml=None if ml_cosines is None else ml_cosines[i],
                same_write=c.memory.metadata.get("write_id") == write_id,
                recent=c.memory.id in recent_ids,
                key=dict(c.memory.metadata.get("fact_key") or {}),
            )
            for i, c in enumerate(cands)
        ]
        try:
            with parts.limit:
                judgement, call = parts.llm.judge(fact, shown, item)
        except MemoryEngineError as exc:  # keep both: never lose a fact to a failed judge
            warnings.append(f"judge failed, both memories kept: {exc.message}")
            fact_trail["judge"] = {"error": exc.to_dict()}
        else:
            fact_trail["judge"] = call.model_dump(mode="json")
            warnings.extend(call.warnings)
            for d in judgement.decisions:
                if d.candidate >= len(cands):  # providers filter too; never trust an index
                    warnings.append(f"judge named candidate {d.candidate}, not shown: dropped")
                    continue
                relations[d.candidate] = (d.relation, d.reason)
    else:
        fact_trail["judge"] = "skipped: no candidates"
    dup = next((i for i, (rel, _) in relations.items() if rel == "duplicate"), None)
    if dup is not None:
        if dry_run:
            return [WriteAction("duplicate", str(cands[dup].memory.id), planned=True)]
        return [reinforce(parts, scope, cands[dup].memory, write_id, actor)]
    replaced = [cands[i].memory for i, (rel, _) in relations.items() if rel == "contradicts"]
    if replaced:  # an updated fact or preference outweighs the one it replaces
        lift = min(1.0, max([mem.importance] + [m.importance for m in replaced]) + 0.1)
        mem = mem.model_copy(update={"importance": round(lift, 4)})
    actions: list[WriteAction] = []
    new_id = str(mem.id)
    if dry_run:
        actions.append(WriteAction("create", new_id, content=mem.content, planned=True))
    else:
        new_item = NewMemory(
            memory=mem,
            embedding=tuple(vector),
            terms=tuple(memory_terms(mem.content, mem.entities)) + tuple(keys),
            legs=one_memory_legs(
                parts.legs,
                mem.content,
                {MULTILINGUAL_LEG: ml_vector} if ml_embedder else {},
            ),
        )
        try:
            outcome = parts.store.insert(
                [new_item], scope=scope, actor=actor, reason="extracted", request_id=write_id
            )[0]
        except MemoryEngineError:
            fitted = fitted_legs(parts.store, [new_item])  # a leg replaced meanwhile
            if fitted is None:
                raise
            outcome = parts.store.insert(
                fitted, scope=scope, actor=actor, reason="extracted", request_id=write_id
            )[0]
        if outcome.status == "duplicate":
            return [WriteAction("duplicate", str(outcome.existing_id))]
        actions.append(WriteAction("create", new_id, content=mem.content))
    for i, (rel, why) in sorted(relations.items()):
        old = cands[i].memory
        if rel == "contradicts":
            actions.append(_supersede(parts, scope, old, mem, why, write_id, actor, dry_run))
        elif rel == "supplements":
            actions.append(WriteAction("supplement", new_id, target_id=str(old.id), reason=why))
    return actions


def _supersede(
    parts: PipelineParts,
    scope: Scope,
    old: Memory,
    new: Memory,
    why: str,
    write_id: str,
    actor: str,
    dry_run: bool,
) -> WriteAction:
    action = WriteAction("supersede", str(new.id), target_id=str(old.id), reason=why)
    if dry_run:
        return replace(action, planned=True)
    try:
        parts.store.update(
            old.id,
            scope=scope,
            expected_version=old.version,
            changes={
                "status": MemoryStatus.SUPERSEDED,
                "superseded_by": new.id,
                "valid_until": new.valid_from or new.observed_at or utcnow(),
            },
            actor=actor,
            reason=f"superseded: {why}"[:500],
            action="supersede",
            request_id=write_id,
        )
    except VersionConflictError:
        return replace(action, action="supersede_skipped", note="changed concurrently")
    return action


def copies_payload(content: str, payload: str) -> bool:
    """True when a fact is a verbatim piece of a raw tool output (its opening, or a long
    stretch of it): such a "fact" is the payload itself and is never stored."""
    fact = " ".join(content.split())
    raw = " ".join(payload.split())
    if len(raw) <= len(fact) + 20 and len(raw) < 200:
        return False  # a short output can be its own conclusion ("build 1234 passed")
    # an opening of 40+ characters is the payload itself; a shorter one can be the outcome the
    # output opens with ("Email sent to bob@example.com (message id …)")
    return (len(fact) >= 40 and raw.startswith(fact[:40])) or (len(fact) >= 80 and fact in raw)


def now_ms() -> float:
    """Monotonic milliseconds (for trail timings)."""
    return time.perf_counter() * 1000.0

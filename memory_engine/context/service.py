"""``ContextService``, the context side of ``MemoryEngine``: working memory, prompt assembly with budgets, observe.

``context()`` returns the messages for the model in this order::

    system prompt -> memory block (data fence) -> summary of older turns -> recent turns -> input

Every section's tokens are counted with ``context.message_tokens`` (cl100k + per-message
overhead). The budget is ``context_window - context_reserve_tokens`` unless given. When the
sections do not fit, they are trimmed in this documented order until they do:

1. the **summary** loses its oldest lines (then disappears);
2. **memories** are dropped from the lowest-ranked up (the block is re-rendered);
3. **recent turns** are dropped oldest message first.

The system prompt and the current input are never trimmed: when they alone exceed the budget,
``ContextBudgetError`` (an ``InvalidInputError``) is raised. Everything trimmed is reported.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from memory_engine.context.working import WorkingMemory, WorkingView, message_tokens
from memory_engine.context.working_store import Role
from memory_engine.deps import EngineDeps, check_scope
from memory_engine.errors import ContentTooLargeError, InvalidInputError
from memory_engine.models import (
    Candidate,
    MemorySource,
    MemoryType,
    Scope,
    SearchResult,
    with_turn,
)
from memory_engine.retrieval.block import render_block
from memory_engine.text import clean_text
from memory_engine.write.raw import WriteResult
from memory_engine.write.tool_calls import refuse_memory_tool_call

#: task_type -> memory types it needs first (a stable re-ordering before budget trimming).
TASK_TYPE_PREFERENCES: dict[str, tuple[MemoryType, ...]] = {
    "chat": (MemoryType.EPISODIC, MemoryType.SEMANTIC),
    "qa": (MemoryType.SEMANTIC, MemoryType.EPISODIC),
    "planning": (MemoryType.PROCEDURAL, MemoryType.SEMANTIC),
    "coding": (MemoryType.PROCEDURAL, MemoryType.SEMANTIC),
}
SUMMARY_HEADER = "Summary of earlier turns of this conversation (older rounds, summarised):"
SECTION_ORDER = ("system", "memories", "summary", "recent", "input")


def _owner_hash(kind: str, value: str | None, width: int) -> str:
    if value is None:
        return "0" * width
    return hashlib.sha256(f"{kind}\x00{value}".encode()).hexdigest()[:width]


def working_session(scope: Scope, session_id: str) -> str:
    """The working-memory key of ``session_id`` for ``scope``.

    A scope narrowed to a user or agent gets its own buffer per session id: the key is
    ``<session_id>:u<16 hex of sha256(user)><4 hex of sha256(agent)>`` (the session id is
    hashed too when the key would pass 64 characters). Two users of one tenant who both use
    ``s1`` never share turns, and every buffer of one user (any agent) is found by the user
    part (:func:`user_session_match`, used by ``forget_user``). A tenant-wide scope uses the
    key as given (the Context Preview lists stored keys).
    """
    if not isinstance(session_id, str):
        raise InvalidInputError("session_id must be a string", field="session_id")
    if not scope.user_id and not scope.agent_id:
        return session_id
    suffix = f":u{_owner_hash('user', scope.user_id, 16)}{_owner_hash('agent', scope.agent_id, 4)}"
    if len(session_id) + len(suffix) > 64:
        session_id = "h" + hashlib.sha256(session_id.encode()).hexdigest()[:32]
    return session_id + suffix


def user_session_match(user_id: str) -> Callable[[str], bool]:
    """A predicate that is True for the working-memory keys of ``user_id`` (any agent)."""
    pattern = re.compile(rf".+:u{_owner_hash('user', user_id, 16)}[0-9a-f]{{4}}")
    return lambda key: pattern.fullmatch(key) is not None


class ContextBudgetError(InvalidInputError):
    """Raised when the system prompt and the current input alone exceed the token budget."""

    code = "context_budget"


class ContextSection(BaseModel):
    """One section of the assembled prompt: its messages (``first``..``last`` indexes, inclusive,
    into ``ContextResult.messages``; both -1 when empty) and tokens."""

    model_config = ConfigDict(frozen=True)

    name: str
    tokens: int
    first: int = -1
    last: int = -1
    items: int = 0


class ContextMemory(BaseModel):
    """A recalled memory and whether it made it into the prompt, and why."""

    model_config = ConfigDict(frozen=True)

    id: uuid.UUID
    content: str
    memory_type: MemoryType
    rank: int | None
    scores: dict[str, float]
    included: bool
    why: str


class Trimmed(BaseModel):
    """Something the budget removed: section, what (a line, memory id or message) and tokens."""

    model_config = ConfigDict(frozen=True)

    section: str
    what: str
    tokens: int


class ContextResult(BaseModel):
    """The assembled prompt with its accounting (``total_tokens <= budget_tokens``)."""

    model_config = ConfigDict(frozen=True)

    messages: list[dict[str, str]]
    sections: list[ContextSection]
    total_tokens: int
    budget_tokens: int
    mode: str
    memories: list[ContextMemory] = Field(default_factory=list)
    trimmed: list[Trimmed] = Field(default_factory=list)
    trace_id: uuid.UUID | None = None
    task_type: str | None = None
    history_tokens: int = 0
    summarized_rounds: int = 0


def _why(c: Candidate) -> str:
    legs = ", ".join(
        f"{leg} #{c.ranks[leg]}" for leg in ("dense", "keyword") if c.ranks.get(leg) is not None
    )
    score = c.scores.get("rrf")
    parts = [f"rank {c.ranks.get('final')}"]
    if score is not None:
        parts.append(f"rrf ↑ {score:.4f}")
    if "cosine" in c.scores:
        parts.append(f"cosine ↑ {c.scores['cosine']:.3f}")
    if legs:
        parts.append(f"found by {legs}")
    return " · ".join(parts)


class SearchFn(Protocol):
    """The recall a context needs (``SearchService.search``)."""

    def __call__(
        self,
        scope: Scope,
        query: str,
        *,
        k: int | None = None,
        recent_turns: Sequence[str] | None = None,
        save_trace: bool = True,
    ) -> SearchResult: ...


class WriteFn(Protocol):
    """The write path ``observe`` goes through (``WriteService.write``)."""

    def __call__(
        self,
        scope: Scope,
        text: str,
        *,
        source: MemorySource = ...,
        observed_at: Any = ...,
        memory_type: MemoryType = ...,
        importance: float = ...,
        metadata: dict[str, Any] | None = ...,
        actor: str = ...,
        reason: str | None = ...,
    ) -> WriteResult: ...


#: Recent messages of the session searched with the input (``SearchOptions.recent_turns``).
RECENT_TURNS_IN_QUERY = 2


class ContextService:
    """Working memory (``add_turn``), prompt assembly (``context``) and ``observe``.

    Args:
        deps: the bundle (settings, working memory).
        search: recalls the memories of a context (``SearchService.search``).
        write: stores what ``observe`` is given (``WriteService.write``).
    """

    def __init__(self, deps: EngineDeps, *, search: SearchFn, write: WriteFn) -> None:
        self._deps = deps
        self._search = search
        self._write = write

    @property
    def working_memory(self) -> WorkingMemory:
        """The session buffers (Redis when ``MEMORY_REDIS_URL`` is set, else in-process)."""
        return self._deps.working_memory

    def clear_user_sessions(self, scope: Scope) -> int:
        """Forget every working-memory session of ``scope``'s user (any agent, any session id)
        in this engine's backend (Redis: shared by every process; in-process: this process
        only). Returns how many were forgotten.

        Raises:
            InvalidInputError: the scope has no ``user_id``. StoreUnavailableError: Redis down.
        """
        scope = check_scope(scope)
        if scope.user_id is None:
            raise InvalidInputError("clear_user_sessions needs a scope with user_id")
        match = user_session_match(scope.user_id)
        return self._deps.working_memory.store.clear_matching(scope.tenant_id, match)

    def add_turn(self, scope: Scope, session_id: str, role: Role, content: str) -> None:
        """Append one message (``user`` or ``assistant``) to the session's working memory.

        Raises:
            InvalidInputError, EmptyContentError, ContentTooLargeError.
        """
        scope = check_scope(scope)
        self._deps.working_memory.add(
            scope.tenant_id, working_session(scope, session_id), role, content
        )

    def context(
        self,
        scope: Scope,
        session_id: str,
        query: str,
        task_type: str | None = None,
        *,
        system_prompt: str | None = None,
        budget_tokens: int | None = None,
        k: int | None = None,
        view: WorkingView | None = None,
        save_trace: bool = True,
    ) -> ContextResult:
        """Assemble the prompt for ``query`` in session ``session_id`` within the token budget.

        Args:
            scope: tenant (and user/agent) of the long-term memories; the session only selects
                the working memory, recalled memories come from the whole scope.
            task_type: ``chat``, ``qa``, ``planning`` or ``coding``: memories of the types the
                task needs first move up before trimming (``TASK_TYPE_PREFERENCES``).
            system_prompt: default ``MEMORY_CONTEXT_SYSTEM_PROMPT``.
            budget_tokens: default ``context_window - context_reserve_tokens``.
            view: a precomputed working-memory view (the dashboard's pasted turns).
            save_trace: False for a preview that records nothing: the recall's trace is not
                stored, no access is counted and no strong match is restored (the result's
                ``trace_id`` then names no stored trace).

        Returns:
            ContextResult whose ``messages`` are ``{"role", "content"}`` dicts in section order.

        Raises:
            ContextBudgetError, InvalidInputError, EmptyContentError, StoreError.
        """
        scope = check_scope(scope)
        s = self._deps.settings
        if task_type is not None and task_type not in TASK_TYPE_PREFERENCES:
            raise InvalidInputError(
                f"task_type must be one of {sorted(TASK_TYPE_PREFERENCES)}", task_type=task_type
            )
        budget = (
            s.context.window - s.context.reserve_tokens if budget_tokens is None else budget_tokens
        )
        system = clean_text(
            system_prompt if system_prompt is not None else s.context.system_prompt,
            max_chars=s.write.max_input_chars,
            field="system_prompt",
        )
        query = clean_text(query, max_chars=s.write.max_input_chars, field="query")
        fixed = message_tokens(system) + message_tokens(query)
        if fixed > budget:
            raise ContextBudgetError(
                f"the system prompt and the input need {fixed} tokens; the budget is {budget}",
                tokens=fixed,
                budget=budget,
            )
        wm = view or self._deps.working_memory.view(
            scope.tenant_id, working_session(scope, session_id)
        )
        # The search keeps its own block budget (MEMORY_TOKEN_BUDGET); what the context budget
        # removes afterwards is trimmed here, so it is reported in ``trimmed``.
        # the conversation so far is part of the question ("Any allergies?" after "I am cooking
        # for Ann tonight"): the last two recent messages go with the query (``recent_turns``)
        turns = [m.content for m in wm.recent[-RECENT_TURNS_IN_QUERY:] if m.content.strip()]
        result = self._search(scope, query, k=k, recent_turns=turns or None, save_trace=save_trace)
        recalled: list[Candidate] = list(result.memories)
        if task_type:
            prefs = TASK_TYPE_PREFERENCES[task_type]
            recalled.sort(
                key=lambda c: (
                    prefs.index(c.memory.memory_type)
                    if c.memory.memory_type in prefs
                    else len(prefs)
                )
            )
        return self._assemble(system, query, wm, recalled, budget, result.trace.id, task_type)

    def _assemble(
        self,
        system: str,
        query: str,
        wm: WorkingView,
        recalled: Sequence[Candidate],
        budget: int,
        trace_id: uuid.UUID,
        task_type: str | None,
    ) -> ContextResult:
        trimmed: list[Trimmed] = []
        summary_lines = wm.summary.splitlines() if wm.summary else []
        n_mem = len(recalled)
        recent = list(wm.recent)

        def summary_msg() -> str | None:
            return SUMMARY_HEADER + "\n" + "\n".join(summary_lines) if summary_lines else None

        def block_msg() -> str | None:
            return render_block([c.memory for c in recalled[:n_mem]]) if n_mem else None

        def total() -> int:
            parts = [system, query, block_msg(), summary_msg()] + [m.content for m in recent]
            return sum(message_tokens(p) for p in parts if p is not None)

        def trim(section: str, what: str, drop: Any) -> None:
            before = total()
            drop()
            trimmed.append(Trimmed(section=section, what=what, tokens=before - total()))

        while total() > budget and summary_lines:
            trim("summary", summary_lines[0], lambda: summary_lines.pop(0))
        while total() > budget and n_mem:
            c = recalled[n_mem - 1]

            def drop_memory() -> None:
                nonlocal n_mem
                n_mem -= 1

            trim("memories", f"{c.memory.id}: {c.memory.content[:80]}", drop_memory)
        while total() > budget and recent:
            m = recent[0]
            trim("recent", f"{m.role}: {m.content[:80]}", lambda: recent.pop(0))

        messages: list[dict[str, str]] = []
        sections: list[ContextSection] = []

        def add(name: str, msgs: list[dict[str, str]]) -> None:
            first = len(messages) if msgs else -1
            messages.extend(msgs)
            tokens = sum(message_tokens(m["content"]) for m in msgs)
            sections.append(
                ContextSection(
                    name=name,
                    tokens=tokens,
                    first=first,
                    last=len(messages) - 1 if msgs else -1,
                    items=len(msgs),
                )
            )

        block, summary = block_msg(), summary_msg()
        add("system", [{"role": "system", "content": system}])
        add("memories", [{"role": "system", "content": block}] if block else [])
        add("summary", [{"role": "system", "content": summary}] if summary else [])
        add("recent", [{"role": m.role, "content": m.content} for m in recent])
        add("input", [{"role": "user", "content": query}])
        memories = [
            ContextMemory(
                id=c.memory.id,
                content=c.memory.content,
                memory_type=c.memory.memory_type,
                rank=c.ranks.get("final"),
                scores=c.scores,
                included=i < n_mem,
                why=_why(c) if i < n_mem else _why(c) + " · trimmed by the context budget",
            )
            for i, c in enumerate(recalled)
        ]
        return ContextResult(
            messages=messages,
            sections=sections,
            total_tokens=sum(sec.tokens for sec in sections),
            budget_tokens=budget,
            mode=wm.mode,
            memories=memories,
            trimmed=trimmed,
            trace_id=trace_id,
            task_type=task_type,
            history_tokens=wm.history_tokens,
            summarized_rounds=wm.summarized_rounds,
        )

    def observe(
        self,
        scope: Scope,
        content: str,
        *,
        kind: Literal["tool_result", "conclusion"] = "tool_result",
        tool_name: str | None = None,
        session_id: str | None = None,
        importance: float = 0.5,
        observed_at: datetime | None = None,
        metadata: dict[str, Any] | None = None,
        turn: int | None = None,
    ) -> WriteResult:
        """Remember what the agent saw or concluded after acting, through the write path.

        Tool results are stored with source ``tool_output``, conclusions with ``conversation``;
        both as episodic memories narrowed to ``session_id`` when given. ``turn`` (with a
        session id, here or in the scope) is the observation's turn index in that session,
        stored as ``metadata["turn"]``: only then does session smoothing treat it as a turn
        (a tool's own ids and references never are). Calls and results of
        the memory tools are refused (never stored), as is content longer than
        ``MEMORY_OBSERVE_MAX_CHARS`` (a log dump must be reduced by the caller first).

        Raises:
            InvalidInputError (memory tool call, bad kind, a turn without a session),
            ContentTooLargeError,
            EmptyContentError, EmbeddingMismatchError, StoreError.
        """
        scope = check_scope(scope)
        if kind not in ("tool_result", "conclusion"):
            raise InvalidInputError("kind must be 'tool_result' or 'conclusion'", kind=kind)
        if not isinstance(content, str):
            raise InvalidInputError("content must be a string", field="content")
        refuse_memory_tool_call(content, tool_name=tool_name)
        limit = self._deps.settings.context.observe_max_chars
        if len(content) > limit:
            raise ContentTooLargeError(
                f"{kind} has {len(content):,} characters; the limit is {limit:,} "
                "(MEMORY_OBSERVE_MAX_CHARS): extract the facts that matter first",
                length=len(content),
                limit=limit,
            )
        if session_id is not None:
            scope = Scope.of(
                scope.tenant_id,
                user_id=scope.user_id,
                agent_id=scope.agent_id,
                session_id=session_id,
            )
        meta = {"observed": kind, **({"tool": tool_name} if tool_name else {}), **(metadata or {})}
        meta = with_turn(meta, turn, session_id=scope.session_id)
        return self._write(
            scope,
            content,
            source=MemorySource.TOOL_OUTPUT if kind == "tool_result" else MemorySource.CONVERSATION,
            memory_type=MemoryType.EPISODIC,
            importance=importance,
            observed_at=observed_at,
            metadata=meta,
            actor="observe",
            reason=kind,
        )

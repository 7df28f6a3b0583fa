"""Working memory: the short-term side of memory (recent turns verbatim, older turns summarised).

A *round* is one user message and the replies that follow it (messages before the first user
message form a round of their own). For each session the working memory keeps:

* **everything** verbatim while the whole history fits in ``context_summarize_ratio`` (default
  60 %) of ``context_window`` tokens;
* past that, **summarise**: the last ``context_recent_rounds`` (default 5) rounds verbatim and
  every older round folded into one summary by a ``Summariser`` (rules offline; an LLM through
  ``PromptSummariser``). Folded messages leave the buffer, so a session's storage stays bounded.

Cross-session facts never come from here: they come from long-term memory (``engine.search``).
Token counts are tiktoken ``cl100k_base`` (``memory_engine.text.count_tokens``) plus
``MESSAGE_OVERHEAD_TOKENS`` per chat message (role and separators, as in OpenAI's chat format).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from memory_engine import text as textmod
from memory_engine.config import Settings
from memory_engine.context.working_store import Message, Role, SessionState, WorkingStore
from memory_engine.security.policy import redact_stored
from memory_engine.text import clean_text

log = logging.getLogger(__name__)

#: Tokens a chat message costs beyond its content (role, separators).
MESSAGE_OVERHEAD_TOKENS = 4
#: Characters of each side of a round kept by the rules summariser.
RULES_SNIPPET_CHARS = 160
#: A compaction that loses a race is retried this many times.
COMPACT_RETRIES = 3

Mode = Literal["everything", "summarise"]


def message_tokens(content: str) -> int:
    """Tokens of one chat message: cl100k tokens of ``content`` + ``MESSAGE_OVERHEAD_TOKENS``."""
    return textmod.count_tokens(content) + MESSAGE_OVERHEAD_TOKENS


def split_rounds(messages: Sequence[Message]) -> list[list[Message]]:
    """Group messages into rounds; each user message starts a new round."""
    rounds: list[list[Message]] = []
    for m in messages:
        if m.role == "user" or not rounds:
            rounds.append([m])
        else:
            rounds[-1].append(m)
    return rounds


class Summariser(Protocol):
    """Folds rounds into a running summary of at most ``max_tokens`` tokens.

    Args:
        previous: the summary so far ("" at first).
        rounds: the rounds to add, oldest first.
        first_round: 1-based number of ``rounds[0]`` in the session.
        max_tokens: token budget of the returned summary (cl100k).
    """

    def __call__(
        self,
        previous: str,
        rounds: Sequence[Sequence[Message]],
        *,
        first_round: int,
        max_tokens: int,
    ) -> str: ...


_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")


def _snippet(text: str, limit: int = RULES_SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    first = _SENTENCE_END.split(flat, maxsplit=1)[0] or flat
    if len(first) > limit:
        first = first[: limit - 1].rstrip() + "…"
    return first


_OMITTED = re.compile(r"^\((\d+) earlier summary lines omitted\)$")


def _fit_lines(lines: list[str], max_tokens: int, omitted_before: int = 0) -> str:
    """Keep the newest lines that fit ``max_tokens``, noting how many older ones were dropped."""
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        cost = textmod.count_tokens(line + "\n")
        if used + cost > max_tokens - 12:  # room for the "omitted" note
            break
        kept.append(line)
        used += cost
    kept.reverse()
    omitted = omitted_before + len(lines) - len(kept)
    if omitted:
        kept.insert(0, f"({omitted} earlier summary lines omitted)")
    return textmod.truncate_to_tokens("\n".join(kept), max_tokens)


def rules_summariser(
    previous: str, rounds: Sequence[Sequence[Message]], *, first_round: int, max_tokens: int
) -> str:
    """Offline, deterministic summary: one line per round with the first sentence of each side.

    Line format: ``- round N (YYYY-MM-DD HH:MM UTC) user: <first sentence> | assistant: <...>``,
    each side cut to ``RULES_SNIPPET_CHARS`` characters. Works for any language (CJK sentence
    ends included). When the summary passes ``max_tokens``, the oldest lines are dropped first.
    """
    lines, omitted = [], 0
    for ln in previous.splitlines():
        if match := _OMITTED.match(ln):
            omitted += int(match.group(1))
        elif ln:
            lines.append(ln)
    for offset, rnd in enumerate(rounds):
        parts = []
        for role in ("user", "assistant"):
            said = [m.content for m in rnd if m.role == role]
            if said:
                parts.append(f"{role}: {_snippet(' '.join(said))}")
        when = rnd[0].at.strftime("%Y-%m-%d %H:%M UTC")
        lines.append(f"- round {first_round + offset} ({when}) " + " | ".join(parts))
    return _fit_lines(lines, max_tokens, omitted)


SUMMARY_PROMPT = (
    "Update the running summary of a conversation. Keep facts, decisions, open questions and "
    "user preferences; drop greetings and filler. Write in the conversation's language. Reply "
    "with the summary only, at most {max_tokens} tokens.\n\n"
    "Current summary:\n{previous}\n\nNew turns:\n{turns}"
)


class PromptSummariser:
    """An LLM summariser behind the ``Summariser`` seam.

    Args:
        complete: any text completion function (prompt -> reply), e.g. a wrapper over the
            engine's LLM client; it is called once per compaction.
        fallback: used when ``complete`` raises or replies with nothing (default: rules).
    """

    def __init__(
        self, complete: Callable[[str], str], fallback: Summariser = rules_summariser
    ) -> None:
        self._complete = complete
        self._fallback = fallback

    def __call__(
        self,
        previous: str,
        rounds: Sequence[Sequence[Message]],
        *,
        first_round: int,
        max_tokens: int,
    ) -> str:
        turns = "\n".join(f"{m.role}: {m.content}" for rnd in rounds for m in rnd)
        prompt = SUMMARY_PROMPT.format(
            max_tokens=max_tokens, previous=previous or "(none)", turns=turns
        )
        try:
            reply = (self._complete(prompt) or "").strip()
        except Exception as exc:  # any LLM failure falls back to the offline summary
            log.warning("LLM summary failed (%s); using the rules summary", exc)
            reply = ""
        if not reply:
            return self._fallback(previous, rounds, first_round=first_round, max_tokens=max_tokens)
        return textmod.truncate_to_tokens(reply, max_tokens)


class WorkingView(BaseModel):
    """What the model should see of one session's history.

    ``summary`` covers ``summarized_rounds`` older rounds ("" in mode ``everything``);
    ``recent`` are the verbatim messages; ``history_tokens`` is the size of the whole history
    (folded rounds included) and ``threshold_tokens`` the size at which summarising starts.
    """

    model_config = ConfigDict(frozen=True)

    session_id: str
    mode: Mode
    summary: str = ""
    recent: list[Message] = Field(default_factory=list)
    summarized_rounds: int = 0
    total_rounds: int = 0
    history_tokens: int = 0
    threshold_tokens: int = 0


class WorkingMemory:
    """Session buffers over a ``WorkingStore`` with the everything/summarise policy.

    Args:
        store: the backend (in-process or Redis).
        settings: ``context_window``, ``context_summarize_ratio``, ``context_recent_rounds``,
            ``context_summary_max_tokens``, ``max_input_chars``.
        summariser: folds old rounds (default ``rules_summariser``).
    """

    def __init__(
        self, store: WorkingStore, settings: Settings, summariser: Summariser | None = None
    ) -> None:
        self.store = store
        self.settings = settings
        self.summariser: Summariser = summariser or rules_summariser

    @property
    def threshold_tokens(self) -> int:
        """History size (tokens) above which older rounds are summarised."""
        s = self.settings
        return int(s.context.window * s.context.summarize_ratio)

    def add(self, tenant_id: str, session_id: str, role: Role, content: str) -> Message:
        """Append one message (cleaned by the write guard), then compact when needed.

        Raises:
            InvalidInputError (bad role or ids), EmptyContentError, ContentTooLargeError.
        """
        return self.add_many(tenant_id, session_id, [(role, content)])[0]

    def add_many(
        self, tenant_id: str, session_id: str, turns: Sequence[tuple[Role, str]]
    ) -> list[Message]:
        """Append several messages at once (all validated first; none stored on an error)."""
        from memory_engine.errors import InvalidInputError

        msgs = []
        for role, content in turns:
            if role not in ("user", "assistant"):
                raise InvalidInputError("role must be 'user' or 'assistant'", role=role)
            text = clean_text(
                content, max_chars=self.settings.write.max_input_chars, field="content"
            )
            # kept in the working store: the PII redaction pass of every stored text
            text = redact_stored(text, tenant_id=tenant_id, settings=self.settings)
            msgs.append(Message(role=role, content=text))
        if msgs:
            self.store.append(tenant_id, session_id, msgs)
            self.compact(tenant_id, session_id)
        return msgs

    def _plan(self, state: SessionState) -> tuple[Mode, list[list[Message]], list[list[Message]]]:
        rounds = split_rounds(state.messages)
        history = state.summarized_tokens + sum(message_tokens(m.content) for m in state.messages)
        if state.summarized_rounds == 0 and history <= self.threshold_tokens:
            return "everything", [], rounds
        keep = self.settings.context.recent_rounds
        return "summarise", rounds[:-keep] if len(rounds) > keep else [], rounds[-keep:]

    def compact(self, tenant_id: str, session_id: str) -> SessionState:
        """Fold rounds older than the recent ones into the summary (when summarising)."""
        for _ in range(COMPACT_RETRIES):
            state = self.store.load(tenant_id, session_id)
            mode, old, _ = self._plan(state)
            if mode == "everything" or not old:
                return state
            summary = self.summariser(
                state.summary,
                old,
                first_round=state.summarized_rounds + 1,
                max_tokens=self.settings.context.summary_max_tokens,
            )
            folded = [m for rnd in old for m in rnd]
            if self.store.compact(
                tenant_id,
                session_id,
                expected_version=state.version,
                drop=len(folded),
                summary=summary,
                summarized_rounds=state.summarized_rounds + len(old),
                summarized_tokens=state.summarized_tokens
                + sum(message_tokens(m.content) for m in folded),
            ):
                return self.store.load(tenant_id, session_id)
        return self.store.load(tenant_id, session_id)

    def view(self, tenant_id: str, session_id: str) -> WorkingView:
        """The session as the model should see it (compacting first when needed)."""
        state = self.compact(tenant_id, session_id)
        mode, old, recent = self._plan(state)
        summary = state.summary
        summarized = state.summarized_rounds
        if old:  # compaction lost every race: summarise in memory, do not store
            summary = self.summariser(
                summary,
                old,
                first_round=summarized + 1,
                max_tokens=self.settings.context.summary_max_tokens,
            )
            summarized += len(old)
        return WorkingView(
            session_id=session_id,
            mode=mode,
            summary=summary,
            recent=[m for rnd in recent for m in rnd],
            summarized_rounds=summarized,
            total_rounds=summarized + len(recent),
            history_tokens=state.summarized_tokens
            + sum(message_tokens(m.content) for m in state.messages),
            threshold_tokens=self.threshold_tokens,
        )

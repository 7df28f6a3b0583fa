"""Write-decision LLM over any OpenAI-compatible ``/v1/chat/completions`` endpoint.

Works with OpenAI, DeepSeek, Qwen/DashScope, Ollama, vLLM. Output format negotiation
(``llm.formats``): JSON schema (structured outputs) first; an endpoint that rejects the
``response_format`` with HTTP 400 is asked in JSON mode next, then in plain text; the step down
is kept for the model for a while, then re-checked. A 400 about anything else never changes
the format. Whatever the mode, the answer goes through the tolerant parser (``llm.parse``:
``<think>`` blocks, fences and prose around the JSON are ignored; so is a separate
``reasoning_content`` field), and every item is validated.

What an answer can be, and what happens:

* a ``refusal`` with no content: ``LLMRefusalError`` at once (nothing stored, input kept);
* ``finish_reason: "length"`` (output cut off): asked once more with a larger ``max_tokens``
  (at least ``TRUNCATION_RETRY_TOKENS``), then ``LLMOutputTruncatedError``;
* unparseable output (empty, wrong shape): asked again up to ``parse_attempts`` requests,
  then ``ExtractionFailedError``;
* HTTP 400 "context length exceeded": the input is shrunk once (an extract input split into
  two halves, each extracted; a judge shown half the candidates), then
  ``LLMContextLengthError``;
* HTTP 401/403: ``LLMConfigError`` naming ``MEMORY_LLM_API_KEY`` / ``MEMORY_LLM_BASE_URL`` /
  ``MEMORY_LLM_MODEL``, never retried.

Client construction and retries are shared with the embedder (``memory_engine.llm.transport``:
bounded attempts, exponential backoff with jitter, ``Retry-After`` honoured up to the cap, on
429, 408/409, 5xx and connection errors/timeouts). Token usage and latency are recorded per
call in ``LLMCall``, and every response's ``usage`` is reported to the current write's meter
(``llm.usage``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import openai

from memory_engine import text as textmod
from memory_engine.errors import (
    ExtractionFailedError,
    LLMConfigError,
    LLMContextLengthError,
    LLMError,
    LLMOutputTruncatedError,
    LLMRefusalError,
)
from memory_engine.llm import usage
from memory_engine.llm.base import ExtractInput, JudgeCandidate
from memory_engine.llm.formats import (
    MODES,
    FormatChoice,
    exceeds_context,
    rejects_response_format,
    response_format,
)
from memory_engine.llm.parse import (
    OutputParseError,
    parse_extraction,
    parse_judgement,
    parse_merge,
)
from memory_engine.llm.prompts import extract_messages, judge_messages, merge_messages
from memory_engine.llm.schemas import (
    Extraction,
    Fact,
    Judgement,
    LLMCall,
    extraction_json_schema,
    judgement_json_schema,
    merge_json_schema,
)
from memory_engine.llm.transport import OpenAIEndpoint

__all__ = ["TRUNCATION_RETRY_TOKENS", "OpenAICompatLLM"]

#: Smallest ``max_tokens`` of the one retry after an output cut off by ``finish_reason: length``.
TRUNCATION_RETRY_TOKENS = 4096
#: Shortest extract input (characters) that is split in two after a context-length 400.
MIN_SPLIT_CHARS = 40

_SETTINGS_HINT = "MEMORY_LLM_API_KEY, MEMORY_LLM_BASE_URL and MEMORY_LLM_MODEL"
T = TypeVar("T")


def _chat(kwargs: dict[str, Any]) -> Callable[[openai.OpenAI], Any]:
    """One chat-completions request with ``kwargs``, for ``OpenAIEndpoint.call``."""
    return lambda client: client.chat.completions.create(**kwargs)


def _answer(response: Any) -> tuple[str, str, str, int, int]:
    """``(content, refusal, finish_reason, prompt_tokens, completion_tokens)`` of a chat
    completion; missing parts are empty / 0. ``reasoning_content`` is not read."""
    try:
        choice = response.choices[0]
        message = choice.message
    except (AttributeError, IndexError, TypeError):
        choice = message = None
    content = getattr(message, "content", None) or ""
    refusal = getattr(message, "refusal", None) or ""
    finish = getattr(choice, "finish_reason", None) or ""
    used = getattr(response, "usage", None)
    prompt = int(getattr(used, "prompt_tokens", 0) or 0)
    completion = int(getattr(used, "completion_tokens", 0) or 0)
    return str(content), str(refusal), str(finish), prompt, completion


class OpenAICompatLLM:
    """``WriteLLM`` over an OpenAI-compatible chat endpoint.

    Args:
        base_url: endpoint base URL (the part before ``/chat/completions``).
        model: chat model name.
        api_key: bearer key; None sends ``"not-needed"``.
        timeout: seconds per HTTP request.
        max_attempts: tries per request on transient errors, first included (>= 1).
        parse_attempts: requests per call while the output stays unparseable (>= 1).
        response_format: ``auto`` or one fixed mode (json_schema, json_object, text).
        max_output_tokens: ``max_tokens`` of each request (None = the endpoint's default);
            a cut-off answer is asked again once with at least ``TRUNCATION_RETRY_TOKENS``.
        format_recheck_seconds: how long a response-format step down holds before the best
            format is tried again (>= 0).
        backoff_initial: first backoff in seconds, doubled per retry (+ up to 25 % jitter).
        backoff_max: cap of one backoff and of ``Retry-After``, in seconds.
        client: a ready ``openai.OpenAI`` client (should have ``max_retries=0``).

    Raises:
        ValueError: an argument is out of range or names an unknown format.
    """

    name = "openai_compat"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_attempts: int = 4,
        parse_attempts: int = 2,
        response_format: str = "auto",
        max_output_tokens: int | None = None,
        format_recheck_seconds: float = 600.0,
        backoff_initial: float = 0.5,
        backoff_max: float = 8.0,
        client: openai.OpenAI | None = None,
    ) -> None:
        if parse_attempts < 1:
            raise ValueError("parse_attempts must be >= 1")
        if max_output_tokens is not None and max_output_tokens < 1:
            raise ValueError("max_output_tokens must be >= 1")
        if response_format != "auto" and response_format not in MODES:
            raise ValueError(f"unknown response_format {response_format!r}")
        self._endpoint = OpenAIEndpoint(
            base_url=base_url,
            model=model,
            kind="chat",
            error=LLMError,
            api_key=api_key,
            timeout=timeout,
            max_attempts=max_attempts,
            backoff_initial=backoff_initial,
            backoff_max=backoff_max,
            client=client,
            auth_error=LLMConfigError,
            settings_hint=_SETTINGS_HINT,
        )
        self.model = model
        self.base_url = base_url
        self._parse_attempts = parse_attempts
        self._max_tokens = max_output_tokens
        self._formats = FormatChoice(
            None if response_format == "auto" else response_format,
            recheck_seconds=format_recheck_seconds,
        )

    # ------------------------------------------------------------------ transport

    def _create(
        self,
        messages: list[dict[str, str]],
        name: str,
        schema: dict[str, Any],
        max_tokens: int | None,
    ) -> tuple[Any, str, int]:
        """One completion: retries transient errors; steps down the format only on a 400
        about ``response_format``.

        Raises:
            LLMContextLengthError: a 400 saying the prompt exceeds the context window.
            LLMConfigError: HTTP 401/403.
            LLMError: any other failure after retries.
        """
        attempts = 0
        mode = self._formats.current()
        while True:
            kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
            fmt = response_format(mode, name, schema)
            if fmt is not None:
                kwargs["response_format"] = fmt
            if max_tokens is not None:
                kwargs["max_tokens"] = max_tokens
            try:
                response, used = self._endpoint.call(_chat(kwargs), prior_attempts=attempts)
                return response, mode, attempts + used
            except LLMConfigError:
                raise
            except LLMError as exc:
                attempts = int(exc.details["attempts"])
                if exceeds_context(exc.__cause__):
                    raise LLMContextLengthError(
                        f"the prompt exceeds the context window of model {self.model!r}: "
                        f"{exc.__cause__}",
                        model=self.model,
                        base_url=self.base_url,
                        status=400,
                        attempts=attempts,
                    ) from exc.__cause__
                nxt = (
                    self._formats.rejected(mode) if rejects_response_format(exc.__cause__) else None
                )
                if nxt is None:
                    raise
                mode = nxt

    def _call(
        self,
        kind: str,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        parse: Callable[[str], tuple[T, list[str]]],
    ) -> tuple[T, LLMCall]:
        started = time.perf_counter()
        prompt_tokens = completion_tokens = attempts = 0
        raw = mode = ""
        problems: list[str] = []
        max_tokens = self._max_tokens
        truncated_once = False
        unparsed = 0

        def spent() -> dict[str, Any]:
            return {
                "model": self.model,
                "latency_ms": round((time.perf_counter() - started) * 1000.0, 1),
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "attempts": attempts,
            }

        while True:
            response, mode, used = self._create(messages, f"memory_{kind}", schema, max_tokens)
            attempts += used
            raw, refusal, finish, p_tokens, c_tokens = _answer(response)
            prompt_tokens += p_tokens
            completion_tokens += c_tokens
            usage.record(p_tokens, c_tokens)
            if refusal and not raw.strip():
                raise LLMRefusalError(
                    f"model {self.model!r} refused the {kind} request: {refusal[:200]}",
                    refusal=refusal[:500],
                    **spent(),
                )
            if finish == "length":  # cut off: whatever parses is incomplete, never use it
                if truncated_once:
                    raise LLMOutputTruncatedError(
                        f"{kind} output of model {self.model!r} still cut off at "
                        f"max_tokens={max_tokens} (finish_reason length); raise "
                        "MEMORY_LLM_MAX_OUTPUT_TOKENS or shorten the input",
                        raw_output=raw[:2000],
                        max_tokens=max_tokens,
                        **spent(),
                    )
                truncated_once = True
                max_tokens = max(TRUNCATION_RETRY_TOKENS, 2 * (max_tokens or c_tokens))
                problems.append(
                    f"output cut off after {c_tokens} tokens (finish_reason length): "
                    f"asked again with max_tokens={max_tokens}"
                )
                continue
            try:
                parsed, warnings = parse(raw)
            except OutputParseError as exc:
                problems.append(str(exc))
                unparsed += 1
                if unparsed >= self._parse_attempts:
                    raise ExtractionFailedError(
                        f"{kind} output unusable after {unparsed} request(s): "
                        + "; ".join(problems),
                        raw_output=raw[:2000],
                        **spent(),
                    ) from exc
                continue
            call = LLMCall(
                kind=kind,
                provider=self.name,
                model=self.model,
                prompt=messages,
                raw_output=raw,
                parsed=parsed.model_dump(mode="json"),  # type: ignore[attr-defined]
                latency_ms=(time.perf_counter() - started) * 1000.0,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                attempts=attempts,
                response_format=mode,
                warnings=problems + warnings,
            )
            return parsed, call

    # ------------------------------------------------------------------ WriteLLM

    def _extract_once(self, item: ExtractInput) -> tuple[Extraction, LLMCall]:
        return self._call(
            "extract", extract_messages(item), extraction_json_schema(), parse_extraction
        )

    def extract(self, item: ExtractInput) -> tuple[Extraction, LLMCall]:
        """Evaluate + extract in one call (see ``WriteLLM.extract``); an input over the
        model's context window is split once into two parts of at most 60 % of it each
        (sentence-aligned; a long sentence is cut at clauses), each extracted, facts in order.

        Raises:
            LLMContextLengthError: a half still exceeds the context window (or the input is
                too short to split).
            LLMRefusalError, LLMOutputTruncatedError, ExtractionFailedError, LLMError: as
                described in the module docstring.
        """
        try:
            return self._extract_once(item)
        except LLMContextLengthError as exc:
            if len(item.text) < MIN_SPLIT_CHARS:
                raise self._too_long(exc, item.text, split=False) from exc
            most = max(MIN_SPLIT_CHARS // 2 + 1, -(-len(item.text) * 3 // 5))  # 60 %, rounded up
            pieces = textmod.chunk_text(item.text, min_chars=most // 3, max_chars=most)
            results: list[tuple[Extraction, LLMCall]] = []
            for piece in pieces:
                try:
                    results.append(self._extract_once(item.model_copy(update={"text": piece})))
                except LLMContextLengthError as again:
                    raise self._too_long(again, item.text, split=True) from again
            note = (
                f"input of {len(item.text)} characters over the context window of model "
                f"{self.model!r}: extracted in {len(pieces)} parts"
            )
            return _joined(results, note)

    def _too_long(
        self, exc: LLMContextLengthError, text: str, *, split: bool
    ) -> LLMContextLengthError:
        how = "even split in two halves" if split else "and is too short to split"
        return LLMContextLengthError(
            f"input of {len(text)} characters exceeds the context window of model "
            f"{self.model!r} {how}; shorten the input or use a model with a longer context",
            **{**exc.details, "input_chars": len(text)},
        )

    def judge(
        self, fact: Fact, candidates: list[JudgeCandidate], item: ExtractInput
    ) -> tuple[Judgement, LLMCall]:
        """Judge ``fact`` against the shown candidates (see ``WriteLLM.judge``); over the
        context window, asked once more with the first half of the candidates (best first).

        Raises:
            LLMContextLengthError: still too long with half the candidates.
        """

        def ask(shown: list[JudgeCandidate]) -> tuple[Judgement, LLMCall]:
            return self._call(
                "judge",
                judge_messages(fact, shown, item),
                judgement_json_schema(),
                lambda raw: parse_judgement(raw, len(shown)),
            )

        try:
            return ask(candidates)
        except LLMContextLengthError:
            if len(candidates) < 2:
                raise
            judgement, call = ask(candidates[: len(candidates) // 2])
            note = f"judge prompt over the context window: {len(candidates) // 2} of {len(candidates)} candidates shown"
            return judgement, call.model_copy(update={"warnings": [note, *call.warnings]})

    def merge(self, contents: list[str]) -> tuple[str, LLMCall]:
        """Merge near-duplicates into one fact (see ``WriteLLM.merge``)."""
        merged, call = self._call(
            "merge", merge_messages(contents), merge_json_schema(), parse_merge
        )
        return merged.content, call

    def close(self) -> None:
        """Close the HTTP client."""
        self._endpoint.close()


def _joined(results: list[tuple[Extraction, LLMCall]], note: str) -> tuple[Extraction, LLMCall]:
    """One extraction and one call record of the parts of a split input (facts in order,
    remembered when any part is; tokens, attempts and latency added up)."""
    kept = [e for e, _ in results if e.should_remember] or [e for e, _ in results]
    extraction = Extraction(
        should_remember=any(e.should_remember for e, _ in results),
        reason="; ".join(dict.fromkeys(e.reason for e in kept if e.reason)),
        facts=tuple(f for e, _ in results if e.should_remember for f in e.facts),
    )
    calls = [c for _, c in results]
    first = calls[0]
    call = first.model_copy(
        update={
            "prompt": [m for c in calls for m in c.prompt],
            "raw_output": "\n".join(c.raw_output for c in calls),
            "parsed": extraction.model_dump(mode="json"),
            "latency_ms": sum(c.latency_ms for c in calls),
            "prompt_tokens": sum(c.prompt_tokens for c in calls),
            "completion_tokens": sum(c.completion_tokens for c in calls),
            "attempts": sum(c.attempts for c in calls),
            "warnings": [note, *(w for c in calls for w in c.warnings)],
        }
    )
    return extraction, call

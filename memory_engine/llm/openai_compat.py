"""Write-decision LLM over any OpenAI-compatible ``/v1/chat/completions`` endpoint.

Works with OpenAI, DeepSeek, Qwen/DashScope, Ollama, vLLM. Output format negotiation: JSON
schema (structured outputs) first; an endpoint that rejects it with HTTP 400 is asked in JSON
mode next, then in plain text; the mode that worked is kept for the next calls. Whatever the
mode, the answer goes through the tolerant parser (``llm.parse``), and every item is validated.

Client construction and retries are shared with the embedder (``memory_engine.llm.transport``:
bounded attempts, exponential backoff with jitter, ``Retry-After`` honoured up to the cap, on
429, 408/409, 5xx and connection errors/timeouts). Output that cannot be
parsed (empty, truncated, wrong shape) is asked again up to ``parse_attempts`` times, then
``ExtractionFailedError``. Token usage and latency are recorded per call in ``LLMCall``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import openai

from memory_engine.errors import ExtractionFailedError, LLMError
from memory_engine.llm.base import ExtractInput, JudgeCandidate
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

__all__ = ["OpenAICompatLLM"]

_MODES = ("json_schema", "json_object", "text")
T = TypeVar("T")


def _chat(kwargs: dict[str, Any]) -> Callable[[openai.OpenAI], Any]:
    """One chat-completions request with ``kwargs``, for ``OpenAIEndpoint.call``."""
    return lambda client: client.chat.completions.create(**kwargs)


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
        backoff_initial: first backoff in seconds, doubled per retry (+ up to 25 % jitter).
        backoff_max: cap of one backoff and of ``Retry-After``, in seconds.
        client: a ready ``openai.OpenAI`` client (should have ``max_retries=0``).
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
        backoff_initial: float = 0.5,
        backoff_max: float = 8.0,
        client: openai.OpenAI | None = None,
    ) -> None:
        if parse_attempts < 1:
            raise ValueError("parse_attempts must be >= 1")
        if response_format != "auto" and response_format not in _MODES:
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
        )
        self.model = model
        self.base_url = base_url
        self._parse_attempts = parse_attempts
        self._fixed = response_format != "auto"
        self._mode_index = 0 if response_format == "auto" else _MODES.index(response_format)
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ transport

    def _format(self, mode: str, name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
        if mode == "json_schema":
            return {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": True},
            }
        if mode == "json_object":
            return {"type": "json_object"}
        return None

    def _create(
        self, messages: list[dict[str, str]], name: str, schema: dict[str, Any]
    ) -> tuple[Any, str, int]:
        """One completion: retries transient errors, steps down the format on HTTP 400."""
        attempts = 0
        while True:
            mode = _MODES[self._mode_index]
            kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
            fmt = self._format(mode, name, schema)
            if fmt is not None:
                kwargs["response_format"] = fmt
            try:
                response, used = self._endpoint.call(_chat(kwargs), prior_attempts=attempts)
                return response, mode, attempts + used
            except LLMError as exc:
                attempts = int(exc.details["attempts"])
                rejected = isinstance(exc.__cause__, openai.BadRequestError)
                if not rejected or self._fixed or mode == _MODES[-1]:
                    raise
                with self._lock:  # the endpoint lacks this mode: use the next one from now on
                    self._mode_index = max(self._mode_index, _MODES.index(mode) + 1)

    def _call(
        self,
        kind: str,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        parse: Callable[[str], tuple[T, list[str]]],
    ) -> tuple[T, LLMCall]:
        started = time.perf_counter()
        prompt_tokens = completion_tokens = attempts = 0
        raw = ""
        mode = ""
        problems: list[str] = []
        for _ in range(self._parse_attempts):
            response, mode, used = self._create(messages, f"memory_{kind}", schema)
            attempts += used
            usage = getattr(response, "usage", None)
            prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
            completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
            try:
                raw = response.choices[0].message.content or ""
            except (AttributeError, IndexError, TypeError):
                raw = ""
            try:
                parsed, warnings = parse(raw)
            except OutputParseError as exc:
                problems.append(str(exc))
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
        raise ExtractionFailedError(
            f"{kind} output unusable after {self._parse_attempts} request(s): "
            + "; ".join(problems),
            model=self.model,
            raw_output=raw[:2000],
            latency_ms=round((time.perf_counter() - started) * 1000.0, 1),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )

    # ------------------------------------------------------------------ WriteLLM

    def extract(self, item: ExtractInput) -> tuple[Extraction, LLMCall]:
        """Evaluate + extract in one call (see ``WriteLLM.extract``)."""
        return self._call(
            "extract", extract_messages(item), extraction_json_schema(), parse_extraction
        )

    def judge(
        self, fact: Fact, candidates: list[JudgeCandidate], item: ExtractInput
    ) -> tuple[Judgement, LLMCall]:
        """Judge ``fact`` against the shown candidates (see ``WriteLLM.judge``)."""
        shown = len(candidates)
        return self._call(
            "judge",
            judge_messages(fact, candidates, item),
            judgement_json_schema(),
            lambda raw: parse_judgement(raw, shown),
        )

    def merge(self, contents: list[str]) -> tuple[str, LLMCall]:
        """Merge near-duplicates into one fact (see ``WriteLLM.merge``)."""
        merged, call = self._call(
            "merge", merge_messages(contents), merge_json_schema(), parse_merge
        )
        return merged.content, call

    def close(self) -> None:
        """Close the HTTP client."""
        self._endpoint.close()

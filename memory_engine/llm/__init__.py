"""Write-decision LLMs: ``rules`` (offline default) and ``openai_compat`` (any chat endpoint)."""

from __future__ import annotations

from memory_engine.config import Settings
from memory_engine.llm.base import ExtractInput, JudgeCandidate, WriteLLM
from memory_engine.llm.schemas import Extraction, Fact, JudgeDecision, Judgement, LLMCall

__all__ = [
    "ExtractInput",
    "Extraction",
    "Fact",
    "JudgeCandidate",
    "JudgeDecision",
    "Judgement",
    "LLMCall",
    "WriteLLM",
    "build_llm",
]


def build_llm(settings: Settings) -> WriteLLM:
    """The provider named by ``MEMORY_LLM_PROVIDER`` (``rules`` needs nothing else)."""
    if settings.llm.provider == "openai_compat":
        from memory_engine.llm.openai_compat import OpenAICompatLLM

        key = settings.llm.api_key.get_secret_value() if settings.llm.api_key else None
        return OpenAICompatLLM(
            base_url=str(settings.llm.base_url),
            model=str(settings.llm.model),
            api_key=key,
            timeout=settings.llm.timeout,
            max_attempts=settings.llm.max_attempts,
            response_format=settings.llm.response_format,
            max_output_tokens=settings.llm.max_output_tokens,
        )
    from memory_engine.llm.rules import RulesLLM

    return RulesLLM()

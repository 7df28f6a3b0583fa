"""``OpenAICompatLLM`` through the stub server and the real ``openai`` client: structured
output negotiation, retries, token and latency accounting, docs/architecture.md#f4-malformed-output outputs."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from memory_engine.errors import ExtractionFailedError, LLMError
from memory_engine.llm.base import ExtractInput, JudgeCandidate
from memory_engine.llm.openai_compat import OpenAICompatLLM
from memory_engine.llm.prompts import CANARY
from memory_engine.llm.schemas import Fact
from tests.support.openai_stub import OpenAIStub

ITEM = ExtractInput(text="我喜欢川菜", observed_at=datetime(2023, 5, 24, 12, tzinfo=UTC))
GOOD = json.dumps(
    {
        "should_remember": True,
        "reason": "preference",
        "facts": [{"content": "用户喜欢川菜", "memory_type": "semantic", "tags": ["preference"]}],
    },
    ensure_ascii=False,
)


def make(stub: OpenAIStub, **kw: object) -> OpenAICompatLLM:
    return OpenAICompatLLM(
        base_url=stub.base_url, model="stub-chat", backoff_initial=0.01, backoff_max=0.05, **kw
    )


def test_structured_output_request_and_accounting(stub: OpenAIStub) -> None:
    stub.script_chat(GOOD)
    extraction, call = make(stub).extract(ITEM)
    assert [f.content for f in extraction.facts] == ["用户喜欢川菜"]
    body = stub.chat_bodies()[0]
    assert body["model"] == "stub-chat"
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["required"] == [
        "should_remember",
        "reason",
        "facts",
    ]
    assert body["messages"][1]["content"].endswith("我喜欢川菜")
    assert "2023-05-24T12:00:00+00:00" in body["messages"][1]["content"]
    assert CANARY in body["messages"][0]["content"]  # few-shot examples carry the canary
    assert call.response_format == "json_schema"
    assert call.prompt_tokens > 0 and call.completion_tokens > 0
    assert call.latency_ms > 0 and call.attempts == 1
    assert call.raw_output == GOOD and call.parsed is not None


def test_falls_back_to_json_mode_then_text_and_remembers(stub: OpenAIStub) -> None:
    stub.reject_response_format("json_schema", "json_object")
    llm = make(stub)
    stub.script_chat(f"```json\n{GOOD}\n```", GOOD)
    _, call = llm.extract(ITEM)
    assert call.response_format == "text"
    kinds = [b.get("response_format", {}).get("type") for b in stub.chat_bodies()]
    assert kinds == ["json_schema", "json_object", None]
    _, call2 = llm.extract(ITEM)  # the working mode is kept: one request
    assert call2.response_format == "text"
    assert len(stub.chat_bodies()) == 4


@pytest.mark.parametrize("status", [429, 500, 503])
def test_transient_errors_are_retried(stub: OpenAIStub, status: int) -> None:
    stub.fail_next(2, status=status, path="/v1/chat/completions")
    stub.script_chat(GOOD)
    extraction, call = make(stub, max_attempts=3).extract(ITEM)
    assert extraction.should_remember and call.attempts == 3


def test_retries_run_out_gives_llm_error(stub: OpenAIStub) -> None:
    stub.fail_next(5, status=503, path="/v1/chat/completions")
    with pytest.raises(LLMError) as info:
        make(stub, max_attempts=2).extract(ITEM)
    assert info.value.details["attempts"] == 2


def test_timeout_is_retried(stub: OpenAIStub) -> None:
    stub.latency = 0.5
    with pytest.raises(LLMError, match="Timeout") as info:
        make(stub, max_attempts=2, timeout=0.1).extract(ITEM)
    assert info.value.details["attempts"] == 2


@pytest.mark.parametrize(
    "reply",
    [
        f"<think>用户说喜欢川菜，应该记住。</think>{GOOD}",
        f"```json\n{GOOD}\n```",
        f"{GOOD}\nThat is all I found.",
    ],
)
def test_wrapped_outputs_parse_first_time(stub: OpenAIStub, reply: str) -> None:
    stub.script_chat(reply)
    extraction, call = make(stub).extract(ITEM)
    assert [f.content for f in extraction.facts] == ["用户喜欢川菜"]
    assert call.attempts == 1


@pytest.mark.parametrize("bad", ["", '{"should_remember": true, "facts": [{"content": "用户'])
def test_empty_or_truncated_output_retried_once_then_ok(stub: OpenAIStub, bad: str) -> None:
    stub.script_chat(bad, GOOD)
    extraction, call = make(stub).extract(ITEM)
    assert extraction.facts[0].content == "用户喜欢川菜"
    assert call.attempts == 2 and call.warnings  # the first problem is recorded


def test_unusable_output_gives_extraction_failed(stub: OpenAIStub) -> None:
    stub.script_chat("", "still not json")
    with pytest.raises(ExtractionFailedError) as info:
        make(stub, parse_attempts=2).extract(ITEM)
    assert info.value.code == "extraction_failed"
    assert info.value.details["raw_output"] == "still not json"


def test_missing_key_item_skipped(stub: OpenAIStub) -> None:
    stub.script_chat(
        '{"should_remember": true, "reason": "", "facts": [{"content": "用户喜欢川菜"},'
        ' {"importance": 0.5}]}'
    )
    extraction, call = make(stub).extract(ITEM)
    assert len(extraction.facts) == 1
    assert any("fact 1 skipped" in w for w in call.warnings)


def test_judge_sends_indexes_only_and_drops_unknown(stub: OpenAIStub) -> None:
    stub.script_chat(
        '{"decisions": [{"candidate": 12, "relation": "contradicts", "reason": "x"},'
        ' {"candidate": 0, "relation": "contradicts", "reason": "changed"}]}'
    )
    cands = [
        JudgeCandidate(index=i, content=f"memory {i}", memory_type="semantic") for i in range(5)
    ]
    judgement, call = make(stub).judge(Fact(content="用户喜欢川菜"), cands, ITEM)
    assert [(d.candidate, d.relation) for d in judgement.decisions] == [(0, "contradicts")]
    assert any("candidate 12 was not shown" in w for w in call.warnings)
    sent = stub.chat_bodies()[0]["messages"][1]["content"]
    assert '"index": 4' in sent and "indexes 0-4" in sent

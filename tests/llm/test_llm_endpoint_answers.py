"""``OpenAICompatLLM`` against the answers real endpoints give besides a clean JSON reply:
refusals, cut-off output, reasoning fields and blocks, 401/403, 400 for an over-long prompt,
400 about ``response_format`` versus any other 400 (stub server, real ``openai`` client).
The same cases through the whole engine: tests/write/test_write_llm_endpoint.py."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from memory_engine.errors import (
    LLMConfigError,
    LLMContextLengthError,
    LLMError,
    LLMOutputTruncatedError,
    LLMRefusalError,
)
from memory_engine.llm.base import ExtractInput, JudgeCandidate
from memory_engine.llm.formats import FormatChoice
from memory_engine.llm.openai_compat import TRUNCATION_RETRY_TOKENS, OpenAICompatLLM
from memory_engine.llm.prompts import extract_messages, judge_messages
from memory_engine.llm.schemas import Fact
from memory_engine.llm.usage import metering
from tests.support.openai_stub import ChatAnswer, OpenAIStub

ITEM = ExtractInput(text="我对花生过敏", observed_at=datetime(2024, 3, 1, 9, tzinfo=UTC))
GOOD = json.dumps(
    {
        "should_remember": True,
        "reason": "health",
        "facts": [{"content": "用户对花生过敏", "memory_type": "semantic", "importance": 0.9}],
    },
    ensure_ascii=False,
)
DECOY = json.dumps({"should_remember": False, "reason": "decoy", "facts": []})


def make(stub: OpenAIStub, **kw: Any) -> OpenAICompatLLM:
    kw.setdefault("max_attempts", 3)
    return OpenAICompatLLM(
        base_url=stub.base_url, model="stub-chat", backoff_initial=0.01, backoff_max=0.05, **kw
    )


def formats(stub: OpenAIStub) -> list[str | None]:
    return [(b.get("response_format") or {}).get("type") for b in stub.chat_bodies()]


def test_refusal_with_null_content_is_a_typed_error_not_retried(stub: OpenAIStub) -> None:
    stub.script_chat(ChatAnswer(content=None, refusal="I can't help with that request."))
    with pytest.raises(LLMRefusalError) as info:
        make(stub).extract(ITEM)
    assert info.value.code == "llm_refusal"
    assert info.value.details["refusal"] == "I can't help with that request."
    assert "refused" in info.value.message
    assert len(stub.chat_bodies()) == 1  # a refusal is an answer: not asked again


def test_cut_off_output_is_asked_again_with_larger_max_tokens(stub: OpenAIStub) -> None:
    stub.limit_output(30)  # the model's default output limit; a request's max_tokens wins
    stub.chat_reply = GOOD
    extraction, call = make(stub).extract(ITEM)
    assert [f.content for f in extraction.facts] == ["用户对花生过敏"]
    first, second = stub.chat_bodies()
    assert "max_tokens" not in first
    assert second["max_tokens"] >= TRUNCATION_RETRY_TOKENS
    assert call.attempts == 2
    assert any("finish_reason length" in w for w in call.warnings)


def test_configured_max_tokens_is_sent_and_doubled_at_least_to_the_retry_floor(
    stub: OpenAIStub,
) -> None:
    stub.limit_output(30)
    stub.chat_reply = GOOD
    make(stub, max_output_tokens=10_000).extract(ITEM)
    assert [b.get("max_tokens") for b in stub.chat_bodies()] == [10_000]  # fits: one request
    stub.reset()
    stub.limit_output(10)
    stub.chat_reply = GOOD
    make(stub, max_output_tokens=10).extract(ITEM)
    assert [b.get("max_tokens") for b in stub.chat_bodies()] == [10, TRUNCATION_RETRY_TOKENS]


def test_output_still_cut_off_gives_truncated_error(stub: OpenAIStub) -> None:
    stub.limit_output(30, honour_max_tokens=False)  # a hard cap of the server
    stub.chat_reply = GOOD
    with pytest.raises(LLMOutputTruncatedError) as info:
        make(stub).extract(ITEM)
    assert info.value.code == "llm_output_truncated"
    assert "MEMORY_LLM_MAX_OUTPUT_TOKENS" in info.value.message
    assert len(stub.chat_bodies()) == 2  # one retry, no more
    assert info.value.details["completion_tokens"] > 0


def test_cut_off_judge_output_is_never_read_as_an_empty_judgement(stub: OpenAIStub) -> None:
    """A cut decisions list would parse as an inner object: it must be asked again."""
    reply = '{"decisions": [{"candidate": 0, "relation": "contradicts", "reason": "moved"}]}'
    stub.limit_output(60)
    stub.chat_reply = reply
    cands = [JudgeCandidate(index=0, content="用户住在上海", memory_type="semantic")]
    judgement, _ = make(stub).judge(Fact(content="用户住在深圳"), cands, ITEM)
    assert [(d.candidate, d.relation) for d in judgement.decisions] == [(0, "contradicts")]


def test_reasoning_content_field_is_ignored(stub: OpenAIStub) -> None:
    stub.script_chat(ChatAnswer(content=GOOD, reasoning_content=f"Let me think. {DECOY}"))
    extraction, call = make(stub).extract(ITEM)
    assert extraction.should_remember and extraction.facts[0].content == "用户对花生过敏"
    assert call.raw_output == GOOD and call.attempts == 1


@pytest.mark.parametrize(
    "content",
    [
        f"<think>The user states an allergy. Draft: {DECOY}</think>\n{GOOD}",
        f"<think>\n多行推理：\n{DECOY}\n</think>```json\n{GOOD}\n```",
        f"reasoning without an opening tag {DECOY}</think>{GOOD}",
    ],
)
def test_think_blocks_are_ignored_and_the_json_after_them_parsed(
    stub: OpenAIStub, content: str
) -> None:
    stub.script_chat(content)
    extraction, call = make(stub).extract(ITEM)
    assert [f.content for f in extraction.facts] == ["用户对花生过敏"]
    assert call.attempts == 1


def test_401_is_a_configuration_error_naming_the_key_setting(stub: OpenAIStub) -> None:
    stub.require_api_key("sk-right")
    with pytest.raises(LLMConfigError) as info:
        make(stub, api_key="sk-wrong").extract(ITEM)
    assert info.value.code == "llm_config_error"
    assert "MEMORY_LLM_API_KEY" in info.value.message
    assert "MEMORY_LLM_BASE_URL" in info.value.message
    assert info.value.details["status"] == 401
    assert len(stub.chat_bodies()) == 1  # never retried
    assert formats(stub) == ["json_schema"]  # nor read as a format problem


def test_403_is_a_configuration_error_naming_the_model(stub: OpenAIStub) -> None:
    stub.fail_next(
        1,
        status=403,
        path="/v1/chat/completions",
        message="You do not have access to the model stub-chat.",
        code="model_not_allowed",
    )
    with pytest.raises(LLMConfigError) as info:
        make(stub).extract(ITEM)
    assert info.value.details["status"] == 403
    assert "stub-chat" in info.value.message and "MEMORY_LLM_MODEL" in info.value.message
    assert len(stub.chat_bodies()) == 1


def _echo_facts(body: dict[str, Any]) -> str:
    """A reply stating one fact per sentence of the input it was sent."""
    text = body["messages"][-1]["content"].split("Input:\n", 1)[1]
    sentences = [s for s in text.split("。") if s.strip()]
    facts = [{"content": f"用户说{s.strip()[:60]}", "memory_type": "semantic"} for s in sentences]
    return json.dumps(
        {"should_remember": True, "reason": "facts", "facts": facts}, ensure_ascii=False
    )


def _window_for(item: ExtractInput, share: float) -> int:
    """A context window that holds the prompt with ``share`` of the input text."""
    full = sum(len(m["content"]) for m in extract_messages(item))
    return full - int(len(item.text) * (1 - share))


def test_context_length_400_splits_the_input_once(stub: OpenAIStub) -> None:
    first = "我对花生过敏，吃了会起疹子，严重的时候需要去医院处理" * 2
    second = "我住在深圳南山区，每天坐地铁去公司上班，通勤大约四十分钟" * 2
    item = ITEM.model_copy(update={"text": f"{first}。{second}。"})
    stub.context_window(_window_for(item, 0.7))
    stub.chat_reply = _echo_facts
    extraction, call = make(stub).extract(item)
    contents = [f.content for f in extraction.facts]
    assert len(contents) == 2 and "花生" in contents[0] and "深圳" in contents[1]
    assert [r.status for r in stub.requests] == [400, 200, 200]
    assert formats(stub) == ["json_schema"] * 3  # a context 400 is not a format problem
    assert any("extracted in 2 parts" in w for w in call.warnings)


def test_context_length_400_that_splitting_cannot_fix_is_a_typed_error(
    stub: OpenAIStub,
) -> None:
    item = ITEM.model_copy(update={"text": "我对花生过敏。" * 20})
    stub.context_window(_window_for(item, 0.0) - 10)  # not even the instructions fit
    stub.chat_reply = _echo_facts
    with pytest.raises(LLMContextLengthError) as info:
        make(stub).extract(item)
    assert info.value.code == "llm_context_length"
    assert "context window" in info.value.message and "stub-chat" in info.value.message
    assert info.value.details["input_chars"] == len(item.text)
    assert [r.status for r in stub.requests] == [400, 400], stub.chat_bodies()


def test_judge_over_the_context_window_is_shown_half_the_candidates(stub: OpenAIStub) -> None:
    cands = [
        JudgeCandidate(
            index=i, content=f"用户的第{i}条记忆：" + "细节" * 60, memory_type="semantic"
        )
        for i in range(6)
    ]
    stub.script_chat('{"decisions": [{"candidate": 0, "relation": "duplicate", "reason": "same"}]}')
    fact = Fact(content="用户的第0条记忆")
    full, half = (
        sum(len(m["content"]) for m in judge_messages(fact, shown, ITEM))
        for shown in (cands, cands[:3])
    )
    stub.context_window((full + half) // 2)
    judgement, call = make(stub).judge(fact, cands, ITEM)
    assert [d.candidate for d in judgement.decisions] == [0]
    second = stub.chat_bodies()[1]["messages"][1]["content"]
    assert "indexes 0-2" in second
    assert any("3 of 6 candidates" in w for w in call.warnings)


def test_other_400_fails_and_leaves_the_format_of_the_next_call(stub: OpenAIStub) -> None:
    llm = make(stub)
    stub.fail_next(
        1,
        status=400,
        path="/v1/chat/completions",
        message="Invalid value for 'temperature': must be between 0 and 2.",
        param="temperature",
    )
    with pytest.raises(LLMError) as info:
        llm.extract(ITEM)
    assert info.value.details["status"] == 400
    assert len(stub.chat_bodies()) == 1  # not retried in another format
    stub.chat_reply = GOOD
    _, call = llm.extract(ITEM)
    assert call.response_format == "json_schema"
    assert formats(stub) == ["json_schema", "json_schema"]
    schema = stub.chat_bodies()[-1]["response_format"]["json_schema"]
    assert schema["name"] == "memory_extract" and schema["strict"] is True


def test_response_format_400_steps_down_and_is_rechecked(stub: OpenAIStub) -> None:
    stub.reject_response_format("json_schema")
    stub.chat_reply = GOOD
    llm = make(stub, format_recheck_seconds=0)
    _, call = llm.extract(ITEM)
    assert call.response_format == "json_object"
    stub.rejected_formats.clear()  # the endpoint learnt structured outputs
    _, call = llm.extract(ITEM)
    assert call.response_format == "json_schema"  # tried again, not downgraded for good
    assert formats(stub) == ["json_schema", "json_object", "json_schema"]


def test_format_step_down_is_kept_until_the_recheck() -> None:
    now = [0.0]
    choice = FormatChoice(recheck_seconds=60, clock=lambda: now[0])
    assert choice.current() == "json_schema"
    assert choice.rejected("json_schema") == "json_object"
    now[0] = 59
    assert choice.current() == "json_object"
    now[0] = 61
    assert choice.current() == "json_schema"
    assert FormatChoice("json_object").rejected("json_object") is None  # fixed: never stepped


def test_every_response_reports_its_usage_to_the_open_meter(stub: OpenAIStub) -> None:
    stub.script_chat("", GOOD)  # the unusable first answer costs tokens too
    with metering() as meter:
        _, call = make(stub).extract(ITEM)
    assert meter.requests == 2
    assert (meter.prompt_tokens, meter.completion_tokens) == tuple(
        map(sum, zip(*stub.chat_usage, strict=True))
    )
    assert (call.prompt_tokens, call.completion_tokens) == (
        meter.prompt_tokens,
        meter.completion_tokens,
    )
    priced = meter.as_dict(2.0, 8.0)
    assert priced["cost"] == pytest.approx(
        (meter.prompt_tokens * 2.0 + meter.completion_tokens * 8.0) / 1e6
    )
    assert meter.as_dict(None, None)["cost"] is None

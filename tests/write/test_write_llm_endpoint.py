"""Extract-mode writes through the whole engine when the OpenAI-compatible endpoint answers
with a refusal, a cut-off answer, a reasoning field or block, 401/403, a 400 for an over-long
prompt, or another 400; and the tokens and cost each write records (stub server, real
``openai`` client, Qdrant local mode: the store plays no part here; the provider alone:
tests/llm/test_llm_endpoint_answers.py)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memory_engine import MemoryEngine, Scope, WriteRequest
from memory_engine.errors import LLMConfigError, LLMRefusalError
from memory_engine.llm.base import ExtractInput
from memory_engine.llm.prompts import extract_messages
from memory_engine.models import MemorySource
from memory_engine.write.journal import WriteJournal
from tests.conftest import new_tenant_id
from tests.support.fixtures import STUB_MODEL
from tests.support.openai_stub import ChatAnswer, OpenAIStub

Make = Callable[..., MemoryEngine]


@pytest.fixture
def make_engine(
    stub: OpenAIStub, tmp_path: Path, qdrant_settings_factory: Callable[..., Any]
) -> Iterator[Make]:
    """Factory of engines whose LLM (and embedder) is the stub, on Qdrant local mode: one
    store is enough, these tests are about the LLM endpoint."""
    made: list[MemoryEngine] = []

    def make(**overrides: Any) -> MemoryEngine:
        values: dict[str, Any] = {
            "embedder": "openai_compat",
            "embedding_base_url": stub.base_url,
            "embedding_model": STUB_MODEL,
            "embedding_dim": 64,
            "write_queue_path": tmp_path / f"journal-{len(made)}.sqlite3",
            "llm_provider": "openai_compat",
            "llm_base_url": stub.base_url,
            "llm_model": "stub-chat",
            "llm_max_attempts": 3,
            **overrides,
        }
        engine = MemoryEngine(qdrant_settings_factory("qdrant_memory", **values))
        made.append(engine)
        return engine

    yield make
    for engine in made:
        engine.close()


def extraction(*contents: str) -> str:
    facts = [{"content": c, "memory_type": "semantic", "importance": 0.8} for c in contents]
    return json.dumps(
        {"should_remember": True, "reason": "fact", "facts": facts}, ensure_ascii=False
    )


def contents(engine: MemoryEngine, scope: Scope) -> list[str]:
    return sorted(m.content for m in engine.list(scope, limit=100).items)


def formats(stub: OpenAIStub) -> list[str | None]:
    return [(b.get("response_format") or {}).get("type") for b in stub.chat_bodies()]


def test_refusal_fails_the_write_clearly_and_stores_nothing(
    make_engine: Make, stub: OpenAIStub
) -> None:
    engine = make_engine()
    s = Scope.of(new_tenant_id("refuse"))
    stub.script_chat(ChatAnswer(content=None, refusal="I'm sorry, I can't help with that."))
    result = engine.write_extract(s, WriteRequest(text="My neighbour's door code is 4711"))
    assert result.error is not None and result.error["error"] == "llm_refusal"
    assert "can't help" in result.error["message"]
    assert contents(engine, s) == []
    row = engine.write_status(s, str(result.write_id))
    assert row["status"] == "failed" and row["error"]["error"] == "llm_refusal"
    assert row["request"]["text"] == "My neighbour's door code is 4711"  # kept for a retry
    stub.script_chat(ChatAnswer(content=None, refusal="No."))
    with pytest.raises(LLMRefusalError):
        engine.write(s, "Another thing to refuse", mode="extract")


def test_cut_off_answer_is_asked_again_and_the_fact_stored(
    make_engine: Make, stub: OpenAIStub
) -> None:
    engine = make_engine()
    s = Scope.of(new_tenant_id("length"))
    stub.limit_output(25)
    stub.chat_reply = extraction("User is allergic to peanuts")
    result = engine.write(s, "I'm allergic to peanuts", mode="extract")
    assert result.remembered and contents(engine, s) == ["User is allergic to peanuts"]
    bodies = stub.chat_bodies()
    assert "max_tokens" not in bodies[0] and bodies[1]["max_tokens"] >= 4096


def test_answer_cut_off_twice_fails_the_write_with_nothing_half_written(
    make_engine: Make, stub: OpenAIStub
) -> None:
    engine = make_engine(llm_max_output_tokens=64)
    s = Scope.of(new_tenant_id("length2"))
    stub.limit_output(25, honour_max_tokens=False)
    stub.chat_reply = extraction("User is allergic to peanuts", "User lives in Shenzhen")
    result = engine.write_extract(s, WriteRequest(text="I'm allergic to peanuts, I live in SZ"))
    assert result.error is not None and result.error["error"] == "llm_output_truncated"
    assert contents(engine, s) == []
    assert [b.get("max_tokens") for b in stub.chat_bodies()] == [64, 4096]


def test_reasoning_content_is_ignored_and_the_content_stored(
    make_engine: Make, stub: OpenAIStub
) -> None:
    engine = make_engine()
    s = Scope.of(new_tenant_id("reason"))
    decoy = extraction("用户讨厌花生")
    stub.script_chat(ChatAnswer(content=extraction("用户对花生过敏"), reasoning_content=decoy))
    result = engine.write(s, "我对花生过敏", mode="extract")
    assert result.remembered and contents(engine, s) == ["用户对花生过敏"]


def test_think_block_before_the_json_is_ignored(make_engine: Make, stub: OpenAIStub) -> None:
    engine = make_engine()
    s = Scope.of(new_tenant_id("think"))
    draft = extraction("用户讨厌花生")
    stub.script_chat(f"<think>先想一想。草稿：{draft}</think>\n{extraction('用户对花生过敏')}")
    result = engine.write(s, "我对花生过敏", mode="extract")
    assert result.remembered and contents(engine, s) == ["用户对花生过敏"]


def test_401_is_a_configuration_error_naming_the_setting_without_retry(
    make_engine: Make, stub: OpenAIStub
) -> None:
    engine = make_engine(llm_api_key="sk-old")
    s = Scope.of(new_tenant_id("auth"))
    stub.require_api_key("sk-new")
    with pytest.raises(LLMConfigError) as info:
        engine.write(s, "I'm allergic to peanuts", mode="extract")
    assert "MEMORY_LLM_API_KEY" in info.value.message
    assert len(stub.chat_bodies()) == 1  # llm_max_attempts=3: still one request
    assert contents(engine, s) == []


def test_403_is_a_configuration_error_without_retry(make_engine: Make, stub: OpenAIStub) -> None:
    engine = make_engine()
    s = Scope.of(new_tenant_id("denied"))
    stub.fail_next(
        1, status=403, path="/v1/chat/completions", message="Model stub-chat is not allowed."
    )
    result = engine.write_extract(s, WriteRequest(text="I'm allergic to peanuts"))
    assert result.error is not None and result.error["error"] == "llm_config_error"
    assert "MEMORY_LLM_MODEL" in result.error["message"]
    assert result.error["details"]["status"] == "403"
    assert len(stub.chat_bodies()) == 1 and contents(engine, s) == []


def _one_fact_per_sentence(body: dict[str, Any]) -> str:
    if "New fact:" in body["messages"][-1]["content"]:  # a judge call: nothing related
        return json.dumps({"decisions": []})
    text = body["messages"][-1]["content"].split("Input:\n", 1)[1]
    sentences = [p.strip() for p in text.split(".") if p.strip()]
    return extraction(*(f"User said: {p[:80]}" for p in sentences))


def test_context_length_400_shrinks_the_input_once_and_stores_every_fact(
    make_engine: Make, stub: OpenAIStub
) -> None:
    engine = make_engine()
    s = Scope.of(new_tenant_id("ctx"))
    text = (
        "I am allergic to peanuts and carry an epinephrine pen at all times. "
        "I moved to Shenzhen last month and now commute by metro every single day."
    )
    item_chars = sum(
        len(m["content"])
        for m in extract_messages(_item(text))  # the prompt with the whole input
    )
    stub.context_window(item_chars - len(text) // 3)  # the whole input does not fit
    stub.chat_reply = _one_fact_per_sentence
    result = engine.write(s, text, mode="extract")
    assert result.error is None and result.remembered
    stored = contents(engine, s)
    assert len(stored) == 2
    assert any("peanuts" in c for c in stored) and any("Shenzhen" in c for c in stored)
    extract_statuses = [
        r.status
        for r in stub.requests
        if r.path == "/v1/chat/completions" and "Input:\n" in r.body["messages"][-1]["content"]
    ]
    assert extract_statuses == [400, 200, 200]
    assert set(formats(stub)) == {"json_schema"}  # the 400 changed no format
    trail = engine.write_trail(s, str(result.write_id))
    assert any("extracted in 2 parts" in w for w in trail["warnings"])


def test_context_length_400_it_cannot_fix_fails_the_write_clearly(
    make_engine: Make, stub: OpenAIStub
) -> None:
    engine = make_engine()
    s = Scope.of(new_tenant_id("ctx2"))
    stub.context_window(100)  # not even the instructions fit
    result = engine.write_extract(s, WriteRequest(text="I am allergic to peanuts. " * 5))
    assert result.error is not None and result.error["error"] == "llm_context_length"
    assert "context window" in result.error["message"]
    assert contents(engine, s) == []


def test_a_400_on_one_call_leaves_the_next_calls_response_format(
    make_engine: Make, stub: OpenAIStub
) -> None:
    engine = make_engine()
    s = Scope.of(new_tenant_id("fmt"))
    stub.fail_next(
        1,
        status=400,
        path="/v1/chat/completions",
        message="Invalid 'messages[1].content': string too long.",
        code="invalid_value",
        param="messages",
    )
    first = engine.write_extract(s, WriteRequest(text="I'm allergic to peanuts"))
    assert first.error is not None and first.error["details"]["status"] == "400"
    stub.chat_reply = extraction("User is allergic to peanuts")
    second = engine.write(s, "I'm allergic to peanuts!", mode="extract")
    assert second.remembered
    bodies = stub.chat_bodies()
    assert len(bodies) == 2  # the failed call was not retried in another format
    assert bodies[1]["response_format"]["type"] == "json_schema"
    assert bodies[1]["response_format"] == bodies[0]["response_format"]


def test_a_400_about_response_format_steps_down_for_later_calls(
    make_engine: Make, stub: OpenAIStub
) -> None:
    engine = make_engine()
    s = Scope.of(new_tenant_id("fmt2"))
    stub.reject_response_format("json_schema")
    stub.chat_reply = extraction("User is allergic to peanuts")
    engine.write(s, "I'm allergic to peanuts", mode="extract")
    stub.chat_reply = extraction("User likes tea")
    engine.write(s, "I like tea", mode="extract")
    extract_formats = [
        (b.get("response_format") or {}).get("type")
        for b in stub.chat_bodies()
        if "Input:\n" in b["messages"][-1]["content"]
    ]
    assert extract_formats == ["json_schema", "json_object", "json_object"]


def test_each_write_records_its_tokens_and_cost_and_the_days_add_up(
    make_engine: Make, stub: OpenAIStub
) -> None:
    engine = make_engine(llm_price_input_per_mtok=2.5, llm_price_output_per_mtok=10.0)
    s = Scope.of(new_tenant_id("cost"))
    stub.script_chat("", extraction("用户对花生过敏"))  # an unusable answer costs tokens too
    ok = engine.write(s, "我对花生过敏", mode="extract")
    spent = list(stub.chat_usage)
    stub.script_chat(ChatAnswer(content=None, refusal="No."))
    refused = engine.write_extract(s, WriteRequest(text="不想说的事情"))
    assert refused.error is not None

    row = engine.write_status(s, str(ok.write_id))
    prompt, completion = (sum(x) for x in zip(*spent, strict=True))
    assert (row["prompt_tokens"], row["completion_tokens"], row["llm_requests"]) == (
        prompt,
        completion,
        2,
    )
    assert row["cost"] == pytest.approx((prompt * 2.5 + completion * 10.0) / 1e6)
    assert ok.usage is not None and ok.usage["cost"] == pytest.approx(row["cost"])
    failed = engine.write_status(s, str(refused.write_id))
    assert failed["status"] == "failed" and failed["prompt_tokens"] == stub.chat_usage[-1][0]
    listed = {w["id"]: w for w in engine.list_writes(s).items}
    assert listed[str(ok.write_id)]["prompt_tokens"] == prompt

    (day,) = engine.write_usage(s)
    total_prompt = sum(p for p, _ in stub.chat_usage)
    total_completion = sum(c for _, c in stub.chat_usage)
    assert day["day"] == datetime.now(UTC).date().isoformat()
    assert (day["writes"], day["llm_requests"]) == (2, 3)
    assert (day["prompt_tokens"], day["completion_tokens"]) == (total_prompt, total_completion)
    assert day["cost"] == pytest.approx((total_prompt * 2.5 + total_completion * 10.0) / 1e6)
    assert engine.write_usage(Scope.of(new_tenant_id("other"))) == []  # per tenant


def test_without_prices_tokens_are_kept_and_cost_is_none(
    make_engine: Make, stub: OpenAIStub
) -> None:
    engine = make_engine()
    s = Scope.of(new_tenant_id("noprice"))
    stub.chat_reply = extraction("User likes tea")
    result = engine.write(s, "I like tea", mode="extract")
    row = engine.write_status(s, str(result.write_id))
    assert row["prompt_tokens"] > 0 and row["cost"] is None
    assert engine.write_usage(s)[0]["cost"] is None


def test_a_journal_of_an_earlier_version_gains_the_usage_columns(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE writes (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE NOT NULL,"
        " tenant_id TEXT NOT NULL, scope TEXT NOT NULL, mode TEXT NOT NULL, request TEXT NOT"
        " NULL, actor TEXT NOT NULL, input_hash TEXT NOT NULL, status TEXT NOT NULL, attempts"
        " INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,"
        " result TEXT, error TEXT, trail TEXT)"
    )
    conn.execute(
        "INSERT INTO writes (id, tenant_id, scope, mode, request, actor, input_hash, status,"
        " created_at, updated_at) VALUES ('w1', 't', '{\"tenant_id\": \"t\"}', 'extract',"
        " '{}', 'api', 'h', 'done', '2024-01-02T00:00:00', '2024-01-02T00:00:00')"
    )
    conn.commit()
    conn.close()
    journal = WriteJournal(path)
    try:
        assert journal.usage_by_day(Scope.of("t")) == [
            {
                "day": "2024-01-02",
                "writes": 1,
                "llm_requests": 0,
                "prompt_tokens": 0,
                "completion_tokens": 0,
                "cost": None,
            }
        ]
    finally:
        journal.close()


def _item(text: str) -> ExtractInput:
    """The extract input the engine builds for a plain ``engine.write`` of ``text``."""
    return ExtractInput(text=text, observed_at=datetime.now(UTC), source=MemorySource.MANUAL)


def test_the_previous_message_is_context_for_the_extractor_and_a_recent_candidate(
    make_engine: Make, stub: OpenAIStub
) -> None:
    engine = make_engine()
    s = Scope.of(new_tenant_id("context"))
    stub.script_chat(extraction("The user has a dog"))
    first = engine.write(s, "We got a dog last year", mode="extract")
    assert first.error is None and [a["action"] for a in first.actions] == ["create"]
    judged = json.dumps(
        {"decisions": [{"candidate": 0, "relation": "supplements", "reason": "more"}]}
    )
    stub.script_chat(extraction("The user's dog is a border collie named Pepper"), judged)
    second = engine.write(s, "she's a border collie, her name's Pepper", mode="extract")
    assert second.error is None, second.error
    extract_body, judge_body = stub.chat_bodies()[-2:]
    extract_prompt = extract_body["messages"][-1]["content"]
    assert "previous message" in extract_prompt and "The user has a dog" in extract_prompt
    judge_prompt = judge_body["messages"][-1]["content"]
    shown = [json.loads(line) for line in judge_prompt.splitlines() if line.startswith("{")]
    assert any(c.get("recent") and c["content"] == "The user has a dog" for c in shown), shown
    assert any(a["action"] == "supplement" for a in second.actions), second.actions

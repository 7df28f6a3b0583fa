"""``OpenAIEndpoint``, the transport shared by the chat LLM and the embedder, against the
local OpenAI-compatible stub with the real ``openai`` client."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import openai
import pytest

from memory_engine.errors import EmbeddingError, LLMError
from memory_engine.llm.base import ExtractInput
from memory_engine.llm.openai_compat import OpenAICompatLLM
from memory_engine.llm.transport import OpenAIEndpoint
from tests.support.openai_stub import OpenAIStub


def _endpoint(stub: OpenAIStub, **kw: object) -> OpenAIEndpoint:
    args: dict[str, object] = {
        "base_url": stub.base_url,
        "model": "stub-8",
        "kind": "embedding",
        "error": EmbeddingError,
        "backoff_initial": 0.01,
        "backoff_max": 0.05,
    }
    args.update(kw)
    return OpenAIEndpoint(**args)  # type: ignore[arg-type]


def test_call_retries_transient_and_counts_attempts(openai_stub: OpenAIStub) -> None:
    openai_stub.fail_next(2, status=503)
    endpoint = _endpoint(openai_stub, max_attempts=3)
    response, attempts = endpoint.call(
        lambda c: c.embeddings.create(model="stub-8", input=["x"], encoding_format="float")
    )
    assert attempts == 3
    assert len(response.data[0].embedding) == 8
    assert [r.status for r in openai_stub.requests] == [503, 503, 200]
    endpoint.close()


def test_failure_maps_to_the_given_error_with_status(openai_stub: OpenAIStub) -> None:
    endpoint = _endpoint(openai_stub, model="no-such-model", kind="chat", error=LLMError)
    with pytest.raises(LLMError, match=r"^chat request to .* failed after 3 attempt") as info:
        endpoint.call(
            lambda c: c.embeddings.create(model="no-such-model", input=["x"]),
            prior_attempts=2,
        )
    # a 404 is not retried; attempts spent earlier by the caller are added to the count
    assert openai_stub.count() == 1
    assert info.value.details["status"] == 404
    assert info.value.details["attempts"] == 3
    assert info.value.details["model"] == "no-such-model"
    assert isinstance(info.value.__cause__, openai.NotFoundError)


def test_built_client_sends_key_and_has_no_own_retries(openai_stub: OpenAIStub) -> None:
    endpoint = _endpoint(openai_stub, api_key="sk-shared")
    assert endpoint.client.max_retries == 0
    endpoint.call(lambda c: c.embeddings.create(model="stub-8", input=["x"]))
    assert openai_stub.requests[-1].headers.get("authorization") == "Bearer sk-shared"


@pytest.mark.parametrize(
    "bad", [{"max_attempts": 0}, {"timeout": 0}, {"backoff_initial": -1}, {"backoff_max": -1}]
)
def test_out_of_range_arguments_are_refused(openai_stub: OpenAIStub, bad: dict) -> None:
    with pytest.raises(ValueError):
        _endpoint(openai_stub, **bad)


def test_llm_attempts_add_up_across_format_step_down(openai_stub: OpenAIStub) -> None:
    """Each HTTP 400 about response_format steps down one output format; the attempts of
    every format count."""
    llm = OpenAICompatLLM(
        base_url=openai_stub.base_url,
        model="stub-chat",
        max_attempts=2,
        backoff_initial=0.01,
        backoff_max=0.05,
    )
    item = ExtractInput(text="hello", observed_at=datetime(2024, 1, 1, tzinfo=UTC))
    openai_stub.fail_next(
        3,
        status=400,
        path="/v1/chat/completions",
        message="response_format is not supported with this model",
        param="response_format",
    )
    with pytest.raises(LLMError) as info:
        llm.extract(item)
    assert info.value.details["attempts"] == 3  # 400 is not retried: one per format
    assert info.value.details["status"] == 400
    bodies = openai_stub.chat_bodies()
    assert [b.get("response_format", {}).get("type") for b in bodies] == [
        "json_schema",
        "json_object",
        None,
    ]
    # a transient failure in the kept (text) mode is retried and counted
    openai_stub.fail_next(1, status=503, path="/v1/chat/completions")
    openai_stub.chat_reply = json.dumps({"should_remember": False, "reason": "x", "facts": []})
    _, call = llm.extract(item)
    assert call.response_format == "text" and call.attempts == 2


def test_401_is_not_retried_and_names_the_settings(openai_stub: OpenAIStub) -> None:
    openai_stub.require_api_key("sk-right")
    endpoint = _endpoint(
        openai_stub, api_key="sk-wrong", max_attempts=4, settings_hint="MEMORY_EMBEDDING_API_KEY"
    )
    with pytest.raises(EmbeddingError, match="refused the API key") as info:
        endpoint.call(lambda c: c.embeddings.create(model="stub-8", input=["x"]))
    assert "check MEMORY_EMBEDDING_API_KEY" in info.value.message
    assert info.value.details["status"] == 401 and info.value.details["attempts"] == 1
    assert openai_stub.count() == 1
    assert isinstance(info.value.__cause__, openai.AuthenticationError)

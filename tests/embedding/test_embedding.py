"""Tests of memory_engine.embedding: real MiniLM and USE-m3, OpenAI-compatible embedder vs a
real stub."""

from __future__ import annotations

import base64
import math
import struct
import threading
import time

import openai
import pytest

from memory_engine.config import Settings
from memory_engine.embedding import (
    Embedder,
    MiniLMEmbedder,
    OpenAICompatEmbedder,
    UseM3Embedder,
    build_embedder,
    normalize_vectors,
)
from memory_engine.embedding.usem3 import USEM3_MODEL_NAME
from memory_engine.errors import ConfigError, EmbeddingError
from tests.support.openai_stub import OpenAIStub, stub_vector

# The ``openai_stub`` fixture (tests/conftest.py may import it as well; either way works).


def _dot(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def _fast(
    stub: OpenAIStub, model: str = "stub-8", dim: int = 8, **kw: object
) -> OpenAICompatEmbedder:
    """An embedder against the stub with millisecond backoffs."""
    params: dict[str, object] = {"backoff_initial": 0.01, "backoff_max": 0.05, "timeout": 10.0}
    params.update(kw)
    return OpenAICompatEmbedder(base_url=stub.base_url, model=model, dim=dim, **params)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- MiniLM (real model)


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    emb = MiniLMEmbedder(batch_size=4)
    emb.warm_up()
    return emb


def test_minilm_similarity_and_norm(minilm: MiniLMEmbedder) -> None:
    a, b, c = minilm.embed(
        [
            "I am allergic to peanuts.",
            "The user has a peanut allergy.",
            "The train to Lisbon leaves at noon.",
        ]
    )
    for v in (a, b, c):
        assert len(v) == 384
        assert math.isclose(math.sqrt(_dot(v, v)), 1.0, abs_tol=1e-6)
    assert _dot(a, b) > _dot(a, c) + 0.2
    assert _dot(a, b) > _dot(b, c) + 0.2


def test_minilm_batch_order_preserved(minilm: MiniLMEmbedder) -> None:
    texts = [f"sentence {i} about {w}" for i, w in enumerate(["cats", "stocks", "rain"] * 4)]
    batched = minilm.embed(texts)  # 12 texts in batches of 4
    singles = [minilm.embed([t])[0] for t in texts]
    assert len(batched) == len(texts)
    for got, want in zip(batched, singles, strict=True):
        assert _dot(got, want) > 0.9999


def test_minilm_protocol_and_edges(minilm: MiniLMEmbedder) -> None:
    assert isinstance(minilm, Embedder)
    assert (minilm.model_name, minilm.dim) == ("all-MiniLM-L6-v2", 384)
    assert minilm.embed([]) == []
    long_text = "word " * 5000  # beyond the 256-token window: truncated by the model, no error
    (v,) = minilm.embed([long_text])
    assert len(v) == 384
    with pytest.raises(EmbeddingError):
        minilm.embed([None])  # type: ignore[list-item]


def test_minilm_thread_safe(minilm: MiniLMEmbedder) -> None:
    texts = ["peanut allergy", "flight on 12 May", "postgres tuning"]
    want = minilm.embed(texts)
    errors: list[BaseException] = []
    results: list[list[list[float]]] = []

    def work() -> None:
        try:
            results.append(minilm.embed(texts))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for got in results:
        assert all(_dot(g, w) > 0.9999 for g, w in zip(got, want, strict=True))


# --------------------------------------------------------------------------- OpenAI-compatible


@pytest.mark.parametrize(("model", "dim"), [("stub-8", 8), ("stub-12", 12)])
def test_openai_compat_dims(openai_stub: OpenAIStub, model: str, dim: int) -> None:
    emb = _fast(openai_stub, model, dim)
    assert isinstance(emb, Embedder)
    vecs = emb.embed(["peanut allergy", "Peanut ALLERGY!", "train schedule Lisbon"])
    assert [len(v) for v in vecs] == [dim] * 3
    for v in vecs:
        assert math.isclose(math.sqrt(_dot(v, v)), 1.0, abs_tol=1e-9)
    assert vecs[0] == pytest.approx(stub_vector("peanut allergy", dim))
    assert _dot(vecs[0], vecs[1]) == pytest.approx(1.0)  # same words, same vector
    assert _dot(vecs[0], vecs[2]) < 0.99


def test_openai_compat_batches_and_order(openai_stub: OpenAIStub) -> None:
    emb = _fast(openai_stub, batch_size=3)
    texts = [f"text number {i}" for i in range(10)]
    vecs = emb.embed(texts)
    assert openai_stub.count() == 4  # 3 + 3 + 3 + 1
    assert [r.body["input"] for r in openai_stub.requests][-1] == ["text number 9"]
    for t, v in zip(texts, vecs, strict=True):
        assert v == pytest.approx(stub_vector(t, 8))
    assert emb.embed([]) == []
    assert openai_stub.count() == 4
    req = openai_stub.requests[0]
    assert req.body["model"] == "stub-8"
    assert req.headers.get("authorization") == "Bearer not-needed"


def test_openai_compat_api_key_sent(openai_stub: OpenAIStub) -> None:
    _fast(openai_stub, api_key="sk-test").embed(["x"])
    assert openai_stub.requests[-1].headers.get("authorization") == "Bearer sk-test"


def test_openai_compat_retries_after_two_429(openai_stub: OpenAIStub) -> None:
    openai_stub.fail_next(2, status=429)
    emb = _fast(openai_stub)
    (v,) = emb.embed(["hello world"])
    assert v == pytest.approx(stub_vector("hello world", 8))
    assert [r.status for r in openai_stub.requests] == [429, 429, 200]


def test_openai_compat_honours_retry_after(openai_stub: OpenAIStub) -> None:
    openai_stub.fail_next(1, status=429, retry_after=0.3)
    emb = _fast(openai_stub, backoff_max=1.0)
    t0 = time.perf_counter()
    emb.embed(["x"])
    assert time.perf_counter() - t0 >= 0.3
    assert [r.status for r in openai_stub.requests] == [429, 200]


def test_openai_compat_persistent_500_raises(openai_stub: OpenAIStub) -> None:
    openai_stub.fail_always(status=500)
    emb = _fast(openai_stub, max_attempts=3)
    with pytest.raises(EmbeddingError) as info:
        emb.embed(["hello"])
    err = info.value
    assert err.details["model"] == "stub-8"
    assert err.details["base_url"] == openai_stub.base_url
    assert err.details["attempts"] == 3
    assert openai_stub.count() == 3  # bounded: exactly max_attempts requests
    assert isinstance(err.__cause__, openai.InternalServerError)
    assert err.to_dict()["error"] == "embedding_error"


def test_openai_compat_client_error_not_retried(openai_stub: OpenAIStub) -> None:
    emb = _fast(openai_stub, model="no-such-model", dim=8)
    with pytest.raises(EmbeddingError, match="no-such-model"):
        emb.embed(["x"])
    assert openai_stub.count() == 1


def test_openai_compat_wrong_dim_raises(openai_stub: OpenAIStub) -> None:
    emb = _fast(openai_stub, model="stub-8", dim=12)
    with pytest.raises(EmbeddingError, match="returned 8 dims, configured 12") as info:
        emb.embed(["hello"])
    assert info.value.details["base_url"] == openai_stub.base_url


def test_openai_compat_unreachable_raises() -> None:
    stub = OpenAIStub().start()
    url = stub.base_url
    stub.stop()  # nothing listens on that port any more
    emb = OpenAICompatEmbedder(
        base_url=url, model="stub-8", dim=8, max_attempts=2, backoff_initial=0.01, timeout=2.0
    )
    with pytest.raises(EmbeddingError) as info:
        emb.embed(["x"])
    assert info.value.details["attempts"] == 2
    assert isinstance(info.value.__cause__, openai.APIConnectionError)


def test_stub_chat_completion(openai_stub: OpenAIStub) -> None:
    openai_stub.chat_reply = '{"should_remember": true}'
    client = openai.OpenAI(base_url=openai_stub.base_url, api_key="x", max_retries=0)
    out = client.chat.completions.create(
        model="stub-chat", messages=[{"role": "user", "content": "remember this"}]
    )
    assert out.choices[0].message.content == '{"should_remember": true}'
    assert openai_stub.count("/v1/chat/completions") == 1


def test_stub_base64_encoding(openai_stub: OpenAIStub) -> None:
    client = openai.OpenAI(base_url=openai_stub.base_url, api_key="x", max_retries=0)
    out = client.embeddings.create(model="stub-12", input=["a b c"], encoding_format="base64")
    raw = base64.b64decode(out.data[0].embedding)  # type: ignore[arg-type]
    assert list(struct.unpack("<12f", raw)) == pytest.approx(stub_vector("a b c", 12), abs=1e-6)


def test_normalize_vectors_checks() -> None:
    assert normalize_vectors([[3.0, 4.0]], dim=2, model_name="m", expected=1) == [[0.6, 0.8]]
    with pytest.raises(EmbeddingError, match="returned 1 vectors for 2"):
        normalize_vectors([[1.0, 0.0]], dim=2, model_name="m", expected=2)
    with pytest.raises(EmbeddingError, match="zero or non-finite"):
        normalize_vectors([[0.0, 0.0]], dim=2, model_name="m", expected=1)
    with pytest.raises(EmbeddingError, match="zero or non-finite"):
        normalize_vectors([[float("nan"), 1.0]], dim=2, model_name="m", expected=1)


# --------------------------------------------------------------------------- build_embedder


def test_build_embedder_minilm() -> None:
    emb = build_embedder(Settings(embedder="minilm", embedding_batch_size=7, _env_file=None))  # type: ignore[call-arg]
    assert isinstance(emb, MiniLMEmbedder)
    assert emb.batch_size == 7 and emb.dim == 384


def test_build_embedder_minilm_refuses_other_model_or_dim() -> None:
    with pytest.raises(ConfigError):
        build_embedder(Settings(embedder="minilm", embedding_model="bge-m3", _env_file=None))  # type: ignore[call-arg]
    with pytest.raises(ConfigError):
        build_embedder(Settings(embedder="minilm", embedding_dim=768, _env_file=None))  # type: ignore[call-arg]


def test_build_embedder_openai_compat(openai_stub: OpenAIStub) -> None:
    settings = Settings(  # type: ignore[call-arg]
        embedder="openai_compat",
        embedding_base_url=openai_stub.base_url,
        embedding_model="stub-12",
        embedding_dim=12,
        embedding_batch_size=2,
        _env_file=None,
    )
    emb = build_embedder(settings)
    assert isinstance(emb, OpenAICompatEmbedder)
    assert (emb.model_name, emb.dim, emb.batch_size) == ("stub-12", 12, 2)
    assert len(emb.embed(["a", "b", "c"])) == 3
    assert openai_stub.count() == 2


@pytest.mark.parametrize("missing", ["embedding_base_url", "embedding_model", "embedding_dim"])
def test_openai_compat_settings_need_url_model_dim(missing: str) -> None:
    values: dict[str, object] = {
        "embedding_base_url": "http://127.0.0.1:9/v1",
        "embedding_model": "stub-8",
        "embedding_dim": 8,
    }
    del values[missing]
    with pytest.raises(ConfigError):
        Settings(embedder="openai_compat", _env_file=None, **values)  # type: ignore[call-arg, arg-type]


# --------------------------------------------------------------------------- USE-m3 (real model)


@pytest.fixture(scope="module")
def usem3() -> UseM3Embedder:
    emb = UseM3Embedder(batch_size=3)
    emb.warm_up()
    return emb


def test_usem3_cross_lingual_similarity_and_norm(usem3: UseM3Embedder) -> None:
    zh, en, other = usem3.embed(["我对花生过敏", "I have a peanut allergy", "火车中午出发"])
    for v in (zh, en, other):
        assert len(v) == 512
        assert math.isclose(math.sqrt(_dot(v, v)), 1.0, rel_tol=1e-6)
    # multilingual: the Chinese and English sentences of the same fact are close
    assert _dot(zh, en) > _dot(zh, other) + 0.2
    assert isinstance(usem3, Embedder)
    assert usem3.model_name == USEM3_MODEL_NAME and usem3.dim == 512


def test_usem3_batches_keep_order_and_edges(usem3: UseM3Embedder) -> None:
    texts = [f"第 {i} 条记忆：今天学习了 topic {i}" for i in range(7)]
    together = usem3.embed(texts)  # 3 batches of <= 3
    one_by_one = [usem3.embed([t])[0] for t in texts]
    for a, b in zip(together, one_by_one, strict=True):
        assert _dot(a, b) > 0.999
    assert usem3.embed([]) == []
    assert len(usem3.embed(["", "  "])) == 2  # empty text still gets one unit vector
    with pytest.raises(EmbeddingError):
        usem3.embed(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError):
        UseM3Embedder(batch_size=0)


def test_build_embedder_use_m3() -> None:
    emb = build_embedder(Settings(embedder="use_m3", embedding_batch_size=8))
    assert isinstance(emb, UseM3Embedder) and emb.batch_size == 8
    with pytest.raises(ConfigError):
        build_embedder(Settings(embedder="use_m3", embedding_dim=384))
    with pytest.raises(ConfigError):
        build_embedder(Settings(embedder="use_m3", embedding_model="bge-m3"))
    assert isinstance(
        build_embedder(Settings(embedder="use_m3", embedding_model=USEM3_MODEL_NAME)),
        UseM3Embedder,
    )


def test_a_non_string_text_is_refused_before_any_request(openai_stub: OpenAIStub) -> None:
    emb = _fast(openai_stub, batch_size=1)
    with pytest.raises(EmbeddingError, match="text 2 is int, not str") as info:
        emb.embed(["first", "second", 3])  # type: ignore[list-item]
    assert info.value.details["index"] == 2
    assert openai_stub.count() == 0  # the two good batches were not sent either
    for offline in (MiniLMEmbedder(), UseM3Embedder()):  # checked before the model loads
        with pytest.raises(EmbeddingError, match="text 0 is bytes, not str"):
            offline.embed([b"raw"])  # type: ignore[list-item]

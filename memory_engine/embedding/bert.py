"""A BERT sentence encoder in numpy: the forward pass of a sentence-transformers model.

Reads a BERT-family model folder (``config.json``, ``model.safetensors``, ``tokenizer.json``)
with ``safetensors.numpy`` and the ``tokenizers`` WordPiece tokenizer, and computes
``Transformer -> mean pooling -> L2 normalise`` exactly as sentence-transformers does, in
float32 with BLAS matrix products. No torch, transformers or sentence-transformers is imported;
loading all-MiniLM-L6-v2 takes ~0.1-0.3 s instead of ~10 s of imports.

The architecture is the original BERT encoder (Devlin et al. 2019, arXiv:1810.04805):
post-layer-norm blocks of multi-head self-attention and a GELU (erf) feed-forward layer, with
absolute position embeddings. Output matches the torch reference to cosine >= 0.9999
(``bench/embedder_runtime.py``, ``tests/embedding/test_bert_reference.py``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["BertConfig", "BertEncoder"]

_F32 = np.float32
# Rows of the feed-forward activations per GELU call: 64 x 1536 floats (~0.4 MB) stay in
# cache through the ~20 elementwise passes of erf; the whole matrix at once is ~2x slower.
_GELU_ROWS = 64
# erf by Abramowitz & Stegun, formula 7.1.26 (max abs error 1.5e-7, below the float32
# rounding of GELU's output). numpy has no erf, and scipy.special costs ~0.3 s to import.
_AS_P = 0.3275911
_AS_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


@dataclass(frozen=True)
class BertConfig:
    """The parts of a BERT ``config.json`` the forward pass uses.

    Attributes:
        hidden_size: width of every token vector (384 for MiniLM-L6).
        num_layers: encoder blocks (6 for MiniLM-L6).
        num_heads: attention heads; ``hidden_size`` must be a multiple of it.
        layer_norm_eps: epsilon of every layer norm.
        max_positions: position embeddings available (512).
    """

    hidden_size: int
    num_layers: int
    num_heads: int
    layer_norm_eps: float
    max_positions: int

    @classmethod
    def from_file(cls, path: Path) -> BertConfig:
        """Read ``config.json``.

        Raises:
            ValueError: not a BERT encoder with absolute positions and GELU, or inconsistent.
            OSError: the file cannot be read.
        """
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"unsupported hidden_act {raw.get('hidden_act')!r} (need gelu)")
        if raw.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError("only absolute position embeddings are supported")
        cfg = cls(
            hidden_size=int(raw["hidden_size"]),
            num_layers=int(raw["num_hidden_layers"]),
            num_heads=int(raw["num_attention_heads"]),
            layer_norm_eps=float(raw.get("layer_norm_eps", 1e-12)),
            max_positions=int(raw.get("max_position_embeddings", 512)),
        )
        if cfg.hidden_size % cfg.num_heads:
            raise ValueError(f"hidden_size {cfg.hidden_size} not a multiple of the heads")
        return cfg


@dataclass(frozen=True)
class _Layer:
    qkv_w: np.ndarray  # (hidden, 3*hidden): x @ w; the others too, as (in, out)
    qkv_b: np.ndarray  # (3*hidden,)
    out_w: np.ndarray  # (hidden, hidden)
    out_b: np.ndarray
    ln1_w: np.ndarray
    ln1_b: np.ndarray
    ff_in_w: np.ndarray  # (hidden, intermediate)
    ff_in_b: np.ndarray
    ff_out_w: np.ndarray  # (intermediate, hidden)
    ff_out_b: np.ndarray
    ln2_w: np.ndarray
    ln2_b: np.ndarray


def _attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """Scaled dot-product attention per head: ``softmax(q k^T + bias) v``.

    Args:
        q, k, v: ``(n, heads, L, head_dim)``; ``q`` already scaled by ``1/sqrt(head_dim)``.
        bias: ``(n, 1, 1, L)`` additive key mask (0 or the most negative float32).

    Returns:
        ``(n, heads, L, head_dim)`` float32.
    """
    scores = q @ k.transpose(0, 1, 3, 2)
    scores += bias
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    out: np.ndarray = scores @ v
    return out


def _erf(x: np.ndarray) -> np.ndarray:
    """erf of a float32 array, elementwise (absolute error <= 1.5e-7)."""
    a1, a2, a3, a4, a5 = (_F32(a) for a in _AS_A)
    ax = np.abs(x)
    t = ax * _F32(_AS_P)
    t += 1.0
    np.reciprocal(t, out=t)
    poly = t * a5
    for a in (a4, a3, a2, a1):
        poly += a
        poly *= t
    # exp(-x^2) clipped at exp(-80): below that float32 turns subnormal (slow) and the
    # term is < 1e-34 anyway.
    np.square(ax, out=ax)
    np.negative(ax, out=ax)
    np.maximum(ax, _F32(-80.0), out=ax)
    np.exp(ax, out=ax)
    poly *= ax
    np.subtract(_F32(1.0), poly, out=poly)
    poly *= np.sign(x)
    return poly


class BertEncoder:
    """Mean-pooled, L2-normalised BERT sentence vectors, computed in numpy.

    Not thread-safe: callers serialise :meth:`encode` (the tokenizer refuses concurrent use).

    Attributes:
        config: the model's :class:`BertConfig`.
        dim: output vector length (``config.hidden_size``).
        max_tokens: word pieces read per text, special tokens included; the rest is cut off.
    """

    def __init__(self, model_dir: Path, *, max_tokens: int) -> None:
        """Load the weights and tokenizer from ``model_dir``.

        Args:
            model_dir: folder with ``config.json``, ``model.safetensors``, ``tokenizer.json``.
            max_tokens: longest input in word pieces (sentence-transformers'
                ``max_seq_length``), 2..``max_position_embeddings``.

        Raises:
            ValueError: unsupported config, missing tensors or ``max_tokens`` out of range.
            OSError: a file is missing or unreadable.
        """
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.config = BertConfig.from_file(model_dir / "config.json")
        if not 2 <= max_tokens <= self.config.max_positions:
            raise ValueError(f"max_tokens must be in 2..{self.config.max_positions}")
        self.dim = self.config.hidden_size
        self.max_tokens = max_tokens
        tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        tok.enable_truncation(max_length=max_tokens)
        tok.no_padding()
        self._tokenizer = tok
        w = load_file(str(model_dir / "model.safetensors"))
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in w else ""

        def get(name: str) -> np.ndarray:
            key = prefix + name
            if key not in w:
                raise ValueError(f"tensor {key!r} missing from model.safetensors")
            return np.ascontiguousarray(w[key], dtype=_F32)

        self._word = get("embeddings.word_embeddings.weight")
        self._pos = get("embeddings.position_embeddings.weight")
        self._type0 = get("embeddings.token_type_embeddings.weight")[0]
        self._emb_ln = (get("embeddings.LayerNorm.weight"), get("embeddings.LayerNorm.bias"))
        layers = []
        for i in range(self.config.num_layers):
            p = f"encoder.layer.{i}."

            def lin(name: str, p: str = p) -> tuple[np.ndarray, np.ndarray]:
                # (in, out) as a transposed view: BLAS reads it without a copy
                return get(p + name + ".weight").T, get(p + name + ".bias")

            (qw, qb), (kw, kb), (vw, vb) = (
                lin("attention.self.query"),
                lin("attention.self.key"),
                lin("attention.self.value"),
            )
            ow, ob = lin("attention.output.dense")
            iw, ib = lin("intermediate.dense")
            fw, fb = lin("output.dense")
            layers.append(
                _Layer(
                    qkv_w=np.concatenate([qw, kw, vw], axis=1),
                    qkv_b=np.concatenate([qb, kb, vb]),
                    out_w=ow,
                    out_b=ob,
                    ln1_w=get(p + "attention.output.LayerNorm.weight"),
                    ln1_b=get(p + "attention.output.LayerNorm.bias"),
                    ff_in_w=iw,
                    ff_in_b=ib,
                    ff_out_w=fw,
                    ff_out_b=fb,
                    ln2_w=get(p + "output.LayerNorm.weight"),
                    ln2_b=get(p + "output.LayerNorm.bias"),
                )
            )
        self._layers = tuple(layers)

    def encode(self, texts: Sequence[str], *, batch_size: int = 32) -> np.ndarray:
        """Embed ``texts``, longest first in batches of ``batch_size`` (as sentence-transformers).

        Each text is stripped of surrounding whitespace, tokenized (lower-cased WordPiece, CJK
        characters split), cut to ``max_tokens`` word pieces and encoded.

        Returns:
            float32 array ``(len(texts), dim)``, rows in input order, each of L2 norm 1.

        Raises:
            ValueError: ``batch_size < 1``.
        """
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        out = np.zeros((len(texts), self.dim), dtype=_F32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch([t.strip() for t in texts])
        ids = [e.ids for e in encodings]
        order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            out[chunk] = self._forward([ids[i] for i in chunk])
        return out

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        """Sentence vectors of one batch of token-id lists; ``(len(batch), dim)`` float32."""
        cfg = self.config
        n, length = len(batch), max(len(b) for b in batch)
        ids = np.zeros((n, length), dtype=np.int64)
        mask = np.zeros((n, length), dtype=_F32)
        for i, row in enumerate(batch):
            ids[i, : len(row)] = row
            mask[i, : len(row)] = 1.0
        x = self._word[ids] + self._pos[:length] + self._type0  # (n, L, hidden)
        x = self._layer_norm(x.reshape(n * length, cfg.hidden_size), *self._emb_ln)
        # Additive attention mask: padded keys get the most negative float32, as transformers.
        bias = ((1.0 - mask) * np.finfo(_F32).min)[:, None, None, :]  # (n, 1, 1, L)
        heads, head_dim = cfg.num_heads, cfg.hidden_size // cfg.num_heads
        scale = _F32(1.0 / math.sqrt(head_dim))
        for layer in self._layers:
            qkv = x @ layer.qkv_w
            qkv += layer.qkv_b
            qkv = qkv.reshape(n, length, 3, heads, head_dim).transpose(2, 0, 3, 1, 4)
            ctx = _attention(qkv[0] * scale, qkv[1], qkv[2], bias)
            ctx = ctx.transpose(0, 2, 1, 3).reshape(n * length, cfg.hidden_size)
            attn = ctx @ layer.out_w
            attn += layer.out_b
            attn += x
            x = self._layer_norm(attn, layer.ln1_w, layer.ln1_b)
            h = x @ layer.ff_in_w
            for first in range(0, h.shape[0], _GELU_ROWS):  # cache-sized blocks: ~2x faster
                block = h[first : first + _GELU_ROWS]
                block += layer.ff_in_b
                h[first : first + _GELU_ROWS] = self._gelu(block)
            ff = h @ layer.ff_out_w
            ff += layer.ff_out_b
            ff += x
            x = self._layer_norm(ff, layer.ln2_w, layer.ln2_b)
        tokens = x.reshape(n, length, cfg.hidden_size)
        summed = np.einsum("nlh,nl->nh", tokens, mask)
        pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.asarray(pooled / np.maximum(norms, 1e-12), dtype=_F32)

    def _layer_norm(self, x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
        mean = x.mean(axis=-1, keepdims=True)
        centred = x - mean
        var = np.mean(centred * centred, axis=-1, keepdims=True)
        centred *= 1.0 / np.sqrt(var + _F32(self.config.layer_norm_eps))
        centred *= weight
        centred += bias
        return centred

    def _gelu(self, x: np.ndarray) -> np.ndarray:
        """Exact GELU, ``x * (1 + erf(x / sqrt(2))) / 2``."""
        e = _erf(x * _F32(1.0 / math.sqrt(2.0)))
        e += 1.0
        e *= x
        e *= _F32(0.5)
        return e

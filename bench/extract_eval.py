"""Accuracy of the write-decision LLM on the labelled set ``bench/data/extract_cases.jsonl``.

Each case: ``text``, ``lang`` (zh/en), ``remember`` (should it become a memory?) and, when
true, ``expect``: a list of expected facts, each a list of terms the fact's content must all
contain (case-insensitive). Metrics (higher is better, in [0, 1]):

* ``should_remember_accuracy``: cases where (at least one fact extracted) == ``remember``;
* ``fact_precision``: extracted facts matching an expected fact of their case / all extracted;
* ``fact_recall``: expected facts matched by some extracted fact / all expected facts.

Prints one JSON object (also per language). Default provider: the offline ``rules`` LLM;
``--provider openai_compat`` uses the MEMORY_LLM_* settings.

    python bench/extract_eval.py [--cases PATH] [--provider rules|openai_compat] [--errors]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memory_engine.config import Settings  # noqa: E402
from memory_engine.llm import ExtractInput, build_llm  # noqa: E402

OBSERVED = datetime(2023, 5, 24, 12, tzinfo=UTC)


def _matches(content: str, terms: list[str]) -> bool:
    low = content.lower()
    return all(t.lower() in low for t in terms)


def evaluate(cases: list[dict[str, Any]], provider: str) -> dict[str, Any]:
    """Run every case through the provider; returns the metrics (see module docstring)."""
    settings = Settings(_env_file=None) if provider == "rules" else Settings()
    if provider == "rules":
        settings = settings.model_copy(update={"llm_provider": "rules"})
    llm = build_llm(settings)
    groups: dict[str, dict[str, int]] = {}
    errors: list[dict[str, Any]] = []
    started = time.perf_counter()
    for case in cases:
        result, _ = llm.extract(ExtractInput(text=case["text"], observed_at=OBSERVED))
        facts = [f.content for f in result.facts] if result.should_remember else []
        expect = case.get("expect") or []
        correct = sum(1 for f in facts if any(_matches(f, e) for e in expect))
        found = sum(1 for e in expect if any(_matches(f, e) for f in facts))
        ok = bool(facts) == bool(case["remember"])
        for key in ("all", case["lang"]):
            g = groups.setdefault(
                key, dict.fromkeys(("cases", "ok", "facts", "correct", "expected", "found"), 0)
            )
            g["cases"] += 1
            g["ok"] += ok
            g["facts"] += len(facts)
            g["correct"] += correct
            g["expected"] += len(expect)
            g["found"] += found
        if not ok or correct < len(facts) or found < len(expect):
            errors.append({"id": case["id"], "text": case["text"], "facts": facts})
    elapsed = time.perf_counter() - started

    def metrics(g: dict[str, int]) -> dict[str, Any]:
        return {
            "cases": g["cases"],
            "should_remember_accuracy": round(g["ok"] / g["cases"], 4),
            "fact_precision": round(g["correct"] / g["facts"], 4) if g["facts"] else None,
            "fact_recall": round(g["found"] / g["expected"], 4) if g["expected"] else None,
        }

    return {
        "provider": provider,
        "model": llm.model,
        **metrics(groups["all"]),
        "by_language": {k: metrics(v) for k, v in groups.items() if k != "all"},
        "ms_per_case": round(elapsed * 1000 / len(cases), 3),
        "errors": errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=Path, default=ROOT / "bench/data/extract_cases.jsonl")
    parser.add_argument("--provider", choices=("rules", "openai_compat"), default="rules")
    parser.add_argument("--errors", action="store_true", help="include the failing cases")
    args = parser.parse_args()
    cases = [json.loads(line) for line in args.cases.read_text("utf-8").splitlines() if line]
    out = evaluate(cases, args.provider)
    if not args.errors:
        out["errors"] = len(out["errors"])
    print(json.dumps(out, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()

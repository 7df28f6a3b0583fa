"""Write-path regression suite: the labelled conversations of ``bench/data/write_eval/``
written in extract mode, scored against what each write should store, skip, supersede or link.

One throwaway engine per run (a temporary data folder, one embedded PostgreSQL), a fresh tenant
per case; the write-decision LLM is ``--provider`` (``rules``, ``openai``/``openai_compat``) or,
without it, whatever ``MEMORY_LLM_*`` configures, so any OpenAI-compatible endpoint can be
compared with the offline rules; the embedder is the configured one (``MEMORY_EMBEDDER``).
Prints ONE JSON object (also written to ``--out``).

Metrics (definitions in ``memory_engine/write/evaluation.py``):

* ``should_remember_accuracy``: written turns whose "stored or reinforced a memory" matches the
  label;
* ``fact_recall``: expected facts (key terms, all in one memory) active right after their turn;
* ``fact_precision``: memories a turn created that match an expected fact of that turn;
* ``update_decision_accuracy``: turns labelled duplicate / supplement / supersede / temporary
  whose write actions show that decision;
* ``polarity_errors``: negated statements stored affirmative, or the negated value left active;
* ``forbidden_active``: corrected or wrongly attributed values still active;
* ``raw_tool_output_stored``: tool turns with a verbatim slice (>= 40 characters) of the
  payload in some memory;
* ``distilled_fact_share``: created memories in the third person within 50 (Chinese) / 120
  (other) characters;
* ``memory_type_accuracy``, ``importance_ok`` (health and safety), ``temporary_ok``;
* ``entity_linking_accuracy`` (null with ``entity_linking_note`` when the engine exposes no
  entity links) and ``entity_mention_recall``;
* ``by_language``, ``by_category``, ``failing_cases`` (``--details``: with the reasons).

    python bench/write_eval.py --split dev|heldout|all [--provider rules|openai] [--out FILE]
        [--cases N] [--details]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memory_engine import MemoryEngine, MemoryEngineError, Settings  # noqa: E402
from memory_engine.write.evaluation import load_cases  # noqa: E402
from memory_engine.write.evaluation_run import run_suite  # noqa: E402

DATA = ROOT / "bench/data/write_eval"
SPLITS = {"dev": ("dev",), "heldout": ("heldout",), "all": ("dev", "heldout")}
PROVIDERS = {"rules": "rules", "openai": "openai_compat", "openai_compat": "openai_compat"}


def main(argv: list[str] | None = None) -> dict:
    """Parse the arguments, run the suite, print (and optionally write) the report."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", choices=sorted(SPLITS), default="dev")
    ap.add_argument("--provider", choices=sorted(PROVIDERS), help="default: as configured")
    ap.add_argument("--data", type=Path, default=DATA, help="folder of dev.jsonl/heldout.jsonl")
    ap.add_argument("--cases", type=int, help="only the first N cases (a smoke run)")
    ap.add_argument("--details", action="store_true", help="failing cases with their reasons")
    ap.add_argument("--out", type=Path, help="also write the JSON here")
    args = ap.parse_args(argv)
    cases = load_cases(args.data / f"{name}.jsonl" for name in SPLITS[args.split])
    if args.cases is not None:
        cases = cases[: args.cases]
    try:
        report = run_suite(
            cases,
            Settings(),
            engine_factory=MemoryEngine,
            provider=PROVIDERS[args.provider] if args.provider else None,  # type: ignore[arg-type]
            details=args.details,
            progress=lambda n, total: print(f"{n}/{total}", end="\r", file=sys.stderr),
        )
    except MemoryEngineError as exc:  # a setting or the store: one line, no traceback
        raise SystemExit(f"write_eval: {exc}") from exc
    report = {"split": args.split, **report}
    text = json.dumps(report, ensure_ascii=False, indent=2)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return report


if __name__ == "__main__":
    main()

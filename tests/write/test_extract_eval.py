"""The labelled extraction set and its evaluation script (bench/extract_eval.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "bench/data/extract_cases.jsonl"


def test_labelled_set_shape() -> None:
    cases = [json.loads(line) for line in CASES.read_text("utf-8").splitlines() if line]
    assert len(cases) >= 60
    assert sum(c["lang"] == "zh" for c in cases) * 2 >= len(cases)
    assert len({c["id"] for c in cases}) == len(cases)
    for c in cases:
        assert isinstance(c["remember"], bool)
        assert bool(c.get("expect")) == c["remember"], c["id"]


def test_eval_script_prints_metrics_and_rules_stays_accurate() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench/extract_eval.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    data = json.loads(out.stdout)
    assert data["provider"] == "rules" and data["cases"] >= 60
    assert set(data["by_language"]) == {"zh", "en"}
    # regression floor of the offline provider on its labelled set (measured 0.94 / 1.0)
    assert data["should_remember_accuracy"] >= 0.9
    assert data["fact_precision"] >= 0.9

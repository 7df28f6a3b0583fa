"""The Write Evaluation page's runs: the labelled write-path set (``bench/data/write_eval/``, or
an uploaded JSONL of the same format) through ``write/evaluation_run.run_suite`` for one
configuration (provider and model) on top of the dashboard's settings.

Each run builds its own throwaway engine (temporary data folder, embedded PostgreSQL), so the
store the dashboard shows is never written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from memory_engine import InvalidInputError, MemoryEngine, Settings
from memory_engine.write.evaluation import EvalCase, load_cases, parse_case
from memory_engine.write.evaluation_run import run_suite

#: The labelled set of a source checkout (absent from an installed package).
DATA_DIR = Path(__file__).resolve().parents[2] / "bench" / "data" / "write_eval"

#: Parts of the set, by the page's choice.
SPLITS: dict[str, tuple[str, ...]] = {
    "dev": ("dev",),
    "heldout": ("heldout",),
    "all": ("dev", "heldout"),
}


@dataclass(frozen=True)
class EvalConfiguration:
    """One side of the comparison.

    Attributes:
        provider: the write-decision LLM (``openai_compat`` uses the ``MEMORY_LLM_*`` settings).
        model: a model name replacing ``MEMORY_LLM_MODEL`` (openai_compat only); None = as set.
    """

    provider: Literal["rules", "openai_compat"] = "rules"
    model: str | None = None


def shipped_cases(split: str, *, data_dir: Path = DATA_DIR) -> list[EvalCase]:
    """The shipped cases of ``split`` (``dev``, ``heldout``, ``all``); [] when the set is not
    there (an installed package). Raises InvalidInputError for a malformed file."""
    paths = [data_dir / f"{name}.jsonl" for name in SPLITS[split]]
    return load_cases(p for p in paths if p.is_file())


def uploaded_cases(raw: bytes) -> list[EvalCase]:
    """Cases of an uploaded JSONL file. Raises InvalidInputError (bad JSON or a bad case)."""
    out = []
    for n, line in enumerate(raw.decode("utf-8", errors="replace").splitlines(), 1):
        if line.strip():
            try:
                out.append(parse_case(json.loads(line)))
            except json.JSONDecodeError as exc:
                raise InvalidInputError(f"line {n}: not JSON ({exc.msg})") from exc
    return out


def run_configuration(
    base: Settings,
    config: EvalConfiguration,
    cases: Sequence[EvalCase],
    *,
    progress: Callable[[int, int], None] | None = None,
    details: bool = True,
) -> dict[str, Any]:
    """The suite's report for ``config`` (see ``bench/write_eval.py`` for the metrics).

    Raises:
        ConfigError: openai_compat without its endpoint settings; the engine's errors.
    """
    settings = base
    if config.provider == "openai_compat" and config.model:
        settings = base.model_copy(update={"llm_model": config.model})
    return run_suite(
        cases,
        settings,
        engine_factory=MemoryEngine,
        provider=config.provider,
        details=details,
        progress=progress,
    )

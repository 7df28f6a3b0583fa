"""Golden sets: saved (query, expected memory ids) cases of one tenant, run as a regression suite.

A golden set is a named list of cases; running it searches every query with the engine's
current configuration and records recall@k and MRR per case and on average. Sets and their
runs are JSON files under ``<data_dir>/golden/t_<tenant>/<name>.json`` (one file per set,
runs appended, at most ``MAX_RUNS`` kept), written atomically. Export/import is the same JSON.

Shapes: ``GoldenSet(name, cases=[GoldenCase(query, expected=[uuid...], k)], runs=[GoldenRun])``.
Errors: ``InvalidInputError`` for a bad name, an empty or oversized set, or malformed JSON.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import tempfile
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memory_engine.errors import InvalidInputError
from memory_engine.models import Scope, utcnow
from memory_engine.retrieval.explain import mrr, recall_at_k

__all__ = [
    "MAX_CASES",
    "MAX_RUNS",
    "GoldenCase",
    "GoldenRun",
    "GoldenSet",
    "GoldenStore",
    "run_golden",
]

MAX_CASES = 200
MAX_RUNS = 50
_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class GoldenCase(BaseModel):
    """One query and the memory ids it must return within its top ``k``."""

    model_config = ConfigDict(frozen=True)

    query: str = Field(min_length=1, max_length=4000)
    expected: list[uuid.UUID] = Field(min_length=1, max_length=50)
    k: int = Field(5, ge=1, le=200)


class GoldenRun(BaseModel):
    """One run of a set: when, with which configuration, per-case and mean metrics (0..1)."""

    model_config = ConfigDict(frozen=True)

    at: datetime = Field(default_factory=utcnow)
    config: dict[str, Any] = Field(default_factory=dict)
    recall: list[float]
    mrr: list[float]
    mean_recall: float
    mean_mrr: float


class GoldenSet(BaseModel):
    """A named golden set with its stored runs (oldest first)."""

    model_config = ConfigDict(frozen=True)

    name: str
    cases: list[GoldenCase] = Field(min_length=1, max_length=MAX_CASES)
    runs: list[GoldenRun] = Field(default_factory=list)


def _check_name(name: str) -> str:
    if not _NAME_RE.match(name):
        raise InvalidInputError("golden set names are 1-64 of [A-Za-z0-9_-]", name=name[:80])
    return name


def parse_golden(text: str) -> GoldenSet:
    """A golden set from its JSON (export format). Raises InvalidInputError when malformed."""
    try:
        data = json.loads(text)
        golden = GoldenSet.model_validate(data)
    except (json.JSONDecodeError, ValidationError) as exc:
        raise InvalidInputError(f"not a golden set: {str(exc)[:300]}") from exc
    _check_name(golden.name)
    return golden


class GoldenStore:
    """Golden sets of one tenant in ``<root>/t_<tenant_id>/`` (tenant ids never contain '/')."""

    def __init__(self, root: Path, scope: Scope) -> None:
        self.folder = Path(root) / f"t_{scope.tenant_id}"

    def names(self) -> list[str]:
        """Names of the stored sets, sorted (bounded by the file system listing)."""
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.json"))[:1000]

    def load(self, name: str) -> GoldenSet:
        """One stored set. Raises InvalidInputError when missing or unreadable."""
        path = self.folder / f"{_check_name(name)}.json"
        if not path.is_file():
            raise InvalidInputError(f"no golden set {name!r}", name=name)
        return parse_golden(path.read_text(encoding="utf-8"))

    def save(self, golden: GoldenSet) -> None:
        """Write the set (atomic replace); keeps the last ``MAX_RUNS`` runs."""
        _check_name(golden.name)
        golden = golden.model_copy(update={"runs": golden.runs[-MAX_RUNS:]})
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(golden.model_dump_json(indent=1))
        os.replace(tmp, self.folder / f"{golden.name}.json")

    def add_case(self, name: str, case: GoldenCase) -> GoldenSet:
        """Append a case to set ``name`` (created when missing) and save it."""
        try:
            current = self.load(name)
            golden = current.model_copy(update={"cases": [*current.cases, case]})
        except InvalidInputError:
            golden = GoldenSet(name=_check_name(name), cases=[case])
        if len(golden.cases) > MAX_CASES:
            raise InvalidInputError(f"a golden set holds at most {MAX_CASES} cases")
        self.save(golden)
        return golden


def run_golden(engine: Any, scope: Scope, golden: GoldenSet) -> GoldenRun:
    """Search every case with the engine's current defaults (traces not stored); recall@k and
    MRR (within k) per case, in [0, 1]."""
    recalls, mrrs = [], []
    config: dict[str, Any] = {}
    for case in golden.cases:
        res = engine.search(scope, case.query, k=case.k, save_trace=False)
        config = res.trace.config
        ranked = [c.memory.id for c in res.memories]
        recalls.append(recall_at_k(ranked, case.expected, case.k))
        mrrs.append(mrr(ranked, case.expected, case.k))
    return GoldenRun(
        config=config,
        recall=recalls,
        mrr=mrrs,
        mean_recall=statistics.fmean(recalls),
        mean_mrr=statistics.fmean(mrrs),
    )

"""``--conversation`` naming a sample the LoCoMo file does not hold: the error lists the
samples it does hold (it said "have none" for a file of ten, since only the requested
sample was collected)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_engine.errors import IngestFormatError
from memory_engine.write.ingest import read_locomo


def test_missing_conversation_lists_the_file_samples(tmp_path: Path) -> None:
    sample = {"conversation": {"session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}}
    data = [{**sample, "sample_id": f"conv-{i}"} for i in (26, 30, 41)]
    p = tmp_path / "locomo.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(IngestFormatError, match=r"have conv-26, conv-30, conv-41"):
        read_locomo(p, "conv-999")
    assert list(read_locomo(p, "conv-30")) == ["conv-30"]
